/* msm_impl.h - the MSM of one group; a template included once by msm_g1.c and once by
 * msm_g2.c. The includer defines:
 *   FE                        the coordinate field type (fp_t or fp2_t)
 *   FE_ADD FE_SUB FE_DBL FE_NEG FE_MUL FE_SQR FE_INV FE_EQ FE_IS_ZERO, FE_ONE (a const object)
 *   AFF, JAC                  affine and Jacobian point types (members x, y / x, y, z)
 *   AFF_IS_IDENTITY(p)        identity test of an affine point
 *   MSM_FN(suffix)            the public name, e.g. msm_g1##suffix
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
 * The work split depends on the pool width, the result (as a group element) does not.
 */

#include <string.h>

/* ---- XYZZ coordinates: x = X/ZZ, y = Y/ZZZ, ZZ^3 = ZZZ^2; identity iff ZZ = 0. ---- */

typedef struct xyzz {
    FE x, y, zz, zzz;
} xyzz_t;

static const msm_sizes group_sizes = {sizeof(FE), sizeof(AFF), sizeof(xyzz_t)};

static inline bool xyzz_is_inf(const xyzz_t *p)
{
    return FE_IS_ZERO(&p->zz);
}

static inline void xyzz_set_inf(xyzz_t *p)
{
    memset(p, 0, sizeof(*p));
}

static inline void xyzz_set_aff(xyzz_t *p, const AFF *a, bool neg)
{
    p->x = a->x;
    if (neg) {
        FE_NEG(&p->y, &a->y);
    } else {
        p->y = a->y;
    }
    p->zz = FE_ONE;
    p->zzz = FE_ONE;
}

/* p = [2](x, y) for an affine point (EFD mdbl-2008-s-1, a = 0). y = 0 gives the identity. */
static void xyzz_set_dbl_aff(xyzz_t *p, const FE *x, const FE *y)
{
    FE u, v, w, s, m, t;

    FE_DBL(&u, y);      /* U = 2 Y1 */
    FE_SQR(&v, &u);     /* V = U^2 */
    FE_MUL(&w, &u, &v); /* W = U V */
    FE_MUL(&s, x, &v);  /* S = X1 V */
    FE_SQR(&m, x);
    FE_DBL(&t, &m);
    FE_ADD(&m, &m, &t); /* M = 3 X1^2 */
    FE_SQR(&t, &m);
    FE_SUB(&t, &t, &s);
    FE_SUB(&t, &t, &s); /* X3 = M^2 - 2 S */
    FE_SUB(&s, &s, &t);
    FE_MUL(&s, &m, &s); /* M (S - X3) */
    FE_MUL(&u, &w, y);
    FE_SUB(&p->y, &s, &u); /* Y3 = M (S - X3) - W Y1 */
    p->x = t;
    p->zz = v;  /* ZZ3 = V */
    p->zzz = w; /* ZZZ3 = W */
}

/* p = [2]p (EFD dbl-2008-s-1, a = 0). */
static void xyzz_dbl(xyzz_t *p)
{
    FE u, v, w, s, m, t;

    if (xyzz_is_inf(p)) {
        return;
    }
    FE_DBL(&u, &p->y);     /* U = 2 Y1 */
    FE_SQR(&v, &u);        /* V = U^2 */
    FE_MUL(&w, &u, &v);    /* W = U V */
    FE_MUL(&s, &p->x, &v); /* S = X1 V */
    FE_SQR(&m, &p->x);
    FE_DBL(&t, &m);
    FE_ADD(&m, &m, &t); /* M = 3 X1^2 */
    FE_SQR(&t, &m);
    FE_SUB(&t, &t, &s);
    FE_SUB(&t, &t, &s); /* X3 = M^2 - 2 S */
    FE_SUB(&s, &s, &t);
    FE_MUL(&s, &m, &s); /* M (S - X3) */
    FE_MUL(&u, &w, &p->y);
    FE_SUB(&p->y, &s, &u); /* Y3 = M (S - X3) - W Y1 */
    p->x = t;
    FE_MUL(&p->zz, &p->zz, &v);   /* ZZ3 = V ZZ1 */
    FE_MUL(&p->zzz, &p->zzz, &w); /* ZZZ3 = W ZZZ1 */
}

