/* toml.c - the configuration file: a TOML subset read with libinih, which splits sections and
 * keys, and parse_value, which reads the TOML values; each value goes to cfg_apply (config.c).
 *
 * Before inih sees the file, each line is left-trimmed (inih would read an indented line as a
 * continuation of the previous value), '#' comments outside strings are removed, lines of an
 * array that spans several lines are joined, and every value is moved aside: inih reads
 * `key = N` and on_ini looks up value N's text. inih's limits (a line shorter than 200
 * characters; " ;" starts a comment) therefore apply to section headers and keys only, never
 * to values. A map keeps the original line numbers for messages.
 */
#include "config/internal.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "common/alloc.h"

/* ---------------------------------------------------------------------------------------------
 * Values
 * ------------------------------------------------------------------------------------------- */

void cfg_val_clear(cfg_val *v)
{
    cz_free(v->s);
    for (size_t i = 0; i < v->n; i++) {
        cfg_val_clear(&v->items[i]);
    }
    cz_free(v->items);
    memset(v, 0, sizeof(*v));
}

bool cfg_fail(cfg_perr *e, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, e->cap, fmt, ap);
    va_end(ap);
    return false;
}

static void skip_ws(const char **p)
{
    while (**p == ' ' || **p == '\t') {
        (*p)++;
    }
}

