/* sched.c - the dispatcher: moves queued jobs into the pipeline, by priority, in batches.
 *
 * DESIGN
 *  thread:  "cuzk-sched" (eng_sched_main), one per engine, started by eng_start.
 *  reads:   eng->pending[prio] (FIFO per priority), eng->timed (waiters with deadlines),
 *           eng->done (retention).
 *  does:    (1) expires await deadlines (TIMEOUT deliveries); (2) drops finished jobs past the
 *           retention limits; (3) dispatches: the best queued job (highest priority, oldest;
 *           for NORMAL/LOW with sort_by_type, the oldest of the circuit type dispatched last
 *           unless the queue head has waited longer than the batch wait) becomes ACTIVE when
 *           fewer than max_active_jobs units are active (CRITICAL jobs ignore the limit).
 *           A batchable job gathers up to max_batch_size queued jobs of its circuit type
 *           (kind, registered_proof, sector_size) into one unit; the unit is dispatched when
 *           full, when the head job has waited max_batch_wait_ms, or when a job of higher
 *           priority arrived meanwhile (job->batch_flush, set by eng_submit).
 *  wakeups: sleeps on sched_cv (monotonic clock) until the nearest deadline; woken by
 *           eng_submit, eng_await with a timeout, and finished jobs (a slot frees).
 *  lock:    eng->mu only; deferred work (timeouts, frees) runs after unlocking.
 */
#include "engine/internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/log.h"

#define ENG_MAX_BATCH 64

static bool same_as_last(const eng_t *eng, const eng_job *j)
{
    return eng->have_last_key && j->kind == eng->last_kind &&
           j->req.registered_proof == eng->last_registered_proof &&
           j->req.sector_size == eng->last_sector_size;
}

static eng_job *pick_queued(eng_t *eng, uint64_t now)
{
    uint64_t patience =
        (eng->cfg.max_batch_wait_ms ? eng->cfg.max_batch_wait_ms : 10000) * UINT64_C(1000000);
    for (int p = ENG_PRIO_COUNT - 1; p > ENG_PRIO_UNSPECIFIED; p--) {
        eng_job *head = eng->pending[p].head;
        if (!head) {
            continue;
        }
        if (eng->cfg.sort_by_type && p <= ENG_PRIO_NORMAL && !same_as_last(eng, head) &&
            now - head->t_submit < patience) {
            for (eng_job *j = head->next; j; j = j->next) {
                if (same_as_last(eng, j)) {
                    return j;
                }
            }
        }
        return head;
    }
    return NULL;
}

/* Dispatches what can be dispatched; returns the time the dispatcher must look again
 * (a batch deadline) or 0. */
