/* cmd_micro.c - cuzk-bench micro: one kernel in isolation, warmed up and repeated.
 *
 * Kernels (size n = 2^log-n):
 *   ntt, coset-ntt  ntt_fwd / ntt_coset_fwd over n values (poly/); twiddles made beforehand
 *   quotient        poly_quotient_h on a, b, c = a * b (a satisfying "witness"), each run on
 *                   fresh copies (the copy is not timed)
 *   msm-g1, msm-g2  msm_g1 / msm_g2 of n points and n scalars (msm/)
 *   sha256          sha256-compress: one stream of n blocks; sha256-64: n independent
 *                   64-byte inputs (Merkle nodes), split over the threads
 *   poseidon        poseidon-2, poseidon-8, poseidon-11: n hashes of Filecoin's arities,
 *                   split over the threads
 * --gpu runs the ntt, quotient and MSM kernels on device 0 instead (gpu/gpu.h), as separate
 * cases: the kernel on device-resident data, the host-to-device and device-to-host transfers,
 * and the whole call from host memory.
 *
 * Output: one line per case in bench/bench.h's format (name n iters min median max unit),
 * milliseconds per run. Every kernel's result is checked once after timing, independently of
 * the kernel: NTTs at three outputs against the defining sum, the quotient h at a random point
 * x against (A(x) B(x) - C(x)) / Z(x) with A, B, C from the barycentric formula, MSMs against
 * a closed form (points P0 + i Q, so the sum is [sum k_i] P0 + [sum i k_i] Q), SHA-256 against
 * the known digests of "abc" and of 64 zero bytes, Poseidon against the textbook permutation,
 * GPU results against the CPU's. A failed check is an error (exit 2): a benchmark of a broken
 * kernel measures nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "common/alloc.h"
#include "common/rand.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"
#include "msm/msm.h"
#include "perf.h"
#include "poly/poly.h"

static const char CMD[] = "micro";

/* ---- the timing loop ----------------------------------------------------------------------- */

typedef struct mcase {
    const char *name;
    size_t n;
    void (*prep)(void *ctx); /* untimed, before each run (may be NULL) */
    bool (*run)(void *ctx);  /* timed; false: failed (the case printed why) */
    void *ctx;
} mcase;

static bool time_case(const mcase *c, unsigned warmup, unsigned repeat)
{
    double *t = cz_malloc(repeat * sizeof(double));
    perf_stats st;

    if (!t) {
        cli_error(CMD, "out of memory");
        return false;
    }
    for (unsigned i = 0; i < warmup + repeat; i++) {
        if (c->prep) {
            c->prep(c->ctx);
        }
        double t0 = cli_now_ms();
        if (!c->run(c->ctx)) {
            cz_free(t);
            return false;
        }
        double dt = cli_now_ms() - t0;
        if (i >= warmup) {
            t[i - warmup] = dt;
        }
    }
    perf_stats_of(&st, t, repeat);
    cz_free(t);
    printf("%-32s %12zu %6u %12.3f %12.3f %12.3f %s\n", c->name, c->n, repeat, st.min, st.median,
           st.max, "ms");
    fflush(stdout);
    return true;
}

static void header(void)
{
    printf("%-32s %12s %6s %12s %12s %12s %s\n", "name", "n", "iters", "min", "median", "max",
           "unit");
}

/* ---- inputs --------------------------------------------------------------------------------- */

typedef struct micro_env {
    cz_prng rng;
    bool binary; /* --scalars binary: values 0 or 1 */
    cz_pool *pool;
    unsigned warmup, repeat;
    gpu_dev *dev;
} micro_env;

static void rand_fr(micro_env *e, fr_t *out)
{
    if (e->binary) {
        fr_from_u64(out, cz_prng_u64(&e->rng) & 1);
        return;
    }
    uint64_t v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = cz_prng_u64(&e->rng);
    }
    fr_from_u256_reduce(out, v);
}

static void *alloc_or_die(size_t n)
{
    void *p = cz_malloc(n ? n : 1);
    if (!p) {
        cli_error(CMD, "out of memory (%zu bytes)", n);
        exit(CLI_EXIT_ERROR);
    }
    return p;
}

static bool gpu_failed(const char *what, cuzk_err err, const cz_diag *dg)
{
    if (err == CUZK_OK) {
        return false;
    }
    cli_error(CMD, "%s: %s", what, dg->msg[0] ? dg->msg : cuzk_strerror(err));
    return true;
}

/* ---- NTT ------------------------------------------------------------------------------------- */

typedef struct ntt_ctx {
    ntt_domain_t dom;
    cz_buf tw;
    fr_t *x;
    bool coset;
    cz_pool *pool;
    /* GPU */
    gpu_dev *dev;
    gpu_buf *buf;
    cz_diag dg;
} ntt_ctx;

static bool ntt_run(void *vctx)
{
    ntt_ctx *c = vctx;
    (c->coset ? ntt_coset_fwd : ntt_fwd)(&c->dom, c->x, c->pool);
    return true;
}

