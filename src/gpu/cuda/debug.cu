/* debug.cu - device arithmetic on small arrays for tests/gpu (internal.h): field operations and
 * the XYZZ formulas that the MSM uses, each compared there with the CPU's field/ and curve/.
 */
#include "gpu/cuda/curve.cuh"
#include "gpu/cuda/dev.cuh"

namespace czg
{

template <class E> CZ_DEV E dbg_load(const uint64_t *p, size_t i)
{
    return load16(reinterpret_cast<const E *>(p) + i);
}

template <class E> CZ_DEV void dbg_store(uint64_t *p, size_t i, const E &v)
{
    store16(reinterpret_cast<E *>(p) + i, v);
}

__global__ void dbg_field_kernel(int op, uint64_t *out, const uint64_t *a, const uint64_t *b,
                                 size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        switch (op) {
        case GPU_DBG_FR_MUL:
            dbg_store(out, i, dbg_load<fr_e>(a, i) * dbg_load<fr_e>(b, i));
            break;
        case GPU_DBG_FR_ADD:
            dbg_store(out, i, dbg_load<fr_e>(a, i) + dbg_load<fr_e>(b, i));
            break;
        case GPU_DBG_FR_SUB:
            dbg_store(out, i, dbg_load<fr_e>(a, i) - dbg_load<fr_e>(b, i));
            break;
        case GPU_DBG_FR_NEG:
            dbg_store(out, i, -dbg_load<fr_e>(a, i));
            break;
        case GPU_DBG_FR_FROM_MONT:
            dbg_store(out, i, from_mont(dbg_load<fr_e>(a, i)));
            break;
        case GPU_DBG_CC_PROBE: {
            const fr_e x = dbg_load<fr_e>(a, i), y = dbg_load<fr_e>(b, i);
            fr_e r;
            CZ_UNROLL
            for (int j = 0; j < 8; j += 2) {
                (void)sub_cc(x.w[j], y.w[j]);
                r.w[j] = addc(0u, 0u);
                (void)add_cc(x.w[j + 1], y.w[j + 1]);
                r.w[j + 1] = subc(0u, 0u);
            }
            dbg_store(out, i, r);
            break;
        }
        case GPU_DBG_FP_MUL:
            dbg_store(out, i, dbg_load<fp_e>(a, i) * dbg_load<fp_e>(b, i));
            break;
        case GPU_DBG_FP_ADD:
            dbg_store(out, i, dbg_load<fp_e>(a, i) + dbg_load<fp_e>(b, i));
            break;
        case GPU_DBG_FP_SUB:
            dbg_store(out, i, dbg_load<fp_e>(a, i) - dbg_load<fp_e>(b, i));
            break;
        case GPU_DBG_FP_NEG:
            dbg_store(out, i, -dbg_load<fp_e>(a, i));
            break;
        case GPU_DBG_FP2_MUL:
            dbg_store(out, i, dbg_load<fp2_e>(a, i) * dbg_load<fp2_e>(b, i));
            break;
        case GPU_DBG_FP2_SQR:
            dbg_store(out, i, sqr(dbg_load<fp2_e>(a, i)));
            break;
        case GPU_DBG_FP2_ADD:
            dbg_store(out, i, dbg_load<fp2_e>(a, i) + dbg_load<fp2_e>(b, i));
            break;
        case GPU_DBG_FP2_SUB:
            dbg_store(out, i, dbg_load<fp2_e>(a, i) - dbg_load<fp2_e>(b, i));
            break;
        default:
            break;
        }
    }
}

template <class F>
__global__ void dbg_curve_kernel(const aff_t<F> *p, const aff_t<F> *q, xyzz_t<F> *out, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const aff_t<F> P = load16(p + i), Q = load16(q + i);
        const xyzz_t<F> xp = xyzz_from_aff(P), xq = xyzz_from_aff(Q);
        xyzz_t<F> r = xyzz_dbl(xp);
        if (!aff_is_inf(Q)) {
            xyzz_add_aff(r, Q);
        }
        store16(out + 4 * i, r);
        store16(out + 4 * i + 1, xyzz_dbl(xp));
        r = xyzz_dbl(xp);
        xyzz_add_call(r, xyzz_dbl_call(xq));
        store16(out + 4 * i + 2, r);
        store16(out + 4 * i + 3, xyzz_mul_small(xp, GPU_DEBUG_SMALL_K(i)));
    }
}

static size_t dbg_elem_bytes(int op)
{
    if (op <= GPU_DBG_CC_PROBE) {
        return 32;
    }
    if (op <= GPU_DBG_FP_NEG) {
        return 48;
    }
    return 96;
}

template <class F>
static cuzk_err dbg_curve(gpu_dev *dev, uint64_t *out, const void *p, const void *q, size_t n,
                          cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t pb = n * sizeof(aff_t<F>), ob = 4 * n * sizeof(xyzz_t<F>);
    char *buf = NULL;

    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_scratch(dev, 2 * pb + ob + 512, &buf, dg), done);
    CUDA_TRY(err, cudaMemcpyAsync(buf, p, pb, cudaMemcpyHostToDevice, dev->s), done);
    CUDA_TRY(err, cudaMemcpyAsync(buf + pb, q, pb, cudaMemcpyHostToDevice, dev->s), done);
    CUDA_LAUNCH(err, done, dbg_curve_kernel<F>, grid_for(dev, n, 64), 64, 0, dev->s,
                (const aff_t<F> *)buf, (const aff_t<F> *)(buf + pb), (xyzz_t<F> *)(buf + 2 * pb),
                n);
    CUDA_TRY(err, cudaMemcpyAsync(out, buf + 2 * pb, ob, cudaMemcpyDeviceToHost, dev->s), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

} // namespace czg

using namespace czg;

extern "C" {

cuzk_err gpu_debug_field(gpu_dev *dev, int op, uint64_t *out, const uint64_t *a, const uint64_t *b,
                         size_t n, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t eb = 0;
    char *buf = NULL;

    if (op < 0 || op >= GPU_DBG_OP_COUNT) {
        return cz_fail(dg, CUZK_E_INVAL, "debug op %d", op);
    }
    eb = dbg_elem_bytes(op) * n;
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_scratch(dev, 3 * eb + 512, &buf, dg), done);
    CUDA_TRY(err, cudaMemcpyAsync(buf, a, eb, cudaMemcpyHostToDevice, dev->s), done);
    CUDA_TRY(err, cudaMemcpyAsync(buf + eb, b, eb, cudaMemcpyHostToDevice, dev->s), done);
    CUDA_LAUNCH(err, done, dbg_field_kernel, grid_for(dev, n, 128), 128, 0, dev->s, op,
                (uint64_t *)(buf + 2 * eb), (const uint64_t *)buf, (const uint64_t *)(buf + eb), n);
    CUDA_TRY(err, cudaMemcpyAsync(out, buf + 2 * eb, eb, cudaMemcpyDeviceToHost, dev->s), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err gpu_debug_g1(gpu_dev *dev, uint64_t *out, const struct g1_aff *p, const struct g1_aff *q,
                      size_t n, cz_diag *dg)
{
    return dbg_curve<fp_e>(dev, out, p, q, n, dg);
}

cuzk_err gpu_debug_g2(gpu_dev *dev, uint64_t *out, const struct g2_aff *p, const struct g2_aff *q,
                      size_t n, cz_diag *dg)
{
    return dbg_curve<fp2_e>(dev, out, p, q, n, dg);
}

} /* extern "C" */
