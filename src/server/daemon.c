/* daemon.c - srv_main: the daemon's lifecycle (see server.h).
 *
 * DESIGN
 *  threads: main only waits for signals (sigwait); gRPC's threads (rpc.cc) run the service;
 *           the engine's threads (engine.c) do the work. SIGINT, SIGTERM, SIGQUIT, SIGHUP and
 *           SIGUSR1 are blocked here before any of those threads exist, so every thread
 *           inherits the mask and only main's sigwait/sigtimedwait ever sees them (their
 *           default actions would kill the process mid-proof). SIGPIPE is ignored.
 *  signals: SIGHUP is logged and ignored (the daemon writes its log to stderr, which whoever
 *           started it owns, so there is no file to reopen; the configuration is not reloaded).
 *           SIGUSR1 logs one status line (jobs, memory). SIGINT/SIGTERM stop gracefully,
 *           SIGQUIT stops at once (below). Both kinds keep being answered during the grace.
 *  shutdown: first SIGINT/SIGTERM -> the engine stops accepting (Submit/Prove: UNAVAILABLE)
 *           while the RPC server keeps answering status and awaits; main waits until the
 *           engine is idle, daemon.shutdown_grace passes, or a second stop signal arrives; then
 *           the RPC server stops (calls still open get UNAVAILABLE after one more second), and
 *           the engine cancels what is left and joins its threads. SIGQUIT skips the grace:
 *           the RPC server stops without waiting and the engine cancels running jobs.
 *           Every stop, and a start-up that fails after binding, removes the unix socket files
 *           this daemon made (listen.c).
 *  watchdog: a fast stop (SIGQUIT, first or cutting the grace) is bounded: a thread
 *           "cuzk-quit-watch" started with it waits QUIT_BOUND_MS for main to finish the orderly
 *           stop; if main has not by then (a stage that does not look at its cancel flag, a
 *           device call that does not return), it logs event=stop_timeout, removes the socket
 *           files and ends the process with _exit(3). main tells it it is done under its mutex
 *           (quit_watch.mu) before it touches the sockets or the configuration itself, so the
 *           two never both do.
 */
#include "server/server.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/alloc.h"
#include "common/log.h"
#include "kinds/kinds.h"
#include "server/internal.h"

#ifndef CUZK_VERSION_STRING
#    define CUZK_VERSION_STRING "unknown"
#endif

#define RPC_FINAL_GRACE_MS 1000u
#define RPC_MAX_MESSAGE    ((size_t)256 << 20)
/* A request being received and decoded holds up to about 3 times its size outside the memory
 * budget (gRPC's buffers, a flat copy, the decoded message); the engine's copy is counted. */
#define RPC_RECEIVE_COST   (3 * RPC_MAX_MESSAGE)
#define RPC_MAX_RECEIVING  8u
#define QUIT_BOUND_MS      10000u /* longest a fast stop may take before _exit */
#define QUIT_EXIT_STATUS   3

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static const char *sig_name(int sig)
{
    switch (sig) {
    case SIGINT:
        return "SIGINT";
    case SIGTERM:
        return "SIGTERM";
    case SIGQUIT:
        return "SIGQUIT";
    case SIGHUP:
        return "SIGHUP";
    case SIGUSR1:
        return "SIGUSR1";
    default:
        return "?";
    }
}

/* SIGUSR1: one line with the jobs and the memory in use. */
static void log_status(eng_t *eng)
{
    eng_status_info_t st;
    uint64_t queued = 0, running = 0;
    size_t hot = 0, warm = 0;

    if (eng_get_status(eng, &st, NULL) != CUZK_OK) {
        CZ_LOG(CZ_LOG_WARN, "event=status error=\"status unavailable\"");
        return;
    }
    for (size_t k = 0; k < ENG_KIND_COUNT - 1; k++) {
        queued += st.queues[k].pending;
        running += st.queues[k].in_progress;
    }
    for (size_t i = 0; i < st.n_srs; i++) {
        hot += st.srs[i].tier == ENG_TIER_HOT;
        warm += st.srs[i].tier == ENG_TIER_WARM;
    }
    CZ_LOG(CZ_LOG_INFO,
           "event=status signal=SIGUSR1 jobs_queued=%llu jobs_running=%llu completed=%llu "
           "failed=%llu cancelled=%llu mem_used_bytes=%llu mem_budget_bytes=%llu srs_hot=%zu "
           "srs_warm=%zu rss_bytes=%zu rss_peak_bytes=%zu gpus=%zu uptime_s=%llu",
           (unsigned long long)queued, (unsigned long long)running,
           (unsigned long long)st.completed, (unsigned long long)st.failed,
           (unsigned long long)st.cancelled, (unsigned long long)st.mem_used_bytes,
           (unsigned long long)st.mem_budget_bytes, hot, warm, cz_rss_now(), cz_rss_peak(),
           st.n_gpus, (unsigned long long)st.uptime_s);
    eng_status_clear(&st);
}

