/* fuzz_g16_params.c - libFuzzer target for the .params reader: g16_params_from_bytes over the
 * input (on the calling thread and over a 2-thread pool, with and without subgroup checks) and
 * g16_params_load over the same bytes written to a scratch file (the mmap path, including the
 * empty file).
 * Properties: each result code is what the layout model of g16_model.h predicts (spec
 * groth16.md 3.2: structure first, then the first bad point in file order); the pool does not
 * change the code or the message (errors must not depend on the thread count); the file path
 * agrees with the buffer path; accepted parameters have the counts of the header, their size
 * is g16_params_nbytes, g16_params_write writes back exactly the input; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "g16_model.h"
#include "groth16/groth16.h"

static cz_pool *shared_pool(void)
{
    static cz_pool *pool;
    if (!pool) {
        FUZZ_CHECK(cz_pool_new(&pool, 2, "fuzz", NULL) == CUZK_OK);
    }
    return pool;
}

static bool params_eq(const g16_params_t *a, const g16_params_t *b)
{
    return a->vk.ic_len == b->vk.ic_len && a->h_len == b->h_len && a->l_len == b->l_len &&
           a->a_len == b->a_len && a->b_g1_len == b->b_g1_len && a->b_g2_len == b->b_g2_len &&
           memcmp(a->vk.ic, b->vk.ic, a->vk.ic_len * sizeof(g1_aff_t)) == 0 &&
           memcmp(a->h, b->h, a->h_len * sizeof(g1_aff_t)) == 0 &&
           memcmp(a->l, b->l, a->l_len * sizeof(g1_aff_t)) == 0 &&
           memcmp(a->a, b->a, a->a_len * sizeof(g1_aff_t)) == 0 &&
           memcmp(a->b_g1, b->b_g1, a->b_g1_len * sizeof(g1_aff_t)) == 0 &&
           memcmp(a->b_g2, b->b_g2, a->b_g2_len * sizeof(g2_aff_t)) == 0 &&
           g1_aff_eq(&a->vk.alpha_g1, &b->vk.alpha_g1) && g2_aff_eq(&a->vk.beta_g2, &b->vk.beta_g2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cz_pool *pool = shared_pool();
    size_t live = fuzz_live_bytes();
    const g16_load_opts_t plain = {.check_subgroup = false}, strict = {.check_subgroup = true};
    g16_params_t *p0 = NULL, *p1 = NULL, *p2 = NULL, *pf = NULL;
    size_t count[5];
    cz_diag d0, d1, d2, df;

    cz_diag_init(&d0);
    cz_diag_init(&d1);
    cz_diag_init(&d2);
    cz_diag_init(&df);
    cuzk_err e0 = g16_params_from_bytes(&p0, data, size, &plain, NULL, &d0);
    cuzk_err e1 = g16_params_from_bytes(&p1, data, size, NULL, pool, &d1);
    cuzk_err e2 = g16_params_from_bytes(&p2, data, size, &strict, pool, &d2);
    cuzk_err ef = g16_params_load(&pf, fuzz_write_tmp(data, size), &plain, NULL, &df);

    FUZZ_CHECK(e0 == model_params(data, size, false, count));
    FUZZ_CHECK(e2 == model_params(data, size, true, count));
    FUZZ_CHECK(e1 == e0 && strcmp(d1.msg, d0.msg) == 0);
    FUZZ_CHECK(ef == e0);
    FUZZ_CHECK(e2 == CUZK_OK ? e0 == CUZK_OK : true);
    if (e0 != CUZK_OK) {
        FUZZ_CHECK(p0 == NULL && p1 == NULL && pf == NULL && d0.code == e0 && d0.msg[0] != '\0');
        FUZZ_CHECK(df.msg[0] != '\0');
    } else {
        uint8_t *back;
        size_t back_len;

        fuzz_note_ok();
        FUZZ_CHECK(p0->h_len == count[0] && p0->l_len == count[1] && p0->a_len == count[2] &&
                   p0->b_g1_len == count[3] && p0->b_g2_len == count[4]);
        FUZZ_CHECK(params_eq(p0, p1) && params_eq(p0, pf));
        FUZZ_CHECK(e2 != CUZK_OK || params_eq(p0, p2));
        FUZZ_CHECK(g16_params_nbytes(p0) == size);
        FUZZ_CHECK(g16_params_write(p0, fuzz_tmp_out_path(), NULL, NULL) == CUZK_OK);
        back = fuzz_read_file(fuzz_tmp_out_path(), &back_len);
        FUZZ_CHECK(back != NULL && back_len == size && memcmp(back, data, size) == 0);
        cz_free(back);
    }
    if (e2 != CUZK_OK) {
        FUZZ_CHECK(p2 == NULL && d2.code == e2);
    }
    g16_params_free(p0);
    g16_params_free(p1);
    g16_params_free(p2);
    g16_params_free(pf);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
