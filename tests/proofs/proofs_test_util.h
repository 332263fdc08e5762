/* proofs_test_util.h - shared helpers for the proofs/ tests: random sector inputs and sealing. */
#ifndef CUZK_TESTS_PROOFS_UTIL_H
#define CUZK_TESTS_PROOFS_UTIL_H

#include "harness/test.h"

#include "common/alloc.h"
#include "proofs/proofs.h"

static inline void tu_random_ids(seal_ids *ids, cz_prng *g)
{
    cz_prng_bytes(g, ids->prover_id, 32);
    ids->prover_id[31] &= 0x3f;
    ids->sector_id = cz_prng_below(g, 1u << 30);
    cz_prng_bytes(g, ids->ticket, 32);
    ids->ticket[31] &= 0x3f;
}

static inline void tu_random_fr(uint8_t out[32], cz_prng *g)
{
    cz_prng_bytes(g, out, 32);
    out[31] &= 0x3f;
}

static inline seal_node *tu_random_data(cz_prng *g, uint64_t nodes)
{
    seal_node *d = cz_malloc(nodes * sizeof(seal_node));
    CHECK(d != NULL);
    for (uint64_t i = 0; i < nodes; i++) {
        tu_random_fr(d[i].b, g);
    }
    return d;
}

/* A dense sector of configuration `cfg` with random data. */
static inline seal_sector *tu_seal(const seal_porep_config *cfg, cz_prng *g)
{
    seal_ids ids;
    seal_sector *s = NULL;
    seal_node *d = tu_random_data(g, cfg->shape.nodes);

    tu_random_ids(&ids, g);
    CHECK_OK(seal_sector_seal(&s, cfg, &ids, d, NULL, NULL));
    cz_free(d);
    return s;
}

/* Runs expr expecting CUZK_E_FORMAT with `needle` in the message. */
#define CHECK_FORMAT_ERR(expr, needle)                                                             \
    do {                                                                                           \
        cz_diag dg_;                                                                               \
        cz_diag_init(&dg_);                                                                        \
        cuzk_err e_ = (expr);                                                                      \
        CHECK_MSG(e_ == CUZK_E_FORMAT, "%s returned %s (%s)", #expr, cuzk_errname(e_), dg_.msg);   \
        CHECK_MSG(strstr(dg_.msg, (needle)) != NULL, "message \"%s\" lacks \"%s\"", dg_.msg,       \
                  (needle));                                                                       \
    } while (0)

#endif /* CUZK_TESTS_PROOFS_UTIL_H */
