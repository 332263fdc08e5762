/* c1.c - the PoRep C1 output `SealCommitPhase1Output` (vanilla-proofs.md 1): JSON as
 * filecoin-ffi writes it (read in any key order), Curio's base64 wrapper, and the bincode form
 * of filecoin-proofs' SealCommitPhase1Output.
 *
 * The shape of every Merkle proof follows from the sector size, which the JSON carries twice:
 * in registered_proof and in the VanillaSealProof variant key. The variant key is what the
 * proofs are read with (it may come first); registered_proof must agree with it, and fixes the
 * partition and challenge counts checked at the end.
 */
#include "proofs/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/base64.h"

void vp_c1_clear(vp_c1 *c1)
{
    if (!c1) {
        return;
    }
    cz_free(c1->proofs);
    memset(c1, 0, sizeof(*c1));
}

/* The sector size named by a VanillaSealProof variant key ("StackedDrg32GiBV1"). */
static bool variant_shape(const char *key, seal_shape *out)
{
    for (uint32_t id = 0; id < 5; id++) {
        seal_porep_config c;
        if (seal_porep_config_for_id(&c, id) && strcmp(c.c1_variant, key) == 0) {
            *out = c.shape;
            return true;
        }
    }
    return false;
}

/* ---- JSON: one challenge ----------------------------------------------------------------- */

/* What the VanillaSealProof variant key fixes, for the readers below (their ctx). */
typedef struct c1_ctx {
    seal_shape shape;
    seal_tree_shape tree_d, tree_r;
    char variant[128]; /* the key itself */
} c1_ctx;

/* vp_jelem_fn: node i (dst: the seal_node array). */
static cuzk_err je_node(vp_jr *r, size_t i, void *dst, void *ctx)
{
    (void)ctx;
    return vp_jr_node(r, ((seal_node *)dst)[i].b);
}

/* Exactly `want` nodes, `what` ("rows", "parents") in the messages. */
static cuzk_err jr_nodes(vp_jr *r, seal_node *out, uint32_t want, const char *what)
{
    const vp_jarray nodes = {je_node, what, NULL, false};

    return vp_jr_elements(r, &nodes, want, out, NULL, NULL);
}

static cuzk_err jf_tree_d(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_merkle(r, dst, &((const c1_ctx *)ctx)->tree_d);
}

static cuzk_err jf_tree_r(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_merkle(r, dst, &((const c1_ctx *)ctx)->tree_r);
}

static cuzk_err jf_rows(vp_jr *r, void *dst, void *ctx)
{
    vp_column_proof *cp = dst;
    const c1_ctx *x = ctx;

    cp->nrows = x->shape.layers;
    return jr_nodes(r, cp->rows, x->shape.layers, "rows");
}

/* Column: the node's labels; "_h" is PhantomData, null each time it appears (a repeat is no
 * error). */
static const vp_jfield COLUMN_FIELDS[] = {
    {"index", vp_jf_u32, offsetof(vp_column_proof, index), VP_JF_REQUIRED},
    {"rows", jf_rows, 0, VP_JF_REQUIRED},
    {"_h", vp_jf_null, 0, VP_JF_REPEAT},
};
static const vp_jtable COLUMN = {COLUMN_FIELDS, ARRAY_LEN(COLUMN_FIELDS), VP_JR_SERDE, VP_JR_SKIP};

static cuzk_err jf_column(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &COLUMN, dst, ctx, NULL);
}

/* ColumnProof (dst: vp_column_proof). */
static const vp_jfield COLUMN_PROOF_FIELDS[] = {
    {"column", jf_column, 0, VP_JF_REQUIRED},
    {"inclusion_proof", jf_tree_r, offsetof(vp_column_proof, inclusion), VP_JF_REQUIRED},
};
static const vp_jtable COLUMN_PROOF = {COLUMN_PROOF_FIELDS, ARRAY_LEN(COLUMN_PROOF_FIELDS),
                                       VP_JR_SERDE, VP_JR_SKIP};

static cuzk_err jf_column_proof(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &COLUMN_PROOF, dst, ctx, NULL);
}

