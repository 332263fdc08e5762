/* test_fp.c - Fp: known answers from @noble/curves 2.4.0 (tests/vectors/field/fp_vectors.h),
 * a naive bit-serial modular multiplication, ring laws on random and edge values, and the ADX
 * kernels against the portable ones.
 */
#include "field_test_util.h"
#include "vectors/field/fp_vectors.h"

#define NRAND 2000

static void kat_bin(const struct field_vec2 *v, size_t n,
                    void (*op)(fp_t *, const fp_t *, const fp_t *))
{
    for (size_t i = 0; i < n; i++) {
        fp_t a, b, want, got;
        hex_fp(&a, v[i].a);
        hex_fp(&b, v[i].b);
        hex_fp(&want, v[i].out);
        op(&got, &a, &b);
        CHECK_MSG(fp_eq(&got, &want), "vector %zu", i);
        /* aliasing: out == a, out == b */
        got = a;
        op(&got, &got, &b);
        CHECK(fp_eq(&got, &want));
        got = b;
        op(&got, &a, &got);
        CHECK(fp_eq(&got, &want));
    }
}

static void kat_un(const struct field_vec1 *v, size_t n, void (*op)(fp_t *, const fp_t *))
{
    for (size_t i = 0; i < n; i++) {
        fp_t a, want, got;
        hex_fp(&a, v[i].a);
        hex_fp(&want, v[i].out);
        op(&got, &a);
        CHECK_MSG(fp_eq(&got, &want), "vector %zu", i);
        op(&a, &a);
        CHECK(fp_eq(&a, &want));
    }
}

TEST(fp_kat_add_sub_mul_sqr_inv)
{
    FOR_EACH_KERNEL({
        kat_bin(fp_add_vectors, ARRAY_LEN(fp_add_vectors), fp_add);
        kat_bin(fp_sub_vectors, ARRAY_LEN(fp_sub_vectors), fp_sub);
        kat_bin(fp_mul_vectors, ARRAY_LEN(fp_mul_vectors), fp_mul);
        kat_un(fp_sqr_vectors, ARRAY_LEN(fp_sqr_vectors), fp_sqr);
        kat_un(fp_inv_vectors, ARRAY_LEN(fp_inv_vectors), fp_inv);
    });
}

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

TEST(fp_mul_vs_naive)
{
    FOR_EACH_KERNEL({
        for (int i = 0; i < 300; i++) {
            uint64_t a[FP_NLIMBS], b[FP_NLIMBS], want[FP_NLIMBS], got[FP_NLIMBS];
            fp_t x, y, z;
            rand_edge_below(a, FP_MODULUS, FP_NLIMBS);
            rand_edge_below(b, FP_MODULUS, FP_NLIMBS);
            naive_mulmod(want, a, b, FP_MODULUS, FP_NLIMBS);
            CHECK(fp_from_limbs(&x, a));
            CHECK(fp_from_limbs(&y, b));
            fp_mul(&z, &x, &y);
            fp_to_limbs(got, &z);
            CHECK_MEM_EQ(got, want, sizeof(got));
            naive_mulmod(want, a, a, FP_MODULUS, FP_NLIMBS);
            fp_sqr(&z, &x);
            fp_to_limbs(got, &z);
            CHECK_MEM_EQ(got, want, sizeof(got));
        }
    });
}

