/* bench_gadgets.c - synthesis speed of the gadgets per backend, in ns per constraint (the
 * "n" column is the number of constraints of one iteration; constraints per second =
 * 1e9 / median). Each iteration creates the cs (with a size hint where the backend takes one),
 * synthesizes, finishes and frees it.
 *   sha256_label   create_label: 38 x 256 allocated bits + SHA-256 of 20 blocks + packing
 *                  (the PoRep labelling gadget, ~532k constraints)
 *   sha256_block   one compression of 512 allocated bits (~26k constraints)
 *   poseidon_<a>   64 hashes of arity a (2, 8, 11)
 *   por_32g        a TreeC inclusion path of a 32GiB sector (8-ary base, 8-ary sub, Poseidon)
 */
#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/rand.h"
#include "gadgets/gadgets.h"
#include "hash/poseidon.h"

typedef void (*synth_fn)(cs_t *cs, void *ctx);

typedef enum { BK_COUNTER, BK_WITNESS, BK_PROVER, BK_RECORDER, BK_CHECKER, BK_COUNT } backend;

static const char *const BK_NAME[BK_COUNT] = {"counter", "witness", "prover", "recorder",
                                              "checker"};

typedef struct run {
    backend bk;
    synth_fn fn;
    void *ctx;
    cs_counts_t hint;
} run;

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
        err = cs_new_witness(&cs, &r->hint, NULL);
        break;
    case BK_PROVER:
        err = cs_new_prover(&cs, &r->hint, NULL);
        break;
    case BK_RECORDER:
        err = cs_new_recorder(&cs, NULL);
        break;
    default:
        err = cs_new_checker(&cs, NULL);
        break;
    }
    if (err != CUZK_OK) {
        fprintf(stderr, "cs_new: %s\n", cuzk_errname(err));
        exit(1);
    }
    r->fn(cs, r->ctx);
    err = cs_finish(cs, NULL);
    if (err != CUZK_OK) {
        fprintf(stderr, "cs_finish: %s\n", cuzk_errname(err));
        exit(1);
    }
    cs_free(cs);
}

/* ---------------------------------------------------------------------------------------------
 * Workloads
 * ------------------------------------------------------------------------------------------- */

typedef struct label_ctx {
    uint8_t bytes[38][32];
} label_ctx;

static void alloc_be(cs_t *cs, gad_bool_t *out, const uint8_t *b, size_t n)
{
    for (size_t i = 0; i < 8 * n; i++) {
        out[i] = gad_alloc_bit(cs, (b[i / 8] >> (7 - i % 8)) & 1);
    }
}

static void label_synth(cs_t *cs, void *p)
{
    label_ctx *c = p;
    static gad_bool_t bits[38][256];
    const gad_bool_t *parents[GAD_LABEL_PARENTS];
    gad_u64_t node;
    gad_num_t out;
    for (int i = 0; i < 38; i++) {
        alloc_be(cs, bits[i], c->bytes[i], 32);
    }
    for (int i = 0; i < GAD_LABEL_PARENTS; i++) {
        parents[i] = bits[1 + i];
    }
    gad_u64_alloc(cs, &node, 123456789);
    gad_create_label(cs, &out, bits[0], 256, parents, 5, &node);
}

static void block_synth(cs_t *cs, void *p)
{
    label_ctx *c = p;
    gad_bool_t in[512], out[256];
    alloc_be(cs, in, c->bytes[0], 64);
    gad_sha256_block_no_padding(cs, out, in);
}

typedef struct pos_ctx {
    size_t arity;
    fr_t in[POSEIDON_MAX_ARITY];
} pos_ctx;

static void pos_synth(cs_t *cs, void *p)
{
    pos_ctx *c = p;
    gad_num_t in[POSEIDON_MAX_ARITY], out;
    const poseidon_params_t *params = poseidon_params(c->arity);
    for (size_t i = 0; i < c->arity; i++) {
        gad_num_alloc(cs, &in[i], &c->in[i]);
    }
    for (int k = 0; k < 64; k++) {
        gad_poseidon_hash(cs, &out, in, c->arity, params);
        in[k % c->arity] = out;
    }
}

