/* seal.h - sealing of test sectors exactly as filecoin-proofs does it (spec sealing.md):
 * fr32 padding, TreeD and comm_d, replica_id, the SDR graph (DRG bucket parents + Feistel
 * expander parents), labeling, TreeC, encoding, TreeRLast, comm_r, Merkle inclusion proofs of
 * every tree shape, challenge derivation (PoRep interactive / non-interactive / synthetic,
 * PoSt, SnapDeals), SnapDeals encoding, and a sealed-sector object that is either dense (every
 * label and tree node computed) or synthetic (only chosen columns materialised, every other
 * label zero, trees sparse with precomputed empty-subtree hashes) so that 32 GiB vanilla
 * proofs can be made in seconds.
 *
 * Layering: seal/ depends on hash/, field/ and common/ only. proofs/ (the vanilla-proof formats
 * and the generators that fill them) sits above seal/ and uses its graph, trees and challenges.
 *
 * Conventions: a node is 32 bytes, the canonical little-endian encoding of an Fr element
 * (SHA-256 outputs are trimmed: byte 31 &= 0x3f). Node indices are uint64_t; parent indices are
 * uint32_t (every supported sector has at most 2^31 nodes).
 * Memory: functions returning cuzk_err may allocate (cz_malloc / cz_buf); the others never do.
 * Threads: everything is reentrant; objects are read-only after construction and may be shared
 * between threads. Parallelism arrives as a cz_pool * (NULL runs on the caller).
 * Timing: variable-time; nothing here is secret.
 */
#ifndef CUZK_SEAL_SEAL_H
#define CUZK_SEAL_SEAL_H

#include "common/common.h"
#include "common/alloc.h"
#include "common/pool.h"
#include "field/fr.h"

#define SEAL_NODE_BYTES     32
#define SEAL_DRG_DEGREE     6  /* BASE_DEGREE */
#define SEAL_EXP_DEGREE     8  /* EXP_DEGREE */
#define SEAL_PARENTS        14 /* DRG + expander parents per node */
#define SEAL_LABEL_PARENTS  37 /* parent labels hashed into one label */
#define SEAL_MAX_LAYERS     11
#define SEAL_MAX_PATH       32 /* Merkle path elements: TreeD of 2^31 leaves has 31 */
#define SEAL_MAX_SIBLINGS   72 /* sibling nodes of one proof: 64 GiB TreeR has 9*7 + 7 + 1 */
#define SEAL_MAX_NODES      ((uint64_t)1 << 31)
#define SEAL_NOT_REGISTERED UINT32_MAX /* registered_proof of a test-only configuration */

/** One 32-byte node (a struct so that arrays of nodes convert to const without casts). */
typedef struct seal_node {
    uint8_t b[SEAL_NODE_BYTES];
} seal_node;
_Static_assert(sizeof(seal_node) == 32, "seal_node layout");

/* ============================================================================================
 * Configuration: sector shapes and registered proofs (vanilla-proofs.md sections 1.8, 3.3, 6)
 * ========================================================================================== */

/** rust-fil-proofs ApiVersion. */
typedef enum seal_api { SEAL_API_V1_0 = 0, SEAL_API_V1_1 = 1, SEAL_API_V1_2 = 2 } seal_api;

/** How PoRep challenges are chosen (sealing.md 5.1-5.3). */
typedef enum seal_porep_kind {
    SEAL_POREP_INTERACTIVE = 0, /* from (replica_id, seed) */
    SEAL_POREP_SYNTHETIC = 1,   /* Feat_SyntheticPoRep: from (replica_id, comm_r, seed) */
    SEAL_POREP_NI = 2,          /* Feat_NonInteractivePoRep: from (replica_id, comm_r) */
} seal_porep_kind;

/** Everything that follows from the sector size alone. */
typedef struct seal_shape {
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* sector_size / 32, a power of two */
    uint32_t log2_nodes;
    uint32_t layers;              /* SDR layers: 2, or 11 for 32/64 GiB */
    uint32_t base_arity;          /* TreeC / TreeRLast base arity: always 8 */
    uint32_t sub_arity;           /* 0 (none), 2, 4 or 8 */
    uint32_t top_arity;           /* 0 (none) or 2 */
    uint32_t base_trees;          /* 1, sub_arity, or sub_arity * top_arity */
    uint32_t base_levels;         /* levels of one base tree: log8(nodes / base_trees) */
    uint32_t window_post_sectors; /* WINDOW_POST_SECTOR_COUNT: 2, 2349 (32 GiB), 2300 (64 GiB) */
} seal_shape;

