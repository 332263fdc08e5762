/* shape_eval.c - the compact shape's sparse products: a = A w, b = B w, c = C w for a witness
 * w = (inputs || aux), the per-proof half of the pre-compiled constraint evaluator.
 *
 * Rows go to the pool in chunks of SHP_GRAIN (claimed dynamically, so a slow core takes fewer);
 * a chunk evaluates its rows of every matrix, whose columns touch neighbouring witness values (in
 * a 512 MiB PoRep most lie 512 to 4,096 values before the row, in the cache), so nothing is
 * prefetched: a prefetch loop ahead of the terms measured no faster.
 * Nothing is allocated while evaluating. Field results are canonical, so the sums equal the
 * prover backend's bit for bit whatever the order and grouping of the terms.
 */
#include "r1cs/internal.h"

/* Rows per pool chunk: ~100 us of work, small next to a 130M-row circuit, large next to the
 * cost of claiming a chunk. */
#define SHP_GRAIN 8192

typedef struct shp_mul {
    const cs_shape_matrix_t *m[3];
    fr_t *out[3];
    int nm;
    const fr_t *dict, *inputs, *aux;
    size_t ni;
} shp_mul;

/* out = k-th coefficient * w. For a value 0 or 1 (most values of Boolean-heavy circuits) the
 * product is 0 or the coefficient, chosen by a mask: a branch on which of the two would
 * mispredict about half the time. */
static inline void coef_times(fr_t *out, uint16_t k, const fr_t *w, const fr_t *dict)
{
    uint64_t z = w->l[0] | w->l[1] | w->l[2] | w->l[3];
    uint64_t o = (w->l[0] ^ FR_ONE.l[0]) | (w->l[1] ^ FR_ONE.l[1]) | (w->l[2] ^ FR_ONE.l[2]) |
                 (w->l[3] ^ FR_ONE.l[3]);

    if (CZ_LIKELY((z < o ? z : o) == 0)) {
        uint64_t mask = (uint64_t)0 - (uint64_t)(o == 0);
        for (int i = 0; i < FR_NLIMBS; i++) {
            out->l[i] = dict[k].l[i] & mask;
        }
    } else {
        fr_mul(out, &dict[k], w);
    }
}

/* acc = k-th coefficient * w, for the first term of a row. */
static inline void term_first(fr_t *acc, uint16_t k, const fr_t *w, const fr_t *dict)
{
    if (k == CS_SHAPE_COEF_ONE) {
        *acc = *w;
    } else if (k == CS_SHAPE_COEF_MINUS_ONE) {
        fr_neg(acc, w);
    } else {
        coef_times(acc, k, w, dict);
    }
}

/* acc += k-th coefficient * w. */
static inline void term_add(fr_t *acc, uint16_t k, const fr_t *w, const fr_t *dict)
{
    if (k == CS_SHAPE_COEF_ONE) {
        fr_add(acc, acc, w);
    } else if (k == CS_SHAPE_COEF_MINUS_ONE) {
        fr_sub(acc, acc, w);
    } else {
        fr_t t;
        coef_times(&t, k, w, dict);
        fr_add(acc, acc, &t);
    }
}

/* out[r] = <row r, w> for r in [begin, end) of one matrix. The first term sets the sum
 * instead of adding to zero; coefficient index 0 adds, 1 subtracts (without looking at the
 * value: a branch on Boolean witness values would mispredict half the time); other
 * coefficients multiply only values other than 0 and 1 (coef_times). */
