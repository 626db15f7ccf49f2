#!/usr/bin/env bash
# record_exec.sh FLIGHTREC EXEC_CHAIN WORKDIR - processes that exec traced programs
# (issue 24 items 12 and 14):
#  1. under `flightrec record`, a program that calls before() 5 times and then execs
#     itself (same pid) to call after() 3 times: the trace holds after()'s calls, and the
#     history before the exec, which the exec ended without a flush, is recovered from
#     its backing file to TRACE.before-exec (it was removed without a word), and said;
#  2. with FLIGHTREC_OPTIONS output= without %p, a parent whose 20 children each exec a
#     traced program: the parent's trace is the file, each child's is FILE.PID (they all
#     wrote the one file: 1 file, 0 of 20 children), each said on stderr.
set -uo pipefail
fr=$1 prog=$2 work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
calls() { "$fr" account "$1" 2>/dev/null | awk -v f="$2" '$NF == f { print $1 }'; }

env -u FLIGHTREC_OPTIONS "$fr" record -o t.fr -- "$prog" before 5 >out.txt 2>err.txt; rc=$?
[ $rc = 0 ] || fail "record: exit $rc: $(cat err.txt)"
[ "$(calls t.fr after)" = 3 ] || fail "the trace after the exec: after() called '$(calls t.fr after)' times, want 3"
[ -z "$(calls t.fr before)" ] || fail "before() is in the exec'd image's trace"
[ -s t.fr.before-exec ] || fail "no t.fr.before-exec ($(ls)): $(cat err.txt)"
[ "$(calls t.fr.before-exec before)" = 5 ] ||
  fail "the history before the exec: before() called '$(calls t.fr.before-exec before)' times, want 5"
grep -q "exec'd another program: the history of the image before the exec .* recovered .* to $work/t.fr.before-exec" err.txt ||
  fail "record does not say where the history before the exec went: $(cat err.txt)"

FLIGHTREC_OPTIONS="start=1 output=$work/c.fr" "$prog" spawn 20 >out.txt 2>err.txt; rc=$?
[ $rc = 0 ] || fail "spawn: exit $rc: $(cat err.txt)"
[ "$(calls c.fr parent_work)" = 1 ] && [ -z "$(calls c.fr child_work)" ] ||
  fail "c.fr is not the parent's trace: parent_work '$(calls c.fr parent_work)', child_work '$(calls c.fr child_work)'"
n=0
for f in c.fr.*; do
  [ -e "$f" ] || continue
  [ "$(calls "$f" child_work)" = 2 ] || fail "$f: child_work called '$(calls "$f" child_work)' times, want 2"
  n=$((n + 1))
done
[ $n = 20 ] || fail "$n children's traces, want 20 ($(ls))"
said=$(grep -c "output=$work/c.fr has no %p and is the trace of process [0-9]*: process [0-9]* writes its own, with \.[0-9]* added" err.txt)
[ "$said" = 20 ] || fail "$said children said which file they write, want 20: $(head -3 err.txt)"
[ $status = 0 ] && echo ok
exit $status
