/* shape.c - the compact shape (r1cs.h "Compact shape"): the shape recorder backend, the
 * converter from a recorded cs_r1cs_t, and what both share (densities, compare, clear).
 *
 * Rows are the recorder's: each LC merged, zero coefficients dropped, sorted inputs first then
 * aux. Columns are 32 bits. While recording, an aux column is stored as SHP_AUX_TAG | aux index
 * because the number of inputs, which offsets every aux column, is known only at cs_finish
 * (alloc_input and enforce interleave); the tag sorts aux after inputs, so rows stay sorted
 * when cs_finish rewrites aux columns to num_inputs + index.
 * Coefficients go through a dictionary per cs (open addressing over fr_t), in order of first
 * use, pre-seeded with 1 and -1. A fork or extend child has its own; the join appends the
 * child's entries that the parent lacks, in the child's order, and translates the child's
 * indices. Every parent entry comes from earlier constraints, so this is the order of first use
 * of a sequential synthesis, and parallel recording gives the sequential shape exactly.
 */
#include "r1cs/internal.h"

#define SHP_AUX_TAG   UINT32_C(0x80000000)
#define SHP_INDEX_MAX (SHP_AUX_TAG - 1)

typedef struct shp_matrix {
    uint32_t *row_ptr;
    size_t rp_cap;
    uint32_t *col;
    uint16_t *coef;
    size_t nnz, nz_cap;
} shp_matrix;

typedef struct shp_dict {
    fr_t *vals;
    size_t len, cap;
    uint32_t *slots; /* open addressing: 0 empty, else index + 1 */
    size_t nslots;   /* a power of two, more than twice len */
} shp_dict;

typedef struct shape_rec {
    shp_matrix m[3];
    shp_dict dict;
    cs_shape_t shape; /* made by cs_finish */
    bool done;        /* cs_finish made `shape` */
    bool taken;
} shape_rec;

static const char *const shp_name[3] = {"A", "B", "C"};

/* ------------------------------------------------------------------------------------------
 * Dictionary
 * ---------------------------------------------------------------------------------------- */

static size_t dict_hash(const fr_t *v, size_t nslots)
{
    uint64_t h = v->l[0] ^ (v->l[1] * UINT64_C(0xC2B2AE3D27D4EB4F)) ^ v->l[2] ^ (v->l[3] << 7);
    return (size_t)((h * UINT64_C(0x9E3779B97F4A7C15)) >> 32) & (nslots - 1);
}

static bool dict_rehash(shp_dict *d, size_t nslots)
{
    uint32_t *s = cz_calloc(nslots, sizeof(uint32_t));
    if (!s) {
        return false;
    }
    for (size_t i = 0; i < d->len; i++) {
        size_t h = dict_hash(&d->vals[i], nslots);
        while (s[h]) {
            h = (h + 1) & (nslots - 1);
        }
        s[h] = (uint32_t)(i + 1);
    }
    cz_free(d->slots);
    d->slots = s;
    d->nslots = nslots;
    return true;
}

/* The index of `v` in `d`, appending it when new. CUZK_E_INVAL when the dictionary is full. */
static cuzk_err dict_index(shp_dict *d, const fr_t *v, uint16_t *out)
{
    size_t h = dict_hash(v, d->nslots);
    uint32_t s;

    while ((s = d->slots[h]) != 0) {
        if (memcmp(&d->vals[s - 1], v, sizeof(fr_t)) == 0) {
            *out = (uint16_t)(s - 1);
            return CUZK_OK;
        }
        h = (h + 1) & (d->nslots - 1);
    }
    if (d->len == CS_SHAPE_DICT_MAX) {
        return CUZK_E_INVAL;
    }
    if (!cs_vec_reserve((void **)&d->vals, &d->cap, d->len + 1, sizeof(fr_t), false)) {
        return CUZK_E_NOMEM;
    }
    d->vals[d->len] = *v;
    d->slots[h] = (uint32_t)(d->len + 1);
    *out = (uint16_t)d->len;
    d->len++;
    if (2 * d->len >= d->nslots && !dict_rehash(d, 2 * d->nslots)) {
        return CUZK_E_NOMEM;
    }
    return CUZK_OK;
}

