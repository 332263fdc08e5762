/* sha256.c - portable SHA-256 compression, run-time dispatch, incremental and one-shot hashing,
 * and the Filecoin trimmed variants. Reference: FIPS 180-4 (sections 4.1.2, 4.2.2, 5.1.1,
 * 5.3.3, 6.2.2). The SHA-NI compression lives in sha256_shani.c.
 */
#include "hash/sha256.h"

#include <string.h>

#include "common/bytes.h"
#include "hash/internal.h"

#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
#    include <cpuid.h>
#endif

const uint32_t SHA256_IV[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* First 32 bits of the fractional parts of the cube roots of the first 64 primes. */
const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* Padding block of a 64-byte message: W = [0x80000000, 0 x 14, 0x200], expanded to W[0..63]
 * by the FIPS 180-4 schedule, plus K. Checked against a fresh expansion by the tests. */
_Alignas(16) const uint32_t sha256_pad64_wk[64] = {
    0xc28a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf374,
    0x649b69c1, 0xf0fe4786, 0x0fe1edc6, 0x240cf254, 0x4fe9346f, 0x6cc984be, 0x61b9411e, 0x16f988fa,
    0xf2c65152, 0xa88e5a6d, 0xb019fc65, 0xb9d99ec7, 0x9a1231c3, 0xe70eeaa0, 0xfdb1232b, 0xc7353eb0,
    0x3069bad5, 0xcb976d5f, 0x5a0f118f, 0xdc1eeefd, 0x0a35b689, 0xde0b7a04, 0x58f4ca9d, 0xe15d5b16,
    0x007f3e86, 0x37088980, 0xa507ea32, 0x6fab9537, 0x17406110, 0x0d8cd6f1, 0xcdaa3b6d, 0xc0bbbe37,
    0x83613bda, 0xdb48a363, 0x0b02e931, 0x6fd15ca7, 0x521afaca, 0x31338431, 0x6ed41a95, 0x6d437890,
    0xc39c91f2, 0x9eccabbd, 0xb5c9a0e6, 0x532fb63c, 0xd2c741c6, 0x07237ea3, 0xa4954b68, 0x4c191d76,
};

static inline uint32_t rotr32(uint32_t x, unsigned n)
{
    return (x >> n) | (x << (32 - n));
}

/* FIPS 180-4 sec. 4.1.2: the four sigma functions, Ch and Maj. */
static inline uint32_t big_sigma0(uint32_t x)
{
    return rotr32(x, 2) ^ rotr32(x, 13) ^ rotr32(x, 22);
}

static inline uint32_t big_sigma1(uint32_t x)
{
    return rotr32(x, 6) ^ rotr32(x, 11) ^ rotr32(x, 25);
}

static inline uint32_t small_sigma0(uint32_t x)
{
    return rotr32(x, 7) ^ rotr32(x, 18) ^ (x >> 3);
}

static inline uint32_t small_sigma1(uint32_t x)
{
    return rotr32(x, 17) ^ rotr32(x, 19) ^ (x >> 10);
}

static inline uint32_t ch(uint32_t x, uint32_t y, uint32_t z)
{
    return (x & y) ^ (~x & z);
}

static inline uint32_t maj(uint32_t x, uint32_t y, uint32_t z)
{
    return (x & y) ^ (x & z) ^ (y & z);
}

void sha256_rounds_wk_portable(uint32_t state[8], const uint32_t wk[64])
{
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];

    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + big_sigma1(e) + ch(e, f, g) + wk[i];
        uint32_t t2 = big_sigma0(a) + maj(a, b, c);
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    state[0] += a;
    state[1] += b;
    state[2] += c;
    state[3] += d;
    state[4] += e;
    state[5] += f;
    state[6] += g;
    state[7] += h;
}

void sha256_compress_portable(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    uint32_t w[64];

    for (size_t blk = 0; blk < nblocks; blk++, blocks += SHA256_BLOCK_BYTES) {
        for (int i = 0; i < 16; i++) {
            w[i] = cz_load_be32(blocks + 4 * i);
        }
        for (int i = 16; i < 64; i++) {
            w[i] = small_sigma1(w[i - 2]) + w[i - 7] + small_sigma0(w[i - 15]) + w[i - 16];
        }
        for (int i = 0; i < 64; i++) {
            w[i] += sha256_k[i];
        }
        sha256_rounds_wk_portable(state, w);
    }
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
/* Clang's __builtin_cpu_supports does not know "sha": read CPUID once, before main() (leaf 7
 * EBX bit 29 is SHA, leaf 1 ECX bit 19 is SSE4.1). Until then the portable code runs. */
static bool sha256_cpu_shani;

__attribute__((constructor)) static void sha256_cpu_init(void)
{
    unsigned a, b, c, d;
    sha256_cpu_shani = __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b >> 29 & 1) &&
                       __get_cpuid(1, &a, &b, &c, &d) && (c >> 19 & 1);
}
#endif

