/* srs.c - the SRS (parameter) manager and the memory budget.
 *
 * Tiers: HOT = decoded in memory (g16_params_t + prepared VK), ready to prove, charged to the
 * budget at the file's size; WARM = decoded points freed but the file stays mapped (its pages
 * live in the page cache, reclaimable by the kernel, not charged); COLD = known, not mapped.
 * Only a load reads a mapping: HOT proves from the points decoded out of it, so a HOT entry is
 * unaffected when its file changes on disk (it keeps those points until it leaves HOT) -- except
 * an entry whose points are in the file only (see Host points below), which a lookup that finds
 * the file changed demotes once unused, so that the job loads the new file.
 * Files that change: a mapping records the file's device, inode, size and modification time
 * (eng_file_id) and is reused by a load only while a fresh stat() of the path still matches;
 * otherwise the load maps the file again and the stale mapping is dropped. Touching the pages
 * of a file truncated in place raises SIGBUS, so this check is what keeps a WARM entry whose
 * file was truncated or rewritten (cp over it, a partial download, a full disk) from killing
 * the process. A load also stats the file after decoding and fails ("changed while it was
 * read") when it changed meanwhile. What remains: a file truncated in place during the decode
 * itself still faults; files replaced by rename (write elsewhere, then mv) are always safe.
 * HOT -> WARM happens under memory pressure to unused entries (refs == 0, idle at least
 * eviction_min_idle), least recently used first; HOT/WARM -> COLD on EvictSRS. Loading (COLD or
 * WARM -> HOT) decodes the mapped file with the "cuzk-srs" pool, dropping the mapping's pages
 * from the process as it goes (they stay in the page cache).
 * Host points: unless srs.keep_host_points, a load with a usable device reads only the VK and
 * counts (skip_points): the points stay in the mapping, and uploads decode them from it into
 * their pinned staging (eng_srs_points_acquire hands them the mapping). A CPU proof decodes
 * them on the host first (restore; readers are counted so that a drop never frees points in
 * use); once every usable device holds a copy again, the device thread that made the last
 * copy frees them (g16_params_drop_points). The budget keeps counting the file's size.
 * PreloadSRS loads, then asks every usable device thread to make the copy (g->pre_srs) and
 * waits for them, so that the first proof after a preload uploads nothing.
 *
 * DESIGN
 *  threads: none of its own. Loads run on a synthesis worker (the one whose partition needs
 *           the parameters, or the one running a PreloadSRS request), unlocked; entry->loading
 *           keeps other workers away from the entry meanwhile.
 *  lock:    eng->mu guards the entry list, tiers, refs and the budget counters. File mapping,
 *           decoding and freeing happen without it (through eng_defer when freeing).
 *  budget:  eng->mem_used = hot + loading parameters + partition reservations; a reservation
 *           that does not fit demotes unused hot entries; if it still does not fit the caller
 *           waits (work_cv; memory is released by provers and loads) or, when the request is
 *           larger than the whole budget, fails.
 *  devices: a hot entry may also be resident on devices (gpu.c, accounted per device against
 *           device memory, not this budget). Demotion (pressure or EvictSRS) drops those copies
 *           too; the decoded parameters are freed once the last copy is gone, which its
 *           device's thread does between two proofs (until then they outlive the budget's
 *           count by at most one device proof).
 */
#include "engine/internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/log.h"

void eng_file_id_of(eng_file_id *out, const struct stat *st)
{
    memset(out, 0, sizeof(*out));
    out->dev = (uint64_t)st->st_dev;
    out->ino = (uint64_t)st->st_ino;
    out->size = (uint64_t)st->st_size;
    out->mtime_sec = (int64_t)st->st_mtim.tv_sec;
    out->mtime_nsec = (int64_t)st->st_mtim.tv_nsec;
}

bool eng_file_id_eq(const eng_file_id *a, const eng_file_id *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime_sec == b->mtime_sec && a->mtime_nsec == b->mtime_nsec;
}

