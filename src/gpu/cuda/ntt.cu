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
 * Split twiddles (where memory is short, gpu_ntt_twiddle_bytes): that table for the stages
 * s < S = ceil(lg / 2) only, and for each stage s >= S the 2^S powers hi_s[j] =
 * omega_(2^(s+1))^j; then omega_(2^(s+1))^e = hi_s[e mod 2^S] tw[2^(s-S) + (e >> S)], one
 * product more per twiddle for (lg - S + 1) 2^S entries instead of 2^lg (7.3 MB against 4 GiB
 * at 2^27).
 * Unit twiddles: in the pass with s_lo = 0 the radix-8 step over stages 0 .. 2 (the first DIT
 * step, the last DIF step) knows its twiddles; 7 of its 12 are 1, and those butterflies are a
 * plain sum and difference, without a table load or a product.
 * Natural-order transforms need no bit-reversal kernel: they are DIT passes whose first pass
 * gathers. Its tile rows are the groups bitrev(R) for 2^gh consecutive R, read as runs of 2^gh
 * consecutive elements (bitrev_k(g) 2^(lg-k) + R), and written whole to a second buffer, which
 * the other passes work in, the last one writing back. Out of place because no block could
 * store only what it loaded; the second buffer is device scratch of the transform's size (the
 * quotient's b for its last transform). The coset factor 7^i and the factor n^-1 (times 7^-i)
 * are folded into the first load and the last store, read from two small tables
 * lo[i mod 2^a] * hi[i >> a] (gpu_host_scale_tables).
 * Lazy reduction: inside a transform values stay in [0, 2r), from the first load to the last
 * store. Products leave out their final subtraction (mont_mul<fr_cfg, false>, with the twiddle
 * or scale factor, < r, as the operand that enters whole: field.cuh proves the result < 2r),
 * sums and differences are reduced against 2r (fr_add_lazy, fr_sub_lazy), and the last pass
 * reduces what it stores, so every transform reads and writes fully reduced values.
 * The quotient (quotient_dev): iNTT of a and b as DIF (bit-reversed coefficients, scaled by
 * n^-1 7^i on the way out), coset NTT as DIT (natural evaluations, a's stored times b's), iNTT
 * of c as DIF, then the inverse coset NTT of a b as natural-order DIT scaled by n^-1 7^-i / Z,
 * subtracting c's coefficients as it stores. Transforms of size 1, 2, 4 use a direct O(n^2)
 * kernel (fully reduced arithmetic).
 */
#include "gpu/cuda/dev.cuh"
#include "gpu/cuda/field.cuh"

#include <string.h>

