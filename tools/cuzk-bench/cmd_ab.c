/* cmd_ab.c - cuzk-bench ab: the same workload under two daemon configurations.
 *
 * Two cuzkd processes are started side by side, one per --config file, each on a unix socket
 * in a fresh temporary directory, with --timing (one log line per stage, engine/timing.h) and
 * their stderr in a log file. After --warmup proofs on each (parameters loaded, caches warm),
 * --runs proofs per configuration are made in the order A B B A A B B A ... (alternating pairs
 * cancel a steady drift of the machine, e.g. heating, between A and B), one at a time, each a
 * Prove call with the same request. Per stage (from the daemons' timing lines, summed over
 * partitions) and for the total (AwaitProof's total_ms) and the client's round trip, it prints
 * the median, min and max of A and B, the difference of the medians and the run-to-run noise,
 * and whether the difference is significant (perf.h perf_compare: larger than the noise and
 * the two ranges apart; "not significant" otherwise). The memory monitor samples both daemons'
 * resident memory throughout (--memmon writes the samples). Exit 0 when every proof completed,
 * whatever the verdict; 2 on any failure, with the daemon's last log lines.
 *
 * Both daemons stay up together, so each holds its own copy of the parameters: memory for two.
 * Their memory.total_budget should say so (a config's own value is used as it is).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/alloc.h"
#include "perf.h"

static const char CMD[] = "ab";

#if defined(CUZK_BENCH_HAVE_RPC) && CUZK_BENCH_HAVE_RPC

#    include "cuzk/v1/proving.pb-c.h"
#    include "rpc_client.h"

#    define READY_TIMEOUT_MS 60000
#    define STOP_TIMEOUT_MS  30000

typedef struct daemon {
    char tag; /* 'A' or 'B' */
    const char *config;
    char sock[256], addr[272], log[1024];
    pid_t pid;
    cli_rpc *rpc;
} daemon_t;

/* ---- the daemons ---------------------------------------------------------------------------- */

static bool default_cuzkd(char *out, size_t cap)
{
    char self[1024];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) {
        return false;
    }
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (!slash) {
        return false;
    }
    *slash = '\0';
    int w = snprintf(out, cap, "%s/cuzkd", self);
    return w > 0 && (size_t)w < cap;
}

/* The last lines of a daemon's log, on stderr (after a failure). */
static void show_log_tail(const daemon_t *d)
{
    char buf[4096];
    FILE *f = fopen(d->log, "r");
    if (!f) {
        return;
    }
    fseek(f, 0, SEEK_END);
    long end = ftell(f);
    fseek(f, end > (long)sizeof(buf) - 1 ? end - (long)sizeof(buf) + 1 : 0, SEEK_SET);
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    buf[n] = '\0';
    fclose(f);
    fprintf(stderr, "---- last lines of %s (config %c) ----\n%s\n----\n", d->log, d->tag, buf);
}

static bool spawn(daemon_t *d, const char *cuzkd)
{
    int fd = open(d->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) {
        cli_error(CMD, "%s: %s", d->log, strerror(errno));
        return false;
    }
    /* argv is made before fork: the child only calls async-signal-safe functions */
    char *argv[] = {(char *)cuzkd,
                    (char *)"--config",
                    (char *)d->config,
                    (char *)"--listen",
                    d->addr,
                    (char *)"--timing",
                    NULL};
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(fd);
        cli_error(CMD, "fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM); /* never outlive cuzk-bench */
        if (getppid() != parent) {
            _exit(127);
        }
        dup2(fd, 1);
        dup2(fd, 2);
        execv(cuzkd, argv);
        _exit(127);
    }
    close(fd);
    d->pid = pid;
    return true;
}

static bool alive(daemon_t *d)
{
    int st;
    if (d->pid <= 0) {
        return false;
    }
    if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
        d->pid = -1;
        return false;
    }
    return true;
}

