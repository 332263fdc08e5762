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

/* cuzk-bench arguments proving the window-post vanilla proof in `file` as job `id` (no
 * sidecar); argv borrows addr, id and file. */
static void single_argv(const char **argv, const char *addr, const char *id, const char *file)
{
    static const char zero32[] = "00000000000000000000000000000000"
                                 "00000000000000000000000000000000";
    const char *args[] = {
        "single",        "--addr", addr,           "--type", "window-post", "--no-sidecar",
        "--sector-size", "2KiB",   "--randomness", zero32,   "--miner-id",  "1000",
        "--vanilla",     file,     "--request-id", id,       NULL};
    memcpy(argv, args, sizeof(args));
}

/* cuzk-bench arguments proving a tk request (tests/engine/test_kind.h) of one partition whose
 * synthesis sleeps sleep_ms, as job `id` (window-post vanilla without a sidecar). argv keeps
 * pointers into static storage, valid until the next call. */
static void tk_single(const char **argv, const char *addr, const char *id, uint32_t sleep_ms)
{
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
    single_argv(argv, addr, rid, file);
}

/* Runs cuzk-bench with argv in a child process; returns its pid (see client_wait). Its
 * stderr is written to err_path when not NULL. */
static pid_t client_start(const char *const *argv, const char *err_path)
{
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        tu_result r;
        tu_bench_v(&r, argv);
        if (err_path) {
            tu_write(err_path, r.err, strlen(r.err));
        }
        fflush(stdout);
        _exit(r.status & 0xff); /* no atexit handlers: they belong to the parent */
    }
    return pid;
}

/* The client's stderr as written by client_start (malloc'd, NUL-terminated). */
static char *client_err(const char *err_path)
{
    FILE *f = fopen(err_path, "rb");
    CHECK(f != NULL);
    char *buf = calloc(1, 65536);
    CHECK(buf != NULL);
    size_t n = fread(buf, 1, 65535, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

static uint64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
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
    pid_t client = client_start(argv, NULL);
    CHECK_LOG(addr, "job=slow-1 stage=parse", NULL);
    CHECK(kill(pid, SIGHUP) == 0);
    CHECK(kill(pid, SIGUSR1) == 0);
    CHECK_LOG(addr, "event=status", "jobs_running=1");
    CHECK_EQ_U64(client_wait(client, 60), 0);
    CHECK(answers(addr));

    tk_single(argv, addr, "slow-2", 3000);
    client = client_start(argv, tu_path("slow-2.err"));
    CHECK_LOG(addr, "job=slow-2 stage=parse", NULL);
    CHECK(kill(pid, SIGQUIT) == 0);
    CHECK_EQ_U64(tu_daemon_wait(addr, 20), 0);
    CHECK(client_wait(client, 60) != 0); /* its job was cancelled */
    char *err = client_err(tu_path("slow-2.err"));
    CHECK_MSG(strstr(err, "UNAVAILABLE") != NULL, "the open call did not get UNAVAILABLE: %s", err);
    free(err);
    CHECK_LOG(addr, "event=shutdown signal=SIGQUIT", "action=cancel_running");
    CHECK_MSG(!tu_exists(sock_path(addr)), "%s is left behind", sock_path(addr));
}

/* SIGQUIT ends the daemon within a bound whatever its threads are doing: here a synthesis that
 * sleeps 60 s without looking at its cancel flag keeps the orderly stop from finishing, and the
 * watchdog ends the process about 10 s after the signal (exit status 3, logged), removing the
 * socket. The call in flight was answered UNAVAILABLE before that. */
TEST(sigquit_is_bounded_when_a_stage_does_not_return)
{
#ifdef __SANITIZE_THREAD__
    /* the forced exit leaves the engine's threads running by design: reported as leaks */
    test_skip("ThreadSanitizer build");
#endif
    const char *args[] = {"--param-cache", tu_path("tk-params"), NULL};
    const char *addr = tu_daemon_start(CUZKD_TEST_EXE, "stuck", args);
    pid_t pid = tu_daemon_pid(addr);
    const char *argv[20];

    tk_single(argv, addr, "stuck-1", 60000);
    pid_t client = client_start(argv, tu_path("stuck-1.err"));
    CHECK_LOG(addr, "job=stuck-1 stage=parse", NULL);
    sleep_ms(300); /* its synthesis is asleep */
    uint64_t t0 = mono_ms();
    CHECK(kill(pid, SIGQUIT) == 0);
    int rc = client_wait(client, 30);
    CHECK_MSG(rc > 0, "client exit %d", rc);
    char *err = client_err(tu_path("stuck-1.err"));
    CHECK_MSG(strstr(err, "UNAVAILABLE") != NULL, "the open call did not get UNAVAILABLE: %s", err);
    free(err);
    int st = tu_daemon_wait(addr, 40);
    CHECK_MSG(st == 3, "exit status %d; the daemon's log:\n%s", st, tu_daemon_log(addr));
    uint64_t ms = mono_ms() - t0;
    printf("  stopped after %llu ms\n", (unsigned long long)ms);
    CHECK_MSG(ms >= 9000 && ms < 20000, "stopped after %llu ms", (unsigned long long)ms);
    CHECK_LOG(addr, "event=stop_timeout signal=SIGQUIT", "action=exit status=3");
    CHECK_MSG(!tu_exists(sock_path(addr)), "%s is left behind", sock_path(addr));
}

/* The process's peak resident memory (VmHWM), in bytes. */
static uint64_t peak_rss(pid_t pid)
{
    char path[64], line[256];
    uint64_t kb = 0;
    snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtoull(line + 6, NULL, 10);
        }
    }
    fclose(f);
    return kb << 10;
}

