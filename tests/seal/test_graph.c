/* test_graph.c - the SDR graph and labeling against official known answers: the parent-cache
 * file names and SHA-256 digests of rust-fil-proofs' parent_cache.json (2 KiB and 8 MiB files
 * are regenerated in full, the larger ones by name only), the last-layer label vectors of
 * rust-fil-proofs' test_stacked_porep_generate_labels (64 and 128 nodes, 11 layers, V1_0,
 * V1_1, V1_2), and structural properties (DRG parents precede their node, the Feistel walk is a
 * permutation).
 */
#include "harness/test.h"

#include <openssl/sha.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "common/pool.h"
#include "seal/seal.h"
#include "vectors/seal/seal_vectors.h"

/* The registered proof id whose porep_id builds each official cache: V1 (id = size index)
 * and V1_1 (id + 5) of each published size. */
static const struct vector_lookup {
    uint64_t size;
    uint32_t id;
} cache_ids[] = {
    {2048, 0},      {2048, 5},        {8 << 20, 1},     {8 << 20, 6},     {512 << 20, 2},
    {512 << 20, 7}, {32ull << 30, 3}, {32ull << 30, 8}, {64ull << 30, 4}, {64ull << 30, 9},
};

static const struct seal_parent_cache_vector *find_cache_vector(const char *name)
{
    for (size_t i = 0; i < ARRAY_LEN(seal_parent_cache_vectors); i++) {
        char full[SEAL_CACHE_NAME_MAX];
        snprintf(full, sizeof(full), "%s.cache", seal_parent_cache_vectors[i].name);
        if (strcmp(full, name) == 0) {
            return &seal_parent_cache_vectors[i];
        }
    }
    return NULL;
}

TEST(parent_cache_names_match_official)
{
    size_t found = 0;

    for (size_t i = 0; i < ARRAY_LEN(cache_ids); i++) {
        seal_porep_config c;
        seal_graph_t g;
        char name[SEAL_CACHE_NAME_MAX];

        CHECK(seal_porep_config_for_id(&c, cache_ids[i].id));
        CHECK_EQ_U64(c.shape.sector_size, cache_ids[i].size);
        seal_graph_init(&g, c.shape.nodes, c.porep_id, c.api);
        seal_graph_cache_name(name, &g);
        const struct seal_parent_cache_vector *v = find_cache_vector(name);
        CHECK_MSG(v != NULL, "id %u: %s is not an official cache name", cache_ids[i].id, name);
        CHECK_EQ_U64(v->sector_size, cache_ids[i].size);
        found++;
    }
    CHECK_EQ_U64(found, ARRAY_LEN(seal_parent_cache_vectors));
}

static void check_cache_digest(uint32_t id)
{
    seal_porep_config c;
    seal_graph_t g;
    char name[SEAL_CACHE_NAME_MAX], hex[65];
    uint8_t digest[32];
    cz_buf buf;
    cz_pool *pool = NULL;

    CHECK_OK(cz_pool_new(&pool, 1, "test", NULL));
    CHECK(seal_porep_config_for_id(&c, id));
    seal_graph_init(&g, c.shape.nodes, c.porep_id, c.api);
    seal_graph_cache_name(name, &g);
    const struct seal_parent_cache_vector *v = find_cache_vector(name);
    CHECK(v != NULL);
    CHECK_OK(seal_graph_cache_new(&buf, &g, pool, NULL));
    CHECK_EQ_U64(buf.len, c.shape.nodes * 56);
    SHA256(buf.ptr, buf.len, digest); /* the file: u32 LE rows, as on this machine */
    cz_hex_encode(hex, digest, 32);
    CHECK_STR_EQ(hex, v->digest);
    cz_buf_free(&buf);
    cz_pool_free(pool);
}

TEST(parent_cache_2kib_matches_official_digest)
{
    check_cache_digest(0); /* V1_0: predecessor last, expander truncated to u32 */
    check_cache_digest(5); /* V1_1 */
}

TEST(parent_cache_8mib_matches_official_digest)
{
    check_cache_digest(1);
    check_cache_digest(6);
}

TEST(graph_structure)
{
    seal_porep_config c;
    seal_graph_t g;
    uint32_t p[SEAL_PARENTS];

    CHECK(seal_porep_config_for_id(&c, 5));
    seal_graph_init(&g, c.shape.nodes, c.porep_id, c.api);
    CHECK_EQ_U64(g.half_bits, 5); /* sealing.md 2.3: h = 5 for 2 KiB */
    /* node 0 and 1: DRG parents all 0 */
    for (uint64_t v = 0; v < 2; v++) {
        seal_graph_drg_parents(&g, v, p);
        for (int i = 0; i < 6; i++) {
            CHECK_EQ_U64(p[i], 0);
        }
    }
    for (uint64_t v = 2; v < g.nodes; v++) {
        seal_graph_parents(&g, v, p);
        CHECK_EQ_U64(p[0], v - 1); /* V1_1: predecessor first */
        for (int i = 0; i < 6; i++) {
            CHECK(p[i] < v);
        }
        for (int i = 6; i < 14; i++) {
            CHECK(p[i] < g.nodes);
        }
    }
    /* the cycle-walking Feistel map is a permutation of [0, 8 N) */
    uint8_t *seen = cz_calloc(1, g.feistel_n);
    CHECK(seen != NULL);
    for (uint64_t x = 0; x < g.feistel_n; x++) {
        uint64_t y = seal_graph_feistel_permute(&g, x);
        CHECK(y < g.feistel_n && !seen[y]);
        seen[y] = 1;
    }
    cz_free(seen);
    /* h per sealing.md 2.3 */
    static const struct {
        uint64_t nodes;
        uint32_t h;
    } hs[] = {{1 << 18, 11}, {1 << 24, 14}, {1u << 30, 17}, {1ull << 31, 17}};
    for (size_t i = 0; i < ARRAY_LEN(hs); i++) {
        seal_graph_init(&g, hs[i].nodes, c.porep_id, c.api);
        CHECK_EQ_U64(g.half_bits, hs[i].h);
    }
}

