/* test_poly.c - evaluation domains, NTTs and the Groth16 quotient.
 * Independent references: the root-of-unity values printed in spec groth16.md 1.4 (themselves
 * taken from blstrs / sppark); a naive O(n^2) DFT and Horner evaluation built only on fr_mul;
 * a naive permutation; schoolbook polynomial multiplication and division by x^n - 1; and, for
 * large domains, the polynomial identity A*B - C = H*Z checked at a random point through
 * Lagrange interpolation (no NTT involved).
 */
#include "harness/test.h"

#include <stdlib.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/pool.h"
#include "field/bls12_381_consts.h"
#include "field/fr.h"
#include "poly/internal.h"
#include "poly/poly.h"

/* ---- helpers ---- */

/* Big-endian hex of any length up to 64 digits (as the spec prints values) -> fr_t. */
static fr_t fr_from_hex(const char *hex)
{
    char buf[65];
    uint8_t be[32], le[32];
    size_t len = strlen(hex);
    fr_t out;

    CHECK(len <= 64);
    memset(buf, '0', 64 - len);
    memcpy(buf + 64 - len, hex, len + 1);
    CHECK(cz_hex_decode(be, 32, buf));
    for (size_t i = 0; i < 32; i++) {
        le[i] = be[31 - i];
    }
    CHECK_OK(fr_from_bytes(&out, le));
    return out;
}

static void check_fr_eq(const fr_t *got, const fr_t *want, const char *what, size_t i)
{
    if (!fr_eq(got, want)) {
        uint8_t g[32], w[32];
        char gs[65], ws[65];
        fr_to_bytes(g, got);
        fr_to_bytes(w, want);
        cz_hex_encode(gs, g, 32);
        cz_hex_encode(ws, w, 32);
        test_fail(__FILE__, __LINE__, "%s[%zu]: got %s (LE) want %s (LE)", what, i, gs, ws);
    }
}

static fr_t rand_fr(void)
{
    uint64_t v[4];
    fr_t out;
    cz_prng *g = test_prng();

    for (int i = 0; i < 4; i++) {
        v[i] = cz_prng_u64(g);
    }
    fr_from_u256_reduce(&out, v);
    return out;
}

static fr_t *alloc_fr(size_t n)
{
    fr_t *p = cz_malloc_aligned(n * sizeof(fr_t), 64);
    CHECK(p != NULL);
    return p;
}

static void rand_vec(fr_t *x, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        x[i] = rand_fr();
    }
}

/* A domain with its own twiddle table; free with dom_free. */
static ntt_domain_t dom_new(unsigned lg)
{
    ntt_domain_t d;
    void *tw = cz_malloc_aligned(ntt_domain_tw_sizeof(lg), 64);

    CHECK(tw != NULL);
    CHECK(ntt_domain_init(&d, lg, tw, NULL));
    return d;
}

static void dom_free(ntt_domain_t *d)
{
    cz_free_aligned((void *)d->tw);
    d->tw = NULL;
}

static fr_t fr_u64(uint64_t v)
{
    fr_t out;
    fr_from_u64(&out, v);
    return out;
}

/* p(z) = sum_i coef[i] z^i (Horner). */
static fr_t horner(const fr_t *coef, size_t n, const fr_t *z)
{
    fr_t acc = FR_ZERO;

    for (size_t i = n; i-- > 0;) {
        fr_mul(&acc, &acc, z);
        fr_add(&acc, &acc, &coef[i]);
    }
    return acc;
}

/* out[j] = scale * sum_i x[i] (shift w^j)^i: naive coset DFT. */
static void naive_dft(fr_t *out, const fr_t *x, size_t n, const fr_t *w, const fr_t *shift,
                      const fr_t *scale)
{
    fr_t wj = FR_ONE;

    for (size_t j = 0; j < n; j++) {
        fr_t z;
        fr_mul(&z, &wj, shift);
        out[j] = horner(x, n, &z);
        fr_mul(&out[j], &out[j], scale);
        fr_mul(&wj, &wj, w);
    }
}

