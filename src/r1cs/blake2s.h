/* blake2s.h - BLAKE2s (RFC 7693), private to r1cs: the shape digest of bellpepper-core's
 * TestConstraintSystem::hash() is Blake2s-256. Unkeyed, output 1..32 bytes.
 * Memory: never allocates. Threads: reentrant (state is caller-owned).
 */
#ifndef CUZK_R1CS_BLAKE2S_H
#define CUZK_R1CS_BLAKE2S_H

#include "common/common.h"

#define CS_BLAKE2S_OUTBYTES 32

typedef struct cs_blake2s_state {
    uint32_t h[8];
    uint32_t t[2];   /* bytes compressed so far, 64-bit little-endian counter */
    uint8_t buf[64]; /* pending bytes; the final block is held back until _final */
    size_t buflen;
    size_t outlen;
} cs_blake2s_state;

/** Starts an unkeyed hash with `outlen` output bytes (1..32). */
void cs_blake2s_init(cs_blake2s_state *s, size_t outlen);
void cs_blake2s_update(cs_blake2s_state *s, const void *in, size_t n);
/** Writes s->outlen bytes; the state must be re-initialised before reuse. */
void cs_blake2s_final(cs_blake2s_state *s, uint8_t *out);
/** One-shot. */
void cs_blake2s(uint8_t *out, size_t outlen, const void *in, size_t n);

#endif /* CUZK_R1CS_BLAKE2S_H */
