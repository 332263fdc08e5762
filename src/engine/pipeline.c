/* pipeline.c - the stages of a job: prepare (parse), synthesize partition k, prove + verify
 * partition k; assembly happens as proofs land in job->proof at offset 192 k.
 *
 * DESIGN
 *  threads:  synth_workers "cuzk-synth-<i>" (eng_worker_main) run PreloadSRS requests first,
 *            then the best stage among active jobs: PREPARE (handler parse, parameter file
 *            lookup) or SYNTHESIZE(k) (loading the parameters first when they are not hot).
 *            Provers prove READY partitions, then verify them: one "cuzk-gpu<ordinal>" per
 *            device in use (gpu.c; eng_prover_run with the device, which falls back to the CPU
 *            per partition), or, without devices, prover_threads "cuzk-prove-<i>"
 *            (eng_prover_main) on the CPU; CPU proofs use the MSM pool (cz_pool "cuzk-msm").
 *  order:    "best" = highest priority, then earliest dispatched unit, then earliest
 *            submitted job, then lowest partition: a CRITICAL job's partitions overtake the
 *            remaining partitions of NORMAL jobs already running.
 *  admission: SYNTHESIZE(k) starts only when the memory budget can reserve the partition's
 *            estimate (plus the parameters when they must be loaded); otherwise the worker
 *            waits on work_cv (memory released, load finished) without letting lower-priority
 *            stages overtake (no starvation of big partitions). Jobs whose parameters are
 *            being loaded by another worker are skipped, not waited for.
 *  queues:   none of their own: partition states in job->parts are the queues (WAIT -> SYNTH
 *            -> READY -> PROVE -> DONE); eng->preloads holds preload requests.
 *  wakeups:  dispatch and released memory wake workers (work_cv); a READY partition wakes the
 *            provers (prove_cv).
 *  lock:     eng->mu while choosing and recording; stages run unlocked. A stage never frees
 *            the structures another stage reads: job->plan and job->parts live until the job
 *            finishes, which waits for job->running == 0; parameters with refs are never
 *            demoted.
 *  cancel:   a stage that returns into a cancelled (or failed) job releases its partition and
 *            calls eng_job_maybe_finish_locked; no further stage of the job starts.
 *  verify:   every partition proof is checked with the pairing verifier against public inputs
 *            the handler computes from the request; an invalid proof is re-proved once with
 *            fresh randomness (on the CPU when the invalid one came from a device), then the
 *            job fails (never returns a bad proof).
 *  devices:  a device thread proves on its device with the circuit's resident parameters
 *            (eng_gpu_resident); when they cannot be made resident, or the device fails
 *            (CUZK_E_GPU, CUZK_E_NOMEM, CUZK_E_NO_GPU), the same partition is proved on the CPU
 *            with the same r and s, so the job still completes. Between two proofs the thread
 *            frees copies whose parameters were demoted (eng_gpu_housekeep_locked).
 *  timing:   with cfg.timing every stage, the prover's included, is logged (timing.h).
 */
#include "engine/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/log.h"
#include "engine/timing.h"
#include "poly/poly.h"

#define ENG_MAX_PARTITIONS 4096

static bool better(const eng_job *a, const eng_job *b)
{
    if (a->prio != b->prio) {
        return a->prio > b->prio;
    }
    if (a->useq != b->useq) {
        return a->useq < b->useq;
    }
    return a->seq < b->seq;
}

static double ms_between(uint64_t t0, uint64_t t1)
{
    return (double)(t1 - t0) / 1e6;
}

/* Host bytes of a partition that a device proves from the circuit's shape (a, b, c computed
 * there): its witness, [inputs | aux] and the densities' bits, a quarter more for the classes of
 * its scalars in a shared pass (gpu.h gpu_fr_classes) and the synthesis's transients, and a
 * margin; with a device copy that has no room for the shape, a, b, c made from it on the host
 * too (at the domain size, an eighth more); the plan's estimate (the CPU prover's working set)
 * when the counts are unknown, the shape not yet recorded (partitions synthesized meanwhile make
 * a, b, c with the prover backend) or the device path is not open to it. A CPU fallback takes
 * the rest back (regrow_locked). */
uint64_t eng_part_witness_bytes(const eng_plan_t *plan)
{
    const cs_counts_t *c = &plan->shape;
    const uint64_t v = ((uint64_t)c->num_aux + c->num_inputs) * sizeof(fr_t);

    return v + v / 4 + ((uint64_t)c->num_aux + c->num_inputs) / 2 + 64 * MIB;
}

static uint64_t part_bytes_locked(eng_t *eng, const eng_plan_t *plan, const eng_srs *srs)
{
    const cs_counts_t *c = &plan->shape;
    const uint64_t full = plan->partition_mem_bytes;
    const uint64_t dev = eng_part_witness_bytes(plan);

    if (c->num_aux == 0 || eng->cfg.synth_mode == ENG_SYNTH_PROVER ||
        !eng_shape_ready_locked(eng, plan->circuit_id) || !eng_gpu_any_usable_locked(eng)) {
        return full;
    }
    if (eng_gpu_host_products_locked(eng, srs)) {
        /* the shape's products on the host, uploaded: a, b, c at the domain size besides */
        unsigned lg = 32;
        (void)ntt_lg_for(&lg, c->num_constraints + c->num_inputs); /* 32: too large, full */
        const uint64_t n = (uint64_t)1 << lg;
        const uint64_t abc = dev + 3 * n * sizeof(fr_t) + 3 * n * sizeof(fr_t) / 8;
        return abc < full ? abc : full;
    }
    return dev < full ? dev : full;
}

/* Partition part of job grows its reservation to `full` before a, b, c are made on the host: at
 * once, past the budget if need be (a proof in progress is not stopped; later reservations
 * wait for it), logged. regrow_locked: the plan's whole estimate (a CPU fallback, or a
 * partition synthesized with the prover backend). */
static void grow_locked(eng_t *eng, const eng_job *job, eng_part *part, uint64_t full)
{
    if (part->reserved == 0 || part->reserved >= full) {
        return;
    }
    uint64_t more = full - part->reserved;
    eng_mem_force_locked(eng, more, job->qid);
    eng->mem_parts += more;
    part->reserved = full;
}

/* Partition part gives back what its reservation holds beyond `want`. */
static void trim_locked(eng_t *eng, eng_part *part, uint64_t want)
{
    if (part->reserved <= want) {
        return;
    }
    eng_mem_release_locked(eng, part->reserved - want);
    eng->mem_parts -= part->reserved - want;
    part->reserved = want;
}

