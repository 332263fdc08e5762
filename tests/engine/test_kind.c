/* test_kind.c - the "tk" test handler (see test_kind.h). */
#include "engine/test_kind.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "r1cs/r1cs.h"

#define TK_ROUNDS_SMALL 8
#define TK_ROUNDS_BIG   400
#define TK_LOG_CAP      65536

struct tk_ctx {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    bool gate_open;
    char log[TK_LOG_CAP];
    size_t log_len, nevents;
    unsigned synth_now, synth_max;
    char path_small[1024], path_big[1024];
};

typedef struct tk_plan {
    tk_req req;
} tk_plan;

/* ---------------------------------------------------------------------------------------------
 * Circuit
 * ------------------------------------------------------------------------------------------- */

void tk_public_input(fr_t *y, uint64_t x)
{
    fr_t fx, t, five;
    fr_from_u64(&fx, x);
    fr_from_u64(&five, 5);
    fr_sqr(&t, &fx);
    fr_mul(&t, &t, &fx);
    fr_add(&t, &t, &fx);
    fr_add(y, &t, &five);
}

/* x: NULL when the backend keeps no values (recorder). */
static cuzk_err tk_circuit(cs_t *cs, const uint64_t *x, unsigned rounds)
{
    bool vals = cs_has_values(cs);
    fr_t fx, fx2, fx3, fy, t;
    cs_var_t vy, vx, vx2, vx3, vt;

    if (vals) {
        fr_from_u64(&fx, *x);
        fr_sqr(&fx2, &fx);
        fr_mul(&fx3, &fx2, &fx);
        tk_public_input(&fy, *x);
    }
    cs_alloc_input(cs, &vy, vals ? &fy : NULL);
    cs_alloc(cs, &vx, vals ? &fx : NULL);
    cs_alloc(cs, &vx2, vals ? &fx2 : NULL);
    cs_alloc(cs, &vx3, vals ? &fx3 : NULL);
    {
        cs_lc_t a = cs_lc_of(cs, vx), b = cs_lc_of(cs, vx), c = cs_lc_of(cs, vx2);
        cs_enforce(cs, &a, &b, &c, "x*x=x2");
    }
    {
        cs_lc_t a = cs_lc_of(cs, vx2), b = cs_lc_of(cs, vx), c = cs_lc_of(cs, vx3);
        cs_enforce(cs, &a, &b, &c, "x2*x=x3");
    }
    {
        fr_t five;
        fr_from_u64(&five, 5);
        cs_lc_t a = cs_lc_of(cs, vx3), b = cs_lc_of(cs, CS_ONE), c = cs_lc_of(cs, vy);
        cs_lc_add_var(cs, &a, vx);
        cs_lc_add(cs, &a, &five, CS_ONE);
        cs_enforce(cs, &a, &b, &c, "x3+x+5=y");
    }
    vt = vx;
    t = fx;
    for (unsigned i = 0; i < rounds; i++) {
        fr_t tn;
        cs_var_t vn;
        if (vals) {
            fr_sqr(&tn, &t);
        }
        cs_alloc(cs, &vn, vals ? &tn : NULL);
        cs_lc_t a = cs_lc_of(cs, vt), b = cs_lc_of(cs, vt), c = cs_lc_of(cs, vn);
        cs_enforce(cs, &a, &b, &c, "square");
        vt = vn;
        if (vals) {
            t = tn;
        }
    }
    return cs_status(cs);
}

static cuzk_err write_params(const char *path, unsigned rounds, uint64_t seed, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    cs_t *cs = NULL;
    cs_r1cs_t r1cs;
    g16_params_t *p = NULL;

    memset(&r1cs, 0, sizeof(r1cs));
    CZ_TRY(err, cs_new_recorder(&cs, dg), done);
    CZ_TRY(err, tk_circuit(cs, NULL, rounds), done);
    CZ_TRY(err, cs_finish(cs, dg), done);
    CZ_TRY(err, cs_take_r1cs(cs, &r1cs, dg), done);
    CZ_TRY(err, g16_setup(&p, &r1cs, &seed, NULL, dg), done);
    CZ_TRY(err, g16_params_write(p, path, NULL, dg), done);
done:
    g16_params_free(p);
    cs_r1cs_clear(&r1cs);
    cs_free(cs);
    return err;
}

