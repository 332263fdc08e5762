/* curve_impl.h - the group law, scalar multiplication and point encodings of one BLS12-381
 * group; a template included once by g1.c (coordinates in Fp) and once by g2.c (coordinates in
 * Fp2). The includer includes its public header (g1.h or g2.h), then defines:
 *   FE                        the coordinate field type (fp_t or fp2_t)
 *   FE_ADD FE_SUB FE_DBL FE_NEG FE_MUL FE_SQR FE_INV FE_EQ FE_IS_ZERO FE_SQRT
 *   FE_IS_LARGEST             the sign of y in compressed encodings (fp_ or
 *                             fp2_is_lexicographically_largest; Fp2 compares c1, then c0)
 *   FE_ZERO, FE_ONE           const objects
 *   FE_NBYTES                 wire bytes of one coordinate (48 or 96): a compressed point is x,
 *                             an uncompressed one x || y
 *   FE_FROM_WIRE(out, in)     one coordinate from the wire: CUZK_OK, or an error for a value
 *                             >= p (Fp2 is c1 || c0 on the wire, so G2 brings its own)
 *   FE_TO_WIRE(out, a)        one coordinate to the wire, flag bits of byte 0 left clear
 *   AFF, JAC                  affine and Jacobian point types (members x, y / x, y, z)
 *   CURVE_B                   b of y^2 = x^3 + b (a const FE object: 4, or 4 (1 + u) on G2)
 *   CURVE_DECODE_REJECTS_X0   1 where the decoders reject x = 0 as blst does (G1), else 0
 *   CURVE_FN(suffix)          the public name, e.g. g1##suffix
 * Everything here is static except the CURVE_FN functions, which g1.h and g2.h declare. What
 * the groups do not share stays in the includer: b and the generator, the subgroup test (G1
 * through the endomorphism sigma, G2 through psi) and g2_psi; those come after the #include and
 * may call mul_z_abs.
 *
 * Formulas for a = 0 short Weierstrass curves from the Explicit-Formulas Database (EFD,
 * hyperelliptic.org/EFD/g1p/auto-shortw-jacobian-0.html): dbl-2009-l, add-2007-bl,
 * madd-2007-bl. Each function computes into locals or stores only after its last read, so
 * outputs may alias inputs. The identity is any (X, Y, 0); CURVE_FN(_set_identity) writes
 * (1, 1, 0). The affine identity is (0, 0), which is not a curve point on either group.
 */

#include <string.h>

#include "curve/curve_consts.h"
#include "curve/internal.h"

void CURVE_FN(_set_identity)(JAC *out)
{
    out->x = FE_ONE;
    out->y = FE_ONE;
    out->z = FE_ZERO;
}

bool CURVE_FN(_is_identity)(const JAC *p)
{
    return FE_IS_ZERO(&p->z);
}

void CURVE_FN(_aff_set_identity)(AFF *out)
{
    out->x = FE_ZERO;
    out->y = FE_ZERO;
}

bool CURVE_FN(_aff_is_identity)(const AFF *p)
{
    return FE_IS_ZERO(&p->x) && FE_IS_ZERO(&p->y);
}

void CURVE_FN(_from_aff)(JAC *out, const AFF *a)
{
    if (CURVE_FN(_aff_is_identity)(a)) {
        CURVE_FN(_set_identity)(out);
        return;
    }
    out->x = a->x;
    out->y = a->y;
    out->z = FE_ONE;
}

/* (X / Z^2, Y / Z^3) given zinv = 1 / Z. */
static void to_aff_with(AFF *out, const JAC *p, const FE *zinv)
{
    FE zi2, zi3;
    FE_SQR(&zi2, zinv);
    FE_MUL(&zi3, &zi2, zinv);
    FE_MUL(&out->x, &p->x, &zi2);
    FE_MUL(&out->y, &p->y, &zi3);
}

void CURVE_FN(_to_aff)(AFF *out, const JAC *p)
{
    FE zinv;
    if (CURVE_FN(_is_identity)(p)) {
        CURVE_FN(_aff_set_identity)(out);
        return;
    }
    FE_INV(&zinv, &p->z);
    to_aff_with(out, p, &zinv);
}

