/* service.c - the cuzk.v1.ProvingEngine methods: protobuf-c decoding of each request, the
 * engine call, protobuf-c encoding of the response. Field use follows spec vanilla-proofs.md
 * section 4 and the Rust daemon (cuzk-server/src/service.rs) where the spec is silent:
 * job_id = request_id, AwaitProof of an unknown job is NOT_FOUND, Prove without `submit` is
 * INVALID_ARGUMENT. Malformed bytes, unknown kinds and wrong field sizes are INVALID_ARGUMENT
 * with a message saying what is wrong; a valid request of a kind without a handler completes
 * with status FAILED ("proof kind X is not available in this build"). GetStatus also fills
 * running_jobs (field 100), our extension of Curio's proto, which Curio's client skips.
 *
 * Threads: runs on gRPC callback threads and never blocks there: AwaitProof, Prove and
 * PreloadSRS hand their call to the engine, which finishes it from its own thread.
 */
#include "server/internal.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/log.h"
#include "cuzk/v1/proving.pb-c.h"

const char *const srv_method_paths[SRV_NMETHODS] = {
    "/cuzk.v1.ProvingEngine/SubmitProof", "/cuzk.v1.ProvingEngine/AwaitProof",
    "/cuzk.v1.ProvingEngine/Prove",       "/cuzk.v1.ProvingEngine/CancelProof",
    "/cuzk.v1.ProvingEngine/GetStatus",   "/cuzk.v1.ProvingEngine/GetMetrics",
    "/cuzk.v1.ProvingEngine/PreloadSRS",  "/cuzk.v1.ProvingEngine/EvictSRS",
};

enum { M_SUBMIT, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_PRELOAD, M_EVICT };

const bool srv_method_large[SRV_NMETHODS] = {[M_SUBMIT] = true, [M_PROVE] = true};

/* The wire enums must keep the engine's numbering. */
_Static_assert((int)CUZK__V1__PROOF_KIND__POREP_SEAL_COMMIT == (int)ENG_KIND_POREP, "kind");
_Static_assert((int)CUZK__V1__PROOF_KIND__SNAP_DEALS_UPDATE == (int)ENG_KIND_SNAP, "kind");
_Static_assert((int)CUZK__V1__PROOF_KIND__WINDOW_POST_PARTITION == (int)ENG_KIND_WINDOW_POST,
               "kind");
_Static_assert((int)CUZK__V1__PROOF_KIND__WINNING_POST == (int)ENG_KIND_WINNING_POST, "kind");
_Static_assert((int)CUZK__V1__PRIORITY__CRITICAL == (int)ENG_PRIO_CRITICAL, "priority");
_Static_assert((int)CUZK__V1__PRIORITY__LOW == (int)ENG_PRIO_LOW, "priority");
_Static_assert((int)CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__TIMEOUT == (int)ENG_STATUS_TIMEOUT,
               "status");
_Static_assert((int)CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__CANCELLED == (int)ENG_STATUS_CANCELLED,
               "status");
_Static_assert((int)CUZK__V1__SRSSTATUS__TIER__COLD == (int)ENG_TIER_COLD, "tier");

static void reply(srv_call *call, const ProtobufCMessage *m)
{
    size_t n = protobuf_c_message_get_packed_size(m);
    uint8_t *buf = cz_malloc(n ? n : 1);
    if (!buf) {
        srv_call_fail(call, SRV_RESOURCE_EXHAUSTED, "out of memory encoding the response");
        return;
    }
    protobuf_c_message_pack(m, buf);
    srv_call_reply(call, buf, n);
    cz_free(buf);
}

static srv_code code_of(cuzk_err e)
{
    switch (e) {
    case CUZK_E_INVAL:
    case CUZK_E_FORMAT:
        return SRV_INVALID_ARGUMENT;
    case CUZK_E_NOMEM:
        return SRV_RESOURCE_EXHAUSTED;
    case CUZK_E_CANCELLED:
        return SRV_UNAVAILABLE;
    case CUZK_E_EXISTS:
        return SRV_ALREADY_EXISTS;
    case CUZK_E_IO:
    case CUZK_E_NOT_IN_GROUP:
        return SRV_FAILED_PRECONDITION;
    default:
        return SRV_INTERNAL;
    }
}

