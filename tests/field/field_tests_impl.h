/* field_tests_impl.h - the tests Fp and Fr share; a template included once by test_fp.c and once
 * by test_fr.c, after field_test_util.h and the field's vectors. The includer defines:
 *   FE                    the field type (fp_t or fr_t)
 *   FE_FN(suffix)         the field's names, e.g. fp##suffix (functions, vectors, test names)
 *   FE_NLIMBS, FE_MODULUS the limb count and the modulus (FP_NLIMBS, FP_MODULUS, ...)
 *   FE_ONE, FE_INV_EXP    one, and m - 2 as limbs (Fermat's inverse exponent)
 *   HEX_FE, RAND_FE       hex_fp / hex_fr and rand_fp / rand_fr (field_test_util.h)
 *   FE_FROM_LIMBS(out, l) canonical limbs to an element (false for l >= m)
 *   FE_TO_LIMBS(l, a)     an element to canonical limbs
 *   FE_RING_LAWS_EXTRA    optional: a function (a, b, c) with the field's further laws
 * What the fields do not share (encodings, constants, square roots, Fr's batch inversion and
 * wide sums, the dispatch) stays in the includer.
 */

/* Registers TEST(name) with name expanded first (TEST pastes its argument as it is). */
#define FE_TEST(name) TEST(name)

static void kat_bin(const struct field_vec2 *v, size_t n, void (*op)(FE *, const FE *, const FE *))
{
    for (size_t i = 0; i < n; i++) {
        FE a, b, want, got;
        HEX_FE(&a, v[i].a);
        HEX_FE(&b, v[i].b);
        HEX_FE(&want, v[i].out);
        op(&got, &a, &b);
        CHECK_MSG(FE_FN(_eq)(&got, &want), "vector %zu", i);
        /* aliasing: out == a, out == b */
        got = a;
        op(&got, &got, &b);
        CHECK(FE_FN(_eq)(&got, &want));
        got = b;
        op(&got, &a, &got);
        CHECK(FE_FN(_eq)(&got, &want));
    }
}

static void kat_un(const struct field_vec1 *v, size_t n, void (*op)(FE *, const FE *))
{
    for (size_t i = 0; i < n; i++) {
        FE a, want, got;
        HEX_FE(&a, v[i].a);
        HEX_FE(&want, v[i].out);
        op(&got, &a);
        CHECK_MSG(FE_FN(_eq)(&got, &want), "vector %zu", i);
        op(&a, &a);
        CHECK(FE_FN(_eq)(&a, &want));
    }
}

FE_TEST(FE_FN(_kat_add_sub_mul_sqr_inv))
{
    FOR_EACH_KERNEL({
        kat_bin(FE_FN(_add_vectors), ARRAY_LEN(FE_FN(_add_vectors)), FE_FN(_add));
        kat_bin(FE_FN(_sub_vectors), ARRAY_LEN(FE_FN(_sub_vectors)), FE_FN(_sub));
        kat_bin(FE_FN(_mul_vectors), ARRAY_LEN(FE_FN(_mul_vectors)), FE_FN(_mul));
        kat_un(FE_FN(_sqr_vectors), ARRAY_LEN(FE_FN(_sqr_vectors)), FE_FN(_sqr));
        kat_un(FE_FN(_inv_vectors), ARRAY_LEN(FE_FN(_inv_vectors)), FE_FN(_inv));
    });
}

FE_TEST(FE_FN(_mul_vs_naive))
{
    FOR_EACH_KERNEL({
        for (int i = 0; i < 500; i++) {
            uint64_t a[FE_NLIMBS], b[FE_NLIMBS], want[FE_NLIMBS], got[FE_NLIMBS];
            FE x, y, z;
            rand_edge_below(a, FE_MODULUS, FE_NLIMBS);
            rand_edge_below(b, FE_MODULUS, FE_NLIMBS);
            naive_mulmod(want, a, b, FE_MODULUS, FE_NLIMBS);
            CHECK(FE_FROM_LIMBS(&x, a));
            CHECK(FE_FROM_LIMBS(&y, b));
            FE_FN(_mul)(&z, &x, &y);
            FE_TO_LIMBS(got, &z);
            CHECK_MEM_EQ(got, want, sizeof(got));
            naive_mulmod(want, a, a, FE_MODULUS, FE_NLIMBS);
            FE_FN(_sqr)(&z, &x);
            FE_TO_LIMBS(got, &z);
            CHECK_MEM_EQ(got, want, sizeof(got));
        }
    });
}

