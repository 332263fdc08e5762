/* circuits.h - the Filecoin Groth16 circuits, layout-exact with rust-fil-proofs
 * (spec circuits.md sections 5-8, vanilla-proofs.md 1.7-1.8, 2.3-2.5, 3.3-3.4, 6):
 *   PoRep      storage-proofs-porep StackedCircuit (one partition),
 *   PoSt       storage-proofs-post FallbackPoStCircuit (Winning and Window),
 *   SnapDeals  storage-proofs-update EmptySectorUpdateCircuit (standard and Poseidon variants),
 * plus the sector-size and registered-proof tables they are configured from, the public-input
 * vectors exactly as the verifier builds them, and the official parameter file names
 * (storage-proofs-core parameter_cache.rs: v28-<prefix>-<sha256(identifier)>.params|.vk|.meta).
 *
 * Synthesis: circ_*_synth(cs, cfg, witness) writes the circuit into any r1cs backend. With a
 * NULL witness the circuit is "blank" (parameter-generation shape; all values zero): use it with
 * the counter, digest and recorder backends. With a witness, backends that keep values (prover,
 * witness, checker) get the honest assignment; the witness is only read. LCs are built only when
 * cs_needs_lcs(cs). Synthesis never returns an error itself: a witness that does not fit the
 * configuration (a path position >= its arity, a challenge outside the sector, an h that is not
 * allowed) becomes a sticky CUZK_E_INVAL of the cs, and an unsatisfied constraint shows up in
 * the checker's cs_finish. Only configuration bugs (a NULL cfg) abort through CZ_CHECK.
 *
 * Values: fr_t in Montgomery form, as everywhere; a 32-byte Filecoin domain element (comm_*,
 * replica_id, tree nodes) is its little-endian canonical encoding (fr_from_bytes).
 * Memory: synthesis allocates little of its own (SnapDeals: the challenge bits; PoSt and PoRep
 * with a pool: one child cs per chunk or challenge); the vanilla adapters own their witness
 * storage. Threads:
 * reentrant; one cs per thread.
 */
#ifndef CUZK_CIRCUITS_CIRCUITS_H
#define CUZK_CIRCUITS_CIRCUITS_H

#include "common/common.h"
#include "common/pool.h"
#include "field/fr.h"
#include "gadgets/gadgets.h"
#include "proofs/proofs.h"
#include "r1cs/r1cs.h"
#include "seal/seal.h"

/* =============================================================================================
 * Sector sizes (filecoin-proofs constants.rs; spec circuits.md 8)
 * =========================================================================================== */

#define CIRC_NODE_BYTES                   32
#define CIRC_DRG_PARENTS                  6 /* BASE_DEGREE */
#define CIRC_EXP_PARENTS                  8 /* EXP_DEGREE */
#define CIRC_POREP_INPUTS_PER_CHALLENGE   (1 + CIRC_DRG_PARENTS + CIRC_EXP_PARENTS + 3)
#define CIRC_MAX_CHALLENGES_PER_PARTITION 18
#define CIRC_WINNING_POST_CHALLENGES      66
#define CIRC_WINDOW_POST_CHALLENGES       10
#define CIRC_PARAMS_VERSION               28 /* parameter_cache.rs VERSION */
/* The constraint systems the gadgets and circuits here emit: bump it with any change to a row,
 * column or coefficient they produce. It is part of the identity of a recorded shape file
 * (the handlers' synth_version, kinds/; engine/shape.c), so that a file recorded by a build
 * that synthesized otherwise is refused. */
#define CIRC_SYNTH_VERSION                1

/** One supported sector size and its constants: an entry of seal/'s sector table (seal.h
 *  seal_size), the one place these numbers are written down. */
typedef seal_size circ_sector_t;

/** The ten sector sizes rust-fil-proofs supports (SUPPORTED_SECTOR_SIZES), ascending: the
 *  `supported` head of seal_sizes(). */
const circ_sector_t *circ_sectors(size_t *count);
/** The entry for a size in bytes; NULL when unsupported. */
const circ_sector_t *circ_sector_lookup(uint64_t bytes);
/** Parses "2KiB", "32GiB" (case-insensitive, "KB"/"K" and "GB"/"G" accepted) or a byte count;
 *  NULL when it is no supported size. */
const circ_sector_t *circ_sector_parse(const char *text);

/* =============================================================================================
 * Registered proofs and API versions (rust-filecoin-proofs-api registry.rs; spec
 * vanilla-proofs.md 6)
 * =========================================================================================== */

