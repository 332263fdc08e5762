/* label.c - SDR labeling (sealing.md 3; stacked/vanilla/create_label/single.rs): each label is
 * the trimmed SHA-256 of a 64-byte prefix (replica_id, layer, node) and 37 parent labels.
 */
#include "seal/seal.h"

#include <string.h>

#include "common/bytes.h"
#include "hash/sha256.h"

void seal_label_parents(seal_node out[SEAL_LABEL_PARENTS], uint32_t layer,
                        const seal_node drg[SEAL_DRG_DEGREE], const seal_node *exp)
{
    /* The parent list (6 entries in layer 1, 14 = drg ++ exp above) repeated cyclically. */
    unsigned cycle = layer == 1 ? SEAL_DRG_DEGREE : SEAL_PARENTS;

    CZ_CHECK(layer >= 1 && (layer == 1 || exp != NULL));
    for (unsigned i = 0; i < SEAL_LABEL_PARENTS; i++) {
        unsigned j = i % cycle;
        out[i] = j < SEAL_DRG_DEGREE ? drg[j] : exp[j - SEAL_DRG_DEGREE];
    }
}

/* The 64-byte prefix: replica_id || u32_BE(layer) || u64_BE(node) || 20 zero bytes. */
static void label_prefix(uint8_t out[64], const uint8_t replica_id[32], uint32_t layer,
                         uint64_t node)
{
    memcpy(out, replica_id, 32);
    cz_store_be32(out + 32, layer);
    cz_store_be64(out + 36, node);
    memset(out + 44, 0, 20);
}

/* SHA-256 of prefix || parents (37 x 32 = 1184 bytes): 1248 message bytes = 19.5 blocks, so
 * 20 blocks with the padding; hashed straight from one buffer. */
static void label_hash(uint8_t out[32], const uint8_t msg[1280])
{
    uint32_t st[8];

    memcpy(st, SHA256_IV, sizeof(st));
    sha256_compress(st, msg, 20);
    for (int i = 0; i < 8; i++) {
        cz_store_be32(out + 4 * i, st[i]);
    }
    sha256_fr32_trim(out);
}

/* Fills the padding of the 1248-byte message in a 1280-byte buffer. */
static void label_pad(uint8_t msg[1280])
{
    msg[1248] = 0x80;
    memset(msg + 1249, 0, 1280 - 1249 - 8);
    cz_store_be64(msg + 1272, (uint64_t)1248 * 8);
}

void seal_label_node(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                     const seal_node *parents)
{
    uint8_t msg[1280];

    label_prefix(msg, replica_id, layer, node);
    if (node == 0) {
        sha256_fr32(out, msg, 64); /* node 0 has no parents */
        return;
    }
    CZ_CHECK(parents != NULL);
    memcpy(msg + 64, parents, SEAL_LABEL_PARENTS * 32);
    label_pad(msg);
    label_hash(out, msg);
}

void seal_label_all(seal_node *labels, const seal_graph_t *g, const uint32_t *cache,
                    const uint8_t replica_id[32], uint32_t layers)
{
    uint64_t n = g->nodes;
    uint8_t msg[1280];

    label_pad(msg);
    for (uint32_t l = 1; l <= layers; l++) {
        seal_node *cur = labels + (size_t)(l - 1) * n;
        const seal_node *prev = l > 1 ? labels + (size_t)(l - 2) * n : NULL;
        unsigned cycle = l == 1 ? SEAL_DRG_DEGREE : SEAL_PARENTS;

        label_prefix(msg, replica_id, l, 0);
        sha256_fr32(cur[0].b, msg, 64);
        for (uint64_t v = 1; v < n; v++) {
            const uint32_t *p = cache + v * SEAL_PARENTS;
            uint8_t *dst = msg + 64;
            cz_store_be64(msg + 36, v);
            for (unsigned i = 0; i < SEAL_LABEL_PARENTS; i++, dst += 32) {
                unsigned j = i % cycle;
                memcpy(dst, j < SEAL_DRG_DEGREE ? cur[p[j]].b : prev[p[j]].b, 32);
            }
            label_hash(cur[v].b, msg);
        }
    }
}
