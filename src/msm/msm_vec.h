/* msm_vec.h - eight-lane Fp and Fp2 arithmetic on AVX-512 IFMA (52-bit multiply-accumulate),
 * for the batched affine additions of msm_vec_g1.c and msm_vec_g2.c. Only those two files
 * include it; CMake compiles them with -mavx512f -mavx512ifma, and their code runs only after
 * msm_vec_available() said the CPU has both extensions.
 *
 * Representation: vfp_t holds 8 elements of Fp, one per 64-bit lane, as 8 limbs of 52 bits
 * (radix 2^52, 416 bits): lane k of l[j] is limb j of element k. The values are in the same
 * Montgomery form as fp_t (x * 2^384 mod p), so converting from and to fp_t changes only the
 * radix (vfp_from_words, vfp_to_words). Between operations every limb is below 2^52 and every
 * value below 2p ("lazy" reduction); vfp_to_words returns the canonical value below p.
 * vfp2_t is c0 + c1 u over the same lanes (u^2 = -1).
 *
 * Multiplication is Montgomery's with R = 2^384, by operand scanning over the 8 limbs of b:
 * round i adds a * b_i (VPMADD52LUQ gives the low, VPMADD52HUQ the high 52 bits of each
 * 104-bit limb product), then adds m p with m = t_0 (-p^-1) mod 2^52, which clears the low
 * limb; rounds 0..6 divide t by 2^52 and round 7 by 2^20 (m taken mod 2^20), 7 * 52 + 20 = 384.
 * The result is (a b + M p) / 2^384 with M < 2^384, below a b / 2^384 + p; for a, b < 2p that
 * is below 4p^2 / 2^384 + p < 1.41 p (p < 0.102 * 2^384). Each accumulator limb collects at
 * most 4 terms below 2^52 per round over 8 rounds: below 2^58, no lane overflows.
 * Sources: Montgomery, "Modular multiplication without trial division" (1985); the 52-bit
 * radix with IFMA follows Gueron and Krasnov, "Accelerating big integer arithmetic using
 * Intel IFMA extensions" (ARITH 2016).
 */
#ifndef CUZK_MSM_MSM_VEC_H
#define CUZK_MSM_MSM_VEC_H

#if !defined(__AVX512F__) || !defined(__AVX512IFMA__)
#    error "msm_vec.h needs -mavx512f -mavx512ifma"
#endif

#include <immintrin.h>

#include "field/bls12_381_consts.h"
#include "field/fp.h"
#include "field/fp2.h"

#define VFP_NLIMBS 8
#define VFP_MASK52 0xfffffffffffffULL
#define VFP_MASK20 0xfffffULL

typedef struct vfp {
    __m512i l[VFP_NLIMBS];
} vfp_t;

typedef struct vfp2 {
    vfp_t c0, c1;
} vfp2_t;

/* Broadcast constants: p and 2p in 52-bit limbs, -p^-1 mod 2^52, R mod p (Montgomery 1). */
typedef struct vfp_consts {
    __m512i p[VFP_NLIMBS], p2[VFP_NLIMBS], one[VFP_NLIMBS];
    __m512i pinv, mask52, mask20;
} vfp_consts_t;

/** Limbs of radix 2^52 from 6 words of radix 2^64 (scalar; for constants and lane values). */
static inline void vfp_limbs_from_words(uint64_t out[VFP_NLIMBS], const uint64_t w[6])
{
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        unsigned bit = 52 * j, wi = bit / 64, sh = bit % 64;
        uint64_t v = wi < 6 ? w[wi] >> sh : 0;
        if (sh > 12 && wi + 1 < 6) {
            v |= w[wi + 1] << (64 - sh);
        }
        out[j] = v & VFP_MASK52;
    }
}

static inline void vfp_consts_init(vfp_consts_t *K)
{
    uint64_t p2w[6], l[VFP_NLIMBS];
    uint64_t carry = 0;

    for (unsigned i = 0; i < 6; i++) { /* 2p < 2^382: no carry out */
        p2w[i] = (FP_MODULUS[i] << 1) | carry;
        carry = FP_MODULUS[i] >> 63;
    }
    vfp_limbs_from_words(l, FP_MODULUS);
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        K->p[j] = _mm512_set1_epi64((long long)l[j]);
    }
    vfp_limbs_from_words(l, p2w);
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        K->p2[j] = _mm512_set1_epi64((long long)l[j]);
    }
    vfp_limbs_from_words(l, FP_ONE.l);
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        K->one[j] = _mm512_set1_epi64((long long)l[j]);
    }
    K->pinv = _mm512_set1_epi64((long long)(FP_MONT_INV & VFP_MASK52));
    K->mask52 = _mm512_set1_epi64((long long)VFP_MASK52);
    K->mask20 = _mm512_set1_epi64((long long)VFP_MASK20);
}

/* ---- radix changes and memory ---- */

