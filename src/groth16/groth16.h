/* groth16.h - Groth16 over BLS12-381, bit-compatible with bellperson and Filecoin
 * (spec groth16.md): parameter files (.params, .vk; section 3), proofs (192 bytes; 2.5), the
 * prover (4.2-4.10), the verifier and batch verifier (4.9) and a parameter generator for our
 * own test parameters (7). circom / snarkjs interoperability lives in groth16/circom.h.
 *
 * Representation: points are affine in Montgomery form (curve/g1.h, g2.h; identity = all-zero
 * coordinates); assignments are Montgomery fr_t (r1cs/r1cs.h). Files and proofs are canonical
 * big-endian encodings exactly as bellperson writes them.
 * Memory: parameter vectors live in one mmap-backed buffer (cz_buf) owned by g16_params_t; the
 * prover's work space (a, b, c grown to the domain size n: copies, or the assignment's own
 * vectors with g16_prove_take; the n/2 twiddles; one MSM scratch) lives only during the call.
 * The MSMs read the assignment and its density bits in place (no compacted scalar copies).
 * The GPU prover (g16_gpu_params) keeps the parameters in device memory across proofs; its work
 * buffers on the device and in pinned host memory are allocated once with them.
 * Threads: every function is reentrant; loaded parameters and verifying keys are read-only and
 * may be shared by threads. Work is split over `pool` when non-NULL, with results identical to
 * the single-threaded ones. A g16_gpu_params (and its device) serves one thread at a time.
 * Timing: variable-time, except that r, s and the toxic waste are wiped after use (they are not
 * protected against timing side channels: the prover's scalar multiplications by r and s are
 * variable-time, as in bellperson).
 */
#ifndef CUZK_GROTH16_GROTH16_H
#define CUZK_GROTH16_GROTH16_H

#include "common/alloc.h"
#include "common/common.h"
#include "common/pool.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "msm/msm.h"
#include <stdatomic.h>

#include "r1cs/r1cs.h"

/* ---------------------------------------------------------------------------------------------
 * Verifying key and parameters (spec 3.1, 3.2)
 * ------------------------------------------------------------------------------------------- */

/** Size of the fixed part of a .vk file (six points and the ic count); the file is then
 *  G16_VK_FIXED_NBYTES + 96 * ic_len bytes. */
#define G16_VK_FIXED_NBYTES 868

/** A verifying key. ic[0 .. ic_len) are the input points, ONE first. Read-only once loaded. */
typedef struct g16_vk {
    g1_aff_t alpha_g1, beta_g1;
    g2_aff_t beta_g2, gamma_g2;
    g1_aff_t delta_g1;
    g2_aff_t delta_g2;
    size_t ic_len;
    g1_aff_t *ic; /* owned by the g16_vk_t or by the g16_params_t holding it */
} g16_vk_t;

/** Proving parameters: the VK and the five vectors of spec 3.2 (none holds the identity).
 *  Read the fields freely; never modify them. `store` is private. */
typedef struct g16_params {
    g16_vk_t vk;
    size_t h_len;    /* n - 1 */
    size_t l_len;    /* num_aux */
    size_t a_len;    /* num_inputs + popcount(a_aux_density) */
    size_t b_g1_len; /* popcount(b_input_density) + popcount(b_aux_density) */
    size_t b_g2_len; /* == b_g1_len */
    g1_aff_t *h, *l, *a, *b_g1;
    g2_aff_t *b_g2;
    cz_buf store;     /* private: one buffer holding the five vectors */
    g1_aff_t *ic_own; /* private: vk.ic's own allocation (stays when the vectors are dropped) */
    bool dropped;     /* private: g16_params_drop_points, until g16_params_restore_points */
    unsigned pins;    /* private: streamed GPU objects sharing the page-locking of `store` */
} g16_params_t;

/** How much of a parameter file to check. The VK is always fully checked (on curve and in the
 *  subgroup, spec 3.1); the five vectors are checked on curve only unless check_subgroup (what
 *  Filecoin production does, spec 3.3). Identity points are rejected in every vector. */
typedef struct g16_load_opts {
    bool check_subgroup;
    /* The input is a read-only file mapping (g16_params_from_bytes): drop its pages from the
     * process (madvise DONTNEED; they stay in the page cache) block by block as they are
     * decoded, so that a load never holds the whole file and its decoded copy at once. */
    bool release_input;
    /* Read the VK, ic and the counts only: the parameters come back as after
     * g16_params_drop_points, their points left in the file for g16_params_restore_points or
     * for g16_gpu_params_new with opts.file (which decodes them into device memory), so that
     * the host never holds a decoded copy. The counts and the VK are checked as in a full load;
     * the points are checked when they are decoded. */
    bool skip_points;
} g16_load_opts_t;

/** Loads a .params file: maps it, checks every count against the file size (an error names
 *  the truncated or inconsistent section: "vk", "ic", "h", "l", "a", "b_g1", "b_g2"; trailing
 *  bytes are rejected too), then decodes all points in parallel into memory and unmaps the file.
 *  Out: out   returns owned (free with g16_params_free); NULL on error.
 *  In:  path  file name (borrowed).  opts  NULL means {check_subgroup = false}.
 *  Errors: CUZK_E_IO (open/map), CUZK_E_FORMAT (sizes, flags, non-canonical coordinates),
 *  CUZK_E_NOT_IN_GROUP (off curve, outside the subgroup, identity), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_params_load(g16_params_t **out, const char *path,
                                     const g16_load_opts_t *opts, cz_pool *pool, cz_diag *dg);

/** Same as g16_params_load over `len` bytes in memory (borrowed only during the call). */
CZ_MUST_USE cuzk_err g16_params_from_bytes(g16_params_t **out, const uint8_t *buf, size_t len,
                                           const g16_load_opts_t *opts, cz_pool *pool, cz_diag *dg);