/* rust-fil-proofs test_stacked_porep_generate_labels: 11 layers over a 64- or 128-node graph. */
TEST(labels_match_rust_fil_proofs)
{
    for (size_t t = 0; t < ARRAY_LEN(seal_label_vectors); t++) {
        const struct seal_label_vector *v = &seal_label_vectors[t];
        uint64_t nodes = v->sector_size / 32;
        uint8_t porep_id[32], rid[32], want[32];
        seal_graph_t g;
        cz_buf cache;
        seal_node *labels = cz_malloc(SEAL_LABEL_KAT_LAYERS * nodes * sizeof(seal_node));

        CHECK(labels != NULL);
        memset(porep_id, v->porep_id_byte, 32);
        memset(rid, SEAL_LABEL_KAT_REPLICA_BYTE, 32);
        seal_graph_init(&g, nodes, porep_id, (seal_api)v->api_minor);
        CHECK_OK(seal_graph_cache_new(&cache, &g, NULL, NULL));
        seal_label_all(labels, &g, cache.ptr, rid, SEAL_LABEL_KAT_LAYERS);
        CHECK(cz_hex_decode(want, 32, v->last_label));
        CHECK_MSG(memcmp(labels[SEAL_LABEL_KAT_LAYERS * nodes - 1].b, want, 32) == 0,
                  "vector %zu (%llu bytes, api 1.%d)", t, (unsigned long long)v->sector_size,
                  v->api_minor);

        /* seal_label_node over the 37-entry lists agrees with the bulk labeler everywhere */
        for (uint32_t l = 1; l <= SEAL_LABEL_KAT_LAYERS; l++) {
            for (uint64_t x = 0; x < nodes; x++) {
                uint32_t p[SEAL_PARENTS];
                seal_node drg[6], exp[8], p37[37];
                uint8_t got[32];
                seal_graph_parents(&g, x, p);
                for (int i = 0; i < 6; i++) {
                    drg[i] = labels[(l - 1) * nodes + p[i]];
                }
                for (int i = 0; i < 8 && l > 1; i++) {
                    exp[i] = labels[(l - 2) * nodes + p[6 + i]];
                }
                seal_label_parents(p37, l, drg, exp);
                seal_label_node(got, rid, l, x, p37);
                CHECK_MEM_EQ(got, labels[(l - 1) * nodes + x].b, 32);
            }
        }
        cz_buf_free(&cache);
        cz_free(labels);
    }
}

/* The label message layout of sealing.md 3, hashed with OpenSSL. */
TEST(label_message_layout)
{
    uint8_t rid[32], msg[64 + 37 * 32], want[32], got[32];
    seal_node drg[6], exp[8], p37[37];
    cz_prng *g = test_prng();

    cz_prng_bytes(g, rid, 32);
    cz_prng_bytes(g, drg, sizeof(drg));
    cz_prng_bytes(g, exp, sizeof(exp));
    for (uint32_t layer = 1; layer <= 3; layer++) {
        seal_label_parents(p37, layer, drg, exp);
        memcpy(msg, rid, 32);
        cz_store_be32(msg + 32, layer);
        cz_store_be64(msg + 36, 0x0102030405ULL);
        memset(msg + 44, 0, 20);
        for (int i = 0; i < 37; i++) {
            const seal_node *src =
                layer == 1 ? &drg[i % 6] : (i % 14 < 6 ? &drg[i % 14] : &exp[i % 14 - 6]);
            memcpy(msg + 64 + 32 * i, src->b, 32);
            CHECK_MEM_EQ(p37[i].b, src->b, 32);
        }
        SHA256(msg, sizeof(msg), want);
        want[31] &= 0x3f;
        seal_label_node(got, rid, layer, 0x0102030405ULL, p37);
        CHECK_MEM_EQ(got, want, 32);
    }
    /* node 0 hashes the prefix only */
    memcpy(msg, rid, 32);
    cz_store_be32(msg + 32, 2);
    memset(msg + 36, 0, 28);
    SHA256(msg, 64, want);
    want[31] &= 0x3f;
    seal_label_node(got, rid, 2, 0, NULL);
    CHECK_MEM_EQ(got, want, 32);
}
