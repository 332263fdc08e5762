/* internal.h - engine state shared by engine.c (jobs, API), sched.c (dispatcher), pipeline.c
 * (workers, provers), srs.c (parameters, memory budget) and metrics.c.
 *
 * Everything below is guarded by eng_t.mu unless a field says otherwise. Work that must not
 * run under the lock (handler calls, waiter callbacks, freeing large buffers) is collected in
 * an eng_defer while the lock is held and run by eng_defer_run after unlocking. Threads, wakeups,
 * the lock order and the memory budget: docs/engine.md.
 */
#ifndef CUZK_ENGINE_INTERNAL_H
#define CUZK_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "engine/engine.h"

#include "common/log.h"
#include "common/pool.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"

/* ---------------------------------------------------------------------------------------------
 * Metrics (metrics.c)
 * ------------------------------------------------------------------------------------------- */

enum {
    ENG_STAGE_QUEUE_WAIT,
    ENG_STAGE_SRS_LOAD,
    ENG_STAGE_SYNTHESIS,
    ENG_STAGE_PROVE,
    ENG_STAGE_VERIFY,
    ENG_STAGE_TOTAL,
    ENG_STAGE_COUNT
};

#define ENG_HIST_BUCKETS 16

/** A Prometheus histogram over seconds with fixed upper bounds (eng_hist_bounds). */
typedef struct eng_hist {
    uint64_t counts[ENG_HIST_BUCKETS + 1]; /* last = +Inf */
    uint64_t n;
    double sum;
} eng_hist;

extern const double eng_hist_bounds[ENG_HIST_BUCKETS];

void eng_hist_observe(eng_hist *h, double seconds);

typedef struct eng_metrics {
    uint64_t completed[ENG_KIND_COUNT], failed[ENG_KIND_COUNT], cancelled[ENG_KIND_COUNT];
    uint64_t submitted[ENG_KIND_COUNT];
    uint64_t verify_failures, verify_retries;
    uint64_t cpu_proofs; /* partition proofs computed on the CPU (fallbacks included) */
    uint64_t srs_loads, srs_evictions, batches, batched_jobs;
    uint64_t pce_partitions, prover_partitions; /* partitions synthesized by each path */
    uint64_t shapes_recorded, shapes_loaded, shape_record_ns;
    uint64_t spares_reused; /* partitions that wrote into a previous proof's assignment */
    eng_hist stage[ENG_KIND_COUNT][ENG_STAGE_COUNT];
} eng_metrics;

/* ---------------------------------------------------------------------------------------------
 * Recorded circuit shapes (shape.c)
 * ------------------------------------------------------------------------------------------- */

struct eng_defer;

/* RERECORD: a shape loaded from the cache proved stale (eng_shape_stale_locked); the next
 * worker records it again without reading the file. */
typedef enum { SHAPE_RECORDING, SHAPE_READY, SHAPE_FAILED, SHAPE_RERECORD } eng_shape_state;

/** One circuit's compact shape (r1cs.h), recorded once and shared read-only by every
 *  partition of that circuit; charged to the memory budget while READY; kept until eng_free. */
typedef struct eng_shape {
    char id[ENG_CIRCUIT_ID_MAX]; /* the plan's circuit id */
    eng_shape_state state;
    cs_shape_t shape;   /* READY only */
    uint64_t bytes;     /* cs_shape_bytes, charged to eng->mem_used while READY */
    bool loaded;        /* READY from the cache file, not recorded by this process */
    bool retired;       /* stale: off eng->shapes, on eng->retired_shapes until unused */
    unsigned users;     /* partitions whose assignment was made with it (eng_part.shape_ref) */
    uint64_t dev_bytes; /* g16_gpu_shape_device_estimate, counted once when READY (a pass
                         * over the row pointers: 0.3 s at 32 GiB PoRep) */
    struct eng_shape *next;
} eng_shape;

/* ---------------------------------------------------------------------------------------------
 * Parameters (srs.c)
 * ------------------------------------------------------------------------------------------- */

/* What a mapping of a parameter file was made from. A mapping is read again only while a fresh
 * stat() of its path gives the same device, inode, size and modification time: the pages of a
 * file truncated in place raise SIGBUS when touched, and a file rewritten in place shows other
 * bytes. */
typedef struct eng_file_id {
    uint64_t dev, ino, size;
    int64_t mtime_sec, mtime_nsec;
} eng_file_id;

void eng_file_id_of(eng_file_id *out, const struct stat *st);
bool eng_file_id_eq(const eng_file_id *a, const eng_file_id *b);

