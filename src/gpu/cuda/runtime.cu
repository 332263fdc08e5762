/* runtime.cu - devices, buffers, pinned host memory, streams and events (gpu.h), and the
 * per-device scratch area of dev.cuh.
 */
#include "gpu/cuda/dev.cuh"

#include <stdio.h>
#include <string.h>
#include <time.h>

namespace czg
{

cuzk_err dev_enter(gpu_dev *dev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CUDA_TRY(err, cudaSetDevice(dev->index), done);
done:
    return err;
}

cuzk_err dev_sync(gpu_dev *dev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
done:
    return err;
}

cuzk_err dev_malloc(gpu_dev *dev, void **p, size_t len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t want = len ? len : 1;

    *p = NULL;
    if (dev->mem_cap && (dev->mem_used > dev->mem_cap || want > dev->mem_cap - dev->mem_used)) {
        return cz_fail(dg, CUZK_E_NOMEM,
                       "device memory cap of %zu bytes: %zu allocated, %zu more asked",
                       dev->mem_cap, dev->mem_used, want);
    }
    CUDA_TRY(err, cudaMalloc(p, want), done);
    dev->mem_used += want;
done:
    return err;
}

void dev_free(gpu_dev *dev, void *p, size_t len)
{
    if (p) {
        (void)cudaFree(p);
        dev->mem_used -= len ? len : 1;
    }
}

/* A paced slice's turn: waits until the link is free at the configured rate, then books the
 * slice's time. Runs as a host function of the copy's stream, before the copy. */
struct pace_slice {
    gpu_dev *dev;
    size_t len;
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void pace_wait(void *arg)
{
    pace_slice *ps = (pace_slice *)arg;
    gpu_dev *d = ps->dev;
    uint64_t now = mono_ns(), start;

    pthread_mutex_lock(&d->pace_mu);
    start = d->pace_next_ns > now ? d->pace_next_ns : now;
    d->pace_next_ns = start + (uint64_t)((double)ps->len * 1e9 / (double)d->h2d_rate);
    pthread_mutex_unlock(&d->pace_mu);
    while ((now = mono_ns()) < start) {
        uint64_t w = start - now;
        struct timespec ts = {(time_t)(w / 1000000000u), (long)(w % 1000000000u)};
        nanosleep(&ts, NULL);
    }
    cz_free(ps);
}

/* Bytes per paced slice: fine enough that a slice's burst stays short at the rates emulated. */
#define PACE_SLICE ((size_t)4 << 20)

cuzk_err dev_h2d(gpu_dev *dev, void *dst, const void *src, size_t len, cudaStream_t s, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    const size_t slice = dev->h2d_rate ? PACE_SLICE : len;

    if (dev->h2d_fail_in && --dev->h2d_fail_in == 0) {
        return cz_fail(dg, CUZK_E_GPU, "injected host-to-device copy failure (gpu_debug_fail_h2d)");
    }
    for (size_t at = 0; at < len; at += slice) {
        size_t k = len - at < slice ? len - at : slice;
        if (dev->h2d_rate) {
            pace_slice *ps = (pace_slice *)cz_malloc(sizeof(*ps));
            if (!ps) {
                return cz_fail(dg, CUZK_E_NOMEM, "a paced copy");
            }
            ps->dev = dev;
            ps->len = k;
            if (cudaLaunchHostFunc(s, pace_wait, ps) != cudaSuccess) {
                cz_free(ps);
            }
            CUDA_TRY(err, cudaGetLastError(), done);
        }
        CUDA_TRY(
            err,
            cudaMemcpyAsync((char *)dst + at, (const char *)src + at, k, cudaMemcpyHostToDevice, s),
            done);
        __atomic_fetch_add(&dev->h2d_bytes, (uint64_t)k, __ATOMIC_RELAXED);
    }
done:
    return err;
}

/* Frees the scratch area *area (NULL: nothing to do). */
static cuzk_err scratch_free(gpu_dev *dev, void **area, size_t *area_len, cz_diag *dg)
{
    if (*area) {
        dev_free(dev, *area, *area_len);
        *area = NULL;
        *area_len = 0;
    }
    (void)dg;
    return CUZK_OK;
}

/* Grows the area *area of *area_len bytes to at least len (by half at least, in 64 MiB steps,
 * so that rising sizes do not reallocate often); its contents are lost when it grows. */
static cuzk_err scratch_grow(gpu_dev *dev, void **area, size_t *area_len, size_t len, char **out,
                             cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t want;
    void *p = NULL;

    if (len <= *area_len) {
        *out = (char *)*area;
        return CUZK_OK;
    }
    want = len > *area_len + *area_len / 2 ? len : *area_len + *area_len / 2;
    want = (want + ((size_t)64 << 20) - 1) & ~(((size_t)64 << 20) - 1);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
    CZ_TRY(err, scratch_free(dev, area, area_len, dg), done);
    if (dev_malloc(dev, &p, want, NULL) != CUZK_OK) {
        (void)cudaGetLastError();
        p = NULL;
        CZ_TRY(err, dev_malloc(dev, &p, len, dg), done);
        want = len;
    }
    *area = p;
    *area_len = want;
    *out = (char *)p;
done:
    return err;
}

cuzk_err dev_scratch(gpu_dev *dev, size_t len, char **out, cz_diag *dg)
{
    return scratch_grow(dev, &dev->scratch, &dev->scratch_len, len, out, dg);
}

cuzk_err dev_scratch2(gpu_dev *dev, size_t len, char **out, cz_diag *dg)
{
    return scratch_grow(dev, &dev->scratch2, &dev->scratch2_len, len, out, dg);
}

void prof_begin(gpu_dev *dev)
{
    if (!dev->prof) {
        return;
    }
    dev->prof->n = 0;
    memset(dev->prof->ms, 0, sizeof(dev->prof->ms));
    prof_mark(dev, -1);
}

void prof_mark(gpu_dev *dev, int phase)
{
    gpu_prof *p = dev->prof;
    if (!p || p->n == GPU_PROF_MAX_EVENTS) {
        return;
    }
    if (cudaEventRecord(p->ev[p->n], dev->s) != cudaSuccess) {
        (void)cudaGetLastError();
        return;
    }
    p->phase[p->n++] = phase;
}

void prof_end(gpu_dev *dev)
{
    gpu_prof *p = dev->prof;
    if (!p) {
        return;
    }
    for (unsigned i = 1; i < p->n; i++) {
        float ms = 0;
        if (p->phase[i] >= 0 && p->phase[i] < GPU_PROF_PHASES &&
            cudaEventElapsedTime(&ms, p->ev[i - 1], p->ev[i]) == cudaSuccess) {
            p->ms[p->phase[i]] += ms;
        }
    }
    (void)cudaGetLastError();
}

} // namespace czg

using namespace czg;

static void prof_free(gpu_dev *dev)
{
    if (dev->prof) {
        for (unsigned i = 0; i < GPU_PROF_MAX_EVENTS; i++) {
            (void)cudaEventDestroy(dev->prof->ev[i]);
        }
        (void)cudaGetLastError();
        cz_free(dev->prof);
        dev->prof = NULL;
    }
}

extern "C" {

unsigned gpu_count(void)
{
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return n > 0 ? (unsigned)n : 0;
}

/* Destroys what gpu_dev_open created of the streams and events (NULL members skipped). */
static void dev_streams_free(gpu_dev *d)
{
    for (int i = 0; i < GPU_MSM_EVENTS; i++) {
        if (d->msm_ev[i]) {
            (void)cudaEventDestroy(d->msm_ev[i]);
        }
    }
    if (d->s_sort) {
        (void)cudaStreamDestroy(d->s_sort);
    }
    if (d->s) {
        (void)cudaStreamDestroy(d->s);
    }
}

cuzk_err gpu_dev_open(gpu_dev **out, unsigned index, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_dev *d = NULL;
    cudaDeviceProp prop;

    *out = NULL;
    if (index >= gpu_count()) {
        return cz_fail(dg, CUZK_E_NO_GPU, "no GPU with index %u (%u found)", index, gpu_count());
    }
    d = (gpu_dev *)cz_calloc(1, sizeof(*d));
    if (!d) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_dev");
    }
    d->index = (int)index;
    CUDA_TRY(err, cudaSetDevice(d->index), done);
    /* a kernel's local memory, once reserved, stays: what the MSM's G2 kernels take at their
     * first launch is then taken once (gpu_dev_warm), not again at each launch on a full card.
     * A runtime that refuses the flag on a live context only loses that: not an error. */
    if (cudaSetDeviceFlags(cudaDeviceLmemResizeToMax) != cudaSuccess) {
        (void)cudaGetLastError();
    }
    CUDA_TRY(err, cudaGetDeviceProperties(&prop, d->index), done);
    snprintf(d->name, sizeof(d->name), "%.127s", prop.name);
    d->total_mem = prop.totalGlobalMem;
    d->sm_count = (unsigned)prop.multiProcessorCount;
    d->cc_major = (unsigned)prop.major;
    d->cc_minor = (unsigned)prop.minor;
    d->msm_aff_rounds = GPU_MSM_AFF_ROUNDS_AUTO;
    pthread_mutex_init(&d->pace_mu, NULL);
    CUDA_TRY(err, cudaStreamCreateWithFlags(&d->s, cudaStreamNonBlocking), done);
    CUDA_TRY(err, cudaStreamCreateWithFlags(&d->s_sort, cudaStreamNonBlocking), done);
    for (int i = 0; i < GPU_MSM_EVENTS; i++) {
        CUDA_TRY(err, cudaEventCreateWithFlags(&d->msm_ev[i], cudaEventDisableTiming), done);
    }
    *out = d;
    d = NULL;
done:
    if (d) {
        dev_streams_free(d);
        pthread_mutex_destroy(&d->pace_mu);
    }
    cz_free(d);
    return err;
}

cuzk_err gpu_dev_trim(gpu_dev *dev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_TRY(err, cudaStreamSynchronize(dev->s), done);
    CZ_TRY(err, scratch_free(dev, &dev->scratch, &dev->scratch_len, dg), done);
    CZ_TRY(err, scratch_free(dev, &dev->scratch2, &dev->scratch2_len, dg), done);
    if (dev->tw) {
        dev_free(dev, dev->tw, dev->tw_bytes);
        dev->tw = NULL;
        dev->tw_lg = 0;
        dev->tw_split = 0;
        dev->tw_bytes = 0;
    }
    for (int i = 0; i < GPU_SCALE_COUNT; i++) {
        if (dev->scale[i]) {
            dev_free(dev, dev->scale[i], dev->scale_bytes[i]);
            dev->scale[i] = NULL;
            dev->scale_lg[i] = 0;
        }
    }
done:
    return err;
}

void gpu_dev_close(gpu_dev *dev)
{
    if (!dev) {
        return;
    }
    if (cudaSetDevice(dev->index) == cudaSuccess) {
        (void)cudaStreamSynchronize(dev->s);
        cuzk_err e = gpu_dev_trim(dev, NULL);
        (void)e;
        prof_free(dev);
        dev_streams_free(dev);
    }
    (void)cudaGetLastError();
    pthread_mutex_destroy(&dev->pace_mu);
    cz_free(dev);
}

cuzk_err gpu_dev_get_info(gpu_dev *dev, gpu_dev_info *info, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t free_b = 0, total = 0;

    memset(info, 0, sizeof(*info));
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_TRY(err, cudaMemGetInfo(&free_b, &total), done);
    snprintf(info->name, sizeof(info->name), "%s", dev->name);
    info->total_mem = dev->total_mem;
    info->free_mem = free_b;
    info->used_mem = dev->mem_used;
    info->mem_cap = dev->mem_cap;
    if (dev->mem_cap) {
        size_t left = dev->mem_cap > dev->mem_used ? dev->mem_cap - dev->mem_used : 0;
        info->total_mem = dev->mem_cap < info->total_mem ? dev->mem_cap : info->total_mem;
        info->free_mem = left < free_b ? left : free_b;
    }
    info->sm_count = dev->sm_count;
    info->cc_major = dev->cc_major;
    info->cc_minor = dev->cc_minor;
done:
    return err;
}

void gpu_dev_set_mem_cap(gpu_dev *dev, size_t bytes)
{
    dev->mem_cap = bytes;
}

void gpu_dev_set_h2d_rate(gpu_dev *dev, uint64_t bytes_per_s)
{
    pthread_mutex_lock(&dev->pace_mu);
    dev->h2d_rate = bytes_per_s;
    dev->pace_next_ns = 0;
    pthread_mutex_unlock(&dev->pace_mu);
}

void gpu_debug_fail_h2d(gpu_dev *dev, unsigned long nth)
{
    dev->h2d_fail_in = nth;
}

uint64_t gpu_dev_h2d_bytes(const gpu_dev *dev)
{
    return dev ? __atomic_load_n(&dev->h2d_bytes, __ATOMIC_RELAXED) : 0;
}

cuzk_err gpu_debug_msm_chunk(gpu_dev *dev, unsigned chunk, cz_diag *dg)
{
    if (chunk && (chunk < GPU_MSM_CHUNK_MIN || chunk > GPU_MSM_CHUNK_MAX)) {
        return cz_fail(dg, CUZK_E_INVAL, "MSM chunks of %u entries", chunk);
    }
    dev->msm_chunk = chunk;
    return CUZK_OK;
}

cuzk_err gpu_debug_msm_group(gpu_dev *dev, unsigned max_windows, cz_diag *dg)
{
    if (max_windows > GPU_MSM_GROUP_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "MSM groups of %u windows", max_windows);
    }
    dev->msm_group = max_windows;
    return CUZK_OK;
}