/* ---- domain constants ---- */

TEST(root_of_unity_matches_spec)
{
    fr_t seven = fr_u64(7), root, want;

    /* ROOT_OF_UNITY = 7^t, t = (r-1)/2^32 (spec 1.4) */
    fr_pow(&root, &seven, FR_TRACE, 4);
    want = fr_from_hex("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b");
    check_fr_eq(&root, &want, "7^t", 0);
    ntt_root_of_unity(&root, 32);
    check_fr_eq(&root, &want, "omega_32", 0);

    /* omega_1 = r - 1 */
    fr_t minus_one;
    fr_neg(&minus_one, &FR_ONE);
    want = fr_from_hex("73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000");
    check_fr_eq(&minus_one, &want, "r-1", 0);
    ntt_root_of_unity(&root, 1);
    check_fr_eq(&root, &want, "omega_1", 1);
    ntt_root_of_unity(&root, 2);
    want = fr_from_hex("8d51ccce760304d0ec030002760300000001000000000000");
    check_fr_eq(&root, &want, "omega_2", 2);
    ntt_root_of_unity(&root, 3);
    want = fr_from_hex("345766f603fa66e78c0625cd70d77ce2b38b21c28713b7007228fd3397743f7a");
    check_fr_eq(&root, &want, "omega_3", 3);
    ntt_root_of_unity(&root, 27);
    want = fr_from_hex("23397a9300f8f98bece8ea224f31d25db94f1101b1d7a628e2d0a7869f0319ed");
    check_fr_eq(&root, &want, "omega_27", 27);
    ntt_root_of_unity(&root, 0);
    check_fr_eq(&root, &FR_ONE, "omega_0", 0);
}

TEST(roots_are_primitive)
{
    for (unsigned k = 1; k <= 32; k++) {
        fr_t w, minus_one;
        ntt_root_of_unity(&w, k);
        for (unsigned i = 0; i + 1 < k; i++) {
            fr_sqr(&w, &w);
        }
        fr_neg(&minus_one, &FR_ONE);
        check_fr_eq(&w, &minus_one, "omega_k^(2^(k-1))", k); /* order exactly 2^k */
    }
}

TEST(domain_fields)
{
    fr_t seven_inv =
        fr_from_hex("211f5460e751918257c7624b7077624aaa362edc49241a48db6db6db24924925");

    for (unsigned k = 0; k <= 12; k++) {
        ntt_domain_t d = dom_new(k);
        fr_t w, t, n = fr_u64((uint64_t)1 << k);
        CHECK_EQ_U64(d.lg, k);
        CHECK_EQ_U64(d.n, (size_t)1 << k);
        ntt_root_of_unity(&w, k);
        check_fr_eq(&d.omega, &w, "omega", k);
        fr_mul(&t, &d.omega, &d.omega_inv);
        check_fr_eq(&t, &FR_ONE, "omega*omega_inv", k);
        fr_mul(&t, &d.n_inv, &n);
        check_fr_eq(&t, &FR_ONE, "n*n_inv", k);
        t = fr_u64(7);
        check_fr_eq(&d.g, &t, "g", k);
        check_fr_eq(&d.g_inv, &seven_inv, "g_inv", k);
        fr_pow_u64(&t, &d.g, (uint64_t)1 << k); /* (7^n - 1) * zinv = 1 */
        fr_sub(&t, &t, &FR_ONE);
        fr_mul(&t, &t, &d.z_coset_inv);
        check_fr_eq(&t, &FR_ONE, "z_coset_inv", k);
        size_t half = k ? d.n / 2 : 1;
        for (size_t i = 0; i < half; i++) {
            fr_pow_u64(&t, &d.omega, i);
            check_fr_eq(&d.tw[i], &t, "tw", i);
        }
        dom_free(&d);
    }
}

