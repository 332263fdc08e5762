/* metrics.c - counters, stage histograms and their Prometheus text exposition (format 0.0.4).
 * Names follow the Rust cuzk daemon where it has one (cuzk_proofs_completed_total,
 * cuzk_proofs_failed_total, cuzk_uptime_seconds, cuzk_queue_depth, cuzk_running_jobs,
 * cuzk_proofs_completed{proof_kind}); the rest are ours. All values are read under eng->mu. */
#include "engine/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

const double eng_hist_bounds[ENG_HIST_BUCKETS] = {0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1,
                                                  2.5,   5,     10,   30,   60,  120,  300, 600};

static const char *const stage_names[ENG_STAGE_COUNT] = {"queue_wait", "srs_load", "synthesis",
                                                         "prove",      "verify",   "total"};

void eng_hist_observe(eng_hist *h, double seconds)
{
    size_t b = 0;
    while (b < ENG_HIST_BUCKETS && seconds > eng_hist_bounds[b]) {
        b++;
    }
    h->counts[b]++;
    h->n++;
    h->sum += seconds;
}

void eng_metrics_job_done_locked(eng_t *eng, const eng_job *job)
{
    if (job->status != ENG_STATUS_COMPLETED) {
        return; /* distributions describe successful proofs only */
    }
    for (int s = 0; s < ENG_STAGE_COUNT; s++) {
        eng_hist_observe(&eng->m.stage[job->kind][s], (double)job->ns[s] / 1e9);
    }
}

/* A growing text buffer; `failed` sticks after the first allocation failure. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    bool failed;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...) CZ_PRINTF(2, 3);

static void sb_printf(sbuf *b, const char *fmt, ...)
{
    if (b->failed) {
        return;
    }
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
        if (n < 0) {
            b->failed = true;
            return;
        }
        if ((size_t)n < b->cap - b->len) {
            b->len += (size_t)n;
            return;
        }
        size_t cap = (b->cap + (size_t)n + 1) * 2;
        char *q = cz_realloc(b->p, cap);
        if (!q) {
            b->failed = true;
            return;
        }
        b->p = q;
        b->cap = cap;
    }
}

static void family(sbuf *b, const char *name, const char *type, const char *help)
{
    sb_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void per_kind(sbuf *b, const char *name, const char *type, const char *help,
                     const uint64_t *v)
{
    family(b, name, type, help);
    for (int k = 1; k < ENG_KIND_COUNT; k++) {
        sb_printf(b, "%s{proof_kind=\"%s\"} %llu\n", name, eng_kind_label((eng_kind)k),
                  (unsigned long long)v[k]);
    }
}

/* The per-device families, one line per device in use each; gpu_value gives the values. */
static const struct {
    const char *name, *type, *help;
} gpu_families[] = {
    {"cuzk_gpu_proofs_total", "counter", "Partition proofs computed on the device"},
    {"cuzk_gpu_cpu_fallbacks_total", "counter",
     "Partitions the device's thread proved on the CPU instead"},
    {"cuzk_gpu_errors_total", "counter",
     "Device failures (runtime errors, device memory, proofs that did not verify)"},
    {"cuzk_gpu_uploads_total", "counter", "Parameter sets made resident on the device"},
    {"cuzk_gpu_evictions_total", "counter",
     "Resident parameter sets freed to make room (least recently used)"},
    {"cuzk_gpu_staged_total", "counter",
     "Partitions proved from inputs and aux uploaded while the device proved another one"},
    {"cuzk_gpu_resident_bytes", "gauge", "Device memory held by resident parameters"},
    {"cuzk_gpu_resident_circuits", "gauge", "Circuits whose parameters are resident on the device"},
    {"cuzk_gpu_memory_total_bytes", "gauge", "Device memory"},
    {"cuzk_gpu_memory_free_bytes", "gauge",
     "Free device memory as last read by the device's thread"},
    {"cuzk_gpu_usable", "gauge",
     "1 while the device proves; 0 after repeated failures (its thread proves on the CPU)"},
    {"cuzk_gpu_h2d_bytes_total", "counter",
     "Bytes copied from host memory to the device (parameters, streamed points, a, b, c, "
     "inputs and aux)"},
    {"cuzk_gpu_streamed_circuits", "gauge",
     "Circuits whose parameters the device streams from host memory for every proof"},
    {"cuzk_gpu_memory_cap_bytes", "gauge",
     "The cap on the engine's device memory (gpus.device_memory; 0 = none)"},
};