/** Frees parameters (and their VK); NULL does nothing. */
void g16_params_free(g16_params_t *p);

/** Frees the five point vectors of `p`, nearly all of its memory, keeping the VK (ic, which a
 *  prepared VK points at, stays where it is) and the counts: all that a device proof reads once the points are
 *  resident on the device (g16_gpu_params_new). Until g16_params_restore_points, the vectors
 *  are NULL, and g16_prove_ex / g16_prove_take without opts.gpu, g16_gpu_params_new and
 *  g16_params_write refuse `p` (CUZK_E_INVAL). Nothing else may read the points meanwhile
 *  (the caller's synchronisation). Dropped already: nothing happens. */
void g16_params_drop_points(g16_params_t *p);

/** Decodes the five vectors again from `buf` (the same .params file, e.g. its mapping; len
 *  bytes; opts as g16_params_from_bytes) into dropped parameters. The file must hold the same
 *  parameters: the same counts and VK bytes (CUZK_E_FORMAT "changed" otherwise), and the
 *  points are checked as a load checks them. Has points already: OK without reading buf.
 *  Errors: as g16_params_from_bytes; on error p stays dropped. */
CZ_MUST_USE cuzk_err g16_params_restore_points(g16_params_t *p, const uint8_t *buf, size_t len,
                                               const g16_load_opts_t *opts, cz_pool *pool,
                                               cz_diag *dg);

/** False between g16_params_drop_points and g16_params_restore_points. */
bool g16_params_has_points(const g16_params_t *p);

/** Bytes of the .params encoding of `p` (spec 3.2 total). */
size_t g16_params_nbytes(const g16_params_t *p);

/** Writes `p` to `path` in the .params format (points uncompressed; encoded in parallel).
 *  Errors: CUZK_E_IO, CUZK_E_NOMEM. A partially written file is removed. */
CZ_MUST_USE cuzk_err g16_params_write(const g16_params_t *p, const char *path, cz_pool *pool,
                                      cz_diag *dg);

/** The shape a circuit imposes on its parameters (spec 3.2 "validate against the circuit"). */
typedef struct g16_shape {
    size_t num_inputs; /* ONE included */
    size_t num_aux;
    size_t m; /* constraints including the num_inputs input constraints */
    size_t a_aux_popcount, b_input_popcount, b_aux_popcount;
} g16_shape_t;

/** The shape of a prover assignment. */
void g16_shape_of_assignment(g16_shape_t *out, const cs_assignment_t *asg);

/** The scalars each MSM of a proof sees (spec 4.6), counted by value: L the aux, A the
 *  inputs and the aux in A's density, B (G1 and G2 alike) the inputs and aux in B's densities.
 *  Zeros and ones cost an MSM nothing and one addition each; the others are full terms. */
typedef enum { G16_Q_L, G16_Q_A, G16_Q_B, G16_Q_COUNT } g16_query;
typedef struct g16_query_stats {
    size_t n[G16_Q_COUNT], zeros[G16_Q_COUNT], ones[G16_Q_COUNT];
} g16_query_stats_t;

/** Counts the scalars of `asg` (inputs, aux and the three densities) per query. */
void g16_query_stats(g16_query_stats_t *out, const cs_assignment_t *asg);

/** The shape of recorded matrices (densities = columns present in A, resp. B). Fails with
 *  CUZK_E_NOMEM only. */
CZ_MUST_USE cuzk_err g16_shape_of_r1cs(g16_shape_t *out, const cs_r1cs_t *r1cs, cz_diag *dg);

/** Checks h_len == n - 1 (n = next power of two >= m), l_len == num_aux, a_len == num_inputs +
 *  a_aux_popcount, b_g1_len == b_g2_len == b_input_popcount + b_aux_popcount, ic_len ==
 *  num_inputs. CUZK_E_INVAL naming the first mismatch. */
CZ_MUST_USE cuzk_err g16_params_check_shape(const g16_params_t *p, const g16_shape_t *shape,
                                            cz_diag *dg);

/** g16_params_check_shape with the shape of a prover assignment. */
CZ_MUST_USE cuzk_err g16_params_check_circuit(const g16_params_t *p, const cs_assignment_t *asg,
                                              cz_diag *dg);

/** Loads a .vk file (spec 3.1): exact size 868 + 96 * ic_len, every point on curve and in the
 *  subgroup, ic points not the identity, ic_len >= 1.
 *  Out: out  returns owned (free with g16_vk_free).
 *  Errors: CUZK_E_IO, CUZK_E_FORMAT, CUZK_E_NOT_IN_GROUP, CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_vk_load(g16_vk_t **out, const char *path, cz_diag *dg);

/** Same as g16_vk_load over `len` bytes in memory (borrowed). */
CZ_MUST_USE cuzk_err g16_vk_from_bytes(g16_vk_t **out, const uint8_t *buf, size_t len, cz_diag *dg);

