/* recorder.c - records A, B, C as CSR matrices (the "pre-compiled constraint evaluator" shape,
 * groth16.md 5.1), the sparse products that turn a witness into a, b, c, and the densities
 * derived from the matrices' column sets.
 *
 * Rows hold each LC merged, zero coefficients dropped, sorted inputs first then aux. While
 * recording, an aux column is stored as its tagged variable (CS_VAR_AUX_BIT | index) because
 * the final number of inputs, which offsets every aux column, is known only at cs_finish
 * (alloc_input and enforce interleave). cs_finish appends the input-constraint rows (A = Input(i),
 * B = C = empty) and rewrites aux columns to num_inputs + index.
 */
#include "r1cs/internal.h"

typedef struct rec_matrix {
    size_t *row_ptr;
    uint64_t *col;
    fr_t *val;
    size_t rp_cap, nnz, nz_cap;
} rec_matrix;

typedef struct recorder {
    rec_matrix m[3];
    bool taken;
} recorder;

static bool rec_row_begin(rec_matrix *m, size_t rows)
{
    /* row_ptr[rows + 1] is written when a row ends; row_ptr[0] = 0 from the first reserve. */
    if (!cs_vec_reserve((void **)&m->row_ptr, &m->rp_cap, rows + 2, sizeof(size_t), true)) {
        return false;
    }
    return true;
}

static bool rec_reserve_nz(rec_matrix *m, size_t need)
{
    size_t cv = m->nz_cap;
    if (need <= cv) {
        return true;
    }
    size_t cc = m->nz_cap;
    if (!cs_vec_reserve((void **)&m->col, &cc, need, sizeof(uint64_t), false) ||
        !cs_vec_reserve((void **)&m->val, &cv, need, sizeof(fr_t), false)) {
        return false;
    }
    m->nz_cap = cc < cv ? cc : cv;
    return true;
}

static cuzk_err recorder_init(cs_t *cs, const cs_counts_t *hint, const void *arg)
{
    recorder *r = cz_calloc(1, sizeof(*r));

    (void)hint;
    (void)arg;
    if (!r) {
        return CUZK_E_NOMEM;
    }
    cs->be = r;
    for (int k = 0; k < 3; k++) {
        if (!rec_row_begin(&r->m[k], 0)) {
            return CUZK_E_NOMEM;
        }
    }
    return CUZK_OK;
}

static void recorder_destroy(cs_t *cs)
{
    recorder *r = cs->be;
    if (!r) {
        return;
    }
    for (int k = 0; k < 3; k++) {
        cz_free(r->m[k].row_ptr);
        cz_free(r->m[k].col);
        cz_free(r->m[k].val);
    }
    cz_free(r);
    cs->be = NULL;
}

static void rec_lc(cs_t *cs, rec_matrix *m, cs_lc_t *lc, size_t row)
{
    const cs_term_t *t;
    size_t n = cs_lc_canonical(cs, lc, &t);

    if (n == SIZE_MAX) {
        return;
    }
    if (!rec_row_begin(m, row) || !rec_reserve_nz(m, m->nnz + n)) {
        cs_set_err(cs, CUZK_E_NOMEM, "recorder: row %zu", row);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t key = cs_term_key(&t[i]);
        uint64_t idx = key & CS_VAR_INDEX_MAX;
        if (!cs_key_allocated(cs, key)) {
            cs_set_err(cs, CUZK_E_INVAL, "constraint %zu uses unallocated variable %s(%llu)", row,
                       (key & CS_VAR_AUX_BIT) ? "Aux" : "Input", (unsigned long long)idx);
            return;
        }
        m->col[m->nnz] = key;
        m->val[m->nnz] = t[i].coeff;
        m->nnz++;
    }
    m->row_ptr[row + 1] = m->nnz;
}

static void recorder_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                             const char *fmt, va_list *ap)
{
    recorder *r = cs->be;
    size_t row = cs->num_constraints;

    (void)label;
    (void)fmt;
    (void)ap;
    rec_lc(cs, &r->m[0], a, row);
    rec_lc(cs, &r->m[1], b, row);
    rec_lc(cs, &r->m[2], c, row);
}

static cuzk_err recorder_finish(cs_t *cs, cz_diag *dg)
{
    recorder *r = cs->be;
    size_t rows = cs->num_constraints + cs->num_inputs;

    for (int k = 0; k < 3; k++) {
        rec_matrix *m = &r->m[k];
        size_t extra = k == 0 ? cs->num_inputs : 0;
        if (!rec_row_begin(m, rows) || !rec_reserve_nz(m, m->nnz + extra)) {
            return cz_fail(dg, CUZK_E_NOMEM, "recorder: input constraints");
        }
        for (size_t i = 0; i < cs->num_inputs; i++) {
            size_t row = cs->num_constraints + i;
            if (k == 0) {
                m->col[m->nnz] = i;
                m->val[m->nnz] = FR_ONE;
                m->nnz++;
            }
            m->row_ptr[row + 1] = m->nnz;
        }
        for (size_t z = 0; z < m->nnz; z++) {
            if (m->col[z] & CS_VAR_AUX_BIT) {
                m->col[z] = cs->num_inputs + (m->col[z] & CS_VAR_INDEX_MAX);
            }
        }
    }
    return CUZK_OK;
}

