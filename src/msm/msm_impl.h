/* msm_impl.h - the MSM of one group; a template included once by msm_g1.c and once by
 * msm_g2.c. The includer defines:
 *   FE                        the coordinate field type (fp_t or fp2_t)
 *   FE_ADD FE_SUB FE_DBL FE_NEG FE_MUL FE_SQR FE_INV FE_EQ FE_IS_ZERO, FE_ONE (a const object)
 *   AFF, JAC                  affine and Jacobian point types (members x, y / x, y, z)
 *   AFF_IS_IDENTITY(p)        identity test of an affine point
 *   MSM_FN(suffix)            the public name, e.g. msm_g1##suffix
 *   XYZZ                      the group's XYZZ point type, msm_xyzz_g1_t or msm_xyzz_g2_t
 *   MSM_VEC_FLUSH, MSM_VEC_SUMS   the group's eight-lane kernels (msm_vec_flush_g1, ...)
 * Everything here is static except the five MSM_FN functions.
 *
 * Flow of one call (see msm.h for the method):
 *   1. chunks of the inputs, in parallel: skip zero scalars and identity bases, sum the bases
 *      whose scalar is 1 (one result per chunk), and compact the other terms ("tail": base index
 *      and canonical scalar) at the front of the chunk's own range of the tail arrays;
 *   2. choose window c and the accumulation method from the tail length m;
 *   3. units of (window, bucket range, chunk range), in parallel: scan the tail, add every term
 *      whose digit falls in the range into its bucket, reduce the buckets by a running sum;
 *   4. combine: Horner over windows (c doublings between them), plus the chunks' ones-sums.
 * The work split depends on the pool width, the result (as a group element) does not. With the
 * vector kernels (msm_uses_vec) the batches of affine additions and the bucket sums run eight at
 * a time (msm_vec_impl.h); anything they do not handle (a doubling or cancellation inside a
 * batch, a batch of fewer than MSM_VEC_MIN_BATCH) stays on the scalar code below.
 */

#include <string.h>

#include "msm/msm_xyzz.h"

static const msm_sizes group_sizes = {sizeof(FE), sizeof(AFF), sizeof(xyzz_t)};

/* ---- Bucket accumulator: affine buckets with batched inversions, XYZZ overflow. ----
 *
 * acc_add(b, P) adds P (or -P) into bucket b. An empty affine bucket takes P as is. Otherwise the
 * addition joins the current batch unless bucket b is already in it; then it waits in a small
 * queue (retried after the next flush), or when the queue is full it goes into the bucket's XYZZ
 * overflow slot with a mixed addition. A flush computes every batched denominator (x2 - x1, or
 * 2 y1 for a doubling), inverts their product once and walks back (Montgomery's trick). P = -B
 * empties the bucket. In direct mode every addition goes to the XYZZ slot (no batching).
 * A bucket's value is its affine point (if META_AFF) plus its XYZZ slot (if META_OVF). */

enum { META_AFF = MSM_META_AFF, META_OVF = MSM_META_OVF, META_BUSY = 4 };
enum { KIND_ADD, KIND_DBL, KIND_CANCEL };
#define PREF_NEG MSM_PREF_NEG /* point reference: base index | PREF_NEG for -P */

typedef struct acc {
    const AFF *points;
    AFF *aff;
    xyzz_t *ovf; /* NULL where conflicts cannot happen */
    uint8_t *meta;
    size_t nb;
    FE *prod;          /* prefix products of the batch's denominators */
    FE *den;           /* the denominators */
    uint32_t *eb, *ep; /* batch: bucket, point reference */
    uint8_t *ek;       /* batch: KIND_* */
    size_t cap, len;
    uint32_t *qb, *qp; /* conflict queue */
    size_t qcap, qlen;
    bool direct;
    bool vec; /* flush through MSM_VEC_FLUSH (msm_vec_available()) */
} acc_t;

/* Carves a batch slot of msm_batch_bytes(cap, qcap, sizeof(FE)) bytes. */
static void acc_carve_batch(acc_t *A, uint8_t *slot, size_t cap, size_t qcap)
{
    A->prod = (FE *)(void *)slot;
    A->den = (FE *)(void *)(slot + msm_align64(cap * sizeof(FE)));
    slot += msm_batch_work_bytes(cap, sizeof(FE));
    A->eb = (uint32_t *)(void *)slot;
    slot += msm_align64(cap * 4);
    A->ep = (uint32_t *)(void *)slot;
    slot += msm_align64(cap * 4);
    A->ek = slot;
    slot += msm_align64(cap);
    A->qb = (uint32_t *)(void *)slot;
    slot += msm_align64(qcap * 4);
    A->qp = (uint32_t *)(void *)slot;
    A->cap = cap;
    A->qcap = qcap;
    A->len = 0;
    A->qlen = 0;
}

