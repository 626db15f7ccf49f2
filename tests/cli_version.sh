#!/usr/bin/env bash
# `flightrec --version` prints the project version (from CMake's project(VERSION)) and exits 0.
set -euo pipefail
flightrec=$1 version=$2
out=$("$flightrec" --version)
[ "$out" = "flightrec $version" ] || { echo "FAIL: --version printed '$out', want 'flightrec $version'"; exit 1; }
"$flightrec" --help | grep -q -- '--version' || { echo "FAIL: --help does not mention --version"; exit 1; }
echo "ok: $out"