/** One sector size and the constants rust-fil-proofs fixes for it. This is the one sector
 *  table in cuzk: seal shapes and PoRep counts, the circuits' sector table (circ_sector_t), the
 *  SnapDeals TreeR shapes and the registered proofs' sizes are all read from it. Sources:
 *  filecoin-proofs constants.rs (with_shape!, LAYERS, POREP_PARTITIONS,
 *  get_porep_*_minimum_challenges, get_porep_non_interactive_partitions,
 *  WINDOW_POST_SECTOR_COUNT, SUPPORTED_SECTOR_SIZES, PUBLISHED_SECTOR_SIZES) and
 *  storage-proofs-update constants.rs (validate_tree_r_shape: the 1 and 8 KiB test sizes). */
typedef struct seal_size {
    uint64_t bytes;
    const char *name;                          /* "1KiB" ... "64GiB" */
    uint32_t base_arity, sub_arity, top_arity; /* TreeR / TreeC / TreeRLast shape */
    uint32_t porep_layers;                     /* 2 or 11 */
    uint32_t porep_partitions;                 /* interactive and synthetic PoRep */
    uint32_t porep_ni_partitions;              /* non-interactive PoRep */
    uint32_t porep_min_challenges;             /* interactive and synthetic */
    uint32_t porep_ni_min_challenges;          /* non-interactive */
    uint32_t window_post_sectors;              /* WINDOW_POST_SECTOR_COUNT */
    bool published;                            /* official parameters exist */
    bool supported;                            /* in SUPPORTED_SECTOR_SIZES (PoRep, PoSt) */
    bool update;                               /* a SnapDeals size (validate_tree_r_shape) */
} seal_size;

/** Number of published sector sizes: the sizes of the registered proofs. */
#define SEAL_PUBLISHED_SIZES 5

/** The whole table: first the ten SUPPORTED_SECTOR_SIZES in ascending order (`supported`),
 *  then the sizes only SnapDeals and the seal tests know (1 KiB, 8 KiB). */
const seal_size *seal_sizes(size_t *count);
/** The entry for a size in bytes; NULL when the size is in no list. */
const seal_size *seal_size_lookup(uint64_t bytes);
/** The size of published index i (abi id % 5: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB).
 *  CZ_CHECKs i < SEAL_PUBLISHED_SIZES. */
uint64_t seal_published_size(uint32_t index);
/** The published index of a size (the inverse of seal_published_size); -1 if not published. */
int seal_published_index(uint64_t bytes);

/** Fills `out` for a supported sector size: the published 2 KiB, 8 MiB, 512 MiB, 32 GiB,
 *  64 GiB and the test-only 1, 4, 8, 16, 32 KiB, 16 MiB, 1 GiB (their TreeR shapes follow
 *  storage-proofs-update `validate_tree_r_shape`). False for anything else. */
bool seal_shape_for_size(seal_shape *out, uint64_t sector_size);

/** A PoRep configuration: a registered seal proof (abi id 0..19) or a test configuration. */
typedef struct seal_porep_config {
    uint32_t registered_proof; /* abi RegisteredSealProof, or SEAL_NOT_REGISTERED */
    const char *name;          /* "StackedDrg2KiBV1_1", or "custom" */
    const char *c1_variant;    /* VanillaSealProof key "StackedDrg2KiBV1", or NULL */
    seal_shape shape;
    seal_api api;
    seal_porep_kind kind;
    uint8_t porep_id[32];
    uint32_t partitions;               /* 1 / 10; NI 13 / 126 */
    uint32_t challenges_per_partition; /* ceil(min_challenges / partitions): 2 or 18 */
} seal_porep_config;

/** Number of registered seal proofs (ids 0 .. SEAL_POREP_PROOF_COUNT - 1). */
#define SEAL_POREP_PROOF_COUNT 20