static void acc_ovf_add(acc_t *A, uint32_t b, uint32_t pref)
{
    const AFF *p = &A->points[pref & ~PREF_NEG];
    bool neg = (pref & PREF_NEG) != 0;

    CZ_CHECK(A->ovf != NULL);
    if (A->meta[b] & META_OVF) {
        xyzz_madd(&A->ovf[b], p, neg);
    } else {
        xyzz_set_aff(&A->ovf[b], p, neg);
        A->meta[b] |= META_OVF;
    }
}

static void acc_flush(acc_t *A);

static inline void acc_add(acc_t *A, uint32_t b, uint32_t pref)
{
    if (A->direct) {
        acc_ovf_add(A, b, pref);
        return;
    }
    uint8_t m = A->meta[b];
    if (!(m & META_AFF)) {
        const AFF *p = &A->points[pref & ~PREF_NEG];
        A->aff[b].x = p->x;
        if (pref & PREF_NEG) {
            FE_NEG(&A->aff[b].y, &p->y);
        } else {
            A->aff[b].y = p->y;
        }
        A->meta[b] = m | META_AFF;
        return;
    }
    if (m & META_BUSY) {
        if (A->qlen < A->qcap) {
            A->qb[A->qlen] = b;
            A->qp[A->qlen] = pref;
            A->qlen++;
        } else {
            acc_ovf_add(A, b, pref);
        }
        return;
    }
    /* the flush reads both; fetch every cache line of them while the batch fills */
    const char *pa = (const char *)&A->aff[b];
    const char *pp = (const char *)&A->points[pref & ~PREF_NEG];
    for (size_t o = 0; o < sizeof(AFF); o += 64) {
        __builtin_prefetch(pa + o);
        __builtin_prefetch(pp + o);
    }
    __builtin_prefetch(pa + sizeof(AFF) - 1);
    __builtin_prefetch(pp + sizeof(AFF) - 1);
    A->meta[b] = m | META_BUSY;
    A->eb[A->len] = b;
    A->ep[A->len] = pref;
    A->len++;
    if (A->len == A->cap) {
        acc_flush(A);
    }
}

/* Ends a flush: the batch is empty again and the queue is retried; qcap < cap, so this cannot
 * flush again. */
static void acc_flush_done(acc_t *A)
{
    A->len = 0;
    size_t q = A->qlen;
    A->qlen = 0;
    for (size_t j = 0; j < q; j++) {
        acc_add(A, A->qb[j], A->qp[j]);
    }
}

static void acc_flush(acc_t *A)
{
    size_t n = A->len;
    FE y2, inv, li, lam, t;

    if (n == 0) {
        return;
    }
    if (A->vec && n >= MSM_VEC_MIN_BATCH &&
        MSM_VEC_FLUSH(A->aff, A->points, A->eb, A->ep, n, A->prod)) {
        for (size_t i = 0; i < n; i++) {
            A->meta[A->eb[i]] &= (uint8_t)~META_BUSY;
        }
        acc_flush_done(A);
        return;
    }
    /* forward: denominators and their prefix products */
    for (size_t i = 0; i < n; i++) {
        const AFF *b = &A->aff[A->eb[i]];
        const AFF *p = &A->points[A->ep[i] & ~PREF_NEG];
        FE *den = &A->den[i];
        uint8_t kind = KIND_ADD;
        FE_SUB(den, &p->x, &b->x); /* x2 - x1 */
        if (FE_IS_ZERO(den)) {
            if (A->ep[i] & PREF_NEG) {
                FE_NEG(&y2, &p->y);
            } else {
                y2 = p->y;
            }
            if (FE_EQ(&y2, &b->y) && !FE_IS_ZERO(&b->y)) {
                kind = KIND_DBL;
                FE_DBL(den, &b->y); /* 2 y1 */
            } else {
                kind = KIND_CANCEL; /* P = -B (or a 2-torsion doubling): the identity */
            }
        }
        A->ek[i] = kind;
        if (kind == KIND_CANCEL) {
            A->prod[i] = i ? A->prod[i - 1] : FE_ONE;
        } else if (i == 0) {
            A->prod[0] = *den;
        } else {
            FE_MUL(&A->prod[i], &A->prod[i - 1], den);
        }
    }
    FE_INV(&inv, &A->prod[n - 1]); /* a product of non-zero elements */
    /* backward: inv holds 1 / (den_0 ... den_i) at step i */
    for (size_t i = n; i-- > 0;) {
        uint32_t bi = A->eb[i];
        AFF *b = &A->aff[bi];
        const AFF *p = &A->points[A->ep[i] & ~PREF_NEG];
        uint8_t kind = A->ek[i];
        bool neg = false;
        if (kind == KIND_CANCEL) {
            A->meta[bi] &= (uint8_t) ~(META_AFF | META_BUSY);
            continue;
        }
        if (i > 0) {
            FE_MUL(&li, &inv, &A->prod[i - 1]); /* 1 / den_i */
            FE_MUL(&inv, &inv, &A->den[i]);
        } else {
            li = inv;
        }
        if (kind == KIND_ADD) {
            /* adding -P: lambda = (-y2 - y1) / den; use mu = -lambda = (y2 + y1) / den, which
             * gives x3 = mu^2 - x1 - x2 and y3 = mu (x3 - x1) - y1 */
            neg = (A->ep[i] & PREF_NEG) != 0;
            if (neg) {
                FE_ADD(&t, &p->y, &b->y);
            } else {
                FE_SUB(&t, &p->y, &b->y); /* y2 - y1 */
            }
            FE_MUL(&lam, &t, &li);
            FE_SQR(&t, &lam);
            FE_SUB(&t, &t, &b->x);
            FE_SUB(&t, &t, &p->x); /* x3 = lambda^2 - x1 - x2 */
        } else {
            FE_SQR(&t, &b->x);
            FE_DBL(&lam, &t);
            FE_ADD(&t, &t, &lam); /* 3 x1^2 */
            FE_MUL(&lam, &t, &li);
            FE_SQR(&t, &lam);
            FE_SUB(&t, &t, &b->x);
            FE_SUB(&t, &t, &b->x); /* x3 = lambda^2 - 2 x1 */
        }
        if (neg) {
            FE_SUB(&y2, &t, &b->x);
        } else {
            FE_SUB(&y2, &b->x, &t);
        }
        FE_MUL(&y2, &lam, &y2);
        FE_SUB(&b->y, &y2, &b->y); /* y3 = lambda (x1 - x3) - y1 */
        b->x = t;
        A->meta[bi] &= (uint8_t)~META_BUSY;
    }
    acc_flush_done(A);
}

