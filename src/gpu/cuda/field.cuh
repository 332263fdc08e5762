/* field.cuh - Fr, Fp and Fp2 on the device.
 * Representation: 32-bit words, little-endian, Montgomery form, always fully reduced: the same
 * bytes as fr_t / fp_t / fp2_t (R = 2^256 for Fr, 2^384 for Fp). Moduli, Montgomery constants
 * and one come from field/bls12_381_consts.h.
 * Multiplication: CIOS Montgomery product (Koc, Acar, Kaliski, "Analyzing and comparing
 * Montgomery multiplication algorithms", IEEE Micro 1996) with the partial products of even and
 * odd limbs kept in two accumulators, so that every row is one unbroken chain of PTX
 * mad.lo.cc / madc.hi.cc instructions (Emmart, Weems, "Optimizing modular multiplication for
 * NVIDIA's Maxwell GPUs", ARITH 2016). Bounds: with a, b < m the running value stays below
 * 2^33 m before each shift and below 2m after it; 2^33 m < 2^(32(N+1)) for both fields (r <
 * 2^255, p < 2^381), so neither accumulator overflows its top word, and one conditional
 * subtraction ends the product.
 * Off the GPU (the host pass of nvcc never runs these; the emulation build does) the PTX
 * instructions are replaced by an exact model of their semantics with the carry flag in
 * emu::cc() (the hardware's flag, also where a subtraction's flag reaches an addition: see
 * sub_cc), so the very same chains are tested on the CPU.
 */
#ifndef CUZK_GPU_CUDA_FIELD_CUH
#define CUZK_GPU_CUDA_FIELD_CUH

#include "gpu/cuda/common.cuh"

#include <string.h>

#include "field/bls12_381_consts.h"

namespace czg
{

/* ---- carry-chain primitives ---- */
#if defined(__CUDA_ARCH__)
#    define CZG_ASM2(op, a, b)                                                                     \
        uint32_t r;                                                                                \
        asm volatile(op " %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));                                \
        return r
#    define CZG_ASM3(op, a, b, c)                                                                  \
        uint32_t r;                                                                                \
        asm volatile(op " %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));                    \
        return r
CZ_DEV uint32_t add_cc(uint32_t a, uint32_t b)
{
    CZG_ASM2("add.cc.u32", a, b);
}
CZ_DEV uint32_t addc_cc(uint32_t a, uint32_t b)
{
    CZG_ASM2("addc.cc.u32", a, b);
}
CZ_DEV uint32_t addc(uint32_t a, uint32_t b)
{
    CZG_ASM2("addc.u32", a, b);
}
CZ_DEV uint32_t sub_cc(uint32_t a, uint32_t b)
{
    CZG_ASM2("sub.cc.u32", a, b);
}
CZ_DEV uint32_t subc_cc(uint32_t a, uint32_t b)
{
    CZG_ASM2("subc.cc.u32", a, b);
}
CZ_DEV uint32_t subc(uint32_t a, uint32_t b)
{
    CZG_ASM2("subc.u32", a, b);
}
CZ_DEV uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    CZG_ASM3("mad.lo.cc.u32", a, b, c);
}
CZ_DEV uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    CZG_ASM3("madc.lo.cc.u32", a, b, c);
}
CZ_DEV uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    CZG_ASM3("madc.hi.cc.u32", a, b, c);
}
CZ_DEV uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    CZG_ASM3("madc.hi.u32", a, b, c);
}
#    undef CZG_ASM2
#    undef CZG_ASM3
#elif defined(CUZK_GPU_EMU)
CZ_DEV uint32_t add_cc(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + b;
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t addc_cc(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + b + emu::cc();
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t addc(uint32_t a, uint32_t b)
{
    return (uint32_t)((uint64_t)a + b + emu::cc());
}
/* Subtraction as the hardware does it: a + ~b + carry-in (1 for sub.cc), the flag being the
 * adder's carry-out, which is the complement of the borrow. Within a sub.cc/subc chain that is
 * the usual borrow arithmetic; it shows where a subtraction's flag reaches an addc or madc (which
 * add the complement of the borrow) or an addition's flag reaches a subc. */
CZ_DEV uint32_t sub_cc(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + (uint32_t)~b + 1u;
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t subc_cc(uint32_t a, uint32_t b)
{
    uint64_t s = (uint64_t)a + (uint32_t)~b + emu::cc();
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t subc(uint32_t a, uint32_t b)
{
    return (uint32_t)((uint64_t)a + (uint32_t)~b + emu::cc());
}
CZ_DEV uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t s = (uint64_t)(uint32_t)((uint64_t)a * b) + c;
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t s = (uint64_t)(uint32_t)((uint64_t)a * b) + c + emu::cc();
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    uint64_t s = (((uint64_t)a * b) >> 32) + c + emu::cc();
    emu::cc() = s >> 32;
    return (uint32_t)s;
}
CZ_DEV uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    return (uint32_t)((((uint64_t)a * b) >> 32) + c + emu::cc());
}
#else
/* nvcc's host pass: device-only code is parsed but never run. */
CZ_DEV uint32_t add_cc(uint32_t a, uint32_t b)
{
    return a + b;
}
CZ_DEV uint32_t addc_cc(uint32_t a, uint32_t b)
{
    return a + b;
}
CZ_DEV uint32_t addc(uint32_t a, uint32_t b)
{
    return a + b;
}
CZ_DEV uint32_t sub_cc(uint32_t a, uint32_t b)
{
    return a - b;
}
CZ_DEV uint32_t subc_cc(uint32_t a, uint32_t b)
{
    return a - b;
}
CZ_DEV uint32_t subc(uint32_t a, uint32_t b)
{
    return a - b;
}
CZ_DEV uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return a * b + c;
}
CZ_DEV uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return a * b + c;
}
CZ_DEV uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c)
{
    return a * b + c;
}
CZ_DEV uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c)
{
    return a * b + c;
}
#endif

