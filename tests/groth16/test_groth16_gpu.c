/* test_groth16_gpu.c - the GPU prover (g16_gpu_params, src/groth16/prover_gpu.c) against the CPU
 * prover, byte for byte, and the density compaction it relies on (gpu_fr_compact_buf) against a
 * compaction on the host.
 *
 * Reference: g16_prove_ex without opts.gpu (itself checked against a naive prover in
 * test_groth16.c); every GPU proof must have the same 192 bytes for the same r and s, and the
 * same stage names in the same order. Circuits are random, synthesized through the cs API with
 * a structure seed and a separate value seed, so that several witnesses of one circuit prove
 * with the same resident parameters. Their shapes reach the corners of the density handling:
 * m not a power of two, no aux at all, inputs with gaps in the B density, aux whose A and B
 * density words are zero (aligned with the combined [inputs | aux] words or not), an empty A
 * aux density, an empty B density (no B bases at all), both empty. Also: an unsatisfied witness
 * gives CUZK_E_UNSAT on the GPU path (copy and take) and the parameters prove correctly
 * afterwards; the taking variant frees a, b, c; staging rings of small slots split every vector
 * into many chunks.
 * Built twice: test_groth16_gpu (the real backend; every test skips, exit 77, without a device)
 * and test_groth16_gpu_emu (the kernels run by the CPU emulation of gpu/cuda/emu.cuh; small
 * circuits only). Randomized: the seed is printed; replay with --seed.
 */
#include "harness/test.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "field/fr.h"
#include "gpu/gpu.h"
#include "gpu/gpu_test_util.h"
#include "gpu/internal.h"
#include "groth16/g16_test_util.h"
#include "groth16/groth16.h"
#include "groth16/internal.h"
#include "r1cs/r1cs.h"

/* ---- device, pool, helpers ---- */

static cz_pool *test_pool(void)
{
    static cz_pool *pool;
    if (!pool) {
        unsigned n = cz_cpu_count();
        CHECK_OK(cz_pool_new(&pool, n > 1 ? n - 1 : 0, "g16gpu-test", NULL));
    }
    return pool;
}

static void *xmalloc(size_t n)
{
    void *p = cz_malloc(n ? n : 1);
    CHECK(p != NULL);
    return p;
}

/* 0, 1 or a random element (witness values are mostly bits in Filecoin circuits). */
static void rand_value(fr_t *out, cz_prng *g)
{
    switch (cz_prng_below(g, 3)) {
    case 0:
        *out = FR_ZERO;
        break;
    case 1:
        *out = FR_ONE;
        break;
    default:
        g16t_rand_fr(out, g);
    }
}

/* ---------------------------------------------------------------------------------------------
 * Random circuits with controlled densities
 * ------------------------------------------------------------------------------------------- */

enum {
    GC_A_EMPTY = 1,   /* no aux in any A: a_aux_density is all zero */
    GC_B_EMPTY = 2,   /* every B is empty: no B density at all, no B bases */
    GC_DARK = 4,      /* aux j with (j / 64) odd occur in C only: zero A and B density words */
    GC_B_IN_GAPS = 8, /* odd inputs never occur in B */
};

typedef struct gc_spec {
    const char *name;
    size_t ni;     /* public inputs, ONE excluded */
    size_t na;     /* aux variables; the circuit has na constraints, m = na + ni + 1 */
    unsigned mode; /* GC_* */
    uint64_t seed; /* structure (mixed with the test seed) */
} gc_spec;

typedef struct gc_term {
    bool aux;
    size_t idx;
    fr_t c;
} gc_term;

typedef struct gc_state {
    const gc_spec *sp;
    cs_t *cs;
    cz_prng gs, gv; /* structure, values */
    fr_t *win, *waux;
    cs_var_t *vin, *vaux;
    size_t nin; /* inputs allocated so far, ONE included */
    size_t *op; /* aux usable as operands (not dark), in allocation order */
    size_t nop;
} gc_state;

/* A random term over an earlier variable allowed in A (for_b false) or B; false: none drawn. */
static bool gc_pick(gc_state *st, bool for_b, gc_term *t)
{
    unsigned mode = st->sp->mode;
    size_t nop = (mode & (for_b ? GC_B_EMPTY : GC_A_EMPTY)) ? 0 : st->nop;
    size_t r = (size_t)cz_prng_below(&st->gs, st->nin + nop);

    g16t_rand_coeff(&t->c, &st->gs);
    if (r < st->nin) {
        t->aux = false;
        t->idx = r;
        return !(for_b && (mode & GC_B_IN_GAPS) && r % 2 == 1);
    }
    t->aux = true;
    t->idx = st->op[r - st->nin];
    return true;
}

static cs_var_t gc_var(const gc_state *st, const gc_term *t)
{
    return t->aux ? st->vaux[t->idx] : st->vin[t->idx];
}

static void gc_eval(fr_t *out, const gc_state *st, const gc_term *t, size_t len)
{
    *out = FR_ZERO;
    for (size_t k = 0; k < len; k++) {
        fr_t v;
        fr_mul(&v, &t[k].c, t[k].aux ? &st->waux[t[k].idx] : &st->win[t[k].idx]);
        fr_add(out, out, &v);
    }
}

static cs_lc_t gc_lc(gc_state *st, const gc_term *t, size_t len)
{
    cs_lc_t lc = cs_lc(st->cs);
    for (size_t k = 0; k < len; k++) {
        cs_lc_add(st->cs, &lc, &t[k].c, gc_var(st, &t[k]));
    }
    return lc;
}

static void gc_inputs(gc_state *st, size_t upto)
{
    while (st->nin <= upto) {
        g16t_rand_fr(&st->win[st->nin], &st->gv);
        (void)cs_alloc_input(st->cs, &st->vin[st->nin], &st->win[st->nin]);
        st->nin++;
    }
}

/* Synthesizes the circuit of sp (structure from sseed) with the witness of vseed into cs. Each
 * aux variable z gets one constraint that defines it: a free bit (z (z - 1) = 0), a free value
 * in A only (z * 0 = 0), a free value in B (1 * z = z), or a product of earlier operands
 * (A * B = z, z in C only). Half of the inputs come first, the rest after half of the aux.
 * corrupt: the first product gets a wrong value (unsatisfied). Returns the number of
 * products. */
static size_t gc_synth(cs_t *cs, const gc_spec *sp, uint64_t vseed, bool corrupt)
{
    gc_state st = {.sp = sp, .cs = cs, .nin = 1};
    gc_term ta[4], tb[4];
    size_t nprod = 0;

    cz_prng_seed(&st.gs, sp->seed ^ test_seed());
    cz_prng_seed(&st.gv, vseed);
    st.win = xmalloc((sp->ni + 1) * sizeof(fr_t));
    st.waux = xmalloc((sp->na + 1) * sizeof(fr_t));
    st.vin = xmalloc((sp->ni + 1) * sizeof(cs_var_t));
    st.vaux = xmalloc((sp->na + 1) * sizeof(cs_var_t));
    st.op = xmalloc((sp->na + 1) * sizeof(size_t));
    st.win[0] = FR_ONE;
    st.vin[0] = CS_ONE;
    gc_inputs(&st, sp->ni / 2);
    for (size_t j = 0; j < sp->na; j++) {
        bool dark = (sp->mode & GC_DARK) && (j / 64) % 2 == 1;
        unsigned k = (unsigned)cz_prng_below(&st.gs, 100);
        int kind = dark ? 3 : k < 35 ? 0 : k < 50 ? 1 : k < 65 ? 2 : 3;
        cs_lc_t A, B, C;

        if (j == sp->na / 2) {
            gc_inputs(&st, sp->ni);
        }
        if ((kind == 0 && (sp->mode & (GC_A_EMPTY | GC_B_EMPTY))) ||
            (kind == 1 && (sp->mode & GC_A_EMPTY)) || (kind == 2 && (sp->mode & GC_B_EMPTY))) {
            kind = 3;
        }
        if (kind == 3) {
            size_t la = 0, lb = 0, want_a = 1 + (size_t)cz_prng_below(&st.gs, 3);
            size_t want_b = (sp->mode & GC_B_EMPTY) ? 0 : (size_t)cz_prng_below(&st.gs, 4);
            fr_t ea, eb;
            for (size_t i = 0; i < want_a; i++) {
                la += gc_pick(&st, false, &ta[la]);
            }
            for (size_t i = 0; i < want_b; i++) {
                lb += gc_pick(&st, true, &tb[lb]);
            }
            gc_eval(&ea, &st, ta, la);
            gc_eval(&eb, &st, tb, lb);
            fr_mul(&st.waux[j], &ea, &eb);
            if (corrupt && nprod == 0) {
                fr_add(&st.waux[j], &st.waux[j], &FR_ONE);
            }
            nprod++;
            (void)cs_alloc(cs, &st.vaux[j], &st.waux[j]);
            A = gc_lc(&st, ta, la);
            B = gc_lc(&st, tb, lb);
            C = cs_lc_of(cs, st.vaux[j]);
            (void)cs_enforce(cs, &A, &B, &C, "prod");
        } else {
            if (kind == 0) {
                st.waux[j] = cz_prng_below(&st.gv, 2) ? FR_ONE : FR_ZERO;
            } else {
                rand_value(&st.waux[j], &st.gv);
            }
            (void)cs_alloc(cs, &st.vaux[j], &st.waux[j]);
            if (kind == 0) {
                A = cs_lc_of(cs, st.vaux[j]);
                B = cs_lc_of(cs, st.vaux[j]);
                cs_lc_sub_var(cs, &B, CS_ONE);
                (void)cs_enforce(cs, &A, &B, NULL, "bit");
            } else if (kind == 1) {
                A = cs_lc_of(cs, st.vaux[j]);
                (void)cs_enforce(cs, &A, NULL, NULL, "free_a");
            } else {
                A = cs_lc_of(cs, CS_ONE);
                B = cs_lc_of(cs, st.vaux[j]);
                C = cs_lc_of(cs, st.vaux[j]);
                (void)cs_enforce(cs, &A, &B, &C, "free_b");
            }
        }
        if (!dark) {
            st.op[st.nop++] = j;
        }
    }
    gc_inputs(&st, sp->ni);
    cz_free(st.win);
    cz_free(st.waux);
    cz_free(st.vin);
    cz_free(st.vaux);
    cz_free(st.op);
    return nprod;
}

