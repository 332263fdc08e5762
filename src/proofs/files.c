/* files.c - the files vanilla proofs travel in besides their own formats: JSON lists of base64
 * byte strings (Curio's snap-vproof.json layout), the vanilla-proof file that holds one raw
 * bincode proof or such a list, and the request sidecar beside it (vanilla-proofs.md 4.4).
 */
#include "proofs/internal.h"

#include <stddef.h>
#include <string.h>

#include "common/alloc.h"
#include "common/base64.h"
#include "common/bytes.h"

/* ---- JSON lists of base64 strings ----------------------------------------------------------- */

/* What vp_jr_b64_list hands each entry to (the walker's ctx). */
typedef struct b64_take {
    vp_b64_entry_fn fn;
    void *ctx;
} b64_take;

/* vp_jelem_fn: entry i, decoded and handed on. */
static cuzk_err je_b64(vp_jr *r, size_t i, void *dst, void *ctx)
{
    const b64_take *t = ctx;
    char *s;
    size_t slen, blen;
    uint8_t *bin;
    cz_diag sub;
    cuzk_err err;

    (void)dst;
    if ((err = vp_jr_string(r, &s, &slen)) != CUZK_OK) {
        return err;
    }
    cz_diag_init(&sub);
    err = cz_base64_decode(&bin, &blen, s, slen, NULL, &sub);
    cz_free(s);
    if (err != CUZK_OK) {
        return err == CUZK_E_FORMAT ? vp_jr_fail(r, "%s", sub.msg)
                                    : cz_fail(r->dg, err, "%s: %s", r->what, sub.msg);
    }
    return t->fn(t->ctx, r, i, bin, blen);
}

cuzk_err vp_jr_b64_list(vp_jr *r, const char *entry, vp_b64_entry_fn fn, void *ctx, size_t *count)
{
    const vp_jarray list = {je_b64, NULL, entry, false};
    b64_take t = {fn, ctx};

    return vp_jr_elements(r, &list, VP_JR_ANY, NULL, &t, count);
}

void vp_blobs_clear(vp_blobs *b)
{
    for (size_t i = 0; i < b->n; i++) {
        cz_free(b->data[i]);
    }
    cz_free(b->data);
    cz_free(b->len);
    memset(b, 0, sizeof(*b));
}

cuzk_err vp_blobs_push(vp_blobs *b, uint8_t *data, size_t len, cz_diag *dg)
{
    uint8_t **nd = cz_realloc(b->data, (b->n + 1) * sizeof(*nd));
    size_t *nl;

    if (nd) {
        b->data = nd;
    }
    nl = nd ? cz_realloc(b->len, (b->n + 1) * sizeof(*nl)) : NULL;
    if (!nl) {
        cz_free(data);
        if (b->n == 0) {
            vp_blobs_clear(b); /* as before: empty, nothing allocated */
        }
        return cz_fail(dg, CUZK_E_NOMEM, "byte string %zu", b->n);
    }
    b->len = nl;
    b->data[b->n] = data;
    b->len[b->n] = len;
    b->n++;
    return CUZK_OK;
}

/* Drops the entries after the first n (and the arrays with the last one). */
static void blobs_truncate(vp_blobs *b, size_t n)
{
    while (b->n > n) {
        b->n--;
        cz_free(b->data[b->n]);
    }
    if (n == 0) {
        vp_blobs_clear(b);
    }
}

cuzk_err vp_blobs_to_json(const vp_blobs *b, char **out, size_t *len, cz_diag *dg)
{
    vp_buf w = {0};

    *out = NULL;
    vp_buf_str(&w, "[");
    for (size_t i = 0; i < b->n; i++) {
        if (i) {
            vp_buf_str(&w, ",");
        }
        vp_buf_b64(&w, b->data[i], b->len[i]);
    }
    vp_buf_str(&w, "]");
    return vp_buf_finish(&w, out, len, dg);
}

/* vp_b64_entry_fn: appends the entry. */
static cuzk_err blobs_take(void *ctx, vp_jr *r, size_t i, uint8_t *bin, size_t len)
{
    (void)i;
    return vp_blobs_push(ctx, bin, len, r->dg);
}

