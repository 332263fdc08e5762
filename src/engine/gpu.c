/* gpu.c - the devices: opening them, the parameters resident on each, and what happens when a
 * partition cannot be proved on its device.
 *
 * DESIGN
 *  threads:  one prover thread "cuzk-gpu<ordinal>" per opened device (eng_gpu_main, which runs
 *            pipeline.c's eng_prover_run with the device). After eng_start only that thread
 *            calls gpu_* and g16_gpu_* on its device (gpu.h: a device and everything made from
 *            it serve one thread at a time), so device work needs no lock of its own. It proves
 *            READY partitions like a CPU prover; a partition it cannot prove on the device it
 *            proves on the CPU itself, with the MSM pool.
 *  resident: g->res lists the circuits whose parameters live on the device (g16_gpu_params:
 *            bases and per-proof buffers), each made by the first partition of its circuit
 *            that the device proves. A new copy must fit (a) the device's free memory, with
 *            headroom for the scratch area the proofs grow (SCRATCH_* below), and (b) with
 *            cfg.gpu_mem_limit_bytes, the limit on the device's resident bytes. When it does
 *            not, the device's scratch is trimmed (if free memory is short) and the least
 *            recently used copies are freed one at a time; a copy that still does not fit, or
 *            whose creation fails, means the partition is proved on the CPU.
 *  demotion: a g16_gpu_params retains its host parameters, so demoting a hot entry (srs.c)
 *            cannot free them while a device copy exists. eng_gpu_srs_demoted_locked marks the
 *            copies (srs = NULL, a shared hold) and wakes the device threads (prove_cv); each
 *            frees its copy between two proofs (eng_gpu_housekeep_locked) and the last one
 *            hands the host parameters to eng_defer. Demotion needs refs == 0, so the copy of
 *            a partition being proved is never marked.
 *  failures: CUZK_E_GPU / CUZK_E_NO_GPU from the device, or a device proof that fails
 *            verification where the CPU's proof passes, count as device failures: logged, the
 *            copy is freed (made again next time), the partition is proved on the CPU
 *            (pipeline.c). After GPU_MAX_FAILURES_IN_ROW failures with no good device proof
 *            between them, the device is no longer used: its copies are freed and its thread
 *            proves on the CPU (status: usable = false). CUZK_E_NOMEM from the device trims it
 *            and frees the other copies, without counting as a failure.
 *  lock:     eng->mu guards the lists, counters and status fields; it is never held across a
 *            device call (creation, proofs, frees, gpu_dev_get_info, gpu_dev_trim).
 */
#include "engine/internal.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/log.h"
#include "engine/timing.h"

/* Device failures in a row after which the device is no longer used. */
#define GPU_MAX_FAILURES_IN_ROW 3u

/* Headroom for the scratch areas a device grows for the proofs (gpu.h): an MSM of n terms takes
 * about 80 n bytes plus its buckets, the NTT twiddles 32 n and the out-of-place NTT's second
 * buffer 32 n; the rest covers buckets and small tables. The G2 MSM's affine rounds take up to
 * 144 bytes per term more (SCRATCH_PER_G2_TERM). */
#define SCRATCH_PER_TERM    UINT64_C(160)
#define SCRATCH_PER_G2_TERM UINT64_C(144)
#define SCRATCH_FIXED       (UINT64_C(64) << 20)

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Points of section s of p (h, l, a, b_g1, b_g2: the order of g16_gpu_opts_t.stream_sections)
 * and their device bytes as bases. */
static uint64_t sec_len(const g16_params_t *p, unsigned s)
{
    const size_t len[ENG_GPU_SECTIONS] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    return len[s];
}

static uint64_t sec_bytes(const g16_params_t *p, unsigned s)
{
    return sec_len(p, s) * (s == ENG_GPU_SECTIONS - 1 ? sizeof(g2_aff_t) : sizeof(g1_aff_t));
}

/* Device bytes g16_gpu_params_new allocates for p besides the bases (groth16.h): a, b and c
 * (n values each), the assignment (ic_len + l_len values), the compacted scalars when they do
 * not fit in n values, and two density maps. */
static uint64_t work_estimate(const g16_params_t *p)
{
    uint64_t n = (uint64_t)p->h_len + 1;
    uint64_t nz = (uint64_t)p->vk.ic_len + p->l_len;
    uint64_t cmp = max_u64(p->a_len, p->b_g1_len);
    uint64_t b = sizeof(fr_t) * (3 * n + nz);

    if (cmp > n) {
        b += sizeof(fr_t) * cmp;
    }
    return b + 2 * (uint64_t)gpu_compact_map_sizeof((size_t)nz);
}

/* The whole copy: the five vectors as bases and the work buffers. An estimate used before the
 * copy exists; the accounting uses g16_gpu_params_device_bytes afterwards. */
static uint64_t resident_estimate(const g16_params_t *p)
{
    uint64_t b = work_estimate(p);

    for (unsigned s = 0; s < ENG_GPU_SECTIONS; s++) {
        b += sec_bytes(p, s);
    }
    return b;
}

/* The spare assignment for staging (g16_gpu_opts_t.spare_assignment): asked for only when it
 * fits beside the copy, its headroom and the limit once room is made for the copy, so that it
 * never costs a copy (this one or another). */
static uint64_t spare_estimate(const g16_params_t *p)
{
    return sizeof(fr_t) * ((uint64_t)p->vk.ic_len + p->l_len);
}

/* Headroom a proof with p needs beyond the copy: its largest MSM and transform. */
static uint64_t scratch_estimate(const g16_params_t *p)
{
    uint64_t terms =
        max_u64(max_u64((uint64_t)p->h_len + 1, p->l_len), max_u64(p->a_len, p->b_g1_len));
    return SCRATCH_PER_TERM * terms + SCRATCH_PER_G2_TERM * p->b_g2_len + SCRATCH_FIXED;
}

/* ---------------------------------------------------------------------------------------------
 * Streamed copies: what stays resident, and the chunk buffers
 * ------------------------------------------------------------------------------------------- */

/* Device memory a plan leaves unused (the runtime's own allocations beside the engine's): a
 * sixteenth of the device, at most PLAN_MARGIN. */
#define PLAN_MARGIN       (UINT64_C(256) << 20)
/* The fixed part of a chunk MSM's scratch on a small device (buckets and tables, about 1.1 MiB
 * for a chunk of a few points). */