TEST(fp_ring_laws)
{
    FOR_EACH_KERNEL({
        for (int i = 0; i < NRAND; i++) {
            fp_t a, b, c, t, u, v;
            rand_fp(&a);
            rand_fp(&b);
            rand_fp(&c);
            /* commutativity, associativity, distributivity */
            fp_add(&t, &a, &b);
            fp_add(&u, &b, &a);
            CHECK(fp_eq(&t, &u));
            fp_mul(&t, &a, &b);
            fp_mul(&u, &b, &a);
            CHECK(fp_eq(&t, &u));
            fp_mul(&t, &t, &c);
            fp_mul(&u, &b, &c);
            fp_mul(&u, &a, &u);
            CHECK(fp_eq(&t, &u));
            fp_add(&t, &b, &c);
            fp_mul(&t, &a, &t);
            fp_mul(&u, &a, &b);
            fp_mul(&v, &a, &c);
            fp_add(&u, &u, &v);
            CHECK(fp_eq(&t, &u));
            /* (a - b) + b = a; a + (-a) = 0; dbl; half */
            fp_sub(&t, &a, &b);
            fp_add(&t, &t, &b);
            CHECK(fp_eq(&t, &a));
            fp_neg(&t, &a);
            fp_add(&t, &t, &a);
            CHECK(fp_is_zero(&t));
            fp_sub(&t, &FP_ZERO, &a);
            fp_neg(&u, &a);
            CHECK(fp_eq(&t, &u));
            fp_dbl(&t, &a);
            fp_add(&u, &a, &a);
            CHECK(fp_eq(&t, &u));
            fp_half(&t, &a);
            fp_dbl(&t, &t);
            CHECK(fp_eq(&t, &a));
            /* sqr and one */
            fp_sqr(&t, &a);
            fp_mul(&u, &a, &a);
            CHECK(fp_eq(&t, &u));
            fp_mul(&t, &a, &FP_ONE);
            CHECK(fp_eq(&t, &a));
            /* sign: a is the larger of a, -a unless a = 0 */
            fp_neg(&t, &a);
            if (!fp_is_zero(&a)) {
                CHECK(fp_is_lexicographically_largest(&a) != fp_is_lexicographically_largest(&t));
            } else {
                CHECK(!fp_is_lexicographically_largest(&a));
            }
        }
    });
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

TEST(fp_adx_matches_portable)
{
#if FIELD_HAVE_ADX_KERNELS
    if (!field_cpu_has_adx()) {
        test_skip("CPU lacks ADX/BMI2");
    }
    CHECK_STR_EQ(fp_impl_name(), "adx");
    for (int i = 0; i < 20000; i++) {
        uint64_t a[FP_NLIMBS], b[FP_NLIMBS], w[FP_NLIMBS], g[FP_NLIMBS];
        rand_edge_below(a, FP_MODULUS, FP_NLIMBS);
        rand_edge_below(b, FP_MODULUS, FP_NLIMBS);
        fp_mul_portable(w, a, b);
        fp_mul_adx(g, a, b);
        CHECK_MEM_EQ(g, w, sizeof(g));
        fp_sqr_portable(w, a);
        fp_sqr_adx(g, a);
        CHECK_MEM_EQ(g, w, sizeof(g));
        /* aliasing */
        memcpy(g, a, sizeof(g));
        fp_mul_adx(g, g, b);
        fp_mul_portable(w, a, b);
        CHECK_MEM_EQ(g, w, sizeof(g));
        memcpy(g, a, sizeof(g));
        fp_sqr_adx(g, g);
        fp_sqr_portable(w, a);
        CHECK_MEM_EQ(g, w, sizeof(g));
    }
#else
    test_skip("no ADX kernels in this build");
#endif
}

TEST(fp_addsub_matches_portable)
{
    /* fp_add/fp_sub (inline assembly on x86-64) against the portable C versions */
    for (int i = 0; i < 20000; i++) {
        fp_t a, b, got;
        uint64_t want[FP_NLIMBS];
        rand_edge_below(a.l, FP_MODULUS, FP_NLIMBS);
        rand_edge_below(b.l, FP_MODULUS, FP_NLIMBS);
        fp_add(&got, &a, &b);
        fp_add_portable(want, a.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        CHECK(limbs_lt(got.l, FP_MODULUS, FP_NLIMBS));
        fp_sub(&got, &a, &b);
        fp_sub_portable(want, a.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        CHECK(limbs_lt(got.l, FP_MODULUS, FP_NLIMBS));
        got = a;
        fp_sub(&got, &b, &got);
        fp_sub_portable(want, b.l, a.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        got = b;
        fp_add(&got, &got, &got);
        fp_add_portable(want, b.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
    }
    if (!FIELD_HAVE_X86_ADDSUB) {
        test_skip("no assembly add/sub in this build: compared the portable code with itself");
    }
}

/* out = a^e bit by bit (e: n limbs), the simplest square-and-multiply: the reference for
 * fp_pow's windowed path. */
static void naive_pow(fp_t *out, const fp_t *a, const uint64_t *e, size_t n)
{
    fp_t acc = FP_ONE;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fp_mul(&acc, &acc, &acc);
            if ((e[i] >> bit) & 1) {
                fp_mul(&acc, &acc, a);
            }
        }
    }
    *out = acc;
}

TEST(fp_inv_vs_fermat)
{
    /* safegcd inversion against a^(m-2) (Fermat), on random and edge values (and small powers
     * of two, whose divsteps runs are long), with both kernels */
    FOR_EACH_KERNEL({
        for (int i = 0; i < 400; i++) {
            fp_t a, want, got;
            if (i < 40) {
                fp_from_u64(&a, 1ULL << (i % 64));
                if (i >= 20) {
                    fp_neg(&a, &a);
                }
            } else {
                rand_fp(&a);
            }
            naive_pow(&want, &a, FP_INV_EXP, FP_NLIMBS);
            fp_inv(&got, &a);
            CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
            got = a;
            fp_inv(&got, &got);
            CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
        }
    });
}

TEST(fp_pow_multi_limb)
{
    for (int i = 0; i < 50; i++) {
        fp_t a, want, got;
        uint64_t e[FP_NLIMBS + 1];
        size_t n = 1 + cz_prng_below(test_prng(), FP_NLIMBS + 1);
        rand_fp(&a);
        for (size_t j = 0; j < n; j++) {
            e[j] = cz_prng_u64(test_prng());
        }
        if (i % 5 == 0) {
            e[n - 1] = 0; /* leading zero limbs */
        }
        if (i % 7 == 0) {
            e[0] = 0;
        }
        naive_pow(&want, &a, e, n);
        fp_pow(&got, &a, e, n);
        CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
    }
    /* a^(m-1) = 1, a^0 = 1 */
    fp_t a, t;
    uint64_t m1[FP_NLIMBS];
    memcpy(m1, FP_MODULUS, sizeof(m1));
    m1[0] -= 1;
    do {
        rand_fp(&a);
    } while (fp_is_zero(&a));
    fp_pow(&t, &a, m1, FP_NLIMBS);
    CHECK(fp_is_one(&t));
    fp_pow(&t, &a, m1, 0);
    CHECK(fp_is_one(&t));
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
