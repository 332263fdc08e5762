/* boolean.c - AllocatedBit and Boolean with bellpepper-core 0.2's constant folding
 * (spec circuits.md 2.1-2.4). The folding branches decide whether a constraint exists at all,
 * so their order follows the reference's match arms exactly.
 */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

const gad_bool_t GAD_FALSE_BITS[256] = {{{0}, GAD_CONST, 0}}; /* all Constant(false) */

/* ------------------------------------------------------------------------------------------
 * LC helpers
 * ---------------------------------------------------------------------------------------- */

void gad_lc_add_bool(cs_t *cs, cs_lc_t *lc, const fr_t *coeff, gad_bool_t b)
{
    switch (b.kind) {
    case GAD_CONST:
        if (b.value) {
            if (coeff) {
                cs_lc_add(cs, lc, coeff, CS_ONE);
            } else {
                cs_lc_add_var(cs, lc, CS_ONE);
            }
        }
        break;
    case GAD_IS:
        if (coeff) {
            cs_lc_add(cs, lc, coeff, b.var);
        } else {
            cs_lc_add_var(cs, lc, b.var);
        }
        break;
    default: /* GAD_NOT: coeff ONE - coeff x */
        if (coeff) {
            cs_lc_add(cs, lc, coeff, CS_ONE);
            cs_lc_sub(cs, lc, coeff, b.var);
        } else {
            cs_lc_add_var(cs, lc, CS_ONE);
            cs_lc_sub_var(cs, lc, b.var);
        }
        break;
    }
}

void gad_lc_sub_bool(cs_t *cs, cs_lc_t *lc, gad_bool_t b)
{
    switch (b.kind) {
    case GAD_CONST:
        if (b.value) {
            cs_lc_sub_var(cs, lc, CS_ONE);
        }
        break;
    case GAD_IS:
        cs_lc_sub_var(cs, lc, b.var);
        break;
    default:
        cs_lc_sub_var(cs, lc, CS_ONE);
        cs_lc_add_var(cs, lc, b.var);
        break;
    }
}

void gad_lc_add_bits(cs_t *cs, cs_lc_t *lc, const fr_t *base, const gad_bool_t *bits, size_t n)
{
    fr_t c = base ? *base : FR_ONE;
    fr_t one_acc = FR_ZERO; /* the merged coefficient of ONE, pushed once */
    bool any_one = false;

    for (size_t j = 0; j < n; j++) {
        gad_bool_t b = bits[j];
        if (b.kind == GAD_IS) {
            cs_lc_add(cs, lc, &c, b.var);
        } else if (b.kind == GAD_NOT) {
            fr_add(&one_acc, &one_acc, &c);
            any_one = true;
            cs_lc_sub(cs, lc, &c, b.var);
        } else if (b.value) {
            fr_add(&one_acc, &one_acc, &c);
            any_one = true;
        }
        fr_dbl(&c, &c);
    }
    if (any_one) {
        cs_lc_add(cs, lc, &one_acc, CS_ONE);
    }
}

void gad_bits_value(fr_t *out, const gad_bool_t *bits, size_t n)
{
    fr_repr_t r = {{0, 0, 0, 0}};

    CZ_CHECK(n <= GAD_FR_CAPACITY);
    for (size_t j = 0; j < n; j++) {
        r.l[j / 64] |= (uint64_t)(bits[j].value & 1) << (j % 64);
    }
    CZ_CHECK(fr_from_repr(out, &r));
}

/* ------------------------------------------------------------------------------------------
 * AllocatedBit
 * ---------------------------------------------------------------------------------------- */

gad_bool_t gad_alloc_bit_m(cs_t *cs, unsigned m, bool value)
{
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)value};

    r.var = gad_alloc_var(cs, gad_fr_bit(value));
    if (m & GAD_M_LCS) {
        cs_lc_t a = cs_lc(cs), b = cs_lc(cs);
        cs_lc_add_var(cs, &a, CS_ONE);
        cs_lc_sub_var(cs, &a, r.var);
        cs_lc_add_var(cs, &b, r.var);
        (void)cs_enforce(cs, &a, &b, NULL, "boolean constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "boolean constraint");
    }
    return r;
}

