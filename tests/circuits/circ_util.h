/* circ_util.h - helpers shared by the circuit tests: counting, checking and digesting a
 * synthesis function, and native Merkle trees (Poseidon of any shape, binary SHA-256) that
 * produce honest vanilla paths for small test sectors.
 */
#ifndef CUZK_TESTS_CIRCUITS_CIRC_UTIL_H
#define CUZK_TESTS_CIRCUITS_CIRC_UTIL_H

#include "harness/test.h"
#include "circuits/circuits.h"
#include "r1cs/r1cs.h"

typedef void (*cu_synth_fn)(cs_t *cs, void *ctx);

/** Counts from the counter backend (inputs incl. ONE, aux, own constraints). */
void cu_counts(cs_counts_t *out, cu_synth_fn fn, void *ctx);
/** Checker: CUZK_OK when satisfied, CUZK_E_UNSAT otherwise (path of the first failure in
 *  `path` when non-NULL, a static buffer). */
cuzk_err cu_check(cu_synth_fn fn, void *ctx, const char **path);
/** Witness backend: the public inputs the circuit allocated (ONE dropped) into a cz_malloc'ed
 *  array; *n their number. */
fr_t *cu_inputs(cu_synth_fn fn, void *ctx, size_t *n);
/** bellpepper shape digest (streamed, with the counter's counts as expectation). */
void cu_digest_hex(char out[65], cu_synth_fn fn, void *ctx);
/** Two syntheses give the same circuit: the prover's assignments (a, b, c, inputs, aux and the
 *  densities) and the counter's counts are identical between fn1(ctx1) and fn2(ctx2). */
void cu_check_same(cu_synth_fn fn1, void *ctx1, cu_synth_fn fn2, void *ctx2);

/** A random field element / one below 2^254 (a SHA-256-trimmed node). */
void cu_rand_fr(fr_t *out, cz_prng *g);
void cu_rand_fr254(fr_t *out, cz_prng *g);

/** A complete native Merkle tree over `leaves` leaves of a shape (Poseidon, MerkleTree tags)
 *  or binary SHA-256 (trimmed), with every level kept. */
typedef struct cu_tree {
    gad_tree_shape_t shape;
    bool sha;
    size_t levels;
    fr_t *rows[72]; /* rows[0] = leaves, rows[levels] = { root } */
    size_t len[72];
} cu_tree_t;

/** Builds the tree over `leaves` (copied). sha: binary SHA-256 tree (shape must be binary). */
void cu_tree_build(cu_tree_t *t, const gad_tree_shape_t *shape, bool sha, const fr_t *leaves);
void cu_tree_free(cu_tree_t *t);
const fr_t *cu_tree_root(const cu_tree_t *t);
/** The vanilla path of leaf i: siblings (gad_tree_shape_siblings entries) and level indices. */
void cu_tree_path(const cu_tree_t *t, uint64_t i, fr_t *siblings, uint32_t *index);

/** SHA-256 trimmed of the 64-byte concatenation of two LE field elements (a TreeD node). */
void cu_sha_node(fr_t *out, const fr_t *a, const fr_t *b);

#endif /* CUZK_TESTS_CIRCUITS_CIRC_UTIL_H */
