/* internal.h - what the field module's files share and what its tests may reach: the
 * Montgomery multiplication kernels and the run-time choice between them.
 *
 * Two kernels exist for each of Fp and Fr multiplication and squaring:
 *   - portable: C with 128-bit products (common/int128.h), any 64-bit target;
 *   - adx: x86-64 inline assembly with MULX/ADCX/ADOX (needs the BMI2 and ADX extensions).
 * The dispatch pointers below start on the portable kernels, which are always correct, and a
 * constructor upgrades them once at load time when the CPU has BMI2 and ADX. They are the only
 * mutable globals of the module; field_force_portable() rewrites them and exists for tests and
 * benchmarks only (call it while no other thread uses the field).
 *
 * Kernel contract: inputs fully reduced (< modulus), output fully reduced; out may alias a or b.
 */
#ifndef CUZK_FIELD_INTERNAL_H
#define CUZK_FIELD_INTERNAL_H

#include "common/common.h"
#include "common/int128.h"

typedef void (*fp_mul_kernel_fn)(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
typedef void (*fp_sqr_kernel_fn)(uint64_t out[6], const uint64_t a[6]);
typedef void (*fr_mul_kernel_fn)(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
typedef void (*fr_sqr_kernel_fn)(uint64_t out[4], const uint64_t a[4]);

/* The kernels in use (see above). */
extern fp_mul_kernel_fn fp_mul_kernel;
extern fp_sqr_kernel_fn fp_sqr_kernel;
extern fr_mul_kernel_fn fr_mul_kernel;
extern fr_sqr_kernel_fn fr_sqr_kernel;

/* Portable kernels (fp.c, fr.c). */
void fp_mul_portable(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
void fp_sqr_portable(uint64_t out[6], const uint64_t a[6]);
void fr_mul_portable(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
void fr_sqr_portable(uint64_t out[4], const uint64_t a[4]);

/* Portable modular addition and subtraction (fp.c, fr.c). On x86-64 fp_add/fp_sub/fr_add/fr_sub
 * use branch-free inline assembly (plain x86-64: ADD/ADC, SUB/SBB, CMOV) instead; tests compare
 * both. Inputs fully reduced, output fully reduced, out may alias a or b. */
void fp_add_portable(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
void fp_sub_portable(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
void fr_add_portable(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
void fr_sub_portable(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
#if defined(__x86_64__) && defined(__GNUC__)
#    define FIELD_HAVE_X86_ADDSUB 1
#else
#    define FIELD_HAVE_X86_ADDSUB 0
#endif

/* MULX/ADCX/ADOX kernels (field_adx.c); present on x86-64 builds only, and callable only when
 * field_cpu_has_adx() is true. */
#if defined(__x86_64__) && defined(__GNUC__)
#    define FIELD_HAVE_ADX_KERNELS 1
void fp_mul_adx(uint64_t out[6], const uint64_t a[6], const uint64_t b[6]);
void fp_sqr_adx(uint64_t out[6], const uint64_t a[6]);
void fr_mul_adx(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]);
void fr_sqr_adx(uint64_t out[4], const uint64_t a[4]);
#else
#    define FIELD_HAVE_ADX_KERNELS 0
#endif

/* Inversion (inv.c): out = a^-1 in Montgomery form, 0 for 0; variable-time safegcd. */
void fp_inv_limbs(uint64_t out[6], const uint64_t a[6]);
void fr_inv_limbs(uint64_t out[4], const uint64_t a[4]);

/** True when this build has the ADX kernels and this CPU can run them. */
bool field_cpu_has_adx(void);

/** force = true: use the portable kernels from now on; false: go back to the best available.
 *  For tests and benchmarks only; not thread-safe against concurrent field use. */
void field_force_portable(bool force);

/** True iff the dispatch currently uses the ADX kernels. */
bool field_using_adx(void);

/* ---- Multi-limb helpers (n 64-bit limbs, little-endian); inlined with constant n. ---- */

/** out = a + b; returns the carry out. */
static inline uint64_t limbs_add(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = cz_adc(a[i], b[i], c, &c);
    }
    return c;
}

/** out = a - b; returns the borrow out. */
static inline uint64_t limbs_sub(uint64_t *out, const uint64_t *a, const uint64_t *b, size_t n)
{
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) {
        out[i] = cz_sbb(a[i], b[i], c, &c);
    }
    return c;
}

/** True iff a < b. */
static inline bool limbs_lt(const uint64_t *a, const uint64_t *b, size_t n)
{
    for (size_t i = n; i-- > 0;) {
        if (a[i] != b[i]) {
            return a[i] < b[i];
        }
    }
    return false;
}

static inline bool limbs_is_zero(const uint64_t *a, size_t n)
{
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++) {
        acc |= a[i];
    }
    return acc == 0;
}

/** out = a mod m for a < 2m: subtracts m when a >= m, without a branch. out may alias a. */
static inline void limbs_reduce_once(uint64_t *out, const uint64_t *a, const uint64_t *m, size_t n)
{
    uint64_t t[8];
    uint64_t keep = (uint64_t)0 - limbs_sub(t, a, m, n); /* all ones iff a < m */
    for (size_t i = 0; i < n; i++) {
        out[i] = (a[i] & keep) | (t[i] & ~keep);
    }
}

/** Montgomery product out = a * b / 2^(64n) mod m (CIOS, Koc-Acar-Kaliski 1996), for a, b < m
 *  and n <= 8. Relies on the top limb of m being below 2^63 - 1 (true for BLS12-381's p and r),
 *  which keeps every intermediate t below 2m without an extra carry limb ("no-carry"
 *  optimization, as in gnark-crypto). out may alias a or b. */
static inline void limbs_mont_mul(uint64_t *out, const uint64_t *a, const uint64_t *b,
                                  const uint64_t *m, uint64_t minv, size_t n)
{
    uint64_t t[8] = {0};
#pragma GCC unroll 8
    for (size_t i = 0; i < n; i++) {
        cz_u128 x;
        uint64_t c = 0;
        /* t += a * b[i] */
#pragma GCC unroll 8
        for (size_t j = 0; j < n; j++) {
            x = (cz_u128)a[j] * b[i] + t[j] + c;
            t[j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        uint64_t top = c;
        /* t = (t + k*m) / 2^64 with k chosen so the low limb vanishes */
        uint64_t k = t[0] * minv;
        x = (cz_u128)k * m[0] + t[0];
        c = (uint64_t)(x >> 64);
#pragma GCC unroll 8
        for (size_t j = 1; j < n; j++) {
            x = (cz_u128)k * m[j] + t[j] + c;
            t[j - 1] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        t[n - 1] = top + c;
    }
    /* t < 2m; t >= m is rare for Montgomery products (m is well below 2^(64n)), so a
     * predictable branch beats a branch-free select here */
    if (CZ_UNLIKELY(!limbs_lt(t, m, n))) {
        limbs_sub(t, t, m, n);
    }
    for (size_t i = 0; i < n; i++) {
        out[i] = t[i];
    }
}

#endif /* CUZK_FIELD_INTERNAL_H */