static void fail_decode(srv_call *call, const char *what, size_t len)
{
    char msg[160];
    snprintf(msg, sizeof(msg), "malformed %s (%zu bytes)", what, len);
    CZ_LOG(CZ_LOG_INFO, "rpc=%s event=rejected reason=malformed bytes=%zu", what, len);
    srv_call_fail(call, SRV_INVALID_ARGUMENT, msg);
}

/* Protobuf wire format (keys are varints field << 3 | type; type 0 varint, 1 fixed64, 2 length-
 * delimited, 5 fixed32). protobuf-c hands strings out NUL-terminated, so an id with a NUL
 * inside would silently read as its prefix and alias another job: the raw bytes are looked at
 * instead. */
static bool wire_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    *v = 0;
    for (unsigned shift = 0; shift < 64 && *p < end; shift += 7) {
        uint8_t b = *(*p)++;
        *v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            return true;
        }
    }
    return false;
}

/* Calls visit(ctx, bytes, n) for every length-delimited value at field path[0] / path[1] / ...
 * (messages nested depth deep), until visit returns false; returns false then, or when the
 * bytes are not well formed. */
static bool wire_visit(const uint8_t *p, size_t len, const uint32_t *path, size_t depth,
                       bool (*visit)(void *ctx, const uint8_t *v, size_t n), void *ctx)
{
    const uint8_t *end = p + len;

    while (p < end) {
        uint64_t key, n;
        if (!wire_varint(&p, end, &key)) {
            return false;
        }
        switch (key & 7) {
        case 0:
            if (!wire_varint(&p, end, &n)) {
                return false;
            }
            break;
        case 1:
        case 5:
            n = (key & 7) == 1 ? 8 : 4;
            if ((size_t)(end - p) < n) {
                return false;
            }
            p += n;
            break;
        case 2:
            if (!wire_varint(&p, end, &n) || n > (size_t)(end - p)) {
                return false;
            }
            if ((key >> 3) == path[0] &&
                !(depth == 1 ? visit(ctx, p, (size_t)n)
                             : wire_visit(p, (size_t)n, path + 1, depth - 1, visit, ctx))) {
                return false;
            }
            p += n;
            break;
        default:
            return false;
        }
    }
    return true;
}

static bool no_nul(void *ctx, const uint8_t *v, size_t n)
{
    (void)ctx;
    return memchr(v, 0, n) == NULL;
}

/* Counts up to ENG_VANILLA_PROOFS_MAX + 1 values, then stops the walk. */
static bool count_entry(void *ctx, const uint8_t *v, size_t n)
{
    size_t *count = ctx;
    (void)v;
    (void)n;
    return ++*count <= ENG_VANILLA_PROOFS_MAX;
}

/* Refuses, before anything is decoded, a request whose vanilla_proofs (field 11 at `path`)
 * has more entries than any proof kind takes: decoding 87 million one-byte entries would take
 * a minute and gigabytes. Finishes the call and returns false then. */
static bool entries_ok(srv_call *call, const uint8_t *req, size_t len, const uint32_t *path,
                       size_t depth)
{
    size_t count = 0;
    if (wire_visit(req, len, path, depth, count_entry, &count) || count <= ENG_VANILLA_PROOFS_MAX) {
        return true;
    }
    char msg[160];
    snprintf(msg, sizeof(msg), "more than %d vanilla_proofs entries (no proof kind takes more)",
             ENG_VANILLA_PROOFS_MAX);
    CZ_LOG(CZ_LOG_INFO, "rpc=submit event=rejected reason=too_many_entries bytes=%zu", len);
    srv_call_fail(call, SRV_INVALID_ARGUMENT, msg);
    return false;
}

/* Finishes the call with INVALID_ARGUMENT and returns false when the id at `path` holds a NUL
 * byte or breaks eng_id_check. */
