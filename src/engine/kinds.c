/* kinds.c - proof-kind names, default priorities and the protocol checks of a request. The
 * handlers of the kinds are registered from outside (kinds/kinds.h: the Filecoin kinds). */
#include "engine/engine.h"

#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "hash/sha256.h"

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

const char *eng_status_name(eng_status status)
{
    static const char *const names[] = {"unknown", "completed", "failed", "cancelled", "timeout"};
    return (unsigned)status < ARRAY_LEN(names) ? names[status] : "unknown";
}

cuzk_err eng_id_check(const char *id, const char *what, cz_diag *dg)
{
    size_t n = strlen(id);

    if (n >= ENG_ID_MAX) {
        return cz_fail(dg, CUZK_E_INVAL, "%s is %zu bytes long (at most %d)", what, n,
                       ENG_ID_MAX - 1);
    }
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = cz_utf8_next((const uint8_t *)id + i, n - i, &cp);
        if (len == 0) {
            return cz_fail(dg, CUZK_E_INVAL, "%s is not UTF-8 (byte %zu is 0x%02x)", what, i,
                           (unsigned char)id[i]);
        }
        if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "%s must not contain control characters (U+%04X at byte %zu)", what,
                           (unsigned)cp, i);
        }
        i += len;
    }
    return CUZK_OK;
}

/* Feeds one length-prefixed field to the digest, so that moving bytes between fields changes
 * it. */
static void digest_bytes(sha256_ctx_t *h, const void *p, size_t len)
{
    uint8_t l[8];
    cz_store_le64(l, (uint64_t)len);
    sha256_update(h, l, sizeof(l));
    if (len) {
        sha256_update(h, p, len);
    }
}

static void digest_u64(sha256_ctx_t *h, uint64_t v)
{
    uint8_t b[8];
    cz_store_le64(b, v);
    digest_bytes(h, b, sizeof(b));
}

void eng_request_digest(uint8_t out[32], const eng_request_t *req)
{
    sha256_ctx_t h;

    sha256_init(&h);
    digest_bytes(&h, "cuzk-request-v1", 15);
    digest_u64(&h, (uint64_t)req->kind);
    digest_u64(&h, req->sector_size);
    digest_u64(&h, req->registered_proof);
    digest_u64(&h, req->sector_number);
    digest_u64(&h, req->miner_id);
    digest_u64(&h, req->partition_index);
    digest_bytes(&h, req->vanilla_proof.ptr, req->vanilla_proof.len);
    digest_u64(&h, req->n_vanilla_proofs);
    for (size_t i = 0; i < req->n_vanilla_proofs; i++) {
        digest_bytes(&h, req->vanilla_proofs[i].ptr, req->vanilla_proofs[i].len);
    }
    digest_bytes(&h, req->randomness.ptr, req->randomness.len);
    digest_bytes(&h, req->comm_r_old.ptr, req->comm_r_old.len);
    digest_bytes(&h, req->comm_r_new.ptr, req->comm_r_new.len);
    digest_bytes(&h, req->comm_d_new.ptr, req->comm_d_new.len);
    sha256_final(&h, out);
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
        cuzk_err err = eng_id_check(req->request_id, "request_id", dg);
        if (err != CUZK_OK) {
            return err;
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
    static const size_t max_entries[ENG_KIND_COUNT] = {
        [ENG_KIND_POREP] = 0,
        [ENG_KIND_SNAP] = 16,
        [ENG_KIND_WINDOW_POST] = ENG_VANILLA_PROOFS_MAX,
        [ENG_KIND_WINNING_POST] = 1,
    };
    if (req->n_vanilla_proofs > max_entries[req->kind] && req->kind != ENG_KIND_WINNING_POST) {
        return cz_fail(dg, CUZK_E_INVAL, "%s takes at most %zu vanilla_proofs entries, got %zu", kn,
                       max_entries[req->kind], req->n_vanilla_proofs);
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
