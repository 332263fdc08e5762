/* alloc.h - allocation for code above the arithmetic layers, and secret wiping.
 * field, curve, poly, msm and hash never allocate: they take caller scratch.
 * cz_malloc/cz_free count live bytes (per process) so that tests and jobs can see leaks and
 * peaks; cz_buf_new gives large (>= 1 MiB) page-aligned buffers from mmap, huge-page advised.
 */
#ifndef CUZK_COMMON_ALLOC_H
#define CUZK_COMMON_ALLOC_H

#include "common/common.h"

/** malloc that counts; NULL on failure (never aborts). cz_malloc(0) returns a valid pointer.
 *  Blocks of 32 MiB or more are advised to use transparent huge pages (fewer page faults). */
void *cz_malloc(size_t n);
void *cz_calloc(size_t count, size_t size);
/** Like realloc; on failure returns NULL and leaves `p` untouched. */
void *cz_realloc(void *p, size_t n);
void cz_free(void *p);
/** Duplicates a NUL-terminated string; NULL on failure. */
char *cz_strdup(const char *s);

/** Memory aligned to `align` (a power of two, >= sizeof(void *)); free with cz_free_aligned. */
void *cz_malloc_aligned(size_t n, size_t align);
void cz_free_aligned(void *p);

/** Bytes currently allocated through cz_malloc/cz_calloc/cz_realloc/cz_malloc_aligned, and the
 *  peak since start or the last cz_alloc_reset_peak(). */
size_t cz_alloc_live(void);
size_t cz_alloc_peak(void);
void cz_alloc_reset_peak(void);

/** A large anonymous buffer (mmap), page-aligned, zero-filled, huge pages advised. */
typedef struct cz_buf {
    void *ptr;
    size_t len;
} cz_buf;

/** Maps `len` bytes into `out`. Returns CUZK_E_NOMEM when the mapping fails. */
CZ_MUST_USE cuzk_err cz_buf_new(cz_buf *out, size_t len, cz_diag *dg);
/** Unmaps; a zeroed cz_buf is accepted and ignored. */
void cz_buf_free(cz_buf *buf);

/** Overwrites n bytes with zeros in a way the compiler cannot elide (for r, s, secrets). */
void cz_memzero(void *p, size_t n);

/** Peak resident set size of the process in bytes (getrusage), 0 if unknown. */
size_t cz_rss_peak(void);
/** Current resident set size in bytes (/proc/self/statm), 0 if unknown. */
size_t cz_rss_now(void);

#endif /* CUZK_COMMON_ALLOC_H */
