/* test_seal_prims.c - seal/'s building blocks against independent implementations and official
 * known answers: ChaCha20 against OpenSSL; fr32 padding against a bit-by-bit model;
 * comm_d of zero sectors against supra_seal's table and the data-segment value pinned in
 * sealing.md 1.2; CommP of one-byte pieces against Curio's golden CIDs; compute_comm_d against a
 * direct TreeD; challenge derivation against naive big-integer arithmetic and the official
 * synthetic-challenge vectors of rust-fil-proofs.
 */
#include "harness/test.h"

#include <openssl/evp.h>
#include <openssl/sha.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "hash/sha256.h"
#include "seal/internal.h"
#include "seal/seal.h"
#include "vectors/hash/sha256_vectors.h"
#include "vectors/seal/commp_vectors.h"
#include "vectors/seal/seal_vectors.h"

static void hex32(uint8_t out[32], const char *hex)
{
    CHECK(cz_hex_decode(out, 32, hex));
}

/* ---- ChaCha -------------------------------------------------------------------- */

TEST(chacha20_keystream_matches_openssl)
{
    uint8_t key[32], nonce[12], iv[16] = {0}, zeros[700] = {0}, want[700], got[700];
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    cz_prng *g = test_prng();
    int outl = 0;

    cz_prng_bytes(g, key, 32);
    cz_prng_bytes(g, nonce, 12);
    memcpy(iv + 4, nonce, 12); /* OpenSSL: 32-bit LE counter (0) || 96-bit nonce */
    CHECK(ctx != NULL);
    CHECK(EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv) == 1);
    CHECK(EVP_EncryptUpdate(ctx, want, &outl, zeros, sizeof(zeros)) == 1);
    CHECK(outl == (int)sizeof(zeros));
    EVP_CIPHER_CTX_free(ctx);
    seal_chacha20_keystream(got, sizeof(got), key, nonce, 0);
    CHECK_MEM_EQ(got, want, sizeof(want));
    /* seeking: any window of the stream */
    for (size_t off = 0; off < 600; off += 13) {
        seal_chacha20_keystream(got, 37, key, nonce, off);
        CHECK_MEM_EQ(got, want + off, 37);
    }
}

/* RFC 8439 section 2.3.2: the ChaCha20 block function test vector (counter 1). */
TEST(chacha20_block_rfc8439)
{
    uint8_t key[32];
    uint32_t st[16], out[16];
    static const uint32_t want[16] = {
        0xe4e7f110, 0x15593bd1, 0x1fdd0f50, 0xc47120a3, 0xc7f4d1c7, 0x0368c033,
        0x9aaa2204, 0x4e6cd4c3, 0x466482d2, 0x09aa9f07, 0x05d7c214, 0xa2028bd9,
        0xd19c12b5, 0xb94e16de, 0xe883d0cb, 0x4e3c50a2,
    };

    for (int i = 0; i < 32; i++) {
        key[i] = (uint8_t)i;
    }
    seal_chacha_setup(st, key);
    st[12] = 1;
    st[13] = 0x09000000;
    st[14] = 0x4a000000;
    st[15] = 0x00000000;
    seal_chacha_block(out, st, 20);
    for (int i = 0; i < 16; i++) {
        CHECK_EQ_U64(out[i], want[i]);
    }
}

/* ---- fr32 ------------------------------------------------------------------------------ */

static int bit_of(const uint8_t *b, size_t i)
{
    return (b[i / 8] >> (i % 8)) & 1;
}

