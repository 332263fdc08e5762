/* pairing.c - the optimal ate pairing of BLS12-381: a Miller loop over |z| with the twist point
 * in homogeneous projective coordinates, sparse line multiplication, and a final exponentiation
 * whose hard part raises to 3 (p^4 - p^2 + 1) / r, exactly as @noble/curves does (so that
 * outputs compare byte for byte).
 *
 * Tower (field/fp12.h): Fp12 = Fp6[w]/(w^2 - v), Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + u, so
 * w^2 = v and w^3 = v w. The twist is of M-type: (x', y') on E'(Fp2) maps to (x' / w^2,
 * y' / w^3) on E(Fp12). The line through twist points, evaluated at P = (xP, yP) in E(Fp) and
 * scaled by a factor in Fp2 (which the final exponentiation removes), has the shape
 *     l = c0 + c1 xP w^2 + c2 yP w^3,
 * i.e. nonzero coefficients only at c0.c0, c0.c1 and c1.c1 of an Fp12 element (the sparse
 * product is field/fp12.h's fp12_mul_by_014). Doubling and
 * addition steps follow Costello, Lange and Naehrig, "Faster pairing computations on curves
 * with high-degree twists" (PKC 2010), in the form of Aranha et al. (ePrint 2010/526).
 * Because z < 0 the loop result is conjugated (f_{z} = 1 / f_{|z|} up to factors the final
 * exponentiation kills).
 */
#include "curve/pairing.h"

#include "curve/curve_consts.h"

/* Pairs processed together by the multi-Miller loop (stack storage, no allocation). */
#define PAIRING_CHUNK 8

/* A twist point in homogeneous projective coordinates: x = X/Z, y = Y/Z. */
typedef struct pairing_proj {
    fp2_t x, y, z;
} pairing_proj_t;

/* A line: c0 + c1 xP w^2 + c2 yP w^3 before P is substituted. */
typedef struct pairing_line {
    fp2_t c0, c1, c2;
} pairing_line_t;

static void pairing_fp2_half(fp2_t *out, const fp2_t *a)
{
    fp_half(&out->c0, &a->c0);
    fp_half(&out->c1, &a->c1);
}

/* out = 3 b' a = 12 (1 + u) a. */
static void pairing_fp2_mul_3b(fp2_t *out, const fp2_t *a)
{
    fp2_t t;
    fp2_mul_by_nonresidue(&t, a); /* (1 + u) a */
    fp2_dbl(&t, &t);
    fp2_dbl(&t, &t); /* 4 (1 + u) a = b' a */
    fp2_dbl(out, &t);
    fp2_add(out, out, &t);
}

/* T = 2T; line = tangent at T. With A = Y^2, B = Z^2, C = 3 b' B, D = 3C, E = 2YZ:
 * line = (C - A) + 3 X^2 xP w^2 - E yP w^3,
 * X3 = (A - D) X Y / 2, Y3 = ((A + D) / 2)^2 - 3 C^2, Z3 = A E. */
static void pairing_dbl_step(pairing_line_t *l, pairing_proj_t *t)
{
    fp2_t a, b, c, d, e, s;

    fp2_sqr(&a, &t->y);
    fp2_sqr(&b, &t->z);
    pairing_fp2_mul_3b(&c, &b);
    fp2_dbl(&d, &c);
    fp2_add(&d, &d, &c);
    fp2_add(&e, &t->y, &t->z);
    fp2_sqr(&e, &e);
    fp2_sub(&e, &e, &b);
    fp2_sub(&e, &e, &a);

    fp2_sub(&l->c0, &c, &a);
    fp2_sqr(&s, &t->x);
    fp2_dbl(&l->c1, &s);
    fp2_add(&l->c1, &l->c1, &s);
    fp2_neg(&l->c2, &e);

    fp2_sub(&s, &a, &d);
    fp2_mul(&s, &s, &t->x);
    fp2_mul(&s, &s, &t->y);
    pairing_fp2_half(&t->x, &s);
    fp2_add(&s, &a, &d);
    pairing_fp2_half(&s, &s);
    fp2_sqr(&s, &s);
    fp2_sqr(&b, &c);
    fp2_sub(&s, &s, &b);
    fp2_sub(&s, &s, &b);
    fp2_sub(&t->y, &s, &b);
    fp2_mul(&t->z, &a, &e);
}

