/* fuzz_g16_proof.c - libFuzzer target for the Groth16 proof decoders: g16_proof_from_bytes on
 * the first 192 bytes and g16_proofs_from_bytes (a multi-partition proof, at most 4 here) on
 * the whole input.
 * Properties: a proof is accepted exactly when A, B and C each decode with the subgroup check
 * (curve decoders called here part by part) and none is the identity (spec groth16.md 2.5);
 * the error code is that of the first bad part and the message names it; the concatenation
 * form accepts exactly the non-empty multiples of 192 bytes of at most `cap` good proofs; every
 * accepted input re-encodes to the same bytes.
 */
#include "fuzz.h"

#include <stdio.h>
#include <string.h>

#include "groth16/groth16.h"

#define CAP 4

/* Expected result of one proof, decoded part by part; *part receives 'A', 'B' or 'C'. */
static cuzk_err expect_one(const uint8_t *in, char *part)
{
    g1_aff_t a, c;
    g2_aff_t b;
    cuzk_err err;

    *part = 'A';
    err = g1_aff_from_compressed(&a, in, true);
    if (err != CUZK_OK || g1_aff_is_identity(&a)) {
        return err != CUZK_OK ? err : CUZK_E_NOT_IN_GROUP;
    }
    *part = 'B';
    err = g2_aff_from_compressed(&b, in + G1_COMPRESSED_NBYTES, true);
    if (err != CUZK_OK || g2_aff_is_identity(&b)) {
        return err != CUZK_OK ? err : CUZK_E_NOT_IN_GROUP;
    }
    *part = 'C';
    err = g1_aff_from_compressed(&c, in + G1_COMPRESSED_NBYTES + G2_COMPRESSED_NBYTES, true);
    if (err != CUZK_OK || g1_aff_is_identity(&c)) {
        return err != CUZK_OK ? err : CUZK_E_NOT_IN_GROUP;
    }
    return CUZK_OK;
}

static void check_one(const uint8_t in[G16_PROOF_NBYTES])
{
    g16_proof_t p;
    uint8_t enc[G16_PROOF_NBYTES];
    char part, want[32];
    cz_diag dg;

    cz_diag_init(&dg);
    cuzk_err err = g16_proof_from_bytes(&p, in, &dg);
    cuzk_err expect = expect_one(in, &part);
    FUZZ_CHECK(err == expect);
    if (err != CUZK_OK) {
        snprintf(want, sizeof(want), "part %c", part);
        FUZZ_CHECK(dg.code == err && strstr(dg.msg, want) != NULL);
        return;
    }
    fuzz_note_ok();
    g16_proof_to_bytes(enc, &p);
    FUZZ_CHECK(memcmp(enc, in, G16_PROOF_NBYTES) == 0);
}

static void check_many(const uint8_t *in, size_t len)
{
    g16_proof_t p[CAP];
    uint8_t enc[CAP * G16_PROOF_NBYTES];
    size_t n = 99;
    char part;
    cz_diag dg;
    cuzk_err expect = CUZK_OK;

    cz_diag_init(&dg);
    cuzk_err err = g16_proofs_from_bytes(p, CAP, &n, in, len, &dg);
    if (len == 0 || len % G16_PROOF_NBYTES != 0 || len / G16_PROOF_NBYTES > CAP) {
        expect = CUZK_E_FORMAT;
    } else {
        for (size_t i = 0; i < len / G16_PROOF_NBYTES && expect == CUZK_OK; i++) {
            expect = expect_one(in + i * G16_PROOF_NBYTES, &part);
        }
    }
    FUZZ_CHECK(err == expect);
    if (err != CUZK_OK) {
        FUZZ_CHECK(n == 0 && dg.code == err && dg.msg[0] != '\0');
        return;
    }
    fuzz_note_ok();
    FUZZ_CHECK(n == len / G16_PROOF_NBYTES);
    g16_proofs_to_bytes(enc, p, n);
    FUZZ_CHECK(memcmp(enc, in, len) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= G16_PROOF_NBYTES) {
        check_one(data);
    }
    check_many(data, size);
    return 0;
}
