/* test_g1.c - G1: known answers from @noble/curves 2.4.0 (tests/vectors/curve/g1_vectors.h),
 * the constants against the spec and re-derivations, group laws, scalar multiplication against
 * a naive double-and-add, batch conversion, encodings, and the endomorphism subgroup test
 * against the plain [r]P = O test on points inside and outside G1 (including points of every
 * prime order dividing the cofactor).
 */
#include "harness/test.h"

#include "curve/curve_consts.h"
#include "curve/g1.h"
#include "curve_util.h"
#include "vectors/curve/cofactor_vectors.h"
#include "vectors/curve/g1_vectors.h"

/* spec groth16.md 1.2 */
static const uint8_t SPEC_G1_GEN_COMPRESSED[48] = {
    0x97, 0xf1, 0xd3, 0xa7, 0x31, 0x97, 0xd7, 0x94, 0x26, 0x95, 0x63, 0x8c, 0x4f, 0xa9, 0xac, 0x0f,
    0xc3, 0x68, 0x8c, 0x4f, 0x97, 0x74, 0xb9, 0x05, 0xa1, 0x4e, 0x3a, 0x3f, 0x17, 0x1b, 0xac, 0x58,
    0x6c, 0x55, 0xe8, 0x3f, 0xf9, 0x7a, 0x1a, 0xef, 0xfb, 0x3a, 0xf0, 0x0a, 0xdb, 0x22, 0xc6, 0xbb};
/* canonical x, y little-endian limbs, spec groth16.md 1.2 */
static const uint64_t SPEC_G1_GEN_X[6] = {0xfb3af00adb22c6bbULL, 0x6c55e83ff97a1aefULL,
                                          0xa14e3a3f171bac58ULL, 0xc3688c4f9774b905ULL,
                                          0x2695638c4fa9ac0fULL, 0x17f1d3a73197d794ULL};
static const uint64_t SPEC_G1_GEN_Y[6] = {0x0caa232946c5e7e1ULL, 0xd03cc744a2888ae4ULL,
                                          0x00db18cb2c04b3edULL, 0xfcf5e095d5d00af6ULL,
                                          0xa09e30ed741d8ae4ULL, 0x08b3f481e3aaa0f1ULL};

/* The plain subgroup test: [r] P == O. */
static bool g1_in_group_naive(const g1_aff_t *p)
{
    g1_t t;
    g1_from_aff(&t, p);
    g1_mul_limbs(&t, &t, CURVE_R_LIMBS, 4);
    return g1_is_identity(&t);
}

static void g1_aff_of(g1_aff_t *out, const g1_t *p)
{
    g1_to_aff(out, p);
}

