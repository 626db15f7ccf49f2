#!/usr/bin/env bash
# functrace_few_sleds.sh FLIGHTREC PC_FILE WORKDIR - the flags users need (issue 10):
# pkg-config's xray_cflags variable builds a program whose functions all have sleds and
# `flightrec record` says nothing about it; the same program built with clang's default
# threshold (-fxray-instrument alone) gets the warning naming the flag; a full build
# that links compiler-rt's XRay runtime (no -fnoxray-link-deps: ~240 functions of its
# own, in namespaces __xray and __sanitizer) gets no warning either, nor does a full
# static build (libc's functions in it are not the program's).
set -euo pipefail
fr=$1 pc=$2 work=$3
mkdir -p "$work"
src=$(dirname "$0")/progs/functrace_few_sleds.c
command -v pkg-config >/dev/null || { echo "SKIP: no pkg-config"; exit 77; }
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --variable=xray_cflags flightrec)
case "$flags" in *-fxray-instruction-threshold=1*) ;; *) echo "FAIL: xray_cflags is '$flags'"; exit 1;; esac
# shellcheck disable=SC2086
clang -O1 $flags "$src" -o "$work/all"
clang -O1 -fxray-instrument -fnoxray-link-deps "$src" -o "$work/few"
clang -O1 -fxray-instrument -fxray-instruction-threshold=1 "$src" -o "$work/all_rt"
"$fr" record -o "$work/all.fr" -- "$work/all" 2>"$work/all.err" >/dev/null
"$fr" record -o "$work/few.fr" -- "$work/few" 2>"$work/few.err" >/dev/null
"$fr" record -o "$work/all_rt.fr" -- "$work/all_rt" 2>"$work/all_rt.err" >/dev/null
if grep -q "warning" "$work/all.err"; then echo "FAIL: warned about a full build:"; cat "$work/all.err"; exit 1; fi
if grep -q "warning" "$work/all_rt.err"; then
  echo "FAIL: warned about a full build linked with compiler-rt's runtime:"; cat "$work/all_rt.err"; exit 1
fi
grep -q "warning: .*has sleds in only 1 function for 9 global functions.*-fxray-instruction-threshold=1" \
  "$work/few.err" || { echo "FAIL: no warning for the default threshold:"; cat "$work/few.err"; exit 1; }
# Statically linked (with libflightrec.a): libc's global functions are in the binary too
# and must not count as the program's (a full build was warned about: 9 sleds for 47
# global functions); a default-threshold static build is still warned about.
lib=$(dirname "$pc")/libflightrec.a
if [ -f "$lib" ] && [ -f "$(clang -print-file-name=libc.a)" ]; then
  # shellcheck disable=SC2086
  clang -O1 $flags -static "$src" -o "$work/all_static" "$lib" -pthread \
    -Wl,--undefined=fr_functrace_anchor -Wl,--undefined=fr_xray_anchor
  clang -O1 -fxray-instrument -fnoxray-link-deps -static "$src" -o "$work/few_static" "$lib" -pthread \
    -Wl,--undefined=fr_functrace_anchor -Wl,--undefined=fr_xray_anchor
  "$fr" record -o "$work/all_static.fr" -- "$work/all_static" 2>"$work/all_static.err" >/dev/null
  "$fr" record -o "$work/few_static.fr" -- "$work/few_static" 2>"$work/few_static.err" >/dev/null
  if grep -q "warning" "$work/all_static.err"; then
    echo "FAIL: warned about a full static build:"; cat "$work/all_static.err"; exit 1
  fi
  grep -qE "warning: .*has sleds in only 1 function for [0-9]+ global functions.*-fxray-instruction-threshold=1" \
    "$work/few_static.err" || { echo "FAIL: no warning for a static default-threshold build:"; cat "$work/few_static.err"; exit 1; }
else
  echo "note: no libflightrec.a or libc.a: the static builds are not checked"
fi
calls=$("$fr" account "$work/all.fr" | awk '$NF == "f3" { print $1 }')
[ "$calls" = 3 ] || { echo "FAIL: f3 called '$calls' times in the full build's trace, want 3"; exit 1; }
echo PASS
