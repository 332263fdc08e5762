/* cuzk.h - the public C API: cuzk's proving engine inside your process, without gRPC.
 *
 * Model. An engine is the one cuzkd runs (jobs, priorities, batching, the parameter cache, CPU
 * and GPU provers, every proof verified before it is returned), made from the daemon's own
 * configuration (the TOML file of docs/daemon.md, or the same text in memory; keys only the
 * daemon uses, such as daemon.listen, are accepted and ignored). A request mirrors cuzk.v1
 * SubmitProofRequest (docs/spec/vanilla-proofs.md 4.4): a proof kind, sector size, registered proof,
 * the vanilla proof bytes and what the kind needs beside them. Submitting makes a job; await
 * blocks for its result, poll looks without blocking, cancel stops it. A result mirrors
 * AwaitProofResponse: status, proof bytes (192 per partition), error message, stage times.
 *
 *     cuzk_engine *e = NULL;
 *     cuzk_diag dg;
 *     if (cuzk_engine_new(&e, "/etc/cuzk/cuzk.toml", NULL, &dg) != CUZK_OK) {
 *         fprintf(stderr, "%s\n", dg.message);
 *     }
 *     cuzk_request req = {0};
 *     req.kind = CUZK_KIND_WINDOW_POST;
 *     ...                                  // sizes, vanilla proofs, randomness, miner id
 *     cuzk_proof p;
 *     if (cuzk_prove(e, &req, &p, &dg) == CUZK_OK && p.status == CUZK_JOB_COMPLETED) {
 *         ...                              // p.proof, p.proof_len
 *     }
 *     cuzk_proof_clear(&p);
 *     cuzk_engine_free(e);
 *
 * Errors. Every fallible function returns a cuzk_err (err.h) and takes, last, an optional
 * cuzk_diag that receives the code and a one-line message saying what was wrong; pass NULL when
 * the code is enough. A NULL where a pointer is required, a kind or priority out of range, or a
 * malformed id returns CUZK_E_INVAL (never a crash). A job that fails after it was accepted is
 * not an error of the call that reports it: its status is CUZK_JOB_FAILED with a message.
 *
 * Memory. Pointers passed in are borrowed for the duration of the call: the engine copies
 * what it keeps, so request buffers may be freed or reused as soon as cuzk_submit returns.
 * Results go into caller storage. Only three things are handed out owned: the engine
 * (cuzk_engine_free), a proof's bytes inside cuzk_proof (cuzk_proof_clear) and the metrics
 * text (cuzk_string_free); each release function accepts NULL, and cuzk_proof_clear may be
 * called again on a cleared or zeroed cuzk_proof.
 *
 * Threads. Every function may be called from any thread, concurrently on one engine, until
 * cuzk_engine_free starts; the API keeps no thread-local state and calls no user code, so it
 * does not matter which OS thread a call runs on (a Go goroutine may move between calls).
 * The engine runs its own threads; they are joined by cuzk_engine_free.
 *
 * Process-wide effects. The engine logs key=value lines to stderr (docs/daemon.md) at the
 * configuration's logging.level, which applies to the whole process: the last engine created
 * sets it. Parameters are read from srs.param_cache ($FIL_PROOFS_PARAMETER_CACHE when the
 * configuration does not set it).
 *
 * cgo. Only plain structs, fixed-width integers, NUL-terminated strings and pointer + length
 * pairs: no unions, bit-fields or callbacks. A cuzk_request holds pointers, so cgo's rules ask
 * that the memory it points to be pinned (runtime.Pinner) or C memory for the call; the README
 * ("Using cuzk as a library") shows both.
 *
 * Compatibility. CUZK_API_VERSION changes whenever a declaration here changes incompatibly
 * (a struct's layout included); cuzk_api_version() returns the value the library was built
 * with, so a program can refuse a library that does not match its header.
 */
#ifndef CUZK_CUZK_H
#define CUZK_CUZK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h" /* beside this file */