void CURVE_FN(_batch_to_aff)(AFF *out, const JAC *in, size_t n, FE *scratch)
{
    FE acc = FE_ONE, inv;

    CZ_CHECK(n == 0 || (out && in && scratch));
    CZ_CHECK(n == 0 || (uintptr_t)(out + n) <= (uintptr_t)in ||
             (uintptr_t)(in + n) <= (uintptr_t)out);
    /* Montgomery's trick: scratch[i] = product of the non-identity Z's before i. */
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!CURVE_FN(_is_identity)(&in[i])) {
            FE_MUL(&acc, &acc, &in[i].z);
        }
    }
    FE_INV(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        FE zinv;
        if (CURVE_FN(_is_identity)(&in[i])) {
            CURVE_FN(_aff_set_identity)(&out[i]);
            continue;
        }
        FE_MUL(&zinv, &inv, &scratch[i]);
        FE_MUL(&inv, &inv, &in[i].z);
        to_aff_with(&out[i], &in[i], &zinv);
    }
}

void CURVE_FN(_dbl)(JAC *out, const JAC *a)
{
    FE A, B, C, D, E, F, t;

    if (CURVE_FN(_is_identity)(a)) {
        CURVE_FN(_set_identity)(out);
        return;
    }
    /* dbl-2009-l: A = X^2, B = Y^2, C = B^2, D = 2((X + B)^2 - A - C), E = 3A, F = E^2,
     * X3 = F - 2D, Y3 = E (D - X3) - 8C, Z3 = 2 Y Z. */
    FE_SQR(&A, &a->x);
    FE_SQR(&B, &a->y);
    FE_SQR(&C, &B);
    FE_ADD(&D, &a->x, &B);
    FE_SQR(&D, &D);
    FE_SUB(&D, &D, &A);
    FE_SUB(&D, &D, &C);
    FE_DBL(&D, &D);
    FE_DBL(&E, &A);
    FE_ADD(&E, &E, &A);
    FE_SQR(&F, &E);
    FE_MUL(&t, &a->y, &a->z);
    FE_DBL(&out->z, &t);
    FE_SUB(&out->x, &F, &D);
    FE_SUB(&out->x, &out->x, &D);
    FE_SUB(&t, &D, &out->x);
    FE_MUL(&t, &E, &t);
    FE_DBL(&C, &C);
    FE_DBL(&C, &C);
    FE_DBL(&C, &C);
    FE_SUB(&out->y, &t, &C);
}

void CURVE_FN(_add)(JAC *out, const JAC *a, const JAC *b)
{
    FE z1z1, z2z2, u1, u2, s1, s2, h, i, j, r, v, t;

    if (CURVE_FN(_is_identity)(a)) {
        *out = *b;
        return;
    }
    if (CURVE_FN(_is_identity)(b)) {
        *out = *a;
        return;
    }
    /* add-2007-bl: U1 = X1 Z2^2, U2 = X2 Z1^2, S1 = Y1 Z2^3, S2 = Y2 Z1^3, H = U2 - U1,
     * I = (2H)^2, J = H I, r = 2(S2 - S1), V = U1 I, X3 = r^2 - J - 2V,
     * Y3 = r (V - X3) - 2 S1 J, Z3 = ((Z1 + Z2)^2 - Z1^2 - Z2^2) H. */
    FE_SQR(&z1z1, &a->z);
    FE_SQR(&z2z2, &b->z);
    FE_MUL(&u1, &a->x, &z2z2);
    FE_MUL(&u2, &b->x, &z1z1);
    FE_MUL(&s1, &a->y, &b->z);
    FE_MUL(&s1, &s1, &z2z2);
    FE_MUL(&s2, &b->y, &a->z);
    FE_MUL(&s2, &s2, &z1z1);
    FE_SUB(&h, &u2, &u1);
    FE_SUB(&r, &s2, &s1);
    if (FE_IS_ZERO(&h)) {
        if (FE_IS_ZERO(&r)) {
            CURVE_FN(_dbl)(out, a); /* a == b */
        } else {
            CURVE_FN(_set_identity)(out); /* a == -b */
        }
        return;
    }
    FE_DBL(&r, &r);
    FE_DBL(&i, &h);
    FE_SQR(&i, &i);
    FE_MUL(&j, &h, &i);
    FE_MUL(&v, &u1, &i);
    FE_ADD(&t, &a->z, &b->z);
    FE_SQR(&t, &t);
    FE_SUB(&t, &t, &z1z1);
    FE_SUB(&t, &t, &z2z2);
    FE_MUL(&out->z, &t, &h);
    FE_SQR(&out->x, &r);
    FE_SUB(&out->x, &out->x, &j);
    FE_SUB(&out->x, &out->x, &v);
    FE_SUB(&out->x, &out->x, &v);
    FE_SUB(&t, &v, &out->x);
    FE_MUL(&t, &r, &t);
    FE_MUL(&s1, &s1, &j);
    FE_DBL(&s1, &s1);
    FE_SUB(&out->y, &t, &s1);
}

