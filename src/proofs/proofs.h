/* proofs.h - vanilla proofs: the in-memory structures the circuits consume, their wire formats
 * (spec vanilla-proofs.md 0-3, 5, 6), their native verification, public-input derivation, and
 * their generation from sectors sealed by seal/.
 *
 * Formats:
 *   PoRep C1  `SealCommitPhase1Output` JSON exactly as filecoin-ffi writes it (serde_json,
 *             compact, Rust field order), read in any key order with unknown keys ignored;
 *             Curio's wrapper {"SectorNum", "Phase1Out" (base64 of that JSON), "SectorSize"};
 *             the bincode form of filecoin-proofs' SealCommitPhase1Output (supraseal / Curio).
 *   PoSt      bincode `FallbackPoStSectorProof` (one per sector).
 *   SnapDeals bincode `PartitionProof` (one per partition); Curio's snap-vproof.json is a JSON
 *             array of their base64 encodings.
 * Every decoder validates lengths and shapes against the sector size and reports the first
 * problem through cz_diag with its location ("vanilla_proofs.StackedDrg2KiBV1[partition 0]
 * [challenge 1].comm_r_last_proof.data.Single.path.path[1].hashes: expected 7 hashes, got 6");
 * no input crashes a decoder.
 *
 * The structures are the contract with circuits/: plain values, fixed capacity arrays (no
 * pointer chasing inside one challenge), owned arrays freed by the matching _clear.
 * A Merkle inclusion proof is seal_merkle_proof (seal/seal.h): kind (Single/Sub/Top), the path
 * elements from the leaf level up (positions `index[j]`, arities `arity[j]`, siblings in
 * `sib`), leaf and root.
 *
 * Layering: proofs/ is above seal/ (it uses seal's configurations, graph, trees, challenges
 * and sectors); seal/ knows nothing of proofs/.
 * Memory: parsing allocates the proof arrays (about 66 KB per PoRep challenge, 2.7 KB per
 * Merkle proof); JSON is read and written without building a document tree.
 * Threads: reentrant; no global state.
 */
#ifndef CUZK_PROOFS_PROOFS_H
#define CUZK_PROOFS_PROOFS_H

#include "common/common.h"
#include "common/pool.h"
#include "field/fr.h"
#include "seal/seal.h"

/* ============================================================================================
 * PoRep C1 (vanilla-proofs.md 1)
 * ========================================================================================== */

/** ColumnProof: the labels of node `index` in every layer and the TreeC inclusion proof of
 *  their column hash (leaf = Poseidon_layers(rows), root = comm_c). */
typedef struct vp_column_proof {
    uint32_t index;                  /* the node */
    uint32_t nrows;                  /* = layers */
    seal_node rows[SEAL_MAX_LAYERS]; /* rows[l-1] = label of `index` in layer l */
    seal_merkle_proof inclusion;     /* TreeC, path index == index */
} vp_column_proof;

/** LabelingProof / EncodingProof: the 37 parent labels hashed into label (layer_index, node). */
typedef struct vp_labeling_proof {
    seal_node parents[SEAL_LABEL_PARENTS]; /* seal_label_parents() order */
    uint32_t layer_index;                  /* 1-based layer */
    uint64_t node;                         /* the challenge */
} vp_labeling_proof;

/** stacked::Proof: everything proven about one challenge c. */
typedef struct vp_porep_proof {
    seal_merkle_proof comm_d_proof; /* TreeD (SHA-256, Single): leaf = data[c], root = comm_d */
    seal_merkle_proof comm_r_last_proof; /* TreeRLast: leaf = replica[c], root = comm_r_last */
    vp_column_proof c_x;                 /* column of c itself */
    vp_column_proof drg_parents[SEAL_DRG_DEGREE]; /* graph order, duplicates kept */
    vp_column_proof exp_parents[SEAL_EXP_DEGREE];
    uint32_t nlayers;
    vp_labeling_proof labeling[SEAL_MAX_LAYERS]; /* labeling[l-1] for layer l */
    vp_labeling_proof encoding;                  /* = labeling[nlayers-1] */
} vp_porep_proof;

