/* bench_circuits.c - synthesis speed of the Filecoin circuits, in ns per constraint (the "n"
 * column is the number of constraints of one partition; constraints per second = 1e9 / median).
 * After each case a comment line gives constraints/s and the process's peak RSS so far
 * (cz_rss_peak; cases run from small to large).
 *   post_window_2kib_<bk>   WindowPoSt 2 KiB partition (2 sectors x 10 challenges)
 *   post_window_32gib_count WindowPoSt 32 GiB partition (2349 sectors), counter, 1 thread / pool
 *   post_window_32gib_witness_mt  the same partition with the witness backend on the pool (4 GB
 *                           of values: only when named exactly)
 *   porep_<size>_<bk>       PoRep partition (2 KiB, 8 MiB: 2 challenges), one thread
 *   porep_<size>_<bk>_mt    the same with the challenges on the pool (all CPUs; cs_fork children
 *                           joined in order), the challenge counts cached as an engine would
 *   porep_<size>_witness_mt_nocache
 *                           the same, counting one challenge inside every synthesis
 *   porep_<size>_shape_mt   the compact shape recorder (blank circuit, challenges on the pool);
 *                           a comment line gives the shape's bytes, bytes per non-zero and the
 *                           dictionary size
 *   porep_<size>_compact(_mt) the witness backend plus cs_shape_eval (a, b, c and densities from
 *                           the recorded shape): the per-proof work of the pre-compiled
 *                           evaluator, to compare with porep_<size>_prover(_mt); _mt runs the
 *                           challenges and the products on the pool
 *   porep_<size>_compact_reuse(_mt) the same with cs_shape_mul into a, b, c buffers kept from
 *                           proof to proof (faulted in before timing) and the witness written
 *                           into the last run's values (cs_new_witness_reuse), as the engine
 *                           reuses a proved partition's assignment
 *   porep_<size>_{prover,compact,compact_reuse}[_mt]_warm
 *                           the same after a warm-up run, 3 timed runs (at 512 MiB the plain
 *                           cases time one cold run, whose page faults can cost more than the
 *                           work on a busy machine)
 *   porep_<size>_shape_eval_mt   cs_shape_eval alone on the pool
 *   porep_<size>_shape_mul(_mt)  cs_shape_mul alone into kept buffers, one thread (pool), with
 *                           its scratch kept too; _mt runs twice, in turns with
 *   porep_<size>_shape_mul_noscratch_mt  the same without scratch (the slower path)
 *   porep_32gib_count       the 32 GiB PoRep partition (18 challenges), counter backend
 *   porep_32gib_shape       its compact shape recorded on the pool (~6 GB; named only)
 * With CUZK_BENCH_SHAPE_FILE=<path>, the shape cases also save the shape there and load it
 * back, timed.
 *   porep_32gib_witness / porep_32gib_prover (+ _mt)
 *                           the same with the witness / prover backend: 4 / 17 GB of memory, so
 *                           they run only when named exactly on the command line
 * Witnesses are random values of the right shape (synthesis cost does not depend on whether the
 * witness satisfies the circuit; zero witnesses would take the evaluator's shortcuts).
 * For the small cases a comment line also gives the CPU time of one more run, in all and on the
 * busiest thread (Linux schedstat): the busiest thread's time is the run's critical path, what
 * the wall time would be on otherwise idle cores, so it shows the parallel speedup even when
 * other work shares the machine.
 * Usage: bench_circuits [filter...]
 */
#include "bench.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/circuits.h"
#include "common/alloc.h"
#include "common/pool.h"
#include "common/rand.h"
#include "r1cs/r1cs.h"

typedef enum { BK_COUNTER, BK_WITNESS, BK_PROVER, BK_SHAPE, BK_COMPACT, BK_COMPACT_REUSE } backend;

typedef void (*synth_fn)(cs_t *cs, void *ctx, cz_pool *pool);

/* What the compact cases keep from run to run: a, b, c and cs_shape_mul's scratch. */
typedef struct kept_bufs {
    fr_t *abc[3];
    void *scratch;
} kept_bufs;

