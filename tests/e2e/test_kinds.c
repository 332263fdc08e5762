/* test_kinds.c - the engine's Filecoin proof-kind handlers (src/kinds/) without the
 * daemon and without parameters: 2 KiB sectors are sealed in-process with the seal library,
 * their vanilla proofs are wrapped in requests exactly as Curio sends them (vanilla-proofs.md
 * 4.4), and each handler must
 *   - plan the production circuit: circuit id, partitions, the official parameter file name
 *     (compared with rust-fil-proofs' parameters.json names, tests/vectors/circuits/
 *     param_names.h) and the circuit's counts (pinned in tests/circuits/test_counts.c);
 *   - synthesize every partition into a witness that satisfies the circuit (checker backend);
 *   - compute public inputs (from randomness, seeds, the graph) equal to those the synthesized
 *     witness allocates: two derivations that share no code path inside the handler;
 *   - refuse bad requests with a message naming the problem (malformed JSON, truncated or
 *     tampered bincode, a vanilla proof that does not verify, wrong counts, sizes, ids,
 *     randomness >= r), and survive random corruption of every input without aborting.
 */
#include "harness/test.h"

#include <stdatomic.h>
#include <stdlib.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "hash/hash.h"
#include "proofs/proofs.h"
#include "seal/seal.h"
#include "circuits/circuits.h"
#include "kinds/kinds.h"

#define MINER_ID 1000

static atomic_bool g_cancel;

/* ---- inputs ------------------------------------------------------------------------------ */

static void rand_fr(cz_prng *g, uint8_t out[32])
{
    cz_prng_bytes(g, out, 32);
    out[31] &= 0x3f;
}

static seal_sector *seal_one(uint32_t seal_id, uint64_t sector_id, cz_prng *g)
{
    seal_porep_config cfg;
    seal_ids ids;
    seal_sector *s = NULL;

    CHECK(seal_porep_config_for_id(&cfg, seal_id));
    seal_node *d = cz_malloc(cfg.shape.nodes * sizeof(seal_node));
    CHECK(d);
    for (uint64_t i = 0; i < cfg.shape.nodes; i++) {
        rand_fr(g, d[i].b);
    }
    memset(&ids, 0, sizeof(ids));
    seal_prover_id(ids.prover_id, MINER_ID);
    ids.sector_id = sector_id;
    rand_fr(g, ids.ticket);
    CHECK_OK(seal_sector_seal(&s, &cfg, &ids, d, NULL, NULL));
    cz_free(d);
    return s;
}

/* Everything the tests send, made once. */
typedef struct inputs {
    char *c1_json, *c1_curio;
    size_t c1_len, c1_curio_len;
    uint8_t win_rnd[32], wdp_rnd[32];
    uint8_t *winning, *window[2], *snap;
    size_t winning_len, window_len[2], snap_len;
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
} inputs;

static inputs g_in;
static bool g_made;

static const inputs *get_inputs(void)
{
    if (g_made) {
        return &g_in;
    }
    cz_prng *g = test_prng();
    seal_sector *s1 = seal_one(5, 1, g), *s2 = seal_one(5, 2, g);
    uint8_t seed[32];
    vp_c1 c1;
    seal_post_config pc;
    vp_post_proof p;

    rand_fr(g, seed);
    CHECK_OK(vp_gen_porep_c1(&c1, s1, seed, NULL, NULL));
    CHECK_OK(vp_c1_to_json(&c1, &g_in.c1_json, &g_in.c1_len, NULL));
    CHECK_OK(vp_c1_to_curio_json(&c1, 1, &g_in.c1_curio, &g_in.c1_curio_len, NULL));
    vp_c1_clear(&c1);

    rand_fr(g, g_in.win_rnd);
    CHECK(seal_post_config_for_id(&pc, 0));
    CHECK_OK(vp_gen_post(&p, s1, &pc, g_in.win_rnd, 0, NULL));
    CHECK_OK(vp_post_to_bincode(&p, &g_in.winning, &g_in.winning_len, NULL));
    vp_post_clear(&p);

    rand_fr(g, g_in.wdp_rnd);
    CHECK(seal_post_config_for_id(&pc, 10));
    for (int i = 0; i < 2; i++) {
        CHECK_OK(vp_gen_post(&p, i ? s2 : s1, &pc, g_in.wdp_rnd, (uint64_t)i, NULL));
        CHECK_OK(vp_post_to_bincode(&p, &g_in.window[i], &g_in.window_len[i], NULL));
        vp_post_clear(&p);
    }

    seal_update_config uc;
    seal_update *u = NULL;
    vp_snap_proof sp;
    CHECK(seal_update_config_for_id(&uc, 0));
    CHECK_OK(seal_update_encode(&u, s1, &uc, NULL, NULL, NULL));
    CHECK_OK(vp_gen_snap(&sp, u, 0, NULL));
    CHECK_OK(vp_snap_to_bincode(&sp, &g_in.snap, &g_in.snap_len, NULL));
    vp_snap_clear(&sp);
    const seal_update_info *ui = seal_update_get_info(u);
    memcpy(g_in.comm_r_old, ui->comm_r_old, 32);
    memcpy(g_in.comm_d_new, ui->comm_d_new, 32);
    memcpy(g_in.comm_r_new, ui->comm_r_new, 32);
    seal_update_free(u);
    seal_sector_free(s2);
    seal_sector_free(s1);
    g_made = true;
    return &g_in;
}

