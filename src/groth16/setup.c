/* setup.c - parameter generation for our own test parameters (spec groth16.md 7), in the
 * official file layout.
 *
 * The circuit arrives as a compact shape (r1cs.h: CSR with dictionary coefficients; g16_setup
 * converts a recorded cs_r1cs_t first). The scalars (g16_qap_run) are shared with the device
 * setup of setup_gpu.c, which makes the same points on a GPU.
 *
 * Steps: draw alpha, beta, gamma, delta, tau (non-zero; tau redrawn while Z(tau) = 0 or a
 * structurally present variable evaluates to 0); powers tau^i over the pool; Lagrange values
 * lag[q] = L_q(tau) as the inverse NTT of the powers (poly/); per variable A_v, B_v, C_v =
 * sum coeff * lag[row]; the scalars of ic, l, a, b; finally every point is a fixed-base
 * multiplication of the standard generator (curve/fixed_base.c: windowed tables, affine
 * additions with batched inversions, spread over the pool).
 *
 * Evaluation over the pool without per-thread copies: the column space is cut into one range
 * per worker (64-column aligned, so the presence bitmaps' words are never shared), and the
 * task of a range walks all rows of A, B and C and keeps only the entries of its columns. Each
 * task re-reads the column indices (cheap, sequential) and owns its slice of the results, so
 * no extra memory is needed and the sums are exact whatever the order. Coefficients +-1 (most
 * of Filecoin's: dictionary entries 0 and 1) are added without a multiplication. The task also
 * records which columns
 * occur, to check that no present variable evaluates to 0.
 *
 * The per-variable scalars are made in place over the pool: C_v's slot receives the ic / l
 * scalar (beta A_v + alpha B_v + C_v) / gamma resp. / delta, A_v's and B_v's slots their
 * canonical form, which one serial pass then compacts into the a and b scalars (the value
 * filter of spec 7). The h scalars tau^i Z(tau) / delta are made per block of H_BLOCK just
 * before their points, so they never exist all at once.
 *
 * Memory besides the parameters: n + 3 ncols field elements (powers / Lagrange values and the
 * evaluations), the n/2 twiddles, column bitmaps, one h block and the two fixed-base tables
 * (48 + 96 MiB at the largest window). Every secret buffer is wiped before it is freed.
 */
#include "groth16/groth16.h"

#include <stdatomic.h>
#include <string.h>
#include <time.h>

#include "common/rand.h"
#include "groth16/internal.h"
#include "poly/poly.h"

#define POW_GRAIN 4096  /* powers per task */
#define VAR_GRAIN 4096  /* variables per task */
#define H_BLOCK   65536 /* h scalars made, then multiplied, at a time */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
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
    cz_memzero(&x, sizeof(x));
}

/* Column-range evaluation of the three matrices (see the file comment). */
typedef struct eval_job {
    const cs_shape_matrix_t *mats[3];
    const fr_t *dict;
    fr_t *ev[3];          /* A_v, B_v, C_v */
    uint64_t *present[3]; /* ncols bits each: the column occurs in the matrix */
    const fr_t *lag;
    size_t ncols, span;     /* range r is [r span, (r + 1) span), span a multiple of 64 */
    atomic_bool degenerate; /* a present column evaluated to 0 */
} eval_job_t;

static void eval_range(eval_job_t *job, size_t lo, size_t hi)
{
    bool degenerate = false;

    for (int x = 0; x < 3; x++) {
        const cs_shape_matrix_t *m = job->mats[x];
        fr_t *ev = job->ev[x];
        uint64_t *pres = job->present[x];
        size_t width = hi - lo;

        memset(ev + lo, 0, width * sizeof(fr_t));
        memset(pres + lo / 64, 0, (width + 63) / 64 * sizeof(uint64_t));
        for (size_t row = 0; row < m->rows; row++) {
            const fr_t *l = &job->lag[row];
            for (size_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
                size_t c = (size_t)m->col[k];
                if (c - lo >= width) { /* also c < lo: unsigned wrap-around */
                    continue;
                }
                pres[c / 64] |= UINT64_C(1) << (c % 64);
                if (m->coef[k] == CS_SHAPE_COEF_ONE) {
                    fr_add(&ev[c], &ev[c], l);
                } else if (m->coef[k] == CS_SHAPE_COEF_MINUS_ONE) {
                    fr_sub(&ev[c], &ev[c], l);
                } else {
                    fr_t t;
                    fr_mul(&t, &job->dict[m->coef[k]], l);
                    fr_add(&ev[c], &ev[c], &t);
                }
            }
        }
        for (size_t c = lo; c < hi; c++) {
            if (((pres[c / 64] >> (c % 64)) & 1) && fr_is_zero(&ev[c])) {
                degenerate = true;
            }
        }
    }
    if (degenerate) {
        atomic_store(&job->degenerate, true);
    }
}