/* True when path is still the file `id` describes. */
static bool file_unchanged(const char *path, const eng_file_id *id)
{
    struct stat st;
    eng_file_id now;

    if (stat(path, &st) != 0) {
        return false;
    }
    eng_file_id_of(&now, &st);
    return eng_file_id_eq(&now, id);
}

static void demote_locked(eng_t *eng, eng_srs *s, eng_defer *d);

/* A HOT entry's file changed on disk. With its points decoded on the host, it keeps proving
 * with them (logged once per load; the file is read again when the entry is next loaded).
 * With its points left in the file (skip_points) or dropped, the old file is gone for the
 * uploads and CPU proofs that would read them: unused, the entry is demoted now, so that this
 * job loads the new file; in use, it is demoted by the first lookup that finds it unused. */
static void note_hot_change_locked(eng_t *eng, eng_srs *s, const struct stat *st, eng_defer *d)
{
    eng_file_id now;

    eng_file_id_of(&now, st);
    if (!s->map || eng_file_id_eq(&now, &s->map_id)) {
        return;
    }
    if (s->points_dropped && !s->refs && !s->points_busy && !s->point_readers) {
        CZ_LOG(CZ_LOG_WARN,
               "srs=%s event=file_changed tier=hot path=%s bytes=%llu action=load_again", s->id,
               s->path, (unsigned long long)now.size);
        demote_locked(eng, s, d);
        return;
    }
    if (s->change_noted) {
        return;
    }
    s->change_noted = true;
    CZ_LOG(CZ_LOG_WARN,
           "srs=%s event=file_changed tier=hot path=%s bytes=%llu action=%s "
           "hint=\"EvictSRS makes the next job load the new file\"",
           s->id, s->path, (unsigned long long)now.size,
           s->points_dropped ? "load_again_when_unused" : "keep_decoded");
}

eng_srs *eng_srs_find_locked(eng_t *eng, const char *id)
{
    for (eng_srs *s = eng->srs; s; s = s->next) {
        if (strcmp(s->id, id) == 0) {
            return s;
        }
    }
    return NULL;
}

eng_srs *eng_srs_get_locked(eng_t *eng, const char *id, const char *path, const struct stat *st,
                            eng_defer *d)
{
    uint64_t file_bytes = (uint64_t)st->st_size;
    eng_srs *s = eng_srs_find_locked(eng, id);
    if (s) {
        if (s->tier == ENG_TIER_COLD && !s->loading && strcmp(s->path, path) != 0) {
            char *p = cz_strdup(path);
            if (!p) {
                return NULL;
            }
            cz_free(s->path);
            s->path = p;
        }
        if (s->tier == ENG_TIER_HOT) {
            eng_srs_misfit_demote_locked(eng, s, d);
        }
        if (s->tier == ENG_TIER_HOT) {
            note_hot_change_locked(eng, s, st, d);
        }
        if (s->tier != ENG_TIER_HOT && !s->loading) {
            s->file_bytes = file_bytes; /* the file may have been replaced; not charged now */
        }
        return s;
    }
    s = cz_calloc(1, sizeof(*s));
    if (!s) {
        return NULL;
    }
    s->path = cz_strdup(path);
    if (!s->path) {
        cz_free(s);
        return NULL;
    }
    snprintf(s->id, sizeof(s->id), "%s", id);
    s->tier = ENG_TIER_COLD;
    s->file_bytes = file_bytes;
    s->next = eng->srs;
    eng->srs = s;
    return s;
}

bool eng_srs_resolve(eng_t *eng, const char *id, char *path, size_t cap)
{
    char name[512];
    for (int k = 1; k < ENG_KIND_COUNT; k++) {
        const eng_kind_slot *slot = &eng->kinds[k];
        if (slot->present && slot->ops.srs_file(slot->ctx, id, name, sizeof(name))) {
            int n = snprintf(path, cap, "%s/%s", eng->param_cache, name);
            return n > 0 && (size_t)n < cap;
        }
    }
    return false;
}

