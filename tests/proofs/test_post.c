/* test_post.c - PoSt vanilla proofs: a real 32 GiB WindowPoSt proof made by rust-fil-proofs
 * (Curio's golden file) decodes, verifies natively (Poseidon paths, leaf challenges from the
 * randomness, comm_r against the sector's SealedCID) and re-encodes byte for byte; generated
 * winning and window proofs for 2 KiB, 4 KiB and synthetic 32 GiB sectors verify and round-trip;
 * malformed inputs name the field; public inputs follow circuits.md 6.2.
 */
#include "proofs_test_util.h"

#include "common/bytes.h"
#include "vectors/proofs/post_golden_vectors.h"

static size_t golden_len;

/* The golden proof bytes, read from the shared data directory (skips the test if absent). */
static const uint8_t *golden_vproof(void)
{
    static uint8_t *buf;
    if (!buf) {
        buf = test_shared_load(POST_GOLDEN_VPROOF_FILE, &golden_len);
    }
    return buf;
}

TEST(post_golden_decodes_and_verifies)
{
    const uint8_t *post_golden_vproof = golden_vproof();
    seal_post_config cfg;
    vp_post_proof p;
    uint8_t rand[32], comm_r[32], *bin;
    size_t len;

    CHECK(seal_post_config_for_id(&cfg, POST_GOLDEN_POST_PROOF)); /* StackedDrgWindow32GiBV1 */
    CHECK_STR_EQ(cfg.name, "StackedDrgWindow32GiBV1");
    CHECK(cz_hex_decode(rand, 32, post_golden_randomness));
    CHECK(cz_hex_decode(comm_r, 32, post_golden_comm_r));
    CHECK_OK(vp_post_from_bincode(&p, 32ull << 30, post_golden_vproof, golden_len, NULL));
    CHECK_EQ_U64(p.sector_id, POST_GOLDEN_SECTOR);
    CHECK_MEM_EQ(p.comm_r, comm_r, 32); /* the SealedCID's digest */
    CHECK_EQ_U64(p.ninclusion, 10);
    CHECK_EQ_U64(p.inclusion[0].kind, SEAL_PROOF_SUB);
    /* sizes of vanilla-proofs.md 2.2: 2484 bytes per Sub proof, 24 960 in all */
    CHECK_EQ_U64(golden_len, 24960);
    CHECK_OK(vp_post_verify(&p, &cfg, rand, 0, NULL));
    CHECK_OK(vp_post_to_bincode(&p, &bin, &len, NULL));
    CHECK_EQ_U64(len, golden_len);
    CHECK_MEM_EQ(bin, post_golden_vproof, len);
    cz_free(bin);

    /* other randomness or another position (V1_0 challenge indices) fail */
    rand[0] ^= 1;
    CHECK_FORMAT_ERR(vp_post_verify(&p, &cfg, rand, 0, &dg_), "challenge is leaf");
    rand[0] ^= 1;
    CHECK_FORMAT_ERR(vp_post_verify(&p, &cfg, rand, 1, &dg_), "inclusion_proofs[0]");
    p.inclusion[4].sib[9].b[3] ^= 0x20;
    CHECK_FORMAT_ERR(vp_post_verify(&p, &cfg, rand, 0, &dg_),
                     "inclusion_proofs[4]: path does not hash");
    p.inclusion[4].sib[9].b[3] ^= 0x20;
    p.comm_c[0] ^= 1;
    CHECK_FORMAT_ERR(vp_post_verify(&p, &cfg, rand, 0, &dg_), "Poseidon2(comm_c, comm_r_last)");
    p.comm_c[0] ^= 1;
    CHECK_OK(vp_post_verify(&p, &cfg, rand, 0, NULL));
    /* the V1_1 (Rust V1_2) window proof of the same size uses challenge index n: with
     * sector_index 0 both agree */
    seal_post_config v12;
    CHECK(seal_post_config_for_id(&v12, 13));
    CHECK_OK(vp_post_verify(&p, &v12, rand, 0, NULL));
    CHECK_OK(vp_post_verify(&p, &v12, rand, 7, NULL));
    vp_post_clear(&p);
}

