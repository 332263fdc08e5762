/* test_fp12.c - Fp6 and Fp12: known answers from @noble/curves 2.4.0
 * (tests/vectors/field/fp12_vectors.h: mul, sqr, inv, Frobenius), Frobenius against the generic
 * power a^p, a^(p^2), a^(p^3), tower laws, the sparse and cyclotomic shortcuts against the
 * general multiplication and squaring.
 */
#include "field_test_util.h"
#include "vectors/field/fp12_vectors.h"

static void hex_fp12(fp12_t *out, const char *hex)
{
    uint8_t b[576];
    fp_t *coef[12] = {&out->c0.c0.c0, &out->c0.c0.c1, &out->c0.c1.c0, &out->c0.c1.c1,
                      &out->c0.c2.c0, &out->c0.c2.c1, &out->c1.c0.c0, &out->c1.c0.c1,
                      &out->c1.c1.c0, &out->c1.c1.c1, &out->c1.c2.c0, &out->c1.c2.c1};
    hex_bytes(b, sizeof(b), hex);
    for (size_t i = 0; i < 12; i++) {
        CHECK_OK(fp_from_bytes(coef[i], b + FP_NBYTES * i));
    }
}

static void check_fp12_hex(const fp12_t *got, const char *hex, size_t idx)
{
    uint8_t want[576], have[576];
    hex_bytes(want, sizeof(want), hex);
    fp12_to_bytes(have, got);
    CHECK_MSG(memcmp(want, have, sizeof(want)) == 0, "vector %zu differs", idx);
}

TEST(fp12_kat)
{
    FOR_EACH_KERNEL({
        for (size_t i = 0; i < ARRAY_LEN(fp12_mul_vectors); i++) {
            fp12_t a, b, got;
            hex_fp12(&a, fp12_mul_vectors[i].a);
            hex_fp12(&b, fp12_mul_vectors[i].b);
            fp12_mul(&got, &a, &b);
            check_fp12_hex(&got, fp12_mul_vectors[i].out, i);
            fp12_mul(&a, &a, &b);
            check_fp12_hex(&a, fp12_mul_vectors[i].out, i);
        }
        for (size_t i = 0; i < ARRAY_LEN(fp12_sqr_vectors); i++) {
            fp12_t a, got;
            hex_fp12(&a, fp12_sqr_vectors[i].a);
            fp12_sqr(&got, &a);
            check_fp12_hex(&got, fp12_sqr_vectors[i].out, i);
        }
        for (size_t i = 0; i < ARRAY_LEN(fp12_inv_vectors); i++) {
            fp12_t a, got;
            hex_fp12(&a, fp12_inv_vectors[i].a);
            fp12_inv(&got, &a);
            check_fp12_hex(&got, fp12_inv_vectors[i].out, i);
            fp12_inv(&a, &a);
            check_fp12_hex(&a, fp12_inv_vectors[i].out, i);
        }
    });
    for (size_t i = 0; i < ARRAY_LEN(fp12_frobenius_vectors); i++) {
        fp12_t a, got;
        hex_fp12(&a, fp12_frobenius_vectors[i].a);
        fp12_frobenius(&got, &a, fp12_frobenius_vectors[i].k);
        check_fp12_hex(&got, fp12_frobenius_vectors[i].out, i);
        fp12_frobenius(&a, &a, fp12_frobenius_vectors[i].k);
        check_fp12_hex(&a, fp12_frobenius_vectors[i].out, i);
    }
}