static void gc_record(cs_r1cs_t *out, const gc_spec *sp)
{
    cs_t *cs = NULL;
    CHECK_OK(cs_new_recorder(&cs, NULL));
    (void)gc_synth(cs, sp, 1, false);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_r1cs(cs, out, NULL));
    cs_free(cs);
}

static size_t gc_assign(cs_assignment_t *out, const gc_spec *sp, uint64_t vseed, bool corrupt)
{
    cs_t *cs = NULL;
    size_t nprod;
    CHECK_OK(cs_new_prover(&cs, NULL, NULL));
    nprod = gc_synth(cs, sp, vseed, corrupt);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, out, NULL));
    cs_free(cs);
    return nprod;
}

static g16_params_t *gc_setup(const gc_spec *sp)
{
    cs_r1cs_t r1cs;
    g16_params_t *p = NULL;
    uint64_t seed = sp->seed + 1000;
    cz_diag dg;

    cz_diag_init(&dg);
    gc_record(&r1cs, sp);
    CHECK_MSG(g16_setup(&p, &r1cs, &seed, test_pool(), &dg) == CUZK_OK, "%s: setup: %s", sp->name,
              dg.msg);
    cs_r1cs_clear(&r1cs);
    return p;
}

/* ---------------------------------------------------------------------------------------------
 * CPU versus GPU
 * ------------------------------------------------------------------------------------------- */

#define MAX_STAGES 16

typedef struct stage_log {
    const char *name[MAX_STAGES];
    size_t n;
    bool ordered; /* every stage ended after it began, and began after the previous ended */
    double last_end;
} stage_log;

static void log_stage(void *ctx, const char *stage, double t0, double t1)
{
    stage_log *l = ctx;
    if (l->n < MAX_STAGES) {
        l->name[l->n] = stage;
    }
    l->n++;
    if (t1 < t0 || t0 < l->last_end) {
        l->ordered = false;
    }
    l->last_end = t1;
}

static void fixed_rs(fr_t *r, fr_t *s, uint64_t seed)
{
    cz_prng g;
    cz_prng_seed(&g, seed);
    g16t_rand_fr(r, &g);
    g16t_rand_fr(s, &g);
}

/* Bytes of the bases of p's sections in mask (bit k: h, l, a, b_g1, b_g2). */
static size_t streamed_bytes(const g16_params_t *p, unsigned mask)
{
    const size_t len[5] = {p->h_len, p->l_len, p->a_len, p->b_g1_len, p->b_g2_len};
    size_t b = 0;
    for (unsigned k = 0; k < 5; k++) {
        b += (mask >> k & 1) ? len[k] * (k == 4 ? 192 : 96) : 0;
    }
    return b;
}

/* Proves the witness vseed of sp with r, s from rs_seed on the CPU, on the GPU (copy), and on
 * the GPU again taking a fresh copy of the assignment: the three proofs must be equal and must
 * verify; the GPU reports the CPU's stages in the CPU's order. */
static void check_same(const gc_spec *sp, const g16_params_t *p, g16_gpu_params *gp, uint64_t vseed,
                       uint64_t rs_seed)
{
    cs_assignment_t asg, own;
    g16_proof_t proof;
    g16_prove_stats_t st;
    g16_pvk_t pvk;
    stage_log lc = {.ordered = true}, lg = {.ordered = true};
    g16_prove_opts_t oc = {.on_stage = log_stage, .on_stage_ctx = &lc};
    g16_prove_opts_t og = {.on_stage = log_stage, .on_stage_ctx = &lg, .gpu = gp};
    uint8_t want[G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
    bool valid = false;
    fr_t r, s;

    fixed_rs(&r, &s, rs_seed);
    (void)gc_assign(&asg, sp, vseed, false);
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, &oc, NULL, test_pool(), DG));
    g16_proof_to_bytes(want, &proof);
    g16_pvk_init(&pvk, &p->vk);
    CHECK_OK(g16_verify(&pvk, &valid, &proof, asg.inputs + 1, asg.num_inputs - 1, NULL));
    CHECK_MSG(valid, "%s: the CPU proof does not verify", sp->name);

    memset(&proof, 0, sizeof(proof));
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, &og, &st, test_pool(), DG));
    g16_proof_to_bytes(got, &proof);
    CHECK_MSG(memcmp(got, want, sizeof(want)) == 0, "%s: GPU proof differs (witness %llu)",
              sp->name, (unsigned long long)vseed);
    /* every streamed point crossed once, beside the proof's own uploads */
    CHECK(st.h2d_bytes >=
          streamed_bytes(p, g16_gpu_params_streamed(gp)) + 32 * (asg.num_inputs + asg.num_aux));
    CHECK(st.total_ms >= st.quotient_ms && st.quotient_ms >= 0.0 && st.msm_b_g2_ms >= 0.0);
    CHECK_EQ_U64(lg.n, lc.n);
    CHECK(lc.n <= MAX_STAGES);
    for (size_t i = 0; i < lc.n; i++) {
        CHECK_STR_EQ(lg.name[i], lc.name[i]);
    }
    CHECK(lg.ordered && lc.ordered);

    /* the taking variant: same bytes, a, b, c consumed, nothing leaked */
    {
        size_t live = cz_alloc_live();
        (void)gc_assign(&own, sp, vseed, false);
        memset(&proof, 0, sizeof(proof));
        GPU_OK(g16_prove_take(p, &proof, &own, &r, &s, &og, NULL, NULL, DG));
        CHECK(own.a == NULL && own.b == NULL && own.c == NULL);
        g16_proof_to_bytes(got, &proof);
        CHECK_MSG(memcmp(got, want, sizeof(want)) == 0, "%s: GPU take proof differs", sp->name);
        cs_assignment_clear(&own);
        CHECK_EQ_U64(cz_alloc_live(), live);
    }
    cs_assignment_clear(&asg);
}

static void check_spec(const gc_spec *sp, const g16_gpu_opts_t *gopts, unsigned witnesses)
{
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(sp);
    g16_gpu_params *gp = NULL;
    size_t bases;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, gopts, test_pool(), DG));
    bases = 96 * (p->h_len + p->l_len + p->a_len + p->b_g1_len) + 192 * p->b_g2_len;
    bases -= streamed_bytes(p, gopts ? gopts->stream_sections : 0);
    CHECK(g16_gpu_params_device_bytes(gp) >= bases);
    CHECK_EQ_U64(g16_gpu_params_streamed(gp), gopts ? gopts->stream_sections : 0);
    CHECK(g16_gpu_params_pinned_bytes(gp) > 0);
    CHECK_EQ_U64(g16_gpu_params_pinned_bytes(gp), g16_gpu_params_pinned_plan(p, gopts));
    printf("  %-14s n=%zu inputs=%zu aux=%zu a=%zu b=%zu device=%zu B\n", sp->name, p->h_len + 1,
           p->vk.ic_len, p->l_len, p->a_len, p->b_g1_len, g16_gpu_params_device_bytes(gp));
    for (unsigned w = 0; w < witnesses; w++) {
        check_same(sp, p, gp, 100 + w, test_seed() + w);
    }
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

/* Small slots: every vector (parameters, a, b, c, inputs, aux) crosses in many chunks, and the
 * ring wraps around within each proof. */
static const g16_gpu_opts_t SMALL_RING = {.stage_bytes = 1024, .stage_slots = 3};

TEST(gpu_prove_tiny_and_inputs_only)
{
    static const gc_spec specs[] = {
        {.name = "tiny", .ni = 0, .na = 1, .mode = 0, .seed = 1},
        {.name = "inputs_only", .ni = 5, .na = 0, .mode = 0, .seed = 2},
        {.name = "one_input", .ni = 1, .na = 3, .mode = GC_B_EMPTY, .seed = 3},
    };
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        check_spec(&specs[i], NULL, 2);
    }
}

TEST(gpu_prove_mixed_sizes)
{
    static const gc_spec specs[] = {
        {.name = "m204", .ni = 3, .na = 200, .mode = 0, .seed = 11},
        {.name = "m256", .ni = 2, .na = 253, .mode = 0, .seed = 12},
        {.name = "m257", .ni = 2, .na = 254, .mode = 0, .seed = 13},
    };
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        check_spec(&specs[i], i == 1 ? &SMALL_RING : NULL, 2);
    }
}

TEST(gpu_prove_density_corners)
{
    static const gc_spec specs[] = {
        {.name = "b_input_gaps", .ni = 20, .na = 300, .mode = GC_B_IN_GAPS, .seed = 21},
        /* 64 inputs with ONE: the dark aux blocks are whole zero words of [inputs | aux] */
        {.name = "dark_aligned", .ni = 63, .na = 600, .mode = GC_DARK, .seed = 22},
        {.name = "dark_shifted", .ni = 9, .na = 600, .mode = GC_DARK | GC_B_IN_GAPS, .seed = 23},
        {.name = "a_empty", .ni = 4, .na = 250, .mode = GC_A_EMPTY, .seed = 24},
        {.name = "b_empty", .ni = 4, .na = 250, .mode = GC_B_EMPTY, .seed = 25},
        {.name = "a_b_empty", .ni = 2, .na = 100, .mode = GC_A_EMPTY | GC_B_EMPTY, .seed = 26},
    };
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        check_spec(&specs[i], i % 2 ? &SMALL_RING : NULL, 2);
    }
}

TEST(gpu_prove_larger)
{
    /* 2^12 with small sizes; 2^16 and a 64 KiB staging ring otherwise */
    const bool small = gtu_small_sizes();
    const gc_spec sp =
        small ? (gc_spec){.name = "m4011", .ni = 10, .na = 4000, .mode = GC_DARK, .seed = 31}
              : (gc_spec){.name = "m65000", .ni = 10, .na = 64989, .mode = GC_DARK, .seed = 31};
    const g16_gpu_opts_t ring = {.stage_bytes = 65536, .stage_slots = 2};
    check_spec(&sp, small ? NULL : &ring, small ? 1 : 3);
}

/* Streamed sections: the proofs are the CPU's bytes for every mask, with chunks of one point
 * (256 bytes: 2 G1 points, 1 G2 point), of several points with a partial last one, and of the
 * whole section (stream_bytes 0); and with the two-buffer layout. */