static uint64_t dispatch_locked(eng_t *eng, uint64_t now)
{
    for (;;) {
        eng_job *j = pick_queued(eng, now);
        if (!j) {
            return 0;
        }
        if (j->prio != ENG_PRIO_CRITICAL && eng->active_units >= eng->cfg.max_active_jobs) {
            return 0;
        }
        size_t want = 1;
        if (j->slot->ops.batchable && eng->cfg.max_batch_size > 1) {
            want =
                eng->cfg.max_batch_size < ENG_MAX_BATCH ? eng->cfg.max_batch_size : ENG_MAX_BATCH;
        }
        eng_job *group[ENG_MAX_BATCH];
        size_t n = 0;
        group[n++] = j;
        for (int p = ENG_PRIO_COUNT - 1; p > ENG_PRIO_UNSPECIFIED && n < want; p--) {
            for (eng_job *o = eng->pending[p].head; o && n < want; o = o->next) {
                if (o != j && eng_same_circuit_type(o, j)) {
                    group[n++] = o;
                }
            }
        }
        if (n < want && !j->batch_flush) {
            uint64_t deadline = j->t_submit + eng->cfg.max_batch_wait_ms * UINT64_C(1000000);
            if (now < deadline) {
                eng->collecting = j;
                return deadline;
            }
        }
        if (eng->collecting == j) {
            eng->collecting = NULL;
        }
        eng_unit *unit = cz_calloc(1, sizeof(*unit));
        if (!unit) {
            return now + UINT64_C(100000000); /* retry in 100 ms */
        }
        unit->remaining = n;
        uint64_t useq = eng->next_useq++;
        for (size_t i = 0; i < n; i++) {
            eng_job *g = group[i];
            eng_jlist_remove(&eng->pending[g->prio], g);
            eng->pending_by_kind[g->kind]--;
            if (eng->collecting == g) {
                eng->collecting = NULL;
            }
            g->state = JOB_ACTIVE;
            g->t_dispatch = now;
            g->ns[ENG_STAGE_QUEUE_WAIT] = now - g->t_submit;
            g->unit = unit;
            g->useq = useq;
            g->batch_size = n;
            eng_jlist_push(&eng->active, g);
            eng->active_by_kind[g->kind]++;
            CZ_LOG(CZ_LOG_INFO, "job=%s kind=%s prio=%s event=dispatched batch=%zu queue_ms=%llu",
                   g->qid, eng_kind_name(g->kind), eng_prio_name(g->prio), n,
                   (unsigned long long)(g->ns[ENG_STAGE_QUEUE_WAIT] / 1000000u));
        }
        eng->active_units++;
        if (n > 1) {
            eng->m.batches++;
            eng->m.batched_jobs += n;
        }
        eng->have_last_key = true;
        eng->last_kind = j->kind;
        eng->last_registered_proof = j->req.registered_proof;
        eng->last_sector_size = j->req.sector_size;
        pthread_cond_broadcast(&eng->work_cv);
    }
}

static uint64_t expire_waiters_locked(eng_t *eng, uint64_t now, eng_defer *d)
{
    uint64_t next = 0;
    for (eng_waiter *w = eng->timed, *tn; w; w = tn) {
        tn = w->tnext;
        if (w->deadline_ns > now) {
            if (!next || w->deadline_ns < next) {
                next = w->deadline_ns;
            }
            continue;
        }
        /* Unlink from the timed list and from its job. */
        if (w->tprev) {
            w->tprev->tnext = w->tnext;
        } else {
            eng->timed = w->tnext;
        }
        if (w->tnext) {
            w->tnext->tprev = w->tprev;
        }
        eng_job *job = w->job;
        if (w->prev) {
            w->prev->next = w->next;
        } else {
            job->waiters = w->next;
        }
        if (w->next) {
            w->next->prev = w->prev;
        }
        w->next = w->prev = w->tnext = w->tprev = NULL;
        job->refs++;
        eng_defer_item it = {.kind = DEFER_TIMEOUT, .job = job, .waiters = w};
        eng_defer_add(d, &it);
    }
    return next;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
    if (!a) {
        return b;
    }
    if (!b) {
        return a;
    }
    return a < b ? a : b;
}

void eng_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t deadline_ns)
{
    if (!deadline_ns) {
        pthread_cond_wait(cv, mu);
        return;
    }
    struct timespec ts = {.tv_sec = (time_t)(deadline_ns / 1000000000u),
                          .tv_nsec = (long)(deadline_ns % 1000000000u)};
    pthread_cond_timedwait(cv, mu, &ts);
}

void *eng_sched_main(void *arg)
{
    eng_t *eng = arg;
    eng_defer d = {0};

    pthread_mutex_lock(&eng->mu);
    while (!eng->stopping) {
        uint64_t now = eng_now_ns();
        uint64_t wake = expire_waiters_locked(eng, now, &d);
        wake = earliest(wake, eng_retention_locked(eng, now, &d));
        wake = earliest(wake, dispatch_locked(eng, now));
        if (d.head) {
            eng_defer_flush_locked(eng, &d);
            continue; /* the world may have changed while unlocked */
        }
        eng_cond_wait_until(&eng->sched_cv, &eng->mu, wake);
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    return NULL;
}
