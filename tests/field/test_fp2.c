/* test_fp2.c - Fp2: known answers from @noble/curves 2.4.0 (tests/vectors/field/fp2_vectors.h)
 * and field laws on random and edge values (inverse, square root, conjugation = Frobenius,
 * the non-residue 1 + u, the sign used by G2 compression).
 */
#include "field_test_util.h"
#include "vectors/field/fp2_vectors.h"

#define NRAND 1000

TEST(fp2_kat_mul_sqr_inv)
{
    FOR_EACH_KERNEL({
        for (size_t i = 0; i < ARRAY_LEN(fp2_mul_vectors); i++) {
            fp2_t a, b, want, got;
            hex_fp2(&a, fp2_mul_vectors[i].a);
            hex_fp2(&b, fp2_mul_vectors[i].b);
            hex_fp2(&want, fp2_mul_vectors[i].out);
            fp2_mul(&got, &a, &b);
            CHECK_MSG(fp2_eq(&got, &want), "mul vector %zu", i);
            fp2_mul(&a, &a, &b);
            CHECK(fp2_eq(&a, &want));
            hex_fp2(&a, fp2_mul_vectors[i].a);
            fp2_mul(&b, &a, &b);
            CHECK(fp2_eq(&b, &want));
        }
        for (size_t i = 0; i < ARRAY_LEN(fp2_sqr_vectors); i++) {
            fp2_t a, want, got;
            hex_fp2(&a, fp2_sqr_vectors[i].a);
            hex_fp2(&want, fp2_sqr_vectors[i].out);
            fp2_sqr(&got, &a);
            CHECK_MSG(fp2_eq(&got, &want), "sqr vector %zu", i);
            fp2_sqr(&a, &a);
            CHECK(fp2_eq(&a, &want));
        }
        for (size_t i = 0; i < ARRAY_LEN(fp2_inv_vectors); i++) {
            fp2_t a, want, got;
            hex_fp2(&a, fp2_inv_vectors[i].a);
            hex_fp2(&want, fp2_inv_vectors[i].out);
            fp2_inv(&got, &a);
            CHECK_MSG(fp2_eq(&got, &want), "inv vector %zu", i);
            fp2_inv(&a, &a);
            CHECK(fp2_eq(&a, &want));
        }
    });
}

TEST(fp2_kat_sqrt)
{
    unsigned yes = 0, no = 0;
    for (size_t i = 0; i < ARRAY_LEN(fp2_sqrt_vectors); i++) {
        const struct field_sqrt_vec *v = &fp2_sqrt_vectors[i];
        fp2_t a, root, neg, got;
        hex_fp2(&a, v->a);
        CHECK_EQ_U64(fp2_sqrt(&got, &a), v->is_square);
        if (v->is_square) {
            hex_fp2(&root, v->root);
            fp2_neg(&neg, &root);
            CHECK_MSG(fp2_eq(&got, &root) || fp2_eq(&got, &neg), "vector %zu", i);
            yes++;
        } else {
            no++;
        }
    }
    CHECK(yes > 0 && no > 0);
}

