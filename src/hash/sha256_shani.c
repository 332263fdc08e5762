/* sha256_shani.c - SHA-256 compression with the x86 SHA extensions (SHA-NI).
 *
 * How: the state lives in two vectors in the order SHA256RNDS2 expects, ABEF = [F,E,B,A] and
 * CDGH = [H,G,D,C] (lane 0 first). Each SHA256RNDS2 performs two rounds using the low two lanes
 * of a W+K vector and returns the new ABEF; the old ABEF becomes the new CDGH. The message
 * schedule for W[i..i+3], i >= 16, is msg2(msg1(W[i-16..], W[i-12..]) + W[i-7..i-4], W[i-4..])
 * (Intel, "New Instructions Supporting the Secure Hash Algorithm on Intel Architecture
 * Processors", 2013). Only the functions marked with the target attribute use the extensions;
 * callers check sha256_has_shani() first.
 */
#include "hash/sha256.h"

#include "hash/internal.h"

#if defined(__x86_64__) || defined(__i386__)

#    include <immintrin.h>

#    define SHANI_TARGET __attribute__((target("sha,sse4.1")))

/* Four rounds with the message words in `wk` (W+K, lanes 0..3). */
#    define QROUNDS(abef, cdgh, wk)                                                                \
        do {                                                                                       \
            (cdgh) = _mm_sha256rnds2_epu32((cdgh), (abef), (wk));                                  \
            (abef) = _mm_sha256rnds2_epu32((abef), (cdgh), _mm_shuffle_epi32((wk), 0x0e));         \
        } while (0)

/* W[i..i+3] from m16 = W[i-16..], m12 = W[i-12..], m8 = W[i-8..], m4 = W[i-4..]; into m16. */
#    define SCHEDULE(m16, m12, m8, m4)                                                             \
        (m16) = _mm_sha256msg2_epu32(                                                              \
            _mm_add_epi32(_mm_sha256msg1_epu32((m16), (m12)), _mm_alignr_epi8((m4), (m8), 4)),     \
            (m4))

#    define KVEC(i) _mm_loadu_si128((const __m128i *)(const void *)&sha256_k[(i)])

/* [A,B,C,D],[E,F,G,H] -> ABEF, CDGH */
SHANI_TARGET static inline void shani_load_state(const uint32_t st[8], __m128i *abef, __m128i *cdgh)
{
    __m128i badc = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&st[0]), 0xb1);
    __m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(const void *)&st[4]), 0x1b);
    *abef = _mm_alignr_epi8(badc, hgfe, 8);    /* [F,E,B,A] */
    *cdgh = _mm_blend_epi16(hgfe, badc, 0xf0); /* [H,G,D,C] */
}

SHANI_TARGET static inline void shani_store_state(uint32_t st[8], __m128i abef, __m128i cdgh)
{
    __m128i abef_rev = _mm_shuffle_epi32(abef, 0x1b); /* [A,B,E,F] */
    __m128i cdgh_swp = _mm_shuffle_epi32(cdgh, 0xb1); /* [G,H,C,D] */
    _mm_storeu_si128((__m128i *)(void *)&st[0], _mm_blend_epi16(abef_rev, cdgh_swp, 0xf0));
    _mm_storeu_si128((__m128i *)(void *)&st[4], _mm_alignr_epi8(cdgh_swp, abef_rev, 8));
}

#    define LOADBE(p, off)                                                                         \
        _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)((p) + (off))), bswap)

