/* internal.h - what the CUDA side (the .cu files of cuda/, C++) and the C side (gpu_host.c) share.
 * Plain C with fixed-width limb arrays: the .cu files cannot include the field/ and curve/
 * headers (they are C11), so host-side field and curve arithmetic lives in gpu_host.c and is
 * reached through the gpu_host_* functions below. Field elements are 64-bit little-endian limbs
 * in Montgomery form (fr: 4, fp: 6, fp2: 12); an XYZZ point is (X, Y, ZZ, ZZZ) with
 * x = X/ZZ, y = Y/ZZZ (identity iff ZZ = 0): 24 limbs on G1, 48 on G2.
 * Also the debug entry points that tests/gpu uses to check device arithmetic piece by piece.
 */
#ifndef CUZK_GPU_INTERNAL_H
#define CUZK_GPU_INTERNAL_H

#include "gpu/gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define GPU_FR_LIMBS      4
#define GPU_FP_LIMBS      6
#define GPU_G1_XYZZ_LIMBS 24
#define GPU_G2_XYZZ_LIMBS 48

/* ---- host helpers (gpu_host.c) ---- */

/** omega_lg = ROOT_OF_UNITY^(2^(32-lg)) (spec 1.4), Montgomery form; lg <= 32. */
void gpu_host_fr_root(uint64_t out[4], unsigned lg);
/** n^-1, (7^n - 1)^-1 and, when nzinv is not NULL, their product for n = 2^lg, Montgomery
 *  form. */
void gpu_host_ntt_consts(unsigned lg, uint64_t ninv[4], uint64_t zinv[4], uint64_t nzinv[4]);

/** Which coset factor tables gpu_host_scale_tables builds. */
enum gpu_scale_which {
    GPU_SCALE_COSET = 0,        /* 7^i */
    GPU_SCALE_COSET_NINV,       /* n^-1 7^i */
    GPU_SCALE_ICOSET_NINV,      /* n^-1 7^-i */
    GPU_SCALE_ICOSET_NINV_ZINV, /* n^-1 7^-i (7^n - 1)^-1 (the quotient's last transform) */
    GPU_SCALE_COUNT
};
/** Factor tables for i < 2^lg: factor(i) = lo[i mod 2^a] * hi[i >> a], lo has 2^a entries and
 *  hi 2^(lg-a) (4 limbs each), a <= lg. */
void gpu_host_scale_tables(uint64_t *lo, uint64_t *hi, unsigned lg, unsigned a, int which);

/** XYZZ -> Jacobian without inversion: Z = ZZ ZZZ, X = X ZZ ZZZ^2, Y = Y ZZ^3 ZZZ^2. */
void gpu_host_xyzz_to_g1(struct g1 *out, const uint64_t xyzz[GPU_G1_XYZZ_LIMBS]);
void gpu_host_xyzz_to_g2(struct g2 *out, const uint64_t xyzz[GPU_G2_XYZZ_LIMBS]);

/** out = extra + sum_{w < nwin} 2^(c w) win[w] (Horner), all XYZZ on the host. */
void gpu_host_msm_finish_g1(struct g1 *out, const uint64_t *win, unsigned nwin, unsigned c,
                            const uint64_t extra[GPU_G1_XYZZ_LIMBS]);
void gpu_host_msm_finish_g2(struct g2 *out, const uint64_t *win, unsigned nwin, unsigned c,
                            const uint64_t extra[GPU_G2_XYZZ_LIMBS]);

/** Element i of an array of G1 (G2) points, for code that does not see their size. */
struct g1 *gpu_host_g1_at(struct g1 *v, size_t i);
struct g2 *gpu_host_g2_at(struct g2 *v, size_t i);

/* ---- debug entry points (cuda/debug.cu): device arithmetic on small arrays ---- */

