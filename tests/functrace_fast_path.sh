#!/usr/bin/env bash
# functrace_fast_path.sh FLIGHTREC PROGRAM TRACE - the trace the fast-path check
# (tests/progs/functrace_fast_path.c, a pool that holds the whole run) wrote holds what
# the recorder says it wrote: the file's records are the records written, and its calls,
# per function, are the calls the program made (each loop function once per round,
# args6 twice, sig_leaf once per traced call the signal handlers made and kept). A record
# written over by a signal handler's, or one lost between the trampoline and the
# buffer, shows as a difference.
set -euo pipefail
fr=$1 prog=$2 trace=$3
rm -f "$trace"
set +e
# 20000 rounds, at most 40 times that while waiting for signals: at most 14.4 M records,
# 115 MB, in a pool of 128 MiB (nothing overwritten, no lost-record marker).
out=$(FLIGHTREC_OPTIONS="start=1 output=$trace buffer_size=1m buffers=128 policy=discard" "$prog" 20000 2>&1)
rc=$?
set -e
echo "$out"
[ $rc = 77 ] && exit 77
[ $rc = 0 ] || { echo "FAIL: the program failed ($rc)"; exit 1; }
read -r loop handler written dropped < <(echo "$out" |
  sed -n 's/^traced calls: \([0-9]*\) in the loop, \([0-9]*\) in signal handlers; records written \([0-9]*\), dropped \([0-9]*\)$/\1 \2 \3 \4/p')
[ -n "$written" ] || { echo "FAIL: no summary line"; exit 1; }
[ $((written + dropped)) -le $((16 * 1024 * 1024 - 128 * 8)) ] ||
  { echo "FAIL: the run made more records than the pool holds"; exit 1; }
in_file=$("$fr" info "$trace" | awk '$1 == "records:" { print $2 }')
[ "$in_file" = "$written" ] || { echo "FAIL: $in_file records in the file, $written written"; exit 1; }
rounds=$((loop / 9))
acc=$("$fr" account -f csv "$trace")
count() { echo "$acc" | awk -F, -v f="$1" '$2 == f { print $3 }'; }
for f in args8d vsum ret_rax_rdx ret_xmm01 ret_st0 ret_st01 tail6; do
  [ "$(count $f)" = "$rounds" ] || { echo "FAIL: $f: $(count $f) calls, want $rounds"; exit 1; }
done
[ "$(count args6)" = $((2 * rounds)) ] || { echo "FAIL: args6: $(count args6) calls, want $((2 * rounds))"; exit 1; }
kept=$((handler - dropped / 2))
got=$(count sig_leaf)
[ "${got:-0}" = "$kept" ] || { echo "FAIL: sig_leaf: ${got:-0} calls, want $kept"; exit 1; }
echo PASS