/* T = T + Q, Q affine; line through T and Q. With t0 = Y - yQ Z, t1 = X - xQ Z:
 * line = (t0 xQ - t1 yQ) - t0 xP w^2 + t1 yP w^3,
 * t2 = t1^2, t3 = t1^3, t4 = t2 X, t5 = t3 - 2 t4 + t0^2 Z,
 * X3 = t1 t5, Y3 = (t4 - t5) t0 - t3 Y, Z3 = t3 Z. */
static void pairing_add_step(pairing_line_t *l, pairing_proj_t *t, const g2_aff_t *q)
{
    fp2_t t0, t1, t2, t3, t4, t5, s;

    fp2_mul(&t0, &q->y, &t->z);
    fp2_sub(&t0, &t->y, &t0);
    fp2_mul(&t1, &q->x, &t->z);
    fp2_sub(&t1, &t->x, &t1);

    fp2_mul(&l->c0, &t0, &q->x);
    fp2_mul(&s, &t1, &q->y);
    fp2_sub(&l->c0, &l->c0, &s);
    fp2_neg(&l->c1, &t0);
    l->c2 = t1;

    fp2_sqr(&t2, &t1);
    fp2_mul(&t3, &t2, &t1);
    fp2_mul(&t4, &t2, &t->x);
    fp2_sqr(&t5, &t0);
    fp2_mul(&t5, &t5, &t->z);
    fp2_add(&t5, &t5, &t3);
    fp2_sub(&t5, &t5, &t4);
    fp2_sub(&t5, &t5, &t4);
    fp2_mul(&t->x, &t1, &t5);
    fp2_sub(&s, &t4, &t5);
    fp2_mul(&s, &s, &t0);
    fp2_mul(&t2, &t3, &t->y);
    fp2_sub(&t->y, &s, &t2);
    fp2_mul(&t->z, &t->z, &t3);
}

/* f = f * line(P). */
static void pairing_apply_line(fp12_t *f, const pairing_line_t *l, const g1_aff_t *p)
{
    fp2_t l1, l4;
    fp2_mul_fp(&l1, &l->c1, &p->x);
    fp2_mul_fp(&l4, &l->c2, &p->y);
    fp12_mul_by_014(f, f, &l->c0, &l1, &l4);
}

/* out = prod f_{|z|, Q_i}(P_i) over up to PAIRING_CHUNK pairs, none of them the identity. */
static void pairing_miller_chunk(fp12_t *out, const g1_aff_t *const *p, const g2_aff_t *const *q,
                                 size_t n)
{
    pairing_proj_t t[PAIRING_CHUNK];
    pairing_line_t l;
    fp12_t f = FP12_ONE;

    for (size_t j = 0; j < n; j++) {
        t[j].x = q[j]->x;
        t[j].y = q[j]->y;
        t[j].z = FP2_ONE;
    }
    /* The top bit of |z| is T = Q itself; walk bits 62 .. 0. */
    for (int i = 62; i >= 0; i--) {
        if (i != 62) {
            fp12_sqr(&f, &f);
        }
        for (size_t j = 0; j < n; j++) {
            pairing_dbl_step(&l, &t[j]);
            pairing_apply_line(&f, &l, p[j]);
        }
        if ((CURVE_Z_ABS >> i) & 1u) {
            for (size_t j = 0; j < n; j++) {
                pairing_add_step(&l, &t[j], q[j]);
                pairing_apply_line(&f, &l, p[j]);
            }
        }
    }
    *out = f;
}

