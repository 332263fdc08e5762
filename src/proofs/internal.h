/* internal.h - proofs/'s private building blocks, one section per file:
 *   path.c          the location path readers carry for their messages;
 *   json_read.c     a streaming JSON reader that tracks where it is;
 *   buf.c           a growing output buffer for the JSON and bincode writers;
 *   bincode.c       a bincode reader;
 *   files.c         JSON lists of base64 strings;
 *   merkle_codec.c  the Merkle-proof codecs shared by the C1, PoSt and SnapDeals formats;
 *   c1.c            the bincode of one PoRep challenge proof (shared by the C1 bincode form).
 */
#ifndef CUZK_PROOFS_INTERNAL_H
#define CUZK_PROOFS_INTERNAL_H

#include "proofs/proofs.h"

/* ---- path.c: location path for messages -------------------------------------------------- */

#define VP_PATH_MAX 320

typedef struct vp_path {
    char s[VP_PATH_MAX];
    size_t len;
} vp_path;

/** Appends a formatted segment; returns the previous length for vp_path_pop. */
size_t vp_path_push(vp_path *p, const char *fmt, ...) CZ_PRINTF(2, 3);
void vp_path_pop(vp_path *p, size_t mark);

/* ---- json_read.c: JSON reader ------------------------------------------------------------ */

typedef struct vp_jr {
    const char *buf;
    size_t len, pos;
    unsigned depth;
    const char *what; /* "C1 JSON", ... */
    vp_path path;
    cz_diag *dg;
} vp_jr;

void vp_jr_init(vp_jr *r, const char *what, const char *buf, size_t len, cz_diag *dg);
/** Fails with CUZK_E_FORMAT: "<what>: <path>: <message> (at byte N)". */
cuzk_err vp_jr_fail(vp_jr *r, const char *fmt, ...) CZ_PRINTF(2, 3);
/** Skips whitespace; returns the next byte or 0 at the end. */
char vp_jr_peek(vp_jr *r);
/** '{' ... : call vp_jr_key until it reports the end. */
CZ_MUST_USE cuzk_err vp_jr_object(vp_jr *r);
/** Next key of the current object (ASCII, unescaped, at most cap-1 bytes) and the ':' after
 *  it; *end = true (key untouched) at the closing '}'. `first` tracks the comma. */
CZ_MUST_USE cuzk_err vp_jr_key(vp_jr *r, bool *first, char *key, size_t cap, bool *end);
CZ_MUST_USE cuzk_err vp_jr_array(vp_jr *r);
/** Before each element: *end = true at the closing ']'. */
CZ_MUST_USE cuzk_err vp_jr_next(vp_jr *r, bool *first, bool *end);
CZ_MUST_USE cuzk_err vp_jr_u64(vp_jr *r, uint64_t *out);
CZ_MUST_USE cuzk_err vp_jr_u32(vp_jr *r, uint32_t *out);
CZ_MUST_USE cuzk_err vp_jr_null(vp_jr *r);
/** A 32-byte node: an array of exactly 32 integers 0..255. */
CZ_MUST_USE cuzk_err vp_jr_node(vp_jr *r, uint8_t out[32]);
/** A string, unescaped into an owned buffer (NUL-terminated). */
CZ_MUST_USE cuzk_err vp_jr_string(vp_jr *r, char **out, size_t *len);
/** Skips any value (for unknown keys). */
CZ_MUST_USE cuzk_err vp_jr_skip(vp_jr *r);
/** Only whitespace may follow. */
CZ_MUST_USE cuzk_err vp_jr_end(vp_jr *r);
/** The index of key among the n (at most 32) names, or -1 for another key; a name already in
 *  *seen (bit i) fails with "duplicate field" in *err. */
int vp_jr_field(vp_jr *r, const char *key, const char *const *names, unsigned n, unsigned *seen,
                cuzk_err *err);

/* ---- buf.c: growing output buffer (JSON and bincode writers) ----------------------------- */

typedef struct vp_buf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
} vp_buf;

