/* perf.c - statistics, the memory monitor and the timing-log reader (perf.h).
 *
 * DESIGN (memory monitor)
 *  threads:  one, "cuzk-memmon", started by perf_memmon_start, joined by perf_memmon_stop.
 *  state:    the sampler owns the file and the peaks while running; `mu` guards `stop` only,
 *            and `cv` wakes the sampler early when stop is set. The peaks are read after the
 *            join. No lock is held while reading /proc, the GPU or writing the file.
 *  gpu:      the sampler opens device 0 itself (gpu.h: a device handle belongs to one thread),
 *            so the command's own device handle is never touched from here.
 */
#include "perf.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/alloc.h"
#include "common/log.h"
#include "gpu/gpu.h"

/* ---- statistics ------------------------------------------------------------------------- */

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void perf_stats_of(perf_stats *out, const double *v, size_t n)
{
    memset(out, 0, sizeof(*out));
    out->n = n;
    if (n == 0) {
        return;
    }
    double *s = cz_malloc(n * sizeof(double));
    CZ_CHECK(s != NULL); /* a few doubles per run: failing here means the process is lost */
    memcpy(s, v, n * sizeof(double));
    qsort(s, n, sizeof(double), cmp_double);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += s[i];
    }
    out->min = s[0];
    out->max = s[n - 1];
    out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    out->mean = sum / (double)n;
    cz_free(s);
}

void perf_compare(perf_cmp *out, const double *a, size_t na, const double *b, size_t nb)
{
    memset(out, 0, sizeof(*out));
    perf_stats_of(&out->a, a, na);
    perf_stats_of(&out->b, b, nb);
    out->diff = out->b.median - out->a.median;
    double ra = out->a.max - out->a.min, rb = out->b.max - out->b.min;
    out->noise = ra > rb ? ra : rb;
    out->enough = na >= PERF_MIN_RUNS && nb >= PERF_MIN_RUNS;
    bool apart = out->b.min > out->a.max || out->a.min > out->b.max;
    out->significant = out->enough && apart && fabs(out->diff) > out->noise;
}

/* ---- memory --------------------------------------------------------------------------- */

uint64_t perf_rss_of(long pid)
{
    char path[64];
    unsigned long long size = 0, resident = 0;
    long page = sysconf(_SC_PAGESIZE);

    if (pid == 0) {
        return cz_rss_now();
    }
    snprintf(path, sizeof(path), "/proc/%ld/statm", pid);
    FILE *f = fopen(path, "r");
    if (!f) {
        return 0;
    }
    int got = fscanf(f, "%llu %llu", &size, &resident);
    fclose(f);
    if (got != 2 || page <= 0) {
        return 0;
    }
    return (uint64_t)resident * (uint64_t)page;
}

void perf_human_bytes(char *out, size_t cap, uint64_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < ARRAY_LEN(units)) {
        v /= 1024;
        u++;
    }
    if (u == 0) {
        snprintf(out, cap, "%llu B", (unsigned long long)n);
    } else {
        snprintf(out, cap, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v, units[u]);
    }
}

#define MEMMON_PERIOD_MS 100

struct perf_memmon {
    perf_memmon_src src[PERF_MEMMON_MAX];
    size_t nsrc;
    bool gpu;
    FILE *f;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool stop;
    struct timespec t0;
    perf_memmon_peak peak;
    gpu_dev *dev;
};

static double ms_since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) * 1e3 + (double)(t.tv_nsec - t0->tv_nsec) * 1e-6;
}

static void memmon_sample(perf_memmon *m)
{
    uint64_t v[PERF_MEMMON_MAX] = {0};
    uint64_t used = 0;

    for (size_t i = 0; i < m->nsrc; i++) {
        v[i] = perf_rss_of(m->src[i].pid);
        if (v[i] > m->peak.rss[i]) {
            m->peak.rss[i] = v[i];
        }
    }
    if (m->dev) {
        gpu_dev_info info;
        if (gpu_dev_get_info(m->dev, &info, NULL) == CUZK_OK && info.total_mem >= info.free_mem) {
            used = info.total_mem - info.free_mem;
            if (used > m->peak.gpu) {
                m->peak.gpu = used;
            }
        }
    }
    m->peak.samples++;
    if (m->f) {
        fprintf(m->f, "%.1f", ms_since(&m->t0));
        for (size_t i = 0; i < m->nsrc; i++) {
            fprintf(m->f, ",%llu", (unsigned long long)v[i]);
        }
        if (m->dev) {
            fprintf(m->f, ",%llu", (unsigned long long)used);
        }
        fputc('\n', m->f);
        fflush(m->f);
    }
}