static void check_g1_eq(const g1_t *a, const g1_t *b)
{
    g1_aff_t x, y;
    uint8_t ex[96], ey[96];
    g1_to_aff(&x, a);
    g1_to_aff(&y, b);
    g1_aff_to_uncompressed(ex, &x);
    g1_aff_to_uncompressed(ey, &y);
    CHECK(g1_eq(a, b));
    CHECK_MEM_EQ(ex, ey, 96);
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

TEST(g1_generator_matches_spec)
{
    fp_t x, y;
    g1_aff_t dec;
    uint8_t out[48];

    CHECK(fp_from_limbs(&x, SPEC_G1_GEN_X));
    CHECK(fp_from_limbs(&y, SPEC_G1_GEN_Y));
    CHECK(fp_eq(&x, &G1_GEN.x));
    CHECK(fp_eq(&y, &G1_GEN.y));
    g1_aff_to_compressed(out, &G1_GEN);
    CHECK_MEM_EQ(out, SPEC_G1_GEN_COMPRESSED, 48);
    CHECK_OK(g1_aff_from_compressed(&dec, SPEC_G1_GEN_COMPRESSED, true));
    CHECK(g1_aff_eq(&dec, &G1_GEN));
    CHECK(g1_aff_is_on_curve(&G1_GEN));
    CHECK(g1_aff_is_in_group(&G1_GEN));
    CHECK(g1_in_group_naive(&G1_GEN));
}

TEST(g1_constants_rederived)
{
    static const fp_t b = {G1_B_MONT_INIT};
    static const fp_t beta = {G1_BETA_MONT_INIT};
    fp_t four, t;
    g1_t g, zz;
    g1_aff_t a, s;
    uint64_t z2[2];

    fp_from_u64(&four, 4);
    CHECK(fp_eq(&b, &four));
    /* beta is a primitive cube root of unity */
    CHECK(!fp_is_one(&beta));
    fp_sqr(&t, &beta);
    fp_mul(&t, &t, &beta);
    CHECK(fp_is_one(&t));
    /* and (beta x, y) = [-z^2] G, with [z^2] computed by the generic multiplication */
    limbs_mul(z2, (const uint64_t[]){CURVE_Z_ABS}, 1, (const uint64_t[]){CURVE_Z_ABS}, 1);
    g1_from_aff(&g, &G1_GEN);
    g1_mul_limbs(&zz, &g, z2, 2);
    g1_neg(&zz, &zz);
    g1_to_aff(&a, &zz);
    fp_mul(&s.x, &G1_GEN.x, &beta);
    s.y = G1_GEN.y;
    CHECK(g1_aff_eq(&a, &s));
}

TEST(g1_mul_kat)
{
    g1_t gen, p;
    g1_aff_t a, dec;
    uint8_t c[48], u[96];

    g1_from_aff(&gen, &G1_GEN);
    for (size_t i = 0; i < ARRAY_LEN(g1_mul_vectors); i++) {
        const struct g1_mul_vector *v = &g1_mul_vectors[i];
        fr_repr_t k;
        fr_t kf;
        fr_repr_from_le(&k, v->k);
        g1_mul(&p, &gen, &k);
        g1_aff_of(&a, &p);
        g1_aff_to_compressed(c, &a);
        g1_aff_to_uncompressed(u, &a);
        CHECK_MEM_EQ(c, v->compressed, 48);
        CHECK_MEM_EQ(u, v->uncompressed, 96);
        /* the same through g1_mul_fr and through a naive double-and-add */
        CHECK(fr_from_repr(&kf, &k));
        g1_mul_fr(&p, &gen, &kf);
        g1_aff_of(&dec, &p);
        CHECK(g1_aff_eq(&dec, &a));
        g1_mul_naive(&p, &gen, k.l, 4);
        g1_aff_of(&dec, &p);
        CHECK(g1_aff_eq(&dec, &a));
        /* both encodings decode (with and without the group check) to the point */
        CHECK_OK(g1_aff_from_compressed(&dec, v->compressed, true));
        CHECK(g1_aff_eq(&dec, &a));
        CHECK_OK(g1_aff_from_uncompressed(&dec, v->uncompressed, true));
        CHECK(g1_aff_eq(&dec, &a));
        CHECK_OK(g1_aff_from_compressed(&dec, v->compressed, false));
        CHECK(g1_aff_eq(&dec, &a));
        CHECK(g1_aff_is_in_group(&a));
    }
}

TEST(g1_add_kat)
{
    cz_prng *g = test_prng();
    for (size_t i = 0; i < ARRAY_LEN(g1_add_vectors); i++) {
        const struct g1_add_vector *v = &g1_add_vectors[i];
        g1_aff_t a, b, s, got;
        g1_t ja, jb, js;
        uint8_t c[48];

        CHECK_OK(g1_aff_from_compressed(&a, v->a, true));
        CHECK_OK(g1_aff_from_compressed(&b, v->b, true));
        CHECK_OK(g1_aff_from_compressed(&s, v->sum, true));
        g1_from_aff(&ja, &a);
        g1_from_aff(&jb, &b);
        if (!g1_is_identity(&ja)) {
            g1_rescale(g, &ja);
        }
        if (!g1_is_identity(&jb)) {
            g1_rescale(g, &jb);
        }
        g1_add(&js, &ja, &jb);
        g1_to_aff(&got, &js);
        g1_aff_to_compressed(c, &got);
        CHECK_MEM_EQ(c, v->sum, 48);
        g1_add_aff(&js, &ja, &b);
        g1_to_aff(&got, &js);
        CHECK(g1_aff_eq(&got, &s));
        /* aliasing: out = a */
        g1_add(&ja, &ja, &jb);
        g1_to_aff(&got, &ja);
        CHECK(g1_aff_eq(&got, &s));
        /* sum - b = a */
        g1_sub(&js, &ja, &jb);
        g1_to_aff(&got, &js);
        CHECK(g1_aff_eq(&got, &a));
    }
}

TEST(g1_decode_vectors)
{
    for (size_t i = 0; i < ARRAY_LEN(g1_decode_vectors); i++) {
        const struct g1_decode_vector *v = &g1_decode_vectors[i];
        for (int chk = 0; chk < 2; chk++) {
            g1_aff_t p;
            cuzk_err want = chk ? v->err_checked : v->err_unchecked;
            cuzk_err got = v->compressed ? g1_aff_from_compressed(&p, v->in, chk != 0)
                                         : g1_aff_from_uncompressed(&p, v->in, chk != 0);
            CHECK_MSG(got == want, "%s (check_group=%d): got %s, want %s", v->name, chk,
                      cuzk_errname(got), cuzk_errname(want));
            if (got == CUZK_OK) {
                uint8_t u[96];
                g1_aff_to_uncompressed(u, &p);
                CHECK_MSG(memcmp(u, v->expect, 96) == 0, "%s: wrong point", v->name);
                CHECK(g1_aff_is_on_curve(&p));
            } else {
                CHECK(g1_aff_is_identity(&p)); /* failures leave the identity */
            }
        }
    }
}

TEST(g1_group_laws)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 20; it++) {
        g1_t a, b, c, t1, t2, o, na;
        g1_aff_t ba;

        rand_g1(g, &a);
        rand_g1(g, &b);
        rand_g1(g, &c);
        g1_set_identity(&o);
        /* commutativity, associativity */
        g1_add(&t1, &a, &b);
        g1_add(&t2, &b, &a);
        check_g1_eq(&t1, &t2);
        g1_add(&t1, &t1, &c);
        g1_add(&t2, &b, &c);
        g1_add(&t2, &a, &t2);
        check_g1_eq(&t1, &t2);
        /* identity, inverse */
        g1_add(&t1, &a, &o);
        check_g1_eq(&t1, &a);
        g1_add(&t1, &o, &a);
        check_g1_eq(&t1, &a);
        g1_neg(&na, &a);
        g1_add(&t1, &a, &na);
        CHECK(g1_is_identity(&t1));
        g1_sub(&t1, &a, &a);
        CHECK(g1_is_identity(&t1));
        /* doubling through add (another Z) and dbl */
        t2 = a;
        g1_rescale(g, &t2);
        g1_add(&t1, &a, &t2);
        g1_dbl(&t2, &a);
        check_g1_eq(&t1, &t2);
        /* mixed addition agrees with full addition, including the doubling and inverse cases */
        g1_to_aff(&ba, &b);
        g1_add_aff(&t1, &a, &ba);
        g1_add(&t2, &a, &b);
        check_g1_eq(&t1, &t2);
        g1_add_aff(&t1, &b, &ba);
        g1_dbl(&t2, &b);
        check_g1_eq(&t1, &t2);
        g1_aff_neg(&ba, &ba);
        g1_add_aff(&t1, &b, &ba);
        CHECK(g1_is_identity(&t1));
        g1_add_aff(&t1, &o, &ba);
        g1_neg(&t2, &b);
        check_g1_eq(&t1, &t2);
        /* results stay on the curve; eq rejects different points */
        CHECK(g1_is_on_curve(&t1));
        CHECK(!g1_eq(&a, &b));
        CHECK(!g1_eq(&a, &o));
        CHECK(g1_eq(&o, &o));
    }
    {
        g1_t o, t;
        g1_aff_t oa;
        g1_set_identity(&o);
        g1_dbl(&t, &o);
        CHECK(g1_is_identity(&t));
        g1_aff_set_identity(&oa);
        g1_add_aff(&t, &o, &oa);
        CHECK(g1_is_identity(&t));
        g1_to_aff(&oa, &o);
        CHECK(g1_aff_is_identity(&oa));
        g1_aff_neg(&oa, &oa);
        CHECK(g1_aff_is_identity(&oa));
    }
}

