/* snap.c - SnapDeals (EmptySectorUpdate) partition proofs (vanilla-proofs.md 3): bincode
 * PartitionProof, Curio's JSON list of base64 proofs, the vanilla verification of
 * storage-proofs-update vanilla.rs, and the circuit's 4 public inputs.
 */
#include "proofs/internal.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "hash/sha256.h"

void vp_snap_clear(vp_snap_proof *p)
{
    if (!p) {
        return;
    }
    cz_free(p->challenges);
    memset(p, 0, sizeof(*p));
}

cuzk_err vp_snap_from_bincode(vp_snap_proof *out, uint64_t sector_size, const uint8_t *buf,
                              size_t len, cz_diag *dg)
{
    seal_update_config uc;
    seal_tree_shape td, tr;
    vp_br r;
    uint64_t n;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    if (!seal_update_config_for_size(&uc, sector_size)) {
        return cz_fail(dg, CUZK_E_INVAL, "SnapDeals partition proof: unsupported sector size %llu",
                       (unsigned long long)sector_size);
    }
    seal_tree_shape_d(&td, uc.shape.nodes);
    seal_tree_shape_r(&tr, &uc.shape);
    vp_br_init(&r, "SnapDeals partition proof", buf, len, dg);
    size_t m = vp_path_push(&r.path, "comm_c");
    CZ_TRY(err, vp_br_node(&r, out->comm_c), fail);
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "apex_leafs");
    CZ_TRY(err, vp_br_len(&r, &n, 32), fail);
    if (n != uc.apex_leafs) {
        r.pos -= 8;
        err = vp_br_fail(&r, "expected %u apex leafs, found %llu", uc.apex_leafs,
                         (unsigned long long)n);
        goto fail;
    }
    out->napex = uc.apex_leafs;
    for (uint32_t i = 0; i < out->napex; i++) {
        CZ_TRY(err, vp_br_node(&r, out->apex_leafs[i].b), fail);
    }
    vp_path_pop(&r.path, m);
    m = vp_path_push(&r.path, "challenge_proofs");
    CZ_TRY(err, vp_br_len(&r, &n, 1), fail);
    if (n != uc.challenges) {
        r.pos -= 8;
        err = vp_br_fail(&r, "expected %u challenge proofs, found %llu", uc.challenges,
                         (unsigned long long)n);
        goto fail;
    }
    out->challenges = cz_calloc((size_t)n, sizeof(vp_snap_challenge_proof));
    if (!out->challenges) {
        err = cz_fail(dg, CUZK_E_NOMEM, "SnapDeals partition proof: challenges");
        goto fail;
    }
    out->nchallenges = (size_t)n;
    for (size_t i = 0; i < out->nchallenges; i++) {
        vp_snap_challenge_proof *c = &out->challenges[i];
        size_t m1 = vp_path_push(&r.path, "[%zu].proof_r_old", i);
        CZ_TRY(err, vp_br_merkle(&r, &c->r_old, &tr), fail);
        vp_path_pop(&r.path, m1);
        m1 = vp_path_push(&r.path, "[%zu].proof_d_new", i);
        CZ_TRY(err, vp_br_merkle(&r, &c->d_new, &td), fail);
        vp_path_pop(&r.path, m1);
        m1 = vp_path_push(&r.path, "[%zu].proof_r_new", i);
        CZ_TRY(err, vp_br_merkle(&r, &c->r_new, &tr), fail);
        vp_path_pop(&r.path, m1);
    }
    vp_path_pop(&r.path, m);
    CZ_TRY(err, vp_br_end(&r), fail);
    return CUZK_OK;
fail:
    vp_snap_clear(out);
    return err;
}

cuzk_err vp_snap_to_bincode(const vp_snap_proof *p, uint8_t **out, size_t *len, cz_diag *dg)
{
    vp_buf b = {0};
    char *s;
    cuzk_err err;

    vp_buf_put(&b, p->comm_c, 32);
    vp_buf_u64le(&b, p->napex);
    for (uint32_t i = 0; i < p->napex; i++) {
        vp_buf_put(&b, p->apex_leafs[i].b, 32);
    }
    vp_buf_u64le(&b, p->nchallenges);
    for (size_t i = 0; i < p->nchallenges; i++) {
        vp_bw_merkle(&b, &p->challenges[i].r_old);
        vp_bw_merkle(&b, &p->challenges[i].d_new);
        vp_bw_merkle(&b, &p->challenges[i].r_new);
    }
    err = vp_buf_finish(&b, &s, len, dg);
    *out = (uint8_t *)s;
    return err;
}

