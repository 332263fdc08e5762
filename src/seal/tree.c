/* tree.c - Merkle trees of mixed arity (TreeD: binary SHA-256 trimmed; TreeC and TreeRLast:
 * Poseidon arity 8 base levels, then the sub and top levels of compound shapes), dense or
 * sparse, and their inclusion proofs (sealing.md 4.2, 4.5; vanilla-proofs.md 1.4).
 *
 * A compound tree (base trees + sub + top) is the same thing as one tree whose upper levels
 * have the sub and top arities, because the base trees split the leaves contiguously and the
 * sub/top trees hash consecutive roots: so one level list describes every shape.
 * Dense trees keep every level in one buffer, leaves first. Sparse trees keep, per level, the
 * sorted list of nodes that differ from that level's empty-subtree value.
 */
#include "seal/internal.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "field/fr.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

typedef struct sparse_level {
    size_t n;
    uint64_t *idx;
    seal_node *val;
} sparse_level;

struct seal_tree {
    seal_tree_shape shape;
    bool sparse;
    uint64_t len[SEAL_MAX_PATH + 1]; /* nodes per level */
    /* dense */
    cz_buf buf;
    seal_node *level[SEAL_MAX_PATH + 1];
    /* sparse */
    sparse_level sl[SEAL_MAX_PATH + 1];
    seal_node dflt[SEAL_MAX_PATH + 1];
};

/* ---- shapes ------------------------------------------------------------------------------ */

void seal_tree_shape_d(seal_tree_shape *out, uint64_t nodes)
{
    CZ_CHECK(nodes >= 2 && nodes <= SEAL_MAX_NODES && (nodes & (nodes - 1)) == 0);
    memset(out, 0, sizeof(*out));
    out->hash = SEAL_HASH_SHA256;
    out->kind = SEAL_PROOF_SINGLE;
    out->leaves = nodes;
    while (((uint64_t)1 << out->nlevels) < nodes) {
        out->arity[out->nlevels++] = 2;
    }
    out->nbase = out->nlevels;
}

void seal_tree_shape_r(seal_tree_shape *out, const seal_shape *s)
{
    memset(out, 0, sizeof(*out));
    out->hash = SEAL_HASH_POSEIDON;
    out->leaves = s->nodes;
    for (uint32_t i = 0; i < s->base_levels; i++) {
        out->arity[out->nlevels++] = (uint8_t)s->base_arity;
    }
    out->nbase = out->nlevels;
    out->kind = SEAL_PROOF_SINGLE;
    if (s->sub_arity) {
        out->arity[out->nlevels++] = (uint8_t)s->sub_arity;
        out->kind = SEAL_PROOF_SUB;
    }
    if (s->top_arity) {
        out->arity[out->nlevels++] = (uint8_t)s->top_arity;
        out->kind = SEAL_PROOF_TOP;
    }
}

static bool shape_is_valid(const seal_tree_shape *s)
{
    uint64_t n = 1;

    if (s->nlevels == 0 || s->nlevels > SEAL_MAX_PATH || s->nbase > s->nlevels) {
        return false;
    }
    for (uint32_t j = 0; j < s->nlevels; j++) {
        if (s->arity[j] < 2 || (s->hash == SEAL_HASH_SHA256 && s->arity[j] != 2) ||
            (s->hash == SEAL_HASH_POSEIDON && !poseidon_arity_is_supported(s->arity[j]))) {
            return false;
        }
        n *= s->arity[j];
    }
    return n == s->leaves;
}

/* ---- hashing ----------------------------------------------------------------------------- */

/* out = H(children[0..a)); false if a Poseidon input is not a canonical Fr. */
static bool hash_children(uint8_t out[32], seal_tree_hash hash, const seal_node *children,
                          unsigned a)
{
    if (hash == SEAL_HASH_SHA256) {
        CZ_CHECK(a == 2);
        sha256_fr32_node(out, children[0].b, children[1].b);
        return true;
    }
    fr_t x[8], h;
    CZ_CHECK(a <= 8);
    for (unsigned i = 0; i < a; i++) {
        if (fr_from_bytes(&x[i], children[i].b) != CUZK_OK) {
            return false;
        }
    }
    poseidon_hash(&h, x, a, poseidon_params(a));
    fr_to_bytes(out, &h);
    return true;
}

