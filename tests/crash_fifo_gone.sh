#!/usr/bin/env bash
# crash_fifo_gone.sh STREAM_PROG WORKDIR - the trace's output is a FIFO whose reader goes
# away before the program ends (`output=FIFO` read by `head -c`, a pager quit early).
# Our writes then fail with EPIPE, and must not kill the program with SIGPIPE (its exit
# status stays its own: 0), with stream=1 and with the trace written at exit.
# With stream=1 the block being written when the reader left is torn and a pipe cannot
# be cut back: nothing more may go into the FIFO (a later reader would get bytes after
# a torn block), and the message must not claim the file ends at a whole block.
. "$(dirname "$0")/frtest.sh"
prog=$1 work=$2
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS

# The first reader must hold the FIFO before the program opens it: the runtime opens its
# output with O_NONBLOCK (a FIFO with no reader fails with ENXIO rather than hanging the
# program), so a `head f.fifo &` not yet started under load left the program without a
# reader and head blocked in open() forever (a CI run timed out). The shell opens the FIFO
# read-write (Linux: never blocks) and hands it to head as its only holder; the program
# writes far more than head's 20,000 bytes in both modes, so head never waits for an EOF.
start_reader() {
  exec 3<>f.fifo
  head -c 20000 <&3 >part.fr &
  headpid=$!
  exec 3<&-
}

for mode in stream exit; do
  # The trace written at exit must be larger than what the pipe holds (64 KiB) and the
  # reader takes, or no write fails: with 16 buffers, the 20 short threads' partly used
  # ones left the file at ~52 KiB once (6,464 records kept, no EPIPE, no message).
  # 64 buffers: the worker's own fill at least 44 (352 KiB).
  opts="start=1 policy=discard buffers=64 buffer_size=8k output=$work/f.fifo"
  [ $mode = stream ] && opts="start=1 policy=discard buffers=16 buffer_size=8k output=$work/f.fifo stream=1"
  rm -f f.fifo; mkfifo f.fifo
  start_reader   # reads a little, then goes away
  FLIGHTREC_OPTIONS="$opts" timeout 30 "$prog" 1 100000 >out.txt 2>err.txt
  rc=$?
  wait $headpid
  [ $rc = 0 ] || fail "$mode: the program exited $rc (141: killed by SIGPIPE), want its own 0 ($(head -c 300 err.txt))"
  grep -qi 'broken pipe' err.txt || fail "$mode: no message about the write: $(head -c 300 err.txt)"
  if [ $mode = stream ]; then
    grep -q 'ends at the last whole' err.txt && fail "$mode: the message says the file ends at a whole block: $(head -c 300 err.txt)"
    # a second reader, after the first left: it must get nothing (no bytes after a torn block)
    rm -f f.fifo; mkfifo f.fifo
    start_reader
    FLIGHTREC_OPTIONS="$opts" timeout 30 "$prog" 1 100000 "" 0 "$work" >out.txt 2>err.txt &
    pid=$!
    for _ in $(seq 3000); do [ -e ready ] && break; sleep 0.01; done
    [ -e ready ] || fail "$mode: the program did not get ready"
    wait $headpid
    timeout 10 cat f.fifo >rest.fr & catpid=$!
    sleep 0.2
    touch go
    wait $pid; rc=$?
    wait $catpid
    [ $rc = 0 ] || fail "$mode, second reader: the program exited $rc"
    # It may read what the pipe still held when the first reader left (at most the pipe's
    # 64 KiB: written before), never the pool's 128 KiB and the end written after.
    [ "$(stat -c %s rest.fr)" -le 65536 ] ||
      fail "$mode: $(stat -c %s rest.fr) bytes for a later reader: written after the torn block"
    rm -f ready go
  fi
done
finish "a FIFO whose reader left: no SIGPIPE, exit status kept, nothing after a torn block"