/** Frees a VK returned by g16_vk_load / g16_vk_from_bytes / g16_vk_dup; NULL does nothing.
 *  Never pass the `vk` member of a g16_params_t. */
void g16_vk_free(g16_vk_t *vk);

/** A heap copy of `vk` (e.g. the VK of parameters that are about to be freed). */
CZ_MUST_USE cuzk_err g16_vk_dup(g16_vk_t **out, const g16_vk_t *vk, cz_diag *dg);

/** Bytes of the .vk encoding: 868 + 96 * ic_len. */
size_t g16_vk_nbytes(const g16_vk_t *vk);

/** Writes the .vk encoding into out (g16_vk_nbytes(vk) bytes). */
void g16_vk_to_bytes(uint8_t *out, const g16_vk_t *vk);

/** True iff a and b are the same verifying key (every point and the ic count). */
bool g16_vk_eq(const g16_vk_t *a, const g16_vk_t *b);

/** Writes the .vk file. Errors: CUZK_E_IO, CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_vk_write(const g16_vk_t *vk, const char *path, cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Proofs (spec 2.5)
 * ------------------------------------------------------------------------------------------- */

#define G16_PROOF_NBYTES 192

typedef struct g16_proof {
    g1_aff_t a;
    g2_aff_t b;
    g1_aff_t c;
} g16_proof_t;

/** A (G1 compressed) || B (G2 compressed) || C (G1 compressed). */
void g16_proof_to_bytes(uint8_t out[G16_PROOF_NBYTES], const g16_proof_t *proof);

/** Decodes one proof: canonical coordinates, on curve, in the subgroup, no identity.
 *  Errors: CUZK_E_FORMAT, CUZK_E_NOT_IN_GROUP (dg names the part: A, B or C). */
CZ_MUST_USE cuzk_err g16_proof_from_bytes(g16_proof_t *out, const uint8_t in[G16_PROOF_NBYTES],
                                          cz_diag *dg);

/** Decodes a concatenation of proofs (a multi-partition proof): len must be a non-zero
 *  multiple of 192 and len / 192 <= cap. *n receives the number of proofs.
 *  Errors: CUZK_E_FORMAT (length; a bad proof is named by its index), CUZK_E_NOT_IN_GROUP. */
CZ_MUST_USE cuzk_err g16_proofs_from_bytes(g16_proof_t *out, size_t cap, size_t *n,
                                           const uint8_t *in, size_t len, cz_diag *dg);

/** Encodes n proofs back to back (n * 192 bytes). */
void g16_proofs_to_bytes(uint8_t *out, const g16_proof_t *proofs, size_t n);

/* ---------------------------------------------------------------------------------------------
 * Prover (spec 4.2-4.10)
 * ------------------------------------------------------------------------------------------- */

/** Parameters resident in device memory for the GPU prover (g16_gpu_params_new below). */
typedef struct g16_gpu_params g16_gpu_params;
/** A recorded circuit shape resident beside them (g16_gpu_shape_new below). */
typedef struct g16_gpu_shape g16_gpu_shape;
/** The classes of one assignment's streamed scalars, built ahead (g16_classes_new below). */
typedef struct g16_classes g16_classes;

/** Backend choice and tuning that never change the proof bytes (spec 4.7: the proof is a
 *  function of params, assignment, r and s only). */
typedef struct g16_prove_opts {
    msm_opts msm; /* passed to every CPU MSM (window, accumulation); zeroed = automatic */
    /* Stage observer (timing; NULL = off, which costs nothing). Called on the proving thread
     * at the end of each stage with its name and its start and end on CLOCK_MONOTONIC in
     * milliseconds. Stages, in order: "prep" (a, b, c copied and padded, work space), then
     * "quotient" (spec 4.5: three iNTTs, three coset NTTs, one coset iNTT, fused in
     * poly_quotient_h), "prep" again (MSM scratch), "msm_h", "msm_l", "msm_a", "msm_b_g1",
     * "msm_b_g2" and "assemble": the same boundaries as g16_prove_stats_t. Must not block.
     * On the GPU the names and order are the same: "prep" uploads a, b, c through pinned
     * memory, builds the density maps and starts uploading the inputs and aux, whose transfer
     * overlaps the device's "quotient"; the second "prep" finishes that upload; each MSM
     * stage includes its density compaction on the device; "assemble" runs on the CPU. */
    void (*on_stage)(void *ctx, const char *stage, double t0_ms, double t1_ms);
    void *on_stage_ctx;
    /* NULL: prove on the CPU. Otherwise prove on its device with the parameters it holds,
     * which must be those passed to the prover (contract); `msm` is then ignored. Used by one
     * thread at a time. */
    g16_gpu_params *gpu;
    /* With `gpu`: NULL, or the circuit's recorded shape made resident for `gpu`
     * (g16_gpu_shape_new). The assignment then holds inputs, aux, m and the densities only
     * (r1cs.h cs_shape_assign; a, b, c NULL) and a, b, c are computed on the device from
     * [inputs | aux] after it is uploaded, in a stage named "products" between "prep" and
     * "quotient": they never exist in host memory. */
    const g16_gpu_shape *gpu_shape;
    /* NULL, or a flag another thread may set: the prover looks at it between stages (after
     * the quotient and between the MSMs) and returns CUZK_E_CANCELLED once it is true, so a
     * cancelled or shut-down job stops within one stage instead of finishing the proof. */
    const atomic_bool *cancel;
    /* With `gpu`: g16_gpu_stage_take(gpu, asg) returned true just before this proof and the
     * assignment has not changed since: "prep" uploads only the density maps (and a, b, c
     * without a shape). Ignored (the proof uploads it) when the take was for other vectors. */
    bool gpu_staged;
    /* g16_prove_group only (NULL: off). group_front is called on the proving thread once proof
     * j's front and resident MSMs are done, with the host bytes the group keeps for it (the
     * classes of its streamed scalars): the group no longer reads asg[j], so the caller may
     * release its vectors (the struct itself stays borrowed). group_more is asked for more
     * proofs whenever every proof given has had its front and the group has room: it may append
     * up to cap - have proofs at asg[have ..], r[have ..] and s[have ..] (the caller's arrays,
     * which then have room for the object's share_max, as out and stats do) and returns how
     * many it appended; 0 ends the gathering and the group goes on to its passes. Both get
     * group_ctx. */
    void (*group_front)(void *ctx, size_t j, uint64_t kept_bytes);
    size_t (*group_more)(void *ctx, size_t have, size_t cap);
    void *group_ctx;
    /* g16_prove_group only: NULL, or per proof (an array beside asg, with room for share_max)
     * the classes of its assignment built ahead (g16_classes_new), or NULL to build them at
     * the front. The group takes the vectors of those it uses (g16_classes_bytes is then 0);
     * the caller still frees them. */
    g16_classes *const *group_classes;
} g16_prove_opts_t;

