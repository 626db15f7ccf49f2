#!/usr/bin/env bash
# functrace_binary_check.sh - `--binary` is checked against the program that ran.
# usage: functrace_binary_check.sh FLIGHTREC WORKDIR
# gcc -finstrument-functions programs (built here with the gcc on the PATH), recorded by
# `flightrec record` (no relinking):
#  - the trace carries the executable's GNU build-id (FR_TE_BUILD_ID), equal to the one
#    readelf prints; `info` shows it;
#  - a stripped copy of the traced program is accepted (same build-id; it has no symbols
#    to compare, so it was refused before), and the names are the trace's own;
#  - a rebuilt program, stripped or not, is refused naming both build-ids;
#  - programs linked without a build-id: the function table decides, as before.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 work=$2
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS

cat > prog.c <<'PROG'
#include <stdio.h>
static int __attribute__((noinline)) leaf(int x) { return x * FACTOR; }
int __attribute__((noinline)) work(int n) { int s = 0; for (int i = 0; i < n; i++) s += leaf(i); return s; }
int main(void) { printf("%d\n", work(10)); return 0; }
PROG
build() { gcc -O1 -g -finstrument-functions -DFACTOR="$1" prog.c -o "$2" "${@:3}" || fail "gcc $2"; }
build 3 traced
build 4 rebuilt
build 3 traced_noid -Wl,--build-id=none
build 4 rebuilt_noid -Wl,--build-id=none
cp traced traced.stripped && strip traced.stripped
cp rebuilt rebuilt.stripped && strip rebuilt.stripped

expect_rc 0 "record" "$fr" record -o t.fr -- ./traced
want=$(readelf -n traced | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
[ -n "$want" ] || fail "readelf shows no build-id for gcc's program (test premise)"
expect_rc 0 "info" "$fr" info t.fr
grep -q "^object 0: .*, build-id $want$" out.txt || fail "info: no build-id $want in '$(grep '^object' out.txt)'"
expect_rc 0 "info --json" "$fr" info --json t.fr
grep -q "\"build_id\": \"$want\"" out.txt || fail "info --json: no build_id $want"

for b in traced traced.stripped; do
  expect_rc 0 "account --binary $b" "$fr" account --binary "$b" t.fr
  for f in main work leaf; do
    grep -q " $f$" out.txt || fail "account --binary $b: no $f in '$(cat out.txt)'"
  done
  [ -s err.txt ] && fail "account --binary $b: says '$(cat err.txt)'"
done
# info --binary counts the functions called in the trace that have a name (its help
# promised that; the option only checked the binary before): 3 of 3 here.
for b in traced traced.stripped; do
  expect_rc 0 "info --binary $b" "$fr" info --binary "$b" t.fr
  grep -q "^functions named: 3 of 3 called$" out.txt || fail "info --binary $b: '$(grep '^functions' out.txt)'"
  expect_rc 0 "info --json --binary $b" "$fr" info --json --binary "$b" t.fr
  grep -q '"functions_called": 3, "functions_named": 3' out.txt || fail "info --json --binary $b: $(grep -o '"functions_[a-z]*": [0-9]*' out.txt | tr '\n' ' ')"
done
expect_rc 0 "info without --binary" "$fr" info t.fr
grep -q "^functions named" out.txt && fail "info without --binary counts names: '$(grep '^functions named' out.txt)'"
other=$(readelf -n rebuilt | sed -n 's/.*Build ID: *\([0-9a-f]*\).*/\1/p')
for b in rebuilt rebuilt.stripped; do
  expect_rc 1 "account --binary $b" "$fr" account --binary "$b" t.fr
  grep -q "is not the traced program.*build-id is $other, the traced program's was $want" err.txt ||
    fail "account --binary $b: message '$(cat err.txt)'"
  [ -s out.txt ] && fail "account --binary $b wrote a table"
done

# No build-id on either side: the trace's function addresses and names decide.
expect_rc 0 "record, no build-id" "$fr" record -o n.fr -- ./traced_noid
expect_rc 0 "info, no build-id" "$fr" info n.fr
grep "^object 0:" out.txt | grep -q "build-id" && fail "info, no build-id: '$(grep '^object' out.txt)'"
expect_rc 0 "account --binary traced_noid" "$fr" account --binary traced_noid n.fr
expect_rc 1 "account --binary rebuilt_noid" "$fr" account --binary rebuilt_noid n.fr
grep -q "is not the traced program" err.txt || fail "account --binary rebuilt_noid: message '$(cat err.txt)'"
# A shared library rebuilt at the recorded path after the run: its file:line (DWARF) and
# symbols are another build's, not used (build-ids differ); the trace's names stay.
printf 'int __attribute__((noinline)) lib_fn(int x)\n{\n    return x + 1;\n}\n' > lib.c
printf 'int lib_fn(int);\nint main(void) { return lib_fn(1) == 2 ? 0 : 1; }\n' > uselib.c
gcc -O1 -g -fPIC -shared -finstrument-functions lib.c -o libw.so || fail "gcc libw.so"
gcc -O1 -g -finstrument-functions uselib.c -o uselib -L. -lw -Wl,-rpath,"$work" || fail "gcc uselib"
expect_rc 0 "record uselib" "$fr" record -o l.fr -- ./uselib
expect_rc 0 "account --lines" "$fr" account --lines l.fr
grep -q "lib_fn.*lib.c:1\b" out.txt || fail "account --lines: lib_fn not at lib.c:1 in '$(cat out.txt)'"
{ printf '\n\n\n\n'; cat lib.c; } > lib2.c && mv lib2.c lib.c
gcc -O1 -g -fPIC -shared -finstrument-functions lib.c -o libw.so || fail "gcc libw.so again"
expect_rc 0 "account --lines, library rebuilt" "$fr" account --lines l.fr
grep -q "lib_fn" out.txt || fail "library rebuilt: lib_fn's name lost: '$(cat out.txt)'"
grep -q "lib.c:5" out.txt && fail "library rebuilt: the new build's line shown: '$(cat out.txt)'"
finish "functrace_binary_check: ok"
