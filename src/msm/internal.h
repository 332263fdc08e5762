/* internal.h - what msm_g1.c and msm_g2.c share: Booth digits, the choice of window and
 * accumulation method, the work split and the scratch layout. The group arithmetic itself is
 * one template, msm_impl.h, included once per group.
 */
#ifndef CUZK_MSM_INTERNAL_H
#define CUZK_MSM_INTERNAL_H

#include "msm/msm.h"

/* Classification chunks (pass over the inputs, which also sums the "ones"): at most this many,
 * and at least MSM_CHUNK_MIN terms each. */
#define MSM_MAX_CHUNKS      64
#define MSM_CHUNK_MIN       4096
/* Accumulators of a ones-sum chunk: term j goes to accumulator j mod MSM_ONES_K, so each batch of
 * MSM_ONES_K affine additions touches distinct accumulators and shares one inversion. */
#define MSM_ONES_K          512
/* Bucket ranges per window (one unit of parallel work each): at most this many, and at least
 * MSM_MIN_RANGE buckets each. */
#define MSM_MAX_RANGES      8
#define MSM_MIN_RANGE       512
/* Batch-affine: additions batched per inversion at most, with the scalar flush and with the
 * vector one (whose additions are cheaper, so that an inversion weighs more); the queue of
 * pending conflicts holds half as many. */
#define MSM_BATCH_MAX       512
#define MSM_BATCH_MAX_VEC   1024
/* Windows narrower than this many buckets are grouped, several per unit (units draw their
 * batches from all the buckets of their windows), as far as the parallel split allows. */
#define MSM_GROUP_BUCKETS   4096
/* Batch-affine pays off only with enough buckets to fill a batch without conflicts: the
 * automatic choice needs windows of at least MSM_BA_MIN_WINDOW bits, and a unit with fewer than
 * MSM_BA_MIN_BUCKETS bucket slots (tiny windows) adds directly in XYZZ. A narrow top window
 * spreads its terms over copies of its buckets instead (msm_impl.h). */
#define MSM_BA_MIN_WINDOW   9
#define MSM_BA_MIN_BUCKETS  256
/* The automatic choice batches from this many tail terms on; below, the whole MSM costs a few
 * hundred inversions' worth of work and XYZZ additions win. */
#define MSM_BA_MIN_TERMS    1024
/* Largest window the automatic choice takes (2^17 buckets per window). Measured at 2^22 terms on
 * 16 threads: windows 16, 18 and 20 within 5% of each other (16 best), while the scratch grows
 * fourfold per two bits. */
#define MSM_AUTO_MAX_WINDOW 18

/* Batches shorter than this stay on the scalar path (the vector flush's fixed cost, the
 * inversion of eight lane products, would dominate). */
#define MSM_VEC_MIN_BATCH   16
/* Bucket sums go to the vector kernel in eight segments of at least this many buckets. */
#define MSM_VEC_MIN_SEGMENT 16

/* Point reference in a batch: base index | MSM_PREF_NEG for -P. */
#define MSM_PREF_NEG 0x80000000u

/* Whether this build has the AVX-512 IFMA kernels (msm_vec_g1.c, msm_vec_g2.c); CMake defines
 * it for the module's files when the compiler takes -mavx512ifma. */
#ifndef MSM_HAVE_VEC
#    define MSM_HAVE_VEC 0
#endif

/* Bucket state bits (msm_impl.h's accumulator): the affine slot holds a point, the XYZZ
 * overflow slot holds a point. */
#define MSM_META_AFF 1u
#define MSM_META_OVF 2u

/* Points in XYZZ coordinates: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2, the identity iff ZZ = 0
 * (msm_xyzz.h). */
typedef struct msm_xyzz_g1 {
    fp_t x, y, zz, zzz;
} msm_xyzz_g1_t;
typedef struct msm_xyzz_g2 {
    fp2_t x, y, zz, zzz;
} msm_xyzz_g2_t;

/** True when the vector kernels are built and this CPU runs them (AVX-512 F and IFMA). */
bool msm_vec_available(void);

/** Batched affine additions on eight lanes (msm_vec_impl.h): for i < n, bucket aff[eb[i]] +=
 *  points[ep[i] & ~MSM_PREF_NEG], negated when ep[i] has MSM_PREF_NEG. The eb[i] are distinct
 *  and every bucket and base involved is a point (not the identity). Returns false, having
 *  written nothing but the work areas, when some bucket and its base share x (a doubling or a
 *  cancellation, left to the caller). work: msm_batch_work_bytes(n, sizeof coordinate) bytes,
 *  64-byte aligned. Call only when msm_vec_available(). */
bool msm_vec_flush_g1(g1_aff_t *aff, const g1_aff_t *points, const uint32_t *eb, const uint32_t *ep,
                      size_t n, void *work);
bool msm_vec_flush_g2(g2_aff_t *aff, const g2_aff_t *points, const uint32_t *eb, const uint32_t *ep,
                      size_t n, void *work);

/** Bucket sums of up to 8 segments at once (msm_vec_impl.h): for each lane l < nseg, over the
 *  buckets b in [b0[l], b0[l] + len[l]), each the sum of its affine slot aff[b] (if meta[b] has
 *  MSM_META_AFF) and its XYZZ slot ovf[b] (if MSM_META_OVF):
 *    R[l] = sum_b bucket_b,   T[l] = sum_b (b - b0[l] + 1) bucket_b   (T == NULL: R only).
 *  Call only when msm_vec_available(). */
void msm_vec_bucket_sums_g1(msm_xyzz_g1_t T[8], msm_xyzz_g1_t R[8], const g1_aff_t *aff,
                            const msm_xyzz_g1_t *ovf, const uint8_t *meta, const size_t b0[8],
                            const size_t len[8], unsigned nseg);