/* vp_jelem_fn: column proof i (dst: the vp_column_proof array). */
static cuzk_err je_column_proof(vp_jr *r, size_t i, void *dst, void *ctx)
{
    return jf_column_proof(r, &((vp_column_proof *)dst)[i], ctx);
}

static const vp_jarray COLUMN_LIST = {je_column_proof, "column proofs", NULL, false};

static cuzk_err jr_column_list(vp_jr *r, vp_column_proof *out, unsigned want, c1_ctx *x)
{
    return vp_jr_elements(r, &COLUMN_LIST, want, out, x, NULL);
}

static cuzk_err jf_drg_parents(vp_jr *r, void *dst, void *ctx)
{
    return jr_column_list(r, dst, SEAL_DRG_DEGREE, ctx);
}

static cuzk_err jf_exp_parents(vp_jr *r, void *dst, void *ctx)
{
    return jr_column_list(r, dst, SEAL_EXP_DEGREE, ctx);
}

/* ReplicaColumnProof (dst: vp_porep_proof). */
static const vp_jfield REPLICA_FIELDS[] = {
    {"c_x", jf_column_proof, offsetof(vp_porep_proof, c_x), VP_JF_REQUIRED},
    {"drg_parents", jf_drg_parents, offsetof(vp_porep_proof, drg_parents), VP_JF_REQUIRED},
    {"exp_parents", jf_exp_parents, offsetof(vp_porep_proof, exp_parents), VP_JF_REQUIRED},
};
static const vp_jtable REPLICA = {REPLICA_FIELDS, ARRAY_LEN(REPLICA_FIELDS), VP_JR_SERDE,
                                  VP_JR_SKIP};

static cuzk_err jf_replica(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &REPLICA, dst, ctx, NULL);
}

static cuzk_err jf_parents(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    return jr_nodes(r, dst, SEAL_LABEL_PARENTS, "parents");
}

/* LabelingProof / EncodingProof. */
static const vp_jfield LABELING_FIELDS[] = {
    {"parents", jf_parents, offsetof(vp_labeling_proof, parents), VP_JF_REQUIRED},
    {"layer_index", vp_jf_u32, offsetof(vp_labeling_proof, layer_index), VP_JF_REQUIRED},
    {"node", vp_jf_u64, offsetof(vp_labeling_proof, node), VP_JF_REQUIRED},
};
static const vp_jtable LABELING = {LABELING_FIELDS, ARRAY_LEN(LABELING_FIELDS), VP_JR_SERDE,
                                   VP_JR_SKIP};

static cuzk_err jf_labeling(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &LABELING, dst, ctx, NULL);
}

/* vp_jelem_fn: labeling proof i (dst: the vp_labeling_proof array). */
static cuzk_err je_labeling(vp_jr *r, size_t i, void *dst, void *ctx)
{
    return jf_labeling(r, &((vp_labeling_proof *)dst)[i], ctx);
}

static const vp_jarray LABELINGS = {je_labeling, "labeling proofs (one per layer)", NULL, false};

/* labeling_proofs: one per layer (dst: the vp_labeling_proof array). */
static cuzk_err jf_labelings(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_elements(r, &LABELINGS, ((const c1_ctx *)ctx)->shape.layers, dst, ctx, NULL);
}

/* stacked::Proof. */
static const vp_jfield PROOF_FIELDS[] = {
    {"comm_d_proofs", jf_tree_d, offsetof(vp_porep_proof, comm_d_proof), VP_JF_REQUIRED},
    {"comm_r_last_proof", jf_tree_r, offsetof(vp_porep_proof, comm_r_last_proof), VP_JF_REQUIRED},
    {"replica_column_proofs", jf_replica, 0, VP_JF_REQUIRED},
    {"labeling_proofs", jf_labelings, offsetof(vp_porep_proof, labeling), VP_JF_REQUIRED},
    {"encoding_proof", jf_labeling, offsetof(vp_porep_proof, encoding), VP_JF_REQUIRED},
};
static const vp_jtable PROOF = {PROOF_FIELDS, ARRAY_LEN(PROOF_FIELDS), VP_JR_SERDE, VP_JR_SKIP};

