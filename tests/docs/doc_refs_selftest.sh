#!/bin/sh
# check-doc-refs: skip (the citations below are fixtures, not references)
# doc_refs_selftest.sh - scripts/check-doc-refs.sh on small trees made here: citations that
# resolve pass; a missing document, a missing section, a range end without a heading and a
# path leaving the tree each fail with their own message; URLs are not citations.
#   doc_refs_selftest.sh <check-doc-refs.sh> <scratch directory>
set -eu
check=$1
dir=$2
fail=0

rm -rf "$dir"
mkdir -p "$dir/docs/spec" "$dir/src/mod"
cat >"$dir/docs/spec/x.md" <<'DOC'
# X
## 1. One
### 1.2 One, two
## 2. Two
DOC
cat >"$dir/docs/guide.md" <<'DOC'
See [x.md 1.2](spec/x.md) and [the spec](spec/x.md).
DOC
good='/* mod.c - see x.md 1.2, spec/x.md sections 1 and 2, x.md 1-2, https://example.org/y.md */'

# expect <pass|fail> <message or ""> <line for src/mod/mod.c>
expect() {
    printf '%s\n' "$3" >"$dir/src/mod/mod.c"
    if out=$(bash "$check" "$dir" 2>&1); then rc=0; else rc=$?; fi
    case "$1:$rc" in
    pass:0 | fail:1) ;;
    *)
        echo "FAIL ($1 expected, exit $rc) for: $3"
        printf '%s\n' "$out"
        fail=1
        return
        ;;
    esac
    if [ -n "$2" ] && ! printf '%s\n' "$out" | grep -qF -- "$2"; then
        echo "FAIL: '$2' not reported for: $3"
        printf '%s\n' "$out"
        fail=1
        return
    fi
    echo "ok $1: $3"
}

expect pass "" "$good"
expect fail "missing.md: no such document in the repository" "/* see missing.md */"
expect fail "docs/spec/x.md has no section 1.3" "/* x.md 1.3 */"
expect fail "docs/spec/x.md has no section 3" "/* x.md sections 1-3 */"
expect fail "../x.md: no such document in the repository" "/* ../x.md (src/x.md) */"
expect fail "../../../docs/spec/x.md: no such document" "/* ../../../docs/spec/x.md (outside) */"
expect pass "" "/* ../../docs/guide.md, ./../../docs/spec/x.md 2, https://example.org/nowhere.md 9.9 */"

rm -rf "$dir"
exit $fail
