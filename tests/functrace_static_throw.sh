#!/usr/bin/env bash
# functrace_static_throw.sh - C++ exceptions in a program linked fully statically with
# libflightrec.a (g++ -static, clang++ -static), with no link flag of its own: the link
# took the runtime's personality routine interposer, which forwards with dlsym(RTLD_NEXT)
# and in a static program found nothing; every throw aborted the program, traced or not.
# Now the C++ runtime's routine is linked (functrace/personality_hook.c): the program
# runs as without flightrec, and the frames the exceptions left are closed (replay:
# after(), called in catcher()'s catch block, is right under catcher; the rethrown
# exception's frames are closed under main; nothing left open), for a gcc
# -finstrument-functions build and a clang XRay build, with and without --libcalls.
# Also: libflightrec.so needs nothing of the C++ runtime (the static archive's reference
# to it is the archive's only).
# usage: functrace_static_throw.sh FLIGHTREC SOURCE_DIR WORKDIR CLANGXX
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 src=$2 work=$3 clangxx=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
lib=$(dirname "$fr")/libflightrec.a
for a in libc.a libstdc++.a; do
  if [ "$(g++ -print-file-name=$a)" = "$a" ]; then echo "SKIP: no static $a"; exit 77; fi
done
und=$(readelf --dyn-syms -W "$(dirname "$fr")/libflightrec.so" |
  awk '$7 == "UND" { print $8 }' | grep -E '^(__cxa_|__gxx_|_Unwind_|_ZSt|_ZN)' |
  grep -v -E '^__cxa_(atexit|finalize)@')
[ -z "$und" ] || fail "libflightrec.so needs symbols of the C++ runtime: $und"

prog=$src/tests/progs/static_throw.cpp
anchors="-Wl,--undefined=fr_functrace_anchor -Wl,--undefined=fr_xray_anchor"
# shellcheck disable=SC2086
g++ -static -O1 -finstrument-functions "$prog" -o gcc_static "$lib" -pthread $anchors &&
  "$clangxx" -static -O1 -fxray-instrument -fxray-instruction-threshold=1 -fnoxray-link-deps \
    "$prog" -o clang_static "$lib" -pthread $anchors || exit 1

check() {
  local what=$1 want n
  "$fr" account t.fr >account.txt 2>acc.err || fail "$what: account: $(cat acc.err)"
  for want in "deep(int) 7" "catcher() 1" "rethrower(int) 1" "after(int) 1" "main 1"; do
    n=$(awk -v f="${want% *}" '$NF == f { n = $1 } END { print n + 0 }' account.txt)
    [ "$n" = "${want#* }" ] || fail "$what: ${want% *} called $n times, want ${want#* }"
  done
  grep -q 'unmatched: [1-9]\|[1-9][0-9]* calls\? open at the end' acc.err &&
    fail "$what: $(cat acc.err)"
  # the throw closed deep's frames: after() is a child of catcher, not of deep; the
  # rethrown exception closed rethrower before main ends
  "$fr" replay t.fr >replay.txt 2>replay.err || fail "$what: replay: $(cat replay.err)"
  grep -q '\] |     after(int);' replay.txt ||
    fail "$what: after() not right under catcher: $(grep -m1 after replay.txt)"
  grep -q '\] |   } /\* rethrower(int) \*/' replay.txt ||
    fail "$what: rethrower not closed under main: $(grep rethrower replay.txt)"
}
for b in gcc_static clang_static; do
  record_both "$fr" "$b" "caught 7 8 3" check
done
finish "PASS"
