/* test_daemon.c - cuzkd as a process: signals, its unix socket files, a second daemon on the
 * same socket, and the start-up warnings about who can reach it. Daemons run on unix sockets
 * in a temporary directory (tests/tools/tools_util.h); `cuzk-bench status` is the client.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/test.h"
#include "engine/test_kind.h"
#include "tools/tools_util.h"

#if !defined(CUZKD_EXE) || !defined(CUZKD_TEST_EXE)
#    error "CUZKD_EXE and CUZKD_TEST_EXE must name the cuzkd and cuzkd_test binaries"
#endif

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Arguments every daemon here gets besides its --listen: an empty parameter directory. */
#define BASE_ARGS "--param-cache", tu_path("no-params")

/* True when GetStatus answers on addr. */
static bool answers(const char *addr)
{
    tu_result r;
    tu_bench(&r, "status", "--addr", addr, "--timeout", "5", NULL);
    bool ok = r.status == 0;
    tu_result_clear(&r);
    return ok;
}

/* Waits up to 10 s for a line of the daemon's log containing a and b (b may be NULL). */
static bool log_has(const char *addr, const char *a, const char *b)
{
    for (int i = 0; i < 200; i++) {
        char *log = tu_daemon_log(addr);
        bool found = false;
        for (char *line = strtok(log, "\n"); line && !found; line = strtok(NULL, "\n")) {
            found = strstr(line, a) && (!b || strstr(line, b));
        }
        free(log);
        if (found) {
            return true;
        }
        sleep_ms(50);
    }
    return false;
}

#define CHECK_LOG(addr, a, b)                                                                      \
    do {                                                                                           \
        if (!log_has((addr), (a), (b))) {                                                          \
            char *log_ = tu_daemon_log(addr);                                                      \
            test_fail(__FILE__, __LINE__, "no log line with \"%s\"%s%s; log:\n%s", (a),            \
                      (b) ? " and " : "", (b) ? (const char *)(b) : "", log_);                     \
        }                                                                                          \
    } while (0)

static const char *sock_path(const char *addr)
{
    return addr + strlen("unix://");
}

/* SIGHUP and SIGUSR1 are answered with a log line and the daemon goes on; SIGQUIT stops it at
 * once, logged, and removes its socket file. */
TEST(signals_hup_usr1_quit)
{
    const char *args[] = {BASE_ARGS, NULL};
    const char *addr = tu_daemon_start(CUZKD_EXE, "sig", args);
    pid_t pid = tu_daemon_pid(addr);

    CHECK(pid > 0);
    CHECK(kill(pid, SIGHUP) == 0);
    CHECK_LOG(addr, "event=sighup", "action=ignored");
    CHECK(answers(addr));
    CHECK(kill(pid, SIGUSR1) == 0);
    CHECK_LOG(addr, "event=status", "jobs_queued=0 jobs_running=0");
    CHECK_LOG(addr, "event=status", "mem_budget_bytes=");
    CHECK(answers(addr));

    CHECK(kill(pid, SIGQUIT) == 0);
    CHECK_EQ_U64(tu_daemon_wait(addr, 20), 0);
    CHECK_LOG(addr, "event=shutdown signal=SIGQUIT", "grace_ms=0");
    CHECK_LOG(addr, "event=stopped status=0", NULL);
    CHECK_MSG(!tu_exists(sock_path(addr)), "%s is left behind", sock_path(addr));
}

/* cuzk-bench arguments proving a tk request (tests/engine/test_kind.h) of one partition whose
 * synthesis sleeps sleep_ms, as job `id` (window-post vanilla without a sidecar). argv keeps
 * pointers into static storage, valid until the next call. */
static void tk_single(const char **argv, const char *addr, const char *id, uint32_t sleep_ms)
{
    static const char zero32[] = "00000000000000000000000000000000"
                                 "00000000000000000000000000000000";
    static char file[600], rid[64];
    tk_req q;
    uint8_t buf[256];

    memset(&q, 0, sizeof(q));
    q.sleep_ms = sleep_ms;
    q.nparts = 1;
    q.x[0] = 3;
    CHECK(tk_encoded_len(&q) <= sizeof(buf));
    snprintf(file, sizeof(file), "%s.bin", tu_path(id));
    snprintf(rid, sizeof(rid), "%s", id);
    tu_write(file, buf, tk_encode(buf, &q));
    const char *args[] = {
        "single",        "--addr", addr,           "--type", "window-post", "--no-sidecar",
        "--sector-size", "2KiB",   "--randomness", zero32,   "--miner-id",  "1000",
        "--vanilla",     file,     "--request-id", rid,      NULL};
    memcpy(argv, args, sizeof(args));
}