TEST(g1_scalar_mul_properties)
{
    cz_prng *g = test_prng();
    g1_t gen, t1, t2, t3;
    fr_repr_t r1;
    uint64_t big[10];

    g1_from_aff(&gen, &G1_GEN);
    for (int it = 0; it < 8; it++) {
        fr_t a, b, s;
        fr_repr_t ar, br, sr;
        g1_t p;
        rand_g1(g, &p);
        rand_fr(g, &a);
        rand_fr(g, &b);
        fr_to_repr(&ar, &a);
        fr_to_repr(&br, &b);
        /* [a]P + [b]P = [a + b]P */
        fr_add(&s, &a, &b);
        fr_to_repr(&sr, &s);
        g1_mul(&t1, &p, &ar);
        g1_mul(&t2, &p, &br);
        g1_add(&t1, &t1, &t2);
        g1_mul(&t2, &p, &sr);
        check_g1_eq(&t1, &t2);
        /* [a]([b]P) = [ab]P */
        fr_mul(&s, &a, &b);
        fr_to_repr(&sr, &s);
        g1_mul(&t1, &p, &br);
        g1_mul(&t1, &t1, &ar); /* aliasing */
        g1_mul(&t2, &p, &sr);
        check_g1_eq(&t1, &t2);
        /* a 640-bit scalar against the naive reference */
        for (size_t i = 0; i < 10; i++) {
            big[i] = cz_prng_u64(g);
        }
        g1_mul_limbs(&t1, &p, big, 10);
        g1_mul_naive(&t2, &p, big, 10);
        check_g1_eq(&t1, &t2);
        /* small scalars, where the top window is partial */
        for (uint64_t k = 0; k < 40; k++) {
            g1_mul_limbs(&t1, &p, &k, 1);
            g1_mul_naive(&t2, &p, &k, 1);
            check_g1_eq(&t1, &t2);
        }
    }
    /* [r]G = O, [r - 1]G = -G, [0]G = O, [k]O = O */
    for (size_t i = 0; i < 4; i++) {
        r1.l[i] = CURVE_R_LIMBS[i];
    }
    g1_mul(&t1, &gen, &r1);
    CHECK(g1_is_identity(&t1));
    r1.l[0] -= 1;
    g1_mul(&t1, &gen, &r1);
    g1_neg(&t2, &gen);
    check_g1_eq(&t1, &t2);
    memset(&r1, 0, sizeof(r1));
    g1_mul(&t1, &gen, &r1);
    CHECK(g1_is_identity(&t1));
    g1_set_identity(&t3);
    rand_fr_repr(g, &r1);
    g1_mul(&t1, &t3, &r1);
    CHECK(g1_is_identity(&t1));
    g1_mul_limbs(&t1, &gen, big, 0);
    CHECK(g1_is_identity(&t1));
}

