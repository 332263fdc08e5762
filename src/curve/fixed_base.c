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
 *
 * This file holds what the groups share (window choice, recoding); the table builder and the
 * batched additions are fixed_base_impl.h, instantiated at the end for G1 and for G2.
 */
#include "curve/g1.h"
#include "curve/g2.h"

#include "common/alloc.h"
#include "curve/internal.h"

/* Scalars per batch: one inversion per window is shared by this many additions. */
#define FB_LANES 256
/* Jacobian G1 points converted to affine at once while building a table row (G2: half). */
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

/* ---- The two groups: fixed_base_impl.h with Fp and with Fp2 coordinates ------------------- */

#define FB_FE            fp_t
#define FB_FE_FN(suffix) fp##suffix
#define FB_FE_ONE        FP_ONE
#define FB_AFF           g1_aff_t
#define FB_JAC           g1_t
#define FB_FN(suffix)    g1##suffix
#define FB_ROW_BLOCK     FB_BLOCK
#include "curve/fixed_base_impl.h"

/* G2 points are twice as large: half the block keeps a row builder's stack the same size. */
#define FB_FE            fp2_t
#define FB_FE_FN(suffix) fp2##suffix
#define FB_FE_ONE        FP2_ONE
#define FB_AFF           g2_aff_t
#define FB_JAC           g2_t
#define FB_FN(suffix)    g2##suffix
#define FB_ROW_BLOCK     (FB_BLOCK / 2)
#include "curve/fixed_base_impl.h"