/** By abi id (vanilla-proofs.md 6.1). False for an unknown id. */
bool seal_porep_config_for_id(seal_porep_config *out, uint32_t registered_proof);
/** By Rust name ("StackedDrg32GiBV1_1_Feat_SyntheticPoRep"); false if unknown. */
bool seal_porep_config_for_name(seal_porep_config *out, const char *name);
/** A test configuration for any supported size (interactive counts: 1 partition x 2, or
 *  10 x 18 for 32/64 GiB; NI 13 x 2 / 126 x 18). registered_proof = SEAL_NOT_REGISTERED. */
bool seal_porep_config_custom(seal_porep_config *out, uint64_t sector_size, seal_api api,
                              seal_porep_kind kind, const uint8_t porep_id[32]);
/** porep_id = u64_LE(id) || u64_LE(0) || 16 zero bytes (rust-filecoin-proofs-api registry.rs). */
void seal_porep_id(uint8_t out[32], uint64_t registered_proof);

/** PoSt flavours. */
typedef enum seal_post_type { SEAL_POST_WINNING = 0, SEAL_POST_WINDOW = 1 } seal_post_type;

typedef struct seal_post_config {
    uint32_t registered_proof; /* Go abi RegisteredPoStProof 0..14, or SEAL_NOT_REGISTERED */
    const char *name;          /* Go name ("StackedDrgWindow32GiBV1_1") */
    seal_post_type type;
    seal_api api; /* V1_0 (ids 0..9) or V1_2 (ids 10..14) */
    seal_shape shape;
    uint32_t sector_count;    /* sectors per partition at the API: 1 (winning) or window count */
    uint32_t challenge_count; /* per sector: 66 (winning) or 10 (window) */
} seal_post_config;

#define SEAL_POST_PROOF_COUNT 15

bool seal_post_config_for_id(seal_post_config *out, uint32_t registered_proof);
/** Test configuration for any supported size. */
bool seal_post_config_custom(seal_post_config *out, uint64_t sector_size, seal_post_type type,
                             seal_api api);

/** SnapDeals (EmptySectorUpdate) parameters (vanilla-proofs.md 3.3). */
typedef struct seal_update_config {
    uint32_t registered_proof; /* abi RegisteredUpdateProof 0..4, or SEAL_NOT_REGISTERED */
    const char *name;
    seal_shape shape;
    uint32_t partitions;     /* P: 1, 2, 4 or 16 */
    uint32_t partition_bits; /* log2 P */
    uint32_t challenges;     /* per partition: 10 or 86 */
    uint32_t apex_leafs;     /* per partition: 8 or 128 */
    uint32_t apex_bits;      /* log2 apex_leafs */
    uint32_t h;              /* hs(N)[3]: 1 or 10 */
    uint32_t h_select;       /* 1 << index of h in hs(N): 1 or 8 */
} seal_update_config;

#define SEAL_UPDATE_PROOF_COUNT 5
#define SEAL_UPDATE_MAX_APEX    128

bool seal_update_config_for_id(seal_update_config *out, uint32_t registered_proof);
bool seal_update_config_for_size(seal_update_config *out, uint64_t sector_size);

/** The registered proofs (Go abi ids) to use for a published sector size when none is named:
 *  the current version of each (published index i = seal_published_index). */
typedef struct seal_default_ids {
    uint32_t porep;        /* RegisteredSealProof StackedDrg V1_1: 5 + i */
    uint32_t winning_post; /* RegisteredPoStProof StackedDrgWinning V1: i */
    uint32_t window_post;  /* RegisteredPoStProof StackedDrgWindow V1_1 (Rust V1_2): 10 + i */
    uint32_t update;       /* RegisteredUpdateProof StackedDrg V1: i */
} seal_default_ids;

/** False (out untouched) when sector_size is not a published size. */
bool seal_default_ids_for_size(seal_default_ids *out, uint64_t sector_size);

/* ============================================================================================
 * fr32 padding (sealing.md 1.1)
 * ========================================================================================== */

/** Bytes of padded output for `raw_len` raw bytes: 32 * ceil(8 raw_len / 254). */
size_t seal_fr32_padded_len(size_t raw_len);
/** Pads raw bytes (a little-endian bit stream) into 32-byte nodes of 254 data bits each; a
 *  trailing partial node is zero-extended. out has seal_fr32_padded_len(len) bytes. */
void seal_fr32_pad(uint8_t *out, const uint8_t *in, size_t len);
/** The inverse: extracts `raw_len` raw bytes from the padded nodes in `in`. */
void seal_fr32_unpad(uint8_t *out, size_t raw_len, const uint8_t *in);

