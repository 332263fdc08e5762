/* update.c - SnapDeals (EmptySectorUpdate) encoding of new data into a sealed sector
 * (sealing.md 7.1; storage-proofs-update vanilla.rs encode_into):
 *   new[v] = key[v] + data[v] * rho(v >> (log2 N - h)),   rho(x) = PoseidonGR(phi, x),
 *   phi = PoseidonGR(comm_d_new, comm_r_old); comm_r_new = Poseidon2(comm_c, comm_r_last_new).
 */
#include "seal/internal.h"

#include <string.h>

#include "common/alloc.h"

struct seal_update {
    const seal_sector *sector;
    seal_update_config cfg;
    seal_update_info info;
    seal_tree *tree_d;
    seal_tree *tree_r;
};

typedef struct enc_job {
    const seal_sector *s;
    const seal_node *data;
    const fr_t *rho; /* 2^h values */
    uint32_t shift;  /* log2 N - h */
    seal_node *out;
} enc_job;

static void enc_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    enc_job *j = ctx;
    (void)worker;
    for (size_t v = begin; v < end; v++) {
        uint8_t key[32];
        fr_t k, d;
        seal_sector_replica(j->s, v, key);
        CZ_CHECK(fr_from_bytes(&k, key) == CUZK_OK);
        CZ_CHECK(fr_from_bytes(&d, j->data[v].b) == CUZK_OK);
        fr_mul(&d, &d, &j->rho[v >> j->shift]);
        fr_add(&k, &k, &d);
        fr_to_bytes(j->out[v].b, &k);
    }
}

cuzk_err seal_update_encode(seal_update **out, const seal_sector *s, const seal_update_config *ucfg,
                            const seal_node *data, cz_pool *pool, cz_diag *dg)
{
    const seal_sector_info *si = seal_sector_get_info(s);
    const seal_shape *sh = &seal_sector_config(s)->shape;
    seal_tree_shape shape_d, shape_r;
    seal_update *u;
    fr_t *rho = NULL;
    cz_buf nr = {0};
    cuzk_err err;

    *out = NULL;
    if (ucfg->shape.sector_size != sh->sector_size) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "update configuration is for %llu-byte sectors, the "
                       "sector has %llu bytes",
                       (unsigned long long)ucfg->shape.sector_size,
                       (unsigned long long)sh->sector_size);
    }
    if (data && si->sparse) {
        return cz_fail(dg, CUZK_E_INVAL, "a synthetic sector takes only all-zero new data");
    }
    if (data) {
        for (uint64_t v = 0; v < sh->nodes; v++) {
            if (data[v].b[31] & 0xc0) {
                return cz_fail(dg, CUZK_E_INVAL, "new data node %llu is not fr32-padded",
                               (unsigned long long)v);
            }
        }
    }
    u = cz_calloc(1, sizeof(*u));
    if (!u) {
        return cz_fail(dg, CUZK_E_NOMEM, "update");
    }
    u->sector = s;
    u->cfg = *ucfg;
    memcpy(u->info.comm_r_old, si->comm_r, 32);
    memcpy(u->info.comm_c, si->comm_c, 32);
    seal_tree_shape_d(&shape_d, sh->nodes);
    seal_tree_shape_r(&shape_r, sh);

    if (si->sparse) {
        /* all-zero new data: TreeD_new is the zero tree and the replica does not change */
        const seal_sector *ss = s;
        seal_node zero = {{0}}, *rep = cz_malloc((ss->cols.n ? ss->cols.n : 1) * 32);
        if (!rep) {
            err = cz_fail(dg, CUZK_E_NOMEM, "update");
            goto fail;
        }
        for (size_t i = 0; i < ss->cols.n; i++) {
            seal_sector_replica(s, ss->cols.idx[i], rep[i].b);
        }
        err = seal_tree_new_sparse(&u->tree_d, &shape_d, NULL, NULL, 0, zero.b, dg);
        if (err == CUZK_OK) {
            err = seal_tree_new_sparse(&u->tree_r, &shape_r, ss->cols.idx, rep, ss->cols.n, zero.b,
                                       dg);
        }
        cz_free(rep);
        if (err != CUZK_OK) {
            goto fail;
        }
        seal_tree_root(u->tree_d, u->info.comm_d_new);
        seal_snap_phi(u->info.phi, u->info.comm_d_new, u->info.comm_r_old);
    } else {
        uint32_t shift = sh->log2_nodes - ucfg->h;
        size_t nrho = (size_t)1 << ucfg->h;
        cz_buf zeros = {0};
        const seal_node *d = data;

        if (!d) {
            CZ_TRY(err, cz_buf_new(&zeros, (size_t)sh->nodes * 32, dg), fail);
            d = zeros.ptr;
        }
        err = seal_tree_new_dense(&u->tree_d, &shape_d, d, pool, dg);
        if (err != CUZK_OK) {
            cz_buf_free(&zeros);
            goto fail;
        }
        seal_tree_root(u->tree_d, u->info.comm_d_new);
        seal_snap_phi(u->info.phi, u->info.comm_d_new, u->info.comm_r_old);
        rho = cz_malloc(nrho * sizeof(fr_t));
        err = rho ? cz_buf_new(&nr, (size_t)sh->nodes * 32, dg)
                  : cz_fail(dg, CUZK_E_NOMEM, "rho table");
        if (err != CUZK_OK) {
            cz_buf_free(&zeros);
            goto fail;
        }
        for (size_t i = 0; i < nrho; i++) {
            seal_snap_rho(&rho[i], u->info.phi, i);
        }
        enc_job job = {.s = s, .data = d, .rho = rho, .shift = shift, .out = nr.ptr};
        cz_pool_for(pool, (size_t)sh->nodes, 1024, enc_task, &job);
        cz_buf_free(&zeros);
        CZ_TRY(err, seal_tree_new_dense(&u->tree_r, &shape_r, nr.ptr, pool, dg), fail);
    }
    seal_tree_root(u->tree_r, u->info.comm_r_last_new);
    seal_comm_r(u->info.comm_r_new, u->info.comm_c, u->info.comm_r_last_new);
    cz_free(rho);
    cz_buf_free(&nr);
    *out = u;
    return CUZK_OK;
fail:
    cz_free(rho);
    cz_buf_free(&nr);
    seal_update_free(u);
    return err;
}

void seal_update_free(seal_update *u)
{
    if (!u) {
        return;
    }
    seal_tree_free(u->tree_d);
    seal_tree_free(u->tree_r);
    cz_free(u);
}

const seal_update_info *seal_update_get_info(const seal_update *u)
{
    return &u->info;
}

const seal_update_config *seal_update_config_of(const seal_update *u)
{
    return &u->cfg;
}

const seal_sector *seal_update_sector(const seal_update *u)
{
    return u->sector;
}

const seal_tree *seal_update_tree_d(const seal_update *u)
{
    return u->tree_d;
}

const seal_tree *seal_update_tree_r(const seal_update *u)
{
    return u->tree_r;
}

void seal_update_apex_leafs(const seal_update *u, uint32_t k, seal_node *out)
{
    const seal_update_config *c = &u->cfg;
    uint32_t level = c->shape.log2_nodes - c->partition_bits - c->apex_bits;

    CZ_CHECK(k < c->partitions);
    for (uint32_t i = 0; i < c->apex_leafs; i++) {
        seal_tree_node(u->tree_d, level, (uint64_t)k * c->apex_leafs + i, out[i].b);
    }
}