#define SCRATCH_FIXED_MIN (UINT64_C(2) << 20)
/* Automatic chunk buffers: a fifth of what the work buffers leave, at most CHUNK_MAX, at least
 * CHUNK_MIN where the chunk's MSM scratch does not leave room for more. */
#define CHUNK_MAX         (UINT64_C(1) << 30)
#define CHUNK_MIN         (UINT64_C(32) << 20)

bool eng_gpu_stream_parse(eng_gpu_stream *out, const char *s)
{
    static const char *const names[] = {"auto", "always", "never"};
    for (unsigned i = 0; i < 3; i++) {
        if (s && strcmp(s, names[i]) == 0) {
            *out = (eng_gpu_stream)i;
            return true;
        }
    }
    return false;
}

const char *eng_gpu_stream_name(eng_gpu_stream m)
{
    return m == ENG_STREAM_ALWAYS ? "always" : m == ENG_STREAM_NEVER ? "never" : "auto";
}

/* The MSM headroom of section s proved resident (its whole length in one MSM). */
static uint64_t sec_scratch(const g16_params_t *p, unsigned s)
{
    uint64_t len = sec_len(p, s);
    return SCRATCH_PER_TERM * len + (s == ENG_GPU_SECTIONS - 1 ? SCRATCH_PER_G2_TERM * len : 0) +
           SCRATCH_FIXED;
}

/* Device bytes of the lean layouts' work buffers (g16_gpu_opts_t.lean_buffers): a and b, with
 * own_z [inputs | aux] too, the density maps; 0 when p does not allow the layout. */
static uint64_t lean_work_estimate(const g16_params_t *p, bool own_z)
{
    uint64_t n = (uint64_t)p->h_len + 1;
    uint64_t nz = (uint64_t)p->vk.ic_len + p->l_len;

    if ((nz > n && !own_z) || max_u64(p->a_len, p->b_g1_len) > n || n < 8) {
        return 0;
    }
    return sizeof(fr_t) * (2 * n + (own_z ? nz : 0)) +
           2 * (uint64_t)gpu_compact_map_sizeof((size_t)nz);
}

/* The device scratch of one chunk's MSM: the per-term estimate with its fixed part (buckets
 * and tables), or, when more, what the device's MSM lays out for the chunk's points with a
 * chunk of scalars copied in (the passes read theirs in place: the copy's room is headroom the
 * prover's calls for several partitions use, prover_gpu.c pass_budget), G1 or G2 whichever
 * asks more: a G2 chunk of 1.25M points asks 1.9 GB. */
static uint64_t chunk_scratch(uint64_t chunk, uint64_t margin)
{
    uint64_t msm = max_u64(gpu_msm_scratch_bytes(chunk / sizeof(g1_aff_t), 1, true),
                           gpu_msm_scratch_bytes(chunk / sizeof(g2_aff_t), 2, true));
    uint64_t est = SCRATCH_PER_TERM * (chunk / sizeof(g1_aff_t) + 1) +
                   (margin < SCRATCH_FIXED ? max_u64(margin, SCRATCH_FIXED_MIN) : SCRATCH_FIXED);

    return max_u64(msm, est);
}

/* The plan for work buffers of `work` bytes and twiddles of `tw` on a device of `avail`
 * bytes (plan_streamed). An automatic chunk shrinks (by quarters, down to CHUNK_MIN) before
 * the partitions sharing a pass do. */
static bool plan_with(const eng_config_t *cfg, const g16_params_t *p, uint64_t avail, uint64_t work,
                      uint64_t tw, bool all, eng_stream_plan *sp)
{
    const uint64_t margin = avail / 16 < PLAN_MARGIN ? avail / 16 : PLAN_MARGIN;
    uint64_t chunk = cfg->gpu_stream_bytes, left, scratch, resident = 0;

    if (avail < work + tw + margin) {
        return false;
    }
    left = avail - work - tw - margin;
    /* the partitions sharing a pass: two chunks of scalars each (32 bytes a G1 point) */
    sp->share = cfg->gpu_stream_share < 2                   ? 1
                : cfg->gpu_stream_share > G16_GPU_MAX_SHARE ? G16_GPU_MAX_SHARE
                                                            : cfg->gpu_stream_share;
    if (!chunk) { /* a fifth of what is left, less the shared scalars' chunks */
        uint64_t c = left / (5 + sp->share);
        chunk = (c > CHUNK_MAX ? CHUNK_MAX : c) & ~UINT64_C(255);
    }
    chunk = max_u64(chunk, sizeof(g2_aff_t));
    scratch = chunk_scratch(chunk, margin);
    while (!cfg->gpu_stream_bytes && chunk > CHUNK_MIN &&
           2 * chunk + g16_gpu_share_bytes(sp->share, (size_t)chunk) + scratch > left) {
        chunk = max_u64(chunk / 4 * 3, CHUNK_MIN) & ~UINT64_C(255);
        scratch = chunk_scratch(chunk, margin);
    }
    while (sp->share > 1 &&
           2 * chunk + g16_gpu_share_bytes(sp->share, (size_t)chunk) + scratch > left) {
        sp->share--;
    }
    const uint64_t fixed = 2 * chunk + g16_gpu_share_bytes(sp->share, (size_t)chunk);
    if (fixed + scratch > left) {
        return false;
    }
    sp->mask = (1u << ENG_GPU_SECTIONS) - 1;
    for (unsigned s = 0; s < ENG_GPU_SECTIONS && !all; s++) {
        uint64_t sc = max_u64(scratch, sec_scratch(p, s));
        if (fixed + resident + sec_bytes(p, s) + sc <= left) {
            sp->mask &= ~(1u << s);
            resident += sec_bytes(p, s);
            scratch = sc;
        }
    }
    sp->chunk = chunk;
    sp->share = sp->mask ? sp->share : 1;
    sp->need = work + resident + (sp->mask ? fixed : 0);
    sp->room = tw + scratch;
    return true;
}

/* A streamed copy of p for a device of `avail` bytes: the work buffers, the transforms'
 * twiddles (`tw` bytes; gpu_ntt_twiddle_bytes: split on a small device), two chunk buffers and a chunk's
 * MSM scratch always; then the sections that still fit (bases and their whole-length MSM
 * scratch), h first, resident unless `all`. The first layout that fits, fewest bytes moved
 * first: four buffers with the recorded shape (`shape` bytes, 0 = none: a, b, c computed on
 * the device), four buffers, three (lean with its own [inputs | aux]) with the shape, two
 * (lean; a, b, c from the host). False when none fits. */
