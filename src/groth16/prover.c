/* prover.c - the Groth16 prover (spec groth16.md 4.5-4.10) over a prover assignment.
 *
 * Stages: copy a, b, c into domain-sized buffers and compute the quotient H (poly/, 4.5);
 * five density-filtered MSMs (msm/, 4.6): H, L, A (inputs full + A-dense aux), B in G1 and
 * in G2 (B-dense inputs + B-dense aux); then the assembly of 4.7. The MSMs read the
 * assignment's Montgomery values and density bits directly, so no compacted scalar vectors are
 * built. Work space: 3 n field elements (a, b, c), the twiddle table (n/2 elements) and one
 * MSM scratch buffer sized for the largest MSM; all freed before returning.
 * With opts->gpu the same checks run here, then the object's backend (prover_gpu.c) does the
 * quotient and the MSMs on its device and comes back for the shared assembly.
 */
#include "groth16/groth16.h"

#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "common/rand.h"
#include "groth16/internal.h"
#include "poly/poly.h"
#include "msm/msm.h"

double g16_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

double g16_stage_end(const g16_prove_opts_t *opts, const char *stage, double t0)
{
    double t1 = g16_now_ms();
    if (opts && opts->on_stage) {
        opts->on_stage(opts->on_stage_ctx, stage, t0, t1);
    }
    return t1 - t0;
}

cuzk_err g16_stage_check(const g16_prove_opts_t *opts, cz_diag *dg)
{
    if (opts && opts->cancel && atomic_load(opts->cancel)) {
        return cz_fail(dg, CUZK_E_CANCELLED, "proof cancelled between prover stages");
    }
    return CUZK_OK;
}

static size_t max_sz(size_t a, size_t b)
{
    return a > b ? a : b;
}

/* The largest scratch any of the prover's MSMs needs. */
static size_t msm_scratch_bytes(const g16_params_t *p, size_t ni, size_t pb, const msm_opts *o)
{
    size_t s = msm_g1_scratch_sizeof_opts(p->h_len, o);
    s = max_sz(s, msm_g1_scratch_sizeof_opts(p->l_len, o));
    s = max_sz(s, msm_g1_scratch_sizeof_opts(ni, o));
    s = max_sz(s, msm_g1_scratch_sizeof_opts(p->a_len - ni, o));
    s = max_sz(s, msm_g1_scratch_sizeof_opts(pb, o));
    s = max_sz(s, msm_g1_scratch_sizeof_opts(p->b_g1_len - pb, o));
    s = max_sz(s, msm_g2_scratch_sizeof_opts(pb, o));
    s = max_sz(s, msm_g2_scratch_sizeof_opts(p->b_g2_len - pb, o));
    return s;
}

/* The quotient's work space: a, b, c with n values each. Copy mode: one mapping holding copies
 * of the assignment's vectors. Take mode: the assignment's own cz_malloc'ed vectors, grown to n
 * and owned here from then on. b and c are released as soon as the quotient is computed, a
 * after the H MSM. */
typedef struct abc_work {
    fr_t *a, *b, *c;
    cz_buf buf; /* copy mode */
    bool heap;  /* take mode */
} abc_work_t;

static void abc_release_bc(abc_work_t *w, size_t n)
{
    if (w->heap) {
        cz_free(w->b);
        cz_free(w->c);
    } else if (w->buf.ptr && (n * sizeof(fr_t)) % 4096 == 0) {
        /* give b and c's pages back; the mapping itself goes with cz_buf_free */
        (void)madvise(w->b, 2 * n * sizeof(fr_t), MADV_DONTNEED);
    }
    w->b = w->c = NULL;
}

static void abc_release(abc_work_t *w)
{
    if (w->heap) {
        cz_free(w->a);
        cz_free(w->b);
        cz_free(w->c);
    }
    cz_buf_free(&w->buf);
    w->a = w->b = w->c = NULL;
}

/* Copies of a, b and c into the work space, over the pool: item i of [0, 3 m) is value i % m
 * of vector i / m. */
#define COPY_GRAIN 65536

typedef struct copy_job {
    fr_t *dst[3];
    const fr_t *src[3];
    size_t m;
} copy_job_t;

static void copy_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    const copy_job_t *job = ctx;
    (void)worker;

    while (begin < end) {
        size_t v = begin / job->m, i = begin % job->m;
        size_t len = job->m - i < end - begin ? job->m - i : end - begin;
        memcpy(job->dst[v] + i, job->src[v] + i, len * sizeof(fr_t));
        begin += len;
    }
}