typedef struct eng_srs {
    char id[ENG_CIRCUIT_ID_MAX];
    char *path;
    eng_tier tier;
    bool loading;          /* a thread is decoding the file; tier becomes HOT or stays */
    uint64_t file_bytes;   /* .params size, charged to the budget while HOT or loading */
    unsigned refs;         /* partitions in flight using the parameters */
    uint64_t last_used_ns; /* LRU clock */
    g16_params_t *params;  /* HOT only; read-only, shared by provers */
    g16_pvk_t pvk;         /* HOT only */
    void *map;             /* file mapping while HOT or WARM; read only while loading */
    size_t map_len;
    eng_file_id map_id; /* the file the mapping was made from */
    bool change_noted;  /* the HOT entry's file changed on disk and this was logged */
    bool misfit;        /* HOT, and a partition found they do not fit the circuit: demoted once
                           unused, so that the next job reads the file again */
    /* Host points (HOT only): `params` may drop its point vectors once every usable device
     * holds them (eng_srs_points_*). points_busy: a thread is dropping or restoring them;
     * point_readers: threads reading them (an upload or a CPU proof). */
    bool points_dropped, points_busy;
    unsigned point_readers;
    struct eng_srs *next;
} eng_srs;

/* ---------------------------------------------------------------------------------------------
 * Jobs
 * ------------------------------------------------------------------------------------------- */

typedef enum { JOB_QUEUED, JOB_ACTIVE, JOB_DONE } eng_job_state;
typedef enum { PART_WAIT, PART_SYNTH, PART_READY, PART_PROVE, PART_DONE } eng_part_state;

typedef struct eng_part {
    eng_part_state state;
    cs_assignment_t asg;         /* READY: the prover assignment; with `shape` and no a, b, c (a
                            device computes them) only inputs, aux, m and the densities */
    const cs_shape_t *shape;     /* the recorded shape it was synthesized with, or NULL */
    struct eng_shape *shape_ref; /* its entry, one of the entry's users; NULL without */
    bool shape_retried;          /* synthesized again after a stale shape (eng_shape_stale) */
    uint64_t reserved;           /* budget bytes held from admission until verified */
    bool holds_srs;              /* a reference on job->srs */
    uint64_t asg_bytes;          /* cs_assignment_bytes(&asg), counted in eng->asg_bytes */
    bool staging;                /* READY, being staged to a device (eng_gpu_stage_locked): no
                                prover takes it until that ends */
    struct eng_gpu *staged_on;   /* its inputs and aux wait in that device's spare buffer */
    g16_classes *classes;        /* READY: its classes for a group, built ahead, or NULL */
    bool shed;                   /* PROVE in a group past its front: inputs and aux released,
                                    `reserved` cut to the classes the group keeps for it; proved
                                    again only after a new synthesis */
} eng_part;

typedef struct eng_job eng_job;

/** Before reading the host points of `params` (HOT parameters of srs, or parameters a device
 *  copy holds after a demotion): waits while they are dropped or restored; restores them from
 *  the file's mapping when they were dropped; counts the caller as a reader (no drop until
 *  eng_srs_points_release). With `file` non-NULL (an upload, which can decode the points out
 *  of the file itself), dropped points are not restored: *file / *file_len receive the file's
 *  mapping instead (NULL / 0 when the host points are there), valid until the release, and
 *  *fd a descriptor of the same file for pread (-1 if none; the caller closes it).
 *  CUZK_E_INVAL when they were dropped and cannot be restored here (demoted meanwhile),
 *  CUZK_E_IO when the file changed on disk, or the restore's error. Called without the lock. */
CZ_MUST_USE cuzk_err eng_srs_points_acquire(eng_t *eng, eng_srs *srs, const g16_params_t *params,
                                            const uint8_t **file, size_t *file_len, int *fd,
                                            cz_diag *dg);
void eng_srs_points_release(eng_t *eng, eng_srs *srs);
/** After an upload registered a device copy of srs's parameters (lock held): true when the
 *  host points should be dropped now (not kept by configuration, every usable device holds a
 *  copy, no reader); points_busy is then set and the caller calls eng_srs_points_drop. */
bool eng_srs_points_should_drop_locked(eng_t *eng, eng_srs *srs, const g16_params_t *params);
/** Drops the points (without the lock) and clears points_busy. */
void eng_srs_points_drop(eng_t *eng, eng_srs *srs);

/** The READY shape entry of job's circuit, recording it first (from partition k's synthesis,
 *  or from eng->cfg.shape_cache) when no one has; NULL when the prover backend must be used
 *  (mode PROVER, a recording in progress elsewhere in mode AUTO, or a failed recording).
 *  The entry returned counts the caller as a user: store it in the partition's shape_ref,
 *  which eng_part_release_locked gives back (eng_shape_put_locked).
 *  *t_end: when this call recorded or loaded the shape, the end of that timing stage
 *  (eng_now_ns), else 0. Called without the lock; the shape lives until eng_free, until an
 *  EvictSRS of its circuit once no partition of it is in flight, or, once found stale, until
 *  its last user lets go. */