void pairing_miller_loop(fp12_t *out, const g1_aff_t *p, const g2_aff_t *q, size_t n)
{
    const g1_aff_t *pp[PAIRING_CHUNK];
    const g2_aff_t *qq[PAIRING_CHUNK];
    fp12_t acc = FP12_ONE, f;
    size_t m = 0;

    CZ_CHECK(n == 0 || (p && q));
    for (size_t i = 0; i <= n; i++) {
        if (i < n && !g1_aff_is_identity(&p[i]) && !g2_aff_is_identity(&q[i])) {
            pp[m] = &p[i];
            qq[m] = &q[i];
            m++;
        }
        if (m == PAIRING_CHUNK || (i == n && m > 0)) {
            pairing_miller_chunk(&f, pp, qq, m);
            fp12_mul(&acc, &acc, &f);
            m = 0;
        }
    }
    fp12_conj(out, &acc); /* z < 0 */
}

/* out = a^|z| for a in the cyclotomic subgroup, by square and multiply (|z| has bits 63, 62,
 * 60, 57, 48, 16). */
static void pairing_pow_z_abs(fp12_t *out, const fp12_t *a)
{
    fp12_t acc = *a;
    for (int i = 62; i >= 0; i--) {
        fp12_cyclotomic_sqr(&acc, &acc);
        if ((CURVE_Z_ABS >> i) & 1u) {
            fp12_mul(&acc, &acc, a);
        }
    }
    *out = acc;
}

/* out = a^z for a in the cyclotomic subgroup, where the inverse is the conjugate. */
static void pairing_pow_z(fp12_t *out, const fp12_t *a)
{
    pairing_pow_z_abs(out, a);
    fp12_conj(out, out);
}

void pairing_final_exp(fp12_t *out, const fp12_t *f)
{
    fp12_t t, inv, a, b, c, s;

    /* Easy part: t = f^((p^6 - 1)(p^2 + 1)); t is then in the cyclotomic subgroup. */
    fp12_inv(&inv, f);
    fp12_conj(&t, f);
    fp12_mul(&t, &t, &inv);
    fp12_frobenius(&s, &t, 2);
    fp12_mul(&t, &s, &t);

    /* Hard part (Hayashida, Hayasaka, Teruya, ePrint 2020/875):
     * 3 (p^4 - p^2 + 1) / r = (z - 1)^2 (z + p) (z^2 + p^2 - 1) + 3. */
    pairing_pow_z(&a, &t);
    fp12_conj(&s, &t);
    fp12_mul(&a, &a, &s); /* t^(z - 1) */
    pairing_pow_z(&b, &a);
    fp12_conj(&s, &a);
    fp12_mul(&a, &b, &s); /* t^((z - 1)^2) */
    pairing_pow_z(&b, &a);
    fp12_frobenius(&s, &a, 1);
    fp12_mul(&b, &b, &s); /* a^(z + p) */
    pairing_pow_z(&c, &b);
    pairing_pow_z(&c, &c);
    fp12_frobenius(&s, &b, 2);
    fp12_mul(&c, &c, &s);
    fp12_conj(&s, &b);
    fp12_mul(&c, &c, &s); /* b^(z^2 + p^2 - 1) */
    fp12_cyclotomic_sqr(&s, &t);
    fp12_mul(&s, &s, &t);
    fp12_mul(out, &c, &s); /* times t^3 */
}

void pairing(fp12_t *out, const g1_aff_t *p, const g2_aff_t *q)
{
    fp12_t f;
    pairing_miller_loop(&f, p, q, 1);
    pairing_final_exp(out, &f);
}

bool pairing_product_is_one(const g1_aff_t *p, const g2_aff_t *q, size_t n)
{
    fp12_t f, e;
    pairing_miller_loop(&f, p, q, n);
    pairing_final_exp(&e, &f);
    return fp12_is_one(&e);
}