cuzk_err gpu_debug_msm_aff_rounds(gpu_dev *dev, unsigned rounds, cz_diag *dg)
{
    if (rounds > GPU_MSM_AFF_ROUNDS_MAX && rounds != GPU_MSM_AFF_ROUNDS_AUTO) {
        return cz_fail(dg, CUZK_E_INVAL, "%u affine MSM rounds", rounds);
    }
    dev->msm_aff_rounds = rounds;
    return CUZK_OK;
}

cuzk_err gpu_debug_profile(gpu_dev *dev, bool on, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_prof *p = NULL;

    CZ_TRY(err, dev_enter(dev, dg), done);
    if (!on) {
        prof_free(dev);
        goto done;
    }
    if (dev->prof) {
        goto done;
    }
    p = (gpu_prof *)cz_calloc(1, sizeof(*p));
    if (!p) {
        err = cz_fail(dg, CUZK_E_NOMEM, "profiler");
        goto done;
    }
    for (unsigned i = 0; i < GPU_PROF_MAX_EVENTS; i++) {
        CUDA_TRY(err, cudaEventCreateWithFlags(&p->ev[i], cudaEventDefault), done);
    }
    p->on = true;
    dev->prof = p;
    p = NULL;
done:
    if (p) {
        for (unsigned i = 0; i < GPU_PROF_MAX_EVENTS; i++) {
            if (p->ev[i]) {
                (void)cudaEventDestroy(p->ev[i]);
            }
        }
        cz_free(p);
    }
    return err;
}