/* Applies everything pending. */
static void acc_finish(acc_t *A)
{
    acc_flush(A);
    for (size_t j = 0; j < A->qlen; j++) {
        acc_ovf_add(A, A->qb[j], A->qp[j]);
    }
    A->qlen = 0;
    acc_flush(A);
}

/* T += [e] R: e additions, or double-and-add when that is shorter (long runs of empty buckets
 * in sparse windows). */
static void add_times(xyzz_t *T, const xyzz_t *R, size_t e)
{
    if (e == 0 || xyzz_is_inf(R)) {
        return;
    }
    if (e <= 8) {
        while (e-- > 0) {
            xyzz_add(T, R);
        }
        return;
    }
    xyzz_t t = *R;
    xyzz_mul_small(&t, e);
    xyzz_add(T, &t);
}

/* Over buckets [b0, b0 + nb): T = sum_b (b - b0 + 1) bucket_b and R = sum_b bucket_b (running
 * sum from the top bucket: after bucket b, R holds the buckets >= b and each is added into T
 * once per bucket at or below it). */
static void acc_running_sum(const acc_t *A, size_t b0, size_t nb, xyzz_t *T, xyzz_t *R)
{
    size_t empty = 0; /* buckets passed since the last non-empty one: T still owes [empty] R */

    xyzz_set_inf(T);
    xyzz_set_inf(R);
    for (size_t b = b0 + nb; b-- > b0;) {
        uint8_t m = A->meta[b];
        if (!(m & (META_AFF | META_OVF))) {
            empty++;
            continue;
        }
        add_times(T, R, empty);
        empty = 0;
        if (m & META_AFF) {
            xyzz_madd(R, &A->aff[b], false);
        }
        if (m & META_OVF) {
            xyzz_add(R, &A->ovf[b]);
        }
        xyzz_add(T, R);
    }
    add_times(T, R, empty);
}

/* R = sum of buckets [b0, b0 + nb); with the vector kernels in eight segments when nb is a
 * multiple of 8 and large enough. */
static void acc_plain_sum(const acc_t *A, size_t b0, size_t nb, xyzz_t *R)
{
    if (A->vec && nb % 8 == 0 && nb >= 8 * MSM_VEC_MIN_SEGMENT) {
        xyzz_t Rs[8];
        size_t s0[8], len[8];
        for (unsigned l = 0; l < 8; l++) {
            s0[l] = b0 + l * (nb / 8);
            len[l] = nb / 8;
        }
        MSM_VEC_SUMS(NULL, Rs, A->aff, A->ovf, A->meta, s0, len, 8);
        *R = Rs[0];
        for (unsigned l = 1; l < 8; l++) {
            xyzz_add(R, &Rs[l]);
        }
        return;
    }
    xyzz_set_inf(R);
    for (size_t b = b0; b < b0 + nb; b++) {
        uint8_t m = A->meta[b];
        if (m & META_AFF) {
            xyzz_madd(R, &A->aff[b], false);
        }
        if (m & META_OVF) {
            xyzz_add(R, &A->ovf[b]);
        }
    }
}

