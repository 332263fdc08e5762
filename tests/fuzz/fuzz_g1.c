/* fuzz_g1.c - libFuzzer target for the G1 point decoders g1_aff_from_compressed (the first 48
 * bytes of the input) and g1_aff_from_uncompressed (the first 96 bytes), each with and without
 * the subgroup check: fuzz_point_impl.h (the properties) with Fp coordinates. On G1, b = 4, the
 * decoders reject x = 0 (as blst), and x^3 + 4 is a square iff Euler's criterion says so.
 */
#include "fuzz.h"

#include <string.h>

#include "curve/g1.h"
#include "field/fp.h"

#include "field/fe_fp.h" /* FE, FE_SQR, ..., bound to the field */
#define AFF                     g1_aff_t
#define JAC                     g1_t
#define FZ_FN(suffix)           g1##suffix
#define COMPRESSED_NBYTES       G1_COMPRESSED_NBYTES
#define UNCOMPRESSED_NBYTES     G1_UNCOMPRESSED_NBYTES
#define CURVE_DECODE_REJECTS_X0 1

#include "fuzz_point_impl.h"

static void fe_from_wire(fp_t *out, const uint8_t *in)
{
    FUZZ_CHECK(fp_from_bytes(out, in) == CUZK_OK);
}

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

static bool fe_is_square(const fp_t *a)
{
    fp_t t;
    fp_pow(&t, a, HALF_LIMBS, FP_NLIMBS);
    return fp_is_one(&t) || fp_is_zero(a);
}
