#!/usr/bin/env bash
# crash_nested.sh PROG WORKDIR - see tests/progs/crash_nested.c.
set -uo pipefail
prog=$1 work=$2
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS
status=0
fail() { echo "FAIL: $*"; status=1; }
FLIGHTREC_OPTIONS="output=$work/nested.fr" timeout 20 "$prog" >out.txt 2>err.txt; rc=$?
[ "$rc" = 134 ] || fail "exit $rc, want 134 (SIGABRT; 124 = hung): $(head -c 300 err.txt)"
grep -q "SIGABRT (6): cannot write the trace to $work/nested.fr: a fault inside the dump itself" err.txt ||
  fail "no message about the abandoned dump: $(head -c 300 err.txt)"
[ -z "$(ls -A)" ] || [ "$(ls -A)" = "$(printf 'err.txt\nout.txt')" ] || fail "files left: $(ls -A)"
exit $status
