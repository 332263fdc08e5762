#!/bin/bash
# device_run.sh - one session on a GPU machine: the GPU tests, compute-sanitizer on small
# tests, the benchmark. Logs go to $OUT (default /tmp/cuzk-gpu-out).
# Usage (from the repository root): tests/gpu/device_run.sh [test] [sanitize] [bench] [spmv]
#   [-- args...]  (spmv: the SpMV tests, then bench_gpu's SpMV cases; not in the default steps)
# Binaries: $BIN/test_gpu and $BIN/bench_gpu when present and runnable (e.g. built elsewhere and
# copied in), else a fresh build in build-dev (cmake, CUDA on, this repository's sources).
# Extra arguments after "--" go to bench_gpu (filters, --max-lg N, --window C, ...).
set -u
OUT=${OUT:-/tmp/cuzk-gpu-out}
BIN=${BIN:-build-gpu/carry}
mkdir -p "$OUT"
steps=()
bench_args=()
while [ $# -gt 0 ]; do
    if [ "$1" = "--" ]; then shift; bench_args=("$@"); break; fi
    steps+=("$1"); shift
done
[ ${#steps[@]} -eq 0 ] && steps=(test sanitize bench)
say() { echo "== $(date +%T) $*" | tee -a "$OUT/summary.log"; }

nvidia-smi --query-gpu=name,memory.total,clocks.sm,clocks.max.sm,driver_version,persistence_mode \
    --format=csv > "$OUT/nvidia-smi.txt" 2>&1
say "gpu: $(tail -1 "$OUT/nvidia-smi.txt")"
"$BIN/test_gpu" gpu_info_and_buffers > "$OUT/probe.log" 2>&1
probe=$?
if [ $probe -ge 126 ] || grep -q "error while loading" "$OUT/probe.log"; then
    say "binaries in $BIN do not run (rc=$probe: $(tail -2 "$OUT/probe.log" | tr '\n' ' ')): building"
    BIN=build-dev/bin
    (cmake -S . -B build-dev -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUZK_CUDA=ON -DCUZK_SERVER=OFF \
        && cmake --build build-dev -j16 --target test_gpu bench_gpu) > "$OUT/build.log" 2>&1
    cp build-dev/tests/test_gpu build-dev/bin/ 2>/dev/null
    say "build rc=$? ($(grep -c -i warning "$OUT/build.log") warnings)"
fi
for s in "${steps[@]}"; do
    case "$s" in
    test)
        say "test_gpu (CUZK_GPU_TEST_SMALL=${CUZK_GPU_TEST_SMALL:-0})"
        timeout ${TEST_TIMEOUT:-300} "$BIN/test_gpu" > "$OUT/test.log" 2>&1
        say "test_gpu rc=$? $(tail -1 "$OUT/test.log")"
        grep -E "^FAIL|^  /" "$OUT/test.log" | head -20 | tee -a "$OUT/summary.log"
        ;;
    sanitize)
        say "compute-sanitizer memcheck (small sizes)"
        CUZK_GPU_TEST_SMALL=1 timeout ${SAN_TIMEOUT:-240} compute-sanitizer --tool memcheck \
            --error-exitcode 9 "$BIN/test_gpu" ${SAN_TESTS:-gpu_field_fr gpu_curve_g2_formulas \
            gpu_ntt_all_kinds_vs_poly gpu_quotient_vs_poly gpu_msm_g1_kinds_and_windows gpu_msm_g2 \
            gpu_spmv_random gpu_spmv_edges gpu_spmv_rejects} \
            > "$OUT/memcheck.log" 2>&1
        say "memcheck rc=$? $(grep -E 'ERROR SUMMARY|passed' "$OUT/memcheck.log" | tr '\n' ' ')"
        [ -n "${NO_RACECHECK:-}" ] && continue
        CUZK_GPU_TEST_SMALL=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
            "$BIN/test_gpu" gpu_ntt_naive_dft gpu_ntt_buf_roundtrip gpu_msm_from_quotient \
            gpu_spmv_edges > "$OUT/racecheck.log" 2>&1
        say "racecheck rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|passed' "$OUT/racecheck.log" | tr '\n' ' ')"
        ;;
    spmv)
        say "test_gpu spmv"
        timeout 120 "$BIN/test_gpu" gpu_spmv_random gpu_spmv_edges gpu_spmv_rejects \
            > "$OUT/test_spmv.log" 2>&1
        say "test_gpu spmv rc=$? $(tail -1 "$OUT/test_spmv.log")"
        say "bench_gpu gpu_spmv ${bench_args[*]}"
        timeout ${BENCH_TIMEOUT:-420} "$BIN/bench_gpu" gpu_spmv "${bench_args[@]}" \
            > "$OUT/bench_spmv.log" 2>&1
        say "bench spmv rc=$?"
        grep -E "^check|gpu_spmv" "$OUT/bench_spmv.log" | tee -a "$OUT/summary.log"
        ;;
    bench)
        say "bench_gpu ${bench_args[*]}"
        timeout ${BENCH_TIMEOUT:-420} "$BIN/bench_gpu" "${bench_args[@]}" > "$OUT/bench.log" 2>&1
        say "bench rc=$?"
        ;;
    esac
done
