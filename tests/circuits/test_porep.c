/* test_porep.c - the PoRep partition circuit with an honest witness built natively: a toy
 * sector whose challenged nodes are labelled from parent columns exactly as the SDR labeller
 * does (SHA-256 of replica_id || layer BE || node BE || 20 zero bytes || 37 parent labels,
 * trimmed; spec sealing.md 3 / circuits.md 5.4), with TreeC over Poseidon column hashes,
 * TreeRLast over label + data, TreeD (binary SHA-256) over the data and
 * comm_r = Poseidon2(comm_c, comm_r_last). The circuit only checks those relations, not that the
 * parents are the graph's, so arbitrary parent indices give a complete honest witness.
 * Checked: satisfiability, the allocated public inputs against circ_porep_public_inputs, the
 * rejection of every kind of tampered value, and bad data reported as E_INVAL. Parallel
 * synthesis (challenges on a pool) against sequential synthesis: byte-identical assignments
 * (prover and witness backends), counts, and the same first failure of a tampered witness.
 */
#include "circ_util.h"
#include "r1cs/asg_test_util.h"

#include "common/alloc.h"
#include "common/pool.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

#define MAX_NODES 64
#define MAX_L     11
#define MAX_CH    3

typedef struct toy {
    circ_porep_cfg_t cfg;
    fr_t replica_id, comm_d, comm_r, comm_c, comm_r_last;
    fr_t data[MAX_NODES];
    fr_t labels[MAX_L + 1][MAX_NODES]; /* labels[layer][node], layer 1-based */
    fr_t cols[MAX_NODES][MAX_L];       /* column of each node: rows = labels by layer */
    cu_tree_t tree_c, tree_r_last, tree_d;
    uint64_t challenges[MAX_CH];
    uint64_t drg[MAX_CH][CIRC_DRG_PARENTS], exp[MAX_CH][CIRC_EXP_PARENTS];
    /* witness storage */
    fr_t sib[MAX_CH][17][128];
    uint32_t idx[MAX_CH][17][64];
    circ_porep_challenge_t ch[MAX_CH];
    circ_porep_witness_t w;
    /* how porep_synth synthesizes: sequentially (NULL) or with the challenges on a pool */
    cz_pool *pool;
    const cs_counts_t *counts;
} toy;

/* The native SDR label of `node` at `layer` from the 37 expanded parent labels. */
static void native_label(fr_t *out, const fr_t *replica_id, uint32_t layer, uint64_t node,
                         const fr_t *parents[37])
{
    uint8_t msg[64 + 37 * 32], d[32];

    memset(msg, 0, sizeof(msg));
    fr_to_bytes(msg, replica_id);
    for (unsigned i = 0; i < 4; i++) {
        msg[32 + i] = (uint8_t)(layer >> (24 - 8 * i));
    }
    for (unsigned i = 0; i < 8; i++) {
        msg[36 + i] = (uint8_t)(node >> (56 - 8 * i));
    }
    for (unsigned k = 0; k < 37; k++) {
        fr_to_bytes(msg + 64 + 32 * k, parents[k]);
    }
    sha256_fr32(d, msg, sizeof(msg));
    CHECK_OK(fr_from_bytes(out, d));
}

static bool is_challenge(const toy *t, uint64_t v)
{
    for (size_t i = 0; i < t->cfg.challenges; i++) {
        if (t->challenges[i] == v) {
            return true;
        }
    }
    return false;
}

static void set_path(toy *t, size_t c, size_t slot, const cu_tree_t *tree, uint64_t leaf,
                     circ_path_t *p)
{
    cu_tree_path(tree, leaf, t->sib[c][slot], t->idx[c][slot]);
    p->siblings = t->sib[c][slot];
    p->index = t->idx[c][slot];
}

