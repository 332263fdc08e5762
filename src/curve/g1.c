/* g1.c - G1 of BLS12-381 in Jacobian coordinates, its encodings and its subgroup test.
 *
 * Formulas for a = 0 short Weierstrass curves from the Explicit-Formulas Database (EFD,
 * hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html): dbl-2009-l, add-2007-bl,
 * madd-2007-bl. Each function computes into locals and stores at the end, so outputs may alias
 * inputs. The identity is any (X, Y, 0); g1_set_identity writes (1, 1, 0).
 */
#include "curve/g1.h"

#include <string.h>

#include "curve/curve_consts.h"
#include "curve/internal.h"

/* b = 4 */
static const fp_t G1_B = {G1_B_MONT_INIT};
/* beta: (x, y) -> (beta x, y) acts on G1 as [-z^2] (see g1_aff_is_in_group) */
static const fp_t G1_BETA = {G1_BETA_MONT_INIT};

const g1_aff_t G1_GEN = {.x = {G1_GEN_X_MONT_INIT}, .y = {G1_GEN_Y_MONT_INIT}};

void g1_set_identity(g1_t *out)
{
    out->x = FP_ONE;
    out->y = FP_ONE;
    out->z = FP_ZERO;
}

bool g1_is_identity(const g1_t *p)
{
    return fp_is_zero(&p->z);
}

void g1_aff_set_identity(g1_aff_t *out)
{
    out->x = FP_ZERO;
    out->y = FP_ZERO;
}

bool g1_aff_is_identity(const g1_aff_t *p)
{
    return fp_is_zero(&p->x) && fp_is_zero(&p->y);
}

void g1_from_aff(g1_t *out, const g1_aff_t *a)
{
    if (g1_aff_is_identity(a)) {
        g1_set_identity(out);
        return;
    }
    out->x = a->x;
    out->y = a->y;
    out->z = FP_ONE;
}

/* (X / Z^2, Y / Z^3) given zinv = 1 / Z. */
static void g1_to_aff_with(g1_aff_t *out, const g1_t *p, const fp_t *zinv)
{
    fp_t zi2, zi3;
    fp_sqr(&zi2, zinv);
    fp_mul(&zi3, &zi2, zinv);
    fp_mul(&out->x, &p->x, &zi2);
    fp_mul(&out->y, &p->y, &zi3);
}

void g1_to_aff(g1_aff_t *out, const g1_t *p)
{
    fp_t zinv;
    if (g1_is_identity(p)) {
        g1_aff_set_identity(out);
        return;
    }
    fp_inv(&zinv, &p->z);
    g1_to_aff_with(out, p, &zinv);
}

void g1_batch_to_aff(g1_aff_t *out, const g1_t *in, size_t n, fp_t *scratch)
{
    fp_t acc = FP_ONE, inv;

    CZ_CHECK(n == 0 || (out && in && scratch));
    CZ_CHECK(n == 0 || (uintptr_t)(out + n) <= (uintptr_t)in ||
             (uintptr_t)(in + n) <= (uintptr_t)out);
    /* Montgomery's trick: scratch[i] = product of the non-identity Z's before i. */
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!g1_is_identity(&in[i])) {
            fp_mul(&acc, &acc, &in[i].z);
        }
    }
    fp_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        fp_t zinv;
        if (g1_is_identity(&in[i])) {
            g1_aff_set_identity(&out[i]);
            continue;
        }
        fp_mul(&zinv, &inv, &scratch[i]);
        fp_mul(&inv, &inv, &in[i].z);
        g1_to_aff_with(&out[i], &in[i], &zinv);
    }
}

