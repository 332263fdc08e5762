/* test_sector_table.c - the one sector table (seal.h seal_size) against the published
 * Filecoin constants, and every size-indexed value that cuzk derives from it: seal shapes,
 * PoRep and PoSt configurations, the circuits' sector table, SnapDeals TreeR shapes and the
 * sizes of the registered proofs.
 */
#include "harness/test.h"

#include "circuits/circuits.h"
#include "seal/seal.h"

/* Pinned from rust-fil-proofs filecoin-proofs/src/constants.rs: SECTOR_SIZE_*, the with_shape!
 * shapes (SectorShapeBase 8-0-0, Sub2 8-2-0, Sub8 8-8-0, Top2 8-8-2), LAYERS, POREP_PARTITIONS,
 * get_porep_interactive_minimum_challenges, get_porep_non_interactive_partitions,
 * get_porep_non_interactive_minimum_challenges, WINDOW_POST_SECTOR_COUNT,
 * SUPPORTED_SECTOR_SIZES and PUBLISHED_SECTOR_SIZES; and from storage-proofs-update
 * src/constants.rs (validate_tree_r_shape and the TreeR shapes of the 1 KiB and 8 KiB test
 * sizes, 8-4-0; no 1 GiB). 1 GiB carries the test values (2 layers, 1 partition of 2
 * challenges, 2 window PoSt sectors), as do the 1 and 8 KiB SnapDeals test sizes. */
static const struct want {
    uint64_t bytes;
    const char *name;
    uint32_t sub, top, layers, partitions, ni_partitions, min_challenges, ni_min_challenges,
        window_post_sectors;
    bool published, supported, update;
} WANT[] = {
    {2 * KIB, "2KiB", 0, 0, 2, 1, 13, 2, 26, 2, true, true, true},
    {4 * KIB, "4KiB", 2, 0, 2, 1, 13, 2, 26, 2, false, true, true},
    {16 * KIB, "16KiB", 8, 0, 2, 1, 13, 2, 26, 2, false, true, true},
    {32 * KIB, "32KiB", 8, 2, 2, 1, 13, 2, 26, 2, false, true, true},
    {8 * MIB, "8MiB", 0, 0, 2, 1, 13, 2, 26, 2, true, true, true},
    {16 * MIB, "16MiB", 2, 0, 2, 1, 13, 2, 26, 2, false, true, true},
    {512 * MIB, "512MiB", 0, 0, 2, 1, 13, 2, 26, 2, true, true, true},
    {1 * GIB, "1GiB", 2, 0, 2, 1, 13, 2, 26, 2, false, true, false},
    {32 * GIB, "32GiB", 8, 0, 11, 10, 126, 176, 2253, 2349, true, true, true},
    {64 * GIB, "64GiB", 8, 2, 11, 10, 126, 176, 2253, 2300, true, true, true},
    {1 * KIB, "1KiB", 4, 0, 2, 1, 13, 2, 26, 2, false, false, true},
    {8 * KIB, "8KiB", 4, 0, 2, 1, 13, 2, 26, 2, false, false, true},
};

/* PUBLISHED_SECTOR_SIZES, in registered-proof order (abi id % 5). */
static const uint64_t PUBLISHED[SEAL_PUBLISHED_SIZES] = {2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB,
                                                         64 * GIB};

static uint32_t ceil_div(uint32_t a, uint32_t b)
{
    return (a + b - 1) / b;
}

TEST(table_matches_published_constants)
{
    size_t n;
    const seal_size *s = seal_sizes(&n);

    CHECK_EQ_U64(n, ARRAY_LEN(WANT));
    for (size_t i = 0; i < n; i++) {
        const struct want *w = &WANT[i];
        CHECK_EQ_U64(s[i].bytes, w->bytes);
        CHECK_STR_EQ(s[i].name, w->name);
        CHECK_EQ_U64(s[i].base_arity, 8);
        CHECK_EQ_U64(s[i].sub_arity, w->sub);
        CHECK_EQ_U64(s[i].top_arity, w->top);
        CHECK_EQ_U64(s[i].porep_layers, w->layers);
        CHECK_EQ_U64(s[i].porep_partitions, w->partitions);
        CHECK_EQ_U64(s[i].porep_ni_partitions, w->ni_partitions);
        CHECK_EQ_U64(s[i].porep_min_challenges, w->min_challenges);
        CHECK_EQ_U64(s[i].porep_ni_min_challenges, w->ni_min_challenges);
        CHECK_EQ_U64(s[i].window_post_sectors, w->window_post_sectors);
        CHECK(s[i].published == w->published);
        CHECK(s[i].supported == w->supported);
        CHECK(s[i].update == w->update);
        CHECK(seal_size_lookup(w->bytes) == &s[i]);
    }
    CHECK(seal_size_lookup(3000) == NULL);
    CHECK(seal_size_lookup(128 * GIB) == NULL);
}

