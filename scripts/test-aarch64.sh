#!/usr/bin/env bash
# Cross-builds flightrec for aarch64 (cmake/aarch64-linux-gnu.cmake) and runs its test
# suite under qemu-aarch64 user-mode emulation, bounded in time.
# Usage: scripts/test-aarch64.sh [--all] [NATIVE_FLIGHTREC]
#   NATIVE_FLIGHTREC: the x86-64 flightrec that reads the aarch64 traces in the acceptance
#   tests (tests/aarch64.cmake); scripts/test.sh passes build-test/flightrec.
#   --all: every test script that can run under qemu, not only the CI stage's set
#   (tests/cross/cross_tests.cmake); takes far longer (past 20 minutes here).
# ctest runs inside scripts/aarch64-binfmt.sh when this kernel allows it, so that scripts
# and `flightrec record` can execve aarch64 programs; else the scripts say Skipped with
# the reason. Tests that cannot run under user-mode emulation say Skipped with theirs.
# Build directory: build-test-aarch64.
set -euo pipefail
cd "$(dirname "$0")/.."
all=OFF
if [ "${1:-}" = "--all" ]; then all=ON; shift; fi
scripts/deps.sh --aarch64
host_cli=${1:-}
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
echo "=== $dir (aarch64 under qemu-aarch64; scripts: $exec_ok, all: $all)"
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLIGHTREC_BENCH=OFF \
      -DFLIGHTREC_HOST_CLI="$host_cli" -DFLIGHTREC_CROSS_EXEC=$exec_ok \
      -DFLIGHTREC_CROSS_ALL=$all >/dev/null
cmake --build "$dir" -j "$(nproc)"
# Bounded: every test has its own timeout (ctest's default here 300 s); the CI stage's
# whole run 20 min, --all's 2 hours.
bound=1200; [ $all = ON ] && bound=7200
"${wrap[@]}" bash -c 'cd "$1" && exec timeout -s KILL "$2" ctest --output-on-failure -j "$(nproc)" --timeout 300' \
  _ "$dir" "$bound"
