/* fuzz_point_impl.h - the libFuzzer target for one group's point decoders
 * (<g>_aff_from_compressed on the first COMPRESSED_NBYTES bytes of the input and
 * <g>_aff_from_uncompressed on the first UNCOMPRESSED_NBYTES, each with and without the subgroup
 * check); a template included once by fuzz_g1.c and once by fuzz_g2.c.
 * Properties, checked against arithmetic done here (spec groth16.md 2.2-2.4), not against the
 * decoder's own helpers:
 *   - the result is OK, E_FORMAT or E_NOT_IN_GROUP, and the output is the identity on failure;
 *   - flag handling: no compression flag (compressed) or a compression / sign flag
 *     (uncompressed) is E_FORMAT; the infinity flag is accepted only as the exact identity
 *     encoding; a coordinate >= p is E_FORMAT; format errors do not depend on check_group;
 *   - an accepted point satisfies y^2 = x^3 + b, has x != 0 where the group's decoders reject
 *     x = 0 (G1, as blst), has the y the sign flag asks for, and re-encodes to exactly the input
 *     bytes (both forms decode to the same point);
 *   - check_group accepts exactly the accepted points with [r]P = O;
 *   - a well-formed compressed x with x^3 + b a square is accepted.
 * The includer includes the group's header and field/fe_fp.h or fe_fp2.h (FE, FE_SQR, FE_EQ,
 * FE_IS_ZERO), defines
 *   AFF, JAC                  affine and Jacobian point types
 *   FZ_FN(suffix)             the group's names, e.g. g1##suffix
 *   COMPRESSED_NBYTES, UNCOMPRESSED_NBYTES   the two encodings' sizes
 *   CURVE_DECODE_REJECTS_X0   1 where the decoders reject x = 0 (G1), else 0
 * and, after the #include, the static functions declared below (they may use P_BE, HALF_BE and
 * HALF_LIMBS).
 */

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

/* The group's part, defined by the includer. */
/* A coordinate from its wire form (every Fp word of it known to be < p). */
static void fe_from_wire(FE *out, const uint8_t *in);
/* rhs = x^3 + b */
static void curve_rhs(FE *rhs, const FE *x);
/* The sign a compressed encoding gives y: whether y is the lexicographically largest root. */
static bool y_is_largest(const FE *y);
/* Whether a is a square (Euler's criterion, computed with fp_pow). */
static bool fe_is_square(const FE *a);

static bool all_zero(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i]) {
            return false;
        }
    }
    return true;
}

/* True iff each of the n / FP_NBYTES big-endian Fp words of b is below p. */
static bool all_canonical(const uint8_t *b, size_t n)
{
    for (size_t off = 0; off < n; off += FP_NBYTES) {
        if (memcmp(b + off, P_BE, FP_NBYTES) >= 0) {
            return false;
        }
    }
    return true;
}

/* Properties of every accepted non-identity point; returns [r]P == O. */
static bool check_point(const AFF *p)
{
    FE rhs, y2;
    JAC j, rj;

    FUZZ_CHECK(!CURVE_DECODE_REJECTS_X0 || !FE_IS_ZERO(&p->x));
    curve_rhs(&rhs, &p->x);
    FE_SQR(&y2, &p->y);
    FUZZ_CHECK(FE_EQ(&y2, &rhs));
    FZ_FN(_from_aff)(&j, p);
    FZ_FN(_mul_limbs)(&rj, &j, R_LIMBS, 4);
    return FZ_FN(_is_identity)(&rj);
}

/* The checks both decoders share up to the coordinates: e (without) and eg (with the subgroup
 * check) are in range and leave the identity on failure, and format errors do not depend on
 * check_group. */
static void check_results(cuzk_err e, cuzk_err eg, const AFF *p, const AFF *q)
{
    FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT || e == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK(eg == CUZK_OK || eg == CUZK_E_FORMAT || eg == CUZK_E_NOT_IN_GROUP);
    FUZZ_CHECK((e == CUZK_E_FORMAT) == (eg == CUZK_E_FORMAT));
    if (e != CUZK_OK) {
        FUZZ_CHECK(FZ_FN(_aff_is_identity)(p));
    }
    if (eg != CUZK_OK) {
        FUZZ_CHECK(FZ_FN(_aff_is_identity)(q));
    }
}

