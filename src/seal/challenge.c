/* challenge.c - challenge derivation: PoRep interactive, non-interactive and synthetic
 * (stacked/vanilla/challenges.rs, sealing.md 5.1-5.3), PoSt leaf challenges and winning sector
 * selection (storage-proofs-post fallback/utils.rs, sealing.md 6), SnapDeals phi, rho and
 * partition challenges (storage-proofs-update vanilla.rs, challenges.rs, sealing.md 7).
 */
#include "seal/internal.h"

#include <string.h>

#include "common/bytes.h"
#include "hash/blake2.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

uint64_t seal_challenge_from_digest(const uint8_t digest[32], uint64_t nodes)
{
    /* The digest as a little-endian 256-bit integer, reduced mod (nodes - 1) 32 bits at a time
     * from the most significant word: r < 2^31 keeps (r << 32 | w) inside 64 bits. */
    uint64_t m = nodes - 1, r = 0;

    CZ_CHECK(nodes >= 2 && nodes <= SEAL_MAX_NODES);
    for (int i = 7; i >= 0; i--) {
        r = ((r << 32) | cz_load_le32(digest + 4 * i)) % m;
    }
    return r + 1;
}

void seal_porep_challenges_interactive(uint64_t *out, uint32_t n, uint64_t nodes,
                                       const uint8_t replica_id[32], const uint8_t seed[32],
                                       uint32_t k)
{
    uint8_t msg[68], d[32];

    memcpy(msg, replica_id, 32);
    memcpy(msg + 32, seed, 32);
    for (uint32_t i = 0; i < n; i++) {
        cz_store_le32(msg + 64, n * k + i);
        sha256(d, msg, sizeof(msg));
        out[i] = seal_challenge_from_digest(d, nodes);
    }
}

void seal_porep_challenges_ni(uint64_t *out, uint32_t n, uint64_t nodes,
                              const uint8_t replica_id[32], const uint8_t comm_r[32], uint32_t k)
{
    static const char tag[] = "filecoin.io|PoRep|1|NonInteractive|1";
    uint8_t msg[sizeof(tag) - 1 + 68], d[32];
    size_t t = sizeof(tag) - 1;

    memcpy(msg, tag, t);
    memcpy(msg + t, replica_id, 32);
    memcpy(msg + t + 32, comm_r, 32);
    for (uint32_t i = 0; i < n; i++) {
        cz_store_le32(msg + t + 64, n * k + i);
        sha256(d, msg, sizeof(msg));
        out[i] = seal_challenge_from_digest(d, nodes);
    }
}

static const uint8_t synth_nonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', 0};

static void synth_key(uint8_t key[32], const char *tag, const uint8_t a[32], const uint8_t b[32])
{
    blake2b_ctx_t s;

    blake2b_init(&s, 32, tag, strlen(tag));
    blake2b_update(&s, a, 32);
    blake2b_update(&s, b, 32);
    blake2b_final(&s, key);
}

void seal_synth_challenges(uint64_t *out, uint64_t first, size_t count, uint64_t nodes,
                           const uint8_t replica_id[32], const uint8_t comm_r[32])
{
    uint8_t key[32], ks[32];

    synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r);
    for (size_t i = 0; i < count; i++) {
        seal_chacha20_keystream(ks, 32, key, synth_nonce, (first + i) * 32);
        out[i] = seal_challenge_from_digest(ks, nodes);
    }
}

void seal_porep_challenges_synthetic(uint64_t *out, uint64_t *idx_out, uint32_t n, uint64_t nodes,
                                     const uint8_t replica_id[32], const uint8_t comm_r[32],
                                     const uint8_t seed[32], uint32_t k, uint64_t num_synth)
{
    uint8_t key[32], ks[4];

    if (num_synth == 0) {
        num_synth = nodes < ((uint64_t)1 << 18) ? nodes : (uint64_t)1 << 18;
    }
    synth_key(key, "filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t pos = ((uint64_t)k * n + i) * 4;
        seal_chacha20_keystream(ks, 4, key, synth_nonce, pos);
        uint64_t idx = cz_load_le32(ks) % num_synth;
        if (idx_out) {
            idx_out[i] = idx;
        }
        seal_synth_challenges(&out[i], idx, 1, nodes, replica_id, comm_r);
    }
}