void gad_alloc_bits_m(cs_t *cs, unsigned m, gad_bool_t *out, const bool *bits, size_t n,
                      const char *ns)
{
    bool lab = (m & GAD_M_LAB) != 0;
    cs_var_t vars[GAD_FR_BITS + 1];

    CZ_CHECK(n <= GAD_FR_BITS + 1);
    if (!(m & GAD_M_BLIND)) {
        for (size_t i = 0; i < n; i++) {
            GAD_NS_PUSHF(cs, lab, "%s %zu", ns, i);
            out[i] = gad_alloc_bit_m(cs, m, bits[i]);
            GAD_NS_POP(cs, lab);
        }
        return;
    }
    gad_alloc_bits_blind(cs, vars, bits, n);
    for (size_t i = 0; i < n; i++) {
        gad_bool_t r = {vars[i], GAD_IS, (uint8_t)bits[i]};
        out[i] = r;
    }
}

gad_bool_t gad_alloc_bit_cond(cs_t *cs, bool value, gad_bool_t must_be_false)
{
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)value};

    CZ_CHECK(must_be_false.kind == GAD_IS);
    r.var = gad_alloc_var(cs, gad_fr_bit(value));
    if (cs_needs_lcs(cs)) {
        cs_lc_t a = cs_lc(cs), b = cs_lc(cs);
        cs_lc_add_var(cs, &a, CS_ONE);
        cs_lc_sub_var(cs, &a, must_be_false.var);
        cs_lc_sub_var(cs, &a, r.var);
        cs_lc_add_var(cs, &b, r.var);
        (void)cs_enforce(cs, &a, &b, NULL, "boolean constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "boolean constraint");
    }
    return r;
}

gad_bool_t gad_bit_xor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b)
{
    CZ_CHECK(a.kind != GAD_CONST && b.kind != GAD_CONST);
    bool v = gad_bit_value(a) ^ gad_bit_value(b);
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)v};

    r.var = gad_alloc_var(cs, gad_fr_bit(v));
    if (m & GAD_M_LCS) {
        /* 2a * b = a + b - r */
        cs_lc_t la = cs_lc(cs), lb = cs_lc(cs), lc = cs_lc(cs);
        cs_lc_add_var(cs, &la, a.var);
        cs_lc_add_var(cs, &la, a.var);
        cs_lc_add_var(cs, &lb, b.var);
        cs_lc_add_var(cs, &lc, a.var);
        cs_lc_add_var(cs, &lc, b.var);
        cs_lc_sub_var(cs, &lc, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "xor constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "xor constraint");
    }
    return r;
}

gad_bool_t gad_bit_and_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b)
{
    CZ_CHECK(a.kind != GAD_CONST && b.kind != GAD_CONST);
    bool v = gad_bit_value(a) && gad_bit_value(b);
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)v};

    r.var = gad_alloc_var(cs, gad_fr_bit(v));
    if (m & GAD_M_LCS) {
        cs_lc_t la = cs_lc_of(cs, a.var);
        cs_lc_t lb = cs_lc_of(cs, b.var);
        cs_lc_t lc = cs_lc_of(cs, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "and constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "and constraint");
    }
    return r;
}

gad_bool_t gad_bit_and_not_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b)
{
    CZ_CHECK(a.kind != GAD_CONST && b.kind != GAD_CONST);
    bool v = gad_bit_value(a) && !gad_bit_value(b);
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)v};

    r.var = gad_alloc_var(cs, gad_fr_bit(v));
    if (m & GAD_M_LCS) {
        cs_lc_t la = cs_lc_of(cs, a.var);
        cs_lc_t lb = cs_lc_of(cs, CS_ONE);
        cs_lc_sub_var(cs, &lb, b.var);
        cs_lc_t lc = cs_lc_of(cs, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "and not constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "and not constraint");
    }
    return r;
}