void msm_vec_bucket_sums_g2(msm_xyzz_g2_t T[8], msm_xyzz_g2_t R[8], const g2_aff_t *aff,
                            const msm_xyzz_g2_t *ovf, const uint8_t *meta, const size_t b0[8],
                            const size_t len[8], unsigned nseg);

/** For tests of the vector field arithmetic: for each of 8 lanes, out = a op b with op 0: add,
 *  1: sub, 2: mul, 3: sqr (of a), on Fp; inputs are 6-word values below 2p (the kernels' lazy
 *  range), the outputs canonical. False (nothing done) without the vector kernels. */
bool msm_vec_fp_apply(uint64_t out[8][6], const uint64_t a[8][6], const uint64_t b[8][6],
                      unsigned op);

/** Booth digit of window w (width c) of the scalar s < 2^255: with b(j) the bits of s and
 *  b(-1) = 0, d = b(wc-1) + sum_{j<c} 2^j b(wc+j) - 2^c b(wc+c-1), in [-2^(c-1), 2^(c-1)];
 *  s = sum_w d_w 2^(wc) over ceil(256/c) windows (the telescoping sum needs b(nwin*c-1) = 0). */
static inline int msm_digit(const fr_repr_t *s, unsigned w, unsigned c)
{
    size_t pos = (size_t)w * c;
    uint64_t v;
    if (pos == 0) {
        v = s->l[0] << 1;
    } else {
        size_t p = pos - 1, li = p / 64, sh = p % 64;
        v = li < FR_NLIMBS ? s->l[li] >> sh : 0;
        if (sh != 0 && li + 1 < FR_NLIMBS) {
            v |= s->l[li + 1] << (64 - sh);
        }
    }
    v &= ((uint64_t)2 << c) - 1;
    return (int)(v >> 1) + (int)(v & 1) - (int)(((v >> c) & 1) << c);
}

/** Number of windows of width c covering 256 bits. */
static inline unsigned msm_nwin(unsigned c)
{
    return (256 + c - 1) / c;
}

/** Buckets window w needs: 2^(c-1), or 2^t when only t < c scalar bits (< 2^255) reach it. */
static inline size_t msm_win_buckets(unsigned w, unsigned c)
{
    size_t full = (size_t)1 << (c - 1);
    size_t lo = (size_t)w * c;
    if (lo + c <= 255) {
        return full;
    }
    size_t t = 255 - lo; /* lo <= 255 because nwin = ceil(256 / c) */
    size_t top = (size_t)1 << t;
    return top < full ? top : full;
}

/** The method and window actually used for a tail of m terms. */
typedef struct msm_plan {
    unsigned c;
    bool batch_affine;
} msm_plan;

/** Whether a call with these options uses the vector kernels. */
bool msm_uses_vec(const msm_opts *opts);

/** The plan for a tail of m terms, with the cost model of the vector kernels or the scalar. */
msm_plan msm_plan_for(size_t m, const msm_opts *opts, bool vec);

/** Batch capacity of a batch-affine accumulator over nb buckets, for the scalar or the vector
 *  flush. */
size_t msm_batch_cap(size_t nb, bool vec);

/** Capacity of a unit's batch over `slots` bucket slots: msm_batch_cap, at most cap_limit. */
size_t msm_unit_cap(size_t slots, size_t cap_limit, bool vec);

/** Bytes of a unit's batch arrays of capacity cap (queue: cap / 2). */
size_t msm_unit_batch_bytes(size_t cap, size_t fe);

/** Where each part of the scratch lives, for n terms and window c. */
typedef struct msm_layout {
    unsigned c, nwin, kmax, nchunks_max;
    size_t nbw;        /* 2^(c-1): bucket slots reserved per window */
    size_t cap_limit;  /* no batch is larger: max(n, 4) */
    size_t batch_area; /* bytes of the units' batch arrays, one msm_unit_batch_bytes each */
    /* byte offsets from the start of the scratch */
    size_t tail_idx, tail_sc; /* n uint32_t, n fr_repr_t */
    size_t chunk_res;         /* nchunks_max XYZZ ones-sums */
    size_t work;              /* start of the region the two phases below share */
    size_t ones_stride;       /* phase 1: one ones-sum accumulator per chunk, from `work` */
    size_t unit_res;          /* phase 2: nwin * kmax XYZZ unit results, */
    size_t win_aff, win_ovf, win_meta, unit_batch; /* buckets per window, batches per unit */
    size_t total;
} msm_layout;

/** Sizes of one group's types (they decide the layout). */
typedef struct msm_sizes {
    size_t fe, aff, xyzz;
} msm_sizes;

void msm_layout_for(msm_layout *L, size_t n, unsigned c, const msm_sizes *sz);
size_t msm_scratch_bytes(size_t n, const msm_opts *opts, const msm_sizes *sz);

/** Number of classification chunks reserved for n terms. */
unsigned msm_nchunks_max(size_t n);

/** Bytes of one batch slot of `cap` entries and `qcap` queue entries. */
size_t msm_batch_bytes(size_t cap, size_t qcap, size_t fe);

/** Bytes of a batch's field-element work area for cap entries and coordinates of fe bytes:
 *  the scalar flush's prefix products and denominators (cap elements each, the second at
 *  msm_align64(cap * fe)), or the vector flush's two arrays of ceil(cap / 8) eight-lane
 *  vectors (52-bit limbs: 4/3 the bytes of fe per lane), whichever is larger; a multiple of 64. */
size_t msm_batch_work_bytes(size_t cap, size_t fe);

/** Rounds up to a multiple of 64. */
static inline size_t msm_align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

#endif /* CUZK_MSM_INTERNAL_H */
