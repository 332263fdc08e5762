/* shape.c - recorded circuit shapes for the pre-compiled constraint evaluator (r1cs.h
 * "Compact shape"): recorded once per circuit, kept for the engine's life, optionally persisted.
 *
 * DESIGN
 *  threads: none of its own. The synthesis worker that first needs a circuit's shape records it
 *           (or loads it from cfg.shape_cache) without the lock; the entry's state RECORDING
 *           keeps the others from recording it too. In mode AUTO they synthesize with the
 *           prover backend meanwhile; in mode PCE they wait on work_cv.
 *  lock:    eng->mu guards the list and each entry's state; a READY entry's shape is read-only
 *           and read without the lock. Entries are freed by eng_free, and by EvictSRS of their
 *           circuit (eng_shape_take_locked) when no partition of it is in flight: partitions
 *           that read a shape hold a reference on their circuit's parameters from admission
 *           to release, so the parameters' refs == 0 means the shape has no reader.
 *  budget:  a READY shape is charged to eng->mem_used at cs_shape_bytes (demoting idle
 *           parameters if needed, as a partition reservation does); a shape that does not fit
 *           is not kept and its circuit is synthesized with the prover backend.
 *  files:   <shape_cache>/<circuit id>.shape, keyed by the circuit's identity (shape_key: its
 *           id, its handler's synth_version and a digest of its parameters' verifying key and
 *           lengths) and the file format's version (docs/formats.md): a file of another
 *           identity, or truncated or corrupt, is refused by cs_shape_load and recorded again,
 *           never used.
 *  stale:   a file that passes every check yet holds other coefficients (kept across an upgrade
 *           that did not bump synth_version, or tampered with) makes proofs unsatisfiable.
 *           A partition that fails so with a LOADED shape (eng_shape_stale_locked) retires the
 *           entry (kept, off the list, until its last user lets go: users counts the partitions
 *           holding it), leaves a RERECORD entry in its place, and is synthesized again once;
 *           the next worker records the shape without reading the file and saves it over it.
 */
#include "engine/internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/log.h"
#include "engine/timing.h"
#include "hash/sha256.h"

static const char *const mode_names[] = {"auto", "prover", "pce"};

const char *eng_synth_mode_name(eng_synth_mode mode)
{
    return (unsigned)mode < ARRAY_LEN(mode_names) ? mode_names[mode] : "?";
}

bool eng_synth_mode_parse(eng_synth_mode *out, const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(mode_names); i++) {
        if (strcmp(name, mode_names[i]) == 0) {
            *out = (eng_synth_mode)i;
            return true;
        }
    }
    return false;
}

static eng_shape *find_locked(eng_t *eng, const char *id)
{
    for (eng_shape *s = eng->shapes; s; s = s->next) {
        if (strcmp(s->id, id) == 0) {
            return s;
        }
    }
    return NULL;
}

/* Records the shape of the job's circuit from partition k's synthesis. */
static cuzk_err record(eng_t *eng, eng_job *job, size_t k, cs_shape_t *out, cz_diag *dg)
{
    const eng_kind_slot *slot = job->slot;
    const cs_counts_t *hint =
        (job->plan.shape.num_constraints || job->plan.shape.num_aux) ? &job->plan.shape : NULL;
    cs_t *cs = NULL;
    cuzk_err err = CUZK_OK;

    (void)eng;
    CZ_TRY(err, cs_new_shape_recorder(&cs, hint, dg), done);
    CZ_TRY(err, slot->ops.synthesize(slot->ctx, &job->plan, k, cs, dg), done);
    CZ_TRY(err, cs_finish(cs, dg), done);
    CZ_TRY(err, cs_take_shape(cs, out, dg), done);
done:
    cs_free(cs);
    return err;
}

/* The key a shape file of the job's circuit is saved under: "cuzk-shape/<circuit id>
 * synth=<its handler's synth_version> params=<digest>", the digest being the first 8 bytes of
 * SHA-256 over the parameters' verifying key (.vk encoding) and their h, l, a and b lengths.
 * The parameters fit one circuit, so new parameters (an upgrade that changed the circuit) or a
 * build that synthesizes otherwise name another identity, and the old file is refused. */
