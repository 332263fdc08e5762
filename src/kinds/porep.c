/* porep.c - the POREP_SEAL_COMMIT handler (PoRep C2; spec vanilla-proofs.md 1, 4.4, 5).
 *
 * Input: vanilla_proof = the C1 output, either the bare `SealCommitPhase1Output` JSON of
 * filecoin-ffi or Curio's wrapper {"SectorNum", "Phase1Out": base64, "SectorSize"}. As in the
 * reference daemon, the registered proof inside the C1 output decides the circuit and the
 * challenge derivation; the request's sector_size, when given, must agree with it. Output: one
 * Groth16 proof per partition, concatenated in partition order.
 *
 * verify_vanilla verifies the C1 output natively (vp_c1_verify_partitions: challenges from
 * replica_id / seed, parents from the graph, every path, label and column hash), so a C1 that
 * cannot satisfy the circuit fails with the partition, challenge and field at fault.
 * Non-interactive PoRep is refused: its output is a SnarkPack aggregate, not concatenated
 * partition proofs.
 *
 * Synthesis spreads a partition's challenges over plan->pool (circ_porep_synth_pool; the
 * result is identical to sequential synthesis). The pool needs what one challenge adds to the
 * constraint system, the same for every partition of a sector size: counted once per size and
 * process (a counter-backend synthesis of one challenge) and remembered in a small table that
 * its mutex guards only while looking up and inserting; two threads may count the same size
 * once each.
 */
#include "kinds/internal.h"

#include <inttypes.h>
#include <pthread.h>
#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

typedef struct porep_state {
    vp_c1 c1;
} porep_state;

static cuzk_err porep_parse(void *ctx, const eng_request_t *req, eng_plan_t *plan, cz_diag *dg)
{
    porep_state *st = NULL;
    cuzk_err err;
    circ_porep_cfg_t ccfg;

    (void)ctx;
    st = cz_calloc(1, sizeof(*st));
    if (!st) {
        return cz_fail(dg, CUZK_E_NOMEM, "porep plan");
    }
    err = vp_c1_parse(&st->c1, (const char *)req->vanilla_proof.ptr, req->vanilla_proof.len, dg);
    if (err != CUZK_OK) {
        plan->fault_entry = 1; /* the vanilla_proof */
        goto fail;
    }
    const seal_porep_config *cfg = &st->c1.cfg;
    if (cfg->kind == SEAL_POREP_NI) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "%s is non-interactive PoRep, whose proof is a SnarkPack aggregate: not "
                      "supported",
                      cfg->name);
        goto fail;
    }
    if (req->sector_size != 0 && req->sector_size != cfg->shape.sector_size) {
        err =
            cz_fail(dg, CUZK_E_INVAL,
                    "sector_size %" PRIu64 " does not match the C1 output (%s, %" PRIu64 " bytes)",
                    req->sector_size, cfg->name, cfg->shape.sector_size);
        goto fail;
    }
    if (!circ_porep_cfg_for_sector(&ccfg, cfg->shape.sector_size) ||
        ccfg.challenges != st->c1.challenges || st->c1.partitions != cfg->partitions) {
        err = cz_fail(dg, CUZK_E_INVAL, "%s: %u partitions of %u challenges fit no PoRep circuit",
                      cfg->name, st->c1.partitions, st->c1.challenges);
        goto fail;
    }
    err = eng_fil_plan_circuit(plan, CIRC_POREP, cfg->shape.sector_size, dg);
    if (err != CUZK_OK) {
        goto fail;
    }
    plan->num_partitions = st->c1.partitions;
    plan->state = st;
    return CUZK_OK;
fail:
    vp_c1_clear(&st->c1);
    cz_free(st);
    return err;
}

static cuzk_err porep_verify_vanilla(void *ctx, eng_plan_t *plan, size_t k0, size_t k1, cz_diag *dg)
{
    const porep_state *st = plan->state;

    (void)ctx;
    cuzk_err err =
        vp_c1_verify_partitions(&st->c1, NULL, (uint32_t)k0, (uint32_t)k1, plan->pool, dg);
    if (err != CUZK_OK) {
        plan->fault_entry = 1;
    }
    return err;
}

/* ---- challenge counts, per sector size ---------------------------------------------------- */

#define CHALLENGE_MEMO_CAP 16 /* more than the supported sector sizes */

static pthread_mutex_t challenge_memo_mu = PTHREAD_MUTEX_INITIALIZER;
static struct {
    circ_porep_cfg_t cfg;
    cs_counts_t counts;
} challenge_memo[CHALLENGE_MEMO_CAP];
static size_t challenge_memo_len;

