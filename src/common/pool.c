/* pool.c - worker pool.
 * DESIGN
 *  threads: `n` workers named <name>-<i>, started by cz_pool_new, joined by cz_pool_free.
 *  queue:   at most one job (fn, ctx, n, grain) at a time; `job_lock` serializes callers.
 *  wakeups: the caller publishes a job under `mu`, bumps `generation` and broadcasts `work_cv`;
 *           workers (and the caller) claim chunks from the atomic `next`; the last finisher of
 *           the job signals `done_cv`. Workers go back to waiting on `work_cv`.
 *  lock order: job_lock before mu. No lock is held while a task runs.
 *  nesting: a thread-local marks threads inside a task of some pool; cz_pool_for from there
 *           runs inline.
 */
#include "common/pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"

struct cz_pool {
    pthread_mutex_t job_lock;
    pthread_mutex_t mu;
    pthread_cond_t work_cv;
    pthread_cond_t done_cv;
    pthread_t *threads;
    unsigned nthreads;
    bool stopping;
    uint64_t generation;

    /* The current job. */
    cz_pool_fn fn;
    void *ctx;
    size_t n;
    size_t grain;
    atomic_size_t next;
    unsigned active; /* participants still working on the job, guarded by mu */
};

struct worker_arg {
    cz_pool *pool;
    unsigned index;
};

static _Thread_local bool in_task;

static void run_chunks(cz_pool *p, unsigned worker)
{
    in_task = true;
    for (;;) {
        size_t begin = atomic_fetch_add(&p->next, p->grain);
        if (begin >= p->n) {
            break;
        }
        size_t end = begin + p->grain < p->n ? begin + p->grain : p->n;
        p->fn(p->ctx, begin, end, worker);
    }
    in_task = false;
}

static void *worker_main(void *arg)
{
    struct worker_arg wa = *(struct worker_arg *)arg;
    cz_pool *p = wa.pool;
    uint64_t seen = 0;

    cz_free(arg);
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->stopping && p->generation == seen) {
            pthread_cond_wait(&p->work_cv, &p->mu);
        }
        if (p->stopping) {
            break;
        }
        seen = p->generation;
        pthread_mutex_unlock(&p->mu);
        run_chunks(p, wa.index + 1);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0) {
            pthread_cond_signal(&p->done_cv);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

cuzk_err cz_pool_new(cz_pool **out, unsigned nthreads, const char *name, cz_diag *dg)
{
    cz_pool *p = cz_calloc(1, sizeof(*p));

    *out = NULL;
    if (!p) {
        return cz_fail(dg, CUZK_E_NOMEM, "pool");
    }
    pthread_mutex_init(&p->job_lock, NULL);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->work_cv, NULL);
    pthread_cond_init(&p->done_cv, NULL);
    p->threads = cz_calloc(nthreads ? nthreads : 1, sizeof(pthread_t));
    if (!p->threads) {
        cz_pool_free(p);
        return cz_fail(dg, CUZK_E_NOMEM, "pool threads");
    }
    for (unsigned i = 0; i < nthreads; i++) {
        struct worker_arg *wa = cz_malloc(sizeof(*wa));
        if (!wa) {
            cz_pool_free(p);
            return cz_fail(dg, CUZK_E_NOMEM, "pool worker");
        }
        wa->pool = p;
        wa->index = i;
        if (pthread_create(&p->threads[i], NULL, worker_main, wa) != 0) {
            cz_free(wa);
            cz_pool_free(p);
            return cz_fail(dg, CUZK_E_NOMEM, "pthread_create failed for worker %u", i);
        }
        p->nthreads = i + 1;
        char tname[32];
        snprintf(tname, sizeof(tname), "%.9s-%u", name ? name : "cuzk", i % 100000u);
        tname[15] = '\0'; /* the kernel keeps 15 characters */
        pthread_setname_np(p->threads[i], tname);
    }
    *out = p;
    return CUZK_OK;
}

void cz_pool_free(cz_pool *p)
{
    if (!p) {
        return;
    }
    pthread_mutex_lock(&p->mu);
    p->stopping = true;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->nthreads; i++) {
        pthread_join(p->threads[i], NULL);
    }
    cz_free(p->threads);
    pthread_mutex_destroy(&p->job_lock);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->work_cv);
    pthread_cond_destroy(&p->done_cv);
    cz_free(p);
}

unsigned cz_pool_width(const cz_pool *pool)
{
    return pool ? pool->nthreads + 1 : 1;
}

void cz_pool_for(cz_pool *p, size_t n, size_t grain, cz_pool_fn fn, void *ctx)
{
    if (n == 0) {
        return;
    }
    if (!p || p->nthreads == 0 || in_task) {
        /* Inline: still honour the chunk size, which callers may rely on. */
        bool was = in_task;
        size_t step = grain ? grain : n;
        in_task = true;
        for (size_t begin = 0; begin < n; begin += step) {
            fn(ctx, begin, begin + step < n ? begin + step : n, 0);
        }
        in_task = was;
        return;
    }
    if (grain == 0) {
        size_t parts = (size_t)(p->nthreads + 1) * 4;
        grain = (n + parts - 1) / parts;
    }
    pthread_mutex_lock(&p->job_lock);
    pthread_mutex_lock(&p->mu);
    p->fn = fn;
    p->ctx = ctx;
    p->n = n;
    p->grain = grain;
    atomic_store(&p->next, 0);
    p->active = p->nthreads;
    p->generation++;
    pthread_cond_broadcast(&p->work_cv);
    pthread_mutex_unlock(&p->mu);

    run_chunks(p, 0);

    pthread_mutex_lock(&p->mu);
    while (p->active != 0) {
        pthread_cond_wait(&p->done_cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    pthread_mutex_unlock(&p->job_lock);
}

unsigned cz_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}