TEST(fr32_pad_matches_bit_model)
{
    cz_prng *g = test_prng();
    static const size_t lens[] = {0, 1, 31, 32, 126, 127, 128, 254, 255, 381, 1000, 2032};

    for (size_t t = 0; t < ARRAY_LEN(lens); t++) {
        size_t len = lens[t], plen = seal_fr32_padded_len(len);
        uint8_t *raw = cz_malloc(len + 1), *pad = cz_malloc(plen + 1), *back = cz_malloc(len + 1);
        CHECK(raw && pad && back);
        cz_prng_bytes(g, raw, len);
        seal_fr32_pad(pad, raw, len);
        CHECK_EQ_U64(plen % 32, 0);
        CHECK((plen / 32) * 254 >= len * 8);
        /* stream bit i lands at node i / 254, bit i % 254; bits 254 and 255 of a node are 0 */
        for (size_t i = 0; i < plen * 8; i++) {
            size_t node = i / 256, off = i % 256;
            size_t src = node * 254 + off;
            int want = off >= 254 || src >= len * 8 ? 0 : bit_of(raw, src);
            CHECK_MSG(bit_of(pad, i) == want, "len %zu bit %zu", len, i);
        }
        seal_fr32_unpad(back, len, pad);
        CHECK_MEM_EQ(back, raw, len);
        cz_free(raw);
        cz_free(pad);
        cz_free(back);
    }
    CHECK_EQ_U64(seal_fr32_padded_len(127), 128);
    CHECK_EQ_U64(seal_fr32_padded_len(2032), 2048);
}

/* ---- comm_d ----------------------------------------------------------------------------- */

TEST(zero_comm_d_matches_supra_seal)
{
    for (uint32_t k = 0; k < ARRAY_LEN(sha256_cc_tree_d_nodes); k++) {
        uint8_t want[32], got[32];
        hex32(want, sha256_cc_tree_d_nodes[k]);
        seal_zero_comm_d(got, k);
        CHECK_MEM_EQ(got, want, 32);
    }
}

/* sealing.md 1.2: @web3-storage/data-segment 5.3.0 Piece.fromPayload(2032 zero bytes).root. */
TEST(piece_comm_of_2032_zero_bytes_matches_data_segment)
{
    uint8_t raw[2032] = {0}, want[32], got[32];
    uint64_t size = 0;

    hex32(want, "fc7e928296e516faade986b28f92d44a4f24b935485223376a799027bc18f833");
    CHECK_OK(seal_piece_comm(got, &size, raw, sizeof(raw), NULL));
    CHECK_EQ_U64(size, 2048);
    CHECK_MEM_EQ(got, want, 32);
}

/* Curio treed_build_test.go: padded data with byte 0 = 1. The 8 MiB Test8MiBUnpad case shows
 * that 8 MiB * 127/128 raw bytes with byte 0 = 1 pad to the same nodes. */
TEST(commp_one_byte_matches_curio)
{
    for (size_t i = 0; i < ARRAY_LEN(seal_commp_vectors); i++) {
        const struct seal_commp_vector *v = &seal_commp_vectors[i];
        uint64_t nodes = v->padded_size / 32;
        uint8_t want[32], got[32];
        seal_node *data = cz_calloc(nodes, 32);

        CHECK(data != NULL);
        data[0].b[0] = 1;
        hex32(want, v->comm);
        CHECK_OK(seal_comm_d(got, data, nodes, NULL, NULL));
        CHECK_MEM_EQ(got, want, 32);
        cz_free(data);
        if (v->padded_size <= 2048) {
            uint8_t raw[2032] = {1};
            uint64_t sz;
            CHECK_OK(seal_piece_comm(got, &sz, raw, sizeof(raw), NULL));
            CHECK_MEM_EQ(got, want, 32);
        }
    }
}

/* @web3-storage/data-segment 5.3.0 Piece.fromPayload over payloads of many lengths (fr32
 * padding of partial blocks, the zero fill to a power of two, minimum 128 bytes). */
