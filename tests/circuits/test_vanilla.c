/* test_vanilla.c - end to end with the vanilla-proof generators of seal/ and proofs/ (written
 * independently of the circuits, from spec sealing.md, and checked there against
 * rust-fil-proofs' label and tree known answers): a sector is sealed, its C1 output, PoSt and
 * SnapDeals vanilla proofs are generated and verified natively, converted by the adapters in
 * vanilla.c, and the circuits must accept them with the checker and allocate exactly the public
 * inputs that proofs/ derives for the verifier (challenges from the seed, parents from the
 * graph, PoSt leaf challenges, k_and_h_select). A vanilla value changed after generation must be
 * rejected.
 */
#include "circ_util.h"

#include "common/alloc.h"

static void random_fr_bytes(uint8_t out[32], cz_prng *g)
{
    cz_prng_bytes(g, out, 32);
    out[31] &= 0x3f;
}

static seal_sector *seal_random(const seal_porep_config *cfg, cz_prng *g)
{
    seal_ids ids;
    seal_sector *s = NULL;
    seal_node *d = cz_malloc(cfg->shape.nodes * sizeof(seal_node));

    CHECK(d);
    for (uint64_t i = 0; i < cfg->shape.nodes; i++) {
        random_fr_bytes(d[i].b, g);
    }
    cz_prng_bytes(g, ids.prover_id, 32);
    ids.prover_id[31] &= 0x3f;
    ids.sector_id = cz_prng_below(g, 1u << 30);
    cz_prng_bytes(g, ids.ticket, 32);
    ids.ticket[31] &= 0x3f;
    CHECK_OK(seal_sector_seal(&s, cfg, &ids, d, NULL, NULL));
    cz_free(d);
    return s;
}

static void porep_synth(cs_t *cs, void *ctx)
{
    circ_porep_vanilla_t *v = ctx;
    circ_porep_synth(cs, &v->cfg, &v->w);
}

/* Seals a sector of registered proof `id`, generates its C1 and checks partition k. */
static void check_porep(uint32_t id, uint32_t k)
{
    cz_prng *g = test_prng();
    seal_porep_config cfg;
    seal_sector *s;
    uint8_t seed[32];
    vp_c1 c1;
    circ_porep_vanilla_t v;
    fr_t *expect, *got;
    size_t n;
    const char *path = NULL;

    CHECK(seal_porep_config_for_id(&cfg, id));
    s = seal_random(&cfg, g);
    random_fr_bytes(seed, g);
    CHECK_OK(vp_gen_porep_c1(&c1, s, seed, NULL, NULL));
    CHECK_OK(circ_porep_from_c1(&v, &c1, k, NULL));
    CHECK_MSG(cu_check(porep_synth, &v, &path) == CUZK_OK, "%s: unsat at %s", cfg.name, path);

    n = vp_porep_num_inputs(&cfg);
    CHECK_EQ_U64(n, circ_porep_num_inputs(&v.cfg));
    expect = cz_malloc(n * sizeof(fr_t));
    CHECK(expect);
    CHECK_OK(
        vp_porep_public_inputs(expect, &cfg, c1.replica_id, c1.comm_d, c1.comm_r, seed, k, NULL));
    got = cu_inputs(porep_synth, &v, &n);
    CHECK_EQ_U64(n, vp_porep_num_inputs(&cfg));
    CHECK_MEM_EQ(got, expect, n * sizeof(fr_t));
    cz_free(got);

    /* a label of a DRG parent's column, changed after generation */
    fr_t *row = (fr_t *)v.challenges[1].drg[2].rows;
    fr_add(row, row, &FR_ONE);
    CHECK_ERR(cu_check(porep_synth, &v, NULL), CUZK_E_UNSAT);

    cz_free(expect);
    circ_porep_vanilla_clear(&v);
    vp_c1_clear(&c1);
    seal_sector_free(s);
}

#if !CIRC_SLOW_TESTS
TEST(vanilla_porep_2kib_v1_1)
{
    check_porep(5, 0); /* StackedDrg2KiBV1_1 */
}