namespace czg
{

/** Optional factor on a load or store: none, a constant, or a table product at the element's
 *  index (or at its bit reversal). On the store of a transform's last pass, after the factor,
 *  two pointwise steps of the quotient: times mul[i], then minus sub[bitrev(i)] (fully reduced
 *  operands; NULL: none). */
struct ntt_scale {
    int mode; /* 0 none, 1 constant c, 2 table */
    int bitrev;
    unsigned a;
    const fr_e *lo;
    const fr_e *hi;
    fr_e c;
    const fr_e *mul;
    const fr_e *sub;
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
 *  `flip` says the caller must negate. split = S > 0: the split tables (file comment), hi at
 *  tw + 2^S. */
CZ_DEV fr_e twiddle(const fr_e *tw, unsigned split, unsigned s, size_t e, int inv, bool &flip)
{
    size_t base = (size_t)1 << s;
    flip = inv && e != 0;
    if (!split || s < split) {
        return ldg16(tw + (flip ? 2 * base - e : base + e));
    }
    const size_t f = flip ? base - e : e, lo = f & (((size_t)1 << split) - 1), hi = f >> split;
    const fr_e *his = tw + ((size_t)(s - split + 1) << split);
    return ldg16(his + lo) * ldg16(tw + ((size_t)1 << (s - split)) + hi);
}

struct ntt_pass_args {
    const fr_e *src; /* loads */
    fr_e *dst;       /* stores (== src, or another buffer: no block stores what another loads) */
    const fr_e *tw;
    unsigned tw_split; /* 0: the whole table; else split twiddles (twiddle()) */
    unsigned lg;       /* transform size 2^lg */
    unsigned s_lo;     /* lowest stage of the pass */
    unsigned k;        /* stages in the pass, 3 .. 11 */
    unsigned gl_lg;    /* log2 of the groups per tile that differ in the bits below s_lo */
    unsigned gh_lg;    /* log2 of the groups per tile that differ in the bits above the pass */
    int gather;        /* first DIT pass reading natural order: position i holds src[bitrev(i)] */
    int reduce;        /* stores fully reduced values (else [0, 2r): the last pass only) */
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

/* Product in [0, 2r) of a fully reduced twiddle or scale factor w and v < 2r. */
CZ_DEV fr_e mul_lazy(const fr_e &w, const fr_e &v)
{
    return mont_mul<fr_cfg, false>(w, v);
}

/* apply_scale for v < 2r, the result < 2r. */
CZ_DEV void apply_scale_lazy(fr_e &v, const ntt_scale &s, size_t i, unsigned lg)
{
    if (s.mode == SCALE_CONST) {
        v = mul_lazy(s.c, v);
    } else if (s.mode == SCALE_TABLE) {
        size_t j = s.bitrev ? bitrev_idx(i, lg) : i;
        const fr_e lo = ldg16(s.lo + (j & (((size_t)1 << s.a) - 1))), hi = ldg16(s.hi + (j >> s.a));
        v = mul_lazy(lo * hi, v);
    }
}

/* The value a pass stores at index i: scaled, fully reduced by the last pass, which also
 * applies the quotient's pointwise steps (ntt_scale.mul, .sub). These are compiled into the
 * default builds of the two DIT kernels that need them only (times b: forward; minus c:
 * inverse): in the DIF build its last pass measured 0.6 ms slower, and in every build they
 * would grow each binary by a megabyte. */
template <bool DIT, bool INV, int MINB>
CZ_DEV fr_e store_value(const ntt_pass_args &p, fr_e v, size_t i)
{
    apply_scale_lazy(v, p.st, i, p.lg);
    if (p.reduce) {
        v = fr_reduce_lazy(v);
    }
    if (DIT && !INV && MINB == 2 && p.st.mul) {
        v = v * ldg16(p.st.mul + i);
    }
    if (DIT && INV && MINB == 2 && p.st.sub) {
        v = v - ldg16(p.st.sub + bitrev_idx(i, p.lg));
    }
    return v;
}

/* Gather load of the first DIT pass (s_lo = 0, so no low columns: the tile is 2^gh_lg whole
 * groups of 2^k elements). Tile row hq of block hb is group H = bitrev(R) with R = hb 2^gh_lg +
 * hq, and its element g sits at DIT position H 2^k + g, which holds src[bitrev(H 2^k + g)] =
 * src[bitrev_k(g) 2^(lg-k) + R]. Element e of the load order takes hq from its low bits, so
 * that consecutive threads read consecutive R (2^gh_lg consecutive values per g). */
CZ_DEV void gather_coords(const ntt_pass_args &p, size_t hb, unsigned e, unsigned &te, size_t &from)
{
    const unsigned hq = e & ((1u << p.gh_lg) - 1);
    const unsigned g = e >> p.gh_lg;
    const size_t R = (hb << p.gh_lg) + hq;
    te = (hq << p.k) | g;
    from = ((size_t)(__brev(g) >> (32 - p.k)) << (p.lg - p.k)) | R;
}

/* Pass kernel: DIT or DIF, forward or inverse twiddles (INV: the swap of flipped twiddles is
 * compiled in only where it can happen), register cap for MINB blocks per SM. Values in [0, 2r)
 * (lazy reduction), fully reduced on the stores of the last pass (p.reduce). */
template <bool DIT, bool INV, int MINB>
__global__ void __launch_bounds__(256, MINB) ntt_pass_kernel(ntt_pass_args p)
{
    CZ_DYN_SMEM(fr_e, sm);
    const unsigned T = blockDim.x, t = threadIdx.x, k = p.k;
    const unsigned ncb_lg = p.s_lo - p.gl_lg;
    const size_t cb = (size_t)blockIdx.x & (((size_t)1 << ncb_lg) - 1);
    const size_t hb = (size_t)blockIdx.x >> ncb_lg;
    const size_t L0 = cb << p.gl_lg, H0 = hb << p.gh_lg;

    if (p.gather) {
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            unsigned te;
            size_t from;
            gather_coords(p, hb, t + j * T, te, from);
            fr_e v = load16(p.src + from);
            apply_scale_lazy(v, p.ld, from, p.lg);
            sm[te] = v;
        }
    } else {
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            unsigned e = t + j * T;
            size_t mem = tile_mem(p, L0, H0, e);
            fr_e v = load16(p.src + mem);
            apply_scale_lazy(v, p.ld, mem, p.lg);
            sm[e] = v;
        }
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
        /* stages 0 .. 2 of the transform held by this thread: the twiddle of element j at stage
         * b is omega_(2^(b+1))^(j mod 2^b), 1 when j mod 2^b = 0 (L = 0 since s_lo = 0) */
        const bool triv = p.s_lo == 0 && beta == 0;
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
                if (triv && (j & ((1u << tt) - 1)) == 0) {
                    fr_e u = v[j], x2 = v[jj];
                    v[j] = fr_add_lazy(u, x2);
                    v[jj] = fr_sub_lazy(u, x2);
                    continue;
                }
                const unsigned g = gbase | (j << beta);
                const size_t etw = ((size_t)(g & ((1u << b) - 1)) << p.s_lo) | L;
                bool flip;
                fr_e w = twiddle(p.tw, p.tw_split, s, etw, INV, flip);
                if (DIT) {
                    fr_e tv = mul_lazy(w, v[jj]);
                    fr_e sum = fr_add_lazy(v[j], tv), dif = fr_sub_lazy(v[j], tv);
                    v[j] = flip ? dif : sum;
                    v[jj] = flip ? sum : dif;
                } else {
                    fr_e u = v[j], x2 = v[jj];
                    v[j] = fr_add_lazy(u, x2);
                    v[jj] = fr_sub_lazy(flip ? x2 : u, flip ? u : x2);
                    v[jj] = mul_lazy(w, v[jj]);
                }
            }
        }
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            sm[tile_e(p, hq, gbase | (j << beta), lq)] = v[j];
        }
        __syncthreads();
    }

    if (p.gather) {
        /* tile row hq holds DIT group bitrev(R), R = hb 2^gh_lg + hq: 2^k consecutive elements */
        const unsigned rlg = p.lg - k;
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            unsigned e = t + j * T;
            size_t mem = (bitrev_idx(H0 + (e >> k), rlg) << k) | (e & ((1u << k) - 1));
            store16(p.dst + mem, store_value<DIT, INV, MINB>(p, sm[e], mem));
        }
    } else {
        CZ_UNROLL
        for (unsigned j = 0; j < 8; j++) {
            unsigned e = t + j * T;
            size_t mem = tile_mem(p, L0, H0, e);
            store16(p.dst + mem, store_value<DIT, INV, MINB>(p, sm[e], mem));
        }
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

/* a = a b pointwise (the coset values of A B). */
__global__ void q_mul_kernel(fr_e *a, const fr_e *b, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        store16(a + i, load16(a + i) * load16(b + i));
    }
}

