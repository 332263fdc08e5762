/* test_engine.c - the engine: priorities, batching, cancellation, idempotency, failures,
 * the SRS tiers and memory budget, metrics and status counters.
 *
 * Jobs run the "tk" test handler (test_kind.h): a small circuit proved for real with
 * parameters from g16_setup. Every returned proof is checked here independently of the
 * engine's own verification (etu_check_proofs, engine_util.h): the partition proofs are
 * verified with the parameter file loaded separately and the public input recomputed as
 * x^3 + x + 5, partition by partition, so a proof in the wrong slot fails.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/test.h"

#include "common/alloc.h"
#include "common/log.h"
#include "engine/engine.h"
#include "engine/engine_util.h"
#include "engine/test_kind.h"
#include "gpu/gpu.h"
#include "groth16/groth16.h"
#include "r1cs/r1cs.h"

static void test_cfg(eng_config_t *cfg)
{
    etu_cfg(cfg);
    /* These tests are about the CPU provers (prover_threads); the device path has its own
     * (test_engine_gpu.c), and the tests below choose GPUs explicitly. */
    cfg->gpu_mode = ENG_GPU_NONE;
    /* The budget checks below count parameters and partitions exactly; a recorded shape would
     * add its bytes. synthesis_modes_and_shape_cache covers the evaluator. */
    cfg->synth_mode = ENG_SYNTH_PROVER;
}

static void ev(char *buf, size_t cap, const char *what, const char *id, long k)
{
    if (k >= 0) {
        snprintf(buf, cap, "%s %s %ld", what, id, k);
    } else {
        snprintf(buf, cap, "%s %s", what, id);
    }
}

static long ev_index(const char *what, const char *id, long k)
{
    char e[256];
    ev(e, sizeof(e), what, id, k);
    return tk_event_index(etu_tk(), e);
}

static bool ev_wait(const char *what, const char *id, long k)
{
    char e[256];
    ev(e, sizeof(e), what, id, k);
    return tk_wait_event(etu_tk(), e, 10000);
}

/* Polls the status until the kind has `n` jobs in progress. */
static void wait_in_progress(eng_t *eng, eng_kind kind, uint32_t n)
{
    for (int i = 0; i < 2000; i++) {
        eng_status_info_t st;
        CHECK_OK(eng_get_status(eng, &st, NULL));
        uint32_t got = st.queues[kind - 1].in_progress;
        eng_status_clear(&st);
        if (got == n) {
            return;
        }
        etu_sleep_ms(5);
    }
    test_fail(__FILE__, __LINE__, "kind %d never reached %u jobs in progress", (int)kind, n);
}

/* ---------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------- */

TEST(prove_three_partitions)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cz_log_level was = cz_log_threshold;
    cz_log_threshold = CZ_LOG_DEBUG;
    etu_capture_start();
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(0, 3, 3);
    r.x[2] = 1000000007u;
    char id[ENG_ID_MAX];
    etu_submit(eng, ENG_KIND_POREP, ENG_PRIO_UNSPECIFIED, "porep-1000-1", &r, id);
    eng_result_copy_t res;
    etu_wait(eng, id, &res, 30);
    etu_check_proofs(&res, &r);
    CHECK_EQ_U64(res.r.batch_size, 1);
    CHECK(res.r.timings.total_ms >= res.r.timings.queue_wait_ms);
    CHECK_STR_EQ(res.r.error, "");
    for (long k = 0; k < 3; k++) {
        CHECK(ev_index("synth", id, k) >= 0);
        CHECK(ev_index("pi", id, k) >= 0);
    }
    CHECK(ev_wait("free", id, -1));
    eng_result_copy_clear(&res);

    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.completed, 1);
    CHECK_EQ_U64(st.failed, 0);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ_U64(st.queues[k].pending, 0);
        CHECK_EQ_U64(st.queues[k].in_progress, 0);
    }
    CHECK_EQ_U64(st.n_srs, 1);
    CHECK_STR_EQ(st.srs[0].circuit_id, "test-cubic");
    CHECK_EQ_U64(st.srs[0].tier, ENG_TIER_HOT);
    CHECK_EQ_U64(st.srs[0].ref_count, 0);
    CHECK_EQ_U64(st.srs[0].size_bytes, etu_file_size(tk_params_path(etu_tk(), false)));
    CHECK_EQ_U64(st.mem_used_bytes, st.srs[0].size_bytes);
    eng_status_clear(&st);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    cz_log_threshold = was;
    /* each partition's assignment was freed by the reaper thread, none twice */
    CHECK_EQ_U64(etu_count_lines("event=reaped bytes=", NULL), 3);
}

/* A CRITICAL job submitted behind queued NORMAL jobs starts before them; HIGH before NORMAL
 * before LOW; GetStatus counters are exact while jobs wait. */
TEST(priority_order_and_status)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.max_active_jobs = 1;
    cfg.synth_workers = 1;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req gate = etu_req(TK_GATE, 1, 5), plain = etu_req(0, 1, 9);

    etu_submit(eng, ENG_KIND_POREP, ENG_PRIO_UNSPECIFIED, "A", &gate, NULL);
    CHECK(ev_wait("synth", "A", 0));
    etu_submit(eng, ENG_KIND_POREP, ENG_PRIO_NORMAL, "N1", &plain, NULL);
    etu_submit(eng, ENG_KIND_POREP, ENG_PRIO_UNSPECIFIED, "N2", &plain, NULL);
    etu_submit(eng, ENG_KIND_SNAP, ENG_PRIO_LOW, "L", &plain, NULL);
    etu_submit(eng, ENG_KIND_WINDOW_POST, ENG_PRIO_UNSPECIFIED, "H", &plain, NULL);
    etu_submit(eng, ENG_KIND_WINNING_POST, ENG_PRIO_UNSPECIFIED, "W", &plain, NULL);

    /* W (CRITICAL) is dispatched at once despite max_active_jobs; the others wait. */
    wait_in_progress(eng, ENG_KIND_WINNING_POST, 1);
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.queues[ENG_KIND_POREP - 1].pending, 2);
    CHECK_EQ_U64(st.queues[ENG_KIND_POREP - 1].in_progress, 1);
    CHECK_EQ_U64(st.queues[ENG_KIND_SNAP - 1].pending, 1);
    CHECK_EQ_U64(st.queues[ENG_KIND_SNAP - 1].in_progress, 0);
    CHECK_EQ_U64(st.queues[ENG_KIND_WINDOW_POST - 1].pending, 1);
    CHECK_EQ_U64(st.queues[ENG_KIND_WINNING_POST - 1].pending, 0);
    CHECK_EQ_U64(st.queues[ENG_KIND_WINNING_POST - 1].in_progress, 1);
    eng_status_clear(&st);

    tk_open_gate(etu_tk());
    const char *ids[] = {"A", "N1", "N2", "L", "H", "W"};
    for (size_t i = 0; i < ARRAY_LEN(ids); i++) {
        eng_result_copy_t res;
        etu_wait(eng, ids[i], &res, 30);
        CHECK_MSG(res.r.status == ENG_STATUS_COMPLETED, "%s: %s", ids[i], res.r.error);
        eng_result_copy_clear(&res);
    }
    long w = ev_index("parse", "W", -1), h = ev_index("parse", "H", -1);
    long n1 = ev_index("parse", "N1", -1), n2 = ev_index("parse", "N2", -1);
    long l = ev_index("parse", "L", -1);
    CHECK_MSG(w >= 0 && w < h && h < n1 && n1 < n2 && n2 < l,
              "parse order W=%ld H=%ld N1=%ld N2=%ld L=%ld", w, h, n1, n2, l);
    /* W's synthesis ran before the NORMAL jobs', right after A's gated partition. */
    CHECK(ev_index("synth", "W", 0) < ev_index("synth", "N1", 0));

    CHECK_OK(eng_get_status(eng, &st, NULL));
    for (int k = 0; k < 4; k++) {
        CHECK_EQ_U64(st.queues[k].pending, 0);
        CHECK_EQ_U64(st.queues[k].in_progress, 0);
    }
    CHECK_EQ_U64(st.completed, 6);
    eng_status_clear(&st);
    eng_free(eng);
}

TEST(cancel_queued_never_runs)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.max_active_jobs = 1;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req gate = etu_req(TK_GATE, 1, 5), plain = etu_req(0, 1, 9);
    bool was_running = true;

    etu_submit(eng, ENG_KIND_POREP, 0, "A", &gate, NULL);
    CHECK(ev_wait("synth", "A", 0));
    etu_submit(eng, ENG_KIND_POREP, 0, "B", &plain, NULL);
    CHECK(eng_cancel(eng, "B", &was_running));
    CHECK(!was_running);
    eng_result_copy_t res;
    eng_wait(eng, "B", 1000, &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_CANCELLED);
    CHECK_EQ_U64(res.r.proof_len, 0);
    eng_result_copy_clear(&res);
    CHECK(!eng_cancel(eng, "B", &was_running)); /* already finished */
    CHECK(!eng_cancel(eng, "nope", &was_running));

    tk_open_gate(etu_tk());
    etu_wait(eng, "A", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_COMPLETED);
    eng_result_copy_clear(&res);
    CHECK_EQ_U64(ev_index("parse", "B", -1), (uint64_t)-1);
    CHECK_EQ_U64(ev_index("synth", "B", 0), (uint64_t)-1);

    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.cancelled, 1);
    CHECK_EQ_U64(st.completed, 1);
    eng_status_clear(&st);
    eng_free(eng);
}

