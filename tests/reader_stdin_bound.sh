#!/usr/bin/env bash
# reader_stdin_bound.sh FLIGHTREC TB_BIG WORKDIR [tmpfs] - '-' (a trace on standard input)
# is copied to a temporary file, and the copy is bounded: an endless stream after a valid
# file header is refused once its first MiB is seen to be no trace; a copy larger than
# ulimit -f allows is an error, not a SIGXFSZ death; with "tmpfs" (root: a 64 MiB tmpfs
# as TMPDIR, else Skipped), a stream that would fill the file system stops with a message
# and leaves it its reserve; with "fullish" (root: a 4 GiB ext4 image, loop-mounted, filled
# to 100 MiB free, else Skipped), a small trace is still read (the reserve is 1% of the
# file system, 41 MiB there, not a share that refuses any copy on a large full disk) and an
# endless stream stops with the reserve left.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 tb_big=$2 work=$3 mode=${4:-}
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
unset TMPDIR
"$tb_big" big.fr 2000000 || { echo "FAIL: reader_tb_big"; exit 1; }
size=$(stat -c %s big.fr)

if [ "$mode" = tmpfs ]; then
  mkdir -p mnt
  mount -t tmpfs -o size=64m flightrec-stdin mnt 2>/dev/null ||
    { echo "SKIP: cannot mount a tmpfs (needs root)"; exit 77; }
  trap 'umount "$work/mnt"' EXIT
  # A trace that fits is read as before.
  cat big.fr | TMPDIR=$work/mnt expect_rc 0 "a 16 MB trace through a 64 MiB TMPDIR" "$fr" info -
  # A valid trace followed by zeros for ever: refused before the file system is full.
  (cat big.fr; cat /dev/zero) | TMPDIR=$work/mnt timeout 30 "$fr" info - >out.txt 2>err.txt
  rc=$?
  [ $rc = 1 ] || fail "an endless stream into a 64 MiB TMPDIR: exit $rc, want 1 ($(cat err.txt))"
  grep -q "would leave less than" err.txt || fail "endless stream into a small TMPDIR: message '$(cat err.txt)'"
  finish "ok: standard input's copy leaves its file system a reserve"
fi

if [ "$mode" = fullish ]; then
  mkdir -p mnt
  truncate -s 4G fs.img && mkfs.ext4 -q -m 0 fs.img 2>/dev/null && mount -o loop fs.img mnt 2>/dev/null ||
    { echo "SKIP: cannot make and loop-mount an ext4 image (needs root, mkfs.ext4, a loop device)"; exit 77; }
  trap 'umount "$work/mnt"; rm -f "$work/fs.img"' EXIT
  avail=$(df -B1 --output=avail mnt | tail -1)
  fallocate -l $((avail - (100 << 20))) mnt/fill || fail "fallocate in the image"
  head -c 100000 big.fr >small.fr
  cat small.fr | TMPDIR=$work/mnt expect_rc 0 "a small trace through a TMPDIR with 100 MiB free of 4 GiB" "$fr" info -
  (cat big.fr; cat /dev/zero) | TMPDIR=$work/mnt timeout 60 "$fr" info - >out.txt 2>err.txt
  rc=$?
  [ $rc = 1 ] || fail "an endless stream into a full TMPDIR: exit $rc, want 1 ($(cat err.txt))"
  grep -q "would leave less than 39 MiB" err.txt || fail "endless stream into a full TMPDIR: message '$(cat err.txt)'"
  # It stopped with the reserve left: at most 100 - 39 MiB copied, and most of that.
  copied=$(sed -n 's/.*stopped after copying \([0-9]*\) MiB.*/\1/p' err.txt)
  [ -n "$copied" ] && [ "$copied" -le 61 ] && [ "$copied" -ge 50 ] ||
    fail "the endless stream's copy stopped after '$copied' MiB, want 50-61 of the 100 MiB free"
  finish "ok: standard input's copy leaves a nearly full file system its reserve, and reads a small trace"
fi

[ "$size" -gt 4000000 ] || fail "reader_tb_big wrote $size bytes, want more than 4 MB"
# The file header, then zeros for ever: the first MiB is no trace (offset 32: no block).
head -c 32 big.fr >header.bin
(cat header.bin; cat /dev/zero) | timeout 30 "$fr" info - >out.txt 2>err.txt
rc=$?
[ $rc = 1 ] || fail "header + /dev/zero on standard input: exit $rc, want 1 ($(head -c 300 err.txt))"
grep -q "offset 32" err.txt || fail "header + /dev/zero: message '$(head -c 300 err.txt)'"

# Larger than ulimit -f: the copy stops with a message (SIGXFSZ killed flightrec).
(ulimit -f 1024; "$fr" info - <big.fr >out.txt 2>err.txt); rc=$?
[ $rc = 1 ] || fail "a trace larger than ulimit -f on standard input: exit $rc, want 1 ($(head -c 300 err.txt))"
grep -q "ulimit -f" err.txt || fail "larger than ulimit -f: message '$(head -c 300 err.txt)'"
# Within the limit it is read.
expect_rc 0 "big trace on standard input" sh -c "\"$fr\" info - <big.fr"
finish "ok: standard input's copy is bounded"
