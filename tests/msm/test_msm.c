/* test_msm.c - MSM over G1 and G2 against independent references:
 *   - known answers from @noble/curves 2.4.0 (msm_kat.h, tests/msm/gen_msm_kat.mjs);
 *   - the naive sum of g1_mul/g2_mul products (curve module), and for a few terms a bit-serial
 *     double-and-add that uses only g1_dbl/g1_add (no Booth recoding, unlike both g1_mul and
 *     the MSM);
 *   - for large n, bases with known discrete logs (P_i = [a_i]G built by additions), where the
 *     MSM must equal [sum s_i a_i mod r]G, the sum computed in Fr.
 * Every call runs on garbage-filled scratch of exactly the advertised size followed by a canary.
 */
#include <stdlib.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/bls12_381_consts.h"
#include "field/fp.h"
#include "field/fr.h"
#include "harness/test.h"
#include "msm/msm.h"
#include "msm/internal.h"
#include "msm/msm_kat.h"

/* ---------------------------------------------------------------- scalars */

static fr_repr_t repr_u64(uint64_t v)
{
    fr_repr_t r = {{v, 0, 0, 0}};
    return r;
}

static void rand_scalar(fr_repr_t *s, cz_prng *g)
{
    fr_t t;
    do {
        for (int i = 0; i < 4; i++) {
            s->l[i] = cz_prng_u64(g);
        }
        s->l[3] &= 0x7fffffffffffffffull;
    } while (!fr_from_repr(&t, s));
}

/* Scalars that stress digits: window boundaries, the top bits, the range ends (r - 1 and r - 2,
 * r from spec groth16.md 1.1), non-canonical values just below 2^255 (accepted: the MSM takes
 * any scalar < 2^255). Little-endian limbs. */
static const fr_repr_t EDGE_SCALARS[] = {
    {{0, 0, 0, 0}},
    {{1, 0, 0, 0}},
    {{2, 0, 0, 0}},
    {{0xffffffff00000000, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}}, /* r-1 */
    {{0xfffffffeffffffff, 0x53bda402fffe5bfe, 0x3339d80809a1d805, 0x73eda753299d7d48}}, /* r-2 */
    {{~0ull, ~0ull, ~0ull, 0x7fffffffffffffff}}, /* 2^255 - 1 */
    {{0, 0, 0, 0x4000000000000000}},             /* 2^254 */
    {{1, 0, 0, 0x4000000000000000}},             /* 2^254 + 1 */
    {{~0ull, 0, 0, 0}},                          /* 2^64 - 1 */
    {{0, 0, 1, 0}},                              /* 2^128 */
    {{0xffff, 0, 0, 0}},                         /* a window-sized run of ones */
    {{0x8000800080008000, 0x8000800080008000, 0x8000800080008000, 0}}, /* digit top bits */
    {{0, 0, 0, 0x7fffffffffffffff}},                                   /* just below 2^255 */
    {{0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa, 0xaaaaaaaaaaaaaaaa, 0x2aaaaaaaaaaaaaaa}},
};

/* Edge value `which` (mod 16); the last two of every 16 are random. */
static void edge_scalar(fr_repr_t *s, cz_prng *g, unsigned which)
{
    which %= 16;
    if (which < ARRAY_LEN(EDGE_SCALARS)) {
        *s = EDGE_SCALARS[which];
    } else {
        rand_scalar(s, g);
    }
}

/* s mod r in Montgomery form (s may exceed r). */
static void scalar_to_fr(fr_t *out, const fr_repr_t *s)
{
    fr_from_u256_reduce(out, s->l);
}

/* ---------------------------------------------------------------- MSM calls on checked scratch */

#define CANARY 64

static void *scratch_new(size_t n)
{
    uint8_t *p = cz_malloc_aligned(n + CANARY, 64);
    CHECK(p != NULL);
    memset(p, 0xa5, n); /* garbage: the MSM must not rely on zeroed scratch */
    memset(p + n, 0x5c, CANARY);
    return p;
}

static void scratch_free(void *p, size_t n)
{
    const uint8_t *q = (const uint8_t *)p + n;
    for (size_t i = 0; i < CANARY; i++) {
        CHECK_MSG(q[i] == 0x5c, "scratch overrun past %zu bytes", n);
    }
    cz_free_aligned(p);
}

static void run_g1(g1_t *out, const g1_aff_t *pts, const fr_repr_t *sc, size_t n, cz_pool *pool,
                   const msm_opts *opts)
{
    size_t sz = opts ? msm_g1_scratch_sizeof_opts(n, opts) : msm_g1_scratch_sizeof(n);
    void *scr = scratch_new(sz);
    CHECK(sz > 0);
    if (opts) {
        msm_g1_opts(out, pts, sc, n, scr, pool, opts);
    } else {
        msm_g1(out, pts, sc, n, scr, pool);
    }
    scratch_free(scr, sz);
}

static void run_g2(g2_t *out, const g2_aff_t *pts, const fr_repr_t *sc, size_t n, cz_pool *pool,
                   const msm_opts *opts)
{
    size_t sz = opts ? msm_g2_scratch_sizeof_opts(n, opts) : msm_g2_scratch_sizeof(n);
    void *scr = scratch_new(sz);
    CHECK(sz > 0);
    if (opts) {
        msm_g2_opts(out, pts, sc, n, scr, pool, opts);
    } else {
        msm_g2(out, pts, sc, n, scr, pool);
    }
    scratch_free(scr, sz);
}

/* Configurations every small case runs under (fields: window, accumulation, no_split01,
 * no_simd); the last ones keep to the scalar field arithmetic where the others may take the
 * AVX-512 IFMA kernels. */
