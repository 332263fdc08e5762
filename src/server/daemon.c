/* daemon.c - srv_main: the daemon's lifecycle (see server.h).
 *
 * DESIGN
 *  threads: main only waits for signals (sigwait); gRPC's threads (rpc.cc) run the service;
 *           the engine's threads (engine.c) do the work. SIGINT and SIGTERM are blocked here
 *           before any of those threads exist, so every thread inherits the mask and only
 *           main's sigwait/sigtimedwait ever sees the signals. SIGPIPE is ignored.
 *  shutdown: first signal -> the engine stops accepting (Submit/Prove: UNAVAILABLE) while the
 *           RPC server keeps answering status and awaits; main waits until the engine is idle,
 *           daemon.shutdown_grace passes, or a second signal arrives; then the RPC server
 *           stops (calls still open get UNAVAILABLE after one more second), and the engine
 *           cancels what is left and joins its threads.
 */
#include "server/server.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/log.h"
#include "server/internal.h"

#ifndef CUZK_VERSION_STRING
#    define CUZK_VERSION_STRING "unknown"
#endif

#define RPC_FINAL_GRACE_MS 1000u

/* Creates the missing parent directories of a unix socket path (as the Rust daemon does). */
static void make_socket_dir(const char *addr)
{
    const char *path = NULL;
    char dir[1024];

    if (strncmp(addr, "unix://", 7) == 0) {
        path = addr + 7;
    } else if (strncmp(addr, "unix:", 5) == 0) {
        path = addr + 5;
    } else {
        return;
    }
    snprintf(dir, sizeof(dir), "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir) {
        return;
    }
    *slash = '\0';
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0755);
            *p = '/';
        }
    }
    if (mkdir(dir, 0755) == 0) {
        CZ_LOG(CZ_LOG_INFO, "event=mkdir dir=%s", dir);
    }
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

int srv_main(int argc, char **argv, srv_register_fn extra, void *extra_ctx)
{
    sigset_t sigs;
    srv_config cfg;
    eng_config_t ecfg;
    eng_t *eng = NULL;
    srv_rpc *rpc = NULL;
    cz_diag dg;
    int status = 1;

    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, NULL);
    signal(SIGPIPE, SIG_IGN);

    cz_diag_init(&dg);
    if (srv_config_init(&cfg, &dg) != CUZK_OK) {
        fprintf(stderr, "cuzkd: %s\n", dg.msg);
        return 1;
    }
    srv_cli_action action;
    if (srv_config_from_args(&cfg, argc, argv, &action, &dg) != CUZK_OK) {
        fprintf(stderr, "cuzkd: %s\n", dg.msg);
        srv_config_clear(&cfg);
        return 2;
    }
    switch (action) {
    case SRV_HELP:
        srv_config_help(stdout, argv[0]);
        srv_config_clear(&cfg);
        return 0;
    case SRV_VERSION:
        printf("cuzkd %s (cuzk.v1 protocol)\n", CUZK_VERSION_STRING);
        srv_config_clear(&cfg);
        return 0;
    case SRV_PRINT_CONFIG:
        srv_config_print(stdout, &cfg);
        srv_config_clear(&cfg);
        return 0;
    case SRV_RUN:
        break;
    }
    cz_log_level level = CZ_LOG_INFO;
    cz_log_level_parse(&level, cfg.log_level);
    cz_log_threshold = level;
    if (srv_config_engine(&cfg, &ecfg, &dg) != CUZK_OK) {
        fprintf(stderr, "cuzkd: %s\n", dg.msg);
        srv_config_clear(&cfg);
        return 2;
    }

    /* `extra` (tests) registers its handlers instead of the built-in Filecoin ones. */
    if (eng_new(&eng, &ecfg, &dg) != CUZK_OK ||
        (!extra && eng_register_builtin_kinds(eng, &dg) != CUZK_OK) ||
        (extra && extra(eng, &cfg, extra_ctx, &dg) != CUZK_OK) || eng_start(eng, &dg) != CUZK_OK) {
        CZ_LOG(CZ_LOG_ERROR, "event=startup_failed error=\"%s\"", dg.msg);
        goto out;
    }
    struct stat st;
    if (stat(cfg.param_cache, &st) != 0 || !S_ISDIR(st.st_mode)) {
        CZ_LOG(CZ_LOG_WARN, "param_cache=%s event=missing error=\"%s\"", cfg.param_cache,
               strerror(errno ? errno : ENOTDIR));
    }
    for (size_t i = 0; i < cfg.nlisten; i++) {
        make_socket_dir(cfg.listen[i]);
    }
    srv_rpc_opts ro = {
        .listen = (const char *const *)cfg.listen,
        .nlisten = cfg.nlisten,
        .methods = srv_method_paths,
        .nmethods = SRV_NMETHODS,
        .handler = srv_service_handle,
        .ctx = eng,
        .socket_mode = (unsigned)cfg.socket_mode,
        .max_message_bytes = (size_t)256 << 20,
    };
    char msg[512];
    if (srv_rpc_start(&rpc, &ro, msg, sizeof(msg)) != CUZK_OK) {
        CZ_LOG(CZ_LOG_ERROR, "event=startup_failed error=\"%s\"", msg);
        goto out;
    }
    for (size_t i = 0; i < cfg.nlisten; i++) {
        CZ_LOG(CZ_LOG_INFO, "event=listening addr=%s port=%d", cfg.listen[i], srv_rpc_port(rpc, i));
    }
    eng_status_info_t est;
    size_t ngpus = 0;
    if (eng_get_status(eng, &est, NULL) == CUZK_OK) {
        ngpus = est.n_gpus; /* the devices eng_start opened (each logged as event=opened) */
        eng_status_clear(&est);
    }
    CZ_LOG(CZ_LOG_INFO,
           "event=ready version=%s param_cache=%s budget_bytes=%llu gpus=%zu prover=%s config=%s",
           CUZK_VERSION_STRING, cfg.param_cache, (unsigned long long)ecfg.mem_budget_bytes, ngpus,
           ngpus ? "gpu" : "cpu", cfg.config_path ? cfg.config_path : "-");

    int sig = 0;
    while (sigwait(&sigs, &sig) != 0) {
    }
    CZ_LOG(CZ_LOG_INFO, "event=shutdown signal=%s grace_ms=%llu",
           sig == SIGINT ? "SIGINT" : "SIGTERM", (unsigned long long)cfg.shutdown_grace_ms);
    eng_drain(eng, 0); /* stop accepting; status and awaits keep working */
    uint64_t deadline = now_ms() + cfg.shutdown_grace_ms;
    while (!eng_idle(eng)) {
        if (now_ms() >= deadline) {
            CZ_LOG(CZ_LOG_WARN, "event=grace_expired action=cancel_remaining");
            break;
        }
        struct timespec ts = {0, 100 * 1000000L};
        if (sigtimedwait(&sigs, NULL, &ts) > 0) {
            CZ_LOG(CZ_LOG_WARN, "event=second_signal action=cancel_remaining");
            break;
        }
    }
    srv_rpc_shutdown(rpc, RPC_FINAL_GRACE_MS);
    status = 0;
out:
    eng_free(eng);
    srv_rpc_free(rpc);
    CZ_LOG(CZ_LOG_INFO, "event=stopped status=%d", status);
    srv_config_clear(&cfg);
    return status;
}
