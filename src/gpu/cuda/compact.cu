/* compact.cu - density compaction of 32-byte elements in device memory (gpu.h,
 * gpu_fr_compact_buf): the Groth16 prover keeps the assignment [inputs | aux] on the device once
 * and gathers the scalars of the A and B MSMs from it (spec groth16.md 4.6: position i consumes
 * the next base iff its density bit is set). Also the expansion of a vector's classes
 * (gpu_fr_expand_buf; the layout in gpu.h, built by gpu_classes.c): zero, the unit, or the next
 * other value, one thread per position.
 * One thread per position, grid-stride: consecutive threads read consecutive elements, and the
 * writes of set positions stay in order, so both sides coalesce. The destination of position i
 * comes from the compaction map (gpu_compact.c): the prefix count of its word plus the set bits
 * below it in that word.
 */
#include "gpu/cuda/dev.cuh"

#include <string.h>

namespace czg
{
namespace
{

/* out[prefix(i)] = in[i] for every set position i < n; elements are two uint4 each. */
__global__ void compact_kernel(uint4 *out, const uint4 *in, const uint64_t *map, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const size_t w = i >> 6;
        const unsigned bit = (unsigned)(i & 63);
        const uint64_t bits = map[2 * w];
        if ((bits >> bit) & 1) {
            const size_t k = (size_t)map[2 * w + 1] + popc64(bits & (((uint64_t)1 << bit) - 1));
            out[2 * k] = in[2 * i];
            out[2 * k + 1] = in[2 * i + 1];
        }
    }
}

/* A 32-byte element passed by value. */
struct elem32 {
    uint4 lo, hi;
};

/* out[i] = position bit0 + i of a slice: map holds three words per block (not zero, other,
 * others before the block), oth the slice's others (the first is the vector's other `base`). */
__global__ void expand_kernel(uint4 *out, const uint64_t *map, const uint4 *oth, size_t n_oth,
                              unsigned bit0, uint64_t base, size_t k, elem32 unit)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < k;
         i += (size_t)gridDim.x * blockDim.x) {
        size_t q = 0;
        const int cls = class_at(map, i + bit0, base, &q);
        uint4 lo = {0, 0, 0, 0}, hi = {0, 0, 0, 0};
        if (cls) {
            lo = unit.lo;
            hi = unit.hi;
        }
        if (cls == 2 && q < n_oth) { /* a malformed slice reads nothing outside */
            lo = oth[2 * q];
            hi = oth[2 * q + 1];
        }
        out[2 * i] = lo;
        out[2 * i + 1] = hi;
    }
}

/* True when [off, off + len) lies inside a buffer of `total` bytes. */
bool in_range(size_t off, size_t len, size_t total)
{
    return off <= total && len <= total - off;
}

} // namespace
} // namespace czg

using namespace czg;

extern "C" {

cuzk_err gpu_fr_compact_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_buf *in,
                            size_t in_off, const gpu_buf *map, size_t map_off, size_t n,
                            size_t count, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t map_bytes = gpu_compact_map_sizeof(n);

    if (out->dev != dev || in->dev != dev || map->dev != dev || out_off % 32 != 0 ||
        in_off % 32 != 0 || map_off % 16 != 0 || count > n || n > SIZE_MAX / 32 ||
        !in_range(in_off, n * 32, in->len) || !in_range(out_off, count * 32, out->len) ||
        !in_range(map_off, map_bytes, map->len)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "compaction of %zu elements (%zu kept) from offset %zu of %zu bytes to "
                       "offset %zu of %zu bytes, map at %zu of %zu bytes",
                       n, count, in_off, in->len, out_off, out->len, map_off, map->len);
    }
    if (count == 0) {
        return CUZK_OK;
    }
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_LAUNCH(err, done, compact_kernel, grid_for(dev, n, 256), 256, 0, dev->s,
                (uint4 *)((char *)out->ptr + out_off),
                (const uint4 *)((const char *)in->ptr + in_off),
                (const uint64_t *)(const void *)((const char *)map->ptr + map_off), n);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err gpu_fr_expand_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_buf *in,
                           size_t map_off, size_t nw, size_t oth_off, size_t n_oth, unsigned bit0,
                           uint64_t base, size_t k, const struct fr *unit, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    elem32 u;

    if (out->dev != dev || in->dev != dev || out_off % 32 != 0 || map_off % 8 != 0 ||
        oth_off % 32 != 0 || bit0 >= 64 || k > SIZE_MAX / 32 - 64 || n_oth > SIZE_MAX / 32 ||
        nw > SIZE_MAX / 8 || nw < (bit0 + k + 63) / 64 * 3 ||
        !in_range(out_off, k * 32, out->len) || !in_range(map_off, nw * 8, in->len) ||
        !in_range(oth_off, n_oth * 32, in->len)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "expansion of %zu values (bit %u) to offset %zu of %zu bytes from %zu "
                       "class words at %zu and %zu others at %zu of %zu bytes",
                       k, bit0, out_off, out->len, nw, map_off, n_oth, oth_off, in->len);
    }
    if (k == 0) {
        return CUZK_OK;
    }
    memcpy(&u, unit, sizeof(u));
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_LAUNCH(err, done, expand_kernel, grid_for(dev, k, 256), 256, 0, dev->s,
                (uint4 *)((char *)out->ptr + out_off),
                (const uint64_t *)(const void *)((const char *)in->ptr + map_off),
                (const uint4 *)((const char *)in->ptr + oth_off), n_oth, bit0, base, k, u);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

} /* extern "C" */