TEST(domain_size_rules)
{
    unsigned lg = 99;
    CHECK(ntt_lg_for(&lg, 0) && lg == 0);
    CHECK(ntt_lg_for(&lg, 1) && lg == 0);
    CHECK(ntt_lg_for(&lg, 2) && lg == 1);
    CHECK(ntt_lg_for(&lg, 3) && lg == 2);
    CHECK(ntt_lg_for(&lg, 1024) && lg == 10);
    CHECK(ntt_lg_for(&lg, 1025) && lg == 11);
    CHECK(ntt_lg_for(&lg, 130278869) && lg == 27); /* PoRep 32 GiB constraints (spec 6) */
    CHECK(ntt_lg_for(&lg, (size_t)1 << 31) && lg == 31);
    lg = 99;
    CHECK(!ntt_lg_for(&lg, ((size_t)1 << 31) + 1));
    CHECK(!ntt_lg_for(&lg, (size_t)1 << 32));
    CHECK_EQ_U64(lg, 99);

    ntt_domain_t d;
    fr_t dummy;
    memset(&d, 0xa5, sizeof(d));
    CHECK(!ntt_domain_init(&d, 32, &dummy, NULL));
    CHECK(!ntt_domain_init(&d, 40, &dummy, NULL));
    CHECK_EQ_U64(d.lg, 0xa5a5a5a5u); /* untouched */
    CHECK_EQ_U64(ntt_domain_tw_sizeof(0), 32);
    CHECK_EQ_U64(ntt_domain_tw_sizeof(1), 32);
    CHECK_EQ_U64(ntt_domain_tw_sizeof(27), (size_t)1 << 31);
}

/* ---- transforms against the naive DFT ---- */

/* Layouts to run: the default and small ones that reach the multi-pass code at small n. */
static const unsigned layouts[][2] = {{12, 8}, {1, 1}, {2, 3}, {3, 2}, {4, 8}, {1, 5}};

TEST(ntt_vs_naive_dft)
{
    for (unsigned k = 0; k <= 6; k++) {
        ntt_domain_t d = dom_new(k);
        size_t n = d.n;
        fr_t *x = alloc_fr(n), *y = alloc_fr(n), *want = alloc_fr(n);
        rand_vec(x, n);
        for (size_t L = 0; L < ARRAY_LEN(layouts); L++) {
            d.blk_lg = layouts[L][0];
            d.pass_lg = layouts[L][1];

            /* forward: X[j] = sum x[i] w^ij */
            naive_dft(want, x, n, &d.omega, &FR_ONE, &FR_ONE);
            memcpy(y, x, n * sizeof(fr_t));
            ntt_fwd(&d, y, NULL);
            for (size_t j = 0; j < n; j++) {
                check_fr_eq(&y[j], &want[j], "ntt_fwd", j);
            }
            /* inverse: n^-1 sum x[i] w^-ij */
            naive_dft(want, x, n, &d.omega_inv, &FR_ONE, &d.n_inv);
            memcpy(y, x, n * sizeof(fr_t));
            ntt_inv(&d, y, NULL);
            for (size_t j = 0; j < n; j++) {
                check_fr_eq(&y[j], &want[j], "ntt_inv", j);
            }
            /* coset forward: values at g w^j */
            naive_dft(want, x, n, &d.omega, &d.g, &FR_ONE);
            memcpy(y, x, n * sizeof(fr_t));
            ntt_coset_fwd(&d, y, NULL);
            for (size_t j = 0; j < n; j++) {
                check_fr_eq(&y[j], &want[j], "ntt_coset_fwd", j);
            }
            /* coset inverse: c_i = g^-i n^-1 sum_j x[j] w^-ij */
            naive_dft(want, x, n, &d.omega_inv, &FR_ONE, &d.n_inv);
            for (size_t i = 0; i < n; i++) {
                fr_t gi;
                fr_pow_u64(&gi, &d.g_inv, i);
                fr_mul(&want[i], &want[i], &gi);
            }
            memcpy(y, x, n * sizeof(fr_t));
            ntt_coset_inv(&d, y, NULL);
            for (size_t j = 0; j < n; j++) {
                check_fr_eq(&y[j], &want[j], "ntt_coset_inv", j);
            }
            /* the bit-reversed-order building blocks */
            naive_dft(want, x, n, &d.omega, &FR_ONE, &FR_ONE);
            memcpy(y, x, n * sizeof(fr_t));
            ntt_dif_nr(&d, y, NTT_DIR_FWD, NULL);
            for (size_t j = 0; j < n; j++) {
                check_fr_eq(&y[ntt_rev_bits((uint32_t)j, k)], &want[j], "dif_nr", j);
            }
            naive_dft(want, x, n, &d.omega_inv, &FR_ONE, &FR_ONE);
            for (size_t i = 0; i < n; i++) {
                y[ntt_rev_bits((uint32_t)i, k)] = x[i];
            }
            ntt_dit_rn(&d, y, NTT_DIR_INV, NULL);
            for (size_t j = 0; j < n; j++) {
                check_fr_eq(&y[j], &want[j], "dit_rn inv", j);
            }
        }
        cz_free_aligned(x);
        cz_free_aligned(y);
        cz_free_aligned(want);
        dom_free(&d);
    }
}

