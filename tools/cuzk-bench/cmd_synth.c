/* cmd_synth.c - cuzk-bench synth: synthesis alone, measured partition by partition.
 *
 * The request is parsed by the same handler cuzkd uses (kinds/kinds.h: vanilla proofs
 * decoded and verified natively, the plan made); each partition is then synthesized into a
 * fresh constraint system of the chosen backend, --repeat times:
 *   prover  the daemon's backend: witness and the a, b, c evaluations of every constraint,
 *           then cs_finish (input constraints) and the assignment handed over (then freed);
 *   count   shape only (inputs, aux, constraints): the cost of walking the circuit;
 *   check   every constraint evaluated and checked; an unsatisfied one fails the command with
 *           its label path;
 *   pce     the pre-compiled constraint evaluator: the circuit's compact shape is recorded
 *           once (or loaded from --shape-file, and saved there when absent), then each run is
 *           the witness backend (no linear combinations) plus a, b, c from the shape's sparse
 *           products (cs_shape_eval), giving exactly the prover backend's assignment;
 *   witness the same without the products: inputs, aux and the shape's densities
 *           (cs_shape_assign), what cuzkd holds per partition when a device proves from the
 *           resident shape (its peak of allocated bytes is that partition's host memory).
 * --threads spreads synthesis (and the products) over a pool, as the daemon's workers do.
 * Per run: synthesis (cs_new + the handler's synthesize), finish (cs_finish + hand-over) and
 * total; per partition: min / median / max of total, constraints per second at the median,
 * and the peak of the cz_malloc'ed bytes during the run. The process's resident memory is
 * read before parsing (idle) and at the end (peak, getrusage), and --memmon samples it every
 * 100 ms into a CSV file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "common/alloc.h"
#include "groth16/groth16.h"
#include "kinds/kinds.h"
#include "perf.h"
#include "progress.h"
#include "synth_gpu.h"

typedef enum { BK_PROVER, BK_COUNT, BK_CHECK, BK_PCE, BK_WITNESS } synth_backend;

/* The backends that use the recorded shape. */
static bool uses_shape(synth_backend bk)
{
    return bk == BK_PCE || bk == BK_WITNESS;
}

typedef struct synth_run {
    double synth_ms, finish_ms, products_ms, total_ms;
    synth_gpu_times gpu; /* --gpu: the products on the device */
    size_t alloc_peak;
    cs_counts_t counts;
    bool has_stats;          /* --scalar-stats */
    g16_query_stats_t stats; /* the MSMs' scalars, counted after the timed stages */
} synth_run;

static cuzk_err new_cs(synth_backend bk, const eng_plan_t *plan, cs_t **cs, cz_diag *dg)
{
    const cs_counts_t *hint =
        (plan->shape.num_constraints || plan->shape.num_aux) ? &plan->shape : NULL;
    switch (bk) {
    case BK_PROVER:
        return cs_new_prover(cs, hint, dg);
    case BK_COUNT:
        return cs_new_counter(cs, dg);
    case BK_PCE:
    case BK_WITNESS:
        return cs_new_witness(cs, hint, dg);
    default:
        return cs_new_checker(cs, dg);
    }
}

