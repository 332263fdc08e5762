/* gen.c - vanilla proofs from sealed sectors: PoRep C1 (stacked/vanilla/proof.rs
 * prove_layers_generate, sealing.md 5.4), PoSt (fallback/vanilla.rs prove, sealing.md 6),
 * SnapDeals partitions (storage-proofs-update vanilla.rs prove_inner, sealing.md 7.3), and the
 * one-call file helpers behind `cuzk-bench gen-vanilla` / `check-vanilla`.
 * Every generator verifies what it produced before returning it.
 */
#include "proofs/internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "common/alloc.h"

/* ---- PoRep C1 ---------------------------------------------------------------------------- */

static void fill_column(vp_column_proof *cp, const seal_sector *s, uint64_t node)
{
    uint32_t L = seal_sector_config(s)->shape.layers;

    cp->index = (uint32_t)node;
    cp->nrows = L;
    for (uint32_t l = 1; l <= L; l++) {
        seal_sector_label(s, l, node, cp->rows[l - 1].b);
    }
    seal_tree_prove(seal_sector_tree_c(s), node, &cp->inclusion);
}

static void fill_porep_proof(vp_porep_proof *p, const seal_sector *s, uint64_t c)
{
    const uint32_t L = seal_sector_config(s)->shape.layers;
    uint32_t par[SEAL_PARENTS];

    memset(p, 0, sizeof(*p));
    seal_tree_prove(seal_sector_tree_d(s), c, &p->comm_d_proof);
    seal_tree_prove(seal_sector_tree_r(s), c, &p->comm_r_last_proof);
    fill_column(&p->c_x, s, c);
    seal_graph_parents(seal_sector_graph(s), c, par);
    for (int j = 0; j < SEAL_DRG_DEGREE; j++) {
        fill_column(&p->drg_parents[j], s, par[j]);
    }
    for (int j = 0; j < SEAL_EXP_DEGREE; j++) {
        fill_column(&p->exp_parents[j], s, par[SEAL_DRG_DEGREE + j]);
    }
    p->nlayers = L;
    for (uint32_t l = 1; l <= L; l++) {
        seal_node drg[SEAL_DRG_DEGREE], exp[SEAL_EXP_DEGREE];
        for (int j = 0; j < SEAL_DRG_DEGREE; j++) {
            drg[j] = p->drg_parents[j].rows[l - 1];
        }
        for (int j = 0; j < SEAL_EXP_DEGREE && l > 1; j++) {
            exp[j] = p->exp_parents[j].rows[l - 2];
        }
        seal_label_parents(p->labeling[l - 1].parents, l, drg, exp);
        p->labeling[l - 1].layer_index = l;
        p->labeling[l - 1].node = c;
    }
    p->encoding = p->labeling[L - 1];
}

typedef struct c1_job {
    vp_c1 *c1;
    const seal_sector *s;
    const uint64_t *ch; /* all challenges, partition-major */
} c1_job;

static void c1_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    c1_job *j = ctx;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        fill_porep_proof(&j->c1->proofs[i], j->s, j->ch[i]);
    }
}

cuzk_err vp_gen_porep_c1(vp_c1 *out, const seal_sector *s, const uint8_t seed[32], cz_pool *pool,
                         cz_diag *dg)
{
    const seal_porep_config *cfg = seal_sector_config(s);
    const seal_sector_info *in = seal_sector_get_info(s);
    size_t total = (size_t)cfg->partitions * cfg->challenges_per_partition;
    uint64_t *ch = NULL;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    out->cfg = *cfg;
    out->partitions = cfg->partitions;
    out->challenges = cfg->challenges_per_partition;
    memcpy(out->comm_r, in->comm_r, 32);
    memcpy(out->comm_d, in->comm_d, 32);
    memcpy(out->replica_id, in->replica_id, 32);
    memcpy(out->seed, seed, 32);
    memcpy(out->ticket, in->ids.ticket, 32);
    ch = cz_malloc(total * sizeof(uint64_t));
    out->proofs = cz_calloc(total, sizeof(vp_porep_proof));
    if (!ch || !out->proofs) {
        err = cz_fail(dg, CUZK_E_NOMEM, "C1 of %zu challenges", total);
        goto fail;
    }
    for (uint32_t k = 0; k < cfg->partitions; k++) {
        seal_porep_challenges(ch + (size_t)k * out->challenges, cfg, in->replica_id, in->comm_r,
                              seed, k);
    }
    for (size_t i = 0; i < total; i++) {
        if (!seal_sector_has_column(s, ch[i])) {
            err = cz_fail(dg, CUZK_E_INVAL,
                          "C1: challenge %llu (partition %zu) was not materialised in this "
                          "synthetic sector (seal it for this seed)",
                          (unsigned long long)ch[i], i / out->challenges);
            goto fail;
        }
    }
    c1_job job = {.c1 = out, .s = s, .ch = ch};
    cz_pool_for(pool, total, 1, c1_task, &job);
    CZ_TRY(err, vp_c1_verify(out, &in->ids, dg), fail);
    cz_free(ch);
    return CUZK_OK;
fail:
    cz_free(ch);
    vp_c1_clear(out);
    return err;
}

