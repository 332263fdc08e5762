/* path.c - Merkle path helpers shared by the circuits, and the zero witness of blank circuits. */
#include "circuits/circuits.h"

#include "circuits/internal.h"

const fr_t CIRC_ZERO_FR[CIRC_ZERO_LEN];
const uint32_t CIRC_ZERO_U32[CIRC_ZERO_LEN];

uint64_t circ_path_leaf_index(const gad_tree_shape_t *shape, const circ_path_t *path)
{
    uint64_t idx = 0, scale = 1;
    size_t levels = gad_tree_shape_levels(shape);

    for (size_t l = 0; l < levels; l++) {
        uint32_t arity = gad_tree_shape_arity(shape, l);
        idx += (uint64_t)path->index[l] * scale;
        scale *= arity;
    }
    return idx;
}

bool circ_path_valid(const gad_tree_shape_t *shape, const circ_path_t *path)
{
    size_t levels = gad_tree_shape_levels(shape);

    if (levels > CIRC_MAX_LEVELS || gad_tree_shape_siblings(shape) > CIRC_MAX_SIBLINGS) {
        return false;
    }
    if (levels > 0 && (!path->siblings || !path->index)) {
        return false;
    }
    for (size_t l = 0; l < levels; l++) {
        if (path->index[l] >= gad_tree_shape_arity(shape, l)) {
            return false;
        }
    }
    return true;
}

bool circ_check_path(cs_t *cs, const gad_tree_shape_t *shape, const circ_path_t *path,
                     const char *what, size_t i)
{
    if (circ_path_valid(shape, path)) {
        return true;
    }
    (void)cs_fail(cs, CUZK_E_INVAL, "%s %zu: path does not fit the tree shape", what, i);
    return false;
}

void circ_por_var(cs_t *cs, gad_hasher h, const gad_tree_shape_t *shape, const gad_num_t *leaf,
                  const circ_path_t *path, const gad_num_t *root)
{
    gad_root_t v = {true, *leaf}, r = {true, *root};

    gad_por(cs, h, shape, &v, path->siblings, path->index, &r, true, NULL);
}

void circ_enforce_decomp(cs_t *cs, const gad_bool_t *bits, size_t n, cs_var_t x, const char *label)
{
    if (cs_needs_lcs(cs)) {
        cs_lc_t a = cs_lc(cs), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, x);
        gad_lc_add_bits(cs, &a, NULL, bits, n);
        (void)cs_enforce(cs, &a, &b, &c, label);
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, label);
    }
}
