/* internal.h - the building blocks of the poly module, shared by its files and reachable by its
 * tests: radix-2 transforms that leave or take bit-reversed order, the bit-reversal permutation
 * and the scalings that fuse the coset shift and n^-1 into those orders.
 * Every function here works in place on a vector of 2^lg values and splits over `pool`.
 */
#ifndef CUZK_POLY_INTERNAL_H
#define CUZK_POLY_INTERNAL_H

#include "poly/poly.h"

/** Which root the transform uses: omega (forward) or omega^-1 (inverse, unscaled). */
typedef enum { NTT_DIR_FWD = 0, NTT_DIR_INV = 1 } ntt_dir;

/** Decimation in frequency (Gentleman-Sande): natural order in, bit-reversed order out:
 *  x[rev(j)] <- sum_i x[i] w^(i*j), w = omega or omega^-1. No 1/n factor. */
void ntt_dif_nr(const ntt_domain_t *d, fr_t *x, ntt_dir dir, cz_pool *pool);

/** Decimation in time (Cooley-Tukey): bit-reversed order in, natural order out:
 *  x[j] <- sum_i x[rev(i)] w^(i*j). No 1/n factor. */
void ntt_dit_rn(const ntt_domain_t *d, fr_t *x, ntt_dir dir, cz_pool *pool);

/** Bit-reversal permutation of 2^lg values: swaps x[i] and x[rev_lg(i)]. When `mul` is not NULL
 *  every value is also multiplied by *mul (once). */
void ntt_bitrev(fr_t *x, unsigned lg, const fr_t *mul, cz_pool *pool);

/** x[p] *= c * base^rev_lg(p) for p < 2^lg: scales coefficient i = rev(p) of a vector held in
 *  bit-reversed order by c * base^i. */
void ntt_scale_rev(fr_t *x, unsigned lg, const fr_t *c, const fr_t *base, cz_pool *pool);

/** x[i] *= c * base^i for i < n (natural order). */
void ntt_scale_pow(fr_t *x, size_t n, const fr_t *c, const fr_t *base, cz_pool *pool);

/** Reverses the low `bits` bits of v (bits <= 32; 0 gives 0). */
static inline uint32_t ntt_rev_bits(uint32_t v, unsigned bits)
{
    if (bits == 0) {
        return 0;
    }
    v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
    v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
    v = ((v >> 4) & 0x0f0f0f0fu) | ((v & 0x0f0f0f0fu) << 4);
    v = ((v >> 8) & 0x00ff00ffu) | ((v & 0x00ff00ffu) << 8);
    v = (v >> 16) | (v << 16);
    return v >> (32 - bits);
}

#endif /* CUZK_POLY_INTERNAL_H */
