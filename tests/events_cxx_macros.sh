#!/usr/bin/env bash
# events_cxx_macros.sh SOURCE_DIR FLIGHTREC LIBFLIGHTREC_SO WORKDIR - the event macros
# in C and C++ (issues 10 and 24): tests/progs/events_cxx_macros.c, which uses every macro of
# flightrec/events.h, built as C (gcc and clang, -std=c99, c11, c17) and as C++ (g++ and
# clang++, -std=c++11, c++17, c++20), -Wall -Wextra -Wpedantic -Werror, run; every
# build must record the same events (dump's decoded events, activity ids masked: they
# hold the process id) and all 14 of them (8 events; 6 span starts and stops: two
# spans and one FR_SPAN_SCOPE).
set -euo pipefail
src=$1 fr=$2 lib=$3 work=$4
mkdir -p "$work"
prog=$src/tests/progs/events_cxx_macros.c
libdir=$(dirname "$lib")
ref=""
n=0
for cc in "gcc -x c -std=c99" "gcc -x c -std=c11" "gcc -x c -std=c17" \
          "clang -x c -std=c99" "clang -x c -std=c11" "clang -x c -std=c17" \
          "g++ -x c++ -std=c++11" "g++ -x c++ -std=c++17" "g++ -x c++ -std=c++20" \
          "clang++ -x c++ -std=c++11" "clang++ -x c++ -std=c++17" "clang++ -x c++ -std=c++20"; do
  tool=${cc%% *}
  command -v "$tool" >/dev/null || { echo "SKIP: no $tool"; exit 77; }
  name=$(echo "$cc" | tr ' +=' '_px')
  # shellcheck disable=SC2086
  $cc -O2 -Wall -Wextra -Wpedantic -Werror -I"$src/include" "$prog" -o "$work/$name" \
      -x none -L"$libdir" -lflightrec -Wl,-rpath,"$libdir"
  rm -f "$work/$name.fr"
  env -u FLIGHTREC_OPTIONS "$work/$name" "$work/$name.fr"
  "$fr" dump "$work/$name.fr" | grep -o 'tracepoint=.*' |
    sed -E 's/"(activity|relatedActivity)": "[^"]*"/"\1": "X"/g' >"$work/$name.events"
  count=$(wc -l <"$work/$name.events")
  [ "$count" = 14 ] || { echo "FAIL: $cc: $count events recorded, want 14"; cat "$work/$name.events"; exit 1; }
  if [ -z "$ref" ]; then
    ref=$work/$name.events
  elif ! diff -u "$ref" "$work/$name.events"; then
    echo "FAIL: $cc records other events than gcc -x c -std=c99"; exit 1
  fi
  n=$((n + 1))
done
echo "PASS: $n builds record the same 14 events"
