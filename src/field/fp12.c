/* fp12.c - the pairing tower Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u, and Fp12 = Fp6[w]/(w^2 - v).
 * Formulas: Devegili, O hEigeartaigh, Scott, Dahab, "Multiplication and Squaring on
 * Pairing-Friendly Fields" (eprint 2006/471): Karatsuba multiplication, CH-SQR2 squaring in Fp6,
 * complex squaring in Fp12; Granger-Scott cyclotomic squaring (eprint 2009/565, section 3.2).
 */
#include "field/fp12.h"

#include "common/bytes.h"
#include "field/bls12_381_consts.h"
#include "field/fp12_frobenius_consts.h"

const fp6_t FP6_ZERO = {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const fp6_t FP6_ONE = {{{FP_MONT_R_INIT}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}};
const fp12_t FP12_ONE = {{{{FP_MONT_R_INIT}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}},
                         {{{{0}}, {{0}}}, {{{0}}, {{0}}}, {{{0}}, {{0}}}}};

/* ---- Fp6 ---- */

void fp6_add(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
    fp2_add(&out->c0, &a->c0, &b->c0);
    fp2_add(&out->c1, &a->c1, &b->c1);
    fp2_add(&out->c2, &a->c2, &b->c2);
}

void fp6_sub(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
    fp2_sub(&out->c0, &a->c0, &b->c0);
    fp2_sub(&out->c1, &a->c1, &b->c1);
    fp2_sub(&out->c2, &a->c2, &b->c2);
}

void fp6_neg(fp6_t *out, const fp6_t *a)
{
    fp2_neg(&out->c0, &a->c0);
    fp2_neg(&out->c1, &a->c1);
    fp2_neg(&out->c2, &a->c2);
}

void fp6_mul(fp6_t *out, const fp6_t *a, const fp6_t *b)
{
    /* t_i = a_i b_i;
     * c0 = t0 + xi ((a1 + a2)(b1 + b2) - t1 - t2)
     * c1 = (a0 + a1)(b0 + b1) - t0 - t1 + xi t2
     * c2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1 */
    fp2_t t0, t1, t2, x, y, c0, c1, c2;
    fp2_mul(&t0, &a->c0, &b->c0);
    fp2_mul(&t1, &a->c1, &b->c1);
    fp2_mul(&t2, &a->c2, &b->c2);

    fp2_add(&x, &a->c1, &a->c2);
    fp2_add(&y, &b->c1, &b->c2);
    fp2_mul(&c0, &x, &y);
    fp2_sub(&c0, &c0, &t1);
    fp2_sub(&c0, &c0, &t2);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&x, &a->c0, &a->c1);
    fp2_add(&y, &b->c0, &b->c1);
    fp2_mul(&c1, &x, &y);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);
    fp2_mul_by_nonresidue(&x, &t2);
    fp2_add(&c1, &c1, &x);

    fp2_add(&x, &a->c0, &a->c2);
    fp2_add(&y, &b->c0, &b->c2);
    fp2_mul(&c2, &x, &y);
    fp2_sub(&c2, &c2, &t0);
    fp2_sub(&c2, &c2, &t2);
    fp2_add(&c2, &c2, &t1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

void fp6_sqr(fp6_t *out, const fp6_t *a)
{
    /* CH-SQR2: s0 = a0^2, s1 = 2 a0 a1, s2 = (a0 - a1 + a2)^2, s3 = 2 a1 a2, s4 = a2^2;
     * c0 = s0 + xi s3, c1 = s1 + xi s4, c2 = s1 + s2 + s3 - s0 - s4 */
    fp2_t s0, s1, s2, s3, s4, t;
    fp2_sqr(&s0, &a->c0);
    fp2_mul(&s1, &a->c0, &a->c1);
    fp2_dbl(&s1, &s1);
    fp2_sub(&t, &a->c0, &a->c1);
    fp2_add(&t, &t, &a->c2);
    fp2_sqr(&s2, &t);
    fp2_mul(&s3, &a->c1, &a->c2);
    fp2_dbl(&s3, &s3);
    fp2_sqr(&s4, &a->c2);

    fp2_add(&out->c2, &s1, &s2);
    fp2_add(&out->c2, &out->c2, &s3);
    fp2_sub(&out->c2, &out->c2, &s0);
    fp2_sub(&out->c2, &out->c2, &s4);
    fp2_mul_by_nonresidue(&t, &s3);
    fp2_add(&out->c0, &s0, &t);
    fp2_mul_by_nonresidue(&t, &s4);
    fp2_add(&out->c1, &s1, &t);
}

void fp6_mul_by_nonresidue(fp6_t *out, const fp6_t *a)
{
    /* (a0 + a1 v + a2 v^2) v = xi a2 + a0 v + a1 v^2 */
    fp2_t t;
    fp2_mul_by_nonresidue(&t, &a->c2);
    out->c2 = a->c1;
    out->c1 = a->c0;
    out->c0 = t;
}

void fp6_mul_by_fp2(fp6_t *out, const fp6_t *a, const fp2_t *b)
{
    fp2_mul(&out->c0, &a->c0, b);
    fp2_mul(&out->c1, &a->c1, b);
    fp2_mul(&out->c2, &a->c2, b);
}

void fp6_mul_by_01(fp6_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1)
{
    /* b = b0 + b1 v: the Karatsuba formulas of fp6_mul with b2 = 0 */
    fp2_t t0, t1, x, y, c0, c1, c2;
    fp2_mul(&t0, &a->c0, b0);
    fp2_mul(&t1, &a->c1, b1);

    fp2_add(&x, &a->c1, &a->c2);
    fp2_mul(&c0, &x, b1);
    fp2_sub(&c0, &c0, &t1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_add(&c0, &c0, &t0);

    fp2_add(&x, &a->c0, &a->c1);
    fp2_add(&y, b0, b1);
    fp2_mul(&c1, &x, &y);
    fp2_sub(&c1, &c1, &t0);
    fp2_sub(&c1, &c1, &t1);

    fp2_add(&x, &a->c0, &a->c2);
    fp2_mul(&c2, &x, b0);
    fp2_sub(&c2, &c2, &t0);
    fp2_add(&c2, &c2, &t1);

    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

void fp6_mul_by_1(fp6_t *out, const fp6_t *a, const fp2_t *b1)
{
    /* (a0 + a1 v + a2 v^2) b1 v = xi a2 b1 + a0 b1 v + a1 b1 v^2 */
    fp2_t c0, c1, c2;
    fp2_mul(&c0, &a->c2, b1);
    fp2_mul_by_nonresidue(&c0, &c0);
    fp2_mul(&c1, &a->c0, b1);
    fp2_mul(&c2, &a->c1, b1);
    out->c0 = c0;
    out->c1 = c1;
    out->c2 = c2;
}

void fp6_inv(fp6_t *out, const fp6_t *a)
{
    /* t0 = a0^2 - xi a1 a2, t1 = xi a2^2 - a0 a1, t2 = a1^2 - a0 a2,
     * n = a0 t0 + xi (a2 t1 + a1 t2) (in Fp2), a^-1 = (t0 + t1 v + t2 v^2) / n */
    fp2_t t0, t1, t2, x, n;
    fp2_sqr(&t0, &a->c0);
    fp2_mul(&x, &a->c1, &a->c2);
    fp2_mul_by_nonresidue(&x, &x);
    fp2_sub(&t0, &t0, &x);

    fp2_sqr(&t1, &a->c2);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_mul(&x, &a->c0, &a->c1);
    fp2_sub(&t1, &t1, &x);

    fp2_sqr(&t2, &a->c1);
    fp2_mul(&x, &a->c0, &a->c2);
    fp2_sub(&t2, &t2, &x);

    fp2_mul(&n, &a->c2, &t1);
    fp2_mul(&x, &a->c1, &t2);
    fp2_add(&n, &n, &x);
    fp2_mul_by_nonresidue(&n, &n);
    fp2_mul(&x, &a->c0, &t0);
    fp2_add(&n, &n, &x);
    fp2_inv(&n, &n);

    fp2_mul(&out->c0, &t0, &n);
    fp2_mul(&out->c1, &t1, &n);
    fp2_mul(&out->c2, &t2, &n);
}

bool fp6_is_zero(const fp6_t *a)
{
    return fp2_is_zero(&a->c0) && fp2_is_zero(&a->c1) && fp2_is_zero(&a->c2);
}

bool fp6_eq(const fp6_t *a, const fp6_t *b)
{
    return fp2_eq(&a->c0, &b->c0) && fp2_eq(&a->c1, &b->c1) && fp2_eq(&a->c2, &b->c2);
}

/* ---- Fp12 ---- */

void fp12_add(fp12_t *out, const fp12_t *a, const fp12_t *b)
{
    fp6_add(&out->c0, &a->c0, &b->c0);
    fp6_add(&out->c1, &a->c1, &b->c1);
}

void fp12_sub(fp12_t *out, const fp12_t *a, const fp12_t *b)
{
    fp6_sub(&out->c0, &a->c0, &b->c0);
    fp6_sub(&out->c1, &a->c1, &b->c1);
}

void fp12_mul(fp12_t *out, const fp12_t *a, const fp12_t *b)
{
    /* Karatsuba over w^2 = v: c0 = t0 + v t1, c1 = (a0 + a1)(b0 + b1) - t0 - t1 */
    fp6_t t0, t1, x, y;
    fp6_mul(&t0, &a->c0, &b->c0);
    fp6_mul(&t1, &a->c1, &b->c1);
    fp6_add(&x, &a->c0, &a->c1);
    fp6_add(&y, &b->c0, &b->c1);
    fp6_mul(&x, &x, &y);
    fp6_sub(&x, &x, &t0);
    fp6_sub(&out->c1, &x, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&out->c0, &t0, &t1);
}

void fp12_sqr(fp12_t *out, const fp12_t *a)
{
    /* complex squaring: m = a0 a1, c0 = (a0 + a1)(a0 + v a1) - m - v m, c1 = 2 m */
    fp6_t m, x, y;
    fp6_mul(&m, &a->c0, &a->c1);
    fp6_add(&x, &a->c0, &a->c1);
    fp6_mul_by_nonresidue(&y, &a->c1);
    fp6_add(&y, &y, &a->c0);
    fp6_mul(&x, &x, &y);
    fp6_sub(&x, &x, &m);
    fp6_mul_by_nonresidue(&y, &m);
    fp6_sub(&out->c0, &x, &y);
    fp6_add(&out->c1, &m, &m);
}

void fp12_mul_by_014(fp12_t *out, const fp12_t *a, const fp2_t *b0, const fp2_t *b1,
                     const fp2_t *b4)
{
    /* b = (b0 + b1 v) + (b4 v) w, i.e. coefficients at w^0, w^2 and w^3: the Karatsuba of
     * fp12_mul with the sparse halves B0 = b0 + b1 v and B1 = b4 v. */
    fp6_t t0, t1, x;
    fp2_t s;
    fp6_mul_by_01(&t0, &a->c0, b0, b1);
    fp6_mul_by_1(&t1, &a->c1, b4);
    fp6_add(&x, &a->c0, &a->c1);
    fp2_add(&s, b1, b4);
    fp6_mul_by_01(&x, &x, b0, &s);
    fp6_sub(&x, &x, &t0);
    fp6_sub(&out->c1, &x, &t1);
    fp6_mul_by_nonresidue(&t1, &t1);
    fp6_add(&out->c0, &t0, &t1);
}

void fp12_inv(fp12_t *out, const fp12_t *a)
{
    /* (a0 + a1 w)^-1 = (a0 - a1 w) / (a0^2 - v a1^2) */
    fp6_t t, s;
    fp6_sqr(&t, &a->c0);
    fp6_sqr(&s, &a->c1);
    fp6_mul_by_nonresidue(&s, &s);
    fp6_sub(&t, &t, &s);
    fp6_inv(&t, &t);
    fp6_mul(&out->c0, &a->c0, &t);
    fp6_mul(&s, &a->c1, &t);
    fp6_neg(&out->c1, &s);
}

void fp12_conj(fp12_t *out, const fp12_t *a)
{
    out->c0 = a->c0;
    fp6_neg(&out->c1, &a->c1);
}

/* One Frobenius power k in {1, 2, 3}: conjugate every Fp2 coefficient k times, then multiply
 * the coefficient of w^j by gamma_{k,j}. The w^j order of the memory layout is
 * c0.c0 = w^0, c1.c0 = w^1, c0.c1 = w^2, c1.c1 = w^3, c0.c2 = w^4, c1.c2 = w^5. */
static void fp12_frobenius_step(fp12_t *out, const fp12_t *a, unsigned k)
{
    const fp2_t *g = FP12_FROB_GAMMA[k - 1];
    fp2_t *slot[6] = {&out->c0.c0, &out->c1.c0, &out->c0.c1, &out->c1.c1, &out->c0.c2, &out->c1.c2};
    *out = *a;
    for (unsigned j = 0; j < 6; j++) {
        if (k & 1) {
            fp2_conj(slot[j], slot[j]);
        }
        if (j > 0) {
            fp2_mul(slot[j], slot[j], &g[j]);
        }
    }
}

void fp12_frobenius(fp12_t *out, const fp12_t *a, unsigned k)
{
    k %= 12;
    *out = *a;
    while (k > 0) {
        unsigned step = k > 3 ? 3 : k;
        fp12_frobenius_step(out, out, step);
        k -= step;
    }
}

void fp12_pow(fp12_t *out, const fp12_t *a, const uint64_t *e, size_t n)
{
    fp12_t base = *a, acc = FP12_ONE;
    size_t top = n;

    while (top > 0 && e[top - 1] == 0) {
        top--;
    }
    for (size_t i = top; i-- > 0;) {
        for (int bit = 63; bit >= 0; bit--) {
            fp12_sqr(&acc, &acc);
            if ((e[i] >> bit) & 1) {
                fp12_mul(&acc, &acc, &base);
            }
        }
    }
    *out = acc;
}

/* Squaring in Fp4 = Fp2[s]/(s^2 - xi): (a + b s)^2 = (a^2 + xi b^2) + ((a + b)^2 - a^2 - b^2) s */
static void fp4_sqr(fp2_t *o0, fp2_t *o1, const fp2_t *a, const fp2_t *b)
{
    fp2_t t0, t1, t2;
    fp2_sqr(&t0, a);
    fp2_sqr(&t1, b);
    fp2_add(&t2, a, b);
    fp2_sqr(&t2, &t2);
    fp2_sub(&t2, &t2, &t0);
    fp2_sub(o1, &t2, &t1);
    fp2_mul_by_nonresidue(&t1, &t1);
    fp2_add(o0, &t0, &t1);
}

/* z = 3 t - 2 x (sign < 0) or 3 t + 2 x (sign > 0) */
static void cyclo_combine(fp2_t *z, const fp2_t *t, const fp2_t *x, int sign)
{
    fp2_t d;
    if (sign < 0) {
        fp2_sub(&d, t, x);
    } else {
        fp2_add(&d, t, x);
    }
    fp2_dbl(&d, &d);
    fp2_add(z, &d, t);
}

void fp12_cyclotomic_sqr(fp12_t *out, const fp12_t *a)
{
    /* Granger-Scott: for f in the cyclotomic subgroup, Fp12 splits into three Fp4 pairs,
     * (c0.c0, c1.c1), (c1.c0, c0.c2) and (c0.c1, c1.c2); with (s0, s1) the Fp4 square of a
     * pair, each output coefficient is 3 s -/+ 2 x of the coefficient x it replaces:
     *   c0.c0 = 3 A0 - 2 c0.c0    c1.c1 = 3 A1 + 2 c1.c1       (A = pair 1 squared)
     *   c0.c1 = 3 B0 - 2 c0.c1    c1.c2 = 3 B1 + 2 c1.c2       (B = pair 2 squared)
     *   c0.c2 = 3 C0 - 2 c0.c2    c1.c0 = 3 xi C1 + 2 c1.c0    (C = pair 3 squared) */
    fp2_t a0, a1, b0, b1, c0, c1;
    fp12_t r;

    fp4_sqr(&a0, &a1, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&b0, &b1, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&c0, &c1, &a->c0.c1, &a->c1.c2);
    fp2_mul_by_nonresidue(&c1, &c1);

    cyclo_combine(&r.c0.c0, &a0, &a->c0.c0, -1);
    cyclo_combine(&r.c1.c1, &a1, &a->c1.c1, +1);
    cyclo_combine(&r.c0.c1, &b0, &a->c0.c1, -1);
    cyclo_combine(&r.c1.c2, &b1, &a->c1.c2, +1);
    cyclo_combine(&r.c0.c2, &c0, &a->c0.c2, -1);
    cyclo_combine(&r.c1.c0, &c1, &a->c1.c0, +1);
    *out = r;
}

bool fp12_is_one(const fp12_t *a)
{
    return fp12_eq(a, &FP12_ONE);
}

bool fp12_eq(const fp12_t *a, const fp12_t *b)
{
    return fp6_eq(&a->c0, &b->c0) && fp6_eq(&a->c1, &b->c1);
}

void fp12_to_bytes(uint8_t out[576], const fp12_t *a)
{
    const fp6_t *h[2] = {&a->c0, &a->c1};
    for (size_t i = 0; i < 2; i++) {
        const fp2_t *c[3] = {&h[i]->c0, &h[i]->c1, &h[i]->c2};
        for (size_t j = 0; j < 3; j++) {
            fp_to_bytes(out, &c[j]->c0);
            fp_to_bytes(out + FP_NBYTES, &c[j]->c1);
            out += 2 * FP_NBYTES;
        }
    }
}