typedef enum gpu_dbg_op {
    GPU_DBG_FR_MUL = 0, /* out = a * b (Montgomery) */
    GPU_DBG_FR_ADD,
    GPU_DBG_FR_SUB,
    GPU_DBG_FR_NEG,       /* out = -a */
    GPU_DBG_FR_FROM_MONT, /* out = canonical a */
    GPU_DBG_CC_PROBE,     /* the carry flag across kinds, word j of 8 (any words, b too): even j
                           * sub.cc a_j - b_j then addc 0 + 0; odd j add.cc a_j + b_j then
                           * subc 0 - 0 (the hardware: 1 iff a_j >= b_j; 0 iff a_j + b_j
                           * carries, else 2^32 - 1) */
    GPU_DBG_FP_MUL,
    GPU_DBG_FP_ADD,
    GPU_DBG_FP_SUB,
    GPU_DBG_FP_NEG,
    GPU_DBG_FP2_MUL,
    GPU_DBG_FP2_SQR, /* out = a^2 (b ignored) */
    GPU_DBG_FP2_ADD,
    GPU_DBG_FP2_SUB,
    GPU_DBG_OP_COUNT
} gpu_dbg_op;

/** out[i] = op(a[i], b[i]) for i < n on the device; elements are 4 (fr), 6 (fp) or 12 (fp2)
 *  limbs, fully reduced on input (but for GPU_DBG_CC_PROBE). */
CZ_MUST_USE cuzk_err gpu_debug_field(gpu_dev *dev, int op, uint64_t *out, const uint64_t *a,
                                     const uint64_t *b, size_t n, cz_diag *dg);

/** For each i < n, with P = p[i], Q = q[i] affine (identity allowed), four XYZZ results:
 *  out[4i+0] = 2P + Q (mixed addition onto the XYZZ doubling of P, so ZZ != 1; Q = 2P and
 *  Q = -2P reach the doubling and cancelling branches), out[4i+1] = 2P (XYZZ doubling),
 *  out[4i+2] = 2P + 2Q (general XYZZ addition), out[4i+3] = [k]P with k = (i * 2654435761)
 *  mod 2^20 (the small scalar multiplication the bucket reduction uses). */