/* One unary call, waited for; returns the unpacked response or NULL (msg says why). */
static ProtobufCMessage *call(daemon_t *d, const char *method, const ProtobufCMessage *req,
                              const ProtobufCMessageDescriptor *desc, uint64_t timeout_ms,
                              char *msg, size_t cap)
{
    size_t len = protobuf_c_message_get_packed_size(req);
    uint8_t *buf = cz_malloc(len ? len : 1);
    ProtobufCMessage *resp = NULL;

    if (!buf) {
        snprintf(msg, cap, "out of memory");
        return NULL;
    }
    protobuf_c_message_pack(req, buf);
    cli_rpc_call *c = cli_rpc_start(d->rpc, method, buf, len, timeout_ms);
    cz_free(buf);
    if (!c) {
        snprintf(msg, cap, "out of memory");
        return NULL;
    }
    cli_rpc_wait_any(d->rpc, &c, 1, CLI_RPC_FOREVER);
    if (cli_rpc_code(c) != CLI_RPC_OK) {
        snprintf(msg, cap, "%s: %s", cli_rpc_code_name(cli_rpc_code(c)), cli_rpc_message(c));
    } else {
        const uint8_t *data = cli_rpc_response(c, &len);
        resp = protobuf_c_message_unpack(desc, NULL, len, data);
        if (!resp) {
            snprintf(msg, cap, "malformed response (%zu bytes)", len);
        }
    }
    cli_rpc_call_free(c);
    return resp;
}

