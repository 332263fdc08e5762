/* ntt.cu - the number-theoretic transform over Fr and the Groth16 quotient H on the device
 * (spec groth16.md 1.4, 4.5; the same definitions as poly/poly.h).
 *
 * Transforms: radix-2 butterflies grouped into passes of up to 11 stages (9 for a pass whose
 * groups are strided). A pass loads a tile of 2048 elements (several groups of 2^k elements
 * whose indices differ only in the pass's k stage bits, consecutive in memory as far as
 * possible) into shared memory, runs its stages in sub-steps of 3 stages in registers (each
 * thread holds 8 elements differing in 3 bits), and stores the tile back.
 *   DIF (Gentleman-Sande): natural order in, bit-reversed order out; stage s pairs i and
 *       i + 2^s: (u, v) -> (u + v, (u - v) w), w = omega_(2^(s+1))^(i mod 2^s).
 *   DIT (Cooley-Tukey): bit-reversed in, natural out: (u, v) -> (u + v w, u - v w).
 * Twiddles come from one table per device, tw[2^s + e] = omega_(2^(s+1))^e for e < 2^s (n
 * entries in all, shared by every size up to the largest seen); omega^-e = -tw[2^(s+1) - e].
 * Natural-order transforms are bit reversal (tiles of 16 x 16 through shared memory) then DIT;
 * the coset factor 7^i and the factor n^-1 (times 7^-i) are folded into the first load and the
 * last store, read from two small tables lo[i mod 2^a] * hi[i >> a] (gpu_host_scale_tables).
 * The quotient runs without bit reversal until its end: iNTT as DIF (bit-reversed
 * coefficients, scaled by n^-1 7^i on the way out), coset NTT as DIT (natural evaluations),
 * (a b - c) / Z, inverse coset NTT as DIF scaled by n^-1 7^-i, and one bit reversal.
 * Transforms of size 1, 2, 4 use a direct O(n^2) kernel.
 */
#include "gpu/cuda/dev.cuh"
#include "gpu/cuda/field.cuh"

#include <string.h>

