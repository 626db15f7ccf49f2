#!/usr/bin/env bash
# cli_doctor_static.sh FLIGHTREC PLAIN HOOKS HOOKS_NOPLT WORKDIR - programs that link
# libflightrec.a all define __cyg_profile_func_enter; doctor (and record, which decides
# from the same facts) says "-finstrument-functions hooks" only for those whose code calls
# it: HOOKS (-finstrument-functions) and HOOKS_NOPLT (the same with -fno-plt), not PLAIN.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 plain=$2 hooks=$3 noplt=$4 work=$5
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS

nm "$plain" | grep ' T __cyg_profile_func_enter$' >/dev/null || fail "PLAIN does not define the hook: the test proves nothing"
expect_rc 1 "doctor PLAIN" "$fr" doctor "$plain"
grep -qx 'instrumentation: none' out.txt || fail "doctor PLAIN: '$(grep instrumentation out.txt)'"
grep -q '^verdict: cannot be traced: no function instrumentation' out.txt || fail "doctor PLAIN: '$(grep verdict out.txt)'"
expect_rc 1 "doctor --json PLAIN" "$fr" doctor --json "$plain"
python3 -c 'import json,sys; j=json.load(open("out.txt")); sys.exit(0 if not j["cyg_profile_hooks"] and not j["instrumented"] and j["links_flightrec"] else 1)' ||
  fail "doctor --json PLAIN: $(cat out.txt)"
expect_rc 1 "record PLAIN" "$fr" record -o plain.fr -- "$plain"
grep -q "no function instrumentation" err.txt || fail "record PLAIN: $(cat err.txt)"

for p in "$hooks" "$noplt"; do
  expect_rc 0 "doctor $p" "$fr" doctor "$p"
  grep -q '^instrumentation: -finstrument-functions hooks' out.txt || fail "doctor $p: '$(grep instrumentation out.txt)'"
  grep -qx 'runtime: libflightrec (linked statically)' out.txt || fail "doctor $p: '$(grep runtime out.txt)'"
done
finish "ok: doctor and record see -finstrument-functions hooks only where the code calls them"
