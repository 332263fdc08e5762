/* bls12_381_consts.h - the BLS12-381 field constants as plain uint64_t limb arrays, shared by
 * the C field code and (later) the CUDA kernels, so that no constant is typed twice.
 * Limbs are 64-bit, least significant first. Each value comes twice: NAME_INIT, a brace
 * initializer usable for any storage class (e.g. a CUDA __constant__ array), and NAME, a static
 * const array for C. Values: spec groth16.md section 1 (re-derived with Python's big integers
 * and cross-checked there: the Montgomery forms of 7 and of the root of unity match the spec).
 * No types, no functions: this header must stay includable from C and CUDA alike.
 */
#ifndef CUZK_FIELD_BLS12_381_CONSTS_H
#define CUZK_FIELD_BLS12_381_CONSTS_H

#include <stdint.h>

/* clang-format off: three limbs per line */

/* ---- Fp: p = 0x1a0111ea...ffffaaab, 381 bits, 6 limbs, Montgomery R = 2^384 ---- */

/* p, the base field modulus */
#define FP_MODULUS_INIT                                                                            \
    {                                                                                              \
        0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,                       \
            0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL                    \
    }
static const uint64_t FP_MODULUS[6] = FP_MODULUS_INIT;

/* R mod p, R = 2^384 (Montgomery form of 1) */
#define FP_MONT_R_INIT                                                                             \
    {                                                                                              \
        0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,                       \
            0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL                    \
    }
static const uint64_t FP_MONT_R[6] = FP_MONT_R_INIT;

/* R^2 mod p (converts canonical -> Montgomery) */
#define FP_MONT_R2_INIT                                                                            \
    {                                                                                              \
        0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL, 0x8de5476c4c95b6d5ULL,                       \
            0x67eb88a9939d83c0ULL, 0x9a793e85b519952dULL, 0x11988fe592cae3aaULL                    \
    }
static const uint64_t FP_MONT_R2[6] = FP_MONT_R2_INIT;

/* R^3 mod p: the Montgomery product of a plain inverse (aR)^-1 with it gives a^-1 R */
#define FP_MONT_R3_INIT                                                                            \
    {                                                                                              \
        0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL, 0x9a53352a615e29ddULL,                       \
            0x34c04e5e921e1761ULL, 0x2512d43565724728ULL, 0x0aa6346091755d4dULL                    \
    }
static const uint64_t FP_MONT_R3[6] = FP_MONT_R3_INIT;

/* -p^-1 mod 2^64 */
#define FP_MONT_INV 0x89f3fffcfffcfffdULL

/* (p-1)/2: canonical values above it are "lexicographically largest" */
#define FP_HALF_MODULUS_INIT                                                                       \
    {                                                                                              \
        0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,                       \
            0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL                    \
    }
static const uint64_t FP_HALF_MODULUS[6] = FP_HALF_MODULUS_INIT;

/* (p+1)/4: a^((p+1)/4) is a square root of a square a (p = 3 mod 4) */
#define FP_SQRT_EXP_INIT                                                                           \
    {                                                                                              \
        0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,                       \
            0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL                    \
    }
static const uint64_t FP_SQRT_EXP[6] = FP_SQRT_EXP_INIT;

/* (p-1)/2: the Legendre exponent (same value as FP_HALF_MODULUS) */
#define FP_LEGENDRE_EXP_INIT                                                                       \
    {                                                                                              \
        0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL, 0xb39869507b587b12ULL,                       \
            0xb23ba5c279c2895fULL, 0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL                    \
    }
static const uint64_t FP_LEGENDRE_EXP[6] = FP_LEGENDRE_EXP_INIT;

/* p-2: a^(p-2) = a^-1 (Fermat) */
#define FP_INV_EXP_INIT                                                                            \
    {                                                                                              \
        0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,                       \
            0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL                    \
    }
static const uint64_t FP_INV_EXP[6] = FP_INV_EXP_INIT;

/* (p-3)/4: used by the Fp2 square root */
#define FP_SQRT_M3_EXP_INIT                                                                        \
    {                                                                                              \
        0xee7fbfffffffeaaaULL, 0x07aaffffac54ffffULL, 0xd9cc34a83dac3d89ULL,                       \
            0xd91dd2e13ce144afULL, 0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL                    \
    }