namespace czg
{

/** Optional factor on a load or store: none, a constant, or a table product at the element's
 *  index (or at its bit reversal). */
struct ntt_scale {
    int mode; /* 0 none, 1 constant c, 2 table */
    int bitrev;
    unsigned a;
    const fr_e *lo;
    const fr_e *hi;
    fr_e c;
};

enum { SCALE_NONE = 0, SCALE_CONST = 1, SCALE_TABLE = 2 };

CZ_DEV size_t bitrev_idx(size_t i, unsigned lg)
{
    return lg ? (size_t)(__brev((unsigned)i) >> (32 - lg)) : 0;
}

CZ_DEV void apply_scale(fr_e &v, const ntt_scale &s, size_t i, unsigned lg)
{
    if (s.mode == SCALE_CONST) {
        v = v * s.c;
    } else if (s.mode == SCALE_TABLE) {
        size_t j = s.bitrev ? bitrev_idx(i, lg) : i;
        fr_e f = ldg16(s.lo + (j & (((size_t)1 << s.a) - 1))) * ldg16(s.hi + (j >> s.a));
        v = v * f;
    }
}

/** omega_(2^(s+1))^e, or omega^-e when inv; for the inverse of e > 0 the table gives -w and
 *  `flip` says the caller must negate. */
CZ_DEV fr_e twiddle(const fr_e *tw, unsigned s, size_t e, int inv, bool &flip)
{
    size_t base = (size_t)1 << s;
    flip = inv && e != 0;
    return ldg16(tw + (flip ? 2 * base - e : base + e));
}

struct ntt_pass_args {
    fr_e *x;
    const fr_e *tw;
    unsigned lg;    /* transform size 2^lg */
    unsigned s_lo;  /* lowest stage of the pass */
    unsigned k;     /* stages in the pass, 3 .. 11 */
    unsigned gl_lg; /* log2 of the groups per tile that differ in the bits below s_lo */
    unsigned gh_lg; /* log2 of the groups per tile that differ in the bits above the pass */
    int inv;
    ntt_scale ld, st;
};

/* Tile index e = ((hq << k | g) << gl_lg) | lq, with g the k stage bits of the element, lq its
 * low column within the tile and hq its high row; memory index below. */
CZ_DEV size_t tile_mem(const ntt_pass_args &p, size_t L0, size_t H0, unsigned e)
{
    unsigned lq = e & ((1u << p.gl_lg) - 1);
    unsigned g = (e >> p.gl_lg) & ((1u << p.k) - 1);
    size_t hq = e >> (p.gl_lg + p.k);
    return ((H0 + hq) << (p.s_lo + p.k)) | ((size_t)g << p.s_lo) | (L0 + lq);
}

CZ_DEV unsigned tile_e(const ntt_pass_args &p, unsigned hq, unsigned g, unsigned lq)
{
    return (((hq << p.k) | g) << p.gl_lg) | lq;
}

template <bool DIT, int MINB>
__global__ void __launch_bounds__(256, MINB) ntt_pass_kernel(ntt_pass_args p)
{
    CZ_DYN_SMEM(fr_e, sm);
    const unsigned T = blockDim.x, t = threadIdx.x, k = p.k;
    const unsigned ncb_lg = p.s_lo - p.gl_lg;
    const size_t cb = (size_t)blockIdx.x & (((size_t)1 << ncb_lg) - 1);
    const size_t hb = (size_t)blockIdx.x >> ncb_lg;
    const size_t L0 = cb << p.gl_lg, H0 = hb << p.gh_lg;

    CZ_UNROLL
    for (unsigned j = 0; j < 8; j++) {
        unsigned e = t + j * T;
        size_t mem = tile_mem(p, L0, H0, e);
        fr_e v = load16(p.x + mem);
        apply_scale(v, p.ld, mem, p.lg);
        sm[e] = v;
    }
    __syncthreads();

    /* this thread's group: column lq, the k - 3 stage bits outside the sub-step, row hq */
    const unsigned lq = t & ((1u << p.gl_lg) - 1);
    const unsigned rest = t >> p.gl_lg;
    const unsigned g_rest = rest & ((1u << (k - 3)) - 1);
    const unsigned hq = rest >> (k - 3);
    const size_t L = L0 + lq;
    const unsigned nsub = (k + 2) / 3;

    for (unsigned si = 0; si < nsub; si++) {
        unsigned bmin, bmax, beta; /* stage bits [bmin, bmax] within thread bits [beta, beta+2] */
        if (DIT) {
            bmin = 3 * si;
            bmax = bmin + 2 < k - 1 ? bmin + 2 : k - 1;
            beta = bmin < k - 3 ? bmin : k - 3;
        } else {
            bmax = k - 1 - 3 * si;
            bmin = bmax >= 2 ? bmax - 2 : 0;
            beta = bmin;
        }
        const unsigned gbase = ((g_rest >> beta) << (beta + 3)) | (g_rest & ((1u << beta) - 1));
        fr_e v[8];
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            v[j] = sm[tile_e(p, hq, gbase | (j << beta), lq)];
        }
        CZ_UNROLL
        for (int step = 0; step < 3; step++) {
            const int tt = DIT ? step : 2 - step;
            const unsigned b = beta + (unsigned)tt;
            if (b < bmin || b > bmax) {
                continue;
            }
            const unsigned s = p.s_lo + b;
            CZ_UNROLL
            for (unsigned j = 0; j < 8; j++) {
                if (j & (1u << tt)) {
                    continue;
                }
                const unsigned jj = j | (1u << tt);
                const unsigned g = gbase | (j << beta);
                const size_t etw = ((size_t)(g & ((1u << b) - 1)) << p.s_lo) | L;
                bool flip;
                fr_e w = twiddle(p.tw, s, etw, p.inv, flip);
                if (DIT) {
                    fr_e tv = v[jj] * w;
                    fr_e sum = v[j] + tv, dif = v[j] - tv;
                    v[j] = flip ? dif : sum;
                    v[jj] = flip ? sum : dif;
                } else {
                    fr_e u = v[j], x2 = v[jj];
                    v[j] = u + x2;
                    v[jj] = (flip ? x2 : u) - (flip ? u : x2);
                    v[jj] = v[jj] * w;
                }
            }
        }
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            sm[tile_e(p, hq, gbase | (j << beta), lq)] = v[j];
        }
        __syncthreads();
    }

    CZ_UNROLL
    for (unsigned j = 0; j < 8; j++) {
        unsigned e = t + j * T;
        size_t mem = tile_mem(p, L0, H0, e);
        fr_e v = sm[e];
        apply_scale(v, p.st, mem, p.lg);
        store16(p.x + mem, v);
    }
}

