/* hash.h - the hash module's contract: SHA-256 (sha256.h) and Poseidon with Filecoin's
 * parameters (poseidon.h). Neither allocates; both are reentrant.
 */
#ifndef CUZK_HASH_HASH_H
#define CUZK_HASH_HASH_H

#include "hash/poseidon.h"
#include "hash/sha256.h"

#endif /* CUZK_HASH_HASH_H */