void g1_dbl(g1_t *out, const g1_t *a)
{
    fp_t A, B, C, D, E, F, t;

    if (g1_is_identity(a)) {
        g1_set_identity(out);
        return;
    }
    /* dbl-2009-l: A = X^2, B = Y^2, C = B^2, D = 2((X + B)^2 - A - C), E = 3A, F = E^2,
     * X3 = F - 2D, Y3 = E (D - X3) - 8C, Z3 = 2 Y Z. */
    fp_sqr(&A, &a->x);
    fp_sqr(&B, &a->y);
    fp_sqr(&C, &B);
    fp_add(&D, &a->x, &B);
    fp_sqr(&D, &D);
    fp_sub(&D, &D, &A);
    fp_sub(&D, &D, &C);
    fp_dbl(&D, &D);
    fp_dbl(&E, &A);
    fp_add(&E, &E, &A);
    fp_sqr(&F, &E);
    fp_mul(&t, &a->y, &a->z);
    fp_dbl(&out->z, &t);
    fp_sub(&out->x, &F, &D);
    fp_sub(&out->x, &out->x, &D);
    fp_sub(&t, &D, &out->x);
    fp_mul(&t, &E, &t);
    fp_dbl(&C, &C);
    fp_dbl(&C, &C);
    fp_dbl(&C, &C);
    fp_sub(&out->y, &t, &C);
}

void g1_add(g1_t *out, const g1_t *a, const g1_t *b)
{
    fp_t z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;

    if (g1_is_identity(a)) {
        *out = *b;
        return;
    }
    if (g1_is_identity(b)) {
        *out = *a;
        return;
    }
    /* add-2007-bl: U1 = X1 Z2^2, U2 = X2 Z1^2, S1 = Y1 Z2^3, S2 = Y2 Z1^3, H = U2 - U1,
     * I = (2H)^2, J = H I, r = 2(S2 - S1), V = U1 I, X3 = r^2 - J - 2V,
     * Y3 = r (V - X3) - 2 S1 J, Z3 = ((Z1 + Z2)^2 - Z1^2 - Z2^2) H. */
    fp_sqr(&z1z1, &a->z);
    fp_sqr(&z2z2, &b->z);
    fp_mul(&u1, &a->x, &z2z2);
    fp_mul(&u2, &b->x, &z1z1);
    fp_mul(&s1, &a->y, &b->z);
    fp_mul(&s1, &s1, &z2z2);
    fp_mul(&s2, &b->y, &a->z);
    fp_mul(&s2, &s2, &z1z1);
    fp_sub(&h, &u2, &u1);
    fp_sub(&r, &s2, &s1);
    if (fp_is_zero(&h)) {
        if (fp_is_zero(&r)) {
            g1_dbl(out, a); /* a == b */
        } else {
            g1_set_identity(out); /* a == -b */
        }
        return;
    }
    fp_dbl(&r, &r);
    fp_dbl(&i, &h);
    fp_sqr(&i, &i);
    fp_mul(&j, &h, &i);
    fp_mul(&v, &u1, &i);
    fp_add(&t, &a->z, &b->z);
    fp_sqr(&t, &t);
    fp_sub(&t, &t, &z1z1);
    fp_sub(&t, &t, &z2z2);
    fp_mul(&out->z, &t, &h);
    fp_sqr(&out->x, &r);
    fp_sub(&out->x, &out->x, &j);
    fp_sub(&out->x, &out->x, &v);
    fp_sub(&out->x, &out->x, &v);
    fp_sub(&t, &v, &out->x);
    fp_mul(&t, &r, &t);
    fp_mul(&s1, &s1, &j);
    fp_dbl(&s1, &s1);
    fp_sub(&out->y, &t, &s1);
}

