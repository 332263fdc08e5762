/* test_g2.c - G2: known answers from @noble/curves 2.4.0 (tests/vectors/curve/g2_vectors.h),
 * the constants against the spec and re-derivations (b', the generator, psi's factors), psi's
 * characteristic equation, group laws, scalar multiplication against a naive double-and-add,
 * batch conversion, encodings (Fp2 as c1 || c0), and the psi-based subgroup test against the
 * plain [r]Q = O test on points inside and outside G2 (including points of every prime order
 * dividing the cofactor).
 */
#include "harness/test.h"

#include "curve/curve_consts.h"
#include "curve/g2.h"
#include "curve_util.h"
#include "field/bls12_381_consts.h"
#include "vectors/curve/cofactor_vectors.h"
#include "vectors/curve/g2_vectors.h"

/* spec groth16.md 1.2: x.c1 || x.c0 with the compression flag */
static const uint8_t SPEC_G2_GEN_COMPRESSED[96] = {
    0x93, 0xe0, 0x2b, 0x60, 0x52, 0x71, 0x9f, 0x60, 0x7d, 0xac, 0xd3, 0xa0, 0x88, 0x27, 0x4f, 0x65,
    0x59, 0x6b, 0xd0, 0xd0, 0x99, 0x20, 0xb6, 0x1a, 0xb5, 0xda, 0x61, 0xbb, 0xdc, 0x7f, 0x50, 0x49,
    0x33, 0x4c, 0xf1, 0x12, 0x13, 0x94, 0x5d, 0x57, 0xe5, 0xac, 0x7d, 0x05, 0x5d, 0x04, 0x2b, 0x7e,
    0x02, 0x4a, 0xa2, 0xb2, 0xf0, 0x8f, 0x0a, 0x91, 0x26, 0x08, 0x05, 0x27, 0x2d, 0xc5, 0x10, 0x51,
    0xc6, 0xe4, 0x7a, 0xd4, 0xfa, 0x40, 0x3b, 0x02, 0xb4, 0x51, 0x0b, 0x64, 0x7a, 0xe3, 0xd1, 0x77,
    0x0b, 0xac, 0x03, 0x26, 0xa8, 0x05, 0xbb, 0xef, 0xd4, 0x80, 0x56, 0xc8, 0xc1, 0x21, 0xbd, 0xb8};

/* The plain subgroup test: [r] Q == O. */
static bool g2_in_group_naive(const g2_aff_t *p)
{
    g2_t t;
    g2_from_aff(&t, p);
    g2_mul_limbs(&t, &t, CURVE_R_LIMBS, 4);
    return g2_is_identity(&t);
}

static void check_g2_eq(const g2_t *a, const g2_t *b)
{
    g2_aff_t x, y;
    uint8_t ex[192], ey[192];
    g2_to_aff(&x, a);
    g2_to_aff(&y, b);
    g2_aff_to_uncompressed(ex, &x);
    g2_aff_to_uncompressed(ey, &y);
    CHECK(g2_eq(a, b));
    CHECK_MEM_EQ(ex, ey, 192);
}

static void fr_repr_from_le(fr_repr_t *out, const uint8_t k[32])
{
    for (size_t i = 0; i < 4; i++) {
        out->l[i] = 0;
        for (size_t j = 0; j < 8; j++) {
            out->l[i] |= (uint64_t)k[8 * i + j] << (8 * j);
        }
    }
}

TEST(g2_generator_matches_spec)
{
    g2_aff_t dec;
    uint8_t out[96];

    g2_aff_to_compressed(out, &G2_GEN);
    CHECK_MEM_EQ(out, SPEC_G2_GEN_COMPRESSED, 96);
    CHECK_OK(g2_aff_from_compressed(&dec, SPEC_G2_GEN_COMPRESSED, true));
    CHECK(g2_aff_eq(&dec, &G2_GEN));
    CHECK(g2_aff_is_on_curve(&G2_GEN));
    CHECK(g2_aff_is_in_group(&G2_GEN));
    CHECK(g2_in_group_naive(&G2_GEN));
}

