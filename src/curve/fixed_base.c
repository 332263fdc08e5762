/* fixed_base.c - fixed-base scalar multiplication of one base by many scalars, G1 and G2
 * (what a parameter generator does: millions of [k_j] G for the standard generators).
 *
 * Table. For a window of w bits, window i < nwin = ceil(256 / w) and digit d = 1 .. 2^(w-1),
 * tab[i 2^(w-1) + d - 1] = d 2^(w i) P, affine. A row is built by repeated mixed additions of
 * its affine first entry, then converted to affine in blocks with one inversion per block.
 *
 * Recoding. k = sum_i d_i 2^(w i) with signed digits -2^(w-1) < d_i <= 2^(w-1): window i's bits
 * plus the carry c from below give v; v > 2^(w-1) becomes d = v - 2^w with carry 1. For
 * k < 2^255 and w nwin >= 256 the top window holds at most w - 1 bits of k, so v <= 2^(w-1) and
 * no carry is left over. [k] P = sum_i sign(d_i) tab[i][|d_i| - 1]: at most nwin additions and
 * no doubling.
 *
 * Additions in batches. FB_LANES scalars are processed together, window by window; each lane's
 * accumulator is an affine point (the output slot itself). In window i every lane with a
 * non-zero digit adds its table entry T with the affine formula
 *   lambda = (y_T - y) / (x_T - x), x' = lambda^2 - x - x_T, y' = lambda (x - x') - y,
 * and the lanes share one field inversion (Montgomery's trick: prefix products, one inversion,
 * then walking back). That is about 6 multiplications per addition instead of 11 for a mixed
 * Jacobian addition, and no final conversion to affine. A lane whose accumulator is still the
 * identity just copies T; a lane with x = x_T (T equals the accumulator or its negation: it
 * cannot happen for a prime-order base and k < r except in the top window, and then only for
 * a vanishing fraction of scalars) is added with the complete Jacobian formulas instead, so
 * every input gives the exact result.
 *
 * Memory: the caller owns the table (g1_fb_table_len points); per-task work arrays live on the
 * stack (under 40 KB), and the scalar digits among them are wiped after each batch.
 * Threads: the table is read-only once built; tasks of the pool write disjoint output ranges,
 * so the result does not depend on the pool.
 */
#include "curve/g1.h"
#include "curve/g2.h"

#include "common/alloc.h"
#include "curve/internal.h"

/* Scalars per batch: one inversion per window is shared by this many additions. */
#define FB_LANES 256
/* Jacobian points converted to affine at once while building a table row. */
#define FB_BLOCK 128

static unsigned fb_nwin(unsigned w)
{
    return (256 + w - 1) / w;
}

static size_t fb_half(unsigned w)
{
    return (size_t)1 << (w - 1);
}

_Static_assert(G1_FB_MIN_WINDOW == G2_FB_MIN_WINDOW && G1_FB_MAX_WINDOW == G2_FB_MAX_WINDOW,
               "one set of window bounds");
_Static_assert(G1_FB_MIN_WINDOW >= 2 && G1_FB_MAX_WINDOW <= 30, "digits fit an int");

static void fb_check_window(unsigned w)
{
    CZ_CHECK(w >= G1_FB_MIN_WINDOW && w <= G1_FB_MAX_WINDOW);
}

size_t g1_fb_table_len(unsigned w)
{
    fb_check_window(w);
    return (size_t)fb_nwin(w) * fb_half(w);
}

size_t g2_fb_table_len(unsigned w)
{
    return g1_fb_table_len(w);
}

/* Building an entry costs about FB_BUILD_COST times one batched affine addition (a Jacobian
 * mixed addition plus its share of the conversion to affine; measured: 3x on G1 and G2). */
#define FB_BUILD_COST 3

static unsigned fb_window(size_t n)
{
    unsigned best = G1_FB_MIN_WINDOW;
    double best_cost = 0.0;

    for (unsigned w = G1_FB_MIN_WINDOW; w <= G1_FB_MAX_WINDOW; w++) {
        double cost = (double)fb_nwin(w) * ((double)fb_half(w) * FB_BUILD_COST + (double)n);
        if (w == G1_FB_MIN_WINDOW || cost < best_cost) {
            best = w;
            best_cost = cost;
        }
    }
    return best;
}

unsigned g1_fb_window(size_t n)
{
    return fb_window(n);
}

unsigned g2_fb_window(size_t n)
{
    return fb_window(n);
}