void g1_add_aff(g1_t *out, const g1_t *a, const g1_aff_t *b)
{
    fp_t z1z1, u2, s2, h, hh, i, j, r, v, t;

    if (g1_aff_is_identity(b)) {
        *out = *a;
        return;
    }
    if (g1_is_identity(a)) {
        g1_from_aff(out, b);
        return;
    }
    /* madd-2007-bl (Z2 = 1): U2 = X2 Z1^2, S2 = Y2 Z1^3, H = U2 - X1, HH = H^2, I = 4 HH,
     * J = H I, r = 2(S2 - Y1), V = X1 I, X3 = r^2 - J - 2V, Y3 = r (V - X3) - 2 Y1 J,
     * Z3 = (Z1 + H)^2 - Z1^2 - HH. */
    fp_sqr(&z1z1, &a->z);
    fp_mul(&u2, &b->x, &z1z1);
    fp_mul(&s2, &b->y, &a->z);
    fp_mul(&s2, &s2, &z1z1);
    fp_sub(&h, &u2, &a->x);
    fp_sub(&r, &s2, &a->y);
    if (fp_is_zero(&h)) {
        if (fp_is_zero(&r)) {
            g1_dbl(out, a);
        } else {
            g1_set_identity(out);
        }
        return;
    }
    fp_dbl(&r, &r);
    fp_sqr(&hh, &h);
    fp_dbl(&i, &hh);
    fp_dbl(&i, &i);
    fp_mul(&j, &h, &i);
    fp_mul(&v, &a->x, &i);
    fp_add(&t, &a->z, &h);
    fp_sqr(&t, &t);
    fp_sub(&t, &t, &z1z1);
    fp_sub(&out->z, &t, &hh);
    fp_mul(&t, &a->y, &j); /* before out->y is written: out may alias a */
    fp_dbl(&t, &t);
    fp_sqr(&out->x, &r);
    fp_sub(&out->x, &out->x, &j);
    fp_sub(&out->x, &out->x, &v);
    fp_sub(&out->x, &out->x, &v);
    fp_sub(&v, &v, &out->x);
    fp_mul(&v, &r, &v);
    fp_sub(&out->y, &v, &t);
}

void g1_neg(g1_t *out, const g1_t *a)
{
    out->x = a->x;
    fp_neg(&out->y, &a->y);
    out->z = a->z;
}

void g1_aff_neg(g1_aff_t *out, const g1_aff_t *a)
{
    out->x = a->x;
    fp_neg(&out->y, &a->y); /* the all-zero identity stays all-zero */
}

void g1_sub(g1_t *out, const g1_t *a, const g1_t *b)
{
    g1_t nb;
    g1_neg(&nb, b);
    g1_add(out, a, &nb);
}

bool g1_eq(const g1_t *a, const g1_t *b)
{
    fp_t z1z1, z2z2, l, r;
    bool ia = g1_is_identity(a), ib = g1_is_identity(b);

    if (ia || ib) {
        return ia == ib;
    }
    /* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3 */
    fp_sqr(&z1z1, &a->z);
    fp_sqr(&z2z2, &b->z);
    fp_mul(&l, &a->x, &z2z2);
    fp_mul(&r, &b->x, &z1z1);
    if (!fp_eq(&l, &r)) {
        return false;
    }
    fp_mul(&l, &a->y, &z2z2);
    fp_mul(&l, &l, &b->z);
    fp_mul(&r, &b->y, &z1z1);
    fp_mul(&r, &r, &a->z);
    return fp_eq(&l, &r);
}

bool g1_aff_eq(const g1_aff_t *a, const g1_aff_t *b)
{
    return fp_eq(&a->x, &b->x) && fp_eq(&a->y, &b->y);
}

void g1_mul_limbs(g1_t *out, const g1_t *p, const uint64_t *k, size_t n)
{
    g1_t table[CURVE_TABLE]; /* [i + 1] p */
    g1_t acc, t;
    size_t bits = curve_bitlen(k, n);

    if (bits == 0 || g1_is_identity(p)) {
        g1_set_identity(out);
        return;
    }
    table[0] = *p;
    g1_dbl(&table[1], p);
    for (size_t i = 2; i < CURVE_TABLE; i++) {
        g1_add(&table[i], &table[i - 1], p);
    }
    /* Left to right over the Booth digits of windows bits/5 .. 0. */
    g1_set_identity(&acc);
    for (size_t w = bits / CURVE_WINDOW + 1; w-- > 0;) {
        int d = curve_booth_digit(k, n, w);
        if (!g1_is_identity(&acc)) {
            for (int j = 0; j < CURVE_WINDOW; j++) {
                g1_dbl(&acc, &acc);
            }
        }
        if (d > 0) {
            g1_add(&acc, &acc, &table[d - 1]);
        } else if (d < 0) {
            g1_neg(&t, &table[-d - 1]);
            g1_add(&acc, &acc, &t);
        }
    }
    *out = acc;
}