TEST(g1_batch_to_aff)
{
    cz_prng *g = test_prng();
    g1_t pts[17];
    g1_aff_t out[17], one;
    fp_t scratch[17];

    for (size_t i = 0; i < 17; i++) {
        rand_g1(g, &pts[i]);
    }
    g1_set_identity(&pts[0]);
    g1_set_identity(&pts[7]);
    g1_set_identity(&pts[16]);
    g1_batch_to_aff(out, pts, 17, scratch);
    for (size_t i = 0; i < 17; i++) {
        g1_to_aff(&one, &pts[i]);
        CHECK(g1_aff_eq(&one, &out[i]));
    }
    g1_batch_to_aff(out, pts, 0, scratch);
}

TEST(g1_on_curve)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 20; it++) {
        g1_t p;
        g1_aff_t a;
        rand_g1(g, &p);
        CHECK(g1_is_on_curve(&p));
        g1_to_aff(&a, &p);
        CHECK(g1_aff_is_on_curve(&a));
        fp_add(&p.y, &p.y, &FP_ONE);
        CHECK(!g1_is_on_curve(&p));
        fp_add(&a.x, &a.x, &FP_ONE);
        CHECK(!g1_aff_is_on_curve(&a));
        CHECK(!g1_aff_is_in_group(&a));
    }
}