/** SealCommitPhase1Output: the C1 output of one sector. */
typedef struct vp_c1 {
    seal_porep_config cfg;  /* from registered_proof */
    uint32_t partitions;    /* = cfg.partitions */
    uint32_t challenges;    /* per partition = cfg.challenges_per_partition */
    vp_porep_proof *proofs; /* partitions * challenges, partition-major (owned) */
    uint8_t comm_r[32];
    uint8_t comm_d[32];
    uint8_t replica_id[32];
    uint8_t seed[32];
    uint8_t ticket[32];
} vp_c1;

/** The proof of challenge i of partition k. */
static inline const vp_porep_proof *vp_c1_proof(const vp_c1 *c1, uint32_t k, uint32_t i)
{
    return &c1->proofs[(size_t)k * c1->challenges + i];
}

/** Frees the proof array and zeroes *c1 (a zeroed vp_c1 is accepted). */
void vp_c1_clear(vp_c1 *c1);

/** Parses the JSON of SealCommitPhase1Output (any key order, whitespace, unknown keys
 *  ignored, "_h" null or absent) and checks every count and path shape against the
 *  registered proof. CUZK_E_FORMAT names the offending field. On failure *out is zeroed. */
CZ_MUST_USE cuzk_err vp_c1_from_json(vp_c1 *out, const char *json, size_t len, cz_diag *dg);
/** Writes the JSON as filecoin-ffi does (compact, Rust field order, "_h":null). Returns an
 *  owned NUL-terminated buffer in *out (free with cz_free) and its length. The registered
 *  proof must be a published one (cfg.c1_variant != NULL). */
CZ_MUST_USE cuzk_err vp_c1_to_json(const vp_c1 *c1, char **out, size_t *len, cz_diag *dg);

/** Curio's wrapper: {"SectorNum":n,"Phase1Out":"<base64 of the C1 JSON>","SectorSize":s}.
 *  The sector size must agree with the registered proof. */
CZ_MUST_USE cuzk_err vp_c1_from_curio_json(vp_c1 *out, uint64_t *sector_num, const char *json,
                                           size_t len, cz_diag *dg);
CZ_MUST_USE cuzk_err vp_c1_to_curio_json(const vp_c1 *c1, uint64_t sector_num, char **out,
                                         size_t *len, cz_diag *dg);
/** Wraps C1 JSON text as it is (not parsed) in Curio's wrapper, as vp_c1_to_curio_json lays it
 *  out; sector_size should be the C1's. Returns an owned NUL-terminated buffer. */
CZ_MUST_USE cuzk_err vp_c1_json_to_curio(const char *c1_json, size_t len, uint64_t sector_num,
                                         uint64_t sector_size, char **out, size_t *outlen,
                                         cz_diag *dg);
/** True when the JSON is Curio's wrapper: an object with a top-level "Phase1Out" key (looked for
 *  up to the first syntax error, without building anything). */
bool vp_c1_json_is_curio(const char *json, size_t len);
/** Accepts either form (vp_c1_json_is_curio selects the wrapper). */
CZ_MUST_USE cuzk_err vp_c1_parse(vp_c1 *out, const char *json, size_t len, cz_diag *dg);

/** bincode of filecoin-proofs SealCommitPhase1Output<Tree> (no registered_proof, no variant
 *  tag): vanilla_proofs, comm_r, comm_d, replica_id, seed, ticket. The configuration is not in
 *  the bytes, so the reader takes it. */
CZ_MUST_USE cuzk_err vp_c1_to_bincode(const vp_c1 *c1, uint8_t **out, size_t *len, cz_diag *dg);
CZ_MUST_USE cuzk_err vp_c1_from_bincode(vp_c1 *out, const seal_porep_config *cfg,
                                        const uint8_t *buf, size_t len, cz_diag *dg);

/** Verifies a C1 output like rust-fil-proofs' StackedDrg::verify (vanilla-proofs.md 1.3):
 *  comm_d, comm_r, seed nonzero; challenges re-derived from (replica_id, seed, comm_r) for the
 *  configuration's kind; every Merkle path against comm_d / comm_c / comm_r_last with the
 *  challenge or parent as its index; parents from the graph; column hashes; every label
 *  recomputed; encoding replica = label + data; comm_r = Poseidon2(comm_c, comm_r_last).
 *  `ids` (may be NULL) additionally checks replica_id. CUZK_E_FORMAT names partition,
 *  challenge and field of the first failure. */