typedef struct por_ctx {
    gad_tree_shape_t shape;
    fr_t leaf, root;
    fr_t sibs[128];
    uint32_t idx[16];
    gad_num_t computed;
} por_ctx;

static void por_synth(cs_t *cs, void *p)
{
    por_ctx *c = p;
    gad_root_t value = {false, {{0}, c->leaf}};
    gad_root_t root = {false, {{0}, c->root}};
    gad_por(cs, GAD_HASHER_POSEIDON, &c->shape, &value, c->sibs, c->idx, &root, true, &c->computed);
}

static void bench_all(const char *name, synth_fn fn, void *ctx, unsigned iters, int argc,
                      char **argv)
{
    run r;
    cs_t *cs = NULL;

    /* counts for the hints and the per-constraint scale */
    if (cs_new_counter(&cs, NULL) != CUZK_OK) {
        exit(1);
    }
    fn(cs, ctx);
    cs_get_counts(cs, &r.hint);
    if (cs_finish(cs, NULL) != CUZK_OK) {
        exit(1);
    }
    cs_free(cs);
    r.fn = fn;
    r.ctx = ctx;
    for (int bk = 0; bk < BK_COUNT; bk++) {
        char full[96];
        snprintf(full, sizeof(full), "%s/%s", name, BK_NAME[bk]);
        if (!bench_selected(argc, argv, full)) {
            continue;
        }
        r.bk = (backend)bk;
        bench_case(full, r.hint.num_constraints, iters, (double)r.hint.num_constraints, BENCH_NS,
                   run_once, &r);
    }
}

int main(int argc, char **argv)
{
    cz_prng g;
    static label_ctx lc;
    static pos_ctx pc;
    static por_ctx rc;

    cz_prng_seed(&g, 42);
    cz_prng_bytes(&g, lc.bytes, sizeof(lc.bytes));
    for (int i = 0; i < 38; i++) {
        lc.bytes[i][31] &= 0x3f;
    }
    bench_header();
    bench_all("sha256_label", label_synth, &lc, 5, argc, argv);
    bench_all("sha256_block", block_synth, &lc, 20, argc, argv);
    static const size_t arities[] = {2, 8, 11};
    for (size_t k = 0; k < 3; k++) {
        char name[32];
        pc.arity = arities[k];
        for (size_t i = 0; i < pc.arity; i++) {
            uint64_t v[4] = {cz_prng_u64(&g), cz_prng_u64(&g), cz_prng_u64(&g), cz_prng_u64(&g)};
            fr_from_u256_reduce(&pc.in[i], v);
        }
        snprintf(name, sizeof(name), "poseidon_%zu", pc.arity);
        bench_all(name, pos_synth, &pc, 10, argc, argv);
    }
    if (!gad_tree_shape_init(&rc.shape, UINT64_C(1) << 30, 8, 8, 0)) {
        return 1;
    }
    for (size_t i = 0; i < gad_tree_shape_siblings(&rc.shape); i++) {
        uint64_t v[4] = {cz_prng_u64(&g), cz_prng_u64(&g), cz_prng_u64(&g), 0};
        fr_from_u256_reduce(&rc.sibs[i], v);
    }
    for (size_t l = 0; l < gad_tree_shape_levels(&rc.shape); l++) {
        rc.idx[l] = (uint32_t)(cz_prng_u64(&g) % 8);
    }
    {
        /* the root the path leads to (gadget values are computed on every backend) */
        cs_t *cs = NULL;
        if (cs_new_counter(&cs, NULL) != CUZK_OK) {
            return 1;
        }
        por_synth(cs, &rc);
        cs_free(cs);
        rc.root = rc.computed.value;
    }
    bench_all("por_32g", por_synth, &rc, 10, argc, argv);
    return 0;
}
