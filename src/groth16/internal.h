/* internal.h - what the files of src/groth16/ share: read-only file mappings, whole-file
 * writes, the parameter storage layout, decimal conversion of big integers (snarkjs JSON), the
 * deterministic core of batch verification (tests), and the prover's checks and assembly with
 * the hook through which prover.c reaches a GPU backend (prover_gpu.c).
 */
#ifndef CUZK_GROTH16_INTERNAL_H
#define CUZK_GROTH16_INTERNAL_H

#include <stdio.h>

#include "groth16/groth16.h"

/* ---- files ---------------------------------------------------------------------------------- */

/** A read-only view of a whole file (mmap; an empty file gives data = NULL, len = 0). */
typedef struct g16_file {
    const uint8_t *data;
    size_t len;
    void *map;
    size_t map_len;
} g16_file_t;

/** Maps `path` read-only. CUZK_E_IO with "path: reason" on failure. */
CZ_MUST_USE cuzk_err g16_file_map(g16_file_t *f, const char *path, cz_diag *dg);
/** Unmaps; a zeroed g16_file_t is accepted. */
void g16_file_unmap(g16_file_t *f);

/** Writes `len` bytes to `path` (created or truncated). CUZK_E_IO; a partial file is removed. */
CZ_MUST_USE cuzk_err g16_file_write(const char *path, const void *data, size_t len, cz_diag *dg);

/** Prefixes dg's message with "path: " (no-op for NULL dg). */
void g16_diag_prefix(cz_diag *dg, const char *path);

/* ---- parameter storage ------------------------------------------------------------------------ */

/** Allocates p->store for the given counts and points p->vk.ic, h, l, a, b_g1, b_g2 into it;
 *  sets the lengths. CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_params_alloc(g16_params_t *p, size_t ic_len, size_t h_len, size_t l_len,
                                      size_t a_len, size_t b_g1_len, size_t b_g2_len, cz_diag *dg);

/** The five point sections of a .params file, in file order. */
enum { G16_SEC_H, G16_SEC_L, G16_SEC_A, G16_SEC_B_G1, G16_SEC_B_G2, G16_SEC_COUNT };

/** Checks that buf (len bytes) is a .params file holding p's parameters: the walk of a load
 *  (every count against the length) and the same counts and VK bytes as p (CUZK_E_FORMAT "the
 *  file changed" otherwise); off[s] receives the byte offset of section s's first point. */
CZ_MUST_USE cuzk_err g16_params_file_sections(const g16_params_t *p, const uint8_t *buf, size_t len,
                                              size_t off[G16_SEC_COUNT], cz_diag *dg);

/** Decodes points [first, first + n) of section `sec` (its first point at byte sec_off of buf)
 *  into dst (n g1_aff_t, or g2_aff_t for G16_SEC_B_G2) with the checks of a load (opts as
 *  g16_params_from_bytes; release_input drops the pages read). A bad point is named with its
 *  index in the section and its byte offset. Errors: CUZK_E_FORMAT, CUZK_E_NOT_IN_GROUP. */
CZ_MUST_USE cuzk_err g16_params_decode_range(void *dst, const uint8_t *buf, size_t sec_off,
                                             unsigned sec, size_t first, size_t n,
                                             const g16_load_opts_t *opts, cz_pool *pool,
                                             cz_diag *dg);

/** g16_params_decode_range reading the points' bytes with pread from fd (the .params file)
 *  into `raw` (scratch of n point encodings) over the pool first: on machines where faulting
 *  in a file mapping is slow, several times faster than decoding from the mapping.
 *  Errors: CUZK_E_IO (a read failed or the file is shorter), then as decode_range. */
CZ_MUST_USE cuzk_err g16_params_read_range(void *dst, uint8_t *raw, int fd, size_t sec_off,
                                           unsigned sec, size_t first, size_t n,
                                           const g16_load_opts_t *opts, cz_pool *pool, cz_diag *dg);

/* ---- decimal numbers (snarkjs JSON) ---------------------------------------------------------- */

/** Writes the decimal digits of the n-limb little-endian integer v (n <= 8) and a NUL into out;
 *  cap >= 20 * n + 1 (contract). Returns out. */
char *g16_dec_from_limbs(char *out, size_t cap, const uint64_t *v, size_t n);

/** Parses a decimal string (digits only, at least one, no sign, leading zeros allowed) into
 *  an element of Fr; false if malformed or >= r. */
