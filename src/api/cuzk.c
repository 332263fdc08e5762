/* cuzk.c - the public C API (include/cuzk/cuzk.h): a thin layer over the engine (engine.h),
 * the Filecoin kinds (kinds/kinds.h) and the configuration cuzkd reads (config/config.h). It translates the public structs to the
 * engine's, checks every pointer a caller could get wrong (the engine CZ_CHECKs its callers,
 * which are our own modules; a program linking the library gets CUZK_E_INVAL instead), and
 * copies results into caller storage. No state beyond the engine: no globals except the log
 * threshold the configuration sets, no thread-locals.
 */
#include "cuzk/cuzk.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/log.h"
#include "groth16/groth16.h"
#include "engine/engine.h"
#include "config/config.h"
#include "kinds/kinds.h"

#ifndef CUZK_VERSION_STRING
#    define CUZK_VERSION_STRING "unknown"
#endif

/* The public numbering is the engine's (and cuzk.v1's). */
_Static_assert(CUZK_KIND_POREP == (int)ENG_KIND_POREP, "kind");
_Static_assert(CUZK_KIND_SNAP == (int)ENG_KIND_SNAP, "kind");
_Static_assert(CUZK_KIND_WINDOW_POST == (int)ENG_KIND_WINDOW_POST, "kind");
_Static_assert(CUZK_KIND_WINNING_POST == (int)ENG_KIND_WINNING_POST, "kind");
_Static_assert(CUZK_KIND_COUNT == (int)ENG_KIND_COUNT, "kind count");
_Static_assert(CUZK_PRIORITY_LOW == (int)ENG_PRIO_LOW, "priority");
_Static_assert(CUZK_PRIORITY_CRITICAL == (int)ENG_PRIO_CRITICAL, "priority");
_Static_assert(CUZK_JOB_COMPLETED == (int)ENG_STATUS_COMPLETED, "status");
_Static_assert(CUZK_JOB_FAILED == (int)ENG_STATUS_FAILED, "status");
_Static_assert(CUZK_JOB_CANCELLED == (int)ENG_STATUS_CANCELLED, "status");
_Static_assert(CUZK_JOB_PENDING == (int)ENG_STATUS_TIMEOUT, "status");
_Static_assert(CUZK_ID_MAX == ENG_ID_MAX, "id size");
_Static_assert(CUZK_PROOF_BYTES == G16_PROOF_NBYTES, "proof size");
_Static_assert(CUZK_MESSAGE_MAX == sizeof(((cz_diag *)0)->msg), "message size");

struct cuzk_engine {
    eng_t *eng;
    char *param_cache; /* where cuzk_verify finds the verifying keys */
};

/* Copies the internal diagnostic to the caller's; returns err. */
static cuzk_err diag_out(cuzk_diag *out, cuzk_err err, const cz_diag *dg)
{
    if (out) {
        out->code = (int32_t)err;
        snprintf(out->message, sizeof(out->message), "%s",
                 err == CUZK_OK     ? ""
                 : dg && dg->msg[0] ? dg->msg
                                    : cuzk_strerror(err));
    }
    return err;
}

/* CUZK_E_INVAL with a message, for checks made here. */
static cuzk_err inval(cuzk_diag *out, const char *what)
{
    cz_diag dg;
    cz_diag_init(&dg);
    return diag_out(out, cz_fail(&dg, CUZK_E_INVAL, "%s", what), &dg);
}

const char *cuzk_version(void)
{
    return CUZK_VERSION_STRING;
}

uint32_t cuzk_api_version(void)
{
    return CUZK_API_VERSION;
}

const char *cuzk_kind_name(uint32_t kind)
{
    return kind < CUZK_KIND_COUNT ? eng_kind_name((eng_kind)kind) : "unspecified";
}

const char *cuzk_job_status_name(uint32_t status)
{
    static const char *const names[] = {"unknown", "completed", "failed", "cancelled", "pending"};
    return status < ARRAY_LEN(names) ? names[status] : "unknown";
}

/* ---------------------------------------------------------------------------------------------
 * The engine
 * ------------------------------------------------------------------------------------------- */

/* Reads the configuration (defaults < file < text) and translates it for the engine; sets the
 * process's log threshold. param_cache in *ecfg points into *cfg. */