/* Requests being received count before they are decoded: with a 512 MiB budget the daemon
 * receives one large request (SubmitProof, Prove) at a time, the others wait before gRPC reads
 * them. Eight concurrent 60 MB Prove requests (vanilla proofs that do not parse: the jobs fail)
 * raise its peak memory by a few times one request (gRPC's buffers, the decoding copies), not
 * by eight requests and their copies (about 700 MB when all are read at once). */
TEST(large_requests_are_received_a_few_at_a_time)
{
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
    /* the sanitizers' shadow memory and quarantine make the peak meaningless */
    test_skip("sanitizer build");
#endif
    enum { CLIENTS = 8 };
    const size_t size = (size_t)60 << 20;
    char conf[600], file[600];
    snprintf(conf, sizeof(conf), "%s", tu_path("budget-512.toml"));
    snprintf(file, sizeof(file), "%s", tu_path("big-vanilla.bin"));
    const char toml[] = "[memory]\ntotal_budget = \"512MiB\"\n";
    tu_write(conf, toml, strlen(toml));
    uint8_t *junk = malloc(size);
    CHECK(junk != NULL);
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < size; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        junk[i] = (uint8_t)x;
    }
    tu_write(file, junk, size);
    free(junk);

    const char *args[] = {"--config", conf, BASE_ARGS, NULL};
    const char *addr = tu_daemon_start(CUZKD_EXE, "big", args);
    CHECK_LOG(addr, "event=rpc_limits", "max_receiving=1");
    pid_t pid = tu_daemon_pid(addr);
    uint64_t before = peak_rss(pid);
    pid_t clients[CLIENTS];
    const char *argv[CLIENTS][20];
    char ids[CLIENTS][16];
    for (int i = 0; i < CLIENTS; i++) {
        snprintf(ids[i], sizeof(ids[i]), "big-%d", i);
        single_argv(argv[i], addr, ids[i], file);
        clients[i] = client_start(argv[i], NULL);
    }
    for (int i = 0; i < CLIENTS; i++) {
        CHECK(client_wait(clients[i], 120) > 0); /* answered: the job failed */
    }
    uint64_t grew = peak_rss(pid) - before;
    printf("  peak memory grew by %llu MiB\n", (unsigned long long)(grew >> 20));
    CHECK_MSG(grew < 7 * (uint64_t)size, "peak memory grew by %llu MiB",
              (unsigned long long)(grew >> 20));
    CHECK(answers(addr));
    tu_daemon_stop(addr);
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
