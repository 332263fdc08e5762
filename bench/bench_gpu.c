/* bench_gpu.c - the GPU backend on device-resident data: NTT 2^20 .. 2^27 (forward and inverse
 * coset), the Groth16 quotient 2^20 .. 2^27, G1 MSM 2^20 .. 2^27 dense and 0/1-heavy (90% of
 * the scalars 0 or 1, as Filecoin witnesses), G1 2^27 with the scalars crossing PCIe, G2 MSM
 * 2^20 .. 2^24. One line per case (bench.h); MSM lines are followed by the phase split of the
 * last call (gpu_debug_profile). Exits 77 without a GPU.
 * Inputs: 2^20 distinct G1 bases (2^18 on G2) from consecutive additions, tiled over the base
 * array; 2^22 random scalars tiled over the scalar array (timing does not depend on values).
 * Self-checks (lines starting "check"): NTT forward then inverse returns the input; the MSM of
 * the tiled problem equals a 2^20-term MSM with folded scalars (sum of the scalars that share
 * a base), which takes another window size and another code path through the buckets.
 * Options: case-name filters; --min-lg N and --max-lg N (sizes 2^N, 20 and 27 by default),
 * --g2-max-lg N (24), --window C (MSM window; 0 = automatic), --ntt-minb B (NTT pass kernel
 * built for 1 or 2 blocks per SM; 0 = default). The NTT and MSM setups are skipped when none
 * of their cases is selected.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rand.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/internal.h"

#define DISTINCT_G1_LG 20
#define DISTINCT_G2_LG 18
#define CHUNK_SC_LG    22

static gpu_dev *dev;
static unsigned min_lg = 20, max_lg = 27, g2_max_lg = 24, window, ntt_minb;

static void die(const char *what, cz_diag *dg)
{
    char buf[600];
    fprintf(stderr, "%s: %s\n", what, cz_diag_str(dg, buf, sizeof(buf)));
    exit(1);
}

#define TRY(expr)                                                                                  \
    do {                                                                                           \
        cz_diag dg_;                                                                               \
        cz_diag_init(&dg_);                                                                        \
        if ((expr) != CUZK_OK) {                                                                   \
            die(#expr, &dg_);                                                                      \
        }                                                                                          \
    } while (0)
#define DG (&dg_)

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", n);
        exit(1);
    }
    return p;
}

/* ---- NTT and quotient ---- */

struct ntt_ctx {
    gpu_buf *buf, *b, *c;
    unsigned lg;
    gpu_ntt_kind kind;
};

static void run_ntt(void *vctx)
{
    struct ntt_ctx *c = vctx;
    TRY(gpu_ntt_buf(dev, c->buf, 0, c->lg, c->kind, DG));
}

static void run_quotient(void *vctx)
{
    struct ntt_ctx *c = vctx;
    bool top;
    /* the kernels do not depend on the values: the clobbered b, c of the last run serve */
    TRY(gpu_quotient_h_buf(dev, &top, c->buf, c->b, c->c, (size_t)1 << c->lg, c->lg, DG));
}

/* Whether a case named what_2^lg is selected for some size. */
static int any_size_selected(int argc, char **argv, const char *what)
{
    char name[64];
    for (unsigned lg = min_lg; lg <= max_lg; lg++) {
        snprintf(name, sizeof(name), "%s_2^%u", what, lg);
        if (bench_selected(argc, argv, name)) {
            return 1;
        }
    }
    return 0;
}

