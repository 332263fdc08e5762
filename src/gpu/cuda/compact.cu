/* compact.cu - density compaction of 32-byte elements in device memory (gpu.h,
 * gpu_fr_compact_buf): the Groth16 prover keeps the assignment [inputs | aux] on the device once
 * and gathers the scalars of the A and B MSMs from it (spec groth16.md 4.6: position i consumes
 * the next base iff its density bit is set).
 * One thread per position, grid-stride: consecutive threads read consecutive elements, and the
 * writes of set positions stay in order, so both sides coalesce. The destination of position i
 * comes from the compaction map (gpu_compact.c): the prefix count of its word plus the set bits
 * below it in that word.
 */
#include "gpu/cuda/dev.cuh"

namespace czg
{
namespace
{

/* Set bits of a 64-bit word (two 32-bit counts: the emulation has no 64-bit intrinsic). */
CZ_DEV unsigned popc64(uint64_t x)
{
    return (unsigned)__popc((unsigned)x) + (unsigned)__popc((unsigned)(x >> 32));
}

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

} /* extern "C" */
