#!/bin/sh
# hostile_startup.sh PROG DIR - a start=1 init that fails says so on stderr (issue 15 item 7):
# under `ulimit -v` a 1 GiB pool cannot be mapped; before, the program ran with no message.
P=$1; D=$2
rm -rf "$D"; mkdir -p "$D" && cd "$D" || exit 1
FLIGHTREC_OPTIONS="start=1 output=$D/ok.fr" "$P" > /dev/null 2>err0.txt || { echo "FAIL: run"; exit 1; }
[ -s ok.fr ] || { echo "FAIL: start=1 wrote no trace"; exit 1; }
( ulimit -v 300000; FLIGHTREC_OPTIONS="start=1 buffer_size=512M buffers=2 output=$D/big.fr" \
  "$P" > /dev/null 2>err.txt ); rc=$?
[ $rc -eq 0 ] || { echo "FAIL: exit $rc"; cat err.txt; exit 1; }
[ -e big.fr ] && { echo "SKIP? the pool fit under ulimit -v"; exit 77; }
grep -q "flightrec: start=1: not recording" err.txt || { echo "FAIL: silent start-up failure"; cat err.txt; exit 1; }
echo ok