/* acc_running_sum over [b0, b0 + nb): with the vector kernels, the first 8 L buckets
 * (L = nb / 8) as eight segments of L at once, each giving T_l (weights 1 .. L from its own
 * start) and R_l, so that T = sum_l T_l + [L] sum_l l R_l, the last sum by a running sum over l;
 * the nb - 8 L buckets after them (a bucket range of a split window has any length) by the
 * running sum, their weights shifted by 8 L. */
static void acc_reduce(const acc_t *A, size_t b0, size_t nb, xyzz_t *T, xyzz_t *R)
{
    if (!A->vec || nb < 8 * MSM_VEC_MIN_SEGMENT) {
        acc_running_sum(A, b0, nb, T, R);
        return;
    }
    size_t L = nb / 8, s0[8], len[8];
    xyzz_t Ts[8], Rs[8], S, U;
    if (L * 8 != nb) {
        xyzz_t Tt, Rt;
        acc_reduce(A, b0, L * 8, T, R);
        acc_running_sum(A, b0 + L * 8, nb - L * 8, &Tt, &Rt);
        xyzz_add(T, &Tt);
        xyzz_add(R, &Rt);
        xyzz_mul_small(&Rt, L * 8);
        xyzz_add(T, &Rt); /* the tail's weights start at 8 L + 1 */
        return;
    }
    for (unsigned l = 0; l < 8; l++) {
        s0[l] = b0 + l * L;
        len[l] = L;
    }
    MSM_VEC_SUMS(Ts, Rs, A->aff, A->ovf, A->meta, s0, len, 8);
    xyzz_set_inf(&S);
    xyzz_set_inf(&U);
    for (unsigned l = 8; l-- > 1;) {
        xyzz_add(&S, &Rs[l]); /* S = sum_{j >= l} R_j */
        xyzz_add(&U, &S);     /* after the loop, U = sum_j j R_j */
    }
    xyzz_mul_small(&U, L);
    *T = U;
    *R = S;
    xyzz_add(R, &Rs[0]);
    for (unsigned l = 0; l < 8; l++) {
        xyzz_add(T, &Ts[l]);
    }
}

/* Like acc_reduce for a window whose bucket g has ncopy copies in slots [b0 + g ncopy,
 * b0 + (g + 1) ncopy): C_g = the sum of the copies (eight digits at a time with the vector
 * kernels), then the running sum over the C_g. */
static void acc_copy_reduce(const acc_t *A, size_t b0, size_t nb, size_t ncopy, xyzz_t *T,
                            xyzz_t *R)
{
    xyzz_t C[8];
    size_t s0[8], len[8];

    xyzz_set_inf(T);
    xyzz_set_inf(R);
    for (size_t g = nb; g > 0;) {
        unsigned k = g < 8 ? (unsigned)g : 8u;
        g -= k;
        if (A->vec && ncopy >= MSM_VEC_MIN_SEGMENT) {
            for (unsigned l = 0; l < k; l++) {
                s0[l] = b0 + (g + l) * ncopy;
                len[l] = ncopy;
            }
            MSM_VEC_SUMS(NULL, C, A->aff, A->ovf, A->meta, s0, len, k);
        } else {
            for (unsigned l = 0; l < k; l++) {
                acc_plain_sum(A, b0 + (g + l) * ncopy, ncopy, &C[l]);
            }
        }
        for (unsigned l = k; l-- > 0;) {
            xyzz_add(R, &C[l]);
            xyzz_add(T, R);
        }
    }
}

/* ---- One MSM call. ---- */

/* A unit adds the tail terms of chunks [ch0, ch1) whose digit in window w falls in buckets
 * [g0, g1) (bucket g holds digit magnitude g + 1), into bucket slots starting at `slot` of the
 * window's region; its result is piece `piece` of window w. Windows with few buckets (the top
 * one) split by chunks instead of buckets, each piece in its own slots; its terms are spread over
 * ncopy copies of each bucket (digit g + 1 of term j in slot g ncopy + j mod ncopy). A unit of
 * nw > 1 windows w .. w + nw - 1 takes every term and bucket of each (g0 = 0, slot = 0): their
 * regions are contiguous, so its batches draw on nw times more buckets. */
typedef struct unit {
    unsigned w, nw, ch0, ch1, piece;
    uint32_t g0, g1, slot, ncopy;
} unit_t;

#define MAX_UNITS 256 /* nwin * kmax <= 256 for every c (c = 1: 256 windows, 1 range) */

