/* vanilla.c - circuit witnesses from the proofs/ structures (vp_c1, vp_post_proof,
 * vp_snap_proof): the circuits' Proof::from(vanilla) conversions (storage-proofs-porep
 * stacked/circuit/params.rs, storage-proofs-post fallback/circuit.rs Sector::circuit,
 * storage-proofs-update circuit.rs PrivateInputs::new). Only values move: 32-byte nodes become
 * field elements (CUZK_E_FORMAT when one is not < r) and Merkle proofs become circ_path_t after
 * their element counts and arities are checked against the circuit's tree shape.
 */
#include "circuits/circuits.h"

#include <stdio.h>
#include <string.h>

#include "circuits/internal.h"
#include "common/alloc.h"

static cuzk_err node_fr(fr_t *out, const uint8_t node[32], const char *what, cz_diag *dg)
{
    if (fr_from_bytes(out, node) != CUZK_OK) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: not a field element", what);
    }
    return CUZK_OK;
}

/* One Merkle proof into sib (gad_tree_shape_siblings(shape) values) and idx (one per level);
 * the proof must have exactly the shape's levels and arities. */
static cuzk_err path_from(circ_path_t *out, fr_t *sib, uint32_t *idx, const gad_tree_shape_t *shape,
                          const seal_merkle_proof *p, const char *what, cz_diag *dg)
{
    size_t levels = gad_tree_shape_levels(shape), ns = 0;

    if (p->nelems != levels || levels > SEAL_MAX_PATH) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: %u path elements, the circuit has %zu levels", what,
                       p->nelems, levels);
    }
    for (size_t l = 0; l < levels; l++) {
        uint32_t arity = gad_tree_shape_arity(shape, l);
        if (p->arity[l] != arity || p->index[l] >= arity) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "%s: element %zu has arity %u position %llu, the "
                           "circuit expects arity %u",
                           what, l, p->arity[l], (unsigned long long)p->index[l], arity);
        }
        idx[l] = (uint32_t)p->index[l];
        for (uint32_t s = 0; s + 1 < arity; s++, ns++) {
            cuzk_err err = node_fr(&sib[ns], p->sib[ns].b, what, dg);
            if (err != CUZK_OK) {
                return err;
            }
        }
    }
    out->siblings = sib;
    out->index = idx;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * PoRep
 * ---------------------------------------------------------------------------------------- */

#define POREP_PATHS (3 + CIRC_DRG_PARENTS + CIRC_EXP_PARENTS)

/* Per challenge: POREP_PATHS paths and 14 columns. */
typedef struct porep_store {
    fr_t sib[POREP_PATHS][CIRC_MAX_SIBLINGS];
    uint32_t idx[POREP_PATHS][CIRC_MAX_LEVELS];
    fr_t rows[CIRC_DRG_PARENTS + CIRC_EXP_PARENTS][SEAL_MAX_LAYERS];
} porep_store;

void circ_porep_vanilla_clear(circ_porep_vanilla_t *v)
{
    cz_free(v->challenges);
    cz_free(v->store);
    memset(v, 0, sizeof(*v));
}

static cuzk_err column_from(circ_column_t *out, fr_t *rows, fr_t *sib, uint32_t *idx,
                            const circ_porep_cfg_t *cfg, const vp_column_proof *col,
                            const char *what, cz_diag *dg)
{
    cuzk_err err;

    if (col->nrows != cfg->layers) {
        return cz_fail(dg, CUZK_E_FORMAT, "%s: %u rows, the circuit has %u layers", what,
                       col->nrows, cfg->layers);
    }
    for (uint32_t r = 0; r < cfg->layers; r++) {
        if ((err = node_fr(&rows[r], col->rows[r].b, what, dg)) != CUZK_OK) {
            return err;
        }
    }
    out->rows = rows;
    return path_from(&out->path, sib, idx, &cfg->tree, &col->inclusion, what, dg);
}