static cuzk_err jr_porep_proof(vp_jr *r, vp_porep_proof *p, c1_ctx *x)
{
    memset(p, 0, sizeof(*p));
    p->nlayers = x->shape.layers;
    return vp_jr_fields(r, &PROOF, p, x, NULL);
}

/* ---- JSON: the whole output -------------------------------------------------------------- */

/* {"<variant>": [[proof of each challenge] of each partition]} (dst: vp_c1). The variant key
 * fixes x's shapes. */
static cuzk_err jf_vanilla_proofs(vp_jr *r, void *dst, void *ctx)
{
    vp_c1 *out = dst;
    c1_ctx *x = ctx;
    bool first = true, end, pfirst = true, pend;
    size_t cap = 0, count = 0;
    uint32_t parts = 0, per = 0;
    cuzk_err err;

    if ((err = vp_jr_object(r)) != CUZK_OK) {
        return err;
    }
    if ((err = vp_jr_key(r, &first, x->variant, sizeof(x->variant), &end)) != CUZK_OK) {
        return err;
    }
    if (end) {
        return vp_jr_fail(r, "expected a VanillaSealProof variant such as \"StackedDrg32GiBV1\"");
    }
    if (!variant_shape(x->variant, &x->shape)) {
        return vp_jr_fail(r, "unknown VanillaSealProof variant \"%s\"", x->variant);
    }
    seal_tree_shape_d(&x->tree_d, x->shape.nodes);
    seal_tree_shape_r(&x->tree_r, &x->shape);
    size_t m0 = vp_path_push(&r->path, ".%s", x->variant);
    if ((err = vp_jr_array(r)) != CUZK_OK) {
        return err;
    }
    for (;;) {
        if ((err = vp_jr_next(r, &pfirst, &pend)) != CUZK_OK) {
            return err;
        }
        if (pend) {
            break;
        }
        size_t m1 = vp_path_push(&r->path, "[partition %u]", parts);
        bool cfirst = true, cend;
        uint32_t n = 0;
        if ((err = vp_jr_array(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_next(r, &cfirst, &cend)) != CUZK_OK) {
                return err;
            }
            if (cend) {
                break;
            }
            if (parts > 0 && n >= per) {
                return vp_jr_fail(r, "more challenges than partition 0 (%u)", per);
            }
            if (count == cap) {
                size_t nc = cap ? cap * 2 : 2;
                vp_porep_proof *np = cz_realloc(out->proofs, nc * sizeof(*np));
                if (!np) {
                    return cz_fail(r->dg, CUZK_E_NOMEM, "%s: %zu challenge proofs", r->what, nc);
                }
                out->proofs = np;
                cap = nc;
            }
            size_t m2 = vp_path_push(&r->path, "[challenge %u]", n);
            if ((err = jr_porep_proof(r, &out->proofs[count], x)) != CUZK_OK) {
                return err;
            }
            vp_path_pop(&r->path, m2);
            count++;
            n++;
        }
        if (n == 0) {
            return vp_jr_fail(r, "empty partition");
        }
        if (parts == 0) {
            per = n;
        } else if (n != per) {
            return vp_jr_fail(r, "%u challenges, partition 0 has %u", n, per);
        }
        vp_path_pop(&r->path, m1);
        parts++;
    }
    vp_path_pop(&r->path, m0);
    char extra[32];
    if ((err = vp_jr_key(r, &first, extra, sizeof(extra), &end)) != CUZK_OK) {
        return err;
    }
    if (!end) {
        return vp_jr_fail(r, "more than one VanillaSealProof variant");
    }
    out->partitions = parts;
    out->challenges = per;
    return CUZK_OK;
}

static cuzk_err jf_registered_proof(vp_jr *r, void *dst, void *ctx)
{
    char *name;
    cuzk_err err = vp_jr_string(r, &name, NULL);

    (void)ctx;
    if (err == CUZK_OK && !seal_porep_config_for_name(dst, name)) {
        err = vp_jr_fail(r, "unknown registered proof \"%s\"", name);
    }
    cz_free(name);
    return err;
}

