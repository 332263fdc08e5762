#!/bin/bash
# carry.sh - packs the GPU binaries built here for a device machine that has the NVIDIA driver
# but no build dependencies: builds them (CUDA on, server off) in BUILD, strips and gzips them
# into BUILD/carry with the shared libraries they need beyond libc/libstdc++ (libjansson for
# cuzk-bench), and writes BUILD/carry/device.sh, which runs on the device from the repository
# root of the copied tree:
#   bash BUILD/carry/device.sh tests    GPU tests at full size, memcheck and racecheck at small
#   bash BUILD/carry/device.sh bench    bench_gpu (NTT, quotient, MSM) and bench_groth16's GPU cases
#   bash BUILD/carry/device.sh sets     bench_gpu's sets cases: ten 0/1-heavy and three dense scalar
#                                       sets over one 24 GiB chunk of points, one call against
#                                       one MSM per set
#   bash BUILD/carry/device.sh msm27    the G1 MSM at 2^27 (dense, 0/1-heavy) with the automatic
#                                       settings, accumulation chunks of 64 and 1024, window 22,
#                                       and bench_gpu_base.gz's build when carried beside
#                                       (MSM27_VARIANTS: a comma-separated choice)
#   bash BUILD/carry/device.sh spmv     the SpMV tests (full size, memcheck, racecheck) and
#                                       bench_gpu's SpMV cases at the 32 GiB partition's shape
#   bash BUILD/carry/device.sh engine   the engine on the device with 2 KiB PoSt parameters
#   bash BUILD/carry/device.sh pce32    a 32 GiB PoRep partition (synthetic C1): the shape
#                                       recorded and saved, then loaded (with the shares of 0, 1
#                                       and other scalars per MSM query); witness + CPU products
#                                       on 16 threads; a, b, c on the device compared with the
#                                       CPU's; the prover backend on 16 threads for comparison
#   bash BUILD/carry/device.sh setup    the device setup's tests (full size, memcheck), then
#                                       `setup` and `setup --gpu` of 2 KiB and 512 MiB kinds
#                                       compared byte for byte
#   bash BUILD/carry/device.sh setup32  `setup --gpu` of the 32 GiB PoRep parameters (time,
#                                       peak RSS) into /tmp/cuzk-carry/p32
#   bash BUILD/carry/device.sh load32   setup32 when missing, then check-params of the 32 GiB
#                                       PoRep parameters to GPU 0: decoded on the host, and
#                                       decoded from the file into the staging (warm, --cold)
#   bash BUILD/carry/device.sh stream32  a card of STREAM_GIB (24) GiB on this one: `cuzk-bench
#                                       gpu-hold` takes the rest of the memory, cuzkd runs with
#                                       gpus.device_memory = STREAM_GIB GiB and host copies paced
#                                       to STREAM_RATE (25GB) per second (memory.total_budget
#                                       STREAM_BUDGET, 76GiB); setup32 when missing, one 32 GiB
#                                       PoRep proof cold and a batch of E2E_BATCH (3), verified;
#                                       the device's used memory sampled every 200 ms (peak
#                                       printed), host-to-device bytes, peak RSS, the copy's mode
#                                       (STREAM_NEVER=1 first: the same with streaming off, 90 s;
#                                       E2E_BATCH=0: no batch; STREAM_SHARE: partitions per
#                                       pass, gpus.stream_share, 10; STREAM_KEPT_H:
#                                       gpus.stream_kept_h, 3)
#   bash BUILD/carry/device.sh e2e-32g  setup32 when its files are missing, a synthetic 32 GiB
#                                       PoRep C1, cuzkd on the device with those parameters,
#                                       one proof verified (cuzk-bench single --vk), then a
#                                       batch (E2E_BATCH, 3), a restart (E2E_NO_RESTART=1: none);
#                                       the daemon's log, timeline SVG and peak RSS
#   bash BUILD/carry/device.sh e2e-32g-x2  (two GPUs) setup32 when missing, then a batch of
#                                       E2E_BATCH (4) 32 GiB PoRep proofs through cuzkd on GPU 0,
#                                       then on GPUs 0 and 1: throughputs, their ratio, peak RSS
#                                       and both timelines
#   bash BUILD/carry/device.sh e2e-snap-32g  (drops the other 32 GiB parameters: disk) 32 GiB
#                                       SnapDeals parameters by setup --gpu, a synthetic 32 GiB
#                                       SnapDeals input (16 partitions), cuzkd, proved cold and
#                                       resident and verified with the .vk
#   bash BUILD/carry/device.sh e2e-wpost-32g  (drops the PoRep parameters: disk) 32 GiB
#                                       WindowPoSt parameters by setup --gpu, cuzkd, Curio's
#                                       golden vanilla proof (vec/, from ../shared) proved cold
#                                       and resident and verified with the .vk
#   bash BUILD/carry/device.sh matrix   per kind of MATRIX_KINDS (porep snap window-post
#                                       winning-post) at MATRIX_SIZE (32GiB): parameters by
#                                       setup --gpu (one kind's on the disk at a time), input
#                                       (synthetic; Curio's vanilla proof for 32 GiB WindowPoSt),
#                                       cuzkd cold, resident and a batch of MATRIX_BATCH (3), all
#                                       verified with the .vk: one table line each in matrix-table.txt
#                                       (MATRIX_GIB=16: on an emulated 16 GiB card, as stream32)
# Logs go to $OUT (the device tool's result folder) or /tmp/cuzk-gpu-out, packed at the end into
# one logs-HHMMSS.tar.gz (timeline SVGs stay beside it).
# Usage (here): tests/gpu/carry.sh [BUILD]        (default build-gpu-carry; about 64 MiB max)
set -euo pipefail
BUILD=${1:-build-gpu-carry}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCUZK_CUDA=ON -DCUZK_SERVER=ON > /dev/null
cmake --build "$BUILD" -j "$(nproc)" --target test_gpu test_groth16_gpu test_engine_gpu \
    test_setup_twin bench_gpu bench_groth16 cuzk-bench cuzkd > /dev/null