void CURVE_FN(_add_aff)(JAC *out, const JAC *a, const AFF *b)
{
    FE z1z1, u2, s2, h, hh, i, j, r, v, t;

    if (CURVE_FN(_aff_is_identity)(b)) {
        *out = *a;
        return;
    }
    if (CURVE_FN(_is_identity)(a)) {
        CURVE_FN(_from_aff)(out, b);
        return;
    }
    /* madd-2007-bl (Z2 = 1): U2 = X2 Z1^2, S2 = Y2 Z1^3, H = U2 - X1, HH = H^2, I = 4 HH,
     * J = H I, r = 2(S2 - Y1), V = X1 I, X3 = r^2 - J - 2V, Y3 = r (V - X3) - 2 Y1 J,
     * Z3 = (Z1 + H)^2 - Z1^2 - HH. */
    FE_SQR(&z1z1, &a->z);
    FE_MUL(&u2, &b->x, &z1z1);
    FE_MUL(&s2, &b->y, &a->z);
    FE_MUL(&s2, &s2, &z1z1);
    FE_SUB(&h, &u2, &a->x);
    FE_SUB(&r, &s2, &a->y);
    if (FE_IS_ZERO(&h)) {
        if (FE_IS_ZERO(&r)) {
            CURVE_FN(_dbl)(out, a);
        } else {
            CURVE_FN(_set_identity)(out);
        }
        return;
    }
    FE_DBL(&r, &r);
    FE_SQR(&hh, &h);
    FE_DBL(&i, &hh);
    FE_DBL(&i, &i);
    FE_MUL(&j, &h, &i);
    FE_MUL(&v, &a->x, &i);
    FE_ADD(&t, &a->z, &h);
    FE_SQR(&t, &t);
    FE_SUB(&t, &t, &z1z1);
    FE_SUB(&out->z, &t, &hh);
    FE_MUL(&t, &a->y, &j); /* before out->y is written: out may alias a */
    FE_DBL(&t, &t);
    FE_SQR(&out->x, &r);
    FE_SUB(&out->x, &out->x, &j);
    FE_SUB(&out->x, &out->x, &v);
    FE_SUB(&out->x, &out->x, &v);
    FE_SUB(&v, &v, &out->x);
    FE_MUL(&v, &r, &v);
    FE_SUB(&out->y, &v, &t);
}

void CURVE_FN(_neg)(JAC *out, const JAC *a)
{
    out->x = a->x;
    FE_NEG(&out->y, &a->y);
    out->z = a->z;
}

void CURVE_FN(_aff_neg)(AFF *out, const AFF *a)
{
    out->x = a->x;
    FE_NEG(&out->y, &a->y); /* the all-zero identity stays all-zero */
}

void CURVE_FN(_sub)(JAC *out, const JAC *a, const JAC *b)
{
    JAC nb;
    CURVE_FN(_neg)(&nb, b);
    CURVE_FN(_add)(out, a, &nb);
}

bool CURVE_FN(_eq)(const JAC *a, const JAC *b)
{
    FE z1z1, z2z2, l, r;
    bool ia = CURVE_FN(_is_identity)(a), ib = CURVE_FN(_is_identity)(b);

    if (ia || ib) {
        return ia == ib;
    }
    /* X1 Z2^2 == X2 Z1^2 and Y1 Z2^3 == Y2 Z1^3 */
    FE_SQR(&z1z1, &a->z);
    FE_SQR(&z2z2, &b->z);
    FE_MUL(&l, &a->x, &z2z2);
    FE_MUL(&r, &b->x, &z1z1);
    if (!FE_EQ(&l, &r)) {
        return false;
    }
    FE_MUL(&l, &a->y, &z2z2);
    FE_MUL(&l, &l, &b->z);
    FE_MUL(&r, &b->y, &z1z1);
    FE_MUL(&r, &r, &a->z);
    return FE_EQ(&l, &r);
}