cuzk_err tk_new(tk_ctx **out, const char *param_dir, cz_diag *dg)
{
    tk_ctx *tk = cz_calloc(1, sizeof(*tk));
    cuzk_err err = CUZK_OK;

    *out = NULL;
    if (!tk) {
        return cz_fail(dg, CUZK_E_NOMEM, "tk");
    }
    pthread_mutex_init(&tk->mu, NULL);
    pthread_cond_init(&tk->cv, NULL);
    if (mkdir(param_dir, 0700) != 0 && errno != EEXIST) {
        tk_free(tk);
        return cz_fail(dg, CUZK_E_IO, "mkdir %s: %s", param_dir, strerror(errno));
    }
    snprintf(tk->path_small, sizeof(tk->path_small), "%s/tk-test-cubic.params", param_dir);
    snprintf(tk->path_big, sizeof(tk->path_big), "%s/tk-test-cubic-big.params", param_dir);
    CZ_TRY(err, write_params(tk->path_small, TK_ROUNDS_SMALL, 11, dg), fail);
    CZ_TRY(err, write_params(tk->path_big, TK_ROUNDS_BIG, 12, dg), fail);
    *out = tk;
    return CUZK_OK;
fail:
    tk_free(tk);
    return err;
}

void tk_free(tk_ctx *tk)
{
    if (!tk) {
        return;
    }
    pthread_mutex_destroy(&tk->mu);
    pthread_cond_destroy(&tk->cv);
    cz_free(tk);
}

const char *tk_params_path(const tk_ctx *tk, bool big)
{
    return big ? tk->path_big : tk->path_small;
}

/* ---------------------------------------------------------------------------------------------
 * Events and the gate
 * ------------------------------------------------------------------------------------------- */

static void tk_log(tk_ctx *tk, const char *fmt, ...) CZ_PRINTF(2, 3);

static void tk_log(tk_ctx *tk, const char *fmt, ...)
{
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&tk->mu);
    size_t n = strlen(line);
    if (tk->log_len + n + 2 < TK_LOG_CAP) {
        memcpy(tk->log + tk->log_len, line, n);
        tk->log_len += n;
        tk->log[tk->log_len++] = '\n';
        tk->log[tk->log_len] = '\0';
        tk->nevents++;
    }
    pthread_cond_broadcast(&tk->cv);
    pthread_mutex_unlock(&tk->mu);
}

void tk_open_gate(tk_ctx *tk)
{
    pthread_mutex_lock(&tk->mu);
    tk->gate_open = true;
    pthread_cond_broadcast(&tk->cv);
    pthread_mutex_unlock(&tk->mu);
}

void tk_close_gate(tk_ctx *tk)
{
    pthread_mutex_lock(&tk->mu);
    tk->gate_open = false;
    pthread_mutex_unlock(&tk->mu);
}

size_t tk_events(tk_ctx *tk, char *buf, size_t cap)
{
    pthread_mutex_lock(&tk->mu);
    snprintf(buf, cap, "%s", tk->log);
    size_t n = tk->nevents;
    pthread_mutex_unlock(&tk->mu);
    return n;
}

static long find_event_locked(const tk_ctx *tk, const char *ev)
{
    size_t n = strlen(ev);
    long idx = 0;
    for (const char *p = tk->log; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len == n && memcmp(p, ev, n) == 0) {
            return idx;
        }
        idx++;
        p += len + (nl ? 1 : 0);
    }
    return -1;
}

long tk_event_index(tk_ctx *tk, const char *ev)
{
    pthread_mutex_lock(&tk->mu);
    long i = find_event_locked(tk, ev);
    pthread_mutex_unlock(&tk->mu);
    return i;
}

bool tk_wait_event(tk_ctx *tk, const char *ev, unsigned timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&tk->mu);
    bool found;
    while (!(found = find_event_locked(tk, ev) >= 0)) {
        if (pthread_cond_timedwait(&tk->cv, &tk->mu, &ts) != 0) {
            found = find_event_locked(tk, ev) >= 0;
            break;
        }
    }
    pthread_mutex_unlock(&tk->mu);
    return found;
}

void tk_clear_events(tk_ctx *tk)
{
    pthread_mutex_lock(&tk->mu);
    tk->log_len = 0;
    tk->log[0] = '\0';
    tk->nevents = 0;
    tk->synth_max = tk->synth_now;
    pthread_mutex_unlock(&tk->mu);
}

unsigned tk_max_concurrent(tk_ctx *tk)
{
    pthread_mutex_lock(&tk->mu);
    unsigned m = tk->synth_max;
    pthread_mutex_unlock(&tk->mu);
    return m;
}