/* ---- dense ------------------------------------------------------------------------------- */

typedef struct level_job {
    seal_tree_hash hash;
    unsigned arity;
    const seal_node *in;
    seal_node *out;
} level_job;

static void level_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    level_job *j = ctx;
    (void)worker;
    if (j->hash == SEAL_HASH_SHA256) {
        sha256_fr32_nodes(j->out[begin].b, j->in[2 * begin].b, end - begin);
        return;
    }
    for (size_t i = begin; i < end; i++) {
        CZ_CHECK(hash_children(j->out[i].b, j->hash, j->in + i * j->arity, j->arity));
    }
}

static seal_tree *tree_alloc(const seal_tree_shape *shape)
{
    seal_tree *t = cz_calloc(1, sizeof(*t));

    if (!t) {
        return NULL;
    }
    t->shape = *shape;
    t->len[0] = shape->leaves;
    for (uint32_t j = 0; j < shape->nlevels; j++) {
        t->len[j + 1] = t->len[j] / shape->arity[j];
    }
    return t;
}

cuzk_err seal_tree_new_dense(seal_tree **out, const seal_tree_shape *shape, const seal_node *leaves,
                             cz_pool *pool, cz_diag *dg)
{
    seal_tree *t;
    uint64_t total = 0;
    cuzk_err err;

    *out = NULL;
    CZ_CHECK(shape_is_valid(shape));
    t = tree_alloc(shape);
    if (!t) {
        return cz_fail(dg, CUZK_E_NOMEM, "tree");
    }
    for (uint32_t j = 0; j <= shape->nlevels; j++) {
        total += t->len[j];
    }
    err = cz_buf_new(&t->buf, (size_t)total * 32, dg);
    if (err != CUZK_OK) {
        cz_free(t);
        return err;
    }
    t->level[0] = t->buf.ptr;
    for (uint32_t j = 1; j <= shape->nlevels; j++) {
        t->level[j] = t->level[j - 1] + t->len[j - 1];
    }
    if (leaves) {
        memcpy(t->level[0], leaves, (size_t)shape->leaves * 32);
    }
    if (shape->hash == SEAL_HASH_POSEIDON) {
        for (uint64_t i = 0; i < shape->leaves; i++) {
            if (!seal_node_is_fr(t->level[0][i].b)) {
                seal_tree_free(t);
                return cz_fail(dg, CUZK_E_INVAL, "tree leaf %llu is not a canonical Fr",
                               (unsigned long long)i);
            }
        }
    }
    for (uint32_t j = 0; j < shape->nlevels; j++) {
        level_job job = {.hash = shape->hash,
                         .arity = shape->arity[j],
                         .in = t->level[j],
                         .out = t->level[j + 1]};
        size_t grain = shape->hash == SEAL_HASH_SHA256 ? 8192 : 64;
        cz_pool_for(pool, (size_t)t->len[j + 1], grain, level_task, &job);
    }
    *out = t;
    return CUZK_OK;
}

/* ---- sparse ------------------------------------------------------------------------------ */

static void sparse_free_levels(seal_tree *t)
{
    for (uint32_t j = 0; j <= SEAL_MAX_PATH; j++) {
        cz_free(t->sl[j].idx);
        cz_free(t->sl[j].val);
        t->sl[j].idx = NULL;
        t->sl[j].val = NULL;
    }
}

static cuzk_err sparse_level_alloc(sparse_level *l, size_t n, cz_diag *dg)
{
    l->n = 0;
    l->idx = cz_malloc((n ? n : 1) * sizeof(uint64_t));
    l->val = cz_malloc((n ? n : 1) * sizeof(seal_node));
    if (!l->idx || !l->val) {
        return cz_fail(dg, CUZK_E_NOMEM, "sparse tree level of %zu nodes", n);
    }
    return CUZK_OK;
}

