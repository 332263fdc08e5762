/* poseidon.c - neptune 11's legacy Poseidon circuit (circuit.rs::poseidon_hash; spec
 * circuits.md 3.5-3.7) over the compressed round constants and the pre-sparse / sparse
 * matrices of hash/poseidon.h.
 *
 * State elements are either allocated variables or "Nums" (a linear combination with a value).
 * Matrix products only build Nums; an S-box first materialises its input (one allocation and
 * one constraint enforce(LC | ONE | v)) and then allocates x^2, x^4 and x^5 + post with one
 * constraint each. Round 0 adds its pre-round constants inside the S-box constraints instead
 * and folds the tag element into a constant. The witness values are those of neptune's
 * hash_optimized_static, i.e. poseidon_permute().
 *
 * LCs are built only when the cs needs them: one heap LC per state element (double-buffered
 * for the dense products). In the partial rounds elements 1..arity grow by one term per round
 * and element 0 is their weighted sum (merged), as in the reference.
 */
#include "gadgets/gadgets.h"

#include <pthread.h>

#include "common/alloc.h"
#include "gadgets/internal.h"

/* ------------------------------------------------------------------------------------------
 * Partial-round LC tables.
 *
 * Across the partial rounds every LC is a combination of the same few variables: u_0..u_{t-1}
 * (the outputs of the last first-half full round, before the pre-sparse product) and
 * s_0..s_{r-1} (the partial S-box outputs so far). With PRE the pre-sparse matrix and
 * (col_k, v_k) the sparse matrix of partial round k:
 *   element j >= 1 after r partial rounds:  sum_u PRE[u][j] u + sum_{k<r} v_k[j-1] s_k
 *   element 0 before partial round r >= 1:  col_{r-1}[0] s_{r-1}
 *       + sum_u (sum_{j>=1} col_{r-1}[j] PRE[u][j]) u + sum_{k<r-1} (sum_{j>=1} col_{r-1}[j] v_k[j-1]) s_k
 *   element 0 before partial round 0:       sum_u PRE[u][0] u.
 * The bracketed sums depend on the constants only; a table holds them per standard arity so
 * that building an LC costs no multiplication (the generic path, used for other parameter
 * sets, recomputes them through LC arithmetic: same merged coefficients, t times slower).
 * Row r (1..R_P) of a table: t u-coefficients, then r - 1 s-coefficients.
 * ---------------------------------------------------------------------------------------- */

#define TAB_LEN(t, rp) ((rp) * (t) + (rp) * ((rp)-1) / 2)

typedef struct pos_table {
    const poseidon_params_t *p; /* the shared standard parameters it was built for */
    fr_t *coef;
} pos_table;

static fr_t tab_2[TAB_LEN(3, 55)], tab_4[TAB_LEN(5, 56)], tab_8[TAB_LEN(9, 57)],
    tab_11[TAB_LEN(12, 57)], tab_16[TAB_LEN(17, 59)], tab_24[TAB_LEN(25, 59)],
    tab_36[TAB_LEN(37, 60)];

static const struct {
    size_t arity, t, rp, len;
    fr_t *coef;
} TABS[] = {
    {2, 3, 55, TAB_LEN(3, 55), tab_2},     {4, 5, 56, TAB_LEN(5, 56), tab_4},
    {8, 9, 57, TAB_LEN(9, 57), tab_8},     {11, 12, 57, TAB_LEN(12, 57), tab_11},
    {16, 17, 59, TAB_LEN(17, 59), tab_16}, {24, 25, 59, TAB_LEN(25, 59), tab_24},
    {36, 37, 60, TAB_LEN(37, 60), tab_36},
};

#define NTABS (sizeof(TABS) / sizeof(TABS[0]))

static pos_table tables[NTABS];
static pthread_once_t table_once[NTABS] = {PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                           PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT, PTHREAD_ONCE_INIT,
                                           PTHREAD_ONCE_INIT};

static size_t row_off(size_t t, size_t r)
{
    return (r - 1) * t + (r - 1) * (r - 2) / 2;
}

