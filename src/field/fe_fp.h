/* fe_fp.h - binds the FE_* names of the coordinate-generic templates (curve/curve_impl.h,
 * msm/msm_impl.h, msm/msm_vec_impl.h, field/pow_impl.h) to Fp: include it once, before the
 * template, in a file that instantiates one of them over Fp (G1 coordinates). A template uses
 * the names it needs. */
#ifndef CUZK_FIELD_FE_FP_H
#define CUZK_FIELD_FE_FP_H

#include "field/fp.h"

#define FE            fp_t
#define FE_ADD        fp_add
#define FE_SUB        fp_sub
#define FE_DBL        fp_dbl
#define FE_NEG        fp_neg
#define FE_MUL        fp_mul
#define FE_SQR        fp_sqr
#define FE_INV        fp_inv
#define FE_EQ         fp_eq
#define FE_IS_ZERO    fp_is_zero
#define FE_SQRT       fp_sqrt
#define FE_IS_LARGEST fp_is_lexicographically_largest
#define FE_ZERO       FP_ZERO
#define FE_ONE        FP_ONE

#endif /* CUZK_FIELD_FE_FP_H */
