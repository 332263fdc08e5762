/* fuzz_g16_vk.c - libFuzzer target for the .vk reader: g16_vk_from_bytes over the input, and
 * g16_vk_load over the same bytes written to a scratch file.
 * Properties: the result code is what the layout model of g16_model.h predicts (spec
 * groth16.md 3.1); the file path gives the same code and the same key; an accepted key has
 * g16_vk_nbytes == input length, re-encodes (g16_vk_to_bytes, and g16_vk_write through a
 * file) to exactly the input, and survives g16_vk_dup; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "g16_model.h"
#include "groth16/groth16.h"

static bool vk_eq(const g16_vk_t *a, const g16_vk_t *b)
{
    return g1_aff_eq(&a->alpha_g1, &b->alpha_g1) && g1_aff_eq(&a->beta_g1, &b->beta_g1) &&
           g2_aff_eq(&a->beta_g2, &b->beta_g2) && g2_aff_eq(&a->gamma_g2, &b->gamma_g2) &&
           g1_aff_eq(&a->delta_g1, &b->delta_g1) && g2_aff_eq(&a->delta_g2, &b->delta_g2) &&
           a->ic_len == b->ic_len && memcmp(a->ic, b->ic, a->ic_len * sizeof(g1_aff_t)) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t live = fuzz_live_bytes();
    g16_vk_t *vk = NULL, *vf = NULL, *dup = NULL;
    cz_diag dg, df;

    cz_diag_init(&dg);
    cz_diag_init(&df);
    cuzk_err err = g16_vk_from_bytes(&vk, data, size, &dg);
    FUZZ_CHECK(err == model_vk(data, size));
    cuzk_err errf = g16_vk_load(&vf, fuzz_write_tmp(data, size), &df);
    FUZZ_CHECK(errf == err);
    if (err != CUZK_OK) {
        FUZZ_CHECK(vk == NULL && vf == NULL && dg.code == err && dg.msg[0] != '\0');
        FUZZ_CHECK(df.code == err && df.msg[0] != '\0');
    } else {
        uint8_t *enc, *back;
        size_t back_len;

        fuzz_note_ok();
        FUZZ_CHECK(vk != NULL && vf != NULL && vk_eq(vk, vf));
        FUZZ_CHECK(vk->ic_len >= 1 && g16_vk_nbytes(vk) == size);
        enc = cz_malloc(size);
        FUZZ_CHECK(enc != NULL);
        g16_vk_to_bytes(enc, vk);
        FUZZ_CHECK(memcmp(enc, data, size) == 0);
        cz_free(enc);
        FUZZ_CHECK(g16_vk_write(vk, fuzz_tmp_out_path(), NULL) == CUZK_OK);
        back = fuzz_read_file(fuzz_tmp_out_path(), &back_len);
        FUZZ_CHECK(back != NULL && back_len == size && memcmp(back, data, size) == 0);
        cz_free(back);
        FUZZ_CHECK(g16_vk_dup(&dup, vk, NULL) == CUZK_OK && vk_eq(dup, vk));
    }
    g16_vk_free(vk);
    g16_vk_free(vf);
    g16_vk_free(dup);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
