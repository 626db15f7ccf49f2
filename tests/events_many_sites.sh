#!/usr/bin/env bash
# events_many_sites.sh FLIGHTREC PROGRAM WORKDIR - 80 sites' compact events
# (tests/progs/events_many_sites.c) read back: 240 events, each with its site's own
# number in its name, its u32 and its string (two-byte keys from site 64 on; strings
# longer than the recorder's inline copies), rounds 0-2.
set -euo pipefail
fr=$1 prog=$2 work=$3
mkdir -p "$work"
"$prog" "$work/many.fr"
"$fr" dump "$work/many.fr" >"$work/dump.txt"
good=$(sed -n 's/.*"n": "Many:E\([0-9]*\)", "v": \([0-9]*\), "round": \([0-2]\), "s": "abcdefghijklmnopqrstuvwxyz\([0-9]*\)".*/\1 \2 \4/p' \
  "$work/dump.txt" | awk '$1 == $2 && $1 == $3' | wc -l)
all=$(grep -c '"n": "Many:E' "$work/dump.txt" || true)
[ "$good" = 240 ] && [ "$all" = 240 ] || { echo "FAIL: $good of $all events right, want 240 of 240"; exit 1; }
echo PASS