/* Moves a hot, unused entry to WARM; its decoded parameters are freed after the lock, or, when
 * devices hold copies of them, after the last copy is freed by its device's thread (gpu.c). */
static void demote_locked(eng_t *eng, eng_srs *s, eng_defer *d)
{
    eng_gpu_srs_demoted_locked(eng, s, s->params, d);
    s->params = NULL;
    s->points_dropped = false; /* the next load decodes a fresh object */
    memset(&s->pvk, 0, sizeof(s->pvk));
    s->tier = s->map ? ENG_TIER_WARM : ENG_TIER_COLD;
    eng->mem_used -= s->file_bytes;
    eng->m.srs_evictions++;
    CZ_LOG(CZ_LOG_INFO, "srs=%s event=demoted tier=%s bytes=%llu", s->id,
           s->tier == ENG_TIER_WARM ? "warm" : "cold", (unsigned long long)s->file_bytes);
}

eng_reserve eng_mem_reserve_locked(eng_t *eng, uint64_t bytes, const eng_srs *keep,
                                   uint64_t *wake_ns, eng_defer *d)
{
    uint64_t budget = eng->cfg.mem_budget_bytes;
    uint64_t min_idle = eng->cfg.eviction_min_idle_ms * UINT64_C(1000000);

    *wake_ns = 0;
    if (bytes > budget) {
        return RESERVE_NEVER;
    }
    uint64_t now = eng_now_ns();
    while (eng->mem_used + bytes > budget) {
        if (eng_spare_drop_oldest_locked(eng, d)) {
            continue; /* spare assignments go before parameters */
        }
        eng_srs *victim = NULL;
        for (eng_srs *s = eng->srs; s; s = s->next) {
            if (s == keep || s->tier != ENG_TIER_HOT || s->loading || s->refs) {
                continue;
            }
            if (now - s->last_used_ns < min_idle) {
                uint64_t t = s->last_used_ns + min_idle;
                if (!*wake_ns || t < *wake_ns) {
                    *wake_ns = t;
                }
                continue;
            }
            if (!victim || s->last_used_ns < victim->last_used_ns) {
                victim = s;
            }
        }
        if (!victim) {
            return RESERVE_WAIT;
        }
        demote_locked(eng, victim, d);
    }
    eng->mem_used += bytes;
    if (eng->mem_used > eng->mem_used_peak) {
        eng->mem_used_peak = eng->mem_used;
    }
    *wake_ns = 0;
    return RESERVE_OK;
}

void eng_mem_force_locked(eng_t *eng, uint64_t bytes, const char *job)
{
    eng->mem_used += bytes;
    if (eng->mem_used > eng->mem_used_peak) {
        eng->mem_used_peak = eng->mem_used;
    }
    if (eng->mem_used > eng->cfg.mem_budget_bytes) {
        CZ_LOG(CZ_LOG_WARN, "job=%s event=over_budget used_bytes=%llu budget_bytes=%llu", job,
               (unsigned long long)eng->mem_used, (unsigned long long)eng->cfg.mem_budget_bytes);
    }
}

void eng_mem_release_locked(eng_t *eng, uint64_t bytes)
{
    CZ_CHECK(eng->mem_used >= bytes);
    eng->mem_used -= bytes;
    pthread_cond_broadcast(&eng->work_cv);
}

void eng_srs_unmap(void *map, size_t len)
{
    if (map) {
        munmap(map, len);
    }
}

/* Maps path read-only; *id gets what was mapped. */
static cuzk_err map_file(const char *path, void **map, size_t *len, eng_file_id *id, cz_diag *dg)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd < 0) {
        return cz_fail(dg, CUZK_E_IO, "open %s: %s", path, strerror(errno));
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        close(fd);
        return cz_fail(dg, CUZK_E_IO, "%s: empty, not a regular file, or unreadable", path);
    }
    void *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (m == MAP_FAILED) {
        return cz_fail(dg, CUZK_E_IO, "mmap %s: %s", path, strerror(e));
    }
    madvise(m, (size_t)st.st_size, MADV_SEQUENTIAL);
    *map = m;
    *len = (size_t)st.st_size;
    eng_file_id_of(id, &st);
    return CUZK_OK;
}

