/* sector.c - sealing a sector end to end (PC1 + PC2 of filecoin-proofs, sealing.md 1-4):
 * dense sectors compute every label and tree node; sparse ("synthetic") sectors materialise
 * only chosen columns and keep sparse trees, so huge sectors seal in seconds.
 */
#include "seal/internal.h"

#include <stdlib.h>
#include <string.h>

#include "common/alloc.h"

/* ---- shared -------------------------------------------------------------------------------- */

static seal_sector *sector_alloc(const seal_porep_config *cfg, const seal_ids *ids)
{
    seal_sector *s = cz_calloc(1, sizeof(*s));

    if (!s) {
        return NULL;
    }
    s->cfg = *cfg;
    s->info.ids = *ids;
    seal_graph_init(&s->graph, cfg->shape.nodes, cfg->porep_id, cfg->api);
    return s;
}

void seal_sector_free(seal_sector *s)
{
    if (!s) {
        return;
    }
    seal_tree_free(s->tree_d);
    seal_tree_free(s->tree_c);
    seal_tree_free(s->tree_r);
    cz_buf_free(&s->labels);
    cz_free(s->cols.idx);
    cz_free(s->cols.lab);
    cz_free(s);
}

const seal_porep_config *seal_sector_config(const seal_sector *s)
{
    return &s->cfg;
}

const seal_sector_info *seal_sector_get_info(const seal_sector *s)
{
    return &s->info;
}

const seal_graph_t *seal_sector_graph(const seal_sector *s)
{
    return &s->graph;
}

const seal_tree *seal_sector_tree_d(const seal_sector *s)
{
    return s->tree_d;
}

const seal_tree *seal_sector_tree_c(const seal_sector *s)
{
    return s->tree_c;
}

const seal_tree *seal_sector_tree_r(const seal_sector *s)
{
    return s->tree_r;
}

void seal_sector_label(const seal_sector *s, uint32_t layer, uint64_t v, uint8_t out[32])
{
    uint64_t n = s->cfg.shape.nodes;

    CZ_CHECK(layer >= 1 && layer <= s->cfg.shape.layers && v < n);
    if (!s->info.sparse) {
        const seal_node *lab = s->labels.ptr;
        memcpy(out, lab[(size_t)(layer - 1) * n + v].b, 32);
        return;
    }
    size_t at = seal_find_u64(s->cols.idx, s->cols.n, v);
    if (at == SIZE_MAX) {
        memset(out, 0, 32);
    } else {
        memcpy(out, s->cols.lab[at * s->cfg.shape.layers + (layer - 1)].b, 32);
    }
}

bool seal_sector_has_column(const seal_sector *s, uint64_t v)
{
    return !s->info.sparse || seal_find_u64(s->cols.idx, s->cols.n, v) != SIZE_MAX;
}

void seal_sector_data(const seal_sector *s, uint64_t v, uint8_t out[32])
{
    seal_tree_node(s->tree_d, 0, v, out);
}

void seal_sector_replica(const seal_sector *s, uint64_t v, uint8_t out[32])
{
    seal_tree_node(s->tree_r, 0, v, out);
}

/* Finishes info: comm_c, comm_r_last, comm_r from the trees. */
static void sector_commit(seal_sector *s)
{
    seal_tree_root(s->tree_d, s->info.comm_d);
    seal_tree_root(s->tree_c, s->info.comm_c);
    seal_tree_root(s->tree_r, s->info.comm_r_last);
    seal_comm_r(s->info.comm_r, s->info.comm_c, s->info.comm_r_last);
}

/* ---- dense --------------------------------------------------------------------------------- */

typedef struct col_job {
    const seal_node *labels;
    const seal_node *data;
    uint64_t nodes;
    uint32_t layers;
    seal_node *cols;    /* column hashes */
    seal_node *replica; /* label[L] + data */
} col_job;