typedef enum circ_kind {
    CIRC_POREP = 0,
    CIRC_WINNING_POST = 1,
    CIRC_WINDOW_POST = 2,
    CIRC_UPDATE = 3,          /* SnapDeals, SHA-256 TreeD (the one the API uses) */
    CIRC_UPDATE_POSEIDON = 4, /* SnapDeals, Poseidon TreeD, single partition */
} circ_kind;

typedef enum circ_api {
    CIRC_API_V1_0_0 = 0,
    CIRC_API_V1_1_0 = 1,
    CIRC_API_V1_2_0 = 2,
} circ_api;

typedef enum circ_porep_challenges {
    CIRC_POREP_INTERACTIVE = 0,
    CIRC_POREP_SYNTHETIC = 1,
    CIRC_POREP_NON_INTERACTIVE = 2,
} circ_porep_challenges;

/** What a registered proof id stands for. */
typedef struct circ_registered {
    circ_kind kind;
    uint64_t sector_bytes;
    circ_api api;
    circ_porep_challenges porep_challenges; /* PoRep only */
    const char *name;                       /* the Rust enum name, "StackedDrg32GiBV1_1" */
} circ_registered_t;

/** RegisteredSealProof 0..19, RegisteredPoStProof 0..14 (Go abi numbering; 10..14 are
 *  Window V1_2 = Go "V1_1"), RegisteredUpdateProof 0..4. False for an unknown id. */
bool circ_registered_seal(circ_registered_t *out, uint32_t id);
bool circ_registered_post(circ_registered_t *out, uint32_t id);
bool circ_registered_update(circ_registered_t *out, uint32_t id);

/** PoRep partitions and challenges per partition of a size and challenge mode
 *  (constants.rs, parameters.rs select_challenges: ceil(min / partitions)). False for an
 *  unsupported size. */
bool circ_porep_partitioning(uint64_t sector_bytes, circ_porep_challenges mode,
                             uint32_t *partitions, uint32_t *challenges_per_partition);

/* =============================================================================================
 * Parameter file names (storage-proofs-core parameter_cache.rs; spec groth16.md 3.3)
 * =========================================================================================== */

typedef enum circ_param_ext {
    CIRC_PARAM_PARAMS = 0, /* ".params" */
    CIRC_PARAM_VK = 1,     /* ".vk" */
    CIRC_PARAM_META = 2,   /* ".meta" */
} circ_param_ext;

#define CIRC_PARAM_NAME_MAX 160 /* longest file name + NUL, with margin */

/** The ParameterSetMetadata::identifier() string of the production circuit (kind, size), e.g.
 *  "FallbackPoSt::PublicParams{sector_size: 34359738368, challenge_count: 10, sector_count:
 *  2349}". The circuit does not depend on the API version or challenge mode, and neither does
 *  the name. Errors: CUZK_E_INVAL for an unsupported (kind, size) or a too small buffer. */
CZ_MUST_USE cuzk_err circ_param_identifier(char *out, size_t cap, circ_kind kind,
                                           uint64_t sector_bytes);
/** The cache id "<prefix>-<hex sha256(identifier)>", e.g.
 *  "stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a3...". */
CZ_MUST_USE cuzk_err circ_param_cache_id(char *out, size_t cap, circ_kind kind,
                                         uint64_t sector_bytes);
/** The file name "v28-<cache id>.params" (or .vk / .meta). */
CZ_MUST_USE cuzk_err circ_param_file_name(char *out, size_t cap, circ_kind kind,
                                          uint64_t sector_bytes, circ_param_ext ext);
/** The .meta file's content, CacheEntryMetadata as serde_json writes it: {"sector_size":N}. */
CZ_MUST_USE cuzk_err circ_param_meta_json(char *out, size_t cap, uint64_t sector_bytes);

/* =============================================================================================
 * Witness building blocks
 * =========================================================================================== */

/** One Merkle inclusion path of a tree shape, as a vanilla MerkleProof carries it:
 *  `siblings` = gad_tree_shape_siblings(shape) values, level by level from the leaf up (base
 *  levels, then the sub level, then the top level), each level's arity - 1 siblings in their
 *  order in the path element; `index` = the proven node's position at each level
 *  (gad_tree_shape_levels(shape) entries, each < that level's arity). Borrowed. */