#ifdef __cplusplus
extern "C" {
#endif

#define CUZK_API_VERSION 1

/** The library's version, "MAJOR.MINOR.PATCH" (static storage). */
CUZK_API const char *cuzk_version(void);

/** The CUZK_API_VERSION the library was built with. */
CUZK_API uint32_t cuzk_api_version(void);

/* ---------------------------------------------------------------------------------------------
 * Values (numbering identical to cuzk.v1's enums)
 * ------------------------------------------------------------------------------------------- */

/** Proof kinds (cuzk.v1 ProofKind). */
typedef enum cuzk_kind {
    CUZK_KIND_UNSPECIFIED = 0,
    CUZK_KIND_POREP = 1,       /* PoRep C2 (POREP_SEAL_COMMIT) */
    CUZK_KIND_SNAP = 2,        /* SnapDeals update (SNAP_DEALS_UPDATE) */
    CUZK_KIND_WINDOW_POST = 3, /* one WindowPoSt partition (WINDOW_POST_PARTITION) */
    CUZK_KIND_WINNING_POST = 4 /* WINNING_POST */
} cuzk_kind;

/** Number of cuzk_kind values, CUZK_KIND_UNSPECIFIED included (sizes cuzk_status's arrays). */
#define CUZK_KIND_COUNT 5

/** Priorities (cuzk.v1 Priority): higher first, FIFO within one. */
typedef enum cuzk_priority {
    CUZK_PRIORITY_DEFAULT = 0, /* the kind's: WinningPoSt CRITICAL, WindowPoSt HIGH, else NORMAL */
    CUZK_PRIORITY_LOW = 1,
    CUZK_PRIORITY_NORMAL = 2,
    CUZK_PRIORITY_HIGH = 3,
    CUZK_PRIORITY_CRITICAL = 4
} cuzk_priority;

/** A job's state as a result reports it (cuzk.v1 AwaitProofResponse.Status). */
typedef enum cuzk_job_status {
    CUZK_JOB_UNKNOWN = 0,   /* only in a cleared cuzk_proof */
    CUZK_JOB_COMPLETED = 1, /* proof holds the proof */
    CUZK_JOB_FAILED = 2,    /* error says why */
    CUZK_JOB_CANCELLED = 3, /* cuzk_cancel, or the engine shut down */
    CUZK_JOB_PENDING = 4    /* not finished: queued or running (await timed out, or poll) */
} cuzk_job_status;

/** "porep-c2", "snap-update", "window-post", "winning-post"; "unspecified" otherwise. */
CUZK_API const char *cuzk_kind_name(uint32_t kind);

/** "unknown", "completed", "failed", "cancelled", "pending"; "unknown" otherwise. */
CUZK_API const char *cuzk_job_status_name(uint32_t status);

/** Bytes of a job id with its NUL: ids are 1 to CUZK_ID_MAX - 1 bytes. */
#define CUZK_ID_MAX 128

/** Bytes of a message with its NUL (longer messages are cut). */
#define CUZK_MESSAGE_MAX 512

/** Bytes of one partition's Groth16 proof (bellperson's encoding: A, B, C compressed). */
#define CUZK_PROOF_BYTES 192

/** Details of a failed call: set by every function that takes one, also on success. */
typedef struct cuzk_diag {
    int32_t code;                   /* the cuzk_err returned */
    char message[CUZK_MESSAGE_MAX]; /* "" on success; else what was wrong, one line */
} cuzk_diag;

/* ---------------------------------------------------------------------------------------------
 * The engine
 * ------------------------------------------------------------------------------------------- */

/** An engine: opaque; every function below takes it first. */
typedef struct cuzk_engine cuzk_engine;

/** Makes and starts an engine from the configuration: the built-in defaults (and the
 *  environment: $FIL_PROOFS_PARAMETER_CACHE, $CUZK_TIMING), then the file config_path, then
 *  config_text, each overriding the one before; either may be NULL. The daemon's command-line
 *  flags have no equivalent here: put the setting in config_text ("[srs]\nparam_cache =
 *  \"/p\"\n"). Starting opens the devices of gpus.devices and starts the worker threads;
 *  parameters are loaded on first use (a missing parameter directory fails the jobs that need
 *  it, not this call).
 *  Out: out   returns owned (cuzk_engine_free); NULL on error.
 *  In:  config_path  a TOML file (borrowed), or NULL.
 *       config_text  TOML text, NUL-terminated (borrowed), or NULL.
 *  Errors: CUZK_E_INVAL (out NULL; an unknown key, a wrong type or a value out of bounds,
 *  message "where:line: key: what"), CUZK_E_FORMAT (syntax), CUZK_E_IO (config_path cannot be
 *  read), CUZK_E_NOMEM. */
CUZK_API cuzk_err cuzk_engine_new(cuzk_engine **out, const char *config_path,
                                  const char *config_text, cuzk_diag *dg);

/** Stops accepting requests (cuzk_submit then returns CUZK_E_CANCELLED) and waits up to
 *  timeout_ms (0: not at all) for queued and running jobs to finish; await, poll, status and
 *  verify keep working. Returns the number of jobs not finished (0 for a NULL engine). */
CUZK_API size_t cuzk_engine_shutdown(cuzk_engine *engine, uint64_t timeout_ms);

/** Cancels every job still queued or running, waits for the stages in progress, joins the
 *  engine's threads and frees everything. NULL does nothing. No other call on this engine may
 *  be in progress when it starts, nor be made afterwards: to stop while other threads await,
 *  cuzk_cancel their jobs (or cuzk_engine_shutdown) and let those calls return first. */
CUZK_API void cuzk_engine_free(cuzk_engine *engine);

/* ---------------------------------------------------------------------------------------------
 * Requests and jobs
 * ------------------------------------------------------------------------------------------- */

/** A proof request: cuzk.v1 SubmitProofRequest. Zero-initialise it, then set what the kind
 *  needs (docs/spec/vanilla-proofs.md 4.4); every pointer is borrowed for the call only.
 *    PoRep        vanilla_proof: the C1 output (SealCommitPhase1Output JSON, or Curio's
 *                 wrapper); sector_number, miner_id.
 *    WinningPoSt  vanilla_proofs: exactly one; randomness; miner_id.
 *    WindowPoSt   vanilla_proofs: one per sector of the partition, in order; randomness;
 *                 miner_id; partition_index.
 *    SnapDeals    vanilla_proofs: one per partition; comm_r_old, comm_r_new, comm_d_new.
 *  Whether the bytes make sense for the kind is found when the job runs: a job whose vanilla
 *  proofs do not parse or verify ends FAILED with the reason. */
typedef struct cuzk_request {
    /* NULL or "": the engine names the job. Else 1..127 bytes of UTF-8 without control
     * characters; the same id with the same content finds the same job. */
    const char *request_id;
    uint32_t kind;             /* cuzk_kind */
    uint32_t priority;         /* cuzk_priority */
    uint64_t sector_size;      /* bytes: 2048, 8388608, ..., 68719476736 */
    uint64_t registered_proof; /* Filecoin's RegisteredSealProof, PoStProof or UpdateProof */
    /* PoRep: the C1 output. */
    const uint8_t *vanilla_proof;
    size_t vanilla_proof_len;
    /* PoSt, SnapDeals: the proofs back to back in one buffer, and n_vanilla_proofs lengths
     * (at most 2349) that sum to the buffer's. */
    const uint8_t *vanilla_proofs;
    const size_t *vanilla_proof_lens;
    size_t n_vanilla_proofs;
    uint64_t sector_number;
    uint64_t miner_id;
    const uint8_t *randomness; /* PoSt: 32 bytes; NULL when absent */
    uint32_t partition_index;  /* WindowPoSt */
    const uint8_t *comm_r_old; /* SnapDeals: 32 bytes each; NULL when absent */
    const uint8_t *comm_r_new;
    const uint8_t *comm_d_new;
} cuzk_request;

/** What cuzk_submit made. */
typedef struct cuzk_job {
    char id[CUZK_ID_MAX];    /* the job id: request_id when given */
    uint32_t queue_position; /* jobs dispatched before this one; 0 once dispatched */
    bool existing;           /* request_id and content matched a job already known */
} cuzk_job;

/** Submits a request; the job runs on the engine's threads. Idempotent by request_id and
 *  content: the same id with the same content names the same job while it is queued, running
 *  or completed (out->existing; a new job after a failed or cancelled one).
 *  Out: out  the job (may be NULL when the id is not needed: request_id names it).
 *  Errors: CUZK_E_INVAL (NULL engine or req; unknown kind or priority; a malformed id; lengths
 *  that do not add up; missing fields the kind needs; no handler for the kind in this build),
 *  CUZK_E_EXISTS (the id names a job with other content still queued or running),
 *  CUZK_E_CANCELLED (the engine is shutting down), CUZK_E_NOMEM. */
CUZK_API cuzk_err cuzk_submit(cuzk_engine *engine, const cuzk_request *req, cuzk_job *out,
                              cuzk_diag *dg);

/** A job's result (AwaitProofResponse), filled by await, poll and prove. */
typedef struct cuzk_proof {
    char job_id[CUZK_ID_MAX];
    uint32_t kind;   /* cuzk_kind */
    uint32_t status; /* cuzk_job_status */
    /* COMPLETED: CUZK_PROOF_BYTES per partition, in partition order; else NULL.
     * Owned: cuzk_proof_clear frees it. */
    uint8_t *proof;
    size_t proof_len;
    char error[CUZK_MESSAGE_MAX]; /* FAILED: why; CANCELLED: maybe why; else "" */
    /* COMPLETED: milliseconds per stage (summed over partitions), and from submission to
     * completion. */
    uint64_t queue_wait_ms;
    uint64_t srs_load_ms;
    uint64_t synthesis_ms;
    uint64_t prove_ms;
    uint64_t verify_ms;
    uint64_t total_ms;
    uint32_t batch_size; /* jobs proved together with this one, itself included */
} cuzk_proof;

/** Waits until job_id finishes, or for at most timeout_ms (0: no limit; status PENDING when it
 *  runs out). out is always written: on error it is cleared.
 *  Errors: CUZK_E_INVAL (NULL argument, malformed id), CUZK_E_NOT_FOUND (no job has this id:
 *  never submitted, or finished longer ago than jobs.retention), CUZK_E_NOMEM. */
CUZK_API cuzk_err cuzk_await(cuzk_engine *engine, const char *job_id, uint64_t timeout_ms,
                             cuzk_proof *out, cuzk_diag *dg);

/** cuzk_await without waiting: PENDING while the job is queued or running. Same errors. */
CUZK_API cuzk_err cuzk_poll(cuzk_engine *engine, const char *job_id, cuzk_proof *out,
                            cuzk_diag *dg);

/** cuzk_submit, then cuzk_await without a time limit (cuzk.v1 Prove). out is always written.
 *  Errors: cuzk_submit's; a job that then fails is reported in out->status, not here. */
CUZK_API cuzk_err cuzk_prove(cuzk_engine *engine, const cuzk_request *req, cuzk_proof *out,
                             cuzk_diag *dg);

/** Frees the proof bytes and zeroes *proof (status UNKNOWN). NULL, a zeroed cuzk_proof and a
 *  cleared one are accepted. */
CUZK_API void cuzk_proof_clear(cuzk_proof *proof);

/** Cancels a queued or running job: a queued one never runs; a running one stops before its
 *  next stage. Its awaits return CANCELLED.
 *  Out: was_running  whether it had started (may be NULL).
 *  Errors: CUZK_E_INVAL (NULL engine or id, malformed id), CUZK_E_NOT_FOUND (no queued or
 *  running job has this id: unknown, or already finished). */
CUZK_API cuzk_err cuzk_cancel(cuzk_engine *engine, const char *job_id, bool *was_running,
                              cuzk_diag *dg);

/** Checks proof (proof_len bytes: CUZK_PROOF_BYTES per partition of the request) against the
 *  request, as the chain would: public inputs computed from the request by the kind's handler,
 *  the verifying key read from the parameter cache (the ".vk" beside the ".params" file).
 *  Needs no job and runs on the calling thread.
 *  Out: valid  true iff every partition's proof verifies.
 *  Errors: CUZK_E_INVAL (NULL argument, a bad request as cuzk_submit says, proof_len not the
 *  request's partitions times CUZK_PROOF_BYTES), CUZK_E_FORMAT (vanilla proofs or proof bytes
 *  malformed), CUZK_E_NOT_IN_GROUP (a proof point off the curve or outside the subgroup),
 *  CUZK_E_IO (the verifying key cannot be read), CUZK_E_NOMEM. */
CUZK_API cuzk_err cuzk_verify(cuzk_engine *engine, const cuzk_request *req, const uint8_t *proof,
                              size_t proof_len, bool *valid, cuzk_diag *dg);

/* ---------------------------------------------------------------------------------------------
 * Status and metrics
 * ------------------------------------------------------------------------------------------- */

/** A consistent snapshot of the engine (cuzk.v1 GetStatus). */
typedef struct cuzk_status {
    uint32_t pending[CUZK_KIND_COUNT];     /* queued jobs, by cuzk_kind ([0] stays 0) */
    uint32_t in_progress[CUZK_KIND_COUNT]; /* dispatched, unfinished jobs, by cuzk_kind */
    uint64_t completed;                    /* jobs finished since start, by outcome */
    uint64_t failed;
    uint64_t cancelled;
    uint64_t uptime_s;
    uint64_t mem_used_bytes;   /* hot parameters + partitions in flight */
    uint64_t mem_budget_bytes; /* memory.total_budget as resolved */
    uint32_t n_gpus;           /* devices proving; 0: the CPU proves */
    uint32_t n_srs_loaded;     /* circuits whose parameters are in memory */
} cuzk_status;

/** Errors: CUZK_E_INVAL (NULL argument), CUZK_E_NOMEM. */
CUZK_API cuzk_err cuzk_get_status(cuzk_engine *engine, cuzk_status *out, cuzk_diag *dg);

/** The Prometheus text exposition of the engine's counters, gauges and histograms (cuzk.v1
 *  GetMetrics). Out: out  returns an owned NUL-terminated string (cuzk_string_free).
 *  Errors: CUZK_E_INVAL (NULL argument), CUZK_E_NOMEM. */
CUZK_API cuzk_err cuzk_metrics(cuzk_engine *engine, char **out, cuzk_diag *dg);

/** Frees a string the library returned; NULL does nothing. */
CUZK_API void cuzk_string_free(char *s);

#ifdef __cplusplus
}
#endif
#endif /* CUZK_CUZK_H */
