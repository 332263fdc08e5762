/* merkle_codec.c - the Merkle inclusion proof (Rust's MerkleProof) in JSON and in bincode
 * (vanilla-proofs.md 1.4, 2.2), read against the shape the sector size fixes: the variant
 * (Single, Sub, Top), the path element counts and their arities.
 */
#include "proofs/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char *kind_name(seal_proof_kind k)
{
    return k == SEAL_PROOF_SINGLE ? "Single" : k == SEAL_PROOF_SUB ? "Sub" : "Top";
}

void vp_shape_str(char *out, size_t cap, const seal_tree_shape *s)
{
    snprintf(out, cap, "%s with %u base elements of arity %u%s%s", kind_name(s->kind), s->nbase,
             s->nbase ? s->arity[0] : 0, s->kind >= SEAL_PROOF_SUB ? " + sub" : "",
             s->kind == SEAL_PROOF_TOP ? " + top" : "");
}

/* One InclusionPath being read: its elements go to the proof at element offset `first`. */
typedef struct ipath_spec {
    const seal_tree_shape *shape;
    uint32_t first; /* first element index in the proof */
    uint32_t count; /* expected elements */
} ipath_spec;

/* Expected element layout of each of the (up to) three paths of a shape. */
static void path_specs(const seal_tree_shape *s, ipath_spec spec[3])
{
    spec[0].first = 0;
    spec[0].count = s->nbase;
    spec[1].first = s->nbase;
    spec[1].count = s->kind >= SEAL_PROOF_SUB ? 1 : 0;
    spec[2].first = s->nbase + spec[1].count;
    spec[2].count = s->kind == SEAL_PROOF_TOP ? 1 : 0;
    for (int i = 0; i < 3; i++) {
        spec[i].shape = s;
    }
}

/* Sibling offset of element j in a proof of this shape. */
static uint32_t sib_offset(const seal_tree_shape *s, uint32_t j)
{
    uint32_t off = 0;
    for (uint32_t i = 0; i < j; i++) {
        off += s->arity[i] - 1u;
    }
    return off;
}

/* ---- JSON reader ------------------------------------------------------------------------- */

/* Each object is read through a field table, in the words "duplicate key", "missing". The
 * tables of the proof, the path and the path element skip unknown keys without a path segment,
 * those of the variants under one. */

/* One path element being read (the dst of ELEM): element j of proof p, its siblings from
 * p->sib[off]. */
typedef struct ipath_elem {
    seal_merkle_proof *p;
    uint32_t j, off;
    unsigned arity;
} ipath_elem;

/* vp_jelem_fn: sibling hash i of a path element (dst: its ipath_elem). */
static cuzk_err je_hash(vp_jr *r, size_t i, void *dst, void *ctx)
{
    const ipath_elem *e = dst;

    (void)ctx;
    return vp_jr_node(r, e->p->sib[e->off + i].b);
}

static const vp_jarray HASHES = {je_hash, "hashes", NULL, false};

static cuzk_err jf_hashes(vp_jr *r, void *dst, void *ctx)
{
    const ipath_elem *e = dst;

    return vp_jr_elements(r, &HASHES, e->arity - 1, dst, ctx, NULL);
}

static cuzk_err jf_index(vp_jr *r, void *dst, void *ctx)
{
    const ipath_elem *e = dst;
    uint64_t *index = &e->p->index[e->j];
    cuzk_err err;

    (void)ctx;
    if ((err = vp_jr_u64(r, index)) != CUZK_OK) {
        return err;
    }
    if (*index >= e->arity) {
        return vp_jr_fail(r, "index %llu out of range for arity %u", (unsigned long long)*index,
                          e->arity);
    }
    return CUZK_OK;
}

/* PathElement {"hashes", "index"}. */
static const vp_jfield ELEM_FIELDS[] = {
    {"hashes", jf_hashes, 0, VP_JF_REQUIRED},
    {"index", jf_index, 0, VP_JF_REQUIRED},
};
static const vp_jtable ELEM = {ELEM_FIELDS, ARRAY_LEN(ELEM_FIELDS), VP_JR_KEYS, VP_JR_SKIP_QUIET};

/* vp_jelem_fn: element i of one InclusionPath (dst: the proof, ctx: its ipath_spec). One
 * element too many is reported under its own path segment ("path[2]: expected 2 path
 * elements, found more"), so the count is checked here rather than by the walker. */
