/* bench_r1cs.c - constraint-system throughput on a synthetic circuit shaped like Filecoin's:
 * per block, 256 allocated bits each with its boolean constraint b * (1 - b) = 0, then the
 * bits packed into numbers (multipack style: (sum 2^i b_i) * ONE = packed) in chunks of 32,
 * 64, 128 and 256 terms, and a few 3-term additions (UInt32-like: x + y - z = 0 * 1).
 * Times are per constraint (ns), for every backend; the prover also with a size hint.
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "common/rand.h"
#include "r1cs/r1cs.h"

#define BITS_PER_BLOCK 256
#define BLOCKS         4000

typedef struct ctx {
    fr_t pow2[BITS_PER_BLOCK];
    uint8_t bits[BLOCKS][BITS_PER_BLOCK];
    cs_counts_t shape;
    int kind; /* 0 prover, 1 prover+hint, 2 counter, 3 witness, 4 recorder, 5 checker */
    cs_r1cs_t r1cs;
} ctx;

static const size_t chunk_sizes[] = {32, 64, 128, 32}; /* 256 bits per block */

static void synth_block(cs_t *cs, const ctx *x, size_t blk)
{
    cs_var_t vars[BITS_PER_BLOCK];
    bool vals = cs_has_values(cs), lcs = cs_needs_lcs(cs);

    cs_push_ns(cs, "block");
    for (size_t i = 0; i < BITS_PER_BLOCK; i++) {
        const fr_t *v = x->bits[blk][i] ? &FR_ONE : &FR_ZERO;
        cs_alloc(cs, &vars[i], vals ? v : NULL);
        if (lcs) {
            cs_lc_t a = cs_lc_of(cs, vars[i]), b = cs_lc_of(cs, CS_ONE);
            cs_lc_sub_var(cs, &b, vars[i]);
            cs_enforce(cs, &a, &b, NULL, "boolean");
        } else {
            cs_enforce(cs, NULL, NULL, NULL, "boolean");
        }
    }
    size_t off = 0;
    cs_var_t packed[ARRAY_LEN(chunk_sizes) + 1];
    fr_t packed_val[ARRAY_LEN(chunk_sizes) + 1];
    for (size_t c = 0; c < ARRAY_LEN(chunk_sizes) && off < BITS_PER_BLOCK; c++) {
        size_t n = chunk_sizes[c];
        fr_t acc = FR_ZERO;
        if (vals) {
            for (size_t i = 0; i < n; i++) {
                if (x->bits[blk][off + i]) {
                    fr_add(&acc, &acc, &x->pow2[i]);
                }
            }
        }
        packed_val[c] = acc;
        cs_alloc(cs, &packed[c], vals ? &acc : NULL);
        if (lcs) {
            cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE), cc = cs_lc_of(cs, packed[c]);
            for (size_t i = 0; i < n; i++) {
                cs_lc_add(cs, &a, &x->pow2[i], vars[off + i]);
            }
            cs_enforce(cs, &a, &b, &cc, "pack");
        } else {
            cs_enforce(cs, NULL, NULL, NULL, "pack");
        }
        off += n;
    }
    /* A 3-term addition: (p0 + p1 - s) * ONE = 0. */
    fr_t s;
    fr_add(&s, &packed_val[0], &packed_val[1]);
    cs_var_t sv;
    cs_alloc(cs, &sv, vals ? &s : NULL);
    if (lcs) {
        cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE);
        cs_lc_add_var(cs, &a, packed[0]);
        cs_lc_add_var(cs, &a, packed[1]);
        cs_lc_sub_var(cs, &a, sv);
        cs_enforce(cs, &a, &b, NULL, "add");
    } else {
        cs_enforce(cs, NULL, NULL, NULL, "add");
    }
    cs_pop_ns(cs);
}

static cs_t *synth(ctx *x, int kind)
{
    cs_t *cs = NULL;
    cuzk_err err;
    switch (kind) {
    case 0:
        err = cs_new_prover(&cs, NULL, NULL);
        break;
    case 1:
        err = cs_new_prover(&cs, &x->shape, NULL);
        break;
    case 2:
        err = cs_new_counter(&cs, NULL);
        break;
    case 3:
        err = cs_new_witness(&cs, &x->shape, NULL);
        break;
    case 4:
        err = cs_new_recorder(&cs, NULL);
        break;
    case 6:
        err = cs_new_digest(&cs, &x->shape, NULL);
        break;
    default:
        err = cs_new_checker(&cs, NULL);
        break;
    }
    if (err != CUZK_OK) {
        fprintf(stderr, "cs_new failed\n");
        exit(1);
    }
    for (size_t blk = 0; blk < BLOCKS; blk++) {
        synth_block(cs, x, blk);
    }
    if (cs_finish(cs, NULL) != CUZK_OK) {
        fprintf(stderr, "cs_finish failed\n");
        exit(1);
    }
    return cs;
}

static void run_kind(void *arg)
{
    ctx *x = arg;
    cs_t *cs = synth(x, x->kind);
    if (x->kind <= 1 || x->kind == 3) {
        cs_assignment_t asg;
        if (cs_take_assignment(cs, &asg, NULL) != CUZK_OK) {
            exit(1);
        }
        cs_assignment_clear(&asg);
    }
    cs_free(cs);
}

/* Witness-only path: witness synthesis + a, b, c from the recorded matrices. */
static void run_witness_eval(void *arg)
{
    ctx *x = arg;
    cs_t *cs = synth(x, 3);
    cs_assignment_t asg;
    if (cs_take_assignment(cs, &asg, NULL) != CUZK_OK ||
        cs_r1cs_eval(&x->r1cs, &asg, NULL, NULL) != CUZK_OK) {
        exit(1);
    }
    cs_assignment_clear(&asg);
    cs_free(cs);
}

int main(int argc, char **argv)
{
    ctx *x = calloc(1, sizeof(*x));
    cz_prng g;
    if (!x) {
        return 1;
    }
    cz_prng_seed(&g, 42);
    x->pow2[0] = FR_ONE;
    for (size_t i = 1; i < BITS_PER_BLOCK; i++) {
        fr_dbl(&x->pow2[i], &x->pow2[i - 1]);
    }
    for (size_t b = 0; b < BLOCKS; b++) {
        for (size_t i = 0; i < BITS_PER_BLOCK; i++) {
            x->bits[b][i] = (uint8_t)(cz_prng_u64(&g) & 1);
        }
    }
    cs_t *cs = synth(x, 2);
    cs_get_counts(cs, &x->shape);
    cs_free(cs);
    cs = synth(x, 4);
    if (cs_take_r1cs(cs, &x->r1cs, NULL) != CUZK_OK) {
        return 1;
    }
    cs_free(cs);
    double n = (double)x->shape.num_constraints;

    bench_header();
    static const char *names[] = {"r1cs_prover",  "r1cs_prover_hint", "r1cs_counter",
                                  "r1cs_witness", "r1cs_recorder",    "r1cs_checker",
                                  "r1cs_digest"};
    for (int k = 0; k < 7; k++) {
        if (bench_selected(argc, argv, names[k])) {
            x->kind = k;
            bench_case(names[k], x->shape.num_constraints, 5, n, BENCH_NS, run_kind, x);
        }
    }
    if (bench_selected(argc, argv, "r1cs_witness_eval")) {
        bench_case("r1cs_witness_eval", x->shape.num_constraints, 5, n, BENCH_NS, run_witness_eval,
                   x);
    }
    cs_r1cs_clear(&x->r1cs);
    free(x);
    return 0;
}
