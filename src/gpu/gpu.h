/* gpu.h - the GPU backend behind a plain-C interface (docs/style.md section 9): device discovery,
 * device and pinned host memory, streams and events, the Fr NTT and the Groth16 quotient H
 * (spec groth16.md 1.4, 4.5, 5.4), G1/G2 multi-scalar multiplication with bases resident in
 * device memory (spec 4.6, 5.5), and the density compaction of MSM scalars (spec 4.6).
 * Representation: the same in-memory types as the CPU code: fr_t (Montgomery), fr_repr_t
 * (canonical), g1_aff_t / g2_aff_t (affine, Montgomery, all-zero identity), g1_t / g2_t
 * (Jacobian results). They appear here as `struct fr` etc. so that this header needs no CUDA and
 * no C11-only header; include field/ and curve/ for the typedefs.
 * Results: every function computes exactly what its CPU twin computes (poly/poly.h, msm/msm.h):
 * NTT outputs are the same field elements; MSM results are the same group element (the Jacobian
 * coordinates may differ: compare with g1_eq / g2_eq).
 * Errors: fallible calls return CUZK_E_NO_GPU when built without CUDA or when no device is
 * usable, CUZK_E_GPU (with "expr@file:line: <cuda error>" in `dg`) when the runtime fails,
 * CUZK_E_NOMEM when device memory runs out, CUZK_E_INVAL for arguments out of range.
 * Threads: a gpu_dev and everything created from it may be used by one thread at a time (the
 * engine keeps one thread per device), with one exception: a second thread may upload into a
 * buffer nobody else touches meanwhile, on a stream and events of its own (gpu_buf_upload_async,
 * gpu_stream_*, gpu_event_*), while the first one runs the device's work (copies overlapping
 * kernels). Calls are synchronous unless named _async: they return
 * when the device has finished and host buffers may be reused.
 * Memory: a device keeps one twiddle table for the largest transform seen (2^lg x 32 bytes:
 * 4 GiB at 2^27), small coset factor tables, and a scratch area that grows to the largest call
 * (an MSM of n terms takes about 80 n bytes plus its buckets), and a second one for a G2 MSM's
 * affine rounds (from 2^24 scalars other than 0 and 1: 96 bytes per such scalar, 144 from
 * 2^25); gpu_dev_trim() releases them.
 * Also the evaluation of recorded sparse constraint matrices on the device (gpu_spmat,
 * gpu_spmv_buf: a = A z, b = B z, c = C z without a, b, c crossing PCIe), and the fixed-base
 * multiplications of a parameter generation (gpu_fb_mul_g1 / _g2).
 */
#ifndef CUZK_GPU_GPU_H
#define CUZK_GPU_GPU_H

