/* msm_g1.cu - the G1 MSM entry points and the bases objects of gpu.h (msm.cuh does the work). */
#include "gpu/cuda/msm.cuh"

namespace czg
{

static cuzk_err bases_new(gpu_msm_bases **out, gpu_dev *dev, size_t n, int group, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_msm_bases *b = NULL;
    const size_t elem = group == 1 ? sizeof(g1_aff_e) : sizeof(g2_aff_e);

    *out = NULL;
    if (n >= GPU_MSM_MAX_BASES) {
        return cz_fail(dg, CUZK_E_INVAL, "%zu bases (at most 2^31 - 1)", n);
    }
    b = (gpu_msm_bases *)cz_calloc(1, sizeof(*b));
    if (!b) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_msm_bases");
    }
    b->dev = dev;
    b->group = group;
    b->n = n;
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_malloc(dev, &b->ptr, n * elem, dg), done);
    *out = b;
    b = NULL;
done:
    cz_free(b);
    return err;
}

static cuzk_err bases_upload(gpu_msm_bases *b, size_t first, const void *points, size_t count,
                             int group, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t elem = group == 1 ? sizeof(g1_aff_e) : sizeof(g2_aff_e);

    if (b->group != group || first > b->n || count > b->n - first) {
        return cz_fail(dg, CUZK_E_INVAL, "%zu G%d points at %zu into %zu G%d bases", count, group,
                       first, b->n, b->group);
    }
    CZ_TRY(err, dev_enter(b->dev, dg), done);
    if (count) {
        CZ_TRY(err,
               dev_h2d(b->dev, (char *)b->ptr + first * elem, points, count * elem, b->dev->s, dg),
               done);
    }
    CUDA_TRY(err, cudaStreamSynchronize(b->dev->s), done);
done:
    return err;
}

} // namespace czg

using namespace czg;

extern "C" {

cuzk_err gpu_msm_bases_new_g1(gpu_msm_bases **out, gpu_dev *dev, size_t n, cz_diag *dg)
{
    return bases_new(out, dev, n, 1, dg);
}

cuzk_err gpu_msm_bases_new_g2(gpu_msm_bases **out, gpu_dev *dev, size_t n, cz_diag *dg)
{
    return bases_new(out, dev, n, 2, dg);
}

void gpu_msm_bases_free(gpu_msm_bases *b)
{
    if (!b) {
        return;
    }
    if (!b->view && cudaSetDevice(b->dev->index) == cudaSuccess) {
        (void)cudaStreamSynchronize(b->dev->s);
        dev_free(b->dev, b->ptr, b->n * (b->group == 1 ? sizeof(g1_aff_e) : sizeof(g2_aff_e)));
    }
    (void)cudaGetLastError();
    cz_free(b);
}

cuzk_err gpu_msm_bases_view(gpu_msm_bases **out, gpu_buf *buf, size_t off, int group, size_t n,
                            cz_diag *dg)
{
    const size_t elem = group == 1 ? sizeof(g1_aff_e) : sizeof(g2_aff_e);
    gpu_msm_bases *b;

    *out = NULL;
    if ((group != 1 && group != 2) || off % 256 != 0 || off > buf->len ||
        n > (buf->len - off) / elem || n >= GPU_MSM_MAX_BASES) {
        return cz_fail(dg, CUZK_E_INVAL, "%zu G%d bases at byte %zu of a buffer of %zu bytes", n,
                       group, off, buf->len);
    }
    b = (gpu_msm_bases *)cz_calloc(1, sizeof(*b));
    if (!b) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_msm_bases");
    }
    b->dev = buf->dev;
    b->group = group;
    b->ptr = (char *)buf->ptr + off;
    b->n = n;
    b->view = true;
    *out = b;
    return CUZK_OK;
}

size_t gpu_msm_bases_len(const gpu_msm_bases *b)
{
    return b ? b->n : 0;
}

cuzk_err gpu_msm_bases_upload_g1(gpu_msm_bases *b, size_t first, const struct g1_aff *points,
                                 size_t count, cz_diag *dg)
{
    return bases_upload(b, first, points, count, 1, dg);
}

cuzk_err gpu_msm_bases_upload_g2(gpu_msm_bases *b, size_t first, const struct g2_aff *points,
                                 size_t count, cz_diag *dg)
{
    return bases_upload(b, first, points, count, 2, dg);
}

cuzk_err gpu_msm_g1(gpu_dev *dev, struct g1 *out, const gpu_msm_bases *bases, size_t first,
                    const struct fr_repr *scalars, size_t n, const gpu_msm_opts *opts, cz_diag *dg)
{
    return msm_call<fp_e>(dev, out, bases, first, scalars, NULL, 0, n, false, opts, 1, dg);
}

cuzk_err gpu_msm_g1_buf(gpu_dev *dev, struct g1 *out, const gpu_msm_bases *bases, size_t first,
                        const gpu_buf *scalars, size_t off, size_t n, bool mont,
                        const gpu_msm_opts *opts, cz_diag *dg)
{
    return msm_call<fp_e>(dev, out, bases, first, NULL, scalars, off, n, mont, opts, 1, dg);
}

cuzk_err gpu_msm_g1_sets(gpu_dev *dev, struct g1 *outs, const gpu_msm_bases *bases, size_t first,
                         size_t n, const gpu_msm_set *sets, unsigned nsets, cz_diag *dg)
{
    return msm_sets_call<fp_e>(dev, outs, bases, first, n, sets, nsets, 1, dg);
}

size_t gpu_msm_sets_scratch_bytes(size_t n, int group, const gpu_msm_set *sets, unsigned nsets)
{
    if (nsets < 1 || nsets > GPU_MSM_MAX_SETS) {
        return 0;
    }
    return group == 2 ? msm_sets_scratch<fp2_e>(n, sets, nsets)
                      : msm_sets_scratch<fp_e>(n, sets, nsets);
}

size_t gpu_msm_scratch_bytes(size_t n, int group, bool scalars_in_scratch)
{
    const unsigned c_max = gpu_msm_auto_window_bits(n);
    if (n == 0) {
        return 0;
    }
    return group == 2 ? msm_scratch_total<fp2_e>(n, c_max, scalars_in_scratch)
                      : msm_scratch_total<fp_e>(n, c_max, scalars_in_scratch);
}

} /* extern "C" */
