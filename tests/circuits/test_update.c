/* test_update.c - SnapDeals circuits with honest witnesses built natively (storage-proofs-update
 * vanilla.rs encoding): TreeR old over random labels, TreeD new over random data (binary SHA-256
 * for the standard variant, Poseidon of TreeR's shape for the Poseidon variant), the new
 * replica labels_r_new = labels_r_old + labels_d_new * rho(top h bits of the node) and TreeR
 * new over them, comm_r = Poseidon2(comm_c, root). Challenges come from circ_update_challenges
 * (the native derivation) and must be the ones the circuit derives itself; apex leaves are the
 * TreeD nodes of partition k at the apex row. Checked: satisfiability, public inputs, tamper.
 */
#include "circ_util.h"

#include "common/alloc.h"
#include "hash/poseidon.h"

typedef struct upd {
    circ_update_cfg_t cfg;
    uint32_t k, h;
    fr_t *r_old, *d_new, *r_new; /* leaves */
    cu_tree_t tree_r_old, tree_r_new, tree_d;
    fr_t comm_c, comm_r_old, comm_r_new, comm_d_new;
    uint64_t *challenges;
    fr_t *sib; /* 3 paths of up to 128 siblings per challenge */
    circ_update_challenge_t *ch;
    fr_t apex[128];
    circ_update_witness_t w;
} upd;

static void comm_r(fr_t *out, const fr_t *comm_c, const fr_t *root)
{
    fr_t in[2] = {*comm_c, *root};
    poseidon_hash(out, in, 2, poseidon_params(2));
}

/* The siblings of leaf i in a tree, in the circuit's order. */
static void path_of(const cu_tree_t *t, uint64_t i, fr_t *sib)
{
    uint32_t idx[64];
    cu_tree_path(t, i, sib, idx);
}