void gpu_debug_profile_get(gpu_dev *dev, float ms[GPU_PROF_PHASES])
{
    for (int i = 0; i < GPU_PROF_PHASES; i++) {
        ms[i] = dev->prof ? dev->prof->ms[i] : 0;
    }
}

/* ---- buffers ---- */

cuzk_err gpu_buf_new(gpu_buf **out, gpu_dev *dev, size_t len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_buf *b = NULL;

    *out = NULL;
    b = (gpu_buf *)cz_calloc(1, sizeof(*b));
    if (!b) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_buf");
    }
    b->dev = dev;
    b->len = len;
    CZ_TRY(err, dev_enter(dev, dg), done);
    CZ_TRY(err, dev_malloc(dev, &b->ptr, len, dg), done);
    *out = b;
    b = NULL;
done:
    cz_free(b);
    return err;
}

void gpu_buf_free(gpu_buf *buf)
{
    if (!buf) {
        return;
    }
    if (cudaSetDevice(buf->dev->index) == cudaSuccess) {
        (void)cudaStreamSynchronize(buf->dev->s);
        dev_free(buf->dev, buf->ptr, buf->len);
    }
    (void)cudaGetLastError();
    cz_free(buf);
}

size_t gpu_buf_len(const gpu_buf *buf)
{
    return buf ? buf->len : 0;
}

