/* kinds.c - proof-kind names, default priorities, the protocol checks of a request, and the
 * list of handlers compiled into this build (the Filecoin kinds: kind_filecoin.h). */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#include "engine/kind_filecoin.h"

const char *eng_kind_name(eng_kind kind)
{
    switch (kind) {
    case ENG_KIND_POREP:
        return "porep-c2";
    case ENG_KIND_SNAP:
        return "snap-update";
    case ENG_KIND_WINDOW_POST:
        return "window-post";
    case ENG_KIND_WINNING_POST:
        return "winning-post";
    default:
        return "unspecified";
    }
}

const char *eng_kind_label(eng_kind kind)
{
    switch (kind) {
    case ENG_KIND_POREP:
        return "porep_c2";
    case ENG_KIND_SNAP:
        return "snap_update";
    case ENG_KIND_WINDOW_POST:
        return "window_post";
    case ENG_KIND_WINNING_POST:
        return "winning_post";
    default:
        return "unspecified";
    }
}

const char *eng_prio_name(eng_prio prio)
{
    static const char *const names[] = {"unspecified", "low", "normal", "high", "critical"};
    return (unsigned)prio < ARRAY_LEN(names) ? names[prio] : "?";
}

eng_prio eng_default_prio(eng_kind kind)
{
    switch (kind) {
    case ENG_KIND_WINNING_POST:
        return ENG_PRIO_CRITICAL;
    case ENG_KIND_WINDOW_POST:
        return ENG_PRIO_HIGH;
    default:
        return ENG_PRIO_NORMAL;
    }
}

static bool empty_or_32(const eng_bytes_t *b)
{
    return b->len == 0 || b->len == 32;
}

cuzk_err eng_request_check(const eng_request_t *req, cz_diag *dg)
{
    const char *kn = eng_kind_name(req->kind);

    if (req->kind <= ENG_KIND_UNSPECIFIED || req->kind >= ENG_KIND_COUNT) {
        return cz_fail(dg, CUZK_E_INVAL, "invalid proof_kind %d (expected 1..4)", (int)req->kind);
    }
    if ((int)req->priority < 0 || req->priority >= ENG_PRIO_COUNT) {
        return cz_fail(dg, CUZK_E_INVAL, "invalid priority %d (expected 0..4)", (int)req->priority);
    }
    if (req->request_id) {
        size_t n = strlen(req->request_id);
        if (n >= ENG_ID_MAX) {
            return cz_fail(dg, CUZK_E_INVAL, "request_id is %zu bytes long (at most %d)", n,
                           ENG_ID_MAX - 1);
        }
        for (size_t i = 0; i < n; i++) {
            unsigned char c = (unsigned char)req->request_id[i];
            if (c <= 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                return cz_fail(dg, CUZK_E_INVAL,
                               "request_id must be printable ASCII without spaces, quotes or "
                               "backslashes (byte %zu is 0x%02x)",
                               i, c);
            }
        }
    }
    if (!empty_or_32(&req->randomness)) {
        return cz_fail(dg, CUZK_E_INVAL, "randomness is %zu bytes (expected 32)",
                       req->randomness.len);
    }
    if (!empty_or_32(&req->comm_r_old) || !empty_or_32(&req->comm_r_new) ||
        !empty_or_32(&req->comm_d_new)) {
        return cz_fail(dg, CUZK_E_INVAL,
                       "comm_r_old, comm_r_new, comm_d_new are %zu, %zu, %zu bytes (expected 32)",
                       req->comm_r_old.len, req->comm_r_new.len, req->comm_d_new.len);
    }
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        if (req->vanilla_proofs[i].len == 0) {
            return cz_fail(dg, CUZK_E_INVAL, "%s: vanilla_proofs[%zu] is empty", kn, i);
        }
    }
    switch (req->kind) {
    case ENG_KIND_POREP:
        if (req->vanilla_proof.len == 0) {
            return cz_fail(dg, CUZK_E_INVAL, "%s needs vanilla_proof (the C1 output)", kn);
        }
        break;
    case ENG_KIND_SNAP:
        if (req->n_vanilla_proofs == 0) {
            return cz_fail(dg, CUZK_E_INVAL, "%s needs vanilla_proofs (one per partition)", kn);
        }
        if (!req->comm_r_old.len || !req->comm_r_new.len || !req->comm_d_new.len) {
            return cz_fail(dg, CUZK_E_INVAL, "%s needs comm_r_old, comm_r_new and comm_d_new", kn);
        }
        break;
    case ENG_KIND_WINDOW_POST:
    case ENG_KIND_WINNING_POST:
        if (req->n_vanilla_proofs == 0) {
            return cz_fail(dg, CUZK_E_INVAL, "%s needs vanilla_proofs (one per sector)", kn);
        }
        if (req->kind == ENG_KIND_WINNING_POST && req->n_vanilla_proofs != 1) {
            return cz_fail(dg, CUZK_E_INVAL, "%s takes exactly 1 vanilla proof, got %zu", kn,
                           req->n_vanilla_proofs);
        }
        if (req->randomness.len != 32) {
            return cz_fail(dg, CUZK_E_INVAL, "%s needs 32 bytes of randomness", kn);
        }
        break;
    default:
        break;
    }
    return CUZK_OK;
}

cuzk_err eng_register_builtin_kinds(eng_t *eng, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;

    /* One line per handler compiled into this build (kind_porep.c, kind_post.c, kind_snap.c). */
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_POREP, &eng_porep_ops, NULL, dg), done);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_SNAP, &eng_snap_ops, NULL, dg), done);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_WINDOW_POST, &eng_window_post_ops, NULL, dg), done);
    CZ_TRY(err, eng_register_kind(eng, ENG_KIND_WINNING_POST, &eng_winning_post_ops, NULL, dg),
           done);
done:
    return err;
}
