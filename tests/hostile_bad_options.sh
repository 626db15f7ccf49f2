#!/bin/sh
# hostile_bad_options.sh FLIGHTREC PROG DIR - option values that were taken without a word
# (issue 24 item 15) are refused with a message naming them, by the start-up constructor
# (PROG links libflightrec and never calls fr_init) and by `flightrec record`:
#   start=2          not a boolean (the program ran untraced, nothing said)
#   events=Foo:99    a level past 5 (verbose); * selects every level
#   backing=/dev/null  an existing file that is no regular file (made /dev/null.1)
fr=$1; P=$2; D=$3
rm -rf "$D"; mkdir -p "$D" && cd "$D" || exit 1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

# start-up: each bad pair named on stderr, and that nothing is recorded
for pair in start=2 events=Foo:99 events=A:4,Foo:6; do
    start="start=1 "; [ "$pair" = start=2 ] && start=
    FLIGHTREC_OPTIONS="$start$pair output=$D/t.fr" "$P" >/dev/null 2>err.txt || fail "$pair: exit $?"
    grep -q "FLIGHTREC_OPTIONS: bad value for option '$pair'" err.txt || fail "$pair: not named: $(cat err.txt)"
    grep -q "not recording" err.txt || fail "$pair: no 'not recording': $(cat err.txt)"
    [ -e t.fr ] && fail "$pair: a trace was written"
    rm -f t.fr
done
grep -q "LEVEL 1 (critical) to 5 (verbose) or \*" err.txt || fail "events: the levels not said: $(cat err.txt)"
# every level is still selectable, by '*'
FLIGHTREC_OPTIONS="start=1 events=Foo:* output=$D/ok.fr" "$P" >/dev/null 2>err.txt || fail "events=Foo:*: exit $?"
[ -s ok.fr ] && [ ! -s err.txt ] || fail "events=Foo:* refused: $(cat err.txt)"

[ -e /dev/null.1 ] && { echo "SKIP: /dev/null.1 exists already"; exit 77; }
FLIGHTREC_OPTIONS="start=1 backing=/dev/null output=$D/b.fr" "$P" >/dev/null 2>err.txt || fail "backing: exit $?"
grep -q "backing file /dev/null: exists and is not a regular file" err.txt || fail "backing=/dev/null: $(cat err.txt)"
grep -q "flightrec: start=1: not recording" err.txt || fail "backing=/dev/null: no 'not recording': $(cat err.txt)"
[ -e /dev/null.1 ] && { rm -f /dev/null.1; fail "backing=/dev/null made /dev/null.1"; }
[ -e b.fr ] && fail "backing=/dev/null: a trace was written"
[ -c /dev/null ] || fail "/dev/null is no longer a device"

# record: refused before the program runs (exit 2), the pair named
for pair in start=2 events=Foo:99 backing=/dev/null backing=$D; do
    FLIGHTREC_OPTIONS="$pair" "$fr" record --no-check -o "$D/r.fr" -- "$P" >out.txt 2>err.txt; rc=$?
    [ $rc -eq 2 ] || fail "record with $pair: exit $rc, want 2: $(cat err.txt)"
    [ -s out.txt ] && fail "record with $pair: the program ran"
    grep -q "$pair" err.txt || fail "record with $pair: not named: $(cat err.txt)"
done
[ -e /dev/null.1 ] && { rm -f /dev/null.1; fail "record made /dev/null.1"; }
[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo ok