static int shape_key(char *key, size_t cap, const eng_job *job, const g16_params_t *params)
{
    uint8_t digest[SHA256_DIGEST_BYTES] = {0};

    if (params) {
        size_t n = g16_vk_nbytes(&params->vk);
        uint8_t *buf = cz_malloc(n + 32);
        if (buf) {
            g16_vk_to_bytes(buf, &params->vk);
            cz_store_le64(buf + n, params->h_len);
            cz_store_le64(buf + n + 8, params->l_len);
            cz_store_le64(buf + n + 16, params->a_len);
            cz_store_le64(buf + n + 24, params->b_g1_len);
            sha256(digest, buf, n + 32);
            cz_free(buf);
        }
    }
    return snprintf(key, cap, "cuzk-shape/%s synth=%u params=%016llx", job->plan.circuit_id,
                    job->slot->ops.synth_version, (unsigned long long)cz_load_le64(digest));
}

/* Loads the shape from the cache directory (unless `rerecord`: the file was found stale), or
 * records it and saves it there. *loaded tells which. */
static cuzk_err load_or_record(eng_t *eng, eng_job *job, size_t k, const g16_params_t *params,
                               bool rerecord, cs_shape_t *out, bool *loaded, cz_diag *dg)
{
    const char *dir = eng->cfg.shape_cache;
    char key[ENG_CIRCUIT_ID_MAX + 64], path[4096];
    int kl = shape_key(key, sizeof(key), job, params);
    cuzk_err err;

    *loaded = false;
    if (dir && dir[0]) {
        snprintf(path, sizeof(path), "%s/%s.shape", dir, job->plan.circuit_id);
        struct stat st;
        if (!rerecord && stat(path, &st) == 0) {
            cz_diag ldg;
            cz_diag_init(&ldg);
            err = cs_shape_load(out, path, key, (size_t)kl, eng->synth_pool, &ldg);
            if (err == CUZK_OK) {
                *loaded = true;
                return CUZK_OK;
            }
            char q[CZ_LOG_QUOTED_MAX(sizeof(ldg.msg))];
            CZ_LOG(CZ_LOG_WARN, "shape=%s event=refused action=record error=%s",
                   job->plan.circuit_id, cz_log_quote(q, sizeof(q), ldg.msg));
        }
    }
    err = record(eng, job, k, out, dg);
    if (err == CUZK_OK && dir && dir[0]) {
        cz_diag sdg;
        cz_diag_init(&sdg);
        mkdir(dir, 0755);
        if (cs_shape_save(out, path, key, (size_t)kl, eng->synth_pool, &sdg) != CUZK_OK) {
            char q[CZ_LOG_QUOTED_MAX(sizeof(sdg.msg))];
            CZ_LOG(CZ_LOG_WARN, "shape=%s event=not_saved error=%s", job->plan.circuit_id,
                   cz_log_quote(q, sizeof(q), sdg.msg));
        } else if (rerecord) {
            CZ_LOG(CZ_LOG_INFO, "shape=%s event=saved path=%s reason=stale", job->plan.circuit_id,
                   path);
        }
    }
    return err;
}

/* The shape's bytes out of the reservation of partition k, which records it (mu held): it was
 * admitted before the shape existed, with the plan's whole estimate, and is synthesized from
 * the shape as a witness next, which needs far less (eng_part_witness_bytes); the bytes stay
 * counted in the budget, now as the shape's. False when its reservation cannot spare them. */
static bool from_recorder_locked(eng_t *eng, eng_job *job, size_t k, uint64_t bytes)
{
    eng_part *p = &job->parts[k];

    if (p->reserved < bytes || p->reserved - bytes < eng_part_witness_bytes(&job->plan)) {
        return false;
    }
    p->reserved -= bytes;
    eng->mem_parts -= bytes;
    CZ_LOG(CZ_LOG_INFO, "job=%s k=%zu event=shape_from_partition bytes=%llu", job->qid, k,
           (unsigned long long)bytes);
    return true;
}

