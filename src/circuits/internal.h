/* internal.h - what the circuit sources share (and the tests reach for the SnapDeals
 * sub-gadgets the reference pins separately). Not a public header.
 */
#ifndef CUZK_CIRCUITS_INTERNAL_H
#define CUZK_CIRCUITS_INTERNAL_H

#include "circuits/circuits.h"

/* Namespaces cost a formatted string only in the checker (lab = cs_wants_labels(cs)). */
#define CIRC_NS_PUSH(cs, lab, name)                                                                \
    do {                                                                                           \
        if (lab) {                                                                                 \
            cs_push_ns((cs), name);                                                                \
        }                                                                                          \
    } while (0)
#define CIRC_NS_PUSHF(cs, lab, ...)                                                                \
    do {                                                                                           \
        if (lab) {                                                                                 \
            cs_push_nsf((cs), __VA_ARGS__);                                                        \
        }                                                                                          \
    } while (0)
#define CIRC_NS_POP(cs, lab)                                                                       \
    do {                                                                                           \
        if (lab) {                                                                                 \
            cs_pop_ns(cs);                                                                         \
        }                                                                                          \
    } while (0)

/* All-zero witness storage for blank circuits: long enough for any path, column or apex row
 * (the longest path has 31 binary or 10 * 7 + 7 + 1 Poseidon siblings; 128 apex leaves). */
#define CIRC_ZERO_LEN 128
extern const fr_t CIRC_ZERO_FR[CIRC_ZERO_LEN];
extern const uint32_t CIRC_ZERO_U32[CIRC_ZERO_LEN];

/* The longest path a configuration may have (siblings and levels). */
#define CIRC_MAX_SIBLINGS CIRC_ZERO_LEN
#define CIRC_MAX_LEVELS   64

/* A path with every sibling and index zero. */
static inline circ_path_t circ_zero_path(void)
{
    circ_path_t p = {CIRC_ZERO_FR, CIRC_ZERO_U32};
    return p;
}

/* PoRCircuit::synthesize with leaf and root both Root::Var, private root. */
void circ_por_var(cs_t *cs, gad_hasher h, const gad_tree_shape_t *shape, const gad_num_t *leaf,
                  const circ_path_t *path, const gad_num_t *root);

/* True when a path fits a shape (non-NULL storage, positions below their arities); otherwise
 * records a sticky CUZK_E_INVAL on cs naming `what` and returns false. */
bool circ_check_path(cs_t *cs, const gad_tree_shape_t *shape, const circ_path_t *path,
                     const char *what, size_t i);

/* enforce( sum_i 2^i bits[i] | ONE | x ): the "binary decomp" constraint of the SnapDeals
 * circuits (A holds the sum, unlike AllocatedNum::to_bits_le). */
void circ_enforce_decomp(cs_t *cs, const gad_bool_t *bits, size_t n, cs_var_t x, const char *label);

/* SnapDeals gadgets (storage-proofs-update gadgets.rs), exposed for their own count tests.
 * apex_por: the apex tree over n = 2^k apex leaves (SHA-256 hash2 per pair), then the
 * partition path (pbits binary levels, given bits and allocated siblings) up to comm_d. */
void circ_update_apex_por(cs_t *cs, const gad_num_t *apex_leaves, size_t n,
                          const gad_bool_t *partition_bits, size_t pbits,
                          const gad_num_t *partition_path, const gad_num_t *comm_d);
/* gen_challenge_bits: `challenges` chunks of `bits_per_challenge` allocated bits, written to
 * out[c * bits_per_challenge ..]; digests Poseidon_gen(comm_r_new, partition * digests + j). */
void circ_update_gen_challenge_bits(cs_t *cs, gad_bool_t *out, const gad_num_t *comm_r_new,
                                    const gad_num_t *partition, size_t challenges,
                                    size_t bits_per_challenge);
/* The number of digests gen_challenge_bits uses: ceil(challenges / floor(254 / bits)). */
size_t circ_update_digests(size_t challenges, size_t bits_per_challenge);

/* Parallel synthesis (fork.c): n cs_fork children of cs (sizes: their exact counts, so that
 * value-keeping children write in place, or NULL), child k synthesized by fn(child, k, ctx) on
 * the pool, joined in order: exactly the sequential circuit. A failure becomes cs's sticky
 * error, its message starting with `what`. */
typedef void (*circ_child_fn)(cs_t *child, size_t k, void *ctx);
void circ_fork_join(cs_t *cs, size_t n, const cs_counts_t *sizes, circ_child_fn fn, void *ctx,
                    cz_pool *pool, const char *what);

#endif /* CUZK_CIRCUITS_INTERNAL_H */
