#!/usr/bin/env bash
# crash_stream.sh FLIGHTREC LLVM_XRAY STREAM_PROG WORKDIR STREAM_CYCLE - stream=1 (issue 9, streaming):
#  1. discard, a program slower than the disk, 10x the pool: every record in the file
#     (our reader and llvm-xray count the same), nothing dropped;
#  2. discard, as fast as it goes, 10x the pool: written + dropped (stream_behind only)
#     == made, exactly; peak RSS no higher than a run that makes no records, plus the
#     pool (touched as it is first used, so not in the idle run's), plus 2 MiB;
#  3. overwrite, as fast as it goes: written + overwritten == made, and per thread the
#     FR_TE_LOST markers' counts add up to the thread's overwritten records;
#  3b. the same with the writer held up (a FIFO read only after the records): the
#     losses after threads' last blocks have markers too;
#  3c. overwrite without stream=1: the markers of threads whose buffers were all taken;
#  4. `flightrec info` on the file while the program still runs; at the end written +
#     dropped (stream_behind only) == made;
#  5. fork: the child's own file, every record in each file;
#  5b. three sessions in one process (finalize + flush twice, finalize + reset, a
#     snapshot then exit): each file whole;
#  6. ENOSPC on a small tmpfs (root only, else Skipped at the end): a message, the
#     program's own exit status, a file valid up to its last whole block.
# Under an emulator (the aarch64 build under qemu-user) the fork case (5.) is left out,
# saying why: qemu-user's fork of a threaded process trips an assertion inside qemu.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 xray=$2 prog=$3 work=$4 cycle=$5
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS
# A sanitizer's report in a run's stderr is a failure too (the test runs under TSan).
sanitizer_clean() { ! grep -q 'Sanitizer' "$1" || fail "$2: $(grep -m1 -A12 Sanitizer "$1")"; }
field() { sed -n "s/^$1: //p" "$2"; }   # field KEY FILE
made_of() { sed -n 's/^made //p' "$1"; }

# Checks FILE with both readers: llvm-xray's verifier, our reader's counts. Sets
# written, dropped, recs (enter + exit records our reader read).
check_file() {
  local f=$1 what=$2
  "$xray" fdr-dump -verify "$f" >/dev/null 2>x.err || fail "$what: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
  "$fr" info "$f" >info.txt 2>info.err || fail "$what: flightrec info failed: $(head -c 300 info.err)"
  written=$(field "records written" info.txt)
  dropped=$(field "records dropped" info.txt)
  recs=$(( $(field "  enter" info.txt) + $(field "  exit" info.txt) ))
  [ -n "$written" ] && [ "$recs" = "$written" ] || fail "$what: reader read $recs records, summary says '$written'"
}

# 1. discard, slower than the disk: pool 512 KiB (64 x 8 KiB), 5 MiB of records, the
#    program pausing 4 ms every 1024 records (about a buffer): every record kept.
opts="start=1 stream=1 policy=discard buffers=64 buffer_size=8k"
FLIGHTREC_OPTIONS="$opts output=$work/slow.fr" timeout 60 "$prog" 2 165000 4000 1024 >out.txt 2>err.txt ||
  fail "slow: exit $? ($(head -c 300 err.txt))"
made=$(made_of out.txt)
sanitizer_clean err.txt slow
check_file slow.fr slow
[ "$written" = "$made" ] && [ "$dropped" = 0 ] || fail "slow: made $made, written $written, dropped $dropped"
size=$(stat -c %s slow.fr)
echo "slow: $made records made, $written in the file of $size bytes"
[ "$size" -gt $((5 << 20)) ] || fail "slow: file of $size bytes, want more than 10x the 512 KiB pool"
n=$("$xray" convert --output-format=yaml slow.fr | grep -c 'kind: function-')
[ "$n" = "$made" ] || fail "slow: llvm-xray convert reads $n function records, made $made"
rm -f slow.fr

# 2. discard, as fast as it goes: pool 4 MiB, 40 MiB of records.
opts="start=1 stream=1 policy=discard buffers=64 buffer_size=64k"
FLIGHTREC_OPTIONS="$opts output=$work/idle.fr" timeout 60 "$prog" 1 0 >idle.txt 2>err.txt || fail "idle: exit $?"
FLIGHTREC_OPTIONS="$opts output=$work/fast.fr" timeout 60 "$prog" 2 1320000 >out.txt 2>err.txt ||
  fail "fast: exit $? ($(head -c 300 err.txt))"
made=$(made_of out.txt)
sanitizer_clean err.txt fast
check_file fast.fr fast
behind=$(field "  stream writer behind" info.txt); behind=${behind:-0}
[ $((written + dropped)) = "$made" ] && [ "$dropped" = "$behind" ] ||
  fail "fast: made $made, written $written, dropped $dropped (stream_behind $behind)"
