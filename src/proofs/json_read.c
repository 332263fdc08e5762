/* json_read.c - proofs/'s streaming JSON reader (RFC 8259; integers only where the formats have
 * integers), vp_jr_fields, which reads an object through a table of its keys, and
 * vp_jr_elements, which reads an array element by element.
 *
 * The reader builds no document: callers walk objects key by key (through a field table where
 * the object is a struct), so a 50 MB C1 output costs its parsed structures and nothing more.
 * Nesting is limited to 64 levels.
 */
#include "proofs/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

#define JSON_MAX_DEPTH 64

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

/* vp_jelem_fn: byte i of a node (dst: its 32 bytes). */
static cuzk_err jr_node_byte(vp_jr *r, size_t i, void *dst, void *ctx)
{
    uint64_t v;
    cuzk_err err;

    (void)ctx;
    if ((err = vp_jr_u64(r, &v)) != CUZK_OK) {
        return err;
    }
    if (v > 255) {
        return vp_jr_fail(r, "byte %zu is %llu, not 0..255", i, (unsigned long long)v);
    }
    ((uint8_t *)dst)[i] = (uint8_t)v;
    return CUZK_OK;
}

/* A node's bytes are named by the node: "byte 3 is 256" at its path. */
static const vp_jarray NODE_BYTES = {jr_node_byte, "bytes", NULL, true};

cuzk_err vp_jr_node(vp_jr *r, uint8_t out[32])
{
    char c = vp_jr_peek(r);

    if (c != '[' || r->depth >= JSON_MAX_DEPTH) {
        return vp_jr_fail(r, "expected an array of 32 bytes, found %s", jr_what(c));
    }
    return vp_jr_elements(r, &NODE_BYTES, 32, out, NULL, NULL);
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

/* vp_jelem_fn: skips element i. */
static cuzk_err jr_skip_element(vp_jr *r, size_t i, void *dst, void *ctx)
{
    (void)i;
    (void)dst;
    (void)ctx;
    return vp_jr_skip(r);
}

/* Skipped elements are not named: an error in one names the array (or the key above it). */
static const vp_jarray SKIP_ELEMENTS = {jr_skip_element, NULL, NULL, true};

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
        return vp_jr_elements(r, &SKIP_ELEMENTS, VP_JR_ANY, NULL, NULL, NULL);
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

cuzk_err vp_jr_end(vp_jr *r)
{
    char c = vp_jr_peek(r);
    if (c != 0 || r->pos != r->len) {
        return vp_jr_fail(r, "trailing data after the JSON value");
    }
    return CUZK_OK;
}

/* ---- objects through a field table -------------------------------------------------------- */

static const vp_jfield *jr_find_field(const vp_jtable *t, const char *key, unsigned *bit)
{
    for (size_t i = 0; i < t->nfields; i++) {
        if (strcmp(key, t->fields[i].key) == 0) {
            *bit = 1u << i;
            return &t->fields[i];
        }
    }
    return NULL;
}

cuzk_err vp_jr_fields(vp_jr *r, const vp_jtable *t, void *dst, void *ctx, unsigned *seen)
{
    bool first = true, end;
    unsigned got = 0, bit = 0;
    char key[VP_JR_KEY_MAX + 1];
    cuzk_err err;

    CZ_CHECK(t->nfields <= 32);
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
        const vp_jfield *f = jr_find_field(t, key, &bit);
        if (!f && t->unknown == VP_JR_SKIP_QUIET) {
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
            continue;
        }
        if (f && (got & bit) && !(f->flags & VP_JF_REPEAT)) {
            return vp_jr_fail(
                r, t->words == VP_JR_SERDE ? "duplicate field \"%s\"" : "duplicate key \"%s\"",
                key);
        }
        size_t m = vp_path_push(&r->path, r->path.len ? ".%s" : "%s", key);
        if (f) {
            got |= bit;
            err = f->read(r, (char *)dst + f->off, ctx);
        } else {
            err = vp_jr_skip(r);
        }
        if (err != CUZK_OK) {
            return err;
        }
        vp_path_pop(&r->path, m);
    }
    for (size_t i = 0; i < t->nfields; i++) {
        if ((t->fields[i].flags & VP_JF_REQUIRED) && !(got & (1u << i))) {
            return vp_jr_fail(r,
                              t->words == VP_JR_SERDE ? "missing field \"%s\"" : "missing \"%s\"",
                              t->fields[i].key);
        }
    }
    if (seen) {
        *seen = got;
    }
    return CUZK_OK;
}

cuzk_err vp_jf_u32(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    return vp_jr_u32(r, dst);
}

cuzk_err vp_jf_u64(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    return vp_jr_u64(r, dst);
}

cuzk_err vp_jf_node(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    return vp_jr_node(r, dst);
}

cuzk_err vp_jf_null(vp_jr *r, void *dst, void *ctx)
{
    (void)dst;
    (void)ctx;
    return vp_jr_null(r);
}

/* ---- arrays element by element ------------------------------------------------------------ */

cuzk_err vp_jr_elements(vp_jr *r, const vp_jarray *a, size_t want, void *dst, void *ctx,
                        size_t *count)
{
    const char *what = a->what ? a->what : "elements"; /* what is NULL only with VP_JR_ANY */
    bool first = true, end;
    size_t n = 0;
    cuzk_err err;

    err = vp_jr_array(r);
    while (err == CUZK_OK) {
        if ((err = vp_jr_next(r, &first, &end)) != CUZK_OK || end) {
            break;
        }
        if (n >= want) {
            err = vp_jr_fail(r, "expected %zu %s, found more", want, what);
            break;
        }
        size_t m = r->path.len;
        if (!a->unnamed) {
            m = a->entry ? vp_path_push(&r->path, "[%s %zu]", a->entry, n)
                         : vp_path_push(&r->path, "[%zu]", n);
        }
        if ((err = a->read(r, n, dst, ctx)) != CUZK_OK) {
            break;
        }
        vp_path_pop(&r->path, m);
        n++;
    }
    if (err == CUZK_OK && want != VP_JR_ANY && n != want) {
        err = vp_jr_fail(r, "expected %zu %s, found %zu", want, what, n);
    }
    if (count) {
        *count = n;
    }
    return err;
}