/** Limbs from 6 word vectors (lane k of w[i] = word i of element k), each element < 2^384. */
static inline void vfp_from_words(vfp_t *r, const __m512i w[6], const vfp_consts_t *K)
{
    const __m512i m = K->mask52;
    r->l[0] = _mm512_and_si512(w[0], m);
    r->l[1] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), m);
    r->l[2] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), m);
    r->l[3] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), m);
    r->l[4] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[3], 16), _mm512_slli_epi64(w[4], 48)), m);
    r->l[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), m);
    r->l[6] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[4], 56), _mm512_slli_epi64(w[5], 8)), m);
    r->l[7] = _mm512_srli_epi64(w[5], 44);
}

/** Words from limbs; a must be normalized and below 2^384. */
static inline void vfp_words_of(__m512i w[6], const vfp_t *a)
{
    w[0] = _mm512_or_si512(a->l[0], _mm512_slli_epi64(a->l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(a->l[1], 12), _mm512_slli_epi64(a->l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(a->l[2], 24), _mm512_slli_epi64(a->l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(a->l[3], 36), _mm512_slli_epi64(a->l[4], 16));
    w[4] = _mm512_or_si512(
        _mm512_or_si512(_mm512_srli_epi64(a->l[4], 48), _mm512_slli_epi64(a->l[5], 4)),
        _mm512_slli_epi64(a->l[6], 56));
    w[5] = _mm512_or_si512(_mm512_srli_epi64(a->l[6], 8), _mm512_slli_epi64(a->l[7], 44));
}

/** Gathers n 64-bit words at byte offsets off[k] + 8 i from base, for the lanes in k (others 0). */
static inline void vfp_gather_words(__m512i *w, unsigned n, const void *base, __m512i off,
                                    __mmask8 k)
{
    const char *b = (const char *)base;
    for (unsigned i = 0; i < n; i++) {
        w[i] = _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), k, off, b + 8 * i, 1);
    }
}

/** Scatters n words to byte offsets off[k] + 8 i from base, for the lanes in k. */
static inline void vfp_scatter_words(void *base, __m512i off, __mmask8 k, const __m512i *w,
                                     unsigned n)
{
    char *b = (char *)base;
    for (unsigned i = 0; i < n; i++) {
        _mm512_mask_i64scatter_epi64(b + 8 * i, k, off, w[i], 1);
    }
}

/* ---- carries ---- */

/* r = t with carries propagated; t's limbs may be negative (signed 64-bit) or exceed 2^52. The
 * value must lie in [0, 2^416) except where noted; returns the carry out of the top limb:
 * 0, or -1 when the value was negative (then r holds value + 2^416). */
static inline __m512i vfp_carry(vfp_t *r, const __m512i t[VFP_NLIMBS], const vfp_consts_t *K)
{
    __m512i c = _mm512_setzero_si512();
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        __m512i x = _mm512_add_epi64(t[j], c);
        r->l[j] = _mm512_and_si512(x, K->mask52);
        c = _mm512_srai_epi64(x, 52);
    }
    return c;
}

/* r = a - q if a >= q else a, for normalized a < 2^416 and q given by broadcast limbs. */
static inline void vfp_cond_sub(vfp_t *r, const vfp_t *a, const __m512i q[VFP_NLIMBS],
                                const vfp_consts_t *K)
{
    __m512i t[VFP_NLIMBS];
    vfp_t d;
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        t[j] = _mm512_sub_epi64(a->l[j], q[j]);
    }
    __m512i c = vfp_carry(&d, t, K);
    __mmask8 ge = _mm512_cmpeq_epi64_mask(c, _mm512_setzero_si512());
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        r->l[j] = _mm512_mask_blend_epi64(ge, a->l[j], d.l[j]);
    }
}

/* ---- arithmetic: inputs and outputs below 2p, normalized; outputs may alias inputs ---- */

static inline void vfp_add(vfp_t *r, const vfp_t *a, const vfp_t *b, const vfp_consts_t *K)
{
    __m512i t[VFP_NLIMBS];
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        t[j] = _mm512_add_epi64(a->l[j], b->l[j]);
    }
    vfp_carry(r, t, K); /* < 4p */
    vfp_cond_sub(r, r, K->p2, K);
}

static inline void vfp_sub(vfp_t *r, const vfp_t *a, const vfp_t *b, const vfp_consts_t *K)
{
    __m512i t[VFP_NLIMBS];
    vfp_t d;
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        t[j] = _mm512_sub_epi64(a->l[j], b->l[j]);
    }
    __m512i c = vfp_carry(&d, t, K); /* a - b, plus 2^416 where negative */
    __mmask8 neg = _mm512_cmpneq_epi64_mask(c, _mm512_setzero_si512());
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        t[j] = _mm512_add_epi64(d.l[j], _mm512_maskz_mov_epi64(neg, K->p2[j]));
    }
    vfp_carry(r, t, K); /* a - b + 2p where negative; the 2^416 carries out */
}

/** r = a * b / 2^384 mod p (see the top of this file). Kept out of line: inlined several times
 *  into one function, its 9 accumulators and 8 limbs of a no longer fit the 32 registers. */