TEST(ntt_large_spot_checks)
{
    /* Sizes and layouts that reach several column passes; outputs checked at random indices
     * against Horner evaluation at omega^j and g omega^j. */
    static const unsigned cases[][3] = {{10, 12, 8}, {13, 12, 8}, {14, 4, 3}, {15, 5, 2},
                                        {17, 12, 8}, {16, 1, 4},  {19, 12, 3}};
    cz_prng *g = test_prng();

    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        unsigned k = cases[c][0];
        ntt_domain_t d = dom_new(k);
        size_t n = d.n;
        fr_t *x = alloc_fr(n), *y = alloc_fr(n);
        d.blk_lg = cases[c][1];
        d.pass_lg = cases[c][2];
        rand_vec(x, n);
        memcpy(y, x, n * sizeof(fr_t));
        ntt_fwd(&d, y, NULL);
        for (int t = 0; t < 6; t++) {
            size_t j = t == 0 ? n - 1 : (size_t)cz_prng_below(g, n);
            fr_t z, want;
            fr_pow_u64(&z, &d.omega, j);
            want = horner(x, n, &z);
            check_fr_eq(&y[j], &want, "ntt_fwd", j);
        }
        memcpy(y, x, n * sizeof(fr_t));
        ntt_coset_fwd(&d, y, NULL);
        for (int t = 0; t < 3; t++) {
            size_t j = (size_t)cz_prng_below(g, n);
            fr_t z, want;
            fr_pow_u64(&z, &d.omega, j);
            fr_mul(&z, &z, &d.g);
            want = horner(x, n, &z);
            check_fr_eq(&y[j], &want, "ntt_coset_fwd", j);
        }
        cz_free_aligned(x);
        cz_free_aligned(y);
        dom_free(&d);
    }
}

TEST(ntt_roundtrip)
{
    for (unsigned k = 0; k <= 16; k++) {
        ntt_domain_t d = dom_new(k);
        size_t n = d.n;
        fr_t *x = alloc_fr(n), *y = alloc_fr(n);
        rand_vec(x, n);
        memcpy(y, x, n * sizeof(fr_t));
        ntt_fwd(&d, y, NULL);
        CHECK(n == 1 || memcmp(x, y, n * sizeof(fr_t)) != 0);
        ntt_inv(&d, y, NULL);
        CHECK_MEM_EQ(y, x, n * sizeof(fr_t));
        ntt_inv(&d, y, NULL);
        ntt_fwd(&d, y, NULL);
        CHECK_MEM_EQ(y, x, n * sizeof(fr_t));
        ntt_coset_fwd(&d, y, NULL);
        ntt_coset_inv(&d, y, NULL);
        CHECK_MEM_EQ(y, x, n * sizeof(fr_t));
        cz_free_aligned(x);
        cz_free_aligned(y);
        dom_free(&d);
    }
}