static bool id_ok(srv_call *call, const uint8_t *req, size_t len, const uint32_t *path,
                  size_t depth, const char *id, const char *what)
{
    cz_diag dg;
    char msg[sizeof(dg.msg)];

    cz_diag_init(&dg);
    if (!wire_visit(req, len, path, depth, no_nul, NULL)) {
        snprintf(msg, sizeof(msg), "%s must not contain NUL bytes", what);
    } else if (id[0] && eng_id_check(id, what, &dg) != CUZK_OK) {
        snprintf(msg, sizeof(msg), "%s", dg.msg);
    } else {
        return true;
    }
    CZ_LOG(CZ_LOG_INFO, "rpc=%s event=rejected reason=bad_id", what);
    srv_call_fail(call, SRV_INVALID_ARGUMENT, msg);
    return false;
}

/* Finishes the call with INVALID_ARGUMENT and returns false unless the circuit_id (field 1 of
 * PreloadSRS / EvictSRS) is 1 .. ENG_CIRCUIT_ID_MAX - 1 bytes without NUL (which would alias
 * its prefix) or another control character. */
static bool circuit_id_ok(srv_call *call, const uint8_t *req, size_t len, const char *id,
                          const char *rpc)
{
    static const uint32_t path[] = {1};
    char msg[160];
    size_t n = strlen(id);

    msg[0] = 0;
    if (!wire_visit(req, len, path, 1, no_nul, NULL)) {
        snprintf(msg, sizeof(msg), "circuit_id must not contain NUL bytes");
    } else if (!n || n >= ENG_CIRCUIT_ID_MAX) {
        snprintf(msg, sizeof(msg), "circuit_id is empty or too long (at most %d bytes)",
                 ENG_CIRCUIT_ID_MAX - 1);
    }
    for (size_t i = 0; !msg[0] && i < n; i++) {
        if ((unsigned char)id[i] < 0x20 || id[i] == 0x7f) {
            snprintf(msg, sizeof(msg), "circuit_id must not contain control characters (0x%02x)",
                     (unsigned char)id[i]);
        }
    }
    if (!msg[0]) {
        return true;
    }
    CZ_LOG(CZ_LOG_INFO, "rpc=%s event=rejected reason=bad_circuit_id", rpc);
    srv_call_fail(call, SRV_INVALID_ARGUMENT, msg);
    return false;
}

static eng_bytes_t bytes_of(ProtobufCBinaryData b)
{
    eng_bytes_t r = {b.data, b.len};
    return r;
}

/* Submits m; on failure finishes the call and returns false. */
static bool submit(eng_t *eng, srv_call *call, const Cuzk__V1__SubmitProofRequest *m,
                   eng_submit_info_t *info)
{
    eng_request_t r;
    eng_bytes_t *vps = NULL;
    cz_diag dg;

    memset(&r, 0, sizeof(r));
    if (m->n_vanilla_proofs) {
        vps = cz_calloc(m->n_vanilla_proofs, sizeof(*vps));
        if (!vps) {
            srv_call_fail(call, SRV_RESOURCE_EXHAUSTED, "out of memory");
            return false;
        }
        for (size_t i = 0; i < m->n_vanilla_proofs; i++) {
            vps[i] = bytes_of(m->vanilla_proofs[i]);
        }
    }
    r.request_id = m->request_id;
    r.kind = (eng_kind)m->proof_kind;
    r.sector_size = m->sector_size;
    r.registered_proof = m->registered_proof;
    r.priority = (eng_prio)m->priority;
    r.vanilla_proof = bytes_of(m->vanilla_proof);
    r.vanilla_proofs = vps;
    r.n_vanilla_proofs = m->n_vanilla_proofs;
    r.sector_number = m->sector_number;
    r.miner_id = m->miner_id;
    r.randomness = bytes_of(m->randomness);
    r.partition_index = m->partition_index;
    r.comm_r_old = bytes_of(m->comm_r_old);
    r.comm_r_new = bytes_of(m->comm_r_new);
    r.comm_d_new = bytes_of(m->comm_d_new);
    cz_diag_init(&dg);
    cuzk_err err = eng_submit(eng, &r, info, &dg);
    cz_free(vps);
    if (err != CUZK_OK) {
        char qid[CZ_LOG_QUOTED_MAX(ENG_ID_MAX)], qmsg[CZ_LOG_QUOTED_MAX(sizeof(dg.msg))];
        CZ_LOG(CZ_LOG_INFO, "rpc=submit request_id=%s event=rejected error=%s",
               cz_log_quote(qid, sizeof(qid), m->request_id),
               cz_log_quote(qmsg, sizeof(qmsg), dg.msg));
        srv_call_fail(call, code_of(err), dg.msg[0] ? dg.msg : cuzk_strerror(err));
        return false;
    }
    return true;
}