static const msm_opts CONFIGS[] = {
    {0, MSM_ACCUM_AUTO, false, false},          {0, MSM_ACCUM_XYZZ, false, false},
    {0, MSM_ACCUM_BATCH_AFFINE, false, false},  {0, MSM_ACCUM_AUTO, true, false},
    {1, MSM_ACCUM_XYZZ, false, false},          {2, MSM_ACCUM_BATCH_AFFINE, false, false},
    {3, MSM_ACCUM_BATCH_AFFINE, true, false},   {4, MSM_ACCUM_XYZZ, true, false},
    {5, MSM_ACCUM_BATCH_AFFINE, false, false},  {8, MSM_ACCUM_BATCH_AFFINE, false, false},
    {11, MSM_ACCUM_BATCH_AFFINE, false, false}, {13, MSM_ACCUM_XYZZ, false, false},
    {0, MSM_ACCUM_AUTO, false, true},           {8, MSM_ACCUM_BATCH_AFFINE, false, true},
    {11, MSM_ACCUM_BATCH_AFFINE, true, true},
};

static cz_pool *test_pool(unsigned threads)
{
    cz_pool *p = NULL;
    CHECK_OK(cz_pool_new(&p, threads, "msm-test", NULL));
    return p;
}

/* ---------------------------------------------------------------- G1 references */

static void g1_random_points(g1_aff_t *out, size_t n, cz_prng *g)
{
    /* P_i = [a]G + sum of random steps; affine via one batch inversion */
    g1_t *jac = malloc(sizeof(g1_t) * (n ? n : 1));
    fp_t *scr = malloc(sizeof(fp_t) * (n ? n : 1));
    g1_t gen, steps[4], acc;
    fr_repr_t k;
    CHECK(jac && scr);
    g1_from_aff(&gen, &G1_GEN);
    for (int j = 0; j < 4; j++) {
        rand_scalar(&k, g);
        g1_mul(&steps[j], &gen, &k);
    }
    rand_scalar(&k, g);
    g1_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        g1_add(&acc, &acc, &steps[cz_prng_below(g, 4)]);
        jac[i] = acc;
    }
    g1_batch_to_aff(out, jac, n, scr);
    free(jac);
    free(scr);
}

/* Bases with known logs: P_i = [dlog_i]G. */
static void g1_points_with_logs(g1_aff_t *out, fr_t *dlog, size_t n, cz_prng *g)
{
    g1_t *jac = malloc(sizeof(g1_t) * (n ? n : 1));
    fp_t *scr = malloc(sizeof(fp_t) * (n ? n : 1));
    g1_t gen, steps[4], acc;
    fr_t dsteps[4], a;
    fr_repr_t k;
    CHECK(jac && scr);
    g1_from_aff(&gen, &G1_GEN);
    for (int j = 0; j < 4; j++) {
        rand_scalar(&k, g);
        CHECK(fr_from_repr(&dsteps[j], &k));
        g1_mul(&steps[j], &gen, &k);
    }
    rand_scalar(&k, g);
    CHECK(fr_from_repr(&a, &k));
    g1_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        unsigned j = (unsigned)cz_prng_below(g, 4);
        g1_add(&acc, &acc, &steps[j]);
        fr_add(&a, &a, &dsteps[j]);
        jac[i] = acc;
        dlog[i] = a;
    }
    g1_batch_to_aff(out, jac, n, scr);
    free(jac);
    free(scr);
}

/* [sum s_i dlog_i] G */
static void g1_expected_from_logs(g1_t *out, const fr_t *dlog, const fr_repr_t *sc, size_t n)
{
    fr_t sum = FR_ZERO, t;
    fr_repr_t k;
    g1_t gen;
    for (size_t i = 0; i < n; i++) {
        scalar_to_fr(&t, &sc[i]);
        fr_mul(&t, &t, &dlog[i]);
        fr_add(&sum, &sum, &t);
    }
    fr_to_repr(&k, &sum);
    g1_from_aff(&gen, &G1_GEN);
    g1_mul(out, &gen, &k);
}

