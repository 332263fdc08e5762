/* test_engine_gpu.c - the engine proving on devices: device threads, parameters resident per
 * device (made on first use, least recently used freed first under gpus.memory_limit, freed
 * when the parameters leave the hot tier), the CPU fallback when they do not fit, blame only
 * for the device's own faults, and the status and metrics of each device.
 *
 * Jobs run the "tk" test handler (test_kind.h: small circuits proved for real). Every returned
 * proof is verified independently of the engine's own check (etu_check_proofs, engine_util.h:
 * the parameter file loaded separately, the public input x^3 + x + 5 recomputed); which backend
 * proved a partition is read from the engine's per-device counters and its log.
 * One test proves real 2 KiB WindowPoSt and WinningPoSt requests (sectors sealed here, the
 * built-in handlers, the published circuit shapes) with the parameters of the e2e_params_2k
 * fixture (<build>/params-2k, or $CUZK_TEST_PARAMS_2K); it skips when they are absent, and
 * on the emulation unless CUZK_TEST_EMU_2K=1 (about a minute there: domains 2^15 and 2^17).
 * Device failures cannot be provoked from outside, so one test reports them the way the
 * proving path does (eng_gpu_proof_failed, engine/internal.h) while the device is idle.
 * Built twice (tests/engine/CMakeLists.txt): test_engine_gpu over the real backend (every test
 * skips, exit 77, without a device) and test_engine_gpu_emu over the CPU emulation of one
 * device, run once more with two emulated devices for the tests that use several.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/test.h"

#include "common/alloc.h"
#include "common/log.h"
#include "engine/engine.h"
#include "engine/engine_util.h"
#include "engine/internal.h"
#include "engine/test_kind.h"
#include "gpu/gpu.h"
#include "gpu/internal.h"
#include "groth16/groth16.h"
#include "proofs/proofs.h"
#include "seal/seal.h"
#include "kinds/kinds.h"

#if defined(CUZK_GPU_TEST_EMU)
#    define EMU_BUILD 1
#else
#    define EMU_BUILD 0
#endif

static void need_gpu(void)
{
    if (gpu_count() == 0) {
        test_skip("no GPU");
    }
}

/* ---- engine, requests, results ---- */

static void base_cfg(eng_config_t *cfg)
{
    etu_cfg(cfg);
    cfg->eviction_min_idle_ms = 0;
}

/* Device 0 only, so that every count below is that device's. */
static void dev0_cfg(eng_config_t *cfg, uint64_t limit)
{
    base_cfg(cfg);
    cfg->gpu_mode = ENG_GPU_LIST;
    cfg->gpu_devices[0] = 0;
    cfg->n_gpu_devices = 1;
    cfg->gpu_mem_limit_bytes = limit;
}

/* dev0_cfg with every section streamed in chunks of 2000 bytes, `share` partitions a pass
 * (0: the default). */
static void stream_cfg(eng_config_t *cfg, unsigned share)
{
    dev0_cfg(cfg, 0);
    cfg->gpu_streaming = ENG_STREAM_ALWAYS;
    cfg->gpu_stream_bytes = 2000;
    if (share) {
        cfg->gpu_stream_share = share;
    }
}

/* Submits r under kind (the handler ignores the kind) and waits for the result. */
static void prove(eng_t *eng, eng_kind kind, const char *rid, const tk_req *r,
                  eng_result_copy_t *res)
{
    etu_submit(eng, kind, 0, rid, r, NULL);
    etu_wait(eng, rid, res, 120);
}

static void prove_ok(eng_t *eng, eng_kind kind, const char *rid, const tk_req *r)
{
    eng_result_copy_t res;
    prove(eng, kind, rid, r, &res);
    etu_check_proofs(&res, r);
    eng_result_copy_clear(&res);
}

/* A metric's value: `name` with its labels, e.g. "cuzk_gpus" or
 * "cuzk_gpu_proofs_total{gpu=\"0\"}"; fails when absent. */
static uint64_t metric(eng_t *eng, const char *name)
{
    char *text = NULL, want[160];
    CHECK_OK(eng_metrics_text(eng, &text, NULL));
    snprintf(want, sizeof(want), "\n%s ", name);
    const char *p = strstr(text, want);
    CHECK_MSG(p != NULL, "no metric %s in:\n%s", name, text);
    uint64_t v = strtoull(p + strlen(want), NULL, 10);
    cz_free(text);
    return v;
}

static uint64_t gpu0(eng_t *eng, const char *family)
{
    char name[128];
    snprintf(name, sizeof(name), "%s{gpu=\"0\"}", family);
    return metric(eng, name);
}

/* Device 0's status entry (the test lists only device 0). */
static eng_gpu_info_t status0(eng_t *eng)
{
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_gpus, 1);
    eng_gpu_info_t g = st.gpus[0];
    eng_status_clear(&st);
    CHECK_EQ_U64(g.ordinal, 0);
    return g;
}

/* Polls device 0 until it holds `n` resident circuits (its thread frees demoted copies between
 * proofs, asynchronously). */
static eng_gpu_info_t wait_resident(eng_t *eng, uint32_t n)
{
    for (int i = 0; i < 1000; i++) {
        eng_gpu_info_t g = status0(eng);
        if (g.n_resident == n) {
            return g;
        }
        etu_sleep_ms(10);
    }
    test_fail(__FILE__, __LINE__, "device 0 never came down to %u resident circuits", n);
}

/* Device bytes of the spare assignment of a copy of the cubic (or the big) circuit. */
static uint64_t spare_bytes(bool big)
{
    g16_params_t *p = NULL;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_MSG(g16_params_load(&p, tk_params_path(etu_tk(), big), NULL, NULL, &dg) == CUZK_OK, "%s",
              dg.msg);
    uint64_t b = sizeof(fr_t) * ((uint64_t)p->vk.ic_len + p->l_len);
    g16_params_free(p);
    return b;
}

/* Resident bytes of the cubic and the big circuit on device 0, measured without a limit. */
static void resident_sizes(uint64_t *rc, uint64_t *rb)
{
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req c = etu_req(0, 1, 5), b = etu_req(TK_BIG, 1, 6);
    prove_ok(eng, ENG_KIND_POREP, "size-c", &c);
    *rc = status0(eng).resident_bytes;
    prove_ok(eng, ENG_KIND_POREP, "size-b", &b);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.n_resident, 2);
    *rb = g.resident_bytes - *rc;
    CHECK(*rc > 0 && *rb > *rc);
    eng_free(eng);
}

/* An engine with cfg and every kind, its log captured. */
/* The pinned bytes of the last streamed copy logged (its event=resident line). */
static uint64_t last_pinned_bytes(void)
{
    const char *pl = NULL;
    for (const char *q = strstr(etu_log_text(), "mode=streamed"); q;
         q = strstr(q + 1, "mode=streamed")) {
        pl = strstr(q, "pinned_bytes=");
    }
    CHECK(pl != NULL);
    return pl ? strtoull(pl + strlen("pinned_bytes="), NULL, 10) : 0;
}

static eng_t *start_captured(const eng_config_t *cfg)
{
    etu_capture_start();
    return etu_start(cfg, etu_all_kinds, &tk_ops);
}

/* An engine on device 0 with timing on and its log captured (the test skips without a GPU). */
static eng_t *start_dev0_timed(void)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    cfg.timing = true;
    return start_captured(&cfg);
}