static void table_build(size_t k)
{
    const poseidon_params_t *p = poseidon_params(TABS[k].arity);
    const size_t t = TABS[k].t, rp = TABS[k].rp, w = 2 * t - 1;
    fr_t tmp;

    CZ_CHECK(p->width == t && p->partial_rounds == rp);
    for (size_t r = 1; r <= rp; r++) {
        const fr_t *col = p->sparse + (r - 1) * w;
        fr_t *row = TABS[k].coef + row_off(t, r);
        for (size_t u = 0; u < t; u++) {
            fr_t acc = FR_ZERO;
            for (size_t j = 1; j < t; j++) {
                fr_mul(&tmp, &col[j], &p->pre_sparse[u * t + j]);
                fr_add(&acc, &acc, &tmp);
            }
            row[u] = acc;
        }
        for (size_t q = 0; q + 1 < r; q++) {
            const fr_t *v = p->sparse + q * w + t;
            fr_t acc = FR_ZERO;
            for (size_t j = 1; j < t; j++) {
                fr_mul(&tmp, &col[j], &v[j - 1]);
                fr_add(&acc, &acc, &tmp);
            }
            row[t + q] = acc;
        }
    }
    CZ_CHECK(row_off(t, rp + 1) == TABS[k].len);
    tables[k].coef = TABS[k].coef;
    tables[k].p = p;
}

#define TABLE_ONCE(k)                                                                              \
    static void table_once_##k(void)                                                               \
    {                                                                                              \
        table_build(k);                                                                            \
    }
TABLE_ONCE(0)
TABLE_ONCE(1)
TABLE_ONCE(2)
TABLE_ONCE(3)
TABLE_ONCE(4)
TABLE_ONCE(5)
TABLE_ONCE(6)

static void (*const table_init_fn[NTABS])(void) = {table_once_0, table_once_1, table_once_2,
                                                   table_once_3, table_once_4, table_once_5,
                                                   table_once_6};

/* The table for p when p is the shared standard parameter set of its arity, else NULL. */
static const fr_t *table_for(const poseidon_params_t *p)
{
    for (size_t k = 0; k < NTABS; k++) {
        if (TABS[k].arity == p->arity) {
            if (p != poseidon_params(p->arity)) {
                return NULL;
            }
            CZ_CHECK(pthread_once(&table_once[k], table_init_fn[k]) == 0);
            return tables[k].coef;
        }
    }
    return NULL;
}

typedef struct elt {
    bool allocated;
    cs_var_t var; /* when allocated */
    fr_t value;
} elt;

typedef struct pcirc {
    cs_t *cs;
    bool lcs, lab;
    size_t t;
    const poseidon_params_t *p;
    const fr_t *tab; /* partial-round table (LC mode, standard parameters), or NULL */
    bool structured; /* LCs are the u/s combinations above (tab only) */
    size_t nsparse;  /* partial rounds done */
    cs_var_t uvar[POSEIDON_MAX_WIDTH];
    cs_var_t svar[64];
    elt el[POSEIDON_MAX_WIDTH];
    cs_lc_t *lc;  /* lc[i]: element i's LC when it is a Num (lcs only) */
    cs_lc_t *nlc; /* the other buffer for dense products */
    cs_lc_t tmp;
    cs_lc_t store[2 * POSEIDON_MAX_WIDTH];
} pcirc;

/* lc += coeff * LC(e) */
static void lc_add_elt(pcirc *pc, cs_lc_t *dst, const fr_t *coeff, size_t i)
{
    if (pc->el[i].allocated) {
        cs_lc_add(pc->cs, dst, coeff, pc->el[i].var);
    } else {
        cs_lc_add_lc(pc->cs, dst, coeff, &pc->lc[i]);
    }
}

/* lc = the LC of element i while the state is structured (see the tables above). */
static void structured_lc(pcirc *pc, cs_lc_t *lc, size_t i)
{
    cs_t *cs = pc->cs;
    const poseidon_params_t *p = pc->p;
    const size_t t = pc->t, r = pc->nsparse, w = 2 * t - 1;

    if (i == 0 && r > 0) {
        const fr_t *row = pc->tab + row_off(t, r);
        for (size_t u = 0; u < t; u++) {
            cs_lc_add(cs, lc, &row[u], pc->uvar[u]);
        }
        for (size_t q = 0; q + 1 < r; q++) {
            cs_lc_add(cs, lc, &row[t + q], pc->svar[q]);
        }
        cs_lc_add(cs, lc, &p->sparse[(r - 1) * w], pc->svar[r - 1]);
        return;
    }
    for (size_t u = 0; u < t; u++) {
        cs_lc_add(cs, lc, &p->pre_sparse[u * t + i], pc->uvar[u]);
    }
    if (i > 0) {
        for (size_t q = 0; q < r; q++) {
            cs_lc_add(cs, lc, &p->sparse[q * w + t + i - 1], pc->svar[q]);
        }
    }
}

