#!/usr/bin/env bash
# functrace_stream_names.sh - a streamed trace (stream=1) names its functions in every
# command, as the same run written at exit does. gcc -finstrument-functions functions get
# their ids at their first call, after the streamed file's first metadata block, so their
# names are only in the final metadata block at the file's end (docs/FORMAT.md, "Streamed
# files"); the commands read names from the leading block only, and a streamed gcc trace
# showed every function as "#251726683". XRay builds (names known at init) are checked
# the same way, and the trace read from standard input.
# usage: functrace_stream_names.sh FLIGHTREC WORKDIR
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, finish
fr=$1 work=$2
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
cat >prog.c <<'C'
#include <stdio.h>
volatile long sink;   /* the calls have an effect: none is hoisted out of its loop */
__attribute__((noinline)) void leaf(long x) { sink += x * 3 + 1; }
__attribute__((noinline)) void middle(int n) { for (int i = 0; i < n; i++) leaf(i); }
int main(void) { for (int i = 0; i < 3000; i++) middle(10); printf("%ld\n", sink); return 0; }
C
builds=()
if command -v gcc >/dev/null; then
  gcc -O2 -finstrument-functions prog.c -o prog-gcc && builds+=(prog-gcc)
fi
if command -v clang >/dev/null; then
  clang -O2 -fxray-instrument -fxray-instruction-threshold=1 prog.c -o prog-xray && builds+=(prog-xray)
fi
[ ${#builds[@]} -gt 0 ] || { echo "Skipped: neither gcc nor clang here"; exit 77; }
calls() { awk -F, -v f="$2" '$2==f{print $3}' "$1"; }
for b in "${builds[@]}"; do
  # 66,002 records (~530 KB): streamed in blocks of 4 KiB as each buffer fills, all kept
  FLIGHTREC_OPTIONS="stream=1" "$fr" record -o "$b.fr" -- "./$b" >out.txt 2>err.txt ||
    { fail "$b: record: $(head -c 300 err.txt)"; continue; }
  "$fr" info "$b.fr" >info.txt
  [ "$(sed -n 's/^blocks: //p' info.txt)" -gt 20 ] || fail "$b: not streamed: $(grep '^blocks' info.txt)"
  for input in file stdin; do
    if [ $input = file ]; then "$fr" account -f csv "$b.fr" >acc.csv 2>acc.err
    else "$fr" account -f csv - <"$b.fr" >acc.csv 2>acc.err; fi
    [ "$(calls acc.csv leaf)" = 30000 ] && [ "$(calls acc.csv middle)" = 3000 ] && [ "$(calls acc.csv main)" = 1 ] ||
      fail "$b ($input): account: $(tr '\n' ' ' <acc.csv | head -c 400)"
  done
  "$fr" stack -f folded "$b.fr" >folded.txt 2>/dev/null
  grep -q '^main;middle;leaf ' folded.txt || fail "$b: stack: $(head -3 folded.txt)"
  "$fr" replay -D 2 "$b.fr" >replay.txt 2>/dev/null
  grep -q '| *middle();' replay.txt || fail "$b: replay: $(sed -n 2,4p replay.txt)"
  "$fr" dump "$b.fr" >dump.txt 2>/dev/null
  grep -q ' enter .* leaf$' dump.txt || fail "$b: dump: $(sed -n 2,4p dump.txt)"
  grep -q '#[0-9]' acc.csv folded.txt replay.txt && fail "$b: unnamed functions: $(grep -h -m2 '#[0-9]' acc.csv folded.txt replay.txt)"
done
finish "ok: streamed traces of ${builds[*]} name every function in account, stack, replay and dump"
