/* setup.c - parameter generation for our own test parameters (spec groth16.md 7), in the
 * official file layout.
 *
 * Steps: draw alpha, beta, gamma, delta, tau (non-zero; tau redrawn while Z(tau) = 0 or a
 * structurally present variable evaluates to 0); powers tau^i; h scalars tau^i Z(tau) / delta;
 * Lagrange values lag[q] = L_q(tau) as the inverse NTT of the powers (poly/); per variable
 * A_v, B_v, C_v = sum coeff * lag[row] by walking the CSR rows; the scalars of ic, l, a, b;
 * finally every point is one fixed-base multiplication of the standard generator.
 *
 * Fixed-base multiplication: signed windows of FB_W bits. For window i the table holds
 * d * 2^(FB_W i) * G for d = 1 .. 2^(FB_W-1) (affine), so [k]G is the sum of one table entry
 * (or its negation) per non-zero digit: 26 mixed additions for a 255-bit scalar. The tables
 * (13312 points: 1.3 MB for G1, 2.6 MB for G2) are built once per call; the multiplications
 * are spread over the pool in chunks that end in one batched affine conversion.
 */
#include "groth16/groth16.h"

#include <string.h>

#include "common/rand.h"
#include "groth16/internal.h"
#include "poly/poly.h"

#define FB_W     10
#define FB_HALF  (1u << (FB_W - 1))
#define FB_NWIN  26 /* 26 windows of 10 bits cover 260 bits: a 255-bit scalar plus the carry */
#define FB_SIZE  ((size_t)FB_NWIN * FB_HALF)
#define FB_CHUNK 128

/* Signed digits of a canonical scalar (< 2^255): k = sum_i d[i] 2^(FB_W i), |d[i]| <= FB_HALF. */
static void fb_recode(int d[FB_NWIN], const fr_repr_t *k)
{
    unsigned carry = 0;

    for (unsigned i = 0; i < FB_NWIN; i++) {
        size_t bit = (size_t)FB_W * i;
        unsigned v = 0;

        for (unsigned j = 0; j < FB_W; j++) {
            size_t b = bit + j;
            if (b < 256) {
                v |= (unsigned)((k->l[b / 64] >> (b % 64)) & 1u) << j;
            }
        }
        v += carry;
        if (v > FB_HALF) {
            d[i] = (int)v - (int)(1u << FB_W);
            carry = 1;
        } else {
            d[i] = (int)v;
            carry = 0;
        }
    }
    CZ_CHECK(carry == 0);
}

/* Builds the G1 table: tab[i * FB_HALF + (d - 1)] = d 2^(FB_W i) G. */
static cuzk_err fb_table_g1(g1_aff_t **out, const g1_aff_t *gen, cz_diag *dg)
{
    g1_t *jac = cz_malloc(FB_SIZE * sizeof(g1_t));
    fp_t *scratch = cz_malloc(FB_SIZE * sizeof(fp_t));
    g1_aff_t *tab = cz_malloc(FB_SIZE * sizeof(g1_aff_t));
    g1_t base;

    *out = NULL;
    if (!jac || !scratch || !tab) {
        cz_free(jac);
        cz_free(scratch);
        cz_free(tab);
        return cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory for a fixed-base table");
    }
    g1_from_aff(&base, gen);
    for (size_t i = 0; i < FB_NWIN; i++) {
        g1_t *row = jac + i * FB_HALF;
        row[0] = base;
        for (size_t d = 1; d < FB_HALF; d++) {
            g1_add(&row[d], &row[d - 1], &base);
        }
        for (unsigned j = 0; j < FB_W; j++) {
            g1_dbl(&base, &base);
        }
    }
    g1_batch_to_aff(tab, jac, FB_SIZE, scratch);
    cz_free(jac);
    cz_free(scratch);
    *out = tab;
    return CUZK_OK;
}

static cuzk_err fb_table_g2(g2_aff_t **out, const g2_aff_t *gen, cz_diag *dg)
{
    g2_t *jac = cz_malloc(FB_SIZE * sizeof(g2_t));
    fp2_t *scratch = cz_malloc(FB_SIZE * sizeof(fp2_t));
    g2_aff_t *tab = cz_malloc(FB_SIZE * sizeof(g2_aff_t));
    g2_t base;

    *out = NULL;
    if (!jac || !scratch || !tab) {
        cz_free(jac);
        cz_free(scratch);
        cz_free(tab);
        return cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory for a fixed-base table");
    }
    g2_from_aff(&base, gen);
    for (size_t i = 0; i < FB_NWIN; i++) {
        g2_t *row = jac + i * FB_HALF;
        row[0] = base;
        for (size_t d = 1; d < FB_HALF; d++) {
            g2_add(&row[d], &row[d - 1], &base);
        }
        for (unsigned j = 0; j < FB_W; j++) {
            g2_dbl(&base, &base);
        }
    }
    g2_batch_to_aff(tab, jac, FB_SIZE, scratch);
    cz_free(jac);
    cz_free(scratch);
    *out = tab;
    return CUZK_OK;
}

