#!/usr/bin/env bash
# Builds everything, records the demo program, prints its account table and writes a
# Chrome/Perfetto trace JSON and an SVG flame graph into out/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export CC=${CC:-clang} CXX=${CXX:-clang++}
cmake -S . -B build -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build build -j "$(nproc)"
mkdir -p out
fr=build/flightrec
$fr record -o out/demo.fr -- build/examples/demo/fr_demo
$fr info out/demo.fr
$fr account out/demo.fr --top 25
$fr convert out/demo.fr --format chrome -o out/demo.json
$fr convert out/demo.fr --format svg -o out/demo.svg
echo "wrote out/demo.fr, out/demo.json (open in https://ui.perfetto.dev) and out/demo.svg"
