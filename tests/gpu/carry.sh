#!/bin/bash
# carry.sh - packs the GPU binaries built here for a device machine that has the NVIDIA driver
# but no build dependencies: builds them (CUDA on, server off) in BUILD, strips and gzips them
# into BUILD/carry with the shared libraries they need beyond libc/libstdc++ (libjansson for
# cuzk-bench), and writes BUILD/carry/device.sh, which runs on the device from the repository
# root of the copied tree:
#   bash BUILD/carry/device.sh tests    GPU tests at full size, memcheck and racecheck at small
#   bash BUILD/carry/device.sh bench    bench_gpu (NTT, quotient, MSM) and bench_groth16's GPU cases
#   bash BUILD/carry/device.sh spmv     the SpMV tests (full size, memcheck, racecheck) and
#                                       bench_gpu's SpMV cases at the 32 GiB partition's shape
#   bash BUILD/carry/device.sh engine   the engine on the device with 2 KiB PoSt parameters
#   bash BUILD/carry/device.sh pce32    a 32 GiB PoRep partition (synthetic C1): the shape
#                                       recorded and saved, then loaded; witness + CPU products
#                                       on 16 threads; a, b, c on the device compared with the
#                                       CPU's; the prover backend on 16 threads for comparison
# Logs go to $OUT (the device tool's result folder) or /tmp/cuzk-gpu-out.
# Usage (here): tests/gpu/carry.sh [BUILD]        (default build-gpu-carry; about 64 MiB max)
set -euo pipefail
BUILD=${1:-build-gpu-carry}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_SERVER=OFF > /dev/null
cmake --build "$BUILD" -j "$(nproc)" --target test_gpu test_groth16_gpu test_engine_gpu \
    bench_gpu bench_groth16 cuzk-bench > /dev/null
C=$BUILD/carry
rm -rf "$C"
mkdir -p "$C/lib"
for f in tests/test_gpu tests/test_groth16_gpu tests/test_engine_gpu bin/bench_gpu \
    bin/bench_groth16 bin/cuzk-bench; do
    strip -o "$C/$(basename "$f")" "$BUILD/$f"
    gzip -9 "$C/$(basename "$f")"
done
ldd "$BUILD/bin/cuzk-bench" | awk '/=>/ {print $3}' | grep -v -E 'lib(c|m|stdc\+\+|gcc_s)\.so' |
    while read -r lib; do cp -L "$lib" "$C/lib/"; done
