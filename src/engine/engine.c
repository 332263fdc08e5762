/* engine.c - the job table, the public API and job completion.
 *
 * DESIGN
 *  See docs/engine.md: threads, queues, wakeups, the lock order (eng_t.mu and the process-wide
 *  memo locks), cancellation, job lifetime, the memory budget and the partition pipeline. In
 *  short: eng_start creates every engine thread; one mutex, eng_t.mu, guards all engine state,
 *  no other mutex is taken while it is held, and it is never held across handler calls,
 *  proving, file I/O, parameter decoding, waiter callbacks or large frees (those go through an
 *  eng_defer and run after unlocking). Finished jobs are immutable and read without the lock.
 */
#include "engine/engine.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/log.h"
#include "common/rand.h"
#include "engine/internal.h"

/* ---------------------------------------------------------------------------------------------
 * Small helpers
 * ------------------------------------------------------------------------------------------- */

uint64_t eng_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t eng_deadline_ns(uint64_t timeout_ms)
{
    uint64_t now = eng_now_ns();
    if (timeout_ms > (UINT64_MAX - now) / UINT64_C(1000000)) {
        return UINT64_MAX;
    }
    return now + timeout_ms * UINT64_C(1000000);
}

static uint64_t ns_to_ms(uint64_t ns)
{
    return ns / 1000000u;
}

void eng_jlist_push(eng_jlist *l, eng_job *j)
{
    j->prev = l->tail;
    j->next = NULL;
    if (l->tail) {
        l->tail->next = j;
    } else {
        l->head = j;
    }
    l->tail = j;
    l->n++;
}

void eng_jlist_remove(eng_jlist *l, eng_job *j)
{
    if (j->prev) {
        j->prev->next = j->next;
    } else {
        l->head = j->next;
    }
    if (j->next) {
        j->next->prev = j->prev;
    } else {
        l->tail = j->prev;
    }
    j->prev = j->next = NULL;
    l->n--;
}

static size_t id_hash(const char *id)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 */
    for (const unsigned char *p = (const unsigned char *)id; *p; p++) {
        h ^= *p;
        h *= 0x100000001b3u;
    }
    return (size_t)(h % ENG_JOB_BUCKETS);
}

static eng_job *table_find(eng_t *eng, const char *id)
{
    for (eng_job *j = eng->table[id_hash(id)]; j; j = j->hnext) {
        if (strcmp(j->id, id) == 0) {
            return j;
        }
    }
    return NULL;
}

static void table_insert(eng_t *eng, eng_job *job)
{
    size_t b = id_hash(job->id);
    job->hnext = eng->table[b];
    eng->table[b] = job;
    job->in_table = true;
}

static void table_unlink(eng_t *eng, eng_job *job)
{
    eng_job **pp = &eng->table[id_hash(job->id)];
    while (*pp && *pp != job) {
        pp = &(*pp)->hnext;
    }
    if (*pp) {
        *pp = job->hnext;
    }
    job->hnext = NULL;
    job->in_table = false;
}

bool eng_same_circuit_type(const eng_job *a, const eng_job *b)
{
    return a->kind == b->kind && a->req.registered_proof == b->req.registered_proof &&
           a->req.sector_size == b->req.sector_size;
}

/* ---------------------------------------------------------------------------------------------
 * Deferred work
 * ------------------------------------------------------------------------------------------- */

void eng_defer_add(eng_defer *d, const eng_defer_item *item)
{
    eng_defer_item *it = cz_malloc(sizeof(*it));
    /* Running out of memory for a 200-byte record is not survivable in a sensible way; losing
     * a delivery would hang a client forever, so treat it as fatal. */
    CZ_CHECK(it != NULL);
    *it = *item;
    it->next = NULL;
    if (d->tail) {
        d->tail->next = it;
    } else {
        d->head = it;
    }
    d->tail = it;
}

static void job_result(const eng_job *job, eng_result_t *res)
{
    memset(res, 0, sizeof(*res));
    res->job_id = job->id;
    res->kind = job->kind;
    res->status = job->status;
    res->proof = job->status == ENG_STATUS_COMPLETED ? job->proof : NULL;
    res->proof_len = job->status == ENG_STATUS_COMPLETED ? job->proof_len : 0;
    res->error = job->error ? job->error : "";
    res->timings.queue_wait_ms = ns_to_ms(job->ns[ENG_STAGE_QUEUE_WAIT]);
    res->timings.srs_load_ms = ns_to_ms(job->ns[ENG_STAGE_SRS_LOAD]);
    res->timings.synthesis_ms = ns_to_ms(job->ns[ENG_STAGE_SYNTHESIS]);
    res->timings.prove_ms = ns_to_ms(job->ns[ENG_STAGE_PROVE]);
    res->timings.h2d_bytes = job->h2d_bytes;
    res->timings.verify_ms = ns_to_ms(job->ns[ENG_STAGE_VERIFY]);
    res->timings.total_ms = ns_to_ms(job->ns[ENG_STAGE_TOTAL]);
    res->batch_size = job->batch_size;
}

void eng_job_drop_request_locked(eng_t *eng, eng_job *job, eng_defer *d)
{
    if (job->req_buf) {
        eng_defer_item it = {.kind = DEFER_FREE_MEM, .ptr = job->req_buf};
        eng_defer_add(d, &it);
        job->req_buf = NULL;
    }
    CZ_CHECK(eng->req_bytes >= job->req_bytes);
    eng->req_bytes -= job->req_bytes;
    job->req_bytes = 0;
}

static void job_free(eng_job *job)
{
    cz_free(job->error);
    cz_free(job->proof);
    cz_free(job->req_buf);
    cz_free(job->req_vps);
    cz_free(job->parts);
    cz_free(job);
}

void eng_job_unref_locked(eng_t *eng, eng_job *job, eng_defer *d)
{
    (void)eng;
    CZ_CHECK(job->refs > 0);
    if (--job->refs == 0) {
        eng_defer_item it = {.kind = DEFER_FREE_JOB, .job = job};
        eng_defer_add(d, &it);
    }
}

