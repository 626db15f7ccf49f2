#!/usr/bin/env bash
# install_record_norelink.sh - the installed `flightrec record`, with no LD_LIBRARY_PATH
# and no LD_PRELOAD of our own, traces programs that were never linked with libflightrec
# (issue 13): clang -fxray-instrument -fnoxray-link-deps, gcc -finstrument-functions, and
# clang's default XRay (compiler-rt's runtime linked in); every call is in the trace.
# A static program without libflightrec is refused with a message saying what to do.
# Then a process tree (issue 15 item 4): the recorded process's trace is FILE, each
# child's (one exec'd, one forked) FILE.PID, each holding exactly its own calls.
# usage: install_record_norelink.sh BUILD_DIR SOURCE_DIR CLANG GCC LLVM_XRAY
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
build=$1 src=$2 clang=$3 gcc=$4 xray=$5
for t in "$clang" "$gcc"; do
  command -v "$t" >/dev/null || { echo "SKIP: $t not found"; exit 77; }
done
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
unset LD_LIBRARY_PATH LD_PRELOAD FLIGHTREC_OPTIONS
cmake --install "$build" --prefix "$work/prefix" >/dev/null || { echo "FAIL: install"; exit 1; }
fr=$work/prefix/bin/flightrec

cat >p.c <<'EOF2'
#include <stdio.h>
__attribute__((noinline)) int leaf(int x) { __asm__ volatile(""); return x + 1; }
__attribute__((noinline)) int mid(int x) { return leaf(x) * 2; }
int main(void) { int s = 0; for (int i = 0; i < 100; i++) s += mid(i); printf("%d\n", s); return 0; }
EOF2
xray_flags="-fxray-instrument -fxray-instruction-threshold=1"
# shellcheck disable=SC2086
{ "$clang" -O1 $xray_flags -fnoxray-link-deps p.c -o xray_nolink &&
  "$gcc" -O1 -finstrument-functions p.c -o gcc_plain &&
  "$clang" -O1 $xray_flags p.c -o xray_compiler_rt &&
  "$clang" -O1 $xray_flags -fnoxray-link-deps -static p.c -o xray_static; } ||
  { echo "FAIL: cannot build the test programs"; exit 1; }

# "calls name" for each function, sorted by name: from our CSV and from llvm-xray.
calls_of() { "$fr" account -f csv "$1" | awk -F, 'NR>1{print $3, $2}' | sort -k2 | tr '\n' ' '; }
want="100 leaf 1 main 100 mid "
for prog in xray_nolink gcc_plain xray_compiler_rt; do
  "$fr" record -o "$prog.fr" -- "./$prog" >out.txt 2>err.txt || { fail "$prog: record exit $? ($(cat err.txt))"; continue; }
  [ "$(cat out.txt)" = 10100 ] || fail "$prog: output '$(cat out.txt)'"
  got=$(calls_of "$prog.fr")
  [ "$got" = "$want" ] || fail "$prog: calls '$got', want '$want'"
  "$xray" fdr-dump -verify "$prog.fr" >/dev/null 2>&1 || fail "$prog: llvm-xray cannot verify the trace"
  [ "$status" = 0 ] && echo "ok: $prog traced without relinking: $got"
done
"$fr" record -o static.fr -- ./xray_static >out.txt 2>err.txt; rc=$?
[ $rc = 1 ] || fail "static program: exit $rc, want 1"
grep -q "statically linked without libflightrec" err.txt || fail "static program: no clear message: $(cat err.txt)"
[ -s out.txt ] && fail "static program was run"

# flightrec doctor says the same without running them: exit 0 for the three, 1 for the
# static one and for an uninstrumented program; its function count is llvm-xray's.
for prog in xray_nolink gcc_plain xray_compiler_rt; do
  "$fr" doctor "./$prog" >out.txt 2>&1 || fail "doctor $prog: exit $?, want 0: $(cat out.txt)"
  grep -q '^verdict: can be traced' out.txt || fail "doctor $prog: $(grep verdict out.txt)"
done
grep -q '^runtime: compiler-rt XRay' <("$fr" doctor ./xray_compiler_rt) || fail "doctor does not see compiler-rt's runtime"
grep -q '^instrumentation: -finstrument-functions' <("$fr" doctor ./gcc_plain) || fail "doctor does not see gcc's hooks"
n=$("$xray" extract ./xray_nolink | grep -c 'kind: function-enter')
grep -q "^instrumentation: XRay sleds: $n functions" <("$fr" doctor ./xray_nolink) ||
  fail "doctor xray_nolink: '$("$fr" doctor ./xray_nolink | grep instrumentation)', llvm-xray extract counts $n functions"
"$fr" doctor ./xray_static >out.txt; rc=$?
[ $rc = 1 ] && grep -q 'verdict: cannot be traced: statically linked' out.txt || fail "doctor xray_static: exit $rc, $(grep verdict out.txt)"
"$fr" doctor /bin/true >out.txt; rc=$?
[ $rc = 1 ] && grep -q 'verdict: cannot be traced: no function instrumentation' out.txt || fail "doctor /bin/true: exit $rc"
"$fr" doctor --json ./xray_nolink | python3 -c 'import json,sys; j=json.load(sys.stdin); assert j["traceable"] and j["sled_functions"] == 3, j' ||
  fail "doctor --json"
[ "$status" = 0 ] && echo "ok: doctor agrees with record (and llvm-xray: $n functions)"

# The process tree.
# shellcheck disable=SC2086
"$clang" -O1 $xray_flags -fnoxray-link-deps "$src/tests/progs/record_children.c" -o children ||
  { echo "FAIL: cannot build record_children"; exit 1; }
"$fr" record -o tree.fr -- ./children >out.txt 2>err.txt || fail "children: record exit $? ($(cat err.txt))"
read -r _ _ parent _ exec_child _ fork_child <out.txt
leaf_calls() { "$fr" account -f csv "$1" | awk -F, '$2=="leaf"{print $3}'; }
[ "$(leaf_calls tree.fr)" = 100 ] || fail "tree.fr: $(leaf_calls tree.fr) leaf calls, want 100 (the recorded process's)"
[ "$(leaf_calls "tree.fr.$exec_child")" = 300 ] || fail "tree.fr.$exec_child (exec'd child): '$(leaf_calls "tree.fr.$exec_child")' leaf calls, want 300"
[ "$(leaf_calls "tree.fr.$fork_child")" = 200 ] || fail "tree.fr.$fork_child (forked child): '$(leaf_calls "tree.fr.$fork_child")' leaf calls, want 200"
[ -e "tree.fr.$parent" ] && fail "tree.fr.$parent left next to tree.fr"
[ "$(ls tree.fr* | wc -l)" = 3 ] || fail "files: $(ls tree.fr* | tr '\n' ' '), want 3"
grep -q "2 other processes wrote their own traces" err.txt || fail "record does not list the children's traces: $(cat err.txt)"
# ... and gives the command that puts the three on one timeline, which works as given.
hint=$(sed -n 's/^flightrec record: all on one timeline: flightrec //p' err.txt)
[ -n "$hint" ] || fail "record does not say how to merge the traces: $(cat err.txt)"
# shellcheck disable=SC2086
eval "\"\$fr\" $hint" 2>conv.txt || fail "the merge command failed: $hint: $(cat conv.txt)"
[ -s "$(pwd)/tree.fr.pftrace" ] || [ -s tree.fr.pftrace ] || fail "the merge command wrote no tree.fr.pftrace"
[ "$status" = 0 ] && echo "ok: process tree: tree.fr 100 calls, exec'd child 300, forked child 200, one file each"
exit $status
