/* shape_eval.c - the compact shape's sparse products: a = A w, b = B w, c = C w for a witness
 * w = (inputs || aux), the per-proof half of the pre-compiled constraint evaluator.
 *
 * Rows go to the pool in chunks of SHP_GRAIN (claimed dynamically, so a slow core takes fewer);
 * a chunk evaluates its rows of every matrix, whose columns touch witness values 1K to 8K values
 * before the row (a 512 MiB PoRep): 32 to 256 KiB back, out of L1.
 * With the caller's scratch, a first pass marks every value 0, 1 or other (a byte each); a row
 * of Boolean values then reads those bytes (in L1) instead of the 32-byte values: a short row
 * with small integer coefficients sums as an integer (row_small), a long one adds its masked
 * coefficients without reductions (row_wide). Other rows, and every row without scratch, go
 * term by term through the field (rows_dot).
 * Nothing is allocated while evaluating. Field results are canonical, so the sums equal the
 * prover backend's bit for bit whatever the order and grouping of the terms.
 */
#include "r1cs/internal.h"

#if defined(__SSE2__)
#    include <emmintrin.h>
#endif

/* Rows per pool chunk: ~100 us of work, small next to a 130M-row circuit, large next to the
 * cost of claiming a chunk. */
#define SHP_GRAIN 8192

/* Sums of Boolean terms with small coefficients, |sum| <= SHP_SMALL_TAB, come from a table. */
#define SHP_SMALL_TAB  16
/* A coefficient that is no small integer (small_value). */
#define SHP_NOT_SMALL  INT32_MIN
/* Small coefficients: |c| < 2^SHP_SMALL_BITS, so that a short row's sum fits an int64. */
#define SHP_SMALL_BITS 24

