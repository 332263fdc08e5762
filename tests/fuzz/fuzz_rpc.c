/* fuzz_rpc.c - libFuzzer target for the daemon's request handling: srv_service_handle (server/
 * internal.h), which decodes each cuzk.v1 request with protobuf-c, turns it into an engine call
 * (eng_submit's eng_request_t, eng_await, eng_cancel, ...) and encodes the response. The gRPC
 * shim is replaced here by a recording srv_call, so no socket is involved.
 *
 * Input: up to 16 calls, each [method byte][u16 LE length][request bytes]; the method is the
 * byte mod 9 (index into srv_method_paths, 8 = a path the service does not know). A fresh
 * engine with no proof-kind handlers serves each input (every job fails at once, so nothing
 * ever waits), which keeps inputs independent and lets the leak check cover the engine.
 * Properties: every call is finished exactly once, within 10 s (AwaitProof / Prove /
 * PreloadSRS finish from engine threads); a failure has a status the service documents and a
 * message; a reply decodes as the method's response type and re-encodes to the same bytes;
 * SubmitProof answers job_id = request_id when one is given; requests that protobuf-c cannot
 * decode are INVALID_ARGUMENT; nothing leaks once the engine is freed.
 */
#include "fuzz.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/alloc.h"
#include "common/log.h"
#include "cuzk/v1/proving.pb-c.h"
#include "engine/engine.h"
#include "server/internal.h"

#define MAX_CALLS 16

enum { M_SUBMIT, M_AWAIT, M_PROVE, M_CANCEL, M_STATUS, M_METRICS, M_PRELOAD, M_EVICT };

/* The recording call (the shim's srv_call is opaque to the service). */
struct srv_call {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int finished; /* number of srv_call_reply / srv_call_fail calls */
    srv_code code;
    char msg[1024];
    uint8_t *resp;
    size_t resp_len;
};

void srv_call_reply(srv_call *call, const uint8_t *resp, size_t len)
{
    uint8_t *copy = cz_malloc(len ? len : 1);
    FUZZ_CHECK(copy != NULL);
    memcpy(copy, resp, len);
    pthread_mutex_lock(&call->mu);
    if (call->finished++ == 0) {
        call->code = SRV_OK;
        call->resp = copy;
        call->resp_len = len;
        copy = NULL;
    }
    pthread_cond_broadcast(&call->cv);
    pthread_mutex_unlock(&call->mu);
    cz_free(copy);
}

void srv_call_fail(srv_call *call, srv_code code, const char *msg)
{
    pthread_mutex_lock(&call->mu);
    if (call->finished++ == 0) {
        call->code = code;
        snprintf(call->msg, sizeof(call->msg), "%s", msg ? msg : "");
    }
    pthread_cond_broadcast(&call->cv);
    pthread_mutex_unlock(&call->mu);
}

bool srv_call_is_cancelled(const srv_call *call)
{
    (void)call;
    return false;
}

static void quiet(cz_log_level level, const char *line, void *ctx)
{
    (void)level;
    (void)line;
    (void)ctx;
}

/* Waits until the call is finished (10 s at most: a hang is a bug). */
static void wait_finished(srv_call *call)
{
    struct timespec deadline;

    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += 10;
    pthread_mutex_lock(&call->mu);
    while (call->finished == 0) {
        if (pthread_cond_timedwait(&call->cv, &call->mu, &deadline) != 0 && call->finished == 0) {
            pthread_mutex_unlock(&call->mu);
            fuzz_fail(__FILE__, __LINE__, "call not finished within 10 s");
        }
    }
    pthread_mutex_unlock(&call->mu);
}

static const ProtobufCMessageDescriptor *const RESPONSE[SRV_NMETHODS] = {
    &cuzk__v1__submit_proof_response__descriptor, &cuzk__v1__await_proof_response__descriptor,
    &cuzk__v1__prove_response__descriptor,        &cuzk__v1__cancel_proof_response__descriptor,
    &cuzk__v1__get_status_response__descriptor,   &cuzk__v1__get_metrics_response__descriptor,
    &cuzk__v1__preload_srs_response__descriptor,  &cuzk__v1__evict_srs_response__descriptor,
};

static const ProtobufCMessageDescriptor *const REQUEST[SRV_NMETHODS] = {
    &cuzk__v1__submit_proof_request__descriptor, &cuzk__v1__await_proof_request__descriptor,
    &cuzk__v1__prove_request__descriptor,        &cuzk__v1__cancel_proof_request__descriptor,
    &cuzk__v1__get_status_request__descriptor,   &cuzk__v1__get_metrics_request__descriptor,
    &cuzk__v1__preload_srs_request__descriptor,  &cuzk__v1__evict_srs_request__descriptor,
};