/* h_j = (a_j - c_j) / Z: a holds A B mod (x^n - 7^n), c the coefficients of C, both in natural
 * order (quotient_dev for n <= 4). */
__global__ void q_finish_kernel(fr_e *a, const fr_e *c, fr_e zinv, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        store16(a + i, (load16(a + i) - ldg16(c + i)) * zinv);
    }
}

/* a = a - b pointwise, fully reduced (the lean quotient: both in bit-reversed order). */
__global__ void q_sub_kernel(fr_e *a, const fr_e *b, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        store16(a + i, load16(a + i) - load16(b + i));
    }
}

/* x[i] <-> x[bitrev(i)] for the n = 2^lg values (each pair swapped by its lower index). */
__global__ void bitrev_permute_kernel(fr_e *x, unsigned lg)
{
    const size_t n = (size_t)1 << lg;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t j = bitrev_idx(i, lg);
        if (i < j) {
            fr_e u = load16(x + i), v = load16(x + j);
            store16(x + i, v);
            store16(x + j, u);
        }
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

/** The split point S of the twiddles for transforms up to 2^lg on d: 0 for the whole table
 *  (tw_mode 1, or automatic where it takes at most an eighth of the device, or of its cap),
 *  else ceil(lg / 2) (tw_mode 2, or automatic otherwise). Small transforms never split. */
static unsigned tw_split_for(const gpu_dev *d, unsigned lg)
{
    const size_t mem = d->mem_cap && d->mem_cap < d->total_mem ? d->mem_cap : d->total_mem;
    const bool big = ((size_t)32 << lg) > mem / 8;
    if (lg < 8 || d->tw_mode == 1 || (d->tw_mode == 0 && !big)) {
        return 0;
    }
    return (lg + 1) / 2;
}

/** Entries of the twiddles of 2^lg (split at S, or whole for S = 0). */
static size_t tw_entries(unsigned lg, unsigned split)
{
    return split ? ((size_t)(lg - split + 1) << split) : (size_t)1 << lg;
}

/* w^e for e < count into out (consecutive powers, chunk per thread). */
static cuzk_err tw_powers(gpu_dev *d, fr_e *out, unsigned lg, size_t count, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const unsigned chunk = 64;
    uint64_t w[4];

    gpu_host_fr_root(w, lg);
    CUDA_LAUNCH(err, done, tw_top_kernel, (unsigned)host_cdiv(host_cdiv(count, chunk), 128), 128, 0,
                d->s, out, fr_from_limbs(w), count, chunk);
done:
    return err;
}

static cuzk_err ensure_twiddles(gpu_dev *d, unsigned lg, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned want = lg < 2 ? 2 : lg;
    const unsigned split = tw_split_for(d, want), low = split ? split : want;
    const size_t bytes = tw_entries(want, split) * sizeof(fr_e);
    void *p = NULL;

    if (d->tw && d->tw_lg >= want) { /* either layout serves every smaller transform */
        return CUZK_OK;
    }
    CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
    if (d->tw) {
        dev_free(d, d->tw, d->tw_bytes);
        d->tw = NULL;
        d->tw_lg = d->tw_split = 0;
        d->tw_bytes = 0;
    }
    CZ_TRY(err, dev_malloc(d, &p, bytes, dg), done);
    /* the whole table of 2^low entries, then (split) 2^S powers per stage from S on */
    CZ_TRY(err, tw_powers(d, (fr_e *)p + ((size_t)1 << (low - 1)), low, (size_t)1 << (low - 1), dg),
           done);
    CUDA_LAUNCH(err, done, tw_lower_kernel, grid_for(d, (size_t)1 << (low - 1), 256), 256, 0, d->s,
                (fr_e *)p, low);
    for (unsigned s = split; split && s < want; s++) {
        fr_e *his = (fr_e *)p + ((size_t)(s - split + 1) << split);
        CZ_TRY(err, tw_powers(d, his, s + 1, (size_t)1 << split, dg), done);
    }
    d->tw = p;
    d->tw_lg = want;
    d->tw_split = split;
    d->tw_bytes = bytes;
    p = NULL;
done:
    dev_free(d, p, bytes);
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
            dev_free(d, d->scale[which], d->scale_bytes[which]);
            d->scale[which] = NULL;
        }
        CZ_TRY(err, dev_malloc(d, &p, (nlo + nhi) * sizeof(fr_e), dg), done);
        CZ_TRY(err, dev_h2d(d, p, host, (nlo + nhi) * sizeof(fr_e), d->s, dg), done);
        CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
        d->scale[which] = p;
        d->scale_bytes[which] = (nlo + nhi) * sizeof(fr_e);
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
    dev_free(d, p, (nlo + nhi) * sizeof(fr_e));
    cz_free(host);
    return err;
}