static eng_bytes_t bytes(const void *p, size_t n)
{
    eng_bytes_t b = {(const uint8_t *)p, n};
    return b;
}

static eng_request_t porep_req(const char *json, size_t len)
{
    eng_request_t r;
    memset(&r, 0, sizeof(r));
    r.kind = ENG_KIND_POREP;
    r.sector_size = 2048;
    r.registered_proof = 5;
    r.vanilla_proof = bytes(json, len);
    r.miner_id = MINER_ID;
    r.sector_number = 1;
    return r;
}

static eng_request_t post_req(eng_kind kind, const eng_bytes_t *vps, size_t n,
                              const uint8_t rnd[32])
{
    eng_request_t r;
    memset(&r, 0, sizeof(r));
    r.kind = kind;
    r.sector_size = 2048;
    r.registered_proof = kind == ENG_KIND_WINNING_POST ? 0 : 10;
    r.vanilla_proofs = vps;
    r.n_vanilla_proofs = n;
    r.randomness = bytes(rnd, 32);
    r.miner_id = MINER_ID;
    return r;
}

static eng_request_t snap_req(const eng_bytes_t *vps, size_t n, const inputs *in)
{
    eng_request_t r;
    memset(&r, 0, sizeof(r));
    r.kind = ENG_KIND_SNAP;
    r.sector_size = 2048;
    r.registered_proof = 0;
    r.vanilla_proofs = vps;
    r.n_vanilla_proofs = n;
    r.comm_r_old = bytes(in->comm_r_old, 32);
    r.comm_d_new = bytes(in->comm_d_new, 32);
    r.comm_r_new = bytes(in->comm_r_new, 32);
    return r;
}

/* What the engine does before any synthesis: parse, then verify_vanilla on every partition
 * (the plan is released when verification fails). */
static cuzk_err parse(const eng_kind_ops *ops, const eng_request_t *r, eng_plan_t *plan,
                      cz_diag *dg)
{
    memset(plan, 0, sizeof(*plan));
    plan->job_id = "test";
    plan->cancelled = &g_cancel;
    cz_diag_init(dg);
    CHECK_OK(eng_request_check(r, NULL));
    cuzk_err err = ops->parse(NULL, r, plan, dg);
    if (err != CUZK_OK) {
        return err;
    }
    CHECK(ops->verify_vanilla != NULL);
    err = ops->verify_vanilla(NULL, plan, 0, plan->num_partitions, dg);
    if (err != CUZK_OK) {
        ops->plan_free(NULL, plan);
    }
    return err;
}

/* Parse must fail, with `want` in the message. Returns the plan's fault_entry: 1 + the index
 * of the vanilla proof at fault, 0 when no single proof is. */
static size_t expect_fail(const eng_kind_ops *ops, const eng_request_t *r, const char *want)
{
    eng_plan_t plan;
    cz_diag dg;
    cuzk_err err = parse(ops, r, &plan, &dg);
    if (err == CUZK_OK) {
        ops->plan_free(NULL, &plan);
    }
    CHECK_MSG(err != CUZK_OK, "parse accepted a bad request (expected \"%s\")", want);
    CHECK_MSG(strstr(dg.msg, want) != NULL, "message \"%s\" lacks \"%s\"", dg.msg, want);
    return plan.fault_entry;
}

/* ---- the full check of one good request ------------------------------------------------- */

static const char *published_name(circ_kind kind)
{
    /* rust-fil-proofs parameters.json (tests/vectors/circuits/param_names.h), 2 KiB entries. */
    switch (kind) {
    case CIRC_POREP:
        return "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
               "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params";
    case CIRC_WINNING_POST:
        return "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
               "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params";
    case CIRC_WINDOW_POST:
        return "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
               "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params";
    default:
        return "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
               "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params";
    }
}

/* Counts of the 2 KiB production circuits: tests/circuits/test_counts.c production_table
 * (inputs including ONE, aux, constraints without the input constraints). */
