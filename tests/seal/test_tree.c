/* test_tree.c - Merkle trees: dense roots against a naive recursive model (OpenSSL SHA-256 for
 * TreeD), sparse trees against dense trees over the same leaves (every node and every proof),
 * proof verification, and rejection of tampered proofs for every sector shape.
 */
#include "harness/test.h"

#include <openssl/sha.h>

#include "common/alloc.h"
#include "seal/seal.h"

/* Naive root: level by level over a copy, hashing groups of arity[j]. */
static void naive_root(uint8_t out[32], const seal_tree_shape *s, const seal_node *leaves)
{
    uint64_t n = s->leaves;
    seal_node *cur = cz_malloc(n * sizeof(seal_node));

    CHECK(cur != NULL);
    memcpy(cur, leaves, n * sizeof(seal_node));
    for (uint32_t j = 0; j < s->nlevels; j++) {
        unsigned a = s->arity[j];
        for (uint64_t i = 0; i < n / a; i++) {
            if (s->hash == SEAL_HASH_SHA256) {
                uint8_t lr[64];
                memcpy(lr, cur[2 * i].b, 32);
                memcpy(lr + 32, cur[2 * i + 1].b, 32);
                SHA256(lr, 64, cur[i].b);
                cur[i].b[31] &= 0x3f;
            } else {
                seal_node tmp;
                seal_poseidon_nodes(tmp.b, cur + i * a, a);
                cur[i] = tmp;
            }
        }
        n /= a;
    }
    CHECK_EQ_U64(n, 1);
    memcpy(out, cur[0].b, 32);
    cz_free(cur);
}

static void random_fr_node(cz_prng *g, seal_node *n)
{
    cz_prng_bytes(g, n->b, 32);
    n->b[31] &= 0x3f; /* < 2^254 < r */
}

static void shapes_for_tests(seal_tree_shape *out, size_t *n)
{
    static const uint64_t sizes[] = {1024, 2048, 4096, 8192, 16384, 32768};
    size_t k = 0;

    for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
        seal_shape sh;
        CHECK(seal_shape_for_size(&sh, sizes[i]));
        seal_tree_shape_r(&out[k++], &sh);
    }
    seal_tree_shape_d(&out[k++], 64);
    seal_tree_shape_d(&out[k++], 1024);
    *n = k;
}

TEST(dense_tree_matches_naive_root)
{
    seal_tree_shape shapes[16];
    size_t ns;
    cz_prng *g = test_prng();

    shapes_for_tests(shapes, &ns);
    for (size_t s = 0; s < ns; s++) {
        const seal_tree_shape *sh = &shapes[s];
        seal_node *leaves = cz_malloc(sh->leaves * sizeof(seal_node));
        seal_tree *t;
        uint8_t want[32], got[32];

        CHECK(leaves != NULL);
        for (uint64_t i = 0; i < sh->leaves; i++) {
            random_fr_node(g, &leaves[i]);
        }
        CHECK_OK(seal_tree_new_dense(&t, sh, leaves, NULL, NULL));
        naive_root(want, sh, leaves);
        seal_tree_root(t, got);
        CHECK_MEM_EQ(got, want, 32);
        /* every proof verifies, encodes its leaf index and has the shape's layout */
        for (uint64_t i = 0; i < sh->leaves; i++) {
            seal_merkle_proof p;
            seal_tree_prove(t, i, &p);
            CHECK(seal_merkle_verify(&p, sh->hash));
            CHECK(seal_merkle_matches_shape(&p, sh));
            CHECK_EQ_U64(seal_merkle_leaf_index(&p), i);
            CHECK_MEM_EQ(p.leaf.b, leaves[i].b, 32);
            CHECK_MEM_EQ(p.root.b, want, 32);
        }
        seal_tree_free(t);
        cz_free(leaves);
    }
}

TEST(sparse_tree_equals_dense_tree)
{
    seal_tree_shape shapes[16];
    size_t ns;
    cz_prng *g = test_prng();

    shapes_for_tests(shapes, &ns);
    for (size_t s = 0; s < ns; s++) {
        const seal_tree_shape *sh = &shapes[s];
        for (int rep = 0; rep < 3; rep++) {
            seal_node *leaves = cz_malloc(sh->leaves * sizeof(seal_node));
            uint64_t *idx = cz_malloc(sh->leaves * sizeof(uint64_t));
            seal_node *vals = cz_malloc(sh->leaves * sizeof(seal_node));
            seal_node dflt;
            size_t n = 0;
            seal_tree *td, *ts;

            CHECK(leaves && idx && vals);
            random_fr_node(g, &dflt);
            if (rep == 0) {
                memset(dflt.b, 0, 32);
            }
            /* rep 2 leaves the set empty: the tree of defaults */
            for (uint64_t i = 0; i < sh->leaves; i++) {
                leaves[i] = dflt;
                if (rep < 2 && cz_prng_below(g, 7) == 0) {
                    idx[n] = i;
                    random_fr_node(g, &vals[n]);
                    leaves[i] = vals[n++];
                }
            }
            CHECK_OK(seal_tree_new_dense(&td, sh, leaves, NULL, NULL));
            CHECK_OK(seal_tree_new_sparse(&ts, sh, idx, vals, n, dflt.b, NULL));
            CHECK(seal_tree_is_sparse(ts) && !seal_tree_is_sparse(td));
            uint64_t len = sh->leaves;
            for (uint32_t j = 0; j <= sh->nlevels; j++) {
                for (uint64_t i = 0; i < len; i++) {
                    uint8_t a[32], b[32];
                    seal_tree_node(td, j, i, a);
                    seal_tree_node(ts, j, i, b);
                    CHECK_MEM_EQ(a, b, 32);
                }
                if (j < sh->nlevels) {
                    len /= sh->arity[j];
                }
            }
            for (uint64_t i = 0; i < sh->leaves; i++) {
                seal_merkle_proof a, b;
                seal_tree_prove(td, i, &a);
                seal_tree_prove(ts, i, &b);
                CHECK(memcmp(&a, &b, sizeof(a)) == 0);
            }
            seal_tree_free(td);
            seal_tree_free(ts);
            cz_free(leaves);
            cz_free(idx);
            cz_free(vals);
        }
    }
}

