/* por.c - Merkle inclusion (storage-proofs-core gadgets/por.rs; spec circuits.md 4.7). */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

#define MAX_ARITY 16 /* the largest tree arity a PoR level may have */

static unsigned log2_exact(uint64_t x)
{
    unsigned k = 0;
    while ((UINT64_C(1) << k) < x) {
        k++;
    }
    return k;
}

static bool is_pow2(uint64_t x)
{
    return x && !(x & (x - 1));
}

bool gad_tree_shape_init(gad_tree_shape_t *s, uint64_t leaves, uint32_t base, uint32_t sub,
                         uint32_t top)
{
    if (!is_pow2(leaves) || base < 2 || !is_pow2(base) || base > MAX_ARITY ||
        (sub && (!is_pow2(sub) || sub < 2 || sub > MAX_ARITY)) ||
        (top && (!is_pow2(top) || top < 2 || top > MAX_ARITY)) || (top && !sub)) {
        return false;
    }
    uint64_t base_leaves = leaves / (sub ? sub : 1) / (top ? top : 1);
    unsigned lb = log2_exact(base), ll = log2_exact(base_leaves);
    if (base_leaves * (sub ? sub : 1) * (top ? top : 1) != leaves || ll % lb != 0) {
        return false;
    }
    s->base_arity = base;
    s->sub_arity = sub;
    s->top_arity = top;
    s->base_levels = ll / lb;
    return true;
}

size_t gad_tree_shape_levels(const gad_tree_shape_t *s)
{
    return s->base_levels + (s->sub_arity ? 1 : 0) + (s->top_arity ? 1 : 0);
}

uint32_t gad_tree_shape_arity(const gad_tree_shape_t *s, size_t level)
{
    if (level < s->base_levels) {
        return s->base_arity;
    }
    if (level == s->base_levels && s->sub_arity) {
        return s->sub_arity;
    }
    CZ_CHECK(s->top_arity && level == gad_tree_shape_levels(s) - 1);
    return s->top_arity;
}

size_t gad_tree_shape_siblings(const gad_tree_shape_t *s)
{
    size_t n = 0;
    for (size_t l = 0; l < gad_tree_shape_levels(s); l++) {
        n += gad_tree_shape_arity(s, l) - 1;
    }
    return n;
}

size_t gad_tree_shape_index_bits(const gad_tree_shape_t *s)
{
    size_t n = 0;
    for (size_t l = 0; l < gad_tree_shape_levels(s); l++) {
        n += log2_exact(gad_tree_shape_arity(s, l));
    }
    return n;
}

static void check_shape(const gad_tree_shape_t *s)
{
    CZ_CHECK(is_pow2(s->base_arity) && s->base_arity >= 2 && s->base_arity <= MAX_ARITY);
    CZ_CHECK(!s->sub_arity || (is_pow2(s->sub_arity) && s->sub_arity <= MAX_ARITY));
    CZ_CHECK(!s->top_arity || (is_pow2(s->top_arity) && s->top_arity <= MAX_ARITY));
    CZ_CHECK(!s->top_arity || s->sub_arity);
}