static void expected_counts(circ_kind kind, cs_counts_t *c)
{
    static const size_t t[][3] = {
        {40, 2685673, 2687921}, /* porep */
        {133, 91674, 90750},    /* winning */
        {23, 22128, 21866},     /* window */
        {5, 1703569, 1705039},  /* snap */
    };
    c->num_inputs = t[kind][0];
    c->num_aux = t[kind][1];
    c->num_constraints = t[kind][2];
}

/* deep: also synthesize with the checker (the slow part for PoRep and SnapDeals). */
/* SHA-256 of partition k's whole assignment (m, a, b, c, inputs, aux, densities) made by
 * the prover backend (pce false) or by the pre-compiled evaluator (pce true: the shape
 * recorded by the shape backend, then the witness backend and cs_shape_eval over plan->pool),
 * as the engine's two synthesis paths make it. */
static void asg_digest(uint8_t out[SHA256_DIGEST_BYTES], const eng_kind_ops *ops,
                       const eng_plan_t *plan, size_t k, bool pce)
{
    cs_t *cs = NULL;
    cs_assignment_t asg;
    cs_shape_t shape;
    sha256_ctx_t h;
    const cs_bitvec_t *dens[3];

    memset(&shape, 0, sizeof(shape));
    if (pce) {
        CHECK_OK(cs_new_shape_recorder(&cs, &plan->shape, NULL));
        CHECK_OK(ops->synthesize(NULL, plan, k, cs, NULL));
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_shape(cs, &shape, NULL));
        cs_free(cs);
        CHECK_OK(cs_new_witness(&cs, &plan->shape, NULL));
    } else {
        CHECK_OK(cs_new_prover(&cs, &plan->shape, NULL));
    }
    CHECK_OK(ops->synthesize(NULL, plan, k, cs, NULL));
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_assignment(cs, &asg, NULL));
    cs_free(cs);
    if (pce) {
        CHECK_OK(cs_shape_eval(&shape, &asg, plan->pool, NULL));
        cs_shape_clear(&shape);
    }
    sha256_init(&h);
    sha256_update(&h, &asg.m, sizeof(asg.m));
    sha256_update(&h, asg.a, asg.m * sizeof(fr_t));
    sha256_update(&h, asg.b, asg.m * sizeof(fr_t));
    sha256_update(&h, asg.c, asg.m * sizeof(fr_t));
    sha256_update(&h, asg.inputs, asg.num_inputs * sizeof(fr_t));
    sha256_update(&h, asg.aux, asg.num_aux * sizeof(fr_t));
    dens[0] = &asg.a_aux_density;
    dens[1] = &asg.b_input_density;
    dens[2] = &asg.b_aux_density;
    for (size_t i = 0; i < 3; i++) {
        sha256_update(&h, &dens[i]->len, sizeof(dens[i]->len));
        sha256_update(&h, dens[i]->words, (dens[i]->len + 63) / 64 * sizeof(uint64_t));
    }
    sha256_final(&h, out);
    cs_assignment_clear(&asg);
}

static void prover_digest(uint8_t out[SHA256_DIGEST_BYTES], const eng_plan_t *plan, size_t k)
{
    asg_digest(out, &eng_porep_ops, plan, k, false);
}

