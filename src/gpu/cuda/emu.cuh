/* emu.cuh - a CPU emulation of the CUDA subset that cuda/ uses, so that the kernels' logic and
 * the host orchestration run, and are tested, on machines without a GPU (the test_gpu_emu test;
 * built only through cuda/emu_all.cpp with CUZK_GPU_EMU defined, compiled as plain C++).
 * Model: a launch runs on the calling thread, its blocks one after another; the threads of a
 * block are fibers (ucontext) switched only at __syncthreads(), so __shared__ (mapped to
 * `static thread_local`) is shared by the block and left over for the next one, as on a GPU
 * where shared memory starts undefined. The scheduler's state, the carry flag and __shared__
 * are the calling host thread's own, so threads launch concurrently: an engine's device
 * threads each drive one of CUZK_GPU_EMU_DEVICES emulated devices (1 by default). A
 * __syncthreads() that some threads of a block have exited without reaching aborts (undefined
 * behaviour on a GPU). Device allocations are host memory filled
 * with 0xcd (uninitialised reads show up as wrong results); streams and events are
 * synchronous; atomics are plain operations (one fiber runs at a time). The carry flag of the
 * PTX carry chains lives in emu::cc (field.cuh). Launch configurations are checked like the
 * runtime checks them (block size, shared memory, grid size).
 * Names: this file defines CUDA's own identifiers (__global__, __syncthreads, cudaMalloc, ...),
 * which is the one place where cuzk code spells names with a double underscore.
 * Not emulated: warp intrinsics, cooperative groups, texture memory, peer access between
 * devices.
 */
#ifndef CUZK_GPU_CUDA_EMU_CUH
#define CUZK_GPU_CUDA_EMU_CUH

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>

#include <sys/mman.h>
#include <ucontext.h>

/* ---- language ---- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__   static thread_local
#define __constant__ static
#define __launch_bounds__(...)
#define __align__(n) alignas(n)

struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c)
    {
    }
};

struct alignas(16) uint4 {
    unsigned x, y, z, w;
};

namespace emu
{

enum fiber_state { RUNNING, WAITING, DONE };

/* Context switch. On x86-64 a few instructions that keep only what the ABI asks a callee to keep
 * (glibc's swapcontext also saves the signal mask with a system call, which made the emulation
 * ten times slower); elsewhere ucontext. */
#if defined(__x86_64__)
#    define EMU_FAST_SWITCH 1
extern "C" void cz_emu_switch(void **save_sp, void *load_sp);
asm(".text\n"
    ".globl cz_emu_switch\n"
    ".hidden cz_emu_switch\n"
    ".type cz_emu_switch, @function\n"
    "cz_emu_switch:\n"
    "    pushq %rbp\n"
    "    pushq %rbx\n"
    "    pushq %r12\n"
    "    pushq %r13\n"
    "    pushq %r14\n"
    "    pushq %r15\n"
    "    movq %rsp, (%rdi)\n"
    "    movq %rsi, %rsp\n"
    "    popq %r15\n"
    "    popq %r14\n"
    "    popq %r13\n"
    "    popq %r12\n"
    "    popq %rbx\n"
    "    popq %rbp\n"
    "    ret\n"
    ".size cz_emu_switch, .-cz_emu_switch\n");
#endif

struct fiber {
#if defined(EMU_FAST_SWITCH)
    void *sp;
#else
    ucontext_t ctx;
#endif
    void *stack;
    fiber_state st;
    dim3 tid;
};

struct state {
    dim3 grid, block, bidx;
    std::vector<fiber> fibers;
    unsigned cur = 0;
#if defined(EMU_FAST_SWITCH)
    void *sched_sp = nullptr;
#else
    ucontext_t sched;
#endif
    const std::function<void()> *body = nullptr;
    std::vector<unsigned char> dyn;
    int sticky = 0; /* first launch-configuration error, as cudaGetLastError reports it */
};

static const size_t FIBER_STACK = 512 * 1024;

inline state &st()
{
    static thread_local state s;
    return s;
}

/** The carry flag of the emulated PTX .cc chains. 64 bits wide so that type-based alias
 *  analysis keeps it in a register across the chains' stores to 32-bit words. */