bool eng_gpu_plan_streamed(const eng_config_t *cfg, const g16_params_t *p, uint64_t avail,
                           uint64_t tw, uint64_t shape, bool all, eng_stream_plan *sp)
{
    const uint64_t three = lean_work_estimate(p, true), two = lean_work_estimate(p, false);
    const struct {
        uint64_t work;
        bool shape, lean, own_z;
    } layouts[] = {
        {shape ? work_estimate(p) + shape : 0, true, false, false},
        {work_estimate(p), false, false, false},
        {shape && three ? three + shape : 0, true, true, true},
        {two, false, true, false},
    };

    for (size_t i = 0; i < ARRAY_LEN(layouts); i++) {
        memset(sp, 0, sizeof(*sp));
        if (layouts[i].work && plan_with(cfg, p, avail, layouts[i].work, tw, all, sp)) {
            sp->shape = layouts[i].shape;
            sp->lean = layouts[i].lean;
            sp->own_z = layouts[i].own_z;
            return true;
        }
    }
    memset(sp, 0, sizeof(*sp));
    return false;
}

/* "h,l,a,b_g1,b_g2" of a section mask into buf ("none" for 0). */
static const char *sections_str(char *buf, size_t cap, unsigned mask)
{
    static const char *const names[ENG_GPU_SECTIONS] = {"h", "l", "a", "b_g1", "b_g2"};
    size_t at = 0;

    buf[0] = 0;
    for (unsigned s = 0; s < ENG_GPU_SECTIONS; s++) {
        if (mask & (1u << s)) {
            at += (size_t)snprintf(buf + at, at < cap ? cap - at : 0, "%s%s", at ? "," : "",
                                   names[s]);
        }
    }
    return at ? buf : "none";
}

static bool is_device_failure(cuzk_err err)
{
    return err == CUZK_E_GPU || err == CUZK_E_NO_GPU;
}

/* ---------------------------------------------------------------------------------------------
 * Opening and closing
 * ------------------------------------------------------------------------------------------- */

cuzk_err eng_gpu_open_all(eng_t *eng, cz_diag *dg)
{
    const eng_config_t *cfg = &eng->cfg;
    unsigned want[ENG_MAX_GPUS];
    size_t n = 0;
    unsigned found = cfg->gpu_mode == ENG_GPU_NONE ? 0 : gpu_count();

    if (cfg->gpu_mode == ENG_GPU_AUTO) {
        for (unsigned i = 0; i < found && n < ENG_MAX_GPUS; i++) {
            want[n++] = i;
        }
        if (!n) {
            CZ_LOG(CZ_LOG_INFO, "event=no_gpu gpus=auto devices_found=0 action=cpu");
        }
    } else if (cfg->gpu_mode == ENG_GPU_LIST) {
        for (size_t i = 0; i < cfg->n_gpu_devices; i++) {
            want[n++] = cfg->gpu_devices[i];
        }
    }
    if (!n) {
        return CUZK_OK;
    }
    eng->gpus = cz_calloc(n, sizeof(eng_gpu));
    if (!eng->gpus) {
        return cz_fail(dg, CUZK_E_NOMEM, "device table");
    }
    for (size_t i = 0; i < n; i++) {
        gpu_dev *dev = NULL;
        gpu_dev_info info;
        cz_diag odg;
        char buf[600];

        cz_diag_init(&odg);
        if (want[i] >= found) {
            CZ_LOG(CZ_LOG_WARN,
                   "gpu=%u event=skipped reason=\"no such device: %u found\" action=not_used",
                   want[i], found);
            continue;
        }
        cuzk_err err = gpu_dev_open(&dev, want[i], &odg);
        if (err == CUZK_OK) {
            err = gpu_dev_warm(dev, &odg); /* its kernels' local memory before the plan */
        }
        if (err == CUZK_OK) {
            gpu_dev_set_mem_cap(dev, (size_t)cfg->gpu_device_memory_bytes);
            gpu_dev_set_h2d_rate(dev, cfg->gpu_h2d_rate);
            err = gpu_dev_get_info(dev, &info, &odg);
        }
        if (err == CUZK_OK && info.free_mem < info.total_mem) {
            /* What others hold (this process's context, a desktop, another program) is not the
             * engine's to plan with: the cap becomes what is free now, if that is less. */
            gpu_dev_set_mem_cap(dev, info.free_mem);
            err = gpu_dev_get_info(dev, &info, &odg);
        }
        if (err != CUZK_OK) {
            CZ_LOG(CZ_LOG_WARN, "gpu=%u event=skipped reason=\"%s\" action=not_used", want[i],
                   cz_diag_str(&odg, buf, sizeof(buf)));
            gpu_dev_close(dev);
            continue;
        }
        eng_gpu *g = &eng->gpus[eng->n_gpus++];
        g->eng = eng;
        g->ordinal = want[i];
        g->dev = dev;
        snprintf(g->name, sizeof(g->name), "%s", info.name);
        g->total_bytes = info.total_mem;
        g->free_bytes = info.free_mem;
        g->usable = true;
        CZ_LOG(CZ_LOG_INFO,
               "gpu=%u event=opened name=\"%s\" cc=%u.%u sms=%u total_bytes=%llu free_bytes=%llu "
               "limit_bytes=%llu cap_bytes=%llu streaming=%s h2d_rate=%llu",
               g->ordinal, g->name, info.cc_major, info.cc_minor, info.sm_count,
               (unsigned long long)g->total_bytes, (unsigned long long)g->free_bytes,
               (unsigned long long)cfg->gpu_mem_limit_bytes, (unsigned long long)info.mem_cap,
               eng_gpu_stream_name(cfg->gpu_streaming), (unsigned long long)cfg->gpu_h2d_rate);
    }
    if (!eng->n_gpus) {
        CZ_LOG(CZ_LOG_WARN, "event=no_gpu_usable devices_listed=%zu devices_found=%u action=cpu", n,
               found);
    }
    return CUZK_OK;
}