typedef struct run {
    backend bk;
    synth_fn fn;
    void *ctx;
    cz_pool *pool;
    cs_counts_t hint;
    const cs_shape_t *shape; /* BK_COMPACT, BK_COMPACT_REUSE */
    const kept_bufs *kept;   /* BK_COMPACT_REUSE: a, b, c and scratch kept from run to run */
    cs_assignment_t spare;   /* BK_COMPACT_REUSE: the last run's values, recycled */
} run;

/* BK_SHAPE: takes and drops the shape; BK_COMPACT: the assignment, then a, b, c from the
 * shape. */
static void run_take(run *r, cs_t *cs)
{
    cs_shape_t shape;
    cs_assignment_t asg;

    if (r->bk == BK_SHAPE) {
        if (cs_take_shape(cs, &shape, NULL) != CUZK_OK) {
            exit(1);
        }
        cs_shape_clear(&shape);
    } else if (r->bk == BK_COMPACT) {
        if (cs_take_assignment(cs, &asg, NULL) != CUZK_OK ||
            cs_shape_eval(r->shape, &asg, r->pool, NULL) != CUZK_OK) {
            fprintf(stderr, "bench_circuits: compact evaluation failed\n");
            exit(1);
        }
        cs_assignment_clear(&asg);
    } else if (r->bk == BK_COMPACT_REUSE) {
        if (cs_take_assignment(cs, &asg, NULL) != CUZK_OK) {
            exit(1);
        }
        cs_shape_mul(r->shape, r->kept->abc[0], r->kept->abc[1], r->kept->abc[2], asg.inputs,
                     asg.aux, r->kept->scratch, r->pool);
        cs_assignment_clear(&r->spare);
        r->spare = asg;
    }
}

static void run_once(void *p)
{
    run *r = p;
    cs_t *cs = NULL;
    cuzk_err err;

    switch (r->bk) {
    case BK_COUNTER:
        err = cs_new_counter(&cs, NULL);
        break;
    case BK_WITNESS:
    case BK_COMPACT:
        err = cs_new_witness(&cs, &r->hint, NULL);
        break;
    case BK_COMPACT_REUSE:
        err = cs_new_witness_reuse(&cs, &r->hint, &r->spare, NULL);
        break;
    case BK_SHAPE:
        err = cs_new_shape_recorder(&cs, &r->hint, NULL);
        break;
    default:
        err = cs_new_prover(&cs, &r->hint, NULL);
        break;
    }
    if (err != CUZK_OK) {
        fprintf(stderr, "bench_circuits: cs_new failed\n");
        exit(1);
    }
    r->fn(cs, r->ctx, r->pool);
    if (cs_finish(cs, NULL) != CUZK_OK) {
        fprintf(stderr, "bench_circuits: synthesis failed\n");
        exit(1);
    }
    run_take(r, cs);
    cs_free(cs);
}

/* CPU time of each thread of this process so far (ns), by thread id; the count (0 where
 * /proc is not available). */
#define MAX_THREADS 256
typedef struct thread_cpu {
    long tid;
    uint64_t ns;
} thread_cpu;

static size_t thread_cpu_snapshot(thread_cpu *out)
{
    DIR *d = opendir("/proc/self/task");
    struct dirent *e;
    size_t n = 0;

    if (!d) {
        return 0;
    }
    while (n < MAX_THREADS && (e = readdir(d)) != NULL) {
        char path[300]; /* d_name holds up to 255 bytes */
        unsigned long long ns;
        if (e->d_name[0] == '.') {
            continue;
        }
        snprintf(path, sizeof(path), "/proc/self/task/%s/schedstat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) {
            continue;
        }
        if (fscanf(f, "%llu", &ns) == 1) {
            out[n].tid = strtol(e->d_name, NULL, 10);
            out[n].ns = ns;
            n++;
        }
        fclose(f);
    }
    closedir(d);
    return n;
}