/* vp_blobs_from_json with `what` heading its messages; on failure out is as before. */
static cuzk_err blobs_read(vp_blobs *out, const char *what, const char *json, size_t len,
                           cz_diag *dg)
{
    size_t before = out->n, count;
    vp_jr r;
    cuzk_err err;

    vp_jr_init(&r, what, json, len, dg);
    err = vp_jr_b64_list(&r, NULL, blobs_take, out, &count);
    if (err == CUZK_OK) {
        err = vp_jr_end(&r);
    }
    if (err != CUZK_OK) {
        blobs_truncate(out, before);
    }
    return err;
}

cuzk_err vp_blobs_from_json(vp_blobs *out, const char *json, size_t len, cz_diag *dg)
{
    return blobs_read(out, "JSON list", json, len, dg);
}

/* ---- vanilla-proof files -------------------------------------------------------------------- */

static bool is_blank(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Printable ASCII and blanks only: raw bincode (lengths, tags, hashes) never is. */
static bool is_text(const uint8_t *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!is_blank(buf[i]) && (buf[i] < 0x20 || buf[i] > 0x7e)) {
            return false;
        }
    }
    return true;
}

/* A copy of buf as the one proof of the file. */
static cuzk_err push_copy(vp_blobs *out, const uint8_t *buf, size_t len, cz_diag *dg)
{
    uint8_t *copy = cz_malloc(len ? len : 1);

    if (!copy) {
        return cz_fail(dg, CUZK_E_NOMEM, "vanilla proof of %zu bytes", len);
    }
    memcpy(copy, buf, len);
    return vp_blobs_push(out, copy, len, dg);
}

cuzk_err vp_proof_file_parse(vp_blobs *out, const char **encoding, const uint8_t *buf, size_t len,
                             cz_diag *dg)
{
    static const char NOT_LIST[] = "not a JSON list of base64 proofs";
    size_t i = 0, before = out->n;
    cz_diag sub;
    cuzk_err err;

    if (encoding) {
        *encoding = "bincode";
    }
    if (len == 0) {
        return cz_fail(dg, CUZK_E_FORMAT, "empty file");
    }
    while (i < len && is_blank(buf[i])) {
        i++;
    }
    if (i == len || buf[i] != '[') {
        return push_copy(out, buf, len, dg);
    }
    cz_diag_init(&sub);
    err = blobs_read(out, NOT_LIST, (const char *)buf, len, &sub);
    if (err == CUZK_OK && out->n == before) {
        err = cz_fail(&sub, CUZK_E_FORMAT, "%s: the list holds no proof", NOT_LIST);
    }
    if (err == CUZK_E_FORMAT && !is_text(buf, len)) {
        return push_copy(out, buf, len, dg); /* binary that happens to start with '[' */
    }
    if (err != CUZK_OK) {
        return cz_fail(dg, err, "%s", sub.msg);
    }
    if (encoding) {
        *encoding = "base64-list";
    }
    return CUZK_OK;
}

cuzk_err vp_proof_file_encode(const vp_blobs *b, uint8_t **out, size_t *len, const char **encoding,
                              cz_diag *dg)
{
    CZ_CHECK(b->n >= 1);
    *out = NULL;
    if (b->n > 1) {
        *encoding = "base64-list";
        return vp_blobs_to_json(b, (char **)out, len, dg);
    }
    *encoding = "bincode";
    *out = cz_malloc(b->len[0] ? b->len[0] : 1);
    if (!*out) {
        return cz_fail(dg, CUZK_E_NOMEM, "vanilla proof of %zu bytes", b->len[0]);
    }
    memcpy(*out, b->data[0], b->len[0]);
    *len = b->len[0];
    return CUZK_OK;
}

/* ---- the request sidecar -------------------------------------------------------------------- */

/* One JSON member of the sidecar being written: `"key": ` after the separator. */
static void sc_key(vp_buf *b, bool *first, const char *key)
{
    vp_buf_str(b, *first ? "{\n  \"" : ",\n  \"");
    vp_buf_str(b, key);
    vp_buf_str(b, "\": ");
    *first = false;
}

