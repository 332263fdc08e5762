/* emu_all.cpp - the CUDA backend compiled as plain C++ over the CPU emulation of emu.cuh (one
 * translation unit): the library cuzk_gpu_emu, whose gpu_count() is 1, so that tests/gpu runs
 * every kernel's logic on machines without a GPU. Not a fallback for production use: it is
 * slow and single-threaded.
 */
#define CUZK_GPU_EMU 1

#include "gpu/cuda/runtime.cu"
#include "gpu/cuda/ntt.cu"
#include "gpu/cuda/msm_g1.cu"
#include "gpu/cuda/msm_g2.cu"
#include "gpu/cuda/debug.cu"
#include "gpu/cuda/compact.cu"
#include "gpu/cuda/spmv.cu"
#include "gpu/cuda/fixed_base.cu"