/* One synthesis of partition k (with `shape` for BK_PCE and BK_WITNESS). */
static int synth_once(const char *cmd, eng_offline_t *off, synth_backend bk, size_t k,
                      const cs_shape_t *shape, cz_pool *pool, synth_gpu *g, bool stats,
                      synth_run *run)
{
    cs_t *cs = NULL;
    cs_assignment_t asg;
    cz_diag dg;
    cuzk_err err;

    memset(run, 0, sizeof(*run));
    memset(&asg, 0, sizeof(asg));
    cz_diag_init(&dg);
    cz_alloc_reset_peak();
    size_t live0 = cz_alloc_live();
    double t0 = cli_now_ms();
    err = new_cs(bk, eng_offline_plan(off), &cs, &dg);
    if (err == CUZK_OK) {
        err = eng_offline_synthesize(off, k, cs, &dg);
    }
    double t1 = cli_now_ms();
    if (err == CUZK_OK) {
        err = cs_finish(cs, &dg);
    }
    if (err == CUZK_OK && (bk == BK_PROVER || uses_shape(bk))) {
        err = cs_take_assignment(cs, &asg, &dg);
    }
    double t2 = cli_now_ms();
    if (err == CUZK_OK && bk == BK_PCE) {
        err = cs_shape_eval(shape, &asg, pool, &dg);
    } else if (err == CUZK_OK && bk == BK_WITNESS) {
        err = cs_shape_assign(shape, &asg, &dg);
    }
    double t3 = cli_now_ms();
    if (err == CUZK_OK && g) {
        err = synth_gpu_run(g, &asg, &run->gpu, &dg);
    }
    if (cs) {
        cs_get_counts(cs, &run->counts);
    }
    if (err == CUZK_OK && stats && (bk == BK_PROVER || bk == BK_PCE)) {
        g16_query_stats(&run->stats, &asg);
        run->has_stats = true;
    }
    if (err == CUZK_E_UNSAT && bk == BK_CHECK) {
        size_t idx = 0;
        const char *path = cs_unsat_path(cs, &idx);
        cli_error(cmd, "partition %zu is not satisfied: constraint %zu (%s)", k, idx,
                  path ? path : "?");
        cs_free(cs);
        return CLI_EXIT_ERROR;
    }
    size_t peak = cz_alloc_peak();
    cs_assignment_clear(&asg);
    cs_free(cs);
    if (err != CUZK_OK) {
        char buf[600];
        return cli_error(cmd, "partition %zu: %s", k, cz_diag_str(&dg, buf, sizeof(buf)));
    }
    run->synth_ms = t1 - t0;
    run->finish_ms = t2 - t1;
    run->products_ms = t3 - t2;
    run->total_ms = t3 - t0;
    run->alloc_peak = peak > live0 ? peak - live0 : 0;
    return -1;
}

/* Records partition k's shape, or loads it from `file` (recording and saving it there when the
 * file is absent or refused); prints what it did. False (after the error) on failure. */
static bool get_shape(const char *cmd, eng_offline_t *off, size_t k, const char *file,
                      cz_pool *pool, cli_progress *pg, cs_shape_t *shape)
{
    const eng_plan_t *plan = eng_offline_plan(off);
    char key[ENG_CIRCUIT_ID_MAX + 32];
    int kl = snprintf(key, sizeof(key), "cuzk-shape/%s", plan->circuit_id);
    cs_t *cs = NULL;
    cz_diag dg;
    cuzk_err err;

    cz_diag_init(&dg);
    if (file) {
        double t0 = cli_now_ms();
        err = cs_shape_load(shape, file, key, (size_t)kl, pool, &dg);
        cli_progress_hide(pg);
        if (err == CUZK_OK) {
            printf("shape loaded file=%s ms=%.3f\n", file, cli_now_ms() - t0);
            return true;
        }
        printf("shape not loaded (%s): recording\n", dg.msg);
        cz_diag_init(&dg);
    }
    double t0 = cli_now_ms();
    err = cs_new_shape_recorder(&cs, &plan->shape, &dg);
    if (err == CUZK_OK) {
        err = eng_offline_synthesize(off, k, cs, &dg);
    }
    if (err == CUZK_OK) {
        err = cs_finish(cs, &dg);
    }
    if (err == CUZK_OK) {
        err = cs_take_shape(cs, shape, &dg);
    }
    cs_free(cs);
    double t1 = cli_now_ms();
    if (err == CUZK_OK && file) {
        err = cs_shape_save(shape, file, key, (size_t)kl, pool, &dg);
    }
    if (err != CUZK_OK) {
        char buf[600];
        cli_error(cmd, "recording the shape: %s", cz_diag_str(&dg, buf, sizeof(buf)));
        return false;
    }
    size_t nnz = shape->A.nnz + shape->B.nnz + shape->C.nnz, bytes = cs_shape_bytes(shape);
    cli_progress_hide(pg);
    printf("shape recorded ms=%.3f rows=%zu nnz_a=%zu nnz_b=%zu nnz_c=%zu dict=%zu bytes=%zu "
           "bytes_per_nnz=%.2f%s%s\n",
           t1 - t0, shape->A.rows, shape->A.nnz, shape->B.nnz, shape->C.nnz, shape->dict_len, bytes,
           nnz ? (double)bytes / (double)nnz : 0.0, file ? " saved=" : "", file ? file : "");
    return true;
}

