/* internal.h - seal/'s private helpers: the ChaCha block function (8 and 20 rounds), sparse node
 * maps, and the bits of the sector object that several files share.
 * Nothing here is part of the module's contract (seal.h); tests may include it.
 */
#ifndef CUZK_SEAL_INTERNAL_H
#define CUZK_SEAL_INTERNAL_H

#include "seal/seal.h"

#include "common/alloc.h"

/* ---- ChaCha (D. J. Bernstein; RFC 8439 for the 20-round IETF layout) -------------------- */

/** out = the keystream block of `in` (16 state words: constants, key, counter/nonce words)
 *  after `rounds` rounds (8 or 20) plus the feed-forward of `in`. */
void seal_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds);

/** Sets the "expand 32-byte k" constants and the 32-byte little-endian key in state words 0..11;
 *  the caller fills words 12..15. */
void seal_chacha_setup(uint32_t st[16], const uint8_t key[32]);

/** ChaCha20-IETF keystream bytes [offset, offset + len) for (key, 12-byte nonce), with the
 *  32-bit block counter starting at 0 (RFC 8439 section 2.4 with initial counter 0). */
void seal_chacha20_keystream(uint8_t *out, size_t len, const uint8_t key[32],
                             const uint8_t nonce[12], uint64_t offset);

/* ---- sector internals shared by sector.c, sparse.c, update.c and cache.c --------------- */

/** The materialised columns of a synthetic (sparse) sector: `n` sorted node indices, each
 *  with `layers` labels. Labels of every other node are zero. */
typedef struct seal_sparse_cols {
    size_t n;
    uint64_t *idx;  /* n, strictly increasing */
    seal_node *lab; /* n * layers; column i at lab + i * layers */
} seal_sparse_cols;

struct seal_sector {
    seal_porep_config cfg;
    seal_sector_info info;
    seal_graph_t graph;
    seal_tree *tree_d;
    seal_tree *tree_c;
    seal_tree *tree_r;
    /* dense sectors: all labels, layer-major (layer l at labels + (l-1) * nodes) */
    cz_buf labels;
    /* sparse sectors */
    seal_sparse_cols cols;
};

/** Index of `node` in the sorted array idx[0..n), or SIZE_MAX. */
size_t seal_find_u64(const uint64_t *idx, size_t n, uint64_t node);

/** Writes/reads a whole file; CUZK_E_IO with the path in the message on failure. */
CZ_MUST_USE cuzk_err seal_write_file(const char *path, const void *buf, size_t len, cz_diag *dg);
/** Reads exactly `len` bytes; a file of any other size is CUZK_E_FORMAT. */
CZ_MUST_USE cuzk_err seal_read_file_exact(const char *path, void *buf, size_t len, cz_diag *dg);

/** Tree serialisation for the sector cache (cache.c documents the layout). */
CZ_MUST_USE cuzk_err seal_tree_save(const seal_tree *t, const char *path, cz_diag *dg);
CZ_MUST_USE cuzk_err seal_tree_load(seal_tree **out, const seal_tree_shape *shape, const char *path,
                                    cz_diag *dg);

#endif /* CUZK_SEAL_INTERNAL_H */
