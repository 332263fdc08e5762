/* prover.c - the prover backend (bellperson ProvingAssignment, groth16.md 4.2-4.3) and the
 * witness-only backend.
 *
 * The prover evaluates A, B and C the moment a constraint is enforced and keeps only the three
 * values and the density bits: a_aux_density (aux with a non-zero merged coefficient in some
 * A), b_input_density and b_aux_density (likewise for B). A and B are merged first because a
 * variable whose coefficients cancel must not count as dense; C needs no merge (evaluation is
 * linear). cs_finish appends one row per input: a = input[i], b = c = 0.
 * A fork child keeps its density bits in two parts: its own variables (by index - base) and the
 * parent's variables it used (by index); cs_join ORs both into the parent at their places. A
 * placed child (cs_fork with sizes) evaluates a, b, c straight into the parent's vectors.
 */
#include "r1cs/internal.h"

typedef struct prover {
    fr_t *a, *b, *c;
    size_t cap;    /* of a, b, c */
    bool borrowed; /* a, b, c point into the parent's vectors (placed fork child) */
    cs_bits a_aux, b_in, b_aux;
    cs_bits pa_aux, pb_in, pb_aux; /* a fork child's uses of the parent's variables */
    bool taken;
} prover;

static cuzk_err prover_init(cs_t *cs, const cs_counts_t *hint, const void *arg)
{
    prover *p = cz_calloc(1, sizeof(*p));
    (void)arg;
    if (!p) {
        return CUZK_E_NOMEM;
    }
    cs->be = p;
    if (hint) {
        size_t m = hint->num_constraints + (hint->num_inputs ? hint->num_inputs : 1);
        size_t ca = 0, cb = 0, cc = 0;
        if (!cs_vec_reserve((void **)&p->a, &ca, m, sizeof(fr_t), false) ||
            !cs_vec_reserve((void **)&p->b, &cb, m, sizeof(fr_t), false) ||
            !cs_vec_reserve((void **)&p->c, &cc, m, sizeof(fr_t), false)) {
            return CUZK_E_NOMEM;
        }
        p->cap = m;
        size_t words = (hint->num_aux + 63) / 64;
        if (!cs_vec_reserve((void **)&p->a_aux.words, &p->a_aux.cap, words, 8, true) ||
            !cs_vec_reserve((void **)&p->b_aux.words, &p->b_aux.cap, words, 8, true)) {
            return CUZK_E_NOMEM;
        }
    }
    return CUZK_OK;
}

static void prover_destroy(cs_t *cs)
{
    prover *p = cs->be;
    if (!p) {
        return;
    }
    if (!p->borrowed) {
        cz_free(p->a);
        cz_free(p->b);
        cz_free(p->c);
    }
    cz_free(p->a_aux.words);
    cz_free(p->b_in.words);
    cz_free(p->b_aux.words);
    cz_free(p->pa_aux.words);
    cz_free(p->pb_in.words);
    cz_free(p->pb_aux.words);
    cz_free(p);
    cs->be = NULL;
}

/* Room for `need` rows of a, b, c (own vectors only); false without memory. */
static bool prover_grow(prover *p, size_t need)
{
    size_t ca = p->cap, cb = p->cap, cc = p->cap;
    bool ok = cs_vec_reserve((void **)&p->a, &ca, need, sizeof(fr_t), false) &&
              cs_vec_reserve((void **)&p->b, &cb, need, sizeof(fr_t), false) &&
              cs_vec_reserve((void **)&p->c, &cc, need, sizeof(fr_t), false);
    /* The three grow in step; a failure part-way leaves larger buffers, never smaller. */
    p->cap = ca < cb ? (ca < cc ? ca : cc) : (cb < cc ? cb : cc);
    return ok;
}