static void check_good_ex(const eng_kind_ops *ops, const eng_request_t *r, circ_kind kind,
                          const char *circuit_id, size_t partitions, bool deep)
{
    eng_plan_t plan;
    cz_diag dg;
    char name[256];
    cs_counts_t want;

    CHECK_MSG(parse(ops, r, &plan, &dg) == CUZK_OK, "parse: %s", dg.msg);
    CHECK_STR_EQ(plan.circuit_id, circuit_id);
    CHECK_EQ_U64(plan.num_partitions, partitions);
    CHECK(ops->srs_file(NULL, plan.circuit_id, name, sizeof(name)));
    CHECK_STR_EQ(name, published_name(kind));
    expected_counts(kind, &want);
    CHECK_EQ_U64(plan.shape.num_inputs, want.num_inputs);
    CHECK_EQ_U64(plan.shape.num_aux, want.num_aux);
    CHECK_EQ_U64(plan.shape.num_constraints, want.num_constraints);
    /* At least the prover assignment: a, b, c and aux as 32-byte values. */
    CHECK(plan.partition_mem_bytes > 32 * (3 * want.num_constraints + want.num_aux));

    for (size_t k = 0; k < partitions; k++) {
        cs_t *cs = NULL;
        size_t idx = 0;

        /* The witness satisfies the circuit. */
        if (deep) {
            CHECK_OK(cs_new_checker(&cs, NULL));
            CHECK_OK(ops->synthesize(NULL, &plan, k, cs, NULL));
            cz_diag_init(&dg);
            cuzk_err err = cs_finish(cs, &dg);
            const char *path = cs_unsat_path(cs, &idx);
            CHECK_MSG(err == CUZK_OK, "%s partition %zu unsatisfied at %s (%s)", circuit_id, k,
                      path ? path : "?", dg.msg);
            cs_free(cs);
            /* The pre-compiled evaluator's assignment is the prover backend's, bit for bit
             * (so are the proofs for the same r and s). */
            uint8_t dp[SHA256_DIGEST_BYTES], dq[SHA256_DIGEST_BYTES];
            asg_digest(dp, ops, &plan, k, false);
            asg_digest(dq, ops, &plan, k, true);
            CHECK_MSG(memcmp(dp, dq, sizeof(dp)) == 0, "%s partition %zu: pce differs", circuit_id,
                      k);
        }

        /* Inputs the synthesis allocated == inputs the verifier derives. */
        cs_assignment_t asg;
        CHECK_OK(cs_new_witness(&cs, &plan.shape, NULL));
        CHECK_OK(ops->synthesize(NULL, &plan, k, cs, NULL));
        CHECK_OK(cs_finish(cs, NULL));
        CHECK_OK(cs_take_assignment(cs, &asg, NULL));
        cs_free(cs);
        CHECK_EQ_U64(asg.num_inputs, want.num_inputs);
        CHECK_EQ_U64(asg.num_aux, want.num_aux);
        size_t n = asg.num_inputs - 1;
        fr_t *x = cz_calloc(n + 1, sizeof(fr_t));
        CHECK(x);
        CHECK_OK(ops->public_inputs(NULL, &plan, k, x, n, NULL));
        CHECK_MEM_EQ(x, asg.inputs + 1, n * sizeof(fr_t));
        /* A parameter file with another input count is refused with a message. */
        cz_diag_init(&dg);
        CHECK_ERR(ops->public_inputs(NULL, &plan, k, x, n + 1, &dg), CUZK_E_INVAL);
        CHECK(strstr(dg.msg, "public inputs") != NULL);
        cz_free(x);
        cs_assignment_clear(&asg);
    }
    /* A cancelled plan stops before synthesizing. */
    {
        cs_t *cs = NULL;
        atomic_store(&g_cancel, true);
        CHECK_OK(cs_new_counter(&cs, NULL));
        CHECK_ERR(ops->synthesize(NULL, &plan, 0, cs, NULL), CUZK_E_CANCELLED);
        cs_free(cs);
        atomic_store(&g_cancel, false);
    }
    ops->plan_free(NULL, &plan);
    CHECK(plan.state == NULL);
}

static void check_good(const eng_kind_ops *ops, const eng_request_t *r, circ_kind kind,
                       const char *circuit_id, size_t partitions)
{
    check_good_ex(ops, r, kind, circuit_id, partitions, true);
}

static void check_plan(const eng_kind_ops *ops, const eng_request_t *r, circ_kind kind,
                       const char *circuit_id, size_t partitions)
{
    check_good_ex(ops, r, kind, circuit_id, partitions, false);
}

/* ---- random corruption: parse may accept or refuse, never abort -------------------------- */

static void corrupt_many(const eng_kind_ops *ops, const eng_request_t *base, uint8_t *buf,
                         size_t len, unsigned rounds)
{
    cz_prng *g = test_prng();
    uint8_t *orig = cz_malloc(len);
    unsigned refused = 0;

    CHECK(orig);
    memcpy(orig, buf, len);
    for (unsigned i = 0; i < rounds; i++) {
        eng_plan_t plan;
        cz_diag dg;
        eng_request_t r = *base;
        size_t nflip = 1 + cz_prng_below(g, 4);
        for (size_t j = 0; j < nflip; j++) {
            size_t at = (size_t)cz_prng_below(g, len);
            buf[at] ^= (uint8_t)(1u << cz_prng_below(g, 8));
        }
        if (parse(ops, &r, &plan, &dg) == CUZK_OK) {
            ops->plan_free(NULL, &plan);
        } else {
            CHECK(dg.msg[0] != '\0');
            refused++;
        }
        memcpy(buf, orig, len);
    }
    /* Nearly every flip must be caught (a flip in JSON whitespace-free numbers is not
     * always caught: leading-zero-free digits may change a value's digits only). */
    CHECK_MSG(refused * 10 >= rounds * 9, "only %u of %u corruptions refused", refused, rounds);
    cz_free(orig);
}

/* ---- tests ------------------------------------------------------------------------------- */

/* A copy of len bytes of src that a test may corrupt (freed with cz_free). */
static uint8_t *test_dup(const void *src, size_t len)
{
    uint8_t *p = cz_malloc(len ? len : 1);
    CHECK(p);
    memcpy(p, src, len);
    return p;
}