/* psi's factors re-derived: PSI_X = xi^-((p-1)/3), PSI_Y = xi^-((p-1)/2), xi = 1 + u. */
TEST(g2_constants_rederived)
{
    static const fp2_t b = {.c0 = {G2_B_C0_MONT_INIT}, .c1 = {G2_B_C1_MONT_INIT}};
    static const fp2_t psi_x = {.c0 = {G2_PSI_X_C0_MONT_INIT}, .c1 = {G2_PSI_X_C1_MONT_INIT}};
    static const fp2_t psi_y = {.c0 = {G2_PSI_Y_C0_MONT_INIT}, .c1 = {G2_PSI_Y_C1_MONT_INIT}};
    uint64_t pm1[6], e3[6];
    fp2_t xi, t, four;

    fp_from_u64(&four.c0, 4);
    fp_from_u64(&four.c1, 4);
    CHECK(fp2_eq(&b, &four));
    memcpy(pm1, FP_MODULUS, sizeof(pm1));
    pm1[0] -= 1;
    limbs_div_small(e3, pm1, 6, 3);
    xi.c0 = FP_ONE;
    xi.c1 = FP_ONE;
    fp2_pow(&t, &xi, e3, 6);
    fp2_inv(&t, &t);
    CHECK(fp2_eq(&t, &psi_x));
    fp2_pow(&t, &xi, FP_HALF_MODULUS, 6);
    fp2_inv(&t, &t);
    CHECK(fp2_eq(&t, &psi_y));
}

/* psi(G2) = [z] G2, and psi^2 - [t] psi + [p] = 0 on all of E'(Fp2), t = z + 1 the trace. */
TEST(g2_psi)
{
    cz_prng *g = test_prng();
    g2_t gen, a, b;
    uint64_t zabs = CURVE_Z_ABS, tabs = CURVE_Z_ABS - 1; /* t = z + 1 = -(|z| - 1) */

    g2_from_aff(&gen, &G2_GEN);
    g2_psi(&a, &gen);
    g2_mul_limbs(&b, &gen, &zabs, 1);
    g2_neg(&b, &b);
    check_g2_eq(&a, &b);
    for (int it = 0; it < 6; it++) {
        g2_aff_t e;
        g2_t q, p1, p2, tp, pq;
        rand_e2(g, &e);
        g2_from_aff(&q, &e);
        g2_rescale(g, &q);
        g2_psi(&p1, &q);
        g2_psi(&p2, &p1);
        g2_mul_limbs(&tp, &p1, &tabs, 1); /* [|t|] psi(Q) = -[t] psi(Q) */
        g2_add(&tp, &p2, &tp);            /* psi^2(Q) - [t] psi(Q) */
        g2_mul_limbs(&pq, &q, FP_MODULUS, 6);
        g2_add(&tp, &tp, &pq);
        CHECK(g2_is_identity(&tp));
        CHECK(g2_is_on_curve(&p1));
        /* aliasing */
        g2_psi(&q, &q);
        check_g2_eq(&q, &p1);
    }
}

TEST(g2_mul_kat)
{
    g2_t gen, p;
    g2_aff_t a, dec;
    uint8_t c[96], u[192];

    g2_from_aff(&gen, &G2_GEN);
    for (size_t i = 0; i < ARRAY_LEN(g2_mul_vectors); i++) {
        const struct g2_mul_vector *v = &g2_mul_vectors[i];
        fr_repr_t k;
        fr_t kf;
        fr_repr_from_le(&k, v->k);
        g2_mul(&p, &gen, &k);
        g2_to_aff(&a, &p);
        g2_aff_to_compressed(c, &a);
        g2_aff_to_uncompressed(u, &a);
        CHECK_MEM_EQ(c, v->compressed, 96);
        CHECK_MEM_EQ(u, v->uncompressed, 192);
        CHECK(fr_from_repr(&kf, &k));
        g2_mul_fr(&p, &gen, &kf);
        g2_to_aff(&dec, &p);
        CHECK(g2_aff_eq(&dec, &a));
        g2_mul_naive(&p, &gen, k.l, 4);
        g2_to_aff(&dec, &p);
        CHECK(g2_aff_eq(&dec, &a));
        CHECK_OK(g2_aff_from_compressed(&dec, v->compressed, true));
        CHECK(g2_aff_eq(&dec, &a));
        CHECK_OK(g2_aff_from_uncompressed(&dec, v->uncompressed, true));
        CHECK(g2_aff_eq(&dec, &a));
        CHECK_OK(g2_aff_from_compressed(&dec, v->compressed, false));
        CHECK(g2_aff_eq(&dec, &a));
        CHECK(g2_aff_is_in_group(&a));
    }
}

