#!/bin/sh
# aarch64_record.sh EMULATOR HOST_FLIGHTREC FLIGHTREC PROG WORKDIR
# `flightrec record -- PROG` with the aarch64 command under EMULATOR (preload of the
# aarch64 libflightrec.so and all): the trace counts every call of PROG. The command's
# child execve()s PROG itself, which only works where the host runs aarch64 programs
# (a binfmt_misc entry for qemu-aarch64); elsewhere the test says Skipped.
emu=$1 host=$2 cli=$3 prog=$4 work=$5
. "$(dirname "$0")/frtest.sh"
if [ -z "$host" ] || [ ! -x "$host" ]; then
  echo "SKIP: no native flightrec to read the trace (FLIGHTREC_HOST_CLI; scripts/test-aarch64.sh sets it)"
  exit 77
fi
if ! "$prog" 1 >/dev/null 2>&1; then
  echo "SKIP: this host cannot execve an aarch64 program (no binfmt_misc entry for qemu-aarch64), so the aarch64 flightrec record cannot start one"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
expect_rc 0 "record" $emu "$cli" record -o rec.fr -- "$prog" 50
grep -qx "ok 50" out.txt || fail "record: the program's output: $(head -c 300 out.txt)"
"$host" account rec.fr >account.txt 2>&1 || fail "account failed: $(head -c 300 account.txt)"
awk '$NF == "leaf" { print $1 }' account.txt | grep -qx 100 || fail "leaf is not counted 100 times"
finish "flightrec record under the emulator: every call counted"