typedef struct circ_path {
    const fr_t *siblings;
    const uint32_t *index;
} circ_path_t;

/** The leaf index a path proves: sum over levels of index[l] * (product of lower arities).
 *  Levels with an index >= arity make the result meaningless (circ_path_valid says so). */
uint64_t circ_path_leaf_index(const gad_tree_shape_t *shape, const circ_path_t *path);
/** True when every level index is below its arity. */
bool circ_path_valid(const gad_tree_shape_t *shape, const circ_path_t *path);

/* =============================================================================================
 * PoRep: StackedCircuit, one partition (spec circuits.md 5)
 * =========================================================================================== */

typedef struct circ_porep_cfg {
    uint64_t nodes;          /* sector_bytes / 32, a power of two */
    gad_tree_shape_t tree;   /* TreeC / TreeRLast (Poseidon) */
    gad_tree_shape_t tree_d; /* TreeD: binary SHA-256 over all nodes */
    uint32_t layers;         /* 2 or 11: also the column hash arity */
    uint32_t challenges;     /* challenges in this partition */
} circ_porep_cfg_t;

/** A configuration from its parts (the reference tests use small non-production shapes).
 *  False when the shape does not fit `nodes`, layers is not 2 or 11, or challenges is 0. */
bool circ_porep_cfg_init(circ_porep_cfg_t *cfg, uint64_t nodes, uint32_t base, uint32_t sub,
                         uint32_t top, uint32_t layers, uint32_t challenges);
/** The production partition circuit of a sector size (the same for every API version and
 *  challenge mode: 2 or 18 challenges). False for an unsupported size. */
bool circ_porep_cfg_for_sector(circ_porep_cfg_t *cfg, uint64_t sector_bytes);

/** One stored column and its TreeC inclusion path. rows: cfg->layers values, rows[l - 1] = the
 *  label of layer l. */
typedef struct circ_column {
    const fr_t *rows;
    circ_path_t path;
} circ_column_t;

/** The circuit's part of one vanilla challenge proof (params.rs Proof::from(vanilla)). */
typedef struct circ_porep_challenge {
    uint64_t node;                       /* the challenge (labeling_proofs[0].node) */
    fr_t data_leaf;                      /* comm_d_proofs.leaf */
    circ_path_t comm_d_path;             /* TreeD path of `node` */
    circ_column_t drg[CIRC_DRG_PARENTS]; /* replica_column_proofs.drg_parents */
    circ_column_t exp[CIRC_EXP_PARENTS]; /* replica_column_proofs.exp_parents */
    circ_path_t comm_r_last_path;        /* TreeRLast path of `node` */
    circ_path_t comm_c_path;             /* c_x.inclusion_proof: TreeC path of `node` */
} circ_porep_challenge_t;

typedef struct circ_porep_witness {
    fr_t replica_id, comm_d, comm_r;          /* public */
    fr_t comm_r_last, comm_c;                 /* private */
    const circ_porep_challenge_t *challenges; /* cfg->challenges entries */
} circ_porep_witness_t;

/** Synthesizes one PoRep partition (StackedCircuit::synthesize). w NULL: blank circuit.
 *  Sequential: circ_porep_synth_pool with no pool. */
void circ_porep_synth(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_witness_t *w);
/** The same, with the challenges synthesized in parallel on `pool` (NULL: sequentially) when
 *  the backend can be forked (all but digest): each challenge in a cs_fork child, joined in
 *  challenge order, which gives a result identical to sequential synthesis. challenge_counts
 *  (borrowed, may be NULL): what one challenge adds (circ_porep_challenge_counts, the same for
 *  every challenge of cfg; cache it per configuration); the prover, witness and checker need
 *  it to write the challenges in place, and count it here when it is NULL (about one
 *  challenge's synthesis time with the counter backend). A wrong count becomes a sticky
 *  CUZK_E_INVAL of the cs, never a wrong circuit. */
void circ_porep_synth_pool(cs_t *cs, const circ_porep_cfg_t *cfg, const circ_porep_witness_t *w,
                           cz_pool *pool, const cs_counts_t *challenge_counts);
