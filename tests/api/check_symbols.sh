#!/bin/sh
# check_symbols.sh INCLUDE_DIR LIB... - each library (libcuzk.so, libcuzk.a) defines as global
# exactly the functions the public headers declare with CUZK_API: none missing (a declared
# function a program cannot link) and no other (an internal name a program could come to
# depend on, or clash with).
set -u
inc=$1
shift
dir=${TMPDIR:-/tmp}/cuzk-symbols.$$
mkdir -p "$dir"
trap 'rm -rf "$dir"' EXIT
grep -h '^CUZK_API ' "$inc"/cuzk/*.h | sed 's/(.*//; s/.*[ *]//' | sort -u >"$dir/declared"
fail=0
for lib in "$@"; do
    case $lib in
    *.a) nm -g --defined-only "$lib" ;;
    *) nm -D --defined-only "$lib" ;;
    esac | awk 'NF == 3 && $2 ~ /^[TDBRVWiu]$/ { print $3 }' | sort -u >"$dir/exported"
    if [ ! -s "$dir/declared" ] || [ ! -s "$dir/exported" ]; then
        echo "FAIL $lib: no symbols read (nm missing, or the headers moved?)"
        fail=1
        continue
    fi
    bad=0
    for s in $(comm -23 "$dir/declared" "$dir/exported"); do
        echo "FAIL $lib: declared, not defined: $s"
        bad=1
    done
    for s in $(comm -13 "$dir/declared" "$dir/exported"); do
        echo "FAIL $lib: defined, not declared: $s"
        bad=1
    done
    [ $bad = 0 ] && echo "ok   $lib: $(wc -l <"$dir/exported") symbols, all declared in include/cuzk"
    [ $bad = 0 ] || fail=1
done
exit $fail
