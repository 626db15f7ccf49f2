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
  # No LD_LIBRARY_PATH: the pkg-config line carries -rpath, CMake adds the build RPATH.
  env -u LD_LIBRARY_PATH "$exe" "$out"
  "$llvm_xray" fdr-dump -verify "$out" >/dev/null
  echo "ok: $(basename "$exe") wrote a trace llvm-xray verifies"
done

# The installed `flightrec record` points its program at <prefix>/lib, not the build tree:
# a gcc-instrumented program linked without -rpath reports the LD_LIBRARY_PATH it got.
cat >"$work/ldpath.c" <<'EOF2'
#include <stdio.h>
#include <stdlib.h>
void report(const char *path) { FILE *f = fopen(path, "w"); fprintf(f, "%s\n", getenv("LD_LIBRARY_PATH")); fclose(f); }
int main(int argc, char **argv) { if (argc > 1) report(argv[1]); return 0; }
EOF2
gcc -O1 -finstrument-functions -o "$work/ldpath" "$work/ldpath.c" \
    -I"$prefix/include" -L"$libdir" -lflightrec
env -u LD_LIBRARY_PATH "$prefix/bin/flightrec" record -o "$work/ldpath.fr" -- "$work/ldpath" "$work/ldpath.txt" >/dev/null
got=$(cat "$work/ldpath.txt")
real_libdir=$(cd "$libdir" && pwd -P)
case ":$got:" in *"$(realpath "$build")"*|*":$build:"*) echo "FAIL: installed record points at the build tree: $got"; exit 1;; esac
ok=no
IFS=: read -ra parts <<<"$got"
for d in "${parts[@]}"; do [ "$(cd "$d" 2>/dev/null && pwd -P)" = "$real_libdir" ] && ok=yes; done
[ $ok = yes ] || { echo "FAIL: installed record's LD_LIBRARY_PATH lacks $libdir: $got"; exit 1; }
"$llvm_xray" fdr-dump -verify "$work/ldpath.fr" >/dev/null
echo "ok: installed flightrec record runs a program against $libdir, no LD_LIBRARY_PATH given"

# flightrec_instrument() from the CMake package: every call recorded by the installed
# flightrec record, no LD_LIBRARY_PATH.
env -u LD_LIBRARY_PATH "$prefix/bin/flightrec" record -o "$work/instr.fr" -- "$work/consumer/consumer_instrumented" >/dev/null 2>&1
calls=$("$prefix/bin/flightrec" account -f csv "$work/instr.fr" | awk -F, '$2=="work"{print $3}')
[ "$calls" = 42 ] || { echo "FAIL: consumer_instrumented: $calls calls of work, want 42"; exit 1; }
echo "ok: flightrec_instrument() target traced, 42 calls of work"
# Installed programs carry RUNPATH $ORIGIN/../<libdir> (GNUInstallDirs layout).
readelf -d "$prefix/bin/flightrec" | grep -q 'R.*PATH.*\$ORIGIN/\.\./lib' ||
  { echo "FAIL: installed flightrec has no \$ORIGIN/../lib RUNPATH: $(readelf -d "$prefix/bin/flightrec" | grep PATH)"; exit 1; }
echo "ok: installed flightrec has RUNPATH \$ORIGIN/../lib"
# Man pages and the bash and zsh completions are installed where man, bash-completion and
# zsh look.
if [ -f "$build/man/generated.stamp" ]; then
  for f in share/man/man1/flightrec.1 share/man/man1/flightrec-record.1 share/bash-completion/completions/flightrec \
           share/zsh/site-functions/_flightrec; do
    test -f "$prefix/$f" || { echo "FAIL: $f not installed"; exit 1; }
  done
  MANPATH=$prefix/share/man man -w flightrec-account >/dev/null || { echo "FAIL: man does not find flightrec-account under the prefix"; exit 1; }
  echo "ok: man pages and bash and zsh completions installed"
fi
