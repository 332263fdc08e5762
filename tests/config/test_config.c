/* test_config.c - the configuration (src/config): defaults, the TOML subset, flags, --help and
 * --print-config. Expected values are written out by hand below (sizes in bytes computed by
 * hand, e.g. 5 GiB = 5368709120), not derived from the code under test. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/test.h"

#include "common/log.h"
#include "config/config.h"

static void quiet(cz_log_level level, const char *line, void *ctx)
{
    (void)level;
    (void)line;
    (void)ctx;
}

static void init(srv_config *cfg)
{
    cz_log_set_sink(quiet, NULL); /* ignored keys warn */
    CHECK_OK(srv_config_init(cfg, NULL));
}

/* Loads text and expects failure with a message containing `want`. */
static void expect_error(const char *text, cuzk_err code, const char *want)
{
    srv_config cfg;
    cz_diag dg;
    init(&cfg);
    cz_diag_init(&dg);
    cuzk_err err = srv_config_load_string(&cfg, text, "cfg", &dg);
    CHECK_MSG(err == code, "\"%s\": got %s, expected %s (%s)", text, cuzk_errname(err),
              cuzk_errname(code), dg.msg);
    CHECK_MSG(strstr(dg.msg, want) != NULL, "\"%s\": message \"%s\" lacks \"%s\"", text, dg.msg,
              want);
    srv_config_clear(&cfg);
}

TEST(defaults)
{
    srv_config cfg;
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
    init(&cfg);
    CHECK_EQ_U64(cfg.nlisten, 1);
    CHECK_STR_EQ(cfg.listen[0], "127.0.0.1:9820");
    CHECK_EQ_U64(cfg.socket_mode, 0660);
    CHECK_EQ_U64(cfg.shutdown_grace_ms, 30000);
    CHECK_STR_EQ(cfg.param_cache, "/var/tmp/filecoin-proof-parameters");
    CHECK_EQ_U64(cfg.total_budget, SRV_SIZE_AUTO);
    CHECK_EQ_U64(cfg.safety_margin, UINT64_C(5368709120));
    CHECK_EQ_U64(cfg.eviction_min_idle_ms, 300000);
    CHECK_EQ_U64(cfg.max_batch_size, 1);
    CHECK_EQ_U64(cfg.max_batch_wait_ms, 10000);
    CHECK(cfg.sort_by_type);
    CHECK_EQ_U64(cfg.synth_threads, 0);
    CHECK_EQ_U64(cfg.max_parallel_synthesis, 18);
    CHECK_EQ_U64(cfg.max_active_jobs, 4);
    CHECK_EQ_U64(cfg.prover_threads, 1);
    CHECK_EQ_U64(cfg.retention_ms, 3600000);
    CHECK_EQ_U64(cfg.max_retained, 10000);
    CHECK_STR_EQ(cfg.log_level, "info");
    CHECK_EQ_U64(cfg.gpus.mode, ENG_GPU_AUTO);
    CHECK_EQ_U64(cfg.gpus.n, 0);
    CHECK_EQ_U64(cfg.gpu_mem_limit, 0);
    srv_config_clear(&cfg);

    setenv("FIL_PROOFS_PARAMETER_CACHE", "/data/params", 1);
    init(&cfg);
    CHECK_STR_EQ(cfg.param_cache, "/data/params");
    srv_config_clear(&cfg);
    unsetenv("FIL_PROOFS_PARAMETER_CACHE");
}

/* A file in the style of the Rust daemon's cuzk.example.toml: indented keys, comments,
 * deprecated keys and GPU keys we do not implement (accepted, ignored), gpus.devices as the
 * Rust daemon's array of ordinals, multi-line arrays. */