static bool dict_init(shp_dict *d)
{
    fr_t minus_one;
    uint16_t i0, i1;

    memset(d, 0, sizeof(*d));
    fr_neg(&minus_one, &FR_ONE);
    if (!dict_rehash(d, 64)) {
        return false;
    }
    return dict_index(d, &FR_ONE, &i0) == CUZK_OK && dict_index(d, &minus_one, &i1) == CUZK_OK;
}

static void dict_clear(shp_dict *d)
{
    cz_free(d->vals);
    cz_free(d->slots);
    memset(d, 0, sizeof(*d));
}

/* ------------------------------------------------------------------------------------------
 * Shared: densities, clear, size, compare
 * ---------------------------------------------------------------------------------------- */

/* Bits of the columns of `m` in [lo, lo + len) into `out` (bit col - lo); at least one word. */
static bool column_bits(const cs_shape_matrix_t *m, size_t lo, size_t len, cs_bitvec_t *out)
{
    size_t words = len ? (len + 63) / 64 : 1, pop = 0;
    uint64_t *w = cz_calloc(words, sizeof(uint64_t));

    if (!w) {
        return false;
    }
    for (size_t z = 0; z < m->nnz; z++) {
        size_t c = (size_t)m->col[z] - lo;
        if (c < len) {
            uint64_t bit = UINT64_C(1) << (c % 64);
            pop += (w[c / 64] & bit) == 0;
            w[c / 64] |= bit;
        }
    }
    out->words = w;
    out->len = len;
    out->popcount = pop;
    return true;
}

bool cs_shape_densities(cs_shape_t *s)
{
    cs_bitvec_clear(&s->a_aux_density);
    cs_bitvec_clear(&s->b_input_density);
    cs_bitvec_clear(&s->b_aux_density);
    if (column_bits(&s->A, s->num_inputs, s->num_aux, &s->a_aux_density) &&
        column_bits(&s->B, 0, s->num_inputs, &s->b_input_density) &&
        column_bits(&s->B, s->num_inputs, s->num_aux, &s->b_aux_density)) {
        return true;
    }
    cs_bitvec_clear(&s->a_aux_density);
    cs_bitvec_clear(&s->b_input_density);
    cs_bitvec_clear(&s->b_aux_density);
    return false;
}

void cs_shape_clear(cs_shape_t *s)
{
    if (!s) {
        return;
    }
    if (s->block) {
        cz_buf buf = {s->block, s->block_len};
        cz_buf_free(&buf);
    } else {
        cs_shape_matrix_t *m[3] = {&s->A, &s->B, &s->C};
        for (int k = 0; k < 3; k++) {
            cz_free(m[k]->row_ptr);
            cz_free(m[k]->col);
            cz_free(m[k]->coef);
        }
        cz_free(s->dict);
    }
    cs_bitvec_clear(&s->a_aux_density);
    cs_bitvec_clear(&s->b_input_density);
    cs_bitvec_clear(&s->b_aux_density);
    memset(s, 0, sizeof(*s));
}

static size_t bitvec_bytes(const cs_bitvec_t *bv)
{
    return bv->words ? (bv->len ? (bv->len + 63) / 64 : 1) * sizeof(uint64_t) : 0;
}

size_t cs_shape_bytes(const cs_shape_t *s)
{
    const cs_shape_matrix_t *m[3] = {&s->A, &s->B, &s->C};
    size_t n = s->dict_len * sizeof(fr_t);

    for (int k = 0; k < 3; k++) {
        n +=
            (m[k]->rows + 1) * sizeof(uint32_t) + m[k]->nnz * (sizeof(uint32_t) + sizeof(uint16_t));
    }
    return n + bitvec_bytes(&s->a_aux_density) + bitvec_bytes(&s->b_input_density) +
           bitvec_bytes(&s->b_aux_density);
}

static bool bitvec_eq(const cs_bitvec_t *x, const cs_bitvec_t *y)
{
    size_t words = (x->len + 63) / 64;
    return x->len == y->len && x->popcount == y->popcount &&
           (words == 0 || memcmp(x->words, y->words, words * sizeof(uint64_t)) == 0);
}

static bool matrix_eq(const cs_shape_matrix_t *x, const cs_shape_matrix_t *y)
{
    return x->rows == y->rows && x->nnz == y->nnz &&
           memcmp(x->row_ptr, y->row_ptr, (x->rows + 1) * sizeof(uint32_t)) == 0 &&
           (x->nnz == 0 || (memcmp(x->col, y->col, x->nnz * sizeof(uint32_t)) == 0 &&
                            memcmp(x->coef, y->coef, x->nnz * sizeof(uint16_t)) == 0));
}

