/* g2.c - G2 of BLS12-381 (the sextic M-twist E'(Fp2): y^2 = x^3 + 4(1 + u)) in Jacobian
 * coordinates, its encodings, the untwist-Frobenius-twist endomorphism psi and the subgroup test.
 *
 * The group law is g1.c's over Fp2 (EFD dbl-2009-l, add-2007-bl, madd-2007-bl; a = 0). Each
 * function computes into locals or stores only after its last read, so outputs may alias inputs.
 */
#include "curve/g2.h"

#include <string.h>

#include "curve/curve_consts.h"
#include "curve/internal.h"

/* b' = 4 (1 + u) */
static const fp2_t G2_B = {.c0 = {G2_B_C0_MONT_INIT}, .c1 = {G2_B_C1_MONT_INIT}};
/* psi(x, y) = (conj(x) PSI_X, conj(y) PSI_Y), PSI_X = (1 + u)^-((p-1)/3),
 * PSI_Y = (1 + u)^-((p-1)/2) */
static const fp2_t G2_PSI_X = {.c0 = {G2_PSI_X_C0_MONT_INIT}, .c1 = {G2_PSI_X_C1_MONT_INIT}};
static const fp2_t G2_PSI_Y = {.c0 = {G2_PSI_Y_C0_MONT_INIT}, .c1 = {G2_PSI_Y_C1_MONT_INIT}};

const g2_aff_t G2_GEN = {
    .x = {.c0 = {G2_GEN_X_C0_MONT_INIT}, .c1 = {G2_GEN_X_C1_MONT_INIT}},
    .y = {.c0 = {G2_GEN_Y_C0_MONT_INIT}, .c1 = {G2_GEN_Y_C1_MONT_INIT}},
};

void g2_set_identity(g2_t *out)
{
    out->x = FP2_ONE;
    out->y = FP2_ONE;
    out->z = FP2_ZERO;
}

bool g2_is_identity(const g2_t *p)
{
    return fp2_is_zero(&p->z);
}

void g2_aff_set_identity(g2_aff_t *out)
{
    out->x = FP2_ZERO;
    out->y = FP2_ZERO;
}

bool g2_aff_is_identity(const g2_aff_t *p)
{
    return fp2_is_zero(&p->x) && fp2_is_zero(&p->y);
}

void g2_from_aff(g2_t *out, const g2_aff_t *a)
{
    if (g2_aff_is_identity(a)) {
        g2_set_identity(out);
        return;
    }
    out->x = a->x;
    out->y = a->y;
    out->z = FP2_ONE;
}

/* (X / Z^2, Y / Z^3) given zinv = 1 / Z. */
static void g2_to_aff_with(g2_aff_t *out, const g2_t *p, const fp2_t *zinv)
{
    fp2_t zi2, zi3;
    fp2_sqr(&zi2, zinv);
    fp2_mul(&zi3, &zi2, zinv);
    fp2_mul(&out->x, &p->x, &zi2);
    fp2_mul(&out->y, &p->y, &zi3);
}

void g2_to_aff(g2_aff_t *out, const g2_t *p)
{
    fp2_t zinv;
    if (g2_is_identity(p)) {
        g2_aff_set_identity(out);
        return;
    }
    fp2_inv(&zinv, &p->z);
    g2_to_aff_with(out, p, &zinv);
}

void g2_batch_to_aff(g2_aff_t *out, const g2_t *in, size_t n, fp2_t *scratch)
{
    fp2_t acc = FP2_ONE, inv;

    CZ_CHECK(n == 0 || (out && in && scratch));
    CZ_CHECK(n == 0 || (uintptr_t)(out + n) <= (uintptr_t)in ||
             (uintptr_t)(in + n) <= (uintptr_t)out);
    /* Montgomery's trick: scratch[i] = product of the non-identity Z's before i. */
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!g2_is_identity(&in[i])) {
            fp2_mul(&acc, &acc, &in[i].z);
        }
    }
    fp2_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        fp2_t zinv;
        if (g2_is_identity(&in[i])) {
            g2_aff_set_identity(&out[i]);
            continue;
        }
        fp2_mul(&zinv, &inv, &scratch[i]);
        fp2_mul(&inv, &inv, &in[i].z);
        g2_to_aff_with(&out[i], &in[i], &zinv);
    }
}