static void regrow_locked(eng_t *eng, const eng_job *job, eng_part *part)
{
    grow_locked(eng, job, part, job->plan.partition_mem_bytes);
}

/* ---------------------------------------------------------------------------------------------
 * Prepare
 * ------------------------------------------------------------------------------------------- */

static void run_prepare(eng_t *eng, eng_job *job, eng_defer *d)
{
    const eng_kind_slot *slot = job->slot;
    eng_plan_t plan;
    cz_diag dg;
    char name[512], path[1024], msg[2048];
    struct stat st;
    bool parsed = false;

    job->preparing = true;
    job->running++;
    pthread_mutex_unlock(&eng->mu);

    memset(&st, 0, sizeof(st));
    memset(&plan, 0, sizeof(plan));
    plan.job_id = job->id;
    plan.cancelled = &job->cancel;
    plan.pool = eng->synth_pool;
    cz_diag_init(&dg);
    msg[0] = '\0';
    uint64_t t0 = eng_now_ns();
    cuzk_err err = slot->ops.parse(slot->ctx, &job->req, &plan, &dg);
    parsed = err == CUZK_OK;
    if (parsed && (plan.num_partitions < 1 || plan.num_partitions > ENG_MAX_PARTITIONS ||
                   !memchr(plan.circuit_id, 0, sizeof(plan.circuit_id)) || !plan.circuit_id[0])) {
        err = CUZK_E_INVAL;
        snprintf(msg, sizeof(msg), "handler of %s returned a bad plan (partitions %zu)",
                 eng_kind_name(job->kind), plan.num_partitions);
    } else if (parsed && slot->ops.verify_vanilla) {
        err = slot->ops.verify_vanilla(slot->ctx, &plan, 0, plan.num_partitions, &dg);
    }
    if (err != CUZK_OK) {
        if (!msg[0]) {
            snprintf(msg, sizeof(msg), "invalid %s request: %s", eng_kind_name(job->kind),
                     dg.msg[0] ? dg.msg : cuzk_strerror(err));
        }
    } else if (!slot->ops.srs_file(slot->ctx, plan.circuit_id, name, sizeof(name))) {
        err = CUZK_E_INVAL;
        snprintf(msg, sizeof(msg), "no parameter file is known for circuit %s", plan.circuit_id);
    } else {
        snprintf(path, sizeof(path), "%s/%s", eng->param_cache, name);
        errno = 0;
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            err = CUZK_E_IO;
            snprintf(msg, sizeof(msg), "parameters of circuit %s not found: %s: %s",
                     plan.circuit_id, path, errno ? strerror(errno) : "not a regular file");
        }
    }
    uint64_t t1 = eng_now_ns();
    if (eng->cfg.timing) {
        eng_timing_stage(eng, job, ENG_TIMING_JOB, "queue", "queue", job->t_submit,
                         job->t_dispatch);
        eng_timing_stage(eng, job, ENG_TIMING_JOB, "parse", NULL, t0, t1);
    }

    pthread_mutex_lock(&eng->mu);
    job->running--;
    job->preparing = false;
    job->ns[ENG_STAGE_SYNTHESIS] += t1 - t0;
    eng_srs *srs = NULL;
    if (err == CUZK_OK && !atomic_load(&job->cancel)) {
        srs = eng_srs_get_locked(eng, plan.circuit_id, path, &st, d);
        const uint64_t part = srs ? part_bytes_locked(eng, &plan, srs) : 0;
        if (!srs) {
            err = CUZK_E_NOMEM;
            snprintf(msg, sizeof(msg), "out of memory");
        } else if (srs->file_bytes + part > eng->cfg.mem_budget_bytes) {
            err = CUZK_E_NOMEM;
            snprintf(msg, sizeof(msg),
                     "circuit %s needs %llu bytes of memory (parameters %llu + one partition "
                     "%llu), more than the memory budget of %llu bytes",
                     plan.circuit_id, (unsigned long long)(srs->file_bytes + part),
                     (unsigned long long)srs->file_bytes, (unsigned long long)part,
                     (unsigned long long)eng->cfg.mem_budget_bytes);
        }
    }
    if (err == CUZK_OK && !atomic_load(&job->cancel)) {
        job->parts = cz_calloc(plan.num_partitions, sizeof(eng_part));
        job->proof = cz_calloc(plan.num_partitions, G16_PROOF_NBYTES);
        if (!job->parts || !job->proof) {
            err = CUZK_E_NOMEM;
            snprintf(msg, sizeof(msg), "out of memory");
            cz_free(job->parts);
            cz_free(job->proof);
            job->parts = NULL;
            job->proof = NULL;
        }
    }
    if (err != CUZK_OK || atomic_load(&job->cancel)) {
        if (err != CUZK_OK) {
            eng_job_fail_locked(eng, job, "%s", msg);
        }
        if (parsed) {
            job->refs++; /* plan.job_id points into the job */
            eng_defer_item it = {.kind = DEFER_PLAN_FREE, .job = job, .plan = plan, .slot = slot};
            eng_defer_add(d, &it);
        }
    } else {
        job->plan = plan;
        job->plan_valid = true;
        job->prepared = true;
        job->srs = srs;
        job->proof_len = plan.num_partitions * G16_PROOF_NBYTES;
        /* The raw request is no longer needed; keep the scalar fields (batch key). */
        eng_job_drop_request_locked(eng, job, d);
        memset(&job->req.vanilla_proof, 0, sizeof(job->req.vanilla_proof));
        memset(&job->req.randomness, 0, sizeof(job->req.randomness));
        memset(&job->req.comm_r_old, 0, sizeof(job->req.comm_r_old));
        memset(&job->req.comm_r_new, 0, sizeof(job->req.comm_r_new));
        memset(&job->req.comm_d_new, 0, sizeof(job->req.comm_d_new));
        job->req.n_vanilla_proofs = 0;
        CZ_LOG(CZ_LOG_INFO,
               "job=%s stage=parse circuit=%s partitions=%zu partition_bytes=%llu ms=%.1f",
               job->qid, plan.circuit_id, plan.num_partitions,
               (unsigned long long)plan.partition_mem_bytes, ms_between(t0, t1));
        pthread_cond_broadcast(&eng->work_cv);
    }
    eng_job_maybe_finish_locked(eng, job, d);
}

/* ---------------------------------------------------------------------------------------------
 * Synthesize
 * ------------------------------------------------------------------------------------------- */

/* Returns false when the worker must wait (memory) before trying again; *wake_ns is then the
 * time to look again (0 = when woken). */
