/* ntt.c - evaluation domains and the radix-2 NTT over Fr.
 *
 * Layout. A transform of n = 2^k values is the textbook radix-2 network (k stages of n/2
 * butterflies), executed in passes that keep the data being worked on in cache:
 *   - "block" pass: the stages whose butterflies span less than 2^NTT_BLK_LG values act inside
 *     aligned contiguous blocks of 2^NTT_BLK_LG values (128 KiB, L2-resident); one task runs all
 *     those stages on one block.
 *   - "column" passes: the remaining (wide) stages are grouped NTT_PASS_LG at a time. Stages with
 *     half-spans L, 2L, ..., 2^(s-1) L only combine values x[base + j + t*L], t < 2^s, for a
 *     fixed column j; a task takes NTT_COLS adjacent columns (contiguous rows of 256 bytes) and
 *     runs the s stages on those 2^s rows while they stay in cache.
 * So a transform of 2^27 reads and writes memory 3 times instead of 27.
 *
 * Twiddles. The domain holds tw[i] = omega^i for i < n/2 only. The stage of half-span h uses
 * omega_(2h)^m = omega^(m * n/(2h)) = tw[m * n/(2h)]. The inverse transform uses
 * omega^-i = omega^(n-i) = -omega^(n/2-i) = -tw[n/2 - i] for 0 < i < n/2, and folds the sign
 * into the butterfly (it swaps the operands of a subtraction), so one table serves both.
 *
 * Orders. DIF (Gentleman-Sande) maps natural order to bit-reversed order; DIT (Cooley-Tukey)
 * maps bit-reversed order to natural order. Natural-to-natural transforms add one cache-blocked
 * bit-reversal pass. The quotient (quotient.c) chains DIF and DIT and so needs none there.
 */
#include "poly/poly.h"

#include <string.h>

#include "field/bls12_381_consts.h"
#include "poly/internal.h"

/* Default layout (ntt_domain_t.blk_lg, .pass_lg): stages with half-span below 2^NTT_BLK_LG
 * run block by block (2^12 values = 128 KiB); at most NTT_PASS_LG wide stages per pass. */
#define NTT_BLK_LG      12
#define NTT_PASS_LG     8
/* Adjacent columns per column-pass task (8 values = 256 bytes per row). */
#define NTT_COLS        8
/* Tile side (log2) of the bit-reversal permutation: 16 x 16 values per tile. */
#define NTT_REV_TILE_LG 4
/* Low bits of the index handled by a table in ntt_scale_rev (2^8 values on the stack). */
#define NTT_SCALE_LO_LG 8
/* Values per task of the element-wise loops. */
#define NTT_GRAIN       4096

bool ntt_lg_for(unsigned *lg, size_t m)
{
    unsigned k = 0;

    while (k < 32 && ((size_t)1 << k) < m) {
        k++;
    }
    if (k >= 32) {
        return false;
    }
    *lg = k;
    return true;
}

size_t ntt_domain_tw_sizeof(unsigned lg)
{
    CZ_CHECK(lg <= NTT_MAX_LG);
    return lg == 0 ? sizeof(fr_t) : ((size_t)1 << (lg - 1)) * sizeof(fr_t);
}

struct tw_ctx {
    fr_t *tw;
    const fr_t *omega;
};

/* tw[i] = omega^i on [begin, end): one exponentiation, then one product per value. */
static void tw_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct tw_ctx *ctx = vctx;
    fr_t cur;

    (void)worker;
    fr_pow_u64(&cur, ctx->omega, begin);
    for (size_t i = begin; i < end; i++) {
        ctx->tw[i] = cur;
        fr_mul(&cur, &cur, ctx->omega);
    }
}

void ntt_root_of_unity(fr_t *out, unsigned lg)
{
    static const uint64_t root_mont[4] = FR_ROOT_OF_UNITY_MONT_INIT;

    CZ_CHECK(lg <= FR_TWO_ADICITY);
    /* omega_k = ROOT_OF_UNITY^(2^(32-k)), squaring as bellperson does (spec 1.4) */
    memcpy(out->l, root_mont, sizeof(root_mont));
    for (unsigned i = lg; i < FR_TWO_ADICITY; i++) {
        fr_sqr(out, out);
    }
}