/* p += (x2, neg ? -y : y) for a non-identity affine point (EFD madd-2008-s). */
static void xyzz_madd(xyzz_t *p, const AFF *a, bool neg)
{
    FE y2, u2, s2, pp, ppp, q, r, t;

    if (neg) {
        FE_NEG(&y2, &a->y);
    } else {
        y2 = a->y;
    }
    if (xyzz_is_inf(p)) {
        p->x = a->x;
        p->y = y2;
        p->zz = FE_ONE;
        p->zzz = FE_ONE;
        return;
    }
    FE_MUL(&u2, &a->x, &p->zz); /* U2 = X2 ZZ1 */
    FE_MUL(&s2, &y2, &p->zzz);  /* S2 = Y2 ZZZ1 */
    FE_SUB(&u2, &u2, &p->x);    /* P = U2 - X1 */
    FE_SUB(&r, &s2, &p->y);     /* R = S2 - Y1 */
    if (FE_IS_ZERO(&u2)) {
        if (FE_IS_ZERO(&r)) {
            xyzz_set_dbl_aff(p, &a->x, &y2);
        } else {
            xyzz_set_inf(p);
        }
        return;
    }
    FE_SQR(&pp, &u2);       /* PP = P^2 */
    FE_MUL(&ppp, &u2, &pp); /* PPP = P PP */
    FE_MUL(&q, &p->x, &pp); /* Q = X1 PP */
    FE_SQR(&t, &r);
    FE_SUB(&t, &t, &ppp);
    FE_SUB(&t, &t, &q);
    FE_SUB(&t, &t, &q); /* X3 = R^2 - PPP - 2 Q */
    FE_SUB(&q, &q, &t);
    FE_MUL(&q, &r, &q); /* R (Q - X3) */
    FE_MUL(&s2, &p->y, &ppp);
    FE_SUB(&p->y, &q, &s2); /* Y3 = R (Q - X3) - Y1 PPP */
    p->x = t;
    FE_MUL(&p->zz, &p->zz, &pp);    /* ZZ3 = ZZ1 PP */
    FE_MUL(&p->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 PPP */
}

/* p += q (EFD add-2008-s). */
static void xyzz_add(xyzz_t *p, const xyzz_t *q)
{
    FE u1, u2, s1, s2, pp, ppp, qq, r, t;

    if (xyzz_is_inf(q)) {
        return;
    }
    if (xyzz_is_inf(p)) {
        *p = *q;
        return;
    }
    FE_MUL(&u1, &p->x, &q->zz);  /* U1 = X1 ZZ2 */
    FE_MUL(&u2, &q->x, &p->zz);  /* U2 = X2 ZZ1 */
    FE_MUL(&s1, &p->y, &q->zzz); /* S1 = Y1 ZZZ2 */
    FE_MUL(&s2, &q->y, &p->zzz); /* S2 = Y2 ZZZ1 */
    FE_SUB(&u2, &u2, &u1);       /* P = U2 - U1 */
    FE_SUB(&r, &s2, &s1);        /* R = S2 - S1 */
    if (FE_IS_ZERO(&u2)) {
        if (FE_IS_ZERO(&r)) {
            xyzz_dbl(p);
        } else {
            xyzz_set_inf(p);
        }
        return;
    }
    FE_SQR(&pp, &u2);       /* PP = P^2 */
    FE_MUL(&ppp, &u2, &pp); /* PPP = P PP */
    FE_MUL(&qq, &u1, &pp);  /* Q = U1 PP */
    FE_SQR(&t, &r);
    FE_SUB(&t, &t, &ppp);
    FE_SUB(&t, &t, &qq);
    FE_SUB(&t, &t, &qq); /* X3 = R^2 - PPP - 2 Q */
    FE_SUB(&qq, &qq, &t);
    FE_MUL(&qq, &r, &qq); /* R (Q - X3) */
    FE_MUL(&s1, &s1, &ppp);
    FE_SUB(&p->y, &qq, &s1); /* Y3 = R (Q - X3) - S1 PPP */
    p->x = t;
    FE_MUL(&p->zz, &p->zz, &q->zz);
    FE_MUL(&p->zz, &p->zz, &pp); /* ZZ3 = ZZ1 ZZ2 PP */
    FE_MUL(&p->zzz, &p->zzz, &q->zzz);
    FE_MUL(&p->zzz, &p->zzz, &ppp); /* ZZZ3 = ZZZ1 ZZZ2 PPP */
}

/* p = [k]p for a small k (double-and-add). */
static void xyzz_mul_small(xyzz_t *p, uint64_t k)
{
    xyzz_t r;

    xyzz_set_inf(&r);
    for (int bit = 63; bit >= 0; bit--) {
        xyzz_dbl(&r);
        if ((k >> bit) & 1) {
            xyzz_add(&r, p);
        }
    }
    *p = r;
}

/* Jacobian (X', Y', Z') = (X ZZ ZZZ^2, Y ZZ^3 ZZZ^2, ZZ ZZZ): X'/Z'^2 = X/ZZ, Y'/Z'^3 = Y/ZZZ,
 * without relying on ZZ^3 = ZZZ^2. The identity maps to Z' = 0. */
static void xyzz_to_jac(JAC *out, const xyzz_t *p)
{
    FE a, t;

    FE_SQR(&t, &p->zzz);    /* ZZZ^2 */
    FE_MUL(&a, &p->zz, &t); /* ZZ ZZZ^2 */
    FE_MUL(&out->x, &p->x, &a);
    FE_SQR(&t, &p->zz); /* ZZ^2 */
    FE_MUL(&t, &t, &a); /* ZZ^3 ZZZ^2 */
    FE_MUL(&out->y, &p->y, &t);
    FE_MUL(&out->z, &p->zz, &p->zzz);
}

/* ---- Bucket accumulator: affine buckets with batched inversions, XYZZ overflow. ----
 *
 * acc_add(b, P) adds P (or -P) into bucket b. An empty affine bucket takes P as is. Otherwise the
 * addition joins the current batch unless bucket b is already in it; then it waits in a small
 * queue (retried after the next flush), or when the queue is full it goes into the bucket's XYZZ
 * overflow slot with a mixed addition. A flush computes every batched denominator (x2 - x1, or
 * 2 y1 for a doubling), inverts their product once and walks back (Montgomery's trick). P = -B
 * empties the bucket. In direct mode every addition goes to the XYZZ slot (no batching).
 * A bucket's value is its affine point (if META_AFF) plus its XYZZ slot (if META_OVF). */

enum { META_AFF = 1, META_OVF = 2, META_BUSY = 4 };
enum { KIND_ADD, KIND_DBL, KIND_CANCEL };
#define PREF_NEG 0x80000000u /* point reference: base index | PREF_NEG for -P */

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
} acc_t;

