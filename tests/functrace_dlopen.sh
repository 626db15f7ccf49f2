#!/usr/bin/env bash
# functrace_dlopen.sh FLIGHTREC PROGRAM LIB_A LIB_B WORKDIR LLVM_XRAY - objects loaded and unloaded
# while traced (issue 10, issue 15 item 3): PROGRAM (functrace_dlopen_main.c) records under
# `flightrec record` without ever calling __xray_patch for its traced part; the calls it
# made into the dlopen'ed library (twice loaded) must be in the trace, exactly, for our
# account and llvm-xray's; and the program itself checks that patching after dlclose
# leaves the library loaded at the same address untouched.
set -uo pipefail
fr=$1 prog=$2 liba=$3 libb=$4 work=$5 llvm_xray=$6
mkdir -p "$work"
trace=$work/dlopen.fr
out=$("$fr" record -o "$trace" -- "$prog" "$liba" "$libb")
rc=$?
echo "$out"
[ $rc = 0 ] || [ $rc = 77 ] || { echo "FAIL: program exit $rc"; exit 1; }
fail=0
while read -r _ name want; do
  got=$("$fr" account "$trace" 2>/dev/null | awk -v f="$name" '$NF == f { n += $1 } END { print n + 0 }')
  [ "$got" = "$want" ] || { echo "FAIL: account: $name $got calls, want $want"; fail=1; }
  # llvm-xray: records per function id, named from our dump (the library has no map in -m).
  ids=$("$fr" dump "$trace" | awk -v f="$name" '$5 == "enter" && $7 == f { print $6 }' | sort -u)
  n=0
  for id in $ids; do
    c=$("$llvm_xray" convert -f yaml "$trace" | grep -c "func-id: $id, .*kind: function-exit")
    n=$((n + c))
  done
  [ "$n" = "$want" ] || { echo "FAIL: llvm-xray: $name $n exits, want $want"; fail=1; }
done < <(echo "$out" | grep '^calls ')
[ $fail = 0 ] || exit 1
[ $rc = 77 ] && exit 77
echo PASS
