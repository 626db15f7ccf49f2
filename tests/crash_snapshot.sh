#!/usr/bin/env bash
# crash_snapshot.sh FLIGHTREC LLVM_XRAY PROG STRESS_PROG WORKDIR - 10 snapshots taken by signal
# (`flightrec snapshot PID`, snapshot_signal=SIGUSR2) while two threads record; each
# file is valid for llvm-xray and our reader, says which snapshot it is, and its summary
# counts exactly the records it holds (overall and per thread, also for 20 snapshots of
# a pool recycled under them); the final trace still holds the records made after the
# last snapshot; fr_snapshot() names %n.
# Under an emulator (the aarch64 build under qemu-user) record's default snapshot signal
# is left out, saying why: SIGRTMAX-1 has no host signal there (kill: EINVAL); the rest
# runs with snapshot_signal=SIGUSR2.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 xray=$2 prog=$3 stress=$4 work=$5
rm -rf "$work"; mkdir -p "$work"; cd "$work"

# Usage errors first: no pid, a bad signal, a process without snapshot_signal.
"$fr" snapshot >/dev/null 2>&1; [ $? = 2 ] || fail "snapshot without a pid: want exit 2"
"$fr" snapshot 1 --signal SIGSEGV >/dev/null 2>&1; [ $? = 2 ] || fail "--signal SIGSEGV: want exit 2"
sleep 30 & sl=$!
"$fr" snapshot $sl >/dev/null 2>err.txt; rc=$?
[ $rc = 1 ] && grep -q "not started with snapshot_signal" err.txt || fail "no snapshot_signal: exit $rc, $(cat err.txt)"
kill $sl; wait $sl 2>/dev/null
# A process whose FLIGHTREC_OPTIONS names a snapshot signal but that does not catch it (no
# recorder running in it: a child that did not load the library, a start-up that failed)
# is not sent it: its default action would kill the process. With --signal too.
FLIGHTREC_OPTIONS=snapshot_signal=SIGUSR2 sleep 30 & sl=$!
sleep 0.2
for args in "" "--signal SIGUSR1"; do
  # shellcheck disable=SC2086
  "$fr" snapshot $sl $args >/dev/null 2>err.txt; rc=$?
  [ $rc = 1 ] && grep -q "does not catch" err.txt || fail "snapshot $args of a process without a handler: exit $rc, $(cat err.txt)"
done
kill -0 $sl 2>/dev/null || fail "snapshot killed a process that does not catch the signal"
kill $sl; wait $sl 2>/dev/null

# Under `flightrec record` a snapshot needs no option set by hand (issue 24): record gives
# the program a snapshot signal, and `flightrec snapshot PID` reads it from its environment.
if emulated "$prog"; then
  echo "note: record's default snapshot signal not checked: SIGRTMAX-1 has no host signal under qemu-user ($(elf_cpu "$prog") program)"
else
  env -u FLIGHTREC_OPTIONS "$fr" record -o auto.fr -- "$prog" >out.txt 2>err.txt &
  rec=$!
  for i in $(seq 300); do [ -s pid.txt ] && break; sleep 0.1; done
  pid=$(cat pid.txt) || { fail "the program did not start under record"; exit 1; }
  "$fr" snapshot "$pid" 2>snap.err || fail "snapshot of a program started by record: $(cat snap.err)"
  # a real-time signal is named as record names it (it was "signal 63 (SIG?)")
  grep -q "sent signal [0-9]* (SIGRTMAX-1) to process $pid" snap.err || fail "snapshot under record: $(cat snap.err)"
  for i in $(seq 100); do [ -e "auto.fr.$pid.1" ] && break; sleep 0.05; done
  [ -s "auto.fr.$pid.1" ] || fail "snapshot under record: no file auto.fr.$pid.1 ($(ls))"
  "$fr" info "auto.fr.$pid.1" >info.txt 2>&1
  grep -q "^written on: snapshot 1, signal [0-9]* (SIGRTMAX-1)," info.txt || fail "snapshot under record: info: $(grep written info.txt)"
  "$fr" info --json "auto.fr.$pid.1" >info.txt 2>&1
  grep -q '"signal_name": "SIGRTMAX-1"' info.txt || fail "snapshot under record: info --json: $(grep written_on info.txt)"
  touch stop
  wait $rec; rc=$?
  [ $rc = 0 ] || fail "record (snapshot signal by default): exit $rc ($(head -c 300 err.txt))"
  [ -s auto.fr ] || fail "record (snapshot signal by default): no final trace"