static ntt_scale scale_none(void)
{
    ntt_scale s;
    memset(&s, 0, sizeof(s));
    return s;
}

template <bool DIT, bool INV, int MINB>
static cuzk_err launch_pass_kernel(gpu_dev *d, const ntt_pass_args &p, size_t blocks,
                                   unsigned threads, size_t smem, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CUDA_TRY(err,
             cudaFuncSetAttribute((ntt_pass_kernel<DIT, INV, MINB>),
                                  cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem),
             done);
    CUDA_LAUNCH(err, done, (ntt_pass_kernel<DIT, INV, MINB>), (unsigned)blocks, threads, smem, d->s,
                p);
done:
    return err;
}

template <bool DIT, bool INV>
static cuzk_err launch_pass_minb(gpu_dev *d, const ntt_pass_args &p, size_t blocks,
                                 unsigned threads, size_t smem, cz_diag *dg)
{
    /* two builds of the kernel: registers capped for two blocks per SM (default), or not */
    return d->ntt_minb == 1 ? launch_pass_kernel<DIT, INV, 1>(d, p, blocks, threads, smem, dg)
                            : launch_pass_kernel<DIT, INV, 2>(d, p, blocks, threads, smem, dg);
}

/** One pass of k stages from s_lo, reading src and writing dst (gather: the first DIT pass of a
 *  natural-order transform, src in natural order; dst must then be another buffer unless the
 *  pass is the whole transform); `last`: the last pass of the transform, which stores fully
 *  reduced values. DIF passes are built for the inverse transform only. */