bool CURVE_FN(_aff_eq)(const AFF *a, const AFF *b)
{
    return FE_EQ(&a->x, &b->x) && FE_EQ(&a->y, &b->y);
}

void CURVE_FN(_mul_limbs)(JAC *out, const JAC *p, const uint64_t *k, size_t n)
{
    JAC table[CURVE_TABLE]; /* [i + 1] p */
    JAC acc, t;
    size_t bits = curve_bitlen(k, n);

    if (bits == 0 || CURVE_FN(_is_identity)(p)) {
        CURVE_FN(_set_identity)(out);
        return;
    }
    table[0] = *p;
    CURVE_FN(_dbl)(&table[1], p);
    for (size_t i = 2; i < CURVE_TABLE; i++) {
        CURVE_FN(_add)(&table[i], &table[i - 1], p);
    }
    /* Left to right over the Booth digits of windows bits/5 .. 0. */
    CURVE_FN(_set_identity)(&acc);
    for (size_t w = bits / CURVE_WINDOW + 1; w-- > 0;) {
        int d = curve_booth_digit(k, n, w);
        if (!CURVE_FN(_is_identity)(&acc)) {
            for (int j = 0; j < CURVE_WINDOW; j++) {
                CURVE_FN(_dbl)(&acc, &acc);
            }
        }
        if (d > 0) {
            CURVE_FN(_add)(&acc, &acc, &table[d - 1]);
        } else if (d < 0) {
            CURVE_FN(_neg)(&t, &table[-d - 1]);
            CURVE_FN(_add)(&acc, &acc, &t);
        }
    }
    *out = acc;
}

void CURVE_FN(_mul)(JAC *out, const JAC *p, const fr_repr_t *k)
{
    CURVE_FN(_mul_limbs)(out, p, k->l, FR_NLIMBS);
}

void CURVE_FN(_mul_fr)(JAC *out, const JAC *p, const fr_t *k)
{
    fr_repr_t r;
    fr_to_repr(&r, k);
    CURVE_FN(_mul_limbs)(out, p, r.l, FR_NLIMBS);
}

/* out = [|z|] p, |z| = 0xd201000000010000 (bits 63, 62, 60, 57, 48, 16): double and add. Both
 * subgroup tests (in the includer) start from it. */
static void mul_z_abs(JAC *out, const JAC *p)
{
    JAC acc = *p;
    for (int i = 62; i >= 0; i--) {
        CURVE_FN(_dbl)(&acc, &acc);
        if ((CURVE_Z_ABS >> i) & 1u) {
            CURVE_FN(_add)(&acc, &acc, p);
        }
    }
    *out = acc;
}

bool CURVE_FN(_is_on_curve)(const JAC *p)
{
    FE y2, x3, z6;

    if (CURVE_FN(_is_identity)(p)) {
        return true;
    }
    /* Y^2 == X^3 + b Z^6 */
    FE_SQR(&y2, &p->y);
    FE_SQR(&x3, &p->x);
    FE_MUL(&x3, &x3, &p->x);
    FE_SQR(&z6, &p->z);
    FE_MUL(&z6, &z6, &p->z);
    FE_SQR(&z6, &z6);
    FE_MUL(&z6, &z6, &CURVE_B);
    FE_ADD(&x3, &x3, &z6);
    return FE_EQ(&y2, &x3);
}

bool CURVE_FN(_aff_is_on_curve)(const AFF *p)
{
    FE y2, rhs;

    if (CURVE_FN(_aff_is_identity)(p)) {
        return true;
    }
    FE_SQR(&y2, &p->y);
    FE_SQR(&rhs, &p->x);
    FE_MUL(&rhs, &rhs, &p->x);
    FE_ADD(&rhs, &rhs, &CURVE_B);
    return FE_EQ(&y2, &rhs);
}

/* ---- encodings (spec groth16.md 2.3, 2.4) ---- */

/* y = +-sqrt(x^3 + b) with the sign the encoding asks for; false if x is not on the curve. */
static bool y_from_x(FE *y, const FE *x, bool largest)
{
    FE rhs;
    FE_SQR(&rhs, x);
    FE_MUL(&rhs, &rhs, x);
    FE_ADD(&rhs, &rhs, &CURVE_B);
    if (!FE_SQRT(y, &rhs)) {
        return false;
    }
    if (FE_IS_LARGEST(y) != largest) {
        FE_NEG(y, y);
    }
    return true;
}

