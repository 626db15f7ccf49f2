#!/usr/bin/env bash
# crash_xfsz.sh FLIGHTREC CRASH_PROG WORKDIR - issue 15 item 5: under `ulimit -f` the
# trace outgrows the limit; SIGXFSZ must not kill the program (exit status unchanged)
# and no unreadable temporary file may be left, at exit and in a crash dump.
set -uo pipefail
fr=$1 prog=$2 work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS
status=0
fail() { echo "FAIL: $*"; status=1; }
# MODE STATUS MESSAGE
# (record has the runtime write OUTPUT.PID, renamed to OUTPUT at the end)
for spec in "exit 5 cannot write $work/exit\.fr(\.[0-9]+)?: File too large" \
            "segv 139 cannot write the trace to $work/segv\.fr(\.[0-9]+)?: file too large"; do
  set -- $spec
  mode=$1 want=$2; shift 2; msg="$*"
  (ulimit -f 1; exec timeout 30 "$fr" record -o "$mode.fr" -- "$prog" "$mode") >out.txt 2>err.txt; rc=$?
  [ "$rc" = "$want" ] || fail "$mode under ulimit -f 1: exit $rc, want $want ($(head -c 400 err.txt))"
  grep -qE "$msg" err.txt || fail "$mode: no message '$msg': $(head -c 400 err.txt)"
  ls -A | grep -q "$mode.fr" && fail "$mode: trace or temporary file left: $(ls -A)"
done
exit $status
