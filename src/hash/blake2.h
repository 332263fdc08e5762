/* blake2.h - BLAKE2s and BLAKE2b (RFC 7693), the native implementations.
 * Users: the shape digest of r1cs/ (bellpepper-core's TestConstraintSystem::hash() is
 * Blake2s-256), and the SDR graph and synthetic challenges of seal/ (BLAKE2b). The BLAKE2s
 * gadget (gadgets/blake2s.c) takes its message schedule from here.
 * Memory: never allocates. Threads: reentrant (all state is the caller's).
 */
#ifndef CUZK_HASH_BLAKE2_H
#define CUZK_HASH_BLAKE2_H

#include "common/common.h"

#define BLAKE2S_BLOCK_BYTES 64
#define BLAKE2S_OUT_BYTES   32
#define BLAKE2B_BLOCK_BYTES 128
#define BLAKE2B_OUT_BYTES   64
#define BLAKE2B_KEY_BYTES   64

/** The message word permutation of each round (RFC 7693 section 2.7). BLAKE2s runs ten rounds
 *  over rows 0..9, BLAKE2b twelve over rows 0..11; rows 10 and 11 repeat rows 0 and 1. */
extern const uint8_t BLAKE2_SIGMA[12][16];

/** The BLAKE2s initialisation vector (RFC 7693 section 2.6; the SHA-256 H(0)). */
extern const uint32_t BLAKE2S_IV[8];

/* ---- BLAKE2s: unkeyed, digest of 1..32 bytes ------------------------------------------- */

typedef struct blake2s_ctx {
    uint32_t h[8];
    uint32_t t[2];                    /* bytes compressed so far, 64-bit little-endian counter */
    uint8_t buf[BLAKE2S_BLOCK_BYTES]; /* pending bytes; the final block is held back until _final */
    size_t buflen;
    size_t outlen;
} blake2s_ctx_t;

/** Starts an unkeyed hash with `outlen` output bytes (1..32; CZ_CHECKed). */
void blake2s_init(blake2s_ctx_t *s, size_t outlen);
/** Absorbs n bytes (borrowed; in may be NULL when n is 0). */
void blake2s_update(blake2s_ctx_t *s, const void *in, size_t n);
/** Writes s->outlen bytes; the state must be re-initialised before reuse. */
void blake2s_final(blake2s_ctx_t *s, uint8_t *out);
/** One-shot. */
void blake2s(uint8_t *out, size_t outlen, const void *in, size_t n);

/* ---- BLAKE2b: keyed or not, digest of 1..64 bytes ----------------------------------------- */

typedef struct blake2b_ctx {
    uint64_t h[8];
    uint64_t t[2];                    /* bytes compressed so far (128-bit counter) */
    uint8_t buf[BLAKE2B_BLOCK_BYTES]; /* pending block */
    size_t buflen;                    /* bytes in buf, 0..128 */
    size_t outlen;                    /* digest bytes */
} blake2b_ctx_t;

/** Starts a hash with `outlen` (1..64) digest bytes and an optional key of `keylen` (0..64)
 *  bytes (borrowed; may be NULL when keylen is 0). Out-of-range lengths are CZ_CHECKed. */
void blake2b_init(blake2b_ctx_t *s, size_t outlen, const void *key, size_t keylen);
/** Absorbs len bytes (borrowed; data may be NULL when len is 0). */
void blake2b_update(blake2b_ctx_t *s, const void *data, size_t len);
/** Writes s->outlen bytes; the state must be re-initialised before reuse. */
void blake2b_final(blake2b_ctx_t *s, uint8_t *out);
/** One-shot. */
void blake2b(uint8_t *out, size_t outlen, const void *key, size_t keylen, const void *data,
             size_t len);
/** Unkeyed BLAKE2b of a message that fits one block (len <= 128), without the buffering of
 *  the incremental interface; equal to blake2b(out, outlen, NULL, 0, in, len). The SDR graph's
 *  Feistel rounds hash 16 bytes this way for every expander parent. */
void blake2b_short(uint8_t *out, size_t outlen, const void *in, size_t len);

#endif /* CUZK_HASH_BLAKE2_H */
