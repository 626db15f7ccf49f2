#!/usr/bin/env bash
# crash_faults.sh FLIGHTREC LLVM_XRAY CRASH_PROG SHORTWRITE_SO SNAPSHOT_STRESS_PROG WORKDIR
#   STREAM_CYCLE - write faults
# while a crash dump / termination flush / snapshot is written:
#  - short writes and EINTR (an LD_PRELOAD shim): the same valid file, every record
#    (crash dump, termination flush, with and without stream=1; snapshots: valid, their
#    counts exact);
#  - ENOSPC on a small tmpfs (root only): a clear message, the program's own exit status,
#    no file and no temporary left. Not root (or no tmpfs): Skipped (77) once the first
#    part has passed, so that a run that left out ENOSPC never reports Passed.
set -uo pipefail
fr=$1 xray=$2 prog=$3 shim=$4 stress=$5 work=$6 cycle=$7
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS
status=0
fail() { echo "FAIL: $*"; status=1; }

for spec in "segv 139" "term 143"; do
  set -- $spec
  mode=$1 want=$2
  LD_PRELOAD=$shim FLIGHTREC_OPTIONS="start=1 crash_dump=1 signal_flush=1 output=$work/short-$mode.fr" \
    timeout 30 "$prog" "$mode" >out.txt 2>err.txt; rc=$?
  [ "$rc" = "$want" ] || fail "short writes, $mode: exit $rc, want $want ($(head -c 300 err.txt))"
  "$xray" fdr-dump -verify "short-$mode.fr" >/dev/null 2>x.err || fail "short writes, $mode: invalid: $(head -c 300 x.err)"
  n=$("$fr" info "short-$mode.fr" | sed -n 's/^records: //p')
  [ "$n" = 303 ] || fail "short writes, $mode: $n records, want 303"
done

# stream=1 (1 KiB buffers: the worker's are appended while the program runs) through
# the same short writes and EINTR, then a crash dump that appends the rest: every record.
for spec in "segv 139 fatal" "term 143 termination"; do
  set -- $spec
  mode=$1 want=$2 cause=$3
  LD_PRELOAD=$shim FLIGHTREC_OPTIONS="start=1 stream=1 buffers=16 buffer_size=1k crash_dump=1 signal_flush=1 output=$work/stream-$mode.fr" \
    timeout 30 "$prog" "$mode" >out.txt 2>err.txt; rc=$?
  [ "$rc" = "$want" ] || fail "stream, short writes, $mode: exit $rc, want $want ($(head -c 300 err.txt))"
  "$xray" fdr-dump -verify "stream-$mode.fr" >/dev/null 2>x.err || fail "stream, short writes, $mode: invalid: $(head -c 300 x.err)"
  "$fr" info "stream-$mode.fr" >info.txt
  n=$(sed -n 's/^records: //p' info.txt) blocks=$(sed -n 's/^blocks: //p' info.txt)
  [ "$n" = 303 ] || fail "stream, short writes, $mode: $n records, want 303"
  [ "${blocks:-0}" -gt 4 ] || fail "stream, short writes, $mode: $blocks blocks, want the streamed layout (2 metadata blocks, one block per buffer: 3)"
  grep -q "^written on: $cause signal" info.txt || fail "stream, $mode: no dump cause: $(grep written info.txt)"
done

# Snapshots through the same short writes and EINTR, while two threads record into a
# 4-buffer pool (20 snapshots): each file valid and its counts exact.
. "$(dirname "$0")/crash_counts.sh"   # summary_exact
what="snapshots, short writes"
rm -rf snap && mkdir snap
(cd snap && LD_PRELOAD=$shim FLIGHTREC_OPTIONS="start=1 buffers=4 buffer_size=4K output=final.fr" \
  timeout 30 "$stress") >out.txt 2>err.txt; rc=$?
[ "$rc" = 0 ] || fail "$what: exit $rc ($(head -c 300 err.txt))"
for n in $(seq 20); do
  f=snap/stress-$n.fr
  [ -s "$f" ] || { fail "$what: no $f"; continue; }
  "$xray" fdr-dump -verify "$f" >/dev/null 2>x.err || fail "$what, $n: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
  "$fr" info "$f" >info.txt 2>info.err || fail "$what, $n: flightrec info: $(head -c 300 info.err)"
  grep -q truncated info.txt info.err && fail "$what, $n: read as truncated"
  summary_exact info.txt "$what, $n"
