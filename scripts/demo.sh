#!/usr/bin/env bash
# The end-to-end demo (`make demo`, after `make`): 2 KiB Filecoin proofs through the daemon.
#   1. test parameters of the four circuits under their official names in BUILD/params-2k
#      (`cuzk-bench setup`; reused while up to date, e.g. made by the e2e test fixture);
#   2. a 2 KiB sector sealed with the seal library and its vanilla proofs (`cuzk-bench
#      gen-vanilla`): PoRep C1 (Curio's wrapper), WinningPoSt, WindowPoSt (2 sectors), SnapDeals;
#   3. cuzkd on a unix socket with that parameter cache; the four proofs requested over gRPC
#      exactly as Curio requests them, each verified by the client with @noble/curves;
#   4. a table of per-stage times (queue, SRS load, synthesis, prove, total) and the wall time.
# Usage: scripts/demo.sh [BUILD_DIR] (default build). Exit 0 iff every proof verified.
set -euo pipefail
build=${1:-build}
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
case $build in /*) ;; *) build=$top/$build ;; esac

bench=$build/bin/cuzk-bench
cuzkd=$build/bin/cuzkd
params=$build/params-2k
for f in "$bench" "$cuzkd"; do
    [ -x "$f" ] || { echo "demo: $f is missing: run make first" >&2; exit 2; }
done
command -v node >/dev/null || { echo "demo: node is missing: run make deps" >&2; exit 2; }

ms() { date +%s%3N; }
t_start=$(ms)
step() { printf '\n== %s\n' "$*"; }

work=$(mktemp -d "${TMPDIR:-/tmp}/cuzk-demo.XXXXXX")
trap 'rm -rf "$work"' EXIT

step "test parameters (2 KiB, official file names) in $params"
t=$(ms)
tests/e2e/make_params.sh "$bench" "$params" | sed 's/ params=[^ ]*//; s/ shape=[^ ]*//'
t_params=$(($(ms) - t))

step "seal a 2 KiB sector and write its vanilla proofs"
t=$(ms)
seed=$(printf '%08x' $$)
gen() {
    if ! "$bench" gen-vanilla "$@" --sector-size 2KiB --workdir "$work/sector" --seed "$seed" \
        >"$work/gen.out" 2>"$work/gen.err"; then
        cat "$work/gen.out" "$work/gen.err" >&2
        echo "demo: cuzk-bench gen-vanilla $1 failed" >&2
        exit 1
    fi
    grep -v '^gen-vanilla' "$work/gen.out" | sed 's/ sidecar=[^ ]*//'
}
gen porep --curio-wrapper --out "$work/c1.json"
gen winning-post --out "$work/winning.vproof"
gen window-post --sectors 2 --out "$work/window.json"
gen snap --out "$work/snap-vproof.json"
t_seal=$(($(ms) - t))

step "cuzkd: prove over gRPC, verify with @noble/curves"
t=$(ms)
node tests/e2e/demo_client.mjs "$cuzkd" "$params" "$work"
t_prove=$(($(ms) - t))

step "wall time"
secs() { awk -v ms="$1" 'BEGIN { printf "%8.1f s", ms / 1000 }'; }
printf '%-38s %s\n' "parameters (make or reuse)" "$(secs "$t_params")" \
    "sealing + vanilla proofs" "$(secs "$t_seal")" \
    "daemon start, 4 proofs, verification" "$(secs "$t_prove")" \
    "demo total" "$(secs $(($(ms) - t_start)))"
