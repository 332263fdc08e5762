/* circom.h - interoperability with circom and snarkjs: reading iden3 `.r1cs` and `.wtns`
 * files (BLS12-381 scalar field only), replaying a circom circuit into any cs_t backend, and
 * writing verifying keys, proofs and public inputs as snarkjs JSON.
 *
 * Files (iden3 binary container: 4-byte magic, u32 LE version, u32 LE section count, then
 * sections of u32 LE type, u64 LE size, data; iden3/r1csfile, snarkjs wtns_utils.js):
 *   .r1cs v1: header (field size 32, prime = r, wire/output/input counts, constraint count),
 *             constraints (per constraint three LCs: u32 LE term count, then per term u32 LE
 *             wire and a 32-byte little-endian field element in standard, not Montgomery,
 *             form), wire-to-label map (ignored). Custom-gate sections are rejected.
 *   .wtns v1/v2: header (field size 32, prime = r, witness count), values (32-byte LE,
 *             canonical), one per wire.
 * Wires: 0 = ONE, then the public outputs, the public inputs, the private inputs and the
 * internal wires. Public wires (outputs, then public inputs) become cs inputs 1..k in order;
 * every other wire becomes an aux variable, in wire order.
 * snarkjs JSON: decimal strings of canonical affine coordinates; G1 ["x","y","1"]; G2
 * [["x.c0","x.c1"],["y.c0","y.c1"],["1","0"]]; Fp12 as [2][3][2] (c0/c1, then the Fp6
 * coefficients, then the Fp2 coefficients).
 * Errors: every reader names the file (or "r1cs"/"wtns" for buffers) and the problem.
 */
#ifndef CUZK_GROTH16_CIRCOM_H
#define CUZK_GROTH16_CIRCOM_H

#include "groth16/groth16.h"

/** One term of a circom linear combination. */
typedef struct g16_circom_term {
    uint32_t wire;
    fr_t coeff; /* Montgomery */
} g16_circom_term_t;

/** A parsed .r1cs file. LC k (0 = A, 1 = B, 2 = C) of constraint j is
 *  terms[lc_start[3j + k] .. lc_start[3j + k + 1]). */
typedef struct g16_circom_r1cs {
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
    size_t *lc_start; /* 3 n_constraints + 1 entries */
    g16_circom_term_t *terms;
    size_t n_terms;
} g16_circom_r1cs_t;

/** Reads a .r1cs file. Out: out returns owned (g16_circom_r1cs_free).
 *  Errors: CUZK_E_IO, CUZK_E_FORMAT (magic, version, sizes, field, a wire out of range, a
 *  coefficient >= r), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_circom_r1cs_load(g16_circom_r1cs_t **out, const char *path, cz_diag *dg);
CZ_MUST_USE cuzk_err g16_circom_r1cs_from_bytes(g16_circom_r1cs_t **out, const uint8_t *buf,
                                                size_t len, cz_diag *dg);
void g16_circom_r1cs_free(g16_circom_r1cs_t *r);

/** Number of public wires (outputs + public inputs) = cs inputs without ONE. */
size_t g16_circom_num_public(const g16_circom_r1cs_t *r);

/** Reads a .wtns file. Out: *out returns owned (cz_free) Montgomery values, *n of them.
 *  Errors: CUZK_E_IO, CUZK_E_FORMAT, CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_circom_wtns_load(fr_t **out, size_t *n, const char *path, cz_diag *dg);
CZ_MUST_USE cuzk_err g16_circom_wtns_from_bytes(fr_t **out, size_t *n, const uint8_t *buf,
                                                size_t len, cz_diag *dg);

/** Replays the circuit into `cs` (any backend): allocates the public wires as inputs 1..k,
 *  the rest as aux, then enforces every constraint in file order (label "constraint <j>").
 *  Does not call cs_finish.
 *  In: wit   n_wires witness values (borrowed), required iff cs_has_values(cs), else NULL.
 *  Errors: CUZK_E_INVAL (witness count differs from n_wires, witness[0] != 1, missing
 *  witness), the cs's sticky error. */
CZ_MUST_USE cuzk_err g16_circom_synthesize(cs_t *cs, const g16_circom_r1cs_t *r, const fr_t *wit,
                                           size_t nwit, cz_diag *dg);

/** snarkjs verification_key.json of `vk` (vk_alphabeta_12 computed with one pairing).
 *  Errors: CUZK_E_IO. */
CZ_MUST_USE cuzk_err g16_snarkjs_write_vk(const g16_vk_t *vk, const char *path, cz_diag *dg);

/** snarkjs proof.json of one proof. Errors: CUZK_E_IO. */
CZ_MUST_USE cuzk_err g16_snarkjs_write_proof(const g16_proof_t *proof, const char *path,
                                             cz_diag *dg);

/** public.json: a JSON array of n decimal strings. Errors: CUZK_E_IO. */
CZ_MUST_USE cuzk_err g16_snarkjs_write_public(const fr_t *x, size_t n, const char *path,
                                              cz_diag *dg);

/** Reads public inputs: either an array of decimal strings (one proof: *rows = 1) or an array
 *  of `rows` such arrays of equal length (several proofs). Non-negative JSON integers are
 *  accepted too. Out: *out returns owned (cz_free) rows * cols values, row-major.
 *  Errors: CUZK_E_IO, CUZK_E_FORMAT (not JSON, wrong shape, a value >= r or not a number),
 *  CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err g16_snarkjs_read_public(fr_t **out, size_t *rows, size_t *cols,
                                             const char *path, cz_diag *dg);

#endif /* CUZK_GROTH16_CIRCOM_H */