/* ---------------------------------------------------------------------------------------------
 * Tests
 * ------------------------------------------------------------------------------------------- */

/* While the device proves partition k (its verification held up by the test kind), partition
 * k + 1's inputs and aux go to the device's spare buffer; its proof then uploads none. The
 * first partition, with the device idle, is never staged. Every proof verifies. */
TEST(gpu_stages_the_next_partition)
{
    eng_t *eng = start_dev0_timed();
    tk_req r = etu_req(TK_STAGGER | TK_SLOW_PI, 4, 21);
    r.sleep_ms = 300;
    prove_ok(eng, ENG_KIND_POREP, "stage-a", &r);
    uint64_t staged = gpu0(eng, "cuzk_gpu_staged_total");
    CHECK_MSG(staged >= 1 && staged <= 3, "%llu partitions staged", (unsigned long long)staged);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_proofs_total"), 4);
    /* without a device proving, nothing is staged */
    tk_req one = etu_req(0, 1, 5);
    prove_ok(eng, ENG_KIND_POREP, "stage-b", &one);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_staged_total"), staged);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    ETU_CHECK_LOG("job=stage-a", "stage=staging ");
    CHECK_EQ_U64(etu_count_lines("event=stage_failed", NULL), 0);
}

/* "auto": every device proves with its own thread; each partition's proof verifies; status
 * and metrics describe the devices; with timing on, the prover's stages are logged by the
 * device threads and making the parameters resident is a stage of its own. */
TEST(gpu_auto_proves_and_reports)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    base_cfg(&cfg);
    cfg.timing = true;
    eng_t *eng = start_captured(&cfg);
    tk_req a = etu_req(0, 3, 11), b = etu_req(0, 3, 1000003), w = etu_req(0, 1, 77);
    prove_ok(eng, ENG_KIND_POREP, "auto-a", &a);
    prove_ok(eng, ENG_KIND_SNAP, "auto-b", &b);
    prove_ok(eng, ENG_KIND_WINNING_POST, "auto-w", &w);

    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    unsigned want = gpu_count() < ENG_MAX_GPUS ? gpu_count() : ENG_MAX_GPUS;
    CHECK_EQ_U64(st.n_gpus, want);
    uint64_t proofs = 0, fallbacks = 0, resident = 0;
    for (size_t i = 0; i < st.n_gpus; i++) {
        const eng_gpu_info_t *g = &st.gpus[i];
        CHECK_EQ_U64(g->ordinal, i);
        CHECK(g->name[0] != '\0');
        CHECK(g->total_bytes > 0 && g->free_bytes <= g->total_bytes);
        CHECK(g->usable);
        CHECK_STR_EQ(g->current_job_id, "");
        CHECK_EQ_U64(g->current_kind, ENG_KIND_UNSPECIFIED);
        CHECK(g->n_resident <= 1); /* one circuit */
        CHECK((g->n_resident == 0) == (g->resident_bytes == 0));
        proofs += g->proofs;
        fallbacks += g->cpu_fallbacks;
        resident += g->n_resident;
    }
    CHECK_EQ_U64(proofs, 7);
    CHECK_EQ_U64(fallbacks, 0);
    CHECK(resident >= 1);
    eng_status_clear(&st);
    CHECK_EQ_U64(metric(eng, "cuzk_gpus"), want);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 0);
    CHECK_EQ_U64(metric(eng, "cuzk_proofs_completed_total"), 3);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);

    ETU_CHECK_LOG("gpu=0 event=opened", NULL);
    ETU_CHECK_LOG("event=stage", "stage=gpu_upload");
    CHECK_EQ_U64(etu_count_lines("event=stage", "stage=gpu_upload"), resident);
    CHECK_EQ_U64(etu_count_lines("stage=msm_b_g2 worker=cuzk-gpu", NULL), 7);
    CHECK_EQ_U64(etu_count_lines("stage=verify worker=cuzk-gpu", NULL), 7);
    CHECK_EQ_U64(etu_count_lines("cuzk-prove-", NULL), 0); /* no CPU prover thread */
    /* synthesis.mode auto: once a circuit's shape is recorded, partitions are the witness
     * alone and their a, b, c are computed on the device ("products" by the device thread). */
    CHECK(etu_count_lines("event=shape_resident", NULL) >= 1);
    CHECK(etu_count_lines("stage=products worker=cuzk-gpu", NULL) >= 1);
    /* with a usable device, a load leaves the points in the file and the upload decodes them
     * from it: the host never holds them (no CPU proof needed them) */
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=file ms="), resident);
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=host"), 0);
    CHECK_EQ_U64(etu_count_lines("event=host_points_dropped", NULL), 0);
    CHECK_EQ_U64(etu_count_lines("event=host_points_restored", NULL), 0);
}

/* PreloadSRS makes the parameters resident on the device before any proof (decoded from the
 * file: the host holds no points), so the first job uploads nothing; a second preload finds
 * the copy there. */
TEST(gpu_preload_makes_resident)
{
    eng_t *eng = start_dev0_timed();
    bool already = true;
    CHECK_OK(etu_preload(eng, "test-cubic", &already));
    CHECK(!already);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.n_resident, 1);
    CHECK_EQ_U64(g.proofs, 0);
    CHECK_OK(etu_preload(eng, "test-cubic", &already));
    CHECK(already);
    tk_req r = etu_req(0, 2, 81);
    prove_ok(eng, ENG_KIND_POREP, "after-preload", &r);
    g = status0(eng);
    CHECK_EQ_U64(g.proofs, 2);
    CHECK_EQ_U64(g.cpu_fallbacks, 0);
    CHECK_EQ_U64(g.n_resident, 1);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(
        etu_count_lines("job=preload k=0 gpu=0 srs=test-cubic event=resident", "from=file ms="), 1);
    CHECK_EQ_U64(etu_count_lines("event=resident ", NULL), 1);
    CHECK_EQ_U64(etu_count_lines("stage=gpu_upload", NULL), 0);
    CHECK_EQ_U64(etu_count_lines("event=host_points_restored", NULL), 0);
}

/* Points left in the file (a usable device): when the file changes on disk, the unused HOT
 * entry is demoted at the next lookup and the job loads the new file (a truncated one fails
 * the job with its name; the good bytes back, proofs go on), instead of failing every upload
 * or CPU proof that would read the old file. */
TEST(gpu_points_in_changed_file_load_again)
{
    need_gpu();
    const char *path = tk_params_path(etu_tk(), false);
    size_t len = 0;
    uint8_t *good = etu_read_all(path, &len);
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    eng_t *eng = start_captured(&cfg);
    tk_req r1 = etu_req(0, 1, 91), r2 = etu_req(0, 1, 92), r3 = etu_req(0, 1, 93);
    prove_ok(eng, ENG_KIND_POREP, "before", &r1);
    etu_rewrite_in_place(path, good, len);
    prove_ok(eng, ENG_KIND_POREP, "rewritten", &r2);
    CHECK(truncate(path, 4096) == 0);
    eng_result_copy_t res;
    prove(eng, ENG_KIND_POREP, "truncated", &r3, &res);
    CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
    CHECK_MSG(strstr(res.r.error, path) != NULL, "error does not name %s: %s", path, res.r.error);
    eng_result_copy_clear(&res);
    etu_rewrite_in_place(path, good, len);
    prove_ok(eng, ENG_KIND_POREP, "restored", &r3);
    CHECK_EQ_U64(status0(eng).cpu_fallbacks, 0);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    free(good);
    CHECK_EQ_U64(etu_count_lines("event=file_changed tier=hot", "action=load_again"), 2);
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=file ms="), 3);
    CHECK_EQ_U64(etu_count_lines("event=host_points_restored", NULL), 0);
}