TEST(rust_style_file)
{
    static const char text[] = "# cuzk daemon configuration\n"
                               "\n"
                               "[daemon]\n"
                               "  # TCP or unix socket\n"
                               "  listen = [\n"
                               "      \"unix:///run/curio/cuzk.sock\",   # local clients\n"
                               "      '0.0.0.0:9820',\n"
                               "  ]\n"
                               "  status_listen = \"0.0.0.0:9821\"\n"
                               "[srs]\n"
                               "param_cache = \"/data/zk/params\"\n"
                               "preload = [\"porep-32g\"]\n"
                               "[memory]\n"
                               "total_budget = \"256GiB\"\n"
                               "safety_margin = \"5GiB\"\n"
                               "eviction_min_idle = \"10m\"\n"
                               "pinned_budget = \"50GiB\"\n"
                               "[gpus]\n"
                               "devices = [0, 1]\n"
                               "gpu_threads = 32\n"
                               "gpu_workers_per_device = 2\n"
                               "[scheduler]\n"
                               "max_batch_size = 3\n"
                               "max_batch_wait_ms = 30_000\n"
                               "sort_by_type = false\n"
                               "[synthesis]\n"
                               "threads = 0x10\n"
                               "[pipeline]\n"
                               "enabled = true\n"
                               "synthesis_lookahead = 1\n"
                               "max_parallel_synthesis = 0o14\n"
                               "[jobs]\n"
                               "retention = 120\n"
                               "[logging]\n"
                               "level = \"debug\"\n"
                               "format = \"json\"\n";
    srv_config cfg;
    cz_diag dg;
    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&cfg, text, "cuzk.toml", &dg) == CUZK_OK, "%s", dg.msg);
    CHECK_EQ_U64(cfg.nlisten, 2);
    CHECK_STR_EQ(cfg.listen[0], "unix:///run/curio/cuzk.sock");
    CHECK_STR_EQ(cfg.listen[1], "0.0.0.0:9820");
    CHECK_STR_EQ(cfg.param_cache, "/data/zk/params");
    CHECK_EQ_U64(cfg.total_budget, UINT64_C(274877906944)); /* 256 * 2^30 */
    CHECK_EQ_U64(cfg.eviction_min_idle_ms, 600000);
    CHECK_EQ_U64(cfg.max_batch_size, 3);
    CHECK_EQ_U64(cfg.max_batch_wait_ms, 30000);
    CHECK(!cfg.sort_by_type);
    CHECK_EQ_U64(cfg.synth_threads, 16);
    CHECK_EQ_U64(cfg.max_parallel_synthesis, 12);
    CHECK_EQ_U64(cfg.retention_ms, 120000);
    CHECK_STR_EQ(cfg.log_level, "debug");
    CHECK_EQ_U64(cfg.gpus.mode, ENG_GPU_LIST);
    CHECK_EQ_U64(cfg.gpus.n, 2);
    CHECK_EQ_U64(cfg.gpus.devices[0], 0);
    CHECK_EQ_U64(cfg.gpus.devices[1], 1);

    eng_config_t ecfg;
    CHECK_OK(srv_config_engine(&cfg, &ecfg, NULL));
    CHECK_EQ_U64(ecfg.gpu_mode, ENG_GPU_LIST);
    CHECK_EQ_U64(ecfg.n_gpu_devices, 2);
    CHECK_EQ_U64(ecfg.gpu_devices[0], 0);
    CHECK_EQ_U64(ecfg.gpu_devices[1], 1);
    CHECK_EQ_U64(ecfg.mem_budget_bytes, UINT64_C(274877906944));
    CHECK_EQ_U64(ecfg.synth_workers, 12); /* min(threads 16, cap 12) */
    CHECK_EQ_U64(ecfg.max_batch_size, 3);
    CHECK(!ecfg.sort_by_type);
    CHECK_STR_EQ(ecfg.param_cache, "/data/zk/params");
    srv_config_clear(&cfg);
}

TEST(value_syntax)
{
    srv_config cfg;
    cz_diag dg;
    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&cfg,
                                     "[srs]\nparam_cache = \"a\\\"b\\\\c\\u00e9\\t\"\n"
                                     "[daemon]\nlisten = 'C:\\x'\nsocket_mode = 0o600\n"
                                     "shutdown_grace = \"1500ms\"\n"
                                     "[jobs]\nmax_retained = 0b101\nretention = \"2h\"\n",
                                     "cfg", &dg) == CUZK_OK,
              "%s", dg.msg);
    CHECK_STR_EQ(cfg.param_cache, "a\"b\\c\xc3\xa9\t");
    CHECK_EQ_U64(cfg.nlisten, 1);
    CHECK_STR_EQ(cfg.listen[0], "C:\\x");
    CHECK_EQ_U64(cfg.socket_mode, 0600);
    CHECK_EQ_U64(cfg.shutdown_grace_ms, 1500);
    CHECK_EQ_U64(cfg.max_retained, 5);
    CHECK_EQ_U64(cfg.retention_ms, 7200000);
    srv_config_clear(&cfg);

    init(&cfg);
    CHECK_OK(srv_config_load_string(&cfg, "[daemon]\nsocket_mode = \"0640\"\n", "cfg", NULL));
    CHECK_EQ_U64(cfg.socket_mode, 0640);
    CHECK_OK(srv_config_load_string(&cfg, "[memory]\ntotal_budget = 1048576\n", "cfg", NULL));
    CHECK_EQ_U64(cfg.total_budget, 1048576);
    CHECK_OK(srv_config_load_string(&cfg, "\r\n[memory]\r\ntotal_budget = \"auto\" # x\r\n", "cfg",
                                    NULL));
    CHECK_EQ_U64(cfg.total_budget, SRV_SIZE_AUTO);
    srv_config_clear(&cfg);
}

