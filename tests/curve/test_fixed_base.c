/* test_fixed_base.c - fixed-base batch multiplication (curve/fixed_base.c) against the naive
 * right-to-left double-and-add of curve_util.h (Jacobian, no windows, no tables).
 *
 * Scalars: random canonical ones, edge values (0, 1, 2, r - 1, every digit at its maximum,
 * 2^255 - 1), random values in [r, 2^255), and the two scalars that make the affine batch
 * addition meet its exceptional case in the top window (the partial sum equals the table entry
 * or its negation): k = r (the partial sum is -T, the result the identity) and k = 2 D - r for
 * D = d 2^(w (nwin - 1)) the multiple of the top window closest to r (the partial sum is D - r,
 * i.e. the same point as T: a doubling). Bases: the generators, random subgroup points, the
 * identity and points of E outside the subgroup (for which [r]P is not the identity). Batch
 * sizes that are not multiples of the 256-scalar batches; with and without a pool (the bytes
 * must agree). Randomized: replay with --seed.
 */
#include "curve_util.h"

#include <stdlib.h>

#include "common/pool.h"

/* r, little-endian limbs (spec groth16.md 1.1) */
static const uint64_t R_LIMBS[4] = {0xffffffff00000001ull, 0x53bda402fffe5bfeull,
                                    0x3339d80809a1d805ull, 0x73eda753299d7d48ull};

static unsigned nwin_of(unsigned w)
{
    return (256 + w - 1) / w;
}

/* out = a - b over 4 limbs; returns the borrow. */
static unsigned sub256(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned borrow = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t t = a[i] - b[i];
        unsigned b1 = a[i] < b[i];
        uint64_t u = t - borrow;
        unsigned b2 = t < borrow;
        out[i] = u;
        borrow = b1 | b2;
    }
    return borrow;
}

/* out = a + b over 4 limbs; returns the carry. */
static unsigned add256(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    unsigned carry = 0;
    for (int i = 0; i < 4; i++) {
        uint64_t t = a[i] + b[i];
        unsigned c1 = t < a[i];
        uint64_t u = t + carry;
        unsigned c2 = u < t;
        out[i] = u;
        carry = c1 | c2;
    }
    return carry;
}

/* 2^bit as 4 limbs (bit < 256). */
static void pow2_256(uint64_t out[4], unsigned bit)
{
    memset(out, 0, 4 * sizeof(uint64_t));
    out[bit / 64] = 1ull << (bit % 64);
}

/* The doubling scalar of the file comment for window w: false when it is not below 2^255 for
 * this w (then the window layout cannot meet the case with canonical-size scalars). */
static bool doubling_scalar(fr_repr_t *out, unsigned w)
{
    unsigned W = w * (nwin_of(w) - 1);
    uint64_t d[4], half[4], k[4];

    /* D = round(r / 2^W) 2^W = (r + 2^(W-1)) with the low W bits cleared */
    pow2_256(half, W - 1);
    add256(d, R_LIMBS, half);
    for (unsigned b = 0; b < W; b++) {
        d[b / 64] &= ~(1ull << (b % 64));
    }
    /* k = 2 D - r */
    if (add256(k, d, d) || sub256(k, k, R_LIMBS) || (k[3] >> 63) != 0) {
        return false;
    }
    memcpy(out->l, k, sizeof(k));
    return true;
}