/* Device g's value of gpu_families[f]. */
static uint64_t gpu_value(const eng_gpu *g, size_t f)
{
    const uint64_t v[] = {
        g->proofs,      g->cpu_fallbacks,
        g->errors,      g->uploads,
        g->evictions,   g->staged,
        g->res_bytes,   g->n_res,
        g->total_bytes, g->free_bytes,
        g->usable,      gpu_dev_h2d_bytes(g->dev),
        g->n_streamed,  g->eng->cfg.gpu_device_memory_bytes}; /* gpu_families' order */
    _Static_assert(ARRAY_LEN(v) == ARRAY_LEN(gpu_families), "one value per family");
    return v[f];
}

/* The device families (mu held). */
static void gpu_metrics(sbuf *b, const eng_t *eng)
{
    family(b, "cuzk_gpus", "gauge", "Devices in use (each with its prover thread)");
    sb_printf(b, "cuzk_gpus %u\n", eng->n_gpus);
    for (size_t f = 0; f < ARRAY_LEN(gpu_families); f++) {
        family(b, gpu_families[f].name, gpu_families[f].type, gpu_families[f].help);
        for (unsigned i = 0; i < eng->n_gpus; i++) {
            sb_printf(b, "%s{gpu=\"%u\"} %llu\n", gpu_families[f].name, eng->gpus[i].ordinal,
                      (unsigned long long)gpu_value(&eng->gpus[i], f));
        }
    }
}

/* A Prometheus label value (text format 0.0.4): backslash, double quote and line feed escaped
 * as \\, \" and \n; everything else, any UTF-8 included, as it is. `out` has room for
 * 2 strlen(in) + 1 bytes. Job ids are arbitrary strings from requests. */
static void label_escape(char *out, const char *in)
{
    for (; *in; in++) {
        if (*in == '\\' || *in == '"') {
            *out++ = '\\';
            *out++ = *in;
        } else if (*in == '\n') {
            *out++ = '\\';
            *out++ = 'n';
        } else {
            *out++ = *in;
        }
    }
    *out = '\0';
}

/* Progress of the running jobs whose plan is made (mu held): partitions and partitions proved,
 * as GetStatus running_jobs has them (eng_get_status). */
static void job_metrics(sbuf *b, const eng_t *eng)
{
    static const char *const names[2] = {"cuzk_job_partitions", "cuzk_job_partitions_done"};
    static const char *const helps[2] = {"Partitions of a running job",
                                         "Partitions of a running job proved and verified"};
    char label[2 * ENG_ID_MAX + 1];

    for (int f = 0; f < 2; f++) {
        family(b, names[f], "gauge", helps[f]);
        for (const eng_job *j = eng->active.head; j; j = j->next) {
            if (!j->plan_valid) {
                continue;
            }
            label_escape(label, j->id);
            sb_printf(b, "%s{job=\"%s\",proof_kind=\"%s\"} %zu\n", names[f], label,
                      eng_kind_label(j->kind), f == 0 ? j->plan.num_partitions : j->parts_done);
        }
    }
}

/* The memory gauges (mu held): the budget's accounting, what partitions really hold, and the
 * process's resident memory (rss, rss_peak: read by the caller). */
static void memory_metrics(sbuf *b, const eng_t *eng, size_t rss, size_t rss_peak)
{
    const struct {
        const char *name, *help;
        uint64_t v;
    } g[] = {
        {"cuzk_memory_budget_bytes", "Memory budget for parameters and partitions",
         eng->cfg.mem_budget_bytes},
        {"cuzk_memory_used_bytes", "Budget in use (hot parameters + partitions + queued requests)",
         eng->mem_used + eng->req_bytes},
        {"cuzk_memory_queued_requests_bytes", "Budget held by the requests of queued jobs",
         eng->req_bytes},
        {"cuzk_memory_partitions_bytes", "Budget reserved by partitions in flight", eng->mem_parts},
        {"cuzk_memory_spare_assignments_bytes",
         "Budget held by proved partitions' assignments kept for reuse",
         eng_spare_bytes_locked(eng)},
        {"cuzk_memory_used_peak_bytes", "Highest budget in use since start", eng->mem_used_peak},
        {"cuzk_partition_assignments_bytes",
         "Host bytes of the synthesized partitions' assignments held now (not estimates)",
         eng->asg_bytes},
        {"cuzk_partition_assignments_peak_bytes",
         "Most host bytes of partition assignments held at once since start", eng->asg_bytes_peak},
        {"cuzk_partition_assignments_peak", "Most partition assignments held at once since start",
         eng->asg_held_peak},
        {"cuzk_process_resident_bytes", "Resident memory of the process now", rss},
        {"cuzk_process_resident_peak_bytes", "Highest resident memory of the process since start",
         rss_peak},
    };
    for (size_t i = 0; i < ARRAY_LEN(g); i++) {
        family(b, g[i].name, "gauge", g[i].help);
        sb_printf(b, "%s %llu\n", g[i].name, (unsigned long long)g[i].v);
    }
}