void eng_gpu_close_all(eng_t *eng)
{
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        eng_gpu *g = &eng->gpus[i];
        while (g->res) {
            eng_gpu_res *r = g->res;
            g->res = r->next;
            g16_gpu_shape_free(r->gs);
            g16_gpu_params_free(r->gp);
            if (r->hold && --r->hold->copies == 0) {
                g16_params_free(r->hold->params);
                cz_free(r->hold);
            }
            cz_free(r);
        }
        gpu_dev_close(g->dev);
    }
    cz_free(eng->gpus);
    eng->gpus = NULL;
    eng->n_gpus = 0;
}

void *eng_gpu_main(void *arg)
{
    eng_gpu *g = arg;
    eng_prover_run(g->eng, g);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * Resident copies
 * ------------------------------------------------------------------------------------------- */

bool eng_gpu_any_usable_locked(const eng_t *eng)
{
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        if (eng->gpus[i].usable) {
            return true;
        }
    }
    return false;
}

bool eng_gpu_host_products_locked(const eng_t *eng, const eng_srs *srs)
{
    bool any = false;

    for (unsigned i = 0; srs && i < eng->n_gpus; i++) {
        if (!eng->gpus[i].usable) {
            continue;
        }
        for (const eng_gpu_res *r = eng->gpus[i].res; r; r = r->next) {
            if (r->srs == srs && !r->freeing) {
                if (r->shape_room || !r->shape_planned) {
                    return false; /* planned before the shape: made again when proved from it */
                }
                any = true;
            }
        }
    }
    return any;
}

bool eng_gpu_groups_locked(const eng_t *eng, const eng_srs *srs)
{
    for (unsigned i = 0; srs && i < eng->n_gpus; i++) {
        for (const eng_gpu_res *r = eng->gpus[i].res; eng->gpus[i].usable && r; r = r->next) {
            if (r->srs == srs && !r->freeing && r->streamed &&
                g16_gpu_params_share_max(r->gp) > 1) {
                return true;
            }
        }
    }
    return false;
}

const g16_gpu_shape *eng_gpu_shape(eng_t *eng, eng_gpu *g, g16_gpu_params *gp,
                                   const cs_shape_t *shape, const eng_job *job, size_t k)
{
    eng_gpu_res *res = NULL;
    g16_gpu_shape *gs = NULL;
    cz_diag dg;

    pthread_mutex_lock(&eng->mu);
    for (eng_gpu_res *r = g->res; r; r = r->next) {
        if (r->gp == gp && !r->freeing) {
            res = r;
        }
    }
    if (res && res->gs && res->gs_of == shape) {
        gs = res->gs;
    }
    pthread_mutex_unlock(&eng->mu);
    if (gs || !res || !res->shape_room) {
        return gs; /* a streamed copy planned without it: a, b, c on the host */
    }
    /* Only this device's thread frees or replaces res->gs, and it is here. */
    uint64_t t0 = eng_now_ns();
    cz_diag_init(&dg);
    cuzk_err err = g16_gpu_shape_new(&gs, gp, shape, &dg);
    if (err != CUZK_OK) {
        char buf[600], q[CZ_LOG_QUOTED_MAX(sizeof(buf))];
        CZ_LOG(CZ_LOG_WARN,
               "job=%s k=%zu gpu=%u event=shape_not_resident action=host_products "
               "error=%s",
               job->qid, k, g->ordinal,
               cz_log_quote(q, sizeof(q), cz_diag_str(&dg, buf, sizeof(buf))));
        return NULL;
    }
    uint64_t bytes = g16_gpu_shape_device_bytes(gs);
    pthread_mutex_lock(&eng->mu);
    g16_gpu_shape *old = res->gs;
    uint64_t old_bytes = g16_gpu_shape_device_bytes(old);
    res->gs = gs;
    res->gs_of = shape;
    res->bytes = res->bytes - old_bytes + bytes;
    g->res_bytes = g->res_bytes - old_bytes + bytes;
    pthread_mutex_unlock(&eng->mu);
    g16_gpu_shape_free(old);
    CZ_LOG(CZ_LOG_INFO, "job=%s k=%zu gpu=%u srs=%s event=shape_resident bytes=%llu ms=%.1f",
           job->qid, k, g->ordinal, res->id, (unsigned long long)bytes,
           (double)(eng_now_ns() - t0) / 1e6);
    return gs;
}

void eng_gpu_shape_forget_locked(eng_t *eng, const cs_shape_t *shape)
{
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        for (eng_gpu_res *r = eng->gpus[i].res; r; r = r->next) {
            if (r->gs_of == shape) {
                r->gs_of = NULL; /* the device's thread replaces r->gs at its next use */
            }
        }
    }
}

/* Frees copy r of g: called by the device's thread with mu held, which it drops during the
 * device call. r stays listed (freeing) meanwhile, so that a demotion still counts it. */
static void free_copy_locked(eng_t *eng, eng_gpu *g, eng_gpu_res *r, eng_defer *d, const char *why)
{
    r->freeing = true; /* no new staging into it */
    while (r->stagers) {
        pthread_cond_wait(&eng->prove_cv, &eng->mu);
    }
    pthread_mutex_unlock(&eng->mu);
    g16_gpu_shape_free(r->gs);
    g16_gpu_params_free(r->gp);
    pthread_mutex_lock(&eng->mu);
    eng_gpu_res **pp = &g->res;
    while (*pp != r) {
        pp = &(*pp)->next;
    }
    *pp = r->next;
    eng_mem_release_locked(eng, r->host_bytes);
    g->res_bytes -= r->bytes;
    g->n_res--;
    g->n_streamed -= r->streamed != 0;
    if (r->hold && --r->hold->copies == 0) {
        eng_defer_item it = {.kind = DEFER_FREE_PARAMS, .params = r->hold->params};
        eng_defer_add(d, &it);
        cz_free(r->hold);
    }
    CZ_LOG(CZ_LOG_INFO, "gpu=%u srs=%s event=resident_freed reason=%s bytes=%llu", g->ordinal,
           r->id, why, (unsigned long long)r->bytes);
    cz_free(r);
}

bool eng_gpu_housekeep_locked(eng_t *eng, eng_gpu *g, eng_defer *d)
{
    for (eng_gpu_res *r = g->res; r; r = r->next) {
        if (r->hold && !r->freeing) {
            free_copy_locked(eng, g, r, d, "demoted");
            return true;
        }
    }
    eng_srs *srs = g->pre_srs;
    if (srs) {
        const g16_params_t *params = srs->params; /* HOT: the preload's reference keeps it */
        unsigned *pending = g->pre_pending;
        uint64_t ns, extra = eng_shape_device_bytes_locked(eng, srs->id);
        g->pre_srs = NULL;
        g->pre_pending = NULL;
        pthread_mutex_unlock(&eng->mu);
        (void)eng_gpu_resident(eng, g, NULL, 0, srs, params, extra, &ns); /* failures logged */
        pthread_mutex_lock(&eng->mu);
        (*pending)--;
        eng_srs_unref_locked(eng, srs); /* wakes the preload (work_cv) */
        return true;
    }
    return false;
}

