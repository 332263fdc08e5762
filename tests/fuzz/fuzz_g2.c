/* fuzz_g2.c - libFuzzer target for the G2 point decoders g2_aff_from_compressed (the first 96
 * bytes of the input) and g2_aff_from_uncompressed (the first 192 bytes), each with and without
 * the subgroup check. Wire order of an Fp2 element: c1 first, then c0.
 * Properties, checked against arithmetic done here (spec groth16.md 2.2-2.4), not against the
 * decoder's own helpers:
 *   - the result is OK, E_FORMAT or E_NOT_IN_GROUP, and the output is the identity on failure;
 *   - flag handling: no compression flag (compressed) or a compression / sign flag
 *     (uncompressed) is E_FORMAT; the infinity flag is accepted only as the exact identity
 *     encoding; a coordinate >= p is E_FORMAT; format errors do not depend on check_group;
 *   - an accepted point satisfies y^2 = x^3 + 4 (1 + u), has the y the sign flag asks for,
 *     and re-encodes to exactly the input bytes (both forms decode to the same point);
 *   - check_group accepts exactly the accepted points with [r]P = O;
 *   - a well-formed compressed x with x^3 + b' a square is accepted (a is a square in Fp2 iff
 *     its norm c0^2 + c1^2 is a square in Fp: Euler's criterion there).
 */
#include "fuzz.h"

#include <string.h>

#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"

#define FLAG_C 0x80 /* compressed */
#define FLAG_I 0x40 /* infinity */
#define FLAG_S 0x20 /* sign: y is the lexicographically largest root */

static const uint8_t P_BE[FP_NBYTES] = {
    0x1a, 0x01, 0x11, 0xea, 0x39, 0x7f, 0xe6, 0x9a, 0x4b, 0x1b, 0xa7, 0xb6, 0x43, 0x4b, 0xac, 0xd7,
    0x64, 0x77, 0x4b, 0x84, 0xf3, 0x85, 0x12, 0xbf, 0x67, 0x30, 0xd2, 0xa0, 0xf6, 0xb0, 0xf6, 0x24,
    0x1e, 0xab, 0xff, 0xfe, 0xb1, 0x53, 0xff, 0xff, 0xb9, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xaa, 0xab,
};
/* (p - 1) / 2, big-endian (spec groth16.md 1.1). */
static const uint8_t HALF_BE[FP_NBYTES] = {
    0x0d, 0x00, 0x88, 0xf5, 0x1c, 0xbf, 0xf3, 0x4d, 0x25, 0x8d, 0xd3, 0xdb, 0x21, 0xa5, 0xd6, 0x6b,
    0xb2, 0x3b, 0xa5, 0xc2, 0x79, 0xc2, 0x89, 0x5f, 0xb3, 0x98, 0x69, 0x50, 0x7b, 0x58, 0x7b, 0x12,
    0x0f, 0x55, 0xff, 0xff, 0x58, 0xa9, 0xff, 0xff, 0xdc, 0xff, 0x7f, 0xff, 0xff, 0xff, 0xd5, 0x55,
};
/* (p - 1) / 2 as little-endian limbs, for Euler's criterion. */
static const uint64_t HALF_LIMBS[FP_NLIMBS] = {
    0xdcff7fffffffd555, 0x0f55ffff58a9ffff, 0xb39869507b587b12,
    0xb23ba5c279c2895f, 0x258dd3db21a5d66b, 0x0d0088f51cbff34d,
};
/* r as little-endian limbs. */
static const uint64_t R_LIMBS[4] = {
    0xffffffff00000001,
    0x53bda402fffe5bfe,
    0x3339d80809a1d805,
    0x73eda753299d7d48,
};

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

/* An Fp2 element from its wire form c1 || c0 (both already known to be < p). */
static void fp2_from_wire(fp2_t *out, const uint8_t in[2 * FP_NBYTES])
{
    FUZZ_CHECK(fp_from_bytes(&out->c1, in) == CUZK_OK);
    FUZZ_CHECK(fp_from_bytes(&out->c0, in + FP_NBYTES) == CUZK_OK);
}