static const char SYNTH_CMD[] = "synth";

static const char SYNTH_ABOUT[] =
    "Synthesis only, partition by partition, with the daemon's own request parsing and\n"
    "circuits (no parameters, no proving). Each selected partition is synthesized\n"
    "--repeat times into a fresh constraint system of --backend:\n"
    "  prover  witness + a, b, c evaluations, as cuzkd does (default)\n"
    "  count   shape only (inputs, aux, constraints)\n"
    "  check   every constraint checked; an unsatisfied one is an error naming it\n"
    "  pce     witness only + a, b, c from the recorded compact shape (recorded once,\n"
    "          or loaded from --shape-file and saved there when absent)\n"
    "  witness the same without a, b, c: what cuzkd holds per partition when a device\n"
    "          proves from the shape (its peak of allocated bytes)\n"
    "Prints one line per partition: constraints, aux, min / median / max milliseconds,\n"
    "the spread, constraints per second at the median and the peak of allocated bytes;\n"
    "then the process's idle and peak resident memory. --timing adds one line per run\n"
    "with its stages (synthesis = the circuit with the witness and a, b, c; finish =\n"
    "input constraints and hand-over; products = a, b, c from the shape, pce only).\n"
    "--threads N spreads synthesis and the products over N cores, as cuzkd's workers do.\n"
    "--memmon samples resident memory every 100 ms.";

/* What synth was asked to do. */
typedef struct synth_opts {
    const char *backend, *memmon, *shape_file;
    uint64_t partition, repeat, threads;
    bool has_partition, timing, use_gpu, quiet, scalar_stats;
    synth_backend bk; /* from backend */
} synth_opts;

/* One synth command under way. */
typedef struct synth_state {
    cz_pool *pool; /* NULL with --threads 1 */
    cli_vreq r;
    cli_progress pg;
    eng_offline_t *off; /* the parsed request and its plan */
    eng_bytes_t *vps;   /* the request's view of r.vanilla */
    synth_run *runs;    /* one partition's --repeat runs */
    cs_shape_t shape;   /* pce only */
    synth_gpu *g;       /* --gpu only */
    perf_memmon *mm;    /* --memmon only */
    uint64_t idle_rss;
    size_t k0, k1; /* the partitions to synthesize: [k0, k1) */
} synth_state;

/* cli_parse over the request options and synth's own; -1 when the command is to run. */
static int synth_parse(synth_opts *o, cli_vreq_flags *f)
{
    cli_opt_t opts[32];
    size_t n = cli_vreq_opts(opts, f);

    opts[n++] = (cli_opt_t)CLI_OPT_GIVEN("partition", CLI_U64, &o->partition, "K",
                                         "only partition K (default: every partition)", false,
                                         &o->has_partition);
    opts[n++] = (cli_opt_t)CLI_OPT("repeat", CLI_U64, &o->repeat, "N",
                                   "runs per partition (default 3)", false);
    opts[n++] =
        (cli_opt_t)CLI_OPT("backend", CLI_STR, &o->backend, "B",
                           "prover | count | check | pce | witness (default prover)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("threads", CLI_U64, &o->threads, "N",
                                   "cores for one partition's synthesis (default 1)", false);
    opts[n++] =
        (cli_opt_t)CLI_OPT("shape-file", CLI_STR, &o->shape_file, "FILE",
                           "pce, witness: load the shape from FILE, or save it there", false);
    opts[n++] = (cli_opt_t)CLI_OPT("gpu", CLI_FLAG, &o->use_gpu, NULL,
                                   "pce: also compute a, b, c on device 0 (timed, compared with "
                                   "the CPU's; with --timing)",
                                   false);
    opts[n++] = (cli_opt_t)CLI_OPT("timing", CLI_FLAG, &o->timing, NULL,
                                   "one line per run with its stages", false);
    opts[n++] = (cli_opt_t)CLI_OPT("scalar-stats", CLI_FLAG, &o->scalar_stats, NULL,
                                   "prover, pce: per partition, the scalars of the L, A and B "
                                   "MSMs and their shares of 0, 1 and other values",
                                   false);
    opts[n++] = (cli_opt_t)CLI_OPT("memmon", CLI_STR, &o->memmon, "FILE.csv",
                                   "sample resident memory every 100 ms into FILE.csv", false);
    opts[n++] =
        (cli_opt_t)CLI_OPT("quiet", CLI_FLAG, &o->quiet, NULL, "no progress on stderr", false);
    return cli_parse(SYNTH_CMD, SYNTH_ABOUT, opts, n, f->argc, f->argv);
}

