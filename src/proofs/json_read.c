/* codec.c - the building blocks of proofs/'s formats: location paths for messages, a
 * streaming JSON reader (RFC 8259; integers only where the formats have integers), a growing
 * output buffer (with base64 and escaped JSON strings), a bincode 1.x reader (little-endian
 * fixed-width integers, u64 lengths), and the Merkle-proof codecs in both encodings
 * (vanilla-proofs.md 1.4, 2.2).
 *
 * The JSON reader builds no document: callers walk objects key by key, so a 50 MB C1 output
 * costs its parsed structures and nothing more. Nesting is limited to 64 levels.
 */
#include "proofs/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/base64.h"
#include "common/bytes.h"

#define JSON_MAX_DEPTH 64

/* ---- paths ------------------------------------------------------------------------------- */

size_t vp_path_push(vp_path *p, const char *fmt, ...)
{
    size_t mark = p->len;
    va_list ap;

    if (p->len < sizeof(p->s) - 1) {
        va_start(ap, fmt);
        int n = vsnprintf(p->s + p->len, sizeof(p->s) - p->len, fmt, ap);
        va_end(ap);
        if (n > 0) {
            p->len += (size_t)n;
            if (p->len > sizeof(p->s) - 1) {
                p->len = sizeof(p->s) - 1;
            }
        }
    }
    return mark;
}

void vp_path_pop(vp_path *p, size_t mark)
{
    p->len = mark;
    p->s[mark] = '\0';
}

/* ---- JSON reader ------------------------------------------------------------------------- */

void vp_jr_init(vp_jr *r, const char *what, const char *buf, size_t len, cz_diag *dg)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
    r->what = what;
    r->dg = dg;
}