static void upd_build(upd *u, uint64_t nodes, bool poseidon, uint32_t k, uint32_t h, cz_prng *g)
{
    unsigned log_n = 0;
    fr_t phi;

    memset(u, 0, sizeof(*u));
    CHECK(circ_update_cfg_init(&u->cfg, nodes, poseidon));
    while ((UINT64_C(1) << log_n) < nodes) {
        log_n++;
    }
    u->k = k;
    u->h = h;
    u->r_old = cz_malloc(nodes * sizeof(fr_t));
    u->d_new = cz_malloc(nodes * sizeof(fr_t));
    u->r_new = cz_malloc(nodes * sizeof(fr_t));
    CHECK(u->r_old && u->d_new && u->r_new);
    for (uint64_t i = 0; i < nodes; i++) {
        cu_rand_fr(&u->r_old[i], g);
        cu_rand_fr254(&u->d_new[i], g);
    }
    cu_tree_build(&u->tree_r_old, &u->cfg.tree_r, false, u->r_old);
    cu_rand_fr(&u->comm_c, g);
    comm_r(&u->comm_r_old, &u->comm_c, cu_tree_root(&u->tree_r_old));
    if (poseidon) {
        cu_tree_build(&u->tree_d, &u->cfg.tree_r, false, u->d_new);
    } else {
        cu_tree_build(&u->tree_d, &u->cfg.tree_d, true, u->d_new);
    }
    u->comm_d_new = *cu_tree_root(&u->tree_d);
    circ_update_phi(&phi, &u->comm_d_new, &u->comm_r_old);
    for (uint64_t i = 0; i < nodes; i++) {
        fr_t rho, t;
        circ_update_rho(&rho, &phi, i >> (log_n - h));
        fr_mul(&t, &u->d_new[i], &rho);
        fr_add(&u->r_new[i], &u->r_old[i], &t);
    }
    cu_tree_build(&u->tree_r_new, &u->cfg.tree_r, false, u->r_new);
    comm_r(&u->comm_r_new, &u->comm_c, cu_tree_root(&u->tree_r_new));

    size_t C = u->cfg.challenges;
    u->challenges = cz_malloc(C * sizeof(uint64_t));
    u->sib = cz_malloc(C * 3 * 128 * sizeof(fr_t));
    u->ch = cz_calloc(C, sizeof(*u->ch));
    CHECK(u->challenges && u->sib && u->ch);
    circ_update_challenges(u->challenges, &u->cfg, &u->comm_r_new, k);
    for (size_t c = 0; c < C; c++) {
        uint64_t x = u->challenges[c];
        fr_t *s = u->sib + c * 3 * 128;
        CHECK(x < nodes);
        CHECK(u->cfg.poseidon || x >> (log_n - u->cfg.partition_bits) == k);
        u->ch[c].leaf_r_old = u->r_old[x];
        u->ch[c].leaf_d_new = u->d_new[x];
        path_of(&u->tree_r_old, x, s);
        path_of(&u->tree_d, x, s + 128);
        path_of(&u->tree_r_new, x, s + 256);
        u->ch[c].path_r_old = s;
        u->ch[c].path_d_new = s + 128;
        u->ch[c].path_r_new = s + 256;
    }
    if (!poseidon) {
        /* apex leaves: TreeD row `start` (levels above the leaves), partition k's slice */
        size_t start = u->cfg.challenge_bits - u->cfg.partition_bits - u->cfg.apex_bits;
        CHECK(u->tree_d.len[start] == (size_t)u->cfg.partitions * u->cfg.apex_leaves);
        memcpy(u->apex, &u->tree_d.rows[start][(size_t)k * u->cfg.apex_leaves],
               u->cfg.apex_leaves * sizeof(fr_t));
    }
    u->w.k = k;
    u->w.h = h;
    u->w.comm_r_old = u->comm_r_old;
    u->w.comm_d_new = u->comm_d_new;
    u->w.comm_r_new = u->comm_r_new;
    u->w.comm_c = u->comm_c;
    u->w.root_r_old = *cu_tree_root(&u->tree_r_old);
    u->w.root_r_new = *cu_tree_root(&u->tree_r_new);
    u->w.apex_leaves = u->apex;
    u->w.challenges = u->ch;
}

static void upd_free(upd *u)
{
    cu_tree_free(&u->tree_r_old);
    cu_tree_free(&u->tree_r_new);
    cu_tree_free(&u->tree_d);
    cz_free(u->r_old);
    cz_free(u->d_new);
    cz_free(u->r_new);
    cz_free(u->challenges);
    cz_free(u->sib);
    cz_free(u->ch);
}

static void upd_synth(cs_t *cs, void *ctx)
{
    upd *u = ctx;
    circ_update_synth(cs, &u->cfg, &u->w);
}

static void check_honest(upd *u)
{
    fr_t expect[4], *got;
    size_t n;
    const char *path = NULL;

    CHECK_MSG(cu_check(upd_synth, u, &path) == CUZK_OK, "unsat at %s", path);
    CHECK_OK(circ_update_public_inputs(expect, &u->cfg, u->k, u->h, &u->comm_r_old, &u->comm_d_new,
                                       &u->comm_r_new, NULL));
    got = cu_inputs(upd_synth, u, &n);
    CHECK_EQ_U64(n, 4);
    CHECK_MEM_EQ(got, expect, sizeof(expect));
    cz_free(got);
}

#if !CIRC_SLOW_TESTS
static void expect_unsat(upd *u, fr_t *v)
{
    fr_t saved = *v;

    fr_add(v, v, &FR_ONE);
    CHECK_ERR(cu_check(upd_synth, u, NULL), CUZK_E_UNSAT);
    *v = saved;
}

