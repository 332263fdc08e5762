/* crypto.c - the ChaCha block function (Bernstein; RFC 8439 layout for ChaCha20-IETF). Used by
 * the SDR graph (ChaCha8 for DRG parents) and the synthetic PoRep challenges (ChaCha20-IETF).
 * BLAKE2b, which both also use, is in hash/blake2.h.
 */
#include "seal/internal.h"

#include <string.h>

#include "common/bytes.h"

/* ---- ChaCha ------------------------------------------------------------------------------- */

static inline uint32_t rotl32(uint32_t x, unsigned n)
{
    return (x << n) | (x >> (32 - n));
}

#define CHACHA_QR(a, b, c, d)                                                                      \
    do {                                                                                           \
        x[a] += x[b];                                                                              \
        x[d] = rotl32(x[d] ^ x[a], 16);                                                            \
        x[c] += x[d];                                                                              \
        x[b] = rotl32(x[b] ^ x[c], 12);                                                            \
        x[a] += x[b];                                                                              \
        x[d] = rotl32(x[d] ^ x[a], 8);                                                             \
        x[c] += x[d];                                                                              \
        x[b] = rotl32(x[b] ^ x[c], 7);                                                             \
    } while (0)

void seal_chacha_block(uint32_t out[16], const uint32_t in[16], unsigned rounds)
{
    uint32_t x[16];

    CZ_CHECK(rounds % 2 == 0);
    memcpy(x, in, sizeof(x));
    for (unsigned r = 0; r < rounds; r += 2) {
        /* column round, then diagonal round (RFC 8439 section 2.3) */
        CHACHA_QR(0, 4, 8, 12);
        CHACHA_QR(1, 5, 9, 13);
        CHACHA_QR(2, 6, 10, 14);
        CHACHA_QR(3, 7, 11, 15);
        CHACHA_QR(0, 5, 10, 15);
        CHACHA_QR(1, 6, 11, 12);
        CHACHA_QR(2, 7, 8, 13);
        CHACHA_QR(3, 4, 9, 14);
    }
    for (int i = 0; i < 16; i++) {
        out[i] = x[i] + in[i];
    }
}

void seal_chacha_setup(uint32_t st[16], const uint8_t key[32])
{
    /* "expand 32-byte k" as four little-endian words */
    st[0] = 0x61707865;
    st[1] = 0x3320646e;
    st[2] = 0x79622d32;
    st[3] = 0x6b206574;
    for (int i = 0; i < 8; i++) {
        st[4 + i] = cz_load_le32(key + 4 * i);
    }
}

void seal_chacha20_keystream(uint8_t *out, size_t len, const uint8_t key[32],
                             const uint8_t nonce[12], uint64_t offset)
{
    uint32_t st[16], blk[16];
    uint8_t bytes[64];

    seal_chacha_setup(st, key);
    st[13] = cz_load_le32(nonce);
    st[14] = cz_load_le32(nonce + 4);
    st[15] = cz_load_le32(nonce + 8);
    while (len > 0) {
        uint64_t block = offset / 64;
        size_t skip = (size_t)(offset % 64);
        CZ_CHECK(block <= UINT32_MAX); /* the IETF counter is 32 bits */
        st[12] = (uint32_t)block;
        seal_chacha_block(blk, st, 20);
        for (int i = 0; i < 16; i++) {
            cz_store_le32(bytes + 4 * i, blk[i]);
        }
        size_t take = 64 - skip;
        if (take > len) {
            take = len;
        }
        memcpy(out, bytes + skip, take);
        out += take;
        len -= take;
        offset += take;
    }
}