TEST(file_errors)
{
    expect_error("[daemon]\n\nbogus = 1\n", CUZK_E_INVAL, "cfg:3: unknown key daemon.bogus");
    expect_error("listen = \"x\"\n", CUZK_E_INVAL, "cfg:1: unknown key listen");
    expect_error("[daemon.sub]\nx = 1\n", CUZK_E_INVAL, "unknown key daemon.sub.x");
    expect_error("[scheduler]\nmax_batch_size = \"3\"\n", CUZK_E_INVAL,
                 "scheduler.max_batch_size: expected a non-negative integer");
    expect_error("[scheduler]\nmax_batch_size = 65\n", CUZK_E_INVAL, "65 is outside [1, 64]");
    expect_error("[scheduler]\nmax_batch_size = -1\n", CUZK_E_INVAL, "expected a non-negative");
    expect_error("[scheduler]\nmax_batch_size = 2\nmax_batch_size = 3\n", CUZK_E_INVAL,
                 "cfg:3: scheduler.max_batch_size is set twice");
    expect_error("[srs]\nparam_cache = \"abc\n", CUZK_E_INVAL, "unterminated string");
    expect_error("[srs]\nparam_cache = abc\n", CUZK_E_INVAL, "strings need quotes");
    expect_error("[srs]\nparam_cache = \"\"\n", CUZK_E_INVAL, "must not be empty");
    expect_error("[srs]\nparam_cache = \"a\" \"b\"\n", CUZK_E_INVAL, "unexpected text");
    expect_error("[srs]\nparam_cache = \"\\q\"\n", CUZK_E_INVAL, "unknown escape");
    expect_error("[jobs]\nmax_retained = 1.5\n", CUZK_E_INVAL, "floating-point");
    expect_error("[jobs]\nmax_retained = 007\n", CUZK_E_INVAL, "leading zeros");
    expect_error("[jobs]\nmax_retained = 1__0\n", CUZK_E_INVAL, "misplaced '_'");
    expect_error("[jobs]\nmax_retained = 99999999999999999999\n", CUZK_E_INVAL, "out of range");
    expect_error("[jobs]\nretention = \"5 weeks\"\n", CUZK_E_INVAL, "expected a duration");
    expect_error("[memory]\nsafety_margin = \"5XB\"\n", CUZK_E_INVAL, "expected a size");
    expect_error("[memory]\nsafety_margin = \"auto\"\n", CUZK_E_INVAL, "expected a size");
    expect_error("[memory]\ntotal_budget = 1000\n", CUZK_E_INVAL, "1000 is outside");
    expect_error("[daemon]\nsocket_mode = \"0999\"\n", CUZK_E_INVAL, "octal");
    expect_error("[daemon]\nsocket_mode = 4095\n", CUZK_E_INVAL, "beyond 0777");
    expect_error("[daemon]\nlisten = []\n", CUZK_E_INVAL, "at least one");
    expect_error("[daemon]\nlisten = [1, 2]\n", CUZK_E_INVAL, "entry 0 is not a string");
    expect_error("[daemon]\nlisten = [[\"a\"]]\n", CUZK_E_INVAL, "nested arrays");
    expect_error("[daemon]\nlisten = {a = 1}\n", CUZK_E_INVAL, "inline tables");
    expect_error("[logging]\nlevel = \"loud\"\n", CUZK_E_INVAL, "unknown log level");
    expect_error("[scheduler]\nsort_by_type = 1\n", CUZK_E_INVAL, "expected true or false");
    expect_error("[daemon]\njust some words\n", CUZK_E_FORMAT, "cfg:2: syntax error");
    /* inih's line limit still applies to keys and section headers: reported, not truncated. */
    char longline[400];
    snprintf(longline, sizeof(longline), "[srs]\nparam_cache%0250d = 1\n", 0);
    expect_error(longline, CUZK_E_FORMAT, "cfg:2: section header or key longer than 199");
    snprintf(longline, sizeof(longline), "[srs%0250d]\n", 0);
    expect_error(longline, CUZK_E_FORMAT, "cfg:1: section header or key longer than 199");
    /* ';' is no comment in TOML: text after a value is refused, not cut off by inih. */
    expect_error("[jobs]\nmax_retained = 5 ; note\n", CUZK_E_INVAL, "unexpected text");
    /* Line numbers count the original lines of a joined array. */
    expect_error("[daemon]\nlisten = [\n\"a\",\n\"b\"\n]\nbogus = 2\n", CUZK_E_INVAL,
                 "cfg:6: unknown key daemon.bogus");
}