void g1_mul(g1_t *out, const g1_t *p, const fr_repr_t *k)
{
    g1_mul_limbs(out, p, k->l, FR_NLIMBS);
}

void g1_mul_fr(g1_t *out, const g1_t *p, const fr_t *k)
{
    fr_repr_t r;
    fr_to_repr(&r, k);
    g1_mul_limbs(out, p, r.l, FR_NLIMBS);
}

/* out = [|z|] p, |z| = 0xd201000000010000 (bits 63, 62, 60, 57, 48, 16): double and add. */
static void g1_mul_z_abs(g1_t *out, const g1_t *p)
{
    g1_t acc = *p;
    for (int i = 62; i >= 0; i--) {
        g1_dbl(&acc, &acc);
        if ((CURVE_Z_ABS >> i) & 1u) {
            g1_add(&acc, &acc, p);
        }
    }
    *out = acc;
}

bool g1_is_on_curve(const g1_t *p)
{
    fp_t y2, x3, z6;

    if (g1_is_identity(p)) {
        return true;
    }
    /* Y^2 == X^3 + 4 Z^6 */
    fp_sqr(&y2, &p->y);
    fp_sqr(&x3, &p->x);
    fp_mul(&x3, &x3, &p->x);
    fp_sqr(&z6, &p->z);
    fp_mul(&z6, &z6, &p->z);
    fp_sqr(&z6, &z6);
    fp_mul(&z6, &z6, &G1_B);
    fp_add(&x3, &x3, &z6);
    return fp_eq(&y2, &x3);
}

bool g1_aff_is_on_curve(const g1_aff_t *p)
{
    fp_t y2, rhs;

    if (g1_aff_is_identity(p)) {
        return true;
    }
    fp_sqr(&y2, &p->y);
    fp_sqr(&rhs, &p->x);
    fp_mul(&rhs, &rhs, &p->x);
    fp_add(&rhs, &rhs, &G1_B);
    return fp_eq(&y2, &rhs);
}

/* Scott, "A note on group membership tests for G1, G2 and GT on BLS pairing-friendly curves"
 * (ePrint 2021/1130): a point P of E(Fp) lies in G1 iff sigma(P) = [-z^2] P, where
 * sigma(x, y) = (beta x, y) for the cube root of unity beta whose eigenvalue on G1 is -z^2.
 * Points off the curve are reported as outside the group. */
bool g1_aff_is_in_group(const g1_aff_t *p)
{
    g1_t t;
    fp_t zz, l, r;

    if (g1_aff_is_identity(p)) {
        return true;
    }
    if (!g1_aff_is_on_curve(p)) {
        return false;
    }
    g1_from_aff(&t, p);
    g1_mul_z_abs(&t, &t);
    g1_mul_z_abs(&t, &t); /* [z^2] P */
    if (g1_is_identity(&t)) {
        return false;
    }
    /* sigma(P) == -t, i.e. beta x Z^2 == X and -y Z^3 == Y */
    fp_sqr(&zz, &t.z);
    fp_mul(&l, &p->x, &G1_BETA);
    fp_mul(&l, &l, &zz);
    if (!fp_eq(&l, &t.x)) {
        return false;
    }
    fp_mul(&zz, &zz, &t.z);
    fp_mul(&r, &p->y, &zz);
    fp_neg(&r, &r);
    return fp_eq(&r, &t.y);
}

/* ---- encodings (spec groth16.md 2.3, 2.4) ---- */

/* y = +-sqrt(x^3 + 4) with the sign the encoding asks for; false if x is not on the curve. */
static bool g1_y_from_x(fp_t *y, const fp_t *x, bool largest)
{
    fp_t rhs;
    fp_sqr(&rhs, x);
    fp_mul(&rhs, &rhs, x);
    fp_add(&rhs, &rhs, &G1_B);
    if (!fp_sqrt(y, &rhs)) {
        return false;
    }
    if (fp_is_lexicographically_largest(y) != largest) {
        fp_neg(y, y);
    }
    return true;
}