TEST(bitrev_and_scalings_vs_naive)
{
    fr_t c = rand_fr(), base = rand_fr();

    for (unsigned k = 0; k <= 12; k++) {
        size_t n = (size_t)1 << k;
        fr_t *x = alloc_fr(n), *y = alloc_fr(n);
        rand_vec(x, n);

        memcpy(y, x, n * sizeof(fr_t));
        ntt_bitrev(y, k, NULL, NULL);
        for (size_t i = 0; i < n; i++) {
            /* the naive reverse, bit by bit */
            size_t r = 0;
            for (unsigned b = 0; b < k; b++) {
                r |= ((i >> b) & 1) << (k - 1 - b);
            }
            check_fr_eq(&y[r], &x[i], "bitrev", i);
        }
        memcpy(y, x, n * sizeof(fr_t));
        ntt_bitrev(y, k, &c, NULL);
        for (size_t i = 0; i < n; i++) {
            fr_t want;
            fr_mul(&want, &x[ntt_rev_bits((uint32_t)i, k)], &c);
            check_fr_eq(&y[i], &want, "bitrev*c", i);
        }
        memcpy(y, x, n * sizeof(fr_t));
        ntt_scale_rev(y, k, &c, &base, NULL);
        for (size_t i = 0; i < n; i++) {
            fr_t want;
            fr_pow_u64(&want, &base, ntt_rev_bits((uint32_t)i, k));
            fr_mul(&want, &want, &c);
            fr_mul(&want, &want, &x[i]);
            check_fr_eq(&y[i], &want, "scale_rev", i);
        }
        memcpy(y, x, n * sizeof(fr_t));
        ntt_scale_pow(y, n, &c, &base, NULL);
        for (size_t i = 0; i < n; i++) {
            fr_t want;
            fr_pow_u64(&want, &base, i);
            fr_mul(&want, &want, &c);
            fr_mul(&want, &want, &x[i]);
            check_fr_eq(&y[i], &want, "scale_pow", i);
        }
        cz_free_aligned(x);
        cz_free_aligned(y);
    }
}

/* ---- pool ---- */

