#!/usr/bin/env bash
# Installs what building and testing cuzk need on a fresh Debian 12 machine: Debian packages
# (apt) and the npm test oracles pinned in tests/oracle/package-lock.json. Idempotent: when
# nothing is missing it installs nothing and prints nothing (unless -v).
set -euo pipefail

verbose=0
[ "${1:-}" = "-v" ] && verbose=1
top=$(cd "$(dirname "$0")/.." && pwd)

say() { [ "$verbose" = 1 ] && echo "install-deps: $*" >&2 || true; }

packages=(
    build-essential cmake pkg-config git
    libssl-dev          # SHA-256 (SHA-NI) through libcrypto
    libjansson-dev      # JSON (C1 output, snarkjs export)
    libinih-dev         # config file
    libgrpc++-dev       # gRPC server shim
    libprotobuf-c-dev protobuf-c-compiler   # messages in C
    python3
    clang-format-14     # scripts/check-format.sh (pinned: other versions format differently)
    chromium            # headless screenshots of cuzk-bench timeline SVGs (tests/perf)
)

missing=()
for p in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
command -v node >/dev/null 2>&1 || missing+=(nodejs)
command -v npm >/dev/null 2>&1 || missing+=(npm)

if [ ${#missing[@]} -gt 0 ]; then
    echo "install-deps: installing ${missing[*]}" >&2
    sudo=""
    [ "$(id -u)" != 0 ] && sudo="sudo"
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# npm oracles: reinstall when node_modules is absent or older than the lock file.
oracle="$top/tests/oracle"
stamp="$oracle/node_modules/.cuzk-installed"
if [ ! -f "$stamp" ] || [ "$oracle/package-lock.json" -nt "$stamp" ]; then
    echo "install-deps: npm ci in tests/oracle" >&2
    (cd "$oracle" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
    touch "$stamp"
fi
say "all dependencies present"