/** omega_(2^lg)^e for e < 2^lg from the table. */
CZ_DEV fr_e root_pow(const fr_e *tw, unsigned lg, unsigned e)
{
    if (lg == 0) {
        return fe_one<fr_cfg>();
    }
    unsigned half = 1u << (lg - 1);
    if (e < half) {
        return ldg16(tw + half + e);
    }
    return -ldg16(tw + half + (e - half));
}

/* Direct transform of n <= 4 values: one block of n threads. */
__global__ void ntt_small_kernel(fr_e *x, const fr_e *tw, unsigned lg, int inv, ntt_scale ld,
                                 ntt_scale st)
{
    __shared__ fr_e in[4];
    const unsigned i = threadIdx.x, n = 1u << lg;
    fr_e v = load16(x + i);
    apply_scale(v, ld, i, lg);
    in[i] = v;
    __syncthreads();
    fr_e acc = fe_zero<fr_cfg>();
    for (unsigned j = 0; j < n; j++) {
        unsigned e = (i * j) & (n - 1);
        if (inv) {
            e = (n - e) & (n - 1);
        }
        acc = acc + in[j] * root_pow(tw, lg, e);
    }
    apply_scale(acc, st, i, lg);
    store16(x + i, acc);
}

CZ_DEV unsigned rev4(unsigned v)
{
    return __brev(v) >> 28;
}

/* In-place bit reversal for lg >= 8, optionally scaling each element by its source index: block
 * m swaps the 16 x 16 tile of middle bits m with that of rev(m). */
__global__ void __launch_bounds__(256) bitrev_tile_kernel(fr_e *x, unsigned lg, ntt_scale ld)
{
    __shared__ fr_e ta[16][17];
    __shared__ fr_e tb[16][17];
    const unsigned mid_lg = lg - 8;
    const size_t m = blockIdx.x;
    const size_t mr = mid_lg ? (size_t)(__brev((unsigned)m) >> (32 - mid_lg)) : 0;
    if (mr < m) {
        return; /* the partner block does this pair */
    }
    const unsigned t = threadIdx.x, a = t >> 4, b = t & 15;
    const size_t src = ((size_t)a << (lg - 4)) | (m << 4) | b;
    fr_e v = load16(x + src);
    apply_scale(v, ld, src, lg);
    ta[a][b] = v;
    if (mr != m) {
        const size_t src2 = ((size_t)a << (lg - 4)) | (mr << 4) | b;
        v = load16(x + src2);
        apply_scale(v, ld, src2, lg);
        tb[a][b] = v;
    }
    __syncthreads();
    /* position (a, mr, b) receives source (rev4(b), m, rev4(a)) */
    const unsigned ra = rev4(a), rb = rev4(b);
    store16(x + (((size_t)a << (lg - 4)) | (mr << 4) | b), ta[rb][ra]);
    if (mr != m) {
        store16(x + (((size_t)a << (lg - 4)) | (m << 4) | b), tb[rb][ra]);
    }
}