cuzk_err eng_metrics_text(eng_t *eng, char **out, cz_diag *dg)
{
    sbuf b = {.cap = 8192};
    b.p = cz_malloc(b.cap);
    *out = NULL;
    if (!b.p) {
        return cz_fail(dg, CUZK_E_NOMEM, "metrics");
    }
    b.p[0] = '\0';
    size_t rss = cz_rss_now(), rss_peak = cz_rss_peak(); /* /proc reads: before the lock */

    pthread_mutex_lock(&eng->mu);
    const eng_metrics *m = &eng->m;
    uint64_t completed = 0, failed = 0, cancelled = 0, pending = 0;
    uint64_t pend[ENG_KIND_COUNT] = {0}, prog[ENG_KIND_COUNT] = {0};
    for (int k = 1; k < ENG_KIND_COUNT; k++) {
        completed += m->completed[k];
        failed += m->failed[k];
        cancelled += m->cancelled[k];
        pend[k] = eng->pending_by_kind[k];
        prog[k] = eng->active_by_kind[k];
        pending += pend[k];
    }

    family(&b, "cuzk_proofs_completed_total", "counter", "Total proofs completed");
    sb_printf(&b, "cuzk_proofs_completed_total %llu\n", (unsigned long long)completed);
    family(&b, "cuzk_proofs_failed_total", "counter", "Total proofs failed");
    sb_printf(&b, "cuzk_proofs_failed_total %llu\n", (unsigned long long)failed);
    family(&b, "cuzk_proofs_cancelled_total", "counter", "Total proofs cancelled");
    sb_printf(&b, "cuzk_proofs_cancelled_total %llu\n", (unsigned long long)cancelled);
    family(&b, "cuzk_uptime_seconds", "gauge", "Daemon uptime");
    sb_printf(&b, "cuzk_uptime_seconds %llu\n",
              (unsigned long long)((eng_now_ns() - eng->t_start) / 1000000000u));
    family(&b, "cuzk_queue_depth", "gauge", "Jobs queued and not yet dispatched");
    sb_printf(&b, "cuzk_queue_depth %llu\n", (unsigned long long)pending);
    family(&b, "cuzk_running_jobs", "gauge", "Jobs dispatched and not finished");
    sb_printf(&b, "cuzk_running_jobs %zu\n", eng->active.n);
    job_metrics(&b, eng);

    per_kind(&b, "cuzk_proofs_submitted", "counter", "Per proof-kind submissions", m->submitted);
    per_kind(&b, "cuzk_proofs_completed", "counter", "Per proof-kind completions", m->completed);
    per_kind(&b, "cuzk_proofs_failed", "counter", "Per proof-kind failures", m->failed);
    per_kind(&b, "cuzk_proofs_cancelled", "counter", "Per proof-kind cancellations", m->cancelled);
    per_kind(&b, "cuzk_queue_pending", "gauge", "Queued jobs per proof kind", pend);
    per_kind(&b, "cuzk_queue_in_progress", "gauge", "Running jobs per proof kind", prog);

    memory_metrics(&b, eng, rss, rss_peak);

    family(&b, "cuzk_srs_bytes", "gauge", "Parameter file size per circuit and tier");
    for (const eng_srs *s = eng->srs; s; s = s->next) {
        static const char *const tiers[] = {"hot", "warm", "cold"};
        sb_printf(&b, "cuzk_srs_bytes{circuit_id=\"%s\",tier=\"%s\"} %llu\n", s->id, tiers[s->tier],
                  (unsigned long long)s->file_bytes);
    }
    family(&b, "cuzk_srs_refs", "gauge", "Partitions in flight using the parameters");
    for (const eng_srs *s = eng->srs; s; s = s->next) {
        sb_printf(&b, "cuzk_srs_refs{circuit_id=\"%s\"} %u\n", s->id, s->refs);
    }
    family(&b, "cuzk_srs_loads_total", "counter", "Parameter loads into the hot tier");
    sb_printf(&b, "cuzk_srs_loads_total %llu\n", (unsigned long long)m->srs_loads);
    family(&b, "cuzk_srs_evictions_total", "counter", "Parameters demoted from the hot tier");
    sb_printf(&b, "cuzk_srs_evictions_total %llu\n", (unsigned long long)m->srs_evictions);
    family(&b, "cuzk_verify_failures_total", "counter",
           "Partition proofs that failed verification");
    sb_printf(&b, "cuzk_verify_failures_total %llu\n", (unsigned long long)m->verify_failures);
    family(&b, "cuzk_verify_retries_total", "counter", "Partitions re-proved after a bad proof");
    sb_printf(&b, "cuzk_verify_retries_total %llu\n", (unsigned long long)m->verify_retries);
    family(&b, "cuzk_cpu_proofs_total", "counter",
           "Partition proofs computed on the CPU (device fallbacks included)");
    sb_printf(&b, "cuzk_cpu_proofs_total %llu\n", (unsigned long long)m->cpu_proofs);
    gpu_metrics(&b, eng);
    family(&b, "cuzk_batches_total", "counter", "Dispatch units of more than one job");
    sb_printf(&b, "cuzk_batches_total %llu\n", (unsigned long long)m->batches);
    family(&b, "cuzk_batched_jobs_total", "counter", "Jobs dispatched in batches");
    sb_printf(&b, "cuzk_batched_jobs_total %llu\n", (unsigned long long)m->batched_jobs);
    family(&b, "cuzk_synthesis_partitions_total", "counter",
           "Partitions synthesized, by path (pce: witness + recorded shape; prover: backend)");
    sb_printf(&b, "cuzk_synthesis_partitions_total{path=\"pce\"} %llu\n",
              (unsigned long long)m->pce_partitions);
    sb_printf(&b, "cuzk_synthesis_partitions_total{path=\"prover\"} %llu\n",
              (unsigned long long)m->prover_partitions);
    family(&b, "cuzk_spare_assignments_reused_total", "counter",
           "Partitions whose witness went into a previous partition's assignment");
    sb_printf(&b, "cuzk_spare_assignments_reused_total %llu\n",
              (unsigned long long)m->spares_reused);
    family(&b, "cuzk_shapes_total", "counter", "Circuit shapes recorded or loaded from files");
    sb_printf(&b, "cuzk_shapes_total{how=\"recorded\"} %llu\n",
              (unsigned long long)m->shapes_recorded);
    sb_printf(&b, "cuzk_shapes_total{how=\"loaded\"} %llu\n", (unsigned long long)m->shapes_loaded);
    family(&b, "cuzk_shape_record_seconds_total", "counter",
           "Time spent recording or loading circuit shapes");
    sb_printf(&b, "cuzk_shape_record_seconds_total %.6f\n", (double)m->shape_record_ns / 1e9);

    family(&b, "cuzk_stage_duration_seconds", "histogram",
           "Per-job stage time of completed proofs (synthesis and prove summed over partitions)");
    for (int k = 1; k < ENG_KIND_COUNT; k++) {
        for (int s = 0; s < ENG_STAGE_COUNT; s++) {
            const eng_hist *h = &m->stage[k][s];
            if (!h->n) {
                continue;
            }
            const char *kl = eng_kind_label((eng_kind)k);
            uint64_t cum = 0;
            for (int i = 0; i < ENG_HIST_BUCKETS; i++) {
                cum += h->counts[i];
                sb_printf(&b,
                          "cuzk_stage_duration_seconds_bucket{proof_kind=\"%s\",stage=\"%s\","
                          "le=\"%g\"} %llu\n",
                          kl, stage_names[s], eng_hist_bounds[i], (unsigned long long)cum);
            }
            cum += h->counts[ENG_HIST_BUCKETS];
            sb_printf(&b,
                      "cuzk_stage_duration_seconds_bucket{proof_kind=\"%s\",stage=\"%s\","
                      "le=\"+Inf\"} %llu\n",
                      kl, stage_names[s], (unsigned long long)cum);
            sb_printf(&b, "cuzk_stage_duration_seconds_sum{proof_kind=\"%s\",stage=\"%s\"} %.6f\n",
                      kl, stage_names[s], h->sum);
            sb_printf(&b,
                      "cuzk_stage_duration_seconds_count{proof_kind=\"%s\",stage=\"%s\"} %llu\n",
                      kl, stage_names[s], (unsigned long long)h->n);
        }
    }
    pthread_mutex_unlock(&eng->mu);

    if (b.failed) {
        cz_free(b.p);
        return cz_fail(dg, CUZK_E_NOMEM, "metrics text");
    }
    *out = b.p;
    return CUZK_OK;
}
