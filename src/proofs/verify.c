/* verify.c - native verification of a PoRep C1 output (rust-fil-proofs stacked/vanilla
 * params.rs Proof::verify and proof_scheme.rs, vanilla-proofs.md 1.3) and the PoRep circuit's
 * public inputs (stacked/circuit/proof.rs generate_public_inputs, circuits.md 5.1).
 */
#include "proofs/internal.h"

#include <string.h>

#include "common/alloc.h"

static bool all_zero(const uint8_t b[32])
{
    for (int i = 0; i < 32; i++) {
        if (b[i]) {
            return false;
        }
    }
    return true;
}

/* Failure location prefix: "C1 partition k challenge i (node c)". */
#define VFAIL(fmt, ...)                                                                            \
    cz_fail(dg, CUZK_E_FORMAT, "C1 partition %u challenge %u (node %llu): " fmt, k, i,             \
            (unsigned long long)c, __VA_ARGS__)

/* A column proof: index, rows are Fr, leaf = column hash, root = comm_c, path opens `node`. */
static const char *check_column(const vp_column_proof *cp, uint64_t node, uint32_t layers,
                                const seal_tree_shape *tr, const uint8_t comm_c[32])
{
    uint8_t h[32];

    if (cp->index != node) {
        return "column.index is not the expected node";
    }
    if (cp->nrows != layers) {
        return "column.rows has the wrong length";
    }
    for (uint32_t l = 0; l < layers; l++) {
        if (!seal_node_is_fr(cp->rows[l].b)) {
            return "a row is not a valid Fr";
        }
    }
    if (!seal_merkle_matches_shape(&cp->inclusion, tr)) {
        return "inclusion_proof has the wrong shape";
    }
    if (seal_merkle_leaf_index(&cp->inclusion) != node) {
        return "inclusion_proof opens another node";
    }
    seal_column_hash(h, cp->rows, layers);
    if (memcmp(h, cp->inclusion.leaf.b, 32) != 0) {
        return "inclusion_proof.leaf is not the column hash of rows";
    }
    if (memcmp(cp->inclusion.root.b, comm_c, 32) != 0) {
        return "inclusion_proof.root is not comm_c";
    }
    if (!seal_merkle_verify(&cp->inclusion, SEAL_HASH_POSEIDON)) {
        return "inclusion_proof does not hash to its root";
    }
    return NULL;
}

/* More partitions than any PoRep configuration has (32 and 64 GiB: 10). */
#define VP_C1_MAX_PARTITIONS 16

/* What every challenge of a C1 shares, for verify_challenge. */
typedef struct c1_check {
    const vp_c1 *c1;
    uint32_t k0; /* the first partition verified */
    seal_tree_shape td, tr;
    seal_graph_t g;
    uint64_t ch[VP_C1_MAX_PARTITIONS][18]; /* challenges of each partition */
    cz_diag *diag; /* one per challenge verified ((k - k0) * challenges + i) */
    cuzk_err *err;
} c1_check;

/* Challenge i of partition k (node c): its three Merkle paths, 15 parent columns, labels and
 * encoding. */
