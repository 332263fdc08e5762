/* test_sector.c - sealing whole sectors: a dense 2 KiB sector checked node by node (comm_d
 * against a naive OpenSSL TreeD, labels against their parents, replica = label + data, column
 * hashes, comm_r), the compound tree shapes of the 4, 16 and 32 KiB test sizes, synthetic
 * (sparse) sectors including 32 GiB and 64 GiB, the cache directory round trip and its error
 * paths, and SnapDeals encoding.
 */
#include "harness/test.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/alloc.h"
#include "common/bytes.h"
#include "field/fr.h"
#include "seal/seal.h"

static void random_ids(seal_ids *ids, cz_prng *g)
{
    cz_prng_bytes(g, ids->prover_id, 32);
    ids->sector_id = cz_prng_u64(g);
    cz_prng_bytes(g, ids->ticket, 32);
    ids->ticket[31] &= 0x3f;
}

static seal_node *random_data(cz_prng *g, uint64_t nodes)
{
    seal_node *d = cz_malloc(nodes * sizeof(seal_node));
    CHECK(d != NULL);
    for (uint64_t i = 0; i < nodes; i++) {
        cz_prng_bytes(g, d[i].b, 32);
        d[i].b[31] &= 0x3f;
    }
    return d;
}

static void naive_tree_d(uint8_t out[32], const seal_node *nodes, size_t n)
{
    if (n == 1) {
        memcpy(out, nodes[0].b, 32);
        return;
    }
    uint8_t lr[64];
    naive_tree_d(lr, nodes, n / 2);
    naive_tree_d(lr + 32, nodes + n / 2, n / 2);
    SHA256(lr, 64, out);
    out[31] &= 0x3f;
}

/* Checks every label of the materialised nodes against its parents' labels. */
static void check_labels(const seal_sector *s, uint64_t v)
{
    const seal_porep_config *c = seal_sector_config(s);
    const seal_sector_info *in = seal_sector_get_info(s);
    uint32_t p[SEAL_PARENTS];

    seal_graph_parents(seal_sector_graph(s), v, p);
    for (uint32_t l = 1; l <= c->shape.layers; l++) {
        seal_node drg[6], exp[8], p37[37];
        uint8_t want[32], got[32];
        for (int i = 0; i < 6; i++) {
            seal_sector_label(s, l, p[i], drg[i].b);
        }
        for (int i = 0; i < 8 && l > 1; i++) {
            seal_sector_label(s, l - 1, p[6 + i], exp[i].b);
        }
        seal_label_parents(p37, l, drg, exp);
        seal_label_node(want, in->replica_id, l, v, v ? p37 : NULL);
        seal_sector_label(s, l, v, got);
        CHECK_MEM_EQ(got, want, 32);
    }
}

/* Column hash = TreeC leaf, replica = label[L] + data = TreeRLast leaf. */
static void check_column_and_replica(const seal_sector *s, uint64_t v)
{
    const seal_porep_config *c = seal_sector_config(s);
    seal_node rows[SEAL_MAX_LAYERS];
    uint8_t h[32], leaf[32], data[32], rep[32];
    fr_t a, b;

    for (uint32_t l = 1; l <= c->shape.layers; l++) {
        seal_sector_label(s, l, v, rows[l - 1].b);
    }
    seal_column_hash(h, rows, c->shape.layers);
    seal_tree_node(seal_sector_tree_c(s), 0, v, leaf);
    CHECK_MEM_EQ(h, leaf, 32);
    seal_sector_data(s, v, data);
    CHECK_OK(fr_from_bytes(&a, rows[c->shape.layers - 1].b));
    CHECK_OK(fr_from_bytes(&b, data));
    fr_add(&a, &a, &b);
    fr_to_bytes(h, &a);
    seal_sector_replica(s, v, rep);
    CHECK_MEM_EQ(rep, h, 32);
}

static void check_commitments(const seal_sector *s)
{
    const seal_porep_config *c = seal_sector_config(s);
    const seal_sector_info *in = seal_sector_get_info(s);
    uint8_t r[32];

    seal_tree_root(seal_sector_tree_d(s), r);
    CHECK_MEM_EQ(r, in->comm_d, 32);
    seal_tree_root(seal_sector_tree_c(s), r);
    CHECK_MEM_EQ(r, in->comm_c, 32);
    seal_tree_root(seal_sector_tree_r(s), r);
    CHECK_MEM_EQ(r, in->comm_r_last, 32);
    seal_comm_r(r, in->comm_c, in->comm_r_last);
    CHECK_MEM_EQ(r, in->comm_r, 32);
    seal_replica_id(r, in->ids.prover_id, in->ids.sector_id, in->ids.ticket, in->comm_d,
                    c->porep_id);
    CHECK_MEM_EQ(r, in->replica_id, 32);
}

