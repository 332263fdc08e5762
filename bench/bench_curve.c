/* bench_curve.c - curve arithmetic: G1/G2 additions and doublings (ns per operation, dependent
 * chains), scalar multiplications and subgroup checks (us), decompression (us), and the pairing
 * (ms). Field kernels: whatever the dispatcher chose (printed first).
 * Usage: bench_curve [substring ...] selects cases by name.
 */
#include <stdio.h>

#include "bench.h"
#include "common/rand.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "curve/pairing.h"
#include "field/bls12_381_consts.h"

#define CHAIN 2000

static struct {
    g1_t p1, q1;
    g1_aff_t a1;
    g2_t p2, q2;
    g2_aff_t a2;
    fr_repr_t k;
    uint8_t c1[48], c2[96];
    fp12_t e;
} g;

static void run_g1_add(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        g1_add(&g.p1, &g.p1, &g.q1);
    }
}

static void run_g1_add_aff(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        g1_add_aff(&g.p1, &g.p1, &g.a1);
    }
}

static void run_g1_dbl(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        g1_dbl(&g.p1, &g.p1);
    }
}

static void run_g2_add(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        g2_add(&g.p2, &g.p2, &g.q2);
    }
}

static void run_g2_add_aff(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        g2_add_aff(&g.p2, &g.p2, &g.a2);
    }
}

static void run_g2_dbl(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        g2_dbl(&g.p2, &g.p2);
    }
}

static void run_g1_mul(void *ctx)
{
    (void)ctx;
    g1_mul(&g.p1, &g.q1, &g.k);
}

static void run_g2_mul(void *ctx)
{
    (void)ctx;
    g2_mul(&g.p2, &g.q2, &g.k);
}

static void run_g1_in_group(void *ctx)
{
    volatile bool ok = g1_aff_is_in_group(&g.a1);
    (void)ctx;
    (void)ok;
}

static void run_g2_in_group(void *ctx)
{
    volatile bool ok = g2_aff_is_in_group(&g.a2);
    (void)ctx;
    (void)ok;
}

/* The plain test the fast ones replace: [r]P = O. */
static void run_g1_in_group_naive(void *ctx)
{
    g1_t t;
    (void)ctx;
    g1_from_aff(&t, &g.a1);
    g1_mul_limbs(&t, &t, FR_MODULUS, 4);
    g.p1 = t;
}

static void run_g2_in_group_naive(void *ctx)
{
    g2_t t;
    (void)ctx;
    g2_from_aff(&t, &g.a2);
    g2_mul_limbs(&t, &t, FR_MODULUS, 4);
    g.p2 = t;
}

static void run_g1_decompress(void *ctx)
{
    g1_aff_t a;
    (void)ctx;
    if (g1_aff_from_compressed(&a, g.c1, true) != CUZK_OK) {
        fprintf(stderr, "decode failed\n");
    }
}

static void run_g2_decompress(void *ctx)
{
    g2_aff_t a;
    (void)ctx;
    if (g2_aff_from_compressed(&a, g.c2, true) != CUZK_OK) {
        fprintf(stderr, "decode failed\n");
    }
}

static void run_pairing(void *ctx)
{
    (void)ctx;
    pairing(&g.e, &g.a1, &g.a2);
}

static void run_miller_loop(void *ctx)
{
    (void)ctx;
    pairing_miller_loop(&g.e, &g.a1, &g.a2, 1);
}

static void run_final_exp(void *ctx)
{
    (void)ctx;
    pairing_final_exp(&g.e, &g.e);
}

static void init_inputs(void)
{
    cz_prng rng;
    g1_t t1;
    g2_t t2;

    cz_prng_seed(&rng, 42);
    for (size_t i = 0; i < 4; i++) {
        g.k.l[i] = cz_prng_u64(&rng);
    }
    g.k.l[3] &= 0x3fffffffffffffffULL; /* < r */
    g1_from_aff(&t1, &G1_GEN);
    g1_mul(&g.q1, &t1, &g.k);
    g1_dbl(&g.p1, &g.q1);
    g1_to_aff(&g.a1, &g.p1);
    g1_aff_to_compressed(g.c1, &g.a1);
    g2_from_aff(&t2, &G2_GEN);
    g2_mul(&g.q2, &t2, &g.k);
    g2_dbl(&g.p2, &g.q2);
    g2_to_aff(&g.a2, &g.p2);
    g2_aff_to_compressed(g.c2, &g.a2);
    pairing_miller_loop(&g.e, &g.a1, &g.a2, 1);
}

typedef struct curve_case {
    const char *name;
    bench_fn fn;
    unsigned iters;
    double ops;
    bench_unit unit;
} curve_case;

int main(int argc, char **argv)
{
    static const curve_case cases[] = {
        {"g1_add_aff", run_g1_add_aff, 30, CHAIN, BENCH_NS},
        {"g1_add", run_g1_add, 30, CHAIN, BENCH_NS},
        {"g1_dbl", run_g1_dbl, 30, CHAIN, BENCH_NS},
        {"g2_add_aff", run_g2_add_aff, 20, CHAIN, BENCH_NS},
        {"g2_add", run_g2_add, 20, CHAIN, BENCH_NS},
        {"g2_dbl", run_g2_dbl, 20, CHAIN, BENCH_NS},
        {"g1_mul", run_g1_mul, 50, 1, BENCH_US},
        {"g2_mul", run_g2_mul, 30, 1, BENCH_US},
        {"g1_is_in_group", run_g1_in_group, 50, 1, BENCH_US},
        {"g1_is_in_group_naive", run_g1_in_group_naive, 30, 1, BENCH_US},
        {"g2_is_in_group", run_g2_in_group, 30, 1, BENCH_US},
        {"g2_is_in_group_naive", run_g2_in_group_naive, 20, 1, BENCH_US},
        {"g1_from_compressed_checked", run_g1_decompress, 30, 1, BENCH_US},
        {"g2_from_compressed_checked", run_g2_decompress, 20, 1, BENCH_US},
        {"pairing_miller_loop", run_miller_loop, 20, 1, BENCH_MS},
        {"pairing_final_exp", run_final_exp, 20, 1, BENCH_MS},
        {"pairing", run_pairing, 20, 1, BENCH_MS},
    };
    init_inputs();
    printf("# kernels: fp %s\n", fp_impl_name());
    bench_header();
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        if (!bench_selected(argc, argv, cases[i].name)) {
            continue;
        }
        bench_case(cases[i].name, 1, cases[i].iters, cases[i].ops, cases[i].unit, cases[i].fn,
                   NULL);
    }
    return 0;
}