static cuzk_err verify_challenge(const c1_check *x, uint32_t k, uint32_t i, cz_diag *dg)
{
    const vp_c1 *c1 = x->c1;
    const uint32_t L = c1->cfg.shape.layers;
    const seal_tree_shape td = x->td, tr = x->tr;
    const seal_graph_t *g = &x->g;
    const vp_porep_proof *p0 = vp_c1_proof(c1, k, 0);
    const uint8_t *comm_c = p0->c_x.inclusion.root.b;
    const uint8_t *comm_r_last = p0->comm_r_last_proof.root.b;
    const uint64_t c = x->ch[k][i];
    const vp_porep_proof *p = vp_c1_proof(c1, k, i);
    uint32_t par[SEAL_PARENTS];
    const char *why;
    uint8_t h[32];

    /* data: TreeD */
    if (!seal_merkle_matches_shape(&p->comm_d_proof, &td) ||
        seal_merkle_leaf_index(&p->comm_d_proof) != c) {
        return VFAIL("%s", "comm_d_proofs does not open the challenge");
    }
    if (memcmp(p->comm_d_proof.root.b, c1->comm_d, 32) != 0) {
        return VFAIL("%s", "comm_d_proofs.root is not comm_d");
    }
    if (!seal_merkle_verify(&p->comm_d_proof, SEAL_HASH_SHA256)) {
        return VFAIL("%s", "comm_d_proofs does not hash to its root");
    }
    /* replica: TreeRLast */
    if (!seal_merkle_matches_shape(&p->comm_r_last_proof, &tr) ||
        seal_merkle_leaf_index(&p->comm_r_last_proof) != c) {
        return VFAIL("%s", "comm_r_last_proof does not open the challenge");
    }
    if (memcmp(p->comm_r_last_proof.root.b, comm_r_last, 32) != 0) {
        return VFAIL("%s", "comm_r_last_proof.root differs from challenge 0's");
    }
    if (!seal_merkle_verify(&p->comm_r_last_proof, SEAL_HASH_POSEIDON)) {
        return VFAIL("%s", "comm_r_last_proof does not hash to its root");
    }
    /* columns */
    if ((why = check_column(&p->c_x, c, L, &tr, comm_c)) != NULL) {
        return VFAIL("replica_column_proofs.c_x: %s", why);
    }
    seal_graph_parents(g, c, par);
    for (int j = 0; j < SEAL_DRG_DEGREE; j++) {
        if ((why = check_column(&p->drg_parents[j], par[j], L, &tr, comm_c)) != NULL) {
            return VFAIL("replica_column_proofs.drg_parents[%d] (node %u): %s", j, par[j], why);
        }
    }
    for (int j = 0; j < SEAL_EXP_DEGREE; j++) {
        uint32_t e = par[SEAL_DRG_DEGREE + j];
        if ((why = check_column(&p->exp_parents[j], e, L, &tr, comm_c)) != NULL) {
            return VFAIL("replica_column_proofs.exp_parents[%d] (node %u): %s", j, e, why);
        }
    }
    /* labels */
    if (p->nlayers != L) {
        return VFAIL("%u labeling proofs, expected %u", p->nlayers, L);
    }
    for (uint32_t l = 1; l <= L; l++) {
        const vp_labeling_proof *lp = &p->labeling[l - 1];
        seal_node drg[SEAL_DRG_DEGREE], exp[SEAL_EXP_DEGREE], p37[SEAL_LABEL_PARENTS];
        for (int j = 0; j < SEAL_DRG_DEGREE; j++) {
            drg[j] = p->drg_parents[j].rows[l - 1];
        }
        for (int j = 0; j < SEAL_EXP_DEGREE && l > 1; j++) {
            exp[j] = p->exp_parents[j].rows[l - 2];
        }
        seal_label_parents(p37, l, drg, exp);
        if (lp->layer_index != l || lp->node != c) {
            return VFAIL("labeling_proofs[%u]: layer_index %u node %llu, expected "
                         "layer %u",
                         l - 1, lp->layer_index, (unsigned long long)lp->node, l);
        }
        if (memcmp(lp->parents, p37, sizeof(p37)) != 0) {
            return VFAIL("labeling_proofs[%u].parents are not the parent columns' "
                         "labels",
                         l - 1);
        }
        seal_label_node(h, c1->replica_id, l, c, p37);
        if (memcmp(h, p->c_x.rows[l - 1].b, 32) != 0) {
            return VFAIL("layer %u: the label of the challenge is not "
                         "c_x.column.rows[%u]",
                         l, l - 1);
        }
    }
    /* encoding */
    const vp_labeling_proof *ep = &p->encoding;
    if (ep->layer_index != L || ep->node != c ||
        memcmp(ep->parents, p->labeling[L - 1].parents, sizeof(ep->parents)) != 0) {
        return VFAIL("%s", "encoding_proof differs from the last labeling proof");
    }
    if (!seal_node_is_fr(p->comm_d_proof.leaf.b)) {
        return VFAIL("%s", "comm_d_proofs.leaf is not a valid Fr");
    }
    seal_encode_node(h, p->c_x.rows[L - 1].b, p->comm_d_proof.leaf.b);
    if (memcmp(h, p->comm_r_last_proof.leaf.b, 32) != 0) {
        return VFAIL("%s", "comm_r_last_proof.leaf != last label + data leaf");
    }
    return CUZK_OK;
}

