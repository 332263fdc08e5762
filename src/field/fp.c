/* fp.c - arithmetic in the BLS12-381 base field Fp (Montgomery form, R = 2^384).
 * Multiplication and squaring go through the kernels chosen at load time (internal.h);
 * addition and subtraction are inline assembly on x86-64 and C elsewhere; inversion is in
 * inv.c; the rest is C on top of these.
 */
#include "field/fp.h"

#include <string.h>

#include "common/bytes.h"
#include "field/bls12_381_consts.h"
#include "field/internal.h"

const fp_t FP_ZERO = {{0}};
const fp_t FP_ONE = {FP_MONT_R_INIT};

/* R^2 mod p as an fp_t: the Montgomery product with it converts canonical -> Montgomery. */
static const fp_t FP_R2 = {FP_MONT_R2_INIT};

void fp_mul_portable(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    limbs_mont_mul(out, a, b, FP_MODULUS, FP_MONT_INV, FP_NLIMBS);
}

void fp_sqr_portable(uint64_t out[6], const uint64_t a[6])
{
    limbs_mont_mul(out, a, a, FP_MODULUS, FP_MONT_INV, FP_NLIMBS);
}

void fp_add_portable(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t t[FP_NLIMBS];
    /* a + b < 2p < 2^382: no carry out of the top limb */
    limbs_add(t, a, b, FP_NLIMBS);
    limbs_reduce_once(out, t, FP_MODULUS, FP_NLIMBS);
}

void fp_sub_portable(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t t[FP_NLIMBS];
    if (limbs_sub(t, a, b, FP_NLIMBS)) {
        limbs_add(t, t, FP_MODULUS, FP_NLIMBS);
    }
    memcpy(out, t, sizeof(t));
}

void fp_add(fp_t *out, const fp_t *a, const fp_t *b)
{
#if FIELD_HAVE_X86_ADDSUB
    /* t = a + b (< 2p, no carry out); s = t - p; keep s unless that borrowed */
    uint64_t t0, t1, t2, t3, t4, t5, s0, s1, s2, s3;
    const uint64_t *pa = a->l, *pb = b->l;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "addq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "adcq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "adcq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "adcq 24(%[b]), %[t3]\n\t"
            "movq 32(%[a]), %[t4]\n\t"
            "adcq 32(%[b]), %[t4]\n\t"
            "movq 40(%[a]), %[t5]\n\t"
            "adcq 40(%[b]), %[t5]\n\t"
            "movq %[t0], %[s0]\n\t"
            "subq %[m0], %[s0]\n\t"
            "movq %[t1], %[s1]\n\t"
            "sbbq %[m1], %[s1]\n\t"
            "movq %[t2], %[s2]\n\t"
            "sbbq %[m2], %[s2]\n\t"
            "movq %[t3], %[s3]\n\t"
            "sbbq %[m3], %[s3]\n\t"
            "movq %[t4], %[a]\n\t"
            "sbbq %[m4], %[a]\n\t"
            "movq %[t5], %[b]\n\t"
            "sbbq %[m5], %[b]\n\t"
            "cmovncq %[s0], %[t0]\n\t"
            "cmovncq %[s1], %[t1]\n\t"
            "cmovncq %[s2], %[t2]\n\t"
            "cmovncq %[s3], %[t3]\n\t"
            "cmovncq %[a], %[t4]\n\t"
            "cmovncq %[b], %[t5]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [a] "+r"(pa), [b] "+r"(pb)
            : [m0] "m"(FP_MODULUS[0]), [m1] "m"(FP_MODULUS[1]), [m2] "m"(FP_MODULUS[2]),
              [m3] "m"(FP_MODULUS[3]), [m4] "m"(FP_MODULUS[4]), [m5] "m"(FP_MODULUS[5])
            : "cc", "memory");
    out->l[0] = t0;
    out->l[1] = t1;
    out->l[2] = t2;
    out->l[3] = t3;
    out->l[4] = t4;
    out->l[5] = t5;
#else
    fp_add_portable(out->l, a->l, b->l);
#endif
}

void fp_sub(fp_t *out, const fp_t *a, const fp_t *b)
{
#if FIELD_HAVE_X86_ADDSUB
    /* t = a - b; mask = borrow ? ~0 : 0; t += p & mask */
    uint64_t t0, t1, t2, t3, t4, t5, s0, s1, s2, s3, mask;
    const uint64_t *pa = a->l, *pb = b->l;
    __asm__("movq 0(%[a]), %[t0]\n\t"
            "subq 0(%[b]), %[t0]\n\t"
            "movq 8(%[a]), %[t1]\n\t"
            "sbbq 8(%[b]), %[t1]\n\t"
            "movq 16(%[a]), %[t2]\n\t"
            "sbbq 16(%[b]), %[t2]\n\t"
            "movq 24(%[a]), %[t3]\n\t"
            "sbbq 24(%[b]), %[t3]\n\t"
            "movq 32(%[a]), %[t4]\n\t"
            "sbbq 32(%[b]), %[t4]\n\t"
            "movq 40(%[a]), %[t5]\n\t"
            "sbbq 40(%[b]), %[t5]\n\t"
            "sbbq %[mask], %[mask]\n\t"
            "movq %[m0], %[s0]\n\t"
            "andq %[mask], %[s0]\n\t"
            "movq %[m1], %[s1]\n\t"
            "andq %[mask], %[s1]\n\t"
            "movq %[m2], %[s2]\n\t"
            "andq %[mask], %[s2]\n\t"
            "movq %[m3], %[s3]\n\t"
            "andq %[mask], %[s3]\n\t"
            "movq %[m4], %[a]\n\t"
            "andq %[mask], %[a]\n\t"
            "andq %[m5], %[mask]\n\t"
            "addq %[s0], %[t0]\n\t"
            "adcq %[s1], %[t1]\n\t"
            "adcq %[s2], %[t2]\n\t"
            "adcq %[s3], %[t3]\n\t"
            "adcq %[a], %[t4]\n\t"
            "adcq %[mask], %[t5]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [s0] "=&r"(s0), [s1] "=&r"(s1), [s2] "=&r"(s2), [s3] "=&r"(s3),
              [mask] "=&r"(mask), [a] "+r"(pa), [b] "+r"(pb)
            : [m0] "m"(FP_MODULUS[0]), [m1] "m"(FP_MODULUS[1]), [m2] "m"(FP_MODULUS[2]),
              [m3] "m"(FP_MODULUS[3]), [m4] "m"(FP_MODULUS[4]), [m5] "m"(FP_MODULUS[5])
            : "cc", "memory");
    out->l[0] = t0;
    out->l[1] = t1;
    out->l[2] = t2;
    out->l[3] = t3;
    out->l[4] = t4;
    out->l[5] = t5;
#else
    fp_sub_portable(out->l, a->l, b->l);
#endif
}

