/* curve_util.h - helpers shared by the curve tests: random field elements, scalars and points
 * (in and outside the subgroups), Jacobian rescaling, and a naive double-and-add reference.
 */
#ifndef CUZK_TESTS_CURVE_CURVE_UTIL_H
#define CUZK_TESTS_CURVE_CURVE_UTIL_H

#include "harness/test.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"

static inline bool curve_util_zero(const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (b[i]) {
            return false;
        }
    }
    return true;
}

static inline void rand_fp(cz_prng *g, fp_t *out)
{
    uint64_t v[FP_NLIMBS];
    do {
        for (size_t i = 0; i < FP_NLIMBS; i++) {
            v[i] = cz_prng_u64(g);
        }
        v[FP_NLIMBS - 1] &= (1ull << 61) - 1; /* 381 bits, then reject >= p */
    } while (!fp_from_limbs(out, v));
}

static inline void rand_fp_nonzero(cz_prng *g, fp_t *out)
{
    do {
        rand_fp(g, out);
    } while (fp_is_zero(out));
}

static inline void rand_fp2(cz_prng *g, fp2_t *out)
{
    rand_fp(g, &out->c0);
    rand_fp(g, &out->c1);
}

/* A uniform scalar in [0, r). */
static inline void rand_fr(cz_prng *g, fr_t *out)
{
    fr_repr_t r;
    do {
        for (size_t i = 0; i < FR_NLIMBS; i++) {
            r.l[i] = cz_prng_u64(g);
        }
        r.l[FR_NLIMBS - 1] &= (1ull << 63) - 1;
    } while (!fr_from_repr(out, &r));
}

static inline void rand_fr_repr(cz_prng *g, fr_repr_t *out)
{
    fr_t k;
    rand_fr(g, &k);
    fr_to_repr(out, &k);
}

/* (l^2 X, l^3 Y, l Z) for a random nonzero l: the same point with another Z. */
static inline void g1_rescale(cz_prng *g, g1_t *p)
{
    fp_t l, l2, l3;
    rand_fp_nonzero(g, &l);
    fp_sqr(&l2, &l);
    fp_mul(&l3, &l2, &l);
    fp_mul(&p->x, &p->x, &l2);
    fp_mul(&p->y, &p->y, &l3);
    fp_mul(&p->z, &p->z, &l);
}

static inline void g2_rescale(cz_prng *g, g2_t *p)
{
    fp2_t l, l2, l3;
    do {
        rand_fp2(g, &l);
    } while (fp2_is_zero(&l));
    fp2_sqr(&l2, &l);
    fp2_mul(&l3, &l2, &l);
    fp2_mul(&p->x, &p->x, &l2);
    fp2_mul(&p->y, &p->y, &l3);
    fp2_mul(&p->z, &p->z, &l);
}

/* A random element of G1 ([k] G1_GEN, k random) with a random Z. */
static inline void rand_g1(cz_prng *g, g1_t *out)
{
    fr_repr_t k;
    g1_t gen;
    rand_fr_repr(g, &k);
    g1_from_aff(&gen, &G1_GEN);
    g1_mul(out, &gen, &k);
    g1_rescale(g, out);
}

static inline void rand_g2(cz_prng *g, g2_t *out)
{
    fr_repr_t k;
    g2_t gen;
    rand_fr_repr(g, &k);
    g2_from_aff(&gen, &G2_GEN);
    g2_mul(out, &gen, &k);
    g2_rescale(g, out);
}

/* A random point of E(Fp) (random x until x^3 + 4 is a square; random sign). Almost surely
 * outside G1. */
static inline void rand_e1(cz_prng *g, g1_aff_t *out)
{
    fp_t rhs, b;
    fp_from_u64(&b, 4);
    for (;;) {
        rand_fp(g, &out->x);
        fp_sqr(&rhs, &out->x);
        fp_mul(&rhs, &rhs, &out->x);
        fp_add(&rhs, &rhs, &b);
        if (fp_sqrt(&out->y, &rhs)) {
            break;
        }
    }
    if (cz_prng_u64(g) & 1) {
        fp_neg(&out->y, &out->y);
    }
}

/* A random point of E'(Fp2). */
static inline void rand_e2(cz_prng *g, g2_aff_t *out)
{
    fp2_t rhs, b;
    fp_from_u64(&b.c0, 4);
    fp_from_u64(&b.c1, 4);
    for (;;) {
        rand_fp2(g, &out->x);
        fp2_sqr(&rhs, &out->x);
        fp2_mul(&rhs, &rhs, &out->x);
        fp2_add(&rhs, &rhs, &b);
        if (fp2_sqrt(&out->y, &rhs)) {
            break;
        }
    }
    if (cz_prng_u64(g) & 1) {
        fp2_neg(&out->y, &out->y);
    }
}