void gad_por(cs_t *cs, gad_hasher h, const gad_tree_shape_t *shape, const gad_root_t *value,
             const fr_t *siblings, const uint32_t *level_index, const gad_root_t *root,
             bool private_root, gad_num_t *computed)
{
    static const char *const group_ns[3] = {"base", "sub", "top"};
    bool lab = cs_wants_labels(cs);
    size_t levels = gad_tree_shape_levels(shape);
    gad_bool_t path_bits[64 * 4];
    size_t npath = 0, sib = 0, level = 0;
    gad_num_t cur, rt;

    check_shape(shape);
    GAD_NS_PUSH(cs, lab, "value");
    gad_root_allocated(cs, &cur, value);
    GAD_NS_POP(cs, lab);

    for (unsigned grp = 0; grp < 3; grp++) {
        size_t count = grp == 0   ? shape->base_levels
                       : grp == 1 ? (shape->sub_arity ? 1 : 0)
                                  : (shape->top_arity ? 1 : 0);
        GAD_NS_PUSH(cs, lab, group_ns[grp]);
        for (size_t i = 0; i < count; i++, level++) {
            uint32_t arity = gad_tree_shape_arity(shape, level);
            unsigned nbits = log2_exact(arity);
            gad_num_t sibs[MAX_ARITY];

            CZ_CHECK(level_index[level] < arity && npath + nbits <= ARRAY_LEN(path_bits));
            GAD_NS_PUSHF(cs, lab, "merkle tree hash %zu", i);
            for (unsigned b = 0; b < nbits; b++) {
                GAD_NS_PUSHF(cs, lab, "index bit %u", b);
                path_bits[npath + b] = gad_alloc_bit(cs, (level_index[level] >> b) & 1);
                GAD_NS_POP(cs, lab);
            }
            for (uint32_t s = 0; s + 1 < arity; s++) {
                GAD_NS_PUSHF(cs, lab, "path element %u", s);
                gad_num_alloc(cs, &sibs[s], &siblings[sib + s]);
                GAD_NS_POP(cs, lab);
            }
            gad_num_t row[MAX_ARITY];
            gad_insert(cs, row, &cur, path_bits + npath, nbits, sibs);
            GAD_NS_PUSH(cs, lab, "computation of commitment hash");
            gad_hash_multi_leaf(cs, h, &cur, row, arity);
            GAD_NS_POP(cs, lab);
            npath += nbits;
            sib += arity - 1;
            GAD_NS_POP(cs, lab);
        }
        GAD_NS_POP(cs, lab);
    }
    CZ_CHECK(level == levels);

    GAD_NS_PUSH(cs, lab, "path");
    gad_pack_into_inputs(cs, path_bits, npath);
    GAD_NS_POP(cs, lab);
    GAD_NS_PUSH(cs, lab, "root_value");
    gad_root_allocated(cs, &rt, root);
    GAD_NS_POP(cs, lab);
    gad_equal(cs, &cur, &rt, "enforce root is correct");
    if (!private_root) {
        GAD_NS_PUSH(cs, lab, "root");
        gad_num_inputize(cs, &rt);
        GAD_NS_POP(cs, lab);
    }
    if (computed) {
        *computed = cur;
    }
}

void gad_por_no_challenge_input(cs_t *cs, gad_hasher h, const gad_tree_shape_t *shape,
                                const gad_bool_t *challenge_bits, size_t nbits,
                                const gad_num_t *leaf, const gad_num_t *path, const gad_num_t *root)
{
    bool lab = cs_wants_labels(cs);
    size_t levels = gad_tree_shape_levels(shape);
    size_t used = 0, sib = 0;
    gad_num_t cur = *leaf;

    check_shape(shape);
    CZ_CHECK(nbits == gad_tree_shape_index_bits(shape));
    for (size_t height = 0; height < levels; height++) {
        uint32_t arity = gad_tree_shape_arity(shape, height);
        unsigned k = log2_exact(arity);
        gad_num_t row[MAX_ARITY];

        GAD_NS_PUSHF(cs, lab, "merkle proof insert (height=%zu)", height);
        gad_insert(cs, row, &cur, challenge_bits + used, k, path + sib);
        GAD_NS_POP(cs, lab);
        GAD_NS_PUSHF(cs, lab, "merkle proof hash (height=%zu)", height);
        gad_hash_multi_leaf(cs, h, &cur, row, arity);
        GAD_NS_POP(cs, lab);
        used += k;
        sib += arity - 1;
    }
    if (cs_needs_lcs(cs)) {
        cs_lc_t a = cs_lc_of(cs, cur.var), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, root->var);
        (void)cs_enforce(cs, &a, &b, &c, "calculated root == provided root");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "calculated root == provided root");
    }
}