CZ_MUST_USE cuzk_err vp_c1_verify(const vp_c1 *c1, const seal_ids *ids, cz_diag *dg);
/** The same with the challenges verified in parallel over `pool` (NULL: the calling thread);
 *  the failure reported is the first in (partition, challenge) order, as sequentially. */
CZ_MUST_USE cuzk_err vp_c1_verify_pool(const vp_c1 *c1, const seal_ids *ids, cz_pool *pool,
                                       cz_diag *dg);
/** vp_c1_verify_pool of partitions [k0, k1) only (k0 <= k1 <= c1->partitions, CZ_CHECKed): the
 *  checks of the whole output (counts, commitments, seed, `ids`), then each of those
 *  partitions' comm_r and challenges; the failure reported is the first in (partition,
 *  challenge) order. */
CZ_MUST_USE cuzk_err vp_c1_verify_partitions(const vp_c1 *c1, const seal_ids *ids, uint32_t k0,
                                             uint32_t k1, cz_pool *pool, cz_diag *dg);

/** Number of PoRep public inputs per partition (without ONE): 3 + 18 * challenges. */
size_t vp_porep_num_inputs(const seal_porep_config *cfg);
/** PoRep public inputs of partition k (vanilla-proofs.md 1.7, circuits.md 5.1):
 *  [replica_id, comm_d, comm_r, per challenge c: c, drg(c)[0..6), exp(c)[0..8), c, c, c].
 *  out has vp_porep_num_inputs(cfg) elements. CUZK_E_FORMAT if a commitment is not < r. */
CZ_MUST_USE cuzk_err vp_porep_public_inputs(fr_t *out, const seal_porep_config *cfg,
                                            const uint8_t replica_id[32], const uint8_t comm_d[32],
                                            const uint8_t comm_r[32], const uint8_t seed[32],
                                            uint32_t k, cz_diag *dg);

/* ============================================================================================
 * PoSt (vanilla-proofs.md 2)
 * ========================================================================================== */

/** FallbackPoStSectorProof with its single SectorProof flattened. */
typedef struct vp_post_proof {
    uint64_t sector_id;
    uint8_t comm_r[32];
    uint8_t comm_c[32];
    uint8_t comm_r_last[32];
    size_t ninclusion;            /* challenge_count: 66 (winning) or 10 (window) */
    seal_merkle_proof *inclusion; /* TreeRLast proofs of the challenged leaves (owned) */
} vp_post_proof;

void vp_post_clear(vp_post_proof *p);

/** Decodes one FallbackPoStSectorProof; every inclusion proof must have the TreeRLast shape
 *  of `sector_size`, and vanilla_proof.sectors must hold exactly one entry. */
CZ_MUST_USE cuzk_err vp_post_from_bincode(vp_post_proof *out, uint64_t sector_size,
                                          const uint8_t *buf, size_t len, cz_diag *dg);
CZ_MUST_USE cuzk_err vp_post_to_bincode(const vp_post_proof *p, uint8_t **out, size_t *len,
                                        cz_diag *dg);

/** Verifies one sector's proof: comm_r = Poseidon2(comm_c, comm_r_last), challenge count,
 *  every path against comm_r_last with the leaf challenge of (randomness, sector_id,
 *  challenge index) as its index. `sector_index` = partition * sector_count + position (it
 *  matters for API V1_0 only). Randomness must be < r. */
CZ_MUST_USE cuzk_err vp_post_verify(const vp_post_proof *p, const seal_post_config *cfg,
                                    const uint8_t randomness[32], uint64_t sector_index,
                                    cz_diag *dg);

/** Number of PoSt public inputs of one partition (without ONE): winning 66 * 2; window
 *  sector_count * (1 + challenge_count). */
size_t vp_post_num_inputs(const seal_post_config *cfg);
/** PoSt public inputs (circuits.md 6.2) for `n` sectors of partition `partition`: per sector
 *  comm_r then its leaf challenges; winning unrolls its 66 challenges into 66 (comm_r, leaf)
 *  pairs; window pads to sector_count by repeating the last sector's block. */
CZ_MUST_USE cuzk_err vp_post_public_inputs(fr_t *out, const seal_post_config *cfg,
                                           const uint8_t randomness[32], const uint64_t *sector_ids,
                                           const seal_node *comm_rs, size_t n, uint32_t partition,
                                           cz_diag *dg);