__attribute__((noinline)) static void vfp_mul(vfp_t *r, const vfp_t *a, const vfp_t *b,
                                              const vfp_consts_t *K)
{
    const __m512i z = _mm512_setzero_si512();
    __m512i t[VFP_NLIMBS + 1];

    for (unsigned j = 0; j <= VFP_NLIMBS; j++) {
        t[j] = z;
    }
#pragma GCC unroll 8
    for (unsigned i = 0; i < VFP_NLIMBS; i++) {
        __m512i bi = b->l[i];
#pragma GCC unroll 8
        for (unsigned j = 0; j < VFP_NLIMBS; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], a->l[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a->l[j], bi);
        }
        __m512i m = _mm512_madd52lo_epu64(z, t[0], K->pinv);
        if (i == VFP_NLIMBS - 1) {
            m = _mm512_and_si512(m, K->mask20);
        }
#pragma GCC unroll 8
        for (unsigned j = 0; j < VFP_NLIMBS; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], m, K->p[j]);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, K->p[j]);
        }
        if (i < VFP_NLIMBS - 1) {
            /* t_0 is now a multiple of 2^52: move its carry up and drop the limb */
            t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
#pragma GCC unroll 8
            for (unsigned j = 0; j < VFP_NLIMBS; j++) {
                t[j] = t[j + 1];
            }
            t[VFP_NLIMBS] = z;
        }
    }
    /* t is a multiple of 2^20: limb j of t / 2^20 is t_j / 2^20 + (t_{j+1} mod 2^20) 2^32 */
    __m512i u[VFP_NLIMBS];
#pragma GCC unroll 8
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        u[j] = _mm512_add_epi64(_mm512_srli_epi64(t[j], 20),
                                _mm512_slli_epi64(_mm512_and_si512(t[j + 1], K->mask20), 32));
    }
    vfp_carry(r, u, K);
}

static inline void vfp_sqr(vfp_t *r, const vfp_t *a, const vfp_consts_t *K)
{
    vfp_mul(r, a, a, K);
}

/** r = a mod p, canonical (a < 2p). */
static inline void vfp_reduce(vfp_t *r, const vfp_t *a, const vfp_consts_t *K)
{
    vfp_cond_sub(r, a, K->p, K);
}

/** r = 1 (Montgomery) in the lanes of k, a elsewhere. */
static inline void vfp_set_one_mask(vfp_t *r, const vfp_t *a, __mmask8 k, const vfp_consts_t *K)
{
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        r->l[j] = _mm512_mask_blend_epi64(k, a->l[j], K->one[j]);
    }
}

/** r = -a in the lanes of k, a elsewhere. */
static inline void vfp_neg_mask(vfp_t *r, const vfp_t *a, __mmask8 k, const vfp_consts_t *K)
{
    vfp_t z, n;
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        z.l[j] = _mm512_setzero_si512();
    }
    vfp_sub(&n, &z, a, K);
    for (unsigned j = 0; j < VFP_NLIMBS; j++) {
        r->l[j] = _mm512_mask_blend_epi64(k, a->l[j], n.l[j]);
    }
}

/* ---- Fp2 = Fp[u] / (u^2 + 1) ---- */

static inline void vfp2_add(vfp2_t *r, const vfp2_t *a, const vfp2_t *b, const vfp_consts_t *K)
{
    vfp_add(&r->c0, &a->c0, &b->c0, K);
    vfp_add(&r->c1, &a->c1, &b->c1, K);
}

static inline void vfp2_sub(vfp2_t *r, const vfp2_t *a, const vfp2_t *b, const vfp_consts_t *K)
{
    vfp_sub(&r->c0, &a->c0, &b->c0, K);
    vfp_sub(&r->c1, &a->c1, &b->c1, K);
}

/** Karatsuba: (a0 + a1 u)(b0 + b1 u) = a0 b0 - a1 b1 + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. */
static inline void vfp2_mul(vfp2_t *r, const vfp2_t *a, const vfp2_t *b, const vfp_consts_t *K)
{
    vfp_t t0, t1, s, u;
    vfp_mul(&t0, &a->c0, &b->c0, K);
    vfp_mul(&t1, &a->c1, &b->c1, K);
    vfp_add(&s, &a->c0, &a->c1, K);
    vfp_add(&u, &b->c0, &b->c1, K);
    vfp_mul(&s, &s, &u, K);
    vfp_sub(&r->c0, &t0, &t1, K);
    vfp_sub(&s, &s, &t0, K);
    vfp_sub(&r->c1, &s, &t1, K);
}

/** (a0 + a1 u)^2 = (a0 + a1)(a0 - a1) + 2 a0 a1 u. */
static inline void vfp2_sqr(vfp2_t *r, const vfp2_t *a, const vfp_consts_t *K)
{
    vfp_t s, d, m;
    vfp_add(&s, &a->c0, &a->c1, K);
    vfp_sub(&d, &a->c0, &a->c1, K);
    vfp_mul(&m, &a->c0, &a->c1, K);
    vfp_mul(&r->c0, &s, &d, K);
    vfp_add(&r->c1, &m, &m, K);
}

#endif /* CUZK_MSM_MSM_VEC_H */