/** Wall-clock milliseconds of each prover stage (g16_prove_ex / g16_prove_take). */
typedef struct g16_prove_stats {
    double prep_ms;     /* length checks, copies of a, b, c, work-space allocation */
    double quotient_ms; /* spec 4.5: three iNTTs, three coset NTTs, one coset iNTT */
    double msm_h_ms, msm_l_ms, msm_a_ms, msm_b_g1_ms, msm_b_g2_ms;
    double assemble_ms; /* spec 4.7 sums, r/s multiplications, affine conversion */
    double total_ms;
    uint64_t h2d_bytes; /* device proofs: the device's host-to-device bytes during the proof
                           (gpu_dev_h2d_bytes; a staging beside it counts too) */
} g16_prove_stats_t;

/** One proof from a prover assignment with the given randomizers (spec 4.10).
 *  Out: out     the proof (A, B, C affine).
 *  In:  p       parameters (borrowed); must fit the assignment (g16_params_check_circuit).
 *       asg     the prover backend's assignment after cs_finish, input constraints included
 *               (borrowed; not modified).
 *       r, s    the randomizers (borrowed; copies made here are wiped).
 *       pool    worker pool or NULL.
 *  Deterministic: the same inputs give the same proof whatever the pool or MSM window.
 *  Errors: CUZK_E_INVAL (parameters do not fit; dg says which length), CUZK_E_UNSAT (the
 *  quotient's top coefficient is not zero: a, b, c do not satisfy the constraints; this
 *  catches almost every unsatisfied witness but is not a full check), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_prove(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *asg,
                               const fr_t *r, const fr_t *s, cz_pool *pool, cz_diag *dg);

/** g16_prove with tuning (opts NULL = defaults) and per-stage timings (stats may be NULL).
 *  With opts->gpu the proof is computed on that device (same bytes as on the CPU); additional
 *  errors then: CUZK_E_GPU (the runtime failed; dg has the call), CUZK_E_NOMEM (device
 *  scratch). */
CZ_MUST_USE cuzk_err g16_prove_ex(const g16_params_t *p, g16_proof_t *out,
                                  const cs_assignment_t *asg, const fr_t *r, const fr_t *s,
                                  const g16_prove_opts_t *opts, g16_prove_stats_t *stats,
                                  cz_pool *pool, cz_diag *dg);

/** g16_prove_ex that TAKES asg->a, asg->b and asg->c (freed, and set to NULL, whether it
 *  succeeds or not) instead of copying them: they grow to the domain size in place and are
 *  released as soon as the quotient no longer needs them, saving 3 n field elements of peak
 *  memory (on the GPU: each is freed as soon as it is staged for upload). The rest of `asg` is
 *  borrowed. Same results and errors as g16_prove_ex. */
CZ_MUST_USE cuzk_err g16_prove_take(const g16_params_t *p, g16_proof_t *out, cs_assignment_t *asg,
                                    const fr_t *r, const fr_t *s, const g16_prove_opts_t *opts,
                                    g16_prove_stats_t *stats, cz_pool *pool, cz_diag *dg);

/** count proofs of the same circuit on one device together (opts->gpu set, made with share_max
 *  >= count, or count 1): the fronts (products, quotient) and the MSMs of the resident sections
 *  run proof after proof (opts->group_more may add proofs as the fronts go), then each streamed
 *  section is streamed once for all of them (h once per kept_h proofs: g16_gpu_opts_t), so its
 *  points cross the bus once per group instead of once per proof. out[j] is exactly what
 *  g16_prove_ex gives for asg[j], r[j], s[j] (the CPU's bytes). opts is shared (gpu_staged is
 *  ignored: every assignment is uploaded); stats (may be NULL) gets count entries, the group's host-to-device bytes split
 *  evenly. The host keeps, per proof, the streamed sections' scalars in the object's pinned area
 *  (g16_gpu_opts_t.share_max). Any error fails the whole group (prove them one by one to find
 *  which proof it was). Errors: those of g16_prove_ex, CUZK_E_INVAL for count 0 or over the
 *  object's share_max. */
