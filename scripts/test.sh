#!/usr/bin/env bash
# Builds flightrec and runs every test: the normal build, then ASan+UBSan, then the
# concurrency tests under TSan, then the reader fuzzer for a bounded time.
# Usage: scripts/test.sh [--quick]   (--quick: normal build only)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export CC=${CC:-clang} CXX=${CXX:-clang++}
jobs=$(nproc)

run() { # build-dir ctest-args... ; extra cmake args come from $CMAKE_EXTRA
  local dir=$1; shift
  echo "=== $dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${CMAKE_EXTRA:-} >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "$@")
}

run build
[ "${1:-}" = "--quick" ] && exit 0
CMAKE_EXTRA="-DFLIGHTREC_SANITIZE=address,undefined -DFLIGHTREC_BENCH=OFF -DFLIGHTREC_FUZZ=ON" \
  run build-asan -LE no_asan
CMAKE_EXTRA="-DFLIGHTREC_SANITIZE=thread -DFLIGHTREC_BENCH=OFF" \
  run build-tsan -L concurrency
echo "all tests passed"