bool ntt_domain_init(ntt_domain_t *d, unsigned lg, void *tw_mem, cz_pool *pool)
{
    ntt_domain_t dom;
    fr_t gn;

    if (lg > NTT_MAX_LG) {
        return false;
    }
    CZ_CHECK(tw_mem != NULL);
    CZ_CHECK((uintptr_t)tw_mem % _Alignof(fr_t) == 0);
    memset(&dom, 0, sizeof(dom));
    dom.lg = lg;
    dom.n = (size_t)1 << lg;
    dom.blk_lg = NTT_BLK_LG;
    dom.pass_lg = NTT_PASS_LG;
    ntt_root_of_unity(&dom.omega, lg);
    fr_inv(&dom.omega_inv, &dom.omega);
    fr_from_u64(&dom.n_inv, (uint64_t)dom.n);
    fr_inv(&dom.n_inv, &dom.n_inv);
    fr_from_u64(&dom.g, FR_GENERATOR_U64);
    fr_inv(&dom.g_inv, &dom.g);
    /* Z(x) = x^n - 1 takes the value g^n - 1 on the whole coset g*<omega> */
    gn = dom.g;
    for (unsigned i = 0; i < lg; i++) {
        fr_sqr(&gn, &gn);
    }
    fr_sub(&gn, &gn, &FR_ONE);
    fr_inv(&dom.z_coset_inv, &gn);

    struct tw_ctx ctx = {.tw = tw_mem, .omega = &dom.omega};
    size_t half = lg == 0 ? 1 : dom.n / 2;
    cz_pool_for(pool, half, NTT_GRAIN, tw_task, &ctx);
    dom.tw = tw_mem;
    *d = dom;
    return true;
}

/* ---- the radix-2 network, pass by pass ---- */

/* One pass: stages with half-span h = 2^(lo_lg + q), q < s, over units of `cols` columns.
 * Rows t < 2^s of a block hold x[base + j + t*L] (L = 2^lo_lg, block = 2^(lo_lg+s)). */
struct pass_ctx {
    fr_t *x;
    const fr_t *tw;
    size_t half;    /* n/2: size of the twiddle table */
    unsigned n_lg;  /* k */
    unsigned lo_lg; /* log2 L */
    unsigned s;     /* stages in this pass */
    size_t cols;    /* columns per unit, <= L */
    bool inv;       /* omega^-1 instead of omega */
};

/* DIF butterfly: (u, v) <- (u + v, (u - v) w) with w = tw[idx] (forward) or
 * omega^-idx = -tw[half - idx] (inverse), w = 1 for idx = 0. */
static inline void bfly_dif(fr_t *u, fr_t *v, size_t idx, const struct pass_ctx *c)
{
    fr_t t;

    if (idx == 0) {
        fr_sub(&t, u, v);
        fr_add(u, u, v);
        *v = t;
    } else if (!c->inv) {
        fr_sub(&t, u, v);
        fr_add(u, u, v);
        fr_mul(v, &t, &c->tw[idx]);
    } else {
        fr_sub(&t, v, u); /* (u - v) * (-tw[half - idx]) */
        fr_add(u, u, v);
        fr_mul(v, &t, &c->tw[c->half - idx]);
    }
}

/* DIT butterfly: t = v w; (u, v) <- (u + t, u - t), w as in bfly_dif. */
static inline void bfly_dit(fr_t *u, fr_t *v, size_t idx, const struct pass_ctx *c)
{
    fr_t t;

    if (idx == 0) {
        fr_sub(&t, u, v);
        fr_add(u, u, v);
        *v = t;
    } else if (!c->inv) {
        fr_mul(&t, v, &c->tw[idx]);
        fr_sub(v, u, &t);
        fr_add(u, u, &t);
    } else {
        fr_mul(&t, v, &c->tw[c->half - idx]); /* t = -(v * omega^-idx) */
        fr_add(v, u, &t);
        fr_sub(u, u, &t);
    }
}