/* Puts "path: " in front of dg's message unless it names the file already (a decoder's
 * message names a section, not the file). */
static void diag_prefix_path(cz_diag *dg, const char *path)
{
    char tmp[sizeof(dg->msg)];

    if (dg && !strstr(dg->msg, path) && snprintf(tmp, sizeof(tmp), "%s: %s", path, dg->msg) >= 0) {
        memcpy(dg->msg, tmp, sizeof(tmp));
    }
}

bool eng_srs_skip_points_locked(const eng_t *eng)
{
    return !eng->cfg.keep_host_points && eng_gpu_any_usable_locked(eng);
}

cuzk_err eng_srs_load(eng_t *eng, const char *path, void *map, size_t map_len,
                      const eng_file_id *map_id, bool skip_points, eng_srs_loaded *out, cz_diag *dg)
{
    eng_file_id used = {0};
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    if (map && file_unchanged(path, map_id)) {
        used = *map_id;
    } else {
        if (map) {
            CZ_LOG(CZ_LOG_WARN, "path=%s event=file_changed tier=warm action=map_again", path);
            out->drop_old = true;
        }
        err = map_file(path, &out->map, &out->map_len, &out->map_id, dg);
        if (err != CUZK_OK) {
            return err;
        }
        map = out->map;
        map_len = out->map_len;
        used = out->map_id;
    }
    /* the mapping's pages are dropped from the process as they are decoded (they stay in the
     * page cache for a later load): the decoded copy is what a hot entry holds */
    g16_load_opts_t lo = {
        .check_subgroup = false, .release_input = true, .skip_points = skip_points};
    err = g16_params_from_bytes(&out->params, map, map_len, &lo, eng->load_pool, dg);
    out->skipped = skip_points;
    if (err == CUZK_OK && !file_unchanged(path, &used)) {
        g16_params_free(out->params);
        out->params = NULL;
        out->drop_old = true;
        err = cz_fail(dg, CUZK_E_IO, "%s changed while it was read; the next job reads it again",
                      path);
    }
    if (err == CUZK_OK) {
        g16_pvk_init(&out->pvk, &out->params->vk);
        return CUZK_OK;
    }
    diag_prefix_path(dg, path);
    if (out->map) {
        munmap(out->map, out->map_len);
        out->map = NULL;
    }
    return err;
}

void eng_srs_load_finish_locked(eng_t *eng, eng_srs *s, cuzk_err err, eng_srs_loaded *ld,
                                eng_defer *d)
{
    s->loading = false;
    eng->loads_running--;
    if (ld->drop_old && s->map) {
        eng_defer_item it = {.kind = DEFER_UNMAP, .ptr = s->map, .len = s->map_len};
        eng_defer_add(d, &it);
        s->map = NULL;
        s->map_len = 0;
        if (s->tier == ENG_TIER_WARM) {
            s->tier = ENG_TIER_COLD;
        }
    }
    if (err == CUZK_OK) {
        if (ld->map) {
            CZ_CHECK(!s->map);
            s->map = ld->map;
            s->map_len = ld->map_len;
            s->map_id = ld->map_id;
        }
        if (s->map_len != s->file_bytes) {
            /* The file changed size after the load was charged: charge what was loaded. */
            eng->mem_used = eng->mem_used - s->file_bytes + s->map_len;
            s->file_bytes = s->map_len;
            if (eng->mem_used > eng->mem_used_peak) {
                eng->mem_used_peak = eng->mem_used;
            }
        }
        s->params = ld->params;
        s->pvk = ld->pvk;
        s->points_dropped = ld->skipped; /* in the file until a device or a CPU proof reads them */
        s->tier = ENG_TIER_HOT;
        s->change_noted = false;
        s->misfit = false;
        s->last_used_ns = eng_now_ns();
        eng->m.srs_loads++;
    } else {
        eng_mem_release_locked(eng, s->file_bytes);
    }
    pthread_cond_broadcast(&eng->work_cv);
}