/* Checks --backend, --threads (and makes the pool) and --repeat. */
static bool synth_check_opts(synth_opts *o, synth_state *st)
{
    /* by synth_backend */
    static const char *const names[] = {"prover", "count", "check", "pce", "witness"};
    size_t b = 0;

    while (b < ARRAY_LEN(names) && strcmp(o->backend, names[b]) != 0) {
        b++;
    }
    if (b == ARRAY_LEN(names)) {
        cli_error(SYNTH_CMD, "--backend must be prover, count, check, pce or witness (not '%s')",
                  o->backend);
        return false;
    }
    o->bk = (synth_backend)b;
    if (o->threads < 1 || o->threads > 4096) {
        cli_error(SYNTH_CMD, "--threads must be 1 .. 4096");
        return false;
    }
    if (o->threads > 1) {
        cz_diag pdg;
        cz_diag_init(&pdg);
        if (cz_pool_new(&st->pool, (unsigned)o->threads - 1, "synth", &pdg) != CUZK_OK) {
            cli_error(SYNTH_CMD, "thread pool: %s", pdg.msg);
            return false;
        }
    }
    if (o->repeat < 1 || o->repeat > 100000) {
        cli_error(SYNTH_CMD, "--repeat must be 1 .. 100000");
        return false;
    }
    return true;
}

/* The "parse" stage: the request read and parsed by the daemon's handler, the partitions to
 * run chosen; prints the header line. */
static bool synth_plan(synth_state *st, const synth_opts *o, const cli_vreq_flags *f)
{
    eng_request_t req;
    cz_diag dg;

    cli_progress_begin(&st->pg, "parse", 0);
    if (!cli_vreq_load(SYNTH_CMD, f, false, &st->r)) {
        return false;
    }
    st->vps = cz_calloc(st->r.vanilla.n ? st->r.vanilla.n : 1, sizeof(*st->vps));
    st->runs = cz_calloc((size_t)o->repeat, sizeof(*st->runs));
    if (!st->vps || !st->runs) {
        cli_error(SYNTH_CMD, "out of memory");
        return false;
    }
    cli_vreq_request(&st->r, "synth", &req, st->vps);
    cz_diag_init(&dg);
    double t0 = cli_now_ms();
    cuzk_err err = eng_offline_new(&st->off, NULL, &req, st->pool, true, &dg);
    double parse_ms = cli_now_ms() - t0;
    if (err != CUZK_OK) {
        cli_error_diag(SYNTH_CMD, err, &dg);
        return false;
    }
    const eng_plan_t *plan = eng_offline_plan(st->off);
    if (o->has_partition && o->partition >= plan->num_partitions) {
        cli_error(SYNTH_CMD, "--partition %" PRIu64 ": the request has %zu partition(s)",
                  o->partition, plan->num_partitions);
        return false;
    }
    cli_progress_end(&st->pg);
    printf("synth kind=%s circuit=%s partitions=%zu backend=%s repeat=%" PRIu64 " threads=%" PRIu64
           " parse_ms=%.3f\n",
           cli_proof_name(st->r.kind), plan->circuit_id, plan->num_partitions, o->backend,
           o->repeat, o->threads, parse_ms);
    st->k0 = o->has_partition ? (size_t)o->partition : 0;
    st->k1 = o->has_partition ? (size_t)o->partition + 1 : plan->num_partitions;
    return true;
}

/* pce: the shape (the "shape" stage); --gpu: the device copy of it; --timing: its header. */
static bool synth_prepare(synth_state *st, const synth_opts *o)
{
    if (uses_shape(o->bk)) {
        cli_progress_begin(&st->pg, "shape", 0);
        if (!get_shape(SYNTH_CMD, st->off, st->k0, o->shape_file, st->pool, &st->pg, &st->shape)) {
            return false;
        }
        cli_progress_end(&st->pg);
    }
    if (o->use_gpu) {
        cz_diag gdg;
        cz_diag_init(&gdg);
        if (o->bk != BK_PCE) {
            cli_error(SYNTH_CMD, "--gpu needs --backend pce");
            return false;
        }
        if (synth_gpu_new(&st->g, &st->shape, &gdg) != CUZK_OK) {
            cli_error(SYNTH_CMD, "--gpu: %s", gdg.msg);
            return false;
        }
        printf("gpu shape_upload_ms=%.3f device_bytes=%zu\n", synth_gpu_upload_ms(st->g),
               synth_gpu_bytes(st->g));
    }
    if (o->timing) {
        printf("%-9s %4s %12s %12s %12s %12s\n", "partition", "run", "synthesis_ms", "finish_ms",
               "products_ms", "total_ms");
    }
    return true;
}

