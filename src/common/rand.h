/* rand.h - randomness. cz_rand_bytes draws from the kernel CSPRNG (getrandom) and is what
 * proofs use for r and s. cz_prng is a small deterministic generator (xoshiro256**) for tests
 * and benchmarks only: seeded, replayable, never for secrets.
 */
#ifndef CUZK_COMMON_RAND_H
#define CUZK_COMMON_RAND_H

#include "common/common.h"

/** Fills buf with n bytes from the OS CSPRNG. CUZK_E_IO if the kernel refuses. */
CZ_MUST_USE cuzk_err cz_rand_bytes(void *buf, size_t n, cz_diag *dg);

/** Deterministic test PRNG. */
typedef struct cz_prng {
    uint64_t s[4];
} cz_prng;

/** Seeds from a 64-bit value (splitmix64 expansion). */
void cz_prng_seed(cz_prng *g, uint64_t seed);
uint64_t cz_prng_u64(cz_prng *g);
/** Uniform in [0, bound); bound > 0. */
uint64_t cz_prng_below(cz_prng *g, uint64_t bound);
void cz_prng_bytes(cz_prng *g, void *buf, size_t n);

#endif /* CUZK_COMMON_RAND_H */