static cuzk_err launch_pass(gpu_dev *d, const fr_e *src, fr_e *dst, unsigned lg, unsigned s_lo,
                            unsigned k, bool dit, int inv, bool gather, bool last,
                            const ntt_scale &ld, const ntt_scale &st, cz_diag *dg)
{
    const size_t n = (size_t)1 << lg;
    const unsigned tile_lg = layout_of(d).tile_lg < k ? k : layout_of(d).tile_lg;
    const unsigned e_lg = lg < tile_lg ? lg : tile_lg;
    const unsigned g_lg = e_lg - k;
    const unsigned threads = (1u << e_lg) / 8;
    const size_t blocks = n >> e_lg;
    const size_t smem = ((size_t)1 << e_lg) * sizeof(fr_e);
    ntt_pass_args p;

    p.src = src;
    p.dst = dst;
    p.tw = (const fr_e *)d->tw;
    p.tw_split = d->tw_split;
    p.lg = lg;
    p.s_lo = s_lo;
    p.k = k;
    p.gl_lg = g_lg < s_lo ? g_lg : s_lo;
    p.gh_lg = g_lg - p.gl_lg;
    p.gather = gather;
    p.reduce = last;
    p.ld = ld;
    p.st = st;
    const bool post = st.mul || st.sub;
    CZ_CHECK(dit || inv);
    CZ_CHECK(!post || (dit && last && (inv ? !st.mul : !st.sub)));
    if (post) { /* the steps are in the default builds only (store_value) */
        return inv ? launch_pass_kernel<true, true, 2>(d, p, blocks, threads, smem, dg)
                   : launch_pass_kernel<true, false, 2>(d, p, blocks, threads, smem, dg);
    }
    if (!dit) {
        return launch_pass_minb<false, true>(d, p, blocks, threads, smem, dg);
    }
    return inv ? launch_pass_minb<true, true>(d, p, blocks, threads, smem, dg)
               : launch_pass_minb<true, false>(d, p, blocks, threads, smem, dg);
}

/** DIT passes, `st` applied by the last (top) pass. lg >= 3. Without gather: in place on x,
 *  bit-reversed in, natural out. With gather: natural order in and out, the first pass reading x
 *  bit-reversed (scaled by `ld` at the natural index) into tmp, the passes between in place on
 *  tmp, the last one back into x; tmp is not used when there is one pass. */
static cuzk_err run_dit(gpu_dev *d, fr_e *x, fr_e *tmp, unsigned lg, int inv, bool gather,
                        const ntt_scale &ld, const ntt_scale &st, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned ks[16], np = plan_passes(lg, layout_of(d), ks), s_lo = 0;
    for (unsigned i = 0; i < np; i++) {
        const fr_e *src = !gather || i == 0 ? x : tmp;
        fr_e *dst = !gather || i + 1 == np ? x : tmp;
        CZ_TRY(err,
               launch_pass(d, src, dst, lg, s_lo, ks[i], true, inv, gather && i == 0, i + 1 == np,
                           i == 0 ? ld : scale_none(), i + 1 == np ? st : scale_none(), dg),
               done);
        s_lo += ks[i];
    }
done:
    return err;
}

/** DIF passes of the inverse transform in place (natural in, bit-reversed out), `st` applied by
 *  the last (bottom) pass. lg >= 3. */
static cuzk_err run_dif_inv(gpu_dev *d, fr_e *x, unsigned lg, const ntt_scale &st, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    unsigned ks[16], np = plan_passes(lg, layout_of(d), ks), s_hi = lg;
    for (unsigned i = np; i-- > 0;) {
        s_hi -= ks[i];
        CZ_TRY(err,
               launch_pass(d, x, x, lg, s_hi, ks[i], false, 1, false, i == 0, scale_none(),
                           i == 0 ? st : scale_none(), dg),
               done);
    }
done:
    return err;
}

