/* test_fp.c - Fp: known answers from @noble/curves 2.4.0 (tests/vectors/field/fp_vectors.h),
 * a naive bit-serial modular multiplication, ring laws on random and edge values, and the ADX
 * kernels against the portable ones. The tests Fp shares with Fr are field_tests_impl.h; this
 * file adds Fp's own (square roots, encodings, constants, the kernel dispatch).
 */
#include "field_test_util.h"
#include "vectors/field/fp_vectors.h"

#define NRAND 2000

/* Fp's laws beyond the shared ones: 0 - a = -a, half, one, and the sign of a against -a. */
static void fp_ring_laws_extra(const fp_t *a, const fp_t *b, const fp_t *c)
{
    fp_t t, u;
    (void)b;
    (void)c;
    fp_sub(&t, &FP_ZERO, a);
    fp_neg(&u, a);
    CHECK(fp_eq(&t, &u));
    fp_half(&t, a);
    fp_dbl(&t, &t);
    CHECK(fp_eq(&t, a));
    fp_mul(&t, a, &FP_ONE);
    CHECK(fp_eq(&t, a));
    /* sign: a is the larger of a, -a unless a = 0 */
    fp_neg(&t, a);
    if (!fp_is_zero(a)) {
        CHECK(fp_is_lexicographically_largest(a) != fp_is_lexicographically_largest(&t));
    } else {
        CHECK(!fp_is_lexicographically_largest(a));
    }
}

#define FE                 fp_t
#define FE_FN(suffix)      fp##suffix
#define FE_NLIMBS          FP_NLIMBS
#define FE_MODULUS         FP_MODULUS
#define FE_ONE             FP_ONE
#define FE_INV_EXP         FP_INV_EXP
#define HEX_FE             hex_fp
#define RAND_FE            rand_fp
#define FE_FROM_LIMBS      fp_from_limbs
#define FE_TO_LIMBS        fp_to_limbs
#define FE_RING_LAWS_EXTRA fp_ring_laws_extra
#include "field_tests_impl.h"

TEST(fp_kat_sqrt)
{
    FOR_EACH_KERNEL({
        for (size_t i = 0; i < ARRAY_LEN(fp_sqrt_vectors); i++) {
            const struct field_sqrt_vec *v = &fp_sqrt_vectors[i];
            fp_t a, root, got, neg;
            hex_fp(&a, v->a);
            CHECK_EQ_U64(fp_is_square(&a), v->is_square);
            CHECK_EQ_U64(fp_sqrt(&got, &a), v->is_square);
            if (v->is_square) {
                hex_fp(&root, v->root);
                fp_neg(&neg, &root);
                CHECK_MSG(fp_eq(&got, &root) || fp_eq(&got, &neg), "vector %zu", i);
            }
        }
    });
}

