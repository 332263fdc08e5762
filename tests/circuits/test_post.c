/* test_post.c - fallback PoSt: a real 32 GiB WindowPoSt vanilla proof from rust-fil-proofs
 * (Curio's golden file, vectors/circuits/README.md) satisfies the circuit and yields the
 * verifier's public inputs; honest witnesses built natively over small Poseidon trees satisfy
 * Window and Winning circuits, including padded partitions; any tampered value is rejected;
 * parallel synthesis gives exactly the sequential assignment.
 */
#include "circ_util.h"

#include <stdio.h>

#include "common/alloc.h"
#include "hash/poseidon.h"

/* ------------------------------------------------------------------------------------------
 * Leaf challenges: Curio golden (V1_2 index = n), randomness 0, sector 1, 32 GiB.
 * ---------------------------------------------------------------------------------------- */

static const uint64_t GOLDEN_LEAVES[10] = {707914199, 439148358,  967788220, 548708700,  1061661429,
                                           6202012,   1055504637, 389535735, 1000069704, 600088878};

TEST(post_leaf_challenge_kat)
{
    uint8_t zero[32] = {0};

    for (uint64_t n = 0; n < 10; n++) {
        CHECK_EQ_U64(circ_post_leaf_challenge(zero, 1, n, 32 * GIB), GOLDEN_LEAVES[n]);
    }
}

/* ------------------------------------------------------------------------------------------
 * The golden vanilla proof (spec vanilla-proofs.md 2.2): u64 sector id, comm_r, u64 sectors
 * (1), u64 proofs (10), each {u32 variant (1 = Sub), base path, sub path, root, leaf}, comm_c,
 * comm_r_last. A path is u64 n, then n x {u64 k, k x [32], u64 index}.
 * ---------------------------------------------------------------------------------------- */

typedef struct golden {
    uint64_t sector_id;
    fr_t comm_r, comm_c, comm_r_last;
    fr_t leaves[10];
    fr_t sib[10][10 * 7];
    uint32_t idx[10][10];
    circ_path_t paths[10];
} golden;

typedef struct rd {
    const uint8_t *p;
    size_t left;
} rd;

static uint64_t rd_u(rd *r, unsigned bytes)
{
    uint64_t v = 0;
    CHECK(r->left >= bytes);
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint64_t)r->p[i] << (8 * i);
    }
    r->p += bytes;
    r->left -= bytes;
    return v;
}

static void rd_fr(rd *r, fr_t *out)
{
    CHECK(r->left >= 32);
    CHECK_OK(fr_from_bytes(out, r->p));
    r->p += 32;
    r->left -= 32;
}

/* One InclusionPath of `levels` elements of 7 hashes; appends to sib / idx. */
static void rd_path(rd *r, size_t levels, fr_t *sib, uint32_t *idx, size_t *ns, size_t *ni)
{
    CHECK_EQ_U64(rd_u(r, 8), levels);
    for (size_t l = 0; l < levels; l++) {
        CHECK_EQ_U64(rd_u(r, 8), 7);
        for (size_t k = 0; k < 7; k++) {
            rd_fr(r, &sib[(*ns)++]);
        }
        idx[(*ni)++] = (uint32_t)rd_u(r, 8);
    }
}

static void load_golden(golden *g)
{
    static uint8_t *buf;
    static size_t len;
    rd r;
    fr_t root;

    /* Curio's golden file lib/proof/testgolden/post.vproof, from the shared data directory. */
    if (!buf) {
        buf = test_shared_load("vectors/curio/post.vproof", &len);
    }
    r.left = len;
    CHECK_EQ_U64(r.left, 24960);
    r.p = buf;
    g->sector_id = rd_u(&r, 8);
    rd_fr(&r, &g->comm_r);
    CHECK_EQ_U64(rd_u(&r, 8), 1);
    CHECK_EQ_U64(rd_u(&r, 8), 10);
    for (size_t i = 0; i < 10; i++) {
        size_t ns = 0, ni = 0;
        CHECK_EQ_U64(rd_u(&r, 4), 1); /* Sub */
        rd_path(&r, 9, g->sib[i], g->idx[i], &ns, &ni);
        rd_path(&r, 1, g->sib[i], g->idx[i], &ns, &ni);
        rd_fr(&r, &root);
        rd_fr(&r, &g->leaves[i]);
        g->paths[i].siblings = g->sib[i];
        g->paths[i].index = g->idx[i];
    }
    rd_fr(&r, &g->comm_c);
    rd_fr(&r, &g->comm_r_last);
    CHECK_EQ_U64(r.left, 0);
    CHECK(fr_eq(&root, &g->comm_r_last));
}

typedef struct post_ctx {
    circ_post_cfg_t cfg;
    const circ_post_sector_t *sectors;
    cz_pool *pool;
} post_ctx;

