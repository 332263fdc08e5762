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
/* Batch-affine: additions batched per inversion at most, and pending conflicts kept aside. */
#define MSM_BATCH_MAX       512
/* Batch-affine pays off only with enough buckets to fill a batch without conflicts: the
 * automatic choice needs windows of at least MSM_BA_MIN_WINDOW bits, and a unit with fewer than
 * MSM_BA_MIN_BUCKETS buckets (the top window, tiny windows) adds directly in XYZZ. */
#define MSM_BA_MIN_WINDOW   9
#define MSM_BA_MIN_BUCKETS  256
/* The automatic choice batches from this many tail terms on; below, the whole MSM costs a few
 * hundred inversions' worth of work and XYZZ additions win. */
#define MSM_BA_MIN_TERMS    1024
/* Largest window the automatic choice takes (2^17 buckets per window). Measured at 2^22 terms on
 * 16 threads: windows 16, 18 and 20 within 5% of each other (16 best), while the scratch grows
 * fourfold per two bits. */
#define MSM_AUTO_MAX_WINDOW 18

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

msm_plan msm_plan_for(size_t m, const msm_opts *opts);

/** Batch capacity of a batch-affine accumulator over nb buckets. */
size_t msm_batch_cap(size_t nb);

/** Where each part of the scratch lives, for n terms and window c. */
typedef struct msm_layout {
    unsigned c, nwin, kmax, nchunks_max;
    size_t nbw;        /* 2^(c-1): bucket slots reserved per window */
    size_t batch_cap;  /* per-unit batch capacity (entries) */
    size_t queue_cap;  /* per-unit conflict queue (entries) */
    size_t batch_size; /* bytes of one unit's batch arrays */
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

/** Rounds up to a multiple of 64. */
static inline size_t msm_align64(size_t x)
{
    return (x + 63) & ~(size_t)63;
}

#endif /* CUZK_MSM_INTERNAL_H */