TEST(command_line_overrides_file)
{
    const char *path = test_bin_path("tests/test_config.toml");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    fputs("[daemon]\nlisten = [\"127.0.0.1:1\", \"127.0.0.1:2\"]\n[scheduler]\nmax_batch_size = 2\n"
          "sort_by_type = false\n[logging]\nlevel = \"warn\"\n",
          f);
    fclose(f);

    srv_config cfg;
    srv_cli_action act;
    cz_diag dg;
    char *argv[] = {"cuzkd",
                    "--listen",
                    "unix:///tmp/a.sock",
                    "--scheduler-max-batch-size=5",
                    "--config",
                    (char *)path,
                    "--listen=127.0.0.1:3",
                    "--scheduler-sort-by-type",
                    "--param-cache",
                    "/p",
                    "--memory-total-budget",
                    "2GiB",
                    "--jobs-retention",
                    "90s"};
    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_from_args(&cfg, (int)ARRAY_LEN(argv), argv, &act, &dg) == CUZK_OK, "%s",
              dg.msg);
    CHECK_EQ_U64(act, SRV_RUN);
    CHECK_EQ_U64(cfg.nlisten, 2); /* the flags replace the file's list */
    CHECK_STR_EQ(cfg.listen[0], "unix:///tmp/a.sock");
    CHECK_STR_EQ(cfg.listen[1], "127.0.0.1:3");
    CHECK_EQ_U64(cfg.max_batch_size, 5);
    CHECK(cfg.sort_by_type);
    CHECK_STR_EQ(cfg.log_level, "warn"); /* from the file */
    CHECK_STR_EQ(cfg.param_cache, "/p");
    CHECK_EQ_U64(cfg.total_budget, UINT64_C(2147483648));
    CHECK_EQ_U64(cfg.retention_ms, 90000);
    CHECK_STR_EQ(cfg.config_path, path);
    srv_config_clear(&cfg);

    struct {
        const char *a, *b;
        const char *want;
    } bad[] = {
        {"--bogus", NULL, "unknown flag --bogus"},
        {"--listen", NULL, "--listen needs a value"},
        {"--scheduler-max-batch-size=0", NULL, "--scheduler-max-batch-size: 0 is outside [1, 64]"},
        {"--scheduler-sort-by-type=maybe", NULL, "expected true or false"},
        {"--log-level", "chatty", "unknown log level"},
        {"stray", NULL, "unexpected argument"},
        {"--config", "/nonexistent/cuzk.toml", "/nonexistent/cuzk.toml"},
        {"--daemon-status-listen=x", NULL, "unknown flag"}, /* ignored keys have no flag */
    };
    for (size_t i = 0; i < ARRAY_LEN(bad); i++) {
        char *av[3] = {"cuzkd", (char *)bad[i].a, (char *)bad[i].b};
        init(&cfg);
        cz_diag_init(&dg);
        CHECK_MSG(srv_config_from_args(&cfg, bad[i].b ? 3 : 2, av, &act, &dg) != CUZK_OK,
                  "%s accepted", bad[i].a);
        CHECK_MSG(strstr(dg.msg, bad[i].want) != NULL, "%s: \"%s\" lacks \"%s\"", bad[i].a, dg.msg,
                  bad[i].want);
        srv_config_clear(&cfg);
    }
    char *help[] = {"cuzkd", "--listen", "x", "-h"};
    init(&cfg);
    CHECK_OK(srv_config_from_args(&cfg, 4, help, &act, NULL));
    CHECK_EQ_U64(act, SRV_HELP);
    char *pc[] = {"cuzkd", "--print-config"};
    CHECK_OK(srv_config_from_args(&cfg, 2, pc, &act, NULL));
    CHECK_EQ_U64(act, SRV_PRINT_CONFIG);
    srv_config_clear(&cfg);
}

