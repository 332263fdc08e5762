/* test_snap.c - SnapDeals partition proofs: generation for the 2 KiB (1 partition, 8 apex
 * leafs, h = 1), 16 KiB (2 partitions, 128 apex leafs) and 32 KiB (Top paths) shapes and a
 * synthetic 32 GiB sector (16 partitions x 86 challenges, h = 10); native verification and
 * its failures; bincode and Curio's JSON list round trips; negative inputs; public inputs.
 */
#include "proofs_test_util.h"

#include <jansson.h>

#include "common/bytes.h"
#include "proofs/internal.h"

static void check_snap_equal(const vp_snap_proof *a, const vp_snap_proof *b)
{
    CHECK_MEM_EQ(a->comm_c, b->comm_c, 32);
    CHECK_EQ_U64(a->napex, b->napex);
    CHECK_MEM_EQ(a->apex_leafs, b->apex_leafs, a->napex * sizeof(seal_node));
    CHECK_EQ_U64(a->nchallenges, b->nchallenges);
    CHECK(memcmp(a->challenges, b->challenges, a->nchallenges * sizeof(*a->challenges)) == 0);
}

static void snap_round(const seal_sector *s, const seal_update_config *uc, const seal_node *data)
{
    seal_update *u;
    const seal_update_info *ui;

    CHECK_OK(seal_update_encode(&u, s, uc, data, NULL, NULL));
    ui = seal_update_get_info(u);
    vp_snap_proof *parts = cz_calloc(uc->partitions, sizeof(*parts));
    CHECK(parts != NULL);
    for (uint32_t k = 0; k < uc->partitions; k++) {
        uint8_t *bin;
        size_t len;
        vp_snap_proof back;
        fr_t pi[4], x;

        CHECK_OK(vp_gen_snap(&parts[k], u, k, NULL));
        CHECK_OK(
            vp_snap_verify(&parts[k], uc, k, ui->comm_r_old, ui->comm_d_new, ui->comm_r_new, NULL));
        /* every challenge lies in the partition's slice of the sector */
        uint64_t slice = uc->shape.nodes / uc->partitions;
        for (size_t i = 0; i < parts[k].nchallenges; i++) {
            uint64_t c = seal_merkle_leaf_index(&parts[k].challenges[i].d_new);
            CHECK(c / slice == k);
        }
        CHECK_OK(vp_snap_to_bincode(&parts[k], &bin, &len, NULL));
        CHECK_OK(vp_snap_from_bincode(&back, uc->shape.sector_size, bin, len, NULL));
        check_snap_equal(&parts[k], &back);
        vp_snap_clear(&back);
        cz_free(bin);
        /* verifying against the wrong partition fails */
        if (uc->partitions > 1) {
            CHECK_ERR(vp_snap_verify(&parts[k], uc, (k + 1) % uc->partitions, ui->comm_r_old,
                                     ui->comm_d_new, ui->comm_r_new, NULL),
                      CUZK_E_FORMAT);
        }
        CHECK_OK(
            vp_snap_public_inputs(pi, uc, k, ui->comm_r_old, ui->comm_d_new, ui->comm_r_new, NULL));
        fr_from_u64(&x, k | ((uint64_t)uc->h_select << uc->partition_bits));
        CHECK(fr_eq(&pi[0], &x));
        CHECK_OK(fr_from_bytes(&x, ui->comm_d_new));
        CHECK(fr_eq(&pi[2], &x));
    }
    /* Curio's snap-vproof.json: jansson sees an array of base64 strings */
    char *json;
    size_t len, n;
    vp_snap_proof *list;
    json_error_t je;
    CHECK_OK(vp_snap_list_to_json(parts, uc->partitions, &json, &len, NULL));
    json_t *root = json_loadb(json, len, JSON_STRICT, &je);
    CHECK(root != NULL && json_is_array(root) && json_array_size(root) == uc->partitions);
    CHECK(json_is_string(json_array_get(root, 0)));
    json_decref(root);
    CHECK_OK(vp_snap_list_from_json(&list, &n, uc->shape.sector_size, json, len, NULL));
    CHECK_EQ_U64(n, uc->partitions);
    for (size_t k = 0; k < n; k++) {
        check_snap_equal(&parts[k], &list[k]);
        vp_snap_clear(&list[k]);
    }
    cz_free(list);
    cz_free(json);
    for (uint32_t k = 0; k < uc->partitions; k++) {
        vp_snap_clear(&parts[k]);
    }
    cz_free(parts);
    seal_update_free(u);
}