void eng_defer_run(eng_t *eng, eng_defer *d)
{
    while (d->head) {
        eng_defer_item *it = d->head;
        d->head = it->next;
        if (!d->head) {
            d->tail = NULL;
        }
        switch (it->kind) {
        case DEFER_DELIVER: {
            eng_result_t res;
            job_result(it->job, &res);
            for (eng_waiter *w = it->waiters, *next; w; w = next) {
                next = w->next;
                w->cb(w->arg, &res);
                cz_free(w);
            }
            eng_defer more = {0};
            pthread_mutex_lock(&eng->mu);
            eng_job_unref_locked(eng, it->job, &more);
            pthread_mutex_unlock(&eng->mu);
            eng_defer_run(eng, &more);
            break;
        }
        case DEFER_TIMEOUT: {
            eng_waiter *w = it->waiters;
            eng_result_t res = {.job_id = it->job->id,
                                .kind = it->job->kind,
                                .status = ENG_STATUS_TIMEOUT,
                                .error = ""};
            w->cb(w->arg, &res);
            cz_free(w);
            eng_defer more = {0};
            pthread_mutex_lock(&eng->mu);
            eng_job_unref_locked(eng, it->job, &more);
            pthread_mutex_unlock(&eng->mu);
            eng_defer_run(eng, &more);
            break;
        }
        case DEFER_PLAN_FREE: {
            if (it->slot->ops.plan_free) {
                it->slot->ops.plan_free(it->slot->ctx, &it->plan);
            }
            eng_defer more = {0};
            pthread_mutex_lock(&eng->mu);
            eng_job_unref_locked(eng, it->job, &more);
            pthread_mutex_unlock(&eng->mu);
            eng_defer_run(eng, &more);
            break;
        }
        case DEFER_FREE_ASG:
            eng_reaper_free_asg(&eng->reaper, &it->asg);
            break;
        case DEFER_FREE_PARAMS:
            g16_params_free(it->params);
            break;
        case DEFER_UNMAP:
            eng_srs_unmap(it->ptr, it->len);
            break;
        case DEFER_FREE_MEM:
            cz_free(it->ptr);
            break;
        case DEFER_FREE_SHAPE:
            eng_shape_free(it->ptr);
            break;
        case DEFER_FREE_JOB:
            job_free(it->job);
            break;
        case DEFER_UNREF_JOB: {
            eng_defer more = {0};
            pthread_mutex_lock(&eng->mu);
            eng_job_unref_locked(eng, it->job, &more);
            pthread_mutex_unlock(&eng->mu);
            eng_defer_run(eng, &more);
            break;
        }
        }
        cz_free(it);
    }
}

void eng_defer_flush_locked(eng_t *eng, eng_defer *d)
{
    if (!d->head) {
        return;
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, d);
    pthread_mutex_lock(&eng->mu);
}

/* ---------------------------------------------------------------------------------------------
 * Job completion
 * ------------------------------------------------------------------------------------------- */

void eng_job_fail_locked(eng_t *eng, eng_job *job, const char *fmt, ...)
{
    (void)eng;
    atomic_store(&job->cancel, true);
    if (job->failed) {
        return;
    }
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    job->failed = true;
    cz_free(job->error);
    job->error = cz_strdup(msg);
    if (CZ_LOG_WARN <= cz_log_threshold) {
        char q[CZ_LOG_QUOTED_MAX(sizeof(msg))];
        cz_log_write(CZ_LOG_WARN, "job=%s kind=%s event=failed error=%s", job->qid,
                     eng_kind_name(job->kind), cz_log_quote(q, sizeof(q), msg));
    }
}

/* Counts partition p's assignment in what partitions hold on the host, and the peaks. */
void eng_part_hold_asg_locked(eng_t *eng, eng_part *p)
{
    p->asg_bytes = cs_assignment_bytes(&p->asg);
    if (p->asg_bytes) {
        eng->asg_bytes += p->asg_bytes;
        eng->asg_held++;
        if (eng->asg_bytes > eng->asg_bytes_peak) {
            eng->asg_bytes_peak = eng->asg_bytes;
        }
        if (eng->asg_held > eng->asg_held_peak) {
            eng->asg_held_peak = eng->asg_held;
        }
    }
}

uint64_t eng_part_drop_asg_locked(eng_t *eng, eng_part *p, uint64_t room, eng_defer *d)
{
    eng_gpu_stage_drop_locked(p);
    if (p->asg_bytes) {
        eng->asg_bytes -= p->asg_bytes;
        eng->asg_held--;
        p->asg_bytes = 0;
    }
    uint64_t kept = eng_spare_put_locked(eng, &p->asg, room, d);
    if (p->asg.a || p->asg.aux || p->asg.inputs) {
        eng_defer_item it = {.kind = DEFER_FREE_ASG, .asg = p->asg};
        eng_defer_add(d, &it);
    }
    memset(&p->asg, 0, sizeof(p->asg));
    return kept;
}

/* Releases what partition k holds: its assignment, its budget bytes, its parameter ref. */
void eng_part_release_locked(eng_t *eng, eng_job *job, size_t k, eng_defer *d)
{
    eng_part *p = &job->parts[k];
    uint64_t kept = eng_part_drop_asg_locked(eng, p, p->reserved, d);
    p->shed = false;
    g16_classes_free(p->classes); /* what a group left of them, or all */
    p->classes = NULL;
    if (p->reserved) {
        eng_mem_release_locked(eng, p->reserved - kept); /* a spare keeps its own bytes */
        eng->mem_parts -= p->reserved;
        p->reserved = 0;
    }
    if (p->shape_ref) {
        eng_shape_put_locked(eng, p->shape_ref, d);
        p->shape_ref = NULL;
        p->shape = NULL;
    }
    if (p->holds_srs) {
        eng_srs_unref_locked(eng, job->srs);
        eng_srs_misfit_demote_locked(eng, job->srs, d);
        p->holds_srs = false;
    }
}