void g2_dbl(g2_t *out, const g2_t *a)
{
    fp2_t A, B, C, D, E, F, t;

    if (g2_is_identity(a)) {
        g2_set_identity(out);
        return;
    }
    /* dbl-2009-l: A = X^2, B = Y^2, C = B^2, D = 2((X + B)^2 - A - C), E = 3A, F = E^2,
     * X3 = F - 2D, Y3 = E (D - X3) - 8C, Z3 = 2 Y Z. */
    fp2_sqr(&A, &a->x);
    fp2_sqr(&B, &a->y);
    fp2_sqr(&C, &B);
    fp2_add(&D, &a->x, &B);
    fp2_sqr(&D, &D);
    fp2_sub(&D, &D, &A);
    fp2_sub(&D, &D, &C);
    fp2_dbl(&D, &D);
    fp2_dbl(&E, &A);
    fp2_add(&E, &E, &A);
    fp2_sqr(&F, &E);
    fp2_mul(&t, &a->y, &a->z);
    fp2_dbl(&out->z, &t);
    fp2_sub(&out->x, &F, &D);
    fp2_sub(&out->x, &out->x, &D);
    fp2_sub(&t, &D, &out->x);
    fp2_mul(&t, &E, &t);
    fp2_dbl(&C, &C);
    fp2_dbl(&C, &C);
    fp2_dbl(&C, &C);
    fp2_sub(&out->y, &t, &C);
}

void g2_add(g2_t *out, const g2_t *a, const g2_t *b)
{
    fp2_t z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;

    if (g2_is_identity(a)) {
        *out = *b;
        return;
    }
    if (g2_is_identity(b)) {
        *out = *a;
        return;
    }
    /* add-2007-bl: U1 = X1 Z2^2, U2 = X2 Z1^2, S1 = Y1 Z2^3, S2 = Y2 Z1^3, H = U2 - U1,
     * I = (2H)^2, J = H I, r = 2(S2 - S1), V = U1 I, X3 = r^2 - J - 2V,
     * Y3 = r (V - X3) - 2 S1 J, Z3 = ((Z1 + Z2)^2 - Z1^2 - Z2^2) H. */
    fp2_sqr(&z1z1, &a->z);
    fp2_sqr(&z2z2, &b->z);
    fp2_mul(&u1, &a->x, &z2z2);
    fp2_mul(&u2, &b->x, &z1z1);
    fp2_mul(&s1, &a->y, &b->z);
    fp2_mul(&s1, &s1, &z2z2);
    fp2_mul(&s2, &b->y, &a->z);
    fp2_mul(&s2, &s2, &z1z1);
    fp2_sub(&h, &u2, &u1);
    fp2_sub(&r, &s2, &s1);
    if (fp2_is_zero(&h)) {
        if (fp2_is_zero(&r)) {
            g2_dbl(out, a); /* a == b */
        } else {
            g2_set_identity(out); /* a == -b */
        }
        return;
    }
    fp2_dbl(&r, &r);
    fp2_dbl(&i, &h);
    fp2_sqr(&i, &i);
    fp2_mul(&j, &h, &i);
    fp2_mul(&v, &u1, &i);
    fp2_add(&t, &a->z, &b->z);
    fp2_sqr(&t, &t);
    fp2_sub(&t, &t, &z1z1);
    fp2_sub(&t, &t, &z2z2);
    fp2_mul(&out->z, &t, &h);
    fp2_sqr(&out->x, &r);
    fp2_sub(&out->x, &out->x, &j);
    fp2_sub(&out->x, &out->x, &v);
    fp2_sub(&out->x, &out->x, &v);
    fp2_sub(&t, &v, &out->x);
    fp2_mul(&t, &r, &t);
    fp2_mul(&s1, &s1, &j);
    fp2_dbl(&s1, &s1);
    fp2_sub(&out->y, &t, &s1);
}

