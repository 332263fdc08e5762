/* fr.c - arithmetic in the BLS12-381 scalar field Fr (Montgomery form, R = 2^256).
 * Multiplication and squaring go through the kernels chosen at load time (internal.h);
 * addition and subtraction are inline assembly on x86-64 and C elsewhere; inversion is in
 * inv.c.
 */
#include "field/fr.h"

#include <string.h>

#include "common/bytes.h"
#include "field/bls12_381_consts.h"
#include "field/internal.h"

const fr_t FR_ZERO = {{0}};
const fr_t FR_ONE = {FR_MONT_R_INIT};

/* R^2 mod r: the Montgomery product with it converts canonical -> Montgomery. */
static const uint64_t FR_R2[FR_NLIMBS] = FR_MONT_R2_INIT;
/* 7^t, a primitive 2^32-th root of unity, Montgomery form (Tonelli-Shanks' non-residue power) */
static const fr_t FR_ROOT = {FR_ROOT_OF_UNITY_MONT_INIT};

void fr_mul_portable(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    limbs_mont_mul(out, a, b, FR_MODULUS, FR_MONT_INV, FR_NLIMBS);
}

void fr_sqr_portable(uint64_t out[4], const uint64_t a[4])
{
    limbs_mont_mul(out, a, a, FR_MODULUS, FR_MONT_INV, FR_NLIMBS);
}

void fr_add_portable(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t t[FR_NLIMBS];
    /* a + b < 2r < 2^256: no carry out of the top limb */
    limbs_add(t, a, b, FR_NLIMBS);
    limbs_reduce_once(out, t, FR_MODULUS, FR_NLIMBS);
}

void fr_sub_portable(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t t[FR_NLIMBS];
    if (limbs_sub(t, a, b, FR_NLIMBS)) {
        limbs_add(t, t, FR_MODULUS, FR_NLIMBS);
    }
    memcpy(out, t, sizeof(t));
}

void fr_add(fr_t *out, const fr_t *a, const fr_t *b)
{
#if FIELD_HAVE_X86_ADDSUB
    /* t = a + b (< 2r, no carry out); s = t - r; keep s unless that borrowed */
    uint64_t t0, t1, t2, t3, s0, s1;
    const uint64_t *pa = a->l, *pb = b->l;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "addq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "adcq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "adcq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "adcq 24(%[b]), %[t3]\n\t"
            "movq %[t0], %[s0]\n\t"
            "subq %[m0], %[s0]\n\t"
            "movq %[t1], %[s1]\n\t"
            "sbbq %[m1], %[s1]\n\t"
            "movq %[t2], %[a]\n\t"
            "sbbq %[m2], %[a]\n\t"
            "movq %[t3], %[b]\n\t"
            "sbbq %[m3], %[b]\n\t"
            "cmovncq %[s0], %[t0]\n\t"
            "cmovncq %[s1], %[t1]\n\t"
            "cmovncq %[a], %[t2]\n\t"
            "cmovncq %[b], %[t3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0),
              [s1] "=&r"(s1), [a] "+r"(pa), [b] "+r"(pb)
            : [m0] "m"(FR_MODULUS[0]), [m1] "m"(FR_MODULUS[1]), [m2] "m"(FR_MODULUS[2]),
              [m3] "m"(FR_MODULUS[3])
            : "cc", "memory");
    out->l[0] = t0;
    out->l[1] = t1;
    out->l[2] = t2;
    out->l[3] = t3;
#else
    fr_add_portable(out->l, a->l, b->l);
#endif
}

