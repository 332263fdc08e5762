/* gpu_none.c - gpu.h for builds without CUDA (CUZK_CUDA=OFF or no toolkit): no device exists,
 * gpu_count() is 0 and every fallible call returns CUZK_E_NO_GPU, so callers take their CPU
 * path. Free functions accept NULL (nothing can have been created).
 * The stubs keep gpu.h's signatures and use almost none of their parameters: the warning for
 * unused parameters is off for this file instead of a (void) cast per parameter.
 */
#include "gpu/gpu.h"
#include "gpu/internal.h"

#pragma GCC diagnostic ignored "-Wunused-parameter"

static cuzk_err no_gpu(cz_diag *dg)
{
    return cz_fail(dg, CUZK_E_NO_GPU, "built without CUDA");
}

unsigned gpu_count(void)
{
    return 0;
}

cuzk_err gpu_dev_open(gpu_dev **out, unsigned index, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_dev_close(gpu_dev *dev)
{
}

cuzk_err gpu_dev_get_info(gpu_dev *dev, gpu_dev_info *info, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_dev_trim(gpu_dev *dev, cz_diag *dg)
{
    return no_gpu(dg);
}

void gpu_dev_set_mem_cap(gpu_dev *dev, size_t bytes)
{
}

void gpu_dev_set_h2d_rate(gpu_dev *dev, uint64_t bytes_per_s)
{
}

cuzk_err gpu_quotient_ab_buf(gpu_dev *dev, gpu_buf *a, gpu_buf *b, size_t m, unsigned lg,
                             cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_quotient_finish_buf(gpu_dev *dev, bool *top_zero, gpu_buf *a, gpu_buf *c, size_t m,
                                 unsigned lg, cz_diag *dg)
{
    return no_gpu(dg);
}

size_t gpu_ntt_twiddle_bytes(const gpu_dev *dev, unsigned lg)
{
    return 0;
}

size_t gpu_msm_scratch_bytes(size_t n, int group, bool scalars_in_scratch)
{
    return 0;
}

cuzk_err gpu_debug_ntt_twiddles(gpu_dev *dev, int mode, cz_diag *dg)
{
    return no_gpu(dg);
}

void gpu_debug_fail_h2d(gpu_dev *dev, unsigned long nth)
{
}

uint64_t gpu_dev_h2d_bytes(const gpu_dev *dev)
{
    return 0;
}

cuzk_err gpu_buf_new(gpu_buf **out, gpu_dev *dev, size_t len, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_buf_free(gpu_buf *buf)
{
}

size_t gpu_buf_len(const gpu_buf *buf)
{
    return 0;
}

cuzk_err gpu_buf_upload(gpu_buf *dst, size_t off, const void *src, size_t len, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_buf_download(void *dst, const gpu_buf *src, size_t off, size_t len, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_buf_zero(gpu_buf *buf, size_t off, size_t len, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_buf_upload_async(gpu_buf *dst, size_t off, const void *src, size_t len, gpu_stream *s,
                              cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_buf_download_async(void *dst, const gpu_buf *src, size_t off, size_t len,
                                gpu_stream *s, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_host_alloc(void **out, size_t len, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_host_free(void *p)
{
}

cuzk_err gpu_host_register(void *p, size_t len, cz_diag *dg)
{
    return no_gpu(dg);
}

void gpu_host_unregister(void *p)
{
}

cuzk_err gpu_stream_new(gpu_stream **out, gpu_dev *dev, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_stream_free(gpu_stream *s)
{
}

cuzk_err gpu_stream_sync(gpu_stream *s, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_event_new(gpu_event **out, gpu_dev *dev, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_event_free(gpu_event *ev)
{
}

cuzk_err gpu_event_record(gpu_event *ev, gpu_stream *s, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_stream_wait_event(gpu_stream *s, gpu_event *ev, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_event_sync(gpu_event *ev, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_event_elapsed_ms(float *ms, gpu_event *start, gpu_event *end, cz_diag *dg)
{
    *ms = 0;
    return no_gpu(dg);
}

cuzk_err gpu_ntt(gpu_dev *dev, struct fr *x, unsigned lg, gpu_ntt_kind kind, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_ntt_buf(gpu_dev *dev, gpu_buf *x, size_t off, unsigned lg, gpu_ntt_kind kind,
                     cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_quotient_h(gpu_dev *dev, struct fr *h, bool *top_zero, const struct fr *a,
                        const struct fr *b, const struct fr *c, size_t m, unsigned lg, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_quotient_h_buf(gpu_dev *dev, bool *top_zero, gpu_buf *a, gpu_buf *b, gpu_buf *c,
                            size_t m, unsigned lg, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_bases_new_g1(gpu_msm_bases **out, gpu_dev *dev, size_t n, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

cuzk_err gpu_msm_bases_new_g2(gpu_msm_bases **out, gpu_dev *dev, size_t n, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

cuzk_err gpu_msm_bases_view(gpu_msm_bases **out, gpu_buf *buf, size_t off, int group, size_t n,
                            cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_msm_bases_free(gpu_msm_bases *b)
{
}

size_t gpu_msm_bases_len(const gpu_msm_bases *b)
{
    return 0;
}

cuzk_err gpu_msm_bases_upload_g1(gpu_msm_bases *b, size_t first, const struct g1_aff *points,
                                 size_t count, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_bases_upload_g2(gpu_msm_bases *b, size_t first, const struct g2_aff *points,
                                 size_t count, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_g1(gpu_dev *dev, struct g1 *out, const gpu_msm_bases *bases, size_t first,
                    const struct fr_repr *scalars, size_t n, const gpu_msm_opts *opts, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_g1_buf(gpu_dev *dev, struct g1 *out, const gpu_msm_bases *bases, size_t first,
                        const gpu_buf *scalars, size_t off, size_t n, bool mont,
                        const gpu_msm_opts *opts, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_g2(gpu_dev *dev, struct g2 *out, const gpu_msm_bases *bases, size_t first,
                    const struct fr_repr *scalars, size_t n, const gpu_msm_opts *opts, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_g2_buf(gpu_dev *dev, struct g2 *out, const gpu_msm_bases *bases, size_t first,
                        const gpu_buf *scalars, size_t off, size_t n, bool mont,
                        const gpu_msm_opts *opts, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_g1_sets(gpu_dev *dev, struct g1 *outs, const gpu_msm_bases *bases, size_t first,
                         size_t n, const gpu_msm_set *sets, unsigned nsets, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_msm_g2_sets(gpu_dev *dev, struct g2 *outs, const gpu_msm_bases *bases, size_t first,
                         size_t n, const gpu_msm_set *sets, unsigned nsets, cz_diag *dg)
{
    return no_gpu(dg);
}

size_t gpu_msm_sets_scratch_bytes(size_t n, int group, const gpu_msm_set *sets, unsigned nsets)
{
    return 0;
}

cuzk_err gpu_fr_compact_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_buf *in,
                            size_t in_off, const gpu_buf *map, size_t map_off, size_t n,
                            size_t count, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_fr_expand_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_buf *in,
                           size_t map_off, size_t nw, size_t oth_off, size_t n_oth, unsigned bit0,
                           uint64_t base, size_t k, const struct fr *unit, cz_diag *dg)
{
    return no_gpu(dg);
}

/* ---- internal.h: the debug entry points (the gpu_host_* helpers are built as usual) ---- */

cuzk_err gpu_debug_field(gpu_dev *dev, int op, uint64_t *out, const uint64_t *a, const uint64_t *b,
                         size_t n, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_g1(gpu_dev *dev, uint64_t *out, const struct g1_aff *p, const struct g1_aff *q,
                      size_t n, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_g2(gpu_dev *dev, uint64_t *out, const struct g2_aff *p, const struct g2_aff *q,
                      size_t n, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_ntt_layout(gpu_dev *dev, unsigned k0, unsigned k1, unsigned tile_lg,
                              unsigned min_blocks, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_msm_chunk(gpu_dev *dev, unsigned chunk, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_msm_group(gpu_dev *dev, unsigned max_windows, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_msm_aff_rounds(gpu_dev *dev, unsigned rounds, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_ceiling(gpu_dev *dev, int kind, size_t threads, unsigned iters,
                           const uint64_t *seed, const uint64_t *y, uint64_t *out, double *dsum,
                           float *ms, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_debug_profile(gpu_dev *dev, bool on, cz_diag *dg)
{
    return no_gpu(dg);
}

void gpu_debug_profile_get(gpu_dev *dev, float ms[GPU_PROF_PHASES])
{
    for (int i = 0; i < GPU_PROF_PHASES; i++) {
        ms[i] = 0;
    }
}

cuzk_err gpu_spmat_new(gpu_spmat **out, gpu_dev *dev, size_t rows, size_t nnz,
                       const uint32_t *row_ptr, const uint32_t *col, const uint16_t *coef,
                       const struct fr *dict, size_t dict_len, cz_diag *dg)
{
    *out = NULL;
    return no_gpu(dg);
}

void gpu_spmat_free(gpu_spmat *m)
{
}

size_t gpu_spmat_bytes(const gpu_spmat *m)
{
    return 0;
}

size_t gpu_spmat_rows(const gpu_spmat *m)
{
    return 0;
}

cuzk_err gpu_spmv_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_spmat *m,
                      const gpu_buf *z, size_t z_off, size_t z_len, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_fb_mul_g1(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab, unsigned w,
                       const struct fr_repr *k, size_t n, cz_diag *dg)
{
    return no_gpu(dg);
}

cuzk_err gpu_fb_mul_g2(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab, unsigned w,
                       const struct fr_repr *k, size_t n, cz_diag *dg)
{
    return no_gpu(dg);
}