/* Builds levels 1..nlevels from the leaves already in t->sl[0] and t->dflt[0]. */
static cuzk_err sparse_build_up(seal_tree *t, cz_diag *dg)
{
    const seal_tree_shape *s = &t->shape;
    cuzk_err err;

    for (uint32_t j = 0; j < s->nlevels; j++) {
        const sparse_level *in = &t->sl[j];
        sparse_level *out = &t->sl[j + 1];
        unsigned a = s->arity[j];
        seal_node ch[8];

        for (unsigned i = 0; i < a; i++) {
            ch[i] = t->dflt[j];
        }
        if (!hash_children(t->dflt[j + 1].b, s->hash, ch, a)) {
            return cz_fail(dg, CUZK_E_INVAL, "sparse tree default node is not a canonical Fr");
        }
        CZ_TRY(err, sparse_level_alloc(out, in->n, dg), fail);
        for (size_t i = 0; i < in->n;) {
            uint64_t parent = in->idx[i] / a;
            for (unsigned c = 0; c < a; c++) {
                ch[c] = t->dflt[j];
            }
            while (i < in->n && in->idx[i] / a == parent) {
                ch[in->idx[i] % a] = in->val[i];
                i++;
            }
            out->idx[out->n] = parent;
            if (!hash_children(out->val[out->n].b, s->hash, ch, a)) {
                return cz_fail(dg, CUZK_E_INVAL, "sparse tree node is not a canonical Fr");
            }
            out->n++;
        }
    }
    return CUZK_OK;
fail:
    return err;
}

cuzk_err seal_tree_new_sparse(seal_tree **out, const seal_tree_shape *shape, const uint64_t *idx,
                              const seal_node *vals, size_t n, const uint8_t dflt[32], cz_diag *dg)
{
    seal_tree *t;
    cuzk_err err;

    *out = NULL;
    CZ_CHECK(shape_is_valid(shape));
    for (size_t i = 0; i < n; i++) {
        CZ_CHECK(idx[i] < shape->leaves && (i == 0 || idx[i] > idx[i - 1]));
    }
    t = tree_alloc(shape);
    if (!t) {
        return cz_fail(dg, CUZK_E_NOMEM, "tree");
    }
    t->sparse = true;
    memcpy(t->dflt[0].b, dflt, 32);
    CZ_TRY(err, sparse_level_alloc(&t->sl[0], n, dg), fail);
    if (n) {
        memcpy(t->sl[0].idx, idx, n * sizeof(uint64_t));
        memcpy(t->sl[0].val, vals, n * sizeof(seal_node));
    }
    t->sl[0].n = n;
    CZ_TRY(err, sparse_build_up(t, dg), fail);
    *out = t;
    return CUZK_OK;
fail:
    seal_tree_free(t);
    return err;
}

void seal_tree_free(seal_tree *t)
{
    if (!t) {
        return;
    }
    cz_buf_free(&t->buf);
    sparse_free_levels(t);
    cz_free(t);
}

const seal_tree_shape *seal_tree_get_shape(const seal_tree *t)
{
    return &t->shape;
}

bool seal_tree_is_sparse(const seal_tree *t)
{
    return t->sparse;
}

size_t seal_find_u64(const uint64_t *idx, size_t n, uint64_t node)
{
    size_t lo = 0, hi = n;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (idx[mid] < node) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo < n && idx[lo] == node ? lo : SIZE_MAX;
}

void seal_tree_node(const seal_tree *t, uint32_t level, uint64_t index, uint8_t out[32])
{
    CZ_CHECK(level <= t->shape.nlevels && index < t->len[level]);
    if (!t->sparse) {
        memcpy(out, t->level[level][index].b, 32);
        return;
    }
    const sparse_level *l = &t->sl[level];
    size_t at = seal_find_u64(l->idx, l->n, index);
    memcpy(out, at == SIZE_MAX ? t->dflt[level].b : l->val[at].b, 32);
}

void seal_tree_root(const seal_tree *t, uint8_t out[32])
{
    seal_tree_node(t, t->shape.nlevels, 0, out);
}

