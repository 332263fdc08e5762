/* test_blake2.c - BLAKE2s-256 (src/hash/blake2.c) against RFC 7693 appendix B and against
 * node's crypto createHash('blake2s256') (tests/vectors/r1cs/blake2s_vectors.h); BLAKE2b, keyed
 * and unkeyed, against OpenSSL's libcrypto; the shared message schedule table against RFC 7693
 * section 2.7's description. */
#include "harness/test.h"

#include <openssl/evp.h>
#include <openssl/params.h>

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

/* ---- BLAKE2b ------------------------------------------------------------------------------ */

static void openssl_blake2b512(uint8_t out[64], const uint8_t *m, size_t len)
{
    unsigned olen = 0;
    CHECK(EVP_Digest(m, len, out, &olen, EVP_blake2b512(), NULL) == 1 && olen == 64);
}

/* Keyed BLAKE2b with any digest size through OpenSSL 3's BLAKE2BMAC. */
static void openssl_blake2b_mac(uint8_t *out, size_t outlen, const uint8_t *key, size_t keylen,
                                const uint8_t *m, size_t len)
{
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    EVP_MAC_CTX *ctx;
    size_t sz = outlen, got = 0;
    OSSL_PARAM params[2];

    CHECK(mac != NULL);
    ctx = EVP_MAC_CTX_new(mac);
    CHECK(ctx != NULL);
    params[0] = OSSL_PARAM_construct_size_t("size", &sz);
    params[1] = OSSL_PARAM_construct_end();
    CHECK(EVP_MAC_init(ctx, key, keylen, params) == 1);
    CHECK(EVP_MAC_update(ctx, m, len) == 1);
    CHECK(EVP_MAC_final(ctx, out, &got, outlen) == 1 && got == outlen);
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
}

TEST(blake2b_matches_openssl)
{
    uint8_t msg[600], a[64], b[64];
    cz_prng *g = test_prng();

    for (size_t len = 0; len <= 300; len += (len < 140 ? 1 : 37)) {
        cz_prng_bytes(g, msg, len);
        openssl_blake2b512(a, msg, len);
        blake2b(b, 64, NULL, 0, msg, len);
        CHECK_MEM_EQ(a, b, 64);
    }
    /* incremental feeding across block boundaries */
    blake2b_ctx_t s;
    cz_prng_bytes(g, msg, sizeof(msg));
    blake2b_init(&s, 64, NULL, 0);
    for (size_t off = 0, step = 1; off < sizeof(msg); off += step, step = step * 3 % 131 + 1) {
        size_t n = step < sizeof(msg) - off ? step : sizeof(msg) - off;
        blake2b_update(&s, msg + off, n);
    }
    blake2b_final(&s, b);
    openssl_blake2b512(a, msg, sizeof(msg));
    CHECK_MEM_EQ(a, b, 64);
}

TEST(blake2b_keyed_matches_openssl)
{
    uint8_t key[64], msg[300], a[64], b[64];
    cz_prng *g = test_prng();
    static const size_t keylens[] = {1, 16, 42, 43, 64};
    static const size_t outlens[] = {16, 32, 64};

    for (size_t k = 0; k < ARRAY_LEN(keylens); k++) {
        for (size_t o = 0; o < ARRAY_LEN(outlens); o++) {
            for (size_t len = 0; len <= 260; len += 65) {
                cz_prng_bytes(g, key, sizeof(key));
                cz_prng_bytes(g, msg, len);
                openssl_blake2b_mac(a, outlens[o], key, keylens[k], msg, len);
                blake2b(b, outlens[o], key, keylens[k], msg, len);
                CHECK_MEM_EQ(a, b, outlens[o]);
            }
        }
    }
}

/* blake2b_short is the one-block case of the incremental code, for every length it takes. */
TEST(blake2b_short_matches_blake2b)
{
    uint8_t msg[128], a[64], b[64];
    cz_prng *g = test_prng();
    static const size_t outlens[] = {1, 8, 32, 64};

    for (size_t o = 0; o < ARRAY_LEN(outlens); o++) {
        for (size_t len = 0; len <= 128; len++) {
            cz_prng_bytes(g, msg, len);
            blake2b(a, outlens[o], NULL, 0, msg, len);
            blake2b_short(b, outlens[o], msg, len);
            CHECK_MEM_EQ(a, b, outlens[o]);
        }
    }
}

/* ---- the message schedule ----------------------------------------------------------------- */

/* Every row is a permutation of 0..15, row 0 the identity, and BLAKE2b's rounds 10 and 11 reuse
 * rows 0 and 1 (RFC 7693 section 2.7: round i uses SIGMA[i mod 10]). */
TEST(blake2_sigma_rows)
{
    for (int r = 0; r < 12; r++) {
        unsigned seen = 0;
        for (int i = 0; i < 16; i++) {
            seen |= 1u << BLAKE2_SIGMA[r][i];
        }
        CHECK_EQ_U64(seen, 0xffff);
        CHECK_MEM_EQ(BLAKE2_SIGMA[r], BLAKE2_SIGMA[r % 10], 16);
    }
    for (int i = 0; i < 16; i++) {
        CHECK_EQ_U64(BLAKE2_SIGMA[0][i], (uint64_t)i);
    }
}
