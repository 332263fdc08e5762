/* test_perf.c - the shared pieces of cuzk-bench's performance workbench (tools/cuzk-bench/
 * perf.h): statistics against values worked out by hand, the A/B significance rule on constructed
 * samples (identical, clearly apart, overlapping, too few), the key=value reader and the
 * timing-log parser on lines in the exact format cuzkd writes (engine/timing.c, engine.c), and
 * the memory monitor against memory this test touches itself.
 */
#include "harness/test.h"

#include <math.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/log.h"
#include "cuzk-bench/perf.h"

static bool near(double a, double b)
{
    return fabs(a - b) < 1e-9;
}

TEST(stats_odd_even_empty)
{
    perf_stats s;
    const double odd[] = {5, 1, 4, 2, 3};
    perf_stats_of(&s, odd, 5);
    CHECK_EQ_U64(s.n, 5);
    CHECK(near(s.min, 1) && near(s.max, 5) && near(s.median, 3) && near(s.mean, 3));

    const double even[] = {10, 2, 8, 4}; /* sorted 2 4 8 10: median (4 + 8) / 2 */
    perf_stats_of(&s, even, 4);
    CHECK(near(s.min, 2) && near(s.max, 10) && near(s.median, 6) && near(s.mean, 6));
    CHECK(near(even[0], 10)); /* input untouched */

    perf_stats_of(&s, NULL, 0);
    CHECK_EQ_U64(s.n, 0);
    CHECK(near(s.min, 0) && near(s.median, 0) && near(s.max, 0));
}

TEST(compare_identical_is_not_significant)
{
    const double a[] = {100, 101, 99, 100, 102};
    perf_cmp c;
    perf_compare(&c, a, 5, a, 5);
    CHECK(c.enough);
    CHECK(near(c.diff, 0));
    CHECK(near(c.noise, 3));
    CHECK(!c.significant);
}

TEST(compare_apart_is_significant)
{
    const double a[] = {100, 101, 99, 100, 102};
    const double b[] = {80, 81, 79, 80, 82}; /* 20 faster, spread 3 */
    perf_cmp c;
    perf_compare(&c, a, 5, b, 5);
    CHECK(near(c.diff, -20) && near(c.noise, 3));
    CHECK(c.significant);
    perf_compare(&c, b, 5, a, 5);
    CHECK(near(c.diff, 20) && c.significant);
}

TEST(compare_within_noise_is_not_significant)
{
    /* medians 100 and 105, but A ranges over 90..120: the difference is below the noise */
    const double a[] = {90, 100, 120, 95, 110};
    const double b[] = {104, 105, 106, 105, 104};
    perf_cmp c;
    perf_compare(&c, a, 5, b, 5);
    CHECK(near(c.diff, 5) && near(c.noise, 30));
    CHECK(!c.significant);

    /* ranges apart: significant only when the medians differ by more than the spread */
    const double d[] = {0, 1, 1, 1, 10};
    const double e[] = {11, 11.5, 11.5, 11.5, 12};
    perf_compare(&c, d, 5, e, 5);
    CHECK(c.b.min > c.a.max);
    CHECK(near(c.diff, 10.5) && near(c.noise, 10));
    CHECK(c.significant); /* 10.5 > 10 and apart */
    const double f[] = {10.5, 11, 11, 11, 11.4};
    perf_compare(&c, d, 5, f, 5);
    CHECK(c.b.min > c.a.max);
    CHECK(near(c.diff, 10) && near(c.noise, 10));
    CHECK(!c.significant); /* not larger than the noise */
}

TEST(compare_needs_five_runs)
{
    const double a[] = {100, 101, 100, 101};
    const double b[] = {10, 11, 10, 11, 10};
    perf_cmp c;
    perf_compare(&c, a, 4, b, 4); /* far apart, but 4 runs are not enough */
    CHECK(!c.enough);
    CHECK(!c.significant);
    perf_compare(&c, a, 4, b, 5);
    CHECK(!c.enough);
}