bool cs_shape_eq(const cs_shape_t *x, const cs_shape_t *y)
{
    return x->num_inputs == y->num_inputs && x->num_aux == y->num_aux &&
           x->num_constraints == y->num_constraints && x->dict_len == y->dict_len &&
           memcmp(x->dict, y->dict, x->dict_len * sizeof(fr_t)) == 0 && matrix_eq(&x->A, &y->A) &&
           matrix_eq(&x->B, &y->B) && matrix_eq(&x->C, &y->C) &&
           bitvec_eq(&x->a_aux_density, &y->a_aux_density) &&
           bitvec_eq(&x->b_input_density, &y->b_input_density) &&
           bitvec_eq(&x->b_aux_density, &y->b_aux_density);
}

/* ------------------------------------------------------------------------------------------
 * The shape recorder backend
 * ---------------------------------------------------------------------------------------- */

/* Room for row pointer `rows` + 1 (row_ptr[0] = 0 from the first, zeroing, reserve). */
static bool shp_row_room(shp_matrix *m, size_t rows)
{
    return cs_vec_reserve((void **)&m->row_ptr, &m->rp_cap, rows + 2, sizeof(uint32_t), true);
}

static bool shp_nz_room(shp_matrix *m, size_t need)
{
    if (need <= m->nz_cap) {
        return true;
    }
    size_t cc = m->nz_cap, ck = m->nz_cap;
    if (!cs_vec_reserve((void **)&m->col, &cc, need, sizeof(uint32_t), false) ||
        !cs_vec_reserve((void **)&m->coef, &ck, need, sizeof(uint16_t), false)) {
        return false;
    }
    m->nz_cap = cc < ck ? cc : ck;
    return true;
}

/* Room for `add` more non-zeros after `rows` rows of matrix k; false after a sticky error. */
static bool shp_room(cs_t *cs, shp_matrix *m, int k, size_t rows, size_t add)
{
    if (add > UINT32_MAX - m->nnz) {
        cs_set_err(cs, CUZK_E_INVAL, "shape: matrix %s would hold more than 2^32 - 1 non-zeros",
                   shp_name[k]);
        return false;
    }
    if (!shp_row_room(m, rows) || !shp_nz_room(m, m->nnz + add)) {
        cs_set_err(cs, CUZK_E_NOMEM, "shape: matrix %s, %zu rows, %zu non-zeros", shp_name[k], rows,
                   m->nnz + add);
        return false;
    }
    return true;
}

static cuzk_err shape_init(cs_t *cs, const cs_counts_t *hint, const void *arg)
{
    shape_rec *r = cz_calloc(1, sizeof(*r));

    (void)arg;
    if (!r) {
        return CUZK_E_NOMEM;
    }
    cs->be = r;
    size_t rows = hint ? hint->num_constraints + hint->num_inputs : 0;
    for (int k = 0; k < 3; k++) {
        if (!shp_row_room(&r->m[k], rows)) {
            return CUZK_E_NOMEM;
        }
    }
    return dict_init(&r->dict) ? CUZK_OK : CUZK_E_NOMEM;
}

static void shape_destroy(cs_t *cs)
{
    shape_rec *r = cs->be;
    if (!r) {
        return;
    }
    for (int k = 0; k < 3; k++) {
        cz_free(r->m[k].row_ptr);
        cz_free(r->m[k].col);
        cz_free(r->m[k].coef);
    }
    dict_clear(&r->dict);
    cs_shape_clear(&r->shape);
    cz_free(r);
    cs->be = NULL;
}