/** Whether a natural-order transform of 2^lg values on `d` needs a second buffer of the same
 *  size (more than one pass). */
static bool natural_needs_tmp(const gpu_dev *d, unsigned lg)
{
    unsigned ks[16];
    return lg > 2 && plan_passes(lg, layout_of(d), ks) > 1;
}

/** In-place natural-order transform of 2^lg device values; tmp: 2^lg values of scratch when
 *  natural_needs_tmp (else unused, may be NULL). */
static cuzk_err ntt_natural(gpu_dev *d, fr_e *x, fr_e *tmp, unsigned lg, gpu_ntt_kind kind,
                            cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const int inv = kind == GPU_NTT_INV || kind == GPU_NTT_COSET_INV;
    ntt_scale ld = scale_none(), st = scale_none();
    uint64_t ninv[4], zinv[4];

    CZ_TRY(err, ensure_twiddles(d, lg, dg), done);
    if (kind == GPU_NTT_COSET_FWD) {
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_COSET, 0, &ld, dg), done);
    } else if (kind == GPU_NTT_INV) {
        gpu_host_ntt_consts(lg, ninv, zinv, NULL);
        st.mode = SCALE_CONST;
        st.c = fr_from_limbs(ninv);
    } else if (kind == GPU_NTT_COSET_INV) {
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_ICOSET_NINV, 0, &st, dg), done);
    }
    if (lg <= 2) {
        CUDA_LAUNCH(err, done, ntt_small_kernel, 1, 1u << lg, 0, d->s, x, (const fr_e *)d->tw, lg,
                    inv, ld, st);
    } else {
        CZ_CHECK(tmp || !natural_needs_tmp(d, lg));
        CZ_TRY(err, run_dit(d, x, tmp, lg, inv, true, ld, st, dg), done);
    }
done:
    return err;
}

/** *top_zero = the top coefficient h[n - 1] (in device memory at a) is zero; waits for the
 *  device. */
static cuzk_err read_top_zero(gpu_dev *d, const fr_e *a, size_t n, bool *top_zero, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    fr_e top;

    CUDA_TRY(err, cudaMemcpyAsync(&top, a + n - 1, sizeof(top), cudaMemcpyDeviceToHost, d->s),
             done);
    CUDA_TRY(err, cudaStreamSynchronize(d->s), done);
    *top_zero = true;
    for (int i = 0; i < 8; i++) {
        *top_zero = *top_zero && top.w[i] == 0;
    }
done:
    return err;
}

/** Quotient on device data: a, b, c hold n values, the first m of them meaningful.
 *  Six transforms, not seven: C's values on the coset are never needed. The inverse coset
 *  transform of A B's coset values is A B mod (x^n - 7^n); as A B = H Z + C with Z = x^n - 1,
 *  that is H (7^n - 1) + C (degree below n), so H = (that - C) / (7^n - 1), C's coefficients
 *  coming from its inverse transform alone. When A B - C is not divisible by Z the result is
 *  the same as the seven-transform form's, (A B - C) mod (x^n - 7^n) / (7^n - 1), whose top
 *  coefficient says so. From 2^3 on the pointwise steps ride on the transforms' last stores:
 *  a's coset values are multiplied by b's as they are stored, and the last transform, scaled
 *  by 1 / (7^n - 1) as C's coefficients are, subtracts them as it stores. */