static void toy_build(toy *t, uint64_t nodes, uint32_t base, uint32_t sub, uint32_t top,
                      uint32_t layers, uint32_t nch, cz_prng *g)
{
    const uint32_t L = layers;
    fr_t hashes[MAX_NODES], enc[MAX_NODES], in[2];

    memset(t, 0, sizeof(*t));
    CHECK(nodes <= MAX_NODES && layers <= MAX_L && nch <= MAX_CH);
    CHECK(circ_porep_cfg_init(&t->cfg, nodes, base, sub, top, layers, nch));
    cu_rand_fr(&t->replica_id, g);
    for (uint64_t v = 0; v < nodes; v++) {
        cu_rand_fr254(&t->data[v], g);
        for (uint32_t l = 1; l <= L; l++) {
            cu_rand_fr(&t->labels[l][v], g);
        }
    }
    /* distinct non-zero challenges; parents anywhere but on a challenged node */
    for (size_t i = 0; i < nch; i++) {
        bool dup;
        do {
            t->challenges[i] = 1 + cz_prng_below(g, nodes - 1);
            dup = false;
            for (size_t j = 0; j < i; j++) {
                dup = dup || t->challenges[j] == t->challenges[i];
            }
        } while (dup);
    }
    for (size_t i = 0; i < nch; i++) {
        for (size_t j = 0; j < CIRC_DRG_PARENTS + CIRC_EXP_PARENTS; j++) {
            uint64_t p;
            do {
                p = cz_prng_below(g, nodes);
            } while (is_challenge(t, p));
            if (j < CIRC_DRG_PARENTS) {
                t->drg[i][j] = p;
            } else {
                t->exp[i][j - CIRC_DRG_PARENTS] = p;
            }
        }
        /* label the challenged node layer by layer (spec circuits.md 5.3 step 5) */
        for (uint32_t l = 1; l <= L; l++) {
            const fr_t *par[14], *expanded[37];
            size_t np = 0;
            for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
                par[np++] = &t->labels[l][t->drg[i][j]];
            }
            if (l > 1) {
                for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
                    par[np++] = &t->labels[l - 1][t->exp[i][j]];
                }
            }
            for (size_t k = 0; k < 37; k++) {
                expanded[k] = par[k % np];
            }
            native_label(&t->labels[l][t->challenges[i]], &t->replica_id, l, t->challenges[i],
                         expanded);
        }
    }
    /* TreeC, TreeRLast, TreeD and the commitments */
    for (uint64_t v = 0; v < nodes; v++) {
        for (uint32_t l = 1; l <= L; l++) {
            t->cols[v][l - 1] = t->labels[l][v];
        }
        poseidon_hash(&hashes[v], t->cols[v], L, poseidon_params(L));
        fr_add(&enc[v], &t->labels[L][v], &t->data[v]);
    }
    cu_tree_build(&t->tree_c, &t->cfg.tree, false, hashes);
    cu_tree_build(&t->tree_r_last, &t->cfg.tree, false, enc);
    cu_tree_build(&t->tree_d, &t->cfg.tree_d, true, t->data);
    t->comm_c = *cu_tree_root(&t->tree_c);
    t->comm_r_last = *cu_tree_root(&t->tree_r_last);
    t->comm_d = *cu_tree_root(&t->tree_d);
    in[0] = t->comm_c;
    in[1] = t->comm_r_last;
    poseidon_hash(&t->comm_r, in, 2, poseidon_params(2));

    /* the witness, as params.rs Proof::from(vanilla) takes it */
    for (size_t i = 0; i < nch; i++) {
        circ_porep_challenge_t *ch = &t->ch[i];
        uint64_t c = t->challenges[i];
        ch->node = c;
        ch->data_leaf = t->data[c];
        set_path(t, i, 0, &t->tree_d, c, &ch->comm_d_path);
        set_path(t, i, 1, &t->tree_r_last, c, &ch->comm_r_last_path);
        set_path(t, i, 2, &t->tree_c, c, &ch->comm_c_path);
        for (size_t j = 0; j < CIRC_DRG_PARENTS; j++) {
            ch->drg[j].rows = t->cols[t->drg[i][j]];
            set_path(t, i, 3 + j, &t->tree_c, t->drg[i][j], &ch->drg[j].path);
        }
        for (size_t j = 0; j < CIRC_EXP_PARENTS; j++) {
            ch->exp[j].rows = t->cols[t->exp[i][j]];
            set_path(t, i, 9 + j, &t->tree_c, t->exp[i][j], &ch->exp[j].path);
        }
    }
    t->w.replica_id = t->replica_id;
    t->w.comm_d = t->comm_d;
    t->w.comm_r = t->comm_r;
    t->w.comm_c = t->comm_c;
    t->w.comm_r_last = t->comm_r_last;
    t->w.challenges = t->ch;
}

static void toy_free(toy *t)
{
    cu_tree_free(&t->tree_c);
    cu_tree_free(&t->tree_r_last);
    cu_tree_free(&t->tree_d);
}