/* SealCommitPhase1Output (dst: vp_c1). */
static const vp_jfield C1_FIELDS[] = {
    {"registered_proof", jf_registered_proof, offsetof(vp_c1, cfg), VP_JF_REQUIRED},
    {"vanilla_proofs", jf_vanilla_proofs, 0, VP_JF_REQUIRED},
    {"comm_r", vp_jf_node, offsetof(vp_c1, comm_r), VP_JF_REQUIRED},
    {"comm_d", vp_jf_node, offsetof(vp_c1, comm_d), VP_JF_REQUIRED},
    {"replica_id", vp_jf_node, offsetof(vp_c1, replica_id), VP_JF_REQUIRED},
    {"seed", vp_jf_node, offsetof(vp_c1, seed), VP_JF_REQUIRED},
    {"ticket", vp_jf_node, offsetof(vp_c1, ticket), VP_JF_REQUIRED},
};
static const vp_jtable C1 = {C1_FIELDS, ARRAY_LEN(C1_FIELDS), VP_JR_SERDE, VP_JR_SKIP};

cuzk_err vp_c1_from_json(vp_c1 *out, const char *json, size_t len, cz_diag *dg)
{
    vp_jr r;
    c1_ctx x;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    memset(&x, 0, sizeof(x));
    vp_jr_init(&r, "C1 JSON", json, len, dg);
    CZ_TRY(err, vp_jr_fields(&r, &C1, out, &x, NULL), fail);
    CZ_TRY(err, vp_jr_end(&r), fail);
    /* registered_proof against the variant and the counts */
    if (out->cfg.shape.sector_size != x.shape.sector_size) {
        err = cz_fail(dg, CUZK_E_FORMAT,
                      "C1 JSON: registered_proof %s is for %llu-byte sectors but the "
                      "vanilla_proofs variant %s is for %llu-byte sectors",
                      out->cfg.name, (unsigned long long)out->cfg.shape.sector_size, x.variant,
                      (unsigned long long)x.shape.sector_size);
        goto fail;
    }
    if (out->partitions != out->cfg.partitions ||
        out->challenges != out->cfg.challenges_per_partition) {
        err = cz_fail(dg, CUZK_E_FORMAT,
                      "C1 JSON: vanilla_proofs has %u partitions x %u challenges, %s needs "
                      "%u x %u",
                      out->partitions, out->challenges, out->cfg.name, out->cfg.partitions,
                      out->cfg.challenges_per_partition);
        goto fail;
    }
    return CUZK_OK;
fail:
    vp_c1_clear(out);
    return err;
}

static void jw_column(vp_buf *b, const vp_column_proof *c)
{
    vp_buf_str(b, "{\"column\":{\"index\":");
    vp_buf_dec(b, c->index);
    vp_buf_str(b, ",\"rows\":[");
    for (uint32_t l = 0; l < c->nrows; l++) {
        if (l) {
            vp_buf_str(b, ",");
        }
        vp_buf_json_node(b, c->rows[l].b);
    }
    vp_buf_str(b, "],\"_h\":null},\"inclusion_proof\":");
    vp_jw_merkle(b, &c->inclusion);
    vp_buf_str(b, "}");
}

static void jw_labeling(vp_buf *b, const vp_labeling_proof *l)
{
    vp_buf_str(b, "{\"parents\":[");
    for (int i = 0; i < SEAL_LABEL_PARENTS; i++) {
        if (i) {
            vp_buf_str(b, ",");
        }
        vp_buf_json_node(b, l->parents[i].b);
    }
    vp_buf_str(b, "],\"layer_index\":");
    vp_buf_dec(b, l->layer_index);
    vp_buf_str(b, ",\"node\":");
    vp_buf_dec(b, l->node);
    vp_buf_str(b, "}");
}

