#!/bin/sh
# test_circom.sh - end-to-end interoperability with circom 2.2.3 (circom2 0.2.23) and
# snarkjs 0.7.6, both from tests/oracle/node_modules (offline):
#   circom2 compiles tests/groth16/circuits/chain.circom for BLS12-381, snarkjs computes the
#   witness, cuzk-bench setup / prove / export-snarkjs make parameters, a proof and snarkjs
#   JSON, and `snarkjs groth16 verify` (an independent verifier) must accept the proof and
#   reject it with a tampered public input. cuzk-bench verify must agree, and bad input
#   (tampered proof bytes, tampered witness, missing or malformed files) must give a one-line
#   error and a non-zero exit.
# Usage: test_circom.sh CUZK_BENCH SOURCE_DIR WORK_DIR. Exit 77 (skip) without node.
set -u

BENCH=$1
SRC=$2
WORK=$3
BIN=$SRC/tests/oracle/node_modules/.bin

if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: node is not installed"
    exit 77
fi
if [ ! -x "$BIN/circom2" ] || [ ! -x "$BIN/snarkjs" ]; then
    echo "SKIP: circom2/snarkjs missing in tests/oracle/node_modules (npm ci there)"
    exit 77
fi

fail() {
    echo "FAIL: $*"
    exit 1
}

# expect_error CODE PATTERN -- command...: the command exits with CODE and prints exactly one
# line on stderr, containing PATTERN.
expect_error() {
    want=$1
    pattern=$2
    shift 3
    "$@" >"$WORK/out.txt" 2>"$WORK/err.txt"
    rc=$?
    [ "$rc" -eq "$want" ] || fail "'$*' exited $rc, expected $want: $(cat "$WORK/err.txt")"
    [ "$(wc -l <"$WORK/err.txt")" -eq 1 ] || fail "'$*' did not print one error line: $(cat "$WORK/err.txt")"
    grep -q -- "$pattern" "$WORK/err.txt" || fail "'$*' error lacks '$pattern': $(cat "$WORK/err.txt")"
    echo "ok (rc=$rc): $(cat "$WORK/err.txt")"
}

rm -rf "$WORK"
mkdir -p "$WORK" || fail "cannot create $WORK"
cd "$WORK" || fail "cannot enter $WORK"

"$BIN/circom2" "$SRC/tests/groth16/circuits/chain.circom" --r1cs --wasm --prime bls12381 -o . \
    >circom.log 2>&1 || { cat circom.log; fail "circom2 failed"; }
cat >input.json <<'EOF'
{"x0": "5", "seed": "12345678901234567890", "b": "3", "small": "2882400001"}
EOF
"$BIN/snarkjs" wtns calculate chain_js/chain.wasm input.json chain.wtns >wtns.log 2>&1 ||
    { cat wtns.log; fail "snarkjs wtns calculate failed"; }

"$BENCH" setup --r1cs chain.r1cs --out chain.params || fail "setup"
[ -s chain.vk ] || fail "setup did not write chain.vk"
"$BENCH" prove --params chain.params --r1cs chain.r1cs --wtns chain.wtns --out proof.bin \
    --public-out public.json || fail "prove"
[ "$(wc -c <proof.bin)" -eq 192 ] || fail "proof.bin is not 192 bytes"
"$BENCH" export-snarkjs --vk chain.vk --proof proof.bin --out-vk vk.json --out-proof proof.json ||
    fail "export-snarkjs"

# snarkjs accepts the proof ...
"$BIN/snarkjs" groth16 verify vk.json public.json proof.json >verify.log 2>&1 ||
    { cat verify.log; fail "snarkjs rejected our proof"; }
grep -q "OK" verify.log || fail "snarkjs did not print OK"
echo "ok: snarkjs groth16 verify accepts the proof"
# ... and rejects it with the public input x0 = 5 changed to 6
sed 's/^ "5"/ "6"/' public.json >public_bad.json
cmp -s public.json public_bad.json && fail "public.json tampering did not change the file"
if "$BIN/snarkjs" groth16 verify vk.json public_bad.json proof.json >verify_bad.log 2>&1; then
    fail "snarkjs accepted a tampered public input"
fi
echo "ok: snarkjs groth16 verify rejects a tampered public input"

# vk_alphabeta_12 equals e(alpha, beta) as ffjavascript (snarkjs's curve library) computes it
cat >alphabeta.mjs <<EOF
import { buildBls12381, utils } from "$SRC/tests/oracle/node_modules/ffjavascript/main.js";
import fs from "fs";
const vk = utils.unstringifyBigInts(JSON.parse(fs.readFileSync("vk.json", "utf8")));
const curve = await buildBls12381(true);
const e = curve.pairing(curve.G1.fromObject(vk.vk_alpha_1), curve.G2.fromObject(vk.vk_beta_2));
const got = JSON.stringify(utils.stringifyBigInts(vk.vk_alphabeta_12));
const want = JSON.stringify(utils.stringifyBigInts(curve.Gt.toObject(e)));
await curve.terminate();
process.exit(got === want ? 0 : 1);
EOF
node alphabeta.mjs || fail "vk_alphabeta_12 differs from ffjavascript's pairing"
echo "ok: vk_alphabeta_12 matches ffjavascript"