/* Answers SIGHUP and SIGUSR1; returns true for a stop signal (SIGINT, SIGTERM, SIGQUIT). */
static bool handle_signal(eng_t *eng, int sig)
{
    if (sig == SIGHUP) {
        CZ_LOG(CZ_LOG_INFO, "event=sighup action=ignored reason=\"the log goes to stderr; the "
                            "configuration is read only at start\"");
        return false;
    }
    if (sig == SIGUSR1) {
        log_status(eng);
        return false;
    }
    return true;
}

/* Blocks until a stop signal arrives; returns it. */
static int wait_for_stop(eng_t *eng, const sigset_t *sigs)
{
    for (;;) {
        int sig = 0;
        if (sigwait(sigs, &sig) == 0 && handle_signal(eng, sig)) {
            return sig;
        }
    }
}

/* The engine stops accepting; running and queued jobs get daemon.shutdown_grace (none after
 * SIGQUIT) unless another stop signal arrives. Returns SIGQUIT when the stop became a fast one
 * (the first signal, or a SIGQUIT that cut the grace), else sig. */
static int drain(eng_t *eng, const sigset_t *sigs, const srv_config *cfg, int sig)
{
    uint64_t grace_ms = sig == SIGQUIT ? 0 : cfg->shutdown_grace_ms;

    CZ_LOG(sig == SIGQUIT ? CZ_LOG_WARN : CZ_LOG_INFO, "event=shutdown signal=%s grace_ms=%llu%s",
           sig_name(sig), (unsigned long long)grace_ms,
           sig == SIGQUIT ? " action=cancel_running" : "");
    eng_drain(eng, 0); /* stop accepting; status and awaits keep working */
    uint64_t deadline = now_ms() + grace_ms;
    while (!eng_idle(eng)) {
        if (now_ms() >= deadline) {
            if (grace_ms) {
                CZ_LOG(CZ_LOG_WARN, "event=grace_expired action=cancel_remaining");
            }
            return sig;
        }
        struct timespec ts = {0, 100 * 1000000L};
        int got = sigtimedwait(sigs, NULL, &ts);
        if (got > 0 && handle_signal(eng, got)) {
            CZ_LOG(CZ_LOG_WARN, "event=second_signal signal=%s action=cancel_remaining",
                   sig_name(got));
            return got == SIGQUIT ? SIGQUIT : sig;
        }
    }
    return sig;
}

/* The fast stop's watchdog (see DESIGN). */
typedef struct quit_watch {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool started, done;
    pthread_t thread;
    srv_sockets *socks;
    const srv_config *cfg;
} quit_watch;