static void shp_lc(cs_t *cs, shape_rec *r, int k, cs_lc_t *lc, size_t row)
{
    shp_matrix *m = &r->m[k];
    const cs_term_t *t;
    size_t n = cs_lc_canonical(cs, lc, &t);

    if (n == SIZE_MAX || !shp_room(cs, m, k, row, n)) {
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t key = cs_term_key(&t[i]);
        uint64_t idx = key & CS_VAR_INDEX_MAX;
        bool aux = (key & CS_VAR_AUX_BIT) != 0;
        if (!cs_key_allocated(cs, key) || idx > SHP_INDEX_MAX) {
            cs_set_err(cs, CUZK_E_INVAL, "constraint %zu uses %s variable %s(%llu)", row,
                       idx > SHP_INDEX_MAX ? "out-of-range (>= 2^31)" : "unallocated",
                       aux ? "Aux" : "Input", (unsigned long long)idx);
            return;
        }
        uint16_t ci = CS_SHAPE_COEF_ONE;
        if (t[i].var & CS_TERM_MONE_BIT) {
            ci = CS_SHAPE_COEF_MINUS_ONE;
        } else if (!(t[i].var & CS_TERM_ONE_BIT)) {
            cuzk_err err = dict_index(&r->dict, &t[i].coeff, &ci);
            if (err != CUZK_OK) {
                cs_set_err(cs, err, "shape: constraint %zu: dictionary %s", row,
                           err == CUZK_E_INVAL ? "passes 65536 distinct coefficients" : "growth");
                return;
            }
        }
        m->col[m->nnz] = aux ? SHP_AUX_TAG | (uint32_t)idx : (uint32_t)idx;
        m->coef[m->nnz] = ci;
        m->nnz++;
    }
    m->row_ptr[row + 1] = (uint32_t)m->nnz;
}

static void shape_enforce(cs_t *cs, cs_lc_t *a, cs_lc_t *b, cs_lc_t *c, const char *label,
                          const char *fmt, va_list *ap)
{
    shape_rec *r = cs->be;
    size_t row = cs->num_constraints;

    (void)label;
    (void)fmt;
    (void)ap;
    shp_lc(cs, r, 0, a, row);
    shp_lc(cs, r, 1, b, row);
    shp_lc(cs, r, 2, c, row);
}

/* Gives up unused capacity (a shape lives as long as its circuit kind is proved). */
static void shp_shrink(shp_matrix *m, size_t rows)
{
    void *p;
    if ((p = cz_realloc(m->row_ptr, (rows + 1) * sizeof(uint32_t))) != NULL) {
        m->row_ptr = p;
    }
    if (m->nnz && (p = cz_realloc(m->col, m->nnz * sizeof(uint32_t))) != NULL) {
        m->col = p;
    }
    if (m->nnz && (p = cz_realloc(m->coef, m->nnz * sizeof(uint16_t))) != NULL) {
        m->coef = p;
    }
}

/* cs_finish: the input-constraint rows (A = Input(i), B = C = empty, groth16.md 4.3), aux
 * columns to num_inputs + index, then the arrays move into r->shape with the densities. */
static cuzk_err shape_finish(cs_t *cs, cz_diag *dg)
{
    shape_rec *r = cs->be;
    size_t ni = cs->num_inputs, rows = cs->num_constraints + ni;
    cs_shape_matrix_t *dst[3] = {&r->shape.A, &r->shape.B, &r->shape.C};

    if ((uint64_t)ni + cs->num_aux > (UINT64_C(1) << 32)) {
        return cz_fail(dg, CUZK_E_INVAL, "shape: %zu inputs + %zu aux do not fit 32-bit columns",
                       ni, cs->num_aux);
    }
    for (int k = 0; k < 3; k++) {
        shp_matrix *m = &r->m[k];
        if (!shp_room(cs, m, k, rows, k == 0 ? ni : 0)) {
            return cz_fail(dg, cs->err, "%s", cs->diag.msg);
        }
        for (size_t i = 0; i < ni; i++) {
            if (k == 0) {
                m->col[m->nnz] = (uint32_t)i;
                m->coef[m->nnz] = CS_SHAPE_COEF_ONE;
                m->nnz++;
            }
            m->row_ptr[cs->num_constraints + i + 1] = (uint32_t)m->nnz;
        }
        for (size_t z = 0; z < m->nnz; z++) {
            uint32_t c = m->col[z];
            if (c & SHP_AUX_TAG) {
                m->col[z] = (uint32_t)(ni + (c & SHP_INDEX_MAX));
            }
        }
        shp_shrink(m, rows);
        *dst[k] = (cs_shape_matrix_t){rows, m->nnz, m->row_ptr, m->col, m->coef};
        memset(m, 0, sizeof(*m));
    }
    r->shape.num_inputs = ni;
    r->shape.num_aux = cs->num_aux;
    r->shape.num_constraints = cs->num_constraints;
    r->shape.dict = r->dict.vals;
    r->shape.dict_len = r->dict.len;
    r->dict.vals = NULL;
    dict_clear(&r->dict);
    if (!cs_shape_densities(&r->shape)) {
        return cz_fail(dg, CUZK_E_NOMEM, "shape: densities");
    }
    r->done = true;
    return CUZK_OK;
}

