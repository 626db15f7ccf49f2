#!/usr/bin/env bash
# functrace_dlopen_plain.sh FLIGHTREC HOST PLUGIN WORKDIR - a program without
# instrumentation that dlopens an instrumented plugin 100 times (issue 24 item 13):
# `record` refuses it and says that --no-check records the plugins it loads; with
# --no-check all 100 calls of dl_a_work (and of dl_a_square under it) are in the trace
# (0 were: the runtime patched nothing at init, when no sleds were loaded, nor later).
set -uo pipefail
fr=$1 host=$2 plugin=$3 work=$4
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
status=0
fail() { echo "FAIL: $*"; status=1; }
env -u FLIGHTREC_OPTIONS "$fr" record -o t.fr -- "$host" "$plugin" >out.txt 2>err.txt; rc=$?
[ $rc = 1 ] || fail "record without --no-check: exit $rc, want 1"
grep -q "loads instrumented libraries with dlopen, pass --no-check" err.txt ||
  fail "record does not say what --no-check does for dlopen'ed libraries: $(cat err.txt)"
env -u FLIGHTREC_OPTIONS "$fr" record --no-check -o t.fr -- "$host" "$plugin" >out.txt 2>err.txt; rc=$?
[ $rc = 0 ] || fail "record --no-check: exit $rc: $(cat err.txt)"
for pair in 100:dl_a_work 100:dl_a_square; do
  want=${pair%%:*} f=${pair#*:}
  # (each load of the plugin gets function ids of its own, as in functrace_dlopen.sh)
  got=$("$fr" account t.fr 2>/dev/null | awk -v f="$f" '$NF == f { n += $1 } END { print n + 0 }')
  [ "$got" = "$want" ] || fail "$f called '$got' times in the trace, want $want"
done
[ $status = 0 ] && echo ok
exit $status
