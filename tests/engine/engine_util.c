/* engine_util.c - what the engine tests share (see engine_util.h). */
#include "engine/engine_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness/test.h"

#include "common/log.h"
#include "groth16/groth16.h"

/* ---- the handler and its parameters ---- */

static tk_ctx *g_tk;
static char g_param_dir[512];

static void remove_params(void)
{
    char path[600];
    snprintf(path, sizeof(path), "%s/tk-test-cubic.params", g_param_dir);
    unlink(path);
    snprintf(path, sizeof(path), "%s/tk-test-cubic-big.params", g_param_dir);
    unlink(path);
    rmdir(g_param_dir);
}

const char *etu_param_dir(void)
{
    if (!g_param_dir[0]) {
        snprintf(g_param_dir, sizeof(g_param_dir), "%s-%ld",
                 test_bin_path("tests/engine-tk-params"), (long)getpid());
    }
    return g_param_dir;
}

tk_ctx *etu_tk(void)
{
    if (!g_tk) {
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_MSG(tk_new(&g_tk, etu_param_dir(), &dg) == CUZK_OK, "tk_new: %s", dg.msg);
        atexit(remove_params);
    }
    return g_tk;
}

void etu_reset(void)
{
    tk_close_gate(etu_tk());
    tk_clear_events(etu_tk());
}

uint64_t etu_file_size(const char *path)
{
    FILE *f = fopen(path, "rb");
    CHECK(f != NULL);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return (uint64_t)n;
}