typedef struct fb_job {
    const void *tab;
    const fr_repr_t *k;
    void *out;
} fb_job_t;

/* [k] G for k = job->k[begin .. end), end - begin <= FB_CHUNK. */
static void fb_chunk_g1(const fb_job_t *job, size_t begin, size_t end)
{
    const g1_aff_t *tab = job->tab;
    g1_t acc[FB_CHUNK];
    fp_t scratch[FB_CHUNK];
    int d[FB_NWIN];

    for (size_t i = begin; i < end; i++) {
        g1_t *a = &acc[i - begin];
        g1_set_identity(a);
        fb_recode(d, &job->k[i]);
        for (unsigned w = 0; w < FB_NWIN; w++) {
            if (d[w] > 0) {
                g1_add_aff(a, a, &tab[w * FB_HALF + (unsigned)d[w] - 1]);
            } else if (d[w] < 0) {
                g1_aff_t neg;
                g1_aff_neg(&neg, &tab[w * FB_HALF + (unsigned)(-d[w]) - 1]);
                g1_add_aff(a, a, &neg);
            }
        }
    }
    g1_batch_to_aff((g1_aff_t *)job->out + begin, acc, end - begin, scratch);
}

static void fb_task_g1(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    /* a pool may hand out any range (NULL pool: all of it at once) */
    for (size_t b = begin; b < end; b += FB_CHUNK) {
        fb_chunk_g1(ctx, b, end - b < FB_CHUNK ? end : b + FB_CHUNK);
    }
}

/* [k] G for k = job->k[begin .. end), end - begin <= FB_CHUNK. */
static void fb_chunk_g2(const fb_job_t *job, size_t begin, size_t end)
{
    const g2_aff_t *tab = job->tab;
    g2_t acc[FB_CHUNK];
    fp2_t scratch[FB_CHUNK];
    int d[FB_NWIN];

    for (size_t i = begin; i < end; i++) {
        g2_t *a = &acc[i - begin];
        g2_set_identity(a);
        fb_recode(d, &job->k[i]);
        for (unsigned w = 0; w < FB_NWIN; w++) {
            if (d[w] > 0) {
                g2_add_aff(a, a, &tab[w * FB_HALF + (unsigned)d[w] - 1]);
            } else if (d[w] < 0) {
                g2_aff_t neg;
                g2_aff_neg(&neg, &tab[w * FB_HALF + (unsigned)(-d[w]) - 1]);
                g2_add_aff(a, a, &neg);
            }
        }
    }
    g2_batch_to_aff((g2_aff_t *)job->out + begin, acc, end - begin, scratch);
}

static void fb_task_g2(void *ctx, size_t begin, size_t end, unsigned worker)
{
    (void)worker;
    /* a pool may hand out any range (NULL pool: all of it at once) */
    for (size_t b = begin; b < end; b += FB_CHUNK) {
        fb_chunk_g2(ctx, b, end - b < FB_CHUNK ? end : b + FB_CHUNK);
    }
}

/* out[i] = [k[i]] G for i < n, G the table's base. */
static void fb_mul_g1(g1_aff_t *out, const g1_aff_t *tab, const fr_repr_t *k, size_t n,
                      cz_pool *pool)
{
    fb_job_t job = {.tab = tab, .k = k, .out = out};
    cz_pool_for(pool, n, FB_CHUNK, fb_task_g1, &job);
}

static void fb_mul_g2(g2_aff_t *out, const g2_aff_t *tab, const fr_repr_t *k, size_t n,
                      cz_pool *pool)
{
    fb_job_t job = {.tab = tab, .k = k, .out = out};
    cz_pool_for(pool, n, FB_CHUNK, fb_task_g2, &job);
}

/* ---- toxic waste ------------------------------------------------------------------------------ */

