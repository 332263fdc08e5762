/* synth_gpu.c - `cuzk-bench synth --backend pce --gpu`: the recorded shape's products on the
 * device, timed and compared with the CPU's a, b, c (synth_gpu.h). */
#include "synth_gpu.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/alloc.h"
#include "gpu/gpu.h"

struct synth_gpu {
    gpu_dev *dev;
    gpu_spmat *m[3];
    gpu_buf *z, *out;
    size_t rows, zlen;
    double upload_ms;
};

void synth_gpu_free(synth_gpu *g)
{
    if (!g) {
        return;
    }
    for (int i = 0; i < 3; i++) {
        gpu_spmat_free(g->m[i]);
    }
    gpu_buf_free(g->z);
    gpu_buf_free(g->out);
    gpu_dev_close(g->dev);
    cz_free(g);
}

cuzk_err synth_gpu_new(synth_gpu **out, const cs_shape_t *shape, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    synth_gpu *g = cz_calloc(1, sizeof(*g));
    const cs_shape_matrix_t *mats[3] = {&shape->A, &shape->B, &shape->C};

    *out = NULL;
    if (!g) {
        return cz_fail(dg, CUZK_E_NOMEM, "synth_gpu");
    }
    if (gpu_count() == 0) {
        err = cz_fail(dg, CUZK_E_NO_GPU, "--gpu: no usable GPU");
        goto done;
    }
    double t0 = cli_now_ms();
    CZ_TRY(err, gpu_dev_open(&g->dev, 0, dg), done);
    for (int i = 0; i < 3; i++) {
        const cs_shape_matrix_t *m = mats[i];
        CZ_TRY(err,
               gpu_spmat_new(&g->m[i], g->dev, m->rows, m->nnz, m->row_ptr, m->col, m->coef,
                             shape->dict, shape->dict_len, dg),
               done);
    }
    g->rows = shape->A.rows;
    g->zlen = shape->num_inputs + shape->num_aux;
    CZ_TRY(err, gpu_buf_new(&g->z, g->dev, g->zlen * sizeof(fr_t), dg), done);
    CZ_TRY(err, gpu_buf_new(&g->out, g->dev, (g->rows ? g->rows : 1) * sizeof(fr_t), dg), done);
    g->upload_ms = cli_now_ms() - t0;
    *out = g;
    g = NULL;
done:
    synth_gpu_free(g);
    return err;
}

double synth_gpu_upload_ms(const synth_gpu *g)
{
    return g->upload_ms;
}

size_t synth_gpu_bytes(const synth_gpu *g)
{
    return gpu_spmat_bytes(g->m[0]) + gpu_spmat_bytes(g->m[1]) + gpu_spmat_bytes(g->m[2]);
}

cuzk_err synth_gpu_run(synth_gpu *g, const cs_assignment_t *asg, synth_gpu_times *t, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const fr_t *want[3] = {asg->a, asg->b, asg->c};
    fr_t *host = NULL;

    memset(t, 0, sizeof(*t));
    double t0 = cli_now_ms();
    CZ_TRY(err, gpu_buf_upload(g->z, 0, asg->inputs, asg->num_inputs * sizeof(fr_t), dg), done);
    CZ_TRY(err,
           gpu_buf_upload(g->z, asg->num_inputs * sizeof(fr_t), asg->aux,
                          asg->num_aux * sizeof(fr_t), dg),
           done);
    t->z_upload_ms = cli_now_ms() - t0;
    host = cz_malloc((g->rows ? g->rows : 1) * sizeof(fr_t));
    if (!host) {
        err = cz_fail(dg, CUZK_E_NOMEM, "%zu rows", g->rows);
        goto done;
    }
    for (int i = 0; i < 3; i++) {
        double s = cli_now_ms();
        CZ_TRY(err, gpu_spmv_buf(g->dev, g->out, 0, g->m[i], g->z, 0, g->zlen, dg), done);
        t->spmv_ms[i] = cli_now_ms() - s;
        CZ_TRY(err, gpu_buf_download(host, g->out, 0, g->rows * sizeof(fr_t), dg), done);
        if (memcmp(host, want[i], g->rows * sizeof(fr_t)) != 0) {
            size_t r = 0;
            while (r < g->rows && memcmp(host + r, want[i] + r, sizeof(fr_t)) == 0) {
                r++;
            }
            err = cz_fail(dg, CUZK_E_GPU, "the device's %c differs from the CPU's at row %zu",
                          "abc"[i], r);
            goto done;
        }
    }
done:
    cz_free(host);
    return err;
}
