/* test_tools_client.c - cuzk-bench's cuzkd client commands (single, batch, stress, status,
 * preload, evict, metrics) against daemons started on unix sockets in a temporary directory:
 *
 *   - the real cuzkd with an empty parameter cache: status (table and JSON), metrics, errors
 *     for unknown circuits, an unreachable address, bad flags, and a proof request that the
 *     daemon cannot complete (missing parameters, or a kind not in the build) reported as a
 *     clean failure (exit 2, the daemon's reason);
 *   - the real cuzkd with test parameters from `cuzk-bench setup --proof KIND` (skipped, and
 *     said so, when this build's setup has no --proof): a window-post proof made from
 *     gen-vanilla output and verified here with our Groth16 verifier against public inputs
 *     derived from the vanilla proof (single --vk), SRS tiers through preload / evict /
 *     status, and the proof counter seen by status and metrics alike;
 *   - cuzkd_test (the engine's test handler "tk" for every kind: tiny circuits proved for
 *     real) for batch and stress, whose counts, failure reasons and time bound are checked
 *     against what the daemon's status and metrics report.
 * Built a second time with TOOLS_SLOW_TESTS=1 (label slow): real porep, snap and winning-post
 * proofs (their test parameters take minutes to generate on two cores).
 */
#include <stdlib.h>

#include "harness/test.h"
#include "tools_util.h"

#if !defined(TOOLS_SLOW_TESTS) || !TOOLS_SLOW_TESTS
#    include "engine/test_kind.h"
#endif

#ifndef TOOLS_PARAM_DIR
#    error "TOOLS_PARAM_DIR must name a persistent directory for test parameters"
#endif

static const char *seed_arg(void)
{
    static char buf[32];
    snprintf(buf, sizeof(buf), "%016" PRIx64, test_seed());
    return buf;
}

/* The real cuzkd over the persistent test-parameter directory. */
static const char *param_daemon(void)
{
    static const char *addr;
    if (!addr) {
        const char *args[] = {"--param-cache",         TOOLS_PARAM_DIR, "--log-level", "warn",
                              "--memory-total-budget", "8GiB",          NULL};
        addr = tu_daemon_start(CUZKD_EXE, "params", args);
    }
    return addr;
}

static void gen(const char *kind, const char *name)
{
    tu_result r;
    tu_bench(&r, "gen-vanilla", kind, "--sector-size", "2KiB", "--out", tu_path(name), "--seed",
             seed_arg(), NULL);
    CHECK_EQ_U64(r.status, 0);
    tu_result_clear(&r);
}

/* `cuzk-bench setup --proof` exists in this build (another command table row). */
static bool have_filecoin_setup(void)
{
    tu_result r;
    bool yes;
    tu_bench(&r, "setup", "--help", NULL);
    yes = r.status == 0 && strstr(r.out, "--proof") != NULL;
    tu_result_clear(&r);
    return yes;
}

/* Test parameters for (kind, 2 KiB) in TOOLS_PARAM_DIR; writes the .vk path into vk. */
static void setup_params(const char *kind, char *vk, size_t cap)
{
    tu_result r;
    const char *p, *e;

    if (!have_filecoin_setup()) {
        test_skip("cuzk-bench setup has no --proof in this build: no test parameters, so no "
                  "real proof (NOT a pass)");
    }
    tu_bench(&r, "setup", "--proof", kind, "--sector-size", "2KiB", "--out", TOOLS_PARAM_DIR,
             "--seed", "0102", NULL);
    CHECK_EQ_U64(r.status, 0);
    p = strstr(r.out, "params=");
    CHECK(p);
    p += strlen("params=");
    e = strstr(p, ".params");
    CHECK(e && (size_t)(e - p) + 4 < cap);
    memcpy(vk, p, (size_t)(e - p));
    strcpy(vk + (e - p), ".vk");
    CHECK_MSG(tu_exists(vk), "no verifying key %s", vk);
    tu_result_clear(&r);
}

