#!/usr/bin/env bash
# crash_signals.sh - traced programs killed by each fatal signal (crash_dump=1, on by
# default under `flightrec record`) and by termination signals (signal_flush=1) leave a
# trace: llvm-xray fdr-dump -verify accepts it, our reader reads every record (exact
# counts per thread), the crashing function's entry is the crashing thread's last record,
# `flightrec info` names the signal, and the exit status is the program's.
# usage: crash_signals.sh FLIGHTREC LLVM_XRAY CRASH_PROG CRASH_PROG_CXX WORKDIR
# The faults are each CPU's own: an undefined instruction is SIGILL on both, and an
# integer division by zero traps (SIGFPE) on x86-64 only: on aarch64 it gives 0, and the
# fpe case is left out, saying so.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 xray=$2 prog=$3 cxx=$4 work=$5
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS

# check_trace NAME FILE SIGNAL SIGNAME CAUSE MAIN_RECORDS WORKER_RECORDS
check_trace() {
  local name=$1 file=$2 sig=$3 signame=$4 cause=$5 main_records=$6 worker_records=$7
  [ -s "$file" ] || { fail "$name: no trace ($(ls))"; return; }
  "$xray" fdr-dump -verify "$file" >/dev/null 2>xray.err || fail "$name: llvm-xray fdr-dump -verify: $(head -c 300 xray.err)"
  "$fr" info "$file" >info.txt 2>info.err || fail "$name: flightrec info failed: $(cat info.err)"
  grep -q "^written on: $cause, signal $sig ($signame)" info.txt ||
    fail "$name: info does not name the signal: $(grep written info.txt)"
  local pid; pid=$(sed -n 's/^process: pid \([0-9]*\).*/\1/p' info.txt)
  local got_main got_worker
  got_main=$(sed -n "s/^thread $pid: .*, records \([0-9]*\),.*/\1/p" info.txt)
  got_worker=$(grep '^thread ' info.txt | grep -v "^thread $pid:" | sed -n 's/.*, records \([0-9]*\),.*/\1/p')
  [ "$got_main" = "$main_records" ] || fail "$name: crashing thread has $got_main records, want $main_records"
  [ "$got_worker" = "$worker_records" ] || fail "$name: worker thread has '$got_worker' records, want $worker_records"
  "$fr" dump --tid "$pid" "$file" >dump.txt 2>dump.err || fail "$name: flightrec dump failed: $(cat dump.err)"
  local last; last=$(grep -E ' (enter|exit) ' dump.txt | tail -1)
  case "$last" in
    *" enter "*crash_here*) ;;
    *) fail "$name: the crashing thread's last record is not crash_here's entry: '$last'" ;;
  esac
  ls -a | grep -q '\.tmp$' && fail "$name: a temporary file was left: $(ls -a)"
}

# MODE SIGNAL SIGNAME STATUS
for spec in "segv 11 SIGSEGV 139" "bus 7 SIGBUS 135" "ill 4 SIGILL 132" "fpe 8 SIGFPE 136" \
            "abort 6 SIGABRT 134" "trap 5 SIGTRAP 133"; do
  set -- $spec
  mode=$1 sig=$2 name=$3 want=$4
  if [ "$mode" = fpe ] && [ "$(elf_cpu "$prog")" = aarch64 ]; then
    echo "note: fpe not checked: an integer division by zero does not trap on aarch64 (no SIGFPE)"
    continue
  fi
  timeout 30 "$fr" record -o "$mode.fr" -- "$prog" "$mode" >out.txt 2>err.txt; rc=$?
  [ "$rc" = "$want" ] || fail "$mode: exit $rc, want $want ($(head -c 400 err.txt))"
  grep -q "flightrec: $name ($sig): trace written to $work/$mode.fr" err.txt ||
    fail "$mode: no 'trace written' message: $(head -c 400 err.txt)"
  # main: its own entry, 50 calls, crash_here's entry; worker: its entry, 100 calls
  check_trace "$mode" "$mode.fr" "$sig" "$name" "fatal signal" 102 201