/* Partition k's assignment (inputs, aux, a, b, c, densities), the same whichever path: the
 * pre-compiled evaluator (witness backend + the recorded shape's products; *shape_out the
 * shape) when the circuit's shape is available (eng_shape_get), else the prover backend. When
 * a device may prove the partition, the products are left to it (cs_shape_assign: a, b, c
 * never exist on the host unless the device cannot take them). Runs without the lock; logs
 * the timing stages "synthesis", "finish" and, with a shape, "products" (a, b, c on the host, or
 * only the densities when a device will compute them). */
static cuzk_err synthesize_partition(eng_t *eng, eng_job *job, size_t k, uint64_t t_start,
                                     uint64_t *t_end, cs_assignment_t *asg, eng_shape **shape_out,
                                     cz_diag *dg)
{
    const eng_kind_slot *slot = job->slot;
    const cs_counts_t *hint =
        (job->plan.shape.num_constraints || job->plan.shape.num_aux) ? &job->plan.shape : NULL;
    uint64_t t_shape = 0;
    eng_shape *entry = eng_shape_get(eng, job, k, &t_shape);
    const cs_shape_t *shape = entry ? &entry->shape : NULL;
    cs_t *cs = NULL;
    cuzk_err err;

    cs_assignment_t spare = {0}; /* a proved partition's buffers, when kept for these counts */

    *shape_out = entry;
    pthread_mutex_lock(&eng->mu);
    bool on_device =
        shape && eng_gpu_any_usable_locked(eng) && !eng_gpu_host_products_locked(eng, job->srs);
    bool reuse = false;
    if (shape) {
        cs_counts_t counts = {shape->num_inputs, shape->num_aux, shape->num_constraints};
        reuse = eng_spare_take_locked(eng, &counts, &spare);
    }
    pthread_mutex_unlock(&eng->mu);
    /* the "synthesis" stage starts where the caller's clock did, or after a shape stage */
    uint64_t t0 = t_shape ? t_shape : t_start;
    err = shape ? cs_new_witness_reuse(&cs, hint, &spare, dg) : cs_new_prover(&cs, hint, dg);
    if (err == CUZK_OK) {
        cs_set_cancel(cs, &job->cancel);
        err = slot->ops.synthesize(slot->ctx, &job->plan, k, cs, dg);
    }
    uint64_t ts = eng_now_ns();
    if (err == CUZK_OK) {
        err = cs_finish(cs, dg);
    }
    if (err == CUZK_OK) {
        err = cs_take_assignment(cs, asg, dg);
    }
    cs_free(cs);
    uint64_t tf = eng_now_ns();
    if (err == CUZK_OK && shape) {
        err = on_device ? cs_shape_assign(shape, asg, dg)
                        : cs_shape_eval_reuse(shape, asg, &spare, eng->synth_pool, dg);
    }
    if (reuse) {
        eng_reaper_free_asg(&eng->reaper, &spare); /* what was not reused (densities) */
    }
    uint64_t t1 = eng_now_ns();
    *t_end = t1; /* before the log lines below: the stages cover [t_start, t1] */
    if (eng->cfg.timing) {
        eng_timing_stage(eng, job, k, "synthesis", NULL, t0, ts);
        eng_timing_stage(eng, job, k, "finish", NULL, ts, shape ? tf : t1);
        if (shape) {
            eng_timing_stage(eng, job, k, "products", NULL, tf, t1);
        }
    }
    return err;
}

/* The classes of partition k's streamed scalars (asg: its witness) when a device will prove it
 * in a group: built here on the synthesis worker (a timing stage "classes"), so that the
 * device's front only uploads them; NULL otherwise or when the build fails (the front builds
 * them then). */
static g16_classes *part_classes(eng_t *eng, eng_job *job, size_t k, const cs_assignment_t *asg)
{
    g16_classes *c = NULL;

    pthread_mutex_lock(&eng->mu);
    bool want = eng_gpu_groups_locked(eng, job->srs);
    pthread_mutex_unlock(&eng->mu);
    if (!want) {
        return NULL;
    }
    uint64_t t0 = eng_now_ns();
    if (g16_classes_new(&c, asg, eng->synth_pool, NULL) != CUZK_OK) {
        return NULL;
    }
    if (eng->cfg.timing) {
        eng_timing_stage(eng, job, k, "classes", NULL, t0, eng_now_ns());
    }
    return c;
}