/* ---------------------------------------------------------------------------------------------
 * Encoding
 * ------------------------------------------------------------------------------------------- */

#define TK_HDR 24 /* "TK01" flags sleep_ms mem_bytes nparts */

size_t tk_encoded_len(const tk_req *r)
{
    return TK_HDR + 8 * (size_t)r->nparts;
}

size_t tk_encode(uint8_t *buf, const tk_req *r)
{
    memcpy(buf, "TK01", 4);
    cz_store_le32(buf + 4, r->flags);
    cz_store_le32(buf + 8, r->sleep_ms);
    cz_store_le64(buf + 12, r->mem_bytes);
    cz_store_le32(buf + 20, r->nparts);
    for (uint32_t i = 0; i < r->nparts; i++) {
        cz_store_le64(buf + TK_HDR + 8 * i, r->x[i]);
    }
    return tk_encoded_len(r);
}

static cuzk_err tk_decode(tk_req *r, const uint8_t *p, size_t len, cz_diag *dg)
{
    memset(r, 0, sizeof(*r));
    if (len < TK_HDR || memcmp(p, "TK01", 4) != 0) {
        return cz_fail(dg, CUZK_E_FORMAT, "not a test-kind request (%zu bytes)", len);
    }
    r->flags = cz_load_le32(p + 4);
    r->sleep_ms = cz_load_le32(p + 8);
    r->mem_bytes = cz_load_le64(p + 12);
    r->nparts = cz_load_le32(p + 20);
    if (r->nparts == 0 || r->nparts > TK_MAX_PARTS || len != tk_encoded_len(r)) {
        return cz_fail(dg, CUZK_E_FORMAT, "bad test-kind partition count %u for %zu bytes",
                       r->nparts, len);
    }
    for (uint32_t i = 0; i < r->nparts; i++) {
        r->x[i] = cz_load_le64(p + TK_HDR + 8 * i);
    }
    return CUZK_OK;
}

/* ---------------------------------------------------------------------------------------------
 * Handler
 * ------------------------------------------------------------------------------------------- */

static cuzk_err tk_parse(void *ctx, const eng_request_t *req, eng_plan_t *plan, cz_diag *dg)
{
    tk_ctx *tk = ctx;
    const eng_bytes_t *b = req->vanilla_proof.len  ? &req->vanilla_proof
                           : req->n_vanilla_proofs ? &req->vanilla_proofs[0]
                                                   : NULL;
    tk_plan *st = cz_calloc(1, sizeof(*st));
    if (!st) {
        return cz_fail(dg, CUZK_E_NOMEM, "tk plan");
    }
    tk_log(tk, "parse %s", plan->job_id);
    cuzk_err err =
        b ? tk_decode(&st->req, b->ptr, b->len, dg) : cz_fail(dg, CUZK_E_FORMAT, "no payload");
    if (err == CUZK_OK && (st->req.flags & TK_PARSE_FAIL)) {
        err = cz_fail(dg, CUZK_E_FORMAT, "test kind told to reject this request");
    }
    if (err != CUZK_OK) {
        cz_free(st);
        return err;
    }
    snprintf(plan->circuit_id, sizeof(plan->circuit_id), "%s",
             (st->req.flags & TK_BIG) ? "test-cubic-big" : "test-cubic");
    plan->num_partitions = st->req.nparts;
    plan->partition_mem_bytes = st->req.mem_bytes;
    if (st->req.flags & TK_COUNTS) { /* about the cubic circuit's: a capacity hint */
        plan->shape = (cs_counts_t){.num_inputs = 2, .num_aux = 11, .num_constraints = 11};
    }
    plan->state = st;
    return CUZK_OK;
}

static cuzk_err tk_verify_vanilla(void *ctx, eng_plan_t *plan, size_t k0, size_t k1, cz_diag *dg)
{
    tk_ctx *tk = ctx;
    const tk_plan *st = plan->state;

    CZ_CHECK(k0 <= k1 && k1 <= plan->num_partitions);
    if ((st->req.flags & TK_BAD_VANILLA) && k1 == plan->num_partitions && k0 < k1) {
        tk_log(tk, "verify %s", plan->job_id);
        plan->fault_entry = 1;
        return cz_fail(dg, CUZK_E_FORMAT,
                       "test kind told to reject the vanilla proof of "
                       "partition %zu",
                       k1 - 1);
    }
    return CUZK_OK;
}

