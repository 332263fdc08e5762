/* post.c - the WINNING_POST and WINDOW_POST_PARTITION handlers (fallback PoSt; spec
 * vanilla-proofs.md 2, 4.4, 5).
 *
 * Input: vanilla_proofs = bincode FallbackPoStSectorProof, one per sector (WinningPoSt: exactly
 * one, whose 66 inclusion proofs become the circuit's 66 sectors; WindowPoSt: the sectors of
 * one partition in the client's order, at most the circuit's sector count, the last one
 * repeated up to it), randomness (32 bytes, a field element: it is refused, not trimmed, when
 * >= r), registered_proof (Go abi RegisteredPoStProof: Winning 0..4, Window 5..14) and, for
 * WindowPoSt, partition_index (the challenge indices of API V1_0 depend on it). Output: one
 * 192-byte proof.
 *
 * verify_vanilla verifies every sector proof natively (vp_post_verify: comm_r = H(comm_c,
 * comm_r_last), every path against comm_r_last at the leaf challenge derived from the
 * randomness).
 */
#include "kinds/internal.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

typedef struct post_state {
    seal_post_config pc;
    uint8_t randomness[32];
    uint32_t partition;
    size_t n;
    vp_post_proof *proofs; /* n */
} post_state;

static void post_state_free(post_state *st)
{
    if (!st) {
        return;
    }
    for (size_t i = 0; st->proofs && i < st->n; i++) {
        vp_post_clear(&st->proofs[i]);
    }
    cz_free(st->proofs);
    cz_free(st);
}

static cuzk_err post_parse(seal_post_type type, const eng_request_t *req, eng_plan_t *plan,
                           cz_diag *dg)
{
    const char *kn = eng_kind_name(req->kind);
    post_state *st = cz_calloc(1, sizeof(*st));
    cuzk_err err = CUZK_OK;

    if (!st) {
        return cz_fail(dg, CUZK_E_NOMEM, "post plan");
    }
    if (req->registered_proof > UINT32_MAX ||
        !seal_post_config_for_id(&st->pc, (uint32_t)req->registered_proof) || st->pc.type != type) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "registered_proof %" PRIu64 " is not a %s proof (RegisteredPoStProof %s)",
                      req->registered_proof, kn, type == SEAL_POST_WINNING ? "0..4" : "5..14");
        goto fail;
    }
    const seal_post_config *pc = &st->pc;
    uint64_t size = pc->shape.sector_size;
    if (req->sector_size != 0 && req->sector_size != size) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "sector_size %" PRIu64 " does not match registered_proof %" PRIu64
                      " (%s, %" PRIu64 " bytes)",
                      req->sector_size, req->registered_proof, pc->name, size);
        goto fail;
    }
    if (req->randomness.len != 32 || !seal_node_is_fr(req->randomness.ptr)) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "randomness is not a field element (>= r; Curio clears its top two bits)");
        goto fail;
    }
    memcpy(st->randomness, req->randomness.ptr, 32);
    /* The circuit's sectors per partition: WinningPoSt proves 1 API sector. */
    uint32_t max_sectors = type == SEAL_POST_WINNING ? 1 : pc->sector_count;
    if (req->n_vanilla_proofs == 0 || req->n_vanilla_proofs > max_sectors) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "%zu vanilla proofs, but a %s partition holds 1 to %u sectors",
                      req->n_vanilla_proofs, pc->name, max_sectors);
        goto fail;
    }
    st->partition = type == SEAL_POST_WINDOW ? req->partition_index : 0;
    st->n = req->n_vanilla_proofs;
    st->proofs = cz_calloc(st->n, sizeof(*st->proofs));
    if (!st->proofs) {
        err = cz_fail(dg, CUZK_E_NOMEM, "post plan");
        goto fail;
    }
    for (size_t i = 0; i < st->n; i++) {
        const eng_bytes_t *b = &req->vanilla_proofs[i];
        cz_diag sub;
        cz_diag_init(&sub);
        err = vp_post_from_bincode(&st->proofs[i], size, b->ptr, b->len, &sub);
        if (err != CUZK_OK) {
            err = cz_fail(dg, err, "vanilla_proofs[%zu]: %s", i,
                          sub.msg[0] ? sub.msg : cuzk_strerror(err));
            plan->fault_entry = i + 1;
            goto fail;
        }
    }
    err = eng_fil_plan_circuit(
        plan, type == SEAL_POST_WINNING ? CIRC_WINNING_POST : CIRC_WINDOW_POST, size, dg);
    if (err != CUZK_OK) {
        goto fail;
    }
    plan->num_partitions = 1;
    plan->state = st;
    return CUZK_OK;
