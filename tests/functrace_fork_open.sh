#!/usr/bin/env bash
# functrace_fork_open.sh - a forked child's trace begins with the calls open at the fork.
# main() calls f(), which forks; the child calls g() and returns from f() and main(). In
# the child's trace, f and main (and with --libcalls fork itself) are entered when it
# starts, so `account` finds every exit matched and `replay` shows g() under f() under
# main(); the parent's counts are unchanged (each call once). gcc -finstrument-functions
# and clang XRay builds. Before, the child's trace had those exits alone ("exit without
# an enter") and g() at the top level.
# usage: functrace_fork_open.sh FLIGHTREC SOURCE_DIR WORKDIR CLANG [GCC]
#   CLANG, GCC: the compilers of FLIGHTREC's CPU, each a command with its options (a
#   cross build passes clang --target=... and the cross gcc); GCC defaults to gcc.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 src=$2 work=$3
read -ra clang <<<"$4"
read -ra gcc <<<"${5:-gcc}"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
prog=$src/tests/progs/functrace_fork_open.c
"${gcc[@]}" -O1 -finstrument-functions "$prog" -o gcc_prog &&
"${clang[@]}" -O1 -fxray-instrument -fxray-instruction-threshold=1 "$prog" -o clang_prog || exit 1

# calls NAME TRACE: the calls account gives NAME (0 if absent).
calls() { "$fr" account "$2" 2>/dev/null | awk -v f="$1" '$NF == f { n = $1 } END { print n + 0 }'; }

libcalls_runs=("" --libcalls)
for b in gcc_prog clang_prog; do
  for libcalls in "${libcalls_runs[@]}"; do
    run="$b${libcalls:+ $libcalls}"
    rm -f t.fr*
    if ! "$fr" record -o t.fr $libcalls -- "./$b" >out.txt 2>err.txt; then
      fail "$run: record failed: $(head -c 300 err.txt)"; continue
    fi
    child=$(ls t.fr.[0-9]* 2>/dev/null | head -1)
    [ -n "$child" ] || { fail "$run: no child trace"; continue; }
    want_parent="main 1|f 1|g 0" want_child="main 1|f 1|g 1"
    if [ -n "$libcalls" ]; then
      want_parent+="|fork 1|waitpid 1" want_child+="|fork 1|waitpid 0"
    fi
    IFS='|' read -ra wp <<<"$want_parent"
    for want in "${wp[@]}"; do
      n=$(calls "${want% *}" t.fr)
      [ "$n" = "${want##* }" ] || fail "$run: parent: ${want% *} called $n times, want ${want##* }"
    done
    IFS='|' read -ra wc <<<"$want_child"
    for want in "${wc[@]}"; do
      n=$(calls "${want% *}" "$child")
      [ "$n" = "${want##* }" ] || fail "$run: child: ${want% *} called $n times, want ${want##* }"
    done
    for t in t.fr "$child"; do
      "$fr" account "$t" >/dev/null 2>acc.err
      grep -qi 'unmatched\|without an enter\|open at the end' acc.err && fail "$run: account $t: $(cat acc.err)"
    done
    # the child's calls nest under the frames they run in: g() under f() under main()
    "$fr" replay "$child" >replay.txt 2>replay.err || fail "$run: replay $child failed"
    grep -q '\] | main() {' replay.txt || fail "$run: child replay has no main() at the top: $(head -c 600 replay.txt)"
    grep -q '\] |   f() {' replay.txt || fail "$run: child replay has no f() under main(): $(head -c 600 replay.txt)"
    grep -q '\] |     g();' replay.txt || fail "$run: child replay has no g() under f(): $(head -c 600 replay.txt)"
    if [ -n "$libcalls" ]; then
      grep -q '\] |     fork();' replay.txt || fail "$run: child replay has no fork() under f(): $(head -c 600 replay.txt)"
    fi
    [ -s replay.err ] && fail "$run: replay $child: $(head -c 300 replay.err)"
  done
done
finish "functrace_fork_open: the child's trace enters main, f (and fork) at its start; gcc and clang"
