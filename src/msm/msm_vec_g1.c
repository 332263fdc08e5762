/* msm_vec_g1.c - batched affine additions over G1 on eight AVX-512 IFMA lanes: msm_vec_impl.h
 * with vfp_t coordinates. Compiled with -mavx512f -mavx512ifma; called only when
 * msm_vec_available(). */
#include "msm/internal.h"

#include "msm/msm_vec.h"

#include "field/fe_fp.h"

#define AFF     g1_aff_t
#define JAC     g1_t
#define XYZZ    msm_xyzz_g1_t
#define VFE     vfp_t
#define VFE_NW  6
#define VEC_FN  msm_vec_flush_g1
#define SUMS_FN msm_vec_bucket_sums_g1

static inline void vfe_from_words(vfp_t *r, const __m512i *w, const vfp_consts_t *K)
{
    vfp_from_words(r, w, K);
}

static inline void vfe_words_of(__m512i *w, const vfp_t *a)
{
    vfp_words_of(w, a);
}

#define vfe_sub          vfp_sub
#define vfe_mul          vfp_mul
#define vfe_sqr          vfp_sqr
#define vfe_reduce       vfp_reduce
#define vfe_set_one_mask vfp_set_one_mask
#define vfe_neg_mask     vfp_neg_mask

#include "msm/msm_xyzz.h"
#include "msm/msm_vec_impl.h"

bool msm_vec_fp_apply(uint64_t out[8][6], const uint64_t a[8][6], const uint64_t b[8][6],
                      unsigned op)
{
    vfp_consts_t K;
    uint64_t words[6][8];
    __m512i w[6];
    vfp_t va, vb, r;

    vfp_consts_init(&K);
    for (unsigned i = 0; i < 6; i++) {
        for (unsigned l = 0; l < 8; l++) {
            words[i][l] = a[l][i];
        }
        w[i] = _mm512_loadu_si512((const void *)words[i]);
    }
    vfp_from_words(&va, w, &K);
    for (unsigned i = 0; i < 6; i++) {
        for (unsigned l = 0; l < 8; l++) {
            words[i][l] = b[l][i];
        }
        w[i] = _mm512_loadu_si512((const void *)words[i]);
    }
    vfp_from_words(&vb, w, &K);
    switch (op) {
    case 0:
        vfp_add(&r, &va, &vb, &K);
        break;
    case 1:
        vfp_sub(&r, &va, &vb, &K);
        break;
    case 2:
        vfp_mul(&r, &va, &vb, &K);
        break;
    default:
        vfp_sqr(&r, &va, &K);
        break;
    }
    vfp_reduce(&r, &r, &K);
    vfp_words_of(w, &r);
    for (unsigned i = 0; i < 6; i++) {
        _mm512_storeu_si512((void *)words[i], w[i]);
        for (unsigned l = 0; l < 8; l++) {
            out[l][i] = words[i][l];
        }
    }
    return true;
}