static void fill_scalars(fr_repr_t *k, size_t n, unsigned w, cz_prng *g)
{
    size_t i = 0;

    CHECK(n >= 16);
    memset(k, 0, n * sizeof(*k)); /* k[0] = 0 */
    i = 1;
    k[i++].l[0] = 1;
    k[i++].l[0] = 2;
    memcpy(k[i].l, R_LIMBS, sizeof(R_LIMBS)); /* r - 1 */
    k[i++].l[0] -= 1;
    memcpy(k[i++].l, R_LIMBS, sizeof(R_LIMBS)); /* r: the identity */
    if (doubling_scalar(&k[i], w)) {
        i++;
    }
    for (int l = 0; l < 4; l++) { /* 2^255 - 1 */
        k[i].l[l] = l == 3 ? UINT64_MAX >> 1 : UINT64_MAX;
    }
    i++;
    /* every digit 2^(w-1) below bit 255 (the recoding's largest positive digits) */
    for (unsigned b = w - 1; b < 255; b += w) {
        k[i].l[b / 64] |= 1ull << (b % 64);
    }
    i++;
    /* digits just above 2^(w-1): negative digits with carries */
    for (unsigned b = 0; b < 255; b++) {
        if (b % w == w - 1 || b % w == 0) {
            k[i].l[b / 64] |= 1ull << (b % 64);
        }
    }
    i++;
    k[i++].l[0] = ((uint64_t)1 << w) - 1;
    while (i < n) {
        unsigned kind = (unsigned)cz_prng_below(g, 10);
        if (kind == 0) {
            /* [r, 2^255) */
            uint64_t x[4];
            do {
                for (int l = 0; l < 4; l++) {
                    x[l] = cz_prng_u64(g);
                }
                x[3] &= UINT64_MAX >> 1;
            } while (sub256(k[i].l, x, R_LIMBS)); /* until x >= r */
            memcpy(k[i].l, x, sizeof(x));
        } else if (kind == 1) {
            k[i].l[0] = cz_prng_below(g, (uint64_t)1 << w);
        } else {
            rand_fr_repr(g, &k[i]);
        }
        i++;
    }
}

static void check_g1(const g1_aff_t *base, unsigned w, size_t n, cz_pool *pool, cz_prng *g)
{
    size_t tlen = g1_fb_table_len(w);
    g1_aff_t *tab = malloc(tlen * sizeof(g1_aff_t));
    g1_aff_t *tab2 = malloc(tlen * sizeof(g1_aff_t));
    g1_aff_t *out = malloc(n * sizeof(g1_aff_t));
    g1_aff_t *out2 = malloc(n * sizeof(g1_aff_t));
    fr_repr_t *k = malloc(n * sizeof(fr_repr_t));
    g1_t p;

    CHECK(tab && tab2 && out && out2 && k);
    CHECK_EQ_U64(tlen, (size_t)nwin_of(w) << (w - 1));
    fill_scalars(k, n, w, g);
    g1_fb_table_init(tab, base, w, pool);
    g1_fb_table_init(tab2, base, w, NULL);
    CHECK_MSG(memcmp(tab, tab2, tlen * sizeof(g1_aff_t)) == 0, "w=%u: table depends on the pool",
              w);
    g1_fb_mul(out, tab, w, k, n, pool);
    g1_fb_mul(out2, tab, w, k, n, NULL);
    CHECK_MSG(memcmp(out, out2, n * sizeof(g1_aff_t)) == 0, "w=%u: result depends on the pool", w);
    g1_from_aff(&p, base);
    for (size_t i = 0; i < n; i++) {
        g1_t want;
        g1_aff_t wa;
        g1_mul_naive(&want, &p, k[i].l, 4);
        g1_to_aff(&wa, &want);
        CHECK_MSG(g1_aff_eq(&wa, &out[i]), "w=%u scalar %zu (%016llx...%016llx)", w, i,
                  (unsigned long long)k[i].l[3], (unsigned long long)k[i].l[0]);
    }
    free(tab);
    free(tab2);
    free(out);
    free(out2);
    free(k);
}