/* Bit reversal for lg < 8: one block of n threads. */
__global__ void bitrev_small_kernel(fr_e *x, unsigned lg, ntt_scale ld)
{
    const unsigned i = threadIdx.x;
    fr_e v = load16(x + i);
    apply_scale(v, ld, i, lg);
    __syncthreads();
    store16(x + (lg ? __brev(i) >> (32 - lg) : 0), v);
}

/* tw[2^(L-1) + e] = w^e for e < 2^(L-1), w = omega_(2^L): chunk of consecutive powers per thread. */
__global__ void tw_top_kernel(fr_e *top, fr_e w, size_t half, unsigned chunk)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t start = t * chunk;
    if (start >= half) {
        return;
    }
    fr_e cur = fe_one<fr_cfg>(), base = w;
    for (size_t e = start; e; e >>= 1) {
        if (e & 1) {
            cur = cur * base;
        }
        base = sqr(base);
    }
    const size_t end = start + chunk < half ? start + chunk : half;
    for (size_t i = start; i < end; i++) {
        store16(top + i, cur);
        cur = cur * w;
    }
}

/* tw[2^s + e] = omega_(2^(s+1))^e = tw[2^(L-1) + e 2^(L-1-s)] for s < L - 1; tw[0] = 0. */
__global__ void tw_lower_kernel(fr_e *tw, unsigned L)
{
    const size_t half = (size_t)1 << (L - 1);
    for (size_t d = (size_t)blockIdx.x * blockDim.x + threadIdx.x; d < half;
         d += (size_t)gridDim.x * blockDim.x) {
        if (d == 0) {
            store16(tw, fe_zero<fr_cfg>());
            continue;
        }
        unsigned s = 0;
        while ((d >> (s + 1)) != 0) {
            s++;
        }
        const size_t e = d - ((size_t)1 << s);
        store16(tw + d, load16(tw + half + (e << (L - 1 - s))));
    }
}

/* a = (a b - c) / Z on the coset (Z = 7^n - 1 at every point). */
__global__ void q_combine_kernel(fr_e *a, const fr_e *b, const fr_e *c, fr_e zinv, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        store16(a + i, (load16(a + i) * load16(b + i) - load16(c + i)) * zinv);
    }
}

/* ---- host side ---- */

static fr_e fr_from_limbs(const uint64_t v[4])
{
    fr_e r;
    memcpy(&r, v, sizeof(r));
    return r;
}

struct ntt_layout {
    unsigned k0, k1, tile_lg;
};

static ntt_layout layout_of(const gpu_dev *d)
{
    ntt_layout l = {d->ntt_k0 ? d->ntt_k0 : 11, d->ntt_k1 ? d->ntt_k1 : 9,
                    d->ntt_tile_lg ? d->ntt_tile_lg : 11};
    return l;
}

/** Stages per pass, the pass with s_lo = 0 first (at most k0 stages), the others at most k1;
 *  every pass has at least 3 stages (a thread holds 8 elements). lg >= 3. */
static unsigned plan_passes(unsigned lg, const ntt_layout &l, unsigned ks[16])
{
    if (lg <= l.k0 || lg < 6) {
        ks[0] = lg;
        return 1;
    }
    unsigned np = 1 + (lg - l.k0 + l.k1 - 1) / l.k1;
    if (np > lg / 3) {
        np = lg / 3;
    }
    unsigned other = lg / np < l.k1 ? lg / np : l.k1;
    ks[0] = lg - (np - 1) * other;
    for (unsigned i = 1; i < np; i++) {
        ks[i] = other;
    }
    return np;
}