/* Appends the UTF-8 encoding of code point c to buf at *n (buf has room). */
static bool put_utf8(char *buf, size_t *n, uint32_t c)
{
    if (c >= 0xd800 && c < 0xe000) {
        return false;
    }
    if (c < 0x80) {
        buf[(*n)++] = (char)c;
    } else if (c < 0x800) {
        buf[(*n)++] = (char)(0xc0 | (c >> 6));
        buf[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x10000) {
        buf[(*n)++] = (char)(0xe0 | (c >> 12));
        buf[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else if (c < 0x110000) {
        buf[(*n)++] = (char)(0xf0 | (c >> 18));
        buf[(*n)++] = (char)(0x80 | ((c >> 12) & 0x3f));
        buf[(*n)++] = (char)(0x80 | ((c >> 6) & 0x3f));
        buf[(*n)++] = (char)(0x80 | (c & 0x3f));
    } else {
        return false;
    }
    return true;
}

static bool parse_string(const char **pp, cfg_val *v, cfg_perr *e)
{
    const char *p = *pp;
    char q = *p++;
    size_t cap = strlen(p) * 4 + 1, n = 0;
    char *buf = cz_malloc(cap);
    if (!buf) {
        return cfg_fail(e, "out of memory");
    }
    for (;;) {
        unsigned char c = (unsigned char)*p;
        if (c == '\0') {
            cz_free(buf);
            return cfg_fail(e, "unterminated string");
        }
        p++;
        if (c == (unsigned char)q) {
            break;
        }
        if (c < 0x20 && c != '\t') {
            cz_free(buf);
            return cfg_fail(e, "control character in string");
        }
        if (c != '\\' || q == '\'') {
            buf[n++] = (char)c;
            continue;
        }
        char x = *p++;
        switch (x) {
        case 'b':
            buf[n++] = '\b';
            break;
        case 't':
            buf[n++] = '\t';
            break;
        case 'n':
            buf[n++] = '\n';
            break;
        case 'f':
            buf[n++] = '\f';
            break;
        case 'r':
            buf[n++] = '\r';
            break;
        case '"':
            buf[n++] = '"';
            break;
        case '\\':
            buf[n++] = '\\';
            break;
        case 'u':
        case 'U': {
            int digits = x == 'u' ? 4 : 8;
            uint32_t cp = 0;
            for (int i = 0; i < digits; i++) {
                char h = *p++;
                int d = isdigit((unsigned char)h) ? h - '0'
                        : (h >= 'a' && h <= 'f')  ? h - 'a' + 10
                        : (h >= 'A' && h <= 'F')  ? h - 'A' + 10
                                                  : -1;
                if (d < 0) {
                    cz_free(buf);
                    return cfg_fail(e, "bad \\%c escape", x);
                }
                cp = cp * 16 + (uint32_t)d;
            }
            if (!put_utf8(buf, &n, cp)) {
                cz_free(buf);
                return cfg_fail(e, "bad unicode escape");
            }
            break;
        }
        default:
            cz_free(buf);
            return cfg_fail(e, "unknown escape \\%c", x ? x : '0');
        }
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        cz_free(buf);
        return cfg_fail(e, "NUL in string");
    }
    v->kind = CFG_V_STR;
    v->s = buf;
    *pp = p;
    return true;
}

bool cfg_parse_int(const char **pp, cfg_val *v, cfg_perr *e)
{
    const char *p = *pp;
    bool neg = false;
    unsigned base = 10;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'o' || p[1] == 'b')) {
        if (*pp != p) {
            return cfg_fail(e, "a sign is not allowed before 0%c", p[1]);
        }
        base = p[1] == 'x' ? 16 : p[1] == 'o' ? 8 : 2;
        p += 2;
    }
    uint64_t acc = 0;
    size_t digits = 0;
    bool last_us = true; /* no leading underscore */
    const char *first = p;
    for (;; p++) {
        char c = *p;
        int d = isdigit((unsigned char)c)              ? c - '0'
                : (base == 16 && c >= 'a' && c <= 'f') ? c - 'a' + 10
                : (base == 16 && c >= 'A' && c <= 'F') ? c - 'A' + 10
                                                       : -1;
        if (c == '_') {
            if (last_us) {
                return cfg_fail(e, "misplaced '_' in integer");
            }
            last_us = true;
            continue;
        }
        if (d < 0 || (unsigned)d >= base) {
            break;
        }
        if (acc > (UINT64_MAX - (uint64_t)d) / base) {
            return cfg_fail(e, "integer out of range");
        }
        acc = acc * base + (uint64_t)d;
        digits++;
        last_us = false;
    }
    if (!digits || last_us) {
        return cfg_fail(e, "malformed integer");
    }
    if (*p == '.' || *p == 'e' || *p == 'E') {
        return cfg_fail(e, "floating-point values are not supported");
    }
    if (base == 10 && first[0] == '0' && digits > 1) {
        return cfg_fail(e, "leading zeros are not allowed in decimal integers");
    }
    if (acc > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) {
        return cfg_fail(e, "integer out of range");
    }
    v->kind = CFG_V_INT;
    v->i = neg ? (int64_t)(0 - acc) : (int64_t)acc;
    *pp = p;
    return true;
}

static bool parse_value(const char **pp, cfg_val *v, cfg_perr *e, bool in_array)
{
    const char *p = *pp;
    memset(v, 0, sizeof(*v));
    skip_ws(&p);
    if (*p == '"' || *p == '\'') {
        if (*p == '"' && p[1] == '"' && p[2] == '"') {
            return cfg_fail(e, "multi-line strings are not supported");
        }
        if (!parse_string(&p, v, e)) {
            return false;
        }
    } else if (*p == '[') {
        if (in_array) {
            return cfg_fail(e, "nested arrays are not supported");
        }
        p++;
        v->kind = CFG_V_ARR;
        for (;;) {
            skip_ws(&p);
            if (*p == ']') {
                p++;
                break;
            }
            cfg_val *items = cz_realloc(v->items, (v->n + 1) * sizeof(cfg_val));
            if (!items) {
                cfg_val_clear(v);
                return cfg_fail(e, "out of memory");
            }
            v->items = items;
            if (!parse_value(&p, &v->items[v->n], e, true)) {
                cfg_val_clear(v);
                return false;
            }
            v->n++;
            skip_ws(&p);
            if (*p == ',') {
                p++;
            } else if (*p != ']') {
                cfg_val_clear(v);
                return cfg_fail(e, "expected ',' or ']' in array");
            }
        }
    } else if (strncmp(p, "true", 4) == 0 && !isalnum((unsigned char)p[4])) {
        v->kind = CFG_V_BOOL;
        v->b = true;
        p += 4;
    } else if (strncmp(p, "false", 5) == 0 && !isalnum((unsigned char)p[5])) {
        v->kind = CFG_V_BOOL;
        v->b = false;
        p += 5;
    } else if (isdigit((unsigned char)*p) || *p == '+' || *p == '-') {
        if (!cfg_parse_int(&p, v, e)) {
            return false;
        }
    } else if (*p == '{') {
        return cfg_fail(e, "inline tables are not supported");
    } else if (*p == '\0') {
        return cfg_fail(e, "missing value");
    } else {
        return cfg_fail(e, "unrecognized value (strings need quotes)");
    }
    *pp = p;
    return true;
}

/* A whole value from a file: the value, then only blanks. */
bool cfg_parse_file_value(const char *text, cfg_val *v, cfg_perr *e)
{
    const char *p = text;
    if (!parse_value(&p, v, e, false)) {
        return false;
    }
    skip_ws(&p);
    if (*p) {
        cfg_val_clear(v);
        return cfg_fail(e, "unexpected text after the value: \"%.20s\"", p);
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Files
 * ------------------------------------------------------------------------------------------- */

#define INI_LINE_MAX 199 /* inih's INI_MAX_LINE (200) less the terminator */

/* The text as inih sees it: every `key = value` line is rewritten to `key = N`, and value N's
 * text is kept aside, so that inih never sees a value: neither its length nor a " ;" in a
 * string (inih's inline comment) can reach inih's line reader. */
typedef struct pre_text {
    char *text;    /* the lines handed to inih */
    size_t *lines; /* lines[i] = source line of inih's line i + 1 */
    size_t nlines;
    char *vbuf;   /* the values, each NUL-terminated */
    size_t *voff; /* voff[k] = offset of value k in vbuf */
    size_t nvals;
} pre_text;

static void pre_clear(pre_text *pt)
{
    cz_free(pt->text);
    cz_free(pt->lines);
    cz_free(pt->vbuf);
    cz_free(pt->voff);
    memset(pt, 0, sizeof(*pt));
}

typedef struct file_ctx {
    srv_config *cfg;
    const pre_text *pt;
    bool seen[CFG_ENTRIES_MAX];
    char err[1024];
    bool failed;
} file_ctx;

/* The value text behind inih's value "N" (see pre_text); NULL when it is not such an index. */
static const char *value_text(const pre_text *pt, const char *idx)
{
    size_t k = 0;
    if (!idx[0] || strspn(idx, "0123456789") != strlen(idx) || strlen(idx) > 9) {
        return NULL;
    }
    for (const char *p = idx; *p; p++) {
        k = k * 10 + (size_t)(*p - '0');
    }
    return k < pt->nvals ? pt->vbuf + pt->voff[k] : NULL;
}

static int on_ini(void *user, const char *section, const char *name, const char *value)
{
    file_ctx *fc = user;
    char key[256], msg[400];
    cfg_perr pe = {msg, sizeof(msg)};

    if (fc->failed) {
        return 0; /* report the first error only */
    }
    snprintf(key, sizeof(key), "%s%s%s", section, section[0] ? "." : "", name);
    const cfg_entry *e = cfg_find_key(key);
    if (!e) {
        snprintf(fc->err, sizeof(fc->err), "unknown key %s", key);
        fc->failed = true;
        return 0;
    }
    size_t idx = (size_t)(e - cfg_table);
    if (fc->seen[idx]) {
        snprintf(fc->err, sizeof(fc->err), "%s is set twice", key);
        fc->failed = true;
        return 0;
    }
    fc->seen[idx] = true;
    const char *text = value_text(fc->pt, value);
    if (!text) {
        /* inih read a line the preprocessor did not take for `key = value`. */
        snprintf(fc->err, sizeof(fc->err), "%s: malformed line", key);
        fc->failed = true;
        return 0;
    }
    cfg_val v;
    if (!cfg_parse_file_value(text, &v, &pe)) {
        snprintf(fc->err, sizeof(fc->err), "%s: %s", key, msg);
        fc->failed = true;
        return 0;
    }
    bool ok = cfg_apply(fc->cfg, e, &v, false, &pe);
    cfg_val_clear(&v);
    if (!ok) {
        snprintf(fc->err, sizeof(fc->err), "%s: %s", key, msg);
        fc->failed = true;
        return 0;
    }
    return 1;
}

/* Where inih would split the line [s, end) into name and value: the first '=' or ':', unless a
 * ';' after a blank (inih's inline comment) comes first. Returns NULL when it would not split. */
static char *ini_separator(char *s, const char *end)
{
    bool was_space = false;
    for (; s < end; s++) {
        if (*s == '=' || *s == ':') {
            return s;
        }
        if (was_space && *s == ';') {
            return NULL;
        }
        was_space = isspace((unsigned char)*s) != 0;
    }
    return NULL;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f' || c == '\r';
}

/* Appends n bytes to the growing buffer *buf (length *len, capacity *cap). */
static bool text_append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = (*len + n + 1) * 2;
        char *b = cz_realloc(*buf, c);
        if (!b) {
            return false;
        }
        *buf = b;
        *cap = c;
    }
    memcpy(*buf + *len, s, n);
    *len += n;
    (*buf)[*len] = '\0';
    return true;
}

/* Rewrites the text for inih (see the file comment and pre_text). */
static cuzk_err preprocess(const char *text, pre_text *pt, cz_diag *dg, const char *name)
{
    size_t len = strlen(text);
    char *o = cz_malloc(len + 2); /* the logical line being assembled */
    size_t on = 0, nl = 0, vn = 0, vlen_total = 0, src = 1;
    size_t tlen = 0, tcap = 0;
    int depth = 0;
    bool in_str = false, joining = false;
    char q = 0;

    memset(pt, 0, sizeof(*pt));
    pt->lines = cz_calloc(len + 2, sizeof(size_t));
    pt->vbuf = cz_malloc(len + 2);
    pt->voff = cz_calloc(len + 2, sizeof(size_t));
    if (!o || !pt->lines || !pt->vbuf || !pt->voff ||
        !text_append(&pt->text, &tlen, &tcap, "", 0)) {
        goto nomem;
    }
    const char *p = text;
    if ((unsigned char)p[0] == 0xef && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf) {
        p += 3; /* a UTF-8 byte order mark */
    }
    while (*p) {
        if (!joining) {
            on = 0;
            pt->lines[nl] = src;
        }
        /* Left-trim (inih would read an indented line as a continuation). */
        while (is_blank(*p)) {
            p++;
        }
        for (; *p && *p != '\n'; p++) {
            char c = *p;
            if (c == '\r' && p[1] == '\n') {
                continue;
            }
            if (in_str) {
                o[on++] = c;
                if (c == '\\' && q == '"' && p[1] && p[1] != '\n') {
                    o[on++] = *++p;
                } else if (c == q) {
                    in_str = false;
                }
                continue;
            }
            if (c == '#') {
                while (p[1] && p[1] != '\n') {
                    p++;
                }
                continue;
            }
            if (c == '"' || c == '\'') {
                in_str = true;
                q = c;
            } else if (c == '[') {
                depth++;
            } else if (c == ']') {
                depth--;
            }
            o[on++] = c;
        }
        if (*p == '\n') {
            p++;
        }
        src++;
        in_str = false; /* strings never span lines in this subset */
        if (depth > 0 && *p) {
            o[on++] = ' ';
            joining = true;
            continue;
        }
        depth = 0;
        joining = false;
        while (on > 0 && is_blank(o[on - 1])) {
            on--;
        }
        /* A `key = value` line (not a [section] or ; comment): its value moves aside. */
        char *sep = NULL;
        if (on > 0 && o[0] != '[' && o[0] != ';') {
            sep = ini_separator(o, o + on);
        }
        size_t keep = on;
        char idx[24] = "";
        if (sep) {
            size_t vlen = on - (size_t)(sep + 1 - o);
            memcpy(pt->vbuf + vlen_total, sep + 1, vlen);
            pt->vbuf[vlen_total + vlen] = '\0';
            pt->voff[vn] = vlen_total;
            vlen_total += vlen + 1;
            snprintf(idx, sizeof(idx), " %zu", vn++);
            keep = (size_t)(sep + 1 - o);
        }
        if (keep + strlen(idx) > INI_LINE_MAX) {
            cuzk_err err = cz_fail(dg, CUZK_E_FORMAT,
                                   "%s:%zu: section header or key longer than %d characters", name,
                                   pt->lines[nl], INI_LINE_MAX);
            cz_free(o);
            pre_clear(pt);
            return err;
        }
        if (!text_append(&pt->text, &tlen, &tcap, o, keep) ||
            !text_append(&pt->text, &tlen, &tcap, idx, strlen(idx)) ||
            !text_append(&pt->text, &tlen, &tcap, "\n", 1)) {
            goto nomem;
        }
        nl++;
    }
    cz_free(o);
    pt->nlines = nl;
    pt->nvals = vn;
    return CUZK_OK;
nomem:
    cz_free(o);
    pre_clear(pt);
    return cz_fail(dg, CUZK_E_NOMEM, "config text");
}

cuzk_err srv_config_load_string(srv_config *cfg, const char *text, const char *name, cz_diag *dg)
{
    pre_text pt;
    cuzk_err err = preprocess(text, &pt, dg, name);
    if (err != CUZK_OK) {
        return err;
    }
    file_ctx *fc = cz_calloc(1, sizeof(*fc));
    if (!fc) {
        pre_clear(&pt);
        return cz_fail(dg, CUZK_E_NOMEM, "config");
    }
    fc->cfg = cfg;
    fc->pt = &pt;
    int r = ini_parse_string(pt.text, on_ini, fc);
    if (r != 0) {
        size_t line = r > 0 && (size_t)r <= pt.nlines ? pt.lines[r - 1] : (size_t)(r > 0 ? r : 0);
        if (fc->failed) {
            err = cz_fail(dg, CUZK_E_INVAL, "%s:%zu: %s", name, line, fc->err);
        } else {
            err = cz_fail(dg, CUZK_E_FORMAT,
                          "%s:%zu: syntax error (expected [section] or key = value)", name, line);
        }
    }
    cz_free(fc);
    pre_clear(&pt);
    return err;
}

cuzk_err srv_config_load_file(srv_config *cfg, const char *path, cz_diag *dg)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "config file %s: %s", path, strerror(errno));
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    cuzk_err err = CUZK_OK;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = (cap + 4096) * 2;
            if (cap > (size_t)1 << 20) {
                err = cz_fail(dg, CUZK_E_FORMAT, "config file %s is larger than 1 MiB", path);
                break;
            }
            char *t = cz_realloc(text, cap);
            if (!t) {
                err = cz_fail(dg, CUZK_E_NOMEM, "config file");
                break;
            }
            text = t;
        }
        size_t n = fread(text + len, 1, 4096, f);
        len += n;
        if (n < 4096) {
            if (ferror(f)) {
                err = cz_fail(dg, CUZK_E_IO, "reading %s: %s", path, strerror(errno));
            }
            break;
        }
    }
    fclose(f);
    if (err == CUZK_OK) {
        text[len] = '\0';
        if (strlen(text) != len) {
            err = cz_fail(dg, CUZK_E_FORMAT, "config file %s contains NUL bytes", path);
        } else {
            err = srv_config_load_string(cfg, text, path, dg);
        }
    }
    cz_free(text);
    return err;
}