/* Signed digit of window i (see the file comment); *carry is updated. */
static inline int fb_digit(const fr_repr_t *k, unsigned w, unsigned i, unsigned *carry)
{
    size_t lo = (size_t)w * i;
    uint64_t v = 0;

    if (lo < 256) {
        size_t limb = lo / 64;
        unsigned sh = (unsigned)(lo % 64);
        v = k->l[limb] >> sh;
        if (sh + w > 64 && limb + 1 < 4) {
            v |= k->l[limb + 1] << (64 - sh); /* sh > 64 - w > 0: the shift is in range */
        }
        v &= ((uint64_t)1 << w) - 1;
    }
    v += *carry;
    if (v > fb_half(w)) {
        *carry = 1;
        return (int)v - (int)((uint64_t)1 << w);
    }
    *carry = 0;
    return (int)v;
}

/* Asks for every cache line of a table entry: a big table lives in DRAM, and the batch's
 * lookups are independent, so their misses overlap instead of stalling one by one. */
static inline void fb_prefetch(const void *p, size_t len)
{
    const char *c = p;
    for (size_t off = 0; off < len; off += 64) {
        __builtin_prefetch(c + off);
    }
    __builtin_prefetch(c + len - 1);
}

static unsigned fb_abs(int d)
{
    return d < 0 ? (unsigned)-d : (unsigned)d;
}

/* ---- G1 ------------------------------------------------------------------------------------- */

typedef struct g1_fb_build {
    g1_aff_t *tab;
    const g1_aff_t *base;
    unsigned w;
} g1_fb_build_t;

/* Rows [begin, end) of the table. */
static void g1_fb_rows(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const g1_fb_build_t *b = ctx;
    size_t half = fb_half(b->w);
    g1_t jac[FB_BLOCK];
    fp_t scratch[FB_BLOCK];
    (void)worker;

    for (size_t i = begin; i < end; i++) {
        g1_aff_t *row = b->tab + i * half;
        g1_aff_t first;
        g1_t cur;

        /* first = 2^(w i) P */
        g1_from_aff(&cur, b->base);
        for (size_t s = 0; s < (size_t)b->w * i; s++) {
            g1_dbl(&cur, &cur);
        }
        g1_to_aff(&first, &cur);
        g1_set_identity(&cur);
        for (size_t d0 = 0; d0 < half; d0 += FB_BLOCK) {
            size_t len = half - d0 < FB_BLOCK ? half - d0 : FB_BLOCK;
            for (size_t j = 0; j < len; j++) {
                g1_add_aff(&cur, &cur, &first);
                jac[j] = cur;
            }
            g1_batch_to_aff(row + d0, jac, len, scratch);
        }
    }
}

void g1_fb_table_init(g1_aff_t *tab, const g1_aff_t *base, unsigned w, cz_pool *pool)
{
    g1_fb_build_t b = {.tab = tab, .base = base, .w = w};

    fb_check_window(w);
    cz_pool_for(pool, fb_nwin(w), 1, g1_fb_rows, &b);
}

