/* fuzz_circom_r1cs.c - libFuzzer target for the iden3 .r1cs reader g16_circom_r1cs_from_bytes
 * (and g16_circom_r1cs_load on the same bytes in a scratch file), followed, for small accepted
 * circuits, by the replay into a shape-counting constraint system.
 * Properties: buffer and file paths agree; an accepted circuit is structurally sound (the
 * public wires fit, lc_start is non-decreasing from 0 to n_terms, every wire < n_wires, every
 * coefficient canonical); re-encoding it canonically (header and constraints sections only)
 * and reading that back gives the same circuit, and equals the input byte for byte when the
 * input had exactly those two sections in that order; the replay reports 1 + public inputs,
 * the remaining wires as aux and n_constraints constraints; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "groth16/circom.h"
#include "iden3.h"

/* Replays only circuits this small: the wire count is not bounded by the file size (see
 * README.md, findings), and the replay allocates one variable per wire. */
#define MAX_REPLAY_WIRES 4096

static size_t encode(uint8_t *out, size_t cap, const g16_circom_r1cs_t *r)
{
    iden3_buf b = {out, 0, cap};
    uint64_t cons = 12 * (uint64_t)r->n_constraints + (4 + FR_NBYTES) * (uint64_t)r->n_terms;

    iden3_header(&b, "r1cs", 1, 3);
    iden3_section(&b, 1, 4 + FR_NBYTES + 4 * 4 + 8 + 4);
    iden3_field(&b);
    iden3_u32(&b, r->n_wires);
    iden3_u32(&b, r->n_pub_out);
    iden3_u32(&b, r->n_pub_in);
    iden3_u32(&b, r->n_prv_in);
    iden3_u64(&b, r->n_labels);
    iden3_u32(&b, r->n_constraints);
    iden3_section(&b, 2, cons);
    for (size_t k = 0; k < 3 * (size_t)r->n_constraints; k++) {
        iden3_u32(&b, (uint32_t)(r->lc_start[k + 1] - r->lc_start[k]));
        for (size_t t = r->lc_start[k]; t < r->lc_start[k + 1]; t++) {
            uint8_t c[FR_NBYTES];
            iden3_u32(&b, r->terms[t].wire);
            fr_to_bytes(c, &r->terms[t].coeff);
            iden3_put(&b, c, FR_NBYTES);
        }
    }
    iden3_section(&b, 3, 8 * (uint64_t)r->n_wires); /* labels are not kept: write wire i -> i */
    for (uint64_t i = 0; i < r->n_wires; i++) {
        iden3_u64(&b, i);
    }
    return b.len;
}

static bool same(const g16_circom_r1cs_t *a, const g16_circom_r1cs_t *b)
{
    if (a->n_wires != b->n_wires || a->n_pub_out != b->n_pub_out || a->n_pub_in != b->n_pub_in ||
        a->n_prv_in != b->n_prv_in || a->n_labels != b->n_labels ||
        a->n_constraints != b->n_constraints || a->n_terms != b->n_terms) {
        return false;
    }
    for (size_t k = 0; k <= 3 * (size_t)a->n_constraints; k++) {
        if (a->lc_start[k] != b->lc_start[k]) {
            return false;
        }
    }
    for (size_t t = 0; t < a->n_terms; t++) {
        if (a->terms[t].wire != b->terms[t].wire ||
            !fr_eq(&a->terms[t].coeff, &b->terms[t].coeff)) {
            return false;
        }
    }
    return true;
}

static void check_sound(const g16_circom_r1cs_t *r)
{
    FUZZ_CHECK(r->n_wires >= 1);
    FUZZ_CHECK((uint64_t)1 + r->n_pub_out + r->n_pub_in <= r->n_wires);
    FUZZ_CHECK(r->lc_start[0] == 0 && r->lc_start[3 * (size_t)r->n_constraints] == r->n_terms);
    for (size_t k = 0; k < 3 * (size_t)r->n_constraints; k++) {
        FUZZ_CHECK(r->lc_start[k] <= r->lc_start[k + 1]);
    }
    for (size_t t = 0; t < r->n_terms; t++) {
        uint8_t c[FR_NBYTES];
        fr_t back;
        FUZZ_CHECK(r->terms[t].wire < r->n_wires);
        fr_to_bytes(c, &r->terms[t].coeff);
        FUZZ_CHECK(fr_from_bytes(&back, c) == CUZK_OK && fr_eq(&back, &r->terms[t].coeff));
    }
}

static void check_replay(const g16_circom_r1cs_t *r)
{
    cs_t *cs = NULL;
    cs_counts_t n;
    size_t npub = g16_circom_num_public(r);

    FUZZ_CHECK(npub == (size_t)r->n_pub_out + r->n_pub_in);
    if (r->n_wires > MAX_REPLAY_WIRES) {
        return;
    }
    FUZZ_CHECK(cs_new_counter(&cs, NULL) == CUZK_OK);
    FUZZ_CHECK(g16_circom_synthesize(cs, r, NULL, 0, NULL) == CUZK_OK);
    cs_get_counts(cs, &n);
    FUZZ_CHECK(n.num_inputs == 1 + npub);
    FUZZ_CHECK(n.num_aux == r->n_wires - 1 - npub);
    FUZZ_CHECK(n.num_constraints == r->n_constraints);
    FUZZ_CHECK(cs_finish(cs, NULL) == CUZK_OK);
    cs_free(cs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t live = fuzz_live_bytes();
    g16_circom_r1cs_t *r = NULL, *rf = NULL, *back = NULL;
    cz_diag dg, df;

    cz_diag_init(&dg);
    cz_diag_init(&df);
    cuzk_err err = g16_circom_r1cs_from_bytes(&r, data, size, &dg);
    cuzk_err errf = g16_circom_r1cs_load(&rf, fuzz_write_tmp(data, size), &df);
    FUZZ_CHECK(err == CUZK_OK || err == CUZK_E_FORMAT);
    FUZZ_CHECK(errf == err);
    if (err != CUZK_OK) {
        FUZZ_CHECK(r == NULL && rf == NULL && dg.code == err && dg.msg[0] != '\0');
    } else {
        uint32_t types[16];
        size_t nsec, cap, len;
        uint8_t *enc;

        fuzz_note_ok();
        FUZZ_CHECK(r != NULL && rf != NULL && same(r, rf));
        check_sound(r);
        cap = 12 + 12 + 64 + 12 + 12 * (size_t)r->n_constraints + 36 * r->n_terms + 12 +
              8 * (size_t)r->n_wires;
        enc = cz_malloc(cap);
        FUZZ_CHECK(enc != NULL);
        len = encode(enc, cap, r);
        FUZZ_CHECK(len <= cap);
        FUZZ_CHECK(g16_circom_r1cs_from_bytes(&back, enc, len, NULL) == CUZK_OK);
        FUZZ_CHECK(same(r, back));
        FUZZ_CHECK(iden3_section_types(data, size, types, 16, &nsec));
        (void)nsec; /* the input's labels are not kept, so only the parse is compared */
        cz_free(enc);
        check_replay(r);
    }
    g16_circom_r1cs_free(r);
    g16_circom_r1cs_free(rf);
    g16_circom_r1cs_free(back);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