/* Appends child's rows to parent's (cs_extend when !fork, cs_join when fork), moving the
 * child's own variables to where they land in the parent and its coefficients into the
 * parent's dictionary. Both column shifts are upwards and keep own variables above the
 * parent's, so rows stay sorted. */
static cuzk_err shp_append(cs_t *parent, cs_t *child, bool fork, cz_diag *dg)
{
    shape_rec *p = parent->be, *q = child->be;
    size_t rows = child->num_constraints, base_row = parent->num_constraints;
    uint16_t *tr = cz_malloc(q->dict.len * sizeof(uint16_t));
    cuzk_err err = CUZK_OK;

    if (!tr) {
        return cz_fail(dg, CUZK_E_NOMEM, "shape: join dictionary");
    }
    for (size_t i = 0; i < q->dict.len && err == CUZK_OK; i++) {
        err = dict_index(&p->dict, &q->dict.vals[i], &tr[i]);
    }
    if (err != CUZK_OK) {
        cz_free(tr);
        return cz_fail(dg, err, "shape: joined dictionary %s",
                       err == CUZK_E_INVAL ? "passes 65536 distinct coefficients" : "growth");
    }
    /* The child's own variables are aux from aux_lo and inputs from in_lo (extend: its ONE
     * stays 0); they follow the parent's. */
    uint64_t aux_lo = fork ? child->aux_base : 0, in_lo = fork ? child->in_base : 1;
    for (int k = 0; k < 3 && err == CUZK_OK; k++) {
        shp_matrix *pm = &p->m[k], *qm = &q->m[k];
        size_t base_nz = pm->nnz;
        if (!shp_room(parent, pm, k, base_row + rows, qm->nnz)) {
            err = cz_fail(dg, parent->err, "%s", parent->diag.msg);
            break;
        }
        for (size_t z = 0; z < qm->nnz; z++) {
            uint64_t c = qm->col[z], idx = c & SHP_INDEX_MAX;
            if ((c & SHP_AUX_TAG) && idx >= aux_lo) {
                idx = parent->num_aux + (idx - aux_lo);
            } else if (!(c & SHP_AUX_TAG) && idx >= in_lo) {
                idx = parent->num_inputs + (idx - in_lo);
            }
            if (idx > SHP_INDEX_MAX) {
                err = cz_fail(dg, CUZK_E_INVAL, "shape: a variable index passes 2^31 - 1");
                break;
            }
            pm->col[base_nz + z] = (uint32_t)idx | (uint32_t)(c & SHP_AUX_TAG);
            pm->coef[base_nz + z] = tr[qm->coef[z]];
        }
        if (err != CUZK_OK) {
            break;
        }
        pm->nnz += qm->nnz;
        for (size_t j = 0; j < rows; j++) {
            pm->row_ptr[base_row + j + 1] = (uint32_t)(base_nz + qm->row_ptr[j + 1]);
        }
    }
    cz_free(tr);
    return err;
}

static cuzk_err shape_extend(cs_t *parent, cs_t *child, cz_diag *dg)
{
    return shp_append(parent, child, false, dg);
}

static cuzk_err shape_join(cs_t *parent, cs_t *child, cz_diag *dg)
{
    return shp_append(parent, child, true, dg);
}

const cs_ops cs_ops_shape = {
    .kind = CS_KIND_SHAPE,
    .name = "shape",
    .needs_lcs = true,
    .has_values = false,
    .wants_labels = false,
    .can_extend = true,
    .init = shape_init,
    .enforce = shape_enforce,
    .finish = shape_finish,
    .extend = shape_extend,
    .destroy = shape_destroy,
    .fork_reserve = NULL,
    .fork = NULL,
    .join = shape_join,
};

cuzk_err cs_new_shape_recorder(cs_t **out, const cs_counts_t *hint, cz_diag *dg)
{
    return cs_new_with(out, &cs_ops_shape, hint, NULL, dg);
}

