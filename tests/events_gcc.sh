#!/bin/sh
# The event macros under gcc too (the library may be built by clang): builds the
# encoder test with gcc in strict C11 and in C99, warnings as errors, links it with the
# libraries of this build, and runs it (vectors A/B/C, all field types, spans).
# usage: events_gcc.sh SOURCE_DIR BINARY_DIR RUNTIME_LIB READER_LIB WORKDIR
set -eu
src=$1 bin=$2 runtime=$3 reader=$4 work=$5
command -v gcc >/dev/null 2>&1 || { echo "gcc not installed: skipped"; exit 77; }
mkdir -p "$work"
# gcc's sanitizer runtimes do not mix with clang's: sanitizer builds skip this test.
if [ -n "$(grep -s '^FLIGHTREC_SANITIZE:' "$bin/CMakeCache.txt" | cut -d= -f2)" ]; then
  echo "sanitizer build: skipped"; exit 77
fi
for std in c11 c99; do
  gcc -std=$std -O2 -Wall -Wextra -Werror \
      -I"$src/include" -I"$src/src/runtime" -I"$src/src/common" -I"$src/src/reader" -I"$src/tests" \
      "$src/tests/events_encode_test.c" -o "$work/events_encode_gcc_$std" \
      "$runtime" "$reader" -lcmocka -ldw -lelf -lm -lpthread
  "$work/events_encode_gcc_$std" > "$work/out_$std.txt" 2>&1 || { cat "$work/out_$std.txt"; exit 1; }
done
echo ok