/* One run, and its CPU time in all and on the busiest thread. */
static void report_cpu(const char *name, run *r)
{
    static thread_cpu before[MAX_THREADS], after[MAX_THREADS];
    size_t nb = thread_cpu_snapshot(before), na;
    uint64_t total = 0, busiest = 0;

    run_once(r);
    na = thread_cpu_snapshot(after);
    if (nb == 0 || na == 0) {
        return;
    }
    for (size_t i = 0; i < na; i++) {
        uint64_t d = after[i].ns;
        for (size_t j = 0; j < nb; j++) {
            if (before[j].tid == after[i].tid) {
                d -= before[j].ns;
                break;
            }
        }
        total += d;
        busiest = d > busiest ? d : busiest;
    }
    printf("# %s cpu_ms=%.1f busiest_thread_ms=%.1f\n", name, (double)total / 1e6,
           (double)busiest / 1e6);
}

static void bench_run_shape(const char *name, backend bk, synth_fn fn, void *ctx, cz_pool *pool,
                            unsigned iters, const cs_shape_t *shape, const kept_bufs *kept)
{
    run r = {bk, fn, ctx, pool, {0, 0, 0}, shape, kept, {0}};
    cs_t *cs = NULL;
    double t0, dt;

    /* counts first: the size hint, and n */
    if (cs_new_counter(&cs, NULL) != CUZK_OK) {
        exit(1);
    }
    t0 = bench_now();
    fn(cs, ctx, pool);
    dt = bench_now() - t0;
    cs_get_counts(cs, &r.hint);
    cs_free(cs);
    if (iters == 1) {
        /* the big cases: one timed run, no warm-up (a counter run just served as one) */
        if (bk != BK_COUNTER) {
            t0 = bench_now();
            report_cpu(name, &r);
            dt = bench_now() - t0;
        }
        double ns = dt * 1e9 / (double)r.hint.num_constraints;
        printf("%-32s %12zu %6u %12.3f %12.3f %12.3f ns\n", name, r.hint.num_constraints, 1u, ns,
               ns, ns);
    } else {
        bench_case(name, r.hint.num_constraints, iters, (double)r.hint.num_constraints, BENCH_NS,
                   run_once, &r);
        report_cpu(name, &r);
    }
    printf("# %s constraints=%zu aux=%zu peak_rss_mib=%.1f\n", name, r.hint.num_constraints,
           r.hint.num_aux, (double)cz_rss_peak() / (1 << 20));
    fflush(stdout);
    cs_assignment_clear(&r.spare);
}

static void bench_run(const char *name, backend bk, synth_fn fn, void *ctx, cz_pool *pool,
                      unsigned iters)
{
    bench_run_shape(name, bk, fn, ctx, pool, iters, NULL, NULL);
}

/* ------------------------------------------------------------------------------------------
 * Random witnesses of the right shape
 * ---------------------------------------------------------------------------------------- */

static void rand_fr(fr_t *out, cz_prng *g)
{
    uint64_t l[4];
    for (unsigned i = 0; i < 4; i++) {
        l[i] = cz_prng_u64(g);
    }
    fr_from_u256_reduce(out, l);
}

/* A pool of random values and positions that every path and column points into. */
typedef struct rnd_store {
    fr_t vals[4096];
    uint32_t idx[64]; /* valid for any arity >= 2: positions 0 / 1 */
} rnd_store;

static circ_path_t rnd_path(const rnd_store *s, cz_prng *g)
{
    circ_path_t p = {&s->vals[cz_prng_below(g, 2048)], s->idx};
    return p;
}

typedef struct porep_bench {
    circ_porep_cfg_t cfg;
    circ_porep_challenge_t ch[CIRC_MAX_CHALLENGES_PER_PARTITION];
    circ_porep_witness_t w;
    rnd_store *s;
    cs_counts_t each; /* one challenge's counts, counted at the first use (untimed warm-up) */
    bool have_each;
} porep_bench;

