/* cmd_client.c - cuzk-bench commands that talk to a running cuzkd over its gRPC API
 * (cuzk.v1.ProvingEngine, spec vanilla-proofs.md 4): single (Prove, with a per-stage timing
 * table), batch (N concurrent SubmitProof + AwaitProof, then min/median/max per stage), stress
 * (a bounded number of Prove calls at a given concurrency for a bounded time), status
 * (GetStatus), preload / evict (PreloadSRS / EvictSRS) and metrics (GetMetrics).
 *
 * Requests mirror what Curio sends for each kind (spec 4.4): porep sends the C1 output in
 * Curio's wrapper {"SectorNum","Phase1Out" (base64),"SectorSize"} as vanilla_proof with
 * sector_number and miner_id; snap sends one vanilla_proofs entry per partition with the three
 * commitments, sector_number and miner_id; window-post one entry per sector with randomness,
 * partition_index and miner_id; winning-post exactly one entry with randomness and miner_id.
 * Priorities default to Curio's (porep, snap NORMAL; window-post HIGH; winning-post CRITICAL).
 * Request ids follow Curio's patterns with a suffix unique to this run, so that resubmitting
 * never picks up an earlier job (the daemon treats request_id as an idempotency key).
 *
 * Every failure - a gRPC error, a proof that did not complete (e.g. FAILED "proof kind X is
 * not available in this build"), a malformed response - prints one error line naming the
 * method and exits 2. Progress goes to stderr, results to stdout.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "common/alloc.h"
#include "common/bytes.h"
#include "proofs/proofs.h"

#define DEFAULT_ADDR "127.0.0.1:9820"

#if defined(CUZK_BENCH_HAVE_RPC) && CUZK_BENCH_HAVE_RPC

#    include "cuzk/v1/proving.pb-c.h"
#    include "rpc_client.h"

#    define METHOD(name) ("/cuzk.v1.ProvingEngine/" name)
#    define PROGRESS_MS  5000

/* ---- helpers ------------------------------------------------------------------------------- */

static bool open_rpc(const char *cmd, const char *addr, cli_rpc **out)
{
    char err[256];
    if (cli_rpc_open(out, addr, err, sizeof(err)) != CUZK_OK) {
        cli_error(cmd, "--addr: %s", err);
        return false;
    }
    return true;
}

/* One error line for a call that did not return OK. */
static void rpc_error(const char *cmd, const char *method, const cli_rpc_call *call,
                      const char *addr)
{
    int code = cli_rpc_code(call);
    cli_error(cmd, "%s: %s: %s%s%s%s", method, cli_rpc_code_name(code), cli_rpc_message(call),
              code == CLI_RPC_UNAVAILABLE ? " (is cuzkd listening at " : "",
              code == CLI_RPC_UNAVAILABLE ? addr : "", code == CLI_RPC_UNAVAILABLE ? "?)" : "");
}

/* Packs `req` (a cz_malloc'ed buffer in *out). */
static bool pack(const char *cmd, const ProtobufCMessage *req, uint8_t **out, size_t *len)
{
    *len = protobuf_c_message_get_packed_size(req);
    *out = cz_malloc(*len ? *len : 1);
    if (!*out) {
        cli_error(cmd, "out of memory (%zu-byte request)", *len);
        return false;
    }
    protobuf_c_message_pack(req, *out);
    return true;
}

/* One unary call, waited for (with a progress line every PROGRESS_MS when `progress`).
 * Returns the unpacked response (free with protobuf_c_message_free_unpacked) or NULL after
 * an error line. */
static ProtobufCMessage *unary(const char *cmd, cli_rpc *rpc, const char *addr, const char *name,
                               const ProtobufCMessage *req, uint64_t timeout_ms,
                               const ProtobufCMessageDescriptor *desc, bool progress)
{
    char method[96];
    uint8_t *buf;
    size_t len;
    cli_rpc_call *call;
    ProtobufCMessage *resp = NULL;
    double t0 = cli_now_ms();

    snprintf(method, sizeof(method), "/cuzk.v1.ProvingEngine/%s", name);
    if (!pack(cmd, req, &buf, &len)) {
        return NULL;
    }
    call = cli_rpc_start(rpc, method, buf, len, timeout_ms);
    cz_free(buf);
    if (!call) {
        cli_error(cmd, "out of memory");
        return NULL;
    }
    while (cli_rpc_wait_any(rpc, &call, 1, progress ? PROGRESS_MS : CLI_RPC_FOREVER) < 0) {
        fprintf(stderr, "cuzk-bench %s: waiting for %s: %.0f s\n", cmd, name,
                (cli_now_ms() - t0) / 1e3);
    }
    if (cli_rpc_code(call) != CLI_RPC_OK) {
        rpc_error(cmd, name, call, addr);
    } else {
        const uint8_t *data = cli_rpc_response(call, &len);
        resp = protobuf_c_message_unpack(desc, NULL, len, data);
        if (!resp) {
            cli_error(cmd, "%s: malformed response (%zu bytes)", name, len);
        }
    }
    cli_rpc_call_free(call);
    return resp;
}

/* Writes s as a JSON string. */
static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            fprintf(f, "\\%c", c);
        } else if (c < 0x20) {
            fprintf(f, "\\u%04x", c);
        } else {
            fputc(c, f);
        }
    }
    fputc('"', f);
}

static void human_bytes(char *out, size_t cap, uint64_t n)
{
    static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < ARRAY_LEN(units)) {
        v /= 1024;
        u++;
    }
    if (u == 0) {
        snprintf(out, cap, "%" PRIu64 " B", n);
    } else {
        snprintf(out, cap, "%.1f %s", v, units[u]);
    }
}