eng_shape *eng_shape_get(eng_t *eng, eng_job *job, size_t k, uint64_t *t_end);
/** A user of s lets go (lock held); a retired shape is freed (through d) by its last user. */
void eng_shape_put_locked(eng_t *eng, eng_shape *s, struct eng_defer *d);
/** Partition k of job failed as unsatisfiable (lock held). When its assignment was made with a
 *  shape LOADED from the cache, and this partition was not retried for that already, the
 *  shape is taken as stale: retired (once), the circuit marked to be recorded again (which
 *  replaces the file), and true returned: the caller synthesizes and proves the partition
 *  again. Logged as event=shape_stale. False otherwise (the failure stands). */
bool eng_shape_stale_locked(eng_t *eng, eng_job *job, size_t k);
/** Frees every shape (eng_free). */
void eng_shapes_free(eng_t *eng);
/** EvictSRS (lock held; no partition of the circuit in flight): unlinks the circuit's shape
 *  entry, READY (its budget charge released) or FAILED, and returns it for eng_shape_free
 *  after the lock; NULL when there is none or it is being recorded. */
eng_shape *eng_shape_take_locked(eng_t *eng, const char *id);
/** The device bytes the circuit's READY shape will take beside its parameters (0 when it has
 *  none yet), so that a copy made before any partition leaves room for it. */
uint64_t eng_shape_device_bytes_locked(eng_t *eng, const char *id);
/** True when circuit id's shape is recorded and ready to use. */
bool eng_shape_ready_locked(eng_t *eng, const char *id);
void eng_shape_free(eng_shape *s);

typedef struct eng_waiter {
    eng_await_fn cb;
    void *arg;
    uint64_t deadline_ns; /* 0 = none */
    eng_job *job;
    struct eng_waiter *prev, *next;   /* job->waiters */
    struct eng_waiter *tprev, *tnext; /* eng->timed (only with a deadline) */
} eng_waiter;

/** A set of jobs dispatched together; counts as one active slot. */
typedef struct eng_unit {
    size_t remaining; /* member jobs not finished */
} eng_unit;

struct eng_job {
    char id[ENG_ID_MAX];
    char qid[CZ_LOG_QUOTED_MAX(ENG_ID_MAX)]; /* id as a log value (cz_log_quote) */
    uint8_t digest[32];                      /* eng_request_digest: the idempotency key's content */
    uint64_t seq;                            /* submission order */
    uint64_t useq;                           /* dispatch order of its unit */
    eng_kind kind;
    eng_prio prio;
    eng_job_state state;
    unsigned refs; /* the job table + deliveries in progress */
    bool in_table;

    /* The request, deep-copied into req_buf; released once parsed. */
    eng_request_t req;
    void *req_buf;
    eng_bytes_t *req_vps;
    uint64_t req_bytes; /* what req_buf and req_vps hold, counted in eng->req_bytes */

    /* Links: hash chain; pending queue / active list / done list (one at a time). */
    eng_job *hnext;
    eng_job *prev, *next;

    /* Times (monotonic ns) and per-stage sums. */
    uint64_t t_submit, t_dispatch, t_done;
    uint64_t ns[ENG_STAGE_COUNT];
    uint64_t h2d_bytes; /* host-to-device bytes of its partitions' device proofs */

    /* Execution. */
    atomic_bool cancel; /* read by handlers through plan.cancelled */
    bool preparing, prepared, plan_valid;
    const struct eng_kind_slot *slot;
    eng_plan_t plan;
    eng_srs *srs;
    eng_part *parts;
    size_t next_synth, parts_done;
    size_t resynth;   /* partitions below next_synth back in PART_WAIT (a stale shape) */
    unsigned running; /* stages executing on engine threads */
    eng_unit *unit;
    size_t batch_size;
    bool batch_flush; /* a higher-priority job arrived while this one collected a batch */

    /* Outcome. */
    eng_status status;
    bool failed; /* first failure recorded in error */
    char *error;
    uint8_t *proof;
    size_t proof_len;

    eng_waiter *waiters;
};

/* A doubly linked list of jobs. */
typedef struct eng_jlist {
    eng_job *head, *tail;
    size_t n;
} eng_jlist;

void eng_jlist_push(eng_jlist *l, eng_job *j);
void eng_jlist_remove(eng_jlist *l, eng_job *j);

/* A registered handler. */
typedef struct eng_kind_slot {
    eng_kind kind;
    eng_kind_ops ops;
    void *ctx;
    bool present;
} eng_kind_slot;

typedef struct eng_preload {
    char id[ENG_CIRCUIT_ID_MAX];
    eng_preload_fn cb;
    void *arg;
    struct eng_preload *next;
} eng_preload;

/* ---------------------------------------------------------------------------------------------
 * Deferred work: collected under the lock, run after it.
 * ------------------------------------------------------------------------------------------- */

typedef enum {
    DEFER_DELIVER,   /* call waiters of a finished job (holds a job ref) */
    DEFER_TIMEOUT,   /* call one waiter with TIMEOUT */
    DEFER_PLAN_FREE, /* handler's plan_free */
    DEFER_FREE_ASG,
    DEFER_FREE_PARAMS,
    DEFER_UNMAP,
    DEFER_FREE_MEM,
    DEFER_FREE_SHAPE, /* ptr: an eng_shape */
    DEFER_FREE_JOB,
    DEFER_UNREF_JOB
} eng_defer_kind;