typedef struct job {
    const AFF *points;
    size_t npoints;
    const fr_repr_t *repr;   /* canonical scalars, or */
    const fr_t *mont;        /* Montgomery scalars (assignment) */
    const uint64_t *density; /* NULL: dense */
    size_t nvars;
    bool split01;

    uint8_t *scratch;
    msm_layout L;
    uint32_t *tail_idx;
    fr_repr_t *tail_sc;
    xyzz_t *chunk_res;

    unsigned nch;
    size_t vpc; /* variables per chunk */
    size_t ch_k0[MSM_MAX_CHUNKS], ch_npts[MSM_MAX_CHUNKS], ch_tail[MSM_MAX_CHUNKS];

    msm_plan plan;
    bool ba_forced; /* MSM_ACCUM_BATCH_AFFINE asked for: batch even tiny bucket sets (tests) */
    bool vec;       /* batches go through the vector kernels */
    unsigned nunits;
    unit_t units[MAX_UNITS];
    xyzz_t *unit_res;            /* piece p of window w at w * kmax + p */
    size_t unit_off[MAX_UNITS];  /* byte offset of each unit's batch arrays in unit_batch */
    unsigned npieces[MAX_UNITS]; /* per window (nwin <= MAX_UNITS) */
} job_t;

enum { SC_ZERO, SC_ONE, SC_OTHER };

/* Classifies variable v's scalar; for SC_OTHER (and SC_ONE) writes its canonical form. */
static inline int job_scalar(const job_t *J, size_t v, fr_repr_t *out)
{
    if (J->repr) {
        const fr_repr_t *s = &J->repr[v];
        uint64_t hi = s->l[1] | s->l[2] | s->l[3];
        if (hi == 0 && s->l[0] <= 1) {
            if (s->l[0] == 0) {
                return SC_ZERO;
            }
            *out = *s;
            return SC_ONE;
        }
        *out = *s;
        return SC_OTHER;
    }
    const fr_t *s = &J->mont[v];
    if ((s->l[0] | s->l[1] | s->l[2] | s->l[3]) == 0) {
        return SC_ZERO;
    }
    if (memcmp(s, &FR_ONE, sizeof(*s)) == 0) {
        *out = (fr_repr_t){{1, 0, 0, 0}};
        return SC_ONE;
    }
    fr_to_repr(out, s);
    return SC_OTHER;
}

typedef struct chunk_state {
    acc_t ones;
    uint32_t slot;
    size_t k, t; /* next base index, next tail position */
} chunk_state_t;

static inline void chunk_term(const job_t *J, chunk_state_t *S, size_t v)
{
    fr_repr_t s;
    size_t k = S->k++;
    int cls = job_scalar(J, v, &s);

    if (cls == SC_ZERO || AFF_IS_IDENTITY(&J->points[k])) {
        return;
    }
    if (cls == SC_ONE && J->split01) {
        acc_add(&S->ones, S->slot, (uint32_t)k);
        if (++S->slot == MSM_ONES_K) {
            S->slot = 0;
            acc_flush(&S->ones); /* keeps every batch on distinct accumulators */
        }
        return;
    }
    CZ_CHECK((s.l[3] >> 63) == 0); /* scalars must be below 2^255 */
    J->tail_idx[S->t] = (uint32_t)k;
    J->tail_sc[S->t] = s;
    S->t++;
}

static void do_chunk(job_t *J, unsigned ch)
{
    size_t v0 = (size_t)ch * J->vpc;
    size_t v1 = v0 + J->vpc < J->nvars ? v0 + J->vpc : J->nvars;
    chunk_state_t S;
    uint8_t *ones = J->scratch + J->L.work + (size_t)ch * J->L.ones_stride;

    memset(&S.ones, 0, sizeof(S.ones));
    S.ones.points = J->points;
    S.ones.aff = (AFF *)(void *)ones;
    ones += msm_align64(MSM_ONES_K * sizeof(AFF));
    S.ones.meta = ones;
    ones += msm_align64(MSM_ONES_K);
    S.ones.nb = MSM_ONES_K;
    S.ones.ovf = NULL;
    S.ones.vec = J->vec;
    acc_carve_batch(&S.ones, ones, MSM_ONES_K, 0);
    memset(S.ones.meta, 0, MSM_ONES_K);
    S.slot = 0;
    S.k = J->ch_k0[ch];
    S.t = S.k;

    if (!J->density) {
        for (size_t v = v0; v < v1; v++) {
            chunk_term(J, &S, v);
        }
    } else {
        /* v0 is a multiple of 64 */
        for (size_t wi = v0 / 64; wi * 64 < v1; wi++) {
            uint64_t bits = J->density[wi];
            size_t left = v1 - wi * 64;
            if (left < 64) {
                bits &= ((uint64_t)1 << left) - 1;
            }
            while (bits) {
                chunk_term(J, &S, wi * 64 + (size_t)__builtin_ctzll(bits));
                bits &= bits - 1;
            }
        }
    }
    CZ_CHECK(S.k - J->ch_k0[ch] == J->ch_npts[ch]);
    J->ch_tail[ch] = S.t - J->ch_k0[ch];
    acc_finish(&S.ones);
    acc_plain_sum(&S.ones, 0, S.ones.nb, &J->chunk_res[ch]);
}