static cuzk_err quotient_dev(gpu_dev *d, fr_e *a, fr_e *b, fr_e *c, size_t m, unsigned lg,
                             bool *top_zero, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t n = (size_t)1 << lg;
    fr_e *v[3] = {a, b, c};
    uint64_t ninv[4], zinv[4], nzinv[4];
    ntt_scale s_in, s_out, s_ab = scale_none(), s_c = scale_none();

    gpu_host_ntt_consts(lg, ninv, zinv, nzinv);
    if (m < n) {
        for (int i = 0; i < 3; i++) {
            CUDA_TRY(err, cudaMemsetAsync(v[i] + m, 0, (n - m) * sizeof(fr_e), d->s), done);
        }
    }
    if (lg <= 2) { /* one-launch transforms in natural order */
        for (int i = 0; i < 2; i++) {
            CZ_TRY(err, ntt_natural(d, v[i], NULL, lg, GPU_NTT_INV, dg), done);
            CZ_TRY(err, ntt_natural(d, v[i], NULL, lg, GPU_NTT_COSET_FWD, dg), done);
        }
        CZ_TRY(err, ntt_natural(d, c, NULL, lg, GPU_NTT_INV, dg), done);
        CUDA_LAUNCH(err, done, q_mul_kernel, 1, 32, 0, d->s, a, b, n);
        CZ_TRY(err, ntt_natural(d, a, NULL, lg, GPU_NTT_COSET_INV, dg), done);
        CUDA_LAUNCH(err, done, q_finish_kernel, 1, 32, 0, d->s, a, (const fr_e *)c,
                    fr_from_limbs(zinv), n);
    } else {
        CZ_TRY(err, ensure_twiddles(d, lg, dg), done);
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_COSET_NINV, 1, &s_in, dg), done);
        CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_ICOSET_NINV_ZINV, 0, &s_out, dg), done);
        s_ab.mul = b;
        for (int i = 1; i >= 0; i--) {
            /* coefficients a_j 7^j at position bitrev(j), then evaluations on the coset; a's
             * stored times b's */
            CZ_TRY(err, run_dif_inv(d, v[i], lg, s_in, dg), done);
            CZ_TRY(err,
                   run_dit(d, v[i], v[i], lg, 0, false, scale_none(), i == 0 ? s_ab : scale_none(),
                           dg),
                   done);
        }
        /* C's coefficients c_j / (7^n - 1) at position bitrev(j) */
        s_c.mode = SCALE_CONST;
        s_c.c = fr_from_limbs(nzinv);
        CZ_TRY(err, run_dif_inv(d, c, lg, s_c, dg), done);
        /* natural order in and out through b (no longer needed), C's part subtracted */
        s_out.sub = c;
        CZ_TRY(err, run_dit(d, a, b, lg, 1, true, scale_none(), s_out, dg), done);
    }
    if (top_zero) {
        CZ_TRY(err, read_top_zero(d, a, n, top_zero, dg), done);
    }
done:
    return err;
}

/** The quotient's first half on two buffers: a, b hold A, B's first m evaluations; a ends
 *  with A B on the coset (natural order), b free. lg >= 3. */
static cuzk_err quotient_ab(gpu_dev *d, fr_e *a, fr_e *b, size_t m, unsigned lg, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t n = (size_t)1 << lg;
    fr_e *v[2] = {a, b};
    ntt_scale s_in, s_ab = scale_none();

    for (int i = 0; m < n && i < 2; i++) {
        CUDA_TRY(err, cudaMemsetAsync(v[i] + m, 0, (n - m) * sizeof(fr_e), d->s), done);
    }
    CZ_TRY(err, ensure_twiddles(d, lg, dg), done);
    CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_COSET_NINV, 1, &s_in, dg), done);
    s_ab.mul = b;
    for (int i = 1; i >= 0; i--) {
        CZ_TRY(err, run_dif_inv(d, v[i], lg, s_in, dg), done);
        CZ_TRY(err,
               run_dit(d, v[i], v[i], lg, 0, false, scale_none(), i == 0 ? s_ab : scale_none(), dg),
               done);
    }
done:
    return err;
}

/** The second half: a holds A B on the coset, c C's first m evaluations (clobbered); a ends
 *  with h in natural order. In place: the inverse coset transform as DIF (bit-reversed
 *  coefficients), C's coefficients subtracted in the same order, one permutation. lg >= 3. */