/* One stage (half-span h = L 2^q) of one unit: rows t and t + 2^q with bit q of t clear,
 * columns [j0, j0 + cols). Butterfly (p, p + h) at offset m = j + (t mod 2^q) L in its group
 * of 2h uses twiddle index m * n/(2h). */
static void unit_stage(const struct pass_ctx *c, fr_t *blk, size_t j0, unsigned q, bool dif)
{
    size_t L = (size_t)1 << c->lo_lg;
    size_t rows = (size_t)1 << c->s;
    size_t hrows = (size_t)1 << q;
    size_t h = L << q;
    size_t tstride = (size_t)1 << (c->n_lg - 1 - c->lo_lg - q); /* n / (2h) */

    for (size_t t0 = 0; t0 < rows; t0 += 2 * hrows) {
        for (size_t lo = 0; lo < hrows; lo++) {
            fr_t *pu = blk + (t0 + lo) * L;
            fr_t *pv = pu + h;
            size_t idx = (lo * L + j0) * tstride;
            for (size_t j = j0; j < j0 + c->cols; j++, idx += tstride) {
                if (dif) {
                    bfly_dif(&pu[j], &pv[j], idx, c);
                } else {
                    bfly_dit(&pu[j], &pv[j], idx, c);
                }
            }
        }
    }
}

static void dif_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct pass_ctx *c = vctx;
    size_t per_blk = ((size_t)1 << c->lo_lg) / c->cols;

    (void)worker;
    for (size_t u = begin; u < end; u++) {
        fr_t *blk = c->x + (u / per_blk) * ((size_t)1 << (c->lo_lg + c->s));
        size_t j0 = (u % per_blk) * c->cols;
        for (unsigned q = c->s; q-- > 0;) {
            unit_stage(c, blk, j0, q, true);
        }
    }
}

static void dit_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct pass_ctx *c = vctx;
    size_t per_blk = ((size_t)1 << c->lo_lg) / c->cols;

    (void)worker;
    for (size_t u = begin; u < end; u++) {
        fr_t *blk = c->x + (u / per_blk) * ((size_t)1 << (c->lo_lg + c->s));
        size_t j0 = (u % per_blk) * c->cols;
        for (unsigned q = 0; q < c->s; q++) {
            unit_stage(c, blk, j0, q, false);
        }
    }
}

static void run_pass(const ntt_domain_t *d, fr_t *x, ntt_dir dir, unsigned lo_lg, unsigned s,
                     bool dif, cz_pool *pool)
{
    size_t L = (size_t)1 << lo_lg;
    struct pass_ctx c = {
        .x = x,
        .tw = d->tw,
        .half = d->n / 2,
        .n_lg = d->lg,
        .lo_lg = lo_lg,
        .s = s,
        .cols = L < NTT_COLS ? L : NTT_COLS,
        .inv = dir == NTT_DIR_INV,
    };
    size_t units = (d->n >> (lo_lg + s)) * (L / c.cols);

    cz_pool_for(pool, units, 1, dif ? dif_task : dit_task, &c);
}

/* The block pass covers lg h in [0, blk), blk = min(k, d->blk_lg). The wide stages
 * lg h in [blk, k) are split into ceil(wide / d->pass_lg) passes of near-equal depth;
 * pass i (0 = narrowest) covers lg h in [lo_lg(i), lo_lg(i) + s(i)). */
static unsigned blk_stages(const ntt_domain_t *d)
{
    return d->lg < d->blk_lg ? d->lg : d->blk_lg;
}

static unsigned wide_passes(const ntt_domain_t *d)
{
    unsigned wide = d->lg - blk_stages(d);
    return (wide + d->pass_lg - 1) / d->pass_lg;
}

static void wide_pass_range(const ntt_domain_t *d, unsigned i, unsigned *lo_lg, unsigned *s)
{
    unsigned wide = d->lg - blk_stages(d);
    unsigned np = wide_passes(d);
    unsigned base = wide / np, extra = wide % np;
    unsigned lo = blk_stages(d);

    for (unsigned j = 0; j < i; j++) {
        lo += base + (j < extra ? 1 : 0);
    }
    *lo_lg = lo;
    *s = base + (i < extra ? 1 : 0);
}