static void job_finish_locked(eng_t *eng, eng_job *job, eng_status status, eng_defer *d)
{
    uint64_t now = eng_now_ns();

    if (job->state == JOB_QUEUED) {
        eng_jlist_remove(&eng->pending[job->prio], job);
        eng->pending_by_kind[job->kind]--;
        if (eng->collecting == job) {
            eng->collecting = NULL;
        }
    } else if (job->state == JOB_ACTIVE) {
        eng_jlist_remove(&eng->active, job);
        eng->active_by_kind[job->kind]--;
        if (job->unit && --job->unit->remaining == 0) {
            cz_free(job->unit);
            eng->active_units--;
        }
        job->unit = NULL;
        if (job->parts) {
            for (size_t k = 0; k < job->plan.num_partitions; k++) {
                eng_part_release_locked(eng, job, k, d);
            }
        }
        if (job->plan_valid) {
            job->refs++; /* plan.job_id points into the job */
            eng_defer_item it = {
                .kind = DEFER_PLAN_FREE, .job = job, .plan = job->plan, .slot = job->slot};
            eng_defer_add(d, &it);
            job->plan_valid = false;
        }
    }
    eng_job_drop_request_locked(eng, job, d);
    job->state = JOB_DONE;
    job->status = status;
    job->t_done = now;
    job->ns[ENG_STAGE_TOTAL] = now - job->t_submit;
    if (status != ENG_STATUS_COMPLETED) {
        cz_free(job->proof);
        job->proof = NULL;
        job->proof_len = 0;
    }
    if (status == ENG_STATUS_COMPLETED) {
        eng->m.completed[job->kind]++;
    } else if (status == ENG_STATUS_FAILED) {
        eng->m.failed[job->kind]++;
    } else {
        eng->m.cancelled[job->kind]++;
    }
    eng_metrics_job_done_locked(eng, job);
    if (job->in_table) {
        eng_jlist_push(&eng->done, job);
    }

    CZ_LOG(CZ_LOG_INFO,
           "job=%s kind=%s status=%s partitions=%zu queue_ms=%llu srs_ms=%llu synth_ms=%llu "
           "prove_ms=%llu verify_ms=%llu total_ms=%llu h2d_bytes=%llu",
           job->qid, eng_kind_name(job->kind),
           status == ENG_STATUS_COMPLETED ? "completed"
           : status == ENG_STATUS_FAILED  ? "failed"
                                          : "cancelled",
           job->plan.num_partitions, (unsigned long long)ns_to_ms(job->ns[ENG_STAGE_QUEUE_WAIT]),
           (unsigned long long)ns_to_ms(job->ns[ENG_STAGE_SRS_LOAD]),
           (unsigned long long)ns_to_ms(job->ns[ENG_STAGE_SYNTHESIS]),
           (unsigned long long)ns_to_ms(job->ns[ENG_STAGE_PROVE]),
           (unsigned long long)ns_to_ms(job->ns[ENG_STAGE_VERIFY]),
           (unsigned long long)ns_to_ms(job->ns[ENG_STAGE_TOTAL]),
           (unsigned long long)job->h2d_bytes);

    /* Hand the waiters over to a delivery that runs after the lock is released. */
    if (job->waiters) {
        for (eng_waiter *w = job->waiters; w; w = w->next) {
            if (w->deadline_ns) {
                if (w->tprev) {
                    w->tprev->tnext = w->tnext;
                } else {
                    eng->timed = w->tnext;
                }
                if (w->tnext) {
                    w->tnext->tprev = w->tprev;
                }
            }
        }
        job->refs++;
        eng_defer_item it = {.kind = DEFER_DELIVER, .job = job, .waiters = job->waiters};
        eng_defer_add(d, &it);
        job->waiters = NULL;
    }
    pthread_cond_broadcast(&eng->sched_cv);
    pthread_cond_broadcast(&eng->work_cv);
    pthread_cond_broadcast(&eng->done_cv);
}

void eng_job_maybe_finish_locked(eng_t *eng, eng_job *job, eng_defer *d)
{
    if (job->state != JOB_ACTIVE || job->running != 0) {
        return;
    }
    if (atomic_load(&job->cancel)) {
        job_finish_locked(eng, job, job->failed ? ENG_STATUS_FAILED : ENG_STATUS_CANCELLED, d);
    } else if (job->prepared && job->parts_done == job->plan.num_partitions) {
        job_finish_locked(eng, job, ENG_STATUS_COMPLETED, d);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Lifecycle
 * ------------------------------------------------------------------------------------------- */

void eng_config_default(eng_config_t *cfg)
{
    unsigned cpus = cz_cpu_count();

    memset(cfg, 0, sizeof(*cfg));
    cfg->param_cache = "/var/tmp/filecoin-proof-parameters";
    cfg->mem_budget_bytes = UINT64_C(4) << 30;
    cfg->synth_workers = cpus;
    cfg->prover_threads = 1;
    cfg->prover_pool_threads = cpus > 1 ? cpus - 1 : 0;
    cfg->srs_load_threads = cpus > 1 ? cpus - 1 : 0;
    cfg->max_active_jobs = 4;
    cfg->max_batch_size = 1;
    cfg->max_batch_wait_ms = 10000;
    cfg->sort_by_type = true;
    cfg->eviction_min_idle_ms = 0;
    cfg->retention_ms = 3600u * 1000u;
    cfg->max_retained = 10000;
    cfg->verify_proofs = true;
    cfg->gpu_mode = ENG_GPU_AUTO;
    cfg->gpu_stream_share = 10;
    cfg->gpu_stream_kept_h = 3;
    cfg->n_gpu_devices = 0;
    cfg->gpu_mem_limit_bytes = 0;
}

/* An ENG_GPU_LIST must name 1 .. ENG_MAX_GPUS distinct ordinals. */
static cuzk_err check_gpu_config(const eng_config_t *cfg, cz_diag *dg)
{
    if (cfg->gpu_mode != ENG_GPU_AUTO && cfg->gpu_mode != ENG_GPU_NONE &&
        cfg->gpu_mode != ENG_GPU_LIST) {
        return cz_fail(dg, CUZK_E_INVAL, "engine config: gpu_mode %d", (int)cfg->gpu_mode);
    }
    if (cfg->gpu_mode != ENG_GPU_LIST) {
        return CUZK_OK;
    }
    if (cfg->n_gpu_devices == 0 || cfg->n_gpu_devices > ENG_MAX_GPUS) {
        return cz_fail(dg, CUZK_E_INVAL, "engine config: %zu GPU ordinals listed (1 .. %d)",
                       cfg->n_gpu_devices, ENG_MAX_GPUS);
    }
    for (size_t i = 0; i < cfg->n_gpu_devices; i++) {
        for (size_t j = 0; j < i; j++) {
            if (cfg->gpu_devices[i] == cfg->gpu_devices[j]) {
                return cz_fail(dg, CUZK_E_INVAL, "engine config: GPU %u is listed twice",
                               cfg->gpu_devices[i]);
            }
        }
    }
    return CUZK_OK;
}

cuzk_err eng_new(eng_t **out, const eng_config_t *cfg, cz_diag *dg)
{
    *out = NULL;
    if (!cfg || !cfg->param_cache || cfg->synth_workers == 0 || cfg->prover_threads == 0 ||
        cfg->max_active_jobs == 0 || cfg->max_batch_size == 0 || cfg->mem_budget_bytes == 0) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "engine config: param_cache, synth_workers, prover_threads, "
                       "max_active_jobs, max_batch_size and mem_budget_bytes must be set");
    }
    cuzk_err err = check_gpu_config(cfg, dg);
    if (err != CUZK_OK) {
        return err;
    }
    eng_t *eng = cz_calloc(1, sizeof(*eng));
    if (!eng) {
        return cz_fail(dg, CUZK_E_NOMEM, "engine");
    }
    eng->cfg = *cfg;
    eng->param_cache = cz_strdup(cfg->param_cache);
    eng->shape_cache = cfg->shape_cache && cfg->shape_cache[0] ? cz_strdup(cfg->shape_cache) : NULL;
    if (!eng->param_cache || (cfg->shape_cache && cfg->shape_cache[0] && !eng->shape_cache)) {
        cz_free(eng->param_cache);
        cz_free(eng->shape_cache);
        cz_free(eng);
        return cz_fail(dg, CUZK_E_NOMEM, "engine");
    }
    eng->cfg.param_cache = eng->param_cache;
    eng->cfg.shape_cache = eng->shape_cache;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&eng->mu, NULL);
    pthread_cond_init(&eng->sched_cv, &ca);
    pthread_cond_init(&eng->work_cv, &ca);
    pthread_cond_init(&eng->prove_cv, &ca);
    pthread_cond_init(&eng->done_cv, &ca);
    pthread_condattr_destroy(&ca);
    eng_reaper_init(&eng->reaper);
    eng->accepting = true;
    eng->t_start = eng_now_ns();
    eng->next_seq = 1;
    eng->next_useq = 1;
    *out = eng;
    return CUZK_OK;
}