static void chunk_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    for (size_t ch = begin; ch < end; ch++) {
        do_chunk(ctx, (unsigned)ch);
    }
}

/* Bucket slots of a unit (see unit_t). */
static size_t unit_slots(const msm_layout *L, const unit_t *U)
{
    return U->nw > 1 ? U->nw * L->nbw : (size_t)(U->g1 - U->g0) * U->ncopy;
}

/* Copies of each bucket that a window of nb buckets spreads its terms over, with `slots` bucket
 * slots to itself: 1 for a full window; a small one (the top window) with batch-affine buckets
 * takes every slot, so that its batches do not keep meeting the same few buckets. */
static size_t window_copies(const job_t *J, size_t nb, size_t slots)
{
    size_t k = 1;
    if (J->plan.batch_affine) {
        while (2 * k * nb <= slots) {
            k *= 2;
        }
    }
    return k;
}

static void do_unit(job_t *J, unsigned u)
{
    const unit_t *U = &J->units[u];
    const msm_layout *L = &J->L;
    unsigned c = L->c, w = U->w;
    size_t first = (size_t)w * L->nbw + U->slot;
    size_t total; /* bucket slots of the unit */
    acc_t A;
    xyzz_t T, R;
    struct {
        size_t base, g0, nb, ncopy; /* slots [base, base + nb ncopy) hold digits g0 + 1 .. */
    } win[MAX_UNITS];

    if (U->nw > 1) {
        for (unsigned i = 0; i < U->nw; i++) {
            win[i].base = i * L->nbw;
            win[i].g0 = 0;
            win[i].nb = msm_win_buckets(w + i, c);
            win[i].ncopy = window_copies(J, win[i].nb, L->nbw);
        }
    } else {
        win[0].base = 0;
        win[0].g0 = U->g0;
        win[0].nb = U->g1 - U->g0;
        win[0].ncopy = U->ncopy;
    }
    total = unit_slots(L, U);
    memset(&A, 0, sizeof(A));
    A.points = J->points;
    A.aff = (AFF *)(void *)(J->scratch + L->win_aff) + first;
    A.ovf = (xyzz_t *)(void *)(J->scratch + L->win_ovf) + first;
    A.meta = J->scratch + L->win_meta + first;
    A.nb = total;
    /* a batch needs distinct buckets: with few of them it cannot fill, so add directly */
    size_t cap = msm_unit_cap(total, L->cap_limit, J->vec);
    A.direct = !J->plan.batch_affine || (!J->ba_forced && total < MSM_BA_MIN_BUCKETS);
    A.vec = J->vec;
    acc_carve_batch(&A, J->scratch + L->unit_batch + J->unit_off[u], cap, cap / 2);
    memset(A.meta, 0, total);

    for (unsigned ch = U->ch0; ch < U->ch1; ch++) {
        size_t j0 = J->ch_k0[ch], j1 = j0 + J->ch_tail[ch];
        for (size_t j = j0; j < j1; j++) {
            const fr_repr_t *s = &J->tail_sc[j];
            uint32_t idx = J->tail_idx[j];
            for (unsigned i = 0; i < U->nw; i++) {
                int d = msm_digit(s, w + i, c);
                if (d == 0) {
                    continue;
                }
                size_t g = (size_t)(d < 0 ? -d : d) - 1 - win[i].g0; /* wraps below the range */
                if (g >= win[i].nb) {
                    continue;
                }
                /* copies of a digit's bucket take consecutive terms in turn */
                size_t slot = win[i].base + g * win[i].ncopy + (j & (win[i].ncopy - 1));
                acc_add(&A, (uint32_t)slot, idx | (d < 0 ? PREF_NEG : 0));
            }
        }
    }
    acc_finish(&A);
    for (unsigned i = 0; i < U->nw; i++) {
        if (win[i].ncopy > 1) {
            acc_copy_reduce(&A, win[i].base, win[i].nb, win[i].ncopy, &T, &R);
        } else {
            acc_reduce(&A, win[i].base, win[i].nb, &T, &R);
        }
        /* sum_{g in [g0, g1)} (g + 1) B_g = sum (g - g0 + 1) B_g + g0 sum B_g = T + [g0] R */
        if (win[i].g0 > 0) {
            xyzz_mul_small(&R, win[i].g0);
            xyzz_add(&T, &R);
        }
        J->unit_res[(size_t)(w + i) * L->kmax + U->piece] = T;
    }
}