bool sha256_has_shani(void)
{
#if (defined(__x86_64__) || defined(__i386__)) && defined(__clang__)
    return sha256_cpu_shani;
#elif defined(__x86_64__) || defined(__i386__)
    return __builtin_cpu_supports("sha") && __builtin_cpu_supports("sse4.1");
#else
    return false;
#endif
}

const char *sha256_impl_name(void)
{
    return sha256_has_shani() ? "sha-ni" : "portable";
}

void sha256_compress(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    if (sha256_has_shani()) {
        sha256_compress_shani(state, blocks, nblocks);
    } else {
        sha256_compress_portable(state, blocks, nblocks);
    }
}

void sha256_init(sha256_ctx_t *ctx)
{
    memcpy(ctx->h, SHA256_IV, sizeof(ctx->h));
    ctx->nbytes = 0;
}

void sha256_update(sha256_ctx_t *ctx, const void *data, size_t len)
{
    const uint8_t *p = data;
    size_t have = (size_t)(ctx->nbytes % SHA256_BLOCK_BYTES);

    if (len == 0) {
        return;
    }
    ctx->nbytes += len;
    if (have) {
        size_t take = SHA256_BLOCK_BYTES - have;
        if (take > len) {
            take = len;
        }
        memcpy(ctx->buf + have, p, take);
        p += take;
        len -= take;
        if (have + take < SHA256_BLOCK_BYTES) {
            return;
        }
        sha256_compress(ctx->h, ctx->buf, 1);
    }
    if (len >= SHA256_BLOCK_BYTES) {
        size_t n = len / SHA256_BLOCK_BYTES;
        sha256_compress(ctx->h, p, n);
        p += n * SHA256_BLOCK_BYTES;
        len -= n * SHA256_BLOCK_BYTES;
    }
    if (len) {
        memcpy(ctx->buf, p, len);
    }
}

void sha256_final(sha256_ctx_t *ctx, uint8_t out[SHA256_DIGEST_BYTES])
{
    size_t have = (size_t)(ctx->nbytes % SHA256_BLOCK_BYTES);
    uint64_t bits = ctx->nbytes << 3;

    /* FIPS 180-4 sec. 5.1.1: a 1 bit, zeros to 56 mod 64 bytes, the 64-bit big-endian length. */
    ctx->buf[have++] = 0x80;
    if (have > SHA256_BLOCK_BYTES - 8) {
        memset(ctx->buf + have, 0, SHA256_BLOCK_BYTES - have);
        sha256_compress(ctx->h, ctx->buf, 1);
        have = 0;
    }
    memset(ctx->buf + have, 0, SHA256_BLOCK_BYTES - 8 - have);
    cz_store_be64(ctx->buf + SHA256_BLOCK_BYTES - 8, bits);
    sha256_compress(ctx->h, ctx->buf, 1);
    for (int i = 0; i < 8; i++) {
        cz_store_be32(out + 4 * i, ctx->h[i]);
    }
}

void sha256(uint8_t out[SHA256_DIGEST_BYTES], const void *data, size_t len)
{
    sha256_ctx_t ctx;
    sha256_init(&ctx);
    sha256_update(&ctx, data, len);
    sha256_final(&ctx, out);
}

void sha256_64_portable(uint8_t *out, const uint8_t *in, size_t n, uint8_t mask)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t st[8];
        memcpy(st, SHA256_IV, sizeof(st));
        sha256_compress_portable(st, in + 64 * i, 1); /* reads all of message i */
        sha256_rounds_wk_portable(st, sha256_pad64_wk);
        for (int k = 0; k < 8; k++) {
            cz_store_be32(out + 32 * i + 4 * k, st[k]);
        }
        out[32 * i + 31] &= mask;
    }
}

static void sha64(uint8_t *out, const uint8_t *in, size_t n, uint8_t mask)
{
    if (sha256_has_shani()) {
        sha256_64_shani(out, in, n, mask);
    } else {
        sha256_64_portable(out, in, n, mask);
    }
}

void sha256_64(uint8_t out[SHA256_DIGEST_BYTES], const uint8_t in[64])
{
    sha64(out, in, 1, 0xff);
}

void sha256_64_many(uint8_t *out, const uint8_t *in, size_t n)
{
    sha64(out, in, n, 0xff);
}

void sha256_fr32(uint8_t out[SHA256_DIGEST_BYTES], const void *data, size_t len)
{
    sha256(out, data, len);
    sha256_fr32_trim(out);
}

void sha256_fr32_node(uint8_t out[SHA256_DIGEST_BYTES], const uint8_t left[32],
                      const uint8_t right[32])
{
    uint8_t block[64];

    memcpy(block, left, 32);
    memcpy(block + 32, right, 32);
    sha64(out, block, 1, 0x3f);
}

void sha256_fr32_nodes(uint8_t *out, const uint8_t *in, size_t n)
{
    sha64(out, in, n, 0x3f);
}