/* single on gen-vanilla output with local verification; returns the proof length or skips
 * when the daemon has no handler for the kind. */
static size_t prove_real(const char *kind, const char *file, const char *vk)
{
    tu_result r;
    size_t len;
    uint8_t *proof;
    char out[512];

    snprintf(out, sizeof(out), "%s.proof", tu_path(file));
    tu_bench(&r, "single", "--addr", param_daemon(), "--type", kind, "--vanilla", tu_path(file),
             "--vk", vk, "--out", out, NULL);
    if (r.status != 0 && strstr(r.err, "not available in this build")) {
        printf("     %s", r.err);
        tu_result_clear(&r);
        test_skip("cuzkd has no handler for this kind yet: no real proof (NOT a pass)");
    }
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "status     COMPLETED", "srs load", "synthesis", "prove (gpu)", "total",
                 "verify partition=0 valid", NULL));
    CHECK(strstr(r.out, "INVALID") == NULL);
    tu_result_clear(&r);
    proof = tu_read(out, &len);
    CHECK(proof && len > 0 && len % 192 == 0);
    free(proof);
    return len;
}

#if !defined(TOOLS_SLOW_TESTS) || !TOOLS_SLOW_TESTS

static const char ZERO32[] = "0000000000000000000000000000000000000000000000000000000000000000";

/* The real cuzkd with an empty parameter cache. */
static const char *plain_daemon(void)
{
    static const char *addr;
    if (!addr) {
        const char *args[] = {"--param-cache",
                              tu_path("empty-params"),
                              "--log-level",
                              "warn",
                              "--memory-total-budget",
                              "4GiB",
                              NULL};
        addr = tu_daemon_start(CUZKD_EXE, "plain", args);
    }
    return addr;
}

/* GetStatus as JSON; returns the text (owned). */
static char *status_json(const char *addr)
{
    tu_result r;
    char *s;
    tu_bench(&r, "status", "--addr", addr, "--json", NULL);
    CHECK_EQ_U64(r.status, 0);
    s = r.out;
    r.out = NULL;
    tu_result_clear(&r);
    CHECK(s[0] == '{');
    return s;
}

static uint64_t status_u64(const char *addr, const char *key)
{
    char *s = status_json(addr);
    uint64_t v = 0;
    CHECK_MSG(tu_json_u64(s, key, &v), "no %s in %s", key, s);
    free(s);
    return v;
}

/* The tier of circuit `id` in GetStatus ("" when not listed). */
static void srs_tier(const char *addr, const char *id, char *tier, size_t cap)
{
    char *s = status_json(addr), pat[128];
    const char *p;

    snprintf(pat, sizeof(pat), "{\"circuit_id\":\"%s\",", id);
    p = strstr(s, pat);
    tier[0] = '\0';
    if (p) {
        CHECK(tu_json_str(p, "tier", tier, cap));
    }
    free(s);
}

/* The value of an unlabelled Prometheus sample. */
static uint64_t metric(const char *addr, const char *name)
{
    tu_result r;
    char pat[128];
    const char *p;
    uint64_t v;

    tu_bench(&r, "metrics", "--addr", addr, NULL);
    CHECK_EQ_U64(r.status, 0);
    snprintf(pat, sizeof(pat), "\n%s ", name);
    p = strstr(r.out, pat);
    CHECK_MSG(p != NULL, "no sample %s", name);
    v = strtoull(p + strlen(pat), NULL, 10);
    tu_result_clear(&r);
    return v;
}

/* ---- the real daemon without parameters --------------------------------------------------- */

