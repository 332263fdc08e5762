/* graph.c - the SDR graph (sealing.md 2; storage-proofs-core drgraph.rs, crypto/feistel.rs,
 * storage-proofs-porep stacked/vanilla/graph.rs and cache.rs): 6 DRG "bucket sampling" parents
 * from a ChaCha8 stream per node, 8 expander parents from a 3-round Feistel permutation with
 * BLAKE2b-512 round functions, and the parent cache in the official file format.
 */
#include "seal/internal.h"

#include <stdio.h>
#include <string.h>

#include "common/bytes.h"
#include "hash/blake2.h"
#include "hash/sha256.h"

static void porep_domain_seed(uint8_t out[32], const char *tag, const uint8_t porep_id[32])
{
    sha256_ctx_t c;

    sha256_init(&c);
    sha256_update(&c, tag, strlen(tag));
    sha256_update(&c, porep_id, 32);
    sha256_final(&c, out);
}

void seal_graph_init(seal_graph_t *g, uint64_t nodes, const uint8_t porep_id[32], seal_api api)
{
    uint8_t seed[32];
    uint64_t next_pow4 = 4;
    uint32_t log4 = 1;

    CZ_CHECK(nodes >= 2 && nodes <= SEAL_MAX_NODES && (nodes & (nodes - 1)) == 0);
    memset(g, 0, sizeof(*g));
    g->nodes = nodes;
    g->api = api;
    porep_domain_seed(seed, "Filecoin_DRSample", porep_id);
    memcpy(g->drg_seed, seed, 28);
    porep_domain_seed(seed, "Filecoin_Feistel", porep_id);
    for (int k = 0; k < 4; k++) {
        g->feistel_keys[k] = cz_load_le64(seed + 8 * k);
    }
    /* feistel::precompute: the smallest even bit width 2h with 4^h >= 8 * nodes, h >= 1 */
    g->feistel_n = nodes * SEAL_EXP_DEGREE;
    while (next_pow4 < g->feistel_n) {
        next_pow4 *= 4;
        log4++;
    }
    g->half_bits = log4;
    g->right_mask = ((uint64_t)1 << log4) - 1;
    g->left_mask = g->right_mask << log4;
}

/* ---- DRG parents ------------------------------------------------------------------------- */

/* rand_chacha 0.3 ChaCha8Rng from a 32-byte seed: 64-bit block counter in words 12-13 from
 * 0, stream id 0 in words 14-15; words are consumed in order, next_u64 = low word first. */
typedef struct chacha8_rng {
    uint32_t st[16];
    uint32_t buf[16];
    unsigned pos; /* next word of buf; 16 = empty */
    uint64_t counter;
} chacha8_rng;

static void rng_init(chacha8_rng *r, const uint8_t seed[32])
{
    seal_chacha_setup(r->st, seed);
    r->st[12] = r->st[13] = r->st[14] = r->st[15] = 0;
    r->pos = 16;
    r->counter = 0;
}

static uint32_t rng_u32(chacha8_rng *r)
{
    if (r->pos == 16) {
        r->st[12] = (uint32_t)r->counter;
        r->st[13] = (uint32_t)(r->counter >> 32);
        seal_chacha_block(r->buf, r->st, 8);
        r->counter++;
        r->pos = 0;
    }
    return r->buf[r->pos++];
}

static uint64_t rng_u64(chacha8_rng *r)
{
    uint64_t lo = rng_u32(r);
    uint64_t hi = rng_u32(r);
    return lo | hi << 32;
}

void seal_graph_drg_parents(const seal_graph_t *g, uint64_t v, uint32_t out[SEAL_DRG_DEGREE])
{
    uint8_t seed[32];
    chacha8_rng rng;
    uint64_t meta, nb;
    unsigned first, pred;

    CZ_CHECK(v < g->nodes);
    if (v <= 1) {
        memset(out, 0, SEAL_DRG_DEGREE * sizeof(out[0]));
        return;
    }
    memcpy(seed, g->drg_seed, 28);
    cz_store_le32(seed + 28, (uint32_t)v);
    rng_init(&rng, seed);

    meta = v * (SEAL_DRG_DEGREE - 1);
    /* ceil(log2(meta)) computed as f64 in Rust; for meta >= 2 it equals bit_length(meta - 1) */
    nb = 0;
    for (uint64_t x = meta - 1; x; x >>= 1) {
        nb++;
    }
    /* V1_0: random parents in slots 0..4, predecessor in slot 5; later: predecessor first */
    first = g->api == SEAL_API_V1_0 ? 0 : 1;
    pred = g->api == SEAL_API_V1_0 ? 5 : 0;
    for (unsigned s = first; s < first + SEAL_DRG_DEGREE - 1; s++) {
        uint64_t bucket = rng_u64(&rng) % nb + 1;
        uint64_t largest = (uint64_t)1 << bucket < meta ? (uint64_t)1 << bucket : meta;
        uint64_t smallest = largest >> 1 > 2 ? largest >> 1 : 2;
        uint64_t dist = smallest + rng_u64(&rng) % (largest - smallest + 1);
        uint64_t p = (meta - dist) / (SEAL_DRG_DEGREE - 1);
        out[s] = (uint32_t)(p == v ? v - 1 : p);
    }
    out[pred] = (uint32_t)(v - 1);
}

