/* bench_groth16.c - parameter generation and the whole Groth16 prover (synthesis excluded) on
 * random-ish circuits of 2^12 .. 2^22 constraints, over a pool using every core. Per size:
 * g16_setup (timed once), writing and loading the .params file (once, in $TMPDIR or /tmp),
 * then the prover broken down by stage: preparation, quotient (spec 4.5), each MSM (H, L, A,
 * B_G1, B_G2), assembly, total. One line per (circuit, stage); times in ms (per proof).
 * Sizes of 2^20 and more time one proof (plus none for warm-up), smaller ones three. The
 * g16_2^k circuits fill their domain (2^k - 1 constraints); g16_porep2k has the scale of a
 * 2 KiB PoRep partition (2.2 million constraints in a domain of 2^22). The *_cpu lines give
 * the process CPU time, steadier than the wall clock on a shared machine.
 * GPU (device 0; skipped without one), at 2^16, 2^20, 2^22 and porep2k: *_gpu_upload makes the
 * parameters resident (g16_gpu_params_new, once), then GPU_ITERS proofs after one warm-up, end
 * to end from the host assignment to the affine proof (*_gpu_wall, measured around the call)
 * and by stage (*_gpu_prep ... *_gpu_total, from g16_prove_stats_t; prep includes the uploads
 * of a, b, c, inputs and aux). The last GPU proof must verify and, when the CPU proof of the
 * same size ran too, equal it byte for byte.
 * Circuits look like Filecoin's: half the constraints are booleanity checks of fresh bits,
 * a third multiply two earlier variables, the rest pack 8 bits into a number; so most aux
 * values are 0 or 1, A is nearly dense and B is sparse.
 * Usage: bench_groth16 [substring ...] selects cases by name ("2^16_", "setup", "porep2k_msm_h",
 * ...); a size is built only when one of its cases is selected, and proofs only when a prover
 * case is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "bench.h"
#include "common/pool.h"
#include "common/rand.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"

#define NUM_PUBLIC 4
#define ITERS      3
#define NSTAGES    10
#define NONCE      9
#define GPU_ITERS  5
#define GPU_NCASES 11

/* Synthesizes ncons constraints (and as many aux variables) after NUM_PUBLIC inputs. */
static void synth(cs_t *cs, size_t ncons, uint64_t seed)
{
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

/* CPU time of the whole process (all threads), ms: on a shared machine this is steadier than
 * the wall clock, and wall ~ cpu / cores when the work parallelizes. */
static double cpu_ms(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
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

static void tmp_params_path(char *buf, size_t cap, const char *prefix)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, cap, "%s/bench_%ld_%s.params", dir && dir[0] ? dir : "/tmp", (long)getpid(),
             prefix);
}

/* Prover stages, one line each (ms per proof); total_cpu is the process CPU time. */
static const char *const PROVE_STAGES[NSTAGES] = {"prep",  "quotient", "msm_h",    "msm_l",
                                                  "msm_a", "msm_b_g1", "msm_b_g2", "assemble",
                                                  "total", "total_cpu"};

/* The fixed randomizers of every benchmark proof (CPU and GPU proofs are then comparable). */
static void bench_rs(fr_t *r, fr_t *s)
{
    fr_from_u64(r, 12345);
    fr_from_u64(s, 67890);
}

static void check_verifies(const g16_params_t *p, const cs_assignment_t *asg,
                           const g16_proof_t *proof, const char *what)
{
    g16_pvk_t pvk;
    bool valid = false;
    cz_diag dg;

    cz_diag_init(&dg);
    g16_pvk_init(&pvk, &p->vk);
    if (g16_verify(&pvk, &valid, proof, asg->inputs + 1, asg->num_inputs - 1, &dg) != CUZK_OK ||
        !valid) {
        fprintf(stderr, "bench_groth16: the %s benchmark proof does not verify\n", what);
        exit(1);
    }
}

/* Times g16_prove_ex (after one warm-up proof when iters > 1) and checks the last proof, which
 * it leaves in *last. */
