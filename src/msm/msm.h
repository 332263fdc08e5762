/* msm.h - multi-scalar multiplication over G1 and G2 on the CPU (signed-digit Pippenger).
 * Representation: affine points in Montgomery form (identity = all-zero, as curve/ defines it);
 * scalars as fr_repr_t (canonical), or as the prover's fr_t assignment (Montgomery) with a
 * density bit-vector (spec groth16.md 4.6).
 * Memory: never allocates; the caller passes scratch sized by the matching _scratch_sizeof:
 * 36 bytes per term plus about 290 (G1) or 580 (G2) bytes per bucket of all windows, plus the
 * batches of the parallel units, e.g. for G1 57 MiB at 2^18 terms, 200 MiB at 2^20, 1.1 GiB at
 * 2^24 (the bases take 96 bytes a term).
 * Threads: reentrant; splits work over `pool` when non-NULL. Every thread count, window size,
 * accumulation method and field kernel gives the same group element (the Jacobian coordinates
 * may differ).
 * Timing: variable-time in the scalars.
 *
 * How: scalars 0 (and identity bases) are skipped; bases whose scalar is exactly 1 are summed
 * directly (spec groth16.md 5.5, "batch addition"); the remaining "tail" goes through Pippenger
 * with signed (Booth) digits: window c gives digits in [-2^(c-1), 2^(c-1)] and 2^(c-1)
 * buckets per window. Buckets accumulate either in XYZZ coordinates (mixed additions) or in
 * affine coordinates with batched inversions (Montgomery's trick across buckets); each window
 * is reduced by a running sum and the windows are combined by doublings.
 * On x86-64 CPUs with AVX-512 IFMA (msm_impl_name() says "avx512ifma") the batched affine
 * additions and the bucket sums run on eight lanes of 52-bit multiply-accumulate field
 * arithmetic, about 2.5x faster than the scalar kernels; msm_opts.no_simd turns them off.
 */
#ifndef CUZK_MSM_MSM_H
#define CUZK_MSM_MSM_H

#include "common/pool.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"

/** Largest Pippenger window accepted in msm_opts.window_bits. */
#define MSM_MAX_WINDOW_BITS 22

/** How buckets accumulate. */
typedef enum msm_accum {
    MSM_ACCUM_AUTO = 0,     /* chosen from the number of terms */
    MSM_ACCUM_XYZZ,         /* mixed additions into XYZZ buckets */
    MSM_ACCUM_BATCH_AFFINE, /* affine buckets, one field inversion per batch of additions */
} msm_accum;

/** Tuning knobs; a zeroed struct (or NULL) means "automatic". Results never depend on them. */
typedef struct msm_opts {
    unsigned window_bits; /* Pippenger window c, 1 .. MSM_MAX_WINDOW_BITS; 0 = automatic */
    msm_accum accum;      /* bucket accumulation method */
    bool no_split01;      /* true: scalars equal to 1 go through Pippenger like the others */
    bool no_simd;         /* true: never the AVX-512 IFMA kernels (tests compare both paths) */
} msm_opts;

/** Bytes of scratch msm_g1() needs for n terms; never 0. */
size_t msm_g1_scratch_sizeof(size_t n);

/** out = sum_{i<n} [scalars[i]] points[i].
 *  Out: out      the sum (Jacobian); the identity when n == 0.
 *  In:  points   n affine points, identity allowed (borrowed).
 *       scalars  n canonical scalars, each < 2^255 (every value < r is) (borrowed).
 *       scratch  msm_g1_scratch_sizeof(n) bytes, 64-byte aligned (borrowed).
 *       pool     worker pool, or NULL to run on the calling thread.
 *  n must be below 2^31. */
void msm_g1(g1_t *out, const g1_aff_t *points, const fr_repr_t *scalars, size_t n, void *scratch,
            cz_pool *pool);

/** Scratch for msm_g1_opts() / msm_g1_density() with these options (NULL = automatic) and n
 *  terms (for msm_g1_density: n = npoints); never 0. */
size_t msm_g1_scratch_sizeof_opts(size_t n, const msm_opts *opts);

/** msm_g1() with explicit options (NULL = automatic); scratch from
 *  msm_g1_scratch_sizeof_opts(n, opts). */
void msm_g1_opts(g1_t *out, const g1_aff_t *points, const fr_repr_t *scalars, size_t n,
                 void *scratch, cz_pool *pool, const msm_opts *opts);

/** Density-filtered MSM over a full assignment (spec groth16.md 4.6):
 *  out = sum over variables i < nvars whose density bit is 1, in increasing i, of
 *        [assignment[i]] points[k(i)], with k(i) = number of density bits set below i;
 *  density == NULL means every bit is 1 (then npoints == nvars).
 *  In: points      npoints affine points, identity allowed (borrowed).
 *      assignment  nvars scalars in Montgomery form (fr_t, as the prover holds them) (borrowed).
 *      density     ceil(nvars / 64) words; bit i is bit i % 64 of word i / 64; bits at and
 *                  above nvars are ignored; or NULL (borrowed). Its popcount must be npoints.
 *      scratch     msm_g1_scratch_sizeof_opts(npoints, opts) bytes, 64-byte aligned.
 *      opts        NULL = automatic.
 *  npoints must be below 2^31. */
void msm_g1_density(g1_t *out, const g1_aff_t *points, size_t npoints, const fr_t *assignment,
                    const uint64_t *density, size_t nvars, void *scratch, cz_pool *pool,
                    const msm_opts *opts);

/* G2: the same contracts with g2 types. */
size_t msm_g2_scratch_sizeof(size_t n);
void msm_g2(g2_t *out, const g2_aff_t *points, const fr_repr_t *scalars, size_t n, void *scratch,
            cz_pool *pool);
size_t msm_g2_scratch_sizeof_opts(size_t n, const msm_opts *opts);
void msm_g2_opts(g2_t *out, const g2_aff_t *points, const fr_repr_t *scalars, size_t n,
                 void *scratch, cz_pool *pool, const msm_opts *opts);
void msm_g2_density(g2_t *out, const g2_aff_t *points, size_t npoints, const fr_t *assignment,
                    const uint64_t *density, size_t nvars, void *scratch, cz_pool *pool,
                    const msm_opts *opts);

/** Field kernels the MSM uses on this CPU unless msm_opts.no_simd: "avx512ifma" (eight-lane
 *  batches of affine additions) or "scalar". */
const char *msm_impl_name(void);

/** Window size the automatic choice takes for a tail of m terms and the given accumulation
 *  (MSM_ACCUM_AUTO picks the method too); for benchmarks and tests. */
unsigned msm_auto_window_bits(size_t m, msm_accum accum);

#endif /* CUZK_MSM_MSM_H */