static void rows_dot(const shp_mul *x, const cs_shape_matrix_t *m, fr_t *out, size_t begin,
                     size_t end)
{
    const uint32_t *rp = m->row_ptr, *col = m->col;
    const uint16_t *coef = m->coef;
    const fr_t *inputs = x->inputs, *aux = x->aux, *dict = x->dict;
    const size_t ni = x->ni;

    for (size_t r = begin; r < end; r++) {
        /* Summed in place: a local copied out at the end would be read back in 16-byte halves
         * right after fr_add wrote it in 8-byte limbs, which stalls store forwarding. */
        fr_t *acc = &out[r];
        size_t z = rp[r], e = rp[r + 1];
        if (z == e) {
            *acc = FR_ZERO;
            continue;
        }
        uint32_t c = col[z];
        const fr_t *w = CZ_LIKELY(c >= ni) ? &aux[c - ni] : &inputs[c];
        uint16_t k = coef[z];
        if (e - z >= 2 && k == CS_SHAPE_COEF_ONE && coef[z + 1] <= CS_SHAPE_COEF_MINUS_ONE) {
            /* w + v or w - v in one operation (most rows start so) */
            uint32_t c1 = col[z + 1];
            const fr_t *v = CZ_LIKELY(c1 >= ni) ? &aux[c1 - ni] : &inputs[c1];
            if (coef[z + 1] == CS_SHAPE_COEF_ONE) {
                fr_add(acc, w, v);
            } else {
                fr_sub(acc, w, v);
            }
            z++;
        } else {
            term_first(acc, k, w, dict);
        }
        for (z++; z < e; z++) {
            c = col[z];
            term_add(acc, coef[z], CZ_LIKELY(c >= ni) ? &aux[c - ni] : &inputs[c], dict);
        }
    }
}

static void shp_mul_task(void *arg, size_t begin, size_t end, unsigned worker)
{
    const shp_mul *x = arg;

    (void)worker;
    for (int j = 0; j < x->nm; j++) {
        rows_dot(x, x->m[j], x->out[j], begin, end);
    }
}

static void shp_mul_run(const shp_mul *x, size_t rows, cz_pool *pool)
{
    if (pool) {
        cz_pool_for(pool, rows, SHP_GRAIN, shp_mul_task, (void *)x);
    } else {
        shp_mul_task((void *)x, 0, rows, 0);
    }
}

void cs_shape_matrix_mul(const cs_shape_matrix_t *m, const fr_t *dict, fr_t *out,
                         const fr_t *inputs, size_t num_inputs, const fr_t *aux, cz_pool *pool)
{
    shp_mul x = {{m, NULL, NULL}, {out, NULL, NULL}, 1, dict, inputs, aux, num_inputs};

    shp_mul_run(&x, m->rows, pool);
}

void cs_shape_mul(const cs_shape_t *shape, fr_t *a, fr_t *b, fr_t *c, const fr_t *inputs,
                  const fr_t *aux, cz_pool *pool)
{
    shp_mul x = {{&shape->A, &shape->B, &shape->C},
                 {a, b, c},
                 3,
                 shape->dict,
                 inputs,
                 aux,
                 shape->num_inputs};

    shp_mul_run(&x, shape->A.rows, pool);
}

static bool bitvec_copy(cs_bitvec_t *dst, const cs_bitvec_t *src)
{
    size_t words = src->len ? (src->len + 63) / 64 : 1;

    dst->words = cz_malloc(words * sizeof(uint64_t));
    if (!dst->words) {
        return false;
    }
    memcpy(dst->words, src->words, words * sizeof(uint64_t));
    dst->len = src->len;
    dst->popcount = src->popcount;
    return true;
}

/* Checks that asg (inputs and aux, no a, b, c) fits the shape; sets *rows. */
static cuzk_err shape_fits(const cs_shape_t *shape, const cs_assignment_t *asg, size_t *rows,
                           const char *fn, cz_diag *dg)
{
    size_t ni = shape->num_inputs, na = shape->num_aux;

    *rows = shape->num_constraints + ni;
    if (asg->num_inputs != ni || asg->num_aux != na || asg->a || asg->b || asg->c ||
        shape->A.rows != *rows || shape->B.rows != *rows || shape->C.rows != *rows) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "%s: assignment (%zu inputs, %zu aux) does not fit the shape "
                       "(%zu inputs, %zu aux, %zu rows) or already holds a, b, c",
                       fn, asg->num_inputs, asg->num_aux, ni, na, *rows);
    }
    return CUZK_OK;
}

/* Moves copies of the shape's densities into asg and sets m; false when out of memory. */
static bool set_densities(const cs_shape_t *shape, cs_assignment_t *asg, size_t rows)
{
    cs_bitvec_t d[3] = {{0}, {0}, {0}};
    const cs_bitvec_t *sd[3] = {&shape->a_aux_density, &shape->b_input_density,
                                &shape->b_aux_density};
    bool ok = true;

    for (int k = 0; k < 3; k++) {
        ok = ok && bitvec_copy(&d[k], sd[k]);
    }
    if (!ok) {
        for (int k = 0; k < 3; k++) {
            cs_bitvec_clear(&d[k]);
        }
        return false;
    }
    cs_bitvec_clear(&asg->a_aux_density);
    cs_bitvec_clear(&asg->b_input_density);
    cs_bitvec_clear(&asg->b_aux_density);
    asg->m = rows;
    asg->a_aux_density = d[0];
    asg->b_input_density = d[1];
    asg->b_aux_density = d[2];
    return true;
}