TEST(piece_comm_matches_data_segment)
{
    for (size_t t = 0; t < ARRAY_LEN(seal_commp_payload_vectors); t++) {
        const struct seal_commp_payload_vector *v = &seal_commp_payload_vectors[t];
        uint8_t *raw = cz_malloc(v->len), want[32], got[32];
        uint64_t size = 0;
        CHECK(raw != NULL);
        for (uint32_t i = 0; i < v->len; i++) {
            raw[i] = (uint8_t)((i * 131 + v->len * 7 + (i >> 8)) & 0xff);
        }
        hex32(want, v->root);
        CHECK_OK(seal_piece_comm(got, &size, raw, v->len, NULL));
        CHECK_EQ_U64(size, v->padded_size);
        CHECK_MSG(memcmp(got, want, 32) == 0, "payload of %u bytes", v->len);
        cz_free(raw);
    }
}

/* Naive TreeD root with OpenSSL's SHA-256 (an independent hash). */
static void naive_tree_d(uint8_t out[32], const uint8_t *nodes, size_t n)
{
    if (n == 1) {
        memcpy(out, nodes, 32);
        return;
    }
    uint8_t lr[64];
    naive_tree_d(lr, nodes, n / 2);
    naive_tree_d(lr + 32, nodes + 32 * (n / 2), n / 2);
    SHA256(lr, 64, out);
    out[31] &= 0x3f;
}

TEST(comm_d_from_pieces_matches_tree_d)
{
    /* Pieces that exactly fill a 32 KiB sector in a valid order (each aligned to its size):
     * the stack algorithm then equals the TreeD of the concatenated data. */
    cz_prng *g = test_prng();
    const uint64_t sector = 32768;

    for (int rep = 0; rep < 20; rep++) {
        uint8_t *data = cz_calloc(1, sector);
        seal_piece pieces[256];
        size_t n = 0;
        uint64_t off = 0;
        CHECK(data != NULL);
        while (off < sector) {
            uint64_t size = 128u << cz_prng_below(g, 6);
            while (off % size != 0 || off + size > sector) {
                size /= 2;
            }
            if (size < 128) {
                size = 128;
            }
            for (uint64_t i = 0; i < size / 32; i++) {
                cz_prng_bytes(g, data + off + 32 * i, 32);
                data[off + 32 * i + 31] &= 0x3f;
            }
            if (cz_prng_below(g, 4) == 0) {
                memset(data + off, 0, size); /* an explicit zero piece */
            }
            naive_tree_d(pieces[n].comm, data + off, size / 32);
            pieces[n].padded_size = size;
            n++;
            off += size;
        }
        uint8_t want[32], got[32];
        naive_tree_d(want, data, sector / 32);
        CHECK_OK(seal_comm_d_from_pieces(got, pieces, n, sector, NULL));
        CHECK_MEM_EQ(got, want, 32);
        /* dropping the trailing pieces: zero pieces close the stack at the next power of two
         * of the used size (a single piece is returned as is: the reference's behaviour) */
        if (n > 1) {
            size_t keep = n / 2;
            uint64_t used = 0, p2 = 128;
            for (size_t i = 0; i < keep; i++) {
                used += pieces[i].padded_size;
            }
            while (p2 < used) {
                p2 *= 2;
            }
            uint8_t part[32];
            memset(data + used, 0, sector - used);
            naive_tree_d(part, data, p2 / 32);
            CHECK_OK(seal_comm_d_from_pieces(got, pieces, keep, sector, NULL));
            CHECK_MEM_EQ(got, part, 32);
            naive_tree_d(want, data, sector / 32);
        }
        CHECK_OK(seal_comm_d(got, (const seal_node *)data, sector / 32, NULL, NULL));
        CHECK_MEM_EQ(got, want, 32);
        cz_free(data);
    }
    /* errors */
    seal_piece bad = {{0}, 100};
    CHECK_ERR(seal_comm_d_from_pieces((uint8_t[32]){0}, &bad, 1, 2048, NULL), CUZK_E_INVAL);
    seal_piece big = {{0}, 4096};
    CHECK_ERR(seal_comm_d_from_pieces((uint8_t[32]){0}, &big, 1, 2048, NULL), CUZK_E_INVAL);
    uint8_t z[32], want[32];
    CHECK_OK(seal_comm_d_from_pieces(z, NULL, 0, 2048, NULL));
    hex32(want, sha256_cc_tree_d_nodes[6]);
    CHECK_MEM_EQ(z, want, 32);
}

