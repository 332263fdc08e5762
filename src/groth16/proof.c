/* proof.c - the 192-byte Groth16 proof encoding (spec groth16.md 2.5): A (G1 compressed, 48 B)
 * || B (G2 compressed, 96 B) || C (G1 compressed, 48 B); decoding checks the subgroup and
 * rejects the identity in every part, as bellperson's Proof::read does.
 */
#include "groth16/groth16.h"

#include <stdio.h>
#include <string.h>

#define OFF_A 0
#define OFF_B G1_COMPRESSED_NBYTES
#define OFF_C (G1_COMPRESSED_NBYTES + G2_COMPRESSED_NBYTES)
_Static_assert(OFF_C + G1_COMPRESSED_NBYTES == G16_PROOF_NBYTES, "proof layout");

void g16_proof_to_bytes(uint8_t out[G16_PROOF_NBYTES], const g16_proof_t *proof)
{
    g1_aff_to_compressed(out + OFF_A, &proof->a);
    g2_aff_to_compressed(out + OFF_B, &proof->b);
    g1_aff_to_compressed(out + OFF_C, &proof->c);
}

static cuzk_err part_error(cz_diag *dg, cuzk_err err, const char *part)
{
    return cz_fail(dg, err, "proof part %s is %s", part,
                   err == CUZK_E_FORMAT ? "malformed (flags or coordinate >= p)"
                                        : "not on the curve or not in the subgroup");
}

cuzk_err g16_proof_from_bytes(g16_proof_t *out, const uint8_t in[G16_PROOF_NBYTES], cz_diag *dg)
{
    cuzk_err err;

    err = g1_aff_from_compressed(&out->a, in + OFF_A, true);
    if (err != CUZK_OK) {
        return part_error(dg, err, "A");
    }
    if (g1_aff_is_identity(&out->a)) {
        return cz_fail(dg, CUZK_E_NOT_IN_GROUP, "proof part A is the identity");
    }
    err = g2_aff_from_compressed(&out->b, in + OFF_B, true);
    if (err != CUZK_OK) {
        return part_error(dg, err, "B");
    }
    if (g2_aff_is_identity(&out->b)) {
        return cz_fail(dg, CUZK_E_NOT_IN_GROUP, "proof part B is the identity");
    }
    err = g1_aff_from_compressed(&out->c, in + OFF_C, true);
    if (err != CUZK_OK) {
        return part_error(dg, err, "C");
    }
    if (g1_aff_is_identity(&out->c)) {
        return cz_fail(dg, CUZK_E_NOT_IN_GROUP, "proof part C is the identity");
    }
    return CUZK_OK;
}

cuzk_err g16_proofs_from_bytes(g16_proof_t *out, size_t cap, size_t *n, const uint8_t *in,
                               size_t len, cz_diag *dg)
{
    size_t count = len / G16_PROOF_NBYTES;

    *n = 0;
    if (len == 0 || len % G16_PROOF_NBYTES != 0) {
        return cz_fail(dg, CUZK_E_FORMAT, "proof length %zu is not a non-zero multiple of %d bytes",
                       len, G16_PROOF_NBYTES);
    }
    if (count > cap) {
        return cz_fail(dg, CUZK_E_FORMAT, "%zu proofs present, at most %zu expected", count, cap);
    }
    for (size_t i = 0; i < count; i++) {
        cuzk_err err = g16_proof_from_bytes(&out[i], in + i * G16_PROOF_NBYTES, dg);
        if (err != CUZK_OK) {
            if (dg && count > 1) {
                char tmp[sizeof(dg->msg)];
                if (snprintf(tmp, sizeof(tmp), "proof %zu: %s", i, dg->msg) >= 0) {
                    memcpy(dg->msg, tmp, sizeof(tmp));
                }
            }
            return err;
        }
    }
    *n = count;
    return CUZK_OK;
}

void g16_proofs_to_bytes(uint8_t *out, const g16_proof_t *proofs, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        g16_proof_to_bytes(out + i * G16_PROOF_NBYTES, &proofs[i]);
    }
}