static cuzk_err ensure_twiddles(gpu_dev *d, unsigned lg, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned want = lg < 2 ? 2 : lg;
    size_t half = (size_t)1 << (want - 1);
    uint64_t w[4];
    void *p = NULL;
    const unsigned chunk = 64;

    if (d->tw && d->tw_lg >= want) {
        return CUZK_OK;
    }
    CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
    if (d->tw) {
        CUDA_TRY(err, cudaFree(d->tw), done);
        d->tw = NULL;
        d->tw_lg = 0;
    }
    CUDA_TRY(err, cudaMalloc(&p, ((size_t)1 << want) * sizeof(fr_e)), done);
    gpu_host_fr_root(w, want);
    CUDA_LAUNCH(err, done, tw_top_kernel, (unsigned)host_cdiv(host_cdiv(half, chunk), 128), 128, 0,
                d->s, (fr_e *)p + half, fr_from_limbs(w), half, chunk);
    CUDA_LAUNCH(err, done, tw_lower_kernel, grid_for(d, half, 256), 256, 0, d->s, (fr_e *)p, want);
    d->tw = p;
    d->tw_lg = want;
    p = NULL;
done:
    if (p) {
        (void)cudaFree(p);
    }
    return err;
}

/** Table scaling of the given kind for size 2^lg (built on the host once per size). */
static cuzk_err scale_tables(gpu_dev *d, unsigned lg, int which, int bitrev, ntt_scale *sc,
                             cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const unsigned a = (lg + 1) / 2;
    const size_t nlo = (size_t)1 << a, nhi = (size_t)1 << (lg - a);
    uint64_t *host = NULL;
    void *p = NULL;

    if (!d->scale[which] || d->scale_lg[which] != lg) {
        host = (uint64_t *)cz_malloc((nlo + nhi) * sizeof(fr_e));
        if (!host) {
            err = cz_fail(dg, CUZK_E_NOMEM, "coset tables for 2^%u", lg);
            goto done;
        }
        gpu_host_scale_tables(host, host + 4 * nlo, lg, a, which);
        CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
        if (d->scale[which]) {
            CUDA_TRY(err, cudaFree(d->scale[which]), done);
            d->scale[which] = NULL;
        }
        CUDA_TRY(err, cudaMalloc(&p, (nlo + nhi) * sizeof(fr_e)), done);
        CUDA_TRY(err, cudaMemcpy(p, host, (nlo + nhi) * sizeof(fr_e), cudaMemcpyHostToDevice),
                 done);
        d->scale[which] = p;
        d->scale_lg[which] = lg;
        p = NULL;
    }
    memset(sc, 0, sizeof(*sc));
    sc->mode = SCALE_TABLE;
    sc->bitrev = bitrev;
    sc->a = a;
    sc->lo = (const fr_e *)d->scale[which];
    sc->hi = sc->lo + nlo;
done:
    if (p) {
        (void)cudaFree(p);
    }
    cz_free(host);
    return err;
}

static ntt_scale scale_none(void)
{
    ntt_scale s;
    memset(&s, 0, sizeof(s));
    return s;
}