typedef struct eng_defer_item {
    eng_defer_kind kind;
    eng_job *job;
    eng_waiter *waiters;
    eng_plan_t plan;
    const eng_kind_slot *slot;
    cs_assignment_t asg;
    g16_params_t *params;
    void *ptr;
    size_t len;
    struct eng_defer_item *next;
} eng_defer_item;

typedef struct eng_defer {
    eng_defer_item *head, *tail;
} eng_defer;

/* The reaper (reap.c): a thread that frees partition assignments (munmap of gigabytes) off the
 * prover threads' path. */
typedef struct eng_reaper {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    eng_defer_item *head, *tail; /* DEFER_FREE_ASG items */
    bool stop, started;
    uint64_t reaped;
    pthread_t thread;
} eng_reaper;

/* A proved partition's assignment kept for the next partition of the same counts (spare.c). */
#define ENG_SPARES 2
typedef struct eng_spare {
    cs_assignment_t asg;
    uint64_t bytes;    /* cs_assignment_bytes(&asg), kept in eng->mem_used; 0 = empty slot */
    uint64_t since_ns; /* when kept: the oldest is replaced first */
} eng_spare;
void eng_reaper_init(eng_reaper *r);
CZ_MUST_USE cuzk_err eng_reaper_start(eng_reaper *r, cz_diag *dg);
/** Hands asg (taken: *asg is left as it was, the caller forgets it) to the reaper thread, or
 *  frees it here when the reaper is not running. */
void eng_reaper_free_asg(eng_reaper *r, cs_assignment_t *asg);
/** Assignments the reaper has freed so far. */
uint64_t eng_reaper_count(eng_reaper *r);
/** Frees what is queued, stops and joins the thread; later assignments are freed by their
 *  callers. */
void eng_reaper_stop(eng_reaper *r);
/** After eng_reaper_stop, when nothing can call r any more. */
void eng_reaper_destroy(eng_reaper *r);

/* ---------------------------------------------------------------------------------------------
 * Devices (gpu.c)
 * ------------------------------------------------------------------------------------------- */

/* Host parameters of a demoted entry, kept until every device copy made from them is freed
 * (a g16_gpu_params retains its host parameters). */
typedef struct eng_gpu_hold {
    g16_params_t *params;
    unsigned copies; /* device copies not yet freed */
} eng_gpu_hold;

/* One circuit's parameters resident on one device. The list links are guarded by eng->mu; gp
 * itself is used (and freed) only by the device's thread. */
typedef struct eng_gpu_res {
    char id[ENG_CIRCUIT_ID_MAX]; /* the circuit (for logs) */
    eng_srs *srs;                /* the hot entry it mirrors; NULL once the entry was demoted */
    const g16_params_t *params;  /* the host parameters gp retains */
    g16_gpu_params *gp;
    g16_gpu_shape *gs;       /* the circuit's recorded shape beside gp, or NULL */
    const cs_shape_t *gs_of; /* the host shape gs was made from */
    uint64_t bytes;          /* g16_gpu_params_device_bytes (+ the shape's once made) */
    uint64_t host_bytes;     /* a streamed copy's page-locked host memory (the staging ring,
                                the kept h of shared passes: g16_gpu_params_pinned_bytes),
                                charged to eng->mem_used; 0 for a resident copy */
    uint64_t last_used_ns;   /* LRU clock */
    bool freeing;            /* the device's thread is freeing it (still listed) */
    unsigned stagers;        /* workers uploading into its spare buffer: no free meanwhile */
    eng_gpu_hold *hold;      /* set by the demotion: release on free */
    unsigned streamed;       /* sections streamed from host memory (g16_gpu_params_streamed) */
    bool shape_room;         /* the recorded shape may join it (planned with the copy) */
    bool shape_planned;      /* planned knowing the recorded shape's bytes: when false, a
                                partition proved from the shape (recorded since) replans it */
    struct eng_gpu_res *next;
} eng_gpu_res;

/* The five point vectors of a copy, in g16_gpu_opts_t.stream_sections' bit order. */
#define ENG_GPU_SECTIONS 5

/* A streamed copy's plan (gpu.c): the sections streamed, the bytes of each chunk buffer, the
 * copy's device bytes and the headroom its proofs need. */
typedef struct eng_stream_plan {
    unsigned mask;
    uint64_t chunk, need, room;
    bool shape; /* room for the recorded shape: a, b, c on the device */
    bool lean;  /* g16_gpu_opts_t.lean_buffers, and lean_own_z (own_z) */
    bool own_z;
    unsigned share; /* g16_gpu_opts_t.share_max: partitions per pass (1 = none) */
} eng_stream_plan;