cuzk_err vp_jr_fail(vp_jr *r, const char *fmt, ...)
{
    char msg[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cz_fail(r->dg, CUZK_E_FORMAT, "%s: %s%s%s (at byte %zu)", r->what, r->path.s,
                   r->path.len ? ": " : "", msg, r->pos);
}

char vp_jr_peek(vp_jr *r)
{
    while (r->pos < r->len) {
        char c = r->buf[r->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
            return c;
        }
        r->pos++;
    }
    return 0;
}

static const char *jr_what(char c)
{
    switch (c) {
    case 0:
        return "end of input";
    case '{':
        return "an object";
    case '[':
        return "an array";
    case '"':
        return "a string";
    case 't':
    case 'f':
        return "a boolean";
    case 'n':
        return "null";
    default:
        return (c == '-' || (c >= '0' && c <= '9')) ? "a number" : "an invalid character";
    }
}

static cuzk_err jr_expect(vp_jr *r, char want, const char *desc)
{
    char c = vp_jr_peek(r);
    if (c != want) {
        return vp_jr_fail(r, "expected %s, found %s", desc, jr_what(c));
    }
    r->pos++;
    return CUZK_OK;
}

cuzk_err vp_jr_object(vp_jr *r)
{
    if (r->depth >= JSON_MAX_DEPTH) {
        return vp_jr_fail(r, "nesting deeper than %d levels", JSON_MAX_DEPTH);
    }
    cuzk_err err = jr_expect(r, '{', "an object");
    if (err == CUZK_OK) {
        r->depth++;
    }
    return err;
}

cuzk_err vp_jr_array(vp_jr *r)
{
    if (r->depth >= JSON_MAX_DEPTH) {
        return vp_jr_fail(r, "nesting deeper than %d levels", JSON_MAX_DEPTH);
    }
    cuzk_err err = jr_expect(r, '[', "an array");
    if (err == CUZK_OK) {
        r->depth++;
    }
    return err;
}

static cuzk_err jr_hex4(vp_jr *r, uint32_t *cp)
{
    *cp = 0;
    for (int k = 0; k < 4; k++) {
        char h = r->pos < r->len ? r->buf[r->pos++] : 0;
        int v = h >= '0' && h <= '9'   ? h - '0'
                : h >= 'a' && h <= 'f' ? h - 'a' + 10
                : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                       : -1;
        if (v < 0) {
            return vp_jr_fail(r, "bad \\u escape");
        }
        *cp = *cp << 4 | (uint32_t)v;
    }
    return CUZK_OK;
}

/* Reads a string body after the opening quote. With out == NULL it only validates. */
static cuzk_err jr_string_body(vp_jr *r, char *out, size_t cap, size_t *outlen, bool *trunc)
{
    size_t n = 0;
    cuzk_err err;

    if (trunc) {
        *trunc = false;
    }
    for (;;) {
        if (r->pos >= r->len) {
            return vp_jr_fail(r, "unterminated string");
        }
        unsigned char c = (unsigned char)r->buf[r->pos++];
        uint32_t cp;
        if (c == '"') {
            break;
        }
        if (c < 0x20) {
            return vp_jr_fail(r, "control character in a string");
        }
        if (c != '\\') {
            if (out) {
                if (n + 1 < cap) {
                    out[n] = (char)c;
                } else if (trunc) {
                    *trunc = true;
                }
            }
            n++;
            continue;
        }
        if (r->pos >= r->len) {
            return vp_jr_fail(r, "unterminated escape");
        }
        char e = r->buf[r->pos++];
        switch (e) {
        case '"':
        case '\\':
        case '/':
            cp = (uint32_t)e;
            break;
        case 'b':
            cp = '\b';
            break;
        case 'f':
            cp = '\f';
            break;
        case 'n':
            cp = '\n';
            break;
        case 'r':
            cp = '\r';
            break;
        case 't':
            cp = '\t';
            break;
        case 'u': {
            if ((err = jr_hex4(r, &cp)) != CUZK_OK) {
                return err;
            }
            if (cp >= 0xd800 && cp <= 0xdbff && r->len - r->pos >= 6 && r->buf[r->pos] == '\\' &&
                r->buf[r->pos + 1] == 'u') {
                size_t save = r->pos;
                uint32_t lo;
                r->pos += 2;
                if ((err = jr_hex4(r, &lo)) != CUZK_OK) {
                    return err;
                }
                if (lo >= 0xdc00 && lo <= 0xdfff) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                } else {
                    r->pos = save; /* not a pair: the high surrogate stands alone */
                }
            }
            if (cp >= 0xd800 && cp <= 0xdfff) {
                cp = 0xfffd; /* an unpaired surrogate becomes U+FFFD */
            }
            break;
        }
        default:
            return vp_jr_fail(r, "bad escape '\\%c'", e);
        }
        /* UTF-8 encode cp */
        uint8_t u[4];
        size_t ul;
        if (cp < 0x80) {
            u[0] = (uint8_t)cp;
            ul = 1;
        } else if (cp < 0x800) {
            u[0] = (uint8_t)(0xc0 | cp >> 6);
            u[1] = (uint8_t)(0x80 | (cp & 0x3f));
            ul = 2;
        } else if (cp < 0x10000) {
            u[0] = (uint8_t)(0xe0 | cp >> 12);
            u[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
            u[2] = (uint8_t)(0x80 | (cp & 0x3f));
            ul = 3;
        } else {
            u[0] = (uint8_t)(0xf0 | cp >> 18);
            u[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
            u[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
            u[3] = (uint8_t)(0x80 | (cp & 0x3f));
            ul = 4;
        }
        for (size_t k = 0; k < ul; k++) {
            if (out) {
                if (n + 1 < cap) {
                    out[n] = (char)u[k];
                } else if (trunc) {
                    *trunc = true;
                }
            }
            n++;
        }
    }
    if (out && cap) {
        out[n < cap ? n : cap - 1] = '\0';
    }
    if (outlen) {
        *outlen = n;
    }
    return CUZK_OK;
}

cuzk_err vp_jr_key(vp_jr *r, bool *first, char *key, size_t cap, bool *end)
{
    char c = vp_jr_peek(r);
    cuzk_err err;
    bool trunc;

    *end = false;
    if (c == '}') {
        r->pos++;
        r->depth--;
        *end = true;
        return CUZK_OK;
    }
    if (!*first) {
        if (c != ',') {
            return vp_jr_fail(r, "expected ',' or '}' in an object, found %s", jr_what(c));
        }
        r->pos++;
        c = vp_jr_peek(r);
        if (c == '}') {
            return vp_jr_fail(r, "trailing ',' in an object");
        }
    }
    if (c != '"') {
        return vp_jr_fail(r, "expected a key, found %s", jr_what(c));
    }
    r->pos++;
    err = jr_string_body(r, key, cap, NULL, &trunc);
    if (err != CUZK_OK) {
        return err;
    }
    if (trunc) {
        strcpy(key, "\x01"); /* matches no known key */
    }
    *first = false;
    return jr_expect(r, ':', "':' after a key");
}

cuzk_err vp_jr_next(vp_jr *r, bool *first, bool *end)
{
    char c = vp_jr_peek(r);

    *end = false;
    if (c == ']') {
        r->pos++;
        r->depth--;
        *end = true;
        return CUZK_OK;
    }
    if (!*first) {
        if (c != ',') {
            return vp_jr_fail(r, "expected ',' or ']' in an array, found %s", jr_what(c));
        }
        r->pos++;
        if (vp_jr_peek(r) == ']') {
            return vp_jr_fail(r, "trailing ',' in an array");
        }
    }
    *first = false;
    return CUZK_OK;
}

cuzk_err vp_jr_u64(vp_jr *r, uint64_t *out)
{
    char c = vp_jr_peek(r);
    uint64_t v = 0;
    size_t start = r->pos;

    if (c < '0' || c > '9') {
        return vp_jr_fail(r, "expected a non-negative integer, found %s", jr_what(c));
    }
    while (r->pos < r->len && r->buf[r->pos] >= '0' && r->buf[r->pos] <= '9') {
        unsigned d = (unsigned)(r->buf[r->pos] - '0');
        if (v > (UINT64_MAX - d) / 10) {
            return vp_jr_fail(r, "integer does not fit in 64 bits");
        }
        v = v * 10 + d;
        r->pos++;
    }
    if (r->buf[start] == '0' && r->pos - start > 1) {
        return vp_jr_fail(r, "leading zero in a number");
    }
    if (r->pos < r->len &&
        (r->buf[r->pos] == '.' || r->buf[r->pos] == 'e' || r->buf[r->pos] == 'E')) {
        return vp_jr_fail(r, "expected an integer, found a fraction or exponent");
    }
    *out = v;
    return CUZK_OK;
}

cuzk_err vp_jr_u32(vp_jr *r, uint32_t *out)
{
    uint64_t v;
    cuzk_err err = vp_jr_u64(r, &v);
    if (err != CUZK_OK) {
        return err;
    }
    if (v > UINT32_MAX) {
        return vp_jr_fail(r, "integer %llu does not fit in 32 bits", (unsigned long long)v);
    }
    *out = (uint32_t)v;
    return CUZK_OK;
}

static cuzk_err jr_literal(vp_jr *r, const char *lit)
{
    size_t n = strlen(lit);
    if (r->len - r->pos < n || memcmp(r->buf + r->pos, lit, n) != 0) {
        return vp_jr_fail(r, "invalid literal");
    }
    r->pos += n;
    return CUZK_OK;
}

cuzk_err vp_jr_null(vp_jr *r)
{
    char c = vp_jr_peek(r);
    if (c != 'n') {
        return vp_jr_fail(r, "expected null, found %s", jr_what(c));
    }
    return jr_literal(r, "null");
}

cuzk_err vp_jr_node(vp_jr *r, uint8_t out[32])
{
    bool first = true, end;
    size_t n = 0;
    cuzk_err err;

    if ((err = vp_jr_array(r)) != CUZK_OK) {
        return vp_jr_fail(r, "expected an array of 32 bytes, found %s", jr_what(vp_jr_peek(r)));
    }
    for (;;) {
        uint64_t v;
        if ((err = vp_jr_next(r, &first, &end)) != CUZK_OK) {
            return err;
        }
        if (end) {
            break;
        }
        if (n == 32) {
            return vp_jr_fail(r, "expected 32 bytes, found more");
        }
        if ((err = vp_jr_u64(r, &v)) != CUZK_OK) {
            return err;
        }
        if (v > 255) {
            return vp_jr_fail(r, "byte %zu is %llu, not 0..255", n, (unsigned long long)v);
        }
        out[n++] = (uint8_t)v;
    }
    if (n != 32) {
        return vp_jr_fail(r, "expected 32 bytes, found %zu", n);
    }
    return CUZK_OK;
}

cuzk_err vp_jr_string(vp_jr *r, char **out, size_t *len)
{
    char c = vp_jr_peek(r);
    size_t start, n;
    cuzk_err err;

    *out = NULL;
    if (c != '"') {
        return vp_jr_fail(r, "expected a string, found %s", jr_what(c));
    }
    r->pos++;
    start = r->pos;
    /* first pass: length; second pass: copy */
    if ((err = jr_string_body(r, NULL, 0, &n, NULL)) != CUZK_OK) {
        return err;
    }
    char *s = cz_malloc(n + 1);
    if (!s) {
        return cz_fail(r->dg, CUZK_E_NOMEM, "%s: string of %zu bytes", r->what, n);
    }
    r->pos = start;
    err = jr_string_body(r, s, n + 1, NULL, NULL);
    if (err != CUZK_OK) {
        cz_free(s);
        return err;
    }
    *out = s;
    if (len) {
        *len = n;
    }
    return CUZK_OK;
}

cuzk_err vp_jr_skip(vp_jr *r)
{
    char c = vp_jr_peek(r);
    bool first = true, end;
    cuzk_err err;

    switch (c) {
    case '{': {
        char key[8];
        if ((err = vp_jr_object(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK || end) {
                return err;
            }
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
        }
    }
    case '[':
        if ((err = vp_jr_array(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_next(r, &first, &end)) != CUZK_OK || end) {
                return err;
            }
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
        }
    case '"':
        r->pos++;
        return jr_string_body(r, NULL, 0, NULL, NULL);
    case 't':
        return jr_literal(r, "true");
    case 'f':
        return jr_literal(r, "false");
    case 'n':
        return jr_literal(r, "null");
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            /* number: -? int frac? exp? */
            size_t p = r->pos;
            if (r->buf[p] == '-') {
                p++;
            }
            size_t digits = 0;
            while (p < r->len &&
                   ((r->buf[p] >= '0' && r->buf[p] <= '9') || r->buf[p] == '.' ||
                    r->buf[p] == 'e' || r->buf[p] == 'E' || r->buf[p] == '+' || r->buf[p] == '-')) {
                p++;
                digits++;
            }
            if (digits == 0) {
                return vp_jr_fail(r, "invalid number");
            }
            r->pos = p;
            return CUZK_OK;
        }
        return vp_jr_fail(r, "expected a value, found %s", jr_what(c));
    }
}

int vp_jr_field(vp_jr *r, const char *key, const char *const *names, unsigned n, unsigned *seen,
                cuzk_err *err)
{
    *err = CUZK_OK;
    for (unsigned i = 0; i < n; i++) {
        if (strcmp(key, names[i]) == 0) {
            if (*seen & (1u << i)) {
                *err = vp_jr_fail(r, "duplicate field \"%s\"", key);
                return -1;
            }
            *seen |= 1u << i;
            return (int)i;
        }
    }
    return -1;
}

cuzk_err vp_jr_end(vp_jr *r)
{
    char c = vp_jr_peek(r);
    if (c != 0 || r->pos != r->len) {
        return vp_jr_fail(r, "trailing data after the JSON value");
    }
    return CUZK_OK;
}

/* ---- output buffer ------------------------------------------------------------------------ */

static bool buf_reserve(vp_buf *b, size_t extra)
{
    if (b->oom) {
        return false;
    }
    if (b->len + extra + 1 <= b->cap) {
        return true;
    }
    size_t cap = b->cap ? b->cap : 4096;
    while (cap < b->len + extra + 1) {
        cap *= 2;
    }
    uint8_t *p = cz_realloc(b->p, cap);
    if (!p) {
        b->oom = true;
        return false;
    }
    b->p = p;
    b->cap = cap;
    return true;
}

void vp_buf_put(vp_buf *b, const void *data, size_t n)
{
    if (n && buf_reserve(b, n)) {
        memcpy(b->p + b->len, data, n);
        b->len += n;
    }
}

void vp_buf_str(vp_buf *b, const char *s)
{
    vp_buf_put(b, s, strlen(s));
}

void vp_buf_u32le(vp_buf *b, uint32_t v)
{
    uint8_t x[4];
    cz_store_le32(x, v);
    vp_buf_put(b, x, 4);
}

void vp_buf_u64le(vp_buf *b, uint64_t v)
{
    uint8_t x[8];
    cz_store_le64(x, v);
    vp_buf_put(b, x, 8);
}

void vp_buf_dec(vp_buf *b, uint64_t v)
{
    char t[24];
    int n = snprintf(t, sizeof(t), "%llu", (unsigned long long)v);
    vp_buf_put(b, t, (size_t)n);
}

void vp_buf_json_node(vp_buf *b, const uint8_t n[32])
{
    /* at most 32 * 4 + 1 bytes: "[" then "255," ... "255]" */
    char t[160];
    size_t k = 0;

    t[k++] = '[';
    for (int i = 0; i < 32; i++) {
        unsigned v = n[i];
        if (v >= 100) {
            t[k++] = (char)('0' + v / 100);
        }
        if (v >= 10) {
            t[k++] = (char)('0' + v / 10 % 10);
        }
        t[k++] = (char)('0' + v % 10);
        t[k++] = i == 31 ? ']' : ',';
    }
    vp_buf_put(b, t, k);
}

void vp_buf_b64(vp_buf *b, const uint8_t *bin, size_t n)
{
    size_t m = cz_base64_encoded_len(n);

    vp_buf_put(b, "\"", 1);
    if (buf_reserve(b, m)) { /* room for the NUL the encoder writes, which len leaves out */
        cz_base64_encode((char *)b->p + b->len, bin, n);
        b->len += m;
    }
    vp_buf_put(b, "\"", 1);
}

void vp_buf_json_str(vp_buf *b, const char *s)
{
    vp_buf_put(b, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char esc[8];
        if (*p == '"' || *p == '\\') {
            esc[0] = '\\';
            esc[1] = (char)*p;
            vp_buf_put(b, esc, 2);
        } else if (*p < 0x20) {
            snprintf(esc, sizeof(esc), "\\u%04x", *p);
            vp_buf_put(b, esc, 6);
        } else {
            vp_buf_put(b, p, 1);
        }
    }
    vp_buf_put(b, "\"", 1);
}

cuzk_err vp_buf_finish(vp_buf *b, char **out, size_t *len, cz_diag *dg)
{
    *out = NULL;
    if (!buf_reserve(b, 0)) {
        vp_buf_free(b);
        return cz_fail(dg, CUZK_E_NOMEM, "output buffer");
    }
    b->p[b->len] = 0;
    *out = (char *)b->p;
    if (len) {
        *len = b->len;
    }
    b->p = NULL;
    b->len = b->cap = 0;
    return CUZK_OK;
}

void vp_buf_free(vp_buf *b)
{
    cz_free(b->p);
    memset(b, 0, sizeof(*b));
}

/* ---- bincode reader ----------------------------------------------------------------------- */

void vp_br_init(vp_br *r, const char *what, const uint8_t *buf, size_t len, cz_diag *dg)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
    r->what = what;
    r->dg = dg;
}

cuzk_err vp_br_fail(vp_br *r, const char *fmt, ...)
{
    char msg[384];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return cz_fail(r->dg, CUZK_E_FORMAT, "%s: %s%s%s (at byte %zu of %zu)", r->what, r->path.s,
                   r->path.len ? ": " : "", msg, r->pos, r->len);
}

static cuzk_err br_need(vp_br *r, size_t n, const char *what)
{
    if (r->len - r->pos < n) {
        return vp_br_fail(r, "truncated: %s needs %zu bytes, %zu left", what, n, r->len - r->pos);
    }
    return CUZK_OK;
}

cuzk_err vp_br_u32(vp_br *r, uint32_t *out)
{
    cuzk_err err = br_need(r, 4, "a u32");
    if (err == CUZK_OK) {
        *out = cz_load_le32(r->buf + r->pos);
        r->pos += 4;
    }
    return err;
}

cuzk_err vp_br_u64(vp_br *r, uint64_t *out)
{
    cuzk_err err = br_need(r, 8, "a u64");
    if (err == CUZK_OK) {
        *out = cz_load_le64(r->buf + r->pos);
        r->pos += 8;
    }
    return err;
}

cuzk_err vp_br_node(vp_br *r, uint8_t out[32])
{
    cuzk_err err = br_need(r, 32, "a 32-byte node");
    if (err == CUZK_OK) {
        memcpy(out, r->buf + r->pos, 32);
        r->pos += 32;
    }
    return err;
}

cuzk_err vp_br_len(vp_br *r, uint64_t *n, size_t min_elem)
{
    cuzk_err err = vp_br_u64(r, n);
    if (err != CUZK_OK) {
        return err;
    }
    if (min_elem && *n > (r->len - r->pos) / min_elem) {
        r->pos -= 8;
        return vp_br_fail(r, "length %llu cannot fit in the %zu bytes left", (unsigned long long)*n,
                          r->len - r->pos - 8);
    }
    return CUZK_OK;
}

cuzk_err vp_br_end(vp_br *r)
{
    if (r->pos != r->len) {
        return vp_br_fail(r, "%zu trailing bytes", r->len - r->pos);
    }
    return CUZK_OK;
}

/* ---- Merkle proofs ------------------------------------------------------------------------ */

static const char *kind_name(seal_proof_kind k)
{
    return k == SEAL_PROOF_SINGLE ? "Single" : k == SEAL_PROOF_SUB ? "Sub" : "Top";
}

void vp_shape_str(char *out, size_t cap, const seal_tree_shape *s)
{
    snprintf(out, cap, "%s with %u base elements of arity %u%s%s", kind_name(s->kind), s->nbase,
             s->nbase ? s->arity[0] : 0, s->kind >= SEAL_PROOF_SUB ? " + sub" : "",
             s->kind == SEAL_PROOF_TOP ? " + top" : "");
}

/* One InclusionPath being read: its elements go to the proof at element offset `first`. */
typedef struct ipath_spec {
    uint32_t first; /* first element index in the proof */
    uint32_t count; /* expected elements */
} ipath_spec;

/* Expected element layout of each of the (up to) three paths of a shape. */
static void path_specs(const seal_tree_shape *s, ipath_spec spec[3])
{
    spec[0].first = 0;
    spec[0].count = s->nbase;
    spec[1].first = s->nbase;
    spec[1].count = s->kind >= SEAL_PROOF_SUB ? 1 : 0;
    spec[2].first = s->nbase + spec[1].count;
    spec[2].count = s->kind == SEAL_PROOF_TOP ? 1 : 0;
}

/* Sibling offset of element j in a proof of this shape. */
static uint32_t sib_offset(const seal_tree_shape *s, uint32_t j)
{
    uint32_t off = 0;
    for (uint32_t i = 0; i < j; i++) {
        off += s->arity[i] - 1u;
    }
    return off;
}

static cuzk_err jr_ipath(vp_jr *r, seal_merkle_proof *p, const seal_tree_shape *s,
                         const ipath_spec *sp)
{
    bool first = true, end, seen = false;
    char key[16];
    cuzk_err err;

    if ((err = vp_jr_object(r)) != CUZK_OK) {
        return err;
    }
    for (;;) {
        if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK) {
            return err;
        }
        if (end) {
            break;
        }
        if (strcmp(key, "path") != 0) {
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
            continue;
        }
        if (seen) {
            return vp_jr_fail(r, "duplicate key \"path\"");
        }
        seen = true;
        size_t m0 = vp_path_push(&r->path, ".path");
        bool afirst = true, aend;
        uint32_t n = 0;
        if ((err = vp_jr_array(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_next(r, &afirst, &aend)) != CUZK_OK) {
                return err;
            }
            if (aend) {
                break;
            }
            size_t m1 = vp_path_push(&r->path, "[%u]", n);
            if (n >= sp->count) {
                return vp_jr_fail(r, "expected %u path elements, found more", sp->count);
            }
            uint32_t j = sp->first + n;
            unsigned arity = s->arity[j];
            uint32_t off = sib_offset(s, j);
            bool efirst = true, eend, have_h = false, have_i = false;
            char ek[16];
            if ((err = vp_jr_object(r)) != CUZK_OK) {
                return err;
            }
            for (;;) {
                if ((err = vp_jr_key(r, &efirst, ek, sizeof(ek), &eend)) != CUZK_OK) {
                    return err;
                }
                if (eend) {
                    break;
                }
                if (strcmp(ek, "hashes") == 0) {
                    size_t m2 = vp_path_push(&r->path, ".hashes");
                    bool hfirst = true, hend;
                    unsigned h = 0;
                    if (have_h) {
                        return vp_jr_fail(r, "duplicate key");
                    }
                    have_h = true;
                    if ((err = vp_jr_array(r)) != CUZK_OK) {
                        return err;
                    }
                    for (;;) {
                        if ((err = vp_jr_next(r, &hfirst, &hend)) != CUZK_OK) {
                            return err;
                        }
                        if (hend) {
                            break;
                        }
                        if (h >= arity - 1) {
                            return vp_jr_fail(r, "expected %u hashes, found more", arity - 1);
                        }
                        size_t m3 = vp_path_push(&r->path, "[%u]", h);
                        if ((err = vp_jr_node(r, p->sib[off + h].b)) != CUZK_OK) {
                            return err;
                        }
                        vp_path_pop(&r->path, m3);
                        h++;
                    }
                    if (h != arity - 1) {
                        return vp_jr_fail(r, "expected %u hashes, found %u", arity - 1, h);
                    }
                    vp_path_pop(&r->path, m2);
                } else if (strcmp(ek, "index") == 0) {
                    size_t m2 = vp_path_push(&r->path, ".index");
                    if (have_i) {
                        return vp_jr_fail(r, "duplicate key");
                    }
                    have_i = true;
                    if ((err = vp_jr_u64(r, &p->index[j])) != CUZK_OK) {
                        return err;
                    }
                    if (p->index[j] >= arity) {
                        return vp_jr_fail(r, "index %llu out of range for arity %u",
                                          (unsigned long long)p->index[j], arity);
                    }
                    vp_path_pop(&r->path, m2);
                } else if ((err = vp_jr_skip(r)) != CUZK_OK) {
                    return err;
                }
            }
            if (!have_h || !have_i) {
                return vp_jr_fail(r, "missing \"%s\"", have_h ? "index" : "hashes");
            }
            p->arity[j] = (uint8_t)arity;
            vp_path_pop(&r->path, m1);
            n++;
        }
        if (n != sp->count) {
            return vp_jr_fail(r, "expected %u path elements, found %u", sp->count, n);
        }
        vp_path_pop(&r->path, m0);
    }
    if (!seen) {
        return vp_jr_fail(r, "missing \"path\"");
    }
    return CUZK_OK;
}

cuzk_err vp_jr_merkle(vp_jr *r, seal_merkle_proof *out, const seal_tree_shape *shape)
{
    static const char *const variants[3] = {"Single", "Sub", "Top"};
    static const char *const pnames[3] = {"base_proof", "sub_proof", "top_proof"};
    bool first = true, end, have_data = false;
    char key[32], sh[96];
    ipath_spec spec[3];
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    path_specs(shape, spec);
    if ((err = vp_jr_object(r)) != CUZK_OK) {
        return err;
    }
    for (;;) {
        if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK) {
            return err;
        }
        if (end) {
            break;
        }
        if (strcmp(key, "data") != 0) {
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
            continue;
        }
        if (have_data) {
            return vp_jr_fail(r, "duplicate key \"data\"");
        }
        have_data = true;
        size_t m0 = vp_path_push(&r->path, ".data");
        bool vfirst = true, vend;
        if ((err = vp_jr_object(r)) != CUZK_OK) {
            return err;
        }
        if ((err = vp_jr_key(r, &vfirst, key, sizeof(key), &vend)) != CUZK_OK) {
            return err;
        }
        if (vend) {
            return vp_jr_fail(r, "expected one of Single, Sub, Top");
        }
        int v = -1;
        for (int i = 0; i < 3; i++) {
            if (strcmp(key, variants[i]) == 0) {
                v = i;
            }
        }
        vp_shape_str(sh, sizeof(sh), shape);
        if (v < 0) {
            return vp_jr_fail(r, "unknown variant \"%s\" (expected %s)", key,
                              variants[shape->kind]);
        }
        if (v != (int)shape->kind) {
            return vp_jr_fail(r, "variant %s does not fit this sector (expected %s)", key, sh);
        }
        size_t m1 = vp_path_push(&r->path, ".%s", key);
        /* the variant's struct */
        bool sfirst = true, send, have_root = false, have_leaf = false, have_p[3] = {0};
        if ((err = vp_jr_object(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_key(r, &sfirst, key, sizeof(key), &send)) != CUZK_OK) {
                return err;
            }
            if (send) {
                break;
            }
            size_t m2 = vp_path_push(&r->path, ".%s", key);
            int pi = -1;
            if (v == 0 && strcmp(key, "path") == 0) {
                pi = 0;
            }
            for (int i = 0; v > 0 && i <= v; i++) {
                if (strcmp(key, pnames[i]) == 0) {
                    pi = i;
                }
            }
            if (strcmp(key, "root") == 0 || strcmp(key, "leaf") == 0) {
                bool *have = key[0] == 'r' ? &have_root : &have_leaf;
                if (*have) {
                    return vp_jr_fail(r, "duplicate key");
                }
                *have = true;
                err = vp_jr_node(r, key[0] == 'r' ? out->root.b : out->leaf.b);
            } else if (pi >= 0) {
                if (have_p[pi]) {
                    return vp_jr_fail(r, "duplicate key");
                }
                have_p[pi] = true;
                err = jr_ipath(r, out, shape, &spec[pi]);
            } else {
                err = vp_jr_skip(r);
            }
            if (err != CUZK_OK) {
                return err;
            }
            vp_path_pop(&r->path, m2);
        }
        if (!have_root || !have_leaf) {
            return vp_jr_fail(r, "missing \"%s\"", have_root ? "leaf" : "root");
        }
        for (int i = 0; i <= v; i++) {
            if (!have_p[i]) {
                return vp_jr_fail(r, "missing \"%s\"", v == 0 ? "path" : pnames[i]);
            }
        }
        vp_path_pop(&r->path, m1);
        if ((err = vp_jr_key(r, &vfirst, key, sizeof(key), &vend)) != CUZK_OK) {
            return err;
        }
        if (!vend) {
            return vp_jr_fail(r, "more than one variant");
        }
        vp_path_pop(&r->path, m0);
    }
    if (!have_data) {
        return vp_jr_fail(r, "missing \"data\"");
    }
    out->kind = shape->kind;
    out->nelems = shape->nlevels;
    out->nbase = shape->nbase;
    return CUZK_OK;
}

