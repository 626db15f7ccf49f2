#!/usr/bin/env bash
# cli_lost_note.sh - an analysis of a trace that lost records says so.
# usage: cli_lost_note.sh FLIGHTREC PROGRAM(clang XRay, threads) WORKDIR
# A flight recorder keeps the last of the history: with overwrite (the default) older
# records are overwritten, with discard newer ones are dropped. account, stack and graph
# then cover only part of the run, and a table alone does not show it: a note on stderr
# gives the count (the trace summary's, or the --tid threads' own) and its causes, exit
# status unchanged; --json carries records_lost. A trace that lost nothing: no note.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 prog=$2 work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS
field() { sed -n "s/^$1: //p" info.txt; }

expect_rc 0 "record, 2 small buffers" "$fr" record -o small.fr --buffers 2 --buffer-size 4096 -- "$prog"
"$fr" info small.fr >info.txt
# The causes as info lists them under "records dropped" ("  CAUSE: N" lines): their sum
# is the count (overwrite with 4 threads and 2 buffers also drops for want of a buffer).
causes() { sed -n '/^records dropped:/,/^[^ ]/s/^  \([a-z ]*\): \([0-9]*\)$/\1: \2/p' info.txt | paste -sd, | sed 's/,/, /g'; }
lost=$(field "records dropped") why=$(causes)
sum=$(( $(sed -n '/^records dropped:/,/^[^ ]/s/^  [a-z ]*: \([0-9]*\)$/\1/p' info.txt | paste -sd+) ))
[ -n "$lost" ] && [ "$lost" -gt 0 ] && [ "$sum" = "$lost" ] && [[ $why == *"overwritten by newer records: "* ]] ||
  fail "test premise: small.fr lost '$lost' records, causes '$why'"
for c in account stack graph; do
  expect_rc 0 "$c small.fr" "$fr" $c small.fr
  [ -s out.txt ] || fail "$c small.fr: no output"
  grep -qx "flightrec $c: note: the trace lost $lost records before it was written ($why); these figures cover what it kept" err.txt ||
    fail "$c small.fr: note '$(cat err.txt)'"
done
for f in folded svg; do   # flame graphs of part of the run
  expect_rc 0 "convert -f $f small.fr" "$fr" convert -f $f -o o.$f small.fr
  grep -qx "flightrec convert: note: the trace lost $lost records before it was written ($why); these figures cover what it kept" err.txt ||
    fail "convert -f $f small.fr: note '$(cat err.txt)'"
done
expect_rc 0 "account --json small.fr" "$fr" account -f json small.fr
python3 -c 'import json,sys; d=json.load(open("out.txt")); sys.exit(0 if d["records_lost"] == int(sys.argv[1]) else 1)' "$lost" ||
  fail "account --json: records_lost is not $lost: $(head -c 300 out.txt)"

# --tid: the threads' own losses (their THREAD_STATS), not the whole trace's.
# (a thread with records left in the trace: with 4 threads in 2 buffers, one may have
# kept none, and --tid of it matches nothing: a landing run picked such a thread)
read -r tid tlost < <(sed -n 's/^thread \([0-9]*\): .*, records \([1-9][0-9]*\),.* dropped \([0-9]*\) .*/\1 \3/p' info.txt |
                      sort -k2 -n | tail -1)
[ -n "$tid" ] && [ "$tlost" -gt 0 ] && [ "$tlost" -lt "$lost" ] || fail "test premise: a thread lost some ($tid: $tlost of $lost)"
expect_rc 0 "account --tid $tid" "$fr" account --tid "$tid" small.fr
grep -qx "flightrec account: note: the trace lost $tlost records of the selected threads before it was written; these figures cover what it kept" err.txt ||
  fail "account --tid: note '$(cat err.txt)'"

# discard: the newest records are the ones missing.
expect_rc 0 "record, discard" "$fr" record -o disc.fr --policy discard --buffers 2 --buffer-size 4096 -- "$prog"
"$fr" info disc.fr >info.txt
lost=$(field "records dropped") why=$(causes)
[ -n "$lost" ] && [ "$lost" -gt 0 ] && [[ $why == *"no free buffer: "* ]] || fail "test premise: disc.fr lost '$lost', causes '$why'"
expect_rc 0 "account disc.fr" "$fr" account disc.fr
grep -qx "flightrec account: note: the trace lost $lost records before it was written ($why); these figures cover what it kept" err.txt ||
  fail "account disc.fr: note '$(cat err.txt)'"

# Nothing lost: nothing said.
expect_rc 0 "record, default pool" "$fr" record -o whole.fr -- "$prog"
"$fr" info whole.fr >info.txt
[ "$(field "records dropped")" = 0 ] || fail "test premise: whole.fr lost records"
for c in account stack graph "convert -f folded"; do
  expect_rc 0 "$c whole.fr" "$fr" $c whole.fr
  [ -s err.txt ] && fail "$c whole.fr: says '$(cat err.txt)'"
done
expect_rc 0 "account --json whole.fr" "$fr" account -f json whole.fr
grep -q '"records_lost": 0' out.txt || fail "account --json whole.fr: no records_lost 0"
finish "cli_lost_note: ok"