/* One 64-byte block: state (abef, cdgh) += rounds(block). */
SHANI_TARGET __attribute__((always_inline)) static inline void
shani_block(__m128i *abef_io, __m128i *cdgh_io, const uint8_t *p)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef = *abef_io, cdgh = *cdgh_io;
    __m128i m0 = LOADBE(p, 0), m1 = LOADBE(p, 16), m2 = LOADBE(p, 32), m3 = LOADBE(p, 48);

    QROUNDS(abef, cdgh, _mm_add_epi32(m0, KVEC(0)));
    QROUNDS(abef, cdgh, _mm_add_epi32(m1, KVEC(4)));
    QROUNDS(abef, cdgh, _mm_add_epi32(m2, KVEC(8)));
    QROUNDS(abef, cdgh, _mm_add_epi32(m3, KVEC(12)));
    for (int i = 16; i < 64; i += 16) {
        SCHEDULE(m0, m1, m2, m3);
        QROUNDS(abef, cdgh, _mm_add_epi32(m0, KVEC(i)));
        SCHEDULE(m1, m2, m3, m0);
        QROUNDS(abef, cdgh, _mm_add_epi32(m1, KVEC(i + 4)));
        SCHEDULE(m2, m3, m0, m1);
        QROUNDS(abef, cdgh, _mm_add_epi32(m2, KVEC(i + 8)));
        SCHEDULE(m3, m0, m1, m2);
        QROUNDS(abef, cdgh, _mm_add_epi32(m3, KVEC(i + 12)));
    }
    *abef_io = _mm_add_epi32(abef, *abef_io);
    *cdgh_io = _mm_add_epi32(cdgh, *cdgh_io);
}

/* Two independent blocks, statement by statement interleaved, so that the core can overlap
 * the two dependency chains (bench_hash: sha256_64_many against sha256_64). */
SHANI_TARGET __attribute__((always_inline)) static inline void
shani_block_x2(__m128i st[4], const uint8_t *p, const uint8_t *q)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i a0 = st[0], c0 = st[1], a1 = st[2], c1 = st[3];
    __m128i m0 = LOADBE(p, 0), m1 = LOADBE(p, 16), m2 = LOADBE(p, 32), m3 = LOADBE(p, 48);
    __m128i n0 = LOADBE(q, 0), n1 = LOADBE(q, 16), n2 = LOADBE(q, 32), n3 = LOADBE(q, 48);

#    define QR2(x, y, i)                                                                           \
        do {                                                                                       \
            __m128i kv = KVEC(i);                                                                  \
            QROUNDS(a0, c0, _mm_add_epi32((x), kv));                                               \
            QROUNDS(a1, c1, _mm_add_epi32((y), kv));                                               \
        } while (0)
    QR2(m0, n0, 0);
    QR2(m1, n1, 4);
    QR2(m2, n2, 8);
    QR2(m3, n3, 12);
    for (int i = 16; i < 64; i += 16) {
        SCHEDULE(m0, m1, m2, m3);
        SCHEDULE(n0, n1, n2, n3);
        QR2(m0, n0, i);
        SCHEDULE(m1, m2, m3, m0);
        SCHEDULE(n1, n2, n3, n0);
        QR2(m1, n1, i + 4);
        SCHEDULE(m2, m3, m0, m1);
        SCHEDULE(n2, n3, n0, n1);
        QR2(m2, n2, i + 8);
        SCHEDULE(m3, m0, m1, m2);
        SCHEDULE(n3, n0, n1, n2);
        QR2(m3, n3, i + 12);
    }
#    undef QR2
    st[0] = _mm_add_epi32(a0, st[0]);
    st[1] = _mm_add_epi32(c0, st[1]);
    st[2] = _mm_add_epi32(a1, st[2]);
    st[3] = _mm_add_epi32(c1, st[3]);
}

/* The padding block of a 64-byte message, from its precomputed W + K. */
SHANI_TARGET __attribute__((always_inline)) static inline void shani_pad64(__m128i *abef_io,
                                                                           __m128i *cdgh_io)
{
    __m128i abef = *abef_io, cdgh = *cdgh_io;
    for (int i = 0; i < 64; i += 4) {
        QROUNDS(abef, cdgh, _mm_load_si128((const __m128i *)(const void *)&sha256_pad64_wk[i]));
    }
    *abef_io = _mm_add_epi32(abef, *abef_io);
    *cdgh_io = _mm_add_epi32(cdgh, *cdgh_io);
}

