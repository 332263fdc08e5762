/* test_shape.c - the compact shape (r1cs.h "Compact shape") and its files.
 * Independent references: the prover backend (a, b, c, densities, inputs, aux of the same
 * synthesis, bit for bit) and the recorder backend's cs_r1cs_t (through the converter and its
 * own products); sequential synthesis for parallel recording; libxxhash 0.8.1 (Debian
 * libxxhash0, called through Python ctypes) for the XXH64 vectors.
 * Circuits: hand-made ones with every kind of coefficient (1, -1, others, merged to zero, input
 * columns in B), and every Filecoin kind at 2 KiB (PoRep, WinningPoSt, WindowPoSt, SnapDeals
 * standard and Poseidon) with random witnesses of the right shape (the products do not care
 * whether the witness satisfies the circuit; zero witnesses would hide the multiplications);
 * PoRep at 512 MiB in the slow variant.
 */
#include "harness/test.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "circuits/circuits.h"
#include "common/alloc.h"
#include "common/bytes.h"
#include "common/pool.h"
#include "r1cs/internal.h"
#include "r1cs/r1cs.h"
#include "r1cs/asg_test_util.h"

/* ------------------------------------------------------------------------------------------
 * Helpers
 * ---------------------------------------------------------------------------------------- */

static cz_pool *test_pool(void)
{
    static cz_pool *pool;
    if (!pool) {
        CHECK_OK(cz_pool_new(&pool, 2, "shape-test", NULL)); /* width 3: forks even on 1 CPU */
    }
    return pool;
}

static void rand_fr(fr_t *out, cz_prng *g)
{
    uint64_t l[4];
    for (unsigned i = 0; i < 4; i++) {
        l[i] = cz_prng_u64(g);
    }
    fr_from_u256_reduce(out, l);
}

static void check_dict_ones(const cs_shape_t *s)
{
    fr_t minus_one;
    fr_neg(&minus_one, &FR_ONE);
    CHECK(s->dict_len >= 2 && s->dict_len <= CS_SHAPE_DICT_MAX);
    CHECK_MEM_EQ(&s->dict[CS_SHAPE_COEF_ONE], &FR_ONE, sizeof(fr_t));
    CHECK_MEM_EQ(&s->dict[CS_SHAPE_COEF_MINUS_ONE], &minus_one, sizeof(fr_t));
}

/* A synthesis: blank (no values; recorders) or with the context's witness, with its parallel
 * parts on `pool` (NULL: sequential). */
typedef void (*synth_fn)(cs_t *cs, void *ctx, bool blank, cz_pool *pool);

static void record_shape(cs_shape_t *out, synth_fn fn, void *ctx, cz_pool *pool,
                         const cs_counts_t *hint)
{
    cs_t *cs = NULL;
    CHECK_OK(cs_new_shape_recorder(&cs, hint, NULL));
    CHECK_STR_EQ(cs_kind_name(cs), "shape");
    fn(cs, ctx, true, pool);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_shape(cs, out, NULL));
    CHECK_ERR(cs_take_shape(cs, out + 1, NULL), CUZK_E_INVAL); /* only once */
    cs_free(cs);
}

static void record_r1cs(cs_r1cs_t *out, synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;
    CHECK_OK(cs_new_recorder(&cs, NULL));
    fn(cs, ctx, true, NULL);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_r1cs(cs, out, NULL));
    cs_free(cs);
}

static void synth_asg(cs_assignment_t *out, bool prover, synth_fn fn, void *ctx, cz_pool *pool,
                      const cs_counts_t *hint)
{
    cs_t *cs = NULL;
    CHECK_OK(prover ? cs_new_prover(&cs, hint, NULL) : cs_new_witness(&cs, hint, NULL));
    fn(cs, ctx, false, pool);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, out, NULL));
    cs_free(cs);
}

/* A next proof through `spare` (a proved assignment, its buffers first filled with garbage):
 * the witness written into its inputs and aux, a, b, c into its own, equal the prover
 * backend's; with the exact counts as hint the very buffers are reused. */
static void check_reuse(const cs_shape_t *shape, const cs_assignment_t *prv, cs_assignment_t *spare,
                        synth_fn fn, void *ctx, cz_pool *pool, const cs_counts_t *hint)
{
    const void *aux = spare->aux, *a = spare->a;
    size_t m = spare->m;
    fr_t *bufs[5] = {spare->inputs, spare->aux, spare->a, spare->b, spare->c};
    size_t lens[5] = {spare->num_inputs, spare->num_aux, m, m, m};
    cs_assignment_t w;
    cs_t *cs = NULL;

    for (int k = 0; k < 5; k++) {
        if (bufs[k]) {
            memset(bufs[k], 0xa5, lens[k] * sizeof(fr_t));
        }
    }
    CHECK_OK(cs_new_witness_reuse(&cs, hint, spare, NULL));
    CHECK(!spare->inputs && !spare->aux && spare->num_inputs == 0 && spare->num_aux == 0);
    fn(cs, ctx, false, pool);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &w, NULL));
    cs_free(cs);
    CHECK_OK(cs_shape_eval_reuse(shape, &w, spare, pool, NULL));
    cst_check_asg_eq(prv, &w);
    if (hint && hint->num_aux) {
        CHECK(w.aux == aux);
    }
    if (a && m == prv->m) {
        CHECK(w.a == a && !spare->a && !spare->b && !spare->c && spare->m == 0);
    }
    cs_assignment_clear(&w);
}

/* Everything the shape promises for one circuit: recording equals the converter of the
 * recorder's matrices, parallel recording equals sequential, its products equal the
 * recorder's, and witness + cs_shape_eval equals the prover backend bit for bit. */