/** The streamed copy of p for a device of `avail` bytes whose transforms' twiddles take `tw`
 *  (gpu_ntt_twiddle_bytes), `shape` the recorded shape's device bytes (0 = none to place):
 *  the first layout that fits, fewest bytes moved first (four work buffers with the shape,
 *  four, three with the shape, two), with the sections that still fit resident (h first)
 *  unless `all`. False when none fits. Pure: gpu.c's choice, and tests' card table. */
bool eng_gpu_plan_streamed(const eng_config_t *cfg, const g16_params_t *p, uint64_t avail,
                           uint64_t tw, uint64_t shape, bool all, eng_stream_plan *sp);

/* A device in use and its prover thread. After eng_start only that thread calls gpu_* on dev
 * (gpu.h: one thread at a time); the fields below dev are guarded by eng->mu. */
typedef struct eng_gpu {
    eng_t *eng;
    unsigned ordinal;
    gpu_dev *dev;
    char name[128];
    uint64_t total_bytes, free_bytes; /* gpu_dev_get_info, refreshed by the thread */
    eng_gpu_res *res;
    uint64_t res_bytes;
    unsigned n_res;
    unsigned n_streamed;      /* copies among res that stream sections */
    char cur_job[ENG_ID_MAX]; /* partition being proved: its job, "" when idle */
    eng_kind cur_kind;
    unsigned errors_in_row; /* device failures since the last good device proof */
    bool usable;            /* false: too many failures in a row, the thread proves on the CPU */
    uint64_t proofs, cpu_fallbacks, errors, uploads, evictions;
    uint64_t staged; /* partitions proved from inputs and aux staged during the previous proof */
    bool spare_busy; /* a partition is being staged, or waits staged (staged_on = this) */
    /* A PreloadSRS asking this device to make pre_srs resident (a reference held for it) before
     * its next proof; the device thread clears pre_srs and decrements *pre_pending when done. */
    eng_srs *pre_srs;
    unsigned *pre_pending;
    /* Host memory reserved (in eng->mem_used) for the streamed copy of copy_srs this device is
     * to make: taken by run_synth before the partitions it admits, so that the copy's pinned
     * bytes are not forced past the budget when it is made; the copy takes it over (list_copy),
     * a device that makes none gives it back (eng_gpu_copy_release_locked). */
    eng_srs *copy_srs;
    uint64_t copy_reserved;
    pthread_t thread;
    bool started;
} eng_gpu;

/** Opens the devices of eng->cfg (eng_start; logs skipped ones); fills eng->gpus. Errors:
 *  CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err eng_gpu_open_all(eng_t *eng, cz_diag *dg);
/** Frees every resident copy and hold and closes the devices (eng_free, threads joined). */
void eng_gpu_close_all(eng_t *eng);
/** The device thread's entry: eng_prover_run with its device. */
void *eng_gpu_main(void *arg);
/** Device housekeeping between proofs, called by the device's thread with mu held: frees one
 *  copy whose entry was demoted, or makes a preloaded entry resident (g->pre_srs), dropping and
 *  retaking mu. Returns true if it did something (the caller then re-examines the state). */
bool eng_gpu_housekeep_locked(eng_t *eng, eng_gpu *g, eng_defer *d);
/** How many partitions of one job g's copy of srs's parameters proves together (its
 *  g16_gpu_params_share_max: > 1 only for a streamed copy made with gpus.stream_share); 1 when
 *  g holds no copy of them. mu held. */
unsigned eng_gpu_share_locked(const eng_t *eng, const eng_gpu *g, const eng_srs *srs);
/** The copy of srs's parameters (params, those of the partition being proved, or of a preload:
 *  job NULL; the caller holds a reference on srs) on g's device, made resident first if needed:
 *  device memory is freed
 *  least recently used first to make room, for the copy and `extra` bytes that will join it
 *  (the circuit's recorded shape, eng_gpu_shape). NULL: prove on the CPU (the reason is logged).
 *  *upload_ns receives the time spent making the copy (0 when it existed). Called by the
 *  device's thread without mu. */
g16_gpu_params *eng_gpu_resident(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                                 const g16_params_t *params, uint64_t extra, uint64_t *upload_ns);
/** The recorded shape `shape` resident beside gp on g's device (made the first time; the
 *  engine's shapes live until eng_free), or NULL when it cannot be made (logged): the caller
 *  then computes a, b, c on the host. Called by the device's thread without mu. */
const g16_gpu_shape *eng_gpu_shape(eng_t *eng, eng_gpu *g, g16_gpu_params *gp,
                                   const cs_shape_t *shape, const eng_job *job, size_t k);
/** True when some device may prove (a partition synthesized now can leave a, b, c to it). */
bool eng_gpu_any_usable_locked(const eng_t *eng);
/** True when the usable devices that hold a copy of srs's parameters (at least one) all stream
 *  it without room for the recorded shape: they would compute a, b, c on the host on their
 *  own thread, so a synthesis worker computes them instead, beside the devices' proofs. */