CZ_MUST_USE cuzk_err gpu_debug_g1(gpu_dev *dev, uint64_t *out, const struct g1_aff *p,
                                  const struct g1_aff *q, size_t n, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_debug_g2(gpu_dev *dev, uint64_t *out, const struct g2_aff *p,
                                  const struct g2_aff *q, size_t n, cz_diag *dg);
/** Sets the NTT pass layout of `dev` (0 = default, 11 / 9 / 11): at most k0 stages in the
 *  pass over contiguous groups, k1 in the others, tiles of 2^tile_lg elements (3 <= k1 <= k0,
 *  k0 <= tile_lg <= 11), and the pass kernel built for min_blocks (1 or 2; 0 = 2) resident
 *  blocks per SM. Results never depend on it; tests shrink the layout to reach multi-pass
 *  transforms at small sizes, benchmarks compare. CUZK_E_INVAL outside those bounds. */
CZ_MUST_USE cuzk_err gpu_debug_ntt_layout(gpu_dev *dev, unsigned k0, unsigned k1, unsigned tile_lg,
                                          unsigned min_blocks, cz_diag *dg);

/** The NTT twiddles' layout on dev: 0 automatic (gpu_ntt_twiddle_bytes), 1 always one whole
 *  table, 2 always split (from 2^8); the current table is freed. Results never depend on it;
 *  tests reach both layouts at small sizes. CUZK_E_INVAL for another mode. */
CZ_MUST_USE cuzk_err gpu_debug_ntt_twiddles(gpu_dev *dev, int mode, cz_diag *dg);

/** Fixes the sorted entries one thread of the MSM accumulation sums (0 = automatic, 8 to 64
 *  by size; else GPU_MSM_CHUNK_MIN .. GPU_MSM_CHUNK_MAX, or CUZK_E_INVAL): fewer, longer chains
 *  leave fewer partial sums to combine. Results never depend on it; benchmarks compare, tests
 *  reach long chains over many buckets at small sizes. */
#define GPU_MSM_CHUNK_MIN 64
#define GPU_MSM_CHUNK_MAX 1024
CZ_MUST_USE cuzk_err gpu_debug_msm_chunk(gpu_dev *dev, unsigned chunk, cz_diag *dg);
/** Caps the windows an MSM sorts and accumulates together (0 = automatic: all that fit the
 *  scratch, at most GPU_MSM_GROUP_MAX, one at a time for the largest MSMs; else 1 ..
 *  GPU_MSM_GROUP_MAX, or CUZK_E_INVAL). Results never depend on it; tests reach the two-stream
 *  group pipeline of the large MSMs at small sizes. */
#define GPU_MSM_GROUP_MAX 64
CZ_MUST_USE cuzk_err gpu_debug_msm_group(gpu_dev *dev, unsigned max_windows, cz_diag *dg);
/** Sets the affine rounds of the MSM's window sums (0 .. GPU_MSM_AFF_ROUNDS_MAX, or
 *  GPU_MSM_AFF_ROUNDS_AUTO, the setting at start: none on G1; on G2 one from 2^24 scalars
 *  other than 0 and 1, two from 2^25, as measured on the H200; else CUZK_E_INVAL): before the XYZZ
 *  accumulation, each round adds the points of every bucket in pairs, in affine coordinates
 *  with batched inversions (msm.cuh), halving the runs. The rounds' points take a second
 *  scratch area: half a point (48 bytes on G1, 96 on G2) per scalar other than 0 and 1 for the
 *  first round, half that for the second. Results never depend on it; benchmarks compare,
 *  tests check every count. */
#define GPU_MSM_AFF_ROUNDS_MAX  8
#define GPU_MSM_AFF_ROUNDS_AUTO 0xffffffffu
CZ_MUST_USE cuzk_err gpu_debug_msm_aff_rounds(gpu_dev *dev, unsigned rounds, cz_diag *dg);

/** Phase timing of MSM calls, for benchmarks: when on, each MSM records device events and
 *  gpu_debug_profile_get returns the milliseconds of the last call per phase: classify (with the
 *  count read-back), sort (digits, histogram, scan, scatter; with several window groups only
 *  what the accumulation waits for, since the next group is sorted beside it), accumulate
 *  (bucket sums), reduce (window sums), ones, the copy back. */
#define GPU_PROF_PHASES 6
CZ_MUST_USE cuzk_err gpu_debug_profile(gpu_dev *dev, bool on, cz_diag *dg);
void gpu_debug_profile_get(gpu_dev *dev, float ms[GPU_PROF_PHASES]);

/** Ceilings of the device's arithmetic pipes, for benchmarks (bench_gpu gpu_ceiling_*): each
 *  of `threads` threads runs `iters` rounds on independent values, and *ms receives the
 *  kernel's device time. GPU_CEIL_FP_MUL: four Fp Montgomery products per round (x_j = x_j y,
 *  x_j starting at seed[j]: every thread ends with seed[j] y^iters); GPU_CEIL_DFMA:
 *  GPU_CEIL_DFMA_PER_ROUND double-precision fused multiply-adds per round on four chains
 *  (d = d * 0.5 + 1 from d = 0, 1, 2, 3: bit-exact, the same on the CPU with fma()); both in
 *  the same round with GPU_CEIL_FP_MUL | GPU_CEIL_DFMA (do the two pipes overlap?). When not
 *  NULL, out receives thread 0's four Fp values (seed and out: 24 limbs, y: 6) and *dsum the
 *  sum of its four chains. CUZK_E_INVAL for another kind or no threads. */
#define GPU_CEIL_FP_MUL         1
#define GPU_CEIL_DFMA           2
#define GPU_CEIL_DFMA_PER_ROUND 256
CZ_MUST_USE cuzk_err gpu_debug_ceiling(gpu_dev *dev, int kind, size_t threads, unsigned iters,
                                       const uint64_t *seed, const uint64_t *y, uint64_t *out,
                                       double *dsum, float *ms, cz_diag *dg);

/** Fault injection: the nth host-to-device copy of `dev` from now (1 = the next; 0 = none)
 *  fails with CUZK_E_GPU before it is queued, as a device that stops answering would; later
 *  copies run. Tests reach the engine's recovery from a device failure in the middle of a
 *  proof (a streamed chunk, an upload) without a faulty device. */
void gpu_debug_fail_h2d(gpu_dev *dev, unsigned long nth);

/** The small scalar gpu_debug_g1/g2 use for element i. */
#define GPU_DEBUG_SMALL_K(i) ((uint32_t)(((uint64_t)(i)*2654435761u) & 0xfffffu))

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_INTERNAL_H */