static cuzk_err je_path_element(vp_jr *r, size_t i, void *dst, void *ctx)
{
    seal_merkle_proof *p = dst;
    const ipath_spec *sp = ctx;
    cuzk_err err;

    if (i >= sp->count) {
        return vp_jr_fail(r, "expected %u path elements, found more", sp->count);
    }
    ipath_elem e = {.p = p, .j = sp->first + (uint32_t)i};
    e.arity = sp->shape->arity[e.j];
    e.off = sib_offset(sp->shape, e.j);
    if ((err = vp_jr_fields(r, &ELEM, &e, NULL, NULL)) != CUZK_OK) {
        return err;
    }
    p->arity[e.j] = (uint8_t)e.arity;
    return CUZK_OK;
}

static const vp_jarray PATH_ELEMENTS = {je_path_element, NULL, NULL, false};

/* The elements of one InclusionPath (dst: the proof, ctx: its ipath_spec). */
static cuzk_err jf_elements(vp_jr *r, void *dst, void *ctx)
{
    const ipath_spec *sp = ctx;
    size_t n;
    cuzk_err err;

    if ((err = vp_jr_elements(r, &PATH_ELEMENTS, VP_JR_ANY, dst, ctx, &n)) != CUZK_OK) {
        return err;
    }
    if (n != sp->count) {
        return vp_jr_fail(r, "expected %u path elements, found %zu", sp->count, n);
    }
    return CUZK_OK;
}

/* InclusionPath {"path"}. */
static const vp_jfield IPATH_FIELDS[] = {
    {"path", jf_elements, 0, VP_JF_REQUIRED},
};
static const vp_jtable IPATH = {IPATH_FIELDS, ARRAY_LEN(IPATH_FIELDS), VP_JR_KEYS,
                                VP_JR_SKIP_QUIET};

/* The base, sub and top paths of a variant (dst: the proof, ctx: the ipath_spec[3]). */
static cuzk_err jf_base_path(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &IPATH, dst, &((ipath_spec *)ctx)[0], NULL);
}

static cuzk_err jf_sub_path(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &IPATH, dst, &((ipath_spec *)ctx)[1], NULL);
}

static cuzk_err jf_top_path(vp_jr *r, void *dst, void *ctx)
{
    return vp_jr_fields(r, &IPATH, dst, &((ipath_spec *)ctx)[2], NULL);
}

/* The variants' structs; a missing key is reported root, leaf, then the paths. */
static const vp_jfield SINGLE_FIELDS[] = {
    {"root", vp_jf_node, offsetof(seal_merkle_proof, root), VP_JF_REQUIRED},
    {"leaf", vp_jf_node, offsetof(seal_merkle_proof, leaf), VP_JF_REQUIRED},
    {"path", jf_base_path, 0, VP_JF_REQUIRED},
};
static const vp_jfield SUB_FIELDS[] = {
    {"root", vp_jf_node, offsetof(seal_merkle_proof, root), VP_JF_REQUIRED},
    {"leaf", vp_jf_node, offsetof(seal_merkle_proof, leaf), VP_JF_REQUIRED},
    {"base_proof", jf_base_path, 0, VP_JF_REQUIRED},
    {"sub_proof", jf_sub_path, 0, VP_JF_REQUIRED},
};
static const vp_jfield TOP_FIELDS[] = {
    {"root", vp_jf_node, offsetof(seal_merkle_proof, root), VP_JF_REQUIRED},
    {"leaf", vp_jf_node, offsetof(seal_merkle_proof, leaf), VP_JF_REQUIRED},
    {"base_proof", jf_base_path, 0, VP_JF_REQUIRED},
    {"sub_proof", jf_sub_path, 0, VP_JF_REQUIRED},
    {"top_proof", jf_top_path, 0, VP_JF_REQUIRED},
};
static const vp_jtable VARIANTS[3] = {
    [SEAL_PROOF_SINGLE] = {SINGLE_FIELDS, ARRAY_LEN(SINGLE_FIELDS), VP_JR_KEYS, VP_JR_SKIP},
    [SEAL_PROOF_SUB] = {SUB_FIELDS, ARRAY_LEN(SUB_FIELDS), VP_JR_KEYS, VP_JR_SKIP},
    [SEAL_PROOF_TOP] = {TOP_FIELDS, ARRAY_LEN(TOP_FIELDS), VP_JR_KEYS, VP_JR_SKIP},
};

/* ProofData: {"<variant>": {...}} with the shape's variant as its one key (dst: the proof,
 * ctx: the ipath_spec[3]). */
