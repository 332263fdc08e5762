/* e2e_vanilla.c - makes the inputs of the end-to-end tests and of `make demo`: seals 2 KiB
 * sectors with the seal library (random data from --seed), and writes, into --out DIR, what
 * Curio would send to cuzkd for each proof kind, plus manifest.json describing them:
 *
 *   c1.json, c1-curio.json   PoRep C1 output of sector 1 (StackedDrg2KiBV1_1): bare JSON and
 *                            Curio's {"SectorNum","Phase1Out","SectorSize"} wrapper
 *   winning.vproof           WinningPoSt vanilla proof of sector 1 (StackedDrgWinning2KiBV1)
 *   window-<i>.vproof        WindowPoSt vanilla proofs of sectors 1 and 2 (StackedDrgWindow2KiBV1_1
 *                            = Rust V1_2), one partition
 *   snap-0.vproof            SnapDeals partition proof of sector 1 updated with random data
 *                            (StackedDrg2KiBV1 update), and its three commitments
 * With --matrix also (label `slow` tests): c1-v1.json (StackedDrg2KiBV1: V1_0 graph),
 * c1-synth.json (StackedDrg2KiBV1_1_Feat_SyntheticPoRep), window-v1-<i>.vproof (Window V1:
 * challenge indices that depend on the sector's position).
 *
 * Every vanilla proof is verified by its generator (proofs/gen.c) before it is written.
 * manifest.json holds hex strings (32-byte values as their bytes in order) and numbers.
 * Usage: e2e_vanilla --out DIR [--seed N] [--matrix]. Prints one line with the timings.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/rand.h"
#include "proofs/proofs.h"
#include "seal/seal.h"

#define MINER_ID 1000

static const char *g_out;

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static _Noreturn void die(const char *what, cuzk_err err, const cz_diag *dg)
{
    fprintf(stderr, "e2e_vanilla: %s: %s\n", what, dg && dg->msg[0] ? dg->msg : cuzk_strerror(err));
    exit(2);
}

static void write_out(const char *name, const void *buf, size_t len)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", g_out, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(buf, 1, len, f) != len || fclose(f) != 0) {
        fprintf(stderr, "e2e_vanilla: %s: %s\n", path, strerror(errno));
        exit(2);
    }
}

static void hex32(char out[65], const uint8_t b[32])
{
    cz_hex_encode(out, b, 32);
    out[64] = '\0';
}

/* 32 random bytes that are a field element (top two bits clear). */
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
    cz_diag dg;
    cuzk_err err;

    if (!seal_porep_config_for_id(&cfg, seal_id)) {
        die("seal config", CUZK_E_INVAL, NULL);
    }
    seal_node *d = cz_malloc(cfg.shape.nodes * sizeof(seal_node));
    if (!d) {
        die("data", CUZK_E_NOMEM, NULL);
    }
    for (uint64_t i = 0; i < cfg.shape.nodes; i++) {
        rand_fr(g, d[i].b);
    }
    memset(&ids, 0, sizeof(ids));
    seal_prover_id(ids.prover_id, MINER_ID);
    ids.sector_id = sector_id;
    rand_fr(g, ids.ticket);
    cz_diag_init(&dg);
    err = seal_sector_seal(&s, &cfg, &ids, d, NULL, &dg);
    cz_free(d);
    if (err != CUZK_OK) {
        die("seal", err, &dg);
    }
    return s;
}

/* Writes the C1 of `s` (bare JSON to `name`, and the wrapper to `curio` when non-NULL);
 * returns the seed in `seed`. */
static void write_c1(const seal_sector *s, cz_prng *g, const char *name, const char *curio,
                     uint8_t seed[32])
{
    vp_c1 c1;
    char *json = NULL;
    size_t len;
    cz_diag dg;
    cuzk_err err;

    rand_fr(g, seed);
    cz_diag_init(&dg);
    err = vp_gen_porep_c1(&c1, s, seed, NULL, &dg);
    if (err == CUZK_OK) {
        err = vp_c1_to_json(&c1, &json, &len, &dg);
    }
    if (err != CUZK_OK) {
        die(name, err, &dg);
    }
    write_out(name, json, len);
    cz_free(json);
    if (curio) {
        err = vp_c1_to_curio_json(&c1, seal_sector_get_info(s)->ids.sector_id, &json, &len, &dg);
        if (err != CUZK_OK) {
            die(curio, err, &dg);
        }
        write_out(curio, json, len);
        cz_free(json);
    }
    vp_c1_clear(&c1);
}

