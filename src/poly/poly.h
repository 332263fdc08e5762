/* poly.h - evaluation domains of size n = 2^k over Fr, the number-theoretic transform (NTT) and
 * the Groth16 quotient polynomial H (spec groth16.md sections 1.4, 4.4 and 4.5).
 * Representation: fr_t in Montgomery form everywhere; poly_to_repr() gives canonical values
 * for the MSM. All vectors are in natural order on entry and on return.
 * Domain: omega_k = ROOT_OF_UNITY^(2^(32-k)) exactly as bellperson (compatibility-critical:
 * constraint row i is the point omega^i); coset shift g = 7.
 * Memory: never allocates. A domain keeps a pointer to a caller-provided twiddle table of
 * ntt_domain_tw_sizeof(k) bytes (n/2 values: 2 GiB for k = 27); transforms work in place and
 * need no other scratch.
 * Threads: reentrant (a domain is read-only after ntt_domain_init and may be shared by threads);
 * splits work over `pool` when non-NULL. Results are identical with and without a pool.
 * Timing: variable-time.
 */
#ifndef CUZK_POLY_POLY_H
#define CUZK_POLY_POLY_H

#include "common/pool.h"
#include "field/fr.h"

/** Largest supported log2 of a domain size; bellperson refuses k >= 32 (spec 1.4). */
#define NTT_MAX_LG 31

/** An evaluation domain {omega^i : i < n}. Read-only after ntt_domain_init(). */
typedef struct ntt_domain {
    unsigned lg;      /* k = log2(n) */
    size_t n;         /* 2^k */
    fr_t omega;       /* primitive n-th root of unity, ROOT_OF_UNITY^(2^(32-k)) */
    fr_t omega_inv;   /* omega^-1 */
    fr_t n_inv;       /* n^-1 mod r */
    fr_t g;           /* coset shift, 7 */
    fr_t g_inv;       /* 7^-1 */
    fr_t z_coset_inv; /* (g^n - 1)^-1: 1/Z(x) at every point of the coset g*<omega> */
    const fr_t *tw;   /* tw[i] = omega^i for i < max(n/2, 1) (retained, caller-owned) */
    /* Pass layout (see ntt.c), set by ntt_domain_init; any blk_lg >= 1 and pass_lg >= 1 give
     * the same results, and tests shrink them to reach multi-pass layouts at small n. */
    unsigned blk_lg;  /* stages narrower than 2^blk_lg run inside contiguous blocks */
    unsigned pass_lg; /* at most this many wider stages per column pass */
} ntt_domain_t;

/** out = omega_lg = ROOT_OF_UNITY^(2^(32-lg)), a primitive 2^lg-th root of unity (Montgomery
 *  form); lg <= 32. This is the domain generator, whatever the size of any table. */
void ntt_root_of_unity(fr_t *out, unsigned lg);

/** Smallest k with 2^k >= m (k = 0 for m <= 1), as spec 4.4. False when k would be >= 32
 *  (bellperson's PolynomialDegreeTooLarge); *lg is then left unchanged. */
bool ntt_lg_for(unsigned *lg, size_t m);

/** Bytes of twiddle table a domain of size 2^lg needs: 32 * max(2^lg / 2, 1); never 0.
 *  lg <= NTT_MAX_LG. */
size_t ntt_domain_tw_sizeof(unsigned lg);

/** Sets up the domain of size 2^lg and fills its twiddle table.
 *  Out: d        the domain; keeps `tw_mem` (retained: keep it alive and unchanged while
 *                `d` is used).
 *  In:  lg       log2 of the size; false (and `d` untouched) when lg > NTT_MAX_LG.
 *       tw_mem   ntt_domain_tw_sizeof(lg) bytes, aligned for fr_t (64 bytes recommended).
 *       pool     worker pool, or NULL to run on the calling thread.
 */
bool ntt_domain_init(ntt_domain_t *d, unsigned lg, void *tw_mem, cz_pool *pool);

/* The four transforms below share one contract:
 *  In:     d     the domain (borrowed; read only, may be shared between threads).
 *  In/Out: x     d->n values, natural order in and out (borrowed).
 *  In:     pool  worker pool, or NULL to run on the calling thread.
 * Cost: (n/2) log2(n) butterflies (one fr_mul, fr_add, fr_sub each; twiddle 1 skips the mul),
 * plus one bit-reversal pass and, for the coset and inverse forms, one or two fr_mul per value.
 */

/** x = DFT_omega(x): x[j] <- sum_i x[i] omega^(i*j) (spec 4.5). Coefficients -> evaluations
 *  at omega^j. */
void ntt_fwd(const ntt_domain_t *d, fr_t *x, cz_pool *pool);

/** x = n^-1 DFT_omega^-1(x): evaluations on <omega> -> coefficients. Inverse of ntt_fwd. */
void ntt_inv(const ntt_domain_t *d, fr_t *x, cz_pool *pool);

/** Coset forward: x[i] *= g^i, then ntt_fwd. Coefficients -> evaluations at g*omega^j. */
void ntt_coset_fwd(const ntt_domain_t *d, fr_t *x, cz_pool *pool);

/** Coset inverse: ntt_inv, then x[i] *= g^-i (spec 4.5 step 5). Evaluations at g*omega^j -> coefficients.
 *  Inverse of ntt_coset_fwd. */
void ntt_coset_inv(const ntt_domain_t *d, fr_t *x, cz_pool *pool);

/** The Groth16 quotient H (spec 4.5), in place.
 *  In:  a, b, c  d->n values each (borrowed); on entry the first m hold the constraint
 *                evaluations <A_i,w>, <B_i,w>, <C_i,w> (row i <-> point omega^i); entries
 *                [m, n) need not be initialized: they are set to zero here (the padding of
 *                spec 4.4).
 *       m        number of constraints, m <= d->n.
 *       pool     worker pool, or NULL to run on the calling thread.
 *  Out: a        a[0 .. n-2] = the n-1 coefficients of h = (A*B - C) / Z, Montgomery form;
 *                a[n-1] is the coefficient of x^(n-1), zero for a satisfying witness.
 *       b, c     clobbered (used as work space).
 *  Returns true iff a[n-1] == 0. False means the assignment does not satisfy the constraints
 *  (A*B - C is not divisible by Z) and the h written is meaningless; a debug check only: a
 *  non-satisfying witness can still produce a zero top coefficient.
 */
bool poly_quotient_h(const ntt_domain_t *d, fr_t *a, fr_t *b, fr_t *c, size_t m, cz_pool *pool);

/** out[i] = canonical form of in[i] for i < n (for the H MSM over n-1 scalars). out may be the
 *  same storage as `in` (element i is read before it is written), e.g. to convert h in place
 *  inside a malloc'ed buffer. */
void poly_to_repr(fr_repr_t *out, const fr_t *in, size_t n, cz_pool *pool);

#endif /* CUZK_POLY_POLY_H */