static void bench_ntt(int argc, char **argv)
{
    const size_t nmax = (size_t)1 << max_lg;
    fr_t *host, *back;
    struct ntt_ctx c;
    cz_prng g;
    char name[64];
    const int want_ntt = any_size_selected(argc, argv, "gpu_ntt_fwd") ||
                         any_size_selected(argc, argv, "gpu_ntt_coset_inv");
    const int want_q = any_size_selected(argc, argv, "gpu_quotient");

    if (!want_ntt && !want_q) {
        return;
    }
    host = xmalloc(nmax * sizeof(fr_t));
    cz_prng_seed(&g, 1);
    for (size_t i = 0; i < nmax; i++) {
        uint64_t v[4] = {cz_prng_u64(&g), cz_prng_u64(&g), cz_prng_u64(&g),
                         cz_prng_u64(&g) & 0x0fffffffffffffffULL};
        memcpy(&host[i], v, 32); /* < 2^252 < r: a valid Montgomery value */
    }
    memset(&c, 0, sizeof(c));
    TRY(gpu_buf_new(&c.buf, dev, nmax * 32, DG));
    TRY(gpu_buf_upload(c.buf, 0, host, nmax * 32, DG));
    for (unsigned lg = min_lg; lg <= max_lg; lg++) {
        c.lg = lg;
        unsigned iters = lg <= 24 ? 20 : 8;
        c.kind = GPU_NTT_FWD;
        snprintf(name, sizeof(name), "gpu_ntt_fwd_2^%u", lg);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, (size_t)1 << lg, iters, 1, BENCH_MS, run_ntt, &c);
        }
        c.kind = GPU_NTT_COSET_INV;
        snprintf(name, sizeof(name), "gpu_ntt_coset_inv_2^%u", lg);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, (size_t)1 << lg, iters, 1, BENCH_MS, run_ntt, &c);
        }
    }
    /* check: coset forward then inverse returns the input (largest size) */
    if (want_ntt) {
        back = xmalloc(nmax * sizeof(fr_t));
        TRY(gpu_buf_upload(c.buf, 0, host, nmax * 32, DG));
        TRY(gpu_ntt_buf(dev, c.buf, 0, max_lg, GPU_NTT_COSET_FWD, DG));
        TRY(gpu_ntt_buf(dev, c.buf, 0, max_lg, GPU_NTT_COSET_INV, DG));
        TRY(gpu_buf_download(back, c.buf, 0, nmax * 32, DG));
        printf("check ntt_roundtrip_2^%u %s\n", max_lg,
               memcmp(back, host, nmax * 32) == 0 ? "ok" : "FAIL");
        free(back);
    }
    if (want_q) {
        TRY(gpu_buf_new(&c.b, dev, nmax * 32, DG));
        TRY(gpu_buf_new(&c.c, dev, nmax * 32, DG));
        TRY(gpu_buf_upload(c.b, 0, host, nmax * 32, DG));
        TRY(gpu_buf_upload(c.c, 0, host, nmax * 32, DG));
        for (unsigned lg = min_lg; lg <= max_lg; lg++) {
            c.lg = lg;
            snprintf(name, sizeof(name), "gpu_quotient_2^%u", lg);
            if (bench_selected(argc, argv, name)) {
                bench_case(name, (size_t)1 << lg, lg <= 24 ? 10 : 4, 1, BENCH_MS, run_quotient, &c);
            }
        }
    }
    gpu_buf_free(c.b);
    gpu_buf_free(c.c);
    gpu_buf_free(c.buf);
    free(host);
    TRY(gpu_dev_trim(dev, DG));
}

/* ---- MSM ---- */

struct msm_ctx {
    const gpu_msm_bases *bases;
    gpu_buf *sc;
    const fr_repr_t *host_sc;
    size_t n;
    int g2;
    gpu_msm_opts opts;
    g1_t r1;
    g2_t r2;
};

static void run_msm(void *vctx)
{
    struct msm_ctx *c = vctx;
    if (c->g2) {
        TRY(gpu_msm_g2_buf(dev, &c->r2, c->bases, 0, c->sc, 0, c->n, false, &c->opts, DG));
    } else if (c->host_sc) {
        TRY(gpu_msm_g1(dev, &c->r1, c->bases, 0, c->host_sc, c->n, &c->opts, DG));
    } else {
        TRY(gpu_msm_g1_buf(dev, &c->r1, c->bases, 0, c->sc, 0, c->n, false, &c->opts, DG));
    }
}