static void porep_bench_init(porep_bench *b, uint64_t sector_bytes, cz_prng *g)
{
    if (!circ_porep_cfg_for_sector(&b->cfg, sector_bytes)) {
        exit(1);
    }
    b->s = cz_malloc(sizeof(*b->s));
    if (!b->s) {
        exit(1);
    }
    for (size_t i = 0; i < ARRAY_LEN(b->s->vals); i++) {
        rand_fr(&b->s->vals[i], g);
    }
    for (size_t i = 0; i < ARRAY_LEN(b->s->idx); i++) {
        b->s->idx[i] = (uint32_t)(cz_prng_u64(g) & 1);
    }
    for (size_t c = 0; c < b->cfg.challenges; c++) {
        circ_porep_challenge_t *ch = &b->ch[c];
        ch->node = cz_prng_below(g, b->cfg.nodes);
        rand_fr(&ch->data_leaf, g);
        ch->comm_d_path = rnd_path(b->s, g);
        ch->comm_r_last_path = rnd_path(b->s, g);
        ch->comm_c_path = rnd_path(b->s, g);
        for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
            ch->drg[j].rows = &b->s->vals[cz_prng_below(g, 4000)];
            ch->drg[j].path = rnd_path(b->s, g);
        }
        for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
            ch->exp[j].rows = &b->s->vals[cz_prng_below(g, 4000)];
            ch->exp[j].path = rnd_path(b->s, g);
        }
    }
    rand_fr(&b->w.replica_id, g);
    rand_fr(&b->w.comm_d, g);
    rand_fr(&b->w.comm_r, g);
    rand_fr(&b->w.comm_c, g);
    rand_fr(&b->w.comm_r_last, g);
    b->w.challenges = b->ch;
    b->have_each = false;
}

static void porep_synth(cs_t *cs, void *ctx, cz_pool *pool)
{
    porep_bench *b = ctx;
    (void)pool;
    circ_porep_synth(cs, &b->cfg, &b->w);
}

static void porep_blank(cs_t *cs, void *ctx, cz_pool *pool)
{
    porep_bench *b = ctx;
    (void)pool;
    circ_porep_synth(cs, &b->cfg, NULL);
}

/* The challenges on the pool (the counter needs no counts). */
static void porep_synth_mt(cs_t *cs, void *ctx, cz_pool *pool)
{
    porep_bench *b = ctx;
    if (!b->have_each) {
        if (circ_porep_challenge_counts(&b->each, &b->cfg, NULL) != CUZK_OK) {
            exit(1);
        }
        b->have_each = true;
    }
    circ_porep_synth_pool(cs, &b->cfg, &b->w, pool, &b->each);
}

static void porep_synth_mt_nocache(cs_t *cs, void *ctx, cz_pool *pool)
{
    porep_bench *b = ctx;
    circ_porep_synth_pool(cs, &b->cfg, &b->w, pool, NULL);
}

static void porep_blank_mt(cs_t *cs, void *ctx, cz_pool *pool)
{
    porep_bench *b = ctx;
    circ_porep_synth_pool(cs, &b->cfg, NULL, pool, NULL);
}

/* cs_shape_eval alone, on a witness assignment whose a, b, c each run drops first. */
typedef struct eval_run {
    const cs_shape_t *shape;
    cs_assignment_t *asg;
    cz_pool *pool;
} eval_run;

static void eval_once(void *p)
{
    eval_run *e = p;

    cz_free(e->asg->a);
    cz_free(e->asg->b);
    cz_free(e->asg->c);
    e->asg->a = e->asg->b = e->asg->c = NULL;
    e->asg->m = 0;
    if (cs_shape_eval(e->shape, e->asg, e->pool, NULL) != CUZK_OK) {
        exit(1);
    }
}

/* The shape of b's partition, recorded with the challenges on the pool (blank circuit). */
static void porep_record_shape(cs_shape_t *out, porep_bench *b, cz_pool *pool)
{
    cs_t *cs = NULL;

    if (cs_new_shape_recorder(&cs, NULL, NULL) != CUZK_OK) {
        exit(1);
    }
    porep_blank_mt(cs, b, pool);
    if (cs_finish(cs, NULL) != CUZK_OK || cs_take_shape(cs, out, NULL) != CUZK_OK) {
        fprintf(stderr, "bench_circuits: shape recording failed\n");
        exit(1);
    }
    cs_free(cs);
}

/* Records the shape of b's partition into *out and prints its size. With CUZK_BENCH_SHAPE_FILE
 * set, also saves it there and loads it back (timed; the loaded copy replaces *out). */
