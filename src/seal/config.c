/* config.c - the sector table, sector shapes and the registered-proof tables (spec
 * vanilla-proofs.md 1.8, 3.3, 6; sealing.md 0). Sources: filecoin-proofs constants.rs (shapes,
 * layers, partitions, minimum challenges, WINDOW_POST_SECTOR_COUNT, supported and published
 * sizes), storage-proofs-update constants.rs (TreeR shapes of the test sizes, SnapDeals
 * parameters), rust-filecoin-proofs-api registry.rs (ids, porep_id).
 */
#include "seal/seal.h"

#include <string.h>

#include "common/bytes.h"

/* The sector table (seal.h). Columns: bytes, name, base / sub / top arity, layers, PoRep
 * partitions (interactive, non-interactive), PoRep minimum challenges (interactive,
 * non-interactive), WINDOW_POST_SECTOR_COUNT, published, supported, SnapDeals. The sizes below
 * 32 GiB take the test values of constants.rs (2 layers, 1 partition of 2 challenges, NI 13
 * partitions of 26 challenges in all, window PoSt over 2 sectors). */
static const seal_size SIZES[] = {
    {2 * KIB, "2KiB", 8, 0, 0, 2, 1, 13, 2, 26, 2, true, true, true},
    {4 * KIB, "4KiB", 8, 2, 0, 2, 1, 13, 2, 26, 2, false, true, true},
    {16 * KIB, "16KiB", 8, 8, 0, 2, 1, 13, 2, 26, 2, false, true, true},
    {32 * KIB, "32KiB", 8, 8, 2, 2, 1, 13, 2, 26, 2, false, true, true},
    {8 * MIB, "8MiB", 8, 0, 0, 2, 1, 13, 2, 26, 2, true, true, true},
    {16 * MIB, "16MiB", 8, 2, 0, 2, 1, 13, 2, 26, 2, false, true, true},
    {512 * MIB, "512MiB", 8, 0, 0, 2, 1, 13, 2, 26, 2, true, true, true},
    {1 * GIB, "1GiB", 8, 2, 0, 2, 1, 13, 2, 26, 2, false, true, false},
    {32 * GIB, "32GiB", 8, 8, 0, 11, 10, 126, 176, 2253, 2349, true, true, true},
    {64 * GIB, "64GiB", 8, 8, 2, 11, 10, 126, 176, 2253, 2300, true, true, true},
    /* SnapDeals-only test sizes: not in SUPPORTED_SECTOR_SIZES */
    {1 * KIB, "1KiB", 8, 4, 0, 2, 1, 13, 2, 26, 2, false, false, true},
    {8 * KIB, "8KiB", 8, 4, 0, 2, 1, 13, 2, 26, 2, false, false, true},
};

const seal_size *seal_sizes(size_t *count)
{
    *count = ARRAY_LEN(SIZES);
    return SIZES;
}

const seal_size *seal_size_lookup(uint64_t bytes)
{
    for (size_t i = 0; i < ARRAY_LEN(SIZES); i++) {
        if (SIZES[i].bytes == bytes) {
            return &SIZES[i];
        }
    }
    return NULL;
}

uint64_t seal_published_size(uint32_t index)
{
    uint32_t k = 0;

    CZ_CHECK(index < SEAL_PUBLISHED_SIZES);
    for (size_t i = 0; i < ARRAY_LEN(SIZES); i++) {
        if (SIZES[i].published && k++ == index) {
            return SIZES[i].bytes;
        }
    }
    CZ_CHECK(k == SEAL_PUBLISHED_SIZES); /* fails: the table lists fewer published sizes */
    return 0;
}

int seal_published_index(uint64_t bytes)
{
    int k = 0;

    for (size_t i = 0; i < ARRAY_LEN(SIZES); i++) {
        if (SIZES[i].bytes == bytes) {
            return SIZES[i].published ? k : -1;
        }
        k += SIZES[i].published;
    }
    return -1;
}

static uint32_t log2_u64(uint64_t x)
{
    uint32_t r = 0;
    while (((uint64_t)1 << r) < x) {
        r++;
    }
    return r;
}

bool seal_shape_for_size(seal_shape *out, uint64_t sector_size)
{
    const seal_size *s = seal_size_lookup(sector_size);

    if (!s) {
        return false;
    }
    memset(out, 0, sizeof(*out));
    out->sector_size = sector_size;
    out->nodes = sector_size / SEAL_NODE_BYTES;
    out->log2_nodes = log2_u64(out->nodes);
    out->layers = s->porep_layers;
    out->base_arity = s->base_arity;
    out->sub_arity = s->sub_arity;
    out->top_arity = s->top_arity;
    out->base_trees = 1;
    if (out->sub_arity) {
        out->base_trees *= out->sub_arity;
    }
    if (out->top_arity) {
        out->base_trees *= out->top_arity;
    }
    uint64_t base_leaves = out->nodes / out->base_trees;
    uint32_t lb = log2_u64(base_leaves);
    CZ_CHECK(lb % 3 == 0 && ((uint64_t)1 << lb) == base_leaves);
    out->base_levels = lb / 3;
    out->window_post_sectors = s->window_post_sectors;
    return true;
}