static void g1_naive(g1_t *out, const g1_aff_t *pts, const fr_repr_t *sc, size_t n)
{
    g1_t acc, p, t;
    g1_set_identity(&acc);
    for (size_t i = 0; i < n; i++) {
        g1_from_aff(&p, &pts[i]);
        g1_mul(&t, &p, &sc[i]);
        g1_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* Bit-serial double-and-add over all 256 bits: no recoding at all. */
static void g1_mul_bits(g1_t *out, const g1_aff_t *pa, const fr_repr_t *k)
{
    g1_t acc, p;
    g1_set_identity(&acc);
    g1_from_aff(&p, pa);
    for (int i = 255; i >= 0; i--) {
        g1_dbl(&acc, &acc);
        if ((k->l[i / 64] >> (i % 64)) & 1) {
            g1_add(&acc, &acc, &p);
        }
    }
    *out = acc;
}

static void g1_check_all_configs(const g1_aff_t *pts, const fr_repr_t *sc, size_t n,
                                 const g1_t *expect)
{
    g1_t got;
    for (size_t i = 0; i < ARRAY_LEN(CONFIGS); i++) {
        run_g1(&got, pts, sc, n, NULL, &CONFIGS[i]);
        CHECK_MSG(g1_eq(&got, expect), "n=%zu config %zu (c=%u accum=%d no_split01=%d)", n, i,
                  CONFIGS[i].window_bits, (int)CONFIGS[i].accum, (int)CONFIGS[i].no_split01);
    }
    run_g1(&got, pts, sc, n, NULL, NULL);
    CHECK_MSG(g1_eq(&got, expect), "n=%zu default", n);
}

/* ---------------------------------------------------------------- G1 tests */

TEST(msm_g1_kat_noble)
{
    size_t n = ARRAY_LEN(kat_g1_bases);
    g1_aff_t pts[ARRAY_LEN(kat_g1_bases)], sum_aff;
    fr_repr_t sc[ARRAY_LEN(kat_g1_bases)];
    uint8_t enc[48];
    g1_t got;
    cz_pool *pool = test_pool(2);

    for (size_t i = 0; i < n; i++) {
        CHECK_OK(g1_aff_from_compressed(&pts[i], kat_g1_bases[i], true));
        for (int l = 0; l < 4; l++) {
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--) {
                v = (v << 8) | kat_g1_scalars[i][8 * l + b];
            }
            sc[i].l[l] = v;
        }
    }
    for (size_t i = 0; i <= ARRAY_LEN(CONFIGS); i++) {
        const msm_opts *o = i < ARRAY_LEN(CONFIGS) ? &CONFIGS[i] : NULL;
        run_g1(&got, pts, sc, n, i % 2 ? pool : NULL, o);
        g1_to_aff(&sum_aff, &got);
        g1_aff_to_compressed(enc, &sum_aff);
        CHECK_MEM_EQ(enc, kat_g1_sum, 48);
    }
    cz_pool_free(pool);
}

TEST(msm_g1_bit_serial_reference)
{
    /* guards against one recoding bug shared by g1_mul and the MSM */
    cz_prng *g = test_prng();
    g1_aff_t pts[16];
    fr_repr_t sc[16];
    g1_t expect, t, got;
    g1_random_points(pts, 16, g);
    g1_set_identity(&expect);
    for (unsigned i = 0; i < 16; i++) {
        edge_scalar(&sc[i], g, i);
        g1_mul_bits(&t, &pts[i], &sc[i]);
        g1_add(&expect, &expect, &t);
    }
    g1_check_all_configs(pts, sc, 16, &expect);
    g1_naive(&got, pts, sc, 16);
    CHECK(g1_eq(&got, &expect));
}

TEST(msm_g1_small_n)
{
    cz_prng *g = test_prng();
    g1_aff_t pts[8];
    fr_repr_t sc[8];
    g1_t expect;
    for (size_t n = 0; n <= 8; n++) {
        for (int rep = 0; rep < 3; rep++) {
            g1_random_points(pts, n, g);
            for (size_t i = 0; i < n; i++) {
                if (rep == 0) {
                    rand_scalar(&sc[i], g);
                } else {
                    edge_scalar(&sc[i], g, (unsigned)cz_prng_below(g, 16));
                }
            }
            g1_naive(&expect, pts, sc, n);
            g1_check_all_configs(pts, sc, n, &expect);
        }
    }
    /* n = 0 is the identity even with NULL inputs */
    g1_t got;
    run_g1(&got, NULL, NULL, 0, NULL, NULL);
    CHECK(g1_is_identity(&got));
}

TEST(msm_g1_random_sizes)
{
    cz_prng *g = test_prng();
    size_t sizes[5];
    sizes[0] = 2000;
    for (int i = 1; i < 5; i++) {
        sizes[i] = 4 + (size_t)cz_prng_below(g, 600);
    }
    g1_aff_t *pts = malloc(sizeof(g1_aff_t) * 2000);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * 2000);
    cz_pool *pool = test_pool(3);
    CHECK(pts && sc);
    for (int t = 0; t < 5; t++) {
        size_t n = sizes[t];
        g1_t expect, got;
        g1_random_points(pts, n, g);
        for (size_t i = 0; i < n; i++) {
            rand_scalar(&sc[i], g);
        }
        g1_naive(&expect, pts, sc, n);
        run_g1(&got, pts, sc, n, NULL, NULL);
        CHECK_MSG(g1_eq(&got, &expect), "n=%zu", n);
        run_g1(&got, pts, sc, n, pool, NULL);
        CHECK_MSG(g1_eq(&got, &expect), "n=%zu pool", n);
        msm_opts o = {0, MSM_ACCUM_BATCH_AFFINE, false, false};
        run_g1(&got, pts, sc, n, pool, &o);
        CHECK_MSG(g1_eq(&got, &expect), "n=%zu batch-affine", n);
        o.accum = MSM_ACCUM_XYZZ;
        run_g1(&got, pts, sc, n, pool, &o);
        CHECK_MSG(g1_eq(&got, &expect), "n=%zu xyzz", n);
    }
    cz_pool_free(pool);
    free(pts);
    free(sc);
}

TEST(msm_g1_edge_scalars_every_window)
{
    /* one fixed input, every window 1..16 and both methods: all the same group element */
    cz_prng *g = test_prng();
    enum { N = 160 };
    g1_aff_t pts[N];
    fr_repr_t sc[N];
    g1_t expect, got;
    cz_pool *pool = test_pool(3);
    g1_random_points(pts, N, g);
    for (unsigned i = 0; i < N; i++) {
        edge_scalar(&sc[i], g, i);
    }
    g1_aff_set_identity(&pts[7]);
    g1_aff_set_identity(&pts[21]); /* scalar 2^255 - 1 on an identity base */
    g1_naive(&expect, pts, sc, N);
    for (unsigned c = 1; c <= 16; c++) {
        for (int m = 0; m < 2; m++) {
            msm_opts o = {c, m ? MSM_ACCUM_BATCH_AFFINE : MSM_ACCUM_XYZZ, c % 3 == 0, false};
            run_g1(&got, pts, sc, N, (c + (unsigned)m) % 2 ? pool : NULL, &o);
            CHECK_MSG(g1_eq(&got, &expect), "c=%u method=%d", c, m);
        }
    }
    cz_pool_free(pool);
}