TEST(circuit_ids_and_files)
{
    char name[256];
    CHECK(eng_porep_ops.srs_file(NULL, "porep-2k", name, sizeof(name)));
    CHECK_STR_EQ(name, published_name(CIRC_POREP));
    CHECK(eng_winning_post_ops.srs_file(NULL, "winning-2k", name, sizeof(name)));
    CHECK_STR_EQ(name, published_name(CIRC_WINNING_POST));
    CHECK(eng_window_post_ops.srs_file(NULL, "wpost-2k", name, sizeof(name)));
    CHECK_STR_EQ(name, published_name(CIRC_WINDOW_POST));
    CHECK(eng_snap_ops.srs_file(NULL, "snap-2k", name, sizeof(name)));
    CHECK_STR_EQ(name, published_name(CIRC_UPDATE));
    /* 32 GiB PoRep: parameters.json's 32 GiB PoRep entry. */
    CHECK(eng_porep_ops.srs_file(NULL, "porep-32g", name, sizeof(name)));
    CHECK_STR_EQ(name, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-"
                       "sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bf"
                       "ef7820.params");
    /* Ids of another kind, non-canonical spellings, unsupported sizes. */
    CHECK(!eng_porep_ops.srs_file(NULL, "wpost-2k", name, sizeof(name)));
    CHECK(!eng_window_post_ops.srs_file(NULL, "winning-2k", name, sizeof(name)));
    CHECK(!eng_porep_ops.srs_file(NULL, "porep-2K", name, sizeof(name)));
    CHECK(!eng_porep_ops.srs_file(NULL, "porep-2048", name, sizeof(name)));
    CHECK(!eng_porep_ops.srs_file(NULL, "porep-3k", name, sizeof(name)));
    CHECK(!eng_porep_ops.srs_file(NULL, "porep-", name, sizeof(name)));
    CHECK(!eng_snap_ops.srs_file(NULL, "porep-2k", name, sizeof(name)));
    CHECK(!eng_porep_ops.srs_file(NULL, "porep-2k", name, 10)); /* does not fit */
}

TEST(porep_curio_wrapper_and_bare_json)
{
    const inputs *in = get_inputs();
    eng_request_t r = porep_req(in->c1_curio, in->c1_curio_len);
    check_good(&eng_porep_ops, &r, CIRC_POREP, "porep-2k", 1);
    r = porep_req(in->c1_json, in->c1_len);
    r.sector_size = 0; /* optional */
    check_plan(&eng_porep_ops, &r, CIRC_POREP, "porep-2k", 1);
}

/* SHA-256 of everything a prover cs produced for partition k of plan (a, b, c, inputs, aux,
 * densities). */
/* With plan.pool (as the engine sets it) the PoRep handler spreads the challenges over the
 * pool; the prover's assignment must be the one of sequential synthesis, bit for bit, both the
 * first time (challenge counts counted) and the second (counts remembered). */
TEST(porep_pool_synthesis_matches_sequential)
{
    const inputs *in = get_inputs();
    eng_request_t r = porep_req(in->c1_curio, in->c1_curio_len);
    eng_plan_t plan;
    cz_diag dg;
    cz_pool *pool = NULL;
    uint8_t seq[SHA256_DIGEST_BYTES], par[SHA256_DIGEST_BYTES];

    CHECK_MSG(parse(&eng_porep_ops, &r, &plan, &dg) == CUZK_OK, "parse: %s", dg.msg);
    prover_digest(seq, &plan, 0);
    CHECK_OK(cz_pool_new(&pool, 2, "test-synp", NULL));
    plan.pool = pool;
    for (int round = 0; round < 2; round++) {
        prover_digest(par, &plan, 0);
        CHECK_MEM_EQ(par, seq, sizeof(seq));
    }
    /* The pre-compiled evaluator over the pool (recording and witness forked, products split)
     * gives the same assignment. */
    asg_digest(par, &eng_porep_ops, &plan, 0, true);
    CHECK_MEM_EQ(par, seq, sizeof(seq));
    /* The checker keeps values too: with the pool it still finds the witness satisfying. */
    cs_t *cs = NULL;
    CHECK_OK(cs_new_checker(&cs, NULL));
    CHECK_OK(eng_porep_ops.synthesize(NULL, &plan, 0, cs, NULL));
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
    plan.pool = NULL;
    eng_porep_ops.plan_free(NULL, &plan);
    cz_pool_free(pool);
}

/* The PoSt handlers spread the sectors over plan.pool too: the same assignment, on both
 * synthesis paths. */