/* Frees one copy on g to make room (device thread, without mu): a demoted one first, else the
 * least recently used one. False when g holds none. */
static bool evict_one(eng_t *eng, eng_gpu *g)
{
    eng_defer d = {0};
    eng_gpu_res *victim = NULL;

    pthread_mutex_lock(&eng->mu);
    for (eng_gpu_res *r = g->res; r; r = r->next) {
        if (r->freeing) {
            continue;
        }
        if (!victim || (r->hold && !victim->hold) ||
            (!r->hold == !victim->hold && r->last_used_ns < victim->last_used_ns)) {
            victim = r;
        }
    }
    if (victim) {
        if (!victim->hold) {
            g->evictions++;
        }
        free_copy_locked(eng, g, victim, &d, victim->hold ? "demoted" : "lru");
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    return victim != NULL;
}

/* Reads the device's memory figures (device thread, without mu) and publishes them. */
static cuzk_err refresh_info(eng_t *eng, eng_gpu *g, uint64_t *free_bytes, cz_diag *dg)
{
    gpu_dev_info info;
    cuzk_err err = gpu_dev_get_info(g->dev, &info, dg);

    if (err != CUZK_OK) {
        return err;
    }
    pthread_mutex_lock(&eng->mu);
    g->free_bytes = info.free_mem;
    g->total_bytes = info.total_mem;
    pthread_mutex_unlock(&eng->mu);
    if (free_bytes) {
        *free_bytes = info.free_mem;
    }
    return CUZK_OK;
}

void eng_gpu_refresh(eng_t *eng, eng_gpu *g)
{
    cuzk_err err = refresh_info(eng, g, NULL, NULL);
    (void)err; /* informational: a failing device shows in its next proof */
}

static uint64_t resident_bytes(eng_t *eng, const eng_gpu *g)
{
    pthread_mutex_lock(&eng->mu);
    uint64_t b = g->res_bytes;
    pthread_mutex_unlock(&eng->mu);
    return b;
}

/* A job's id as a log value; a device preload (no job) logs as "preload". */
static const char *qid_of(const eng_job *job)
{
    return job ? job->qid : "preload";
}

/* Logs why partition k of job goes to the CPU instead of g's device. */
static void log_cpu(const eng_gpu *g, const eng_job *job, size_t k, const eng_srs *srs,
                    const char *reason, uint64_t need, uint64_t room, uint64_t have)
{
    CZ_LOG(CZ_LOG_INFO,
           "job=%s k=%zu gpu=%u srs=%s event=cpu_fallback reason=%s need_bytes=%llu "
           "scratch_bytes=%llu available_bytes=%llu",
           qid_of(job), k, g->ordinal, srs->id, reason, (unsigned long long)need,
           (unsigned long long)room, (unsigned long long)have);
}

/* Makes room on g for a copy of `need` bytes plus `room` of headroom (device thread, without
 * mu): trims the device's scratch first (it grows again cheaply), then frees copies least
 * recently used first. False (logged) when it cannot. *trimmed: the scratch was trimmed;
 * *spare_fits: `spare` more bytes fit too, without freeing anything more. */
static bool make_room(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                      uint64_t need, uint64_t room, uint64_t spare, bool *trimmed, bool *spare_fits)
{
    const uint64_t limit = eng->cfg.gpu_mem_limit_bytes;
    uint64_t free_b = 0;
    cz_diag dg;

    for (;;) {
        cz_diag_init(&dg);
        cuzk_err err = refresh_info(eng, g, &free_b, &dg);
        if (err != CUZK_OK) {
            eng_gpu_proof_failed(eng, g, job, k, NULL, err, &dg);
            return false;
        }
        uint64_t used = resident_bytes(eng, g);
        bool mem_ok = need + room <= free_b, limit_ok = !limit || used + need <= limit;
        if (mem_ok && limit_ok) {
            *spare_fits = need + spare + room <= free_b && (!limit || used + need + spare <= limit);
            return true;
        }
        if (!mem_ok && !*trimmed) {
            *trimmed = true;
            err = gpu_dev_trim(g->dev, &dg);
            if (err != CUZK_OK) {
                eng_gpu_proof_failed(eng, g, job, k, NULL, err, &dg);
                return false;
            }
            continue;
        }
        if (!evict_one(eng, g)) {
            log_cpu(g, job, k, srs, mem_ok ? "limit" : "device_memory", need, room,
                    mem_ok ? (limit > used ? limit - used : 0) : free_b);
            return false;
        }
    }
}

/* Whether and how a copy of params goes on g (pure): resident whole, or streamed with *sp's plan
 * (sp->mask != 0), its device bytes in *base and headroom in *room. False when neither fits
 * (*base: the bytes it would take). */
static bool plan_mode(const eng_t *eng, const eng_gpu *g, const g16_params_t *params,
                      uint64_t total, uint64_t extra, uint64_t *base, uint64_t *room,
                      eng_stream_plan *sp)
{
    const uint64_t limit = eng->cfg.gpu_mem_limit_bytes;
    const eng_gpu_stream mode = eng->cfg.gpu_streaming;
    bool fits = *base + *room <= total && !(limit && *base > limit);

    memset(sp, 0, sizeof(*sp));
    if (mode == ENG_STREAM_ALWAYS || (!fits && mode == ENG_STREAM_AUTO)) {
        unsigned lg = 0;
        while (((uint64_t)1 << lg) < (uint64_t)params->h_len + 1) {
            lg++;
        }
        if (!eng_gpu_plan_streamed(&eng->cfg, params, total, gpu_ntt_twiddle_bytes(g->dev, lg),
                                   extra, mode == ENG_STREAM_ALWAYS, sp) ||
            (limit && sp->need > limit)) {
            *base = sp->need ? sp->need : *base;
            return false;
        }
        if (sp->mask) {
            *base = sp->need;
            *room = sp->room;
        }
        return true;
    }
    return fits; /* a copy larger than the device (or the limit) never fits */
}

/* plan_mode on the device thread; false (logged) when the partition goes to the CPU. */
static bool choose_mode(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                        const g16_params_t *params, uint64_t total, uint64_t extra, uint64_t *base,
                        uint64_t *room, eng_stream_plan *sp)
{
    const uint64_t limit = eng->cfg.gpu_mem_limit_bytes;

    if (plan_mode(eng, g, params, total, extra, base, room, sp)) {
        return true;
    }
    log_cpu(g, job, k, srs, "too_large", *base, *room, limit && limit < total ? limit : total);
    return false;
}

/* The options of a copy made with plan sp. */
static g16_gpu_opts_t copy_opts(const eng_t *eng, const eng_stream_plan *sp, bool with_spare)
{
    g16_gpu_opts_t go = {.release_file = true, .spare_assignment = with_spare && !sp->mask};

    if (sp->mask) {
        go.stream_sections = sp->mask;
        go.stream_bytes = (size_t)sp->chunk;
        go.lean_buffers = sp->lean;
        go.lean_own_z = sp->own_z;
        go.share_max = sp->share;
        go.kept_h = eng->cfg.gpu_stream_kept_h;
    }
    return go;
}

/* The page-locked host bytes a copy of srs's parameters made on g now would charge (mu held):
 * those of a streamed copy (list_copy), 0 when g holds one already, is not usable, would make
 * it resident or could not make it. */
static uint64_t copy_host_plan_locked(eng_t *eng, const eng_gpu *g, const eng_srs *srs)
{
    const g16_params_t *params = srs->params;
    eng_stream_plan sp;

    if (!g->usable || srs->tier != ENG_TIER_HOT || !params) {
        return 0;
    }
    for (const eng_gpu_res *r = g->res; r; r = r->next) {
        if (r->srs == srs && r->params == params && !r->freeing) {
            return 0;
        }
    }
    uint64_t base = resident_estimate(params), room = scratch_estimate(params);
    uint64_t extra = eng_shape_device_bytes_locked(eng, srs->id);
    if (!plan_mode(eng, g, params, g->total_bytes, extra, &base, &room, &sp) || !sp.mask) {
        return 0;
    }
    const g16_gpu_opts_t go = copy_opts(eng, &sp, false);
    return g16_gpu_params_pinned_plan(params, &go);
}

eng_reserve eng_gpu_copy_reserve_locked(eng_t *eng, eng_srs *srs, uint64_t *wake_ns, eng_defer *d)
{
    *wake_ns = 0;
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        eng_gpu *g = &eng->gpus[i];
        /* one reservation a device: another waits for its copy */
        uint64_t want = g->copy_srs ? 0 : copy_host_plan_locked(eng, g, srs);
        if (!want) {
            continue;
        }
        eng_reserve r = eng_mem_reserve_locked(eng, want, srs, wake_ns, d);
        if (r != RESERVE_OK) {
            return r;
        }
        g->copy_srs = srs;
        g->copy_reserved = want;
        CZ_LOG(CZ_LOG_INFO, "gpu=%u srs=%s event=copy_reserved host_bytes=%llu", g->ordinal,
               srs->id, (unsigned long long)want);
    }
    return RESERVE_OK;
}

