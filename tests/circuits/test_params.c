/* test_params.c - sector table, registered proofs, PoRep partitioning and the official parameter
 * file names. Names are checked against rust-fil-proofs' parameters.json (vectors/circuits/
 * param_names.h): every published (circuit, size) maps to a listed name with the listed sector
 * size, and every listed name is produced by exactly one (circuit, size, extension). The two
 * identifier strings are the ones rust-fil-proofs pins in storage-proofs-porep
 * src/stacked/vanilla/params.rs test_public_params_identifier (commit 87348a7).
 */
#include "circ_util.h"

#include "vectors/circuits/param_names.h"

TEST(param_identifier_porep_pinned)
{
    char buf[512];

    CHECK_OK(circ_param_identifier(buf, sizeof(buf), CIRC_POREP, 32 * GIB));
    CHECK_STR_EQ(buf, "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph"
                      "{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 1073741824; "
                      "degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
                      "layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-0 }");
    CHECK_OK(circ_param_identifier(buf, sizeof(buf), CIRC_POREP, 64 * GIB));
    CHECK_STR_EQ(buf, "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph"
                      "{expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 2147483648; "
                      "degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
                      "layers: 11, max_count: 18 }, tree: merkletree-poseidon_hasher-8-8-2 }");
}

TEST(param_names_32gib_pinned)
{
    char buf[CIRC_PARAM_NAME_MAX];

    CHECK_OK(circ_param_file_name(buf, sizeof(buf), CIRC_POREP, 32 * GIB, CIRC_PARAM_PARAMS));
    CHECK_STR_EQ(buf, "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-"
                      "sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01b"
                      "fef7820.params");
    CHECK_OK(circ_param_file_name(buf, sizeof(buf), CIRC_WINDOW_POST, 32 * GIB, CIRC_PARAM_VK));
    CHECK_STR_EQ(buf, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded6"
                      "56c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk");
    CHECK_OK(circ_param_file_name(buf, sizeof(buf), CIRC_WINNING_POST, 32 * GIB, CIRC_PARAM_META));
    CHECK_STR_EQ(buf, "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f"
                      "022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.meta");
    CHECK_OK(circ_param_file_name(buf, sizeof(buf), CIRC_UPDATE, 32 * GIB, CIRC_PARAM_PARAMS));
    CHECK_STR_EQ(buf, "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985"
                      "369454947bc94022e118211e49fd672d52bec1cbfd599d18.params");
    CHECK_OK(
        circ_param_file_name(buf, sizeof(buf), CIRC_UPDATE_POSEIDON, 32 * GIB, CIRC_PARAM_PARAMS));
    CHECK_STR_EQ(buf, "v28-empty-sector-update-poseidon-merkletree-poseidon_hasher-8-8-0-3b7f44a9"
                      "362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params");
    CHECK_OK(circ_param_meta_json(buf, sizeof(buf), 32 * GIB));
    CHECK_STR_EQ(buf, "{\"sector_size\":34359738368}");
}

/* Every published (kind, size) and extension. */
TEST(param_names_match_parameters_json)
{
    static const uint64_t published[5] = {2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB};
    bool seen[ARRAY_LEN(PARAM_NAMES)] = {false};
    size_t produced = 0;

    for (unsigned kind = CIRC_POREP; kind <= CIRC_UPDATE_POSEIDON; kind++) {
        for (size_t s = 0; s < 5; s++) {
            /* the Poseidon SnapDeals variant was published for 32 and 64 GiB only */
            if (kind == CIRC_UPDATE_POSEIDON && published[s] < 32 * GIB) {
                continue;
            }
            for (unsigned ext = CIRC_PARAM_PARAMS; ext <= CIRC_PARAM_VK; ext++) {
                char name[CIRC_PARAM_NAME_MAX];
                size_t j;

                CHECK_OK(circ_param_file_name(name, sizeof(name), (circ_kind)kind, published[s],
                                              (circ_param_ext)ext));
                for (j = 0; j < ARRAY_LEN(PARAM_NAMES); j++) {
                    if (strcmp(name, PARAM_NAMES[j].name) == 0) {
                        break;
                    }
                }
                CHECK_MSG(j < ARRAY_LEN(PARAM_NAMES), "%s not in parameters.json", name);
                CHECK(!seen[j]);
                CHECK_EQ_U64(PARAM_NAMES[j].sector_size, published[s]);
                seen[j] = true;
                produced++;
            }
        }
    }
    CHECK_EQ_U64(produced, ARRAY_LEN(PARAM_NAMES));
}

TEST(param_names_errors)
{
    char small[40], buf[CIRC_PARAM_NAME_MAX];

    CHECK_ERR(circ_param_file_name(small, sizeof(small), CIRC_POREP, 32 * GIB, CIRC_PARAM_VK),
              CUZK_E_INVAL);
    CHECK_ERR(circ_param_file_name(buf, sizeof(buf), CIRC_POREP, 3 * GIB, CIRC_PARAM_VK),
              CUZK_E_INVAL);
    /* SnapDeals has no 1 GiB circuit (validate_tree_r_shape) */
    CHECK_ERR(circ_param_file_name(buf, sizeof(buf), CIRC_UPDATE, 1 * GIB, CIRC_PARAM_VK),
              CUZK_E_INVAL);
    CHECK_ERR(circ_param_file_name(buf, sizeof(buf), CIRC_POREP, 2 * KIB, (circ_param_ext)3),
              CUZK_E_INVAL);
    CHECK_ERR(circ_param_meta_json(small, 5, 2048), CUZK_E_INVAL);
}