static void bench_prove(const char *prefix, size_t n, unsigned iters, const g16_params_t *p,
                        const cs_assignment_t *asg, cz_pool *pool, g16_proof_t *last, int argc,
                        char **argv)
{
    char name[64];
    g16_proof_t proof;
    g16_prove_stats_t st;
    double t[NSTAGES][ITERS], c0;
    fr_t r, s;
    cz_diag dg;
    cuzk_err err;

    cz_diag_init(&dg);
    bench_rs(&r, &s);
    if (iters > 1 && (err = g16_prove(p, &proof, asg, &r, &s, pool, &dg)) != CUZK_OK) {
        die("prove", err, &dg); /* warm-up */
    }
    for (unsigned it = 0; it < iters; it++) {
        c0 = cpu_ms();
        if ((err = g16_prove_ex(p, &proof, asg, &r, &s, NULL, &st, pool, &dg)) != CUZK_OK) {
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
        t[9][it] = cpu_ms() - c0;
    }
    check_verifies(p, asg, &proof, "CPU");
    *last = proof;
    for (size_t i = 0; i < NSTAGES; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, PROVE_STAGES[i]);
        if (bench_selected(argc, argv, name)) {
            report(name, n, t[i], iters);
        }
    }
}

/* GPU cases: the resident parameters once, then each prover stage and the wall clock of the
 * whole call, per proof. */
static const char *const GPU_CASES[GPU_NCASES] = {
    "gpu_upload",   "gpu_prep",     "gpu_quotient", "gpu_msm_h", "gpu_msm_l", "gpu_msm_a",
    "gpu_msm_b_g1", "gpu_msm_b_g2", "gpu_assemble", "gpu_total", "gpu_wall"};

/* Makes p resident on dev, times GPU_ITERS proofs after a warm-up, checks the last one (against
 * `cpu` when non-NULL) and frees the device copy. */
static void bench_prove_gpu(const char *prefix, size_t n, gpu_dev *dev, const g16_params_t *p,
                            const cs_assignment_t *asg, const g16_proof_t *cpu, cz_pool *pool,
                            int argc, char **argv)
{
    char name[64];
    g16_gpu_params *gp = NULL;
    g16_prove_opts_t opts = {0};
    g16_prove_stats_t st;
    g16_proof_t proof;
    uint8_t a[G16_PROOF_NBYTES], b[G16_PROOF_NBYTES];
    double t[GPU_NCASES][GPU_ITERS], t0;
    fr_t r, s;
    cz_diag dg;
    cuzk_err err;

    cz_diag_init(&dg);
    bench_rs(&r, &s);
    t0 = bench_now();
    if ((err = g16_gpu_params_new(&gp, p, dev, NULL, pool, &dg)) != CUZK_OK) {
        die("gpu_params_new", err, &dg);
    }
    t[0][0] = (bench_now() - t0) * 1e3;
    printf("# %s: gpu resident device_bytes=%zu pinned_bytes=%zu\n", prefix,
           g16_gpu_params_device_bytes(gp), g16_gpu_params_pinned_bytes(gp));
    opts.gpu = gp;
    if ((err = g16_prove_ex(p, &proof, asg, &r, &s, &opts, NULL, pool, &dg)) != CUZK_OK) {
        die("gpu prove", err, &dg); /* warm-up: device scratch, twiddles */
    }
    for (unsigned it = 0; it < GPU_ITERS; it++) {
        t0 = bench_now();
        if ((err = g16_prove_ex(p, &proof, asg, &r, &s, &opts, &st, pool, &dg)) != CUZK_OK) {
            die("gpu prove", err, &dg);
        }
        t[10][it] = (bench_now() - t0) * 1e3;
        t[1][it] = st.prep_ms;
        t[2][it] = st.quotient_ms;
        t[3][it] = st.msm_h_ms;
        t[4][it] = st.msm_l_ms;
        t[5][it] = st.msm_a_ms;
        t[6][it] = st.msm_b_g1_ms;
        t[7][it] = st.msm_b_g2_ms;
        t[8][it] = st.assemble_ms;
        t[9][it] = st.total_ms;
    }
    check_verifies(p, asg, &proof, "GPU");
    if (cpu) {
        g16_proof_to_bytes(a, cpu);
        g16_proof_to_bytes(b, &proof);
        if (memcmp(a, b, sizeof(a)) != 0) {
            fprintf(stderr, "bench_groth16: %s: the GPU proof differs from the CPU proof\n",
                    prefix);
            exit(1);
        }
    }
    g16_gpu_params_free(gp);
    for (size_t i = 0; i < GPU_NCASES; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, GPU_CASES[i]);
        if (bench_selected(argc, argv, name)) {
            report(name, n, t[i], i == 0 ? 1 : GPU_ITERS);
        }
    }
}

