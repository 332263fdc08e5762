/* synth_gpu.h - the pre-compiled evaluator's products on the device for `cuzk-bench synth
 * --backend pce --gpu`: the recorded shape's matrices uploaded once (gpu_spmat), then per run
 * z = [inputs | aux] uploaded and a = A z, b = B z, c = C z computed on the device, each timed
 * and compared byte for byte with the CPU's a, b, c (cs_shape_eval).
 */
#ifndef CUZK_TOOLS_CUZK_BENCH_SYNTH_GPU_H
#define CUZK_TOOLS_CUZK_BENCH_SYNTH_GPU_H

#include "r1cs/r1cs.h"

typedef struct synth_gpu synth_gpu;

typedef struct synth_gpu_times {
    double z_upload_ms; /* inputs and aux from pageable memory */
    double spmv_ms[3];  /* A, B, C: each one synchronous gpu_spmv_buf call */
} synth_gpu_times;

/** Opens device 0 and uploads the shape's three matrices (borrowed during the call). Returns
 *  owned (synth_gpu_free). Errors: CUZK_E_NO_GPU, CUZK_E_GPU, CUZK_E_INVAL, CUZK_E_NOMEM. */
CZ_MUST_USE cuzk_err synth_gpu_new(synth_gpu **out, const cs_shape_t *shape, cz_diag *dg);
void synth_gpu_free(synth_gpu *g);
/** Milliseconds synth_gpu_new took (device open + matrix uploads); device bytes they hold. */
double synth_gpu_upload_ms(const synth_gpu *g);
size_t synth_gpu_bytes(const synth_gpu *g);
/** Products of `asg` (inputs, aux and the CPU's a, b, c; borrowed) on the device; CUZK_E_GPU
 *  naming the first differing row when the device's result is not the CPU's. */
CZ_MUST_USE cuzk_err synth_gpu_run(synth_gpu *g, const cs_assignment_t *asg, synth_gpu_times *t,
                                   cz_diag *dg);

#endif /* CUZK_TOOLS_CUZK_BENCH_SYNTH_GPU_H */