static bool run_synth(eng_t *eng, eng_job *job, eng_defer *d, uint64_t *wake_ns)
{
    eng_srs *srs = job->srs;
    uint64_t part_bytes = part_bytes_locked(eng, &job->plan, srs);
    bool load = srs->tier != ENG_TIER_HOT;
    uint64_t need = part_bytes + (load ? srs->file_bytes : 0);

    /* a streamed copy's page-locked memory before the partitions it will prove: made when the
     * first of them is proved, it would otherwise be forced in past what they hold */
    eng_reserve r = load ? RESERVE_OK : eng_gpu_copy_reserve_locked(eng, srs, wake_ns, d);
    if (r == RESERVE_WAIT && (eng->mem_parts || eng->loads_running || *wake_ns)) {
        return false; /* else nothing in flight gives memory back: the copy forces it in */
    }
    r = eng_mem_reserve_locked(eng, need, srs, wake_ns, d);
    if (r == RESERVE_NEVER) {
        eng_job_fail_locked(eng, job,
                            "partition needs %llu bytes of memory, more than the budget of "
                            "%llu bytes",
                            (unsigned long long)need,
                            (unsigned long long)eng->cfg.mem_budget_bytes);
        eng_job_maybe_finish_locked(eng, job, d);
        return true;
    }
    if (r == RESERVE_WAIT && eng->mem_parts == 0 && eng->loads_running == 0 && *wake_ns == 0) {
        /* no partition or load in flight will give memory back: what holds it (hot parameters
         * in use, a streamed copy's page-locked memory) stays, so waiting would be for ever */
        eng_mem_force_locked(eng, need, job->qid);
        r = RESERVE_OK;
    }
    if (r == RESERVE_WAIT) {
        return false;
    }

    size_t k = job->next_synth;
    if (job->resynth) { /* a partition proved unsatisfiable with a stale shape */
        for (k = 0; job->parts[k].state != PART_WAIT; k++) {
            CZ_CHECK(k + 1 < job->next_synth); /* resynth counts parts put back to PART_WAIT */
        }
        job->resynth--;
    } else {
        job->next_synth++;
    }
    eng_part *part = &job->parts[k];
    part->state = PART_SYNTH;
    part->reserved = part_bytes;
    eng->mem_parts += part_bytes;
    part->holds_srs = true;
    srs->refs++;
    srs->last_used_ns = eng_now_ns();
    if (load) {
        srs->loading = true;
        eng->loads_running++;
    }
    job->running++;
    char path[1024];
    snprintf(path, sizeof(path), "%s", srs->path);
    void *map = srs->map;
    size_t map_len = srs->map_len;
    eng_file_id map_id = srs->map_id;
    bool skip = eng_srs_skip_points_locked(eng);
    pthread_mutex_unlock(&eng->mu);

    cz_diag dg;
    cz_diag_init(&dg);
    cuzk_err err = CUZK_OK;
    if (load) {
        eng_srs_loaded ld = {0};
        uint64_t t0 = eng_now_ns();
        err = eng_srs_load(eng, path, map, map_len, &map_id, skip, &ld, &dg);
        uint64_t t1 = eng_now_ns();
        if (eng->cfg.timing) {
            eng_timing_stage(eng, job, k, "srs_load", NULL, t0, t1);
        }
        pthread_mutex_lock(&eng->mu);
        eng_srs_load_finish_locked(eng, srs, err, &ld, d);
        job->ns[ENG_STAGE_SRS_LOAD] += t1 - t0;
        if (err != CUZK_OK) {
            char buf[600];
            job->running--;
            eng_job_fail_locked(eng, job, "loading parameters of %s: %s", srs->id,
                                cz_diag_str(&dg, buf, sizeof(buf)));
            eng_part_release_locked(eng, job, k, d);
            eng_job_maybe_finish_locked(eng, job, d);
            return true;
        }
        CZ_LOG(CZ_LOG_INFO, "job=%s stage=srs_load circuit=%s bytes=%llu ms=%.1f", job->qid,
               srs->id, (unsigned long long)srs->file_bytes, ms_between(t0, t1));
        pthread_mutex_unlock(&eng->mu);
    }

    cs_assignment_t asg;
    memset(&asg, 0, sizeof(asg));
    uint64_t t0 = eng_now_ns();
    eng_shape *shape = NULL;
    uint64_t t1 = 0;
    err = synthesize_partition(eng, job, k, t0, &t1, &asg, &shape, &dg);
    bool pce = shape != NULL;
    g16_classes *classes = err == CUZK_OK && pce && !asg.a ? part_classes(eng, job, k, &asg) : NULL;

    pthread_mutex_lock(&eng->mu);
    job->running--;
    job->ns[ENG_STAGE_SYNTHESIS] += t1 - t0;
    if (err == CUZK_OK) {
        if (pce) {
            eng->m.pce_partitions++;
        } else {
            eng->m.prover_partitions++;
        }
    }
    part->asg = asg;
    part->classes = classes;
    part->shape = shape ? &shape->shape : NULL;
    part->shape_ref = shape;
    eng_part_hold_asg_locked(eng, part);
    if (asg.a) { /* a, b, c on the host after all (no shape): the whole estimate */
        regrow_locked(eng, job, part);
    } else if (pce && err == CUZK_OK && job->plan.shape.num_aux) {
        /* a witness: the estimate it was admitted with (before the shape) trimmed */
        trim_locked(eng, part, eng_part_witness_bytes(&job->plan));
    }
    if (err != CUZK_OK) {
        if (!(err == CUZK_E_CANCELLED && atomic_load(&job->cancel))) {
            char buf[600];
            eng_job_fail_locked(eng, job, "partition %zu synthesis: %s", k,
                                cz_diag_str(&dg, buf, sizeof(buf)));
        }
        eng_part_release_locked(eng, job, k, d);
    } else if (atomic_load(&job->cancel)) {
        eng_part_release_locked(eng, job, k, d);
    } else {
        part->state = PART_READY;
        CZ_LOG(CZ_LOG_INFO,
               "job=%s stage=synthesis k=%zu constraints=%zu aux=%zu bytes=%llu ms=%.1f", job->qid,
               k, asg.m, asg.num_aux, (unsigned long long)part->asg_bytes, ms_between(t0, t1));
        pthread_cond_broadcast(&eng->prove_cv);
        eng_gpu_stage_locked(eng, job, k); /* its upload beside a device's running proof */
    }
    eng_job_maybe_finish_locked(eng, job, d);
    return true;
}

static eng_job *pick_work_locked(eng_t *eng, bool *prep)
{
    eng_job *best = NULL;
    bool best_prep = false;
    for (eng_job *j = eng->active.head; j; j = j->next) {
        if (atomic_load(&j->cancel)) {
            continue;
        }
        bool p = !j->prepared && !j->preparing;
        bool s = j->prepared && (j->next_synth < j->plan.num_partitions || j->resynth) &&
                 !j->srs->loading;
        if ((p || s) && (!best || better(j, best))) {
            best = j;
            best_prep = p;
        }
    }
    *prep = best_prep;
    return best;
}