TEST(msm_g1_zero_one_identity)
{
    cz_prng *g = test_prng();
    enum { N = 300 };
    g1_aff_t pts[N];
    fr_repr_t sc[N];
    g1_t got, expect;
    g1_random_points(pts, N, g);

    for (unsigned i = 0; i < N; i++) {
        sc[i] = repr_u64(0);
    }
    g1_set_identity(&expect);
    g1_check_all_configs(pts, sc, N, &expect);

    /* all ones: the plain sum, computed with mixed additions */
    g1_set_identity(&expect);
    for (unsigned i = 0; i < N; i++) {
        sc[i] = repr_u64(1);
        g1_add_aff(&expect, &expect, &pts[i]);
    }
    g1_check_all_configs(pts, sc, N, &expect);

    /* all bases the identity, random scalars */
    g1_aff_t ids[N];
    for (unsigned i = 0; i < N; i++) {
        g1_aff_set_identity(&ids[i]);
        rand_scalar(&sc[i], g);
    }
    run_g1(&got, ids, sc, N, NULL, NULL);
    CHECK(g1_is_identity(&got));

    /* identity bases sprinkled among ones and others */
    for (unsigned i = 0; i < N; i++) {
        sc[i] = repr_u64(i % 3 == 0 ? 1 : i % 3 == 1 ? 0 : 5 + i);
        if (i % 4 == 0) {
            g1_aff_set_identity(&pts[i]);
        }
    }
    g1_naive(&expect, pts, sc, N);
    g1_check_all_configs(pts, sc, N, &expect);
}

