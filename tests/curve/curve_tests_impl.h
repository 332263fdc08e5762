/* curve_tests_impl.h - the tests G1 and G2 share; a template included once by test_g1.c and once
 * by test_g2.c. Known answers from @noble/curves 2.4.0 (g1_vectors.h, g2_vectors.h), group laws,
 * scalar multiplication against a naive double-and-add, batch conversion, encodings, and the
 * fast subgroup test against the plain [r]P = O test on points inside and outside the group
 * (including points of every prime order dividing the cofactor). The includer defines:
 *   AFF, JAC, FE              affine and Jacobian point types, the coordinate field type
 *   GFN(suffix)               the group's names, e.g. g1##suffix (functions, vectors, tests)
 *   GEN                       the generator (G1_GEN, G2_GEN)
 *   COMP, UNCOMP              bytes of the compressed and uncompressed encodings
 *   RAND_G, RAND_E            a random point of the group / of the whole curve (curve_util.h)
 *   COFACTOR_LIMBS, COFACTOR_PRIMES   h and its prime factors (cofactor_vectors.h)
 *   ITERS_GROUP_LAWS, ITERS_SCALAR_MUL, ITERS_SUBGROUP, ITERS_ENCODING   random rounds
 *   BATCH_N                   points in the batch conversion test
 *   MIN_INSIDE, MIN_OUTSIDE, MIN_TORSION   least counts the subgroup test must reach
 *   SUBGROUP_EXTRA            optional: a function (int *inside, int *outside) of further
 *                             subgroup cases, defined after the #include
 *   ENCODING_EXTRA            optional: a function (const AFF *a, const uint8_t *compressed,
 *                             const uint8_t *uncompressed) of further encoding checks, likewise
 * What the groups do not share (the spec's generator, the constants, psi, the on-curve
 * perturbations) stays in the includer.
 */

/* Registers TEST(name) with name expanded first (TEST pastes its argument as it is). */
#define G_TEST(name) TEST(name)

#ifdef SUBGROUP_EXTRA
static void SUBGROUP_EXTRA(int *inside, int *outside);
#endif
#ifdef ENCODING_EXTRA
static void ENCODING_EXTRA(const AFF *a, const uint8_t *compressed, const uint8_t *uncompressed);
#endif

/* The plain subgroup test: [r] P == O. */
static bool in_group_naive(const AFF *p)
{
    JAC t;
    GFN(_from_aff)(&t, p);
    GFN(_mul_limbs)(&t, &t, CURVE_R_LIMBS, 4);
    return GFN(_is_identity)(&t);
}