static cuzk_err configure(srv_config *cfg, eng_config_t *ecfg, const char *path, const char *text,
                          cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    cz_log_level level = CZ_LOG_INFO;

    CZ_TRY(err, srv_config_init(cfg, dg), done);
    if (path) {
        CZ_TRY(err, srv_config_load_file(cfg, path, dg), done);
    }
    if (text) {
        CZ_TRY(err, srv_config_load_string(cfg, text, "config_text", dg), done);
    }
    CZ_TRY(err, srv_config_engine(cfg, ecfg, dg), done);
    if (cz_log_level_parse(&level, cfg->log_level)) {
        cz_log_threshold = level;
    }
done:
    return err;
}

cuzk_err cuzk_engine_new(cuzk_engine **out, const char *config_path, const char *config_text,
                         cuzk_diag *dgo)
{
    srv_config cfg;
    eng_config_t ecfg;
    cz_diag dg;
    cuzk_err err = CUZK_OK;
    cuzk_engine *e = NULL;

    if (!out) {
        return inval(dgo, "cuzk_engine_new: out is NULL");
    }
    *out = NULL;
    memset(&cfg, 0, sizeof(cfg));
    cz_diag_init(&dg);
    CZ_TRY(err, configure(&cfg, &ecfg, config_path, config_text, &dg), done);
    e = cz_calloc(1, sizeof(*e));
    if (!e || !(e->param_cache = cz_strdup(cfg.param_cache))) {
        err = cz_fail(&dg, CUZK_E_NOMEM, "engine");
        goto done;
    }
    CZ_TRY(err, eng_new(&e->eng, &ecfg, &dg), done);
    CZ_TRY(err, eng_register_builtin_kinds(e->eng, &dg), done);
    CZ_TRY(err, eng_start(e->eng, &dg), done);
    CZ_LOG(CZ_LOG_INFO, "event=ready api=%u version=%s param_cache=%s budget_bytes=%llu",
           (unsigned)CUZK_API_VERSION, CUZK_VERSION_STRING, e->param_cache,
           (unsigned long long)ecfg.mem_budget_bytes);
    *out = e;
    e = NULL; /* ownership moved to the caller */
done:
    cuzk_engine_free(e);
    srv_config_clear(&cfg);
    return diag_out(dgo, err, &dg);
}

size_t cuzk_engine_shutdown(cuzk_engine *engine, uint64_t timeout_ms)
{
    return engine ? eng_drain(engine->eng, timeout_ms) : 0;
}

void cuzk_engine_free(cuzk_engine *engine)
{
    if (!engine) {
        return;
    }
    eng_free(engine->eng);
    cz_free(engine->param_cache);
    cz_free(engine);
}

/* ---------------------------------------------------------------------------------------------
 * Requests
 * ------------------------------------------------------------------------------------------- */

static eng_bytes_t bytes32(const uint8_t *p)
{
    eng_bytes_t b = {p, p ? 32 : 0};
    return b;
}

/* The engine's form of req (borrowing its buffers). Out: *vps returns an owned array of the
 * vanilla proofs' slices (cz_free), NULL when there are none. The rules the engine checks
 * itself (eng_request_check) are left to it; those that keep us from reading bad memory or
 * allocating without bound are checked here. */
static cuzk_err to_eng_request(eng_request_t *r, eng_bytes_t **vps, const cuzk_request *req,
                               cz_diag *dg)
{
    *vps = NULL;
    memset(r, 0, sizeof(*r));
    if (req->kind >= CUZK_KIND_COUNT) {
        return cz_fail(dg, CUZK_E_INVAL, "invalid proof kind %u (expected 1..4)",
                       (unsigned)req->kind);
    }
    if (req->priority > CUZK_PRIORITY_CRITICAL) {
        return cz_fail(dg, CUZK_E_INVAL, "invalid priority %u (expected 0..4)",
                       (unsigned)req->priority);
    }
    if (!req->vanilla_proof && req->vanilla_proof_len) {
        return cz_fail(dg, CUZK_E_INVAL, "vanilla_proof is NULL with %zu bytes",
                       req->vanilla_proof_len);
    }
    if (req->n_vanilla_proofs > ENG_VANILLA_PROOFS_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "%zu vanilla proofs: no proof kind takes more than %d",
                       req->n_vanilla_proofs, ENG_VANILLA_PROOFS_MAX);
    }
    if (req->n_vanilla_proofs && (!req->vanilla_proofs || !req->vanilla_proof_lens)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "%zu vanilla proofs but vanilla_proofs or "
                       "vanilla_proof_lens is NULL",
                       req->n_vanilla_proofs);
    }
    if (req->n_vanilla_proofs) {
        *vps = cz_calloc(req->n_vanilla_proofs, sizeof(**vps));
        if (!*vps) {
            return cz_fail(dg, CUZK_E_NOMEM, "vanilla proofs");
        }
    }
    size_t off = 0;
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        size_t len = req->vanilla_proof_lens[i];
        if (len > SIZE_MAX - off) {
            cz_free(*vps);
            *vps = NULL;
            return cz_fail(dg, CUZK_E_INVAL, "vanilla_proof_lens overflow at entry %zu", i);
        }
        (*vps)[i].ptr = req->vanilla_proofs + off;
        (*vps)[i].len = len;
        off += len;
    }
    r->request_id = req->request_id;
    r->kind = (eng_kind)req->kind;
    r->priority = (eng_prio)req->priority;
    r->sector_size = req->sector_size;
    r->registered_proof = req->registered_proof;
    r->vanilla_proof.ptr = req->vanilla_proof;
    r->vanilla_proof.len = req->vanilla_proof_len;
    r->vanilla_proofs = *vps;
    r->n_vanilla_proofs = req->n_vanilla_proofs;
    r->sector_number = req->sector_number;
    r->miner_id = req->miner_id;
    r->randomness = bytes32(req->randomness);
    r->partition_index = req->partition_index;
    r->comm_r_old = bytes32(req->comm_r_old);
    r->comm_r_new = bytes32(req->comm_r_new);
    r->comm_d_new = bytes32(req->comm_d_new);
    return CUZK_OK;
}

