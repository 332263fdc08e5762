/* test_blake2s.c - BLAKE2s-256 (src/hash/blake2.c) against RFC 7693 appendix B and against
 * node's crypto createHash('blake2s256') (tests/vectors/r1cs/blake2s_vectors.h). */
#include "harness/test.h"

#include "common/alloc.h"
#include "common/bytes.h"
#include "hash/blake2.h"
#include "vectors/r1cs/blake2s_vectors.h"

TEST(blake2s_rfc7693_abc)
{
    /* RFC 7693 appendix B: BLAKE2s-256("abc"). */
    static const uint8_t expect[32] = {0x50, 0x8C, 0x5E, 0x8C, 0x32, 0x7C, 0x14, 0xE2,
                                       0xE1, 0xA7, 0x2B, 0xA3, 0x4E, 0xEB, 0x45, 0x2F,
                                       0x37, 0x45, 0x8B, 0x20, 0x9E, 0xD6, 0x3A, 0x29,
                                       0x4D, 0x99, 0x9B, 0x4C, 0x86, 0x67, 0x59, 0x82};
    uint8_t out[32];
    blake2s(out, 32, "abc", 3);
    CHECK_MEM_EQ(out, expect, 32);
}

TEST(blake2s_node_vectors)
{
    for (size_t i = 0; i < ARRAY_LEN(blake2s_vectors); i++) {
        const struct blake2s_vector *v = &blake2s_vectors[i];
        size_t n = strlen(v->msg) / 2;
        uint8_t *msg = cz_malloc(n + 1);
        uint8_t expect[32], out[32];
        CHECK(msg);
        CHECK(cz_hex_decode(msg, n, v->msg));
        CHECK(cz_hex_decode(expect, 32, v->out));
        blake2s(out, 32, msg, n);
        CHECK_MSG(memcmp(out, expect, 32) == 0, "one-shot, length %zu", n);
        cz_free(msg);
    }
}

/* Feeding the same bytes in random pieces gives the one-shot digest. */
TEST(blake2s_incremental_splits)
{
    cz_prng *g = test_prng();
    const struct blake2s_vector *v = &blake2s_vectors[ARRAY_LEN(blake2s_vectors) - 1];
    size_t n = strlen(v->msg) / 2;
    uint8_t *msg = cz_malloc(n);
    uint8_t expect[32], out[32];
    CHECK(msg);
    CHECK(cz_hex_decode(msg, n, v->msg));
    CHECK(cz_hex_decode(expect, 32, v->out));
    for (int rep = 0; rep < 200; rep++) {
        blake2s_ctx_t s;
        blake2s_init(&s, 32);
        size_t off = 0;
        while (off < n) {
            size_t take = (size_t)cz_prng_below(g, 150);
            if (take > n - off) {
                take = n - off;
            }
            blake2s_update(&s, msg + off, take);
            off += take;
        }
        blake2s_final(&s, out);
        CHECK_MSG(memcmp(out, expect, 32) == 0, "rep %d", rep);
    }
    cz_free(msg);
}
