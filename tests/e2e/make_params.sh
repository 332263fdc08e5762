#!/usr/bin/env bash
# make_params.sh CUZK_BENCH DIR - the 2 KiB test parameters of the four kinds cuzkd proves
# (PoRep, WinningPoSt, WindowPoSt, SnapDeals), written by `cuzk-bench setup` under the official
# file names into DIR; each kind is skipped when its stamp says it is up to date. The seed
# makes them reproducible (and insecure: test parameters only).
set -euo pipefail
bench=$1
dir=$2
for kind in porep winning-post window-post snap; do
    "$bench" setup --proof "$kind" --sector-size 2KiB --out "$dir" --seed c0ffee2c1
done