/* out[j] = [k[j]] P for j < len <= FB_LANES. */
static void g1_fb_lanes(g1_aff_t *out, const g1_aff_t *tab, unsigned w, const fr_repr_t *k,
                        size_t len)
{
    size_t half = fb_half(w);
    unsigned nwin = fb_nwin(w);
    unsigned carry[FB_LANES];
    int dig[FB_LANES];
    fp_t pre[FB_LANES];

    for (size_t j = 0; j < len; j++) {
        CZ_CHECK((k[j].l[3] >> 63) == 0); /* k < 2^255 */
        g1_aff_set_identity(&out[j]);
        carry[j] = 0;
    }
    for (unsigned i = 0; i < nwin; i++) {
        const g1_aff_t *row = tab + (size_t)i * half;
        fp_t acc = FP_ONE, inv;
        size_t nact = 0;

        for (size_t j = 0; j < len; j++) {
            dig[j] = fb_digit(&k[j], w, i, &carry[j]);
            if (dig[j] != 0) {
                fb_prefetch(&row[fb_abs(dig[j]) - 1], sizeof(g1_aff_t));
            }
        }
        /* forward: prefix products of x_T - x over the lanes that add in affine */
        for (size_t j = 0; j < len; j++) {
            const g1_aff_t *t;
            fp_t dx;

            if (dig[j] == 0) {
                continue;
            }
            t = &row[fb_abs(dig[j]) - 1];
            if (g1_aff_is_identity(&out[j])) {
                out[j] = *t;
                if (dig[j] < 0) {
                    fp_neg(&out[j].y, &out[j].y);
                }
                dig[j] = 0;
                continue;
            }
            if (fp_eq(&out[j].x, &t->x)) {
                /* T = +-acc: complete Jacobian formulas (doubling or the identity) */
                g1_aff_t tt;
                g1_t a;
                tt = *t;
                if (dig[j] < 0) {
                    fp_neg(&tt.y, &tt.y);
                }
                g1_from_aff(&a, &out[j]);
                g1_add_aff(&a, &a, &tt);
                g1_to_aff(&out[j], &a);
                dig[j] = 0;
                continue;
            }
            pre[j] = acc;
            fp_sub(&dx, &t->x, &out[j].x);
            fp_mul(&acc, &acc, &dx);
            nact++;
        }
        if (nact == 0) {
            continue;
        }
        fp_inv(&inv, &acc);
        /* backward: inv = 1 / prod_{j' <= j} dx_j' on entry to lane j */
        for (size_t j = len; j-- > 0;) {
            const g1_aff_t *t;
            fp_t dx, lam, ty, x3;

            if (dig[j] == 0) {
                continue;
            }
            t = &row[fb_abs(dig[j]) - 1];
            fp_sub(&dx, &t->x, &out[j].x);
            fp_mul(&pre[j], &pre[j], &inv); /* 1 / dx_j */
            fp_mul(&inv, &inv, &dx);
            if (dig[j] < 0) {
                fp_neg(&ty, &t->y);
            } else {
                ty = t->y;
            }
            fp_sub(&lam, &ty, &out[j].y);
            fp_mul(&lam, &lam, &pre[j]);
            fp_sqr(&x3, &lam);
            fp_sub(&x3, &x3, &out[j].x);
            fp_sub(&x3, &x3, &t->x);
            fp_sub(&dx, &out[j].x, &x3);
            fp_mul(&dx, &dx, &lam);
            fp_sub(&out[j].y, &dx, &out[j].y);
            out[j].x = x3;
        }
    }
    /* the digits are the scalars (toxic waste in a setup) */
    cz_memzero(dig, sizeof(dig));
    cz_memzero(carry, sizeof(carry));
}

typedef struct g1_fb_job {
    g1_aff_t *out;
    const g1_aff_t *tab;
    const fr_repr_t *k;
    unsigned w;
} g1_fb_job_t;

static void g1_fb_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const g1_fb_job_t *job = ctx;
    (void)worker;

    for (size_t b = begin; b < end; b += FB_LANES) {
        size_t len = end - b < FB_LANES ? end - b : FB_LANES;
        g1_fb_lanes(job->out + b, job->tab, job->w, job->k + b, len);
    }
}

void g1_fb_mul(g1_aff_t *out, const g1_aff_t *tab, unsigned w, const fr_repr_t *k, size_t n,
               cz_pool *pool)
{
    g1_fb_job_t job = {.out = out, .tab = tab, .k = k, .w = w};

    fb_check_window(w);
    cz_pool_for(pool, n, FB_LANES, g1_fb_task, &job);
}

/* ---- G2 (the same with Fp2 coordinates) ------------------------------------------------------ */

typedef struct g2_fb_build {
    g2_aff_t *tab;
    const g2_aff_t *base;
    unsigned w;
} g2_fb_build_t;

static void g2_fb_rows(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const g2_fb_build_t *b = ctx;
    size_t half = fb_half(b->w);
    g2_t jac[FB_BLOCK / 2];
    fp2_t scratch[FB_BLOCK / 2];
    (void)worker;

    for (size_t i = begin; i < end; i++) {
        g2_aff_t *row = b->tab + i * half;
        g2_aff_t first;
        g2_t cur;

        g2_from_aff(&cur, b->base);
        for (size_t s = 0; s < (size_t)b->w * i; s++) {
            g2_dbl(&cur, &cur);
        }
        g2_to_aff(&first, &cur);
        g2_set_identity(&cur);
        for (size_t d0 = 0; d0 < half; d0 += FB_BLOCK / 2) {
            size_t len = half - d0 < FB_BLOCK / 2 ? half - d0 : FB_BLOCK / 2;
            for (size_t j = 0; j < len; j++) {
                g2_add_aff(&cur, &cur, &first);
                jac[j] = cur;
            }
            g2_batch_to_aff(row + d0, jac, len, scratch);
        }
    }
}

