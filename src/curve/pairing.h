/* pairing.h - the optimal ate pairing e: G1 x G2 -> GT of BLS12-381 and products of pairings
 * (verification only). Matches blst / @noble/curves: e(P, Q) = final_exp(miller_loop(P, Q)).
 * Memory: never allocates. Timing: variable-time.
 */
#ifndef CUZK_CURVE_PAIRING_H
#define CUZK_CURVE_PAIRING_H

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp12.h"

/** out = prod_{i<n} f_{P_i,Q_i} (Miller loop, no final exponentiation). Pairs with an identity
 *  point contribute 1. */
void pairing_miller_loop(fp12_t *out, const g1_aff_t *p, const g2_aff_t *q, size_t n);
/** out = f^(3 (p^12 - 1) / r), the final exponentiation of @noble/curves (its hard part,
 *  after Hayashida-Hayasaka-Teruya, yields the cube of f^((p^12 - 1) / r)). Cubing is a
 *  bijection on GT (3 does not divide r), so pairing equations are unaffected; pairing()
 *  outputs equal noble's bls12_381.pairing byte for byte. */
void pairing_final_exp(fp12_t *out, const fp12_t *f);
/** out = e(p, q). */
void pairing(fp12_t *out, const g1_aff_t *p, const g2_aff_t *q);
/** True iff prod_{i<n} e(P_i, Q_i) == 1 (one multi-Miller loop and one final exponentiation). */
bool pairing_product_is_one(const g1_aff_t *p, const g2_aff_t *q, size_t n);

#endif /* CUZK_CURVE_PAIRING_H */