static void porep_synth(cs_t *cs, void *ctx)
{
    toy *t = ctx;
    if (t->pool) {
        circ_porep_synth_pool(cs, &t->cfg, &t->w, t->pool, t->counts);
    } else {
        circ_porep_synth(cs, &t->cfg, &t->w);
    }
}

static void check_inputs(toy *t)
{
    fr_t expect[3 + 18 * MAX_CH], *got;
    size_t n;

    circ_porep_public_inputs(expect, &t->cfg, &t->replica_id, &t->comm_d, &t->comm_r, t->challenges,
                             (const uint64_t(*)[CIRC_DRG_PARENTS])t->drg,
                             (const uint64_t(*)[CIRC_EXP_PARENTS])t->exp);
    got = cu_inputs(porep_synth, t, &n);
    CHECK_EQ_U64(n, circ_porep_num_inputs(&t->cfg));
    CHECK_MEM_EQ(got, expect, n * sizeof(fr_t));
    cz_free(got);
}

/* Flips a value, requires the checker to reject, restores it. */
static void expect_unsat(toy *t, fr_t *v)
{
    fr_t saved = *v;
    const char *path;

    fr_add(v, v, &FR_ONE);
    CHECK_ERR(cu_check(porep_synth, t, &path), CUZK_E_UNSAT);
    *v = saved;
}

#if !CIRC_SLOW_TESTS
/* The same, and the checker with the challenges on `pool` names the same first failure. */
static void expect_unsat_pool(toy *t, fr_t *v, cz_pool *pool)
{
    fr_t saved = *v;
    const char *path;
    char seq_path[512];

    fr_add(v, v, &FR_ONE);
    CHECK_ERR(cu_check(porep_synth, t, &path), CUZK_E_UNSAT);
    snprintf(seq_path, sizeof(seq_path), "%s", path);
    t->pool = pool;
    CHECK_ERR(cu_check(porep_synth, t, &path), CUZK_E_UNSAT);
    t->pool = NULL;
    CHECK_STR_EQ(path, seq_path);
    *v = saved;
}
#endif

typedef enum { BK_PROVER, BK_WITNESS } porep_bk;

/* The assignment of one synthesis (pool NULL: sequential) with a prover or witness cs. */
static void synth_assignment(cs_assignment_t *out, toy *t, porep_bk bk, cz_pool *pool,
                             const cs_counts_t *counts, const cs_counts_t *hint)
{
    cs_t *cs = NULL;

    CHECK_OK(bk == BK_PROVER ? cs_new_prover(&cs, hint, NULL) : cs_new_witness(&cs, hint, NULL));
    t->pool = pool;
    t->counts = counts;
    porep_synth(cs, t);
    t->pool = NULL;
    t->counts = NULL;
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, out, NULL));
    cs_free(cs);
}

/* Synthesis with the challenges on `pool` equals sequential synthesis: the witness backend's
 * assignment byte for byte (challenge counts given), the counter's counts, and the checker
 * accepts; with `prover`, also the prover's assignment (challenge counts counted inside, the
 * full counts as size hint). */
static void check_pool_equals_sequential(toy *t, cz_pool *pool, bool prover)
{
    cs_counts_t each, full, pc;
    cs_assignment_t seq, par;
    const char *path = NULL;

    CHECK_OK(circ_porep_challenge_counts(&each, &t->cfg, NULL));
    CHECK_EQ_U64(each.num_inputs, CIRC_POREP_INPUTS_PER_CHALLENGE); /* vanilla-proofs.md 1.7 */
    cu_counts(&full, porep_synth, t);
    CHECK(full.num_aux > t->cfg.challenges * each.num_aux);
    CHECK(full.num_constraints > t->cfg.challenges * each.num_constraints);

    synth_assignment(&seq, t, BK_WITNESS, NULL, NULL, NULL);
    CHECK_EQ_U64(seq.num_inputs, full.num_inputs);
    CHECK_EQ_U64(seq.num_aux, full.num_aux);
    synth_assignment(&par, t, BK_WITNESS, pool, &each, NULL);
    cst_check_asg_eq(&seq, &par);
    cs_assignment_clear(&par);
    cs_assignment_clear(&seq);
    if (prover) {
        synth_assignment(&seq, t, BK_PROVER, NULL, NULL, NULL);
        CHECK_EQ_U64(seq.m, full.num_constraints + full.num_inputs);
        synth_assignment(&par, t, BK_PROVER, pool, NULL, &full);
        cst_check_asg_eq(&seq, &par);
        cs_assignment_clear(&par);
        cs_assignment_clear(&seq);
    }
    t->pool = pool;
    cu_counts(&pc, porep_synth, t); /* the counter forks without sizes */
    CHECK(memcmp(&pc, &full, sizeof(pc)) == 0);
    CHECK_MSG(cu_check(porep_synth, t, &path) == CUZK_OK, "unsat at %s", path);
    t->pool = NULL;
}

