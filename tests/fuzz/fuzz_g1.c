/* fuzz_g1.c - libFuzzer target for the G1 point decoders g1_aff_from_compressed (the first 48
 * bytes of the input) and g1_aff_from_uncompressed (the first 96 bytes), each with and without
 * the subgroup check.
 * Properties, checked against arithmetic done here (spec groth16.md 2.2-2.4), not against the
 * decoder's own helpers:
 *   - the result is OK, E_FORMAT or E_NOT_IN_GROUP, and the output is the identity on failure;
 *   - flag handling: no compression flag (compressed) or a compression / sign flag
 *     (uncompressed) is E_FORMAT; the infinity flag is accepted only as the exact identity
 *     encoding; a coordinate >= p is E_FORMAT; format errors do not depend on check_group;
 *   - an accepted point satisfies y^2 = x^3 + 4, has x != 0, has the y the sign flag asks for,
 *     and re-encodes to exactly the input bytes (both forms decode to the same point);
 *   - check_group accepts exactly the accepted points with [r]P = O;
 *   - a well-formed compressed x with x^3 + 4 a square (Euler's criterion) is accepted.
 */
#include "fuzz.h"

#include <string.h>

#include "curve/g1.h"
#include "field/fp.h"

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

/* rhs = x^3 + 4 */
static void curve_rhs(fp_t *rhs, const fp_t *x)
{
    fp_t four;
    fp_from_u64(&four, 4);
    fp_sqr(rhs, x);
    fp_mul(rhs, rhs, x);
    fp_add(rhs, rhs, &four);
}

static bool y_is_largest(const fp_t *y)
{
    uint8_t b[FP_NBYTES];
    fp_to_bytes(b, y);
    return memcmp(b, HALF_BE, FP_NBYTES) > 0;
}

/* Properties of every accepted non-identity point; returns [r]P == O. */
static bool check_point(const g1_aff_t *p)
{
    fp_t rhs, y2;
    g1_t j, rj;

    FUZZ_CHECK(!fp_is_zero(&p->x));
    curve_rhs(&rhs, &p->x);
    fp_sqr(&y2, &p->y);
    FUZZ_CHECK(fp_eq(&y2, &rhs));
    g1_from_aff(&j, p);
    g1_mul_limbs(&rj, &j, R_LIMBS, 4);
    return g1_is_identity(&rj);
}