static void eval_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    eval_job_t *job = ctx;
    (void)worker;

    for (size_t r = begin; r < end; r++) {
        size_t lo = r * job->span;
        size_t hi = lo + job->span < job->ncols ? lo + job->span : job->ncols;
        if (lo < hi) {
            eval_range(job, lo, hi);
        }
    }
}

/* The per-variable scalars, in place (see the file comment). */
typedef struct var_job {
    fr_t *At, *Bt, *Ct;
    size_t ni;
    const fr_t *alpha, *beta, *ginv, *dinv;
    atomic_bool bad; /* an ic / l scalar is 0, or an input has A_v = 0 */
} var_job_t;

/* Overwrites the element at p with its canonical form (memcpy: the slot becomes an
 * fr_repr_t). */
static void to_repr_in_place(fr_t *p)
{
    fr_repr_t r;
    fr_to_repr(&r, p);
    memcpy(p, &r, sizeof(r));
    cz_memzero(&r, sizeof(r));
}

static void var_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    var_job_t *job = ctx;
    bool bad = false;
    fr_t t, u;
    (void)worker;

    for (size_t v = begin; v < end; v++) {
        fr_mul(&t, job->beta, &job->At[v]);
        fr_mul(&u, job->alpha, &job->Bt[v]);
        fr_add(&t, &t, &u);
        fr_add(&t, &t, &job->Ct[v]);
        fr_mul(&t, &t, v < job->ni ? job->ginv : job->dinv);
        /* a present variable that cancelled out, or an input that is not A-dense (inputs
         * always are: input constraints, spec 4.3): redraw tau */
        if (fr_is_zero(&t) || (v < job->ni && fr_is_zero(&job->At[v]))) {
            bad = true;
        }
        job->Ct[v] = t;
        to_repr_in_place(&job->Ct[v]);
        to_repr_in_place(&job->At[v]);
        to_repr_in_place(&job->Bt[v]);
    }
    cz_memzero(&t, sizeof(t));
    cz_memzero(&u, sizeof(u));
    if (bad) {
        atomic_store(&job->bad, true);
    }
}

static bool repr_is_zero(const fr_repr_t *r)
{
    return (r->l[0] | r->l[1] | r->l[2] | r->l[3]) == 0;
}

/* Moves the non-zero scalars of v[0 .. n) to the front, in order; returns their number. */
static size_t compact_nonzero(fr_repr_t *v, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        if (!repr_is_zero(&v[i])) {
            if (len != i) {
                v[len] = v[i];
            }
            len++;
        }
    }
    return len;
}

/* h scalars tau^i Z(tau) / delta for i in [base, base + n): out[i - base]. */
typedef struct hsc_job {
    fr_repr_t *out;
    const fr_t *tau, *u; /* u = Z(tau) / delta */
    size_t base;
} hsc_job_t;

static void hsc_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const hsc_job_t *job = ctx;
    fr_t x;
    (void)worker;

    fr_pow_u64(&x, job->tau, job->base + begin);
    fr_mul(&x, &x, job->u);
    for (size_t i = begin; i < end; i++) {
        fr_to_repr(&job->out[i], &x);
        fr_mul(&x, &x, job->tau);
    }
    cz_memzero(&x, sizeof(x));
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

/* Fails for a variable that occurs in no matrix (spec 7: UnconstrainedVariable), or for a
 * shape whose rows or columns do not fit its counts. */