TEST(gpu_prove_streamed)
{
    static const gc_spec specs[] = {
        {.name = "s204", .ni = 3, .na = 200, .mode = 0, .seed = 51},
        {.name = "s_dark", .ni = 9, .na = 600, .mode = GC_DARK | GC_B_IN_GAPS, .seed = 52},
        {.name = "s_a_empty", .ni = 4, .na = 250, .mode = GC_A_EMPTY, .seed = 53},
        {.name = "s_b_empty", .ni = 4, .na = 250, .mode = GC_B_EMPTY, .seed = 54},
    };
    static const g16_gpu_opts_t opts[] = {
        {.stream_sections = G16_GPU_STREAM_ALL, .stream_bytes = 256},
        {.stream_sections = G16_GPU_STREAM_ALL, .stream_bytes = 1000},
        {.stream_sections = G16_GPU_STREAM_ALL},
        {.stream_sections = 0x1, .stream_bytes = 4096},  /* h only */
        {.stream_sections = 0x16, .stream_bytes = 2048}, /* l, b_g1, b_g2 */
        {.stream_sections = 0x09, .stream_bytes = 512, .stage_bytes = 1024, .stage_slots = 3},
        /* the two-buffer layout, streamed and resident */
        {.stream_sections = G16_GPU_STREAM_ALL, .stream_bytes = 1000, .lean_buffers = true},
        {.lean_buffers = true, .stage_bytes = 1024, .stage_slots = 2},
    };
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        for (size_t j = 0; j < ARRAY_LEN(opts); j++) {
            check_spec(&specs[i], &opts[j], 1);
        }
    }
}

/* A streamed proof stops between two chunks when cancelled during an MSM; a copy fails
 * cleanly mid-stream; the object then proves as before. The flag is raised as the last prep
 * stage ends, just before msm_h, so only the chunk loop can see it before msm_h ends. */
typedef struct prep_cancel {
    atomic_bool *flag;
    unsigned preps;
    const char *last;
} prep_cancel;

static void cancel_after_second_prep(void *ctx, const char *stage, double t0, double t1)
{
    prep_cancel *c = ctx;
    (void)t0;
    (void)t1;
    c->last = stage;
    if (strcmp(stage, "prep") == 0 && ++c->preps == 2) {
        atomic_store(c->flag, true);
    }
}

TEST(gpu_prove_streamed_cancel_and_failure)
{
    static const gc_spec sp = {.name = "s_cancel", .ni = 3, .na = 300, .mode = GC_DARK, .seed = 55};
    static const g16_gpu_opts_t so = {.stream_sections = G16_GPU_STREAM_ALL, .stream_bytes = 960};
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL;
    cs_assignment_t asg;
    g16_proof_t proof;
    fr_t r, s;
    cz_diag dg;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, &so, test_pool(), DG));
    fixed_rs(&r, &s, 9);
    (void)gc_assign(&asg, &sp, 5, false);
    {
        atomic_bool flag;
        atomic_init(&flag, false);
        prep_cancel c = {.flag = &flag};
        g16_prove_opts_t og = {
            .on_stage = cancel_after_second_prep, .on_stage_ctx = &c, .gpu = gp, .cancel = &flag};
        cz_diag_init(&dg);
        CHECK_ERR(g16_prove_ex(p, &proof, &asg, &r, &s, &og, NULL, test_pool(), &dg),
                  CUZK_E_CANCELLED);
        CHECK_MSG(strcmp(c.last, "prep") == 0, "msm_h ended (%s) though cancelled within it",
                  c.last);
    }
    /* the 40th copy of the next proof fails: inside the streamed MSMs (a, b, c, inputs and aux
     * go first, in a few copies) */
    for (unsigned long nth = 1; nth <= 40; nth += 39) {
        g16_prove_opts_t og = {.gpu = gp};
        gpu_debug_fail_h2d(dev, nth);
        cz_diag_init(&dg);
        CHECK_ERR(g16_prove_ex(p, &proof, &asg, &r, &s, &og, NULL, test_pool(), &dg), CUZK_E_GPU);
        CHECK(strstr(dg.msg, "injected") != NULL);
    }
    cs_assignment_clear(&asg);
    check_same(&sp, p, gp, 6, 8);
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

/* Bytes a vector of scalars crosses as, chunk by chunk (per values): dense, 32 a value, or
 * per chunk the class words of its blocks and its others. */
static size_t classes_bytes(const gpu_fr_classes *c, size_t per)
{
    size_t b = 0;
    for (size_t first = 0; first < c->n; first += per) {
        size_t k = c->n - first < per ? c->n - first : per, w0, nw, base, n_oth;
        if (c->dense) {
            b += 32 * k;
            continue;
        }
        gpu_fr_classes_slice(c, first, k, &w0, &nw, &base, &n_oth);
        b += 8 * nw + 32 * n_oth;
    }
    return b;
}

/* Bytes of the scalars a group's proof of asg sends beside the points of its streamed sections
 * over chunks of chunk bytes: h dense (32 a point), and the L, A and B scalars as classes, the
 * selections written here position by position from the assignment's densities ([inputs |
 * aux]: L aux, A [all inputs | a_aux], B [b_input | b_aux]; B twice with b_g2 streamed). */
static size_t group_scalar_bytes(const g16_params_t *p, unsigned mask, const cs_assignment_t *asg,
                                 size_t chunk)
{
    const size_t ni = asg->num_inputs, nz = ni + asg->num_aux, nw = (nz + 63) / 64;
    uint64_t *ka = calloc(nw + 1, 8), *kb = calloc(nw + 1, 8);
    gpu_fr_classes c[3];
    size_t b = (mask & 1) ? 32 * p->h_len : 0;

    CHECK(ka && kb);
    for (size_t i = 0; i < nz; i++) {
        bool a = i < ni || cs_bitvec_get(&asg->a_aux_density, i - ni);
        bool bb = i < ni ? cs_bitvec_get(&asg->b_input_density, i)
                         : cs_bitvec_get(&asg->b_aux_density, i - ni);
        ka[i / 64] |= (uint64_t)a << (i % 64);
        kb[i / 64] |= (uint64_t)bb << (i % 64);
    }
    const gpu_fr_select sel[3] = {{NULL, 0, ni}, {ka, 1, 0}, {kb, 1, 0}};
    CHECK_OK(gpu_fr_classes_build(c, 3, asg->inputs, ni, asg->aux, asg->num_aux, sel, &FR_ONE, 0.25,
                                  NULL, NULL));
    const gpu_fr_classes *of[5] = {NULL, &c[0], &c[1], &c[2], &c[2]};
    for (unsigned k = 1; k < 5; k++) {
        b += (mask >> k & 1) ? classes_bytes(of[k], chunk / (k == 4 ? 192 : 96)) : 0;
    }
    for (int k = 0; k < 3; k++) {
        gpu_fr_classes_clear(&c[k]);
    }
    free(ka);
    free(kb);
    return b;
}

#define GROUP_MAX       3
#define GROUP_MAX_TRIED G16_GPU_MAX_SHARE

/* A group's proofs joining one at a time (g16_prove_opts_t.group_more) and their fronts
 * reported (group_front): asg[0 .. want) in all (some with classes built ahead). */
typedef struct group_feed {
    const cs_assignment_t **ap;
    cs_assignment_t *asg;
    size_t want, fronts, asked;
    uint64_t kept[GROUP_MAX_TRIED];
} group_feed;

static size_t feed_more(void *ctx, size_t have, size_t cap)
{
    group_feed *f = ctx;
    f->asked++;
    CHECK(have == f->fronts && cap >= have);
    if (have == f->want) {
        return 0;
    }
    f->ap[have] = &f->asg[have];
    return 1;
}

static void feed_front(void *ctx, size_t j, uint64_t kept_bytes)
{
    group_feed *f = ctx;
    CHECK(j == f->fronts);
    f->kept[f->fronts++] = kept_bytes;
}

/* Groups of 1 .. GROUP_MAX proofs (witnesses vseed + j, r and s from rs_seed + j) against the
 * same proofs one by one on the device and on the CPU: the same bytes, and the group moves
 * exactly the singles' bytes less (count - 1) passes over the streamed points, plus one pass
 * over h's points per kept_h proofs after the first, plus each proof's streamed scalars (h
 * dense, the others as classes); then the largest group again with its proofs joining one by
 * one after the first (group_more): the same bytes, each front reported with its classes. */