TEST(kv_reader)
{
    char v[64];
    const char *line = "2026-11-29T23:50:47.465Z level=info event=stage job=j1 kind=window-post "
                       "partition=- stage=queue worker=queue start_ms=987.503 ms=0.079";
    CHECK(cz_log_kv(line, "event", v, sizeof(v)) && strcmp(v, "stage") == 0);
    CHECK(cz_log_kv(line, "stage", v, sizeof(v)) && strcmp(v, "queue") == 0); /* not event=stage */
    CHECK(cz_log_kv(line, "ms", v, sizeof(v)) && strcmp(v, "0.079") == 0);    /* not start_ms */
    CHECK(cz_log_kv(line, "start_ms", v, sizeof(v)) && strcmp(v, "987.503") == 0);
    CHECK(cz_log_kv(line, "partition", v, sizeof(v)) && strcmp(v, "-") == 0);
    CHECK(!cz_log_kv(line, "absent", v, sizeof(v)));
    CHECK(!cz_log_kv(line, "kind", v, 4)); /* too long for the buffer */
    CHECK(cz_log_kv("a=1 error=\"two words\" b=2", "error", v, sizeof(v)) &&
          strcmp(v, "two words") == 0);
    CHECK(cz_log_kv("a=1 error=\"two words\" b=2", "b", v, sizeof(v)) && strcmp(v, "2") == 0);
    /* Curio's WindowPoSt id as the daemon writes it, and a value that looks like a key. */
    line = "event=stage job=\"wdpost-1000-0-[95 52 194 205 1 2 3 4]\" kind=window-post "
           "error=\"x stage=fake \\\" q\" stage=msm_h";
    CHECK(cz_log_kv(line, "job", v, sizeof(v)) &&
          strcmp(v, "wdpost-1000-0-[95 52 194 205 1 2 3 4]") == 0);
    CHECK(cz_log_kv(line, "stage", v, sizeof(v)) && strcmp(v, "msm_h") == 0);
    CHECK(cz_log_kv(line, "error", v, sizeof(v)) && strcmp(v, "x stage=fake \" q") == 0);
}

/* Lines as cuzkd writes them (copied from a real --timing run), plus noise. */
static const char *const LOG[] = {
    "2026-11-29T23:50:46.475Z level=info event=ready version=0.1.0 param_cache=/p",
    "2026-11-29T23:50:47.460Z level=info job=J kind=window-post prio=high event=submitted "
    "bytes=0 vanilla_proofs=1",
    "2026-11-29T23:50:47.465Z level=info event=stage job=J kind=window-post partition=- "
    "stage=queue worker=queue start_ms=987.503 ms=0.079",
    "2026-11-29T23:50:47.465Z level=info event=stage job=J kind=window-post partition=- "
    "stage=parse worker=cuzk-synth-1 start_ms=987.629 ms=5.022",
    "2026-11-29T23:50:47.619Z level=info event=stage job=J kind=window-post partition=0 "
    "stage=synthesis worker=cuzk-synth-0 start_ms=1140.264 ms=6.404",
    "2026-11-29T23:50:47.624Z level=info event=stage job=J kind=window-post partition=0 "
    "stage=prep worker=cuzk-prove-0 start_ms=1151.507 ms=0.923",
    "2026-11-29T23:50:47.722Z level=info event=stage job=J kind=window-post partition=0 "
    "stage=prep worker=cuzk-prove-0 start_ms=1249.527 ms=0.028",
    "2026-11-29T23:50:47.722Z level=info event=stage job=K kind=window-post partition=1 "
    "stage=prep worker=cuzk-prove-0 start_ms=1300 ms=7",
    "2026-11-29T23:50:50.366Z level=info job=J kind=window-post status=completed partitions=1 "
    "queue_ms=0 srs_ms=147 synth_ms=11 prove_ms=2741 verify_ms=1 total_ms=2906",
    "2026-11-29T23:50:50.366Z level=warn job=K kind=window-post event=failed error=\"x y\"",
    "2026-11-29T23:50:53.524Z level=info event=stopped status=0",
    "event=stage job=broken stage=prep", /* incomplete: ignored */
};

TEST(log_parser)
{
    perf_log log;
    memset(&log, 0, sizeof(log));
    for (size_t i = 0; i < ARRAY_LEN(LOG); i++) {
        CHECK(perf_log_add_line(&log, LOG[i]));
    }
    CHECK_EQ_U64(log.lines, ARRAY_LEN(LOG));
    CHECK_EQ_U64(log.nst, 6);
    CHECK_EQ_U64(log.njobs, 1); /* the failure line and "status=0" have no summary */
    const perf_stage_ev *q = &log.st[0];
    CHECK_STR_EQ(q->job, "J");
    CHECK_STR_EQ(q->kind, "window-post");
    CHECK_STR_EQ(q->stage, "queue");
    CHECK_STR_EQ(q->worker, "queue");
    CHECK(q->partition == -1 && near(q->start_ms, 987.503) && near(q->ms, 0.079));
    CHECK(log.st[2].partition == 0);
    CHECK_STR_EQ(log.st[2].worker, "cuzk-synth-0");
    CHECK(log.st[5].partition == 1);
    CHECK(near(perf_log_stage_sum(&log, "J", "prep"), 0.951)); /* two prep segments */
    CHECK(near(perf_log_stage_sum(&log, "K", "prep"), 7));
    CHECK(near(perf_log_stage_sum(&log, "J", "verify"), 0));
    const perf_job_ev *j = perf_log_job(&log, "J");
    CHECK(j != NULL);
    CHECK_STR_EQ(j->status, "completed");
    CHECK(j->partitions == 1 && near(j->total_ms, 2906) && near(j->prove_ms, 2741));
    CHECK(near(j->synth_ms, 11) && near(j->srs_ms, 147) && near(j->verify_ms, 1));
    CHECK(perf_log_job(&log, "K") == NULL);
    CHECK(perf_stage_rank("queue") == 0);
    CHECK(perf_stage_rank("msm_h") < perf_stage_rank("verify"));
    CHECK(perf_stage_rank("nonsense") == perf_stage_norder);
    perf_log_clear(&log);
    CHECK(log.st == NULL && log.nst == 0);
}