static void check_circuit(const char *name, synth_fn fn, void *ctx, bool slow)
{
    cs_t *cs = NULL;
    cs_counts_t n;
    cs_shape_t shape[2], conv, par[2];
    cs_r1cs_t r1cs;
    cs_assignment_t prv, wit, wit1;
    cz_pool *pool = test_pool();

    CHECK_OK(cs_new_counter(&cs, NULL));
    fn(cs, ctx, true, NULL);
    cs_get_counts(cs, &n);
    cs_free(cs);

    record_shape(shape, fn, ctx, NULL, &n);
    check_dict_ones(&shape[0]);
    CHECK_EQ_U64(shape[0].num_inputs, n.num_inputs);
    CHECK_EQ_U64(shape[0].num_aux, n.num_aux);
    CHECK_EQ_U64(shape[0].num_constraints, n.num_constraints);
    record_shape(par, fn, ctx, pool, NULL);
    CHECK_MSG(cs_shape_eq(&shape[0], &par[0]), "%s: parallel recording differs", name);
    cs_shape_clear(&par[0]);
    if (!slow) {
        record_r1cs(&r1cs, fn, ctx);
        CHECK_OK(cs_shape_from_r1cs(&conv, &r1cs, NULL));
        CHECK_MSG(cs_shape_eq(&shape[0], &conv), "%s: recording differs from the converter", name);
        cs_shape_clear(&conv);
    }

    synth_asg(&prv, true, fn, ctx, slow ? pool : NULL, &n);
    synth_asg(&wit, false, fn, ctx, pool, &n);
    synth_asg(&wit1, false, fn, ctx, NULL, NULL);
    CHECK_OK(cs_shape_eval(&shape[0], &wit, pool, NULL));
    CHECK_OK(cs_shape_eval(&shape[0], &wit1, NULL, NULL));
    cst_check_asg_eq(&prv, &wit);
    cst_check_asg_eq(&prv, &wit1);
    {
        /* into caller buffers (the shape's densities are the assignment's) */
        fr_t *abc[3];
        for (int k = 0; k < 3; k++) {
            abc[k] = cz_malloc(prv.m * sizeof(fr_t));
            CHECK(abc[k] != NULL);
            memset(abc[k], 0xa5, prv.m * sizeof(fr_t));
        }
        /* with the scratch (as cs_shape_eval) and without */
        for (int with = 0; with < 2; with++) {
            void *scratch = with ? cz_malloc(cs_shape_mul_scratch_bytes(&shape[0])) : NULL;
            CHECK(!with || scratch);
            cs_shape_mul(&shape[0], abc[0], abc[1], abc[2], wit.inputs, wit.aux, scratch, pool);
            CHECK_MEM_EQ(abc[0], prv.a, prv.m * sizeof(fr_t));
            CHECK_MEM_EQ(abc[1], prv.b, prv.m * sizeof(fr_t));
            CHECK_MEM_EQ(abc[2], prv.c, prv.m * sizeof(fr_t));
            cz_free(scratch);
            for (int k = 0; k < 3; k++) {
                memset(abc[k], 0xa5, prv.m * sizeof(fr_t));
            }
        }
        for (int k = 0; k < 3; k++) {
            cz_free(abc[k]);
        }
    }
    CHECK_ERR(cs_shape_eval(&shape[0], &wit, pool, NULL), CUZK_E_INVAL); /* a, b, c present */
    if (!slow) {
        /* the recorder's own products agree matrix by matrix */
        fr_t *y = cz_malloc(prv.m * sizeof(fr_t)), *z = cz_malloc(prv.m * sizeof(fr_t));
        const cs_matrix_t *rm[3] = {&r1cs.A, &r1cs.B, &r1cs.C};
        const cs_shape_matrix_t *sm[3] = {&shape[0].A, &shape[0].B, &shape[0].C};
        CHECK(y && z);
        for (int k = 0; k < 3; k++) {
            cs_matrix_mul(rm[k], y, wit.inputs, wit.num_inputs, wit.aux, NULL);
            cs_shape_matrix_mul(sm[k], shape[0].dict, z, wit.inputs, wit.num_inputs, wit.aux,
                                k == 1 ? pool : NULL);
            CHECK_MEM_EQ(y, z, prv.m * sizeof(fr_t));
        }
        cz_free(y);
        cz_free(z);
        cs_r1cs_clear(&r1cs);
    }
    printf("# %s: inputs=%zu aux=%zu constraints=%zu nnz=%zu/%zu/%zu dict=%zu bytes=%zu\n", name,
           n.num_inputs, n.num_aux, n.num_constraints, shape[0].A.nnz, shape[0].B.nnz,
           shape[0].C.nnz, shape[0].dict_len, cs_shape_bytes(&shape[0]));
    check_reuse(&shape[0], &prv, &wit, fn, ctx, pool, &n);
    {
        /* a spare of other counts: the values grow out of it, a, b, c are fresh */
        cs_assignment_t other = {0};
        other.aux = cz_malloc(sizeof(fr_t));
        other.num_aux = 1;
        other.a = cz_malloc(sizeof(fr_t));
        other.m = 1;
        CHECK(other.aux && other.a);
        check_reuse(&shape[0], &prv, &other, fn, ctx, NULL, NULL);
        CHECK(other.a != NULL && other.m == 1);
        cs_assignment_clear(&other);
    }
    cs_assignment_clear(&prv);
    cs_assignment_clear(&wit);
    cs_assignment_clear(&wit1);
    cs_shape_clear(&shape[0]);
}

#if !SHAPE_SLOW_TESTS
/* ------------------------------------------------------------------------------------------
 * Hand-made random circuits, synthesized sequentially, through cs_extend or through cs_fork
 * ---------------------------------------------------------------------------------------- */

#    define RC_SEGS     3
#    define RC_MAX_VARS 64

typedef enum { RC_SEQ, RC_EXTEND, RC_FORK_SIZED, RC_FORK_UNSIZED } rc_mode;

typedef struct rc_ctx {
    uint64_t seed;
    rc_mode mode;
    bool use_parent; /* segments use the parent's variables (fork and its reference) */
} rc_ctx;

/* A few coefficients that repeat (the dictionary's job) and random ones. */
static void rc_coeff(fr_t *out, cz_prng *g)
{
    uint64_t k = cz_prng_below(g, 8);
    if (k < 5) {
        fr_from_u64(out, k == 0 ? 2 : k == 1 ? 3 : k == 2 ? 1 : k == 3 ? 7 : 1000003);
        if (cz_prng_below(g, 2)) {
            fr_neg(out, out);
        }
    } else {
        rand_fr(out, g);
    }
}

/* One LC over `vars` (n of them, ONE included): 0 to 5 terms, some repeating a variable, some
 * cancelling to a zero coefficient. */
static void rc_lc(cs_t *cs, cs_lc_t *lc, const cs_var_t *vars, size_t n, cz_prng *g)
{
    size_t terms = cz_prng_below(g, 6);
    for (size_t t = 0; t < terms; t++) {
        cs_var_t v = vars[cz_prng_below(g, n)];
        fr_t c;
        rc_coeff(&c, g);
        switch (cz_prng_below(g, 5)) {
        case 0:
            cs_lc_add_var(cs, lc, v);
            break;
        case 1:
            cs_lc_sub_var(cs, lc, v);
            break;
        case 2: /* c v - c v: merged to zero, dropped, not dense */
            cs_lc_add(cs, lc, &c, v);
            cs_lc_sub(cs, lc, &c, v);
            break;
        default:
            cs_lc_add(cs, lc, &c, v);
        }
    }
}