static const char *await_status_name(int s)
{
    static const char *const names[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED", "TIMEOUT"};
    return s >= 0 && (size_t)s < ARRAY_LEN(names) ? names[s] : "UNKNOWN";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* min, median (upper middle for even counts) and max of v[0..n) (sorted in place). */
static void stats3(double *v, size_t n, double out[3])
{
    if (n == 0) {
        out[0] = out[1] = out[2] = 0;
        return;
    }
    qsort(v, n, sizeof(double), cmp_double);
    out[0] = v[0];
    out[1] = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
    out[2] = v[n - 1];
}

/* ---- building requests ------------------------------------------------------------------- */

static bool parse_priority(const char *cmd, const char *text, int *out)
{
    static const char *const names[] = {"unspecified", "low", "normal", "high", "critical"};
    for (size_t i = 0; i < ARRAY_LEN(names); i++) {
        if (strcmp(text, names[i]) == 0 || (text[0] == (char)('0' + i) && text[1] == '\0')) {
            *out = (int)i;
            return true;
        }
    }
    cli_error(cmd, "--priority '%s': low, normal, high, critical (or 0..4)", text);
    return false;
}

/* The engine's numbering of kinds and priorities is cuzk.v1's. */
_Static_assert((int)CLI_PROOF_POREP == (int)ENG_KIND_POREP, "kind");
_Static_assert((int)CLI_PROOF_SNAP == (int)ENG_KIND_SNAP, "kind");
_Static_assert((int)CLI_PROOF_WINDOW_POST == (int)ENG_KIND_WINDOW_POST, "kind");
_Static_assert((int)CLI_PROOF_WINNING_POST == (int)ENG_KIND_WINNING_POST, "kind");
_Static_assert((int)CUZK__V1__PRIORITY__NORMAL == (int)ENG_PRIO_NORMAL, "priority");
_Static_assert((int)CUZK__V1__PRIORITY__HIGH == (int)ENG_PRIO_HIGH, "priority");
_Static_assert((int)CUZK__V1__PRIORITY__CRITICAL == (int)ENG_PRIO_CRITICAL, "priority");

/* A request id after Curio's pattern, unique to this process and `seq`. */
static void make_request_id(char *out, size_t cap, const char *given, const cli_vreq *r, size_t seq,
                            bool numbered)
{
    char base[96];
    struct timespec ts;
    uint64_t uniq;

    if (given && !numbered) {
        snprintf(out, cap, "%s", given);
        return;
    }
    if (given) {
        snprintf(out, cap, "%s-%zu", given, seq);
        return;
    }
    switch (r->kind) {
    case CLI_PROOF_POREP:
        snprintf(base, sizeof(base), "porep-%" PRIu64 "-%" PRIu64, r->miner_id, r->sector_number);
        break;
    case CLI_PROOF_SNAP:
        snprintf(base, sizeof(base), "snap-%" PRIu64 "-%" PRIu64, r->miner_id, r->sector_number);
        break;
    case CLI_PROOF_WINDOW_POST:
        snprintf(base, sizeof(base), "wdpost-%" PRIu64 "-%" PRIu64 "-%02x%02x%02x%02x", r->miner_id,
                 r->partition_index, r->randomness[0], r->randomness[1], r->randomness[2],
                 r->randomness[3]);
        break;
    default:
        snprintf(base, sizeof(base), "winpost-%" PRIu64 "-%02x%02x%02x%02x", r->miner_id,
                 r->randomness[0], r->randomness[1], r->randomness[2], r->randomness[3]);
        break;
    }
    clock_gettime(CLOCK_REALTIME, &ts);
    uniq =
        ((uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000) ^ ((uint64_t)getpid() << 40);
    snprintf(out, cap, "%s-cb%" PRIx64 "-%zu", base, uniq, seq);
}

/* What every request of a run shares: the SubmitProofRequest without its request_id, over
 * storage that lives as long as this object. */
typedef struct req_template {
    Cuzk__V1__SubmitProofRequest m;
    ProtobufCBinaryData *vps;
    char *wrapper; /* porep: the Curio wrapper JSON, when we built it */
} req_template;

static void template_clear(req_template *t)
{
    cz_free(t->vps);
    cz_free(t->wrapper);
    memset(t, 0, sizeof(*t));
}

static bool template_init(const char *cmd, req_template *t, const cli_vreq *r, int priority)
{
    Cuzk__V1__SubmitProofRequest *m = &t->m;

    memset(t, 0, sizeof(*t));
    cuzk__v1__submit_proof_request__init(m);
    m->proof_kind = (Cuzk__V1__ProofKind)r->kind;
    m->sector_size = r->sector_size;
    m->registered_proof = r->registered_proof;
    /* unless given, Curio's priority of the kind (spec 4.4), as the daemon's default */
    m->priority =
        (Cuzk__V1__Priority)(priority >= 0 ? priority : (int)eng_default_prio((eng_kind)r->kind));
    m->miner_id = r->miner_id;
    switch (r->kind) {
    case CLI_PROOF_POREP: {
        const uint8_t *c1 = r->vanilla.data[0];
        size_t len = r->vanilla.len[0];
        m->sector_number = r->sector_number;
        if (vp_c1_json_is_curio((const char *)c1, len)) {
            m->vanilla_proof.data = (uint8_t *)c1; /* already Curio's wrapper */
            m->vanilla_proof.len = len;
        } else {
            size_t wl;
            cz_diag dg;
            cz_diag_init(&dg);
            if (vp_c1_json_to_curio((const char *)c1, len, r->sector_number, r->sector_size,
                                    &t->wrapper, &wl, &dg) != CUZK_OK) {
                cli_error(cmd, "out of memory");
                return false;
            }
            m->vanilla_proof.data = (uint8_t *)t->wrapper;
            m->vanilla_proof.len = wl;
        }
        break;
    }
    case CLI_PROOF_SNAP:
    case CLI_PROOF_WINDOW_POST:
    case CLI_PROOF_WINNING_POST:
        t->vps = cz_calloc(r->vanilla.n, sizeof(*t->vps));
        if (!t->vps) {
            cli_error(cmd, "out of memory");
            return false;
        }
        for (size_t i = 0; i < r->vanilla.n; i++) {
            t->vps[i].data = r->vanilla.data[i];
            t->vps[i].len = r->vanilla.len[i];
        }
        m->vanilla_proofs = t->vps;
        m->n_vanilla_proofs = r->vanilla.n;
        if (r->kind == CLI_PROOF_SNAP) {
            m->sector_number = r->sector_number;
            m->comm_r_old.data = (uint8_t *)r->comm_r_old;
            m->comm_r_old.len = 32;
            m->comm_r_new.data = (uint8_t *)r->comm_r_new;
            m->comm_r_new.len = 32;
            m->comm_d_new.data = (uint8_t *)r->comm_d_new;
            m->comm_d_new.len = 32;
        } else {
            m->randomness.data = (uint8_t *)r->randomness;
            m->randomness.len = 32;
            if (r->kind == CLI_PROOF_WINDOW_POST) {
                m->partition_index = (uint32_t)r->partition_index;
            }
        }
        break;
    default:
        return false;
    }
    return true;
}

/* Packs the Prove (wrap true) or SubmitProof request for request id `id`. */
static bool pack_request(const char *cmd, req_template *t, const char *id, bool wrap, uint8_t **out,
                         size_t *len)
{
    bool ok;

    t->m.request_id = (char *)id;
    if (wrap) {
        Cuzk__V1__ProveRequest p;
        cuzk__v1__prove_request__init(&p);
        p.submit = &t->m;
        ok = pack(cmd, &p.base, out, len);
    } else {
        ok = pack(cmd, &t->m.base, out, len);
    }
    t->m.request_id = (char *)protobuf_c_empty_string;
    return ok;
}

/* Options and state shared by single, batch and stress. */
typedef struct prove_cmd {
    cli_vreq_flags f;
    const char *addr, *priority, *request_id;
    uint64_t timeout_s;
    cli_vreq r;
    req_template t;
    cli_rpc *rpc;
    int prio;
} prove_cmd;

/* Parses the shared and the command's own options (extra, nextra), loads the request and
 * opens the channel. Returns -1 to go on, else the exit code. */
static int prove_cmd_init(prove_cmd *pc, const char *cmd, const char *about, const cli_opt_t *extra,
                          size_t nextra, int argc, char **argv)
{
    cli_opt_t opts[32];
    size_t n;
    int rc;

    memset(pc, 0, sizeof(*pc));
    pc->addr = DEFAULT_ADDR;
    pc->prio = -1;
    rc = cli_vreq_flags_init(&pc->f, cmd, argc, argv);
    if (rc >= 0) {
        return rc;
    }
    n = cli_vreq_opts(opts, &pc->f);
    opts[n++] = (cli_opt_t)CLI_OPT("addr", CLI_STR, &pc->addr, "ADDR",
                                   "cuzkd address: unix:///path or host:port (default "
                                   "127.0.0.1:9820)",
                                   false);
    opts[n++] =
        (cli_opt_t)CLI_OPT("priority", CLI_STR, &pc->priority, "P",
                           "low | normal | high | critical (default: Curio's per kind)", false);
    opts[n++] = (cli_opt_t)CLI_OPT("request-id", CLI_STR, &pc->request_id, "ID",
                                   "request id (batch, stress: a prefix; default: Curio's "
                                   "pattern with a unique suffix)",
                                   false);
    opts[n++] = (cli_opt_t)CLI_OPT("timeout", CLI_U64, &pc->timeout_s, "SECONDS",
                                   "deadline of each call (default: none)", false);
    CZ_CHECK(n + nextra <= ARRAY_LEN(opts));
    memcpy(opts + n, extra, nextra * sizeof(*extra));
    rc = cli_parse(cmd, about, opts, n + nextra, pc->f.argc, pc->f.argv);
    if (rc >= 0) {
        return rc;
    }
    if (pc->priority && !parse_priority(cmd, pc->priority, &pc->prio)) {
        return CLI_EXIT_ERROR;
    }
    if (!cli_vreq_load(cmd, &pc->f, true, &pc->r)) {
        return CLI_EXIT_ERROR;
    }
    if (!template_init(cmd, &pc->t, &pc->r, pc->prio)) {
        return CLI_EXIT_ERROR;
    }
    if (!open_rpc(cmd, pc->addr, &pc->rpc)) {
        return CLI_EXIT_ERROR;
    }
    return -1;
}

static void prove_cmd_clear(prove_cmd *pc)
{
    cli_rpc_close(pc->rpc);
    template_clear(&pc->t);
    cli_vreq_clear(&pc->r);
    cli_vreq_flags_clear(&pc->f);
}

/* The five timings of a result, in the order printed. */
static void timings_of(const Cuzk__V1__AwaitProofResponse *res, double out[5])
{
    out[0] = (double)res->queue_wait_ms;
    out[1] = (double)res->srs_load_ms;
    out[2] = (double)res->synthesis_ms;
    out[3] = (double)res->gpu_compute_ms;
    out[4] = (double)res->total_ms;
}

static const char *const STAGES[] = {"queue", "srs load", "synthesis", "prove (gpu)", "total"};

/* ---- single ------------------------------------------------------------------------------ */

int cmd_single(int argc, char **argv)
{
    static const char CMD[] = "single";
    static const char about[] =
        "Sends one proof request (Prove) to cuzkd, waits for it and prints the daemon's\n"
        "per-stage timings (queue, SRS load, synthesis, GPU/prove, total) and the client's\n"
        "round trip. Request fields come from FILE.json beside the first vanilla file\n"
        "(gen-vanilla writes it) unless given as flags. With --vk the proof is checked here\n"
        "too, with public inputs derived from the vanilla proofs. Exit 0 iff the proof\n"
        "completed (and verified); 2 otherwise, with the reason.";
    prove_cmd pc;
    const char *out = NULL, *vk = NULL;
    bool json = false;
    const cli_opt_t extra[] = {
        CLI_OPT("out", CLI_STR, &out, "FILE", "write the proof bytes to FILE", false),
        CLI_OPT("vk", CLI_STR, &vk, "FILE", "verify the proof with this verifying key", false),
        CLI_OPT("json", CLI_FLAG, &json, NULL, "print the result as one JSON line", false),
    };
    Cuzk__V1__ProveResponse *resp = NULL;
    const Cuzk__V1__AwaitProofResponse *res;
    cli_rpc_call *call = NULL;
    uint8_t *buf = NULL;
    size_t len;
    char id[128];
    double t0, client_ms;
    int rc = prove_cmd_init(&pc, CMD, about, extra, ARRAY_LEN(extra), argc, argv);

    if (rc >= 0) {
        prove_cmd_clear(&pc);
        return rc;
    }
    rc = CLI_EXIT_ERROR;
    make_request_id(id, sizeof(id), pc.request_id, &pc.r, 0, false);
    if (!pack_request(CMD, &pc.t, id, true, &buf, &len)) {
        goto done;
    }
    fprintf(stderr,
            "cuzk-bench %s: Prove request_id=%s kind=%s registered_proof=%" PRIu64
            " sector_size=%" PRIu64 " vanilla_proofs=%zu request_bytes=%zu\n",
            CMD, id, cli_proof_name(pc.r.kind), pc.r.registered_proof, pc.r.sector_size,
            pc.r.vanilla.n, len);
    t0 = cli_now_ms();
    call = cli_rpc_start(pc.rpc, METHOD("Prove"), buf, len, pc.timeout_s * 1000);
    cz_free(buf);
    if (!call) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    while (cli_rpc_wait_any(pc.rpc, &call, 1, PROGRESS_MS) < 0) {
        fprintf(stderr, "cuzk-bench %s: waiting for the proof: %.0f s\n", CMD,
                (cli_now_ms() - t0) / 1e3);
    }
    client_ms = cli_now_ms() - t0;
    if (cli_rpc_code(call) != CLI_RPC_OK) {
        rpc_error(CMD, "Prove", call, pc.addr);
        goto done;
    }
    {
        const uint8_t *data = cli_rpc_response(call, &len);
        resp = cuzk__v1__prove_response__unpack(NULL, len, data);
    }
    if (!resp || !resp->result) {
        cli_error(CMD, "Prove: malformed response (%zu bytes%s)", len, resp ? ", no result" : "");
        goto done;
    }
    res = resp->result;
    if (json) {
        printf("{\"request_id\":");
        json_str(stdout, id);
        printf(",\"job_id\":");
        json_str(stdout, res->job_id);
        printf(",\"status\":\"%s\",\"error\":", await_status_name(res->status));
        json_str(stdout, res->error_message);
        printf(",\"proof_bytes\":%zu,\"queue_wait_ms\":%" PRIu64 ",\"srs_load_ms\":%" PRIu64
               ",\"synthesis_ms\":%" PRIu64 ",\"gpu_compute_ms\":%" PRIu64 ",\"total_ms\":%" PRIu64
               ",\"client_ms\":%.1f,\"h2d_bytes\":%" PRIu64 "}\n",
               res->proof.len, res->queue_wait_ms, res->srs_load_ms, res->synthesis_ms,
               res->gpu_compute_ms, res->total_ms, client_ms, res->h2d_bytes);
    } else {
        double tm[5];
        timings_of(res, tm);
        printf("status     %s\njob_id     %s\nproof      %zu bytes", await_status_name(res->status),
               res->job_id, res->proof.len);
        if (res->proof.len && res->proof.len % 192 == 0) {
            printf(" (%zu x 192)", res->proof.len / 192);
        }
        printf("\n\n%-14s %10s\n", "stage", "ms");
        for (size_t i = 0; i < ARRAY_LEN(STAGES); i++) {
            printf("%-14s %10.0f\n", STAGES[i], tm[i]);
        }
        printf("%-14s %10.1f\n", "client", client_ms);
        printf("%-14s %10.3f GB\n", "h2d", (double)res->h2d_bytes / 1e9);
    }
    fflush(stdout);
    if (res->status != CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED) {
        cli_error(CMD, "proof %s: %s", await_status_name(res->status),
                  res->error_message[0] ? res->error_message : "(no message)");
        goto done;
    }
    if (res->proof.len == 0) {
        cli_error(CMD, "proof COMPLETED but empty (Curio treats this as a failure)");
        goto done;
    }
    if (out && !cli_write_file(CMD, out, res->proof.data, res->proof.len)) {
        goto done;
    }
    rc = vk ? cli_vreq_verify(CMD, &pc.r, vk, res->proof.data, res->proof.len) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_INVALID) {
        cli_error(CMD, "the daemon returned a proof that does not verify");
        rc = CLI_EXIT_ERROR;
    }
done:
    if (resp) {
        cuzk__v1__prove_response__free_unpacked(resp, NULL);
    }
    cli_rpc_call_free(call);
    prove_cmd_clear(&pc);
    return rc;
}

/* ---- batch and stress: results ----------------------------------------------------------- */

#    define MAX_REASONS 8

typedef struct run_stats {
    size_t completed, failed;
    uint64_t h2d_bytes; /* summed over the completed proofs */
    double *client;     /* client latency of each completed proof */
    double *stage[5];   /* daemon timings of each completed proof */
    char *reason[MAX_REASONS];
    size_t reason_count[MAX_REASONS], nreason, other_reasons;
    cli_verifier *ver; /* batch --vk: each completed proof is verified with it */
    size_t verified;
} run_stats;

static bool stats_init(run_stats *s, size_t cap)
{
    memset(s, 0, sizeof(*s));
    s->client = cz_calloc(cap ? cap : 1, sizeof(double));
    for (size_t i = 0; i < 5; i++) {
        s->stage[i] = cz_calloc(cap ? cap : 1, sizeof(double));
        if (!s->stage[i]) {
            return false;
        }
    }
    return s->client != NULL;
}

static void stats_clear(run_stats *s)
{
    cz_free(s->client);
    for (size_t i = 0; i < 5; i++) {
        cz_free(s->stage[i]);
    }
    for (size_t i = 0; i < s->nreason; i++) {
        cz_free(s->reason[i]);
    }
    cli_verifier_free(s->ver);
    memset(s, 0, sizeof(*s));
}

/* A failure: "what: msg", counted per distinct text. */
static void stats_fail(run_stats *s, const char *what, const char *msg)
{
    char buf[512];

    snprintf(buf, sizeof(buf), "%s: %s", what, msg && msg[0] ? msg : "(no message)");
    s->failed++;
    for (size_t i = 0; i < s->nreason; i++) {
        if (strcmp(s->reason[i], buf) == 0) {
            s->reason_count[i]++;
            return;
        }
    }
    if (s->nreason < MAX_REASONS && (s->reason[s->nreason] = cz_strdup(buf)) != NULL) {
        s->reason_count[s->nreason++] = 1;
    } else {
        s->other_reasons++;
    }
}

static void stats_ok(run_stats *s, const Cuzk__V1__AwaitProofResponse *res, double client_ms)
{
    double tm[5];
    timings_of(res, tm);
    for (size_t i = 0; i < 5; i++) {
        s->stage[i][s->completed] = tm[i];
    }
    s->h2d_bytes += res->h2d_bytes;
    s->client[s->completed++] = client_ms;
}

/* A result: COMPLETED with a proof (that verifies, with vk), or a failure with its reason. */
static void stats_result(run_stats *s, const Cuzk__V1__AwaitProofResponse *res, double client_ms)
{
    bool completed = res->status == CUZK__V1__AWAIT_PROOF_RESPONSE__STATUS__COMPLETED;

    if (completed && res->proof.len && s->ver) {
        int rc = cli_verifier_check(s->ver, res->proof.data, res->proof.len);
        if (rc != CLI_EXIT_OK) {
            stats_fail(s, "COMPLETED",
                       rc == CLI_EXIT_INVALID ? "a proof that does not verify"
                                              : "the proof could not be verified");
            return;
        }
        s->verified++;
    }
    if (completed && res->proof.len) {
        stats_ok(s, res, client_ms);
    } else {
        stats_fail(s, await_status_name(res->status),
                   completed ? "empty proof" : res->error_message);
    }
}

/* A finished call (of Prove when prove, else AwaitProof) into the statistics. */
static void stats_call(run_stats *s, cli_rpc_call *call, bool prove, double client_ms)
{
    const char *name = prove ? "Prove" : "AwaitProof";
    char what[64];
    const uint8_t *data;
    size_t len;

    if (cli_rpc_code(call) != CLI_RPC_OK) {
        snprintf(what, sizeof(what), "%s %s", name, cli_rpc_code_name(cli_rpc_code(call)));
        stats_fail(s, what, cli_rpc_message(call));
        return;
    }
    data = cli_rpc_response(call, &len);
    if (prove) {
        Cuzk__V1__ProveResponse *r = cuzk__v1__prove_response__unpack(NULL, len, data);
        if (!r || !r->result) {
            stats_fail(s, name, "malformed response");
        } else {
            stats_result(s, r->result, client_ms);
        }
        if (r) {
            cuzk__v1__prove_response__free_unpacked(r, NULL);
        }
    } else {
        Cuzk__V1__AwaitProofResponse *r = cuzk__v1__await_proof_response__unpack(NULL, len, data);
        if (!r) {
            stats_fail(s, name, "malformed response");
        } else {
            stats_result(s, r, client_ms);
            cuzk__v1__await_proof_response__free_unpacked(r, NULL);
        }
    }
}

static void stats_print(run_stats *s)
{
    double st[3];

    printf("\n%-14s %10s %10s %10s   (ms, %zu completed proofs)\n", "stage", "min", "median", "max",
           s->completed);
    for (size_t i = 0; i < 5; i++) {
        stats3(s->stage[i], s->completed, st);
        printf("%-14s %10.0f %10.0f %10.0f\n", STAGES[i], st[0], st[1], st[2]);
    }
    stats3(s->client, s->completed, st);
    printf("%-14s %10.1f %10.1f %10.1f\n", "client", st[0], st[1], st[2]);
    printf("h2d per proof  %.3f GB (host to device, mean of %zu)\n",
           s->completed ? (double)s->h2d_bytes / 1e9 / (double)s->completed : 0.0, s->completed);
    if (s->failed) {
        printf("\nfailures:\n");
        for (size_t i = 0; i < s->nreason; i++) {
            printf("  %zu x %s\n", s->reason_count[i], s->reason[i]);
        }
        if (s->other_reasons) {
            printf("  %zu x (other reasons)\n", s->other_reasons);
        }
    }
}

/* ---- batch --------------------------------------------------------------------------------- */

int cmd_batch(int argc, char **argv)
{
    static const char CMD[] = "batch";
    static const char about[] =
        "Submits --count copies of one proof request at once (SubmitProof, distinct request\n"
        "ids), then awaits them all (AwaitProof) and prints min/median/max of the daemon's\n"
        "per-stage timings and of the client's latency (submission to result). With --vk\n"
        "each proof is checked here too (public inputs derived from the vanilla proofs).\n"
        "Exit 0 iff every proof completed (and verified).";
    prove_cmd pc;
    uint64_t count = 4;
    const char *vk = NULL;
    const cli_opt_t extra[] = {
        CLI_OPT("count", CLI_U64, &count, "N", "submissions (default 4)", false),
        CLI_OPT("vk", CLI_STR, &vk, "FILE", "verify every proof with this verifying key", false),
    };
    cli_rpc_call **calls = NULL;
    char **jobs = NULL;
    run_stats s;
    size_t n, pending = 0;
    double t0, wall;
    int rc = prove_cmd_init(&pc, CMD, about, extra, ARRAY_LEN(extra), argc, argv);

    memset(&s, 0, sizeof(s));
    if (rc >= 0) {
        prove_cmd_clear(&pc);
        return rc;
    }
    rc = CLI_EXIT_ERROR;
    if (count == 0 || count > 100000) {
        cli_error(CMD, "--count must be 1..100000");
        goto done;
    }
    n = (size_t)count;
    calls = cz_calloc(n, sizeof(*calls));
    jobs = cz_calloc(n, sizeof(*jobs));
    if (!calls || !jobs || !stats_init(&s, n)) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    if (vk && cli_verifier_new(&s.ver, CMD, &pc.r, vk) != CLI_EXIT_OK) {
        goto done;
    }

    /* every submission at once */
    t0 = cli_now_ms();
    for (size_t i = 0; i < n; i++) {
        char id[128];
        uint8_t *buf;
        size_t len;
        make_request_id(id, sizeof(id), pc.request_id, &pc.r, i, true);
        if (!pack_request(CMD, &pc.t, id, false, &buf, &len)) {
            goto done;
        }
        calls[i] = cli_rpc_start(pc.rpc, METHOD("SubmitProof"), buf, len, pc.timeout_s * 1000);
        cz_free(buf);
        if (!calls[i]) {
            cli_error(CMD, "out of memory");
            goto done;
        }
        pending++;
    }
    fprintf(stderr, "cuzk-bench %s: %zu submissions sent\n", CMD, n);
    while (pending) {
        long k = cli_rpc_wait_any(pc.rpc, calls, n, CLI_RPC_FOREVER);
        cli_rpc_call *c = calls[k];
        calls[k] = NULL;
        pending--;
        if (cli_rpc_code(c) != CLI_RPC_OK) {
            char what[64];
            snprintf(what, sizeof(what), "SubmitProof %s", cli_rpc_code_name(cli_rpc_code(c)));
            stats_fail(&s, what, cli_rpc_message(c));
        } else {
            size_t len;
            const uint8_t *data = cli_rpc_response(c, &len);
            Cuzk__V1__SubmitProofResponse *r =
                cuzk__v1__submit_proof_response__unpack(NULL, len, data);
            if (!r || !r->job_id[0]) {
                stats_fail(&s, "SubmitProof", "malformed response");
            } else if (!(jobs[k] = cz_strdup(r->job_id))) {
                stats_fail(&s, "SubmitProof", "out of memory");
            }
            if (r) {
                cuzk__v1__submit_proof_response__free_unpacked(r, NULL);
            }
        }
        cli_rpc_call_free(c);
    }
    fprintf(stderr, "cuzk-bench %s: %zu accepted in %.0f ms, awaiting\n", CMD, n - s.failed,
            cli_now_ms() - t0);

    /* then every await at once */
    for (size_t i = 0; i < n; i++) {
        Cuzk__V1__AwaitProofRequest a;
        uint8_t *buf;
        size_t len;
        if (!jobs[i]) {
            continue;
        }
        cuzk__v1__await_proof_request__init(&a);
        a.job_id = jobs[i];
        if (!pack(CMD, &a.base, &buf, &len)) {
            goto done;
        }
        calls[i] = cli_rpc_start(pc.rpc, METHOD("AwaitProof"), buf, len, pc.timeout_s * 1000);
        cz_free(buf);
        if (!calls[i]) {
            cli_error(CMD, "out of memory");
            goto done;
        }
        pending++;
    }
    while (pending) {
        long k = cli_rpc_wait_any(pc.rpc, calls, n, PROGRESS_MS);
        if (k < 0) {
            fprintf(stderr, "cuzk-bench %s: %zu done, %zu waiting: %.0f s\n", CMD,
                    s.completed + s.failed, pending, (cli_now_ms() - t0) / 1e3);
            continue;
        }
        stats_call(&s, calls[k], false, cli_now_ms() - t0);
        cli_rpc_call_free(calls[k]);
        calls[k] = NULL;
        pending--;
    }
    wall = cli_now_ms() - t0;
    printf("batch: submitted=%zu completed=%zu failed=%zu wall_ms=%.0f throughput=%.3f "
           "proofs/s",
           n, s.completed, s.failed, wall, wall > 0 ? (double)s.completed * 1e3 / wall : 0.0);
    if (vk) {
        printf(" verified=%zu", s.verified);
    }
    printf("\n");
    stats_print(&s);
    fflush(stdout);
    if (s.failed) {
        cli_error(CMD, "%zu of %zu proofs failed (%s)", s.failed, n,
                  s.nreason ? s.reason[0] : "see above");
    } else {
        rc = CLI_EXIT_OK;
    }
done:
    for (size_t i = 0; calls && i < count; i++) {
        cli_rpc_call_free(calls[i]);
    }
    for (size_t i = 0; jobs && i < count; i++) {
        cz_free(jobs[i]);
    }
    cz_free(calls);
    cz_free(jobs);
    stats_clear(&s);
    prove_cmd_clear(&pc);
    return rc;
}

/* ---- stress -------------------------------------------------------------------------------- */

int cmd_stress(int argc, char **argv)
{
    static const char CMD[] = "stress";
    static const char about[] =
        "Keeps --concurrency Prove calls in flight until --count proofs were started or\n"
        "--duration seconds passed (calls in flight then finish; --timeout bounds them), and\n"
        "prints throughput, latency and failures by reason. Exit 0 iff none failed.";
    prove_cmd pc;
    uint64_t count = 16, concurrency = 2, duration = 60;
    const cli_opt_t extra[] = {
        CLI_OPT("count", CLI_U64, &count, "N", "most proofs to start (default 16)", false),
        CLI_OPT("concurrency", CLI_U64, &concurrency, "C", "calls in flight (default 2)", false),
        CLI_OPT("duration", CLI_U64, &duration, "SECONDS",
                "stop starting proofs after this long (default 60)", false),
    };
    cli_rpc_call **calls = NULL;
    double *started_at = NULL;
    run_stats s;
    size_t started = 0, inflight = 0;
    double t0, last_report, elapsed;
    int rc = prove_cmd_init(&pc, CMD, about, extra, ARRAY_LEN(extra), argc, argv);

    memset(&s, 0, sizeof(s));
    if (rc >= 0) {
        prove_cmd_clear(&pc);
        return rc;
    }
    rc = CLI_EXIT_ERROR;
    if (count == 0 || count > 10000000 || concurrency == 0 || concurrency > 4096) {
        cli_error(CMD, "--count must be 1..10000000 and --concurrency 1..4096");
        goto done;
    }
    calls = cz_calloc((size_t)concurrency, sizeof(*calls));
    started_at = cz_calloc((size_t)concurrency, sizeof(*started_at));
    if (!calls || !started_at || !stats_init(&s, (size_t)count)) {
        cli_error(CMD, "out of memory");
        goto done;
    }
    t0 = last_report = cli_now_ms();
    for (;;) {
        long k;
        double now = cli_now_ms();

        while (inflight < concurrency && started < count && now - t0 < (double)duration * 1e3) {
            char id[128];
            uint8_t *buf;
            size_t len, slot = 0;
            while (calls[slot]) {
                slot++;
            }
            make_request_id(id, sizeof(id), pc.request_id, &pc.r, started, true);
            if (!pack_request(CMD, &pc.t, id, true, &buf, &len)) {
                goto done;
            }
            calls[slot] = cli_rpc_start(pc.rpc, METHOD("Prove"), buf, len, pc.timeout_s * 1000);
            cz_free(buf);
            if (!calls[slot]) {
                cli_error(CMD, "out of memory");
                goto done;
            }
            started_at[slot] = cli_now_ms();
            started++;
            inflight++;
        }
        if (inflight == 0) {
            break;
        }
        k = cli_rpc_wait_any(pc.rpc, calls, (size_t)concurrency, 500);
        if (k >= 0) {
            stats_call(&s, calls[k], true, cli_now_ms() - started_at[k]);
            cli_rpc_call_free(calls[k]);
            calls[k] = NULL;
            inflight--;
        }
        if (cli_now_ms() - last_report >= PROGRESS_MS) {
            last_report = cli_now_ms();
            fprintf(stderr, "cuzk-bench %s: t=%.0f s started=%zu completed=%zu failed=%zu\n", CMD,
                    (last_report - t0) / 1e3, started, s.completed, s.failed);
        }
    }
    elapsed = cli_now_ms() - t0;
    printf("stress: started=%zu completed=%zu failed=%zu concurrency=%" PRIu64
           " elapsed_s=%.2f throughput=%.3f proofs/s (%.1f per minute)\n",
           started, s.completed, s.failed, concurrency, elapsed / 1e3,
           elapsed > 0 ? (double)s.completed * 1e3 / elapsed : 0.0,
           elapsed > 0 ? (double)s.completed * 6e4 / elapsed : 0.0);
    stats_print(&s);
    fflush(stdout);
    if (s.failed) {
        cli_error(CMD, "%zu of %zu proofs failed (%s)", s.failed, started,
                  s.nreason ? s.reason[0] : "see above");
    } else {
        rc = CLI_EXIT_OK;
    }
done:
    for (size_t i = 0; calls && i < concurrency; i++) {
        cli_rpc_call_free(calls[i]);
    }
    cz_free(calls);
    cz_free(started_at);
    stats_clear(&s);
    prove_cmd_clear(&pc);
    return rc;
}

/* ---- status, preload, evict, metrics ------------------------------------------------------- */

/* --addr and --timeout, plus the command's own options; opens the channel. */
static int simple_init(const char *cmd, const char *about, cli_opt_t *opts, size_t nopts,
                       const char **addr, uint64_t *timeout_s, int argc, char **argv, cli_rpc **rpc)
{
    cli_opt_t all[8];
    int rc;

    CZ_CHECK(nopts + 2 <= ARRAY_LEN(all));
    all[0] = (cli_opt_t)CLI_OPT("addr", CLI_STR, addr, "ADDR",
                                "cuzkd address: unix:///path or host:port (default "
                                "127.0.0.1:9820)",
                                false);
    all[1] = (cli_opt_t)CLI_OPT("timeout", CLI_U64, timeout_s, "SECONDS",
                                "deadline of the call (0 = none)", false);
    if (nopts) {
        memcpy(all + 2, opts, nopts * sizeof(*opts));
    }
    rc = cli_parse(cmd, about, all, nopts + 2, argc, argv);
    if (rc >= 0) {
        return rc;
    }
    return open_rpc(cmd, *addr, rpc) ? -1 : CLI_EXIT_ERROR;
}

static const char *tier_name(int t)
{
    static const char *const names[] = {"HOT", "WARM", "COLD"};
    return t >= 0 && (size_t)t < ARRAY_LEN(names) ? names[t] : "?";
}

static void status_json(const Cuzk__V1__GetStatusResponse *s)
{
    printf("{\"uptime_seconds\":%" PRIu64 ",\"total_proofs_completed\":%" PRIu64
           ",\"total_proofs_failed\":%" PRIu64 ",\"pinned_memory_bytes\":%" PRIu64
           ",\"pinned_memory_limit_bytes\":%" PRIu64 ",\"queues\":[",
           s->uptime_seconds, s->total_proofs_completed, s->total_proofs_failed,
           s->pinned_memory_bytes, s->pinned_memory_limit_bytes);
    for (size_t i = 0; i < s->n_queues; i++) {
        printf("%s{\"proof_kind\":", i ? "," : "");
        json_str(stdout, s->queues[i]->proof_kind);
        printf(",\"pending\":%u,\"in_progress\":%u}", s->queues[i]->pending,
               s->queues[i]->in_progress);
    }
    printf("],\"loaded_srs\":[");
    for (size_t i = 0; i < s->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *x = s->loaded_srs[i];
        printf("%s{\"circuit_id\":", i ? "," : "");
        json_str(stdout, x->circuit_id);
        printf(",\"tier\":\"%s\",\"size_bytes\":%" PRIu64 ",\"ref_count\":%u}", tier_name(x->tier),
               x->size_bytes, x->ref_count);
    }
    printf("],\"gpus\":[");
    for (size_t i = 0; i < s->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = s->gpus[i];
        printf("%s{\"ordinal\":%u,\"name\":", i ? "," : "", g->ordinal);
        json_str(stdout, g->name);
        printf(",\"vram_total_bytes\":%" PRIu64 ",\"vram_free_bytes\":%" PRIu64
               ",\"resident_circuits\":%u,\"streamed_circuits\":%u,\"h2d_bytes\":%" PRIu64
               ",\"memory_cap_bytes\":%" PRIu64 ",\"current_job_id\":",
               g->vram_total_bytes, g->vram_free_bytes, g->resident_circuits, g->streamed_circuits,
               g->h2d_bytes, g->memory_cap_bytes);
        json_str(stdout, g->current_job_id);
        printf(",\"current_proof_kind\":");
        json_str(stdout, g->current_proof_kind);
        printf("}");
    }
    printf("],\"running_jobs\":[");
    for (size_t i = 0; i < s->n_running_jobs; i++) {
        const Cuzk__V1__JobStatus *j = s->running_jobs[i];
        printf("%s{\"request_id\":", i ? "," : "");
        json_str(stdout, j->request_id);
        printf(",\"proof_kind\":");
        json_str(stdout, j->proof_kind);
        printf(",\"stage\":");
        json_str(stdout, j->stage);
        printf(",\"partitions_done\":%u,\"partitions_total\":%u,\"age_ms\":%" PRIu64
               ",\"running_ms\":%" PRIu64 "}",
               j->partitions_done, j->partitions_total, j->age_ms, j->running_ms);
    }
    printf("]}\n");
}

static void status_table(const Cuzk__V1__GetStatusResponse *s)
{
    char a[32], b[32];
    uint32_t pend = 0, prog = 0;

    human_bytes(a, sizeof(a), s->pinned_memory_bytes);
    human_bytes(b, sizeof(b), s->pinned_memory_limit_bytes);
    printf("uptime        %" PRIu64 " s\nproofs        %" PRIu64 " completed, %" PRIu64
           " failed\nmemory        %s of %s\n",
           s->uptime_seconds, s->total_proofs_completed, s->total_proofs_failed, a, b);
    printf("\n%-16s %9s %12s\n", "queue", "pending", "in_progress");
    for (size_t i = 0; i < s->n_queues; i++) {
        printf("%-16s %9u %12u\n", s->queues[i]->proof_kind, s->queues[i]->pending,
               s->queues[i]->in_progress);
        pend += s->queues[i]->pending;
        prog += s->queues[i]->in_progress;
    }
    printf("%-16s %9u %12u\n", "(all)", pend, prog);
    printf("\n%-24s %-5s %12s %5s\n", "srs", "tier", "size", "refs");
    if (s->n_loaded_srs == 0) {
        printf("(none loaded)\n");
    }
    for (size_t i = 0; i < s->n_loaded_srs; i++) {
        const Cuzk__V1__SRSStatus *x = s->loaded_srs[i];
        human_bytes(a, sizeof(a), x->size_bytes);
        printf("%-24s %-5s %12s %5u\n", x->circuit_id, tier_name(x->tier), a, x->ref_count);
    }
    printf("\n%-4s %-24s %12s %12s %-13s %s\n", "gpu", "name", "vram total", "vram free",
           "circuits", "job");
    if (s->n_gpus == 0) {
        printf("(none)\n");
    }
    for (size_t i = 0; i < s->n_gpus; i++) {
        const Cuzk__V1__GPUStatus *g = s->gpus[i];
        human_bytes(a, sizeof(a), g->vram_total_bytes);
        human_bytes(b, sizeof(b), g->vram_free_bytes);
        char circ[48];
        snprintf(circ, sizeof(circ), "%u (%u strm)", g->resident_circuits, g->streamed_circuits);
        printf("%-4u %-24s %12s %12s %-13s %s%s%s\n", g->ordinal, g->name, a, b, circ,
               g->current_job_id, g->current_proof_kind[0] ? " " : "", g->current_proof_kind);
    }
    /* running_jobs: cuzkd's extension of GetStatus; a daemon without it lists none. */
    printf("\n%-24s %-13s %-10s %10s %10s\n", "running job", "kind", "stage", "partitions", "age");
    if (s->n_running_jobs == 0) {
        printf("(none)\n");
    }
    for (size_t i = 0; i < s->n_running_jobs; i++) {
        const Cuzk__V1__JobStatus *j = s->running_jobs[i];
        char parts[32];
        if (j->partitions_total) {
            snprintf(parts, sizeof(parts), "%u/%u", j->partitions_done, j->partitions_total);
        } else {
            snprintf(parts, sizeof(parts), "-"); /* not parsed yet */
        }
        printf("%-24s %-13s %-10s %10s %8.1f s\n", j->request_id, j->proof_kind, j->stage, parts,
               (double)j->age_ms / 1000.0);
    }
}

int cmd_status(int argc, char **argv)
{
    static const char CMD[] = "status";
    const char *addr = DEFAULT_ADDR;
    uint64_t timeout_s = 10;
    bool json = false;
    cli_opt_t opts[] = {
        CLI_OPT("json", CLI_FLAG, &json, NULL, "print the response as one JSON object", false),
    };
    cli_rpc *rpc = NULL;
    Cuzk__V1__GetStatusRequest req;
    Cuzk__V1__GetStatusResponse *s;
    int rc = simple_init(CMD,
                         "Prints the daemon's status (GetStatus): uptime, proof counters, memory, "
                         "queues\n(pending and in progress per kind), loaded parameters, GPUs, "
                         "running jobs\n(partitions proved of all, stage, time since submission).",
                         opts, ARRAY_LEN(opts), &addr, &timeout_s, argc, argv, &rpc);

    if (rc >= 0) {
        return rc;
    }
    cuzk__v1__get_status_request__init(&req);
    s = (Cuzk__V1__GetStatusResponse *)unary(CMD, rpc, addr, "GetStatus", &req.base,
                                             timeout_s * 1000,
                                             &cuzk__v1__get_status_response__descriptor, false);
    if (s) {
        if (json) {
            status_json(s);
        } else {
            status_table(s);
        }
        cuzk__v1__get_status_response__free_unpacked(s, NULL);
    }
    cli_rpc_close(rpc);
    return s ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

int cmd_preload(int argc, char **argv)
{
    static const char CMD[] = "preload";
    const char *addr = DEFAULT_ADDR, *id = NULL;
    uint64_t timeout_s = 0;
    cli_opt_t opts[] = {
        CLI_OPT("circuit-id", CLI_STR, &id, "ID", "the circuit (e.g. porep-32g)", true),
    };
    cli_rpc *rpc = NULL;
    Cuzk__V1__PreloadSrsRequest req;
    Cuzk__V1__PreloadSrsResponse *r;
    double t0 = cli_now_ms();
    int rc = simple_init(CMD,
                         "Loads a circuit's parameters into the daemon's hot tier (PreloadSRS) "
                         "and\nwaits until they are loaded.",
                         opts, ARRAY_LEN(opts), &addr, &timeout_s, argc, argv, &rpc);

    if (rc >= 0) {
        return rc;
    }
    cuzk__v1__preload_srs_request__init(&req);
    req.circuit_id = (char *)id;
    r = (Cuzk__V1__PreloadSrsResponse *)unary(CMD, rpc, addr, "PreloadSRS", &req.base,
                                              timeout_s * 1000,
                                              &cuzk__v1__preload_srs_response__descriptor, true);
    if (r) {
        printf("preload circuit_id=%s already_loaded=%s load_ms=%" PRIu64 " client_ms=%.1f\n", id,
               r->already_loaded ? "true" : "false", r->load_time_ms, cli_now_ms() - t0);
        cuzk__v1__preload_srs_response__free_unpacked(r, NULL);
    }
    cli_rpc_close(rpc);
    return r ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

int cmd_evict(int argc, char **argv)
{
    static const char CMD[] = "evict";
    const char *addr = DEFAULT_ADDR, *id = NULL;
    uint64_t timeout_s = 10;
    cli_opt_t opts[] = {
        CLI_OPT("circuit-id", CLI_STR, &id, "ID", "the circuit (e.g. porep-32g)", true),
    };
    cli_rpc *rpc = NULL;
    Cuzk__V1__EvictSrsRequest req;
    Cuzk__V1__EvictSrsResponse *r;
    char h[32];
    int rc = simple_init(CMD,
                         "Drops a circuit's parameters to the daemon's cold tier (EvictSRS); "
                         "parameters\nin use free nothing.",
                         opts, ARRAY_LEN(opts), &addr, &timeout_s, argc, argv, &rpc);

    if (rc >= 0) {
        return rc;
    }
    cuzk__v1__evict_srs_request__init(&req);
    req.circuit_id = (char *)id;
    r = (Cuzk__V1__EvictSrsResponse *)unary(CMD, rpc, addr, "EvictSRS", &req.base, timeout_s * 1000,
                                            &cuzk__v1__evict_srs_response__descriptor, false);
    if (r) {
        human_bytes(h, sizeof(h), r->freed_bytes);
        printf("evict circuit_id=%s was_loaded=%s freed_bytes=%" PRIu64 " (%s)\n", id,
               r->was_loaded ? "true" : "false", r->freed_bytes, h);
        cuzk__v1__evict_srs_response__free_unpacked(r, NULL);
    }
    cli_rpc_close(rpc);
    return r ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

int cmd_metrics(int argc, char **argv)
{
    static const char CMD[] = "metrics";
    const char *addr = DEFAULT_ADDR;
    uint64_t timeout_s = 10;
    cli_rpc *rpc = NULL;
    Cuzk__V1__GetMetricsRequest req;
    Cuzk__V1__GetMetricsResponse *r;
    int rc = simple_init(CMD, "Prints the daemon's Prometheus metrics text (GetMetrics).", NULL, 0,
                         &addr, &timeout_s, argc, argv, &rpc);

    if (rc >= 0) {
        return rc;
    }
    cuzk__v1__get_metrics_request__init(&req);
    r = (Cuzk__V1__GetMetricsResponse *)unary(CMD, rpc, addr, "GetMetrics", &req.base,
                                              timeout_s * 1000,
                                              &cuzk__v1__get_metrics_response__descriptor, false);
    if (r) {
        fputs(r->prometheus_text, stdout);
        cuzk__v1__get_metrics_response__free_unpacked(r, NULL);
    }
    cli_rpc_close(rpc);
    return r ? CLI_EXIT_OK : CLI_EXIT_ERROR;
}

#else /* no gRPC: the commands exist and say why they cannot run */

static int no_rpc(const char *cmd, int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: cuzk-bench %s ...\n\nTalks to cuzkd over gRPC; this build has no gRPC "
                   "client (configured with CUZK_SERVER=OFF).\n",
                   cmd);
            return CLI_EXIT_OK;
        }
    }
    return cli_error(cmd, "this build has no gRPC client (configured with CUZK_SERVER=OFF)");
}

int cmd_single(int argc, char **argv)
{
    return no_rpc("single", argc, argv);
}

int cmd_batch(int argc, char **argv)
{
    return no_rpc("batch", argc, argv);
}

int cmd_stress(int argc, char **argv)
{
    return no_rpc("stress", argc, argv);
}

int cmd_status(int argc, char **argv)
{
    return no_rpc("status", argc, argv);
}

int cmd_preload(int argc, char **argv)
{
    return no_rpc("preload", argc, argv);
}

int cmd_evict(int argc, char **argv)
{
    return no_rpc("evict", argc, argv);
}

int cmd_metrics(int argc, char **argv)
{
    return no_rpc("metrics", argc, argv);
}

#endif