TEST(status_and_metrics)
{
    const char *addr = plain_daemon();
    tu_result r;
    char *s;

    tu_bench(&r, "status", "--addr", addr, NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "uptime", "porep-c2", "snap-update", "window-post", "winning-post",
                 "(none loaded)", "pending", "in_progress", NULL));
    CHECK_MSG(strstr(r.out, "partitions        age\n(none)\n") != NULL, "%s", r.out);
    tu_result_clear(&r);

    s = status_json(addr);
    CHECK(tu_has(s, "\"proof_kind\":\"porep-c2\"", "\"proof_kind\":\"snap-update\"",
                 "\"proof_kind\":\"window-post\"", "\"proof_kind\":\"winning-post\"",
                 "\"loaded_srs\":[]", "\"gpus\":[]", "\"running_jobs\":[]", NULL));
    free(s);
    CHECK_EQ_U64(status_u64(addr, "total_proofs_completed"), 0);
    CHECK_EQ_U64(metric(addr, "cuzk_proofs_completed_total"), 0);
}

TEST(preload_evict_unknown_circuit)
{
    const char *addr = plain_daemon();
    tu_result r;

    tu_bench(&r, "preload", "--addr", addr, "--circuit-id", "no-such-circuit", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.err, "cuzk-bench preload: error: PreloadSRS: NOT_FOUND", NULL));
    tu_result_clear(&r);
    tu_bench(&r, "evict", "--addr", addr, "--circuit-id", "no-such-circuit", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.err, "cuzk-bench evict: error: EvictSRS: NOT_FOUND", NULL));
    tu_result_clear(&r);
    tu_bench(&r, "preload", "--addr", addr, NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "missing required option --circuit-id") != NULL);
    tu_result_clear(&r);
}

TEST(unreachable_and_bad_flags)
{
    tu_result r;
    char addr[600];

    snprintf(addr, sizeof(addr), "unix://%s", tu_path("nobody.sock"));
    tu_bench(&r, "status", "--addr", addr, NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.err, "GetStatus: UNAVAILABLE", "is cuzkd listening at", NULL));
    tu_result_clear(&r);
    tu_bench(&r, "metrics", "--addr", "no-port", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "--addr") != NULL);
    tu_result_clear(&r);

    gen("window-post", "bf.bin");
    tu_bench(&r, "single", "--addr", plain_daemon(), "--type", "window-post", "--vanilla",
             tu_path("bf.bin"), "--priority", "urgent", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "--priority 'urgent'") != NULL);
    tu_result_clear(&r);
    tu_bench(&r, "single", "--addr", plain_daemon(), "--type", "window-post", "--vanilla",
             tu_path("bf.bin"), "--randomness", "12", NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "--randomness: expected 64 hex digits") != NULL);
    tu_result_clear(&r);
    tu_bench(&r, "single", "--addr", plain_daemon(), "--type", "window-post", "--vanilla",
             tu_path("bf.bin"), "--no-sidecar", "--sector-size", "2KiB", "--randomness", ZERO32,
             NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(strstr(r.err, "needs --miner-id") != NULL);
    tu_result_clear(&r);
    for (size_t i = 0; i < 7; i++) {
        static const char *const cmds[] = {"single",  "batch", "stress", "status",
                                           "preload", "evict", "metrics"};
        tu_bench(&r, cmds[i], "--help", NULL);
        CHECK_EQ_U64(r.status, 0);
        CHECK(tu_has(r.out, "usage: cuzk-bench", "--addr", NULL));
        tu_result_clear(&r);
    }
}

TEST(failed_proof_is_reported_cleanly)
{
    const char *addr = plain_daemon();
    uint64_t failed0 = status_u64(addr, "total_proofs_failed");
    tu_result r;

    /* no parameters in this daemon's cache (or no porep handler in this build): FAILED */
    gen("porep", "nf.json");
    tu_bench(&r, "single", "--addr", addr, "--type", "porep", "--c1", tu_path("nf.json"), NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.out, "status     FAILED", NULL));
    CHECK(tu_has(r.err, "cuzk-bench single: error: proof FAILED: ", NULL));
    CHECK(strstr(r.err, "not available in this build") || strstr(r.err, "not found"));
    tu_result_clear(&r);
    CHECK_EQ_U64(status_u64(addr, "total_proofs_failed"), failed0 + 1);
    /* a request the daemon refuses outright: a winning-post takes exactly one sector proof */
    gen("winning-post", "two.bin");
    tu_bench(&r, "single", "--addr", addr, "--type", "winning-post", "--vanilla",
             tu_path("two.bin"), tu_path("two.bin"), NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.err, "Prove: INVALID_ARGUMENT", "exactly 1", NULL));
    tu_result_clear(&r);
}