static void check_group(const gc_spec *sp, const g16_params_t *p, g16_gpu_params *gp, gpu_dev *dev,
                        unsigned kept_h, uint64_t vseed, uint64_t rs_seed)
{
    cs_assignment_t asg[GROUP_MAX];
    const cs_assignment_t *ap[GROUP_MAX];
    g16_proof_t proof[GROUP_MAX];
    g16_prove_stats_t st[GROUP_MAX];
    uint8_t want[GROUP_MAX][G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
    fr_t r[GROUP_MAX], s[GROUP_MAX];
    g16_prove_opts_t og = {.gpu = gp};
    const unsigned mask = g16_gpu_params_streamed(gp);

    for (size_t j = 0; j < GROUP_MAX; j++) {
        fixed_rs(&r[j], &s[j], rs_seed + j);
        (void)gc_assign(&asg[j], sp, vseed + j, false);
        ap[j] = &asg[j];
        GPU_OK(g16_prove_ex(p, &proof[j], &asg[j], &r[j], &s[j], NULL, NULL, test_pool(), DG));
        g16_proof_to_bytes(want[j], &proof[j]);
    }
    uint64_t single[GROUP_MAX + 1] = {0}; /* bytes of the first j proofs one by one */
    /* the density maps are the circuit's: built by this first proof, then kept */
    GPU_OK(g16_prove_ex(p, &proof[0], &asg[0], &r[0], &s[0], &og, NULL, test_pool(), DG));
    for (size_t j = 0; j < GROUP_MAX; j++) {
        uint64_t h0 = gpu_dev_h2d_bytes(dev);
        GPU_OK(g16_prove_ex(p, &proof[j], &asg[j], &r[j], &s[j], &og, NULL, test_pool(), DG));
        single[j + 1] = single[j] + gpu_dev_h2d_bytes(dev) - h0;
    }
    for (size_t count = 1; count <= GROUP_MAX; count++) {
        uint64_t h0;
        memset(proof, 0, sizeof(proof));
        h0 = gpu_dev_h2d_bytes(dev);
        GPU_OK(g16_prove_group(p, proof, ap, r, s, count, &og, st, test_pool(), DG));
        uint64_t group = gpu_dev_h2d_bytes(dev) - h0;
        for (size_t j = 0; j < count; j++) {
            g16_proof_to_bytes(got, &proof[j]);
            CHECK_MSG(memcmp(got, want[j], sizeof(got)) == 0,
                      "%s: proof %zu of a group of %zu differs from the CPU's", sp->name, j, count);
            CHECK(st[j].h2d_bytes == group / count && st[j].total_ms >= 0.0);
        }
        const size_t kh = kept_h ? kept_h : count, h_passes = (count + kh - 1) / kh;
        uint64_t expect = single[count] - (count - 1) * streamed_bytes(p, mask);
        for (size_t j = 0; count > 1 && j < count; j++) {
            expect += group_scalar_bytes(p, mask, &asg[j], g16_gpu_params_stream_bytes(gp));
        }
        expect += count > 1 ? (h_passes - 1) * streamed_bytes(p, mask & 1u) : 0;
        CHECK_MSG(group == expect, "%s: a group of %zu moved %llu bytes, expected %llu", sp->name,
                  count, (unsigned long long)group, (unsigned long long)expect);
        if (count < GROUP_MAX) {
            continue;
        }
        group_feed f = {.ap = ap, .asg = asg, .want = count};
        g16_prove_opts_t of = og;
        g16_classes *cls[GROUP_MAX] = {NULL}; /* built ahead for the odd proofs */
        for (size_t j = 1; j < count; j += 2) {
            CHECK_OK(g16_classes_new(&cls[j], &asg[j], test_pool(), NULL));
            CHECK(g16_classes_bytes(cls[j]) > 0);
        }
        of.group_more = feed_more;
        of.group_front = feed_front;
        of.group_ctx = &f;
        of.group_classes = cls;
        memset(proof, 0, sizeof(proof));
        h0 = gpu_dev_h2d_bytes(dev);
        GPU_OK(g16_prove_group(p, proof, ap, r, s, 1, &of, st, test_pool(), DG));
        CHECK_EQ_U64(gpu_dev_h2d_bytes(dev) - h0, group);
        /* asked after each front while there is room */
        CHECK(f.fronts == count &&
              f.asked == (count < g16_gpu_params_share_max(gp) ? count : count - 1));
        for (size_t j = 0; j < count; j++) {
            g16_proof_to_bytes(got, &proof[j]);
            CHECK_MSG(memcmp(got, want[j], sizeof(got)) == 0, "%s: joined proof %zu differs",
                      sp->name, j);
            /* the classes of what is streamed beside L, A, B: nothing when none is */
            CHECK(f.kept[j] < 32 * (asg[j].num_inputs + asg[j].num_aux) * 3 &&
                  (f.kept[j] > 0) == ((mask & 0x1e) != 0));
            CHECK(g16_classes_bytes(cls[j]) == 0); /* taken by the group */
            g16_classes_free(cls[j]);
        }
    }
    for (size_t j = 0; j < GROUP_MAX; j++) {
        cs_assignment_clear(&asg[j]);
    }
}

/* Proofs sharing the passes over streamed points (g16_prove_group): 1 .. 3 proofs per pass,
 * chunks of one point and of several with a partial last one; some sections streamed; the
 * two-buffer layout; and an object without sharing (groups of one only). */
TEST(gpu_prove_group)
{
    static const gc_spec specs[] = {
        {.name = "g_dark", .ni = 9, .na = 150, .mode = GC_DARK | GC_B_IN_GAPS, .seed = 81},
        {.name = "g_a_empty", .ni = 4, .na = 60, .mode = GC_A_EMPTY, .seed = 82},
    };
    /* per spec, the configurations tried (the first for both) */
    static const g16_gpu_opts_t opts[] = {
        {.stream_sections = G16_GPU_STREAM_ALL, .stream_bytes = 256, .share_max = GROUP_MAX},
        {.stream_sections = 0x16, .stream_bytes = 2048, .share_max = 4},
        {.stream_sections = G16_GPU_STREAM_ALL,
         .stream_bytes = 512,
         .share_max = GROUP_MAX,
         .kept_h = 2},
        {.stream_sections = G16_GPU_STREAM_ALL,
         .stream_bytes = 1000,
         .lean_buffers = true,
         .share_max = GROUP_MAX,
         .stage_bytes = 1024,
         .stage_slots = 2},
    };
    const size_t tried[ARRAY_LEN(specs)] = {ARRAY_LEN(opts), 1};
    gpu_dev *dev = gtu_need_dev();
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        g16_params_t *p = gc_setup(&specs[i]);
        for (size_t k = 0; k < tried[i]; k++) {
            g16_gpu_params *gp = NULL;
            GPU_OK(g16_gpu_params_new(&gp, p, dev, &opts[k], test_pool(), DG));
            CHECK_EQ_U64(g16_gpu_params_share_max(gp), opts[k].share_max);
            /* the kept h of opts[2] (2 of GROUP_MAX proofs) included */
            CHECK_EQ_U64(g16_gpu_params_pinned_bytes(gp), g16_gpu_params_pinned_plan(p, &opts[k]));
            check_group(&specs[i], p, gp, dev, opts[k].kept_h, 30 + k, 700 + k);
            g16_gpu_params_free(gp);
        }
        /* no sharing: a group of one is a proof, more is refused */
        {
            g16_gpu_params *gp = NULL;
            cs_assignment_t asg[2];
            const cs_assignment_t *ap[2] = {&asg[0], &asg[1]};
            g16_proof_t proof[2];
            fr_t r[2], s[2];
            g16_prove_opts_t og = {.gpu = gp};
            cz_diag dg;
            static const g16_gpu_opts_t alone = {.stream_sections = G16_GPU_STREAM_ALL,
                                                 .stream_bytes = 1000};
            GPU_OK(g16_gpu_params_new(&gp, p, dev, &alone, test_pool(), DG));
            og.gpu = gp;
            CHECK_EQ_U64(g16_gpu_params_share_max(gp), 1);
            for (int j = 0; j < 2; j++) {
                fixed_rs(&r[j], &s[j], 90 + (unsigned)j);
                (void)gc_assign(&asg[j], &specs[i], 90 + (unsigned)j, false);
            }
            GPU_OK(g16_prove_group(p, proof, ap, r, s, 1, &og, NULL, test_pool(), DG));
            cz_diag_init(&dg);
            CHECK_ERR(g16_prove_group(p, proof, ap, r, s, 2, &og, NULL, test_pool(), &dg),
                      CUZK_E_INVAL);
            CHECK(strstr(dg.msg, "at most 1") != NULL);
            cs_assignment_clear(&asg[0]);
            cs_assignment_clear(&asg[1]);
            g16_gpu_params_free(gp);
        }
        g16_params_free(p);
    }
}

/* Raises the flag as the group's pass over h ends (the fourth msm_h of a group of three: one
 * per front, then the pass), so that only the chunk loop of the pass over l can see it. */
static void cancel_after_group_msm_h(void *ctx, const char *stage, double t0, double t1)
{
    prep_cancel *c = ctx;
    (void)t0;
    (void)t1;
    c->last = stage;
    if (strcmp(stage, "msm_h") == 0 && ++c->preps == 4) {
        atomic_store(c->flag, true);
    }
}

/* A group fails whole and cleanly: an unsatisfied proof among satisfied ones (CUZK_E_UNSAT), a
 * cancellation inside a pass, an injected copy failure inside a pass; the object then proves a
 * group as before, and nothing leaks. */
TEST(gpu_prove_group_failures)
{
    static const gc_spec sp = {.name = "g_fail", .ni = 3, .na = 150, .mode = GC_DARK, .seed = 83};
    static const g16_gpu_opts_t so = {
        .stream_sections = G16_GPU_STREAM_ALL, .stream_bytes = 960, .share_max = 3};
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL;
    cs_assignment_t asg[3];
    const cs_assignment_t *ap[3] = {&asg[0], &asg[1], &asg[2]};
    g16_proof_t proof[3];
    fr_t r[3], s[3];
    cz_diag dg;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, &so, test_pool(), DG));
    size_t live = cz_alloc_live();
    for (int j = 0; j < 3; j++) {
        fixed_rs(&r[j], &s[j], 60 + (unsigned)j);
        (void)gc_assign(&asg[j], &sp, 60 + (unsigned)j, j == 1);
    }
    {
        g16_prove_opts_t og = {.gpu = gp};
        cz_diag_init(&dg);
        CHECK_ERR(g16_prove_group(p, proof, ap, r, s, 3, &og, NULL, test_pool(), &dg),
                  CUZK_E_UNSAT);
        cs_assignment_clear(&asg[1]);
        (void)gc_assign(&asg[1], &sp, 61, false);
    }
    {
        atomic_bool flag;
        atomic_init(&flag, false);
        prep_cancel c = {.flag = &flag};
        g16_prove_opts_t og = {
            .on_stage = cancel_after_group_msm_h, .on_stage_ctx = &c, .gpu = gp, .cancel = &flag};
        cz_diag_init(&dg);
        CHECK_ERR(g16_prove_group(p, proof, ap, r, s, 3, &og, NULL, test_pool(), &dg),
                  CUZK_E_CANCELLED);
        CHECK_MSG(c.preps == 4 && strcmp(c.last, "msm_h") == 0,
                  "the pass over l ended (%s) though cancelled within it", c.last);
    }
    /* the 80th copy is inside the passes (each front takes a few) */
    for (unsigned long nth = 2; nth <= 80; nth += 78) {
        g16_prove_opts_t og = {.gpu = gp};
        gpu_debug_fail_h2d(dev, nth);
        cz_diag_init(&dg);
        CHECK_ERR(g16_prove_group(p, proof, ap, r, s, 3, &og, NULL, test_pool(), &dg), CUZK_E_GPU);
        CHECK(strstr(dg.msg, "injected") != NULL);
    }
    for (int j = 0; j < 3; j++) {
        cs_assignment_clear(&asg[j]);
    }
    CHECK_EQ_U64(cz_alloc_live(), live);
    check_group(&sp, p, gp, dev, 0, 64, 64);
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

/* Moves one set bit of bits (n positions) to a clear position: same popcount, other density. */
static void move_one_bit(uint64_t *bits, size_t n)
{
    size_t set = n, clear = n;
    for (size_t i = 0; i < n && (set == n || clear == n); i++) {
        bool on = (bits[i / 64] >> (i % 64)) & 1;
        if (on && set == n) {
            set = i;
        } else if (!on && clear == n) {
            clear = i;
        }
    }
    CHECK(set < n && clear < n);
    bits[set / 64] &= ~((uint64_t)1 << (set % 64));
    bits[clear / 64] |= (uint64_t)1 << (clear % 64);
}

/* The device keeps its density maps while the densities stay the same, and rebuilds them when
 * they change: with one bit of A's and then of B's aux density moved (same counts, another
 * circuit as far as the prover can tell), the GPU's bytes still equal the CPU's for the same
 * assignment; then the first densities again. */