typedef struct shp_mul {
    const cs_shape_matrix_t *m[3];
    fr_t *out[3];
    int nm;
    const fr_t *dict, *inputs, *aux;
    size_t ni;
    /* With scratch (NULL otherwise): the kind of every value of w (CS_VK_*), the dictionary's
     * small integers (SHP_NOT_SMALL for the others) and the elements -SHP_SMALL_TAB ..
     * SHP_SMALL_TAB. */
    const uint8_t *kinds;
    const int32_t *small;
    fr_t small_tab[2 * SHP_SMALL_TAB + 1];
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

/* Rows of at least SHP_LONG terms: mostly the bit-packing sums (hundreds of terms 2^e b). */
#define SHP_LONG 8

/* w[c] for w = inputs || aux (ni inputs). */
static inline const fr_t *value_in(const fr_t *inputs, const fr_t *aux, size_t ni, size_t c)
{
    return CZ_LIKELY(c >= ni) ? &aux[c - ni] : &inputs[c];
}

static inline const fr_t *value_at(const shp_mul *x, uint32_t c)
{
    return value_in(x->inputs, x->aux, x->ni, c);
}

/* *out = the element v, for |v| < 2^63. */
static void small_element(fr_t *out, const shp_mul *x, int64_t v)
{
    if (CZ_LIKELY(v >= -SHP_SMALL_TAB && v <= SHP_SMALL_TAB)) {
        *out = x->small_tab[v + SHP_SMALL_TAB];
        return;
    }
    fr_from_u64(out, v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v);
    if (v < 0) {
        fr_neg(out, out);
    }
}

/* One row of fewer than SHP_LONG terms whose values are all 0 or 1 and whose coefficients are
 * all small integers: its sum is a small integer, computed with integer arithmetic and the
 * value kinds alone (a byte per value, in L1, instead of 32). False, *out untouched, for any
 * other row. */
static inline bool row_small(fr_t *out, const shp_mul *x, const uint32_t *col, const uint16_t *coef,
                             size_t n)
{
    int64_t v = 0;
    unsigned bad = 0;

    for (size_t i = 0; i < n; i++) {
        unsigned kd = x->kinds[col[i]];
        int32_t s = x->small[coef[i]];
        bad |= (kd >> 1) | (unsigned)(s == SHP_NOT_SMALL);
        v += (int64_t)s * (int64_t)(kd & 1);
    }
    if (bad) {
        return false;
    }
    small_element(out, x, v);
    return true;
}

/* *out = one long row's sum: its terms added without reductions into an accumulator that stays
 * in registers (fr_wide_t), reduced once. A term on 0 or 1 adds its coefficient masked by the
 * value kind, without loading the value; others add the product (such terms come in whole
 * rows, the Poseidon rounds', so the branch is predictable). */
static void row_wide(fr_t *out, const shp_mul *x, const uint32_t *col, const uint16_t *coef,
                     size_t n)
{
    const fr_t *dict = x->dict;
    fr_wide_t acc = {{0}};

    for (size_t i = 0; i < n; i++) {
        unsigned kd = x->kinds[col[i]];
        uint16_t k = coef[i];
        if (CZ_LIKELY(kd != CS_VK_OTHER)) {
            fr_wide_add_masked(&acc, &dict[k], (uint64_t)0 - (uint64_t)kd);
        } else if (k == CS_SHAPE_COEF_ONE) {
            fr_wide_add_masked(&acc, value_at(x, col[i]), ~(uint64_t)0);
        } else {
            fr_t t;
            fr_mul(&t, &dict[k], value_at(x, col[i]));
            fr_wide_add_masked(&acc, &t, ~(uint64_t)0);
        }
    }
    fr_wide_reduce(out, acc);
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
        if (x->kinds) {
            if (e - z >= SHP_LONG) {
                row_wide(acc, x, col + z, coef + z, e - z);
                continue;
            }
            if (row_small(acc, x, col + z, coef + z, e - z)) {
                continue;
            }
        }
        if (z == e) {
            *acc = FR_ZERO;
            continue;
        }
        const fr_t *w = value_in(inputs, aux, ni, col[z]);
        uint16_t k = coef[z];
        if (e - z >= 2 && k == CS_SHAPE_COEF_ONE && coef[z + 1] <= CS_SHAPE_COEF_MINUS_ONE) {
            /* w + v or w - v in one operation (most rows start so) */
            const fr_t *v = value_in(inputs, aux, ni, col[z + 1]);
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
            term_add(acc, coef[z], value_in(inputs, aux, ni, col[z]), dict);
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
    shp_mul x = {{m, NULL, NULL}, {out, NULL, NULL}, 1, dict, inputs, aux, num_inputs, NULL, NULL,
                 {{{0}}}};

    shp_mul_run(&x, m->rows, pool);
}

/* Values per pool chunk of the kinds pass: ~50 us. */
#define SHP_KIND_GRAIN 65536

typedef struct shp_kinds {
    uint8_t *kinds;
    const fr_t *inputs, *aux;
    size_t ni;
    bool portable; /* the limb loop even where SSE2 is there (tests compare both) */
} shp_kinds;

/* CS_VK_ZERO, CS_VK_ONE or CS_VK_OTHER from "not zero" and "not one". */
static inline uint8_t kind_of(unsigned nz, unsigned n1)
{
    return (uint8_t)(nz + (nz & n1));
}

/* kinds[i] for i in [begin, end) of w, limb by limb; the reference for kinds_sse2. */
static void kinds_portable(const shp_kinds *k, size_t begin, size_t end)
{
    for (size_t i = begin; i < end; i++) {
        const fr_t *w = value_in(k->inputs, k->aux, k->ni, i);
        uint64_t z = w->l[0] | w->l[1] | w->l[2] | w->l[3];
        uint64_t o = (w->l[0] ^ FR_ONE.l[0]) | (w->l[1] ^ FR_ONE.l[1]) | (w->l[2] ^ FR_ONE.l[2]) |
                     (w->l[3] ^ FR_ONE.l[3]);
        k->kinds[i] = kind_of(z != 0, o != 0);
    }
}

#if defined(__SSE2__)
/* The same with two 16-byte compares per value: half the time of the limb loop, whose 64-bit
 * tests dominate this pass over the whole witness. */
static void kinds_sse2(const shp_kinds *k, size_t begin, size_t end)
{
    const __m128i zero = _mm_setzero_si128();
    const __m128i one_lo = _mm_loadu_si128((const __m128i *)(const void *)&FR_ONE.l[0]);
    const __m128i one_hi = _mm_loadu_si128((const __m128i *)(const void *)&FR_ONE.l[2]);

    for (size_t i = begin; i < end; i++) {
        const fr_t *w = value_in(k->inputs, k->aux, k->ni, i);
        const __m128i *p = (const __m128i *)(const void *)w;
        __m128i lo = _mm_loadu_si128(p), hi = _mm_loadu_si128(p + 1);
        __m128i o = _mm_or_si128(_mm_xor_si128(lo, one_lo), _mm_xor_si128(hi, one_hi));
        unsigned nz = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(lo, hi), zero)) != 0xffff;
        unsigned n1 = _mm_movemask_epi8(_mm_cmpeq_epi8(o, zero)) != 0xffff;
        k->kinds[i] = kind_of(nz, n1);
    }
}
#endif