static cuzk_err quotient_finish(gpu_dev *d, fr_e *a, fr_e *c, size_t m, unsigned lg, bool *top_zero,
                                cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t n = (size_t)1 << lg;
    uint64_t ninv[4], zinv[4], nzinv[4];
    ntt_scale s_out, s_c = scale_none();

    gpu_host_ntt_consts(lg, ninv, zinv, nzinv);
    if (m < n) {
        CUDA_TRY(err, cudaMemsetAsync(c + m, 0, (n - m) * sizeof(fr_e), d->s), done);
    }
    CZ_TRY(err, ensure_twiddles(d, lg, dg), done);
    CZ_TRY(err, scale_tables(d, lg, GPU_SCALE_ICOSET_NINV_ZINV, 1, &s_out, dg), done);
    s_c.mode = SCALE_CONST;
    s_c.c = fr_from_limbs(nzinv);
    CZ_TRY(err, run_dif_inv(d, c, lg, s_c, dg), done);
    CZ_TRY(err, run_dif_inv(d, a, lg, s_out, dg), done);
    CUDA_LAUNCH(err, done, q_sub_kernel, grid_for(d, n, 256), 256, 0, d->s, a, (const fr_e *)c, n);
    CUDA_LAUNCH(err, done, bitrev_permute_kernel, grid_for(d, n, 256), 256, 0, d->s, a, lg);
    if (top_zero) {
        CZ_TRY(err, read_top_zero(d, a, n, top_zero, dg), done);
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
    CZ_TRY(err, dev_scratch(dev, natural_needs_tmp(dev, lg) ? 2 * bytes : bytes, &buf, dg), done);
    CZ_TRY(err, dev_h2d(dev, buf, x, bytes, dev->s, dg), done);
    CZ_TRY(err, ntt_natural(dev, (fr_e *)buf, (fr_e *)(buf + bytes), lg, kind, dg), done);
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
    char *tmp = NULL;

    CZ_TRY(err, check_lg(lg, dg), done);
    bytes = ((size_t)1 << lg) * sizeof(fr_e);
    if ((unsigned)kind > GPU_NTT_COSET_INV || off % 32 != 0 || x->dev != dev || off > x->len ||
        bytes > x->len - off) {
        err = cz_fail(dg, CUZK_E_INVAL, "NTT of 2^%u values at offset %zu of a %zu-byte buffer", lg,
                      off, x->len);
        goto done;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    if (natural_needs_tmp(dev, lg)) {
        CZ_TRY(err, dev_scratch(dev, bytes, &tmp, dg), done);
    }
    CZ_TRY(err, ntt_natural(dev, (fr_e *)((char *)x->ptr + off), (fr_e *)tmp, lg, kind, dg), done);
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
        CZ_TRY(err, dev_h2d(dev, v[i], src[i], m * sizeof(fr_e), dev->s, dg), done);
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

/* Checks of the lean quotient's buffers: n values each on dev, distinct. */
static cuzk_err lean_args(gpu_dev *dev, const gpu_buf *a, const gpu_buf *b, size_t m, unsigned lg,
                          cz_diag *dg)
{
    cuzk_err err = check_lg(lg, dg);
    const size_t bytes = ((size_t)1 << (lg > GPU_NTT_MAX_LG ? 0 : lg)) * sizeof(fr_e);

    if (err == CUZK_OK && (lg < 3 || m > ((size_t)1 << lg) || a->len < bytes || b->len < bytes ||
                           a->dev != dev || b->dev != dev || a == b)) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "lean quotient of 2^%u values (m = %zu, from 2^3) in buffers of %zu and %zu "
                      "bytes",
                      lg, m, a->len, b->len);
    }
    return err;
}

cuzk_err gpu_quotient_ab_buf(gpu_dev *dev, gpu_buf *a, gpu_buf *b, size_t m, unsigned lg,
                             cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    CZ_TRY(err, lean_args(dev, a, b, m, lg, dg), done);
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, quotient_ab(dev, (fr_e *)a->ptr, (fr_e *)b->ptr, m, lg, dg), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err gpu_quotient_finish_buf(gpu_dev *dev, bool *top_zero, gpu_buf *a, gpu_buf *c, size_t m,
                                 unsigned lg, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    CZ_TRY(err, lean_args(dev, a, c, m, lg, dg), done);
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, quotient_finish(dev, (fr_e *)a->ptr, (fr_e *)c->ptr, m, lg, top_zero, dg), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

size_t gpu_ntt_twiddle_bytes(const gpu_dev *dev, unsigned lg)
{
    const unsigned want = lg < 2 ? 2 : lg;
    return tw_entries(want, tw_split_for(dev, want)) * sizeof(fr_e);
}

cuzk_err gpu_debug_ntt_twiddles(gpu_dev *dev, int mode, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    if (mode < 0 || mode > 2) {
        return cz_fail(dg, CUZK_E_INVAL, "twiddle mode %d", mode);
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
    dev->tw_mode = mode;
    if (dev->tw) { /* built again at the next transform, in the new layout */
        dev_free(dev, dev->tw, dev->tw_bytes);
        dev->tw = NULL;
        dev->tw_lg = dev->tw_split = 0;
        dev->tw_bytes = 0;
    }
done:
    return err;
}

} /* extern "C" */