TEST(pool_matches_single_thread)
{
    static const unsigned cases[][3] = {{5, 12, 8},  {11, 12, 8}, {14, 12, 8},
                                        {16, 12, 8}, {13, 3, 2},  {12, 1, 1}};
    cz_pool *pool = NULL;

    CHECK_OK(cz_pool_new(&pool, 3, "test-poly", NULL));
    for (size_t c = 0; c < ARRAY_LEN(cases); c++) {
        unsigned k = cases[c][0];
        ntt_domain_t d, dp;
        void *tw = cz_malloc_aligned(ntt_domain_tw_sizeof(k), 64);
        void *twp = cz_malloc_aligned(ntt_domain_tw_sizeof(k), 64);
        CHECK(tw && twp);
        CHECK(ntt_domain_init(&d, k, tw, NULL));
        CHECK(ntt_domain_init(&dp, k, twp, pool));
        CHECK_MEM_EQ(tw, twp, ntt_domain_tw_sizeof(k));
        d.blk_lg = dp.blk_lg = cases[c][1];
        d.pass_lg = dp.pass_lg = cases[c][2];
        size_t n = d.n;
        fr_t *x = alloc_fr(n), *y = alloc_fr(n), *z = alloc_fr(n);
        fr_t *b1 = alloc_fr(n), *c1 = alloc_fr(n), *b2 = alloc_fr(n), *c2 = alloc_fr(n);
        rand_vec(x, n);
        void (*const fns[])(const ntt_domain_t *, fr_t *,
                            cz_pool *) = {ntt_fwd, ntt_inv, ntt_coset_fwd, ntt_coset_inv};
        for (size_t f = 0; f < ARRAY_LEN(fns); f++) {
            memcpy(y, x, n * sizeof(fr_t));
            memcpy(z, x, n * sizeof(fr_t));
            fns[f](&d, y, NULL);
            fns[f](&dp, z, pool);
            CHECK_MEM_EQ(y, z, n * sizeof(fr_t));
        }
        /* quotient on random (non-satisfying) data: still bit-identical */
        memcpy(y, x, n * sizeof(fr_t));
        memcpy(z, x, n * sizeof(fr_t));
        rand_vec(b1, n);
        rand_vec(c1, n);
        memcpy(b2, b1, n * sizeof(fr_t));
        memcpy(c2, c1, n * sizeof(fr_t));
        bool s1 = poly_quotient_h(&d, y, b1, c1, n - n / 3, NULL);
        bool s2 = poly_quotient_h(&dp, z, b2, c2, n - n / 3, pool);
        CHECK(s1 == s2);
        CHECK_MEM_EQ(y, z, n * sizeof(fr_t));
        fr_repr_t *r1 = (fr_repr_t *)b1, *r2 = (fr_repr_t *)b2;
        poly_to_repr(r1, y, n, NULL);
        poly_to_repr(r2, z, n, pool);
        CHECK_MEM_EQ(r1, r2, n * sizeof(fr_repr_t));
        cz_free_aligned(x);
        cz_free_aligned(y);
        cz_free_aligned(z);
        cz_free_aligned(b1);
        cz_free_aligned(c1);
        cz_free_aligned(b2);
        cz_free_aligned(c2);
        cz_free_aligned(tw);
        cz_free_aligned(twp);
    }
    cz_pool_free(pool);
}

/* ---- the quotient ---- */

/* Coefficients of h = (A*B) div (x^n - 1) and C = (A*B) mod (x^n - 1) for A, B of degree < n,
 * by schoolbook multiplication: with P = A*B (degree <= 2n-2), h_i = P_(n+i), C_i = P_i + h_i. */
static void naive_h(fr_t *h, fr_t *cc, const fr_t *A, const fr_t *B, size_t n)
{
    fr_t *p = alloc_fr(2 * n);

    for (size_t i = 0; i < 2 * n; i++) {
        p[i] = FR_ZERO;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < n; j++) {
            fr_t t;
            fr_mul(&t, &A[i], &B[j]);
            fr_add(&p[i + j], &p[i + j], &t);
        }
    }
    for (size_t i = 0; i < n; i++) {
        h[i] = p[n + i]; /* p[2n-1] = 0, so h[n-1] = 0 */
        fr_add(&cc[i], &p[i], &p[n + i]);
    }
    cz_free_aligned(p);
}

/* Evaluations of a coefficient vector on the domain, naively. */
static void naive_eval(fr_t *out, const fr_t *coef, const ntt_domain_t *d)
{
    naive_dft(out, coef, d->n, &d->omega, &FR_ONE, &FR_ONE);
}

TEST(quotient_from_random_polynomials)
{
    for (unsigned k = 0; k <= 8; k++) {
        ntt_domain_t d = dom_new(k);
        size_t n = d.n;
        fr_t *A = alloc_fr(n), *B = alloc_fr(n), *C = alloc_fr(n), *H = alloc_fr(n);
        fr_t *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n);
        rand_vec(A, n);
        rand_vec(B, n);
        naive_h(H, C, A, B, n);
        naive_eval(a, A, &d);
        naive_eval(b, B, &d);
        naive_eval(c, C, &d);
        for (size_t i = 0; i < n; i++) { /* the evaluations satisfy a*b = c row by row */
            fr_t t;
            fr_mul(&t, &a[i], &b[i]);
            check_fr_eq(&t, &c[i], "a*b=c", i);
        }
        CHECK(poly_quotient_h(&d, a, b, c, n, NULL));
        for (size_t i = 0; i < n; i++) {
            check_fr_eq(&a[i], &H[i], "h", i);
        }
        /* k >= 1: a random quadratic A*B has a non-zero quotient */
        CHECK(k == 0 || !fr_is_zero(&H[n - 2]));
        cz_free_aligned(A);
        cz_free_aligned(B);
        cz_free_aligned(C);
        cz_free_aligned(H);
        cz_free_aligned(a);
        cz_free_aligned(b);
        cz_free_aligned(c);
        dom_free(&d);
    }
}

