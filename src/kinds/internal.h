/* internal.h - what the Filecoin proof-kind handlers (porep.c, post.c, snap.c) share
 * (common.c). Private to src/kinds/.
 *
 * Each handler turns a cuzk.v1 request (spec vanilla-proofs.md 1-5) into a plan:
 *   parse          decodes the vanilla proofs (proofs/) and checks them against the request
 *                  (sizes, registered proof, counts);
 *   verify_vanilla verifies them natively, so that a proof that cannot satisfy its circuit
 *                  fails with a message that names the partition, challenge and field, before
 *                  any synthesis;
 *   synthesize     converts partition k into a circuit witness (circuits/ vanilla adapters) and
 *                  synthesizes the production circuit into the engine's prover cs;
 *   public_inputs  partition k's inputs as the chain's verifier derives them (challenges from
 *                  randomness / seed, parents from the graph), never from the witness;
 *   srs_file       the official parameter file name (circuits/ circ_param_file_name).
 *
 * Circuit ids name the SRS slot: "<prefix>-<size>" with prefix porep, winning, wpost, snap and
 * the sector size in lower-case k/m/g ("porep-2k", "wpost-32g", "snap-512m"); the same id for
 * every registered proof of that circuit (V1, V1_1, synthetic use the same parameters).
 *
 * Memory: a plan's state owns the decoded vanilla proofs (request bytes are released after
 * parse). Threads: every function is reentrant; the counts memo below is process-wide, guarded
 * by its own mutex and never held across synthesis.
 */
#ifndef CUZK_KINDS_INTERNAL_H
#define CUZK_KINDS_INTERNAL_H

#include "kinds/kinds.h"

#include "circuits/circuits.h"

/** The handler of `kind` in this build (kinds.c), or NULL. */
const eng_kind_ops *eng_builtin_kind_ops(eng_kind kind);

/** "porep", "winning", "wpost", "snap" (NULL for the Poseidon SnapDeals variant, which the API
 *  never proves). */
const char *eng_fil_prefix(circ_kind kind);

/** Writes the circuit id of (kind, sector size) into out; false when it does not fit. */
bool eng_fil_circuit_id(char out[ENG_CIRCUIT_ID_MAX], circ_kind kind, uint64_t sector_bytes);

/** Parses a circuit id of `kind` ("porep-32g"); false when it is not one, or names a size
 *  without such a circuit. */
bool eng_fil_parse_circuit_id(const char *id, circ_kind kind, uint64_t *sector_bytes);

/** The srs_file of every Filecoin kind: `circuit_id` of `kind` -> its official .params name. */
bool eng_fil_srs_file(circ_kind kind, const char *circuit_id, char *name, size_t cap);

/** Fills plan->circuit_id, plan->shape (the counts of the production circuit, counted once per
 *  process and remembered) and plan->partition_mem_bytes (the prover assignment plus the
 *  prover's work space of one partition). Errors: CUZK_E_INVAL for an unsupported (kind,
 *  size), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_fil_plan_circuit(eng_plan_t *plan, circ_kind kind, uint64_t sector_bytes,
                                          cz_diag *dg);

/** A 32-byte field of the request, or 32 zero bytes when absent (the engine already checked
 *  that present fields are 32 bytes long). */
void eng_fil_copy32(uint8_t out[32], const eng_bytes_t *b);

/** "2KiB", "32GiB" for messages. */
const char *eng_fil_size_name(uint64_t sector_bytes);

#endif /* CUZK_KINDS_INTERNAL_H */