# cuzk-bench verify agrees
"$BENCH" verify --vk chain.vk --proof proof.bin --public public.json >v.txt || fail "verify (valid)"
[ "$(cat v.txt)" = "valid" ] || fail "verify printed $(cat v.txt)"
"$BENCH" verify --vk chain.vk --proof proof.bin --public public_bad.json >v.txt
[ $? -eq 1 ] || fail "verify accepted a tampered public input"
[ "$(cat v.txt)" = "invalid" ] || fail "verify printed $(cat v.txt) for a tampered input"
# two proofs concatenated: batch verification with one row of inputs per proof
"$BENCH" prove --params chain.params --r1cs chain.r1cs --wtns chain.wtns --out proof2.bin \
    >/dev/null || fail "second prove"
cmp -s proof.bin proof2.bin && fail "two proofs with fresh r, s are identical"
cat proof.bin proof2.bin >proofs.bin
{ printf '['; cat public.json; printf ','; cat public.json; printf ']'; } >public2.json
"$BENCH" verify --vk chain.vk --proof proofs.bin --public public2.json >/dev/null ||
    fail "batch verify of two valid proofs"
{ printf '['; cat public.json; printf ','; cat public_bad.json; printf ']'; } >public2_bad.json
"$BENCH" verify --vk chain.vk --proof proofs.bin --public public2_bad.json >/dev/null
[ $? -eq 1 ] || fail "batch verify accepted a tampered row"
echo "ok: cuzk-bench verify agrees (single and batch)"

# tampered proof bytes: flip one bit of C's x coordinate (last byte)
node -e '
const fs = require("fs");
const b = fs.readFileSync("proof.bin"); b[191] ^= 1; fs.writeFileSync("proof_bad.bin", b);
const w = fs.readFileSync("chain.wtns"); const n = w.readUInt32LE(60);
w[76 + 32 * (n - 1)] ^= 1; fs.writeFileSync("chain_bad.wtns", w);' || fail "node"
"$BENCH" verify --vk chain.vk --proof proof_bad.bin --public public.json >/dev/null 2>err.txt
rc=$?
[ $rc -eq 1 ] || [ $rc -eq 2 ] || fail "tampered proof: exit $rc"
[ $rc -eq 1 ] || grep -q "proof_bad.bin" err.txt || fail "tampered proof error lacks the file name"
echo "ok: tampered proof bytes rejected (rc=$rc)"

# errors: one line naming the file and the problem, exit 2
expect_error 2 "does not satisfy" -- "$BENCH" prove --params chain.params --r1cs chain.r1cs \
    --wtns chain_bad.wtns --out p.bin
expect_error 2 "missing.params: cannot open" -- "$BENCH" prove --params missing.params \
    --r1cs chain.r1cs --wtns chain.wtns --out p.bin
head -c 5000 chain.params >trunc.params
expect_error 2 "trunc.params: section" -- "$BENCH" prove --params trunc.params --r1cs chain.r1cs \
    --wtns chain.wtns --out p.bin
expect_error 2 "chain.params: section" -- "$BENCH" verify --vk chain.params --proof proof.bin \
    --public public.json
expect_error 2 "proof length" -- "$BENCH" verify --vk chain.vk --proof chain.vk \
    --public public.json
echo '["1", "2"]' >short.json
expect_error 2 "short.json" -- "$BENCH" verify --vk chain.vk --proof proof.bin --public short.json
expect_error 2 "not a r1cs file" -- "$BENCH" setup --r1cs chain.wtns --out x.params
expect_error 2 "chain.r1cs" -- "$BENCH" prove --params chain.params --r1cs chain.r1cs \
    --wtns chain.r1cs --out p.bin
expect_error 2 "missing required option --out" -- "$BENCH" setup --r1cs chain.r1cs
expect_error 2 "unknown option" -- "$BENCH" verify --vk chain.vk --bogus 1
expect_error 2 "unknown command" -- "$BENCH" frobnicate
"$BENCH" setup --help >/dev/null || fail "setup --help"

# --seed makes reproducible parameters; without it they differ
"$BENCH" setup --r1cs chain.r1cs --out s1.params --seed 7 >/dev/null || fail "setup --seed"
"$BENCH" setup --r1cs chain.r1cs --out s2.params --seed 7 >/dev/null || fail "setup --seed"
cmp -s s1.params s2.params || fail "setup --seed 7 twice gave different parameters"
cmp -s s1.vk s2.vk || fail "setup --seed 7 twice gave different verifying keys"
cmp -s s1.params chain.params && fail "seeded and random parameters are identical"
echo "ok: setup --seed is reproducible"

echo "PASS"
exit 0