/* ---- PoSt -------------------------------------------------------------------------------- */

cuzk_err vp_gen_post(vp_post_proof *out, const seal_sector *s, const seal_post_config *cfg,
                     const uint8_t randomness[32], uint64_t sector_index, cz_diag *dg)
{
    const seal_sector_info *in = seal_sector_get_info(s);
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    if (cfg->shape.sector_size != seal_sector_config(s)->shape.sector_size) {
        return cz_fail(dg, CUZK_E_INVAL, "PoSt: %s does not fit a %llu-byte sector", cfg->name,
                       (unsigned long long)seal_sector_config(s)->shape.sector_size);
    }
    out->sector_id = in->ids.sector_id;
    memcpy(out->comm_r, in->comm_r, 32);
    memcpy(out->comm_c, in->comm_c, 32);
    memcpy(out->comm_r_last, in->comm_r_last, 32);
    out->inclusion = cz_calloc(cfg->challenge_count, sizeof(seal_merkle_proof));
    if (!out->inclusion) {
        return cz_fail(dg, CUZK_E_NOMEM, "PoSt proof");
    }
    out->ninclusion = cfg->challenge_count;
    for (uint32_t n = 0; n < cfg->challenge_count; n++) {
        uint64_t idx = seal_post_challenge_index(cfg, sector_index, n);
        uint64_t leaf = seal_post_leaf_challenge(randomness, out->sector_id, idx, cfg->shape.nodes);
        seal_tree_prove(seal_sector_tree_r(s), leaf, &out->inclusion[n]);
    }
    err = vp_post_verify(out, cfg, randomness, sector_index, dg);
    if (err != CUZK_OK) {
        vp_post_clear(out);
    }
    return err;
}

/* ---- SnapDeals --------------------------------------------------------------------------- */

cuzk_err vp_gen_snap(vp_snap_proof *out, const seal_update *u, uint32_t k, cz_diag *dg)
{
    const seal_update_config *cfg = seal_update_config_of(u);
    const seal_update_info *ui = seal_update_get_info(u);
    const seal_sector *s = seal_update_sector(u);
    uint64_t ch[86];
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    if (k >= cfg->partitions) {
        return cz_fail(dg, CUZK_E_INVAL, "SnapDeals: partition %u of %u", k, cfg->partitions);
    }
    memcpy(out->comm_c, ui->comm_c, 32);
    out->napex = cfg->apex_leafs;
    seal_update_apex_leafs(u, k, out->apex_leafs);
    out->challenges = cz_calloc(cfg->challenges, sizeof(vp_snap_challenge_proof));
    if (!out->challenges) {
        return cz_fail(dg, CUZK_E_NOMEM, "SnapDeals proof");
    }
    out->nchallenges = cfg->challenges;
    seal_snap_challenges(ch, cfg, ui->comm_r_new, k);
    for (uint32_t i = 0; i < cfg->challenges; i++) {
        seal_tree_prove(seal_sector_tree_r(s), ch[i], &out->challenges[i].r_old);
        seal_tree_prove(seal_update_tree_d(u), ch[i], &out->challenges[i].d_new);
        seal_tree_prove(seal_update_tree_r(u), ch[i], &out->challenges[i].r_new);
    }
    err = vp_snap_verify(out, cfg, k, ui->comm_r_old, ui->comm_d_new, ui->comm_r_new, dg);
    if (err != CUZK_OK) {
        vp_snap_clear(out);
    }
    return err;
}