void fr_sub(fr_t *out, const fr_t *a, const fr_t *b)
{
#if FIELD_HAVE_X86_ADDSUB
    /* t = a - b; mask = borrow ? ~0 : 0; t += r & mask */
    uint64_t t0, t1, t2, t3, s0, s1, mask;
    const uint64_t *pa = a->l, *pb = b->l;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "subq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "sbbq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "sbbq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "sbbq 24(%[b]), %[t3]\n\t"
            "sbbq %[mask], %[mask]\n\t"
            "movq %[m0], %[s0]\n\t"
            "andq %[mask], %[s0]\n\t"
            "movq %[m1], %[s1]\n\t"
            "andq %[mask], %[s1]\n\t"
            "movq %[m2], %[a]\n\t"
            "andq %[mask], %[a]\n\t"
            "andq %[m3], %[mask]\n\t"
            "addq %[s0], %[t0]\n\t"
            "adcq %[s1], %[t1]\n\t"
            "adcq %[a], %[t2]\n\t"
            "adcq %[mask], %[t3]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [s0] "=&r"(s0),
              [s1] "=&r"(s1), [mask] "=&r"(mask), [a] "+r"(pa), [b] "+r"(pb)
            : [m0] "m"(FR_MODULUS[0]), [m1] "m"(FR_MODULUS[1]), [m2] "m"(FR_MODULUS[2]),
              [m3] "m"(FR_MODULUS[3])
            : "cc", "memory");
    out->l[0] = t0;
    out->l[1] = t1;
    out->l[2] = t2;
    out->l[3] = t3;
#else
    fr_sub_portable(out->l, a->l, b->l);
#endif
}

void fr_neg(fr_t *out, const fr_t *a)
{
    /* 0 - a: r - a for a != 0, and 0 for 0 */
    fr_sub(out, &FR_ZERO, a);
}

void fr_dbl(fr_t *out, const fr_t *a)
{
    fr_add(out, a, a);
}

void fr_mul(fr_t *out, const fr_t *a, const fr_t *b)
{
    fr_mul_kernel(out->l, a->l, b->l);
}

void fr_sqr(fr_t *out, const fr_t *a)
{
    fr_sqr_kernel(out->l, a->l);
}

#define FE     fr_t
#define FE_MUL fr_mul
#define FE_SQR fr_sqr
#define FE_ONE FR_ONE
#define FE_POW fr_pow
#include "field/pow_impl.h"

void fr_pow_u64(fr_t *out, const fr_t *a, uint64_t e)
{
    fr_pow(out, a, &e, 1);
}

void fr_inv(fr_t *out, const fr_t *a)
{
    /* Bernstein-Yang safegcd (inv.c); tests compare with Fermat's a^(r-2) */
    fr_inv_limbs(out->l, a->l);
}

bool fr_sqrt(fr_t *out, const fr_t *a)
{
    /* Tonelli-Shanks with r - 1 = 2^S * t, S = 32, and the fixed non-residue 7, whose
     * power 7^t = FR_ROOT generates the 2-Sylow subgroup. Invariants of the loop:
     * x^2 = a * b, b has order 2^k with k < m, and c has order 2^m. */
    fr_t w, x, b, c, t;
    unsigned m = FR_TWO_ADICITY;

    if (fr_is_zero(a)) {
        *out = FR_ZERO;
        return true;
    }
    fr_pow(&w, a, FR_TRACE_M1_HALF, FR_NLIMBS); /* a^((t-1)/2) */
    fr_mul(&x, a, &w);                          /* a^((t+1)/2) */
    fr_mul(&b, &x, &w);                         /* a^t */
    c = FR_ROOT;
    while (!fr_is_one(&b)) {
        unsigned k = 0;
        t = b;
        while (!fr_is_one(&t)) {
            fr_sqr(&t, &t);
            k++;
            if (k == m) {
                return false; /* b's order is 2^m: a is not a square */
            }
        }
        /* w = c^(2^(m-k-1)) */
        w = c;
        for (unsigned i = 0; i + k + 1 < m; i++) {
            fr_sqr(&w, &w);
        }
        m = k;
        fr_sqr(&c, &w);
        fr_mul(&x, &x, &w);
        fr_mul(&b, &b, &c);
    }
    fr_sqr(&t, &x);
    if (!fr_eq(&t, a)) {
        return false;
    }
    *out = x;
    return true;
}

bool fr_is_zero(const fr_t *a)
{
    return limbs_is_zero(a->l, FR_NLIMBS);
}

bool fr_is_one(const fr_t *a)
{
    return fr_eq(a, &FR_ONE);
}

