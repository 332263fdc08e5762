/* registry.c - sector sizes, registered proofs, PoRep partitioning, official parameter file
 * names, and the generic blank-circuit entry point.
 *
 * Parameter names (storage-proofs-core parameter_cache.rs CacheableParameters::cache_identifier):
 *   cache id = "<cache_prefix>-" + lower-case hex of SHA-256(identifier string)
 *   file     = "v28-<cache id>.params" | ".vk" | ".meta"
 * with, per circuit (cache_prefix from the compound's CacheableParameters impl, identifier from
 * its ParameterSetMetadata impl):
 *   PoRep   stacked-proof-of-replication-<Tree::display()>-sha256_hasher,
 *           layered_drgporep::PublicParams{ graph: <StackedGraph id>, challenges:
 *           LayerChallenges { layers: L, max_count: C }, tree: <Tree::display()> }
 *           (stacked/vanilla/params.rs; graph.rs; drgraph.rs BucketGraph identifier);
 *   PoSt    proof-of-spacetime-fallback-<Tree::display()>,
 *           FallbackPoSt::PublicParams{sector_size: B, challenge_count: C, sector_count: S}
 *           (fallback/vanilla.rs);
 *   Update  empty-sector-update[-poseidon]-<TreeR::display()>,
 *           empty_sector_update::PublicParams{ sector_nodes: N } (update/vanilla.rs),
 * where Tree::display() = "merkletree-poseidon_hasher-U-V-W" (merkle/tree.rs).
 */
#include "circuits/circuits.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "circuits/internal.h"
#include "hash/sha256.h"

/* The sector table is seal/'s (seal.h seal_size); the circuits see its supported head. */
const circ_sector_t *circ_sectors(size_t *count)
{
    size_t n, k = 0;
    const seal_size *s = seal_sizes(&n);

    while (k < n && s[k].supported) {
        k++;
    }
    *count = k;
    return s;
}

const circ_sector_t *circ_sector_lookup(uint64_t bytes)
{
    const seal_size *s = seal_size_lookup(bytes);

    return s && s->supported ? s : NULL;
}

const circ_sector_t *circ_sector_parse(const char *text)
{
    char *end;
    uint64_t n, mul;
    char unit[8];
    size_t len = 0;

    if (!text || !isdigit((unsigned char)text[0])) {
        return NULL;
    }
    n = strtoull(text, &end, 10);
    while (*end && len + 1 < sizeof(unit)) {
        unit[len++] = (char)tolower((unsigned char)*end++);
    }
    if (*end) {
        return NULL;
    }
    unit[len] = '\0';
    if (len == 0 || strcmp(unit, "b") == 0) {
        mul = 1;
    } else if (strcmp(unit, "kib") == 0 || strcmp(unit, "kb") == 0 || strcmp(unit, "k") == 0) {
        mul = KIB;
    } else if (strcmp(unit, "mib") == 0 || strcmp(unit, "mb") == 0 || strcmp(unit, "m") == 0) {
        mul = MIB;
    } else if (strcmp(unit, "gib") == 0 || strcmp(unit, "gb") == 0 || strcmp(unit, "g") == 0) {
        mul = GIB;
    } else {
        return NULL;
    }
    if (n == 0 || n > UINT64_MAX / mul) {
        return NULL;
    }
    return circ_sector_lookup(n * mul);
}

/* ------------------------------------------------------------------------------------------
 * Registered proofs
 * ---------------------------------------------------------------------------------------- */

#define NAMES5(pre, post)                                                                          \
    {                                                                                              \
        pre "2KiB" post, pre "8MiB" post, pre "512MiB" post, pre "32GiB" post, pre "64GiB" post    \
    }

static const char *const SEAL_NAMES[4][5] = {
    NAMES5("StackedDrg", "V1"),
    NAMES5("StackedDrg", "V1_1"),
    NAMES5("StackedDrg", "V1_1_Feat_SyntheticPoRep"),
    NAMES5("StackedDrg", "V1_2_Feat_NonInteractivePoRep"),
};
static const char *const POST_NAMES[3][5] = {
    NAMES5("StackedDrgWinning", "V1"),
    NAMES5("StackedDrgWindow", "V1"),
    NAMES5("StackedDrgWindow", "V1_2"),
};
static const char *const UPDATE_NAMES[5] = NAMES5("StackedDrg", "V1");

