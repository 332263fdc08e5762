/* internal.h - what the files of src/groth16/ share: read-only file mappings, whole-file
 * writes, the parameter storage layout, decimal conversion of big integers (snarkjs JSON) and
 * the deterministic core of batch verification (tests).
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

/** Wall-clock milliseconds of the setup's stages (bench_groth16). */
typedef struct g16_setup_stats {
    double check_ms;  /* matrix and constrained-variable checks */
    double qap_ms;    /* powers, inverse NTT, evaluation, per-variable scalars (all draws) */
    double tables_ms; /* parameter allocation and both fixed-base tables */
    double g1_ms;     /* VK, ic, h, l, a, b_g1 points */
    double g2_ms;     /* b_g2 points */
    double total_ms;
    unsigned g1_window, g2_window; /* fixed-base windows used */
} g16_setup_stats_t;

/** g16_setup_with_waste with per-stage timings (`stats` may be NULL; set even on failure). */
CZ_MUST_USE cuzk_err g16_setup_ex(g16_params_t **out, g16_toxic_t *waste, g16_setup_stats_t *stats,
                                  const cs_r1cs_t *r1cs, const uint64_t *seed, cz_pool *pool,
                                  cz_diag *dg);

#endif /* CUZK_GROTH16_INTERNAL_H */
