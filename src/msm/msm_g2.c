/* msm_g2.c - the MSM over G2: msm_impl.h instantiated with Fp2 coordinates. */
#include "msm/msm.h"

#include "field/fp2.h"
#include "msm/internal.h"

#include "field/fe_fp2.h" /* FE, FE_ADD, ..., bound to the field */
#define AFF             g2_aff_t
#define JAC             g2_t
#define AFF_IS_IDENTITY g2_aff_is_identity
#define MSM_FN(suffix)  msm_g2##suffix
#define XYZZ            msm_xyzz_g2_t
#define MSM_VEC_FLUSH   msm_vec_flush_g2
#define MSM_VEC_SUMS    msm_vec_bucket_sums_g2

#include "msm/msm_impl.h"