[ "$dropped" = 0 ] || grep -q "records dropped (policy=discard; $dropped stream writer behind)" err.txt ||
  fail "fast: no drop line on stderr: $(head -c 300 err.txt)"
hwm=$(sed -n 's/^hwm_kib //p' out.txt) hwm0=$(sed -n 's/^hwm_kib //p' idle.txt)
echo "peak RSS: $hwm KiB for $made records ($(stat -c %s fast.fr) bytes of trace), $hwm0 KiB making none; pool 4096 KiB"
if grep -q '^sanitizer 1' out.txt; then
  echo "peak RSS not checked: built with a sanitizer (its shadow memory grows)"
else
  [ "$hwm" -le $((hwm0 + 4096 + 2048)) ] || fail "fast: peak RSS $hwm KiB, $hwm0 KiB without records (pool 4096 KiB)"
fi
[ "$(stat -c %s fast.fr)" -gt $((40 << 20)) ] || [ "$dropped" != 0 ] || fail "fast: file smaller than 10x the pool"
rm -f fast.fr

# 3. overwrite, as fast as it goes: what was overwritten is counted, and marked.
opts="start=1 stream=1 policy=overwrite buffers=16 buffer_size=16k"
FLIGHTREC_OPTIONS="$opts output=$work/over.fr" timeout 60 "$prog" 3 150000 >out.txt 2>err.txt ||
  fail "overwrite: exit $? ($(head -c 300 err.txt))"
made=$(made_of out.txt)
sanitizer_clean err.txt overwrite
check_file over.fr overwrite
over=$(field "  overwritten by newer records" info.txt); over=${over:-0}
# When no other buffer can be taken (the rest being written: WRITING, nothing to
# overwrite), a record is dropped as "no free buffer" (FR_DROP_FULL; the thread asks
# again after 64 records): seen once in CI's ASan run, 64 of 1,057,796 drops.
full=$(field "  no free buffer" info.txt); full=${full:-0}
[ $((written + dropped)) = "$made" ] && [ "$dropped" = $((over + full)) ] ||
  fail "overwrite: made $made, written $written, dropped $dropped (overwritten $over, no free buffer $full)"
# Every overwritten record is covered by FR_TE_LOST markers at its own thread: per
# thread, the markers' counts add up to the thread's overwritten count (FR_TE_DROPS),
# and over the file to the summary's. A thread whose last buffers were all overwritten
# after its last streamed block (a short thread whose RETIRED buffer another took) has
# its marker in a block of its own.
markers_cover() {   # markers_cover FILE WHAT
  "$fr" dump --meta --json "$1" >dump.json 2>dump.err || { fail "$2: flightrec dump: $(head -c 300 dump.err)"; return; }
  python3 - "$over" dump.json <<'PY' || fail "$2: markers do not cover the overwritten records: $(cat cover.txt)"
import json, struct, sys
want_total = int(sys.argv[1])
lost, over = {}, {}
for line in open(sys.argv[2]):
    r = json.loads(line)
    t = r.get("flightrec_type")
    if t == "lost":
        lost[r["tid"]] = lost.get(r["tid"], 0) + struct.unpack("<Q", bytes.fromhex(r["data_hex"])[:8])[0]
    elif t == "drops":
        tid, n = struct.unpack("<iI", bytes.fromhex(r["data_hex"])[:8])
        if tid:
            over[tid] = struct.unpack("<Q", bytes.fromhex(r["data_hex"])[8:16])[0]   # the last one counts
bad = [f"thread {t}: overwritten {over.get(t, 0)}, markers {lost.get(t, 0)}"
       for t in sorted(set(lost) | set(over)) if over.get(t, 0) != lost.get(t, 0)]
if sum(lost.values()) != want_total:
    bad.append(f"markers {sum(lost.values())} in all, overwritten {want_total}")
open("cover.txt", "w").write("; ".join(bad[:8]))
sys.exit(1 if bad else 0)
PY
}
markers_cover over.fr overwrite
echo "overwrite: $made made, $over overwritten, $(field "lost-record markers" info.txt) markers"

