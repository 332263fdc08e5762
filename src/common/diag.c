/* diag.c - contract failures and caller-owned diagnostics. */
#include "common/common.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cz_panic(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    fflush(stderr);
    abort();
}

void cz_diag_init(cz_diag *dg)
{
    memset(dg, 0, sizeof(*dg));
}

cuzk_err cz_fail_at(cz_diag *dg, const char *file, int line, cuzk_err code, const char *fmt, ...)
{
    if (dg) {
        va_list ap;

        dg->code = code;
        dg->file = file;
        dg->line = line;
        va_start(ap, fmt);
        vsnprintf(dg->msg, sizeof(dg->msg), fmt, ap);
        va_end(ap);
    }
    return code;
}

const char *cz_diag_str(const cz_diag *dg, char *buf, size_t len)
{
    if (!dg || dg->msg[0] == '\0') {
        snprintf(buf, len, "%s", cuzk_strerror(dg ? dg->code : CUZK_OK));
    } else {
        snprintf(buf, len, "%s: %s (%s:%d)", cuzk_errname(dg->code), dg->msg,
                 dg->file ? dg->file : "?", dg->line);
    }
    return buf;
}