TEST(sector_table)
{
    size_t n;
    const circ_sector_t *s = circ_sectors(&n);

    CHECK_EQ_U64(n, 10);
    for (size_t i = 0; i < n; i++) {
        circ_porep_cfg_t pc;
        circ_post_cfg_t wc;
        CHECK(circ_sector_lookup(s[i].bytes) == &s[i]);
        CHECK(circ_sector_parse(s[i].name) == &s[i]);
        CHECK(circ_porep_cfg_for_sector(&pc, s[i].bytes));
        CHECK(circ_window_post_cfg(&wc, s[i].bytes, 0));
        CHECK(circ_winning_post_cfg(&wc, s[i].bytes));
        CHECK_EQ_U64(wc.sector_count, 66);
        CHECK_EQ_U64(wc.challenge_count, 1);
    }
    CHECK(circ_sector_parse("32gib")->bytes == 32 * GIB);
    CHECK(circ_sector_parse("32G")->bytes == 32 * GIB);
    CHECK(circ_sector_parse("2048")->bytes == 2 * KIB);
    CHECK(circ_sector_parse("512MiB")->bytes == 512 * MIB);
    CHECK(circ_sector_parse("8KiB") == NULL); /* not a PoRep / PoSt size */
    CHECK(circ_sector_parse("32TiB") == NULL);
    CHECK(circ_sector_parse("") == NULL);
    CHECK(circ_sector_parse("GiB") == NULL);
    CHECK(circ_sector_parse("99999999999999999999GiB") == NULL);
}

/* spec circuits.md 5.5 and vanilla-proofs.md 1.8 */
TEST(porep_partitioning)
{
    uint32_t p, c;

    CHECK(circ_porep_partitioning(32 * GIB, CIRC_POREP_INTERACTIVE, &p, &c));
    CHECK(p == 10 && c == 18);
    CHECK(circ_porep_partitioning(64 * GIB, CIRC_POREP_SYNTHETIC, &p, &c));
    CHECK(p == 10 && c == 18);
    CHECK(circ_porep_partitioning(32 * GIB, CIRC_POREP_NON_INTERACTIVE, &p, &c));
    CHECK(p == 126 && c == 18);
    CHECK(circ_porep_partitioning(2 * KIB, CIRC_POREP_INTERACTIVE, &p, &c));
    CHECK(p == 1 && c == 2);
    CHECK(circ_porep_partitioning(512 * MIB, CIRC_POREP_NON_INTERACTIVE, &p, &c));
    CHECK(p == 13 && c == 2);
    CHECK(!circ_porep_partitioning(8 * KIB, CIRC_POREP_INTERACTIVE, &p, &c));
}

/* spec vanilla-proofs.md 6.1-6.3 */
TEST(registered_proofs)
{
    circ_registered_t r;

    CHECK(circ_registered_seal(&r, 3));
    CHECK(r.kind == CIRC_POREP && r.sector_bytes == 32 * GIB && r.api == CIRC_API_V1_0_0);
    CHECK_STR_EQ(r.name, "StackedDrg32GiBV1");
    CHECK(circ_registered_seal(&r, 8));
    CHECK(r.sector_bytes == 32 * GIB && r.api == CIRC_API_V1_1_0);
    CHECK(r.porep_challenges == CIRC_POREP_INTERACTIVE);
    CHECK_STR_EQ(r.name, "StackedDrg32GiBV1_1");
    CHECK(circ_registered_seal(&r, 10));
    CHECK(r.sector_bytes == 2 * KIB && r.api == CIRC_API_V1_2_0);
    CHECK(r.porep_challenges == CIRC_POREP_SYNTHETIC);
    CHECK(circ_registered_seal(&r, 19));
    CHECK(r.sector_bytes == 64 * GIB && r.porep_challenges == CIRC_POREP_NON_INTERACTIVE);
    CHECK_STR_EQ(r.name, "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep");
    CHECK(!circ_registered_seal(&r, 20));

    CHECK(circ_registered_post(&r, 0));
    CHECK(r.kind == CIRC_WINNING_POST && r.sector_bytes == 2 * KIB && r.api == CIRC_API_V1_0_0);
    CHECK(circ_registered_post(&r, 8));
    CHECK(r.kind == CIRC_WINDOW_POST && r.sector_bytes == 32 * GIB && r.api == CIRC_API_V1_0_0);
    CHECK(circ_registered_post(&r, 13));
    CHECK(r.kind == CIRC_WINDOW_POST && r.sector_bytes == 32 * GIB && r.api == CIRC_API_V1_2_0);
    CHECK_STR_EQ(r.name, "StackedDrgWindow32GiBV1_2");
    CHECK(!circ_registered_post(&r, 15));

    CHECK(circ_registered_update(&r, 4));
    CHECK(r.kind == CIRC_UPDATE && r.sector_bytes == 64 * GIB);
    CHECK(!circ_registered_update(&r, 5));
}

TEST(kind_names)
{
    circ_kind k;

    for (unsigned i = CIRC_POREP; i <= CIRC_UPDATE_POSEIDON; i++) {
        CHECK(circ_kind_parse(&k, circ_kind_name((circ_kind)i)));
        CHECK(k == (circ_kind)i);
    }
    CHECK(!circ_kind_parse(&k, "post"));
}