TEST(dense_2kib_sector_is_consistent)
{
    cz_prng *g = test_prng();
    seal_porep_config c;
    seal_ids ids;
    seal_sector *s;
    uint8_t want[32];

    CHECK(seal_porep_config_for_id(&c, 5));
    random_ids(&ids, g);
    seal_node *data = random_data(g, c.shape.nodes);
    CHECK_OK(seal_sector_seal(&s, &c, &ids, data, NULL, NULL));
    naive_tree_d(want, data, c.shape.nodes);
    CHECK_MEM_EQ(seal_sector_get_info(s)->comm_d, want, 32);
    check_commitments(s);
    for (uint64_t v = 0; v < c.shape.nodes; v++) {
        uint8_t d[32];
        check_labels(s, v);
        check_column_and_replica(s, v);
        seal_sector_data(s, v, d);
        CHECK_MEM_EQ(d, data[v].b, 32);
        CHECK(seal_sector_has_column(s, v));
    }
    seal_sector_free(s);

    /* a CC sector: comm_d is z_6 and replica = last layer */
    CHECK_OK(seal_sector_seal(&s, &c, &ids, NULL, NULL, NULL));
    seal_zero_comm_d(want, 6);
    CHECK_MEM_EQ(seal_sector_get_info(s)->comm_d, want, 32);
    check_commitments(s);
    for (uint64_t v = 0; v < c.shape.nodes; v += 7) {
        uint8_t a[32], b[32];
        seal_sector_label(s, 2, v, a);
        seal_sector_replica(s, v, b);
        CHECK_MEM_EQ(a, b, 32);
    }
    seal_sector_free(s);

    /* data that is not fr32-padded is refused */
    data[9].b[31] |= 0x80;
    CHECK_ERR(seal_sector_seal(&s, &c, &ids, data, NULL, NULL), CUZK_E_INVAL);
    cz_free(data);
}

TEST(compound_shapes_seal_and_prove)
{
    static const uint64_t sizes[] = {1024, 4096, 8192, 16384, 32768};
    static const seal_proof_kind kinds[] = {SEAL_PROOF_SUB, SEAL_PROOF_SUB, SEAL_PROOF_SUB,
                                            SEAL_PROOF_SUB, SEAL_PROOF_TOP};
    cz_prng *g = test_prng();
    uint8_t pid[32];

    cz_prng_bytes(g, pid, 32);
    for (size_t i = 0; i < ARRAY_LEN(sizes); i++) {
        seal_porep_config c;
        seal_ids ids;
        seal_sector *s;
        CHECK(seal_porep_config_custom(&c, sizes[i], SEAL_API_V1_1, SEAL_POREP_INTERACTIVE, pid));
        random_ids(&ids, g);
        seal_node *data = random_data(g, c.shape.nodes);
        CHECK_OK(seal_sector_seal(&s, &c, &ids, data, NULL, NULL));
        check_commitments(s);
        for (uint64_t v = 0; v < c.shape.nodes; v += 5) {
            seal_merkle_proof p;
            check_column_and_replica(s, v);
            seal_tree_prove(seal_sector_tree_c(s), v, &p);
            CHECK_EQ_U64(p.kind, kinds[i]);
            CHECK(seal_merkle_verify(&p, SEAL_HASH_POSEIDON));
            CHECK_MEM_EQ(p.root.b, seal_sector_get_info(s)->comm_c, 32);
            seal_tree_prove(seal_sector_tree_r(s), v, &p);
            CHECK(seal_merkle_verify(&p, SEAL_HASH_POSEIDON));
            CHECK_EQ_U64(seal_merkle_leaf_index(&p), v);
            seal_tree_prove(seal_sector_tree_d(s), v, &p);
            CHECK(seal_merkle_verify(&p, SEAL_HASH_SHA256));
        }
        seal_sector_free(s);
        cz_free(data);
    }
}