cuzk_err cs_shape_assign(const cs_shape_t *shape, cs_assignment_t *asg, cz_diag *dg)
{
    size_t rows;
    cuzk_err err = shape_fits(shape, asg, &rows, "cs_shape_assign", dg);

    if (err != CUZK_OK) {
        return err;
    }
    if (!set_densities(shape, asg, rows)) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_shape_assign: densities of %zu aux", asg->num_aux);
    }
    return CUZK_OK;
}

/* a, b, c of rows values each: spare's vectors when it holds them at that length (taken from
 * it), else fresh ones; false when out of memory. */
static bool abc_buffers(fr_t *abc[3], size_t rows, cs_assignment_t *spare)
{
    fr_t **from[3] = {NULL, NULL, NULL};
    bool ok = true;

    if (spare && spare->m == rows) {
        from[0] = &spare->a;
        from[1] = &spare->b;
        from[2] = &spare->c;
    }
    for (int k = 0; k < 3; k++) {
        if (from[k] && *from[k]) {
            abc[k] = *from[k];
            *from[k] = NULL;
            continue;
        }
        abc[k] = cz_malloc((rows ? rows : 1) * sizeof(fr_t));
        ok = ok && abc[k];
        if (abc[k]) {
            cs_advise_huge(abc[k], rows * sizeof(fr_t));
        }
    }
    if (spare && !spare->a && !spare->b && !spare->c) {
        spare->m = 0;
    }
    return ok;
}

cuzk_err cs_shape_products(const cs_shape_t *shape, cs_assignment_t *asg, cz_pool *pool,
                           cz_diag *dg)
{
    return cs_shape_products_reuse(shape, asg, NULL, pool, dg);
}

cuzk_err cs_shape_products_reuse(const cs_shape_t *shape, cs_assignment_t *asg,
                                 cs_assignment_t *spare, cz_pool *pool, cz_diag *dg)
{
    size_t rows = shape->num_constraints + shape->num_inputs;
    fr_t *abc[3] = {NULL, NULL, NULL};

    if (asg->num_inputs != shape->num_inputs || asg->num_aux != shape->num_aux || asg->m != rows ||
        asg->a || asg->b || asg->c) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "cs_shape_products: assignment (%zu inputs, %zu aux, m %zu) is not the "
                       "shape's (%zu, %zu, %zu rows) without a, b, c",
                       asg->num_inputs, asg->num_aux, asg->m, shape->num_inputs, shape->num_aux,
                       rows);
    }
    if (!abc_buffers(abc, rows, spare)) {
        for (int k = 0; k < 3; k++) {
            cz_free(abc[k]);
        }
        return cz_fail(dg, CUZK_E_NOMEM, "cs_shape_products: %zu rows", rows);
    }
    cs_shape_mul(shape, abc[0], abc[1], abc[2], asg->inputs, asg->aux, pool);
    asg->a = abc[0];
    asg->b = abc[1];
    asg->c = abc[2];
    return CUZK_OK;
}

cuzk_err cs_shape_eval(const cs_shape_t *shape, cs_assignment_t *asg, cz_pool *pool, cz_diag *dg)
{
    return cs_shape_eval_reuse(shape, asg, NULL, pool, dg);
}

cuzk_err cs_shape_eval_reuse(const cs_shape_t *shape, cs_assignment_t *asg, cs_assignment_t *spare,
                             cz_pool *pool, cz_diag *dg)
{
    size_t rows;
    cuzk_err err = shape_fits(shape, asg, &rows, "cs_shape_eval", dg);

    if (err != CUZK_OK) {
        return err;
    }
    if (!set_densities(shape, asg, rows)) {
        return cz_fail(dg, CUZK_E_NOMEM, "cs_shape_eval: densities of %zu aux", asg->num_aux);
    }
    return cs_shape_products_reuse(shape, asg, spare, pool, dg);
}