bool circ_registered_seal(circ_registered_t *out, uint32_t id)
{
    static const circ_api api[4] = {CIRC_API_V1_0_0, CIRC_API_V1_1_0, CIRC_API_V1_2_0,
                                    CIRC_API_V1_2_0};
    static const circ_porep_challenges mode[4] = {CIRC_POREP_INTERACTIVE, CIRC_POREP_INTERACTIVE,
                                                  CIRC_POREP_SYNTHETIC, CIRC_POREP_NON_INTERACTIVE};
    if (id >= 20) {
        return false;
    }
    out->kind = CIRC_POREP;
    out->sector_bytes = seal_published_size(id % SEAL_PUBLISHED_SIZES);
    out->api = api[id / 5];
    out->porep_challenges = mode[id / 5];
    out->name = SEAL_NAMES[id / 5][id % 5];
    return true;
}

bool circ_registered_post(circ_registered_t *out, uint32_t id)
{
    if (id >= 15) {
        return false;
    }
    out->kind = id < 5 ? CIRC_WINNING_POST : CIRC_WINDOW_POST;
    out->sector_bytes = seal_published_size(id % SEAL_PUBLISHED_SIZES);
    out->api = id < 10 ? CIRC_API_V1_0_0 : CIRC_API_V1_2_0;
    out->porep_challenges = CIRC_POREP_INTERACTIVE;
    out->name = POST_NAMES[id / 5][id % 5];
    return true;
}

bool circ_registered_update(circ_registered_t *out, uint32_t id)
{
    if (id >= 5) {
        return false;
    }
    out->kind = CIRC_UPDATE;
    out->sector_bytes = seal_published_size(id);
    out->api = CIRC_API_V1_1_0;
    out->porep_challenges = CIRC_POREP_INTERACTIVE;
    out->name = UPDATE_NAMES[id];
    return true;
}

bool circ_porep_partitioning(uint64_t sector_bytes, circ_porep_challenges mode,
                             uint32_t *partitions, uint32_t *challenges_per_partition)
{
    const circ_sector_t *s = circ_sector_lookup(sector_bytes);
    uint32_t p, min;

    if (!s) {
        return false;
    }
    if (mode == CIRC_POREP_NON_INTERACTIVE) {
        p = s->porep_ni_partitions;
        min = s->porep_ni_min_challenges;
    } else {
        p = s->porep_partitions;
        min = s->porep_min_challenges;
    }
    *partitions = p;
    *challenges_per_partition = (min + p - 1) / p;
    CZ_CHECK(*challenges_per_partition <= CIRC_MAX_CHALLENGES_PER_PARTITION);
    return true;
}

/* ------------------------------------------------------------------------------------------
 * Parameter file names
 * ---------------------------------------------------------------------------------------- */

/* The shape of the circuit's TreeR for (kind, size); false when unsupported. */
static bool kind_shape(circ_kind kind, uint64_t sector_bytes, uint32_t shape[3])
{
    if (kind == CIRC_UPDATE || kind == CIRC_UPDATE_POSEIDON) {
        circ_update_cfg_t u;
        if (sector_bytes % CIRC_NODE_BYTES ||
            !circ_update_cfg_init(&u, sector_bytes / CIRC_NODE_BYTES,
                                  kind == CIRC_UPDATE_POSEIDON)) {
            return false;
        }
        shape[0] = u.tree_r.base_arity;
        shape[1] = u.tree_r.sub_arity;
        shape[2] = u.tree_r.top_arity;
        return true;
    }
    const circ_sector_t *s = circ_sector_lookup(sector_bytes);
    if (!s || kind > CIRC_UPDATE_POSEIDON) {
        return false;
    }
    shape[0] = s->base_arity;
    shape[1] = s->sub_arity;
    shape[2] = s->top_arity;
    return true;
}

