/* bench_msm.c - G1 and G2 multi-scalar multiplication.
 * Cases: G1 at 2^15 (random only), 2^16, 2^18, 2^20 and G2 at 2^15 (random only), 2^16, 2^18;
 * scalars uniformly random ("rand") or 90% in {0, 1} with the rest random ("bits");
 * single-threaded ("1t") and with a pool of cz_cpu_count() - 1 workers plus the caller ("mt").
 * The "xyzz" and "ba" cases force the bucket accumulation method (the default chooses). Bases
 * are [a]G + i D (one addition each, then one batch inversion per block), not random scalar
 * multiples. The header line names the field kernels (msm_impl_name()).
 * Usage: bench_msm [filter...]   e.g. bench_msm g1_msm_rand_1t
 */
#include <stdio.h>
#include <stdlib.h>

#include "bench.h"
#include "common/alloc.h"
#include "common/pool.h"
#include "common/rand.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "msm/msm.h"

typedef struct bench_ctx {
    int group; /* 1 or 2 */
    const void *points;
    const fr_repr_t *scalars;
    size_t n;
    void *scratch;
    cz_pool *pool;
    const msm_opts *opts;
} bench_ctx;

static void run_msm(void *arg)
{
    bench_ctx *c = arg;
    if (c->group == 1) {
        g1_t out;
        msm_g1_opts(&out, c->points, c->scalars, c->n, c->scratch, c->pool, c->opts);
    } else {
        g2_t out;
        msm_g2_opts(&out, c->points, c->scalars, c->n, c->scratch, c->pool, c->opts);
    }
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

static void make_scalars(fr_repr_t *s, size_t n, bool bits, cz_prng *g)
{
    for (size_t i = 0; i < n; i++) {
        unsigned k = (unsigned)cz_prng_below(g, 10);
        if (bits && k < 9) {
            fr_repr_t v = {{k & 1, 0, 0, 0}};
            s[i] = v;
        } else {
            rand_scalar(&s[i], g);
        }
    }
}

#define BLOCK 4096

static g1_aff_t *make_g1_points(size_t n, cz_prng *g)
{
    g1_aff_t *pts = malloc(n * sizeof(*pts));
    g1_t *jac = malloc(BLOCK * sizeof(*jac));
    fp_t *scr = malloc(BLOCK * sizeof(*scr));
    g1_t acc, gen, d;
    g1_aff_t da;
    fr_repr_t k;
    if (!pts || !jac || !scr) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    g1_from_aff(&gen, &G1_GEN);
    rand_scalar(&k, g);
    g1_mul(&acc, &gen, &k);
    rand_scalar(&k, g);
    g1_mul(&d, &gen, &k);
    g1_to_aff(&da, &d);
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        for (size_t j = 0; j < m; j++) {
            g1_add_aff(&acc, &acc, &da);
            jac[j] = acc;
        }
        g1_batch_to_aff(pts + i, jac, m, scr);
    }
    free(jac);
    free(scr);
    return pts;
}

static g2_aff_t *make_g2_points(size_t n, cz_prng *g)
{
    g2_aff_t *pts = malloc(n * sizeof(*pts));
    g2_t *jac = malloc(BLOCK * sizeof(*jac));
    fp2_t *scr = malloc(BLOCK * sizeof(*scr));
    g2_t acc, gen, d;
    g2_aff_t da;
    fr_repr_t k;
    if (!pts || !jac || !scr) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    g2_from_aff(&gen, &G2_GEN);
    rand_scalar(&k, g);
    g2_mul(&acc, &gen, &k);
    rand_scalar(&k, g);
    g2_mul(&d, &gen, &k);
    g2_to_aff(&da, &d);
    for (size_t i = 0; i < n; i += BLOCK) {
        size_t m = n - i < BLOCK ? n - i : BLOCK;
        for (size_t j = 0; j < m; j++) {
            g2_add_aff(&acc, &acc, &da);
            jac[j] = acc;
        }
        g2_batch_to_aff(pts + i, jac, m, scr);
    }
    free(jac);
    free(scr);
    return pts;
}

typedef struct bench_case_def {
    int group;
    unsigned lg;
    bool bits;
    bool mt;
    msm_accum accum;
} bench_case_def;

static const bench_case_def CASES[] = {
    {1, 15, false, false, MSM_ACCUM_AUTO}, {1, 15, false, true, MSM_ACCUM_AUTO},
    {1, 16, false, false, MSM_ACCUM_AUTO}, {1, 16, true, false, MSM_ACCUM_AUTO},
    {1, 16, false, true, MSM_ACCUM_AUTO},  {1, 16, true, true, MSM_ACCUM_AUTO},
    {1, 18, false, false, MSM_ACCUM_AUTO}, {1, 18, true, false, MSM_ACCUM_AUTO},
    {1, 18, false, true, MSM_ACCUM_AUTO},  {1, 18, true, true, MSM_ACCUM_AUTO},
    {1, 20, false, false, MSM_ACCUM_AUTO}, {1, 20, true, false, MSM_ACCUM_AUTO},
    {1, 20, false, true, MSM_ACCUM_AUTO},  {1, 20, true, true, MSM_ACCUM_AUTO},
    {1, 16, false, false, MSM_ACCUM_XYZZ}, {1, 16, false, false, MSM_ACCUM_BATCH_AFFINE},
    {1, 18, false, false, MSM_ACCUM_XYZZ}, {1, 18, false, false, MSM_ACCUM_BATCH_AFFINE},
    {2, 15, false, false, MSM_ACCUM_AUTO}, {2, 15, false, true, MSM_ACCUM_AUTO},
    {2, 16, false, false, MSM_ACCUM_AUTO}, {2, 16, true, false, MSM_ACCUM_AUTO},
    {2, 16, false, true, MSM_ACCUM_AUTO},  {2, 16, true, true, MSM_ACCUM_AUTO},
    {2, 18, false, false, MSM_ACCUM_AUTO}, {2, 18, true, false, MSM_ACCUM_AUTO},
    {2, 18, false, true, MSM_ACCUM_AUTO},  {2, 18, true, true, MSM_ACCUM_AUTO},
    {2, 16, false, false, MSM_ACCUM_XYZZ}, {2, 16, false, false, MSM_ACCUM_BATCH_AFFINE},
};

