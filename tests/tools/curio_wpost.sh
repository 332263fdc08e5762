#!/bin/sh
# Curio's golden 32 GiB WindowPoSt vanilla proof (vectors/curio/post.vproof in the shared data;
# its README gives the public inputs: randomness 32 zero bytes, StackedDrgWindow32GiBV1 = 8,
# miner 1000) through `cuzk-bench check-vanilla`: the sector proof verifies natively, the
# padded 2349-sector partition satisfies the 32 GiB WindowPoSt circuit (checker backend, every
# one of its 125,305,057 constraints) with the public inputs the verifier derives, and a byte
# flipped 40 bytes before its end (in comm_c / comm_r_last) is refused. Exit 77 (skip) without
# the shared data.
# Usage: curio_wpost.sh CUZK_BENCH WORKDIR SHARED_DIR   ($CUZK_SHARED_DIR wins when set)
set -u
bench=$1
dir=$2
shared=${CUZK_SHARED_DIR:-$3}
golden=$shared/vectors/curio/post.vproof
if [ ! -f "$golden" ]; then
    echo "skip: $golden not found (set CUZK_SHARED_DIR)"
    exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"
cp "$golden" "$dir/post.vproof"
zero=0000000000000000000000000000000000000000000000000000000000000000
check() { # expected-rc
    "$bench" check-vanilla --type window-post --vanilla "$dir/post.vproof" --no-sidecar \
        --sector-size 32GiB --registered-proof 8 --miner-id 1000 --randomness "$zero" \
        >"$dir/check.log" 2>&1
    rc=$?
    if [ "$rc" != "$1" ]; then
        echo "FAIL check-vanilla: exit $rc, expected $1"
        cat "$dir/check.log"
        exit 1
    fi
    echo "ok   check-vanilla exit $rc: $(tail -n 1 "$dir/check.log")"
}
check 0
n=$(wc -c <"$dir/post.vproof")
printf '\377' | dd of="$dir/post.vproof" bs=1 seek=$((n - 40)) conv=notrunc 2>/dev/null
check 1
echo "2 passed, 0 failed"