static void *quit_watch_main(void *arg)
{
    quit_watch *w = arg;
    struct timespec until;

    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += QUIT_BOUND_MS / 1000u;
    until.tv_nsec += (long)(QUIT_BOUND_MS % 1000u) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&w->mu);
    while (!w->done) {
        if (pthread_cond_timedwait(&w->cv, &w->mu, &until) == ETIMEDOUT && !w->done) {
            CZ_LOG(CZ_LOG_ERROR,
                   "event=stop_timeout signal=SIGQUIT bound_ms=%u action=exit status=%d "
                   "reason=\"the orderly stop did not finish\"",
                   QUIT_BOUND_MS, QUIT_EXIT_STATUS);
            srv_sockets_remove(w->socks, w->cfg);
            _exit(QUIT_EXIT_STATUS); /* mu stays locked: main cannot go on meanwhile */
        }
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static void quit_watch_init(quit_watch *w, srv_sockets *socks, const srv_config *cfg)
{
    pthread_condattr_t ca;

    memset(w, 0, sizeof(*w));
    pthread_mutex_init(&w->mu, NULL);
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    w->socks = socks;
    w->cfg = cfg;
}

/* Starts the watchdog (once); a failure to start it is logged and the stop goes on. */
static void quit_watch_start(quit_watch *w)
{
    if (w->started) {
        return;
    }
    int rc = pthread_create(&w->thread, NULL, quit_watch_main, w);
    if (rc != 0) {
        CZ_LOG(CZ_LOG_WARN, "event=stop_watchdog_failed error=\"%s\"", strerror(rc));
        return;
    }
    pthread_setname_np(w->thread, "cuzk-quit-watch");
    w->started = true;
}

/* main is done with the orderly stop: the watchdog (if any) returns without acting. */
static void quit_watch_finish(quit_watch *w)
{
    pthread_mutex_lock(&w->mu);
    w->done = true;
    pthread_cond_broadcast(&w->cv);
    pthread_mutex_unlock(&w->mu);
    if (w->started) {
        pthread_join(w->thread, NULL);
    }
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
}

static void block_signals(sigset_t *sigs)
{
    sigemptyset(sigs);
    sigaddset(sigs, SIGINT);
    sigaddset(sigs, SIGTERM);
    sigaddset(sigs, SIGQUIT);
    sigaddset(sigs, SIGHUP);
    sigaddset(sigs, SIGUSR1);
    pthread_sigmask(SIG_BLOCK, sigs, NULL);
    signal(SIGPIPE, SIG_IGN);
}

/* Reads the flags and the config file into cfg and ecfg. Returns -1 when the daemon is to run
 * (cfg then holds the configuration), else the exit status (cfg cleared). */
static int configure(srv_config *cfg, eng_config_t *ecfg, int argc, char **argv, cz_diag *dg)
{
    srv_cli_action action;
    int rc = -1;

    if (srv_config_init(cfg, dg) != CUZK_OK) {
        fprintf(stderr, "cuzkd: %s\n", dg->msg);
        return 1;
    }
    if (srv_config_from_args(cfg, argc, argv, &action, dg) != CUZK_OK) {
        fprintf(stderr, "cuzkd: %s\n", dg->msg);
        rc = 2;
    } else if (action == SRV_HELP) {
        srv_config_help(stdout, argv[0]);
        rc = 0;
    } else if (action == SRV_VERSION) {
        printf("cuzkd %s (cuzk.v1 protocol)\n", CUZK_VERSION_STRING);
        rc = 0;
    } else if (action == SRV_PRINT_CONFIG) {
        srv_config_print(stdout, cfg);
        rc = 0;
    } else {
        cz_log_level level = CZ_LOG_INFO;
        cz_log_level_parse(&level, cfg->log_level);
        cz_log_threshold = level;
        if (srv_config_engine(cfg, ecfg, dg) != CUZK_OK) {
            fprintf(stderr, "cuzkd: %s\n", dg->msg);
            rc = 2;
        }
    }
    if (rc >= 0) {
        srv_config_clear(cfg);
    }
    return rc;
}

/* Creates and starts the engine with the built-in handlers, or those `extra` registers. */
static cuzk_err start_engine(eng_t **eng, const srv_config *cfg, const eng_config_t *ecfg,
                             srv_register_fn extra, void *extra_ctx, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    CZ_TRY(err, eng_new(eng, ecfg, dg), done);
    if (extra) {
        CZ_TRY(err, extra(*eng, cfg, extra_ctx, dg), done);
    } else {
        CZ_TRY(err, eng_register_builtin_kinds(*eng, dg), done);
    }
    CZ_TRY(err, eng_start(*eng, dg), done);
done:
    return err;
}

/* Serves cfg's listen addresses; records the socket files made (also after a failed start, so
 * that they are removed: listen.c checked that the paths were free). */
/* How many large requests may be received at once: what a quarter of the memory budget holds
 * at RPC_RECEIVE_COST each, at least one, at most RPC_MAX_RECEIVING. */
static size_t max_receiving(uint64_t budget)
{
    uint64_t n = budget / 4 / RPC_RECEIVE_COST;
    return n < 1 ? 1 : n > RPC_MAX_RECEIVING ? RPC_MAX_RECEIVING : (size_t)n;
}

static cuzk_err start_rpc(srv_rpc **rpc, const srv_config *cfg, uint64_t budget, eng_t *eng,
                          srv_sockets *socks)
{
    srv_rpc_opts ro = {
        .listen = (const char *const *)cfg->listen,
        .nlisten = cfg->nlisten,
        .methods = srv_method_paths,
        .nmethods = SRV_NMETHODS,
        .handler = srv_service_handle,
        .ctx = eng,
        .socket_mode = (unsigned)cfg->socket_mode,
        .max_message_bytes = RPC_MAX_MESSAGE,
        .gated = srv_method_large,
        .max_reading = max_receiving(budget),
    };
    char msg[512];

    cuzk_err err = srv_rpc_start(rpc, &ro, msg, sizeof(msg));
    srv_sockets_record(socks, cfg);
    if (err != CUZK_OK) {
        srv_listen_diagnose(cfg, msg, sizeof(msg)); /* which address, and why */
        CZ_LOG(CZ_LOG_ERROR, "event=startup_failed error=\"%s\"", msg);
        return err;
    }
    for (size_t i = 0; i < cfg->nlisten; i++) {
        CZ_LOG(CZ_LOG_INFO, "event=listening addr=%s port=%d", cfg->listen[i],
               srv_rpc_port(*rpc, i));
    }
    CZ_LOG(CZ_LOG_INFO, "event=rpc_limits max_message_bytes=%zu max_receiving=%zu",
           ro.max_message_bytes, ro.max_reading);
    return CUZK_OK;
}

static void log_ready(eng_t *eng, const srv_config *cfg, const eng_config_t *ecfg)
{
    eng_status_info_t est;
    size_t ngpus = 0;

    if (eng_get_status(eng, &est, NULL) == CUZK_OK) {
        ngpus = est.n_gpus; /* the devices eng_start opened (each logged as event=opened) */
        eng_status_clear(&est);
    }
    CZ_LOG(CZ_LOG_INFO,
           "event=ready version=%s param_cache=%s budget_bytes=%llu gpus=%zu prover=%s config=%s",
           CUZK_VERSION_STRING, cfg->param_cache, (unsigned long long)ecfg->mem_budget_bytes, ngpus,
           ngpus ? "gpu" : "cpu", cfg->config_path ? cfg->config_path : "-");
}

int srv_main(int argc, char **argv, srv_register_fn extra, void *extra_ctx)
{
    sigset_t sigs;
    srv_config cfg;
    eng_config_t ecfg;
    eng_t *eng = NULL;
    srv_rpc *rpc = NULL;
    srv_sockets socks = {0};
    quit_watch qw;
    cz_diag dg;
    int status = 1;

    block_signals(&sigs);
    cz_diag_init(&dg);
    int rc = configure(&cfg, &ecfg, argc, argv, &dg);
    if (rc >= 0) {
        return rc;
    }
    quit_watch_init(&qw, &socks, &cfg);
    if (srv_listen_prepare(&cfg, &socks, &dg) != CUZK_OK ||
        start_engine(&eng, &cfg, &ecfg, extra, extra_ctx, &dg) != CUZK_OK) {
        CZ_LOG(CZ_LOG_ERROR, "event=startup_failed error=\"%s\"", dg.msg);
        goto out;
    }
    struct stat st;
    if (stat(cfg.param_cache, &st) != 0 || !S_ISDIR(st.st_mode)) {
        CZ_LOG(CZ_LOG_WARN, "param_cache=%s event=missing error=\"%s\"", cfg.param_cache,
               strerror(errno ? errno : ENOTDIR));
    }
    if (start_rpc(&rpc, &cfg, ecfg.mem_budget_bytes, eng, &socks) != CUZK_OK) {
        goto out;
    }
    log_ready(eng, &cfg, &ecfg);

    int sig = wait_for_stop(eng, &sigs);
    if (sig == SIGQUIT) {
        quit_watch_start(&qw);
    }
    sig = drain(eng, &sigs, &cfg, sig);
    if (sig == SIGQUIT) {
        quit_watch_start(&qw);
    }
    srv_rpc_shutdown(rpc, sig == SIGQUIT ? 0 : RPC_FINAL_GRACE_MS);
    status = 0;
out:
    eng_free(eng);
    srv_rpc_free(rpc);
    quit_watch_finish(&qw);
    srv_sockets_remove(&socks, &cfg);
    CZ_LOG(CZ_LOG_INFO, "event=stopped status=%d", status);
    srv_config_clear(&cfg);
    return status;
}