static void *memmon_main(void *arg)
{
    perf_memmon *m = arg;
    struct timespec next;

    if (m->gpu) {
        if (gpu_count() == 0 || gpu_dev_open(&m->dev, 0, NULL) != CUZK_OK) {
            m->dev = NULL;
            fprintf(stderr, "cuzk-bench: warning: memory monitor: no GPU to sample\n");
        }
    }
    m->peak.have_gpu = m->dev != NULL;
    if (m->f) {
        fprintf(m->f, "t_ms");
        for (size_t i = 0; i < m->nsrc; i++) {
            fprintf(m->f, ",%s_bytes", m->src[i].label);
        }
        fprintf(m->f, m->dev ? ",gpu_used_bytes\n" : "\n");
    }
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&m->mu);
    while (!m->stop) {
        pthread_mutex_unlock(&m->mu);
        memmon_sample(m);
        next.tv_nsec += MEMMON_PERIOD_MS * 1000000L;
        if (next.tv_nsec >= 1000000000L) {
            next.tv_sec++;
            next.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&m->mu);
        while (!m->stop) {
            if (pthread_cond_timedwait(&m->cv, &m->mu, &next) == ETIMEDOUT) {
                break;
            }
        }
    }
    pthread_mutex_unlock(&m->mu);
    memmon_sample(m); /* the state at the end */
    gpu_dev_close(m->dev);
    m->dev = NULL;
    return NULL;
}

bool perf_memmon_start(perf_memmon **out, const char *cmd, const char *csv_path,
                       const perf_memmon_src *src, size_t nsrc, bool gpu)
{
    pthread_condattr_t ca;
    perf_memmon *m = cz_calloc(1, sizeof(*m));

    *out = NULL;
    CZ_CHECK(nsrc >= 1 && nsrc <= PERF_MEMMON_MAX);
    if (!m) {
        cli_error(cmd, "out of memory");
        return false;
    }
    memcpy(m->src, src, nsrc * sizeof(*src));
    m->nsrc = nsrc;
    m->gpu = gpu;
    if (csv_path) {
        m->f = fopen(csv_path, "w");
        if (!m->f) {
            cli_error(cmd, "--memmon %s: %s", csv_path, strerror(errno));
            cz_free(m);
            return false;
        }
    }
    pthread_mutex_init(&m->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&m->cv, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &m->t0);
    if (pthread_create(&m->thread, NULL, memmon_main, m) != 0) {
        cli_error(cmd, "cannot start the memory monitor thread");
        if (m->f) {
            fclose(m->f);
        }
        pthread_cond_destroy(&m->cv);
        pthread_mutex_destroy(&m->mu);
        cz_free(m);
        return false;
    }
    pthread_setname_np(m->thread, "cuzk-memmon");
    *out = m;
    return true;
}

void perf_memmon_stop(perf_memmon *m, perf_memmon_peak *out)
{
    if (!m) {
        return;
    }
    pthread_mutex_lock(&m->mu);
    m->stop = true;
    pthread_cond_signal(&m->cv);
    pthread_mutex_unlock(&m->mu);
    pthread_join(m->thread, NULL);
    if (m->f) {
        fclose(m->f);
    }
    if (out) {
        *out = m->peak;
    }
    pthread_cond_destroy(&m->cv);
    pthread_mutex_destroy(&m->mu);
    cz_free(m);
}

/* ---- timing logs ------------------------------------------------------------------------- */

const char *const perf_stage_order[] = {
    "queue",  "parse",   "srs_load", "gpu_upload", "shape_record", "shape_load", "synthesis",
    "finish", "classes", "products", "staging",    "prep",         "quotient",   "msm_h",
    "msm_l",  "msm_a",   "msm_b_g1", "msm_b_g2",   "assemble",     "verify",
};
const size_t perf_stage_norder = ARRAY_LEN(perf_stage_order);

size_t perf_stage_rank(const char *stage)
{
    for (size_t i = 0; i < perf_stage_norder; i++) {
        if (strcmp(stage, perf_stage_order[i]) == 0) {
            return i;
        }
    }
    return perf_stage_norder;
}