/* ============================================================================================
 * Hashes of tree nodes, comm_d, replica_id, comm_r, encoding
 * ========================================================================================== */

/** z_level: the TreeD root of an all-zero subtree with 2^level leaves (z_0 = 0). level <= 40. */
void seal_zero_comm_d(uint8_t out[32], uint32_t level);

/** comm_d (TreeD root) of `nodes` padded nodes (a power of two). Allocates scratch. */
CZ_MUST_USE cuzk_err seal_comm_d(uint8_t out[32], const seal_node *data, uint64_t nodes,
                                 cz_pool *pool, cz_diag *dg);

/** Piece commitment (CommP) of raw (unpadded) bytes: fr32 padding, zero fill to the next power
 *  of two >= 128 bytes, TreeD root. `padded_size` receives the padded piece size. */
CZ_MUST_USE cuzk_err seal_piece_comm(uint8_t out[32], uint64_t *padded_size, const uint8_t *raw,
                                     size_t len, cz_diag *dg);

/** One piece of a sector: its commitment and padded size (a power of two >= 128). */
typedef struct seal_piece {
    uint8_t comm[32];
    uint64_t padded_size;
} seal_piece;

/** comm_d of a sector holding `n` pieces in order (filecoin-proofs `compute_comm_d`: zero
 *  pieces fill alignment gaps and the tail). CUZK_E_INVAL if the pieces do not fit or a size is
 *  not a power of two. n == 0 gives the zero sector. */
CZ_MUST_USE cuzk_err seal_comm_d_from_pieces(uint8_t out[32], const seal_piece *pieces, size_t n,
                                             uint64_t sector_size, cz_diag *dg);

/** replica_id = trim(SHA-256(prover_id || sector_id BE || ticket || comm_d || porep_id)). */
void seal_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                     const uint8_t ticket[32], const uint8_t comm_d[32],
                     const uint8_t porep_id[32]);

/** prover_id of a miner actor id: unsigned LEB128, zero padded to 32 bytes. */
void seal_prover_id(uint8_t out[32], uint64_t miner_id);

/** True if the 32 bytes are a canonical Fr (< r). */
bool seal_node_is_fr(const uint8_t node[32]);

/** out = Poseidon(arity = n, MerkleTree tag)(in[0..n)) on nodes; n in {2,4,8,11,16,24,36}.
 *  Every input must be < r (CZ_CHECKed). out may alias an input. */
void seal_poseidon_nodes(uint8_t out[32], const seal_node *in, size_t n);

/** comm_r = Poseidon2(comm_c, comm_r_last). */
void seal_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32]);

/** Column hash of a node: Poseidon_layers(label[1] .. label[layers]). */
void seal_column_hash(uint8_t out[32], const seal_node *rows, uint32_t layers);

/** replica = key + data in Fr (storage-proofs-porep encode.rs). Inputs must be < r. */
void seal_encode_node(uint8_t out[32], const uint8_t key[32], const uint8_t data[32]);

/* ============================================================================================
 * The SDR graph (sealing.md 2)
 * ========================================================================================== */

typedef struct seal_graph {
    uint64_t nodes;
    seal_api api;
    uint8_t drg_seed[28];     /* SHA-256("Filecoin_DRSample" || porep_id)[0..28] */
    uint64_t feistel_keys[4]; /* SHA-256("Filecoin_Feistel" || porep_id) as 4 u64 LE */
    uint64_t feistel_n;       /* nodes * 8 */
    uint64_t left_mask, right_mask;
    uint32_t half_bits;
} seal_graph_t;

/** nodes: a power of two, 2 .. 2^31. */
void seal_graph_init(seal_graph_t *g, uint64_t nodes, const uint8_t porep_id[32], seal_api api);
/** The 6 DRG parents of node v, in slot order (duplicates kept). */
void seal_graph_drg_parents(const seal_graph_t *g, uint64_t v, uint32_t out[SEAL_DRG_DEGREE]);
/** The 8 expander parents of node v (nodes of the previous layer). */
void seal_graph_exp_parents(const seal_graph_t *g, uint64_t v, uint32_t out[SEAL_EXP_DEGREE]);
/** drg[0..6) then exp[0..8): one row of the parent cache. */
void seal_graph_parents(const seal_graph_t *g, uint64_t v, uint32_t out[SEAL_PARENTS]);
/** The Feistel permutation of [0, 8 * nodes) (exposed for tests). */
uint64_t seal_graph_feistel_permute(const seal_graph_t *g, uint64_t x);

