#!/usr/bin/env bash
# functrace_gcc.sh - gcc -finstrument-functions programs traced by flightrec.
# usage: functrace_gcc.sh SOURCE_DIR BUILD_DIR WORKDIR LLVM_XRAY
# Builds tests/progs/functrace_record_prog.c with gcc against libflightrec.so and
# libflightrec.a, then runs functrace_record_test.py --gcc on each.
set -euo pipefail
src=$1 build=$2 work=$3 xray=$4
mkdir -p "$work"
prog=$src/tests/progs/functrace_record_prog.c
flags=(-O2 -g -finstrument-functions -Wno-attributes -pthread)
gcc "${flags[@]}" "$prog" -o "$work/gcc_shared" -L"$build" -lflightrec -Wl,-rpath,"$build"
gcc "${flags[@]}" "$prog" -o "$work/gcc_static" "$build/libflightrec.a" \
    -Wl,--undefined=fr_functrace_anchor
for p in gcc_shared gcc_static; do
  python3 "$src/tests/functrace_record_test.py" "$build/flightrec" "$xray" "$work/$p" "$work" --gcc
done