#if !CIRC_SLOW_TESTS
/* The production 2 KiB partition (64 nodes, oct tree, 2 layers, 2 challenges). */
TEST(porep_2kib_honest)
{
    static toy t;
    const char *path = NULL;
    circ_porep_cfg_t prod;

    CHECK(circ_porep_cfg_for_sector(&prod, 2048));
    toy_build(&t, 64, 8, 0, 0, 2, 2, test_prng());
    CHECK(memcmp(&prod, &t.cfg, sizeof(prod)) == 0);
    CHECK_MSG(cu_check(porep_synth, &t, &path) == CUZK_OK, "unsat at %s", path);
    check_inputs(&t);
    toy_free(&t);
}

/* A sub/top-tree shape (the reference's poseidon_top_8_4_2 tree) and every kind of tampering. */
TEST(porep_tamper)
{
    static toy t;
    circ_porep_challenge_t *ch;

    toy_build(&t, 64, 8, 4, 2, 2, 1, test_prng());
    CHECK_OK(cu_check(porep_synth, &t, NULL));
    check_inputs(&t);
    ch = &t.ch[0];

    expect_unsat(&t, &t.w.replica_id);
    expect_unsat(&t, &t.w.comm_r);
    expect_unsat(&t, &t.w.comm_c);
    expect_unsat(&t, &ch->data_leaf);
    expect_unsat(&t, &t.cols[t.drg[0][4]][1]); /* a DRG parent's layer-2 label */
    expect_unsat(&t, &t.cols[t.exp[0][7]][0]); /* an expander parent's layer-1 label */
    expect_unsat(&t, &t.cols[t.exp[0][2]][1]); /* its layer-2 label: only in its column hash */
    expect_unsat(&t, &t.sib[0][0][5]);         /* TreeD sibling */
    expect_unsat(&t, &t.sib[0][1][8]);         /* TreeRLast sibling (sub level) */
    expect_unsat(&t, &t.sib[0][2][9]);         /* TreeC sibling of the challenged column */
    expect_unsat(&t, &t.sib[0][16][2]);        /* TreeC sibling of an expander column */

    /* another challenge node: its labels no longer match the column */
    ch->node ^= 1;
    CHECK_ERR(cu_check(porep_synth, &t, NULL), CUZK_E_UNSAT);
    ch->node ^= 1;
    /* a parent position (top-tree level) */
    t.idx[0][4][2] ^= 1;
    CHECK_ERR(cu_check(porep_synth, &t, NULL), CUZK_E_UNSAT);
    t.idx[0][4][2] ^= 1;
    CHECK_OK(cu_check(porep_synth, &t, NULL));

    /* bad data is E_INVAL (no abort): a node outside the sector, a position >= arity */
    ch->node = 64;
    CHECK_ERR(cu_check(porep_synth, &t, NULL), CUZK_E_INVAL);
    ch->node = t.challenges[0];
    t.idx[0][4][1] = 4; /* the sub level has arity 4 */
    CHECK_ERR(cu_check(porep_synth, &t, NULL), CUZK_E_INVAL);
    toy_free(&t);
}

/* The 2 KiB partition with its two challenges on a pool: identical to sequential synthesis
 * (prover and witness); a tampered value in the last challenge fails at the same constraint
 * (porep_tamper covers the kinds of tampering); wrong challenge counts are an error, never a
 * different circuit. */