cuzk_err cuzk_submit(cuzk_engine *engine, const cuzk_request *req, cuzk_job *out, cuzk_diag *dgo)
{
    eng_request_t r;
    eng_bytes_t *vps = NULL;
    eng_submit_info_t info;
    cz_diag dg;
    cuzk_err err = CUZK_OK;

    if (out) {
        memset(out, 0, sizeof(*out));
    }
    if (!engine || !req) {
        return inval(dgo, "cuzk_submit: engine or req is NULL");
    }
    cz_diag_init(&dg);
    CZ_TRY(err, to_eng_request(&r, &vps, req, &dg), done);
    CZ_TRY(err, eng_submit(engine->eng, &r, &info, &dg), done);
    if (out) {
        snprintf(out->id, sizeof(out->id), "%s", info.job_id);
        out->queue_position = info.queue_position;
        out->existing = info.existing;
    }
done:
    cz_free(vps);
    return diag_out(dgo, err, &dg);
}

/* ---------------------------------------------------------------------------------------------
 * Results
 * ------------------------------------------------------------------------------------------- */

void cuzk_proof_clear(cuzk_proof *proof)
{
    if (!proof) {
        return;
    }
    cz_free(proof->proof);
    memset(proof, 0, sizeof(*proof));
}

/* Moves the engine's copy of a result into out (the proof bytes change owner); releases c.
 * UNKNOWN becomes CUZK_E_NOT_FOUND. */
static cuzk_err take_result(cuzk_proof *out, eng_result_copy_t *c, const char *job_id, cz_diag *dg)
{
    const eng_result_t *r = &c->r;
    cuzk_err err = CUZK_OK;

    if (r->status == ENG_STATUS_UNKNOWN) {
        err = cz_fail(dg, CUZK_E_NOT_FOUND, "job %s not found", job_id);
        eng_result_copy_clear(c);
        return err;
    }
    snprintf(out->job_id, sizeof(out->job_id), "%s", r->job_id);
    out->kind = (uint32_t)r->kind;
    out->status = (uint32_t)r->status;
    snprintf(out->error, sizeof(out->error), "%s", r->error ? r->error : "");
    if (r->status == ENG_STATUS_COMPLETED) {
        out->proof = c->proof_buf;
        out->proof_len = r->proof_len;
        c->proof_buf = NULL;
        out->queue_wait_ms = r->timings.queue_wait_ms;
        out->srs_load_ms = r->timings.srs_load_ms;
        out->synthesis_ms = r->timings.synthesis_ms;
        out->prove_ms = r->timings.prove_ms;
        out->verify_ms = r->timings.verify_ms;
        out->total_ms = r->timings.total_ms;
    } else if (r->status == ENG_STATUS_FAILED && !out->error[0]) {
        snprintf(out->error, sizeof(out->error), "out of memory copying the result");
    }
    out->batch_size = (uint32_t)r->batch_size;
    eng_result_copy_clear(c);
    return err;
}

/* A job id names a job: not empty, and what eng_id_check accepts. */
static cuzk_err id_check(const char *job_id, cz_diag *dg)
{
    if (!job_id[0]) {
        return cz_fail(dg, CUZK_E_INVAL, "job_id is empty");
    }
    return eng_id_check(job_id, "job_id", dg);
}

