/* gpu_test_util.h - what the device tests share ("gtu"): the size switch of the emulated
 * builds, device 0 opened once per process, and a check that fails with a call's diagnostic.
 * Header-only: each test binary has one file that includes it.
 */
#ifndef CUZK_TESTS_GPU_GPU_TEST_UTIL_H
#define CUZK_TESTS_GPU_GPU_TEST_UTIL_H

#include <stdbool.h>
#include <stdlib.h>

#include "harness/test.h"

#include "gpu/gpu.h"

/* Sizes: the emulation (CUZK_GPU_TEST_EMU, set by the *_emu targets) and CUZK_GPU_TEST_SMALL=1
 * in the environment (for compute-sanitizer runs) take small ones. */
#if defined(CUZK_GPU_TEST_EMU)
#    define GTU_EMU 1
#else
#    define GTU_EMU 0
#endif

static inline bool gtu_small_sizes(void)
{
    const char *e = getenv("CUZK_GPU_TEST_SMALL");
    return GTU_EMU || (e && e[0] == '1');
}

/* Device 0, opened on first use; the last test of a file closes it and sets this to NULL. */
static gpu_dev *gtu_dev;

/* Device 0; skips the test without a device. */
static inline gpu_dev *gtu_need_dev(void)
{
    cz_diag dg;
    if (gpu_count() == 0) {
        test_skip("no GPU");
    }
    if (!gtu_dev) {
        cz_diag_init(&dg);
        if (gpu_dev_open(&gtu_dev, 0, &dg) != CUZK_OK) {
            char buf[600];
            test_fail(__FILE__, __LINE__, "gpu_dev_open: %s", cz_diag_str(&dg, buf, sizeof(buf)));
        }
    }
    return gtu_dev;
}

/* Runs a call and fails with its error and diagnostic; DG is the call's cz_diag. */
#define GPU_OK(expr)                                                                               \
    do {                                                                                           \
        cz_diag gpu_ok_dg_;                                                                        \
        char gpu_ok_buf_[600];                                                                     \
        cz_diag_init(&gpu_ok_dg_);                                                                 \
        cuzk_err gpu_ok_e_ = (expr);                                                               \
        if (gpu_ok_e_ != CUZK_OK) {                                                                \
            test_fail(__FILE__, __LINE__, "%s: %s: %s", #expr, cuzk_errname(gpu_ok_e_),            \
                      cz_diag_str(&gpu_ok_dg_, gpu_ok_buf_, sizeof(gpu_ok_buf_)));                 \
        }                                                                                          \
    } while (0)
#define DG (&gpu_ok_dg_)

#endif /* CUZK_TESTS_GPU_GPU_TEST_UTIL_H */