TEST(porep_2kib_pool)
{
    static toy t;
    cz_pool *pool;
    cs_counts_t each, bad;
    cs_t *cs;

    CHECK_OK(cz_pool_new(&pool, 1, "test-porep", NULL));
    toy_build(&t, 64, 8, 0, 0, 2, 2, test_prng());
    check_pool_equals_sequential(&t, pool, true);

    expect_unsat_pool(&t, &t.cols[t.drg[1][4]][1], pool); /* a last-challenge parent label */

    CHECK_OK(circ_porep_challenge_counts(&each, &t.cfg, NULL));
    for (int k = 0; k < 4; k++) {
        bad = each;
        if (k == 0) {
            bad.num_aux++; /* children fall short of it */
        } else if (k == 1) {
            bad.num_aux--; /* children outgrow it */
        } else if (k == 2) {
            bad.num_inputs++;
        } else {
            bad.num_constraints--;
        }
        /* the prover only for the constraint count, which only it places */
        CHECK_OK(k == 3 ? cs_new_prover(&cs, NULL, NULL) : cs_new_witness(&cs, NULL, NULL));
        circ_porep_synth_pool(cs, &t.cfg, &t.w, pool, &bad);
        CHECK_ERR(cs_finish(cs, NULL), CUZK_E_INVAL);
        cs_free(cs);
    }
    toy_free(&t);
    cz_pool_free(pool);
}

/* A sub/top-tree partition of three challenges (more than the pool's two threads). */
TEST(porep_three_challenges_pool)
{
    static toy t;
    cz_pool *pool;

    CHECK_OK(cz_pool_new(&pool, 1, "test-porep", NULL));
    toy_build(&t, 64, 8, 4, 2, 2, 3, test_prng());
    check_pool_equals_sequential(&t, pool, false);
    toy_free(&t);
    cz_pool_free(pool);
}

/* The binary-base reference shape (poseidon_base_2): insert_2 and 2-ary Poseidon everywhere. */
TEST(porep_binary_tree_honest)
{
    static toy t;

    toy_build(&t, 8, 2, 0, 0, 2, 1, test_prng());
    CHECK_OK(cu_check(porep_synth, &t, NULL));
    check_inputs(&t);
    expect_unsat(&t, &t.cols[t.drg[0][0]][0]);
    toy_free(&t);
}

/* Blank and honest synthesis have the same shape (the prover never sees another circuit). */
TEST(porep_blank_equals_witness_shape)
{
    static toy t;
    char d1[65], d2[65];
    cs_counts_t a, b;
    circ_porep_cfg_t cfg;

    toy_build(&t, 16, 8, 2, 0, 2, 1, test_prng());
    cfg = t.cfg;
    cu_counts(&a, porep_synth, &t);
    cu_digest_hex(d1, porep_synth, &t);
    t.w.challenges = NULL;
    {
        /* blank: NULL witness */
        cs_t *cs = NULL;
        CHECK_OK(cs_new_counter(&cs, NULL));
        circ_porep_synth(cs, &cfg, NULL);
        cs_get_counts(cs, &b);
        CHECK_OK(cs_finish(cs, NULL));
        cs_free(cs);
        CHECK_OK(cs_new_digest(&cs, &b, NULL));
        circ_porep_synth(cs, &cfg, NULL);
        CHECK_OK(cs_finish(cs, NULL));
        CHECK(cs_digest_hex(cs, d2));
        cs_free(cs);
    }
    CHECK(memcmp(&a, &b, sizeof(a)) == 0);
    CHECK_STR_EQ(d1, d2);
    toy_free(&t);
}
#endif

#if CIRC_SLOW_TESTS
/* 11 layers (the 32/64 GiB layer count): the arity-11 column hash and ten layers of 14 parents
 * (6 DRG of the layer, 8 expander of the previous one). */
TEST(porep_11_layers_honest)
{
    static toy t;
    const char *path = NULL;

    toy_build(&t, 8, 8, 0, 0, 11, 1, test_prng());
    CHECK_MSG(cu_check(porep_synth, &t, &path) == CUZK_OK, "unsat at %s", path);
    check_inputs(&t);
    expect_unsat(&t, &t.cols[t.exp[0][3]][9]); /* an expander parent's layer-10 label */
    toy_free(&t);
}

/* 11 layers, two challenges on a pool: identical to sequential synthesis. */
TEST(porep_11_layers_pool)
{
    static toy t;
    cz_pool *pool;

    CHECK_OK(cz_pool_new(&pool, 1, "test-porep", NULL));
    toy_build(&t, 8, 8, 0, 0, 11, 2, test_prng());
    check_pool_equals_sequential(&t, pool, true);
    toy_free(&t);
    cz_pool_free(pool);
}
#endif