TEST(snap_small_shapes)
{
    static const uint64_t sizes[] = {2048, 16384, 32768};
    cz_prng *g = test_prng();
    uint8_t pid[32] = {9};

    for (size_t t = 0; t < ARRAY_LEN(sizes); t++) {
        seal_porep_config pc;
        seal_update_config uc;
        CHECK(seal_porep_config_custom(&pc, sizes[t], SEAL_API_V1_1, SEAL_POREP_INTERACTIVE, pid));
        CHECK(seal_update_config_for_size(&uc, sizes[t]));
        seal_sector *s = tu_seal(&pc, g);
        seal_node *d = tu_random_data(g, pc.shape.nodes);
        snap_round(s, &uc, d);
        snap_round(s, &uc, NULL);
        cz_free(d);
        seal_sector_free(s);
    }
}

TEST(snap_synthetic_32gib)
{
    cz_prng *g = test_prng();
    seal_porep_config pc;
    seal_update_config uc;
    seal_ids ids;
    seal_sector *s;
    uint64_t nodes[2] = {3, 12345};

    CHECK(seal_porep_config_for_id(&pc, 8));
    CHECK(seal_update_config_for_id(&uc, 3));
    tu_random_ids(&ids, g);
    CHECK_OK(seal_sector_seal_sparse(&s, &pc, &ids, nodes, 2, NULL));
    /* two of the 16 partitions are enough to exercise h = 10 and 128 apex leafs */
    seal_update *u;
    CHECK_OK(seal_update_encode(&u, s, &uc, NULL, NULL, NULL));
    const seal_update_info *ui = seal_update_get_info(u);
    for (uint32_t k = 0; k < 16; k += 15) {
        vp_snap_proof p;
        uint8_t *bin;
        size_t len;
        CHECK_OK(vp_gen_snap(&p, u, k, NULL));
        CHECK_EQ_U64(p.nchallenges, 86);
        CHECK_EQ_U64(p.napex, 128);
        CHECK_EQ_U64(p.challenges[0].r_old.kind, SEAL_PROOF_SUB);
        CHECK_OK(vp_snap_to_bincode(&p, &bin, &len, NULL));
        /* vanilla-proofs.md 3.2: about 561 768 bytes per 32 GiB partition */
        CHECK_EQ_U64(len, 32 + 8 + 128 * 32 + 8 + 86 * (2 * 2484 + (4 + 32 + 32 + 8 + 30 * 48)));
        vp_snap_clear(&p);
        cz_free(bin);
    }
    (void)ui;
    seal_update_free(u);
    seal_sector_free(s);
}