TEST(quotient_padded_rows)
{
    /* m < n constraint rows with random a, b and c = a*b; rows [m, n) are garbage on entry and
     * must be treated as zero. Reference: interpolate naively, then schoolbook as above. */
    cz_prng *g = test_prng();

    for (unsigned k = 1; k <= 8; k++) {
        ntt_domain_t d = dom_new(k);
        size_t n = d.n;
        size_t ms[3] = {1, n / 2 + 1, n - (size_t)cz_prng_below(g, n / 2)};
        for (size_t mi = 0; mi < 3; mi++) {
            size_t m = ms[mi] > n ? n : ms[mi];
            fr_t *A = alloc_fr(n), *B = alloc_fr(n), *C = alloc_fr(n), *H = alloc_fr(n);
            fr_t *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n);
            fr_t *a2 = alloc_fr(n), *b2 = alloc_fr(n), *c2 = alloc_fr(n);
            rand_vec(a, n);
            rand_vec(b, n);
            for (size_t i = 0; i < n; i++) {
                if (i >= m) {
                    a[i] = b[i] = FR_ZERO;
                }
                fr_mul(&c[i], &a[i], &b[i]);
            }
            naive_dft(A, a, n, &d.omega_inv, &FR_ONE, &d.n_inv);
            naive_dft(B, b, n, &d.omega_inv, &FR_ONE, &d.n_inv);
            naive_h(H, C, A, B, n);
            memcpy(a2, a, n * sizeof(fr_t));
            memcpy(b2, b, n * sizeof(fr_t));
            memcpy(c2, c, n * sizeof(fr_t));
            for (size_t i = m; i < n; i++) { /* padding must not be read */
                a2[i] = rand_fr();
                b2[i] = rand_fr();
                c2[i] = rand_fr();
            }
            CHECK(poly_quotient_h(&d, a2, b2, c2, m, NULL));
            for (size_t i = 0; i < n; i++) {
                check_fr_eq(&a2[i], &H[i], "h", i);
            }
            /* a non-satisfying row: the top coefficient fires (it equals
             * -delta omega^j / (n (g^n - 1)) != 0 for a change delta of c_j) */
            size_t j = (size_t)cz_prng_below(g, m);
            memcpy(a2, a, n * sizeof(fr_t));
            memcpy(b2, b, n * sizeof(fr_t));
            memcpy(c2, c, n * sizeof(fr_t));
            fr_add(&c2[j], &c2[j], &FR_ONE);
            CHECK(!poly_quotient_h(&d, a2, b2, c2, m, NULL));
            /* likewise a changed a_j with b_j != 0 */
            memcpy(a2, a, n * sizeof(fr_t));
            memcpy(b2, b, n * sizeof(fr_t));
            memcpy(c2, c, n * sizeof(fr_t));
            fr_add(&a2[j], &a2[j], &FR_ONE);
            CHECK(fr_is_zero(&b[j]) || !poly_quotient_h(&d, a2, b2, c2, m, NULL));
            cz_free_aligned(A);
            cz_free_aligned(B);
            cz_free_aligned(C);
            cz_free_aligned(H);
            cz_free_aligned(a);
            cz_free_aligned(b);
            cz_free_aligned(c);
            cz_free_aligned(a2);
            cz_free_aligned(b2);
            cz_free_aligned(c2);
        }
        dom_free(&d);
    }
}

