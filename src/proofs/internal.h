/* internal.h - proofs/'s private building blocks, one section per file:
 *   path.c          the location path readers carry for their messages;
 *   json_read.c     a streaming JSON reader that tracks where it is, objects read through a
 *                   table of {key, read function} and arrays read element by element;
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

/* ---- json_read.c: objects read through a field table ------------------------------------ */

/** Reads the value of one key of an object, r->path naming the key meanwhile. `dst` is the
 *  walker's destination advanced by the field's offset; `ctx` is the walker's context. */
typedef cuzk_err (*vp_jfield_fn)(vp_jr *r, void *dst, void *ctx);

/** The key must be present: its absence at the closing '}' is an error. */
#define VP_JF_REQUIRED 1u
/** The key may be given more than once, each value read in turn (other keys may not). */
#define VP_JF_REPEAT   2u

/** One key an object may hold; its value goes to read(r, (char *)dst + off, ctx). */
typedef struct vp_jfield {
    const char *key;
    vp_jfield_fn read;
    size_t off;
    unsigned flags; /* VP_JF_* */
} vp_jfield;

/** The words of the walker's messages about keys. */
typedef enum vp_jr_words {
    VP_JR_SERDE, /* serde's: "duplicate field \"k\"", "missing field \"k\"" */
    VP_JR_KEYS,  /* "duplicate key \"k\"", "missing \"k\"" */
} vp_jr_words;

/** What happens to a key the table does not list; its value is skipped either way. */
typedef enum vp_jr_unknown {
    VP_JR_SKIP,       /* under the key's path segment, so that an error in it names the key */
    VP_JR_SKIP_QUIET, /* without a path segment */
} vp_jr_unknown;

/** The keys of one kind of object and how the walker reports on them. */
typedef struct vp_jtable {
    const vp_jfield *fields;
    size_t nfields; /* at most 32 */
    vp_jr_words words;
    vp_jr_unknown unknown;
} vp_jtable;

/** Keys longer than this many bytes match no field (and are shown truncated in paths). */
#define VP_JR_KEY_MAX 47

/** Reads one JSON object through table t, in one pass over its keys:
 *  - a listed key already read fails with "duplicate <key>" (t->words) before its value is
 *    read, unless the field is VP_JF_REPEAT;
 *  - a listed key's value is read by its field's read function with the path segment ".key"
 *    pushed ("key" when the path is empty, at the top level); its first error is returned as
 *    it is;
 *  - any other key is skipped as t->unknown says;
 *  - at the closing '}', the first VP_JF_REQUIRED field (in table order) that was absent fails
 *    with "missing <key>", at the object's path.
 *  Syntax errors are vp_jr_fail's. *seen (may be NULL) gets bit i set for each fields[i] that
 *  was read; it is set only on success. */
CZ_MUST_USE cuzk_err vp_jr_fields(vp_jr *r, const vp_jtable *t, void *dst, void *ctx,
                                  unsigned *seen);

/* Read functions for tables: the value at dst as the type named (vp_jr_u32, vp_jr_u64,
 * vp_jr_node); vp_jf_null accepts null and stores nothing. ctx is not used. */
CZ_MUST_USE cuzk_err vp_jf_u32(vp_jr *r, void *dst, void *ctx);
CZ_MUST_USE cuzk_err vp_jf_u64(vp_jr *r, void *dst, void *ctx);
CZ_MUST_USE cuzk_err vp_jf_node(vp_jr *r, void *dst, void *ctx);
CZ_MUST_USE cuzk_err vp_jf_null(vp_jr *r, void *dst, void *ctx);

/* ---- json_read.c: arrays read element by element ------------------------------------------ */

/** Reads element i of an array, r->path naming it meanwhile (vp_jarray). `dst` and `ctx` are
 *  the walker's, as they were given. */
typedef cuzk_err (*vp_jelem_fn)(vp_jr *r, size_t i, void *dst, void *ctx);

/** How the walker reads one kind of array's elements and names them. */
typedef struct vp_jarray {
    vp_jelem_fn read;
    const char *what;  /* the elements in messages ("hashes"); unused with VP_JR_ANY */
    const char *entry; /* element i's path segment is "[<entry> i]"; NULL: "[i]" */
    bool unnamed;      /* no path segment: errors in an element name the array */
} vp_jarray;

/** vp_jr_elements' `want` for an array of any length. */
#define VP_JR_ANY SIZE_MAX

/** Reads one JSON array, in one pass over its elements:
 *  - element i is read by a->read(r, i, dst, ctx) with the path segment a->entry says pushed
 *    (none when a->unnamed); its first error is returned as it is;
 *  - unless want is VP_JR_ANY, the array holds exactly `want` elements: one more fails with
 *    "expected <want> <what>, found more" at the array's path, before it is read, and fewer
 *    fail at the closing ']' with "expected <want> <what>, found <n>".
 *  Syntax errors (the array itself included) are vp_jr_fail's. *count (may be NULL) gets the
 *  number of elements read successfully, also on failure. */
CZ_MUST_USE cuzk_err vp_jr_elements(vp_jr *r, const vp_jarray *a, size_t want, void *dst, void *ctx,
                                    size_t *count);

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
