/* bench_field.c - field arithmetic: ns per operation for Fp, Fr, Fp2 and Fp12.
 * Each case runs a dependent chain (x = op(x, y)), so the numbers are latencies, the way
 * exponentiations and inversions use them. Cases ending in "/portable" force the portable
 * kernels; the others use what the dispatcher chose (printed first).
 * Usage: bench_field [substring ...] selects cases by name.
 */
#include <stdio.h>

#include "bench.h"
#include "common/rand.h"
#include "field/bls12_381_consts.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "field/internal.h"

#define CHAIN 10000

static struct {
    fp_t a, b;
    fr_t x, y;
    fp2_t a2, b2;
    fp12_t a12, b12;
} g;

static void run_fp_mul(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fp_mul(&g.a, &g.a, &g.b);
    }
}

static void run_fp_sqr(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fp_sqr(&g.a, &g.a);
    }
}

static void run_fp_add(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fp_add(&g.a, &g.a, &g.b);
    }
}

static void run_fr_mul(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fr_mul(&g.x, &g.x, &g.y);
    }
}

static void run_fr_sqr(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fr_sqr(&g.x, &g.x);
    }
}

static void run_fr_add(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fr_add(&g.x, &g.x, &g.y);
    }
}

static void run_fp_inv(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 100; i++) {
        fp_inv(&g.a, &g.a);
        fp_add(&g.a, &g.a, &g.b); /* avoid an inverse-of-inverse cycle */
    }
}

static void run_fr_inv(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 100; i++) {
        fr_inv(&g.x, &g.x);
        fr_add(&g.x, &g.x, &g.y);
    }
}

static void run_fp_sqrt(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 100; i++) {
        fp_t s;
        fp_sqr(&s, &g.a);
        (void)fp_sqrt(&g.a, &s);
        fp_add(&g.a, &g.a, &g.b);
    }
}

static void run_fr_sqrt(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 100; i++) {
        fr_t s;
        fr_sqr(&s, &g.x);
        (void)fr_sqrt(&g.x, &s);
        fr_add(&g.x, &g.x, &g.y);
    }
}

static void run_fp2_mul(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fp2_mul(&g.a2, &g.a2, &g.b2);
    }
}

static void run_fp2_sqr(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN; i++) {
        fp2_sqr(&g.a2, &g.a2);
    }
}

static void run_fp12_mul(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN / 10; i++) {
        fp12_mul(&g.a12, &g.a12, &g.b12);
    }
}

static void run_fp12_sqr(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < CHAIN / 10; i++) {
        fp12_sqr(&g.a12, &g.a12);
    }
}

static void run_fp12_inv(void *ctx)
{
    (void)ctx;
    for (int i = 0; i < 10; i++) {
        fp12_inv(&g.a12, &g.a12);
        fp12_mul(&g.a12, &g.a12, &g.b12);
    }
}

static void rand_fill(cz_prng *rng, uint64_t *v, const uint64_t *m, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        v[i] = cz_prng_u64(rng);
    }
    v[n - 1] %= m[n - 1]; /* below m, good enough for a benchmark input */
}

static void init_inputs(void)
{
    cz_prng rng;
    uint64_t v[FP_NLIMBS];
    fr_repr_t r;
    fp_t *fps[] = {&g.a, &g.b, &g.a2.c0, &g.a2.c1, &g.b2.c0, &g.b2.c1};
    cz_prng_seed(&rng, 42);
    for (size_t i = 0; i < ARRAY_LEN(fps); i++) {
        rand_fill(&rng, v, FP_MODULUS, FP_NLIMBS);
        (void)fp_from_limbs(fps[i], v);
    }
    rand_fill(&rng, r.l, FR_MODULUS, FR_NLIMBS);
    (void)fr_from_repr(&g.x, &r);
    rand_fill(&rng, r.l, FR_MODULUS, FR_NLIMBS);
    (void)fr_from_repr(&g.y, &r);
    fp2_t *c[] = {&g.a12.c0.c0, &g.a12.c0.c1, &g.a12.c0.c2,
                  &g.a12.c1.c0, &g.a12.c1.c1, &g.a12.c1.c2};
    for (size_t i = 0; i < ARRAY_LEN(c); i++) {
        fp2_mul(c[i], &g.a2, &g.b2);
        fp2_add(&g.a2, &g.a2, &g.b2);
    }
    g.b12 = g.a12;
    fp12_sqr(&g.b12, &g.b12);
}

typedef struct {
    const char *name;
    bench_fn fn;
    unsigned iters;
    double ops;
} field_case;

int main(int argc, char **argv)
{
    static const field_case cases[] = {
        {"fp_add", run_fp_add, 50, CHAIN},
        {"fp_mul", run_fp_mul, 50, CHAIN},
        {"fp_sqr", run_fp_sqr, 50, CHAIN},
        {"fr_add", run_fr_add, 50, CHAIN},
        {"fr_mul", run_fr_mul, 50, CHAIN},
        {"fr_sqr", run_fr_sqr, 50, CHAIN},
        {"fp_inv", run_fp_inv, 20, 100},
        {"fr_inv", run_fr_inv, 20, 100},
        {"fp_sqrt", run_fp_sqrt, 10, 100},
        {"fr_sqrt", run_fr_sqrt, 10, 100},
        {"fp2_mul", run_fp2_mul, 30, CHAIN},
        {"fp2_sqr", run_fp2_sqr, 30, CHAIN},
        {"fp12_mul", run_fp12_mul, 20, CHAIN / 10},
        {"fp12_sqr", run_fp12_sqr, 20, CHAIN / 10},
        {"fp12_inv", run_fp12_inv, 20, 10},
    };
    init_inputs();
    printf("# kernels: fp %s, fr %s\n", fp_impl_name(), fr_impl_name());
    bench_header();
    for (int pass = 0; pass < 2; pass++) {
        bool portable = pass == 1;
        if (portable && !field_using_adx()) {
            break; /* the first pass already was the portable one */
        }
        field_force_portable(portable);
        for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
            char name[64];
            snprintf(name, sizeof(name), "%s%s", cases[i].name, portable ? "/portable" : "");
            if (!bench_selected(argc, argv, name)) {
                continue;
            }
            bench_case(name, 1, cases[i].iters, cases[i].ops, BENCH_NS, cases[i].fn, NULL);
        }
    }
    field_force_portable(false);
    return 0;
}