cuzk_err vp_snap_verify(const vp_snap_proof *p, const seal_update_config *cfg, uint32_t k,
                        const uint8_t comm_r_old[32], const uint8_t comm_d_new[32],
                        const uint8_t comm_r_new[32], cz_diag *dg)
{
    seal_tree_shape td, tr;
    seal_node apex[2 * SEAL_UPDATE_MAX_APEX];
    size_t row_off[8], row_len[8];
    uint8_t root_old[32], root_new[32], h[32], phi[32];
    uint64_t ch[86];
    const uint32_t log2n = cfg->shape.log2_nodes;
    const uint32_t apex_height = log2n - cfg->partition_bits - cfg->apex_bits;

    if (k >= cfg->partitions) {
        return cz_fail(dg, CUZK_E_INVAL, "SnapDeals: partition %u of %u", k, cfg->partitions);
    }
    if (p->napex != cfg->apex_leafs || p->nchallenges != cfg->challenges) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals partition %u: %u apex leafs and %zu challenges, expected %u "
                       "and %u",
                       k, p->napex, p->nchallenges, cfg->apex_leafs, cfg->challenges);
    }
    if (!seal_node_is_fr(comm_r_old) || !seal_node_is_fr(comm_d_new) ||
        !seal_node_is_fr(comm_r_new) || !seal_node_is_fr(p->comm_c)) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals partition %u: a commitment is not a valid "
                       "Fr",
                       k);
    }
    seal_tree_shape_d(&td, cfg->shape.nodes);
    seal_tree_shape_r(&tr, &cfg->shape);
    memcpy(root_old, p->challenges[0].r_old.root.b, 32);
    memcpy(root_new, p->challenges[0].r_new.root.b, 32);
    if (!seal_node_is_fr(root_old) || !seal_node_is_fr(root_new)) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals partition %u: a TreeR root is not a valid "
                       "Fr",
                       k);
    }
    seal_comm_r(h, p->comm_c, root_old);
    if (memcmp(h, comm_r_old, 32) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals partition %u: comm_r_old != Poseidon2(comm_c, root of "
                       "proof_r_old)",
                       k);
    }
    seal_comm_r(h, p->comm_c, root_new);
    if (memcmp(h, comm_r_new, 32) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals partition %u: comm_r_new != Poseidon2(comm_c, root of "
                       "proof_r_new)",
                       k);
    }
    /* the apex tree rows 0 (the apex leaves) .. apex_bits - 1, each from the one below by
     * TreeD hashing (storage-proofs-update vanilla.rs verify) */
    size_t off = 0, n = p->napex;
    for (uint32_t j = 0; j < cfg->apex_bits; j++) {
        row_off[j] = off;
        row_len[j] = n;
        for (size_t i = 0; i < n; i++) {
            if (j == 0) {
                apex[off + i] = p->apex_leafs[i];
            } else {
                const seal_node *prev = &apex[row_off[j - 1]];
                sha256_fr32_node(apex[off + i].b, prev[2 * i].b, prev[2 * i + 1].b);
            }
        }
        off += n;
        n /= 2;
    }

    seal_snap_phi(phi, comm_d_new, comm_r_old);
    seal_snap_challenges(ch, cfg, comm_r_new, k);
    for (uint32_t i = 0; i < cfg->challenges; i++) {
        const vp_snap_challenge_proof *c = &p->challenges[i];
        const seal_merkle_proof *pr[3] = {&c->r_old, &c->d_new, &c->r_new};
        static const char *const names[3] = {"proof_r_old", "proof_d_new", "proof_r_new"};
        const uint8_t *roots[3] = {root_old, comm_d_new, root_new};
        for (int t = 0; t < 3; t++) {
            const seal_tree_shape *s = t == 1 ? &td : &tr;
            if (!seal_merkle_matches_shape(pr[t], s)) {
                return cz_fail(dg, CUZK_E_FORMAT,
                               "SnapDeals partition %u challenge %u: %s: "
                               "wrong path shape",
                               k, i, names[t]);
            }
            if (seal_merkle_leaf_index(pr[t]) != ch[i]) {
                return cz_fail(dg, CUZK_E_FORMAT,
                               "SnapDeals partition %u challenge %u: %s opens node %llu, the "
                               "challenge is %llu",
                               k, i, names[t], (unsigned long long)seal_merkle_leaf_index(pr[t]),
                               (unsigned long long)ch[i]);
            }
            if (memcmp(pr[t]->root.b, roots[t], 32) != 0) {
                return cz_fail(dg, CUZK_E_FORMAT,
                               "SnapDeals partition %u challenge %u: %s: wrong root", k, i,
                               names[t]);
            }
            if (!seal_merkle_verify(pr[t], t == 1 ? SEAL_HASH_SHA256 : SEAL_HASH_POSEIDON)) {
                return cz_fail(dg, CUZK_E_FORMAT,
                               "SnapDeals partition %u challenge %u: %s: "
                               "path does not hash to the root",
                               k, i, names[t]);
            }
        }
        /* encoding: new = old + data * rho(c >> (log2 N - h)) */
        fr_t o, d, rho, nw;
        if (fr_from_bytes(&o, c->r_old.leaf.b) != CUZK_OK ||
            fr_from_bytes(&d, c->d_new.leaf.b) != CUZK_OK ||
            fr_from_bytes(&nw, c->r_new.leaf.b) != CUZK_OK) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "SnapDeals partition %u challenge %u: a leaf is not a valid Fr", k, i);
        }
        seal_snap_rho(&rho, phi, ch[i] >> (log2n - cfg->h));
        fr_mul(&d, &d, &rho);
        fr_add(&o, &o, &d);
        if (!fr_eq(&o, &nw)) {
            return cz_fail(dg, CUZK_E_FORMAT,
                           "SnapDeals partition %u challenge %u: leaf of proof_r_new != "
                           "old + data * rho",
                           k, i);
        }
        /* the apex part of the TreeD path: each sibling must be a node of the apex tree row */
        for (uint32_t j = 0; j < cfg->apex_bits; j++) {
            const seal_node *sib = seal_merkle_sib(&c->d_new, apex_height + j);
            bool found = false;
            for (size_t a = 0; a < row_len[j] && !found; a++) {
                found = memcmp(apex[row_off[j] + a].b, sib->b, 32) == 0;
            }
            if (!found) {
                return cz_fail(dg, CUZK_E_FORMAT,
                               "SnapDeals partition %u challenge %u: proof_d_new element %u "
                               "is not in apex row %u",
                               k, i, apex_height + j, j);
            }
        }
    }
    return CUZK_OK;
}