TEST(msm_g1_repeated_bases)
{
    /* P + P and P + (-P) inside buckets and ones-sums, and heavy bucket conflicts */
    cz_prng *g = test_prng();
    enum { N = 1200 };
    g1_aff_t *pts = malloc(sizeof(g1_aff_t) * N);
    fr_t *dlog = malloc(sizeof(fr_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N);
    g1_t expect, got;
    cz_pool *pool = test_pool(3);
    CHECK(pts && dlog && sc);
    for (int pattern = 0; pattern < 7; pattern++) {
        fr_repr_t same;
        size_t nb = pattern < 5 ? 4 : N / 2; /* distinct bases */
        g1_points_with_logs(pts + N - nb, dlog + N - nb, nb, g);
        rand_scalar(&same, g);
        for (unsigned i = 0; i < N; i++) {
            size_t j = N - nb + (pattern < 5 ? i % 4 : i / 2);
            pts[i] = pts[j];
            dlog[i] = dlog[j];
            switch (pattern) {
            case 0:
                sc[i] = same;
                break; /* one bucket per window */
            case 1:
                rand_scalar(&sc[i], g);
                break; /* the same 4 bases */
            case 2:
                sc[i] = repr_u64(i % 2 ? 1 : 7);
                break; /* ones-sum doublings */
            case 3:
                sc[i] = repr_u64(1 + cz_prng_below(g, 6));
                break; /* few buckets */
            case 4:
                sc[i] = same;
                break;
            default:
                /* pairs (Q, +-Q) with one random scalar each: the second term meets the first
                 * in the same bucket of every window, as a doubling or a cancellation */
                if (i % 2 == 0) {
                    rand_scalar(&sc[i], g);
                } else {
                    sc[i] = sc[i - 1];
                }
                break;
            }
            if ((pattern == 4 && i >= N / 2) || (pattern == 5 && i % 2)) {
                g1_aff_neg(&pts[i], &pts[i]); /* P and -P with the same scalar: cancels */
                fr_neg(&dlog[i], &dlog[i]);
            }
        }
        g1_expected_from_logs(&expect, dlog, sc, N);
        if (pattern == 4 || pattern == 5) {
            CHECK(g1_is_identity(&expect));
        }
        for (size_t i = 0; i < ARRAY_LEN(CONFIGS); i++) {
            run_g1(&got, pts, sc, N, i % 2 ? pool : NULL, &CONFIGS[i]);
            CHECK_MSG(g1_eq(&got, &expect), "pattern %d config %zu", pattern, i);
        }
    }
    cz_pool_free(pool);
    free(pts);
    free(dlog);
    free(sc);
}

TEST(msm_g1_large_pool_invariance)
{
    /* several chunks, several bucket ranges per window: every pool size, same element */
    cz_prng *g = test_prng();
    enum { N = 20000 };
    g1_aff_t *pts = malloc(sizeof(g1_aff_t) * N);
    fr_t *dlog = malloc(sizeof(fr_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N);
    g1_t expect, got;
    CHECK(pts && dlog && sc);
    g1_points_with_logs(pts, dlog, N, g);
    for (unsigned i = 0; i < N; i++) {
        unsigned kind = (unsigned)cz_prng_below(g, 10);
        if (kind < 3) {
            sc[i] = repr_u64(kind < 2 ? kind : 1);
        } else if (kind == 3) {
            sc[i] = repr_u64(cz_prng_u64(g) & 0xffff);
        } else {
            rand_scalar(&sc[i], g);
        }
    }
    g1_expected_from_logs(&expect, dlog, sc, N);
    const unsigned threads[] = {0, 1, 3, 23};
    const msm_opts opts[] = {
        {0, MSM_ACCUM_AUTO, false, false},
        {12, MSM_ACCUM_BATCH_AFFINE, false, false},
        {11, MSM_ACCUM_XYZZ, true, false},
        {10, MSM_ACCUM_BATCH_AFFINE, false, true},
        /* wide windows split into bucket ranges whose lengths are not multiples of 8 */
        {15, MSM_ACCUM_BATCH_AFFINE, false, false},
        {16, MSM_ACCUM_XYZZ, false, false},
    };
    run_g1(&got, pts, sc, N, NULL, NULL);
    CHECK(g1_eq(&got, &expect));
    for (size_t t = 0; t < ARRAY_LEN(threads); t++) {
        cz_pool *pool = test_pool(threads[t]);
        for (size_t o = 0; o < ARRAY_LEN(opts); o++) {
            run_g1(&got, pts, sc, N, pool, &opts[o]);
            CHECK_MSG(g1_eq(&got, &expect), "threads=%u opts=%zu", threads[t], o);
        }
        cz_pool_free(pool);
    }
    free(pts);
    free(dlog);
    free(sc);
}

TEST(msm_g1_ones_heavy_many_chunks)
{
    /* 2^17 terms, 90% in {0, 1}: 32 classification chunks, one ones-sum each */
    cz_prng *g = test_prng();
    enum { N = 1 << 17 };
    g1_aff_t *pts = malloc(sizeof(g1_aff_t) * N);
    fr_t *dlog = malloc(sizeof(fr_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N);
    g1_t expect, got;
    cz_pool *pool = test_pool(15);
    CHECK(pts && dlog && sc);
    g1_points_with_logs(pts, dlog, N, g);
    for (unsigned i = 0; i < N; i++) {
        unsigned kind = (unsigned)cz_prng_below(g, 20);
        if (kind < 18) {
            sc[i] = repr_u64(kind & 1);
        } else {
            rand_scalar(&sc[i], g);
        }
    }
    g1_expected_from_logs(&expect, dlog, sc, N);
    run_g1(&got, pts, sc, N, pool, NULL);
    CHECK(g1_eq(&got, &expect));
    run_g1(&got, pts, sc, N, NULL, NULL);
    CHECK(g1_eq(&got, &expect));
    cz_pool_free(pool);
    free(pts);
    free(dlog);
    free(sc);
}

TEST(msm_g1_split01_invariant)
{
    /* spec groth16.md 5.5: sum_{s=1} P + MSM(tail with the ones zeroed) = the plain MSM */
    cz_prng *g = test_prng();
    enum { N = 3000 };
    g1_aff_t *pts = malloc(sizeof(g1_aff_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N), *tail = malloc(sizeof(fr_repr_t) * N);
    g1_t ones, rest, split, plain, auto_res, naive;
    msm_opts nosplit = {0, MSM_ACCUM_AUTO, true, false};
    CHECK(pts && sc && tail);
    g1_random_points(pts, N, g);
    g1_set_identity(&ones);
    for (unsigned i = 0; i < N; i++) {
        unsigned kind = (unsigned)cz_prng_below(g, 10);
        if (kind < 9) {
            sc[i] = repr_u64(kind & 1);
        } else {
            rand_scalar(&sc[i], g);
        }
        tail[i] = sc[i];
        if (kind < 9 && (kind & 1)) {
            g1_add_aff(&ones, &ones, &pts[i]);
            tail[i] = repr_u64(0);
        }
    }
    run_g1(&rest, pts, tail, N, NULL, &nosplit);
    g1_add(&split, &ones, &rest);
    run_g1(&plain, pts, sc, N, NULL, &nosplit);
    run_g1(&auto_res, pts, sc, N, NULL, NULL);
    g1_naive(&naive, pts, sc, N);
    CHECK(g1_eq(&split, &naive));
    CHECK(g1_eq(&plain, &naive));
    CHECK(g1_eq(&auto_res, &naive));
    free(pts);
    free(sc);
    free(tail);
}

static void random_density(uint64_t *bits, size_t nvars, unsigned percent, cz_prng *g,
                           size_t *popcount)
{
    size_t words = (nvars + 63) / 64;
    *popcount = 0;
    for (size_t w = 0; w < words; w++) {
        bits[w] = 0;
    }
    for (size_t i = 0; i < nvars; i++) {
        if (cz_prng_below(g, 100) < percent) {
            bits[i / 64] |= (uint64_t)1 << (i % 64);
            (*popcount)++;
        }
    }
    if (nvars % 64) {
        /* bits past nvars must be ignored */
        bits[words - 1] |= ~(((uint64_t)1 << (nvars % 64)) - 1);
    }
}

static void random_assignment(fr_t *a, size_t n, cz_prng *g)
{
    for (size_t i = 0; i < n; i++) {
        unsigned kind = (unsigned)cz_prng_below(g, 4);
        fr_repr_t s;
        if (kind == 0) {
            a[i] = FR_ZERO;
        } else if (kind == 1) {
            a[i] = FR_ONE;
        } else {
            rand_scalar(&s, g);
            CHECK(fr_from_repr(&a[i], &s));
        }
    }
}

TEST(msm_g1_density)
{
    cz_prng *g = test_prng();
    const size_t sizes[] = {0, 1, 63, 64, 65, 3001, 20000};
    const unsigned percents[] = {0, 30, 75, 100};
    cz_pool *pool = test_pool(5);
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        size_t nvars = sizes[si];
        uint64_t *bits = malloc(8 * ((nvars + 63) / 64 + 1));
        fr_t *asg = malloc(sizeof(fr_t) * (nvars + 1));
        fr_repr_t *compact = malloc(sizeof(fr_repr_t) * (nvars + 1));
        g1_aff_t *pts = malloc(sizeof(g1_aff_t) * (nvars + 1));
        CHECK(bits && asg && compact && pts);
        random_assignment(asg, nvars, g);
        g1_random_points(pts, nvars, g);
        for (size_t pi = 0; pi < ARRAY_LEN(percents); pi++) {
            size_t pop, k = 0;
            g1_t got, expect;
            random_density(bits, nvars, percents[pi], g, &pop);
            for (size_t i = 0; i < nvars; i++) {
                if ((bits[i / 64] >> (i % 64)) & 1) {
                    fr_to_repr(&compact[k++], &asg[i]);
                }
            }
            CHECK_EQ_U64(k, pop);
            run_g1(&expect, pts, compact, pop, NULL, NULL);
            if (nvars <= 100) {
                g1_t naive;
                g1_naive(&naive, pts, compact, pop);
                CHECK(g1_eq(&naive, &expect));
            }
            for (int variant = 0; variant < 4; variant++) {
                msm_opts o = {variant == 2 ? 6 : 0, variant == 1 ? MSM_ACCUM_XYZZ : MSM_ACCUM_AUTO,
                              variant == 2, variant == 3};
                size_t sz = msm_g1_scratch_sizeof_opts(pop, &o);
                void *scr = scratch_new(sz);
                msm_g1_density(&got, pts, pop, asg, bits, nvars, scr, variant ? pool : NULL, &o);
                scratch_free(scr, sz);
                CHECK_MSG(g1_eq(&got, &expect), "nvars=%zu percent=%u variant=%d", nvars,
                          percents[pi], variant);
            }
        }
        /* NULL density: every variable consumes a base */
        for (size_t i = 0; i < nvars; i++) {
            fr_to_repr(&compact[i], &asg[i]);
        }
        g1_t got, expect;
        run_g1(&expect, pts, compact, nvars, NULL, NULL);
        size_t sz = msm_g1_scratch_sizeof(nvars);
        void *scr = scratch_new(sz);
        msm_g1_density(&got, pts, nvars, asg, NULL, nvars, scr, pool, NULL);
        scratch_free(scr, sz);
        CHECK(g1_eq(&got, &expect));
        free(bits);
        free(asg);
        free(compact);
        free(pts);
    }
    cz_pool_free(pool);
}

TEST(msm_scratch_bound_covers_every_tail)
{
    /* the automatic plan for any tail m <= n must fit the scratch advertised for n */
    const msm_sizes sizes[] = {{sizeof(fp_t), sizeof(g1_aff_t), 4 * sizeof(fp_t)},
                               {sizeof(fp2_t), sizeof(g2_aff_t), 4 * sizeof(fp2_t)}};
    const msm_accum modes[] = {MSM_ACCUM_AUTO, MSM_ACCUM_XYZZ, MSM_ACCUM_BATCH_AFFINE};
    for (size_t gi = 0; gi < 2; gi++) {
        for (size_t mi = 0; mi < ARRAY_LEN(modes); mi++) {
            msm_opts o = {0, modes[mi], false, false};
            for (size_t n = 0; n < ((size_t)1 << 31); n += n / 8 + 1) {
                size_t bound = msm_scratch_bytes(n, &o, &sizes[gi]);
                for (size_t m = 1; m <= n; m += m / 4 + 1) {
                    for (int vec = 0; vec < 2; vec++) { /* both cost models */
                        msm_layout L;
                        msm_plan plan = msm_plan_for(m, &o, vec);
                        msm_layout_for(&L, n, plan.c, &sizes[gi]);
                        CHECK_MSG(L.total <= bound, "n=%zu m=%zu c=%u vec=%d", n, m, plan.c, vec);
                    }
                }
            }
        }
    }
    CHECK(msm_g1_scratch_sizeof(0) > 0 && msm_g2_scratch_sizeof(0) > 0);
    CHECK_EQ_U64(msm_g1_scratch_sizeof(1000), msm_g1_scratch_sizeof_opts(1000, NULL));
}

/* ---------------------------------------------------------------- G2 */

static void g2_random_points(g2_aff_t *out, size_t n, cz_prng *g)
{
    g2_t *jac = malloc(sizeof(g2_t) * (n ? n : 1));
    fp2_t *scr = malloc(sizeof(fp2_t) * (n ? n : 1));
    g2_t gen, steps[4], acc;
    fr_repr_t k;
    CHECK(jac && scr);
    g2_from_aff(&gen, &G2_GEN);
    for (int j = 0; j < 4; j++) {
        rand_scalar(&k, g);
        g2_mul(&steps[j], &gen, &k);
    }
    rand_scalar(&k, g);
    g2_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        g2_add(&acc, &acc, &steps[cz_prng_below(g, 4)]);
        jac[i] = acc;
    }
    g2_batch_to_aff(out, jac, n, scr);
    free(jac);
    free(scr);
}

static void g2_naive(g2_t *out, const g2_aff_t *pts, const fr_repr_t *sc, size_t n)
{
    g2_t acc, p, t;
    g2_set_identity(&acc);
    for (size_t i = 0; i < n; i++) {
        g2_from_aff(&p, &pts[i]);
        g2_mul(&t, &p, &sc[i]);
        g2_add(&acc, &acc, &t);
    }
    *out = acc;
}

TEST(msm_g2_kat_noble)
{
    size_t n = ARRAY_LEN(kat_g2_bases);
    g2_aff_t pts[ARRAY_LEN(kat_g2_bases)], sum_aff;
    fr_repr_t sc[ARRAY_LEN(kat_g2_bases)];
    uint8_t enc[96];
    g2_t got;
    for (size_t i = 0; i < n; i++) {
        CHECK_OK(g2_aff_from_compressed(&pts[i], kat_g2_bases[i], true));
        for (int l = 0; l < 4; l++) {
            uint64_t v = 0;
            for (int b = 7; b >= 0; b--) {
                v = (v << 8) | kat_g2_scalars[i][8 * l + b];
            }
            sc[i].l[l] = v;
        }
    }
    for (size_t i = 0; i <= ARRAY_LEN(CONFIGS); i++) {
        run_g2(&got, pts, sc, n, NULL, i < ARRAY_LEN(CONFIGS) ? &CONFIGS[i] : NULL);
        g2_to_aff(&sum_aff, &got);
        g2_aff_to_compressed(enc, &sum_aff);
        CHECK_MEM_EQ(enc, kat_g2_sum, 96);
    }
}

TEST(msm_g2_against_naive)
{
    cz_prng *g = test_prng();
    enum { N = 300 };
    g2_aff_t *pts = malloc(sizeof(g2_aff_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N);
    cz_pool *pool = test_pool(3);
    g2_t expect, got;
    CHECK(pts && sc);
    const size_t sizes[] = {0, 1, 2, 3, 17, N};
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        g2_random_points(pts, n, g);
        for (size_t i = 0; i < n; i++) {
            edge_scalar(&sc[i], g, (unsigned)(si == 5 ? i : cz_prng_below(g, 32)));
        }
        if (n > 10) {
            g2_aff_set_identity(&pts[3]);
            pts[9] = pts[8]; /* repeated base */
            sc[9] = sc[8];
        }
        g2_naive(&expect, pts, sc, n);
        for (size_t i = 0; i < ARRAY_LEN(CONFIGS); i++) {
            run_g2(&got, pts, sc, n, i % 2 ? pool : NULL, &CONFIGS[i]);
            CHECK_MSG(g2_eq(&got, &expect), "n=%zu config %zu", n, i);
        }
        if (n == N) {
            for (unsigned c = 1; c <= 16; c++) {
                msm_opts o = {c, c % 2 ? MSM_ACCUM_BATCH_AFFINE : MSM_ACCUM_XYZZ, false, false};
                run_g2(&got, pts, sc, n, pool, &o);
                CHECK_MSG(g2_eq(&got, &expect), "c=%u", c);
            }
        }
    }
    cz_pool_free(pool);
    free(pts);
    free(sc);
}

TEST(msm_g2_density)
{
    cz_prng *g = test_prng();
    enum { NV = 700 };
    uint64_t bits[(NV + 63) / 64];
    fr_t *asg = malloc(sizeof(fr_t) * NV);
    fr_repr_t *compact = malloc(sizeof(fr_repr_t) * NV);
    g2_aff_t *pts = malloc(sizeof(g2_aff_t) * NV);
    size_t pop, k = 0;
    g2_t got, expect;
    cz_pool *pool = test_pool(2);
    CHECK(asg && compact && pts);
    random_assignment(asg, NV, g);
    g2_random_points(pts, NV, g);
    random_density(bits, NV, 40, g, &pop);
    for (size_t i = 0; i < NV; i++) {
        if ((bits[i / 64] >> (i % 64)) & 1) {
            fr_to_repr(&compact[k++], &asg[i]);
        }
    }
    run_g2(&expect, pts, compact, pop, NULL, NULL);
    size_t sz = msm_g2_scratch_sizeof_opts(pop, NULL);
    void *scr = scratch_new(sz);
    msm_g2_density(&got, pts, pop, asg, bits, NV, scr, pool, NULL);
    scratch_free(scr, sz);
    CHECK(g2_eq(&got, &expect));
    cz_pool_free(pool);
    free(asg);
    free(compact);
    free(pts);
}

/* ---------------------------------------------------------------- vector kernels */

/* a + b and a - b on 6-word little-endian integers (no overflow: values below 2^383) */
static void words_add(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    unsigned carry = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t s = a[i] + b[i];
        unsigned c1 = s < a[i];
        uint64_t t = s + carry;
        carry = c1 | (t < s);
        out[i] = t;
    }
}

static bool words_less(const uint64_t a[6], const uint64_t b[6])
{
    for (int i = 5; i >= 0; i--) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return false;
}

static void words_sub(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    unsigned borrow = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t d = a[i] - b[i];
        unsigned b1 = a[i] < b[i];
        uint64_t t = d - borrow;
        borrow = b1 | (d < borrow);
        out[i] = t;
    }
}

