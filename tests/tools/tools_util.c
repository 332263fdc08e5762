/* tools_util.c - see tools_util.h. Children get /dev/null as stdin; their output goes to files
 * in the temporary directory and is read back once they exit. Daemons are forked with
 * PR_SET_PDEATHSIG so that they die with the test even when it is killed (ctest timeout). */
#include "tools_util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness/test.h"

#ifndef CUZK_BENCH_EXE
#    error "CUZK_BENCH_EXE must name the cuzk-bench binary"
#endif

extern char **environ;

static char g_tmp[256];
static unsigned g_seq;

#define MAX_DAEMONS 4

static struct {
    pid_t pid;
    char addr[300];
    char log[300];
} g_daemons[MAX_DAEMONS];

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void sleep_ms(unsigned ms)
{
    struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Waits for pid up to limit_s seconds; kills it after that. Returns the tu_result status. */
static int wait_child(pid_t pid, double limit_s)
{
    double end = now_s() + limit_s;
    int st = 0;

    for (;;) {
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid) {
            break;
        }
        if (w < 0 && errno != EINTR) {
            return -1;
        }
        if (now_s() > end) {
            fprintf(stderr, "tools_util: pid %d ran past %.0f s: killed\n", (int)pid, limit_s);
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        sleep_ms(5);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void cleanup(void)
{
    for (size_t i = 0; i < MAX_DAEMONS; i++) {
        if (g_daemons[i].pid > 0) {
            tu_daemon_stop(g_daemons[i].addr);
        }
    }
    if (g_tmp[0] && !getenv("CUZK_KEEP_TMP")) {
        nftw(g_tmp, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
}

const char *tu_tmp(void)
{
    if (!g_tmp[0]) {
        snprintf(g_tmp, sizeof(g_tmp), "/tmp/cuzk-tools-XXXXXX");
        CHECK_MSG(mkdtemp(g_tmp) != NULL, "mkdtemp: %s", strerror(errno));
        atexit(cleanup);
    }
    return g_tmp;
}

const char *tu_path(const char *name)
{
    static char ring[8][512];
    static unsigned next;
    char *p = ring[next++ % 8];
    snprintf(p, sizeof(ring[0]), "%s/%s", tu_tmp(), name);
    return p;
}

void tu_result_clear(tu_result *r)
{
    free(r->out);
    free(r->err);
    memset(r, 0, sizeof(*r));
}

uint8_t *tu_read(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    uint8_t *buf;
    long n;

    if (!f) {
        return NULL;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return NULL;
    }
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    fclose(f);
    buf[n] = 0;
    if (len) {
        *len = (size_t)n;
    }
    return buf;
}

void tu_write(const char *path, const void *buf, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK_MSG(f != NULL, "%s: %s", path, strerror(errno));
    CHECK(fwrite(buf, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

void tu_copy(const char *from, const char *to)
{
    size_t len;
    uint8_t *b = tu_read(from, &len);
    CHECK_MSG(b != NULL, "cannot read %s", from);
    tu_write(to, b, len);
    free(b);
}

bool tu_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

void tu_start(tu_child *c, const char *const *argv)
{
    posix_spawn_file_actions_t fa;
    unsigned seq = g_seq++;

    snprintf(c->outp, sizeof(c->outp), "%s/.out.%u", tu_tmp(), seq);
    snprintf(c->errp, sizeof(c->errp), "%s/.err.%u", tu_tmp(), seq);
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, c->outp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, 2, c->errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (posix_spawn(&c->pid, argv[0], &fa, NULL, (char *const *)argv, environ) != 0) {
        c->pid = -1;
    }
    posix_spawn_file_actions_destroy(&fa);
}

void tu_join(tu_child *c, tu_result *r, unsigned limit_s)
{
    memset(r, 0, sizeof(*r));
    r->status = c->pid > 0 ? wait_child(c->pid, limit_s) : -1;
    c->pid = 0;
    r->out = (char *)tu_read(c->outp, NULL);
    r->err = (char *)tu_read(c->errp, NULL);
    if (!r->out) {
        r->out = calloc(1, 1);
    }
    if (!r->err) {
        r->err = calloc(1, 1);
    }
    CHECK(r->out && r->err);
    remove(c->outp);
    remove(c->errp);
}

void tu_run(tu_result *r, const char *const *argv, unsigned limit_s)
{
    tu_child c;
    tu_start(&c, argv);
    tu_join(&c, r, limit_s);
}

void tu_bench(tu_result *r, const char *first, ...)
{
    const char *args[64];
    size_t n = 0;
    va_list ap;

    va_start(ap, first);
    for (const char *a = first; a; a = va_arg(ap, const char *)) {
        CHECK(n + 1 < ARRAY_LEN(args));
        args[n++] = a;
    }
    va_end(ap);
    args[n] = NULL;
    tu_bench_v(r, args);
}

/* Prints the command line of cuzk-bench with args and starts it. */
static void bench_start(tu_child *c, const char *const *args)
{
    const char *argv[64];
    size_t n = 0;

    argv[n++] = CUZK_BENCH_EXE;
    for (size_t i = 0; args[i]; i++) {
        CHECK(n + 1 < ARRAY_LEN(argv));
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    printf("  $ cuzk-bench");
    for (size_t i = 1; i < n; i++) {
        printf(" %s", argv[i]);
    }
    fflush(stdout);
    tu_start(c, argv);
}

void tu_bench_join(tu_child *c, tu_result *r)
{
    tu_join(c, r, 600);
    printf("  -> exit %d\n", r->status);
    if (r->status != 0 && r->err[0]) {
        printf("     stderr: %s", r->err);
    }
    fflush(stdout);
}

void tu_bench_v(tu_result *r, const char *const *args)
{
    tu_child c;
    bench_start(&c, args);
    tu_bench_join(&c, r);
}

void tu_bench_start(tu_child *c, const char *const *args)
{
    bench_start(c, args);
    printf("  (in the background)\n");
    fflush(stdout);
}

static const char *daemon_start(const char *exe, const char *name, const char *const *args,
                                bool must);

const char *tu_daemon_start(const char *exe, const char *name, const char *const *args)
{
    return daemon_start(exe, name, args, true);
}

const char *tu_daemon_try_start(const char *exe, const char *name, const char *const *args)
{
    return daemon_start(exe, name, args, false);
}

static const char *daemon_start(const char *exe, const char *name, const char *const *args,
                                bool must)
{
    const char *argv[32];
    size_t n = 0, slot = 0;
    char listen[300];
    pid_t pid, parent = getpid();
    double end;

    while (slot < MAX_DAEMONS && g_daemons[slot].pid > 0) {
        slot++;
    }
    CHECK(slot < MAX_DAEMONS);
    snprintf(g_daemons[slot].addr, sizeof(g_daemons[slot].addr), "unix://%s/%s.sock", tu_tmp(),
             name);
    snprintf(g_daemons[slot].log, sizeof(g_daemons[slot].log), "%s/%s.log", tu_tmp(), name);
    snprintf(listen, sizeof(listen), "%s", g_daemons[slot].addr);
    argv[n++] = exe;
    argv[n++] = "--listen";
    argv[n++] = listen;
    argv[n++] = "--shutdown-grace";
    argv[n++] = "1s";
    for (size_t i = 0; args && args[i]; i++) {
        CHECK(n + 1 < ARRAY_LEN(argv));
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    fflush(stdout);
    fflush(stderr);
    pid = fork();
    CHECK_MSG(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(g_daemons[slot].log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int in = open("/dev/null", O_RDONLY);
        /* die with the test, even when the test is killed */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent || fd < 0 || in < 0) {
            _exit(127);
        }
        dup2(in, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    g_daemons[slot].pid = pid;
    printf("  daemon %s pid %d on %s\n", name, (int)pid, g_daemons[slot].addr);

    /* ready when GetStatus answers */
    end = now_s() + 60;
    for (;;) {
        const char *sv[] = {CUZK_BENCH_EXE, "status", "--addr", g_daemons[slot].addr,
                            "--timeout",    "2",      NULL};
        tu_result r;
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid) {
            char *log = (char *)tu_read(g_daemons[slot].log, NULL);
            g_daemons[slot].pid = 0;
            if (!must) {
                printf("  daemon %s exited at start-up; its log:\n%s", name, log ? log : "");
                free(log);
                return NULL;
            }
            test_fail(__FILE__, __LINE__, "daemon %s exited at start-up; its log:\n%s", name,
                      log ? log : "(none)");
        }
        if (tu_exists(g_daemons[slot].addr + strlen("unix://"))) {
            tu_run(&r, sv, 30);
            st = r.status;
            tu_result_clear(&r);
            if (st == 0) {
                break;
            }
        }
        CHECK_MSG(now_s() < end, "daemon %s did not answer GetStatus within 60 s", name);
        sleep_ms(50);
    }
    return g_daemons[slot].addr;
}

void tu_daemon_stop(const char *addr)
{
    for (size_t i = 0; i < MAX_DAEMONS; i++) {
        if (g_daemons[i].pid > 0 && strcmp(g_daemons[i].addr, addr) == 0) {
            pid_t pid = g_daemons[i].pid;
            int st;
            g_daemons[i].pid = 0;
            kill(pid, SIGTERM);
            st = wait_child(pid, 20);
            if (st != 0) {
                fprintf(stderr, "tools_util: daemon on %s exited with %d\n", addr, st);
            }
            return;
        }
    }
}

static int daemon_slot(const char *addr)
{
    for (int i = 0; i < MAX_DAEMONS; i++) {
        if (g_daemons[i].pid > 0 && strcmp(g_daemons[i].addr, addr) == 0) {
            return i;
        }
    }
    return -1;
}

pid_t tu_daemon_pid(const char *addr)
{
    int i = daemon_slot(addr);
    return i < 0 ? 0 : g_daemons[i].pid;
}

int tu_daemon_wait(const char *addr, unsigned limit_s)
{
    int i = daemon_slot(addr);
    if (i < 0) {
        return -1;
    }
    pid_t pid = g_daemons[i].pid;
    g_daemons[i].pid = 0;
    return wait_child(pid, limit_s);
}

char *tu_daemon_log(const char *addr)
{
    for (int i = 0; i < MAX_DAEMONS; i++) {
        if (strcmp(g_daemons[i].addr, addr) == 0) {
            char *log = (char *)tu_read(g_daemons[i].log, NULL);
            return log ? log : calloc(1, 1);
        }
    }
    return calloc(1, 1);
}

bool tu_json_str(const char *json, const char *key, char *out, size_t cap)
{
    char pat[128];
    const char *p, *e;

    snprintf(pat, sizeof(pat), "\"%s\":", key);
    p = strstr(json, pat);
    if (!p) {
        return false;
    }
    p += strlen(pat);
    while (*p == ' ') {
        p++;
    }
    if (*p != '"') {
        return false;
    }
    e = strchr(++p, '"');
    if (!e || (size_t)(e - p) >= cap) {
        return false;
    }
    memcpy(out, p, (size_t)(e - p));
    out[e - p] = '\0';
    return true;
}

bool tu_json_u64(const char *json, const char *key, uint64_t *out)
{
    char pat[128];
    const char *p;
    char *end;

    snprintf(pat, sizeof(pat), "\"%s\":", key);
    p = strstr(json, pat);
    if (!p) {
        return false;
    }
    p += strlen(pat);
    while (*p == ' ') {
        p++;
    }
    if (*p < '0' || *p > '9') {
        return false;
    }
    *out = strtoull(p, &end, 10);
    return true;
}

bool tu_has(const char *s, ...)
{
    va_list ap;
    bool ok = true;

    va_start(ap, s);
    for (const char *n = va_arg(ap, const char *); n; n = va_arg(ap, const char *)) {
        if (!strstr(s, n)) {
            ok = false;
        }
    }
    va_end(ap);
    return ok;
}
