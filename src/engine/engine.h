/* engine.h - the proving engine: jobs, priority scheduling, batching, the SRS manager, the
 * per-partition pipeline (synthesis -> prove -> verify -> assembly) and metrics.
 *
 * Model. A client submits a request (eng_request_t, the fields of cuzk.v1 SubmitProofRequest);
 * the engine makes a job (id = request_id when given, so a resubmission finds the same job),
 * queues it by priority (CRITICAL > HIGH > NORMAL > LOW, FIFO within a priority), dispatches
 * it (alone or in a batch of same-circuit jobs), and runs it through the handler registered for
 * its proof kind (eng_kind_ops): parse -> plan (circuit id, partitions, memory per partition);
 * per partition k: synthesize into a prover constraint system, prove with the parameters of the
 * circuit id, verify with public inputs computed independently by the handler, and finally
 * concatenate the partition proofs in k order. A kind with no handler fails its jobs with
 * "proof kind X is not available in this build"; the engine stays up.
 *
 * Memory: one budget (bytes) covers hot parameters and partition working sets; a partition is
 * synthesized only when its estimate fits, unused parameters are demoted (LRU) to make room,
 * parameters in use never are.
 * GPUs: the devices of eng_config_t.gpu_mode are opened by eng_start (one that cannot be opened
 * is skipped with a warning); each gets one prover thread, which proves partitions on its
 * device with the parameters made resident there on first use (kept per device, least
 * recently used first out when device memory runs short, dropped when the parameters leave the
 * hot tier). A partition that cannot use the device (its parameters do not fit, or the device
 * fails) is proved on the CPU by the same thread; every proof is verified either way. Without a
 * usable device, prover_threads CPU threads prove.
 * Threads: every function may be called from any thread. Callbacks (eng_await_fn,
 * eng_preload_fn) run on an engine thread, or on the caller's thread when the answer is
 * immediate; they must not block and must not call eng_free.
 * Errors: requests that break the protocol (unknown kind, wrong field sizes, bad request_id)
 * are refused with CUZK_E_INVAL and a message in dg; a job that fails later reports FAILED with
 * a message, never a crash.
 */
#ifndef CUZK_ENGINE_ENGINE_H
#define CUZK_ENGINE_ENGINE_H

#include <stdatomic.h>

#include "common/common.h"
#include "common/pool.h"
#include "field/fr.h"
#include "r1cs/r1cs.h"

typedef struct eng eng_t;

/* ---------------------------------------------------------------------------------------------
 * Requests (mirror cuzk.v1; numbering identical to the proto enums)
 * ------------------------------------------------------------------------------------------- */

typedef enum eng_kind {
    ENG_KIND_UNSPECIFIED = 0,
    ENG_KIND_POREP = 1,        /* POREP_SEAL_COMMIT */
    ENG_KIND_SNAP = 2,         /* SNAP_DEALS_UPDATE */
    ENG_KIND_WINDOW_POST = 3,  /* WINDOW_POST_PARTITION */
    ENG_KIND_WINNING_POST = 4, /* WINNING_POST */
    ENG_KIND_COUNT
} eng_kind;

typedef enum eng_prio {
    ENG_PRIO_UNSPECIFIED = 0, /* replaced by eng_default_prio(kind) */
    ENG_PRIO_LOW = 1,
    ENG_PRIO_NORMAL = 2,
    ENG_PRIO_HIGH = 3,
    ENG_PRIO_CRITICAL = 4,
    ENG_PRIO_COUNT
} eng_prio;

/** Outcome of a job (AwaitProofResponse.Status numbering). */
typedef enum eng_status {
    ENG_STATUS_UNKNOWN = 0,
    ENG_STATUS_COMPLETED = 1,
    ENG_STATUS_FAILED = 2,
    ENG_STATUS_CANCELLED = 3,
    ENG_STATUS_TIMEOUT = 4
} eng_status;

typedef struct eng_bytes {
    const uint8_t *ptr;
    size_t len;
} eng_bytes_t;