/* ---------------------------------------------------------------------------------------------
 * Results (AwaitProof, Prove)
 * ------------------------------------------------------------------------------------------- */

typedef struct await_ctx {
    srv_call *call;
    bool prove;
} await_ctx;

static void on_result(void *arg, const eng_result_t *res)
{
    await_ctx *a = arg;

    if (res->status == ENG_STATUS_UNKNOWN) {
        char msg[ENG_ID_MAX + 64];
        snprintf(msg, sizeof(msg), "job %.*s not found", ENG_ID_MAX, res->job_id);
        srv_call_fail(a->call, SRV_NOT_FOUND, msg);
        cz_free(a);
        return;
    }
    Cuzk__V1__AwaitProofResponse r = CUZK__V1__AWAIT_PROOF_RESPONSE__INIT;
    r.job_id = (char *)res->job_id;
    r.status = (Cuzk__V1__AwaitProofResponse__Status)res->status;
    r.proof.data = (uint8_t *)res->proof;
    r.proof.len = res->proof_len;
    r.error_message = (char *)(res->error ? res->error : "");
    if (res->status == ENG_STATUS_COMPLETED) {
        r.queue_wait_ms = res->timings.queue_wait_ms;
        r.srs_load_ms = res->timings.srs_load_ms;
        r.synthesis_ms = res->timings.synthesis_ms;
        r.gpu_compute_ms = res->timings.prove_ms;
        r.total_ms = res->timings.total_ms;
        r.h2d_bytes = res->timings.h2d_bytes;
    }
    if (a->prove) {
        Cuzk__V1__ProveResponse p = CUZK__V1__PROVE_RESPONSE__INIT;
        p.result = &r;
        reply(a->call, &p.base);
    } else {
        reply(a->call, &r.base);
    }
    cz_free(a);
}

static void await_job(eng_t *eng, srv_call *call, const char *job_id, uint64_t timeout_ms,
                      bool prove)
{
    await_ctx *a = cz_malloc(sizeof(*a));
    if (!a) {
        srv_call_fail(call, SRV_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    a->call = call;
    a->prove = prove;
    eng_await(eng, job_id, timeout_ms, on_result, a);
}

/* ---------------------------------------------------------------------------------------------
 * Methods
 * ------------------------------------------------------------------------------------------- */

static void m_submit(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    static const uint32_t vp_path[] = {11};
    if (!entries_ok(call, req, len, vp_path, 1)) {
        return;
    }
    Cuzk__V1__SubmitProofRequest *m = cuzk__v1__submit_proof_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "SubmitProofRequest", len);
        return;
    }
    static const uint32_t id_path[] = {1};
    eng_submit_info_t info;
    if (id_ok(call, req, len, id_path, 1, m->request_id, "request_id") &&
        submit(eng, call, m, &info)) {
        Cuzk__V1__SubmitProofResponse r = CUZK__V1__SUBMIT_PROOF_RESPONSE__INIT;
        r.job_id = info.job_id;
        r.queue_position = info.queue_position;
        reply(call, &r.base);
    }
    cuzk__v1__submit_proof_request__free_unpacked(m, NULL);
}

static void m_await(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    Cuzk__V1__AwaitProofRequest *m = cuzk__v1__await_proof_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "AwaitProofRequest", len);
        return;
    }
    static const uint32_t id_path[] = {1};
    if (!m->job_id[0]) {
        srv_call_fail(call, SRV_INVALID_ARGUMENT, "job_id is empty");
    } else if (id_ok(call, req, len, id_path, 1, m->job_id, "job_id")) {
        await_job(eng, call, m->job_id, m->timeout_ms, false);
    }
    cuzk__v1__await_proof_request__free_unpacked(m, NULL);
}

