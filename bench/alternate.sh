#!/usr/bin/env bash
# alternate.sh N CASE BINARY... - runs `BINARY CASE` for each binary in turn, N rounds, and
# prints per binary the smallest min of the case's bench line and every round's min (sorted).
# Builds compared this way share the machine's slow and fast minutes (a VM's neighbours).
# Example: bench/alternate.sh 5 porep_512mib_shape_mul_mt /tmp/base/bench_circuits \
#          build/bin/bench_circuits
set -euo pipefail
if [ $# -lt 3 ]; then
    echo "usage: $0 N CASE BINARY..." >&2
    exit 2
fi
n=$1 case=$2
shift 2
for _ in $(seq "$n"); do
    for b in "$@"; do
        "$b" "$case" 2>&1 | awk -v b="$b" -v c="$case" '$1 == c { print b, $4 }'
    done
done | sort -k1,1 -k2,2g | awk '
    { all[$1] = all[$1] " " $2; if (!($1 in m)) { m[$1] = $2; order[++k] = $1 } }
    END { for (i = 1; i <= k; i++) print order[i], "min", m[order[i]], "all", all[order[i]] }'
