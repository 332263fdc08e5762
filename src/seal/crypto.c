/* crypto.c - BLAKE2b (RFC 7693) and the ChaCha block function (Bernstein; RFC 8439 layout for
 * ChaCha20-IETF). Used by the SDR graph (ChaCha8 for DRG parents, BLAKE2b-512 for the Feistel
 * round function) and the synthetic PoRep challenges (keyed BLAKE2b-256, ChaCha20-IETF).
 */
#include "seal/internal.h"

#include <string.h>

#include "common/bytes.h"

/* ---- BLAKE2b ------------------------------------------------------------------------------ */

/* The initialisation vector: the SHA-512 IV (RFC 7693 section 2.6). */
static const uint64_t b2b_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL, 0xa54ff53a5f1d36f1ULL,
    0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL, 0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

/* Message word permutations (RFC 7693 section 2.7); rounds 10 and 11 reuse rows 0 and 1. */
static const uint8_t b2b_sigma[12][16] = {
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
static void b2b_compress(seal_blake2b_t *s, const uint8_t block[128], bool last)
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
        const uint8_t *sg = b2b_sigma[r];
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

static void b2b_count(seal_blake2b_t *s, size_t n)
{
    s->t[0] += n;
    if (s->t[0] < n) {
        s->t[1]++;
    }
}

void seal_blake2b_init(seal_blake2b_t *s, size_t outlen, const void *key, size_t keylen)
{
    CZ_CHECK(outlen >= 1 && outlen <= 64 && keylen <= 64);
    memset(s, 0, sizeof(*s));
    for (int i = 0; i < 8; i++) {
        s->h[i] = b2b_iv[i];
    }
    /* Parameter block word 0: digest length, key length, fanout 1, depth 1. */
    s->h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
    s->outlen = outlen;
    if (keylen > 0) {
        /* The key, zero padded to a full block, is the first block (section 3.3). */
        memcpy(s->buf, key, keylen);
        s->buflen = 128;
    }
}

void seal_blake2b_update(seal_blake2b_t *s, const void *data, size_t len)
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

void seal_blake2b_final(seal_blake2b_t *s, uint8_t *out)
{
    uint8_t full[64];

    b2b_count(s, s->buflen);
    memset(s->buf + s->buflen, 0, 128 - s->buflen);
    b2b_compress(s, s->buf, true);
    for (int i = 0; i < 8; i++) {
        cz_store_le64(full + 8 * i, s->h[i]);
    }
    memcpy(out, full, s->outlen);
}

uint64_t seal_blake2b512_16_be64(const uint8_t msg[16])
{
    /* One final block: t = 16, parameter word 0x01010040 (64-byte digest, no key). */
    seal_blake2b_t s;
    uint8_t block[128] = {0};

    for (int i = 0; i < 8; i++) {
        s.h[i] = b2b_iv[i];
    }
    s.h[0] ^= 0x01010040ULL;
    s.t[0] = 16;
    s.t[1] = 0;
    memcpy(block, msg, 16);
    b2b_compress(&s, block, true);
    /* the first 8 digest bytes (state word 0, little-endian), read big-endian */
    uint8_t b[8];
    cz_store_le64(b, s.h[0]);
    return cz_load_be64(b);
}

void seal_blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *data,
                  size_t len)
{
    seal_blake2b_t s;

    seal_blake2b_init(&s, outlen, key, keylen);
    seal_blake2b_update(&s, data, len);
    seal_blake2b_final(&s, out);
}

/* ---- ChaCha ------------------------------------------------------------------------------- */

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

#define CHACHA_QR(a, b, c, d)                                                                      \
    do {                                                                                           \
        x[a] += x[b];                                                                              \
        x[d] = rotl32(x[d] ^ x[a], 16);                                                            \
        x[c] += x[d];                                                                              \
        x[b] = rotl32(x[b] ^ x[c], 12);                                                            \
        x[a] += x[b];                                                                              \
        x[d] = rotl32(x[d] ^ x[a], 8);                                                             \
        x[c] += x[d];                                                                              \
        x[b] = rotl32(x[b] ^ x[c], 7);                                                             \
    } while (0)

void seal_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds)
{
    uint32_t x[16];

    CZ_CHECK(rounds % 2 == 0);
    memcpy(x, in, sizeof(x));
    for (unsigned r = 0; r < rounds; r += 2) {
        /* column round, then diagonal round (RFC 8439 section 2.3) */
        CHACHA_QR(0, 4, 8, 12);
        CHACHA_QR(1, 5, 9, 13);
        CHACHA_QR(2, 6, 10, 14);
        CHACHA_QR(3, 7, 11, 15);
        CHACHA_QR(0, 5, 10, 15);
        CHACHA_QR(1, 6, 11, 12);
        CHACHA_QR(2, 7, 8, 13);
        CHACHA_QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) {
        out[i] = x[i] + in[i];
    }
}

void seal_chacha_setup(uint32_t st[16], const uint8_t key[32])
{
    /* "expand 32-byte k" as four little-endian words */
    st[0] = 0x61707865;
    st[1] = 0x3320646e;
    st[2] = 0x79622d32;
    st[3] = 0x6b206574;
    for (int i = 0; i < 8; i++) {
        st[4 + i] = cz_load_le32(key + 4 * i);
    }
}

void seal_chacha20_keystream(uint8_t *out, size_t len, const uint8_t key[32],
                             const uint8_t nonce[12], uint64_t offset)
{
    uint32_t st[16], blk[16];
    uint8_t bytes[64];

    seal_chacha_setup(st, key);
    st[13] = cz_load_le32(nonce);
    st[14] = cz_load_le32(nonce + 4);
    st[15] = cz_load_le32(nonce + 8);
    while (len > 0) {
        uint64_t block = offset / 64;
        size_t skip = (size_t)(offset % 64);
        CZ_CHECK(block <= UINT32_MAX); /* the IETF counter is 32 bits */
        st[12] = (uint32_t)block;
        seal_chacha_block(blk, st, 20);
        for (int i = 0; i < 16; i++) {
            cz_store_le32(bytes + 4 * i, blk[i]);
        }
        size_t take = 64 - skip;
        if (take > len) {
            take = len;
        }
        memcpy(out, bytes + skip, take);
        out += take;
        len -= take;
        offset += take;
    }
}