TEST(snap_verify_and_decode_failures)
{
    cz_prng *g = test_prng();
    seal_porep_config pc;
    seal_update_config uc;
    uint8_t pid[32] = {3};
    seal_update *u;
    vp_snap_proof p;

    CHECK(seal_porep_config_custom(&pc, 16384, SEAL_API_V1_1, SEAL_POREP_INTERACTIVE, pid));
    CHECK(seal_update_config_for_size(&uc, 16384));
    CHECK_EQ_U64(uc.partitions, 2);
    CHECK_EQ_U64(uc.apex_leafs, 128);
    seal_sector *s = tu_seal(&pc, g);
    seal_node *d = tu_random_data(g, pc.shape.nodes);
    CHECK_OK(seal_update_encode(&u, s, &uc, d, NULL, NULL));
    const seal_update_info *ui = seal_update_get_info(u);
    CHECK_OK(vp_gen_snap(&p, u, 1, NULL));

#define VERIFY_FAILS(needle)                                                                       \
    CHECK_FORMAT_ERR(                                                                              \
        vp_snap_verify(&p, &uc, 1, ui->comm_r_old, ui->comm_d_new, ui->comm_r_new, &dg_), needle)
    p.apex_leafs[17].b[0] ^= 1;
    VERIFY_FAILS("is not in apex row");
    p.apex_leafs[17].b[0] ^= 1;
    p.challenges[4].r_new.leaf.b[1] ^= 1;
    VERIFY_FAILS("challenge 4: proof_r_new: path does not hash");
    p.challenges[4].r_new.leaf.b[1] ^= 1;
    p.challenges[2].d_new.index[0] ^= 1;
    VERIFY_FAILS("challenge 2: proof_d_new opens node");
    p.challenges[2].d_new.index[0] ^= 1;
    p.comm_c[5] ^= 1;
    VERIFY_FAILS("comm_r_old != Poseidon2");
    p.comm_c[5] ^= 1;
    CHECK_OK(vp_snap_verify(&p, &uc, 1, ui->comm_r_old, ui->comm_d_new, ui->comm_r_new, NULL));
    /* the encoding check: a consistent TreeR_new built from other data would still need
     * new = old + data * rho; a different comm_d_new changes phi and rho */
    uint8_t other_d[32];
    memcpy(other_d, ui->comm_d_new, 32);
    other_d[0] ^= 1;
    CHECK_ERR(vp_snap_verify(&p, &uc, 1, ui->comm_r_old, other_d, ui->comm_r_new, NULL),
              CUZK_E_FORMAT);
#undef VERIFY_FAILS

    /* decoding */
    uint8_t *bin;
    size_t len;
    vp_snap_proof back;
    CHECK_OK(vp_snap_to_bincode(&p, &bin, &len, NULL));
    for (size_t cut = 0; cut < len; cut += 53) {
        CHECK_ERR(vp_snap_from_bincode(&back, 16384, bin, cut, NULL), CUZK_E_FORMAT);
    }
    CHECK_FORMAT_ERR(vp_snap_from_bincode(&back, 2048, bin, len, &dg_),
                     "apex_leafs: expected 8 apex leafs, found 128");
    CHECK_EQ_U64(cz_load_le64(bin + 32), 128);
    cz_store_le64(bin + 32 + 8 + 128 * 32, 11);
    CHECK_FORMAT_ERR(vp_snap_from_bincode(&back, 16384, bin, len, &dg_),
                     "challenge_proofs: expected 10 challenge proofs, found 11");
    cz_store_le64(bin + 32 + 8 + 128 * 32, 10);
    /* challenge 0's proof_d_new starts after proof_r_old (Sub: tag, base path of 2 elements
     * of 8 + 7 * 32 + 8 bytes, sub path of 1, root, leaf) and holds a Single tag */
    size_t d0 = 32 + 8 + 128 * 32 + 8 + (4 + (8 + 2 * 240) + (8 + 240) + 64);
    CHECK_EQ_U64(cz_load_le32(bin + d0), 0);
    cz_store_le32(bin + d0, 2);
    CHECK_FORMAT_ERR(vp_snap_from_bincode(&back, 16384, bin, len, &dg_),
                     "challenge_proofs[0].proof_d_new: variant Top does not fit");
    cz_store_le32(bin + d0, 0);
    CHECK_OK(vp_snap_from_bincode(&back, 16384, bin, len, NULL));
    vp_snap_clear(&back);

    /* JSON list negatives */
    vp_snap_proof *list;
    size_t n;
    CHECK_FORMAT_ERR(vp_snap_list_from_json(&list, &n, 16384, "[\"A*==\"]", 8, &dg_),
                     "[partition 0]: invalid base64");
    CHECK_FORMAT_ERR(vp_snap_list_from_json(&list, &n, 16384, "[1]", 3, &dg_), "expected a string");
    CHECK_FORMAT_ERR(vp_snap_list_from_json(&list, &n, 16384, "[\"AAAA\"]", 8, &dg_),
                     "[partition 0]: SnapDeals partition proof: comm_c: truncated");
    CHECK_FORMAT_ERR(vp_snap_list_from_json(&list, &n, 16384, "[] x", 4, &dg_), "trailing");
    cz_free(bin);
    vp_snap_clear(&p);
    seal_update_free(u);
    cz_free(d);
    seal_sector_free(s);
}
