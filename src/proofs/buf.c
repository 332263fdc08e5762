/* buf.c - the growing output buffer proofs/'s writers fill: raw bytes, little-endian integers
 * (bincode), decimal numbers, and JSON pieces (32-byte nodes as arrays, escaped strings, base64
 * strings). A failed allocation is remembered and reported once, by vp_buf_finish.
 */
#include "proofs/internal.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/base64.h"
#include "common/bytes.h"

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