/* srs.keep_host_points: the host points stay beside the device copy. */
TEST(gpu_keep_host_points)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    cfg.keep_host_points = true;
    eng_t *eng = start_captured(&cfg);
    tk_req r = etu_req(0, 2, 71);
    prove_ok(eng, ENG_KIND_POREP, "keep", &r);
    CHECK_EQ_U64(status0(eng).proofs, 2);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(etu_count_lines("event=host_points_dropped", NULL), 0);
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=host"), 1);
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=file ms="), 0);
}

/* Under gpus.memory_limit a new circuit frees the least recently used copy; every partition
 * is still proved on the device. */
TEST(gpu_lru_under_memory_limit)
{
    need_gpu();
    etu_tk();
    uint64_t rc, rb;
    resident_sizes(&rc, &rb); /* spares included: there was room for them */
    uint64_t sc = spare_bytes(false), sb = spare_bytes(true);
    CHECK(sb > rc - sc); /* the test's premise: the big spare is larger than the small copy */

    eng_config_t cfg;
    dev0_cfg(&cfg, (rc - sc) + (rb - sb) - 1); /* either copy fits, both do not */
    eng_t *eng = start_captured(&cfg);
    tk_req c1 = etu_req(0, 2, 21), b = etu_req(TK_BIG, 1, 22), c2 = etu_req(0, 1, 23);
    prove_ok(eng, ENG_KIND_POREP, "lru-c1", &c1);
    CHECK_EQ_U64(status0(eng).resident_bytes, rc);
    prove_ok(eng, ENG_KIND_POREP, "lru-b", &b);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.n_resident, 1);
    CHECK_EQ_U64(g.resident_bytes, rb - sb); /* no room for its spare under the limit */
    prove_ok(eng, ENG_KIND_POREP, "lru-c2", &c2);
    g = status0(eng);
    CHECK_EQ_U64(g.n_resident, 1);
    CHECK_EQ_U64(g.resident_bytes, rc);
    CHECK_EQ_U64(g.proofs, 4);
    CHECK_EQ_U64(g.cpu_fallbacks, 0);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_uploads_total"), 3);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_evictions_total"), 2);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_resident_bytes"), rc);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_errors_total"), 0);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 0);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(etu_count_lines("gpu=0 srs=test-cubic event=resident_freed reason=lru", NULL), 1);
    CHECK_EQ_U64(etu_count_lines("gpu=0 srs=test-cubic-big event=resident_freed reason=lru", NULL),
                 1);
}

/* Parameters that cannot be resident are proved on the CPU by the device's thread, and the
 * copies that fit stay: a limit below the big circuit keeps the cubic one resident and proves
 * the big one on the CPU; a limit below both proves everything on the CPU. */
TEST(gpu_cpu_fallback_when_parameters_do_not_fit)
{
    need_gpu();
    etu_tk();
    uint64_t rc, rb;
    resident_sizes(&rc, &rb);

    eng_config_t cfg;
    dev0_cfg(&cfg, rc);
    cfg.gpu_streaming = ENG_STREAM_NEVER; /* streaming: gpu_streams_parameters_that_do_not_fit */
    eng_t *eng = start_captured(&cfg);
    tk_req c = etu_req(0, 2, 31), b = etu_req(TK_BIG, 2, 32), c2 = etu_req(0, 1, 33);
    prove_ok(eng, ENG_KIND_POREP, "fit-c", &c);
    prove_ok(eng, ENG_KIND_POREP, "fit-b", &b);
    prove_ok(eng, ENG_KIND_POREP, "fit-c2", &c2);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.n_resident, 1);
    CHECK_EQ_U64(g.resident_bytes, rc);
    CHECK_EQ_U64(g.proofs, 3);
    CHECK_EQ_U64(g.cpu_fallbacks, 2);
    CHECK(g.usable);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 2);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_evictions_total"), 0);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_errors_total"), 0);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(etu_count_lines("srs=test-cubic-big event=cpu_fallback reason=too_large", NULL),
                 2);

    dev0_cfg(&cfg, 4096);
    eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    prove_ok(eng, ENG_KIND_WINDOW_POST, "tiny-c", &c);
    prove_ok(eng, ENG_KIND_WINDOW_POST, "tiny-b", &b);
    g = status0(eng);
    CHECK_EQ_U64(g.n_resident, 0);
    CHECK_EQ_U64(g.proofs, 0);
    CHECK_EQ_U64(g.cpu_fallbacks, 4);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_cpu_fallbacks_total"), 4);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 4);
    eng_free(eng);
}

/* Host-to-device bytes of one pass over the big circuit's five vectors. */
static uint64_t big_bases_bytes(void)
{
    g16_params_t *p = NULL;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_MSG(g16_params_load(&p, tk_params_path(etu_tk(), true), NULL, NULL, &dg) == CUZK_OK, "%s",
              dg.msg);
    uint64_t b = 96 * ((uint64_t)p->h_len + p->l_len + p->a_len + p->b_g1_len) + 192 * p->b_g2_len;
    g16_params_free(p);
    return b;
}

/* A device whose memory (gpus.device_memory) cannot hold the big circuit's copy streams it
 * from host memory instead of proving on the CPU: every partition on the device, each
 * moving every point once; the cubic circuit, which fits, stays resident beside it. The
 * status and the metrics say so. */
TEST(gpu_streams_parameters_that_do_not_fit)
{
    need_gpu();
    etu_tk();
    uint64_t rc, rb;
    resident_sizes(&rc, &rb);
    const uint64_t pass = big_bases_bytes();

    /* the copy and a proof's scratch (its fixed part alone is more than 2 MiB) do not fit; the
     * work buffers, two chunks and a chunk's MSM (about 1.1 MiB of buckets) do */
    const uint64_t cap = rb + (UINT64_C(2) << 20);
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    cfg.gpu_device_memory_bytes = cap;
    cfg.gpu_stream_bytes = 4096;
    eng_t *eng = start_captured(&cfg);
    tk_req b = etu_req(TK_BIG, 2, 61), b2 = etu_req(TK_BIG, 1, 62);
    eng_result_copy_t res;
    prove(eng, ENG_KIND_POREP, "strm-b", &b, &res);
    etu_check_proofs(&res, &b);
    CHECK_MSG(res.r.timings.h2d_bytes >= 2 * pass, "h2d %llu, pass %llu\n%s",
              (unsigned long long)res.r.timings.h2d_bytes, (unsigned long long)pass,
              etu_log_text());
    eng_result_copy_clear(&res);
    prove_ok(eng, ENG_KIND_POREP, "strm-b2", &b2);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.cpu_fallbacks, 0);
    CHECK_EQ_U64(g.proofs, 3);
    CHECK_EQ_U64(g.n_resident, 1);
    CHECK_EQ_U64(g.n_streamed, 1);
    CHECK_EQ_U64(g.mem_cap_bytes, cap);
    CHECK(g.total_bytes <= cap);
    CHECK(g.h2d_bytes >= 3 * pass);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_streamed_circuits"), 1);
    CHECK(gpu0(eng, "cuzk_gpu_h2d_bytes_total") >= 3 * pass);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_memory_cap_bytes"), cap);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 0);
    /* the streamed copy's page-locked host memory is in the budget's use until it goes */
    const uint64_t pinned = last_pinned_bytes(); /* the first copy may have been replanned */
    const uint64_t used0 = metric(eng, "cuzk_memory_used_bytes");
    bool was_loaded = false;
    uint64_t freed = 0;
    CHECK(pinned > 0);
    CHECK_OK(eng_srs_evict(eng, "test-cubic-big", &was_loaded, &freed, NULL));
    CHECK(wait_resident(eng, 0).resident_bytes == 0);
    CHECK_EQ_U64(used0 - metric(eng, "cuzk_memory_used_bytes"), freed + pinned);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    /* made once, or twice when the first partition came before the shape (replanned) */
    CHECK_EQ_U64(etu_count_lines("srs=test-cubic-big event=resident mode=streamed", "pinned=yes"),
                 1 + etu_count_lines("event=resident_freed", "reason=replanned"));
    CHECK_EQ_U64(etu_count_lines("event=cpu_fallback", NULL), 0);
}