bool g16_fr_from_dec(fr_t *out, const char *s);

/** Decimal string of the canonical value of an Fr element (out: at least 80 bytes). */
char *g16_fr_to_dec(char *out, size_t cap, const fr_t *a);

/** Decimal string of the canonical value of an Fp element (out: at least 120 bytes). */
char *g16_fp_to_dec(char *out, size_t cap, const fp_t *a);

/* ---- verification ------------------------------------------------------------------------------ */

/** The batch check of spec 4.9 with caller-chosen weights z[j] (128-bit values as fr_repr_t
 *  with limbs 2, 3 zero, or any scalars). Returns true iff the weighted product equation holds.
 *  n + 1 == pvk->ic_len is a contract (CZ_CHECK). Allocation only for n and nproofs vectors:
 *  false with *nomem = true when that fails. */
bool g16_verify_batch_z(const g16_pvk_t *pvk, const g16_proof_t *proofs, size_t nproofs,
                        const fr_t *x, size_t n, const fr_repr_t *z, bool *nomem);

/* ---- setup ---------------------------------------------------------------------------------------- */

/** The toxic waste of the last g16_setup_with_waste call (tests only: lets a test recompute
 *  parameter points independently). Secret in real use. */
typedef struct g16_toxic {
    fr_t alpha, beta, gamma, delta, tau;
} g16_toxic_t;

/** g16_setup that also returns the toxic waste it used (when `waste` is non-NULL). */
CZ_MUST_USE cuzk_err g16_setup_with_waste(g16_params_t **out, g16_toxic_t *waste,
                                          const cs_r1cs_t *r1cs, const uint64_t *seed,
                                          cz_pool *pool, cz_diag *dg);

/** g16_setup_with_waste with per-stage timings (`stats` may be NULL; set even on failure). */
CZ_MUST_USE cuzk_err g16_setup_ex(g16_params_t **out, g16_toxic_t *waste, g16_setup_stats_t *stats,
                                  const cs_r1cs_t *r1cs, const uint64_t *seed, cz_pool *pool,
                                  cz_diag *dg);

/** g16_setup_shape_ex with the toxic waste returned (tests). */
CZ_MUST_USE cuzk_err g16_setup_shape_ex(g16_params_t **out, g16_toxic_t *waste,
                                        g16_setup_stats_t *stats, const cs_shape_t *shape,
                                        const uint64_t *seed, cz_pool *pool, cz_diag *dg);

/** The scalars of a setup (spec 7), ready for the fixed-base multiplications: what the CPU
 *  setup (setup.c) and the device setup (setup_gpu.c) share, so that both draw the same toxic
 *  waste and make the same points. Secret: g16_qap_free wipes every buffer. */
typedef struct g16_qap {
    g16_toxic_t tw;
    size_t ni, na;             /* inputs (ONE first), aux */
    unsigned lg;               /* domain 2^lg */
    size_t n;                  /* 2^lg; h has n - 1 points */
    size_t a_len, b_len;       /* a and b scalars the value filter keeps */
    fr_repr_t *ic, *l, *a, *b; /* ni, na, a_len, b_len canonical scalars (inside `ev`) */
    fr_t u;                    /* Z(tau) / delta: the h scalars are tau^i u */
    cz_buf pw, ev;             /* private */
} g16_qap_t;

/** Checks the shape (rows, columns, no unconstrained variable), draws the toxic waste (from
 *  *seed when non-NULL, else the OS CSPRNG) and computes every scalar over `pool`. Memory:
 *  n + 3 (ni + na) field elements, n of them freed before returning. Errors as g16_setup. */
CZ_MUST_USE cuzk_err g16_qap_run(g16_qap_t *q, const cs_shape_t *shape, const uint64_t *seed,
                                 cz_pool *pool, cz_diag *dg);
/** The h scalars tau^i Z(tau) / delta for i in [base, base + len), canonical, into out. */
void g16_qap_h(const g16_qap_t *q, fr_repr_t *out, size_t base, size_t len, cz_pool *pool);
/** The VK's six points and its ic (vk->ic holds q->ni points) from fixed-base tables of the
 *  standard generators. */
void g16_qap_vk(const g16_qap_t *q, g16_vk_t *vk, const g1_aff_t *tab1, unsigned w1,
                const g2_aff_t *tab2, unsigned w2, cz_pool *pool);
