#!/bin/sh
# A corrupted byte in a .params or .vk file is reported, never loaded: `cuzk-bench
# check-params` (the loader cuzkd uses) fails with the file, the section, the point and its
# byte offset. 2 KiB WindowPoSt test parameters (seconds to make).
# Usage: params_corrupt.sh CUZK_BENCH WORKDIR
set -u
bench=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
fail=0

"$bench" setup --proof window-post --sector-size 2KiB --out "$dir/p" --seed 5eed --quiet \
    >"$dir/setup.log" 2>&1 || { echo "FAIL setup"; cat "$dir/setup.log"; exit 1; }
params=$(ls "$dir"/p/*.params)
vk=$(ls "$dir"/p/*.vk)

check() { # expected-rc expected-regex file-params file-vk label
    "$bench" check-params --params "$3" --vk "$4" >"$dir/out.log" 2>&1
    rc=$?
    if [ "$rc" != "$1" ] || ! grep -q -E "$2" "$dir/out.log"; then
        echo "FAIL $5: exit $rc (expected $1), output lacks /$2/:"; cat "$dir/out.log"; fail=1
    else
        echo "ok   $5"
    fi
}

# flip FILE OFFSET: xor the byte at OFFSET with 0x01 into FILE.bad
flip() {
    cp "$1" "$1.bad"
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ 1)))" |
        dd of="$1.bad" bs=1 seek="$2" count=1 conv=notrunc 2>/dev/null
}

check 0 "^params ok .* h=32767 " "$params" "$vk" "intact files load"

# --from-file (cuzkd's path with a GPU: the points decoded into the device's staging) is an
# option of the upload; alone it is a usage error.
"$bench" check-params --params "$params" --from-file >"$dir/out.log" 2>&1
rc=$?
if [ "$rc" != 2 ] || ! grep -q -- "--from-file goes with --gpu" "$dir/out.log"; then
    echo "FAIL --from-file alone: exit $rc"; cat "$dir/out.log"; fail=1
else
    echo "ok   --from-file needs --gpu"
fi

# The VK part is 868 + 96 ic bytes; h's count follows, then its first point. A flipped low
# byte of a coordinate leaves the point off the curve.
ic=$(od -An -tu1 -j 864 -N4 "$params" | awk '{print $1 * 16777216 + $2 * 65536 + $3 * 256 + $4}')
h0=$((868 + 96 * ic + 4))
at=$((h0 + 96 * 5 + 47))
flip "$params" "$at"
check 2 "$params.bad: section h: point 5 \\(byte offset $((h0 + 96 * 5))\\) is not on the curve" \
    "$params.bad" "$vk" "a flipped byte in h: file, section, point and offset named"

# The compression flag set on a point of l: malformed.
l0=$((h0 + 96 * 32767 + 4))
cp "$params" "$params.bad"
printf '\240' | dd of="$params.bad" bs=1 seek="$l0" count=1 conv=notrunc 2>/dev/null
check 2 "section l: point 0 \\(byte offset $l0\\) is malformed" "$params.bad" "$vk" \
    "a flag byte in l: malformed"

# The .vk: a flipped byte of beta_g1 (offset 96) fails to load; the .params is intact.
flip "$vk" 100
check 2 "$vk.bad: section vk: beta_g1 \\(byte offset 96\\) is not on the curve" "$params" \
    "$vk.bad" "a flipped byte in the .vk"

# A .vk of other parameters (another seed): refused as another key.
"$bench" setup --proof window-post --sector-size 2KiB --out "$dir/q" --seed 5eee --quiet \
    >"$dir/setup2.log" 2>&1 || { echo "FAIL setup 2"; exit 1; }
check 2 "another verifying key" "$params" "$(ls "$dir"/q/*.vk)" "a .vk of other parameters"

exit $fail