/* Inputs of the lazy range [0, 2p): edges of the range and of the 52-bit limbs, then random. */
static void vec_input(uint64_t out[6], cz_prng *g, unsigned which)
{
    uint64_t p2[6], one[6] = {1, 0, 0, 0, 0, 0};
    words_add(p2, FP_MODULUS, FP_MODULUS);
    memset(out, 0, 6 * sizeof(uint64_t));
    switch (which % 24) {
    case 0:
        break; /* 0 */
    case 1:
        out[0] = 1;
        break;
    case 2:
        words_sub(out, FP_MODULUS, one); /* p - 1 */
        break;
    case 3:
        memcpy(out, FP_MODULUS, sizeof(FP_MODULUS)); /* p: 0 in the lazy range */
        break;
    case 4:
        words_add(out, FP_MODULUS, one); /* p + 1 */
        break;
    case 5:
        words_sub(out, p2, one); /* 2p - 1 */
        break;
    case 6:
        memcpy(out, FP_ONE.l, sizeof(FP_ONE.l)); /* R mod p */
        break;
    case 7:
        for (int i = 0; i < 6; i++) {
            out[i] = ~0ull;
        }
        out[5] = (1ull << 61) - 1; /* 2^381 - 1 < 2p */
        break;
    default:
        if (which % 24 < 15) {
            /* 2^(52k) - 1, k = 1..7: every limb below the top full */
            unsigned bits = 52 * (which % 24 - 7);
            for (unsigned i = 0; i < bits / 64; i++) {
                out[i] = ~0ull;
            }
            if (bits % 64) {
                out[bits / 64] = (1ull << (bits % 64)) - 1;
            }
            break;
        }
        do {
            for (int i = 0; i < 6; i++) {
                out[i] = cz_prng_u64(g);
            }
            out[5] &= (1ull << 62) - 1;
        } while (!words_less(out, p2));
        break;
    }
}

