/* msm_g2.cu - the G2 MSM entry points of gpu.h (msm.cuh does the work). */
#include "gpu/cuda/msm.cuh"

using namespace czg;

extern "C" {

cuzk_err gpu_msm_g2(gpu_dev *dev, struct g2 *out, const gpu_msm_bases *bases, size_t first,
                    const struct fr_repr *scalars, size_t n, const gpu_msm_opts *opts, cz_diag *dg)
{
    return msm_call<fp2_e>(dev, out, bases, first, scalars, NULL, 0, n, false, opts, 2, dg);
}

cuzk_err gpu_msm_g2_buf(gpu_dev *dev, struct g2 *out, const gpu_msm_bases *bases, size_t first,
                        const gpu_buf *scalars, size_t off, size_t n, bool mont,
                        const gpu_msm_opts *opts, cz_diag *dg)
{
    return msm_call<fp2_e>(dev, out, bases, first, NULL, scalars, off, n, mont, opts, 2, dg);
}

cuzk_err gpu_msm_g2_sets(gpu_dev *dev, struct g2 *outs, const gpu_msm_bases *bases, size_t first,
                         size_t n, const gpu_msm_set *sets, unsigned nsets, cz_diag *dg)
{
    return msm_sets_call<fp2_e>(dev, outs, bases, first, n, sets, nsets, 2, dg);
}

} /* extern "C" */