inline uint64_t &cc()
{
    static thread_local uint64_t c;
    return c;
}

inline const dim3 &thread_idx()
{
    state &s = st();
    return s.fibers[s.cur].tid;
}

inline void *dyn_smem()
{
    return st().dyn.data();
}

inline void fail(const char *what)
{
    std::fprintf(stderr, "gpu emulation: %s\n", what);
    std::abort();
}

/* Leaves the current fiber for the scheduler. */
inline void yield_to_scheduler()
{
    state &s = st();
#if defined(EMU_FAST_SWITCH)
    cz_emu_switch(&s.fibers[s.cur].sp, s.sched_sp);
#else
    swapcontext(&s.fibers[s.cur].ctx, &s.sched);
#endif
}

/* Runs fiber i until it waits at a barrier or finishes. */
inline void resume(unsigned i)
{
    state &s = st();
    s.cur = i;
#if defined(EMU_FAST_SWITCH)
    cz_emu_switch(&s.sched_sp, s.fibers[i].sp);
#else
    swapcontext(&s.sched, &s.fibers[i].ctx);
#endif
}

inline void fiber_entry()
{
    state &s = st();
    (*s.body)();
    s.fibers[s.cur].st = DONE;
    yield_to_scheduler();
    fail("finished fiber resumed");
}

/* Prepares fiber f to start in fiber_entry on its own stack. */
inline void fiber_start(fiber &f)
{
#if defined(EMU_FAST_SWITCH)
    /* the frame cz_emu_switch pops: r15 r14 r13 r12 rbx rbp, then the return address; the
     * address slot is 16-byte aligned, so fiber_entry starts with rsp = 8 mod 16 as after a call */
    uintptr_t top = ((uintptr_t)f.stack + FIBER_STACK - 64) & ~(uintptr_t)15;
    void **frame = (void **)top - 6;
    for (int i = 0; i < 6; i++) {
        frame[i] = nullptr;
    }
    ((void **)top)[0] = (void *)&fiber_entry;
    ((void **)top)[1] = nullptr; /* fiber_entry's own (never used) return address */
    f.sp = frame;
#else
    static thread_local ucontext_t proto;
    static thread_local bool have_proto;
    if (!have_proto) {
        getcontext(&proto);
        have_proto = true;
    }
    f.ctx = proto;
    f.ctx.uc_stack.ss_sp = f.stack;
    f.ctx.uc_stack.ss_size = FIBER_STACK;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, fiber_entry, 0);
#endif
    f.st = RUNNING;
}

inline void sync()
{
    state &s = st();
    s.fibers[s.cur].st = WAITING;
    yield_to_scheduler();
}

/** Runs `body` for every thread of every block of the grid. Returns a cudaError_t value. */
inline int launch(dim3 grid, dim3 block, size_t smem, const std::function<void()> &body)
{
    state &s = st();
    size_t nt = (size_t)block.x * block.y * block.z;

    if (nt == 0 || nt > 1024 || block.z > 64 || grid.x == 0 || grid.y == 0 || grid.z == 0 ||
        grid.y > 65535 || grid.z > 65535 || grid.x > 0x7fffffffu || smem > 227 * 1024) {
        if (!s.sticky) {
            s.sticky = 9; /* cudaErrorInvalidConfiguration */
        }
        return 9;
    }
    while (s.fibers.size() < nt) {
        fiber f{};
        f.stack = mmap(nullptr, FIBER_STACK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (f.stack == MAP_FAILED) {
            fail("cannot map a fiber stack");
        }
        s.fibers.push_back(f);
    }
    s.grid = grid;
    s.block = block;
    s.body = &body;
    s.dyn.assign(smem ? smem : 16, 0xcd);
    for (unsigned bz = 0; bz < grid.z; bz++) {
        for (unsigned by = 0; by < grid.y; by++) {
            for (unsigned bx = 0; bx < grid.x; bx++) {
                s.bidx = dim3(bx, by, bz);
                for (size_t i = 0; i < nt; i++) {
                    fiber &f = s.fibers[i];
                    f.tid = dim3((unsigned)(i % block.x), (unsigned)(i / block.x % block.y),
                                 (unsigned)(i / ((size_t)block.x * block.y)));
                    fiber_start(f);
                }
                for (;;) {
                    size_t done = 0;
                    for (size_t i = 0; i < nt; i++) {
                        if (s.fibers[i].st == RUNNING) {
                            resume((unsigned)i);
                        }
                        done += s.fibers[i].st == DONE;
                    }
                    if (done == nt) {
                        break;
                    }
                    if (done != 0) {
                        fail("__syncthreads() not reached by every thread of a block");
                    }
                    for (size_t i = 0; i < nt; i++) {
                        s.fibers[i].st = RUNNING;
                    }
                }
            }
        }
    }
    return 0;
}

inline double now_ms()
{
    using namespace std::chrono;
    return (double)duration_cast<nanoseconds>(steady_clock::now().time_since_epoch()).count() / 1e6;
}

} // namespace emu