static cuzk_err jf_data(vp_jr *r, void *dst, void *ctx)
{
    static const char *const variants[3] = {"Single", "Sub", "Top"};
    const seal_tree_shape *shape = ((const ipath_spec *)ctx)->shape;
    bool first = true, end;
    char key[32], sh[96];
    cuzk_err err;

    if ((err = vp_jr_object(r)) != CUZK_OK) {
        return err;
    }
    if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK) {
        return err;
    }
    if (end) {
        return vp_jr_fail(r, "expected one of Single, Sub, Top");
    }
    int v = -1;
    for (int i = 0; i < 3; i++) {
        if (strcmp(key, variants[i]) == 0) {
            v = i;
        }
    }
    vp_shape_str(sh, sizeof(sh), shape);
    if (v < 0) {
        return vp_jr_fail(r, "unknown variant \"%s\" (expected %s)", key, variants[shape->kind]);
    }
    if (v != (int)shape->kind) {
        return vp_jr_fail(r, "variant %s does not fit this sector (expected %s)", key, sh);
    }
    size_t m = vp_path_push(&r->path, ".%s", key);
    if ((err = vp_jr_fields(r, &VARIANTS[v], dst, ctx, NULL)) != CUZK_OK) {
        return err;
    }
    vp_path_pop(&r->path, m);
    if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK) {
        return err;
    }
    if (!end) {
        return vp_jr_fail(r, "more than one variant");
    }
    return CUZK_OK;
}

/* MerkleProof {"data"}. */
static const vp_jfield PROOF_FIELDS[] = {
    {"data", jf_data, 0, VP_JF_REQUIRED},
};
static const vp_jtable PROOF = {PROOF_FIELDS, ARRAY_LEN(PROOF_FIELDS), VP_JR_KEYS,
                                VP_JR_SKIP_QUIET};

/* The shape fields of a proof both readers have filled. */
static void shape_into(seal_merkle_proof *out, const seal_tree_shape *shape)
{
    out->kind = shape->kind;
    out->nelems = shape->nlevels;
    out->nbase = shape->nbase;
}

cuzk_err vp_jr_merkle(vp_jr *r, seal_merkle_proof *out, const seal_tree_shape *shape)
{
    ipath_spec spec[3];
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    path_specs(shape, spec);
    if ((err = vp_jr_fields(r, &PROOF, out, spec, NULL)) != CUZK_OK) {
        return err;
    }
    shape_into(out, shape);
    return CUZK_OK;
}

/* ---- JSON writer, bincode reader and writer ---------------------------------------------- */

static void jw_ipath(vp_buf *b, const seal_merkle_proof *p, uint32_t first, uint32_t count)
{
    const seal_node *sib = seal_merkle_sib(p, first);

    vp_buf_str(b, "{\"path\":[");
    for (uint32_t j = first; j < first + count; j++) {
        vp_buf_str(b, j == first ? "{\"hashes\":[" : ",{\"hashes\":[");
        for (unsigned h = 0; h + 1u < p->arity[j]; h++) {
            if (h) {
                vp_buf_str(b, ",");
            }
            vp_buf_json_node(b, sib->b);
            sib++;
        }
        vp_buf_str(b, "],\"index\":");
        vp_buf_dec(b, p->index[j]);
        vp_buf_str(b, "}");
    }
    vp_buf_str(b, "]}");
}

void vp_jw_merkle(vp_buf *b, const seal_merkle_proof *p)
{
    uint32_t nsub = p->kind >= SEAL_PROOF_SUB ? 1 : 0;

    if (p->kind == SEAL_PROOF_SINGLE) {
        vp_buf_str(b, "{\"data\":{\"Single\":{\"root\":");
        vp_buf_json_node(b, p->root.b);
        vp_buf_str(b, ",\"leaf\":");
        vp_buf_json_node(b, p->leaf.b);
        vp_buf_str(b, ",\"path\":");
        jw_ipath(b, p, 0, p->nbase);
        vp_buf_str(b, "}}}");
        return;
    }
    vp_buf_str(b, p->kind == SEAL_PROOF_SUB ? "{\"data\":{\"Sub\":{\"base_proof\":"
                                            : "{\"data\":{\"Top\":{\"base_proof\":");
    jw_ipath(b, p, 0, p->nbase);
    vp_buf_str(b, ",\"sub_proof\":");
    jw_ipath(b, p, p->nbase, 1);
    if (p->kind == SEAL_PROOF_TOP) {
        vp_buf_str(b, ",\"top_proof\":");
        jw_ipath(b, p, p->nbase + nsub, 1);
    }
    vp_buf_str(b, ",\"root\":");
    vp_buf_json_node(b, p->root.b);
    vp_buf_str(b, ",\"leaf\":");
    vp_buf_json_node(b, p->leaf.b);
    vp_buf_str(b, "}}}");
}