/* One circuit of ncons constraints in a domain of 2^lg (checked), cases named prefix_*; the GPU
 * cases too when `dev` is non-NULL. */
static void bench_size(const char *prefix, size_t ncons, unsigned lg, gpu_dev *dev, cz_pool *pool,
                       int argc, char **argv)
{
    static const char *const once[NONCE] = {"setup",     "setup_cpu",    "setup_check",
                                            "setup_qap", "setup_tables", "setup_g1",
                                            "setup_g2",  "params_write", "params_load"};
    char name[64], path[512];
    size_t n = (size_t)1 << lg;
    cs_t *cs = NULL;
    cs_r1cs_t r1cs;
    cs_assignment_t asg;
    g16_params_t *p = NULL, *q = NULL;
    g16_setup_stats_t sst;
    g16_proof_t cpu_proof;
    double t_once[NONCE], t0, c0;
    uint64_t seed = 1;
    bool any = false, want_prove = false, want_file = false, want_gpu = false;
    cz_diag dg;
    cuzk_err err;

    for (size_t i = 0; i < NSTAGES; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, PROVE_STAGES[i]);
        want_prove |= bench_selected(argc, argv, name) != 0;
    }
    for (size_t i = 0; dev && i < GPU_NCASES; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, GPU_CASES[i]);
        want_gpu |= bench_selected(argc, argv, name) != 0;
    }
    any = want_prove || want_gpu;
    for (size_t i = 0; i < NONCE; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, once[i]);
        any |= bench_selected(argc, argv, name) != 0;
        want_file |= i >= NONCE - 2 && bench_selected(argc, argv, name) != 0;
    }
    if (!any) {
        return;
    }
    cz_diag_init(&dg);
    if ((err = cs_new_recorder(&cs, &dg)) != CUZK_OK) {
        die("recorder", err, &dg);
    }
    synth(cs, ncons, 42);
    if ((err = cs_finish(cs, &dg)) != CUZK_OK || (err = cs_take_r1cs(cs, &r1cs, &dg)) != CUZK_OK) {
        die("record", err, &dg);
    }
    cs_free(cs);
    if (r1cs.A.rows > n || 2 * r1cs.A.rows <= n) {
        fprintf(stderr, "bench_groth16: %s has %zu rows, not a domain of %zu\n", prefix,
                r1cs.A.rows, n);
        exit(1);
    }
    if ((err = cs_new_prover(&cs, NULL, &dg)) != CUZK_OK) {
        die("prover", err, &dg);
    }
    synth(cs, ncons, 42);
    if ((err = cs_finish(cs, &dg)) != CUZK_OK ||
        (err = cs_take_assignment(cs, &asg, &dg)) != CUZK_OK) {
        die("synthesize", err, &dg);
    }
    cs_free(cs);

    c0 = cpu_ms();
    t0 = bench_now();
    if ((err = g16_setup_timed(&p, &sst, &r1cs, &seed, pool, &dg)) != CUZK_OK) {
        die("setup", err, &dg);
    }
    t_once[0] = (bench_now() - t0) * 1e3;
    t_once[1] = cpu_ms() - c0;
    t_once[2] = sst.check_ms;
    t_once[3] = sst.qap_ms;
    t_once[4] = sst.tables_ms;
    t_once[5] = sst.g1_ms;
    t_once[6] = sst.g2_ms;
    printf("# %s: m=%zu inputs=%zu aux=%zu nnz(A,B,C)=%zu,%zu,%zu a=%zu b=%zu windows g1=%u "
           "g2=%u\n",
           prefix, r1cs.A.rows, r1cs.num_inputs, r1cs.num_aux, r1cs.A.nnz, r1cs.B.nnz, r1cs.C.nnz,
           p->a_len, p->b_g1_len, sst.g1_window, sst.g2_window);
    cs_r1cs_clear(&r1cs);
    if (want_file) {
        tmp_params_path(path, sizeof(path), prefix);
        t0 = bench_now();
        if ((err = g16_params_write(p, path, pool, &dg)) != CUZK_OK) {
            die("params_write", err, &dg);
        }
        t_once[7] = (bench_now() - t0) * 1e3;
        t0 = bench_now();
        if ((err = g16_params_load(&q, path, NULL, pool, &dg)) != CUZK_OK) {
            die("params_load", err, &dg);
        }
        t_once[8] = (bench_now() - t0) * 1e3;
        remove(path);
        if (q->store.len != p->store.len || memcmp(q->store.ptr, p->store.ptr, p->store.len) != 0) {
            fprintf(stderr, "bench_groth16: loaded parameters differ from the written ones\n");
            exit(1);
        }
        g16_params_free(q);
    }
    for (size_t i = 0; i < NONCE; i++) {
        snprintf(name, sizeof(name), "%s_%s", prefix, once[i]);
        if (bench_selected(argc, argv, name)) {
            report(name, n, &t_once[i], 1);
        }
    }

    if (want_prove) {
        bench_prove(prefix, n, lg >= 20 ? 1 : ITERS, p, &asg, pool, &cpu_proof, argc, argv);
    }
    if (want_gpu) {
        bench_prove_gpu(prefix, n, dev, p, &asg, want_prove ? &cpu_proof : NULL, pool, argc, argv);
    }
    g16_params_free(p);
    cs_assignment_clear(&asg);
}