cat > "$C/device.sh" <<'DEV'
#!/bin/bash
# Written by tests/gpu/carry.sh; see there.
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/cuzk-carry
OUT=${OUT:-/tmp/cuzk-gpu-out}
export LD_LIBRARY_PATH=$D/lib
mkdir -p "$W" "$OUT"
for f in "$D"/*.gz; do
    gunzip -c "$f" > "$W/$(basename "$f" .gz)"
    chmod +x "$W/$(basename "$f" .gz)"
done
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
for step in "${@:-tests}"; do
    case $step in
    tests)
        timeout 300 "$W/test_gpu" > "$OUT/test_gpu.log" 2>&1
        echo "test_gpu rc=$? $(grep passed "$OUT/test_gpu.log")"
        timeout 120 "$W/test_groth16_gpu" > "$OUT/test_groth16_gpu.log" 2>&1
        echo "test_groth16_gpu rc=$? $(grep passed "$OUT/test_groth16_gpu.log")"
        for t in test_groth16_gpu test_gpu; do
            CUZK_GPU_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
                "$W/$t" > "$OUT/memcheck_$t.log" 2>&1
            echo "memcheck $t rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck_$t.log")"
        done
        CUZK_GPU_TEST_SMALL=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
            "$W/test_gpu" gpu_ntt_naive_dft gpu_ntt_buf_roundtrip gpu_msm_g1_small_n \
            gpu_msm_from_quotient gpu_spmv_edges > "$OUT/racecheck.log" 2>&1
        echo "racecheck rc=$? $(grep 'RACECHECK SUMMARY' "$OUT/racecheck.log")"
        ;;
    bench)
        timeout 330 "$W/bench_gpu" gpu_ntt gpu_quotient gpu_msm > "$OUT/bench_gpu.log" 2>&1
        echo "bench_gpu rc=$?"
        timeout 200 "$W/bench_groth16" 2^16_gpu 2^20_gpu 2^22_gpu 2^22_total \
            > "$OUT/bench_groth16.log" 2>&1
        echo "bench_groth16 rc=$?"
        grep -h -E "^check|_total|_wall" "$OUT/bench_gpu.log" "$OUT/bench_groth16.log"
        ;;
    spmv)
        timeout 120 "$W/test_gpu" gpu_spmv_random gpu_spmv_edges gpu_spmv_rejects \
            > "$OUT/test_spmv.log" 2>&1
        echo "test_gpu spmv rc=$? $(grep passed "$OUT/test_spmv.log")"
        CUZK_GPU_TEST_SMALL=1 timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$W/test_gpu" gpu_spmv_random gpu_spmv_edges gpu_spmv_rejects \
            > "$OUT/memcheck_spmv.log" 2>&1
        echo "memcheck spmv rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck_spmv.log")"
        CUZK_GPU_TEST_SMALL=1 timeout 120 compute-sanitizer --tool racecheck --error-exitcode 9 \
            "$W/test_gpu" gpu_spmv_edges gpu_spmv_random > "$OUT/racecheck_spmv.log" 2>&1
        echo "racecheck spmv rc=$? $(grep 'RACECHECK SUMMARY' "$OUT/racecheck_spmv.log")"
        timeout 300 "$W/bench_gpu" gpu_spmv ${SPMV_ARGS:-} > "$OUT/bench_spmv.log" 2>&1
        echo "bench_gpu spmv rc=$?"
        grep -h -E "^check|^gpu_spmv|^  gpu_spmv|^# " "$OUT/bench_spmv.log"
        ;;
    pce32)
        C1=$W/c1-32g.json SH=$W/porep-32g.shape
        rm -f "$SH"
        "$W/cuzk-bench" gen-vanilla porep --sector-size 32GiB --synthetic --seed 5eed32 \
            --out "$C1" > "$OUT/gen32.log" 2>&1
        echo "gen-vanilla porep 32GiB rc=$?"
        for pass in record load; do
            timeout 280 "$W/cuzk-bench" synth --type porep --c1 "$C1" --partition 0 --repeat 3 \
                --backend pce --threads "$(nproc)" --timing --gpu --shape-file "$SH" \
                > "$OUT/pce32_$pass.log" 2>&1
            echo "synth pce ($pass) rc=$?"
            grep -v -E "^$" "$OUT/pce32_$pass.log" | tail -12
        done
        ls -l "$SH"
        timeout 120 "$W/cuzk-bench" synth --type porep --c1 "$C1" --partition 0 --repeat 1 \
            --backend prover --threads "$(nproc)" > "$OUT/prover32.log" 2>&1
        echo "synth prover rc=$?"
        tail -4 "$OUT/prover32.log"
        ;;
    engine)
        mkdir -p "$W/params-2k"
        for k in winning-post window-post; do
            "$W/cuzk-bench" setup --proof $k --sector-size 2KiB --out "$W/params-2k" \
                --seed c0ffee2c1 > /dev/null
        done
        mkdir -p "$W/tests" # the test's scratch, below $CUZK_TEST_BIN_DIR
        CUZK_TEST_BIN_DIR=$W CUZK_TEST_PARAMS_2K=$W/params-2k timeout 200 "$W/test_engine_gpu" \
            > "$OUT/test_engine_gpu.log" 2>&1
        echo "test_engine_gpu rc=$? $(grep passed "$OUT/test_engine_gpu.log")"
        ;;
    esac
done
grep -h -E "^FAIL|^  /" "$OUT"/*.log 2>/dev/null | head -20
DEV
chmod +x "$C/device.sh"
du -sh "$C"