static void jw_porep_proof(vp_buf *b, const vp_porep_proof *p)
{
    vp_buf_str(b, "{\"comm_d_proofs\":");
    vp_jw_merkle(b, &p->comm_d_proof);
    vp_buf_str(b, ",\"comm_r_last_proof\":");
    vp_jw_merkle(b, &p->comm_r_last_proof);
    vp_buf_str(b, ",\"replica_column_proofs\":{\"c_x\":");
    jw_column(b, &p->c_x);
    vp_buf_str(b, ",\"drg_parents\":[");
    for (int i = 0; i < SEAL_DRG_DEGREE; i++) {
        if (i) {
            vp_buf_str(b, ",");
        }
        jw_column(b, &p->drg_parents[i]);
    }
    vp_buf_str(b, "],\"exp_parents\":[");
    for (int i = 0; i < SEAL_EXP_DEGREE; i++) {
        if (i) {
            vp_buf_str(b, ",");
        }
        jw_column(b, &p->exp_parents[i]);
    }
    vp_buf_str(b, "]},\"labeling_proofs\":[");
    for (uint32_t l = 0; l < p->nlayers; l++) {
        if (l) {
            vp_buf_str(b, ",");
        }
        jw_labeling(b, &p->labeling[l]);
    }
    vp_buf_str(b, "],\"encoding_proof\":");
    jw_labeling(b, &p->encoding);
    vp_buf_str(b, "}");
}

cuzk_err vp_c1_to_json(const vp_c1 *c1, char **out, size_t *len, cz_diag *dg)
{
    vp_buf b = {0};

    *out = NULL;
    if (!c1->cfg.c1_variant) {
        return cz_fail(dg, CUZK_E_INVAL, "C1 JSON: configuration %s has no registered proof",
                       c1->cfg.name);
    }
    vp_buf_str(&b, "{\"registered_proof\":\"");
    vp_buf_str(&b, c1->cfg.name);
    vp_buf_str(&b, "\",\"vanilla_proofs\":{\"");
    vp_buf_str(&b, c1->cfg.c1_variant);
    vp_buf_str(&b, "\":[");
    for (uint32_t k = 0; k < c1->partitions; k++) {
        vp_buf_str(&b, k ? ",[" : "[");
        for (uint32_t i = 0; i < c1->challenges; i++) {
            if (i) {
                vp_buf_str(&b, ",");
            }
            jw_porep_proof(&b, vp_c1_proof(c1, k, i));
        }
        vp_buf_str(&b, "]");
    }
    vp_buf_str(&b, "]},\"comm_r\":");
    vp_buf_json_node(&b, c1->comm_r);
    vp_buf_str(&b, ",\"comm_d\":");
    vp_buf_json_node(&b, c1->comm_d);
    vp_buf_str(&b, ",\"replica_id\":");
    vp_buf_json_node(&b, c1->replica_id);
    vp_buf_str(&b, ",\"seed\":");
    vp_buf_json_node(&b, c1->seed);
    vp_buf_str(&b, ",\"ticket\":");
    vp_buf_json_node(&b, c1->ticket);
    vp_buf_str(&b, "}");
    return vp_buf_finish(&b, out, len, dg);
}

/* ---- Curio's wrapper --------------------------------------------------------------------- */

/* Curio's wrapper as read. */
typedef struct curio_wrapper {
    uint64_t num, size;
    char *b64; /* owned */
    size_t b64len;
} curio_wrapper;

static cuzk_err jf_phase1out(vp_jr *r, void *dst, void *ctx)
{
    curio_wrapper *w = dst;

    (void)ctx;
    return vp_jr_string(r, &w->b64, &w->b64len);
}

static const vp_jfield CURIO_FIELDS[] = {
    {"SectorNum", vp_jf_u64, offsetof(curio_wrapper, num), VP_JF_REQUIRED},
    {"Phase1Out", jf_phase1out, 0, VP_JF_REQUIRED},
    {"SectorSize", vp_jf_u64, offsetof(curio_wrapper, size), VP_JF_REQUIRED},
};
static const vp_jtable CURIO = {CURIO_FIELDS, ARRAY_LEN(CURIO_FIELDS), VP_JR_SERDE, VP_JR_SKIP};