TEST(msm_vec_fp_arith)
{
    /* the eight-lane IFMA kernels against fp_add, fp_sub, fp_mul and fp_sqr, with inputs
     * anywhere in the kernels' lazy range [0, 2p) */
    cz_prng *g = test_prng();
    uint64_t a[8][6], b[8][6], out[8][6];
    if (!msm_vec_available()) {
        test_skip("no AVX-512 IFMA kernels on this CPU or in this build");
    }
    for (unsigned it = 0; it < 4000; it++) {
        for (unsigned l = 0; l < 8; l++) {
            /* first every pair of input kinds (24 x 24 over 72 iterations), then random kinds */
            unsigned q = it * 8 + l;
            unsigned wa = q < 576 ? q / 24 : (unsigned)cz_prng_below(g, 24);
            unsigned wb = q < 576 ? q % 24 : (unsigned)cz_prng_below(g, 24);
            vec_input(a[l], g, wa);
            vec_input(b[l], g, wb);
        }
        for (unsigned op = 0; op < 4; op++) {
            CHECK(msm_vec_fp_apply(out, (const uint64_t(*)[6])a, (const uint64_t(*)[6])b, op));
            for (unsigned l = 0; l < 8; l++) {
                fp_t x, y, r;
                memcpy(x.l, a[l], sizeof(x.l));
                memcpy(y.l, b[l], sizeof(y.l));
                if (!words_less(x.l, FP_MODULUS)) {
                    words_sub(x.l, x.l, FP_MODULUS);
                }
                if (!words_less(y.l, FP_MODULUS)) {
                    words_sub(y.l, y.l, FP_MODULUS);
                }
                switch (op) {
                case 0:
                    fp_add(&r, &x, &y);
                    break;
                case 1:
                    fp_sub(&r, &x, &y);
                    break;
                case 2:
                    fp_mul(&r, &x, &y);
                    break;
                default:
                    fp_sqr(&r, &x);
                    break;
                }
                CHECK_MSG(memcmp(r.l, out[l], sizeof(r.l)) == 0, "it=%u op=%u lane=%u", it, op, l);
            }
        }
    }
}