template <bool DIT, int MINB>
static cuzk_err launch_pass_kernel(gpu_dev *d, const ntt_pass_args &p, size_t blocks,
                                   unsigned threads, size_t smem, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CUDA_TRY(err,
             cudaFuncSetAttribute((ntt_pass_kernel<DIT, MINB>),
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
             done);
    CUDA_LAUNCH(err, done, (ntt_pass_kernel<DIT, MINB>), (unsigned)blocks, threads, smem, d->s, p);
done:
    return err;
}

static cuzk_err launch_pass(gpu_dev *d, fr_e *x, unsigned lg, unsigned s_lo, unsigned k, bool dit,
                            int inv, const ntt_scale &ld, const ntt_scale &st, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t n = (size_t)1 << lg;
    const unsigned tile_lg = layout_of(d).tile_lg < k ? k : layout_of(d).tile_lg;
    const unsigned e_lg = lg < tile_lg ? lg : tile_lg;
    const unsigned g_lg = e_lg - k;
    const unsigned threads = (1u << e_lg) / 8;
    const size_t blocks = n >> e_lg;
    const size_t smem = ((size_t)1 << e_lg) * sizeof(fr_e);
    ntt_pass_args p;

    p.x = x;
    p.tw = (const fr_e *)d->tw;
    p.lg = lg;
    p.s_lo = s_lo;
    p.k = k;
    p.gl_lg = g_lg < s_lo ? g_lg : s_lo;
    p.gh_lg = g_lg - p.gl_lg;
    p.inv = inv;
    p.ld = ld;
    p.st = st;
    /* two builds of the kernel: registers capped for two blocks per SM (default), or not */
    if (d->ntt_minb == 1) {
        if (dit) {
            CZ_TRY(err, (launch_pass_kernel<true, 1>(d, p, blocks, threads, smem, dg)), done);
        } else {
            CZ_TRY(err, (launch_pass_kernel<false, 1>(d, p, blocks, threads, smem, dg)), done);
        }
    } else {
        if (dit) {
            CZ_TRY(err, (launch_pass_kernel<true, 2>(d, p, blocks, threads, smem, dg)), done);
        } else {
            CZ_TRY(err, (launch_pass_kernel<false, 2>(d, p, blocks, threads, smem, dg)), done);
        }
    }
done:
    return err;
}

/** DIT passes (bit-reversed in, natural out), `st` applied by the last (top) pass. lg >= 3. */
static cuzk_err run_dit(gpu_dev *d, fr_e *x, unsigned lg, int inv, const ntt_scale &st, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned ks[16], np = plan_passes(lg, layout_of(d), ks), s_lo = 0;
    for (unsigned i = 0; i < np; i++) {
        CZ_TRY(err,
               launch_pass(d, x, lg, s_lo, ks[i], true, inv, scale_none(),
                           i + 1 == np ? st : scale_none(), dg),
               done);
        s_lo += ks[i];
    }
done:
    return err;
}

/** DIF passes (natural in, bit-reversed out), `st` applied by the last (bottom) pass. lg >= 3. */
static cuzk_err run_dif(gpu_dev *d, fr_e *x, unsigned lg, int inv, const ntt_scale &st, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned ks[16], np = plan_passes(lg, layout_of(d), ks), s_hi = lg;
    for (unsigned i = np; i-- > 0;) {
        s_hi -= ks[i];
        CZ_TRY(err,
               launch_pass(d, x, lg, s_hi, ks[i], false, inv, scale_none(),
                           i == 0 ? st : scale_none(), dg),
               done);
    }
done:
    return err;
}

static cuzk_err run_bitrev(gpu_dev *d, fr_e *x, unsigned lg, const ntt_scale &ld, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    if (lg >= 8) {
        CUDA_LAUNCH(err, done, bitrev_tile_kernel, (unsigned)((size_t)1 << (lg - 8)), 256, 0, d->s,
                    x, lg, ld);
    } else {
        CUDA_LAUNCH(err, done, bitrev_small_kernel, 1, 1u << lg, 0, d->s, x, lg, ld);
    }
done:
    return err;
}

/** In-place natural-order transform of 2^lg device values. */
static cuzk_err ntt_natural(gpu_dev *d, fr_e *x, unsigned lg, gpu_ntt_kind kind, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const int inv = kind == GPU_NTT_INV || kind == GPU_NTT_COSET_INV;
    ntt_scale ld = scale_none(), st = scale_none();
    uint64_t ninv[4], zinv[4];

    CZ_TRY(err, ensure_twiddles(d, lg, dg), done);
    if (kind == GPU_NTT_COSET_FWD) {
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_COSET, 0, &ld, dg), done);
    } else if (kind == GPU_NTT_INV) {
        gpu_host_ntt_consts(lg, ninv, zinv);
        st.mode = SCALE_CONST;
        st.c = fr_from_limbs(ninv);
    } else if (kind == GPU_NTT_COSET_INV) {
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_ICOSET_NINV, 0, &st, dg), done);
    }
    if (lg <= 2) {
        CUDA_LAUNCH(err, done, ntt_small_kernel, 1, 1u << lg, 0, d->s, x, (const fr_e *)d->tw, lg,
                    inv, ld, st);
    } else {
        CZ_TRY(err, run_bitrev(d, x, lg, ld, dg), done);
        CZ_TRY(err, run_dit(d, x, lg, inv, st, dg), done);
    }
