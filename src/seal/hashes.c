/* hashes.c - fr32 padding (fr32/src/reader.rs), TreeD roots and comm_d (filecoin-proofs
 * pieces.rs), replica_id (stacked/vanilla/params.rs generate_replica_id), node-level Poseidon,
 * column hashes, comm_r and the encoding of a node (sealing.md 1, 4.2-4.4).
 */
#include "seal/seal.h"

#include <string.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

/* ---- fr32 ---------------------------------------------------------------------------------- */

size_t seal_fr32_padded_len(size_t raw_len)
{
    uint64_t bits = (uint64_t)raw_len * 8;
    return (size_t)((bits + 253) / 254) * 32;
}

/* Eight bits of a little-endian bit stream starting at bit `pos`; bits past `len` bytes are 0. */
static uint8_t stream_byte(const uint8_t *in, size_t len, uint64_t pos)
{
    size_t b = (size_t)(pos / 8);
    unsigned sh = (unsigned)(pos % 8);
    unsigned lo = b < len ? in[b] : 0;
    unsigned hi = b + 1 < len ? in[b + 1] : 0;
    return (uint8_t)(((hi << 8) | lo) >> sh);
}

void seal_fr32_pad(uint8_t *out, const uint8_t *in, size_t len)
{
    size_t nodes = seal_fr32_padded_len(len) / 32;

    for (size_t k = 0; k < nodes; k++) {
        uint64_t start = (uint64_t)k * 254; /* first stream bit of node k */
        uint8_t *o = out + 32 * k;
        for (unsigned j = 0; j < 32; j++) {
            o[j] = stream_byte(in, len, start + 8 * j);
        }
        o[31] &= 0x3f; /* bits 254, 255 are padding */
    }
}

void seal_fr32_unpad(uint8_t *out, size_t raw_len, const uint8_t *in)
{
    for (size_t j = 0; j < raw_len; j++) {
        uint64_t p = (uint64_t)j * 8; /* raw stream bit */
        uint8_t v = 0;
        for (unsigned bit = 0; bit < 8;) {
            uint64_t q = p + bit;
            uint64_t node = q / 254;
            unsigned off = (unsigned)(q % 254);
            unsigned take = 254 - off < 8 - bit ? 254 - off : 8 - bit;
            /* `take` bits starting at bit `off` of the node */
            const uint8_t *nb = in + 32 * node;
            unsigned lo = nb[off / 8];
            unsigned hi = off / 8 + 1 < 32 ? nb[off / 8 + 1] : 0;
            unsigned w = ((hi << 8) | lo) >> (off % 8);
            v |= (uint8_t)((w & ((1u << take) - 1)) << bit);
            bit += take;
        }
        out[j] = v;
    }
}

/* ---- TreeD, comm_d, pieces ----------------------------------------------------------------- */

void seal_zero_comm_d(uint8_t out[32], uint32_t level)
{
    CZ_CHECK(level <= 40);
    memset(out, 0, 32);
    for (uint32_t i = 0; i < level; i++) {
        sha256_fr32_node(out, out, out);
    }
}

cuzk_err seal_comm_d(uint8_t out[32], const seal_node *data, uint64_t nodes, cz_pool *pool,
                     cz_diag *dg)
{
    seal_tree_shape shape;
    seal_tree *t = NULL;
    cuzk_err err;

    CZ_CHECK(nodes >= 2 && (nodes & (nodes - 1)) == 0);
    seal_tree_shape_d(&shape, nodes);
    CZ_TRY(err, seal_tree_new_dense(&t, &shape, data, pool, dg), done);
    seal_tree_root(t, out);
done:
    seal_tree_free(t);
    return err;
}

cuzk_err seal_piece_comm(uint8_t out[32], uint64_t *padded_size, const uint8_t *raw, size_t len,
                         cz_diag *dg)
{
    size_t plen = seal_fr32_padded_len(len);
    uint64_t size = 128;
    uint8_t *buf;
    cuzk_err err;

    while (size < plen) {
        size *= 2;
    }
    buf = cz_calloc(1, (size_t)size);
    if (!buf) {
        return cz_fail(dg, CUZK_E_NOMEM, "piece of %llu bytes", (unsigned long long)size);
    }
    seal_fr32_pad(buf, raw, len);
    err = seal_comm_d(out, (const seal_node *)buf, size / 32, NULL, dg);
    if (padded_size) {
        *padded_size = size;
    }
    cz_free(buf);
    return err;
}

static uint32_t level_of_size(uint64_t padded)
{
    uint32_t l = 0;
    while (((uint64_t)32 << l) < padded) {
        l++;
    }
    return l;
}