/* Splits window w into at most k units: by bucket ranges of at least MSM_MIN_RANGE buckets,
 * then, where that gives fewer than k, by chunk ranges with separate bucket slots (each piece
 * of a small window spreads its terms over copies of its buckets in its share of the slots). */
static void plan_window(job_t *J, unsigned w, unsigned k)
{
    const msm_layout *L = &J->L;
    size_t nbw = msm_win_buckets(w, L->c);
    size_t kw = nbw / MSM_MIN_RANGE;
    kw = kw < k ? kw : k;
    kw = kw ? kw : 1;
    size_t pw = k / kw;
    size_t copies = L->nbw / nbw; /* bucket slots available for separate pieces */
    pw = pw < copies ? pw : copies;
    pw = pw < J->nch ? pw : J->nch;
    pw = pw ? pw : 1;
    J->npieces[w] = (unsigned)(pw * kw);
    CZ_CHECK(pw * kw <= L->kmax);
    size_t ncopy = kw == 1 ? window_copies(J, nbw, L->nbw / pw) : 1;
    for (size_t p = 0; p < pw; p++) {
        for (size_t r = 0; r < kw; r++) {
            CZ_CHECK(J->nunits < MAX_UNITS && J->nunits < L->nwin * L->kmax);
            unit_t *U = &J->units[J->nunits];
            U->piece = (unsigned)(p * kw + r);
            J->nunits++;
            U->w = w;
            U->nw = 1;
            U->ch0 = (unsigned)(J->nch * p / pw);
            U->ch1 = (unsigned)(J->nch * (p + 1) / pw);
            U->g0 = (uint32_t)(nbw * r / kw);
            U->g1 = (uint32_t)(nbw * (r + 1) / kw);
            U->ncopy = (uint32_t)ncopy;
            U->slot = (uint32_t)(p * nbw * ncopy + U->g0);
        }
    }
}

/* Windows per unit: enough for MSM_GROUP_BUCKETS bucket slots per batch-affine unit, while
 * leaving at least three units per worker (1 = one window per unit, split by plan_window). */
static unsigned group_size(const msm_layout *L, bool batch_affine, unsigned width)
{
    if (!batch_affine || L->nbw >= MSM_GROUP_BUCKETS) {
        return 1;
    }
    size_t gs = MSM_GROUP_BUCKETS / L->nbw;
    size_t lim = L->nwin / (3 * (size_t)width);
    gs = gs < lim ? gs : lim;
    return gs > 1 ? (unsigned)gs : 1u;
}

static void unit_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    for (size_t u = begin; u < end; u++) {
        do_unit(ctx, (unsigned)u);
    }
}