static cuzk_err check_shape(const cs_shape_t *sh, cz_diag *dg)
{
    size_t ncols = sh->num_inputs + sh->num_aux, rows = sh->num_constraints + sh->num_inputs;
    uint64_t *seen = cz_calloc(ncols / 64 + 1, sizeof(uint64_t));
    const cs_shape_matrix_t *mats[3] = {&sh->A, &sh->B, &sh->C};
    cuzk_err err = CUZK_OK;

    if (!seen) {
        return cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
    }
    for (int k = 0; k < 3 && err == CUZK_OK; k++) {
        if (mats[k]->rows != rows) {
            err = cz_fail(dg, CUZK_E_INVAL,
                          "setup: matrix %c has %zu rows, the counts give %zu (constraints + "
                          "input constraints)",
                          "ABC"[k], mats[k] -> rows, rows);
        }
        for (size_t e = 0; e < mats[k]->nnz && err == CUZK_OK; e++) {
            size_t c = mats[k]->col[e];
            if (c >= ncols) {
                err = cz_fail(dg, CUZK_E_INVAL, "setup: matrix %c refers to column %zu of %zu",
                              "ABC"[k], c, ncols);
            } else {
                seen[c / 64] |= UINT64_C(1) << (c % 64);
            }
        }
    }
    for (size_t c = 0; c < ncols && err == CUZK_OK; c++) {
        if (!((seen[c / 64] >> (c % 64)) & 1)) {
            if (c < sh->num_inputs) {
                err = cz_fail(dg, CUZK_E_INVAL,
                              "setup: input %zu occurs in no constraint (unconstrained)", c);
            } else {
                err = cz_fail(dg, CUZK_E_INVAL,
                              "setup: aux variable %zu occurs in no constraint (unconstrained)",
                              c - sh->num_inputs);
            }
        }
    }
    cz_free(seen);
    return err;
}

void g16_qap_free(g16_qap_t *q)
{
    cz_buf *bufs[2] = {&q->pw, &q->ev};
    for (int i = 0; i < 2; i++) {
        if (bufs[i]->ptr) {
            cz_memzero(bufs[i]->ptr, bufs[i]->len);
        }
        cz_buf_free(bufs[i]);
    }
    cz_memzero(q, sizeof(*q));
}

/* One draw of tau: powers, Lagrange values, evaluations, per-variable scalars. False when tau
 * is unusable (Z(tau) = 0, or a degenerate evaluation: see the file comment). */
static bool qap_try_tau(g16_qap_t *q, const cs_shape_t *sh, const ntt_domain_t *dom,
                        uint64_t *present, const fr_t *ginv, const fr_t *dinv, cz_pool *pool)
{
    size_t ncols = q->ni + q->na, pwords = (ncols + 63) / 64, nranges = cz_pool_width(pool);
    fr_t *pw = q->pw.ptr, *At = q->ev.ptr, *Bt = At + ncols, *Ct = Bt + ncols, z;
    pow_job_t pj = {.pw = pw, .tau = &q->tw.tau};
    eval_job_t ej = {.mats = {&sh->A, &sh->B, &sh->C},
                     .dict = sh->dict,
                     .ev = {At, Bt, Ct},
                     .lag = pw,
                     .ncols = ncols};
    var_job_t vj = {.At = At,
                    .Bt = Bt,
                    .Ct = Ct,
                    .ni = q->ni,
                    .alpha = &q->tw.alpha,
                    .beta = &q->tw.beta,
                    .ginv = ginv,
                    .dinv = dinv};

    cz_pool_for(pool, q->n, POW_GRAIN, pow_task, &pj);
    fr_pow_u64(&z, &q->tw.tau, q->n);
    fr_sub(&z, &z, &FR_ONE); /* Z(tau) = tau^n - 1 */
    if (fr_is_zero(&z)) {
        return false;
    }
    fr_mul(&q->u, &z, dinv); /* h[i] = tau^i u */
    cz_memzero(&z, sizeof(z));
    ntt_inv(dom, pw, pool); /* pw[q] = L_q(tau) */

    for (int x = 0; x < 3; x++) {
        ej.present[x] = present + (size_t)x * pwords;
    }
    ej.span = ((ncols + nranges - 1) / nranges + 63) / 64 * 64;
    atomic_init(&ej.degenerate, false);
    cz_pool_for(pool, nranges, 1, eval_task, &ej);
    if (atomic_load(&ej.degenerate)) {
        return false;
    }
    atomic_init(&vj.bad, false);
    cz_pool_for(pool, ncols, VAR_GRAIN, var_task, &vj);
    return !atomic_load(&vj.bad);
}