/* Takes g's reservation for srs off it (mu held): its bytes, still counted in the budget. */
static uint64_t copy_unreserve_locked(eng_gpu *g, const eng_srs *srs)
{
    uint64_t b = 0;

    if (g->copy_srs == srs && srs) {
        b = g->copy_reserved;
        g->copy_srs = NULL;
        g->copy_reserved = 0;
    }
    return b;
}

/* Gives g's reservation for srs back to the budget (mu held). */
static void copy_release_locked(eng_t *eng, eng_gpu *g, const eng_srs *srs)
{
    uint64_t b = copy_unreserve_locked(g, srs);
    if (b) {
        eng_mem_release_locked(eng, b);
    }
}

void eng_gpu_copy_release_locked(eng_t *eng, const eng_srs *srs)
{
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        copy_release_locked(eng, &eng->gpus[i], srs);
    }
}

/* Makes the copy (device thread, without mu): from the host points for a streamed copy (they
 * are restored first when dropped: the copy reads them for every proof), else from the file's
 * mapping when the points were dropped. Out of device memory, frees other copies and the
 * scratch and tries again. */
static cuzk_err make_copy(eng_t *eng, eng_gpu *g, eng_srs *srs, const g16_params_t *params,
                          const eng_stream_plan *sp, bool with_spare, bool trimmed,
                          g16_gpu_params **gp, const char **from, cz_diag *dg)
{
    g16_gpu_opts_t go = copy_opts(eng, sp, with_spare);
    cuzk_err err;

    if (sp->mask) {
        err = eng_srs_points_acquire(eng, srs, params, NULL, NULL, NULL, dg);
    } else {
        /* dropped points (or never decoded): decoded from the file straight into the staging */
        err = eng_srs_points_acquire(eng, srs, params, &go.file, &go.file_len, &go.file_fd, dg);
        go.file_pread = go.file_fd >= 0;
    }
    bool reading = err == CUZK_OK;
    for (; err == CUZK_OK;) {
        cz_diag_init(dg);
        err = g16_gpu_params_new(gp, params, g->dev, &go, eng->prove_pool, dg);
        if (err != CUZK_E_NOMEM) {
            break;
        }
        if (evict_one(eng, g)) {
            continue;
        }
        if (trimmed) {
            break;
        }
        trimmed = true;
        if (gpu_dev_trim(g->dev, NULL) != CUZK_OK) {
            break;
        }
    }
    if (reading) {
        eng_srs_points_release(eng, srs);
    }
    if (go.file_pread) {
        close(go.file_fd);
    }
    *from = go.file_pread ? "file" : go.file ? "file_mapping" : "host";
    return err;
}