/** The same with each sector's id and comm_r taken from its proof (proofs[0..n) in partition
 *  order). */
CZ_MUST_USE cuzk_err vp_post_public_inputs_of(fr_t *out, const seal_post_config *cfg,
                                              const uint8_t randomness[32],
                                              const vp_post_proof *proofs, size_t n,
                                              uint32_t partition, cz_diag *dg);
/** vp_post_verify of the n sector proofs of partition `partition`, in order (proof i is at
 *  sector_index partition * sector_count + i); stops at the first failure, its position in
 *  *bad (may be NULL). */
CZ_MUST_USE cuzk_err vp_post_verify_partition(const vp_post_proof *proofs, size_t n,
                                              const seal_post_config *cfg,
                                              const uint8_t randomness[32], uint32_t partition,
                                              size_t *bad, cz_diag *dg);

/* ============================================================================================
 * SnapDeals (vanilla-proofs.md 3)
 * ========================================================================================== */

typedef struct vp_snap_challenge_proof {
    seal_merkle_proof r_old; /* TreeRLast of the sector key, root = comm_r_last_old */
    seal_merkle_proof d_new; /* TreeD of the new data (SHA-256, Single), root = comm_d_new */
    seal_merkle_proof r_new; /* TreeRLast of the new replica, root = comm_r_last_new */
} vp_snap_challenge_proof;

/** PartitionProof of partition k. */
typedef struct vp_snap_proof {
    uint8_t comm_c[32];
    uint32_t napex;                             /* apex_leafs: 8 or 128 */
    seal_node apex_leafs[SEAL_UPDATE_MAX_APEX]; /* TreeD_new row of the apex tree */
    size_t nchallenges;                         /* 10 or 86 */
    vp_snap_challenge_proof *challenges;        /* owned */
} vp_snap_proof;

void vp_snap_clear(vp_snap_proof *p);

CZ_MUST_USE cuzk_err vp_snap_from_bincode(vp_snap_proof *out, uint64_t sector_size,
                                          const uint8_t *buf, size_t len, cz_diag *dg);
CZ_MUST_USE cuzk_err vp_snap_to_bincode(const vp_snap_proof *p, uint8_t **out, size_t *len,
                                        cz_diag *dg);

/** storage-proofs-update vanilla verify of partition k (sealing.md 7.3). */
CZ_MUST_USE cuzk_err vp_snap_verify(const vp_snap_proof *p, const seal_update_config *cfg,
                                    uint32_t k, const uint8_t comm_r_old[32],
                                    const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
                                    cz_diag *dg);

/** Number of SnapDeals public inputs per partition (without ONE). */
#define VP_SNAP_NUM_INPUTS 4

/** The 4 public inputs of partition k: [k | h_select << partition_bits, comm_r_old,
 *  comm_d_new, comm_r_new]. */
CZ_MUST_USE cuzk_err vp_snap_public_inputs(fr_t out[VP_SNAP_NUM_INPUTS],
                                           const seal_update_config *cfg, uint32_t k,
                                           const uint8_t comm_r_old[32],
                                           const uint8_t comm_d_new[32],
                                           const uint8_t comm_r_new[32], cz_diag *dg);

/** Curio's snap-vproof.json: a JSON array of base64 strings, one bincode PartitionProof each. */
CZ_MUST_USE cuzk_err vp_snap_list_to_json(const vp_snap_proof *parts, size_t n, char **out,
                                          size_t *len, cz_diag *dg);
/** Parses that array into `n` partition proofs (*out owned: free each with vp_snap_clear, then
 *  the array with cz_free). */
CZ_MUST_USE cuzk_err vp_snap_list_from_json(vp_snap_proof **out, size_t *n, uint64_t sector_size,
                                            const char *json, size_t len, cz_diag *dg);

/* ============================================================================================
 * Vanilla-proof files: several bincode proofs in one file (files.c)
 * ========================================================================================== */

/** Owned byte strings, e.g. the bincode proofs of one file. A zeroed vp_blobs is empty. */
typedef struct vp_blobs {
    size_t n;
    uint8_t **data; /* n buffers, each cz_malloc'ed */
    size_t *len;
} vp_blobs;