static void check_compressed(const uint8_t in[COMPRESSED_NBYTES])
{
    uint8_t x_w[COMPRESSED_NBYTES], enc[UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & 0xe0;
    AFF p, q, u;
    cuzk_err e = FZ_FN(_aff_from_compressed)(&p, in, false);
    cuzk_err eg = FZ_FN(_aff_from_compressed)(&q, in, true);

    memcpy(x_w, in, sizeof(x_w));
    x_w[0] &= 0x1f;
    check_results(e, eg, &p, &q);
    if (!(flags & FLAG_C)) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    if (flags & FLAG_I) {
        FUZZ_CHECK((e == CUZK_OK) == (flags == (FLAG_C | FLAG_I) && all_zero(x_w, sizeof(x_w))));
        FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT);
        if (e == CUZK_OK) {
            fuzz_note_ok();
            FUZZ_CHECK(eg == CUZK_OK && FZ_FN(_aff_is_identity)(&p) && FZ_FN(_aff_is_identity)(&q));
        }
        return;
    }
    if (!all_canonical(x_w, sizeof(x_w))) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    FUZZ_CHECK(e != CUZK_E_FORMAT);
    if (e == CUZK_OK) {
        bool in_group;
        fuzz_note_ok();
        FUZZ_CHECK(!FZ_FN(_aff_is_identity)(&p));
        in_group = check_point(&p);
        FUZZ_CHECK(y_is_largest(&p.y) == ((flags & FLAG_S) != 0));
        FUZZ_CHECK((eg == CUZK_OK) == in_group);
        FUZZ_CHECK(eg != CUZK_OK || FZ_FN(_aff_eq)(&p, &q));
        FUZZ_CHECK(FZ_FN(_aff_is_in_group)(&p) == in_group);
        FZ_FN(_aff_to_compressed)(enc, &p);
        FUZZ_CHECK(memcmp(enc, in, COMPRESSED_NBYTES) == 0);
        FZ_FN(_aff_to_uncompressed)(enc, &p);
        FUZZ_CHECK(FZ_FN(_aff_from_uncompressed)(&u, enc, false) == CUZK_OK);
        FUZZ_CHECK(FZ_FN(_aff_eq)(&u, &p));
    } else {
        /* rejected: x = 0 (where the decoders reject it) or x^3 + b is not a square */
        FE x, rhs;
        fe_from_wire(&x, x_w);
        if (!CURVE_DECODE_REJECTS_X0 || !FE_IS_ZERO(&x)) {
            curve_rhs(&rhs, &x);
            FUZZ_CHECK(!fe_is_square(&rhs));
        }
    }
}

static void check_uncompressed(const uint8_t in[UNCOMPRESSED_NBYTES])
{
    uint8_t xy[UNCOMPRESSED_NBYTES], enc[UNCOMPRESSED_NBYTES];
    unsigned flags = in[0] & 0xe0;
    AFF p, q, c;
    cuzk_err e = FZ_FN(_aff_from_uncompressed)(&p, in, false);
    cuzk_err eg = FZ_FN(_aff_from_uncompressed)(&q, in, true);

    memcpy(xy, in, sizeof(xy));
    xy[0] &= 0x1f;
    check_results(e, eg, &p, &q);
    if (flags & (FLAG_C | FLAG_S)) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    if (flags & FLAG_I) {
        FUZZ_CHECK((e == CUZK_OK) == all_zero(xy, sizeof(xy)));
        FUZZ_CHECK(e == CUZK_OK || e == CUZK_E_FORMAT);
        if (e == CUZK_OK) {
            fuzz_note_ok();
            FUZZ_CHECK(eg == CUZK_OK && FZ_FN(_aff_is_identity)(&p));
        }
        return;
    }
    if (!all_canonical(xy, sizeof(xy))) {
        FUZZ_CHECK(e == CUZK_E_FORMAT);
        return;
    }
    FUZZ_CHECK(e != CUZK_E_FORMAT);
    if (e == CUZK_OK) {
        bool in_group;
        fuzz_note_ok();
        FUZZ_CHECK(!FZ_FN(_aff_is_identity)(&p));
        in_group = check_point(&p);
        FUZZ_CHECK((eg == CUZK_OK) == in_group);
        FUZZ_CHECK(eg != CUZK_OK || FZ_FN(_aff_eq)(&p, &q));
        FZ_FN(_aff_to_uncompressed)(enc, &p);
        FUZZ_CHECK(memcmp(enc, in, UNCOMPRESSED_NBYTES) == 0);
        FZ_FN(_aff_to_compressed)(enc, &p);
        FUZZ_CHECK(FZ_FN(_aff_from_compressed)(&c, enc, false) == CUZK_OK);
        FUZZ_CHECK(FZ_FN(_aff_eq)(&c, &p));
    } else {
        /* rejected although canonical: x = 0 (where the decoders reject it) or off the curve */
        FE x, y, rhs, y2;
        fe_from_wire(&x, xy);
        fe_from_wire(&y, xy + UNCOMPRESSED_NBYTES / 2);
        curve_rhs(&rhs, &x);
        FE_SQR(&y2, &y);
        FUZZ_CHECK((CURVE_DECODE_REJECTS_X0 && FE_IS_ZERO(&x)) || !FE_EQ(&y2, &rhs));
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= COMPRESSED_NBYTES) {
        check_compressed(data);
    }
    if (size >= UNCOMPRESSED_NBYTES) {
        check_uncompressed(data);
    }
    return 0;
}
