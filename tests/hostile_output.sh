#!/bin/sh
# hostile_output.sh WRITER LLVM_XRAY DIR - the trace file cannot be pre-empted (issue 15
# items 1 and 11, issue 8 item 8): a symlink or FIFO planted at the old predictable
# temporary name "<output>.tmp" changes nothing outside the target and hangs nothing;
# a FIFO target is written in place and stays a FIFO; traces are 0600 unless file_mode says.
W=$1; X=$2; D=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$D"; mkdir -p "$D" || exit 1
cd "$D" || exit 1

# 1. symlink planted at out.fr.tmp pointing to a file we must not change
echo precious > victim
ln -s "$D/victim" out.fr.tmp
timeout 20 "$W" out.fr 0 100 || fail "writer failed with a planted symlink"
[ "$(cat victim)" = precious ] || fail "victim overwritten through planted symlink"
[ -L out.fr.tmp ] || fail "planted symlink was removed or replaced"
"$X" convert -symbolize=false -output-format=yaml out.fr > out.yaml || fail "llvm-xray cannot read out.fr"
grep -c "kind: function-enter" out.yaml | grep -qx 300 || fail "expected 300 enter records"

# 2. FIFO planted at the old temporary name: no hang
rm -f out.fr out.fr.tmp; mkfifo out.fr.tmp
timeout 20 "$W" out.fr 1 100; rc=$?
[ $rc -eq 124 ] && fail "writer hung on a planted FIFO"
[ $rc -eq 0 ] || fail "writer exit $rc"
[ -s out.fr ] || fail "no trace with a planted FIFO"
ls -a | grep -q '^\.out\.fr\..*\.tmp$' && fail "temporary file left behind"

# 3. default mode 0600 whatever the umask; file_mode=0640; bad mode reported
umask 000
rm -f out.fr; "$W" out.fr 1 10 || fail "writer"
[ "$(stat -c %a out.fr)" = 600 ] || fail "mode $(stat -c %a out.fr), expected 600"
rm -f out.fr; "$W" out.fr 1 10 file_mode=0640 || fail "writer file_mode"
[ "$(stat -c %a out.fr)" = 640 ] || fail "mode $(stat -c %a out.fr), expected 640"
"$W" bad.fr 1 10 file_mode=4755 2>err.txt
grep -q file_mode err.txt || fail "bad file_mode not reported: $(cat err.txt)"
umask 022

# 4. a FIFO target is written in place (stays a FIFO); with no reader: no hang
mkfifo pipe.fr
cat pipe.fr > via_pipe.fr & reader=$!
# the reader must be in its open() before the writer opens (O_NONBLOCK: no reader, ENXIO)
i=0; while [ $i -lt 1000 ]; do
  case "$(cat /proc/$reader/syscall 2>/dev/null)" in "257 "*|"2 "*) break ;; esac
  sleep 0.01; i=$((i + 1))
done
timeout 20 "$W" pipe.fr 0 100 || fail "writer to FIFO"
wait $reader
[ -p pipe.fr ] || fail "FIFO target replaced"
"$X" convert -symbolize=false -output-format=yaml via_pipe.fr | grep -c "kind: function-enter" \
  | grep -qx 300 || fail "trace through FIFO unreadable"
timeout 20 "$W" pipe.fr 1 10; [ $? -eq 124 ] && fail "hung on a FIFO without reader"
[ -p pipe.fr ] || fail "FIFO target replaced (no reader)"
echo ok
