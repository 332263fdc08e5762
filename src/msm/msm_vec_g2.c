/* msm_vec_g2.c - batched affine additions over G2 on eight AVX-512 IFMA lanes: msm_vec_impl.h
 * with vfp2_t coordinates. Compiled with -mavx512f -mavx512ifma; called only when
 * msm_vec_available(). */
#include "msm/internal.h"

#include "msm/msm_vec.h"

#include "field/fe_fp2.h"

#define AFF     g2_aff_t
#define JAC     g2_t
#define XYZZ    msm_xyzz_g2_t
#define VFE     vfp2_t
#define VFE_NW  12
#define VEC_FN  msm_vec_flush_g2
#define SUMS_FN msm_vec_bucket_sums_g2

static inline void vfe_from_words(vfp2_t *r, const __m512i *w, const vfp_consts_t *K)
{
    vfp_from_words(&r->c0, w, K);
    vfp_from_words(&r->c1, w + 6, K);
}

static inline void vfe_words_of(__m512i *w, const vfp2_t *a)
{
    vfp_words_of(w, &a->c0);
    vfp_words_of(w + 6, &a->c1);
}

static inline void vfe_reduce(vfp2_t *r, const vfp2_t *a, const vfp_consts_t *K)
{
    vfp_reduce(&r->c0, &a->c0, K);
    vfp_reduce(&r->c1, &a->c1, K);
}

static inline void vfe_set_one_mask(vfp2_t *r, const vfp2_t *a, __mmask8 k, const vfp_consts_t *K)
{
    /* 1 = 1 + 0 u */
    vfp_set_one_mask(&r->c0, &a->c0, k, K);
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        r->c1.l[j] = _mm512_maskz_mov_epi64((__mmask8)~k, a->c1.l[j]);
    }
}

static inline void vfe_neg_mask(vfp2_t *r, const vfp2_t *a, __mmask8 k, const vfp_consts_t *K)
{
    vfp_neg_mask(&r->c0, &a->c0, k, K);
    vfp_neg_mask(&r->c1, &a->c1, k, K);
}

#define vfe_sub vfp2_sub
#define vfe_mul vfp2_mul
#define vfe_sqr vfp2_sqr

#include "msm/msm_xyzz.h"
#include "msm/msm_vec_impl.h"
