/* base64.c - RFC 4648 base64 (standard alphabet, padded), strict decoding. */
#include "common/base64.h"

#include "common/alloc.h"

static const char ALPHABET[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t cz_base64_encoded_len(size_t n)
{
    return (n + 2) / 3 * 4;
}

void cz_base64_encode(char *out, const uint8_t *in, size_t n)
{
    size_t o = 0;

    for (size_t i = 0; i < n; i += 3) {
        size_t rem = n - i; /* 1, 2, or 3 and more */
        uint32_t v = (uint32_t)in[i] << 16;
        if (rem > 1) {
            v |= (uint32_t)in[i + 1] << 8;
        }
        if (rem > 2) {
            v |= in[i + 2];
        }
        out[o++] = ALPHABET[v >> 18];
        out[o++] = ALPHABET[(v >> 12) & 63];
        out[o++] = rem > 1 ? ALPHABET[(v >> 6) & 63] : '=';
        out[o++] = rem > 2 ? ALPHABET[v & 63] : '=';
    }
    out[o] = '\0';
}

/* The 6-bit value of an alphabet character, or -1. */
static int digit(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Records a failure at offset `at` (the message's "invalid base64: " prefix is added here). */
static cuzk_err fail_at(size_t *bad_at, size_t at, cz_diag *dg, const char *what, char c)
{
    unsigned char u = (unsigned char)c;

    if (bad_at) {
        *bad_at = at;
    }
    if (!what) { /* a character outside the alphabet */
        return u >= 0x21 && u <= 0x7e
                   ? cz_fail(dg, CUZK_E_FORMAT, "invalid base64: character '%c' at offset %zu", c,
                             at)
                   : cz_fail(dg, CUZK_E_FORMAT, "invalid base64: byte 0x%02x at offset %zu", u, at);
    }
    return cz_fail(dg, CUZK_E_FORMAT, "invalid base64: %s at offset %zu", what, at);
}

cuzk_err cz_base64_decode(uint8_t **out, size_t *outlen, const char *in, size_t n, size_t *bad_at,
                          cz_diag *dg)
{
    size_t pad = 0, o = 0;
    uint8_t *buf;

    *out = NULL;
    *outlen = 0;
    if (bad_at) {
        *bad_at = 0;
    }
    if (n % 4 != 0) {
        if (bad_at) {
            *bad_at = n;
        }
        return cz_fail(dg, CUZK_E_FORMAT, "invalid base64: length %zu is not a multiple of 4", n);
    }
    while (pad < 2 && pad < n && in[n - 1 - pad] == '=') {
        pad++;
    }
    buf = cz_malloc(n / 4 * 3 + 1);
    if (!buf) {
        return cz_fail(dg, CUZK_E_NOMEM, "base64: %zu bytes", n / 4 * 3);
    }
    for (size_t i = 0; i < n; i += 4) {
        uint32_t w = 0;
        for (size_t k = i; k < i + 4; k++) {
            int d = k >= n - pad ? 0 : digit(in[k]);
            if (d < 0) {
                cz_free(buf);
                return fail_at(bad_at, k, dg, in[k] == '=' ? "padding '=' before the end" : NULL,
                               in[k]);
            }
            w = w << 6 | (uint32_t)d;
        }
        size_t take = i + 4 == n ? 3 - pad : 3;
        /* the last group: the bits below its last byte must be zero (RFC 4648 section 3.5) */
        if (i + 4 == n && pad && (w & (pad == 1 ? 0xffu : 0xffffu)) != 0) {
            cz_free(buf);
            return fail_at(bad_at, n - pad - 1, dg, "non-zero bits below the last byte", 0);
        }
        for (size_t k = 0; k < take; k++) {
            buf[o++] = (uint8_t)(w >> (16 - 8 * k));
        }
    }
    *out = buf;
    *outlen = o;
    return CUZK_OK;
}
