/* checker.c - the satisfiability checker (bellpepper TestConstraintSystem's
 * which_is_unsatisfied): each constraint is evaluated when enforced, with the values allocated
 * so far (a variable's value never changes afterwards, so this equals checking at the end). The
 * first failing constraint's path "ns1/ns2/label" is built only then; cs_finish returns
 * CUZK_E_UNSAT naming it.
 */
#include "r1cs/internal.h"

#include <stdio.h>

typedef struct checker {
    size_t index; /* first unsatisfied constraint, SIZE_MAX while none */
    char *path;
} checker;

static cuzk_err checker_init(cs_t *cs, const cs_counts_t *hint, const void *arg)
{
    checker *k = cz_calloc(1, sizeof(*k));

    (void)hint;
    (void)arg;
    if (!k) {
        return CUZK_E_NOMEM;
    }
    k->index = SIZE_MAX;
    cs->be = k;
    return CUZK_OK;
}

static void checker_destroy(cs_t *cs)
{
    checker *k = cs->be;
    if (k) {
        cz_free(k->path);
        cz_free(k);
        cs->be = NULL;
    }
}

/* "prefix/name" (or just one of them when the other is empty), cz_malloc'ed. */
static char *join_path(const char *prefix, size_t plen, const char *name)
{
    size_t nlen = strlen(name);
    char *s = cz_malloc(plen + nlen + 2);
    if (!s) {
        return NULL;
    }
    size_t n = 0;
    if (plen) {
        memcpy(s, prefix, plen);
        n = plen;
        if (nlen) {
            s[n++] = '/';
        }
    }
    memcpy(s + n, name, nlen);
    s[n + nlen] = '\0';
    return s;
}

/* fmt, *ap: the label format and arguments of cs_enforcef, whose own format attribute checks
 * them at the circuit's call site. */
static void checker_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                            const char *fmt, va_list *ap) CZ_PRINTF(6, 0);

static void checker_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                            const char *fmt, va_list *ap)
{
    checker *k = cs->be;
    fr_t va, vb, vc;

    if (!cs_lc_eval_values(cs, &va, a) || !cs_lc_eval_values(cs, &vb, b) ||
        !cs_lc_eval_values(cs, &vc, c)) {
        return;
    }
    fr_mul(&va, &va, &vb);
    if (fr_eq(&va, &vc) || k->index != SIZE_MAX) {
        return;
    }
    k->index = cs->num_constraints;
    char buf[512];
    const char *name = label ? label : "";
    if (fmt) {
        vsnprintf(buf, sizeof(buf), fmt, *ap);
        name = buf;
    }
    k->path = join_path(cs->path ? cs->path : "", cs->path_len, name);
    if (!k->path) {
        cs_set_err(cs, CUZK_E_NOMEM, "checker: constraint path");
    }
}

static cuzk_err checker_finish(cs_t *cs, cz_diag *dg)
{
    checker *k = cs->be;

    if (k->index != SIZE_MAX) {
        return cz_fail(dg, CUZK_E_UNSAT, "constraint %zu \"%s\" is not satisfied", k->index,
                       k->path);
    }
    return CUZK_OK;
}

static cuzk_err checker_extend(cs_t *parent, cs_t *child, cz_diag *dg)
{
    checker *p = parent->be, *q = child->be;

    if (p->index == SIZE_MAX && q->index != SIZE_MAX) {
        /* The child's constraints sit inside the parent's current namespace. */
        char *s = join_path(parent->path ? parent->path : "", parent->path_len, q->path);
        if (!s) {
            return cz_fail(dg, CUZK_E_NOMEM, "cs_extend: constraint path");
        }
        p->index = parent->num_constraints + q->index;
        p->path = s;
    }
    return CUZK_OK;
}

const cs_ops cs_ops_checker = {
    .kind = CS_KIND_CHECKER,
    .name = "checker",
    .needs_lcs = true,
    .has_values = true,
    .wants_labels = true,
    .can_extend = true,
    .init = checker_init,
    .enforce = checker_enforce,
    .finish = checker_finish,
    .extend = checker_extend,
    .destroy = checker_destroy,
    .fork_reserve = NULL,
    .fork = NULL,
    .join = checker_extend, /* the same: a child's failure counts from its place in the parent */
};

cuzk_err cs_new_checker(cs_t **out, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_checker, NULL, NULL, dg);
}

const char *cs_unsat_path(const cs_t *cs, size_t *index)
{
    if (cs->ops != &cs_ops_checker) {
        return NULL;
    }
    const checker *k = cs->be;
    if (index) {
        *index = k->index;
    }
    return k->index == SIZE_MAX ? NULL : k->path;
}