static bool kv_double(const char *line, const char *key, double *out)
{
    char buf[48], *end;
    if (!cz_log_kv(line, key, buf, sizeof(buf))) {
        return false;
    }
    errno = 0;
    *out = strtod(buf, &end);
    return errno == 0 && end != buf && *end == '\0';
}

static bool grow(void **p, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) {
        return true;
    }
    size_t c = *cap ? *cap * 2 : 64;
    void *q = cz_realloc(*p, c * elem);
    if (!q) {
        return false;
    }
    *p = q;
    *cap = c;
    return true;
}

bool perf_log_add_line(perf_log *log, const char *line)
{
    char ev[32], part[24];

    log->lines++;
    if (cz_log_kv(line, "event", ev, sizeof(ev)) && strcmp(ev, "stage") == 0) {
        perf_stage_ev s;
        memset(&s, 0, sizeof(s));
        if (!cz_log_kv(line, "job", s.job, sizeof(s.job)) ||
            !cz_log_kv(line, "stage", s.stage, sizeof(s.stage)) ||
            !cz_log_kv(line, "partition", part, sizeof(part)) ||
            !kv_double(line, "start_ms", &s.start_ms) || !kv_double(line, "ms", &s.ms)) {
            return true; /* not one of ours after all */
        }
        if (!cz_log_kv(line, "kind", s.kind, sizeof(s.kind))) {
            snprintf(s.kind, sizeof(s.kind), "?");
        }
        if (!cz_log_kv(line, "worker", s.worker, sizeof(s.worker))) {
            snprintf(s.worker, sizeof(s.worker), "?");
        }
        s.partition = strcmp(part, "-") == 0 ? -1 : strtol(part, NULL, 10);
        if (!grow((void **)&log->st, &log->capst, log->nst, sizeof(s))) {
            return false;
        }
        log->st[log->nst++] = s;
        return true;
    }
    char status[16];
    if (cz_log_kv(line, "status", status, sizeof(status))) {
        perf_job_ev j;
        memset(&j, 0, sizeof(j));
        if (!cz_log_kv(line, "job", j.job, sizeof(j.job)) ||
            !kv_double(line, "total_ms", &j.total_ms)) {
            return true;
        }
        double parts = 0;
        snprintf(j.status, sizeof(j.status), "%s", status);
        if (!cz_log_kv(line, "kind", j.kind, sizeof(j.kind))) {
            snprintf(j.kind, sizeof(j.kind), "?");
        }
        kv_double(line, "partitions", &parts);
        j.partitions = (long)parts;
        kv_double(line, "queue_ms", &j.queue_ms);
        kv_double(line, "srs_ms", &j.srs_ms);
        kv_double(line, "synth_ms", &j.synth_ms);
        kv_double(line, "prove_ms", &j.prove_ms);
        kv_double(line, "verify_ms", &j.verify_ms);
        if (!grow((void **)&log->jobs, &log->capjobs, log->njobs, sizeof(j))) {
            return false;
        }
        log->jobs[log->njobs++] = j;
    }
    return true;
}

bool perf_log_load(const char *cmd, const char *path, perf_log *log)
{
    char line[4096];
    FILE *f = fopen(path, "r");

    if (!f) {
        cli_error(cmd, "%s: %s", path, strerror(errno));
        return false;
    }
    while (fgets(line, sizeof(line), f)) {
        if (!perf_log_add_line(log, line)) {
            fclose(f);
            cli_error(cmd, "%s: out of memory", path);
            return false;
        }
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (bad) {
        cli_error(cmd, "%s: read error", path);
        return false;
    }
    return true;
}

void perf_log_clear(perf_log *log)
{
    cz_free(log->st);
    cz_free(log->jobs);
    memset(log, 0, sizeof(*log));
}

const perf_job_ev *perf_log_job(const perf_log *log, const char *id)
{
    for (size_t i = 0; i < log->njobs; i++) {
        if (strcmp(log->jobs[i].job, id) == 0) {
            return &log->jobs[i];
        }
    }
    return NULL;
}

double perf_log_stage_sum(const perf_log *log, const char *id, const char *stage)
{
    double sum = 0;
    for (size_t i = 0; i < log->nst; i++) {
        if (strcmp(log->st[i].job, id) == 0 && strcmp(log->st[i].stage, stage) == 0) {
            sum += log->st[i].ms;
        }
    }
    return sum;
}
