/* gadget_util.c - see gadget_util.h. */
#include "gadgets/gadget_util.h"

#include <stdlib.h>

#include "common/alloc.h"

void gu_rand_fr(fr_t *out, cz_prng *g)
{
    uint64_t v[4];
    for (int i = 0; i < 4; i++) {
        v[i] = cz_prng_u64(g);
    }
    fr_from_u256_reduce(out, v);
}

void gu_fr_from_limbs(fr_t *out, const uint64_t l[4])
{
    fr_repr_t r = {{l[0], l[1], l[2], l[3]}};
    CHECK(fr_from_repr(out, &r));
}

void gu_record(cs_r1cs_t *r, gu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;
    memset(r, 0, sizeof(*r));
    CHECK_OK(cs_new_recorder(&cs, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK_OK(cs_take_r1cs(cs, r, NULL));
    cs_free(cs);
}

static void small_fr(fr_t *out, int64_t c)
{
    fr_from_u64(out, (uint64_t)(c < 0 ? -c : c));
    if (c < 0) {
        fr_neg(out, out);
    }
}

gu_term gu_in(uint64_t index, int64_t coeff)
{
    gu_term t = {false, index, {{0}}};
    small_fr(&t.coeff, coeff);
    return t;
}

gu_term gu_aux(uint64_t index, int64_t coeff)
{
    gu_term t = {true, index, {{0}}};
    small_fr(&t.coeff, coeff);
    return t;
}

gu_term gu_aux_fr(uint64_t index, const fr_t *coeff)
{
    gu_term t = {true, index, *coeff};
    return t;
}

gu_term gu_in_fr(uint64_t index, const fr_t *coeff)
{
    gu_term t = {false, index, *coeff};
    return t;
}

void gu_check_row(const cs_r1cs_t *r, const cs_matrix_t *m, size_t row, const gu_term *want,
                  size_t n, const char *what)
{
    CHECK_MSG(row < m->rows, "%s: row %zu of %zu", what, row, m->rows);
    size_t len = m->row_ptr[row + 1] - m->row_ptr[row];
    CHECK_MSG(len == n, "%s (row %zu): %zu terms, want %zu", what, row, len, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t col = want[i].aux ? r->num_inputs + want[i].index : want[i].index;
        bool found = false;
        for (size_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
            if (m->col[k] == col) {
                found = fr_eq(&m->val[k], &want[i].coeff);
            }
        }
        CHECK_MSG(found, "%s (row %zu): term %s%llu missing or with another coefficient", what, row,
                  want[i].aux ? "Aux" : "Input", (unsigned long long)want[i].index);
    }
}

void gu_counts(cs_counts_t *out, gu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;
    CHECK_OK(cs_new_counter(&cs, NULL));
    fn(cs, ctx);
    cs_get_counts(cs, out);
    CHECK_OK(cs_finish(cs, NULL));
    cs_free(cs);
}

void gu_check_sat(gu_synth_fn fn, void *ctx)
{
    cs_t *cs = NULL;
    cz_diag dg;
    char buf[600];

    cz_diag_init(&dg);
    CHECK_OK(cs_new_checker(&cs, NULL));
    fn(cs, ctx);
    cuzk_err err = cs_finish(cs, &dg);
    CHECK_MSG(err == CUZK_OK, "checker: %s", cz_diag_str(&dg, buf, sizeof(buf)));
    cs_free(cs);
}

const char *gu_check_unsat(gu_synth_fn fn, void *ctx)
{
    static char path[512];
    cs_t *cs = NULL;
    size_t idx = 0;

    CHECK_OK(cs_new_checker(&cs, NULL));
    fn(cs, ctx);
    CHECK_ERR(cs_finish(cs, NULL), CUZK_E_UNSAT);
    const char *p = cs_unsat_path(cs, &idx);
    CHECK(p != NULL);
    snprintf(path, sizeof(path), "%s", p);
    cs_free(cs);
    return path;
}

void gu_digest_hex(char out[65], gu_synth_fn fn, void *ctx)
{
    cs_counts_t n;
    cs_t *cs = NULL;

    gu_counts(&n, fn, ctx);
    CHECK_OK(cs_new_digest(&cs, &n, NULL));
    fn(cs, ctx);
    CHECK_OK(cs_finish(cs, NULL));
    CHECK(cs_digest_hex(cs, out));
    cs_free(cs);
}

/* ---------------------------------------------------------------------------------------------
 * Soundness
 * ------------------------------------------------------------------------------------------- */

/* Column-major copy of a CSR matrix: for column c, rows rowi[colp[c] .. colp[c+1]) in
 * increasing order with their values. */
typedef struct csc {
    size_t *colp;
    size_t *rowi;
    fr_t *val;
} csc;

static void csc_build(csc *out, const cs_matrix_t *m, size_t ncols)
{
    out->colp = calloc(ncols + 1, sizeof(size_t));
    out->rowi = malloc((m->nnz ? m->nnz : 1) * sizeof(size_t));
    out->val = malloc((m->nnz ? m->nnz : 1) * sizeof(fr_t));
    CHECK(out->colp && out->rowi && out->val);
    for (size_t k = 0; k < m->nnz; k++) {
        CHECK(m->col[k] < ncols);
        out->colp[m->col[k] + 1]++;
    }
    for (size_t c = 0; c < ncols; c++) {
        out->colp[c + 1] += out->colp[c];
    }
    size_t *fill = malloc((ncols ? ncols : 1) * sizeof(size_t));
    CHECK(fill);
    memcpy(fill, out->colp, ncols * sizeof(size_t));
    for (size_t r = 0; r < m->rows; r++) {
        for (size_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
            size_t pos = fill[m->col[k]]++;
            out->rowi[pos] = r;
            out->val[pos] = m->val[k];
        }
    }
    free(fill);
}

static void csc_free(csc *c)
{
    free(c->colp);
    free(c->rowi);
    free(c->val);
}

/* <row r of m, w> */
static void row_eval(fr_t *out, const cs_matrix_t *m, size_t r, const fr_t *w)
{
    fr_t acc = FR_ZERO, t;
    for (size_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++) {
        fr_mul(&t, &m->val[k], &w[m->col[k]]);
        fr_add(&acc, &acc, &t);
    }
    *out = acc;
}

/* True when some row containing column c fails after w[c] += delta. */
static bool change_caught(const csc *cc, const fr_t *av, const fr_t *bv, const fr_t *cv, size_t c,
                          const fr_t *delta)
{
    size_t k[3], end[3];
    for (int m = 0; m < 3; m++) {
        k[m] = cc[m].colp[c];
        end[m] = cc[m].colp[c + 1];
    }
    for (;;) {
        size_t row = SIZE_MAX;
        for (int m = 0; m < 3; m++) {
            if (k[m] < end[m] && cc[m].rowi[k[m]] < row) {
                row = cc[m].rowi[k[m]];
            }
        }
        if (row == SIZE_MAX) {
            return false;
        }
        fr_t x[3] = {av[row], bv[row], cv[row]};
        for (int m = 0; m < 3; m++) {
            if (k[m] < end[m] && cc[m].rowi[k[m]] == row) {
                fr_t t;
                fr_mul(&t, &cc[m].val[k[m]], delta);
                fr_add(&x[m], &x[m], &t);
                k[m]++;
            }
        }
        fr_t ab;
        fr_mul(&ab, &x[0], &x[1]);
        if (!fr_eq(&ab, &x[2])) {
            return true;
        }
    }
}

/* Aux count when gu_inputs_done was last called (0 if never). Test code: one thread. */
static size_t gu_free_aux;

void gu_inputs_done(cs_t *cs)
{
    cs_counts_t n;
    cs_get_counts(cs, &n);
    gu_free_aux = n.num_aux;
}

size_t gu_soundness(gu_synth_fn fn, void *ctx)
{
    cs_t *rec = NULL, *wit = NULL;
    cs_r1cs_t r1cs;
    cs_assignment_t asg;
    cz_diag dg;
    char buf[600];
    size_t tried = 0;

    memset(&r1cs, 0, sizeof(r1cs));
    memset(&asg, 0, sizeof(asg));
    cz_diag_init(&dg);
    gu_free_aux = 0;
    CHECK_OK(cs_new_recorder(&rec, NULL));
    fn(rec, ctx);
    const size_t free_aux = gu_free_aux;
    CHECK_OK(cs_finish(rec, NULL));
    CHECK_OK(cs_take_r1cs(rec, &r1cs, NULL));
    cs_free(rec);

    CHECK_OK(cs_new_witness(&wit, NULL, NULL));
    fn(wit, ctx);
    cuzk_err err = cs_finish(wit, &dg);
    CHECK_MSG(err == CUZK_OK, "witness: %s", cz_diag_str(&dg, buf, sizeof(buf)));
    CHECK_OK(cs_take_assignment(wit, &asg, NULL));
    cs_free(wit);

    CHECK_EQ_U64(asg.num_inputs, r1cs.num_inputs);
    CHECK_EQ_U64(asg.num_aux, r1cs.num_aux);
    const size_t rows = r1cs.A.rows, ni = r1cs.num_inputs, ncols = ni + r1cs.num_aux;
    CHECK_EQ_U64(rows, r1cs.num_constraints + ni);
    CHECK_EQ_U64(r1cs.B.rows, rows);
    CHECK_EQ_U64(r1cs.C.rows, rows);

    fr_t *w = malloc((ncols ? ncols : 1) * sizeof(fr_t));
    fr_t *ev = malloc(3 * (rows ? rows : 1) * sizeof(fr_t));
    CHECK(w && ev);
    memcpy(w, asg.inputs, ni * sizeof(fr_t));
    if (r1cs.num_aux > 0) { /* asg.aux is NULL without aux: memcpy from NULL is undefined */
        memcpy(w + ni, asg.aux, r1cs.num_aux * sizeof(fr_t));
    }
    CHECK(fr_is_one(&w[0]));
    fr_t *av = ev, *bv = ev + rows, *cv = ev + 2 * rows;
    for (size_t r = 0; r < rows; r++) {
        row_eval(&av[r], &r1cs.A, r, w);
        row_eval(&bv[r], &r1cs.B, r, w);
        row_eval(&cv[r], &r1cs.C, r, w);
        fr_t ab;
        fr_mul(&ab, &av[r], &bv[r]);
        CHECK_MSG(fr_eq(&ab, &cv[r]), "honest witness fails constraint %zu of %zu", r, rows);
    }

    csc cc[3];
    csc_build(&cc[0], &r1cs.A, ncols);
    csc_build(&cc[1], &r1cs.B, ncols);
    csc_build(&cc[2], &r1cs.C, ncols);
    cz_prng *g = test_prng();
    for (size_t c = 1; c < ncols; c++) {
        fr_t delta;
        if (c >= ni && c - ni < free_aux) {
            continue;
        }
        if (fr_is_zero(&w[c]) || fr_is_one(&w[c])) {
            /* flip the bit: delta = 1 - 2 w */
            fr_t two_w;
            fr_dbl(&two_w, &w[c]);
            fr_sub(&delta, &FR_ONE, &two_w);
            CHECK_MSG(change_caught(cc, av, bv, cv, c, &delta),
                      "%s %zu can be flipped freely (unconstrained)", c < ni ? "input" : "aux",
                      c < ni ? c : c - ni);
            tried++;
        }
        do {
            gu_rand_fr(&delta, g);
        } while (fr_is_zero(&delta));
        CHECK_MSG(change_caught(cc, av, bv, cv, c, &delta),
                  "%s %zu can be changed freely (unconstrained)", c < ni ? "input" : "aux",
                  c < ni ? c : c - ni);
        tried++;
    }
    for (int m = 0; m < 3; m++) {
        csc_free(&cc[m]);
    }
    free(w);
    free(ev);
    cs_r1cs_clear(&r1cs);
    cs_assignment_clear(&asg);
    return tried;
}