void seal_tree_prove(const seal_tree *t, uint64_t leaf, seal_merkle_proof *out)
{
    const seal_tree_shape *s = &t->shape;
    uint64_t idx = leaf;
    uint32_t ns = 0;

    CZ_CHECK(leaf < s->leaves);
    memset(out, 0, sizeof(*out));
    out->kind = s->kind;
    out->nelems = s->nlevels;
    out->nbase = s->nbase;
    seal_tree_node(t, 0, leaf, out->leaf.b);
    for (uint32_t j = 0; j < s->nlevels; j++) {
        unsigned a = s->arity[j];
        uint64_t pos = idx % a, start = idx - pos;
        out->arity[j] = (uint8_t)a;
        out->index[j] = pos;
        for (unsigned i = 0; i < a; i++) {
            if (i != pos) {
                CZ_CHECK(ns < SEAL_MAX_SIBLINGS);
                seal_tree_node(t, j, start + i, out->sib[ns++].b);
            }
        }
        idx /= a;
    }
    seal_tree_root(t, out->root.b);
}

/* ---- proofs ------------------------------------------------------------------------------ */

const seal_node *seal_merkle_sib(const seal_merkle_proof *p, uint32_t j)
{
    uint32_t off = 0;

    CZ_CHECK(j <= p->nelems);
    for (uint32_t i = 0; i < j; i++) {
        off += p->arity[i] - 1u;
    }
    return p->sib + off;
}

uint32_t seal_merkle_nsib(const seal_merkle_proof *p)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nelems && i < SEAL_MAX_PATH; i++) {
        n += p->arity[i] - 1u;
    }
    return n;
}

uint64_t seal_merkle_leaf_index(const seal_merkle_proof *p)
{
    uint64_t idx = 0, mul = 1;

    for (uint32_t j = 0; j < p->nelems && j < SEAL_MAX_PATH; j++) {
        idx += p->index[j] * mul;
        mul *= p->arity[j];
    }
    return idx;
}

static bool proof_is_well_formed(const seal_merkle_proof *p)
{
    uint32_t extra = p->kind == SEAL_PROOF_SINGLE ? 0 : p->kind == SEAL_PROOF_SUB ? 1 : 2;
    uint32_t nsib = 0;

    if (p->kind > SEAL_PROOF_TOP || p->nelems > SEAL_MAX_PATH || p->nelems == 0 ||
        p->nbase + extra != p->nelems) {
        return false;
    }
    for (uint32_t j = 0; j < p->nelems; j++) {
        if (p->arity[j] < 2 || p->arity[j] > 8 || p->index[j] >= p->arity[j]) {
            return false;
        }
        nsib += p->arity[j] - 1u;
    }
    return nsib <= SEAL_MAX_SIBLINGS;
}

bool seal_merkle_verify(const seal_merkle_proof *p, seal_tree_hash hash)
{
    seal_node cur, ch[8];
    const seal_node *sib = p->sib;

    if (!proof_is_well_formed(p)) {
        return false;
    }
    cur = p->leaf;
    for (uint32_t j = 0; j < p->nelems; j++) {
        unsigned a = p->arity[j];
        if (hash == SEAL_HASH_SHA256 && a != 2) {
            return false;
        }
        for (unsigned i = 0, s = 0; i < a; i++) {
            ch[i] = i == p->index[j] ? cur : sib[s++];
        }
        sib += a - 1;
        if (!hash_children(cur.b, hash, ch, a)) {
            return false;
        }
    }
    return memcmp(cur.b, p->root.b, 32) == 0;
}

bool seal_merkle_matches_shape(const seal_merkle_proof *p, const seal_tree_shape *shape)
{
    if (p->kind != shape->kind || p->nelems != shape->nlevels || p->nbase != shape->nbase) {
        return false;
    }
    for (uint32_t j = 0; j < p->nelems; j++) {
        if (p->arity[j] != shape->arity[j]) {
            return false;
        }
    }
    return true;
}

/* ---- serialisation for the sector cache ------------------------------------------------- */

/* A tree file: "CZTREE1\0", u32 sparse flag, u32 nlevels, then
 *   dense:  every level's nodes, leaves first;
 *   sparse: per level 0..nlevels: the default node, u64 count, count x (u64 index, node).
 * The shape itself is not stored: the loader knows it from the sector configuration. */

