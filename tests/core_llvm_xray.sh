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

# Record types as llvm-xray's yaml shows them: a function record's "type" is the type of
# the last typed event of its thread, 0 before any (llvm-xray 14's expander keeps it, so
# compiler-rt's files read that way). The program's own typed events (type 7) set it; our
# records (FR_TE_*: the metadata, every block's BLOCK_START) must not, so llvm-xray must
# not see them as typed events of types 0xF000..0xF0FF (files written before the
# envelope of docs/FORMAT.md had them so: "type: 61449" on every function record).
# Prints "FUNCTION_RECORDS WRONG_TYPE".
check_types() {
  "$xray" convert --output-format=yaml "$1" | awk '
    /kind: / {
      match($0, /type: [0-9]+/); type = substr($0, RSTART + 6, RLENGTH - 6)
      match($0, /thread: [0-9]+/); thread = substr($0, RSTART + 8, RLENGTH - 8)
      if ($0 ~ /kind: typed-event/) {
        if (type < 61440 || type > 61695) last[thread] = type   # FR_TE_FIRST..FR_TE_LAST
        next
      }
      if ($0 ~ /kind: function-/) {
        n++
        want = (thread in last) ? last[thread] : 0
        if (type != want) bad++
      }
    }
    END { print n + 0, bad + 0 }'
}

# discard with room: every call of 3 threads x 2000 is there, and account agrees
"$writer" "$dir/discard.fr" 2 2000 "policy=discard buffers=32 buffer_size=64k"
"$xray" fdr-dump -verify discard.fr > dump.txt || fail "fdr-dump -verify discard.fr"
[ "$(grep -c 'Function Enter: #1 ' dump.txt)" = 6000 ] || fail "enter #1 count"
"$xray" account -m map.yaml -format csv discard.fr > account.csv || fail "account discard.fr"
for id in 1 2 3; do
  count=$(awk -F, -v id=$id '$1 == id { print $2 }' account.csv)
  [ "$count" = 6000 ] || fail "account: function $id called $count times, expected 6000"
done
read -r records wrong <<<"$(check_types discard.fr)"
[ "$records" = 36000 ] || fail "yaml of discard.fr: $records function records, expected 36000 (6 a call)"
[ "$wrong" = 0 ] || fail "yaml of discard.fr: $wrong function records carry a type that is not their thread's last typed event's (our own records must not set it)"

# several buffers per thread, overwrite: still one valid file, holding each thread's
# newest calls in order: the arguments of f3 (the loop index) are consecutive and end at
# the last call, 4999; the oldest were overwritten. (Threads that exited early may have
# lost all of theirs to the threads still running: their buffers are reclaimed.)
"$writer" "$dir/overwrite.fr" 2 5000 "policy=overwrite buffers=6 buffer_size=4k"
"$xray" fdr-dump -verify overwrite.fr > /dev/null || fail "fdr-dump -verify overwrite.fr"
"$xray" account -k -m map.yaml overwrite.fr > /dev/null 2>&1 || fail "account overwrite.fr"
"$xray" convert --output-format=yaml overwrite.fr | awk '
  /kind: function-enter-arg/ {
    match($0, /args: \[ [0-9]+/); arg = substr($0, RSTART + 8, RLENGTH - 8) + 0
    match($0, /thread: [0-9]+/); thread = substr($0, RSTART + 8, RLENGTH - 8)
    if ((thread in last) && arg != last[thread] + 1) gaps++
    if (!(thread in first)) first[thread] = arg
    last[thread] = arg
  }
  END {
    for (t in last) {
      threads++
      if (last[t] != 4999) { print "thread " t " ends at call " last[t] ", not 4999"; exit 1 }
      if (first[t] == 0) { print "thread " t " kept every call: nothing was overwritten"; exit 1 }
    }
    if (!threads) { print "no calls kept"; exit 1 }
    if (gaps) { print gaps " gaps inside the kept calls"; exit 1 }
  }' > overwrite.txt || fail "overwrite.fr: $(cat overwrite.txt)"
read -r records wrong <<<"$(check_types overwrite.fr)"
[ "$records" -gt 0 ] && [ "$wrong" = 0 ] || fail "yaml of overwrite.fr: $wrong of $records function records wrongly typed"

# the monotonic clock fallback, with threshold rewinds: ticks are nanoseconds (the
# header says 1 GHz and the last record's time since init is within the run's wall time),
# and the empty f2 calls (well under 1 us) are rewound while f1 and f3, which hold events,
# all stay.
t0=$(date +%s%N)
"$writer" "$dir/mono.fr" 1 1000 "clock=monotonic policy=discard threshold_us=1"
elapsed_ns=$(( $(date +%s%N) - t0 ))
"$xray" fdr-dump -verify mono.fr > /dev/null || fail "fdr-dump -verify mono.fr"
"$xray" account -m map.yaml -format csv mono.fr > mono.csv || fail "account mono.fr"
freq=$(od -An -t u8 -j 8 -N 8 mono.fr | tr -d ' ')
[ "$freq" = 1000000000 ] || fail "mono.fr: header cycle frequency $freq, expected 1000000000"
last_tsc=$("$xray" convert --output-format=yaml mono.fr | sed -n 's/.*kind: function-exit, tsc: \([0-9]*\).*/\1/p' | sort -n | tail -1)
[ -n "$last_tsc" ] && [ "$last_tsc" -gt 0 ] && [ "$last_tsc" -lt "$elapsed_ns" ] ||
  fail "mono.fr: last exit at tick ${last_tsc:-none}, the run took ${elapsed_ns} ns"
for id in 1 3; do
  count=$(awk -F, -v id=$id '$1 == id { print $2 }' mono.csv)
  [ "$count" = 2000 ] || fail "mono.fr: function $id called ${count:-0} times, expected 2000"
done
f2=$(awk -F, '$1 == 2 { print $2 }' mono.csv)
[ "${f2:-0}" -lt 200 ] || fail "mono.fr: $f2 of 2000 sub-microsecond f2 calls kept: threshold_us=1 rewinds them"

# the chrome trace_event conversion works too (it needs a small base TSC)
"$xray" convert -m map.yaml -f trace_event -o trace.json discard.fr || fail "convert"
echo "ok"
