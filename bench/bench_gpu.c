/* bench_gpu.c - the GPU backend on device-resident data: NTT 2^20 .. 2^27 (forward and inverse
 * coset), the Groth16 quotient 2^20 .. 2^27, G1 MSM 2^20 .. 2^27 dense and 0/1-heavy (90% of
 * the scalars 0 or 1, as Filecoin witnesses), G1 2^27 with the scalars crossing PCIe, G2 MSM
 * 2^20 .. 2^24, and the sparse constraint evaluator (gpu_spmv_buf) on synthetic matrices with
 * the 32 GiB PoRep partition's row and term counts (A, B, C, then all three). One line per case
 * (bench.h); MSM lines are followed by the phase split of the last call (gpu_debug_profile),
 * SpMV lines by the best of 5 runs in GB/s against the bytes it must move. Exits 77 without a
 * GPU.
 * Inputs: 2^20 distinct G1 bases (2^18 on G2) from consecutive additions, tiled over the base
 * array; 2^22 random scalars tiled over the scalar array (timing does not depend on values).
 * Self-checks (lines starting "check"): NTT forward then inverse returns the input; the MSM of
 * the tiled problem equals a 2^20-term MSM with folded scalars (sum of the scalars that share
 * a base), which takes another window size and another code path through the buckets; each
 * SpMV matrix on 1024 rows against a CPU sum.
 * Options: case-name filters; --min-lg N and --max-lg N (sizes 2^N, 20 and 27 by default),
 * --g2-max-lg N (24), --window C (MSM window; 0 = automatic), --acc-chunk N (MSM
 * accumulation entries per thread, 64..1024; 0 = default), --aff-rounds R (MSM affine rounds
 * before the accumulation, 0..8; automatic by default), --ntt-minb B (NTT pass kernel
 * built for 1 or 2 blocks per SM; 0 = default), --spmv-rows N (rows of the SpMV matrices,
 * 130278869 by default, term counts scaled with them; e.g. 4000000 for a quick run),
 * --spmv-uniform (SpMV columns uniform over z instead of mostly near the row). The NTT, MSM
 * and SpMV setups are skipped when none of their cases is selected.
 * gpu_ceiling_{fp_mul,dfma,mixed}: the arithmetic pipes' ceilings (gpu_debug_ceiling): Fp
 * Montgomery products, double-precision multiply-adds, and both in one kernel.
 * gpu_msm_g1_dense_chunks_2^N (N = --max-lg): the top G1 MSM as consecutive MSMs of
 * --msm-chunk-points points (1593937 by default: the 24 GiB card's chunk) summed on the host,
 * the points resident: the compute a streamed pass adds over one MSM, without the bus; checked
 * against the one MSM's sum.
 * gpu_msm_g1_sets_01_x10 / _dense_x3 (and _single): --sets-points G1 points (678576 by
 * default: the 24 GiB group plan's chunk) against 10 sets with a PoRep partition's shares of
 * zeros and ones, or 3 dense sets, in one gpu_msm_g1_sets call or one MSM per set; checked equal.
 * gpu_classes_build (host, runs without a GPU; --classes-n N values, 130169893 by default: a
 * 32 GiB PoRep partition's aux): gpu_fr_classes_build of z, L, A and B in one call on a pool of
 * every core, the values drawn with the partition's measured shares (61.6% zero, 37.1% one,
 * 1.3% other), A's density all but every 300th position, B's one position in four; the line is
 * per value of z, and a line "classes" gives the bytes they come to.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/int128.h"
#include "common/pool.h"
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
/* gpu_msm_g1_dense_chunks: points per MSM, as the 24 GiB plan's 153,018,112-byte chunks */
static size_t msm_chunk_points = 1593937;
/* gpu_msm_g1_sets_*: points per chunk, as the 24 GiB group plan's 65,143,296-byte chunks */
static size_t sets_points = 678576;
static unsigned min_lg = 20, max_lg = 27, g2_max_lg = 24, window, ntt_minb, acc_chunk,
                aff_rounds = GPU_MSM_AFF_ROUNDS_AUTO;

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
    size_t n, per; /* per: run_msm_chunks' points per MSM */
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

