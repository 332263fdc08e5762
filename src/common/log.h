/* log.h - leveled, structured (key=value) logging. The binary installs the sink; library
 * modules below engine/ return errors instead of logging. CZ_LOG checks the level first, so a
 * disabled message costs one comparison.
 */
#ifndef CUZK_COMMON_LOG_H
#define CUZK_COMMON_LOG_H

#include "common/common.h"

typedef enum {
    CZ_LOG_ERROR = 0,
    CZ_LOG_WARN,
    CZ_LOG_INFO,
    CZ_LOG_DEBUG,
    CZ_LOG_TRACE
} cz_log_level;

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

/** Formats one line and hands it to the sink. Control characters that reach the line (C0, DEL,
 *  the C1 range U+0080..U+009F) and bytes that are not UTF-8 are written as escapes (\n, \r,
 *  \t, \xHH, \u00HH): a string from a request can neither forge a line nor reach the
 *  operator's terminal as an escape sequence. */
void cz_log_write(cz_log_level level, const char *fmt, ...) CZ_PRINTF(2, 3);

/** Bytes cz_log_quote may write for an input of `len` bytes, the terminating NUL included. */
#define CZ_LOG_QUOTED_MAX(len) (4 * (len) + 3)

/** Writes `s` as one key=value value: unchanged when it is non-empty and made only of ASCII
 *  letters, digits and `-_.:/@+,` (every id and name the daemon makes itself), otherwise in
 *  double quotes with `"` and `\` backslash-escaped and control characters or non-UTF-8 bytes
 *  escaped as cz_log_write does. Truncates (still quoted and NUL-terminated) when `cap` is
 *  smaller than CZ_LOG_QUOTED_MAX(strlen(s)). Returns `out`. */
char *cz_log_quote(char *out, size_t cap, const char *s);

/** Reads the value of `key` from a key=value line as cz_log_quote wrote it (quoted values are
 *  unescaped) into `out`; false when the key is absent, the value is malformed or does not fit
 *  `cap` bytes with its NUL. */
bool cz_log_kv(const char *line, const char *key, char *out, size_t cap);

#define CZ_LOG(level, ...)                                                                         \
    do {                                                                                           \
        if ((level) <= cz_log_threshold) {                                                         \
            cz_log_write((level), __VA_ARGS__);                                                    \
        }                                                                                          \
    } while (0)

#endif /* CUZK_COMMON_LOG_H */