void g2_fb_table_init(g2_aff_t *tab, const g2_aff_t *base, unsigned w, cz_pool *pool)
{
    g2_fb_build_t b = {.tab = tab, .base = base, .w = w};

    fb_check_window(w);
    cz_pool_for(pool, fb_nwin(w), 1, g2_fb_rows, &b);
}

static void g2_fb_lanes(g2_aff_t *out, const g2_aff_t *tab, unsigned w, const fr_repr_t *k,
                        size_t len)
{
    size_t half = fb_half(w);
    unsigned nwin = fb_nwin(w);
    unsigned carry[FB_LANES];
    int dig[FB_LANES];
    fp2_t pre[FB_LANES];

    for (size_t j = 0; j < len; j++) {
        CZ_CHECK((k[j].l[3] >> 63) == 0); /* k < 2^255 */
        g2_aff_set_identity(&out[j]);
        carry[j] = 0;
    }
    for (unsigned i = 0; i < nwin; i++) {
        const g2_aff_t *row = tab + (size_t)i * half;
        fp2_t acc = FP2_ONE, inv;
        size_t nact = 0;

        for (size_t j = 0; j < len; j++) {
            dig[j] = fb_digit(&k[j], w, i, &carry[j]);
            if (dig[j] != 0) {
                fb_prefetch(&row[fb_abs(dig[j]) - 1], sizeof(g2_aff_t));
            }
        }
        for (size_t j = 0; j < len; j++) {
            const g2_aff_t *t;
            fp2_t dx;

            if (dig[j] == 0) {
                continue;
            }
            t = &row[fb_abs(dig[j]) - 1];
            if (g2_aff_is_identity(&out[j])) {
                out[j] = *t;
                if (dig[j] < 0) {
                    fp2_neg(&out[j].y, &out[j].y);
                }
                dig[j] = 0;
                continue;
            }
            if (fp2_eq(&out[j].x, &t->x)) {
                g2_aff_t tt;
                g2_t a;
                tt = *t;
                if (dig[j] < 0) {
                    fp2_neg(&tt.y, &tt.y);
                }
                g2_from_aff(&a, &out[j]);
                g2_add_aff(&a, &a, &tt);
                g2_to_aff(&out[j], &a);
                dig[j] = 0;
                continue;
            }
            pre[j] = acc;
            fp2_sub(&dx, &t->x, &out[j].x);
            fp2_mul(&acc, &acc, &dx);
            nact++;
        }
        if (nact == 0) {
            continue;
        }
        fp2_inv(&inv, &acc);
        for (size_t j = len; j-- > 0;) {
            const g2_aff_t *t;
            fp2_t dx, lam, ty, x3;

            if (dig[j] == 0) {
                continue;
            }
            t = &row[fb_abs(dig[j]) - 1];
            fp2_sub(&dx, &t->x, &out[j].x);
            fp2_mul(&pre[j], &pre[j], &inv);
            fp2_mul(&inv, &inv, &dx);
            if (dig[j] < 0) {
                fp2_neg(&ty, &t->y);
            } else {
                ty = t->y;
            }
            fp2_sub(&lam, &ty, &out[j].y);
            fp2_mul(&lam, &lam, &pre[j]);
            fp2_sqr(&x3, &lam);
            fp2_sub(&x3, &x3, &out[j].x);
            fp2_sub(&x3, &x3, &t->x);
            fp2_sub(&dx, &out[j].x, &x3);
            fp2_mul(&dx, &dx, &lam);
            fp2_sub(&out[j].y, &dx, &out[j].y);
            out[j].x = x3;
        }
    }
    /* the digits are the scalars (toxic waste in a setup) */
    cz_memzero(dig, sizeof(dig));
    cz_memzero(carry, sizeof(carry));
}

typedef struct g2_fb_job {
    g2_aff_t *out;
    const g2_aff_t *tab;
    const fr_repr_t *k;
    unsigned w;
} g2_fb_job_t;

static void g2_fb_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const g2_fb_job_t *job = ctx;
    (void)worker;

    for (size_t b = begin; b < end; b += FB_LANES) {
        size_t len = end - b < FB_LANES ? end - b : FB_LANES;
        g2_fb_lanes(job->out + b, job->tab, job->w, job->k + b, len);
    }
}

void g2_fb_mul(g2_aff_t *out, const g2_aff_t *tab, unsigned w, const fr_repr_t *k, size_t n,
               cz_pool *pool)
{
    g2_fb_job_t job = {.out = out, .tab = tab, .k = k, .w = w};

    fb_check_window(w);
    cz_pool_for(pool, n, FB_LANES, g2_fb_task, &job);
}