TEST(cancel_running_stops_at_next_stage)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.synth_workers = 1;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(TK_GATE, 3, 5);
    r.mem_bytes = 1 << 20;
    bool was_running = false;

    etu_submit(eng, ENG_KIND_POREP, 0, "A", &r, NULL);
    CHECK(ev_wait("synth", "A", 0));
    CHECK(eng_cancel(eng, "A", &was_running));
    CHECK(was_running);
    tk_open_gate(etu_tk());
    eng_result_copy_t res;
    etu_wait(eng, "A", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_CANCELLED);
    eng_result_copy_clear(&res);
    CHECK(ev_wait("free", "A", -1));
    CHECK(ev_index("synthed", "A", 0) >= 0);            /* the running stage finished */
    CHECK_EQ_U64(ev_index("pi", "A", 0), (uint64_t)-1); /* ... and nothing after it */
    CHECK_EQ_U64(ev_index("synth", "A", 1), (uint64_t)-1);

    /* All partition memory was returned; only the parameters stay charged. */
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.mem_used_bytes, etu_file_size(tk_params_path(etu_tk(), false)));
    CHECK_EQ_U64(st.srs[0].ref_count, 0);
    CHECK_EQ_U64(st.queues[0].in_progress, 0);
    eng_status_clear(&st);

    /* The engine keeps working. */
    tk_req ok = etu_req(0, 2, 77);
    etu_submit(eng, ENG_KIND_POREP, 0, "B", &ok, NULL);
    etu_wait(eng, "B", &res, 30);
    etu_check_proofs(&res, &ok);
    eng_result_copy_clear(&res);
    eng_free(eng);
}

TEST(idempotent_request_ids)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req gate = etu_req(TK_GATE, 1, 5);
    etu_scratch s;
    eng_request_t req = etu_request(&s, ENG_KIND_POREP, 0, "porep-1-1", &gate);
    eng_submit_info_t a, b;
    cz_diag dg;
    cz_diag_init(&dg);

    CHECK_OK(eng_submit(eng, &req, &a, &dg));
    CHECK(!a.existing);
    CHECK_OK(eng_submit(eng, &req, &b, &dg));
    CHECK(b.existing);
    CHECK_STR_EQ(a.job_id, b.job_id);
    /* The same id with other content (another kind, or other bytes) is refused while the
     * first job is queued or running. */
    eng_request_t other = etu_request(&s, ENG_KIND_SNAP, 0, "porep-1-1", &gate);
    CHECK_ERR(eng_submit(eng, &other, &b, &dg), CUZK_E_EXISTS);
    CHECK(strstr(dg.msg, "other content") != NULL);
    tk_req gate2 = etu_req(TK_GATE, 1, 6);
    other = etu_request(&s, ENG_KIND_POREP, 0, "porep-1-1", &gate2);
    CHECK_ERR(eng_submit(eng, &other, &b, &dg), CUZK_E_EXISTS);
    tk_open_gate(etu_tk());
    eng_result_copy_t r1, r2;
    etu_wait(eng, "porep-1-1", &r1, 30);
    etu_check_proofs(&r1, &gate);
    /* After completion the same id still answers with the same proof, without new work. */
    req = etu_request(&s, ENG_KIND_POREP, 0, "porep-1-1", &gate);
    CHECK_OK(eng_submit(eng, &req, &b, &dg));
    CHECK(b.existing);
    etu_wait(eng, "porep-1-1", &r2, 30);
    CHECK_EQ_U64(r2.r.proof_len, r1.r.proof_len);
    CHECK_MEM_EQ(r2.r.proof, r1.r.proof, r1.r.proof_len);
    eng_result_copy_clear(&r2);
    char events[4096];
    tk_events(etu_tk(), events, sizeof(events));
    long first = ev_index("parse", "porep-1-1", -1);
    CHECK(first >= 0);
    CHECK_MSG(strstr(strstr(events, "parse porep-1-1") + 1, "parse porep-1-1") == NULL,
              "parsed twice:\n%s", events);

    /* Once it has finished, the same id with other content is a new job whose proof is of the
     * new content, not the old proof. */
    tk_req next = etu_req(0, 1, 9);
    req = etu_request(&s, ENG_KIND_POREP, 0, "porep-1-1", &next);
    CHECK_OK(eng_submit(eng, &req, &b, &dg));
    CHECK(!b.existing);
    etu_wait(eng, "porep-1-1", &r2, 30);
    etu_check_proofs(&r2, &next);
    CHECK(r2.r.proof_len != r1.r.proof_len || memcmp(r2.r.proof, r1.r.proof, r1.r.proof_len) != 0);
    eng_result_copy_clear(&r1);
    eng_result_copy_clear(&r2);

    /* A failed attempt is retried by a new submission with the same id. */
    tk_req bad = etu_req(TK_PARSE_FAIL, 1, 5), good = etu_req(0, 1, 5);
    etu_submit(eng, ENG_KIND_POREP, 0, "retry-1", &bad, NULL);
    etu_wait(eng, "retry-1", &r1, 30);
    CHECK_EQ_U64(r1.r.status, ENG_STATUS_FAILED);
    eng_result_copy_clear(&r1);
    req = etu_request(&s, ENG_KIND_POREP, 0, "retry-1", &good);
    CHECK_OK(eng_submit(eng, &req, &b, &dg));
    CHECK(!b.existing);
    etu_wait(eng, "retry-1", &r1, 30);
    etu_check_proofs(&r1, &good);
    eng_result_copy_clear(&r1);

    /* No request_id: the engine makes distinct ids. */
    char id1[ENG_ID_MAX], id2[ENG_ID_MAX];
    etu_submit(eng, ENG_KIND_POREP, 0, NULL, &good, id1);
    etu_submit(eng, ENG_KIND_POREP, 0, "", &good, id2);
    CHECK(strncmp(id1, "job-", 4) == 0);
    CHECK(strcmp(id1, id2) != 0);
    etu_wait(eng, id1, &r1, 30);
    etu_wait(eng, id2, &r2, 30);
    etu_check_proofs(&r1, &good);
    etu_check_proofs(&r2, &good);
    eng_result_copy_clear(&r1);
    eng_result_copy_clear(&r2);
    eng_free(eng);
}