cuzk_err seal_comm_d_from_pieces(uint8_t out[32], const seal_piece *pieces, size_t n,
                                 uint64_t sector_size, cz_diag *dg)
{
    /* filecoin-proofs compute_comm_d: a stack of (commitment, size); before each piece the stack
     * is padded with zero pieces of the top's size until the top is not smaller than the
     * piece; equal-size neighbours merge; at the end zero pieces reduce the stack to one entry.
     * Note the reference's quirk, kept here: a single piece smaller than the sector gives the
     * piece's own commitment (no zero padding up to the sector size). */
    struct ent {
        uint8_t c[32];
        uint64_t size;
    } st[64];
    size_t top = 0;
    uint64_t total = 0;

    if (n == 0) {
        if (sector_size < 64 || (sector_size & (sector_size - 1)) != 0) {
            return cz_fail(dg, CUZK_E_INVAL, "sector size %llu", (unsigned long long)sector_size);
        }
        seal_zero_comm_d(out, level_of_size(sector_size));
        return CUZK_OK;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t s = pieces[i].padded_size;
        if (s < 128 || (s & (s - 1)) != 0) {
            return cz_fail(dg, CUZK_E_INVAL,
                           "piece %zu: padded size %llu is not a power of two "
                           ">= 128",
                           i, (unsigned long long)s);
        }
        total += s;
        if (total > sector_size) {
            return cz_fail(dg, CUZK_E_INVAL, "pieces exceed the sector size %llu",
                           (unsigned long long)sector_size);
        }
    }

#define PUSH_REDUCE(comm, sz)                                                                      \
    do {                                                                                           \
        memcpy(st[top].c, (comm), 32);                                                             \
        st[top].size = (sz);                                                                       \
        top++;                                                                                     \
        while (top >= 2 && st[top - 1].size == st[top - 2].size) {                                 \
            sha256_fr32_node(st[top - 2].c, st[top - 2].c, st[top - 1].c);                         \
            st[top - 2].size *= 2;                                                                 \
            top--;                                                                                 \
        }                                                                                          \
    } while (0)

    memcpy(st[0].c, pieces[0].comm, 32);
    st[0].size = pieces[0].padded_size;
    top = 1;
    for (size_t i = 1; i < n; i++) {
        while (st[top - 1].size < pieces[i].padded_size) {
            uint8_t z[32];
            uint64_t zs = st[top - 1].size;
            seal_zero_comm_d(z, level_of_size(zs));
            PUSH_REDUCE(z, zs);
        }
        PUSH_REDUCE(pieces[i].comm, pieces[i].padded_size);
    }
    while (top > 1) {
        uint8_t z[32];
        uint64_t zs = st[top - 1].size;
        seal_zero_comm_d(z, level_of_size(zs));
        PUSH_REDUCE(z, zs);
    }
#undef PUSH_REDUCE
    memcpy(out, st[0].c, 32);
    return CUZK_OK;
}

/* ---- replica_id, prover_id ----------------------------------------------------------------- */

void seal_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                     const uint8_t ticket[32], const uint8_t comm_d[32], const uint8_t porep_id[32])
{
    uint8_t msg[136];

    memcpy(msg, prover_id, 32);
    cz_store_be64(msg + 32, sector_id); /* big-endian here, little-endian in PoSt */
    memcpy(msg + 40, ticket, 32);
    memcpy(msg + 72, comm_d, 32);
    memcpy(msg + 104, porep_id, 32);
    sha256_fr32(out, msg, sizeof(msg));
}

void seal_prover_id(uint8_t out[32], uint64_t miner_id)
{
    size_t i = 0;

    memset(out, 0, 32);
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = miner_id ? (uint8_t)(b | 0x80) : b;
    } while (miner_id);
}

/* ---- Poseidon on nodes ------------------------------------------------------------------- */

bool seal_node_is_fr(const uint8_t node[32])
{
    fr_t x;
    return fr_from_bytes(&x, node) == CUZK_OK;
}

void seal_poseidon_nodes(uint8_t out[32], const seal_node *in, size_t n)
{
    fr_t x[POSEIDON_MAX_ARITY], h;

    CZ_CHECK(n >= 1 && n <= POSEIDON_MAX_ARITY);
    for (size_t i = 0; i < n; i++) {
        CZ_CHECK(fr_from_bytes(&x[i], in[i].b) == CUZK_OK);
    }
    poseidon_hash(&h, x, n, poseidon_params(n));
    fr_to_bytes(out, &h);
}

void seal_comm_r(uint8_t out[32], const uint8_t comm_c[32], const uint8_t comm_r_last[32])
{
    seal_node in[2];

    memcpy(in[0].b, comm_c, 32);
    memcpy(in[1].b, comm_r_last, 32);
    seal_poseidon_nodes(out, in, 2);
}

void seal_column_hash(uint8_t out[32], const seal_node *rows, uint32_t layers)
{
    seal_poseidon_nodes(out, rows, layers);
}

void seal_encode_node(uint8_t out[32], const uint8_t key[32], const uint8_t data[32])
{
    fr_t k, d;

    CZ_CHECK(fr_from_bytes(&k, key) == CUZK_OK);
    CZ_CHECK(fr_from_bytes(&d, data) == CUZK_OK);
    fr_add(&k, &k, &d);
    fr_to_bytes(out, &k);
}
