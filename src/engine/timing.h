/* timing.h - the engine's detailed per-stage timing (eng_config_t.timing; cuzkd: logging.timing,
 * --timing or CUZK_TIMING=1). Private to src/engine/ (pipeline.c calls it).
 *
 * When timing is on, every stage of every partition becomes one structured log line, written
 * at level info whatever the log threshold (docs/daemon.md, "Detailed timing"):
 *
 *   event=stage job=ID kind=KIND partition=K stage=NAME worker=THREAD start_ms=S ms=D
 *
 * K is the partition index, or "-" for the stages of the whole job (queue, parse); THREAD is
 * the engine thread that ran the stage ("cuzk-synth-0", "cuzk-prove-0"; "queue" for the wait
 * in the queue); S is the start in milliseconds since the engine started (CLOCK_MONOTONIC) and D
 * the duration. Stages, in pipeline order: queue, parse, srs_load, shape_record or shape_load
 * (once per circuit: its compact shape for the pre-compiled evaluator), synthesis (the handler
 * writing the witness, and with the prover backend the a, b, c evaluations), finish
 * (cs_finish: the input constraints, handing over the assignment), products (the pre-compiled
 * evaluator only: a, b, c from the recorded shape), the prover's stages (groth16.h
 * g16_prove_opts_t.on_stage: prep, quotient, msm_h, msm_l, msm_a, msm_b_g1, msm_b_g2,
 * assemble) and verify (public inputs and the pairing check). A partition re-proved after a
 * bad proof repeats its prover stages. `cuzk-bench timeline` draws these lines and `cuzk-bench
 * ab` sums them per job. When timing is off none of this runs.
 */
#ifndef CUZK_ENGINE_TIMING_H
#define CUZK_ENGINE_TIMING_H

#include "engine/internal.h"

/** Partition index of the stages that belong to the whole job. */
#define ENG_TIMING_JOB SIZE_MAX

/** Logs one stage line of `job` (partition k or ENG_TIMING_JOB) that ran from t0_ns to t1_ns
 *  (eng_now_ns clock). worker: the thread's name, or NULL for the calling thread's. Does not
 *  touch the engine lock; job->id and job->kind are read only. */
void eng_timing_stage(const eng_t *eng, const eng_job *job, size_t k, const char *stage,
                      const char *worker, uint64_t t0_ns, uint64_t t1_ns);

/** What the prover's stage observer needs (groth16.h on_stage): eng_timing_prover_stage logs
 *  each stage of partition k of job. */
typedef struct eng_timing_prover_ctx {
    const eng_t *eng;
    const eng_job *job;
    size_t k;
} eng_timing_prover_ctx;

/** The on_stage callback: ctx is an eng_timing_prover_ctx; times are CLOCK_MONOTONIC ms. */
void eng_timing_prover_stage(void *ctx, const char *stage, double t0_ms, double t1_ms);

#endif /* CUZK_ENGINE_TIMING_H */