/* One more row of a, b, c. */
static bool prover_reserve(cs_t *cs, prover *p, size_t need)
{
    if (CZ_LIKELY(need <= p->cap)) {
        return true;
    }
    if (p->borrowed) {
        cs_set_err(cs, CUZK_E_INVAL, "fork child %zu: more constraints than the %zu declared",
                   cs->fork_seq, p->cap);
        return false;
    }
    if (!prover_grow(p, need)) {
        cs_set_err(cs, CUZK_E_NOMEM, "prover: a, b, c for %zu constraints", need);
        return false;
    }
    return true;
}

/* <lc, z> with density: `in_bits` (may be NULL) and `aux_bits` get the cs's own variables
 * whose merged coefficient is non-zero (bellperson eval_with_trackers); `pin_bits` (may be
 * NULL) and `paux_bits` the parent's variables a fork child uses likewise. */
static void eval_dense(cs_t *cs, fr_t *out, cs_lc_t *lc, cs_bits *in_bits, cs_bits *aux_bits,
                       cs_bits *pin_bits, cs_bits *paux_bits)
{
    fr_t acc = FR_ZERO;
    const bool fork = cs->fork_parent != NULL;

    if (!lc || lc->len == 0) {
        *out = acc;
        return;
    }
    if (lc->len > 1) {
        cs_lc_merge(cs, lc);
    }
    for (size_t i = 0; i < lc->len; i++) {
        const cs_term_t *t = &lc->terms[i];
        uint64_t key = cs_term_key(t);
        if (!(t->var & (CS_TERM_ONE_BIT | CS_TERM_MONE_BIT)) && cs_fr_is_zero(&t->coeff)) {
            continue;
        }
        const fr_t *v = cs_key_value(cs, key);
        if (!v) {
            return;
        }
        cs_term_accumulate(&acc, t, v);
        uint64_t idx = key & CS_VAR_INDEX_MAX;
        bool aux = (key & CS_VAR_AUX_BIT) != 0;
        cs_bits *bits = aux ? aux_bits : in_bits;
        if (CZ_UNLIKELY(fork)) {
            /* Own variable: bit index - base; else one of the parent's, bit index. */
            uint64_t rel = idx - (uint64_t)(aux ? cs->aux_base : cs->in_base);
            if (rel < (uint64_t)(aux ? cs->num_aux : cs->num_inputs)) {
                idx = rel;
            } else {
                bits = aux ? paux_bits : pin_bits;
            }
        }
        if (bits && !cs_bits_set(bits, idx)) {
            cs_set_err(cs, CUZK_E_NOMEM, "prover: density bits");
            return;
        }
    }
    *out = acc;
}

static void prover_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                           const char *fmt, va_list *ap)
{
    prover *p = cs->be;
    size_t j = cs->num_constraints;

    (void)label;
    (void)fmt;
    (void)ap;
    if (!prover_reserve(cs, p, j + 1)) {
        return;
    }
    eval_dense(cs, &p->a[j], a, NULL, &p->a_aux, NULL, &p->pa_aux);
    eval_dense(cs, &p->b[j], b, &p->b_in, &p->b_aux, &p->pb_in, &p->pb_aux);
    cs_lc_eval_values(cs, &p->c[j], c);
}

static cuzk_err prover_finish(cs_t *cs, cz_diag *dg)
{
    prover *p = cs->be;
    size_t m = cs->num_constraints + cs->num_inputs;

    (void)dg;
    if (!prover_reserve(cs, p, m)) {
        return CUZK_OK; /* sticky error reported by cs_finish */
    }
    /* Input constraints (groth16.md 4.3): Input(i) * 0 = 0, after all circuit rows. */
    for (size_t i = 0; i < cs->num_inputs; i++) {
        size_t j = cs->num_constraints + i;
        p->a[j] = cs->in_vals[i];
        p->b[j] = FR_ZERO;
        p->c[j] = FR_ZERO;
    }
    return CUZK_OK;
}