static void write_post(const seal_sector *s, uint32_t post_id, const uint8_t rnd[32],
                       uint64_t sector_index, const char *name)
{
    seal_post_config pc;
    vp_post_proof p;
    uint8_t *bin = NULL;
    size_t len;
    cz_diag dg;
    cuzk_err err;

    if (!seal_post_config_for_id(&pc, post_id)) {
        die("post config", CUZK_E_INVAL, NULL);
    }
    cz_diag_init(&dg);
    memset(&p, 0, sizeof(p));
    err = vp_gen_post(&p, s, &pc, rnd, sector_index, &dg);
    if (err == CUZK_OK) {
        err = vp_post_to_bincode(&p, &bin, &len, &dg);
    }
    if (err != CUZK_OK) {
        die(name, err, &dg);
    }
    write_out(name, bin, len);
    cz_free(bin);
    vp_post_clear(&p);
}

int main(int argc, char **argv)
{
    uint64_t seed = 1;
    bool matrix = false;
    cz_prng g;
    cz_diag dg;
    cuzk_err err;
    double t0 = now_ms();

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            g_out = argv[++i];
        } else if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--matrix") == 0) {
            matrix = true;
        } else {
            fprintf(stderr, "usage: e2e_vanilla --out DIR [--seed N] [--matrix]\n");
            return 2;
        }
    }
    if (!g_out) {
        fprintf(stderr, "usage: e2e_vanilla --out DIR [--seed N] [--matrix]\n");
        return 2;
    }
    if (mkdir(g_out, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "e2e_vanilla: mkdir %s: %s\n", g_out, strerror(errno));
        return 2;
    }
    cz_prng_seed(&g, seed);
    cz_diag_init(&dg);

    /* Two sealed 2 KiB sectors (StackedDrg2KiBV1_1). */
    seal_sector *s1 = seal_one(5, 1, &g);
    seal_sector *s2 = seal_one(5, 2, &g);
    double t_seal = now_ms() - t0;

    uint8_t porep_seed[32], win_rnd[32], win_rnd_sel[32], wdp_rnd[32];
    write_c1(s1, &g, "c1.json", "c1-curio.json", porep_seed);
    rand_fr(&g, win_rnd);
    write_post(s1, 0, win_rnd, 0, "winning.vproof");
    rand_fr(&g, wdp_rnd);
    write_post(s1, 10, wdp_rnd, 0, "window-0.vproof");
    write_post(s2, 10, wdp_rnd, 1, "window-1.vproof");
    memcpy(win_rnd_sel, win_rnd, 32);

    /* SnapDeals: sector 1 updated with random data, partition proofs of update proof 0. */
    seal_update_config uc;
    seal_update *u = NULL;
    if (!seal_update_config_for_id(&uc, 0)) {
        die("update config", CUZK_E_INVAL, NULL);
    }
    uint64_t nodes = seal_sector_config(s1)->shape.nodes;
    seal_node *nd = cz_malloc(nodes * sizeof(seal_node));
    if (!nd) {
        die("data", CUZK_E_NOMEM, NULL);
    }
    for (uint64_t i = 0; i < nodes; i++) {
        rand_fr(&g, nd[i].b);
    }
    err = seal_update_encode(&u, s1, &uc, nd, NULL, &dg);
    cz_free(nd);
    if (err != CUZK_OK) {
        die("snap encode", err, &dg);
    }
    for (uint32_t k = 0; k < uc.partitions; k++) {
        vp_snap_proof p;
        uint8_t *bin = NULL;
        size_t len;
        char name[64];
        err = vp_gen_snap(&p, u, k, &dg);
        if (err == CUZK_OK) {
            err = vp_snap_to_bincode(&p, &bin, &len, &dg);
        }
        if (err != CUZK_OK) {
            die("snap", err, &dg);
        }
        snprintf(name, sizeof(name), "snap-%u.vproof", k);
        write_out(name, bin, len);
        cz_free(bin);
        vp_snap_clear(&p);
    }
    const seal_update_info *ui = seal_update_get_info(u);

    uint8_t seed_v1[32], seed_synth[32], wdp1_rnd[32];
    seal_sector *s3 = NULL, *s4 = NULL;
    if (matrix) {
        s3 = seal_one(0, 3, &g);  /* StackedDrg2KiBV1 */
        s4 = seal_one(10, 4, &g); /* StackedDrg2KiBV1_1_Feat_SyntheticPoRep */
        write_c1(s3, &g, "c1-v1.json", NULL, seed_v1);
        write_c1(s4, &g, "c1-synth.json", NULL, seed_synth);
        rand_fr(&g, wdp1_rnd);
        write_post(s1, 5, wdp1_rnd, 0, "window-v1-0.vproof");
        write_post(s2, 5, wdp1_rnd, 1, "window-v1-1.vproof");
    }

    /* The manifest. */
    char buf[16384], h[8][65];
    size_t o = 0;
    const seal_sector_info *i1 = seal_sector_get_info(s1), *i2 = seal_sector_get_info(s2);
    hex32(h[0], i1->comm_r);
    hex32(h[1], i2->comm_r);
    hex32(h[2], porep_seed);
    hex32(h[3], win_rnd);
    hex32(h[4], wdp_rnd);
    hex32(h[5], ui->comm_r_old);
    hex32(h[6], ui->comm_d_new);
    hex32(h[7], ui->comm_r_new);
    o += (size_t)snprintf(buf + o, sizeof(buf) - o,
                          "{\"miner_id\":%d,\"sector_size\":2048,\n"
                          "\"sectors\":[{\"id\":%" PRIu64 ",\"comm_r\":\"%s\"},{\"id\":%" PRIu64
                          ",\"comm_r\":\"%s\"}],\n"
                          "\"porep\":{\"registered_proof\":5,\"sector_number\":%" PRIu64
                          ",\"seed\":\"%s\",\"file\":\"c1-curio.json\",\"raw\":\"c1.json\"},\n"
                          "\"winning\":{\"registered_proof\":0,\"randomness\":\"%s\","
                          "\"sectors\":[0],\"files\":[\"winning.vproof\"]},\n"
                          "\"window\":{\"registered_proof\":10,\"randomness\":\"%s\","
                          "\"partition_index\":0,\"sectors\":[0,1],"
                          "\"files\":[\"window-0.vproof\",\"window-1.vproof\"]},\n"
                          "\"snap\":{\"registered_proof\":0,\"partitions\":%u,\"h_select\":%u,"
                          "\"partition_bits\":%u,\"comm_r_old\":\"%s\",\"comm_d_new\":\"%s\","
                          "\"comm_r_new\":\"%s\",\"files\":[\"snap-0.vproof\"]}",
                          MINER_ID, i1->ids.sector_id, h[0], i2->ids.sector_id, h[1],
                          i1->ids.sector_id, h[2], h[3], h[4], uc.partitions, uc.h_select,
                          uc.partition_bits, h[5], h[6], h[7]);
    if (matrix) {
        char a[65], b[65], c[65];
        hex32(a, seed_v1);
        hex32(b, seed_synth);
        hex32(c, wdp1_rnd);
        o += (size_t)snprintf(buf + o, sizeof(buf) - o,
                              ",\n\"matrix\":{\"porep_v1\":{\"registered_proof\":0,\"seed\":\"%s\","
                              "\"file\":\"c1-v1.json\"},\n\"porep_synth\":{\"registered_proof\":10,"
                              "\"seed\":\"%s\",\"file\":\"c1-synth.json\"},\n\"window_v1\":{"
                              "\"registered_proof\":5,\"randomness\":\"%s\",\"partition_index\":0,"
                              "\"sectors\":[0,1],\"files\":[\"window-v1-0.vproof\","
                              "\"window-v1-1.vproof\"]}}",
                              a, b, c);
    }
    o += (size_t)snprintf(buf + o, sizeof(buf) - o, "}\n");
    if (o >= sizeof(buf)) {
        die("manifest", CUZK_E_NOMEM, NULL);
    }
    write_out("manifest.json", buf, o);

    printf("e2e_vanilla: ok out=%s seal_ms=%.1f total_ms=%.1f\n", g_out, t_seal, now_ms() - t0);
    seal_update_free(u);
    seal_sector_free(s4);
    seal_sector_free(s3);
    seal_sector_free(s2);
    seal_sector_free(s1);
    return 0;
}