/* rhs = x^3 + 4 (1 + u) */
static void curve_rhs(fp2_t *rhs, const fp2_t *x)
{
    fp2_t b;
    fp_from_u64(&b.c0, 4);
    fp_from_u64(&b.c1, 4);
    fp2_sqr(rhs, x);
    fp2_mul(rhs, rhs, x);
    fp2_add(rhs, rhs, &b);
}

static bool fp_largest(const fp_t *a)
{
    uint8_t b[FP_NBYTES];
    fp_to_bytes(b, a);
    return memcmp(b, HALF_BE, FP_NBYTES) > 0;
}

/* sign(y): sign(y.c1) when y.c1 != 0, else sign(y.c0) (spec groth16.md 2.3). */
static bool y_is_largest(const fp2_t *y)
{
    return fp_is_zero(&y->c1) ? fp_largest(&y->c0) : fp_largest(&y->c1);
}

/* Properties of every accepted non-identity point; returns [r]P == O. */
static bool check_point(const g2_aff_t *p)
{
    fp2_t rhs, y2;
    g2_t j, rj;

    curve_rhs(&rhs, &p->x);
    fp2_sqr(&y2, &p->y);
    FUZZ_CHECK(fp2_eq(&y2, &rhs));
    g2_from_aff(&j, p);
    g2_mul_limbs(&rj, &j, R_LIMBS, 4);
    return g2_is_identity(&rj);
}