/** The whole parent cache: `nodes` rows of 14 u32 (drg0..5, exp0..7), byte-identical to the
 *  official `v28-sdr-parent-*.cache` file on a little-endian machine. Returns owned memory
 *  in `out` (free with cz_buf_free). Parallel over `pool`. */
CZ_MUST_USE cuzk_err seal_graph_cache_new(cz_buf *out, const seal_graph_t *g, cz_pool *pool,
                                          cz_diag *dg);

#define SEAL_CACHE_NAME_MAX 96
/** The official cache file name "v28-sdr-parent-<hex>.cache" (cache.rs cache_path). */
void seal_graph_cache_name(char out[SEAL_CACHE_NAME_MAX], const seal_graph_t *g);

/* ============================================================================================
 * Labeling (sealing.md 3)
 * ========================================================================================== */

/** The 37-entry parent list hashed into label (layer, v): layer 1 repeats the 6 DRG labels
 *  (6 x 6 + drg[0]); layer > 1 repeats drg ++ exp (14 + 14 + 9). `exp` is ignored (may be
 *  NULL) for layer 1. drg: the DRG parents' labels in `layer`; exp: the expander parents'
 *  labels in `layer - 1`. This list is exactly LabelingProof.parents. */
void seal_label_parents(seal_node out[SEAL_LABEL_PARENTS], uint32_t layer,
                        const seal_node drg[SEAL_DRG_DEGREE], const seal_node *exp);

/** label = trim(SHA-256(replica_id || u32_BE(layer) || u64_BE(node) || 0^20 || parents[37]));
 *  node 0 hashes the 64-byte prefix only (parents ignored, may be NULL). */
void seal_label_node(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                     const seal_node *parents);

/** Labels every node of layers 1..layers into `labels` (layers * nodes nodes, layer-major).
 *  `cache` is the parent cache of seal_graph_cache_new. Sequential (each label depends on
 *  the previous ones). */
void seal_label_all(seal_node *labels, const seal_graph_t *g, const uint32_t *cache,
                    const uint8_t replica_id[32], uint32_t layers);

/* ============================================================================================
 * Merkle trees and inclusion proofs (sealing.md 4, vanilla-proofs.md 1.4)
 * ========================================================================================== */

/** Rust's ProofData variant: which of base / sub / top paths the proof has. */
typedef enum seal_proof_kind {
    SEAL_PROOF_SINGLE = 0,
    SEAL_PROOF_SUB = 1,
    SEAL_PROOF_TOP = 2,
} seal_proof_kind;

/** How a tree hashes its nodes. */
typedef enum seal_tree_hash {
    SEAL_HASH_SHA256 = 0,   /* binary, trim(SHA-256(left || right)): TreeD */
    SEAL_HASH_POSEIDON = 1, /* Poseidon of the level's arity, MerkleTree tag: TreeC, TreeR */
} seal_tree_hash;

/** One Merkle inclusion proof, exactly the content of Rust's MerkleProof (any variant).
 *  Path elements run from the leaf level upward: elements [0, nbase) are the base path,
 *  then one sub element when kind >= SUB, then one top element when kind == TOP.
 *  Element j has arity[j] - 1 sibling hashes, stored consecutively in `sib` after those of
 *  elements 0..j-1 (seal_merkle_sib gives the start), in increasing position order with the
 *  proven node's position index[j] left out. Recomputing: insert the running hash at
 *  position index[j] among the siblings and hash the arity[j] values. The leaf index equals
 *  sum_j index[j] * prod_{i<j} arity[i]. The circuits consume exactly these fields. */
typedef struct seal_merkle_proof {
    seal_proof_kind kind;
    uint32_t nelems;               /* path elements, <= SEAL_MAX_PATH */
    uint32_t nbase;                /* base path elements */
    uint8_t arity[SEAL_MAX_PATH];  /* arity of element j: 2 or 8 (sub: 2/4/8, top: 2) */
    uint64_t index[SEAL_MAX_PATH]; /* position 0 .. arity[j]-1 */
    seal_node root;
    seal_node leaf;
    seal_node sib[SEAL_MAX_SIBLINGS];
} seal_merkle_proof;