static cuzk_err br_ipath(vp_br *r, seal_merkle_proof *p, const seal_tree_shape *s,
                         const ipath_spec *sp, const char *name)
{
    uint64_t n;
    cuzk_err err;
    size_t m0 = vp_path_push(&r->path, ".%s", name);

    if ((err = vp_br_len(r, &n, 16)) != CUZK_OK) {
        return err;
    }
    if (n != sp->count) {
        return vp_br_fail(r, "expected %u path elements, found %llu", sp->count,
                          (unsigned long long)n);
    }
    for (uint32_t e = 0; e < sp->count; e++) {
        uint32_t j = sp->first + e;
        unsigned arity = s->arity[j];
        uint32_t off = sib_offset(s, j);
        uint64_t nh;
        size_t m1 = vp_path_push(&r->path, "[%u]", e);
        if ((err = vp_br_len(r, &nh, 32)) != CUZK_OK) {
            return err;
        }
        if (nh != arity - 1u) {
            return vp_br_fail(r, "expected %u hashes, found %llu", arity - 1,
                              (unsigned long long)nh);
        }
        for (unsigned h = 0; h < arity - 1u; h++) {
            if ((err = vp_br_node(r, p->sib[off + h].b)) != CUZK_OK) {
                return err;
            }
        }
        if ((err = vp_br_u64(r, &p->index[j])) != CUZK_OK) {
            return err;
        }
        if (p->index[j] >= arity) {
            r->pos -= 8;
            return vp_br_fail(r, "index %llu out of range for arity %u",
                              (unsigned long long)p->index[j], arity);
        }
        p->arity[j] = (uint8_t)arity;
        vp_path_pop(&r->path, m1);
    }
    vp_path_pop(&r->path, m0);
    return CUZK_OK;
}

cuzk_err vp_br_merkle(vp_br *r, seal_merkle_proof *out, const seal_tree_shape *shape)
{
    static const char *const pnames[3] = {"base_proof", "sub_proof", "top_proof"};
    ipath_spec spec[3];
    uint32_t tag;
    char sh[96];
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    path_specs(shape, spec);
    if ((err = vp_br_u32(r, &tag)) != CUZK_OK) {
        return err;
    }
    if (tag > 2) {
        r->pos -= 4;
        return vp_br_fail(r, "unknown ProofData variant %u", tag);
    }
    if (tag != shape->kind) {
        r->pos -= 4;
        vp_shape_str(sh, sizeof(sh), shape);
        return vp_br_fail(r, "variant %s does not fit this sector (expected %s)",
                          kind_name((seal_proof_kind)tag), sh);
    }
    if (tag == SEAL_PROOF_SINGLE) {
        if ((err = vp_br_node(r, out->root.b)) != CUZK_OK ||
            (err = vp_br_node(r, out->leaf.b)) != CUZK_OK ||
            (err = br_ipath(r, out, shape, &spec[0], "path")) != CUZK_OK) {
            return err;
        }
    } else {
        for (uint32_t i = 0; i <= tag; i++) {
            if ((err = br_ipath(r, out, shape, &spec[i], pnames[i])) != CUZK_OK) {
                return err;
            }
        }
        if ((err = vp_br_node(r, out->root.b)) != CUZK_OK ||
            (err = vp_br_node(r, out->leaf.b)) != CUZK_OK) {
            return err;
        }
    }
    shape_into(out, shape);
    return CUZK_OK;
}

static void bw_ipath(vp_buf *b, const seal_merkle_proof *p, uint32_t first, uint32_t count)
{
    const seal_node *sib = seal_merkle_sib(p, first);

    vp_buf_u64le(b, count);
    for (uint32_t j = first; j < first + count; j++) {
        vp_buf_u64le(b, p->arity[j] - 1u);
        for (unsigned h = 0; h + 1u < p->arity[j]; h++) {
            vp_buf_put(b, sib->b, 32);
            sib++;
        }
        vp_buf_u64le(b, p->index[j]);
    }
}

void vp_bw_merkle(vp_buf *b, const seal_merkle_proof *p)
{
    uint32_t nsub = p->kind >= SEAL_PROOF_SUB ? 1 : 0;

    vp_buf_u32le(b, (uint32_t)p->kind);
    if (p->kind == SEAL_PROOF_SINGLE) {
        vp_buf_put(b, p->root.b, 32);
        vp_buf_put(b, p->leaf.b, 32);
        bw_ipath(b, p, 0, p->nbase);
        return;
    }
    bw_ipath(b, p, 0, p->nbase);
    bw_ipath(b, p, p->nbase, 1);
    if (p->kind == SEAL_PROOF_TOP) {
        bw_ipath(b, p, p->nbase + nsub, 1);
    }
    vp_buf_put(b, p->root.b, 32);
    vp_buf_put(b, p->leaf.b, 32);
}