int main(int argc, char **argv)
{
    cz_prng g;
    cz_pool *pool = NULL;
    unsigned cores = cz_cpu_count();
    unsigned window = 0;
    size_t maxn1 = 0, maxn2 = 0;
    char name[64];

    /* for tuning: BENCH_MSM_WINDOW=c forces the window, BENCH_MSM_LG=k runs every case at 2^k,
     * BENCH_MSM_NOSIMD=1 keeps to the scalar field arithmetic (msm_opts.no_simd) */
    const char *ws = getenv("BENCH_MSM_WINDOW");
    if (ws) {
        window = (unsigned)atoi(ws);
    }
    const char *ns = getenv("BENCH_MSM_NOSIMD");
    bool no_simd = ns && atoi(ns) != 0;
    const char *ls = getenv("BENCH_MSM_LG");
    unsigned lg_override = ls ? (unsigned)atoi(ls) : 0;
    if (cz_pool_new(&pool, cores > 1 ? cores - 1 : 0, "bench-msm", NULL) != CUZK_OK) {
        fprintf(stderr, "pool failed\n");
        return 1;
    }
    cz_prng_seed(&g, 42);
    bench_header();
    printf("# cores=%u fp_impl=%s msm_impl=%s\n", cores, fp_impl_name(),
           no_simd ? "scalar" : msm_impl_name());

    /* which sizes are needed */
    for (size_t i = 0; i < ARRAY_LEN(CASES); i++) {
        const bench_case_def *d = &CASES[i];
        snprintf(name, sizeof(name), "g%d_msm_%s_%s%s", d->group, d->bits ? "bits" : "rand",
                 d->mt ? "mt" : "1t",
                 d->accum == MSM_ACCUM_XYZZ           ? "_xyzz"
                 : d->accum == MSM_ACCUM_BATCH_AFFINE ? "_ba"
                                                      : "");
        if (!bench_selected(argc, argv, name)) {
            continue;
        }
        size_t n = (size_t)1 << (lg_override ? lg_override : d->lg);
        if (d->group == 1 && n > maxn1) {
            maxn1 = n;
        }
        if (d->group == 2 && n > maxn2) {
            maxn2 = n;
        }
    }
    size_t maxn = maxn1 > maxn2 ? maxn1 : maxn2;
    g1_aff_t *p1 = maxn1 ? make_g1_points(maxn1, &g) : NULL;
    g2_aff_t *p2 = maxn2 ? make_g2_points(maxn2, &g) : NULL;
    fr_repr_t *rnd = malloc((maxn ? maxn : 1) * sizeof(fr_repr_t));
    fr_repr_t *bits = malloc((maxn ? maxn : 1) * sizeof(fr_repr_t));
    if (!rnd || !bits) {
        return 1;
    }
    make_scalars(rnd, maxn, false, &g);
    make_scalars(bits, maxn, true, &g);

    for (size_t i = 0; i < ARRAY_LEN(CASES); i++) {
        const bench_case_def *d = &CASES[i];
        msm_opts opts = {window, d->accum, false, no_simd};
        snprintf(name, sizeof(name), "g%d_msm_%s_%s%s", d->group, d->bits ? "bits" : "rand",
                 d->mt ? "mt" : "1t",
                 d->accum == MSM_ACCUM_XYZZ           ? "_xyzz"
                 : d->accum == MSM_ACCUM_BATCH_AFFINE ? "_ba"
                                                      : "");
        if (!bench_selected(argc, argv, name)) {
            continue;
        }
        size_t n = (size_t)1 << (lg_override ? lg_override : d->lg);
        size_t sz = d->group == 1 ? msm_g1_scratch_sizeof_opts(n, &opts)
                                  : msm_g2_scratch_sizeof_opts(n, &opts);
        void *scratch = cz_malloc_aligned(sz, 64);
        if (!scratch) {
            fprintf(stderr, "scratch of %zu bytes failed\n", sz);
            return 1;
        }
        bench_ctx c = {d->group,
                       d->group == 1 ? (const void *)p1 : (const void *)p2,
                       d->bits ? bits : rnd,
                       n,
                       scratch,
                       d->mt ? pool : NULL,
                       &opts};
        unsigned iters = d->lg >= 20 || (d->group == 2 && d->lg >= 18) ? 2 : 3;
        bench_case(name, n, iters, 1, BENCH_MS, run_msm, &c);
        cz_free_aligned(scratch);
    }
    free(p1);
    free(p2);
    free(rnd);
    free(bits);
    cz_pool_free(pool);
    return 0;
}