static void check_sparse_sector(const seal_sector *s, const uint64_t *nodes, size_t n, cz_prng *g)
{
    const seal_porep_config *c = seal_sector_config(s);
    const seal_sector_info *in = seal_sector_get_info(s);
    uint8_t z[32];

    CHECK(in->sparse);
    seal_zero_comm_d(z, c->shape.log2_nodes);
    CHECK_MEM_EQ(in->comm_d, z, 32);
    check_commitments(s);
    for (size_t i = 0; i < n; i++) {
        seal_merkle_proof p;
        uint32_t par[SEAL_PARENTS];
        CHECK(seal_sector_has_column(s, nodes[i]));
        check_labels(s, nodes[i]);
        check_column_and_replica(s, nodes[i]);
        seal_graph_parents(seal_sector_graph(s), nodes[i], par);
        for (int j = 0; j < SEAL_PARENTS; j++) {
            check_column_and_replica(s, par[j]);
            seal_tree_prove(seal_sector_tree_c(s), par[j], &p);
            CHECK(seal_merkle_verify(&p, SEAL_HASH_POSEIDON));
        }
        seal_tree_prove(seal_sector_tree_r(s), nodes[i], &p);
        CHECK(seal_merkle_verify(&p, SEAL_HASH_POSEIDON));
        CHECK_MEM_EQ(p.root.b, in->comm_r_last, 32);
        seal_tree_prove(seal_sector_tree_d(s), nodes[i], &p);
        CHECK(seal_merkle_verify(&p, SEAL_HASH_SHA256));
    }
    /* any other leaf opens too (PoSt challenges land anywhere) */
    for (int k = 0; k < 20; k++) {
        seal_merkle_proof p;
        uint64_t v = cz_prng_below(g, c->shape.nodes);
        seal_tree_prove(seal_sector_tree_r(s), v, &p);
        CHECK(seal_merkle_verify(&p, SEAL_HASH_POSEIDON));
        if (!seal_sector_has_column(s, v)) {
            static const uint8_t zero[32];
            CHECK_MEM_EQ(p.leaf.b, zero, 32);
        }
    }
}

TEST(sparse_sectors_are_consistent)
{
    cz_prng *g = test_prng();
    static const uint32_t ids_to_test[] = {5, 8, 9}; /* 2 KiB, 32 GiB, 64 GiB (V1_1) */

    for (size_t t = 0; t < ARRAY_LEN(ids_to_test); t++) {
        seal_porep_config c;
        seal_ids ids;
        seal_sector *s;
        uint64_t nodes[180];
        size_t n;

        CHECK(seal_porep_config_for_id(&c, ids_to_test[t]));
        random_ids(&ids, g);
        n = c.shape.nodes <= 64 ? 6 : 180;
        for (size_t i = 0; i < n; i++) {
            nodes[i] = 1 + cz_prng_below(g, c.shape.nodes - 1);
        }
        nodes[0] = 1;
        if (n > 1) {
            nodes[1] = nodes[2 % n]; /* duplicates are allowed */
        }
        double t0 = (double)clock() / CLOCKS_PER_SEC;
        CHECK_OK(seal_sector_seal_sparse(&s, &c, &ids, nodes, n, NULL));
        double t1 = (double)clock() / CLOCKS_PER_SEC;
        printf("  sparse seal %s: %zu columns in %.2f s\n", c.name, n, t1 - t0);
        check_sparse_sector(s, nodes, n < 12 ? n : 12, g);
        seal_sector_free(s);
    }
}

/* ---- cache directory ------------------------------------------------------------------- */

static char *make_tmpdir(void)
{
    static char dir[256];
    snprintf(dir, sizeof(dir), "%s/seal-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    CHECK(mkdtemp(dir) != NULL);
    return dir;
}

static void rm_rf(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0);
}

static void check_same_sector(const seal_sector *a, const seal_sector *b)
{
    const seal_porep_config *c = seal_sector_config(a);
    CHECK(memcmp(seal_sector_get_info(a), seal_sector_get_info(b), sizeof(seal_sector_info)) == 0);
    CHECK_EQ_U64(seal_sector_config(b)->registered_proof, c->registered_proof);
    for (uint64_t v = 0; v < c->shape.nodes; v += (c->shape.nodes >> 6)) {
        seal_merkle_proof p, q;
        seal_tree_prove(seal_sector_tree_c(a), v, &p);
        seal_tree_prove(seal_sector_tree_c(b), v, &q);
        CHECK(memcmp(&p, &q, sizeof(p)) == 0);
        seal_tree_prove(seal_sector_tree_r(a), v, &p);
        seal_tree_prove(seal_sector_tree_r(b), v, &q);
        CHECK(memcmp(&p, &q, sizeof(p)) == 0);
        seal_tree_prove(seal_sector_tree_d(a), v, &p);
        seal_tree_prove(seal_sector_tree_d(b), v, &q);
        CHECK(memcmp(&p, &q, sizeof(p)) == 0);
        for (uint32_t l = 1; l <= c->shape.layers; l++) {
            uint8_t x[32], y[32];
            seal_sector_label(a, l, v, x);
            seal_sector_label(b, l, v, y);
            CHECK_MEM_EQ(x, y, 32);
        }
    }
}