static void jw_ipath(vp_buf *b, const seal_merkle_proof *p, uint32_t first, uint32_t count)
{
    const seal_node *sib = seal_merkle_sib(p, first);

    vp_buf_str(b, "{\"path\":[");
    for (uint32_t j = first; j < first + count; j++) {
        vp_buf_str(b, j == first ? "{\"hashes\":[" : ",{\"hashes\":[");
        for (unsigned h = 0; h + 1u < p->arity[j]; h++) {
            if (h) {
                vp_buf_str(b, ",");
            }
            vp_buf_json_node(b, sib->b);
            sib++;
        }
        vp_buf_str(b, "],\"index\":");
        vp_buf_dec(b, p->index[j]);
        vp_buf_str(b, "}");
    }
    vp_buf_str(b, "]}");
}

void vp_jw_merkle(vp_buf *b, const seal_merkle_proof *p)
{
    uint32_t nsub = p->kind >= SEAL_PROOF_SUB ? 1 : 0;

    if (p->kind == SEAL_PROOF_SINGLE) {
        vp_buf_str(b, "{\"data\":{\"Single\":{\"root\":");
        vp_buf_json_node(b, p->root.b);
        vp_buf_str(b, ",\"leaf\":");
        vp_buf_json_node(b, p->leaf.b);
        vp_buf_str(b, ",\"path\":");
        jw_ipath(b, p, 0, p->nbase);
        vp_buf_str(b, "}}}");
        return;
    }
    vp_buf_str(b, p->kind == SEAL_PROOF_SUB ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                            : "{\"data\":{\"Top\":{\"base_proof\":");
    jw_ipath(b, p, 0, p->nbase);
    vp_buf_str(b, ",\"sub_proof\":");
    jw_ipath(b, p, p->nbase, 1);
    if (p->kind == SEAL_PROOF_TOP) {
        vp_buf_str(b, ",\"top_proof\":");
        jw_ipath(b, p, p->nbase + nsub, 1);
    }
    vp_buf_str(b, ",\"root\":");
    vp_buf_json_node(b, p->root.b);
    vp_buf_str(b, ",\"leaf\":");
    vp_buf_json_node(b, p->leaf.b);
    vp_buf_str(b, "}}}");
}