static void m_prove(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    static const uint32_t vp_path[] = {1, 11}; /* submit.vanilla_proofs */
    if (!entries_ok(call, req, len, vp_path, 2)) {
        return;
    }
    Cuzk__V1__ProveRequest *m = cuzk__v1__prove_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "ProveRequest", len);
        return;
    }
    static const uint32_t id_path[] = {1, 1}; /* submit.request_id */
    eng_submit_info_t info;
    if (!m->submit) {
        srv_call_fail(call, SRV_INVALID_ARGUMENT, "missing submit field");
    } else if (id_ok(call, req, len, id_path, 2, m->submit->request_id, "request_id") &&
               submit(eng, call, m->submit, &info)) {
        await_job(eng, call, info.job_id, 0, true);
    }
    cuzk__v1__prove_request__free_unpacked(m, NULL);
}

static void m_cancel(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    Cuzk__V1__CancelProofRequest *m = cuzk__v1__cancel_proof_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "CancelProofRequest", len);
        return;
    }
    static const uint32_t id_path[] = {1};
    if (!m->job_id[0]) {
        srv_call_fail(call, SRV_INVALID_ARGUMENT, "job_id is empty");
    } else if (id_ok(call, req, len, id_path, 1, m->job_id, "job_id")) {
        bool was_running = false;
        eng_cancel(eng, m->job_id, &was_running);
        Cuzk__V1__CancelProofResponse r = CUZK__V1__CANCEL_PROOF_RESPONSE__INIT;
        r.was_running = was_running;
        reply(call, &r.base);
    }
    cuzk__v1__cancel_proof_request__free_unpacked(m, NULL);
}

/* The repeated fields of a GetStatusResponse: the messages and the pointer arrays protobuf-c
 * reads them through (NULL when empty). Strings point into the engine's snapshot. */
typedef struct status_wire {
    Cuzk__V1__SRSStatus *ss, **sp;
    Cuzk__V1__GPUStatus *gs, **gp;
    Cuzk__V1__JobStatus *js, **jp;
} status_wire;

static void status_wire_free(status_wire *w)
{
    cz_free(w->ss);
    cz_free(w->sp);
    cz_free(w->gs);
    cz_free(w->gp);
    cz_free(w->js);
    cz_free(w->jp);
}

/* Allocates every array of w for st's counts; false when out of memory (w freed). */
static bool status_wire_alloc(status_wire *w, const eng_status_info_t *st)
{
    memset(w, 0, sizeof(*w));
    if (st->n_srs) {
        w->ss = cz_calloc(st->n_srs, sizeof(*w->ss));
        w->sp = cz_calloc(st->n_srs, sizeof(*w->sp));
    }
    if (st->n_gpus) {
        w->gs = cz_calloc(st->n_gpus, sizeof(*w->gs));
        w->gp = cz_calloc(st->n_gpus, sizeof(*w->gp));
    }
    if (st->n_jobs) {
        w->js = cz_calloc(st->n_jobs, sizeof(*w->js));
        w->jp = cz_calloc(st->n_jobs, sizeof(*w->jp));
    }
    if ((st->n_srs && (!w->ss || !w->sp)) || (st->n_gpus && (!w->gs || !w->gp)) ||
        (st->n_jobs && (!w->js || !w->jp))) {
        status_wire_free(w);
        return false;
    }
    return true;
}