/* Runs cuzk-bench with argv in a child process; returns its pid (see client_wait). */
static pid_t client_start(const char *const *argv)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        tu_result r;
        tu_bench_v(&r, argv);
        fflush(stdout);
        _exit(r.status & 0xff); /* no atexit handlers: they belong to the parent */
    }
    return pid;
}

/* Waits up to limit_s for the client to exit; its exit status (-1 on timeout, then killed). */
static int client_wait(pid_t pid, unsigned limit_s)
{
    for (unsigned i = 0; i < limit_s * 20; i++) {
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
        }
        sleep_ms(50);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return -1;
}

/* The signals arrive while a proof runs: SIGHUP and SIGUSR1 leave it alone (it completes);
 * SIGQUIT stops the daemon without waiting for the next proof, and removes the socket. */
TEST(signals_during_a_proof)
{
    const char *args[] = {"--param-cache", tu_path("tk-params"), NULL};
    const char *addr = tu_daemon_start(CUZKD_TEST_EXE, "busy", args);
    pid_t pid = tu_daemon_pid(addr);
    const char *argv[20];

    tk_single(argv, addr, "slow-1", 1500);
    pid_t client = client_start(argv);
    CHECK_LOG(addr, "job=slow-1 stage=parse", NULL);
    CHECK(kill(pid, SIGHUP) == 0);
    CHECK(kill(pid, SIGUSR1) == 0);
    CHECK_LOG(addr, "event=status", "jobs_running=1");
    CHECK_EQ_U64(client_wait(client, 60), 0);
    CHECK(answers(addr));

    tk_single(argv, addr, "slow-2", 3000);
    client = client_start(argv);
    CHECK_LOG(addr, "job=slow-2 stage=parse", NULL);
    CHECK(kill(pid, SIGQUIT) == 0);
    CHECK_EQ_U64(tu_daemon_wait(addr, 20), 0);
    CHECK(client_wait(client, 60) != 0); /* its job was cancelled */
    CHECK_LOG(addr, "event=shutdown signal=SIGQUIT", "action=cancel_running");
    CHECK_MSG(!tu_exists(sock_path(addr)), "%s is left behind", sock_path(addr));
}

/* The graceful stop removes the socket file too. */
TEST(sigterm_removes_the_socket)
{
    const char *args[] = {BASE_ARGS, NULL};
    const char *addr = tu_daemon_start(CUZKD_EXE, "term", args);

    CHECK(kill(tu_daemon_pid(addr), SIGTERM) == 0);
    CHECK_EQ_U64(tu_daemon_wait(addr, 20), 0);
    CHECK_LOG(addr, "event=shutdown signal=SIGTERM", NULL);
    CHECK_MSG(!tu_exists(sock_path(addr)), "%s is left behind", sock_path(addr));
}

/* A second daemon on a live daemon's socket refuses to start; the first keeps serving. */
TEST(second_daemon_on_a_live_socket_is_refused)
{
    const char *args[] = {BASE_ARGS, NULL};
    const char *addr = tu_daemon_start(CUZKD_EXE, "first", args);
    const char *argv[] = {CUZKD_EXE, "--listen", addr, BASE_ARGS, NULL};
    tu_result r;

    tu_run(&r, argv, 15);
    printf("  second daemon: exit %d\n%s", r.status, r.err);
    CHECK_EQ_U64(r.status, 1);
    CHECK(tu_has(r.err, "another process listens on ", addr,
                 "; stop it or choose another daemon.listen", NULL));
    tu_result_clear(&r);
    CHECK(tu_exists(sock_path(addr)));
    CHECK(answers(addr));
    tu_daemon_stop(addr);
}

/* Two daemons started at the same moment both found no socket and both bound one; the lock
 * beside the socket (held for the daemon's life, taken before the check) now lets one through.
 * Here the test holds the lock: the daemon refuses to start and leaves no socket. Once the
 * lock is released, the same address starts. */