TEST(vanilla_porep_2kib_ni_last_partition)
{
    check_porep(15, 12); /* StackedDrg2KiBV1_2_Feat_NonInteractivePoRep, partition 12 of 13 */
}

TEST(vanilla_porep_adapter_errors)
{
    cz_prng *g = test_prng();
    seal_porep_config cfg;
    seal_sector *s;
    uint8_t seed[32];
    vp_c1 c1;
    circ_porep_vanilla_t v;
    cz_diag dg;

    CHECK(seal_porep_config_for_id(&cfg, 5));
    s = seal_random(&cfg, g);
    random_fr_bytes(seed, g);
    CHECK_OK(vp_gen_porep_c1(&c1, s, seed, NULL, NULL));
    CHECK_ERR(circ_porep_from_c1(&v, &c1, 1, NULL), CUZK_E_INVAL); /* one partition */
    c1.proofs[1].exp_parents[3].inclusion.nelems--;
    cz_diag_init(&dg);
    CHECK_ERR(circ_porep_from_c1(&v, &c1, 0, &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "challenge 1") != NULL);
    c1.proofs[1].exp_parents[3].inclusion.nelems++;
    memset(c1.proofs[0].comm_d_proof.leaf.b, 0xff, 32); /* not < r */
    CHECK_ERR(circ_porep_from_c1(&v, &c1, 0, NULL), CUZK_E_FORMAT);
    vp_c1_clear(&c1);
    seal_sector_free(s);
}
#endif

typedef struct post_ctx {
    circ_post_vanilla_t v;
} post_ctx;

static void post_synth(cs_t *cs, void *ctx)
{
    post_ctx *c = ctx;
    circ_post_synth(cs, &c->v.cfg, c->v.sectors, NULL);
}

/* PoSt of registered proof `id` over `nsec` sealed sectors of seal proof `seal_id`
 * (partition 0). */
static void check_post(uint32_t seal_id, uint32_t id, size_t nsec)
{
    cz_prng *g = test_prng();
    seal_porep_config scfg;
    seal_post_config pc;
    seal_sector *s[2];
    vp_post_proof p[2];
    uint64_t ids[2];
    seal_node comm_rs[2];
    uint8_t rnd[32];
    post_ctx c;
    fr_t *expect, *got;
    size_t n;
    const char *path = NULL;

    CHECK(seal_porep_config_for_id(&scfg, seal_id));
    CHECK(seal_post_config_for_id(&pc, id));
    random_fr_bytes(rnd, g);
    for (size_t i = 0; i < nsec; i++) {
        s[i] = seal_random(&scfg, g);
        CHECK_OK(vp_gen_post(&p[i], s[i], &pc, rnd, i, NULL));
        ids[i] = p[i].sector_id;
        memcpy(comm_rs[i].b, p[i].comm_r, 32);
    }
    CHECK_OK(circ_post_from_vanilla(&c.v, &pc, p, nsec, NULL));
    CHECK_MSG(cu_check(post_synth, &c, &path) == CUZK_OK, "%s: unsat at %s", pc.name, path);
    n = vp_post_num_inputs(&pc);
    CHECK_EQ_U64(n, circ_post_num_inputs(&c.v.cfg));
    expect = cz_malloc(n * sizeof(fr_t));
    CHECK(expect);
    CHECK_OK(vp_post_public_inputs(expect, &pc, rnd, ids, comm_rs, nsec, 0, NULL));
    got = cu_inputs(post_synth, &c, &n);
    CHECK_MEM_EQ(got, expect, n * sizeof(fr_t));
    cz_free(got);
    cz_free(expect);

    fr_add(&c.v.sib[5], &c.v.sib[5], &FR_ONE);
    CHECK_ERR(cu_check(post_synth, &c, NULL), CUZK_E_UNSAT);
    circ_post_vanilla_clear(&c.v);
    for (size_t i = 0; i < nsec; i++) {
        vp_post_clear(&p[i]);
        seal_sector_free(s[i]);
    }
}

