#!/usr/bin/env bash
# xraycompat_link_by_hand.sh - libflightrec.a linked the way compiler-rt's runtime is
# replaced by hand: `cc -fxray-instrument -fnoxray-link-deps prog.c libflightrec.a
# -lpthread -ldl -lrt -lm`, without the --undefined anchors that pkg-config and CMake
# add. A program that relies on XRAY_OPTIONS=xray_mode=xray-fdr to select the mode must
# get it initialised (the start-up code comes with any __xray_* function), its calls in
# the log; and when the mode is not selected, the refusal is said on stderr (compiler-rt
# answers XRAY_LOG_UNINITIALIZED in silence).
# The log is compiler-rt's layout (llvm-xray shows the program's records only), and
# `flightrec` reads flightrec's metadata from its hidden block: names, counts, process.
# usage: xraycompat_link_by_hand.sh CC SOURCE LIBFLIGHTREC_A INCLUDE_DIR LLVM_XRAY FLIGHTREC WORKDIR [SANITIZE]
# (SANITIZE: the sanitizers the library was built with, linked too)
set -uo pipefail
cc=$1 src=$2 lib=$3 inc=$4 llvm_xray=$5 fr=$6 work=$7 san=${8:+-fsanitize=$8}
. "$(dirname "$0")/frtest.sh"
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
"$cc" -fxray-instrument -fnoxray-link-deps -O1 $san -I"$inc" "$src" "$lib" -lpthread -ldl -lrt -lm \
  -o prog 2>cc.txt || { echo "FAIL: link by hand: $(cat cc.txt)"; exit 1; }
# 1. selected by XRAY_OPTIONS: initialised, flushed, the calls in compiler-rt's log
expect_rc 0 "xray_mode=xray-fdr" env -u FLIGHTREC_OPTIONS \
  XRAY_OPTIONS="xray_mode=xray-fdr xray_logfile_base=$work/" ./prog
[ "$(cat out.txt)" = "$(printf 'init 2\npatch 1\nfinalize 4\nflush 2')" ] ||
  fail "statuses: $(tr '\n' ' ' <out.txt) ($(head -c 300 err.txt))"
log=$(ls "$work"/prog.* 2>/dev/null)
if [ "$(echo "$log" | wc -w)" != 1 ]; then
  fail "one log file expected, found: $log"
else
  "$llvm_xray" convert --symbolize --instr_map=./prog --output-format=yaml "$log" >log.yaml 2>&1 ||
    fail "llvm-xray convert: $(head -c 300 log.yaml)"
  n=$(grep -c "function: leaf, .*kind: function-enter" log.yaml)
  [ "$n" = 5 ] || fail "the log holds $n entries of leaf, the program made 5"
  n=$(grep -c "^  - {" log.yaml)
  [ "$n" = 12 ] || fail "llvm-xray shows $n records, the program made 12 (6 calls)"
  # flightrec's metadata, from the hidden block: names without the binary, the totals
  "$fr" info "$log" >info.txt 2>&1 || fail "flightrec info: $(head -c 300 info.txt)"
  grep -q "^records written: 12$" info.txt || fail "flightrec info: $(tr '\n' ' ' <info.txt)"
  "$fr" account "$log" -f csv >account.txt 2>&1 || fail "flightrec account: $(head -c 300 account.txt)"
  grep -q "^1,leaf,5," account.txt || fail "flightrec account (names from the log): $(tr '\n' ' ' <account.txt)"
fi
# 2. not selected: refused, and said so on stderr
expect_rc 1 "no xray_mode" env -u FLIGHTREC_OPTIONS -u XRAY_OPTIONS ./prog
[ "$(cat out.txt)" = "init 0" ] || fail "unselected init: $(cat out.txt)"
grep -q 'flightrec: __xray_log_init_mode("xray-fdr"): .*not the selected mode' err.txt ||
  fail "the refused init is not explained on stderr: '$(cat err.txt)'"
finish "PASS: xraycompat_link_by_hand"