static void rc_value(fr_t *out, cz_prng *g)
{
    uint64_t k = cz_prng_below(g, 4);
    if (k < 2) {
        *out = k ? FR_ONE : FR_ZERO;
    } else {
        rand_fr(out, g);
    }
}

/* What segment `seed` adds: inputs, aux, constraints (the first draws of its generator). */
static void rc_seg_counts(cs_counts_t *out, uint64_t seed)
{
    cz_prng g;
    cz_prng_seed(&g, seed);
    out->num_inputs = cz_prng_below(&g, 3);
    out->num_aux = 1 + cz_prng_below(&g, 20);
    out->num_constraints = 1 + cz_prng_below(&g, 30);
}

/* A segment: its own inputs and aux, then constraints over them, ONE and `par` (n_par of the
 * parent's variables, valid in `cs`). */
static void rc_seg(cs_t *cs, uint64_t seed, const cs_var_t *par, size_t n_par)
{
    cs_var_t vars[RC_MAX_VARS + 1 + 24];
    cs_counts_t cnt;
    size_t n = 0;
    cz_prng g;
    bool vals = cs_has_values(cs);

    rc_seg_counts(&cnt, seed);
    cz_prng_seed(&g, seed);
    for (int i = 0; i < 3; i++) {
        (void)cz_prng_u64(&g); /* the counts' draws */
    }
    vars[n++] = CS_ONE;
    for (size_t i = 0; i < n_par; i++) {
        vars[n++] = par[i];
    }
    for (size_t i = 0; i < cnt.num_inputs + cnt.num_aux; i++) {
        fr_t v;
        rc_value(&v, &g);
        if (i < cnt.num_inputs) {
            cs_alloc_input(cs, &vars[n++], vals ? &v : NULL);
        } else {
            cs_alloc(cs, &vars[n++], vals ? &v : NULL);
        }
    }
    for (size_t j = 0; j < cnt.num_constraints; j++) {
        cs_lc_t a = cs_lc(cs), b = cs_lc(cs), c = cs_lc(cs);
        rc_lc(cs, &a, vars, n, &g);
        rc_lc(cs, &b, vars, n, &g);
        rc_lc(cs, &c, vars, n, &g);
        cs_enforce(cs, &a, &b, &c, "rc");
    }
}

static void rc_synth(cs_t *cs, void *ctx, bool blank, cz_pool *pool)
{
    rc_ctx *x = ctx;
    cs_var_t par[RC_MAX_VARS];
    cs_t *kids[RC_SEGS] = {NULL};
    cs_counts_t sizes[RC_SEGS];
    size_t np = 0;

    (void)blank;
    (void)pool;
    /* the parent's own part: interleaved inputs and aux, so aux columns shift at the end */
    for (size_t i = 0; i < 12; i++) {
        fr_t v;
        fr_from_u64(&v, i * i + 5);
        if (i % 4 == 1) {
            cs_alloc_input(cs, &par[np++], cs_has_values(cs) ? &v : NULL);
        } else {
            cs_alloc(cs, &par[np++], cs_has_values(cs) ? &v : NULL);
        }
    }
    rc_seg(cs, x->seed, par, np);
    for (size_t s = 0; s < RC_SEGS; s++) {
        rc_seg_counts(&sizes[s], x->seed + 1 + s);
    }
    if (x->mode == RC_FORK_SIZED || x->mode == RC_FORK_UNSIZED) {
        CHECK_OK(cs_fork(cs, kids, RC_SEGS, x->mode == RC_FORK_SIZED ? sizes : NULL, NULL));
    }
    for (size_t s = 0; s < RC_SEGS; s++) {
        const cs_var_t *p = x->use_parent ? par : NULL;
        size_t n = x->use_parent ? np : 0;
        if (x->mode == RC_SEQ) {
            rc_seg(cs, x->seed + 1 + s, p, n);
        } else if (x->mode == RC_EXTEND) {
            cs_t *child = NULL;
            CHECK_OK(cs_new_like(&child, cs, NULL, NULL));
            rc_seg(child, x->seed + 1 + s, NULL, 0);
            CHECK_OK(cs_extend(cs, child, NULL));
            cs_free(child);
        } else {
            rc_seg(kids[s], x->seed + 1 + s, p, n);
        }
    }
    for (size_t s = 0; kids[0] && s < RC_SEGS; s++) {
        CHECK_OK(cs_join(cs, kids[s], NULL));
        cs_free(kids[s]);
    }
    /* after the children: the parent's variables only (no rebasing needed) */
    rc_seg(cs, x->seed + 100, par, np);
}

/* The shape, prover and witness + eval of `x` in `mode` against the sequential synthesis. */
static void rc_check_mode(rc_ctx *x, rc_mode mode)
{
    cs_shape_t seq[2], got[2];
    cs_assignment_t p_seq, p_got, w_got;

    x->mode = RC_SEQ;
    record_shape(seq, rc_synth, x, NULL, NULL);
    synth_asg(&p_seq, true, rc_synth, x, NULL, NULL);
    x->mode = mode;
    record_shape(got, rc_synth, x, NULL, NULL);
    CHECK_MSG(cs_shape_eq(&seq[0], &got[0]), "mode %d: shape differs from sequential", mode);
    synth_asg(&p_got, true, rc_synth, x, NULL, NULL);
    synth_asg(&w_got, false, rc_synth, x, NULL, NULL);
    CHECK_OK(cs_shape_eval(&got[0], &w_got, NULL, NULL));
    cst_check_asg_eq(&p_seq, &p_got);
    cst_check_asg_eq(&p_seq, &w_got);
    cs_assignment_clear(&p_seq);
    cs_assignment_clear(&p_got);
    cs_assignment_clear(&w_got);
    cs_shape_clear(&seq[0]);
    cs_shape_clear(&got[0]);
}

TEST(shape_random_circuits)
{
    cz_prng *g = test_prng();

    for (int it = 0; it < 40; it++) {
        rc_ctx x = {cz_prng_u64(g), RC_SEQ, false};
        check_circuit("random", rc_synth, &x, false);
        rc_check_mode(&x, RC_EXTEND);
        x.use_parent = true;
        check_circuit("random-parent", rc_synth, &x, false);
        rc_check_mode(&x, RC_FORK_SIZED);
        rc_check_mode(&x, RC_FORK_UNSIZED);
    }
}