/* Compares the fast subgroup test with [r]P = O on one point; counts the outcomes. */
static void check_subgroup_agrees(const g1_aff_t *p, int *inside, int *outside)
{
    bool fast = g1_aff_is_in_group(p);
    bool naive = g1_in_group_naive(p);
    CHECK_MSG(fast == naive, "fast subgroup test says %d, [r]P = O says %d", fast, naive);
    if (naive) {
        (*inside)++;
    } else {
        (*outside)++;
    }
}

TEST(g1_subgroup_check_vs_naive)
{
    cz_prng *g = test_prng();
    uint64_t small[ARRAY_LEN(CURVE_H1_PRIMES)];
    int inside = 0, outside = 0, torsion = 0;

    for (size_t i = 0; i < ARRAY_LEN(CURVE_H1_PRIMES); i++) {
        small[i] = CURVE_H1_PRIMES[i].q[0];
    }
    for (int it = 0; it < 20; it++) {
        g1_aff_t e, a;
        g1_t p, t;
        rand_e1(g, &e);
        CHECK(g1_aff_is_on_curve(&e));
        check_subgroup_agrees(&e, &inside, &outside); /* random curve point */
        g1_from_aff(&p, &e);
        g1_mul_limbs(&t, &p, CURVE_H1_LIMBS, 2); /* cleared cofactor: inside */
        g1_to_aff(&a, &t);
        check_subgroup_agrees(&a, &inside, &outside);
        CHECK(g1_aff_is_in_group(&a));
        g1_mul_limbs(&t, &p, CURVE_R_LIMBS, 4); /* pure torsion: outside unless O */
        g1_to_aff(&a, &t);
        check_subgroup_agrees(&a, &inside, &outside);
        /* points of each prime order q | h1: [q^k][r h1 / q^m] e for the largest k with a
         * nonzero result */
        for (size_t i = 0; i < ARRAY_LEN(CURVE_H1_PRIMES); i++) {
            uint64_t c[2];
            g1_t gq, tq;
            cofactor_strip_prime(c, CURVE_H1_LIMBS, 2, CURVE_H1_PRIMES[i].q, 1, small,
                                 ARRAY_LEN(small));
            g1_mul_limbs(&t, &p, c, 2);
            g1_mul_limbs(&t, &t, CURVE_R_LIMBS, 4);
            if (g1_is_identity(&t)) {
                continue;
            }
            for (;;) {
                g1_mul_limbs(&tq, &t, CURVE_H1_PRIMES[i].q, 1);
                if (g1_is_identity(&tq)) {
                    break;
                }
                t = tq;
            }
            g1_to_aff(&a, &t);
            check_subgroup_agrees(&a, &inside, &outside);
            CHECK(!g1_aff_is_in_group(&a));
            /* the torsion point plus a subgroup element */
            rand_g1(g, &gq);
            g1_add(&t, &t, &gq);
            g1_to_aff(&a, &t);
            check_subgroup_agrees(&a, &inside, &outside);
            CHECK(!g1_aff_is_in_group(&a));
            torsion++;
        }
    }
    /* (0, +-2): order 3 */
    {
        g1_aff_t z;
        fp_t two;
        fp_from_u64(&two, 2);
        z.x = FP_ZERO;
        z.y = two;
        CHECK(g1_aff_is_on_curve(&z));
        check_subgroup_agrees(&z, &inside, &outside);
        CHECK(!g1_aff_is_in_group(&z));
    }
    CHECK_MSG(inside >= 20 && outside >= 100 && torsion >= 70, "inside=%d outside=%d torsion=%d",
              inside, outside, torsion);
}