/* The checks both decoders share once the coordinates are read. (0, 0) is not a curve point,
 * but it is how AFF stores the identity, which CURVE_FN(_aff_is_on_curve) accepts; a
 * non-infinity encoding of it must fail. G1 rejects every x = 0, the identity included (blst
 * rejects (0, +-2) as "not in group" even unchecked); G2 rejects only (0, 0). */
static cuzk_err check_decoded(const AFF *p, bool check_group)
{
    bool excluded = CURVE_DECODE_REJECTS_X0 ? FE_IS_ZERO(&p->x) : CURVE_FN(_aff_is_identity)(p);

    if (excluded || !CURVE_FN(_aff_is_on_curve)(p)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    if (check_group && !CURVE_FN(_aff_is_in_group)(p)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    return CUZK_OK;
}

/* The decoders' first step: *out is the identity until a point is accepted; buf receives the
 * len encoded bytes without the flag bits, which are returned. */
static unsigned begin_decode(AFF *out, uint8_t *buf, const uint8_t *in, size_t len)
{
    CURVE_FN(_aff_set_identity)(out);
    memcpy(buf, in, len);
    buf[0] &= (uint8_t)~CURVE_FLAG_MASK;
    return in[0] & CURVE_FLAG_MASK;
}

/* The decoders' last step: p's checks (check_decoded); *out = p when it passes. */
static cuzk_err accept_decoded(AFF *out, const AFF *p, bool check_group)
{
    cuzk_err err = check_decoded(p, check_group);
    if (err == CUZK_OK) {
        *out = *p;
    }
    return err;
}

cuzk_err CURVE_FN(_aff_from_compressed)(AFF *out, const uint8_t in[FE_NBYTES], bool check_group)
{
    uint8_t buf[FE_NBYTES];
    unsigned flags = begin_decode(out, buf, in, sizeof(buf));
    AFF p;

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
    if (FE_FROM_WIRE(&p.x, buf) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    if (CURVE_DECODE_REJECTS_X0 && FE_IS_ZERO(&p.x)) {
        return CUZK_E_NOT_IN_GROUP; /* as check_decoded would, without the square root */
    }
    if (!y_from_x(&p.y, &p.x, (flags & CURVE_FLAG_SIGN) != 0)) {
        return CUZK_E_NOT_IN_GROUP;
    }
    return accept_decoded(out, &p, check_group);
}

cuzk_err CURVE_FN(_aff_from_uncompressed)(AFF *out, const uint8_t in[2 * FE_NBYTES],
                                          bool check_group)
{
    uint8_t buf[2 * FE_NBYTES];
    unsigned flags = begin_decode(out, buf, in, sizeof(buf));
    AFF p;

    /* The compression flag contradicts the length; the sign has no meaning here. */
    if (flags & (CURVE_FLAG_COMPRESSED | CURVE_FLAG_SIGN)) {
        return CUZK_E_FORMAT;
    }
    if (flags & CURVE_FLAG_INFINITY) {
        return curve_bytes_are_zero(buf, sizeof(buf)) ? CUZK_OK : CUZK_E_FORMAT;
    }
    if (FE_FROM_WIRE(&p.x, buf) != CUZK_OK || FE_FROM_WIRE(&p.y, buf + FE_NBYTES) != CUZK_OK) {
        return CUZK_E_FORMAT;
    }
    return accept_decoded(out, &p, check_group);
}

void CURVE_FN(_aff_to_compressed)(uint8_t out[FE_NBYTES], const AFF *p)
{
    if (CURVE_FN(_aff_is_identity)(p)) {
        memset(out, 0, FE_NBYTES);
        out[0] = CURVE_FLAG_COMPRESSED | CURVE_FLAG_INFINITY;
        return;
    }
    FE_TO_WIRE(out, &p->x);
    out[0] |= CURVE_FLAG_COMPRESSED;
    if (FE_IS_LARGEST(&p->y)) {
        out[0] |= CURVE_FLAG_SIGN;
    }
}

void CURVE_FN(_aff_to_uncompressed)(uint8_t out[2 * FE_NBYTES], const AFF *p)
{
    if (CURVE_FN(_aff_is_identity)(p)) {
        memset(out, 0, 2 * FE_NBYTES);
        out[0] = CURVE_FLAG_INFINITY;
        return;
    }
    FE_TO_WIRE(out, &p->x);
    FE_TO_WIRE(out + FE_NBYTES, &p->y);
}
