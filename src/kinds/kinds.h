/* kinds.h - the Filecoin proof kinds: their handlers for the engine (eng_kind_ops: PoRep C2,
 * WinningPoSt, WindowPoSt, SnapDeals; spec vanilla-proofs.md 1-5), and a handler driven
 * directly, outside the pipeline.
 *
 * Registration: eng_register_builtin_kinds installs every handler of this build in an engine
 * (cuzkd, the library, tests); the engine itself knows no kind.
 *
 * Offline: the request is parsed into a plan by the same handler cuzkd would use; its vanilla
 * proofs can be verified natively, each partition synthesized into any constraint system the
 * caller makes (prover, counter, checker backends) or checked with the circuit, and its public
 * inputs derived. `cuzk-bench synth` measures synthesis this way, with exactly the daemon's
 * parsing and circuits but no parameters, scheduling or proving; `cuzk-bench check-vanilla`
 * checks vanilla proofs, and `cuzk_verify` and `cuzk-bench single --vk` verify proofs.
 *
 * Memory: the plan's state (decoded vanilla proofs) lives until eng_offline_free; the request
 * is borrowed during eng_offline_new only. Threads: one eng_offline_t per thread; the
 * handlers themselves are reentrant.
 */
#ifndef CUZK_KINDS_KINDS_H
#define CUZK_KINDS_KINDS_H

#include "engine/engine.h"

/* ---------------------------------------------------------------------------------------------
 * The handlers
 * ------------------------------------------------------------------------------------------- */

/** Registers the handlers of this build (kinds.c): one line per kind. Errors: those of
 *  eng_register_kind. */
CZ_MUST_USE cuzk_err eng_register_builtin_kinds(eng_t *eng, cz_diag *dg);

/** The handlers themselves, for tests that drive them without an engine (ctx NULL). */
extern const eng_kind_ops eng_porep_ops;
extern const eng_kind_ops eng_winning_post_ops;
extern const eng_kind_ops eng_window_post_ops;
extern const eng_kind_ops eng_snap_ops;

/* ---------------------------------------------------------------------------------------------
 * Offline
 * ------------------------------------------------------------------------------------------- */

typedef struct eng_offline eng_offline_t;

/** Checks the request (eng_request_check) and runs its kind's parse, then, when `verify`, its
 *  verify_vanilla on every partition, as the daemon does before any synthesis.
 *  Out: out          returns owned (eng_offline_free); NULL on error.
 *       fault_entry  (may be NULL) on an error caused by one vanilla proof, 1 + its index
 *                    among the request's vanilla proofs (eng_plan_t.fault_entry); else 0.
 *  In:  req          the request (borrowed during the call).
 *       pool         the pool verification and each partition's synthesis spread over, as the
 *                    daemon's workers do (plan->pool; retained until eng_offline_free), or
 *                    NULL: the calling thread alone.
 *  Errors: CUZK_E_INVAL (protocol, or no handler for the kind in this build), the handler's
 *  CUZK_E_FORMAT / CUZK_E_INVAL with its message, CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_offline_new(eng_offline_t **out, size_t *fault_entry,
                                     const eng_request_t *req, cz_pool *pool, bool verify,
                                     cz_diag *dg);

/** The plan the handler made: circuit id, partitions, memory estimate, shape hint. */
const eng_plan_t *eng_offline_plan(const eng_offline_t *o);

/** The handler's native verification of the vanilla proofs of partitions [k0, k1)
 *  (k0 <= k1 <= num_partitions, CZ_CHECKed); CUZK_OK when the kind verifies none. Out:
 *  fault_entry (may be NULL) as for eng_offline_new. Errors: the handler's. */
CZ_MUST_USE cuzk_err eng_offline_verify_vanilla(eng_offline_t *o, size_t *fault_entry, size_t k0,
                                                size_t k1, cz_diag *dg);

/** What eng_offline_check found in a partition. */
typedef enum eng_check_status {
    ENG_CHECK_OK = 0,       /* every constraint holds; every public input is the verifier's */
    ENG_CHECK_UNSAT,        /* a constraint does not hold */
    ENG_CHECK_INPUT_DIFFERS /* the circuit allocates another public input than the verifier's */
} eng_check_status;

typedef struct eng_check {
    eng_check_status status;
    cs_counts_t counts;     /* of the partition's circuit (num_inputs counts ONE) */
    size_t constraint;      /* UNSAT: the first unsatisfied constraint's index */
    char path[1024];        /* UNSAT: its label path ("ns1/ns2/label"; "" when unnamed) */
    size_t input;           /* INPUT_DIFFERS: the first differing input (ONE excluded) */
    fr_t circuit, verifier; /* INPUT_DIFFERS: its value in the circuit, the verifier's */
} eng_check_t;

/** Synthesizes partition k (< num_partitions, CZ_CHECKed) with the checker backend from the
 *  witness the handler builds, and compares the public inputs the circuit allocates with
 *  those the handler's public_inputs derives as the chain's verifier does.
 *  Out: out  the finding (status OK, UNSAT or INPUT_DIFFERS) and the circuit's counts.
 *  Errors (a finding is not an error): the handler's synthesis errors with "synthesis: "
 *  before their message, public_inputs' with "public inputs: ", CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_offline_check(eng_offline_t *o, eng_check_t *out, size_t k, cz_diag *dg);

/** Synthesizes partition k (< num_partitions, CZ_CHECKed) into cs, a fresh constraint system
 *  of any backend; the caller finishes and frees it. Errors: the handler's. */
CZ_MUST_USE cuzk_err eng_offline_synthesize(eng_offline_t *o, size_t k, cs_t *cs, cz_diag *dg);

/** Writes partition k's n public inputs (ONE excluded) as the chain's verifier computes them,
 *  from the request and not from a witness (the handler's public_inputs).
 *  Errors: CUZK_E_INVAL (the kind computes none, or n is not its count), the handler's. */
CZ_MUST_USE cuzk_err eng_offline_public_inputs(eng_offline_t *o, size_t k, fr_t *out, size_t n,
                                               cz_diag *dg);

/** Writes into name (cap bytes) the parameter file name of the plan's circuit, relative to the
 *  parameter cache (".params"); false when the handler does not know it or it does not fit. */
bool eng_offline_srs_file(const eng_offline_t *o, char *name, size_t cap);

/** Releases the plan; NULL does nothing. */
void eng_offline_free(eng_offline_t *o);

#endif /* CUZK_KINDS_KINDS_H */