/* ---- identifiers ------------------------------------------------------------------------ */

TEST(replica_id_layout)
{
    uint8_t prover[32], ticket[32], comm_d[32], porep_id[32], msg[136], want[32], got[32];
    cz_prng *g = test_prng();

    cz_prng_bytes(g, prover, 32);
    cz_prng_bytes(g, ticket, 32);
    cz_prng_bytes(g, comm_d, 32);
    seal_porep_id(porep_id, 8);
    /* vanilla-proofs.md 6.1: id 8 -> 0800..00 */
    CHECK_EQ_U64(porep_id[0], 8);
    for (int i = 1; i < 32; i++) {
        CHECK_EQ_U64(porep_id[i], 0);
    }
    memcpy(msg, prover, 32);
    for (int i = 0; i < 8; i++) {
        msg[32 + i] = (uint8_t)(0x0102030405060708ULL >> (56 - 8 * i)); /* big-endian */
    }
    memcpy(msg + 40, ticket, 32);
    memcpy(msg + 72, comm_d, 32);
    memcpy(msg + 104, porep_id, 32);
    SHA256(msg, sizeof(msg), want);
    want[31] &= 0x3f;
    seal_replica_id(got, prover, 0x0102030405060708ULL, ticket, comm_d, porep_id);
    CHECK_MEM_EQ(got, want, 32);
}

TEST(prover_id_leb128)
{
    uint8_t p[32];

    seal_prover_id(p, 1000); /* vanilla-proofs.md 2.3: 1000 -> e8 07 */
    CHECK_EQ_U64(p[0], 0xe8);
    CHECK_EQ_U64(p[1], 0x07);
    CHECK_EQ_U64(p[2], 0);
    seal_prover_id(p, 128); /* 80 01 */
    CHECK_EQ_U64(p[0], 0x80);
    CHECK_EQ_U64(p[1], 0x01);
    seal_prover_id(p, 0);
    CHECK_EQ_U64(p[0], 0);
    seal_prover_id(p, UINT64_MAX); /* 9 x ff, then 01 */
    for (int i = 0; i < 9; i++) {
        CHECK_EQ_U64(p[i], 0xff);
    }
    CHECK_EQ_U64(p[9], 0x01);
}

/* ---- challenges ------------------------------------------------------------------------- */

/* (x mod m) for a 256-bit little-endian x, bit by bit. */
static uint64_t naive_mod(const uint8_t x[32], uint64_t m)
{
    uint64_t r = 0;
    for (int i = 255; i >= 0; i--) {
        r = (r * 2 + (uint64_t)bit_of(x, (size_t)i)) % m;
    }
    return r;
}

TEST(challenge_from_digest_matches_naive)
{
    uint8_t d[32];
    cz_prng *g = test_prng();
    static const uint64_t sizes[] = {2, 3, 64, 128, 1 << 18, 1 << 24, 1u << 30, 1ull << 31};

    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        for (int rep = 0; rep < 50; rep++) {
            cz_prng_bytes(g, d, 32);
            if (rep == 0) {
                memset(d, 0xff, 32);
            }
            uint64_t c = seal_challenge_from_digest(d, sizes[s]);
            CHECK_EQ_U64(c, naive_mod(d, sizes[s] - 1) + 1);
            CHECK(c >= 1 && c < sizes[s]);
        }
    }
}

