/* msm_g2.c - the MSM over G2: msm_impl.h instantiated with Fp2 coordinates. */
#include "msm/msm.h"

#include "field/fp2.h"
#include "msm/internal.h"

#define FE              fp2_t
#define FE_ADD          fp2_add
#define FE_SUB          fp2_sub
#define FE_DBL          fp2_dbl
#define FE_NEG          fp2_neg
#define FE_MUL          fp2_mul
#define FE_SQR          fp2_sqr
#define FE_INV          fp2_inv
#define FE_EQ           fp2_eq
#define FE_IS_ZERO      fp2_is_zero
#define FE_ONE          FP2_ONE
#define AFF             g2_aff_t
#define JAC             g2_t
#define AFF_IS_IDENTITY g2_aff_is_identity
#define MSM_FN(suffix)  msm_g2##suffix
#define XYZZ            msm_xyzz_g2_t
#define MSM_VEC_FLUSH   msm_vec_flush_g2
#define MSM_VEC_SUMS    msm_vec_bucket_sums_g2

#include "msm/msm_impl.h"