/* seal/: shapes, PoRep partitioning and PoSt counts. */
TEST(seal_configs_follow_the_table)
{
    static const uint8_t porep_id[32] = {0};

    for (size_t i = 0; i < ARRAY_LEN(WANT); i++) {
        const struct want *w = &WANT[i];
        seal_shape sh;
        seal_porep_config pc;
        seal_post_config wc;

        CHECK(seal_shape_for_size(&sh, w->bytes));
        CHECK_EQ_U64(sh.sector_size, w->bytes);
        CHECK_EQ_U64(sh.nodes, w->bytes / 32);
        CHECK_EQ_U64(sh.layers, w->layers);
        CHECK_EQ_U64(sh.base_arity, 8);
        CHECK_EQ_U64(sh.sub_arity, w->sub);
        CHECK_EQ_U64(sh.top_arity, w->top);
        CHECK_EQ_U64(sh.window_post_sectors, w->window_post_sectors);

        CHECK(seal_porep_config_custom(&pc, w->bytes, SEAL_API_V1_1, SEAL_POREP_INTERACTIVE,
                                       porep_id));
        CHECK_EQ_U64(pc.partitions, w->partitions);
        CHECK_EQ_U64(pc.challenges_per_partition, ceil_div(w->min_challenges, w->partitions));
        CHECK(
            seal_porep_config_custom(&pc, w->bytes, SEAL_API_V1_2, SEAL_POREP_SYNTHETIC, porep_id));
        CHECK_EQ_U64(pc.partitions, w->partitions);
        CHECK(seal_porep_config_custom(&pc, w->bytes, SEAL_API_V1_2, SEAL_POREP_NI, porep_id));
        CHECK_EQ_U64(pc.partitions, w->ni_partitions);
        CHECK_EQ_U64(pc.challenges_per_partition, ceil_div(w->ni_min_challenges, w->ni_partitions));
        /* MAX_CHALLENGES_PER_PARTITION; 2 for test sizes, 18 in production */
        CHECK_EQ_U64(pc.challenges_per_partition, w->layers == 11 ? 18 : 2);

        CHECK(seal_post_config_custom(&wc, w->bytes, SEAL_POST_WINDOW, SEAL_API_V1_2));
        CHECK_EQ_U64(wc.sector_count, w->window_post_sectors);
        CHECK_EQ_U64(wc.challenge_count, 10); /* WINDOW_POST_CHALLENGE_COUNT */
        CHECK(seal_post_config_custom(&wc, w->bytes, SEAL_POST_WINNING, SEAL_API_V1_0));
        CHECK_EQ_U64(wc.sector_count, 1);     /* WINNING_POST_SECTOR_COUNT */
        CHECK_EQ_U64(wc.challenge_count, 66); /* WINNING_POST_CHALLENGE_COUNT */
    }
    seal_shape sh;
    CHECK(!seal_shape_for_size(&sh, 2 * GIB));
}

