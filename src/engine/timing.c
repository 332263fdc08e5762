/* timing.c - one structured log line per stage (see timing.h for the format). */
#include "engine/timing.h"

#include <pthread.h>
#include <stdio.h>

#include "common/log.h"

void eng_timing_stage(const eng_t *eng, const eng_job *job, size_t k, const char *stage,
                      const char *worker, uint64_t t0_ns, uint64_t t1_ns)
{
    char part[24], self[32];

    if (!worker) {
        /* The engine names its threads right after creating them; an unnamed thread reads as
         * the process name, which still tells the lanes apart from the named ones. */
        if (pthread_getname_np(pthread_self(), self, sizeof(self)) != 0 || !self[0]) {
            snprintf(self, sizeof(self), "unnamed");
        }
        worker = self;
    }
    if (k == ENG_TIMING_JOB) {
        snprintf(part, sizeof(part), "-");
    } else {
        snprintf(part, sizeof(part), "%zu", k);
    }
    uint64_t start = t0_ns >= eng->t_start ? t0_ns - eng->t_start : 0;
    uint64_t dur = t1_ns >= t0_ns ? t1_ns - t0_ns : 0;
    /* Written whatever the log level: timing was asked for explicitly. */
    cz_log_write(CZ_LOG_INFO,
                 "event=stage job=%s kind=%s partition=%s stage=%s worker=%s start_ms=%.3f ms=%.3f",
                 job->qid, eng_kind_name(job->kind), part, stage, worker, (double)start / 1e6,
                 (double)dur / 1e6);
}

void eng_timing_prover_stage(void *ctx, const char *stage, double t0_ms, double t1_ms)
{
    const eng_timing_prover_ctx *c = ctx;
    uint64_t t0 = t0_ms > 0 ? (uint64_t)(t0_ms * 1e6) : 0;
    uint64_t t1 = t1_ms > 0 ? (uint64_t)(t1_ms * 1e6) : 0;

    eng_timing_stage(c->eng, c->job, c->k, stage, NULL, t0, t1);
}
