/* msm_g1.c - the MSM over G1: msm_impl.h instantiated with Fp coordinates. */
#include "msm/msm.h"

#include "field/fp.h"
#include "msm/internal.h"

#include "field/fe_fp.h" /* FE, FE_ADD, ..., bound to the field */
#define AFF             g1_aff_t
#define JAC             g1_t
#define AFF_IS_IDENTITY g1_aff_is_identity
#define MSM_FN(suffix)  msm_g1##suffix
#define XYZZ            msm_xyzz_g1_t
#define MSM_VEC_FLUSH   msm_vec_flush_g1
#define MSM_VEC_SUMS    msm_vec_bucket_sums_g1

#include "msm/msm_impl.h"