cuzk_err seal_tree_save(const seal_tree *t, const char *path, cz_diag *dg)
{
    FILE *f = fopen(path, "wb");
    bool ok;
    uint32_t hdr[2] = {t->sparse ? 1u : 0u, t->shape.nlevels};

    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot create %s", path);
    }
    ok = fwrite("CZTREE1", 1, 8, f) == 8 && fwrite(hdr, sizeof(hdr), 1, f) == 1;
    for (uint32_t j = 0; ok && j <= t->shape.nlevels; j++) {
        if (!t->sparse) {
            ok = fwrite(t->level[j], 32, (size_t)t->len[j], f) == t->len[j];
            continue;
        }
        uint64_t n = t->sl[j].n;
        ok = fwrite(t->dflt[j].b, 32, 1, f) == 1 && fwrite(&n, 8, 1, f) == 1;
        for (size_t i = 0; ok && i < n; i++) {
            ok = fwrite(&t->sl[j].idx[i], 8, 1, f) == 1 && fwrite(t->sl[j].val[i].b, 32, 1, f) == 1;
        }
    }
    if (fclose(f) != 0) {
        ok = false;
    }
    return ok ? CUZK_OK : cz_fail(dg, CUZK_E_IO, "cannot write %s", path);
}

cuzk_err seal_tree_load(seal_tree **out, const seal_tree_shape *shape, const char *path,
                        cz_diag *dg)
{
    FILE *f = fopen(path, "rb");
    char magic[8];
    uint32_t hdr[2];
    seal_tree *t = NULL;
    cuzk_err err = CUZK_OK;

    *out = NULL;
    if (!f) {
        return cz_fail(dg, CUZK_E_IO, "cannot open %s", path);
    }
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "CZTREE1", 8) != 0 ||
        fread(hdr, sizeof(hdr), 1, f) != 1 || hdr[0] > 1 || hdr[1] != shape->nlevels) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: not a tree file of this shape", path);
        goto done;
    }
    if (hdr[0] == 0) {
        uint64_t total = 0;
        t = tree_alloc(shape);
        if (!t) {
            err = cz_fail(dg, CUZK_E_NOMEM, "tree");
            goto done;
        }
        for (uint32_t j = 0; j <= shape->nlevels; j++) {
            total += t->len[j];
        }
        CZ_TRY(err, cz_buf_new(&t->buf, (size_t)total * 32, dg), done);
        t->level[0] = t->buf.ptr;
        for (uint32_t j = 1; j <= shape->nlevels; j++) {
            t->level[j] = t->level[j - 1] + t->len[j - 1];
        }
        if (fread(t->buf.ptr, 32, (size_t)total, f) != total) {
            err = cz_fail(dg, CUZK_E_FORMAT, "%s: truncated", path);
            goto done;
        }
    } else {
        t = tree_alloc(shape);
        if (!t) {
            err = cz_fail(dg, CUZK_E_NOMEM, "tree");
            goto done;
        }
        t->sparse = true;
        for (uint32_t j = 0; j <= shape->nlevels; j++) {
            uint64_t n;
            if (fread(t->dflt[j].b, 32, 1, f) != 1 || fread(&n, 8, 1, f) != 1 || n > t->len[j]) {
                err = cz_fail(dg, CUZK_E_FORMAT, "%s: level %u header", path, j);
                goto done;
            }
            CZ_TRY(err, sparse_level_alloc(&t->sl[j], (size_t)n, dg), done);
            for (size_t i = 0; i < n; i++) {
                if (fread(&t->sl[j].idx[i], 8, 1, f) != 1 ||
                    fread(t->sl[j].val[i].b, 32, 1, f) != 1 || t->sl[j].idx[i] >= t->len[j] ||
                    (i > 0 && t->sl[j].idx[i] <= t->sl[j].idx[i - 1])) {
                    err = cz_fail(dg, CUZK_E_FORMAT, "%s: level %u entry %zu", path, j, i);
                    goto done;
                }
                t->sl[j].n = i + 1;
            }
        }
    }
    if (fgetc(f) != EOF) {
        err = cz_fail(dg, CUZK_E_FORMAT, "%s: trailing bytes", path);
        goto done;
    }
    *out = t;
    t = NULL;
done:
    fclose(f);
    seal_tree_free(t);
    return err;
}