void etu_sleep_ms(unsigned ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* ---- engines and requests ---- */

void etu_cfg(eng_config_t *cfg)
{
    eng_config_default(cfg);
    cfg->param_cache = etu_param_dir();
    cfg->mem_budget_bytes = UINT64_C(64) << 20;
    cfg->synth_workers = 2;
    cfg->prover_threads = 1;
    cfg->prover_pool_threads = 0;
    cfg->srs_load_threads = 0;
    cfg->max_active_jobs = 4;
    cfg->max_batch_wait_ms = 100;
}

const eng_kind etu_all_kinds[] = {ENG_KIND_POREP, ENG_KIND_SNAP, ENG_KIND_WINDOW_POST,
                                  ENG_KIND_WINNING_POST, 0};

eng_t *etu_start(const eng_config_t *cfg, const eng_kind *kinds, const eng_kind_ops *ops)
{
    eng_t *eng = NULL;
    cz_diag dg;
    cz_diag_init(&dg);
    etu_reset();
    CHECK_OK(eng_new(&eng, cfg, &dg));
    for (size_t i = 0; kinds && kinds[i]; i++) {
        CHECK_OK(eng_register_kind(eng, kinds[i], ops, etu_tk(), &dg));
    }
    CHECK_MSG(eng_start(eng, &dg) == CUZK_OK, "eng_start: %s", dg.msg);
    return eng;
}

tk_req etu_req(uint32_t flags, uint32_t nparts, uint64_t x0)
{
    tk_req r;
    memset(&r, 0, sizeof(r));
    r.flags = flags;
    r.nparts = nparts;
    for (uint32_t i = 0; i < nparts; i++) {
        r.x[i] = x0 + 17 * i;
    }
    return r;
}

eng_request_t etu_request(etu_scratch *s, eng_kind kind, eng_prio prio, const char *rid,
                          const tk_req *r)
{
    eng_request_t req;
    memset(&req, 0, sizeof(req));
    memset(s->b32, 0x11, sizeof(s->b32));
    s->vp.ptr = s->payload;
    s->vp.len = tk_encode(s->payload, r);
    req.request_id = rid;
    req.kind = kind;
    req.priority = prio;
    req.sector_size = 2048;
    req.registered_proof = 5;
    if (kind == ENG_KIND_POREP) {
        req.vanilla_proof = s->vp;
    } else {
        req.vanilla_proofs = &s->vp;
        req.n_vanilla_proofs = 1;
    }
    if (kind == ENG_KIND_WINDOW_POST || kind == ENG_KIND_WINNING_POST) {
        req.randomness = (eng_bytes_t){s->b32, 32};
    }
    if (kind == ENG_KIND_SNAP) {
        req.comm_r_old = req.comm_r_new = req.comm_d_new = (eng_bytes_t){s->b32, 32};
    }
    return req;
}

void etu_submit(eng_t *eng, eng_kind kind, eng_prio prio, const char *rid, const tk_req *r,
                char *job_id)
{
    etu_scratch s;
    eng_request_t req = etu_request(&s, kind, prio, rid, r);
    eng_submit_info_t info;
    cz_diag dg;
    cz_diag_init(&dg);
    CHECK_MSG(eng_submit(eng, &req, &info, &dg) == CUZK_OK, "submit: %s", dg.msg);
    if (rid && rid[0]) {
        CHECK_STR_EQ(info.job_id, rid);
    }
    if (job_id) {
        snprintf(job_id, ENG_ID_MAX, "%s", info.job_id);
    }
}

void etu_wait(eng_t *eng, const char *id, eng_result_copy_t *res, unsigned timeout_s)
{
    eng_wait(eng, id, timeout_s * 1000u, res);
    CHECK_MSG(res->r.status != ENG_STATUS_TIMEOUT, "job %s did not finish in %u s", id, timeout_s);
}

/* ---- the proof check ---- */

/* y = x^3 + x + 5, computed here rather than by the handler. */
static void public_input(fr_t *y, uint64_t xv)
{
    fr_t x, five;
    fr_from_u64(&x, xv);
    fr_from_u64(&five, 5);
    fr_pow_u64(y, &x, 3);
    fr_add(y, y, &x);
    fr_add(y, y, &five);
}

void etu_check_proofs(const eng_result_copy_t *res, const tk_req *r)
{
    static g16_params_t *params[2];
    bool big = (r->flags & TK_BIG) != 0;
    cz_diag dg;
    cz_diag_init(&dg);

    CHECK_MSG(res->r.status == ENG_STATUS_COMPLETED, "job %s status %d error \"%s\"", res->r.job_id,
              (int)res->r.status, res->r.error);
    CHECK_EQ_U64(res->r.proof_len, (uint64_t)r->nparts * G16_PROOF_NBYTES);
    if (!params[big]) {
        CHECK_OK(g16_params_load(&params[big], tk_params_path(etu_tk(), big), NULL, NULL, &dg));
    }
    g16_pvk_t pvk;
    g16_pvk_init(&pvk, &params[big]->vk);
    for (uint32_t k = 0; k < r->nparts; k++) {
        g16_proof_t proof;
        CHECK_OK(g16_proof_from_bytes(&proof, res->r.proof + k * G16_PROOF_NBYTES, &dg));
        fr_t y, five;
        bool ok = false;
        public_input(&y, r->x[k]);
        CHECK_OK(g16_verify(&pvk, &ok, &proof, &y, 1, &dg));
        CHECK_MSG(ok, "job %s partition %u does not verify", res->r.job_id, k);
        fr_from_u64(&five, 5);
        fr_add(&y, &y, &five);
        CHECK_OK(g16_verify(&pvk, &ok, &proof, &y, 1, &dg));
        CHECK_MSG(!ok, "job %s partition %u verifies a wrong input", res->r.job_id, k);
        if (r->nparts > 1 && r->x[(k + 1) % r->nparts] != r->x[k]) {
            public_input(&y, r->x[(k + 1) % r->nparts]);
            CHECK_OK(g16_verify(&pvk, &ok, &proof, &y, 1, &dg));
            CHECK_MSG(!ok, "partition %u verifies with another partition's input", k);
        }
    }
}

/* ---- the engine's log ---- */

typedef struct log_capture {
    pthread_mutex_t mu;
    char *buf;
    size_t len, cap;
} log_capture;

static log_capture g_logs = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void capture_sink(cz_log_level level, const char *line, void *ctx)
{
    log_capture *c = ctx;
    pthread_mutex_lock(&c->mu);
    size_t need = strlen(line) + 16;
    if (c->len + need > c->cap) {
        size_t cap = (c->cap + need) * 2;
        char *b = realloc(c->buf, cap);
        if (!b) {
            pthread_mutex_unlock(&c->mu);
            return;
        }
        c->buf = b;
        c->cap = cap;
    }
    c->len += (size_t)snprintf(c->buf + c->len, c->cap - c->len, "%s %s\n",
                               cz_log_level_name(level), line);
    pthread_mutex_unlock(&c->mu);
}

void etu_capture_start(void)
{
    pthread_mutex_lock(&g_logs.mu);
    g_logs.len = 0;
    if (g_logs.buf) {
        g_logs.buf[0] = '\0';
    }
    pthread_mutex_unlock(&g_logs.mu);
    cz_log_set_sink(capture_sink, &g_logs);
}

size_t etu_count_lines(const char *a, const char *b)
{
    size_t n = 0;
    pthread_mutex_lock(&g_logs.mu);
    for (const char *p = g_logs.buf; p && *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        char line[2048];
        snprintf(line, sizeof(line), "%.*s", (int)len, p);
        n += strstr(line, a) != NULL && (!b || strstr(line, b) != NULL);
        p = e ? e + 1 : p + len;
    }
    pthread_mutex_unlock(&g_logs.mu);
    return n;
}

bool etu_captured(const char *want)
{
    return etu_count_lines(want, NULL) > 0;
}

const char *etu_log_text(void)
{
    return g_logs.buf ? g_logs.buf : "";
}

typedef struct etu_preload_state {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool done, already;
    cuzk_err err;
} etu_preload_state;

static void etu_preload_cb(void *arg, cuzk_err err, const char *msg, bool already, uint64_t ms)
{
    etu_preload_state *p = arg;
    (void)msg;
    (void)ms;
    pthread_mutex_lock(&p->mu);
    p->err = err;
    p->already = already;
    p->done = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

cuzk_err etu_preload(eng_t *eng, const char *circuit_id, bool *already)
{
    etu_preload_state p = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

    eng_srs_preload(eng, circuit_id, etu_preload_cb, &p);
    pthread_mutex_lock(&p.mu);
    while (!p.done) {
        pthread_cond_wait(&p.cv, &p.mu);
    }
    pthread_mutex_unlock(&p.mu);
    *already = p.already;
    return p.err;
}

void etu_rewrite_in_place(const char *path, const uint8_t *buf, size_t len)
{
    etu_sleep_ms(20); /* a new modification time even with coarse file timestamps */
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    CHECK(fwrite(buf, 1, len, f) == len);
    CHECK(fclose(f) == 0);
}

uint8_t *etu_read_all(const char *path, size_t *len)
{
    size_t n = (size_t)etu_file_size(path);
    uint8_t *buf = malloc(n ? n : 1);
    FILE *f = fopen(path, "rb");
    CHECK(buf != NULL && f != NULL);
    CHECK(fread(buf, 1, n, f) == n);
    fclose(f);
    *len = n;
    return buf;
}