TEST(help_lists_every_key)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    srv_config_help(f, "cuzkd");
    fclose(f);
    const char *keys[] = {"daemon.listen",
                          "daemon.socket_mode",
                          "daemon.shutdown_grace",
                          "srs.param_cache",
                          "memory.total_budget",
                          "memory.safety_margin",
                          "memory.eviction_min_idle",
                          "scheduler.max_batch_size",
                          "scheduler.max_batch_wait_ms",
                          "scheduler.sort_by_type",
                          "synthesis.threads",
                          "pipeline.max_parallel_synthesis",
                          "pipeline.max_active_jobs",
                          "pipeline.prover_threads",
                          "pipeline.prover_cpu_threads",
                          "jobs.retention",
                          "jobs.max_retained",
                          "logging.level"};
    for (size_t i = 0; i < ARRAY_LEN(keys); i++) {
        char want[96];
        snprintf(want, sizeof(want), "file key %s;", keys[i]);
        CHECK_MSG(strstr(buf, want) != NULL, "help lacks %s", keys[i]);
    }
    const char *flags[] = {
        "--listen ADDR", "--param-cache DIR",         "--log-level LEVEL",
        "--config FILE", "--shutdown-grace DURATION", "--scheduler-max-batch-size N",
        "range 1..64"};
    for (size_t i = 0; i < ARRAY_LEN(flags); i++) {
        CHECK_MSG(strstr(buf, flags[i]) != NULL, "help lacks %s", flags[i]);
    }
    CHECK(strstr(buf, "file key gpus.devices; default auto") != NULL);
    CHECK(strstr(buf, "--gpus auto|none|N,N") != NULL);
    CHECK(strstr(buf, "file key gpus.memory_limit; default 0") != NULL);
    /* value placeholders: a directory for the cache keys, a word for the modes */
    CHECK(strstr(buf, "--param-cache DIR") != NULL);
    CHECK(strstr(buf, "--synthesis-mode WORD") != NULL);
    CHECK(strstr(buf, "--synthesis-mode DIR") == NULL);
    /* The GPU keys we do not implement are listed as accepted but ignored, devices is not. */
    const char *ignored = strstr(buf, "ignored:\n");
    CHECK(ignored != NULL);
    CHECK(strstr(ignored, "gpus.gpu_threads") != NULL);
    CHECK(strstr(ignored, "gpus.gpu_workers_per_device") != NULL);
    CHECK(strstr(ignored, "pipeline.max_gpu_queue_depth") != NULL);
    CHECK(strstr(ignored, "gpus.devices") == NULL);
    CHECK(strstr(buf, "no GPU backend") == NULL);
    free(buf);
}

TEST(print_config_round_trip)
{
    srv_config a, b;
    cz_diag dg;
    init(&a);
    CHECK_OK(srv_config_load_string(&a,
                                    "[daemon]\nlisten = [\"unix:///x y/\\\"s\\\".sock\", \"h:1\"]\n"
                                    "socket_mode = 0o640\nshutdown_grace = \"2500ms\"\n"
                                    "[memory]\ntotal_budget = \"3GiB\"\neviction_min_idle = 0\n"
                                    "[scheduler]\nsort_by_type = false\n",
                                    "a", NULL));
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    srv_config_print(f, &a);
    fclose(f);
    init(&b);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&b, buf, "printed", &dg) == CUZK_OK, "%s\n%s", dg.msg, buf);
    CHECK_EQ_U64(b.nlisten, 2);
    CHECK_STR_EQ(b.listen[0], "unix:///x y/\"s\".sock");
    CHECK_STR_EQ(b.listen[1], "h:1");
    CHECK_EQ_U64(b.socket_mode, 0640);
    CHECK_EQ_U64(b.shutdown_grace_ms, 2500);
    CHECK_EQ_U64(b.total_budget, UINT64_C(3221225472));
    CHECK_EQ_U64(b.eviction_min_idle_ms, 0);
    CHECK(!b.sort_by_type);
    CHECK_STR_EQ(b.param_cache, a.param_cache);
    CHECK_EQ_U64(b.max_retained, a.max_retained);
    CHECK_EQ_U64(b.retention_ms, a.retention_ms);
    free(buf);
    srv_config_clear(&a);
    srv_config_clear(&b);
}

/* Values inih alone could not carry: longer than its 200-character line, holding its inline
 * comment " ;", or characters that mean something to inih or to the preprocessor. */
TEST(hostile_values_load)
{
    char text[1200], path[600];
    srv_config cfg;
    cz_diag dg;

    memset(path, 'p', 500);
    path[0] = '/';
    path[500] = '\0';
    snprintf(text, sizeof(text), "[srs]\nparam_cache = \"%s\"\n[daemon]\nlisten = 'a ;b'\n", path);
    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&cfg, text, "cfg", &dg) == CUZK_OK, "%s", dg.msg);
    CHECK_STR_EQ(cfg.param_cache, path);
    CHECK_EQ_U64(cfg.nlisten, 1);
    CHECK_STR_EQ(cfg.listen[0], "a ;b");
    srv_config_clear(&cfg);

    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&cfg,
                                     "\xef\xbb\xbf[srs]\n"
                                     "param_cache = \" ;x\t; #y = z: [w] ;\" # comment ; here\n"
                                     "[daemon]\n"
                                     "listen = [\"1 ;\", # one\n"
                                     "          '2\t;2',\n"
                                     "          \"k = v\"]\n"
                                     "[jobs]\nmax_retained=7\nretention:\"2m\"\n",
                                     "cfg", &dg) == CUZK_OK,
              "%s", dg.msg);
    CHECK_STR_EQ(cfg.param_cache, " ;x\t; #y = z: [w] ;");
    CHECK_EQ_U64(cfg.nlisten, 3);
    CHECK_STR_EQ(cfg.listen[0], "1 ;");
    CHECK_STR_EQ(cfg.listen[1], "2\t;2");
    CHECK_STR_EQ(cfg.listen[2], "k = v");
    CHECK_EQ_U64(cfg.max_retained, 7);
    CHECK_EQ_U64(cfg.retention_ms, 120000);
    srv_config_clear(&cfg);
}

