#!/usr/bin/env bash
# functrace_static_longjmp.sh - longjmp in a program linked statically with
# libflightrec.a: the runtime's longjmp hooks forward to libc's, which dlsym(RTLD_NEXT)
# does not find in a static program; every longjmp aborted the program (traced or not).
# Now the program runs as without flightrec, and the frames the jumps left are closed
# where the jumps landed (replay: after() right under main, nothing left open), for a gcc
# -finstrument-functions build and a clang XRay build, with and without --libcalls.
# usage: functrace_static_longjmp.sh FLIGHTREC SOURCE_DIR WORKDIR CLANG
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 src=$2 work=$3 clang=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
lib=$(dirname "$fr")/libflightrec.a
if [ ! -f "$(gcc -print-file-name=libc.a)" ] || [ "$(gcc -print-file-name=libc.a)" = libc.a ]; then
  echo "SKIP: no static libc (libc.a)"; exit 77
fi
prog=$src/tests/progs/static_longjmp.c
anchors="-Wl,--undefined=fr_functrace_anchor -Wl,--undefined=fr_xray_anchor"
# shellcheck disable=SC2086
gcc -static -O1 -finstrument-functions "$prog" -o gcc_static "$lib" -pthread $anchors &&
  "$clang" -static -O1 -fxray-instrument -fxray-instruction-threshold=1 -fnoxray-link-deps \
    "$prog" -o clang_static "$lib" -pthread $anchors || exit 1

check() {
  local what=$1 want n
  for want in "deep 4" "sig_deep 3" "after 1" "main 1"; do
    n=$("$fr" account t.fr 2>/dev/null | awk -v f="${want% *}" '$NF == f { n = $1 } END { print n + 0 }')
    [ "$n" = "${want#* }" ] || fail "$what: ${want% *} called $n times, want ${want#* }"
  done
  # the jumps closed deep and sig_deep: after() is a child of main, not of sig_deep
  "$fr" replay t.fr >replay.txt 2>replay.err
  grep -q '\] |   after();' replay.txt ||
    fail "$what: after() not right under main: $(grep -m1 after replay.txt)"
  "$fr" account t.fr >/dev/null 2>acc.err
  grep -q 'unmatched: [1-9]\|[1-9][0-9]* calls\? open at the end' acc.err &&
    fail "$what: $(cat acc.err)"
}
for b in gcc_static clang_static; do
  record_both "$fr" "$b" "jumped 7 3 8" check
done
finish "PASS"