/* Reference scalar multiplications: right-to-left double and add over the bits of k. */
static inline void g1_mul_naive(g1_t *out, const g1_t *p, const uint64_t *k, size_t n)
{
    g1_t acc, d = *p;
    g1_set_identity(&acc);
    for (size_t i = 0; i < 64 * n; i++) {
        if ((k[i / 64] >> (i % 64)) & 1) {
            g1_add(&acc, &acc, &d);
        }
        g1_dbl(&d, &d);
    }
    *out = acc;
}

static inline void g2_mul_naive(g2_t *out, const g2_t *p, const uint64_t *k, size_t n)
{
    g2_t acc, d = *p;
    g2_set_identity(&acc);
    for (size_t i = 0; i < 64 * n; i++) {
        if ((k[i / 64] >> (i % 64)) & 1) {
            g2_add(&acc, &acc, &d);
        }
        g2_dbl(&d, &d);
    }
    *out = acc;
}

/* Multi-limb a * b (na + nb <= 16 limbs), for building cofactor multiples in tests. */
static inline size_t limbs_mul(uint64_t *out, const uint64_t *a, size_t na, const uint64_t *b,
                               size_t nb)
{
    uint32_t x[32] = {0}, y[32] = {0};
    uint64_t acc[64] = {0};
    size_t nx = 2 * na, ny = 2 * nb;
    CZ_CHECK(na + nb <= 16);
    for (size_t i = 0; i < na; i++) {
        x[2 * i] = (uint32_t)a[i];
        x[2 * i + 1] = (uint32_t)(a[i] >> 32);
    }
    for (size_t i = 0; i < nb; i++) {
        y[2 * i] = (uint32_t)b[i];
        y[2 * i + 1] = (uint32_t)(b[i] >> 32);
    }
    for (size_t i = 0; i < nx; i++) {
        uint64_t carry = 0;
        for (size_t j = 0; j < ny; j++) {
            uint64_t t = (uint64_t)x[i] * y[j] + acc[i + j] + carry;
            acc[i + j] = t & 0xffffffffu;
            carry = t >> 32;
        }
        acc[i + ny] += carry;
    }
    for (size_t i = 0; i < na + nb; i++) {
        out[i] = acc[2 * i] | (acc[2 * i + 1] << 32);
    }
    return na + nb;
}

/* a mod d for d < 2^32. */
static inline uint64_t limbs_mod_small(const uint64_t *a, size_t n, uint64_t d)
{
    uint64_t rem = 0;
    CZ_CHECK(d < (1ull << 32));
    for (size_t i = n; i-- > 0;) {
        rem = ((rem << 32) | (a[i] >> 32)) % d;
        rem = ((rem << 32) | (a[i] & 0xffffffffu)) % d;
    }
    return rem;
}

/* q = a / d for a small divisor d (exact division assumed by the caller; checked). */
static inline void limbs_div_small(uint64_t *q, const uint64_t *a, size_t n, uint64_t d)
{
    uint64_t rem = 0;
    CZ_CHECK(d < (1ull << 32));
    for (size_t i = n; i-- > 0;) {
        uint64_t hi = (rem << 32) | (a[i] >> 32);
        uint64_t qh = hi / d;
        uint64_t lo;
        rem = hi % d;
        lo = (rem << 32) | (a[i] & 0xffffffffu);
        q[i] = (qh << 32) | (lo / d);
        rem = lo % d;
    }
    CZ_CHECK(rem == 0);
}

/* out (n limbs) = h / q^m for a prime factor q of the cofactor h (n limbs), q^m the largest
 * power of q dividing h. Small q divide directly; the one large prime factor (of h2, m = 1) is
 * handled as h / q = the product of the small prime powers in h, which fits in 64 bits.
 * `small` lists h's prime factors below 2^32. */
static inline void cofactor_strip_prime(uint64_t *out, const uint64_t *h, size_t n,
                                        const uint64_t *q, size_t qn, const uint64_t *small,
                                        size_t nsmall)
{
    uint64_t m[16], s = 1;
    CZ_CHECK(n <= 16);
    memcpy(m, h, n * sizeof(uint64_t));
    if (qn == 1 && q[0] < (1ull << 32)) {
        while (limbs_mod_small(m, n, q[0]) == 0) {
            limbs_div_small(m, m, n, q[0]);
        }
        memcpy(out, m, n * sizeof(uint64_t));
        return;
    }
    for (size_t i = 0; i < nsmall; i++) {
        while (limbs_mod_small(m, n, small[i]) == 0) {
            limbs_div_small(m, m, n, small[i]);
            s *= small[i];
        }
    }
    for (size_t i = 0; i < n; i++) {
        CZ_CHECK(i < qn ? m[i] == q[i] : m[i] == 0); /* what is left is q itself */
        out[i] = i == 0 ? s : 0;
    }
}

#endif /* CUZK_TESTS_CURVE_CURVE_UTIL_H */
