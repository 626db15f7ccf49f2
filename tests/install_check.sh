#!/usr/bin/env bash
# Installs the build tree into a scratch prefix, then builds programs against it the
# three ways users do (CMake package, static target, pkg-config) and checks that each
# writes a trace llvm-xray accepts.
set -euo pipefail
build=$1 src=$2 llvm_xray=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
test -f "$prefix/include/flightrec.h"
test -f "$prefix/lib/pkgconfig/flightrec.pc" || test -f "$prefix"/lib/*/pkgconfig/flightrec.pc

cmake -S "$src/tests/install_consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
pcdir=$(dirname "$(find "$prefix" -name flightrec.pc | head -1)")
cc=${CC:-cc}
# shellcheck disable=SC2046
$cc -o "$work/consumer_pc" "$src/tests/install_consumer/consumer.c" \
    $(PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs flightrec)
libdir=$(dirname "$(find "$prefix" -name 'libflightrec.so' | head -1)")

for exe in "$work/consumer/consumer_cmake" "$work/consumer/consumer_cmake_static" "$work/consumer_pc"; do
  out=$work/$(basename "$exe").fr
  LD_LIBRARY_PATH=$libdir "$exe" "$out"
  "$llvm_xray" fdr-dump -verify "$out" >/dev/null
  echo "ok: $(basename "$exe") wrote a trace llvm-xray verifies"
done