void eng_srs_unref_locked(eng_t *eng, eng_srs *s)
{
    CZ_CHECK(s->refs > 0);
    s->refs--;
    s->last_used_ns = eng_now_ns();
    if (!s->refs) {
        eng_gpu_copy_release_locked(eng, s); /* no partition left to make the copy for */
    }
    pthread_cond_broadcast(&eng->work_cv);
}

void eng_srs_misfit_locked(eng_t *eng, eng_srs *s, const eng_job *job, const char *why)
{
    (void)eng;
    if (s->tier != ENG_TIER_HOT || s->misfit) {
        return;
    }
    s->misfit = true;
    char q[CZ_LOG_QUOTED_MAX(600)];
    CZ_LOG(CZ_LOG_WARN, "srs=%s event=misfit job=%s path=%s action=demote_when_unused error=%s",
           s->id, job->qid, s->path, cz_log_quote(q, sizeof(q), why));
}

void eng_srs_misfit_demote_locked(eng_t *eng, eng_srs *s, eng_defer *d)
{
    if (!s->misfit || s->tier != ENG_TIER_HOT || s->refs || s->loading || s->points_busy ||
        s->point_readers) {
        return;
    }
    s->misfit = false;
    CZ_LOG(CZ_LOG_WARN, "srs=%s event=misfit_demoted action=load_again path=%s", s->id, s->path);
    demote_locked(eng, s, d);
}

void eng_srs_free_all(eng_t *eng)
{
    while (eng->srs) {
        eng_srs *s = eng->srs;
        eng->srs = s->next;
        g16_params_free(s->params);
        eng_srs_unmap(s->map, s->map_len);
        cz_free(s->path);
        cz_free(s);
    }
}

/* ---------------------------------------------------------------------------------------------
 * PreloadSRS / EvictSRS
 * ------------------------------------------------------------------------------------------- */

void eng_srs_preload(eng_t *eng, const char *circuit_id, eng_preload_fn cb, void *arg)
{
    eng_preload *p = cz_calloc(1, sizeof(*p));
    if (!p) {
        cb(arg, CUZK_E_NOMEM, "out of memory", false, 0);
        return;
    }
    snprintf(p->id, sizeof(p->id), "%s", circuit_id);
    p->cb = cb;
    p->arg = arg;
    pthread_mutex_lock(&eng->mu);
    if (eng->stopping || !eng->started) {
        pthread_mutex_unlock(&eng->mu);
        cz_free(p);
        cb(arg, CUZK_E_CANCELLED, "the engine is not running", false, 0);
        return;
    }
    eng_preload **pp = &eng->preloads;
    while (*pp) {
        pp = &(*pp)->next;
    }
    *pp = p;
    pthread_cond_broadcast(&eng->work_cv);
    pthread_mutex_unlock(&eng->mu);
}

/* Asks every usable device to make s's parameters (HOT) resident before its next proof and
 * waits until they did (or failed: logged, the partitions then go to the CPU as usual); a
 * device with another preload queued is skipped. Lock held on entry and on return. */
static void preload_devices_locked(eng_t *eng, eng_srs *s)
{
    unsigned pending = 0;

    for (unsigned i = 0; i < eng->n_gpus && s->tier == ENG_TIER_HOT; i++) {
        eng_gpu *g = &eng->gpus[i];
        if (g->usable && g->started && !g->pre_srs) {
            g->pre_srs = s;
            g->pre_pending = &pending;
            s->refs++;
            pending++;
        }
    }
    if (pending) {
        pthread_cond_broadcast(&eng->prove_cv);
    }
    while (pending) {
        if (eng->stopping) { /* take back what no device thread has started */
            for (unsigned i = 0; i < eng->n_gpus; i++) {
                if (eng->gpus[i].pre_pending == &pending) {
                    eng->gpus[i].pre_srs = NULL;
                    eng->gpus[i].pre_pending = NULL;
                    eng_srs_unref_locked(eng, s);
                    pending--;
                }
            }
            if (!pending) {
                break;
            }
        }
        eng_cond_wait_until(&eng->work_cv, &eng->mu, eng_now_ns() + 100000000u);
    }
}

