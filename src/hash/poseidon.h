/* poseidon.h - Poseidon over Fr of BLS12-381 with Filecoin's parameters (neptune 11.0.0,
 * spec circuits.md section 3): S-box x^5, width t = arity + 1, R_F = 8 full rounds, R_P partial
 * rounds per arity, round constants from the Grain LFSR, the Cauchy MDS matrix
 * M[i][j] = 1/(i + t + j), and neptune's preprocessed ("optimized static") constants, which the
 * native hash uses and the circuit gadget must reproduce exactly.
 *
 * Matrix convention (neptune's): matrices are row-major, X[i][j] at X[i * t + j], and "the state
 * times X" means new[j] = sum_i X[i][j] * old[i]. The state is [tag, m_1 .. m_arity]; the hash
 * output is state element 1 after the permutation.
 *
 * Memory: hashing never allocates (the state lives on the stack, at most 37 fr_t). Parameters
 * live in caller storage (poseidon_params_init) or, for the standard Filecoin arities, in static
 * tables that poseidon_params() builds once on first use (pthread_once; later calls only read).
 * Threads: reentrant; parameter objects are read-only after init. Timing: variable-time.
 */
#ifndef CUZK_HASH_POSEIDON_H
#define CUZK_HASH_POSEIDON_H

#include "common/common.h"
#include "field/fr.h"

#define POSEIDON_MAX_ARITY        36
#define POSEIDON_MAX_WIDTH        (POSEIDON_MAX_ARITY + 1)
#define POSEIDON_FULL_ROUNDS      8 /* R_F for every supported arity */
#define POSEIDON_HALF_FULL_ROUNDS 4

/** fr_t elements of storage poseidon_params_init needs for width t and r_p partial rounds:
 *  the tables (rc, mds, mds_inv, crc, pre_sparse, sparse) plus 3 t^2 of scratch used during
 *  init. A constant expression, for static buffers. */
#define POSEIDON_PARAMS_STORAGE_LEN(t, r_p)                                                        \
    ((2 * POSEIDON_FULL_ROUNDS + 3 * (r_p)) * (t) + 6 * (t) * (t))

/** neptune's Strength: Standard is what Filecoin uses; Strengthened has ceil(1.25 R_P) partial
 *  rounds (and its own round constants, since R_P seeds the Grain LFSR). */
typedef enum poseidon_strength {
    POSEIDON_STANDARD = 0,
    POSEIDON_STRENGTHENED = 1,
} poseidon_strength;

/** The constants of one (arity, strength) instance. All tables are Montgomery-form fr_t.
 *  `sparse` holds R_P matrices of 2t - 1 elements each, sparse[k] used in partial round k:
 *  elements [0, t) are the dense first column (w_hat, starting with X[0][0]) and [t, 2t - 1)
 *  the rest of the first row (v_rest). The state times a sparse matrix S is
 *  new[0] = sum_i S.col[i] * old[i];  new[j] = old[j] + S.v_rest[j - 1] * old[0] (j >= 1). */
typedef struct poseidon_params {
    uint32_t arity;
    uint32_t width;          /* t = arity + 1 */
    uint32_t full_rounds;    /* R_F = 8 */
    uint32_t partial_rounds; /* R_P */
    poseidon_strength strength;
    fr_t merkle_tag;        /* 2^arity - 1, the MerkleTree domain tag */
    const fr_t *rc;         /* (R_F + R_P) * t textbook round constants; round r at rc + r*t */
    const fr_t *mds;        /* t * t, M */
    const fr_t *mds_inv;    /* t * t, M^-1 */
    const fr_t *crc;        /* R_F * t + R_P compressed round constants */
    const fr_t *pre_sparse; /* t * t, used after the last first-half full round */
    const fr_t *sparse;     /* R_P * (2t - 1), see above */
} poseidon_params_t;

/** True for the arities Filecoin's neptune build provides: 2, 4, 8, 11, 16, 24, 36. */
bool poseidon_arity_is_supported(size_t arity);

/** R_P for a supported arity (spec table 3.1; Strengthened: ceil(1.25 R_P)). */
uint32_t poseidon_partial_rounds(size_t arity, poseidon_strength strength);

/** Standard-strength constants for a supported arity (CZ_CHECKed), built on first use and
 *  shared for the life of the process. Never NULL. Thread-safe. */
const poseidon_params_t *poseidon_params(size_t arity);

/** fr_t elements of storage that poseidon_params_init needs. */
size_t poseidon_params_storage_len(size_t arity, poseidon_strength strength);

/** Derives all constants for (arity, strength) into caller storage.
 *  Out: p        the parameters; retains `storage` (keep it alive while p is used).
 *  In:  storage  storage_cap >= poseidon_params_storage_len(arity, strength) elements. */
void poseidon_params_init(poseidon_params_t *p, size_t arity, poseidon_strength strength,
                          fr_t *storage, size_t storage_cap);

/** Domain tags (neptune hash_type.rs). MerkleTree: 2^arity - 1 (arity <= 63). */
void poseidon_tag_merkle(fr_t *out, size_t arity);
/** ConstantLength(len): len * 2^64. */
void poseidon_tag_constant_length(fr_t *out, uint64_t len);
/** Custom(Arbitrary(id)): id * 2^40, 1 <= id <= 256 (CZ_CHECKed). SnapDeals uses id = 1. */
void poseidon_tag_custom(fr_t *out, uint64_t id);

/** out = Poseidon(merkle_tag, in[0..arity)): Filecoin's tree, column and comm_r hash.
 *  `arity` must equal p->arity (CZ_CHECKed). out may alias in. */
void poseidon_hash(fr_t *out, const fr_t *in, size_t arity, const poseidon_params_t *p);

/** out = element 1 of the permutation of [tag, in[0..n), 0 ...]: any domain tag, n <= arity
 *  inputs, the rest zero (neptune's ConstantLength / Custom hashing). out may alias in. */
void poseidon_hash_tagged(fr_t *out, const fr_t *tag, const fr_t *in, size_t n,
                          const poseidon_params_t *p);

/** The permutation through neptune's optimized static path (Poseidon::hash_optimized_static,
 *  spec 3.6), state[0..width) in place; equal to poseidon_permute_ref on the whole state.
 *  The schedule, which the circuit gadget follows too (off = offset into crc):
 *    state += crc[0..t); off = t
 *    rounds 0..3 (full):   state[i] = state[i]^5 + crc[off + i]; off += t;
 *                          times M for rounds 0..2, times pre_sparse for round 3
 *    partial k = 0..R_P-1: state[0] = state[0]^5 + crc[off]; off += 1; times sparse[k]
 *    3 full rounds:        state[i] = state[i]^5 + crc[off + i]; off += t; times M
 *    last full round:      state[i] = state[i]^5; times M */
void poseidon_permute(fr_t *state, const poseidon_params_t *p);

/** Textbook permutation, for tests: per round r add rc[r*t ..], S-box on every element (full
 *  rounds: r < 4 or r >= 4 + R_P) or on element 0 (partial rounds), then multiply by M. */
void poseidon_permute_ref(fr_t *state, const poseidon_params_t *p);

#endif /* CUZK_HASH_POSEIDON_H */