TEST(post_golden_negative)
{
    const uint8_t *post_golden_vproof = golden_vproof();
    vp_post_proof p;
    uint8_t *buf = cz_malloc(golden_len + 8);
    size_t n = golden_len;

    CHECK(buf != NULL);
    for (size_t cut = 0; cut < n; cut += (cut < 300 ? 1 : 211)) {
        cz_diag dg;
        cz_diag_init(&dg);
        CHECK_ERR(vp_post_from_bincode(&p, 32ull << 30, post_golden_vproof, cut, &dg),
                  CUZK_E_FORMAT);
        CHECK(dg.msg[0] != '\0');
        CHECK(p.inclusion == NULL);
    }
    memcpy(buf, post_golden_vproof, n);
    buf[n] = 7;
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 32ull << 30, buf, n + 1, &dg_), "1 trailing bytes");
    /* the wrong sector size: the paths do not fit */
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 64ull << 30, buf, n, &dg_),
                     "inclusion_proofs[0]: variant Sub does not fit");
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 2048, buf, n, &dg_), "variant Sub does not fit");
    /* two sector proofs */
    buf[40] = 2;
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 32ull << 30, buf, n, &dg_),
                     "vanilla_proof.sectors: expected exactly 1");
    buf[40] = 1;
    /* a huge inclusion count cannot allocate before failing */
    memset(buf + 48, 0xff, 8);
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 32ull << 30, buf, n, &dg_), "cannot fit");
    memcpy(buf, post_golden_vproof, n);
    /* a hash count of 6 in the first base element (after tag u32 at 56, path len at 60) */
    CHECK_EQ_U64(cz_load_le64(buf + 60), 9);
    CHECK_EQ_U64(cz_load_le64(buf + 68), 7);
    buf[68] = 6;
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 32ull << 30, buf, n, &dg_),
                     "inclusion_proofs[0].base_proof[0]: expected 7 hashes, found 6");
    buf[68] = 7;
    /* an index out of range */
    memset(buf + 76 + 7 * 32, 9, 1);
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 32ull << 30, buf, n, &dg_),
                     "index 9 out of range for arity 8");
    buf[56] = 5;
    CHECK_FORMAT_ERR(vp_post_from_bincode(&p, 32ull << 30, buf, n, &dg_),
                     "unknown ProofData variant 5");
    cz_free(buf);
    CHECK_ERR(vp_post_from_bincode(&p, 3000, post_golden_vproof, n, NULL), CUZK_E_INVAL);
}

static void check_post_for(const seal_sector *s, const seal_post_config *cfg, cz_prng *g)
{
    uint8_t rand[32], *bin;
    size_t len;
    vp_post_proof p, back;
    const seal_sector_info *in = seal_sector_get_info(s);

    tu_random_fr(rand, g);
    CHECK_OK(vp_gen_post(&p, s, cfg, rand, 3, NULL));
    CHECK_EQ_U64(p.ninclusion, cfg->challenge_count);
    CHECK_OK(vp_post_verify(&p, cfg, rand, 3, NULL));
    CHECK_OK(vp_post_to_bincode(&p, &bin, &len, NULL));
    CHECK_OK(vp_post_from_bincode(&back, cfg->shape.sector_size, bin, len, NULL));
    CHECK_EQ_U64(back.sector_id, in->ids.sector_id);
    CHECK_EQ_U64(back.ninclusion, p.ninclusion);
    for (size_t i = 0; i < p.ninclusion; i++) {
        CHECK(memcmp(&back.inclusion[i], &p.inclusion[i], sizeof(seal_merkle_proof)) == 0);
    }
    CHECK_OK(vp_post_verify(&back, cfg, rand, 3, NULL));

    /* public inputs: comm_r then the challenged leaves, which are the paths' indices */
    size_t n = vp_post_num_inputs(cfg);
    fr_t *pi = cz_malloc(n * sizeof(fr_t)), x;
    seal_node comm_r;
    uint64_t sid = in->ids.sector_id;
    CHECK(pi != NULL);
    memcpy(comm_r.b, in->comm_r, 32);
    /* sector_index = partition * sector_count + i: position 3 of partition 0 needs 4 sectors;
     * use partition 0 with the sector at position 0 and compare with sector_index 0 */
    vp_post_clear(&p);
    CHECK_OK(vp_gen_post(&p, s, cfg, rand, 0, NULL));
    CHECK_OK(vp_post_public_inputs(pi, cfg, rand, &sid, &comm_r, 1, 0, NULL));
    CHECK_OK(fr_from_bytes(&x, in->comm_r));
    if (cfg->type == SEAL_POST_WINNING) {
        CHECK_EQ_U64(n, 132);
        for (uint32_t k = 0; k < 66; k++) {
            CHECK(fr_eq(&pi[2 * k], &x));
            fr_t leaf;
            fr_from_u64(&leaf, seal_merkle_leaf_index(&p.inclusion[k]));
            CHECK(fr_eq(&pi[2 * k + 1], &leaf));
        }
    } else {
        CHECK_EQ_U64(n, (size_t)cfg->sector_count * 11);
        for (uint32_t sct = 0; sct < cfg->sector_count; sct++) { /* padded copies */
            CHECK(fr_eq(&pi[11 * sct], &x));
            for (uint32_t k = 0; k < 10; k++) {
                fr_t leaf;
                fr_from_u64(&leaf, seal_merkle_leaf_index(&p.inclusion[k]));
                CHECK(fr_eq(&pi[11 * sct + 1 + k], &leaf));
            }
        }
    }
    /* the same inputs taken from the proof itself */
    fr_t *pi2 = cz_malloc(n * sizeof(fr_t));
    CHECK(pi2 != NULL);
    CHECK_OK(vp_post_public_inputs_of(pi2, cfg, rand, &p, 1, 0, NULL));
    for (size_t i = 0; i < n; i++) {
        CHECK_MSG(fr_eq(&pi2[i], &pi[i]), "input %zu", i);
    }
    cz_free(pi2);
    /* a partition's proofs verify at their positions: partition * sector_count + i */
    size_t bad_at = 99;
    CHECK_OK(vp_post_verify_partition(&p, 1, cfg, rand, 0, &bad_at, NULL));
    CHECK_EQ_U64(bad_at, 99);
    if (cfg->api != SEAL_API_V1_2) {
        /* before API 1.2 the challenges depend on the position: the proof made for position 0
         * fails at position 1 and in partition 1 */
        vp_post_proof two[2] = {p, p}; /* shallow copies, not cleared */
        CHECK_ERR(vp_post_verify_partition(two, 2, cfg, rand, 0, &bad_at, NULL), CUZK_E_FORMAT);
        CHECK_EQ_U64(bad_at, 1);
        CHECK_ERR(vp_post_verify_partition(&p, 1, cfg, rand, 1, &bad_at, NULL), CUZK_E_FORMAT);
        CHECK_EQ_U64(bad_at, 0);
    } else {
        CHECK_OK(vp_post_verify_partition(&p, 1, cfg, rand, 1, NULL, NULL));
    }
    uint8_t bad[32];
    memset(bad, 0xff, 32);
    CHECK_ERR(vp_post_public_inputs(pi, cfg, bad, &sid, &comm_r, 1, 0, NULL), CUZK_E_FORMAT);
    CHECK_ERR(vp_post_public_inputs_of(pi, cfg, bad, &p, 1, 0, NULL), CUZK_E_FORMAT);
    CHECK_ERR(vp_post_public_inputs(pi, cfg, rand, &sid, &comm_r, 0, 0, NULL), CUZK_E_INVAL);
    cz_free(pi);
    cz_free(bin);
    vp_post_clear(&p);
    vp_post_clear(&back);
}