cuzk_err cs_take_shape(cs_t *cs, cs_shape_t *out, cz_diag *dg)
{
    memset(out, 0, sizeof(*out));
    if (cs->ops != &cs_ops_shape) {
        return cz_fail(dg, CUZK_E_INVAL, "cs_take_shape: a %s cs records no shape", cs->ops->name);
    }
    shape_rec *r = cs->be;
    if (!cs->finished || cs->err != CUZK_OK || !r->done || r->taken) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "cs_take_shape: cs not finished successfully or already taken");
    }
    *out = r->shape;
    memset(&r->shape, 0, sizeof(r->shape));
    r->taken = true;
    return CUZK_OK;
}

/* ------------------------------------------------------------------------------------------
 * From a recorded cs_r1cs_t
 * ---------------------------------------------------------------------------------------- */

static bool shp_alloc_matrix(cs_shape_matrix_t *m, size_t rows, size_t nnz)
{
    m->rows = rows;
    m->nnz = nnz;
    m->row_ptr = cz_malloc((rows + 1) * sizeof(uint32_t));
    m->col = cz_malloc(nnz * sizeof(uint32_t));
    m->coef = cz_malloc(nnz * sizeof(uint16_t));
    return m->row_ptr && m->col && m->coef;
}

cuzk_err cs_shape_from_r1cs(cs_shape_t *out, const cs_r1cs_t *r1cs, cz_diag *dg)
{
    const cs_matrix_t *src[3] = {&r1cs->A, &r1cs->B, &r1cs->C};
    cs_shape_matrix_t *dst[3] = {&out->A, &out->B, &out->C};
    size_t rows = r1cs->num_constraints + r1cs->num_inputs;
    uint64_t ncols = (uint64_t)r1cs->num_inputs + r1cs->num_aux;
    shp_dict d;
    cuzk_err err = CUZK_OK;

    memset(out, 0, sizeof(*out));
    for (int k = 0; k < 3; k++) {
        if (src[k]->rows != rows || src[k]->nnz > UINT32_MAX || ncols > (UINT64_C(1) << 32)) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "cs_shape_from_r1cs: matrix %s (%zu rows, %zu non-zeros) does not fit "
                           "%zu rows, 2^32 - 1 non-zeros and 32-bit columns",
                           shp_name[k], src[k]->rows, src[k]->nnz, rows);
        }
    }
    if (!dict_init(&d)) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_shape_from_r1cs: dictionary");
    }
    for (int k = 0; k < 3; k++) {
        if (!shp_alloc_matrix(dst[k], rows, src[k]->nnz)) {
            err = cz_fail(dg, CUZK_E_NOMEM, "cs_shape_from_r1cs: matrix %s", shp_name[k]);
            goto done;
        }
        dst[k]->row_ptr[0] = 0;
    }
    /* Row by row, A then B then C: the recorder's order of first use. */
    for (size_t r = 0; r < rows; r++) {
        for (int k = 0; k < 3; k++) {
            const cs_matrix_t *m = src[k];
            for (size_t z = m->row_ptr[r]; z < m->row_ptr[r + 1]; z++) {
                if (m->col[z] >= ncols) {
                    err = cz_fail(dg, CUZK_E_INVAL, "cs_shape_from_r1cs: column %llu out of range",
                                  (unsigned long long)m->col[z]);
                    goto done;
                }
                dst[k]->col[z] = (uint32_t)m->col[z];
                if ((err = dict_index(&d, &m->val[z], &dst[k]->coef[z])) != CUZK_OK) {
                    err = cz_fail(dg, err, "cs_shape_from_r1cs: dictionary %s",
                                  err == CUZK_E_INVAL ? "passes 65536 distinct coefficients"
                                                      : "growth");
                    goto done;
                }
            }
            dst[k]->row_ptr[r + 1] = (uint32_t)m->row_ptr[r + 1];
        }
    }
    out->num_inputs = r1cs->num_inputs;
    out->num_aux = r1cs->num_aux;
    out->num_constraints = r1cs->num_constraints;
    out->dict = d.vals;
    out->dict_len = d.len;
    d.vals = NULL;
    if (!cs_shape_densities(out)) {
        err = cz_fail(dg, CUZK_E_NOMEM, "cs_shape_from_r1cs: densities");
    }
done:
    dict_clear(&d);
    if (err != CUZK_OK) {
        cs_shape_clear(out);
    }
    return err;
}
