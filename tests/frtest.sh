# frtest.sh - what the shell tests share, sourced at their start:
#     . "$(dirname "$0")/frtest.sh"
# (the Python tests' counterpart is frtest.py).
#   fail MSG...                  a failed check: prints "FAIL: MSG" and the test goes on
#                                (every failure of one run shown); the test's status is 1
#   expect_rc WANT WHAT CMD...   runs CMD, its stdout in out.txt and stderr in err.txt (in
#                                the current folder); a failed check unless it exits WANT
#   record_both FR BIN OUT CHECK
#                                runs ./BIN plainly, then under FR record -o t.fr, without
#                                and with --libcalls: each must exit 0 and print OUT; after
#                                each record, CHECK WHAT checks t.fr (WHAT names the run)
#   elf_cpu FILE                 the CPU a program is built for, from its ELF header:
#                                x86_64, aarch64, or e_machine's number
#   emulated FILE                true when FILE is built for another CPU than this
#                                machine's: it runs under an emulator (qemu-user, the
#                                cross build's tests), and a test leaves out, saying so,
#                                what the emulator cannot do
#   finish OK_TEXT               the end of a test: prints OK_TEXT if nothing failed, and
#                                exits with the status (0, or 1 after a failed check)
#   wait_in_open PID             waits (at most 10 s) until PID, a reader started in the
#                                background on a FIFO, is blocked in its open(): the
#                                runtime opens a FIFO output O_NONBLOCK (no reader: ENXIO,
#                                never a hang), so a reader not yet in open() under load
#                                would leave the program readerless and itself blocked
status=0
fail() { echo "FAIL: $*"; status=1; }
expect_rc() {
  local want=$1 what=$2; shift 2
  "$@" >out.txt 2>err.txt; local rc=$?
  [ "$rc" = "$want" ] || fail "$what: exit $rc, want $want ($(head -c 300 err.txt))"
}
wait_in_open() {
  local i
  for i in $(seq 1000); do
    case "$(cat "/proc/$1/syscall" 2>/dev/null)" in 257\ *|2\ *) return 0 ;; esac  # openat, open
    sleep 0.01
  done
  echo "note: reader $1 not seen in open() after 10 s"
}
record_both() {
  local fr=$1 bin=$2 want=$3 check=$4 out rc args
  out=$("./$bin" 2>err.txt); rc=$?
  [ "$rc" = 0 ] && [ "$out" = "$want" ] ||
    fail "$bin untraced: exit $rc, output '$out' $(head -c 300 err.txt)"
  for args in "" "--libcalls"; do
    rm -f t.fr*
    # shellcheck disable=SC2086
    "$fr" record -o t.fr $args -- "./$bin" >out.txt 2>err.txt ||
      { fail "$bin record $args: $(head -c 300 err.txt)"; continue; }
    [ "$(cat out.txt)" = "$want" ] || fail "$bin record $args: output '$(cat out.txt)'"
    "$check" "$bin record $args"
  done
}
elf_cpu() {
  local m; m=$(od -An -tu2 -j18 -N2 "$1" 2>/dev/null | tr -d ' ')
  case "$m" in 62) echo x86_64 ;; 183) echo aarch64 ;; *) echo "${m:-unknown}" ;; esac
}
emulated() { [ "$(elf_cpu "$1")" != "$(uname -m)" ]; }
finish() {
  [ $status = 0 ] && echo "$*"
  exit $status
}