/* --timing: the stages of run i of partition k. */
static void print_run(const synth_state *st, size_t k, uint64_t i)
{
    const synth_run *run = &st->runs[i];

    printf("%-9zu %4" PRIu64 " %12.3f %12.3f %12.3f %12.3f", k, i, run->synth_ms, run->finish_ms,
           run->products_ms, run->total_ms);
    if (st->g) {
        const synth_gpu_times *gt = &run->gpu;
        printf(" gpu z_upload_ms=%.3f a_ms=%.3f b_ms=%.3f c_ms=%.3f equal=yes", gt->z_upload_ms,
               gt->spmv_ms[0], gt->spmv_ms[1], gt->spmv_ms[2]);
    }
    printf("\n");
    fflush(stdout);
}

/* --scalar-stats: one line per query of partition k. */
static void print_stats(size_t k, const g16_query_stats_t *s)
{
    static const char *const names[G16_Q_COUNT] = {"l", "a", "b"};
    for (unsigned q = 0; q < G16_Q_COUNT; q++) {
        double n = s->n[q] ? (double)s->n[q] : 1.0;
        size_t other = s->n[q] - s->zeros[q] - s->ones[q];
        printf("scalars partition=%zu query=%s n=%zu zero=%zu one=%zu other=%zu zero_pct=%.2f "
               "one_pct=%.2f other_pct=%.2f\n",
               k, names[q], s->n[q], s->zeros[q], s->ones[q], other, 100.0 * s->zeros[q] / n,
               100.0 * s->ones[q] / n, 100.0 * other / n);
    }
    fflush(stdout);
}

/* Partition k's --repeat runs; its table line goes to `line`. -1, or the exit code of a
 * failed run (after its error line). */
static int synth_partition(synth_state *st, const synth_opts *o, size_t k, char line[256])
{
    double tot[1024];
    size_t peak = 0;
    perf_stats ps;
    double *t = o->repeat <= ARRAY_LEN(tot) ? tot : cz_malloc((size_t)o->repeat * sizeof(double));
    int rc = -1;

    if (!t) {
        return cli_error(SYNTH_CMD, "out of memory");
    }
    for (uint64_t i = 0; i < o->repeat; i++) {
        rc = synth_once(SYNTH_CMD, st->off, o->bk, k, &st->shape, st->pool, st->g,
                        o->scalar_stats && i == 0, &st->runs[i]);
        if (rc >= 0) {
            break;
        }
        t[i] = st->runs[i].total_ms;
        peak = st->runs[i].alloc_peak > peak ? st->runs[i].alloc_peak : peak;
        if (o->timing) {
            cli_progress_hide(&st->pg);
            print_run(st, k, i);
        }
        if (st->runs[i].has_stats) {
            cli_progress_hide(&st->pg);
            print_stats(k, &st->runs[i].stats);
        }
        cli_progress_update(&st->pg, (uint64_t)(k - st->k0) * o->repeat + i + 1);
    }
    if (rc < 0) {
        const cs_counts_t *c = &st->runs[0].counts;
        size_t cons = c->num_constraints + c->num_inputs; /* with the input constraints */
        char pk[32];
        perf_stats_of(&ps, t, (size_t)o->repeat);
        perf_human_bytes(pk, sizeof(pk), peak);
        snprintf(line, 256, "%-9zu %12zu %10zu %10.3f %10.3f %10.3f %8.1f %14.0f %12s", k, cons,
                 c->num_aux, ps.min, ps.median, ps.max,
                 ps.median > 0 ? 100.0 * (ps.max - ps.min) / ps.median : 0.0,
                 ps.median > 0 ? (double)cons / (ps.median / 1e3) : 0.0, pk);
    }
    if (t != tot) {
        cz_free(t);
    }
    return rc;
}