TEST(failing_jobs_do_not_disturb_others)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req g1 = etu_req(0, 2, 1), g2 = etu_req(0, 3, 100), bs = etu_req(TK_BAD_SYNTH, 2, 3);
    tk_req bi = etu_req(TK_BAD_INPUT, 2, 4), bp = etu_req(TK_PARSE_FAIL, 1, 5);
    tk_req bv = etu_req(TK_BAD_VANILLA, 2, 6);

    etu_submit(eng, ENG_KIND_POREP, 0, "g1", &g1, NULL);
    etu_submit(eng, ENG_KIND_POREP, 0, "bad-vanilla", &bv, NULL);
    etu_submit(eng, ENG_KIND_POREP, 0, "bad-synth", &bs, NULL);
    etu_submit(eng, ENG_KIND_WINNING_POST, 0, "bad-input", &bi, NULL);
    etu_submit(eng, ENG_KIND_SNAP, 0, "bad-parse", &bp, NULL);
    etu_submit(eng, ENG_KIND_WINDOW_POST, 0, "g2", &g2, NULL);

    eng_result_copy_t res;
    etu_wait(eng, "bad-synth", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_MSG(strstr(res.r.error, "partition 1 synthesis") != NULL, "%s", res.r.error);
    CHECK_EQ_U64(res.r.proof_len, 0);
    eng_result_copy_clear(&res);
    etu_wait(eng, "bad-input", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_MSG(strstr(res.r.error, "does not verify") != NULL, "%s", res.r.error);
    eng_result_copy_clear(&res);
    etu_wait(eng, "bad-parse", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_MSG(strstr(res.r.error, "invalid snap-update request") != NULL, "%s", res.r.error);
    eng_result_copy_clear(&res);
    /* verify_vanilla runs right after parse, before any synthesis of the job */
    etu_wait(eng, "bad-vanilla", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_MSG(strstr(res.r.error, "invalid porep-c2 request: test kind told to reject the "
                                  "vanilla proof of partition 1") != NULL,
              "%s", res.r.error);
    eng_result_copy_clear(&res);
    CHECK(ev_index("verify", "bad-vanilla", -1) >= 0);
    CHECK(ev_index("synth", "bad-vanilla", 0) < 0 && ev_index("synth", "bad-vanilla", 1) < 0);
    etu_wait(eng, "g1", &res, 30);
    etu_check_proofs(&res, &g1);
    eng_result_copy_clear(&res);
    etu_wait(eng, "g2", &res, 30);
    etu_check_proofs(&res, &g2);
    eng_result_copy_clear(&res);
    CHECK(ev_wait("free", "bad-input", -1));

    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.completed, 2);
    CHECK_EQ_U64(st.failed, 4);
    CHECK_EQ_U64(st.mem_used_bytes, etu_file_size(tk_params_path(etu_tk(), false)));
    eng_status_clear(&st);
    char *text = NULL;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    CHECK(strstr(text, "\ncuzk_verify_failures_total 1\n") != NULL);
    CHECK(strstr(text, "\ncuzk_verify_retries_total 1\n") != NULL);
    CHECK(strstr(text, "\ncuzk_proofs_failed{proof_kind=\"winning_post\"} 1\n") != NULL);
    /* every assignment was freed, the failed jobs' included; at most some were held at once */
    CHECK_MSG(strstr(text, "\ncuzk_partition_assignments_bytes 0\n") != NULL, "%s", text);
    const char *pb = strstr(text, "\ncuzk_partition_assignments_peak_bytes ");
    const char *pn = strstr(text, "\ncuzk_partition_assignments_peak ");
    CHECK(pb != NULL && pn != NULL);
    uint64_t peak_bytes = strtoull(strchr(pb + 1, ' ') + 1, NULL, 10);
    uint64_t peak_n = strtoull(strchr(pn + 1, ' ') + 1, NULL, 10);
    CHECK(peak_n >= 1 && peak_n <= 10);             /* 10 partitions in all */
    CHECK(peak_bytes >= peak_n * 2 * sizeof(fr_t)); /* ONE and y at least */
    cz_free(text);
    eng_free(eng);
}

TEST(kind_without_handler_fails_cleanly)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    const eng_kind only_winning[] = {ENG_KIND_WINNING_POST, 0};
    eng_t *eng = etu_start(&cfg, only_winning, &tk_ops);
    tk_req r = etu_req(0, 1, 8);
    eng_result_copy_t res;

    etu_submit(eng, ENG_KIND_POREP, 0, "p", &r, NULL);
    etu_wait(eng, "p", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_STR_EQ(res.r.error, "proof kind porep-c2 is not available in this build");
    eng_result_copy_clear(&res);
    etu_submit(eng, ENG_KIND_WINNING_POST, 0, "w", &r, NULL);
    etu_wait(eng, "w", &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);

    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.failed, 1);
    CHECK_EQ_U64(st.queues[0].pending + st.queues[0].in_progress, 0);
    eng_status_clear(&st);
    eng_free(eng);
}

TEST(request_checks)
{
    uint8_t b32[32] = {0}, b31[31] = {0}, vp[4] = {1, 2, 3, 4};
    eng_bytes_t one = {vp, 4}, two[2] = {{vp, 4}, {vp, 4}}, empty = {vp, 0};
    cz_diag dg;
    struct {
        eng_request_t req;
        const char *msg;
    } cases[] = {
        {{.kind = 0, .vanilla_proof = one}, "invalid proof_kind 0"},
        {{.kind = 9, .vanilla_proof = one}, "invalid proof_kind 9"},
        {{.kind = ENG_KIND_POREP, .priority = 7, .vanilla_proof = one}, "invalid priority 7"},
        {{.kind = ENG_KIND_POREP}, "needs vanilla_proof"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "a\nb"},
         "control characters (U+000A at byte 1)"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "a\x1b[31m"},
         "control characters (U+001B"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "a\x7f"}, "U+007F"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "a\xc2\x9b"}, "U+009B"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "a\xff"}, "not UTF-8"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "\xc0\xaf"}, "not UTF-8"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = "\xed\xa0\x80"}, "not UTF-8"},
        {{.kind = ENG_KIND_POREP, .vanilla_proof = one, .randomness = {b31, 31}},
         "randomness is 31 bytes"},
        {{.kind = ENG_KIND_WINNING_POST,
          .vanilla_proofs = two,
          .n_vanilla_proofs = 2,
          .randomness = {b32, 32}},
         "exactly 1"},
        {{.kind = ENG_KIND_WINNING_POST, .vanilla_proofs = &one, .n_vanilla_proofs = 1},
         "32 bytes of randomness"},
        {{.kind = ENG_KIND_WINDOW_POST, .randomness = {b32, 32}}, "needs vanilla_proofs"},
        {{.kind = ENG_KIND_WINDOW_POST,
          .vanilla_proofs = &empty,
          .n_vanilla_proofs = 1,
          .randomness = {b32, 32}},
         "vanilla_proofs[0] is empty"},
        {{.kind = ENG_KIND_SNAP,
          .vanilla_proofs = &one,
          .n_vanilla_proofs = 1,
          .comm_r_old = {b32, 32},
          .comm_r_new = {b32, 32}},
         "needs comm_r_old"},
        {{.kind = ENG_KIND_SNAP,
          .vanilla_proofs = &one,
          .n_vanilla_proofs = 1,
          .comm_r_old = {b32, 32},
          .comm_r_new = {b32, 32},
          .comm_d_new = {b31, 31}},
         "expected 32"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        cz_diag_init(&dg);
        CHECK_ERR(eng_request_check(&cases[i].req, &dg), CUZK_E_INVAL);
        CHECK_MSG(strstr(dg.msg, cases[i].msg) != NULL, "case %zu: \"%s\" lacks \"%s\"", i, dg.msg,
                  cases[i].msg);
    }
    char longid[ENG_ID_MAX + 1];
    memset(longid, 'a', ENG_ID_MAX);
    longid[ENG_ID_MAX] = '\0';
    eng_request_t r = {.kind = ENG_KIND_POREP, .vanilla_proof = one, .request_id = longid};
    CHECK_ERR(eng_request_check(&r, NULL), CUZK_E_INVAL);
    longid[ENG_ID_MAX - 1] = '\0';
    CHECK_OK(eng_request_check(&r, NULL));
    /* Every id form Curio sends (lib/ffi/cuzk_funcs.go, Go's fmt: a byte slice with %d prints
     * as "[95 52 ...]"), and other printable UTF-8. */
    static const char *const good_ids[] = {
        "wdpost-1000-0-[95 52 194 205 1 2 3 4]",
        "wdpost-18446744073709551615-4294967295-[255 255 255 255 255 255 255 255]",
        "winpost-1000-5f34c2cd01020304",
        "porep-1000-42",
        "snap-1000-42",
        "ps-porep-1000-42-7",
        "quote \" and backslash \\",
        "\xe2\x82\xac \xf0\x9f\x98\x80",
    };
    for (size_t i = 0; i < ARRAY_LEN(good_ids); i++) {
        r.request_id = good_ids[i];
        cz_diag_init(&dg);
        CHECK_MSG(eng_request_check(&r, &dg) == CUZK_OK, "\"%s\": %s", good_ids[i], dg.msg);
    }
    eng_request_t ok[] = {
        {.kind = ENG_KIND_WINNING_POST,
         .vanilla_proofs = &one,
         .n_vanilla_proofs = 1,
         .randomness = {b32, 32},
         .priority = ENG_PRIO_CRITICAL},
        {.kind = ENG_KIND_WINDOW_POST,
         .vanilla_proofs = two,
         .n_vanilla_proofs = 2,
         .randomness = {b32, 32}},
        {.kind = ENG_KIND_SNAP,
         .vanilla_proofs = &one,
         .n_vanilla_proofs = 1,
         .comm_r_old = {b32, 32},
         .comm_r_new = {b32, 32},
         .comm_d_new = {b32, 32}},
    };
    for (size_t i = 0; i < ARRAY_LEN(ok); i++) {
        CHECK_OK(eng_request_check(&ok[i], NULL));
    }
    CHECK_EQ_U64(eng_default_prio(ENG_KIND_WINNING_POST), ENG_PRIO_CRITICAL);
    CHECK_EQ_U64(eng_default_prio(ENG_KIND_WINDOW_POST), ENG_PRIO_HIGH);
    CHECK_EQ_U64(eng_default_prio(ENG_KIND_POREP), ENG_PRIO_NORMAL);
    CHECK_EQ_U64(eng_default_prio(ENG_KIND_SNAP), ENG_PRIO_NORMAL);

    /* eng_submit refuses the same way and creates nothing. */
    eng_config_t cfg;
    test_cfg(&cfg);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    eng_submit_info_t info;
    cz_diag_init(&dg);
    CHECK_ERR(eng_submit(eng, &cases[0].req, &info, &dg), CUZK_E_INVAL);
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.failed + st.completed + st.queues[0].pending, 0);
    eng_status_clear(&st);
    eng_free(eng);
}