cuzk_err vp_c1_from_curio_json(vp_c1 *out, uint64_t *sector_num, const char *json, size_t len,
                               cz_diag *dg)
{
    vp_jr r;
    curio_wrapper w = {0};
    cz_diag sub;
    uint8_t *inner = NULL;
    size_t inner_len = 0;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    cz_diag_init(&sub);
    vp_jr_init(&r, "C1 wrapper JSON", json, len, dg);
    CZ_TRY(err, vp_jr_fields(&r, &CURIO, &w, NULL, NULL), done);
    CZ_TRY(err, vp_jr_end(&r), done);
    err = cz_base64_decode(&inner, &inner_len, w.b64, w.b64len, NULL, &sub);
    if (err != CUZK_OK) {
        err = cz_fail(dg, err, "C1 wrapper JSON: Phase1Out: %s (of %zu)", sub.msg, w.b64len);
        goto done;
    }
    CZ_TRY(err, vp_c1_from_json(out, (const char *)inner, inner_len, dg), done);
    if (out->cfg.shape.sector_size != w.size) {
        err = cz_fail(dg, CUZK_E_FORMAT,
                      "C1 wrapper JSON: SectorSize %llu does not match %s (%llu bytes)",
                      (unsigned long long)w.size, out->cfg.name,
                      (unsigned long long)out->cfg.shape.sector_size);
        vp_c1_clear(out);
        goto done;
    }
    if (sector_num) {
        *sector_num = w.num;
    }
done:
    cz_free(w.b64);
    cz_free(inner);
    return err;
}

cuzk_err vp_c1_json_to_curio(const char *c1_json, size_t len, uint64_t sector_num,
                             uint64_t sector_size, char **out, size_t *outlen, cz_diag *dg)
{
    vp_buf b = {0};

    *out = NULL;
    vp_buf_str(&b, "{\"SectorNum\":");
    vp_buf_dec(&b, sector_num);
    vp_buf_str(&b, ",\"Phase1Out\":");
    vp_buf_b64(&b, (const uint8_t *)c1_json, len);
    vp_buf_str(&b, ",\"SectorSize\":");
    vp_buf_dec(&b, sector_size);
    vp_buf_str(&b, "}");
    return vp_buf_finish(&b, out, outlen, dg);
}

cuzk_err vp_c1_to_curio_json(const vp_c1 *c1, uint64_t sector_num, char **out, size_t *len,
                             cz_diag *dg)
{
    char *inner = NULL;
    size_t ilen;
    cuzk_err err;

    *out = NULL;
    CZ_TRY(err, vp_c1_to_json(c1, &inner, &ilen, dg), done);
    err = vp_c1_json_to_curio(inner, ilen, sector_num, c1->cfg.shape.sector_size, out, len, dg);
done:
    cz_free(inner);
    return err;
}

bool vp_c1_json_is_curio(const char *json, size_t len)
{
    /* a top-level "Phase1Out" key, found without building anything */
    vp_jr r;
    bool first = true, end;
    char key[32];

    vp_jr_init(&r, "C1 JSON", json, len, NULL);
    if (vp_jr_object(&r) != CUZK_OK) {
        return false;
    }
    while (vp_jr_key(&r, &first, key, sizeof(key), &end) == CUZK_OK && !end) {
        if (strcmp(key, "Phase1Out") == 0) {
            return true;
        }
        if (vp_jr_skip(&r) != CUZK_OK) {
            return false;
        }
    }
    return false;
}

cuzk_err vp_c1_parse(vp_c1 *out, const char *json, size_t len, cz_diag *dg)
{
    return vp_c1_json_is_curio(json, len) ? vp_c1_from_curio_json(out, NULL, json, len, dg)
                                          : vp_c1_from_json(out, json, len, dg);
}

/* ---- bincode ------------------------------------------------------------------------------ */

static void bw_column(vp_buf *b, const vp_column_proof *c)
{
    vp_buf_u32le(b, c->index);
    vp_buf_u64le(b, c->nrows);
    for (uint32_t l = 0; l < c->nrows; l++) {
        vp_buf_put(b, c->rows[l].b, 32);
    }
    /* _h: PhantomData, zero bytes */
    vp_bw_merkle(b, &c->inclusion);
}

static void bw_labeling(vp_buf *b, const vp_labeling_proof *l)
{
    vp_buf_u64le(b, SEAL_LABEL_PARENTS);
    for (int i = 0; i < SEAL_LABEL_PARENTS; i++) {
        vp_buf_put(b, l->parents[i].b, 32);
    }
    vp_buf_u32le(b, l->layer_index);
    vp_buf_u64le(b, l->node);
}