void vp_buf_put(vp_buf *b, const void *data, size_t n);
void vp_buf_str(vp_buf *b, const char *s);
void vp_buf_u32le(vp_buf *b, uint32_t v);
void vp_buf_u64le(vp_buf *b, uint64_t v);
void vp_buf_dec(vp_buf *b, uint64_t v);
/** JSON array of 32 integers. */
void vp_buf_json_node(vp_buf *b, const uint8_t n[32]);
/** A JSON string holding the base64 (common/base64.h) of bin[0..n). */
void vp_buf_b64(vp_buf *b, const uint8_t *bin, size_t n);
/** s as a JSON string: quoted, with '"', '\\' and control characters escaped. */
void vp_buf_json_str(vp_buf *b, const char *s);
/** Finishes: NUL-terminates, hands the buffer to *out (owned) or fails with E_NOMEM. */
CZ_MUST_USE cuzk_err vp_buf_finish(vp_buf *b, char **out, size_t *len, cz_diag *dg);
void vp_buf_free(vp_buf *b);

/* ---- bincode.c: bincode reader ----------------------------------------------------------- */

typedef struct vp_br {
    const uint8_t *buf;
    size_t len, pos;
    const char *what;
    vp_path path;
    cz_diag *dg;
} vp_br;

void vp_br_init(vp_br *r, const char *what, const uint8_t *buf, size_t len, cz_diag *dg);
cuzk_err vp_br_fail(vp_br *r, const char *fmt, ...) CZ_PRINTF(2, 3);
CZ_MUST_USE cuzk_err vp_br_u32(vp_br *r, uint32_t *out);
CZ_MUST_USE cuzk_err vp_br_u64(vp_br *r, uint64_t *out);
CZ_MUST_USE cuzk_err vp_br_node(vp_br *r, uint8_t out[32]);
/** A Vec length: fails if the remaining bytes cannot hold n elements of min_elem bytes. */
CZ_MUST_USE cuzk_err vp_br_len(vp_br *r, uint64_t *n, size_t min_elem);
/** No bytes may remain. */
CZ_MUST_USE cuzk_err vp_br_end(vp_br *r);

/* ---- files.c: JSON lists of base64 byte strings ------------------------------------------ */

/** Takes entry i of a list, decoded (owned: the callee keeps or frees it, also on failure);
 *  reports failures through r (vp_jr_fail, or r->dg). */
typedef cuzk_err (*vp_b64_entry_fn)(void *ctx, vp_jr *r, size_t i, uint8_t *bin, size_t len);

/** Reads a JSON array of base64 strings (common/base64.h, strict) and hands each entry to fn
 *  in order, with r->path naming it "[<entry> i]" ("[i]" when entry is NULL) meanwhile. Bad
 *  base64 is CUZK_E_FORMAT at that entry. *count: the entries fn took. The caller checks what
 *  follows the array (vp_jr_end). */
CZ_MUST_USE cuzk_err vp_jr_b64_list(vp_jr *r, const char *entry, vp_b64_entry_fn fn, void *ctx,
                                    size_t *count);

/* ---- merkle_codec.c: Merkle proofs ------------------------------------------------------- */

/** JSON MerkleProof {"data":{"Single"|"Sub"|"Top":{...}}}, checked against `shape` (the
 *  expected variant, element counts and arities). */
CZ_MUST_USE cuzk_err vp_jr_merkle(vp_jr *r, seal_merkle_proof *out, const seal_tree_shape *shape);
void vp_jw_merkle(vp_buf *b, const seal_merkle_proof *p);
CZ_MUST_USE cuzk_err vp_br_merkle(vp_br *r, seal_merkle_proof *out, const seal_tree_shape *shape);
void vp_bw_merkle(vp_buf *b, const seal_merkle_proof *p);

/** "Single with 2 elements of arity 8" for messages. */
void vp_shape_str(char *out, size_t cap, const seal_tree_shape *s);

/* ---- c1.c: one PoRep challenge proof ----------------------------------------------------- */

/** bincode of one stacked::Proof (shared by the C1 bincode form). */
void vp_bw_porep_proof(vp_buf *b, const vp_porep_proof *p);
CZ_MUST_USE cuzk_err vp_br_porep_proof(vp_br *r, vp_porep_proof *p, const seal_porep_config *cfg);

#endif /* CUZK_PROOFS_INTERNAL_H */