#ifdef __cplusplus
extern "C" { /* common.h has no C++ guard of its own */
#endif

#include "common/common.h"

struct fr;
struct fr_repr;
struct cz_pool;
struct g1;
struct g1_aff;
struct g2;
struct g2_aff;

typedef struct gpu_dev gpu_dev;             /* one opened device */
typedef struct gpu_buf gpu_buf;             /* device memory */
typedef struct gpu_stream gpu_stream;       /* an ordered queue of device work */
typedef struct gpu_event gpu_event;         /* a marker in a stream */
typedef struct gpu_msm_bases gpu_msm_bases; /* MSM bases resident in device memory */
typedef struct gpu_spmat gpu_spmat;         /* a sparse Fr matrix resident in device memory */

/* ---- devices ---- */

/** Number of usable devices; 0 without CUDA, without a driver or without a device. */
unsigned gpu_count(void);

typedef struct gpu_dev_info {
    char name[128];
    size_t total_mem; /* bytes of device memory; with a cap, at most the cap */
    size_t free_mem;  /* bytes free when asked; with a cap, at most what the cap leaves */
    size_t used_mem;  /* bytes allocated through this gpu_dev (buffers, bases, caches) */
    size_t mem_cap;   /* gpu_dev_set_mem_cap, 0 = none */
    unsigned sm_count;
    unsigned cc_major, cc_minor; /* compute capability */
} gpu_dev_info;

/** Opens device `index` (< gpu_count()). Returns owned; free with gpu_dev_close. */
CZ_MUST_USE cuzk_err gpu_dev_open(gpu_dev **out, unsigned index, cz_diag *dg);
/** Waits for the device's work, frees its caches; NULL does nothing. Every buffer, stream,
 *  event and bases object of the device must be freed first. */
void gpu_dev_close(gpu_dev *dev);
CZ_MUST_USE cuzk_err gpu_dev_get_info(gpu_dev *dev, gpu_dev_info *info, cz_diag *dg);
/** Frees the device's twiddle tables and scratch area (they are rebuilt on demand). */
CZ_MUST_USE cuzk_err gpu_dev_trim(gpu_dev *dev, cz_diag *dg);

/** Runs a small G1 and a small G2 MSM (identity points, scalars other than 0 and 1) and trims:
 *  the MSM kernels' local memory, which the driver takes at their first launch and keeps
 *  (gpu_dev_open asks it to), is then taken before the caller reads the free memory to plan a
 *  capped device, instead of failing a launch on a full card later. */
CZ_MUST_USE cuzk_err gpu_dev_warm(gpu_dev *dev, cz_diag *dg);

/** Caps the device memory that everything made from `dev` may hold at once: buffers, bases,
 *  matrices, the twiddle and coset tables and the scratch areas (0 = no cap). An allocation
 *  past the cap fails with CUZK_E_NOMEM as if the device were full, and gpu_dev_get_info
 *  reports the capped device. Lets a large card stand in for a small one (and bounds what a
 *  process takes of a shared card). Set it before allocating, from the device's thread. */
void gpu_dev_set_mem_cap(gpu_dev *dev, size_t bytes);
/** Paces every host-to-device copy of `dev` to at most bytes_per_s (0 = full speed): copies go
 *  in slices of 4 MiB, each waiting for its turn on a clock shared by the device's streams.
 *  A debugging aid that emulates a slower host link (e.g. PCIe 4.0 on a PCIe 5.0 host). */
void gpu_dev_set_h2d_rate(gpu_dev *dev, uint64_t bytes_per_s);
/** Bytes copied from the host to `dev` since it was opened (uploads of buffers, bases,
 *  matrices, tables and host scalars); 0 for NULL. Any thread. */
uint64_t gpu_dev_h2d_bytes(const gpu_dev *dev);

/* ---- device buffers ---- */

/** `len` bytes of device memory, 256-byte aligned, contents undefined. Returns owned. */
CZ_MUST_USE cuzk_err gpu_buf_new(gpu_buf **out, gpu_dev *dev, size_t len, cz_diag *dg);
void gpu_buf_free(gpu_buf *buf);
size_t gpu_buf_len(const gpu_buf *buf);
/** Copies len bytes host -> device at byte offset off; CUZK_E_INVAL if off + len > the length.
 *  From pinned memory (gpu_host_alloc / gpu_host_register) the copy runs at full speed. */
CZ_MUST_USE cuzk_err gpu_buf_upload(gpu_buf *dst, size_t off, const void *src, size_t len,
                                    cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_buf_download(void *dst, const gpu_buf *src, size_t off, size_t len,
                                      cz_diag *dg);
/** Sets len bytes at off to zero. */
CZ_MUST_USE cuzk_err gpu_buf_zero(gpu_buf *buf, size_t off, size_t len, cz_diag *dg);
/** Asynchronous copies on stream `s`: the host memory must stay alive and unchanged (upload) or
 *  untouched (download) until the stream reaches this point (gpu_stream_sync or an event). */
CZ_MUST_USE cuzk_err gpu_buf_upload_async(gpu_buf *dst, size_t off, const void *src, size_t len,
                                          gpu_stream *s, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_buf_download_async(void *dst, const gpu_buf *src, size_t off, size_t len,
                                            gpu_stream *s, cz_diag *dg);

/* ---- pinned host memory ---- */

/** len bytes of page-locked host memory (fast and asynchronous transfers). Returns owned; free
 *  with gpu_host_free. Needs a device (CUZK_E_NO_GPU otherwise). */
CZ_MUST_USE cuzk_err gpu_host_alloc(void **out, size_t len, cz_diag *dg);
void gpu_host_free(void *p);
/** Page-locks existing memory (e.g. a cz_buf) until gpu_host_unregister. */
CZ_MUST_USE cuzk_err gpu_host_register(void *p, size_t len, cz_diag *dg);
void gpu_host_unregister(void *p);

/* ---- streams and events ---- */

CZ_MUST_USE cuzk_err gpu_stream_new(gpu_stream **out, gpu_dev *dev, cz_diag *dg);
void gpu_stream_free(gpu_stream *s);
CZ_MUST_USE cuzk_err gpu_stream_sync(gpu_stream *s, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_event_new(gpu_event **out, gpu_dev *dev, cz_diag *dg);
void gpu_event_free(gpu_event *ev);
CZ_MUST_USE cuzk_err gpu_event_record(gpu_event *ev, gpu_stream *s, cz_diag *dg);
/** Later work on `s` waits for `ev`. */
CZ_MUST_USE cuzk_err gpu_stream_wait_event(gpu_stream *s, gpu_event *ev, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_event_sync(gpu_event *ev, cz_diag *dg);
/** Milliseconds between two recorded, completed events. */
CZ_MUST_USE cuzk_err gpu_event_elapsed_ms(float *ms, gpu_event *start, gpu_event *end, cz_diag *dg);

/* ---- NTT over Fr (natural order in and out, exactly poly/'s ntt_*) ---- */

/** Largest log2 size of a transform (device memory is the practical limit). */
#define GPU_NTT_MAX_LG 30

typedef enum gpu_ntt_kind {
    GPU_NTT_FWD = 0,   /* x = DFT_omega(x)                          (ntt_fwd) */
    GPU_NTT_INV,       /* x = n^-1 DFT_omega^-1(x)                  (ntt_inv) */
    GPU_NTT_COSET_FWD, /* x[i] *= 7^i, then DFT_omega               (ntt_coset_fwd) */
    GPU_NTT_COSET_INV, /* inverse, then x[i] *= 7^-i                (ntt_coset_inv) */
} gpu_ntt_kind;

/** In-place transform of 2^lg Montgomery values in host memory (uploaded, transformed,
 *  downloaded), omega = omega_lg of spec 1.4. lg <= GPU_NTT_MAX_LG. Device scratch: the
 *  2^lg x 32 bytes of the values, twice that above 2^11 values (gpu_ntt_buf's second buffer). */
CZ_MUST_USE cuzk_err gpu_ntt(gpu_dev *dev, struct fr *x, unsigned lg, gpu_ntt_kind kind,
                             cz_diag *dg);
/** The same on 2^lg values in device memory at byte offset `off` (a multiple of 32). Above
 *  2^11 values the transform runs out of place through a second buffer of 2^lg x 32 bytes
 *  (4 GiB at 2^27) in the device's scratch area, which keeps it until gpu_dev_trim(). */
CZ_MUST_USE cuzk_err gpu_ntt_buf(gpu_dev *dev, gpu_buf *x, size_t off, unsigned lg,
                                 gpu_ntt_kind kind, cz_diag *dg);

/** The Groth16 quotient H (spec 4.5; poly_quotient_h's contract) on the device.
 *  In:  a, b, c   m Montgomery values each (host, borrowed); entries [m, n) count as zero.
 *       m         number of constraints, m <= n = 2^lg.
 *  Out: h         n values: h[0 .. n-2] the coefficients of h, h[n-1] the coefficient of
 *                 x^(n-1) (zero for a satisfying witness).
 *       top_zero  (may be NULL) h[n-1] == 0, as poly_quotient_h returns. */
CZ_MUST_USE cuzk_err gpu_quotient_h(gpu_dev *dev, struct fr *h, bool *top_zero, const struct fr *a,
                                    const struct fr *b, const struct fr *c, size_t m, unsigned lg,
                                    cz_diag *dg);
/** The same with a, b, c already in device memory: each buffer holds at least n values at
 *  offset 0; the first m are the evaluations, the rest is overwritten with zeros. On return
 *  `a` holds the n values of h (Montgomery; an MSM takes them with gpu_msm_g1_buf(mont=true));
 *  b and c are clobbered. */
CZ_MUST_USE cuzk_err gpu_quotient_h_buf(gpu_dev *dev, bool *top_zero, gpu_buf *a, gpu_buf *b,
                                        gpu_buf *c, size_t m, unsigned lg, cz_diag *dg);

/** The quotient in two device buffers instead of three, for devices short of memory (same h,
 *  a few transforms' time more: an inverse transform in bit-reversed order, a subtraction and
 *  a permutation replace the out-of-place last transform). Two calls, so that C's evaluations
 *  can be uploaded into b's buffer once it is free:
 *  gpu_quotient_ab_buf:     a, b hold A, B's first m evaluations (n values each, the rest
 *                           overwritten with zeros); on return a holds A B on the coset and b
 *                           is free (clobbered).
 *  gpu_quotient_finish_buf: a as left by the first call, c (any other buffer of n values, e.g.
 *                           b's) C's first m evaluations; on return a holds the n values of h
 *                           (Montgomery) and c is clobbered; top_zero as gpu_quotient_h_buf.
 *  2^3 <= n = 2^lg; CUZK_E_INVAL otherwise or for buffers too short, on another device or
 *  the same twice. */
CZ_MUST_USE cuzk_err gpu_quotient_ab_buf(gpu_dev *dev, gpu_buf *a, gpu_buf *b, size_t m,
                                         unsigned lg, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_quotient_finish_buf(gpu_dev *dev, bool *top_zero, gpu_buf *a, gpu_buf *c,
                                             size_t m, unsigned lg, cz_diag *dg);

/** Device bytes of the twiddles a transform of 2^lg takes on dev: 32 x 2^lg, or, where that
 *  would be more than an eighth of the device (or of its cap, gpu_dev_set_mem_cap), about
 *  32 (lg / 2 + 1) 2^(lg / 2) with split tables (7.3 MB at 2^27; a product more per twiddle). */
size_t gpu_ntt_twiddle_bytes(const gpu_dev *dev, unsigned lg);

/* ---- MSM over G1 and G2 (signed-window Pippenger; scalars 0 skipped, 1 batch-added) ---- */

/** Tuning; NULL or a zeroed struct means automatic. Results never depend on it. */
typedef struct gpu_msm_opts {
    unsigned window_bits; /* Pippenger window c, 1 .. GPU_MSM_MAX_WINDOW_BITS; 0 = automatic */
    bool no_split01;      /* true: scalars 1 go through Pippenger like the others */
} gpu_msm_opts;

#define GPU_MSM_MAX_WINDOW_BITS 24
/** Bases live in device memory; their count is below 2^31. */
#define GPU_MSM_MAX_BASES       ((size_t)1 << 31)

/** Device memory for n bases of G1 (96 bytes each) or G2 (192 bytes), contents undefined until
 *  uploaded. Returns owned; free with gpu_msm_bases_free (before closing the device). */
CZ_MUST_USE cuzk_err gpu_msm_bases_new_g1(gpu_msm_bases **out, gpu_dev *dev, size_t n, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_msm_bases_new_g2(gpu_msm_bases **out, gpu_dev *dev, size_t n, cz_diag *dg);
/** Bases over n points stored at byte offset `off` (a multiple of 256) of a device buffer, as
 *  gpu_msm_bases_upload_* or gpu_buf_upload(_async) of g1_aff_t / g2_aff_t arrays put them:
 *  group 1 (96 bytes a point) or 2 (192). The view owns nothing: free it before the buffer.
 *  Streams points through a few buffers (a chunk uploaded while the MSM of another runs).
 *  CUZK_E_INVAL for a range outside the buffer or another group. */
CZ_MUST_USE cuzk_err gpu_msm_bases_view(gpu_msm_bases **out, gpu_buf *buf, size_t off, int group,
                                        size_t n, cz_diag *dg);
void gpu_msm_bases_free(gpu_msm_bases *b);
size_t gpu_msm_bases_len(const gpu_msm_bases *b);
/** Copies count points (borrowed) into bases [first, first + count). The group must match the
 *  bases (CUZK_E_INVAL otherwise). Points are not checked: they must be on the curve (or the
 *  all-zero identity) and in Montgomery form, as the CPU MSM requires. */
CZ_MUST_USE cuzk_err gpu_msm_bases_upload_g1(gpu_msm_bases *b, size_t first,
                                             const struct g1_aff *points, size_t count,
                                             cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_msm_bases_upload_g2(gpu_msm_bases *b, size_t first,
                                             const struct g2_aff *points, size_t count,
                                             cz_diag *dg);

/** out = sum_{i<n} [scalars[i]] bases[first + i] (msm_g1's contract).
 *  In: bases    G1 bases on `dev`, first + n <= their count.
 *      scalars  n canonical scalars in host memory, each < 2^255 (borrowed).
 *      opts     NULL = automatic. */
CZ_MUST_USE cuzk_err gpu_msm_g1(gpu_dev *dev, struct g1 *out, const gpu_msm_bases *bases,
                                size_t first, const struct fr_repr *scalars, size_t n,
                                const gpu_msm_opts *opts, cz_diag *dg);
/** The same with the n scalars in device memory at byte offset `off` (a multiple of 32) of
 *  `scalars`: canonical (mont = false) or Montgomery (mont = true, e.g. h from
 *  gpu_quotient_h_buf; converted as they are read); read only. */
CZ_MUST_USE cuzk_err gpu_msm_g1_buf(gpu_dev *dev, struct g1 *out, const gpu_msm_bases *bases,
                                    size_t first, const gpu_buf *scalars, size_t off, size_t n,
                                    bool mont, const gpu_msm_opts *opts, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_msm_g2(gpu_dev *dev, struct g2 *out, const gpu_msm_bases *bases,
                                size_t first, const struct fr_repr *scalars, size_t n,
                                const gpu_msm_opts *opts, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_msm_g2_buf(gpu_dev *dev, struct g2 *out, const gpu_msm_bases *bases,
                                    size_t first, const gpu_buf *scalars, size_t off, size_t n,
                                    bool mont, const gpu_msm_opts *opts, cz_diag *dg);

/* ---- several scalar vectors over the same bases in one MSM (a streamed chunk's proofs) ----
 * One classification per set, then one sort, accumulation and reduction for all the sets: the
 * launches and dependent bucket chains that dominate a small MSM are paid once. */

/** Most sets in one gpu_msm_*_sets call. */
#define GPU_MSM_MAX_SETS 16

/** One set of n scalars in device memory: dense (nw = 0), n 32-byte values at byte `off` (a
 *  multiple of 32) of buf; or a slice of a vector's classes (gpu_fr_classes_slice; nw > 0):
 *  its nw class words at byte `off` (a multiple of 8), its n_oth others at byte oth_off (a
 *  multiple of 32), position i of the set being bit bit0 + i of the slice (bit0 = first % 64)
 *  and `base` the index of the slice's first other in the whole vector; the unit class is the
 *  scalar 1. mont: the values (the others) are Montgomery, else canonical; each below r. */
typedef struct gpu_msm_set {
    const gpu_buf *buf;
    size_t off;
    bool mont;
    size_t nw, oth_off, n_oth;
    unsigned bit0;
    uint64_t base;
} gpu_msm_set;

/** outs[s] = sum_{i<n} [set s's scalar i] bases[first + i], for s < nsets (1 to
 *  GPU_MSM_MAX_SETS, nsets n below 2^31); the same group elements nsets gpu_msm_g1_buf calls
 *  give. The sets are read, not changed. CUZK_E_INVAL for a set outside its buffer or not on
 *  dev. */
CZ_MUST_USE cuzk_err gpu_msm_g1_sets(gpu_dev *dev, struct g1 *outs, const gpu_msm_bases *bases,
                                     size_t first, size_t n, const gpu_msm_set *sets,
                                     unsigned nsets, cz_diag *dg);
CZ_MUST_USE cuzk_err gpu_msm_g2_sets(gpu_dev *dev, struct g2 *outs, const gpu_msm_bases *bases,
                                     size_t first, size_t n, const gpu_msm_set *sets,
                                     unsigned nsets, cz_diag *dg);
/** The device scratch a gpu_msm_g1_sets (group 1) or _g2_sets (2) call of these sets asks for
 *  (0 for n = 0, and without a GPU backend). */
size_t gpu_msm_sets_scratch_bytes(size_t n, int group, const gpu_msm_set *sets, unsigned nsets);

/** Window the automatic choice takes for a tail of m terms (for benchmarks and tests). */
unsigned gpu_msm_auto_window_bits(size_t m);
/** The device scratch an MSM of n terms asks for (gpu_msm_g1/_g2 and their _buf forms, the
 *  automatic window; group 1 = G1, 2 = G2), with its scalars copied into the scratch
 *  (`scalars_in_scratch`: host scalars) or read in place (device scalars, either form); for
 *  planning a capped device (gpu_dev_set_mem_cap). Not included: a G2 MSM's affine-round area
 *  (from 2^24 scalars other than 0 and 1). 0 for n = 0, and without a GPU backend. */
size_t gpu_msm_scratch_bytes(size_t n, int group, bool scalars_in_scratch);

/* ---- density compaction of Fr vectors (spec groth16.md 4.6: MSM scalars by density) ---- */

/** Bytes of the compaction map of n positions: for each of ceil(n / 64) words, two uint64_t,
 *  the word's density bits and the number of bits set in all earlier words. */
size_t gpu_compact_map_sizeof(size_t n);

/** Builds the compaction map of the n-bit density `bits` (position i is bit i % 64 of
 *  bits[i / 64]; bits at positions >= n are ignored) into `map` (gpu_compact_map_sizeof(n)
 *  bytes of host memory, 8-byte aligned; pinned memory uploads fastest). Returns the number of
 *  set bits. Host code only: works without a device, in every build. */
size_t gpu_compact_map_build(void *map, const uint64_t *bits, size_t n);

/** out[k] = in[i_k] for k < count, where i_0 < i_1 < ... are the positions whose density bit is
 *  set: 32-byte elements (Fr, either form) copied unchanged, in order.
 *  In:  in       n elements at byte offset in_off (a multiple of 32).
 *       map      the compaction map of the n positions (gpu_compact_map_build, uploaded) at
 *                byte offset map_off (a multiple of 16).
 *       count    the number of set bits (gpu_compact_map_build's result).
 *  Out: out      count elements at byte offset out_off (a multiple of 32); must not overlap in.
 *  All buffers belong to `dev`. CUZK_E_INVAL for a range outside a buffer. */
CZ_MUST_USE cuzk_err gpu_fr_compact_buf(gpu_dev *dev, gpu_buf *out, size_t out_off,
                                        const gpu_buf *in, size_t in_off, const gpu_buf *map,
                                        size_t map_off, size_t n, size_t count, cz_diag *dg);

/* ---- Fr vectors of mostly zeros and ones, sent as classes (the streamed passes' scalars) ----
 * A vector of n values is described by its classes: for each block of 64 positions three words
 * {the positions whose value is not zero, the positions whose value is neither zero nor the
 * vector's `unit` (the "others"), the number of others in all earlier blocks}, and the other
 * values in order. The L, A and B scalars of a PoRep partition are 96-99% zeros and ones (unit
 * = Montgomery one): 3 bits a position and the few others cross the bus instead of 32 bytes a
 * position. The host builds the classes (gpu_fr_classes_build, host code in every build) and
 * a kernel expands any slice of positions (gpu_fr_expand_buf). */

/** Class words of a vector of n values: 3 * ceil(n / 64). */
size_t gpu_fr_classes_words(size_t n);

/** A vector's classes, or (too many others) the vector itself. */
typedef struct gpu_fr_classes {
    uint64_t *map;    /* gpu_fr_classes_words(n) words, or NULL with dense */
    struct fr *oth;   /* n_oth other values in order (NULL when n_oth = 0) */
    struct fr *dense; /* the n values themselves, when the others were too many; else NULL */
    size_t n, n_oth;
} gpu_fr_classes;

/** Which positions of z = [v0 (n0 values) | v1 (n1 values)] form a vector: the positions
 *  p >= from whose bit p % 64 of keep[(p / 64) * stride] is set, in order (keep NULL: every
 *  position >= from). stride 2 reads the density bits of a compaction map. */
typedef struct gpu_fr_select {
    const uint64_t *keep;
    size_t stride, from;
} gpu_fr_select;

/** Builds the classes of `count` vectors selected from z (sel[t] for out[t]), reading z once.
 *  A vector whose others exceed max_oth * n (max_oth in [0, 1]) is stored dense instead.
 *  The pool (NULL: the caller) spreads the work; out[t] is zeroed first and freed with
 *  gpu_fr_classes_clear. CUZK_E_NOMEM when memory runs out (out[] then cleared). */
CZ_MUST_USE cuzk_err gpu_fr_classes_build(gpu_fr_classes *out, size_t count, const struct fr *v0,
                                          size_t n0, const struct fr *v1, size_t n1,
                                          const gpu_fr_select *sel, const struct fr *unit,
                                          double max_oth, struct cz_pool *pool, cz_diag *dg);

/** Frees a classes' vectors and zeroes it; a zeroed struct is accepted. */
void gpu_fr_classes_clear(gpu_fr_classes *c);

/** The slice of positions [first, first + k) of classes c (not dense; first + k <= c->n, k >=
 *  1): its class words are map[*w0, *w0 + *nw) and its others oth[*base, *base + *n_oth). */
void gpu_fr_classes_slice(const gpu_fr_classes *c, size_t first, size_t k, size_t *w0, size_t *nw,
                          size_t *base, size_t *n_oth);

/** out[i] = value first + i of c, for i < k (host; dense or classes). */
void gpu_fr_classes_expand(struct fr *out, const gpu_fr_classes *c, size_t first, size_t k,
                           const struct fr *unit);

/** Expands a slice on the device: out[i] (32 bytes at out_off + 32 i) = value bit0 + i of the
 *  slice for i < k, where the slice's nw class words (gpu_fr_classes_slice) are at byte map_off
 *  of `in` (a multiple of 8) and its n_oth other values at byte oth_off (a multiple of 32);
 *  bit0 = first % 64 and `base` the index of the slice's first other in the whole vector. The
 *  values are copied unchanged (Fr, either form), unit for the unit class. All buffers belong to
 *  dev. CUZK_E_INVAL for a range outside a buffer, or nw too small for bit0 + k positions. */
CZ_MUST_USE cuzk_err gpu_fr_expand_buf(gpu_dev *dev, gpu_buf *out, size_t out_off,
                                       const gpu_buf *in, size_t map_off, size_t nw, size_t oth_off,
                                       size_t n_oth, unsigned bit0, uint64_t base, size_t k,
                                       const struct fr *unit, cz_diag *dg);

/* ---- sparse constraint matrices: a = A z, b = B z, c = C z on the device ----
 * A matrix is recorded once per circuit shape (CSR with dictionary coefficients) and kept in
 * device memory; each proof evaluates it against the assignment z = [inputs (ONE first) | aux]
 * already on the device, so the evaluations land in device buffers for gpu_quotient_h_buf. */

/** Most dictionary entries a matrix may use (coefficient indices are 16 bits). */
#define GPU_SPMAT_MAX_DICT  ((size_t)1 << 16)
/** Rows longer than this are summed by a group of 32 threads instead of one thread. */
#define GPU_SPMAT_SHORT_MAX 16

/** Uploads one matrix of `rows` rows and `nnz` terms: row r holds terms
 *  [row_ptr[r], row_ptr[r + 1]), term j being dict[coef[j]] * z[col[j]].
 *  In:  row_ptr   rows + 1 offsets, row_ptr[0] = 0, non-decreasing, row_ptr[rows] = nnz.
 *       col       nnz column indices into z (sorted within a row by convention; not required).
 *       coef      nnz indices into dict, each < dict_len.
 *       dict      dict_len Montgomery values, fully reduced; dict[0] = 1 and dict[1] = -1
 *                 (the kernel adds and subtracts for those two without a multiplication);
 *                 2 <= dict_len <= GPU_SPMAT_MAX_DICT.
 *  All arrays are borrowed (copied during the call). Each matrix keeps its own device copy of
 *  the dictionary (at most 2 MiB; a shape's three matrices may pass the same one), so matrices
 *  are independent objects. Also built on upload: the list of rows longer than
 *  GPU_SPMAT_SHORT_MAX and the largest column, checked against z's length at evaluation.
 *  Errors: CUZK_E_INVAL (with the first offending index in dg) for a row_ptr that does not
 *  start at 0, decreases or does not end at nnz, a coefficient index >= dict_len, a dictionary
 *  entry >= r, dict[0] != 1, dict[1] != -1, or rows or nnz >= 2^32; CUZK_E_NOMEM when device
 *  memory runs out. Returns owned; free with gpu_spmat_free (before closing the device). */
CZ_MUST_USE cuzk_err gpu_spmat_new(gpu_spmat **out, gpu_dev *dev, size_t rows, size_t nnz,
                                   const uint32_t *row_ptr, const uint32_t *col,
                                   const uint16_t *coef, const struct fr *dict, size_t dict_len,
                                   cz_diag *dg);
/** NULL does nothing. */
void gpu_spmat_free(gpu_spmat *m);
/** Bytes of device memory the matrix holds (row offsets, columns, coefficients, dictionary,
 *  long-row list). */
size_t gpu_spmat_bytes(const gpu_spmat *m);
/** The device bytes gpu_spmat_new will take for these arrays (borrowed; row_ptr as there):
 *  what gpu_spmat_bytes then reports, computable before any device is touched. */
size_t gpu_spmat_sizeof(size_t rows, size_t nnz, const uint32_t *row_ptr, size_t dict_len);
/** Rows of the matrix; 0 for NULL. */
size_t gpu_spmat_rows(const gpu_spmat *m);

/** out[r] = sum_j dict[coef_j] * z[col_j] over the terms of row r, for r < m->rows: Montgomery,
 *  fully reduced, exactly the CPU's fr_add / fr_sub / fr_mul sum (an empty row gives 0).
 *  In:  m      a matrix on `dev`.
 *       z      z_len Montgomery values at byte offset z_off (a multiple of 32) of a buffer on
 *              `dev`; every column of m must be < z_len (CUZK_E_INVAL otherwise).
 *  Out: out    m->rows values at byte offset out_off (a multiple of 32) of a buffer on `dev`;
 *              must not overlap z's range.
 *  Synchronous (the device's stream); CUZK_E_INVAL for a range outside a buffer. */
CZ_MUST_USE cuzk_err gpu_spmv_buf(gpu_dev *dev, gpu_buf *out, size_t out_off, const gpu_spmat *m,
                                  const gpu_buf *z, size_t z_off, size_t z_len, cz_diag *dg);

/* ---- fixed-base multiplication: the points of a parameter generation (spec groth16.md 7) ---- */

/** out[j] = [k[j]] P for j < n, exactly the points of g1_fb_mul (curve/g1.h) with the same
 *  table: `tab` holds g1_fb_table_len(w) affine points of g1_fb_table_init(.., P, w) uploaded as
 *  they are (gpu_buf_upload) to a buffer of `dev`; 2 <= w <= 16.
 *  In:  k        n canonical scalars in host memory (borrowed), each < 2^255.
 *  Out: out      host memory (pinned is fastest): n g1_aff_t (Montgomery, all-zero identity)
 *                when !encoded; with `encoded` n x 96 bytes, each point exactly as
 *                g1_aff_to_uncompressed writes it (the .params file's encoding).
 *  Synchronous. Device scratch: about 2.5 MiB per streaming multiprocessor (G2: twice that).
 *  CUZK_E_INVAL for a window out of range or a table buffer too short for it. */
CZ_MUST_USE cuzk_err gpu_fb_mul_g1(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab,
                                   unsigned w, const struct fr_repr *k, size_t n, cz_diag *dg);
/** The same over G2 (g2_fb_table_init's table; g2_aff_t or 192-byte uncompressed encodings). */
CZ_MUST_USE cuzk_err gpu_fb_mul_g2(gpu_dev *dev, void *out, bool encoded, const gpu_buf *tab,
                                   unsigned w, const struct fr_repr *k, size_t n, cz_diag *dg);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_GPU_GPU_H */