/* The plan of a 32 GiB PoRep partition's copy on the cards storage providers own
 * (eng_gpu_plan_streamed; no device needed). Counts: 328 inputs, 130,169,893 aux, 2^27 - 1 h
 * points (tests/circuits/test_counts.c); a_len and b_len 57,300,000 each, about what the 47.4 GB
 * file leaves them (their exact split does not change a layout); the recorded shape 5.93 GB;
 * twiddles 4 GiB whole, 7.3 MB split (what a capped device of 32 GiB or less gets). */
TEST(gpu_streaming_plan_for_32g_porep_cards)
{
    const g16_params_t p = {.vk = {.ic_len = 328},
                            .h_len = ((size_t)1 << 27) - 1,
                            .l_len = 130169893,
                            .a_len = 57300000,
                            .b_g1_len = 57300000,
                            .b_g2_len = 57300000};
    const uint64_t shape = UINT64_C(5930301226), whole = UINT64_C(32) << 27, split = 7340032;
    static const struct {
        unsigned gib;
        bool split;
        int buffers;       /* 0: does not fit */
        bool on_device;    /* a, b, c from the shape */
        unsigned streamed; /* sections streamed */
        unsigned share;    /* partitions per pass (gpus.stream_share 10 by default) */
    } cards[] = {
        {141, false, 4, true, 0x00, 1}, {80, false, 4, true, 0x1c, 10},
        {32, false, 4, true, 0x1f, 10}, {24, true, 4, true, 0x1f, 10},
        {16, true, 2, false, 0x1f, 10}, {12, true, 2, false, 0x1f, 10},
        {8, true, 0, false, 0, 0},
    };
    eng_config_t cfg;
    eng_config_default(&cfg);
    for (size_t i = 0; i < ARRAY_LEN(cards); i++) {
        eng_stream_plan sp;
        uint64_t avail = (uint64_t)cards[i].gib << 30;
        bool ok = eng_gpu_plan_streamed(&cfg, &p, avail, cards[i].split ? split : whole, shape,
                                        false, &sp);
        CHECK_MSG(ok == (cards[i].buffers != 0), "%u GiB: fits %d", cards[i].gib, ok);
        if (!ok) {
            continue;
        }
        CHECK_MSG((sp.lean ? (sp.own_z ? 3 : 2) : 4) == cards[i].buffers &&
                      sp.shape == cards[i].on_device && sp.mask == cards[i].streamed,
                  "%u GiB: buffers %d shape %d streamed 0x%x chunk %llu need %llu room %llu",
                  cards[i].gib, sp.lean ? (sp.own_z ? 3 : 2) : 4, sp.shape, sp.mask,
                  (unsigned long long)sp.chunk, (unsigned long long)sp.need,
                  (unsigned long long)sp.room);
        CHECK(sp.need + sp.room <= avail);
        CHECK(!sp.mask || (sp.chunk >= 192 && sp.chunk <= (UINT64_C(1) << 30)));
        CHECK_MSG(sp.share == cards[i].share, "%u GiB: %u partitions per pass", cards[i].gib,
                  sp.share);
        printf("  %3u GiB: buffers %d, streamed 0x%02x, chunk %llu, %u partitions per pass\n",
               cards[i].gib, sp.lean ? (sp.own_z ? 3 : 2) : 4, sp.mask,
               (unsigned long long)sp.chunk, sp.share);
    }
    /* "always": every section streamed where everything fits */
    eng_stream_plan sp;
    CHECK(eng_gpu_plan_streamed(&cfg, &p, UINT64_C(141) << 30, whole, shape, true, &sp));
    CHECK_EQ_U64(sp.mask, 0x1f);
}

/* gpus.streaming: "always" streams every section even where the copy fits, the proofs the
 * same; "never" proves what does not fit on the CPU. A device failure in the middle of a
 * streamed proof (an injected copy failure) sends that partition to the CPU, nothing lost,
 * and the next partition streams again on the device. */
TEST(gpu_streaming_modes_and_failure_mid_stream)
{
    need_gpu();
    etu_tk();
    uint64_t rc, rb;
    resident_sizes(&rc, &rb);

    eng_config_t cfg;
    stream_cfg(&cfg,
               1); /* one partition at a time: the group path is gpu_partitions_share_a_pass's */
    eng_t *eng = start_captured(&cfg);
    tk_req c = etu_req(0, 2, 71), c2 = etu_req(0, 1, 72);
    prove_ok(eng, ENG_KIND_POREP, "always-c", &c);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.n_streamed, 1);
    CHECK_EQ_U64(g.proofs, 2);
    /* the 4th copy from now fails: within the next partition's streamed MSMs (its uploads of
     * [inputs | aux] take two) */
    gpu_debug_fail_h2d(eng->gpus[0].dev, 4);
    prove_ok(eng, ENG_KIND_POREP, "always-c2", &c2);
    prove_ok(eng, ENG_KIND_POREP, "always-c3", &c);
    g = status0(eng);
    CHECK_MSG(g.cpu_fallbacks == 1, "%s", etu_log_text());
    CHECK_EQ_U64(g.proofs, 4);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_errors_total"), 1);
    CHECK(g.usable);
    CHECK_EQ_U64(g.n_streamed, 1);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(etu_count_lines("event=gpu_error", "injected host-to-device copy failure"), 1);
    CHECK_EQ_U64(etu_count_lines("srs=test-cubic event=resident mode=streamed", NULL),
                 2 + etu_count_lines("event=resident_freed", "reason=replanned"));

    dev0_cfg(&cfg, 0);
    cfg.gpu_streaming = ENG_STREAM_NEVER;
    cfg.gpu_device_memory_bytes = rb;
    eng = start_captured(&cfg);
    tk_req b = etu_req(TK_BIG, 1, 73);
    prove_ok(eng, ENG_KIND_POREP, "never-b", &b);
    g = status0(eng);
    CHECK_EQ_U64(g.cpu_fallbacks, 1);
    CHECK_EQ_U64(g.n_streamed, 0);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(etu_count_lines("srs=test-cubic-big event=cpu_fallback reason=too_large", NULL),
                 1);
}

/* gpus.stream_share: the partitions of a job ready together share the passes over the streamed
 * points (event=shared_pass): the same valid proofs, all on the device, fewer bytes moved than
 * with a pass per partition. A copy failure inside a group (event=group_failed) loses nothing:
 * its partitions are proved again one by one, those whose witness went after their front
 * (event=witness_released) once synthesized again. */