cuzk_err circ_porep_from_c1(circ_porep_vanilla_t *out, const vp_c1 *c1, uint32_t k, cz_diag *dg)
{
    const seal_shape *sh = &c1->cfg.shape;
    porep_store *st = NULL;
    cuzk_err err = CUZK_OK;
    char what[96];

    memset(out, 0, sizeof(*out));
    if (k >= c1->partitions || c1->challenges == 0 ||
        c1->challenges > CIRC_MAX_CHALLENGES_PER_PARTITION ||
        !circ_porep_cfg_init(&out->cfg, sh->nodes, sh->base_arity, sh->sub_arity, sh->top_arity,
                             sh->layers, c1->challenges)) {
        return cz_fail(dg, CUZK_E_INVAL, "C1: no circuit for partition %u of %s", k,
                       c1->cfg.name ? c1->cfg.name : "?");
    }
    out->challenges = cz_calloc(c1->challenges, sizeof(*out->challenges));
    st = out->store = cz_calloc(c1->challenges, sizeof(*st));
    if (!out->challenges || !st) {
        circ_porep_vanilla_clear(out);
        return cz_fail(dg, CUZK_E_NOMEM, "C1: witness storage");
    }
    for (uint32_t i = 0; i < c1->challenges && err == CUZK_OK; i++) {
        const vp_porep_proof *p = vp_c1_proof(c1, k, i);
        circ_porep_challenge_t *ch = &out->challenges[i];
        porep_store *s = &st[i];

        snprintf(what, sizeof(what), "C1 partition %u challenge %u", k, i);
        ch->node = p->labeling[0].node;
        err = node_fr(&ch->data_leaf, p->comm_d_proof.leaf.b, what, dg);
        if (err == CUZK_OK) {
            err = path_from(&ch->comm_d_path, s->sib[0], s->idx[0], &out->cfg.tree_d,
                            &p->comm_d_proof, what, dg);
        }
        if (err == CUZK_OK) {
            err = path_from(&ch->comm_r_last_path, s->sib[1], s->idx[1], &out->cfg.tree,
                            &p->comm_r_last_proof, what, dg);
        }
        if (err == CUZK_OK) {
            err = path_from(&ch->comm_c_path, s->sib[2], s->idx[2], &out->cfg.tree,
                            &p->c_x.inclusion, what, dg);
        }
        for (size_t j = 0; j < CIRC_DRG_PARENTS && err == CUZK_OK; j++) {
            err = column_from(&ch->drg[j], s->rows[j], s->sib[3 + j], s->idx[3 + j], &out->cfg,
                              &p->drg_parents[j], what, dg);
        }
        for (size_t j = 0; j < CIRC_EXP_PARENTS && err == CUZK_OK; j++) {
            err = column_from(&ch->exp[j], s->rows[CIRC_DRG_PARENTS + j],
                              s->sib[3 + CIRC_DRG_PARENTS + j], s->idx[3 + CIRC_DRG_PARENTS + j],
                              &out->cfg, &p->exp_parents[j], what, dg);
        }
    }
    /* public values, and comm_c / comm_r_last from the first proof's roots */
    if (err == CUZK_OK) {
        const vp_porep_proof *p0 = vp_c1_proof(c1, k, 0);
        if ((err = node_fr(&out->w.replica_id, c1->replica_id, "C1 replica_id", dg)) == CUZK_OK &&
            (err = node_fr(&out->w.comm_d, c1->comm_d, "C1 comm_d", dg)) == CUZK_OK &&
            (err = node_fr(&out->w.comm_r, c1->comm_r, "C1 comm_r", dg)) == CUZK_OK &&
            (err = node_fr(&out->w.comm_c, p0->c_x.inclusion.root.b, "C1 comm_c", dg)) == CUZK_OK) {
            err = node_fr(&out->w.comm_r_last, p0->comm_r_last_proof.root.b, "C1 comm_r_last", dg);
        }
    }
    if (err != CUZK_OK) {
        circ_porep_vanilla_clear(out);
        return err;
    }
    out->w.challenges = out->challenges;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * PoSt
 * ---------------------------------------------------------------------------------------- */

void circ_post_vanilla_clear(circ_post_vanilla_t *v)
{
    cz_free(v->sectors);
    cz_free(v->leaves);
    cz_free(v->paths);
    cz_free(v->sib);
    cz_free(v->idx);
    memset(v, 0, sizeof(*v));
}

cuzk_err circ_post_from_vanilla(circ_post_vanilla_t *out, const seal_post_config *pc,
                                const vp_post_proof *proofs, size_t n, cz_diag *dg)
{
    const seal_shape *sh = &pc->shape;
    bool winning = pc->type == SEAL_POST_WINNING;
    size_t nsib, levels, npaths, real;
    cuzk_err err = CUZK_OK;
    char what[64];

    memset(out, 0, sizeof(*out));
    if (winning ? !circ_winning_post_cfg(&out->cfg, sh->sector_size)
                : !circ_window_post_cfg(&out->cfg, sh->sector_size, pc->sector_count)) {
        return cz_fail(dg, CUZK_E_INVAL, "PoSt: no circuit for %s", pc->name ? pc->name : "?");
    }
    /* winning: one sector whose 66 challenges become 66 circuit sectors */
    real = winning ? out->cfg.sector_count : n;
    if (n == 0 || (winning && n != 1) || (!winning && n > out->cfg.sector_count)) {
        return cz_fail(dg, CUZK_E_INVAL, "PoSt: %zu vanilla proofs for a partition of %u sectors",
                       n, winning ? 1u : out->cfg.sector_count);
    }
    for (size_t i = 0; i < n; i++) {
        size_t want = winning ? out->cfg.sector_count : out->cfg.challenge_count;
        if (proofs[i].ninclusion != want) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "PoSt sector %zu: %zu inclusion proofs, expected "
                           "%zu",
                           i, proofs[i].ninclusion, want);
        }
    }
    nsib = gad_tree_shape_siblings(&out->cfg.tree);
    levels = gad_tree_shape_levels(&out->cfg.tree);
    npaths = real * out->cfg.challenge_count;
    out->sectors = cz_calloc(out->cfg.sector_count, sizeof(*out->sectors));
    out->leaves = cz_calloc(npaths, sizeof(fr_t));
    out->paths = cz_calloc(npaths, sizeof(circ_path_t));
    out->sib = cz_calloc(npaths * nsib + 1, sizeof(fr_t));
    out->idx = cz_calloc(npaths * levels + 1, sizeof(uint32_t));
    if (!out->sectors || !out->leaves || !out->paths || !out->sib || !out->idx) {
        circ_post_vanilla_clear(out);
        return cz_fail(dg, CUZK_E_NOMEM, "PoSt: witness storage");
    }
    for (size_t i = 0; i < real && err == CUZK_OK; i++) {
        const vp_post_proof *p = winning ? &proofs[0] : &proofs[i];
        circ_post_sector_t *s = &out->sectors[i];
        size_t first = i * out->cfg.challenge_count;

        snprintf(what, sizeof(what), "PoSt sector %zu", winning ? (size_t)0 : i);
        if ((err = node_fr(&s->comm_r, p->comm_r, what, dg)) != CUZK_OK ||
            (err = node_fr(&s->comm_c, p->comm_c, what, dg)) != CUZK_OK ||
            (err = node_fr(&s->comm_r_last, p->comm_r_last, what, dg)) != CUZK_OK) {
            break;
        }
        for (size_t j = 0; j < out->cfg.challenge_count && err == CUZK_OK; j++) {
            const seal_merkle_proof *mp = &p->inclusion[winning ? i : j];
            size_t q = first + j;
            err = node_fr(&out->leaves[q], mp->leaf.b, what, dg);
            if (err == CUZK_OK) {
                err = path_from(&out->paths[q], out->sib + q * nsib, out->idx + q * levels,
                                &out->cfg.tree, mp, what, dg);
            }
        }
        s->leaves = &out->leaves[first];
        s->paths = &out->paths[first];
    }
    if (err != CUZK_OK) {
        circ_post_vanilla_clear(out);
        return err;
    }
    /* a short window partition repeats its last sector */
    for (size_t i = real; i < out->cfg.sector_count; i++) {
        out->sectors[i] = out->sectors[real - 1];
    }
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * SnapDeals (standard variant, the one the API uses)
 * ---------------------------------------------------------------------------------------- */

