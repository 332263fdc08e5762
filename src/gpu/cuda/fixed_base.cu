/* fixed_base.cu - fixed-base multiplication on the device (gpu.h, gpu_fb_mul_g1 / _g2): the
 * millions of [k_j] G of a parameter generation, with the table of curve/fixed_base.c (window
 * w, window i < ceil(256 / w), digit d = 1 .. 2^(w-1): tab[i 2^(w-1) + d - 1] = d 2^(w i) G,
 * affine) and its signed-digit recoding, so that [k] G = sum_i sign(d_i) tab[i][|d_i| - 1].
 *
 * Kernel. A round covers R = T K scalars, T the threads of the launch and K = FB_PER_THREAD.
 * Thread t takes scalars t, t + T, .., t + (K - 1) T of the round (consecutive threads read and
 * write consecutive slots: coalesced), and for each:
 *   1. sums its at most ceil(256 / w) table entries in XYZZ coordinates (curve.cuh's mixed
 *      addition, complete for equal or opposite points), no doubling;
 *   2. keeps the running product of the ZZZ coordinates (the identity counts as 1) in a
 *      scratch slot beside the point;
 * then inverts the product once (Fermat, a^(p - 2)) and walks back: 1 / ZZZ_j is the running
 * inverse times the product before j, 1 / Z = ZZ / ZZZ, x = X / Z^2, y = Y / ZZZ. One inversion
 * (about 570 multiplications) is shared by K points, so the conversion to affine costs a few
 * multiplications per point against the 11 of each addition.
 * The points leave either as affine Montgomery coordinates (g1_aff_t / g2_aff_t, all-zero
 * identity: what g1_fb_mul writes) or already encoded in the uncompressed big-endian wire form
 * of g1_aff_to_uncompressed / g2_aff_to_uncompressed (the .params file's), so that a parameter
 * writer only copies bytes to its file.
 *
 * Table reads: all threads of a warp are in the same window at the same step, so they read
 * entries of one 2^(w-1)-entry row (w = 12: 196 KiB of G1), which the caches hold.
 */
#include "gpu/cuda/curve.cuh"
#include "gpu/cuda/dev.cuh"
#include "gpu/cuda/scalar.cuh"