static cuzk_err br_ipath(vp_br *r, seal_merkle_proof *p, const seal_tree_shape *s,
                         const ipath_spec *sp, const char *name)
{
    uint64_t n;
    cuzk_err err;
    size_t m0 = vp_path_push(&r->path, ".%s", name);

    if ((err = vp_br_len(r, &n, 16)) != CUZK_OK) {
        return err;
    }
    if (n != sp->count) {
        return vp_br_fail(r, "expected %u path elements, found %llu", sp->count,
                          (unsigned long long)n);
    }
    for (uint32_t e = 0; e < sp->count; e++) {
        uint32_t j = sp->first + e;
        unsigned arity = s->arity[j];
        uint32_t off = sib_offset(s, j);
        uint64_t nh;
        size_t m1 = vp_path_push(&r->path, "[%u]", e);
        if ((err = vp_br_len(r, &nh, 32)) != CUZK_OK) {
            return err;
        }
        if (nh != arity - 1u) {
            return vp_br_fail(r, "expected %u hashes, found %llu", arity - 1,
                              (unsigned long long)nh);
        }
        for (unsigned h = 0; h < arity - 1u; h++) {
            if ((err = vp_br_node(r, p->sib[off + h].b)) != CUZK_OK) {
                return err;
            }
        }
        if ((err = vp_br_u64(r, &p->index[j])) != CUZK_OK) {
            return err;
        }
        if (p->index[j] >= arity) {
            r->pos -= 8;
            return vp_br_fail(r, "index %llu out of range for arity %u",
                              (unsigned long long)p->index[j], arity);
        }
        p->arity[j] = (uint8_t)arity;
        vp_path_pop(&r->path, m1);
    }
    vp_path_pop(&r->path, m0);
    return CUZK_OK;
}