TEST(sector_cache_round_trip)
{
    cz_prng *g = test_prng();
    seal_porep_config c;
    seal_ids ids;
    seal_sector *s, *t = NULL;
    char *dir = make_tmpdir(), path[512];
    cz_diag dg;

    CHECK(seal_porep_config_for_id(&c, 5));
    random_ids(&ids, g);
    seal_node *data = random_data(g, c.shape.nodes);
    CHECK_OK(seal_sector_seal(&s, &c, &ids, data, NULL, NULL));
    CHECK_OK(seal_sector_save(s, dir, NULL));
    CHECK_OK(seal_sector_load(&t, dir, NULL, NULL));
    check_same_sector(s, t);
    seal_sector_free(t);

    /* p_aux is comm_c || comm_r_last; sealed.dat the replica */
    uint8_t paux[64], rep0[32];
    snprintf(path, sizeof(path), "%s/p_aux", dir);
    FILE *f = fopen(path, "rb");
    CHECK(f && fread(paux, 1, 64, f) == 64);
    fclose(f);
    CHECK_MEM_EQ(paux, seal_sector_get_info(s)->comm_c, 32);
    CHECK_MEM_EQ(paux + 32, seal_sector_get_info(s)->comm_r_last, 32);
    snprintf(path, sizeof(path), "%s/sealed.dat", dir);
    f = fopen(path, "rb");
    CHECK(f && fread(rep0, 1, 32, f) == 32);
    fclose(f);
    uint8_t r[32];
    seal_sector_replica(s, 0, r);
    CHECK_MEM_EQ(rep0, r, 32);

    /* a changed commitment in sector.meta is detected */
    snprintf(path, sizeof(path), "%s/sector.meta", dir);
    f = fopen(path, "a");
    CHECK(f != NULL);
    fprintf(f, "bogus 1\n");
    fclose(f);
    cz_diag_init(&dg);
    CHECK_ERR(seal_sector_load(&t, dir, NULL, &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "bogus") != NULL);
    CHECK_OK(seal_sector_save(s, dir, NULL));
    /* a truncated layer file */
    snprintf(path, sizeof(path), "%s/layer-2.dat", dir);
    CHECK(truncate(path, 100) == 0);
    cz_diag_init(&dg);
    CHECK_ERR(seal_sector_load(&t, dir, NULL, &dg), CUZK_E_FORMAT);
    CHECK(strstr(dg.msg, "layer-2.dat") != NULL);
    CHECK_OK(seal_sector_save(s, dir, NULL));
    /* a tree that does not match the stored commitment */
    snprintf(path, sizeof(path), "%s/tree-c.dat", dir);
    f = fopen(path, "r+b");
    CHECK(f != NULL);
    fseek(f, -1, SEEK_END);
    int last = fgetc(f); /* the root's top byte: writing a fixed value may change nothing */
    CHECK(last != EOF);
    fseek(f, -1, SEEK_END);
    fputc(last ^ 0x01, f);
    fclose(f);
    CHECK_ERR(seal_sector_load(&t, dir, NULL, NULL), CUZK_E_FORMAT);
    /* a missing directory */
    CHECK_ERR(seal_sector_load(&t, "/nonexistent/dir", NULL, NULL), CUZK_E_IO);
    CHECK(t == NULL);
    seal_sector_free(s);
    rm_rf(dir);

    /* a sparse 32 GiB sector saves small and loads back */
    dir = make_tmpdir();
    CHECK(seal_porep_config_for_id(&c, 8));
    uint64_t nodes[40];
    for (size_t i = 0; i < ARRAY_LEN(nodes); i++) {
        nodes[i] = 1 + cz_prng_below(g, c.shape.nodes - 1);
    }
    CHECK_OK(seal_sector_seal_sparse(&s, &c, &ids, nodes, ARRAY_LEN(nodes), NULL));
    CHECK_OK(seal_sector_save(s, dir, NULL));
    CHECK_OK(seal_sector_load(&t, dir, NULL, NULL));
    check_same_sector(s, t);
    for (size_t i = 0; i < ARRAY_LEN(nodes); i++) {
        for (uint32_t l = 1; l <= 11; l++) {
            uint8_t x[32], y[32];
            seal_sector_label(s, l, nodes[i], x);
            seal_sector_label(t, l, nodes[i], y);
            CHECK_MEM_EQ(x, y, 32);
        }
    }
    seal_sector_free(s);
    seal_sector_free(t);
    rm_rf(dir);
    cz_free(data);
}

