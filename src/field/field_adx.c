/* field_adx.c - Montgomery multiplication for Fp (6 limbs) and Fr (4 limbs) in x86-64 inline
 * assembly with MULX (BMI2) and ADCX/ADOX (ADX). Selected at run time by dispatch.c only when
 * the CPU has both extensions; tests compare every kernel with the portable one.
 *
 * Algorithm: CIOS (Koc, Acar, Kaliski 1996) with the "no-carry" shortcut of internal.h's
 * limbs_mont_mul (valid because the top limb of p and of r is below 2^63 - 1): t stays below
 * 2m < 2^(64n) between rounds, so n registers hold it and one more absorbs each round's top.
 * Each round i:
 *   1. t += a * b[i]: MULX gives each 128-bit product a[j] * b[i] without touching flags; the
 *      low halves are added into t[j] on the OF chain (ADOX) and the high halves into t[j+1]
 *      on the CF chain (ADCX), so the two carry chains run side by side.
 *   2. k = t[0] * (-m^-1 mod 2^64); t = (t + k * m) / 2^64: the same two chains with k in RDX;
 *      the low limb becomes zero and the register that held it is reused as the next top.
 * The register holding t[0] therefore rotates: round i works on T(i), ..., T(i+n) (mod n+1).
 * Finally t - m is computed into spare registers and kept when it does not borrow (CMOV), so
 * the result is fully reduced without a branch.
 *
 * Operand conventions in the templates: %[a], %[b] hold the input pointers (clobbered by the
 * final subtraction, hence "+r"), %[mJ] the modulus limbs in memory, %[inv] -m^-1 mod 2^64,
 * %[lo]/%[hi] scratch, RDX the MULX multiplier.
 */
#include "field/internal.h"

#if FIELD_HAVE_ADX_KERNELS

#    include "field/bls12_381_consts.h"

/* Each kernel is one asm statement whose template is longer than the 4095 characters ISO C
 * promises to support; GCC and Clang accept it, and only Clang's -Wpedantic says so. */
#    pragma GCC diagnostic ignored "-Woverlength-strings"

static const uint64_t FP_INV_CONST = FP_MONT_INV;
static const uint64_t FR_INV_CONST = FR_MONT_INV;

/* clang-format off: one instruction per line reads better than clang-format's packing */
#    define R_(x) "%[" #    x "]"
#    define NL    "\n\t"

/* ---- one multiply-accumulate step and one reduction step (j-th limb) ---- */

/* lo:hi = a[j] * rdx; lo -> Tj (OF chain), hi -> Tj1 (CF chain) */
#    define MAC(J8, Tj, Tj1)                                                                       \
        "mulxq " #J8 "(%[a]), %[lo], %[hi]" NL "adoxq %[lo], " R_(Tj) NL "adcxq %[hi], " R_(Tj1) NL

/* lo:hi = m[j] * rdx; lo -> Tj (CF chain), hi -> Tj1 (OF chain) */
#    define RED(MJ, Tj, Tj1)                                                                       \
        "mulxq " R_(MJ) ", %[lo], %[hi]" NL "adcxq %[lo], " R_(Tj) NL "adoxq %[hi], " R_(Tj1) NL

/* ---- Fp: 6 limbs, registers t0..t6 ---- */

/* Round 0: T0..T6 = a * b[0] (no accumulation). */
#    define FP_FIRST(T0, T1, T2, T3, T4, T5, T6)                                                   \
        "movq 0(%[b]), %%rdx" NL "xorl %k[lo], %k[lo]" NL "mulxq 0(%[a]), " R_(T0) ", " R_(T1) NL  \
            "mulxq 8(%[a]), %[lo], " R_(T2) NL "adcxq %[lo], " R_(T1) NL                           \
            "mulxq 16(%[a]), %[lo], " R_(T3) NL "adcxq %[lo], " R_(T2) NL                          \
            "mulxq 24(%[a]), %[lo], " R_(T4) NL "adcxq %[lo], " R_(T3) NL                          \
            "mulxq 32(%[a]), %[lo], " R_(T5) NL "adcxq %[lo], " R_(T4) NL                          \
            "mulxq 40(%[a]), %[lo], " R_(T6) NL "adcxq %[lo], " R_(T5) NL                          \
            "movl $0, %k[lo]" NL "adcxq %[lo], " R_(T6) NL