TEST(interactive_and_ni_challenges)
{
    uint8_t rid[32], seed[32], comm_r[32], msg[200], d[32];
    uint64_t got[18];
    cz_prng *g = test_prng();
    const char *tag = "filecoin.io|PoRep|1|NonInteractive|1";
    size_t t = strlen(tag);

    CHECK_EQ_U64(t, 36);
    cz_prng_bytes(g, rid, 32);
    cz_prng_bytes(g, seed, 32);
    cz_prng_bytes(g, comm_r, 32);
    for (uint32_t k = 0; k < 3; k++) {
        seal_porep_challenges_interactive(got, 18, 1u << 30, rid, seed, k);
        for (uint32_t i = 0; i < 18; i++) {
            memcpy(msg, rid, 32);
            memcpy(msg + 32, seed, 32);
            cz_store_le32(msg + 64, 18 * k + i);
            SHA256(msg, 68, d);
            CHECK_EQ_U64(got[i], naive_mod(d, (1u << 30) - 1) + 1);
        }
        seal_porep_challenges_ni(got, 18, 1u << 30, rid, comm_r, k);
        for (uint32_t i = 0; i < 18; i++) {
            memcpy(msg, tag, t);
            memcpy(msg + t, rid, 32);
            memcpy(msg + t + 32, comm_r, 32);
            cz_store_le32(msg + t + 64, 18 * k + i);
            SHA256(msg, t + 68, d);
            CHECK_EQ_U64(got[i], naive_mod(d, (1u << 30) - 1) + 1);
        }
    }
}

/* rust-fil-proofs challenges.rs test_synth_challenges_against_hardcoded. */
TEST(synthetic_challenges_match_rust_fil_proofs)
{
    uint8_t rid[32] = {0}, comm_r[32] = {0}, rand[32];
    uint64_t synth[ARRAY_LEN(seal_synth_kat_synth)], porep[ARRAY_LEN(seal_synth_kat_porep)];
    uint64_t idx[ARRAY_LEN(seal_synth_kat_porep)];
    const uint64_t nsynth = ARRAY_LEN(seal_synth_kat_synth);

    rid[0] = SEAL_SYNTH_KAT_REPLICA_ID; /* Fr(55).to_repr(): little-endian */
    comm_r[0] = SEAL_SYNTH_KAT_COMM_R;
    memset(rand, SEAL_SYNTH_KAT_RAND_BYTE, 32);
    seal_synth_challenges(synth, 0, nsynth, SEAL_SYNTH_KAT_NODES, rid, comm_r);
    for (size_t i = 0; i < nsynth; i++) {
        CHECK_EQ_U64(synth[i], seal_synth_kat_synth[i]);
    }
    seal_porep_challenges_synthetic(porep, idx, ARRAY_LEN(porep), SEAL_SYNTH_KAT_NODES, rid, comm_r,
                                    rand, 0, nsynth);
    for (size_t i = 0; i < ARRAY_LEN(porep); i++) {
        CHECK_EQ_U64(porep[i], seal_synth_kat_porep[i]);
        CHECK(idx[i] < nsynth);
        CHECK_EQ_U64(seal_synth_kat_synth[idx[i]], porep[i]);
    }
    /* partitions continue the selection stream: partition k of n = entries [k n, (k+1) n) */
    uint64_t all[10], part[5];
    seal_porep_challenges_synthetic(all, NULL, 10, SEAL_SYNTH_KAT_NODES, rid, comm_r, rand, 0,
                                    nsynth);
    seal_porep_challenges_synthetic(part, NULL, 5, SEAL_SYNTH_KAT_NODES, rid, comm_r, rand, 1,
                                    nsynth);
    CHECK_MEM_EQ(part, all + 5, sizeof(part));
}

