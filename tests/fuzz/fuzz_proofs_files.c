/* fuzz_proofs_files.c - libFuzzer target for the vanilla-proof file readers (proofs.h files.c):
 * a JSON list of base64 byte strings (vp_blobs_from_json), a vanilla-proof file of one raw proof
 * or such a list (vp_proof_file_parse) and the request sidecar (vp_sidecar_from_json).
 * Properties: errors carry a message and leave the list as it was; a decodable list writes
 * (vp_blobs_to_json) a list that reads back to the same byte strings; a decodable file writes
 * (vp_proof_file_encode) a file that reads back to the same proofs, in the form it was read in
 * unless it was a list of one (written raw: skipped when that one is empty or starts with '[',
 * which raw bincode never does, as it would not read back raw); a decodable sidecar writes one
 * that reads back to the same request; nothing leaks.
 */
#include "fuzz.h"

#include <string.h>

#include "common/alloc.h"
#include "proofs/proofs.h"

static void check_same(const vp_blobs *a, const vp_blobs *b)
{
    FUZZ_CHECK(a->n == b->n);
    for (size_t i = 0; i < a->n; i++) {
        FUZZ_CHECK(a->len[i] == b->len[i] && memcmp(a->data[i], b->data[i], a->len[i]) == 0);
    }
}

static void check_list(const uint8_t *data, size_t size)
{
    vp_blobs b = {0}, back = {0};
    char *json;
    size_t len;
    cz_diag dg;

    cz_diag_init(&dg);
    if (vp_blobs_from_json(&b, (const char *)data, size, &dg) != CUZK_OK) {
        FUZZ_CHECK(dg.msg[0] != '\0' && b.n == 0);
        return;
    }
    fuzz_note_ok();
    FUZZ_CHECK(vp_blobs_to_json(&b, &json, &len, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_blobs_from_json(&back, json, len, NULL) == CUZK_OK);
    check_same(&b, &back);
    cz_free(json);
    vp_blobs_clear(&b);
    vp_blobs_clear(&back);
}

/* Whether one proof written alone reads back as itself: not empty, not starting with '['. */
static bool reads_back_raw(const uint8_t *p, size_t n)
{
    size_t i = 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r')) {
        i++;
    }
    return n > 0 && (i == n || p[i] != '[');
}

static void check_file(const uint8_t *data, size_t size)
{
    vp_blobs b = {0}, back = {0};
    const char *enc, *enc2, *enc3;
    uint8_t *bytes;
    size_t len;
    cz_diag dg;

    cz_diag_init(&dg);
    if (vp_proof_file_parse(&b, &enc, data, size, &dg) != CUZK_OK) {
        FUZZ_CHECK(dg.msg[0] != '\0' && b.n == 0);
        return;
    }
    fuzz_note_ok();
    FUZZ_CHECK(b.n >= 1);
    FUZZ_CHECK(vp_proof_file_encode(&b, &bytes, &len, &enc2, NULL) == CUZK_OK);
    FUZZ_CHECK(strcmp(enc, enc2) == 0 || b.n == 1);
    if (b.n > 1 || reads_back_raw(b.data[0], b.len[0])) {
        FUZZ_CHECK(vp_proof_file_parse(&back, &enc3, bytes, len, NULL) == CUZK_OK);
        FUZZ_CHECK(strcmp(enc2, enc3) == 0);
        check_same(&b, &back);
    }
    cz_free(bytes);
    vp_blobs_clear(&b);
    vp_blobs_clear(&back);
}

static void check_sidecar(const uint8_t *data, size_t size)
{
    vp_sidecar sc, back;
    char *json;
    size_t len;
    cz_diag dg;

    cz_diag_init(&dg);
    if (vp_sidecar_from_json(&sc, (const char *)data, size, &dg) != CUZK_OK) {
        FUZZ_CHECK(dg.msg[0] != '\0');
        return;
    }
    fuzz_note_ok();
    FUZZ_CHECK(vp_sidecar_to_json(&sc, &json, &len, NULL) == CUZK_OK);
    FUZZ_CHECK(vp_sidecar_from_json(&back, json, len, NULL) == CUZK_OK);
    FUZZ_CHECK(memcmp(&sc, &back, sizeof(sc)) == 0); /* both zeroed first: padding matches */
    cz_free(json);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t live = fuzz_live_bytes();

    check_list(data, size);
    check_file(data, size);
    check_sidecar(data, size);
    FUZZ_CHECK_NO_LEAK(live);
    return 0;
}