static bool wait_ready(daemon_t *d)
{
    char err[256], msg[512] = "";
    double t0 = cli_now_ms();

    if (cli_rpc_open(&d->rpc, d->addr, err, sizeof(err)) != CUZK_OK) {
        cli_error(CMD, "%s: %s", d->addr, err);
        return false;
    }
    while (cli_now_ms() - t0 < READY_TIMEOUT_MS) {
        if (!alive(d)) {
            cli_error(CMD, "cuzkd with config %s (%c) exited during start-up", d->config, d->tag);
            show_log_tail(d);
            return false;
        }
        struct stat st;
        if (stat(d->sock, &st) == 0) {
            Cuzk__V1__GetStatusRequest req;
            cuzk__v1__get_status_request__init(&req);
            ProtobufCMessage *r =
                call(d, "/cuzk.v1.ProvingEngine/GetStatus", &req.base,
                     &cuzk__v1__get_status_response__descriptor, 2000, msg, sizeof(msg));
            if (r) {
                protobuf_c_message_free_unpacked(r, NULL);
                return true;
            }
        }
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    cli_error(CMD, "cuzkd with config %s (%c) did not answer within %d s%s%s", d->config, d->tag,
              READY_TIMEOUT_MS / 1000, msg[0] ? ": " : "", msg);
    show_log_tail(d);
    return false;
}

static void stop(daemon_t *d)
{
    cli_rpc_close(d->rpc);
    d->rpc = NULL;
    if (d->pid <= 0) {
        return;
    }
    kill(d->pid, SIGTERM);
    double t0 = cli_now_ms();
    for (;;) {
        int st;
        if (waitpid(d->pid, &st, WNOHANG) == d->pid) {
            break;
        }
        if (cli_now_ms() - t0 > STOP_TIMEOUT_MS) {
            kill(d->pid, SIGKILL);
            waitpid(d->pid, &st, 0);
            break;
        }
        struct timespec ts = {0, 20 * 1000000L};
        nanosleep(&ts, NULL);
    }
    d->pid = -1;
}

/* ---- the request ------------------------------------------------------------------------- */

typedef struct request {
    Cuzk__V1__SubmitProofRequest m;
    ProtobufCBinaryData *vps;
} request;

static bool request_init(request *q, const cli_vreq *r)
{
    Cuzk__V1__SubmitProofRequest *m = &q->m;

    memset(q, 0, sizeof(*q));
    cuzk__v1__submit_proof_request__init(m);
    m->proof_kind = (Cuzk__V1__ProofKind)r->kind;
    m->sector_size = r->sector_size;
    m->registered_proof = r->registered_proof;
    m->priority = CUZK__V1__PRIORITY__PRIORITY_UNSPECIFIED; /* the daemon's default per kind */
    m->miner_id = r->miner_id;
    m->sector_number = r->sector_number;
    if (r->kind == CLI_PROOF_POREP) {
        m->vanilla_proof.data = r->vanilla.data[0]; /* bare C1 JSON or Curio's wrapper */
        m->vanilla_proof.len = r->vanilla.len[0];
        return true;
    }
    q->vps = cz_calloc(r->vanilla.n, sizeof(*q->vps));
    if (!q->vps) {
        cli_error(CMD, "out of memory");
        return false;
    }
    for (size_t i = 0; i < r->vanilla.n; i++) {
        q->vps[i].data = r->vanilla.data[i];
        q->vps[i].len = r->vanilla.len[i];
    }
    m->vanilla_proofs = q->vps;
    m->n_vanilla_proofs = r->vanilla.n;
    if (r->kind == CLI_PROOF_SNAP) {
        m->comm_r_old = (ProtobufCBinaryData){32, (uint8_t *)r->comm_r_old};
        m->comm_r_new = (ProtobufCBinaryData){32, (uint8_t *)r->comm_r_new};
        m->comm_d_new = (ProtobufCBinaryData){32, (uint8_t *)r->comm_d_new};
    } else {
        m->randomness = (ProtobufCBinaryData){32, (uint8_t *)r->randomness};
        m->partition_index = (uint32_t)r->partition_index;
    }
    return true;
}

typedef struct run {
    char job[PERF_ID_MAX];
    int who; /* 0 = A, 1 = B */
    double total_ms, client_ms;
} run;

static bool prove(daemon_t *d, request *q, const char *id, uint64_t timeout_ms, run *out)
{
    Cuzk__V1__ProveRequest p;
    char msg[600];

    cuzk__v1__prove_request__init(&p);
    q->m.request_id = (char *)id;
    p.submit = &q->m;
    double t0 = cli_now_ms();
    ProtobufCMessage *r = call(d, "/cuzk.v1.ProvingEngine/Prove", &p.base,
                               &cuzk__v1__prove_response__descriptor, timeout_ms, msg, sizeof(msg));
    double t1 = cli_now_ms();
    q->m.request_id = (char *)protobuf_c_empty_string;
    if (!r) {
        cli_error(CMD, "Prove %s on %c: %s", id, d->tag, msg);
        show_log_tail(d);
        return false;
    }
    const Cuzk__V1__ProveResponse *pr = (const Cuzk__V1__ProveResponse *)r;
    const Cuzk__V1__AwaitProofResponse *res = pr->result;
    bool ok = res && res->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;
    if (!ok) {
        cli_error(CMD, "Prove %s on %c did not complete: %s", id, d->tag,
                  res && res->error_message[0] ? res->error_message : "no result");
        show_log_tail(d);
    } else {
        snprintf(out->job, sizeof(out->job), "%s", res->job_id);
        out->total_ms = (double)res->total_ms;
        out->client_ms = t1 - t0;
    }
    protobuf_c_message_free_unpacked(r, NULL);
    return ok;
}

/* ---- the report ------------------------------------------------------------------------- */

/* Three significant decimals for small values, fewer for large ones; `sign`: always signed. */
static void fmt_num(char *out, size_t cap, double v, bool sign)
{
    double m = fabs(v);
    int prec = m < 10 ? 3 : m < 1000 ? 2 : 1;
    if (sign) {
        snprintf(out, cap, "%+.*f", prec, v);
    } else {
        snprintf(out, cap, "%.*f", prec, v);
    }
}

static void print_row(const char *name, const double *a, const double *b, size_t n, perf_cmp *out)
{
    perf_cmp c;
    char am[24], amin[24], amax[24], bm[24], bmin[24], bmax[24], diff[24], noise[24];
    char ar[56], br[56];

    perf_compare(&c, a, n, b, n);
    fmt_num(am, sizeof(am), c.a.median, false);
    fmt_num(amin, sizeof(amin), c.a.min, false);
    fmt_num(amax, sizeof(amax), c.a.max, false);
    fmt_num(bm, sizeof(bm), c.b.median, false);
    fmt_num(bmin, sizeof(bmin), c.b.min, false);
    fmt_num(bmax, sizeof(bmax), c.b.max, false);
    fmt_num(diff, sizeof(diff), c.diff, true);
    fmt_num(noise, sizeof(noise), c.noise, false);
    snprintf(ar, sizeof(ar), "%s..%s", amin, amax);
    snprintf(br, sizeof(br), "%s..%s", bmin, bmax);
    printf("%-10s %10s %19s %10s %19s %10s %9s  %s\n", name, am, ar, bm, br, diff, noise,
           !c.enough       ? "too few runs"
           : c.significant ? (c.diff < 0 ? "SIGNIFICANT (B faster)" : "SIGNIFICANT (B slower)")
                           : "not significant");
    if (out) {
        *out = c;
    }
}

/* ---- the command ------------------------------------------------------------------------ */

/* What ab was asked to do. */
typedef struct ab_opts {
    const char *cfg[2], *cuzkd, *log_dir, *memmon;
    uint64_t runs, warmup, timeout_s;
    char cuzkd_buf[1024];
} ab_opts;

/* One comparison under way: the daemons, the request and the measured runs. */
typedef struct ab_state {
    char tmp[sizeof("/tmp/cuzk-ab-XXXXXX")]; /* the sockets (and logs without --log-dir) */
    bool have_tmp;
    daemon_t d[2];
    cli_vreq r;
    request q;
    run *rs; /* 2 * runs, in the order they were made */
    size_t nrs;
    perf_memmon *mm;
    perf_memmon_peak mp;
    perf_log logs[2]; /* each daemon's timing lines, read after it stopped */
} ab_state;

static const char AB_ABOUT[] =
    "Runs the same proof under two cuzkd configurations: --config A.toml --config B.toml.\n"
    "Both daemons are started here (temporary unix sockets, --timing, logs kept with\n"
    "--log-dir), warmed up, then given --runs proofs each, interleaved A B B A A B ...\n"
    "Prints per stage (from the daemons' timing lines) and for the total and the client's\n"
    "round trip: median, min..max of A and B, B - A, the run-to-run noise (the larger\n"
    "range) and whether the difference is significant (larger than the noise, ranges\n"
    "apart; at least 5 runs). The daemons' resident memory is sampled every 100 ms\n"
    "(--memmon FILE.csv keeps the samples). The request options are those of `single`.";

/* cli_parse over the request options and ab's own; -1 when the command is to run. */
static int ab_parse(ab_opts *o, cli_vreq_flags *f)
{
    cli_opt_t opts[32];
    const char *config_help = NULL; /* --config is taken out of argv first (cmd_ab) */
    size_t n = cli_vreq_opts(opts, f);

    opts[n++] = (cli_opt_t)CLI_OPT("config", CLI_STR, &config_help, "FILE",
                                   "cuzkd config of A, then of B (give it twice)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("runs", CLI_U64, &o->runs, "N",
                                   "measured proofs per configuration (default 5)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("warmup", CLI_U64, &o->warmup, "N",
                                   "unmeasured proofs per configuration first (default 1)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("cuzkd", CLI_STR, &o->cuzkd, "PATH",
                                   "the daemon (default: cuzkd beside cuzk-bench)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("log-dir", CLI_STR, &o->log_dir, "DIR",
                                   "keep the daemons' logs as DIR/a.log and DIR/b.log", false);
    opts[n++] = (cli_opt_t)CLI_OPT("memmon", CLI_STR, &o->memmon, "FILE.csv",
                                   "write the memory samples of both daemons", false);
    opts[n++] = (cli_opt_t)CLI_OPT("timeout", CLI_U64, &o->timeout_s, "SECONDS",
                                   "deadline of each proof (default: none)", false);
    return cli_parse(CMD, AB_ABOUT, opts, n, f->argc, f->argv);
}

/* Both configs readable, sane counts, and a runnable cuzkd (o->cuzkd set). */
static bool ab_check_opts(ab_opts *o)
{
    if (!o->cfg[0] || !o->cfg[1]) {
        cli_error(CMD, "give --config twice: A's file, then B's");
        return false;
    }
    if (o->runs < 1 || o->runs > 10000 || o->warmup > 1000) {
        cli_error(CMD, "--runs must be 1 .. 10000 and --warmup at most 1000");
        return false;
    }
    if (!o->cuzkd) {
        if (!default_cuzkd(o->cuzkd_buf, sizeof(o->cuzkd_buf))) {
            cli_error(CMD, "cannot find cuzkd; give --cuzkd PATH");
            return false;
        }
        o->cuzkd = o->cuzkd_buf;
    }
    if (access(o->cuzkd, X_OK) != 0) {
        cli_error(CMD, "%s: %s (give --cuzkd PATH)", o->cuzkd, strerror(errno));
        return false;
    }
    for (int i = 0; i < 2; i++) {
        if (access(o->cfg[i], R_OK) != 0) {
            cli_error(CMD, "--config %s: %s", o->cfg[i], strerror(errno));
            return false;
        }
    }
    return true;
}

/* The temporary directory, --log-dir, and each daemon's socket and log path. */
static bool ab_make_paths(ab_state *st, const ab_opts *o)
{
    if (!mkdtemp(st->tmp)) {
        cli_error(CMD, "mkdtemp: %s", strerror(errno));
        return false;
    }
    st->have_tmp = true;
    if (o->log_dir && mkdir(o->log_dir, 0755) != 0 && errno != EEXIST) {
        cli_error(CMD, "--log-dir %s: %s", o->log_dir, strerror(errno));
        return false;
    }
    for (int i = 0; i < 2; i++) {
        daemon_t *d = &st->d[i];
        char sock[sizeof(d->sock)];
        d->tag = (char)('A' + i);
        d->config = o->cfg[i];
        d->pid = -1;
        int w1 = snprintf(sock, sizeof(sock), "%s/%c.sock", st->tmp, 'a' + i);
        int w2 = snprintf(d->addr, sizeof(d->addr), "unix://%s", sock);
        int w3 = snprintf(d->log, sizeof(d->log), "%s/%c.log", o->log_dir ? o->log_dir : st->tmp,
                          'a' + i);
        memcpy(d->sock, sock, sizeof(sock));
        if (w1 < 0 || w2 < 0 || w3 < 0 || (size_t)w3 >= sizeof(d->log)) {
            cli_error(CMD, "--log-dir: path too long");
            return false;
        }
    }
    return true;
}

/* Starts both daemons, waits until each answers, then starts the memory monitor. */
static bool ab_start(ab_state *st, const ab_opts *o)
{
    for (int i = 0; i < 2; i++) {
        if (!spawn(&st->d[i], o->cuzkd)) {
            return false;
        }
    }
    for (int i = 0; i < 2; i++) {
        if (!wait_ready(&st->d[i])) {
            return false;
        }
    }
    perf_memmon_src src[2] = {{"a_rss", st->d[0].pid}, {"b_rss", st->d[1].pid}};
    return perf_memmon_start(&st->mm, CMD, o->memmon, src, 2, false);
}

/* --warmup unmeasured proofs on A, then B, each round. */
static bool ab_warm_up(ab_state *st, const ab_opts *o)
{
    char id[PERF_ID_MAX];
    run scratch;

    for (uint64_t w = 0; w < o->warmup; w++) {
        for (int i = 0; i < 2; i++) {
            snprintf(id, sizeof(id), "ab-warmup-%c-%ld-%" PRIu64, 'a' + i, (long)getpid(), w);
            fprintf(stderr, "cuzk-bench ab: warm-up %c %" PRIu64 "/%" PRIu64 "\n", 'A' + i, w + 1,
                    o->warmup);
            if (!prove(&st->d[i], &st->q, id, o->timeout_s * 1000, &scratch)) {
                return false;
            }
        }
    }
    return true;
}

/* --runs measured proofs per configuration in the order A B B A A B ...: the alternating
 * pairs cancel a steady drift of the machine. */
static bool ab_measure(ab_state *st, const ab_opts *o)
{
    char id[PERF_ID_MAX];

    st->rs = cz_calloc((size_t)o->runs * 2, sizeof(*st->rs));
    if (!st->rs) {
        cli_error(CMD, "out of memory");
        return false;
    }
    for (uint64_t i = 0; i < o->runs; i++) {
        for (int s = 0; s < 2; s++) {
            int who = (i % 2 == 0) ? s : 1 - s; /* A B, B A, A B, ... */
            snprintf(id, sizeof(id), "ab-%c-%ld-%" PRIu64, 'a' + who, (long)getpid(), i);
            fprintf(stderr, "cuzk-bench ab: run %" PRIu64 "/%" PRIu64 " %c\n", i + 1, o->runs,
                    'A' + who);
            st->rs[st->nrs].who = who;
            if (!prove(&st->d[who], &st->q, id, o->timeout_s * 1000, &st->rs[st->nrs])) {
                return false;
            }
            st->nrs++;
        }
    }
    return true;
}

/* Stops the monitor (keeping the peaks) and the daemons, then reads their timing logs. */
static bool ab_stop(ab_state *st)
{
    perf_memmon_stop(st->mm, &st->mp);
    st->mm = NULL;
    for (int i = 0; i < 2; i++) {
        stop(&st->d[i]); /* flushes and closes the logs */
    }
    for (int i = 0; i < 2; i++) {
        if (!perf_log_load(CMD, st->d[i].log, &st->logs[i])) {
            return false;
        }
    }
    return true;
}

/* v[k] (one value per run, in run order) into A's values va and B's values vb. */
static void split_ab(const ab_state *st, const double *v, double *va, double *vb)
{
    for (size_t k = 0, ia = 0, ib = 0; k < st->nrs; k++) {
        if (st->rs[k].who == 0) {
            va[ia++] = v[k];
        } else {
            vb[ib++] = v[k];
        }
    }
}

static bool log_has_stage(const perf_log *lg, const char *job, const char *stage)
{
    for (size_t e = 0; e < lg->nst; e++) {
        if (strcmp(lg->st[e].job, job) == 0 && strcmp(lg->st[e].stage, stage) == 0) {
            return true;
        }
    }
    return false;
}

/* One row per stage that some run logged (summed over partitions). */
static void print_stages(const ab_state *st, double *v, double *va, double *vb, size_t n)
{
    size_t missing = 0;

    printf("\n%-10s %10s %19s %10s %19s %10s %9s  %s\n", "stage_ms", "A median", "A min..max",
           "B median", "B min..max", "B-A", "noise", "verdict");
    for (size_t s = 0; s < perf_stage_norder; s++) {
        const char *stage = perf_stage_order[s];
        size_t seen = 0;
        for (size_t k = 0; k < st->nrs; k++) {
            const perf_log *lg = &st->logs[st->rs[k].who];
            v[k] = perf_log_stage_sum(lg, st->rs[k].job, stage);
            seen += log_has_stage(lg, st->rs[k].job, stage);
        }
        if (seen == 0) {
            missing++;
            continue; /* e.g. srs_load after the warm-up */
        }
        split_ab(st, v, va, vb);
        print_row(stage, va, vb, n, NULL);
    }
    if (missing == perf_stage_norder) {
        fprintf(stderr, "cuzk-bench ab: warning: no timing lines in the daemons' logs\n");
    }
}

/* The rows of the daemon's total and of the client's round trip; *total compares the former. */
static void print_totals(const ab_state *st, double *v, double *va, double *vb, size_t n,
                         perf_cmp *total)
{
    for (int pass = 0; pass < 2; pass++) {
        for (size_t k = 0; k < st->nrs; k++) {
            v[k] = pass == 0 ? st->rs[k].total_ms : st->rs[k].client_ms;
        }
        split_ab(st, v, va, vb);
        print_row(pass == 0 ? "total" : "client", va, vb, n, pass == 0 ? total : NULL);
    }
}

static void print_verdict(const perf_memmon_peak *mp, const perf_cmp *tc)
{
    char a[32], b[32];

    perf_human_bytes(a, sizeof(a), mp->rss[0]);
    perf_human_bytes(b, sizeof(b), mp->rss[1]);
    printf("\nmemory A peak_rss_bytes=%" PRIu64 " (%s)  B peak_rss_bytes=%" PRIu64
           " (%s)  samples=%zu\n",
           mp->rss[0], a, mp->rss[1], b, mp->samples);
    if (!tc->enough) {
        printf("verdict: too few runs to judge (at least %d per configuration)\n", PERF_MIN_RUNS);
    } else if (tc->significant) {
        printf("verdict: B is %s than A: total %+.1f ms (%+.1f%%), noise %.1f ms\n",
               tc->diff < 0 ? "faster" : "slower", tc->diff,
               tc->a.median > 0 ? 100 * tc->diff / tc->a.median : 0.0, tc->noise);
    } else {
        printf("verdict: no significant difference in total time: %+.1f ms, noise %.1f ms\n",
               tc->diff, tc->noise);
    }
}

static bool ab_report(const ab_state *st, const ab_opts *o)
{
    size_t n = (size_t)o->runs;
    double *v = cz_calloc(st->nrs, sizeof(double));
    double *va = cz_calloc(n, sizeof(double)), *vb = cz_calloc(n, sizeof(double));
    perf_cmp total;

    if (!v || !va || !vb) {
        cz_free(v);
        cz_free(va);
        cz_free(vb);
        cli_error(CMD, "out of memory");
        return false;
    }
    print_stages(st, v, va, vb, n);
    print_totals(st, v, va, vb, n, &total);
    cz_free(v);
    cz_free(va);
    cz_free(vb);
    print_verdict(&st->mp, &total);
    if (o->log_dir) {
        printf("logs: %s %s\n", st->d[0].log, st->d[1].log);
    }
    return true;
}

static bool ab_run(ab_state *st, ab_opts *o, const cli_vreq_flags *f)
{
    if (!ab_check_opts(o) || !cli_vreq_load(CMD, f, true, &st->r) ||
        !request_init(&st->q, &st->r) || !ab_make_paths(st, o)) {
        return false;
    }
    printf("ab A=%s B=%s kind=%s runs=%" PRIu64 " warmup=%" PRIu64 " order=ABBA cuzkd=%s\n",
           o->cfg[0], o->cfg[1], cli_proof_name(st->r.kind), o->runs, o->warmup, o->cuzkd);
    fflush(stdout);
    return ab_start(st, o) && ab_warm_up(st, o) && ab_measure(st, o) && ab_stop(st) &&
           ab_report(st, o);
}

/* Stops what still runs and removes the temporary files (the logs stay with --log-dir). */
static void ab_cleanup(ab_state *st, const ab_opts *o)
{
    perf_memmon_stop(st->mm, NULL);
    for (int i = 0; i < 2; i++) {
        stop(&st->d[i]);
        perf_log_clear(&st->logs[i]);
        if (st->have_tmp) {
            unlink(st->d[i].sock);
            if (!o->log_dir) {
                unlink(st->d[i].log);
            }
        }
    }
    if (st->have_tmp) {
        rmdir(st->tmp);
    }
    cz_free(st->rs);
    cz_free(st->q.vps);
    cli_vreq_clear(&st->r);
}

static int ab_main(int argc, char **argv, const char *cfg[2])
{
    cli_vreq_flags f;
    ab_opts o = {.cfg = {cfg[0], cfg[1]}, .runs = 5, .warmup = 1};
    ab_state st;
    int rc = cli_vreq_flags_init(&f, CMD, argc, argv);

    if (rc >= 0) {
        return rc;
    }
    memset(&st, 0, sizeof(st));
    memcpy(st.tmp, "/tmp/cuzk-ab-XXXXXX", sizeof(st.tmp));
    rc = ab_parse(&o, &f);
    if (rc < 0) {
        rc = ab_run(&st, &o, &f) ? CLI_EXIT_OK : CLI_EXIT_ERROR;
    }
    ab_cleanup(&st, &o);
    cli_vreq_flags_clear(&f);
    return rc;
}

int cmd_ab(int argc, char **argv)
{
    const char *cfg[2] = {NULL, NULL};
    size_t ncfg = 0;
    char **rest = cz_calloc((size_t)argc + 1, sizeof(char *));
    int nrest = 0, rc;

    if (!rest) {
        return cli_error(CMD, "out of memory");
    }
    /* --config is given twice: take both out before the common parser sees them */
    for (int i = 0; i < argc; i++) {
        if (i > 0 && strcmp(argv[i], "--config") == 0 && i + 1 < argc) {
            if (ncfg == 2) {
                cz_free(rest);
                return cli_error(CMD, "--config given more than twice");
            }
            cfg[ncfg++] = argv[++i];
            continue;
        }
        rest[nrest++] = argv[i];
    }
    rc = ab_main(nrest, rest, cfg);
    cz_free(rest);
    return rc;
}

#else /* no gRPC in this build */

int cmd_ab(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_error(CMD, "this cuzk-bench was built without the daemon client (CUZK_SERVER=OFF)");
}

#endif
