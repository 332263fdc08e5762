/* tools_util.h - running the command-line tools from tests: child processes with captured
 * output and a time limit, a private temporary directory removed at exit, daemons started on
 * unix sockets in it (stopped at exit, whatever the tests did), and small file helpers.
 * Paths of the tools come from the build (CUZK_BENCH_EXE, CUZKD_EXE, CUZKD_TEST_EXE).
 */
#ifndef CUZK_TESTS_TOOLS_TOOLS_UTIL_H
#define CUZK_TESTS_TOOLS_TOOLS_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** A finished child: exit code (128 + signal when killed, -1 when it could not start), its
 *  stdout and stderr (NUL-terminated, owned). */
typedef struct tu_result {
    int status;
    char *out;
    char *err;
} tu_result;

void tu_result_clear(tu_result *r);

/** Runs argv[0] with argv (NULL-terminated) for at most limit_s seconds (killed after). */
void tu_run(tu_result *r, const char *const *argv, unsigned limit_s);

/** A child started in the background; its output goes to files in the temporary directory. */
typedef struct tu_child {
    pid_t pid; /* -1 when it could not start, 0 once joined */
    char outp[300], errp[300];
} tu_child;

/** tu_run in two halves: start argv[0] with argv, then wait for it (killed after limit_s
 *  seconds from the join) and collect its result. Every started child must be joined. */
void tu_start(tu_child *c, const char *const *argv);
void tu_join(tu_child *c, tu_result *r, unsigned limit_s);

/** cuzk-bench with the NULL-terminated arguments that follow; prints the command line, its
 *  exit code and (when non-zero) its stderr. */
void tu_bench(tu_result *r, const char *first, ...) __attribute__((sentinel));

/** The same with the arguments in a NULL-terminated array. */
void tu_bench_v(tu_result *r, const char *const *args);

/** tu_bench_v in the background: tu_bench_start returns at once, tu_bench_join waits (at most
 *  600 s) and reports as tu_bench does. */
void tu_bench_start(tu_child *c, const char *const *args);
void tu_bench_join(tu_child *c, tu_result *r);

/** The test's temporary directory (created on first use, removed with everything in it at
 *  exit) and paths in it (static ring of buffers: use before 8 more calls). */
const char *tu_tmp(void);
const char *tu_path(const char *name);

/** A daemon listening on unix://<tmp>/<name>.sock; returns its address ("unix:///...", static
 *  storage of the daemon slot). args: extra arguments, NULL-terminated. Waits until `status`
 *  answers (at most 60 s); fails the test otherwise. Stopped (SIGTERM, then SIGKILL) at exit or
 *  by tu_daemon_stop. */
const char *tu_daemon_start(const char *exe, const char *name, const char *const *args);
/** The same, but a daemon that exits at start-up gives NULL (its log is printed). */
const char *tu_daemon_try_start(const char *exe, const char *name, const char *const *args);
void tu_daemon_stop(const char *addr);
/** The pid of the daemon on addr, for signals (0 when none runs there). */
pid_t tu_daemon_pid(const char *addr);
/** Waits up to limit_s seconds for the daemon on addr to exit by itself (killed after that) and
 *  forgets it; returns its status as tu_result does (-1 when no daemon runs there). */
int tu_daemon_wait(const char *addr, unsigned limit_s);
/** The daemon's log so far (stdout and stderr), owned; "" when none. */
char *tu_daemon_log(const char *addr);

/** Whole file into an owned NUL-terminated buffer (len may be NULL); NULL if unreadable. */
uint8_t *tu_read(const char *path, size_t *len);
/** Writes a file; fails the test on error. */
void tu_write(const char *path, const void *buf, size_t len);
void tu_copy(const char *from, const char *to);
bool tu_exists(const char *path);

/** The string value of "key" in a flat JSON object ("key": "value"), into out; false if
 *  absent. The integer value likewise. */
bool tu_json_str(const char *json, const char *key, char *out, size_t cap);
bool tu_json_u64(const char *json, const char *key, uint64_t *out);

/** True if s contains every one of the NULL-terminated needles. */
bool tu_has(const char *s, ...) __attribute__((sentinel));

#endif /* CUZK_TESTS_TOOLS_TOOLS_UTIL_H */