fi
rm -f stop pid.txt api-*.fr

export FLIGHTREC_OPTIONS="snapshot_signal=SIGUSR2 buffers=8 buffer_size=16K"
"$fr" record -o final.fr -- "$prog" >out.txt 2>err.txt &
rec=$!
for i in $(seq 300); do [ -s pid.txt ] && break; sleep 0.1; done
pid=$(cat pid.txt) || { fail "the program did not start"; exit 1; }
for n in $(seq 10); do
  "$fr" snapshot "$pid" 2>snap.err || fail "flightrec snapshot $pid: $(cat snap.err)"
  for i in $(seq 100); do [ -e "final.fr.$pid.$n" ] && break; sleep 0.05; done
  [ -e "final.fr.$pid.$n" ] || fail "snapshot $n: no file final.fr.$pid.$n ($(ls))"
  sleep 0.05
done
touch stop
wait $rec; rc=$?
[ $rc = 0 ] || fail "record: exit $rc ($(head -c 300 err.txt))"

. "$(dirname "$0")/crash_counts.sh"   # summary_exact

last_tsc() { "$fr" info "$1" | sed -n 's/^last tsc: //p'; }
prev=0
for n in $(seq 10); do
  f=final.fr.$pid.$n
  [ -s "$f" ] || continue
  "$xray" fdr-dump -verify "$f" >/dev/null 2>x.err || fail "snapshot $n: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
  "$fr" info "$f" >info.txt 2>info.err || fail "snapshot $n: flightrec info: $(cat info.err)"
  grep -q "^written on: snapshot $n, signal 12 (SIGUSR2)" info.txt || fail "snapshot $n: $(grep written info.txt)"
  records=$(sed -n "s/^records: //p" info.txt)
  [ "$records" -gt 100 ] || fail "snapshot $n: only $records function records"
  summary_exact info.txt "snapshot $n"
  t=$(last_tsc "$f")
  [ "${t:-0}" -gt "$prev" ] || fail "snapshot $n ends at tsc $t, not after the previous one ($prev)"
  prev=${t:-0}
done
[ -s final.fr ] || fail "no final trace"
"$xray" fdr-dump -verify final.fr >/dev/null 2>x.err || fail "final: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
t=$(last_tsc final.fr)
[ "${t:-0}" -gt "$prev" ] || fail "the final trace ends at tsc $t, not after the last snapshot ($prev)"
grep -q "^written on" <("$fr" info final.fr) && fail "the final trace (normal exit) names a dump cause"
# The 10 calls made after the last signal, in the API snapshot (number 11) and the final trace.
[ -s api-11.fr ] || fail "fr_snapshot(\"api-%n.fr\") wrote no api-11.fr ($(ls))"
for f in api-11.fr final.fr; do
  n=$("$fr" dump "$f" --tid "$pid" 2>/dev/null | tail -20 | grep -c ' exit .*tick')
  [ "$n" -ge 10 ] || fail "$f: the last calls of tick are missing ($n)"
done

# Buffers recycled while a snapshot reads them (two threads spinning, 4 x 4 KiB pool):
# every file still valid; what could not be captured is counted, not written torn.
unset FLIGHTREC_OPTIONS
mkdir stress && cd stress
FLIGHTREC_OPTIONS="start=1 buffers=4 buffer_size=4K output=final.fr" "$stress" || fail "stress: fr_snapshot failed"
skipped=0
for n in $(seq 20); do
  f=stress-$n.fr
  [ -s "$f" ] || { fail "stress: no $f"; continue; }
  "$xray" fdr-dump -verify "$f" >/dev/null 2>x.err || fail "stress $n: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
  "$fr" info "$f" >info.txt 2>info.err || fail "stress $n: flightrec info: $(cat info.err)"
  grep -q "truncated" info.txt info.err && fail "stress $n: read as truncated"
  summary_exact info.txt "stress $n"
  s=$(sed -n 's/.*records not captured consistently \([0-9]*\).*/\1/p' info.txt)
  skipped=$((skipped + ${s:-0}))
done
echo "stress: $skipped records not captured consistently over 20 snapshots"
exit $status