void ntt_dif_nr(const ntt_domain_t *d, fr_t *x, ntt_dir dir, cz_pool *pool)
{
    unsigned lo_lg, s;

    CZ_CHECK(d->blk_lg >= 1 && d->pass_lg >= 1);
    if (d->lg == 0) {
        return;
    }
    for (unsigned i = wide_passes(d); i-- > 0;) {
        wide_pass_range(d, i, &lo_lg, &s);
        run_pass(d, x, dir, lo_lg, s, true, pool);
    }
    run_pass(d, x, dir, 0, blk_stages(d), true, pool);
}

void ntt_dit_rn(const ntt_domain_t *d, fr_t *x, ntt_dir dir, cz_pool *pool)
{
    unsigned lo_lg, s;

    CZ_CHECK(d->blk_lg >= 1 && d->pass_lg >= 1);
    if (d->lg == 0) {
        return;
    }
    run_pass(d, x, dir, 0, blk_stages(d), false, pool);
    for (unsigned i = 0; i < wide_passes(d); i++) {
        wide_pass_range(d, i, &lo_lg, &s);
        run_pass(d, x, dir, lo_lg, s, false, pool);
    }
}

/* ---- bit reversal ---- */

struct rev_ctx {
    fr_t *x;
    unsigned lg;
    const fr_t *mul;
};

static inline void rev_pair(fr_t *x, size_t p, size_t r, const fr_t *mul)
{
    fr_t t = x[p];

    if (mul) {
        fr_mul(&x[p], &x[r], mul);
        fr_mul(&x[r], &t, mul);
    } else {
        x[p] = x[r];
        x[r] = t;
    }
}

/* Small sizes: one task over all indices. */
static void rev_naive(const struct rev_ctx *c)
{
    size_t n = (size_t)1 << c->lg;

    for (size_t p = 0; p < n; p++) {
        size_t r = ntt_rev_bits((uint32_t)p, c->lg);
        if (p < r) {
            rev_pair(c->x, p, r, c->mul);
        } else if (p == r && c->mul) {
            fr_mul(&c->x[p], &c->x[p], c->mul);
        }
    }
}

/* Index p = (a << (lg - b)) | (mid << b) | col with a, col < 2^b: its reverse is
 * (rev(col) << (lg - b)) | (rev(mid) << b) | rev(a). Tile `mid` (2^b rows of 2^b contiguous
 * values) is exchanged with tile rev(mid) as a whole, so both stay in L1. */
static void rev_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct rev_ctx *c = vctx;
    const unsigned b = NTT_REV_TILE_LG;
    const unsigned mid_bits = c->lg - 2 * b;
    const size_t side = (size_t)1 << b;

    (void)worker;
    for (size_t mid = begin; mid < end; mid++) {
        size_t rmid = ntt_rev_bits((uint32_t)mid, mid_bits);
        if (mid > rmid) {
            continue;
        }
        for (size_t a = 0; a < side; a++) {
            size_t ra = ntt_rev_bits((uint32_t)a, b);
            for (size_t col = 0; col < side; col++) {
                size_t rcol = ntt_rev_bits((uint32_t)col, b);
                size_t p = (a << (c->lg - b)) | (mid << b) | col;
                size_t r = (rcol << (c->lg - b)) | (rmid << b) | ra;
                if (mid < rmid || p < r) {
                    rev_pair(c->x, p, r, c->mul);
                } else if (p == r && c->mul) {
                    fr_mul(&c->x[p], &c->x[p], c->mul);
                }
                /* else p > r inside a self-paired tile: the pair (r, p) does the swap */
            }
        }
    }
}

void ntt_bitrev(fr_t *x, unsigned lg, const fr_t *mul, cz_pool *pool)
{
    struct rev_ctx c = {.x = x, .lg = lg, .mul = mul};

    CZ_CHECK(lg <= NTT_MAX_LG);
    if (lg < 2 * NTT_REV_TILE_LG + 2) {
        rev_naive(&c);
        return;
    }
    cz_pool_for(pool, (size_t)1 << (lg - 2 * NTT_REV_TILE_LG), 0, rev_task, &c);
}

/* ---- scalings ---- */