/* True when an snprintf into a buffer of cap bytes returning n fitted. */
static bool put(size_t cap, int n)
{
    return n >= 0 && (size_t)n < cap;
}

cuzk_err circ_param_identifier(char *out, size_t cap, circ_kind kind, uint64_t sector_bytes)
{
    uint32_t sh[3];
    int n = -1;

    if (!kind_shape(kind, sector_bytes, sh)) {
        return CUZK_E_INVAL;
    }
    switch (kind) {
    case CIRC_POREP: {
        circ_porep_cfg_t cfg;
        CZ_CHECK(circ_porep_cfg_for_sector(&cfg, sector_bytes));
        n = snprintf(out, cap,
                     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph"
                     "{expansion_degree: %d base_graph: drgraph::BucketGraph{size: %" PRIu64
                     "; degree: %d; hasher: poseidon_hasher} }, challenges: LayerChallenges "
                     "{ layers: %" PRIu32 ", max_count: %" PRIu32 " }, tree: "
                     "merkletree-poseidon_hasher-%" PRIu32 "-%" PRIu32 "-%" PRIu32 " }",
                     CIRC_EXP_PARENTS, cfg.nodes, CIRC_DRG_PARENTS, cfg.layers, cfg.challenges,
                     sh[0], sh[1], sh[2]);
        break;
    }
    case CIRC_WINNING_POST:
    case CIRC_WINDOW_POST: {
        circ_post_cfg_t cfg;
        if (kind == CIRC_WINNING_POST) {
            CZ_CHECK(circ_winning_post_cfg(&cfg, sector_bytes));
        } else {
            CZ_CHECK(circ_window_post_cfg(&cfg, sector_bytes, 0));
        }
        n = snprintf(out, cap,
                     "FallbackPoSt::PublicParams{sector_size: %" PRIu64
                     ", challenge_count: %" PRIu32 ", sector_count: %" PRIu32 "}",
                     sector_bytes, cfg.challenge_count, cfg.sector_count);
        break;
    }
    case CIRC_UPDATE:
    case CIRC_UPDATE_POSEIDON:
        n = snprintf(out, cap, "empty_sector_update::PublicParams{ sector_nodes: %" PRIu64 " }",
                     sector_bytes / CIRC_NODE_BYTES);
        break;
    }
    return put(cap, n) ? CUZK_OK : CUZK_E_INVAL;
}

cuzk_err circ_param_cache_id(char *out, size_t cap, circ_kind kind, uint64_t sector_bytes)
{
    static const char hex[] = "0123456789abcdef";
    char ident[512];
    uint8_t digest[SHA256_DIGEST_BYTES];
    uint32_t sh[3];
    int n = -1;
    cuzk_err err = circ_param_identifier(ident, sizeof(ident), kind, sector_bytes);

    if (err != CUZK_OK) {
        return err;
    }
    CZ_CHECK(kind_shape(kind, sector_bytes, sh));
    switch (kind) {
    case CIRC_POREP:
        n = snprintf(out, cap,
                     "stacked-proof-of-replication-merkletree-poseidon_hasher-%" PRIu32 "-%" PRIu32
                     "-%" PRIu32 "-sha256_hasher-",
                     sh[0], sh[1], sh[2]);
        break;
    case CIRC_WINNING_POST:
    case CIRC_WINDOW_POST:
        n = snprintf(out, cap,
                     "proof-of-spacetime-fallback-merkletree-poseidon_hasher-%" PRIu32 "-%" PRIu32
                     "-%" PRIu32 "-",
                     sh[0], sh[1], sh[2]);
        break;
    case CIRC_UPDATE:
    case CIRC_UPDATE_POSEIDON:
        n = snprintf(out, cap,
                     "empty-sector-update%s-merkletree-poseidon_hasher-%" PRIu32 "-%" PRIu32
                     "-%" PRIu32 "-",
                     kind == CIRC_UPDATE_POSEIDON ? "-poseidon" : "", sh[0], sh[1], sh[2]);
        break;
    }
    if (!put(cap, n) || (size_t)n + 2 * SHA256_DIGEST_BYTES >= cap) {
        return CUZK_E_INVAL;
    }
    sha256(digest, ident, strlen(ident));
    for (size_t i = 0; i < SHA256_DIGEST_BYTES; i++) {
        out[n + 2 * i] = hex[digest[i] >> 4];
        out[n + 2 * i + 1] = hex[digest[i] & 15];
    }
    out[n + 2 * SHA256_DIGEST_BYTES] = '\0';
    return CUZK_OK;
}