void vp_bw_porep_proof(vp_buf *b, const vp_porep_proof *p)
{
    vp_bw_merkle(b, &p->comm_d_proof);
    vp_bw_merkle(b, &p->comm_r_last_proof);
    bw_column(b, &p->c_x);
    vp_buf_u64le(b, SEAL_DRG_DEGREE);
    for (int i = 0; i < SEAL_DRG_DEGREE; i++) {
        bw_column(b, &p->drg_parents[i]);
    }
    vp_buf_u64le(b, SEAL_EXP_DEGREE);
    for (int i = 0; i < SEAL_EXP_DEGREE; i++) {
        bw_column(b, &p->exp_parents[i]);
    }
    vp_buf_u64le(b, p->nlayers);
    for (uint32_t l = 0; l < p->nlayers; l++) {
        bw_labeling(b, &p->labeling[l]);
    }
    bw_labeling(b, &p->encoding);
}

static cuzk_err br_count(vp_br *r, uint64_t want, const char *what)
{
    uint64_t n;
    cuzk_err err = vp_br_u64(r, &n);
    if (err == CUZK_OK && n != want) {
        r->pos -= 8;
        err = vp_br_fail(r, "expected %llu %s, found %llu", (unsigned long long)want, what,
                         (unsigned long long)n);
    }
    return err;
}

static cuzk_err br_column(vp_br *r, vp_column_proof *c, const seal_porep_config *cfg,
                          const seal_tree_shape *tr)
{
    cuzk_err err;
    size_t m;

    if ((err = vp_br_u32(r, &c->index)) != CUZK_OK) {
        return err;
    }
    m = vp_path_push(&r->path, ".column.rows");
    if ((err = br_count(r, cfg->shape.layers, "rows")) != CUZK_OK) {
        return err;
    }
    c->nrows = cfg->shape.layers;
    for (uint32_t l = 0; l < c->nrows; l++) {
        if ((err = vp_br_node(r, c->rows[l].b)) != CUZK_OK) {
            return err;
        }
    }
    vp_path_pop(&r->path, m);
    m = vp_path_push(&r->path, ".inclusion_proof");
    err = vp_br_merkle(r, &c->inclusion, tr);
    vp_path_pop(&r->path, m);
    return err;
}

static cuzk_err br_labeling(vp_br *r, vp_labeling_proof *l)
{
    cuzk_err err;
    size_t m = vp_path_push(&r->path, ".parents");

    if ((err = br_count(r, SEAL_LABEL_PARENTS, "parents")) != CUZK_OK) {
        return err;
    }
    vp_path_pop(&r->path, m);
    for (int i = 0; i < SEAL_LABEL_PARENTS; i++) {
        if ((err = vp_br_node(r, l->parents[i].b)) != CUZK_OK) {
            return err;
        }
    }
    if ((err = vp_br_u32(r, &l->layer_index)) != CUZK_OK) {
        return err;
    }
    return vp_br_u64(r, &l->node);
}

cuzk_err vp_br_porep_proof(vp_br *r, vp_porep_proof *p, const seal_porep_config *cfg)
{
    seal_tree_shape td, tr;
    cuzk_err err;
    size_t m;

    memset(p, 0, sizeof(*p));
    p->nlayers = cfg->shape.layers;
    seal_tree_shape_d(&td, cfg->shape.nodes);
    seal_tree_shape_r(&tr, &cfg->shape);
#define STEP(name, expr)                                                                           \
    do {                                                                                           \
        m = vp_path_push(&r->path, "%s", name);                                                    \
        if ((err = (expr)) != CUZK_OK) {                                                           \
            return err;                                                                            \
        }                                                                                          \
        vp_path_pop(&r->path, m);                                                                  \
    } while (0)
    STEP(".comm_d_proofs", vp_br_merkle(r, &p->comm_d_proof, &td));
    STEP(".comm_r_last_proof", vp_br_merkle(r, &p->comm_r_last_proof, &tr));
    STEP(".replica_column_proofs.c_x", br_column(r, &p->c_x, cfg, &tr));
    STEP(".replica_column_proofs.drg_parents", br_count(r, SEAL_DRG_DEGREE, "DRG parents"));
    for (int i = 0; i < SEAL_DRG_DEGREE; i++) {
        char name[64];
        snprintf(name, sizeof(name), ".replica_column_proofs.drg_parents[%d]", i);
        STEP(name, br_column(r, &p->drg_parents[i], cfg, &tr));
    }
    STEP(".replica_column_proofs.exp_parents", br_count(r, SEAL_EXP_DEGREE, "expander parents"));
    for (int i = 0; i < SEAL_EXP_DEGREE; i++) {
        char name[64];
        snprintf(name, sizeof(name), ".replica_column_proofs.exp_parents[%d]", i);
        STEP(name, br_column(r, &p->exp_parents[i], cfg, &tr));
    }
    STEP(".labeling_proofs", br_count(r, p->nlayers, "labeling proofs"));
    for (uint32_t l = 0; l < p->nlayers; l++) {
        char name[32];
        snprintf(name, sizeof(name), ".labeling_proofs[%u]", l);
        STEP(name, br_labeling(r, &p->labeling[l]));
    }
    STEP(".encoding_proof", br_labeling(r, &p->encoding));
#undef STEP
    return CUZK_OK;
}