void circ_update_vanilla_clear(circ_update_vanilla_t *v)
{
    cz_free(v->challenges);
    cz_free(v->sib);
    memset(v, 0, sizeof(*v));
}

cuzk_err circ_update_from_vanilla(circ_update_vanilla_t *out, const seal_update_config *uc,
                                  const vp_snap_proof *p, uint32_t k, const uint8_t comm_r_old[32],
                                  const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
                                  cz_diag *dg)
{
    size_t nr, nd, per;
    cuzk_err err = CUZK_OK;
    char what[64];

    memset(out, 0, sizeof(*out));
    if (!circ_update_cfg_init(&out->cfg, uc->shape.nodes, false) ||
        out->cfg.challenges != uc->challenges || out->cfg.apex_leaves != uc->apex_leafs) {
        return cz_fail(dg, CUZK_E_INVAL, "SnapDeals: no circuit for %s", uc->name ? uc->name : "?");
    }
    if (p->nchallenges != out->cfg.challenges || p->napex != out->cfg.apex_leaves) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals partition %u: %zu challenges and %u apex "
                       "leaves, expected %u and %u",
                       k, p->nchallenges, p->napex, out->cfg.challenges, out->cfg.apex_leaves);
    }
    nr = gad_tree_shape_siblings(&out->cfg.tree_r);
    nd = gad_tree_shape_siblings(&out->cfg.tree_d);
    per = 2 * nr + nd;
    out->challenges = cz_calloc(out->cfg.challenges, sizeof(*out->challenges));
    out->sib = cz_calloc(out->cfg.challenges * per, sizeof(fr_t));
    if (!out->challenges || !out->sib) {
        circ_update_vanilla_clear(out);
        return cz_fail(dg, CUZK_E_NOMEM, "SnapDeals: witness storage");
    }
    for (uint32_t c = 0; c < out->cfg.challenges && err == CUZK_OK; c++) {
        const vp_snap_challenge_proof *cp = &p->challenges[c];
        circ_update_challenge_t *ch = &out->challenges[c];
        fr_t *s = out->sib + (size_t)c * per;
        uint32_t idx[CIRC_MAX_LEVELS];
        circ_path_t tmp;

        snprintf(what, sizeof(what), "SnapDeals partition %u challenge %u", k, c);
        if ((err = node_fr(&ch->leaf_r_old, cp->r_old.leaf.b, what, dg)) != CUZK_OK ||
            (err = node_fr(&ch->leaf_d_new, cp->d_new.leaf.b, what, dg)) != CUZK_OK ||
            (err = path_from(&tmp, s, idx, &out->cfg.tree_r, &cp->r_old, what, dg)) != CUZK_OK ||
            (err = path_from(&tmp, s + nr, idx, &out->cfg.tree_d, &cp->d_new, what, dg)) !=
                CUZK_OK ||
            (err = path_from(&tmp, s + nr + nd, idx, &out->cfg.tree_r, &cp->r_new, what, dg)) !=
                CUZK_OK) {
            break;
        }
        ch->path_r_old = s;
        ch->path_d_new = s + nr;
        ch->path_r_new = s + nr + nd;
    }
    for (uint32_t i = 0; i < out->cfg.apex_leaves && err == CUZK_OK; i++) {
        err = node_fr(&out->apex[i], p->apex_leafs[i].b, "SnapDeals apex leaf", dg);
    }
    if (err == CUZK_OK &&
        (err = node_fr(&out->w.comm_c, p->comm_c, "SnapDeals comm_c", dg)) == CUZK_OK &&
        (err = node_fr(&out->w.comm_r_old, comm_r_old, "comm_r_old", dg)) == CUZK_OK &&
        (err = node_fr(&out->w.comm_d_new, comm_d_new, "comm_d_new", dg)) == CUZK_OK &&
        (err = node_fr(&out->w.comm_r_new, comm_r_new, "comm_r_new", dg)) == CUZK_OK &&
        (err = node_fr(&out->w.root_r_old, p->challenges[0].r_old.root.b, "root_r_old", dg)) ==
            CUZK_OK) {
        err = node_fr(&out->w.root_r_new, p->challenges[0].r_new.root.b, "root_r_new", dg);
    }
    if (err != CUZK_OK) {
        circ_update_vanilla_clear(out);
        return err;
    }
    out->w.k = k;
    out->w.h = uc->h;
    out->w.apex_leaves = out->apex;
    out->w.challenges = out->challenges;
    return CUZK_OK;
}