/* Round i > 0: T0..T5 hold t; T6 receives the new top limb. */
#    define FP_ROUND(OFF, T0, T1, T2, T3, T4, T5, T6)                                              \
        "movq " #OFF "(%[b]), %%rdx" NL "xorl %k[lo], %k[lo]" NL MAC(0, T0, T1) MAC(8, T1, T2)     \
            MAC(16, T2, T3) MAC(24, T3, T4) MAC(32, T4, T5) "mulxq 40(%[a]), %[lo], " R_(T6) NL    \
            "adoxq %[lo], " R_(T5) NL "movl $0, %k[lo]" NL "adcxq %[lo], " R_(T6) NL               \
            "adoxq %[lo], " R_(T6) NL

/* Reduction: T0 becomes 0; t/2^64 is left in T1..T6. */
#    define FP_REDUCE(T0, T1, T2, T3, T4, T5, T6)                                                  \
        "movq " R_(T0) ", %%rdx" NL "imulq %[inv], %%rdx" NL "xorl %k[lo], %k[lo]" NL RED(         \
            m0, T0, T1) RED(m1, T1, T2) RED(m2, T2, T3) RED(m3, T3, T4) RED(m4, T4, T5)            \
            RED(m5, T5, T6) "movl $0, %k[lo]" NL "adcxq %[lo], " R_(T6) NL

/* Result in T0..T5 (< 2p): subtract p into spare registers, keep the difference unless it
 * borrowed. */
#    define FP_FINAL(T0, T1, T2, T3, T4, T5)                                                       \
        "movq " R_(T0) ", " R_(t6) NL "subq %[m0], " R_(t6) NL                                     \
            "movq " R_(T1) ", %[lo]" NL "sbbq %[m1], %[lo]" NL                                     \
                           "movq " R_(T2) ", %[hi]" NL "sbbq %[m2], %[hi]" NL "movq " R_(          \
                               T3) ", %%rdx" NL "sbbq %[m3], %%rdx" NL                             \
                                   "movq " R_(T4) ", %[a]" NL "sbbq %[m4], %[a]" NL                \
                                                  "movq " R_(T5) ", %[b]" NL "sbbq %[m5], %[b]" NL \
                                                                 "cmovncq " R_(t6) ", " R_(T0) NL  \
            "cmovncq %[lo], " R_(T1) NL "cmovncq %[hi], " R_(T2) NL "cmovncq %%rdx, " R_(T3) NL    \
            "cmovncq %[a], " R_(T4) NL "cmovncq %[b], " R_(T5) NL

void fp_mul_adx(uint64_t out[6], const uint64_t a[6], const uint64_t b[6])
{
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, rdx;
    const uint64_t *pa = a, *pb = b;

    /* After round i and its reduction, t sits in t(i+1) .. t(i+6) (indices mod 7): after the
     * sixth, in t6, t0, t1, t2, t3, t4, with t5 zero. */
    __asm__(FP_FIRST(t0, t1, t2, t3, t4, t5, t6) FP_REDUCE(t0, t1, t2, t3, t4, t5, t6)
                FP_ROUND(8, t1, t2, t3, t4, t5, t6, t0) FP_REDUCE(t1, t2, t3, t4, t5, t6, t0)
                    FP_ROUND(16, t2, t3, t4, t5, t6, t0, t1) FP_REDUCE(t2, t3, t4, t5, t6, t0, t1)
                        FP_ROUND(24, t3, t4, t5, t6, t0, t1, t2)
                            FP_REDUCE(t3, t4, t5, t6, t0, t1, t2)
                                FP_ROUND(32, t4, t5, t6, t0, t1, t2, t3)
                                    FP_REDUCE(t4, t5, t6, t0, t1, t2, t3)
                                        FP_ROUND(40, t5, t6, t0, t1, t2, t3, t4)
                                            FP_REDUCE(t5, t6, t0, t1, t2, t3, t4)
            /* move the low limb to t5, so that FP_FINAL may use t6 as its spare */
            "movq " R_(t6) ", " R_(t5) NL FP_FINAL(t5, t0, t1, t2, t3, t4)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi),
              "=&d"(rdx), [a] "+r"(pa), [b] "+r"(pb)
            : [m0] "m"(FP_MODULUS[0]), [m1] "m"(FP_MODULUS[1]), [m2] "m"(FP_MODULUS[2]),
              [m3] "m"(FP_MODULUS[3]), [m4] "m"(FP_MODULUS[4]), [m5] "m"(FP_MODULUS[5]),
              [inv] "m"(FP_INV_CONST)
            : "cc", "memory");
    out[0] = t5;
    out[1] = t0;
    out[2] = t1;
    out[3] = t2;
    out[4] = t3;
    out[5] = t4;
}