static void post_synth(cs_t *cs, void *ctx)
{
    post_ctx *c = ctx;
    circ_post_synth(cs, &c->cfg, c->sectors, c->pool);
}

TEST(post_golden_32gib_sector)
{
    static golden g;
    uint8_t zero[32] = {0};
    circ_post_sector_t s;
    circ_post_pub_sector_t pub;
    post_ctx c = {.pool = NULL};
    fr_t expect[11], *got;
    size_t n;
    const char *path;

    load_golden(&g);
    CHECK_EQ_U64(g.sector_id, 1);
    s.comm_r = g.comm_r;
    s.comm_c = g.comm_c;
    s.comm_r_last = g.comm_r_last;
    s.leaves = g.leaves;
    s.paths = g.paths;
    c.sectors = &s;
    /* the 32 GiB circuit with one sector of the partition */
    CHECK(circ_post_cfg_init(&c.cfg, 32 * GIB, 8, 8, 0, 1, 10));
    for (size_t i = 0; i < 10; i++) {
        CHECK_EQ_U64(circ_path_leaf_index(&c.cfg.tree, &g.paths[i]), GOLDEN_LEAVES[i]);
    }
    CHECK_OK(cu_check(post_synth, &c, &path));

    pub.id = g.sector_id;
    pub.comm_r = g.comm_r;
    CHECK_OK(circ_post_public_inputs(expect, &c.cfg, CIRC_API_V1_2_0, zero, &pub, 1, 0, NULL));
    got = cu_inputs(post_synth, &c, &n);
    CHECK_EQ_U64(n, 11);
    CHECK_MEM_EQ(got, expect, sizeof(expect));
    cz_free(got);

    /* tampering with any witness value breaks it */
    fr_add(&g.sib[3][17], &g.sib[3][17], &FR_ONE);
    CHECK_ERR(cu_check(post_synth, &c, &path), CUZK_E_UNSAT);
    fr_sub(&g.sib[3][17], &g.sib[3][17], &FR_ONE);
    fr_add(&g.leaves[9], &g.leaves[9], &FR_ONE);
    CHECK_ERR(cu_check(post_synth, &c, &path), CUZK_E_UNSAT);
    fr_sub(&g.leaves[9], &g.leaves[9], &FR_ONE);
    s.comm_c = g.comm_r;
    CHECK_ERR(cu_check(post_synth, &c, &path), CUZK_E_UNSAT);
    s.comm_c = g.comm_c;
    g.idx[0][9] ^= 1; /* a different sub-tree: a different root */
    CHECK_ERR(cu_check(post_synth, &c, &path), CUZK_E_UNSAT);
    g.idx[0][9] ^= 1;
    CHECK_OK(cu_check(post_synth, &c, &path));
}

/* ------------------------------------------------------------------------------------------
 * Small honest sectors built natively (Poseidon trees of the sector's shape).
 * ---------------------------------------------------------------------------------------- */

#define MAXC 66 /* challenges per sector in these tests */

typedef struct toy_sector {
    uint64_t id;
    cu_tree_t tree;
    fr_t comm_c, comm_r;
} toy_sector;

typedef struct toy_proof {
    fr_t leaves[MAXC];
    fr_t sib[MAXC][128];
    uint32_t idx[MAXC][64];
    circ_path_t paths[MAXC];
} toy_proof;

static void toy_sector_init(toy_sector *t, const circ_post_cfg_t *cfg, uint64_t id, cz_prng *g)
{
    size_t leaves = (size_t)(cfg->sector_bytes / 32);
    fr_t *v = cz_malloc(leaves * sizeof(fr_t)), in[2];

    CHECK(v);
    for (size_t i = 0; i < leaves; i++) {
        cu_rand_fr(&v[i], g);
    }
    cu_tree_build(&t->tree, &cfg->tree, false, v);
    cz_free(v);
    t->id = id;
    cu_rand_fr(&t->comm_c, g);
    in[0] = t->comm_c;
    in[1] = *cu_tree_root(&t->tree);
    poseidon_hash(&t->comm_r, in, 2, poseidon_params(2));
}

/* The vanilla proof of `sector` for `count` challenges starting at challenge index `first`
 * (a circuit sector with challenges first .. first + count - 1). */
static void toy_prove(toy_proof *p, circ_post_sector_t *out, const toy_sector *t,
                      const circ_post_cfg_t *cfg, const uint8_t rnd[32], uint64_t first,
                      size_t count)
{
    for (size_t j = 0; j < count; j++) {
        uint64_t leaf = circ_post_leaf_challenge(rnd, t->id, first + j, cfg->sector_bytes);
        p->leaves[j] = t->tree.rows[0][leaf];
        cu_tree_path(&t->tree, leaf, p->sib[j], p->idx[j]);
        p->paths[j].siblings = p->sib[j];
        p->paths[j].index = p->idx[j];
    }
    out->comm_r = t->comm_r;
    out->comm_c = t->comm_c;
    out->comm_r_last = *cu_tree_root(&t->tree);
    out->leaves = p->leaves;
    out->paths = p->paths;
}