static cuzk_err prover_extend(cs_t *parent, cs_t *child, cz_diag *dg)
{
    prover *p = parent->be, *q = child->be;
    size_t n = child->num_constraints;

    if (!prover_reserve(parent, p, parent->num_constraints + n)) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_extend: a, b, c");
    }
    if (n) {
        memcpy(p->a + parent->num_constraints, q->a, n * sizeof(fr_t));
        memcpy(p->b + parent->num_constraints, q->b, n * sizeof(fr_t));
        memcpy(p->c + parent->num_constraints, q->c, n * sizeof(fr_t));
    }
    /* Densities: aux vectors concatenate; the child's input bit 0 (its own ONE) ORs into the
     * parent's bit 0 and its inputs 1.. follow the parent's inputs (groth16.md 4.2 extend). */
    bool ok = cs_bits_append(&p->a_aux, parent->num_aux, &q->a_aux, 0) &&
              cs_bits_append(&p->b_aux, parent->num_aux, &q->b_aux, 0) &&
              cs_bits_append(&p->b_in, parent->num_inputs, &q->b_in, 1);
    if (ok && q->b_in.cap > 0 && (q->b_in.words[0] & 1)) {
        ok = cs_bits_set(&p->b_in, 0);
    }
    if (!ok) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_extend: densities");
    }
    return CUZK_OK;
}

static cuzk_err prover_fork_reserve(cs_t *parent, size_t constraints)
{
    prover *p = parent->be;
    size_t need = parent->num_constraints + constraints;

    return need <= p->cap || prover_grow(p, need) ? CUZK_OK : CUZK_E_NOMEM;
}

static cuzk_err prover_fork(cs_t *parent, cs_t *child)
{
    prover *p = parent->be, *q = child->be;

    if (!child->vals_borrowed) {
        return CUZK_OK; /* sizes unknown: own vectors, grown as needed */
    }
    q->cap = child->fork_size.num_constraints;
    if (q->cap) { /* otherwise the parent's vectors may not exist yet */
        q->a = p->a + child->c_base;
        q->b = p->b + child->c_base;
        q->c = p->c + child->c_base;
    }
    q->borrowed = true;
    /* Own density bits at their final size, so that synthesis never grows them. */
    size_t wa = (child->fork_size.num_aux + 63) / 64, wi = (child->fork_size.num_inputs + 63) / 64;
    if (!cs_vec_reserve((void **)&q->a_aux.words, &q->a_aux.cap, wa, 8, true) ||
        !cs_vec_reserve((void **)&q->b_aux.words, &q->b_aux.cap, wa, 8, true) ||
        !cs_vec_reserve((void **)&q->b_in.words, &q->b_in.cap, wi, 8, true)) {
        return CUZK_E_NOMEM;
    }
    return CUZK_OK;
}

static cuzk_err prover_join(cs_t *parent, cs_t *child, cz_diag *dg)
{
    prover *p = parent->be, *q = child->be;
    size_t n = child->num_constraints;

    if (!q->borrowed && n) {
        if (!prover_reserve(parent, p, parent->num_constraints + n)) {
            return cz_fail(dg, CUZK_E_NOMEM, "cs_join: a, b, c");
        }
        memcpy(p->a + parent->num_constraints, q->a, n * sizeof(fr_t));
        memcpy(p->b + parent->num_constraints, q->b, n * sizeof(fr_t));
        memcpy(p->c + parent->num_constraints, q->c, n * sizeof(fr_t));
    }
    /* The child's variables follow the parent's; the parent's it used keep their bits. */
    bool ok = cs_bits_or_at(&p->a_aux, parent->num_aux, &q->a_aux, child->num_aux) &&
              cs_bits_or_at(&p->b_aux, parent->num_aux, &q->b_aux, child->num_aux) &&
              cs_bits_or_at(&p->b_in, parent->num_inputs, &q->b_in, child->num_inputs) &&
              cs_bits_or_at(&p->a_aux, 0, &q->pa_aux, child->par_aux) &&
              cs_bits_or_at(&p->b_aux, 0, &q->pb_aux, child->par_aux) &&
              cs_bits_or_at(&p->b_in, 0, &q->pb_in, child->par_in);
    if (!ok) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_join: densities");
    }
    return CUZK_OK;
}