bool eng_gpu_host_products_locked(const eng_t *eng, const eng_srs *srs);
/** True when a usable device holds a streamed copy of srs's parameters whose proofs share
 *  passes: a partition synthesized now will be proved in a group, which sends the classes of
 *  its scalars (built ahead by the synthesis worker: g16_classes_new). */
bool eng_gpu_groups_locked(const eng_t *eng, const eng_srs *srs);
/** Host bytes a partition of plan holds when synthesized as a witness from the recorded shape
 *  (a device computes a, b, c): [inputs | aux], the densities, a quarter more, a margin. */
uint64_t eng_part_witness_bytes(const eng_plan_t *plan);
/** Called by the worker that synthesized partition k of job (READY; mu held, dropped during
 *  the copy): when a usable device is proving another partition with the same parameters and
 *  its spare buffer is free, uploads this partition's inputs and aux there (g16_gpu_stage), so
 *  that the transfer overlaps that proof; the device's thread then takes it next
 *  (eng_gpu_stage_take). Does nothing otherwise, or logs a failure and leaves it unstaged. */
void eng_gpu_stage_locked(eng_t *eng, eng_job *job, size_t k);
/** The device thread, before proving partition k of job with gp: true when the partition was
 *  staged on g and gp swapped it in (the proof then sets opts.gpu_staged). Frees g's spare for
 *  the next staging either way. Called without mu. */
bool eng_gpu_stage_take(eng_t *eng, eng_gpu *g, g16_gpu_params *gp, eng_job *job, size_t k);
/** A partition released while staged frees its device's spare (mu held). */
void eng_gpu_stage_drop_locked(eng_part *part);
/** A host shape is retired (stale, lock held): no device copy is taken as made from it any
 *  more, so that a new shape allocated at the same address is made resident afresh. */
void eng_gpu_shape_forget_locked(eng_t *eng, const cs_shape_t *shape);

/** Records a failed device proof (err: CUZK_E_GPU, CUZK_E_NOMEM or CUZK_E_NO_GPU; dg says
 *  what): logs it and frees the copy that was used (made again next time), or, after repeated
 *  failures, stops using the device. Called by the device's thread without mu. */
void eng_gpu_proof_failed(eng_t *eng, eng_gpu *g, const eng_job *job, size_t k, eng_srs *srs,
                          cuzk_err err, const cz_diag *dg);
/** Re-reads the device's free memory for the status (device thread, without mu). */
void eng_gpu_refresh(eng_t *eng, eng_gpu *g);
/** srs is being demoted (mu held): its device copies are marked for their threads to free, and
 *  its host parameters are freed after the last one (now, through d, when there is none). */
void eng_gpu_srs_demoted_locked(eng_t *eng, eng_srs *s, g16_params_t *params, eng_defer *d);

/* ---------------------------------------------------------------------------------------------
 * The engine
 * ------------------------------------------------------------------------------------------- */

#define ENG_JOB_BUCKETS 1024

struct eng {
    eng_config_t cfg;
    char *param_cache;
    char *shape_cache; /* NULL: shapes in memory only */
    eng_kind_slot kinds[ENG_KIND_COUNT];
    uint64_t t_start;

    pthread_mutex_t mu;
    pthread_cond_t sched_cv; /* dispatcher: submissions, finished units, timers */
    pthread_cond_t work_cv;  /* synthesis workers: new work, memory released, loads done */
    pthread_cond_t prove_cv; /* provers: partitions ready */
    pthread_cond_t done_cv;  /* drain, eng_free: jobs finished, stages ended */

    bool started, accepting, stopping;
    uint64_t next_seq, next_useq;

    /* Jobs. */
    eng_job *table[ENG_JOB_BUCKETS];
    eng_jlist pending[ENG_PRIO_COUNT];
    eng_jlist active;
    eng_jlist done;
    size_t active_units;
    unsigned pending_by_kind[ENG_KIND_COUNT], active_by_kind[ENG_KIND_COUNT];
    eng_waiter *timed;   /* waiters with a deadline */
    eng_job *collecting; /* head job waiting for its batch to fill */
    bool have_last_key;
    eng_kind last_kind;
    uint64_t last_registered_proof, last_sector_size;

    /* Parameters and memory. */
    eng_srs *srs;
    eng_preload *preloads;
    uint64_t mem_used;         /* hot + loading parameters + partition reservations */
    eng_shape *shapes;         /* recorded circuit shapes (shape.c) */
    eng_shape *retired_shapes; /* stale shapes still used by partitions in flight */
    uint64_t req_bytes;        /* requests held by queued jobs (not yet parsed): counted against the
                           budget when a request is admitted, not by partition reservations
                           (a queued job never holds up the running ones) */
    uint64_t mem_used_peak;    /* highest mem_used since eng_new (metrics) */
    /* What synthesized partitions hold on the host (assignments, not estimates): now, at most,
     * and the most assignments held at once (metrics). */
    uint64_t asg_bytes, asg_bytes_peak;
    unsigned asg_held, asg_held_peak;
    uint64_t mem_parts;           /* partition reservations only */
    eng_spare spares[ENG_SPARES]; /* proved partitions' assignments kept for reuse (spare.c) */
    unsigned loads_running;