cuzk_err eng_register_kind(eng_t *eng, eng_kind kind, const eng_kind_ops *ops, void *ctx,
                           cz_diag *dg)
{
    if (kind <= ENG_KIND_UNSPECIFIED || kind >= ENG_KIND_COUNT) {
        return cz_fail(dg, CUZK_E_INVAL, "proof kind %d out of range", (int)kind);
    }
    if (!ops || !ops->parse || !ops->synthesize || !ops->srs_file) {
        return cz_fail(dg, CUZK_E_INVAL, "handler of %s lacks parse, synthesize or srs_file",
                       eng_kind_name(kind));
    }
    pthread_mutex_lock(&eng->mu);
    cuzk_err err = CUZK_OK;
    if (eng->started) {
        err = cz_fail(dg, CUZK_E_INVAL, "handlers must be registered before eng_start");
    } else if (eng->kinds[kind].present) {
        err = cz_fail(dg, CUZK_E_INVAL, "a handler for %s is already registered",
                      eng_kind_name(kind));
    } else {
        eng->kinds[kind].kind = kind;
        eng->kinds[kind].ops = *ops;
        eng->kinds[kind].ctx = ctx;
        eng->kinds[kind].present = true;
    }
    pthread_mutex_unlock(&eng->mu);
    return err;
}

static cuzk_err start_thread(pthread_t *t, void *(*fn)(void *), void *arg, const char *name,
                             cz_diag *dg)
{
    if (pthread_create(t, NULL, fn, arg) != 0) {
        return cz_fail(dg, CUZK_E_NOMEM, "cannot start thread %s", name);
    }
    pthread_setname_np(*t, name);
    return CUZK_OK;
}

typedef struct eng_thread_arg {
    eng_t *eng;
    unsigned index;
} eng_thread_arg;

cuzk_err eng_start(eng_t *eng, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    char name[16];

    pthread_mutex_lock(&eng->mu);
    if (eng->started) {
        pthread_mutex_unlock(&eng->mu);
        return cz_fail(dg, CUZK_E_INVAL, "engine already started");
    }
    eng->started = true;
    pthread_mutex_unlock(&eng->mu);

    CZ_TRY(err, cz_pool_new(&eng->prove_pool, eng->cfg.prover_pool_threads, "cuzk-msm", dg), done);
    CZ_TRY(err, cz_pool_new(&eng->load_pool, eng->cfg.srs_load_threads, "cuzk-srs", dg), done);
    CZ_TRY(err, cz_pool_new(&eng->synth_pool, eng->cfg.synth_workers - 1, "cuzk-synp", dg), done);
    CZ_TRY(err, eng_gpu_open_all(eng, dg), done);
    CZ_TRY(err, eng_reaper_start(&eng->reaper, dg), done);
    unsigned cpu_provers = eng->n_gpus ? 0 : eng->cfg.prover_threads;
    eng->workers = cz_calloc(eng->cfg.synth_workers, sizeof(pthread_t));
    eng->provers = cz_calloc(cpu_provers ? cpu_provers : 1, sizeof(pthread_t));
    if (!eng->workers || !eng->provers) {
        err = cz_fail(dg, CUZK_E_NOMEM, "engine threads");
        goto done;
    }
    CZ_TRY(err, start_thread(&eng->sched_thread, eng_sched_main, eng, "cuzk-sched", dg), done);
    eng->sched_started = true;
    for (unsigned i = 0; i < eng->cfg.synth_workers; i++) {
        snprintf(name, sizeof(name), "cuzk-synth-%u", i % 1000u);
        CZ_TRY(err, start_thread(&eng->workers[i], eng_worker_main, eng, name, dg), done);
        eng->n_workers = i + 1;
    }
    for (unsigned i = 0; i < cpu_provers; i++) {
        snprintf(name, sizeof(name), "cuzk-prove-%u", i % 1000u);
        CZ_TRY(err, start_thread(&eng->provers[i], eng_prover_main, eng, name, dg), done);
        eng->n_provers = i + 1;
    }
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        eng_gpu *g = &eng->gpus[i];
        snprintf(name, sizeof(name), "cuzk-gpu%u", g->ordinal % 10000u);
        CZ_TRY(err, start_thread(&g->thread, eng_gpu_main, g, name, dg), done);
        g->started = true;
    }
    CZ_LOG(CZ_LOG_INFO,
           "engine=started synth_workers=%u prover_threads=%u gpus=%u msm_threads=%u "
           "budget_bytes=%llu max_active_jobs=%u max_batch_size=%u",
           eng->cfg.synth_workers, cpu_provers, eng->n_gpus, eng->cfg.prover_pool_threads,
           (unsigned long long)eng->cfg.mem_budget_bytes, eng->cfg.max_active_jobs,
           eng->cfg.max_batch_size);