TEST(srs_tiers_and_lru)
{
    uint64_t small = etu_file_size(tk_params_path(etu_tk(), false));
    uint64_t big = etu_file_size(tk_params_path(etu_tk(), true));
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.mem_budget_bytes = small + big - 1; /* never both hot */
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    eng_status_info_t st;
    eng_result_copy_t res;
    bool was_loaded;
    uint64_t freed;
    cz_diag dg;
    cz_diag_init(&dg);

    for (int round = 0; round < 2; round++) {
        bool already;
        CHECK_OK(etu_preload(eng, "test-cubic", &already));
        CHECK_EQ_U64(already, round == 1);
    }
    {
        bool already;
        CHECK_ERR(etu_preload(eng, "no-such-circuit", &already), CUZK_E_INVAL);
    }

    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_srs, 1);
    CHECK_EQ_U64(st.srs[0].tier, ENG_TIER_HOT);
    CHECK_EQ_U64(st.mem_used_bytes, small);
    eng_status_clear(&st);

    /* A big job needs room: the unused small entry is demoted to WARM (LRU). */
    tk_req rb = etu_req(TK_BIG, 1, 3);
    etu_submit(eng, ENG_KIND_POREP, 0, "big", &rb, NULL);
    etu_wait(eng, "big", &res, 30);
    etu_check_proofs(&res, &rb);
    CHECK(res.r.timings.srs_load_ms <= res.r.timings.total_ms);
    eng_result_copy_clear(&res);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_srs, 2);
    for (size_t i = 0; i < st.n_srs; i++) {
        bool is_big = strcmp(st.srs[i].circuit_id, "test-cubic-big") == 0;
        CHECK_EQ_U64(st.srs[i].tier, is_big ? ENG_TIER_HOT : ENG_TIER_WARM);
        CHECK_EQ_U64(st.srs[i].size_bytes, is_big ? big : small);
    }
    CHECK_EQ_U64(st.mem_used_bytes, big);
    eng_status_clear(&st);

    /* Back to the small circuit: reloaded from the warm mapping, the big one demoted. */
    tk_req rs = etu_req(TK_GATE, 1, 4);
    etu_submit(eng, ENG_KIND_POREP, 0, "small", &rs, NULL);
    CHECK(ev_wait("synth", "small", 0));
    /* In use: EvictSRS refuses to free it. */
    CHECK_OK(eng_srs_evict(eng, "test-cubic", &was_loaded, &freed, &dg));
    CHECK(was_loaded);
    CHECK_EQ_U64(freed, 0);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    for (size_t i = 0; i < st.n_srs; i++) {
        if (strcmp(st.srs[i].circuit_id, "test-cubic") == 0) {
            CHECK_EQ_U64(st.srs[i].ref_count, 1);
            CHECK_EQ_U64(st.srs[i].tier, ENG_TIER_HOT);
        } else {
            CHECK_EQ_U64(st.srs[i].tier, ENG_TIER_WARM);
        }
    }
    eng_status_clear(&st);
    tk_open_gate(etu_tk());
    etu_wait(eng, "small", &res, 30);
    etu_check_proofs(&res, &rs);
    eng_result_copy_clear(&res);

    CHECK_OK(eng_srs_evict(eng, "test-cubic", &was_loaded, &freed, &dg));
    CHECK(was_loaded);
    CHECK_EQ_U64(freed, small);
    CHECK_OK(eng_srs_evict(eng, "test-cubic-big", &was_loaded, &freed, &dg));
    CHECK(was_loaded); /* warm */
    CHECK_EQ_U64(freed, 0);
    CHECK_OK(eng_srs_evict(eng, "test-cubic-big", &was_loaded, &freed, &dg));
    CHECK(!was_loaded);
    CHECK_ERR(eng_srs_evict(eng, "bogus", &was_loaded, &freed, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "unknown circuit id") != NULL);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_srs, 0);
    CHECK_EQ_U64(st.mem_used_bytes, 0);
    eng_status_clear(&st);

    char *text = NULL;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    CHECK_MSG(strstr(text, "\ncuzk_srs_loads_total 3\n") != NULL, "%s", text);
    cz_free(text);
    eng_free(eng);
}

TEST(queued_requests_count_in_the_budget)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.max_active_jobs = 1;
    cfg.mem_budget_bytes = UINT64_C(8) << 20;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req gate = etu_req(TK_GATE, 1, 5);
    eng_submit_info_t info;
    eng_status_info_t st;
    eng_result_copy_t res;
    cz_diag dg;

    etu_submit(eng, ENG_KIND_POREP, 0, "running", &gate, NULL);
    wait_in_progress(eng, ENG_KIND_POREP, 1);
    /* at the gate: parsed (its request bytes released) and its parameters loaded, so that the
     * budget holds still while the queued requests below are counted */
    CHECK(ev_wait("synth", "running", 0));
    CHECK_OK(eng_get_status(eng, &st, NULL));
    uint64_t base = st.mem_used_bytes;
    eng_status_clear(&st);
    /* Requests that wait behind it hold their bytes in the budget until they are parsed. */
    size_t big = (size_t)3 << 20;
    uint8_t *junk = cz_calloc(2 * big, 1); /* q2 below submits 2 * big of it */
    CHECK(junk != NULL);
    eng_request_t req = {.request_id = "q1", .kind = ENG_KIND_POREP, .vanilla_proof = {junk, big}};
    cz_diag_init(&dg);
    CHECK_OK(eng_submit(eng, &req, &info, &dg));
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.mem_used_bytes, base + big);
    eng_status_clear(&st);
    char *text = NULL;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    char want[80];
    snprintf(want, sizeof(want), "\ncuzk_memory_queued_requests_bytes %zu\n", big);
    CHECK_MSG(strstr(text, want) != NULL, "%s", text);
    cz_free(text);
    /* One more does not fit 8 MiB beside the parameters and the first: refused, nothing made. */
    req.request_id = "q2";
    req.vanilla_proof.len = 2 * big;
    CHECK_ERR(eng_submit(eng, &req, &info, &dg), CUZK_E_NOMEM);
    CHECK_MSG(strstr(dg.msg, "queued requests") != NULL, "%s", dg.msg);
    eng_wait(eng, "q2", 0, &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_UNKNOWN);
    eng_result_copy_clear(&res);
    /* Once the queue moves (the junk fails to parse), the bytes are given back. */
    tk_open_gate(etu_tk());
    etu_wait(eng, "running", &res, 30);
    eng_result_copy_clear(&res);
    etu_wait(eng, "q1", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    eng_result_copy_clear(&res);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK(st.mem_used_bytes <= base);
    eng_status_clear(&st);
    cz_free(junk);
    eng_free(eng);
}

/* The tier of circuit id in the engine's status (ENG_TIER_COLD when not listed). */
static eng_tier srs_tier_of(eng_t *eng, const char *id)
{
    eng_status_info_t st;
    eng_tier tier = ENG_TIER_COLD;

    CHECK_OK(eng_get_status(eng, &st, NULL));
    for (size_t i = 0; i < st.n_srs; i++) {
        if (strcmp(st.srs[i].circuit_id, id) == 0) {
            tier = st.srs[i].tier;
        }
    }
    eng_status_clear(&st);
    return tier;
}

/* Rewrites path in place (same inode: truncated, then written) with len bytes of buf. */
/* Proves one partition of the small (or big) test circuit as job `id`; returns its status and
 * copies its error message. A COMPLETED proof is checked. */
static eng_status prove_one(eng_t *eng, const char *id, bool big, uint64_t x, char *err, size_t cap)
{
    tk_req r = etu_req(big ? TK_BIG : 0, 1, x);
    eng_result_copy_t res;

    etu_submit(eng, ENG_KIND_POREP, 0, id, &r, NULL);
    etu_wait(eng, id, &res, 30);
    eng_status status = res.r.status;
    if (status == ENG_STATUS_COMPLETED) {
        etu_check_proofs(&res, &r);
    }
    snprintf(err, cap, "%s", res.r.error ? res.r.error : "");
    eng_result_copy_clear(&res);
    return status;
}

/* A parameter file that is truncated or rewritten in place while its entry is WARM (mapped,
 * points freed) or HOT: the engine never reads a stale mapping (touching pages cut off by a
 * truncation raises SIGBUS), fails the job naming the file, and proves again once the file is
 * good. */
