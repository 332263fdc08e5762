/* num.c - AllocatedNum (bellpepper-core 0.2 gadgets/num.rs; spec circuits.md 2.5). */
#include "gadgets/gadgets.h"

#include "gadgets/internal.h"

void gad_num_alloc(cs_t *cs, gad_num_t *out, const fr_t *value)
{
    out->value = value ? *value : FR_ZERO;
    out->var = gad_alloc_var(cs, &out->value);
}

void gad_num_alloc_input(cs_t *cs, gad_num_t *out, const fr_t *value)
{
    out->value = value ? *value : FR_ZERO;
    (void)cs_alloc_input(cs, &out->var, &out->value);
}

void gad_num_inputize(cs_t *cs, const gad_num_t *x)
{
    cs_var_t in;

    (void)cs_alloc_input(cs, &in, &x->value);
    if (cs_needs_lcs(cs)) {
        cs_lc_t a = cs_lc_of(cs, in), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, x->var);
        (void)cs_enforce(cs, &a, &b, &c, "enforce input is correct");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "enforce input is correct");
    }
}

void gad_num_mul(cs_t *cs, gad_num_t *out, const gad_num_t *a, const gad_num_t *b)
{
    gad_num_t r;

    fr_mul(&r.value, &a->value, &b->value);
    r.var = gad_alloc_var(cs, &r.value);
    if (cs_needs_lcs(cs)) {
        cs_lc_t la = cs_lc_of(cs, a->var), lb = cs_lc_of(cs, b->var), lc = cs_lc_of(cs, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "multiplication constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "multiplication constraint");
    }
    *out = r;
}

void gad_num_square(cs_t *cs, gad_num_t *out, const gad_num_t *a)
{
    gad_num_t r;

    fr_sqr(&r.value, &a->value);
    r.var = gad_alloc_var(cs, &r.value);
    if (cs_needs_lcs(cs)) {
        cs_lc_t la = cs_lc_of(cs, a->var), lb = cs_lc_of(cs, a->var), lc = cs_lc_of(cs, r.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "squaring constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "squaring constraint");
    }
    *out = r;
}

/* enforce({} | {} | sum_{i<255} 2^i bits[i] - x) */
static void unpacking_constraint(cs_t *cs, const gad_bool_t *bits, const gad_num_t *x)
{
    if (cs_needs_lcs(cs)) {
        cs_lc_t c = cs_lc(cs);
        gad_lc_add_bits(cs, &c, NULL, bits, GAD_FR_BITS);
        cs_lc_sub_var(cs, &c, x->var);
        (void)cs_enforce(cs, NULL, NULL, &c, "unpacking constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "unpacking constraint");
    }
}

void gad_num_to_bits_le(cs_t *cs, gad_bool_t out[GAD_FR_BITS], const gad_num_t *x)
{
    fr_repr_t r;
    bool bits[GAD_FR_BITS];

    fr_to_repr(&r, &x->value);
    for (unsigned i = 0; i < GAD_FR_BITS; i++) {
        bits[i] = (r.l[i / 64] >> (i % 64)) & 1;
    }
    gad_alloc_bits_m(cs, gad_mode(cs), out, bits, GAD_FR_BITS, "bit");
    unpacking_constraint(cs, out, x);
}

/* kary_and: the running AND of v[0..n), left to right; v[0] itself when n == 1. */
static gad_bool_t kary_and(cs_t *cs, const gad_bool_t *v, size_t n)
{
    bool lab = cs_wants_labels(cs);
    gad_bool_t cur = v[0];

    CZ_CHECK(n > 0);
    for (size_t i = 1; i < n; i++) {
        GAD_NS_PUSHF(cs, lab, "and %zu", i);
        cur = gad_bit_and(cs, cur, v[i]);
        GAD_NS_POP(cs, lab);
    }
    return cur;
}

void gad_num_to_bits_le_strict(cs_t *cs, gad_bool_t out[GAD_FR_BITS], const gad_num_t *x)
{
    bool lab = cs_wants_labels(cs);
    fr_repr_t a, b;
    fr_t minus_one;
    gad_bool_t be[GAD_FR_BITS]; /* result, most significant first */
    gad_bool_t run[GAD_FR_BITS + 1];
    size_t nrun = 0, nbe = 0;
    gad_bool_t last_run = gad_bool_const(false);
    bool have_last = false, found_one = false;
    unsigned i = 0;

    fr_to_repr(&a, &x->value);
    fr_neg(&minus_one, &FR_ONE);
    fr_to_repr(&b, &minus_one);
    for (int pos = 255; pos >= 0; pos--) {
        bool bbit = (b.l[pos / 64] >> (pos % 64)) & 1;
        bool abit = (a.l[pos / 64] >> (pos % 64)) & 1;
        found_one |= bbit;
        if (!found_one) {
            continue; /* above the top bit of r - 1; x < r makes abit 0 here */
        }
        if (bbit) {
            GAD_NS_PUSHF(cs, lab, "bit %u", i);
            gad_bool_t bit = gad_alloc_bit(cs, abit);
            GAD_NS_POP(cs, lab);
            run[nrun++] = bit;
            be[nbe++] = bit;
        } else {
            if (nrun > 0) {
                if (have_last) {
                    run[nrun++] = last_run;
                }
                GAD_NS_PUSHF(cs, lab, "run ending at %u", i);
                last_run = kary_and(cs, run, nrun);
                GAD_NS_POP(cs, lab);
                have_last = true;
                nrun = 0;
            }
            CZ_CHECK(have_last); /* r - 1 starts with a one */
            GAD_NS_PUSHF(cs, lab, "bit %u", i);
            be[nbe++] = gad_alloc_bit_cond(cs, abit, last_run);
            GAD_NS_POP(cs, lab);
        }
        i++;
    }
    CZ_CHECK(nbe == GAD_FR_BITS && nrun == 0);
    for (size_t k = 0; k < GAD_FR_BITS; k++) {
        out[k] = be[GAD_FR_BITS - 1 - k];
    }
    unpacking_constraint(cs, out, x);
}

void gad_num_conditionally_reverse(cs_t *cs, gad_num_t *c, gad_num_t *d, const gad_num_t *a,
                                   const gad_num_t *b, gad_bool_t cond)
{
    bool lcs = cs_needs_lcs(cs), lab = cs_wants_labels(cs);
    gad_num_t rc, rd;

    GAD_NS_PUSH(cs, lab, "conditional reversal result 1");
    gad_num_alloc(cs, &rc, cond.value ? &b->value : &a->value);
    GAD_NS_POP(cs, lab);
    if (lcs) {
        cs_lc_t la = cs_lc(cs), lb = cs_lc(cs), lc = cs_lc(cs);
        cs_lc_add_var(cs, &la, a->var);
        cs_lc_sub_var(cs, &la, b->var);
        gad_lc_add_bool(cs, &lb, NULL, cond);
        cs_lc_add_var(cs, &lc, a->var);
        cs_lc_sub_var(cs, &lc, rc.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "first conditional reversal");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "first conditional reversal");
    }
    GAD_NS_PUSH(cs, lab, "conditional reversal result 2");
    gad_num_alloc(cs, &rd, cond.value ? &a->value : &b->value);
    GAD_NS_POP(cs, lab);
    if (lcs) {
        cs_lc_t la = cs_lc(cs), lb = cs_lc(cs), lc = cs_lc(cs);
        cs_lc_add_var(cs, &la, b->var);
        cs_lc_sub_var(cs, &la, a->var);
        gad_lc_add_bool(cs, &lb, NULL, cond);
        cs_lc_add_var(cs, &lc, b->var);
        cs_lc_sub_var(cs, &lc, rd.var);
        (void)cs_enforce(cs, &la, &lb, &lc, "second conditional reversal");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "second conditional reversal");
    }
    *c = rc;
    *d = rd;
}

void gad_num_assert_nonzero(cs_t *cs, const gad_num_t *x)
{
    fr_t inv;
    cs_var_t v;

    if (cs_has_values(cs) && fr_is_zero(&x->value)) {
        (void)cs_fail(cs, CUZK_E_INVAL, "assert_nonzero: division by zero");
        return;
    }
    fr_inv(&inv, &x->value);
    (void)cs_alloc(cs, &v, &inv);
    if (cs_needs_lcs(cs)) {
        cs_lc_t la = cs_lc_of(cs, x->var), lb = cs_lc_of(cs, v), lc = cs_lc_of(cs, CS_ONE);
        (void)cs_enforce(cs, &la, &lb, &lc, "nonzero assertion constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "nonzero assertion constraint");
    }
}