static cuzk_err range_check(size_t off, size_t len, size_t total, cz_diag *dg)
{
    if (off > total || len > total - off) {
        return cz_fail(dg, CUZK_E_INVAL, "range [%zu, +%zu) outside a buffer of %zu bytes", off,
                       len, total);
    }
    return CUZK_OK;
}

static cuzk_err copy_async(void *dst, const void *src, size_t len, cudaMemcpyKind kind,
                           gpu_dev *dev, cudaStream_t s, bool sync, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CZ_TRY(err, dev_enter(dev, dg), done);
    if (len && kind == cudaMemcpyHostToDevice) {
        CZ_TRY(err, dev_h2d(dev, dst, src, len, s, dg), done);
    } else if (len) {
        CUDA_TRY(err, cudaMemcpyAsync(dst, src, len, kind, s), done);
    }
    if (sync) {
        CUDA_TRY(err, cudaStreamSynchronize(s), done);
    }
done:
    return err;
}

cuzk_err gpu_buf_upload(gpu_buf *dst, size_t off, const void *src, size_t len, cz_diag *dg)
{
    cuzk_err err = range_check(off, len, dst->len, dg);
    if (err != CUZK_OK) {
        return err;
    }
    return copy_async((char *)dst->ptr + off, src, len, cudaMemcpyHostToDevice, dst->dev,
                      dst->dev->s, true, dg);
}