static void print_profile(const char *name)
{
    float ms[GPU_PROF_PHASES];
    gpu_debug_profile_get(dev, ms);
    printf("  %s phases ms: classify %.2f sort %.2f accumulate %.2f reduce %.2f ones %.2f "
           "copy %.2f\n",
           name, ms[0], ms[1], ms[2], ms[3], ms[4], ms[5]);
}

/* chunk of 2^22 scalars: dense (< 2^254) or 0/1-heavy (90% 0 or 1) */
static void make_scalars(fr_repr_t *s, size_t n, int zero_one, cz_prng *g)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t u = cz_prng_u64(g);
        memset(&s[i], 0, sizeof(s[i]));
        if (zero_one && u % 10 < 9) {
            s[i].l[0] = (u >> 20) & 1;
            continue;
        }
        for (int j = 0; j < 4; j++) {
            s[i].l[j] = cz_prng_u64(g);
        }
        s[i].l[3] &= 0x3fffffffffffffffULL;
    }
}

/* Uploads 2^lg scalars: the chunk repeated. */
static void fill_scalars(gpu_buf *buf, const fr_repr_t *chunk, size_t n)
{
    const size_t cn = (size_t)1 << CHUNK_SC_LG;
    for (size_t off = 0; off < n; off += cn) {
        size_t k = n - off < cn ? n - off : cn;
        TRY(gpu_buf_upload(buf, off * 32, chunk, k * 32, DG));
    }
}

/* Scalars of the folded problem: fold[j] = sum of s_i over i = j mod 2^distinct_lg, i < n.
 * Canonical limbs added as fr_t give the canonical sum (addition is the same in both forms);
 * fr_mul by the Montgomery form of k multiplies canonical limbs by k. */
static void fold_scalars(fr_repr_t *fold, const fr_repr_t *chunk, size_t n, unsigned distinct_lg)
{
    const size_t d = (size_t)1 << distinct_lg, cn = (size_t)1 << CHUNK_SC_LG;
    fr_t *acc = xmalloc(d * sizeof(fr_t));
    memset(acc, 0, d * sizeof(fr_t));
    for (size_t i = 0; i < n && i < cn; i++) {
        fr_t t;
        memcpy(&t, &chunk[i], 32);
        fr_add(&acc[i % d], &acc[i % d], &t);
    }
    if (n > cn) {
        fr_t k;
        fr_from_u64(&k, n / cn); /* the chunk repeats n / cn times */
        for (size_t j = 0; j < d; j++) {
            fr_mul(&acc[j], &acc[j], &k);
        }
    }
    for (size_t j = 0; j < d; j++) {
        memcpy(&fold[j], &acc[j], 32);
    }
    free(acc);
}

static void g1_points(g1_aff_t *out, size_t n)
{
    g1_t *jac = xmalloc(n * sizeof(g1_t)), acc, step, gen;
    fp_t *scr = xmalloc(n * sizeof(fp_t));
    fr_repr_t k = {{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 7}};
    g1_from_aff(&gen, &G1_GEN);
    g1_mul(&step, &gen, &k);
    k.l[0] ^= 0x5555;
    g1_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        g1_add(&acc, &acc, &step);
        jac[i] = acc;
    }
    g1_batch_to_aff(out, jac, n, scr);
    free(jac);
    free(scr);
}

static void g2_points(g2_aff_t *out, size_t n)
{
    g2_t *jac = xmalloc(n * sizeof(g2_t)), acc, step, gen;
    fp2_t *scr = xmalloc(n * sizeof(fp2_t));
    fr_repr_t k = {{0x243f6a8885a308d3ULL, 0x13198a2e03707344ULL, 0xa4093822299f31d0ULL, 7}};
    g2_from_aff(&gen, &G2_GEN);
    g2_mul(&step, &gen, &k);
    k.l[0] ^= 0x5555;
    g2_mul(&acc, &gen, &k);
    for (size_t i = 0; i < n; i++) {
        g2_add(&acc, &acc, &step);
        jac[i] = acc;
    }
    g2_batch_to_aff(out, jac, n, scr);
    free(jac);
    free(scr);
}

