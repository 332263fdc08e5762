/* internal.h - shared between the files of src/hash/ only. */
#ifndef CUZK_HASH_INTERNAL_H
#define CUZK_HASH_INTERNAL_H

#include "common/common.h"

/* SHA-256 round constants K[0..63] (FIPS 180-4 sec. 4.2.2). */
extern const uint32_t sha256_k[64];

/* W[i] + K[i] for the second block of a 64-byte message (the padding block: 0x80, zeros, and
 * the bit length 512), whose message schedule is therefore a constant. 16-byte aligned for the
 * SHA-NI path; tests/hash/test_sha256.c recomputes it from sha256_k. */
extern const uint32_t sha256_pad64_wk[64];

/* Runs the 64 rounds with a ready-made W[i] + K[i] schedule (one block). */
void sha256_rounds_wk_portable(uint32_t state[8], const uint32_t wk[64]);
void sha256_rounds_wk_shani(uint32_t state[8], const uint32_t wk[64]);

/* out[32 i ..] = SHA-256(in[64 i .. 64 i + 64)) for i < n, with the last byte of each digest
 * ANDed with last_byte_mask (0xff: plain; 0x3f: fr32-trimmed). Pairs of messages go through
 * interleaved SHA-NI chains; out may equal in (a Merkle level reduced in place). */
void sha256_64_shani(uint8_t *out, const uint8_t *in, size_t n, uint8_t last_byte_mask);
/* The same with the portable code (messages one after another). */
void sha256_64_portable(uint8_t *out, const uint8_t *in, size_t n, uint8_t last_byte_mask);

#endif /* CUZK_HASH_INTERNAL_H */