/* Checks the arguments common to await and poll; clears out when it is not NULL. */
static cuzk_err job_args(cuzk_engine *engine, const char *job_id, cuzk_proof *out, cz_diag *dg)
{
    if (out) {
        memset(out, 0, sizeof(*out));
    }
    if (!engine || !job_id || !out) {
        return cz_fail(dg, CUZK_E_INVAL, "engine, job_id or out is NULL");
    }
    return id_check(job_id, dg);
}

cuzk_err cuzk_await(cuzk_engine *engine, const char *job_id, uint64_t timeout_ms, cuzk_proof *out,
                    cuzk_diag *dgo)
{
    eng_result_copy_t c;
    cz_diag dg;
    cuzk_err err = CUZK_OK;

    cz_diag_init(&dg);
    CZ_TRY(err, job_args(engine, job_id, out, &dg), done);
    eng_wait(engine->eng, job_id, timeout_ms, &c);
    err = take_result(out, &c, job_id, &dg);
done:
    return diag_out(dgo, err, &dg);
}

cuzk_err cuzk_poll(cuzk_engine *engine, const char *job_id, cuzk_proof *out, cuzk_diag *dgo)
{
    eng_result_copy_t c;
    cz_diag dg;
    cuzk_err err = CUZK_OK;

    cz_diag_init(&dg);
    CZ_TRY(err, job_args(engine, job_id, out, &dg), done);
    eng_poll(engine->eng, job_id, &c);
    err = take_result(out, &c, job_id, &dg);
done:
    return diag_out(dgo, err, &dg);
}

cuzk_err cuzk_prove(cuzk_engine *engine, const cuzk_request *req, cuzk_proof *out, cuzk_diag *dgo)
{
    cuzk_job job;

    if (out) {
        memset(out, 0, sizeof(*out));
    }
    if (!out) {
        return inval(dgo, "cuzk_prove: out is NULL");
    }
    cuzk_err err = cuzk_submit(engine, req, &job, dgo);
    if (err != CUZK_OK) {
        return err;
    }
    return cuzk_await(engine, job.id, 0, out, dgo);
}

cuzk_err cuzk_cancel(cuzk_engine *engine, const char *job_id, bool *was_running, cuzk_diag *dgo)
{
    cz_diag dg;
    cuzk_err err = CUZK_OK;
    bool running = false;

    if (was_running) {
        *was_running = false;
    }
    cz_diag_init(&dg);
    if (!engine || !job_id) {
        err = cz_fail(&dg, CUZK_E_INVAL, "engine or job_id is NULL");
        goto done;
    }
    CZ_TRY(err, id_check(job_id, &dg), done);
    if (!eng_cancel(engine->eng, job_id, &running)) {
        err = cz_fail(&dg, CUZK_E_NOT_FOUND,
                      "job %s is not queued or running (unknown, finished or already cancelled)",
                      job_id);
        goto done;
    }
    if (was_running) {
        *was_running = running;
    }
done:
    return diag_out(dgo, err, &dg);
}

/* ---------------------------------------------------------------------------------------------
 * Verification
 * ------------------------------------------------------------------------------------------- */

/* Loads the verifying key of o's circuit: the ".vk" file beside its ".params" in the cache. */
static cuzk_err load_vk(g16_vk_t **vk, const char *param_cache, const eng_offline_t *o, cz_diag *dg)
{
    char name[256], path[4096];
    size_t n;
    static const char params_ext[] = ".params";

    *vk = NULL;
    if (!eng_offline_srs_file(o, name, sizeof(name))) {
        return cz_fail(dg, CUZK_E_INVAL, "no parameter file is known for circuit %s",
                       eng_offline_plan(o)->circuit_id);
    }
    n = strlen(name);
    if (n < sizeof(params_ext) - 1 ||
        strcmp(name + n - (sizeof(params_ext) - 1), params_ext) != 0) {
        return cz_fail(dg, CUZK_E_INVAL, "parameter file %s does not end in .params", name);
    }
    name[n - (sizeof(params_ext) - 1)] = '\0';
    if ((size_t)snprintf(path, sizeof(path), "%s/%s.vk", param_cache, name) >= sizeof(path)) {
        return cz_fail(dg, CUZK_E_INVAL, "parameter cache path too long");
    }
    return g16_vk_load(vk, path, dg);
}