TEST(update_1kib_honest_and_tamper)
{
    static upd u;

    upd_build(&u, 32, false, 0, 1, test_prng());
    CHECK_EQ_U64(u.cfg.apex_leaves, 8);
    check_honest(&u);
    expect_unsat(&u, &u.w.comm_d_new);
    expect_unsat(&u, &u.w.comm_r_new);
    expect_unsat(&u, &u.apex[5]);
    expect_unsat(&u, &u.ch[9].leaf_d_new);
    expect_unsat(&u, &u.sib[2 * 384 + 4]);       /* path_r_old of challenge 2 */
    expect_unsat(&u, &u.sib[7 * 384 + 128 + 1]); /* path_d_new of challenge 7 */
    expect_unsat(&u, &u.sib[0 * 384 + 256 + 7]); /* path_r_new (sub level) of challenge 0 */
    /* h must be one of hs; k below the partition count */
    u.w.h = 2;
    CHECK_ERR(cu_check(upd_synth, &u, NULL), CUZK_E_INVAL);
    u.w.h = 1;
    u.w.k = 1;
    CHECK_ERR(cu_check(upd_synth, &u, NULL), CUZK_E_INVAL);
    u.w.k = 0;
    CHECK_OK(cu_check(upd_synth, &u, NULL));
    upd_free(&u);
}

/* 16 KiB: two partitions (a partition bit in every challenge, a one-level partition path,
 * 128 apex leaves); the second partition. */
TEST(update_16kib_partition_1)
{
    static upd u;

    upd_build(&u, 512, false, 1, 1, test_prng());
    CHECK_EQ_U64(u.cfg.partitions, 2);
    CHECK_EQ_U64(u.cfg.apex_leaves, 128);
    check_honest(&u);
    expect_unsat(&u, &u.sib[0 * 384 + 128 + 8]); /* the partition path sibling (TreeD top) */
    upd_free(&u);
}

TEST(update_poseidon_honest_and_tamper)
{
    static upd u;

    upd_build(&u, 256, true, 0, 1, test_prng()); /* 8 KiB, (8,4,0) */
    CHECK_EQ_U64(u.cfg.challenges, 10);
    check_honest(&u);
    expect_unsat(&u, &u.w.comm_d_new);
    expect_unsat(&u, &u.ch[4].leaf_d_new);
    expect_unsat(&u, &u.sib[6 * 384 + 128 + 3]); /* path_d_new */
    expect_unsat(&u, &u.sib[1 * 384 + 256 + 0]); /* path_r_new */
    upd_free(&u);
}

/* The same with the challenges on a pool (circ_update_synth_pool). */
static cz_pool *g_pool;
static void upd_synth_par(cs_t *cs, void *ctx)
{
    upd *u = ctx;
    circ_update_synth_pool(cs, &u->cfg, &u->w, g_pool);
}

/* Challenges on a pool (fork children of exact size after challenge 0) give exactly the
 * sequential circuit and values, for both variants; the checker still finds a fault in a late
 * challenge; the digest backend, which cannot fork, synthesizes sequentially. */
TEST(update_parallel_equals_sequential)
{
    static upd u;
    char d1[65], d2[65];
    const char *path = NULL;

    CHECK_OK(cz_pool_new(&g_pool, 2, "circ-test", NULL));
    for (int variant = 0; variant < 2; variant++) {
        if (variant == 0) {
            upd_build(&u, 32, false, 0, 1, test_prng()); /* 1 KiB standard */
        } else {
            upd_build(&u, 256, true, 0, 1, test_prng()); /* 8 KiB Poseidon */
        }
        cu_check_same(upd_synth, &u, upd_synth_par, &u);
        CHECK_MSG(cu_check(upd_synth_par, &u, &path) == CUZK_OK, "unsat at %s", path);
        size_t last = u.cfg.challenges - 1;
        fr_t saved = u.ch[last].leaf_d_new;
        fr_add(&u.ch[last].leaf_d_new, &u.ch[last].leaf_d_new, &FR_ONE);
        CHECK_ERR(cu_check(upd_synth_par, &u, &path), CUZK_E_UNSAT);
        CHECK_MSG(path && strstr(path, "c_index=") != NULL, "%s", path ? path : "(none)");
        u.ch[last].leaf_d_new = saved;
        cu_digest_hex(d1, upd_synth, &u);
        cu_digest_hex(d2, upd_synth_par, &u);
        CHECK_STR_EQ(d1, d2);
        upd_free(&u);
    }
    cz_pool_free(g_pool);
    g_pool = NULL;
}