void fp_neg(fp_t *out, const fp_t *a)
{
    /* 0 - a: p - a for a != 0, and 0 for 0 */
    fp_sub(out, &FP_ZERO, a);
}

void fp_dbl(fp_t *out, const fp_t *a)
{
    fp_add(out, a, a);
}

void fp_half(fp_t *out, const fp_t *a)
{
    uint64_t t[FP_NLIMBS];
    /* a odd: a + p is even and < 2^382, so the halving fits in 6 limbs */
    if (a->l[0] & 1) {
        limbs_add(t, a->l, FP_MODULUS, FP_NLIMBS);
    } else {
        memcpy(t, a->l, sizeof(t));
    }
    for (size_t i = 0; i < FP_NLIMBS - 1; i++) {
        out->l[i] = (t[i] >> 1) | (t[i + 1] << 63);
    }
    out->l[FP_NLIMBS - 1] = t[FP_NLIMBS - 1] >> 1;
}

void fp_mul(fp_t *out, const fp_t *a, const fp_t *b)
{
    fp_mul_kernel(out->l, a->l, b->l);
}

void fp_sqr(fp_t *out, const fp_t *a)
{
    fp_sqr_kernel(out->l, a->l);
}

#include "field/fe_fp.h" /* FE, FE_MUL, ..., bound to the field */
#define FE_POW fp_pow
#include "field/pow_impl.h"

void fp_inv(fp_t *out, const fp_t *a)
{
    /* Bernstein-Yang safegcd (inv.c); tests compare with Fermat's a^(p-2) */
    fp_inv_limbs(out->l, a->l);
}

bool fp_sqrt(fp_t *out, const fp_t *a)
{
    fp_t s, chk;

    /* p = 3 mod 4: a^((p+1)/4) squares to a whenever a is a square */
    fp_pow(&s, a, FP_SQRT_EXP, FP_NLIMBS);
    fp_sqr(&chk, &s);
    if (!fp_eq(&chk, a)) {
        return false;
    }
    *out = s;
    return true;
}

bool fp_is_square(const fp_t *a)
{
    fp_t t;

    /* Euler's criterion: a^((p-1)/2) is 1 for non-zero squares, p-1 for non-squares */
    if (fp_is_zero(a)) {
        return true;
    }
    fp_pow(&t, a, FP_LEGENDRE_EXP, FP_NLIMBS);
    return fp_is_one(&t);
}

bool fp_is_zero(const fp_t *a)
{
    return limbs_is_zero(a->l, FP_NLIMBS);
}

bool fp_is_one(const fp_t *a)
{
    return fp_eq(a, &FP_ONE);
}

bool fp_eq(const fp_t *a, const fp_t *b)
{
    return memcmp(a->l, b->l, sizeof(a->l)) == 0;
}

bool fp_is_lexicographically_largest(const fp_t *a)
{
    uint64_t v[FP_NLIMBS];
    fp_to_limbs(v, a);
    return limbs_lt(FP_HALF_MODULUS, v, FP_NLIMBS);
}

bool fp_from_limbs(fp_t *out, const uint64_t v[FP_NLIMBS])
{
    if (!limbs_lt(v, FP_MODULUS, FP_NLIMBS)) {
        return false;
    }
    fp_mul_kernel(out->l, v, FP_R2.l);
    return true;
}

void fp_to_limbs(uint64_t v[FP_NLIMBS], const fp_t *a)
{
    static const uint64_t one[FP_NLIMBS] = {1};
    /* Montgomery product with 1 divides by R */
    fp_mul_kernel(v, a->l, one);
}

void fp_from_u64(fp_t *out, uint64_t v)
{
    const uint64_t t[FP_NLIMBS] = {v};
    fp_mul_kernel(out->l, t, FP_R2.l);
}

cuzk_err fp_from_bytes(fp_t *out, const uint8_t in[FP_NBYTES])
{
    uint64_t v[FP_NLIMBS];
    for (size_t i = 0; i < FP_NLIMBS; i++) {
        v[i] = cz_load_be64(in + 8 * (FP_NLIMBS - 1 - i));
    }
    return fp_from_limbs(out, v) ? CUZK_OK : CUZK_E_FORMAT;
}

void fp_to_bytes(uint8_t out[FP_NBYTES], const fp_t *a)
{
    uint64_t v[FP_NLIMBS];
    fp_to_limbs(v, a);
    for (size_t i = 0; i < FP_NLIMBS; i++) {
        cz_store_be64(out + 8 * (FP_NLIMBS - 1 - i), v[i]);
    }
}

const char *fp_impl_name(void)
{
    return field_using_adx() ? "adx" : "portable";
}
