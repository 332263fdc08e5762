/* fuzz_circom_wtns.c - libFuzzer target for the .wtns reader g16_circom_wtns_from_bytes (and
 * g16_circom_wtns_load on the same bytes in a scratch file).
 * Properties: buffer and file paths agree (codes and values); an accepted witness has
 * values-section size / 32 values; re-encoding it as a version-2 file and reading that back
 * gives the same values, and equals the input byte for byte when the input was version 2 with
 * exactly the header and values sections in that order; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "groth16/circom.h"
#include "iden3.h"

static size_t encode(uint8_t *out, size_t cap, const fr_t *w, size_t n)
{
    iden3_buf b = {out, 0, cap};

    iden3_header(&b, "wtns", 2, 2);
    iden3_section(&b, 1, 4 + FR_NBYTES + 4);
    iden3_field(&b);
    iden3_u32(&b, (uint32_t)n);
    iden3_section(&b, 2, (uint64_t)n * FR_NBYTES);
    for (size_t i = 0; i < n; i++) {
        uint8_t c[FR_NBYTES];
        fr_to_bytes(c, &w[i]);
        iden3_put(&b, c, FR_NBYTES);
    }
    return b.len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t live = fuzz_live_bytes();
    fr_t *w = NULL, *wf = NULL, *back = NULL;
    size_t n = 7, nf = 7, nb = 0;
    cz_diag dg;

    cz_diag_init(&dg);
    cuzk_err err = g16_circom_wtns_from_bytes(&w, &n, data, size, &dg);
    cuzk_err errf = g16_circom_wtns_load(&wf, &nf, fuzz_write_tmp(data, size), NULL);
    FUZZ_CHECK(err == CUZK_OK || err == CUZK_E_FORMAT);
    FUZZ_CHECK(errf == err);
    if (err != CUZK_OK) {
        FUZZ_CHECK(w == NULL && wf == NULL && n == 0 && nf == 0);
        FUZZ_CHECK(dg.code == err && dg.msg[0] != '\0');
    } else {
        uint32_t types[16];
        size_t nsec, cap = 12 + 12 + 40 + 12 + n * FR_NBYTES, len;
        uint8_t *enc;

        fuzz_note_ok();
        FUZZ_CHECK(w != NULL && wf != NULL && nf == n);
        FUZZ_CHECK(memcmp(w, wf, n * sizeof(fr_t)) == 0);
        enc = cz_malloc(cap);
        FUZZ_CHECK(enc != NULL);
        len = encode(enc, cap, w, n);
        FUZZ_CHECK(len == cap);
        FUZZ_CHECK(g16_circom_wtns_from_bytes(&back, &nb, enc, len, NULL) == CUZK_OK);
        FUZZ_CHECK(nb == n && memcmp(back, w, n * sizeof(fr_t)) == 0);
        FUZZ_CHECK(iden3_section_types(data, size, types, 16, &nsec));
        if (cz_load_le32(data + 4) == 2 && nsec == 2 && types[0] == 1 && types[1] == 2) {
            FUZZ_CHECK(len == size && memcmp(enc, data, size) == 0);
        }
        cz_free(enc);
    }
    cz_free(w);
    cz_free(wf);
    cz_free(back);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
