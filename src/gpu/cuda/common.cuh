/* common.cuh - included first by every file of cuda/: the CUDA runtime (or, with CUZK_GPU_EMU,
 * its CPU emulation in emu.cuh), the function qualifiers, kernel launches and CUDA_TRY.
 */
#ifndef CUZK_GPU_CUDA_COMMON_CUH
#define CUZK_GPU_CUDA_COMMON_CUH

#if defined(CUZK_GPU_EMU)
#    include "gpu/cuda/emu.cuh"
#else
#    include <cuda_runtime.h>
#endif

#include <stddef.h>
#include <stdint.h>

extern "C" { /* the C headers of common/ have no C++ guards */
#include "common/alloc.h"
#include "common/common.h"
}
#include "gpu/gpu.h"
#include "gpu/internal.h"

/** Full unrolling of the next loop (GCC's unroller in the emulation, for the same effect:
 *  register arrays indexed by constants). */
#if defined(CUZK_GPU_EMU)
#    define CZ_UNROLL _Pragma("GCC unroll 32")
#else
#    define CZ_UNROLL _Pragma("unroll")
#endif

/** Device function, always inlined. */
#define CZ_DEV      __device__ __forceinline__
/** Device function kept out of line: one copy per kernel instead of one per call site (the big
 *  curve formulas outside the hot loops, and Fp2 products), for code size and compile time. */
#define CZ_DEV_CALL __device__ __noinline__

/** kern<<<grid, block, smem, stream>>>(args...) on a GPU; a fiber-per-thread run on the CPU. A
 *  template kernel with several arguments goes in parentheses: CZ_LAUNCH((k<A, B>), ...). */
#if defined(CUZK_GPU_EMU)
#    define CZ_LAUNCH(kern, grid, block, smem, stream, ...)                                        \
        ((void)(stream), ::emu::launch((grid), (block), (smem), [=]() { kern(__VA_ARGS__); }))
#    define CZ_DYN_SMEM(type, name) type *name = reinterpret_cast<type *>(::emu::dyn_smem())
#else
#    define CZ_LAUNCH(kern, grid, block, smem, stream, ...)                                        \
        kern<<<(grid), (block), (smem), (stream)>>>(__VA_ARGS__)
#    define CZ_DYN_SMEM(type, name)                                                                \
        extern __shared__ uint4 cz_dyn_smem_raw[];                                                 \
        type *name = reinterpret_cast<type *>(cz_dyn_smem_raw)
#endif

/** Evaluates a CUDA runtime call; on failure records "expr@file:line: <cuda error>" in the
 *  caller's `dg` (which must be in scope), sets `err` to CUZK_E_GPU (CUZK_E_NOMEM for an
 *  allocation failure) and jumps to `label`. */
#define CUDA_TRY(err, expr, label)                                                                 \
    do {                                                                                           \
        cudaError_t cuda_try_e_ = (expr);                                                          \
        if (cuda_try_e_ != cudaSuccess) {                                                          \
            (void)cudaGetLastError();                                                              \
            (err) = cz_fail(                                                                       \
                dg, cuda_try_e_ == cudaErrorMemoryAllocation ? CUZK_E_NOMEM : CUZK_E_GPU,          \
                "%s@%s:%d: %s", #expr, __FILE__, __LINE__, cudaGetErrorString(cuda_try_e_));       \
            goto label;                                                                            \
        }                                                                                          \
    } while (0)

/** A kernel launch checked through cudaGetLastError(), as CUDA_TRY. */
#define CUDA_LAUNCH(err, label, kern, grid, block, smem, stream, ...)                              \
    do {                                                                                           \
        CZ_LAUNCH(kern, grid, block, smem, stream, __VA_ARGS__);                                   \
        CUDA_TRY(err, cudaGetLastError(), label);                                                  \
    } while (0)

namespace czg
{

/** Ceiling division for sizes (host). */
inline size_t host_cdiv(size_t a, size_t b)
{
    return (a + b - 1) / b;
}

/** Set bits of a 64-bit word (two 32-bit counts: the emulation has no 64-bit intrinsic). */
CZ_DEV unsigned popc64(uint64_t x)
{
    return (unsigned)__popc((unsigned)x) + (unsigned)__popc((unsigned)(x >> 32));
}

/** The class of position p of a vector's classes (gpu.h: three words per block of 64
 *  positions: not zero, other, others before the block): 0 zero, 1 the unit, 2 an other, whose
 *  index among a slice's others (the slice's first being the vector's other `base`) goes to *q. */
CZ_DEV int class_at(const uint64_t *map, size_t p, uint64_t base, size_t *q)
{
    const size_t w = p >> 6;
    const uint64_t bit = (uint64_t)1 << (p & 63);
    if (!(map[3 * w] & bit)) {
        return 0;
    }
    if (!(map[3 * w + 1] & bit)) {
        return 1;
    }
    *q = (size_t)(map[3 * w + 2] + popc64(map[3 * w + 1] & (bit - 1)) - base);
    return 2;
}

/** Offsets of sub-buffers in one scratch allocation, each 256-byte aligned. */
struct layout {
    size_t off = 0;
    size_t add(size_t n)
    {
        off = (off + 255) & ~(size_t)255;
        size_t o = off;
        off += n;
        return o;
    }
};

} // namespace czg

#endif /* CUZK_GPU_CUDA_COMMON_CUH */
