/* bench_groth16.c - parameter generation and the whole Groth16 prover (synthesis excluded) on
 * random-ish circuits of 2^12 .. 2^22 constraints, over a pool using every core. Per size:
 * g16_setup (timed once), writing and loading the .params file (once, in $TMPDIR or /tmp),
 * then the prover broken down by stage: preparation, quotient (spec 4.5), each MSM (H, L, A,
 * B_G1, B_G2), assembly, total. One line per (circuit, stage); times in ms (per proof).
 * Sizes of 2^20 and more time one proof (plus none for warm-up), smaller ones three.
 * Circuits look like Filecoin's: half the constraints are booleanity checks of fresh bits,
 * a third multiply two earlier variables, the rest pack 8 bits into a number; so most aux
 * values are 0 or 1, A is nearly dense and B is sparse.
 * Usage: bench_groth16 [substring ...] selects cases by name ("2^16", "msm_b_g2", ...).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "common/pool.h"
#include "common/rand.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"

#define NUM_PUBLIC 4
#define ITERS      3
#define NSTAGES    9

/* Synthesizes 2^lg - NUM_PUBLIC - 2 constraints (m = 2^lg - 1 with the input constraints). */
static void synth(cs_t *cs, unsigned lg, uint64_t seed)
{
    size_t ncons = ((size_t)1 << lg) - NUM_PUBLIC - 2;
    cz_prng g;
    cs_var_t *vars = malloc((ncons + 8) * sizeof(cs_var_t));
    fr_t *vals = malloc((ncons + 8) * sizeof(fr_t));
    size_t nv = 0;
    fr_t two;

    if (!vars || !vals) {
        fprintf(stderr, "bench_groth16: out of memory\n");
        exit(1);
    }
    cz_prng_seed(&g, seed);
    fr_from_u64(&two, 2);
    for (int i = 0; i < NUM_PUBLIC; i++) {
        fr_from_u64(&vals[nv], cz_prng_u64(&g));
        (void)cs_alloc_input(cs, &vars[nv], &vals[nv]);
        nv++;
    }
    for (size_t k = 0; k < ncons; k++) {
        unsigned kind = (unsigned)cz_prng_below(&g, 100);
        cs_lc_t a = cs_lc(cs), b = cs_lc(cs), c = cs_lc(cs);

        if (kind < 50 || nv < 16) {
            /* booleanity of a fresh bit: b * (b - 1) = 0 */
            vals[nv] = cz_prng_below(&g, 2) ? FR_ONE : FR_ZERO;
            (void)cs_alloc(cs, &vars[nv], &vals[nv]);
            cs_lc_add_var(cs, &a, vars[nv]);
            cs_lc_add_var(cs, &b, vars[nv]);
            cs_lc_sub_var(cs, &b, CS_ONE);
        } else if (kind < 85) {
            /* z = x * y */
            size_t x = (size_t)cz_prng_below(&g, nv), y = (size_t)cz_prng_below(&g, nv);
            fr_mul(&vals[nv], &vals[x], &vals[y]);
            (void)cs_alloc(cs, &vars[nv], &vals[nv]);
            cs_lc_add_var(cs, &a, vars[x]);
            cs_lc_add_var(cs, &b, vars[y]);
            cs_lc_add_var(cs, &c, vars[nv]);
        } else {
            /* s = sum 2^i v_i over 8 earlier variables, times ONE */
            fr_t coeff = FR_ONE, acc = FR_ZERO, t;
            for (int i = 0; i < 8; i++) {
                size_t v = nv - 1 - (size_t)cz_prng_below(&g, 16);
                cs_lc_add(cs, &a, &coeff, vars[v]);
                fr_mul(&t, &coeff, &vals[v]);
                fr_add(&acc, &acc, &t);
                fr_mul(&coeff, &coeff, &two);
            }
            vals[nv] = acc;
            (void)cs_alloc(cs, &vars[nv], &vals[nv]);
            cs_lc_add_var(cs, &b, CS_ONE);
            cs_lc_add_var(cs, &c, vars[nv]);
        }
        nv++;
        (void)cs_enforce(cs, &a, &b, &c, NULL);
    }
    free(vars);
    free(vals);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void report(const char *name, size_t n, double *t, unsigned iters)
{
    qsort(t, iters, sizeof(double), cmp_double);
    printf("%-32s %12zu %6u %12.3f %12.3f %12.3f %s\n", name, n, iters, t[0], t[iters / 2],
           t[iters - 1], "ms");
    fflush(stdout);
}

static void die(const char *what, cuzk_err err, const cz_diag *dg)
{
    fprintf(stderr, "bench_groth16: %s: %s\n", what, dg->msg[0] ? dg->msg : cuzk_strerror(err));
    exit(1);
}

static void tmp_params_path(char *buf, size_t cap, unsigned lg)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/bench_g16_%ld_2^%u.params", dir && dir[0] ? dir : "/tmp", (long)getpid(),
             lg);
}

