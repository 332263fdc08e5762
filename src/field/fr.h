/* fr.h - the BLS12-381 scalar field Fr, r = 0x73eda753...00000001 (255 bits), S = 32.
 * Representation: fr_t holds 4 x 64-bit little-endian limbs in Montgomery form (x * 2^256 mod r),
 * fully reduced. fr_repr_t holds the canonical integer in 4 little-endian limbs (what MSM digits
 * and files use). Wire form: 32 bytes canonical little-endian (spec groth16.md 2.1).
 * Memory: never allocates (batch inversion takes caller scratch). Threads: reentrant.
 * Timing: variable-time. Outputs may alias inputs.
 */
#ifndef CUZK_FIELD_FR_H
#define CUZK_FIELD_FR_H

#include "common/common.h"

#define FR_NLIMBS      4
#define FR_NBYTES      32
#define FR_TWO_ADICITY 32

typedef struct fr {
    uint64_t l[FR_NLIMBS];
} fr_t;

typedef struct fr_repr {
    uint64_t l[FR_NLIMBS];
} fr_repr_t;
_Static_assert(sizeof(fr_t) == 32 && sizeof(fr_repr_t) == 32, "fr layout");

extern const fr_t FR_ZERO;
extern const fr_t FR_ONE; /* R mod r */

void fr_add(fr_t *out, const fr_t *a, const fr_t *b);
void fr_sub(fr_t *out, const fr_t *a, const fr_t *b);
void fr_neg(fr_t *out, const fr_t *a);
void fr_dbl(fr_t *out, const fr_t *a);
void fr_mul(fr_t *out, const fr_t *a, const fr_t *b);
void fr_sqr(fr_t *out, const fr_t *a);
/** out = a^-1; out = 0 for a = 0. */
void fr_inv(fr_t *out, const fr_t *a);
/** out = a^e, e given as `n` 64-bit little-endian limbs. */
void fr_pow(fr_t *out, const fr_t *a, const uint64_t *e, size_t n);
void fr_pow_u64(fr_t *out, const fr_t *a, uint64_t e);
/** Square root (Tonelli-Shanks); false if a is not a square. */
bool fr_sqrt(fr_t *out, const fr_t *a);
bool fr_is_zero(const fr_t *a);
bool fr_is_one(const fr_t *a);
bool fr_eq(const fr_t *a, const fr_t *b);

/** out[i] = in[i]^-1 for all i (zeros map to zero); Montgomery's trick, one inversion.
 *  `scratch` holds n fr_t (borrowed); out may alias in. */
void fr_batch_inv(fr_t *out, const fr_t *in, size_t n, fr_t *scratch);

void fr_from_u64(fr_t *out, uint64_t v);
/** Canonical -> Montgomery; false if repr >= r. */
bool fr_from_repr(fr_t *out, const fr_repr_t *repr);
void fr_to_repr(fr_repr_t *out, const fr_t *a);
/** Reduces an arbitrary 256-bit little-endian integer mod r (for hashing to the field). */
void fr_from_u256_reduce(fr_t *out, const uint64_t v[4]);

/** 32 bytes canonical little-endian. CUZK_E_FORMAT if the value is >= r. */
CZ_MUST_USE cuzk_err fr_from_bytes(fr_t *out, const uint8_t in[FR_NBYTES]);
void fr_to_bytes(uint8_t out[FR_NBYTES], const fr_t *a);
/** Canonical repr <-> 32 LE bytes (no range check on write; read rejects >= r). */
void fr_repr_to_bytes(uint8_t out[FR_NBYTES], const fr_repr_t *r);

/** Name of the multiplication kernel chosen at run time ("adx" or "portable"). */
const char *fr_impl_name(void);

#endif /* CUZK_FIELD_FR_H */