static void sc_str(vp_buf *b, bool *first, const char *key, const char *val)
{
    sc_key(b, first, key);
    vp_buf_json_str(b, val);
}

static void sc_u64(vp_buf *b, bool *first, const char *key, uint64_t val)
{
    sc_key(b, first, key);
    vp_buf_dec(b, val);
}

static void sc_hex32(vp_buf *b, bool *first, const char *key, const uint8_t val[32])
{
    char h[65];

    cz_hex_encode(h, val, 32);
    sc_str(b, first, key, h);
}

/* What only people read: how the vanilla file was made. */
static void sc_write_about(vp_buf *b, bool *first, const vp_sidecar *sc)
{
    sc_str(b, first, "format", VP_SIDECAR_FORMAT);
    if (sc->kind[0]) {
        sc_str(b, first, "kind", sc->kind);
    }
    if (sc->vanilla) {
        sc_str(b, first, "vanilla", sc->vanilla);
    }
    if (sc->encoding) {
        sc_str(b, first, "encoding", sc->encoding);
    }
    if (sc->proofs) {
        sc_u64(b, first, "proofs", sc->proofs);
    }
    if (sc->seed_hex) {
        sc_str(b, first, "seed_hex", sc->seed_hex);
    }
}

/* The request's fields, in the order PoSt, SnapDeals, C1 (each kind sets its own). */
static void sc_write_request(vp_buf *b, bool *first, const vp_sidecar *sc)
{
    if (sc->has_sector_size) {
        sc_u64(b, first, "sector_size", sc->sector_size);
    }
    if (sc->has_registered_proof) {
        sc_u64(b, first, "registered_proof", sc->registered_proof);
    }
    if (sc->has_miner_id) {
        sc_u64(b, first, "miner_id", sc->miner_id);
    }
    if (sc->has_sector_number) {
        sc_u64(b, first, "sector_number", sc->sector_number);
    }
    if (sc->has_partition_index) {
        sc_u64(b, first, "partition_index", sc->partition_index);
    }
    if (sc->has_randomness) {
        sc_hex32(b, first, "randomness", sc->randomness);
    }
    if (sc->has_comm_r_old) {
        sc_hex32(b, first, "comm_r_old", sc->comm_r_old);
    }
    if (sc->has_comm_r_new) {
        sc_hex32(b, first, "comm_r_new", sc->comm_r_new);
    }
    if (sc->has_comm_d_new) {
        sc_hex32(b, first, "comm_d_new", sc->comm_d_new);
    }
    if (sc->has_c1_values) {
        sc_hex32(b, first, "comm_d", sc->comm_d);
        sc_hex32(b, first, "replica_id", sc->replica_id);
        sc_hex32(b, first, "seed", sc->seed);
        sc_hex32(b, first, "ticket", sc->ticket);
    }
    if (sc->has_comm_r) {
        sc_hex32(b, first, "comm_r", sc->comm_r);
    }
}

cuzk_err vp_sidecar_to_json(const vp_sidecar *sc, char **out, size_t *len, cz_diag *dg)
{
    vp_buf b = {0};
    bool first = true;

    *out = NULL;
    sc_write_about(&b, &first, sc);
    sc_write_request(&b, &first, sc);
    vp_buf_str(&b, "\n}\n");
    return vp_buf_finish(&b, out, len, dg);
}

/* A 32-byte value as 64 hex digits, byte 0 first, with an optional 0x prefix. */
static cuzk_err jr_hex32(vp_jr *r, uint8_t out[32])
{
    char *s;
    size_t n;
    cuzk_err err = vp_jr_string(r, &s, &n);

    if (err != CUZK_OK) {
        return err;
    }
    const char *h = s;
    if (n >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X')) {
        h += 2;
        n -= 2;
    }
    if (n != 64 || strlen(h) != 64 || !cz_hex_decode(out, 32, h)) {
        err = vp_jr_fail(r, "expected 64 hex digits (32 bytes)");
    }
    cz_free(s);
    return err;
}