static void porep_shape_report(cs_shape_t *out, porep_bench *b, const char *tag, cz_pool *pool)
{
    const char *path = getenv("CUZK_BENCH_SHAPE_FILE");
    double t0 = bench_now();
    cz_diag dg;

    porep_record_shape(out, b, pool);
    size_t nnz = out->A.nnz + out->B.nnz + out->C.nnz, bytes = cs_shape_bytes(out);
    printf("# porep_%s_shape rows=%zu nnz=%zu (A %zu, B %zu, C %zu) dict=%zu bytes=%zu "
           "bytes_per_nnz=%.3f record_ms=%.1f peak_rss_mib=%.1f\n",
           tag, out->A.rows, nnz, out->A.nnz, out->B.nnz, out->C.nnz, out->dict_len, bytes,
           (double)bytes / (double)nnz, (bench_now() - t0) * 1e3,
           (double)cz_rss_peak() / (1 << 20));
    if (!path) {
        return;
    }
    cz_diag_init(&dg);
    t0 = bench_now();
    if (cs_shape_save(out, path, tag, strlen(tag), pool, &dg) != CUZK_OK) {
        fprintf(stderr, "bench_circuits: %s\n", dg.msg);
        exit(1);
    }
    double save = bench_now() - t0;
    cs_shape_clear(out);
    t0 = bench_now();
    if (cs_shape_load(out, path, tag, strlen(tag), pool, &dg) != CUZK_OK) {
        fprintf(stderr, "bench_circuits: %s\n", dg.msg);
        exit(1);
    }
    printf("# porep_%s_shape_file save_ms=%.1f load_ms=%.1f (checksums and validation on %u "
           "threads)\n",
           tag, save * 1e3, (bench_now() - t0) * 1e3, cz_pool_width(pool));
    fflush(stdout);
}

/* One of the cases that compare the pre-compiled evaluator with the prover backend. */
typedef struct cmp_case {
    const char *suffix;
    backend bk;
    bool mt;
} cmp_case;

static const cmp_case cmp_cases[] = {
    {"prover", BK_PROVER, false},
    {"prover_mt", BK_PROVER, true},
    {"compact", BK_COMPACT, false},
    {"compact_mt", BK_COMPACT, true},
    {"compact_reuse", BK_COMPACT_REUSE, false},
    {"compact_reuse_mt", BK_COMPACT_REUSE, true},
};

static void cmp_name(char *out, size_t cap, const char *tag, const cmp_case *c, int warm)
{
    snprintf(out, cap, "porep_%s_%s%s", tag, c->suffix, warm ? "_warm" : "");
}

/* True when one of the comparison cases below is selected. */
static bool cmp_selected(int argc, char **argv, const char *tag)
{
    char name[64];

    for (int warm = 0; warm < 2; warm++) {
        for (size_t i = 0; i < ARRAY_LEN(cmp_cases); i++) {
            cmp_name(name, sizeof(name), tag, &cmp_cases[i], warm);
            if ((warm || cmp_cases[i].bk != BK_PROVER) && bench_selected(argc, argv, name)) {
                return true;
            }
        }
    }
    return false;
}

/* The compact cases with `iters` runs as the other cases of the size (cold: one run without
 * warm-up at 512 MiB) and, as <name>_warm, the prover and compact cases again with a warm-up
 * run and 3 timed runs (a daemon's steady state: the heap has its pages). */
static void porep_cmp_cases(int argc, char **argv, porep_bench *b, const char *tag, unsigned iters,
                            cz_pool *pool, const cs_shape_t *shape, const kept_bufs *kept)
{
    char name[64];

    for (int warm = 0; warm < 2; warm++) {
        for (size_t i = 0; i < ARRAY_LEN(cmp_cases); i++) {
            const cmp_case *c = &cmp_cases[i];
            if (!warm && c->bk == BK_PROVER) {
                continue; /* the plain prover cases are above */
            }
            cmp_name(name, sizeof(name), tag, c, warm);
            if (bench_selected(argc, argv, name)) {
                bench_run_shape(name, c->bk, c->mt ? porep_synth_mt : porep_synth, b,
                                c->mt ? pool : NULL, warm ? 3 : iters, shape, kept);
            }
        }
    }
}

