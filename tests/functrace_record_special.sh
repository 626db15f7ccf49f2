#!/usr/bin/env bash
# functrace_record_special.sh FLIGHTREC LLVM_XRAY PROGRAM WORKDIR - `flightrec record -o
# OUTPUT` where OUTPUT is a FIFO or a character device: the trace is written into it in
# place, which stays what it was (before: OUTPUT.PID was renamed over it, and /dev/null
# became a regular 0600 file), and nothing is left beside it (OUTPUT.PID in /dev).
# The device case needs mknod (root): without it, Skipped once the FIFO case passed.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 xray=$2 prog=$3 work=$4
rm -rf "$work"; mkdir -p "$work/dev" "$work/tmp"; cd "$work"
unset FLIGHTREC_OPTIONS
export TMPDIR=$work/tmp

# A FIFO: a reader gets the whole trace.
mkfifo dev/fifo
cat dev/fifo > from_fifo.fr & reader=$!
wait_in_open $reader
expect_rc 0 "record -o FIFO" timeout 60 "$fr" record -o dev/fifo -- "$prog"
wait $reader
[ -p dev/fifo ] || fail "the FIFO is no longer a FIFO: $(ls -l dev/fifo)"
grep -q "trace written into $work/dev/fifo" err.txt || fail "record -o FIFO: $(cat err.txt)"
"$xray" fdr-dump -verify from_fifo.fr >/dev/null 2>x.err || fail "FIFO trace: llvm-xray: $(head -c 300 x.err)"
n=$("$fr" info from_fifo.fr | sed -n 's/^records: //p')
[ "${n:-0}" -gt 0 ] || fail "FIFO trace: '$n' records"
[ "$(ls -A dev)" = fifo ] || fail "files left beside the FIFO: $(ls -A dev)"
[ -z "$(ls -A tmp)" ] || fail "staging directory left: $(ls -A tmp)"

# A character device (a /dev/null of our own).
if ! mknod dev/null c 1 3 2>/dev/null; then
  [ $status = 0 ] || finish ""
  echo "SKIP: mknod not permitted (not root): the character device case did not run"
  exit 77
fi
expect_rc 0 "record -o DEVICE" timeout 60 "$fr" record -o dev/null -- "$prog"
[ -c dev/null ] || fail "the device became: $(ls -l dev/null)"
[ "$(stat -c %t:%T dev/null)" = 1:3 ] || fail "the device changed: $(ls -l dev/null)"
grep -q "trace written into $work/dev/null (" err.txt || fail "record -o DEVICE: $(cat err.txt)"
[ "$(ls -A dev | sort | tr '\n' ' ')" = "fifo null " ] || fail "files left beside the device: $(ls -A dev)"
[ -z "$(ls -A tmp)" ] || fail "staging directory left: $(ls -A tmp)"
# A directory is refused.
expect_rc 2 "record -o DIRECTORY" "$fr" record -o dev -- "$prog"
finish "record into a FIFO and a device: ok"