done:
    return err;
}

/** Quotient on device data: a, b, c hold n values, the first m of them meaningful. */
static cuzk_err quotient_dev(gpu_dev *d, fr_e *a, fr_e *b, fr_e *c, size_t m, unsigned lg,
                             bool *top_zero, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t n = (size_t)1 << lg;
    fr_e *v[3] = {a, b, c};
    uint64_t ninv[4], zinv[4];
    ntt_scale s_in, s_out;
    fr_e top;

    gpu_host_ntt_consts(lg, ninv, zinv);
    if (m < n) {
        for (int i = 0; i < 3; i++) {
            CUDA_TRY(err, cudaMemsetAsync(v[i] + m, 0, (n - m) * sizeof(fr_e), d->s), done);
        }
    }
    if (lg <= 2) {
        for (int i = 0; i < 3; i++) {
            CZ_TRY(err, ntt_natural(d, v[i], lg, GPU_NTT_INV, dg), done);
            CZ_TRY(err, ntt_natural(d, v[i], lg, GPU_NTT_COSET_FWD, dg), done);
        }
        CUDA_LAUNCH(err, done, q_combine_kernel, 1, 32, 0, d->s, a, b, c, fr_from_limbs(zinv), n);
        CZ_TRY(err, ntt_natural(d, a, lg, GPU_NTT_COSET_INV, dg), done);
    } else {
        CZ_TRY(err, ensure_twiddles(d, lg, dg), done);
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_COSET_NINV, 1, &s_in, dg), done);
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_ICOSET_NINV, 1, &s_out, dg), done);
        for (int i = 0; i < 3; i++) {
            /* coefficients c_j 7^j at position bitrev(j), then evaluations on the coset */
            CZ_TRY(err, run_dif(d, v[i], lg, 1, s_in, dg), done);
            CZ_TRY(err, run_dit(d, v[i], lg, 0, scale_none(), dg), done);
        }
        CUDA_LAUNCH(err, done, q_combine_kernel, grid_for(d, n, 256), 256, 0, d->s, a, b, c,
                    fr_from_limbs(zinv), n);
        CZ_TRY(err, run_dif(d, a, lg, 1, s_out, dg), done);
        CZ_TRY(err, run_bitrev(d, a, lg, scale_none(), dg), done);
    }
    if (top_zero) {
        CUDA_TRY(err, cudaMemcpyAsync(&top, a + n - 1, sizeof(top), cudaMemcpyDeviceToHost, d->s),
                 done);
        CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
        *top_zero = true;
        for (int i = 0; i < 8; i++) {
            *top_zero = *top_zero && top.w[i] == 0;
        }
    }
done:
    return err;
}

} // namespace czg

using namespace czg;

static cuzk_err check_lg(unsigned lg, cz_diag *dg)
{
    if (lg > GPU_NTT_MAX_LG) {
        return cz_fail(dg, CUZK_E_INVAL, "NTT size 2^%u above 2^%u", lg, GPU_NTT_MAX_LG);
    }
    return CUZK_OK;
}

