#!/bin/bash
# snarkjs_compare.sh - one whole Groth16 proof of the same circom circuit by snarkjs and by
# cuzk-bench, on this machine, with the same witness; both proofs verified.
# Usage: bench/snarkjs_compare.sh [BUILD_DIR] [ROUNDS]     (from the repository root)
# Output: one line per prover (median wall seconds over ROUNDS interleaved runs, file loading
# included for both) and the ratio.
# Cache: $CUZK_SNARKJS_CACHE (default ~/.cache/cuzk-snarkjs), outside the repository: the
# prepared powers of tau (BLS12-381, power 16: several hours of snarkjs on 2 cores the first
# time, reused afterwards), the compiled circuit, the snarkjs zkey and our parameters.
set -euo pipefail
BUILD=$(cd "${1:-build}" && pwd)
ROUNDS=${2:-3}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=$ROOT/tests/oracle/node_modules/.bin
CACHE=${CUZK_SNARKJS_CACHE:-$HOME/.cache/cuzk-snarkjs}
CIRCUIT=$ROOT/bench/circom/chain.circom
BENCH=$BUILD/bin/cuzk-bench
mkdir -p "$CACHE"
cd "$CACHE"
[ -x "$BENCH" ] || { echo "no $BENCH: build first" >&2; exit 2; }
[ -x "$BIN/snarkjs" ] || { echo "no snarkjs: run scripts/install-deps.sh" >&2; exit 2; }
say() { echo "# $(date +%T) $*" >&2; }

# circuit and witness, rebuilt when the circuit source changes
sum=$(sha256sum "$CIRCUIT" | cut -c1-16)
if [ ! -f "chain-$sum.r1cs" ] || [ ! -f "chain-$sum.wtns" ]; then
    say "compiling $CIRCUIT"
    cp "$CIRCUIT" chain.circom
    "$BIN/circom2" chain.circom --r1cs --wasm --prime bls12381 -o . > circom.log
    echo '{"x":"3","y":"5"}' > input.json
    "$BIN/snarkjs" wtns calculate chain_js/chain.wasm input.json chain.wtns
    mv chain.r1cs "chain-$sum.r1cs"
    mv chain.wtns "chain-$sum.wtns"
    rm -f "chain-$sum.zkey" "chain-$sum.params"
fi
PTAU=pot16-bls12381-prepared.ptau
if [ ! -f "$PTAU" ]; then
    say "powers of tau (power 16, BLS12-381): this takes hours on 2 cores"
    "$BIN/snarkjs" powersoftau new bls12381 16 pot16-0.ptau
    "$BIN/snarkjs" powersoftau contribute pot16-0.ptau pot16-1.ptau --name=bench -e="$RANDOM$RANDOM"
    "$BIN/snarkjs" powersoftau prepare phase2 pot16-1.ptau "$PTAU.tmp"
    mv "$PTAU.tmp" "$PTAU"
    rm -f pot16-0.ptau pot16-1.ptau
fi
if [ ! -f "chain-$sum.zkey" ]; then
    say "snarkjs groth16 setup"
    "$BIN/snarkjs" groth16 setup "chain-$sum.r1cs" "$PTAU" zkey0.tmp > /dev/null
    "$BIN/snarkjs" zkey contribute zkey0.tmp zkey1.tmp --name=bench -e="$RANDOM$RANDOM" > /dev/null
    "$BIN/snarkjs" zkey export verificationkey zkey1.tmp "chain-$sum.vk.json" > /dev/null
    mv zkey1.tmp "chain-$sum.zkey"
    rm -f zkey0.tmp
fi
if [ ! -f "chain-$sum.params" ]; then
    say "cuzk-bench setup"
    "$BENCH" setup --r1cs "chain-$sum.r1cs" --out "chain-$sum.params" > /dev/null
fi

wall() { # seconds of wall time of "$@", output discarded
    local t0 t1
    t0=$(date +%s.%N)
    "$@" > /dev/null 2>&1 || { echo "failed: $*" >&2; exit 1; }
    t1=$(date +%s.%N)
    awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", b - a}'
}
median() { sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'; }

sj=() cz=()
for ((i = 0; i < ROUNDS; i++)); do
    sj+=("$(wall "$BIN/snarkjs" groth16 prove "chain-$sum.zkey" "chain-$sum.wtns" sj-proof.json sj-public.json)")
    cz+=("$(wall "$BENCH" prove --params "chain-$sum.params" --r1cs "chain-$sum.r1cs" \
        --wtns "chain-$sum.wtns" --out cz-proof.bin --public-out cz-public.json)")
done
"$BIN/snarkjs" groth16 verify "chain-$sum.vk.json" sj-public.json sj-proof.json > /dev/null \
    || { echo "snarkjs's proof does not verify" >&2; exit 1; }
"$BENCH" verify --vk "chain-$sum.vk" --proof cz-proof.bin --public cz-public.json > /dev/null \
    || { echo "cuzk's proof does not verify" >&2; exit 1; }
"$BENCH" export-snarkjs --vk "chain-$sum.vk" --proof cz-proof.bin --out-vk cz-vk.json \
    --out-proof cz-proof.json > /dev/null
"$BIN/snarkjs" groth16 verify cz-vk.json cz-public.json cz-proof.json > /dev/null \
    || { echo "snarkjs rejects cuzk's proof" >&2; exit 1; }
cons=$(grep -a -o "non-linear constraints: [0-9]*" circom.log 2>/dev/null | grep -o "[0-9]*$" || echo "?")
s=$(printf '%s\n' "${sj[@]}" | median)
c=$(printf '%s\n' "${cz[@]}" | median)
printf 'snarkjs_groth16_prove chain constraints=%s rounds=%s median_s=%.3f all=%s\n' "$cons" \
    "$ROUNDS" "$s" "$(IFS=,; echo "${sj[*]}")"
printf 'cuzk_bench_prove      chain constraints=%s rounds=%s median_s=%.3f all=%s\n' "$cons" \
    "$ROUNDS" "$c" "$(IFS=,; echo "${cz[*]}")"
printf 'speedup %.1fx (both proofs verified; cuzk proof accepted by snarkjs)\n' \
    "$(awk -v a="$s" -v b="$c" 'BEGIN {print a / b}')"