TEST(window_post_pool_synthesis_matches_sequential)
{
    const inputs *in = get_inputs();
    eng_bytes_t vps[2] = {bytes(in->window[0], in->window_len[0]),
                          bytes(in->window[1], in->window_len[1])};
    eng_request_t r = post_req(ENG_KIND_WINDOW_POST, vps, 2, in->wdp_rnd);
    eng_plan_t plan;
    cz_diag dg;
    cz_pool *pool = NULL;
    uint8_t seq[SHA256_DIGEST_BYTES], par[SHA256_DIGEST_BYTES];

    CHECK_MSG(parse(&eng_window_post_ops, &r, &plan, &dg) == CUZK_OK, "parse: %s", dg.msg);
    asg_digest(seq, &eng_window_post_ops, &plan, 0, false);
    CHECK_OK(cz_pool_new(&pool, 2, "test-synp", NULL));
    plan.pool = pool;
    asg_digest(par, &eng_window_post_ops, &plan, 0, false);
    CHECK_MEM_EQ(par, seq, sizeof(seq));
    asg_digest(par, &eng_window_post_ops, &plan, 0, true);
    CHECK_MEM_EQ(par, seq, sizeof(seq));
    plan.pool = NULL;
    eng_window_post_ops.plan_free(NULL, &plan);
    cz_pool_free(pool);
}

TEST(winning_post)
{
    const inputs *in = get_inputs();
    eng_bytes_t vp = bytes(in->winning, in->winning_len);
    eng_request_t r = post_req(ENG_KIND_WINNING_POST, &vp, 1, in->win_rnd);
    check_good(&eng_winning_post_ops, &r, CIRC_WINNING_POST, "winning-2k", 1);
}

TEST(window_post_two_sectors_and_padded)
{
    const inputs *in = get_inputs();
    eng_bytes_t vps[2] = {bytes(in->window[0], in->window_len[0]),
                          bytes(in->window[1], in->window_len[1])};
    eng_request_t r = post_req(ENG_KIND_WINDOW_POST, vps, 2, in->wdp_rnd);
    check_good(&eng_window_post_ops, &r, CIRC_WINDOW_POST, "wpost-2k", 1);
    r = post_req(ENG_KIND_WINDOW_POST, vps + 1, 1, in->wdp_rnd); /* one sector, padded */
    check_good(&eng_window_post_ops, &r, CIRC_WINDOW_POST, "wpost-2k", 1);
}

TEST(snap_deals)
{
    const inputs *in = get_inputs();
    eng_bytes_t vp = bytes(in->snap, in->snap_len);
    eng_request_t r = snap_req(&vp, 1, in);
    check_good(&eng_snap_ops, &r, CIRC_UPDATE, "snap-2k", 1);
    r.sector_size = 0; /* ProofShare leaves it unset */
    check_plan(&eng_snap_ops, &r, CIRC_UPDATE, "snap-2k", 1);
}

TEST(porep_bad_requests)
{
    const inputs *in = get_inputs();
    char *j = cz_malloc(in->c1_len + 1);
    CHECK(j);
    memcpy(j, in->c1_json, in->c1_len);
    j[in->c1_len] = '\0';
    eng_request_t r;

    r = porep_req("{", 1);
    CHECK_EQ_U64(expect_fail(&eng_porep_ops, &r, "C1 JSON"), 1); /* the vanilla_proof */
    r = porep_req("not json at all", 15);
    expect_fail(&eng_porep_ops, &r, "C1 JSON");
    r = porep_req(j, in->c1_len / 2); /* truncated */
    expect_fail(&eng_porep_ops, &r, "C1 JSON");
    r = porep_req(j, in->c1_len);
    r.sector_size = 8 << 20;
    CHECK_EQ_U64(expect_fail(&eng_porep_ops, &r, "does not match the C1 output"), 0);

    /* The seed changed: the challenges no longer match the proofs. */
    char *seed = strstr(j, "\"seed\":[");
    CHECK(seed);
    seed += 8;
    seed += strspn(seed, "0123456789") - 1; /* the last digit of seed[0]: stays in 0..255 */
    char old = seed[0];
    seed[0] = seed[0] == '0' ? '1' : (char)(seed[0] - 1);
    r = porep_req(j, in->c1_len);
    CHECK_EQ_U64(expect_fail(&eng_porep_ops, &r, "challenge"), 1);
    seed[0] = old;

    /* One label byte of a parent changed: the labeling proof no longer verifies. */
    char *rows = strstr(j, "\"drg_parents\":[{\"column\":{\"index\":");
    CHECK(rows);
    rows = strstr(rows, "\"rows\":[[");
    CHECK(rows);
    rows += 9;
    old = rows[0];
    rows[0] = rows[0] == '7' ? '8' : '7';
    r = porep_req(j, in->c1_len);
    expect_fail(&eng_porep_ops, &r, "partition 0");
    rows[0] = old;

    r = porep_req(j, in->c1_len);
    check_plan(&eng_porep_ops, &r, CIRC_POREP, "porep-2k", 1); /* restored */
    cz_free(j);

    /* Non-interactive PoRep: a valid C1 whose proof would be a SnarkPack aggregate. */
    seal_sector *s = seal_one(15, 9, test_prng()); /* StackedDrg2KiBV1_2_Feat_NiPoRep */
    uint8_t ni_seed[32] = {1};
    vp_c1 c1;
    char *ni = NULL;
    size_t ni_len;
    CHECK_OK(vp_gen_porep_c1(&c1, s, ni_seed, NULL, NULL));
    CHECK_OK(vp_c1_to_json(&c1, &ni, &ni_len, NULL));
    r = porep_req(ni, ni_len);
    expect_fail(&eng_porep_ops, &r, "non-interactive");
    cz_free(ni);
    vp_c1_clear(&c1);
    seal_sector_free(s);
}