cuzk_err gpu_buf_download(void *dst, const gpu_buf *src, size_t off, size_t len, cz_diag *dg)
{
    cuzk_err err = range_check(off, len, src->len, dg);
    if (err != CUZK_OK) {
        return err;
    }
    return copy_async(dst, (const char *)src->ptr + off, len, cudaMemcpyDeviceToHost, src->dev,
                      src->dev->s, true, dg);
}

cuzk_err gpu_buf_zero(gpu_buf *buf, size_t off, size_t len, cz_diag *dg)
{
    cuzk_err err = range_check(off, len, buf->len, dg);
    if (err != CUZK_OK) {
        return err;
    }
    CZ_TRY(err, dev_enter(buf->dev, dg), done);
    if (len) {
        CUDA_TRY(err, cudaMemsetAsync((char *)buf->ptr + off, 0, len, buf->dev->s), done);
    }
    CUDA_TRY(err, cudaStreamSynchronize(buf->dev->s), done);
done:
    return err;
}

cuzk_err gpu_buf_upload_async(gpu_buf *dst, size_t off, const void *src, size_t len, gpu_stream *s,
                              cz_diag *dg)
{
    cuzk_err err = range_check(off, len, dst->len, dg);
    if (err != CUZK_OK) {
        return err;
    }
    return copy_async((char *)dst->ptr + off, src, len, cudaMemcpyHostToDevice, dst->dev, s->s,
                      false, dg);
}

cuzk_err gpu_buf_download_async(void *dst, const gpu_buf *src, size_t off, size_t len,
                                gpu_stream *s, cz_diag *dg)
{
    cuzk_err err = range_check(off, len, src->len, dg);
    if (err != CUZK_OK) {
        return err;
    }
    return copy_async(dst, (const char *)src->ptr + off, len, cudaMemcpyDeviceToHost, src->dev,
                      s->s, false, dg);
}

/* ---- pinned host memory ---- */

