#!/bin/sh
# aarch64_record.sh EMULATOR HOST_FLIGHTREC FLIGHTREC PROG WORKDIR
# `flightrec record -- PROG` with the aarch64 command under EMULATOR: PROG
# (tests/progs/aarch64_calls.c with sleds, without libflightrec) gets the aarch64
# libflightrec.so.0 preloaded by the command, and the trace, read by the x86-64 flightrec,
# counts every call of every function. The command's child execve()s PROG itself, which
# works only where execve runs aarch64 programs (scripts/aarch64-binfmt.sh's namespace, or
# a binfmt_misc entry for qemu-aarch64 on the host); elsewhere the test says Skipped.
emu=$1 host=$2 cli=$3 prog=$4 work=$5
. "$(dirname "$0")/frtest.sh"
if [ -z "$host" ] || [ ! -x "$host" ]; then
  echo "SKIP: no native flightrec to read the trace (FLIGHTREC_HOST_CLI; scripts/test-aarch64.sh sets it)"
  exit 77
fi
if ! "$prog" 1 >/dev/null 2>&1; then
  echo "SKIP: this host cannot execve an aarch64 program (no binfmt_misc entry for qemu-aarch64: run the test under scripts/aarch64-binfmt.sh), so the aarch64 flightrec record cannot start one"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
N=50
expect_rc 0 "record" $emu "$cli" record -o rec.fr -- "$prog" $N
grep -qx "ok $N" out.txt || fail "record: the program's output: $(head -c 300 out.txt)"
"$host" account rec.fr >account.txt 2>&1 || fail "account failed: $(head -c 300 account.txt)"
# function -> calls (aarch64_calls.c's header); account: calls first, the name last
got=$(awk 'NR > 1 && $1 ~ /^[0-9]+$/ { print $NF, $1 }' account.txt | sort)
want=$(printf '%s\n' "leaf $((2 * N))" "mid $N" "tail_caller $N" "dbl $N" "many_args $N" \
       "big_result $N" "recurse 31" "main 1" | sort)
[ "$got" = "$want" ] || fail "counts differ: got [$(echo $got)] want [$(echo $want)]"
# The recorder came in only by the preload: the program does not link it.
if readelf -d "$prog" 2>/dev/null | grep -q 'NEEDED.*libflightrec'; then
  fail "the program links libflightrec: the preload is not tested"
fi
finish "flightrec record (aarch64, preloading libflightrec.so.0) under the emulator: every call counted"