#define threadIdx       (::emu::thread_idx())
#define blockIdx        (::emu::st().bidx)
#define blockDim        (::emu::st().block)
#define gridDim         (::emu::st().grid)
#define __syncthreads() ::emu::sync()
#define __threadfence() ((void)0)

/* ---- device intrinsics ---- */
inline unsigned atomicAdd(unsigned *p, unsigned v)
{
    unsigned o = *p;
    *p = o + v;
    return o;
}
inline unsigned long long atomicAdd(unsigned long long *p, unsigned long long v)
{
    unsigned long long o = *p;
    *p = o + v;
    return o;
}
inline unsigned __brev(unsigned x)
{
    unsigned r = 0;
    for (int i = 0; i < 32; i++) {
        r = (r << 1) | ((x >> i) & 1);
    }
    return r;
}
inline int __popc(unsigned x)
{
    return __builtin_popcount(x);
}
inline unsigned __umulhi(unsigned a, unsigned b)
{
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
template <class T> inline T __ldg(const T *p)
{
    return *p;
}

/* ---- runtime API ---- */
enum cudaError_t {
    cudaSuccess = 0,
    cudaErrorInvalidValue = 1,
    cudaErrorMemoryAllocation = 2,
    cudaErrorInvalidConfiguration = 9,
    cudaErrorNoDevice = 100,
    cudaErrorInvalidDevice = 101,
};
enum cudaMemcpyKind {
    cudaMemcpyHostToHost = 0,
    cudaMemcpyHostToDevice = 1,
    cudaMemcpyDeviceToHost = 2,
    cudaMemcpyDeviceToDevice = 3,
    cudaMemcpyDefault = 4
};
enum cudaFuncAttribute { cudaFuncAttributeMaxDynamicSharedMemorySize = 8 };
struct CUstream_st {
    int unused;
};
struct CUevent_st {
    double t;
};
typedef CUstream_st *cudaStream_t;
typedef CUevent_st *cudaEvent_t;
#define cudaStreamNonBlocking   1
#define cudaHostAllocDefault    0
#define cudaHostRegisterDefault 0
#define cudaEventDefault        0
#define cudaEventDisableTiming  2

struct cudaDeviceProp {
    char name[256];
    size_t totalGlobalMem;
    int multiProcessorCount;
    int major, minor;
    size_t sharedMemPerBlockOptin;
    int l2CacheSize;
};

/* Number of emulated devices: 1, or CUZK_GPU_EMU_DEVICES from the environment (0 tests the
 * no-device paths). */
inline int emu_device_count()
{
    static const int n = [] {
        const char *e = std::getenv("CUZK_GPU_EMU_DEVICES");
        return e ? std::atoi(e) : 1;
    }();
    return n;
}

inline const char *cudaGetErrorString(cudaError_t e)
{
    switch (e) {
    case cudaSuccess:
        return "no error";
    case cudaErrorInvalidValue:
        return "invalid argument";
    case cudaErrorMemoryAllocation:
        return "out of memory";
    case cudaErrorInvalidConfiguration:
        return "invalid configuration argument";
    case cudaErrorNoDevice:
        return "no CUDA-capable device is detected";
    case cudaErrorInvalidDevice:
        return "invalid device ordinal";
    }
    return "unknown error";
}
inline cudaError_t cudaGetLastError()
{
    int e = emu::st().sticky;
    emu::st().sticky = 0;
    return (cudaError_t)e;
}
inline cudaError_t cudaPeekAtLastError()
{
    return (cudaError_t)emu::st().sticky;
}
inline cudaError_t cudaGetDeviceCount(int *n)
{
    *n = emu_device_count();
    return *n ? cudaSuccess : cudaErrorNoDevice;
}
inline cudaError_t cudaSetDevice(int d)
{
    return d >= 0 && d < emu_device_count() ? cudaSuccess : cudaErrorInvalidDevice;
}
#define cudaDeviceLmemResizeToMax 0x10u
inline cudaError_t cudaSetDeviceFlags(unsigned flags)
{
    (void)flags;
    return cudaSuccess;
}
inline cudaError_t cudaGetDeviceProperties(cudaDeviceProp *p, int d)
{
    if (d < 0 || d >= emu_device_count()) {
        return cudaErrorInvalidDevice;
    }
    std::memset(p, 0, sizeof(*p));
    std::snprintf(p->name, sizeof(p->name), "cuzk CPU emulation");
    p->totalGlobalMem = (size_t)8 << 30;
    p->multiProcessorCount = 2;
    p->major = 9;
    p->minor = 0;
    p->sharedMemPerBlockOptin = 227 * 1024;
    p->l2CacheSize = 1 << 20;
    return cudaSuccess;
}
inline cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total)
{
    *free_b = (size_t)8 << 30;
    *total = (size_t)8 << 30;
    return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize()
{
    return cudaSuccess;
}
inline cudaError_t cudaMalloc(void **p, size_t n)
{
    size_t len = (n + 255) & ~(size_t)255;
    *p = std::aligned_alloc(256, len ? len : 256);
    if (!*p) {
        return cudaErrorMemoryAllocation;
    }
    std::memset(*p, 0xcd, len ? len : 256);
    return cudaSuccess;
}
inline cudaError_t cudaFree(void *p)
{
    std::free(p);
    return cudaSuccess;
}
inline cudaError_t cudaMallocHost(void **p, size_t n)
{
    *p = std::malloc(n ? n : 1);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
inline cudaError_t cudaFreeHost(void *p)
{
    std::free(p);
    return cudaSuccess;
}
inline cudaError_t cudaHostRegister(void *, size_t, unsigned)
{
    return cudaSuccess;
}
inline cudaError_t cudaHostUnregister(void *)
{
    return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind)
{
    if (n) {
        std::memmove(d, s, n);
    }
    return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, cudaMemcpyKind k, cudaStream_t)
{
    return cudaMemcpy(d, s, n, k);
}
inline cudaError_t cudaMemset(void *d, int v, size_t n)
{
    std::memset(d, v, n);
    return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t)
{
    return cudaMemset(d, v, n);
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned)
{
    *s = new CUstream_st();
    return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t s)
{
    delete s;
    return cudaSuccess;
}
inline cudaError_t cudaStreamSynchronize(cudaStream_t)
{
    return cudaSuccess;
}
inline cudaError_t cudaStreamWaitEvent(cudaStream_t, cudaEvent_t, unsigned)
{
    return cudaSuccess;
}
inline cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned)
{
    *e = new CUevent_st();
    return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e)
{
    delete e;
    return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t)
{
    e->t = emu::now_ms();
    return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t)
{
    return cudaSuccess;
}
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b)
{
    *ms = (float)(b->t - a->t);
    return cudaSuccess;
}
typedef void (*cudaHostFn_t)(void *);
/* The emulated streams run each call to completion: a host function runs at once. */
inline cudaError_t cudaLaunchHostFunc(cudaStream_t, cudaHostFn_t fn, void *arg)
{
    fn(arg);
    return cudaSuccess;
}
template <class F> inline cudaError_t cudaFuncSetAttribute(F, cudaFuncAttribute, int)
{
    return cudaSuccess;
}

#endif /* CUZK_GPU_CUDA_EMU_CUH */