# 3b. the same, the writer held up: the file is a FIFO that nobody reads until the
#     program has made its records, so every buffer waits and the short threads' RETIRED
#     buffers are taken by others after their last (or only) block: those losses too
#     need markers (on a fast disk they happen only now and then).
rm -f ready go over.fifo; mkfifo over.fifo
exec 3<>over.fifo   # a reader that does not read: the program's open succeeds, its writes wait
FLIGHTREC_OPTIONS="$opts output=$work/over.fifo" timeout 60 "$prog" 3 20000 0 0 "$work" >out.txt 2>err.txt 3<&- &
pid=$!
for _ in $(seq 3000); do [ -e ready ] && break; sleep 0.01; done
[ -e ready ] || fail "overwrite, held up: the program did not get ready"
exec 4<over.fifo 3<&-   # the reader that reads: open before the other is closed (no EPIPE)
cat <&4 >overfifo.fr & catpid=$!
exec 4<&-
touch go
wait $pid || fail "overwrite, held up: exit $? ($(head -c 300 err.txt))"
wait $catpid
made=$(made_of out.txt)
sanitizer_clean err.txt "overwrite, held up"
check_file overfifo.fr "overwrite, held up"
over=$(field "  overwritten by newer records" info.txt); over=${over:-0}
full=$(field "  no free buffer" info.txt); full=${full:-0}
[ $((written + dropped)) = "$made" ] && [ "$dropped" = $((over + full)) ] ||
  fail "overwrite, held up: made $made, written $written, dropped $dropped (overwritten $over, no free buffer $full)"
markers_cover overfifo.fr "overwrite, held up"
echo "overwrite, held up: $made made, $over overwritten, $(field "lost-record markers" info.txt) markers"
rm -f over.fifo

# 3c. the same without stream=1 (the file written at exit): threads that exited while
#     others went on have had all their buffers taken; each still gets its marker, in a
#     block of its own.
FLIGHTREC_OPTIONS="start=1 policy=overwrite buffers=16 buffer_size=16k output=$work/nostream.fr" \
  timeout 60 "$prog" 3 150000 >out.txt 2>err.txt || fail "overwrite, no stream: exit $? ($(head -c 300 err.txt))"
made=$(made_of out.txt)
sanitizer_clean err.txt "overwrite, no stream"
check_file nostream.fr "overwrite, no stream"
over=$(field "  overwritten by newer records" info.txt); over=${over:-0}
[ $((written + dropped)) = "$made" ] || fail "overwrite, no stream: made $made, written $written, dropped $dropped"
markers_cover nostream.fr "overwrite, no stream"
echo "overwrite, no stream: $made made, $over overwritten, $(field "lost-record markers" info.txt) markers"
rm -f nostream.fr

# 4. flightrec info on the live file: the program has made its records and waits.
rm -f ready go
FLIGHTREC_OPTIONS="start=1 stream=1 policy=discard buffers=64 buffer_size=8k output=$work/live.fr" \
  timeout 60 "$prog" 1 100000 1000 1024 "$work" >out.txt 2>err.txt &
pid=$!
for _ in $(seq 3000); do [ -e ready ] && break; sleep 0.01; done
[ -e ready ] || fail "live: the program did not get ready"
sleep 0.2   # the writer's last full buffers
"$fr" info live.fr >live.txt 2>live.err || fail "live: flightrec info on the live file: $(head -c 300 live.err)"
kill -0 $pid 2>/dev/null || fail "live: the program was not running any more"
n=$(field records live.txt)
[ "${n:-0}" -gt 150000 ] || fail "live: $n records read from the live file, want most of 200000"
grep -q '^records written' live.txt && fail "live: a summary before the end"
"$xray" fdr-dump -verify live.fr >/dev/null 2>x.err || fail "live: llvm-xray on the live file: $(head -c 300 x.err)"
touch go
wait $pid || fail "live: exit $?"
sanitizer_clean err.txt live
made=$(made_of out.txt)
check_file live.fr "live, at the end"
# (Every record is in the file, or counted as dropped because the stream writer fell
# behind: on a loaded machine it may not run for the tens of milliseconds the pool holds; the file's
# count is exact either way.)
behind=$(field "  stream writer behind" info.txt); behind=${behind:-0}
[ $((written + dropped)) = "$made" ] && [ "$dropped" = "$behind" ] ||
  fail "live: made $made, written $written, dropped $dropped (stream_behind $behind)"

# 5. fork: the child streams to its own file (output.PID). The parent has the writer
#    thread when it forks, and the child starts its own: TSan refuses threads after a
#    multi-threaded fork unless told (die_after_fork=0).
#    Each process pauses 4 ms every 1024 records (as in 1.): a 512 KiB pool holds 250 ms
#    of records, room for a writer kept off the CPU by a loaded machine (with 256 KiB and
#    1 ms pauses, 16 ms, the parent dropped 2,048 records once under a load of 10).
if emulated "$prog"; then
  echo "note: fork case not run: under qemu-user ($(elf_cpu "$prog") program) a fork of a threaded process trips an assertion inside qemu (cpu_exec: cpu == current_cpu)"