TEST(gpu_maps_follow_the_densities)
{
    static const gc_spec sp = {.name = "maps", .ni = 6, .na = 500, .mode = GC_DARK, .seed = 71};
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL;
    g16_prove_opts_t og = {0};
    cs_assignment_t w;
    g16_proof_t proof;
    uint8_t want[G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
    fr_t r, s;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, NULL, test_pool(), DG));
    og.gpu = gp;
    fixed_rs(&r, &s, 23);
    (void)gc_assign(&w, &sp, 9, false);
    for (int step = 0; step < 4; step++) {
        if (step == 1) {
            move_one_bit(w.a_aux_density.words, w.num_aux);
        } else if (step == 2) {
            move_one_bit(w.b_aux_density.words, w.num_aux);
        } else if (step == 3) {
            cs_assignment_clear(&w);
            (void)gc_assign(&w, &sp, 9, false);
        }
        CHECK_OK(g16_prove_ex(p, &proof, &w, &r, &s, NULL, NULL, test_pool(), NULL));
        g16_proof_to_bytes(want, &proof);
        for (int again = 0; again < 2; again++) {
            memset(got, 0, sizeof(got));
            GPU_OK(g16_prove_ex(p, &proof, &w, &r, &s, &og, NULL, test_pool(), DG));
            g16_proof_to_bytes(got, &proof);
            CHECK_MSG(memcmp(got, want, sizeof(want)) == 0, "step %d, proof %d", step, again);
        }
    }
    cs_assignment_clear(&w);
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

TEST(gpu_prove_unsat_then_recovers)
{
    static const gc_spec sp = {.name = "unsat", .ni = 3, .na = 300, .mode = GC_DARK, .seed = 41};
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL;
    g16_prove_opts_t og = {0};
    cs_assignment_t bad;
    g16_proof_t proof;
    fr_t r, s;
    cz_diag dg;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, &SMALL_RING, test_pool(), DG));
    og.gpu = gp;
    fixed_rs(&r, &s, 7);
    CHECK(gc_assign(&bad, &sp, 5, true) > 0);
    cz_diag_init(&dg);
    CHECK_ERR(g16_prove_ex(p, &proof, &bad, &r, &s, NULL, NULL, NULL, &dg), CUZK_E_UNSAT);
    cz_diag_init(&dg);
    CHECK_ERR(g16_prove_ex(p, &proof, &bad, &r, &s, &og, NULL, test_pool(), &dg), CUZK_E_UNSAT);
    CHECK(strstr(dg.msg, "satisfy") != NULL);
    {
        size_t live = cz_alloc_live();
        cs_assignment_t own;
        (void)gc_assign(&own, &sp, 5, true);
        CHECK_ERR(g16_prove_take(p, &proof, &own, &r, &s, &og, NULL, NULL, NULL), CUZK_E_UNSAT);
        CHECK(own.a == NULL && own.b == NULL && own.c == NULL);
        cs_assignment_clear(&own);
        CHECK_EQ_U64(cz_alloc_live(), live);
    }
    cs_assignment_clear(&bad);
    /* the same resident parameters still prove honest witnesses */
    check_same(&sp, p, gp, 6, 8);
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

TEST(gpu_prove_cancel_between_stages)
{
    static const gc_spec sp = {.name = "cancel", .ni = 3, .na = 300, .mode = GC_DARK, .seed = 43};
    static const char *const at[] = {"quotient", "msm_h", "msm_l", "msm_a", "msm_b_g1"};
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL;
    cs_assignment_t asg;
    g16_proof_t proof;
    fr_t r, s;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, &SMALL_RING, test_pool(), DG));
    fixed_rs(&r, &s, 7);
    (void)gc_assign(&asg, &sp, 5, false);
    for (size_t i = 0; i < ARRAY_LEN(at); i++) {
        atomic_bool flag;
        atomic_init(&flag, false);
        g16t_cancel_at c = {.at = at[i], .flag = &flag};
        g16_prove_opts_t og = {
            .on_stage = g16t_cancel_stage, .on_stage_ctx = &c, .gpu = gp, .cancel = &flag};
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_ERR(g16_prove_ex(p, &proof, &asg, &r, &s, &og, NULL, test_pool(), &dg),
                  CUZK_E_CANCELLED);
        CHECK_MSG(strcmp(c.last, at[i]) == 0, "cancelled after %s, went on to %s", at[i], c.last);
    }
    cs_assignment_clear(&asg);
    /* the device is left clean: the same resident parameters prove honest witnesses */
    check_same(&sp, p, gp, 6, 8);
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

/* The recorded shape of sp's circuit, and a witness-only assignment of witness vseed with m and
 * the densities set from it (a, b, c NULL). */
static void gc_shape_assign(cs_shape_t *shape, cs_assignment_t *asg, const gc_spec *sp,
                            uint64_t vseed)
{
    cs_t *cs = NULL;
    CHECK_OK(cs_new_shape_recorder(&cs, NULL, NULL));
    (void)gc_synth(cs, sp, 1, false);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_shape(cs, shape, NULL));
    cs_free(cs);
    CHECK_OK(cs_new_witness(&cs, NULL, NULL));
    (void)gc_synth(cs, sp, vseed, false);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, asg, NULL));
    cs_free(cs);
    CHECK_OK(cs_shape_assign(shape, asg, NULL));
    CHECK(asg->a == NULL && asg->m == shape->A.rows);
}

/* The prover with a resident shape computes a, b, c on the device from the witness alone: the
 * proof is the CPU's (prover backend) byte for byte, taking or not, and the stages say
 * "products" between "prep" and "quotient". */
/* The three-buffer lean layout: streamed, a, b, c from the device shape (no products stage). */
static const g16_gpu_opts_t LEAN_Z = {.stage_bytes = 1024,
                                      .stage_slots = 3,
                                      .stream_sections = G16_GPU_STREAM_ALL,
                                      .stream_bytes = 768,
                                      .lean_buffers = true,
                                      .lean_own_z = true};

/* A streamed object of four buffers proving from a shape: [inputs | aux] crosses as its
 * classes (dense when more than a quarter are others), so a proof moves exactly every streamed
 * point and those bytes once the density maps are on the device; the proof is the CPU's. */
static void check_streamed_shape(const gc_spec *sp, const g16_params_t *p, gpu_dev *dev,
                                 const cs_shape_t *shape, const cs_assignment_t *wit, const fr_t *r,
                                 const fr_t *s, const uint8_t *want)
{
    const g16_gpu_opts_t so = {.stage_bytes = 1024,
                               .stage_slots = 3,
                               .stream_sections = G16_GPU_STREAM_ALL,
                               .stream_bytes = 768};
    const gpu_fr_select all = {NULL, 0, 0};
    g16_gpu_params *gp = NULL;
    g16_gpu_shape *gs = NULL;
    g16_proof_t proof;
    g16_prove_stats_t st;
    uint8_t got[G16_PROOF_NBYTES];
    gpu_fr_classes zc;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, &so, test_pool(), DG));
    CHECK_EQ_U64(g16_gpu_params_buffers(gp), 4);
    GPU_OK(g16_gpu_shape_new(&gs, gp, shape, DG));
    CHECK_OK(gpu_fr_classes_build(&zc, 1, wit->inputs, wit->num_inputs, wit->aux, wit->num_aux,
                                  &all, &FR_ONE, 0.25, NULL, NULL));
    const size_t zbytes = zc.dense ? 32 * zc.n : 8 * gpu_fr_classes_words(zc.n) + 32 * zc.n_oth;
    printf("  %-14s z as %s: %zu bytes for %zu values\n", sp->name, zc.dense ? "dense" : "classes",
           zbytes, zc.n);
    g16_prove_opts_t og = {.gpu = gp, .gpu_shape = gs};
    for (int k = 0; k < 2; k++) { /* the second proof finds the maps on the device */
        memset(&proof, 0, sizeof(proof));
        GPU_OK(g16_prove_ex(p, &proof, wit, r, s, &og, &st, test_pool(), DG));
        g16_proof_to_bytes(got, &proof);
        CHECK_MSG(memcmp(got, want, sizeof(got)) == 0, "%s: streamed proof from the shape",
                  sp->name);
    }
    CHECK_MSG(st.h2d_bytes == streamed_bytes(p, G16_GPU_STREAM_ALL) + zbytes,
              "%s: %llu bytes moved, expected %zu + %zu", sp->name,
              (unsigned long long)st.h2d_bytes, streamed_bytes(p, G16_GPU_STREAM_ALL), zbytes);
    gpu_fr_classes_clear(&zc);
    g16_gpu_shape_free(gs);
    g16_gpu_params_free(gp);
}