static bool ntt_gpu_run(void *vctx)
{
    ntt_ctx *c = vctx;
    return !gpu_failed("gpu_ntt_buf",
                       gpu_ntt_buf(c->dev, c->buf, 0, c->dom.lg,
                                   c->coset ? GPU_NTT_COSET_FWD : GPU_NTT_FWD, &c->dg),
                       &c->dg);
}

static bool ntt_h2d_run(void *vctx)
{
    ntt_ctx *c = vctx;
    return !gpu_failed("gpu_buf_upload",
                       gpu_buf_upload(c->buf, 0, c->x, c->dom.n * sizeof(fr_t), &c->dg), &c->dg);
}

static bool ntt_d2h_run(void *vctx)
{
    ntt_ctx *c = vctx;
    return !gpu_failed("gpu_buf_download",
                       gpu_buf_download(c->x, c->buf, 0, c->dom.n * sizeof(fr_t), &c->dg), &c->dg);
}

static bool ntt_host_run(void *vctx)
{
    ntt_ctx *c = vctx;
    return !gpu_failed("gpu_ntt",
                       gpu_ntt(c->dev, (struct fr *)c->x, c->dom.lg,
                               c->coset ? GPU_NTT_COSET_FWD : GPU_NTT_FWD, &c->dg),
                       &c->dg);
}

/* y_j = sum_i x_i (g^i) omega^(i j) for j in {0, 1, n - 1}, the definition (spec 4.5). */
static bool ntt_check(const ntt_ctx *c, const fr_t *in, const fr_t *out)
{
    size_t n = c->dom.n, js[3] = {0, n > 1 ? 1 : 0, n - 1};
    for (int q = 0; q < 3; q++) {
        fr_t w, step, acc = FR_ZERO, term;
        fr_pow_u64(&step, &c->dom.omega, js[q]);
        if (c->coset) {
            fr_mul(&step, &step, &c->dom.g);
        }
        w = FR_ONE;
        for (size_t i = 0; i < n; i++) {
            fr_mul(&term, &in[i], &w);
            fr_add(&acc, &acc, &term);
            fr_mul(&w, &w, &step);
        }
        if (!fr_eq(&acc, &out[js[q]])) {
            cli_error(CMD, "check failed: %s output %zu differs from the defining sum",
                      c->coset ? "coset-ntt" : "ntt", js[q]);
            return false;
        }
    }
    return true;
}