/* srv_config_print of a configuration set by flags with hostile values loads back (from a
 * file, as `cuzkd --print-config > f; cuzkd --config f` does) into the same settings, and
 * prints identically. */
TEST(print_config_round_trip_hostile)
{
    char longdir[400], socks[8][96];
    char *argv[40];
    int argc = 0;
    srv_config a, b;
    srv_cli_action act;
    cz_diag dg;

    memset(longdir, 'd', sizeof(longdir) - 1);
    longdir[0] = '/';
    longdir[sizeof(longdir) - 1] = '\0';
    static const char odd[] = " ; #x\"\\'=:[]\t\n;";
    memcpy(longdir + 100, odd, sizeof(odd) - 1);
    argv[argc++] = "cuzkd";
    for (int i = 0; i < 8; i++) { /* one print line of about 330 characters */
        snprintf(socks[i], sizeof(socks[i]), "--listen=unix:///run/curio/cuzk-%d ;.sock", i);
        argv[argc++] = socks[i];
    }
    argv[argc++] = "--param-cache";
    argv[argc++] = longdir;
    argv[argc++] = "--log-level=debug";
    argv[argc] = NULL;
    init(&a);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_from_args(&a, argc, argv, &act, &dg) == CUZK_OK, "%s", dg.msg);
    CHECK_EQ_U64(a.nlisten, 8);
    CHECK_STR_EQ(a.param_cache, longdir);

    const char *path = test_bin_path("tests/test_config_printed.toml");
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    srv_config_print(f, &a);
    CHECK(fclose(f) == 0);

    char *cargv[] = {"cuzkd", "--config", (char *)path};
    init(&b);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_from_args(&b, 3, cargv, &act, &dg) == CUZK_OK, "%s", dg.msg);
    CHECK_EQ_U64(b.nlisten, 8);
    for (size_t i = 0; i < 8; i++) {
        CHECK_STR_EQ(b.listen[i], socks[i] + strlen("--listen="));
    }
    CHECK_STR_EQ(b.param_cache, longdir);
    CHECK_STR_EQ(b.log_level, "debug");

    char *t1 = NULL, *t2 = NULL;
    size_t n1 = 0, n2 = 0;
    f = open_memstream(&t1, &n1);
    srv_config_print(f, &a);
    fclose(f);
    f = open_memstream(&t2, &n2);
    srv_config_print(f, &b);
    fclose(f);
    CHECK_STR_EQ(t1, t2);
    free(t1);
    free(t2);
    remove(path);
    srv_config_clear(&a);
    srv_config_clear(&b);
}

/* Loads text and returns the gpus.devices it set (and the memory limit through *limit). */
static srv_gpu_sel load_gpus(const char *text, uint64_t *limit)
{
    srv_config cfg;
    cz_diag dg;
    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&cfg, text, "cfg", &dg) == CUZK_OK, "\"%s\": %s", text,
              dg.msg);
    srv_gpu_sel sel = cfg.gpus;
    if (limit) {
        *limit = cfg.gpu_mem_limit;
    }
    srv_config_clear(&cfg);
    return sel;
}

/* Prints cfg and checks that the [gpus] section reads `want` and loads back to the same. */
static void check_gpus_print(const srv_config *cfg, const char *want)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    srv_config_print(f, cfg);
    fclose(f);
    CHECK_MSG(strstr(buf, want) != NULL, "printed configuration lacks \"%s\":\n%s", want, buf);
    srv_config again;
    cz_diag dg;
    init(&again);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_load_string(&again, buf, "printed", &dg) == CUZK_OK, "%s", dg.msg);
    CHECK_EQ_U64(again.gpus.mode, cfg->gpus.mode);
    CHECK_EQ_U64(again.gpus.n, cfg->gpus.n);
    for (size_t i = 0; i < cfg->gpus.n; i++) {
        CHECK_EQ_U64(again.gpus.devices[i], cfg->gpus.devices[i]);
    }
    CHECK_EQ_U64(again.gpu_mem_limit, cfg->gpu_mem_limit);
    srv_config_clear(&again);
    free(buf);
}

/* gpus.devices: "auto", "none", the Rust daemon's array of ordinals (empty = every device),
 * a lone integer, and on the command line "0,1"; errors name the problem. */