/* ---- a real window-post proof ------------------------------------------------------------- */

/* batch --vk: two proofs of `file` verified here; then against a copy of vk with beta_g2 and
 * gamma_g2 swapped (a well-formed key of other values, VK_OFF_* of src/groth16/params.c), with
 * which no proof verifies. */
static void batch_verified(const char *addr, const char *file, const char *vk)
{
    char bad[512];
    uint8_t g2[192], *d;
    size_t len;
    tu_result r;

    tu_bench(&r, "batch", "--addr", addr, "--type", "window-post", "--vanilla", tu_path(file),
             "--count", "2", "--vk", vk, NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "completed=2 failed=0", "verified=2", NULL));
    tu_result_clear(&r);

    snprintf(bad, sizeof(bad), "%s", tu_path("swapped.vk"));
    d = tu_read(vk, &len);
    CHECK(d && len > 576);
    memcpy(g2, d + 192, sizeof(g2));
    memmove(d + 192, d + 384, sizeof(g2));
    memcpy(d + 384, g2, sizeof(g2));
    tu_write(bad, d, len);
    free(d);
    tu_bench(&r, "batch", "--addr", addr, "--type", "window-post", "--vanilla", tu_path(file),
             "--count", "2", "--vk", bad, NULL);
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.out, "completed=0 failed=2", "verified=0",
                 "2 x COMPLETED: a proof that does not verify", NULL));
    tu_result_clear(&r);
}

TEST(prove_window_post_for_real)
{
    char vk[1024], tier[16];
    const char *addr;
    tu_result r;
    uint64_t done0;

    setup_params("window-post", vk, sizeof(vk));
    addr = param_daemon();
    done0 = status_u64(addr, "total_proofs_completed");
    gen("window-post", "wreal.bin");
    CHECK_EQ_U64(prove_real("window-post", "wreal.bin", vk), 192);
    CHECK_EQ_U64(status_u64(addr, "total_proofs_completed"), done0 + 1);
    CHECK_EQ_U64(metric(addr, "cuzk_proofs_completed_total"), done0 + 1);
    batch_verified(addr, "wreal.bin", vk);

    /* the proof loaded wpost-2k; evict, then preload twice */
    srs_tier(addr, "wpost-2k", tier, sizeof(tier));
    CHECK_STR_EQ(tier, "HOT");
    tu_bench(&r, "evict", "--addr", addr, "--circuit-id", "wpost-2k", NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "was_loaded=true", NULL));
    CHECK(strstr(r.out, "freed_bytes=0 ") == NULL);
    tu_result_clear(&r);
    srs_tier(addr, "wpost-2k", tier, sizeof(tier));
    CHECK(strcmp(tier, "HOT") != 0);
    tu_bench(&r, "preload", "--addr", addr, "--circuit-id", "wpost-2k", NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "already_loaded=false", NULL));
    tu_result_clear(&r);
    tu_bench(&r, "preload", "--addr", addr, "--circuit-id", "wpost-2k", NULL);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "already_loaded=true", NULL));
    tu_result_clear(&r);
    srs_tier(addr, "wpost-2k", tier, sizeof(tier));
    CHECK_STR_EQ(tier, "HOT");
}

/* ---- batch and stress ---------------------------------------------------------------------- */

/* Where batch and stress run: cuzkd_test, whose "tk" handler proves tiny circuits for every
 * kind (fast), or, when that daemon cannot start, the real daemon proving 2 KiB window-posts
 * (seconds each: fewer proofs). Each request is the flags after --addr. */
typedef struct btarget {
    const char *addr;
    bool tk;
    const char *ok[16];   /* a request that completes */
    const char *bad[16];  /* one that fails (the daemon cannot parse it) */
    const char *slow[16]; /* one that takes a while */
} btarget;