    eng_metrics m;

    /* Threads. */
    pthread_t sched_thread;
    eng_reaper reaper;
    pthread_t *workers, *provers;
    unsigned n_workers, n_provers;
    eng_gpu *gpus; /* the devices in use (eng_gpu_open_all), each with its prover thread */
    unsigned n_gpus;
    bool sched_started;
    cz_pool *prove_pool;
    cz_pool *load_pool;
    cz_pool *synth_pool;
};

/* Spare assignments (spare.c), all with mu held. eng_spare_put_locked keeps asg (moved, zeroed)
 * when it holds values and its bytes fit in `reserved` (the partition's reservation), and
 * returns the bytes kept in the budget (0 when not kept: asg is untouched); the caller
 * releases the rest of the reservation. eng_spare_take_locked moves out a spare with exactly
 * these counts (true) and releases its bytes. Dropping hands a spare to the reaper. */
uint64_t eng_spare_put_locked(eng_t *eng, cs_assignment_t *asg, uint64_t reserved, eng_defer *d);
bool eng_spare_take_locked(eng_t *eng, const cs_counts_t *counts, cs_assignment_t *out);
bool eng_spare_drop_oldest_locked(eng_t *eng, eng_defer *d);
void eng_spares_drop_all_locked(eng_t *eng, eng_defer *d);
/* The spares' bytes (all counted in mem_used). */
uint64_t eng_spare_bytes_locked(const eng_t *eng);

/* Time: CLOCK_MONOTONIC nanoseconds; every engine condition variable uses that clock. */
uint64_t eng_now_ns(void);
/** eng_now_ns() + timeout_ms milliseconds, saturated at UINT64_MAX (never in practice): a huge
 *  timeout such as UINT64_MAX means "forever", not an overflowed deadline in the past. */
uint64_t eng_deadline_ns(uint64_t timeout_ms);
/** Frees the job's raw request (deferred) and takes its bytes off eng->req_bytes. */
void eng_job_drop_request_locked(eng_t *eng, eng_job *job, eng_defer *d);
/** Waits on cv until woken or until deadline_ns (0 = no deadline). */
void eng_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *mu, uint64_t deadline_ns);

/* Deferred work. */
void eng_defer_add(eng_defer *d, const eng_defer_item *item);
void eng_defer_run(eng_t *eng, eng_defer *d);
/* Unlocks eng->mu, runs d, locks again. */
void eng_defer_flush_locked(eng_t *eng, eng_defer *d);

/* Jobs (engine.c), all with mu held. */
void eng_job_fail_locked(eng_t *eng, eng_job *job, const char *fmt, ...) CZ_PRINTF(3, 4);
void eng_job_maybe_finish_locked(eng_t *eng, eng_job *job, eng_defer *d);
void eng_job_unref_locked(eng_t *eng, eng_job *job, eng_defer *d);
bool eng_same_circuit_type(const eng_job *a, const eng_job *b);
/* Partition p now holds its synthesized assignment: counted in what partitions hold on the
 * host (eng->asg_bytes and the peaks) until eng_part_release_locked. */
void eng_part_hold_asg_locked(eng_t *eng, eng_part *p);
/** Lets go of partition p's assignment (zeroed after): its count in eng->asg_bytes, a staging
 *  of it, and its vectors, kept as a spare when they fit in `room` bytes of p's reservation
 *  (returned: those bytes are the spare's now, still in the budget), else to the reaper. */
uint64_t eng_part_drop_asg_locked(eng_t *eng, eng_part *p, uint64_t room, eng_defer *d);
/* Releases what partition k holds: assignment, budget bytes, parameter reference. */
void eng_part_release_locked(eng_t *eng, eng_job *job, size_t k, eng_defer *d);
/* Drops finished jobs beyond the retention limits; returns the next expiry time (0 = none). */
uint64_t eng_retention_locked(eng_t *eng, uint64_t now, eng_defer *d);

/* Dispatcher (sched.c). */
void *eng_sched_main(void *arg);

/* Workers and provers (pipeline.c). */
void *eng_worker_main(void *arg);
void *eng_prover_main(void *arg);
/** A prover thread's loop: proves READY partitions until the engine stops, on g's device when
 *  g is not NULL (falling back to the CPU), else on the CPU. */
void eng_prover_run(eng_t *eng, eng_gpu *g);