void *eng_worker_main(void *arg)
{
    eng_t *eng = arg;
    eng_defer d = {0};

    pthread_mutex_lock(&eng->mu);
    while (!eng->stopping) {
        if (eng->preloads) {
            eng_preload *p = eng->preloads;
            eng->preloads = p->next;
            pthread_mutex_unlock(&eng->mu);
            eng_preload_run(eng, p);
            pthread_mutex_lock(&eng->mu);
            continue;
        }
        bool prep;
        eng_job *job = pick_work_locked(eng, &prep);
        if (!job) {
            pthread_cond_wait(&eng->work_cv, &eng->mu);
            continue;
        }
        if (prep) {
            run_prepare(eng, job, &d);
        } else {
            uint64_t wake = 0;
            if (!run_synth(eng, job, &d, &wake)) {
                eng_defer_flush_locked(eng, &d);
                if (!eng->stopping) {
                    eng_cond_wait_until(&eng->work_cv, &eng->mu, wake);
                }
                continue;
            }
        }
        eng_defer_flush_locked(eng, &d);
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Prove and verify
 * ------------------------------------------------------------------------------------------- */

/* A READY partition for prover g (NULL: a CPU prover): the one staged on g's device first,
 * else the best job's first; never one being staged or staged on another device. */
static eng_job *pick_ready_locked(eng_t *eng, eng_gpu *g, size_t *k_out)
{
    eng_job *best = NULL;
    size_t best_k = 0;
    for (eng_job *j = eng->active.head; g && g->spare_busy && j; j = j->next) {
        for (size_t k = 0; k < j->next_synth; k++) {
            const eng_part *p = &j->parts[k];
            if (p->staged_on == g && p->state == PART_READY && !atomic_load(&j->cancel)) {
                *k_out = k;
                return j;
            }
        }
    }
    for (eng_job *j = eng->active.head; j; j = j->next) {
        if (atomic_load(&j->cancel) || !j->prepared || (best && !better(j, best))) {
            continue;
        }
        for (size_t k = 0; k < j->next_synth; k++) {
            const eng_part *p = &j->parts[k];
            if (p->state == PART_READY && !p->staging && (!p->staged_on || p->staged_on == g)) {
                best = j;
                best_k = k;
                break;
            }
        }
    }
    *k_out = best_k;
    return best;
}

typedef struct prove_out {
    cuzk_err err;
    cz_diag dg;
    g16_proof_t proof;
    uint64_t prove_ns, verify_ns;
    uint64_t h2d_bytes; /* host-to-device bytes of the device proofs (g16_prove_stats_t) */
    uint64_t upload_ns; /* making parameters resident on the device (counted as srs_load) */
    unsigned retries;
    bool bad_proof;
    unsigned gpu_proofs, cpu_proofs; /* proofs computed (retries included) per backend */
    bool cpu_fallback;               /* a device thread proved on the CPU (once or more) */
    bool misfit;                     /* failed because the parameters do not fit the circuit */
    bool last_on_gpu;                /* the proof returned came from the device */
    bool resynth;                    /* released after its front in a group that failed */
} prove_out;

/* a, b, c of partition k on the host, from its shape, when synthesis left them to a device
 * that cannot take them now; the reservation grown first to what a device proof from them
 * holds or, for the CPU prover (cpu), to the plan's whole estimate. */
static cuzk_err host_products(eng_t *eng, const eng_job *job, eng_part *part, bool cpu, cz_diag *dg)
{
    pthread_mutex_lock(&eng->mu);
    grow_locked(eng, job, part,
                cpu ? job->plan.partition_mem_bytes : part_bytes_locked(eng, &job->plan, job->srs));
    pthread_mutex_unlock(&eng->mu);
    if (part->asg.a) {
        return CUZK_OK;
    }
    CZ_CHECK(part->shape != NULL);
    return cs_shape_products(part->shape, &part->asg, eng->prove_pool, dg);
}

/* One proof of partition k with fresh r and s: on g's device when g is not NULL and use_gpu
 * (the parameters made resident first), else, or when the device cannot, on the CPU.
 * *on_gpu: the proof came from the device. Runs without the lock. */
static cuzk_err prove_once(eng_t *eng, eng_gpu *g, bool use_gpu, eng_job *job, size_t k,
                           eng_srs *srs, const g16_params_t *params, prove_out *o, bool *on_gpu)
{
    eng_timing_prover_ctx tc = {.eng = eng, .job = job, .k = k};
    eng_part *part = &job->parts[k];
    const cs_assignment_t *asg = &part->asg;
    g16_prove_opts_t opts;
    fr_t r, s;
    cuzk_err err = CUZK_OK;

    *on_gpu = false;
    memset(&opts, 0, sizeof(opts));
    opts.cancel = &job->cancel;
    if (eng->cfg.timing) {
        opts.on_stage = eng_timing_prover_stage;
        opts.on_stage_ctx = &tc;
    }
    CZ_TRY(err, g16_fr_random(&r, &o->dg), done);
    CZ_TRY(err, g16_fr_random(&s, &o->dg), done);
    if (g && use_gpu) {
        uint64_t up = 0;
        uint64_t extra = 0;
        if (!asg->a) { /* the shape's device bytes, counted once (not per partition) */
            pthread_mutex_lock(&eng->mu);
            extra = eng_shape_device_bytes_locked(eng, job->plan.circuit_id);
            pthread_mutex_unlock(&eng->mu);
        }
        opts.gpu = eng_gpu_resident(eng, g, job, k, srs, params, extra, &up);
        o->upload_ns += up;
        if (opts.gpu && !asg->a) {
            uint64_t t0 = eng_now_ns();
            opts.gpu_shape = eng_gpu_shape(eng, g, opts.gpu, part->shape, job, k);
            o->upload_ns += eng_now_ns() - t0;
            if (!opts.gpu_shape) {
                CZ_TRY(err, host_products(eng, job, part, false, &o->dg), done);
            }
        }
        if (opts.gpu) {
            cz_diag gdg;
            cz_diag_init(&gdg);
            g16_prove_stats_t st;
            memset(&st, 0, sizeof(st));
            opts.gpu_staged = eng_gpu_stage_take(eng, g, opts.gpu, job, k);
            err = g16_prove_ex(params, &o->proof, asg, &r, &s, &opts, &st, eng->prove_pool, &gdg);
            o->h2d_bytes += st.h2d_bytes;
            if (err == CUZK_OK) {
                *on_gpu = true;
                o->gpu_proofs++;
                goto done;
            }
            if (err != CUZK_E_GPU && err != CUZK_E_NOMEM && err != CUZK_E_NO_GPU) {
                o->dg = gdg; /* the CPU would fail the same way (e.g. CUZK_E_UNSAT) */
                goto done;
            }
            eng_gpu_proof_failed(eng, g, job, k, srs, err, &gdg);
            opts.gpu = NULL;
            opts.gpu_shape = NULL;
        }
    }
    CZ_TRY(err, host_products(eng, job, part, true, &o->dg), done);
    o->cpu_fallback = g != NULL; /* a device thread proving on the CPU */
    CZ_TRY(err, eng_srs_points_acquire(eng, srs, params, NULL, NULL, NULL, &o->dg),
           done); /* the CPU reads them */
    err = g16_prove_ex(params, &o->proof, asg, &r, &s, &opts, NULL, eng->prove_pool, &o->dg);
    eng_srs_points_release(eng, srs);
    if (err == CUZK_OK) {
        o->cpu_proofs++;
    }
done:
    cz_memzero(&r, sizeof(r));
    cz_memzero(&s, sizeof(s));
    return err;
}

/* Verifies proof against partition k's public inputs; *valid says whether it holds. */
static cuzk_err part_verify(eng_t *eng, eng_job *job, size_t k, const g16_pvk_t *pvk,
                            const g16_proof_t *proof, bool *valid, cz_diag *dg)
{
    const cs_assignment_t *asg = &job->parts[k].asg;
    const eng_kind_slot *slot = job->slot;
    const size_t n = pvk->ic_len - 1;
    fr_t *x = cz_calloc(n ? n : 1, sizeof(fr_t));
    cuzk_err err = CUZK_OK;

    *valid = false;
    if (!x) {
        return cz_fail(dg, CUZK_E_NOMEM, "public inputs");
    }
    if (slot->ops.public_inputs) {
        CZ_TRY(err, slot->ops.public_inputs(slot->ctx, &job->plan, k, x, n, dg), done);
    } else if (asg->num_inputs != pvk->ic_len) {
        err = cz_fail(dg, CUZK_E_INVAL, "the circuit has %zu public inputs, the parameters %zu",
                      asg->num_inputs, pvk->ic_len);
        goto done;
    } else if (n) {
        memcpy(x, asg->inputs + 1, n * sizeof(fr_t));
    }
    err = g16_verify_ex(pvk, valid, proof, x, n, eng->prove_pool, dg);
done:
    cz_free(x);
    return err;
}

/* Proves partition k (on g's device when g is not NULL) and verifies the proof; runs without
 * the lock. A proof that does not verify is proved again once, on the CPU when the bad one came
 * from the device; if the CPU's proof then verifies, the device is blamed. */
static void prove_partition(eng_t *eng, eng_gpu *g, eng_job *job, size_t k, eng_srs *srs,
                            const g16_params_t *params, const g16_pvk_t *pvk, prove_out *o)
{
    bool use_gpu = true, gpu_bad = false;

    cz_diag_init(&o->dg);
    for (unsigned attempt = 0; attempt < 2; attempt++) {
        bool on_gpu = false;
        uint64_t up0 = o->upload_ns;
        uint64_t t0 = eng_now_ns();
        o->err = prove_once(eng, g, use_gpu, job, k, srs, params, o, &on_gpu);
        o->last_on_gpu = on_gpu;
        uint64_t t1 = eng_now_ns();
        o->prove_ns += (t1 - t0) - (o->upload_ns - up0);
        if (o->err != CUZK_OK || !eng->cfg.verify_proofs) {
            break;
        }
        bool valid = false;
        o->err = part_verify(eng, job, k, pvk, &o->proof, &valid, &o->dg);
        uint64_t t2 = eng_now_ns();
        o->verify_ns += t2 - t1;
        if (eng->cfg.timing) {
            eng_timing_stage(eng, job, k, "verify", NULL, t1, t2);
        }
        if (o->err != CUZK_OK || valid) {
            if (valid && gpu_bad && !on_gpu) {
                cz_diag bad;
                cz_diag_init(&bad);
                cuzk_err e = cz_fail(&bad, CUZK_E_GPU,
                                     "the device's proof did not verify, the CPU's proof did");
                eng_gpu_proof_failed(eng, g, job, k, srs, e, &bad);
            }
            break;
        }
        o->bad_proof = true;
        if (attempt == 0) {
            o->retries++;
            gpu_bad = on_gpu;
            use_gpu = !on_gpu;
            CZ_LOG(CZ_LOG_WARN,
                   "job=%s stage=verify k=%zu event=invalid_proof backend=%s action=retry%s",
                   job->qid, k, on_gpu ? "gpu" : "cpu", on_gpu ? "_on_cpu" : "");
        } else {
            o->err = cz_fail(&o->dg, CUZK_E_UNSAT,
                             "the proof does not verify against the public inputs (proved twice)");
        }
    }
    if (o->err == CUZK_E_INVAL) {
        o->misfit = g16_params_check_circuit(params, &job->parts[k].asg, NULL) != CUZK_OK;
    }
}

/* The device copy and a, b, c (or the device shape) for a group led by partition ks[0]; NULL
 * when the device cannot take the group now. */
static g16_gpu_params *group_copy(eng_t *eng, eng_gpu *g, eng_job *job, const size_t *ks,
                                  size_t cnt, eng_srs *srs, const g16_params_t *params,
                                  g16_prove_opts_t *opts, prove_out *o)
{
    eng_part *lead = &job->parts[ks[0]];
    uint64_t up = 0, extra = 0;

    if (!lead->asg.a) {
        pthread_mutex_lock(&eng->mu);
        extra = eng_shape_device_bytes_locked(eng, job->plan.circuit_id);
        pthread_mutex_unlock(&eng->mu);
    }
    g16_gpu_params *gp = eng_gpu_resident(eng, g, job, ks[0], srs, params, extra, &up);
    o[0].upload_ns += up;
    if (!gp || g16_gpu_params_share_max(gp) < cnt) {
        return NULL;
    }
    if (!lead->asg.a) {
        uint64_t t0 = eng_now_ns();
        opts->gpu_shape = eng_gpu_shape(eng, g, gp, lead->shape, job, ks[0]);
        o[0].upload_ns += eng_now_ns() - t0;
    }
    for (size_t i = 0; i < cnt && !opts->gpu_shape; i++) {
        if (host_products(eng, job, &job->parts[ks[i]], false, &o[i].dg) != CUZK_OK) {
            return NULL;
        }
    }
    return gp;
}

/* A group of partitions of one job on g's device (prove_together): ks[0 .. *cnt) claimed, the
 * group's proofs, randomizers and results; more partitions join while the fronts go
 * (group_more), each released after its front (group_front). */
typedef struct eng_group {
    eng_t *eng;
    eng_gpu *g;
    eng_job *job;
    size_t *ks, *cnt;
    bool host; /* a, b, c made on the host for each partition (no device shape) */
    const cs_assignment_t *asg[G16_GPU_MAX_SHARE];
    g16_classes *cls[G16_GPU_MAX_SHARE];
    g16_proof_t proof[G16_GPU_MAX_SHARE];
    g16_prove_stats_t st[G16_GPU_MAX_SHARE];
    fr_t r[G16_GPU_MAX_SHARE], s[G16_GPU_MAX_SHARE];
} eng_group;

static size_t gather_locked(eng_t *eng, eng_gpu *g, eng_job *job, size_t *ks, size_t have,
                            size_t cap);

/* g16_prove_opts_t.group_more: READY partitions of the job claimed into the group; one at a
 * time when its a, b, c are made here (given back if that fails). */
static size_t group_more(void *ctx, size_t have, size_t cap)
{
    eng_group *gr = ctx;
    eng_t *eng = gr->eng;
    cz_diag dg;

    pthread_mutex_lock(&eng->mu);
    cap = gr->host && cap > have + 1 ? have + 1 : cap;
    size_t cnt = atomic_load(&gr->job->cancel)
                     ? have
                     : gather_locked(eng, gr->g, gr->job, gr->ks, have, cap);
    gr->job->running += cnt - have;
    *gr->cnt = cnt;
    pthread_mutex_unlock(&eng->mu);
    for (size_t i = have; i < cnt; i++) {
        eng_part *p = &gr->job->parts[gr->ks[i]];
        gr->asg[i] = &p->asg;
        gr->cls[i] = p->classes;
        if (gr->host && host_products(eng, gr->job, p, false, &dg) != CUZK_OK) {
            pthread_mutex_lock(&eng->mu);
            p->state = PART_READY;
            gr->job->running--;
            *gr->cnt = cnt = have;
            pthread_mutex_unlock(&eng->mu);
        }
    }
    return cnt - have;
}

/* Partition k's inputs and aux once its front in a group is done (the group keeps `kept` bytes
 * for it): moved to the spares when the reservation covers them, else freed, and the
 * reservation cut to `kept`. Not for a kind whose verification reads the assignment's inputs
 * (no public_inputs operation). */
static void shed_locked(eng_t *eng, eng_job *job, size_t k, uint64_t kept, eng_defer *d)
{
    eng_part *p = &job->parts[k];

    if (!job->slot->ops.public_inputs || !p->asg.aux) {
        return;
    }
    kept = kept < p->reserved ? kept : p->reserved;
    const cs_assignment_t counts = {
        .m = p->asg.m, .num_inputs = p->asg.num_inputs, .num_aux = p->asg.num_aux};
    /* a spare is a witness (the products' vectors go) */
    uint64_t spared = eng_part_drop_asg_locked(eng, p, p->asg.a ? 0 : p->reserved - kept, d);
    p->asg = counts;
    CZ_LOG(CZ_LOG_INFO, "job=%s k=%zu event=witness_released reserved_bytes=%llu kept_bytes=%llu",
           job->qid, k, (unsigned long long)p->reserved, (unsigned long long)kept);
    p->reserved -= spared; /* those are the spare's now, still in the budget */
    eng->mem_parts -= spared;
    trim_locked(eng, p, kept);
    p->shed = true;
}

/* g16_prove_opts_t.group_front: the group no longer reads proof j's assignment. */
static void group_front(void *ctx, size_t j, uint64_t kept_bytes)
{
    eng_group *gr = ctx;
    eng_t *eng = gr->eng;
    eng_defer d = {0};

    pthread_mutex_lock(&eng->mu);
    shed_locked(eng, gr->job, gr->ks[j], kept_bytes, &d);
    pthread_cond_broadcast(&eng->work_cv); /* the budget may admit a synthesis now */
    eng_defer_flush_locked(eng, &d);
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
}

/* Partitions ks[0 .. *cnt) of job proved together on g's device, sharing the passes over its
 * streamed points (g16_prove_group), more joining while the fronts go; each proof verified;
 * done[i] is set for those proved and verified. The rest (all of them when the group fails)
 * are left to prove_parts. */
static void prove_together(eng_t *eng, eng_gpu *g, eng_job *job, size_t *ks, size_t *cnt,
                           eng_srs *srs, const g16_params_t *params, const g16_pvk_t *pvk,
                           prove_out *o, bool *done)
{
    eng_timing_prover_ctx tc = {.eng = eng, .job = job, .k = ks[0]};
    eng_group *gr = cz_calloc(1, sizeof(*gr));
    g16_prove_opts_t opts = {.cancel = &job->cancel};
    cz_diag gdg;
    cuzk_err err = CUZK_OK;
    const size_t cnt0 = *cnt;

    cz_diag_init(&gdg);
    if (!gr) {
        return; /* proved one by one */
    }
    *gr = (eng_group){.eng = eng, .g = g, .job = job, .ks = ks, .cnt = cnt};
    if (eng->cfg.timing) {
        opts.on_stage = eng_timing_prover_stage;
        opts.on_stage_ctx = &tc;
    }
    opts.gpu = group_copy(eng, g, job, ks, cnt0, srs, params, &opts, o);
    for (size_t i = 0; opts.gpu && i < G16_GPU_MAX_SHARE && err == CUZK_OK; i++) {
        gr->asg[i] = i < cnt0 ? &job->parts[ks[i]].asg : NULL;
        gr->cls[i] = i < cnt0 ? job->parts[ks[i]].classes : NULL;
        err = g16_fr_random(&gr->r[i], &gdg);
        err = err == CUZK_OK ? g16_fr_random(&gr->s[i], &gdg) : err;
    }
    if (!opts.gpu || err != CUZK_OK) {
        goto wipe;
    }
    gr->host = !opts.gpu_shape;
    opts.group_more = group_more; /* partitions join and leave their witness as the fronts go */
    opts.group_front = group_front;
    opts.group_ctx = gr;
    opts.group_classes = gr->cls;
    uint64_t t0 = eng_now_ns();
    err = g16_prove_group(params, gr->proof, gr->asg, gr->r, gr->s, cnt0, &opts, gr->st,
                          eng->prove_pool, &gdg);
    uint64_t t1 = eng_now_ns();
    for (size_t i = 0; i < *cnt; i++) {
        o[i].h2d_bytes += gr->st[i].h2d_bytes;
        o[i].prove_ns += (t1 - t0) / *cnt;
    }
    if (err == CUZK_E_CANCELLED && atomic_load(&job->cancel)) {
        for (size_t i = 0; i < *cnt; i++) { /* nothing to prove again */
            o[i].err = err;
            done[i] = true;
        }
        goto wipe;
    }
    if (err != CUZK_OK) {
        if (err == CUZK_E_GPU || err == CUZK_E_NOMEM || err == CUZK_E_NO_GPU) {
            eng_gpu_proof_failed(eng, g, job, ks[0], srs, err, &gdg);
        }
        char buf[600];
        CZ_LOG(CZ_LOG_INFO, "job=%s k=%zu event=group_failed partitions=%zu error=\"%s\"", job->qid,
               ks[0], *cnt, cz_diag_str(&gdg, buf, sizeof(buf)));
        goto wipe;
    }
    CZ_LOG(CZ_LOG_INFO, "job=%s k=%zu event=shared_pass partitions=%zu h2d_bytes=%llu ms=%.1f",
           job->qid, ks[0], *cnt, (unsigned long long)(gr->st[0].h2d_bytes * *cnt),
           (double)(t1 - t0) / 1e6);
    for (size_t i = 0; i < *cnt; i++) {
        bool valid = !eng->cfg.verify_proofs;
        uint64_t v0 = eng_now_ns();
        if (!valid &&
            part_verify(eng, job, ks[i], pvk, &gr->proof[i], &valid, &o[i].dg) != CUZK_OK) {
            valid = false;
        }
        o[i].verify_ns += eng_now_ns() - v0;
        if (valid) {
            o[i].proof = gr->proof[i];
            o[i].gpu_proofs++;
            o[i].last_on_gpu = true;
            done[i] = true;
        }
    }
wipe:
    cz_memzero(gr, sizeof(*gr));
    cz_free(gr);
}

/* Partitions ks[0 .. *cnt) of job (a group when g's copy shares passes, which may grow it):
 * proved together first, then one by one for any left; a partition released after its front
 * in a failed group is synthesized again instead (o->resynth). */
static void prove_parts(eng_t *eng, eng_gpu *g, eng_job *job, size_t *ks, size_t *cnt, bool group,
                        eng_srs *srs, const g16_params_t *params, const g16_pvk_t *pvk,
                        prove_out *o)
{
    bool done[G16_GPU_MAX_SHARE] = {false};

    if (group) {
        prove_together(eng, g, job, ks, cnt, srs, params, pvk, o, done);
    }
    for (size_t i = 0; i < *cnt; i++) {
        if (done[i]) {
            continue;
        }
        pthread_mutex_lock(&eng->mu);
        o[i].resynth = job->parts[ks[i]].shed;
        pthread_mutex_unlock(&eng->mu);
        if (!o[i].resynth) {
            cz_diag_init(&o[i].dg);
            prove_partition(eng, g, job, ks[i], srs, params, pvk, &o[i]);
        }
    }
}

/* More READY partitions of job for the device thread whose group has ks[0 .. have), up to cap
 * (mu held): claimed too; returns the group's new count. */
static size_t gather_locked(eng_t *eng, eng_gpu *g, eng_job *job, size_t *ks, size_t have,
                            size_t cap)
{
    size_t cnt = have;

    (void)eng;
    for (size_t k = 0; k < job->next_synth && cnt < cap; k++) {
        eng_part *p = &job->parts[k];
        if (p->state == PART_READY && !p->staging && (!p->staged_on || p->staged_on == g)) {
            p->state = PART_PROVE;
            ks[cnt++] = k;
        }
    }
    return cnt;
}

/* The accounting of partition k's proof after the device thread proved it (mu held). */
static void finish_part_locked(eng_t *eng, eng_gpu *g, eng_job *job, size_t k, prove_out *o,
                               eng_defer *d)
{
    if (g) {
        g->proofs += o->gpu_proofs;
        g->cpu_fallbacks += o->cpu_fallback;
        if (o->gpu_proofs && !o->bad_proof) {
            g->errors_in_row = 0;
        }
    }
    eng->m.cpu_proofs += o->cpu_proofs;
    job->running--;
    job->ns[ENG_STAGE_SRS_LOAD] += o->upload_ns;
    job->ns[ENG_STAGE_PROVE] += o->prove_ns;
    job->ns[ENG_STAGE_VERIFY] += o->verify_ns;
    job->h2d_bytes += o->h2d_bytes;
    eng->m.verify_retries += o->retries;
    eng->m.verify_failures += o->bad_proof ? 1 : 0;
    if (o->err == CUZK_E_CANCELLED && atomic_load(&job->cancel)) {
        CZ_LOG(CZ_LOG_DEBUG, "job=%s stage=prove k=%zu event=stopped reason=cancelled", job->qid,
               k);
    } else if ((o->resynth && !atomic_load(&job->cancel)) ||
               (o->err == CUZK_E_UNSAT && !atomic_load(&job->cancel) &&
                eng_shape_stale_locked(eng, job, k))) {
        eng_part_release_locked(eng, job, k, d); /* synthesized and proved again */
        job->parts[k].state = PART_WAIT;
        job->resynth++;
        return;
    } else if (o->err != CUZK_OK) {
        char buf[600];
        cz_diag_str(&o->dg, buf, sizeof(buf));
        if (o->misfit) {
            eng_srs_misfit_locked(eng, job->srs, job, buf);
        }
        eng_job_fail_locked(eng, job, "partition %zu: %s", k, buf);
    } else if (!atomic_load(&job->cancel)) {
        g16_proof_to_bytes(job->proof + k * G16_PROOF_NBYTES, &o->proof);
        job->parts[k].state = PART_DONE;
        job->parts_done++;
        if (job->plan.num_partitions > 1) { /* GetMetrics: cuzk_job_partitions_done */
            CZ_LOG(CZ_LOG_INFO, "job=%s event=progress partitions_done=%zu partitions=%zu",
                   job->qid, job->parts_done, job->plan.num_partitions);
        }
        CZ_LOG(CZ_LOG_DEBUG, "job=%s stage=prove k=%zu backend=%s prove_ms=%.1f verify_ms=%.1f",
               job->qid, k, o->last_on_gpu ? "gpu" : "cpu", (double)o->prove_ns / 1e6,
               (double)o->verify_ns / 1e6);
    }
    eng_part_release_locked(eng, job, k, d);
}

void eng_prover_run(eng_t *eng, eng_gpu *g)
{
    eng_defer d = {0};

    pthread_mutex_lock(&eng->mu);
    while (!eng->stopping) {
        if (g && eng_gpu_housekeep_locked(eng, g, &d)) {
            eng_defer_flush_locked(eng, &d);
            continue;
        }
        size_t k;
        eng_job *job = pick_ready_locked(eng, g, &k);
        if (!job) {
            pthread_cond_wait(&eng->prove_cv, &eng->mu);
            continue;
        }
        size_t ks[G16_GPU_MAX_SHARE] = {k};
        job->parts[k].state = PART_PROVE;
        const unsigned share = g ? eng_gpu_share_locked(eng, g, job->srs) : 1;
        size_t cnt = gather_locked(eng, g, job, ks, 1, share);
        job->running += cnt;
        eng_srs *srs = job->srs;
        const g16_params_t *params = srs->params;
        g16_pvk_t pvk = srs->pvk;
        if (g) {
            snprintf(g->cur_job, sizeof(g->cur_job), "%s", job->id);
            g->cur_kind = job->kind;
        }
        pthread_mutex_unlock(&eng->mu);

        prove_out o[G16_GPU_MAX_SHARE];
        memset(o, 0, sizeof(o));
        prove_parts(eng, g, job, ks, &cnt, share > 1, srs, params, &pvk, o);
        bool any_gpu = false;
        for (size_t i = 0; i < cnt; i++) {
            any_gpu |= o[i].gpu_proofs > 0;
        }
        if (g && any_gpu) {
            eng_gpu_refresh(eng, g); /* the status's free device memory */
        }

        pthread_mutex_lock(&eng->mu);
        if (g) {
            g->cur_job[0] = '\0';
            g->cur_kind = ENG_KIND_UNSPECIFIED;
        }
        for (size_t i = 0; i < cnt; i++) {
            finish_part_locked(eng, g, job, ks[i], &o[i], &d);
        }
        pthread_cond_broadcast(&eng->work_cv);
        eng_job_maybe_finish_locked(eng, job, &d);
        eng_defer_flush_locked(eng, &d);
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
}

void *eng_prover_main(void *arg)
{
    eng_prover_run(arg, NULL);
    return NULL;
}