CZ_DEV uint32_t mul_lo(uint32_t a, uint32_t b)
{
    return a * b;
}
CZ_DEV uint32_t mul_hi(uint32_t a, uint32_t b)
{
    return __umulhi(a, b);
}

/* ---- constants (bls12_381_consts.h, split into 32-bit words) ---- */
constexpr uint64_t k_fr_mod[4] = FR_MODULUS_INIT;
constexpr uint64_t k_fr_one[4] = FR_MONT_R_INIT;
constexpr uint64_t k_fp_mod[6] = FP_MODULUS_INIT;
constexpr uint64_t k_fp_one[6] = FP_MONT_R_INIT;

#define CZG_LO(a, i) ((uint32_t)((a)[i]))
#define CZG_HI(a, i) ((uint32_t)((a)[i] >> 32))
#define CZG_W4(a)                                                                                  \
    {                                                                                              \
        CZG_LO(a, 0), CZG_HI(a, 0), CZG_LO(a, 1), CZG_HI(a, 1), CZG_LO(a, 2), CZG_HI(a, 2),        \
            CZG_LO(a, 3), CZG_HI(a, 3)                                                             \
    }
#define CZG_W6(a)                                                                                  \
    {                                                                                              \
        CZG_LO(a, 0), CZG_HI(a, 0), CZG_LO(a, 1), CZG_HI(a, 1), CZG_LO(a, 2), CZG_HI(a, 2),        \
            CZG_LO(a, 3), CZG_HI(a, 3), CZG_LO(a, 4), CZG_HI(a, 4), CZG_LO(a, 5), CZG_HI(a, 5)     \
    }

/* 2r (r < 2^255), for Fr values kept in [0, 2r) */
constexpr uint64_t k_fr_mod2[4] = {k_fr_mod[0] << 1, (k_fr_mod[1] << 1) | (k_fr_mod[0] >> 63),
                                   (k_fr_mod[2] << 1) | (k_fr_mod[1] >> 63),
                                   (k_fr_mod[3] << 1) | (k_fr_mod[2] >> 63)};