bool fr_eq(const fr_t *a, const fr_t *b)
{
    return memcmp(a->l, b->l, sizeof(a->l)) == 0;
}

void fr_batch_inv(fr_t *out, const fr_t *in, size_t n, fr_t *scratch)
{
    /* Montgomery's trick: scratch[i] = product of the non-zero in[0..i-1]; one inversion of
     * the full product, then walk back peeling one factor at a time. Zeros are skipped (their
     * prefix entry repeats) and map to zero. Reading in[i] before writing out[i] keeps
     * out == in safe. */
    fr_t acc = FR_ONE, inv;

    if (n == 0) {
        return;
    }
    CZ_CHECK(out != NULL && in != NULL && scratch != NULL);
    for (size_t i = 0; i < n; i++) {
        scratch[i] = acc;
        if (!fr_is_zero(&in[i])) {
            fr_mul(&acc, &acc, &in[i]);
        }
    }
    fr_inv(&inv, &acc);
    for (size_t i = n; i-- > 0;) {
        if (fr_is_zero(&in[i])) {
            out[i] = FR_ZERO;
            continue;
        }
        fr_t x = in[i];
        fr_mul(&out[i], &inv, &scratch[i]);
        fr_mul(&inv, &inv, &x);
    }
}

void fr_from_u64(fr_t *out, uint64_t v)
{
    const uint64_t t[FR_NLIMBS] = {v};
    fr_mul_kernel(out->l, t, FR_R2);
}

void fr_wide_reduce(fr_t *out, fr_wide_t acc)
{
    fr_t lo, hi;

    /* acc = lo + top * 2^256 with lo < 2^256 < 3r: two conditional subtractions reduce lo */
    limbs_reduce_once(lo.l, acc.l, FR_MODULUS, FR_NLIMBS);
    limbs_reduce_once(lo.l, lo.l, FR_MODULUS, FR_NLIMBS);
    if (acc.l[FR_NLIMBS] == 0) {
        *out = lo;
        return;
    }
    /* top * 2^256 mod r is the Montgomery representation of the integer top */
    fr_from_u64(&hi, acc.l[FR_NLIMBS]);
    fr_add(out, &lo, &hi);
}

bool fr_from_repr(fr_t *out, const fr_repr_t *repr)
{
    if (!limbs_lt(repr->l, FR_MODULUS, FR_NLIMBS)) {
        return false;
    }
    fr_mul_kernel(out->l, repr->l, FR_R2);
    return true;
}

void fr_to_repr(fr_repr_t *out, const fr_t *a)
{
    static const uint64_t one[FR_NLIMBS] = {1};
    fr_mul_kernel(out->l, a->l, one);
}

void fr_from_u256_reduce(fr_t *out, const uint64_t v[4])
{
    /* v < 2^256 < 3r: at most two subtractions of r */
    fr_repr_t t;
    memcpy(t.l, v, sizeof(t.l));
    limbs_reduce_once(t.l, t.l, FR_MODULUS, FR_NLIMBS);
    limbs_reduce_once(t.l, t.l, FR_MODULUS, FR_NLIMBS);
    fr_mul_kernel(out->l, t.l, FR_R2);
}

cuzk_err fr_from_bytes(fr_t *out, const uint8_t in[FR_NBYTES])
{
    fr_repr_t r;
    for (size_t i = 0; i < FR_NLIMBS; i++) {
        r.l[i] = cz_load_le64(in + 8 * i);
    }
    return fr_from_repr(out, &r) ? CUZK_OK : CUZK_E_FORMAT;
}

void fr_to_bytes(uint8_t out[FR_NBYTES], const fr_t *a)
{
    fr_repr_t r;
    fr_to_repr(&r, a);
    fr_repr_to_bytes(out, &r);
}

void fr_repr_to_bytes(uint8_t out[FR_NBYTES], const fr_repr_t *r)
{
    for (size_t i = 0; i < FR_NLIMBS; i++) {
        cz_store_le64(out + 8 * i, r->l[i]);
    }
}

const char *fr_impl_name(void)
{
    return field_using_adx() ? "adx" : "portable";
}