TEST(srs_file_changed_on_disk)
{
    const char *path = tk_params_path(etu_tk(), false);
    uint64_t small = etu_file_size(path);
    uint64_t big = etu_file_size(tk_params_path(etu_tk(), true));
    size_t len = 0;
    uint8_t *good = etu_read_all(path, &len);
    char err[1024];

    CHECK_EQ_U64(len, small);
    CHECK_MSG(small > 4096, "the test needs a file of more than one page (%llu bytes)",
              (unsigned long long)small);

    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.mem_budget_bytes = small + big - 1; /* never both hot */
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    etu_capture_start();

    /* WARM, then truncated in place: the job fails with the file's name, nothing crashes. */
    CHECK_EQ_U64(prove_one(eng, "s1", false, 3, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(prove_one(eng, "b1", true, 4, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(srs_tier_of(eng, "test-cubic"), ENG_TIER_WARM);
    CHECK(truncate(path, 4096) == 0);
    CHECK_EQ_U64(prove_one(eng, "s2", false, 5, err, sizeof(err)), ENG_STATUS_FAILED);
    CHECK_MSG(strstr(err, path) != NULL, "error does not name %s: %s", path, err);
    ETU_CHECK_LOG("event=file_changed tier=warm", path);
    CHECK_EQ_U64(srs_tier_of(eng, "test-cubic"), ENG_TIER_COLD); /* the stale mapping is gone */

    /* Restored in place: proved again from the good file. */
    etu_rewrite_in_place(path, good, small);
    CHECK_EQ_U64(prove_one(eng, "s3", false, 6, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(srs_tier_of(eng, "test-cubic"), ENG_TIER_HOT);

    /* HOT proves from decoded points: a truncated file does not disturb it (logged once). */
    CHECK(truncate(path, 4096) == 0);
    CHECK_EQ_U64(prove_one(eng, "s4", false, 7, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(prove_one(eng, "s5", false, 8, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(etu_count_lines("event=file_changed tier=hot", "srs=test-cubic "), 1);
    /* Demoted to WARM with the mapping of the truncated file, which is then rewritten with the
     * good bytes: loaded from a fresh mapping of the new file. */
    CHECK_EQ_U64(prove_one(eng, "b2", true, 9, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(srs_tier_of(eng, "test-cubic"), ENG_TIER_WARM);
    etu_rewrite_in_place(path, good, small);
    CHECK_EQ_U64(prove_one(eng, "s6", false, 10, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(etu_count_lines("event=file_changed tier=warm", path), 2);

    /* The budget's count is intact: only the small circuit is hot. */
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.mem_used_bytes, small);
    eng_status_clear(&st);
    cz_log_set_sink(NULL, NULL);
    eng_free(eng);
    free(good);
}

/* The value of a metric line that starts with `name` (labels included) in the exposition. */
static uint64_t metric_of(eng_t *eng, const char *name)
{
    char *text = NULL;
    uint64_t v = UINT64_MAX;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    char want[160];
    snprintf(want, sizeof(want), "\n%s ", name);
    const char *p = strstr(text, want);
    if (p) {
        v = strtoull(p + strlen(want), NULL, 10);
    }
    cz_free(text);
    return v;
}

/* Parameters that do not fit their circuit (another circuit's file in its place) fail the job
 * and leave HOT: the next job reads the file again (and fails again while it is wrong), and
 * once the right file is renamed into place a job proves, without EvictSRS. */
TEST(srs_misfit_demoted_then_repaired)
{
    const char *path = tk_params_path(etu_tk(), false);
    char keep[1024], wrong[1024], err[1024];
    size_t len = 0;
    uint8_t *other = etu_read_all(tk_params_path(etu_tk(), true), &len);

    snprintf(keep, sizeof(keep), "%s.good", path);
    snprintf(wrong, sizeof(wrong), "%s.wrong", path);
    FILE *f = fopen(wrong, "wb");
    CHECK(f != NULL);
    CHECK_EQ_U64(fwrite(other, 1, len, f), len);
    fclose(f);
    free(other);
    CHECK(rename(path, keep) == 0);
    CHECK(rename(wrong, path) == 0);

    eng_config_t cfg;
    test_cfg(&cfg);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    etu_capture_start();
    CHECK_EQ_U64(prove_one(eng, "misfit-1", false, 3, err, sizeof(err)), ENG_STATUS_FAILED);
    CHECK_MSG(strstr(err, "parameters do not fit the circuit") != NULL, "error: %s", err);
    ETU_CHECK_LOG("srs=test-cubic event=misfit", "action=demote_when_unused");
    ETU_CHECK_LOG("srs=test-cubic event=misfit_demoted", "action=load_again");
    CHECK(srs_tier_of(eng, "test-cubic") != ENG_TIER_HOT);
    /* still wrong: read again, refused again */
    CHECK_EQ_U64(prove_one(eng, "misfit-2", false, 4, err, sizeof(err)), ENG_STATUS_FAILED);
    CHECK_EQ_U64(metric_of(eng, "cuzk_srs_loads_total"), 2);
    /* the right file renamed into place: the next job proves with it */
    CHECK(rename(keep, path) == 0);
    CHECK_EQ_U64(prove_one(eng, "misfit-3", false, 5, err, sizeof(err)), ENG_STATUS_COMPLETED);
    CHECK_EQ_U64(srs_tier_of(eng, "test-cubic"), ENG_TIER_HOT);
    cz_log_set_sink(NULL, NULL);
    eng_free(eng);
}

/* Proves a 3-partition job and a second one of the same circuit with `mode`; returns the
 * engine for the caller's checks (free it). */
static eng_t *prove_with_mode(eng_synth_mode mode, const char *cache, const char *tag)
{
    eng_config_t cfg;
    eng_result_copy_t res;
    char id[64];
    test_cfg(&cfg);
    cfg.synth_mode = mode;
    cfg.shape_cache = cache;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    for (int i = 0; i < 2; i++) {
        tk_req r = etu_req(0, 3, (uint64_t)(40 + 10 * i));
        snprintf(id, sizeof(id), "%s-%d", tag, i);
        etu_submit(eng, ENG_KIND_POREP, 0, id, &r, NULL);
        etu_wait(eng, id, &res, 30);
        etu_check_proofs(&res, &r);
        eng_result_copy_clear(&res);
    }
    return eng;
}

TEST(synthesis_modes_and_shape_cache)
{
    char dir[] = "/tmp/cuzk-shapes-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char file[256];
    snprintf(file, sizeof(file), "%s/test-cubic.shape", dir);

    /* The prover backend only. */
    eng_t *eng = prove_with_mode(ENG_SYNTH_PROVER, NULL, "prover");
    CHECK_EQ_U64(metric_of(eng, "cuzk_synthesis_partitions_total{path=\"prover\"}"), 6);
    CHECK_EQ_U64(metric_of(eng, "cuzk_synthesis_partitions_total{path=\"pce\"}"), 0);
    eng_free(eng);
    /* The evaluator: the shape is recorded once, saved, and serves all six partitions. */
    eng = prove_with_mode(ENG_SYNTH_PCE, dir, "pce");
    CHECK_EQ_U64(metric_of(eng, "cuzk_synthesis_partitions_total{path=\"pce\"}"), 6);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 1);
    eng_free(eng);
    CHECK(etu_file_size(file) > 0);
    /* EvictSRS drops the recorded shape with the parameters (its bytes are in freed_bytes
     * and leave the budget); the next job records it again. */
    eng = prove_with_mode(ENG_SYNTH_PCE, NULL, "evict");
    {
        eng_status_info_t st;
        bool was_loaded = false;
        uint64_t freed = 0, small = etu_file_size(tk_params_path(etu_tk(), false));
        CHECK_OK(eng_get_status(eng, &st, NULL));
        uint64_t shape_bytes = st.mem_used_bytes - small;
        eng_status_clear(&st);
        CHECK(shape_bytes > 0);
        CHECK_OK(eng_srs_evict(eng, "test-cubic", &was_loaded, &freed, NULL));
        CHECK(was_loaded);
        CHECK_EQ_U64(freed, small + shape_bytes);
        CHECK_OK(eng_get_status(eng, &st, NULL));
        CHECK_EQ_U64(st.mem_used_bytes, 0);
        eng_status_clear(&st);
        tk_req r = etu_req(0, 3, 77);
        eng_result_copy_t res;
        etu_submit(eng, ENG_KIND_POREP, 0, "evict-again", &r, NULL);
        etu_wait(eng, "evict-again", &res, 30);
        etu_check_proofs(&res, &r);
        eng_result_copy_clear(&res);
        CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 2);
        CHECK_OK(eng_get_status(eng, &st, NULL));
        CHECK_EQ_U64(st.mem_used_bytes, small + shape_bytes);
        eng_status_clear(&st);
    }
    eng_free(eng);
    /* A restart loads it instead of recording. */
    eng = prove_with_mode(ENG_SYNTH_AUTO, dir, "auto");
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"loaded\"}"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 0);
    /* AUTO: a partition that starts while the shape is being loaded takes the prover backend. */
    uint64_t pce = metric_of(eng, "cuzk_synthesis_partitions_total{path=\"pce\"}");
    CHECK(pce >= 3 && pce <= 6);
    CHECK_EQ_U64(pce + metric_of(eng, "cuzk_synthesis_partitions_total{path=\"prover\"}"), 6);
    eng_free(eng);
    /* A corrupted file is refused (logged) and recorded again; the proofs still verify. */
    FILE *f = fopen(file, "r+b");
    CHECK(f != NULL);
    fseek(f, -5, SEEK_END);
    int c = fgetc(f);
    fseek(f, -5, SEEK_END);
    fputc(c ^ 0x40, f);
    fclose(f);
    etu_capture_start();
    eng = prove_with_mode(ENG_SYNTH_PCE, dir, "bad");
    cz_log_set_sink(NULL, NULL);
    CHECK(etu_captured("shape=test-cubic event=refused action=record"));
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"loaded\"}"), 0);
    eng_free(eng);
    remove(file);
    rmdir(dir);
}

/* A budget that holds the parameters and one partition's estimate, no more: the first
 * partition, admitted with the estimate before the shape exists, gives the shape's bytes out of
 * its own reservation (it is synthesized from the shape next, as a witness), so the shape is
 * recorded instead of failing for the budget. */
TEST(shape_recorded_within_its_partitions_budget)
{
    eng_config_t cfg;
    eng_result_copy_t res;
    const uint64_t part = UINT64_C(128) << 20;
    test_cfg(&cfg);
    cfg.synth_mode = ENG_SYNTH_PCE;
    cfg.mem_budget_bytes = etu_file_size(tk_params_path(etu_tk(), false)) + part;
    etu_capture_start();
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(0, 1, 61);
    r.mem_bytes = part;
    etu_submit(eng, ENG_KIND_POREP, 0, "tight-shape", &r, NULL);
    etu_wait(eng, "tight-shape", &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_synthesis_partitions_total{path=\"pce\"}"), 1);
    CHECK(etu_captured("job=tight-shape k=0 event=shape_from_partition"));
    CHECK(!etu_captured("event=record_failed"));
    eng_free(eng);
}

/* The key a shape file was saved under (docs/formats.md "Compact shape": key_len at byte 12,
 * the key at byte 88), NUL-terminated into key. */
static size_t shape_file_key(const char *path, char *key, size_t cap)
{
    uint8_t head[88 + 512];
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    size_t got = fread(head, 1, sizeof(head), f);
    fclose(f);
    CHECK(got >= 88);
    size_t n = (size_t)head[12] | (size_t)head[13] << 8;
    CHECK(n > 0 && n < cap && 88 + n <= got);
    memcpy(key, head + 88, n);
    key[n] = '\0';
    return n;
}

/* A shape file names its circuit's identity (CIRC_SYNTH_VERSION and the parameters' digest):
 * a file of another identity is refused and recorded again. A file that passes every check but
 * holds other coefficients (here tampered with, its checksums recomputed) makes the partitions
 * unsatisfiable: the shape is recorded again once, each partition proved again once, the file
 * replaced, and the job completes. */
TEST(stale_shape_cache_recorded_again)
{
    char dir[] = "/tmp/cuzk-stale-XXXXXX", file[256], key[512];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(file, sizeof(file), "%s/test-cubic.shape", dir);
    eng_t *eng = prove_with_mode(ENG_SYNTH_PCE, dir, "fresh");
    eng_free(eng);
    size_t kl = shape_file_key(file, key, sizeof(key));
    CHECK_MSG(strncmp(key, "cuzk-shape/test-cubic synth=", 28) == 0 && strstr(key, " params="),
              "key \"%s\"", key);
    cs_shape_t good, bad;
    CHECK_OK(cs_shape_load(&good, file, key, kl, NULL, NULL));
    CHECK_OK(cs_shape_load(&bad, file, key, kl, NULL, NULL));

    /* another identity: the key of a build that did not name one */
    CHECK_OK(cs_shape_save(&good, file, "cuzk-shape/test-cubic", 21, NULL, NULL));
    etu_capture_start();
    eng = prove_with_mode(ENG_SYNTH_PCE, dir, "other-id");
    cz_log_set_sink(NULL, NULL);
    ETU_CHECK_LOG("shape=test-cubic event=refused action=record", "another circuit shape");
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"loaded\"}"), 0);
    eng_free(eng);

    /* the same identity, other coefficients: every C entry of a constraint row negated */
    size_t flipped = 0;
    for (size_t r = 0; r < bad.num_constraints; r++) {
        for (uint32_t j = bad.C.row_ptr[r]; j < bad.C.row_ptr[r + 1]; j++) {
            if (bad.C.coef[j] <= CS_SHAPE_COEF_MINUS_ONE) {
                bad.C.coef[j] ^= 1;
                flipped++;
            }
        }
    }
    CHECK(flipped > 0);
    CHECK_OK(cs_shape_save(&bad, file, key, kl, NULL, NULL));
    etu_capture_start();
    eng = prove_with_mode(ENG_SYNTH_PCE, dir, "tampered");
    cz_log_set_sink(NULL, NULL);
    ETU_CHECK_LOG("shape=test-cubic event=shape_stale", "action=rerecord");
    CHECK_EQ_U64(etu_count_lines("event=shape_stale", "action=rerecord"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"loaded\"}"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 1);
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.completed, 2);
    CHECK_EQ_U64(st.failed, 0);
    eng_status_clear(&st);
    eng_free(eng);
    /* the file holds the circuit's shape again, and the next start loads it */
    cs_shape_t again;
    CHECK_OK(cs_shape_load(&again, file, key, kl, NULL, NULL));
    CHECK(cs_shape_eq(&again, &good));
    eng = prove_with_mode(ENG_SYNTH_PCE, dir, "repaired");
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"loaded\"}"), 1);
    CHECK_EQ_U64(metric_of(eng, "cuzk_shapes_total{how=\"recorded\"}"), 0);
    eng_free(eng);
    cs_shape_clear(&again);
    cs_shape_clear(&good);
    cs_shape_clear(&bad);
    remove(file);
    rmdir(dir);
}

/* Proved partitions' assignments serve the next partitions of the same counts: kept spares
 * count in the budget, and go before a partition would wait for memory. */
TEST(spare_assignments)
{
    uint64_t small = etu_file_size(tk_params_path(etu_tk(), false));
    const uint64_t part = 1u << 20;
    eng_config_t cfg;
    eng_status_info_t st;
    eng_result_copy_t res;
    test_cfg(&cfg);
    cfg.synth_mode = ENG_SYNTH_PCE;
    cfg.mem_budget_bytes = small + 4 * part;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    for (int i = 0; i < 2; i++) {
        char id[32];
        tk_req r = etu_req(0, 3, (uint64_t)(60 + 10 * i));
        r.mem_bytes = part;
        snprintf(id, sizeof(id), "spare-%d", i);
        etu_submit(eng, ENG_KIND_POREP, 0, id, &r, NULL);
        etu_wait(eng, id, &res, 30);
        etu_check_proofs(&res, &r);
        eng_result_copy_clear(&res);
    }
    /* two kept after the first job, both taken by the second's first partitions */
    CHECK(metric_of(eng, "cuzk_spare_assignments_reused_total") >= 2);
    uint64_t spare = metric_of(eng, "cuzk_memory_spare_assignments_bytes");
    CHECK(spare > 0 && spare < part);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    uint64_t rest = st.mem_used_bytes - spare; /* parameters and the recorded shape */
    eng_status_clear(&st);
    CHECK(rest > small && rest < small + part);

    /* a partition that fits only without the spares: they are dropped, it runs */
    tk_req big = etu_req(0, 1, 5);
    big.mem_bytes = cfg.mem_budget_bytes - rest;
    etu_submit(eng, ENG_KIND_POREP, 0, "spare-big", &big, NULL);
    etu_wait(eng, "spare-big", &res, 30);
    etu_check_proofs(&res, &big);
    eng_result_copy_clear(&res);
    /* its own assignment is the one spare left */
    CHECK(metric_of(eng, "cuzk_memory_spare_assignments_bytes") <= spare);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.mem_used_bytes, rest + metric_of(eng, "cuzk_memory_spare_assignments_bytes"));
    eng_status_clear(&st);
    eng_free(eng);
}

TEST(memory_budget_admission)
{
    uint64_t small = etu_file_size(tk_params_path(etu_tk(), false));
    const uint64_t part = 4u << 20;
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.synth_workers = 2;
    eng_result_copy_t res;

    /* Room for the parameters and one partition: syntheses never overlap. */
    cfg.mem_budget_bytes = small + part + part / 2;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(0, 4, 21);
    r.mem_bytes = part;
    r.sleep_ms = 40;
    etu_submit(eng, ENG_KIND_POREP, 0, "tight", &r, NULL);
    etu_wait(eng, "tight", &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);
    CHECK_EQ_U64(tk_max_concurrent(etu_tk()), 1);

    /* A partition that can never fit fails with a clear message; others carry on. */
    tk_req huge = etu_req(0, 1, 2);
    huge.mem_bytes = cfg.mem_budget_bytes;
    etu_submit(eng, ENG_KIND_POREP, 0, "huge", &huge, NULL);
    etu_wait(eng, "huge", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_MSG(strstr(res.r.error, "memory budget") != NULL, "%s", res.r.error);
    eng_result_copy_clear(&res);
    eng_free(eng);

    /* Room for two partitions: the two workers overlap. */
    cfg.mem_budget_bytes = small + 2 * part + part / 2;
    eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    r.sleep_ms = 150;
    etu_submit(eng, ENG_KIND_POREP, 0, "roomy", &r, NULL);
    etu_wait(eng, "roomy", &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);
    CHECK_EQ_U64(tk_max_concurrent(etu_tk()), 2);
    eng_free(eng);
}

TEST(batching)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.max_batch_size = 3;
    cfg.max_batch_wait_ms = 20000;
    cfg.synth_workers = 1;
    const eng_kind porep[] = {ENG_KIND_POREP, 0};
    eng_t *eng = etu_start(&cfg, porep, &tk_ops_batchable);
    eng_result_copy_t res;
    tk_req r = etu_req(0, 1, 30);

    /* Full batch: dispatched at once, long before the wait expires. */
    etu_submit(eng, ENG_KIND_POREP, 0, "b1", &r, NULL);
    etu_submit(eng, ENG_KIND_POREP, 0, "b2", &r, NULL);
    etu_submit(eng, ENG_KIND_POREP, 0, "b3", &r, NULL);
    const char *ids[] = {"b1", "b2", "b3"};
    for (int i = 0; i < 3; i++) {
        etu_wait(eng, ids[i], &res, 30);
        etu_check_proofs(&res, &r);
        CHECK_EQ_U64(res.r.batch_size, 3);
        CHECK(res.r.timings.queue_wait_ms < 10000);
        eng_result_copy_clear(&res);
    }
    char *text = NULL;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    CHECK(strstr(text, "\ncuzk_batches_total 1\n") != NULL);
    CHECK(strstr(text, "\ncuzk_batched_jobs_total 3\n") != NULL);
    cz_free(text);

    /* A lone job waits for company ... */
    eng_free(eng);
    cfg.max_batch_wait_ms = 300;
    eng = etu_start(&cfg, porep, &tk_ops_batchable);
    etu_submit(eng, ENG_KIND_POREP, 0, "lone", &r, NULL);
    etu_wait(eng, "lone", &res, 30);
    etu_check_proofs(&res, &r);
    CHECK_EQ_U64(res.r.batch_size, 1);
    CHECK_MSG(res.r.timings.queue_wait_ms >= 290, "queue_wait %llu ms",
              (unsigned long long)res.r.timings.queue_wait_ms);
    eng_result_copy_clear(&res);
    eng_free(eng);

    /* ... unless higher-priority work arrives, which flushes the partial batch. */
    etu_reset();
    cfg.max_batch_wait_ms = 20000;
    eng_t *e2 = NULL;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_OK(eng_new(&e2, &cfg, &dg));
    CHECK_OK(eng_register_kind(e2, ENG_KIND_POREP, &tk_ops_batchable, etu_tk(), &dg));
    CHECK_OK(eng_register_kind(e2, ENG_KIND_WINNING_POST, &tk_ops, etu_tk(), &dg));
    CHECK_OK(eng_start(e2, &dg));
    etu_submit(e2, ENG_KIND_POREP, 0, "n", &r, NULL);
    etu_sleep_ms(50);
    etu_submit(e2, ENG_KIND_WINNING_POST, 0, "w", &r, NULL);
    etu_wait(e2, "n", &res, 30);
    etu_check_proofs(&res, &r);
    CHECK_EQ_U64(res.r.batch_size, 1);
    CHECK_MSG(res.r.timings.queue_wait_ms < 10000, "queue_wait %llu ms",
              (unsigned long long)res.r.timings.queue_wait_ms);
    eng_result_copy_clear(&res);
    etu_wait(e2, "w", &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);
    eng_free(e2);
}

/* Counts results by status into the atomic_int[5] at arg. */
static void status_cb(void *arg, const eng_result_t *res)
{
    atomic_int *n = arg;
    atomic_fetch_add(&n[res->status], 1);
}

TEST(await_timeout_and_unknown)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req gate = etu_req(TK_GATE, 1, 5);
    eng_result_copy_t res;

    etu_submit(eng, ENG_KIND_POREP, 0, "slow", &gate, NULL);
    eng_wait(eng, "slow", 50, &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_TIMEOUT);
    CHECK_STR_EQ(res.r.job_id, "slow");
    eng_result_copy_clear(&res);
    /* A huge timeout ("forever", UINT64_MAX included) must not overflow into one in the past. */
    uint64_t huge[] = {UINT64_C(18446744073709), UINT64_C(1) << 62, UINT64_MAX};
    static atomic_int by_status[5];
    for (size_t i = 0; i < ARRAY_LEN(huge); i++) {
        eng_await(eng, "slow", huge[i], status_cb, by_status);
    }
    etu_sleep_ms(100);
    CHECK_EQ_U64(atomic_load(&by_status[ENG_STATUS_TIMEOUT]), 0);
    eng_wait(eng, "missing", 0, &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_UNKNOWN);
    eng_result_copy_clear(&res);
    /* eng_poll answers at once: running, unknown, then (below) the final result. */
    eng_poll(eng, "slow", &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_TIMEOUT);
    CHECK_EQ_U64(res.r.kind, ENG_KIND_POREP);
    CHECK(res.r.proof == NULL && res.r.proof_len == 0);
    eng_result_copy_clear(&res);
    eng_poll(eng, "missing", &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_UNKNOWN);
    CHECK_STR_EQ(res.r.job_id, "missing");
    eng_result_copy_clear(&res);
    tk_open_gate(etu_tk());
    etu_wait(eng, "slow", &res, 30);
    etu_check_proofs(&res, &gate);
    eng_result_copy_clear(&res);
    eng_poll(eng, "slow", &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_COMPLETED);
    etu_check_proofs(&res, &gate);
    eng_result_copy_clear(&res);
    for (int i = 0; i < 200 && atomic_load(&by_status[ENG_STATUS_COMPLETED]) < 3; i++) {
        etu_sleep_ms(10);
    }
    CHECK_EQ_U64(atomic_load(&by_status[ENG_STATUS_COMPLETED]), 3);
    CHECK_EQ_U64(atomic_load(&by_status[ENG_STATUS_TIMEOUT]), 0);
    eng_free(eng);
}

TEST(metrics_exposition)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(0, 2, 50);
    eng_result_copy_t res;
    etu_submit(eng, ENG_KIND_POREP, 0, "m1", &r, NULL);
    etu_wait(eng, "m1", &res, 30);
    eng_result_copy_clear(&res);

    char *text = NULL;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    const char *want[] = {
        "\ncuzk_proofs_completed_total 1\n",
        "\ncuzk_proofs_failed_total 0\n",
        "\ncuzk_proofs_completed{proof_kind=\"porep_c2\"} 1\n",
        "\ncuzk_proofs_completed{proof_kind=\"winning_post\"} 0\n",
        "\ncuzk_queue_depth 0\n",
        "\ncuzk_running_jobs 0\n",
        "\ncuzk_stage_duration_seconds_count{proof_kind=\"porep_c2\",stage=\"total\"} 1\n",
        ("\ncuzk_stage_duration_seconds_bucket{proof_kind=\"porep_c2\",stage=\"prove\","
         "le=\"+Inf\"} 1\n"),
        "\ncuzk_srs_bytes{circuit_id=\"test-cubic\",tier=\"hot\"} ",
        "# TYPE cuzk_stage_duration_seconds histogram\n",
        "\ncuzk_cpu_proofs_total 2\n",
        "\ncuzk_gpus 0\n",
        "# TYPE cuzk_gpu_proofs_total counter\n",
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        CHECK_MSG(strstr(text, want[i]) != NULL, "missing \"%s\" in:\n%s", want[i], text);
    }
    /* Every sample line is "name[{labels}] value", and its family was declared before. */
    char *save = NULL;
    size_t lines = 0;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lines++;
        if (line[0] == '#') {
            CHECK(strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0);
            continue;
        }
        char *sp = strrchr(line, ' ');
        CHECK_MSG(sp && sp[1], "bad line \"%s\"", line);
        char *end;
        strtod(sp + 1, &end);
        CHECK_MSG(*end == '\0', "bad value in \"%s\"", line);
        size_t nlen = strcspn(line, "{ ");
        CHECK(nlen > 5 && strncmp(line, "cuzk_", 5) == 0);
    }
    CHECK(lines > 40);
    cz_free(text);
    eng_free(eng);
}