void seal_porep_id(uint8_t out[32], uint64_t registered_proof)
{
    memset(out, 0, 32);
    cz_store_le64(out, registered_proof);
    /* bytes 8..16: the nonce, 0 for every registered proof */
}

/* Registered seal proof names (vanilla-proofs.md 6.1), index = abi id. */
static const char *const porep_names[SEAL_POREP_PROOF_COUNT] = {
    "StackedDrg2KiBV1",
    "StackedDrg8MiBV1",
    "StackedDrg512MiBV1",
    "StackedDrg32GiBV1",
    "StackedDrg64GiBV1",
    "StackedDrg2KiBV1_1",
    "StackedDrg8MiBV1_1",
    "StackedDrg512MiBV1_1",
    "StackedDrg32GiBV1_1",
    "StackedDrg64GiBV1_1",
    "StackedDrg2KiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg8MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg32GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg64GiBV1_1_Feat_SyntheticPoRep",
    "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg8MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg512MiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg32GiBV1_2_Feat_NonInteractivePoRep",
    "StackedDrg64GiBV1_2_Feat_NonInteractivePoRep",
};

/* VanillaSealProof variant keys: one per sector size, independent of the API version. */
static const char *const c1_variants[5] = {
    "StackedDrg2KiBV1",  "StackedDrg8MiBV1",  "StackedDrg512MiBV1",
    "StackedDrg32GiBV1", "StackedDrg64GiBV1",
};

static void porep_counts(seal_porep_config *c)
{
    const seal_size *s = seal_size_lookup(c->shape.sector_size);
    uint32_t min_challenges;

    CZ_CHECK(s != NULL);
    if (c->kind == SEAL_POREP_NI) {
        c->partitions = s->porep_ni_partitions;
        min_challenges = s->porep_ni_min_challenges;
    } else {
        c->partitions = s->porep_partitions;
        min_challenges = s->porep_min_challenges;
    }
    c->challenges_per_partition = (min_challenges + c->partitions - 1) / c->partitions;
    CZ_CHECK(c->challenges_per_partition <= 18); /* MAX_CHALLENGES_PER_PARTITION */
}

bool seal_porep_config_custom(seal_porep_config *out, uint64_t sector_size, seal_api api,
                              seal_porep_kind kind, const uint8_t porep_id[32])
{
    memset(out, 0, sizeof(*out));
    if (!seal_shape_for_size(&out->shape, sector_size)) {
        return false;
    }
    out->registered_proof = SEAL_NOT_REGISTERED;
    out->name = "custom";
    out->c1_variant = NULL;
    out->api = api;
    out->kind = kind;
    memcpy(out->porep_id, porep_id, 32);
    porep_counts(out);
    return true;
}

bool seal_porep_config_for_id(seal_porep_config *out, uint32_t id)
{
    static const seal_api apis[4] = {SEAL_API_V1_0, SEAL_API_V1_1, SEAL_API_V1_2, SEAL_API_V1_2};
    static const seal_porep_kind kinds[4] = {SEAL_POREP_INTERACTIVE, SEAL_POREP_INTERACTIVE,
                                             SEAL_POREP_SYNTHETIC, SEAL_POREP_NI};
    uint8_t porep_id[32];

    if (id >= SEAL_POREP_PROOF_COUNT) {
        return false;
    }
    seal_porep_id(porep_id, id);
    if (!seal_porep_config_custom(out, seal_published_size(id % SEAL_PUBLISHED_SIZES), apis[id / 5],
                                  kinds[id / 5], porep_id)) {
        return false;
    }
    out->registered_proof = id;
    out->name = porep_names[id];
    out->c1_variant = c1_variants[id % 5];
    return true;
}

bool seal_porep_config_for_name(seal_porep_config *out, const char *name)
{
    for (uint32_t id = 0; id < SEAL_POREP_PROOF_COUNT; id++) {
        if (strcmp(name, porep_names[id]) == 0) {
            return seal_porep_config_for_id(out, id);
        }
    }
    return false;
}

/* ---- PoSt ---------------------------------------------------------------------------------- */

