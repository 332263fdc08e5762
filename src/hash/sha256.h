/* sha256.h - SHA-256 (FIPS 180-4) and the Filecoin "fr32-trimmed" variant.
 * Implementations: SHA-NI (x86 SHA extensions, chosen at run time with __builtin_cpu_supports)
 * and a portable C fallback; both are always compiled and can be called directly.
 * Filecoin's Sha256Domain hashes (TreeD nodes, labels, replica_id) are SHA-256 with bits 6 and 7
 * of the last digest byte cleared (`trim_to_fr32`, spec sealing.md 1.2 and circuits.md 4.6), so
 * the 32 bytes read as a little-endian integer are < 2^254 < r.
 * Memory: never allocates. Threads: reentrant; no global state. Timing: constant-time in the
 * data (no secret-dependent branches or table lookups), though nothing here handles secrets.
 */
#ifndef CUZK_HASH_SHA256_H
#define CUZK_HASH_SHA256_H

#include "common/common.h"

#define SHA256_BLOCK_BYTES  64
#define SHA256_DIGEST_BYTES 32

/** Initial hash value H(0) (FIPS 180-4 sec. 5.3.3). */
extern const uint32_t SHA256_IV[8];

/** Runs the compression function over `nblocks` consecutive 64-byte blocks.
 *  In/out: state   8 words, updated in place (start from SHA256_IV).
 *  In:     blocks  nblocks * 64 bytes, any alignment (borrowed). */
void sha256_compress(uint32_t state[8], const uint8_t *blocks, size_t nblocks);

/** The portable implementation of sha256_compress (always available). */
void sha256_compress_portable(uint32_t state[8], const uint8_t *blocks, size_t nblocks);

/** The SHA-NI implementation; call only when sha256_has_shani() is true (CZ_CHECKed). */
void sha256_compress_shani(uint32_t state[8], const uint8_t *blocks, size_t nblocks);

/** True when this CPU has the SHA extensions (and SSE4.1) that sha256_compress_shani needs. */
bool sha256_has_shani(void);

/** "sha-ni" or "portable": what sha256_compress uses on this machine. */
const char *sha256_impl_name(void);

/** Incremental hashing. Storage is the caller's; no cleanup needed. */
typedef struct sha256_ctx {
    uint32_t h[8];
    uint64_t nbytes;                 /* message bytes absorbed so far */
    uint8_t buf[SHA256_BLOCK_BYTES]; /* pending partial block: nbytes % 64 bytes */
} sha256_ctx_t;

void sha256_init(sha256_ctx_t *ctx);
/** Absorbs len bytes (borrowed; data may be NULL when len is 0). */
void sha256_update(sha256_ctx_t *ctx, const void *data, size_t len);
/** Writes the digest. The context must be re-initialised before reuse. */
void sha256_final(sha256_ctx_t *ctx, uint8_t out[SHA256_DIGEST_BYTES]);

/** out = SHA-256(data[0..len)). out may alias data. */
void sha256(uint8_t out[SHA256_DIGEST_BYTES], const void *data, size_t len);

/** out = SHA-256 of exactly 64 bytes (two 32-byte Merkle children); the hot call.
 *  Uses a precomputed message schedule for the constant padding block. out may alias in. */
void sha256_64(uint8_t out[SHA256_DIGEST_BYTES], const uint8_t in[64]);

/** out[32 i .. 32 i + 32) = SHA-256(in[64 i .. 64 i + 64)) for i < n: independent 64-byte
 *  messages, e.g. one level of a binary Merkle tree (children adjacent). With SHA-NI two
 *  messages run interleaved (about twice the throughput of sha256_64 calls). out may equal in
 *  (the next level overwrites the front of the current one); other overlaps are not allowed. */
void sha256_64_many(uint8_t *out, const uint8_t *in, size_t n);

/** Clears the top two bits of digest[31] (Filecoin `trim_to_fr32`). */
static inline void sha256_fr32_trim(uint8_t digest[SHA256_DIGEST_BYTES])
{
    digest[31] &= 0x3f;
}

/** out = trim(SHA-256(data[0..len))): Filecoin Sha256Function::hash (labels, replica_id). */
void sha256_fr32(uint8_t out[SHA256_DIGEST_BYTES], const void *data, size_t len);

/** out = trim(SHA-256(left || right)): a TreeD / comm_d / CommP node (Sha256Function::hash2).
 *  out may alias left or right. */
void sha256_fr32_node(uint8_t out[SHA256_DIGEST_BYTES], const uint8_t left[32],
                      const uint8_t right[32]);

/** sha256_64_many with each digest trimmed: one TreeD level (n parent nodes from 2n children).
 *  out may equal in. */
void sha256_fr32_nodes(uint8_t *out, const uint8_t *in, size_t n);

#endif /* CUZK_HASH_SHA256_H */