static void bench_size(unsigned lg, cz_pool *pool, int argc, char **argv)
{
    static const char *const stages[NSTAGES] = {
        "prep", "quotient", "msm_h", "msm_l", "msm_a", "msm_b_g1", "msm_b_g2", "assemble", "total"};
    static const char *const once[3] = {"setup", "params_write", "params_load"};
    char prefix[32], name[64], path[512];
    size_t n = (size_t)1 << lg;
    unsigned iters = lg >= 20 ? 1 : ITERS;
    cs_t *cs = NULL;
    cs_r1cs_t r1cs;
    cs_assignment_t asg;
    g16_params_t *p = NULL, *q = NULL;
    g16_proof_t proof;
    g16_pvk_t pvk;
    g16_prove_stats_t st;
    double t[NSTAGES][ITERS], t_once[3], t0;
    fr_t r, s;
    uint64_t seed = 1;
    bool any = false, valid = false;
    cz_diag dg;
    cuzk_err err;

    snprintf(prefix, sizeof(prefix), "g16_2^%u", lg);
    for (size_t i = 0; i < NSTAGES; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, stages[i]);
        any |= bench_selected(argc, argv, name) != 0;
    }
    for (size_t i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, once[i]);
        any |= bench_selected(argc, argv, name) != 0;
    }
    if (!any) {
        return;
    }
    cz_diag_init(&dg);
    if ((err = cs_new_recorder(&cs, &dg)) != CUZK_OK) {
        die("recorder", err, &dg);
    }
    synth(cs, lg, 42);
    if ((err = cs_finish(cs, &dg)) != CUZK_OK || (err = cs_take_r1cs(cs, &r1cs, &dg)) != CUZK_OK) {
        die("record", err, &dg);
    }
    cs_free(cs);
    if ((err = cs_new_prover(&cs, NULL, &dg)) != CUZK_OK) {
        die("prover", err, &dg);
    }
    synth(cs, lg, 42);
    if ((err = cs_finish(cs, &dg)) != CUZK_OK ||
        (err = cs_take_assignment(cs, &asg, &dg)) != CUZK_OK) {
        die("synthesize", err, &dg);
    }
    cs_free(cs);

    t0 = bench_now();
    if ((err = g16_setup(&p, &r1cs, &seed, pool, &dg)) != CUZK_OK) {
        die("setup", err, &dg);
    }
    t_once[0] = (bench_now() - t0) * 1e3;
    cs_r1cs_clear(&r1cs);
    tmp_params_path(path, sizeof(path), lg);
    t0 = bench_now();
    if ((err = g16_params_write(p, path, pool, &dg)) != CUZK_OK) {
        die("params_write", err, &dg);
    }
    t_once[1] = (bench_now() - t0) * 1e3;
    t0 = bench_now();
    if ((err = g16_params_load(&q, path, NULL, pool, &dg)) != CUZK_OK) {
        die("params_load", err, &dg);
    }
    t_once[2] = (bench_now() - t0) * 1e3;
    remove(path);
    if (q->store.len != p->store.len || memcmp(q->store.ptr, p->store.ptr, p->store.len) != 0) {
        fprintf(stderr, "bench_groth16: loaded parameters differ from the written ones\n");
        exit(1);
    }
    g16_params_free(q);
    for (size_t i = 0; i < 3; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, once[i]);
        if (bench_selected(argc, argv, name)) {
            report(name, n, &t_once[i], 1);
        }
    }

    fr_from_u64(&r, 12345);
    fr_from_u64(&s, 67890);
    if (iters > 1 && (err = g16_prove(p, &proof, &asg, &r, &s, pool, &dg)) != CUZK_OK) {
        die("prove", err, &dg); /* warm-up */
    }
    for (unsigned it = 0; it < iters; it++) {
        if ((err = g16_prove_ex(p, &proof, &asg, &r, &s, NULL, &st, pool, &dg)) != CUZK_OK) {
            die("prove", err, &dg);
        }
        t[0][it] = st.prep_ms;
        t[1][it] = st.quotient_ms;
        t[2][it] = st.msm_h_ms;
        t[3][it] = st.msm_l_ms;
        t[4][it] = st.msm_a_ms;
        t[5][it] = st.msm_b_g1_ms;
        t[6][it] = st.msm_b_g2_ms;
        t[7][it] = st.assemble_ms;
        t[8][it] = st.total_ms;
    }
    g16_pvk_init(&pvk, &p->vk);
    if (g16_verify(&pvk, &valid, &proof, asg.inputs + 1, asg.num_inputs - 1, &dg) != CUZK_OK ||
        !valid) {
        fprintf(stderr, "bench_groth16: the benchmark proof does not verify\n");
        exit(1);
    }
    for (size_t i = 0; i < NSTAGES; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, stages[i]);
        if (bench_selected(argc, argv, name)) {
            report(name, n, t[i], iters);
        }
    }
    g16_params_free(p);
    cs_assignment_clear(&asg);
}

int main(int argc, char **argv)
{
    cz_pool *pool = NULL;
    cz_diag dg;
    unsigned cores = cz_cpu_count();

    cz_diag_init(&dg);
    if (cores > 1 && cz_pool_new(&pool, cores - 1, "bench-g16", &dg) != CUZK_OK) {
        fprintf(stderr, "bench_groth16: %s\n", dg.msg);
        return 1;
    }
    printf("# cores=%u (pool of %u threads + caller)\n", cores, cores > 1 ? cores - 1 : 0);
    bench_header();
    for (unsigned lg = 12; lg <= 22; lg += 2) {
        bench_size(lg, pool, argc, argv);
    }
    cz_pool_free(pool);
    return 0;
}
