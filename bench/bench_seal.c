/* bench_seal.c - sealing on this machine: the parent cache (ns per node), SDR labeling (ns per
 * label; labels per second = 1e9 / ns), TreeD and TreeRLast building (ms per tree; TreeC costs
 * the same as TreeRLast), single-threaded and over a pool of all cores, a whole dense seal
 * (8 MiB: pooled only), and a synthetic 32 GiB seal of the 180 challenged columns.
 * Sizes: 2 KiB and 8 MiB. Arguments filter the case names.
 */
#include "bench.h"

#include <stdio.h>
#include <string.h>

#include "common/alloc.h"
#include "common/pool.h"
#include "common/rand.h"
#include "seal/seal.h"

typedef struct seal_bench {
    seal_porep_config cfg;
    seal_graph_t graph;
    cz_buf cache;
    seal_node *labels;
    seal_node *leaves; /* random Fr nodes for the trees */
    uint8_t replica_id[32];
    seal_tree_shape shape_d, shape_r;
    cz_pool *pool;
    seal_ids ids;
} seal_bench;

static void run_cache(void *vctx)
{
    seal_bench *b = vctx;
    cz_buf buf;
    if (seal_graph_cache_new(&buf, &b->graph, b->pool, NULL) == CUZK_OK) {
        cz_buf_free(&buf);
    }
}

static void run_labels(void *vctx)
{
    seal_bench *b = vctx;
    seal_label_all(b->labels, &b->graph, b->cache.ptr, b->replica_id, b->cfg.shape.layers);
}

static void run_tree(seal_bench *b, const seal_tree_shape *shape)
{
    seal_tree *t = NULL;
    if (seal_tree_new_dense(&t, shape, b->leaves, b->pool, NULL) == CUZK_OK) {
        seal_tree_free(t);
    }
}

static void run_tree_d(void *vctx)
{
    seal_bench *b = vctx;
    run_tree(b, &b->shape_d);
}

static void run_tree_r(void *vctx)
{
    seal_bench *b = vctx;
    run_tree(b, &b->shape_r);
}

static void run_seal(void *vctx)
{
    seal_bench *b = vctx;
    seal_sector *s = NULL;
    if (seal_sector_seal(&s, &b->cfg, &b->ids, b->leaves, b->pool, NULL) == CUZK_OK) {
        seal_sector_free(s);
    }
}

static void run_sparse(void *vctx)
{
    seal_bench *b = vctx;
    uint64_t ch[180];
    uint8_t comm_d[32], rid[32], seed[32] = {1};
    seal_sector *s = NULL;

    seal_zero_comm_d(comm_d, b->cfg.shape.log2_nodes);
    seal_replica_id(rid, b->ids.prover_id, b->ids.sector_id, b->ids.ticket, comm_d,
                    b->cfg.porep_id);
    for (uint32_t k = 0; k < b->cfg.partitions; k++) {
        seal_porep_challenges(ch + 18 * k, &b->cfg, rid, NULL, seed, k);
    }
    if (seal_sector_seal_sparse(&s, &b->cfg, &b->ids, ch, 180, NULL) == CUZK_OK) {
        seal_sector_free(s);
    }
}

static void bench_size(uint32_t id, const char *tag, unsigned iters, cz_pool *pool, int argc,
                       char **argv)
{
    seal_bench b;
    cz_prng g;
    char name[64];
    uint64_t n;

    memset(&b, 0, sizeof(b));
    if (!seal_porep_config_for_id(&b.cfg, id)) {
        return;
    }
    n = b.cfg.shape.nodes;
    cz_prng_seed(&g, id);
    cz_prng_bytes(&g, &b.ids, sizeof(b.ids));
    b.ids.ticket[31] &= 0x3f;
    cz_prng_bytes(&g, b.replica_id, 32);
    b.replica_id[31] &= 0x3f;
    seal_graph_init(&b.graph, n, b.cfg.porep_id, b.cfg.api);
    seal_tree_shape_d(&b.shape_d, n);
    seal_tree_shape_r(&b.shape_r, &b.cfg.shape);
    b.labels = cz_malloc(b.cfg.shape.layers * n * sizeof(seal_node));
    b.leaves = cz_malloc(n * sizeof(seal_node));
    if (!b.labels || !b.leaves || seal_graph_cache_new(&b.cache, &b.graph, pool, NULL) != CUZK_OK) {
        fprintf(stderr, "bench_seal: out of memory\n");
        return;
    }
    for (uint64_t i = 0; i < n; i++) {
        cz_prng_bytes(&g, b.leaves[i].b, 32);
        b.leaves[i].b[31] &= 0x3f;
    }

    for (int threaded = 0; threaded < 2; threaded++) {
        const char *tt = threaded ? "_pool" : "";
        b.pool = threaded ? pool : NULL;
        snprintf(name, sizeof(name), "parent_cache_%s%s", tag, tt);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, n, iters, (double)n, BENCH_NS, run_cache, &b);
        }
        if (!threaded) {
            /* labels are sequential: one line only */
            snprintf(name, sizeof(name), "label_%s_ns_per_label", tag);
            if (bench_selected(argc, argv, name)) {
                bench_case(name, n, iters, (double)(n * b.cfg.shape.layers), BENCH_NS, run_labels,
                           &b);
            }
        }
        snprintf(name, sizeof(name), "tree_d_%s%s", tag, tt);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, n, iters, 1, BENCH_MS, run_tree_d, &b);
        }
        snprintf(name, sizeof(name), "tree_r_%s%s", tag, tt);
        if (bench_selected(argc, argv, name)) {
            bench_case(name, n, iters, 1, BENCH_MS, run_tree_r, &b);
        }
        snprintf(name, sizeof(name), "seal_%s%s", tag, tt);
        if ((threaded || n <= 4096) && bench_selected(argc, argv, name)) {
            /* a whole seal: cache, labels, column hashes, TreeC, TreeRLast, TreeD */
            bench_case(name, n, iters > 3 ? 3 : iters, 1, BENCH_MS, run_seal, &b);
        }
    }
    cz_buf_free(&b.cache);
    cz_free(b.labels);
    cz_free(b.leaves);
}

int main(int argc, char **argv)
{
    cz_pool *pool = NULL;
    unsigned cores = cz_cpu_count();

    if (cz_pool_new(&pool, cores > 1 ? cores - 1 : 0, "bench", NULL) != CUZK_OK) {
        return 1;
    }
    printf("# cores: %u (the _pool cases use all of them)\n", cores);
    bench_header();
    bench_size(5, "2KiB", 20, pool, argc, argv);
    bench_size(6, "8MiB", 1, pool, argc, argv);
    if (bench_selected(argc, argv, "sparse_seal_32GiB_180_columns")) {
        seal_bench b;
        memset(&b, 0, sizeof(b));
        if (seal_porep_config_for_id(&b.cfg, 8)) {
            bench_case("sparse_seal_32GiB_180_columns", b.cfg.shape.nodes, 3, 1, BENCH_MS,
                       run_sparse, &b);
        }
    }
    cz_pool_free(pool);
    return 0;
}