TEST(porep_random_corruption)
{
    const inputs *in = get_inputs();
    uint8_t *j = test_dup(in->c1_curio, in->c1_curio_len);
    eng_request_t r = porep_req((const char *)j, in->c1_curio_len);
    corrupt_many(&eng_porep_ops, &r, j, in->c1_curio_len, 60);
    cz_free(j);
    /* The bare JSON: most flips change a number, which the native verification must catch. */
    j = test_dup(in->c1_json, in->c1_len);
    r = porep_req((const char *)j, in->c1_len);
    corrupt_many(&eng_porep_ops, &r, j, in->c1_len, 60);
    cz_free(j);
}

TEST(post_bad_requests)
{
    const inputs *in = get_inputs();
    uint8_t *w = test_dup(in->winning, in->winning_len);
    eng_bytes_t vp = bytes(w, in->winning_len);
    eng_request_t r = post_req(ENG_KIND_WINNING_POST, &vp, 1, in->win_rnd);
    uint8_t rnd[32];

    memset(rnd, 0xff, 32);
    r.randomness = bytes(rnd, 32);
    CHECK_EQ_U64(expect_fail(&eng_winning_post_ops, &r, "randomness is not a field element"), 0);
    memcpy(rnd, in->win_rnd, 32);
    rnd[0] ^= 1; /* another valid randomness: other leaf challenges */
    CHECK_EQ_U64(expect_fail(&eng_winning_post_ops, &r, "vanilla_proofs[0]"), 1);
    r.randomness = bytes(in->win_rnd, 32);

    r.registered_proof = 10; /* a WindowPoSt proof id */
    expect_fail(&eng_winning_post_ops, &r, "is not a winning-post proof");
    r.registered_proof = 99;
    expect_fail(&eng_winning_post_ops, &r, "registered_proof 99");
    r.registered_proof = 0;
    r.sector_size = 8 << 20;
    expect_fail(&eng_winning_post_ops, &r, "does not match registered_proof");
    r.sector_size = 2048;

    vp.len = in->winning_len - 1; /* truncated */
    CHECK_EQ_U64(expect_fail(&eng_winning_post_ops, &r, "vanilla_proofs[0]"), 1);
    vp.len = in->winning_len;
    w[8 + 32 + 8 + 8 + 4 + 64 + 8 + 8 + 5] ^= 0x10; /* a sibling hash of the first path */
    expect_fail(&eng_winning_post_ops, &r, "vanilla_proofs[0]");
    w[8 + 32 + 8 + 8 + 4 + 64 + 8 + 8 + 5] ^= 0x10;
    check_plan(&eng_winning_post_ops, &r, CIRC_WINNING_POST, "winning-2k", 1);
    corrupt_many(&eng_winning_post_ops, &r, w, in->winning_len, 200);

    /* WindowPoSt: at most 2 sectors per 2 KiB partition; each proof verified. */
    eng_bytes_t vps[3] = {bytes(in->window[0], in->window_len[0]),
                          bytes(in->window[1], in->window_len[1]),
                          bytes(in->window[0], in->window_len[0])};
    r = post_req(ENG_KIND_WINDOW_POST, vps, 3, in->wdp_rnd);
    CHECK_EQ_U64(expect_fail(&eng_window_post_ops, &r, "holds 1 to 2 sectors"), 0);
    r.n_vanilla_proofs = 2;
    r.registered_proof = 0; /* winning id */
    expect_fail(&eng_window_post_ops, &r, "is not a window-post proof");
    r.registered_proof = 10;
    vps[1] = bytes(in->winning, in->winning_len); /* 66 challenges, not 10 */
    CHECK_EQ_U64(expect_fail(&eng_window_post_ops, &r, "vanilla_proofs[1]"), 2);
    cz_free(w);
}