static void check_compressed(const uint8_t in[G1_COMPRESSED_NBYTES])
{
    uint8_t x_be[FP_NBYTES], enc[G1_UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & 0xe0;
    g1_aff_t p, q, u;
    cuzk_err e = g1_aff_from_compressed(&p, in, false);
    cuzk_err eg = g1_aff_from_compressed(&q, in, true);

    memcpy(x_be, in, FP_NBYTES);
    x_be[0] &= 0x1f;
    FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT || e == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK(eg == CUZK_OK || eg == CUZK_E_FORMAT || eg == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK((e == CUZK_E_FORMAT) == (eg == CUZK_E_FORMAT));
    if (e != CUZK_OK) {
        FUZZ_CHECK(g1_aff_is_identity(&p));
    }
    if (eg != CUZK_OK) {
        FUZZ_CHECK(g1_aff_is_identity(&q));
    }
    if (!(flags & FLAG_C)) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    if (flags & FLAG_I) {
        FUZZ_CHECK((e == CUZK_OK) == (flags == (FLAG_C | FLAG_I) && all_zero(x_be, FP_NBYTES)));
        FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT);
        if (e == CUZK_OK) {
            fuzz_note_ok();
            FUZZ_CHECK(eg == CUZK_OK && g1_aff_is_identity(&p) && g1_aff_is_identity(&q));
        }
        return;
    }
    if (memcmp(x_be, P_BE, FP_NBYTES) >= 0) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    FUZZ_CHECK(e != CUZK_E_FORMAT);
    if (e == CUZK_OK) {
        bool in_group;
        fuzz_note_ok();
        FUZZ_CHECK(!g1_aff_is_identity(&p));
        in_group = check_point(&p);
        FUZZ_CHECK(y_is_largest(&p.y) == ((flags & FLAG_S) != 0));
        FUZZ_CHECK((eg == CUZK_OK) == in_group);
        FUZZ_CHECK(eg != CUZK_OK || g1_aff_eq(&p, &q));
        FUZZ_CHECK(g1_aff_is_in_group(&p) == in_group);
        g1_aff_to_compressed(enc, &p);
        FUZZ_CHECK(memcmp(enc, in, G1_COMPRESSED_NBYTES) == 0);
        g1_aff_to_uncompressed(enc, &p);
        FUZZ_CHECK(g1_aff_from_uncompressed(&u, enc, false) == CUZK_OK);
        FUZZ_CHECK(g1_aff_eq(&u, &p));
    } else {
        /* rejected: x = 0 (as blst) or x^3 + 4 is not a square (Euler's criterion) */
        fp_t x, rhs, t;
        FUZZ_CHECK(fp_from_bytes(&x, x_be) == CUZK_OK);
        if (!fp_is_zero(&x)) {
            curve_rhs(&rhs, &x);
            fp_pow(&t, &rhs, HALF_LIMBS, FP_NLIMBS);
            FUZZ_CHECK(!fp_is_one(&t) && !fp_is_zero(&rhs));
        }
    }
}

static void check_uncompressed(const uint8_t in[G1_UNCOMPRESSED_NBYTES])
{
    uint8_t xy[G1_UNCOMPRESSED_NBYTES], enc[G1_UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & 0xe0;
    g1_aff_t p, q, c;
    cuzk_err e = g1_aff_from_uncompressed(&p, in, false);
    cuzk_err eg = g1_aff_from_uncompressed(&q, in, true);

    memcpy(xy, in, sizeof(xy));
    xy[0] &= 0x1f;
    FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT || e == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK(eg == CUZK_OK || eg == CUZK_E_FORMAT || eg == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK((e == CUZK_E_FORMAT) == (eg == CUZK_E_FORMAT));
    if (e != CUZK_OK) {
        FUZZ_CHECK(g1_aff_is_identity(&p));
    }
    if (eg != CUZK_OK) {
        FUZZ_CHECK(g1_aff_is_identity(&q));
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
            FUZZ_CHECK(eg == CUZK_OK && g1_aff_is_identity(&p));
        }
        return;
    }
    if (memcmp(xy, P_BE, FP_NBYTES) >= 0 || memcmp(xy + FP_NBYTES, P_BE, FP_NBYTES) >= 0) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    FUZZ_CHECK(e != CUZK_E_FORMAT);
    if (e == CUZK_OK) {
        bool in_group;
        fuzz_note_ok();
        FUZZ_CHECK(!g1_aff_is_identity(&p));
        in_group = check_point(&p);
        FUZZ_CHECK((eg == CUZK_OK) == in_group);
        FUZZ_CHECK(eg != CUZK_OK || g1_aff_eq(&p, &q));
        g1_aff_to_uncompressed(enc, &p);
        FUZZ_CHECK(memcmp(enc, in, G1_UNCOMPRESSED_NBYTES) == 0);
        g1_aff_to_compressed(enc, &p);
        FUZZ_CHECK(g1_aff_from_compressed(&c, enc, false) == CUZK_OK);
        FUZZ_CHECK(g1_aff_eq(&c, &p));
    } else {
        /* rejected although canonical: x = 0 or off the curve */
        fp_t x, y, rhs, y2;
        FUZZ_CHECK(fp_from_bytes(&x, xy) == CUZK_OK &&
                   fp_from_bytes(&y, xy + FP_NBYTES) == CUZK_OK);
        curve_rhs(&rhs, &x);
        fp_sqr(&y2, &y);
        FUZZ_CHECK(fp_is_zero(&x) || !fp_eq(&y2, &rhs));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= G1_COMPRESSED_NBYTES) {
        check_compressed(data);
    }
    if (size >= G1_UNCOMPRESSED_NBYTES) {
        check_uncompressed(data);
    }
    return 0;
}