cuzk_err gpu_host_alloc(void **out, size_t len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    *out = NULL;
    if (gpu_count() == 0) {
        return cz_fail(dg, CUZK_E_NO_GPU, "no GPU for pinned memory");
    }
    CUDA_TRY(err, cudaMallocHost(out, len ? len : 1), done);
done:
    return err;
}

void gpu_host_free(void *p)
{
    if (p) {
        (void)cudaFreeHost(p);
        (void)cudaGetLastError();
    }
}

cuzk_err gpu_host_register(void *p, size_t len, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    if (gpu_count() == 0) {
        return cz_fail(dg, CUZK_E_NO_GPU, "no GPU for pinned memory");
    }
    CUDA_TRY(err, cudaHostRegister(p, len, cudaHostRegisterDefault), done);
done:
    return err;
}

void gpu_host_unregister(void *p)
{
    if (p) {
        (void)cudaHostUnregister(p);
        (void)cudaGetLastError();
    }
}

/* ---- streams and events ---- */

cuzk_err gpu_stream_new(gpu_stream **out, gpu_dev *dev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_stream *s = NULL;

    *out = NULL;
    s = (gpu_stream *)cz_calloc(1, sizeof(*s));
    if (!s) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_stream");
    }
    s->dev = dev;
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_TRY(err, cudaStreamCreateWithFlags(&s->s, cudaStreamNonBlocking), done);
    *out = s;
    s = NULL;
done:
    cz_free(s);
    return err;
}

void gpu_stream_free(gpu_stream *s)
{
    if (!s) {
        return;
    }
    if (cudaSetDevice(s->dev->index) == cudaSuccess) {
        (void)cudaStreamSynchronize(s->s);
        (void)cudaStreamDestroy(s->s);
    }
    (void)cudaGetLastError();
    cz_free(s);
}

cuzk_err gpu_stream_sync(gpu_stream *s, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CZ_TRY(err, dev_enter(s->dev, dg), done);
    CUDA_TRY(err, cudaStreamSynchronize(s->s), done);
done:
    return err;
}

cuzk_err gpu_event_new(gpu_event **out, gpu_dev *dev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_event *e = NULL;

    *out = NULL;
    e = (gpu_event *)cz_calloc(1, sizeof(*e));
    if (!e) {
        return cz_fail(dg, CUZK_E_NOMEM, "gpu_event");
    }
    e->dev = dev;
    CZ_TRY(err, dev_enter(dev, dg), done);
    CUDA_TRY(err, cudaEventCreateWithFlags(&e->e, cudaEventDefault), done);
    *out = e;
    e = NULL;
done:
    cz_free(e);
    return err;
}

void gpu_event_free(gpu_event *ev)
{
    if (!ev) {
        return;
    }
    if (cudaSetDevice(ev->dev->index) == cudaSuccess) {
        (void)cudaEventDestroy(ev->e);
    }
    (void)cudaGetLastError();
    cz_free(ev);
}

cuzk_err gpu_event_record(gpu_event *ev, gpu_stream *s, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CZ_TRY(err, dev_enter(ev->dev, dg), done);
    CUDA_TRY(err, cudaEventRecord(ev->e, s ? s->s : ev->dev->s), done);
done:
    return err;
}

cuzk_err gpu_stream_wait_event(gpu_stream *s, gpu_event *ev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CZ_TRY(err, dev_enter(s->dev, dg), done);
    CUDA_TRY(err, cudaStreamWaitEvent(s->s, ev->e, 0), done);
done:
    return err;
}

cuzk_err gpu_event_sync(gpu_event *ev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    CZ_TRY(err, dev_enter(ev->dev, dg), done);
    CUDA_TRY(err, cudaEventSynchronize(ev->e), done);
done:
    return err;
}

cuzk_err gpu_event_elapsed_ms(float *ms, gpu_event *start, gpu_event *end, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    *ms = 0;
    CZ_TRY(err, dev_enter(start->dev, dg), done);
    CUDA_TRY(err, cudaEventElapsedTime(ms, start->e, end->e), done);
done:
    return err;
}

} /* extern "C" */