void g2_add_aff(g2_t *out, const g2_t *a, const g2_aff_t *b)
{
    fp2_t z1z1, u2, s2, h, hh, i, j, r, v, t;

    if (g2_aff_is_identity(b)) {
        *out = *a;
        return;
    }
    if (g2_is_identity(a)) {
        g2_from_aff(out, b);
        return;
    }
    /* madd-2007-bl (Z2 = 1): U2 = X2 Z1^2, S2 = Y2 Z1^3, H = U2 - X1, HH = H^2, I = 4 HH,
     * J = H I, r = 2(S2 - Y1), V = X1 I, X3 = r^2 - J - 2V, Y3 = r (V - X3) - 2 Y1 J,
     * Z3 = (Z1 + H)^2 - Z1^2 - HH. */
    fp2_sqr(&z1z1, &a->z);
    fp2_mul(&u2, &b->x, &z1z1);
    fp2_mul(&s2, &b->y, &a->z);
    fp2_mul(&s2, &s2, &z1z1);
    fp2_sub(&h, &u2, &a->x);
    fp2_sub(&r, &s2, &a->y);
    if (fp2_is_zero(&h)) {
        if (fp2_is_zero(&r)) {
            g2_dbl(out, a);
        } else {
            g2_set_identity(out);
        }
        return;
    }
    fp2_dbl(&r, &r);
    fp2_sqr(&hh, &h);
    fp2_dbl(&i, &hh);
    fp2_dbl(&i, &i);
    fp2_mul(&j, &h, &i);
    fp2_mul(&v, &a->x, &i);
    fp2_add(&t, &a->z, &h);
    fp2_sqr(&t, &t);
    fp2_sub(&t, &t, &z1z1);
    fp2_sub(&out->z, &t, &hh);
    fp2_mul(&t, &a->y, &j); /* before out->y is written: out may alias a */
    fp2_dbl(&t, &t);
    fp2_sqr(&out->x, &r);
    fp2_sub(&out->x, &out->x, &j);
    fp2_sub(&out->x, &out->x, &v);
    fp2_sub(&out->x, &out->x, &v);
    fp2_sub(&v, &v, &out->x);
    fp2_mul(&v, &r, &v);
    fp2_sub(&out->y, &v, &t);
}

void g2_neg(g2_t *out, const g2_t *a)
{
    out->x = a->x;
    fp2_neg(&out->y, &a->y);
    out->z = a->z;
}

void g2_aff_neg(g2_aff_t *out, const g2_aff_t *a)
{
    out->x = a->x;
    fp2_neg(&out->y, &a->y); /* the all-zero identity stays all-zero */
}

void g2_sub(g2_t *out, const g2_t *a, const g2_t *b)
{
    g2_t nb;
    g2_neg(&nb, b);
    g2_add(out, a, &nb);
}

bool g2_eq(const g2_t *a, const g2_t *b)
{
    fp2_t z1z1, z2z2, l, r;
    bool ia = g2_is_identity(a), ib = g2_is_identity(b);

    if (ia || ib) {
        return ia == ib;
    }
    /* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3 */
    fp2_sqr(&z1z1, &a->z);
    fp2_sqr(&z2z2, &b->z);
    fp2_mul(&l, &a->x, &z2z2);
    fp2_mul(&r, &b->x, &z1z1);
    if (!fp2_eq(&l, &r)) {
        return false;
    }
    fp2_mul(&l, &a->y, &z2z2);
    fp2_mul(&l, &l, &b->z);
    fp2_mul(&r, &b->y, &z1z1);
    fp2_mul(&r, &r, &a->z);
    return fp2_eq(&l, &r);
}

bool g2_aff_eq(const g2_aff_t *a, const g2_aff_t *b)
{
    return fp2_eq(&a->x, &b->x) && fp2_eq(&a->y, &b->y);
}

