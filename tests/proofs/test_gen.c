/* test_gen.c - the one-call generators behind `cuzk-bench gen-vanilla` / `check-vanilla`: a
 * 2 KiB sector sealed into a cache directory, its C1 (bare and wrapped), PoSt and SnapDeals
 * files, all read back and verified; and a valid 32 GiB C1 output made from a synthetic sector
 * in seconds (Sub paths, 10 partitions x 18 challenges). The 64 GiB (Top) case is in
 * test_large.c.
 */
#include "proofs_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/pool.h"

static char *make_tmpdir(void)
{
    static char dir[256];
    snprintf(dir, sizeof(dir), "%s/vp-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    return dir;
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

TEST(gen_files_2kib_end_to_end)
{
    cz_prng *g = test_prng();
    char *dir = make_tmpdir(), work[300], c1a[300], c1b[300], post[300], snap[300];
    vp_gen_porep_opts o = {0};
    char *ja, *jb;
    size_t la, lb;

    snprintf(work, sizeof(work), "%s/sector", dir);
    snprintf(c1a, sizeof(c1a), "%s/c1.json", dir);
    snprintf(c1b, sizeof(c1b), "%s/c1-curio.json", dir);
    snprintf(post, sizeof(post), "%s/post.vproof", dir);
    snprintf(snap, sizeof(snap), "%s/snap-vproof.json", dir);

    o.registered_proof = 5;
    tu_random_ids(&o.ids, g);
    tu_random_fr(o.seed, g);
    seal_node *data = tu_random_data(g, 64);
    o.data = data;
    o.workdir = work;
    CHECK_OK(vp_gen_porep_c1_file(&o, c1a, NULL, NULL)); /* seals and saves the sector */
    CHECK_OK(vp_check_c1_file(c1a, &o.ids, NULL));
    /* again, from the cache directory, wrapped for Curio */
    o.curio_wrapper = true;
    o.sector_num = 77;
    CHECK_OK(vp_gen_porep_c1_file(&o, c1b, NULL, NULL));
    CHECK_OK(vp_check_c1_file(c1b, &o.ids, NULL));
    CHECK_OK(vp_read_file(c1a, &ja, &la, NULL));
    CHECK_OK(vp_read_file(c1b, &jb, &lb, NULL));
    vp_c1 a, b;
    uint64_t num;
    uint8_t comm_r[32];
    CHECK_OK(vp_c1_from_json(&a, ja, la, NULL));
    CHECK_OK(vp_c1_from_curio_json(&b, &num, jb, lb, NULL));
    CHECK_EQ_U64(num, 77);
    CHECK(memcmp(a.proofs, b.proofs, 2 * sizeof(vp_porep_proof)) == 0);
    CHECK_MEM_EQ(a.comm_r, b.comm_r, 32);
    memcpy(comm_r, a.comm_r, 32);
    vp_c1_clear(&a);
    vp_c1_clear(&b);
    cz_free(ja);
    cz_free(jb);
    /* other ids for the same directory are refused */
    o.ids.sector_id++;
    CHECK_ERR(vp_gen_porep_c1_file(&o, c1b, NULL, NULL), CUZK_E_INVAL);
    o.ids.sector_id--;

    /* PoSt from the cache directory */
    uint8_t rand[32];
    seal_post_config pcfg;
    vp_post_proof pp;
    tu_random_fr(rand, g);
    CHECK_OK(vp_gen_post_file(work, 10, rand, post, NULL));
    CHECK_OK(vp_read_file(post, &ja, &la, NULL));
    CHECK_OK(vp_post_from_bincode(&pp, 2048, (const uint8_t *)ja, la, NULL));
    CHECK(seal_post_config_for_id(&pcfg, 10));
    CHECK_OK(vp_post_verify(&pp, &pcfg, rand, 0, NULL));
    CHECK_EQ_U64(pp.sector_id, o.ids.sector_id);
    vp_post_clear(&pp);
    cz_free(ja);

    /* SnapDeals from the cache directory */
    uint8_t r_old[32], d_new[32], r_new[32];
    seal_update_config ucfg;
    vp_snap_proof *parts;
    size_t n;
    seal_node *nd = tu_random_data(g, 64);
    CHECK_OK(vp_gen_snap_file(work, 0, nd, snap, r_old, d_new, r_new, NULL, NULL));
    CHECK(seal_update_config_for_id(&ucfg, 0));
    CHECK_OK(vp_read_file(snap, &ja, &la, NULL));
    CHECK_OK(vp_snap_list_from_json(&parts, &n, 2048, ja, la, NULL));
    CHECK_EQ_U64(n, 1);
    CHECK_OK(vp_snap_verify(&parts[0], &ucfg, 0, r_old, d_new, r_new, NULL));
    CHECK_MEM_EQ(r_old, comm_r, 32); /* the sector key is the sealed sector */
    vp_snap_clear(&parts[0]);
    cz_free(parts);
    cz_free(ja);
    cz_free(nd);

    /* errors */
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_ERR(vp_gen_post_file("/nonexistent", 10, rand, post, &dg), CUZK_E_IO);
    CHECK_ERR(vp_gen_post_file(work, 99, rand, post, NULL), CUZK_E_INVAL);
    CHECK_ERR(vp_check_c1_file("/nonexistent/c1.json", NULL, NULL), CUZK_E_IO);
    o.registered_proof = 42;
    CHECK_ERR(vp_gen_porep_c1_file(&o, c1a, NULL, NULL), CUZK_E_INVAL);
    o.registered_proof = 15; /* NI: challenges depend on comm_r */
    o.workdir = NULL;
    o.synthetic = true;
    o.data = NULL;
    cz_diag_init(&dg);
    CHECK_ERR(vp_gen_porep_c1_file(&o, c1a, NULL, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "interactive") != NULL);
    cz_free(data);
    rm_rf(dir);
}

static void synthetic_c1(uint32_t id, bool wrapped)
{
    cz_prng *g = test_prng();
    char *dir = make_tmpdir(), out[300], work[300];
    vp_gen_porep_opts o = {0};
    seal_porep_config cfg;
    char *json;
    size_t len;
    vp_c1 c1;

    CHECK(seal_porep_config_for_id(&cfg, id));
    snprintf(out, sizeof(out), "%s/c1.json", dir);
    snprintf(work, sizeof(work), "%s/sector", dir);
    o.registered_proof = id;
    tu_random_ids(&o.ids, g);
    tu_random_fr(o.seed, g);
    o.synthetic = true;
    o.workdir = work;
    o.curio_wrapper = wrapped;
    o.sector_num = 9;
    cz_pool *pool = NULL;
    CHECK_OK(cz_pool_new(&pool, 1, "test", NULL));
    double t0 = now();
    CHECK_OK(vp_gen_porep_c1_file(&o, out, pool, NULL));
    double t1 = now();
    CHECK_OK(vp_read_file(out, &json, &len, NULL));
    CHECK_OK(vp_c1_parse(&c1, json, len, NULL));
    double t2 = now();
    CHECK_OK(vp_c1_verify(&c1, &o.ids, NULL));
    double t3 = now();
    printf("  %s synthetic C1: generate+verify+write %.2f s, %zu bytes, parse %.2f s, verify "
           "%.2f s\n",
           cfg.name, t1 - t0, len, t2 - t1, t3 - t2);
    CHECK_EQ_U64(c1.partitions, 10);
    CHECK_EQ_U64(c1.challenges, 18);
    CHECK_EQ_U64(c1.proofs[0].comm_r_last_proof.kind,
                 cfg.shape.top_arity ? SEAL_PROOF_TOP : SEAL_PROOF_SUB);
    CHECK_EQ_U64(c1.proofs[0].c_x.nrows, 11);
    uint8_t z[32];
    seal_zero_comm_d(z, cfg.shape.log2_nodes);
    CHECK_MEM_EQ(c1.comm_d, z, 32);
    /* the cache directory holds the synthetic sector: C1 again from it (a few MiB) */
    if (id == 8) {
        CHECK_OK(vp_gen_porep_c1_file(&o, out, pool, NULL));
    }
    cz_pool_free(pool);
    cz_free(json);
    vp_c1_clear(&c1);
    rm_rf(dir);
}

TEST(gen_synthetic_32gib_c1)
{
    synthetic_c1(8, true);
}