#ifndef FE_RING_LAWS_EXTRA
#    define FE_RING_LAWS_EXTRA(a, b, c) ((void)0)
#endif

FE_TEST(FE_FN(_ring_laws))
{
    FOR_EACH_KERNEL({
        for (int i = 0; i < NRAND; i++) {
            FE a, b, c, t, u, v;
            RAND_FE(&a);
            RAND_FE(&b);
            RAND_FE(&c);
            /* commutativity, associativity, distributivity */
            FE_FN(_add)(&t, &a, &b);
            FE_FN(_add)(&u, &b, &a);
            CHECK(FE_FN(_eq)(&t, &u));
            FE_FN(_mul)(&t, &a, &b);
            FE_FN(_mul)(&u, &b, &a);
            CHECK(FE_FN(_eq)(&t, &u));
            FE_FN(_mul)(&t, &t, &c);
            FE_FN(_mul)(&u, &b, &c);
            FE_FN(_mul)(&u, &a, &u);
            CHECK(FE_FN(_eq)(&t, &u));
            FE_FN(_add)(&t, &b, &c);
            FE_FN(_mul)(&t, &a, &t);
            FE_FN(_mul)(&u, &a, &b);
            FE_FN(_mul)(&v, &a, &c);
            FE_FN(_add)(&u, &u, &v);
            CHECK(FE_FN(_eq)(&t, &u));
            /* (a - b) + b = a; a + (-a) = 0; dbl; sqr */
            FE_FN(_sub)(&t, &a, &b);
            FE_FN(_add)(&t, &t, &b);
            CHECK(FE_FN(_eq)(&t, &a));
            FE_FN(_neg)(&t, &a);
            FE_FN(_add)(&t, &t, &a);
            CHECK(FE_FN(_is_zero)(&t));
            FE_FN(_dbl)(&t, &a);
            FE_FN(_add)(&u, &a, &a);
            CHECK(FE_FN(_eq)(&t, &u));
            FE_FN(_sqr)(&t, &a);
            FE_FN(_mul)(&u, &a, &a);
            CHECK(FE_FN(_eq)(&t, &u));
            FE_RING_LAWS_EXTRA(&a, &b, &c);
        }
    });
}

FE_TEST(FE_FN(_adx_matches_portable))
{
#if FIELD_HAVE_ADX_KERNELS
    if (!field_cpu_has_adx()) {
        test_skip("CPU lacks ADX/BMI2");
    }
    CHECK_STR_EQ(FE_FN(_impl_name)(), "adx");
    for (int i = 0; i < 20000; i++) {
        uint64_t a[FE_NLIMBS], b[FE_NLIMBS], w[FE_NLIMBS], g[FE_NLIMBS];
        rand_edge_below(a, FE_MODULUS, FE_NLIMBS);
        rand_edge_below(b, FE_MODULUS, FE_NLIMBS);
        FE_FN(_mul_portable)(w, a, b);
        FE_FN(_mul_adx)(g, a, b);
        CHECK_MEM_EQ(g, w, sizeof(g));
        FE_FN(_sqr_portable)(w, a);
        FE_FN(_sqr_adx)(g, a);
        CHECK_MEM_EQ(g, w, sizeof(g));
        /* aliasing: out == a, out == b, and a squaring in place */
        FE_FN(_mul_portable)(w, a, b);
        memcpy(g, a, sizeof(g));
        FE_FN(_mul_adx)(g, g, b);
        CHECK_MEM_EQ(g, w, sizeof(g));
        memcpy(g, b, sizeof(g));
        FE_FN(_mul_adx)(g, a, g);
        CHECK_MEM_EQ(g, w, sizeof(g));
        memcpy(g, a, sizeof(g));
        FE_FN(_sqr_adx)(g, g);
        FE_FN(_sqr_portable)(w, a);
        CHECK_MEM_EQ(g, w, sizeof(g));
    }
#else
    test_skip("no ADX kernels in this build");
#endif
}

