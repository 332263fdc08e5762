/* blake2.c - BLAKE2s and BLAKE2b as specified in RFC 7693 (sections 2 and 3, appendices C and
 * D). Both take their message schedule from the one BLAKE2_SIGMA table.
 */
#include "hash/blake2.h"

#include <string.h>

#include "common/bytes.h"

/* RFC 7693 section 2.7; rows 10 and 11 (BLAKE2b's last two rounds) repeat rows 0 and 1. */
const uint8_t BLAKE2_SIGMA[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

/* ---- BLAKE2s ------------------------------------------------------------------------------ */

const uint32_t BLAKE2S_IV[8] = {0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
                                0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19};

static inline uint32_t rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

/* The mixing function G with BLAKE2s rotations 16, 12, 8, 7 (RFC 7693 section 3.1). */
static inline void b2s_g(uint32_t v[16], int a, int b, int c, int d, uint32_t x, uint32_t y)
{
    v[a] = v[a] + v[b] + x;
    v[d] = rotr32(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr32(v[b] ^ v[c], 12);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr32(v[d] ^ v[a], 8);
    v[c] = v[c] + v[d];
    v[b] = rotr32(v[b] ^ v[c], 7);
}

/* Compression F (RFC 7693 section 3.2); `last` marks the final block. */
static void b2s_compress(blake2s_ctx_t *s, const uint8_t block[64], bool last)
{
    uint32_t m[16], v[16];

    for (int i = 0; i < 16; i++) {
        m[i] = cz_load_le32(block + 4 * i);
    }
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = BLAKE2S_IV[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last) {
        v[14] = ~v[14];
    }
    for (int r = 0; r < 10; r++) {
        const uint8_t *sg = BLAKE2_SIGMA[r];
        b2s_g(v, 0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        b2s_g(v, 1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        b2s_g(v, 2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        b2s_g(v, 3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        b2s_g(v, 0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        b2s_g(v, 1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        b2s_g(v, 2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        b2s_g(v, 3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
    for (int i = 0; i < 8; i++) {
        s->h[i] ^= v[i] ^ v[i + 8];
    }
}

static void b2s_count(blake2s_ctx_t *s, uint32_t n)
{
    s->t[0] += n;
    if (s->t[0] < n) {
        s->t[1]++;
    }
}

void blake2s_init(blake2s_ctx_t *s, size_t outlen)
{
    CZ_CHECK(outlen >= 1 && outlen <= BLAKE2S_OUT_BYTES);
    memset(s, 0, sizeof(*s));
    memcpy(s->h, BLAKE2S_IV, sizeof(s->h));
    /* Parameter block word 0: digest length, key length 0, fanout 1, depth 1. */
    s->h[0] ^= 0x01010000u ^ (uint32_t)outlen;
    s->outlen = outlen;
}

void blake2s_update(blake2s_ctx_t *s, const void *in, size_t n)
{
    const uint8_t *p = in;

    while (n > 0) {
        if (s->buflen == 64) {
            /* More input follows, so the buffered block is not the last one. */
            b2s_count(s, 64);
            b2s_compress(s, s->buf, false);
            s->buflen = 0;
        }
        if (s->buflen == 0) {
            while (n > 64) {
                b2s_count(s, 64);
                b2s_compress(s, p, false);
                p += 64;
                n -= 64;
            }
        }
        size_t take = 64 - s->buflen;
        if (take > n) {
            take = n;
        }
        memcpy(s->buf + s->buflen, p, take);
        s->buflen += take;
        p += take;
        n -= take;
    }
}

void blake2s_final(blake2s_ctx_t *s, uint8_t *out)
{
    uint8_t full[BLAKE2S_OUT_BYTES];

    b2s_count(s, (uint32_t)s->buflen);
    memset(s->buf + s->buflen, 0, 64 - s->buflen);
    b2s_compress(s, s->buf, true);
    for (int i = 0; i < 8; i++) {
        cz_store_le32(full + 4 * i, s->h[i]);
    }
    memcpy(out, full, s->outlen);
}

void blake2s(uint8_t *out, size_t outlen, const void *in, size_t n)
{
    blake2s_ctx_t s;

    blake2s_init(&s, outlen);
    blake2s_update(&s, in, n);
    blake2s_final(&s, out);
}

/* ---- BLAKE2b ------------------------------------------------------------------------------ */

/* The initialisation vector: the SHA-512 IV (RFC 7693 section 2.6). */
static const uint64_t b2b_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

static inline uint64_t rotr64(uint64_t x, unsigned n)
{
    return (x >> n) | (x << (64 - n));
}

/* The mixing function G with BLAKE2b rotations 32, 24, 16, 63 (RFC 7693 section 3.1). */
static inline void b2b_g(uint64_t v[16], int a, int b, int c, int d, uint64_t x, uint64_t y)
{
    v[a] = v[a] + v[b] + x;
    v[d] = rotr64(v[d] ^ v[a], 32);
    v[c] = v[c] + v[d];
    v[b] = rotr64(v[b] ^ v[c], 24);
    v[a] = v[a] + v[b] + y;
    v[d] = rotr64(v[d] ^ v[a], 16);
    v[c] = v[c] + v[d];
    v[b] = rotr64(v[b] ^ v[c], 63);
}

/* Compression F (RFC 7693 section 3.2); `last` marks the final block. */
static void b2b_compress(blake2b_ctx_t *s, const uint8_t block[128], bool last)
{
    uint64_t m[16], v[16];

    for (int i = 0; i < 16; i++) {
        m[i] = cz_load_le64(block + 8 * i);
    }
    for (int i = 0; i < 8; i++) {
        v[i] = s->h[i];
        v[i + 8] = b2b_iv[i];
    }
    v[12] ^= s->t[0];
    v[13] ^= s->t[1];
    if (last) {
        v[14] = ~v[14];
    }
    for (int r = 0; r < 12; r++) {
        const uint8_t *sg = BLAKE2_SIGMA[r];
        b2b_g(v, 0, 4, 8, 12, m[sg[0]], m[sg[1]]);
        b2b_g(v, 1, 5, 9, 13, m[sg[2]], m[sg[3]]);
        b2b_g(v, 2, 6, 10, 14, m[sg[4]], m[sg[5]]);
        b2b_g(v, 3, 7, 11, 15, m[sg[6]], m[sg[7]]);
        b2b_g(v, 0, 5, 10, 15, m[sg[8]], m[sg[9]]);
        b2b_g(v, 1, 6, 11, 12, m[sg[10]], m[sg[11]]);
        b2b_g(v, 2, 7, 8, 13, m[sg[12]], m[sg[13]]);
        b2b_g(v, 3, 4, 9, 14, m[sg[14]], m[sg[15]]);
    }
    for (int i = 0; i < 8; i++) {
        s->h[i] ^= v[i] ^ v[i + 8];
    }
}

static void b2b_count(blake2b_ctx_t *s, size_t n)
{
    s->t[0] += n;
    if (s->t[0] < n) {
        s->t[1]++;
    }
}

/* h = IV with parameter block word 0: digest length, key length, fanout 1, depth 1. */
static void b2b_start(blake2b_ctx_t *s, size_t outlen, size_t keylen)
{
    for (int i = 0; i < 8; i++) {
        s->h[i] = b2b_iv[i];
    }
    s->h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
}

static void b2b_output(const blake2b_ctx_t *s, uint8_t *out, size_t outlen)
{
    uint8_t full[BLAKE2B_OUT_BYTES];

    for (int i = 0; i < 8; i++) {
        cz_store_le64(full + 8 * i, s->h[i]);
    }
    memcpy(out, full, outlen);
}

void blake2b_init(blake2b_ctx_t *s, size_t outlen, const void *key, size_t keylen)
{
    CZ_CHECK(outlen >= 1 && outlen <= BLAKE2B_OUT_BYTES && keylen <= BLAKE2B_KEY_BYTES);
    memset(s, 0, sizeof(*s));
    b2b_start(s, outlen, keylen);
    s->outlen = outlen;
    if (keylen > 0) {
        /* The key, zero padded to a full block, is the first block (section 3.3). */
        memcpy(s->buf, key, keylen);
        s->buflen = 128;
    }
}

void blake2b_update(blake2b_ctx_t *s, const void *data, size_t len)
{
    const uint8_t *p = data;

    while (len > 0) {
        /* A full buffer is compressed only once more input arrives: the last block must be
         * compressed with the final flag. */
        if (s->buflen == 128) {
            b2b_count(s, 128);
            b2b_compress(s, s->buf, false);
            s->buflen = 0;
        }
        size_t take = 128 - s->buflen;
        if (take > len) {
            take = len;
        }
        memcpy(s->buf + s->buflen, p, take);
        s->buflen += take;
        p += take;
        len -= take;
    }
}

void blake2b_final(blake2b_ctx_t *s, uint8_t *out)
{
    b2b_count(s, s->buflen);
    memset(s->buf + s->buflen, 0, 128 - s->buflen);
    b2b_compress(s, s->buf, true);
    b2b_output(s, out, s->outlen);
}

void blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *data,
             size_t len)
{
    blake2b_ctx_t s;

    blake2b_init(&s, outlen, key, keylen);
    blake2b_update(&s, data, len);
    blake2b_final(&s, out);
}

void blake2b_short(uint8_t *out, size_t outlen, const void *in, size_t len)
{
    /* One final block: t = len, the message zero padded. */
    blake2b_ctx_t s;
    uint8_t block[BLAKE2B_BLOCK_BYTES] = {0};

    CZ_CHECK(outlen >= 1 && outlen <= BLAKE2B_OUT_BYTES && len <= BLAKE2B_BLOCK_BYTES);
    b2b_start(&s, outlen, 0);
    s.t[0] = len;
    s.t[1] = 0;
    if (len > 0) {
        memcpy(block, in, len);
    }
    b2b_compress(&s, block, true);
    b2b_output(&s, out, outlen);
}
