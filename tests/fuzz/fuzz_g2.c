/* fuzz_g2.c - libFuzzer target for the G2 point decoders g2_aff_from_compressed (the first 96
 * bytes of the input) and g2_aff_from_uncompressed (the first 192 bytes), each with and without
 * the subgroup check: fuzz_point_impl.h (the properties) with Fp2 coordinates. On G2,
 * b' = 4 (1 + u); the wire order of an Fp2 element is c1 first, then c0; x = 0 gets no special
 * case; and a is a square in Fp2 iff its norm c0^2 + c1^2 is a square in Fp (Euler's criterion
 * there).
 */
#include "fuzz.h"

#include <string.h>

#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"

#include "field/fe_fp2.h" /* FE, FE_SQR, ..., bound to the field */
#define AFF                     g2_aff_t
#define JAC                     g2_t
#define FZ_FN(suffix)           g2##suffix
#define COMPRESSED_NBYTES       G2_COMPRESSED_NBYTES
#define UNCOMPRESSED_NBYTES     G2_UNCOMPRESSED_NBYTES
#define CURVE_DECODE_REJECTS_X0 0

#include "fuzz_point_impl.h"

/* c1 || c0 */
static void fe_from_wire(fp2_t *out, const uint8_t *in)
{
    FUZZ_CHECK(fp_from_bytes(&out->c1, in) == CUZK_OK);
    FUZZ_CHECK(fp_from_bytes(&out->c0, in + FP_NBYTES) == CUZK_OK);
}

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

static bool fe_is_square(const fp2_t *a)
{
    fp_t norm, t, t1;
    fp_sqr(&t, &a->c0);
    fp_sqr(&t1, &a->c1);
    fp_add(&norm, &t, &t1);
    fp_pow(&t, &norm, HALF_LIMBS, FP_NLIMBS);
    return fp_is_one(&t) || fp_is_zero(&norm);
}