/* The buffers of g16_qap_run, and the four secret scalars before tau. */
static cuzk_err qap_prepare(g16_qap_t *q, const cs_shape_t *sh, cz_prng *g, cz_diag *dg)
{
    size_t ncols = sh->num_inputs + sh->num_aux, m = sh->A.rows;
    unsigned lg = 0;
    cuzk_err err = CUZK_OK;

    if (sh->num_inputs < 1) {
        return cz_fail(dg, CUZK_E_INVAL, "setup: the circuit has no ONE input");
    }
    CZ_TRY(err, check_shape(sh, dg), done);
    if (!ntt_lg_for(&lg, m)) {
        return cz_fail(dg, CUZK_E_INVAL, "setup: %zu constraints exceed the largest domain", m);
    }
    q->ni = sh->num_inputs;
    q->na = sh->num_aux;
    q->lg = lg;
    q->n = (size_t)1 << lg;
    CZ_TRY(err, cz_buf_new(&q->pw, q->n * sizeof(fr_t), dg), done);
    CZ_TRY(err, cz_buf_new(&q->ev, 3 * ncols * sizeof(fr_t), dg), done);
    CZ_TRY(err, draw_nonzero(&q->tw.alpha, g, dg), done);
    CZ_TRY(err, draw_nonzero(&q->tw.beta, g, dg), done);
    CZ_TRY(err, draw_nonzero(&q->tw.gamma, g, dg), done);
    CZ_TRY(err, draw_nonzero(&q->tw.delta, g, dg), done);
done:
    return err;
}

cuzk_err g16_qap_run(g16_qap_t *q, const cs_shape_t *sh, const uint64_t *seed, cz_pool *pool,
                     cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    cz_buf tw_buf = {0};
    uint64_t *present = NULL;
    cz_prng prng, *g = NULL;
    ntt_domain_t dom;
    fr_t dinv, ginv;
    size_t ncols = sh->num_inputs + sh->num_aux;
    bool good = false;

    memset(q, 0, sizeof(*q));
    memset(&prng, 0, sizeof(prng));
    if (seed) {
        cz_prng_seed(&prng, *seed);
        g = &prng;
    }
    CZ_TRY(err, qap_prepare(q, sh, g, dg), done);
    CZ_TRY(err, cz_buf_new(&tw_buf, ntt_domain_tw_sizeof(q->lg), dg), done);
    CZ_CHECK(ntt_domain_init(&dom, q->lg, tw_buf.ptr, pool));
    present = cz_malloc(3 * ((ncols + 63) / 64) * sizeof(uint64_t));
    if (!present) {
        err = cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
        goto done;
    }
    fr_inv(&dinv, &q->tw.delta);
    fr_inv(&ginv, &q->tw.gamma);
    for (int attempt = 0; attempt < 16 && !good; attempt++) {
        CZ_TRY(err, draw_nonzero(&q->tw.tau, g, dg), done);
        good = qap_try_tau(q, sh, &dom, present, &ginv, &dinv, pool);
    }
    if (!good) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "setup: no usable tau in 16 draws (degenerate circuit: are the input "
                      "constraints present?)");
        goto done;
    }
    /* fr_t and fr_repr_t share their layout: the slots were rewritten in place (var_task) */
    q->a = (fr_repr_t *)q->ev.ptr;
    q->b = q->a + ncols;
    q->ic = q->b + ncols;
    q->l = q->ic + q->ni;
    /* the value filter of spec 7: a and b keep the variables with non-zero A_v resp. B_v */
    q->a_len = compact_nonzero(q->a, ncols);
    q->b_len = compact_nonzero(q->b, ncols);
    /* the Lagrange values are no longer needed: the h scalars are made from tau */
    cz_memzero(q->pw.ptr, q->pw.len);
    cz_buf_free(&q->pw);
