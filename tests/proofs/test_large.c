/* test_large.c - the slow cases: an 8 MiB sector end to end (2^18 nodes, 6-level TreeR paths,
 * 18-level TreeD paths, 4 SnapDeals partitions with h = 10): seal with random data, C1
 * (generated, verified, JSON round trip), winning and window PoSt, all SnapDeals partitions;
 * and a synthetic 64 GiB C1 file (Top paths) generated, re-read and verified. Labelled slow.
 */
#include "proofs_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/pool.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

TEST(sector_8mib_end_to_end)
{
    cz_prng *g = test_prng();
    cz_pool *pool = NULL;
    seal_porep_config cfg;
    seal_ids ids;
    seal_sector *s;
    uint8_t seed[32], rand[32];
    vp_c1 c1, back;
    char *json;
    size_t len;

    CHECK_OK(cz_pool_new(&pool, cz_cpu_count() > 1 ? cz_cpu_count() - 1 : 0, "test", NULL));
    CHECK(seal_porep_config_for_id(&cfg, 6)); /* StackedDrg8MiBV1_1 */
    tu_random_ids(&ids, g);
    seal_node *data = tu_random_data(g, cfg.shape.nodes);
    double t0 = now();
    CHECK_OK(seal_sector_seal(&s, &cfg, &ids, data, pool, NULL));
    double t1 = now();
    tu_random_fr(seed, g);
    CHECK_OK(vp_gen_porep_c1(&c1, s, seed, pool, NULL));
    CHECK_OK(vp_c1_to_json(&c1, &json, &len, NULL));
    CHECK_OK(vp_c1_from_json(&back, json, len, NULL));
    CHECK(memcmp(back.proofs, c1.proofs, 2 * sizeof(vp_porep_proof)) == 0);
    CHECK_OK(vp_c1_verify(&back, &ids, NULL));
    CHECK_EQ_U64(c1.proofs[0].comm_d_proof.nelems, 18);
    CHECK_EQ_U64(c1.proofs[0].comm_r_last_proof.nelems, 6);
    double t2 = now();

    static const uint32_t post_ids[] = {1, 6, 11};
    for (size_t i = 0; i < ARRAY_LEN(post_ids); i++) {
        seal_post_config pc;
        vp_post_proof p;
        CHECK(seal_post_config_for_id(&pc, post_ids[i]));
        tu_random_fr(rand, g);
        CHECK_OK(vp_gen_post(&p, s, &pc, rand, 0, NULL));
        vp_post_clear(&p);
    }
    double t3 = now();

    seal_update_config uc;
    seal_update *u;
    CHECK(seal_update_config_for_id(&uc, 1));
    CHECK_EQ_U64(uc.partitions, 4);
    seal_node *nd = tu_random_data(g, cfg.shape.nodes);
    CHECK_OK(seal_update_encode(&u, s, &uc, nd, pool, NULL));
    for (uint32_t k = 0; k < uc.partitions; k++) {
        vp_snap_proof p;
        CHECK_OK(vp_gen_snap(&p, u, k, NULL));
        CHECK_EQ_U64(p.napex, 128);
        vp_snap_clear(&p);
    }
    double t4 = now();
    printf("  8 MiB: seal %.2f s, C1 + JSON %.2f s, 3 PoSt %.2f s, SnapDeals %.2f s\n", t1 - t0,
           t2 - t1, t3 - t2, t4 - t3);
    seal_update_free(u);
    cz_free(nd);
    cz_free(json);
    vp_c1_clear(&back);
    vp_c1_clear(&c1);
    seal_sector_free(s);
    cz_free(data);
    cz_pool_free(pool);
}

TEST(synthetic_64gib_c1_file)
{
    cz_prng *g = test_prng();
    char dir[256], out[300];
    vp_gen_porep_opts o = {0};
    char *json;
    size_t len;
    vp_c1 c1;
    uint8_t z[32];

    snprintf(dir, sizeof(dir), "%s/vp-large-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    snprintf(out, sizeof(out), "%s/c1.json", dir);
    o.registered_proof = 9; /* StackedDrg64GiBV1_1 */
    tu_random_ids(&o.ids, g);
    tu_random_fr(o.seed, g);
    o.synthetic = true;
    double t0 = now();
    CHECK_OK(vp_gen_porep_c1_file(&o, out, NULL, NULL));
    double t1 = now();
    CHECK_OK(vp_read_file(out, &json, &len, NULL));
    CHECK_OK(vp_c1_from_json(&c1, json, len, NULL));
    CHECK_OK(vp_c1_verify(&c1, &o.ids, NULL));
    printf("  64 GiB synthetic C1: %.2f s, %zu bytes\n", t1 - t0, len);
    CHECK_EQ_U64(c1.partitions, 10);
    CHECK_EQ_U64(c1.challenges, 18);
    CHECK_EQ_U64(c1.proofs[0].comm_r_last_proof.kind, SEAL_PROOF_TOP);
    CHECK_EQ_U64(c1.proofs[0].c_x.inclusion.nelems, 11);
    CHECK_EQ_U64(c1.proofs[0].comm_d_proof.nelems, 31);
    seal_zero_comm_d(z, 31);
    CHECK_MEM_EQ(c1.comm_d, z, 32);
    vp_c1_clear(&c1);
    cz_free(json);
    CHECK(unlink(out) == 0);
    CHECK(rmdir(dir) == 0);
}
