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

cuzk_err eng_offline_new(eng_offline_t **out, const eng_request_t *req, cz_pool *pool, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    eng_offline_t *o = cz_calloc(1, sizeof(*o));

    *out = NULL;
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
    CZ_TRY(err, o->ops->parse(NULL, req, &o->plan, dg), done);
    o->planned = true;
    if (o->plan.num_partitions < 1) {
        err = cz_fail(dg, CUZK_E_INVAL, "handler of %s planned no partition",
                      eng_kind_name(req->kind));
        goto done;
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
