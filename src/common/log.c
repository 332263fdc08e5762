/* log.c - the log threshold and sink. The sink pointer is process configuration set by the
 * binary at start-up, before threads exist; writes to stderr are line-buffered by one fprintf.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

cz_log_level cz_log_threshold = CZ_LOG_INFO;
static cz_log_sink log_sink;
static void *log_ctx;

static const char *const level_names[] = {"error", "warn", "info", "debug", "trace"};

void cz_log_set_sink(cz_log_sink sink, void *ctx)
{
    log_sink = sink;
    log_ctx = ctx;
}

bool cz_log_level_parse(cz_log_level *out, const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(level_names); i++) {
        if (strcmp(name, level_names[i]) == 0) {
            *out = (cz_log_level)i;
            return true;
        }
    }
    return false;
}

const char *cz_log_level_name(cz_log_level level)
{
    return (unsigned)level < ARRAY_LEN(level_names) ? level_names[level] : "?";
}

void cz_log_write(cz_log_level level, const char *fmt, ...)
{
    char line[2048];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    if (log_sink) {
        log_sink(level, line, log_ctx);
        return;
    }
    struct timespec ts;
    struct tm tm;
    char stamp[32];
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(stderr, "%s.%03ldZ level=%s %s\n", stamp, ts.tv_nsec / 1000000L,
            cz_log_level_name(level), line);
}