static void col_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    col_job *j = ctx;
    seal_node rows[SEAL_MAX_LAYERS];
    static const seal_node zero;
    (void)worker;

    for (size_t v = begin; v < end; v++) {
        for (uint32_t l = 0; l < j->layers; l++) {
            rows[l] = j->labels[(size_t)l * j->nodes + v];
        }
        seal_column_hash(j->cols[v].b, rows, j->layers);
        seal_encode_node(j->replica[v].b, rows[j->layers - 1].b, j->data ? j->data[v].b : zero.b);
    }
}

cuzk_err seal_sector_seal(seal_sector **out, const seal_porep_config *cfg, const seal_ids *ids,
                          const seal_node *data, cz_pool *pool, cz_diag *dg)
{
    const seal_shape *sh = &cfg->shape;
    seal_tree_shape shape_d, shape_r;
    cz_buf cache = {0}, tmp = {0};
    seal_sector *s;
    cuzk_err err;

    *out = NULL;
    if (data) {
        for (uint64_t v = 0; v < sh->nodes; v++) {
            if (data[v].b[31] & 0xc0) {
                return cz_fail(dg, CUZK_E_INVAL,
                               "data node %llu has bits 254-255 set (not fr32-padded)",
                               (unsigned long long)v);
            }
        }
    }
    s = sector_alloc(cfg, ids);
    if (!s) {
        return cz_fail(dg, CUZK_E_NOMEM, "sector");
    }
    seal_tree_shape_d(&shape_d, sh->nodes);
    seal_tree_shape_r(&shape_r, sh);

    /* TreeD, comm_d, replica_id */
    if (data) {
        CZ_TRY(err, seal_tree_new_dense(&s->tree_d, &shape_d, data, pool, dg), fail);
    } else {
        /* an all-zero sector: leaves left zero by the zero-filled buffer */
        CZ_TRY(err, seal_tree_new_dense(&s->tree_d, &shape_d, NULL, pool, dg), fail);
    }
    seal_tree_root(s->tree_d, s->info.comm_d);
    seal_replica_id(s->info.replica_id, ids->prover_id, ids->sector_id, ids->ticket, s->info.comm_d,
                    cfg->porep_id);

    /* PC1: parent cache and labels */
    CZ_TRY(err, seal_graph_cache_new(&cache, &s->graph, pool, dg), fail);
    CZ_TRY(err, cz_buf_new(&s->labels, (size_t)sh->layers * sh->nodes * 32, dg), fail);
    seal_label_all(s->labels.ptr, &s->graph, cache.ptr, s->info.replica_id, sh->layers);
    cz_buf_free(&cache);

    /* PC2: column hashes and replica, then TreeC and TreeRLast */
    CZ_TRY(err, cz_buf_new(&tmp, (size_t)sh->nodes * 64, dg), fail);
    col_job job = {.labels = s->labels.ptr,
                   .data = data,
                   .nodes = sh->nodes,
                   .layers = sh->layers,
                   .cols = tmp.ptr,
                   .replica = (seal_node *)tmp.ptr + sh->nodes};
    cz_pool_for(pool, (size_t)sh->nodes, 256, col_task, &job);
    CZ_TRY(err, seal_tree_new_dense(&s->tree_c, &shape_r, job.cols, pool, dg), fail);
    CZ_TRY(err, seal_tree_new_dense(&s->tree_r, &shape_r, job.replica, pool, dg), fail);
    cz_buf_free(&tmp);

    sector_commit(s);
    *out = s;
    return CUZK_OK;
fail:
    cz_buf_free(&cache);
    cz_buf_free(&tmp);
    seal_sector_free(s);
    return err;
}

