/* cli.c - option parsing, --help text and error reporting for cuzk-bench commands. */
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "progress.h"

static void print_help(const char *cmd, const char *about, const cli_opt_t *opts, size_t nopts)
{
    printf("usage: cuzk-bench %s", cmd);
    for (size_t i = 0; i < nopts; i++) {
        const cli_opt_t *o = &opts[i];
        if (o->kind == CLI_FLAG) {
            printf(" [--%s]", o->name);
        } else {
            printf(o->required ? " --%s %s" : " [--%s %s]", o->name, o->meta);
        }
    }
    printf("\n\n%s\n\noptions:\n", about);
    for (size_t i = 0; i < nopts; i++) {
        const cli_opt_t *o = &opts[i];
        char left[64];
        snprintf(left, sizeof(left), "--%s%s%s", o->name, o->kind == CLI_FLAG ? "" : " ",
                 o->kind == CLI_FLAG ? "" : o->meta);
        printf("  %-26s %s%s\n", left, o->help, o->required ? " (required)" : "");
    }
    printf("  %-26s %s\n", "--help", "show this help and exit");
}

int cli_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;

    cli_progress_interrupt(); /* not glued to a progress line on the terminal */
    fprintf(stderr, "cuzk-bench %s: error: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return CLI_EXIT_ERROR;
}

int cli_error_diag(const char *cmd, cuzk_err err, const cz_diag *dg)
{
    if (dg && dg->msg[0] != '\0') {
        return cli_error(cmd, "%s", dg->msg);
    }
    return cli_error(cmd, "%s", cuzk_strerror(err));
}

static bool parse_u64(uint64_t *out, const char *s)
{
    char *end;
    unsigned long long v;

    if (*s < '0' || *s > '9') {
        return false;
    }
    errno = 0;
    v = strtoull(s, &end, 0);
    if (errno != 0 || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

int cli_parse(const char *cmd, const char *about, const cli_opt_t *opts, size_t nopts, int argc,
              char **argv)
{
    bool seen[32] = {false};

    CZ_CHECK(nopts <= 32);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const cli_opt_t *o = NULL;
        size_t k;

        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help(cmd, about, opts, nopts);
            return CLI_EXIT_OK;
        }
        if (strncmp(a, "--", 2) != 0) {
            return cli_error(cmd, "unexpected argument '%s' (see --help)", a);
        }
        for (k = 0; k < nopts; k++) {
            if (strcmp(a + 2, opts[k].name) == 0) {
                o = &opts[k];
                break;
            }
        }
        if (!o) {
            return cli_error(cmd, "unknown option '%s' (see --help)", a);
        }
        seen[k] = true;
        if (o->given) {
            *o->given = true;
        }
        if (o->kind == CLI_FLAG) {
            *(bool *)o->dst = true;
            continue;
        }
        if (i + 1 >= argc) {
            return cli_error(cmd, "option --%s needs a value (%s)", o->name, o->meta);
        }
        i++;
        if (o->kind == CLI_STR) {
            *(const char **)o->dst = argv[i];
        } else if (!parse_u64((uint64_t *)o->dst, argv[i])) {
            return cli_error(cmd, "option --%s: '%s' is not a non-negative integer", o->name,
                             argv[i]);
        }
    }
    for (size_t k = 0; k < nopts; k++) {
        if (opts[k].required && !seen[k]) {
            return cli_error(cmd, "missing required option --%s (see --help)", opts[k].name);
        }
    }
    return -1;
}

bool cli_pool(const char *cmd, uint64_t threads, cz_pool **out)
{
    cz_diag dg;
    cuzk_err err;
    unsigned cores = threads == 0 ? cz_cpu_count() : (unsigned)threads;

    *out = NULL;
    if (cores <= 1) {
        return true;
    }
    cz_diag_init(&dg);
    err = cz_pool_new(out, cores - 1, "cuzk-bench", &dg);
    if (err != CUZK_OK) {
        cli_error_diag(cmd, err, &dg);
        return false;
    }
    return true;
}

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}