/* A reply decodes as the method's response and re-encodes to the same bytes. */
static void check_reply(size_t method, const uint8_t *req, size_t req_len, const srv_call *c)
{
    ProtobufCMessage *m = protobuf_c_message_unpack(RESPONSE[method], NULL, c->resp_len, c->resp);
    uint8_t *again;

    FUZZ_CHECK(m != NULL);
    again = cz_malloc(c->resp_len ? c->resp_len : 1);
    FUZZ_CHECK(again != NULL);
    FUZZ_CHECK(protobuf_c_message_get_packed_size(m) == c->resp_len);
    FUZZ_CHECK(protobuf_c_message_pack(m, again) == c->resp_len);
    FUZZ_CHECK(memcmp(again, c->resp, c->resp_len) == 0);
    cz_free(again);
    if (method == M_SUBMIT) {
        const Cuzk__V1__SubmitProofResponse *r = (const Cuzk__V1__SubmitProofResponse *)m;
        Cuzk__V1__SubmitProofRequest *q =
            cuzk__v1__submit_proof_request__unpack(NULL, req_len, req);
        FUZZ_CHECK(q != NULL && r->job_id[0] != '\0');
        FUZZ_CHECK(!q->request_id[0] || strcmp(q->request_id, r->job_id) == 0);
        cuzk__v1__submit_proof_request__free_unpacked(q, NULL);
    }
    protobuf_c_message_free_unpacked(m, NULL);
}

static void one_call(eng_t *eng, size_t method, const uint8_t *req, size_t len)
{
    srv_call call;

    memset(&call, 0, sizeof(call));
    pthread_mutex_init(&call.mu, NULL);
    pthread_cond_init(&call.cv, NULL);
    srv_service_handle(eng, &call, method, req, len);
    wait_finished(&call);
    if (method >= SRV_NMETHODS) {
        FUZZ_CHECK(call.code == SRV_UNIMPLEMENTED);
    } else if (call.code == SRV_OK) {
        fuzz_note_ok();
        check_reply(method, req, len, &call);
    } else {
        ProtobufCMessage *m = protobuf_c_message_unpack(REQUEST[method], NULL, len, req);
        FUZZ_CHECK(call.code == SRV_INVALID_ARGUMENT || call.code == SRV_NOT_FOUND ||
                   call.code == SRV_RESOURCE_EXHAUSTED || call.code == SRV_FAILED_PRECONDITION ||
                   call.code == SRV_UNAVAILABLE);
        FUZZ_CHECK(call.msg[0] != '\0');
        if (!m) {
            FUZZ_CHECK(call.code == SRV_INVALID_ARGUMENT);
        }
        protobuf_c_message_free_unpacked(m, NULL);
    }
    /* Nothing may finish the call again (an engine thread racing the handler, say). */
    pthread_mutex_lock(&call.mu);
    FUZZ_CHECK(call.finished == 1);
    pthread_mutex_unlock(&call.mu);
    cz_free(call.resp);
    pthread_cond_destroy(&call.cv);
    pthread_mutex_destroy(&call.mu);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool once;
    size_t live;
    eng_config_t cfg;
    eng_t *eng = NULL;
    size_t pos = 0;

    if (!once) {
        once = true;
        cz_log_set_sink(quiet, NULL);
    }
    live = fuzz_live_bytes();
    eng_config_default(&cfg);
    cfg.param_cache = "/nonexistent/cuzk-fuzz-params";
    cfg.mem_budget_bytes = UINT64_C(1) << 30;
    cfg.synth_workers = 1;
    cfg.prover_threads = 1;
    cfg.prover_pool_threads = 0;
    cfg.srs_load_threads = 0;
    cfg.max_retained = 8;
    FUZZ_CHECK(eng_new(&eng, &cfg, NULL) == CUZK_OK);
    FUZZ_CHECK(eng_start(eng, NULL) == CUZK_OK);
    for (int k = 0; k < MAX_CALLS && size - pos >= 3; k++) {
        size_t method = data[pos] % (SRV_NMETHODS + 1);
        size_t len = (size_t)data[pos + 1] | (size_t)data[pos + 2] << 8;
        pos += 3;
        if (len > size - pos) {
            len = size - pos;
        }
        one_call(eng, method, data + pos, len);
        pos += len;
    }
    eng_free(eng);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