/** Pointer to the first sibling of element j. */
const seal_node *seal_merkle_sib(const seal_merkle_proof *p, uint32_t j);
/** Total sibling count sum_j (arity[j] - 1). */
uint32_t seal_merkle_nsib(const seal_merkle_proof *p);
/** The leaf index the path's positions encode. */
uint64_t seal_merkle_leaf_index(const seal_merkle_proof *p);
/** Recomputes the root from leaf and path and compares it with p->root. Also checks that the
 *  element counts agree with `kind` and that every index < arity. */
bool seal_merkle_verify(const seal_merkle_proof *p, seal_tree_hash hash);

/** The shape of a tree: leaves, hash, and the arity of every level from the leaves up. */
typedef struct seal_tree_shape {
    seal_tree_hash hash;
    seal_proof_kind kind;
    uint64_t leaves;
    uint32_t nlevels; /* levels above the leaves = path length */
    uint32_t nbase;   /* base-tree levels */
    uint8_t arity[SEAL_MAX_PATH];
} seal_tree_shape;

/** TreeD: binary SHA-256 over `nodes` leaves (Single). */
void seal_tree_shape_d(seal_tree_shape *out, uint64_t nodes);
/** TreeC / TreeRLast of a sector shape: base levels of arity 8, then sub, then top. */
void seal_tree_shape_r(seal_tree_shape *out, const seal_shape *s);
/** True if `p` has exactly the element counts and arities of `shape`. */
bool seal_merkle_matches_shape(const seal_merkle_proof *p, const seal_tree_shape *shape);

/** A Merkle tree: dense (every node stored) or sparse (nodes that differ from the level's
 *  empty-subtree value, in sorted lists). Immutable after construction. */
typedef struct seal_tree seal_tree;

/** Builds a dense tree over `shape->leaves` leaves (copied). Parallel over `pool`. */
CZ_MUST_USE cuzk_err seal_tree_new_dense(seal_tree **out, const seal_tree_shape *shape,
                                         const seal_node *leaves, cz_pool *pool, cz_diag *dg);
/** Builds a sparse tree: leaf idx[i] = vals[i] (idx strictly increasing), every other leaf
 *  `dflt`. Every node off the paths of the given leaves is the empty-subtree value of its
 *  level: e_0 = dflt, e_{j+1} = H(e_j x arity_j). */
CZ_MUST_USE cuzk_err seal_tree_new_sparse(seal_tree **out, const seal_tree_shape *shape,
                                          const uint64_t *idx, const seal_node *vals, size_t n,
                                          const uint8_t dflt[32], cz_diag *dg);
void seal_tree_free(seal_tree *t);
const seal_tree_shape *seal_tree_get_shape(const seal_tree *t);
bool seal_tree_is_sparse(const seal_tree *t);
/** Node `index` of level `level` (0 = leaves, nlevels = root). */
void seal_tree_node(const seal_tree *t, uint32_t level, uint64_t index, uint8_t out[32]);
void seal_tree_root(const seal_tree *t, uint8_t out[32]);
/** The inclusion proof of leaf `leaf`. */
void seal_tree_prove(const seal_tree *t, uint64_t leaf, seal_merkle_proof *out);

/* ============================================================================================
 * Challenges (sealing.md 5, 6.1, 7.2)
 * ========================================================================================== */

/** (digest as a 256-bit little-endian integer) mod (nodes - 1) + 1: never 0. */
uint64_t seal_challenge_from_digest(const uint8_t digest[32], uint64_t nodes);

/** The n interactive PoRep challenges of partition k:
 *  SHA-256(replica_id || seed || u32_LE(n k + i)). */
void seal_porep_challenges_interactive(uint64_t *out, uint32_t n, uint64_t nodes,
                                       const uint8_t replica_id[32], const uint8_t seed[32],
                                       uint32_t k);
/** Non-interactive: SHA-256("filecoin.io|PoRep|1|NonInteractive|1" || replica_id || comm_r
 *  || u32_LE(n k + i)). */
void seal_porep_challenges_ni(uint64_t *out, uint32_t n, uint64_t nodes,
                              const uint8_t replica_id[32], const uint8_t comm_r[32], uint32_t k);
/** Synthetic challenges t = first .. first + count - 1 (the generation stream). */
void seal_synth_challenges(uint64_t *out, uint64_t first, size_t count, uint64_t nodes,
                           const uint8_t replica_id[32], const uint8_t comm_r[32]);