cuzk_err g16_prove_check(const g16_params_t *p, const cs_assignment_t *asg, unsigned *lg,
                         cz_diag *dg)
{
    cuzk_err err;

    CZ_CHECK(asg->inputs != NULL && asg->num_inputs >= 1);
    CZ_CHECK(asg->a_aux_density.len == asg->num_aux && asg->b_aux_density.len == asg->num_aux);
    CZ_CHECK(asg->b_input_density.len == asg->num_inputs);
    err = g16_params_check_circuit(p, asg, dg);
    if (err != CUZK_OK) {
        return err;
    }
    if (g1_aff_is_identity(&p->vk.delta_g1) || g2_aff_is_identity(&p->vk.delta_g2)) {
        return cz_fail(dg, CUZK_E_INVAL, "parameters: delta is the identity (subverted setup)");
    }
    CZ_CHECK(asg->m >= 1);
    if (!ntt_lg_for(lg, asg->m)) {
        return cz_fail(dg, CUZK_E_INVAL, "circuit too large: %zu constraints", asg->m);
    }
    return CUZK_OK;
}

void g16_prove_assemble(const g16_params_t *p, g16_proof_t *out, const g16_sums_t *sums,
                        const fr_t *r, const fr_t *s)
{
    g1_t delta, acc, t;
    g2_t delta2, acc2;
    fr_t rs;

    /* A = alpha_g1 + a_ans + r delta_g1 */
    g1_from_aff(&delta, &p->vk.delta_g1);
    g1_mul_fr(&acc, &delta, r);
    g1_add(&acc, &acc, &sums->a);
    g1_add_aff(&acc, &acc, &p->vk.alpha_g1);
    g1_to_aff(&out->a, &acc);

    /* B = beta_g2 + b2_ans + s delta_g2 */
    g2_from_aff(&delta2, &p->vk.delta_g2);
    g2_mul_fr(&acc2, &delta2, s);
    g2_add(&acc2, &acc2, &sums->b2);
    g2_add_aff(&acc2, &acc2, &p->vk.beta_g2);
    g2_to_aff(&out->b, &acc2);

    /* C = H + L + s a_ans + r b1_ans + s alpha_g1 + r beta_g1 + (r s) delta_g1 */
    g1_add(&acc, &sums->h, &sums->l);
    g1_mul_fr(&t, &sums->a, s);
    g1_add(&acc, &acc, &t);
    g1_mul_fr(&t, &sums->b1, r);
    g1_add(&acc, &acc, &t);
    g1_from_aff(&t, &p->vk.alpha_g1);
    g1_mul_fr(&t, &t, s);
    g1_add(&acc, &acc, &t);
    g1_from_aff(&t, &p->vk.beta_g1);
    g1_mul_fr(&t, &t, r);
    g1_add(&acc, &acc, &t);
    fr_mul(&rs, r, s);
    g1_mul_fr(&t, &delta, &rs);
    g1_add(&acc, &acc, &t);
    g1_to_aff(&out->c, &acc);
    cz_memzero(&rs, sizeof(rs));
}