fail:
    post_state_free(st);
    return err;
}

/* The one partition: every sector proof at its position in the partition. */
static cuzk_err post_verify_vanilla(void *ctx, eng_plan_t *plan, size_t k0, size_t k1, cz_diag *dg)
{
    const post_state *st = plan->state;

    (void)ctx;
    CZ_CHECK(k0 <= k1 && k1 <= 1);
    for (size_t i = 0; k0 < k1 && i < st->n; i++) {
        uint64_t sector_index = (uint64_t)st->partition * st->pc.sector_count + i;
        cz_diag sub;
        cz_diag_init(&sub);
        cuzk_err err = vp_post_verify(&st->proofs[i], &st->pc, st->randomness, sector_index, &sub);
        if (err != CUZK_OK) {
            plan->fault_entry = i + 1;
            return cz_fail(dg, err, "vanilla_proofs[%zu]: %s", i,
                           sub.msg[0] ? sub.msg : cuzk_strerror(err));
        }
    }
    return CUZK_OK;
}

static cuzk_err winning_parse(void *ctx, const eng_request_t *req, eng_plan_t *plan, cz_diag *dg)
{
    (void)ctx;
    return post_parse(SEAL_POST_WINNING, req, plan, dg);
}

static cuzk_err window_parse(void *ctx, const eng_request_t *req, eng_plan_t *plan, cz_diag *dg)
{
    (void)ctx;
    return post_parse(SEAL_POST_WINDOW, req, plan, dg);
}

static cuzk_err post_synthesize(void *ctx, const eng_plan_t *plan, size_t k, cs_t *cs, cz_diag *dg)
{
    const post_state *st = plan->state;
    circ_post_vanilla_t v;
    cuzk_err err;

    (void)ctx;
    CZ_CHECK(k == 0);
    if (atomic_load(plan->cancelled)) {
        return CUZK_E_CANCELLED;
    }
    err = circ_post_from_vanilla(&v, &st->pc, st->proofs, st->n, dg);
    if (err != CUZK_OK) {
        return err;
    }
    circ_post_synth(cs, &v.cfg, v.sectors, plan->pool);
    circ_post_vanilla_clear(&v);
    return cs_status(cs);
}

static cuzk_err post_public_inputs(void *ctx, const eng_plan_t *plan, size_t k, fr_t *out, size_t n,
                                   cz_diag *dg)
{
    const post_state *st = plan->state;
    size_t want = vp_post_num_inputs(&st->pc);

    (void)ctx;
    CZ_CHECK(k == 0);
    if (n != want) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "the parameters of %s take %zu public inputs, the %s circuit has %zu",
                       plan->circuit_id, n, st->pc.name, want);
    }
    return vp_post_public_inputs_of(out, &st->pc, st->randomness, st->proofs, st->n, st->partition,
                                    dg);
}

static void post_plan_free(void *ctx, eng_plan_t *plan)
{
    (void)ctx;
    post_state_free(plan->state);
    plan->state = NULL;
}

static bool winning_srs_file(void *ctx, const char *circuit_id, char *name, size_t cap)
{
    (void)ctx;
    return eng_fil_srs_file(CIRC_WINNING_POST, circuit_id, name, cap);
}

static bool window_srs_file(void *ctx, const char *circuit_id, char *name, size_t cap)
{
    (void)ctx;
    return eng_fil_srs_file(CIRC_WINDOW_POST, circuit_id, name, cap);
}

const eng_kind_ops eng_winning_post_ops = {
    .parse = winning_parse,
    .verify_vanilla = post_verify_vanilla,
    .synthesize = post_synthesize,
    .public_inputs = post_public_inputs,
    .plan_free = post_plan_free,
    .srs_file = winning_srs_file,
    .batchable = false,
    .synth_version = CIRC_SYNTH_VERSION,
};

const eng_kind_ops eng_window_post_ops = {
    .parse = window_parse,
    .verify_vanilla = post_verify_vanilla,
    .synthesize = post_synthesize,
    .public_inputs = post_public_inputs,
    .plan_free = post_plan_free,
    .srs_file = window_srs_file,
    .batchable = false,
    .synth_version = CIRC_SYNTH_VERSION,
};