TEST(g2_add_kat)
{
    cz_prng *g = test_prng();
    for (size_t i = 0; i < ARRAY_LEN(g2_add_vectors); i++) {
        const struct g2_add_vector *v = &g2_add_vectors[i];
        g2_aff_t a, b, s, got;
        g2_t ja, jb, js;
        uint8_t c[96];

        CHECK_OK(g2_aff_from_compressed(&a, v->a, true));
        CHECK_OK(g2_aff_from_compressed(&b, v->b, true));
        CHECK_OK(g2_aff_from_compressed(&s, v->sum, true));
        g2_from_aff(&ja, &a);
        g2_from_aff(&jb, &b);
        if (!g2_is_identity(&ja)) {
            g2_rescale(g, &ja);
        }
        if (!g2_is_identity(&jb)) {
            g2_rescale(g, &jb);
        }
        g2_add(&js, &ja, &jb);
        g2_to_aff(&got, &js);
        g2_aff_to_compressed(c, &got);
        CHECK_MEM_EQ(c, v->sum, 96);
        g2_add_aff(&js, &ja, &b);
        g2_to_aff(&got, &js);
        CHECK(g2_aff_eq(&got, &s));
        g2_add(&ja, &ja, &jb);
        g2_to_aff(&got, &ja);
        CHECK(g2_aff_eq(&got, &s));
        g2_sub(&js, &ja, &jb);
        g2_to_aff(&got, &js);
        CHECK(g2_aff_eq(&got, &a));
    }
}

TEST(g2_decode_vectors)
{
    for (size_t i = 0; i < ARRAY_LEN(g2_decode_vectors); i++) {
        const struct g2_decode_vector *v = &g2_decode_vectors[i];
        for (int chk = 0; chk < 2; chk++) {
            g2_aff_t p;
            cuzk_err want = chk ? v->err_checked : v->err_unchecked;
            cuzk_err got = v->compressed ? g2_aff_from_compressed(&p, v->in, chk != 0)
                                         : g2_aff_from_uncompressed(&p, v->in, chk != 0);
            CHECK_MSG(got == want, "%s (check_group=%d): got %s, want %s", v->name, chk,
                      cuzk_errname(got), cuzk_errname(want));
            if (got == CUZK_OK) {
                uint8_t u[192];
                g2_aff_to_uncompressed(u, &p);
                CHECK_MSG(memcmp(u, v->expect, 192) == 0, "%s: wrong point", v->name);
                CHECK(g2_aff_is_on_curve(&p));
                if (v->compressed) {
                    /* and it re-encodes to the same compressed bytes */
                    uint8_t c[96];
                    g2_aff_to_compressed(c, &p);
                    CHECK_MSG(memcmp(c, v->in, 96) == 0, "%s: re-encoding differs", v->name);
                }
            } else {
                CHECK(g2_aff_is_identity(&p));
            }
        }
    }
}