TEST(gpu_devices)
{
    uint64_t limit = 1;
    srv_gpu_sel sel = load_gpus("[gpus]\ndevices = \"none\"\n", &limit);
    CHECK_EQ_U64(sel.mode, ENG_GPU_NONE);
    CHECK_EQ_U64(limit, 0);
    sel = load_gpus("[gpus]\ndevices = \"auto\"\nmemory_limit = \"20GiB\"\n", &limit);
    CHECK_EQ_U64(sel.mode, ENG_GPU_AUTO);
    CHECK_EQ_U64(limit, UINT64_C(21474836480));
    sel = load_gpus("[gpus]\ndevices = []\n", NULL);
    CHECK_EQ_U64(sel.mode, ENG_GPU_AUTO);
    sel = load_gpus("[gpus]\ndevices = [3, 0, 1023]\n", NULL);
    CHECK_EQ_U64(sel.mode, ENG_GPU_LIST);
    CHECK_EQ_U64(sel.n, 3);
    CHECK_EQ_U64(sel.devices[0], 3); /* the order given is kept */
    CHECK_EQ_U64(sel.devices[1], 0);
    CHECK_EQ_U64(sel.devices[2], 1023);
    sel = load_gpus("[gpus]\ndevices = 2\n", NULL);
    CHECK_EQ_U64(sel.mode, ENG_GPU_LIST);
    CHECK_EQ_U64(sel.n, 1);
    CHECK_EQ_U64(sel.devices[0], 2);
    sel = load_gpus("[gpus]\ndevices = \" 1, 4 \"\n", NULL);
    CHECK_EQ_U64(sel.mode, ENG_GPU_LIST);
    CHECK_EQ_U64(sel.n, 2);
    CHECK_EQ_U64(sel.devices[0], 1);
    CHECK_EQ_U64(sel.devices[1], 4);

    expect_error("[gpus]\ndevices = [0, 0]\n", CUZK_E_INVAL, "device 0 is listed twice");
    expect_error("[gpus]\ndevices = [-1]\n", CUZK_E_INVAL, "entry 0 is not a device ordinal");
    expect_error("[gpus]\ndevices = [0, \"1\"]\n", CUZK_E_INVAL, "entry 1 is not a device ordinal");
    expect_error("[gpus]\ndevices = [1024]\n", CUZK_E_INVAL, "1024 is outside [0, 1023]");
    expect_error("[gpus]\ndevices = \"\"\n", CUZK_E_INVAL,
                 "expected \"auto\", \"none\" or device ordinals");
    expect_error("[gpus]\ndevices = \"gpu0\"\n", CUZK_E_INVAL, "gpus.devices");
    expect_error("[gpus]\ndevices = \"0;1\"\n", CUZK_E_INVAL, "expected ',' between");
    expect_error("[gpus]\ndevices = true\n", CUZK_E_INVAL, "an array of device ordinals");
    expect_error("[gpus]\ndevices = -3\n", CUZK_E_INVAL, "not negative");
    expect_error("[gpus]\nmemory_limit = \"lots\"\n", CUZK_E_INVAL, "expected a size");
    char many[512] = "[gpus]\ndevices = [";
    for (int i = 0; i <= ENG_MAX_GPUS; i++) {
        snprintf(many + strlen(many), sizeof(many) - strlen(many), "%s%d", i ? "," : "", i);
    }
    snprintf(many + strlen(many), sizeof(many) - strlen(many), "]\n");
    expect_error(many, CUZK_E_INVAL, "more than 64 devices");

    /* Flags override the file's choice. */
    srv_config cfg;
    srv_cli_action act;
    cz_diag dg;
    char *argv[] = {"cuzkd", "--gpus", "5,2", "--gpus-memory-limit=1GiB"};
    init(&cfg);
    cz_diag_init(&dg);
    CHECK_MSG(srv_config_from_args(&cfg, 4, argv, &act, &dg) == CUZK_OK, "%s", dg.msg);
    CHECK_EQ_U64(cfg.gpus.mode, ENG_GPU_LIST);
    CHECK_EQ_U64(cfg.gpus.n, 2);
    CHECK_EQ_U64(cfg.gpus.devices[0], 5);
    CHECK_EQ_U64(cfg.gpus.devices[1], 2);
    CHECK_EQ_U64(cfg.gpu_mem_limit, UINT64_C(1073741824));
    eng_config_t e;
    CHECK_OK(srv_config_engine(&cfg, &e, NULL));
    CHECK_EQ_U64(e.gpu_mode, ENG_GPU_LIST);
    CHECK_EQ_U64(e.n_gpu_devices, 2);
    CHECK_EQ_U64(e.gpu_devices[0], 5);
    CHECK_EQ_U64(e.gpu_devices[1], 2);
    CHECK_EQ_U64(e.gpu_mem_limit_bytes, UINT64_C(1073741824));
    srv_config_clear(&cfg);

    char *none[] = {"cuzkd", "--gpus=none"};
    init(&cfg);
    CHECK_OK(srv_config_from_args(&cfg, 2, none, &act, NULL));
    CHECK_EQ_U64(cfg.gpus.mode, ENG_GPU_NONE);
    CHECK_OK(srv_config_engine(&cfg, &e, NULL));
    CHECK_EQ_U64(e.gpu_mode, ENG_GPU_NONE);
    CHECK_EQ_U64(e.n_gpu_devices, 0);
    srv_config_clear(&cfg);

    char *bad[] = {"cuzkd", "--gpus", "0,x"};
    init(&cfg);
    cz_diag_init(&dg);
    CHECK(srv_config_from_args(&cfg, 3, bad, &act, &dg) != CUZK_OK);
    CHECK_MSG(strstr(dg.msg, "--gpus:") != NULL, "%s", dg.msg);
    srv_config_clear(&cfg);
}

