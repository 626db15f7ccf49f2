#!/usr/bin/env bash
# Cross-builds flightrec for aarch64 (cmake/aarch64-linux-gnu.cmake) and runs its test
# suite under qemu-aarch64 user-mode emulation, bounded in time.
# Usage: scripts/test-aarch64.sh [NATIVE_FLIGHTREC]
#   NATIVE_FLIGHTREC: the x86-64 flightrec that reads the aarch64 traces in the acceptance
#   tests (tests/aarch64.cmake); scripts/test.sh passes build-test/flightrec.
# Tests that cannot run under user-mode emulation say Skipped with the reason
# (tests/cross/cross_tests.cmake). Build directory: build-test-aarch64.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --aarch64
host_cli=${1:-}
[ -n "$host_cli" ] && host_cli=$(cd "$(dirname "$host_cli")" && pwd)/$(basename "$host_cli")
dir=build-test-aarch64
echo "=== $dir (aarch64 under qemu-aarch64)"
cmake -S . -B "$dir" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake \
      -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFLIGHTREC_BENCH=OFF \
      -DFLIGHTREC_HOST_CLI="$host_cli" >/dev/null
cmake --build "$dir" -j "$(nproc)"
# Bounded: every test has its own timeout (ctest's default here 300 s), the whole run 20 min.
(cd "$dir" && timeout -s KILL 1200 ctest --output-on-failure -j "$(nproc)" --timeout 300)
