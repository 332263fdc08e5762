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
#include "common/int128.h"

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

/** A sum of elements without reductions: the integer sum (< 2^320) of the Montgomery
 *  representations added to it, so up to 2^64 elements. Start from {0}; fr_wide_reduce gives
 *  the element. */
typedef struct fr_wide {
    uint64_t l[FR_NLIMBS + 1];
} fr_wide_t;

/** acc += a & mask, limb by limb: mask ~0 adds a, mask 0 adds nothing. The portable form;
 *  fr_wide_add_masked is the same sum (on x86-64 one ADD/ADC chain that keeps acc in
 *  registers, which the 128-bit form does not). */
static inline void fr_wide_add_masked_portable(fr_wide_t *acc, const fr_t *a, uint64_t mask)
{
    uint64_t c = 0;
    for (int i = 0; i < FR_NLIMBS; i++) {
        acc->l[i] = cz_adc(acc->l[i], a->l[i] & mask, c, &c);
    }
    acc->l[FR_NLIMBS] += c;
}

static inline void fr_wide_add_masked(fr_wide_t *acc, const fr_t *a, uint64_t mask)
{
#if defined(__x86_64__) && defined(__GNUC__)
    uint64_t a0 = a->l[0] & mask, a1 = a->l[1] & mask, a2 = a->l[2] & mask, a3 = a->l[3] & mask;
    __asm__("addq %[a0], %[s0]\n\t"
            "adcq %[a1], %[s1]\n\t"
            "adcq %[a2], %[s2]\n\t"
            "adcq %[a3], %[s3]\n\t"
            "adcq $0, %[s4]"
            : [s0] "+r"(acc->l[0]), [s1] "+r"(acc->l[1]), [s2] "+r"(acc->l[2]),
              [s3] "+r"(acc->l[3]), [s4] "+r"(acc->l[4])
            : [a0] "r"(a0), [a1] "r"(a1), [a2] "r"(a2), [a3] "r"(a3)
            : "cc");
#else
    fr_wide_add_masked_portable(acc, a, mask);
#endif
}

/** out = the sum held in acc, reduced mod r. acc goes by value, so that a caller's
 *  accumulator never has its address taken and can stay in registers. */
void fr_wide_reduce(fr_t *out, fr_wide_t acc);

/** Name of the multiplication kernel chosen at run time ("adx" or "portable"). */
const char *fr_impl_name(void);

#endif /* CUZK_FIELD_FR_H */