TEST(snap_bad_requests)
{
    const inputs *in = get_inputs();
    uint8_t *s = test_dup(in->snap, in->snap_len);
    eng_bytes_t vps[2] = {bytes(s, in->snap_len), bytes(s, in->snap_len)};
    eng_request_t r = snap_req(vps, 2, in);
    uint8_t c[32];

    expect_fail(&eng_snap_ops, &r, "has 1 partitions");
    r.n_vanilla_proofs = 1;
    r.registered_proof = 5;
    expect_fail(&eng_snap_ops, &r, "is not a RegisteredUpdateProof");
    r.registered_proof = 0;
    memcpy(c, in->comm_r_new, 32);
    c[3] ^= 1;
    r.comm_r_new = bytes(c, 32);
    CHECK_EQ_U64(expect_fail(&eng_snap_ops, &r, "vanilla_proofs[0] (partition 0)"), 1);
    memset(c, 0xff, 32);
    r.comm_d_new = bytes(c, 32);
    CHECK_EQ_U64(expect_fail(&eng_snap_ops, &r, "must be field elements"), 0);
    r = snap_req(vps, 1, in);
    vps[0].len = in->snap_len - 7;
    expect_fail(&eng_snap_ops, &r, "vanilla_proofs[0]");
    vps[0].len = in->snap_len;
    corrupt_many(&eng_snap_ops, &r, s, in->snap_len, 40);
    cz_free(s);
}

/* ---- offline: the handlers outside the pipeline (kinds.h) -------------------------------- */

/* Plans the one-partition request r offline with native verification (which must end in
 * want_verify, naming entry want_entry) and without, then checks its partition with the
 * circuit (eng_offline_check). */
static eng_check_t offline_check(const eng_request_t *r, cuzk_err want_verify, size_t want_entry)
{
    eng_offline_t *o = NULL;
    eng_check_t c;
    size_t entry = 99;
    cz_diag dg;

    cz_diag_init(&dg);
    CHECK_ERR(eng_offline_new(&o, &entry, r, NULL, true, &dg), want_verify);
    CHECK_EQ_U64(entry, want_entry);
    if (want_verify == CUZK_OK) {
        eng_offline_free(o);
    } else {
        CHECK(o == NULL && strstr(dg.msg, "vanilla_proofs[0]") != NULL);
    }
    /* without verification, the same request is planned and checked by the circuit */
    CHECK_OK(eng_offline_new(&o, &entry, r, NULL, false, NULL));
    CHECK_EQ_U64(entry, 0);
    CHECK_EQ_U64(eng_offline_plan(o)->num_partitions, 1);
    CHECK_ERR(eng_offline_verify_vanilla(o, &entry, 0, 1, NULL), want_verify);
    CHECK_EQ_U64(entry, want_entry);
    CHECK_OK(eng_offline_verify_vanilla(o, &entry, 0, 0, NULL)); /* no partition */
    CHECK_OK(eng_offline_check(o, &c, 0, NULL));
    eng_offline_free(o);
    return c;
}

TEST(offline_check_names_what_is_wrong)
{
    const inputs *in = get_inputs();
    uint8_t *w = test_dup(in->winning, in->winning_len);
    eng_bytes_t vp = bytes(w, in->winning_len);
    eng_request_t r = post_req(ENG_KIND_WINNING_POST, &vp, 1, in->win_rnd);
    cs_counts_t want;

    /* a good proof: satisfied, the verifier's inputs, the production circuit's counts */
    eng_check_t c = offline_check(&r, CUZK_OK, 0);
    CHECK_EQ_U64(c.status, ENG_CHECK_OK);
    expected_counts(CIRC_WINNING_POST, &want);
    CHECK_EQ_U64(c.counts.num_inputs, want.num_inputs);
    CHECK_EQ_U64(c.counts.num_aux, want.num_aux);
    CHECK_EQ_U64(c.counts.num_constraints, want.num_constraints);

    /* a sibling hash of the first path: the path no longer opens comm_r_last */
    size_t sib = 8 + 32 + 8 + 8 + 4 + 64 + 8 + 8 + 5;
    w[sib] ^= 0x10;
    c = offline_check(&r, CUZK_E_FORMAT, 1);
    CHECK_EQ_U64(c.status, ENG_CHECK_UNSAT);
    CHECK_MSG(strncmp(c.path, "sector_0/", 9) == 0, "path %s", c.path);
    w[sib] ^= 0x10;

    /* the sector id: the leaf challenges the verifier derives change, the circuit holds */
    w[0] ^= 1;
    c = offline_check(&r, CUZK_E_FORMAT, 1);
    CHECK_EQ_U64(c.status, ENG_CHECK_INPUT_DIFFERS);
    CHECK(c.input < want.num_inputs - 1);
    CHECK(!fr_eq(&c.circuit, &c.verifier));
    w[0] ^= 1;

    /* a request the handler refuses before planning names no entry */
    eng_offline_t *o = NULL;
    size_t entry = 99;
    r.registered_proof = 10;
    CHECK_ERR(eng_offline_new(&o, &entry, &r, NULL, false, NULL), CUZK_E_INVAL);
    CHECK(o == NULL && entry == 0);
    cz_free(w);
}
