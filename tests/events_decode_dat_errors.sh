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

# Garbage whose first word, read as a record size, is huge: refused from the size left in
# the file, before anything is allocated (it asked for the size whole, up to 4 GiB).
printf '\000\000\000\360garbage garbage garbage' > "$tmp/huge.dat"
"$flightrec" decode-dat "$tmp/huge.dat" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "huge record size: exit $rc"
grep -q "huge.dat: byte 0: record size 4026531840 is larger than the 27 bytes left" "$tmp/err" ||
  fail "huge record size: message '$(cat "$tmp/err")'"
# A flightrec trace is not a corpus: said so.
printf '\005\000\001\000\003\000\000\000\000\312\232\073\000\000\000\000' > "$tmp/trace.fr"
head -c 16 /dev/zero >> "$tmp/trace.fr"
"$flightrec" decode-dat "$tmp/trace.fr" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] || fail "a trace file: exit $rc"
grep -q "trace.fr is an XRay trace" "$tmp/err" || fail "a trace file: message '$(cat "$tmp/err")'"

# Prefixes of the corpus at many lengths: clean exit 0 or 1.
size=$(wc -c < "$corpus"); n=1
while [ $n -lt 3000 ] && [ $n -lt "$size" ]; do
  head -c $n "$corpus" > "$tmp/p.dat"
  "$flightrec" decode-dat "$tmp/p.dat" >/dev/null 2>&1; rc=$?
  [ $rc -le 1 ] || fail "prefix $n: exit $rc"
  n=$((n + 211))
done
echo ok