done:
    cz_memzero(&dinv, sizeof(dinv));
    cz_memzero(&ginv, sizeof(ginv));
    cz_memzero(&prng, sizeof(prng));
    cz_free(present);
    cz_buf_free(&tw_buf);
    if (err != CUZK_OK) {
        g16_qap_free(q);
    }
    return err;
}

void g16_qap_h(const g16_qap_t *q, fr_repr_t *out, size_t base, size_t len, cz_pool *pool)
{
    hsc_job_t hj = {.out = out, .tau = &q->tw.tau, .u = &q->u, .base = base};
    cz_pool_for(pool, len, POW_GRAIN, hsc_task, &hj);
}

void g16_qap_vk(const g16_qap_t *q, g16_vk_t *vk, const g1_aff_t *tab1, unsigned w1,
                const g2_aff_t *tab2, unsigned w2, cz_pool *pool)
{
    fr_repr_t k[6];
    g1_aff_t o1[3];
    g2_aff_t o2[3];

    fr_to_repr(&k[0], &q->tw.alpha);
    fr_to_repr(&k[1], &q->tw.beta);
    fr_to_repr(&k[2], &q->tw.delta);
    g1_fb_mul(o1, tab1, w1, k, 3, NULL);
    fr_to_repr(&k[3], &q->tw.beta);
    fr_to_repr(&k[4], &q->tw.gamma);
    fr_to_repr(&k[5], &q->tw.delta);
    g2_fb_mul(o2, tab2, w2, k + 3, 3, NULL);
    vk->alpha_g1 = o1[0];
    vk->beta_g1 = o1[1];
    vk->delta_g1 = o1[2];
    vk->beta_g2 = o2[0];
    vk->gamma_g2 = o2[1];
    vk->delta_g2 = o2[2];
    cz_memzero(k, sizeof(k));
    g1_fb_mul(vk->ic, tab1, w1, q->ic, q->ni, pool);
}

/* The points of the parameters on the CPU (tables, then every section). */
static cuzk_err cpu_points(g16_params_t *p, g16_setup_stats_t *st, const g16_qap_t *q,
                           cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    cz_buf tab1_buf = {0}, tab2_buf = {0}, hb = {0};
    unsigned w1, w2;
    size_t n = q->n;
    double t = now_ms();

    CZ_TRY(err, g16_params_alloc(p, q->ni, n - 1, q->na, q->a_len, q->b_len, q->b_len, dg), done);
    w1 = g1_fb_window(q->ni + (n - 1) + q->na + q->a_len + q->b_len);
    w2 = g2_fb_window(3 + q->b_len);
    CZ_TRY(err, cz_buf_new(&tab1_buf, g1_fb_table_len(w1) * sizeof(g1_aff_t), dg), done);
    CZ_TRY(err, cz_buf_new(&tab2_buf, g2_fb_table_len(w2) * sizeof(g2_aff_t), dg), done);
    CZ_TRY(err, cz_buf_new(&hb, H_BLOCK * sizeof(fr_repr_t), dg), done);
    g1_fb_table_init(tab1_buf.ptr, &G1_GEN, w1, pool);
    g2_fb_table_init(tab2_buf.ptr, &G2_GEN, w2, pool);
    st->g1_window = w1;
    st->g2_window = w2;
    st->tables_ms = now_ms() - t;

    t = now_ms();
    g16_qap_vk(q, &p->vk, tab1_buf.ptr, w1, tab2_buf.ptr, w2, pool);
    for (size_t base = 0; base < n - 1; base += H_BLOCK) {
        size_t len = n - 1 - base < H_BLOCK ? n - 1 - base : H_BLOCK;
        g16_qap_h(q, hb.ptr, base, len, pool);
        g1_fb_mul(p->h + base, tab1_buf.ptr, w1, hb.ptr, len, pool);
    }
    g1_fb_mul(p->l, tab1_buf.ptr, w1, q->l, q->na, pool);
    g1_fb_mul(p->a, tab1_buf.ptr, w1, q->a, q->a_len, pool);
    g1_fb_mul(p->b_g1, tab1_buf.ptr, w1, q->b, q->b_len, pool);
    st->g1_ms = now_ms() - t;
    t = now_ms();
    g2_fb_mul(p->b_g2, tab2_buf.ptr, w2, q->b, q->b_len, pool);
    st->g2_ms = now_ms() - t;
done:
    if (hb.ptr) {
        cz_memzero(hb.ptr, hb.len);
    }
    cz_buf_free(&hb);
    cz_buf_free(&tab1_buf);
    cz_buf_free(&tab2_buf);
    return err;
}