static void verify_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const c1_check *x = ctx;
    (void)worker;
    for (size_t n = begin; n < end; n++) {
        uint32_t k = x->k0 + (uint32_t)(n / x->c1->challenges);
        uint32_t i = (uint32_t)(n % x->c1->challenges);
        cz_diag_init(&x->diag[n]);
        x->err[n] = verify_challenge(x, k, i, &x->diag[n]);
    }
}

cuzk_err vp_c1_verify(const vp_c1 *c1, const seal_ids *ids, cz_diag *dg)
{
    return vp_c1_verify_pool(c1, ids, NULL, dg);
}

cuzk_err vp_c1_verify_pool(const vp_c1 *c1, const seal_ids *ids, cz_pool *pool, cz_diag *dg)
{
    return vp_c1_verify_partitions(c1, ids, 0, c1->partitions, pool, dg);
}

cuzk_err vp_c1_verify_partitions(const vp_c1 *c1, const seal_ids *ids, uint32_t k0, uint32_t k1,
                                 cz_pool *pool, cz_diag *dg)
{
    const seal_porep_config *cfg = &c1->cfg;
    c1_check *x = NULL;
    uint8_t h[32];
    cuzk_err err = CUZK_OK;

    if (c1->partitions != cfg->partitions || c1->challenges != cfg->challenges_per_partition ||
        c1->challenges > 18 || c1->partitions > VP_C1_MAX_PARTITIONS) {
        return cz_fail(dg, CUZK_E_FORMAT, "C1: %u partitions x %u challenges, %s needs %u x %u",
                       c1->partitions, c1->challenges, cfg->name, cfg->partitions,
                       cfg->challenges_per_partition);
    }
    if (all_zero(c1->comm_d) || all_zero(c1->comm_r) || all_zero(c1->seed)) {
        return cz_fail(dg, CUZK_E_FORMAT, "C1: comm_d, comm_r and seed must be nonzero");
    }
    if (!seal_node_is_fr(c1->comm_r) || !seal_node_is_fr(c1->replica_id)) {
        return cz_fail(dg, CUZK_E_FORMAT, "C1: comm_r or replica_id is not a valid Fr");
    }
    if (ids) {
        seal_replica_id(h, ids->prover_id, ids->sector_id, c1->ticket, c1->comm_d, cfg->porep_id);
        if (memcmp(h, c1->replica_id, 32) != 0) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "C1: replica_id does not match prover_id, sector_id %llu, ticket and "
                           "comm_d",
                           (unsigned long long)ids->sector_id);
        }
    }
    CZ_CHECK(k0 <= k1 && k1 <= c1->partitions);
    size_t n = (size_t)(k1 - k0) * c1->challenges;
    x = cz_calloc(1, sizeof(*x));
    if (x) {
        x->diag = cz_calloc(n ? n : 1, sizeof(*x->diag));
        x->err = cz_calloc(n ? n : 1, sizeof(*x->err));
    }
    if (!x || !x->diag || !x->err) {
        err = cz_fail(dg, CUZK_E_NOMEM, "C1 verification of %zu challenges", n);
        goto done;
    }
    x->c1 = c1;
    x->k0 = k0;
    seal_tree_shape_d(&x->td, cfg->shape.nodes);
    seal_tree_shape_r(&x->tr, &cfg->shape);
    seal_graph_init(&x->g, cfg->shape.nodes, cfg->porep_id, cfg->api);
    for (uint32_t k = k0; k < k1; k++) {
        const vp_porep_proof *p0 = vp_c1_proof(c1, k, 0);
        const uint8_t *comm_c = p0->c_x.inclusion.root.b;
        const uint8_t *comm_r_last = p0->comm_r_last_proof.root.b;

        if (!seal_node_is_fr(comm_c) || !seal_node_is_fr(comm_r_last)) {
            err = cz_fail(dg, CUZK_E_FORMAT,
                          "C1 partition %u: comm_c or comm_r_last is not a valid Fr", k);
            goto done;
        }
        seal_comm_r(h, comm_c, comm_r_last);
        if (memcmp(h, c1->comm_r, 32) != 0) {
            err = cz_fail(dg, CUZK_E_FORMAT,
                          "C1 partition %u: comm_r != Poseidon2(comm_c, comm_r_last) of "
                          "challenge 0",
                          k);
            goto done;
        }
        seal_porep_challenges(x->ch[k], cfg, c1->replica_id, c1->comm_r, c1->seed, k);
    }
    /* Every challenge is independent: in parallel, the first failure in order reported. */
    cz_pool_for(pool, n, 1, verify_task, x);
    for (size_t m = 0; m < n; m++) {
        if (x->err[m] != CUZK_OK) {
            err = cz_fail(dg, x->err[m], "%s", x->diag[m].msg);
            goto done;
        }
    }