TEST(gpu_partitions_share_a_pass)
{
    need_gpu();
    etu_tk();
    uint64_t h2d[2] = {0};
    tk_req c = etu_req(0, 4, 81);

    for (unsigned share = 1; share <= 3; share += 2) {
        eng_config_t cfg;
        eng_result_copy_t res;
        stream_cfg(&cfg, share);
        cfg.timing = true;
        cfg.synth_workers = 2; /* a partition may be proved before the shape: replanned */
        eng_t *eng = start_captured(&cfg);
        prove(eng, ENG_KIND_POREP, share == 1 ? "alone" : "shared", &c, &res);
        etu_check_proofs(&res, &c);
        h2d[share / 2] = res.r.timings.h2d_bytes;
        eng_result_copy_clear(&res);
        eng_gpu_info_t g = status0(eng);
        CHECK_EQ_U64(g.proofs, 4);
        CHECK_EQ_U64(g.cpu_fallbacks, 0);
        if (share > 1) { /* a copy failure inside a group: proved again, one by one */
            gpu_debug_fail_h2d(eng->gpus[0].dev, 20);
            prove_ok(eng, ENG_KIND_POREP, "shared-fail", &c);
            CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_errors_total"), 1);
        }
        eng_free(eng);
        cz_log_set_sink(NULL, NULL);
        char want[32];
        snprintf(want, sizeof(want), "share=%u", share);
        /* made again after the failure, and once more when it was planned before the shape
         * was recorded (a, b, c from the host): then replanned with room for the shape */
        size_t replanned = etu_count_lines("reason=replanned", NULL);
        CHECK(replanned == etu_count_lines("event=resident_freed", "reason=replanned"));
        CHECK_EQ_U64(etu_count_lines("event=resident mode=streamed", want),
                     (share > 1 ? 2 : 1) + replanned);
        CHECK(replanned == 0 || etu_count_lines("products=device", want) > 0);
        size_t groups = etu_count_lines("event=shared_pass", NULL);
        CHECK_MSG((groups > 0) == (share > 1), "%s", etu_log_text());
        CHECK_MSG(etu_count_lines("job=shared-fail", "event=group_failed") == (share > 1), "%s",
                  etu_log_text());
        /* in a group proved from the device shape, each partition's witness goes after its
         * front; those of the failed group were synthesized again (the job completed) */
        CHECK_MSG((etu_count_lines("job=shared-fail", "event=witness_released") > 0) == (share > 1),
                  "%s", etu_log_text());
        /* with a copy that shares passes, the synthesis workers build the classes */
        CHECK_MSG((etu_count_lines("job=shared-fail", "stage=classes") > 0) == (share > 1), "%s",
                  etu_log_text());
        printf("  share %u: %zu shared passes, %llu bytes to the device\n", share, groups,
               (unsigned long long)h2d[share / 2]);
    }
    CHECK_MSG(h2d[1] < h2d[0], "shared %llu bytes, alone %llu", (unsigned long long)h2d[1],
              (unsigned long long)h2d[0]);
}

/* A partition proved from the shape on the device reserves its witness, not the plan's estimate
 * (the CPU prover's): once the shape is recorded, a job whose estimate is more than the whole
 * budget is proved on the device; a CPU fallback of such a partition takes the estimate back
 * (event=over_budget, past the budget) and completes. */
TEST(gpu_partition_reserves_its_witness)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    cfg.mem_budget_bytes = UINT64_C(256) << 20;
    eng_t *eng = start_captured(&cfg);
    tk_req cold = etu_req(TK_COUNTS, 2, 91), big = etu_req(TK_COUNTS, 2, 93);
    cold.mem_bytes = UINT64_C(1) << 20;
    big.mem_bytes = UINT64_C(512) << 20;
    prove_ok(eng, ENG_KIND_POREP, "wr-cold", &cold); /* records the shape */
    prove_ok(eng, ENG_KIND_POREP, "wr-big", &big);
    CHECK_EQ_U64(status0(eng).cpu_fallbacks, 0);
    gpu_debug_fail_h2d(eng->gpus[0].dev, 1); /* the next copy fails: partition 0 on the CPU */
    prove_ok(eng, ENG_KIND_POREP, "wr-fallback", &big);
    CHECK_EQ_U64(status0(eng).cpu_fallbacks, 1);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_MSG(etu_count_lines("job=wr-big", "event=over_budget") == 0, "%s", etu_log_text());
    CHECK_MSG(etu_count_lines("job=wr-fallback", "event=over_budget") == 1, "%s", etu_log_text());
}

/* Under a tight budget a streamed copy's page-locked memory can leave no room for the next
 * partition while nothing else is in flight to give memory back: the partition goes on past the
 * budget (event=over_budget) instead of waiting for ever. */
TEST(gpu_streamed_copy_never_starves_partitions)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    stream_cfg(&cfg, 3);
    cfg.mem_budget_bytes =
        etu_file_size(tk_params_path(etu_tk(), false)) + (UINT64_C(1) << 20) + 4096;
    eng_t *eng = start_captured(&cfg);
    tk_req c = etu_req(0, 3, 95);
    c.mem_bytes = UINT64_C(1) << 20;
    prove_ok(eng, ENG_KIND_POREP, "tight", &c);
    CHECK_EQ_U64(status0(eng).cpu_fallbacks, 0);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_MSG(etu_count_lines("job=tight", "event=over_budget") >= 1, "%s", etu_log_text());
}

/* A streamed copy's page-locked memory is reserved before the partitions it will prove are
 * admitted (event=copy_reserved, the copy's exact bytes): under a budget of the file, the copy
 * and two partitions, three partitions each a third of the copy never take the budget past
 * its end (without the reservation all three are admitted, then the copy is forced in:
 * event=over_budget). The copy takes the reservation over: evicting it gives back the same
 * bytes. */
TEST(gpu_streamed_copy_reserved_before_partitions)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    stream_cfg(&cfg, 3);
    cfg.synth_workers = 2;
    eng_t *eng = start_captured(&cfg);
    tk_req c = etu_req(0, 3, 97);
    prove_ok(eng, ENG_KIND_POREP, "pin-learn", &c);
    eng_free(eng);
    const uint64_t pinned = last_pinned_bytes(), part = pinned / 3;
    cz_log_set_sink(NULL, NULL);
    CHECK_MSG(pinned > 3, "pinned %llu", (unsigned long long)pinned);

    const uint64_t file = etu_file_size(tk_params_path(etu_tk(), false));
    cfg.mem_budget_bytes = file + pinned + 2 * part;
    eng = start_captured(&cfg);
    c.mem_bytes = part;
    prove_ok(eng, ENG_KIND_POREP, "pin-tight", &c);
    CHECK_EQ_U64(status0(eng).cpu_fallbacks, 0);
    CHECK(metric(eng, "cuzk_memory_used_peak_bytes") <= cfg.mem_budget_bytes);
    const uint64_t used0 = metric(eng, "cuzk_memory_used_bytes");
    bool was_loaded = false;
    uint64_t freed = 0;
    CHECK_OK(eng_srs_evict(eng, "test-cubic", &was_loaded, &freed, NULL));
    CHECK(wait_resident(eng, 0).resident_bytes == 0);
    CHECK_EQ_U64(used0 - metric(eng, "cuzk_memory_used_bytes"), freed + pinned);
    eng_free(eng);
    CHECK_EQ_U64(last_pinned_bytes(), pinned);
    cz_log_set_sink(NULL, NULL);
    CHECK_MSG(etu_count_lines("event=over_budget", NULL) == 0, "%s", etu_log_text());
    char want[64];
    snprintf(want, sizeof(want), "event=copy_reserved host_bytes=%llu", (unsigned long long)pinned);
    CHECK_MSG(etu_count_lines("srs=test-cubic", want) ==
                  etu_count_lines("event=resident mode=streamed", NULL),
              "%s", etu_log_text());
}