/* Whether any case of bench_msm(g2) is selected (its setup is long: skip it otherwise). */
static int any_msm_selected(int argc, char **argv, int g2)
{
    const unsigned top = g2 ? g2_max_lg : max_lg;
    char name[64];
    for (int zero_one = 0; zero_one <= 1; zero_one++) {
        for (unsigned lg = min_lg; lg <= top; lg++) {
            snprintf(name, sizeof(name), "gpu_msm_%s_%s_2^%u", g2 ? "g2" : "g1",
                     zero_one ? "01" : "dense", lg);
            if (bench_selected(argc, argv, name)) {
                return 1;
            }
        }
    }
    snprintf(name, sizeof(name), "gpu_msm_g1_dense_hostsc_2^%u", top);
    return !g2 && bench_selected(argc, argv, name);
}

static void bench_msm(int argc, char **argv, int g2)
{
    const unsigned top = g2 ? g2_max_lg : max_lg;
    const unsigned dlg0 = g2 ? DISTINCT_G2_LG : DISTINCT_G1_LG;
    const unsigned dlg = dlg0 < min_lg ? dlg0 : min_lg;
    const size_t nmax = (size_t)1 << top, d = (size_t)1 << dlg, cn = (size_t)1 << CHUNK_SC_LG;
    const size_t psz = g2 ? sizeof(g2_aff_t) : sizeof(g1_aff_t);
    void *pts = xmalloc(d * psz);
    fr_repr_t *chunk = xmalloc(cn * sizeof(fr_repr_t)), *fold = xmalloc(d * sizeof(fr_repr_t));
    gpu_msm_bases *bases = NULL, *small = NULL;
    struct msm_ctx c;
    cz_prng g;
    char name[64];
    double t0 = bench_now();

    if (!any_msm_selected(argc, argv, g2)) {
        free(pts);
        free(chunk);
        free(fold);
        return;
    }
    memset(&c, 0, sizeof(c));
    c.g2 = g2;
    c.opts.window_bits = window;
    if (g2) {
        g2_points(pts, d);
        TRY(gpu_msm_bases_new_g2(&bases, dev, nmax, DG));
        TRY(gpu_msm_bases_new_g2(&small, dev, d, DG));
        TRY(gpu_msm_bases_upload_g2(small, 0, pts, d, DG));
        for (size_t off = 0; off < nmax; off += d) {
            TRY(gpu_msm_bases_upload_g2(bases, off, pts, d, DG));
        }
    } else {
        g1_points(pts, d);
        TRY(gpu_msm_bases_new_g1(&bases, dev, nmax, DG));
        TRY(gpu_msm_bases_new_g1(&small, dev, d, DG));
        TRY(gpu_msm_bases_upload_g1(small, 0, pts, d, DG));
        for (size_t off = 0; off < nmax; off += d) {
            TRY(gpu_msm_bases_upload_g1(bases, off, pts, d, DG));
        }
    }
    printf("# %s setup (2^%u distinct bases, 2^%u uploaded): %.1f s\n", g2 ? "G2" : "G1", dlg, top,
           bench_now() - t0);
    c.bases = bases;
    TRY(gpu_buf_new(&c.sc, dev, nmax * 32, DG));
    cz_prng_seed(&g, 2);
    for (int zero_one = 0; zero_one <= 1; zero_one++) {
        make_scalars(chunk, cn, zero_one, &g);
        fill_scalars(c.sc, chunk, nmax);
        for (unsigned lg = min_lg; lg <= top; lg++) {
            c.n = (size_t)1 << lg;
            snprintf(name, sizeof(name), "gpu_msm_%s_%s_2^%u", g2 ? "g2" : "g1",
                     zero_one ? "01" : "dense", lg);
            if (!bench_selected(argc, argv, name)) {
                continue;
            }
            bench_case(name, c.n, lg >= 25 ? 3 : 5, 1, BENCH_MS, run_msm, &c);
            print_profile(name);
            if (lg == top || lg == min_lg) {
                /* the same sum from the folded problem on 2^dlg distinct bases */
                struct msm_ctx f = c;
                gpu_buf *fb = NULL;
                bool ok;
                fold_scalars(fold, chunk, c.n, dlg);
                TRY(gpu_buf_new(&fb, dev, d * 32, DG));
                TRY(gpu_buf_upload(fb, 0, fold, d * 32, DG));
                f.bases = small;
                f.sc = fb;
                f.n = d;
                f.opts.window_bits = 0;
                run_msm(&f);
                ok = g2 ? g2_eq(&f.r2, &c.r2) : g1_eq(&f.r1, &c.r1);
                printf("check %s vs folded 2^%u: %s\n", name, dlg, ok ? "ok" : "FAIL");
                gpu_buf_free(fb);
            }
        }
    }
    if (!g2) {
        /* scalars from host memory (pageable): includes the PCIe copy */
        fr_repr_t *hs = xmalloc(nmax * sizeof(fr_repr_t));
        make_scalars(chunk, cn, 0, &g);
        for (size_t off = 0; off < nmax; off += cn) {
            memcpy(hs + off, chunk, (nmax - off < cn ? nmax - off : cn) * sizeof(fr_repr_t));
        }
        c.host_sc = hs;
        c.n = nmax;
        snprintf(name, sizeof(name), "gpu_msm_g1_dense_hostsc_2^%u", top);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, c.n, 3, 1, BENCH_MS, run_msm, &c);
            print_profile(name);
        }
        free(hs);
    }
    gpu_buf_free(c.sc);
    gpu_msm_bases_free(bases);
    gpu_msm_bases_free(small);
    free(pts);
    free(chunk);
    free(fold);
    TRY(gpu_dev_trim(dev, DG));
}