/* A running job's partitions and partitions proved are gauges labelled with its id, escaped
 * as a Prometheus label value (ids are arbitrary request strings); gone once the job ends. */
TEST(metrics_job_progress)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.synth_workers = 1; /* the gated partition 0 holds the only worker: nothing is proved */
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(TK_GATE, 3, 5);
    const char *id = "job \"7\" \\ x";
    eng_result_copy_t res;
    char *text = NULL;

    etu_submit(eng, ENG_KIND_POREP, 0, id, &r, NULL);
    CHECK(ev_wait("synth", id, 0));
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    const char *want[] = {
        "# TYPE cuzk_job_partitions gauge\n",
        "\ncuzk_job_partitions{job=\"job \\\"7\\\" \\\\ x\",proof_kind=\"porep_c2\"} 3\n",
        "\ncuzk_job_partitions_done{job=\"job \\\"7\\\" \\\\ x\",proof_kind=\"porep_c2\"} 0\n",
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        CHECK_MSG(strstr(text, want[i]) != NULL, "missing \"%s\" in:\n%s", want[i], text);
    }
    cz_free(text);
    tk_open_gate(etu_tk());
    etu_wait(eng, id, &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    CHECK_MSG(strstr(text, "cuzk_job_partitions{") == NULL, "%s", text);
    CHECK_MSG(strstr(text, "# TYPE cuzk_job_partitions_done gauge\n") != NULL, "%s", text);
    cz_free(text);
    eng_free(eng);
}

