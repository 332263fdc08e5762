/* dispatch.c - the run-time choice of the Montgomery kernels (see internal.h).
 * The pointers start on the portable kernels, so any call made before the constructor below
 * (from another constructor, say) is still correct; the constructor upgrades them once, before
 * main() and before any thread of ours exists.
 */
#include "field/internal.h"

#if FIELD_HAVE_ADX_KERNELS && defined(__clang__)
#    include <cpuid.h>
#endif

fp_mul_kernel_fn fp_mul_kernel = fp_mul_portable;
fp_sqr_kernel_fn fp_sqr_kernel = fp_sqr_portable;
fr_mul_kernel_fn fr_mul_kernel = fr_mul_portable;
fr_sqr_kernel_fn fr_sqr_kernel = fr_sqr_portable;

bool field_cpu_has_adx(void)
{
#if FIELD_HAVE_ADX_KERNELS && defined(__clang__)
    /* Clang's __builtin_cpu_supports does not know "adx": read CPUID leaf 7 (EBX bit 8 is
     * BMI2, bit 19 is ADX) */
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
        return false;
    }
    return (b >> 8 & 1) && (b >> 19 & 1);
#elif FIELD_HAVE_ADX_KERNELS
    __builtin_cpu_init();
    return __builtin_cpu_supports("adx") && __builtin_cpu_supports("bmi2");
#else
    return false;
#endif
}

void field_force_portable(bool force)
{
#if FIELD_HAVE_ADX_KERNELS
    if (!force && field_cpu_has_adx()) {
        fp_mul_kernel = fp_mul_adx;
        fp_sqr_kernel = fp_sqr_adx;
        fr_mul_kernel = fr_mul_adx;
        fr_sqr_kernel = fr_sqr_adx;
        return;
    }
#endif
    (void)force;
    fp_mul_kernel = fp_mul_portable;
    fp_sqr_kernel = fp_sqr_portable;
    fr_mul_kernel = fr_mul_portable;
    fr_sqr_kernel = fr_sqr_portable;
}

bool field_using_adx(void)
{
#if FIELD_HAVE_ADX_KERNELS
    return fp_mul_kernel == fp_mul_adx;
#else
    return false;
#endif
}

__attribute__((constructor)) static void field_dispatch_init(void)
{
    field_force_portable(false);
}