/** Frees every buffer and zeroes *b. */
void vp_blobs_clear(vp_blobs *b);
/** Appends `data` of `len` bytes; takes it (freed here on failure too). */
CZ_MUST_USE cuzk_err vp_blobs_push(vp_blobs *b, uint8_t *data, size_t len, cz_diag *dg);

/** The layout of Curio's snap-vproof.json for any byte strings: a compact JSON array of their
 *  base64 encodings (common/base64.h), ["...","..."]. Returns an owned NUL-terminated buffer. */
CZ_MUST_USE cuzk_err vp_blobs_to_json(const vp_blobs *b, char **out, size_t *len, cz_diag *dg);
/** Parses such an array (any JSON whitespace and string escapes; strict base64) and appends its
 *  entries to *out; [] appends none. CUZK_E_FORMAT names the entry and the byte: "JSON list:
 *  [1]: invalid base64: character '*' at offset 3 (at byte 17)". On failure *out is as before. */
CZ_MUST_USE cuzk_err vp_blobs_from_json(vp_blobs *out, const char *json, size_t len, cz_diag *dg);

/** A vanilla-proof file (cuzk-bench --vanilla FILE, Curio's files) holds ONE raw bincode proof
 *  (a FallbackPoStSectorProof, a SnapDeals PartitionProof) or a JSON list of base64 strings, one
 *  bincode proof each. Appends the file's proofs to *out as owned copies; *encoding (may be
 *  NULL) says which form it was: "bincode" or "base64-list". A file whose first non-blank byte
 *  is '[' is read as a list; when that fails, or the list is empty, and the file is printable
 *  text, it is CUZK_E_FORMAT "not a JSON list of base64 proofs: ..." (raw bincode is never all
 *  text); otherwise the file is one raw proof. An empty file is CUZK_E_FORMAT "empty file".
 *  On failure *out is as before. */
CZ_MUST_USE cuzk_err vp_proof_file_parse(vp_blobs *out, const char **encoding, const uint8_t *buf,
                                         size_t len, cz_diag *dg);
/** The bytes of such a file for b->n >= 1 proofs: the proof itself when there is one
 *  (*encoding = "bincode"), else the JSON list ("base64-list"). Returns owned bytes (for the
 *  list NUL-terminated, the NUL not counted). */
CZ_MUST_USE cuzk_err vp_proof_file_encode(const vp_blobs *b, uint8_t **out, size_t *len,
                                          const char **encoding, cz_diag *dg);

/* ============================================================================================
 * The request sidecar (vanilla-proofs.md 4.4; files.c)
 * ========================================================================================== */

#define VP_SIDECAR_FORMAT "cuzk-bench-vanilla/1"

/** FILE.json beside a vanilla-proof file: a flat JSON object with what a proof request needs
 *  besides the proofs and cannot read from them. cuzk-bench gen-vanilla writes it; the commands
 *  that make requests read it under their flags.
 *  Request keys: "kind", "sector_size", "registered_proof", "miner_id", "sector_number",
 *  "partition_index" (integers), "randomness", "comm_r_old", "comm_r_new", "comm_d_new" (32-byte
 *  values as 64 hex digits, byte 0 first; the reader also takes a 0x prefix).
 *  Keys for people, written and skipped when read: "format" (VP_SIDECAR_FORMAT), "vanilla",
 *  "encoding", "proofs", "seed_hex", "comm_r", and for porep "comm_d", "replica_id", "seed",
 *  "ticket". Any other key is skipped too; a request key given twice is an error.
 *  Each value is written only when set (has_*, non-NULL, non-zero). */
typedef struct vp_sidecar {
    char kind[16]; /* "porep", "snap", "window-post", "winning-post"; "" when absent */
    uint64_t sector_size, registered_proof, miner_id, sector_number;
    uint32_t partition_index;
    uint8_t randomness[32], comm_r_old[32], comm_r_new[32], comm_d_new[32];
    bool has_sector_size, has_registered_proof, has_miner_id, has_sector_number;
    bool has_partition_index, has_randomness, has_comm_r_old, has_comm_r_new, has_comm_d_new;
    /* for people only */
    const char *vanilla, *encoding, *seed_hex; /* borrowed */
    size_t proofs;
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    bool has_comm_r, has_c1_values; /* c1 values: comm_d, replica_id, seed, ticket */
} vp_sidecar;

/** Writes the object, one key a line, in the order listed above. Returns an owned
 *  NUL-terminated buffer. */