cuzk_err vp_br_merkle(vp_br *r, seal_merkle_proof *out, const seal_tree_shape *shape)
{
    static const char *const pnames[3] = {"base_proof", "sub_proof", "top_proof"};
    ipath_spec spec[3];
    uint32_t tag;
    char sh[96];
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    path_specs(shape, spec);
    if ((err = vp_br_u32(r, &tag)) != CUZK_OK) {
        return err;
    }
    if (tag > 2) {
        r->pos -= 4;
        return vp_br_fail(r, "unknown ProofData variant %u", tag);
    }
    if (tag != shape->kind) {
        r->pos -= 4;
        vp_shape_str(sh, sizeof(sh), shape);
        return vp_br_fail(r, "variant %s does not fit this sector (expected %s)",
                          kind_name((seal_proof_kind)tag), sh);
    }
    if (tag == SEAL_PROOF_SINGLE) {
        if ((err = vp_br_node(r, out->root.b)) != CUZK_OK ||
            (err = vp_br_node(r, out->leaf.b)) != CUZK_OK ||
            (err = br_ipath(r, out, shape, &spec[0], "path")) != CUZK_OK) {
            return err;
        }
    } else {
        for (uint32_t i = 0; i <= tag; i++) {
            if ((err = br_ipath(r, out, shape, &spec[i], pnames[i])) != CUZK_OK) {
                return err;
            }
        }
        if ((err = vp_br_node(r, out->root.b)) != CUZK_OK ||
            (err = vp_br_node(r, out->leaf.b)) != CUZK_OK) {
            return err;
        }
    }
    out->kind = shape->kind;
    out->nelems = shape->nlevels;
    out->nbase = shape->nbase;
    return CUZK_OK;
}

