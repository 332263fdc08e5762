#!/bin/sh
# `cuzk-bench setup --proof` keeps parameters whose stamp names this circuit AND this setup
# implementation, and makes them again when the stamp names another implementation or is of an
# older format; files without a stamp of ours are never replaced. 2 KiB WindowPoSt (a
# fraction of a second per setup).
# Usage: setup_stamp.sh CUZK_BENCH WORKDIR
set -u
bench=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
fail=0

setup() { # expected-rc expected-text
    "$bench" setup --proof window-post --sector-size 2KiB --out "$dir/p" --seed 5eed \
        >"$dir/out.log" 2>&1
    rc=$?
    if [ "$rc" != "$1" ] || ! grep -q "$2" "$dir/out.log"; then
        echo "FAIL setup: exit $rc (expected $1), output lacks \"$2\":"; cat "$dir/out.log"
        fail=1
    else
        echo "ok   $2"
    fi
}
stamp() { ls "$dir"/p/*.cuzk-setup; }
params() { ls "$dir"/p/*.params; }
ident() { stat -c '%i %Y %s' "$(params)"; } # rewritten files are renamed into place

setup 0 "setup: ok"
line=$(grep '^setup ' "$(stamp)")
case "$line" in
"setup "[0-9]*-[0-9a-f]*) echo "ok   stamp records the implementation: $line" ;;
*) echo "FAIL stamp has no setup line: '$line'"; fail=1 ;;
esac
before=$(ident)
setup 0 "setup: up to date"
[ "$(ident)" = "$before" ] || { echo "FAIL up-to-date parameters were rewritten"; fail=1; }

# Another setup implementation wrote the stamp: made again, stamp updated.
sed -i 's/^setup .*/setup 0-0000000000000000/' "$(stamp)"
setup 0 "setup: ok"
grep -qx "$line" "$(stamp)" || { echo "FAIL stamp not updated"; fail=1; }
setup 0 "setup: up to date"

# The circuit changed (another shape fingerprint): made again.
sed -i 's/^shape .*/shape 0123456789abcdef/' "$(stamp)"
setup 0 "setup: ok"
setup 0 "setup: up to date"

# A stamp of format 2 (the bellpepper digest instead of the fingerprint): stale, made again.
sed -i -e 's/^shape .*/digest 00/' -e 's/^format .*/format cuzk-setup-2/' "$(stamp)"
setup 0 "setup: ok"
grep -q '^shape [0-9a-f]\{16\}$' "$(stamp)" || { echo "FAIL no shape line"; fail=1; }
setup 0 "setup: up to date"

# A stamp of format 1 (no setup line): ours, stale, made again.
sed -i -e '/^setup /d' -e 's/^format .*/format cuzk-setup-1/' "$(stamp)"
setup 0 "setup: ok"
setup 0 "setup: up to date"

# No stamp of ours: taken for published parameters, refused.
rm "$(stamp)"
setup 2 "without a cuzk-setup stamp"

exit $fail