static void kinds_task(void *arg, size_t begin, size_t end, unsigned worker)
{
    const shp_kinds *k = arg;

    (void)worker;
#if defined(__SSE2__)
    if (!k->portable) {
        kinds_sse2(k, begin, end);
        return;
    }
#endif
    kinds_portable(k, begin, end);
}

void cs_value_kinds(uint8_t *kinds, const fr_t *inputs, size_t ni, const fr_t *aux, size_t na,
                    bool portable, cz_pool *pool)
{
    shp_kinds k = {kinds, inputs, aux, ni, portable};

    if (pool) {
        cz_pool_for(pool, ni + na, SHP_KIND_GRAIN, kinds_task, &k);
    } else {
        kinds_task(&k, 0, ni + na, 0);
    }
}

/* The integer c when |c| < 2^SHP_SMALL_BITS, else SHP_NOT_SMALL. */
static int32_t small_value(const fr_t *c)
{
    fr_repr_t r;
    fr_t neg;

    fr_to_repr(&r, c);
    if ((r.l[1] | r.l[2] | r.l[3]) == 0 && r.l[0] < ((uint64_t)1 << SHP_SMALL_BITS)) {
        return (int32_t)r.l[0];
    }
    fr_neg(&neg, c);
    fr_to_repr(&r, &neg);
    if ((r.l[1] | r.l[2] | r.l[3]) == 0 && r.l[0] < ((uint64_t)1 << SHP_SMALL_BITS)) {
        return -(int32_t)r.l[0];
    }
    return SHP_NOT_SMALL;
}

static size_t kinds_bytes(const cs_shape_t *shape)
{
    return (shape->num_inputs + shape->num_aux + 7) & ~(size_t)7;
}

size_t cs_shape_mul_scratch_bytes(const cs_shape_t *shape)
{
    return kinds_bytes(shape) + shape->dict_len * sizeof(int32_t);
}

/* Fills the scratch's value kinds (over the pool) and small coefficients, and x's table. */
static void prepare_scratch(shp_mul *x, const cs_shape_t *shape, void *scratch, cz_pool *pool)
{
    uint8_t *kinds = scratch;
    int32_t *small = (int32_t *)(void *)(kinds + kinds_bytes(shape));
    cs_value_kinds(kinds, x->inputs, shape->num_inputs, x->aux, shape->num_aux, false, pool);
    for (size_t i = 0; i < shape->dict_len; i++) {
        small[i] = small_value(&shape->dict[i]);
    }
    for (int v = 0; v <= SHP_SMALL_TAB; v++) {
        fr_from_u64(&x->small_tab[SHP_SMALL_TAB + v], (uint64_t)v);
        fr_neg(&x->small_tab[SHP_SMALL_TAB - v], &x->small_tab[SHP_SMALL_TAB + v]);
    }
    x->kinds = kinds;
    x->small = small;
}

void cs_shape_mul(const cs_shape_t *shape, fr_t *a, fr_t *b, fr_t *c, const fr_t *inputs,
                  const fr_t *aux, void *scratch, cz_pool *pool)
{
    shp_mul x = {{&shape->A, &shape->B, &shape->C},
                 {a, b, c},
                 3,
                 shape->dict,
                 inputs,
                 aux,
                 shape->num_inputs,
                 NULL,
                 NULL,
                 {{{0}}}};

    if (scratch) {
        prepare_scratch(&x, shape, scratch, pool);
    }
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
    /* without room for the scratch, the products take the path that needs none */
    void *scratch = cz_malloc(cs_shape_mul_scratch_bytes(shape));
    cs_shape_mul(shape, abc[0], abc[1], abc[2], asg->inputs, asg->aux, scratch, pool);
    cz_free(scratch);
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