struct scale_ctx {
    fr_t *x;
    unsigned lg;
    fr_t c;
    fr_t base;
};

static void scale_pow_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct scale_ctx *s = vctx;
    fr_t cur;

    (void)worker;
    fr_pow_u64(&cur, &s->base, begin);
    fr_mul(&cur, &cur, &s->c);
    for (size_t i = begin; i < end; i++) {
        fr_mul(&s->x[i], &s->x[i], &cur);
        fr_mul(&cur, &cur, &s->base);
    }
}

void ntt_scale_pow(fr_t *x, size_t n, const fr_t *c, const fr_t *base, cz_pool *pool)
{
    struct scale_ctx s = {.x = x, .lg = 0, .c = *c, .base = *base};

    cz_pool_for(pool, n, NTT_GRAIN, scale_pow_task, &s);
}

/* With p = hi 2^lo_lg + lo: rev(p) = rev(lo) 2^(lg - lo_lg) + rev(hi), so
 * base^rev(p) = tab[rev(lo)] * base^rev(hi) with tab[j] = (base^(2^(lg - lo_lg)))^j.
 * Units are values of hi. */
static void scale_rev_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct scale_ctx *s = vctx;
    const unsigned lo_lg = s->lg < NTT_SCALE_LO_LG ? s->lg : NTT_SCALE_LO_LG;
    const unsigned hi_lg = s->lg - lo_lg;
    const size_t nlo = (size_t)1 << lo_lg;
    fr_t tab[(size_t)1 << NTT_SCALE_LO_LG];
    fr_t step = s->base;

    (void)worker;
    for (unsigned i = 0; i < hi_lg; i++) {
        fr_sqr(&step, &step);
    }
    tab[0] = FR_ONE;
    for (size_t j = 1; j < nlo; j++) {
        fr_mul(&tab[j], &tab[j - 1], &step);
    }
    for (size_t hi = begin; hi < end; hi++) {
        fr_t g;
        fr_t *row = s->x + hi * nlo;
        fr_pow_u64(&g, &s->base, ntt_rev_bits((uint32_t)hi, hi_lg));
        fr_mul(&g, &g, &s->c);
        for (size_t lo = 0; lo < nlo; lo++) {
            fr_mul(&row[lo], &row[lo], &tab[ntt_rev_bits((uint32_t)lo, lo_lg)]);
            fr_mul(&row[lo], &row[lo], &g);
        }
    }
}

void ntt_scale_rev(fr_t *x, unsigned lg, const fr_t *c, const fr_t *base, cz_pool *pool)
{
    struct scale_ctx s = {.x = x, .lg = lg, .c = *c, .base = *base};
    unsigned lo_lg = lg < NTT_SCALE_LO_LG ? lg : NTT_SCALE_LO_LG;

    CZ_CHECK(lg <= NTT_MAX_LG);
    cz_pool_for(pool, (size_t)1 << (lg - lo_lg), 16, scale_rev_task, &s);
}

/* ---- natural-order transforms ---- */

void ntt_fwd(const ntt_domain_t *d, fr_t *x, cz_pool *pool)
{
    ntt_dif_nr(d, x, NTT_DIR_FWD, pool);
    ntt_bitrev(x, d->lg, NULL, pool);
}

void ntt_inv(const ntt_domain_t *d, fr_t *x, cz_pool *pool)
{
    ntt_dif_nr(d, x, NTT_DIR_INV, pool);
    ntt_bitrev(x, d->lg, &d->n_inv, pool);
}

void ntt_coset_fwd(const ntt_domain_t *d, fr_t *x, cz_pool *pool)
{
    ntt_scale_pow(x, d->n, &FR_ONE, &d->g, pool);
    ntt_dif_nr(d, x, NTT_DIR_FWD, pool);
    ntt_bitrev(x, d->lg, NULL, pool);
}

void ntt_coset_inv(const ntt_domain_t *d, fr_t *x, cz_pool *pool)
{
    ntt_dif_nr(d, x, NTT_DIR_INV, pool);
    ntt_scale_rev(x, d->lg, &d->n_inv, &d->g_inv, pool);
    ntt_bitrev(x, d->lg, NULL, pool);
}