/** What one challenge adds to a partition of cfg: its inputs, aux and constraints (every
 *  challenge has the same shape). Errors: CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err circ_porep_challenge_counts(cs_counts_t *out, const circ_porep_cfg_t *cfg,
                                                 cz_diag *dg);

/** Public inputs after ONE: 3 + 18 * challenges. */
size_t circ_porep_num_inputs(const circ_porep_cfg_t *cfg);
/** StackedCompound::generate_public_inputs: [replica_id, comm_d, comm_r] then per challenge
 *  c: c, its 6 DRG parents, its 8 expander parents, c, c, c. `challenges`, `drg`, `exp` hold
 *  cfg->challenges entries (derived by the verifier from seed / graph, see sealing.md).
 *  out: circ_porep_num_inputs(cfg) elements. */
void circ_porep_public_inputs(fr_t *out, const circ_porep_cfg_t *cfg, const fr_t *replica_id,
                              const fr_t *comm_d, const fr_t *comm_r, const uint64_t *challenges,
                              const uint64_t (*drg)[CIRC_DRG_PARENTS],
                              const uint64_t (*exp)[CIRC_EXP_PARENTS]);

/* =============================================================================================
 * Fallback PoSt (spec circuits.md 6, vanilla-proofs.md 2.3-2.5)
 * =========================================================================================== */

typedef struct circ_post_cfg {
    uint64_t sector_bytes;
    gad_tree_shape_t tree;    /* TreeRLast */
    uint32_t sector_count;    /* circuit sectors per partition */
    uint32_t challenge_count; /* challenges per circuit sector */
} circ_post_cfg_t;

/** A configuration from its parts (the reference tests' shapes and counts). */
bool circ_post_cfg_init(circ_post_cfg_t *cfg, uint64_t sector_bytes, uint32_t base, uint32_t sub,
                        uint32_t top, uint32_t sector_count, uint32_t challenge_count);
/** Winning PoSt: 66 circuit sectors x 1 challenge (winning_post_setup_params). */
bool circ_winning_post_cfg(circ_post_cfg_t *cfg, uint64_t sector_bytes);
/** Window PoSt: `sectors` per partition (0 = the production WINDOW_POST_SECTOR_COUNT) x 10. */
bool circ_window_post_cfg(circ_post_cfg_t *cfg, uint64_t sector_bytes, uint32_t sectors);

/** One circuit sector: its commitments and, per challenge, the leaf and its TreeRLast path. */
typedef struct circ_post_sector {
    fr_t comm_r, comm_c, comm_r_last;
    const fr_t *leaves;       /* challenge_count */
    const circ_path_t *paths; /* challenge_count */
} circ_post_sector_t;

/** Synthesizes one partition (FallbackPoStCircuit): sectors[0 .. cfg->sector_count), the
 *  caller having padded short partitions by repeating the last sector (Winning: the one sector
 *  66 times with one challenge each). sectors NULL: blank. With a pool and a backend that can
 *  be extended (all but digest), chunks of sectors synthesize on the pool's threads into fork
 *  children of exact size that write into their place in cs, joined in order (bellperson
 *  synthesize_extendable): the result is identical to sequential synthesis. */
void circ_post_synth(cs_t *cs, const circ_post_cfg_t *cfg, const circ_post_sector_t *sectors,
                     cz_pool *pool);

/** generate_leaf_challenge: u64_le(SHA256(randomness || sector_id LE || index LE)[0..8])
 *  mod (sector_bytes / 32). */
uint64_t circ_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id,
                                  uint64_t challenge_index, uint64_t sector_bytes);

/** A public sector: id and comm_r. */
typedef struct circ_post_pub_sector {
    uint64_t id;
    fr_t comm_r;
} circ_post_pub_sector_t;

/** Public inputs after ONE: sector_count * (1 + challenge_count). */
size_t circ_post_num_inputs(const circ_post_cfg_t *cfg);
/** FallbackPoStCompound::generate_public_inputs for partition k: the k-th chunk of
 *  cfg->sector_count sectors of `sectors` (all of the request's sectors, n of them); per sector
 *  [comm_r, leaf challenges...] with challenge index sector_index * C + j (V1_0 / V1_1) or j
 *  (V1_2); the last sector's block repeated up to sector_count. Winning PoSt: pass the one
 *  sector repeated 66 times, as verify_winning_post does. CUZK_E_INVAL when chunk k is empty. */
CZ_MUST_USE cuzk_err circ_post_public_inputs(fr_t *out, const circ_post_cfg_t *cfg, circ_api api,
                                             const uint8_t randomness[32],
                                             const circ_post_pub_sector_t *sectors, size_t n,
                                             size_t k, cz_diag *dg);