/* Verifies each partition's proof against its public inputs; *valid is true iff all do. */
static cuzk_err verify_partitions(eng_offline_t *o, const g16_vk_t *vk, const uint8_t *proof,
                                  bool *valid, cz_diag *dg)
{
    const eng_plan_t *plan = eng_offline_plan(o);
    size_t n = vk->ic_len - 1;
    fr_t *x = cz_calloc(n ? n : 1, sizeof(fr_t));
    g16_pvk_t pvk;
    cuzk_err err = CUZK_OK;

    *valid = false;
    if (!x) {
        return cz_fail(dg, CUZK_E_NOMEM, "public inputs");
    }
    g16_pvk_init(&pvk, vk);
    bool all = true;
    for (size_t k = 0; k < plan->num_partitions && all; k++) {
        g16_proof_t p;
        CZ_TRY(err, g16_proof_from_bytes(&p, proof + k * G16_PROOF_NBYTES, dg), done);
        CZ_TRY(err, eng_offline_public_inputs(o, k, x, n, dg), done);
        CZ_TRY(err, g16_verify(&pvk, &all, &p, x, n, dg), done);
    }
    *valid = all;
done:
    cz_free(x);
    return err;
}

cuzk_err cuzk_verify(cuzk_engine *engine, const cuzk_request *req, const uint8_t *proof,
                     size_t proof_len, bool *valid, cuzk_diag *dgo)
{
    eng_request_t r;
    eng_bytes_t *vps = NULL;
    eng_offline_t *o = NULL;
    g16_vk_t *vk = NULL;
    cz_diag dg;
    cuzk_err err = CUZK_OK;

    if (valid) {
        *valid = false;
    }
    if (!engine || !req || !proof || !valid) {
        return inval(dgo, "cuzk_verify: engine, req, proof or valid is NULL");
    }
    cz_diag_init(&dg);
    CZ_TRY(err, to_eng_request(&r, &vps, req, &dg), done);
    CZ_TRY(err, eng_offline_new(&o, NULL, &r, NULL, true, &dg), done);
    size_t parts = eng_offline_plan(o)->num_partitions;
    if (proof_len != parts * G16_PROOF_NBYTES) {
        err = cz_fail(&dg, CUZK_E_INVAL,
                      "proof is %zu bytes, the request has %zu partitions "
                      "(%zu bytes)",
                      proof_len, parts, parts * G16_PROOF_NBYTES);
        goto done;
    }
    CZ_TRY(err, load_vk(&vk, engine->param_cache, o, &dg), done);
    CZ_TRY(err, verify_partitions(o, vk, proof, valid, &dg), done);
done:
    g16_vk_free(vk);
    eng_offline_free(o);
    cz_free(vps);
    return diag_out(dgo, err, &dg);
}

/* ---------------------------------------------------------------------------------------------
 * Status and metrics
 * ------------------------------------------------------------------------------------------- */

cuzk_err cuzk_get_status(cuzk_engine *engine, cuzk_status *out, cuzk_diag *dgo)
{
    eng_status_info_t st;
    cz_diag dg;
    cuzk_err err = CUZK_OK;

    if (out) {
        memset(out, 0, sizeof(*out));
    }
    if (!engine || !out) {
        return inval(dgo, "cuzk_get_status: engine or out is NULL");
    }
    cz_diag_init(&dg);
    CZ_TRY(err, eng_get_status(engine->eng, &st, &dg), done);
    for (size_t i = 0; i < ENG_KIND_COUNT - 1; i++) {
        size_t kind = (size_t)st.queues[i].kind;
        if (kind < CUZK_KIND_COUNT) {
            out->pending[kind] = st.queues[i].pending;
            out->in_progress[kind] = st.queues[i].in_progress;
        }
    }
    out->completed = st.completed;
    out->failed = st.failed;
    out->cancelled = st.cancelled;
    out->uptime_s = st.uptime_s;
    out->mem_used_bytes = st.mem_used_bytes;
    out->mem_budget_bytes = st.mem_budget_bytes;
    out->n_gpus = (uint32_t)st.n_gpus;
    out->n_srs_loaded = (uint32_t)st.n_srs;
    eng_status_clear(&st);
done:
    return diag_out(dgo, err, &dg);
}

cuzk_err cuzk_metrics(cuzk_engine *engine, char **out, cuzk_diag *dgo)
{
    cz_diag dg;

    if (out) {
        *out = NULL;
    }
    if (!engine || !out) {
        return inval(dgo, "cuzk_metrics: engine or out is NULL");
    }
    cz_diag_init(&dg);
    return diag_out(dgo, eng_metrics_text(engine->eng, out, &dg), &dg);
}

void cuzk_string_free(char *s)
{
    cz_free(s);
}
