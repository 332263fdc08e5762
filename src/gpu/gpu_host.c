/* gpu_host.c - host-side field and curve arithmetic for the CUDA backend (see internal.h): NTT
 * constants and coset factor tables computed with field/, and the final combination of MSM
 * window sums with curve/; and the warm-up MSMs of gpu_dev_warm. Built with the CUDA backend and
 * with its CPU emulation.
 */
#include "gpu/internal.h"

#include <string.h>

#include "common/alloc.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/bls12_381_consts.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"

_Static_assert(sizeof(fr_t) == GPU_FR_LIMBS * 8, "fr limbs");
_Static_assert(sizeof(fp_t) == GPU_FP_LIMBS * 8, "fp limbs");
_Static_assert(sizeof(g1_aff_t) == 2 * GPU_FP_LIMBS * 8, "g1 affine layout");
_Static_assert(sizeof(g2_aff_t) == 4 * GPU_FP_LIMBS * 8, "g2 affine layout");

void gpu_host_fr_root(uint64_t out[4], unsigned lg)
{
    fr_t w;

    CZ_CHECK(lg <= 32);
    memcpy(&w, FR_ROOT_OF_UNITY_MONT, sizeof(w));
    for (unsigned i = lg; i < 32; i++) {
        fr_sqr(&w, &w);
    }
    memcpy(out, &w, sizeof(w));
}

void gpu_host_ntt_consts(unsigned lg, uint64_t ninv[4], uint64_t zinv[4], uint64_t nzinv[4])
{
    fr_t n, g, t, z;

    CZ_CHECK(lg < 64);
    fr_from_u64(&n, (uint64_t)1 << lg);
    fr_inv(&n, &n);
    memcpy(ninv, &n, sizeof(n));
    /* (g^n - 1)^-1 with g = 7: 1/Z at every point of the coset g<omega> */
    fr_from_u64(&g, FR_GENERATOR_U64);
    fr_pow_u64(&t, &g, (uint64_t)1 << lg);
    fr_sub(&t, &t, &FR_ONE);
    fr_inv(&z, &t);
    memcpy(zinv, &z, sizeof(z));
    if (nzinv) {
        fr_mul(&t, &n, &z);
        memcpy(nzinv, &t, sizeof(t));
    }
}

void gpu_host_scale_tables(uint64_t *lo, uint64_t *hi, unsigned lg, unsigned a, int which)
{
    fr_t base, c, step, cur;

    CZ_CHECK(a <= lg && lg < 63 && which >= 0 && which < GPU_SCALE_COUNT);
    fr_from_u64(&base, FR_GENERATOR_U64);
    if (which == GPU_SCALE_ICOSET_NINV || which == GPU_SCALE_ICOSET_NINV_ZINV) {
        fr_inv(&base, &base);
    }
    c = FR_ONE;
    if (which != GPU_SCALE_COSET) {
        uint64_t ninv[4], zinv[4], nzinv[4];
        gpu_host_ntt_consts(lg, ninv, zinv, nzinv);
        memcpy(&c, which == GPU_SCALE_ICOSET_NINV_ZINV ? nzinv : ninv, sizeof(c));
    }
    /* lo[j] = base^j */
    cur = FR_ONE;
    for (size_t j = 0; j < ((size_t)1 << a); j++) {
        memcpy(lo + 4 * j, &cur, sizeof(cur));
        fr_mul(&cur, &cur, &base);
    }
    /* cur = base^(2^a) now; hi[j] = c * base^(j 2^a) */
    step = cur;
    cur = c;
    for (size_t j = 0; j < ((size_t)1 << (lg - a)); j++) {
        memcpy(hi + 4 * j, &cur, sizeof(cur));
        fr_mul(&cur, &cur, &step);
    }
}

void gpu_host_xyzz_to_g1(struct g1 *out, const uint64_t xyzz[GPU_G1_XYZZ_LIMBS])
{
    fp_t x, y, zz, zzz, t, u;

    memcpy(&x, xyzz, 48);
    memcpy(&y, xyzz + 6, 48);
    memcpy(&zz, xyzz + 12, 48);
    memcpy(&zzz, xyzz + 18, 48);
    if (fp_is_zero(&zz)) {
        g1_set_identity(out);
        return;
    }
    fp_mul(&out->z, &zz, &zzz); /* Z = ZZ ZZZ */
    fp_sqr(&t, &zzz);           /* ZZZ^2 */
    fp_mul(&u, &t, &zz);        /* ZZ ZZZ^2 */
    fp_mul(&out->x, &x, &u);    /* X = X ZZ ZZZ^2 */
    fp_sqr(&t, &zz);            /* ZZ^2 */
    fp_mul(&t, &t, &u);         /* ZZ^3 ZZZ^2 */
    fp_mul(&out->y, &y, &t);    /* Y = Y ZZ^3 ZZZ^2 */
}

