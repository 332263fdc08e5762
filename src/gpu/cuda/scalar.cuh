/* scalar.cuh - reading windows of 256-bit scalars held as eight little-endian 32-bit words in
 * registers: the fixed-base setup's digits (fixed_base.cu; the MSM reads word planes).
 */
#ifndef CUZK_GPU_CUDA_SCALAR_CUH
#define CUZK_GPU_CUDA_SCALAR_CUH

#include "gpu/cuda/common.cuh"

/** Word i of a 256-bit scalar, 0 past the end (selects, no local-memory indexing). */
CZ_DEV uint32_t scalar_word(const uint32_t s[8], unsigned i)
{
    uint32_t r = 0;
    CZ_UNROLL
    for (unsigned k = 0; k < 8; k++) {
        r = i == k ? s[k] : r;
    }
    return r;
}

/** Bits [pos, pos + len) of the scalar (zero past the top), len <= 25. */
CZ_DEV uint32_t scalar_bits(const uint32_t s[8], unsigned pos, unsigned len)
{
    unsigned wi = pos >> 5, sh = pos & 31;
    uint64_t two = (uint64_t)scalar_word(s, wi) | ((uint64_t)scalar_word(s, wi + 1) << 32);
    return (uint32_t)(two >> sh) & ((1u << len) - 1);
}

#endif /* CUZK_GPU_CUDA_SCALAR_CUH */
