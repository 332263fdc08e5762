/* fp.h - the BLS12-381 base field Fp, p = 0x1a0111ea...ffffaaab (381 bits).
 * Representation: fp_t holds 6 x 64-bit little-endian limbs in Montgomery form (x * 2^384 mod p),
 * always fully reduced (< p). Wire form: 48 bytes canonical big-endian (spec groth16.md 2.2).
 * Memory: never allocates. Threads: reentrant. Timing: variable-time (the prover handles no
 * secrets in Fp except through curve code that documents its own timing).
 * Outputs may alias inputs.
 */
#ifndef CUZK_FIELD_FP_H
#define CUZK_FIELD_FP_H

#include "common/common.h"

#define FP_NLIMBS 6
#define FP_NBYTES 48

typedef struct fp {
    uint64_t l[FP_NLIMBS];
} fp_t;
_Static_assert(sizeof(fp_t) == 48, "fp_t layout");

extern const fp_t FP_ZERO;
extern const fp_t FP_ONE; /* R mod p */

void fp_add(fp_t *out, const fp_t *a, const fp_t *b);
void fp_sub(fp_t *out, const fp_t *a, const fp_t *b);
void fp_neg(fp_t *out, const fp_t *a);
void fp_dbl(fp_t *out, const fp_t *a);
/** out = a / 2. */
void fp_half(fp_t *out, const fp_t *a);
void fp_mul(fp_t *out, const fp_t *a, const fp_t *b);
void fp_sqr(fp_t *out, const fp_t *a);
/** out = a^-1; out = 0 for a = 0. */
void fp_inv(fp_t *out, const fp_t *a);
/** out = a^e, e given as `n` 64-bit little-endian limbs. */
void fp_pow(fp_t *out, const fp_t *a, const uint64_t *e, size_t n);
/** out = a square root of a; false (out unspecified) if a is not a square. */
bool fp_sqrt(fp_t *out, const fp_t *a);
bool fp_is_square(const fp_t *a);
bool fp_is_zero(const fp_t *a);
bool fp_is_one(const fp_t *a);
bool fp_eq(const fp_t *a, const fp_t *b);
/** True iff the canonical value of a exceeds (p-1)/2 (the "sign" of compressed encodings). */
bool fp_is_lexicographically_largest(const fp_t *a);

/** Canonical little-endian limbs <-> Montgomery. fp_from_limbs returns false if v >= p. */
bool fp_from_limbs(fp_t *out, const uint64_t v[FP_NLIMBS]);
void fp_to_limbs(uint64_t v[FP_NLIMBS], const fp_t *a);
void fp_from_u64(fp_t *out, uint64_t v);

/** 48 bytes canonical big-endian. CUZK_E_FORMAT if the value is >= p. No flag masking here:
 *  curve decoders strip their flag bits first. */
CZ_MUST_USE cuzk_err fp_from_bytes(fp_t *out, const uint8_t in[FP_NBYTES]);
void fp_to_bytes(uint8_t out[FP_NBYTES], const fp_t *a);

/** Name of the multiplication kernel chosen at run time ("adx" or "portable"). */
const char *fp_impl_name(void);

#endif /* CUZK_FIELD_FP_H */