cuzk_err circ_param_file_name(char *out, size_t cap, circ_kind kind, uint64_t sector_bytes,
                              circ_param_ext ext)
{
    static const char *const exts[3] = {"params", "vk", "meta"};
    char id[CIRC_PARAM_NAME_MAX];
    cuzk_err err;

    if ((unsigned)ext > CIRC_PARAM_META) {
        return CUZK_E_INVAL;
    }
    err = circ_param_cache_id(id, sizeof(id), kind, sector_bytes);
    if (err != CUZK_OK) {
        return err;
    }
    return put(cap, snprintf(out, cap, "v%d-%s.%s", CIRC_PARAMS_VERSION, id, exts[ext]))
               ? CUZK_OK
               : CUZK_E_INVAL;
}

cuzk_err circ_param_meta_json(char *out, size_t cap, uint64_t sector_bytes)
{
    return put(cap, snprintf(out, cap, "{\"sector_size\":%" PRIu64 "}", sector_bytes))
               ? CUZK_OK
               : CUZK_E_INVAL;
}

/* ------------------------------------------------------------------------------------------
 * Generic entry points
 * ---------------------------------------------------------------------------------------- */

static const char *const KIND_NAMES[] = {"porep", "winning-post", "window-post", "snap",
                                         "snap-poseidon"};

const char *circ_kind_name(circ_kind kind)
{
    return (unsigned)kind < ARRAY_LEN(KIND_NAMES) ? KIND_NAMES[kind] : "?";
}

bool circ_kind_parse(circ_kind *out, const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(KIND_NAMES); i++) {
        if (strcmp(name, KIND_NAMES[i]) == 0) {
            *out = (circ_kind)i;
            return true;
        }
    }
    return false;
}

cuzk_err circ_synth_blank(cs_t *cs, circ_kind kind, uint64_t sector_bytes, uint32_t window_sectors,
                          cz_pool *pool, cz_diag *dg)
{
    switch (kind) {
    case CIRC_POREP: {
        circ_porep_cfg_t cfg;
        if (!circ_porep_cfg_for_sector(&cfg, sector_bytes)) {
            break;
        }
        circ_porep_synth_pool(cs, &cfg, NULL, pool, NULL);
        return CUZK_OK;
    }
    case CIRC_WINNING_POST:
    case CIRC_WINDOW_POST: {
        circ_post_cfg_t cfg;
        bool ok = kind == CIRC_WINNING_POST
                      ? circ_winning_post_cfg(&cfg, sector_bytes)
                      : circ_window_post_cfg(&cfg, sector_bytes, window_sectors);
        if (!ok) {
            break;
        }
        circ_post_synth(cs, &cfg, NULL, pool);
        return CUZK_OK;
    }
    case CIRC_UPDATE:
    case CIRC_UPDATE_POSEIDON: {
        circ_update_cfg_t cfg;
        if (sector_bytes % CIRC_NODE_BYTES ||
            !circ_update_cfg_init(&cfg, sector_bytes / CIRC_NODE_BYTES,
                                  kind == CIRC_UPDATE_POSEIDON)) {
            break;
        }
        circ_update_synth_pool(cs, &cfg, NULL, pool);
        return CUZK_OK;
    }
    }
    return cz_fail(dg, CUZK_E_INVAL, "no %s circuit for sector size %" PRIu64, circ_kind_name(kind),
                   sector_bytes);
}