#    ifdef CUZKD_TEST_EXE
/* A tk request file: nparts partitions, flags, sleep per synthesis. */
static const char *tk_file(const char *name, uint32_t nparts, uint32_t flags, uint32_t sleep_ms)
{
    tk_req q;
    uint8_t buf[256];
    size_t len;

    memset(&q, 0, sizeof(q));
    q.flags = flags;
    q.sleep_ms = sleep_ms;
    q.nparts = nparts;
    for (uint32_t i = 0; i < nparts; i++) {
        q.x[i] = 3 + i;
    }
    CHECK(tk_encoded_len(&q) <= sizeof(buf));
    len = tk_encode(buf, &q);
    tu_write(tu_path(name), buf, len);
    return tu_path(name);
}

/* tk requests travel as window-post vanilla proofs without a sidecar. */
static void tk_request(const char **out, const char *file)
{
    static char paths[4][512];
    static unsigned next;
    char *p = paths[next++ % 4];
    const char *flags[] = {
        "--type", "window-post", "--no-sidecar", "--sector-size", "2KiB", "--randomness",
        ZERO32,   "--miner-id",  "1000",         "--vanilla",     p,      NULL};
    snprintf(p, sizeof(paths[0]), "%s", file);
    memcpy(out, flags, sizeof(flags));
}
#    endif

static const btarget *batch_target(void)
{
    static btarget t;
    static bool made;

    if (made) {
        if (!t.addr) {
            test_skip("no daemon for batch and stress (see the first test's output)");
        }
        return &t;
    }
    made = true;
#    ifdef CUZKD_TEST_EXE
    {
        const char *args[] = {"--param-cache",
                              tu_path("tk-params"),
                              "--log-level",
                              "warn",
                              "--memory-total-budget",
                              "2GiB",
                              "--pipeline-max-active-jobs",
                              "8",
                              NULL};
        t.addr = tu_daemon_try_start(CUZKD_TEST_EXE, "tk", args);
        if (t.addr) {
            t.tk = true;
            tk_request(t.ok, tk_file("tk_ok.bin", 2, 0, 0));
            tk_request(t.bad, tk_file("tk_bad.bin", 1, TK_PARSE_FAIL, 0));
            tk_request(t.slow, tk_file("tk_slow.bin", 1, 0, 300));
            return &t;
        }
        printf("  cuzkd_test does not start: batch and stress use real window-post proofs\n");
    }
#    endif
    {
        static char ok[512], bad[512];
        char vk[1024];
        const char *req_ok[] = {"--type", "window-post", "--vanilla", ok, NULL};
        const char *req_bad[] = {"--type", "window-post", "--vanilla", bad, NULL};
        size_t len;
        uint8_t *d;

        setup_params("window-post", vk, sizeof(vk));
        gen("window-post", "batch.bin");
        snprintf(ok, sizeof(ok), "%s", tu_path("batch.bin"));
        snprintf(bad, sizeof(bad), "%s", tu_path("batch_bad.bin"));
        d = tu_read(ok, &len);
        CHECK(d && len > 60);
        d[56] = 9; /* the first inclusion proof's ProofData variant (spec 2.2): none such */
        tu_write(bad, d, len);
        free(d);
        tu_copy(tu_path("batch.bin.json"), tu_path("batch_bad.bin.json"));
        memcpy(t.ok, req_ok, sizeof(req_ok));
        memcpy(t.bad, req_bad, sizeof(req_bad));
        memcpy(t.slow, req_ok, sizeof(req_ok));
        t.addr = param_daemon();
    }
    return &t;
}

/* cuzk-bench CMD --addr ADDR <request> <extra...>. */
static void run_req(tu_result *r, const char *cmd, const btarget *t, const char *const *req,
                    const char *const *extra)
{
    const char *argv[48];
    size_t n = 0;

    argv[n++] = cmd;
    argv[n++] = "--addr";
    argv[n++] = t->addr;
    for (size_t i = 0; req[i]; i++) {
        argv[n++] = req[i];
    }
    for (size_t i = 0; extra && extra[i]; i++) {
        argv[n++] = extra[i];
    }
    CHECK(n < ARRAY_LEN(argv));
    argv[n] = NULL;
    tu_bench_v(r, argv);
}

