/* merkle_codec.c - the Merkle inclusion proof (Rust's MerkleProof) in JSON and in bincode
 * (vanilla-proofs.md 1.4, 2.2), read against the shape the sector size fixes: the variant
 * (Single, Sub, Top), the path element counts and their arities.
 */
#include "proofs/internal.h"

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

static cuzk_err jr_ipath(vp_jr *r, seal_merkle_proof *p, const seal_tree_shape *s,
                         const ipath_spec *sp)
{
    bool first = true, end, seen = false;
    char key[16];
    cuzk_err err;

    if ((err = vp_jr_object(r)) != CUZK_OK) {
        return err;
    }
    for (;;) {
        if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK) {
            return err;
        }
        if (end) {
            break;
        }
        if (strcmp(key, "path") != 0) {
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
            continue;
        }
        if (seen) {
            return vp_jr_fail(r, "duplicate key \"path\"");
        }
        seen = true;
        size_t m0 = vp_path_push(&r->path, ".path");
        bool afirst = true, aend;
        uint32_t n = 0;
        if ((err = vp_jr_array(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_next(r, &afirst, &aend)) != CUZK_OK) {
                return err;
            }
            if (aend) {
                break;
            }
            size_t m1 = vp_path_push(&r->path, "[%u]", n);
            if (n >= sp->count) {
                return vp_jr_fail(r, "expected %u path elements, found more", sp->count);
            }
            uint32_t j = sp->first + n;
            unsigned arity = s->arity[j];
            uint32_t off = sib_offset(s, j);
            bool efirst = true, eend, have_h = false, have_i = false;
            char ek[16];
            if ((err = vp_jr_object(r)) != CUZK_OK) {
                return err;
            }
            for (;;) {
                if ((err = vp_jr_key(r, &efirst, ek, sizeof(ek), &eend)) != CUZK_OK) {
                    return err;
                }
                if (eend) {
                    break;
                }
                if (strcmp(ek, "hashes") == 0) {
                    size_t m2 = vp_path_push(&r->path, ".hashes");
                    bool hfirst = true, hend;
                    unsigned h = 0;
                    if (have_h) {
                        vp_path_pop(&r->path, m2);
                        return vp_jr_fail(r, "duplicate key \"hashes\"");
                    }
                    have_h = true;
                    if ((err = vp_jr_array(r)) != CUZK_OK) {
                        return err;
                    }
                    for (;;) {
                        if ((err = vp_jr_next(r, &hfirst, &hend)) != CUZK_OK) {
                            return err;
                        }
                        if (hend) {
                            break;
                        }
                        if (h >= arity - 1) {
                            return vp_jr_fail(r, "expected %u hashes, found more", arity - 1);
                        }
                        size_t m3 = vp_path_push(&r->path, "[%u]", h);
                        if ((err = vp_jr_node(r, p->sib[off + h].b)) != CUZK_OK) {
                            return err;
                        }
                        vp_path_pop(&r->path, m3);
                        h++;
                    }
                    if (h != arity - 1) {
                        return vp_jr_fail(r, "expected %u hashes, found %u", arity - 1, h);
                    }
                    vp_path_pop(&r->path, m2);
                } else if (strcmp(ek, "index") == 0) {
                    size_t m2 = vp_path_push(&r->path, ".index");
                    if (have_i) {
                        vp_path_pop(&r->path, m2);
                        return vp_jr_fail(r, "duplicate key \"index\"");
                    }
                    have_i = true;
                    if ((err = vp_jr_u64(r, &p->index[j])) != CUZK_OK) {
                        return err;
                    }
                    if (p->index[j] >= arity) {
                        return vp_jr_fail(r, "index %llu out of range for arity %u",
                                          (unsigned long long)p->index[j], arity);
                    }
                    vp_path_pop(&r->path, m2);
                } else if ((err = vp_jr_skip(r)) != CUZK_OK) {
                    return err;
                }
            }
            if (!have_h || !have_i) {
                return vp_jr_fail(r, "missing \"%s\"", have_h ? "index" : "hashes");
            }
            p->arity[j] = (uint8_t)arity;
            vp_path_pop(&r->path, m1);
            n++;
        }
        if (n != sp->count) {
            return vp_jr_fail(r, "expected %u path elements, found %u", sp->count, n);
        }
        vp_path_pop(&r->path, m0);
    }
    if (!seen) {
        return vp_jr_fail(r, "missing \"path\"");
    }
    return CUZK_OK;
}

