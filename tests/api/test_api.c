/* test_api.c - the public C API's contract where no parameters are needed: versions, the
 * configuration's errors, every NULL argument, bad kinds, priorities, ids and lengths, unknown
 * jobs, a job that fails after it was accepted (and what await, poll, status and metrics then
 * say), a queued job (pending, idempotent resubmission, cancel), release functions called
 * twice, shutdown. A program outside the tree sees exactly
 * this: the file includes <cuzk/cuzk.h> and the C library only, is built with include/ alone
 * on its include path, and links libcuzk.so (so also only its exported symbols).
 * tests/api/test_example.mjs proves and verifies a real 2 KiB WindowPoSt through the same API.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuzk/cuzk.h>

static int failures;

#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);               \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* call must return want, and the diag must say the same code (and a message when it fails). */
#define CHECK_ERR(call, want, dg)                                                                  \
    do {                                                                                           \
        cuzk_err got_ = (call);                                                                    \
        if (got_ != (want) || (dg).code != (int32_t)got_ ||                                        \
            ((want) != CUZK_OK) != ((dg).message[0] != '\0')) {                                    \
            fprintf(stderr, "%s:%d: %s = %s (\"%s\", diag code %d), expected %s\n", __FILE__,      \
                    __LINE__, #call, cuzk_errname(got_), (dg).message, (int)(dg).code,             \
                    cuzk_errname(want));                                                           \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define CHECK_HAS(text, part)                                                                      \
    do {                                                                                           \
        if (!strstr((text), (part))) {                                                             \
            fprintf(stderr, "%s:%d: \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, (text), (part));   \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* Quiet, small, and with a parameter directory that does not exist: jobs that get as far as
 * loading parameters fail, which is all these tests need. */
static const char CONFIG[] = "[srs]\n"
                             "param_cache = '/nonexistent/cuzk-test-api'\n"
                             "[memory]\n"
                             "total_budget = \"256MiB\"\n"
                             "[synthesis]\n"
                             "threads = 1\n"
                             "[pipeline]\n"
                             "prover_cpu_threads = 1\n"
                             "[logging]\n"
                             "level = \"error\"\n";

static void test_versions(void)
{
    CHECK(cuzk_api_version() == CUZK_API_VERSION);
    CHECK(cuzk_version() && cuzk_version()[0] >= '0' && cuzk_version()[0] <= '9');
    CHECK(strcmp(cuzk_errname(CUZK_E_NOT_FOUND), "E_NOT_FOUND") == 0);
    CHECK(strcmp(cuzk_strerror(CUZK_E_INVAL), "invalid argument") == 0);
    CHECK(strcmp(cuzk_kind_name(CUZK_KIND_WINDOW_POST), "window-post") == 0);
    CHECK(strcmp(cuzk_kind_name(99), "unspecified") == 0);
    CHECK(strcmp(cuzk_kind_name(UINT32_MAX), "unspecified") == 0);
    CHECK(strcmp(cuzk_job_status_name(CUZK_JOB_PENDING), "pending") == 0);
    CHECK(strcmp(cuzk_job_status_name(77), "unknown") == 0);
}

static void test_engine_config_errors(void)
{
    cuzk_engine *e = (cuzk_engine *)&failures; /* must be overwritten with NULL */
    cuzk_diag dg;

    CHECK_ERR(cuzk_engine_new(NULL, NULL, CONFIG, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_engine_new(&e, NULL, "[memory]\nno_such_key = 1\n", &dg), CUZK_E_INVAL, dg);
    CHECK(e == NULL);
    CHECK_HAS(dg.message, "no_such_key");
    CHECK_ERR(cuzk_engine_new(&e, NULL, "[pipeline]\nmax_active_jobs = 0\n", &dg), CUZK_E_INVAL,
              dg);
    CHECK_HAS(dg.message, "max_active_jobs");
    CHECK_ERR(cuzk_engine_new(&e, NULL, "[srs\n", &dg), CUZK_E_FORMAT, dg);
    CHECK_ERR(cuzk_engine_new(&e, "/nonexistent/cuzk.toml", NULL, &dg), CUZK_E_IO, dg);
    CHECK_HAS(dg.message, "/nonexistent/cuzk.toml");
    CHECK(e == NULL);
    /* Without a diag the code alone comes back. */
    CHECK(cuzk_engine_new(&e, NULL, "[srs\n", NULL) == CUZK_E_FORMAT);
    cuzk_engine_free(NULL);
    CHECK(cuzk_engine_shutdown(NULL, 0) == 0);
}

/* A WindowPoSt request with everything present but vanilla bytes that are not a proof. */
static const uint8_t JUNK[] = "not a FallbackPoStSectorProof";
static const size_t JUNK_LEN[] = {sizeof(JUNK)};
static const uint8_t RANDOMNESS[32] = {1, 2, 3};

static cuzk_request junk_request(const char *id)
{
    cuzk_request r = {0};
    r.request_id = id;
    r.kind = CUZK_KIND_WINDOW_POST;
    r.sector_size = 2048;
    r.registered_proof = 10;
    r.vanilla_proofs = JUNK;
    r.vanilla_proof_lens = JUNK_LEN;
    r.n_vanilla_proofs = 1;
    r.miner_id = 1000;
    r.randomness = RANDOMNESS;
    return r;
}

static void test_submit_refusals(cuzk_engine *e)
{
    cuzk_diag dg;
    cuzk_job job;
    cuzk_request r;

    r = junk_request("r1");
    CHECK_ERR(cuzk_submit(NULL, &r, &job, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_submit(e, NULL, &job, &dg), CUZK_E_INVAL, dg);
    r.kind = 9;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    CHECK_HAS(dg.message, "proof kind 9");
    r.kind = UINT32_MAX;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r.kind = CUZK_KIND_UNSPECIFIED;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r = junk_request("r1");
    r.priority = 5;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    CHECK_HAS(dg.message, "priority");
    r = junk_request("bad\nid");
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    CHECK_HAS(dg.message, "request_id");
    char long_id[CUZK_ID_MAX + 1];
    memset(long_id, 'x', CUZK_ID_MAX);
    long_id[CUZK_ID_MAX] = '\0';
    r = junk_request(long_id);
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r = junk_request("r1");
    r.vanilla_proof_lens = NULL;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r = junk_request("r1");
    r.vanilla_proofs = NULL;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r = junk_request("r1");
    r.n_vanilla_proofs = 100000; /* more than any kind takes: refused before it is read */
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r = junk_request("r1");
    r.randomness = NULL; /* PoSt needs it */
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    CHECK_HAS(dg.message, "randomness");
    r = junk_request("r1");
    r.n_vanilla_proofs = 0;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r = junk_request("r1");
    r.kind = CUZK_KIND_POREP; /* needs vanilla_proof */
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    r.vanilla_proof_len = 10; /* with a NULL pointer */
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_E_INVAL, dg);
    CHECK(job.id[0] == '\0');
}

static void test_unknown_jobs(cuzk_engine *e)
{
    cuzk_diag dg;
    cuzk_proof p;
    bool was_running = true;

    CHECK_ERR(cuzk_await(e, "nobody", 10, &p, &dg), CUZK_E_NOT_FOUND, dg);
    CHECK_HAS(dg.message, "nobody");
    CHECK(p.status == CUZK_JOB_UNKNOWN && p.proof == NULL);
    CHECK_ERR(cuzk_poll(e, "nobody", &p, &dg), CUZK_E_NOT_FOUND, dg);
    CHECK_ERR(cuzk_cancel(e, "nobody", &was_running, &dg), CUZK_E_NOT_FOUND, dg);
    CHECK(!was_running);
    CHECK_ERR(cuzk_await(e, NULL, 0, &p, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_await(NULL, "x", 0, &p, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_await(e, "x", 0, NULL, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_poll(e, "", &p, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_poll(e, "tab\there", &p, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_cancel(e, NULL, NULL, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_cancel(e, "", NULL, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_cancel(NULL, "x", NULL, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_prove(e, NULL, &p, &dg), CUZK_E_INVAL, dg);
    cuzk_request r = junk_request(NULL);
    CHECK_ERR(cuzk_prove(e, &r, NULL, &dg), CUZK_E_INVAL, dg);
}

/* A request the engine accepts and whose job then fails (the vanilla bytes do not parse). */
static void test_failed_job(cuzk_engine *e)
{
    cuzk_diag dg;
    cuzk_job job, again;
    cuzk_proof p;
    cuzk_status st;
    cuzk_request r = junk_request("junk-1");

    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_OK, dg);
    CHECK(strcmp(job.id, "junk-1") == 0 && !job.existing);
    CHECK_ERR(cuzk_await(e, "junk-1", 0, &p, &dg), CUZK_OK, dg);
    CHECK(p.status == CUZK_JOB_FAILED && p.kind == CUZK_KIND_WINDOW_POST);
    CHECK(p.proof == NULL && p.proof_len == 0 && p.error[0] != '\0');
    CHECK(strcmp(p.job_id, "junk-1") == 0);
    cuzk_proof_clear(&p);
    cuzk_proof_clear(&p); /* twice is fine */
    cuzk_proof_clear(NULL);
    CHECK(p.status == CUZK_JOB_UNKNOWN && p.proof == NULL);
    CHECK_ERR(cuzk_poll(e, "junk-1", &p, &dg), CUZK_OK, dg);
    CHECK(p.status == CUZK_JOB_FAILED);
    cuzk_proof_clear(&p);
    CHECK_ERR(cuzk_cancel(e, "junk-1", NULL, &dg), CUZK_E_NOT_FOUND, dg); /* already finished */
    /* After a failure the same id and content start a new attempt. */
    CHECK_ERR(cuzk_submit(e, &r, &again, &dg), CUZK_OK, dg);
    CHECK(!again.existing);
    /* cuzk_prove: the job's failure is in the result, not the return code; the engine names
     * the job when no id is given. */
    r = junk_request(NULL);
    CHECK_ERR(cuzk_prove(e, &r, &p, &dg), CUZK_OK, dg);
    CHECK(p.status == CUZK_JOB_FAILED && p.job_id[0] != '\0');
    cuzk_proof_clear(&p);
    CHECK_ERR(cuzk_await(e, "junk-1", 0, &p, &dg), CUZK_OK, dg);
    cuzk_proof_clear(&p);

    CHECK_ERR(cuzk_get_status(e, &st, &dg), CUZK_OK, dg);
    CHECK(st.failed == 3 && st.completed == 0 && st.cancelled == 0);
    CHECK(st.pending[CUZK_KIND_WINDOW_POST] == 0 && st.in_progress[CUZK_KIND_WINDOW_POST] == 0);
    CHECK(st.mem_budget_bytes == 256u << 20);
    CHECK(st.n_gpus == 0 && st.n_srs_loaded == 0);
    CHECK_ERR(cuzk_get_status(e, NULL, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_get_status(NULL, &st, &dg), CUZK_E_INVAL, dg);

    char *text = NULL;
    CHECK_ERR(cuzk_metrics(e, &text, &dg), CUZK_OK, dg);
    CHECK(text != NULL);
    if (text) {
        CHECK_HAS(text, "window_post");
    }
    cuzk_string_free(text);
    cuzk_string_free(NULL);
    CHECK_ERR(cuzk_metrics(e, NULL, &dg), CUZK_E_INVAL, dg);
}

static void test_verify_errors(cuzk_engine *e)
{
    cuzk_diag dg;
    bool valid = true;
    uint8_t proof[CUZK_PROOF_BYTES] = {0};
    cuzk_request r = junk_request(NULL);

    CHECK_ERR(cuzk_verify(NULL, &r, proof, sizeof(proof), &valid, &dg), CUZK_E_INVAL, dg);
    CHECK(!valid);
    CHECK_ERR(cuzk_verify(e, NULL, proof, sizeof(proof), &valid, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_verify(e, &r, NULL, sizeof(proof), &valid, &dg), CUZK_E_INVAL, dg);
    CHECK_ERR(cuzk_verify(e, &r, proof, sizeof(proof), NULL, &dg), CUZK_E_INVAL, dg);
    r.kind = 12;
    CHECK_ERR(cuzk_verify(e, &r, proof, sizeof(proof), &valid, &dg), CUZK_E_INVAL, dg);
    r = junk_request(NULL);
    CHECK(cuzk_verify(e, &r, proof, sizeof(proof), &valid, &dg) != CUZK_OK);
    CHECK(!valid && dg.message[0] != '\0');
}

/* A job that stays queued: a PoRep request waits for a second one to batch with (its C1 bytes
 * are never read, as it is cancelled before it runs). */
static void test_pending_and_cancel(void)
{
    static const char batching[] = "[scheduler]\n"
                                   "max_batch_size = 2\n"
                                   "max_batch_wait_ms = 600000\n"
                                   "[logging]\n"
                                   "level = \"error\"\n";
    static const uint8_t c1[] = "{}";
    cuzk_engine *e = NULL;
    cuzk_diag dg;
    cuzk_job job;
    cuzk_proof p;
    cuzk_status st;
    bool was_running = true;

    CHECK_ERR(cuzk_engine_new(&e, NULL, batching, &dg), CUZK_OK, dg);
    if (!e) {
        return;
    }
    cuzk_request r = {0};
    r.request_id = "waiting";
    r.kind = CUZK_KIND_POREP;
    r.sector_size = 2048;
    r.registered_proof = 5;
    r.vanilla_proof = c1;
    r.vanilla_proof_len = sizeof(c1) - 1;
    CHECK_ERR(cuzk_submit(e, &r, &job, &dg), CUZK_OK, dg);
    CHECK_ERR(cuzk_poll(e, "waiting", &p, &dg), CUZK_OK, dg);
    CHECK(p.status == CUZK_JOB_PENDING && p.kind == CUZK_KIND_POREP && p.proof == NULL);
    CHECK_ERR(cuzk_await(e, "waiting", 50, &p, &dg), CUZK_OK, dg);
    CHECK(p.status == CUZK_JOB_PENDING);
    CHECK_ERR(cuzk_get_status(e, &st, &dg), CUZK_OK, dg);
    CHECK(st.pending[CUZK_KIND_POREP] == 1);
    /* The same id and content name the same job. */
    cuzk_job again;
    CHECK_ERR(cuzk_submit(e, &r, &again, &dg), CUZK_OK, dg);
    CHECK(again.existing && strcmp(again.id, "waiting") == 0);
    /* Other content under a live id is refused. */
    r.sector_number = 7;
    CHECK_ERR(cuzk_submit(e, &r, &again, &dg), CUZK_E_EXISTS, dg);
    CHECK_ERR(cuzk_cancel(e, "waiting", &was_running, &dg), CUZK_OK, dg);
    CHECK(!was_running);
    CHECK_ERR(cuzk_await(e, "waiting", 0, &p, &dg), CUZK_OK, dg);
    CHECK(p.status == CUZK_JOB_CANCELLED && p.proof == NULL);
    CHECK_ERR(cuzk_cancel(e, "waiting", NULL, &dg), CUZK_E_NOT_FOUND, dg);
    CHECK_ERR(cuzk_get_status(e, &st, &dg), CUZK_OK, dg);
    CHECK(st.pending[CUZK_KIND_POREP] == 0 && st.cancelled == 1);
    /* Freeing an engine with a queued job cancels it. */
    r.request_id = "left-behind";
    CHECK_ERR(cuzk_submit(e, &r, NULL, &dg), CUZK_OK, dg);
    cuzk_engine_free(e);
}

static void test_shutdown(cuzk_engine *e)
{
    cuzk_diag dg;
    cuzk_request r = junk_request("after-shutdown");

    CHECK(cuzk_engine_shutdown(e, 1000) == 0);
    CHECK_ERR(cuzk_submit(e, &r, NULL, &dg), CUZK_E_CANCELLED, dg);
    /* Finished jobs can still be read. */
    cuzk_proof p;
    CHECK_ERR(cuzk_poll(e, "junk-1", &p, &dg), CUZK_OK, dg);
    cuzk_proof_clear(&p);
}

int main(void)
{
    cuzk_engine *e = NULL;
    cuzk_diag dg;

    test_versions();
    test_engine_config_errors();
    CHECK_ERR(cuzk_engine_new(&e, NULL, CONFIG, &dg), CUZK_OK, dg);
    if (!e) {
        fprintf(stderr, "no engine: %s\n", dg.message);
        return 1;
    }
    test_submit_refusals(e);
    test_unknown_jobs(e);
    test_failed_job(e);
    test_verify_errors(e);
    test_shutdown(e);
    cuzk_engine_free(e);
    test_pending_and_cancel();
    printf("test_api: %s (%d failed checks)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