/* Big-endian digest bytes from the state. */
SHANI_TARGET __attribute__((always_inline)) static inline void
shani_digest(uint8_t out[32], __m128i abef, __m128i cdgh)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i abef_rev = _mm_shuffle_epi32(abef, 0x1b); /* [A,B,E,F] */
    __m128i cdgh_swp = _mm_shuffle_epi32(cdgh, 0xb1); /* [G,H,C,D] */
    __m128i abcd = _mm_blend_epi16(abef_rev, cdgh_swp, 0xf0);
    __m128i efgh = _mm_alignr_epi8(cdgh_swp, abef_rev, 8);
    _mm_storeu_si128((__m128i *)(void *)out, _mm_shuffle_epi8(abcd, bswap));
    _mm_storeu_si128((__m128i *)(void *)(out + 16), _mm_shuffle_epi8(efgh, bswap));
}

SHANI_TARGET static void compress_shani(uint32_t st[8], const uint8_t *p, size_t nblocks)
{
    __m128i abef, cdgh;

    shani_load_state(st, &abef, &cdgh);
    for (; nblocks; nblocks--, p += SHA256_BLOCK_BYTES) {
        shani_block(&abef, &cdgh, p);
    }
    shani_store_state(st, abef, cdgh);
}

SHANI_TARGET static void rounds_wk_shani(uint32_t st[8], const uint32_t wk[64])
{
    __m128i abef, cdgh;

    shani_load_state(st, &abef, &cdgh);
    __m128i abef0 = abef, cdgh0 = cdgh;
    for (int i = 0; i < 64; i += 4) {
        QROUNDS(abef, cdgh, _mm_loadu_si128((const __m128i *)(const void *)&wk[i]));
    }
    shani_store_state(st, _mm_add_epi32(abef, abef0), _mm_add_epi32(cdgh, cdgh0));
}

SHANI_TARGET static void sha64_shani(uint8_t *out, const uint8_t *in, size_t n, uint8_t mask)
{
    __m128i iv_abef, iv_cdgh, st[4];
    size_t i = 0;

    shani_load_state(SHA256_IV, &iv_abef, &iv_cdgh);
    for (; i + 2 <= n; i += 2) {
        st[0] = st[2] = iv_abef;
        st[1] = st[3] = iv_cdgh;
        shani_block_x2(st, in + 64 * i, in + 64 * (i + 1)); /* reads all 128 bytes first */
        shani_pad64(&st[0], &st[1]);
        shani_pad64(&st[2], &st[3]);
        shani_digest(out + 32 * i, st[0], st[1]);
        shani_digest(out + 32 * (i + 1), st[2], st[3]);
        out[32 * i + 31] &= mask;
        out[32 * (i + 1) + 31] &= mask;
    }
    if (i < n) {
        st[0] = iv_abef;
        st[1] = iv_cdgh;
        shani_block(&st[0], &st[1], in + 64 * i);
        shani_pad64(&st[0], &st[1]);
        shani_digest(out + 32 * i, st[0], st[1]);
        out[32 * i + 31] &= mask;
    }
}

void sha256_64_shani(uint8_t *out, const uint8_t *in, size_t n, uint8_t last_byte_mask)
{
    CZ_CHECK(sha256_has_shani());
    sha64_shani(out, in, n, last_byte_mask);
}

void sha256_compress_shani(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    CZ_CHECK(sha256_has_shani());
    compress_shani(state, blocks, nblocks);
}

void sha256_rounds_wk_shani(uint32_t state[8], const uint32_t wk[64])
{
    rounds_wk_shani(state, wk);
}

#else /* not x86: the entry points exist but must never be reached */

void sha256_compress_shani(uint32_t state[8], const uint8_t *blocks, size_t nblocks)
{
    (void)state;
    (void)blocks;
    (void)nblocks;
    CZ_CHECK(sha256_has_shani());
}

void sha256_rounds_wk_shani(uint32_t state[8], const uint32_t wk[64])
{
    (void)state;
    (void)wk;
    CZ_CHECK(sha256_has_shani());
}

void sha256_64_shani(uint8_t *out, const uint8_t *in, size_t n, uint8_t last_byte_mask)
{
    (void)out;
    (void)in;
    (void)n;
    (void)last_byte_mask;
    CZ_CHECK(sha256_has_shani());
}

#endif