/* Lists the new copy gp on g; false (gp freed, logged) when the limit or host memory refuses. */
static bool list_copy(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                      const g16_params_t *params, g16_gpu_params *gp, uint64_t extra, uint64_t room,
                      uint64_t t1, bool shape_room, bool shape_planned)
{
    const uint64_t limit = eng->cfg.gpu_mem_limit_bytes;
    uint64_t bytes = g16_gpu_params_device_bytes(gp);

    while (limit && resident_bytes(eng, g) + bytes + extra > limit) {
        if (!evict_one(eng, g)) {
            g16_gpu_params_free(gp);
            log_cpu(g, job, k, srs, "limit", bytes, room, limit);
            return false;
        }
    }
    eng_gpu_res *r = cz_calloc(1, sizeof(*r));
    if (!r) {
        g16_gpu_params_free(gp);
        CZ_LOG(CZ_LOG_WARN, "job=%s k=%zu gpu=%u event=cpu_fallback reason=host_memory",
               qid_of(job), k, g->ordinal);
        return false;
    }
    snprintf(r->id, sizeof(r->id), "%s", srs->id);
    r->srs = srs;
    r->params = params;
    r->gp = gp;
    r->bytes = bytes;
    r->streamed = g16_gpu_params_streamed(gp);
    r->shape_room = shape_room;
    r->shape_planned = shape_planned;
    r->last_used_ns = t1;
    r->host_bytes = r->streamed ? g16_gpu_params_pinned_bytes(gp) : 0;
    pthread_mutex_lock(&eng->mu);
    /* what run_synth reserved for it, else at once (partitions then wait for it) */
    uint64_t pre = copy_unreserve_locked(g, srs);
    if (r->host_bytes > pre) {
        eng_mem_force_locked(eng, r->host_bytes - pre, qid_of(job));
    } else if (pre > r->host_bytes) {
        eng_mem_release_locked(eng, pre - r->host_bytes);
    }
    r->next = g->res;
    g->res = r;
    g->res_bytes += bytes;
    g->n_res++;
    g->n_streamed += r->streamed != 0;
    g->uploads++;
    bool drop = eng_srs_points_should_drop_locked(eng, srs, params);
    pthread_mutex_unlock(&eng->mu);
    if (drop) {
        eng_srs_points_drop(eng, srs); /* every usable device holds them now */
    }
    return true;
}

unsigned eng_gpu_share_locked(const eng_t *eng, const eng_gpu *g, const eng_srs *srs)
{
    (void)eng;
    for (const eng_gpu_res *r = g->res; r; r = r->next) {
        if (r->srs == srs && r->params == srs->params && !r->freeing) {
            return g16_gpu_params_share_max(r->gp);
        }
    }
    return 1;
}

/* Makes and lists a copy of params on g (device thread, without mu), for a device of `total`
 * bytes; NULL (logged) when it cannot. */
static g16_gpu_params *new_copy(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                                const g16_params_t *params, uint64_t extra, uint64_t total,
                                uint64_t *upload_ns)
{
    uint64_t base = resident_estimate(params) + extra, room = scratch_estimate(params);
    g16_gpu_params *gp = NULL;
    eng_stream_plan sp;
    const char *from = "host";
    bool trimmed = false;
    cz_diag dg;
    char buf[600], secs[64];

    if (!choose_mode(eng, g, job, k, srs, params, total, extra, &base, &room, &sp)) {
        return NULL;
    }
    bool with_spare = false;
    if (!make_room(eng, g, job, k, srs, base, room, spare_estimate(params), &trimmed,
                   &with_spare)) {
        return NULL;
    }

    uint64_t t0 = eng_now_ns();
    cz_diag_init(&dg);
    cuzk_err err = make_copy(eng, g, srs, params, &sp, with_spare, trimmed, &gp, &from, &dg);
    uint64_t t1 = eng_now_ns();
    if (err != CUZK_OK) {
        if (is_device_failure(err)) {
            eng_gpu_proof_failed(eng, g, job, k, NULL, err, &dg);
        } else {
            CZ_LOG(CZ_LOG_WARN,
                   "job=%s k=%zu gpu=%u srs=%s event=cpu_fallback reason=resident error=\"%s\"",
                   qid_of(job), k, g->ordinal, srs->id, cz_diag_str(&dg, buf, sizeof(buf)));
        }
        return NULL;
    }
    if (!list_copy(eng, g, job, k, srs, params, gp, sp.mask && !sp.shape ? 0 : extra, room, t1,
                   !sp.mask || sp.shape, extra != 0)) {
        return NULL;
    }
    *upload_ns = t1 - t0;
    CZ_LOG(CZ_LOG_INFO,
           "job=%s k=%zu gpu=%u srs=%s event=resident mode=%s streamed=%s chunk_bytes=%zu "
           "pinned=%s buffers=%u products=%s share=%u bytes=%llu pinned_bytes=%zu from=%s "
           "ms=%.1f",
           qid_of(job), k, g->ordinal, srs->id, sp.mask ? "streamed" : "resident",
           sections_str(secs, sizeof(secs), g16_gpu_params_streamed(gp)),
           g16_gpu_params_stream_bytes(gp), g16_gpu_params_stream_pinned(gp) ? "yes" : "no",
           g16_gpu_params_buffers(gp), sp.mask && !sp.shape ? "host" : "device",
           g16_gpu_params_share_max(gp), (unsigned long long)g16_gpu_params_device_bytes(gp),
           g16_gpu_params_pinned_bytes(gp), from, (double)(t1 - t0) / 1e6);
    if (eng->cfg.timing && job) {
        eng_timing_stage(eng, job, k, "gpu_upload", NULL, t0, t1);
    }
    return gp;
}

g16_gpu_params *eng_gpu_resident(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                                 const g16_params_t *params, uint64_t extra, uint64_t *upload_ns)
{
    g16_gpu_params *gp = NULL;
    eng_defer d = {0};

    *upload_ns = 0;
    pthread_mutex_lock(&eng->mu);
    if (!g->usable) {
        pthread_mutex_unlock(&eng->mu);
        return NULL;
    }
    for (eng_gpu_res *r = g->res; r; r = r->next) {
        if (r->srs == srs && r->params == params && !r->freeing) {
            if (extra && !r->shape_room && !r->shape_planned) {
                /* planned before the shape was recorded (a, b, c from the host): made again
                 * with room for it, so that the device computes them from now on */
                free_copy_locked(eng, g, r, &d, "replanned");
                break;
            }
            r->last_used_ns = eng_now_ns();
            gp = r->gp;
            break;
        }
    }
    uint64_t total = g->total_bytes;
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    if (gp) {
        return gp;
    }
    gp = new_copy(eng, g, job, k, srs, params, extra, total, upload_ns);
    if (!gp) { /* what was reserved for the copy goes back */
        pthread_mutex_lock(&eng->mu);
        copy_release_locked(eng, g, srs);
        pthread_mutex_unlock(&eng->mu);
    }
    return gp;
}