void eng_preload_run(eng_t *eng, eng_preload *p)
{
    char path[1024], msg[2048];
    eng_defer d = {0};
    struct stat st;
    cz_diag dg;

    cz_diag_init(&dg);
    if (!eng_srs_resolve(eng, p->id, path, sizeof(path))) {
        snprintf(msg, sizeof(msg), "unknown circuit id \"%s\"", p->id);
        p->cb(p->arg, CUZK_E_INVAL, msg, false, 0);
        cz_free(p);
        return;
    }
    if (stat(path, &st) != 0) {
        snprintf(msg, sizeof(msg), "parameters of circuit %s not found: %s: %s", p->id, path,
                 strerror(errno));
        p->cb(p->arg, CUZK_E_IO, msg, false, 0);
        cz_free(p);
        return;
    }

    pthread_mutex_lock(&eng->mu);
    eng_srs *s = eng_srs_get_locked(eng, p->id, path, &st, &d);
    cuzk_err err = CUZK_OK;
    for (;;) {
        if (!s) {
            err = CUZK_E_NOMEM;
            snprintf(msg, sizeof(msg), "out of memory");
            break;
        }
        if (eng->stopping) {
            err = CUZK_E_CANCELLED;
            snprintf(msg, sizeof(msg), "daemon shutting down");
            break;
        }
        if (s->tier == ENG_TIER_HOT) {
            uint64_t t0 = eng_now_ns();
            s->last_used_ns = t0;
            preload_devices_locked(eng, s); /* nothing to do where the copies exist */
            pthread_mutex_unlock(&eng->mu);
            p->cb(p->arg, CUZK_OK, "", true, (eng_now_ns() - t0) / 1000000u);
            cz_free(p);
            return;
        }
        if (s->loading) {
            pthread_cond_wait(&eng->work_cv, &eng->mu);
            continue;
        }
        uint64_t wake;
        eng_reserve r = eng_mem_reserve_locked(eng, s->file_bytes, s, &wake, &d);
        if (r == RESERVE_NEVER) {
            err = CUZK_E_NOMEM;
            snprintf(msg, sizeof(msg),
                     "parameters of %s need %llu bytes, more than the memory budget of %llu", p->id,
                     (unsigned long long)s->file_bytes,
                     (unsigned long long)eng->cfg.mem_budget_bytes);
            break;
        }
        if (r == RESERVE_OK) {
            break;
        }
        eng_defer_flush_locked(eng, &d);
        eng_cond_wait_until(&eng->work_cv, &eng->mu, wake);
    }
    if (err != CUZK_OK) {
        pthread_mutex_unlock(&eng->mu);
        eng_defer_run(eng, &d);
        p->cb(p->arg, err, msg, false, 0);
        cz_free(p);
        return;
    }
    s->loading = true;
    eng->loads_running++;
    bool skip = eng_srs_skip_points_locked(eng);
    void *map = s->map;
    size_t map_len = s->map_len;
    eng_file_id map_id = s->map_id;
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);

    eng_srs_loaded ld;
    uint64_t t0 = eng_now_ns();
    err = eng_srs_load(eng, path, map, map_len, &map_id, skip, &ld, &dg);
    uint64_t ms = (eng_now_ns() - t0) / 1000000u;

    pthread_mutex_lock(&eng->mu);
    eng_srs_load_finish_locked(eng, s, err, &ld, &d);
    uint64_t t1 = eng_now_ns();
    if (err == CUZK_OK) {
        preload_devices_locked(eng, s);
    }
    uint64_t dev_ms = (eng_now_ns() - t1) / 1000000u;
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    if (err == CUZK_OK) {
        CZ_LOG(CZ_LOG_INFO, "srs=%s event=preloaded bytes=%llu ms=%llu devices_ms=%llu", p->id,
               (unsigned long long)st.st_size, (unsigned long long)ms, (unsigned long long)dev_ms);
        p->cb(p->arg, CUZK_OK, "", false, ms + dev_ms);
    } else {
        char buf[600];
        snprintf(msg, sizeof(msg), "loading parameters of %s: %s", p->id,
                 cz_diag_str(&dg, buf, sizeof(buf)));
        p->cb(p->arg, err, msg, false, ms);
    }
    cz_free(p);
}

