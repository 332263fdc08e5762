/* field_test_util.h - helpers shared by the field tests: hex vectors to elements, random
 * elements with edge values mixed in, and a naive (bit-serial) modular multiplication used as an
 * independent oracle for the Montgomery kernels.
 */
#ifndef CUZK_TESTS_FIELD_FIELD_TEST_UTIL_H
#define CUZK_TESTS_FIELD_FIELD_TEST_UTIL_H

#include "harness/test.h"
#include "common/bytes.h"
#include "field/bls12_381_consts.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "field/internal.h"

static inline void hex_bytes(uint8_t *out, size_t n, const char *hex)
{
    CHECK_MSG(strlen(hex) == 2 * n, "vector hex has %zu digits, want %zu", strlen(hex), 2 * n);
    CHECK(cz_hex_decode(out, n, hex));
}

static inline void hex_fp(fp_t *out, const char *hex)
{
    uint8_t b[FP_NBYTES];
    hex_bytes(b, sizeof(b), hex);
    CHECK_OK(fp_from_bytes(out, b));
}

static inline void hex_fr(fr_t *out, const char *hex)
{
    uint8_t b[FR_NBYTES];
    hex_bytes(b, sizeof(b), hex);
    CHECK_OK(fr_from_bytes(out, b));
}

static inline void hex_fp2(fp2_t *out, const char *hex)
{
    CHECK(strlen(hex) == 4 * FP_NBYTES);
    char half[2 * FP_NBYTES + 1];
    memcpy(half, hex, 2 * FP_NBYTES);
    half[2 * FP_NBYTES] = 0;
    hex_fp(&out->c0, half);
    hex_fp(&out->c1, hex + 2 * FP_NBYTES);
}

static inline void fp2_to_bytes_mem(uint8_t out[2 * FP_NBYTES], const fp2_t *a)
{
    fp_to_bytes(out, &a->c0);
    fp_to_bytes(out + FP_NBYTES, &a->c1);
}

/** Random canonical value below m (n limbs): rejection sampling on the bit length of m. */
static inline void rand_below(uint64_t *out, const uint64_t *m, size_t n)
{
    unsigned topbits = 64 - (unsigned)__builtin_clzll(m[n - 1]);
    uint64_t mask = topbits == 64 ? ~0ULL : ((1ULL << topbits) - 1);
    do {
        for (size_t i = 0; i < n; i++) {
            out[i] = cz_prng_u64(test_prng());
        }
        out[n - 1] &= mask;
    } while (!limbs_lt(out, m, n));
}

/** Canonical value: mostly uniform, sometimes an edge value (0, 1, 2, m-1, m-2, (m-1)/2,
 *  values with all-ones or all-zero limbs). */
static inline void rand_edge_below(uint64_t *out, const uint64_t *m, size_t n)
{
    uint64_t k = cz_prng_below(test_prng(), 16);
    memset(out, 0, n * sizeof(uint64_t));
    switch (k) {
    case 0:
        return;
    case 1:
        out[0] = 1;
        return;
    case 2:
        out[0] = 2;
        return;
    case 3:
        memcpy(out, m, n * sizeof(uint64_t));
        out[0] -= 1; /* m is odd */
        return;
    case 4:
        memcpy(out, m, n * sizeof(uint64_t));
        out[0] -= 2;
        return;
    case 5:
        /* (m-1)/2 */
        for (size_t i = 0; i < n; i++) {
            out[i] = (m[i] >> 1) | (i + 1 < n ? m[i + 1] << 63 : 0);
        }
        return;
    case 6:
        /* low limbs all ones, top limb zero */
        for (size_t i = 0; i + 1 < n; i++) {
            out[i] = ~0ULL;
        }
        return;
    case 7:
        /* only the top limb set, below m's */
        out[n - 1] = m[n - 1] - 1;
        return;
    default:
        rand_below(out, m, n);
        return;
    }
}

static inline void rand_fp(fp_t *out)
{
    uint64_t v[FP_NLIMBS];
    rand_edge_below(v, FP_MODULUS, FP_NLIMBS);
    CHECK(fp_from_limbs(out, v));
}

static inline void rand_fr(fr_t *out)
{
    fr_repr_t v;
    rand_edge_below(v.l, FR_MODULUS, FR_NLIMBS);
    CHECK(fr_from_repr(out, &v));
}

static inline void rand_fp2(fp2_t *out)
{
    rand_fp(&out->c0);
    rand_fp(&out->c1);
}

static inline void rand_fp6(fp6_t *out)
{
    rand_fp2(&out->c0);
    rand_fp2(&out->c1);
    rand_fp2(&out->c2);
}

static inline void rand_fp12(fp12_t *out)
{
    rand_fp6(&out->c0);
    rand_fp6(&out->c1);
}

/** Naive out = a * b mod m for canonical a, b (n <= 6 limbs): schoolbook product, then
 *  bit-serial reduction (shift in one bit, subtract m when the remainder reaches it). Slow and
 *  obviously correct: an oracle independent of Montgomery arithmetic. */
static inline void naive_mulmod(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                const uint64_t *m, size_t n)
{
    uint64_t prod[12] = {0}, rem[7] = {0}, mm[7] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t c = 0;
        for (size_t j = 0; j < n; j++) {
            cz_u128 x = (cz_u128)a[i] * b[j] + prod[i + j] + c;
            prod[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        prod[i + n] = c;
    }
    memcpy(mm, m, n * sizeof(uint64_t));
    for (size_t bit = 128 * n; bit-- > 0;) {
        /* rem = 2 rem + bit; rem < 2m fits in n+1 limbs */
        for (size_t i = n + 1; i-- > 1;) {
            rem[i] = (rem[i] << 1) | (rem[i - 1] >> 63);
        }
        rem[0] = (rem[0] << 1) | ((prod[bit / 64] >> (bit % 64)) & 1);
        if (!limbs_lt(rem, mm, n + 1)) {
            limbs_sub(rem, rem, mm, n + 1);
        }
    }
    memcpy(out, rem, n * sizeof(uint64_t));
}

/* Runs the statement block twice: with the best kernels (ADX where the CPU has it), then with
 * the portable ones forced; restores the best kernels afterwards. */
#define FOR_EACH_KERNEL(...)                                                                       \
    do {                                                                                           \
        for (int pass_ = 0; pass_ < 2; pass_++) {                                                  \
            field_force_portable(pass_ == 1);                                                      \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
        field_force_portable(false);                                                               \
    } while (0)

#endif /* CUZK_TESTS_FIELD_FIELD_TEST_UTIL_H */
