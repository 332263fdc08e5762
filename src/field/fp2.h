/* fp2.h - Fp2 = Fp[u]/(u^2 + 1); element c0 + c1*u (memory order c0, c1; the wire puts c1
 * first, see curve/). Memory: never allocates. Timing: variable-time. Outputs may alias inputs.
 */
#ifndef CUZK_FIELD_FP2_H
#define CUZK_FIELD_FP2_H

#include "field/fp.h"

typedef struct fp2 {
    fp_t c0, c1;
} fp2_t;

extern const fp2_t FP2_ZERO;
extern const fp2_t FP2_ONE;

void fp2_add(fp2_t *out, const fp2_t *a, const fp2_t *b);
void fp2_sub(fp2_t *out, const fp2_t *a, const fp2_t *b);
void fp2_neg(fp2_t *out, const fp2_t *a);
void fp2_dbl(fp2_t *out, const fp2_t *a);
void fp2_mul(fp2_t *out, const fp2_t *a, const fp2_t *b);
void fp2_sqr(fp2_t *out, const fp2_t *a);
/** out = a * fp scalar. */
void fp2_mul_fp(fp2_t *out, const fp2_t *a, const fp_t *b);
/** out = a * (1 + u), the non-residue of the Fp6 tower. */
void fp2_mul_by_nonresidue(fp2_t *out, const fp2_t *a);
/** out = conjugate (c0 - c1*u) = a^p. */
void fp2_conj(fp2_t *out, const fp2_t *a);
/** out = a^-1; 0 for 0. */
void fp2_inv(fp2_t *out, const fp2_t *a);
void fp2_pow(fp2_t *out, const fp2_t *a, const uint64_t *e, size_t n);
/** Square root; false if a is not a square. */
bool fp2_sqrt(fp2_t *out, const fp2_t *a);
bool fp2_is_zero(const fp2_t *a);
bool fp2_eq(const fp2_t *a, const fp2_t *b);
/** The sign used by compressed G2 encodings: sign(c1) if c1 != 0, else sign(c0). */
bool fp2_is_lexicographically_largest(const fp2_t *a);

#endif /* CUZK_FIELD_FP2_H */