/* Everything after the work space holds a, b, c (the first m values set). Releases it. */
static cuzk_err prove_core(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *asg,
                           abc_work_t *w, unsigned lg, const fr_t *r, const fr_t *s,
                           const g16_prove_opts_t *opts, g16_prove_stats_t *st, cz_pool *pool,
                           cz_diag *dg)
{
    const msm_opts *mo = opts ? &opts->msm : NULL;
    cuzk_err err = CUZK_OK;
    cz_buf tw_buf = {0}, scratch_buf = {0};
    ntt_domain_t dom;
    size_t n = (size_t)1 << lg;
    size_t ni = asg->num_inputs, na = asg->num_aux, pb = asg->b_input_density.popcount;
    g16_sums_t sums;
    g1_t t1, t2;
    g2_t t3;
    double t;

    /* ---- quotient (4.5) ---- */
    t = g16_now_ms();
    CZ_TRY(err, cz_buf_new(&tw_buf, ntt_domain_tw_sizeof(lg), dg), done);
    CZ_CHECK(ntt_domain_init(&dom, lg, tw_buf.ptr, pool));
    if (!poly_quotient_h(&dom, w->a, w->b, w->c, asg->m, pool)) {
        err = cz_fail(dg, CUZK_E_UNSAT,
                      "the assignment does not satisfy the constraints (A*B - C is not "
                      "divisible by Z: the quotient's top coefficient is not zero)");
        goto done;
    }
    cz_buf_free(&tw_buf);
    abc_release_bc(w, n);
    poly_to_repr((fr_repr_t *)w->a, w->a, n - 1, pool);
    st->quotient_ms = g16_stage_end(opts, "quotient", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    /* ---- MSMs (4.6) ---- */
    t = g16_now_ms();
    CZ_TRY(err, cz_buf_new(&scratch_buf, msm_scratch_bytes(p, ni, pb, mo), dg), done);
    st->prep_ms += g16_stage_end(opts, "prep", t);

    t = g16_now_ms();
    msm_g1_opts(&sums.h, p->h, (const fr_repr_t *)w->a, n - 1, scratch_buf.ptr, pool, mo);
    st->msm_h_ms = g16_stage_end(opts, "msm_h", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);
    abc_release(w);

    t = g16_now_ms();
    msm_g1_density(&sums.l, p->l, p->l_len, asg->aux, NULL, na, scratch_buf.ptr, pool, mo);
    st->msm_l_ms = g16_stage_end(opts, "msm_l", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    msm_g1_density(&t1, p->a, ni, asg->inputs, NULL, ni, scratch_buf.ptr, pool, mo);
    msm_g1_density(&t2, p->a + ni, p->a_len - ni, asg->aux, asg->a_aux_density.words, na,
                   scratch_buf.ptr, pool, mo);
    g1_add(&sums.a, &t1, &t2);
    st->msm_a_ms = g16_stage_end(opts, "msm_a", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    msm_g1_density(&t1, p->b_g1, pb, asg->inputs, asg->b_input_density.words, ni, scratch_buf.ptr,
                   pool, mo);
    msm_g1_density(&t2, p->b_g1 + pb, p->b_g1_len - pb, asg->aux, asg->b_aux_density.words, na,
                   scratch_buf.ptr, pool, mo);
    g1_add(&sums.b1, &t1, &t2);
    st->msm_b_g1_ms = g16_stage_end(opts, "msm_b_g1", t);
    CZ_TRY(err, g16_stage_check(opts, dg), done);

    t = g16_now_ms();
    msm_g2_density(&t3, p->b_g2, pb, asg->inputs, asg->b_input_density.words, ni, scratch_buf.ptr,
                   pool, mo);
    msm_g2_density(&sums.b2, p->b_g2 + pb, p->b_g2_len - pb, asg->aux, asg->b_aux_density.words, na,
                   scratch_buf.ptr, pool, mo);
    g2_add(&sums.b2, &sums.b2, &t3);
    st->msm_b_g2_ms = g16_stage_end(opts, "msm_b_g2", t);

    /* ---- assembly (4.7) ---- */
    t = g16_now_ms();
    g16_prove_assemble(p, out, &sums, r, s);
    st->assemble_ms = g16_stage_end(opts, "assemble", t);

done:
    cz_buf_free(&tw_buf);
    cz_buf_free(&scratch_buf);
    abc_release(w);
    return err;
}

/* The GPU path: the backend that made opts->gpu runs the job (it frees a taken a, b, c). */
static cuzk_err prove_on_gpu(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *asg,
                             fr_t *const abc[3], bool take, unsigned lg, const fr_t *r,
                             const fr_t *s, const g16_prove_opts_t *opts, g16_prove_stats_t *st,
                             double t0, cz_pool *pool, cz_diag *dg)
{
    g16_gpu_params *gp = opts->gpu;
    g16_prove_job_t job = {.p = p,
                           .out = out,
                           .asg = asg,
                           .abc = {abc[0], abc[1], abc[2]},
                           .take = take,
                           .lg = lg,
                           .r = r,
                           .s = s,
                           .opts = opts,
                           .st = st,
                           .t0 = t0};

    CZ_CHECK(gp->params == p && gp->prove != NULL);
    return gp->prove(gp, &job, pool, dg);
}

/* A proof on the CPU reads the points; a device proof reads its resident copy. */
static cuzk_err points_check(const g16_params_t *p, const g16_prove_opts_t *opts, cz_diag *dg)
{
    if (!(opts && opts->gpu) && !g16_params_has_points(p)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "prover: the parameters' points were dropped (resident on a device only)");
    }
    return CUZK_OK;
}

cuzk_err g16_prove_ex(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *asg,
                      const fr_t *r, const fr_t *s, const g16_prove_opts_t *opts,
                      g16_prove_stats_t *stats, cz_pool *pool, cz_diag *dg)
{
    g16_prove_stats_t st;
    abc_work_t w;
    cuzk_err err = CUZK_OK;
    unsigned lg = 0;
    size_t n;
    double t0 = g16_now_ms();

    memset(&st, 0, sizeof(st));
    memset(&w, 0, sizeof(w));
    CZ_TRY(err, g16_prove_check(p, asg, &lg, dg), done);
    CZ_TRY(err, points_check(p, opts, dg), done);
    CZ_CHECK((opts && opts->gpu && opts->gpu_shape) || (asg->a && asg->b && asg->c));
    if (opts && opts->gpu) {
        fr_t *const abc[3] = {asg->a, asg->b, asg->c};
        err = prove_on_gpu(p, out, asg, abc, false, lg, r, s, opts, &st, t0, pool, dg);
        goto done;
    }
    n = (size_t)1 << lg;
    CZ_TRY(err, cz_buf_new(&w.buf, 3 * n * sizeof(fr_t), dg), done);
    w.a = w.buf.ptr;
    w.b = w.a + n;
    w.c = w.b + n;
    {
        /* the first touch of the fresh mapping (page faults) is spread over the pool too */
        copy_job_t cj = {.dst = {w.a, w.b, w.c}, .src = {asg->a, asg->b, asg->c}, .m = asg->m};
        cz_pool_for(pool, 3 * asg->m, COPY_GRAIN, copy_task, &cj);
    }
    st.prep_ms = g16_stage_end(opts, "prep", t0);
    err = prove_core(p, out, asg, &w, lg, r, s, opts, &st, pool, dg);
done:
    abc_release(&w);
    st.total_ms = g16_now_ms() - t0;
    if (stats) {
        *stats = st;
    }
    return err;
}

cuzk_err g16_prove_take(const g16_params_t *p, g16_proof_t *out, cs_assignment_t *asg,
                        const fr_t *r, const fr_t *s, const g16_prove_opts_t *opts,
                        g16_prove_stats_t *stats, cz_pool *pool, cz_diag *dg)
{
    g16_prove_stats_t st;
    abc_work_t w;
    cuzk_err err = CUZK_OK;
    unsigned lg = 0;
    size_t n;
    double t0 = g16_now_ms();

    memset(&st, 0, sizeof(st));
    memset(&w, 0, sizeof(w));
    w.heap = true;
    w.a = asg->a;
    w.b = asg->b;
    w.c = asg->c;
    asg->a = asg->b = asg->c = NULL; /* ownership moved here */
    CZ_TRY(err, g16_prove_check(p, asg, &lg, dg), done);
    CZ_TRY(err, points_check(p, opts, dg), done);
    CZ_CHECK((opts && opts->gpu && opts->gpu_shape) || (w.a && w.b && w.c));
    if (opts && opts->gpu) {
        fr_t *const abc[3] = {w.a, w.b, w.c};
        w.a = w.b = w.c = NULL; /* ownership moved to the GPU path */
        err = prove_on_gpu(p, out, asg, abc, true, lg, r, s, opts, &st, t0, pool, dg);
        goto done;
    }
    n = (size_t)1 << lg;
    for (int k = 0; k < 3; k++) {
        fr_t **v = k == 0 ? &w.a : k == 1 ? &w.b : &w.c;
        fr_t *grown = cz_realloc(*v, n * sizeof(fr_t));
        if (!grown) {
            err = cz_fail(dg, CUZK_E_NOMEM, "prover: out of memory for %zu values", n);
            goto done;
        }
        *v = grown;
    }
    st.prep_ms = g16_stage_end(opts, "prep", t0);
    err = prove_core(p, out, asg, &w, lg, r, s, opts, &st, pool, dg);
done:
    abc_release(&w);
    st.total_ms = g16_now_ms() - t0;
    if (stats) {
        *stats = st;
    }
    return err;
}

/* g16_prove_group's state beside the backend's g16_group_t: the caller's arrays. */
typedef struct group_in {
    const g16_params_t *p;
    g16_proof_t *out;
    const cs_assignment_t *const *asg;
    const fr_t *r, *s;
    const g16_prove_opts_t *o;
    g16_prove_stats_t *st;
    unsigned lg;
    double t0;
} group_in;

/* Checks asg[j] and makes grp's job j of it. */
static cuzk_err group_job(g16_group_t *grp, size_t j, cz_diag *dg)
{
    group_in *in = grp->ctx;
    const cs_assignment_t *a = in->asg[j];
    cuzk_err err = g16_prove_check(in->p, a, &in->lg, dg);

    if (err != CUZK_OK) {
        return err;
    }
    CZ_CHECK(in->o->gpu_shape || (a->a && a->b && a->c));
    grp->jobs[j] =
        (g16_prove_job_t){.p = in->p,
                          .out = &in->out[j],
                          .asg = a,
                          .abc = {a->a, a->b, a->c},
                          .lg = in->lg,
                          .r = &in->r[j],
                          .s = &in->s[j],
                          .opts = in->o,
                          .classes = in->o->group_classes ? in->o->group_classes[j] : NULL,
                          .st = &in->st[j],
                          .t0 = in->t0};
    return CUZK_OK;
}

/* The caller's group_more: the proofs it appends become jobs. */
static cuzk_err group_more(g16_group_t *grp, size_t cap, cz_diag *dg)
{
    group_in *in = grp->ctx;
    const size_t have = grp->count;
    size_t add = in->o->group_more(in->o->group_ctx, have, cap);
    cuzk_err err = CUZK_OK;

    CZ_CHECK(add <= cap - have);
    for (size_t j = have; j < have + add && err == CUZK_OK; j++) {
        err = group_job(grp, j, dg);
        grp->count += err == CUZK_OK;
    }
    return err;
}

static void group_front(g16_group_t *grp, size_t j, uint64_t kept_bytes)
{
    group_in *in = grp->ctx;
    in->o->group_front(in->o->group_ctx, j, kept_bytes);
}

cuzk_err g16_prove_group(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *const *asg,
                         const fr_t *r, const fr_t *s, size_t count, const g16_prove_opts_t *opts,
                         g16_prove_stats_t *stats, cz_pool *pool, cz_diag *dg)
{
    g16_prove_job_t jobs[G16_GPU_MAX_SHARE];
    g16_prove_stats_t st[G16_GPU_MAX_SHARE];
    cuzk_err err = CUZK_OK;

    const unsigned most = opts && opts->gpu ? opts->gpu->share_max : 0;
    if (count == 0 || count > most) {
        return cz_fail(dg, CUZK_E_INVAL, "a group of %zu proofs on %s (at most %u)", count,
                       most ? "this device copy" : "no device", most);
    }
    CZ_CHECK(opts->gpu->params == p && opts->gpu->prove_group != NULL);
    g16_prove_opts_t o = *opts;
    o.gpu_staged = false; /* a staged assignment is one proof's: the group uploads them all */
    memset(st, 0, sizeof(st));
    group_in in = {
        .p = p, .out = out, .asg = asg, .r = r, .s = s, .o = &o, .st = st, .t0 = g16_now_ms()};
    g16_group_t grp = {.jobs = jobs,
                       .more = o.group_more ? group_more : NULL,
                       .front_done = o.group_front ? group_front : NULL,
                       .ctx = &in};
    for (; grp.count < count; grp.count++) {
        CZ_TRY(err, group_job(&grp, grp.count, dg), done);
    }
    err = o.gpu->prove_group(o.gpu, &grp, pool, dg);
done:
    for (size_t j = 0; stats && j < (grp.count > count ? grp.count : count); j++) {
        st[j].total_ms = g16_now_ms() - in.t0;
        stats[j] = st[j];
    }
    return err;
}

cuzk_err g16_prove(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *asg,
                   const fr_t *r, const fr_t *s, cz_pool *pool, cz_diag *dg)
{
    return g16_prove_ex(p, out, asg, r, s, NULL, NULL, pool, dg);
}

cuzk_err g16_fr_random(fr_t *out, cz_diag *dg)
{
    uint8_t buf[FR_NBYTES];
    cuzk_err err;

    for (;;) {
        err = cz_rand_bytes(buf, sizeof(buf), dg);
        if (err != CUZK_OK) {
            break;
        }
        buf[FR_NBYTES - 1] &= 0x7f; /* a 255-bit candidate: accepted with probability ~0.9 */
        if (fr_from_bytes(out, buf) == CUZK_OK) {
            break;
        }
    }
    cz_memzero(buf, sizeof(buf));
    return err;
}

cuzk_err g16_prove_random(const g16_params_t *p, g16_proof_t *out, const cs_assignment_t *asg,
                          cz_pool *pool, cz_diag *dg)
{
    fr_t r, s;
    cuzk_err err = CUZK_OK;

    /* bellperson draws r first, then s (spec 4.8). */
    CZ_TRY(err, g16_fr_random(&r, dg), done);
    CZ_TRY(err, g16_fr_random(&s, dg), done);
    err = g16_prove(p, out, asg, &r, &s, pool, dg);
done:
    cz_memzero(&r, sizeof(r));
    cz_memzero(&s, sizeof(s));
    return err;
}