done
# ... and with stream=1 (stream_cycle: its third session's snapshot, taken while a thread
# records, copies the streamed file's blocks through them too; every file whole).
mkdir cycle
LD_PRELOAD=$shim timeout 30 "$cycle" "$work/cycle" >out.txt 2>err.txt || fail "stream snapshot, short writes: exit $? ($(head -c 300 err.txt))"
for f in s1 s2 s3 snap; do
  "$xray" fdr-dump -verify "cycle/$f.fr" >/dev/null 2>x.err || fail "stream snapshot, short writes: $f.fr: $(head -c 300 x.err)"
done
"$fr" info cycle/snap.fr >info.txt 2>info.err || fail "stream snapshot, short writes: flightrec info: $(head -c 300 info.err)"
summary_exact info.txt "stream snapshot, short writes"

if [ "$(id -u)" != 0 ] || ! mkdir full || ! mount -t tmpfs -o size=16k tmpfs full 2>/dev/null; then
  [ $status = 0 ] || exit $status
  echo "SKIP: cannot mount a small tmpfs (not root?): the ENOSPC part was not run"
  exit 77
fi
trap 'umount "$work/full"' EXIT
head -c 16384 /dev/zero >full/filler 2>/dev/null   # as much as fits: the disk is full
for spec in "segv 139 SIGSEGV" "abort 134 SIGABRT" "term 143 SIGTERM"; do
  set -- $spec
  mode=$1 want=$2 name=$3
  FLIGHTREC_OPTIONS="start=1 crash_dump=1 signal_flush=1 output=$work/full/$mode.fr" \
    timeout 30 "$prog" "$mode" >out.txt 2>err.txt; rc=$?
  [ "$rc" = "$want" ] || fail "ENOSPC, $mode: exit $rc, want $want ($(head -c 300 err.txt))"
  grep -q "flightrec: $name ([0-9]*): cannot write the trace to $work/full/$mode.fr: no space left on device" err.txt ||
    fail "ENOSPC, $mode: no clear message: $(head -c 300 err.txt)"
  [ "$(ls -A full)" = filler ] || fail "ENOSPC, $mode: files left: $(ls -A full)"
done
# Snapshots into the full disk: fr_snapshot fails with a message, nothing is left, and
# the program (which exits 1 when a snapshot fails) keeps running to its end.
(cd full && FLIGHTREC_OPTIONS="start=1 output=/dev/null" timeout 30 "$stress") >out.txt 2>err.txt; rc=$?
[ "$rc" = 1 ] || fail "ENOSPC, snapshots: exit $rc, want 1 ($(head -c 300 err.txt))"
grep -q "flightrec: snapshot 1: cannot write stress-1.fr: no space left on device" err.txt ||
  fail "ENOSPC, snapshots: no clear message: $(head -c 300 err.txt)"
[ "$(ls -A full)" = filler ] || fail "ENOSPC, snapshots: files left: $(ls -A full)"
# Under record: neither the trace nor its recovery from the backing file fits; record
# names the backing file it keeps, and its last line says why there is no trace.
timeout 30 "$fr" record -o "$work/full/rec.fr" -- "$prog" exit >out.txt 2>err.txt; rc=$?
[ "$rc" = 5 ] || fail "ENOSPC, record: exit $rc, want 5 ($(head -c 300 err.txt))"
kept=$(sed -n 's/.*its backing file \(.*\.bk\) could not be recovered.*/\1/p' err.txt)
[ -n "$kept" ] && [ -e "$kept" ] || fail "ENOSPC, record: no kept backing file named: $(cat err.txt)"
tail -1 err.txt | grep -q "no trace at $work/full/rec.fr (it could not be written: see above)" ||
  fail "ENOSPC, record: last line '$(tail -1 err.txt)'"
[ -n "$kept" ] && rm -rf "$(dirname "$kept")"
[ "$(ls -A full)" = filler ] || fail "ENOSPC, record: files left: $(ls -A full)"
exit $status