static void check_g2(const g2_aff_t *base, unsigned w, size_t n, cz_pool *pool, cz_prng *g)
{
    size_t tlen = g2_fb_table_len(w);
    g2_aff_t *tab = malloc(tlen * sizeof(g2_aff_t));
    g2_aff_t *out = malloc(n * sizeof(g2_aff_t));
    g2_aff_t *out2 = malloc(n * sizeof(g2_aff_t));
    fr_repr_t *k = malloc(n * sizeof(fr_repr_t));
    g2_t p;

    CHECK(tab && out && out2 && k);
    CHECK_EQ_U64(tlen, (size_t)nwin_of(w) << (w - 1));
    fill_scalars(k, n, w, g);
    g2_fb_table_init(tab, base, w, pool);
    g2_fb_mul(out, tab, w, k, n, pool);
    g2_fb_mul(out2, tab, w, k, n, NULL);
    CHECK_MSG(memcmp(out, out2, n * sizeof(g2_aff_t)) == 0, "w=%u: result depends on the pool", w);
    g2_from_aff(&p, base);
    for (size_t i = 0; i < n; i++) {
        g2_t want;
        g2_aff_t wa;
        g2_mul_naive(&want, &p, k[i].l, 4);
        g2_to_aff(&wa, &want);
        CHECK_MSG(g2_aff_eq(&wa, &out[i]), "w=%u scalar %zu (%016llx...%016llx)", w, i,
                  (unsigned long long)k[i].l[3], (unsigned long long)k[i].l[0]);
    }
    free(tab);
    free(out);
    free(out2);
    free(k);
}

TEST(fb_doubling_scalar_exists)
{
    /* the windows used below do reach the top-window doubling case with k < 2^255 */
    static const unsigned ws[] = {8, 10, 13, 16};
    for (size_t i = 0; i < ARRAY_LEN(ws); i++) {
        fr_repr_t k;
        CHECK_MSG(doubling_scalar(&k, ws[i]), "w=%u", ws[i]);
    }
}

TEST(fb_g1_matches_naive)
{
    static const unsigned ws[] = {2, 3, 8, 10, 13, 16};
    cz_pool *pool = NULL;
    g1_aff_t base;
    g1_t t;

    CHECK_OK(cz_pool_new(&pool, 2, "fb-test", NULL));
    for (size_t i = 0; i < ARRAY_LEN(ws); i++) {
        check_g1(&G1_GEN, ws[i], i == 0 ? 300 : 90, pool, test_prng());
    }
    rand_g1(test_prng(), &t);
    g1_to_aff(&base, &t);
    check_g1(&base, 10, 600, pool, test_prng()); /* three batches, the last one partial */
    check_g1(&base, 5, 40, NULL, test_prng());
    cz_pool_free(pool);
}

TEST(fb_g1_identity_and_non_subgroup_bases)
{
    g1_aff_t base;

    g1_aff_set_identity(&base);
    check_g1(&base, 4, 40, NULL, test_prng());
    for (int i = 0; i < 3; i++) {
        rand_e1(test_prng(), &base);
        check_g1(&base, i == 0 ? 13 : 3 + (unsigned)i, 60, NULL, test_prng());
    }
}

TEST(fb_g2_matches_naive)
{
    static const unsigned ws[] = {2, 8, 13};
    cz_pool *pool = NULL;
    g2_aff_t base;
    g2_t t;

    CHECK_OK(cz_pool_new(&pool, 2, "fb-test", NULL));
    for (size_t i = 0; i < ARRAY_LEN(ws); i++) {
        check_g2(&G2_GEN, ws[i], 60, pool, test_prng());
    }
    rand_g2(test_prng(), &t);
    g2_to_aff(&base, &t);
    check_g2(&base, 7, 300, pool, test_prng());
    g2_aff_set_identity(&base);
    check_g2(&base, 3, 20, NULL, test_prng());
    rand_e2(test_prng(), &base);
    check_g2(&base, 10, 40, NULL, test_prng());
    cz_pool_free(pool);
}

TEST(fb_window_choice)
{
    unsigned prev = G1_FB_MIN_WINDOW;
    for (size_t n = 1; n < ((size_t)1 << 28); n *= 2) {
        unsigned w1 = g1_fb_window(n), w2 = g2_fb_window(n);
        CHECK(w1 >= G1_FB_MIN_WINDOW && w1 <= G1_FB_MAX_WINDOW);
        CHECK(w2 >= G2_FB_MIN_WINDOW && w2 <= G2_FB_MAX_WINDOW);
        CHECK_MSG(w1 >= prev, "window shrinks with n: %u after %u at n = %zu", w1, prev, n);
        prev = w1;
    }
    CHECK_EQ_U64(g1_fb_window((size_t)1 << 24), G1_FB_MAX_WINDOW);
}