gad_bool_t gad_bit_nor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b)
{
    CZ_CHECK(a.kind != GAD_CONST && b.kind != GAD_CONST);
    bool v = !gad_bit_value(a) && !gad_bit_value(b);
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)v};

    r.var = gad_alloc_var(cs, gad_fr_bit(v));
    if (m & GAD_M_LCS) {
        cs_lc_t la = cs_lc_of(cs, CS_ONE);
        cs_lc_sub_var(cs, &la, a.var);
        cs_lc_t lb = cs_lc_of(cs, CS_ONE);
        cs_lc_sub_var(cs, &lb, b.var);
        cs_lc_t lc = cs_lc_of(cs, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "nor constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "nor constraint");
    }
    return r;
}

/* ------------------------------------------------------------------------------------------
 * Boolean
 * ---------------------------------------------------------------------------------------- */

gad_bool_t gad_bool_xor_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b)
{
    gad_bool_t r;
    bool bit, negate;

    if (!gad_xor_plan(a, b, &r, &bit, &negate)) {
        return r;
    }
    /* (Is, Not) in either order: not(xor(is, not.not())), the Is operand first; (Is, Is) and
     * (Not, Not) as they come */
    r = a.kind == GAD_NOT && b.kind == GAD_IS ? gad_bit_xor_m(cs, m, b, a)
                                              : gad_bit_xor_m(cs, m, a, b);
    return negate ? gad_bool_not(r) : r;
}

/* Boolean::and's decision: the result with no allocation for a constant operand, else one new
 * bit x & y (by and, and_not or nor, all Is). gad_bool_and_m and the ch/maj plans share it. */
static void and_plan(gad_bit_plan *p, gad_bool_t x, gad_bool_t y)
{
    p->how = GAD_PLAN_AND;
    p->x = x;
    p->y = y;
    p->n = 0;
    if (gad_is_false(x) || gad_is_false(y)) {
        p->r = gad_bool_const(false);
    } else if (gad_is_true(x)) {
        p->r = y;
    } else if (gad_is_true(y)) {
        p->r = x;
    } else {
        gad_bool_t r = {{0}, GAD_IS, (uint8_t)(x.value & y.value)};
        p->r = r;
        p->bit[0] = r.value;
        p->n = 1;
    }
}

gad_bool_t gad_bool_and_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b)
{
    gad_bit_plan p;

    and_plan(&p, a, b);
    if (p.n == 0) {
        return p.r;
    }
    if (a.kind == GAD_IS && b.kind == GAD_NOT) {
        return gad_bit_and_not_m(cs, m, a, b);
    }
    if (a.kind == GAD_NOT && b.kind == GAD_IS) {
        return gad_bit_and_not_m(cs, m, b, a);
    }
    if (a.kind == GAD_NOT && b.kind == GAD_NOT) {
        return gad_bit_nor_m(cs, m, a, b);
    }
    return gad_bit_and_m(cs, m, a, b);
}

/* not(and(x, y)) */
static void nand_plan(gad_bit_plan *p, gad_bool_t x, gad_bool_t y)
{
    and_plan(p, x, y);
    p->how = GAD_PLAN_NAND;
    p->r = gad_bool_not(p->r);
}

/* One allocated bit of value v (the general cases). */
static void alloc_plan(gad_bit_plan *p, bool v)
{
    gad_bool_t r = {{0}, GAD_IS, (uint8_t)v};
    p->how = GAD_PLAN_GENERAL;
    p->r = r;
    p->bit[0] = v;
    p->n = 1;
}

void gad_sha256_ch_plan(gad_bit_plan *p, gad_bool_t a, gad_bool_t b, gad_bool_t c)
{
    bool v = (a.value & b.value) ^ ((!a.value) & c.value);

    p->how = GAD_PLAN_DONE;
    p->n = 0;
    if (a.kind == GAD_CONST && b.kind == GAD_CONST && c.kind == GAD_CONST) {
        p->r = gad_bool_const(v);
    } else if (gad_is_false(a)) {
        p->r = c;
    } else if (gad_is_false(b)) {
        and_plan(p, gad_bool_not(a), c);
    } else if (gad_is_false(c)) {
        and_plan(p, a, b);
    } else if (gad_is_true(c)) {
        nand_plan(p, a, gad_bool_not(b));
    } else if (gad_is_true(b)) {
        nand_plan(p, gad_bool_not(a), gad_bool_not(c));
    } else {
        alloc_plan(p, v);
    }
}

