/* fe_fp2.h - binds the FE_* names of the coordinate-generic templates (curve/curve_impl.h,
 * msm/msm_impl.h, msm/msm_vec_impl.h, field/pow_impl.h) to Fp2: include it once, before the
 * template, in a file that instantiates one of them over Fp2 (G2 coordinates). A template uses
 * the names it needs. */
#ifndef CUZK_FIELD_FE_FP2_H
#define CUZK_FIELD_FE_FP2_H

#include "field/fp2.h"

#define FE            fp2_t
#define FE_ADD        fp2_add
#define FE_SUB        fp2_sub
#define FE_DBL        fp2_dbl
#define FE_NEG        fp2_neg
#define FE_MUL        fp2_mul
#define FE_SQR        fp2_sqr
#define FE_INV        fp2_inv
#define FE_EQ         fp2_eq
#define FE_IS_ZERO    fp2_is_zero
#define FE_SQRT       fp2_sqrt
#define FE_IS_LARGEST fp2_is_lexicographically_largest
#define FE_ZERO       FP2_ZERO
#define FE_ONE        FP2_ONE

#endif /* CUZK_FIELD_FE_FP2_H */
