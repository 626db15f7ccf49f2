#!/bin/sh
# update.sh - rewrites the golden outputs on purpose: builds flightrec and the trace
# generator in BUILD_DIR (default: build), runs every case of tests/golden/cases (or the
# NAMEs given) and stores each output as tests/golden/NAME.out, printing a unified diff of
# every file that changed and a count of changed, new and unchanged files. Review the
# diff (git diff tests/golden) before committing it.
#
# usage: tests/golden/update.sh [-B BUILD_DIR] [NAME...]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$root/build
if [ "${1:-}" = -B ]; then
    [ $# -ge 2 ] || { echo "usage: $0 [-B BUILD_DIR] [NAME...]" >&2; exit 2; }
    build=$(cd "$2" && pwd)
    shift 2
fi
cmake --build "$build" --target flightrec_cli golden_traces >/dev/null
exec sh "$here/golden.sh" update "$build/flightrec" "$build/tests/golden_traces" \
    "$build/tests/golden-update" "$@"
