#!/usr/bin/env bash
# xraycompat_basic_fds.sh - compiler-rt's basic mode keeps its log file open for the run
# and writes each thread's full buffer to it. A program that closes every descriptor
# above 2 (a daemon's start-up) and opens its own files gave the log's number to one of
# them: the writes went into the program's file (compiler-rt does that; flightrec's basic
# mode did too). Now the descriptor is checked before each write and the log opened
# again by its path: the program's files hold exactly what it wrote, and the log every
# call (5,000 leaf calls after the close, and those before).
# usage: xraycompat_basic_fds.sh PROGRAM FLIGHTREC WORKDIR
set -uo pipefail
prog=$1 fr=$2 work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0
failed() { echo "FAIL: $*"; fail=1; }
XRAY_OPTIONS="patch_premain=true xray_mode=xray-basic xray_logfile_base=$work/" \
XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" "$prog" closefds "$work/data" >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || failed "exit $rc: $(cat err.txt)"
for f in 0 1 2 3; do
  want=$(for k in $(seq 0 99); do echo "file $f line $k"; done)
  [ "$(cat "data.$f" 2>/dev/null)" = "$want" ] ||
    failed "data.$f: not what the program wrote ($(stat -c %s "data.$f" 2>/dev/null) bytes)"
done
logs=$(ls "$work"/"$(basename "$prog")".* 2>/dev/null)
[ "$(echo "$logs" | wc -w)" = 1 ] || failed "one log file expected: $logs"
# leaf: 3 through witharg, 1 through deep, 1 through the worker's witharg, 5000 after
calls=$("$fr" account "$logs" --binary "$prog" -f csv 2>/dev/null | awk -F, '$2 == "leaf" { print $3 }')
[ "$calls" = 5005 ] || failed "the log holds $calls calls of leaf, the program made 5005"
[ $fail = 0 ] && echo "PASS: xraycompat_basic_fds"
exit $fail