/* The status lists each dispatched, unfinished job (never a queued one) with its partitions
 * and partitions proved while it runs, and nothing once it ended; each partition proved of a
 * multi-partition job is logged at info level, and every line quotes an id with a space. */
static const eng_job_info_t *wait_parts_done(eng_t *eng, eng_status_info_t *st, size_t done)
{
    for (int i = 0; i < 2000; i++) {
        CHECK_OK(eng_get_status(eng, st, NULL));
        if (st->n_jobs > 0 && st->jobs[0].partitions_done == done) {
            return &st->jobs[0];
        }
        eng_status_clear(st);
        etu_sleep_ms(5);
    }
    test_fail(__FILE__, __LINE__, "partitions_done never reached %zu", done);
    return NULL;
}

TEST(status_running_jobs)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.synth_workers = 2; /* one waits at the gate in partition 0, one does partitions 1..3 */
    cfg.max_active_jobs = 1;
    etu_capture_start();
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(TK_GATE, 4, 8), q = etu_req(0, 1, 9);
    const char *id = "job 8";
    eng_status_info_t st;
    eng_result_copy_t res;

    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_jobs, 0);
    CHECK(st.jobs == NULL);
    eng_status_clear(&st);

    etu_submit(eng, ENG_KIND_SNAP, 0, id, &r, NULL);
    CHECK(ev_wait("synth", id, 0));
    etu_submit(eng, ENG_KIND_POREP, 0, "queued", &q, NULL); /* waits for the active slot */
    etu_submit(eng, ENG_KIND_POREP, 0, "q 2", &q, NULL);
    bool was_running = true;
    CHECK(eng_cancel(eng, "q 2", &was_running));
    CHECK(!was_running);
    const eng_job_info_t *j = wait_parts_done(eng, &st, 3);
    CHECK_EQ_U64(st.n_jobs, 1);
    CHECK_STR_EQ(j->job_id, id);
    CHECK_EQ_U64(j->kind, ENG_KIND_SNAP);
    CHECK_EQ_U64(j->partitions, 4);
    CHECK_MSG(j->stage == ENG_JOB_SYNTHESIS, "stage %s", eng_job_stage_name(j->stage));
    CHECK(j->running_ms <= j->age_ms);
    CHECK_EQ_U64(st.queues[ENG_KIND_POREP - 1].pending, 1);
    eng_status_clear(&st);

    tk_open_gate(etu_tk());
    etu_wait(eng, id, &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);
    etu_wait(eng, "queued", &res, 30);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_COMPLETED);
    eng_result_copy_clear(&res);
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_jobs, 0);
    eng_status_clear(&st);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    for (int k = 1; k <= 4; k++) {
        char want[96];
        snprintf(want, sizeof(want), "event=progress partitions_done=%d partitions=4", k);
        CHECK_MSG(etu_count_lines("info job=\"job 8\" ", want) == 1, "no line with %s; log:\n%s",
                  want, etu_log_text());
    }
    CHECK(!etu_captured("job=queued event=progress")); /* one partition: no progress lines */
    /* Every line names the ids as one value (cz_log_quote). */
    ETU_CHECK_LOG("info job=\"job 8\" kind=snap-update prio=normal event=dispatched", NULL);
    ETU_CHECK_LOG("info job=\"q 2\" event=cancel was_running=0", NULL);
    CHECK_MSG(!etu_captured("job=job 8") && !etu_captured("job=q 2"), "%s", etu_log_text());
    CHECK_STR_EQ(eng_job_stage_name(ENG_JOB_CANCELLING), "cancelling");
    CHECK_STR_EQ(eng_job_stage_name(ENG_JOB_PREPARE), "prepare");
}