/* The "synthesis" stage over every selected partition, then the table (printed once all ran,
 * so that --timing lines come first). -1, or an exit code. */
static int synth_partitions(synth_state *st, const synth_opts *o)
{
    char(*table)[256] = cz_calloc(st->k1 - st->k0, sizeof(*table));
    int rc = -1;

    if (!table) {
        return cli_error(SYNTH_CMD, "out of memory");
    }
    cli_progress_begin(&st->pg, "synthesis", (uint64_t)(st->k1 - st->k0) * o->repeat);
    for (size_t k = st->k0; k < st->k1 && rc < 0; k++) {
        rc = synth_partition(st, o, k, table[k - st->k0]);
    }
    if (rc < 0) {
        cli_progress_end(&st->pg);
        printf("%-9s %12s %10s %10s %10s %10s %8s %14s %12s\n", "partition", "constraints", "aux",
               "min_ms", "median_ms", "max_ms", "spread%", "constraints/s", "alloc_peak");
        for (size_t i = 0; i < st->k1 - st->k0; i++) {
            printf("%s\n", table[i]);
        }
    }
    cz_free(table);
    return rc;
}

/* The process's idle and peak resident memory (and --memmon's peak). */
static void synth_print_memory(synth_state *st, const synth_opts *o)
{
    perf_memmon_peak mp;
    char a[32], b[32];

    memset(&mp, 0, sizeof(mp));
    perf_memmon_stop(st->mm, &mp);
    st->mm = NULL;
    uint64_t peak_rss = cz_rss_peak();
    perf_human_bytes(a, sizeof(a), st->idle_rss);
    perf_human_bytes(b, sizeof(b), peak_rss);
    printf("memory idle_rss_bytes=%" PRIu64 " peak_rss_bytes=%" PRIu64, st->idle_rss, peak_rss);
    if (o->memmon) {
        printf(" memmon_peak_rss_bytes=%" PRIu64 " memmon_samples=%zu", mp.rss[0], mp.samples);
    }
    printf(" (idle %s, peak %s)\n", a, b);
}

static int synth_run_all(synth_state *st, synth_opts *o, const cli_vreq_flags *f)
{
    int rc;

    if (!synth_check_opts(o, st)) {
        return CLI_EXIT_ERROR;
    }
    st->idle_rss = cz_rss_now();
    if (o->memmon) {
        perf_memmon_src src = {"rss", 0};
        if (!perf_memmon_start(&st->mm, SYNTH_CMD, o->memmon, &src, 1, false)) {
            return CLI_EXIT_ERROR;
        }
    }
    /* stages: parse, the shape (pce only), synthesis (partitions x repeat runs) */
    cli_progress_init(&st->pg, SYNTH_CMD, uses_shape(o->bk) ? 3 : 2,
                      cli_progress_default_mode(o->quiet));
    if (!synth_plan(st, o, f) || !synth_prepare(st, o)) {
        return CLI_EXIT_ERROR;
    }
    rc = synth_partitions(st, o);
    if (rc >= 0) {
        return rc;
    }
    synth_print_memory(st, o);
    return CLI_EXIT_OK;
}

int cmd_synth(int argc, char **argv)
{
    cli_vreq_flags f;
    synth_opts o = {.backend = "prover", .repeat = 3, .threads = 1};
    synth_state st;
    int rc;

    memset(&st, 0, sizeof(st));
    cli_progress_init(&st.pg, SYNTH_CMD, 0, CLI_PROGRESS_QUIET);
    rc = cli_vreq_flags_init(&f, SYNTH_CMD, argc, argv);
    if (rc >= 0) {
        return rc;
    }
    rc = synth_parse(&o, &f);
    if (rc < 0) {
        rc = synth_run_all(&st, &o, &f);
    }
    cli_progress_hide(&st.pg);
    perf_memmon_stop(st.mm, NULL);
    eng_offline_free(st.off);
    synth_gpu_free(st.g);
    cs_shape_clear(&st.shape);
    cz_pool_free(st.pool);
    cz_free(st.runs);
    cz_free(st.vps);
    cli_vreq_clear(&st.r);
    cli_vreq_flags_clear(&f);
    return rc;
}
