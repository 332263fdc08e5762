/* log.c - the log threshold and sink. The sink pointer is process configuration set by the
 * binary at start-up, before threads exist; writes to stderr are line-buffered by one fprintf.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/bytes.h"

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

/* Appends byte string [s, s + n) to out[*pos ..] escaped, keeping room for `reserve` more bytes
 * and the NUL; `quote` also escapes '"' and '\\'. Stops at a whole character. */
static void escape_into(char *out, size_t cap, size_t *pos, const uint8_t *s, size_t n, bool quote,
                        size_t reserve)
{
    size_t o = *pos;

    for (size_t i = 0; i < n;) {
        char esc[8];
        uint32_t cp;
        size_t len = cz_utf8_next(s + i, n - i, &cp), w;

        if (len == 0) {
            w = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", s[i]);
            len = 1;
        } else if (cp == '\n' || cp == '\r' || cp == '\t') {
            w = (size_t)snprintf(esc, sizeof(esc), "\\%c",
                                 cp == '\n'   ? 'n'
                                 : cp == '\r' ? 'r'
                                              : 't');
        } else if (cp < 0x20 || cp == 0x7f) {
            w = (size_t)snprintf(esc, sizeof(esc), "\\x%02x", (unsigned)cp);
        } else if ((cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029) {
            /* C1 controls, and the line and paragraph separators some readers break lines on */
            w = (size_t)snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)cp);
        } else if (quote && (cp == '"' || cp == '\\')) {
            w = (size_t)snprintf(esc, sizeof(esc), "\\%c", (char)cp);
        } else {
            memcpy(esc, s + i, len);
            w = len;
        }
        if (o + w + reserve + 1 > cap) {
            break;
        }
        memcpy(out + o, esc, w);
        o += w;
        i += len;
    }
    out[o] = '\0';
    *pos = o;
}

static bool plain_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("-_.:/@+,", c) != NULL);
}

char *cz_log_quote(char *out, size_t cap, const char *s)
{
    size_t n = strlen(s), pos = 0;
    bool plain = n > 0;

    CZ_CHECK(cap >= 3);
    for (size_t i = 0; i < n && plain; i++) {
        plain = plain_char((unsigned char)s[i]);
    }
    if (plain && n < cap) {
        memcpy(out, s, n + 1);
        return out;
    }
    out[pos++] = '"';
    escape_into(out, cap, &pos, (const uint8_t *)s, n, true, 1);
    out[pos++] = '"';
    out[pos] = '\0';
    return out;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

/* Unescapes the quoted value starting after its opening quote at v into out; false when it is
 * malformed or does not fit. */
static bool unquote(const char *v, char *out, size_t cap)
{
    size_t o = 0;

    for (; *v != '"'; v++) {
        int c = (unsigned char)*v;
        if (c == '\0') {
            return false;
        }
        if (c == '\\') {
            v++;
            if (*v == 'n' || *v == 'r' || *v == 't') {
                c = *v == 'n' ? '\n' : *v == 'r' ? '\r' : '\t';
            } else if (*v == '"' || *v == '\\') {
                c = *v;
            } else if (*v == 'x' && hex_digit(v[1]) >= 0 && hex_digit(v[2]) >= 0) {
                c = hex_digit(v[1]) * 16 + hex_digit(v[2]);
                v += 2;
            } else if (*v == 'u' && hex_digit(v[1]) >= 0 && hex_digit(v[2]) >= 0 &&
                       hex_digit(v[3]) >= 0 && hex_digit(v[4]) >= 0) {
                /* U+0080..U+009F (two bytes in UTF-8), U+2028 and U+2029 (three) */
                int cp = ((hex_digit(v[1]) * 16 + hex_digit(v[2])) * 16 + hex_digit(v[3])) * 16 +
                         hex_digit(v[4]);
                if (cp < 0x80 || (cp >= 0xd800 && cp <= 0xdfff) || o + 3 >= cap) {
                    return false;
                }
                if (cp >= 0x800) {
                    out[o++] = (char)(0xe0 | (cp >> 12));
                    out[o++] = (char)(0x80 | ((cp >> 6) & 0x3f));
                } else {
                    out[o++] = (char)(0xc0 | (cp >> 6));
                }
                c = 0x80 | (cp & 0x3f);
                v += 4;
            } else {
                return false;
            }
        }
        if (o + 1 >= cap) {
            return false;
        }
        out[o++] = (char)c;
    }
    out[o] = '\0';
    return true;
}

bool cz_log_kv(const char *line, const char *key, char *out, size_t cap)
{
    size_t kl = strlen(key);

    /* Walk the line value by value so that text inside a quoted value is never taken for a
     * key. */
    for (const char *p = line; *p;) {
        while (*p == ' ' || *p == '\t') {
            p++;
        }
        const char *k = p;
        while (*p && *p != '=' && *p != ' ' && *p != '\t') {
            p++;
        }
        bool match = *p == '=' && (size_t)(p - k) == kl && memcmp(k, key, kl) == 0;
        if (*p != '=') {
            continue;
        }
        p++;
        const char *v = p;
        bool quoted = *p == '"';
        if (quoted) {
            for (p++; *p && *p != '"'; p++) {
                if (*p == '\\' && p[1]) {
                    p++;
                }
            }
            if (!*p) {
                return false;
            }
            p++;
        } else {
            p += strcspn(p, " \t\r\n");
        }
        if (!match) {
            continue;
        }
        if (quoted) {
            return unquote(v + 1, out, cap);
        }
        size_t n = (size_t)(p - v);
        if (n + 1 > cap) {
            return false;
        }
        memcpy(out, v, n);
        out[n] = '\0';
        return true;
    }
    return false;
}

void cz_log_write(cz_log_level level, const char *fmt, ...)
{
    char raw[2048], line[2048];
    size_t pos = 0;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(raw, sizeof(raw), fmt, ap);
    va_end(ap);
    escape_into(line, sizeof(line), &pos, (const uint8_t *)raw, strlen(raw), false, 0);
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
