/* offline.c - a handler outside the pipeline (kinds.h "Offline"): the built-in handler of the
 * request's kind (kinds.c), called directly with ctx NULL, as eng_register_builtin_kinds
 * registers it. No engine and no thread. */
#include "kinds/internal.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"

struct eng_offline {
    const eng_kind_ops *ops;
    eng_plan_t plan;
    bool planned;
    atomic_bool cancelled; /* never set: offline runs are not cancelled */
    char job_id[ENG_ID_MAX];
};

cuzk_err eng_offline_new(eng_offline_t **out, size_t *fault_entry, const eng_request_t *req,
                         cz_pool *pool, bool verify, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    eng_offline_t *o = cz_calloc(1, sizeof(*o));

    *out = NULL;
    if (fault_entry) {
        *fault_entry = 0;
    }
    if (!o) {
        return cz_fail(dg, CUZK_E_NOMEM, "offline handler");
    }
    atomic_init(&o->cancelled, false);
    snprintf(o->job_id, sizeof(o->job_id), "%s",
             req->request_id && req->request_id[0] ? req->request_id : "offline");
    CZ_TRY(err, eng_request_check(req, dg), done);
    o->ops = eng_builtin_kind_ops(req->kind);
    if (!o->ops) {
        err = cz_fail(dg, CUZK_E_INVAL, "proof kind %s is not available in this build",
                      eng_kind_name(req->kind));
        goto done;
    }
    memset(&o->plan, 0, sizeof(o->plan));
    o->plan.job_id = o->job_id;
    o->plan.cancelled = &o->cancelled;
    o->plan.pool = pool;
    err = o->ops->parse(NULL, req, &o->plan, dg);
    if (err != CUZK_OK) {
        if (fault_entry) {
            *fault_entry = o->plan.fault_entry;
        }
        goto done;
    }
    o->planned = true;
    if (o->plan.num_partitions < 1) {
        err = cz_fail(dg, CUZK_E_INVAL, "handler of %s planned no partition",
                      eng_kind_name(req->kind));
        goto done;
    }
    if (verify) {
        CZ_TRY(err, eng_offline_verify_vanilla(o, fault_entry, 0, o->plan.num_partitions, dg),
               done);
    }
    *out = o;
    o = NULL;
done:
    eng_offline_free(o);
    return err;
}

const eng_plan_t *eng_offline_plan(const eng_offline_t *o)
{
    return &o->plan;
}

cuzk_err eng_offline_verify_vanilla(eng_offline_t *o, size_t *fault_entry, size_t k0, size_t k1,
                                    cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    CZ_CHECK(o->planned && k0 <= k1 && k1 <= o->plan.num_partitions);
    o->plan.fault_entry = 0;
    if (o->ops->verify_vanilla) {
        err = o->ops->verify_vanilla(NULL, &o->plan, k0, k1, dg);
    }
    if (fault_entry) {
        *fault_entry = err != CUZK_OK ? o->plan.fault_entry : 0;
    }
    return err;
}

cuzk_err eng_offline_synthesize(eng_offline_t *o, size_t k, cs_t *cs, cz_diag *dg)
{
    CZ_CHECK(o->planned && k < o->plan.num_partitions);
    return o->ops->synthesize(NULL, &o->plan, k, cs, dg);
}

cuzk_err eng_offline_public_inputs(eng_offline_t *o, size_t k, fr_t *out, size_t n, cz_diag *dg)
{
    CZ_CHECK(o->planned && k < o->plan.num_partitions);
    if (!o->ops->public_inputs) {
        return cz_fail(dg, CUZK_E_INVAL, "the %s handler computes no public inputs",
                       o->plan.circuit_id);
    }
    return o->ops->public_inputs(NULL, &o->plan, k, out, n, dg);
}

/* `err` from a stage of eng_offline_check, its message prefixed with the stage. */
static cuzk_err stage_fail(cz_diag *dg, cuzk_err err, const char *stage)
{
    char msg[sizeof(dg->msg)];

    snprintf(msg, sizeof(msg), "%s", dg && dg->msg[0] ? dg->msg : cuzk_strerror(err));
    return cz_fail(dg, err, "%s: %s", stage, msg);
}

/* Compares the n public inputs the checker `cs` holds with the verifier's, x. */
static cuzk_err compare_inputs(eng_check_t *out, const cs_t *cs, const fr_t *x, size_t n,
                               cz_diag *dg)
{
    for (size_t i = 0; i < n; i++) {
        fr_t got;
        if (!cs_value(cs, &got, cs_var_input(i + 1))) {
            return cz_fail(dg, CUZK_E_INVAL, "the checker kept no value of input %zu", i + 1);
        }
        if (!fr_eq(&got, &x[i])) {
            out->status = ENG_CHECK_INPUT_DIFFERS;
            out->input = i;
            out->circuit = got;
            out->verifier = x[i];
            return CUZK_OK;
        }
    }
    return CUZK_OK;
}

cuzk_err eng_offline_check(eng_offline_t *o, eng_check_t *out, size_t k, cz_diag *dg)
{
    cs_t *cs = NULL;
    fr_t *x = NULL;
    cuzk_err err = CUZK_OK;

    memset(out, 0, sizeof(*out));
    CZ_CHECK(o->planned && k < o->plan.num_partitions);
    CZ_TRY(err, cs_new_checker(&cs, dg), done);
    err = o->ops->synthesize(NULL, &o->plan, k, cs, dg);
    cs_get_counts(cs, &out->counts);
    if (err == CUZK_OK) {
        err = cs_finish(cs, dg);
    }
    if (err == CUZK_E_UNSAT) {
        const char *path = cs_unsat_path(cs, &out->constraint);
        out->status = ENG_CHECK_UNSAT;
        snprintf(out->path, sizeof(out->path), "%s", path ? path : "");
        err = CUZK_OK;
        goto done;
    }
    if (err != CUZK_OK) {
        err = stage_fail(dg, err, "synthesis");
        goto done;
    }
    size_t n = out->counts.num_inputs - 1;
    x = cz_calloc(n ? n : 1, sizeof(fr_t));
    if (!x) {
        err = cz_fail(dg, CUZK_E_NOMEM, "%zu public inputs", n);
        goto done;
    }
    err = eng_offline_public_inputs(o, k, x, n, dg);
    if (err != CUZK_OK) {
        err = stage_fail(dg, err, "public inputs");
        goto done;
    }
    err = compare_inputs(out, cs, x, n, dg);
done:
    cz_free(x);
    cs_free(cs);
    return err;
}

bool eng_offline_srs_file(const eng_offline_t *o, char *name, size_t cap)
{
    CZ_CHECK(o->planned);
    return o->ops->srs_file(NULL, o->plan.circuit_id, name, cap);
}

void eng_offline_free(eng_offline_t *o)
{
    if (!o) {
        return;
    }
    if (o->planned && o->ops->plan_free) {
        o->ops->plan_free(NULL, &o->plan);
    }
    cz_free(o);
}