/* A uniform non-zero element of Fr from the OS CSPRNG (g == NULL) or the seeded test PRNG. */
static cuzk_err draw_nonzero(fr_t *out, cz_prng *g, cz_diag *dg)
{
    for (;;) {
        if (g) {
            uint8_t buf[FR_NBYTES];
            cz_prng_bytes(g, buf, sizeof(buf));
            buf[FR_NBYTES - 1] &= 0x7f;
            bool ok = fr_from_bytes(out, buf) == CUZK_OK;
            cz_memzero(buf, sizeof(buf));
            if (!ok) {
                continue;
            }
        } else {
            cuzk_err err = g16_fr_random(out, dg);
            if (err != CUZK_OK) {
                return err;
            }
        }
        if (!fr_is_zero(out)) {
            return CUZK_OK;
        }
    }
}

/* ---- QAP evaluation ---------------------------------------------------------------------------- */

typedef struct pow_job {
    fr_t *pw;
    const fr_t *tau;
} pow_job_t;

static void pow_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const pow_job_t *job = ctx;
    fr_t x;
    (void)worker;

    fr_pow_u64(&x, job->tau, begin);
    for (size_t i = begin; i < end; i++) {
        job->pw[i] = x;
        fr_mul(&x, &x, job->tau);
    }
}

/* ev[col] += val * lag[row] over the matrix. */
static void eval_matrix(fr_t *ev, const cs_matrix_t *m, const fr_t *lag)
{
    for (size_t row = 0; row < m->rows; row++) {
        for (size_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
            fr_t t;
            fr_mul(&t, &m->val[k], &lag[row]);
            fr_add(&ev[m->col[k]], &ev[m->col[k]], &t);
        }
    }
}

/* True iff every column present in m has a non-zero evaluation. */
static bool present_nonzero(const cs_matrix_t *m, const fr_t *ev)
{
    for (size_t k = 0; k < m->nnz; k++) {
        if (fr_is_zero(&ev[m->col[k]])) {
            return false;
        }
    }
    return true;
}

static cuzk_err check_matrix(const cs_matrix_t *m, const char *name, size_t rows, size_t ncols,
                             cz_diag *dg)
{
    if (m->rows != rows) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "setup: matrix %s has %zu rows, the counts give %zu (constraints + "
                       "input constraints)",
                       name, m->rows, rows);
    }
    if (m->row_ptr[0] != 0 || m->row_ptr[rows] != m->nnz) {
        return cz_fail(dg, CUZK_E_INVAL, "setup: matrix %s has inconsistent row pointers", name);
    }
    for (size_t r = 0; r < rows; r++) {
        if (m->row_ptr[r + 1] < m->row_ptr[r]) {
            return cz_fail(dg, CUZK_E_INVAL, "setup: matrix %s row %zu has negative length", name,
                           r);
        }
    }
    for (size_t k = 0; k < m->nnz; k++) {
        if (m->col[k] >= ncols) {
            return cz_fail(dg, CUZK_E_INVAL, "setup: matrix %s refers to column %llu of %zu", name,
                           (unsigned long long)m->col[k], ncols);
        }
    }
    return CUZK_OK;
}

/* Fails for a variable that occurs in no matrix (spec 7: UnconstrainedVariable). */
static cuzk_err check_constrained(const cs_r1cs_t *r1cs, cz_diag *dg)
{
    size_t ncols = r1cs->num_inputs + r1cs->num_aux;
    uint64_t *seen = cz_calloc(ncols / 64 + 1, sizeof(uint64_t));
    const cs_matrix_t *mats[3] = {&r1cs->A, &r1cs->B, &r1cs->C};
    cuzk_err err = CUZK_OK;

    if (!seen) {
        return cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
    }
    for (int k = 0; k < 3; k++) {
        for (size_t e = 0; e < mats[k]->nnz; e++) {
            seen[mats[k]->col[e] / 64] |= UINT64_C(1) << (mats[k]->col[e] % 64);
        }
    }
    for (size_t c = 0; c < ncols; c++) {
        if (!((seen[c / 64] >> (c % 64)) & 1)) {
            if (c < r1cs->num_inputs) {
                err = cz_fail(dg, CUZK_E_INVAL,
                              "setup: input %zu occurs in no constraint (unconstrained)", c);
            } else {
                err = cz_fail(dg, CUZK_E_INVAL,
                              "setup: aux variable %zu occurs in no constraint (unconstrained)",
                              c - r1cs->num_inputs);
            }
            break;
        }
    }
    cz_free(seen);
    return err;
}

/* All the secret intermediate vectors of one setup; wiped before they are freed. */
typedef struct setup_work {
    cz_buf pw; /* n: tau^i, then L_i(tau) */
    cz_buf ev; /* 3 ncols: A_v, B_v, C_v */
    cz_buf sc; /* scalars: h (n-1), ic, l, a, b (canonical) */
} setup_work_t;

