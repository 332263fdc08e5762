/* gadget_util.h - what every gadget test does to a synthesis function:
 *   gu_counts       counts (inputs incl. ONE, aux, constraints) from the counter backend;
 *   gu_check_sat    the checker backend accepts the honest witness;
 *   gu_digest_hex   the bellpepper shape digest (digest backend);
 *   gu_soundness    records A, B, C (recorder backend, LC mode), takes the witness from the
 *                   witness backend (no-LC mode, so the two code paths check each other),
 *                   checks <A,w> <B,w> = <C,w> on every row with our own evaluation, then
 *                   changes every auxiliary value and every public input (but ONE) one at a
 *                   time, by a bit flip where the value is 0 or 1 and by a random amount, and
 *                   requires some constraint to fail each time (a value that can change freely
 *                   is unconstrained: a soundness bug).
 * The synthesis function must be deterministic (same circuit, same values on every call).
 */
#ifndef CUZK_TESTS_GADGETS_GADGET_UTIL_H
#define CUZK_TESTS_GADGETS_GADGET_UTIL_H

#include "harness/test.h"
#include "r1cs/r1cs.h"
#include "gadgets/gadgets.h"

typedef void (*gu_synth_fn)(cs_t *cs, void *ctx);

void gu_counts(cs_counts_t *out, gu_synth_fn fn, void *ctx);
void gu_check_sat(gu_synth_fn fn, void *ctx);
/** The checker must REJECT (CUZK_E_UNSAT); returns the first failing path (static buffer). */
const char *gu_check_unsat(gu_synth_fn fn, void *ctx);
void gu_digest_hex(char out[65], gu_synth_fn fn, void *ctx);
/** Returns the number of single-value changes tried (all caught, or the test fails). Aux
 *  variables allocated before the synthesis function calls gu_inputs_done() are the gadget's
 *  own inputs (free witness chosen by the caller) and are not changed. */
size_t gu_soundness(gu_synth_fn fn, void *ctx);
/** Marks the end of the free inputs of the gadget under test (see gu_soundness). */
void gu_inputs_done(cs_t *cs);

/** Counts check: CHECKs inputs (incl. ONE), aux and constraints. */
#define GU_CHECK_COUNTS(fn, ctx, in, aux, cons)                                                    \
    do {                                                                                           \
        cs_counts_t gu_c_;                                                                         \
        gu_counts(&gu_c_, (fn), (ctx));                                                            \
        CHECK_EQ_U64(gu_c_.num_inputs, (in));                                                      \
        CHECK_EQ_U64(gu_c_.num_aux, (aux));                                                        \
        CHECK_EQ_U64(gu_c_.num_constraints, (cons));                                               \
    } while (0)

/** Records the synthesis with the recorder backend (r is owned by the caller: cs_r1cs_clear). */
void gu_record(cs_r1cs_t *r, gu_synth_fn fn, void *ctx);

/** One expected term of a recorded row: input or aux index and its coefficient. */
typedef struct gu_term {
    bool aux;
    uint64_t index;
    fr_t coeff;
} gu_term;

/** Term helpers: small signed coefficients, or any field element. */
gu_term gu_in(uint64_t index, int64_t coeff);
gu_term gu_aux(uint64_t index, int64_t coeff);
gu_term gu_aux_fr(uint64_t index, const fr_t *coeff);
gu_term gu_in_fr(uint64_t index, const fr_t *coeff);
/** CHECKs that row `row` of m holds exactly these terms (any order; zero coefficients absent). */
void gu_check_row(const cs_r1cs_t *r, const cs_matrix_t *m, size_t row, const gu_term *want,
                  size_t n, const char *what);

/** A random field element. */
void gu_rand_fr(fr_t *out, cz_prng *g);
/** Canonical 4-limb integer -> fr (CHECKed < r). */
void gu_fr_from_limbs(fr_t *out, const uint64_t l[4]);

#endif /* CUZK_TESTS_GADGETS_GADGET_UTIL_H */