/* circuits/: the supported sizes, their PoRep partitioning, PoSt and SnapDeals shapes. */
TEST(circuit_configs_follow_the_table)
{
    size_t n;
    const circ_sector_t *cs = circ_sectors(&n);

    CHECK_EQ_U64(n, 10); /* SUPPORTED_SECTOR_SIZES */
    for (size_t i = 0; i < ARRAY_LEN(WANT); i++) {
        const struct want *w = &WANT[i];
        const circ_sector_t *s = circ_sector_lookup(w->bytes);
        circ_update_cfg_t uc;

        CHECK(circ_update_cfg_init(&uc, w->bytes / 32, false) == w->update);
        if (w->update) {
            CHECK_EQ_U64(uc.tree_r.base_arity, 8);
            CHECK_EQ_U64(uc.tree_r.sub_arity, w->sub);
            CHECK_EQ_U64(uc.tree_r.top_arity, w->top);
        }
        if (!w->supported) {
            CHECK(s == NULL);
            CHECK(circ_sector_parse(w->name) == NULL);
            continue;
        }
        CHECK(i < n && s == &cs[i]);
        CHECK(s == seal_size_lookup(w->bytes));
        CHECK(circ_sector_parse(w->name) == s);
        CHECK(s->published == w->published);

        uint32_t p, c;
        CHECK(circ_porep_partitioning(w->bytes, CIRC_POREP_INTERACTIVE, &p, &c));
        CHECK_EQ_U64(p, w->partitions);
        CHECK_EQ_U64(c, ceil_div(w->min_challenges, w->partitions));
        CHECK(circ_porep_partitioning(w->bytes, CIRC_POREP_NON_INTERACTIVE, &p, &c));
        CHECK_EQ_U64(p, w->ni_partitions);
        CHECK_EQ_U64(c, ceil_div(w->ni_min_challenges, w->ni_partitions));

        circ_porep_cfg_t pc;
        CHECK(circ_porep_cfg_for_sector(&pc, w->bytes));
        CHECK_EQ_U64(pc.layers, w->layers);
        CHECK_EQ_U64(pc.challenges, ceil_div(w->min_challenges, w->partitions));
        CHECK_EQ_U64(pc.tree.sub_arity, w->sub);
        CHECK_EQ_U64(pc.tree.top_arity, w->top);

        circ_post_cfg_t wc;
        CHECK(circ_window_post_cfg(&wc, w->bytes, 0));
        CHECK_EQ_U64(wc.sector_count, w->window_post_sectors);
        CHECK_EQ_U64(wc.tree.sub_arity, w->sub);
        CHECK_EQ_U64(wc.tree.top_arity, w->top);
    }
}

/* The registered proofs' sizes: seal, PoSt and SnapDeals ids, in seal/ and circuits/. */
TEST(published_sizes_follow_the_table)
{
    for (uint32_t k = 0; k < SEAL_PUBLISHED_SIZES; k++) {
        CHECK_EQ_U64(seal_published_size(k), PUBLISHED[k]);
        CHECK_EQ_U64((uint64_t)seal_published_index(PUBLISHED[k]), k);
    }
    for (size_t i = 0; i < ARRAY_LEN(WANT); i++) {
        if (!WANT[i].published) {
            CHECK(seal_published_index(WANT[i].bytes) == -1);
        }
    }
    CHECK(seal_published_index(3000) == -1);

    for (uint32_t id = 0; id < SEAL_POREP_PROOF_COUNT; id++) {
        seal_porep_config pc;
        circ_registered_t r;
        CHECK(seal_porep_config_for_id(&pc, id));
        CHECK(circ_registered_seal(&r, id));
        CHECK_EQ_U64(pc.shape.sector_size, PUBLISHED[id % 5]);
        CHECK_EQ_U64(r.sector_bytes, PUBLISHED[id % 5]);
    }
    for (uint32_t id = 0; id < SEAL_POST_PROOF_COUNT; id++) {
        seal_post_config pc;
        circ_registered_t r;
        CHECK(seal_post_config_for_id(&pc, id));
        CHECK(circ_registered_post(&r, id));
        CHECK_EQ_U64(pc.shape.sector_size, PUBLISHED[id % 5]);
        CHECK_EQ_U64(r.sector_bytes, PUBLISHED[id % 5]);
    }
    for (uint32_t id = 0; id < SEAL_UPDATE_PROOF_COUNT; id++) {
        seal_update_config uc;
        circ_registered_t r;
        CHECK(seal_update_config_for_id(&uc, id));
        CHECK(circ_registered_update(&r, id));
        CHECK_EQ_U64(uc.shape.sector_size, PUBLISHED[id]);
        CHECK_EQ_U64(r.sector_bytes, PUBLISHED[id]);
    }
}