done
grep -q "address 0x10," <("$fr" info segv.fr) || fail "segv: the faulting address 0x10 is not printed"

# Threads that came and went before the crash, under both policies: each one's records
# are in the dump (the 8 churn threads: entry, 30 calls, exit = 62 records each).
for policy in overwrite discard; do
  FLIGHTREC_OPTIONS="policy=$policy" timeout 30 "$fr" record -o "churn-$policy.fr" -- "$prog" churn >out.txt 2>err.txt; rc=$?
  [ "$rc" = 139 ] || fail "churn, $policy: exit $rc, want 139 ($(head -c 400 err.txt))"
  f=churn-$policy.fr
  [ -s "$f" ] || { fail "churn, $policy: no trace"; continue; }
  "$xray" fdr-dump -verify "$f" >/dev/null 2>xray.err || fail "churn, $policy: llvm-xray fdr-dump -verify: $(head -c 300 xray.err)"
  "$fr" info "$f" >info.txt 2>info.err || fail "churn, $policy: flightrec info failed: $(cat info.err)"
  grep -q "^policy: $policy" info.txt || fail "churn, $policy: info says $(grep '^policy' info.txt)"
  grep -q "^written on: fatal signal, signal 11 (SIGSEGV)" info.txt || fail "churn, $policy: info: $(grep written info.txt)"
  pid=$(sed -n 's/^process: pid \([0-9]*\).*/\1/p' info.txt)
  counts=$(sed -n 's/^thread \([0-9]*\): .*, records \([0-9]*\),.*/\1 \2/p' info.txt | sort -k2n | awk '{print $2}' | tr '\n' ' ')
  [ "$counts" = "62 62 62 62 62 62 62 62 102 201 " ] ||
    fail "churn, $policy: records per thread '$counts', want 8 x 62 (the ended threads), 102 (main), 201"
  last=$("$fr" dump --tid "$pid" "$f" | grep -E ' (enter|exit) ' | tail -1)
  case "$last" in *" enter "*crash_here*) ;; *) fail "churn, $policy: main's last record '$last'" ;; esac
done

# A fork child that crashes: its own trace (record's -o followed by .PID), named for
# its own signal; the parent's trace is written at its normal exit (record's status 0).
timeout 30 "$fr" record -o fork.fr -- "$prog" fork_segv >out.txt 2>err.txt; rc=$?
[ "$rc" = 0 ] || fail "fork_segv: exit $rc, want the parent's 0 ($(head -c 400 err.txt))"
read -r _ child _ csig < <(grep '^child ' out.txt)
[ "${csig:-}" = 11 ] || fail "fork_segv: the child ended by signal '${csig:-}', want 11: $(cat out.txt)"
if [ -s "fork.fr.${child:-x}" ]; then
  # 102: main's entry (open at the fork: the child's trace begins with it), then as in
  # the parent: MAIN_CALLS calls and crash_here's entry
  check_trace "fork child" "fork.fr.$child" 11 SIGSEGV "fatal signal" 102 ""
else
  fail "fork_segv: no trace of the child at fork.fr.${child:-x} ($(ls fork.fr*))"
fi
if [ -s fork.fr ]; then
  "$xray" fdr-dump -verify fork.fr >/dev/null 2>xray.err || fail "fork parent: llvm-xray fdr-dump -verify: $(head -c 300 xray.err)"
  "$fr" info fork.fr >info.txt
  grep -q "^written on" info.txt && fail "fork parent: its trace (normal exit) names a dump cause"
  [ "$(sed -n 's/^records: //p' info.txt)" = 303 ] || fail "fork parent: $(sed -n 's/^records: //p' info.txt) records, want 303"
else
  fail "fork_segv: no trace of the parent"
fi

