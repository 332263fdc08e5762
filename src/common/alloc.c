/* alloc.c - counted allocation, mmap buffers, wiping and process memory readings.
 * Each block carries a 16-byte header with its size so that cz_free can keep the live count.
 */
#include "common/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define HDR 16 /* keeps 16-byte alignment of the returned pointer */

static _Atomic size_t alloc_live;
static _Atomic size_t alloc_peak;

static void count_add(size_t n)
{
    size_t now = atomic_fetch_add(&alloc_live, n) + n;
    size_t peak = atomic_load(&alloc_peak);
    while (now > peak && !atomic_compare_exchange_weak(&alloc_peak, &peak, now)) {
    }
}

/* Blocks from this size on (mapped by malloc on their own) ask for transparent huge pages on
 * their whole 2 MiB-aligned inside: a 4 GB witness then faults in 2,000 times instead of a
 * million, and returns to the system as fast. Without THP (or with THP "always") the advice
 * changes nothing. */
#define HUGE_FROM ((size_t)32 << 20)
#define HUGE_PAGE ((uintptr_t)2 << 20)

static void advise_huge(unsigned char *p, size_t n)
{
    uintptr_t lo = ((uintptr_t)p + HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
    uintptr_t hi = ((uintptr_t)p + n) & ~(HUGE_PAGE - 1);

    if (n >= HUGE_FROM && hi > lo) {
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE); /* advice only: errors are harmless */
    }
}

void *cz_malloc(size_t n)
{
    if (n > SIZE_MAX - HDR) {
        return NULL;
    }
    unsigned char *p = malloc(n + HDR);
    if (!p) {
        return NULL;
    }
    memcpy(p, &n, sizeof(n));
    count_add(n);
    advise_huge(p, n + HDR);
    return p + HDR;
}

void *cz_calloc(size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size) {
        return NULL;
    }
    void *p = cz_malloc(count * size);
    if (p) {
        memset(p, 0, count * size);
    }
    return p;
}

void *cz_realloc(void *p, size_t n)
{
    if (!p) {
        return cz_malloc(n);
    }
    if (n > SIZE_MAX - HDR) {
        return NULL;
    }
    unsigned char *base = (unsigned char *)p - HDR;
    size_t old;
    memcpy(&old, base, sizeof(old));
    unsigned char *q = realloc(base, n + HDR);
    if (!q) {
        return NULL;
    }
    memcpy(q, &n, sizeof(n));
    atomic_fetch_sub(&alloc_live, old);
    count_add(n);
    advise_huge(q, n + HDR);
    return q + HDR;
}

void cz_free(void *p)
{
    if (!p) {
        return;
    }
    unsigned char *base = (unsigned char *)p - HDR;
    size_t n;
    memcpy(&n, base, sizeof(n));
    atomic_fetch_sub(&alloc_live, n);
    free(base);
}

char *cz_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = cz_malloc(n);
    if (d) {
        memcpy(d, s, n);
    }
    return d;
}

void *cz_malloc_aligned(size_t n, size_t align)
{
    void *p = NULL;
    if (align < sizeof(void *)) {
        align = sizeof(void *);
    }
    /* The size is kept just before the aligned block, in an extra alignment unit. */
    if (n > SIZE_MAX - align || posix_memalign(&p, align, n + align) != 0) {
        return NULL;
    }
    unsigned char *user = (unsigned char *)p + align;
    memcpy(user - sizeof(size_t), &n, sizeof(n));
    memcpy(user - 2 * sizeof(size_t), &align, sizeof(align));
    count_add(n);
    return user;
}

void cz_free_aligned(void *p)
{
    if (!p) {
        return;
    }
    unsigned char *user = p;
    size_t n, align;
    memcpy(&n, user - sizeof(size_t), sizeof(n));
    memcpy(&align, user - 2 * sizeof(size_t), sizeof(align));
    atomic_fetch_sub(&alloc_live, n);
    free(user - align);
}

size_t cz_alloc_live(void)
{
    return atomic_load(&alloc_live);
}

size_t cz_alloc_peak(void)
{
    return atomic_load(&alloc_peak);
}

void cz_alloc_reset_peak(void)
{
    atomic_store(&alloc_peak, atomic_load(&alloc_live));
}

cuzk_err cz_buf_new(cz_buf *out, size_t len, cz_diag *dg)
{
    out->ptr = NULL;
    out->len = 0;
    if (len == 0) {
        return CUZK_OK;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        return cz_fail(dg, CUZK_E_NOMEM, "mmap of %zu bytes failed", len);
    }
#ifdef MADV_HUGEPAGE
    if (len >= (2u << 20)) {
        (void)madvise(p, len, MADV_HUGEPAGE);
    }
#endif
    out->ptr = p;
    out->len = len;
    return CUZK_OK;
}

void cz_buf_free(cz_buf *buf)
{
    if (buf && buf->ptr) {
        munmap(buf->ptr, buf->len);
        buf->ptr = NULL;
        buf->len = 0;
    }
}

void cz_memzero(void *p, size_t n)
{
    volatile unsigned char *v = p;
    while (n--) {
        *v++ = 0;
    }
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

size_t cz_rss_peak(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) {
        return 0;
    }
    return (size_t)ru.ru_maxrss * 1024u;
}

size_t cz_rss_now(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long size = 0, resident = 0;
    if (!f) {
        return 0;
    }
    if (fscanf(f, "%lu %lu", &size, &resident) != 2) {
        resident = 0;
    }
    fclose(f);
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}
