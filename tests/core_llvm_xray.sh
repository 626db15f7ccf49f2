#!/usr/bin/env bash
# Traces written by the core, read by the independent reader: llvm-xray 14.
# usage: core_llvm_xray.sh LLVM_XRAY CORE_WRITER WORKDIR
set -euo pipefail
xray=$1 writer=$2 dir=$3
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir"

# ids 1..3 as an instrumentation map (llvm-xray account -m)
{
  echo '---'
  for id in 1 2 3; do
    echo "- { id: $id, address: 0x${id}0, function: 0x${id}0, kind: function-enter, always-instrument: true, function-name: f$id }"
    echo "- { id: $id, address: 0x${id}1, function: 0x${id}0, kind: function-exit, always-instrument: true, function-name: f$id }"
  done
  echo '...'
} > map.yaml

fail() { echo "FAIL: $*" >&2; exit 1; }

# discard with room: every call of 3 threads x 2000 is there, and account agrees
"$writer" "$dir/discard.fr" 2 2000 "policy=discard buffers=32 buffer_size=64k"
"$xray" fdr-dump -verify discard.fr > dump.txt || fail "fdr-dump -verify discard.fr"
[ "$(grep -c 'Function Enter: #1 ' dump.txt)" = 6000 ] || fail "enter #1 count"
"$xray" account -m map.yaml -format csv discard.fr > account.csv || fail "account discard.fr"
for id in 1 2 3; do
  count=$(awk -F, -v id=$id '$1 == id { print $2 }' account.csv)
  [ "$count" = 6000 ] || fail "account: function $id called $count times, expected 6000"
done

# several buffers per thread, overwrite: still one valid file
"$writer" "$dir/overwrite.fr" 2 5000 "policy=overwrite buffers=6 buffer_size=4k"
"$xray" fdr-dump -verify overwrite.fr > /dev/null || fail "fdr-dump -verify overwrite.fr"
"$xray" account -k -m map.yaml overwrite.fr > /dev/null 2>&1 || fail "account overwrite.fr"

# the monotonic clock fallback, and a TSC wrap-free long run with threshold rewinds
"$writer" "$dir/mono.fr" 1 1000 "clock=monotonic policy=discard threshold_us=1"
"$xray" fdr-dump -verify mono.fr > /dev/null || fail "fdr-dump -verify mono.fr"
"$xray" account -m map.yaml mono.fr > /dev/null || fail "account mono.fr"

# the chrome trace_event conversion works too (it needs a small base TSC)
"$xray" convert -m map.yaml -f trace_event -o trace.json discard.fr || fail "convert"
echo "ok"