CZ_MUST_USE cuzk_err g16_prove_group(const g16_params_t *p, g16_proof_t *out,
                                     const cs_assignment_t *const *asg, const fr_t *r,
                                     const fr_t *s, size_t count, const g16_prove_opts_t *opts,
                                     g16_prove_stats_t *stats, cz_pool *pool, cz_diag *dg);

/** g16_prove with fresh r, s from the OS CSPRNG (g16_fr_random), wiped afterwards.
 *  Additional error: CUZK_E_IO when the kernel refuses randomness. */
CZ_MUST_USE cuzk_err g16_prove_random(const g16_params_t *p, g16_proof_t *out,
                                      const cs_assignment_t *asg, cz_pool *pool, cz_diag *dg);

/** A uniform element of Fr from cz_rand_bytes: 32 random bytes with the top bit cleared,
 *  rejected and redrawn while >= r (spec 2.1). The random bytes are wiped.
 *  Errors: CUZK_E_IO. */
CZ_MUST_USE cuzk_err g16_fr_random(fr_t *out, cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * GPU prover (spec 4.5-4.7 on a device through gpu/gpu.h)
 *
 * Linking: these functions live in cuzk_groth16_gpu (over the CUDA backend, or over its stub
 * without CUDA, where g16_gpu_params_new returns CUZK_E_NO_GPU); g16_prove_ex reaches the
 * device through the object, so code that only proves on the CPU does not link it.
 * ------------------------------------------------------------------------------------------- */

struct gpu_dev;

/** Most slots of the pinned staging ring. */
#define G16_GPU_MAX_SLOTS 8

/** Staging of host data on its way to the device; zeroed or NULL = defaults. Every upload (the
 *  parameters once, a, b, c, inputs and aux per proof) is copied over the pool into a ring of
 *  pinned slots while the device pulls the previous ones. Never changes a proof. */
typedef struct g16_gpu_opts {
    size_t stage_bytes;   /* bytes per slot, 1024 .. 2^32, rounded up to 256; 0 = 32 MiB,
                             or less when the circuit's largest Fr vector is smaller */
    unsigned stage_slots; /* 2 .. G16_GPU_MAX_SLOTS; 0 = 4 */
    /* The .params file of p (e.g. its mapping; borrowed during g16_gpu_params_new), read when
     * p's points were dropped or never decoded (g16_load_opts_t.skip_points): each slot of
     * points is decoded from it, with a load's checks, straight into the pinned staging, so
     * the host never holds the decoded vectors. It must hold p's parameters (same counts and
     * VK bytes). release_file: drop the pages read from the process as a load does. */
    const uint8_t *file;
    size_t file_len;
    bool release_file;
    /* With `file`: read the points' bytes with pread(file_fd) (the same file) into a host
     * scratch slot instead of touching the mapping, which is several times faster where page
     * faults are slow (virtual machines); `file` still serves the checks of the layout. */
    bool file_pread;
    int file_fd;
    /* Also allocate a spare [inputs | aux] buffer on the device and a staging ring of its own
     * (num_inputs + l_len values, slots x slot bytes pinned) for g16_gpu_stage, when there is
     * memory for them (without, the object is made as if not asked; g16_gpu_stage then says
     * so). */
    bool spare_assignment;
    /* Sections streamed instead of resident (bit 1 << k for h, l, a, b_g1, b_g2 = k 0 .. 4;
     * G16_GPU_STREAM_ALL for all five): their bases take no device memory of their own; each
     * proof uploads their points from p's host points, chunk by chunk through two device
     * buffers of stream_bytes (0 = G16_GPU_STREAM_BYTES_DEFAULT, or the largest streamed
     * section when smaller; at least one G2 point; rounded up to 256), the upload of a chunk
     * overlapping the MSM of the one before. Needs p's points (not dropped or skipped); p's
     * point buffer is page-locked while such objects exist (shared by all of them; when it
     * cannot be, the chunks go through the staging ring, slower with the same result). */
    unsigned stream_sections;
    size_t stream_bytes;
    /* Two n-value device buffers instead of a, b, c and the assignment (about half the work
     * memory: 64 n bytes against 96 n + 32 (num_inputs + l_len)): the quotient in two steps
     * with c uploaded into b's buffer between them (gpu_quotient_ab_buf / _finish_buf), then
     * [inputs | aux] into b's buffer, the compacted scalars into a's after msm_h. Needs
     * num_inputs + l_len and the compacted scalars to fit n values, n >= 8 (CUZK_E_INVAL
     * otherwise); no device shape (a, b, c come from the host) unless lean_own_z, no spare
     * assignment. */
    bool lean_buffers;
    /* With lean_buffers: [inputs | aux] in a buffer of its own, a third, so that a device
     * shape (g16_gpu_shape_new) computes a, b, c from it on the device, a and b before the
     * quotient's first step, c between its two; the compacted scalars then go into b's buffer.
     * num_inputs + l_len may then exceed n. */
    bool lean_own_z;
    /* With streamed sections: up to share_max (2 .. G16_GPU_MAX_SHARE; 0 or 1: off) proofs of
     * g16_prove_group share each pass over the streamed points. Costs g16_gpu_share_bytes of
     * device memory and, in pinned host memory, share_max x 32 x h_len bytes (when h is
     * streamed) for the h kept between a proof's MSMs and the group's passes; the L, A and B
     * scalars are kept as classes (gpu.h gpu_fr_classes: zeros and ones as bits) in ordinary
     * host memory, about 0.2 GB for a 32 GiB PoRep partition, while the group is proved. */
    unsigned share_max;
    /* With share_max > 1 and h streamed: how many proofs' h the pinned area keeps (1 ..
     * share_max; 0 = share_max). A group runs a pass over h's points for every kept_h fronts
     * and its L, A and B passes once for all its proofs: the kept h (32 x h_len bytes a proof)
     * is most of a group's host memory, the L, A and B classes little, so a group of share_max
     * with kept_h smaller moves the L, A and B points once for share_max proofs and h's once
     * for kept_h. */
    unsigned kept_h;
} g16_gpu_opts_t;

#define G16_GPU_MAX_SHARE 16

/** Device bytes of the shared passes' buffers for share_max proofs and chunks of chunk_bytes:
 *  two scalar chunks per proof (a chunk's dense scalars or its classes; a chunk's MSM reads
 *  the classes as they are); 0 when share_max < 2. */
size_t g16_gpu_share_bytes(unsigned share_max, size_t chunk_bytes);

#define G16_GPU_STREAM_ALL           0x1fu
#define G16_GPU_STREAM_BYTES_DEFAULT ((size_t)256 << 20)

/** Makes `p` resident on `dev`: its five vectors become MSM bases in device memory (h, l, a, b_g1
 *  in G1, b_g2 in G2: about 96 (h_len + l_len + a_len + b_g1_len) + 192 b_g2_len bytes), and
 *  everything a proof needs is allocated once: on the device a, b, c (3 n values), the
 *  assignment [inputs | aux] (num_inputs + l_len values), the compacted A / B scalars when they
 *  do not fit in b's buffer, two density maps; in pinned host memory the staging ring and the
 *  maps. Reused by every proof with opts.gpu set to the result.
 *  Out: out   returns owned (free with g16_gpu_params_free, before closing dev).
 *  In:  p     parameters (retained: alive and unchanged until the free).
 *       dev   an opened device (retained; used by one thread at a time, proofs included,
 *             but for g16_gpu_stage).
 *       opts  staging (NULL = defaults).
 *       pool  copies into pinned memory (NULL: the calling thread).
 *  Errors: CUZK_E_NO_GPU (no CUDA or no device), CUZK_E_INVAL (opts out of range; h_len + 1 not
 *  a power of two, a_len < ic_len or b_g1_len != b_g2_len; a vector of 2^31 points or more;
 *  p's points dropped and no opts.file), CUZK_E_NOMEM (device or pinned memory; dg names the
 *  part), CUZK_E_GPU; from opts.file: CUZK_E_FORMAT (not p's file, a malformed point),
 *  CUZK_E_NOT_IN_GROUP (a point off the curve or the identity). */
CZ_MUST_USE cuzk_err g16_gpu_params_new(g16_gpu_params **out, const g16_params_t *p,
                                        struct gpu_dev *dev, const g16_gpu_opts_t *opts,
                                        cz_pool *pool, cz_diag *dg);

/** g16_gpu_params_new for parameters loaded with skip_points (or dropped), their points decoded
 *  from the .params file at `path`, mapped for the call (opts->file is ignored; the pages read
 *  are dropped from the process). Errors: as g16_gpu_params_new, CUZK_E_IO (the file). */
CZ_MUST_USE cuzk_err g16_gpu_params_from_file(g16_gpu_params **out, const g16_params_t *p,
                                              const char *path, struct gpu_dev *dev,
                                              const g16_gpu_opts_t *opts, cz_pool *pool,
                                              cz_diag *dg);

/** Uploads the assignment [inputs | aux] of a proof to come into gp's spare buffer (made with
 *  opts.spare_assignment) through the spare's own staging ring and stream, so that the copy
 *  overlaps a proof that another thread is running on gp. One assignment is staged at a time
 *  (staging again replaces it). Threads: calls to g16_gpu_stage are made one at a time per gp
 *  and may run beside one proof on gp (the proof's thread may call g16_gpu_stage_take, which
 *  waits for a staging in progress); gp must not be freed meanwhile.
 *  In:  asg  inputs and aux are read during the call; the caller keeps them unchanged until
 *            the proof that uses them (the vectors are matched by address only).
 *  Errors: CUZK_E_INVAL (no spare buffer; inputs or aux counts not gp's), CUZK_E_GPU,
 *  CUZK_E_NO_GPU; after an error nothing is staged. */
CZ_MUST_USE cuzk_err g16_gpu_stage(g16_gpu_params *gp, const cs_assignment_t *asg, cz_pool *pool,
                                   cz_diag *dg);

/** True when gp holds a spare for g16_gpu_stage (asked for, and there was memory for it). */
bool g16_gpu_can_stage(const g16_gpu_params *gp);

/** Before the proof of asg on gp (the proving thread, between proofs): when asg is the staged
 *  assignment, the spare becomes the buffer that proof reads and the previous one the spare
 *  (free for the next g16_gpu_stage); returns true, and the next proof on gp with
 *  opts.gpu_staged uploads no inputs or aux. False: nothing staged for asg. */
bool g16_gpu_stage_take(g16_gpu_params *gp, const cs_assignment_t *asg);

/** Frees the device and pinned memory of `gp`; NULL does nothing. */
void g16_gpu_params_free(g16_gpu_params *gp);

/** Bytes of device memory `gp` holds (bases and work buffers; not the device's own scratch,
 *  which the MSMs grow to about 80 bytes per term). */
size_t g16_gpu_params_device_bytes(const g16_gpu_params *gp);

/** Bytes of pinned host memory `gp` holds (staging ring and maps). */
size_t g16_gpu_params_pinned_bytes(const g16_gpu_params *gp);
/** The pinned host bytes g16_gpu_params_new(p, opts) takes (the staging rings, the density maps
 *  and a streamed copy's kept h): what a caller charges to host memory before making the copy.
 *  Equal to the copy's g16_gpu_params_pinned_bytes, or more when the spare's ring was asked for
 *  and not had; 0 for staging options g16_gpu_params_new refuses. */
size_t g16_gpu_params_pinned_plan(const g16_params_t *p, const g16_gpu_opts_t *opts);
/** The sections gp streams (g16_gpu_opts_t.stream_sections as made; 0 = all resident), the
 *  bytes of each of its two chunk buffers (0 when none), and whether the host points it streams
 *  from are page-locked. 0 / false for NULL. */
unsigned g16_gpu_params_streamed(const g16_gpu_params *gp);
size_t g16_gpu_params_stream_bytes(const g16_gpu_params *gp);
bool g16_gpu_params_stream_pinned(const g16_gpu_params *gp);
/** The n-value-class work buffers of gp: 4 (a, b, c, [inputs | aux]), 3 (lean_buffers with
 *  lean_own_z) or 2 (lean_buffers); 0 for NULL. */
unsigned g16_gpu_params_buffers(const g16_gpu_params *gp);
/** How many proofs g16_prove_group may pass to gp at once: its share_max, at least 1 (0 for
 *  NULL). */
unsigned g16_gpu_params_share_max(const g16_gpu_params *gp);

/** The classes (gpu.h gpu_fr_classes) of the scalars a group's proof of one assignment sends
 *  instead of dense vectors: L's (aux), A's ([inputs | aux] at [every input | a_aux_density]),
 *  B's ([b_input_density | b_aux_density]) and [inputs | aux]'s. A group builds them at each
 *  proof's front; built ahead, on any thread (the engine's synthesis workers), they are passed
 *  in g16_prove_opts_t.group_classes and the front only uploads. */
/** Builds asg's classes (borrowed during the call; a vector with more than a quarter others is
 *  kept dense, as a group would). Errors: CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_classes_new(g16_classes **out, const cs_assignment_t *asg, cz_pool *pool,
                                     cz_diag *dg);
/** NULL does nothing. */
void g16_classes_free(g16_classes *c);
/** Host bytes c holds (0 once a group took its vectors). */
uint64_t g16_classes_bytes(const g16_classes *c);

/** Makes a recorded shape (borrowed during the call) resident on gp's device: its A, B and C
 *  (about 6 bytes per non-zero and 4 per row each, plus the dictionary) for proofs with
 *  opts.gpu = gp and opts.gpu_shape set to the result.
 *  Out: out   returns owned (free with g16_gpu_shape_free, before freeing gp).
 *  Errors: CUZK_E_INVAL (the shape's inputs, aux or rows do not fit gp's parameters, or a
 *  matrix gpu_spmat_new refuses), CUZK_E_NOMEM, CUZK_E_GPU, CUZK_E_NO_GPU. */
CZ_MUST_USE cuzk_err g16_gpu_shape_new(g16_gpu_shape **out, g16_gpu_params *gp,
                                       const cs_shape_t *shape, cz_diag *dg);
/** NULL does nothing. */
void g16_gpu_shape_free(g16_gpu_shape *s);
/** Bytes of device memory the shape holds. */
size_t g16_gpu_shape_device_bytes(const g16_gpu_shape *s);
/** What g16_gpu_shape_new(.., shape, ..) will hold on the device, known before it is made
 *  (one pass over the row pointers). */
size_t g16_gpu_shape_device_estimate(const cs_shape_t *shape);

/* ---------------------------------------------------------------------------------------------
 * Verifier (spec 4.9)
 * ------------------------------------------------------------------------------------------- */

/** A prepared verifying key: e(alpha, beta) and the negated gamma and delta in G2. Plain
 *  value; it points to the VK's ic (retained: keep the VK alive while the pvk is used). */
typedef struct g16_pvk {
    fp12_t alpha_beta; /* e(alpha_g1, beta_g2) */
    g2_aff_t gamma_g2, delta_g2;
    g2_aff_t neg_gamma_g2, neg_delta_g2;
    const g1_aff_t *ic;
    size_t ic_len;
} g16_pvk_t;

/** Prepares `vk` (one pairing). Retains vk->ic. */
void g16_pvk_init(g16_pvk_t *pvk, const g16_vk_t *vk);

/** Verifies one proof: acc = ic[0] + sum_i x[i] ic[i+1], accept iff
 *  e(A, B) e(acc, -gamma) e(C, -delta) == e(alpha, beta) (one multi-Miller loop).
 *  Out: valid   true iff the proof verifies.
 *  In:  x       the public inputs EXCLUDING ONE, n of them (borrowed); n + 1 must be ic_len.
 *  Errors: CUZK_E_INVAL when n + 1 != ic_len (then *valid = false). */
CZ_MUST_USE cuzk_err g16_verify(const g16_pvk_t *pvk, bool *valid, const g16_proof_t *proof,
                                const fr_t *x, size_t n, cz_diag *dg);

/** g16_verify with the input accumulator (n scalar multiplications) spread over `pool` (NULL:
 *  the calling thread). Same result. */
CZ_MUST_USE cuzk_err g16_verify_ex(const g16_pvk_t *pvk, bool *valid, const g16_proof_t *proof,
                                   const fr_t *x, size_t n, cz_pool *pool, cz_diag *dg);

/** Verifies `nproofs` proofs together with random 128-bit weights z_j from the OS CSPRNG
 *  (spec 4.9, bellperson verify_proofs_batch); fewer than 2 proofs use g16_verify.
 *  In:  x  nproofs rows of n public inputs (ONE excluded), row j for proof j (borrowed).
 *  Out: valid  true iff every proof verifies (false positives with probability ~ 2^-128).
 *  Errors: CUZK_E_INVAL (n + 1 != ic_len), CUZK_E_IO (no randomness), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_verify_batch(const g16_pvk_t *pvk, bool *valid, const g16_proof_t *proofs,
                                      size_t nproofs, const fr_t *x, size_t n, cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Parameter generation for test parameters (spec 7)
 * ------------------------------------------------------------------------------------------- */

/** Generates parameters for the recorded circuit `r1cs` (its matrices include the input-
 *  constraint rows, as the recorder backend writes them). Base points are the standard
 *  generators; alpha, beta, gamma, delta, tau are drawn from the OS CSPRNG, or, when `seed` is
 *  non-NULL, from a deterministic generator seeded with *seed (reproducible test fixtures only:
 *  such parameters are insecure by construction). tau is redrawn while Z(tau) = 0 or some
 *  structurally present variable has a zero A, B or C evaluation, so the value filter of spec 7
 *  equals the prover's structural density. The toxic waste is wiped before returning.
 *  Out: out  returns owned parameters (free with g16_params_free).
 *  Errors: CUZK_E_INVAL (matrix shape inconsistent with the counts, domain too large, an aux
 *  variable that occurs in no constraint: "unconstrained"), CUZK_E_IO (no randomness),
 *  CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_setup(g16_params_t **out, const cs_r1cs_t *r1cs, const uint64_t *seed,
                               cz_pool *pool, cz_diag *dg);

/** Wall-clock milliseconds of the setup's stages (g16_setup_timed). */
typedef struct g16_setup_stats {
    double check_ms;  /* matrix and constrained-variable checks */
    double qap_ms;    /* powers, inverse NTT, evaluation, per-variable scalars (all draws) */
    double tables_ms; /* parameter allocation and both fixed-base tables */
    double g1_ms;     /* VK, ic, h, l, a, b_g1 points */
    double g2_ms;     /* b_g2 points */
    double total_ms;
    double write_wait_ms;          /* g16_setup_gpu_write: device idle, waiting for the file */
    unsigned g1_window, g2_window; /* fixed-base windows used */
} g16_setup_stats_t;

/** g16_setup with per-stage timings (`stats` may be NULL; set even on failure). */
CZ_MUST_USE cuzk_err g16_setup_timed(g16_params_t **out, g16_setup_stats_t *stats,
                                     const cs_r1cs_t *r1cs, const uint64_t *seed, cz_pool *pool,
                                     cz_diag *dg);

/** g16_setup from a compact shape (r1cs.h: the shape recorder's, or cs_shape_from_r1cs): the
 *  same parameters for the same circuit and seed, without the 40-byte-per-term matrices.
 *  `stats` may be NULL (check_ms is then part of qap_ms). Errors as g16_setup. */
CZ_MUST_USE cuzk_err g16_setup_shape(g16_params_t **out, g16_setup_stats_t *stats,
                                     const cs_shape_t *shape, const uint64_t *seed, cz_pool *pool,
                                     cz_diag *dg);

/** The parameters of `shape` with every point made on `dev` (gpu_fb_mul_g1 / _g2), written to
 *  `path` as they are made: exactly the bytes g16_setup_shape + g16_params_write give for the
 *  same shape and seed, while the host holds only the scalars and two staging buffers of
 *  points (384 MiB), never the parameters. The file is created (truncated); on failure it is
 *  removed. Out: *vk returns the verifying key (owned: g16_vk_free) for the .vk file.
 *  Stats as g16_setup_timed's (g1_ms / g2_ms include the writing; write_wait_ms is the time
 *  the device waited for the disk). Errors as g16_setup, CUZK_E_IO (file, with the path),
 *  the device's (CUZK_E_NO_GPU without one). */
CZ_MUST_USE cuzk_err g16_setup_gpu_write(g16_vk_t **vk, g16_setup_stats_t *stats,
                                         const cs_shape_t *shape, const uint64_t *seed,
                                         struct gpu_dev *dev, const char *path, cz_pool *pool,
                                         cz_diag *dg);

#endif /* CUZK_GROTH16_GROTH16_H */