static cuzk_err recorder_extend(cs_t *parent, cs_t *child, cz_diag *dg)
{
    recorder *p = parent->be, *q = child->be;
    size_t rows = child->num_constraints;

    for (int k = 0; k < 3; k++) {
        rec_matrix *pm = &p->m[k], *qm = &q->m[k];
        size_t base_row = parent->num_constraints, base_nz = pm->nnz;
        if (!rec_row_begin(pm, base_row + rows) || !rec_reserve_nz(pm, pm->nnz + qm->nnz)) {
            return cz_fail(dg, CUZK_E_NOMEM, "cs_extend: recorder");
        }
        for (size_t z = 0; z < qm->nnz; z++) {
            uint64_t key = qm->col[z];
            uint64_t idx = key & CS_VAR_INDEX_MAX;
            if (key & CS_VAR_AUX_BIT) {
                key = CS_VAR_AUX_BIT | (parent->num_aux + idx);
            } else if (idx != 0) {
                key = parent->num_inputs + idx - 1;
            }
            pm->col[pm->nnz] = key;
            pm->val[pm->nnz] = qm->val[z];
            pm->nnz++;
        }
        for (size_t j = 0; j < rows; j++) {
            pm->row_ptr[base_row + j + 1] = base_nz + qm->row_ptr[j + 1];
        }
    }
    return CUZK_OK;
}

/* A fork child's rows: its own variables move to where they land in the parent (an unsized
 * child's were numbered as if it came right after the fork); the parent's stay. Both shifts
 * are upwards and keep own variables above the parent's, so rows stay sorted. */
static cuzk_err recorder_join(cs_t *parent, cs_t *child, cz_diag *dg)
{
    recorder *p = parent->be, *q = child->be;
    size_t rows = child->num_constraints;

    for (int k = 0; k < 3; k++) {
        rec_matrix *pm = &p->m[k], *qm = &q->m[k];
        size_t base_row = parent->num_constraints, base_nz = pm->nnz;
        if (!rec_row_begin(pm, base_row + rows) || !rec_reserve_nz(pm, pm->nnz + qm->nnz)) {
            return cz_fail(dg, CUZK_E_NOMEM, "cs_join: recorder");
        }
        for (size_t z = 0; z < qm->nnz; z++) {
            uint64_t key = qm->col[z];
            uint64_t idx = key & CS_VAR_INDEX_MAX;
            if (key & CS_VAR_AUX_BIT) {
                if (idx >= child->aux_base) {
                    key = CS_VAR_AUX_BIT | (parent->num_aux + idx - child->aux_base);
                }
            } else if (idx >= child->in_base) {
                key = parent->num_inputs + idx - child->in_base;
            }
            pm->col[pm->nnz] = key;
            pm->val[pm->nnz] = qm->val[z];
            pm->nnz++;
        }
        for (size_t j = 0; j < rows; j++) {
            pm->row_ptr[base_row + j + 1] = base_nz + qm->row_ptr[j + 1];
        }
    }
    return CUZK_OK;
}

const cs_ops cs_ops_recorder = {
    .kind = CS_KIND_RECORDER,
    .name = "recorder",
    .needs_lcs = true,
    .has_values = false,
    .wants_labels = false,
    .can_extend = true,
    .init = recorder_init,
    .enforce = recorder_enforce,
    .finish = recorder_finish,
    .extend = recorder_extend,
    .destroy = recorder_destroy,
    .fork_reserve = NULL,
    .fork = NULL,
    .join = recorder_join,
};

cuzk_err cs_new_recorder(cs_t **out, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_recorder, NULL, NULL, dg);
}

cuzk_err cs_take_r1cs(cs_t *cs, cs_r1cs_t *out, cz_diag *dg)
{
    memset(out, 0, sizeof(*out));
    if (cs->ops != &cs_ops_recorder) {
        return cz_fail(dg, CUZK_E_INVAL, "cs_take_r1cs: a %s cs records no matrices",
                       cs->ops->name);
    }
    recorder *r = cs->be;
    if (!cs->finished || cs->err != CUZK_OK || r->taken) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "cs_take_r1cs: cs not finished successfully or already taken");
    }
    out->num_inputs = cs->num_inputs;
    out->num_aux = cs->num_aux;
    out->num_constraints = cs->num_constraints;
    cs_matrix_t *dst[3] = {&out->A, &out->B, &out->C};
    for (int k = 0; k < 3; k++) {
        rec_matrix *m = &r->m[k];
        dst[k]->rows = cs->num_constraints + cs->num_inputs;
        dst[k]->nnz = m->nnz;
        dst[k]->row_ptr = m->row_ptr;
        dst[k]->col = m->col;
        dst[k]->val = m->val;
        m->row_ptr = NULL;
        m->col = NULL;
        m->val = NULL;
        m->rp_cap = m->nz_cap = m->nnz = 0;
    }
    r->taken = true;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * Sparse products and densities
 * ---------------------------------------------------------------------------------------- */

