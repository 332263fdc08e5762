/* debug.cu - device arithmetic on small arrays for tests/gpu (internal.h): field operations and
 * the XYZZ formulas that the MSM uses, each compared there with the CPU's field/ and curve/.
 */
#include "gpu/cuda/curve.cuh"
#include "gpu/cuda/dev.cuh"

#include <math.h>

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

/* ---- pipe ceilings (gpu_debug_ceiling) ---- */

/* KIND bit 1: four Fp products per round; bit 2: GPU_CEIL_DFMA_PER_ROUND fused multiply-adds
 * per round on four chains. Every thread stores its results, so that none is left out. */
template <int KIND>
__global__ void __launch_bounds__(256)
    dbg_ceiling_kernel(const fp_e *seed, const fp_e *yp, unsigned iters, size_t n, fp_e *out,
                       double *dout)
{
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) {
        return;
    }
    fp_e x0 = load16(seed), x1 = load16(seed + 1), x2 = load16(seed + 2), x3 = load16(seed + 3);
    const fp_e y = load16(yp);
    double d0 = 0.0, d1 = 1.0, d2 = 2.0, d3 = 3.0;
    for (unsigned i = 0; i < iters; i++) {
        if (KIND & GPU_CEIL_FP_MUL) {
            x0 = x0 * y;
            x1 = x1 * y;
            x2 = x2 * y;
            x3 = x3 * y;
        }
        if (KIND & GPU_CEIL_DFMA) {
            CZ_UNROLL
            for (int k = 0; k < GPU_CEIL_DFMA_PER_ROUND / 4; k++) {
                d0 = fma(d0, 0.5, 1.0);
                d1 = fma(d1, 0.5, 1.0);
                d2 = fma(d2, 0.5, 1.0);
                d3 = fma(d3, 0.5, 1.0);
            }
        }
    }
    if (KIND & GPU_CEIL_FP_MUL) {
        store16(out + 4 * t, x0);
        store16(out + 4 * t + 1, x1);
        store16(out + 4 * t + 2, x2);
        store16(out + 4 * t + 3, x3);
    }
    if (KIND & GPU_CEIL_DFMA) {
        dout[t] = d0 + d1 + d2 + d3;
    }
}

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

cuzk_err gpu_debug_ceiling(gpu_dev *dev, int kind, size_t n, unsigned iters, const uint64_t *seed,
                           const uint64_t *y, uint64_t *out, double *dsum, float *ms, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    char *buf = NULL;
    cudaEvent_t ev[2] = {NULL, NULL};
    const size_t fo = 5 * sizeof(fp_e), doff = fo + n * 4 * sizeof(fp_e);

    if (kind < GPU_CEIL_FP_MUL || kind > (GPU_CEIL_FP_MUL | GPU_CEIL_DFMA) || n == 0) {
        return cz_fail(dg, CUZK_E_INVAL, "ceiling kind %d, %zu threads", kind, n);
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_scratch(dev, doff + n * sizeof(double) + 512, &buf, dg), done);
    CUDA_TRY(err, cudaEventCreateWithFlags(&ev[0], cudaEventDefault), done);
    CUDA_TRY(err, cudaEventCreateWithFlags(&ev[1], cudaEventDefault), done);
    CUDA_TRY(err, cudaMemcpyAsync(buf, seed, 4 * sizeof(fp_e), cudaMemcpyHostToDevice, dev->s),
             done);
    CUDA_TRY(
        err,
        cudaMemcpyAsync(buf + 4 * sizeof(fp_e), y, sizeof(fp_e), cudaMemcpyHostToDevice, dev->s),
        done);
    CUDA_TRY(err, cudaEventRecord(ev[0], dev->s), done);
    {
        const fp_e *sd = (const fp_e *)buf, *yd = (const fp_e *)buf + 4;
        fp_e *od = (fp_e *)(buf + fo);
        double *dd = (double *)(buf + doff);
        const unsigned grid = (unsigned)host_cdiv(n, 256);
        if (kind == GPU_CEIL_FP_MUL) {
            CUDA_LAUNCH(err, done, dbg_ceiling_kernel<GPU_CEIL_FP_MUL>, grid, 256, 0, dev->s, sd,
                        yd, iters, n, od, dd);
        } else if (kind == GPU_CEIL_DFMA) {
            CUDA_LAUNCH(err, done, dbg_ceiling_kernel<GPU_CEIL_DFMA>, grid, 256, 0, dev->s, sd, yd,
                        iters, n, od, dd);
        } else {
            CUDA_LAUNCH(err, done, (dbg_ceiling_kernel<GPU_CEIL_FP_MUL | GPU_CEIL_DFMA>), grid, 256,
                        0, dev->s, sd, yd, iters, n, od, dd);
        }
    }
    CUDA_TRY(err, cudaEventRecord(ev[1], dev->s), done);
    if (out) {
        CUDA_TRY(err,
                 cudaMemcpyAsync(out, buf + fo, 4 * sizeof(fp_e), cudaMemcpyDeviceToHost, dev->s),
                 done);
    }
    if (dsum) {
        CUDA_TRY(err,
                 cudaMemcpyAsync(dsum, buf + doff, sizeof(double), cudaMemcpyDeviceToHost, dev->s),
                 done);
    }
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
    CUDA_TRY(err, cudaEventElapsedTime(ms, ev[0], ev[1]), done);
done:
    for (int i = 0; i < 2; i++) {
        if (ev[i]) {
            (void)cudaEventDestroy(ev[i]);
        }
    }
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