bool seal_post_config_custom(seal_post_config *out, uint64_t sector_size, seal_post_type type,
                             seal_api api)
{
    memset(out, 0, sizeof(*out));
    if (!seal_shape_for_size(&out->shape, sector_size)) {
        return false;
    }
    out->registered_proof = SEAL_NOT_REGISTERED;
    out->name = "custom";
    out->type = type;
    out->api = api;
    if (type == SEAL_POST_WINNING) {
        out->sector_count = 1;     /* WINNING_POST_SECTOR_COUNT */
        out->challenge_count = 66; /* WINNING_POST_CHALLENGE_COUNT */
    } else {
        out->sector_count = out->shape.window_post_sectors;
        out->challenge_count = 10; /* WINDOW_POST_CHALLENGE_COUNT */
    }
    return true;
}

/* Go abi RegisteredPoStProof names, index = id: 0..4 winning V1, 5..9 window V1, 10..14 window
 * V1_1 (Rust calls these V1_2, api version 1.2.0). */
static const char *const post_names[SEAL_POST_PROOF_COUNT] = {
    "StackedDrgWinning2KiBV1",    "StackedDrgWinning8MiBV1",   "StackedDrgWinning512MiBV1",
    "StackedDrgWinning32GiBV1",   "StackedDrgWinning64GiBV1",  "StackedDrgWindow2KiBV1",
    "StackedDrgWindow8MiBV1",     "StackedDrgWindow512MiBV1",  "StackedDrgWindow32GiBV1",
    "StackedDrgWindow64GiBV1",    "StackedDrgWindow2KiBV1_1",  "StackedDrgWindow8MiBV1_1",
    "StackedDrgWindow512MiBV1_1", "StackedDrgWindow32GiBV1_1", "StackedDrgWindow64GiBV1_1",
};

bool seal_post_config_for_id(seal_post_config *out, uint32_t id)
{
    if (id >= SEAL_POST_PROOF_COUNT) {
        return false;
    }
    if (!seal_post_config_custom(out, seal_published_size(id % SEAL_PUBLISHED_SIZES),
                                 id < 5 ? SEAL_POST_WINNING : SEAL_POST_WINDOW,
                                 id < 10 ? SEAL_API_V1_0 : SEAL_API_V1_2)) {
        return false;
    }
    out->registered_proof = id;
    out->name = post_names[id];
    return true;
}

/* ---- SnapDeals ----------------------------------------------------------------------------- */

static const char *const update_names[SEAL_UPDATE_PROOF_COUNT] = {
    "StackedDrg2KiBV1",  "StackedDrg8MiBV1",  "StackedDrg512MiBV1",
    "StackedDrg32GiBV1", "StackedDrg64GiBV1",
};

bool seal_update_config_for_size(seal_update_config *out, uint64_t sector_size)
{
    uint64_t n;

    memset(out, 0, sizeof(*out));
    if (!seal_shape_for_size(&out->shape, sector_size)) {
        return false;
    }
    n = out->shape.nodes;
    out->registered_proof = SEAL_NOT_REGISTERED;
    out->name = "custom";
    /* storage-proofs-update constants.rs: partition_count, challenge_count, apex_leaf_count,
     * hs (index 3 is the production h). */
    out->partitions = n <= 256 ? 1 : n <= 1024 ? 2 : n <= ((uint64_t)1 << 19) ? 4 : 16;
    out->challenges = n <= ((uint64_t)1 << 19) ? 10 : 86;
    out->apex_leafs = n <= 256 ? 8 : 128;
    out->h = n <= 1024 ? 1 : 10;
    out->h_select = n <= 1024 ? 1 : 1u << 3; /* hs = [1;6] picks index 0; [7..12] index 3 */
    out->partition_bits = log2_u64(out->partitions);
    out->apex_bits = log2_u64(out->apex_leafs);
    return true;
}

bool seal_update_config_for_id(seal_update_config *out, uint32_t id)
{
    if (id >= SEAL_UPDATE_PROOF_COUNT ||
        !seal_update_config_for_size(out, seal_published_size(id))) {
        return false;
    }
    out->registered_proof = id;
    out->name = update_names[id];
    return true;
}

bool seal_default_ids_for_size(seal_default_ids *out, uint64_t sector_size)
{
    int i = seal_published_index(sector_size);

    if (i < 0) {
        return false;
    }
    /* the id tables above: seal V1_1 from 5, winning V1 from 0, window V1_1 from 10, update
     * V1 from 0; each in published-size order */
    out->porep = SEAL_PUBLISHED_SIZES + (uint32_t)i;
    out->winning_post = (uint32_t)i;
    out->window_post = 2 * SEAL_PUBLISHED_SIZES + (uint32_t)i;
    out->update = (uint32_t)i;
    return true;
}
