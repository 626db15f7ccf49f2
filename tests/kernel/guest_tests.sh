# guest_tests.sh - the scenarios run inside the virtual machine (sourced by /init as
# /tests.sh), one function t_NAME per ctest test kernel_NAME. Each runs in /results/NAME
# and leaves there what tests/kernel/kernel_check.py NAME checks on the host: the
# program's answers (p1.out), the collector's decoded samples (*.jsonl), perf.data files,
# tracefs listings. A scenario checks nothing itself beyond what it needs to go on; a
# step that fails says so in log.txt and the scenario exits non-zero.
ALL_TESTS="registration enable_bits collector_values collector_spans perf_record perf_record_cmd no_syscall fork unregister exit sigkill two_processes enable_gap doctor"
TRACING=/sys/kernel/tracing
UE=$TRACING/events/user_events
L4K1=FrKtest_L4K1

die() { echo "guest: FAIL: $*"; exit 1; }

# Waits (at most 30 s) until the command succeeds.
wait_until() {
  local i=0
  while ! eval "$1"; do
    i=$((i + 1)); [ $i -ge 600 ] && return 1
    sleep 0.05
  done
}

# p_start N [ENV=VALUE...]: program N (ue_prog), commands through /tmp/pN.in on fd 6+N,
# answers in ./pN.out; returns once it registered its events (it answered "pid").
p_start() {
  local n=$1; shift
  rm -f "/tmp/p$n.in"; mkfifo "/tmp/p$n.in"
  env "$@" ue_prog <"/tmp/p$n.in" >"p$n.out" 2>"p$n.err" &
  echo $! >"/tmp/p$n.pid"
  eval "exec $((6 + n))>/tmp/p$n.in"
  echo 0 >"/tmp/p$n.count"
  p_cmd "$n" pid
}
p_pid() { cat "/tmp/p$1.pid"; }
# p_send N COMMAND: sends without waiting; p_wait N: waits for its answer.
p_send() {
  local n=$1; shift
  echo "$*" >&$((6 + n))
  echo $(( $(cat "/tmp/p$n.count") + 1 )) >"/tmp/p$n.count"
}
p_wait() {
  local c; c=$(cat "/tmp/p$1.count")
  wait_until "grep -qx 'done $c' p$1.out" || die "program $1: no answer to command $c"
}
p_cmd() { p_send "$@"; p_wait "$1"; }
p_quit() {
  p_send "$1" quit
  wait "$(p_pid "$1")"; echo "program $1 exit $?" >>"p$1.out"
  eval "exec $((6 + $1))>&-"
}

# c_start OUT [-g MS] NAME...: the collector, enabled and ready when it returns (unless
# -g: then it returns at once). c_stop: stops it, its status appended to OUT.status.
c_start() {
  local out=$1; shift
  rm -f /tmp/c.ready
  ue_collect -r /tmp/c.ready -o "$out" "$@" 2>"$out.err" &
  echo $! >/tmp/c.pid
  echo "$out" >/tmp/c.out
  case "$1" in -g) return 0 ;; esac
  wait_until "[ -e /tmp/c.ready ]" || die "collector not ready"
}
c_stop() {
  kill -TERM "$(cat /tmp/c.pid)"; wait "$(cat /tmp/c.pid)"
  echo "collector exit $?" >"$(cat /tmp/c.out).status"
}

tracepoints() { ls "$UE" 2>/dev/null | grep -v '^enable$\|^filter$' | sort; }
gone() { ! ls "$UE" 2>/dev/null | grep -q '^FrK'; }