TEST(gpu_prove_from_witness_and_shape)
{
    static const gc_spec specs[] = {
        {.name = "shape_m257", .ni = 3, .na = 254, .mode = GC_DARK, .seed = 51},
        {.name = "shape_gaps", .ni = 21, .na = 300, .mode = GC_DARK, .seed = 52},
        {.name = "shape_lean", .ni = 5, .na = 300, .mode = GC_DARK | GC_B_IN_GAPS, .seed = 53},
    };
    gpu_dev *dev = gtu_need_dev();
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        const gc_spec *sp = &specs[i];
        const bool lean = i == 2;
        g16_params_t *p = gc_setup(sp);
        g16_gpu_params *gp = NULL;
        g16_gpu_shape *gs = NULL;
        cs_shape_t shape;
        cs_assignment_t full, wit;
        g16_proof_t proof;
        uint8_t want[G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
        stage_log lg = {.ordered = true};
        fr_t r, s;

        GPU_OK(g16_gpu_params_new(&gp, p, dev, lean ? &LEAN_Z : &SMALL_RING, test_pool(), DG));
        CHECK_EQ_U64(g16_gpu_params_buffers(gp), lean ? 3 : 4);
        gc_shape_assign(&shape, &wit, sp, 7);
        GPU_OK(g16_gpu_shape_new(&gs, gp, &shape, DG));
        CHECK(g16_gpu_shape_device_bytes(gs) > 0);
        fixed_rs(&r, &s, 9);
        (void)gc_assign(&full, sp, 7, false);
        CHECK_OK(g16_prove_ex(p, &proof, &full, &r, &s, NULL, NULL, test_pool(), NULL));
        g16_proof_to_bytes(want, &proof);
        g16_prove_opts_t og = {
            .on_stage = log_stage, .on_stage_ctx = &lg, .gpu = gp, .gpu_shape = gs};
        GPU_OK(g16_prove_ex(p, &proof, &wit, &r, &s, &og, NULL, test_pool(), DG));
        g16_proof_to_bytes(got, &proof);
        CHECK_MSG(memcmp(got, want, sizeof(want)) == 0, "%s: proof from the shape differs",
                  sp->name);
        CHECK(lg.n >= 3 && strcmp(lg.name[0], "prep") == 0 &&
              strcmp(lg.name[1], lean ? "quotient" : "products") == 0 &&
              strcmp(lg.name[2], lean ? "msm_h" : "quotient") == 0);
        memset(&proof, 0, sizeof(proof));
        if (!lean) {
            check_streamed_shape(sp, p, dev, &shape, &wit, &r, &s, want);
        }
        GPU_OK(g16_prove_take(p, &proof, &wit, &r, &s, &og, NULL, NULL, DG));
        g16_proof_to_bytes(got, &proof);
        CHECK_MEM_EQ(got, want, sizeof(want));
        /* A shape of another circuit is refused. */
        if (i == 1) {
            cs_shape_t other;
            cs_assignment_t w2;
            g16_gpu_shape *bad = NULL;
            cz_diag dg;
            gc_shape_assign(&other, &w2, &specs[0], 7);
            cz_diag_init(&dg);
            CHECK_ERR(g16_gpu_shape_new(&bad, gp, &other, &dg), CUZK_E_INVAL);
            CHECK(bad == NULL && strstr(dg.msg, "does not fit") != NULL);
            cs_shape_clear(&other);
            cs_assignment_clear(&w2);
        }
        /* The two-buffer layout has no room for [inputs | aux] beside a and b: no shape. */
        if (lean) {
            g16_gpu_opts_t two = LEAN_Z;
            g16_gpu_params *g2 = NULL;
            g16_gpu_shape *s2 = NULL;
            cz_diag dg;
            two.lean_own_z = false;
            GPU_OK(g16_gpu_params_new(&g2, p, dev, &two, test_pool(), DG));
            CHECK_EQ_U64(g16_gpu_params_buffers(g2), 2);
            GPU_OK(g16_gpu_shape_new(&s2, g2, &shape, DG));
            g16_prove_opts_t o2 = {.gpu = g2, .gpu_shape = s2};
            cz_diag_init(&dg);
            CHECK_ERR(g16_prove_ex(p, &proof, &wit, &r, &s, &o2, NULL, test_pool(), &dg),
                      CUZK_E_INVAL);
            g16_gpu_shape_free(s2);
            g16_gpu_params_free(g2);
        }
        cs_assignment_clear(&full);
        cs_assignment_clear(&wit);
        cs_shape_clear(&shape);
        g16_gpu_shape_free(gs);
        g16_gpu_params_free(gp);
        g16_params_free(p);
    }
}

TEST(gpu_params_options_and_shape)
{
    static const gc_spec sp = {.name = "opts", .ni = 2, .na = 40, .mode = 0, .seed = 51};
    static const g16_gpu_opts_t bad[] = {
        {.stage_bytes = 1023},
        {.stage_slots = 1},
        {.stage_slots = G16_GPU_MAX_SLOTS + 1},
    };
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL;
    g16_params_t broken;

    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        CHECK_ERR(g16_gpu_params_new(&gp, p, dev, &bad[i], NULL, NULL), CUZK_E_INVAL);
        CHECK(gp == NULL);
    }
    /* h_len + 1 must be the domain size */
    broken = *p;
    broken.h_len = p->h_len - 1;
    CHECK_ERR(g16_gpu_params_new(&gp, &broken, dev, NULL, NULL, NULL), CUZK_E_INVAL);
    /* the largest slots and ring are fine, and g16_gpu_params_free(NULL) does nothing */
    GPU_OK(g16_gpu_params_new(
        &gp, p, dev, &(g16_gpu_opts_t){.stage_bytes = 4096, .stage_slots = G16_GPU_MAX_SLOTS}, NULL,
        DG));
    g16_gpu_params_free(gp);
    g16_gpu_params_free(NULL);
    g16_params_free(p);
}

/* ---------------------------------------------------------------------------------------------
 * Staging the next proof's assignment (g16_gpu_stage) beside a running proof
 * ------------------------------------------------------------------------------------------- */

typedef struct stage_arg {
    g16_gpu_params *gp;
    const cs_assignment_t *asg;
    cuzk_err err;
} stage_arg;

static void *stage_thread(void *arg)
{
    stage_arg *a = arg;
    a->err = g16_gpu_stage(a->gp, a->asg, NULL, NULL);
    return NULL;
}

/* One GPU proof of asg with r, s (staged or not) into out's 192 bytes. */
static void gpu_proof_bytes(uint8_t *out, const g16_params_t *p, const cs_assignment_t *asg,
                            const fr_t *r, const fr_t *s, g16_prove_opts_t *og)
{
    g16_proof_t proof;
    GPU_OK(g16_prove_ex(p, &proof, asg, r, s, og, NULL, test_pool(), DG));
    g16_proof_to_bytes(out, &proof);
}

/* The assignment of the next proof is staged from another thread while a proof runs; taken, it
 * proves to the CPU's bytes without being uploaded again: after the take, changing the host
 * copy of aux changes nothing (the device's copy is the one read), while the same proof without
 * a take reads the host's. A take for other vectors, or a second take, finds nothing. */
TEST(gpu_stage_beside_a_proof)
{
    static const gc_spec sp = {.name = "stage", .ni = 5, .na = 300, .mode = GC_DARK, .seed = 61};
    static const gc_spec other = {.name = "stage_o", .ni = 2, .na = 40, .mode = 0, .seed = 62};
    gpu_dev *dev = gtu_need_dev();
    g16_params_t *p = gc_setup(&sp);
    g16_gpu_params *gp = NULL, *plain = NULL;
    const g16_gpu_opts_t go = {.stage_bytes = 1024, .stage_slots = 3, .spare_assignment = true};
    cs_assignment_t w1, w2, wo, wit;
    cs_shape_t shape;
    g16_gpu_shape *gs = NULL;
    uint8_t want1[G16_PROOF_NBYTES], want2[G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
    g16_proof_t proof;
    fr_t r, s, saved;
    cz_diag dg;

    GPU_OK(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), DG));
    GPU_OK(g16_gpu_params_new(&plain, p, dev, &SMALL_RING, test_pool(), DG));
    CHECK(g16_gpu_can_stage(gp) && !g16_gpu_can_stage(plain) && !g16_gpu_can_stage(NULL));
    /* the spare's ring is a second staging ring */
    CHECK_EQ_U64(g16_gpu_params_pinned_bytes(gp), g16_gpu_params_pinned_plan(p, &go));
    CHECK_EQ_U64(g16_gpu_params_pinned_bytes(gp) - g16_gpu_params_pinned_bytes(plain), 1024 * 3);
    CHECK(g16_gpu_params_device_bytes(gp) >=
          g16_gpu_params_device_bytes(plain) + (p->vk.ic_len + p->l_len) * sizeof(fr_t));
    fixed_rs(&r, &s, 17);
    (void)gc_assign(&w1, &sp, 7, false);
    (void)gc_assign(&w2, &sp, 8, false);
    CHECK_OK(g16_prove_ex(p, &proof, &w1, &r, &s, NULL, NULL, test_pool(), NULL));
    g16_proof_to_bytes(want1, &proof);
    CHECK_OK(g16_prove_ex(p, &proof, &w2, &r, &s, NULL, NULL, test_pool(), NULL));
    g16_proof_to_bytes(want2, &proof);
    CHECK(memcmp(want1, want2, sizeof(want1)) != 0);

    /* w2 staged by another thread while w1 is proved */
    {
        stage_arg sa = {.gp = gp, .asg = &w2};
        pthread_t th;
        CHECK(pthread_create(&th, NULL, stage_thread, &sa) == 0);
        gpu_proof_bytes(got, p, &w1, &r, &s, &(g16_prove_opts_t){.gpu = gp});
        CHECK(pthread_join(th, NULL) == 0);
        GPU_OK(sa.err);
        CHECK_MEM_EQ(got, want1, sizeof(got));
    }
    CHECK(!g16_gpu_stage_take(gp, &w1)); /* not the staged one */
    CHECK(g16_gpu_stage_take(gp, &w2));
    saved = w2.aux[3];
    fr_add(&w2.aux[3], &saved, &FR_ONE); /* the host copy changes after the take */
    gpu_proof_bytes(got, p, &w2, &r, &s, &(g16_prove_opts_t){.gpu = gp, .gpu_staged = true});
    CHECK_MEM_EQ(got, want2, sizeof(got));
    CHECK(!g16_gpu_stage_take(gp, &w2)); /* taken once */
    /* without a take, gpu_staged uploads: the changed aux gives another proof */
    gpu_proof_bytes(got, p, &w2, &r, &s, &(g16_prove_opts_t){.gpu = gp, .gpu_staged = true});
    CHECK(memcmp(got, want2, sizeof(got)) != 0);
    w2.aux[3] = saved;
    /* a take of w1, then a proof of w2 with gpu_staged: w2 is uploaded */
    GPU_OK(g16_gpu_stage(gp, &w1, test_pool(), DG));
    CHECK(g16_gpu_stage_take(gp, &w1));
    gpu_proof_bytes(got, p, &w2, &r, &s, &(g16_prove_opts_t){.gpu = gp, .gpu_staged = true});
    CHECK_MEM_EQ(got, want2, sizeof(got));

    /* with a resident shape: only inputs, aux and the densities on the host */
    gc_shape_assign(&shape, &wit, &sp, 7);
    GPU_OK(g16_gpu_shape_new(&gs, gp, &shape, DG));
    GPU_OK(g16_gpu_stage(gp, &wit, test_pool(), DG));
    CHECK(g16_gpu_stage_take(gp, &wit));
    gpu_proof_bytes(got, p, &wit, &r, &s,
                    &(g16_prove_opts_t){.gpu = gp, .gpu_shape = gs, .gpu_staged = true});
    CHECK_MEM_EQ(got, want1, sizeof(got));

    /* refusals: no spare buffer; an assignment of another circuit */
    cz_diag_init(&dg);
    CHECK_ERR(g16_gpu_stage(plain, &w1, NULL, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "spare") != NULL);
    CHECK(!g16_gpu_stage_take(plain, &w1));
    (void)gc_assign(&wo, &other, 7, false);
    cz_diag_init(&dg);
    CHECK_ERR(g16_gpu_stage(gp, &wo, NULL, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "inputs") != NULL);

    cs_assignment_clear(&wo);
    cs_assignment_clear(&wit);
    cs_shape_clear(&shape);
    g16_gpu_shape_free(gs);
    cs_assignment_clear(&w1);
    cs_assignment_clear(&w2);
    g16_gpu_params_free(plain);
    g16_gpu_params_free(gp);
    g16_params_free(p);
}