done:
    return err; /* on failure eng_free stops whatever started */
}

bool eng_idle(eng_t *eng)
{
    pthread_mutex_lock(&eng->mu);
    size_t n = eng->active.n;
    for (int p = 0; p < ENG_PRIO_COUNT; p++) {
        n += eng->pending[p].n;
    }
    pthread_mutex_unlock(&eng->mu);
    return n == 0;
}

static size_t unfinished_locked(eng_t *eng)
{
    size_t n = eng->active.n;
    for (int p = 0; p < ENG_PRIO_COUNT; p++) {
        n += eng->pending[p].n;
    }
    return n;
}

size_t eng_drain(eng_t *eng, uint64_t timeout_ms)
{
    uint64_t deadline = eng_deadline_ns(timeout_ms);

    pthread_mutex_lock(&eng->mu);
    eng->accepting = false;
    while (unfinished_locked(eng) > 0 && eng_now_ns() < deadline) {
        eng_cond_wait_until(&eng->done_cv, &eng->mu, deadline);
    }
    size_t n = unfinished_locked(eng);
    pthread_mutex_unlock(&eng->mu);
    return n;
}

void eng_free(eng_t *eng)
{
    eng_defer d = {0};

    if (!eng) {
        return;
    }
    pthread_mutex_lock(&eng->mu);
    eng->accepting = false;
    eng->stopping = true;
    for (int p = 0; p < ENG_PRIO_COUNT; p++) {
        while (eng->pending[p].head) {
            eng_job *j = eng->pending[p].head;
            cz_free(j->error);
            j->error = cz_strdup("daemon shutting down");
            job_finish_locked(eng, j, ENG_STATUS_CANCELLED, &d);
        }
    }
    for (eng_job *j = eng->active.head, *next; j; j = next) {
        next = j->next;
        if (!atomic_load(&j->cancel)) {
            atomic_store(&j->cancel, true);
            cz_free(j->error);
            j->error = cz_strdup("daemon shutting down");
        }
        eng_job_maybe_finish_locked(eng, j, &d);
    }
    pthread_cond_broadcast(&eng->sched_cv);
    pthread_cond_broadcast(&eng->work_cv);
    pthread_cond_broadcast(&eng->prove_cv);
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);

    /* Threads finish their current stage (which completes its cancelled job) and exit. */
    for (unsigned i = 0; i < eng->n_workers; i++) {
        pthread_join(eng->workers[i], NULL);
    }
    for (unsigned i = 0; i < eng->n_provers; i++) {
        pthread_join(eng->provers[i], NULL);
    }
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        if (eng->gpus[i].started) {
            pthread_join(eng->gpus[i].thread, NULL);
        }
    }
    if (eng->sched_started) {
        pthread_join(eng->sched_thread, NULL);
    }

    pthread_mutex_lock(&eng->mu);
    /* Jobs left active had no thread to finish them (eng_start failed part-way). */
    while (eng->active.head) {
        eng_job *j = eng->active.head;
        j->running = 0;
        atomic_store(&j->cancel, true);
        eng_job_maybe_finish_locked(eng, j, &d);
    }
    while (eng->preloads) {
        eng_preload *p = eng->preloads;
        eng->preloads = p->next;
        pthread_mutex_unlock(&eng->mu);
        p->cb(p->arg, CUZK_E_CANCELLED, "daemon shutting down", false, 0);
        cz_free(p);
        pthread_mutex_lock(&eng->mu);
    }
    /* Drop the table's references; deliveries in progress hold their own. */
    while (eng->done.head) {
        eng_job *j = eng->done.head;
        eng_jlist_remove(&eng->done, j);
        table_unlink(eng, j);
        eng_job_unref_locked(eng, j, &d);
    }
    eng_spares_drop_all_locked(eng, &d);
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    eng_reaper_stop(&eng->reaper); /* every thread that hands it work has exited */

    eng_gpu_close_all(eng); /* device copies first: they retain host parameters */
    eng_srs_free_all(eng);
    eng_shapes_free(eng);
    cz_pool_free(eng->prove_pool);
    cz_pool_free(eng->load_pool);
    cz_pool_free(eng->synth_pool);
    cz_free(eng->workers);
    cz_free(eng->provers);
    pthread_mutex_destroy(&eng->mu);
    pthread_cond_destroy(&eng->sched_cv);
    pthread_cond_destroy(&eng->work_cv);
    pthread_cond_destroy(&eng->prove_cv);
    pthread_cond_destroy(&eng->done_cv);
    eng_reaper_destroy(&eng->reaper);
    cz_free(eng->param_cache);
    cz_free(eng->shape_cache);
    cz_free(eng);
}

/* ---------------------------------------------------------------------------------------------
 * Submission
 * ------------------------------------------------------------------------------------------- */

/* Copies every buffer of req into one allocation owned by job. */
static cuzk_err copy_request(eng_job *job, const eng_request_t *req, cz_diag *dg)
{
    size_t total = req->vanilla_proof.len + req->randomness.len + req->comm_r_old.len +
                   req->comm_r_new.len + req->comm_d_new.len;
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        total += req->vanilla_proofs[i].len;
    }
    uint8_t *buf = cz_malloc(total ? total : 1);
    eng_bytes_t *vps =
        cz_calloc(req->n_vanilla_proofs ? req->n_vanilla_proofs : 1, sizeof(eng_bytes_t));
    if (!buf || !vps) {
        cz_free(buf);
        cz_free(vps);
        return cz_fail(dg, CUZK_E_NOMEM, "request of %zu bytes", total);
    }
    uint8_t *p = buf;
    job->req = *req;
    job->req.request_id = job->id;
#define COPY_BYTES(dst, src)                                                                       \
    do {                                                                                           \
        if ((src).len) {                                                                           \
            memcpy(p, (src).ptr, (src).len);                                                       \
        }                                                                                          \
        (dst).ptr = (src).len ? p : NULL;                                                          \
        (dst).len = (src).len;                                                                     \
        p += (src).len;                                                                            \
    } while (0)
    COPY_BYTES(job->req.vanilla_proof, req->vanilla_proof);
    COPY_BYTES(job->req.randomness, req->randomness);
    COPY_BYTES(job->req.comm_r_old, req->comm_r_old);
    COPY_BYTES(job->req.comm_r_new, req->comm_r_new);
    COPY_BYTES(job->req.comm_d_new, req->comm_d_new);
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        COPY_BYTES(vps[i], req->vanilla_proofs[i]);
    }
