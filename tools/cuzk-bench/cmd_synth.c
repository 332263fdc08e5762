/* cmd_synth.c - cuzk-bench synth: synthesis alone, measured partition by partition.
 *
 * The request is parsed by the same handler cuzkd uses (engine/offline.h: vanilla proofs
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
 *           products (cs_shape_eval), giving exactly the prover backend's assignment.
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
#include "engine/offline.h"
#include "perf.h"
#include "progress.h"
#include "synth_gpu.h"

typedef enum { BK_PROVER, BK_COUNT, BK_CHECK, BK_PCE } synth_backend;

typedef struct synth_run {
    double synth_ms, finish_ms, products_ms, total_ms;
    synth_gpu_times gpu; /* --gpu: the products on the device */
    size_t alloc_peak;
    cs_counts_t counts;
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
        return cs_new_witness(cs, hint, dg);
    default:
        return cs_new_checker(cs, dg);
    }
}

/* One synthesis of partition k (with `shape` for BK_PCE). */
static int synth_once(const char *cmd, eng_offline_t *off, synth_backend bk, size_t k,
                      const cs_shape_t *shape, cz_pool *pool, synth_gpu *g, synth_run *run)
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
    if (err == CUZK_OK && (bk == BK_PROVER || bk == BK_PCE)) {
        err = cs_take_assignment(cs, &asg, &dg);
    }
    double t2 = cli_now_ms();
    if (err == CUZK_OK && bk == BK_PCE) {
        err = cs_shape_eval(shape, &asg, pool, &dg);
    }
    double t3 = cli_now_ms();
    if (err == CUZK_OK && g) {
        err = synth_gpu_run(g, &asg, &run->gpu, &dg);
    }
    if (cs) {
        cs_get_counts(cs, &run->counts);
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

static void to_request(const cli_vreq *r, eng_request_t *req, eng_bytes_t *vps)
{
    memset(req, 0, sizeof(*req));
    req->request_id = "synth";
    req->kind = (eng_kind)r->kind;
    req->sector_size = r->sector_size;
    req->registered_proof = r->registered_proof;
    req->sector_number = r->sector_number;
    req->miner_id = r->miner_id;
    req->partition_index = (uint32_t)r->partition_index;
    if (r->kind == CLI_PROOF_POREP) {
        req->vanilla_proof.ptr = r->vanilla.data[0];
        req->vanilla_proof.len = r->vanilla.len[0];
    } else {
        for (size_t i = 0; i < r->vanilla.n; i++) {
            vps[i].ptr = r->vanilla.data[i];
            vps[i].len = r->vanilla.len[i];
        }
        req->vanilla_proofs = vps;
        req->n_vanilla_proofs = r->vanilla.n;
    }
    if (r->has_randomness) {
        req->randomness.ptr = r->randomness;
        req->randomness.len = 32;
    }
    if (r->kind == CLI_PROOF_SNAP) {
        req->comm_r_old = (eng_bytes_t){r->comm_r_old, 32};
        req->comm_r_new = (eng_bytes_t){r->comm_r_new, 32};
        req->comm_d_new = (eng_bytes_t){r->comm_d_new, 32};
    }
}

int cmd_synth(int argc, char **argv)
{
    static const char CMD[] = "synth";
    static const char about[] =
        "Synthesis only, partition by partition, with the daemon's own request parsing and\n"
        "circuits (no parameters, no proving). Each selected partition is synthesized\n"
        "--repeat times into a fresh constraint system of --backend:\n"
        "  prover  witness + a, b, c evaluations, as cuzkd does (default)\n"
        "  count   shape only (inputs, aux, constraints)\n"
        "  check   every constraint checked; an unsatisfied one is an error naming it\n"
        "  pce     witness only + a, b, c from the recorded compact shape (recorded once,\n"
        "          or loaded from --shape-file and saved there when absent)\n"
        "Prints one line per partition: constraints, aux, min / median / max milliseconds,\n"
        "the spread, constraints per second at the median and the peak of allocated bytes;\n"
        "then the process's idle and peak resident memory. --timing adds one line per run\n"
        "with its stages (synthesis = the circuit with the witness and a, b, c; finish =\n"
        "input constraints and hand-over; products = a, b, c from the shape, pce only).\n"
        "--threads N spreads synthesis and the products over N cores, as cuzkd's workers do.\n"
        "--memmon samples resident memory every 100 ms.";
    cli_vreq_flags f;
    cli_vreq r;
    cli_opt_t opts[32];
    const char *backend = "prover", *memmon = NULL, *shape_file = NULL;
    uint64_t partition = 0, repeat = 3, threads = 1;
    cz_pool *pool = NULL;
    cs_shape_t shape;
    bool has_partition = false, timing = false, use_gpu = false, quiet = false;
    cli_progress pg;
    synth_gpu *g = NULL;
    eng_offline_t *off = NULL;
    eng_bytes_t *vps = NULL;
    synth_run *runs = NULL;
    perf_memmon *mm = NULL;
    int rc;

    memset(&shape, 0, sizeof(shape));
    cli_progress_init(&pg, CMD, 0, CLI_PROGRESS_QUIET);
    rc = cli_vreq_flags_init(&f, CMD, argc, argv);
    if (rc >= 0) {
        return rc;
    }
    memset(&r, 0, sizeof(r));
    size_t n = cli_vreq_opts(opts, &f);
    opts[n++] = (cli_opt_t)CLI_OPT_GIVEN("partition", CLI_U64, &partition, "K",
                                         "only partition K (default: every partition)", false,
                                         &has_partition);
    opts[n++] = (cli_opt_t)CLI_OPT("repeat", CLI_U64, &repeat, "N",
                                   "runs per partition (default 3)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("backend", CLI_STR, &backend, "B",
                                   "prover | count | check | pce (default prover)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("threads", CLI_U64, &threads, "N",
                                   "cores for one partition's synthesis (default 1)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("shape-file", CLI_STR, &shape_file, "FILE",
                                   "pce: load the shape from FILE, or save it there", false);
    opts[n++] = (cli_opt_t)CLI_OPT("gpu", CLI_FLAG, &use_gpu, NULL,
                                   "pce: also compute a, b, c on device 0 (timed, compared with "
                                   "the CPU's; with --timing)",
                                   false);
    opts[n++] = (cli_opt_t)CLI_OPT("timing", CLI_FLAG, &timing, NULL,
                                   "one line per run with its stages", false);
    opts[n++] = (cli_opt_t)CLI_OPT("memmon", CLI_STR, &memmon, "FILE.csv",
                                   "sample resident memory every 100 ms into FILE.csv", false);
    opts[n++] = (cli_opt_t)CLI_OPT("quiet", CLI_FLAG, &quiet, NULL, "no progress on stderr", false);
    rc = cli_parse(CMD, about, opts, n, f.argc, f.argv);
    if (rc >= 0) {
        goto out;
    }
    rc = CLI_EXIT_ERROR;
    synth_backend bk;
    if (strcmp(backend, "prover") == 0) {
        bk = BK_PROVER;
    } else if (strcmp(backend, "count") == 0) {
        bk = BK_COUNT;
    } else if (strcmp(backend, "check") == 0) {
        bk = BK_CHECK;
    } else if (strcmp(backend, "pce") == 0) {
        bk = BK_PCE;
    } else {
        cli_error(CMD, "--backend must be prover, count, check or pce (not '%s')", backend);
        goto out;
    }
    if (threads < 1 || threads > 4096) {
        cli_error(CMD, "--threads must be 1 .. 4096");
        goto out;
    }
    if (threads > 1) {
        cz_diag pdg;
        cz_diag_init(&pdg);
        if (cz_pool_new(&pool, (unsigned)threads - 1, "synth", &pdg) != CUZK_OK) {
            cli_error(CMD, "thread pool: %s", pdg.msg);
            goto out;
        }
    }
    if (repeat < 1 || repeat > 100000) {
        cli_error(CMD, "--repeat must be 1 .. 100000");
        goto out;
    }
    uint64_t idle_rss = cz_rss_now();
    if (memmon) {
        perf_memmon_src src = {"rss", 0};
        if (!perf_memmon_start(&mm, CMD, memmon, &src, 1, false)) {
            goto out;
        }
    }
    /* stages: parse, the shape (pce only), synthesis (partitions x repeat runs) */
    cli_progress_init(&pg, CMD, bk == BK_PCE ? 3 : 2, cli_progress_default_mode(quiet));
    cli_progress_begin(&pg, "parse", 0);
    if (!cli_vreq_load(CMD, &f, false, &r)) {
        goto out;
    }
    vps = cz_calloc(r.vanilla.n ? r.vanilla.n : 1, sizeof(*vps));
    runs = cz_calloc((size_t)repeat, sizeof(*runs));
    if (!vps || !runs) {
        cli_error(CMD, "out of memory");
        goto out;
    }
    eng_request_t req;
    to_request(&r, &req, vps);
    cz_diag dg;
    cz_diag_init(&dg);
    double t0 = cli_now_ms();
    cuzk_err err = eng_offline_new(&off, &req, pool, &dg);
    double parse_ms = cli_now_ms() - t0;
    if (err != CUZK_OK) {
        cli_error_diag(CMD, err, &dg);
        goto out;
    }
    const eng_plan_t *plan = eng_offline_plan(off);
    if (has_partition && partition >= plan->num_partitions) {
        cli_error(CMD, "--partition %" PRIu64 ": the request has %zu partition(s)", partition,
                  plan->num_partitions);
        goto out;
    }
    cli_progress_end(&pg);
    printf("synth kind=%s circuit=%s partitions=%zu backend=%s repeat=%" PRIu64 " threads=%" PRIu64
           " parse_ms=%.3f\n",
           cli_proof_name(r.kind), plan->circuit_id, plan->num_partitions, backend, repeat, threads,
           parse_ms);
    size_t k0 = has_partition ? (size_t)partition : 0;
    if (bk == BK_PCE) {
        cli_progress_begin(&pg, "shape", 0);
        if (!get_shape(CMD, off, k0, shape_file, pool, &pg, &shape)) {
            goto out;
        }
        cli_progress_end(&pg);
    }
    if (use_gpu) {
        cz_diag gdg;
        cz_diag_init(&gdg);
        if (bk != BK_PCE) {
            cli_error(CMD, "--gpu needs --backend pce");
            goto out;
        }
        if (synth_gpu_new(&g, &shape, &gdg) != CUZK_OK) {
            cli_error(CMD, "--gpu: %s", gdg.msg);
            goto out;
        }
        printf("gpu shape_upload_ms=%.3f device_bytes=%zu\n", synth_gpu_upload_ms(g),
               synth_gpu_bytes(g));
    }
    if (timing) {
        printf("%-9s %4s %12s %12s %12s %12s\n", "partition", "run", "synthesis_ms", "finish_ms",
               "products_ms", "total_ms");
    }
    size_t k1 = has_partition ? (size_t)partition + 1 : plan->num_partitions;
    char line[256];
    size_t nlines = 0;
    char(*table)[256] = cz_calloc(k1 - k0, sizeof(*table));
    if (!table) {
        cli_error(CMD, "out of memory");
        goto out;
    }
    cli_progress_begin(&pg, "synthesis", (uint64_t)(k1 - k0) * repeat);
    for (size_t k = k0; k < k1; k++) {
        double tot[1024];
        size_t peak = 0;
        perf_stats st;
        double *t = repeat <= ARRAY_LEN(tot) ? tot : cz_malloc((size_t)repeat * sizeof(double));
        if (!t) {
            cz_free(table);
            cli_error(CMD, "out of memory");
            goto out;
        }
        for (uint64_t i = 0; i < repeat; i++) {
            int src = synth_once(CMD, off, bk, k, &shape, pool, g, &runs[i]);
            if (src >= 0) {
                if (t != tot) {
                    cz_free(t);
                }
                cz_free(table);
                rc = src;
                goto out;
            }
            t[i] = runs[i].total_ms;
            peak = runs[i].alloc_peak > peak ? runs[i].alloc_peak : peak;
            if (timing) {
                cli_progress_hide(&pg);
                printf("%-9zu %4" PRIu64 " %12.3f %12.3f %12.3f %12.3f", k, i, runs[i].synth_ms,
                       runs[i].finish_ms, runs[i].products_ms, runs[i].total_ms);
                if (g) {
                    const synth_gpu_times *gt = &runs[i].gpu;
                    printf(" gpu z_upload_ms=%.3f a_ms=%.3f b_ms=%.3f c_ms=%.3f equal=yes",
                           gt->z_upload_ms, gt->spmv_ms[0], gt->spmv_ms[1], gt->spmv_ms[2]);
                }
                printf("\n");
                fflush(stdout);
            }
            cli_progress_update(&pg, (uint64_t)(k - k0) * repeat + i + 1);
        }
        perf_stats_of(&st, t, (size_t)repeat);
        if (t != tot) {
            cz_free(t);
        }
        const cs_counts_t *c = &runs[0].counts;
        size_t cons = c->num_constraints + c->num_inputs; /* with the input constraints */
        char pk[32];
        perf_human_bytes(pk, sizeof(pk), peak);
        snprintf(line, sizeof(line), "%-9zu %12zu %10zu %10.3f %10.3f %10.3f %8.1f %14.0f %12s", k,
                 cons, c->num_aux, st.min, st.median, st.max,
                 st.median > 0 ? 100.0 * (st.max - st.min) / st.median : 0.0,
                 st.median > 0 ? (double)cons / (st.median / 1e3) : 0.0, pk);
        memcpy(table[nlines++], line, sizeof(line));
    }
    cli_progress_end(&pg);
    printf("%-9s %12s %10s %10s %10s %10s %8s %14s %12s\n", "partition", "constraints", "aux",
           "min_ms", "median_ms", "max_ms", "spread%", "constraints/s", "alloc_peak");
    for (size_t i = 0; i < nlines; i++) {
        printf("%s\n", table[i]);
    }
    cz_free(table);
    perf_memmon_peak mp;
    memset(&mp, 0, sizeof(mp));
    perf_memmon_stop(mm, &mp);
    mm = NULL;
    uint64_t peak_rss = cz_rss_peak();
    char a[32], b[32];
    perf_human_bytes(a, sizeof(a), idle_rss);
    perf_human_bytes(b, sizeof(b), peak_rss);
    printf("memory idle_rss_bytes=%" PRIu64 " peak_rss_bytes=%" PRIu64, idle_rss, peak_rss);
    if (memmon) {
        printf(" memmon_peak_rss_bytes=%" PRIu64 " memmon_samples=%zu", mp.rss[0], mp.samples);
    }
    printf(" (idle %s, peak %s)\n", a, b);
    rc = CLI_EXIT_OK;
out:
    cli_progress_hide(&pg);
    perf_memmon_stop(mm, NULL);
    eng_offline_free(off);
    synth_gpu_free(g);
    cs_shape_clear(&shape);
    cz_pool_free(pool);
    cz_free(runs);
    cz_free(vps);
    cli_vreq_clear(&r);
    cli_vreq_flags_clear(&f);
    return rc;
}