int main(int argc, char **argv)
{
    cz_pool *pool = NULL;
    gpu_dev *dev = NULL;
    gpu_dev_info info;
    cz_diag dg;
    unsigned cores = cz_cpu_count();

    cz_diag_init(&dg);
    if (cores > 1 && cz_pool_new(&pool, cores - 1, "bench-g16", &dg) != CUZK_OK) {
        fprintf(stderr, "bench_groth16: %s\n", dg.msg);
        return 1;
    }
    printf("# cores=%u (pool of %u threads + caller)\n", cores, cores > 1 ? cores - 1 : 0);
    if (gpu_count() > 0 && gpu_dev_open(&dev, 0, &dg) == CUZK_OK &&
        gpu_dev_get_info(dev, &info, &dg) == CUZK_OK) {
        printf("# gpu: device 0: %s, %zu MiB\n", info.name, info.total_mem >> 20);
    } else {
        printf("# gpu: none (%s): the *_gpu_* cases are skipped\n",
               dg.msg[0] ? dg.msg : "no device");
        gpu_dev_close(dev);
        dev = NULL;
    }
    bench_header();
    for (unsigned lg = 12; lg <= 22; lg += 2) {
        char prefix[32];
        snprintf(prefix, sizeof(prefix), "g16_2^%u", lg);
        /* m = 2^lg - 1 with the input constraints */
        bench_size(prefix, ((size_t)1 << lg) - NUM_PUBLIC - 2, lg,
                   lg == 16 || lg >= 20 ? dev : NULL, pool, argc, argv);
    }
    /* the scale of a 2 KiB PoRep partition: about 2.2 million constraints, domain 2^22 */
    bench_size("g16_porep2k", 2200000, 22, dev, pool, argc, argv);
    gpu_dev_close(dev);
    cz_pool_free(pool);
    return 0;
}
