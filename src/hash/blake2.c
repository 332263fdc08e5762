/* blake2.c - BLAKE2s and BLAKE2b as specified in RFC 7693 (sections 2 and 3, appendices C and
 * D). Both take their message schedule from the one BLAKE2_SIGMA table, and their compression,
 * counter and buffering from blake2_impl.h, instantiated with 32- and 64-bit words.
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

#define B2_W          uint32_t
#define B2_CTX        blake2s_ctx_t
#define B2_BLOCK      BLAKE2S_BLOCK_BYTES
#define B2_ROUNDS     10
#define B2_R1         16
#define B2_R2         12
#define B2_R3         8
#define B2_R4         7
#define B2_IV         BLAKE2S_IV
#define B2_LOAD       cz_load_le32
#define B2_STORE      cz_store_le32
#define B2_OUT        BLAKE2S_OUT_BYTES
#define B2_FN(suffix) b2s##suffix
#include "hash/blake2_impl.h"

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
    b2s_absorb(s, in, n);
}

void blake2s_final(blake2s_ctx_t *s, uint8_t *out)
{
    b2s_finish(s, out, s->outlen);
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

#define B2_W          uint64_t
#define B2_CTX        blake2b_ctx_t
#define B2_BLOCK      BLAKE2B_BLOCK_BYTES
#define B2_ROUNDS     12
#define B2_R1         32
#define B2_R2         24
#define B2_R3         16
#define B2_R4         63
#define B2_IV         b2b_iv
#define B2_LOAD       cz_load_le64
#define B2_STORE      cz_store_le64
#define B2_OUT        BLAKE2B_OUT_BYTES
#define B2_FN(suffix) b2b##suffix
#include "hash/blake2_impl.h"

/* h = IV with parameter block word 0: digest length, key length, fanout 1, depth 1. */
static void b2b_start(blake2b_ctx_t *s, size_t outlen, size_t keylen)
{
    for (int i = 0; i < 8; i++) {
        s->h[i] = b2b_iv[i];
    }
    s->h[0] ^= 0x01010000ULL ^ ((uint64_t)keylen << 8) ^ (uint64_t)outlen;
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
    b2b_absorb(s, data, len);
}

void blake2b_final(blake2b_ctx_t *s, uint8_t *out)
{
    b2b_finish(s, out, s->outlen);
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