/* cs_shape_mul into the kept buffers, on one thread and on the pool. */
typedef struct mul_run {
    const cs_shape_t *shape;
    const cs_assignment_t *asg;
    fr_t *const *abc;
    void *scratch;
    cz_pool *pool;
} mul_run;

static void mul_once(void *p)
{
    mul_run *e = p;

    cs_shape_mul(e->shape, e->abc[0], e->abc[1], e->abc[2], e->asg->inputs, e->asg->aux, e->scratch,
                 e->pool);
}

/* The names of the products cases of one size: shape_eval_mt, shape_mul, shape_mul_mt,
 * shape_mul_noscratch_mt. */
typedef struct products_names {
    char ev[64], mul[64], mul_mt[64], mul_plain[64];
} products_names;

static bool products_selected(int argc, char **argv, const char *tag, products_names *nm)
{
    snprintf(nm->ev, sizeof(nm->ev), "porep_%s_shape_eval_mt", tag);
    snprintf(nm->mul, sizeof(nm->mul), "porep_%s_shape_mul", tag);
    snprintf(nm->mul_mt, sizeof(nm->mul_mt), "porep_%s_shape_mul_mt", tag);
    snprintf(nm->mul_plain, sizeof(nm->mul_plain), "porep_%s_shape_mul_noscratch_mt", tag);
    return bench_selected(argc, argv, nm->ev) || bench_selected(argc, argv, nm->mul) ||
           bench_selected(argc, argv, nm->mul_mt);
}

/* The products alone (see the file comment): cs_shape_eval (a, b, c allocated) and cs_shape_mul
 * (kept buffers) on one witness assignment of b's partition. */
static void porep_products_cases(int argc, char **argv, porep_bench *b, const char *tag,
                                 cz_pool *pool, const cs_shape_t *shape, const kept_bufs *kept)
{
    products_names nm;
    cs_assignment_t asg;
    cs_t *cs = NULL;

    if (!products_selected(argc, argv, tag, &nm)) {
        return;
    }
    if (cs_new_witness(&cs, NULL, NULL) != CUZK_OK) {
        exit(1);
    }
    porep_synth_mt(cs, b, pool);
    if (cs_finish(cs, NULL) != CUZK_OK || cs_take_assignment(cs, &asg, NULL) != CUZK_OK) {
        exit(1);
    }
    cs_free(cs);
    double n = (double)shape->num_constraints;
    mul_run m1 = {shape, &asg, kept->abc, kept->scratch, NULL};
    mul_run m2 = {shape, &asg, kept->abc, kept->scratch, pool};
    mul_run m3 = {shape, &asg, kept->abc, NULL, pool};
    if (bench_selected(argc, argv, nm.mul)) {
        bench_case(nm.mul, shape->num_constraints, 5, n, BENCH_NS, mul_once, &m1);
    }
    if (bench_selected(argc, argv, nm.mul_mt)) {
        /* in turns with the scratch-free path, so that both see the same minutes */
        for (int round = 0; round < 2; round++) {
            bench_case(nm.mul_mt, shape->num_constraints, 5, n, BENCH_NS, mul_once, &m2);
            bench_case(nm.mul_plain, shape->num_constraints, 5, n, BENCH_NS, mul_once, &m3);
        }
    }
    if (bench_selected(argc, argv, nm.ev)) {
        eval_run e = {shape, &asg, pool};
        bench_case(nm.ev, shape->num_constraints, 3, n, BENCH_NS, eval_once, &e);
    }
    cs_assignment_clear(&asg);
}