static_assert(k_fr_mod[3] >> 63 == 0, "r < 2^255");

namespace
{
__constant__ uint32_t c_fr_mod[8] = CZG_W4(k_fr_mod);
__constant__ uint32_t c_fr_mod2[8] = CZG_W4(k_fr_mod2);
__constant__ uint32_t c_fr_one[8] = CZG_W4(k_fr_one);
/* -r^-1 mod 2^32; in constant memory rather than an immediate: the compiler's rewriting of a
 * multiplication by the literal 0xffffffff costs more than the load. */
__constant__ uint32_t c_fr_m0 = (uint32_t)FR_MONT_INV;
__constant__ uint32_t c_fp_mod[12] = CZG_W6(k_fp_mod);
__constant__ uint32_t c_fp_one[12] = CZG_W6(k_fp_one);
__constant__ uint32_t c_fp_m0 = (uint32_t)FP_MONT_INV;
} // namespace

#undef CZG_W4
#undef CZG_W6
#undef CZG_LO
#undef CZG_HI

struct fr_cfg {
    static constexpr int N = 8;
    CZ_DEV static uint32_t mod(int i)
    {
        return c_fr_mod[i];
    }
    CZ_DEV static uint32_t one(int i)
    {
        return c_fr_one[i];
    }
    CZ_DEV static uint32_t m0()
    {
        return c_fr_m0;
    }
};

struct fp_cfg {
    static constexpr int N = 12;
    CZ_DEV static uint32_t mod(int i)
    {
        return c_fp_mod[i];
    }
    CZ_DEV static uint32_t one(int i)
    {
        return c_fp_one[i];
    }
    CZ_DEV static uint32_t m0()
    {
        return c_fp_m0;
    }
};

/** An element of the prime field described by C (fr_cfg or fp_cfg). */
template <class C> struct __align__(16) fe
{
    uint32_t w[C::N];
};
typedef fe<fr_cfg> fr_e;
typedef fe<fp_cfg> fp_e;

template <class C> CZ_DEV fe<C> fe_zero()
{
    fe<C> r;
    CZ_UNROLL
    for (int i = 0; i < C::N; i++) {
        r.w[i] = 0;
    }
    return r;
}

template <class C> CZ_DEV fe<C> fe_one()
{
    fe<C> r;
    CZ_UNROLL
    for (int i = 0; i < C::N; i++) {
        r.w[i] = C::one(i);
    }
    return r;
}

template <class C> CZ_DEV bool is_zero(const fe<C> &a)
{
    uint32_t t = a.w[0];
    CZ_UNROLL
    for (int i = 1; i < C::N; i++) {
        t |= a.w[i];
    }
    return t == 0;
}

template <class C> CZ_DEV bool fe_eq(const fe<C> &a, const fe<C> &b)
{
    uint32_t t = 0;
    CZ_UNROLL
    for (int i = 0; i < C::N; i++) {
        t |= a.w[i] ^ b.w[i];
    }
    return t == 0;
}

/** r = r - m if r >= m (r < 2m). */
template <class C> CZ_DEV void final_sub(fe<C> &r)
{
    constexpr int N = C::N;
    uint32_t t[N];
    t[0] = sub_cc(r.w[0], C::mod(0));
    CZ_UNROLL
    for (int i = 1; i < N; i++) {
        t[i] = subc_cc(r.w[i], C::mod(i));
    }
    uint32_t borrow = subc(0, 0); /* all ones iff r < m */
    CZ_UNROLL
    for (int i = 0; i < N; i++) {
        r.w[i] = borrow ? r.w[i] : t[i];
    }
}

template <class C> CZ_DEV fe<C> operator+(const fe<C> &a, const fe<C> &b)
{
    constexpr int N = C::N;
    fe<C> r;
    /* a + b < 2m < 2^(32N): no carry out of the top word */
    r.w[0] = add_cc(a.w[0], b.w[0]);
    CZ_UNROLL
    for (int i = 1; i < N - 1; i++) {
        r.w[i] = addc_cc(a.w[i], b.w[i]);
    }
    r.w[N - 1] = addc(a.w[N - 1], b.w[N - 1]);
    final_sub(r);
    return r;
}