/** The n synthetic PoRep challenges of partition k, selected among `num_synth` synthetic
 *  challenges (0 = the default min(nodes, 2^18)). `idx_out` (may be NULL) receives the
 *  selected synthetic indices. */
void seal_porep_challenges_synthetic(uint64_t *out, uint64_t *idx_out, uint32_t n, uint64_t nodes,
                                     const uint8_t replica_id[32], const uint8_t comm_r[32],
                                     const uint8_t seed[32], uint32_t k, uint64_t num_synth);
/** The challenges of partition k for cfg's kind; `out` has cfg->challenges_per_partition
 *  entries. comm_r is unused (may be NULL) for interactive, seed unused (may be NULL) for NI. */
void seal_porep_challenges(uint64_t *out, const seal_porep_config *cfg,
                           const uint8_t replica_id[32], const uint8_t comm_r[32],
                           const uint8_t seed[32], uint32_t k);

/** PoSt leaf challenge: u64_LE(SHA-256(R || u64_LE(sector_id) || u64_LE(idx))[0..8]) mod nodes. */
uint64_t seal_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id, uint64_t idx,
                                  uint64_t nodes);
/** challenge_index of challenge n of the sector at `sector_index` = partition * sector_count + i
 *  (API V1_0/V1_1: sector_index * challenge_count + n; V1_2: n). */
uint64_t seal_post_challenge_index(const seal_post_config *cfg, uint64_t sector_index, uint32_t n);
/** Winning sector selection: u64_LE(SHA-256(prover_id || R || u64_LE(n))[0..8]) mod set_len. */
uint64_t seal_winning_sector(const uint8_t prover_id[32], const uint8_t randomness[32], uint64_t n,
                             uint64_t set_len);

/** SnapDeals phi = PoseidonGR(comm_d_new, comm_r_old) (arity 2, Custom(1) tag). */
void seal_snap_phi(uint8_t out[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32]);
/** rho(high) = PoseidonGR(phi, Fr(high)), as an Fr (Montgomery). */
void seal_snap_rho(fr_t *out, const uint8_t phi[32], uint64_t high);
/** The ucfg->challenges challenges of partition k (storage-proofs-update challenges.rs). */
void seal_snap_challenges(uint64_t *out, const seal_update_config *ucfg,
                          const uint8_t comm_r_new[32], uint32_t k);

/* ============================================================================================
 * Sealed sectors (dense or synthetic) and their cache directory
 * ========================================================================================== */

/** Who and what is sealed. */
typedef struct seal_ids {
    uint8_t prover_id[32];
    uint64_t sector_id;
    uint8_t ticket[32];
} seal_ids;

/** The commitments and identifiers of a sealed sector. */
typedef struct seal_sector_info {
    seal_ids ids;
    uint8_t comm_d[32];
    uint8_t replica_id[32];
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
    uint8_t comm_r[32];
    bool sparse; /* synthetic: only some columns materialised, data all zero */
} seal_sector_info;

typedef struct seal_sector seal_sector;

/** Seals a sector: comm_d, replica_id, graph and parent cache, all labels, TreeC, encoding,
 *  TreeRLast, comm_r. `data` holds shape.nodes padded nodes (each < 2^254, i.e. byte 31 has
 *  its top two bits clear: CUZK_E_INVAL otherwise), or NULL for an all-zero (CC) sector.
 *  Memory: about (layers + 5) * sector_size. */
CZ_MUST_USE cuzk_err seal_sector_seal(seal_sector **out, const seal_porep_config *cfg,
                                      const seal_ids *ids, const seal_node *data, cz_pool *pool,
                                      cz_diag *dg);

/** Seals a synthetic sector for huge sizes: the data is all zero (comm_d = z_log2(nodes)),
 *  labels are computed only for the `n` nodes in `nodes` (any order, duplicates allowed), from
 *  their parents' labels, where every node not listed has all-zero labels. TreeC, TreeRLast
 *  and TreeD are sparse. The result is a self-consistent sector for every proof that only
 *  opens listed nodes and their parents' columns (interactive PoRep challenges chosen before
 *  sealing; any PoSt or SnapDeals challenge opens only TreeRLast/TreeD, which are complete). */
