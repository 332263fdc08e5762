/* fork.c - parallel synthesis of a circuit's independent parts (PoRep challenges, PoSt chunks
 * of sectors, SnapDeals challenges) in cs_fork children, joined in order: the same circuit as
 * sequential synthesis.
 */
#include "circuits/internal.h"

#include "common/alloc.h"

typedef struct fork_job {
    cs_t **children;
    circ_child_fn fn;
    void *ctx;
} fork_job;

static void fork_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const fork_job *job = ctx;

    (void)worker;
    for (size_t k = begin; k < end; k++) {
        job->fn(job->children[k], k, job->ctx);
    }
}

void circ_fork_join(cs_t *cs, size_t n, const cs_counts_t *sizes, circ_child_fn fn, void *ctx,
                    cz_pool *pool, const char *what)
{
    fork_job job = {.children = cz_calloc(n, sizeof(cs_t *)), .fn = fn, .ctx = ctx};
    cuzk_err err;

    if (!job.children) {
        (void)cs_fail(cs, CUZK_E_NOMEM, "%s: parallel synthesis bookkeeping", what);
        return;
    }
    err = cs_fork(cs, job.children, n, sizes, NULL);
    if (err != CUZK_OK) {
        cz_free(job.children);
        (void)cs_fail(cs, err, "%s: cannot fork %zu parts", what, n);
        return;
    }
    cz_pool_for(pool, n, 1, fork_task, &job);
    for (size_t k = 0; k < n; k++) {
        err = cs_join(cs, job.children[k], NULL);
        (void)err; /* a failure is sticky in cs and reported by cs_finish */
        cs_free(job.children[k]);
    }
    cz_free(job.children);
}