/* The worker that created entry s (RECORDING) fills it; runs without the lock. Returns the
 * entry, the caller counted as a user, when it became READY, else NULL. */
static eng_shape *fill(eng_t *eng, eng_shape *s, eng_job *job, size_t k, const g16_params_t *params,
                       bool rerecord, uint64_t *t_end)
{
    cs_shape_t shape;
    bool loaded = false;
    cz_diag dg;
    eng_defer d = {0};
    uint64_t wake = 0;

    memset(&shape, 0, sizeof(shape));
    cz_diag_init(&dg);
    uint64_t t0 = eng_now_ns();
    cuzk_err err = load_or_record(eng, job, k, params, rerecord, &shape, &loaded, &dg);
    uint64_t t1 = eng_now_ns();
    uint64_t dev_bytes = err == CUZK_OK ? g16_gpu_shape_device_estimate(&shape) : 0;
    pthread_mutex_lock(&eng->mu);
    uint64_t bytes = err == CUZK_OK ? cs_shape_bytes(&shape) : 0;
    if (err == CUZK_OK && eng_mem_reserve_locked(eng, bytes, NULL, &wake, &d) != RESERVE_OK &&
        !from_recorder_locked(eng, job, k, bytes)) {
        err = cz_fail(&dg, CUZK_E_NOMEM, "the shape's %llu bytes do not fit the memory budget",
                      (unsigned long long)bytes);
    }
    if (err == CUZK_OK) {
        s->shape = shape;
        s->bytes = bytes;
        s->dev_bytes = dev_bytes;
        s->state = SHAPE_READY;
        s->loaded = loaded;
        s->users++; /* the caller */
        if (loaded) {
            eng->m.shapes_loaded++;
        } else {
            eng->m.shapes_recorded++;
        }
        eng->m.shape_record_ns += t1 - t0;
    } else {
        s->state = SHAPE_FAILED;
    }
    bool ready = s->state == SHAPE_READY;
    pthread_cond_broadcast(&eng->work_cv);
    eng_defer_flush_locked(eng, &d);
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    if (err == CUZK_OK) {
        size_t nnz = shape.A.nnz + shape.B.nnz + shape.C.nnz;
        CZ_LOG(CZ_LOG_INFO, "shape=%s event=%s rows=%zu nnz=%zu dict=%zu bytes=%llu ms=%.1f", s->id,
               loaded ? "loaded" : "recorded", shape.A.rows, nnz, shape.dict_len,
               (unsigned long long)bytes, (double)(t1 - t0) / 1e6);
    } else {
        char q[CZ_LOG_QUOTED_MAX(sizeof(dg.msg))];
        cs_shape_clear(&shape);
        CZ_LOG(CZ_LOG_WARN, "shape=%s event=record_failed action=prover_backend error=%s", s->id,
               cz_log_quote(q, sizeof(q), dg.msg));
    }
    *t_end = eng_now_ns();
    if (eng->cfg.timing) {
        /* the whole of it, bookkeeping and log line included: it is part of synthesis_ms */
        eng_timing_stage(eng, job, k, loaded ? "shape_load" : "shape_record", NULL, t0, *t_end);
    }
    return ready ? s : NULL;
}

eng_shape *eng_shape_get(eng_t *eng, eng_job *job, size_t k, uint64_t *t_end)
{
    eng_synth_mode mode = eng->cfg.synth_mode;
    eng_shape *s;

    *t_end = 0;
    if (mode == ENG_SYNTH_PROVER) {
        return NULL;
    }
    pthread_mutex_lock(&eng->mu);
    for (;;) {
        s = find_locked(eng, job->plan.circuit_id);
        if (s && s->state == SHAPE_RECORDING && mode == ENG_SYNTH_PCE &&
            !atomic_load(&job->cancel)) {
            pthread_cond_wait(&eng->work_cv, &eng->mu);
            continue;
        }
        break;
    }
    /* the partition holds a reference on the parameters: they are HOT and stay so */
    const g16_params_t *params = job->srs ? job->srs->params : NULL;
    bool rerecord = s && s->state == SHAPE_RERECORD;
    if (s && !rerecord) {
        eng_shape *ready = s->state == SHAPE_READY ? s : NULL;
        if (ready) {
            ready->users++;
        }
        pthread_mutex_unlock(&eng->mu);
        return ready;
    }
    if (!s) {
        s = cz_calloc(1, sizeof(*s));
        if (!s) {
            pthread_mutex_unlock(&eng->mu);
            return NULL;
        }
        snprintf(s->id, sizeof(s->id), "%s", job->plan.circuit_id);
        s->next = eng->shapes;
        eng->shapes = s;
    }
    s->state = SHAPE_RECORDING;
    pthread_mutex_unlock(&eng->mu);
    return fill(eng, s, job, k, params, rerecord, t_end);
}