void gad_sha256_maj_plan(gad_bit_plan *p, gad_bool_t a, gad_bool_t b, gad_bool_t c)
{
    bool v = (a.value & b.value) ^ (a.value & c.value) ^ (b.value & c.value);

    p->how = GAD_PLAN_DONE;
    p->n = 0;
    if (a.kind == GAD_CONST && b.kind == GAD_CONST && c.kind == GAD_CONST) {
        p->r = gad_bool_const(v);
    } else if (gad_is_false(a)) {
        and_plan(p, b, c);
    } else if (gad_is_false(b)) {
        and_plan(p, a, c);
    } else if (gad_is_false(c)) {
        and_plan(p, a, b);
    } else if (gad_is_true(c)) {
        nand_plan(p, gad_bool_not(a), gad_bool_not(b));
    } else if (gad_is_true(b)) {
        nand_plan(p, gad_bool_not(a), gad_bool_not(c));
    } else if (gad_is_true(a)) {
        nand_plan(p, gad_bool_not(b), gad_bool_not(c));
    } else {
        /* maj, then the b-and-c helper (b and c are not constant here) */
        alloc_plan(p, v);
        p->bit[1] = b.value & c.value;
        p->n = 2;
    }
}

/* A plan's result when it is not the general case: as it is, or through gad_bool_and_m (which
 * folds and allocates as the plan says). *general is set otherwise. */
static gad_bool_t plan_result(cs_t *cs, unsigned m, const gad_bit_plan *p, bool *general)
{
    *general = p->how == GAD_PLAN_GENERAL;
    if (p->how == GAD_PLAN_AND) {
        return gad_bool_and_m(cs, m, p->x, p->y);
    }
    if (p->how == GAD_PLAN_NAND) {
        return gad_bool_not(gad_bool_and_m(cs, m, p->x, p->y));
    }
    return p->r;
}

gad_bool_t gad_bool_sha256_ch_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b, gad_bool_t c)
{
    gad_bit_plan p;
    bool general;

    gad_sha256_ch_plan(&p, a, b, c);
    gad_bool_t r = plan_result(cs, m, &p, &general);
    if (!general) {
        return r;
    }
    /* General case (a may be Constant(true)): ch = alloc; (b - c) * a = ch - c. */
    r.var = gad_alloc_var(cs, gad_fr_bit(r.value));
    if (m & GAD_M_LCS) {
        cs_lc_t la = cs_lc(cs), lb = cs_lc(cs), lc = cs_lc(cs);
        gad_lc_add_bool(cs, &la, NULL, b);
        gad_lc_sub_bool(cs, &la, c);
        gad_lc_add_bool(cs, &lb, NULL, a);
        cs_lc_add_var(cs, &lc, r.var);
        gad_lc_sub_bool(cs, &lc, c);
        (void)cs_enforce(cs, &la, &lb, &lc, "ch computation");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "ch computation");
    }
    return r;
}

gad_bool_t gad_bool_sha256_maj_m(cs_t *cs, unsigned m, gad_bool_t a, gad_bool_t b, gad_bool_t c)
{
    gad_bit_plan p;
    bool general;

    gad_sha256_maj_plan(&p, a, b, c);
    gad_bool_t r = plan_result(cs, m, &p, &general);
    if (!general) {
        return r;
    }
    /* General case: maj is allocated BEFORE the b-and-c helper;
     * (2 bc - b - c) * a = bc - maj. */
    bool lab = (m & GAD_M_LAB) != 0;
    r.var = gad_alloc_var(cs, gad_fr_bit(r.value));
    GAD_NS_PUSH(cs, lab, "b and c");
    gad_bool_t bc = gad_bool_and_m(cs, m, b, c);
    GAD_NS_POP(cs, lab);
    if (m & GAD_M_LCS) {
        cs_lc_t la = cs_lc(cs), lb = cs_lc(cs), lc = cs_lc(cs);
        gad_lc_add_bool(cs, &la, NULL, bc);
        gad_lc_add_bool(cs, &la, NULL, bc);
        gad_lc_sub_bool(cs, &la, b);
        gad_lc_sub_bool(cs, &la, c);
        gad_lc_add_bool(cs, &lb, NULL, a);
        gad_lc_add_bool(cs, &lc, NULL, bc);
        cs_lc_sub_var(cs, &lc, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "maj computation");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "maj computation");
    }
    return r;
}