/* A copy planned before the circuit's shape was recorded (here by a preload) is not kept in the
 * host-products layout: the job's partitions are synthesized as witnesses once the shape
 * exists, the copy is made again with room for it (reason=replanned, once) and the device
 * computes a, b, c; the synthesis workers build the classes of the shared passes. */
TEST(gpu_copy_before_shape_replanned)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    stream_cfg(&cfg, 3);
    cfg.timing = true;
    cfg.synth_workers = 1; /* the next job's partitions all synthesized beside the new copy */
    eng_t *eng = start_captured(&cfg);
    bool already = true;
    CHECK_OK(etu_preload(eng, "test-cubic", &already));
    CHECK(!already);
    tk_req c = etu_req(0, 3, 98);
    prove_ok(eng, ENG_KIND_POREP, "pre-shape", &c);
    prove_ok(eng, ENG_KIND_POREP, "post-shape", &c);
    CHECK_EQ_U64(status0(eng).cpu_fallbacks, 0);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_MSG(etu_count_lines("job=preload", "products=host") == 1, "%s", etu_log_text());
    CHECK_MSG(etu_count_lines("event=resident_freed", "reason=replanned") == 1, "%s",
              etu_log_text());
    CHECK_EQ_U64(etu_count_lines("event=resident mode=streamed", "products=device"), 1);
    CHECK_MSG(etu_count_lines("job=post-shape", "stage=classes") == 3, "%s", etu_log_text());
}

/* A device copy goes when its parameters leave the hot tier: by EvictSRS, and by the memory
 * budget's demotion; the next partition makes it again. */
TEST(gpu_copy_freed_with_its_parameters)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    eng_t *eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    tk_req c = etu_req(0, 1, 41), b = etu_req(TK_BIG, 1, 42);
    prove_ok(eng, ENG_KIND_POREP, "ev-c1", &c);
    CHECK_EQ_U64(status0(eng).n_resident, 1);
    bool was_loaded = false;
    uint64_t freed = 0;
    CHECK_OK(eng_srs_evict(eng, "test-cubic", &was_loaded, &freed, NULL));
    CHECK(was_loaded && freed > 0);
    eng_gpu_info_t g = wait_resident(eng, 0);
    CHECK_EQ_U64(g.resident_bytes, 0);
    prove_ok(eng, ENG_KIND_POREP, "ev-c2", &c);
    CHECK_EQ_U64(status0(eng).n_resident, 1);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_uploads_total"), 2);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_evictions_total"), 0); /* not for room: with the SRS */
    eng_free(eng);

    /* A host budget that holds one parameter file: loading the big one demotes the cubic one,
     * whose device copy follows. */
    dev0_cfg(&cfg, 0);
    cfg.mem_budget_bytes = etu_file_size(tk_params_path(etu_tk(), false)) +
                           etu_file_size(tk_params_path(etu_tk(), true)) - 1;
    eng = etu_start(&cfg, etu_all_kinds, &tk_ops);
    prove_ok(eng, ENG_KIND_POREP, "pr-c", &c);
    prove_ok(eng, ENG_KIND_POREP, "pr-b", &b);
    g = wait_resident(eng, 1);
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    for (size_t i = 0; i < st.n_srs; i++) {
        CHECK(strcmp(st.srs[i].circuit_id, "test-cubic") != 0 || st.srs[i].tier != ENG_TIER_HOT);
    }
    eng_status_clear(&st);
    prove_ok(eng, ENG_KIND_POREP, "pr-c2", &c);
    CHECK_EQ_U64(wait_resident(eng, 1).proofs, 3);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_uploads_total"), 3);
    eng_free(eng);
}

/* A proof that fails verification because the request's public input is wrong is retried on
 * the CPU, fails there too, and is not the device's fault: the device stays in use. */
TEST(gpu_bad_public_input_is_not_the_devices_fault)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    eng_t *eng = start_captured(&cfg);
    for (int i = 0; i < 4; i++) { /* more than the failures that would disable a device */
        char rid[32];
        tk_req bad = etu_req(TK_BAD_INPUT, 1, 51 + (uint64_t)i);
        eng_result_copy_t res;
        snprintf(rid, sizeof(rid), "bad-%d", i);
        prove(eng, ENG_KIND_POREP, rid, &bad, &res);
        CHECK_EQ_U64(res.r.status, ENG_STATUS_FAILED);
        CHECK_MSG(strstr(res.r.error, "does not verify") != NULL, "%s", res.r.error);
        eng_result_copy_clear(&res);
    }
    tk_req good = etu_req(0, 1, 60);
    prove_ok(eng, ENG_KIND_POREP, "good", &good);
    eng_gpu_info_t g = status0(eng);
    CHECK(g.usable);
    CHECK_EQ_U64(g.proofs, 5);        /* four first attempts and the good job */
    CHECK_EQ_U64(g.cpu_fallbacks, 4); /* the retries */
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_errors_total"), 0);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_usable"), 1);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 4); /* the retries */
    CHECK_EQ_U64(metric(eng, "cuzk_verify_retries_total"), 4);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(etu_count_lines("event=invalid_proof backend=gpu action=retry_on_cpu", NULL), 4);
    /* the upload decoded the points from the file; the first CPU retry decoded them on the
     * host, and they stayed for the other retries */
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=file ms="), 1);
    CHECK_EQ_U64(etu_count_lines("event=host_points_dropped", NULL), 0);
    CHECK_EQ_U64(etu_count_lines("event=host_points_restored", NULL), 1);
}

/* A listed ordinal that does not exist is skipped with a warning; the others prove. */
TEST(gpu_listed_devices_partly_missing)
{
    need_gpu();
    etu_tk();
    unsigned missing = gpu_count() + 7;
    char want[128];
    eng_config_t cfg;
    base_cfg(&cfg);
    cfg.gpu_mode = ENG_GPU_LIST;
    cfg.gpu_devices[0] = missing;
    cfg.gpu_devices[1] = 0;
    cfg.n_gpu_devices = 2;
    eng_t *eng = start_captured(&cfg);
    tk_req r = etu_req(0, 2, 90);
    prove_ok(eng, ENG_KIND_POREP, "mix", &r);
    eng_gpu_info_t g = status0(eng);
    CHECK_EQ_U64(g.proofs, 2);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    snprintf(want, sizeof(want), "gpu=%u event=skipped reason=\"no such device", missing);
    ETU_CHECK_LOG(want, NULL);
    CHECK_EQ_U64(etu_count_lines("event=no_gpu_usable", NULL), 0);
}

