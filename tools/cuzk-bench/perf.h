/* perf.h - what cuzk-bench's performance commands share (synth, micro, ab, timeline):
 * statistics over repeated runs and the A/B significance rule, the memory monitor (a thread
 * sampling resident memory, and device memory when a GPU is in use, every 100 ms into a CSV
 * file), and the reader of cuzkd's structured timing lines (engine/timing.h):
 *
 *   event=stage job=ID kind=KIND partition=K|- stage=NAME worker=THREAD start_ms=S ms=D
 *   job=ID kind=KIND status=completed partitions=P queue_ms=.. srs_ms=.. synth_ms=..
 *       prove_ms=.. verify_ms=.. total_ms=..          (one per finished job, always logged)
 *
 * Lines are read wherever they appear in a line (after a timestamp, a level, ...); every
 * other line is ignored.
 * Errors go through cli_error (one line on stderr); functions then return false.
 */
#ifndef CUZK_TOOLS_CUZK_BENCH_PERF_H
#define CUZK_TOOLS_CUZK_BENCH_PERF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- statistics ------------------------------------------------------------------------- */

typedef struct perf_stats {
    size_t n;
    double min, median, max, mean; /* all 0 when n == 0; median of an even n: mean of the two
                                      middle values */
} perf_stats;

/** Statistics of v[0 .. n) (v is not modified). */
void perf_stats_of(perf_stats *out, const double *v, size_t n);

/** Fewest runs per side for perf_compare to call anything significant (see below: with 3 runs,
 *  two identical setups would look "significant" one time in ten). */
#define PERF_MIN_RUNS 5

/** An A/B comparison of one quantity.
 *  diff   median(B) - median(A)
 *  noise  the run-to-run spread: the larger of (max - min) of A and of B
 *  significant  |diff| > noise AND the ranges [min, max] of A and B do not overlap, with at
 *               least PERF_MIN_RUNS runs on each side. For N runs each of two identical
 *               setups (exchangeable runs), separated ranges alone occur with probability
 *               2 / C(2N, N): 10% for N = 3, 0.8% for N = 5, 0.02% for N = 8. */
typedef struct perf_cmp {
    perf_stats a, b;
    double diff, noise;
    bool enough; /* both sides have PERF_MIN_RUNS runs */
    bool significant;
} perf_cmp;

void perf_compare(perf_cmp *out, const double *a, size_t na, const double *b, size_t nb);

/* ---- memory --------------------------------------------------------------------------- */

/** Resident set size of process pid (0 = this process) from /proc/PID/statm; 0 if unknown. */
uint64_t perf_rss_of(long pid);

#define PERF_MEMMON_MAX 4

/** One monitored process: a CSV column label ("rss", "a", "b") and its pid (0 = this one). */
typedef struct perf_memmon_src {
    const char *label;
    long pid;
} perf_memmon_src;

typedef struct perf_memmon perf_memmon;

/** Starts the sampling thread ("cuzk-memmon"): every 100 ms one CSV row
 *  "t_ms,<label>_rss_bytes...[,gpu_used_bytes]" into csv_path (NULL: no file, peaks only),
 *  the first row at once. gpu: also sample device 0's used memory (total - free) through a
 *  device handle of its own; when no device can be opened the column is left out and a
 *  warning printed. Returns false after an error line (file, thread). */
bool perf_memmon_start(perf_memmon **out, const char *cmd, const char *csv_path,
                       const perf_memmon_src *src, size_t nsrc, bool gpu);

typedef struct perf_memmon_peak {
    uint64_t rss[PERF_MEMMON_MAX]; /* peak of each source over every sample */
    uint64_t gpu;                  /* peak device memory in use; 0 without a GPU column */
    bool have_gpu;
    size_t samples;
} perf_memmon_peak;

/** Takes a last sample, stops and joins the thread, closes the file and frees m; out (may be
 *  NULL) gets the peaks. NULL does nothing. */
void perf_memmon_stop(perf_memmon *m, perf_memmon_peak *out);

/** "1.50 GiB", "12.0 MiB", "512 B". */
void perf_human_bytes(char *out, size_t cap, uint64_t n);

/* ---- cuzkd timing logs ------------------------------------------------------------------- */

#define PERF_ID_MAX   128
#define PERF_NAME_MAX 32

typedef struct perf_stage_ev {
    char job[PERF_ID_MAX];
    char kind[PERF_NAME_MAX];
    long partition; /* -1: a stage of the whole job (queue, parse) */
    char stage[PERF_NAME_MAX];
    char worker[PERF_NAME_MAX];
    double start_ms, ms;
} perf_stage_ev;

typedef struct perf_job_ev {
    char job[PERF_ID_MAX];
    char kind[PERF_NAME_MAX];
    char status[16];
    long partitions;
    double queue_ms, srs_ms, synth_ms, prove_ms, verify_ms, total_ms;
} perf_job_ev;

typedef struct perf_log {
    perf_stage_ev *st;
    size_t nst, capst;
    perf_job_ev *jobs;
    size_t njobs, capjobs;
    size_t lines;
} perf_log;

/** Reads one line into log (zero-initialize log first); lines that are neither kind are
 *  skipped. False only when out of memory. */
bool perf_log_add_line(perf_log *log, const char *line);
/** Reads a whole log file. False after an error line (unreadable, out of memory). */
bool perf_log_load(const char *cmd, const char *path, perf_log *log);
void perf_log_clear(perf_log *log);
/** The summary of job id, or NULL. */
const perf_job_ev *perf_log_job(const perf_log *log, const char *id);
/** Sum of the durations of `stage` over every partition of job id (0 when none). */
double perf_log_stage_sum(const perf_log *log, const char *id, const char *stage);

/** The pipeline's stages in order (engine/timing.h); stages not listed sort after them. */
extern const char *const perf_stage_order[];
extern const size_t perf_stage_norder;
/** Position of `stage` in perf_stage_order, or perf_stage_norder when absent. */
size_t perf_stage_rank(const char *stage);

#endif /* CUZK_TOOLS_CUZK_BENCH_PERF_H */