static void check_eq(const JAC *a, const JAC *b)
{
    AFF x, y;
    uint8_t ex[UNCOMP], ey[UNCOMP];
    GFN(_to_aff)(&x, a);
    GFN(_to_aff)(&y, b);
    GFN(_aff_to_uncompressed)(ex, &x);
    GFN(_aff_to_uncompressed)(ey, &y);
    CHECK(GFN(_eq)(a, b));
    CHECK_MEM_EQ(ex, ey, UNCOMP);
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

G_TEST(GFN(_mul_kat))
{
    JAC gen, p;
    AFF a, dec;
    uint8_t c[COMP], u[UNCOMP];

    GFN(_from_aff)(&gen, &GEN);
    for (size_t i = 0; i < ARRAY_LEN(GFN(_mul_vectors)); i++) {
        const struct GFN(_mul_vector) *v = &GFN(_mul_vectors)[i];
        fr_repr_t k;
        fr_t kf;
        fr_repr_from_le(&k, v->k);
        GFN(_mul)(&p, &gen, &k);
        GFN(_to_aff)(&a, &p);
        GFN(_aff_to_compressed)(c, &a);
        GFN(_aff_to_uncompressed)(u, &a);
        CHECK_MEM_EQ(c, v->compressed, COMP);
        CHECK_MEM_EQ(u, v->uncompressed, UNCOMP);
        /* the same through mul_fr and through a naive double-and-add */
        CHECK(fr_from_repr(&kf, &k));
        GFN(_mul_fr)(&p, &gen, &kf);
        GFN(_to_aff)(&dec, &p);
        CHECK(GFN(_aff_eq)(&dec, &a));
        GFN(_mul_naive)(&p, &gen, k.l, 4);
        GFN(_to_aff)(&dec, &p);
        CHECK(GFN(_aff_eq)(&dec, &a));
        /* both encodings decode (with and without the group check) to the point */
        CHECK_OK(GFN(_aff_from_compressed)(&dec, v->compressed, true));
        CHECK(GFN(_aff_eq)(&dec, &a));
        CHECK_OK(GFN(_aff_from_uncompressed)(&dec, v->uncompressed, true));
        CHECK(GFN(_aff_eq)(&dec, &a));
        CHECK_OK(GFN(_aff_from_compressed)(&dec, v->compressed, false));
        CHECK(GFN(_aff_eq)(&dec, &a));
        CHECK(GFN(_aff_is_in_group)(&a));
    }
}

G_TEST(GFN(_add_kat))
{
    cz_prng *g = test_prng();
    for (size_t i = 0; i < ARRAY_LEN(GFN(_add_vectors)); i++) {
        const struct GFN(_add_vector) *v = &GFN(_add_vectors)[i];
        AFF a, b, s, got;
        JAC ja, jb, js;
        uint8_t c[COMP];

        CHECK_OK(GFN(_aff_from_compressed)(&a, v->a, true));
        CHECK_OK(GFN(_aff_from_compressed)(&b, v->b, true));
        CHECK_OK(GFN(_aff_from_compressed)(&s, v->sum, true));
        GFN(_from_aff)(&ja, &a);
        GFN(_from_aff)(&jb, &b);
        if (!GFN(_is_identity)(&ja)) {
            GFN(_rescale)(g, &ja);
        }
        if (!GFN(_is_identity)(&jb)) {
            GFN(_rescale)(g, &jb);
        }
        GFN(_add)(&js, &ja, &jb);
        GFN(_to_aff)(&got, &js);
        GFN(_aff_to_compressed)(c, &got);
        CHECK_MEM_EQ(c, v->sum, COMP);
        GFN(_add_aff)(&js, &ja, &b);
        GFN(_to_aff)(&got, &js);
        CHECK(GFN(_aff_eq)(&got, &s));
        /* aliasing: out = a */
        GFN(_add)(&ja, &ja, &jb);
        GFN(_to_aff)(&got, &ja);
        CHECK(GFN(_aff_eq)(&got, &s));
        /* sum - b = a */
        GFN(_sub)(&js, &ja, &jb);
        GFN(_to_aff)(&got, &js);
        CHECK(GFN(_aff_eq)(&got, &a));
    }
}

G_TEST(GFN(_decode_vectors))
{
    for (size_t i = 0; i < ARRAY_LEN(GFN(_decode_vectors)); i++) {
        const struct GFN(_decode_vector) *v = &GFN(_decode_vectors)[i];
        for (int chk = 0; chk < 2; chk++) {
            AFF p;
            cuzk_err want = chk ? v->err_checked : v->err_unchecked;
            cuzk_err got = v->compressed ? GFN(_aff_from_compressed)(&p, v->in, chk != 0)
                                         : GFN(_aff_from_uncompressed)(&p, v->in, chk != 0);
            CHECK_MSG(got == want, "%s (check_group=%d): got %s, want %s", v->name, chk,
                      cuzk_errname(got), cuzk_errname(want));
            if (got == CUZK_OK) {
                uint8_t u[UNCOMP];
                GFN(_aff_to_uncompressed)(u, &p);
                CHECK_MSG(memcmp(u, v->expect, UNCOMP) == 0, "%s: wrong point", v->name);
                if (v->compressed) {
                    /* and it re-encodes to the same compressed bytes */
                    uint8_t c[COMP];
                    GFN(_aff_to_compressed)(c, &p);
                    CHECK_MSG(memcmp(c, v->in, COMP) == 0, "%s: re-encoding differs", v->name);
                }
                CHECK(GFN(_aff_is_on_curve)(&p));
            } else {
                CHECK(GFN(_aff_is_identity)(&p)); /* failures leave the identity */
            }
        }
    }
}

G_TEST(GFN(_group_laws))
{
    cz_prng *g = test_prng();
    for (int it = 0; it < ITERS_GROUP_LAWS; it++) {
        JAC a, b, c, t1, t2, o, na;
        AFF ba;

        RAND_G(g, &a);
        RAND_G(g, &b);
        RAND_G(g, &c);
        GFN(_set_identity)(&o);
        /* commutativity, associativity */
        GFN(_add)(&t1, &a, &b);
        GFN(_add)(&t2, &b, &a);
        check_eq(&t1, &t2);
        GFN(_add)(&t1, &t1, &c);
        GFN(_add)(&t2, &b, &c);
        GFN(_add)(&t2, &a, &t2);
        check_eq(&t1, &t2);
        /* identity, inverse */
        GFN(_add)(&t1, &a, &o);
        check_eq(&t1, &a);
        GFN(_add)(&t1, &o, &a);
        check_eq(&t1, &a);
        GFN(_neg)(&na, &a);
        GFN(_add)(&t1, &a, &na);
        CHECK(GFN(_is_identity)(&t1));
        GFN(_sub)(&t1, &a, &a);
        CHECK(GFN(_is_identity)(&t1));
        /* doubling through add (another Z) and dbl */
        t2 = a;
        GFN(_rescale)(g, &t2);
        GFN(_add)(&t1, &a, &t2);
        GFN(_dbl)(&t2, &a);
        check_eq(&t1, &t2);
        /* mixed addition agrees with full addition, including the doubling and inverse cases */
        GFN(_to_aff)(&ba, &b);
        GFN(_add_aff)(&t1, &a, &ba);
        GFN(_add)(&t2, &a, &b);
        check_eq(&t1, &t2);
        GFN(_add_aff)(&t1, &b, &ba);
        GFN(_dbl)(&t2, &b);
        check_eq(&t1, &t2);
        GFN(_aff_neg)(&ba, &ba);
        GFN(_add_aff)(&t1, &b, &ba);
        CHECK(GFN(_is_identity)(&t1));
        GFN(_add_aff)(&t1, &o, &ba);
        GFN(_neg)(&t2, &b);
        check_eq(&t1, &t2);
        /* results stay on the curve; eq rejects different points */
        CHECK(GFN(_is_on_curve)(&t1));
        CHECK(!GFN(_eq)(&a, &b));
        CHECK(!GFN(_eq)(&a, &o));
        CHECK(GFN(_eq)(&o, &o));
    }
    {
        JAC o, t;
        AFF oa;
        GFN(_set_identity)(&o);
        GFN(_dbl)(&t, &o);
        CHECK(GFN(_is_identity)(&t));
        GFN(_aff_set_identity)(&oa);
        GFN(_add_aff)(&t, &o, &oa);
        CHECK(GFN(_is_identity)(&t));
        GFN(_to_aff)(&oa, &o);
        CHECK(GFN(_aff_is_identity)(&oa));
        GFN(_aff_neg)(&oa, &oa);
        CHECK(GFN(_aff_is_identity)(&oa));
    }
}

G_TEST(GFN(_scalar_mul_properties))
{
    cz_prng *g = test_prng();
    JAC gen, t1, t2, t3;
    fr_repr_t r1;
    uint64_t big[10];

    GFN(_from_aff)(&gen, &GEN);
    for (int it = 0; it < ITERS_SCALAR_MUL; it++) {
        fr_t a, b, s;
        fr_repr_t ar, br, sr;
        JAC p;
        RAND_G(g, &p);
        rand_fr(g, &a);
        rand_fr(g, &b);
        fr_to_repr(&ar, &a);
        fr_to_repr(&br, &b);
        /* [a]P + [b]P = [a + b]P */
        fr_add(&s, &a, &b);
        fr_to_repr(&sr, &s);
        GFN(_mul)(&t1, &p, &ar);
        GFN(_mul)(&t2, &p, &br);
        GFN(_add)(&t1, &t1, &t2);
        GFN(_mul)(&t2, &p, &sr);
        check_eq(&t1, &t2);
        /* [a]([b]P) = [ab]P */
        fr_mul(&s, &a, &b);
        fr_to_repr(&sr, &s);
        GFN(_mul)(&t1, &p, &br);
        GFN(_mul)(&t1, &t1, &ar); /* aliasing */
        GFN(_mul)(&t2, &p, &sr);
        check_eq(&t1, &t2);
        /* a 640-bit scalar against the naive reference */
        for (size_t i = 0; i < 10; i++) {
            big[i] = cz_prng_u64(g);
        }
        GFN(_mul_limbs)(&t1, &p, big, 10);
        GFN(_mul_naive)(&t2, &p, big, 10);
        check_eq(&t1, &t2);
        /* small scalars, where the top window is partial */
        for (uint64_t k = 0; k < 40; k++) {
            GFN(_mul_limbs)(&t1, &p, &k, 1);
            GFN(_mul_naive)(&t2, &p, &k, 1);
            check_eq(&t1, &t2);
        }
    }
    /* [r]G = O, [r - 1]G = -G, [0]G = O, [k]O = O */
    for (size_t i = 0; i < 4; i++) {
        r1.l[i] = CURVE_R_LIMBS[i];
    }
    GFN(_mul)(&t1, &gen, &r1);
    CHECK(GFN(_is_identity)(&t1));
    r1.l[0] -= 1;
    GFN(_mul)(&t1, &gen, &r1);
    GFN(_neg)(&t2, &gen);
    check_eq(&t1, &t2);
    memset(&r1, 0, sizeof(r1));
    GFN(_mul)(&t1, &gen, &r1);
    CHECK(GFN(_is_identity)(&t1));
    GFN(_set_identity)(&t3);
    rand_fr_repr(g, &r1);
    GFN(_mul)(&t1, &t3, &r1);
    CHECK(GFN(_is_identity)(&t1));
    GFN(_mul_limbs)(&t1, &gen, big, 0);
    CHECK(GFN(_is_identity)(&t1));
}

G_TEST(GFN(_batch_to_aff))
{
    cz_prng *g = test_prng();
    JAC pts[BATCH_N];
    AFF out[BATCH_N], one;
    FE scratch[BATCH_N];

    for (size_t i = 0; i < BATCH_N; i++) {
        RAND_G(g, &pts[i]);
    }
    GFN(_set_identity)(&pts[0]);
    GFN(_set_identity)(&pts[BATCH_N / 2 - 1]);
    GFN(_set_identity)(&pts[BATCH_N - 1]);
    GFN(_batch_to_aff)(out, pts, BATCH_N, scratch);
    for (size_t i = 0; i < BATCH_N; i++) {
        GFN(_to_aff)(&one, &pts[i]);
        CHECK(GFN(_aff_eq)(&one, &out[i]));
    }
    GFN(_batch_to_aff)(out, pts, 0, scratch);
}

/* Compares the fast subgroup test with [r]P = O on one point; counts the outcomes. */
static void check_subgroup_agrees(const AFF *p, int *inside, int *outside)
{
    bool fast = GFN(_aff_is_in_group)(p);
    bool naive = in_group_naive(p);
    CHECK_MSG(fast == naive, "fast subgroup test says %d, [r]P = O says %d", fast, naive);
    if (naive) {
        (*inside)++;
    } else {
        (*outside)++;
    }
}

G_TEST(GFN(_subgroup_check_vs_naive))
{
    cz_prng *g = test_prng();
    enum { HN = ARRAY_LEN(COFACTOR_LIMBS) };
    uint64_t small[ARRAY_LEN(COFACTOR_PRIMES)];
    size_t nsmall = 0;
    int inside = 0, outside = 0, torsion = 0;

    for (size_t i = 0; i < ARRAY_LEN(COFACTOR_PRIMES); i++) {
        if (COFACTOR_PRIMES[i].nlimbs == 1) {
            small[nsmall++] = COFACTOR_PRIMES[i].q[0];
        }
    }
    for (int it = 0; it < ITERS_SUBGROUP; it++) {
        AFF e, a;
        JAC p, t;
        RAND_E(g, &e);
        CHECK(GFN(_aff_is_on_curve)(&e));
        check_subgroup_agrees(&e, &inside, &outside); /* random curve point */
        GFN(_from_aff)(&p, &e);
        GFN(_mul_limbs)(&t, &p, COFACTOR_LIMBS, HN); /* cleared cofactor: inside */
        GFN(_to_aff)(&a, &t);
        check_subgroup_agrees(&a, &inside, &outside);
        CHECK(GFN(_aff_is_in_group)(&a));
        GFN(_mul_limbs)(&t, &p, CURVE_R_LIMBS, 4); /* pure torsion: outside unless O */
        GFN(_to_aff)(&a, &t);
        check_subgroup_agrees(&a, &inside, &outside);
        /* points of each prime order q | h: [q^k][r h / q^m] e for the largest k with a
         * nonzero result */
        for (size_t i = 0; i < ARRAY_LEN(COFACTOR_PRIMES); i++) {
            const struct curve_prime_factor *q = &COFACTOR_PRIMES[i];
            uint64_t c[HN];
            JAC gq, tq;
            cofactor_strip_prime(c, COFACTOR_LIMBS, HN, q->q, q->nlimbs, small, nsmall);
            GFN(_mul_limbs)(&t, &p, c, HN);
            GFN(_mul_limbs)(&t, &t, CURVE_R_LIMBS, 4);
            if (GFN(_is_identity)(&t)) {
                continue;
            }
            for (;;) {
                GFN(_mul_limbs)(&tq, &t, q->q, q->nlimbs);
                if (GFN(_is_identity)(&tq)) {
                    break;
                }
                t = tq;
            }
            GFN(_to_aff)(&a, &t);
            check_subgroup_agrees(&a, &inside, &outside);
            CHECK(!GFN(_aff_is_in_group)(&a));
            /* the torsion point plus a subgroup element */
            RAND_G(g, &gq);
            GFN(_add)(&t, &t, &gq);
            GFN(_to_aff)(&a, &t);
            check_subgroup_agrees(&a, &inside, &outside);
            CHECK(!GFN(_aff_is_in_group)(&a));
            torsion++;
        }
    }
#ifdef SUBGROUP_EXTRA
    SUBGROUP_EXTRA(&inside, &outside);
#endif
    CHECK_MSG(inside >= MIN_INSIDE && outside >= MIN_OUTSIDE && torsion >= MIN_TORSION,
              "inside=%d outside=%d torsion=%d", inside, outside, torsion);
}

G_TEST(GFN(_encoding_round_trips))
{
    cz_prng *g = test_prng();
    for (int it = 0; it < ITERS_ENCODING; it++) {
        AFF a, d;
        JAC p;
        uint8_t c[COMP], u[UNCOMP], cn[COMP];
        bool in_group = it % 3 != 0;

        if (in_group) {
            RAND_G(g, &p);
            GFN(_to_aff)(&a, &p);
        } else {
            RAND_E(g, &a);
        }
        GFN(_aff_to_compressed)(c, &a);
        GFN(_aff_to_uncompressed)(u, &a);
        CHECK((c[0] & 0xc0) == 0x80);
        CHECK((u[0] & 0xe0) == 0);
#ifdef ENCODING_EXTRA
        ENCODING_EXTRA(&a, c, u);
#endif
        CHECK_OK(GFN(_aff_from_compressed)(&d, c, false));
        CHECK(GFN(_aff_eq)(&d, &a));
        CHECK_OK(GFN(_aff_from_uncompressed)(&d, u, false));
        CHECK(GFN(_aff_eq)(&d, &a));
        CHECK_ERR(GFN(_aff_from_compressed)(&d, c, true), in_group ? CUZK_OK : CUZK_E_NOT_IN_GROUP);
        CHECK_ERR(GFN(_aff_from_uncompressed)(&d, u, true),
                  in_group ? CUZK_OK : CUZK_E_NOT_IN_GROUP);
        /* -P differs in the sign bit only */
        GFN(_aff_neg)(&d, &a);
        GFN(_aff_to_compressed)(cn, &d);
        CHECK((c[0] ^ cn[0]) == 0x20);
        CHECK(memcmp(c + 1, cn + 1, COMP - 1) == 0);
        /* every flag combination: only the right one is accepted as P, the flipped sign as -P */
        for (unsigned f = 0; f < 8; f++) {
            uint8_t cc[COMP], uu[UNCOMP];
            uint8_t flags = (uint8_t)(f << 5);
            cuzk_err e;
            memcpy(cc, c, COMP);
            cc[0] = (uint8_t)((cc[0] & 0x1f) | flags);
            e = GFN(_aff_from_compressed)(&d, cc, false);
            if (flags == (c[0] & 0xe0)) {
                CHECK_OK(e);
                CHECK(GFN(_aff_eq)(&d, &a));
            } else if (flags == ((c[0] & 0xe0) ^ 0x20)) {
                AFF na;
                CHECK_OK(e);
                GFN(_aff_neg)(&na, &a);
                CHECK(GFN(_aff_eq)(&d, &na));
            } else {
                CHECK_ERR(e, CUZK_E_FORMAT);
            }
            memcpy(uu, u, UNCOMP);
            uu[0] = (uint8_t)(uu[0] | flags);
            CHECK_ERR(GFN(_aff_from_uncompressed)(&d, uu, false), flags ? CUZK_E_FORMAT : CUZK_OK);
        }
    }
    {
        AFF o, d;
        uint8_t c[COMP], u[UNCOMP];
        GFN(_aff_set_identity)(&o);
        GFN(_aff_to_compressed)(c, &o);
        GFN(_aff_to_uncompressed)(u, &o);
        CHECK(c[0] == 0xc0 && curve_util_zero(c + 1, COMP - 1));
        CHECK(u[0] == 0x40 && curve_util_zero(u + 1, UNCOMP - 1));
        CHECK_OK(GFN(_aff_from_compressed)(&d, c, true));
        CHECK(GFN(_aff_is_identity)(&d));
        CHECK_OK(GFN(_aff_from_uncompressed)(&d, u, true));
        CHECK(GFN(_aff_is_identity)(&d));
        CHECK(GFN(_aff_is_in_group)(&o));
        CHECK(GFN(_aff_is_on_curve)(&o));
    }
}
