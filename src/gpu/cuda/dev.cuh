/* dev.cuh - the handles of gpu.h as the CUDA side defines them, and the per-device caches and
 * scratch area that ntt.cu and msm.cu share (runtime.cu implements the functions).
 * All work of a gpu_dev runs on its own stream `s` (an MSM forks part of it to `s_sort` and joins
 * it back); a call makes the device current first.
 */
#ifndef CUZK_GPU_CUDA_DEV_CUH
#define CUZK_GPU_CUDA_DEV_CUH

#include "gpu/cuda/common.cuh"

#include <pthread.h>

/* Optional phase timing of MSM calls (gpu_debug_profile): events recorded on the device stream,
 * each closing an interval attributed to a phase. */
#define GPU_PROF_MAX_EVENTS 2048

struct gpu_prof {
    bool on;
    unsigned n;
    cudaEvent_t ev[GPU_PROF_MAX_EVENTS];
    int phase[GPU_PROF_MAX_EVENTS];
    float ms[GPU_PROF_PHASES];
};

/* Events of the MSM's two-stream pipeline (msm.cuh): classify done, group sorted (per buffer
 * set), accumulation started. */
#define GPU_MSM_EVENTS 4

struct gpu_dev {
    int index;
    cudaStream_t s;
    /* the MSM's sort stream: sorts the next window group while `s` accumulates this one; every
     * use is joined back into `s` before the call returns */
    cudaStream_t s_sort;
    cudaEvent_t msm_ev[GPU_MSM_EVENTS];
    char name[128];
    size_t total_mem;
    unsigned sm_count;
    unsigned cc_major, cc_minor;
    /* scratch area for one call at a time (grow-only until gpu_dev_trim) */
    void *scratch;
    size_t scratch_len;
    /* a second one, for the MSM's affine rounds, sized once the scalars are classified */
    void *scratch2;
    size_t scratch2_len;
    /* NTT twiddles: tw[2^s + e] = omega_(2^(s+1))^e for s < tw_lg, e < 2^s; split (tw_split =
     * S > 0): that table for s < S only, followed by 2^S powers of omega_(2^(s+1)) for each s in
     * [S, tw_lg) (ntt.cu); tw_bytes: the allocation; tw_mode: gpu_debug_ntt_twiddles */
    void *tw;
    unsigned tw_lg, tw_split;
    size_t tw_bytes;
    int tw_mode;
    /* coset factor tables (gpu_host_scale_tables) for one transform size */
    void *scale[GPU_SCALE_COUNT];
    unsigned scale_lg[GPU_SCALE_COUNT];
    size_t scale_bytes[GPU_SCALE_COUNT];
    /* NTT pass layout, 0 = default (gpu_debug_ntt_layout): most stages of the pass with
     * s_lo = 0, of the other passes, and log2 of the elements per tile */
    unsigned ntt_k0, ntt_k1, ntt_tile_lg;
    unsigned ntt_minb;       /* pass kernel build: 1 or 2 blocks per SM guaranteed (0 = 2) */
    unsigned msm_chunk;      /* MSM accumulation: sorted entries per thread (0 = automatic) */
    unsigned msm_group;      /* MSM: most windows per group (0 = automatic) */
    unsigned msm_aff_rounds; /* MSM: affine rounds before the accumulation (or ..._AUTO) */
    gpu_prof *prof;          /* NULL unless profiling */
    /* device memory through dev_malloc: the cap (gpu_dev_set_mem_cap, 0 = none) and the bytes
     * allocated now (device thread only) */
    size_t mem_cap, mem_used;
    /* host-to-device copies (dev_h2d): bytes since opening (atomic: a second thread may
     * upload), and the pacing of gpu_dev_set_h2d_rate: the earliest start of the next paced
     * slice (pace_mu) */
    uint64_t h2d_bytes;
    uint64_t h2d_rate; /* bytes per second, 0 = unpaced */
    uint64_t pace_next_ns;
    pthread_mutex_t pace_mu;
    unsigned long h2d_fail_in; /* gpu_debug_fail_h2d: the copy that fails, counting down; 0 off */
};

struct gpu_buf {
    gpu_dev *dev;
    void *ptr;
    size_t len;
};

struct gpu_stream {
    gpu_dev *dev;
    cudaStream_t s;
};

struct gpu_event {
    gpu_dev *dev;
    cudaEvent_t e;
};

struct gpu_msm_bases {
    gpu_dev *dev;
    int group; /* 1 or 2 */
    void *ptr;
    size_t n;
    bool view; /* gpu_msm_bases_view: ptr belongs to a gpu_buf */
};

namespace czg
{

/** Makes `dev` current on the calling thread. */
cuzk_err dev_enter(gpu_dev *dev, cz_diag *dg);
/** Scratch of at least `len` bytes (256-byte aligned), valid until the next call on `dev`. */
cuzk_err dev_scratch(gpu_dev *dev, size_t len, char **out, cz_diag *dg);
/** The same from the second scratch area, which growing leaves the first one's contents. */
cuzk_err dev_scratch2(gpu_dev *dev, size_t len, char **out, cz_diag *dg);
/** Profiling: starts a profiled call (no-op when off), closes an interval of `phase`, and
 *  (after the stream is synchronized) adds the intervals up into prof->ms. */
void prof_begin(gpu_dev *dev);
void prof_mark(gpu_dev *dev, int phase);
void prof_end(gpu_dev *dev);

/** len bytes of device memory counted against the device's cap (CUZK_E_NOMEM above it, the
 *  message naming the cap), 256-byte aligned; len 0 takes 1 byte. */
cuzk_err dev_malloc(gpu_dev *dev, void **p, size_t len, cz_diag *dg);
/** Frees what dev_malloc gave for len bytes; NULL does nothing. */
void dev_free(gpu_dev *dev, void *p, size_t len);
/** Queues a host-to-device copy on stream s, counted in h2d_bytes and, when the device is
 *  paced, cut into slices each preceded by a host function that waits for its turn. */
cuzk_err dev_h2d(gpu_dev *dev, void *dst, const void *src, size_t len, cudaStream_t s, cz_diag *dg);

/** Waits for the device stream. */
cuzk_err dev_sync(gpu_dev *dev, cz_diag *dg);

/** Blocks for a grid-stride loop over n items: enough to fill the device, at most 16 per SM. */
inline unsigned grid_for(const gpu_dev *d, size_t n, unsigned block)
{
    size_t g = host_cdiv(n, block), cap = (size_t)d->sm_count * 16;
    if (g > cap) {
        g = cap;
    }
    return g ? (unsigned)g : 1;
}

} // namespace czg

#endif /* CUZK_GPU_CUDA_DEV_CUH */