done:
    if (x) {
        cz_free(x->diag);
        cz_free(x->err);
    }
    cz_free(x);
    return err;
}

size_t vp_porep_num_inputs(const seal_porep_config *cfg)
{
    return 3 + 18 * (size_t)cfg->challenges_per_partition;
}

cuzk_err vp_porep_public_inputs(fr_t *out, const seal_porep_config *cfg,
                                const uint8_t replica_id[32], const uint8_t comm_d[32],
                                const uint8_t comm_r[32], const uint8_t seed[32], uint32_t k,
                                cz_diag *dg)
{
    uint64_t ch[18];
    seal_graph_t g;
    size_t o = 3;

    if (k >= cfg->partitions || cfg->challenges_per_partition > ARRAY_LEN(ch)) {
        return cz_fail(dg, CUZK_E_INVAL, "PoRep public inputs: partition %u of %u", k,
                       cfg->partitions);
    }
    if (fr_from_bytes(&out[0], replica_id) != CUZK_OK ||
        fr_from_bytes(&out[1], comm_d) != CUZK_OK || fr_from_bytes(&out[2], comm_r) != CUZK_OK) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "PoRep public inputs: replica_id, comm_d or comm_r is not a valid Fr");
    }
    seal_graph_init(&g, cfg->shape.nodes, cfg->porep_id, cfg->api);
    seal_porep_challenges(ch, cfg, replica_id, comm_r, seed, k);
    for (uint32_t i = 0; i < cfg->challenges_per_partition; i++) {
        uint32_t par[SEAL_PARENTS];
        seal_graph_parents(&g, ch[i], par);
        fr_from_u64(&out[o++], ch[i]); /* TreeD inclusion */
        for (int j = 0; j < SEAL_PARENTS; j++) {
            fr_from_u64(&out[o++], par[j]); /* TreeC inclusions of the 6 + 8 parents */
        }
        fr_from_u64(&out[o++], ch[i]); /* the challenge as a packed UInt64 */
        fr_from_u64(&out[o++], ch[i]); /* TreeRLast inclusion */
        fr_from_u64(&out[o++], ch[i]); /* TreeC inclusion of the challenge's column */
    }
    CZ_CHECK(o == vp_porep_num_inputs(cfg));
    return CUZK_OK;
}