cleanup_all() {
  for f in /tmp/p*.pid /tmp/c.pid; do [ -e "$f" ] && kill -9 "$(cat "$f")"; rm -f "$f"; done
  for e in "$UE"/*/enable; do echo 0 >"$e"; done
  wait_until gone
}

# ------------------------------------------------------------------ scenarios

t_registration() {
  p_start 1
  p_cmd 1 bits
  tracepoints >tracepoints.txt
  mkdir formats
  for t in $(tracepoints); do cat "$UE/$t/format" >"formats/$t"; done
  cat "$TRACING/user_events_status" >status.txt
  grep -h . "$TRACING/dynamic_events" >dynamic_events.txt 2>/dev/null
  p_quit 1
}

t_enable_bits() {
  p_start 1
  p_cmd 1 say step none
  p_cmd 1 bits
  echo 1 >"$UE/$L4K1/enable"
  p_cmd 1 waitbit Alpha
  p_cmd 1 say step ftrace $L4K1
  p_cmd 1 bits
  echo 0 >"$UE/$L4K1/enable"
  p_cmd 1 say step none-again
  p_cmd 1 bits
  echo 1 >"$UE/FrKgroup_L3K4Gg1/enable"
  p_cmd 1 waitbit Grouped
  p_cmd 1 say step ftrace FrKgroup_L3K4Gg1
  p_cmd 1 bits
  echo 0 >"$UE/FrKgroup_L3K4Gg1/enable"
  c_start delta.jsonl FrKtest_L2Kff
  p_cmd 1 waitbit Delta
  p_cmd 1 say step perf FrKtest_L2Kff
  p_cmd 1 bits
  p_cmd 1 others
  c_stop
  p_cmd 1 say step none-after-perf
  p_cmd 1 bits
  p_quit 1
}

t_collector_values() {
  p_start 1 FLIGHTREC_OPTIONS="start=1 events=FrKtest:* buffers=256 output=$PWD/trace.fr"
  c_start values.jsonl $L4K1
  p_cmd 1 waitbit Values
  p_cmd 1 pid
  p_cmd 1 values 300
  c_stop
  p_quit 1
}

t_collector_spans() {
  p_start 1
  c_start spans.jsonl $L4K1
  p_cmd 1 waitbit Outer
  p_cmd 1 pid
  p_cmd 1 spans 100
  c_stop
  p_quit 1
}

# perf record, system-wide, started with its events disabled (-D -1) and enabled through
# its control FIFO, which acknowledges once they are: no event of the program is lost.
perf_start() {
  mkfifo /tmp/perf.ctl /tmp/perf.ack
  perf record -q -a -D -1 --control fifo:/tmp/perf.ctl,/tmp/perf.ack -o "$1" -e "user_events:$2" \
    >perf.log 2>&1 &
  echo $! >/tmp/perf.pid
  exec 5>/tmp/perf.ctl 4</tmp/perf.ack
  echo enable >&5
  read -r ack <&4
  echo "perf ack: $ack" >>perf.log
}
perf_stop() {
  kill -INT "$(cat /tmp/perf.pid)"; wait "$(cat /tmp/perf.pid)"
  echo "perf exit $?" >>perf.log
  exec 5>&- 4<&-
  rm -f /tmp/perf.pid /tmp/perf.ctl /tmp/perf.ack
}

t_perf_record() {
  p_start 1
  perf_start perf.data $L4K1
  p_cmd 1 waitbit Alpha
  p_cmd 1 pid
  p_cmd 1 alpha 5000
  p_cmd 1 values 50
  p_cmd 1 spans 20
  perf_stop
  cat "$UE/$L4K1/id" >id.txt
  p_quit 1
}

# The README's workflow: perf record -e user_events:... -- PROGRAM. perf looks the name up
# when it starts, before PROGRAM registers anything: with no tracepoint of that name it
# refuses (absent.log); a tracepoint created beforehand through dynamic_events or held by
# another process running the program serves (perf_dyn.data, perf.data). The one made
# through dynamic_events stays after its users (after_dyn.txt) until deleted, by its name
# and fields (after_delete.txt; "!u:NAME" alone does not match it).
FORMAT="u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"
t_perf_record_cmd() {
  printf 'pid\nwaitbit Alpha\nalpha 1000\nquit\n' >cmds.txt
  perf record -q -o absent.data -e "user_events:$L4K1" -- ue_prog <cmds.txt >absent.out 2>absent.log
  echo "perf exit $?" >>absent.log
  echo "u:$L4K1 $FORMAT" >>"$TRACING/dynamic_events" || die "dynamic_events"
  perf record -q -o perf_dyn.data -e "user_events:$L4K1" -- ue_prog <cmds.txt >p_dyn.out 2>perf_dyn.log
  echo "perf exit $?" >>perf_dyn.log
  tracepoints >after_dyn.txt
  echo "!u:$L4K1 $FORMAT" >>"$TRACING/dynamic_events" || die "deleting the dynamic event"
  tracepoints >after_delete.txt
  p_start 1
  perf record -q -o perf.data -e "user_events:$L4K1" -- ue_prog <cmds.txt >p2.out 2>perf.log
  echo "perf exit $?" >>perf.log
  p_quit 1
}

t_no_syscall() {
  p_start 1
  p_cmd 1 say step disabled
  p_cmd 1 syscalls 100
  echo 1 >"$UE/$L4K1/enable"
  p_cmd 1 say step enabled
  p_cmd 1 syscalls 100 wait
  echo 0 >"$UE/$L4K1/enable"
  p_quit 1
}

t_fork() {
  p_start 1
  c_start fork.jsonl $L4K1
  p_cmd 1 waitbit Alpha
  p_cmd 1 pid
  p_cmd 1 alpha 5 0
  p_cmd 1 fork 10
  p_cmd 1 alpha 5 100
  c_stop
  p_quit 1
}

t_unregister() {
  p_start 1
  c_start unregister.jsonl $L4K1
  p_cmd 1 waitbit Alpha
  p_cmd 1 pid
  p_cmd 1 alpha 5 0
  p_cmd 1 unregister
  p_cmd 1 say step unregistered
  p_cmd 1 bits
  p_cmd 1 alpha 5 100
  tracepoints >while_unregistered.txt
  p_cmd 1 register
  p_cmd 1 waitbit Alpha
  p_cmd 1 say step registered
  p_cmd 1 bits
  p_cmd 1 alpha 5 200
  c_stop
  p_quit 1
}

t_exit() {
  p_start 1
  tracepoints >before.txt
  p_quit 1
  wait_until gone
  tracepoints >after.txt
}

# SIGKILL: first while a collector holds FrKtest_L4K1 open (the kernel keeps that one
# until the collector closes it), then alone.
t_sigkill() {
  p_start 1
  c_start held.jsonl $L4K1
  p_cmd 1 pid
  tracepoints >before.txt
  kill -9 "$(p_pid 1)"; wait "$(p_pid 1)"; echo "program 1 exit $?" >>p1.out
  sleep 1
  tracepoints >killed_held.txt
  c_stop
  wait_until gone
  tracepoints >released.txt
  rm -f /tmp/p1.pid
  p_start 2
  tracepoints >before2.txt
  kill -9 "$(p_pid 2)"; wait "$(p_pid 2)"; echo "program 2 exit $?" >>p2.out
  wait_until gone
  tracepoints >after2.txt
  rm -f /tmp/p2.pid
}

t_two_processes() {
  p_start 1
  p_start 2
  tracepoints >tracepoints.txt
  c_start two.jsonl $L4K1
  p_cmd 1 waitbit Alpha
  p_cmd 2 waitbit Alpha
  p_send 1 alpha 300 0
  p_send 2 alpha 300 0
  p_wait 1
  p_wait 2
  c_stop
  p_quit 1
  p_cmd 2 bits
  p_quit 2
}

t_enable_gap() {
  p_start 1
  c_start gap.jsonl -g 500 $L4K1
  p_cmd 1 waitbit Alpha
  p_cmd 1 slow 300 2
  wait_until "[ -e /tmp/c.ready ]" || die "collector not ready"
  c_stop
  p_quit 1
}

t_doctor() {
  flightrec doctor /bin/ue_prog >mounted.txt 2>&1; echo "exit $?" >>mounted.txt
  su -s /bin/sh -c "flightrec doctor /bin/ue_prog" user >nonroot.txt 2>&1
  echo "exit $?" >>nonroot.txt
  umount "$TRACING" || die "umount tracefs"
  flightrec doctor /bin/ue_prog >unmounted.txt 2>&1; echo "exit $?" >>unmounted.txt
  mount -t tracefs nodev "$TRACING"
}