/* The native challenge derivation agrees with the circuit's: a challenge proof for another node
 * (an honest path, but not the derived challenge) fails. */
TEST(update_wrong_challenge_rejected)
{
    static upd u;
    uint64_t x;

    upd_build(&u, 32, true, 0, 1, test_prng());
    CHECK_OK(cu_check(upd_synth, &u, NULL));
    x = (u.challenges[0] + 1) % 32;
    u.ch[0].leaf_r_old = u.r_old[x];
    u.ch[0].leaf_d_new = u.d_new[x];
    path_of(&u.tree_r_old, x, u.sib);
    path_of(&u.tree_d, x, u.sib + 128);
    path_of(&u.tree_r_new, x, u.sib + 256);
    CHECK_ERR(cu_check(upd_synth, &u, NULL), CUZK_E_UNSAT);
    upd_free(&u);
}

/* Public input encoding (circuit.rs PublicInputs::new): k | h_select << partition_bits. */
TEST(update_public_inputs)
{
    circ_update_cfg_t cfg;
    fr_t out[4], a, b, c, want;

    fr_from_u64(&a, 1);
    fr_from_u64(&b, 2);
    fr_from_u64(&c, 3);
    CHECK(circ_update_cfg_init(&cfg, UINT64_C(1) << 30, false));
    CHECK_EQ_U64(cfg.partitions, 16);
    CHECK_OK(circ_update_public_inputs(out, &cfg, 5, 10, &a, &b, &c, NULL));
    fr_from_u64(&want, 5 | (8 << 4));
    CHECK(fr_eq(&out[0], &want) && fr_eq(&out[1], &a) && fr_eq(&out[2], &b) && fr_eq(&out[3], &c));
    CHECK_ERR(circ_update_public_inputs(out, &cfg, 16, 10, &a, &b, &c, NULL), CUZK_E_INVAL);
    CHECK_ERR(circ_update_public_inputs(out, &cfg, 0, 6, &a, &b, &c, NULL), CUZK_E_INVAL);
    CHECK(circ_update_cfg_init(&cfg, UINT64_C(1) << 30, true));
    CHECK_EQ_U64(cfg.partitions, 1);
    CHECK_EQ_U64(cfg.challenges, 16 * 86);
    CHECK_OK(circ_update_public_inputs(out, &cfg, 0, 12, &a, &b, &c, NULL));
    fr_from_u64(&want, 32);
    CHECK(fr_eq(&out[0], &want));
    CHECK(!circ_update_cfg_init(&cfg, UINT64_C(1) << 25, false)); /* 1 GiB */
}
#endif

#if CIRC_SLOW_TESTS
/* A production size of the Poseidon variant, with h = 10 of hs = [7..12]: the high-bits
 * selection of rho with h_select = 8. 8 MiB: 40 challenges over one partition. */
TEST(update_poseidon_8mib_h10)
{
    static upd u;
    uint64_t hsel;

    upd_build(&u, UINT64_C(1) << 18, true, 0, 10, test_prng());
    CHECK(circ_update_h_select(&u.cfg, 10, &hsel) && hsel == 8);
    CHECK_EQ_U64(u.cfg.challenges, 40);
    check_honest(&u);
    /* the encoding with another h no longer matches */
    u.w.h = 9;
    CHECK_ERR(cu_check(upd_synth, &u, NULL), CUZK_E_UNSAT);
    upd_free(&u);
}
#endif