static void work_free(setup_work_t *w)
{
    cz_buf *bufs[3] = {&w->pw, &w->ev, &w->sc};
    for (int i = 0; i < 3; i++) {
        if (bufs[i]->ptr) {
            cz_memzero(bufs[i]->ptr, bufs[i]->len);
        }
        cz_buf_free(bufs[i]);
    }
}

cuzk_err g16_setup_with_waste(g16_params_t **out, g16_toxic_t *waste, const cs_r1cs_t *r1cs,
                              const uint64_t *seed, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g16_params_t *p = NULL;
    setup_work_t w;
    g1_aff_t *tab1 = NULL;
    g2_aff_t *tab2 = NULL;
    cz_prng prng, *g = NULL;
    g16_toxic_t tw;
    ntt_domain_t dom;
    cz_buf tw_buf = {0};
    size_t ni = r1cs->num_inputs, na = r1cs->num_aux, ncols = ni + na;
    size_t m = r1cs->A.rows, n, a_len = 0, b_len = 0;
    unsigned lg = 0;
    fr_t *pw, *At, *Bt, *Ct, z, dinv, ginv, t, u;
    fr_repr_t *sc_h, *sc_ic, *sc_l, *sc_a, *sc_b;
    bool good = false;

    *out = NULL;
    memset(&w, 0, sizeof(w));
    memset(&tw, 0, sizeof(tw));
    if (ni < 1) {
        return cz_fail(dg, CUZK_E_INVAL, "setup: the circuit has no ONE input");
    }
    CZ_TRY(err, check_matrix(&r1cs->A, "A", r1cs->num_constraints + ni, ncols, dg), done);
    CZ_TRY(err, check_matrix(&r1cs->B, "B", r1cs->num_constraints + ni, ncols, dg), done);
    CZ_TRY(err, check_matrix(&r1cs->C, "C", r1cs->num_constraints + ni, ncols, dg), done);
    CZ_TRY(err, check_constrained(r1cs, dg), done);
    if (!ntt_lg_for(&lg, m)) {
        err = cz_fail(dg, CUZK_E_INVAL, "setup: %zu constraints exceed the largest domain", m);
        goto done;
    }
    n = (size_t)1 << lg;

    CZ_TRY(err, cz_buf_new(&tw_buf, ntt_domain_tw_sizeof(lg), dg), done);
    CZ_CHECK(ntt_domain_init(&dom, lg, tw_buf.ptr, pool));
    CZ_TRY(err, cz_buf_new(&w.pw, n * sizeof(fr_t), dg), done);
    CZ_TRY(err, cz_buf_new(&w.ev, 3 * ncols * sizeof(fr_t), dg), done);
    CZ_TRY(err, cz_buf_new(&w.sc, (n - 1 + 3 * ncols) * sizeof(fr_repr_t), dg), done);
    pw = w.pw.ptr;
    At = w.ev.ptr;
    Bt = At + ncols;
    Ct = Bt + ncols;
    sc_h = w.sc.ptr;
    sc_ic = sc_h + (n - 1);
    sc_l = sc_ic + ni;
    sc_a = sc_l + na;
    sc_b = sc_a + ncols;

    if (seed) {
        cz_prng_seed(&prng, *seed);
        g = &prng;
    }
    CZ_TRY(err, draw_nonzero(&tw.alpha, g, dg), done);
    CZ_TRY(err, draw_nonzero(&tw.beta, g, dg), done);
    CZ_TRY(err, draw_nonzero(&tw.gamma, g, dg), done);
    CZ_TRY(err, draw_nonzero(&tw.delta, g, dg), done);
    fr_inv(&dinv, &tw.delta);
    fr_inv(&ginv, &tw.gamma);

    for (int attempt = 0; attempt < 16 && !good; attempt++) {
        pow_job_t pj;

        CZ_TRY(err, draw_nonzero(&tw.tau, g, dg), done);
        pj.pw = pw;
        pj.tau = &tw.tau;
        cz_pool_for(pool, n, 4096, pow_task, &pj);
        fr_pow_u64(&z, &tw.tau, n);
        fr_sub(&z, &z, &FR_ONE); /* Z(tau) = tau^n - 1 */
        if (fr_is_zero(&z)) {
            continue;
        }
        /* h[i] = tau^i Z(tau) / delta */
        fr_mul(&u, &z, &dinv);
        for (size_t i = 0; i + 1 < n; i++) {
            fr_mul(&t, &pw[i], &u);
            fr_to_repr(&sc_h[i], &t);
        }
        ntt_inv(&dom, pw, pool); /* pw[q] = L_q(tau) */
        memset(w.ev.ptr, 0, w.ev.len);
        eval_matrix(At, &r1cs->A, pw);
        eval_matrix(Bt, &r1cs->B, pw);
        eval_matrix(Ct, &r1cs->C, pw);
        if (!present_nonzero(&r1cs->A, At) || !present_nonzero(&r1cs->B, Bt) ||
            !present_nonzero(&r1cs->C, Ct)) {
            continue;
        }
        /* ic / l: (beta A_v + alpha B_v + C_v) / gamma resp. / delta; a, b: value-filtered */
        good = true;
        a_len = 0;
        b_len = 0;
        for (size_t v = 0; v < ncols && good; v++) {
            fr_mul(&t, &tw.beta, &At[v]);
            fr_mul(&u, &tw.alpha, &Bt[v]);
            fr_add(&t, &t, &u);
            fr_add(&t, &t, &Ct[v]);
            fr_mul(&t, &t, v < ni ? &ginv : &dinv);
            if (fr_is_zero(&t)) {
                good = false; /* a present variable cancelled out: redraw tau */
                break;
            }
            fr_to_repr(v < ni ? &sc_ic[v] : &sc_l[v - ni], &t);
            if (!fr_is_zero(&At[v])) {
                fr_to_repr(&sc_a[a_len++], &At[v]);
            } else if (v < ni) {
                good = false; /* inputs are always A-dense (input constraints, spec 4.3) */
            }
            if (!fr_is_zero(&Bt[v])) {
                fr_to_repr(&sc_b[b_len++], &Bt[v]);
            }
        }
    }
    if (!good) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "setup: no usable tau in 16 draws (degenerate circuit: are the input "
                      "constraints present?)");
        goto done;
    }

    p = cz_calloc(1, sizeof(*p));
    if (!p) {
        err = cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
        goto done;
    }
    CZ_TRY(err, g16_params_alloc(p, ni, n - 1, na, a_len, b_len, b_len, dg), done);
    CZ_TRY(err, fb_table_g1(&tab1, &G1_GEN, dg), done);
    CZ_TRY(err, fb_table_g2(&tab2, &G2_GEN, dg), done);
    {
        /* the six VK points */
        fr_repr_t k[6];
        g1_aff_t o1[3];
        g2_aff_t o2[3];

        fr_to_repr(&k[0], &tw.alpha);
        fr_to_repr(&k[1], &tw.beta);
        fr_to_repr(&k[2], &tw.delta);
        fb_mul_g1(o1, tab1, k, 3, NULL);
        fr_to_repr(&k[3], &tw.beta);
        fr_to_repr(&k[4], &tw.gamma);
        fr_to_repr(&k[5], &tw.delta);
        fb_mul_g2(o2, tab2, k + 3, 3, NULL);
        p->vk.alpha_g1 = o1[0];
        p->vk.beta_g1 = o1[1];
        p->vk.delta_g1 = o1[2];
        p->vk.beta_g2 = o2[0];
        p->vk.gamma_g2 = o2[1];
        p->vk.delta_g2 = o2[2];
        cz_memzero(k, sizeof(k));
    }
    fb_mul_g1(p->vk.ic, tab1, sc_ic, ni, pool);
    fb_mul_g1(p->h, tab1, sc_h, n - 1, pool);
    fb_mul_g1(p->l, tab1, sc_l, na, pool);
    fb_mul_g1(p->a, tab1, sc_a, a_len, pool);
    fb_mul_g1(p->b_g1, tab1, sc_b, b_len, pool);
    fb_mul_g2(p->b_g2, tab2, sc_b, b_len, pool);
    if (waste) {
        *waste = tw;
    }
    *out = p;
    p = NULL;
done:
    cz_memzero(&tw, sizeof(tw));
    cz_memzero(&dinv, sizeof(dinv));
    cz_memzero(&ginv, sizeof(ginv));
    cz_memzero(&t, sizeof(t));
    cz_memzero(&u, sizeof(u));
    cz_memzero(&z, sizeof(z));
    cz_memzero(&prng, sizeof(prng));
    work_free(&w);
    cz_buf_free(&tw_buf);
    cz_free(tab1);
    cz_free(tab2);
    g16_params_free(p);
    return err;
}

cuzk_err g16_setup(g16_params_t **out, const cs_r1cs_t *r1cs, const uint64_t *seed, cz_pool *pool,
                   cz_diag *dg)
{
    return g16_setup_with_waste(out, NULL, r1cs, seed, pool, dg);
}
