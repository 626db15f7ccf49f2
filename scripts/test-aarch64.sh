#!/usr/bin/env bash
# Cross-builds flightrec for aarch64 (cmake/aarch64-linux-gnu.cmake) and runs its whole
# test suite under qemu-aarch64 user-mode emulation, bounded in time: every test that can
# run under user-mode emulation runs, the others say Skipped with their reason
# (tests/cross/cross_tests.cmake, docs/AARCH64.md).
# Usage: scripts/test-aarch64.sh [NATIVE_FLIGHTREC] [CTEST_ARG...]
#   NATIVE_FLIGHTREC: the x86-64 flightrec that reads the aarch64 traces in the acceptance
#   tests (tests/aarch64.cmake); scripts/test.sh passes build-test/flightrec.
#   CTEST_ARG: passed on to ctest, e.g. -R crash_ to run some tests only.
# ctest runs inside scripts/aarch64-binfmt.sh when this kernel allows it, so that scripts
# and `flightrec record` can execve aarch64 programs; else the scripts say Skipped with
# the reason. Build directory: build-test-aarch64.
# Bounded: each test has its own timeout (ctest's default here 300 s), the whole ctest
# run 30 minutes (it takes about 6 on an idle 2-core machine).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --aarch64
host_cli=${1:-}
[ $# -gt 0 ] && shift
[ -n "$host_cli" ] && host_cli=$(cd "$(dirname "$host_cli")" && pwd)/$(basename "$host_cli")
exec_ok=OFF
wrap=()
if scripts/aarch64-binfmt.sh true; then
  exec_ok=ON
  wrap=(scripts/aarch64-binfmt.sh)
else
  echo "note: aarch64 programs cannot be execve'd here (scripts/aarch64-binfmt.sh): test scripts say Skipped"
fi
dir=build-test-aarch64
echo "=== $dir (aarch64 under qemu-aarch64; scripts: $exec_ok)"
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLIGHTREC_BENCH=OFF \
      -DFLIGHTREC_HOST_CLI="$host_cli" -DFLIGHTREC_CROSS_EXEC=$exec_ok >/dev/null
cmake --build "$dir" -j "$(nproc)"
"${wrap[@]}" bash -c 'cd "$1" && shift && exec timeout -s KILL 1800 ctest --output-on-failure -j "$(nproc)" --timeout 300 "$@"' \
  _ "$dir" "$@"