/* ---- files ------------------------------------------------------------------------------- */

cuzk_err vp_read_file(const char *path, char **out, size_t *len, cz_diag *dg)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    long size;

    *out = NULL;
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot open %s: %s", path, strerror(errno));
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return cz_fail(dg, CUZK_E_IO, "cannot size %s", path);
    }
    buf = cz_malloc((size_t)size + 1);
    if (!buf) {
        fclose(f);
        return cz_fail(dg, CUZK_E_NOMEM, "%s: %ld bytes", path, size);
    }
    if (fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fclose(f);
        cz_free(buf);
        return cz_fail(dg, CUZK_E_IO, "cannot read %s", path);
    }
    fclose(f);
    buf[size] = '\0';
    *out = buf;
    if (len) {
        *len = (size_t)size;
    }
    return CUZK_OK;
}

static cuzk_err write_file(const char *path, const void *buf, size_t len, cz_diag *dg)
{
    FILE *f = fopen(path, "wb");
    bool ok;

    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot create %s: %s", path, strerror(errno));
    }
    ok = fwrite(buf, 1, len, f) == len;
    if (fclose(f) != 0) {
        ok = false;
    }
    return ok ? CUZK_OK : cz_fail(dg, CUZK_E_IO, "cannot write %s", path);
}

static bool has_sector(const char *dir)
{
    char path[4096];
    struct stat st;
    snprintf(path, sizeof(path), "%s/sector.meta", dir);
    return stat(path, &st) == 0;
}

cuzk_err vp_gen_porep_c1_file(const vp_gen_porep_opts *o, const char *out_path, cz_pool *pool,
                              cz_diag *dg)
{
    seal_porep_config cfg;
    seal_sector *s = NULL;
    vp_c1 c1 = {0};
    char *json = NULL;
    size_t len;
    cuzk_err err;

    if (!seal_porep_config_for_id(&cfg, o->registered_proof)) {
        return cz_fail(dg, CUZK_E_INVAL, "unknown registered seal proof %u", o->registered_proof);
    }
    if (o->workdir && has_sector(o->workdir)) {
        CZ_TRY(err, seal_sector_load(&s, o->workdir, pool, dg), done);
        const seal_sector_info *in = seal_sector_get_info(s);
        if (seal_sector_config(s)->registered_proof != cfg.registered_proof ||
            memcmp(&in->ids, &o->ids, sizeof(o->ids)) != 0) {
            err = cz_fail(dg, CUZK_E_INVAL,
                          "%s holds a sector of another registered proof or other ids", o->workdir);
            goto done;
        }
    } else if (o->synthetic) {
        /* the challenges depend on replica_id (known before sealing: comm_d is the zero
         * sector's) and the seed, so interactive PoRep can materialise just them */
        uint8_t comm_d[32], rid[32];
        uint64_t *ch;
        size_t total = (size_t)cfg.partitions * cfg.challenges_per_partition;
        if (cfg.kind != SEAL_POREP_INTERACTIVE) {
            err = cz_fail(dg, CUZK_E_INVAL,
                          "--synthetic needs an interactive PoRep: the "
                          "challenges of %s depend on comm_r",
                          cfg.name);
            goto done;
        }
        if (o->data) {
            err = cz_fail(dg, CUZK_E_INVAL, "--synthetic seals an all-zero sector (no data)");
            goto done;
        }
        seal_zero_comm_d(comm_d, cfg.shape.log2_nodes);
        seal_replica_id(rid, o->ids.prover_id, o->ids.sector_id, o->ids.ticket, comm_d,
                        cfg.porep_id);
        ch = cz_malloc(total * sizeof(uint64_t));
        if (!ch) {
            err = cz_fail(dg, CUZK_E_NOMEM, "challenges");
            goto done;
        }
        for (uint32_t k = 0; k < cfg.partitions; k++) {
            seal_porep_challenges(ch + (size_t)k * cfg.challenges_per_partition, &cfg, rid, NULL,
                                  o->seed, k);
        }
        err = seal_sector_seal_sparse(&s, &cfg, &o->ids, ch, total, dg);
        cz_free(ch);
        if (err != CUZK_OK) {
            goto done;
        }
    } else {
        CZ_TRY(err, seal_sector_seal(&s, &cfg, &o->ids, o->data, pool, dg), done);
    }
    if (o->workdir && !has_sector(o->workdir)) {
        CZ_TRY(err, seal_sector_save(s, o->workdir, dg), done);
    }
    CZ_TRY(err, vp_gen_porep_c1(&c1, s, o->seed, pool, dg), done);
    if (o->curio_wrapper) {
        CZ_TRY(err, vp_c1_to_curio_json(&c1, o->sector_num, &json, &len, dg), done);
    } else {
        CZ_TRY(err, vp_c1_to_json(&c1, &json, &len, dg), done);
    }
    err = write_file(out_path, json, len, dg);
done:
    cz_free(json);
    vp_c1_clear(&c1);
    seal_sector_free(s);
    return err;
}

