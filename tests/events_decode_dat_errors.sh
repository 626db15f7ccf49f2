#!/bin/sh
# flightrec decode-dat on bad input: exit 1 with a message naming the file and the byte
# offset of the bad record; bad usage: exit 2. Every truncation of the corpus must be
# reported, never crash.
set -u
flightrec=$1 corpus=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

"$flightrec" decode-dat >/dev/null 2>&1; [ $? -eq 2 ] || fail "no FILE should be exit 2"
"$flightrec" decode-dat --bogus x >/dev/null 2>&1; [ $? -eq 2 ] || fail "unknown option should be exit 2"
"$flightrec" decode-dat --help | grep -q usage || fail "--help"
"$flightrec" decode-dat "$tmp/missing.dat" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file should be exit 1"

# Cut the corpus inside its second record (the first is 274 bytes long).
head -c 300 "$corpus" > "$tmp/cut.dat"
"$flightrec" decode-dat "$tmp/cut.dat" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "truncated record: exit $rc"
grep -q "cut.dat: byte 274:" "$tmp/err" || fail "message should name file and offset: $(cat "$tmp/err")"

# A record whose event bytes are damaged: header says extensions follow, none do.
printf '\020\000\000\000P_L5K0\000\007\000\000' > "$tmp/bad.dat"
"$flightrec" decode-dat "$tmp/bad.dat" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "damaged event: exit $rc ($(cat "$tmp/err"))"

# Prefixes of the corpus at many lengths: clean exit 0 or 1.
size=$(wc -c < "$corpus"); n=1
while [ $n -lt 3000 ] && [ $n -lt "$size" ]; do
  head -c $n "$corpus" > "$tmp/p.dat"
  "$flightrec" decode-dat "$tmp/p.dat" >/dev/null 2>&1; rc=$?
  [ $rc -le 1 ] || fail "prefix $n: exit $rc"
  n=$((n + 211))
done
echo ok