/* ---- SnapDeals encoding ------------------------------------------------------------------ */

TEST(update_encoding_is_consistent)
{
    cz_prng *g = test_prng();
    static const uint64_t sizes[] = {2048, 32768};

    for (size_t t = 0; t < ARRAY_LEN(sizes); t++) {
        seal_porep_config c;
        seal_update_config uc;
        seal_ids ids;
        seal_sector *s;
        seal_update *u;
        uint8_t pid[32] = {5};

        CHECK(seal_porep_config_custom(&c, sizes[t], SEAL_API_V1_1, SEAL_POREP_INTERACTIVE, pid));
        CHECK(seal_update_config_for_size(&uc, sizes[t]));
        random_ids(&ids, g);
        CHECK_OK(seal_sector_seal(&s, &c, &ids, NULL, NULL, NULL));
        seal_node *nd = random_data(g, c.shape.nodes);
        CHECK_OK(seal_update_encode(&u, s, &uc, nd, NULL, NULL));
        const seal_update_info *ui = seal_update_get_info(u);
        uint8_t r[32], phi[32];
        naive_tree_d(r, nd, c.shape.nodes);
        CHECK_MEM_EQ(ui->comm_d_new, r, 32);
        seal_snap_phi(phi, ui->comm_d_new, seal_sector_get_info(s)->comm_r);
        CHECK_MEM_EQ(ui->phi, phi, 32);
        seal_comm_r(r, seal_sector_get_info(s)->comm_c, ui->comm_r_last_new);
        CHECK_MEM_EQ(ui->comm_r_new, r, 32);
        CHECK_MEM_EQ(ui->comm_r_old, seal_sector_get_info(s)->comm_r, 32);
        for (uint64_t v = 0; v < c.shape.nodes; v++) {
            uint8_t old[32], nw[32];
            fr_t a, d, rho;
            seal_sector_replica(s, v, old);
            seal_tree_node(seal_update_tree_r(u), 0, v, nw);
            CHECK_OK(fr_from_bytes(&a, old));
            CHECK_OK(fr_from_bytes(&d, nd[v].b));
            seal_snap_rho(&rho, phi, v >> (c.shape.log2_nodes - uc.h));
            fr_mul(&d, &d, &rho);
            fr_add(&a, &a, &d);
            fr_to_bytes(old, &a);
            CHECK_MEM_EQ(nw, old, 32);
        }
        /* apex leaves: row log2 N - log2 P - a of TreeD_new */
        seal_node apex[SEAL_UPDATE_MAX_APEX];
        for (uint32_t k = 0; k < uc.partitions; k++) {
            seal_update_apex_leafs(u, k, apex);
            uint64_t span = c.shape.nodes / ((uint64_t)uc.partitions * uc.apex_leafs);
            for (uint32_t i = 0; i < uc.apex_leafs; i++) {
                naive_tree_d(r, nd + ((uint64_t)k * uc.apex_leafs + i) * span, span);
                CHECK_MEM_EQ(apex[i].b, r, 32);
            }
        }
        seal_update_free(u);
        /* all-zero new data leaves the replica unchanged */
        CHECK_OK(seal_update_encode(&u, s, &uc, NULL, NULL, NULL));
        CHECK_MEM_EQ(seal_update_get_info(u)->comm_r_new, seal_sector_get_info(s)->comm_r, 32);
        seal_update_free(u);
        /* a configuration of another size is refused */
        seal_update_config other;
        CHECK(seal_update_config_for_size(&other, sizes[t] == 2048 ? 4096 : 2048));
        CHECK_ERR(seal_update_encode(&u, s, &other, NULL, NULL, NULL), CUZK_E_INVAL);
        seal_sector_free(s);
        cz_free(nd);
    }
}