/* ---- sparse -------------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

cuzk_err seal_sector_seal_sparse(seal_sector **out, const seal_porep_config *cfg,
                                 const seal_ids *ids, const uint64_t *nodes, size_t n, cz_diag *dg)
{
    const seal_shape *sh = &cfg->shape;
    const uint32_t L = sh->layers;
    seal_tree_shape shape_d, shape_r;
    seal_node *colh = NULL, *rep = NULL;
    seal_node zero = {{0}}, dflt_col;
    seal_node zrows[SEAL_MAX_LAYERS] = {{{0}}};
    seal_sector *s;
    cuzk_err err;

    *out = NULL;
    s = sector_alloc(cfg, ids);
    if (!s) {
        return cz_fail(dg, CUZK_E_NOMEM, "sector");
    }
    s->info.sparse = true;
    seal_tree_shape_d(&shape_d, sh->nodes);
    seal_tree_shape_r(&shape_r, sh);

    /* the materialised nodes, sorted and unique */
    s->cols.idx = cz_malloc((n ? n : 1) * sizeof(uint64_t));
    s->cols.lab = cz_calloc((n ? n : 1) * L, sizeof(seal_node));
    colh = cz_malloc((n ? n : 1) * sizeof(seal_node));
    rep = cz_malloc((n ? n : 1) * sizeof(seal_node));
    if (!s->cols.idx || !s->cols.lab || !colh || !rep) {
        err = cz_fail(dg, CUZK_E_NOMEM, "sparse sector of %zu columns", n);
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        if (nodes[i] >= sh->nodes) {
            err = cz_fail(dg, CUZK_E_INVAL, "node %llu outside the sector",
                          (unsigned long long)nodes[i]);
            goto fail;
        }
        s->cols.idx[i] = nodes[i];
    }
    qsort(s->cols.idx, n, sizeof(uint64_t), cmp_u64);
    for (size_t i = 0; i < n; i++) {
        if (s->cols.n == 0 || s->cols.idx[s->cols.n - 1] != s->cols.idx[i]) {
            s->cols.idx[s->cols.n++] = s->cols.idx[i];
        }
    }

    /* TreeD of the zero sector, comm_d = z_{log2 N}, replica_id */
    CZ_TRY(err, seal_tree_new_sparse(&s->tree_d, &shape_d, NULL, NULL, 0, zero.b, dg), fail);
    seal_tree_root(s->tree_d, s->info.comm_d);
    seal_replica_id(s->info.replica_id, ids->prover_id, ids->sector_id, ids->ticket, s->info.comm_d,
                    cfg->porep_id);

    /* Labels of the materialised nodes, layer by layer in increasing node order: DRG parents
     * precede their child in the same layer, expander parents come from the previous layer,
     * so every parent label needed is final when it is read (zero if not materialised). */
    for (uint32_t l = 1; l <= L; l++) {
        for (size_t i = 0; i < s->cols.n; i++) {
            uint64_t v = s->cols.idx[i];
            uint32_t par[SEAL_PARENTS];
            seal_node drg[SEAL_DRG_DEGREE], exp[SEAL_EXP_DEGREE], p37[SEAL_LABEL_PARENTS];

            if (v != 0) {
                seal_graph_parents(&s->graph, v, par);
                for (int j = 0; j < SEAL_DRG_DEGREE; j++) {
                    seal_sector_label(s, l, par[j], drg[j].b);
                }
                for (int j = 0; j < SEAL_EXP_DEGREE && l > 1; j++) {
                    seal_sector_label(s, l - 1, par[SEAL_DRG_DEGREE + j], exp[j].b);
                }
                seal_label_parents(p37, l, drg, exp);
            }
            seal_label_node(s->cols.lab[i * L + (l - 1)].b, s->info.replica_id, l, v,
                            v ? p37 : NULL);
        }
    }

    /* TreeC and TreeRLast: materialised leaves, all others the zero-column hash / zero */
    for (size_t i = 0; i < s->cols.n; i++) {
        seal_column_hash(colh[i].b, s->cols.lab + i * L, L);
        rep[i] = s->cols.lab[i * L + (L - 1)]; /* + data 0 */
    }
    seal_column_hash(dflt_col.b, zrows, L);
    CZ_TRY(err,
           seal_tree_new_sparse(&s->tree_c, &shape_r, s->cols.idx, colh, s->cols.n, dflt_col.b, dg),
           fail);
    CZ_TRY(err, seal_tree_new_sparse(&s->tree_r, &shape_r, s->cols.idx, rep, s->cols.n, zero.b, dg),
           fail);
    sector_commit(s);
    cz_free(colh);
    cz_free(rep);
    *out = s;
    return CUZK_OK;
fail:
    cz_free(colh);
    cz_free(rep);
    seal_sector_free(s);
    return err;
}