else
  TSAN_OPTIONS="${TSAN_OPTIONS:-} die_after_fork=0" FLIGHTREC_OPTIONS="start=1 stream=1 policy=discard buffers=64 buffer_size=8k output=$work/fork.fr" \
    timeout 60 "$prog" 1 200000 4000 1024 "" fork >out.txt 2>err.txt || fail "fork: exit $? ($(head -c 300 err.txt))"
  sanitizer_clean err.txt fork
  child=$(ls fork.fr.* 2>/dev/null | head -1)
  if [ -z "$child" ]; then
    fail "fork: no file of the child's: $(ls)"
  else
    check_file "$child" "fork, child"
    [ "$written" = "$(sed -n 's/^child made //p' out.txt)" ] || fail "fork: child wrote $written"
  fi
  check_file fork.fr "fork, parent"
  [ "$written" = "$(made_of out.txt)" ] || fail "fork: parent wrote $written, made $(made_of out.txt)"
fi

# 5b. sessions: s1 finalize + flush + flush, s2 finalize + reset, s3 snapshot + exit.
mkdir cycle
timeout 60 "$cycle" "$work/cycle" >out.txt 2>err.txt || fail "cycle: exit $? ($(head -c 300 err.txt))"
sanitizer_clean err.txt cycle
for s in s1 s2 s3; do
  check_file "cycle/$s.fr" "cycle, $s"
  want=$(sed -n "s/^$s //p" out.txt)
  behind=$(field "  stream writer behind" info.txt)
  [ -n "$want" ] && [ $((written + dropped)) = "$want" ] && [ "$dropped" = "${behind:-0}" ] ||
    fail "cycle, $s: made $want, written $written, dropped $dropped (stream_behind ${behind:-0})"
done
# The snapshot, taken while a third thread records: the streamed file's blocks so far
# plus the pool's: valid, exactly the records its summary counts written, and for the
# two threads that ended before it all their records (stream_cycle's PAIRS
# enter/exit pairs each: s3's pool holds the whole session, nothing is dropped), as the
# final file does.
"$xray" fdr-dump -verify cycle/snap.fr >/dev/null 2>x.err || fail "cycle, snapshot: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
"$fr" info cycle/snap.fr >info.txt 2>info.err || fail "cycle, snapshot: flightrec info: $(head -c 300 info.err)"
written=$(field "records written" info.txt)
recs=$(( $(field "  enter" info.txt) + $(field "  exit" info.txt) ))
# Exact, though the third thread records while the snapshot is taken: the summary
# counts what the snapshot holds (the streamed blocks at the hold and the pool's buffers
# it copied), not the live counts of a thread that went on.
[ -n "$written" ] && [ "$recs" = "$written" ] ||
  fail "cycle, snapshot: reader read $recs records, summary says '$written'"

"$fr" info cycle/s3.fr >s3info.txt 2>/dev/null
thread_records() { sed -n "s/^thread $1: .* records \([0-9]*\),.*/\1/p" "$2"; }
read -r _ ta tb < <(grep '^tids' out.txt)
for t in $ta $tb; do
  a=$(thread_records "$t" info.txt) b=$(thread_records "$t" s3info.txt)
  [ "$a" = $((2 * 30000)) ] && [ "$a" = "$b" ] ||
    fail "cycle, snapshot: thread $t made its records before the snapshot: ${a:-none} in it, ${b:-none} in s3.fr"
done
echo "snapshot while streaming: $written records, threads $ta $tb: $(thread_records "$ta" info.txt) and $(thread_records "$tb" info.txt)"

# 6. ENOSPC: a 512 KiB tmpfs, 10 MiB of records.
if [ "$(id -u)" != 0 ] || ! mkdir full || ! mount -t tmpfs -o size=512k tmpfs full 2>/dev/null; then
  echo "cannot mount a small tmpfs (not root?): ENOSPC part not run"
  [ $status = 0 ] && exit 77
  exit $status
fi
trap 'umount "$work/full"' EXIT
FLIGHTREC_OPTIONS="start=1 stream=1 policy=discard buffers=16 buffer_size=64k output=$work/full/s.fr" \
  timeout 60 "$prog" 2 650000 >out.txt 2>err.txt; rc=$?
[ $rc = 0 ] || fail "ENOSPC: exit $rc, want 0 ($(head -c 300 err.txt))"
grep -q "flightrec: stream: stopped after [0-9]* blocks (the file ends at the last whole one; later records stay in the pool): cannot write $work/full/s.fr: no space left on device" err.txt ||
  fail "ENOSPC: no clear message: $(head -c 400 err.txt)"
[ "$(grep -c 'flightrec: stream: stopped' err.txt)" = 1 ] || fail "ENOSPC: the message more than once"
"$xray" fdr-dump -verify full/s.fr >/dev/null 2>x.err || fail "ENOSPC: llvm-xray rejects the file: $(head -c 300 x.err)"
"$fr" info full/s.fr >info.txt 2>info.err || fail "ENOSPC: flightrec info: $(head -c 300 info.err)"
grep -q truncated info.txt && fail "ENOSPC: the file ends inside a block"
n=$(field records info.txt)
[ "${n:-0}" -gt 0 ] || fail "ENOSPC: no record in the file"
exit $status