#if !CIRC_SLOW_TESTS
TEST(vanilla_post_winning_2kib)
{
    check_post(5, 0, 1); /* StackedDrgWinning2KiBV1 */
}

TEST(vanilla_post_window_2kib)
{
    check_post(5, 5, 2);  /* StackedDrgWindow2KiBV1: two sectors, V1_0 challenge indices */
    check_post(5, 10, 1); /* StackedDrgWindow2KiBV1_1 (Rust V1_2): one sector, padded */
}
#endif

typedef struct snap_ctx {
    circ_update_vanilla_t v;
} snap_ctx;

static void snap_synth(cs_t *cs, void *ctx)
{
    snap_ctx *c = ctx;
    circ_update_synth(cs, &c->v.cfg, &c->v.w);
}

/* SnapDeals of registered update proof `id` (sector of seal proof `seal_id`), partitions
 * [0, nparts) or just the last one. */
static void check_snap(uint32_t seal_id, uint32_t id, bool all)
{
    cz_prng *g = test_prng();
    seal_porep_config scfg;
    seal_update_config uc;
    seal_sector *s;
    seal_update *u;
    seal_node *nd;
    const seal_update_info *ui;

    CHECK(seal_porep_config_for_id(&scfg, seal_id));
    CHECK(seal_update_config_for_id(&uc, id));
    s = seal_random(&scfg, g);
    nd = cz_malloc(scfg.shape.nodes * sizeof(seal_node));
    CHECK(nd);
    for (uint64_t i = 0; i < scfg.shape.nodes; i++) {
        random_fr_bytes(nd[i].b, g);
    }
    CHECK_OK(seal_update_encode(&u, s, &uc, nd, NULL, NULL));
    ui = seal_update_get_info(u);
    for (uint32_t k = all ? 0 : uc.partitions - 1; k < uc.partitions; k++) {
        vp_snap_proof p;
        snap_ctx c;
        fr_t expect[4], *got;
        size_t n;
        const char *path = NULL;

        CHECK_OK(vp_gen_snap(&p, u, k, NULL));
        CHECK_OK(circ_update_from_vanilla(&c.v, &uc, &p, k, ui->comm_r_old, ui->comm_d_new,
                                          ui->comm_r_new, NULL));
        CHECK_MSG(cu_check(snap_synth, &c, &path) == CUZK_OK, "%s k=%u: unsat at %s", uc.name, k,
                  path);
        CHECK_OK(vp_snap_public_inputs(expect, &uc, k, ui->comm_r_old, ui->comm_d_new,
                                       ui->comm_r_new, NULL));
        got = cu_inputs(snap_synth, &c, &n);
        CHECK_EQ_U64(n, 4);
        CHECK_MEM_EQ(got, expect, sizeof(expect));
        cz_free(got);
        fr_add(&c.v.apex[3], &c.v.apex[3], &FR_ONE);
        CHECK_ERR(cu_check(snap_synth, &c, NULL), CUZK_E_UNSAT);
        circ_update_vanilla_clear(&c.v);
        vp_snap_clear(&p);
    }
    seal_update_free(u);
    cz_free(nd);
    seal_sector_free(s);
}

#if !CIRC_SLOW_TESTS
TEST(vanilla_snap_2kib)
{
    check_snap(5, 0, true); /* StackedDrg2KiBV1 update of a 2 KiB V1_1 sector */
}
#endif

#if CIRC_SLOW_TESTS
/* The other PoRep generations: V1_0 (DRG predecessor last, u32 expander cast) and synthetic. */
TEST(vanilla_porep_2kib_v1_0_and_synthetic)
{
    check_porep(0, 0);
    check_porep(10, 0);
}

/* 8 MiB: 18-level TreeD, 6-level TreeR; SnapDeals with 4 partitions (two partition bits, a
 * two-level partition path, 128 apex leaves) and h = 10 of [7..12]. */
TEST(vanilla_8mib)
{
    check_porep(6, 0);
    check_post(6, 11, 1); /* StackedDrgWindow8MiBV1_1 */
    check_snap(6, 1, false);
}
#endif