# A stack overflow: no stack left for a handler but the alternate one the recorder gave
# the thread. The last record of the crashing thread is an entry of recurse.
timeout 30 "$fr" record -o overflow.fr -- "$prog" overflow >out.txt 2>err.txt; rc=$?
[ "$rc" = 139 ] || fail "overflow: exit $rc, want 139 ($(head -c 400 err.txt))"
if [ -s overflow.fr ]; then
  "$xray" fdr-dump -verify overflow.fr >/dev/null 2>xray.err || fail "overflow: llvm-xray fdr-dump -verify: $(head -c 300 xray.err)"
  grep -q "^written on: fatal signal, signal 11 (SIGSEGV)" <("$fr" info overflow.fr) || fail "overflow: info"
  pid=$("$fr" info overflow.fr | sed -n 's/^process: pid \([0-9]*\).*/\1/p')
  last=$("$fr" dump --tid "$pid" overflow.fr | grep -E ' (enter|exit) ' | tail -1)
  case "$last" in *" enter "*recurse*) ;; *) fail "overflow: last record '$last'" ;; esac
else
  fail "overflow: no trace ($(head -c 300 err.txt))"
fi

# The program's own SIGSEGV handler, installed before the recorder started, still runs;
# it puts the default back and returns: the fault repeats and kills the program.
FLIGHTREC_OPTIONS="crash_dump=1 output=$work/own.fr" timeout 30 "$prog" own_segv init >out.txt 2>err.txt; rc=$?
[ "$rc" = 139 ] || fail "own_segv: exit $rc, want 139 ($(head -c 400 err.txt))"
grep -q "own SIGSEGV handler ran" err.txt || fail "own_segv: the program's own handler did not run"
check_trace own_segv own.fr 11 SIGSEGV "fatal signal" 101 201 # main entered before fr_init

# C++: an exception out of a noexcept function -> std::terminate -> abort (134).
timeout 30 "$fr" record -o cxx.fr -- "$cxx" >out.txt 2>err.txt; rc=$?
[ "$rc" = 134 ] || fail "c++ terminate: exit $rc, want 134 ($(head -c 400 err.txt))"
[ -s cxx.fr ] && "$xray" fdr-dump -verify cxx.fr >/dev/null 2>&1 || fail "c++ terminate: no valid trace"
grep -q "^written on: fatal signal, signal 6 (SIGABRT)" <("$fr" info cxx.fr) || fail "c++ terminate: info"
grep -q " enter .*crash_here" <("$fr" dump cxx.fr) || fail "c++ terminate: crash_here's entry missing"
[ "$("$fr" dump cxx.fr | grep -c ' enter .*thrower')" = 4 ] || fail "c++ terminate: want 4 entries of thrower"
# every record: main's and crash_here's entries, thrower's 4 entries and 3 exits
"$fr" info cxx.fr >info.txt
[ "$(sed -n 's/^records: //p' info.txt)" = 9 ] && [ "$(sed -n 's/^records written: //p' info.txt)" = 9 ] ||
  fail "c++ terminate: $(grep -E '^records' info.txt | tr '\n' ' '), want 9 read and 9 written"

# Termination signals (signal_flush=1, on under record): the trace is written, then the
# signal's default action ends the program (128+N). A signal ignored on entry (SIGINT in
# a background job) stays ignored, so SIGINT is checked only where it is not.
sigign=$(sed -n 's/^SigIgn:\s*//p' /proc/self/status)
for spec in "term 15 SIGTERM 143" "int 2 SIGINT 130" "hup 1 SIGHUP 129"; do
  set -- $spec
  mode=$1 sig=$2 name=$3 want=$4
  if [ $(( 0x$sigign >> (sig - 1) & 1 )) = 1 ]; then echo "note: $name ignored on entry, not checked"; continue; fi
  timeout 30 "$fr" record -o "$mode.fr" -- "$prog" "$mode" >out.txt 2>err.txt; rc=$?
  [ "$rc" = "$want" ] || fail "$mode: exit $rc, want $want ($(head -c 400 err.txt))"
  check_trace "$mode" "$mode.fr" "$sig" "$name" "termination signal" 102 201
done
# The program's own SIGTERM handler (installed before the recorder started) _exits with 7:
# the trace so far was written first, and the handler still decided the status.
FLIGHTREC_OPTIONS="signal_flush=1 output=$work/own_term.fr" timeout 30 "$prog" own_term init >out.txt 2>err.txt; rc=$?
[ "$rc" = 7 ] || fail "own_term: exit $rc, want 7 ($(head -c 400 err.txt))"
grep -q "own SIGTERM handler ran" err.txt || fail "own_term: the program's own handler did not run"
check_trace own_term own_term.fr 15 SIGTERM "termination signal" 101 201