extern "C" {

cuzk_err gpu_ntt(gpu_dev *dev, struct fr *x, unsigned lg, gpu_ntt_kind kind, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t bytes = ((size_t)1 << (lg > GPU_NTT_MAX_LG ? 0 : lg)) * sizeof(fr_e);
    char *buf = NULL;

    CZ_TRY(err, check_lg(lg, dg), done);
    if ((unsigned)kind > GPU_NTT_COSET_INV) {
        err = cz_fail(dg, CUZK_E_INVAL, "NTT kind %d", (int)kind);
        goto done;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_scratch(dev, bytes, &buf, dg), done);
    CUDA_TRY(err, cudaMemcpyAsync(buf, x, bytes, cudaMemcpyHostToDevice, dev->s), done);
    CZ_TRY(err, ntt_natural(dev, (fr_e *)buf, lg, kind, dg), done);
    CUDA_TRY(err, cudaMemcpyAsync(x, buf, bytes, cudaMemcpyDeviceToHost, dev->s), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err gpu_ntt_buf(gpu_dev *dev, gpu_buf *x, size_t off, unsigned lg, gpu_ntt_kind kind,
                     cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t bytes;

    CZ_TRY(err, check_lg(lg, dg), done);
    bytes = ((size_t)1 << lg) * sizeof(fr_e);
    if ((unsigned)kind > GPU_NTT_COSET_INV || off % 32 != 0 || x->dev != dev || off > x->len ||
        bytes > x->len - off) {
        err = cz_fail(dg, CUZK_E_INVAL, "NTT of 2^%u values at offset %zu of a %zu-byte buffer", lg,
                      off, x->len);
        goto done;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, ntt_natural(dev, (fr_e *)((char *)x->ptr + off), lg, kind, dg), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err gpu_quotient_h(gpu_dev *dev, struct fr *h, bool *top_zero, const struct fr *a,
                        const struct fr *b, const struct fr *c, size_t m, unsigned lg, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t n = 0, bytes = 0;
    char *buf = NULL;
    fr_e *v[3];
    const struct fr *src[3] = {a, b, c};

    CZ_TRY(err, check_lg(lg, dg), done);
    n = (size_t)1 << lg;
    bytes = n * sizeof(fr_e);
    if (m > n) {
        err = cz_fail(dg, CUZK_E_INVAL, "%zu constraints in a domain of %zu", m, n);
        goto done;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_scratch(dev, 3 * bytes, &buf, dg), done);
    for (int i = 0; i < 3; i++) {
        v[i] = (fr_e *)(buf + i * bytes);
        CUDA_TRY(err,
                 cudaMemcpyAsync(v[i], src[i], m * sizeof(fr_e), cudaMemcpyHostToDevice, dev->s),
                 done);
    }
    CZ_TRY(err, quotient_dev(dev, v[0], v[1], v[2], m, lg, top_zero, dg), done);
    CUDA_TRY(err, cudaMemcpyAsync(h, v[0], bytes, cudaMemcpyDeviceToHost, dev->s), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err gpu_debug_ntt_layout(gpu_dev *dev, unsigned k0, unsigned k1, unsigned tile_lg,
                              unsigned min_blocks, cz_diag *dg)
{
    if (min_blocks > 2) {
        return cz_fail(dg, CUZK_E_INVAL, "NTT kernel for %u blocks per SM", min_blocks);
    }
    dev->ntt_minb = min_blocks;
    if (k0 || k1 || tile_lg) {
        if (k1 < 3 || k1 > k0 || k0 > tile_lg || tile_lg > 11) {
            return cz_fail(dg, CUZK_E_INVAL, "NTT layout %u / %u / %u", k0, k1, tile_lg);
        }
    }
    dev->ntt_k0 = k0;
    dev->ntt_k1 = k1;
    dev->ntt_tile_lg = tile_lg;
    return CUZK_OK;
}

cuzk_err gpu_quotient_h_buf(gpu_dev *dev, bool *top_zero, gpu_buf *a, gpu_buf *b, gpu_buf *c,
                            size_t m, unsigned lg, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t n = 0, bytes = 0;

    CZ_TRY(err, check_lg(lg, dg), done);
    n = (size_t)1 << lg;
    bytes = n * sizeof(fr_e);
    if (m > n || a->len < bytes || b->len < bytes || c->len < bytes || a->dev != dev ||
        b->dev != dev || c->dev != dev || a == b || a == c || b == c) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "quotient of 2^%u values (m = %zu) in buffers of %zu, "
                      "%zu, %zu bytes",
                      lg, m, a->len, b->len, c->len);
        goto done;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err,
           quotient_dev(dev, (fr_e *)a->ptr, (fr_e *)b->ptr, (fr_e *)c->ptr, m, lg, top_zero, dg),
           done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

} /* extern "C" */