int main(int argc, char **argv)
{
    char **filters = xmalloc(((size_t)argc + 1) * sizeof(char *));
    int nf = 1;
    gpu_dev_info info;

    setvbuf(stdout, NULL, _IOLBF, 0);
    filters[0] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--min-lg") == 0 && i + 1 < argc) {
            min_lg = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--max-lg") == 0 && i + 1 < argc) {
            max_lg = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--g2-max-lg") == 0 && i + 1 < argc) {
            g2_max_lg = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--ntt-minb") == 0 && i + 1 < argc) {
            ntt_minb = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) {
            window = (unsigned)atoi(argv[++i]);
        } else {
            filters[nf++] = argv[i];
        }
    }
    if (min_lg < 8 || max_lg < min_lg || max_lg > 28 || g2_max_lg < min_lg || g2_max_lg > 26) {
        fprintf(stderr, "sizes: 8 <= --min-lg <= --max-lg <= 28, --g2-max-lg <= 26\n");
        return 2;
    }
    if (gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    TRY(gpu_dev_open(&dev, 0, DG));
    TRY(gpu_dev_get_info(dev, &info, DG));
    TRY(gpu_debug_profile(dev, true, DG));
    TRY(gpu_debug_ntt_layout(dev, 0, 0, 0, ntt_minb, DG));
    printf("# %s, %zu MiB, %u SMs, cc %u.%u; auto window for 2^27 terms: %u\n", info.name,
           info.total_mem >> 20, info.sm_count, info.cc_major, info.cc_minor,
           gpu_msm_auto_window_bits((size_t)1 << 27));
    bench_header();
    bench_ntt(nf, filters);
    bench_msm(nf, filters, 0);
    bench_msm(nf, filters, 1);
    gpu_dev_close(dev);
    free(filters);
    return 0;
}
