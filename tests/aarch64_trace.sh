#!/bin/sh
# aarch64_trace.sh EMULATOR HOST_FLIGHTREC LLVM_XRAY PROG_STATIC PROG_SHARED WORKDIR
# The aarch64 port's acceptance (tests/aarch64.cmake): tests/progs/aarch64_calls.c, linked
# with libflightrec.a and with libflightrec.so, runs under EMULATOR with start=1; the
# x86-64 flightrec (HOST_FLIGHTREC) and llvm-xray (with the aarch64 program's map) must
# count every call of every function. Then with crash_dump=1 a SIGSEGV inside crash_here
# must leave a dump whose last record is crash_here's entry, still open.
emu=$1 host=$2 xray=$3 prog_static=$4 prog_shared=$5 work=$6
. "$(dirname "$0")/frtest.sh"
if [ -z "$host" ] || [ ! -x "$host" ]; then
  echo "SKIP: no native flightrec to read the traces (FLIGHTREC_HOST_CLI; scripts/test-aarch64.sh sets it)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
N=200
# function -> calls (aarch64_calls.c's header)
expected="leaf $((2 * N))
mid $N
tail_caller $N
dbl $N
many_args $N
big_result $N
recurse 31
main 1"

check_counts() { # what file: "NAME COUNT" lines must equal $expected (sorted)
  got=$(sort "$2"); want=$(printf '%s\n' "$expected" | sort)
  [ "$got" = "$want" ] || fail "$1 counts differ: got [$(echo $got)] want [$(echo $want)]"
}

for kind in static shared; do
  eval prog=\$prog_$kind
  FLIGHTREC_OPTIONS="start=1 output=$work/$kind.fr" $emu "$prog" $N >"$kind.out" 2>"$kind.err" ||
    fail "$kind: the program failed: $(head -c 300 "$kind.err")"
  grep -qx "ok $N" "$kind.out" || fail "$kind: no 'ok' line: $(head -c 300 "$kind.out")"
  [ -s "$kind.fr" ] || { fail "$kind: no trace"; continue; }
  # flightrec account: calls in the first column, the function's name in the last
  "$host" account "$kind.fr" >"$kind.account" 2>"$kind.account.err" ||
    fail "$kind: flightrec account failed: $(head -c 300 "$kind.account.err")"
  awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $NF, $1 }' "$kind.account" >"$kind.fr.counts"
  check_counts "$kind: flightrec account" "$kind.fr.counts"
  # llvm-xray account: count in the second column, "file:line:col: name" last
  "$xray" account -m "$prog" "$kind.fr" >"$kind.xray" 2>"$kind.xray.err" ||
    fail "$kind: llvm-xray account failed: $(head -c 300 "$kind.xray.err")"
  awk '$1 ~ /^[0-9]+$/ && $2 ~ /^[0-9]+$/ { print $NF, $2 }' "$kind.xray" >"$kind.xray.counts"
  check_counts "$kind: llvm-xray account" "$kind.xray.counts"
done

# The crash dump: the last record is crash_here's entry (the call the program crashed in).
FLIGHTREC_OPTIONS="start=1 crash_dump=1 output=$work/crash.fr" $emu "$prog_static" 3 crash \
  >crash.out 2>crash.err
rc=$?
[ $rc -ne 0 ] || fail "crash: the program did not crash"
grep -q "SIGSEGV" crash.err || fail "crash: no crash dump message: $(head -c 300 crash.err)"
if [ -s crash.fr ]; then
  "$host" replay crash.fr >crash.replay 2>crash.replay.err || fail "crash: replay failed"
  last=$(grep -v '^$' crash.replay | tail -n 2)
  echo "$last" | head -n 1 | grep -q 'crash_here.*still open' ||
    fail "crash: the last call is not crash_here, still open: [$last]"
  "$host" info crash.fr | grep -q 'written on: fatal signal, signal 11' ||
    fail "crash: info does not name the SIGSEGV"
else
  fail "crash: no dump"
fi
finish "aarch64 traces read by flightrec and llvm-xray: every call counted (static, shared); crash dump ends in crash_here"