namespace czg
{
namespace
{

constexpr unsigned FB_BLOCK = 128;
constexpr unsigned FB_PER_THREAD = 16;
constexpr unsigned FB_MIN_WINDOW = 2, FB_MAX_WINDOW = 16;

/* ---- inversion ---- */

/** a^-1 for a != 0 (Fermat: a^(p - 2); p - 2 differs from p only in its lowest word, which
 *  is odd and above 2). Square-and-multiply from the top bit. */
CZ_DEV_CALL fp_e fp_inv(const fp_e &a)
{
    fp_e r = fe_one<fp_cfg>();
    for (int i = fp_cfg::N - 1; i >= 0; i--) {
        const uint32_t e = i == 0 ? fp_cfg::mod(0) - 2 : fp_cfg::mod(i);
        for (int b = 31; b >= 0; b--) {
            r = sqr(r);
            if ((e >> b) & 1) {
                r = r * a;
            }
        }
    }
    return r;
}

/** (c0 + c1 u)^-1 = (c0 - c1 u) / (c0^2 + c1^2), u^2 = -1. */
CZ_DEV fp2_e fe_inv(const fp2_e &a)
{
    const fp_e t = fp_inv(sqr(a.c0) + sqr(a.c1));
    return fp2_e{a.c0 * t, -(a.c1 * t)};
}

CZ_DEV fp_e fe_inv(const fp_e &a)
{
    return fp_inv(a);
}

/* ---- wire encoding ---- */

CZ_DEV uint32_t bswap32(uint32_t x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

/** fp_to_bytes: the canonical value, big-endian, into 12 words. */
CZ_DEV void fp_store_be(uint32_t *out, const fp_e &a)
{
    const fp_e c = from_mont(a);
    CZ_UNROLL
    for (int i = 0; i < fp_cfg::N; i++) {
        out[fp_cfg::N - 1 - i] = bswap32(c.w[i]);
    }
}

/** Fp2 on the wire: c1 first, then c0. */
CZ_DEV void fe_store_be(uint32_t *out, const fp2_e &a)
{
    fp_store_be(out, a.c1);
    fp_store_be(out + fp_cfg::N, a.c0);
}

CZ_DEV void fe_store_be(uint32_t *out, const fp_e &a)
{
    fp_store_be(out, a);
}

/** The uncompressed encoding of an affine point; the identity is the infinity flag (0x40 in
 *  the first byte) and zeros. */
template <class F> CZ_DEV void aff_store_be(uint32_t *out, const aff_t<F> &p, bool inf)
{
    constexpr unsigned words = sizeof(F) / 4;
    if (inf) {
        out[0] = 0x40u; /* byte 0 = 0x40 in memory order */
        for (unsigned i = 1; i < 2 * words; i++) {
            out[i] = 0;
        }
        return;
    }
    fe_store_be(out, p.x);
    fe_store_be(out + words, p.y);
}

/* ---- the multiplication ---- */

/** [k] G in XYZZ from the table (signed digits, see the file comment). */
template <class F> CZ_DEV xyzz_t<F> fb_point(const aff_t<F> *tab, unsigned w, const uint32_t *k)
{
    const unsigned nwin = (256 + w - 1) / w;
    const uint32_t half = 1u << (w - 1);
    xyzz_t<F> acc = xyzz_inf<F>();
    uint32_t carry = 0;

    for (unsigned i = 0; i < nwin; i++) {
        const uint32_t v = scalar_bits(k, i * w, w) + carry;
        if (v == 0) {
            continue;
        }
        uint32_t mag;
        bool neg;
        if (v > half) {
            mag = (1u << w) - v;
            neg = true;
            carry = 1;
        } else {
            mag = v;
            neg = false;
            carry = 0;
        }
        if (mag == 0) { /* v = 2^w: digit 0, carry 1 */
            continue;
        }
        aff_t<F> t = ldg16(tab + (size_t)i * half + mag - 1);
        if (neg) {
            t.y = -t.y;
        }
        xyzz_add_aff(acc, t);
    }
    return acc;
}

/** One round (file comment): n scalars from `k`, scratch `pts` and `pre` of T K slots each,
 *  results into `out` (affine) or `enc` (wire words), slot for slot with k. */
template <class F>
__global__ void __launch_bounds__(FB_BLOCK)
    fb_kernel(aff_t<F> *out, uint32_t *enc, const aff_t<F> *tab, unsigned w, const uint4 *k,
              size_t n, xyzz_t<F> *pts, F *pre)
{
    const size_t T = (size_t)gridDim.x * blockDim.x;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const F one = field_traits<F>::one();
    constexpr unsigned enc_words = 2 * sizeof(F) / 4;
    F prod = one;

    for (unsigned j = 0; j < FB_PER_THREAD; j++) {
        const size_t s = t + j * T;
        if (s >= n) {
            break;
        }
        uint32_t kw[8];
        const uint4 lo = k[2 * s], hi = k[2 * s + 1];
        kw[0] = lo.x, kw[1] = lo.y, kw[2] = lo.z, kw[3] = lo.w;
        kw[4] = hi.x, kw[5] = hi.y, kw[6] = hi.z, kw[7] = hi.w;
        const xyzz_t<F> p = fb_point(tab, w, kw);
        store16(pts + s, p);
        if (!is_inf(p)) {
            prod = prod * p.zzz;
        }
        store16(pre + s, prod);
    }
    F inv = fe_inv(prod);
    for (int j = FB_PER_THREAD - 1; j >= 0; j--) {
        const size_t s = t + (size_t)j * T;
        if (s >= n) {
            continue;
        }
        const xyzz_t<F> p = load16(pts + s);
        aff_t<F> a;
        const bool inf = is_inf(p);
        if (inf) {
            a.x = field_traits<F>::zero();
            a.y = a.x;
        } else {
            const F izzz = j > 0 ? inv * load16(pre + s - T) : inv; /* 1 / ZZZ_j */
            inv = inv * p.zzz;
            const F iz = izzz * p.zz; /* 1 / Z */
            a.x = p.x * sqr(iz);
            a.y = p.y * izzz;
        }
        if (enc) {
            aff_store_be(enc + s * enc_words, a, inf);
        } else {
            store16(out + s, a);
        }
    }
}

/* ---- host side ---- */

template <class F>
cuzk_err fb_mul(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab, unsigned w,
                const struct fr_repr *k, size_t n, cz_diag *dg)
{
    typedef aff_t<F> aff;
    cuzk_err err = CUZK_OK;
    const size_t nwin = (256 + w - 1) / w;
    const size_t out_elem = encoded ? 2 * sizeof(F) : sizeof(aff);
    char *scr = NULL;

    CZ_CHECK(dev && tab && (k || n == 0) && (out || n == 0));
    if (w < FB_MIN_WINDOW || w > FB_MAX_WINDOW) {
        return cz_fail(dg, CUZK_E_INVAL, "fixed-base window %u outside [%u, %u]", w, FB_MIN_WINDOW,
                       FB_MAX_WINDOW);
    }
    if (tab->dev != dev || tab->len < nwin * ((size_t)1 << (w - 1)) * sizeof(aff)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "fixed-base table of %zu bytes for window %u (needs %zu points)", tab->len,
                       w, nwin * ((size_t)1 << (w - 1)));
    }
    if (n == 0) {
        return CUZK_OK;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    {
        const unsigned grid = (unsigned)dev->sm_count * 4;
        const size_t round = (size_t)grid * FB_BLOCK * FB_PER_THREAD;
        layout lay;
        const size_t o_k = lay.add(round * 32), o_pts = lay.add(round * sizeof(xyzz_t<F>));
        const size_t o_pre = lay.add(round * sizeof(F)), o_out = lay.add(round * out_elem);
        const aff *tp = (const aff *)tab->ptr;

        CZ_TRY(err, dev_scratch(dev, lay.off, &scr, dg), done);
        for (size_t base = 0; base < n; base += round) {
            const size_t m = n - base < round ? n - base : round;
            CZ_TRY(err, dev_h2d(dev, scr + o_k, (const char *)k + base * 32, m * 32, dev->s, dg),
                   done);
            CUDA_LAUNCH(err, done, fb_kernel<F>, grid, FB_BLOCK, 0, dev->s, (aff *)(scr + o_out),
                        encoded ? (uint32_t *)(scr + o_out) : (uint32_t *)NULL, tp, w,
                        (const uint4 *)(scr + o_k), m, (xyzz_t<F> *)(scr + o_pts),
                        (F *)(scr + o_pre));
            CUDA_TRY(err,
                     cudaMemcpyAsync((char *)out + base * out_elem, scr + o_out, m * out_elem,
                                     cudaMemcpyDeviceToHost, dev->s),
                     done);
        }
        CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
    }
done:
    return err;
}

} // namespace
} // namespace czg

using namespace czg;

extern "C" {

cuzk_err gpu_fb_mul_g1(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab, unsigned w,
                       const struct fr_repr *k, size_t n, cz_diag *dg)
{
    return fb_mul<fp_e>(dev, out, encoded, tab, w, k, n, dg);
}

cuzk_err gpu_fb_mul_g2(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab, unsigned w,
                       const struct fr_repr *k, size_t n, cz_diag *dg)
{
    return fb_mul<fp2_e>(dev, out, encoded, tab, w, k, n, dg);
}

} /* extern "C" */