FE_TEST(FE_FN(_addsub_matches_portable))
{
    /* add/sub (inline assembly on x86-64) against the portable C versions */
    for (int i = 0; i < 20000; i++) {
        FE a, b, got;
        uint64_t want[FE_NLIMBS];
        rand_edge_below(a.l, FE_MODULUS, FE_NLIMBS);
        rand_edge_below(b.l, FE_MODULUS, FE_NLIMBS);
        FE_FN(_add)(&got, &a, &b);
        FE_FN(_add_portable)(want, a.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        CHECK(limbs_lt(got.l, FE_MODULUS, FE_NLIMBS));
        FE_FN(_sub)(&got, &a, &b);
        FE_FN(_sub_portable)(want, a.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        CHECK(limbs_lt(got.l, FE_MODULUS, FE_NLIMBS));
        got = a;
        FE_FN(_sub)(&got, &b, &got);
        FE_FN(_sub_portable)(want, b.l, a.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
        got = b;
        FE_FN(_add)(&got, &got, &got);
        FE_FN(_add_portable)(want, b.l, b.l);
        CHECK_MEM_EQ(got.l, want, sizeof(want));
    }
    if (!FIELD_HAVE_X86_ADDSUB) {
        test_skip("no assembly add/sub in this build: compared the portable code with itself");
    }
}

/* out = a^e bit by bit (e: n limbs), the simplest square-and-multiply: the reference for the
 * windowed path of the field's pow. */
static void naive_pow(FE *out, const FE *a, const uint64_t *e, size_t n)
{
    FE acc = FE_ONE;
    for (size_t i = n; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            FE_FN(_mul)(&acc, &acc, &acc);
            if ((e[i] >> bit) & 1) {
                FE_FN(_mul)(&acc, &acc, a);
            }
        }
    }
    *out = acc;
}

FE_TEST(FE_FN(_inv_vs_fermat))
{
    /* safegcd inversion against a^(m-2) (Fermat), on random and edge values (and small powers
     * of two, whose divsteps runs are long), with both kernels */
    FOR_EACH_KERNEL({
        for (int i = 0; i < 400; i++) {
            FE a, want, got;
            if (i < 40) {
                FE_FN(_from_u64)(&a, 1ULL << (i % 64));
                if (i >= 20) {
                    FE_FN(_neg)(&a, &a);
                }
            } else {
                RAND_FE(&a);
            }
            naive_pow(&want, &a, FE_INV_EXP, FE_NLIMBS);
            FE_FN(_inv)(&got, &a);
            CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
            got = a;
            FE_FN(_inv)(&got, &got);
            CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
        }
    });
}

FE_TEST(FE_FN(_pow_multi_limb))
{
    for (int i = 0; i < 50; i++) {
        FE a, want, got;
        uint64_t e[FE_NLIMBS + 1];
        size_t n = 1 + cz_prng_below(test_prng(), FE_NLIMBS + 1);
        RAND_FE(&a);
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
        FE_FN(_pow)(&got, &a, e, n);
        CHECK_MEM_EQ(got.l, want.l, sizeof(want.l));
    }
    /* a^(m-1) = 1, a^0 = 1 */
    FE a, t;
    uint64_t m1[FE_NLIMBS];
    memcpy(m1, FE_MODULUS, sizeof(m1));
    m1[0] -= 1;
    do {
        RAND_FE(&a);
    } while (FE_FN(_is_zero)(&a));
    FE_FN(_pow)(&t, &a, m1, FE_NLIMBS);
    CHECK(FE_FN(_is_one)(&t));
    FE_FN(_pow)(&t, &a, m1, 0);
    CHECK(FE_FN(_is_one)(&t));
}