void g2_mul_limbs(g2_t *out, const g2_t *p, const uint64_t *k, size_t n)
{
    g2_t table[CURVE_TABLE]; /* [i + 1] p */
    g2_t acc, t;
    size_t bits = curve_bitlen(k, n);

    if (bits == 0 || g2_is_identity(p)) {
        g2_set_identity(out);
        return;
    }
    table[0] = *p;
    g2_dbl(&table[1], p);
    for (size_t i = 2; i < CURVE_TABLE; i++) {
        g2_add(&table[i], &table[i - 1], p);
    }
    /* Left to right over the Booth digits of windows bits/5 .. 0. */
    g2_set_identity(&acc);
    for (size_t w = bits / CURVE_WINDOW + 1; w-- > 0;) {
        int d = curve_booth_digit(k, n, w);
        if (!g2_is_identity(&acc)) {
            for (int j = 0; j < CURVE_WINDOW; j++) {
                g2_dbl(&acc, &acc);
            }
        }
        if (d > 0) {
            g2_add(&acc, &acc, &table[d - 1]);
        } else if (d < 0) {
            g2_neg(&t, &table[-d - 1]);
            g2_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

void g2_mul(g2_t *out, const g2_t *p, const fr_repr_t *k)
{
    g2_mul_limbs(out, p, k->l, FR_NLIMBS);
}

void g2_mul_fr(g2_t *out, const g2_t *p, const fr_t *k)
{
    fr_repr_t r;
    fr_to_repr(&r, k);
    g2_mul_limbs(out, p, r.l, FR_NLIMBS);
}

/* out = [|z|] p, |z| = 0xd201000000010000 (bits 63, 62, 60, 57, 48, 16): double and add. */
static void g2_mul_z_abs(g2_t *out, const g2_t *p)
{
    g2_t acc = *p;
    for (int i = 62; i >= 0; i--) {
        g2_dbl(&acc, &acc);
        if ((CURVE_Z_ABS >> i) & 1u) {
            g2_add(&acc, &acc, p);
        }
    }
    *out = acc;
}

void g2_psi(g2_t *out, const g2_t *p)
{
    /* Frobenius is a field automorphism, so it commutes with the Jacobian quotients:
     * psi(X, Y, Z) = (conj(X) PSI_X, conj(Y) PSI_Y, conj(Z)). */
    fp2_conj(&out->x, &p->x);
    fp2_mul(&out->x, &out->x, &G2_PSI_X);
    fp2_conj(&out->y, &p->y);
    fp2_mul(&out->y, &out->y, &G2_PSI_Y);
    fp2_conj(&out->z, &p->z);
}

bool g2_is_on_curve(const g2_t *p)
{
    fp2_t y2, x3, z6;

    if (g2_is_identity(p)) {
        return true;
    }
    /* Y^2 == X^3 + b' Z^6 */
    fp2_sqr(&y2, &p->y);
    fp2_sqr(&x3, &p->x);
    fp2_mul(&x3, &x3, &p->x);
    fp2_sqr(&z6, &p->z);
    fp2_mul(&z6, &z6, &p->z);
    fp2_sqr(&z6, &z6);
    fp2_mul(&z6, &z6, &G2_B);
    fp2_add(&x3, &x3, &z6);
    return fp2_eq(&y2, &x3);
}

bool g2_aff_is_on_curve(const g2_aff_t *p)
{
    fp2_t y2, rhs;

    if (g2_aff_is_identity(p)) {
        return true;
    }
    fp2_sqr(&y2, &p->y);
    fp2_sqr(&rhs, &p->x);
    fp2_mul(&rhs, &rhs, &p->x);
    fp2_add(&rhs, &rhs, &G2_B);
    return fp2_eq(&y2, &rhs);
}

/* Scott, ePrint 2021/1130: a point Q of E'(Fp2) lies in G2 iff psi(Q) = [z] Q (psi acts on G2
 * as multiplication by p = z mod r). Points off the curve are reported as outside the group. */
bool g2_aff_is_in_group(const g2_aff_t *p)
{
    g2_t t;
    fp2_t zz, px, py;

    if (g2_aff_is_identity(p)) {
        return true;
    }
    if (!g2_aff_is_on_curve(p)) {
        return false;
    }
    g2_from_aff(&t, p);
    g2_mul_z_abs(&t, &t); /* [|z|] Q = -[z] Q */
    if (g2_is_identity(&t)) {
        return false;
    }
    /* psi(Q) == -t: conj(x) PSI_X Z^2 == X and -conj(y) PSI_Y Z^3 == Y */
    fp2_conj(&px, &p->x);
    fp2_mul(&px, &px, &G2_PSI_X);
    fp2_sqr(&zz, &t.z);
    fp2_mul(&px, &px, &zz);
    if (!fp2_eq(&px, &t.x)) {
        return false;
    }
    fp2_conj(&py, &p->y);
    fp2_mul(&py, &py, &G2_PSI_Y);
    fp2_mul(&zz, &zz, &t.z);
    fp2_mul(&py, &py, &zz);
    fp2_neg(&py, &py);
    return fp2_eq(&py, &t.y);
}

/* ---- encodings (spec groth16.md 2.3, 2.4): Fp2 is c1 || c0 on the wire ---- */

static cuzk_err g2_fp2_from_wire(fp2_t *out, const uint8_t in[2 * FP_NBYTES])
{
    if (fp_from_bytes(&out->c1, in) != CUZK_OK ||
        fp_from_bytes(&out->c0, in + FP_NBYTES) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    return CUZK_OK;
}

static void g2_fp2_to_wire(uint8_t out[2 * FP_NBYTES], const fp2_t *a)
{
    fp_to_bytes(out, &a->c1);
    fp_to_bytes(out + FP_NBYTES, &a->c0);
}

/* (0, 0) is not a curve point, but it is how g2_aff_t stores the identity, which
 * g2_aff_is_on_curve accepts; a non-infinity encoding of it must fail. */
static cuzk_err g2_check_decoded(const g2_aff_t *p, bool check_group)
{
    if (g2_aff_is_identity(p) || !g2_aff_is_on_curve(p)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    if (check_group && !g2_aff_is_in_group(p)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    return CUZK_OK;
}

cuzk_err g2_aff_from_compressed(g2_aff_t *out, const uint8_t in[96], bool check_group)
{
    uint8_t buf[G2_COMPRESSED_NBYTES];
    unsigned flags = in[0] & CURVE_FLAG_MASK;
    g2_aff_t p;
    fp2_t rhs;
    cuzk_err err;

    g2_aff_set_identity(out);
    memcpy(buf, in, sizeof(buf));
    buf[0] &= (uint8_t)~CURVE_FLAG_MASK;
    if (!(flags & CURVE_FLAG_COMPRESSED)) {
        return CUZK_E_FORMAT;
    }
    if (flags & CURVE_FLAG_INFINITY) {
        if ((flags & CURVE_FLAG_SIGN) || !curve_bytes_are_zero(buf, sizeof(buf))) {
            return CUZK_E_FORMAT;
        }
        return CUZK_OK;
    }
    if (g2_fp2_from_wire(&p.x, buf) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    /* y = +-sqrt(x^3 + b'), the root whose sign matches the flag */
    fp2_sqr(&rhs, &p.x);
    fp2_mul(&rhs, &rhs, &p.x);
    fp2_add(&rhs, &rhs, &G2_B);
    if (!fp2_sqrt(&p.y, &rhs)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    if (fp2_is_lexicographically_largest(&p.y) != ((flags & CURVE_FLAG_SIGN) != 0)) {
        fp2_neg(&p.y, &p.y);
    }
    err = g2_check_decoded(&p, check_group);
    if (err == CUZK_OK) {
        *out = p;
    }
    return err;
}

cuzk_err g2_aff_from_uncompressed(g2_aff_t *out, const uint8_t in[192], bool check_group)
{
    uint8_t buf[G2_UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & CURVE_FLAG_MASK;
    g2_aff_t p;
    cuzk_err err;

    g2_aff_set_identity(out);
    memcpy(buf, in, sizeof(buf));
    buf[0] &= (uint8_t)~CURVE_FLAG_MASK;
    if (flags & (CURVE_FLAG_COMPRESSED | CURVE_FLAG_SIGN)) {
        return CUZK_E_FORMAT;
    }
    if (flags & CURVE_FLAG_INFINITY) {
        return curve_bytes_are_zero(buf, sizeof(buf)) ? CUZK_OK : CUZK_E_FORMAT;
    }
    if (g2_fp2_from_wire(&p.x, buf) != CUZK_OK ||
        g2_fp2_from_wire(&p.y, buf + 2 * FP_NBYTES) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    err = g2_check_decoded(&p, check_group);
    if (err == CUZK_OK) {
        *out = p;
    }
    return err;
}

void g2_aff_to_compressed(uint8_t out[96], const g2_aff_t *p)
{
    if (g2_aff_is_identity(p)) {
        memset(out, 0, G2_COMPRESSED_NBYTES);
        out[0] = CURVE_FLAG_COMPRESSED | CURVE_FLAG_INFINITY;
        return;
    }
    g2_fp2_to_wire(out, &p->x);
    out[0] |= CURVE_FLAG_COMPRESSED;
    if (fp2_is_lexicographically_largest(&p->y)) {
        out[0] |= CURVE_FLAG_SIGN;
    }
}

void g2_aff_to_uncompressed(uint8_t out[192], const g2_aff_t *p)
{
    if (g2_aff_is_identity(p)) {
        memset(out, 0, G2_UNCOMPRESSED_NBYTES);
        out[0] = CURVE_FLAG_INFINITY;
        return;
    }
    g2_fp2_to_wire(out, &p->x);
    g2_fp2_to_wire(out + 2 * FP_NBYTES, &p->y);
}
