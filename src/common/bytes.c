/* bytes.c - hex conversion, UTF-8 decoding. */
#include "common/bytes.h"

static int hex_val(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

bool cz_hex_decode(uint8_t *out, size_t n, const char *hex)
{
    for (size_t i = 0; i < n; i++) {
        int hi = hex_val(hex[2 * i]);
        int lo = hi < 0 ? -1 : hex_val(hex[2 * i + 1]);
        if (hi < 0 || lo < 0) {
            return false;
        }
        out[i] = (uint8_t)(hi << 4 | lo);
    }
    return hex[2 * n] == '\0';
}

void cz_hex_encode(char *out, const uint8_t *in, size_t n)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[2 * n] = '\0';
}

size_t cz_utf8_next(const uint8_t *p, size_t n, uint32_t *cp)
{
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    size_t len;
    uint32_t c = p[0];

    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        c &= 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        c &= 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        c &= 0x07;
    } else {
        return 0;
    }
    if (n < len) {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((p[i] & 0xc0) != 0x80) {
            return 0;
        }
        c = (c << 6) | (p[i] & 0x3f);
    }
    if (c < min_cp[len] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) {
        return 0;
    }
    *cp = c;
    return len;
}