TEST(g1_encoding_round_trips)
{
    cz_prng *g = test_prng();
    for (int it = 0; it < 30; it++) {
        g1_aff_t a, d;
        g1_t p;
        uint8_t c[48], u[96], cn[48];
        bool in_group = it % 3 != 0;

        if (in_group) {
            rand_g1(g, &p);
            g1_to_aff(&a, &p);
        } else {
            rand_e1(g, &a);
        }
        g1_aff_to_compressed(c, &a);
        g1_aff_to_uncompressed(u, &a);
        CHECK((c[0] & 0xc0) == 0x80);
        CHECK((u[0] & 0xe0) == 0);
        CHECK_OK(g1_aff_from_compressed(&d, c, false));
        CHECK(g1_aff_eq(&d, &a));
        CHECK_OK(g1_aff_from_uncompressed(&d, u, false));
        CHECK(g1_aff_eq(&d, &a));
        CHECK_ERR(g1_aff_from_compressed(&d, c, true), in_group ? CUZK_OK : CUZK_E_NOT_IN_GROUP);
        CHECK_ERR(g1_aff_from_uncompressed(&d, u, true), in_group ? CUZK_OK : CUZK_E_NOT_IN_GROUP);
        /* -P differs in the sign bit only */
        g1_aff_neg(&d, &a);
        g1_aff_to_compressed(cn, &d);
        CHECK((c[0] ^ cn[0]) == 0x20);
        CHECK(memcmp(c + 1, cn + 1, 47) == 0);
        /* every flag combination: only the right one is accepted as P, the flipped sign as -P */
        for (unsigned f = 0; f < 8; f++) {
            uint8_t cc[48], uu[96];
            uint8_t flags = (uint8_t)(f << 5);
            cuzk_err e;
            memcpy(cc, c, 48);
            cc[0] = (uint8_t)((cc[0] & 0x1f) | flags);
            e = g1_aff_from_compressed(&d, cc, false);
            if (flags == (c[0] & 0xe0)) {
                CHECK_OK(e);
                CHECK(g1_aff_eq(&d, &a));
            } else if (flags == ((c[0] & 0xe0) ^ 0x20)) {
                g1_aff_t na;
                CHECK_OK(e);
                g1_aff_neg(&na, &a);
                CHECK(g1_aff_eq(&d, &na));
            } else {
                CHECK_ERR(e, CUZK_E_FORMAT);
            }
            memcpy(uu, u, 96);
            uu[0] = (uint8_t)(uu[0] | flags);
            CHECK_ERR(g1_aff_from_uncompressed(&d, uu, false), flags ? CUZK_E_FORMAT : CUZK_OK);
        }
    }
    {
        g1_aff_t o, d;
        uint8_t c[48], u[96];
        g1_aff_set_identity(&o);
        g1_aff_to_compressed(c, &o);
        g1_aff_to_uncompressed(u, &o);
        CHECK(c[0] == 0xc0 && curve_util_zero(c + 1, 47));
        CHECK(u[0] == 0x40 && curve_util_zero(u + 1, 95));
        CHECK_OK(g1_aff_from_compressed(&d, c, true));
        CHECK(g1_aff_is_identity(&d));
        CHECK_OK(g1_aff_from_uncompressed(&d, u, true));
        CHECK(g1_aff_is_identity(&d));
        CHECK(g1_aff_is_in_group(&o));
        CHECK(g1_aff_is_on_curve(&o));
    }
}