TEST(post_leaf_challenges)
{
    uint8_t r[32], msg[48], d[32];
    cz_prng *g = test_prng();
    seal_post_config win, win_v2;

    cz_prng_bytes(g, r, 32);
    for (uint64_t idx = 0; idx < 20; idx++) {
        memcpy(msg, r, 32);
        cz_store_le64(msg + 32, 77);
        cz_store_le64(msg + 40, idx);
        SHA256(msg, 48, d);
        CHECK_EQ_U64(seal_post_leaf_challenge(r, 77, idx, 1u << 30), cz_load_le64(d) % (1u << 30));
    }
    CHECK(seal_post_config_for_id(&win, 3)); /* StackedDrgWinning32GiBV1 */
    CHECK_EQ_U64(win.challenge_count, 66);
    CHECK_EQ_U64(win.sector_count, 1);
    CHECK_EQ_U64(seal_post_challenge_index(&win, 2, 5), 2 * 66 + 5);
    CHECK(seal_post_config_for_id(&win_v2, 13)); /* StackedDrgWindow32GiBV1_1 (Rust V1_2) */
    CHECK_EQ_U64(win_v2.sector_count, 2349);
    CHECK_EQ_U64(seal_post_challenge_index(&win_v2, 2, 5), 5);
    CHECK_STR_EQ(win_v2.name, "StackedDrgWindow32GiBV1_1");
}

TEST(snap_challenges_layout)
{
    /* Every challenge of partition k lies in [k N/P, (k+1) N/P); the challenges of a digest
     * are consecutive bit fields of the Poseidon digest, so regenerating them from the
     * public derivation (phi-style Poseidon with the Custom(1) tag) must agree. */
    static const uint64_t sizes[] = {2048, 8 << 20, 32ull << 30};
    uint8_t comm[32] = {0};
    cz_prng *g = test_prng();

    for (size_t s = 0; s < ARRAY_LEN(sizes); s++) {
        seal_update_config u;
        uint64_t ch[86];
        CHECK(seal_update_config_for_size(&u, sizes[s]));
        cz_prng_bytes(g, comm, 31);
        for (uint32_t k = 0; k < u.partitions; k++) {
            seal_snap_challenges(ch, &u, comm, k);
            uint64_t lo = (uint64_t)k * (u.shape.nodes / u.partitions);
            for (uint32_t i = 0; i < u.challenges; i++) {
                CHECK(ch[i] >= lo && ch[i] < lo + u.shape.nodes / u.partitions);
            }
        }
    }
    seal_update_config u;
    CHECK(seal_update_config_for_id(&u, 3)); /* 32 GiB */
    CHECK_EQ_U64(u.partitions, 16);
    CHECK_EQ_U64(u.challenges, 86);
    CHECK_EQ_U64(u.apex_leafs, 128);
    CHECK_EQ_U64(u.h, 10);
    CHECK_EQ_U64(u.h_select, 8);
    CHECK(seal_update_config_for_id(&u, 0)); /* 2 KiB */
    CHECK_EQ_U64(u.partitions, 1);
    CHECK_EQ_U64(u.apex_leafs, 8);
    CHECK_EQ_U64(u.h, 1);
    CHECK_EQ_U64(u.h_select, 1);
    CHECK(seal_update_config_for_id(&u, 1)); /* 8 MiB */
    CHECK_EQ_U64(u.partitions, 4);
    CHECK_EQ_U64(u.challenges, 10);
}

