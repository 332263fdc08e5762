/* quotient.c - the Groth16 quotient polynomial H (spec groth16.md 4.5).
 *
 * Spec 4.5, per vector v in (a, b, c): v = iNTT(v) (coefficients), v[i] *= g^i, v = NTT(v)
 * (evaluations on the coset g<omega>); then a = (a b - c) / Z with Z = g^n - 1 on the whole
 * coset, and a = icosetNTT(a). We compute the same values in fewer passes:
 *   - the iNTT is a DIF with omega^-1, which leaves the coefficients in bit-reversed order;
 *     n^-1 and g^i are applied there (ntt_scale_rev), and the DIT forward transform takes
 *     bit-reversed order back to natural order: no permutation pass for a, b, c;
 *   - the final inverse coset transform is DIF with omega^-1, scaling by n^-1 g^-i in
 *     bit-reversed order, and one bit-reversal pass;
 *   - C's coset values are never computed: the inverse coset transform of A B's coset values is
 *     A B mod (x^n - g^n) = H (g^n - 1) + C (A B = H Z + C, Z = x^n - 1, degrees below n), so
 *     h = (icosetNTT(a b) - C) / (g^n - 1) with C's coefficients from its inverse transform
 *     alone: six transforms instead of seven (a and b two each, c one, the last one).
 *     For any a, b, c both forms give (A B - C) mod (x^n - g^n) / (g^n - 1).
 * Field arithmetic is exact, so the result equals the spec's step-by-step computation.
 */
#include "poly/poly.h"

#include "poly/internal.h"

/* Values per task of the element-wise loops. */
#define QUOT_GRAIN 4096

struct zero_ctx {
    fr_t *v[3];
    size_t m;
};

static void zero_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct zero_ctx *z = vctx;

    (void)worker;
    for (size_t i = begin; i < end; i++) {
        for (unsigned j = 0; j < 3; j++) {
            z->v[j][z->m + i] = FR_ZERO;
        }
    }
}

struct abc_ctx {
    fr_t *a;
    const fr_t *b;
    const fr_t *c;
    fr_t zinv;
};

/* a[j] = a[j] b[j] (values at g omega^j) */
static void ab_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct abc_ctx *q = vctx;

    (void)worker;
    for (size_t i = begin; i < end; i++) {
        fr_mul(&q->a[i], &q->a[i], &q->b[i]);
    }
}

/* a[j] = (a[j] - c[j]) / (g^n - 1) (coefficients) */
static void sub_c_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct abc_ctx *q = vctx;

    (void)worker;
    for (size_t i = begin; i < end; i++) {
        fr_sub(&q->a[i], &q->a[i], &q->c[i]);
        fr_mul(&q->a[i], &q->a[i], &q->zinv);
    }
}

bool poly_quotient_h(const ntt_domain_t *d, fr_t *a, fr_t *b, fr_t *c, size_t m, cz_pool *pool)
{
    size_t n = d->n;

    CZ_CHECK(a && b && c);
    CZ_CHECK(m <= n);
    CZ_CHECK(a != b && a != c && b != c);

    struct zero_ctx z = {.v = {a, b, c}, .m = m};
    cz_pool_for(pool, n - m, QUOT_GRAIN, zero_task, &z);

    fr_t *v[2] = {a, b};
    for (unsigned j = 0; j < 2; j++) {
        ntt_dif_nr(d, v[j], NTT_DIR_INV, pool);             /* n * coefficients, bitrev */
        ntt_scale_rev(v[j], d->lg, &d->n_inv, &d->g, pool); /* coefficient i *= g^i / n */
        ntt_dit_rn(d, v[j], NTT_DIR_FWD, pool);             /* values at g omega^j */
    }
    ntt_dif_nr(d, c, NTT_DIR_INV, pool);   /* n * C's coefficients, bitrev */
    ntt_bitrev(c, d->lg, &d->n_inv, pool); /* C's coefficients */

    struct abc_ctx q = {.a = a, .b = b, .c = c, .zinv = d->z_coset_inv};
    cz_pool_for(pool, n, QUOT_GRAIN, ab_task, &q);
    ntt_coset_inv(d, a, pool); /* H (g^n - 1) + C */
    cz_pool_for(pool, n, QUOT_GRAIN, sub_c_task, &q);
    return fr_is_zero(&a[n - 1]);
}

struct repr_ctx {
    fr_repr_t *out;
    const fr_t *in;
};

static void repr_task(void *vctx, size_t begin, size_t end, unsigned worker)
{
    const struct repr_ctx *r = vctx;

    (void)worker;
    for (size_t i = begin; i < end; i++) {
        fr_t t = r->in[i]; /* read before the write: out may be the same storage */
        fr_to_repr(&r->out[i], &t);
    }
}

void poly_to_repr(fr_repr_t *out, const fr_t *in, size_t n, cz_pool *pool)
{
    struct repr_ctx r = {.out = out, .in = in};

    cz_pool_for(pool, n, QUOT_GRAIN, repr_task, &r);
}
