/* hash.h - the hash module's contract: SHA-256 (sha256.h), Poseidon with Filecoin's
 * parameters (poseidon.h) and BLAKE2s / BLAKE2b (blake2.h). None allocates; all are reentrant.
 */
#ifndef CUZK_HASH_HASH_H
#define CUZK_HASH_HASH_H

#include "hash/blake2.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

#endif /* CUZK_HASH_HASH_H */