TEST(daemon_refused_while_another_holds_the_socket_lock)
{
    char addr[600], lock[620];
    const char *path = tu_path("locked.sock");
    snprintf(addr, sizeof(addr), "unix://%s", path);
    snprintf(lock, sizeof(lock), "%s.lock", path);
    int fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    CHECK(fd >= 0);
    CHECK(flock(fd, LOCK_EX | LOCK_NB) == 0);
    const char *argv[] = {CUZKD_EXE, "--listen", addr, BASE_ARGS, NULL};
    tu_result r;
    tu_run(&r, argv, 15);
    CHECK_EQ_U64(r.status, 1);
    CHECK_MSG(tu_has(r.err, "another process listens on ", addr, "(it holds ", lock, NULL), "%s",
              r.err);
    tu_result_clear(&r);
    CHECK(!tu_exists(path));
    close(fd);
    const char *args[] = {BASE_ARGS, NULL};
    const char *started = tu_daemon_start(CUZKD_EXE, "locked", args);
    CHECK(answers(started));
    tu_daemon_stop(started);
}

/* A TCP address another process holds: the daemon says which address and why. */
TEST(busy_tcp_address_named_with_its_reason)
{
    struct sockaddr_in sa;
    socklen_t sl = sizeof(sa);
    char addr[64];
    int fd = socket(AF_INET, SOCK_STREAM, 0);

    CHECK(fd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sin_family = AF_INET;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    CHECK(bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) == 0 && listen(fd, 1) == 0);
    CHECK(getsockname(fd, (struct sockaddr *)&sa, &sl) == 0);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", (unsigned)ntohs(sa.sin_port));
    const char *argv[] = {CUZKD_EXE, "--listen", addr, BASE_ARGS, NULL};
    tu_result r;
    tu_run(&r, argv, 15);
    CHECK_EQ_U64(r.status, 1);
    CHECK_MSG(tu_has(r.err, "cannot listen on ", addr, ": Address already in use", NULL), "%s",
              r.err);
    tu_result_clear(&r);
    close(fd);
}

/* A socket file nobody listens on (a daemon that was killed) is removed and replaced; a path
 * that is not a socket is refused. */
TEST(stale_socket_replaced_other_files_refused)
{
    struct sockaddr_un sa;
    const char *stale = tu_path("stale.sock");
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);

    CHECK(fd >= 0);
    memset(&sa, 0, sizeof(sa));
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", stale);
    CHECK_MSG(bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) == 0, "bind: %s", strerror(errno));
    close(fd); /* the file stays; nobody listens */
    const char *args[] = {BASE_ARGS, NULL};
    const char *addr = tu_daemon_start(CUZKD_EXE, "stale", args);
    CHECK_LOG(addr, "event=stale_socket", stale);
    tu_daemon_stop(addr);

    char file_addr[600];
    tu_write(tu_path("file.sock"), "data", 4);
    snprintf(file_addr, sizeof(file_addr), "unix://%s", tu_path("file.sock"));
    const char *argv[] = {CUZKD_EXE, "--listen", file_addr, BASE_ARGS, NULL};
    tu_result r;
    tu_run(&r, argv, 15);
    CHECK_EQ_U64(r.status, 1);
    CHECK_MSG(tu_has(r.err, "file.sock exists and is not a socket", NULL), "%s", r.err);
    tu_result_clear(&r);
    CHECK(tu_exists(tu_path("file.sock")));
}

/* Listening beyond loopback, or on a socket every user may connect to, is warned about. */
TEST(exposed_listeners_are_warned_about)
{
    const char *quiet_args[] = {BASE_ARGS, "--listen", "127.0.0.1:0", NULL};
    const char *addr = tu_daemon_start(CUZKD_EXE, "quiet", quiet_args);
    CHECK_LOG(addr, "event=ready", NULL);
    char *log = tu_daemon_log(addr);
    CHECK_MSG(strstr(log, "exposed_listen") == NULL, "%s", log);
    free(log);
    tu_daemon_stop(addr);

    const char *args[] = {BASE_ARGS, "--listen", "0.0.0.0:0", "--socket-mode", "0777", NULL};
    addr = tu_daemon_start(CUZKD_EXE, "exposed", args);
    CHECK_LOG(addr, "level=warn event=exposed_listen addr=0.0.0.0:0", "no authentication");
    CHECK_LOG(addr, "level=warn event=exposed_listen", "socket_mode=0777");
    tu_daemon_stop(addr);
}