/* Carves a batch slot of msm_batch_bytes(cap, qcap, sizeof(FE)) bytes. */
static void acc_carve_batch(acc_t *A, uint8_t *slot, size_t cap, size_t qcap)
{
    A->prod = (FE *)(void *)slot;
    slot += msm_align64(cap * sizeof(FE));
    A->den = (FE *)(void *)slot;
    slot += msm_align64(cap * sizeof(FE));
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

static void acc_flush(acc_t *A)
{
    size_t n = A->len;
    FE y2, inv, li, lam, t;

    if (n == 0) {
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
    A->len = 0;
    /* retry the queue; qcap < cap, so this cannot flush again */
    size_t q = A->qlen;
    A->qlen = 0;
    for (size_t j = 0; j < q; j++) {
        acc_add(A, A->qb[j], A->qp[j]);
    }
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

/* T = sum_b (b + 1) bucket_b and R = sum_b bucket_b (running sum from the top bucket: after
 * bucket b, R holds the buckets >= b and each is added into T once per bucket at or below it). */
static void acc_running_sum(const acc_t *A, xyzz_t *T, xyzz_t *R)
{
    size_t empty = 0; /* buckets passed since the last non-empty one: T still owes [empty] R */

    xyzz_set_inf(T);
    xyzz_set_inf(R);
    for (size_t b = A->nb; b-- > 0;) {
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

/* R = sum_b bucket_b. */
static void acc_plain_sum(const acc_t *A, xyzz_t *R)
{
    xyzz_set_inf(R);
    for (size_t b = 0; b < A->nb; b++) {
        uint8_t m = A->meta[b];
        if (m & META_AFF) {
            xyzz_madd(R, &A->aff[b], false);
        }
        if (m & META_OVF) {
            xyzz_add(R, &A->ovf[b]);
        }
    }
}

/* ---- One MSM call. ---- */

/* A unit adds the tail terms of chunks [ch0, ch1) whose digit in window w falls in buckets
 * [g0, g1) (bucket g holds digit magnitude g + 1), into bucket slots starting at `slot` of the
 * window's region. Windows with few buckets (the top one) split by chunks instead of buckets,
 * each piece in its own slots. */
typedef struct unit {
    unsigned w, ch0, ch1;
    uint32_t g0, g1, slot;
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
    unsigned nunits;
    unit_t units[MAX_UNITS];
    xyzz_t *unit_res;
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
    acc_plain_sum(&S.ones, &J->chunk_res[ch]);
}

static void chunk_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    for (size_t ch = begin; ch < end; ch++) {
        do_chunk(ctx, (unsigned)ch);
    }
}

static void do_unit(job_t *J, unsigned u)
{
    const unit_t *U = &J->units[u];
    const msm_layout *L = &J->L;
    unsigned c = L->c, w = U->w;
    size_t g0 = U->g0, nb = U->g1 - U->g0;
    size_t first = (size_t)w * L->nbw + U->slot;
    acc_t A;
    xyzz_t T, R;

    memset(&A, 0, sizeof(A));
    A.points = J->points;
    A.aff = (AFF *)(void *)(J->scratch + L->win_aff) + first;
    A.ovf = (xyzz_t *)(void *)(J->scratch + L->win_ovf) + first;
    A.meta = J->scratch + L->win_meta + first;
    A.nb = nb;
    /* a batch needs distinct buckets: with few of them it cannot fill, so add directly */
    size_t cap = msm_batch_cap(nb);
    A.direct = !J->plan.batch_affine || (!J->ba_forced && nb < MSM_BA_MIN_BUCKETS);
    CZ_CHECK(cap <= L->batch_cap);
    acc_carve_batch(&A, J->scratch + L->unit_batch + (size_t)u * L->batch_size, cap, cap / 2);
    memset(A.meta, 0, nb);

    for (unsigned ch = U->ch0; ch < U->ch1; ch++) {
        size_t j0 = J->ch_k0[ch], j1 = j0 + J->ch_tail[ch];
        for (size_t j = j0; j < j1; j++) {
            int d = msm_digit(&J->tail_sc[j], w, c);
            if (d == 0) {
                continue;
            }
            uint32_t neg = d < 0 ? PREF_NEG : 0;
            size_t g = (size_t)(d < 0 ? -d : d) - 1 - g0; /* wraps when below the range */
            if (g >= nb) {
                continue;
            }
            acc_add(&A, (uint32_t)g, J->tail_idx[j] | neg);
        }
    }
    acc_finish(&A);
    /* sum_{g in [g0, g1)} (g + 1) B_g = sum (g - g0 + 1) B_g + g0 sum B_g = T + [g0] R */
    acc_running_sum(&A, &T, &R);
    xyzz_mul_small(&R, g0);
    xyzz_add(&T, &R);
    J->unit_res[u] = T;
}

/* Splits window w into at most k units: by bucket ranges of at least MSM_MIN_RANGE buckets,
 * then, where that gives fewer than k, by chunk ranges with separate bucket slots. */
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
    for (size_t p = 0; p < pw; p++) {
        for (size_t r = 0; r < kw; r++) {
            CZ_CHECK(J->nunits < MAX_UNITS && J->nunits < L->nwin * L->kmax);
            unit_t *U = &J->units[J->nunits++];
            U->w = w;
            U->ch0 = (unsigned)(J->nch * p / pw);
            U->ch1 = (unsigned)(J->nch * (p + 1) / pw);
            U->g0 = (uint32_t)(nbw * r / kw);
            U->g1 = (uint32_t)(nbw * (r + 1) / kw);
            U->slot = (uint32_t)(p * nbw + U->g0);
        }
    }
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
        J->plan = msm_plan_for(m, opts);
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
        for (unsigned w = 0; w < L->nwin; w++) {
            plan_window(J, w, k);
        }

        /* 3. units */
        cz_pool_for(pool, J->nunits, 1, unit_task, J);

        /* 4. windows, top first: acc = 2^c acc + W_w */
        unsigned u = J->nunits;
        for (unsigned w = L->nwin; w-- > 0;) {
            for (unsigned i = 0; i < L->c; i++) {
                xyzz_dbl(&acc);
            }
            while (u > 0 && J->units[u - 1].w == w) {
                xyzz_add(&acc, &J->unit_res[--u]);
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