void eng_shape_put_locked(eng_t *eng, eng_shape *s, eng_defer *d)
{
    CZ_CHECK(s->users > 0);
    if (--s->users > 0 || !s->retired) {
        return;
    }
    for (eng_shape **pp = &eng->retired_shapes; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            break;
        }
    }
    eng_mem_release_locked(eng, s->bytes);
    eng_defer_item it = {.kind = DEFER_FREE_SHAPE, .ptr = s};
    eng_defer_add(d, &it);
}

bool eng_shape_stale_locked(eng_t *eng, eng_job *job, size_t k)
{
    eng_part *p = &job->parts[k];
    eng_shape *s = p->shape_ref;

    if (!s || !s->loaded || p->shape_retried) {
        return false;
    }
    if (!s->retired) {
        eng_shape *fresh = cz_calloc(1, sizeof(*fresh));
        if (!fresh) {
            return false;
        }
        for (eng_shape **pp = &eng->shapes; *pp; pp = &(*pp)->next) {
            if (*pp == s) {
                *pp = s->next;
                break;
            }
        }
        s->retired = true;
        s->next = eng->retired_shapes;
        eng->retired_shapes = s;
        eng_gpu_shape_forget_locked(eng, &s->shape);
        snprintf(fresh->id, sizeof(fresh->id), "%s", s->id);
        fresh->state = SHAPE_RERECORD;
        fresh->next = eng->shapes;
        eng->shapes = fresh;
        CZ_LOG(CZ_LOG_WARN,
               "shape=%s event=shape_stale job=%s k=%zu reason=unsatisfied_with_loaded_shape "
               "action=rerecord",
               s->id, job->qid, k);
    } else {
        CZ_LOG(CZ_LOG_INFO, "shape=%s event=shape_stale job=%s k=%zu action=retry", s->id, job->qid,
               k);
    }
    p->shape_retried = true;
    return true;
}

bool eng_shape_ready_locked(eng_t *eng, const char *id)
{
    const eng_shape *s = find_locked(eng, id);
    return s && s->state == SHAPE_READY;
}

uint64_t eng_shape_device_bytes_locked(eng_t *eng, const char *id)
{
    const eng_shape *s = find_locked(eng, id);
    return s && s->state == SHAPE_READY ? s->dev_bytes : 0;
}

eng_shape *eng_shape_take_locked(eng_t *eng, const char *id)
{
    for (eng_shape **pp = &eng->shapes; *pp; pp = &(*pp)->next) {
        eng_shape *s = *pp;
        if (strcmp(s->id, id) != 0) {
            continue;
        }
        if (s->state == SHAPE_RECORDING) {
            return NULL;
        }
        *pp = s->next;
        s->next = NULL;
        if (s->state == SHAPE_READY) {
            CZ_CHECK(s->users == 0);
            eng_mem_release_locked(eng, s->bytes);
        }
        return s;
    }
    return NULL;
}

void eng_shape_free(eng_shape *s)
{
    if (s) {
        cs_shape_clear(&s->shape);
        cz_free(s);
    }
}

void eng_shapes_free(eng_t *eng)
{
    eng_shape **lists[2] = {&eng->shapes, &eng->retired_shapes};

    for (int i = 0; i < 2; i++) {
        while (*lists[i]) {
            eng_shape *s = *lists[i];
            *lists[i] = s->next;
            cs_shape_clear(&s->shape);
            cz_free(s);
        }
    }
}