/** A proof request; every pointer is borrowed for the duration of the call that takes it. */
typedef struct eng_request {
    const char *request_id; /* NULL or "" = the engine makes an id; else see eng_id_check */
    eng_kind kind;
    uint64_t sector_size;
    uint64_t registered_proof;
    eng_prio priority;
    eng_bytes_t vanilla_proof;         /* PoRep: the C1 output */
    const eng_bytes_t *vanilla_proofs; /* PoSt / SnapDeals: one per sector / partition */
    size_t n_vanilla_proofs;
    uint64_t sector_number;
    uint64_t miner_id;
    eng_bytes_t randomness;
    uint32_t partition_index;
    eng_bytes_t comm_r_old, comm_r_new, comm_d_new;
} eng_request_t;

#define ENG_ID_MAX             128
/** Most vanilla_proofs entries any request may carry: a WindowPoSt partition of 32 or 64 GiB
 *  sectors has 2349 sectors (SnapDeals at most 16 partitions, WinningPoSt 1). */
#define ENG_VANILLA_PROOFS_MAX 2349
#define ENG_CIRCUIT_ID_MAX     96

/** "porep-c2", "snap-update", "window-post", "winning-post" (the Rust daemon's names, used in
 *  GetStatus queues); "unspecified" otherwise. */
const char *eng_kind_name(eng_kind kind);
/** Prometheus label value: "porep_c2", "snap_update", "window_post", "winning_post". */
const char *eng_kind_label(eng_kind kind);
/** "low", "normal", "high", "critical". */
const char *eng_prio_name(eng_prio prio);
/** The priority used when a request says UNSPECIFIED: WinningPoSt CRITICAL, WindowPoSt HIGH,
 *  everything else NORMAL (spec vanilla-proofs.md 4.2). */
eng_prio eng_default_prio(eng_kind kind);

/** "unknown", "completed", "failed", "cancelled", "timeout". */
const char *eng_status_name(eng_status status);

/** Checks a request or job id: 1 .. ENG_ID_MAX - 1 bytes of UTF-8 without control characters
 *  (C0, DEL, C1); spaces, brackets, quotes and any other printable character are accepted, as
 *  Curio forms ids with fmt.Sprintf (e.g. "wdpost-1000-0-[95 52 194 205 1 2 3 4]"). `what`
 *  names the field in the message. Errors: CUZK_E_INVAL. */
CZ_MUST_USE cuzk_err eng_id_check(const char *id, const char *what, cz_diag *dg);

/** SHA-256 over everything in the request that determines the proof (kind, sizes, numbers,
 *  every byte string with its length; not the id or the priority): same digest, same work. */
void eng_request_digest(uint8_t out[32], const eng_request_t *req);

/** Checks the protocol rules of spec vanilla-proofs.md 4.4 that do not need a handler: known
 *  kind and priority; request_id syntax; randomness and commitments either empty or 32 bytes;
 *  PoRep has vanilla_proof; PoSt and SnapDeals have vanilla_proofs (WinningPoSt exactly one)
 *  and 32-byte randomness (PoSt) or all three commitments (SnapDeals).
 *  Errors: CUZK_E_INVAL with the rule in dg. */