/* p(tau) for p given by its values v on the domain: Lagrange form
 * p(tau) = (tau^n - 1)/n * sum_i v_i omega^i / (tau - omega^i), tau not in the domain. */
static fr_t lagrange_eval(const fr_t *v, const ntt_domain_t *d, const fr_t *tau)
{
    size_t n = d->n;
    fr_t *den = alloc_fr(n), *scr = alloc_fr(n);
    fr_t wi = FR_ONE, acc = FR_ZERO, zt;

    for (size_t i = 0; i < n; i++) {
        fr_sub(&den[i], tau, &wi);
        fr_mul(&wi, &wi, &d->omega);
    }
    fr_batch_inv(den, den, n, scr);
    wi = FR_ONE;
    for (size_t i = 0; i < n; i++) {
        fr_t t;
        fr_mul(&t, &v[i], &wi);
        fr_mul(&t, &t, &den[i]);
        fr_add(&acc, &acc, &t);
        fr_mul(&wi, &wi, &d->omega);
    }
    fr_pow_u64(&zt, tau, n);
    fr_sub(&zt, &zt, &FR_ONE);
    fr_mul(&acc, &acc, &zt);
    fr_mul(&acc, &acc, &d->n_inv);
    cz_free_aligned(den);
    cz_free_aligned(scr);
    return acc;
}

TEST(quotient_large_identity_at_random_point)
{
    /* A(tau) B(tau) - C(tau) == h(tau) (tau^n - 1) at a random tau, with A, B, C the
     * interpolants of a satisfying a, b, c (Schwartz-Zippel; no NTT in the reference). */
    cz_pool *pool = NULL;
    CHECK_OK(cz_pool_new(&pool, 1, "test-poly", NULL));
    for (unsigned k = 13; k <= 16; k += 3) {
        ntt_domain_t d = dom_new(k);
        size_t n = d.n, m = n - 77;
        fr_t *a = alloc_fr(n), *b = alloc_fr(n), *c = alloc_fr(n);
        fr_t *a2 = alloc_fr(n), *b2 = alloc_fr(n), *c2 = alloc_fr(n);
        rand_vec(a, m);
        rand_vec(b, m);
        for (size_t i = 0; i < n; i++) {
            if (i >= m) {
                a[i] = b[i] = FR_ZERO;
            }
            fr_mul(&c[i], &a[i], &b[i]);
        }
        memcpy(a2, a, n * sizeof(fr_t));
        memcpy(b2, b, n * sizeof(fr_t));
        memcpy(c2, c, n * sizeof(fr_t));
        CHECK(poly_quotient_h(&d, a2, b2, c2, m, pool));
        fr_t tau = rand_fr();
        fr_t at = lagrange_eval(a, &d, &tau), bt = lagrange_eval(b, &d, &tau);
        fr_t ct = lagrange_eval(c, &d, &tau), ht = horner(a2, n - 1, &tau), zt, lhs, rhs;
        fr_pow_u64(&zt, &tau, n);
        fr_sub(&zt, &zt, &FR_ONE);
        fr_mul(&lhs, &at, &bt);
        fr_sub(&lhs, &lhs, &ct);
        fr_mul(&rhs, &ht, &zt);
        check_fr_eq(&lhs, &rhs, "A*B-C vs H*Z", k);
        CHECK(!fr_is_zero(&ht));
        /* canonical output, in place in a2's storage */
        fr_repr_t want;
        fr_to_repr(&want, &a2[5]);
        poly_to_repr((fr_repr_t *)a2, a2, n - 1, pool);
        CHECK_MEM_EQ(&((fr_repr_t *)a2)[5], &want, sizeof(want));
        cz_free_aligned(a);
        cz_free_aligned(b);
        cz_free_aligned(c);
        cz_free_aligned(a2);
        cz_free_aligned(b2);
        cz_free_aligned(c2);
        dom_free(&d);
    }
    cz_pool_free(pool);
}
