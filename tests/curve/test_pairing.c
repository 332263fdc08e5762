/* test_pairing.c - the optimal ate pairing: known answers e([a]G1, [b]G2) from @noble/curves
 * 2.4.0 (tests/vectors/curve/pairing_vectors.h), the final exponentiation against a plain power
 * by 3 (p^12 - 1) / r, bilinearity, non-degeneracy, the order of GT, multi-Miller loops against
 * products of single loops, and pairing_product_is_one on true and false equations.
 */
#include "harness/test.h"

#include "curve/pairing.h"
#include "curve_util.h"
#include "field/fp12.h"
#include "vectors/curve/cofactor_vectors.h"
#include "vectors/curve/pairing_vectors.h"

static void fr_repr_from_le(fr_repr_t *out, const uint8_t k[32])
{
    for (size_t i = 0; i < 4; i++) {
        out->l[i] = 0;
        for (size_t j = 0; j < 8; j++) {
            out->l[i] |= (uint64_t)k[8 * i + j] << (8 * j);
        }
    }
}

static void check_fp12_eq(const fp12_t *a, const fp12_t *b)
{
    uint8_t x[576], y[576];
    fp12_to_bytes(x, a);
    fp12_to_bytes(y, b);
    CHECK_MEM_EQ(x, y, 576);
}

static void rand_g1_aff(cz_prng *g, g1_aff_t *out)
{
    g1_t p;
    rand_g1(g, &p);
    g1_to_aff(out, &p);
}

static void rand_g2_aff(cz_prng *g, g2_aff_t *out)
{
    g2_t p;
    rand_g2(g, &p);
    g2_to_aff(out, &p);
}

static void g1_aff_mul(g1_aff_t *out, const g1_aff_t *p, const fr_t *k)
{
    g1_t t;
    g1_from_aff(&t, p);
    g1_mul_fr(&t, &t, k);
    g1_to_aff(out, &t);
}

static void g2_aff_mul(g2_aff_t *out, const g2_aff_t *p, const fr_t *k)
{
    g2_t t;
    g2_from_aff(&t, p);
    g2_mul_fr(&t, &t, k);
    g2_to_aff(out, &t);
}

TEST(pairing_kat)
{
    for (size_t i = 0; i < ARRAY_LEN(pairing_vectors); i++) {
        const struct pairing_vector *v = &pairing_vectors[i];
        g1_aff_t p, pa;
        g2_aff_t q, qa;
        g1_t t1;
        g2_t t2;
        fr_repr_t a, b;
        fp12_t e;
        uint8_t out[576];

        /* the inputs are [a] G1 and [b] G2 */
        CHECK_OK(g1_aff_from_compressed(&p, v->p, true));
        CHECK_OK(g2_aff_from_compressed(&q, v->q, true));
        fr_repr_from_le(&a, v->a);
        fr_repr_from_le(&b, v->b);
        g1_from_aff(&t1, &G1_GEN);
        g1_mul(&t1, &t1, &a);
        g1_to_aff(&pa, &t1);
        CHECK(g1_aff_eq(&pa, &p));
        g2_from_aff(&t2, &G2_GEN);
        g2_mul(&t2, &t2, &b);
        g2_to_aff(&qa, &t2);
        CHECK(g2_aff_eq(&qa, &q));

        pairing(&e, &p, &q);
        fp12_to_bytes(out, &e);
        CHECK_MEM_EQ(out, v->e, 576);
    }
}

/* final_exp(f) = f^(3 (p^12 - 1) / r) by a plain square-and-multiply power. */
TEST(pairing_final_exp_is_the_power)
{
    cz_prng *g = test_prng();
    g1_aff_t p;
    g2_aff_t q;
    fp12_t f, a, b;

    rand_g1_aff(g, &p);
    rand_g2_aff(g, &q);
    pairing_miller_loop(&f, &p, &q, 1);
    pairing_final_exp(&a, &f);
    fp12_pow(&b, &f, PAIRING_FINAL_EXP_LIMBS, ARRAY_LEN(PAIRING_FINAL_EXP_LIMBS));
    check_fp12_eq(&a, &b);
    /* e^r = 1 and e != 1 */
    CHECK(!fp12_is_one(&a));
    fp12_pow(&b, &a, CURVE_R_LIMBS, 4);
    CHECK(fp12_is_one(&b));
}

TEST(pairing_identity_and_degenerate)
{
    g1_aff_t o1;
    g2_aff_t o2;
    fp12_t e;

    g1_aff_set_identity(&o1);
    g2_aff_set_identity(&o2);
    pairing(&e, &o1, &G2_GEN);
    CHECK(fp12_is_one(&e));
    pairing(&e, &G1_GEN, &o2);
    CHECK(fp12_is_one(&e));
    pairing_miller_loop(&e, &G1_GEN, &G2_GEN, 0);
    CHECK(fp12_is_one(&e));
    CHECK(pairing_product_is_one(&G1_GEN, &G2_GEN, 0));
    CHECK(pairing_product_is_one(&o1, &G2_GEN, 1));
    CHECK(!pairing_product_is_one(&G1_GEN, &G2_GEN, 1));
    pairing(&e, &G1_GEN, &G2_GEN);
    CHECK(!fp12_is_one(&e));
}