cuzk_err vp_gen_post_file(const char *workdir, uint32_t post_proof, const uint8_t randomness[32],
                          const char *out_path, cz_diag *dg)
{
    seal_post_config cfg;
    seal_sector *s = NULL;
    vp_post_proof p = {0};
    uint8_t *bin = NULL;
    size_t len;
    cuzk_err err;

    if (!seal_post_config_for_id(&cfg, post_proof)) {
        return cz_fail(dg, CUZK_E_INVAL, "unknown registered PoSt proof %u", post_proof);
    }
    CZ_TRY(err, seal_sector_load(&s, workdir, NULL, dg), done);
    CZ_TRY(err, vp_gen_post(&p, s, &cfg, randomness, 0, dg), done);
    CZ_TRY(err, vp_post_to_bincode(&p, &bin, &len, dg), done);
    err = write_file(out_path, bin, len, dg);
done:
    cz_free(bin);
    vp_post_clear(&p);
    seal_sector_free(s);
    return err;
}

cuzk_err vp_gen_snap_file(const char *workdir, uint32_t update_proof, const seal_node *data,
                          const char *out_path, uint8_t comm_r_old[32], uint8_t comm_d_new[32],
                          uint8_t comm_r_new[32], cz_pool *pool, cz_diag *dg)
{
    seal_update_config cfg;
    seal_sector *s = NULL;
    seal_update *u = NULL;
    vp_snap_proof *parts = NULL;
    char *json = NULL;
    size_t len;
    uint32_t made = 0;
    cuzk_err err;

    if (!seal_update_config_for_id(&cfg, update_proof)) {
        return cz_fail(dg, CUZK_E_INVAL, "unknown registered update proof %u", update_proof);
    }
    CZ_TRY(err, seal_sector_load(&s, workdir, pool, dg), done);
    CZ_TRY(err, seal_update_encode(&u, s, &cfg, data, pool, dg), done);
    parts = cz_calloc(cfg.partitions, sizeof(*parts));
    if (!parts) {
        err = cz_fail(dg, CUZK_E_NOMEM, "SnapDeals proofs");
        goto done;
    }
    for (; made < cfg.partitions; made++) {
        CZ_TRY(err, vp_gen_snap(&parts[made], u, made, dg), done);
    }
    CZ_TRY(err, vp_snap_list_to_json(parts, cfg.partitions, &json, &len, dg), done);
    CZ_TRY(err, write_file(out_path, json, len, dg), done);
    memcpy(comm_r_old, seal_update_get_info(u)->comm_r_old, 32);
    memcpy(comm_d_new, seal_update_get_info(u)->comm_d_new, 32);
    memcpy(comm_r_new, seal_update_get_info(u)->comm_r_new, 32);
done:
    for (uint32_t i = 0; parts && i < made; i++) {
        vp_snap_clear(&parts[i]);
    }
    cz_free(parts);
    cz_free(json);
    seal_update_free(u);
    seal_sector_free(s);
    return err;
}

cuzk_err vp_check_c1_file(const char *path, const seal_ids *ids, cz_diag *dg)
{
    char *json = NULL;
    size_t len;
    vp_c1 c1;
    cuzk_err err;

    CZ_TRY(err, vp_read_file(path, &json, &len, dg), done);
    CZ_TRY(err, vp_c1_parse(&c1, json, len, dg), done);
    err = vp_c1_verify(&c1, ids, dg);
    vp_c1_clear(&c1);
done:
    cz_free(json);
    return err;
}