template <class C> CZ_DEV fe<C> operator-(const fe<C> &a, const fe<C> &b)
{
    constexpr int N = C::N;
    fe<C> r;
    r.w[0] = sub_cc(a.w[0], b.w[0]);
    CZ_UNROLL
    for (int i = 1; i < N; i++) {
        r.w[i] = subc_cc(a.w[i], b.w[i]);
    }
    uint32_t borrow = subc(0, 0); /* all ones iff a < b: add m back */
    r.w[0] = add_cc(r.w[0], C::mod(0) & borrow);
    CZ_UNROLL
    for (int i = 1; i < N - 1; i++) {
        r.w[i] = addc_cc(r.w[i], C::mod(i) & borrow);
    }
    r.w[N - 1] = addc(r.w[N - 1], C::mod(N - 1) & borrow);
    return r;
}

template <class C> CZ_DEV fe<C> operator-(const fe<C> &a)
{
    constexpr int N = C::N;
    fe<C> r;
    uint32_t nz = a.w[0];
    CZ_UNROLL
    for (int i = 1; i < N; i++) {
        nz |= a.w[i];
    }
    uint32_t mask = nz ? 0xffffffffu : 0; /* -0 = 0, not m */
    r.w[0] = sub_cc(C::mod(0) & mask, a.w[0]);
    CZ_UNROLL
    for (int i = 1; i < N - 1; i++) {
        r.w[i] = subc_cc(C::mod(i) & mask, a.w[i]);
    }
    r.w[N - 1] = subc(C::mod(N - 1) & mask, a.w[N - 1]);
    return r;
}

template <class C> CZ_DEV fe<C> dbl(const fe<C> &a)
{
    return a + a;
}

/* One Montgomery reduction step. E holds the words of the running value at positions k, O those
 * at positions k + 1 (value = E + O 2^32). Adds m * mod with m = E[0] * m0, which makes
 * position 0 zero. Positions run to N: the O-chain's carry out of position N + 1 is zero and
 * the E-chain's carry lands in O[N-1] (the bound in the file comment). */
template <class C> CZ_DEV void redc_step(uint32_t *E, uint32_t *O)
{
    constexpr int N = C::N;
    uint32_t m = E[0] * C::m0();
    O[0] = mad_lo_cc(m, C::mod(1), O[0]);
    O[1] = madc_hi_cc(m, C::mod(1), O[1]);
    CZ_UNROLL
    for (int j = 2; j < N; j += 2) {
        O[j] = madc_lo_cc(m, C::mod(j + 1), O[j]);
        O[j + 1] = madc_hi_cc(m, C::mod(j + 1), O[j + 1]);
    }
    E[0] = mad_lo_cc(m, C::mod(0), E[0]);
    E[1] = madc_hi_cc(m, C::mod(0), E[1]);
    CZ_UNROLL
    for (int j = 2; j < N; j += 2) {
        E[j] = madc_lo_cc(m, C::mod(j), E[j]);
        E[j + 1] = madc_hi_cc(m, C::mod(j), E[j + 1]);
    }
    O[N - 1] = addc(O[N - 1], 0);
}

/* Divides the running value by 2^32 (E[0] is zero) and adds a * bi. The shifted value's words
 * at positions k are O[k] plus E[k+1]: O becomes the new E (E[1] merged into its position 0),
 * and E, moved down two words, the new O, which receives the odd-limb products. Order matters:
 * the merge's carry enters the O-chain at position 1. */
