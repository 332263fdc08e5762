/* bench_hash.c - SHA-256 and Poseidon on one core.
 * SHA-256: ns per 64-byte compression for single-block calls and for long messages, with the
 * SHA-NI and the portable code; the 64-byte Merkle-node hash (two compressions, the second
 * with a precomputed schedule); a 1248-byte label message. Poseidon: us per hash for each
 * Filecoin arity through the optimized path, and the textbook permutation for comparison.
 * Compressions or hashes per second = 1e9 / (ns per op). Arguments filter the case names.
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "common/rand.h"
#include "field/fr.h"
#include "hash/poseidon.h"
#include "hash/sha256.h"

#define NBLOCKS_SHORT 4096  /* single-block calls per iteration */
#define NBLOCKS_LONG  16384 /* 1 MiB message per iteration */
#define NHASH         64    /* Poseidon hashes per iteration */

static uint8_t data[NBLOCKS_LONG * 64];

struct sha_ctx {
    void (*compress)(uint32_t state[8], const uint8_t *blocks, size_t nblocks);
    uint32_t state[8];
};

static void run_single_blocks(void *vctx)
{
    struct sha_ctx *c = vctx;
    for (size_t i = 0; i < NBLOCKS_SHORT; i++) {
        c->compress(c->state, data + 64 * i, 1);
    }
}

static void run_long(void *vctx)
{
    struct sha_ctx *c = vctx;
    c->compress(c->state, data, NBLOCKS_LONG);
}

static void run_sha256_64(void *vctx)
{
    uint8_t *out = vctx;
    for (size_t i = 0; i < NBLOCKS_SHORT; i++) {
        sha256_64(out, data + 64 * i);
        out[0] ^= data[64 * i]; /* keep the result live */
    }
}

static void run_sha256_64_many(void *vctx)
{
    uint8_t *out = vctx;
    sha256_64_many(out, data, NBLOCKS_SHORT);
}

static void run_label(void *vctx)
{
    uint8_t *out = vctx;
    for (size_t i = 0; i < 256; i++) {
        sha256_fr32(out, data + 1248 * i, 1248);
    }
}

struct pos_ctx {
    const poseidon_params_t *p;
    fr_t in[NHASH][POSEIDON_MAX_ARITY];
    fr_t out[NHASH];
};

static void run_poseidon(void *vctx)
{
    struct pos_ctx *c = vctx;
    for (size_t i = 0; i < NHASH; i++) {
        poseidon_hash(&c->out[i], c->in[i], c->p->arity, c->p);
    }
}

static void run_poseidon_ref(void *vctx)
{
    struct pos_ctx *c = vctx;
    for (size_t i = 0; i < NHASH; i++) {
        fr_t s[POSEIDON_MAX_WIDTH];
        s[0] = c->p->merkle_tag;
        memcpy(&s[1], c->in[i], c->p->arity * sizeof(fr_t));
        poseidon_permute_ref(s, c->p);
        c->out[i] = s[1];
    }
}

static struct pos_ctx pctx;

int main(int argc, char **argv)
{
    static const size_t arities[] = {2, 4, 8, 11, 16, 24, 36};
    cz_prng g;
    uint8_t out[32] = {0};
    char name[64];

    cz_prng_seed(&g, 1);
    cz_prng_bytes(&g, data, sizeof(data));
    printf("# sha256 impl: %s, fr impl: %s\n", sha256_impl_name(), fr_impl_name());
    bench_header();

    struct {
        const char *tag;
        void (*fn)(uint32_t *, const uint8_t *, size_t);
        bool ok;
    } impls[2] = {
        {"shani", sha256_compress_shani, sha256_has_shani()},
        {"portable", sha256_compress_portable, true},
    };
    for (int k = 0; k < 2; k++) {
        struct sha_ctx c = {.compress = impls[k].fn};
        if (!impls[k].ok) {
            continue;
        }
        memcpy(c.state, SHA256_IV, sizeof(c.state));
        snprintf(name, sizeof(name), "sha256_compress_%s_1blk", impls[k].tag);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, 64, 20, NBLOCKS_SHORT, BENCH_NS, run_single_blocks, &c);
        }
        snprintf(name, sizeof(name), "sha256_compress_%s_1MiB", impls[k].tag);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, sizeof(data), 20, NBLOCKS_LONG, BENCH_NS, run_long, &c);
        }
    }
    if (bench_selected(argc, argv, "sha256_64")) {
        bench_case("sha256_64", 64, 20, NBLOCKS_SHORT, BENCH_NS, run_sha256_64, out);
    }
    if (bench_selected(argc, argv, "sha256_64_many")) {
        bench_case("sha256_64_many", 64, 20, NBLOCKS_SHORT, BENCH_NS, run_sha256_64_many,
                   data + 64 * NBLOCKS_SHORT);
    }
    if (bench_selected(argc, argv, "sha256_fr32_1248B")) {
        bench_case("sha256_fr32_1248B", 1248, 20, 256, BENCH_NS, run_label, out);
    }

    for (size_t a = 0; a < sizeof(arities) / sizeof(arities[0]); a++) {
        pctx.p = poseidon_params(arities[a]);
        for (size_t i = 0; i < NHASH; i++) {
            for (size_t j = 0; j < arities[a]; j++) {
                uint64_t v[4];
                for (int k = 0; k < 4; k++) {
                    v[k] = cz_prng_u64(&g);
                }
                fr_from_u256_reduce(&pctx.in[i][j], v);
            }
        }
        snprintf(name, sizeof(name), "poseidon_hash_a%zu", arities[a]);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, arities[a], 10, NHASH, BENCH_US, run_poseidon, &pctx);
        }
        if (arities[a] == 2 || arities[a] == 8 || arities[a] == 11) {
            snprintf(name, sizeof(name), "poseidon_permute_ref_a%zu", arities[a]);
            if (bench_selected(argc, argv, name)) {
                bench_case(name, arities[a], 10, NHASH, BENCH_US, run_poseidon_ref, &pctx);
            }
        }
    }
    return 0;
}