/* The pre-compiled evaluator's cases of one PoRep size (see the file comment). */
static void porep_compact_cases(int argc, char **argv, porep_bench *b, const char *tag,
                                unsigned iters, cz_pool *pool)
{
    char rec[64];
    products_names nm;
    cs_shape_t shape;
    kept_bufs kept;
    cz_buf buf[4];

    snprintf(rec, sizeof(rec), "porep_%s_shape_mt", tag);
    if (!pool || !(bench_selected(argc, argv, rec) || products_selected(argc, argv, tag, &nm) ||
                   cmp_selected(argc, argv, tag))) {
        return;
    }
    porep_shape_report(&shape, b, tag, pool);
    if (bench_selected(argc, argv, rec)) {
        bench_run(rec, BK_SHAPE, porep_blank_mt, b, pool, iters);
    }
    for (int k = 0; k < 4; k++) {
        /* huge-page backed as an engine's would be, and faulted in before timing */
        size_t len = k < 3 ? shape.A.rows * sizeof(fr_t) : cs_shape_mul_scratch_bytes(&shape);
        if (cz_buf_new(&buf[k], len, NULL) != CUZK_OK) {
            exit(1);
        }
        memset(buf[k].ptr, 0, buf[k].len);
        if (k < 3) {
            kept.abc[k] = buf[k].ptr;
        }
    }
    kept.scratch = buf[3].ptr;
    porep_cmp_cases(argc, argv, b, tag, iters, pool, &shape, &kept);
    porep_products_cases(argc, argv, b, tag, pool, &shape, &kept);
    for (int k = 0; k < 4; k++) {
        cz_buf_free(&buf[k]);
    }
    cs_shape_clear(&shape);
}

typedef struct post_bench {
    circ_post_cfg_t cfg;
    circ_post_sector_t *sectors;
    fr_t leaves[CIRC_WINDOW_POST_CHALLENGES];
    circ_path_t paths[CIRC_WINDOW_POST_CHALLENGES];
    rnd_store *s;
} post_bench;

static void post_synth(cs_t *cs, void *ctx, cz_pool *pool)
{
    post_bench *b = ctx;
    circ_post_synth(cs, &b->cfg, b->sectors, pool);
}

static void post_bench_init(post_bench *b, uint64_t sector_bytes, cz_prng *g)
{
    if (!circ_window_post_cfg(&b->cfg, sector_bytes, 0)) {
        exit(1);
    }
    b->s = cz_malloc(sizeof(*b->s));
    b->sectors = cz_calloc(b->cfg.sector_count, sizeof(*b->sectors));
    if (!b->s || !b->sectors) {
        exit(1);
    }
    for (size_t i = 0; i < ARRAY_LEN(b->s->vals); i++) {
        rand_fr(&b->s->vals[i], g);
    }
    memset(b->s->idx, 0, sizeof(b->s->idx));
    for (size_t j = 0; j < CIRC_WINDOW_POST_CHALLENGES; j++) {
        rand_fr(&b->leaves[j], g);
        b->paths[j] = rnd_path(b->s, g);
    }
    for (size_t i = 0; i < b->cfg.sector_count; i++) {
        rand_fr(&b->sectors[i].comm_r, g);
        rand_fr(&b->sectors[i].comm_c, g);
        rand_fr(&b->sectors[i].comm_r_last, g);
        b->sectors[i].leaves = b->leaves;
        b->sectors[i].paths = b->paths;
    }
}

static void post_bench_free(post_bench *b)
{
    cz_free(b->s);
    cz_free(b->sectors);
}

/* True when `name` is given exactly on the command line. */
static bool named(int argc, char **argv, const char *name)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], name) == 0) {
            return true;
        }
    }
    return false;
}