TEST(batch_and_stress)
{
    const btarget *t = batch_target();
    uint64_t done0 = status_u64(t->addr, "total_proofs_completed");
    uint64_t failed0 = status_u64(t->addr, "total_proofs_failed");
    const char *nb = t->tk ? "5" : "2", *ns = t->tk ? "7" : "2", *nc = t->tk ? "3" : "2";
    char want[128];
    tu_result r;

    {
        const char *extra[] = {"--count", nb, NULL};
        run_req(&r, "batch", t, t->ok, extra);
    }
    CHECK_EQ_U64(r.status, 0);
    snprintf(want, sizeof(want), "batch: submitted=%s completed=%s failed=0", nb, nb);
    CHECK(tu_has(r.out, want, "stage", "min", "median", "max", "queue", "synthesis", "prove (gpu)",
                 "client", NULL));
    tu_result_clear(&r);

    {
        const char *extra[] = {"--count", ns, "--concurrency", nc, "--duration", "300", NULL};
        run_req(&r, "stress", t, t->ok, extra);
    }
    CHECK_EQ_U64(r.status, 0);
    snprintf(want, sizeof(want), "stress: started=%s completed=%s failed=0 concurrency=%s", ns, ns,
             nc);
    CHECK(tu_has(r.out, want, "throughput", NULL));
    tu_result_clear(&r);

    /* failures are counted and explained */
    {
        const char *extra[] = {"--count", "3", NULL};
        run_req(&r, "batch", t, t->bad, extra);
    }
    CHECK_EQ_U64(r.status, 2);
    CHECK(tu_has(r.out, "completed=0 failed=3", "failures:", "3 x FAILED: ", NULL));
    CHECK(tu_has(r.err, "3 of 3 proofs failed", NULL));
    tu_result_clear(&r);

    /* what the daemon counted agrees, through GetStatus and GetMetrics */
    CHECK_EQ_U64(status_u64(t->addr, "total_proofs_completed"),
                 done0 + strtoull(nb, NULL, 10) + strtoull(ns, NULL, 10));
    CHECK_EQ_U64(status_u64(t->addr, "total_proofs_failed"), failed0 + 3);
    CHECK_EQ_U64(metric(t->addr, "cuzk_proofs_completed_total"),
                 done0 + strtoull(nb, NULL, 10) + strtoull(ns, NULL, 10));
}

TEST(stress_time_bound)
{
    const btarget *t = batch_target();
    const char *extra[] = {"--count", "1000", "--concurrency", "2", "--duration", "1", NULL};
    tu_result r;
    const char *p;
    unsigned long started, completed;
    double elapsed;

    /* 2 at a time for 1 s, each taking a while: a handful are started, all finish, then it
     * stops, far below --count */
    run_req(&r, "stress", t, t->slow, extra);
    CHECK_EQ_U64(r.status, 0);
    p = strstr(r.out, "stress: started=");
    CHECK(p);
    CHECK(sscanf(p, "stress: started=%lu completed=%lu", &started, &completed) == 2);
    p = strstr(p, "elapsed_s=");
    CHECK(p && sscanf(p, "elapsed_s=%lf", &elapsed) == 1);
    printf("     started=%lu completed=%lu elapsed=%.2f s\n", started, completed, elapsed);
    CHECK(started >= 2 && started <= 20);
    CHECK_EQ_U64(completed, started);
    CHECK(elapsed >= 1.0 && elapsed < 60.0);
    tu_result_clear(&r);
}

