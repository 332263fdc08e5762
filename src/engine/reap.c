/* reap.c - the reaper: a thread that frees partition assignments after their proofs.
 *
 * A 32 GiB PoRep partition's assignment is 4.2 GB ([inputs | aux]); returning it to the system
 * (munmap of a million pages) takes a few hundred milliseconds, which the device thread would
 * otherwise spend between two partitions with the device idle. The prover threads hand every
 * assignment they release here instead (eng_defer_run, DEFER_FREE_ASG) and go on.
 *
 * DESIGN
 *  threads: one, "cuzk-reap", started by eng_start before the workers and stopped by eng_free
 *           after every other engine thread has exited; it frees everything queued before it
 *           exits. Before it starts (or if it could not), assignments are freed by the caller.
 *  lock:    its own mutex (never held with eng->mu); the queue is a list of eng_defer_item.
 *  budget:  a partition's budget reservation is released when it is proved (pipeline.c), so
 *           for a moment the process holds up to the assignments queued here beyond the
 *           budget: one or two partitions in practice, freed in a fraction of a second.
 */
#include "engine/internal.h"

#include <stdio.h>

#include "common/alloc.h"
#include "common/log.h"

static void *reap_main(void *arg)
{
    eng_reaper *r = arg;

    pthread_mutex_lock(&r->mu);
    for (;;) {
        eng_defer_item *it = r->head;
        if (!it) {
            if (r->stop) {
                break;
            }
            pthread_cond_wait(&r->cv, &r->mu);
            continue;
        }
        r->head = it->next;
        if (!r->head) {
            r->tail = NULL;
        }
        pthread_mutex_unlock(&r->mu);
        size_t bytes = (it->asg.num_inputs + it->asg.num_aux + 3 * it->asg.m) * sizeof(fr_t);
        uint64_t t0 = eng_now_ns();
        cs_assignment_clear(&it->asg);
        CZ_LOG(CZ_LOG_DEBUG, "event=reaped bytes=%zu ms=%.1f", bytes,
               (double)(eng_now_ns() - t0) / 1e6);
        cz_free(it);
        pthread_mutex_lock(&r->mu);
        r->reaped++;
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

void eng_reaper_init(eng_reaper *r)
{
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cv, NULL);
    r->head = r->tail = NULL;
    r->stop = r->started = false;
    r->reaped = 0;
}

cuzk_err eng_reaper_start(eng_reaper *r, cz_diag *dg)
{
    if (pthread_create(&r->thread, NULL, reap_main, r) != 0) {
        return cz_fail(dg, CUZK_E_NOMEM, "cannot start thread cuzk-reap");
    }
    pthread_setname_np(r->thread, "cuzk-reap");
    pthread_mutex_lock(&r->mu);
    r->started = true;
    pthread_mutex_unlock(&r->mu);
    return CUZK_OK;
}

void eng_reaper_free_asg(eng_reaper *r, cs_assignment_t *asg)
{
    eng_defer_item *it = NULL;

    pthread_mutex_lock(&r->mu);
    if (r->started && !r->stop) {
        it = cz_calloc(1, sizeof(*it));
    }
    if (it) {
        it->kind = DEFER_FREE_ASG;
        it->asg = *asg;
        if (r->tail) {
            r->tail->next = it;
        } else {
            r->head = it;
        }
        r->tail = it;
        pthread_cond_signal(&r->cv);
    }
    pthread_mutex_unlock(&r->mu);
    if (!it) {
        cs_assignment_clear(asg); /* no reaper (or no memory for the record): free it here */
    }
}

uint64_t eng_reaper_count(eng_reaper *r)
{
    pthread_mutex_lock(&r->mu);
    uint64_t n = r->reaped;
    pthread_mutex_unlock(&r->mu);
    return n;
}

void eng_reaper_stop(eng_reaper *r)
{
    pthread_mutex_lock(&r->mu);
    bool started = r->started;
    r->stop = true;
    pthread_cond_signal(&r->cv);
    pthread_mutex_unlock(&r->mu);
    if (started) {
        pthread_join(r->thread, NULL);
    }
}

void eng_reaper_destroy(eng_reaper *r)
{
    pthread_mutex_destroy(&r->mu);
    pthread_cond_destroy(&r->cv);
}