/* Two devices listed (gpus.devices = [0, 1]): four jobs of four partitions submitted at once
 * are spread over both device threads (each holds its partition while the test kind's slow
 * public inputs keep it verifying, so the other takes the next), every proof verifies, each
 * device proved some partitions and their counts add up; each keeps its own resident copy.
 * Runs where there are two devices: a host with two GPUs, or the emulation with
 * CUZK_GPU_EMU_DEVICES=2 (its own ctest entry, tests/engine/CMakeLists.txt). */
TEST(gpu_two_devices_share_a_batch)
{
    if (gpu_count() < 2) {
        test_skip("fewer than two devices");
    }
    etu_tk();
    eng_config_t cfg;
    base_cfg(&cfg);
    cfg.timing = true;
    cfg.gpu_mode = ENG_GPU_LIST;
    cfg.gpu_devices[0] = 0;
    cfg.gpu_devices[1] = 1;
    cfg.n_gpu_devices = 2;
    eng_t *eng = start_captured(&cfg);
    enum { JOBS = 4, PARTS = 4 };
    tk_req r[JOBS];
    char rid[JOBS][16];
    for (int j = 0; j < JOBS; j++) {
        r[j] = etu_req(TK_SLOW_PI, PARTS, 500 + 1000 * (uint64_t)j);
        r[j].sleep_ms = 20;
        snprintf(rid[j], sizeof(rid[j]), "two-%d", j);
        etu_submit(eng, ENG_KIND_POREP, 0, rid[j], &r[j], NULL);
    }
    for (int j = 0; j < JOBS; j++) {
        eng_result_copy_t res;
        etu_wait(eng, rid[j], &res, 120);
        etu_check_proofs(&res, &r[j]);
        eng_result_copy_clear(&res);
    }
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    CHECK_EQ_U64(st.n_gpus, 2);
    uint64_t proofs = 0;
    for (size_t i = 0; i < st.n_gpus; i++) {
        const eng_gpu_info_t *g = &st.gpus[i];
        CHECK_EQ_U64(g->ordinal, i);
        CHECK_MSG(g->proofs >= 1, "device %zu proved %llu partitions", i,
                  (unsigned long long)g->proofs);
        CHECK_EQ_U64(g->cpu_fallbacks, 0);
        CHECK_EQ_U64(g->n_resident, 1);
        proofs += g->proofs;
    }
    eng_status_clear(&st);
    CHECK_EQ_U64(proofs, JOBS * PARTS);
    CHECK_EQ_U64(metric(eng, "cuzk_gpus"), 2);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 0);
    CHECK_EQ_U64(metric(eng, "cuzk_proofs_completed_total"), JOBS);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    ETU_CHECK_LOG("gpu=0 event=opened", NULL);
    ETU_CHECK_LOG("gpu=1 event=opened", NULL);
    CHECK(etu_count_lines("stage=verify worker=cuzk-gpu0", NULL) >= 1);
    CHECK(etu_count_lines("stage=verify worker=cuzk-gpu1", NULL) >= 1);
    CHECK_EQ_U64(etu_count_lines("stage=verify worker=cuzk-gpu", NULL), JOBS * PARTS);
}

/* Device failures: each frees the copy that failed (made again by the next partition); three
 * in a row and the device is no longer used, its thread proving on the CPU; a good device
 * proof in between resets the count. */
TEST(gpu_disabled_after_repeated_failures)
{
    need_gpu();
    etu_tk();
    eng_config_t cfg;
    dev0_cfg(&cfg, 0);
    eng_t *eng = start_captured(&cfg);
    tk_req r = etu_req(0, 1, 101);
    eng_job fake;
    memset(&fake, 0, sizeof(fake));
    snprintf(fake.id, sizeof(fake.id), "injected");
    snprintf(fake.qid, sizeof(fake.qid), "injected");
    cz_diag dg;
    cz_diag_init(&dg);
    cuzk_err fault = cz_fail(&dg, CUZK_E_GPU, "injected device failure");

    /* The device is idle between jobs: reporting from this thread races with nothing. */
    prove_ok(eng, ENG_KIND_POREP, "f-0", &r);
    eng_srs *srs = eng->gpus[0].res->srs;
    CHECK(srs != NULL);
    eng_gpu_proof_failed(eng, &eng->gpus[0], &fake, 0, srs, fault, &dg);
    eng_gpu_proof_failed(eng, &eng->gpus[0], &fake, 0, srs, fault, &dg);
    eng_gpu_info_t g = status0(eng);
    CHECK(g.usable);
    CHECK_EQ_U64(g.n_resident, 0);            /* the failing copy went */
    prove_ok(eng, ENG_KIND_POREP, "f-1", &r); /* a good device proof: the count restarts */
    g = status0(eng);
    CHECK_EQ_U64(g.proofs, 2);
    CHECK_EQ_U64(g.n_resident, 1);
    for (int i = 0; i < 2; i++) {
        eng_gpu_proof_failed(eng, &eng->gpus[0], &fake, 0, NULL, fault, &dg);
    }
    CHECK(status0(eng).usable);
    eng_gpu_proof_failed(eng, &eng->gpus[0], &fake, 0, NULL, fault, &dg);
    g = status0(eng);
    CHECK(!g.usable);
    CHECK_EQ_U64(g.n_resident, 0);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_usable"), 0);
    CHECK_EQ_U64(gpu0(eng, "cuzk_gpu_errors_total"), 5);

    tk_req r2 = etu_req(0, 2, 102);
    prove_ok(eng, ENG_KIND_POREP, "f-2", &r2);
    g = status0(eng);
    CHECK_EQ_U64(g.proofs, 2);
    CHECK_EQ_U64(g.cpu_fallbacks, 2);
    CHECK_EQ_U64(g.n_resident, 0);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 2);
    eng_free(eng);
    cz_log_set_sink(NULL, NULL);
    CHECK_EQ_U64(
        etu_count_lines("job=injected k=0 gpu=0 event=gpu_error", "injected device failure"), 5);
    CHECK_EQ_U64(
        etu_count_lines("error gpu=0 event=disabled failures_in_row=3 action=cpu_only", NULL), 1);
    /* both uploads (f-0, f-1) decode from the file; the CPU proofs once the device was
     * disabled restore the host points (once: they stay, no device holds them) */
    CHECK_EQ_U64(etu_count_lines("event=resident", "from=file ms="), 2);
    CHECK_EQ_U64(etu_count_lines("event=host_points_dropped", NULL), 0);
    CHECK_EQ_U64(etu_count_lines("event=host_points_restored", NULL), 1);
}

/* ---- 2 KiB Filecoin proofs ---- */

#define MINER_ID 1000

static void rand_fr(cz_prng *g, uint8_t out[32])
{
    cz_prng_bytes(g, out, 32);
    out[31] &= 0x3f; /* below 2^254 < r */
}

static seal_sector *seal_2k(uint64_t sector_id, cz_prng *g)
{
    seal_porep_config pc;
    seal_ids ids;
    seal_sector *s = NULL;

    CHECK(seal_porep_config_for_id(&pc, 5)); /* StackedDrg2KiBV1_1 */
    seal_node *d = cz_malloc(pc.shape.nodes * sizeof(seal_node));
    CHECK(d != NULL);
    for (uint64_t i = 0; i < pc.shape.nodes; i++) {
        rand_fr(g, d[i].b);
    }
    memset(&ids, 0, sizeof(ids));
    seal_prover_id(ids.prover_id, MINER_ID);
    ids.sector_id = sector_id;
    rand_fr(g, ids.ticket);
    CHECK_OK(seal_sector_seal(&s, &pc, &ids, d, NULL, NULL));
    cz_free(d);
    return s;
}

