/* snap.c - the SNAP_DEALS_UPDATE handler (EmptySectorUpdate, SHA-256 TreeD variant; spec
 * vanilla-proofs.md 3, 4.4, 5).
 *
 * Input: vanilla_proofs = bincode PartitionProof, one per partition in partition order (exactly
 * the P of the registered update proof), comm_r_old, comm_r_new, comm_d_new (32 bytes each,
 * field elements), registered_proof (abi RegisteredUpdateProof 0..4; ProofShare leaves
 * sector_size 0, so the size comes from it). Output: P x 192 bytes in partition order.
 *
 * verify_vanilla verifies partitions natively (vp_snap_verify: challenges from comm_r_new, the
 * three paths per challenge, the encoding new = old + data * rho, the apex leaves).
 */
#include "kinds/internal.h"

#include <inttypes.h>
#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

typedef struct snap_state {
    seal_update_config uc;
    uint8_t comm_r_old[32], comm_d_new[32], comm_r_new[32];
    size_t n;
    vp_snap_proof *parts; /* n = uc.partitions */
} snap_state;

static void snap_state_free(snap_state *st)
{
    if (!st) {
        return;
    }
    for (size_t i = 0; st->parts && i < st->n; i++) {
        vp_snap_clear(&st->parts[i]);
    }
    cz_free(st->parts);
    cz_free(st);
}

static cuzk_err snap_parse(void *ctx, const eng_request_t *req, eng_plan_t *plan, cz_diag *dg)
{
    snap_state *st = cz_calloc(1, sizeof(*st));
    cuzk_err err = CUZK_OK;

    (void)ctx;
    if (!st) {
        return cz_fail(dg, CUZK_E_NOMEM, "snap plan");
    }
    if (req->registered_proof > UINT32_MAX ||
        !seal_update_config_for_id(&st->uc, (uint32_t)req->registered_proof)) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "registered_proof %" PRIu64 " is not a RegisteredUpdateProof (0..4)",
                      req->registered_proof);
        goto fail;
    }
    const seal_update_config *uc = &st->uc;
    uint64_t size = uc->shape.sector_size;
    if (req->sector_size != 0 && req->sector_size != size) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "sector_size %" PRIu64 " does not match registered_proof %" PRIu64
                      " (%s, %" PRIu64 " bytes)",
                      req->sector_size, req->registered_proof, uc->name, size);
        goto fail;
    }
    eng_fil_copy32(st->comm_r_old, &req->comm_r_old);
    eng_fil_copy32(st->comm_d_new, &req->comm_d_new);
    eng_fil_copy32(st->comm_r_new, &req->comm_r_new);
    if (!seal_node_is_fr(st->comm_r_old) || !seal_node_is_fr(st->comm_d_new) ||
        !seal_node_is_fr(st->comm_r_new)) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "comm_r_old, comm_d_new and comm_r_new must be field elements (< r)");
        goto fail;
    }
    if (req->n_vanilla_proofs != uc->partitions) {
        err = cz_fail(dg, CUZK_E_INVAL,
                      "%zu vanilla proofs, but %s has %u partitions (one proof each, in order)",
                      req->n_vanilla_proofs, uc->name, uc->partitions);
        goto fail;
    }
    st->n = uc->partitions;
    st->parts = cz_calloc(st->n, sizeof(*st->parts));
    if (!st->parts) {
        err = cz_fail(dg, CUZK_E_NOMEM, "snap plan");
        goto fail;
    }
    for (size_t k = 0; k < st->n; k++) {
        const eng_bytes_t *b = &req->vanilla_proofs[k];
        cz_diag sub;
        cz_diag_init(&sub);
        err = vp_snap_from_bincode(&st->parts[k], size, b->ptr, b->len, &sub);
        if (err != CUZK_OK) {
            err = cz_fail(dg, err, "vanilla_proofs[%zu] (partition %zu): %s", k, k,
                          sub.msg[0] ? sub.msg : cuzk_strerror(err));
            plan->fault_entry = k + 1;
            goto fail;
        }
    }
    err = eng_fil_plan_circuit(plan, CIRC_UPDATE, size, dg);
    if (err != CUZK_OK) {
        goto fail;
    }
    plan->num_partitions = st->n;
    plan->state = st;
    return CUZK_OK;
fail:
    snap_state_free(st);
    return err;
}

static cuzk_err snap_verify_vanilla(void *ctx, eng_plan_t *plan, size_t k0, size_t k1, cz_diag *dg)
{
    const snap_state *st = plan->state;

    (void)ctx;
    CZ_CHECK(k0 <= k1 && k1 <= st->n);
    for (size_t k = k0; k < k1; k++) {
        cz_diag sub;
        cz_diag_init(&sub);
        cuzk_err err = vp_snap_verify(&st->parts[k], &st->uc, (uint32_t)k, st->comm_r_old,
                                      st->comm_d_new, st->comm_r_new, &sub);
        if (err != CUZK_OK) {
            plan->fault_entry = k + 1;
            return cz_fail(dg, err, "vanilla_proofs[%zu] (partition %zu): %s", k, k,
                           sub.msg[0] ? sub.msg : cuzk_strerror(err));
        }
    }
    return CUZK_OK;
}

static cuzk_err snap_synthesize(void *ctx, const eng_plan_t *plan, size_t k, cs_t *cs, cz_diag *dg)
{
    const snap_state *st = plan->state;
    circ_update_vanilla_t *v;
    cuzk_err err;

    (void)ctx;
    if (atomic_load(plan->cancelled)) {
        return CUZK_E_CANCELLED;
    }
    v = cz_calloc(1, sizeof(*v)); /* holds 128 apex leaves: keep it off the stack */
    if (!v) {
        return cz_fail(dg, CUZK_E_NOMEM, "snap witness");
    }
    err = circ_update_from_vanilla(v, &st->uc, &st->parts[k], (uint32_t)k, st->comm_r_old,
                                   st->comm_d_new, st->comm_r_new, dg);
    if (err == CUZK_OK) {
        circ_update_synth_pool(cs, &v->cfg, &v->w, plan->pool);
        circ_update_vanilla_clear(v);
        err = cs_status(cs);
    }
    cz_free(v);
    return err;
}

static cuzk_err snap_public_inputs(void *ctx, const eng_plan_t *plan, size_t k, fr_t *out, size_t n,
                                   cz_diag *dg)
{
    const snap_state *st = plan->state;

    (void)ctx;
    if (n != 4) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "the parameters of %s take %zu public inputs, the %s circuit has 4",
                       plan->circuit_id, n, st->uc.name);
    }
    return vp_snap_public_inputs(out, &st->uc, (uint32_t)k, st->comm_r_old, st->comm_d_new,
                                 st->comm_r_new, dg);
}

static void snap_plan_free(void *ctx, eng_plan_t *plan)
{
    (void)ctx;
    snap_state_free(plan->state);
    plan->state = NULL;
}

static bool snap_srs_file(void *ctx, const char *circuit_id, char *name, size_t cap)
{
    (void)ctx;
    return eng_fil_srs_file(CIRC_UPDATE, circuit_id, name, cap);
}

const eng_kind_ops eng_snap_ops = {
    .parse = snap_parse,
    .verify_vanilla = snap_verify_vanilla,
    .synthesize = snap_synthesize,
    .public_inputs = snap_public_inputs,
    .plan_free = snap_plan_free,
    .srs_file = snap_srs_file,
    .batchable = true,
    .synth_version = CIRC_SYNTH_VERSION,
};
