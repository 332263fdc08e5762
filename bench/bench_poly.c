/* bench_poly.c - NTT forward / inverse / coset at 2^16 .. 2^22 and the Groth16 quotient at
 * 2^16 .. 2^20, on a pool of cz_cpu_count() - 1 threads (the caller makes the last core).
 * Optional arguments filter the case names (e.g. "quotient"); "--max-lg N" raises or lowers the
 * largest NTT size, "--threads N" sets the pool (0 = calling thread only), "--layout B P" sets
 * the domain's blk_lg and pass_lg (ntt.c; "--layout 1 1" is the plain stage-by-stage radix-2).
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "common/rand.h"
#include "field/fr.h"
#include "poly/poly.h"

struct ctx {
    const ntt_domain_t *d;
    fr_t *x, *a, *b, *c;
    const fr_t *src; /* the random input, copied back before each quotient */
    cz_pool *pool;
    void (*fn)(const ntt_domain_t *, fr_t *, cz_pool *);
};

static void run_ntt(void *vctx)
{
    struct ctx *c = vctx;
    c->fn(c->d, c->x, c->pool);
}

static void run_quotient(void *vctx)
{
    struct ctx *c = vctx;
    size_t n = c->d->n;

    /* refilling a, b, c is part of what is timed (3 memcpy of n values; small next to 7 NTTs) */
    memcpy(c->a, c->src, n * sizeof(fr_t));
    memcpy(c->b, c->src + n, n * sizeof(fr_t));
    memcpy(c->c, c->src + 2 * n, n * sizeof(fr_t));
    (void)poly_quotient_h(c->d, c->a, c->b, c->c, n, c->pool);
}

static void fill_random(fr_t *x, size_t n, cz_prng *g)
{
    for (size_t i = 0; i < n; i++) {
        uint64_t v[4];
        for (int j = 0; j < 4; j++) {
            v[j] = cz_prng_u64(g);
        }
        fr_from_u256_reduce(&x[i], v);
    }
}

int main(int argc, char **argv)
{
    unsigned max_lg = 22, max_q_lg = 20;
    long threads = (long)cz_cpu_count() - 1;
    unsigned blk_lg = 0, pass_lg = 0; /* 0: the domain's default layout */
    char **filters = calloc((size_t)argc + 1, sizeof(char *));
    int nf = 1;
    cz_pool *pool = NULL;
    cz_prng g;

    if (!filters) {
        return 1;
    }
    filters[0] = argv[0];
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-lg") == 0 && i + 1 < argc) {
            max_lg = (unsigned)atoi(argv[++i]);
            max_q_lg = max_lg < max_q_lg ? max_lg : max_q_lg;
        } else if (strcmp(argv[i], "--layout") == 0 && i + 2 < argc) {
            blk_lg = (unsigned)atoi(argv[++i]);
            pass_lg = (unsigned)atoi(argv[++i]);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atol(argv[++i]);
        } else {
            filters[nf++] = argv[i];
        }
    }
    if (threads < 0) {
        threads = 0;
    }
    if (cz_pool_new(&pool, (unsigned)threads, "bench-poly", NULL) != CUZK_OK) {
        return 1;
    }
    cz_prng_seed(&g, 1);
    printf("# fr kernel: %s, pool: %ld threads + caller, layout %u %u\n", fr_impl_name(), threads,
           blk_lg, pass_lg);
    bench_header();

    size_t nmax = (size_t)1 << max_lg;
    void *tw = cz_malloc_aligned(ntt_domain_tw_sizeof(max_lg), 64);
    fr_t *x = cz_malloc_aligned(nmax * sizeof(fr_t), 64);
    fr_t *src = cz_malloc_aligned(3 * ((size_t)1 << max_q_lg) * sizeof(fr_t), 64);
    fr_t *b = cz_malloc_aligned(((size_t)1 << max_q_lg) * sizeof(fr_t), 64);
    fr_t *c = cz_malloc_aligned(((size_t)1 << max_q_lg) * sizeof(fr_t), 64);
    if (!tw || !x || !src || !b || !c) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    fill_random(x, nmax, &g);
    fill_random(src, 3 * ((size_t)1 << max_q_lg), &g);

    static const struct {
        const char *name;
        void (*fn)(const ntt_domain_t *, fr_t *, cz_pool *);
    } kinds[] = {{"ntt_fwd", ntt_fwd},
                 {"ntt_inv", ntt_inv},
                 {"ntt_coset_fwd", ntt_coset_fwd},
                 {"ntt_coset_inv", ntt_coset_inv}};

    for (unsigned lg = 16; lg <= max_lg; lg++) {
        ntt_domain_t d;
        char name[64];
        unsigned iters = lg <= 18 ? 10 : lg <= 20 ? 5 : 3;
        if (!ntt_domain_init(&d, lg, tw, pool)) {
            return 1;
        }
        if (blk_lg && pass_lg) {
            d.blk_lg = blk_lg;
            d.pass_lg = pass_lg;
        }
        for (size_t k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
            struct ctx ctx = {.d = &d, .x = x, .pool = pool, .fn = kinds[k].fn};
            snprintf(name, sizeof(name), "%s_2^%u", kinds[k].name, lg);
            if (bench_selected(nf, filters, name)) {
                bench_case(name, d.n, iters, 1, BENCH_MS, run_ntt, &ctx);
            }
        }
        if (lg <= max_q_lg) {
            struct ctx ctx = {.d = &d, .a = x, .b = b, .c = c, .src = src, .pool = pool};
            snprintf(name, sizeof(name), "quotient_h_2^%u", lg);
            if (bench_selected(nf, filters, name)) {
                bench_case(name, d.n, iters, 1, BENCH_MS, run_quotient, &ctx);
            }
        }
    }
    cz_free_aligned(tw);
    cz_free_aligned(x);
    cz_free_aligned(src);
    cz_free_aligned(b);
    cz_free_aligned(c);
    cz_pool_free(pool);
    free(filters);
    return 0;
}