TEST(single_multi_partition_and_request_id)
{
    const btarget *t = batch_target();
    tu_result r;
    uint64_t v;

    if (!t->tk) {
        test_skip("needs cuzkd_test's multi-partition test kind (window-post has one partition)");
    }
#    ifdef CUZKD_TEST_EXE
    {
        const char *req[16];
        const char *extra[] = {"--request-id", "bench-three-parts", NULL};
        tk_request(req, tk_file("tk3.bin", 3, 0, 0));
        run_req(&r, "single", t, req, extra);
    }
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "job_id     bench-three-parts", "576 bytes (3 x 192)", NULL));
    tu_result_clear(&r);
    {
        const char *extra[] = {"--json", NULL};
        run_req(&r, "single", t, t->ok, extra);
    }
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "\"status\":\"COMPLETED\"", "\"error\":\"\"", NULL));
    CHECK(tu_json_u64(r.out, "proof_bytes", &v) && v == 384);
    CHECK(tu_json_u64(r.out, "total_ms", &v));
    tu_result_clear(&r);
#    endif
}

/* `status` shows a running job's partitions proved while `single` waits for it, and none once
 * it completed. Partition k's synthesis takes (k + 1) x 600 ms, so the partitions finish one by
 * one at least 600 ms apart however many run at once: a status call (about 200 ms under ASan)
 * lands between two of them. */
TEST(status_shows_running_partitions)
{
    const btarget *t = batch_target();
    tu_child c;
    tu_result r;
    unsigned done = 0, total = 0;
    char stage[32] = "";

    if (!t->tk) {
        test_skip("needs cuzkd_test's multi-partition test kind (window-post has one partition)");
    }
#    ifdef CUZKD_TEST_EXE
    {
        const char *req[16];
        const char *extra[] = {"--request-id", "bench-progress", NULL};
        const char *argv[32];
        size_t n = 0;
        tk_request(req, tk_file("tk4.bin", 4, TK_STAGGER, 600));
        argv[n++] = "single";
        argv[n++] = "--addr";
        argv[n++] = t->addr;
        for (size_t i = 0; req[i]; i++) {
            argv[n++] = req[i];
        }
        for (size_t i = 0; extra[i]; i++) {
            argv[n++] = extra[i];
        }
        argv[n] = NULL;
        tu_bench_start(&c, argv);
    }
    for (int i = 0; i < 1000 && !(done > 0 && done < total); i++) {
        tu_bench(&r, "status", "--addr", t->addr, NULL);
        CHECK_EQ_U64(r.status, 0);
        const char *row = strstr(r.out, "\nbench-progress ");
        if (row &&
            sscanf(row, "\nbench-progress window-post %31s %u/%u", stage, &done, &total) == 3 &&
            done > 0 && done < total) {
            printf("     %.*s\n", (int)strcspn(row + 1, "\n"), row + 1);
        }
        tu_result_clear(&r); /* no sleep: each status call takes some milliseconds */
    }
    CHECK_MSG(done > 0 && done < 4 && total == 4, "partitions %u/%u never seen in progress", done,
              total);
    tu_bench_join(&c, &r);
    CHECK_EQ_U64(r.status, 0);
    CHECK(tu_has(r.out, "job_id     bench-progress", "768 bytes (4 x 192)", NULL));
    tu_result_clear(&r);
    char *s = status_json(t->addr);
    CHECK_MSG(strstr(s, "\"running_jobs\":[]") != NULL, "%s", s);
    free(s);
#    endif
}

#else /* TOOLS_SLOW_TESTS: real proofs whose parameters take minutes to make */

static void slow_kind(const char *kind, const char *file, size_t proof_len)
{
    char vk[1024];
    setup_params(kind, vk, sizeof(vk));
    gen(kind, file);
    CHECK_EQ_U64(prove_real(kind, file, vk), proof_len);
}

TEST(prove_winning_post_for_real)
{
    slow_kind("winning-post", "win.bin", 192);
}

TEST(prove_porep_for_real)
{
    slow_kind("porep", "c1.json", 192);
}

TEST(prove_snap_for_real)
{
    slow_kind("snap", "snap.json", 192);
}

#endif