template <class C> CZ_DEV void row_step(uint32_t *E, uint32_t *O, const uint32_t *a, uint32_t bi)
{
    constexpr int N = C::N;
    O[0] = add_cc(O[0], E[1]);
    CZ_UNROLL
    for (int j = 0; j < N - 2; j += 2) {
        E[j] = madc_lo_cc(a[j + 1], bi, E[j + 2]);
        E[j + 1] = madc_hi_cc(a[j + 1], bi, E[j + 3]);
    }
    E[N - 2] = madc_lo_cc(a[N - 1], bi, 0);
    E[N - 1] = madc_hi(a[N - 1], bi, 0);
    O[0] = mad_lo_cc(a[0], bi, O[0]);
    O[1] = madc_hi_cc(a[0], bi, O[1]);
    CZ_UNROLL
    for (int j = 2; j < N; j += 2) {
        O[j] = madc_lo_cc(a[j], bi, O[j]);
        O[j + 1] = madc_hi_cc(a[j], bi, O[j + 1]);
    }
    E[N - 1] = addc(E[N - 1], 0);
}

/** Montgomery product a * b / 2^(32N) mod m of fully reduced a, b.
 *  Without REDUCE the final subtraction is left out, and b may be any value below 2^(32N) while
 *  a < m still: a enters whole in every row, b one word b_i < 2^32 per row. Let T be the value
 *  after a shift (T = 0 at the start). If T < a + m, the next row and reduction step add
 *  a b_i + q m with b_i, q <= 2^32 - 1, so before the shift the value is below
 *  (a + m) + (2^32 - 1)(a + m) = 2^32 (a + m) < 2^33 m, the accumulator bound of the file
 *  comment, and after it below a + m again. So the result is below a + m < 2m, any b. For Fr:
 *  r < 2^254.86, 2r < 2^255.86 < R = 2^256, so a value below 2r is a valid operand b and such
 *  results chain: w * v for a twiddle w < r and v < 2r is below 2r. */
template <class C, bool REDUCE = true> CZ_DEV fe<C> mont_mul(const fe<C> &a, const fe<C> &b)
{
    constexpr int N = C::N;
    static_assert(N % 2 == 0, "even limb count");
    uint32_t e[N], o[N];
    fe<C> r;

    CZ_UNROLL
    for (int j = 0; j < N; j += 2) {
        e[j] = mul_lo(a.w[j], b.w[0]);
        e[j + 1] = mul_hi(a.w[j], b.w[0]);
        o[j] = mul_lo(a.w[j + 1], b.w[0]);
        o[j + 1] = mul_hi(a.w[j + 1], b.w[0]);
    }
    redc_step<C>(e, o);
    CZ_UNROLL
    for (int i = 1; i < N; i += 2) {
        row_step<C>(e, o, a.w, b.w[i]);
        redc_step<C>(o, e);
        if (i + 1 < N) {
            row_step<C>(o, e, a.w, b.w[i + 1]);
            redc_step<C>(e, o);
        }
    }
    /* N even: the last step left E in o and O in e; result = value / 2^32 < 2m */
    r.w[0] = add_cc(e[0], o[1]);
    CZ_UNROLL
    for (int k = 1; k < N - 1; k++) {
        r.w[k] = addc_cc(e[k], o[k + 1]);
    }
    r.w[N - 1] = addc(e[N - 1], 0);
    if (REDUCE) {
        final_sub(r);
    }
    return r;
}

template <class C> CZ_DEV fe<C> operator*(const fe<C> &a, const fe<C> &b)
{
    return mont_mul<C>(a, b);
}

/* ---- Fr in [0, 2r): values that need not be fully reduced between operations ----
 * Products: mont_mul<fr_cfg, false>(w, v) with w < r first (bound above). */

/** a + b in [0, 2r) for a, b < 2r. The sum can reach 2^256 (4r > 2^256); when it does, its low
 *  256 bits are below 4r - 2^256 < 2r, so the subtraction of 2r borrows and `keep` is 0. */
