#!/bin/sh
# Progress of cuzk-bench's long commands (tools/cuzk-bench/progress.h) at 2 KiB WindowPoSt:
# on a terminal (a pseudo-terminal made by script(1) from bsdutils) the stage line is drawn
# with \r and ends as "[i/n] STAGE done"; without one, one "progress step=i/n stage=..." line
# per stage; with --quiet nothing on stderr. setup, gen-vanilla, check-vanilla and synth.
# Usage: progress.sh CUZK_BENCH WORKDIR
set -u
bench=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
fail=0
if ! command -v script >/dev/null 2>&1; then
    echo "SKIP: script(1) (bsdutils) is not installed: no pseudo-terminal"
    exit 77
fi

# expect LOG PATTERN WHAT: PATTERN (grep -E) must be in LOG.
expect() {
    if grep -Eq "$2" "$1"; then
        echo "ok   $3"
    else
        echo "FAIL $3: no line matches /$2/ in:"; cat -v "$1"; fail=1
    fi
}
# quiet LOG WHAT: LOG must be empty.
quiet() {
    if [ -s "$1" ]; then
        echo "FAIL $2: expected no output on stderr, got:"; cat -v "$1"; fail=1
    else
        echo "ok   $2"
    fi
}
# tty LOG CMD...: runs CMD under a pseudo-terminal (stdout and stderr both go to it).
tty() {
    log=$1
    shift
    script -qec "$*" /dev/null >"$log" 2>&1 </dev/null
}
run() { # rc-expected LOG CMD... (stderr to LOG, stdout to LOG.out)
    want=$1 log=$2
    shift 2
    "$@" >"$log.out" 2>"$log"
    rc=$?
    if [ "$rc" != "$want" ]; then
        echo "FAIL $*: exit $rc (expected $want)"; cat "$log.out" "$log"; fail=1
    fi
}

setup="$bench setup --proof window-post --sector-size 2KiB --out $dir/p --seed 5eed"

# setup: five stages, one line each for a log
run 0 "$dir/setup.err" $setup
for s in 1/4:record 2/4:check 3/4:setup 4/4:write; do
    expect "$dir/setup.err" "^cuzk-bench setup: progress step=${s%%:*} stage=${s#*:} ms=[0-9.]+\$" \
        "setup log line $s"
done
expect "$dir/setup.err.out" "^setup: ok " "setup result on stdout"

# on a terminal: the line rewritten with \r, each stage left as "done"
tty "$dir/setup.tty" "$setup --force"
for s in "1/4] record" "2/4] check" "3/4] setup" "4/4] write"; do
    expect "$dir/setup.tty" "\[$s done in [0-9]+:[0-9]{2}" "setup terminal: [$s done"
done
if tr -d '\n' <"$dir/setup.tty" | grep -q "$(printf '\r')cuzk-bench setup: \[3/4\] setup \.\.\."; then
    echo "ok   setup terminal: line drawn with \\r"
else
    echo "FAIL setup terminal: no \\r before the stage line"; cat -v "$dir/setup.tty"; fail=1
fi
if grep -q "progress step=" "$dir/setup.tty"; then
    echo "FAIL setup terminal: log lines on a terminal"; fail=1
fi

# --quiet: nothing on stderr (up to date: the check stages only)
run 0 "$dir/setup.quiet" $setup --quiet
quiet "$dir/setup.quiet" "setup --quiet"
expect "$dir/setup.quiet.out" "^setup: up to date" "setup --quiet up to date"

# gen-vanilla (two sectors: units), check-vanilla, synth
vp="$dir/w.vp"
run 0 "$dir/gen.err" $bench gen-vanilla window-post --sector-size 2KiB --out "$vp" --seed 01 \
    --sectors 2
expect "$dir/gen.err" "^cuzk-bench gen-vanilla: progress step=1/2 stage=sectors done=2 total=2 ms=" \
    "gen-vanilla log line sectors"
expect "$dir/gen.err" "^cuzk-bench gen-vanilla: progress step=2/2 stage=write ms=" \
    "gen-vanilla log line write"
tty "$dir/gen.tty" $bench gen-vanilla window-post --sector-size 2KiB --out "$dir/w2.vp" --seed 01
expect "$dir/gen.tty" "\[1/2\] sectors done 100% 1/1 in" "gen-vanilla terminal"
run 0 "$dir/gen.quiet" $bench gen-vanilla window-post --sector-size 2KiB --out "$dir/w3.vp" \
    --seed 01 --quiet
quiet "$dir/gen.quiet" "gen-vanilla --quiet"

check="$bench check-vanilla --type window-post --vanilla $vp"
run 0 "$dir/check.err" $check
expect "$dir/check.err" "^cuzk-bench check-vanilla: progress step=2/2 stage=partitions done=1 total=1 ms=" \
    "check-vanilla log line"
tty "$dir/check.tty" $check
expect "$dir/check.tty" "\[2/2\] partitions done 100% 1/1 in" "check-vanilla terminal"
expect "$dir/check.tty" "^ok kind=window-post" "check-vanilla result on the terminal"
run 0 "$dir/check.quiet" $check --quiet
quiet "$dir/check.quiet" "check-vanilla --quiet"

synth="$bench synth --type window-post --vanilla $vp --repeat 3"
run 0 "$dir/synth.err" $synth
expect "$dir/synth.err" "^cuzk-bench synth: progress step=2/2 stage=synthesis done=3 total=3 ms=" \
    "synth log line"
tty "$dir/synth.tty" $synth --timing
expect "$dir/synth.tty" "\[2/2\] synthesis done 100% 3/3 in" "synth terminal"
# each --timing row follows the erased progress line (\r ESC[K), never glued to its text
cat -v "$dir/synth.tty" >"$dir/synth.tty.v"
expect "$dir/synth.tty.v" '\^M\^\[\[K0 +2 ' "synth --timing rows start a line on the terminal"
run 0 "$dir/synth.quiet" $synth --quiet
quiet "$dir/synth.quiet" "synth --quiet"

exit $fail
