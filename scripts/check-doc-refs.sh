#!/usr/bin/env bash
# Checks the document citations of the repository's sources and documents (docs/spec/README.md):
#   - every Markdown file a file names (a path or a bare name ending in .md) exists in the
#     repository: at that path from the repository root or from the citing file's directory, or
#     as the end of the path of exactly one Markdown file of the repository (a bare "daemon.md"
#     is docs/daemon.md; a name several files end in, such as README.md, is fine without
#     section numbers); installed copies under usr/share/doc/cuzk/ stand for their sources, and
#     no path may leave the repository;
#   - where section numbers follow the name ("groth16.md 4.2", "circuits.md sections 2.1-2.4, 5",
#     "style.md section 9"), the document has a heading with each number (both ends of a
#     range), e.g. "### 4.2 ProvingAssignment".
# URLs (scheme://...) are not citations. Binary files are skipped, and so is a file with the
# words "check-doc-refs: skip" in its first five lines (the check's own test fixtures).
#   scripts/check-doc-refs.sh [ROOT]          check ROOT (default: this repository); on failure
#                                             print file:line: message per bad citation, exit 1
#   scripts/check-doc-refs.sh --list [ROOT]   print every citation as file:line: name [sections]
# ROOT is listed with git (tracked and untracked files, not the ignored ones) when it is the top
# of a git work tree, otherwise with find (build*/ and .git/ left out).
set -euo pipefail

mode=check
if [ "${1:-}" = --list ]; then
    mode=list
    shift
fi
root=${1:-$(dirname "$0")/..}
cd "$root"

if [ "$(git rev-parse --show-toplevel 2>/dev/null || true)" = "$(pwd -P)" ]; then
    mapfile -t files < <(git ls-files --cached --others --exclude-standard | sort -u)
else
    mapfile -t files < <(find . \( -name .git -o -name 'build*' \) -prune -o -type f -print |
        sed 's|^\./||' | sort)
fi

present=()
for f in "${files[@]}"; do
    [ -f "$f" ] && present+=("$f")
done
# Text files only (grep -I treats a file with a NUL byte as binary).
mapfile -t text < <(printf '%s\0' "${present[@]}" | xargs -0 grep -I -l -E '\.md([^A-Za-z0-9_]|$)' \
    2>/dev/null || true)
checked=()
for f in "${text[@]}"; do
    grep -q 'check-doc-refs: skip' <(head -n 5 "$f") || checked+=("$f")
done
mdlist=$(printf '%s\n' "${present[@]}" | grep -E '\.md$' || true)

# Every line that may cite a document, as file:line:text; awk finds the citations in it.
printf '%s\0' "${checked[@]}" | xargs -0 -r grep -n -I -E '\.md([^A-Za-z0-9_]|$)' 2>/dev/null |
    awk -v mode="$mode" -v mdlist="$mdlist" '
function trim_dir(p,   n) { n = split(p, a, "/"); return n > 1 ? substr(p, 1, length(p) - length(a[n]) - 1) : "" }
# Normalises a relative path: "a/./b/../c" -> "a/c"; "" when it climbs out of the root.
function norm(p,   n, i, k, out, s, parts) {
    n = split(p, parts, "/"); k = 0
    for (i = 1; i <= n; i++) {
        if (parts[i] == "" || parts[i] == ".") continue
        if (parts[i] == "..") { if (k == 0) return ""; k--; continue }
        s[++k] = parts[i]
    }
    out = ""
    for (i = 1; i <= k; i++) out = out (i > 1 ? "/" : "") s[i]
    return out
}
# The repository file a citation names, "" when none, "?" when several do.
function resolve(tok, from,   t, p, n, hit, i) {
    t = tok
    sub(/^(\/?usr\/share\/doc\/cuzk\/|\/)/, "", t)
    if (t ~ /^\.\.?\//) { p = norm(trim_dir(from) "/" t); return (p in ismd) ? p : "" }
    p = norm(t)
    if (p in ismd) return p
    p = norm(trim_dir(from) "/" t)
    if (p != "" && (p in ismd)) return p
    n = 0; hit = ""
    for (i in ismd) {
        if (length(i) > length(t) && substr(i, length(i) - length(t)) == "/" t) { n++; hit = i }
    }
    return n == 0 ? "" : (n == 1 ? hit : "?")
}
function headings(doc,   line, num) {
    if (doc in loaded) return
    loaded[doc] = 1
    while ((getline line < doc) > 0) {
        if (match(line, /^#+[ \t]+(§)?[0-9]+(\.[0-9]+)*/)) {
            num = substr(line, RSTART, RLENGTH); sub(/^#+[ \t]+(§)?/, "", num)
            has[doc, num] = 1
        }
    }
    close(doc)
}
BEGIN {
    n = split(mdlist, m, "\n")
    for (i = 1; i <= n; i++) if (m[i] != "") ismd[m[i]] = 1
    bad = 0
}
{
    # $0 = file:line:text
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    lineno = rest; sub(/:.*/, "", lineno)
    text = substr(rest, length(lineno) + 2)
    while (match(text, /([a-z]+:\/\/)?[A-Za-z0-9_.\/-]*[A-Za-z0-9_-]\.md([^A-Za-z0-9_]|$)/)) {
        tok = substr(text, RSTART, RLENGTH)
        text = substr(text, RSTART + RLENGTH)
        if (tok ~ /[^A-Za-z0-9_]$/) { text = substr(tok, length(tok)) text; tok = substr(tok, 1, length(tok) - 1) }
        if (tok ~ /^[a-z]+:\/\//) continue
        secs = ""
        if (match(text, /^[ \t]+((sections?|§)[ \t]*)?(§)?[0-9]+(\.[0-9]+)*([ \t]*(-|–|,|and)[ \t]*(§)?[0-9]+(\.[0-9]+)*)*/)) {
            secs = substr(text, RSTART, RLENGTH)
            sub(/^[ \t]+((sections?|§)[ \t]*)?/, "", secs)
        }
        if (mode == "list") { print file ":" lineno ": " tok (secs != "" ? " " secs : ""); continue }
        doc = resolve(tok, file)
        if (doc == "") { print file ":" lineno ": " tok ": no such document in the repository"; bad++; continue }
        if (secs == "") continue
        if (doc == "?") { print file ":" lineno ": " tok ": names several documents; sections need one"; bad++; continue }
        headings(doc)
        k = split(secs, nums, /[ \t]*(-|–|,|and)[ \t]*/)
        for (j = 1; j <= k; j++) {
            num = nums[j]; sub(/^§/, "", num)
            if (num == "") continue
            if (!((doc, num) in has)) { print file ":" lineno ": " tok " " secs ": " doc " has no section " num; bad++ }
        }
    }
}
END {
    if (mode == "check") {
        if (bad > 0) { print "check-doc-refs: " bad " bad citation(s)" > "/dev/stderr"; exit 1 }
        print "check-doc-refs: all document citations resolve"
    }
}'