/* --print-config writes gpus.devices so that it loads back to the same choice. */
TEST(gpu_devices_print_round_trip)
{
    static const struct {
        const char *text, *printed;
    } cases[] = {
        {"", "[gpus]\ndevices = \"auto\"\nmemory_limit = 0\n"},
        {"[gpus]\ndevices = []\n", "devices = \"auto\"\n"},
        {"[gpus]\ndevices = \"none\"\n", "devices = \"none\"\n"},
        {"[gpus]\ndevices = [7]\nmemory_limit = \"3GiB\"\n",
         "devices = [7]\nmemory_limit = 3221225472\n"},
        {"[gpus]\ndevices = \"2,0,9\"\n", "devices = [2, 0, 9]\n"},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        srv_config cfg;
        cz_diag dg;
        init(&cfg);
        cz_diag_init(&dg);
        CHECK_MSG(srv_config_load_string(&cfg, cases[i].text, "cfg", &dg) == CUZK_OK, "%s", dg.msg);
        check_gpus_print(&cfg, cases[i].printed);
        srv_config_clear(&cfg);
    }
}

TEST(sizes_and_durations)
{
    struct {
        const char *s;
        bool ok;
        uint64_t v;
    } sizes[] = {
        {"5GiB", true, UINT64_C(5368709120)},
        {"512MiB", true, UINT64_C(536870912)},
        {"626MiB", true, UINT64_C(656408576)},
        {"1TiB", true, UINT64_C(1099511627776)},
        {"2KiB", true, 2048},
        {"1TB", true, UINT64_C(1000000000000)},
        {"50GB", true, UINT64_C(50000000000)},
        {"7MB", true, 7000000},
        {"4096", true, 4096},
        {"0", true, 0},
        {"12 GiB", true, UINT64_C(12884901888)},
        {"9B", true, 9},
        {"", false, 0},
        {"GiB", false, 0},
        {"-1", false, 0},
        {"5XB", false, 0},
        {"1.5GiB", false, 0},
        {"20000000000GiB", false, 0},
        {"18446744073709551616", false, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
        uint64_t v = 0;
        bool ok = srv_parse_size(sizes[i].s, &v);
        CHECK_MSG(ok == sizes[i].ok, "size \"%s\"", sizes[i].s);
        if (ok) {
            CHECK_EQ_U64(v, sizes[i].v);
        }
    }
    struct {
        const char *s;
        bool ok;
        uint64_t ms;
    } durs[] = {
        {"5m", true, 300000}, {"300s", true, 300000}, {"10m", true, 600000}, {"60", true, 60000},
        {"250ms", true, 250}, {"2h", true, 7200000},  {"0", true, 0},        {"", false, 0},
        {"m", false, 0},      {"5d", false, 0},       {"-5s", false, 0},     {"1.5s", false, 0},
    };
    for (size_t i = 0; i < ARRAY_LEN(durs); i++) {
        uint64_t v = 0;
        bool ok = srv_parse_duration_ms(durs[i].s, &v);
        CHECK_MSG(ok == durs[i].ok, "duration \"%s\"", durs[i].s);
        if (ok) {
            CHECK_EQ_U64(v, durs[i].ms);
        }
    }
}

TEST(engine_config_auto_budget)
{
    srv_config cfg;
    eng_config_t e;
    init(&cfg);
    cfg.safety_margin = 0;
    CHECK_OK(srv_config_engine(&cfg, &e, NULL));
    CHECK(e.mem_budget_bytes > (UINT64_C(64) << 20)); /* some physical memory was found */
    cfg.safety_margin = UINT64_MAX - 1;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_ERR(srv_config_engine(&cfg, &e, &dg), CUZK_E_INVAL);
    CHECK(strstr(dg.msg, "safety_margin") != NULL);
    srv_config_clear(&cfg);
}