void g16_qap_free(g16_qap_t *q);

/* ---- prover (prover.c; shared with the GPU prover, prover_gpu.c) ---------------------------- */

/** The five MSM results of spec 4.6. */
typedef struct g16_sums {
    g1_t h, l, a, b1;
    g2_t b2;
} g16_sums_t;

/** CLOCK_MONOTONIC in milliseconds. */
double g16_now_ms(void);

/** Ends the stage that began at t0: returns its milliseconds and reports it to opts->on_stage
 *  when there is one (opts may be NULL). */
double g16_stage_end(const g16_prove_opts_t *opts, const char *stage, double t0);
/** CUZK_E_CANCELLED (with a message) when opts->cancel is set, else CUZK_OK: called between
 *  the prover's stages. */
CZ_MUST_USE cuzk_err g16_stage_check(const g16_prove_opts_t *opts, cz_diag *dg);

/** The checks that need no work space: the assignment's contracts (CZ_CHECK), parameters that
 *  fit it (g16_params_check_circuit), delta not the identity, a supported domain. Sets *lg to
 *  log2 of the domain size. Errors: CUZK_E_INVAL. */
CZ_MUST_USE cuzk_err g16_prove_check(const g16_params_t *p, const cs_assignment_t *asg,
                                     unsigned *lg, cz_diag *dg);

/** Spec 4.7: the proof from the MSM sums and the randomizers (r s is wiped after use). */
void g16_prove_assemble(const g16_params_t *p, g16_proof_t *out, const g16_sums_t *sums,
                        const fr_t *r, const fr_t *s);

/** One proof as prover.c hands it to a GPU backend, after g16_prove_check. */
typedef struct g16_prove_job {
    const g16_params_t *p;
    g16_proof_t *out;
    const cs_assignment_t *asg; /* a, b, c are read from abc, not from here */
    fr_t *abc[3];               /* a, b, c: m values each */
    bool take;                  /* abc is owned: the backend frees it (cz_free), always */
    unsigned lg;                /* domain size 2^lg */
    const fr_t *r, *s;
    const g16_prove_opts_t *opts; /* may be NULL */
    g16_classes *classes;         /* a group's proof: built ahead (g16_classes_new), or NULL */
    g16_prove_stats_t *st;        /* zeroed; the backend sets every stage but total_ms */
    double t0;                    /* start of the first "prep" stage (g16_now_ms) */
} g16_prove_job_t;

/** A GPU backend's prove path: same results and errors as the CPU prover. */
typedef cuzk_err (*g16_gpu_prove_fn)(g16_gpu_params *gp, g16_prove_job_t *job, cz_pool *pool,
                                     cz_diag *dg);

/** A group as prover.c hands it to a GPU backend: jobs[0 .. count), checked, in an array with
 *  room for the object's share_max; more (NULL: none) appends checked jobs (at most cap - count)
 *  and raises count, 0 appended ending the gathering; front_done (NULL: none) reports that job
 *  j's assignment is no longer read, with the host bytes the group keeps for it. */
typedef struct g16_group {
    g16_prove_job_t *jobs;
    size_t count;
    cuzk_err (*more)(struct g16_group *grp, size_t cap, cz_diag *dg);
    void (*front_done)(struct g16_group *grp, size_t j, uint64_t kept_bytes);
    void *ctx; /* prover.c's */
} g16_group_t;

/** The same for the group's jobs (1 .. the object's share_max) proved together: one pass over
 *  each streamed section serves all of them. Any error fails the group (a, b, c freed as for
 *  one). */
typedef cuzk_err (*g16_gpu_prove_group_fn)(g16_gpu_params *gp, g16_group_t *grp, cz_pool *pool,
                                           cz_diag *dg);

/** The head of every g16_gpu_params object (the backend's own state follows it). prover_gpu.c
 *  is compiled once per GPU backend (src/groth16/CMakeLists.txt), so prover.c cannot call it by
 *  name: it calls the prove path stored here by the g16_gpu_params_new that made the object. */
struct g16_gpu_params {
    const g16_params_t *params; /* retained */
    g16_gpu_prove_fn prove;
    g16_gpu_prove_group_fn prove_group;
    unsigned share_max; /* jobs prove_group takes at once (g16_gpu_params_share_max) */
};

#endif /* CUZK_GROTH16_INTERNAL_H */
