/* g1.c - G1 of BLS12-381: E(Fp): y^2 = x^3 + 4. The group law, scalar multiplication and the
 * encodings are curve_impl.h instantiated with Fp coordinates; this file adds b, the generator
 * and the subgroup test through the endomorphism sigma(x, y) = (beta x, y).
 *
 * Where G1 differs from G2 inside the template: a coordinate is one Fp element (48 bytes on the
 * wire), the sign of a compressed y is Fp's lexicographic order, and the decoders reject x = 0
 * as blst does.
 */
#include "curve/g1.h"

#include "curve/curve_consts.h"

/* b = 4 */
static const fp_t G1_B = {G1_B_MONT_INIT};
/* beta: (x, y) -> (beta x, y) acts on G1 as [-z^2] (see g1_aff_is_in_group) */
static const fp_t G1_BETA = {G1_BETA_MONT_INIT};

const g1_aff_t G1_GEN = {.x = {G1_GEN_X_MONT_INIT}, .y = {G1_GEN_Y_MONT_INIT}};

_Static_assert(G1_COMPRESSED_NBYTES == FP_NBYTES && G1_UNCOMPRESSED_NBYTES == 2 * FP_NBYTES,
               "a G1 encoding is x, or x || y, of one Fp element each");

#include "field/fe_fp.h" /* FE, FE_ADD, ..., bound to the field */
#define FE_NBYTES               FP_NBYTES
#define FE_FROM_WIRE            fp_from_bytes
#define FE_TO_WIRE              fp_to_bytes
#define AFF                     g1_aff_t
#define JAC                     g1_t
#define CURVE_B                 G1_B
#define CURVE_DECODE_REJECTS_X0 1
#define CURVE_FN(suffix)        g1##suffix

#include "curve/curve_impl.h"

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
    mul_z_abs(&t, &t);
    mul_z_abs(&t, &t); /* [z^2] P */
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