/* The proof of a one-partition PoSt request verifies with the verifying key read here from the
 * parameter file and the public inputs the handler derives from the request (tests/e2e/
 * test_kinds.c checks those against the synthesized witness), and fails with one changed. */
static void check_post_proof(const char *dir, const eng_kind_ops *ops, const eng_request_t *req,
                             const uint8_t *proof_bytes)
{
    static atomic_bool never;
    eng_plan_t plan;
    char name[256], path[1024];
    g16_params_t *p = NULL;
    g16_proof_t proof;
    g16_pvk_t pvk;
    cz_diag dg;

    memset(&plan, 0, sizeof(plan));
    plan.job_id = "check";
    plan.cancelled = &never;
    cz_diag_init(&dg);
    CHECK_MSG(ops->parse(NULL, req, &plan, &dg) == CUZK_OK, "parse: %s", dg.msg);
    CHECK_EQ_U64(plan.num_partitions, 1);
    CHECK(ops->srs_file(NULL, plan.circuit_id, name, sizeof(name)));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    CHECK_MSG(g16_params_load(&p, path, NULL, NULL, &dg) == CUZK_OK, "%s", dg.msg);
    g16_pvk_init(&pvk, &p->vk);
    size_t n = p->vk.ic_len - 1;
    fr_t *x = cz_calloc(n, sizeof(fr_t));
    CHECK(x != NULL);
    CHECK_OK(ops->public_inputs(NULL, &plan, 0, x, n, NULL));
    CHECK_OK(g16_proof_from_bytes(&proof, proof_bytes, NULL));
    bool ok = false;
    CHECK_OK(g16_verify(&pvk, &ok, &proof, x, n, NULL));
    CHECK_MSG(ok, "%s proof does not verify", plan.circuit_id);
    fr_t one;
    fr_from_u64(&one, 1);
    fr_add(&x[n - 1], &x[n - 1], &one);
    CHECK_OK(g16_verify(&pvk, &ok, &proof, x, n, NULL));
    CHECK(!ok);
    cz_free(x);
    g16_params_free(p);
    if (ops->plan_free) {
        ops->plan_free(NULL, &plan);
    }
}

TEST(gpu_filecoin_post_2k)
{
    need_gpu();
    if (EMU_BUILD && !getenv("CUZK_TEST_EMU_2K")) {
        test_skip("about a minute on the emulation: CUZK_TEST_EMU_2K=1 runs it");
    }
    const char *env = getenv("CUZK_TEST_PARAMS_2K");
    char dir[600], name[256], path[1024];
    snprintf(dir, sizeof(dir), "%s", env && env[0] ? env : test_bin_path("params-2k"));
    CHECK(eng_window_post_ops.srs_file(NULL, "wpost-2k", name, sizeof(name)));
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    if (access(path, R_OK) != 0) {
        test_skip("no 2 KiB parameters: run the e2e_params_2k fixture or set CUZK_TEST_PARAMS_2K");
    }

    cz_prng *g = test_prng();
    seal_sector *s1 = seal_2k(1, g), *s2 = seal_2k(2, g);
    seal_post_config pc;
    vp_post_proof vp;
    uint8_t win_rnd[32], wdp_rnd[32], *win = NULL, *wdp[2] = {NULL, NULL};
    size_t win_len = 0, wdp_len[2] = {0, 0};

    rand_fr(g, win_rnd);
    CHECK(seal_post_config_for_id(&pc, 0)); /* StackedDrgWinning2KiBV1 */
    CHECK_OK(vp_gen_post(&vp, s1, &pc, win_rnd, 0, NULL));
    CHECK_OK(vp_post_to_bincode(&vp, &win, &win_len, NULL));
    vp_post_clear(&vp);
    rand_fr(g, wdp_rnd);
    CHECK(seal_post_config_for_id(&pc, 10)); /* StackedDrgWindow2KiBV1_1 */
    for (int i = 0; i < 2; i++) {
        CHECK_OK(vp_gen_post(&vp, i ? s2 : s1, &pc, wdp_rnd, (uint64_t)i, NULL));
        CHECK_OK(vp_post_to_bincode(&vp, &wdp[i], &wdp_len[i], NULL));
        vp_post_clear(&vp);
    }
    seal_sector_free(s1);
    seal_sector_free(s2);

    eng_bytes_t wvp[2] = {{wdp[0], wdp_len[0]}, {wdp[1], wdp_len[1]}}, nvp = {win, win_len};
    eng_request_t wreq, nreq;
    memset(&wreq, 0, sizeof(wreq));
    wreq.request_id = "wpost-2k-gpu";
    wreq.kind = ENG_KIND_WINDOW_POST;
    wreq.sector_size = 2048;
    wreq.registered_proof = 10;
    wreq.vanilla_proofs = wvp;
    wreq.n_vanilla_proofs = 2;
    wreq.randomness = (eng_bytes_t){wdp_rnd, 32};
    wreq.miner_id = MINER_ID;
    nreq = wreq;
    nreq.request_id = "winning-2k-gpu";
    nreq.kind = ENG_KIND_WINNING_POST;
    nreq.registered_proof = 0;
    nreq.vanilla_proofs = &nvp;
    nreq.n_vanilla_proofs = 1;
    nreq.randomness = (eng_bytes_t){win_rnd, 32};

    eng_config_t cfg;
    base_cfg(&cfg);
    cfg.param_cache = dir;
    cfg.mem_budget_bytes = UINT64_C(4) << 30;
    eng_t *eng = NULL;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_OK(eng_new(&eng, &cfg, &dg));
    CHECK_OK(eng_register_builtin_kinds(eng, &dg));
    CHECK_OK(eng_start(eng, &dg));
    const eng_request_t *reqs[2] = {&wreq, &nreq};
    const eng_kind_ops *ops[2] = {&eng_window_post_ops, &eng_winning_post_ops};
    for (int i = 0; i < 2; i++) {
        eng_submit_info_t info;
        eng_result_copy_t res;
        cz_diag_init(&dg);
        CHECK_MSG(eng_submit(eng, reqs[i], &info, &dg) == CUZK_OK, "submit: %s", dg.msg);
        eng_wait(eng, reqs[i]->request_id, 300000, &res);
        CHECK_MSG(res.r.status == ENG_STATUS_COMPLETED, "%s: status %d \"%s\"", reqs[i]->request_id,
                  (int)res.r.status, res.r.error);
        CHECK_EQ_U64(res.r.proof_len, G16_PROOF_NBYTES);
        check_post_proof(dir, ops[i], reqs[i], res.r.proof);
        eng_result_copy_clear(&res);
    }
    eng_status_info_t st;
    CHECK_OK(eng_get_status(eng, &st, NULL));
    uint64_t proofs = 0, fallbacks = 0;
    for (size_t i = 0; i < st.n_gpus; i++) {
        proofs += st.gpus[i].proofs;
        fallbacks += st.gpus[i].cpu_fallbacks;
    }
    eng_status_clear(&st);
    CHECK_EQ_U64(proofs, 2);
    CHECK_EQ_U64(fallbacks, 0);
    CHECK_EQ_U64(metric(eng, "cuzk_cpu_proofs_total"), 0);
    eng_free(eng);
    cz_free(win);
    cz_free(wdp[0]);
    cz_free(wdp[1]);
}