/* ---------------------------------------------------------------------------------------------
 * Staging the next partition while a device proves
 * ------------------------------------------------------------------------------------------- */

/* A device proving now whose spare is free, and its copy of job's parameters (mu held). */
static eng_gpu_res *stage_target_locked(eng_t *eng, const eng_job *job, eng_gpu **out)
{
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        eng_gpu *g = &eng->gpus[i];
        if (!g->usable || g->spare_busy || !g->cur_job[0]) {
            continue;
        }
        for (eng_gpu_res *r = g->res; r; r = r->next) {
            if (r->srs == job->srs && r->params == job->srs->params && !r->freeing &&
                g16_gpu_can_stage(r->gp)) {
                *out = g;
                return r;
            }
        }
    }
    return NULL;
}

void eng_gpu_stage_locked(eng_t *eng, eng_job *job, size_t k)
{
    eng_part *part = &job->parts[k];
    eng_gpu *g = NULL;

    if (part->state != PART_READY || part->staging || part->staged_on) {
        return;
    }
    eng_gpu_res *r = stage_target_locked(eng, job, &g);
    if (!r) {
        return;
    }
    g->spare_busy = true;
    r->stagers++;
    part->staging = true;
    job->running++; /* the assignment stays alive */
    pthread_mutex_unlock(&eng->mu);

    cz_diag dg;
    cz_diag_init(&dg);
    uint64_t t0 = eng_now_ns();
    cuzk_err err = g16_gpu_stage(r->gp, &part->asg, eng->prove_pool, &dg);
    uint64_t t1 = eng_now_ns();
    if (eng->cfg.timing) {
        eng_timing_stage(eng, job, k, "staging", NULL, t0, t1);
    }
    if (err != CUZK_OK) {
        char buf[600], q[CZ_LOG_QUOTED_MAX(sizeof(buf))];
        CZ_LOG(CZ_LOG_WARN, "job=%s k=%zu gpu=%u event=stage_failed action=upload error=%s",
               job->qid, k, g->ordinal,
               cz_log_quote(q, sizeof(q), cz_diag_str(&dg, buf, sizeof(buf))));
    }

    pthread_mutex_lock(&eng->mu);
    r->stagers--;
    part->staging = false;
    job->running--;
    if (err == CUZK_OK && !atomic_load(&job->cancel)) {
        part->staged_on = g;
    } else {
        g->spare_busy = false;
    }
    pthread_cond_broadcast(&eng->prove_cv); /* the device thread, and a copy waiting to go */
}

bool eng_gpu_stage_take(eng_t *eng, eng_gpu *g, g16_gpu_params *gp, eng_job *job, size_t k)
{
    eng_part *part = &job->parts[k];

    pthread_mutex_lock(&eng->mu);
    bool mine = part->staged_on == g;
    pthread_mutex_unlock(&eng->mu);
    /* the spare stays busy until the swap: no staging may start into it before */
    bool hit = mine && g16_gpu_stage_take(gp, &part->asg);
    pthread_mutex_lock(&eng->mu);
    eng_gpu_stage_drop_locked(part);
    g->staged += hit;
    pthread_mutex_unlock(&eng->mu);
    return hit;
}

void eng_gpu_stage_drop_locked(eng_part *part)
{
    if (part->staged_on) {
        part->staged_on->spare_busy = false;
        part->staged_on = NULL;
    }
}

void eng_gpu_proof_failed(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                          cuzk_err err, const cz_diag *dg)
{
    eng_defer d = {0};
    bool disabled = false, nomem = err == CUZK_E_NOMEM;
    unsigned in_row;
    char buf[600];

    CZ_LOG(CZ_LOG_WARN, "job=%s k=%zu gpu=%u event=gpu_error error=\"%s\" action=cpu", qid_of(job),
           k, g->ordinal, cz_diag_str(dg, buf, sizeof(buf)));
    if (nomem) {
        /* The proof's scratch did not fit beside the copies: give the device back its memory. */
        cuzk_err e2 = gpu_dev_trim(g->dev, NULL);
        (void)e2;
    }
    pthread_mutex_lock(&eng->mu);
    g->errors++;
    if (!nomem) {
        g->errors_in_row++;
        if (g->usable && g->errors_in_row >= GPU_MAX_FAILURES_IN_ROW) {
            g->usable = false;
            disabled = true;
            copy_release_locked(eng, g, g->copy_srs);
        }
    }
    in_row = g->errors_in_row;
    /* Failure: the copy used is suspect (made again next time). Out of memory: the others go. */
    for (bool again = true; again;) {
        again = false;
        for (eng_gpu_res *r = g->res; r; r = r->next) {
            bool used = srs && r->srs == srs;
            if (!r->freeing && (disabled || (nomem ? !used : used))) {
                free_copy_locked(eng, g, r, &d, disabled ? "disabled" : "error");
                again = true;
                break;
            }
        }
    }
    pthread_mutex_unlock(&eng->mu);
    eng_defer_run(eng, &d);
    if (disabled) {
        CZ_LOG(CZ_LOG_ERROR, "gpu=%u event=disabled failures_in_row=%u action=cpu_only", g->ordinal,
               in_row);
    }
}

void eng_gpu_srs_demoted_locked(eng_t *eng, eng_srs *s, g16_params_t *params, eng_defer *d)
{
    unsigned copies = 0;

    for (unsigned i = 0; i < eng->n_gpus; i++) {
        for (eng_gpu_res *r = eng->gpus[i].res; r; r = r->next) {
            copies += r->srs == s;
        }
    }
    if (!copies) {
        eng_defer_item it = {.kind = DEFER_FREE_PARAMS, .params = params};
        eng_defer_add(d, &it);
        return;
    }
    eng_gpu_hold *hold = cz_malloc(sizeof(*hold));
    /* As in eng_defer_add: losing these parameters' release is not survivable sensibly. */
    CZ_CHECK(hold != NULL);
    hold->params = params;
    hold->copies = copies;
    for (unsigned i = 0; i < eng->n_gpus; i++) {
        for (eng_gpu_res *r = eng->gpus[i].res; r; r = r->next) {
            if (r->srs == s) {
                CZ_CHECK(r->params == params);
                r->srs = NULL;
                r->hold = hold;
            }
        }
    }
    pthread_cond_broadcast(&eng->prove_cv);
}