static void check_compressed(const uint8_t in[G2_COMPRESSED_NBYTES])
{
    uint8_t x_w[G2_COMPRESSED_NBYTES], enc[G2_UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & 0xe0;
    g2_aff_t p, q, u;
    cuzk_err e = g2_aff_from_compressed(&p, in, false);
    cuzk_err eg = g2_aff_from_compressed(&q, in, true);

    memcpy(x_w, in, sizeof(x_w));
    x_w[0] &= 0x1f;
    FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT || e == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK(eg == CUZK_OK || eg == CUZK_E_FORMAT || eg == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK((e == CUZK_E_FORMAT) == (eg == CUZK_E_FORMAT));
    if (e != CUZK_OK) {
        FUZZ_CHECK(g2_aff_is_identity(&p));
    }
    if (eg != CUZK_OK) {
        FUZZ_CHECK(g2_aff_is_identity(&q));
    }
    if (!(flags & FLAG_C)) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    if (flags & FLAG_I) {
        FUZZ_CHECK((e == CUZK_OK) == (flags == (FLAG_C | FLAG_I) && all_zero(x_w, sizeof(x_w))));
        FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT);
        if (e == CUZK_OK) {
            fuzz_note_ok();
            FUZZ_CHECK(eg == CUZK_OK && g2_aff_is_identity(&p) && g2_aff_is_identity(&q));
        }
        return;
    }
    if (memcmp(x_w, P_BE, FP_NBYTES) >= 0 || memcmp(x_w + FP_NBYTES, P_BE, FP_NBYTES) >= 0) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    FUZZ_CHECK(e != CUZK_E_FORMAT);
    if (e == CUZK_OK) {
        bool in_group;
        fuzz_note_ok();
        FUZZ_CHECK(!g2_aff_is_identity(&p));
        in_group = check_point(&p);
        FUZZ_CHECK(y_is_largest(&p.y) == ((flags & FLAG_S) != 0));
        FUZZ_CHECK((eg == CUZK_OK) == in_group);
        FUZZ_CHECK(eg != CUZK_OK || g2_aff_eq(&p, &q));
        FUZZ_CHECK(g2_aff_is_in_group(&p) == in_group);
        g2_aff_to_compressed(enc, &p);
        FUZZ_CHECK(memcmp(enc, in, G2_COMPRESSED_NBYTES) == 0);
        g2_aff_to_uncompressed(enc, &p);
        FUZZ_CHECK(g2_aff_from_uncompressed(&u, enc, false) == CUZK_OK);
        FUZZ_CHECK(g2_aff_eq(&u, &p));
    } else {
        /* rejected: x^3 + b' is not a square, i.e. its norm is not a square in Fp */
        fp2_t x, rhs;
        fp_t norm, t, t1, e_;
        fp2_from_wire(&x, x_w);
        curve_rhs(&rhs, &x);
        fp_sqr(&t, &rhs.c0);
        fp_sqr(&t1, &rhs.c1);
        fp_add(&norm, &t, &t1);
        fp_pow(&e_, &norm, HALF_LIMBS, FP_NLIMBS);
        FUZZ_CHECK(!fp_is_one(&e_) && !fp_is_zero(&norm));
    }
}

static void check_uncompressed(const uint8_t in[G2_UNCOMPRESSED_NBYTES])
{
    uint8_t xy[G2_UNCOMPRESSED_NBYTES], enc[G2_UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & 0xe0;
    g2_aff_t p, q, c;
    cuzk_err e = g2_aff_from_uncompressed(&p, in, false);
    cuzk_err eg = g2_aff_from_uncompressed(&q, in, true);
    bool canonical = true;

    memcpy(xy, in, sizeof(xy));
    xy[0] &= 0x1f;
    FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT || e == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK(eg == CUZK_OK || eg == CUZK_E_FORMAT || eg == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK((e == CUZK_E_FORMAT) == (eg == CUZK_E_FORMAT));
    if (e != CUZK_OK) {
        FUZZ_CHECK(g2_aff_is_identity(&p));
    }
    if (eg != CUZK_OK) {
        FUZZ_CHECK(g2_aff_is_identity(&q));
    }
    if (flags & (FLAG_C | FLAG_S)) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    if (flags & FLAG_I) {
        FUZZ_CHECK((e == CUZK_OK) == all_zero(xy, sizeof(xy)));
        FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT);
        if (e == CUZK_OK) {
            fuzz_note_ok();
            FUZZ_CHECK(eg == CUZK_OK && g2_aff_is_identity(&p));
        }
        return;
    }
    for (int i = 0; i < 4; i++) {
        canonical = canonical && memcmp(xy + i * FP_NBYTES, P_BE, FP_NBYTES) < 0;
    }
    if (!canonical) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    FUZZ_CHECK(e != CUZK_E_FORMAT);
    if (e == CUZK_OK) {
        bool in_group;
        fuzz_note_ok();
        FUZZ_CHECK(!g2_aff_is_identity(&p));
        in_group = check_point(&p);
        FUZZ_CHECK((eg == CUZK_OK) == in_group);
        FUZZ_CHECK(eg != CUZK_OK || g2_aff_eq(&p, &q));
        g2_aff_to_uncompressed(enc, &p);
        FUZZ_CHECK(memcmp(enc, in, G2_UNCOMPRESSED_NBYTES) == 0);
        g2_aff_to_compressed(enc, &p);
        FUZZ_CHECK(g2_aff_from_compressed(&c, enc, false) == CUZK_OK);
        FUZZ_CHECK(g2_aff_eq(&c, &p));
    } else {
        /* rejected although canonical: off the curve */
        fp2_t x, y, rhs, y2;
        fp2_from_wire(&x, xy);
        fp2_from_wire(&y, xy + 2 * FP_NBYTES);
        curve_rhs(&rhs, &x);
        fp2_sqr(&y2, &y);
        FUZZ_CHECK(!fp2_eq(&y2, &rhs));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= G2_COMPRESSED_NBYTES) {
        check_compressed(data);
    }
    if (size >= G2_UNCOMPRESSED_NBYTES) {
        check_uncompressed(data);
    }
    return 0;
}