TEST(fp_kat_encoding)
{
    for (size_t i = 0; i < ARRAY_LEN(fp_enc_vectors); i++) {
        const struct field_enc_vec *v = &fp_enc_vectors[i];
        uint8_t want[FP_NBYTES], got[FP_NBYTES];
        uint64_t limbs[FP_NLIMBS] = {0}, back[FP_NLIMBS];
        fp_t a, b;
        /* value_be: big-endian hex of any length -> limbs, parsed digit by digit */
        size_t len = strlen(v->value_be);
        for (size_t d = 0; d < len; d++) {
            char c = v->value_be[len - 1 - d];
            uint64_t nib = (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
            limbs[d / 16] |= nib << (4 * (d % 16));
        }
        hex_bytes(want, sizeof(want), v->bytes);
        CHECK(fp_from_limbs(&a, limbs));
        fp_to_bytes(got, &a);
        CHECK_MEM_EQ(got, want, FP_NBYTES);
        CHECK_OK(fp_from_bytes(&b, want));
        CHECK(fp_eq(&a, &b));
        fp_to_limbs(back, &b);
        CHECK_MEM_EQ(back, limbs, sizeof(back));
    }
}

TEST(fp_decode_rejects_noncanonical)
{
    uint8_t b[FP_NBYTES];
    uint64_t v[FP_NLIMBS];
    fp_t a = FP_ONE;

    /* p itself, p + 1, p + 2^64, 2^381 - 1 (all flag-free values >= p) and all-ones */
    const uint64_t adds[] = {0, 1};
    for (size_t k = 0; k < ARRAY_LEN(adds); k++) {
        memcpy(v, FP_MODULUS, sizeof(v));
        v[0] += adds[k];
        for (size_t i = 0; i < FP_NLIMBS; i++) {
            cz_store_be64(b + 8 * (FP_NLIMBS - 1 - i), v[i]);
        }
        CHECK_ERR(fp_from_bytes(&a, b), CUZK_E_FORMAT);
        CHECK(!fp_from_limbs(&a, v));
    }
    memcpy(v, FP_MODULUS, sizeof(v));
    v[1] += 1;
    CHECK(!fp_from_limbs(&a, v));
    memset(b, 0xff, sizeof(b));
    CHECK_ERR(fp_from_bytes(&a, b), CUZK_E_FORMAT);
    b[0] = 0x1f; /* 2^381 - 1 */
    CHECK_ERR(fp_from_bytes(&a, b), CUZK_E_FORMAT);
    /* random values at or above p */
    for (int i = 0; i < 200; i++) {
        cz_prng_bytes(test_prng(), b, sizeof(b));
        for (size_t j = 0; j < FP_NLIMBS; j++) {
            v[j] = cz_load_be64(b + 8 * (FP_NLIMBS - 1 - j));
        }
        CHECK_EQ_U64(fp_from_bytes(&a, b) == CUZK_OK, limbs_lt(v, FP_MODULUS, FP_NLIMBS));
    }
    /* p - 1 is accepted */
    memcpy(v, FP_MODULUS, sizeof(v));
    v[0] -= 1;
    for (size_t i = 0; i < FP_NLIMBS; i++) {
        cz_store_be64(b + 8 * (FP_NLIMBS - 1 - i), v[i]);
    }
    CHECK_OK(fp_from_bytes(&a, b));
    fp_t m1;
    fp_neg(&m1, &FP_ONE);
    CHECK(fp_eq(&a, &m1));
}

TEST(fp_constants)
{
    uint64_t v[FP_NLIMBS];
    fp_t t;
    /* FP_ONE is R mod p: its canonical value is 1 */
    fp_to_limbs(v, &FP_ONE);
    CHECK_EQ_U64(v[0], 1);
    for (size_t i = 1; i < FP_NLIMBS; i++) {
        CHECK_EQ_U64(v[i], 0);
    }
    /* -p^-1 mod 2^64 */
    CHECK_EQ_U64(FP_MODULUS[0] * FP_MONT_INV, ~0ULL);
    /* R^2 * R^-1 = R: multiplying R^2 by one (canonical 1) in Montgomery gives R */
    fp_from_u64(&t, 1);
    CHECK(fp_is_one(&t));
    fp_from_u64(&t, 0);
    CHECK(fp_is_zero(&t));
    CHECK(fp_is_zero(&FP_ZERO));
    CHECK(!fp_is_zero(&FP_ONE));
}

TEST(fp_inv_sqrt_pow_random)
{
    fp_t z;
    fp_inv(&z, &FP_ZERO);
    CHECK(fp_is_zero(&z));
    for (int i = 0; i < 200; i++) {
        fp_t a, t, s, sq;
        rand_fp(&a);
        fp_inv(&t, &a);
        fp_mul(&t, &t, &a);
        CHECK(fp_is_zero(&a) ? fp_is_zero(&t) : fp_is_one(&t));
        fp_sqr(&sq, &a);
        CHECK(fp_is_square(&sq));
        CHECK(fp_sqrt(&s, &sq));
        fp_sqr(&t, &s);
        CHECK(fp_eq(&t, &sq));
        /* -1 is a non-square (p = 3 mod 4), so -a^2 is one for a != 0 */
        fp_neg(&t, &sq);
        CHECK(fp_is_zero(&a) || (!fp_is_square(&t) && !fp_sqrt(&s, &t)));
        /* pow against repeated multiplication */
        uint64_t e = cz_prng_below(test_prng(), 300);
        fp_t acc = FP_ONE;
        for (uint64_t k = 0; k < e; k++) {
            fp_mul(&acc, &acc, &a);
        }
        fp_pow(&t, &a, &e, 1);
        CHECK(fp_eq(&t, &acc));
    }
}

#if defined(__x86_64__)
#    include <cpuid.h>
#endif

TEST(field_dispatch)
{
    /* the run-time choice against CPUID read here (leaf 7, EBX bits 8 = BMI2, 19 = ADX) */
    bool cpu_adx = false;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        cpu_adx = (b >> 8 & 1) && (b >> 19 & 1);
    }
#endif
    CHECK_EQ_U64(field_cpu_has_adx(), cpu_adx && FIELD_HAVE_ADX_KERNELS);
    CHECK_EQ_U64(field_using_adx(), field_cpu_has_adx());
    CHECK_STR_EQ(fp_impl_name(), field_cpu_has_adx() ? "adx" : "portable");
    field_force_portable(true);
    CHECK(!field_using_adx());
    CHECK_STR_EQ(fp_impl_name(), "portable");
    CHECK_STR_EQ(fr_impl_name(), "portable");
    field_force_portable(false);
    CHECK_EQ_U64(field_using_adx(), field_cpu_has_adx());
}