cuzk_err vp_snap_public_inputs(fr_t out[VP_SNAP_NUM_INPUTS], const seal_update_config *cfg,
                               uint32_t k, const uint8_t comm_r_old[32],
                               const uint8_t comm_d_new[32], const uint8_t comm_r_new[32],
                               cz_diag *dg)
{
    if (k >= cfg->partitions) {
        return cz_fail(dg, CUZK_E_INVAL, "SnapDeals: partition %u of %u", k, cfg->partitions);
    }
    fr_from_u64(&out[0], (uint64_t)k | ((uint64_t)cfg->h_select << cfg->partition_bits));
    if (fr_from_bytes(&out[1], comm_r_old) != CUZK_OK ||
        fr_from_bytes(&out[2], comm_d_new) != CUZK_OK ||
        fr_from_bytes(&out[3], comm_r_new) != CUZK_OK) {
        return cz_fail(dg, CUZK_E_FORMAT,
                       "SnapDeals public inputs: a commitment is not a "
                       "valid Fr");
    }
    return CUZK_OK;
}

cuzk_err vp_snap_list_to_json(const vp_snap_proof *parts, size_t n, char **out, size_t *len,
                              cz_diag *dg)
{
    vp_buf b = {0};
    cuzk_err err = CUZK_OK;

    *out = NULL;
    vp_buf_str(&b, "[");
    for (size_t i = 0; i < n; i++) {
        uint8_t *bin;
        size_t blen;
        if ((err = vp_snap_to_bincode(&parts[i], &bin, &blen, dg)) != CUZK_OK) {
            vp_buf_free(&b);
            return err;
        }
        if (i) {
            vp_buf_str(&b, ",");
        }
        vp_buf_b64(&b, bin, blen);
        cz_free(bin);
    }
    vp_buf_str(&b, "]");
    return vp_buf_finish(&b, out, len, dg);
}

/* The partitions read so far. */
typedef struct snap_list {
    vp_snap_proof *parts;
    size_t cap;
    uint64_t sector_size;
} snap_list;

/* vp_b64_entry_fn: decodes the bincode of partition i. */
static cuzk_err snap_list_take(void *ctx, vp_jr *r, size_t i, uint8_t *bin, size_t len)
{
    snap_list *l = ctx;
    cuzk_err err;

    if (i == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 4;
        vp_snap_proof *np = cz_realloc(l->parts, nc * sizeof(*np));
        if (!np) {
            cz_free(bin);
            return cz_fail(r->dg, CUZK_E_NOMEM, "SnapDeals JSON");
        }
        l->parts = np;
        l->cap = nc;
    }
    err = vp_snap_from_bincode(&l->parts[i], l->sector_size, bin, len, r->dg);
    cz_free(bin);
    if (err != CUZK_OK && r->dg) {
        char inner[sizeof(r->dg->msg)];
        snprintf(inner, sizeof(inner), "%s", r->dg->msg);
        cz_fail(r->dg, err, "SnapDeals JSON: %s: %s", r->path.s, inner);
    }
    return err;
}

cuzk_err vp_snap_list_from_json(vp_snap_proof **out, size_t *n, uint64_t sector_size,
                                const char *json, size_t len, cz_diag *dg)
{
    snap_list l = {.sector_size = sector_size};
    size_t count = 0;
    vp_jr r;
    cuzk_err err;

    *out = NULL;
    *n = 0;
    vp_jr_init(&r, "SnapDeals JSON", json, len, dg);
    err = vp_jr_b64_list(&r, "partition", snap_list_take, &l, &count);
    if (err == CUZK_OK) {
        err = vp_jr_end(&r);
    }
    if (err != CUZK_OK) {
        for (size_t i = 0; i < count; i++) {
            vp_snap_clear(&l.parts[i]);
        }
        cz_free(l.parts);
        return err;
    }
    *out = l.parts;
    *n = count;
    return CUZK_OK;
}