static cuzk_err tk_synthesize(void *ctx, const eng_plan_t *plan, size_t k, cs_t *cs, cz_diag *dg)
{
    tk_ctx *tk = ctx;
    const tk_plan *st = plan->state;
    cuzk_err err = CUZK_OK;

    pthread_mutex_lock(&tk->mu);
    tk->synth_now++;
    if (tk->synth_now > tk->synth_max) {
        tk->synth_max = tk->synth_now;
    }
    pthread_mutex_unlock(&tk->mu);
    tk_log(tk, "synth %s %zu", plan->job_id, k);

    if ((st->req.flags & TK_GATE) && k == 0) {
        /* Wait for the gate, polling the engine's cancellation flag as a long stage should. */
        pthread_mutex_lock(&tk->mu);
        while (!tk->gate_open && !atomic_load(plan->cancelled)) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            ts.tv_nsec += 10 * 1000000L;
            if (ts.tv_nsec >= 1000000000L) {
                ts.tv_sec++;
                ts.tv_nsec -= 1000000000L;
            }
            pthread_cond_timedwait(&tk->cv, &tk->mu, &ts);
        }
        if (!tk->gate_open) {
            err = cz_fail(dg, CUZK_E_CANCELLED, "cancelled at the gate");
        }
        pthread_mutex_unlock(&tk->mu);
    }
    if (err == CUZK_OK && st->req.sleep_ms) {
        uint64_t ms = (uint64_t)st->req.sleep_ms * ((st->req.flags & TK_STAGGER) ? k + 1 : 1);
        struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
                              .tv_nsec = (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (err == CUZK_OK && (st->req.flags & TK_BAD_SYNTH) && k + 1 == plan->num_partitions) {
        err = cz_fail(dg, CUZK_E_FORMAT, "test kind told to fail partition %zu", k);
    } else if (err == CUZK_OK) {
        err = tk_circuit(cs, &st->req.x[k],
                         (st->req.flags & TK_BIG) ? TK_ROUNDS_BIG : TK_ROUNDS_SMALL);
    }
    pthread_mutex_lock(&tk->mu);
    tk->synth_now--;
    pthread_mutex_unlock(&tk->mu);
    tk_log(tk, "synthed %s %zu", plan->job_id, k);
    return err;
}

static cuzk_err tk_public_inputs(void *ctx, const eng_plan_t *plan, size_t k, fr_t *out, size_t n,
                                 cz_diag *dg)
{
    tk_ctx *tk = ctx;
    const tk_plan *st = plan->state;

    tk_log(tk, "pi %s %zu", plan->job_id, k);
    if (st->req.flags & TK_SLOW_PI) {
        uint64_t ms = 2 * (uint64_t)st->req.sleep_ms;
        struct timespec ts = {.tv_sec = (time_t)(ms / 1000),
                              .tv_nsec = (long)(ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (n != 1) {
        return cz_fail(dg, CUZK_E_INVAL, "test circuit has 1 public input, parameters %zu", n);
    }
    tk_public_input(&out[0], st->req.x[k]);
    if ((st->req.flags & TK_BAD_INPUT) && k == 0) {
        fr_add(&out[0], &out[0], &FR_ONE);
    }
    return CUZK_OK;
}

static void tk_plan_free(void *ctx, eng_plan_t *plan)
{
    tk_ctx *tk = ctx;
    tk_log(tk, "free %s", plan->job_id);
    cz_free(plan->state);
    plan->state = NULL;
}

static bool tk_srs_file(void *ctx, const char *circuit_id, char *name, size_t cap)
{
    (void)ctx;
    if (strcmp(circuit_id, "test-cubic") == 0) {
        snprintf(name, cap, "tk-test-cubic.params");
        return true;
    }
    if (strcmp(circuit_id, "test-cubic-big") == 0) {
        snprintf(name, cap, "tk-test-cubic-big.params");
        return true;
    }
    return false;
}

const eng_kind_ops tk_ops = {
    .parse = tk_parse,
    .verify_vanilla = tk_verify_vanilla,
    .synthesize = tk_synthesize,
    .public_inputs = tk_public_inputs,
    .plan_free = tk_plan_free,
    .srs_file = tk_srs_file,
    .batchable = false,
};

const eng_kind_ops tk_ops_batchable = {
    .parse = tk_parse,
    .verify_vanilla = tk_verify_vanilla,
    .synthesize = tk_synthesize,
    .public_inputs = tk_public_inputs,
    .plan_free = tk_plan_free,
    .srs_file = tk_srs_file,
    .batchable = true,
};