int main(int argc, char **argv)
{
    static const char *const bk_name[3] = {"count", "witness", "prover"};
    cz_prng g;
    cz_pool *pool = NULL;
    char name[64];

    cz_prng_seed(&g, 42);
    if (cz_cpu_count() > 1 && cz_pool_new(&pool, cz_cpu_count() - 1, "bench", NULL) != CUZK_OK) {
        return 1;
    }
    bench_header();

    {
        post_bench pb;
        post_bench_init(&pb, 2048, &g);
        for (int bk = BK_WITNESS; bk <= BK_PROVER; bk++) {
            snprintf(name, sizeof(name), "post_window_2kib_%s", bk_name[bk]);
            if (bench_selected(argc, argv, name)) {
                bench_run(name, (backend)bk, post_synth, &pb, NULL, 20);
            }
        }
        post_bench_free(&pb);
    }

    static const struct {
        uint64_t bytes;
        const char *tag;
        unsigned iters;
    } porep_sizes[] = {
        {2048, "2kib", 3}, {UINT64_C(8) << 20, "8mib", 3}, {UINT64_C(512) << 20, "512mib", 1}};
    for (size_t i = 0; i < ARRAY_LEN(porep_sizes); i++) {
        porep_bench b;
        porep_bench_init(&b, porep_sizes[i].bytes, &g);
        for (int bk = BK_COUNTER; bk <= BK_PROVER; bk++) {
            snprintf(name, sizeof(name), "porep_%s_%s", porep_sizes[i].tag, bk_name[bk]);
            if (bench_selected(argc, argv, name)) {
                bench_run(name, (backend)bk, bk == BK_COUNTER ? porep_blank : porep_synth, &b, NULL,
                          porep_sizes[i].iters);
            }
            snprintf(name, sizeof(name), "porep_%s_%s_mt", porep_sizes[i].tag, bk_name[bk]);
            if (pool && bench_selected(argc, argv, name)) {
                printf("# %s threads=%u\n", name, cz_pool_width(pool));
                bench_run(name, (backend)bk, bk == BK_COUNTER ? porep_blank_mt : porep_synth_mt, &b,
                          pool, porep_sizes[i].iters);
            }
        }
        snprintf(name, sizeof(name), "porep_%s_witness_mt_nocache", porep_sizes[i].tag);
        if (pool && bench_selected(argc, argv, name)) {
            bench_run(name, BK_WITNESS, porep_synth_mt_nocache, &b, pool, porep_sizes[i].iters);
        }
        porep_compact_cases(argc, argv, &b, porep_sizes[i].tag, porep_sizes[i].iters, pool);
        cz_free(b.s);
    }

    if (bench_selected(argc, argv, "post_window_32gib_count") ||
        (pool && named(argc, argv, "post_window_32gib_witness_mt"))) {
        post_bench pb;
        post_bench_init(&pb, UINT64_C(32) << 30, &g);
        if (bench_selected(argc, argv, "post_window_32gib_count")) {
            bench_run("post_window_32gib_count_1t", BK_COUNTER, post_synth, &pb, NULL, 1);
            if (pool) {
                bench_run("post_window_32gib_count_mt", BK_COUNTER, post_synth, &pb, pool, 1);
            }
        }
        if (pool && named(argc, argv, "post_window_32gib_witness_mt")) {
            printf("# post_window_32gib_witness_mt threads=%u\n", cz_pool_width(pool));
            bench_run("post_window_32gib_witness_mt", BK_WITNESS, post_synth, &pb, pool, 1);
        }
        post_bench_free(&pb);
    }

    {
        porep_bench b;
        porep_bench_init(&b, UINT64_C(32) << 30, &g);
        if (bench_selected(argc, argv, "porep_32gib_count")) {
            bench_run("porep_32gib_count", BK_COUNTER, porep_blank, &b, NULL, 1);
        }
        if (named(argc, argv, "porep_32gib_witness")) {
            bench_run("porep_32gib_witness", BK_WITNESS, porep_synth, &b, NULL, 1);
        }
        if (named(argc, argv, "porep_32gib_prover")) {
            bench_run("porep_32gib_prover", BK_PROVER, porep_synth, &b, NULL, 1);
        }
        if (pool && named(argc, argv, "porep_32gib_witness_mt")) {
            bench_run("porep_32gib_witness_mt", BK_WITNESS, porep_synth_mt, &b, pool, 1);
        }
        if (pool && named(argc, argv, "porep_32gib_prover_mt")) {
            bench_run("porep_32gib_prover_mt", BK_PROVER, porep_synth_mt, &b, pool, 1);
        }
        if (pool && named(argc, argv, "porep_32gib_shape")) {
            cs_shape_t shape;
            porep_shape_report(&shape, &b, "32gib", pool);
            cs_shape_clear(&shape);
        }
        cz_free(b.s);
    }
    cz_pool_free(pool);
    return 0;
}