/* A constraint by hand: the rows, columns, dictionary and densities are exactly these. */
TEST(shape_by_hand)
{
    cs_t *cs = NULL;
    cs_shape_t s[2];
    cs_var_t x, y, in, z;
    fr_t five, minus_five, vx = FR_ONE, vin = FR_ONE;

    fr_from_u64(&five, 5);
    fr_neg(&minus_five, &five);
    CHECK_OK(cs_new_shape_recorder(&cs, NULL, NULL));
    cs_alloc(cs, &x, &vx);
    cs_alloc(cs, &y, &vx);
    cs_alloc_input(cs, &in, &vin); /* Input(1): aux columns become 2 + index */
    cs_alloc(cs, &z, &vx);
    {
        /* A = y + 5 x - 5 z + 5 z (z merges to 0), B = in - ONE, C = -5 y */
        cs_lc_t a = cs_lc(cs), b = cs_lc(cs), c = cs_lc(cs);
        cs_lc_add_var(cs, &a, y);
        cs_lc_add(cs, &a, &five, x);
        cs_lc_add(cs, &a, &minus_five, z);
        cs_lc_add(cs, &a, &five, z);
        cs_lc_add_var(cs, &b, in);
        cs_lc_sub_var(cs, &b, CS_ONE);
        cs_lc_add(cs, &c, &minus_five, y);
        CHECK_OK(cs_enforce(cs, &a, &b, &c, "hand"));
    }
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_shape(cs, s, NULL));
    cs_free(cs);
    check_dict_ones(&s[0]);
    CHECK_EQ_U64(s[0].dict_len, 4); /* 1, -1, 5, -5 in order of first use */
    CHECK_MEM_EQ(&s[0].dict[2], &five, sizeof(fr_t));
    CHECK_MEM_EQ(&s[0].dict[3], &minus_five, sizeof(fr_t));
    /* rows: the constraint, then Input(0) and Input(1) */
    static const uint32_t a_rp[4] = {0, 2, 3, 4}, a_col[4] = {2, 3, 0, 1};
    static const uint16_t a_coef[4] = {2, 0, 0, 0};
    static const uint32_t b_rp[4] = {0, 2, 2, 2}, b_col[2] = {0, 1};
    static const uint16_t b_coef[2] = {1, 0};
    static const uint32_t c_rp[4] = {0, 1, 1, 1}, c_col[1] = {3};
    static const uint16_t c_coef[1] = {3};
    CHECK_EQ_U64(s[0].A.rows, 3);
    CHECK_EQ_U64(s[0].A.nnz, 4);
    CHECK_MEM_EQ(s[0].A.row_ptr, a_rp, sizeof(a_rp));
    CHECK_MEM_EQ(s[0].A.col, a_col, sizeof(a_col));
    CHECK_MEM_EQ(s[0].A.coef, a_coef, sizeof(a_coef));
    CHECK_MEM_EQ(s[0].B.row_ptr, b_rp, sizeof(b_rp));
    CHECK_MEM_EQ(s[0].B.col, b_col, sizeof(b_col));
    CHECK_MEM_EQ(s[0].B.coef, b_coef, sizeof(b_coef));
    CHECK_MEM_EQ(s[0].C.row_ptr, c_rp, sizeof(c_rp));
    CHECK_MEM_EQ(s[0].C.col, c_col, sizeof(c_col));
    CHECK_MEM_EQ(s[0].C.coef, c_coef, sizeof(c_coef));
    /* densities: A uses aux 0 and 1 (z cancelled), B inputs 0 and 1, no aux */
    CHECK_EQ_U64(s[0].a_aux_density.len, 3);
    CHECK_EQ_U64(s[0].a_aux_density.words[0], 3);
    CHECK_EQ_U64(s[0].b_input_density.words[0], 3);
    CHECK_EQ_U64(s[0].b_aux_density.popcount, 0);
    CHECK_EQ_U64(cs_shape_bytes(&s[0]), 4 * 32 + 3 * 4 * 4 + 7 * 6 + 3 * 8);
    cs_shape_clear(&s[0]);
    cs_shape_clear(&s[0]); /* a cleared shape is accepted */
}

TEST(shape_value_kinds)
{
    /* the kinds pass of the products, SSE2 and limb loop, on one thread and on the pool,
     * against fr_is_zero / fr_is_one: 0, 1, random values, and 0 or 1 with one byte changed */
    enum { NI = 3, NA = 70000 };
    fr_t *in = cz_malloc(NI * sizeof(fr_t)), *aux = cz_malloc(NA * sizeof(fr_t));
    uint8_t *k[4];
    cz_prng g;
    cz_pool *pool = NULL;

    CHECK(in && aux);
    CHECK_OK(cz_pool_new(&pool, 2, "kinds", NULL));
    cz_prng_seed(&g, 77);
    for (size_t i = 0; i < NI + NA; i++) {
        fr_t *w = i < NI ? &in[i] : &aux[i - NI];
        uint64_t r = cz_prng_below(&g, 4);
        *w = r == 0 ? FR_ZERO : r == 1 ? FR_ONE : FR_ZERO;
        if (r == 2) {
            rand_fr(w, &g);
        } else if (r == 3) {
            *w = cz_prng_below(&g, 2) ? FR_ONE : FR_ZERO;
            ((uint8_t *)w->l)[cz_prng_below(&g, 32)] ^= (uint8_t)(1 + cz_prng_below(&g, 255));
        }
    }
    for (int j = 0; j < 4; j++) {
        k[j] = cz_malloc(NI + NA);
        CHECK(k[j] != NULL);
        cs_value_kinds(k[j], in, NI, aux, NA, j & 1, j & 2 ? pool : NULL);
    }
    for (size_t i = 0; i < NI + NA; i++) {
        const fr_t *w = i < NI ? &in[i] : &aux[i - NI];
        int want = fr_is_zero(w) ? CS_VK_ZERO : fr_is_one(w) ? CS_VK_ONE : CS_VK_OTHER;
        for (int j = 0; j < 4; j++) {
            CHECK_MSG(k[j][i] == want, "value %zu, form %d", i, j);
        }
    }
    for (int j = 0; j < 4; j++) {
        cz_free(k[j]);
    }
    cz_pool_free(pool);
    cz_free(in);
    cz_free(aux);
}