CZ_DEV fr_e fr_add_lazy(const fr_e &a, const fr_e &b)
{
    fr_e s, d;
    s.w[0] = add_cc(a.w[0], b.w[0]);
    CZ_UNROLL
    for (int i = 1; i < 8; i++) {
        s.w[i] = addc_cc(a.w[i], b.w[i]);
    }
    const uint32_t top = addc(0u, 0u);
    d.w[0] = sub_cc(s.w[0], c_fr_mod2[0]);
    CZ_UNROLL
    for (int i = 1; i < 8; i++) {
        d.w[i] = subc_cc(s.w[i], c_fr_mod2[i]);
    }
    const uint32_t keep = subc(top, 0u); /* all ones iff a + b < 2r, else 0 */
    CZ_UNROLL
    for (int i = 0; i < 8; i++) {
        s.w[i] = keep ? s.w[i] : d.w[i];
    }
    return s;
}

/** a - b in [0, 2r) for a, b < 2r. */
CZ_DEV fr_e fr_sub_lazy(const fr_e &a, const fr_e &b)
{
    fr_e r;
    r.w[0] = sub_cc(a.w[0], b.w[0]);
    CZ_UNROLL
    for (int i = 1; i < 8; i++) {
        r.w[i] = subc_cc(a.w[i], b.w[i]);
    }
    const uint32_t borrow = subc(0u, 0u); /* all ones iff a < b: add 2r back */
    r.w[0] = add_cc(r.w[0], c_fr_mod2[0] & borrow);
    CZ_UNROLL
    for (int i = 1; i < 7; i++) {
        r.w[i] = addc_cc(r.w[i], c_fr_mod2[i] & borrow);
    }
    r.w[7] = addc(r.w[7], c_fr_mod2[7] & borrow);
    return r;
}

/** The fully reduced value of a < 2r. */
CZ_DEV fr_e fr_reduce_lazy(fr_e a)
{
    final_sub(a);
    return a;
}

template <class C> CZ_DEV fe<C> sqr(const fe<C> &a)
{
    return a * a;
}

/** a^-1 (0 for 0) as a^(p - 2), squarings and multiplications from the exponent's top bit:
 *  about N * 32 squarings, for the batch inversions of the MSM's affine additions. Variable
 *  time (the exponent is public). */
template <class C> CZ_DEV_CALL fe<C> fe_inv(fe<C> a)
{
    fe<C> r = fe_one<C>();
    for (int i = C::N - 1; i >= 0; i--) {
        const uint32_t e = C::mod(i) - (i == 0 ? 2u : 0u); /* p odd and > 2: no borrow */
        for (int b = 31; b >= 0; b--) {
            r = sqr(r);
            if ((e >> b) & 1u) {
                r = r * a;
            }
        }
    }
    return r;
}

/** Canonical value of a Montgomery element (a * 1 / R). */
template <class C> CZ_DEV fe<C> from_mont(const fe<C> &a)
{
    fe<C> one = fe_zero<C>();
    one.w[0] = 1;
    return a * one;
}

/* ---- Fp2 = Fp[u] / (u^2 + 1) ---- */
struct __align__(16) fp2_e
{
    fp_e c0, c1;
};

CZ_DEV fp2_e operator+(const fp2_e &a, const fp2_e &b)
{
    return fp2_e{a.c0 + b.c0, a.c1 + b.c1};
}
CZ_DEV fp2_e operator-(const fp2_e &a, const fp2_e &b)
{
    return fp2_e{a.c0 - b.c0, a.c1 - b.c1};
}
CZ_DEV fp2_e operator-(const fp2_e &a)
{
    return fp2_e{-a.c0, -a.c1};
}
CZ_DEV fp2_e dbl(const fp2_e &a)
{
    return a + a;
}
/* Karatsuba: (a0 b0 - a1 b1) + ((a0 + a1)(b0 + b1) - a0 b0 - a1 b1) u. Out of line: a G2
 * formula holds a dozen of these, and inlining them all makes kernels too big to compile. */