const cs_ops cs_ops_prover = {
    .kind = CS_KIND_PROVER,
    .name = "prover",
    .needs_lcs = true,
    .has_values = true,
    .wants_labels = false,
    .can_extend = true,
    .init = prover_init,
    .enforce = prover_enforce,
    .finish = prover_finish,
    .extend = prover_extend,
    .destroy = prover_destroy,
    .fork_reserve = prover_fork_reserve,
    .fork = prover_fork,
    .join = prover_join,
};

/* The witness backend keeps values only (the core does that); enforce just counts. */
static cuzk_err witness_init(cs_t *cs, const cs_counts_t *hint, const void *arg)
{
    (void)hint;
    (void)arg;
    cs->be = cz_calloc(1, sizeof(bool)); /* `taken` flag */
    return cs->be ? CUZK_OK : CUZK_E_NOMEM;
}

static void witness_destroy(cs_t *cs)
{
    cz_free(cs->be);
    cs->be = NULL;
}

const cs_ops cs_ops_witness = {
    .kind = CS_KIND_WITNESS,
    .name = "witness",
    .needs_lcs = false,
    .has_values = true,
    .wants_labels = false,
    .can_extend = true,
    .init = witness_init,
    .enforce = NULL, /* the core counts */
    .finish = NULL,
    .extend = NULL,
    .destroy = witness_destroy,
    .fork_reserve = NULL,
    .fork = NULL,
    .join = NULL, /* the core places or copies the values */
};

cuzk_err cs_new_prover(cs_t **out, const cs_counts_t *hint, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_prover, hint, NULL, dg);
}

cuzk_err cs_new_witness(cs_t **out, const cs_counts_t *hint, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_witness, hint, NULL, dg);
}

cuzk_err cs_new_witness_reuse(cs_t **out, const cs_counts_t *hint, cs_assignment_t *spare,
                              cz_diag *dg)
{
    return cs_new_with_values(out, &cs_ops_witness, hint, NULL, spare, dg);
}

cuzk_err cs_take_assignment(cs_t *cs, cs_assignment_t *out, cz_diag *dg)
{
    bool *taken;
    prover *p = NULL;

    memset(out, 0, sizeof(*out));
    if (cs->ops == &cs_ops_prover) {
        p = cs->be;
        taken = &p->taken;
    } else if (cs->ops == &cs_ops_witness) {
        taken = cs->be;
    } else {
        return cz_fail(dg, CUZK_E_INVAL, "cs_take_assignment: a %s cs has no assignment",
                       cs->ops->name);
    }
    if (!cs->finished || cs->err != CUZK_OK || *taken) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "cs_take_assignment: cs not finished successfully or already taken");
    }
    if (p) {
        if (!cs_bits_finish(&p->a_aux, &out->a_aux_density, cs->num_aux) ||
            !cs_bits_finish(&p->b_in, &out->b_input_density, cs->num_inputs) ||
            !cs_bits_finish(&p->b_aux, &out->b_aux_density, cs->num_aux)) {
            cs_assignment_clear(out);
            return cz_fail(dg, CUZK_E_NOMEM, "cs_take_assignment: densities");
        }
        out->a = p->a;
        out->b = p->b;
        out->c = p->c;
        out->m = cs->num_constraints + cs->num_inputs;
        p->a = p->b = p->c = NULL;
        p->cap = 0;
    }
    out->inputs = cs->in_vals;
    out->num_inputs = cs->num_inputs;
    out->aux = cs->aux_vals;
    out->num_aux = cs->num_aux;
    cs->in_vals = cs->aux_vals = NULL;
    cs->in_cap = cs->aux_cap = 0;
    *taken = true;
    return CUZK_OK;
}