# wait_ready FILE WHAT: until the program has said "ready" in FILE (inside crash_here, its
# handlers installed), at most 60 s: a slow start (a loaded machine, qemu-user) is no
# failure, but a signal sent before it would be lost with the trace.
wait_ready() {
  local i
  for i in $(seq 600); do grep -qs ready "$1" && return 0; sleep 0.1; done
  fail "$2: the program did not say ready in 60 s"
}

# Sent by another process while the program waits inside crash_here.
FLIGHTREC_OPTIONS="start=1 signal_flush=1 output=$work/killed.fr" "$prog" wait >wait.out 2>wait.err &
pid=$!
wait_ready wait.out "kill -TERM"
kill -TERM $pid; wait $pid; rc=$?
[ "$rc" = 143 ] || fail "kill -TERM: exit $rc, want 143 ($(head -c 300 wait.err))"
check_trace "kill -TERM" killed.fr 15 SIGTERM "termination signal" 102 201
grep -q "code 0," <("$fr" info killed.fr) || fail "kill -TERM: si_code SI_USER (0) not recorded"

# SIGTERM or SIGHUP sent to `flightrec record` itself (kill PID, a service manager that
# stops it): passed on to the program, which writes its trace; record waits for it, renames
# the trace and exits with the program's status. No program is left running.
for sig in TERM HUP; do
  # (fwd.out removed: the run before's "ready" in it would let the signal go before the
  # shell's background child has even truncated it, with no program yet to write a trace)
  rm -f fwd.fr fwd.fr.* fwd.out
  "$fr" record --no-backing -o fwd.fr -- "$prog" wait >fwd.out 2>fwd.err &
  rpid=$!
  wait_ready fwd.out "record got SIG$sig"
  cpid=$(pgrep -P $rpid)
  kill -$sig $rpid; wait $rpid; rc=$?
  n=$(kill -l $sig)
  [ "$rc" = $((128 + n)) ] || fail "record got SIG$sig: exit $rc, want $((128 + n)) ($(head -c 300 fwd.err))"
  if [ -n "$cpid" ] && kill -0 "$cpid" 2>/dev/null; then
    fail "record got SIG$sig: the program was left running"
    kill -KILL "$cpid"
  fi
  if [ -e fwd.fr ]; then
    check_trace "record got SIG$sig" fwd.fr "$n" SIG$sig "termination signal" 102 201
  else
    fail "record got SIG$sig: no trace at fwd.fr ($(ls fwd.fr* 2>/dev/null))"
  fi
done

# Without crash_dump the recorder installs nothing: no trace, same status.
FLIGHTREC_OPTIONS="crash_dump=0 signal_flush=0" timeout 30 "$fr" record --no-backing -o off.fr -- "$prog" segv >out.txt 2>err.txt; rc=$?
[ "$rc" = 139 ] || fail "crash_dump=0: exit $rc, want 139"
[ -e off.fr ] && fail "crash_dump=0: a trace was written"
# ... and with record's backing file (on by default) the trace is recovered after the
# death instead (docs/BACKING.md): the same records, the crashing function's entry last.
FLIGHTREC_OPTIONS="crash_dump=0 signal_flush=0" timeout 30 "$fr" record -o rec.fr -- "$prog" segv >out.txt 2>err.txt; rc=$?
[ "$rc" = 139 ] || fail "crash_dump=0 + backing: exit $rc, want 139"
grep -q "wrote no trace: recovered 303 records of 2 threads" err.txt || fail "crash_dump=0 + backing: not recovered: $(head -c 400 err.txt)"
[ -s rec.fr ] && "$xray" fdr-dump -verify rec.fr >/dev/null 2>&1 || fail "crash_dump=0 + backing: no valid trace"
grep -q "^written on: recovered from a backing file" <("$fr" info rec.fr) || fail "crash_dump=0 + backing: info"

exit $status
