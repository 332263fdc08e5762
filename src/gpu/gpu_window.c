/* gpu_window.c - the automatic Pippenger window of the GPU MSM (built with and without CUDA, so
 * that benchmarks and tests can print it anywhere).
 * Model: Booth digits need W = ceil(256 / c) windows; each window costs one mixed addition per
 * term plus the equivalent of eight per bucket (2^(c-1) buckets: the running-sum reduction does
 * two full additions per bucket, dearer and far less parallel than the accumulation). The weight
 * 8 fits the H200 measurements of bench/RESULTS.md: at 2^27 terms c = 20 (1.098 s) beat
 * c = 22 (1.170 s).
 */
#include "gpu/gpu.h"

unsigned gpu_msm_auto_window_bits(size_t m)
{
    unsigned best = 1;
    double best_cost = 0;

    for (unsigned c = 1; c <= GPU_MSM_MAX_WINDOW_BITS; c++) {
        double w = (double)((256 + c - 1) / c);
        double cost = w * ((double)m + 8.0 * (double)((size_t)1 << (c - 1)));
        if (c == 1 || cost < best_cost) {
            best = c;
            best_cost = cost;
        }
    }
    return best;
}
