/* g2.c - G2 of BLS12-381: the sextic M-twist E'(Fp2): y^2 = x^3 + 4(1 + u). The group law,
 * scalar multiplication and the encodings are curve_impl.h instantiated with Fp2 coordinates;
 * this file adds b', the generator, the wire form of Fp2, the untwist-Frobenius-twist
 * endomorphism psi and the subgroup test through it.
 *
 * Where G2 differs from G1 inside the template: a coordinate is an Fp2 element, c1 || c0 on the
 * wire (96 bytes); the sign of a compressed y is Fp2's lexicographic order (sign(c1), or sign(c0)
 * when c1 = 0); and x = 0 gets no special case in the decoders.
 */
#include "curve/g2.h"

#include "curve/curve_consts.h"

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

_Static_assert(G2_COMPRESSED_NBYTES == 2 * FP_NBYTES && G2_UNCOMPRESSED_NBYTES == 4 * FP_NBYTES,
               "a G2 encoding is x, or x || y, of one Fp2 element each");

/* ---- Fp2 on the wire (spec groth16.md 2.3): c1 || c0, each 48 bytes big-endian ---- */

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

#include "field/fe_fp2.h" /* FE, FE_ADD, ..., bound to the field */
#define FE_NBYTES               (2 * FP_NBYTES)
#define FE_FROM_WIRE            g2_fp2_from_wire
#define FE_TO_WIRE              g2_fp2_to_wire
#define AFF                     g2_aff_t
#define JAC                     g2_t
#define CURVE_B                 G2_B
#define CURVE_DECODE_REJECTS_X0 0
#define CURVE_FN(suffix)        g2##suffix

#include "curve/curve_impl.h"

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
    mul_z_abs(&t, &t); /* [|z|] Q = -[z] Q */
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