TEST(human_bytes)
{
    char b[32];
    perf_human_bytes(b, sizeof(b), 512);
    CHECK_STR_EQ(b, "512 B");
    perf_human_bytes(b, sizeof(b), 3 << 20);
    CHECK_STR_EQ(b, "3.00 MiB");
    perf_human_bytes(b, sizeof(b), (uint64_t)150 << 30);
    CHECK_STR_EQ(b, "150 GiB");
}

/* The monitor sees memory this process touches: 96 MiB written while it samples. */
TEST(memmon_sees_touched_memory)
{
    char path[256];
    perf_memmon *m = NULL;
    perf_memmon_peak pk;
    perf_memmon_src src = {"rss", 0};
    size_t len = (size_t)96 << 20;

    snprintf(path, sizeof(path), "%s", test_bin_path("tests/perf_memmon.csv"));
    uint64_t before = perf_rss_of(0);
    CHECK(before > 0);
    CHECK(perf_rss_of((long)getpid()) > 0); /* the /proc/PID path too */
    CHECK(perf_memmon_start(&m, "test", path, &src, 1, false));
    usleep(150 * 1000);
    uint8_t *p = cz_malloc(len); /* out of line: the compiler cannot drop the memory */
    CHECK(p != NULL);
    memset(p, 0x5a, len);
    usleep(350 * 1000);
    perf_memmon_stop(m, &pk);
    CHECK(p[len / 2] == 0x5a);
    cz_free(p);
    CHECK(pk.samples >= 4); /* first, >= 3 periods of 100 ms, last */
    CHECK(!pk.have_gpu);
    CHECK_MSG(pk.rss[0] >= before + len - ((size_t)8 << 20), "peak %llu, before %llu",
              (unsigned long long)pk.rss[0], (unsigned long long)before);

    /* the CSV: a header, then one row per sample with increasing times */
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    char line[256];
    CHECK(fgets(line, sizeof(line), f) != NULL);
    CHECK_STR_EQ(line, "t_ms,rss_bytes\n");
    size_t rows = 0;
    double last_t = -1;
    unsigned long long max_rss = 0;
    while (fgets(line, sizeof(line), f)) {
        double t;
        unsigned long long rss;
        CHECK(sscanf(line, "%lf,%llu", &t, &rss) == 2);
        CHECK(t >= last_t);
        last_t = t;
        max_rss = rss > max_rss ? rss : max_rss;
        rows++;
    }
    fclose(f);
    CHECK_EQ_U64(rows, pk.samples);
    CHECK_EQ_U64(max_rss, pk.rss[0]);
    CHECK(last_t >= 400);
    remove(path);
}

/* Another process: a child that holds 64 MiB; the monitor follows its pid. The child says
 * when its memory is touched (a byte on `ready`), so a loaded machine cannot make the monitor
 * sample before it. */
TEST(memmon_follows_a_pid)
{
    size_t len = (size_t)64 << 20;
    int fds[2], ready[2];
    char c = 0;
    CHECK(pipe(fds) == 0 && pipe(ready) == 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        uint8_t *p = cz_malloc(len);
        if (!p) {
            _exit(1);
        }
        memset(p, 1, len);
        close(fds[1]);
        close(ready[0]);
        if (write(ready[1], "r", 1) != 1) {
            _exit(1);
        }
        if (read(fds[0], &c, 1) < 0) { /* until the parent closes the pipe */
            _exit(1);
        }
        _exit(p[len - 1] == 1 ? 0 : 1);
    }
    close(fds[0]);
    close(ready[1]);
    CHECK(read(ready[0], &c, 1) == 1); /* the child's memory is in place */
    close(ready[0]);
    perf_memmon *m = NULL;
    perf_memmon_peak pk;
    perf_memmon_src src[2] = {{"self", 0}, {"child", pid}};
    CHECK(perf_memmon_start(&m, "test", NULL, src, 2, false));
    usleep(400 * 1000);
    perf_memmon_stop(m, &pk);
    close(fds[1]);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_MSG(pk.rss[1] >= len, "child peak %llu", (unsigned long long)pk.rss[1]);
    CHECK(pk.rss[0] > 0 && pk.rss[0] < pk.rss[1]);
    CHECK(perf_rss_of(999999999) == 0); /* no such process */
}
