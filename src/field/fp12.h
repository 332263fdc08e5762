/* fp12.h - the pairing tower: Fp6 = Fp2[v]/(v^3 - (1 + u)), Fp12 = Fp6[w]/(w^2 - v).
 * Element layouts follow blst (c0, c1[, c2]). Used only by the pairing (verification).
 * Memory: never allocates. Timing: variable-time. Outputs may alias inputs.
 */
#ifndef CUZK_FIELD_FP12_H
#define CUZK_FIELD_FP12_H

#include "field/fp2.h"

typedef struct fp6 {
    fp2_t c0, c1, c2;
} fp6_t;

typedef struct fp12 {
    fp6_t c0, c1;
} fp12_t;

extern const fp6_t FP6_ZERO;
extern const fp6_t FP6_ONE;
extern const fp12_t FP12_ONE;

void fp6_add(fp6_t *out, const fp6_t *a, const fp6_t *b);
void fp6_sub(fp6_t *out, const fp6_t *a, const fp6_t *b);
void fp6_neg(fp6_t *out, const fp6_t *a);
void fp6_mul(fp6_t *out, const fp6_t *a, const fp6_t *b);
void fp6_sqr(fp6_t *out, const fp6_t *a);
/** out = a * v. */
void fp6_mul_by_nonresidue(fp6_t *out, const fp6_t *a);
void fp6_inv(fp6_t *out, const fp6_t *a);
/** out = a * b for b in Fp2 (each coefficient scaled). */
void fp6_mul_by_fp2(fp6_t *out, const fp6_t *a, const fp2_t *b);
/** out = a * (b0 + b1 v) (sparse: no v^2 term). */
void fp6_mul_by_01(fp6_t *out, const fp6_t *a, const fp2_t *b0, const fp2_t *b1);
/** out = a * (b1 v). */
void fp6_mul_by_1(fp6_t *out, const fp6_t *a, const fp2_t *b1);
bool fp6_is_zero(const fp6_t *a);
bool fp6_eq(const fp6_t *a, const fp6_t *b);

void fp12_add(fp12_t *out, const fp12_t *a, const fp12_t *b);
void fp12_sub(fp12_t *out, const fp12_t *a, const fp12_t *b);
void fp12_mul(fp12_t *out, const fp12_t *a, const fp12_t *b);
/** out = a * b for the sparse b = (b0 + b1 v) + (b4 v) w, i.e. b0 at w^0, b1 at w^2, b4 at w^3
 *  (the shape of a line evaluation of the M-type twist; the "014" of zkcrypto's
 *  mul_by_014 in its coefficient numbering c0.c0, c0.c1, c0.c2, c1.c0, c1.c1, c1.c2). */
void fp12_mul_by_014(fp12_t *out, const fp12_t *a, const fp2_t *b0, const fp2_t *b1,
                     const fp2_t *b4);
void fp12_sqr(fp12_t *out, const fp12_t *a);
/** out = a^2 for a in the cyclotomic subgroup (elements f^((p^6 - 1)(p^2 + 1)), as after the
 *  easy part of the final exponentiation); Granger-Scott, faster than fp12_sqr. The result is
 *  wrong for other a. */
void fp12_cyclotomic_sqr(fp12_t *out, const fp12_t *a);
void fp12_inv(fp12_t *out, const fp12_t *a);
/** out = a^(p^k) for k = 1, 2, 3 (Frobenius); other k are reduced mod 12. */
void fp12_frobenius(fp12_t *out, const fp12_t *a, unsigned k);
/** out = conjugate = a^(p^6) (the inverse on the cyclotomic subgroup). */
void fp12_conj(fp12_t *out, const fp12_t *a);
void fp12_pow(fp12_t *out, const fp12_t *a, const uint64_t *e, size_t n);
bool fp12_is_one(const fp12_t *a);
bool fp12_eq(const fp12_t *a, const fp12_t *b);

/** 576 bytes: the 12 Fp coefficients, canonical big-endian, in the order c0.c0.c0, c0.c0.c1,
 *  c0.c1.c0, ..., c1.c2.c1 (memory order); used by tests to compare with @noble/curves. */
void fp12_to_bytes(uint8_t out[576], const fp12_t *a);

#endif /* CUZK_FIELD_FP12_H */