#undef COPY_BYTES
    job->req.vanilla_proofs = vps;
    job->req_buf = buf;
    job->req_vps = vps;
    return CUZK_OK;
}

/* Host bytes a queued request holds: its copy and the vanilla_proofs table. */
static uint64_t request_cost(const eng_request_t *req)
{
    uint64_t n = req->vanilla_proof.len + req->randomness.len + req->comm_r_old.len +
                 req->comm_r_new.len + req->comm_d_new.len;
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        n += req->vanilla_proofs[i].len + sizeof(eng_bytes_t);
    }
    return n;
}

static uint32_t queue_position_locked(eng_t *eng, const eng_job *job)
{
    if (job->state != JOB_QUEUED) {
        return 0;
    }
    size_t pos = 0;
    for (int p = ENG_PRIO_COUNT - 1; p > (int)job->prio; p--) {
        pos += eng->pending[p].n;
    }
    for (const eng_job *j = eng->pending[job->prio].head; j && j != job; j = j->next) {
        pos++;
    }
    return pos > UINT32_MAX ? UINT32_MAX : (uint32_t)pos;
}

cuzk_err eng_submit(eng_t *eng, const eng_request_t *req, eng_submit_info_t *out, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    eng_defer d = {0};
    eng_job *job = NULL;
    bool have_id = req->request_id && req->request_id[0];

    memset(out, 0, sizeof(*out));
    CZ_TRY(err, eng_request_check(req, dg), out);

    job = cz_calloc(1, sizeof(*job));
    if (!job) {
        err = cz_fail(dg, CUZK_E_NOMEM, "job");
        goto out;
    }
    if (have_id) {
        snprintf(job->id, sizeof(job->id), "%s", req->request_id);
    } else {
        uint8_t rnd[8];
        if (cz_rand_bytes(rnd, sizeof(rnd), NULL) != CUZK_OK) {
            memset(rnd, 0, sizeof(rnd));
        }
        char hex[17];
        cz_hex_encode(hex, rnd, sizeof(rnd));
        snprintf(job->id, sizeof(job->id), "job-%s", hex);
    }
    cz_log_quote(job->qid, sizeof(job->qid), job->id);
    eng_request_digest(job->digest, req);
    CZ_TRY(err, copy_request(job, req, dg), out);
    job->kind = req->kind;
    job->prio = req->priority == ENG_PRIO_UNSPECIFIED ? eng_default_prio(req->kind) : req->priority;
    atomic_init(&job->cancel, false);
    job->refs = 1;
    job->batch_size = 1;

    pthread_mutex_lock(&eng->mu);
    if (!eng->accepting) {
        pthread_mutex_unlock(&eng->mu);
        err = cz_fail(dg, CUZK_E_CANCELLED, "the daemon is shutting down");
        goto out;
    }
    eng_job *old = table_find(eng, job->id);
    if (old) {
        bool same = memcmp(old->digest, job->digest, sizeof(job->digest)) == 0;
        if (old->state != JOB_DONE && !same) {
            pthread_mutex_unlock(&eng->mu);
            err = cz_fail(dg, CUZK_E_EXISTS,
                          "request_id %s names a %s job with other content that is still %s; "
                          "await it or use another id",
                          job->qid, eng_kind_name(old->kind),
                          old->state == JOB_QUEUED ? "queued" : "running");
            goto out;
        }
        if (same && (old->state != JOB_DONE || old->status == ENG_STATUS_COMPLETED)) {
            snprintf(out->job_id, sizeof(out->job_id), "%s", old->id);
            out->queue_position = queue_position_locked(eng, old);
            out->existing = true;
            pthread_mutex_unlock(&eng->mu);
            CZ_LOG(CZ_LOG_DEBUG, "job=%s event=resubmitted", old->qid);
            goto out; /* job freed below: the existing one answers */
        }
        /* A failed or cancelled attempt (a retry), or a finished job whose id now comes with
         * other content (a new request): the new job takes the id. */
        if (!same) {
            CZ_LOG(CZ_LOG_INFO, "job=%s event=replaced old_kind=%s old_status=%s", old->qid,
                   eng_kind_name(old->kind), eng_status_name(old->status));
        }
        eng_jlist_remove(&eng->done, old);
        table_unlink(eng, old);
        eng_job_unref_locked(eng, old, &d);
    }
    uint64_t cost = request_cost(req), budget = eng->cfg.mem_budget_bytes;
    if (eng->mem_used + eng->req_bytes + cost > budget) {
        uint64_t used = eng->mem_used, queued = eng->req_bytes;
        pthread_mutex_unlock(&eng->mu);
        err = cz_fail(dg, CUZK_E_NOMEM,
                      "request of %llu bytes refused: the memory budget of %llu bytes holds %llu "
                      "bytes of parameters and partitions and %llu bytes of queued requests; "
                      "retry later",
                      (unsigned long long)cost, (unsigned long long)budget,
                      (unsigned long long)used, (unsigned long long)queued);
        goto out;
    }
    eng->req_bytes += cost;
    job->req_bytes = cost;
    job->seq = eng->next_seq++;
    job->t_submit = eng_now_ns();
    table_insert(eng, job);
    eng->m.submitted[job->kind]++;
    job->state = JOB_QUEUED;
    eng_jlist_push(&eng->pending[job->prio], job);
    eng->pending_by_kind[job->kind]++;
    snprintf(out->job_id, sizeof(out->job_id), "%s", job->id);
    CZ_LOG(CZ_LOG_INFO, "job=%s kind=%s prio=%s event=submitted bytes=%zu vanilla_proofs=%zu",
           job->qid, eng_kind_name(job->kind), eng_prio_name(job->prio), req->vanilla_proof.len,
           req->n_vanilla_proofs);
    if (!eng->kinds[job->kind].present) {
        eng_job_fail_locked(eng, job, "proof kind %s is not available in this build",
                            eng_kind_name(job->kind));
        job_finish_locked(eng, job, ENG_STATUS_FAILED, &d);
    } else {
        job->slot = &eng->kinds[job->kind];
        out->queue_position = queue_position_locked(eng, job);
        if (eng->collecting && job->prio > eng->collecting->prio) {
            eng->collecting->batch_flush = true;
        }
        pthread_cond_broadcast(&eng->sched_cv);
    }
    job = NULL; /* owned by the table */
    pthread_mutex_unlock(&eng->mu);
out:
    if (job) {
        job_free(job);
    }
    eng_defer_run(eng, &d);
    return err;
}

