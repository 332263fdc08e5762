/* cli.h - what cuzk-bench's commands share: the command table entry, a declarative option
 * parser that also prints each command's --help, exit codes and one-line error reporting.
 *
 * Adding a command: write `int cmd_<name>(int argc, char **argv)` in a cmd_*.c file, declare it
 * below and add a row to the table in main.c. argv[0] is the command name; options follow.
 */
#ifndef CUZK_TOOLS_CUZK_BENCH_CLI_H
#define CUZK_TOOLS_CUZK_BENCH_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "common/pool.h"

/* Exit codes of every command. */
#define CLI_EXIT_OK      0 /* success; for verify: the proof is valid */
#define CLI_EXIT_INVALID 1 /* verify: the proof is invalid */
#define CLI_EXIT_ERROR   2 /* bad usage, bad input, I/O or any other failure */

typedef struct cli_cmd {
    const char *name;
    const char *summary;
    int (*run)(int argc, char **argv);
} cli_cmd_t;

typedef enum { CLI_STR, CLI_U64, CLI_FLAG } cli_kind;

/** One option "--name VALUE" (or "--name" for CLI_FLAG). dst: const char ** for CLI_STR,
 *  uint64_t * for CLI_U64, bool * for CLI_FLAG; it keeps its value when the option is absent. */
typedef struct cli_opt {
    const char *name; /* without the leading "--" */
    cli_kind kind;
    void *dst;
    const char *meta; /* value placeholder in --help ("FILE") */
    const char *help;
    bool required;
    bool *given; /* optional: set to true when the option appears */
} cli_opt_t;

/** A table row: CLI_OPT(name, kind, dst, meta, help, required); CLI_OPT_GIVEN adds `given`. */
#define CLI_OPT(n, k, d, m, h, r)                                                                  \
    {                                                                                              \
        .name = (n), .kind = (k), .dst = (d), .meta = (m), .help = (h), .required = (r)            \
    }
#define CLI_OPT_GIVEN(n, k, d, m, h, r, g)                                                         \
    {                                                                                              \
        .name = (n), .kind = (k), .dst = (d), .meta = (m), .help = (h), .required = (r),           \
        .given = (g)                                                                               \
    }

/** Parses argv[1..argc) against opts. Returns -1 when parsing succeeded, otherwise the exit
 *  code to return at once: CLI_EXIT_OK after printing --help, CLI_EXIT_ERROR after a one-line
 *  error (unknown option, missing value, missing required option, bad number).
 *  `about` is the command's description printed by --help (may hold several lines). */
int cli_parse(const char *cmd, const char *about, const cli_opt_t *opts, size_t nopts, int argc,
              char **argv);

/** Prints "cuzk-bench CMD: error: MESSAGE" on stderr and returns CLI_EXIT_ERROR. */
int cli_error(const char *cmd, const char *fmt, ...) CZ_PRINTF(2, 3);

/** cli_error with the message of a failed call's diagnostic (or its code's text). */
int cli_error_diag(const char *cmd, cuzk_err err, const cz_diag *dg);

/** A worker pool using `threads` cores in all (0 = every online CPU); NULL for 1 core.
 *  Exits through cli_error on failure (returns false). */
bool cli_pool(const char *cmd, uint64_t threads, cz_pool **out);

/** Milliseconds on the monotonic clock. */
double cli_now_ms(void);

/* Commands (cmd_groth16.c). */
int cmd_setup(int argc, char **argv);
int cmd_prove(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_export_snarkjs(int argc, char **argv);

#endif /* CUZK_TOOLS_CUZK_BENCH_CLI_H */