static CZ_DEV_CALL fp2_e fp2_mul(fp2_e a, fp2_e b)
{
    fp_e t0 = a.c0 * b.c0;
    fp_e t1 = a.c1 * b.c1;
    fp_e t2 = (a.c0 + a.c1) * (b.c0 + b.c1);
    return fp2_e{t0 - t1, t2 - t0 - t1};
}
/* (a0 + a1)(a0 - a1) + 2 a0 a1 u */
static CZ_DEV_CALL fp2_e fp2_sqr(fp2_e a)
{
    fp_e t = a.c0 * a.c1;
    return fp2_e{(a.c0 + a.c1) * (a.c0 - a.c1), t + t};
}
CZ_DEV fp2_e operator*(const fp2_e &a, const fp2_e &b)
{
    return fp2_mul(a, b);
}
CZ_DEV fp2_e sqr(const fp2_e &a)
{
    return fp2_sqr(a);
}
CZ_DEV bool is_zero(const fp2_e &a)
{
    return is_zero(a.c0) && is_zero(a.c1);
}
/* (a0 - a1 u) / (a0^2 + a1^2): one inversion in Fp */
static CZ_DEV_CALL fp2_e fp2_inv(fp2_e a)
{
    fp_e t = fe_inv(sqr(a.c0) + sqr(a.c1));
    return fp2_e{a.c0 * t, -(a.c1 * t)};
}

/** Zero, one and inversion of each field type, for the templates of curve.cuh and msm.cuh. */
template <class F> struct field_traits;
template <> struct field_traits<fp_e> {
    CZ_DEV static fp_e zero()
    {
        return fe_zero<fp_cfg>();
    }
    CZ_DEV static fp_e one()
    {
        return fe_one<fp_cfg>();
    }
    CZ_DEV static fp_e inv(const fp_e &a)
    {
        return fe_inv(a);
    }
};
template <> struct field_traits<fp2_e> {
    CZ_DEV static fp2_e zero()
    {
        return fp2_e{fe_zero<fp_cfg>(), fe_zero<fp_cfg>()};
    }
    CZ_DEV static fp2_e one()
    {
        return fp2_e{fe_one<fp_cfg>(), fe_zero<fp_cfg>()};
    }
    CZ_DEV static fp2_e inv(const fp2_e &a)
    {
        return fp2_inv(a);
    }
};

/* ---- global memory access in 16-byte words ---- */
#if defined(CUZK_GPU_EMU)
/* memcpy: the same bytes without type punning, which C++ aliasing rules forbid on the host */
template <class T> CZ_DEV T load16(const T *p)
{
    T v;
    memcpy(&v, p, sizeof(T));
    return v;
}
template <class T> CZ_DEV T ldg16(const T *p)
{
    return load16(p);
}
template <class T> CZ_DEV void store16(T *p, const T &v)
{
    memcpy(p, &v, sizeof(T));
}
#else
template <class T> CZ_DEV T load16(const T *p)
{
    static_assert(sizeof(T) % 16 == 0, "16-byte multiple");
    T v;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&v);
    CZ_UNROLL
    for (size_t i = 0; i < sizeof(T) / 16; i++) {
        d[i] = s[i];
    }
    return v;
}

/** Read-only (non-coherent cache) load; only for data no kernel of the launch writes. */
template <class T> CZ_DEV T ldg16(const T *p)
{
    static_assert(sizeof(T) % 16 == 0, "16-byte multiple");
    T v;
    const uint4 *s = reinterpret_cast<const uint4 *>(p);
    uint4 *d = reinterpret_cast<uint4 *>(&v);
    CZ_UNROLL
    for (size_t i = 0; i < sizeof(T) / 16; i++) {
        d[i] = __ldg(s + i);
    }
    return v;
}

template <class T> CZ_DEV void store16(T *p, const T &v)
{
    static_assert(sizeof(T) % 16 == 0, "16-byte multiple");
    uint4 *d = reinterpret_cast<uint4 *>(p);
    const uint4 *s = reinterpret_cast<const uint4 *>(&v);
    CZ_UNROLL
    for (size_t i = 0; i < sizeof(T) / 16; i++) {
        d[i] = s[i];
    }
}
#endif

} // namespace czg

#endif /* CUZK_GPU_CUDA_FIELD_CUH */