/* Same challenge shape (the challenge count does not matter). */
static bool same_challenge_shape(const circ_porep_cfg_t *a, const circ_porep_cfg_t *b)
{
    return a->nodes == b->nodes && a->layers == b->layers &&
           a->tree.base_arity == b->tree.base_arity && a->tree.sub_arity == b->tree.sub_arity &&
           a->tree.top_arity == b->tree.top_arity && a->tree.base_levels == b->tree.base_levels &&
           a->tree_d.base_arity == b->tree_d.base_arity &&
           a->tree_d.base_levels == b->tree_d.base_levels;
}

static cuzk_err challenge_counts(cs_counts_t *out, const circ_porep_cfg_t *cfg, cz_diag *dg)
{
    bool found = false;

    pthread_mutex_lock(&challenge_memo_mu);
    for (size_t i = 0; i < challenge_memo_len && !found; i++) {
        if (same_challenge_shape(&challenge_memo[i].cfg, cfg)) {
            *out = challenge_memo[i].counts;
            found = true;
        }
    }
    pthread_mutex_unlock(&challenge_memo_mu);
    if (found) {
        return CUZK_OK;
    }
    cuzk_err err = circ_porep_challenge_counts(out, cfg, dg);
    if (err != CUZK_OK) {
        return err;
    }
    pthread_mutex_lock(&challenge_memo_mu);
    for (size_t i = 0; i < challenge_memo_len; i++) {
        found |= same_challenge_shape(&challenge_memo[i].cfg, cfg);
    }
    if (!found && challenge_memo_len < CHALLENGE_MEMO_CAP) {
        challenge_memo[challenge_memo_len].cfg = *cfg;
        challenge_memo[challenge_memo_len].counts = *out;
        challenge_memo_len++;
    }
    pthread_mutex_unlock(&challenge_memo_mu);
    return CUZK_OK;
}

static cuzk_err porep_synthesize(void *ctx, const eng_plan_t *plan, size_t k, cs_t *cs, cz_diag *dg)
{
    const porep_state *st = plan->state;
    circ_porep_vanilla_t v;
    cuzk_err err;

    (void)ctx;
    if (atomic_load(plan->cancelled)) {
        return CUZK_E_CANCELLED;
    }
    err = circ_porep_from_c1(&v, &st->c1, (uint32_t)k, dg);
    if (err != CUZK_OK) {
        return err;
    }
    cs_counts_t each;
    const cs_counts_t *counts = NULL;
    if (plan->pool && cz_pool_width(plan->pool) > 1 && cs_has_values(cs)) {
        err = challenge_counts(&each, &v.cfg, dg);
        if (err != CUZK_OK) {
            circ_porep_vanilla_clear(&v);
            return err;
        }
        counts = &each;
    }
    circ_porep_synth_pool(cs, &v.cfg, &v.w, plan->pool, counts);
    circ_porep_vanilla_clear(&v);
    return cs_status(cs);
}

static cuzk_err porep_public_inputs(void *ctx, const eng_plan_t *plan, size_t k, fr_t *out,
                                    size_t n, cz_diag *dg)
{
    const porep_state *st = plan->state;
    const vp_c1 *c1 = &st->c1;
    size_t want = vp_porep_num_inputs(&c1->cfg);

    (void)ctx;
    if (n != want) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "the parameters of %s take %zu public inputs, the %s circuit has %zu",
                       plan->circuit_id, n, c1->cfg.name, want);
    }
    return vp_porep_public_inputs(out, &c1->cfg, c1->replica_id, c1->comm_d, c1->comm_r, c1->seed,
                                  (uint32_t)k, dg);
}

static void porep_plan_free(void *ctx, eng_plan_t *plan)
{
    porep_state *st = plan->state;
    (void)ctx;
    if (st) {
        vp_c1_clear(&st->c1);
        cz_free(st);
        plan->state = NULL;
    }
}

static bool porep_srs_file(void *ctx, const char *circuit_id, char *name, size_t cap)
{
    (void)ctx;
    return eng_fil_srs_file(CIRC_POREP, circuit_id, name, cap);
}

const eng_kind_ops eng_porep_ops = {
    .parse = porep_parse,
    .verify_vanilla = porep_verify_vanilla,
    .synthesize = porep_synthesize,
    .public_inputs = porep_public_inputs,
    .plan_free = porep_plan_free,
    .srs_file = porep_srs_file,
    .batchable = true,
    .synth_version = CIRC_SYNTH_VERSION,
};
