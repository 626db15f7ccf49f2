#!/usr/bin/env bash
# hostile_fd_close.sh - the program closes the recorder's descriptors (a daemon's
# start-up: every descriptor above 2) and opens files of its own, which take the freed
# numbers. With stream=1 the recorder kept its output open and went on appending through
# the old number: into the program's own file (48 MB of trace blocks in a 10-byte data
# file, found as a user), and a failed append would have cut that file. Now:
#  1. the program's files hold exactly what it wrote;
#  2. the stream opens its file again by path and the trace holds every record (discard
#     policy, a pool the size of the run: nothing may be dropped), llvm-xray reads it;
#  3. one message says so;
#  4. with the trace file removed before the close, it cannot be opened again: the
#     stream stops with a message, the program's files are still intact, its exit 0.
# usage: hostile_fd_close.sh FD_CLOSER FLIGHTREC LLVM_XRAY WORKDIR
set -uo pipefail
prog=$1 fr=$2 xray=$3 work=$4
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0
failed() { echo "FAIL: $*"; fail=1; }
check_data() { # prefix
  for f in 0 1 2 3 4 5 6 7; do
    want=$(for k in $(seq 0 99); do echo "file $f line $k"; done)
    [ "$(cat "$1.$f" 2>/dev/null)" = "$want" ] ||
      failed "$1.$f: not what the program wrote ($(stat -c %s "$1.$f" 2>/dev/null) bytes): $(head -c 120 "$1.$f" | od -c | head -3)"
  done
}
pairs=200000
opts="start=1 stream=1 policy=discard buffers=256 buffer_size=65536"

FLIGHTREC_OPTIONS="$opts output=$work/t.fr" "$prog" "$work/data" $pairs >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || failed "exit $rc: $(cat err.txt)"
check_data "$work/data"
made=$(sed -n 's/^made //p' out.txt)
got=$("$fr" info t.fr 2>&1 | sed -n 's/^records: //p')
# the records asked for, plus the runtime's own per block (block start), minus nothing
written=$("$fr" info t.fr 2>&1 | sed -n 's/^records written: //p')
dropped=$("$fr" info t.fr 2>&1 | sed -n 's/^records dropped: //p')
[ "$dropped" = 0 ] || failed "records dropped: $dropped"
[ -n "$made" ] && [ "$written" = "$made" ] || failed "records written $written, the program made $made"
enters=$("$fr" dump t.fr 2>/dev/null | awk '$5 == "enter"' | wc -l)
[ "$enters" = $((made / 2)) ] || failed "$enters enter records in the file, the program made $((made / 2))"
"$xray" fdr-dump -verify t.fr >/dev/null 2>xray.txt || failed "llvm-xray fdr-dump -verify: $(head -c 300 xray.txt)"
grep -q "the program closed the descriptor of its output; opened again" err.txt ||
  failed "no message about the reopened output: $(cat err.txt)"
child=$(ls t.fr.* 2>/dev/null | head -1)
[ -n "$child" ] && "$fr" info "$child" >/dev/null 2>&1 || failed "the fork child wrote no valid trace ($child)"

# 4. The trace file removed first: it cannot be opened again.
FLIGHTREC_OPTIONS="$opts output=$work/gone.fr" "$prog" "$work/data2" $pairs "$work/gone.fr" >out2.txt 2>err2.txt
rc=$?
[ $rc = 0 ] || failed "unlinked: exit $rc: $(cat err2.txt)"
check_data "$work/data2"
grep -q "the program closed the descriptor of its output, which cannot be opened again" err2.txt ||
  failed "unlinked: no message: $(cat err2.txt)"

[ $fail = 0 ] && echo "PASS: hostile_fd_close"
exit $fail