CZ_MUST_USE cuzk_err seal_sector_seal_sparse(seal_sector **out, const seal_porep_config *cfg,
                                             const seal_ids *ids, const uint64_t *nodes, size_t n,
                                             cz_diag *dg);

void seal_sector_free(seal_sector *s);
const seal_porep_config *seal_sector_config(const seal_sector *s);
const seal_sector_info *seal_sector_get_info(const seal_sector *s);
const seal_graph_t *seal_sector_graph(const seal_sector *s);
const seal_tree *seal_sector_tree_d(const seal_sector *s);
const seal_tree *seal_sector_tree_c(const seal_sector *s);
const seal_tree *seal_sector_tree_r(const seal_sector *s);
/** Label of node v in layer 1..layers (zero for unmaterialised nodes of a sparse sector). */
void seal_sector_label(const seal_sector *s, uint32_t layer, uint64_t v, uint8_t out[32]);
/** True if labels of v are known to be the real labels (always for dense sectors). */
bool seal_sector_has_column(const seal_sector *s, uint64_t v);
/** The padded data node v (TreeD leaf) and the replica node v (TreeRLast leaf). */
void seal_sector_data(const seal_sector *s, uint64_t v, uint8_t out[32]);
void seal_sector_replica(const seal_sector *s, uint64_t v, uint8_t out[32]);

/** Writes the sector to directory `dir` (created if missing). Layout (all nodes 32 bytes):
 *    sector.meta        text, one "key value" per line: format, registered_proof, name,
 *                       sector_size, api, kind, porep_id, prover_id, sector_id, ticket,
 *                       comm_d, replica_id, comm_c, comm_r_last, comm_r, sparse (hex bytes)
 *    p_aux              comm_c || comm_r_last (64 bytes, as rust-fil-proofs writes it)
 *    tree-d.dat, tree-c.dat, tree-r-last.dat   trees (format in cache.c)
 *    layer-<l>.dat      dense: the nodes labels of layer l, l = 1..layers
 *    sealed.dat         dense: the replica (= TreeRLast leaves)
 *    columns.dat        sparse: u64 count, then per materialised node u64 index + layers labels
 *  A sparse sector's trees hold only their non-empty nodes, so a 32 GiB synthetic cache is a
 *  few MiB. */
CZ_MUST_USE cuzk_err seal_sector_save(const seal_sector *s, const char *dir, cz_diag *dg);
/** Reads a directory written by seal_sector_save (checks sizes and the stored commitments). */
CZ_MUST_USE cuzk_err seal_sector_load(seal_sector **out, const char *dir, cz_pool *pool,
                                      cz_diag *dg);

/* ============================================================================================
 * SnapDeals encoding (sealing.md 7.1)
 * ========================================================================================== */

typedef struct seal_update seal_update;

/** Encodes new data into a sealed sector: new[v] = key[v] + data[v] * rho(v >> (log2 N - h)),
 *  builds TreeD_new and TreeRLast_new, comm_r_new = Poseidon2(comm_c, comm_r_last_new).
 *  `data`: nodes padded nodes (top two bits clear), or NULL for all-zero new data (the only
 *  choice for a sparse sector). Retains `s` (keep it alive until seal_update_free). */
CZ_MUST_USE cuzk_err seal_update_encode(seal_update **out, const seal_sector *s,
                                        const seal_update_config *ucfg, const seal_node *data,
                                        cz_pool *pool, cz_diag *dg);
void seal_update_free(seal_update *u);

typedef struct seal_update_info {
    uint8_t comm_d_new[32];
    uint8_t comm_r_last_new[32];
    uint8_t comm_r_new[32];
    uint8_t comm_r_old[32];
    uint8_t comm_c[32];
    uint8_t phi[32];
} seal_update_info;

const seal_update_info *seal_update_get_info(const seal_update *u);
const seal_update_config *seal_update_config_of(const seal_update *u);
const seal_sector *seal_update_sector(const seal_update *u);
const seal_tree *seal_update_tree_d(const seal_update *u);
const seal_tree *seal_update_tree_r(const seal_update *u);
/** The apex leaves of partition k: the TreeD_new nodes at level log2 N - partition_bits -
 *  apex_bits, indices [k * apex_leafs, (k + 1) * apex_leafs). */
void seal_update_apex_leafs(const seal_update *u, uint32_t k, seal_node *out);

#endif /* CUZK_SEAL_SEAL_H */