/* Window PoSt, 2 KiB, 2 sectors per partition, 3 sectors: partition 1 is padded. Checks both
 * API generations of challenge indices. */
TEST(post_window_honest_and_padded)
{
    static toy_sector ts[3];
    static toy_proof tp[2];
    circ_post_sector_t cs_sec[2];
    circ_post_pub_sector_t pub[3];
    post_ctx c = {.pool = NULL};
    uint8_t rnd[32];
    cz_prng *g = test_prng();

    CHECK(circ_window_post_cfg(&c.cfg, 2048, 0));
    CHECK_EQ_U64(c.cfg.sector_count, 2);
    cz_prng_bytes(g, rnd, sizeof(rnd));
    rnd[31] &= 0x3f;
    for (size_t i = 0; i < 3; i++) {
        toy_sector_init(&ts[i], &c.cfg, 100 + 7 * i, g);
        pub[i].id = ts[i].id;
        pub[i].comm_r = ts[i].comm_r;
    }
    for (unsigned api = CIRC_API_V1_0_0; api <= CIRC_API_V1_2_0; api++) {
        for (size_t k = 0; k < 2; k++) {
            fr_t expect[22], *got;
            size_t n;

            for (size_t i = 0; i < 2; i++) {
                size_t si = 2 * k + i < 3 ? 2 * k + i : 2; /* pad with the last sector */
                uint64_t first = api == CIRC_API_V1_2_0 ? 0 : (uint64_t)si * 10;
                toy_prove(&tp[i], &cs_sec[i], &ts[si], &c.cfg, rnd, first, 10);
            }
            c.sectors = cs_sec;
            CHECK_OK(cu_check(post_synth, &c, NULL));
            CHECK_OK(circ_post_public_inputs(expect, &c.cfg, (circ_api)api, rnd, pub, 3, k, NULL));
            got = cu_inputs(post_synth, &c, &n);
            CHECK_EQ_U64(n, 22);
            CHECK_MEM_EQ(got, expect, sizeof(expect));
            cz_free(got);
        }
        /* no partition 2 */
        fr_t dummy[22];
        CHECK_ERR(circ_post_public_inputs(dummy, &c.cfg, (circ_api)api, rnd, pub, 3, 2, NULL),
                  CUZK_E_INVAL);
    }
    for (size_t i = 0; i < 3; i++) {
        cu_tree_free(&ts[i].tree);
    }
}

/* Winning PoSt: one sector, 66 circuit sectors of one challenge each (challenge index i). */
TEST(post_winning_honest)
{
    static toy_sector t;
    static toy_proof tp[66];
    circ_post_sector_t sec[66];
    circ_post_pub_sector_t pub[66];
    post_ctx c = {.pool = NULL};
    uint8_t rnd[32];
    fr_t expect[132], *got;
    size_t n;
    cz_prng *g = test_prng();

    CHECK(circ_winning_post_cfg(&c.cfg, 2048));
    cz_prng_bytes(g, rnd, sizeof(rnd));
    rnd[31] &= 0x3f;
    toy_sector_init(&t, &c.cfg, 4242, g);
    for (size_t i = 0; i < 66; i++) {
        toy_prove(&tp[i], &sec[i], &t, &c.cfg, rnd, i, 1);
        pub[i].id = t.id;
        pub[i].comm_r = t.comm_r;
    }
    c.sectors = sec;
    CHECK_OK(cu_check(post_synth, &c, NULL));
    CHECK_OK(circ_post_public_inputs(expect, &c.cfg, CIRC_API_V1_0_0, rnd, pub, 66, 0, NULL));
    got = cu_inputs(post_synth, &c, &n);
    CHECK_EQ_U64(n, 132);
    CHECK_MEM_EQ(got, expect, sizeof(expect));
    cz_free(got);
    cu_tree_free(&t.tree);
}

/* Tampering: each kind of witness value, and a valid path for the wrong leaf (satisfies the
 * constraints but changes the public inputs, which the verifier then rejects). */