TEST(g2_group_laws)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 12; it++) {
        g2_t a, b, c, t1, t2, o, na;
        g2_aff_t ba;

        rand_g2(g, &a);
        rand_g2(g, &b);
        rand_g2(g, &c);
        g2_set_identity(&o);
        g2_add(&t1, &a, &b);
        g2_add(&t2, &b, &a);
        check_g2_eq(&t1, &t2);
        g2_add(&t1, &t1, &c);
        g2_add(&t2, &b, &c);
        g2_add(&t2, &a, &t2);
        check_g2_eq(&t1, &t2);
        g2_add(&t1, &a, &o);
        check_g2_eq(&t1, &a);
        g2_add(&t1, &o, &a);
        check_g2_eq(&t1, &a);
        g2_neg(&na, &a);
        g2_add(&t1, &a, &na);
        CHECK(g2_is_identity(&t1));
        g2_sub(&t1, &a, &a);
        CHECK(g2_is_identity(&t1));
        t2 = a;
        g2_rescale(g, &t2);
        g2_add(&t1, &a, &t2);
        g2_dbl(&t2, &a);
        check_g2_eq(&t1, &t2);
        g2_to_aff(&ba, &b);
        g2_add_aff(&t1, &a, &ba);
        g2_add(&t2, &a, &b);
        check_g2_eq(&t1, &t2);
        g2_add_aff(&t1, &b, &ba);
        g2_dbl(&t2, &b);
        check_g2_eq(&t1, &t2);
        g2_aff_neg(&ba, &ba);
        g2_add_aff(&t1, &b, &ba);
        CHECK(g2_is_identity(&t1));
        g2_add_aff(&t1, &o, &ba);
        g2_neg(&t2, &b);
        check_g2_eq(&t1, &t2);
        CHECK(g2_is_on_curve(&t1));
        CHECK(!g2_eq(&a, &b));
        CHECK(!g2_eq(&a, &o));
        CHECK(g2_eq(&o, &o));
    }
    {
        g2_t o, t;
        g2_aff_t oa;
        g2_set_identity(&o);
        g2_dbl(&t, &o);
        CHECK(g2_is_identity(&t));
        g2_aff_set_identity(&oa);
        g2_add_aff(&t, &o, &oa);
        CHECK(g2_is_identity(&t));
        g2_to_aff(&oa, &o);
        CHECK(g2_aff_is_identity(&oa));
        g2_psi(&t, &o);
        CHECK(g2_is_identity(&t));
    }
}

TEST(g2_scalar_mul_properties)
{
    cz_prng *g = test_prng();
    g2_t gen, t1, t2;
    fr_repr_t r1;
    uint64_t big[10];

    g2_from_aff(&gen, &G2_GEN);
    for (int it = 0; it < 4; it++) {
        fr_t a, b, s;
        fr_repr_t ar, br, sr;
        g2_t p;
        rand_g2(g, &p);
        rand_fr(g, &a);
        rand_fr(g, &b);
        fr_to_repr(&ar, &a);
        fr_to_repr(&br, &b);
        fr_add(&s, &a, &b);
        fr_to_repr(&sr, &s);
        g2_mul(&t1, &p, &ar);
        g2_mul(&t2, &p, &br);
        g2_add(&t1, &t1, &t2);
        g2_mul(&t2, &p, &sr);
        check_g2_eq(&t1, &t2);
        fr_mul(&s, &a, &b);
        fr_to_repr(&sr, &s);
        g2_mul(&t1, &p, &br);
        g2_mul(&t1, &t1, &ar);
        g2_mul(&t2, &p, &sr);
        check_g2_eq(&t1, &t2);
        for (size_t i = 0; i < 10; i++) {
            big[i] = cz_prng_u64(g);
        }
        g2_mul_limbs(&t1, &p, big, 10);
        g2_mul_naive(&t2, &p, big, 10);
        check_g2_eq(&t1, &t2);
        for (uint64_t k = 0; k < 40; k++) {
            g2_mul_limbs(&t1, &p, &k, 1);
            g2_mul_naive(&t2, &p, &k, 1);
            check_g2_eq(&t1, &t2);
        }
    }
    for (size_t i = 0; i < 4; i++) {
        r1.l[i] = CURVE_R_LIMBS[i];
    }
    g2_mul(&t1, &gen, &r1);
    CHECK(g2_is_identity(&t1));
    r1.l[0] -= 1;
    g2_mul(&t1, &gen, &r1);
    g2_neg(&t2, &gen);
    check_g2_eq(&t1, &t2);
    memset(&r1, 0, sizeof(r1));
    g2_mul(&t1, &gen, &r1);
    CHECK(g2_is_identity(&t1));
}