/* Elt::ensure_allocated(enforce = true) for element i. */
static cs_var_t ensure_allocated(pcirc *pc, size_t i)
{
    cs_t *cs = pc->cs;
    elt *e = &pc->el[i];

    if (e->allocated) {
        return e->var;
    }
    GAD_NS_PUSH(cs, pc->lab, "allocate for Elt::Num");
    e->var = gad_alloc_var(cs, &e->value);
    GAD_NS_POP(cs, pc->lab);
    if (pc->lcs && pc->structured) {
        cs_lc_t a = cs_lc(cs), one = cs_lc_of(cs, CS_ONE), v = cs_lc_of(cs, e->var);
        structured_lc(pc, &a, i);
        (void)cs_enforce(cs, &a, &one, &v, "enforce num allocation preserves lc");
    } else if (pc->lcs) {
        cs_lc_t one = cs_lc_of(cs, CS_ONE), v = cs_lc_of(cs, e->var);
        (void)cs_enforce(cs, &pc->lc[i], &one, &v, "enforce num allocation preserves lc");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "enforce num allocation preserves lc");
    }
    e->allocated = true;
    return e->var;
}

/* r = alloc(x^2); enforce(x | x | r) (AllocatedNum::square). */
static cs_var_t square(pcirc *pc, cs_var_t x, const fr_t *xv, fr_t *rv, const char *ns)
{
    cs_t *cs = pc->cs;
    cs_var_t r;

    fr_sqr(rv, xv);
    GAD_NS_PUSH(cs, pc->lab, ns);
    r = gad_alloc_var(cs, rv);
    if (pc->lcs) {
        cs_lc_t a = cs_lc_of(cs, x), b = cs_lc_of(cs, x), c = cs_lc_of(cs, r);
        (void)cs_enforce(cs, &a, &b, &c, "squaring constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "squaring constraint");
    }
    GAD_NS_POP(cs, pc->lab);
    return r;
}

/* quintic_s_box(e, post): element i becomes Allocated(l^5 + post) (post NULL: l^5). */
static void sbox(pcirc *pc, size_t i, const fr_t *post)
{
    cs_t *cs = pc->cs;
    fr_t l2v = FR_ZERO, l4v = FR_ZERO, l5v = FR_ZERO;

    GAD_NS_PUSH(cs, pc->lab, "S-box input");
    cs_var_t l = ensure_allocated(pc, i);
    GAD_NS_POP(cs, pc->lab);
    const fr_t *lv = &pc->el[i].value;
    cs_var_t l2 = square(pc, l, lv, &l2v, "l^2");
    cs_var_t l4 = square(pc, l2, &l2v, &l4v, "l^4");
    fr_mul(&l5v, &l4v, lv);
    if (post) {
        fr_add(&l5v, &l5v, post);
    }
    GAD_NS_PUSH(cs, pc->lab, "(l4 * l) + rk)");
    cs_var_t l5 = gad_alloc_var(cs, &l5v);
    /* mul_sum(l4, l, None, post): l * l4 = l5 - post ONE */
    if (pc->lcs) {
        cs_lc_t a = cs_lc_of(cs, l), b = cs_lc_of(cs, l4), c = cs_lc_of(cs, l5);
        if (post) {
            cs_lc_sub(cs, &c, post, CS_ONE);
        }
        (void)cs_enforce(cs, &a, &b, &c,
                         post ? "mul sum constraint post-add" : "mul sum constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "mul sum constraint");
    }
    GAD_NS_POP(cs, pc->lab);
    pc->el[i].allocated = true;
    pc->el[i].var = l5;
    pc->el[i].value = l5v;
}

/* quintic_s_box_pre_add(e, pre, post) on an allocated element i:
 * l2 = (l + pre)^2, l4 = l2^2, l5 = (l + pre) l4 + post. */
static void sbox_pre(pcirc *pc, size_t i, const fr_t *pre, const fr_t *post)
{
    cs_t *cs = pc->cs;
    fr_t lp = FR_ZERO, l2v = FR_ZERO, l4v = FR_ZERO, l5v = FR_ZERO;

    CZ_CHECK(pc->el[i].allocated);
    cs_var_t l = pc->el[i].var;
    fr_add(&lp, &pc->el[i].value, pre);
    fr_sqr(&l2v, &lp);
    GAD_NS_PUSH(cs, pc->lab, "(l+rk)^2");
    cs_var_t l2 = gad_alloc_var(cs, &l2v);
    if (pc->lcs) {
        cs_lc_t a = cs_lc_of(cs, l), b = cs_lc_of(cs, l), c = cs_lc_of(cs, l2);
        cs_lc_add(cs, &a, pre, CS_ONE);
        cs_lc_add(cs, &b, pre, CS_ONE);
        (void)cs_enforce(cs, &a, &b, &c, "squared sum constraint");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "squared sum constraint");
    }
    GAD_NS_POP(cs, pc->lab);
    cs_var_t l4 = square(pc, l2, &l2v, &l4v, "l^4");
    fr_mul(&l5v, &l4v, &lp);
    fr_add(&l5v, &l5v, post);
    GAD_NS_PUSH(cs, pc->lab, "l4 * (l + rk)");
    cs_var_t l5 = gad_alloc_var(cs, &l5v);
    if (pc->lcs) {
        /* mul_sum(l4, l, pre, post): (l + pre ONE) * l4 = l5 - post ONE */
        cs_lc_t a = cs_lc_of(cs, l), b = cs_lc_of(cs, l4), c = cs_lc_of(cs, l5);
        cs_lc_add(cs, &a, pre, CS_ONE);
        cs_lc_sub(cs, &c, post, CS_ONE);
        (void)cs_enforce(cs, &a, &b, &c, "mul sum constraint pre-post-add");
    } else {
        (void)cs_enforce(cs, NULL, NULL, NULL, "mul sum constraint pre-post-add");
    }
    GAD_NS_POP(cs, pc->lab);
    pc->el[i].var = l5;
    pc->el[i].value = l5v;
}

/* state = state x X (new[j] = sum_i X[i][j] old[i]); every element becomes a Num. With
 * `to_structured` (the pre-sparse product, table mode) the LCs are not built: the inputs are
 * the u variables of the structured form. */
static void product_dense(pcirc *pc, const fr_t *x, bool to_structured)
{
    const size_t t = pc->t;
    fr_t nv[POSEIDON_MAX_WIDTH];

    for (size_t j = 0; j < t; j++) {
        fr_t acc = FR_ZERO, tmp;
        for (size_t i = 0; i < t; i++) {
            fr_mul(&tmp, &x[i * t + j], &pc->el[i].value);
            fr_add(&acc, &acc, &tmp);
        }
        nv[j] = acc;
    }
    if (to_structured) {
        for (size_t i = 0; i < t; i++) {
            CZ_CHECK(pc->el[i].allocated);
            pc->uvar[i] = pc->el[i].var;
        }
        pc->structured = true;
    } else if (pc->lcs) {
        CZ_CHECK(!pc->structured);
        for (size_t j = 0; j < t; j++) {
            cs_lc_reset(pc->cs, &pc->nlc[j]);
            for (size_t i = 0; i < t; i++) {
                lc_add_elt(pc, &pc->nlc[j], &x[i * t + j], i);
            }
            (void)cs_lc_merge(pc->cs, &pc->nlc[j]);
        }
        cs_lc_t *swap = pc->lc;
        pc->lc = pc->nlc;
        pc->nlc = swap;
    }
    for (size_t j = 0; j < t; j++) {
        pc->el[j].allocated = false;
        pc->el[j].value = nv[j];
    }
}

/* state = state x S for a sparse S = {col (t), v_rest (t-1)}:
 * new[0] = sum_i col[i] old[i]; new[j] = old[j] + v_rest[j-1] old[0]. Elements 1..t-1 must
 * be Nums (Elt::add panics otherwise). */
static void product_sparse(pcirc *pc, const fr_t *s)
{
    const size_t t = pc->t;
    const fr_t *col = s, *v = s + t;
    fr_t n0 = FR_ZERO, tmp;

    for (size_t j = 1; j < t; j++) {
        CZ_CHECK(!pc->el[j].allocated);
    }
    for (size_t i = 0; i < t; i++) {
        fr_mul(&tmp, &col[i], &pc->el[i].value);
        fr_add(&n0, &n0, &tmp);
    }
    for (size_t j = 1; j < t; j++) {
        fr_mul(&tmp, &v[j - 1], &pc->el[0].value);
        fr_add(&pc->el[j].value, &pc->el[j].value, &tmp);
    }
    if (pc->structured) {
        CZ_CHECK(pc->el[0].allocated && pc->nsparse < ARRAY_LEN(pc->svar));
        pc->svar[pc->nsparse] = pc->el[0].var;
    } else if (pc->lcs) {
        cs_lc_reset(pc->cs, &pc->tmp);
        for (size_t i = 0; i < t; i++) {
            lc_add_elt(pc, &pc->tmp, &col[i], i);
        }
        (void)cs_lc_merge(pc->cs, &pc->tmp);
        for (size_t j = 1; j < t; j++) {
            lc_add_elt(pc, &pc->lc[j], &v[j - 1], 0);
        }
        cs_lc_t swap = pc->lc[0];
        pc->lc[0] = pc->tmp;
        pc->tmp = swap;
    }
    pc->el[0].allocated = false;
    pc->el[0].value = n0;
    pc->nsparse++;
}

/* product_mds for round index `round` (spec 3.6). */
static void product_mds(pcirc *pc, const poseidon_params_t *p, size_t round)
{
    const size_t hf = POSEIDON_HALF_FULL_ROUNDS;

    if (round == hf - 1) {
        product_dense(pc, p->pre_sparse, pc->tab != NULL);
    } else if (round > hf - 1 && round < hf + p->partial_rounds) {
        product_sparse(pc, p->sparse + (round - hf) * (2 * pc->t - 1));
    } else {
        /* after the first final full round's S-boxes every element is allocated again */
        pc->structured = false;
        product_dense(pc, p->mds, false);
    }
}

void gad_poseidon_circuit(cs_t *cs, gad_num_t *out, const fr_t *tag, const gad_num_t *in,
                          size_t arity, const poseidon_params_t *p, bool use_table)
{
    pcirc pc;
    const size_t t = arity + 1, hf = POSEIDON_HALF_FULL_ROUNDS;
    const fr_t *crc = p->crc;
    size_t off, round = 0;

    CZ_CHECK(p->arity == arity && p->width == t && t <= POSEIDON_MAX_WIDTH);
    CZ_CHECK(p->full_rounds == POSEIDON_FULL_ROUNDS);
    pc.cs = cs;
    pc.lcs = cs_needs_lcs(cs);
    pc.lab = cs_wants_labels(cs);
    pc.t = t;
    pc.p = p;
    pc.tab = pc.lcs && use_table ? table_for(p) : NULL;
    pc.structured = false;
    pc.nsparse = 0;
    pc.lc = pc.store;
    pc.nlc = pc.store + t;
    for (size_t i = 0; i < 2 * t; i++) {
        cs_lc_init(&pc.store[i]);
    }
    cs_lc_init(&pc.tmp);

    for (size_t i = 1; i < t; i++) {
        pc.el[i].allocated = true;
        pc.el[i].var = in[i - 1].var;
        pc.el[i].value = in[i - 1].value;
    }

    /* Round 0: the tag element becomes the constant (tag + pre_0)^5 + post_0; the inputs go
     * through the pre-add S-box. */
    GAD_NS_PUSH(cs, pc.lab, "first round");
    fr_t c0, c2;
    fr_add(&c0, tag, &crc[0]);
    fr_sqr(&c2, &c0);
    fr_sqr(&c2, &c2);
    fr_mul(&c0, &c2, &c0);
    fr_add(&c0, &c0, &crc[t]);
    pc.el[0].allocated = false;
    pc.el[0].value = c0;
    if (pc.lcs) {
        cs_lc_add(cs, &pc.lc[0], &c0, CS_ONE);
    }
    for (size_t i = 1; i < t; i++) {
        GAD_NS_PUSHF(cs, pc.lab, "quintic s-box %zu", i);
        sbox_pre(&pc, i, &crc[i], &crc[t + i]);
        GAD_NS_POP(cs, pc.lab);
    }
    off = 2 * t;
    product_mds(&pc, p, round++);
    GAD_NS_POP(cs, pc.lab);

    for (size_t r = 1; r < hf; r++) {
        GAD_NS_PUSHF(cs, pc.lab, "initial full round %zu", r);
        for (size_t i = 0; i < t; i++) {
            GAD_NS_PUSHF(cs, pc.lab, "quintic s-box %zu", i);
            sbox(&pc, i, &crc[off + i]);
            GAD_NS_POP(cs, pc.lab);
        }
        off += t;
        product_mds(&pc, p, round++);
        GAD_NS_POP(cs, pc.lab);
    }
    for (size_t r = 0; r < p->partial_rounds; r++) {
        GAD_NS_PUSHF(cs, pc.lab, "partial round %zu", r);
        GAD_NS_PUSH(cs, pc.lab, "solitary quintic s-box");
        sbox(&pc, 0, &crc[off]);
        GAD_NS_POP(cs, pc.lab);
        off += 1;
        product_mds(&pc, p, round++);
        GAD_NS_POP(cs, pc.lab);
    }
    for (size_t r = 0; r + 1 < hf; r++) {
        GAD_NS_PUSHF(cs, pc.lab, "final full round %zu", r);
        for (size_t i = 0; i < t; i++) {
            GAD_NS_PUSHF(cs, pc.lab, "quintic s-box %zu", i);
            sbox(&pc, i, &crc[off + i]);
            GAD_NS_POP(cs, pc.lab);
        }
        off += t;
        product_mds(&pc, p, round++);
        GAD_NS_POP(cs, pc.lab);
    }
    GAD_NS_PUSH(cs, pc.lab, "terminal full round");
    for (size_t i = 0; i < t; i++) {
        GAD_NS_PUSHF(cs, pc.lab, "quintic s-box %zu", i);
        sbox(&pc, i, NULL);
        GAD_NS_POP(cs, pc.lab);
    }
    product_mds(&pc, p, round++);
    GAD_NS_POP(cs, pc.lab);
    CZ_CHECK(off == POSEIDON_FULL_ROUNDS * t + p->partial_rounds);

    GAD_NS_PUSH(cs, pc.lab, "hash result");
    out->var = ensure_allocated(&pc, 1);
    out->value = pc.el[1].value;
    GAD_NS_POP(cs, pc.lab);

    for (size_t i = 0; i < 2 * t; i++) {
        cs_lc_clear(&pc.store[i]);
    }
    cs_lc_clear(&pc.tmp);
}

void gad_poseidon_hash(cs_t *cs, gad_num_t *out, const gad_num_t *in, size_t arity,
                       const poseidon_params_t *p)
{
    gad_poseidon_circuit(cs, out, &p->merkle_tag, in, arity, p, true);
}

void gad_poseidon_hash_tagged(cs_t *cs, gad_num_t *out, const fr_t *tag, const gad_num_t *in,
                              size_t arity, const poseidon_params_t *p)
{
    gad_poseidon_circuit(cs, out, tag, in, arity, p, true);
}

void gad_poseidon_hash_md(cs_t *cs, gad_num_t *out, const gad_num_t *in, size_t n)
{
    const size_t arity = POSEIDON_MAX_ARITY; /* PoseidonMDArity = U36 */
    const poseidon_params_t *p = poseidon_params(arity);
    bool lab = cs_wants_labels(cs);
    gad_num_t pre[POSEIDON_MAX_ARITY];
    gad_num_t hash = in[0];
    size_t hash_num = 0;

    CZ_CHECK(n >= 2);
    for (size_t off = 1; off < n; off += arity - 1, hash_num++) {
        size_t len = n - off < arity - 1 ? n - off : arity - 1;
        pre[0] = hash;
        for (size_t i = 0; i < len; i++) {
            pre[i + 1] = in[off + i];
        }
        for (size_t i = len + 1; i < arity; i++) {
            GAD_NS_PUSHF(cs, lab, "padding %zu", i);
            gad_num_alloc(cs, &pre[i], &FR_ZERO);
            GAD_NS_POP(cs, lab);
        }
        GAD_NS_PUSHF(cs, lab, "hash md %zu", hash_num);
        gad_poseidon_hash(cs, &hash, pre, arity, p);
        GAD_NS_POP(cs, lab);
    }
    *out = hash;
}