/* ---------------------------------------------------------------------------------------------
 * Density compaction on the device
 * ------------------------------------------------------------------------------------------- */

TEST(gpu_compact_matches_host)
{
    static const size_t sizes[] = {1, 63, 64, 65, 130, 1000, 4099};
    gpu_dev *dev = gtu_need_dev();
    cz_prng *g = test_prng();

    for (size_t si = 0; si < ARRAY_LEN(sizes); si++) {
        for (int kind = 0; kind < 5; kind++) {
            const size_t n = sizes[si], nw = (n + 63) / 64;
            const size_t in_off = 3 * 32, out_off = 5 * 32, map_off = 80;
            uint64_t *bits = xmalloc(nw * 8);
            fr_t *in = xmalloc(n * 32), *want = xmalloc(n * 32);
            uint8_t *got = NULL;
            void *map = xmalloc(gpu_compact_map_sizeof(n));
            gpu_buf *bin = NULL, *bout = NULL, *bmap = NULL;
            size_t count = 0, out_len;

            for (size_t w = 0; w < nw; w++) {
                uint64_t x = cz_prng_u64(g);
                switch (kind) {
                case 0: /* empty */
                    bits[w] = 0;
                    break;
                case 1: /* full */
                    bits[w] = ~(uint64_t)0;
                    break;
                case 2: /* half */
                    bits[w] = x;
                    break;
                case 3: /* sparse */
                    bits[w] = x & cz_prng_u64(g) & cz_prng_u64(g) & cz_prng_u64(g);
                    break;
                default: /* every other word empty */
                    bits[w] = w % 2 ? 0 : x;
                }
            }
            if (n % 64) {
                bits[nw - 1] |= ~(uint64_t)0 << (n % 64); /* past n: must be ignored */
            }
            for (size_t i = 0; i < n; i++) {
                g16t_rand_fr(&in[i], g);
                if ((bits[i / 64] >> (i % 64)) & 1) {
                    want[count++] = in[i];
                }
            }
            CHECK_EQ_U64(gpu_compact_map_build(map, bits, n), count);
            out_len = out_off + (count + 3) * 32;
            got = xmalloc(out_len);
            memset(got, 0xa5, out_len);
            GPU_OK(gpu_buf_new(&bin, dev, in_off + n * 32, DG));
            GPU_OK(gpu_buf_new(&bout, dev, out_len, DG));
            GPU_OK(gpu_buf_new(&bmap, dev, map_off + gpu_compact_map_sizeof(n), DG));
            GPU_OK(gpu_buf_upload(bin, in_off, in, n * 32, DG));
            GPU_OK(gpu_buf_upload(bout, 0, got, out_len, DG));
            GPU_OK(gpu_buf_upload(bmap, map_off, map, gpu_compact_map_sizeof(n), DG));
            GPU_OK(
                gpu_fr_compact_buf(dev, bout, out_off, bin, in_off, bmap, map_off, n, count, DG));
            GPU_OK(gpu_buf_download(got, bout, 0, out_len, DG));
            CHECK_MSG(memcmp(got + out_off, want, count * 32) == 0, "n=%zu kind=%d", n, kind);
            for (size_t i = 0; i < out_len; i++) {
                if (i < out_off || i >= out_off + count * 32) {
                    CHECK_MSG(got[i] == 0xa5, "n=%zu kind=%d: byte %zu written", n, kind, i);
                }
            }
            /* ranges: the output too small, a misaligned input, a short map */
            CHECK_ERR(gpu_fr_compact_buf(dev, bout, out_off + 4 * 32, bin, in_off, bmap, map_off, n,
                                         count, NULL),
                      CUZK_E_INVAL);
            CHECK_ERR(gpu_fr_compact_buf(dev, bout, 0, bin, 16, bmap, map_off, n, count, NULL),
                      CUZK_E_INVAL);
            CHECK_ERR(
                gpu_fr_compact_buf(dev, bout, 0, bin, in_off, bmap, map_off + 16, n, count, NULL),
                CUZK_E_INVAL);
            gpu_buf_free(bin);
            gpu_buf_free(bout);
            gpu_buf_free(bmap);
            cz_free(bits);
            cz_free(in);
            cz_free(want);
            cz_free(got);
            cz_free(map);
        }
    }
}

/* ---------------------------------------------------------------------------------------------
 * Setup on the device (g16_setup_gpu_write) against the CPU setup, byte for byte
 * ------------------------------------------------------------------------------------------- */

/* The parameters of two circuits, each written to a .params file and mapped: those of sp to
 * /tmp/cuzk-<tag>-<pid>.params, those of other to /tmp/cuzk-<tag>-<pid>-2.params. */
typedef struct params_files {
    g16_params_t *p, *q; /* of sp, of other */
    char path[64], path2[64];
    g16_file_t f1, f2; /* path and path2 mapped */
} params_files;

static void params_files_init(params_files *pf, const char *tag, const gc_spec *sp,
                              const gc_spec *other)
{
    pf->p = gc_setup(sp);
    pf->q = gc_setup(other);
    snprintf(pf->path, sizeof(pf->path), "/tmp/cuzk-%s-%d.params", tag, (int)getpid());
    snprintf(pf->path2, sizeof(pf->path2), "/tmp/cuzk-%s-%d-2.params", tag, (int)getpid());
    CHECK_OK(g16_params_write(pf->p, pf->path, NULL, NULL));
    CHECK_OK(g16_params_write(pf->q, pf->path2, NULL, NULL));
    CHECK_OK(g16_file_map(&pf->f1, pf->path, NULL));
    CHECK_OK(g16_file_map(&pf->f2, pf->path2, NULL));
}

/* Removes and unmaps both files and frees both parameter sets. */
static void params_files_clear(params_files *pf)
{
    remove(pf->path);
    remove(pf->path2);
    g16_file_unmap(&pf->f1);
    g16_file_unmap(&pf->f2);
    g16_params_free(pf->p);
    g16_params_free(pf->q);
}

/* Dropping the host points of resident parameters: device proofs go on unchanged; everything
 * that reads the points refuses; a restore from the same file brings them back (and a restore
 * from other parameters is refused). */
TEST(gpu_params_drop_and_restore)
{
    gpu_dev *dev = gtu_need_dev();
    static const gc_spec sp = {.name = "drop", .ni = 3, .na = 300, .mode = GC_DARK, .seed = 71};
    static const gc_spec other = {.name = "drop2", .ni = 3, .na = 300, .mode = GC_DARK, .seed = 72};
    params_files pf;
    g16_gpu_params *gp = NULL;
    cs_assignment_t asg;
    g16_proof_t proof;
    uint8_t want[G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
    fr_t r, s;

    params_files_init(&pf, "drop", &sp, &other);
    g16_params_t *p = pf.p;
    const uint8_t *file = pf.f1.data, *file2 = pf.f2.data;
    const size_t len = pf.f1.len, len2 = pf.f2.len;
    fixed_rs(&r, &s, 5);
    (void)gc_assign(&asg, &sp, 9, false);
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, NULL, NULL, test_pool(), DG));
    g16_proof_to_bytes(want, &proof);
    GPU_OK(g16_gpu_params_new(&gp, p, dev, NULL, test_pool(), DG));

    g16_params_drop_points(p);
    g16_params_drop_points(p); /* twice: nothing more */
    CHECK(!g16_params_has_points(p) && p->h == NULL && p->b_g2 == NULL);
    g16_prove_opts_t og = {.gpu = gp};
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, &og, NULL, test_pool(), DG));
    g16_proof_to_bytes(got, &proof);
    CHECK_MEM_EQ(got, want, sizeof(want));
    CHECK_ERR(g16_prove_ex(p, &proof, &asg, &r, &s, NULL, NULL, test_pool(), NULL), CUZK_E_INVAL);
    {
        g16_gpu_params *gp2 = NULL;
        CHECK_ERR(g16_gpu_params_new(&gp2, p, dev, NULL, NULL, NULL), CUZK_E_INVAL);
        CHECK(gp2 == NULL);
    }
    CHECK_ERR(g16_params_write(p, "/tmp/cuzk-never.params", NULL, NULL), CUZK_E_INVAL);
    /* other parameters of the same shape: refused, still dropped */
    CHECK_ERR(g16_params_restore_points(p, file2, len2, NULL, test_pool(), NULL), CUZK_E_FORMAT);
    CHECK(!g16_params_has_points(p));
    /* a truncated file: refused as a load refuses it */
    CHECK_ERR(g16_params_restore_points(p, file, len - 1, NULL, test_pool(), NULL), CUZK_E_FORMAT);
    CHECK(!g16_params_has_points(p));
    GPU_OK(g16_params_restore_points(p, file, len, NULL, test_pool(), DG));
    CHECK(g16_params_has_points(p));
    GPU_OK(g16_params_restore_points(p, NULL, 0, NULL, NULL, DG)); /* has them: nothing read */
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, NULL, NULL, test_pool(), DG));
    g16_proof_to_bytes(got, &proof);
    CHECK_MEM_EQ(got, want, sizeof(want));

    cs_assignment_clear(&asg);
    g16_gpu_params_free(gp);
    params_files_clear(&pf);
}

/* Parameters loaded without their points (skip_points) made resident straight from their file:
 * the same proof as from decoded points; another file, a truncated one, no file, and a point
 * off the curve (named with its section, index and offset) are refused, and the host still
 * holds no points afterwards. Small staging slots: several slots per section. */