void fp_sqr_adx(uint64_t out[6], const uint64_t a[6])
{
    fp_mul_adx(out, a, a);
}

/* ---- Fr: 4 limbs, registers t0..t4 ---- */

#    define FR_FIRST(T0, T1, T2, T3, T4)                                                           \
        "movq 0(%[b]), %%rdx" NL "xorl %k[lo], %k[lo]" NL "mulxq 0(%[a]), " R_(T0) ", " R_(T1) NL  \
            "mulxq 8(%[a]), %[lo], " R_(T2) NL "adcxq %[lo], " R_(T1) NL                           \
            "mulxq 16(%[a]), %[lo], " R_(T3) NL "adcxq %[lo], " R_(T2) NL                          \
            "mulxq 24(%[a]), %[lo], " R_(T4) NL "adcxq %[lo], " R_(T3) NL                          \
            "movl $0, %k[lo]" NL "adcxq %[lo], " R_(T4) NL

#    define FR_ROUND(OFF, T0, T1, T2, T3, T4)                                                      \
        "movq " #OFF "(%[b]), %%rdx" NL "xorl %k[lo], %k[lo]" NL MAC(0, T0, T1) MAC(8, T1, T2)     \
            MAC(16, T2, T3) "mulxq 24(%[a]), %[lo], " R_(T4) NL "adoxq %[lo], " R_(T3) NL          \
            "movl $0, %k[lo]" NL "adcxq %[lo], " R_(T4) NL "adoxq %[lo], " R_(T4) NL

#    define FR_REDUCE(T0, T1, T2, T3, T4)                                                          \
        "movq " R_(T0) ", %%rdx" NL "imulq %[inv], %%rdx" NL "xorl %k[lo], %k[lo]" NL RED(         \
            m0, T0, T1) RED(m1, T1, T2) RED(m2, T2, T3) RED(m3, T3, T4) "movl $0, %k[lo]" NL       \
                                                                        "adcxq %[lo], " R_(T4) NL

/* Result in T0..T3 (< 2r), SP a free register. */
#    define FR_FINAL(T0, T1, T2, T3, SP)                                                           \
        "movq " R_(T0) ", " R_(SP) NL "subq %[m0], " R_(SP) NL                                     \
            "movq " R_(T1) ", %[lo]" NL "sbbq %[m1], %[lo]" NL                                     \
                           "movq " R_(T2) ", %[hi]" NL "sbbq %[m2], %[hi]" NL                      \
                                          "movq " R_(T3) ", %%rdx" NL "sbbq %[m3], %%rdx" NL       \
                                                         "cmovncq " R_(SP) ", " R_(T0) NL          \
            "cmovncq %[lo], " R_(T1) NL "cmovncq %[hi], " R_(T2) NL "cmovncq %%rdx, " R_(T3) NL

void fr_mul_adx(uint64_t out[4], const uint64_t a[4], const uint64_t b[4])
{
    uint64_t t0, t1, t2, t3, t4, lo, hi, rdx;
    const uint64_t *pa = a, *pb = b;

    /* after four rounds t sits in (t4, t0, t1, t2); t3 is zero and free */
    __asm__(FR_FIRST(t0, t1, t2, t3, t4) FR_REDUCE(t0, t1, t2, t3, t4)
                FR_ROUND(8, t1, t2, t3, t4, t0) FR_REDUCE(t1, t2, t3, t4, t0)
                    FR_ROUND(16, t2, t3, t4, t0, t1) FR_REDUCE(t2, t3, t4, t0, t1)
                        FR_ROUND(24, t3, t4, t0, t1, t2) FR_REDUCE(t3, t4, t0, t1, t2)
                            FR_FINAL(t4, t0, t1, t2, t3)
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx), [a] "+r"(pa), [b] "+r"(pb)
            : [m0] "m"(FR_MODULUS[0]), [m1] "m"(FR_MODULUS[1]), [m2] "m"(FR_MODULUS[2]),
              [m3] "m"(FR_MODULUS[3]), [inv] "m"(FR_INV_CONST)
            : "cc", "memory");
    out[0] = t4;
    out[1] = t0;
    out[2] = t1;
    out[3] = t2;
}

void fr_sqr_adx(uint64_t out[4], const uint64_t a[4])
{
    fr_mul_adx(out, a, a);
}

/* clang-format on */

#endif /* FIELD_HAVE_ADX_KERNELS */