cuzk_err vp_c1_to_bincode(const vp_c1 *c1, uint8_t **out, size_t *len, cz_diag *dg)
{
    vp_buf b = {0};
    cuzk_err err;

    vp_buf_u64le(&b, c1->partitions);
    for (uint32_t k = 0; k < c1->partitions; k++) {
        vp_buf_u64le(&b, c1->challenges);
        for (uint32_t i = 0; i < c1->challenges; i++) {
            vp_bw_porep_proof(&b, vp_c1_proof(c1, k, i));
        }
    }
    vp_buf_put(&b, c1->comm_r, 32);
    vp_buf_put(&b, c1->comm_d, 32);
    vp_buf_put(&b, c1->replica_id, 32);
    vp_buf_put(&b, c1->seed, 32);
    vp_buf_put(&b, c1->ticket, 32);
    char *p;
    err = vp_buf_finish(&b, &p, len, dg);
    *out = (uint8_t *)p;
    return err;
}

cuzk_err vp_c1_from_bincode(vp_c1 *out, const seal_porep_config *cfg, const uint8_t *buf,
                            size_t len, cz_diag *dg)
{
    vp_br r;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    vp_br_init(&r, "C1 bincode", buf, len, dg);
    out->cfg = *cfg;
    size_t m = vp_path_push(&r.path, "vanilla_proofs");
    CZ_TRY(err, br_count(&r, cfg->partitions, "partitions"), fail);
    out->partitions = cfg->partitions;
    out->challenges = cfg->challenges_per_partition;
    out->proofs = cz_calloc((size_t)out->partitions * out->challenges, sizeof(vp_porep_proof));
    if (!out->proofs) {
        err = cz_fail(dg, CUZK_E_NOMEM, "C1 bincode: proofs");
        goto fail;
    }
    for (uint32_t k = 0; k < out->partitions; k++) {
        size_t m1 = vp_path_push(&r.path, "[partition %u]", k);
        CZ_TRY(err, br_count(&r, out->challenges, "challenges"), fail);
        for (uint32_t i = 0; i < out->challenges; i++) {
            size_t m2 = vp_path_push(&r.path, "[challenge %u]", i);
            CZ_TRY(err, vp_br_porep_proof(&r, &out->proofs[(size_t)k * out->challenges + i], cfg),
                   fail);
            vp_path_pop(&r.path, m2);
        }
        vp_path_pop(&r.path, m1);
    }
    vp_path_pop(&r.path, m);
    CZ_TRY(err, vp_br_node(&r, out->comm_r), fail);
    CZ_TRY(err, vp_br_node(&r, out->comm_d), fail);
    CZ_TRY(err, vp_br_node(&r, out->replica_id), fail);
    CZ_TRY(err, vp_br_node(&r, out->seed), fail);
    CZ_TRY(err, vp_br_node(&r, out->ticket), fail);
    CZ_TRY(err, vp_br_end(&r), fail);
    return CUZK_OK;
fail:
    vp_c1_clear(out);
    return err;
}