C=$BUILD/carry
rm -rf "$C"
mkdir -p "$C/lib"
for f in tests/test_gpu tests/test_groth16_gpu tests/test_engine_gpu tests/test_setup_twin \
    bin/bench_gpu bin/bench_groth16 bin/cuzk-bench bin/cuzkd; do
    strip -o "$C/$(basename "$f")" "$BUILD/$f"
    gzip -9 "$C/$(basename "$f")"
done
ldd "$BUILD/bin/cuzk-bench" "$BUILD/bin/cuzkd" | awk '/=>/ {print $3}' | sort -u |
    grep -v -E 'lib(c|m|stdc\+\+|gcc_s)\.so' | while read -r lib; do
    gzip -9 -c "$lib" > "$C/lib/$(basename "$lib").gz"
done
# Curio's golden 32 GiB WindowPoSt vanilla proof (e2e-wpost-32g), when the shared data is here.
SHARED=${CUZK_SHARED_DIR:-../shared}
if [ -f "$SHARED/vectors/curio/post.vproof" ]; then
    mkdir -p "$C/vec"
    cp "$SHARED/vectors/curio/post.vproof" "$C/vec/"
fi
cat > "$C/device.sh" <<'DEV'
#!/bin/bash
# Written by tests/gpu/carry.sh; see there.
D=$(cd "$(dirname "$0")" && pwd)
W=/tmp/cuzk-carry
OUT=${OUT:-/tmp/cuzk-gpu-out}
export LD_LIBRARY_PATH=$W/lib
mkdir -p "$W/lib" "$OUT"
# Unpacked once: a nested step (or a second device.sh beside this one) must not rewrite a binary
# another process is running.
for f in "$D"/*.gz; do
    [ "$W/$(basename "$f" .gz)" -nt "$f" ] && continue
    gunzip -c "$f" > "$W/$(basename "$f" .gz).part" && chmod +x "$W/$(basename "$f" .gz).part" &&
        mv "$W/$(basename "$f" .gz).part" "$W/$(basename "$f" .gz)"
done
for f in "$D"/lib/*.gz; do
    [ "$W/lib/$(basename "$f" .gz)" -nt "$f" ] && continue
    gunzip -c "$f" > "$W/lib/$(basename "$f" .gz).part" &&
        mv "$W/lib/$(basename "$f" .gz).part" "$W/lib/$(basename "$f" .gz)"
done
nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,driver_version --format=csv,noheader
# The e2e modes' daemon: cuzkd_toml FILE PARAMS [SHAPES [DEVICES]] writes a config that listens
# on $SOCK, loads parameters from PARAMS, caches shapes in SHAPES (when given) and proves on
# the listed devices (gpus.devices, e.g. "[0, 1]"; all of them when not given); start_cuzkd
# CONFIG LOG starts cuzkd in the background with its output in LOG, sets PID and waits up to 20 s
# for $SOCK. porep32_input makes the 32 GiB PoRep parameters (setup32) and synthetic C1 when
# missing and sets C1 and SOCK.
cuzkd_toml() {
    {
        printf '[daemon]\nlisten = ["unix://%s"]\n[srs]\nparam_cache = "%s"\n' "$SOCK" "$2"
        [ -z "${3:-}" ] || printf '[synthesis]\nshape_cache = "%s"\n' "$3"
        [ -z "${4:-}" ] || printf '[gpus]\ndevices = %s\n' "$4"
        printf '[logging]\ntiming = true\n'
    } > "$1"
}
porep32_input() {
    CUZK_NESTED=1 bash "$0" setup32
    C1=$W/c1-32g.json SOCK=$W/cuzkd.sock
    [ -f "$C1" ] || "$W/cuzk-bench" gen-vanilla porep --sector-size 32GiB --synthetic \
        --seed 5eed32 --out "$C1" > "$OUT/gen32.log" 2>&1
}
start_cuzkd() {
    rm -f "$SOCK"
    "$W/cuzkd" --config "$1" > "$2" 2>&1 &
    PID=$!
    for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.2; done
}
# stop_cuzkd [WHAT] prints the daemon's peak and current RSS, stops it and prints its exit status.
stop_cuzkd() {
    echo "cuzkd${1:+ $1} $(grep -E 'VmHWM|VmRSS' /proc/$PID/status | tr -s ' \n' ' ')"
    kill -TERM $PID; wait $PID
    echo "cuzkd exit rc=$?"
}
for step in "${@:-tests}"; do
    case $step in
    unpack)
        # only the binaries, into $W (for direct runs: LD_LIBRARY_PATH=$W/lib $W/bench_gpu ...)
        ;;
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
    msm27)
        # the G1 MSM at 2^27 (dense and 0/1-heavy scalars, phases) by accumulation chunk and
        # window; bench_gpu_base (an earlier build, when carried beside) for before and after;
        # MSM27_VARIANTS="base,--acc-chunk 64" chooses (comma-separated)
        M="gpu_msm_g1_dense_2^27 gpu_msm_g1_01_2^27 --min-lg 24 --max-lg 27"
        IFS=, read -r -a VARS <<< "${MSM27_VARIANTS:-base,--acc-chunk 0,--acc-chunk 64,--acc-chunk 1024,--window 22}"
        for v in "${VARS[@]}"; do
            b=$W/bench_gpu
            if [ "$v" = base ]; then
                b=$W/bench_gpu_base
                [ -x "$b" ] || continue
            fi
            timeout 90 "$b" $M ${v#base} > "$OUT/msm27.log" 2>&1
            echo "bench_gpu $v rc=$?"
            grep -E '^gpu_msm|phases ms' "$OUT/msm27.log" | cut -c1-200
        done
        ;;
    bench)
        timeout 330 "$W/bench_gpu" gpu_ntt gpu_quotient gpu_msm > "$OUT/bench_gpu.log" 2>&1
        echo "bench_gpu rc=$?"
        timeout 200 "$W/bench_groth16" 2^16_gpu 2^20_gpu 2^22_gpu 2^22_total \
            > "$OUT/bench_groth16.log" 2>&1
        echo "bench_groth16 rc=$?"
        grep -h -E "^check|_total|_wall" "$OUT/bench_gpu.log" "$OUT/bench_groth16.log"
        ;;
    sets)
        timeout 120 "$W/bench_gpu" gpu_msm_g1_sets_01_x10 gpu_msm_g1_sets_01_x10_single \
            gpu_msm_g1_sets_dense_x3 gpu_msm_g1_sets_dense_x3_single > "$OUT/bench_sets.log" 2>&1
        echo "bench_gpu sets rc=$?"
        grep -E "^#|^gpu_msm|^check|phases" "$OUT/bench_sets.log"
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
            stats=$([ $pass = load ] && echo --scalar-stats)
            timeout 280 "$W/cuzk-bench" synth --type porep --c1 "$C1" --partition 0 --repeat 3 \
                --backend pce --threads "$(nproc)" --timing --gpu --shape-file "$SH" $stats \
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
    setup)
        timeout 200 "$W/test_gpu" gpu_fixed_base > "$OUT/test_fb.log" 2>&1
        echo "test_gpu fixed_base rc=$? $(grep passed "$OUT/test_fb.log")"
        timeout 200 "$W/test_groth16_gpu" gpu_setup_twin gpu_setup_refuses > "$OUT/test_st.log" 2>&1
        echo "test_groth16_gpu setup rc=$? $(grep passed "$OUT/test_st.log")"
        timeout 200 "$W/test_setup_twin" > "$OUT/test_setup_twin.log" 2>&1
        echo "test_setup_twin rc=$? $(grep -E 'passed|device setup' "$OUT/test_setup_twin.log")"
        CUZK_GPU_TEST_SMALL=1 timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 \
            "$W/test_gpu" gpu_fixed_base > "$OUT/memcheck_fb.log" 2>&1
        echo "memcheck fixed_base rc=$? $(grep 'ERROR SUMMARY' "$OUT/memcheck_fb.log")"
        for ks in porep:2KiB window-post:2KiB window-post:512MiB porep:512MiB; do
            k=${ks%%:*} sz=${ks#*:}
            for dev in cpu gpu; do
                flag=$([ $dev = gpu ] && echo --gpu)
                timeout 300 "$W/cuzk-bench" setup --proof "$k" --sector-size "$sz" --seed 5eed \
                    --out "$W/st-$dev-$k-$sz" --force --quiet $flag > "$OUT/setup-$dev-$k-$sz.log" 2>&1
                echo "setup $dev $k $sz rc=$? $(grep -o -E '(setup|write|total)_ms=[0-9.]+|peak_rss_bytes=[0-9]+' "$OUT/setup-$dev-$k-$sz.log" | tr '\n' ' ')"
            done
            for ext in params vk; do
                if cmp -s "$W/st-cpu-$k-$sz"/*.$ext "$W/st-gpu-$k-$sz"/*.$ext; then
                    echo "  $k $sz .$ext identical ($(stat -c %s "$W/st-cpu-$k-$sz"/*.$ext) bytes)"
                else
                    echo "FAIL $k $sz .$ext differ"
                fi
            done
            rm -rf "$W/st-cpu-$k-$sz" "$W/st-gpu-$k-$sz"
        done
        ;;
    setup32)
        # the WindowPoSt parameters do not fit beside the PoRep ones on the disk
        rm -rf "$W/pw32"
        if ! ls "$W"/p32/*.cuzk-setup > /dev/null 2>&1; then
            timeout 560 "$W/cuzk-bench" setup --gpu --proof porep --sector-size 32GiB --seed 5eed32 \
                --out "$W/p32" > "$OUT/setup32.log" 2>&1
            echo "setup --gpu porep 32GiB rc=$?"
            grep -v '^$' "$OUT/setup32.log" | tail -6
        fi
        ls -l "$W/p32"
        df -h /tmp | tail -1
        ;;
    e2e-wpost-32g)
        # the PoRep parameters do not fit beside the WindowPoSt ones on the disk
        rm -rf "$W/p32" "$W/shapes"
        PW=$W/pw32 SOCK=$W/cuzkd.sock
        if ! ls "$PW"/*.cuzk-setup > /dev/null 2>&1; then
            timeout 400 "$W/cuzk-bench" setup --gpu --proof window-post --sector-size 32GiB \
                --seed 5eed32 --out "$PW" > "$OUT/setup-wpost32.log" 2>&1
            echo "setup --gpu window-post 32GiB rc=$? $(tail -1 "$OUT/setup-wpost32.log" | grep -o -E '(check|setup|total)_ms=[0-9.]+|peak_rss_bytes=[0-9]+|params_bytes=[0-9]+' | tr '\n' ' ')"
        fi
        cuzkd_toml "$W/cuzkd-w.toml" "$PW"
        start_cuzkd "$W/cuzkd-w.toml" "$OUT/cuzkd-wpost.log"
        zero=0000000000000000000000000000000000000000000000000000000000000000
        for run in cold resident resident2; do
            timeout 200 "$W/cuzk-bench" single --type window-post --vanilla "$D/vec/post.vproof" \
                --no-sidecar --sector-size 32GiB --registered-proof 8 --miner-id 1000 \
                --randomness $zero --addr "unix://$SOCK" --vk "$(ls "$PW"/*.vk)" \
                > "$OUT/wpost-$run.log" 2>&1
            echo "single window-post ($run) rc=$?"; grep -A12 '^stage' "$OUT/wpost-$run.log"
        done
        stop_cuzkd
        "$W/cuzk-bench" timeline --log "$OUT/cuzkd-wpost.log" --out "$OUT/timeline-wpost-32g.svg" \
            > "$OUT/timeline-wpost.log" 2>&1
        grep -A30 '^stage' "$OUT/timeline-wpost.log" | head -30
        # the witness of the partition (prover backend) and its MSMs' scalars
        timeout 200 "$W/cuzk-bench" synth --type window-post --vanilla "$D/vec/post.vproof" \
            --no-sidecar --sector-size 32GiB --registered-proof 8 --miner-id 1000 \
            --randomness $zero --repeat 1 --threads "$(nproc)" --scalar-stats --quiet \
            > "$OUT/wpost-synth.log" 2>&1
        echo "synth window-post rc=$?"; grep -E '^(scalars|0 )|peak' "$OUT/wpost-synth.log"
        ;;
    load32)
        # the 32 GiB PoRep parameters from the file to the device: host decode + upload, then
        # cuzkd's path (points decoded from the file into the pinned staging), warm and cold
        CUZK_NESTED=1 bash "$0" setup32
        P=$(ls "$W"/p32/*.params)
        for flags in "--gpu" "--gpu --from-file" "--cold --gpu --from-file"; do
            "$W/cuzk-bench" check-params --params "$P" $flags > "$OUT/load32.log" 2>&1
            echo "check-params $flags rc=$? $(grep -o -E '(load|upload)_ms=[0-9.]+|from_file=[01]|rss_bytes=[0-9]+' "$OUT/load32.log" | tr '\n' ' ')"
        done
        ;;
    e2e-snap-32g)
        # one 32 GiB kind's parameters on the disk at a time
        rm -rf "$W/p32" "$W/pw32" "$W/shapes"
        PS=$W/ps32 SOCK=$W/cuzkd.sock V=$W/snap32/snap.json
        if ! ls "$PS"/*.cuzk-setup > /dev/null 2>&1; then
            timeout 400 "$W/cuzk-bench" setup --gpu --proof snap --sector-size 32GiB \
                --seed 5eed32 --out "$PS" > "$OUT/setup-snap32.log" 2>&1
            echo "setup --gpu snap 32GiB rc=$? $(tail -1 "$OUT/setup-snap32.log" | grep -o -E '(check|setup|total)_ms=[0-9.]+|peak_rss_bytes=[0-9]+|params_bytes=[0-9]+' | tr '\n' ' ')"
        fi
        mkdir -p "$W/snap32"
        [ -f "$V" ] || "$W/cuzk-bench" gen-vanilla snap --sector-size 32GiB --synthetic \
            --seed 5eed32 --out "$V" > "$OUT/gen-snap32.log" 2>&1
        tail -2 "$OUT/gen-snap32.log"
        cuzkd_toml "$W/cuzkd-s.toml" "$PS"
        start_cuzkd "$W/cuzkd-s.toml" "$OUT/cuzkd-snap.log"
        for run in cold resident; do
            timeout 200 "$W/cuzk-bench" single --type snap --vanilla "$V" --addr "unix://$SOCK" \
                --vk "$(ls "$PS"/*.vk)" > "$OUT/snap-$run.log" 2>&1
            echo "single snap ($run) rc=$?"; grep -A12 '^stage' "$OUT/snap-$run.log"
        done
        stop_cuzkd
        "$W/cuzk-bench" timeline --log "$OUT/cuzkd-snap.log" --out "$OUT/timeline-snap-32g.svg" \
            > "$OUT/timeline-snap.log" 2>&1
        grep -A30 '^stage' "$OUT/timeline-snap.log" | head -30
        timeout 200 "$W/cuzk-bench" synth --type snap --vanilla "$V" --partition 0 --repeat 1 \
            --threads "$(nproc)" --scalar-stats --quiet > "$OUT/snap-synth.log" 2>&1
        echo "synth snap rc=$?"; grep -E '^(scalars|0 )|peak' "$OUT/snap-synth.log"
        ;;
    stream32)
        porep32_input
        G=${STREAM_GIB:-24}
        VK=$(ls "$W"/p32/*.vk)
        "$W/cuzk-bench" gpu-hold --leave-mib $((G * 1024)) > "$OUT/hold.log" 2>&1 &
        HOLD=$!
        for _ in $(seq 100); do grep -q held_bytes "$OUT/hold.log" && break; sleep 0.2; done
        cat "$OUT/hold.log"
        nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 \
            > "$OUT/devmem.log" 2>&1 &
        SMI=$!
        for never in ${STREAM_NEVER:+1} 0; do
            cuzkd_toml "$W/cuzkd-s.toml" "$W/p32"
            printf '[gpus]\ndevice_memory = "%sGiB"\ndebug_h2d_rate = "%s"\nstream_share = %s\nstream_kept_h = %s\n' \
                "$G" "${STREAM_RATE:-25GB}" "${STREAM_SHARE:-10}" "${STREAM_KEPT_H:-3}" >> "$W/cuzkd-s.toml"
            [ "$never" = 1 ] && printf 'streaming = "never"\n' >> "$W/cuzkd-s.toml"
            printf '[memory]\ntotal_budget = "%s"\n' "${STREAM_BUDGET:-76GiB}" >> "$W/cuzkd-s.toml"
            L=$OUT/cuzkd-s$never-$G.log
            start_cuzkd "$W/cuzkd-s.toml" "$L"
            if [ "$never" = 1 ]; then
                timeout 90 "$W/cuzk-bench" single --type porep --c1 "$C1" --addr "unix://$SOCK" \
                    > "$OUT/never.log" 2>&1
                echo "streaming=never single rc=$? (90 s limit)"
                grep -E 'event=cpu_fallback|stage=(prove|synthesis) ' "$L" |
                    head -6 | cut -c1-240
                kill -QUIT $PID; wait $PID # a CPU proof in progress: the fast stop
                continue
            fi
            timeout 300 "$W/cuzk-bench" single --type porep --c1 "$C1" --addr "unix://$SOCK" \
                --vk "$VK" > "$OUT/s-single-$G.log" 2>&1
            echo "$G GiB single (cold) rc=$?"; tail -15 "$OUT/s-single-$G.log"
            if [ "${E2E_BATCH:-3}" -gt 0 ]; then
                timeout 400 "$W/cuzk-bench" batch --type porep --c1 "$C1" \
                    --addr "unix://$SOCK" --count "${E2E_BATCH:-3}" > "$OUT/s-batch-$G.log" 2>&1
                echo "$G GiB batch rc=$?"; tail -17 "$OUT/s-batch-$G.log"
            fi
            "$W/cuzk-bench" metrics --addr "unix://$SOCK" > "$OUT/s-metrics-$G.log" 2>&1
            grep -E '^cuzk_(gpu_(proofs|h2d_bytes|cpu_fallbacks)_total|process_resident)' \
                "$OUT/s-metrics-$G.log"
            stop_cuzkd "(streamed)"
            grep -E 'event=(resident|opened|gpu_error|cpu_fallback|shared_pass|group_failed)' \
                "$L" | head -20 | cut -c1-300
            grep -o -E 'event=shared_pass partitions=[0-9]+' "$L" | sort | uniq -c
            echo "witnesses released after their fronts: $(grep -c event=witness_released "$L")"
            "$W/cuzk-bench" timeline --log "$L" --out "$OUT/timeline-s32g-$G.svg" \
                > "$OUT/s-timeline-$G.log" 2>&1
            head -40 "$OUT/s-timeline-$G.log"
        done
        kill $SMI $HOLD; wait $SMI $HOLD 2> /dev/null
        sort -n "$OUT/devmem.log" | tail -1 | sed 's/^/device used MiB, peak (holder + cuzkd): /'
        mv "$OUT/devmem.log" "$OUT/devmem-$G.log"
        ;;
    matrix)
        # One line per kind at MATRIX_SIZE (32GiB) into $OUT/matrix-table.txt: its parameters made on
        # the GPU (the other kinds' removed first: disk), its input, cuzkd, one proof cold, one
        # resident and a batch of MATRIX_BATCH (3), every proof verified with the .vk; the daemon's
        # peak RSS and the device's peak used memory (sampled every 200 ms). MATRIX_KINDS chooses
        # (default "porep snap window-post winning-post"); without nvidia-smi (a machine without a
        # GPU) the parameters are made on the CPU, which is how the step is tried at 2 KiB.
        # MATRIX_GIB: an emulated card of that many GiB while cuzkd runs (as stream32: a holder
        # takes the rest, gpus.device_memory, copies paced to MATRIX_RATE, 25GB; the device's
        # column then counts the holder too, its bytes in the log line `held_bytes`).
        SZ=${MATRIX_SIZE:-32GiB} SOCK=$W/cuzkd.sock MB=${MATRIX_BATCH:-3}
        zero=0000000000000000000000000000000000000000000000000000000000000000
        gpu=$(command -v nvidia-smi > /dev/null && echo --gpu)
        [ -f "$OUT/matrix-table.txt" ] || printf '%s\n%s\n' \
            '| kind | size | constraints per partition | partitions | cold s | resident s | steady s/proof | verified | peak RSS GB | peak device MiB | H2D GB/proof |' \
            '|---|---|---|---|---|---|---|---|---|---|---|' > "$OUT/matrix-table.txt"
        for kind in ${MATRIX_KINDS:-porep snap window-post winning-post}; do
            P=$W/m-$kind-$SZ L=$OUT/cuzkd-m-$kind-$SZ.log
            find "$W" -maxdepth 1 -name 'm-*' ! -name "m-$kind-$SZ" -exec rm -rf {} +
            rm -rf "$W/p32" "$W/pw32" "$W/ps32" "$W/shapes"
            if ! ls "$P"/*.vk > /dev/null 2>&1; then
                timeout 450 "$W/cuzk-bench" setup $gpu --proof "$kind" --sector-size "$SZ" \
                    --seed 5eed32 --out "$P" > "$OUT/m-setup-$kind.log" 2>&1
                echo "setup $kind $SZ rc=$? $(tail -1 "$OUT/m-setup-$kind.log" | grep -o -E '(setup|total)_ms=[0-9.]+' | tr '\n' ' ')"
            fi
            IN=$W/m-in-$kind-$SZ
            if [ "$kind" = window-post ] && [ "$SZ" = 32GiB ] && [ -f "$D/vec/post.vproof" ]; then
                REQ=(--vanilla "$D/vec/post.vproof" --no-sidecar --sector-size 32GiB
                    --registered-proof 8 --miner-id 1000 --randomness $zero)
            else
                [ -f "$IN" ] || timeout 300 "$W/cuzk-bench" gen-vanilla "$kind" --sector-size "$SZ" \
                    --synthetic --seed 5eed32 --out "$IN" > "$OUT/m-gen-$kind.log" 2>&1 ||
                    { echo "gen-vanilla $kind $SZ failed: $(tail -1 "$OUT/m-gen-$kind.log")"; continue; }
                REQ=(--vanilla "$IN")
                [ "$kind" = porep ] && REQ=(--c1 "$IN")
            fi
            VK=$(ls "$P"/*.vk)
            cuzkd_toml "$W/cuzkd-m.toml" "$P"
            HOLD=""
            if [ -n "${MATRIX_GIB:-}" ] && [ -n "$gpu" ]; then
                "$W/cuzk-bench" gpu-hold --leave-mib $((MATRIX_GIB * 1024)) \
                    > "$OUT/m-hold-$kind.log" 2>&1 &
                HOLD=$!
                for _ in $(seq 100); do grep -q held_bytes "$OUT/m-hold-$kind.log" && break; sleep 0.2; done
                echo "$kind $SZ card of $MATRIX_GIB GiB: $(cat "$OUT/m-hold-$kind.log")"
                printf '[gpus]\ndevice_memory = "%sGiB"\ndebug_h2d_rate = "%s"\n' "$MATRIX_GIB" \
                    "${MATRIX_RATE:-25GB}" >> "$W/cuzkd-m.toml"
            fi
            start_cuzkd "$W/cuzkd-m.toml" "$L"
            SMI=""
            if [ -n "$gpu" ]; then
                nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits -lms 200 \
                    > "$OUT/m-devmem-$kind.log" 2>&1 &
                SMI=$!
            fi
            secs=() ok=0
            for run in cold resident; do
                timeout 300 "$W/cuzk-bench" single --type "$kind" "${REQ[@]}" --addr "unix://$SOCK" \
                    --vk "$VK" --json > "$OUT/m-$kind-$run.log" 2> "$OUT/m-$kind-$run.err"
                rc=$? # 0: completed and verified here
                ok=$((ok + (rc == 0)))
                echo "$kind $SZ $run rc=$rc $(head -c 400 "$OUT/m-$kind-$run.log")"
                secs+=("$(grep -o '"total_ms":[0-9]*' "$OUT/m-$kind-$run.log" | awk -F: '{printf "%.2f", $2 / 1000}')")
            done
            timeout 400 "$W/cuzk-bench" batch --type "$kind" "${REQ[@]}" --addr "unix://$SOCK" \
                --count "$MB" --vk "$VK" > "$OUT/m-$kind-batch.log" 2>&1
            echo "$kind $SZ batch rc=$? $(grep -E '^batch:|^h2d' "$OUT/m-$kind-batch.log" | tr '\n' ' ')"
            rss=$(awk '/VmHWM/ {printf "%.1f", $2 * 1024 / 1e9}' /proc/$PID/status)
            stop_cuzkd "($kind $SZ)"
            [ -n "$SMI" ] && { kill $SMI; wait $SMI 2> /dev/null; }
            [ -n "$HOLD" ] && { kill $HOLD; wait $HOLD 2> /dev/null; }
            grep -E 'event=(resident|cpu_fallback|shared_pass)' "$L" | head -3 | cut -c1-260
            dev=$([ -n "$SMI" ] && sort -n "$OUT/m-devmem-$kind.log" | tail -1 || echo -)
            awk -v kind="$kind" -v sz="$SZ" -v cold="${secs[0]}" -v res="${secs[1]}" -v rss="$rss" \
                -v dev="$dev" -v mb="$MB" -v ok="$ok" '
                FILENAME ~ /cuzkd/ && /stage=synthesis .*constraints=/ && !c { match($0, /constraints=[0-9]+/);
                    c = substr($0, RSTART + 12, RLENGTH - 12) }
                FILENAME ~ /batch/ && /^batch:/ { for (i = 1; i <= NF; i++) {
                    split($i, kv, "="); b[kv[1]] = kv[2] } }
                FILENAME ~ /batch/ && /^h2d per proof/ { h2d = $4 }
                FILENAME ~ /cold.log/ && /proof_bytes/ { match($0, /"proof_bytes":[0-9]+/);
                    parts = substr($0, RSTART + 14, RLENGTH - 14) / 192 }
                END { steady = b["throughput"] > 0 ? sprintf("%.2f", 1 / b["throughput"]) : "-";
                    printf "| %s | %s | %s | %d | %s | %s | %s | %d of %d | %s | %s | %s |\n",
                        kind, sz, c, parts, cold, res, steady, ok + b["verified"], mb + 2, rss, dev,
                        h2d }' \
                "$L" "$OUT/m-$kind-cold.log" "$OUT/m-$kind-batch.log" | tee -a "$OUT/matrix-table.txt"
        done
        cat "$OUT/matrix-table.txt"
        ;;
    e2e-32g)
        porep32_input
        cuzkd_toml "$W/cuzkd.toml" "$W/p32" "$W/shapes"
        mkdir -p "$W/shapes"
        start_cuzkd "$W/cuzkd.toml" "$OUT/cuzkd.log"
        VK=$(ls "$W"/p32/*.vk)
        timeout 200 "$W/cuzk-bench" single --type porep --c1 "$C1" --addr "unix://$SOCK" \
            --vk "$VK" > "$OUT/single1.log" 2>&1
        echo "single (cold) rc=$?"; tail -14 "$OUT/single1.log"
        timeout 120 "$W/cuzk-bench" single --type porep --c1 "$C1" --addr "unix://$SOCK" \
            --vk "$VK" > "$OUT/single2.log" 2>&1
        echo "single (resident) rc=$?"; tail -14 "$OUT/single2.log"
        timeout 200 "$W/cuzk-bench" batch --type porep --c1 "$C1" --addr "unix://$SOCK" \
            --count "${E2E_BATCH:-3}" > "$OUT/batch.log" 2>&1
        echo "batch rc=$?"; tail -16 "$OUT/batch.log"
        "$W/cuzk-bench" status --addr "unix://$SOCK" > "$OUT/status.log" 2>&1
        "$W/cuzk-bench" metrics --addr "unix://$SOCK" > "$OUT/metrics.log" 2>&1
        grep -E '^cuzk_(gpu_(proofs|staged)_total|partition_assignments|process_resident|spare_assignments|memory_spare)' "$OUT/metrics.log"
        stop_cuzkd
        grep -E 'event=(resident|shape_resident|host_points_[a-z]*|recorded)|stage=srs_load' \
            "$OUT/cuzkd.log" | cut -c1-220
        "$W/cuzk-bench" timeline --log "$OUT/cuzkd.log" --out "$OUT/timeline-32g.svg" \
            > "$OUT/timeline.log" 2>&1
        head -40 "$OUT/timeline.log"
        # A restart: the shape comes from the cache directory, the parameters from the page
        # cache; the peak RSS of a daemon that never records a shape (E2E_NO_RESTART=1: not).
        [ -n "${E2E_NO_RESTART:-}" ] && continue
        start_cuzkd "$W/cuzkd.toml" "$OUT/cuzkd2.log"
        timeout 200 "$W/cuzk-bench" preload --circuit-id porep-32g --addr "unix://$SOCK" \
            > "$OUT/preload.log" 2>&1
        echo "preload rc=$? $(tail -1 "$OUT/preload.log")"
        for run in 1 2; do
            timeout 120 "$W/cuzk-bench" single --type porep --c1 "$C1" --addr "unix://$SOCK" \
                --vk "$VK" > "$OUT/restart$run.log" 2>&1
            echo "single after restart ($run) rc=$? $(grep -E '^(total|srs load|synthesis|prove)' "$OUT/restart$run.log" | tr -s ' \n' ' ')"
        done
        stop_cuzkd "(restart)"
        grep -E 'event=(loaded|recorded|resident|shape_resident|preloaded)' "$OUT/cuzkd2.log" |
            cut -c1-220
        ;;
    e2e-32g-x2)
        # On a host with two GPUs: E2E_BATCH (4) 32 GiB PoRep proofs through cuzkd on GPU 0
        # alone, then on GPUs 0 and 1 (parameters made resident by PreloadSRS first, the shape
        # recorded by a first proof); the batches' throughput and their ratio, peak RSS, both
        # timelines (timeline-32g-gpu0.svg, timeline-32g-gpu01.svg)
        porep32_input
        mkdir -p "$W/shapes"
        for devs in "[0]" "[0, 1]"; do
            tag=gpu$(echo "$devs" | tr -dc '0-9')
            cuzkd_toml "$W/cuzkd-$tag.toml" "$W/p32" "$W/shapes" "$devs"
            start_cuzkd "$W/cuzkd-$tag.toml" "$OUT/cuzkd-$tag.log"
            timeout 200 "$W/cuzk-bench" preload --circuit-id porep-32g --addr "unix://$SOCK" \
                > "$OUT/preload-$tag.log" 2>&1
            echo "$tag preload rc=$? $(tail -1 "$OUT/preload-$tag.log")"
            timeout 200 "$W/cuzk-bench" single --type porep --c1 "$C1" --addr "unix://$SOCK" \
                --vk "$(ls "$W"/p32/*.vk)" > "$OUT/single-$tag.log" 2>&1
            echo "$tag single rc=$? $(grep -E '^total' "$OUT/single-$tag.log")"
            timeout 400 "$W/cuzk-bench" batch --type porep --c1 "$C1" --addr "unix://$SOCK" \
                --count "${E2E_BATCH:-4}" > "$OUT/batch-$tag.log" 2>&1
            echo "$tag batch rc=$? $(grep '^batch:' "$OUT/batch-$tag.log")"
            "$W/cuzk-bench" metrics --addr "unix://$SOCK" 2>&1 | grep -E '^cuzk_gpu_proofs_total'
            stop_cuzkd "$tag"
            "$W/cuzk-bench" timeline --log "$OUT/cuzkd-$tag.log" \
                --out "$OUT/timeline-32g-$tag.svg" > "$OUT/timeline-$tag.log" 2>&1
        done
        awk -F'throughput=' '/^batch:/ {split($2, v, " "); t[FILENAME] = v[1]}
            END {a = t[ARGV[1]]; b = t[ARGV[2]];
                 if (a > 0) printf "two GPUs / one: %.3f / %.3f proofs/s = %.2fx\n", b, a, b / a}' \
            "$OUT/batch-gpu0.log" "$OUT/batch-gpu01.log"
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
# Few files come back from the device: the logs travel as one archive beside the SVGs.
if [ -z "${CUZK_NESTED:-}" ] && ls "$OUT"/*.log > /dev/null 2>&1; then
    (cd "$OUT" && tar czf "logs-$(date +%H%M%S).tar.gz" ./*.log && rm -f ./*.log)
fi
DEV
chmod +x "$C/device.sh"
du -sh "$C"