static const uint64_t FP_SQRT_M3_EXP[6] = FP_SQRT_M3_EXP_INIT;

/* ---- Fr: r = 0x73eda753...00000001, 255 bits, 4 limbs, Montgomery R = 2^256 ---- */

/* r - 1 = 2^FR_TWO_ADICITY_S * t with t odd */
#define FR_TWO_ADICITY_S 32

/* r, the scalar field modulus (group order) */
#define FR_MODULUS_INIT                                                                            \
    {                                                                                              \
        0xffffffff00000001ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL \
    }
static const uint64_t FR_MODULUS[4] = FR_MODULUS_INIT;

/* R mod r, R = 2^256 (Montgomery form of 1) */
#define FR_MONT_R_INIT                                                                             \
    {                                                                                              \
        0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL \
    }
static const uint64_t FR_MONT_R[4] = FR_MONT_R_INIT;

/* R^2 mod r */
#define FR_MONT_R2_INIT                                                                            \
    {                                                                                              \
        0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL, 0x05d314967254398fULL, 0x0748d9d99f59ff11ULL \
    }
static const uint64_t FR_MONT_R2[4] = FR_MONT_R2_INIT;

/* R^3 mod r */
#define FR_MONT_R3_INIT                                                                            \
    {                                                                                              \
        0xc62c1807439b73afULL, 0x1b3e0d188cf06990ULL, 0x73d13c71c7b5f418ULL, 0x6e2a5bb9c8db33e9ULL \
    }
static const uint64_t FR_MONT_R3[4] = FR_MONT_R3_INIT;

/* -r^-1 mod 2^64 */
#define FR_MONT_INV 0xfffffffeffffffffULL

/* r-2 (Fermat inversion) */
#define FR_INV_EXP_INIT                                                                            \
    {                                                                                              \
        0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL \
    }
static const uint64_t FR_INV_EXP[4] = FR_INV_EXP_INIT;

/* (r-1)/2, the Legendre exponent */
#define FR_HALF_MODULUS_INIT                                                                       \
    {                                                                                              \
        0x7fffffff80000000ULL, 0xa9ded2017fff2dffULL, 0x199cec0404d0ec02ULL, 0x39f6d3a994cebea4ULL \
    }
static const uint64_t FR_HALF_MODULUS[4] = FR_HALF_MODULUS_INIT;

/* t = (r-1)/2^32, odd */
#define FR_TRACE_INIT                                                                              \
    {                                                                                              \
        0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL, 0x299d7d483339d808ULL, 0x0000000073eda753ULL \
    }
static const uint64_t FR_TRACE[4] = FR_TRACE_INIT;

/* (t-1)/2, the Tonelli-Shanks exponent */
#define FR_TRACE_M1_HALF_INIT                                                                      \
    {                                                                                              \
        0x7fff2dff7fffffffULL, 0x04d0ec02a9ded201ULL, 0x94cebea4199cec04ULL, 0x0000000039f6d3a9ULL \
    }
static const uint64_t FR_TRACE_M1_HALF[4] = FR_TRACE_M1_HALF_INIT;

/* multiplicative generator of Fr^* (canonical) */
#define FR_GENERATOR_U64 7

/* 7 * R mod r, the generator in Montgomery form */
#define FR_GENERATOR_MONT_INIT                                                                     \
    {                                                                                              \
        0x0000000efffffff1ULL, 0x17e363d300189c0fULL, 0xff9c57876f8457b0ULL, 0x351332208fc5a8c4ULL \
    }
static const uint64_t FR_GENERATOR_MONT[4] = FR_GENERATOR_MONT_INIT;

/* 7^t mod r, a primitive 2^32-th root of unity (canonical) */
#define FR_ROOT_OF_UNITY_INIT                                                                      \
    {                                                                                              \
        0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL, 0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL \
    }
static const uint64_t FR_ROOT_OF_UNITY[4] = FR_ROOT_OF_UNITY_INIT;

/* the same root of unity in Montgomery form */
#define FR_ROOT_OF_UNITY_MONT_INIT                                                                 \
    {                                                                                              \
        0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL \
    }
static const uint64_t FR_ROOT_OF_UNITY_MONT[4] = FR_ROOT_OF_UNITY_MONT_INIT;

/* clang-format on */

#endif /* CUZK_FIELD_BLS12_381_CONSTS_H */