TEST(g2_batch_to_aff)
{
    cz_prng *g = test_prng();
    g2_t pts[9];
    g2_aff_t out[9], one;
    fp2_t scratch[9];

    for (size_t i = 0; i < 9; i++) {
        rand_g2(g, &pts[i]);
    }
    g2_set_identity(&pts[0]);
    g2_set_identity(&pts[4]);
    g2_set_identity(&pts[8]);
    g2_batch_to_aff(out, pts, 9, scratch);
    for (size_t i = 0; i < 9; i++) {
        g2_to_aff(&one, &pts[i]);
        CHECK(g2_aff_eq(&one, &out[i]));
    }
}

TEST(g2_on_curve)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 10; it++) {
        g2_t p;
        g2_aff_t a;
        rand_g2(g, &p);
        CHECK(g2_is_on_curve(&p));
        g2_to_aff(&a, &p);
        CHECK(g2_aff_is_on_curve(&a));
        fp_add(&p.y.c1, &p.y.c1, &FP_ONE);
        CHECK(!g2_is_on_curve(&p));
        fp_add(&a.x.c0, &a.x.c0, &FP_ONE);
        CHECK(!g2_aff_is_on_curve(&a));
        CHECK(!g2_aff_is_in_group(&a));
    }
}

static void check_subgroup_agrees(const g2_aff_t *p, int *inside, int *outside)
{
    bool fast = g2_aff_is_in_group(p);
    bool naive = g2_in_group_naive(p);
    CHECK_MSG(fast == naive, "fast subgroup test says %d, [r]Q = O says %d", fast, naive);
    if (naive) {
        (*inside)++;
    } else {
        (*outside)++;
    }
}

TEST(g2_subgroup_check_vs_naive)
{
    enum { H2N = ARRAY_LEN(CURVE_H2_LIMBS) };
    cz_prng *g = test_prng();
    uint64_t small[ARRAY_LEN(CURVE_H2_PRIMES)];
    size_t nsmall = 0;
    int inside = 0, outside = 0, torsion = 0;

    for (size_t i = 0; i < ARRAY_LEN(CURVE_H2_PRIMES); i++) {
        if (CURVE_H2_PRIMES[i].nlimbs == 1) {
            small[nsmall++] = CURVE_H2_PRIMES[i].q[0];
        }
    }
    for (int it = 0; it < 8; it++) {
        g2_aff_t e, a;
        g2_t p, t;
        rand_e2(g, &e);
        CHECK(g2_aff_is_on_curve(&e));
        check_subgroup_agrees(&e, &inside, &outside);
        g2_from_aff(&p, &e);
        g2_mul_limbs(&t, &p, CURVE_H2_LIMBS, H2N);
        g2_to_aff(&a, &t);
        check_subgroup_agrees(&a, &inside, &outside);
        CHECK(g2_aff_is_in_group(&a));
        g2_mul_limbs(&t, &p, CURVE_R_LIMBS, 4);
        g2_to_aff(&a, &t);
        check_subgroup_agrees(&a, &inside, &outside);
        for (size_t i = 0; i < ARRAY_LEN(CURVE_H2_PRIMES); i++) {
            const struct curve_prime_factor *q = &CURVE_H2_PRIMES[i];
            uint64_t c[H2N];
            g2_t gq, tq;
            cofactor_strip_prime(c, CURVE_H2_LIMBS, H2N, q->q, q->nlimbs, small, nsmall);
            g2_mul_limbs(&t, &p, c, H2N);
            g2_mul_limbs(&t, &t, CURVE_R_LIMBS, 4);
            if (g2_is_identity(&t)) {
                continue;
            }
            for (;;) {
                g2_mul_limbs(&tq, &t, q->q, q->nlimbs);
                if (g2_is_identity(&tq)) {
                    break;
                }
                t = tq;
            }
            g2_to_aff(&a, &t);
            check_subgroup_agrees(&a, &inside, &outside);
            CHECK(!g2_aff_is_in_group(&a));
            rand_g2(g, &gq);
            g2_add(&t, &t, &gq);
            g2_to_aff(&a, &t);
            check_subgroup_agrees(&a, &inside, &outside);
            CHECK(!g2_aff_is_in_group(&a));
            torsion++;
        }
    }
    CHECK_MSG(inside >= 8 && outside >= 50 && torsion >= 30, "inside=%d outside=%d torsion=%d",
              inside, outside, torsion);
}

