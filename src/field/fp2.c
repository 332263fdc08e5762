/* fp2.c - Fp2 = Fp[u]/(u^2 + 1). */
#include "field/fp2.h"

#include "field/bls12_381_consts.h"

const fp2_t FP2_ZERO = {{{0}}, {{0}}};
const fp2_t FP2_ONE = {{FP_MONT_R_INIT}, {{0}}};

void fp2_add(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
    fp_add(&out->c0, &a->c0, &b->c0);
    fp_add(&out->c1, &a->c1, &b->c1);
}

void fp2_sub(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
    fp_sub(&out->c0, &a->c0, &b->c0);
    fp_sub(&out->c1, &a->c1, &b->c1);
}

void fp2_neg(fp2_t *out, const fp2_t *a)
{
    fp_neg(&out->c0, &a->c0);
    fp_neg(&out->c1, &a->c1);
}

void fp2_dbl(fp2_t *out, const fp2_t *a)
{
    fp_dbl(&out->c0, &a->c0);
    fp_dbl(&out->c1, &a->c1);
}

void fp2_mul(fp2_t *out, const fp2_t *a, const fp2_t *b)
{
    /* Karatsuba: (a0 + a1 u)(b0 + b1 u) = (a0 b0 - a1 b1) + (s - a0 b0 - a1 b1) u
     * with s = (a0 + a1)(b0 + b1) */
    fp_t t0, t1, sa, sb;
    fp_mul(&t0, &a->c0, &b->c0);
    fp_mul(&t1, &a->c1, &b->c1);
    fp_add(&sa, &a->c0, &a->c1);
    fp_add(&sb, &b->c0, &b->c1);
    fp_mul(&sa, &sa, &sb);
    fp_sub(&out->c0, &t0, &t1);
    fp_sub(&sa, &sa, &t0);
    fp_sub(&out->c1, &sa, &t1);
}

void fp2_sqr(fp2_t *out, const fp2_t *a)
{
    /* (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u */
    fp_t s, d, m;
    fp_add(&s, &a->c0, &a->c1);
    fp_sub(&d, &a->c0, &a->c1);
    fp_mul(&m, &a->c0, &a->c1);
    fp_mul(&out->c0, &s, &d);
    fp_dbl(&out->c1, &m);
}

void fp2_mul_fp(fp2_t *out, const fp2_t *a, const fp_t *b)
{
    fp_mul(&out->c0, &a->c0, b);
    fp_mul(&out->c1, &a->c1, b);
}

void fp2_mul_by_nonresidue(fp2_t *out, const fp2_t *a)
{
    /* (a0 + a1 u)(1 + u) = (a0 - a1) + (a0 + a1) u */
    fp_t t;
    fp_sub(&t, &a->c0, &a->c1);
    fp_add(&out->c1, &a->c0, &a->c1);
    out->c0 = t;
}

void fp2_conj(fp2_t *out, const fp2_t *a)
{
    out->c0 = a->c0;
    fp_neg(&out->c1, &a->c1);
}

void fp2_inv(fp2_t *out, const fp2_t *a)
{
    /* 1 / (a0 + a1 u) = (a0 - a1 u) / (a0^2 + a1^2); the norm is 0 only for a = 0 */
    fp_t n, t;
    fp_sqr(&n, &a->c0);
    fp_sqr(&t, &a->c1);
    fp_add(&n, &n, &t);
    fp_inv(&n, &n);
    fp_mul(&out->c0, &a->c0, &n);
    fp_mul(&t, &a->c1, &n);
    fp_neg(&out->c1, &t);
}

#include "field/fe_fp2.h" /* FE, FE_MUL, ..., bound to the field */
#define FE_POW fp2_pow
#include "field/pow_impl.h"

bool fp2_sqrt(fp2_t *out, const fp2_t *a)
{
    /* Adj and Rodriguez-Henriquez, "Square root computation over even extension fields"
     * (IEEE TC 2014), Algorithm 9, for p = 3 mod 4. The result is squared and compared with
     * a before it is returned. */
    fp2_t a1, alpha, x0, a0, x, chk;
    fp2_t minus_one;

    fp2_neg(&minus_one, &FP2_ONE);
    fp2_pow(&a1, a, FP_SQRT_M3_EXP, FP_NLIMBS); /* a^((p-3)/4) */
    fp2_mul(&x0, &a1, a);                       /* a^((p+1)/4) */
    fp2_mul(&alpha, &a1, &x0);                  /* a^((p-1)/2) */
    fp2_conj(&a0, &alpha);                      /* alpha^p */
    fp2_mul(&a0, &a0, &alpha);                  /* the norm of alpha: a^((p^2-1)/2) */
    if (fp2_eq(&a0, &minus_one)) {
        return false;
    }
    if (fp2_eq(&alpha, &minus_one)) {
        /* x = u * x0 */
        fp_t t = x0.c0;
        fp_neg(&x.c0, &x0.c1);
        x.c1 = t;
    } else {
        fp2_t b;
        fp2_add(&b, &alpha, &FP2_ONE);
        fp2_pow(&b, &b, FP_LEGENDRE_EXP, FP_NLIMBS); /* (1 + alpha)^((p-1)/2) */
        fp2_mul(&x, &b, &x0);
    }
    fp2_sqr(&chk, &x);
    if (!fp2_eq(&chk, a)) {
        return false;
    }
    *out = x;
    return true;
}

bool fp2_is_zero(const fp2_t *a)
{
    return fp_is_zero(&a->c0) && fp_is_zero(&a->c1);
}

bool fp2_eq(const fp2_t *a, const fp2_t *b)
{
    return fp_eq(&a->c0, &b->c0) && fp_eq(&a->c1, &b->c1);
}

bool fp2_is_lexicographically_largest(const fp2_t *a)
{
    if (!fp_is_zero(&a->c1)) {
        return fp_is_lexicographically_largest(&a->c1);
    }
    return fp_is_lexicographically_largest(&a->c0);
}