/* ---- expander parents -------------------------------------------------------------------- */

/* F(right, key) = u64_BE(BLAKE2b-512(u64_BE(right) || u64_BE(key))[0..8]) & right_mask */
static uint64_t feistel_round(uint64_t right, uint64_t key, uint64_t mask)
{
    uint8_t msg[16], digest[64];

    cz_store_be64(msg, right);
    cz_store_be64(msg + 8, key);
    blake2b_short(digest, 64, msg, sizeof(msg));
    return cz_load_be64(digest) & mask;
}

static uint64_t feistel_encode(const seal_graph_t *g, uint64_t x)
{
    uint64_t l = (x & g->left_mask) >> g->half_bits;
    uint64_t r = x & g->right_mask;

    for (int k = 0; k < 3; k++) {
        uint64_t nl = r;
        r = l ^ feistel_round(r, g->feistel_keys[k], g->right_mask);
        l = nl;
    }
    return (l << g->half_bits) | r;
}

uint64_t seal_graph_feistel_permute(const seal_graph_t *g, uint64_t x)
{
    uint64_t y = feistel_encode(g, x);

    while (y >= g->feistel_n) { /* cycle walking back into [0, 8 * nodes) */
        y = feistel_encode(g, y);
    }
    return y;
}

void seal_graph_exp_parents(const seal_graph_t *g, uint64_t v, uint32_t out[SEAL_EXP_DEGREE])
{
    CZ_CHECK(v < g->nodes);
    for (uint32_t i = 0; i < SEAL_EXP_DEGREE; i++) {
        uint64_t t = seal_graph_feistel_permute(g, v * SEAL_EXP_DEGREE + i);
        if (g->api == SEAL_API_V1_0) {
            t = (uint32_t)t; /* V1_0 truncates to u32 before dividing */
        }
        out[i] = (uint32_t)(t / SEAL_EXP_DEGREE);
    }
}

void seal_graph_parents(const seal_graph_t *g, uint64_t v, uint32_t out[SEAL_PARENTS])
{
    seal_graph_drg_parents(g, v, out);
    seal_graph_exp_parents(g, v, out + SEAL_DRG_DEGREE);
}

/* ---- parent cache ------------------------------------------------------------------------ */

typedef struct cache_job {
    const seal_graph_t *g;
    uint32_t *rows;
} cache_job;

static void cache_task(void *ctx, size_t begin, size_t end, unsigned worker)
{
    cache_job *j = ctx;
    (void)worker;
    for (size_t v = begin; v < end; v++) {
        seal_graph_parents(j->g, v, j->rows + v * SEAL_PARENTS);
    }
}

cuzk_err seal_graph_cache_new(cz_buf *out, const seal_graph_t *g, cz_pool *pool, cz_diag *dg)
{
    cache_job job = {.g = g};
    cuzk_err err;

    memset(out, 0, sizeof(*out));
    err = cz_buf_new(out, (size_t)g->nodes * SEAL_PARENTS * sizeof(uint32_t), dg);
    if (err != CUZK_OK) {
        return err;
    }
    job.rows = out->ptr;
    cz_pool_for(pool, (size_t)g->nodes, 4096, cache_task, &job);
    return CUZK_OK;
}

void seal_graph_cache_name(char out[SEAL_CACHE_NAME_MAX], const seal_graph_t *g)
{
    /* cache.rs cache_path: SHA-256(H::name() || graph.identifier() || keys[0..4] u64 LE ||
     * u32_LE(cache_entries)), with H = PoseidonHasher and cache_entries = nodes. */
    char id[200];
    uint8_t b[8], h[32];
    char hex[65];
    sha256_ctx_t c;

    snprintf(id, sizeof(id),
             "stacked_graph::StackedGraph{expansion_degree: %d base_graph: "
             "drgraph::BucketGraph{size: %llu; degree: %d; hasher: poseidon_hasher} }",
             SEAL_EXP_DEGREE, (unsigned long long)g->nodes, SEAL_DRG_DEGREE);
    sha256_init(&c);
    sha256_update(&c, "poseidon_hasher", 15);
    sha256_update(&c, id, strlen(id));
    for (int k = 0; k < 4; k++) {
        cz_store_le64(b, g->feistel_keys[k]);
        sha256_update(&c, b, 8);
    }
    cz_store_le32(b, (uint32_t)g->nodes);
    sha256_update(&c, b, 4);
    sha256_final(&c, h);
    cz_hex_encode(hex, h, 32);
    snprintf(out, SEAL_CACHE_NAME_MAX, "v28-sdr-parent-%s.cache", hex);
}