TEST(tampered_proofs_fail)
{
    seal_tree_shape shapes[16];
    size_t ns;
    cz_prng *g = test_prng();

    shapes_for_tests(shapes, &ns);
    for (size_t s = 0; s < ns; s++) {
        const seal_tree_shape *sh = &shapes[s];
        seal_node *leaves = cz_malloc(sh->leaves * sizeof(seal_node));
        seal_tree *t;
        seal_merkle_proof p, q;
        uint64_t leaf = cz_prng_below(g, sh->leaves);

        CHECK(leaves != NULL);
        for (uint64_t i = 0; i < sh->leaves; i++) {
            random_fr_node(g, &leaves[i]);
        }
        CHECK_OK(seal_tree_new_dense(&t, sh, leaves, NULL, NULL));
        seal_tree_prove(t, leaf, &p);
        CHECK(seal_merkle_verify(&p, sh->hash));
        /* wrong hash family */
        CHECK(!seal_merkle_verify(&p, sh->hash == SEAL_HASH_SHA256 ? SEAL_HASH_POSEIDON
                                                                   : SEAL_HASH_SHA256));
        /* every sibling, the leaf, the root: flip one bit */
        for (uint32_t i = 0; i < seal_merkle_nsib(&p); i++) {
            q = p;
            q.sib[i].b[0] ^= 1;
            CHECK(!seal_merkle_verify(&q, sh->hash));
        }
        q = p;
        q.leaf.b[5] ^= 0x10;
        CHECK(!seal_merkle_verify(&q, sh->hash));
        q = p;
        q.root.b[0] ^= 1;
        CHECK(!seal_merkle_verify(&q, sh->hash));
        /* a moved index (unless the swapped siblings happen to be equal, which random
         * leaves rule out) */
        for (uint32_t j = 0; j < p.nelems; j++) {
            q = p;
            q.index[j] = (q.index[j] + 1) % q.arity[j];
            CHECK(!seal_merkle_verify(&q, sh->hash));
            q.index[j] = q.arity[j]; /* out of range */
            CHECK(!seal_merkle_verify(&q, sh->hash));
        }
        /* malformed counts */
        q = p;
        q.nelems = 0;
        CHECK(!seal_merkle_verify(&q, sh->hash));
        q = p;
        q.nbase = p.nbase + 1;
        CHECK(!seal_merkle_verify(&q, sh->hash));
        q = p;
        q.kind = (seal_proof_kind)((p.kind + 1) % 3);
        CHECK(!seal_merkle_verify(&q, sh->hash));
        CHECK(!seal_merkle_matches_shape(&q, sh));
        /* a Poseidon input >= r must be rejected, not abort */
        if (sh->hash == SEAL_HASH_POSEIDON) {
            q = p;
            memset(q.sib[0].b, 0xff, 32);
            CHECK(!seal_merkle_verify(&q, sh->hash));
            q = p;
            memset(q.leaf.b, 0xff, 32);
            CHECK(!seal_merkle_verify(&q, sh->hash));
        }
        seal_tree_free(t);
        cz_free(leaves);
    }
}

TEST(tree_shapes_per_sector_size)
{
    /* vanilla-proofs.md 1.4: variant and path lengths per sector size */
    static const struct {
        uint64_t size;
        seal_proof_kind kind;
        uint32_t nbase, nlevels, tree_d;
    } want[] = {
        {2048, SEAL_PROOF_SINGLE, 2, 2, 6},       {8 << 20, SEAL_PROOF_SINGLE, 6, 6, 18},
        {512 << 20, SEAL_PROOF_SINGLE, 8, 8, 24}, {32ull << 30, SEAL_PROOF_SUB, 9, 10, 30},
        {64ull << 30, SEAL_PROOF_TOP, 9, 11, 31}, {4096, SEAL_PROOF_SUB, 2, 3, 7},
        {16384, SEAL_PROOF_SUB, 2, 3, 9},         {32768, SEAL_PROOF_TOP, 2, 4, 10},
    };
    for (size_t i = 0; i < ARRAY_LEN(want); i++) {
        seal_shape sh;
        seal_tree_shape r, d;
        CHECK(seal_shape_for_size(&sh, want[i].size));
        seal_tree_shape_r(&r, &sh);
        seal_tree_shape_d(&d, sh.nodes);
        CHECK_EQ_U64(r.kind, want[i].kind);
        CHECK_EQ_U64(r.nbase, want[i].nbase);
        CHECK_EQ_U64(r.nlevels, want[i].nlevels);
        CHECK_EQ_U64(d.nlevels, want[i].tree_d);
        CHECK_EQ_U64(d.kind, SEAL_PROOF_SINGLE);
    }
}

TEST(dense_tree_rejects_non_field_leaves)
{
    seal_shape sh;
    seal_tree_shape r;
    seal_node leaves[64] = {{{0}}};
    seal_tree *t = NULL;

    CHECK(seal_shape_for_size(&sh, 2048));
    seal_tree_shape_r(&r, &sh);
    memset(leaves[9].b, 0xff, 32);
    CHECK_ERR(seal_tree_new_dense(&t, &r, leaves, NULL, NULL), CUZK_E_INVAL);
    CHECK(t == NULL);
}