/* The same MSM as consecutive MSMs of c->per points each, summed on the host: what a streamed
 * pass computes, here with the points resident (no bus), to isolate the cost of chunking. */
static void run_msm_chunks(void *vctx)
{
    struct msm_ctx *c = vctx;
    g1_set_identity(&c->r1);
    for (size_t first = 0; first < c->n; first += c->per) {
        const size_t k = c->n - first < c->per ? c->n - first : c->per;
        g1_t part;
        TRY(gpu_msm_g1_buf(dev, &part, c->bases, first, c->sc, first * 32, k, false, &c->opts, DG));
        g1_add(&c->r1, &c->r1, &part);
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
    if (!g2 && bench_selected(argc, argv, name)) {
        return 1;
    }
    snprintf(name, sizeof(name), "gpu_msm_g1_dense_chunks_2^%u", top);
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
    snprintf(name, sizeof(name), "gpu_msm_g1_dense_chunks_2^%u", top);
    if (!g2 && bench_selected(argc, argv, name)) {
        /* the top size in chunks of --msm-chunk-points, against the whole MSM's sum */
        g1_t whole;
        make_scalars(chunk, cn, 0, &g);
        fill_scalars(c.sc, chunk, nmax);
        c.n = nmax;
        run_msm(&c);
        whole = c.r1;
        c.per = msm_chunk_points;
        bench_case(name, c.n, 3, 1, BENCH_MS, run_msm_chunks, &c);
        printf("check %s (%zu points per MSM) vs one MSM: %s\n", name, c.per,
               g1_eq(&whole, &c.r1) ? "ok" : "FAIL");
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

/* ---- sparse constraint matrices (gpu_spmv_buf) at the 32 GiB PoRep partition's shape ---- */

#define SPMV_ROWS_32G 130278869u /* constraints of one 32 GiB PoRep partition */
#define SPMV_DICT_LEN 256

/* Terms of A, B and C at 130,278,869 rows, scaled to --spmv-rows. */
static const double spmv_nnz_32g[3] = {309.4e6, 130.3e6, 282.7e6};
static size_t spmv_rows = SPMV_ROWS_32G;
static size_t classes_n = 130169893;
static int spmv_uniform; /* --spmv-uniform: every column uniform over z */

struct spmv_host {
    size_t rows, nnz, nlong;
    uint32_t *row_ptr, *col;
    uint16_t *coef;
};

/* splitmix64: the generator of the synthetic matrices (cz_prng is slower at 10^9 draws). */
static uint64_t mix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform in [0, n) (Lemire's multiply-shift; the bias is below 2^-30 here). */
static uint64_t below(uint64_t *s, uint64_t n)
{
    uint64_t hi;
    (void)cz_mul64(mix64(s), n, &hi);
    return hi;
}

/* Row lengths into h->row_ptr[0 .. rows) (prefix sums follow): every row gets one term; of the
 * terms beyond, a third goes to long rows of 64 .. 512 terms (at most 1% of the rows, at
 * random places), the rest to short rows as 0, 1 or 2 more terms (so 1 .. 3), adjusted to hit
 * nnz exactly. */
static void spmv_lengths(struct spmv_host *h, uint64_t *s)
{
    const size_t rows = h->rows, extra = h->nnz - rows;
    size_t long_left = extra / 3, short_left, nshort, given = 0;
    uint32_t *len = h->row_ptr;

    for (size_t r = 0; r < rows; r++) {
        len[r] = 1;
    }
    h->nlong = 0;
    while (long_left >= 63 && h->nlong < rows / 100) {
        const size_t r = below(s, rows);
        size_t l = 64 + below(s, 449);
        if (len[r] != 1) {
            continue;
        }
        l = l - 1 > long_left ? long_left + 1 : l;
        len[r] = (uint32_t)l;
        long_left -= l - 1;
        h->nlong++;
    }
    short_left = extra / 3 * 2 + extra % 3 + long_left;
    nshort = rows - h->nlong;
    /* P(+2) = p / 4, P(+1) = p / 2 for a mean of p = short_left / nshort more terms (p <= 2) */
    const double p = nshort ? (double)short_left / (double)nshort : 0;
    const uint64_t t2 = (uint64_t)(p / 4 * 0x1p32), t1 = (uint64_t)(p * 3 / 4 * 0x1p32);
    for (size_t r = 0; r < rows; r++) {
        const uint64_t u = mix64(s) >> 32;
        if (len[r] == 1) {
            len[r] += u < t2 ? 2 : u < t1 ? 1 : 0;
            given += len[r] - 1;
        }
    }
    while (given != short_left) { /* the exact count: one term more or less at random rows */
        const size_t r = below(s, rows);
        if (given < short_left && len[r] < 3) {
            len[r]++;
            given++;
        } else if (given > short_left && len[r] >= 2 && len[r] <= 3) {
            len[r]--;
            given--;
        }
    }
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* One synthetic matrix over z of `rows` values. Columns: 1/16 of the terms ONE (column 0), the
 * rest within 2^16 of the row's own position (the locality of gadgets, which use recently
 * allocated variables) with 1/8 of them anywhere; all uniform with --spmv-uniform.
 * Coefficients: 45% +1, 35% -1, 20% another of SPMV_DICT_LEN entries. */
static void spmv_make(struct spmv_host *h, size_t rows, size_t nnz, uint64_t seed)
{
    uint64_t s = seed;
    uint32_t acc = 0;

    h->rows = rows;
    h->nnz = nnz;
    h->row_ptr = xmalloc((rows + 1) * sizeof(uint32_t));
    h->col = xmalloc(nnz * sizeof(uint32_t));
    h->coef = xmalloc(nnz * sizeof(uint16_t));
    spmv_lengths(h, &s);
    for (size_t r = 0; r <= rows; r++) { /* lengths to offsets */
        const uint32_t l = r < rows ? h->row_ptr[r] : 0;
        h->row_ptr[r] = acc;
        acc += l;
    }
    for (size_t r = 0; r < rows; r++) {
        const uint32_t beg = h->row_ptr[r], end = h->row_ptr[r + 1];
        for (uint32_t j = beg; j < end; j++) {
            const uint64_t u = mix64(&s), k = u & 0xff, w = (u >> 8) & 0xf;
            int64_t c;
            if (spmv_uniform || w == 0) {
                c = (int64_t)below(&s, rows);
            } else if (w == 1) {
                c = 0;
            } else {
                c = (int64_t)r + (int64_t)((u >> 16) & 0x1ffff) - 0x10000;
                c = c < 0 ? 0 : c >= (int64_t)rows ? (int64_t)rows - 1 : c;
            }
            h->col[j] = (uint32_t)c;
            h->coef[j] = (uint16_t)(k < 115   ? 0
                                    : k < 205 ? 1
                                              : 2 + (u >> 40) % (SPMV_DICT_LEN - 2));
        }
        if (end - beg > 16) {
            qsort(h->col + beg, end - beg, sizeof(uint32_t), cmp_u32);
        } else {
            for (uint32_t j = beg + 1; j < end; j++) { /* insertion sort of a short row */
                const uint32_t v = h->col[j];
                uint32_t i = j;
                for (; i > beg && h->col[i - 1] > v; i--) {
                    h->col[i] = h->col[i - 1];
                }
                h->col[i] = v;
            }
        }
    }
}

static void spmv_host_free(struct spmv_host *h)
{
    free(h->row_ptr);
    free(h->col);
    free(h->coef);
}

/* Rows [0, 512) and 512 rows at random against the CPU; prints a check line. */
static void spmv_check(const char *name, const struct spmv_host *h, const gpu_buf *out,
                       const fr_t *dict, const fr_t *z)
{
    uint64_t s = 7;
    size_t bad = 0;
    for (size_t i = 0; i < 1024 && i < h->rows; i++) {
        const size_t r = i < 512 ? i : below(&s, h->rows);
        fr_t acc = FR_ZERO, t, got;
        for (uint32_t j = h->row_ptr[r]; j < h->row_ptr[r + 1]; j++) {
            fr_mul(&t, &dict[h->coef[j]], &z[h->col[j]]);
            fr_add(&acc, &acc, &t);
        }
        TRY(gpu_buf_download(&got, out, r * 32, 32, DG));
        bad += !fr_eq(&got, &acc);
    }
    printf("check %s: %s (1024 rows against the CPU)\n", name, bad ? "FAILED" : "ok");
}

struct spmv_ctx {
    gpu_buf *out, *z;
    gpu_spmat *m[3];
    size_t z_len;
    int which; /* 0 .. 2, or 3: all three */
};

static void run_spmv(void *vctx)
{
    struct spmv_ctx *c = vctx;
    for (int k = 0; k < 3; k++) {
        if (c->which == 3 || c->which == k) {
            TRY(gpu_spmv_buf(dev, c->out, 0, c->m[k], c->z, 0, c->z_len, DG));
        }
    }
}

/* Bytes an evaluation must move: row offsets, 6 per term, the results, one 32-byte sector of
 * z per term (no reuse). */
static double spmv_bytes(size_t rows, size_t nnz)
{
    return 4.0 * (double)(rows + 1) + 6.0 * (double)nnz + 32.0 * (double)rows + 32.0 * (double)nnz;
}

/* Times `c` (min of 5 runs, seconds). */
static double spmv_time(struct spmv_ctx *c)
{
    double best = 1e30;
    for (int i = 0; i < 5; i++) {
        const double t0 = bench_now();
        run_spmv(c);
        const double t = bench_now() - t0;
        best = t < best ? t : best;
    }
    return best;
}

static void bench_spmv(int argc, char **argv)
{
    static const char *const names[4] = {"gpu_spmv_A", "gpu_spmv_B", "gpu_spmv_C", "gpu_spmv_abc"};
    const size_t rows = spmv_rows, z_len = spmv_rows;
    fr_t *z, *dict;
    struct spmv_ctx c;
    size_t nnz[3], total_nnz = 0;
    int want = 0;
    uint64_t s = 3;

    for (int k = 0; k < 4; k++) {
        want |= bench_selected(argc, argv, names[k]);
    }
    if (!want) {
        return;
    }
    memset(&c, 0, sizeof(c));
    c.z_len = z_len;
    z = xmalloc(z_len * sizeof(fr_t));
    dict = xmalloc(SPMV_DICT_LEN * sizeof(fr_t));
    for (size_t i = 0; i < z_len; i++) {
        uint64_t v[4] = {mix64(&s), mix64(&s), mix64(&s), mix64(&s) & 0x0fffffffffffffffULL};
        memcpy(&z[i], v, 32); /* < 2^252 < r: a valid Montgomery value */
    }
    z[0] = FR_ONE;
    dict[0] = FR_ONE;
    fr_neg(&dict[1], &FR_ONE);
    for (size_t i = 2; i < SPMV_DICT_LEN; i++) {
        if (i < 66) {
            fr_from_u64(&dict[i], (uint64_t)1 << (i - 2)); /* powers of two, as bit packing */
        } else {
            uint64_t v[4] = {mix64(&s), mix64(&s), mix64(&s), mix64(&s) >> 4};
            memcpy(&dict[i], v, 32);
        }
    }
    TRY(gpu_buf_new(&c.z, dev, z_len * 32, DG));
    TRY(gpu_buf_new(&c.out, dev, rows * 32, DG));
    TRY(gpu_buf_upload(c.z, 0, z, z_len * 32, DG));
    printf("# spmv: %zu rows, z of %zu values, columns %s\n", rows, z_len,
           spmv_uniform ? "uniform" : "local (1/8 uniform, 1/16 ONE)");
    for (int k = 0; k < 3; k++) {
        struct spmv_host h;
        const double t0 = bench_now();
        nnz[k] = (size_t)(spmv_nnz_32g[k] * ((double)rows / SPMV_ROWS_32G));
        nnz[k] = nnz[k] < rows ? rows : nnz[k];
        total_nnz += nnz[k];
        spmv_make(&h, rows, nnz[k], 0x5eed0 + (uint64_t)k);
        const double t1 = bench_now();
        TRY(gpu_spmat_new(&c.m[k], dev, rows, nnz[k], h.row_ptr, h.col, h.coef, dict, SPMV_DICT_LEN,
                          DG));
        printf("# %s: %zu terms, %zu long rows, %.1f MiB on the device; synthesized in %.1f s, "
               "uploaded in %.1f s\n",
               names[k], nnz[k], h.nlong, (double)gpu_spmat_bytes(c.m[k]) / (1 << 20), t1 - t0,
               bench_now() - t1);
        c.which = k;
        run_spmv(&c);
        spmv_check(names[k], &h, c.out, dict, z);
        spmv_host_free(&h);
    }
    for (int k = 0; k < 4; k++) {
        if (!bench_selected(argc, argv, names[k])) {
            continue;
        }
        c.which = k;
        const size_t n = k < 3 ? nnz[k] : total_nnz;
        const double bytes = k < 3 ? spmv_bytes(rows, nnz[k]) : spmv_bytes(3 * rows, total_nnz);
        bench_case(names[k], n, 10, 1, BENCH_MS, run_spmv, &c);
        const double t = spmv_time(&c);
        printf("  %s: %.2f ms, %.1f GB moved (worst case: no reuse of z), %.0f GB/s; "
               "%.2f ms at 4.8 TB/s\n",
               names[k], t * 1e3, bytes / 1e9, bytes / t / 1e9, bytes / 4.8e12 * 1e3);
    }
    for (int k = 0; k < 3; k++) {
        gpu_spmat_free(c.m[k]);
    }
    gpu_buf_free(c.z);
    gpu_buf_free(c.out);
    free(z);
    free(dict);
}

/* ---- pipe ceilings: Fp products, double-precision multiply-adds, both at once ---- */

typedef struct ceil_ctx {
    int kind;
    size_t threads;
    unsigned iters;
    uint64_t seed[24], y[6];
    float ms;
} ceil_ctx;

static void run_ceiling(void *arg)
{
    ceil_ctx *c = arg;
    TRY(gpu_debug_ceiling(dev, c->kind, c->threads, c->iters, c->seed, c->y, NULL, NULL, &c->ms,
                          DG));
}

/* gpu_ceiling_{fp_mul,dfma,mixed}: each thread of 1024 per SM runs 2048 rounds (4 Fp products
 * and/or GPU_CEIL_DFMA_PER_ROUND multiply-adds each); the line gives the time per round of
 * the whole grid, a comment line the rates. mixed near the larger of the other two: the pipes
 * overlap; near their sum: they do not. */
typedef struct classes_ctx {
    fr_t *z;
    size_t n;
    uint64_t *ka, *kb;
    cz_pool *pool;
    size_t bytes;
} classes_ctx;

static void classes_run(void *arg)
{
    classes_ctx *c = arg;
    const gpu_fr_select sel[4] = {{NULL, 0, 0}, {NULL, 0, 328}, {c->ka, 1, 0}, {c->kb, 1, 0}};
    gpu_fr_classes out[4];
    TRY(gpu_fr_classes_build(out, 4, c->z, 328, c->z + 328, c->n - 328, sel, &FR_ONE, 0.25, c->pool,
                             DG));
    c->bytes = 0;
    for (int t = 0; t < 4; t++) {
        c->bytes +=
            out[t].dense ? 32 * out[t].n : 8 * gpu_fr_classes_words(out[t].n) + 32 * out[t].n_oth;
        gpu_fr_classes_clear(&out[t]);
    }
}

/* The host's building of the streamed passes' classes (see the header). */
static void bench_classes(int argc, char **argv, size_t n)
{
    classes_ctx c = {.n = n};
    cz_prng g;
    const size_t nw = (n + 63) / 64;

    if (!bench_selected(argc, argv, "gpu_classes_build")) {
        return;
    }
    cz_prng_seed(&g, 7);
    c.z = xmalloc(n * sizeof(fr_t));
    c.ka = xmalloc(nw * 8);
    c.kb = xmalloc(nw * 8);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = cz_prng_u64(&g) % 1000;
        if (r < 616) {
            memset(&c.z[i], 0, sizeof(fr_t));
        } else if (r < 987) {
            c.z[i] = FR_ONE;
        } else {
            fr_from_u256_reduce(&c.z[i], (uint64_t[4]){cz_prng_u64(&g), i, r, 1});
        }
    }
    memset(c.ka, 0xff, nw * 8);
    memset(c.kb, 0x11, nw * 8);
    for (size_t i = 0; i < n; i += 300) {
        c.ka[i / 64] &= ~((uint64_t)1 << (i % 64));
    }
    if (cz_pool_new(&c.pool, cz_cpu_count() - 1, "bench", NULL) != CUZK_OK) {
        exit(1);
    }
    bench_case("gpu_classes_build", n, 3, (double)n, BENCH_NS, classes_run, &c);
    printf("classes: %zu values of z, z + L + A + B as classes %zu bytes (dense %zu)\n", n, c.bytes,
           (size_t)32 * (2 * n + n - n / 300 + n / 4));
    cz_pool_free(c.pool);
    free(c.z);
    free(c.ka);
    free(c.kb);
}

static void bench_ceiling(int argc, char **argv, unsigned sms)
{
    static const char *const names[3] = {"gpu_ceiling_fp_mul", "gpu_ceiling_dfma",
                                         "gpu_ceiling_mixed"};
    ceil_ctx c;
    cz_prng g;

    memset(&c, 0, sizeof(c));
    cz_prng_seed(&g, 7);
    for (int i = 0; i < 24; i++) {
        c.seed[i] = cz_prng_u64(&g) >> 8; /* below p: the top limb under 2^56 */
    }
    for (int i = 0; i < 6; i++) {
        c.y[i] = cz_prng_u64(&g) >> 8;
    }
    c.threads = (size_t)sms * 1024;
    c.iters = 2048;
    for (int k = 0; k < 3; k++) {
        if (!bench_selected(argc, argv, names[k])) {
            continue;
        }
        c.kind = k == 0   ? GPU_CEIL_FP_MUL
                 : k == 1 ? GPU_CEIL_DFMA
                          : GPU_CEIL_FP_MUL | GPU_CEIL_DFMA;
        bench_case(names[k], c.threads, 5, c.iters, BENCH_US, run_ceiling, &c);
        const double rounds = (double)c.threads * c.iters / (c.ms * 1e-3);
        printf("# %s: last run %.2f ms: %.1f G Fp products/s, %.2f T multiply-adds/s\n", names[k],
               c.ms, c.kind & GPU_CEIL_FP_MUL ? 4 * rounds / 1e9 : 0.0,
               c.kind & GPU_CEIL_DFMA ? GPU_CEIL_DFMA_PER_ROUND * rounds / 1e12 : 0.0);
    }
}

/* ---- several scalar sets over one chunk of points (a shared streamed pass) ---- */

struct sets_ctx {
    gpu_msm_bases *bases;
    gpu_msm_set sets[GPU_MSM_MAX_SETS];
    unsigned nsets;
    size_t n;
    g1_t out[GPU_MSM_MAX_SETS];
};

/* One gpu_msm_g1_buf per set, as the passes ran before the sets */
static void run_sets_single(void *vctx)
{
    struct sets_ctx *c = vctx;
    for (unsigned s = 0; s < c->nsets; s++) {
        TRY(gpu_msm_g1_buf(dev, &c->out[s], c->bases, 0, c->sets[s].buf, c->sets[s].off, c->n, true,
                           NULL, DG));
    }
}

static void run_sets(void *vctx)
{
    struct sets_ctx *c = vctx;
    TRY(gpu_msm_g1_sets(dev, c->out, c->bases, 0, c->n, c->sets, c->nsets, DG));
}

/* The names of a sets case: one call, and one MSM per set. */
static void sets_names(char name[2][64], const char *what)
{
    snprintf(name[0], 64, "gpu_msm_g1_sets_%s", what);
    snprintf(name[1], 64, "gpu_msm_g1_sets_%s_single", what);
}

/* gpu_msm_g1_sets_{01_x10,dense_x3} (and _single): a chunk of --sets-points G1 points (the
 * 24 GiB group plan's 65 MB chunk by default) against 10 sets of Montgomery scalars with a
 * 32 GiB PoRep partition's shares of zeros and ones (61.6% / 37.1%), or 3 dense sets (h),
 * in one gpu_msm_g1_sets call against one gpu_msm_g1_buf per set; checked equal. */
static void bench_sets(int argc, char **argv, size_t n)
{
    static const struct {
        const char *name;
        unsigned nsets;
        int zero_one;
    } cases[] = {{"01_x10", 10, 1}, {"dense_x3", 3, 0}};
    const size_t d = (size_t)1 << DISTINCT_G1_LG;
    struct sets_ctx c;
    gpu_buf *sc[GPU_MSM_MAX_SETS] = {0};
    g1_aff_t *pts = NULL;
    fr_t *v = NULL;
    cz_prng g;
    char name[2][64];
    bool any = false;

    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        sets_names(name, cases[k].name);
        any |= bench_selected(argc, argv, name[0]) || bench_selected(argc, argv, name[1]);
    }
    if (!any) {
        return;
    }
    memset(&c, 0, sizeof(c));
    c.n = n;
    pts = xmalloc(d * sizeof(g1_aff_t));
    v = xmalloc(n * sizeof(fr_t));
    g1_points(pts, d);
    TRY(gpu_msm_bases_new_g1(&c.bases, dev, n, DG));
    for (size_t off = 0; off < n; off += d) {
        TRY(gpu_msm_bases_upload_g1(c.bases, off, pts, n - off < d ? n - off : d, DG));
    }
    cz_prng_seed(&g, 3);
    for (size_t k = 0; k < ARRAY_LEN(cases); k++) {
        c.nsets = cases[k].nsets;
        for (unsigned s = 0; s < c.nsets; s++) {
            for (size_t i = 0; i < n; i++) {
                const unsigned r = (unsigned)(cz_prng_u64(&g) % 1000);
                uint64_t w[4] = {cz_prng_u64(&g), cz_prng_u64(&g), cz_prng_u64(&g),
                                 cz_prng_u64(&g)};
                if (cases[k].zero_one && r < 616) {
                    v[i] = FR_ZERO;
                } else if (cases[k].zero_one && r < 987) {
                    v[i] = FR_ONE;
                } else {
                    fr_from_u256_reduce(&v[i], w);
                }
            }
            if (!sc[s]) {
                TRY(gpu_buf_new(&sc[s], dev, n * sizeof(fr_t), DG));
            }
            TRY(gpu_buf_upload(sc[s], 0, v, n * sizeof(fr_t), DG));
            c.sets[s] = (gpu_msm_set){.buf = sc[s], .mont = true};
        }
        sets_names(name, cases[k].name);
        g1_t single[GPU_MSM_MAX_SETS];
        run_sets_single(&c);
        memcpy(single, c.out, sizeof(single));
        if (bench_selected(argc, argv, name[1])) {
            bench_case(name[1], n * c.nsets, 5, 1, BENCH_MS, run_sets_single, &c);
        }
        if (bench_selected(argc, argv, name[0])) {
            bench_case(name[0], n * c.nsets, 5, 1, BENCH_MS, run_sets, &c);
            print_profile(name[0]);
        }
        run_sets(&c);
        bool ok = true;
        for (unsigned s = 0; s < c.nsets; s++) {
            ok &= g1_eq(&c.out[s], &single[s]);
        }
        printf("check %s (%u sets of %zu) vs one MSM per set: %s\n", name[0], c.nsets, n,
               ok ? "ok" : "FAIL");
    }
    for (unsigned s = 0; s < GPU_MSM_MAX_SETS; s++) {
        gpu_buf_free(sc[s]);
    }
    gpu_msm_bases_free(c.bases);
    free(pts);
    free(v);
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
        } else if (strcmp(argv[i], "--acc-chunk") == 0 && i + 1 < argc) {
            acc_chunk = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--aff-rounds") == 0 && i + 1 < argc) {
            aff_rounds = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--window") == 0 && i + 1 < argc) {
            window = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--spmv-rows") == 0 && i + 1 < argc) {
            spmv_rows = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--spmv-uniform") == 0) {
            spmv_uniform = 1;
        } else if (strcmp(argv[i], "--msm-chunk-points") == 0 && i + 1 < argc) {
            msm_chunk_points = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--sets-points") == 0 && i + 1 < argc) {
            sets_points = (size_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--classes-n") == 0 && i + 1 < argc) {
            classes_n = (size_t)strtoull(argv[++i], NULL, 10);
        } else {
            filters[nf++] = argv[i];
        }
    }
    if (min_lg < 8 || max_lg < min_lg || max_lg > 28 || g2_max_lg < min_lg || g2_max_lg > 26) {
        fprintf(stderr, "sizes: 8 <= --min-lg <= --max-lg <= 28, --g2-max-lg <= 26\n");
        return 2;
    }
    if (spmv_rows < 1000 || spmv_rows > SPMV_ROWS_32G) {
        fprintf(stderr, "--spmv-rows: 1000 .. %u\n", SPMV_ROWS_32G);
        return 2;
    }
    if (msm_chunk_points == 0) {
        fprintf(stderr, "--msm-chunk-points: at least 1\n");
        return 2;
    }
    if (classes_n < 1000) {
        fprintf(stderr, "--classes-n: at least 1000\n");
        return 2;
    }
    bench_classes(nf, filters, classes_n); /* host only */
    if (gpu_count() == 0) {
        printf("no GPU: skipped\n");
        return 77;
    }
    TRY(gpu_dev_open(&dev, 0, DG));
    TRY(gpu_dev_get_info(dev, &info, DG));
    TRY(gpu_debug_profile(dev, true, DG));
    TRY(gpu_debug_ntt_layout(dev, 0, 0, 0, ntt_minb, DG));
    TRY(gpu_debug_msm_chunk(dev, acc_chunk, DG));
    TRY(gpu_debug_msm_aff_rounds(dev, aff_rounds, DG));
    printf("# %s, %zu MiB, %u SMs, cc %u.%u; auto window for 2^27 terms: %u; MSM chunks: %u; "
           "affine rounds: %d (-1 automatic)\n",
           info.name, info.total_mem >> 20, info.sm_count, info.cc_major, info.cc_minor,
           gpu_msm_auto_window_bits((size_t)1 << 27), acc_chunk, (int)aff_rounds);
    bench_header();
    bench_ntt(nf, filters);
    bench_msm(nf, filters, 0);
    bench_msm(nf, filters, 1);
    bench_sets(nf, filters, sets_points);
    bench_spmv(nf, filters);
    bench_ceiling(nf, filters, info.sm_count);
    gpu_dev_close(dev);
    free(filters);
    return 0;
}
