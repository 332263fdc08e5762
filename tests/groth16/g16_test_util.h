/* g16_test_util.h - random field elements for the Groth16 tests ("g16t"), drawn the same way by
 * every test so that a seed means the same circuit values everywhere, and a prover stage
 * observer that cancels after a named stage. Header-only.
 */
#ifndef CUZK_TESTS_GROTH16_G16_TEST_UTIL_H
#define CUZK_TESTS_GROTH16_G16_TEST_UTIL_H

#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "common/rand.h"
#include "field/fr.h"

/* A uniform element of Fr: 255-bit candidates, rejected at or above r. */
static inline void g16t_rand_fr(fr_t *out, cz_prng *g)
{
    fr_repr_t r;
    do {
        for (int i = 0; i < 4; i++) {
            r.l[i] = cz_prng_u64(g);
        }
        r.l[3] &= UINT64_MAX >> 1;
    } while (!fr_from_repr(out, &r));
}

/* 1, -1 or a random element, each a third of the time. */
static inline void g16t_rand_coeff(fr_t *out, cz_prng *g)
{
    switch (cz_prng_below(g, 3)) {
    case 0:
        *out = FR_ONE;
        break;
    case 1:
        fr_neg(out, &FR_ONE);
        break;
    default:
        g16t_rand_fr(out, g);
    }
}

/* An on_stage observer (g16_prove_opts_t) that sets *flag when the stage named `at` ends and
 * records the last stage it saw. */
typedef struct g16t_cancel_at {
    const char *at;
    atomic_bool *flag;
    char last[16];
} g16t_cancel_at;

static inline void g16t_cancel_stage(void *ctx, const char *stage, double t0, double t1)
{
    g16t_cancel_at *c = ctx;
    (void)t0;
    (void)t1;
    snprintf(c->last, sizeof(c->last), "%s", stage);
    if (strcmp(stage, c->at) == 0) {
        atomic_store(c->flag, true);
    }
}

#endif /* CUZK_TESTS_GROTH16_G16_TEST_UTIL_H */
