#!/usr/bin/env bash
# Builds flightrec and runs every test: the normal build, then ASan+UBSan, then the
# concurrency tests under TSan, then the reader fuzzer for a bounded time, then the
# aarch64 cross build's suite under qemu-aarch64 (scripts/test-aarch64.sh).
# Usage: scripts/test.sh [--quick]   (--quick: normal build only)
# Its build directories are its own (build-test, build-test-asan, build-test-tsan,
# build-test-aarch64),
# configured with clang whatever CC says: a build/ configured by hand (with gcc, say,
# which leaves out the XRay tests) is never reused. FLIGHTREC_TEST_CC/CXX override.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
# The kernel tests (ctest -L kernel, docs/KERNEL_TESTS.md) boot the kernel image beside the
# tree when there is one; without it they build one from Debian's linux-source, once.
if [ -z "${FLIGHTREC_TEST_KERNEL:-}" ] && [ -f ../shared/kernel/bzImage ]; then
  FLIGHTREC_TEST_KERNEL=$(cd ../shared/kernel && pwd)/bzImage
  export FLIGHTREC_TEST_KERNEL
fi
export CC=${FLIGHTREC_TEST_CC:-clang} CXX=${FLIGHTREC_TEST_CXX:-clang++}
jobs=$(nproc)

run() { # build-dir ctest-args... ; extra cmake args come from $CMAKE_EXTRA
  local dir=$1; shift
  echo "=== $dir"
  cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER="$CC" \
        -DCMAKE_CXX_COMPILER="$CXX" ${CMAKE_EXTRA:-} >/dev/null
  cmake --build "$dir" -j "$jobs"
  (cd "$dir" && ctest --output-on-failure -j "$jobs" "$@")
}

run build-test
[ "${1:-}" = "--quick" ] && exit 0
CMAKE_EXTRA="-DFLIGHTREC_SANITIZE=address,undefined -DFLIGHTREC_BENCH=OFF -DFLIGHTREC_FUZZ=ON" \
  run build-test-asan -LE no_asan
CMAKE_EXTRA="-DFLIGHTREC_SANITIZE=thread -DFLIGHTREC_BENCH=OFF" \
  run build-test-tsan -L concurrency
# The aarch64 port: cross-built, its suite under qemu-aarch64 (docs/AARCH64.md); the
# native command reads its traces.
scripts/test-aarch64.sh build-test/flightrec
echo "all tests passed"