/* ------------------------------------------------------------------------------------------
 * Public entry points: look the mode up once, then the _m variants.
 * ---------------------------------------------------------------------------------------- */

gad_bool_t gad_alloc_bit(cs_t *cs, bool value)
{
    return gad_alloc_bit_m(cs, gad_mode(cs), value);
}

gad_bool_t gad_bit_xor(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    return gad_bit_xor_m(cs, gad_mode(cs), a, b);
}

gad_bool_t gad_bit_and(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    return gad_bit_and_m(cs, gad_mode(cs), a, b);
}

gad_bool_t gad_bit_and_not(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    return gad_bit_and_not_m(cs, gad_mode(cs), a, b);
}

gad_bool_t gad_bit_nor(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    return gad_bit_nor_m(cs, gad_mode(cs), a, b);
}

gad_bool_t gad_bool_xor(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    return gad_bool_xor_m(cs, gad_mode(cs), a, b);
}

gad_bool_t gad_bool_and(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    return gad_bool_and_m(cs, gad_mode(cs), a, b);
}

gad_bool_t gad_bool_sha256_ch(cs_t *cs, gad_bool_t a, gad_bool_t b, gad_bool_t c)
{
    return gad_bool_sha256_ch_m(cs, gad_mode(cs), a, b, c);
}

gad_bool_t gad_bool_sha256_maj(cs_t *cs, gad_bool_t a, gad_bool_t b, gad_bool_t c)
{
    return gad_bool_sha256_maj_m(cs, gad_mode(cs), a, b, c);
}

void gad_bool_enforce_equal(cs_t *cs, gad_bool_t a, gad_bool_t b)
{
    if (a.kind == GAD_CONST && b.kind == GAD_CONST) {
        if (a.value != b.value) {
            (void)cs_fail(cs, CUZK_E_UNSAT, "Boolean::enforce_equal of unequal constants");
        }
        return;
    }
    bool lcs = cs_needs_lcs(cs);
    cs_lc_t lc = cs_lc(cs);
    const char *label;
    /* (Constant(true), x) | (x, Constant(true)): {} * {} = ONE - lc(x) */
    if (gad_is_true(a) || gad_is_true(b)) {
        gad_bool_t x = gad_is_true(a) ? b : a;
        if (lcs) {
            cs_lc_add_var(cs, &lc, CS_ONE);
            gad_lc_sub_bool(cs, &lc, x);
        }
        label = "enforce equal to one";
    } else if (gad_is_false(a) || gad_is_false(b)) {
        gad_bool_t x = gad_is_false(a) ? b : a;
        if (lcs) {
            gad_lc_add_bool(cs, &lc, NULL, x);
        }
        label = "enforce equal to zero";
    } else {
        if (lcs) {
            gad_lc_add_bool(cs, &lc, NULL, a);
            gad_lc_sub_bool(cs, &lc, b);
        }
        label = "enforce equal";
    }
    (void)cs_enforce(cs, NULL, NULL, lcs ? &lc : NULL, label);
}

void gad_u64_into_bits_le(cs_t *cs, gad_bool_t out[64], uint64_t value)
{
    bool bits[64];
    for (unsigned i = 0; i < 64; i++) {
        bits[i] = (value >> i) & 1;
    }
    gad_alloc_bits_m(cs, gad_mode(cs), out, bits, 64, "bit");
}
