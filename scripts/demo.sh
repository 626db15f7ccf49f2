#!/usr/bin/env bash
# Builds everything, records the demo program (examples/demo: an interpreter, a compressor
# and a sort-and-hash workload on four threads), prints its account table and writes a
# Chrome/Perfetto trace JSON and an SVG flame graph into out/.
# Usage: scripts/demo.sh [SCALE]   (SCALE multiplies the demo's work, default 1)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export CC=${CC:-clang} CXX=${CXX:-clang++}
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
mkdir -p out
fr=build/flightrec
demo=build/examples/demo/fr_demo

step() { # description, command...: runs one step, stops the demo with a clear message if it fails
  local what=$1; shift
  echo "==> $what"
  if ! "$@"; then
    echo "demo: step failed: $what ($*)" >&2
    exit 1
  fi
}

# 8192 buffers of 4 KiB (32 MiB) hold the whole run (about 1.2 M records, a 9.3 MB trace):
# nothing is overwritten. (512, with the 4 KiB default buffers, kept a fifth of it.)
step "record the demo" $fr record -o out/demo.fr --buffers 8192 -- $demo "${1:-1}"
step "trace summary" $fr info out/demo.fr
step "account table (top 25)" $fr account out/demo.fr --top 25
step "Chrome/Perfetto JSON" $fr convert out/demo.fr --format chrome -o out/demo.json
step "SVG flame graph" $fr convert out/demo.fr --format svg -o out/demo.svg
echo "wrote out/demo.fr, out/demo.json (open in https://ui.perfetto.dev) and out/demo.svg"