static void bw_ipath(vp_buf *b, const seal_merkle_proof *p, uint32_t first, uint32_t count)
{
    const seal_node *sib = seal_merkle_sib(p, first);

    vp_buf_u64le(b, count);
    for (uint32_t j = first; j < first + count; j++) {
        vp_buf_u64le(b, p->arity[j] - 1u);
        for (unsigned h = 0; h + 1u < p->arity[j]; h++) {
            vp_buf_put(b, sib->b, 32);
            sib++;
        }
        vp_buf_u64le(b, p->index[j]);
    }
}

void vp_bw_merkle(vp_buf *b, const seal_merkle_proof *p)
{
    uint32_t nsub = p->kind >= SEAL_PROOF_SUB ? 1 : 0;

    vp_buf_u32le(b, (uint32_t)p->kind);
    if (p->kind == SEAL_PROOF_SINGLE) {
        vp_buf_put(b, p->root.b, 32);
        vp_buf_put(b, p->leaf.b, 32);
        bw_ipath(b, p, 0, p->nbase);
        return;
    }
    bw_ipath(b, p, 0, p->nbase);
    bw_ipath(b, p, p->nbase, 1);
    if (p->kind == SEAL_PROOF_TOP) {
        bw_ipath(b, p, p->nbase + nsub, 1);
    }
    vp_buf_put(b, p->root.b, 32);
    vp_buf_put(b, p->leaf.b, 32);
}