/* =============================================================================================
 * SnapDeals: EmptySectorUpdate (spec circuits.md 7, vanilla-proofs.md 3.3-3.4)
 * =========================================================================================== */

#define CIRC_UPDATE_HS 6

typedef struct circ_update_cfg {
    uint64_t nodes;
    bool poseidon;           /* the Poseidon-TreeD variant */
    gad_tree_shape_t tree_r; /* TreeR (and TreeD of the Poseidon variant) */
    gad_tree_shape_t tree_d; /* binary SHA-256 TreeD (standard) */
    uint32_t partitions;     /* partition_count (1 for the Poseidon variant) */
    uint32_t challenges;     /* per partition (Poseidon: challenge_count x partition_count) */
    uint32_t challenge_bits; /* log2(nodes) */
    uint32_t partition_bits; /* log2(partitions); 0 for the Poseidon variant */
    uint32_t apex_leaves;    /* per partition; 0 for the Poseidon variant */
    uint32_t apex_bits;
    uint32_t hs[CIRC_UPDATE_HS];
} circ_update_cfg_t;

/** The configuration for `nodes` = sector_bytes / 32 from storage-proofs-update constants.rs
 *  (sizes 1KiB, 2KiB, 4KiB, 8KiB, 16KiB, 32KiB, 8MiB, 16MiB, 512MiB, 32GiB, 64GiB with the
 *  TreeR shapes of validate_tree_r_shape). False for another size. */
bool circ_update_cfg_init(circ_update_cfg_t *cfg, uint64_t nodes, bool poseidon);

/** One challenge's vanilla data. */
typedef struct circ_update_challenge {
    fr_t leaf_r_old, leaf_d_new;
    const fr_t *path_r_old; /* TreeR siblings (gad_tree_shape_siblings(tree_r)) */
    const fr_t *path_d_new; /* standard: challenge_bits binary siblings bottom-up;
                               Poseidon: TreeR-shape siblings */
    const fr_t *path_r_new; /* TreeR siblings */
} circ_update_challenge_t;

typedef struct circ_update_witness {
    uint32_t k;                                /* partition index (standard) */
    uint32_t h;                                /* number of high bits, one of cfg->hs */
    fr_t comm_r_old, comm_d_new, comm_r_new;   /* public */
    fr_t comm_c, root_r_old, root_r_new;       /* private */
    const fr_t *apex_leaves;                   /* standard: cfg->apex_leaves */
    const circ_update_challenge_t *challenges; /* cfg->challenges */
} circ_update_witness_t;

/** Synthesizes EmptySectorUpdateCircuit (standard or Poseidon per cfg). w NULL: blank. */
void circ_update_synth(cs_t *cs, const circ_update_cfg_t *cfg, const circ_update_witness_t *w);

/** circ_update_synth with the challenges on `pool` (NULL: sequential): after the preamble and
 *  challenge 0, chunks of challenges synthesize in fork children of exact size (cs_fork) that
 *  read the preamble's variables and write in place; the result is identical to sequential
 *  synthesis. Backends that cannot fork (digest) synthesize sequentially. */
void circ_update_synth_pool(cs_t *cs, const circ_update_cfg_t *cfg, const circ_update_witness_t *w,
                            cz_pool *pool);

/** h_select = 1 << (index of h in cfg->hs); false when h is not allowed. */
bool circ_update_h_select(const circ_update_cfg_t *cfg, uint32_t h, uint64_t *h_select);
/** Public inputs (4, after ONE): [k | h_select << partition_bits (Poseidon: h_select),
 *  comm_r_old, comm_d_new, comm_r_new]. CUZK_E_INVAL for k >= partitions or a bad h. */
CZ_MUST_USE cuzk_err circ_update_public_inputs(fr_t out[4], const circ_update_cfg_t *cfg,
                                               uint32_t k, uint32_t h, const fr_t *comm_r_old,
                                               const fr_t *comm_d_new, const fr_t *comm_r_new,
                                               cz_diag *dg);
/** The challenges of partition k (challenges.rs Challenges::new / new_poseidon): digests
 *  Poseidon_gen(comm_r_new, digest index) cut into LE bit chunks, partition bits on top.
 *  out: cfg->challenges entries. */
void circ_update_challenges(uint64_t *out, const circ_update_cfg_t *cfg, const fr_t *comm_r_new,
                            uint32_t k);
/** rho(high) = Poseidon_gen(phi, high) with phi = Poseidon_gen(comm_d_new, comm_r_old): the
 *  encoding factor of a node whose top h bits are `high` (vanilla.rs). */