static void msm_run(JAC *out, job_t *J, void *scratch, cz_pool *pool, const msm_opts *opts)
{
    unsigned width = cz_pool_width(pool);
    size_t bound = msm_scratch_bytes(J->npoints, opts, &group_sizes);
    xyzz_t acc;

    CZ_CHECK(out != NULL && scratch != NULL);
    CZ_CHECK(((uintptr_t)scratch & 63) == 0);
    CZ_CHECK(J->npoints < ((size_t)1 << 31));
    J->scratch = scratch;
    J->split01 = !(opts && opts->no_split01);
    J->ba_forced = opts && opts->accum == MSM_ACCUM_BATCH_AFFINE;
    J->vec = msm_uses_vec(opts);

    /* 1. chunks; the layout for c = 1 gives the offsets that do not depend on c */
    msm_layout_for(&J->L, J->npoints, 1, &group_sizes);
    J->tail_idx = (uint32_t *)(void *)(J->scratch + J->L.tail_idx);
    J->tail_sc = (fr_repr_t *)(void *)(J->scratch + J->L.tail_sc);
    J->chunk_res = (xyzz_t *)(void *)(J->scratch + J->L.chunk_res);
    unsigned nch = width == 1 ? 1 : 3 * width;
    if (nch > J->L.nchunks_max) {
        nch = J->L.nchunks_max;
    }
    J->vpc = (J->nvars + nch - 1) / nch;
    if (J->density) {
        J->vpc = (J->vpc + 63) & ~(size_t)63;
    }
    if (J->vpc == 0) {
        J->vpc = 1;
    }
    J->nch = (unsigned)((J->nvars + J->vpc - 1) / J->vpc);
    size_t k0 = 0;
    for (unsigned ch = 0; ch < J->nch; ch++) {
        size_t v0 = (size_t)ch * J->vpc;
        size_t v1 = v0 + J->vpc < J->nvars ? v0 + J->vpc : J->nvars;
        size_t cnt = v1 - v0;
        if (J->density) {
            cnt = 0;
            for (size_t wi = v0 / 64; wi * 64 < v1; wi++) {
                uint64_t bits = J->density[wi];
                size_t left = v1 - wi * 64;
                if (left < 64) {
                    bits &= ((uint64_t)1 << left) - 1;
                }
                cnt += (size_t)__builtin_popcountll(bits);
            }
        }
        J->ch_k0[ch] = k0;
        J->ch_npts[ch] = cnt;
        k0 += cnt;
    }
    CZ_CHECK(k0 == J->npoints); /* density popcount == npoints */
    cz_pool_for(pool, J->nch, 1, chunk_task, J);

    /* 2. plan */
    size_t m = 0;
    for (unsigned ch = 0; ch < J->nch; ch++) {
        m += J->ch_tail[ch];
    }
    xyzz_set_inf(&acc);
    if (m > 0) {
        J->plan = msm_plan_for(m, opts, J->vec);
        msm_layout_for(&J->L, J->npoints, J->plan.c, &group_sizes);
        CZ_CHECK(J->L.total <= bound);
        const msm_layout *L = &J->L;
        /* about four units per worker, so that dynamic scheduling evens out their sizes */
        unsigned k = 1;
        if (width > 1) {
            k = (4 * width + L->nwin - 1) / L->nwin;
            k = k < L->kmax ? k : L->kmax;
        }
        J->unit_res = (xyzz_t *)(void *)(J->scratch + L->unit_res);
        J->nunits = 0;
        unsigned gs = group_size(L, J->plan.batch_affine, width);
        unsigned step = gs > 1 ? gs : 1;
        for (unsigned w = 0; w < L->nwin; w += step) {
            if (gs > 1) {
                unit_t *U = &J->units[J->nunits++];
                memset(U, 0, sizeof(*U));
                U->w = w;
                U->nw = L->nwin - w < gs ? L->nwin - w : gs;
                U->ch1 = J->nch;
                U->g1 = (uint32_t)L->nbw;
                U->ncopy = 1; /* per window, see do_unit */
                for (unsigned i = 0; i < U->nw; i++) {
                    J->npieces[w + i] = 1;
                }
            } else {
                plan_window(J, w, k);
            }
        }

        /* batch arrays: each unit's, packed (msm_layout_for bounds their sum) */
        size_t off = 0;
        for (unsigned u = 0; u < J->nunits; u++) {
            J->unit_off[u] = off;
            size_t cap = msm_unit_cap(unit_slots(L, &J->units[u]), L->cap_limit, J->vec);
            off += msm_unit_batch_bytes(cap, sizeof(FE));
        }
        CZ_CHECK(off <= L->batch_area);

        /* 3. units */
        cz_pool_for(pool, J->nunits, 1, unit_task, J);

        /* 4. windows, top first: acc = 2^c acc + W_w */
        for (unsigned w = L->nwin; w-- > 0;) {
            for (unsigned i = 0; i < L->c; i++) {
                xyzz_dbl(&acc);
            }
            for (unsigned p = 0; p < J->npieces[w]; p++) {
                xyzz_add(&acc, &J->unit_res[(size_t)w * L->kmax + p]);
            }
        }
    }
    for (unsigned ch = 0; ch < J->nch; ch++) {
        xyzz_add(&acc, &J->chunk_res[ch]);
    }
    xyzz_to_jac(out, &acc);
}

/* ---- Public entry points. ---- */

size_t MSM_FN(_scratch_sizeof)(size_t n)
{
    return msm_scratch_bytes(n, NULL, &group_sizes);
}

size_t MSM_FN(_scratch_sizeof_opts)(size_t n, const msm_opts *opts)
{
    return msm_scratch_bytes(n, opts, &group_sizes);
}

void MSM_FN(_opts)(JAC *out, const AFF *points, const fr_repr_t *scalars, size_t n, void *scratch,
                   cz_pool *pool, const msm_opts *opts)
{
    job_t J;

    memset(&J, 0, sizeof(J));
    J.points = points;
    J.npoints = n;
    J.repr = scalars;
    J.nvars = n;
    msm_run(out, &J, scratch, pool, opts);
}

void MSM_FN()(JAC *out, const AFF *points, const fr_repr_t *scalars, size_t n, void *scratch,
              cz_pool *pool)
{
    MSM_FN(_opts)(out, points, scalars, n, scratch, pool, NULL);
}

void MSM_FN(_density)(JAC *out, const AFF *points, size_t npoints, const fr_t *assignment,
                      const uint64_t *density, size_t nvars, void *scratch, cz_pool *pool,
                      const msm_opts *opts)
{
    job_t J;

    CZ_CHECK(density != NULL || npoints == nvars);
    memset(&J, 0, sizeof(J));
    J.points = points;
    J.npoints = npoints;
    J.mont = assignment;
    J.density = density;
    J.nvars = nvars;
    msm_run(out, &J, scratch, pool, opts);
}