/* The parameters and devices of st into w (status_wire_alloc'd for st). */
static void status_fill_srs_gpus(status_wire *w, const eng_status_info_t *st)
{
    for (size_t i = 0; i < st->n_srs; i++) {
        Cuzk__V1__SRSStatus s = CUZK__V1__SRSSTATUS__INIT;
        s.circuit_id = (char *)st->srs[i].circuit_id;
        s.tier = (Cuzk__V1__SRSStatus__Tier)st->srs[i].tier;
        s.size_bytes = st->srs[i].size_bytes;
        s.ref_count = st->srs[i].ref_count;
        w->ss[i] = s;
        w->sp[i] = &w->ss[i];
    }
    for (size_t i = 0; i < st->n_gpus; i++) {
        const eng_gpu_info_t *e = &st->gpus[i];
        Cuzk__V1__GPUStatus g = CUZK__V1__GPUSTATUS__INIT;
        g.ordinal = e->ordinal;
        g.name = (char *)e->name;
        g.vram_total_bytes = e->total_bytes;
        g.vram_free_bytes = e->free_bytes;
        g.current_job_id = (char *)e->current_job_id;
        g.current_proof_kind =
            (char *)(e->current_kind == ENG_KIND_UNSPECIFIED ? "" : eng_kind_name(e->current_kind));
        g.resident_circuits = e->n_resident;
        g.streamed_circuits = e->n_streamed;
        g.h2d_bytes = e->h2d_bytes;
        g.memory_cap_bytes = e->mem_cap_bytes;
        w->gs[i] = g;
        w->gp[i] = &w->gs[i];
    }
}

/* The running jobs of st into w: GetStatusResponse.running_jobs, our extension (field 100). */
static void status_fill_jobs(status_wire *w, const eng_status_info_t *st)
{
    for (size_t i = 0; i < st->n_jobs; i++) {
        const eng_job_info_t *e = &st->jobs[i];
        Cuzk__V1__JobStatus j = CUZK__V1__JOB_STATUS__INIT;
        j.request_id = (char *)e->job_id;
        j.proof_kind = (char *)eng_kind_name(e->kind);
        j.partitions_total = (uint32_t)e->partitions; /* at most ENG_MAX_PARTITIONS */
        j.partitions_done = (uint32_t)e->partitions_done;
        j.stage = (char *)eng_job_stage_name(e->stage);
        j.age_ms = e->age_ms;
        j.running_ms = e->running_ms;
        w->js[i] = j;
        w->jp[i] = &w->js[i];
    }
}

static void m_status(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    Cuzk__V1__GetStatusRequest *m = cuzk__v1__get_status_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "GetStatusRequest", len);
        return;
    }
    cuzk__v1__get_status_request__free_unpacked(m, NULL);

    eng_status_info_t st;
    cz_diag dg;
    cz_diag_init(&dg);
    if (eng_get_status(eng, &st, &dg) != CUZK_OK) {
        srv_call_fail(call, SRV_RESOURCE_EXHAUSTED, dg.msg);
        return;
    }
    enum { NQ = ENG_KIND_COUNT - 1 };
    Cuzk__V1__QueueStatus qs[NQ];
    Cuzk__V1__QueueStatus *qp[NQ];
    for (size_t i = 0; i < NQ; i++) {
        Cuzk__V1__QueueStatus q = CUZK__V1__QUEUE_STATUS__INIT;
        q.proof_kind = (char *)eng_kind_name(st.queues[i].kind);
        q.pending = st.queues[i].pending;
        q.in_progress = st.queues[i].in_progress;
        qs[i] = q;
        qp[i] = &qs[i];
    }
    status_wire w;
    if (!status_wire_alloc(&w, &st)) {
        eng_status_clear(&st);
        srv_call_fail(call, SRV_RESOURCE_EXHAUSTED, "out of memory");
        return;
    }
    status_fill_srs_gpus(&w, &st);
    status_fill_jobs(&w, &st);
    Cuzk__V1__GetStatusResponse r = CUZK__V1__GET_STATUS_RESPONSE__INIT;
    r.n_gpus = st.n_gpus; /* the engine's devices in use (device memory as last read) */
    r.gpus = w.gp;
    r.n_loaded_srs = st.n_srs;
    r.loaded_srs = w.sp;
    r.n_queues = NQ;
    r.queues = qp;
    r.total_proofs_completed = st.completed;
    r.total_proofs_failed = st.failed;
    r.uptime_seconds = st.uptime_s;
    r.pinned_memory_bytes = st.mem_used_bytes;
    r.pinned_memory_limit_bytes = st.mem_budget_bytes;
    r.n_running_jobs = st.n_jobs;
    r.running_jobs = w.jp;
    reply(call, &r.base);
    status_wire_free(&w);
    eng_status_clear(&st);
}