TEST(shape_errors)
{
    cs_t *cs = NULL;
    cs_shape_t s[2];
    cs_assignment_t asg;
    cz_diag dg;

    /* the dictionary holds at most 65536 coefficients: 1, -1 and 65535 more overflow */
    CHECK_OK(cs_new_shape_recorder(&cs, NULL, NULL));
    for (uint64_t i = 0; i < CS_SHAPE_DICT_MAX - 1; i++) {
        fr_t k;
        cs_var_t v;
        fr_from_u64(&k, i + 2);
        cs_alloc(cs, &v, NULL);
        cs_lc_t a = cs_lc(cs);
        cs_lc_add(cs, &a, &k, v);
        cs_enforce(cs, &a, NULL, NULL, NULL);
    }
    cz_diag_init(&dg);
    CHECK_ERR(cs_finish(cs, &dg), CUZK_E_INVAL);
    CHECK_MSG(strstr(dg.msg, "65536") != NULL, "message: %s", dg.msg);
    CHECK_ERR(cs_take_shape(cs, s, NULL), CUZK_E_INVAL);
    cs_free(cs);

    /* take: another kind, before finish */
    CHECK_OK(cs_new_recorder(&cs, NULL));
    CHECK_ERR(cs_take_shape(cs, s, NULL), CUZK_E_INVAL);
    cs_free(cs);
    CHECK_OK(cs_new_shape_recorder(&cs, NULL, NULL));
    CHECK_ERR(cs_take_shape(cs, s, NULL), CUZK_E_INVAL);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_shape(cs, s, NULL));
    cs_free(cs);

    /* eval: counts must match */
    CHECK_OK(cs_new_witness(&cs, NULL, NULL));
    cs_var_t v;
    cs_alloc(cs, &v, &FR_ONE);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &asg, NULL));
    cs_free(cs);
    CHECK_ERR(cs_shape_eval(&s[0], &asg, NULL, NULL), CUZK_E_INVAL);
    cs_assignment_clear(&asg);
    cs_shape_clear(&s[0]);
}

#endif /* !SHAPE_SLOW_TESTS */

/* ------------------------------------------------------------------------------------------
 * The Filecoin circuits with random witnesses of the right shape
 * ---------------------------------------------------------------------------------------- */

/* Random values and path positions that every witness points into. */
typedef struct rnd_store {
    fr_t vals[4096];
    uint32_t idx[64]; /* 0 / 1: valid positions at any arity */
} rnd_store;

static rnd_store *rnd_store_new(cz_prng *g)
{
    rnd_store *s = cz_malloc(sizeof(*s));
    CHECK(s != NULL);
    for (size_t i = 0; i < ARRAY_LEN(s->vals); i++) {
        rand_fr(&s->vals[i], g);
    }
    for (size_t i = 0; i < ARRAY_LEN(s->idx); i++) {
        s->idx[i] = (uint32_t)(cz_prng_u64(g) & 1);
    }
    return s;
}

static circ_path_t rnd_path(const rnd_store *s, cz_prng *g)
{
    circ_path_t p = {&s->vals[cz_prng_below(g, 2048)], s->idx};
    return p;
}

typedef struct porep_ctx {
    circ_porep_cfg_t cfg;
    circ_porep_challenge_t ch[CIRC_MAX_CHALLENGES_PER_PARTITION];
    circ_porep_witness_t w;
    cs_counts_t each;
    bool sized; /* hand the challenge counts to the pool synthesis */
    rnd_store *s;
} porep_ctx;

static void porep_init(porep_ctx *p, uint64_t sector_bytes, cz_prng *g)
{
    memset(p, 0, sizeof(*p));
    CHECK(circ_porep_cfg_for_sector(&p->cfg, sector_bytes));
    p->s = rnd_store_new(g);
    for (size_t c = 0; c < p->cfg.challenges; c++) {
        circ_porep_challenge_t *ch = &p->ch[c];
        ch->node = cz_prng_below(g, p->cfg.nodes);
        rand_fr(&ch->data_leaf, g);
        ch->comm_d_path = rnd_path(p->s, g);
        ch->comm_r_last_path = rnd_path(p->s, g);
        ch->comm_c_path = rnd_path(p->s, g);
        for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
            ch->drg[j].rows = &p->s->vals[cz_prng_below(g, 4000)];
            ch->drg[j].path = rnd_path(p->s, g);
        }
        for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
            ch->exp[j].rows = &p->s->vals[cz_prng_below(g, 4000)];
            ch->exp[j].path = rnd_path(p->s, g);
        }
    }
    rand_fr(&p->w.replica_id, g);
    rand_fr(&p->w.comm_d, g);
    rand_fr(&p->w.comm_r, g);
    rand_fr(&p->w.comm_c, g);
    rand_fr(&p->w.comm_r_last, g);
    p->w.challenges = p->ch;
    CHECK_OK(circ_porep_challenge_counts(&p->each, &p->cfg, NULL));
}

static void porep_synth(cs_t *cs, void *ctx, bool blank, cz_pool *pool)
{
    porep_ctx *p = ctx;
    circ_porep_synth_pool(cs, &p->cfg, blank ? NULL : &p->w, pool, p->sized ? &p->each : NULL);
}

#if !SHAPE_SLOW_TESTS
typedef struct post_ctx {
    circ_post_cfg_t cfg;
    circ_post_sector_t *sectors;
    fr_t leaves[CIRC_WINNING_POST_CHALLENGES];
    circ_path_t paths[CIRC_WINNING_POST_CHALLENGES];
    rnd_store *s;
} post_ctx;

static void post_init(post_ctx *p, bool winning, cz_prng *g)
{
    memset(p, 0, sizeof(*p));
    CHECK(winning ? circ_winning_post_cfg(&p->cfg, 2048) : circ_window_post_cfg(&p->cfg, 2048, 0));
    p->s = rnd_store_new(g);
    p->sectors = cz_calloc(p->cfg.sector_count, sizeof(*p->sectors));
    CHECK(p->sectors != NULL);
    for (size_t j = 0; j < p->cfg.challenge_count; j++) {
        rand_fr(&p->leaves[j], g);
        p->paths[j] = rnd_path(p->s, g);
    }
    for (size_t i = 0; i < p->cfg.sector_count; i++) {
        rand_fr(&p->sectors[i].comm_r, g);
        rand_fr(&p->sectors[i].comm_c, g);
        rand_fr(&p->sectors[i].comm_r_last, g);
        p->sectors[i].leaves = p->leaves;
        p->sectors[i].paths = p->paths;
    }
}

static void post_synth(cs_t *cs, void *ctx, bool blank, cz_pool *pool)
{
    post_ctx *p = ctx;
    circ_post_synth(cs, &p->cfg, blank ? NULL : p->sectors, pool);
}

typedef struct upd_ctx {
    circ_update_cfg_t cfg;
    circ_update_witness_t w;
    circ_update_challenge_t *ch;
    fr_t apex[128];
    rnd_store *s;
} upd_ctx;