static cuzk_err jr_kind(vp_jr *r, char *out, size_t cap)
{
    char *s;
    size_t n;
    cuzk_err err = vp_jr_string(r, &s, &n);

    if (err != CUZK_OK) {
        return err;
    }
    if (n >= cap || strlen(s) != n) {
        err = vp_jr_fail(r, "not a proof kind");
    } else {
        memcpy(out, s, n + 1);
    }
    cz_free(s);
    return err;
}

static cuzk_err jf_hex32(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    return jr_hex32(r, dst);
}

static cuzk_err jf_kind(vp_jr *r, void *dst, void *ctx)
{
    (void)ctx;
    return jr_kind(r, dst, sizeof(((vp_sidecar *)NULL)->kind));
}

/* The sidecar's request keys; every other key is skipped. */
enum {
    SC_KIND,
    SC_SECTOR_SIZE,
    SC_REGISTERED_PROOF,
    SC_MINER_ID,
    SC_SECTOR_NUMBER,
    SC_PARTITION_INDEX,
    SC_RANDOMNESS,
    SC_COMM_R_OLD,
    SC_COMM_R_NEW,
    SC_COMM_D_NEW,
};
static const vp_jfield SC_FIELDS[] = {
    [SC_KIND] = {"kind", jf_kind, offsetof(vp_sidecar, kind), 0},
    [SC_SECTOR_SIZE] = {"sector_size", vp_jf_u64, offsetof(vp_sidecar, sector_size), 0},
    [SC_REGISTERED_PROOF] = {"registered_proof", vp_jf_u64, offsetof(vp_sidecar, registered_proof),
                             0},
    [SC_MINER_ID] = {"miner_id", vp_jf_u64, offsetof(vp_sidecar, miner_id), 0},
    [SC_SECTOR_NUMBER] = {"sector_number", vp_jf_u64, offsetof(vp_sidecar, sector_number), 0},
    [SC_PARTITION_INDEX] = {"partition_index", vp_jf_u32, offsetof(vp_sidecar, partition_index), 0},
    [SC_RANDOMNESS] = {"randomness", jf_hex32, offsetof(vp_sidecar, randomness), 0},
    [SC_COMM_R_OLD] = {"comm_r_old", jf_hex32, offsetof(vp_sidecar, comm_r_old), 0},
    [SC_COMM_R_NEW] = {"comm_r_new", jf_hex32, offsetof(vp_sidecar, comm_r_new), 0},
    [SC_COMM_D_NEW] = {"comm_d_new", jf_hex32, offsetof(vp_sidecar, comm_d_new), 0},
};
static const vp_jtable SC = {SC_FIELDS, ARRAY_LEN(SC_FIELDS), VP_JR_SERDE, VP_JR_SKIP};

cuzk_err vp_sidecar_from_json(vp_sidecar *out, const char *json, size_t len, cz_diag *dg)
{
    vp_jr r;
    unsigned seen;
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    vp_jr_init(&r, "sidecar", json, len, dg);
    CZ_TRY(err, vp_jr_fields(&r, &SC, out, NULL, &seen), fail);
    CZ_TRY(err, vp_jr_end(&r), fail);
#define SEEN(k) ((seen >> (k)) & 1u)
    out->has_sector_size = SEEN(SC_SECTOR_SIZE);
    out->has_registered_proof = SEEN(SC_REGISTERED_PROOF);
    out->has_miner_id = SEEN(SC_MINER_ID);
    out->has_sector_number = SEEN(SC_SECTOR_NUMBER);
    out->has_partition_index = SEEN(SC_PARTITION_INDEX);
    out->has_randomness = SEEN(SC_RANDOMNESS);
    out->has_comm_r_old = SEEN(SC_COMM_R_OLD);
    out->has_comm_r_new = SEEN(SC_COMM_R_NEW);
    out->has_comm_d_new = SEEN(SC_COMM_D_NEW);
#undef SEEN
    return CUZK_OK;
fail:
    memset(out, 0, sizeof(*out));
    return err;
}