static void m_metrics(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    Cuzk__V1__GetMetricsRequest *m = cuzk__v1__get_metrics_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "GetMetricsRequest", len);
        return;
    }
    cuzk__v1__get_metrics_request__free_unpacked(m, NULL);
    char *text = NULL;
    cz_diag dg;
    cz_diag_init(&dg);
    if (eng_metrics_text(eng, &text, &dg) != CUZK_OK) {
        srv_call_fail(call, SRV_RESOURCE_EXHAUSTED, dg.msg);
        return;
    }
    Cuzk__V1__GetMetricsResponse r = CUZK__V1__GET_METRICS_RESPONSE__INIT;
    r.prometheus_text = text;
    reply(call, &r.base);
    cz_free(text);
}

static void on_preload(void *arg, cuzk_err err, const char *msg, bool already, uint64_t ms)
{
    srv_call *call = arg;
    if (err != CUZK_OK) {
        srv_call_fail(call, err == CUZK_E_INVAL ? SRV_NOT_FOUND : code_of(err), msg);
        return;
    }
    Cuzk__V1__PreloadSrsResponse r = CUZK__V1__PRELOAD_SRS_RESPONSE__INIT;
    r.already_loaded = already;
    r.load_time_ms = ms;
    reply(call, &r.base);
}

static void m_preload(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    Cuzk__V1__PreloadSrsRequest *m = cuzk__v1__preload_srs_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "PreloadSrsRequest", len);
        return;
    }
    if (circuit_id_ok(call, req, len, m->circuit_id, "preload")) {
        eng_srs_preload(eng, m->circuit_id, on_preload, call);
    }
    cuzk__v1__preload_srs_request__free_unpacked(m, NULL);
}

static void m_evict(eng_t *eng, srv_call *call, const uint8_t *req, size_t len)
{
    Cuzk__V1__EvictSrsRequest *m = cuzk__v1__evict_srs_request__unpack(NULL, len, req);
    if (!m) {
        fail_decode(call, "EvictSrsRequest", len);
        return;
    }
    bool was_loaded = false;
    uint64_t freed = 0;
    cz_diag dg;
    cz_diag_init(&dg);
    if (!circuit_id_ok(call, req, len, m->circuit_id, "evict")) {
        /* refused */
    } else if (eng_srs_evict(eng, m->circuit_id, &was_loaded, &freed, &dg) != CUZK_OK) {
        srv_call_fail(call, SRV_NOT_FOUND, dg.msg);
    } else {
        Cuzk__V1__EvictSrsResponse r = CUZK__V1__EVICT_SRS_RESPONSE__INIT;
        r.was_loaded = was_loaded;
        r.freed_bytes = freed;
        reply(call, &r.base);
    }
    cuzk__v1__evict_srs_request__free_unpacked(m, NULL);
}

void srv_service_handle(void *ctx, srv_call *call, size_t method, const uint8_t *req, size_t len)
{
    eng_t *eng = ctx;

    CZ_LOG(CZ_LOG_DEBUG, "rpc=%s bytes=%zu",
           method < SRV_NMETHODS ? srv_method_paths[method] + 23 : "?", len);
    switch (method) {
    case M_SUBMIT:
        m_submit(eng, call, req, len);
        break;
    case M_AWAIT:
        m_await(eng, call, req, len);
        break;
    case M_PROVE:
        m_prove(eng, call, req, len);
        break;
    case M_CANCEL:
        m_cancel(eng, call, req, len);
        break;
    case M_STATUS:
        m_status(eng, call, req, len);
        break;
    case M_METRICS:
        m_metrics(eng, call, req, len);
        break;
    case M_PRELOAD:
        m_preload(eng, call, req, len);
        break;
    case M_EVICT:
        m_evict(eng, call, req, len);
        break;
    default:
        srv_call_fail(call, SRV_UNIMPLEMENTED, "unknown method");
        break;
    }
}