/* ---- GPU selection without a usable device ---- */

/* Proves one two-partition job and checks that both partitions went to the CPU provers and
 * that status and metrics list no device. */
static void prove_on_cpu_only(eng_t *eng, const char *rid)
{
    tk_req r = etu_req(0, 2, 70);
    eng_result_copy_t res;
    etu_submit(eng, ENG_KIND_POREP, 0, rid, &r, NULL);
    etu_wait(eng, rid, &res, 30);
    etu_check_proofs(&res, &r);
    eng_result_copy_clear(&res);

    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_gpus, 0);
    CHECK(st.gpus == NULL);
    eng_status_clear(&st);
    char *text = NULL;
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    CHECK_MSG(strstr(text, "\ncuzk_gpus 0\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "\ncuzk_cpu_proofs_total 2\n") != NULL, "%s", text);
    CHECK_MSG(strstr(text, "cuzk_gpu_proofs_total{") == NULL, "%s", text);
    cz_free(text);
}

/* "auto" (the default) without a device proves on the CPU provers and reports no GPU. */
TEST(gpu_auto_without_device_uses_cpu)
{
    if (gpu_count() > 0) {
        test_skip("a GPU is present (test_engine_gpu covers that case)");
    }
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.gpu_mode = ENG_GPU_AUTO;
    etu_capture_start();
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    prove_on_cpu_only(eng, "auto-1");
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK(etu_captured("event=no_gpu gpus=auto devices_found=0 action=cpu"));
    CHECK(etu_captured("prover_threads=1 gpus=0"));
}

/* A listed device that does not exist is skipped with a warning naming it (the engine still
 * starts and proves on the CPU: a missing device must not stop WinningPoSt); "none" never
 * opens one. */
TEST(gpu_listed_device_missing_is_skipped)
{
    unsigned missing = gpu_count() + 5;
    char want[160];
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.gpu_mode = ENG_GPU_LIST;
    cfg.gpu_devices[0] = missing;
    cfg.n_gpu_devices = 1;
    etu_capture_start();
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    prove_on_cpu_only(eng, "missing-1");
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    snprintf(want, sizeof(want),
             "warn gpu=%u event=skipped reason=\"no such device: %u found\" action=not_used",
             missing, gpu_count());
    CHECK_MSG(etu_captured(want), "no \"%s\" in the log:\n%s", want, etu_log_text());
    CHECK(etu_captured("warn event=no_gpu_usable devices_listed=1"));

    test_cfg(&cfg); /* ENG_GPU_NONE */
    etu_capture_start();
    eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    prove_on_cpu_only(eng, "none-1");
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK(!etu_captured("event=no_gpu"));
    CHECK(!etu_captured("event=opened"));
}

/* eng_new refuses GPU lists it could not honour. */
TEST(gpu_config_checked)
{
    eng_config_t cfg;
    eng_t *eng = NULL;
    cz_diag dg;

    test_cfg(&cfg);
    cfg.gpu_mode = ENG_GPU_LIST;
    cfg.n_gpu_devices = 0;
    cz_diag_init(&dg);
    CHECK_ERR(eng_new(&eng, &cfg, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "0 GPU ordinals listed") != NULL);
    cfg.n_gpu_devices = ENG_MAX_GPUS + 1;
    CHECK_ERR(eng_new(&eng, &cfg, NULL), CUZK_E_INVAL);
    cfg.n_gpu_devices = 3;
    cfg.gpu_devices[0] = 4;
    cfg.gpu_devices[1] = 1;
    cfg.gpu_devices[2] = 4;
    cz_diag_init(&dg);
    CHECK_ERR(eng_new(&eng, &cfg, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "GPU 4 is listed twice") != NULL);
    cfg.gpu_devices[2] = 2;
    CHECK_OK(eng_new(&eng, &cfg, NULL));
    eng_free(eng);
    cfg.gpu_mode = (eng_gpu_mode)7;
    CHECK_ERR(eng_new(&eng, &cfg, NULL), CUZK_E_INVAL);
    CHECK(eng == NULL);
}

typedef struct counted {
    pthread_mutex_t mu;
    int n[5];
} counted;

static void count_cb(void *arg, const eng_result_t *res)
{
    counted *c = arg;
    pthread_mutex_lock(&c->mu);
    c->n[res->status]++;
    pthread_mutex_unlock(&c->mu);
}

TEST(drain_then_free_cancels_the_rest)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.max_active_jobs = 1;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req r = etu_req(0, 1, 5), gate = etu_req(TK_GATE, 1, 6);
    r.sleep_ms = 50;

    etu_submit(eng, ENG_KIND_POREP, 0, "d1", &r, NULL);
    etu_submit(eng, ENG_KIND_POREP, 0, "d2", &r, NULL);
    CHECK_EQ_U64(eng_drain(eng, 20000), 0);
    CHECK(eng_idle(eng));
    etu_scratch s;
    eng_request_t req = etu_request(&s, ENG_KIND_POREP, 0, "late", &r);
    eng_submit_info_t info;
    CHECK_ERR(eng_submit(eng, &req, &info, NULL), CUZK_E_CANCELLED);
    eng_free(eng);

    /* eng_free with a running and a queued job: both waiters hear CANCELLED. */
    eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    counted c = {.mu = PTHREAD_MUTEX_INITIALIZER};
    etu_submit(eng, ENG_KIND_POREP, 0, "run", &gate, NULL);
    CHECK(ev_wait("synth", "run", 0));
    etu_submit(eng, ENG_KIND_POREP, 0, "queued", &r, NULL);
    eng_await(eng, "run", 0, count_cb, &c);
    eng_await(eng, "queued", 0, count_cb, &c);
    eng_await(eng, "queued", 60000, count_cb, &c);
    CHECK(eng_drain(eng, 50) == 2);
    eng_free(eng); /* the gated stage sees plan->cancelled and returns */
    CHECK_EQ_U64(c.n[ENG_STATUS_CANCELLED], 3);
    CHECK_EQ_U64(c.n[ENG_STATUS_COMPLETED] + c.n[ENG_STATUS_TIMEOUT], 0);
}

/* Random mixes of good and bad jobs, priorities and cancellations: every job ends with the
 * status its flags imply, proofs verify, and the counters add up (TSan's main workload). */
TEST(random_mix)
{
    eng_config_t cfg;
    test_cfg(&cfg);
    cfg.max_batch_size = 2;
    cfg.max_batch_wait_ms = 20;
    cfg.max_active_jobs = 3;
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops_batchable);
    cz_prng *g = test_prng();
    enum { N = 24 };
    tk_req reqs[N];
    char ids[N][ENG_ID_MAX];
    bool cancelled[N] = {false};
    int expect_ok = 0, expect_fail = 0;

    for (int i = 0; i < N; i++) {
        uint32_t flags = 0;
        switch (cz_prng_below(g, 6)) {
        case 0:
            flags = TK_BAD_SYNTH;
            break;
        case 1:
            flags = TK_PARSE_FAIL;
            break;
        default:
            break;
        }
        reqs[i] = etu_req(flags, 1 + (uint32_t)cz_prng_below(g, 3), cz_prng_u64(g) >> 8);
        reqs[i].mem_bytes = cz_prng_below(g, 4) << 20;
        eng_kind kind = (eng_kind)(1 + cz_prng_below(g, 4));
        eng_prio prio = (eng_prio)cz_prng_below(g, 5);
        snprintf(ids[i], ENG_ID_MAX, "mix-%d", i);
        etu_submit(eng, kind, prio, ids[i], &reqs[i], NULL);
        if (cz_prng_below(g, 8) == 0) {
            bool was_running;
            cancelled[i] = eng_cancel(eng, ids[i], &was_running);
        }
    }
    int ok = 0, failed = 0, canc = 0;
    for (int i = 0; i < N; i++) {
        eng_result_copy_t res;
        etu_wait(eng, ids[i], &res, 30);
        if (res.r.status == ENG_STATUS_COMPLETED) {
            CHECK(!(reqs[i].flags & (TK_BAD_SYNTH | TK_PARSE_FAIL)));
            etu_check_proofs(&res, &reqs[i]);
            ok++;
        } else if (res.r.status == ENG_STATUS_FAILED) {
            CHECK_MSG(reqs[i].flags != 0, "%s failed: %s", ids[i], res.r.error);
            failed++;
        } else {
            CHECK_EQ_U64(res.r.status, ENG_STATUS_CANCELLED);
            CHECK(cancelled[i]);
            canc++;
        }
        if (!cancelled[i]) {
            expect_ok += reqs[i].flags == 0;
            expect_fail += reqs[i].flags != 0;
        }
        eng_result_copy_clear(&res);
    }
    CHECK(ok >= expect_ok && failed >= expect_fail);
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.completed, (uint64_t)ok);
    CHECK_EQ_U64(st.failed, (uint64_t)failed);
    CHECK_EQ_U64(st.cancelled, (uint64_t)canc);
    for (int k = 0; k < 4; k++) {
        CHECK_EQ_U64(st.queues[k].pending + st.queues[k].in_progress, 0);
    }
    eng_status_clear(&st);
    eng_free(eng);
}