TEST(fp2_laws)
{
    fp2_t i_unit = {{{0}}, FP_ONE}, m1;
    fp2_t t, u;

    /* u^2 = -1 */
    fp2_sqr(&t, &i_unit);
    fp2_neg(&m1, &FP2_ONE);
    CHECK(fp2_eq(&t, &m1));
    fp2_inv(&t, &FP2_ZERO);
    CHECK(fp2_is_zero(&t));
    for (int i = 0; i < NRAND; i++) {
        fp2_t a, b, c, v;
        fp_t s;
        rand_fp2(&a);
        rand_fp2(&b);
        rand_fp2(&c);
        rand_fp(&s);
        /* (ab)c = a(bc), a(b + c) = ab + ac, ab = ba */
        fp2_mul(&t, &a, &b);
        fp2_mul(&u, &b, &a);
        CHECK(fp2_eq(&t, &u));
        fp2_mul(&t, &t, &c);
        fp2_mul(&u, &b, &c);
        fp2_mul(&u, &a, &u);
        CHECK(fp2_eq(&t, &u));
        fp2_add(&t, &b, &c);
        fp2_mul(&t, &a, &t);
        fp2_mul(&u, &a, &b);
        fp2_mul(&v, &a, &c);
        fp2_add(&u, &u, &v);
        CHECK(fp2_eq(&t, &u));
        /* schoolbook product from the definition u^2 = -1 */
        fp_t x0, x1, y;
        fp_mul(&x0, &a.c0, &b.c0);
        fp_mul(&y, &a.c1, &b.c1);
        fp_sub(&x0, &x0, &y);
        fp_mul(&x1, &a.c0, &b.c1);
        fp_mul(&y, &a.c1, &b.c0);
        fp_add(&x1, &x1, &y);
        fp2_mul(&t, &a, &b);
        CHECK(fp_eq(&t.c0, &x0) && fp_eq(&t.c1, &x1));
        /* sub, neg, dbl, sqr */
        fp2_sub(&t, &a, &b);
        fp2_add(&t, &t, &b);
        CHECK(fp2_eq(&t, &a));
        fp2_neg(&t, &a);
        fp2_add(&t, &t, &a);
        CHECK(fp2_is_zero(&t));
        fp2_dbl(&t, &a);
        fp2_add(&u, &a, &a);
        CHECK(fp2_eq(&t, &u));
        fp2_sqr(&t, &a);
        fp2_mul(&u, &a, &a);
        CHECK(fp2_eq(&t, &u));
        /* mul_fp, mul_by_nonresidue */
        fp2_t sf = {s, {{0}}};
        fp2_mul_fp(&t, &a, &s);
        fp2_mul(&u, &a, &sf);
        CHECK(fp2_eq(&t, &u));
        fp2_t xi = {FP_ONE, FP_ONE};
        fp2_mul_by_nonresidue(&t, &a);
        fp2_mul(&u, &a, &xi);
        CHECK(fp2_eq(&t, &u));
        /* inverse */
        fp2_inv(&t, &a);
        fp2_mul(&t, &t, &a);
        CHECK(fp2_is_zero(&a) ? fp2_is_zero(&t) : fp2_eq(&t, &FP2_ONE));
        /* sqrt of a square */
        fp2_sqr(&u, &a);
        CHECK(fp2_sqrt(&t, &u));
        fp2_sqr(&t, &t);
        CHECK(fp2_eq(&t, &u));
        /* sign: exactly one of a, -a is "largest" unless a = 0 */
        fp2_neg(&t, &a);
        if (!fp2_is_zero(&a)) {
            CHECK(fp2_is_lexicographically_largest(&a) != fp2_is_lexicographically_largest(&t));
        }
    }
}

TEST(fp2_sqrt_special)
{
    /* elements of Fp embedded in Fp2 are all squares in Fp2; -1 has root u; non-squares of Fp
     * have roots of the form c * u */
    for (int i = 0; i < 200; i++) {
        fp2_t a = FP2_ZERO, s, t;
        rand_fp(&a.c0);
        CHECK(fp2_sqrt(&s, &a));
        fp2_sqr(&t, &s);
        CHECK(fp2_eq(&t, &a));
        /* pure imaginary c * u */
        a.c1 = a.c0;
        a.c0 = FP_ZERO;
        CHECK(fp2_sqrt(&s, &a));
        fp2_sqr(&t, &s);
        CHECK(fp2_eq(&t, &a));
    }
    fp2_t m1, s, t;
    fp2_neg(&m1, &FP2_ONE);
    CHECK(fp2_sqrt(&s, &m1));
    fp2_sqr(&t, &s);
    CHECK(fp2_eq(&t, &m1));
    CHECK(fp2_sqrt(&s, &FP2_ZERO));
    CHECK(fp2_is_zero(&s));
    /* a square times a non-square (the non-residue 1 + u of the tower) is a non-square */
    fp2_t xi = {FP_ONE, FP_ONE};
    CHECK(!fp2_sqrt(&s, &xi));
    for (int i = 0; i < 100; i++) {
        fp2_t a;
        rand_fp2(&a);
        if (fp2_is_zero(&a)) {
            continue;
        }
        fp2_sqr(&a, &a);
        fp2_mul(&a, &a, &xi);
        CHECK(!fp2_sqrt(&s, &a));
    }
}

TEST(fp2_frobenius_is_conj)
{
    /* a^p = conj(a): checked with the generic power */
    for (int i = 0; i < 20; i++) {
        fp2_t a, t, u;
        rand_fp2(&a);
        fp2_pow(&t, &a, FP_MODULUS, FP_NLIMBS);
        fp2_conj(&u, &a);
        CHECK(fp2_eq(&t, &u));
    }
}

TEST(fp2_pow_multi_limb)
{
    for (int i = 0; i < 30; i++) {
        fp2_t a, want = FP2_ONE, got;
        uint64_t e[4];
        for (size_t j = 0; j < 4; j++) {
            e[j] = cz_prng_u64(test_prng());
        }
        rand_fp2(&a);
        for (size_t j = 4; j-- > 0;) {
            for (int bit = 63; bit >= 0; bit--) {
                fp2_mul(&want, &want, &want);
                if ((e[j] >> bit) & 1) {
                    fp2_mul(&want, &want, &a);
                }
            }
        }
        fp2_pow(&got, &a, e, 4);
        CHECK(fp2_eq(&got, &want));
    }
}