cuzk_err vp_jr_merkle(vp_jr *r, seal_merkle_proof *out, const seal_tree_shape *shape)
{
    static const char *const variants[3] = {"Single", "Sub", "Top"};
    static const char *const pnames[3] = {"base_proof", "sub_proof", "top_proof"};
    bool first = true, end, have_data = false;
    char key[32], sh[96];
    ipath_spec spec[3];
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    path_specs(shape, spec);
    if ((err = vp_jr_object(r)) != CUZK_OK) {
        return err;
    }
    for (;;) {
        if ((err = vp_jr_key(r, &first, key, sizeof(key), &end)) != CUZK_OK) {
            return err;
        }
        if (end) {
            break;
        }
        if (strcmp(key, "data") != 0) {
            if ((err = vp_jr_skip(r)) != CUZK_OK) {
                return err;
            }
            continue;
        }
        if (have_data) {
            return vp_jr_fail(r, "duplicate key \"data\"");
        }
        have_data = true;
        size_t m0 = vp_path_push(&r->path, ".data");
        bool vfirst = true, vend;
        if ((err = vp_jr_object(r)) != CUZK_OK) {
            return err;
        }
        if ((err = vp_jr_key(r, &vfirst, key, sizeof(key), &vend)) != CUZK_OK) {
            return err;
        }
        if (vend) {
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
            return vp_jr_fail(r, "unknown variant \"%s\" (expected %s)", key,
                              variants[shape->kind]);
        }
        if (v != (int)shape->kind) {
            return vp_jr_fail(r, "variant %s does not fit this sector (expected %s)", key, sh);
        }
        size_t m1 = vp_path_push(&r->path, ".%s", key);
        /* the variant's struct */
        bool sfirst = true, send, have_root = false, have_leaf = false, have_p[3] = {0};
        if ((err = vp_jr_object(r)) != CUZK_OK) {
            return err;
        }
        for (;;) {
            if ((err = vp_jr_key(r, &sfirst, key, sizeof(key), &send)) != CUZK_OK) {
                return err;
            }
            if (send) {
                break;
            }
            size_t m2 = vp_path_push(&r->path, ".%s", key);
            int pi = -1;
            if (v == 0 && strcmp(key, "path") == 0) {
                pi = 0;
            }
            for (int i = 0; v > 0 && i <= v; i++) {
                if (strcmp(key, pnames[i]) == 0) {
                    pi = i;
                }
            }
            if (strcmp(key, "root") == 0 || strcmp(key, "leaf") == 0) {
                bool *have = key[0] == 'r' ? &have_root : &have_leaf;
                if (*have) {
                    vp_path_pop(&r->path, m2);
                    return vp_jr_fail(r, "duplicate key \"%s\"", key);
                }
                *have = true;
                err = vp_jr_node(r, key[0] == 'r' ? out->root.b : out->leaf.b);
            } else if (pi >= 0) {
                if (have_p[pi]) {
                    vp_path_pop(&r->path, m2);
                    return vp_jr_fail(r, "duplicate key \"%s\"", key);
                }
                have_p[pi] = true;
                err = jr_ipath(r, out, shape, &spec[pi]);
            } else {
                err = vp_jr_skip(r);
            }
            if (err != CUZK_OK) {
                return err;
            }
            vp_path_pop(&r->path, m2);
        }
        if (!have_root || !have_leaf) {
            return vp_jr_fail(r, "missing \"%s\"", have_root ? "leaf" : "root");
        }
        for (int i = 0; i <= v; i++) {
            if (!have_p[i]) {
                return vp_jr_fail(r, "missing \"%s\"", v == 0 ? "path" : pnames[i]);
            }
        }
        vp_path_pop(&r->path, m1);
        if ((err = vp_jr_key(r, &vfirst, key, sizeof(key), &vend)) != CUZK_OK) {
            return err;
        }
        if (!vend) {
            return vp_jr_fail(r, "more than one variant");
        }
        vp_path_pop(&r->path, m0);
    }
    if (!have_data) {
        return vp_jr_fail(r, "missing \"data\"");
    }
    out->kind = shape->kind;
    out->nelems = shape->nlevels;
    out->nbase = shape->nbase;
    return CUZK_OK;
}

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
    out->kind = shape->kind;
    out->nelems = shape->nlevels;
    out->nbase = shape->nbase;
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