void circ_update_phi(fr_t *phi, const fr_t *comm_d_new, const fr_t *comm_r_old);
void circ_update_rho(fr_t *rho, const fr_t *phi, uint64_t high);

/* =============================================================================================
 * Witnesses from vanilla proofs (proofs/proofs.h)
 * =========================================================================================== */

/** A PoRep partition witness converted from a C1 output, with the storage it points into. */
typedef struct circ_porep_vanilla {
    circ_porep_cfg_t cfg;
    circ_porep_witness_t w;
    circ_porep_challenge_t *challenges; /* owned */
    void *store;                        /* owned: paths and columns */
} circ_porep_vanilla_t;

/** Partition k of a parsed C1 output (params.rs Proof::from(vanilla)): the challenge from
 *  labeling_proofs[0].node, the data leaf and paths from the Merkle proofs, comm_c and
 *  comm_r_last from the first challenge's TreeC / TreeRLast roots. Checks every proof's
 *  element count and arities against the circuit. Errors: CUZK_E_INVAL (no such partition or
 *  circuit), CUZK_E_FORMAT (a node >= r, a path of another shape), CUZK_E_NOMEM. On failure
 *  *out is zeroed. */
CZ_MUST_USE cuzk_err circ_porep_from_c1(circ_porep_vanilla_t *out, const vp_c1 *c1, uint32_t k,
                                        cz_diag *dg);
void circ_porep_vanilla_clear(circ_porep_vanilla_t *v);

/** A PoSt partition witness converted from vanilla sector proofs. */
typedef struct circ_post_vanilla {
    circ_post_cfg_t cfg;
    circ_post_sector_t *sectors; /* cfg.sector_count entries (owned) */
    fr_t *leaves;                /* owned storage */
    circ_path_t *paths;
    fr_t *sib;
    uint32_t *idx;
} circ_post_vanilla_t;

/** Winning (pc->type): the one sector proof's 66 inclusion proofs become the 66 circuit
 *  sectors (post_util.rs single_partition_vanilla_proofs). Window: the n <= sector_count
 *  proofs of one partition in order, the last one repeated up to sector_count. Same errors as
 *  circ_porep_from_c1. */
CZ_MUST_USE cuzk_err circ_post_from_vanilla(circ_post_vanilla_t *out, const seal_post_config *pc,
                                            const vp_post_proof *proofs, size_t n, cz_diag *dg);
void circ_post_vanilla_clear(circ_post_vanilla_t *v);

/** A SnapDeals (standard variant) partition witness. */
typedef struct circ_update_vanilla {
    circ_update_cfg_t cfg;
    circ_update_witness_t w;
    circ_update_challenge_t *challenges; /* owned */
    fr_t *sib;                           /* owned */
    fr_t apex[128];
} circ_update_vanilla_t;

/** Partition k's PartitionProof plus the three public commitments (circuit.rs
 *  PrivateInputs::new: root_r_old / root_r_new from the first challenge's TreeR proofs;
 *  h = uc->h). Same errors as circ_porep_from_c1. */
CZ_MUST_USE cuzk_err circ_update_from_vanilla(circ_update_vanilla_t *out,
                                              const seal_update_config *uc, const vp_snap_proof *p,
                                              uint32_t k, const uint8_t comm_r_old[32],
                                              const uint8_t comm_d_new[32],
                                              const uint8_t comm_r_new[32], cz_diag *dg);
void circ_update_vanilla_clear(circ_update_vanilla_t *v);

/* =============================================================================================
 * Generic entry points (cuzk-bench circuit-info, engine)
 * =========================================================================================== */

/** A production circuit of one kind and size, blank: the counts `circuit-info` prints.
 *  window_sectors: Window PoSt sectors per partition (0 = production); ignored otherwise.
 *  CUZK_E_INVAL for an unsupported (kind, size). */
CZ_MUST_USE cuzk_err circ_synth_blank(cs_t *cs, circ_kind kind, uint64_t sector_bytes,
                                      uint32_t window_sectors, cz_pool *pool, cz_diag *dg);
/** "porep", "winning-post", "window-post", "snap", "snap-poseidon"; and the reverse (false
 *  for an unknown name). */
const char *circ_kind_name(circ_kind kind);
bool circ_kind_parse(circ_kind *out, const char *name);

#endif /* CUZK_CIRCUITS_CIRCUITS_H */