/* ---------------------------------------------------------------------------------------------
 * Waiting, cancelling
 * ------------------------------------------------------------------------------------------- */

void eng_await(eng_t *eng, const char *job_id, uint64_t timeout_ms, eng_await_fn cb, void *arg)
{
    eng_result_t res = {.job_id = job_id, .status = ENG_STATUS_UNKNOWN, .error = ""};

    pthread_mutex_lock(&eng->mu);
    eng_job *job = table_find(eng, job_id);
    if (!job) {
        pthread_mutex_unlock(&eng->mu);
        cb(arg, &res);
        return;
    }
    if (job->state == JOB_DONE) {
        job->refs++;
        pthread_mutex_unlock(&eng->mu);
        job_result(job, &res);
        cb(arg, &res);
        eng_defer d = {0};
        pthread_mutex_lock(&eng->mu);
        eng_job_unref_locked(eng, job, &d);
        pthread_mutex_unlock(&eng->mu);
        eng_defer_run(eng, &d);
        return;
    }
    eng_waiter *w = cz_calloc(1, sizeof(*w));
    if (!w) {
        pthread_mutex_unlock(&eng->mu);
        res.status = ENG_STATUS_FAILED;
        res.error = "out of memory registering a waiter";
        cb(arg, &res);
        return;
    }
    w->cb = cb;
    w->arg = arg;
    w->job = job;
    w->next = job->waiters;
    if (job->waiters) {
        job->waiters->prev = w;
    }
    job->waiters = w;
    if (timeout_ms) {
        w->deadline_ns = eng_deadline_ns(timeout_ms);
        w->tnext = eng->timed;
        if (eng->timed) {
            eng->timed->tprev = w;
        }
        eng->timed = w;
        pthread_cond_broadcast(&eng->sched_cv);
    }
    pthread_mutex_unlock(&eng->mu);
}

typedef struct wait_ctx {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done;
    eng_result_copy_t *out;
} wait_ctx;

/* Fills c with an owned copy of res (a proof that cannot be copied turns the copy FAILED). */
static void result_copy(eng_result_copy_t *c, const eng_result_t *res)
{
    memset(c, 0, sizeof(*c));
    c->r = *res;
    snprintf(c->job_id, sizeof(c->job_id), "%s", res->job_id);
    c->r.job_id = c->job_id;
    if (res->proof_len) {
        c->proof_buf = cz_malloc(res->proof_len);
        if (c->proof_buf) {
            memcpy(c->proof_buf, res->proof, res->proof_len);
        } else {
            c->r.status = ENG_STATUS_FAILED;
            c->r.proof_len = 0;
        }
    }
    c->r.proof = c->proof_buf;
    c->error_buf = cz_strdup(res->error ? res->error : "");
    c->r.error = c->error_buf ? c->error_buf : "";
}

static void wait_cb(void *arg, const eng_result_t *res)
{
    wait_ctx *w = arg;

    result_copy(w->out, res);
    pthread_mutex_lock(&w->mu);
    w->done = true;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
}

void eng_wait(eng_t *eng, const char *job_id, uint64_t timeout_ms, eng_result_copy_t *out)
{
    wait_ctx w = {.out = out};
    pthread_mutex_init(&w.mu, NULL);
    pthread_cond_init(&w.cv, NULL);
    eng_await(eng, job_id, timeout_ms, wait_cb, &w);
    pthread_mutex_lock(&w.mu);
    while (!w.done) {
        pthread_cond_wait(&w.cv, &w.mu);
    }
    pthread_mutex_unlock(&w.mu);
    pthread_mutex_destroy(&w.mu);
    pthread_cond_destroy(&w.cv);
}

void eng_poll(eng_t *eng, const char *job_id, eng_result_copy_t *out)
{
    eng_result_t res = {.job_id = job_id, .status = ENG_STATUS_UNKNOWN, .error = ""};

    pthread_mutex_lock(&eng->mu);
    eng_job *job = table_find(eng, job_id);
    if (!job || job->state != JOB_DONE) {
        if (job) {
            res.kind = job->kind;
            res.status = ENG_STATUS_TIMEOUT;
        }
        pthread_mutex_unlock(&eng->mu);
        result_copy(out, &res);
        return;
    }
    job->refs++; /* as in eng_await: the copy is made without the lock */
    pthread_mutex_unlock(&eng->mu);
    job_result(job, &res);
    result_copy(out, &res);
    eng_defer d = {0};
    pthread_mutex_lock(&eng->mu);
    eng_job_unref_locked(eng, job, &d);
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
}

void eng_result_copy_clear(eng_result_copy_t *c)
{
    cz_free(c->proof_buf);
    cz_free(c->error_buf);
    memset(c, 0, sizeof(*c));
}

