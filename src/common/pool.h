/* pool.h - a fixed set of worker threads and a blocking parallel-for.
 * Library modules receive parallelism as a `cz_pool *` (NULL = run on the calling thread).
 * One job runs at a time; concurrent callers queue on the pool. A call made from inside a
 * task of the same pool runs inline on that thread (no deadlock, no oversubscription).
 * The calling thread takes part in the work, so a pool of n threads uses n + 1 cores at most
 * while a job runs; create it with cz_pool_new(cores - 1) to use `cores` in all.
 */
#ifndef CUZK_COMMON_POOL_H
#define CUZK_COMMON_POOL_H

#include "common/common.h"

typedef struct cz_pool cz_pool;

/** One task: items [begin, end) of a job; `worker` is in [0, cz_pool_width(pool)). */
typedef void (*cz_pool_fn)(void *ctx, size_t begin, size_t end, unsigned worker);

/** Starts `nthreads` workers (0 is allowed: everything then runs on the caller).
 *  `name` prefixes the thread names ("cuzk-cpu" gives cuzk-cpu-0, ...). */
CZ_MUST_USE cuzk_err cz_pool_new(cz_pool **out, unsigned nthreads, const char *name, cz_diag *dg);

/** Stops and joins the workers; NULL does nothing. No job may be running. */
void cz_pool_free(cz_pool *pool);

/** Number of distinct `worker` values a task may see: threads + 1 (the caller); 1 for NULL. */
unsigned cz_pool_width(const cz_pool *pool);

/** Runs fn over [0, n) split into chunks of at most `grain` items (0 = automatic), spread over
 *  the workers and the caller; returns when every chunk is done. Without workers (NULL pool,
 *  no threads, or a nested call) the chunks run in order on the caller; with grain 0 that is
 *  one call over the whole range. */
void cz_pool_for(cz_pool *pool, size_t n, size_t grain, cz_pool_fn fn, void *ctx);

/** Number of online CPUs (at least 1). */
unsigned cz_cpu_count(void);

#endif /* CUZK_COMMON_POOL_H */
