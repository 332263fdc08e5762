#!/usr/bin/env bash
# Checks that the C and CUDA sources are formatted as .clang-format says (docs/style.md section 12),
# with Debian's clang-format 14, skipping the generated files listed in .clang-format-ignore.
#   scripts/check-format.sh          report each deviating file and fail if there is one
#   scripts/check-format.sh --fix    reformat those files in place (`make format`)
#   scripts/check-format.sh --list   print the files that are checked
# Other clang-format versions format differently, so the version is pinned: set CLANG_FORMAT to
# use another binary at your own risk.
set -euo pipefail
cd "$(dirname "$0")/.."

mode=check
case "${1:-}" in
"") ;;
--fix) mode=fix ;;
--list) mode=list ;;
*)
    echo "usage: $0 [--fix | --list]" >&2
    exit 2
    ;;
esac

specs=('*.c' '*.h' '*.cu' '*.cuh')
while IFS= read -r line; do
    line="${line%%#*}"
    line="${line//[[:space:]]/}"
    [ -n "$line" ] && specs+=(":(glob,exclude)$line")
done <.clang-format-ignore
mapfile -t files < <(git ls-files -- "${specs[@]}")

if [ "$mode" = list ]; then
    printf '%s\n' "${files[@]}"
    exit 0
fi

cf="${CLANG_FORMAT:-clang-format-14}"
if ! command -v "$cf" >/dev/null 2>&1; then
    echo "check-format: $cf not found (Debian package clang-format-14; scripts/install-deps.sh" \
        "installs it)" >&2
    exit 1
fi

if [ "$mode" = fix ]; then
    "$cf" -i "${files[@]}"
    exit 0
fi

# One run over all files; each deviation is reported as "file:line:col: warning: ...".
if ! out=$("$cf" --dry-run "${files[@]}" 2>&1); then
    printf '%s\n' "$out" >&2
    echo "check-format: $cf failed" >&2
    exit 1
fi
mapfile -t bad < <(printf '%s\n' "$out" | sed -n 's/^\([^:]*\):[0-9]*:[0-9]*: warning: .*/\1/p' |
    sort -u)
if [ ${#bad[@]} -eq 0 ]; then
    echo "check-format: ${#files[@]} files formatted ($("$cf" --version | sed 's/.*version //'))"
    exit 0
fi
lines=0
for f in "${bad[@]}"; do
    n=$("$cf" "$f" | diff "$f" - | grep -c '^<' || true)
    echo "check-format: $f: $n lines differ" >&2
    lines=$((lines + n))
done
echo "check-format: ${#bad[@]} of ${#files[@]} files ($lines lines) are not formatted;" \
    "run \`make format\` and commit the result on its own" >&2
exit 1