TEST(post_generated_proofs)
{
    cz_prng *g = test_prng();
    seal_porep_config pc;
    seal_post_config cfg;

    /* 2 KiB: winning (id 0), window V1 (5) and window V1_1 (10) */
    CHECK(seal_porep_config_for_id(&pc, 5));
    seal_sector *s = tu_seal(&pc, g);
    static const uint32_t ids[] = {0, 5, 10};
    for (size_t i = 0; i < ARRAY_LEN(ids); i++) {
        CHECK(seal_post_config_for_id(&cfg, ids[i]));
        check_post_for(s, &cfg, g);
    }
    /* a PoSt configuration of another size is refused */
    vp_post_proof p;
    uint8_t rand[32] = {0};
    CHECK(seal_post_config_for_id(&cfg, 1));
    CHECK_ERR(vp_gen_post(&p, s, &cfg, rand, 0, NULL), CUZK_E_INVAL);
    seal_sector_free(s);

    /* 32 KiB (Top paths), test configuration */
    uint8_t pid[32] = {1};
    CHECK(seal_porep_config_custom(&pc, 32768, SEAL_API_V1_1, SEAL_POREP_INTERACTIVE, pid));
    s = tu_seal(&pc, g);
    CHECK(seal_post_config_custom(&cfg, 32768, SEAL_POST_WINDOW, SEAL_API_V1_2));
    check_post_for(s, &cfg, g);
    seal_sector_free(s);

    /* a synthetic 32 GiB sector: any leaf opens */
    seal_ids ids32;
    uint64_t nodes[3] = {5, 77, 1u << 29};
    CHECK(seal_porep_config_for_id(&pc, 8));
    tu_random_ids(&ids32, g);
    CHECK_OK(seal_sector_seal_sparse(&s, &pc, &ids32, nodes, 3, NULL));
    CHECK(seal_post_config_for_id(&cfg, 3)); /* winning 32 GiB */
    check_post_for(s, &cfg, g);
    CHECK(seal_post_config_for_id(&cfg, 13)); /* window 32 GiB V1_1 */
    check_post_for(s, &cfg, g);
    seal_sector_free(s);
}