static void upd_init(upd_ctx *u, bool poseidon, cz_prng *g)
{
    memset(u, 0, sizeof(*u));
    CHECK(circ_update_cfg_init(&u->cfg, 2048 / 32, poseidon));
    u->s = rnd_store_new(g);
    u->ch = cz_calloc(u->cfg.challenges, sizeof(*u->ch));
    CHECK(u->ch != NULL);
    for (size_t c = 0; c < u->cfg.challenges; c++) {
        rand_fr(&u->ch[c].leaf_r_old, g);
        rand_fr(&u->ch[c].leaf_d_new, g);
        u->ch[c].path_r_old = &u->s->vals[cz_prng_below(g, 2048)];
        u->ch[c].path_d_new = &u->s->vals[cz_prng_below(g, 2048)];
        u->ch[c].path_r_new = &u->s->vals[cz_prng_below(g, 2048)];
    }
    for (size_t i = 0; i < ARRAY_LEN(u->apex); i++) {
        rand_fr(&u->apex[i], g);
    }
    u->w.k = 0;
    u->w.h = u->cfg.hs[0];
    rand_fr(&u->w.comm_r_old, g);
    rand_fr(&u->w.comm_d_new, g);
    rand_fr(&u->w.comm_r_new, g);
    rand_fr(&u->w.comm_c, g);
    rand_fr(&u->w.root_r_old, g);
    rand_fr(&u->w.root_r_new, g);
    u->w.apex_leaves = u->apex;
    u->w.challenges = u->ch;
}

static void upd_synth(cs_t *cs, void *ctx, bool blank, cz_pool *pool)
{
    upd_ctx *u = ctx;
    (void)pool;
    circ_update_synth(cs, &u->cfg, blank ? NULL : &u->w);
}

TEST(shape_porep_2kib)
{
    porep_ctx p;

    cs_shape_t seq[2], par[2];

    porep_init(&p, 2048, test_prng());
    check_circuit("porep-2kib", porep_synth, &p, false); /* forks without sizes */
    p.sized = true;                                      /* and with */
    record_shape(seq, porep_synth, &p, NULL, NULL);
    record_shape(par, porep_synth, &p, test_pool(), NULL);
    CHECK(cs_shape_eq(&seq[0], &par[0]));
    cs_shape_clear(&seq[0]);
    cs_shape_clear(&par[0]);
    cz_free(p.s);
}

TEST(shape_winning_post_2kib)
{
    post_ctx p;

    post_init(&p, true, test_prng());
    check_circuit("winning-post-2kib", post_synth, &p, false);
    cz_free(p.sectors);
    cz_free(p.s);
}

TEST(shape_window_post_2kib)
{
    post_ctx p;

    post_init(&p, false, test_prng());
    check_circuit("window-post-2kib", post_synth, &p, false);
    cz_free(p.sectors);
    cz_free(p.s);
}

TEST(shape_snap_2kib)
{
    upd_ctx u;

    for (int poseidon = 0; poseidon < 2; poseidon++) {
        upd_init(&u, poseidon, test_prng());
        check_circuit(poseidon ? "snap-poseidon-2kib" : "snap-2kib", upd_synth, &u, false);
        cz_free(u.ch);
        cz_free(u.s);
    }
}
#else
TEST(shape_porep_512mib)
{
    porep_ctx p;

    porep_init(&p, UINT64_C(512) << 20, test_prng());
    p.sized = true;
    check_circuit("porep-512mib", porep_synth, &p, true);
    cz_free(p.s);
}
#endif

#if !SHAPE_SLOW_TESTS
/* ------------------------------------------------------------------------------------------
 * Shape files
 * ---------------------------------------------------------------------------------------- */

static const char KEY[] = "porep/2KiB/v1.1/test";

static void store_le16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static void file_path(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s", test_bin_path(name));
}