cuzk_err g16_setup_shape_ex(g16_params_t **out, g16_toxic_t *waste, g16_setup_stats_t *stats,
                            const cs_shape_t *shape, const uint64_t *seed, cz_pool *pool,
                            cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    g16_params_t *p = NULL;
    g16_setup_stats_t st;
    g16_qap_t q;
    double t0 = now_ms();

    *out = NULL;
    memset(&st, 0, sizeof(st));
    memset(&q, 0, sizeof(q));
    CZ_TRY(err, g16_qap_run(&q, shape, seed, pool, dg), done);
    st.qap_ms = now_ms() - t0;
    p = cz_calloc(1, sizeof(*p));
    if (!p) {
        err = cz_fail(dg, CUZK_E_NOMEM, "setup: out of memory");
        goto done;
    }
    CZ_TRY(err, cpu_points(p, &st, &q, pool, dg), done);
    if (waste) {
        *waste = q.tw;
    }
    *out = p;
    p = NULL;
done:
    g16_qap_free(&q);
    g16_params_free(p);
    st.total_ms = now_ms() - t0;
    if (stats) {
        *stats = st;
    }
    return err;
}

cuzk_err g16_setup_ex(g16_params_t **out, g16_toxic_t *waste, g16_setup_stats_t *stats,
                      const cs_r1cs_t *r1cs, const uint64_t *seed, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    size_t ncols = r1cs->num_inputs + r1cs->num_aux,
           rows = r1cs->num_constraints + r1cs->num_inputs;
    cs_shape_t shape;
    double t0 = now_ms(), check_ms;

    *out = NULL;
    memset(&shape, 0, sizeof(shape));
    if (r1cs->num_inputs < 1) {
        err = cz_fail(dg, CUZK_E_INVAL, "setup: the circuit has no ONE input");
        goto done;
    }
    CZ_TRY(err, check_matrix(&r1cs->A, "A", rows, ncols, dg), done);
    CZ_TRY(err, check_matrix(&r1cs->B, "B", rows, ncols, dg), done);
    CZ_TRY(err, check_matrix(&r1cs->C, "C", rows, ncols, dg), done);
    CZ_TRY(err, cs_shape_from_r1cs(&shape, r1cs, dg), done);
    check_ms = now_ms() - t0;
    err = g16_setup_shape_ex(out, waste, stats, &shape, seed, pool, dg);
    if (stats) {
        stats->check_ms = check_ms;
        stats->total_ms += check_ms;
    }
done:
    cs_shape_clear(&shape);
    if (err != CUZK_OK && stats) {
        memset(stats, 0, sizeof(*stats));
        stats->total_ms = now_ms() - t0;
    }
    return err;
}

cuzk_err g16_setup_with_waste(g16_params_t **out, g16_toxic_t *waste, const cs_r1cs_t *r1cs,
                              const uint64_t *seed, cz_pool *pool, cz_diag *dg)
{
    return g16_setup_ex(out, waste, NULL, r1cs, seed, pool, dg);
}

cuzk_err g16_setup(g16_params_t **out, const cs_r1cs_t *r1cs, const uint64_t *seed, cz_pool *pool,
                   cz_diag *dg)
{
    return g16_setup_ex(out, NULL, NULL, r1cs, seed, pool, dg);
}

cuzk_err g16_setup_timed(g16_params_t **out, g16_setup_stats_t *stats, const cs_r1cs_t *r1cs,
                         const uint64_t *seed, cz_pool *pool, cz_diag *dg)
{
    return g16_setup_ex(out, NULL, stats, r1cs, seed, pool, dg);
}

cuzk_err g16_setup_shape(g16_params_t **out, g16_setup_stats_t *stats, const cs_shape_t *shape,
                         const uint64_t *seed, cz_pool *pool, cz_diag *dg)
{
    return g16_setup_shape_ex(out, NULL, stats, shape, seed, pool, dg);
}