/* Parameters and budget (srs.c), with mu held unless said otherwise. */
eng_srs *eng_srs_find_locked(eng_t *eng, const char *id);
/** Finds or creates the entry of id with path (st: the caller's fresh stat of path). The size
 *  of an entry that is neither HOT nor loading follows the file; a HOT entry whose file changed
 *  keeps its decoded parameters (logged once), unless its points are not on the host: then,
 *  when unused, it is demoted (frees go to d) and the caller loads the new file. */
eng_srs *eng_srs_get_locked(eng_t *eng, const char *id, const char *path, const struct stat *st,
                            eng_defer *d);
/** Resolves a circuit id to a parameter path through the registered kinds (no lock needed:
 *  the kind table is immutable after eng_start). */
bool eng_srs_resolve(eng_t *eng, const char *id, char *path, size_t cap);

typedef enum { RESERVE_OK, RESERVE_WAIT, RESERVE_NEVER } eng_reserve;
/** Reserves bytes, demoting unused hot parameters (LRU, idle >= eviction_min_idle, never
 *  `keep`) as needed. WAIT: retry when memory is released or at *wake_ns (0 = no timer).
 *  NEVER: bytes exceed the whole budget. */
eng_reserve eng_mem_reserve_locked(eng_t *eng, uint64_t bytes, const eng_srs *keep,
                                   uint64_t *wake_ns, eng_defer *d);
void eng_mem_release_locked(eng_t *eng, uint64_t bytes);
/** Reserves, on each usable device that holds no copy of srs's (hot) parameters and would
 *  stream them, the page-locked host bytes the copy will take (eng_mem_reserve_locked: WAIT and
 *  NEVER as there, the devices reserved so far keep theirs). A device reserves for one copy at
 *  a time. mu held. */
eng_reserve eng_gpu_copy_reserve_locked(eng_t *eng, eng_srs *srs, uint64_t *wake_ns, eng_defer *d);
/** Gives back every device's reservation for srs (mu held): its copy was not made (a failure, a
 *  CPU fallback) or nothing uses srs any more. */
void eng_gpu_copy_release_locked(eng_t *eng, const eng_srs *srs);
/** Adds bytes to the budget's use at once, past the budget if need be (then logs
 *  event=over_budget for job): memory already taken, or taken so that work goes on when
 *  nothing in flight would give any back. */
void eng_mem_force_locked(eng_t *eng, uint64_t bytes, const char *job);

/** Decodes an entry's file (the caller set entry->loading and reserved file_bytes). Runs
 *  without the lock; on success the entry's params/pvk/map are set under the lock by
 *  eng_srs_load_finish_locked. map/map_len/map_id: the entry's mapping (map NULL: none), reused
 *  only when the file is unchanged, else replaced by a fresh one (drop_old). A file that changes
 *  while it is decoded fails the load. Errors name the file. */
typedef struct eng_srs_loaded {
    g16_params_t *params;
    g16_pvk_t pvk;
    void *map; /* a fresh mapping (NULL when the entry's was reused) */
    size_t map_len;
    eng_file_id map_id;
    bool drop_old; /* the entry's mapping is stale: unmap it, success or not */
    bool skipped;  /* the points were left in the file (skip_points) */
} eng_srs_loaded;
/** Loads (decodes) the parameters at path, from `map` when it is still that file's mapping.
 *  skip_points: read only the VK and counts, the points left in the file for the devices to
 *  decode straight into their memory (eng_srs_skip_points_locked says when). */
CZ_MUST_USE cuzk_err eng_srs_load(eng_t *eng, const char *path, void *map, size_t map_len,
                                  const eng_file_id *map_id, bool skip_points, eng_srs_loaded *out,
                                  cz_diag *dg);
/** True when a load should leave the points in the file: the host copy would be dropped as
 *  soon as the devices hold one (not srs.keep_host_points, a usable device). */
bool eng_srs_skip_points_locked(const eng_t *eng);
void eng_srs_load_finish_locked(eng_t *eng, eng_srs *s, cuzk_err err, eng_srs_loaded *ld,
                                eng_defer *d);
/** Drops one partition reference. */
void eng_srs_unref_locked(eng_t *eng, eng_srs *s);
/** A partition of job failed because s's parameters do not fit the circuit (lock held): s is
 *  marked misfit (logged) and demoted as soon as it is unused (eng_srs_misfit_demote_locked),
 *  so that a parameter file put right is read again without EvictSRS. */
void eng_srs_misfit_locked(eng_t *eng, eng_srs *s, const eng_job *job, const char *why);
/** Demotes s now when it is misfit and unused; called as references are dropped and at
 *  lookup. */
void eng_srs_misfit_demote_locked(eng_t *eng, eng_srs *s, eng_defer *d);
void eng_srs_free_all(eng_t *eng);
void eng_srs_unmap(void *map, size_t len);
/** Runs one preload request on a worker thread (called without the lock). */
void eng_preload_run(eng_t *eng, eng_preload *p);

/* Metrics (metrics.c). */
void eng_metrics_job_done_locked(eng_t *eng, const eng_job *job);

#endif /* CUZK_ENGINE_INTERNAL_H */