TEST(registered_proof_tables)
{
    seal_porep_config c;

    CHECK(seal_porep_config_for_id(&c, 8));
    CHECK_STR_EQ(c.name, "StackedDrg32GiBV1_1");
    CHECK_STR_EQ(c.c1_variant, "StackedDrg32GiBV1");
    CHECK_EQ_U64(c.partitions, 10);
    CHECK_EQ_U64(c.challenges_per_partition, 18);
    CHECK_EQ_U64(c.shape.layers, 11);
    CHECK_EQ_U64(c.shape.base_levels, 9);
    CHECK_EQ_U64(c.porep_id[0], 8);
    CHECK(seal_porep_config_for_name(&c, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep"));
    CHECK_EQ_U64(c.registered_proof, 19);
    CHECK_EQ_U64(c.kind, SEAL_POREP_NI);
    CHECK_EQ_U64(c.partitions, 126);
    CHECK_EQ_U64(c.challenges_per_partition, 18);
    CHECK_STR_EQ(c.c1_variant, "StackedDrg64GiBV1");
    CHECK(seal_porep_config_for_name(&c, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep"));
    CHECK_EQ_U64(c.partitions, 13);
    CHECK_EQ_U64(c.challenges_per_partition, 2);
    CHECK(seal_porep_config_for_id(&c, 10));
    CHECK_EQ_U64(c.kind, SEAL_POREP_SYNTHETIC);
    CHECK_EQ_U64(c.api, SEAL_API_V1_2);
    CHECK(seal_porep_config_for_id(&c, 0));
    CHECK_EQ_U64(c.api, SEAL_API_V1_0);
    CHECK(!seal_porep_config_for_id(&c, 20));
    CHECK(!seal_porep_config_for_name(&c, "StackedDrg2KiBV2"));
    seal_shape sh;
    CHECK(seal_shape_for_size(&sh, 64ull << 30));
    CHECK_EQ_U64(sh.base_trees, 16);
    CHECK_EQ_U64(sh.base_levels, 9);
    CHECK(seal_shape_for_size(&sh, 4096));
    CHECK_EQ_U64(sh.sub_arity, 2);
    CHECK_EQ_U64(sh.base_levels, 2);
    CHECK(!seal_shape_for_size(&sh, 3000));
}

/* The default registered proofs of each published size, checked by name (the Go abi's). */
TEST(default_registered_proofs)
{
    static const struct {
        uint64_t size;
        const char *porep, *winning, *window, *update;
    } v[] = {
        {2048, "StackedDrg2KiBV1_1", "StackedDrgWinning2KiBV1", "StackedDrgWindow2KiBV1_1",
         "StackedDrg2KiBV1"},
        {8ull << 20, "StackedDrg8MiBV1_1", "StackedDrgWinning8MiBV1", "StackedDrgWindow8MiBV1_1",
         "StackedDrg8MiBV1"},
        {512ull << 20, "StackedDrg512MiBV1_1", "StackedDrgWinning512MiBV1",
         "StackedDrgWindow512MiBV1_1", "StackedDrg512MiBV1"},
        {32ull << 30, "StackedDrg32GiBV1_1", "StackedDrgWinning32GiBV1",
         "StackedDrgWindow32GiBV1_1", "StackedDrg32GiBV1"},
        {64ull << 30, "StackedDrg64GiBV1_1", "StackedDrgWinning64GiBV1",
         "StackedDrgWindow64GiBV1_1", "StackedDrg64GiBV1"},
    };
    for (size_t i = 0; i < ARRAY_LEN(v); i++) {
        seal_default_ids ids;
        seal_porep_config c;
        seal_post_config pc;
        seal_update_config uc;

        CHECK(seal_default_ids_for_size(&ids, v[i].size));
        CHECK(seal_porep_config_for_id(&c, ids.porep));
        CHECK_STR_EQ(c.name, v[i].porep);
        CHECK_EQ_U64(c.shape.sector_size, v[i].size);
        CHECK(seal_post_config_for_id(&pc, ids.winning_post));
        CHECK_STR_EQ(pc.name, v[i].winning);
        CHECK_EQ_U64(pc.type, SEAL_POST_WINNING);
        CHECK(seal_post_config_for_id(&pc, ids.window_post));
        CHECK_STR_EQ(pc.name, v[i].window);
        CHECK_EQ_U64(pc.type, SEAL_POST_WINDOW);
        CHECK_EQ_U64(pc.api, SEAL_API_V1_2);
        CHECK(seal_update_config_for_id(&uc, ids.update));
        CHECK_STR_EQ(uc.name, v[i].update);
        CHECK_EQ_U64(uc.shape.sector_size, v[i].size);
    }
    seal_default_ids ids = {1, 2, 3, 4};
    CHECK(!seal_default_ids_for_size(&ids, 4096)); /* supported, not published */
    CHECK(!seal_default_ids_for_size(&ids, 0));
    CHECK_EQ_U64(ids.porep, 1); /* untouched */
}