cuzk_err eng_srs_evict(eng_t *eng, const char *circuit_id, bool *was_loaded, uint64_t *freed_bytes,
                       cz_diag *dg)
{
    eng_defer d = {0};
    char path[1024];

    *was_loaded = false;
    *freed_bytes = 0;
    pthread_mutex_lock(&eng->mu);
    eng_srs *s = eng_srs_find_locked(eng, circuit_id);
    if (!s) {
        pthread_mutex_unlock(&eng->mu);
        if (!eng_srs_resolve(eng, circuit_id, path, sizeof(path))) {
            return cz_fail(dg, CUZK_E_INVAL, "unknown circuit id \"%s\"", circuit_id);
        }
        return CUZK_OK; /* known, never loaded */
    }
    *was_loaded = s->tier != ENG_TIER_COLD || s->loading;
    eng_shape *shape = NULL;
    if (s->refs == 0 && !s->loading) {
        if (s->tier == ENG_TIER_HOT) {
            *freed_bytes = s->file_bytes;
            demote_locked(eng, s, &d);
        }
        /* the recorded shape goes too (recorded or loaded again by the next job) */
        shape = eng_shape_take_locked(eng, circuit_id);
        if (shape) {
            *freed_bytes += shape->bytes;
            CZ_LOG(CZ_LOG_INFO, "shape=%s event=evicted bytes=%llu", shape->id,
                   (unsigned long long)shape->bytes);
        }
        pthread_cond_broadcast(&eng->work_cv);
        if (s->map) {
            eng_defer_item it = {.kind = DEFER_UNMAP, .ptr = s->map, .len = s->map_len};
            eng_defer_add(&d, &it);
            s->map = NULL;
            s->map_len = 0;
        }
        s->tier = ENG_TIER_COLD;
        CZ_LOG(CZ_LOG_INFO, "srs=%s event=evicted freed_bytes=%llu", s->id,
               (unsigned long long)*freed_bytes);
    } else {
        CZ_LOG(CZ_LOG_INFO, "srs=%s event=evict_refused refs=%u loading=%d", s->id, s->refs,
               s->loading);
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    eng_shape_free(shape);
    return CUZK_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Host points of parameters resident on every device
 * ------------------------------------------------------------------------------------------- */

/* Restores the dropped points of srs->params from the file's mapping; lock held on entry and on
 * return, released meanwhile (points_busy keeps others waiting). */
static cuzk_err restore_points_locked(eng_t *eng, eng_srs *srs, cz_diag *dg)
{
    void *map = srs->map;
    size_t len = srs->map_len;
    eng_file_id id = srs->map_id;
    char path[1024];
    cuzk_err err;

    snprintf(path, sizeof(path), "%s", srs->path);
    srs->points_busy = true;
    pthread_mutex_unlock(&eng->mu);
    uint64_t t0 = eng_now_ns();
    if (!file_unchanged(path, &id)) {
        err =
            cz_fail(dg, CUZK_E_IO, "%s changed on disk; its dropped points are not restored", path);
    } else {
        g16_load_opts_t lo = {.check_subgroup = false, .release_input = true};
        err = g16_params_restore_points(srs->params, map, len, &lo, eng->load_pool, dg);
    }
    uint64_t t1 = eng_now_ns();
    pthread_mutex_lock(&eng->mu);
    srs->points_busy = false;
    if (err == CUZK_OK) {
        srs->points_dropped = false;
        CZ_LOG(CZ_LOG_INFO, "srs=%s event=host_points_restored ms=%.1f", srs->id,
               (double)(t1 - t0) / 1e6);
    }
    pthread_cond_broadcast(&eng->work_cv);
    return err;
}

/* A descriptor of path when it is still the file `id` describes (its mapping), else -1. */
static int open_same(const char *path, const eng_file_id *id)
{
    struct stat st;
    eng_file_id now;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    if (fd >= 0 && fstat(fd, &st) == 0) {
        eng_file_id_of(&now, &st);
        if (eng_file_id_eq(&now, id)) {
            return fd;
        }
    }
    if (fd >= 0) {
        close(fd);
    }
    return -1;
}

cuzk_err eng_srs_points_acquire(eng_t *eng, eng_srs *srs, const g16_params_t *params,
                                const uint8_t **file, size_t *file_len, int *fd, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    if (file) {
        *file = NULL;
        *file_len = 0;
        *fd = -1;
    }
    pthread_mutex_lock(&eng->mu);
    for (;;) {
        while (srs->points_busy) {
            pthread_cond_wait(&eng->work_cv, &eng->mu);
        }
        if (g16_params_has_points(params)) {
            srs->point_readers++;
            break;
        }
        if (srs->params != params || !srs->map) {
            err = cz_fail(dg, CUZK_E_INVAL,
                          "srs=%s: the host points were dropped and the parameters are no "
                          "longer loaded",
                          srs->id);
            break;
        }
        if (file) {
            /* the mapping stays while the caller's partition holds its reference */
            if (!file_unchanged(srs->path, &srs->map_id)) {
                err = cz_fail(dg, CUZK_E_IO, "%s changed on disk; its points are not read",
                              srs->path);
                break;
            }
            *file = (const uint8_t *)srs->map;
            *file_len = srs->map_len;
            *fd = open_same(srs->path, &srs->map_id); /* pread is faster than page faults */
            srs->point_readers++;
            break;
        }
        err = restore_points_locked(eng, srs, dg);
        if (err != CUZK_OK) {
            break;
        }
    }
    pthread_mutex_unlock(&eng->mu);
    return err;
}

void eng_srs_points_release(eng_t *eng, eng_srs *srs)
{
    pthread_mutex_lock(&eng->mu);
    CZ_CHECK(srs->point_readers > 0);
    srs->point_readers--;
    pthread_cond_broadcast(&eng->work_cv);
    pthread_mutex_unlock(&eng->mu);
}

bool eng_srs_points_should_drop_locked(eng_t *eng, eng_srs *srs, const g16_params_t *params)
{
    unsigned usable = 0;

    if (eng->cfg.keep_host_points || srs->tier != ENG_TIER_HOT || srs->params != params ||
        srs->points_busy || srs->points_dropped || srs->point_readers) {
        return false;
    }
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        bool has = false;
        if (!eng->gpus[i].usable) {
            continue;
        }
        usable++;
        for (const eng_gpu_res *r = eng->gpus[i].res; r && !has; r = r->next) {
            /* a streamed copy reads the host points for every proof */
            has = r->srs == srs && r->params == params && !r->freeing && !r->streamed;
        }
        if (!has) {
            return false;
        }
    }
    if (!usable) {
        return false;
    }
    srs->points_busy = true;
    return true;
}

void eng_srs_points_drop(eng_t *eng, eng_srs *srs)
{
    /* srs->params is stable: the caller's partition holds a reference, so no demotion */
    g16_params_drop_points(srs->params);
    pthread_mutex_lock(&eng->mu);
    srs->points_busy = false;
    srs->points_dropped = true;
    CZ_LOG(CZ_LOG_INFO, "srs=%s event=host_points_dropped bytes=%llu", srs->id,
           (unsigned long long)srs->file_bytes);
    pthread_cond_broadcast(&eng->work_cv);
    pthread_mutex_unlock(&eng->mu);
}
