#!/bin/sh
# GetStatus follows a real multi-partition job: cuzkd proves an 8 MiB SnapDeals update (4
# partitions of 10M constraints; PoRep has a single partition at every size below 32 GiB)
# while `cuzk-bench status` is polled. The running job must be listed with 4 partitions and,
# at some poll, with 0 < partitions_done < 4; the daemon logs one info line per partition
# proved; the proof verifies (single --vk, partition by partition); once it completed no job
# is listed. Test parameters are made once into PARAM_DIR and kept (setup's stamp).
# Usage: status_8MiB.sh CUZK_BENCH CUZKD PARAM_DIR WORKDIR   (registered as a slow test)
set -u
bench=$1
cuzkd=$2
params=$3
dir=$4
id=status-8mib
rm -rf "$dir"
mkdir -p "$dir" "$params"
pid=
fail() {
    echo "FAIL $*"
    [ -f "$dir/cuzkd.log" ] && { echo "--- cuzkd log (tail)"; tail -n 30 "$dir/cuzkd.log"; }
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    exit 1
}
now() { date +%s; }
t0=$(now)

# Parameters and the vanilla proof (one committed-capacity sector, snap-upgraded).
"$bench" setup --proof snap --sector-size 8MiB --out "$params" --seed 0102 >"$dir/setup.log" 2>&1 ||
    { cat "$dir/setup.log"; fail "setup --proof snap --sector-size 8MiB"; }
vk=$(sed -n 's/.*params=\([^ ]*\)\.params.*/\1.vk/p' "$dir/setup.log" | head -n 1)
[ -f "$vk" ] || { cat "$dir/setup.log"; fail "no verifying key in the setup output"; }
echo "ok   parameters ($(($(now) - t0)) s): $vk"
"$bench" gen-vanilla snap --sector-size 8MiB --cc --seed 5ec7 --workdir "$dir/sector" \
    --out "$dir/snap.vp" >"$dir/gen.log" 2>&1 || { cat "$dir/gen.log"; fail "gen-vanilla snap 8MiB"; }
grep -q '"proofs": 4' "$dir/snap.vp.json" || fail "the 8 MiB SnapDeals vanilla proof has not 4 partitions"
echo "ok   vanilla proof ($(($(now) - t0)) s)"

# The daemon on a unix socket (CPU or GPU, whatever the machine has).
addr="unix://$dir/cuzk.sock"
"$cuzkd" --listen "$addr" --param-cache "$params" --log-level info --shutdown-grace 1s \
    >"$dir/cuzkd.log" 2>&1 &
pid=$!
i=0
until grep -q 'event=ready' "$dir/cuzkd.log"; do
    i=$((i + 1))
    [ "$i" -le 600 ] && kill -0 "$pid" 2>/dev/null || fail "cuzkd did not start"
    sleep 0.1
done

"$bench" single --addr "$addr" --type snap --vanilla "$dir/snap.vp" --vk "$vk" \
    --request-id "$id" --out "$dir/proof.bin" >"$dir/single.log" 2>&1 &
spid=$!

# Poll GetStatus once a second while the proof runs.
total=0
midway=
last=
while kill -0 "$spid" 2>/dev/null; do
    "$bench" status --addr "$addr" --json >"$dir/status.json" 2>"$dir/status.err" ||
        { cat "$dir/status.err"; fail "status"; }
    row=$(sed -n 's/.*{"request_id":"'"$id"'","proof_kind":"snap-update","stage":"\([a-z_]*\)","partitions_done":\([0-9]*\),"partitions_total":\([0-9]*\).*/\2 \3 \1/p' \
        "$dir/status.json")
    if [ -n "$row" ] && [ "$row" != "$last" ]; then
        set -- $row
        echo "     t=$(($(now) - t0))s partitions_done=$1 partitions_total=$2 stage=$3"
        [ "$2" -gt "$total" ] && total=$2
        if [ -z "$midway" ] && [ "$1" -gt 0 ] && [ "$1" -lt "$2" ]; then
            midway=$1
            "$bench" status --addr "$addr" | sed -n '/^running job/,$p' # what an operator sees
        fi
        last=$row
    fi
    sleep 1
done
wait "$spid"
rc=$?
[ "$rc" = 0 ] || { cat "$dir/single.log"; fail "single exit $rc"; }
for want in "status     COMPLETED" "768 bytes (4 x 192)" "verify partition=0 valid" \
    "verify partition=3 valid"; do
    grep -qF "$want" "$dir/single.log" || { cat "$dir/single.log"; fail "single: no \"$want\""; }
done
echo "ok   proof of 4 partitions completed and verified ($(($(now) - t0)) s)"
[ "$total" = 4 ] || fail "GetStatus never listed the job with 4 partitions (saw $total)"
[ -n "$midway" ] || fail "GetStatus never showed the job part-way (0 < partitions_done < 4)"
echo "ok   GetStatus showed $midway of 4 partitions done while the job ran"
for k in 1 2 3 4; do
    grep -q "level=info job=$id event=progress partitions_done=$k partitions=4" "$dir/cuzkd.log" ||
        fail "no progress line for partition $k"
done
echo "ok   one progress line per partition in the daemon's log"
"$bench" status --addr "$addr" --json >"$dir/status.json" 2>&1 || fail "status after"
grep -qF '"running_jobs":[]' "$dir/status.json" || { cat "$dir/status.json"; fail "a job still listed"; }
echo "ok   no running job once it completed"
kill "$pid"
wait "$pid" || { pid=; fail "cuzkd exit $? after SIGTERM"; }
echo "all passed ($(($(now) - t0)) s)"