CZ_MUST_USE cuzk_err eng_request_check(const eng_request_t *req, cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Proof-kind handlers
 * ------------------------------------------------------------------------------------------- */

/** What a handler's parse produces. The engine zeroes it and sets the read-only fields first. */
typedef struct eng_plan {
    /* Set by parse: */
    char circuit_id[ENG_CIRCUIT_ID_MAX]; /* SRS slot, e.g. "porep-32g"; same id = same params */
    size_t num_partitions;               /* >= 1 independent Groth16 proofs, output in k order */
    size_t partition_mem_bytes;          /* working-set estimate of one partition from the start
                                            of its synthesis until its proof is verified */
    cs_counts_t shape;                   /* capacity hint for the prover cs (zero = none) */
    void *state;                         /* handler-owned; released by plan_free */
    size_t fault_entry; /* set by parse or verify_vanilla when it fails because of one vanilla
                           proof: 1 + its index among the request's vanilla proofs
                           (vanilla_proof first when present, then vanilla_proofs); else 0 */
    /* Set by the engine, read-only for the handler: */
    const char *job_id;
    const atomic_bool *cancelled; /* poll in long loops; stop with CUZK_E_CANCELLED */
    cz_pool *pool; /* threads for one partition's synthesis, or NULL (synthesize on the calling
                      thread); shared by every partition being synthesized: calls queue */
} eng_plan_t;

/** A proof kind's handler. Every function may run on any engine thread, several at once for
 *  different plans or partitions; ctx is the pointer given to eng_register_kind.
 *  parse          Validates the request and fills plan (circuit_id, num_partitions >= 1,
 *                 partition_mem_bytes, optionally shape and state): decodes the vanilla
 *                 proofs and checks them against the request, leaving their verification to
 *                 verify_vanilla. req and its buffers are borrowed during the call only: copy
 *                 what later stages need into state.
 *                 Errors: CUZK_E_FORMAT / CUZK_E_INVAL with a message (the job fails with it).
 *  verify_vanilla Verifies natively, outside the circuit, the vanilla proofs of partitions
 *                 [k0, k1) (0 <= k0 <= k1 <= num_partitions): the engine calls it on every
 *                 partition right after parse, so that a proof that cannot satisfy its circuit
 *                 fails with a message naming what is wrong before any synthesis. It may set
 *                 plan->fault_entry and nothing else of plan. May be NULL (nothing to verify).
 *                 Errors: CUZK_E_FORMAT / CUZK_E_INVAL with a message (the job fails with it).
 *  synthesize     Synthesizes partition k (0 <= k < num_partitions) into cs, a fresh prover
 *                 constraint system (the engine finishes it and takes the assignment). Errors
 *                 fail the job; CUZK_E_CANCELLED when plan->cancelled was seen.
 *  public_inputs  Writes the n public inputs of partition k (ONE excluded, n = ic_len - 1 of
 *                 the verifying key) as the chain's verifier computes them, from the request
 *                 and NOT from the synthesized witness; CUZK_E_INVAL if n is not what the
 *                 circuit has. May be NULL: the proof is then verified against the inputs the
 *                 synthesis allocated (which checks the proof but not the circuit's inputs).
 *  plan_free      Releases plan->state (may be NULL when state needs no release).
 *  srs_file       Writes into name (cap bytes) the parameter file name, relative to the
 *                 parameter cache, of circuit_id ("v28-stacked-proof-of-replication-...
 *                 .params"); false when this kind does not know circuit_id.
 *  batchable      Same-circuit jobs of this kind may be dispatched together (PoRep, SnapDeals).
 *  synth_version  The version of synthesize's circuits, bumped with any change to their
 *                 constraints or the order of their variables: it is part of the key recorded
 *                 shapes are saved under (shape.c), so that a shape of another version is
 *                 refused and recorded again.
 */
typedef struct eng_kind_ops {
    cuzk_err (*parse)(void *ctx, const eng_request_t *req, eng_plan_t *plan, cz_diag *dg);
    cuzk_err (*verify_vanilla)(void *ctx, eng_plan_t *plan, size_t k0, size_t k1, cz_diag *dg);
    cuzk_err (*synthesize)(void *ctx, const eng_plan_t *plan, size_t k, cs_t *cs, cz_diag *dg);
    cuzk_err (*public_inputs)(void *ctx, const eng_plan_t *plan, size_t k, fr_t *out, size_t n,
                              cz_diag *dg);
    void (*plan_free)(void *ctx, eng_plan_t *plan);
    bool (*srs_file)(void *ctx, const char *circuit_id, char *name, size_t cap);
    bool batchable;
    unsigned synth_version;
} eng_kind_ops;

/** Installs the handler of `kind` (retains ops and ctx until eng_free). Only before eng_start.
 *  Errors: CUZK_E_INVAL (kind out of range, already registered, engine started, missing parse,
 *  synthesize or srs_file). */
CZ_MUST_USE cuzk_err eng_register_kind(eng_t *eng, eng_kind kind, const eng_kind_ops *ops,
                                       void *ctx, cz_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Engine lifecycle
 * ------------------------------------------------------------------------------------------- */

/** Parameters that do not fit a device (eng_config_t.gpu_streaming): streamed from host memory
 *  for every proof with what fits kept resident (AUTO), every section streamed even where the
 *  whole copy fits (ALWAYS: tests and measurements), or proved on the CPU (NEVER). */
typedef enum eng_gpu_stream {
    ENG_STREAM_AUTO = 0,
    ENG_STREAM_ALWAYS,
    ENG_STREAM_NEVER,
} eng_gpu_stream;

/** "auto", "always" or "never" into *out; false for anything else (out unchanged). */
bool eng_gpu_stream_parse(eng_gpu_stream *out, const char *s);
/** The configuration word of a mode. */
const char *eng_gpu_stream_name(eng_gpu_stream m);

/** Which devices prove (eng_config_t.gpu_mode). */
typedef enum eng_gpu_mode {
    ENG_GPU_AUTO = 0, /* every device gpu_count() reports; none: the CPU */
    ENG_GPU_NONE,     /* the CPU only */
    ENG_GPU_LIST      /* the ordinals in gpu_devices (those that do not open are skipped) */
} eng_gpu_mode;

/** How partitions are synthesized (eng_config_t.synth_mode). */
typedef enum eng_synth_mode {
    ENG_SYNTH_AUTO = 0, /* the pre-compiled evaluator once the circuit's shape is recorded (the
                           first partition of a circuit records it; while another worker is
                           recording, or if recording fails, the prover backend) */
    ENG_SYNTH_PROVER,   /* the prover backend: a, b, c evaluated at every constraint */
    ENG_SYNTH_PCE       /* the pre-compiled evaluator always (workers wait for the recording) */
} eng_synth_mode;

/** "auto", "prover", "pce"; parse returns false for another name. */
const char *eng_synth_mode_name(eng_synth_mode mode);
bool eng_synth_mode_parse(eng_synth_mode *out, const char *name);

/** Most devices an engine uses. */
#define ENG_MAX_GPUS 64

typedef struct eng_config {
    const char *param_cache;       /* directory of .params files (copied) */
    uint64_t mem_budget_bytes;     /* hot parameters + partition working sets */
    unsigned synth_workers;        /* synthesis / preparation threads, >= 1 */
    unsigned prover_threads;       /* threads proving partitions concurrently, >= 1 */
    unsigned prover_pool_threads;  /* worker threads of the MSM pool (0 = prove single-threaded) */
    unsigned srs_load_threads;     /* worker threads decoding parameters (0 = loading thread) */
    unsigned max_active_jobs;      /* dispatched, unfinished jobs (CRITICAL ignores it), >= 1 */
    unsigned max_batch_size;       /* jobs per batch of a batchable kind, >= 1 (1 = no batching) */
    uint64_t max_batch_wait_ms;    /* how long a batch waits to fill */
    bool sort_by_type;             /* NORMAL/LOW: prefer the circuit type dispatched last */
    uint64_t eviction_min_idle_ms; /* unused parameters younger than this are not evicted */
    uint64_t retention_ms;         /* how long finished jobs stay for AwaitProof / idempotency */
    size_t max_retained;           /* at most this many finished jobs are kept */
    bool verify_proofs;            /* verify every partition proof before returning (default on) */
    bool timing;                   /* log one line per stage of every partition (engine/timing.h;
                                      default off: costs nothing then) */
    eng_synth_mode synth_mode;     /* default ENG_SYNTH_AUTO */
    const char *shape_cache;       /* directory where recorded shapes are kept across restarts
                                      (copied; NULL or "" = in memory only) */
    bool keep_host_points;         /* false (default): once every usable GPU holds a circuit's
                                      parameters, their host points are freed (decoded again
                                      from the mapped file when a CPU proof or an upload needs
                                      them) */
    eng_gpu_mode gpu_mode;         /* which devices prove (default ENG_GPU_AUTO) */
    unsigned gpu_devices[ENG_MAX_GPUS]; /* ENG_GPU_LIST: device ordinals, no duplicates */
    size_t n_gpu_devices;               /* ENG_GPU_LIST: 1 .. ENG_MAX_GPUS */
    uint64_t gpu_mem_limit_bytes;       /* per device: most bytes of resident parameters (as
                                           g16_gpu_params_device_bytes counts them); 0 = no
                                           limit but the device's free memory */
    uint64_t gpu_device_memory_bytes;   /* per device: cap on every allocation of the engine
                                           (gpu_dev_set_mem_cap); 0 = none */
    eng_gpu_stream gpu_streaming;       /* default ENG_STREAM_AUTO */
    uint64_t gpu_stream_bytes;          /* chunk buffer bytes of streamed points; 0 = auto */
    uint64_t gpu_h2d_rate;              /* debugging: host-to-device bytes/s; 0 = unpaced */
    unsigned gpu_stream_share;          /* partitions of a job sharing a pass over streamed
                                           points (g16_gpu_opts_t.share_max); 0 or 1 = none */
    unsigned gpu_stream_kept_h;         /* of those, how many keep their h for a pass
                                           (g16_gpu_opts_t.kept_h); 0 = all */
} eng_config_t;

/** Defaults: budget 4 GiB, one worker per CPU, 1 prover thread with a pool of (CPUs - 1),
 *  4 active jobs, batch 1 / 10000 ms, sort_by_type on, retention 1 h / 10000 jobs, verify on,
 *  every GPU (ENG_GPU_AUTO) without a memory limit. */
void eng_config_default(eng_config_t *cfg);

/** Creates an engine (no threads yet, no device opened). Out: returns owned (eng_free).
 *  Errors: CUZK_E_INVAL (bad config: also an ENG_GPU_LIST that is empty, too long or lists an
 *  ordinal twice), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_new(eng_t **out, const eng_config_t *cfg, cz_diag *dg);

/** Opens the devices of cfg.gpu_mode and starts the threads: one prover thread per opened
 *  device ("cuzk-gpu<ordinal>"), or cfg.prover_threads CPU provers when none opened. A listed
 *  ordinal that does not exist or whose device fails to open is logged (warn) and skipped; the
 *  engine then proves with the others, or on the CPU. Errors: CUZK_E_NOMEM (thread creation). */
CZ_MUST_USE cuzk_err eng_start(eng_t *eng, cz_diag *dg);

/** Stops accepting submissions (they then fail with CUZK_E_CANCELLED) and waits up to
 *  timeout_ms for queued and running jobs to finish. Returns the number of jobs not finished. */
size_t eng_drain(eng_t *eng, uint64_t timeout_ms);

/** True when no job is queued or running. */
bool eng_idle(eng_t *eng);

/** Cancels every job (waiters get CANCELLED), waits for running stages, joins the threads and
 *  frees everything. NULL does nothing. */
void eng_free(eng_t *eng);

/* ---------------------------------------------------------------------------------------------
 * Jobs
 * ------------------------------------------------------------------------------------------- */

typedef struct eng_submit_info {
    char job_id[ENG_ID_MAX];
    uint32_t queue_position; /* jobs dispatched before this one; 0 once dispatched */
    bool existing;           /* request_id matched a live or completed job */
} eng_submit_info_t;

/** Submits a request (copied). Idempotency is keyed by the request_id AND the content
 *  (eng_request_digest): the same id with the same content names the same job while it is
 *  queued, running or COMPLETED (out->existing); after a FAILED or CANCELLED attempt it starts
 *  a new one. The same id with other content starts a new job that takes the id over when the
 *  old job has finished (whatever its status; its result is dropped), and is refused with
 *  CUZK_E_EXISTS while the old job is still queued or running: never the old job's proof.
 *  A request of a kind without a handler makes a job that is FAILED at once.
 *  Errors: CUZK_E_INVAL (eng_request_check), CUZK_E_EXISTS, CUZK_E_CANCELLED (draining or
 *  stopped), CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_submit(eng_t *eng, const eng_request_t *req, eng_submit_info_t *out,
                                cz_diag *dg);

/** Per-stage wall-clock milliseconds of a job. synthesis_ms and prove_ms sum the partitions
 *  (parse included in synthesis); total_ms is submission to completion. */
typedef struct eng_timings {
    uint64_t queue_wait_ms, srs_load_ms, synthesis_ms, prove_ms, verify_ms, total_ms;
    uint64_t h2d_bytes; /* host-to-device bytes of the partitions' device proofs (not timings,
                           but reported beside them: what a proof cost the host link) */
} eng_timings_t;

/** A job's result, borrowed by callbacks for the duration of the call. */
typedef struct eng_result {
    const char *job_id;
    eng_kind kind;
    eng_status status;
    const uint8_t *proof; /* num_partitions * 192 bytes when COMPLETED */
    size_t proof_len;
    const char *error; /* "" unless FAILED (or a reason for CANCELLED) */
    eng_timings_t timings;
    size_t batch_size; /* jobs dispatched together with this one, itself included */
} eng_result_t;

/** Called once with the outcome: the job's final result, TIMEOUT (job still running; proof
 *  NULL), or UNKNOWN when the job id is not known. */
typedef void (*eng_await_fn)(void *arg, const eng_result_t *res);

/** Waits asynchronously for job_id (timeout_ms 0 = no timeout); cb runs exactly once, on
 *  this thread when the answer is already known. */
void eng_await(eng_t *eng, const char *job_id, uint64_t timeout_ms, eng_await_fn cb, void *arg);

/** An owned copy of a result (eng_wait). */
typedef struct eng_result_copy {
    eng_result_t r;
    char job_id[ENG_ID_MAX];
    uint8_t *proof_buf;
    char *error_buf;
} eng_result_copy_t;

/** Blocking form of eng_await; the copy is released with eng_result_copy_clear. */
void eng_wait(eng_t *eng, const char *job_id, uint64_t timeout_ms, eng_result_copy_t *out);
/** Non-blocking form of eng_wait: the final result of a finished job, TIMEOUT (with the job's
 *  kind, no proof) while it is queued or running, UNKNOWN when job_id is not known. Released
 *  with eng_result_copy_clear. */
void eng_poll(eng_t *eng, const char *job_id, eng_result_copy_t *out);
void eng_result_copy_clear(eng_result_copy_t *c);

/** Cancels a job: a queued job is removed and never runs; a running one stops before its next
 *  stage. Out: was_running  true if the job had been dispatched. Returns false when the job is
 *  unknown or already finished (nothing changed). */
bool eng_cancel(eng_t *eng, const char *job_id, bool *was_running);

/* ---------------------------------------------------------------------------------------------
 * Status, metrics, parameters
 * ------------------------------------------------------------------------------------------- */

typedef enum eng_tier { ENG_TIER_HOT = 0, ENG_TIER_WARM = 1, ENG_TIER_COLD = 2 } eng_tier;

typedef struct eng_srs_info {
    char circuit_id[ENG_CIRCUIT_ID_MAX];
    eng_tier tier;
    uint64_t size_bytes;
    uint32_t ref_count;
} eng_srs_info_t;

typedef struct eng_queue_info {
    eng_kind kind;
    uint32_t pending;     /* queued, not dispatched */
    uint32_t in_progress; /* dispatched, not finished */
} eng_queue_info_t;

/** A device in use (eng_status_info_t.gpus). */
typedef struct eng_gpu_info {
    unsigned ordinal;
    char name[128];
    uint64_t total_bytes;            /* device memory */
    uint64_t free_bytes;             /* free as the device's thread last read it */
    uint64_t resident_bytes;         /* held by resident parameters */
    uint32_t n_resident;             /* circuits whose parameters are resident */
    char current_job_id[ENG_ID_MAX]; /* the job of the partition being proved; "" when idle */
    eng_kind current_kind;           /* its kind; ENG_KIND_UNSPECIFIED when idle */
    uint64_t proofs;                 /* partitions proved on the device */
    uint64_t cpu_fallbacks;          /* partitions its thread proved on the CPU instead */
    bool usable;                     /* false after repeated device errors: CPU only */
    uint32_t n_streamed;             /* of n_resident: circuits streamed from host memory */
    uint64_t h2d_bytes;              /* host-to-device bytes since the device was opened */
    uint64_t mem_cap_bytes;          /* gpus.device_memory (0 = none) */
} eng_gpu_info_t;

/** Where a running job is (eng_job_info_t.stage): the furthest stage one of its partitions
 *  has reached. */
typedef enum eng_job_stage {
    ENG_JOB_PREPARE = 0, /* the request is waiting for or in the handler's parse */
    ENG_JOB_WAIT,        /* no partition synthesizing or proving: waiting for memory, a worker
                            or a prover */
    ENG_JOB_SRS_LOAD,    /* its parameters are being loaded */
    ENG_JOB_SYNTHESIS,   /* a partition is being synthesized, none proved at the moment */
    ENG_JOB_PROVE,       /* a partition is being proved (and verified) */
    ENG_JOB_CANCELLING,  /* cancelled; stops when its running stages return */
    ENG_JOB_STAGE_COUNT
} eng_job_stage;

/** "prepare", "wait", "srs_load", "synthesis", "prove", "cancelling". */
const char *eng_job_stage_name(eng_job_stage stage);

/** A dispatched, unfinished job (eng_status_info_t.jobs). */
typedef struct eng_job_info {
    char job_id[ENG_ID_MAX];
    eng_kind kind;
    eng_job_stage stage;
    size_t partitions;      /* of its plan; 0 until its request is parsed */
    size_t partitions_done; /* proved and verified */
    uint64_t age_ms;        /* since eng_submit */
    uint64_t running_ms;    /* since dispatch */
} eng_job_info_t;

/** A consistent snapshot (taken under the engine lock). */
typedef struct eng_status_info {
    eng_queue_info_t queues[ENG_KIND_COUNT - 1]; /* kinds 1..4 in order */
    uint64_t completed, failed, cancelled;
    uint64_t uptime_s;
    uint64_t mem_used_bytes, mem_budget_bytes;
    eng_srs_info_t *srs; /* hot and warm entries; owned, free with eng_status_clear */
    size_t n_srs;
    eng_gpu_info_t *gpus; /* the devices in use, in opening order; owned like srs */
    size_t n_gpus;
    eng_job_info_t *jobs; /* the dispatched, unfinished jobs, in dispatch order; owned like srs */
    size_t n_jobs;
} eng_status_info_t;

CZ_MUST_USE cuzk_err eng_get_status(eng_t *eng, eng_status_info_t *out, cz_diag *dg);
void eng_status_clear(eng_status_info_t *st);

/** Prometheus text exposition of counters, gauges and stage histograms. Out: *out returns an
 *  owned NUL-terminated string (cz_free). Errors: CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_metrics_text(eng_t *eng, char **out, cz_diag *dg);

/** Outcome of a preload: err != CUZK_OK with a message when it failed. */
typedef void (*eng_preload_fn)(void *arg, cuzk_err err, const char *msg, bool already_loaded,
                               uint64_t load_ms);

/** Loads circuit_id's parameters into the hot tier on a worker thread (never blocks the
 *  caller); cb runs once. Unknown circuit ids fail with CUZK_E_INVAL. */
void eng_srs_preload(eng_t *eng, const char *circuit_id, eng_preload_fn cb, void *arg);

/** Drops circuit_id's parameters to the cold tier (memory freed, file unmapped) unless a job
 *  uses them. Out: was_loaded (hot or warm before), freed_bytes (0 when in use). Returns
 *  CUZK_E_INVAL (unknown id, message in dg) or CUZK_OK. */
CZ_MUST_USE cuzk_err eng_srs_evict(eng_t *eng, const char *circuit_id, bool *was_loaded,
                                   uint64_t *freed_bytes, cz_diag *dg);

#endif /* CUZK_ENGINE_ENGINE_H */