void seal_porep_challenges(uint64_t *out, const seal_porep_config *cfg,
                           const uint8_t replica_id[32], const uint8_t comm_r[32],
                           const uint8_t seed[32], uint32_t k)
{
    uint32_t n = cfg->challenges_per_partition;
    uint64_t nodes = cfg->shape.nodes;

    CZ_CHECK(k < cfg->partitions);
    switch (cfg->kind) {
    case SEAL_POREP_INTERACTIVE:
        seal_porep_challenges_interactive(out, n, nodes, replica_id, seed, k);
        break;
    case SEAL_POREP_SYNTHETIC:
        seal_porep_challenges_synthetic(out, NULL, n, nodes, replica_id, comm_r, seed, k, 0);
        break;
    case SEAL_POREP_NI:
        seal_porep_challenges_ni(out, n, nodes, replica_id, comm_r, k);
        break;
    }
}

/* ---- PoSt ---------------------------------------------------------------------------------- */

uint64_t seal_post_leaf_challenge(const uint8_t randomness[32], uint64_t sector_id, uint64_t idx,
                                  uint64_t nodes)
{
    uint8_t msg[48], d[32];

    memcpy(msg, randomness, 32);
    cz_store_le64(msg + 32, sector_id);
    cz_store_le64(msg + 40, idx);
    sha256(d, msg, sizeof(msg));
    return cz_load_le64(d) % nodes;
}

uint64_t seal_post_challenge_index(const seal_post_config *cfg, uint64_t sector_index, uint32_t n)
{
    if (cfg->api == SEAL_API_V1_2) {
        return n;
    }
    return sector_index * cfg->challenge_count + n;
}

uint64_t seal_winning_sector(const uint8_t prover_id[32], const uint8_t randomness[32], uint64_t n,
                             uint64_t set_len)
{
    uint8_t msg[72], d[32];

    CZ_CHECK(set_len > 0);
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    cz_store_le64(msg + 64, n);
    sha256(d, msg, sizeof(msg));
    return cz_load_le64(d) % set_len;
}

/* ---- SnapDeals ----------------------------------------------------------------------------- */

/* PoseidonGR: arity 2, HashType::Custom(Arbitrary(1)) (domain tag 2^40), standard constants. */
static void poseidon_gr(fr_t *out, const fr_t *a, const fr_t *b)
{
    fr_t tag, in[2];

    poseidon_tag_custom(&tag, 1);
    in[0] = *a;
    in[1] = *b;
    poseidon_hash_tagged(out, &tag, in, 2, poseidon_params(2));
}

void seal_snap_phi(uint8_t out[32], const uint8_t comm_d_new[32], const uint8_t comm_r_old[32])
{
    fr_t d, r, h;

    CZ_CHECK(fr_from_bytes(&d, comm_d_new) == CUZK_OK);
    CZ_CHECK(fr_from_bytes(&r, comm_r_old) == CUZK_OK);
    poseidon_gr(&h, &d, &r);
    fr_to_bytes(out, &h);
}

void seal_snap_rho(fr_t *out, const uint8_t phi[32], uint64_t high)
{
    fr_t p, hi;

    CZ_CHECK(fr_from_bytes(&p, phi) == CUZK_OK);
    fr_from_u64(&hi, high);
    poseidon_gr(out, &p, &hi);
}

void seal_snap_challenges(uint64_t *out, const seal_update_config *ucfg,
                          const uint8_t comm_r_new[32], uint32_t k)
{
    uint32_t rb = ucfg->shape.log2_nodes - ucfg->partition_bits; /* random bits per challenge */
    uint32_t per_digest = 254 / rb;                              /* Fr::CAPACITY / rb */
    uint32_t digests_per_partition = (ucfg->challenges + per_digest - 1) / per_digest;
    uint64_t digest_index = (uint64_t)k * digests_per_partition;
    uint32_t i = 0;
    uint8_t bits[32];
    fr_t c, idx, d;

    CZ_CHECK(k < ucfg->partitions);
    CZ_CHECK(fr_from_bytes(&c, comm_r_new) == CUZK_OK);
    for (uint32_t t = 0; t < ucfg->challenges; t++) {
        if (i == 0) {
            fr_from_u64(&idx, digest_index);
            poseidon_gr(&d, &c, &idx);
            fr_to_bytes(bits, &d); /* canonical little-endian: bit b is bits[b/8] >> (b%8) */
        }
        uint64_t v = 0;
        for (uint32_t b = 0; b < rb; b++) {
            uint32_t pos = i * rb + b;
            v |= (uint64_t)((bits[pos / 8] >> (pos % 8)) & 1) << b;
        }
        out[t] = v | ((uint64_t)k << rb);
        if (++i == per_digest) {
            i = 0;
            digest_index++;
        }
    }
}