void gpu_host_xyzz_to_g2(struct g2 *out, const uint64_t xyzz[GPU_G2_XYZZ_LIMBS])
{
    fp2_t x, y, zz, zzz, t, u;

    memcpy(&x, xyzz, 96);
    memcpy(&y, xyzz + 12, 96);
    memcpy(&zz, xyzz + 24, 96);
    memcpy(&zzz, xyzz + 36, 96);
    if (fp2_is_zero(&zz)) {
        g2_set_identity(out);
        return;
    }
    fp2_mul(&out->z, &zz, &zzz);
    fp2_sqr(&t, &zzz);
    fp2_mul(&u, &t, &zz);
    fp2_mul(&out->x, &x, &u);
    fp2_sqr(&t, &zz);
    fp2_mul(&t, &t, &u);
    fp2_mul(&out->y, &y, &t);
}

void gpu_host_msm_finish_g1(struct g1 *out, const uint64_t *win, unsigned nwin, unsigned c,
                            const uint64_t extra[GPU_G1_XYZZ_LIMBS])
{
    g1_t acc, s;

    g1_set_identity(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        for (unsigned i = 0; i < c && !g1_is_identity(&acc); i++) {
            g1_dbl(&acc, &acc);
        }
        gpu_host_xyzz_to_g1(&s, win + (size_t)w * GPU_G1_XYZZ_LIMBS);
        g1_add(&acc, &acc, &s);
    }
    gpu_host_xyzz_to_g1(&s, extra);
    g1_add(out, &acc, &s);
}

void gpu_host_msm_finish_g2(struct g2 *out, const uint64_t *win, unsigned nwin, unsigned c,
                            const uint64_t extra[GPU_G2_XYZZ_LIMBS])
{
    g2_t acc, s;

    g2_set_identity(&acc);
    for (unsigned w = nwin; w-- > 0;) {
        for (unsigned i = 0; i < c && !g2_is_identity(&acc); i++) {
            g2_dbl(&acc, &acc);
        }
        gpu_host_xyzz_to_g2(&s, win + (size_t)w * GPU_G2_XYZZ_LIMBS);
        g2_add(&acc, &acc, &s);
    }
    gpu_host_xyzz_to_g2(&s, extra);
    g2_add(out, &acc, &s);
}

/* The layout of spmv.cu's spmat_upload: row pointers, columns, coefficient indices, the
 * dictionary and the list of long rows, each 256-byte aligned in one allocation. */
size_t gpu_spmat_sizeof(size_t rows, size_t nnz, const uint32_t *row_ptr, size_t dict_len)
{
    const size_t part[5] = {(rows + 1) * sizeof(uint32_t), nnz * sizeof(uint32_t),
                            nnz * sizeof(uint16_t), dict_len * 32, 0};
    size_t nlong = 0, off = 0;

    for (size_t r = 0; r < rows; r++) {
        nlong += row_ptr[r + 1] - row_ptr[r] > GPU_SPMAT_SHORT_MAX;
    }
    for (int i = 0; i < 5; i++) {
        off = (off + 255) & ~(size_t)255;
        off += i < 4 ? part[i] : nlong * sizeof(uint32_t);
    }
    return off;
}

#define WARM_N 4096

cuzk_err gpu_dev_warm(gpu_dev *dev, cz_diag *dg)
{
    cuzk_err err = CUZK_OK;
    gpu_msm_bases *b1 = NULL, *b2 = NULL;
    fr_repr_t *sc = cz_calloc(WARM_N, sizeof(fr_repr_t));
    g1_aff_t *p1 = cz_calloc(WARM_N, sizeof(g1_aff_t)); /* all zero: the identity */
    g2_aff_t *p2 = cz_calloc(WARM_N, sizeof(g2_aff_t));
    g1_t s1;
    g2_t s2;

    if (!sc || !p1 || !p2) {
        err = cz_fail(dg, CUZK_E_NOMEM, "the warm-up MSMs");
        goto done;
    }
    for (size_t i = 0; i < WARM_N; i++) {
        sc[i].l[0] = 2 + i * 0x9e3779b97f4a7c15ULL;
        sc[i].l[1] = i;
        sc[i].l[3] = (i * 0x2545f4914f6cdd1dULL) >> 3; /* below 2^255 */
    }
    CZ_TRY(err, gpu_msm_bases_new_g1(&b1, dev, WARM_N, dg), done);
    CZ_TRY(err, gpu_msm_bases_new_g2(&b2, dev, WARM_N, dg), done);
    CZ_TRY(err, gpu_msm_bases_upload_g1(b1, 0, p1, WARM_N, dg), done);
    CZ_TRY(err, gpu_msm_bases_upload_g2(b2, 0, p2, WARM_N, dg), done);
    CZ_TRY(err, gpu_msm_g1(dev, &s1, b1, 0, sc, WARM_N, NULL, dg), done);
    CZ_TRY(err, gpu_msm_g2(dev, &s2, b2, 0, sc, WARM_N, NULL, dg), done);
done:
    gpu_msm_bases_free(b1);
    gpu_msm_bases_free(b2);
    cz_free(sc);
    cz_free(p1);
    cz_free(p2);
    if (err == CUZK_OK) {
        err = gpu_dev_trim(dev, dg);
    }
    return err;
}

struct g1 *gpu_host_g1_at(struct g1 *v, size_t i)
{
    return (g1_t *)v + i;
}

struct g2 *gpu_host_g2_at(struct g2 *v, size_t i)
{
    return (g2_t *)v + i;
}