static bool micro_ntt(micro_env *e, unsigned lg, bool coset, bool gpu)
{
    ntt_ctx c;
    size_t n = (size_t)1 << lg;
    bool ok = false;
    char name[64];

    memset(&c, 0, sizeof(c));
    cz_diag_init(&c.dg);
    c.coset = coset;
    c.pool = e->pool;
    if (cz_buf_new(&c.tw, ntt_domain_tw_sizeof(lg), &c.dg) != CUZK_OK) {
        cli_error(CMD, "out of memory for the twiddles");
        return false;
    }
    CZ_CHECK(ntt_domain_init(&c.dom, lg, c.tw.ptr, e->pool));
    fr_t *in = alloc_or_die(n * sizeof(fr_t));
    fr_t *ref = alloc_or_die(n * sizeof(fr_t));
    c.x = alloc_or_die(n * sizeof(fr_t));
    for (size_t i = 0; i < n; i++) {
        rand_fr(e, &in[i]);
    }
    memcpy(c.x, in, n * sizeof(fr_t));
    const char *base = coset ? "coset-ntt" : "ntt";
    if (!gpu) {
        mcase mc = {base, n, NULL, ntt_run, &c};
        if (!time_case(&mc, e->warmup, e->repeat)) {
            goto done;
        }
        memcpy(c.x, in, n * sizeof(fr_t));
        ntt_run(&c);
        ok = ntt_check(&c, in, c.x);
        goto done;
    }
    /* GPU: the CPU result is the reference. */
    memcpy(ref, in, n * sizeof(fr_t));
    ntt_run(&(ntt_ctx){.dom = c.dom, .x = ref, .coset = coset, .pool = e->pool});
    c.dev = e->dev;
    if (gpu_failed("gpu_buf_new", gpu_buf_new(&c.buf, c.dev, n * sizeof(fr_t), &c.dg), &c.dg)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu-h2d", base);
    mcase h2d = {name, n, NULL, ntt_h2d_run, &c};
    if (!time_case(&h2d, e->warmup, e->repeat)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu", base);
    mcase dev = {name, n, NULL, ntt_gpu_run, &c};
    if (!time_case(&dev, e->warmup, e->repeat)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu-d2h", base);
    mcase d2h = {name, n, NULL, ntt_d2h_run, &c};
    if (!time_case(&d2h, e->warmup, e->repeat)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu-host", base);
    mcase host = {name, n, NULL, ntt_host_run, &c};
    if (!time_case(&host, e->warmup, e->repeat)) {
        goto done;
    }
    /* one device transform of the original input, compared with the CPU's */
    memcpy(c.x, in, n * sizeof(fr_t));
    if (!ntt_h2d_run(&c) || !ntt_gpu_run(&c) || !ntt_d2h_run(&c)) {
        goto done;
    }
    if (memcmp(c.x, ref, n * sizeof(fr_t)) != 0) {
        cli_error(CMD, "check failed: the GPU %s differs from the CPU's", base);
        goto done;
    }
    ok = true;
done:
    gpu_buf_free(c.buf);
    cz_free(in);
    cz_free(ref);
    cz_free(c.x);
    cz_buf_free(&c.tw);
    return ok;
}

/* ---- quotient -------------------------------------------------------------------------------- */

typedef struct quot_ctx {
    ntt_domain_t dom;
    cz_pool *pool;
    const fr_t *a0, *b0, *c0; /* the inputs, kept */
    fr_t *a, *b, *c;          /* work copies */
    bool top_zero;
    /* GPU */
    gpu_dev *dev;
    gpu_buf *ga, *gb, *gc;
    cz_diag dg;
} quot_ctx;

static void quot_prep(void *vctx)
{
    quot_ctx *q = vctx;
    size_t n = q->dom.n;
    memcpy(q->a, q->a0, n * sizeof(fr_t));
    memcpy(q->b, q->b0, n * sizeof(fr_t));
    memcpy(q->c, q->c0, n * sizeof(fr_t));
}

static bool quot_run(void *vctx)
{
    quot_ctx *q = vctx;
    q->top_zero = poly_quotient_h(&q->dom, q->a, q->b, q->c, q->dom.n, q->pool);
    return true;
}

static bool quot_h2d_run(void *vctx)
{
    quot_ctx *q = vctx;
    size_t len = q->dom.n * sizeof(fr_t);
    return !gpu_failed("gpu_buf_upload", gpu_buf_upload(q->ga, 0, q->a0, len, &q->dg), &q->dg) &&
           !gpu_failed("gpu_buf_upload", gpu_buf_upload(q->gb, 0, q->b0, len, &q->dg), &q->dg) &&
           !gpu_failed("gpu_buf_upload", gpu_buf_upload(q->gc, 0, q->c0, len, &q->dg), &q->dg);
}

static void quot_gpu_prep(void *vctx)
{
    /* the device quotient clobbers its inputs: upload fresh ones (not timed) */
    quot_h2d_run(vctx);
}

static bool quot_gpu_run(void *vctx)
{
    quot_ctx *q = vctx;
    return !gpu_failed(
        "gpu_quotient_h_buf",
        gpu_quotient_h_buf(q->dev, &q->top_zero, q->ga, q->gb, q->gc, q->dom.n, q->dom.lg, &q->dg),
        &q->dg);
}

static bool quot_d2h_run(void *vctx)
{
    quot_ctx *q = vctx;
    return !gpu_failed("gpu_buf_download",
                       gpu_buf_download(q->a, q->ga, 0, q->dom.n * sizeof(fr_t), &q->dg), &q->dg);
}

static bool quot_host_run(void *vctx)
{
    quot_ctx *q = vctx;
    return !gpu_failed("gpu_quotient_h",
                       gpu_quotient_h(q->dev, (struct fr *)q->a, &q->top_zero,
                                      (const struct fr *)q->a0, (const struct fr *)q->b0,
                                      (const struct fr *)q->c0, q->dom.n, q->dom.lg, &q->dg),
                       &q->dg);
}

/* V(x) for the polynomial of degree < n with values v[i] at omega^i (barycentric form):
 * V(x) = (x^n - 1) / n * sum_i v[i] omega^i / (x - omega^i); inv[i] = 1 / (x - omega^i). */
static void bary_eval(fr_t *out, const ntt_domain_t *d, const fr_t *v, const fr_t *inv,
                      const fr_t *zn_over_n)
{
    fr_t acc = FR_ZERO, w = FR_ONE, t;
    for (size_t i = 0; i < d->n; i++) {
        fr_mul(&t, &v[i], &w);
        fr_mul(&t, &t, &inv[i]);
        fr_add(&acc, &acc, &t);
        fr_mul(&w, &w, &d->omega);
    }
    fr_mul(out, &acc, zn_over_n);
}

/* h(x) (x^n - 1) == A(x) B(x) - C(x) at a random x off the domain, h from the kernel. */
static bool quot_check(micro_env *e, const quot_ctx *q, const fr_t *h)
{
    const ntt_domain_t *d = &q->dom;
    size_t n = d->n;
    fr_t x, xn, zn, zn_over_n, w = FR_ONE, av, bv, cv, hv = FR_ZERO, lhs, rhs;
    fr_t *inv = alloc_or_die(n * sizeof(fr_t)), *scratch = alloc_or_die(n * sizeof(fr_t));
    bool binary = e->binary;

    e->binary = false;
    rand_fr(e, &x); /* off the domain with overwhelming probability; checked below */
    e->binary = binary;
    for (size_t i = 0; i < n; i++) {
        fr_sub(&inv[i], &x, &w);
        fr_mul(&w, &w, &d->omega);
    }
    fr_pow_u64(&xn, &x, n);
    fr_sub(&zn, &xn, &FR_ONE);
    CZ_CHECK(!fr_is_zero(&zn));
    fr_batch_inv(inv, inv, n, scratch);
    fr_from_u64(&zn_over_n, n);
    fr_inv(&zn_over_n, &zn_over_n);
    fr_mul(&zn_over_n, &zn_over_n, &zn);
    bary_eval(&av, d, q->a0, inv, &zn_over_n);
    bary_eval(&bv, d, q->b0, inv, &zn_over_n);
    bary_eval(&cv, d, q->c0, inv, &zn_over_n);
    for (size_t i = n - 1; i-- > 0;) { /* Horner over the n - 1 coefficients of h */
        fr_mul(&hv, &hv, &x);
        fr_add(&hv, &hv, &h[i]);
    }
    fr_mul(&lhs, &hv, &zn);
    fr_mul(&rhs, &av, &bv);
    fr_sub(&rhs, &rhs, &cv);
    cz_free(inv);
    cz_free(scratch);
    if (!fr_is_zero(&h[n - 1]) || !fr_eq(&lhs, &rhs)) {
        cli_error(CMD, "check failed: the quotient h does not satisfy h(x) Z(x) = A(x) B(x) - "
                       "C(x) at a random x");
        return false;
    }
    return true;
}

static bool micro_quotient(micro_env *e, unsigned lg, bool gpu)
{
    quot_ctx q;
    size_t n = (size_t)1 << lg;
    cz_buf tw = {0};
    bool ok = false;

    memset(&q, 0, sizeof(q));
    cz_diag_init(&q.dg);
    q.pool = e->pool;
    if (lg < 1) {
        cli_error(CMD, "quotient needs --log-n >= 1");
        return false;
    }
    if (cz_buf_new(&tw, ntt_domain_tw_sizeof(lg), &q.dg) != CUZK_OK) {
        cli_error(CMD, "out of memory for the twiddles");
        return false;
    }
    CZ_CHECK(ntt_domain_init(&q.dom, lg, tw.ptr, e->pool));
    fr_t *a0 = alloc_or_die(n * sizeof(fr_t)), *b0 = alloc_or_die(n * sizeof(fr_t));
    fr_t *c0 = alloc_or_die(n * sizeof(fr_t));
    for (size_t i = 0; i < n; i++) {
        rand_fr(e, &a0[i]);
        rand_fr(e, &b0[i]);
        fr_mul(&c0[i], &a0[i], &b0[i]); /* satisfied: A B - C vanishes on the domain */
    }
    q.a0 = a0;
    q.b0 = b0;
    q.c0 = c0;
    q.a = alloc_or_die(n * sizeof(fr_t));
    q.b = alloc_or_die(n * sizeof(fr_t));
    q.c = alloc_or_die(n * sizeof(fr_t));
    if (!gpu) {
        mcase mc = {"quotient", n, quot_prep, quot_run, &q};
        if (!time_case(&mc, e->warmup, e->repeat)) {
            goto done;
        }
        quot_prep(&q);
        quot_run(&q);
        ok = q.top_zero && quot_check(e, &q, q.a);
        goto done;
    }
    q.dev = e->dev;
    size_t len = n * sizeof(fr_t);
    if (gpu_failed("gpu_buf_new", gpu_buf_new(&q.ga, q.dev, len, &q.dg), &q.dg) ||
        gpu_failed("gpu_buf_new", gpu_buf_new(&q.gb, q.dev, len, &q.dg), &q.dg) ||
        gpu_failed("gpu_buf_new", gpu_buf_new(&q.gc, q.dev, len, &q.dg), &q.dg)) {
        goto done;
    }
    mcase h2d = {"quotient-gpu-h2d", n, NULL, quot_h2d_run, &q};
    mcase dev = {"quotient-gpu", n, quot_gpu_prep, quot_gpu_run, &q};
    mcase d2h = {"quotient-gpu-d2h", n, NULL, quot_d2h_run, &q};
    mcase host = {"quotient-gpu-host", n, NULL, quot_host_run, &q};
    if (!time_case(&h2d, e->warmup, e->repeat) || !time_case(&dev, e->warmup, e->repeat) ||
        !time_case(&d2h, e->warmup, e->repeat) || !time_case(&host, e->warmup, e->repeat)) {
        goto done;
    }
    /* the device result against the CPU kernel's */
    quot_gpu_prep(&q);
    if (!quot_gpu_run(&q) || !quot_d2h_run(&q)) {
        goto done;
    }
    fr_t *h_gpu = alloc_or_die(len);
    memcpy(h_gpu, q.a, len);
    quot_prep(&q);
    quot_run(&q);
    ok = memcmp(h_gpu, q.a, len) == 0;
    cz_free(h_gpu);
    if (!ok) {
        cli_error(CMD, "check failed: the GPU quotient differs from the CPU's");
    }
done:
    gpu_buf_free(q.ga);
    gpu_buf_free(q.gb);
    gpu_buf_free(q.gc);
    cz_free(a0);
    cz_free(b0);
    cz_free(c0);
    cz_free(q.a);
    cz_free(q.b);
    cz_free(q.c);
    cz_buf_free(&tw);
    return ok;
}

/* ---- MSM ------------------------------------------------------------------------------------- */

typedef struct msm_ctx {
    bool g2;
    size_t n;
    const void *points; /* g1_aff_t or g2_aff_t */
    const fr_repr_t *scalars;
    cz_buf scratch;
    cz_pool *pool;
    g1_t r1;
    g2_t r2;
    /* GPU */
    gpu_dev *dev;
    gpu_msm_bases *bases;
    gpu_buf *gs;
    cz_diag dg;
} msm_ctx;

static bool msm_run(void *vctx)
{
    msm_ctx *m = vctx;
    if (m->g2) {
        msm_g2(&m->r2, m->points, m->scalars, m->n, m->scratch.ptr, m->pool);
    } else {
        msm_g1(&m->r1, m->points, m->scalars, m->n, m->scratch.ptr, m->pool);
    }
    return true;
}

static bool msm_bases_run(void *vctx)
{
    msm_ctx *m = vctx;
    cuzk_err err = m->g2 ? gpu_msm_bases_upload_g2(m->bases, 0, m->points, m->n, &m->dg)
                         : gpu_msm_bases_upload_g1(m->bases, 0, m->points, m->n, &m->dg);
    return !gpu_failed("gpu_msm_bases_upload", err, &m->dg);
}

static bool msm_h2d_run(void *vctx)
{
    msm_ctx *m = vctx;
    return !gpu_failed("gpu_buf_upload",
                       gpu_buf_upload(m->gs, 0, m->scalars, m->n * sizeof(fr_repr_t), &m->dg),
                       &m->dg);
}

static bool msm_gpu_run(void *vctx)
{
    msm_ctx *m = vctx;
    cuzk_err err = m->g2 ? gpu_msm_g2_buf(m->dev, (struct g2 *)&m->r2, m->bases, 0, m->gs, 0, m->n,
                                          false, NULL, &m->dg)
                         : gpu_msm_g1_buf(m->dev, (struct g1 *)&m->r1, m->bases, 0, m->gs, 0, m->n,
                                          false, NULL, &m->dg);
    return !gpu_failed("gpu_msm_buf", err, &m->dg);
}

static bool msm_host_run(void *vctx)
{
    msm_ctx *m = vctx;
    cuzk_err err = m->g2 ? gpu_msm_g2(m->dev, (struct g2 *)&m->r2, m->bases, 0,
                                      (const struct fr_repr *)m->scalars, m->n, NULL, &m->dg)
                         : gpu_msm_g1(m->dev, (struct g1 *)&m->r1, m->bases, 0,
                                      (const struct fr_repr *)m->scalars, m->n, NULL, &m->dg);
    return !gpu_failed("gpu_msm", err, &m->dg);
}

#define GEN_CHUNK 65536

/* points[i] = P0 + i Q with P0 = [p0] G, Q = [q] G (G1 or G2), chunk by chunk. */
static void gen_points(bool g2, void *points, size_t n, const fr_t *p0, const fr_t *q)
{
    size_t m = n < GEN_CHUNK ? n : GEN_CHUNK;
    if (!g2) {
        g1_t base, acc;
        g1_aff_t qa;
        g1_t *jac = alloc_or_die(m * sizeof(g1_t));
        fp_t *scratch = alloc_or_die(m * sizeof(fp_t));
        g1_from_aff(&base, &G1_GEN);
        g1_mul_fr(&acc, &base, q);
        g1_to_aff(&qa, &acc);
        g1_mul_fr(&acc, &base, p0);
        for (size_t i = 0; i < n; i += m) {
            size_t k = n - i < m ? n - i : m;
            for (size_t j = 0; j < k; j++) {
                jac[j] = acc;
                g1_add_aff(&acc, &acc, &qa);
            }
            g1_batch_to_aff((g1_aff_t *)points + i, jac, k, scratch);
        }
        cz_free(jac);
        cz_free(scratch);
    } else {
        g2_t base, acc;
        g2_aff_t qa;
        g2_t *jac = alloc_or_die(m * sizeof(g2_t));
        fp2_t *scratch = alloc_or_die(m * sizeof(fp2_t));
        g2_from_aff(&base, &G2_GEN);
        g2_mul_fr(&acc, &base, q);
        g2_to_aff(&qa, &acc);
        g2_mul_fr(&acc, &base, p0);
        for (size_t i = 0; i < n; i += m) {
            size_t k = n - i < m ? n - i : m;
            for (size_t j = 0; j < k; j++) {
                jac[j] = acc;
                g2_add_aff(&acc, &acc, &qa);
            }
            g2_batch_to_aff((g2_aff_t *)points + i, jac, k, scratch);
        }
        cz_free(jac);
        cz_free(scratch);
    }
}

/* sum k_i (P0 + i Q) = [p0 sum k_i + q sum i k_i] G */
static bool msm_check(const msm_ctx *m, const fr_t *k, const fr_t *p0, const fr_t *q,
                      const char *what)
{
    fr_t sk = FR_ZERO, sik = FR_ZERO, fi = FR_ZERO, t, e;
    for (size_t i = 0; i < m->n; i++) {
        fr_add(&sk, &sk, &k[i]);
        fr_mul(&t, &fi, &k[i]);
        fr_add(&sik, &sik, &t);
        fr_add(&fi, &fi, &FR_ONE);
    }
    fr_mul(&e, p0, &sk);
    fr_mul(&t, q, &sik);
    fr_add(&e, &e, &t);
    bool ok;
    if (m->g2) {
        g2_t g, want;
        g2_from_aff(&g, &G2_GEN);
        g2_mul_fr(&want, &g, &e);
        ok = g2_eq(&want, &m->r2);
    } else {
        g1_t g, want;
        g1_from_aff(&g, &G1_GEN);
        g1_mul_fr(&want, &g, &e);
        ok = g1_eq(&want, &m->r1);
    }
    if (!ok) {
        cli_error(CMD, "check failed: %s differs from the closed form of its sum", what);
    }
    return ok;
}

static bool micro_msm(micro_env *e, unsigned lg, bool g2, bool gpu)
{
    msm_ctx m;
    size_t n = (size_t)1 << lg;
    fr_t p0, q;
    bool ok = false;
    const char *base = g2 ? "msm-g2" : "msm-g1";
    char name[64];

    memset(&m, 0, sizeof(m));
    cz_diag_init(&m.dg);
    m.g2 = g2;
    m.n = n;
    m.pool = e->pool;
    bool binary = e->binary;
    e->binary = false;
    rand_fr(e, &p0);
    rand_fr(e, &q);
    e->binary = binary;
    void *points = alloc_or_die(n * (g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t)));
    fr_t *k = alloc_or_die(n * sizeof(fr_t));
    fr_repr_t *s = alloc_or_die(n * sizeof(fr_repr_t));
    gen_points(g2, points, n, &p0, &q);
    for (size_t i = 0; i < n; i++) {
        rand_fr(e, &k[i]);
        fr_to_repr(&s[i], &k[i]);
    }
    m.points = points;
    m.scalars = s;
    if (!gpu) {
        size_t ss = g2 ? msm_g2_scratch_sizeof(n) : msm_g1_scratch_sizeof(n);
        if (cz_buf_new(&m.scratch, ss, &m.dg) != CUZK_OK) {
            cli_error(CMD, "out of memory for the MSM scratch (%zu bytes)", ss);
            goto done;
        }
        mcase mc = {base, n, NULL, msm_run, &m};
        if (!time_case(&mc, e->warmup, e->repeat)) {
            goto done;
        }
        ok = msm_check(&m, k, &p0, &q, base);
        goto done;
    }
    m.dev = e->dev;
    cuzk_err err = g2 ? gpu_msm_bases_new_g2(&m.bases, m.dev, n, &m.dg)
                      : gpu_msm_bases_new_g1(&m.bases, m.dev, n, &m.dg);
    if (gpu_failed("gpu_msm_bases_new", err, &m.dg) ||
        gpu_failed("gpu_buf_new", gpu_buf_new(&m.gs, m.dev, n * sizeof(fr_repr_t), &m.dg), &m.dg)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu-bases-h2d", base);
    mcase bases = {name, n, NULL, msm_bases_run, &m};
    if (!time_case(&bases, e->warmup, e->repeat)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu-h2d", base);
    mcase h2d = {name, n, NULL, msm_h2d_run, &m};
    if (!time_case(&h2d, e->warmup, e->repeat)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu", base);
    mcase dev = {name, n, NULL, msm_gpu_run, &m};
    if (!time_case(&dev, e->warmup, e->repeat)) {
        goto done;
    }
    if (!msm_check(&m, k, &p0, &q, name)) {
        goto done;
    }
    snprintf(name, sizeof(name), "%s-gpu-host", base);
    mcase host = {name, n, NULL, msm_host_run, &m};
    if (!time_case(&host, e->warmup, e->repeat)) {
        goto done;
    }
    ok = msm_check(&m, k, &p0, &q, name);
done:
    gpu_buf_free(m.gs);
    gpu_msm_bases_free(m.bases);
    cz_buf_free(&m.scratch);
    cz_free(points);
    cz_free(k);
    cz_free(s);
    return ok;
}

/* ---- hashes ------------------------------------------------------------------------------------ */

#define HASH_GRAIN 1024

typedef struct sha_ctx {
    uint8_t *in, *out;
    size_t n;
    uint32_t state[8];
    cz_pool *pool;
} sha_ctx;

static bool sha_compress_run(void *vctx)
{
    sha_ctx *c = vctx;
    sha256_compress(c->state, c->in, c->n);
    return true;
}

static void sha64_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    sha_ctx *c = vctx;
    (void)worker;
    sha256_64_many(c->out + 32 * begin, c->in + 64 * begin, end - begin);
}

static bool sha64_run(void *vctx)
{
    sha_ctx *c = vctx;
    cz_pool_for(c->pool, c->n, HASH_GRAIN, sha64_task, c);
    return true;
}

static bool hex_is(const uint8_t *d, const char *hex)
{
    for (size_t i = 0; i < 32; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v != d[i]) {
            return false;
        }
    }
    return true;
}

static bool micro_sha256(micro_env *e, unsigned lg)
{
    sha_ctx c;
    size_t n = (size_t)1 << lg;
    uint8_t d[32];
    bool ok = false;

    memset(&c, 0, sizeof(c));
    c.n = n;
    c.pool = e->pool;
    c.in = alloc_or_die(64 * n);
    c.out = alloc_or_die(32 * n);
    cz_prng_bytes(&e->rng, c.in, 64 * n);
    memset(c.in, 0, 64); /* input 0: 64 zero bytes, a known digest */
    char name[64];
    snprintf(name, sizeof(name), "sha256-compress-%s", sha256_impl_name());
    mcase comp = {name, n, NULL, sha_compress_run, &c};
    mcase many = {"sha256-64", n, NULL, sha64_run, &c};
    if (!time_case(&comp, e->warmup, e->repeat) || !time_case(&many, e->warmup, e->repeat)) {
        goto done;
    }
    /* FIPS 180-2 appendix B.1: SHA-256("abc"); 64 zero bytes: the depth-1 zero node of
     * SHA-256 Merkle trees (eth2 zerohashes[1]). */
    sha256(d, "abc", 3);
    if (!hex_is(d, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") ||
        !hex_is(c.out, "f5a5fd42d16a20302798ef6ed309979b43003d2320d9f0e8ea9831a92759fb4b")) {
        cli_error(CMD, "check failed: SHA-256 known-answer digests");
        goto done;
    }
    ok = true;
done:
    cz_free(c.in);
    cz_free(c.out);
    return ok;
}

typedef struct pos_ctx {
    const poseidon_params_t *p;
    size_t arity, n;
    fr_t *in, *out;
    cz_pool *pool;
} pos_ctx;

static void pos_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    pos_ctx *c = vctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        poseidon_hash(&c->out[i], &c->in[i * c->arity], c->arity, c->p);
    }
}

static bool pos_run(void *vctx)
{
    pos_ctx *c = vctx;
    cz_pool_for(c->pool, c->n, HASH_GRAIN / 4, pos_task, c);
    return true;
}

static bool micro_poseidon(micro_env *e, unsigned lg)
{
    static const size_t arities[] = {2, 8, 11};
    size_t n = (size_t)1 << lg;

    for (size_t a = 0; a < ARRAY_LEN(arities); a++) {
        pos_ctx c = {
            .p = poseidon_params(arities[a]), .arity = arities[a], .n = n, .pool = e->pool};
        char name[32];
        c.in = alloc_or_die(n * c.arity * sizeof(fr_t));
        c.out = alloc_or_die(n * sizeof(fr_t));
        for (size_t i = 0; i < n * c.arity; i++) {
            rand_fr(e, &c.in[i]);
        }
        snprintf(name, sizeof(name), "poseidon-%zu", c.arity);
        mcase mc = {name, n, NULL, pos_run, &c};
        bool ok = time_case(&mc, e->warmup, e->repeat);
        if (ok) {
            /* the textbook permutation of [merkle tag, inputs] (spec 3.6), element 1 */
            fr_t st[12];
            memset(st, 0, sizeof(st));
            st[0] = c.p->merkle_tag;
            memcpy(st + 1, c.in, c.arity * sizeof(fr_t));
            poseidon_permute_ref(st, c.p);
            ok = fr_eq(&st[1], &c.out[0]);
            if (!ok) {
                cli_error(CMD, "check failed: %s differs from the textbook permutation", name);
            }
        }
        cz_free(c.in);
        cz_free(c.out);
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* ---- the command --------------------------------------------------------------------------------- */

int cmd_micro(int argc, char **argv)
{
    static const char about[] =
        "cuzk-bench micro KERNEL --log-n N: one kernel in isolation, with --warmup runs and\n"
        "--repeat timed runs, one line per case in bench/bench.h's format (name n iters min\n"
        "median max unit; milliseconds per run). KERNEL: ntt, coset-ntt, quotient, msm-g1,\n"
        "msm-g2, sha256, poseidon. --gpu runs ntt, coset-ntt, quotient and the MSMs on device\n"
        "0 and reports the kernel on device-resident data, the transfers and the whole call\n"
        "from host memory as separate cases. --scalars binary draws inputs from {0, 1} (most\n"
        "Filecoin witness values are bits). Each result is checked once, independently (see\n"
        "the source), after timing; a failed check exits 2.";
    const char *kernel = NULL, *scalars = "random", *memmon = NULL;
    uint64_t lg = 0, repeat = 5, warmup = 1, threads = 0, seed = 1;
    bool gpu = false;
    cz_pool *pool = NULL;
    perf_memmon *mm = NULL;
    micro_env e;
    int rc;

    if (argc > 1 && strncmp(argv[1], "--", 2) != 0 && strcmp(argv[1], "-h") != 0) {
        kernel = argv[1];
        argv[1] = argv[0];
        argv++;
        argc--;
    }
    cli_opt_t opts[] = {
        CLI_OPT("kernel", CLI_STR, &kernel, "K", "the kernel, when not given first", false),
        CLI_OPT("log-n", CLI_U64, &lg, "N", "size 2^N (required)", true),
        CLI_OPT("gpu", CLI_FLAG, &gpu, NULL, "run on device 0 (ntt, coset-ntt, quotient, msm-*)",
                false),
        CLI_OPT("scalars", CLI_STR, &scalars, "S", "random | binary (default random)", false),
        CLI_OPT("repeat", CLI_U64, &repeat, "N", "timed runs (default 5)", false),
        CLI_OPT("warmup", CLI_U64, &warmup, "N", "untimed runs first (default 1)", false),
        CLI_OPT("threads", CLI_U64, &threads, "N", "cores to use (default: all)", false),
        CLI_OPT("seed", CLI_U64, &seed, "N", "seed of the inputs (default 1)", false),
        CLI_OPT("memmon", CLI_STR, &memmon, "FILE.csv",
                "sample resident (and with --gpu device) memory every 100 ms", false),
    };
    rc = cli_parse(CMD, about, opts, ARRAY_LEN(opts), argc, argv);
    if (rc >= 0) {
        return rc;
    }
    if (!kernel) {
        return cli_error(CMD, "which kernel? ntt, coset-ntt, quotient, msm-g1, msm-g2, sha256, "
                              "poseidon (see --help)");
    }
    if (strcmp(scalars, "random") != 0 && strcmp(scalars, "binary") != 0) {
        return cli_error(CMD, "--scalars must be random or binary (not '%s')", scalars);
    }
    if (repeat < 1 || repeat > 100000 || warmup > 100000) {
        return cli_error(CMD, "--repeat must be 1 .. 100000 and --warmup at most 100000");
    }
    bool is_ntt = strcmp(kernel, "ntt") == 0, is_coset = strcmp(kernel, "coset-ntt") == 0;
    bool is_quot = strcmp(kernel, "quotient") == 0, is_g1 = strcmp(kernel, "msm-g1") == 0;
    bool is_g2 = strcmp(kernel, "msm-g2") == 0, is_sha = strcmp(kernel, "sha256") == 0;
    bool is_pos = strcmp(kernel, "poseidon") == 0;
    if (!(is_ntt || is_coset || is_quot || is_g1 || is_g2 || is_sha || is_pos)) {
        return cli_error(CMD,
                         "unknown kernel '%s' (ntt, coset-ntt, quotient, msm-g1, msm-g2, "
                         "sha256, poseidon)",
                         kernel);
    }
    unsigned max_lg = (is_ntt || is_coset || is_quot) ? NTT_MAX_LG : 30;
    if (lg > max_lg || ((is_g1 || is_g2) && lg > 30)) {
        return cli_error(CMD, "--log-n %" PRIu64 " is too large for %s (at most %u)", lg, kernel,
                         max_lg);
    }
    if (gpu && (is_sha || is_pos)) {
        return cli_error(CMD, "%s has no GPU kernel", kernel);
    }
    memset(&e, 0, sizeof(e));
    cz_prng_seed(&e.rng, seed);
    e.binary = strcmp(scalars, "binary") == 0;
    e.warmup = (unsigned)warmup;
    e.repeat = (unsigned)repeat;
    if (gpu) {
        cz_diag dg;
        cz_diag_init(&dg);
        if (gpu_count() == 0) {
            return cli_error(CMD, "--gpu: no usable GPU (%s)", cuzk_strerror(CUZK_E_NO_GPU));
        }
        cuzk_err err = gpu_dev_open(&e.dev, 0, &dg);
        if (err != CUZK_OK) {
            return cli_error_diag(CMD, err, &dg);
        }
        gpu_dev_info info;
        if (gpu_dev_get_info(e.dev, &info, &dg) == CUZK_OK) {
            fprintf(stderr, "cuzk-bench micro: device 0: %s, %zu MiB\n", info.name,
                    info.total_mem >> 20);
        }
    }
    if (!cli_pool(CMD, threads, &pool)) {
        gpu_dev_close(e.dev);
        return CLI_EXIT_ERROR;
    }
    e.pool = pool;
    if (memmon) {
        perf_memmon_src src = {"rss", 0};
        if (!perf_memmon_start(&mm, CMD, memmon, &src, 1, gpu)) {
            cz_pool_free(pool);
            gpu_dev_close(e.dev);
            return CLI_EXIT_ERROR;
        }
    }
    header();
    unsigned l = (unsigned)lg;
    bool ok;
    if (is_ntt || is_coset) {
        ok = micro_ntt(&e, l, is_coset, gpu);
    } else if (is_quot) {
        ok = micro_quotient(&e, l, gpu);
    } else if (is_g1 || is_g2) {
        ok = micro_msm(&e, l, is_g2, gpu);
    } else if (is_sha) {
        ok = micro_sha256(&e, l);
    } else {
        ok = micro_poseidon(&e, l);
    }
    perf_memmon_peak mp;
    perf_memmon_stop(mm, &mp);
    if (ok && memmon) {
        char a[32];
        perf_human_bytes(a, sizeof(a), mp.rss[0]);
        printf("memory peak_rss_bytes=%" PRIu64, mp.rss[0]);
        if (mp.have_gpu) {
            printf(" peak_gpu_bytes=%" PRIu64, mp.gpu);
        }
        printf(" samples=%zu (peak %s)\n", mp.samples, a);
    }
    cz_pool_free(pool);
    gpu_dev_close(e.dev);
    return ok ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}
