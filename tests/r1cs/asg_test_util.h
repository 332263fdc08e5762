/* asg_test_util.h - comparison of two prover assignments (r1cs.h cs_assignment_t) for the tests
 * that check one synthesis path against another ("cst"). Header-only.
 */
#ifndef CUZK_TESTS_R1CS_ASG_TEST_UTIL_H
#define CUZK_TESTS_R1CS_ASG_TEST_UTIL_H

#include "harness/test.h"

#include "r1cs/r1cs.h"

static inline void cst_check_bits_eq(const cs_bitvec_t *x, const cs_bitvec_t *y)
{
    CHECK_EQ_U64(x->len, y->len);
    CHECK_EQ_U64(x->popcount, y->popcount);
    if (x->len) {
        CHECK_MEM_EQ(x->words, y->words, (x->len + 63) / 64 * sizeof(uint64_t));
    }
}

/* Same counts, a, b, c, densities, inputs and aux, byte for byte. */
static inline void cst_check_asg_eq(const cs_assignment_t *x, const cs_assignment_t *y)
{
    CHECK_EQ_U64(x->m, y->m);
    CHECK_EQ_U64(x->num_inputs, y->num_inputs);
    CHECK_EQ_U64(x->num_aux, y->num_aux);
    if (x->m) {
        CHECK_MEM_EQ(x->a, y->a, x->m * sizeof(fr_t));
        CHECK_MEM_EQ(x->b, y->b, x->m * sizeof(fr_t));
        CHECK_MEM_EQ(x->c, y->c, x->m * sizeof(fr_t));
    }
    cst_check_bits_eq(&x->a_aux_density, &y->a_aux_density);
    cst_check_bits_eq(&x->b_input_density, &y->b_input_density);
    cst_check_bits_eq(&x->b_aux_density, &y->b_aux_density);
    CHECK_MEM_EQ(x->inputs, y->inputs, x->num_inputs * sizeof(fr_t));
    if (x->num_aux) {
        CHECK_MEM_EQ(x->aux, y->aux, x->num_aux * sizeof(fr_t));
    }
}

#endif /* CUZK_TESTS_R1CS_ASG_TEST_UTIL_H */