/* out = a * b for n-limb a, b (2n limbs out) */
static void mul_limbs(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b, size_t nb)
{
    memset(out, 0, (na + nb) * sizeof(uint64_t));
    for (size_t i = 0; i < na; i++) {
        uint64_t c = 0;
        for (size_t j = 0; j < nb; j++) {
            cz_u128 x = (cz_u128)a[i] * b[j] + out[i + j] + c;
            out[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        out[i + nb] = c;
    }
}

TEST(fp12_frobenius_is_power_of_p)
{
    uint64_t p2[12], p3[18];
    mul_limbs(p2, FP_MODULUS, 6, FP_MODULUS, 6);
    mul_limbs(p3, p2, 12, FP_MODULUS, 6);
    for (int i = 0; i < 3; i++) {
        fp12_t a, f, w;
        rand_fp12(&a);
        fp12_frobenius(&f, &a, 1);
        fp12_pow(&w, &a, FP_MODULUS, 6);
        CHECK(fp12_eq(&f, &w));
        fp12_frobenius(&f, &a, 2);
        fp12_pow(&w, &a, p2, 12);
        CHECK(fp12_eq(&f, &w));
        fp12_frobenius(&f, &a, 3);
        fp12_pow(&w, &a, p3, 18);
        CHECK(fp12_eq(&f, &w));
    }
    for (int i = 0; i < 20; i++) {
        fp12_t a, f, g;
        rand_fp12(&a);
        /* composition: frob^k = frob^1 applied k times, for k up to 12 (frob^12 = id, frob^6 =
         * conj) */
        g = a;
        for (unsigned k = 1; k <= 12; k++) {
            fp12_frobenius(&g, &g, 1);
            fp12_frobenius(&f, &a, k);
            CHECK_MSG(fp12_eq(&f, &g), "k = %u", k);
        }
        CHECK(fp12_eq(&g, &a));
        fp12_frobenius(&f, &a, 6);
        fp12_conj(&g, &a);
        CHECK(fp12_eq(&f, &g));
        fp12_frobenius(&f, &a, 0);
        CHECK(fp12_eq(&f, &a));
    }
}

TEST(fp6_laws)
{
    /* v^3 = xi */
    fp6_t v = FP6_ZERO, t, u;
    v.c1 = FP2_ONE;
    fp6_mul(&t, &v, &v);
    fp6_mul(&t, &t, &v);
    CHECK(fp2_eq(&t.c0, &(fp2_t){FP_ONE, FP_ONE}));
    CHECK(fp2_is_zero(&t.c1) && fp2_is_zero(&t.c2));
    fp6_inv(&t, &FP6_ZERO);
    CHECK(fp6_is_zero(&t));
    for (int i = 0; i < 300; i++) {
        fp6_t a, b, c, w;
        fp2_t s, s1;
        rand_fp6(&a);
        rand_fp6(&b);
        rand_fp6(&c);
        rand_fp2(&s);
        rand_fp2(&s1);
        /* schoolbook with v^3 = xi */
        fp2_t prod[5] = {FP2_ZERO, FP2_ZERO, FP2_ZERO, FP2_ZERO, FP2_ZERO};
        const fp2_t *ac[3] = {&a.c0, &a.c1, &a.c2}, *bc[3] = {&b.c0, &b.c1, &b.c2};
        for (int x = 0; x < 3; x++) {
            for (int y = 0; y < 3; y++) {
                fp2_t m;
                fp2_mul(&m, ac[x], bc[y]);
                fp2_add(&prod[x + y], &prod[x + y], &m);
            }
        }
        fp2_mul_by_nonresidue(&prod[3], &prod[3]);
        fp2_mul_by_nonresidue(&prod[4], &prod[4]);
        fp2_add(&w.c0, &prod[0], &prod[3]);
        fp2_add(&w.c1, &prod[1], &prod[4]);
        w.c2 = prod[2];
        fp6_mul(&t, &a, &b);
        CHECK(fp6_eq(&t, &w));
        /* commutative, associative, distributive */
        fp6_mul(&u, &b, &a);
        CHECK(fp6_eq(&t, &u));
        fp6_mul(&t, &t, &c);
        fp6_mul(&u, &b, &c);
        fp6_mul(&u, &a, &u);
        CHECK(fp6_eq(&t, &u));
        fp6_add(&t, &b, &c);
        fp6_mul(&t, &a, &t);
        fp6_mul(&u, &a, &b);
        fp6_mul(&w, &a, &c);
        fp6_add(&u, &u, &w);
        CHECK(fp6_eq(&t, &u));
        fp6_sub(&t, &a, &b);
        fp6_add(&t, &t, &b);
        CHECK(fp6_eq(&t, &a));
        fp6_neg(&t, &a);
        fp6_add(&t, &t, &a);
        CHECK(fp6_is_zero(&t));
        /* sqr, mul by v, sparse products */
        fp6_sqr(&t, &a);
        fp6_mul(&u, &a, &a);
        CHECK(fp6_eq(&t, &u));
        fp6_mul_by_nonresidue(&t, &a);
        fp6_mul(&u, &a, &v);
        CHECK(fp6_eq(&t, &u));
        fp6_t sp = FP6_ZERO;
        sp.c0 = s;
        fp6_mul_by_fp2(&t, &a, &s);
        fp6_mul(&u, &a, &sp);
        CHECK(fp6_eq(&t, &u));
        sp.c1 = s1;
        fp6_mul_by_01(&t, &a, &s, &s1);
        fp6_mul(&u, &a, &sp);
        CHECK(fp6_eq(&t, &u));
        sp.c0 = FP2_ZERO;
        fp6_mul_by_1(&t, &a, &s1);
        fp6_mul(&u, &a, &sp);
        CHECK(fp6_eq(&t, &u));
        /* inverse */
        fp6_inv(&t, &a);
        fp6_mul(&t, &t, &a);
        CHECK(fp6_is_zero(&a) ? fp6_is_zero(&t) : fp6_eq(&t, &FP6_ONE));
    }
}

TEST(fp12_laws)
{
    fp12_t t, u;
    fp12_inv(&t, &(fp12_t){FP6_ZERO, FP6_ZERO});
    CHECK(fp6_is_zero(&t.c0) && fp6_is_zero(&t.c1));
    for (int i = 0; i < 100; i++) {
        fp12_t a, b, c, w;
        rand_fp12(&a);
        rand_fp12(&b);
        rand_fp12(&c);
        fp12_mul(&t, &a, &b);
        fp12_mul(&u, &b, &a);
        CHECK(fp12_eq(&t, &u));
        fp12_mul(&t, &t, &c);
        fp12_mul(&u, &b, &c);
        fp12_mul(&u, &a, &u);
        CHECK(fp12_eq(&t, &u));
        fp12_add(&t, &b, &c);
        fp12_mul(&t, &a, &t);
        fp12_mul(&u, &a, &b);
        fp12_mul(&w, &a, &c);
        fp12_add(&u, &u, &w);
        CHECK(fp12_eq(&t, &u));
        fp12_sub(&t, &u, &w);
        fp12_mul(&u, &a, &b);
        CHECK(fp12_eq(&t, &u));
        /* w^2 = v: (a0 + a1 w)(b0 + b1 w) from the definition */
        fp6_t x, y;
        fp6_mul(&x, &a.c0, &b.c0);
        fp6_mul(&y, &a.c1, &b.c1);
        fp6_mul_by_nonresidue(&y, &y);
        fp6_add(&w.c0, &x, &y);
        fp6_mul(&x, &a.c0, &b.c1);
        fp6_mul(&y, &a.c1, &b.c0);
        fp6_add(&w.c1, &x, &y);
        fp12_mul(&t, &a, &b);
        CHECK(fp12_eq(&t, &w));
        fp12_sqr(&t, &a);
        fp12_mul(&u, &a, &a);
        CHECK(fp12_eq(&t, &u));
        fp12_inv(&t, &a);
        fp12_mul(&t, &t, &a);
        CHECK(fp12_is_one(&t));
        /* sparse 014 product */
        fp2_t s0, s1, s4;
        rand_fp2(&s0);
        rand_fp2(&s1);
        rand_fp2(&s4);
        fp12_t sp = {FP6_ZERO, FP6_ZERO};
        sp.c0.c0 = s0;
        sp.c0.c1 = s1;
        sp.c1.c1 = s4;
        fp12_mul_by_014(&t, &a, &s0, &s1, &s4);
        fp12_mul(&u, &a, &sp);
        CHECK(fp12_eq(&t, &u));
        fp12_mul_by_014(&a, &a, &s0, &s1, &s4);
        CHECK(fp12_eq(&a, &u));
        /* pow: a^e by repeated multiplication */
        uint64_t e = cz_prng_below(test_prng(), 40);
        fp12_t acc = FP12_ONE;
        for (uint64_t k = 0; k < e; k++) {
            fp12_mul(&acc, &acc, &b);
        }
        fp12_pow(&t, &b, &e, 1);
        CHECK(fp12_eq(&t, &acc));
    }
}

TEST(fp12_cyclotomic_sqr)
{
    for (int i = 0; i < 50; i++) {
        fp12_t a, f, t, u;
        rand_fp12(&a);
        /* f = a^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic subgroup */
        fp12_conj(&t, &a);
        fp12_inv(&u, &a);
        fp12_mul(&t, &t, &u);
        fp12_frobenius(&f, &t, 2);
        fp12_mul(&f, &f, &t);
        /* there, conj is the inverse */
        fp12_conj(&t, &f);
        fp12_mul(&t, &t, &f);
        CHECK(fp12_is_one(&t));
        for (int k = 0; k < 4; k++) {
            fp12_cyclotomic_sqr(&t, &f);
            fp12_sqr(&u, &f);
            CHECK(fp12_eq(&t, &u));
            fp12_cyclotomic_sqr(&f, &f);
            CHECK(fp12_eq(&f, &u));
        }
    }
}

TEST(fp12_to_bytes_layout)
{
    fp12_t a;
    uint8_t b[576];
    fp_t *coef[12] = {&a.c0.c0.c0, &a.c0.c0.c1, &a.c0.c1.c0, &a.c0.c1.c1, &a.c0.c2.c0, &a.c0.c2.c1,
                      &a.c1.c0.c0, &a.c1.c0.c1, &a.c1.c1.c0, &a.c1.c1.c1, &a.c1.c2.c0, &a.c1.c2.c1};
    for (size_t i = 0; i < 12; i++) {
        fp_from_u64(coef[i], 1000 + i);
    }
    fp12_to_bytes(b, &a);
    for (size_t i = 0; i < 12; i++) {
        uint8_t want[FP_NBYTES] = {0};
        want[FP_NBYTES - 2] = (uint8_t)((1000 + i) >> 8);
        want[FP_NBYTES - 1] = (uint8_t)(1000 + i);
        CHECK_MEM_EQ(b + FP_NBYTES * i, want, FP_NBYTES);
    }
}
