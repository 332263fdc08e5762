/* log.h - leveled, structured (key=value) logging. The binary installs the sink; library
 * modules below engine/ return errors instead of logging. CZ_LOG checks the level first, so a
 * disabled message costs one comparison.
 */
#ifndef CUZK_COMMON_LOG_H
#define CUZK_COMMON_LOG_H

#include "common/common.h"

typedef enum { CZ_LOG_ERROR = 0, CZ_LOG_WARN, CZ_LOG_INFO, CZ_LOG_DEBUG, CZ_LOG_TRACE } cz_log_level;

/** A sink receives one formatted line (no trailing newline). */
typedef void (*cz_log_sink)(cz_log_level level, const char *line, void *ctx);

/** Current threshold; messages above it are dropped. Default CZ_LOG_INFO. */
extern cz_log_level cz_log_threshold;

/** Installs `sink` (NULL restores the default: stderr with a timestamp). */
void cz_log_set_sink(cz_log_sink sink, void *ctx);

/** Parses "error|warn|info|debug|trace"; false if unknown. */
bool cz_log_level_parse(cz_log_level *out, const char *name);

/** Short name of a level ("info"). */
const char *cz_log_level_name(cz_log_level level);

void cz_log_write(cz_log_level level, const char *fmt, ...) CZ_PRINTF(2, 3);

#define CZ_LOG(level, ...)                     \
    do {                                       \
        if ((level) <= cz_log_threshold) {     \
            cz_log_write((level), __VA_ARGS__); \
        }                                      \
    } while (0)

#endif /* CUZK_COMMON_LOG_H */