TEST(g2_encoding_round_trips)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 15; it++) {
        g2_aff_t a, d;
        g2_t p;
        uint8_t c[96], u[192], cn[96];
        bool in_group = it % 3 != 0;

        if (in_group) {
            rand_g2(g, &p);
            g2_to_aff(&a, &p);
        } else {
            rand_e2(g, &a);
        }
        g2_aff_to_compressed(c, &a);
        g2_aff_to_uncompressed(u, &a);
        CHECK((c[0] & 0xc0) == 0x80);
        CHECK((u[0] & 0xe0) == 0);
        /* wire order: x.c1 first */
        {
            uint8_t xc1[48];
            fp_to_bytes(xc1, &a.x.c1);
            CHECK(memcmp(u + 1, xc1 + 1, 47) == 0 && memcmp(c + 1, xc1 + 1, 47) == 0);
        }
        CHECK_OK(g2_aff_from_compressed(&d, c, false));
        CHECK(g2_aff_eq(&d, &a));
        CHECK_OK(g2_aff_from_uncompressed(&d, u, false));
        CHECK(g2_aff_eq(&d, &a));
        CHECK_ERR(g2_aff_from_compressed(&d, c, true), in_group ? CUZK_OK : CUZK_E_NOT_IN_GROUP);
        CHECK_ERR(g2_aff_from_uncompressed(&d, u, true), in_group ? CUZK_OK : CUZK_E_NOT_IN_GROUP);
        g2_aff_neg(&d, &a);
        g2_aff_to_compressed(cn, &d);
        CHECK((c[0] ^ cn[0]) == 0x20);
        CHECK(memcmp(c + 1, cn + 1, 95) == 0);
        for (unsigned f = 0; f < 8; f++) {
            uint8_t cc[96], uu[192];
            uint8_t flags = (uint8_t)(f << 5);
            cuzk_err e;
            memcpy(cc, c, 96);
            cc[0] = (uint8_t)((cc[0] & 0x1f) | flags);
            e = g2_aff_from_compressed(&d, cc, false);
            if (flags == (c[0] & 0xe0)) {
                CHECK_OK(e);
                CHECK(g2_aff_eq(&d, &a));
            } else if (flags == ((c[0] & 0xe0) ^ 0x20)) {
                g2_aff_t na;
                CHECK_OK(e);
                g2_aff_neg(&na, &a);
                CHECK(g2_aff_eq(&d, &na));
            } else {
                CHECK_ERR(e, CUZK_E_FORMAT);
            }
            memcpy(uu, u, 192);
            uu[0] = (uint8_t)(uu[0] | flags);
            CHECK_ERR(g2_aff_from_uncompressed(&d, uu, false), flags ? CUZK_E_FORMAT : CUZK_OK);
        }
    }
    {
        g2_aff_t o, d;
        uint8_t c[96], u[192];
        g2_aff_set_identity(&o);
        g2_aff_to_compressed(c, &o);
        g2_aff_to_uncompressed(u, &o);
        CHECK(c[0] == 0xc0 && curve_util_zero(c + 1, 95));
        CHECK(u[0] == 0x40 && curve_util_zero(u + 1, 191));
        CHECK_OK(g2_aff_from_compressed(&d, c, true));
        CHECK(g2_aff_is_identity(&d));
        CHECK_OK(g2_aff_from_uncompressed(&d, u, true));
        CHECK(g2_aff_is_identity(&d));
        CHECK(g2_aff_is_in_group(&o));
    }
}