/* The checks both decoders share once the coordinates are read: x = 0 (blst rejects (0, +-2)
 * as "not in group" even unchecked), on-curve, subgroup. */
static cuzk_err g1_check_decoded(const g1_aff_t *p, bool check_group)
{
    if (fp_is_zero(&p->x) || !g1_aff_is_on_curve(p)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    if (check_group && !g1_aff_is_in_group(p)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    return CUZK_OK;
}

cuzk_err g1_aff_from_compressed(g1_aff_t *out, const uint8_t in[48], bool check_group)
{
    uint8_t buf[G1_COMPRESSED_NBYTES];
    unsigned flags = in[0] & CURVE_FLAG_MASK;
    g1_aff_t p;
    cuzk_err err;

    g1_aff_set_identity(out);
    memcpy(buf, in, sizeof(buf));
    buf[0] &= (uint8_t)~CURVE_FLAG_MASK;
    if (!(flags & CURVE_FLAG_COMPRESSED)) {
        return CUZK_E_FORMAT;
    }
    if (flags & CURVE_FLAG_INFINITY) {
        /* only 0xc0 followed by zeros */
        if ((flags & CURVE_FLAG_SIGN) || !curve_bytes_are_zero(buf, sizeof(buf))) {
            return CUZK_E_FORMAT;
        }
        return CUZK_OK;
    }
    if (fp_from_bytes(&p.x, buf) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    if (fp_is_zero(&p.x)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    if (!g1_y_from_x(&p.y, &p.x, (flags & CURVE_FLAG_SIGN) != 0)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    err = g1_check_decoded(&p, check_group);
    if (err == CUZK_OK) {
        *out = p;
    }
    return err;
}

cuzk_err g1_aff_from_uncompressed(g1_aff_t *out, const uint8_t in[96], bool check_group)
{
    uint8_t buf[G1_UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & CURVE_FLAG_MASK;
    g1_aff_t p;
    cuzk_err err;

    g1_aff_set_identity(out);
    memcpy(buf, in, sizeof(buf));
    buf[0] &= (uint8_t)~CURVE_FLAG_MASK;
    /* The compression flag contradicts the length; the sign has no meaning here. */
    if (flags & (CURVE_FLAG_COMPRESSED | CURVE_FLAG_SIGN)) {
        return CUZK_E_FORMAT;
    }
    if (flags & CURVE_FLAG_INFINITY) {
        return curve_bytes_are_zero(buf, sizeof(buf)) ? CUZK_OK : CUZK_E_FORMAT;
    }
    if (fp_from_bytes(&p.x, buf) != CUZK_OK || fp_from_bytes(&p.y, buf + FP_NBYTES) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    err = g1_check_decoded(&p, check_group);
    if (err == CUZK_OK) {
        *out = p;
    }
    return err;
}

void g1_aff_to_compressed(uint8_t out[48], const g1_aff_t *p)
{
    if (g1_aff_is_identity(p)) {
        memset(out, 0, G1_COMPRESSED_NBYTES);
        out[0] = CURVE_FLAG_COMPRESSED | CURVE_FLAG_INFINITY;
        return;
    }
    fp_to_bytes(out, &p->x);
    out[0] |= CURVE_FLAG_COMPRESSED;
    if (fp_is_lexicographically_largest(&p->y)) {
        out[0] |= CURVE_FLAG_SIGN;
    }
}

void g1_aff_to_uncompressed(uint8_t out[96], const g1_aff_t *p)
{
    if (g1_aff_is_identity(p)) {
        memset(out, 0, G1_UNCOMPRESSED_NBYTES);
        out[0] = CURVE_FLAG_INFINITY;
        return;
    }
    fp_to_bytes(out, &p->x);
    fp_to_bytes(out + FP_NBYTES, &p->y);
}