static uint8_t *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    CHECK(fseek(f, 0, SEEK_END) == 0);
    long n = ftell(f);
    CHECK(n >= 0);
    rewind(f);
    uint8_t *buf = cz_malloc((size_t)n + 1);
    CHECK(buf != NULL && fread(buf, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void write_file(const char *path, const void *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(len == 0 || fwrite(p, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

/* Recomputes the checksums of a shape file image from the layout in docs/formats.md (a second
 * reading of the format, independent of shape_file.c's): the payload's when `payload` (the
 * counts must then match the length), always the header's. */
static void fix_checksums(uint8_t *f, size_t len, bool payload)
{
    size_t key_len = cz_load_le32(f + 12), hlen = (88 + key_len + 8 + 63) / 64 * 64;
    uint64_t ni = cz_load_le64(f + 16), nc = cz_load_le64(f + 32), dl = cz_load_le64(f + 40);
    uint64_t nnz[3] = {cz_load_le64(f + 48), cz_load_le64(f + 56), cz_load_le64(f + 64)};
    size_t sec[10], nb = 0, off = hlen;
    uint8_t hashes[8 * 64];

    sec[0] = dl * 32;
    for (int k = 0; k < 3; k++) {
        sec[1 + k] = (nc + ni + 1) * 4;
        sec[4 + k] = nnz[k] * 4;
        sec[7 + k] = nnz[k] * 2;
    }
    for (int i = 0; i < 10 && payload; i++) {
        for (size_t b = 0; b < sec[i]; b += (size_t)1 << 24) {
            size_t n = sec[i] - b < ((size_t)1 << 24) ? sec[i] - b : ((size_t)1 << 24);
            CHECK(nb < 64 && off + b + n <= len);
            cz_store_le64(hashes + 8 * nb++, cs_xxh64(f + off + b, n, 0));
        }
        off += sec[i];
    }
    if (payload) {
        CHECK_EQ_U64(off, len);
        cz_store_le64(f + 80, cs_xxh64(hashes, 8 * nb, 0));
    }
    cz_store_le64(f + hlen - 8, cs_xxh64(f, hlen - 8, 0));
}

/* Loading `path` fails with `code`, and a CUZK_E_FORMAT message names the file and `what`. */
static void expect_refused(const char *path, cuzk_err code, const char *what)
{
    cs_shape_t s;
    cz_diag dg;

    cz_diag_init(&dg);
    CHECK_ERR(cs_shape_load(&s, path, KEY, strlen(KEY), NULL, &dg), code);
    CHECK(s.dict == NULL && s.A.col == NULL && s.block == NULL);
    CHECK_MSG(strstr(dg.msg, path) != NULL, "message does not name the file: %s", dg.msg);
    CHECK_MSG(!what || strstr(dg.msg, what) != NULL, "message lacks \"%s\": %s", what, dg.msg);
}

static void small_shape(cs_shape_t *out)
{
    rc_ctx x = {test_seed() ^ 0x5eed, RC_SEQ, true};
    record_shape(out, rc_synth, &x, NULL, NULL);
}

TEST(shape_xxh64_kat)
{
    /* libxxhash 0.8.1 XXH64(seed 0) of bytes (i * 131 + 7) mod 256, i < n */
    static const struct {
        size_t n;
        uint64_t h;
    } v[] = {
        {0, UINT64_C(0xef46db3751d8e999)},    {1, UINT64_C(0xa96c7f0ce858bbb7)},
        {3, UINT64_C(0xbed43740ee6332bb)},    {4, UINT64_C(0xfa212ae44b3bb23d)},
        {7, UINT64_C(0x2744460dd675d2c0)},    {8, UINT64_C(0x994b676b71ce94dd)},
        {31, UINT64_C(0x6711d55e306b5d8f)},   {32, UINT64_C(0x07f7b8e3bc5d6e25)},
        {33, UINT64_C(0x09f85eeb4e1cbe9f)},   {100, UINT64_C(0x9ddada11d3dc2d8f)},
        {1000, UINT64_C(0x0bf0bdbcc82eb373)}, {12345, UINT64_C(0x5601467a85cbffe7)},
    };
    uint8_t *buf = cz_malloc(12345);

    CHECK(buf != NULL);
    for (size_t i = 0; i < 12345; i++) {
        buf[i] = (uint8_t)(i * 131 + 7);
    }
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        CHECK_EQ_U64(cs_xxh64(buf, v[i].n, 0), v[i].h);
    }
    cz_free(buf);
}

TEST(shape_file_round_trip)
{
    cs_shape_t s[2], t;
    char path[1024];
    uint8_t *f;
    size_t len;

    small_shape(s);
    file_path(path, sizeof(path), "shape_round_trip.shape");
    CHECK_OK(cs_shape_save(&s[0], path, KEY, strlen(KEY), NULL, NULL));
    CHECK(access(path, F_OK) == 0);
    CHECK_OK(cs_shape_load(&t, path, KEY, strlen(KEY), NULL, NULL));
    CHECK(cs_shape_eq(&s[0], &t));
    CHECK_EQ_U64(cs_shape_bytes(&s[0]), cs_shape_bytes(&t));
    cs_shape_clear(&t);
    CHECK_OK(cs_shape_load(&t, path, KEY, strlen(KEY), test_pool(), NULL));
    CHECK(cs_shape_eq(&s[0], &t));
    cs_shape_clear(&t);
    /* the file is exactly what docs/formats.md describes */
    f = read_file(path, &len);
    uint8_t *g = cz_malloc(len);
    CHECK(g != NULL);
    memcpy(g, f, len);
    fix_checksums(g, len, true);
    CHECK_MEM_EQ(f, g, len);
    CHECK_MEM_EQ(f, "CUZKSHAP", 8);
    CHECK_EQ_U64(cz_load_le32(f + 8), CS_SHAPE_FILE_VERSION);
    CHECK_MEM_EQ(f + 88, KEY, strlen(KEY));
    cz_free(g);
    cz_free(f);
    remove(path);
    cs_shape_clear(&s[0]);
}

/* A few constraints with every kind of entry: a file of a few hundred bytes, small enough to
 * flip and cut at every byte. */
static void tiny_synth(cs_t *cs, void *ctx, bool blank, cz_pool *pool)
{
    cs_var_t v[5];
    fr_t k;

    (void)ctx;
    (void)blank;
    (void)pool;
    fr_from_u64(&k, 12345);
    for (size_t i = 0; i < 5; i++) {
        fr_t x;
        fr_from_u64(&x, i + 3);
        if (i == 2) {
            cs_alloc_input(cs, &v[i], cs_has_values(cs) ? &x : NULL);
        } else {
            cs_alloc(cs, &v[i], cs_has_values(cs) ? &x : NULL);
        }
    }
    for (size_t j = 0; j < 4; j++) {
        cs_lc_t a = cs_lc(cs), b = cs_lc(cs), c = cs_lc(cs);
        cs_lc_add(cs, &a, &k, v[j]);
        cs_lc_add_var(cs, &a, v[j + 1]);
        cs_lc_sub_var(cs, &b, v[(j + 2) % 5]);
        cs_lc_add_var(cs, &c, CS_ONE);
        cs_enforce(cs, &a, &b, &c, "tiny");
    }
}

TEST(shape_file_refused)
{
    cs_shape_t s[2];
    char path[1024], bad[1024];
    uint8_t *f;
    size_t len;

    record_shape(s, tiny_synth, NULL, NULL, NULL);
    file_path(path, sizeof(path), "shape_refused.shape");
    file_path(bad, sizeof(bad), "shape_refused_bad.shape");
    CHECK_OK(cs_shape_save(&s[0], path, KEY, strlen(KEY), NULL, NULL));
    f = read_file(path, &len);
    printf("# shape file of %zu bytes\n", len);
    /* every byte flipped, one at a time */
    for (size_t i = 0; i < len; i++) {
        f[i] ^= (uint8_t)(1u << (i % 8));
        write_file(bad, f, len);
        expect_refused(bad, CUZK_E_FORMAT, NULL);
        f[i] ^= (uint8_t)(1u << (i % 8));
    }
    /* every truncation, and one byte too many */
    for (size_t n = 0; n < len; n++) {
        write_file(bad, f, n);
        expect_refused(bad, CUZK_E_FORMAT, n < 16 ? "not a shape file" : NULL);
    }
    f[len] = 0;
    write_file(bad, f, len + 1);
    expect_refused(bad, CUZK_E_FORMAT, "trailing bytes");
    write_file(bad, f, len - 1);
    expect_refused(bad, CUZK_E_FORMAT, "truncated");
    /* stale: another key, another version (with valid checksums, and without) */
    {
        cs_shape_t t;
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_ERR(cs_shape_load(&t, path, "porep/2KiB/v1.2/test", 20, NULL, &dg), CUZK_E_FORMAT);
        CHECK_MSG(strstr(dg.msg, "another circuit shape") && strstr(dg.msg, path), "%s", dg.msg);
        CHECK_ERR(cs_shape_load(&t, path, KEY, strlen(KEY) - 1, NULL, &dg), CUZK_E_FORMAT);
        CHECK_ERR(cs_shape_load(&t, path, KEY, 0, NULL, &dg), CUZK_E_INVAL);
    }
    cz_store_le32(f + 8, CS_SHAPE_FILE_VERSION + 1);
    write_file(bad, f, len);
    expect_refused(bad, CUZK_E_FORMAT, "version");
    fix_checksums(f, len, true);
    write_file(bad, f, len);
    expect_refused(bad, CUZK_E_FORMAT, "version 2");
    cz_store_le32(f + 8, CS_SHAPE_FILE_VERSION);
    fix_checksums(f, len, true);
    write_file(bad, f, len);
    cs_shape_t t;
    CHECK_OK(cs_shape_load(&t, bad, KEY, strlen(KEY), NULL, NULL)); /* restored: accepted */
    cs_shape_clear(&t);
    /* absent */
    remove(bad);
    expect_refused(bad, CUZK_E_IO, NULL);
    /* a FIFO (or a hung file system's node) at the path: refused at once, never opened blocking */
    CHECK(mkfifo(bad, 0600) == 0);
    expect_refused(bad, CUZK_E_IO, "not a readable regular file");
    remove(bad);
    cz_free(f);
    remove(path);
    cs_shape_clear(&s[0]);
}

/* Files whose checksums are right but whose contents would make an evaluator read out of
 * bounds or compute with a broken dictionary: refused by the validation. */
TEST(shape_file_bad_indices)
{
    cs_shape_t s[2];
    char path[1024], bad[1024];
    uint8_t *f, *g;
    size_t len;

    small_shape(s);
    CHECK(s[0].dict_len > 2 && s[0].A.nnz > 0 && s[0].B.nnz > 0 && s[0].C.nnz > 0);
    file_path(path, sizeof(path), "shape_bad.shape");
    file_path(bad, sizeof(bad), "shape_bad_idx.shape");
    CHECK_OK(cs_shape_save(&s[0], path, KEY, strlen(KEY), NULL, NULL));
    f = read_file(path, &len);
    g = cz_malloc(len);
    CHECK(g != NULL);

    size_t hlen = (88 + strlen(KEY) + 8 + 63) / 64 * 64, rows = s[0].A.rows;
    size_t dict = hlen, rp[3], col[3], coef[3];
    size_t off = dict + s[0].dict_len * 32;
    const cs_shape_matrix_t *m[3] = {&s[0].A, &s[0].B, &s[0].C};
    for (int k = 0; k < 3; k++) {
        rp[k] = off;
        off += (rows + 1) * 4;
    }
    for (int k = 0; k < 3; k++) {
        col[k] = off;
        off += m[k]->nnz * 4;
    }
    for (int k = 0; k < 3; k++) {
        coef[k] = off;
        off += m[k]->nnz * 2;
    }
    CHECK_EQ_U64(off, len);
    /* a row of A with two entries, for the unsorted case */
    size_t r2 = 0;
    while (r2 < rows && s[0].A.row_ptr[r2 + 1] - s[0].A.row_ptr[r2] < 2) {
        r2++;
    }
    CHECK(r2 < rows);
    size_t z2 = s[0].A.row_ptr[r2];
    /* the row that holds A's first non-zero (rows before it may be empty) */
    size_t r0 = 0;
    while (r0 < rows && s[0].A.row_ptr[r0 + 1] == 0) {
        r0++;
    }
    char first_row[48];
    snprintf(first_row, sizeof(first_row), "matrix A row %zu:", r0);

    static const uint8_t ff[32] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                   0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f};
    for (int c = 0; c < 9; c++) {
        const char *what = NULL;
        memcpy(g, f, len);
        switch (c) {
        case 0: /* column past the last variable */
            cz_store_le32(g + col[0], (uint32_t)(s[0].num_inputs + s[0].num_aux));
            what = first_row;
            break;
        case 1: /* coefficient index past the dictionary */
            store_le16(g + coef[1], (uint16_t)s[0].dict_len);
            what = "matrix B";
            break;
        case 2: /* a row reaching past the end */
            cz_store_le32(g + rp[2] + 4, (uint32_t)s[0].C.nnz + 1);
            what = "matrix C row 0";
            break;
        case 3: /* row pointers that do not end at nnz */
            cz_store_le32(g + rp[0] + 4 * rows, (uint32_t)s[0].A.nnz - 1);
            what = "row pointers";
            break;
        case 4: /* columns out of order */
            cz_store_le32(g + col[0] + 4 * z2, s[0].A.col[z2 + 1]);
            cz_store_le32(g + col[0] + 4 * (z2 + 1), s[0].A.col[z2]);
            what = "columns unsorted";
            break;
        case 5:
            memcpy(g + dict, &s[0].dict[2], 32);
            what = "does not start with 1, -1";
            break;
        case 6:
            memcpy(g + dict + 64, ff, 32);
            what = "not below r";
            break;
        case 7:
            memset(g + dict + 64, 0, 32);
            what = "is zero";
            break;
        default: /* counts that do not match the lengths */
            cz_store_le64(g + 32, s[0].num_constraints + 1);
            what = "inconsistent counts";
            break;
        }
        fix_checksums(g, len, c < 8);
        write_file(bad, g, len);
        expect_refused(bad, CUZK_E_FORMAT, what);
    }
    cz_free(g);
    cz_free(f);
    remove(path);
    remove(bad);
    cs_shape_clear(&s[0]);
}

/* A real circuit's file: round trip over the pool, refused when cut or flipped anywhere. */
TEST(shape_file_porep_2kib)
{
    porep_ctx p;
    cs_shape_t s[2], t;
    char path[1024], bad[1024];
    uint8_t *f;
    size_t len;
    cz_prng *g = test_prng();

    porep_init(&p, 2048, g);
    record_shape(s, porep_synth, &p, test_pool(), NULL);
    file_path(path, sizeof(path), "shape_porep.shape");
    file_path(bad, sizeof(bad), "shape_porep_bad.shape");
    CHECK_OK(cs_shape_save(&s[0], path, KEY, strlen(KEY), test_pool(), NULL));
    CHECK_OK(cs_shape_load(&t, path, KEY, strlen(KEY), test_pool(), NULL));
    CHECK(cs_shape_eq(&s[0], &t));
    cs_shape_clear(&t);
    f = read_file(path, &len);
    /* a flip in the header, the dictionary, the row pointers, the columns, the coefficients,
     * the last byte, and at random places; cuts likewise */
    size_t hlen = (88 + strlen(KEY) + 8 + 63) / 64 * 64, rows = s[0].A.rows;
    size_t at[10] = {40,      hlen + 40, hlen + s[0].dict_len * 32 + 4 * rows,
                     len / 2, len - 7,   len - 1};
    for (size_t i = 6; i < ARRAY_LEN(at); i++) {
        at[i] = hlen + cz_prng_below(g, len - hlen); /* header fields have their own messages */
    }
    for (size_t i = 0; i < ARRAY_LEN(at); i++) {
        uint8_t bit = (uint8_t)(1u << cz_prng_below(g, 8));
        f[at[i]] ^= bit;
        write_file(bad, f, len);
        expect_refused(bad, CUZK_E_FORMAT, "corrupted");
        f[at[i]] ^= bit;
        if (i % 3 == 0) {
            write_file(bad, f, at[i]);
            expect_refused(bad, CUZK_E_FORMAT, NULL);
        }
    }
    cz_free(f);
    remove(path);
    remove(bad);
    cs_shape_clear(&s[0]);
    cz_free(p.s);
}
#endif /* !SHAPE_SLOW_TESTS */