bool eng_cancel(eng_t *eng, const char *job_id, bool *was_running)
{
    eng_defer d = {0};
    bool changed = false;

    *was_running = false;
    pthread_mutex_lock(&eng->mu);
    eng_job *job = table_find(eng, job_id);
    if (job && job->state == JOB_QUEUED) {
        job_finish_locked(eng, job, ENG_STATUS_CANCELLED, &d);
        changed = true;
    } else if (job && job->state == JOB_ACTIVE) {
        *was_running = true;
        if (!atomic_load(&job->cancel)) {
            atomic_store(&job->cancel, true);
            changed = true;
        }
        eng_job_maybe_finish_locked(eng, job, &d);
        pthread_cond_broadcast(&eng->work_cv);
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    if (changed) { /* job_id named a job: shorter than ENG_ID_MAX */
        char q[CZ_LOG_QUOTED_MAX(ENG_ID_MAX)];
        CZ_LOG(CZ_LOG_INFO, "job=%s event=cancel was_running=%d",
               cz_log_quote(q, sizeof(q), job_id), *was_running);
    }
    return changed;
}

/* ---------------------------------------------------------------------------------------------
 * Status
 * ------------------------------------------------------------------------------------------- */

const char *eng_job_stage_name(eng_job_stage stage)
{
    static const char *const names[] = {"prepare",   "wait",  "srs_load",
                                        "synthesis", "prove", "cancelling"};
    _Static_assert(ARRAY_LEN(names) == ENG_JOB_STAGE_COUNT, "one name per stage");
    return (unsigned)stage < ARRAY_LEN(names) ? names[stage] : "?";
}

/* The furthest stage one of j's partitions has reached (mu held). */
static eng_job_stage job_stage_locked(const eng_job *j)
{
    eng_job_stage st = ENG_JOB_WAIT;

    if (atomic_load(&j->cancel)) {
        return ENG_JOB_CANCELLING;
    }
    if (!j->prepared) {
        return ENG_JOB_PREPARE;
    }
    if (j->srs && j->srs->loading) {
        return ENG_JOB_SRS_LOAD;
    }
    for (size_t k = 0; j->parts && k < j->plan.num_partitions && st != ENG_JOB_PROVE; k++) {
        if (j->parts[k].state == PART_PROVE) {
            st = ENG_JOB_PROVE;
        } else if (j->parts[k].state == PART_SYNTH) {
            st = ENG_JOB_SYNTHESIS;
        }
    }
    return st;
}

/* Fills out->jobs with the active jobs (mu held). Errors: CUZK_E_NOMEM. */
static cuzk_err status_jobs_locked(eng_t *eng, eng_status_info_t *out, uint64_t now, cz_diag *dg)
{
    if (!eng->active.n) {
        return CUZK_OK;
    }
    out->jobs = cz_calloc(eng->active.n, sizeof(*out->jobs));
    if (!out->jobs) {
        return cz_fail(dg, CUZK_E_NOMEM, "status");
    }
    for (const eng_job *j = eng->active.head; j; j = j->next) {
        eng_job_info_t *e = &out->jobs[out->n_jobs++];
        snprintf(e->job_id, sizeof(e->job_id), "%s", j->id);
        e->kind = j->kind;
        e->stage = job_stage_locked(j);
        e->partitions = j->plan_valid ? j->plan.num_partitions : 0;
        e->partitions_done = j->parts_done;
        e->age_ms = (now - j->t_submit) / 1000000u;
        e->running_ms = (now - j->t_dispatch) / 1000000u;
    }
    return CUZK_OK;
}

cuzk_err eng_get_status(eng_t *eng, eng_status_info_t *out, cz_diag *dg)
{
    memset(out, 0, sizeof(*out));
    pthread_mutex_lock(&eng->mu);
    for (int k = 1; k < ENG_KIND_COUNT; k++) {
        out->queues[k - 1].kind = (eng_kind)k;
        out->queues[k - 1].pending = eng->pending_by_kind[k];
        out->queues[k - 1].in_progress = eng->active_by_kind[k];
        out->completed += eng->m.completed[k];
        out->failed += eng->m.failed[k];
        out->cancelled += eng->m.cancelled[k];
    }
    out->uptime_s = (eng_now_ns() - eng->t_start) / 1000000000u;
    out->mem_used_bytes = eng->mem_used + eng->req_bytes;
    out->mem_budget_bytes = eng->cfg.mem_budget_bytes;
    size_t n = 0;
    for (eng_srs *s = eng->srs; s; s = s->next) {
        n += s->tier != ENG_TIER_COLD;
    }
    if (n) {
        out->srs = cz_calloc(n, sizeof(*out->srs));
        if (!out->srs) {
            pthread_mutex_unlock(&eng->mu);
            return cz_fail(dg, CUZK_E_NOMEM, "status");
        }
        for (eng_srs *s = eng->srs; s; s = s->next) {
            if (s->tier == ENG_TIER_COLD) {
                continue;
            }
            eng_srs_info_t *e = &out->srs[out->n_srs++];
            snprintf(e->circuit_id, sizeof(e->circuit_id), "%s", s->id);
            e->tier = s->tier;
            e->size_bytes = s->file_bytes;
            e->ref_count = s->refs;
        }
    }
    if (eng->n_gpus) {
        out->gpus = cz_calloc(eng->n_gpus, sizeof(*out->gpus));
        if (!out->gpus) {
            pthread_mutex_unlock(&eng->mu);
            eng_status_clear(out);
            return cz_fail(dg, CUZK_E_NOMEM, "status");
        }
        for (unsigned i = 0; i < eng->n_gpus; i++) {
            const eng_gpu *g = &eng->gpus[i];
            eng_gpu_info_t *e = &out->gpus[out->n_gpus++];
            e->ordinal = g->ordinal;
            snprintf(e->name, sizeof(e->name), "%s", g->name);
            e->total_bytes = g->total_bytes;
            e->free_bytes = g->free_bytes;
            e->resident_bytes = g->res_bytes;
            e->n_resident = g->n_res;
            snprintf(e->current_job_id, sizeof(e->current_job_id), "%s", g->cur_job);
            e->current_kind = g->cur_kind;
            e->proofs = g->proofs;
            e->cpu_fallbacks = g->cpu_fallbacks;
            e->usable = g->usable;
            e->n_streamed = g->n_streamed;
            e->h2d_bytes = gpu_dev_h2d_bytes(g->dev);
            e->mem_cap_bytes = eng->cfg.gpu_device_memory_bytes;
        }
    }
    cuzk_err err = status_jobs_locked(eng, out, eng_now_ns(), dg);
    pthread_mutex_unlock(&eng->mu);
    if (err != CUZK_OK) {
        eng_status_clear(out);
    }
    return err;
}

void eng_status_clear(eng_status_info_t *st)
{
    cz_free(st->jobs);
    cz_free(st->gpus);
    cz_free(st->srs);
    memset(st, 0, sizeof(*st));
}

/* Drops finished jobs beyond the retention limits (called by the dispatcher). Returns the
 * time of the next expiry (0 = none). */
uint64_t eng_retention_locked(eng_t *eng, uint64_t now, eng_defer *d)
{
    uint64_t keep_ns = eng->cfg.retention_ms * 1000000u;
    while (eng->done.head) {
        eng_job *j = eng->done.head;
        bool too_many = eng->done.n > eng->cfg.max_retained;
        if (!too_many && now - j->t_done < keep_ns) {
            return j->t_done + keep_ns;
        }
        eng_jlist_remove(&eng->done, j);
        table_unlink(eng, j);
        eng_job_unref_locked(eng, j, d);
    }
    return 0;
}