TEST(msm_g1_vec_matches_scalar)
{
    /* The IFMA kernels (the default where the CPU has them) and the scalar field arithmetic
     * against the known logs, at sizes where the bucket sums go to the vector kernel, narrow
     * windows share units and the top window spreads over copies of its buckets; with 0/1
     * scalars (the ones-sums batch too), identity bases and repeated bases. */
    cz_prng *g = test_prng();
    enum { N = 40000 };
    g1_aff_t *pts = malloc(sizeof(g1_aff_t) * N);
    fr_t *dlog = malloc(sizeof(fr_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N);
    const size_t sizes[] = {20, 700, 5000, N};
    const msm_opts opts[] = {
        {0, MSM_ACCUM_AUTO, false, false},          {0, MSM_ACCUM_AUTO, false, true},
        {9, MSM_ACCUM_BATCH_AFFINE, false, false},  {12, MSM_ACCUM_BATCH_AFFINE, true, false},
        {15, MSM_ACCUM_BATCH_AFFINE, false, false}, {10, MSM_ACCUM_BATCH_AFFINE, false, true},
    };
    g1_t expect, got;
    cz_pool *pool = test_pool(1);
    CHECK(pts && dlog && sc);
    g1_points_with_logs(pts, dlog, N, g);
    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        size_t n = sizes[si];
        for (size_t i = 0; i < n; i++) {
            unsigned kind = (unsigned)cz_prng_below(g, 16);
            if (kind < 3) {
                sc[i] = repr_u64(kind & 1);
            } else if (kind < 5) {
                edge_scalar(&sc[i], g, (unsigned)cz_prng_below(g, 16));
            } else {
                rand_scalar(&sc[i], g);
            }
        }
        if (n > 100) {
            g1_aff_set_identity(&pts[17]);
            dlog[17] = FR_ZERO;
            pts[40] = pts[39];
            dlog[40] = dlog[39];
            sc[40] = sc[39]; /* meets it in every window's bucket: doublings */
        }
        g1_expected_from_logs(&expect, dlog, sc, n);
        for (size_t o = 0; o < ARRAY_LEN(opts); o++) {
            run_g1(&got, pts, sc, n, o % 2 ? pool : NULL, &opts[o]);
            CHECK_MSG(g1_eq(&got, &expect), "n=%zu opts=%zu", n, o);
        }
    }
    cz_pool_free(pool);
    free(pts);
    free(dlog);
    free(sc);
}

TEST(msm_g2_vec_matches_scalar)
{
    /* as msm_g1_vec_matches_scalar, over G2 against the naive sum */
    cz_prng *g = test_prng();
    enum { N = 6000 };
    g2_aff_t *pts = malloc(sizeof(g2_aff_t) * N);
    fr_repr_t *sc = malloc(sizeof(fr_repr_t) * N);
    const msm_opts opts[] = {
        {0, MSM_ACCUM_AUTO, false, false},
        {0, MSM_ACCUM_AUTO, false, true},
        {11, MSM_ACCUM_BATCH_AFFINE, false, false},
        {9, MSM_ACCUM_BATCH_AFFINE, true, false},
    };
    g2_t expect, got;
    cz_pool *pool = test_pool(1);
    CHECK(pts && sc);
    g2_random_points(pts, N, g);
    for (size_t i = 0; i < N; i++) {
        unsigned kind = (unsigned)cz_prng_below(g, 16);
        if (kind < 3) {
            sc[i] = repr_u64(kind & 1);
        } else {
            rand_scalar(&sc[i], g);
        }
    }
    g2_aff_set_identity(&pts[5]);
    pts[8] = pts[7];
    sc[8] = sc[7];
    g2_naive(&expect, pts, sc, N);
    for (size_t o = 0; o < ARRAY_LEN(opts); o++) {
        run_g2(&got, pts, sc, N, o % 2 ? pool : NULL, &opts[o]);
        CHECK_MSG(g2_eq(&got, &expect), "opts=%zu", o);
    }
    cz_pool_free(pool);
    free(pts);
    free(sc);
}