typedef struct spmv_ctx {
    const cs_matrix_t *m;
    fr_t *out;
    const fr_t *inputs;
    size_t num_inputs;
    const fr_t *aux;
} spmv_ctx;

static void spmv_rows(void *arg, size_t begin, size_t end, unsigned worker)
{
    const spmv_ctx *x = arg;
    const cs_matrix_t *m = x->m;

    (void)worker;
    for (size_t r = begin; r < end; r++) {
        fr_t acc = FR_ZERO;
        for (size_t z = m->row_ptr[r]; z < m->row_ptr[r + 1]; z++) {
            uint64_t col = m->col[z];
            const fr_t *w = col < x->num_inputs ? &x->inputs[col] : &x->aux[col - x->num_inputs];
            if (cs_fr_is_zero(w)) {
                continue; /* boolean-heavy witnesses: skip 0 and 1 multiplications */
            }
            if (memcmp(&m->val[z], &FR_ONE, sizeof(fr_t)) == 0) {
                fr_add(&acc, &acc, w);
            } else if (memcmp(w, &FR_ONE, sizeof(fr_t)) == 0) {
                fr_add(&acc, &acc, &m->val[z]);
            } else {
                fr_t t;
                fr_mul(&t, &m->val[z], w);
                fr_add(&acc, &acc, &t);
            }
        }
        x->out[r] = acc;
    }
}

void cs_matrix_mul(const cs_matrix_t *m, fr_t *out, const fr_t *inputs, size_t num_inputs,
                   const fr_t *aux, cz_pool *pool)
{
    spmv_ctx x = {m, out, inputs, num_inputs, aux};

    if (pool) {
        cz_pool_for(pool, m->rows, 4096, spmv_rows, &x);
    } else {
        spmv_rows(&x, 0, m->rows, 0);
    }
}

/* Density of the columns of `m` in [lo, hi) into `out` (bit col - lo). */
static bool column_density(const cs_matrix_t *m, uint64_t lo, uint64_t hi, cs_bitvec_t *out)
{
    cs_bits bits = {NULL, 0, 0};

    for (size_t z = 0; z < m->nnz; z++) {
        uint64_t col = m->col[z];
        if (col >= lo && col < hi && !cs_bits_set(&bits, col - lo)) {
            cz_free(bits.words);
            return false;
        }
    }
    if (!cs_bits_finish(&bits, out, (size_t)(hi - lo))) {
        cz_free(bits.words);
        return false;
    }
    return true;
}

cuzk_err cs_r1cs_eval(const cs_r1cs_t *r1cs, cs_assignment_t *asg, cz_pool *pool, cz_diag *dg)
{
    size_t rows = r1cs->num_constraints + r1cs->num_inputs;
    size_t ni = r1cs->num_inputs, na = r1cs->num_aux;

    if (asg->num_inputs != ni || asg->num_aux != na || asg->a || asg->b || asg->c ||
        r1cs->A.rows != rows || r1cs->B.rows != rows || r1cs->C.rows != rows) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "cs_r1cs_eval: assignment (%zu inputs, %zu aux) does not fit the R1CS "
                       "(%zu inputs, %zu aux, %zu rows) or already holds a, b, c",
                       asg->num_inputs, asg->num_aux, ni, na, rows);
    }
    fr_t *a = cz_malloc(rows * sizeof(fr_t));
    fr_t *b = cz_malloc(rows * sizeof(fr_t));
    fr_t *c = cz_malloc(rows * sizeof(fr_t));
    cs_bitvec_t da = {0}, dbi = {0}, dba = {0};
    if (a && b && c) {
        cs_advise_huge(a, rows * sizeof(fr_t));
        cs_advise_huge(b, rows * sizeof(fr_t));
        cs_advise_huge(c, rows * sizeof(fr_t));
    }
    if (!a || !b || !c || !column_density(&r1cs->A, ni, ni + na, &da) ||
        !column_density(&r1cs->B, 0, ni, &dbi) || !column_density(&r1cs->B, ni, ni + na, &dba)) {
        cz_free(a);
        cz_free(b);
        cz_free(c);
        cs_bitvec_clear(&da);
        cs_bitvec_clear(&dbi);
        cs_bitvec_clear(&dba);
        return cz_fail(dg, CUZK_E_NOMEM, "cs_r1cs_eval: %zu rows", rows);
    }
    cs_matrix_mul(&r1cs->A, a, asg->inputs, ni, asg->aux, pool);
    cs_matrix_mul(&r1cs->B, b, asg->inputs, ni, asg->aux, pool);
    cs_matrix_mul(&r1cs->C, c, asg->inputs, ni, asg->aux, pool);
    cs_bitvec_clear(&asg->a_aux_density);
    cs_bitvec_clear(&asg->b_input_density);
    cs_bitvec_clear(&asg->b_aux_density);
    asg->a = a;
    asg->b = b;
    asg->c = c;
    asg->m = rows;
    asg->a_aux_density = da;
    asg->b_input_density = dbi;
    asg->b_aux_density = dba;
    return CUZK_OK;
}