TEST(pairing_bilinearity)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 4; it++) {
        g1_aff_t p, ap, p2, ps;
        g2_aff_t q, bq, q2, qs;
        g1_t t1;
        g2_t t2;
        fr_t a, b, ab;
        fr_repr_t abr;
        fp12_t e, e1, e2;

        rand_g1_aff(g, &p);
        rand_g2_aff(g, &q);
        rand_fr(g, &a);
        rand_fr(g, &b);
        g1_aff_mul(&ap, &p, &a);
        g2_aff_mul(&bq, &q, &b);
        /* e([a]P, [b]Q) = e(P, Q)^(ab) */
        pairing(&e1, &ap, &bq);
        pairing(&e, &p, &q);
        fr_mul(&ab, &a, &b);
        fr_to_repr(&abr, &ab);
        fp12_pow(&e2, &e, abr.l, 4);
        check_fp12_eq(&e1, &e2);
        /* e(P + P2, Q) = e(P, Q) e(P2, Q) */
        rand_g1_aff(g, &p2);
        g1_from_aff(&t1, &p);
        g1_add_aff(&t1, &t1, &p2);
        g1_to_aff(&ps, &t1);
        pairing(&e1, &ps, &q);
        pairing(&e2, &p2, &q);
        fp12_mul(&e2, &e2, &e);
        check_fp12_eq(&e1, &e2);
        /* e(P, Q + Q2) = e(P, Q) e(P, Q2) */
        rand_g2_aff(g, &q2);
        g2_from_aff(&t2, &q);
        g2_add_aff(&t2, &t2, &q2);
        g2_to_aff(&qs, &t2);
        pairing(&e1, &p, &qs);
        pairing(&e2, &p, &q2);
        fp12_mul(&e2, &e2, &e);
        check_fp12_eq(&e1, &e2);
        /* e(-P, Q) = e(P, Q)^-1 = conj(e(P, Q)) */
        g1_aff_neg(&ps, &p);
        pairing(&e1, &ps, &q);
        fp12_conj(&e2, &e);
        check_fp12_eq(&e1, &e2);
    }
}

/* The multi-Miller loop (shared squarings, chunks of pairs, identity pairs skipped) equals the
 * product of single loops exactly. */
TEST(pairing_multi_miller_loop)
{
    cz_prng *g = test_prng();
    g1_aff_t p[11];
    g2_aff_t q[11];
    fp12_t f, prod = FP12_ONE, one;

    for (size_t i = 0; i < 11; i++) {
        rand_g1_aff(g, &p[i]);
        rand_g2_aff(g, &q[i]);
    }
    g1_aff_set_identity(&p[3]);
    g2_aff_set_identity(&q[9]);
    for (size_t i = 0; i < 11; i++) {
        pairing_miller_loop(&one, &p[i], &q[i], 1);
        fp12_mul(&prod, &prod, &one);
    }
    pairing_miller_loop(&f, p, q, 11);
    check_fp12_eq(&f, &prod);
}

TEST(pairing_product_is_one)
{
    cz_prng *g = test_prng();
    g1_aff_t p[12];
    g2_aff_t q[12];
    fr_t a;

    /* e([a]P, Q) e(-P, [a]Q) = 1 */
    rand_g1_aff(g, &p[1]);
    rand_g2_aff(g, &q[0]);
    rand_fr(g, &a);
    g1_aff_mul(&p[0], &p[1], &a);
    g2_aff_mul(&q[1], &q[0], &a);
    g1_aff_neg(&p[1], &p[1]);
    CHECK(pairing_product_is_one(p, q, 2));
    /* a different scalar breaks it */
    fr_add(&a, &a, &FR_ONE);
    g2_aff_mul(&q[1], &q[0], &a);
    CHECK(!pairing_product_is_one(p, q, 2));

    /* 6 such equations at once (12 pairs, more than one chunk), plus identity pairs */
    for (size_t i = 0; i < 12; i += 2) {
        rand_g1_aff(g, &p[i + 1]);
        rand_g2_aff(g, &q[i]);
        rand_fr(g, &a);
        g1_aff_mul(&p[i], &p[i + 1], &a);
        g2_aff_mul(&q[i + 1], &q[i], &a);
        g1_aff_neg(&p[i + 1], &p[i + 1]);
    }
    CHECK(pairing_product_is_one(p, q, 12));
    g1_aff_set_identity(&p[4]);
    g2_aff_set_identity(&q[5]); /* removes the whole 3rd equation */
    CHECK(pairing_product_is_one(p, q, 12));
    /* swapping two G2 points of different equations breaks it */
    {
        g2_aff_t t = q[0];
        q[0] = q[10];
        q[10] = t;
    }
    CHECK(!pairing_product_is_one(p, q, 12));
}