TEST(post_tamper)
{
    static toy_sector ts[2];
    static toy_proof tp[2];
    circ_post_sector_t sec[2];
    circ_post_pub_sector_t pub[2];
    post_ctx c = {.pool = NULL};
    uint8_t rnd[32];
    fr_t expect[10], *got, saved;
    size_t n;
    cz_prng *g = test_prng();

    CHECK(circ_post_cfg_init(&c.cfg, 4096, 8, 2, 0, 2, 4)); /* the 4 KiB sub-tree shape */
    cz_prng_bytes(g, rnd, sizeof(rnd));
    rnd[31] &= 0x3f;
    for (size_t i = 0; i < 2; i++) {
        toy_sector_init(&ts[i], &c.cfg, 9 + i, g);
        toy_prove(&tp[i], &sec[i], &ts[i], &c.cfg, rnd, i * 4, 4);
        pub[i].id = ts[i].id;
        pub[i].comm_r = ts[i].comm_r;
    }
    c.sectors = sec;
    CHECK_OK(cu_check(post_synth, &c, NULL));
    CHECK_OK(circ_post_public_inputs(expect, &c.cfg, CIRC_API_V1_1_0, rnd, pub, 2, 0, NULL));

    fr_t *targets[] = {&sec[1].comm_r,   &sec[1].comm_c,   &sec[0].comm_r_last,
                       &tp[1].leaves[2], &tp[0].sib[3][0], &tp[0].sib[1][7]};
    for (size_t i = 0; i < ARRAY_LEN(targets); i++) {
        const char *path;
        saved = *targets[i];
        fr_add(targets[i], targets[i], &FR_ONE);
        CHECK_ERR(cu_check(post_synth, &c, &path), CUZK_E_UNSAT);
        *targets[i] = saved;
    }
    /* a position changed: in the base tree, and at the sub-tree level */
    tp[1].idx[0][1] ^= 1;
    CHECK_ERR(cu_check(post_synth, &c, NULL), CUZK_E_UNSAT);
    tp[1].idx[0][1] ^= 1;
    tp[1].idx[3][2] ^= 1;
    CHECK_ERR(cu_check(post_synth, &c, NULL), CUZK_E_UNSAT);
    tp[1].idx[3][2] ^= 1;
    CHECK_OK(cu_check(post_synth, &c, NULL));

    /* an honest proof of another leaf: satisfied, but its inputs are not the verifier's */
    uint64_t other = (circ_path_leaf_index(&c.cfg.tree, &tp[0].paths[0]) + 1) % 128;
    tp[0].leaves[0] = ts[0].tree.rows[0][other];
    cu_tree_path(&ts[0].tree, other, tp[0].sib[0], tp[0].idx[0]);
    CHECK_OK(cu_check(post_synth, &c, NULL));
    got = cu_inputs(post_synth, &c, &n);
    CHECK_EQ_U64(n, 10);
    CHECK(memcmp(got, expect, sizeof(expect)) != 0);
    CHECK(memcmp(got + 2, expect + 2, sizeof(expect) - 2 * sizeof(fr_t)) == 0);
    cz_free(got);

    /* a path that does not fit the shape is bad data: a sticky E_INVAL, no abort */
    tp[0].idx[0][2] = 2; /* the sub level has arity 2 */
    CHECK_ERR(cu_check(post_synth, &c, NULL), CUZK_E_INVAL);
    for (size_t i = 0; i < 2; i++) {
        cu_tree_free(&ts[i].tree);
    }
}

/* Parallel synthesis over a pool equals sequential synthesis, for every extendable backend. */
TEST(post_parallel_equals_sequential)
{
    static toy_sector ts[5];
    static toy_proof tp[5];
    circ_post_sector_t sec[5];
    post_ctx c;
    uint8_t rnd[32];
    cz_pool *pool = NULL;
    cz_prng *g = test_prng();

    CHECK_OK(cz_pool_new(&pool, 2, "circ-test", NULL));
    CHECK(circ_post_cfg_init(&c.cfg, 2048, 8, 0, 0, 5, 3));
    cz_prng_bytes(g, rnd, sizeof(rnd));
    for (size_t i = 0; i < 5; i++) {
        toy_sector_init(&ts[i], &c.cfg, i, g);
        toy_prove(&tp[i], &sec[i], &ts[i], &c.cfg, rnd, 3 * i, 3);
    }
    c.sectors = sec;
    post_ctx cseq = c;
    cseq.pool = NULL;
    c.pool = pool;
    cu_check_same(post_synth, &cseq, post_synth, &c);

    /* the checker finds a fault in a later chunk through the pool too */
    CHECK_OK(cu_check(post_synth, &c, NULL));
    fr_add(&tp[4].sib[2][3], &tp[4].sib[2][3], &FR_ONE);
    CHECK_ERR(cu_check(post_synth, &c, NULL), CUZK_E_UNSAT);

    /* the digest backend cannot be extended: it falls back to sequential synthesis */
    char d1[65], d2[65];
    c.pool = NULL;
    cu_digest_hex(d1, post_synth, &c);
    c.pool = pool;
    cu_digest_hex(d2, post_synth, &c);
    CHECK_STR_EQ(d1, d2);
    for (size_t i = 0; i < 5; i++) {
        cu_tree_free(&ts[i].tree);
    }
    cz_pool_free(pool);
}