CZ_MUST_USE cuzk_err vp_sidecar_to_json(const vp_sidecar *sc, char **out, size_t *len, cz_diag *dg);
/** Reads the request keys (the pointers for people stay NULL). CUZK_E_FORMAT names the key:
 *  "sidecar: miner_id: expected a non-negative integer, found a string (at byte 40)". On
 *  failure *out is zeroed. */
CZ_MUST_USE cuzk_err vp_sidecar_from_json(vp_sidecar *out, const char *json, size_t len,
                                          cz_diag *dg);

/* ============================================================================================
 * Generation from sealed sectors (seal/)
 * ========================================================================================== */

/** C1 for seed `seed`: challenges of every partition, their proofs, then vp_c1_verify (the
 *  reference refuses to emit an invalid C1; so do we). A synthetic sector must have every
 *  challenge materialised (CUZK_E_INVAL otherwise). */
CZ_MUST_USE cuzk_err vp_gen_porep_c1(vp_c1 *out, const seal_sector *s, const uint8_t seed[32],
                                     cz_pool *pool, cz_diag *dg);

/** The PoSt vanilla proof of sector `s` at position `sector_index` (see vp_post_verify),
 *  verified before it is returned. */
CZ_MUST_USE cuzk_err vp_gen_post(vp_post_proof *out, const seal_sector *s,
                                 const seal_post_config *cfg, const uint8_t randomness[32],
                                 uint64_t sector_index, cz_diag *dg);

/** The SnapDeals partition proof k of an encoded update, verified before it is returned. */
CZ_MUST_USE cuzk_err vp_gen_snap(vp_snap_proof *out, const seal_update *u, uint32_t k, cz_diag *dg);

/* ---- one-call helpers for `cuzk-bench gen-vanilla` / `check-vanilla` ------------------- */

/** What the PoRep generator does. */
typedef struct vp_gen_porep_opts {
    uint32_t registered_proof; /* abi RegisteredSealProof */
    seal_ids ids;
    uint8_t seed[32];
    const seal_node *data; /* nodes padded nodes, or NULL: all zero (CC) */
    const char *workdir;   /* NULL: in memory only; else the sector cache (seal.h):
                                      loaded if it holds a sector, written otherwise */
    bool synthetic;        /* materialise only the challenged columns (interactive
                                      PoRep only; data must be NULL): 32 GiB in seconds */
    bool curio_wrapper;    /* write Curio's wrapper instead of the bare C1 JSON */
    uint64_t sector_num;   /* SectorNum of the wrapper */
} vp_gen_porep_opts;

/** Seals (or loads), generates and verifies the C1 output and writes it to `out_path`. */
CZ_MUST_USE cuzk_err vp_gen_porep_c1_file(const vp_gen_porep_opts *opts, const char *out_path,
                                          cz_pool *pool, cz_diag *dg);

/** Loads the sector in `workdir` and writes its bincode PoSt vanilla proof for the Go abi
 *  RegisteredPoStProof `post_proof` (the sector is the first of partition 0). */
CZ_MUST_USE cuzk_err vp_gen_post_file(const char *workdir, uint32_t post_proof,
                                      const uint8_t randomness[32], const char *out_path,
                                      cz_diag *dg);

/** Loads the sector in `workdir`, encodes `data` (or all-zero data) as a SnapDeals update of
 *  abi RegisteredUpdateProof `update_proof`, writes Curio's snap-vproof.json to `out_path`
 *  and returns the three commitments the prover needs. */
CZ_MUST_USE cuzk_err vp_gen_snap_file(const char *workdir, uint32_t update_proof,
                                      const seal_node *data, const char *out_path,
                                      uint8_t comm_r_old[32], uint8_t comm_d_new[32],
                                      uint8_t comm_r_new[32], cz_pool *pool, cz_diag *dg);

/** Reads a C1 file (bare or wrapped JSON) and verifies it. `ids` may be NULL. */
CZ_MUST_USE cuzk_err vp_check_c1_file(const char *path, const seal_ids *ids, cz_diag *dg);

/** Reads a whole file into an owned NUL-terminated buffer. */
CZ_MUST_USE cuzk_err vp_read_file(const char *path, char **out, size_t *len, cz_diag *dg);

#endif /* CUZK_PROOFS_PROOFS_H */