TEST(gpu_params_from_file)
{
    gpu_dev *dev = gtu_need_dev();
    static const gc_spec sp = {.name = "file", .ni = 3, .na = 700, .mode = GC_DARK, .seed = 73};
    static const gc_spec other = {.name = "file2", .ni = 3, .na = 700, .mode = GC_DARK, .seed = 74};
    params_files pf;
    g16_params_t *p = NULL;
    g16_gpu_params *gp = NULL;
    cs_assignment_t asg;
    g16_proof_t proof;
    uint8_t want[G16_PROOF_NBYTES], got[G16_PROOF_NBYTES];
    fr_t r, s;
    cz_diag dg;

    params_files_init(&pf, "file", &sp, &other);
    const g16_params_t *full = pf.p;
    fixed_rs(&r, &s, 6);
    (void)gc_assign(&asg, &sp, 11, false);
    GPU_OK(g16_prove_ex(full, &proof, &asg, &r, &s, NULL, NULL, test_pool(), DG));
    g16_proof_to_bytes(want, &proof);

    g16_load_opts_t lo = {.skip_points = true};
    GPU_OK(g16_params_from_bytes(&p, pf.f1.data, pf.f1.len, &lo, test_pool(), DG));
    CHECK(!g16_params_has_points(p) && p->h == NULL && p->l_len == full->l_len);
    CHECK_MEM_EQ(p->vk.ic, full->vk.ic, p->vk.ic_len * sizeof(g1_aff_t));
    g16_gpu_opts_t go = {.stage_bytes = 4096, .stage_slots = 3};
    CHECK_ERR(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), NULL), CUZK_E_INVAL);
    go.file = pf.f2.data;
    go.file_len = pf.f2.len;
    CHECK_ERR(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), NULL), CUZK_E_FORMAT);
    go.file = pf.f1.data;
    go.file_len = pf.f1.len - 1;
    CHECK_ERR(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), NULL), CUZK_E_FORMAT);
    CHECK(gp == NULL);
    {
        /* point 200 of l with y + 1: off the curve */
        uint8_t *bad = xmalloc(pf.f1.len);
        size_t at = g16_vk_nbytes(&p->vk) + 4 + p->h_len * G1_UNCOMPRESSED_NBYTES + 4 +
                    200 * G1_UNCOMPRESSED_NBYTES + G1_UNCOMPRESSED_NBYTES - 1;
        char want_msg[96];
        memcpy(bad, pf.f1.data, pf.f1.len);
        bad[at] ^= 1;
        go.file = bad;
        go.file_len = pf.f1.len;
        cz_diag_init(&dg);
        CHECK_ERR(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), &dg), CUZK_E_NOT_IN_GROUP);
        snprintf(want_msg, sizeof(want_msg), "section l: point 200 (byte offset %zu)",
                 at + 1 - G1_UNCOMPRESSED_NBYTES);
        CHECK_MSG(strstr(dg.msg, want_msg) != NULL, "%s", dg.msg);
        /* the same through pread (by path): the same point named */
        char bad_path[80];
        snprintf(bad_path, sizeof(bad_path), "/tmp/cuzk-file-%d-bad.params", (int)getpid());
        FILE *bf = fopen(bad_path, "wb");
        CHECK(bf && fwrite(bad, 1, pf.f1.len, bf) == pf.f1.len && fclose(bf) == 0);
        cz_diag_init(&dg);
        CHECK_ERR(g16_gpu_params_from_file(&gp, p, bad_path, dev, &go, test_pool(), &dg),
                  CUZK_E_NOT_IN_GROUP);
        CHECK_MSG(strstr(dg.msg, want_msg) != NULL && strstr(dg.msg, bad_path) != NULL, "%s",
                  dg.msg);
        /* pread from a file (good bytes) shorter than the mapping it is checked against: an
         * I/O error */
        bf = fopen(bad_path, "wb");
        CHECK(bf && fwrite(pf.f1.data, 1, pf.f1.len / 2, bf) == pf.f1.len / 2 && fclose(bf) == 0);
        go.file = pf.f1.data;
        go.file_len = pf.f1.len;
        go.file_fd = open(bad_path, O_RDONLY);
        go.file_pread = go.file_fd >= 0;
        CHECK(go.file_pread);
        cz_diag_init(&dg);
        CHECK_ERR(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), &dg), CUZK_E_IO);
        CHECK_MSG(strstr(dg.msg, "file too short") != NULL, "%s", dg.msg);
        close(go.file_fd);
        go.file_pread = false;
        remove(bad_path);
        cz_free(bad);
    }
    go.file = pf.f1.data;
    go.file_len = pf.f1.len;
    GPU_OK(g16_gpu_params_new(&gp, p, dev, &go, test_pool(), DG));
    CHECK(!g16_params_has_points(p));
    g16_prove_opts_t og = {.gpu = gp};
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, &og, NULL, test_pool(), DG));
    g16_proof_to_bytes(got, &proof);
    CHECK_MEM_EQ(got, want, sizeof(want));
    {
        /* the same by path (the file mapped for the call); a missing file is an I/O error */
        g16_gpu_params *gp2 = NULL;
        g16_prove_opts_t og2;
        CHECK_ERR(g16_gpu_params_from_file(&gp2, p, "/nonexistent/x.params", dev, NULL, test_pool(),
                                           NULL),
                  CUZK_E_IO);
        GPU_OK(g16_gpu_params_from_file(&gp2, p, pf.path, dev, &go, test_pool(), DG));
        og2 = (g16_prove_opts_t){.gpu = gp2};
        GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, &og2, NULL, test_pool(), DG));
        g16_proof_to_bytes(got, &proof);
        CHECK_MEM_EQ(got, want, sizeof(want));
        g16_gpu_params_free(gp2);
    }
    /* the CPU path restores them from the same file and proves the same */
    GPU_OK(g16_params_restore_points(p, pf.f1.data, pf.f1.len, NULL, test_pool(), DG));
    GPU_OK(g16_prove_ex(p, &proof, &asg, &r, &s, NULL, NULL, test_pool(), DG));
    g16_proof_to_bytes(got, &proof);
    CHECK_MEM_EQ(got, want, sizeof(want));

    cs_assignment_clear(&asg);
    g16_gpu_params_free(gp);
    g16_params_free(p);
    params_files_clear(&pf);
}

/* The same .params bytes and VK from both setups for the circuit of `sp`. */
static void check_setup_twin(const gc_spec *sp)
{
    gpu_dev *dev = gtu_need_dev();
    char cpu_path[64], gpu_path[64];
    cs_r1cs_t r1cs;
    cs_shape_t shape;
    g16_params_t *p = NULL;
    g16_vk_t *vk = NULL;
    g16_setup_stats_t st;
    uint64_t seed = sp->seed + 7000;
    uint8_t *va, *vb;
    g16_file_t a, b;
    cz_diag dg;

    snprintf(cpu_path, sizeof(cpu_path), "/tmp/cuzk-twin-%d-cpu.params", (int)getpid());
    snprintf(gpu_path, sizeof(gpu_path), "/tmp/cuzk-twin-%d-gpu.params", (int)getpid());
    cz_diag_init(&dg);
    gc_record(&r1cs, sp);
    CHECK_OK(cs_shape_from_r1cs(&shape, &r1cs, NULL));
    CHECK_OK(g16_setup_shape(&p, NULL, &shape, &seed, test_pool(), NULL));
    CHECK_OK(g16_params_write(p, cpu_path, test_pool(), NULL));
    CHECK_MSG(g16_setup_gpu_write(&vk, &st, &shape, &seed, dev, gpu_path, test_pool(), &dg) ==
                  CUZK_OK,
              "%s: %s", sp->name, dg.msg);
    CHECK_OK(g16_file_map(&a, cpu_path, NULL));
    CHECK_OK(g16_file_map(&b, gpu_path, NULL));
    CHECK_EQ_U64(b.len, a.len);
    CHECK_MSG(memcmp(a.data, b.data, a.len) == 0, "%s: the device setup wrote other bytes",
              sp->name);
    va = xmalloc(g16_vk_nbytes(vk));
    vb = xmalloc(g16_vk_nbytes(&p->vk));
    CHECK_EQ_U64(g16_vk_nbytes(vk), g16_vk_nbytes(&p->vk));
    g16_vk_to_bytes(va, vk);
    g16_vk_to_bytes(vb, &p->vk);
    CHECK_MEM_EQ(va, vb, g16_vk_nbytes(vk));
    CHECK(st.g1_window == 12 && st.total_ms >= st.qap_ms);
    remove(cpu_path);
    remove(gpu_path);
    g16_file_unmap(&a);
    g16_file_unmap(&b);
    cz_free(va), cz_free(vb);
    g16_vk_free(vk);
    g16_params_free(p);
    cs_shape_clear(&shape);
    cs_r1cs_clear(&r1cs);
}

TEST(gpu_setup_twin)
{
    static const gc_spec specs[] = {
        {.name = "setup_m204", .ni = 3, .na = 200, .mode = 0, .seed = 61},
        {.name = "setup_dark", .ni = 9, .na = 600, .mode = GC_DARK | GC_B_IN_GAPS, .seed = 62},
        {.name = "setup_a_empty", .ni = 4, .na = 250, .mode = GC_A_EMPTY, .seed = 63},
        {.name = "setup_b_empty", .ni = 4, .na = 250, .mode = GC_B_EMPTY, .seed = 64},
    };
    for (size_t i = 0; i < ARRAY_LEN(specs); i++) {
        check_setup_twin(&specs[i]);
    }
}

TEST(gpu_setup_refuses)
{
    gpu_dev *dev = gtu_need_dev();
    static const gc_spec sp = {.name = "setup_bad", .ni = 2, .na = 40, .mode = 0, .seed = 65};
    cs_r1cs_t r1cs;
    cs_shape_t shape;
    g16_vk_t *vk = NULL;
    uint64_t seed = 1;
    cz_diag dg;

    gc_record(&r1cs, &sp);
    CHECK_OK(cs_shape_from_r1cs(&shape, &r1cs, NULL));
    /* a directory that does not exist: a clear I/O error naming the path */
    cz_diag_init(&dg);
    CHECK_ERR(g16_setup_gpu_write(&vk, NULL, &shape, &seed, dev, "/nonexistent/x.params",
                                  test_pool(), &dg),
              CUZK_E_IO);
    CHECK(strstr(dg.msg, "/nonexistent/x.params") != NULL);
    CHECK(vk == NULL);
    /* a column out of range */
    shape.A.col[0] = (uint32_t)(shape.num_inputs + shape.num_aux);
    CHECK_ERR(g16_setup_gpu_write(&vk, NULL, &shape, &seed, dev, "/tmp/cuzk-never.params",
                                  test_pool(), NULL),
              CUZK_E_INVAL);
    CHECK(vk == NULL);
    cs_shape_clear(&shape);
    cs_r1cs_clear(&r1cs);
}

TEST(zz_close_device)
{
    /* runs last (registration order): releases the device after every object on it is freed */
    gpu_dev_close(gtu_dev);
    gtu_dev = NULL;
    if (gpu_count() == 0) {
        test_skip("no GPU");
    }
}
