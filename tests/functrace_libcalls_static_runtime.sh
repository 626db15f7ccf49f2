#!/usr/bin/env bash
# functrace_libcalls_static_runtime.sh - `--libcalls` in a program linked with
# libflightrec.a: the runtime's own code is then in the executable and calls libc through
# the executable's PLT, the same entries the hooks redirect. FUNCTRACE.md promises that
# calls made by libflightrec are never recorded. Before the fix they were: the trace held
# the runtime's strcmp, dladdr and strncmp calls and extra malloc and free, it reported
# "records dropped ... nested in a signal handler" for runtime calls made inside a
# record, and the program hung after fork: the child recorded its own fork handler's
# libc calls into the pool it still shared with the parent (the backing file's
# mapping), so the parent spun forever in a queue whose cells another process had
# written.
# The trace of the same program with the runtime preloaded (libflightrec.so, whose calls
# go through its own PLT, never hooked) is the reference: the same library functions,
# each called as many times.
# usage: functrace_libcalls_static_runtime.sh FLIGHTREC SOURCE_DIR WORKDIR CC LIBFLIGHTREC_A
#        CC_KIND (gcc: -finstrument-functions; clang: XRay)
# A cross build (aarch64_libcalls_static_runtime) gives the cross gcc as CC, its
# libflightrec.a, and NM (the cross nm) in the environment; FLIGHTREC is then its
# command, run as a program of this host (see functrace_libcalls.sh).
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 src=$2 work=$3 cc=$4 lib=$5 kind=$6
nm=${NM:-nm}
if ! "$fr" --version >/dev/null 2>&1; then
  echo "SKIP: $fr does not run here (an aarch64 command needs execve of aarch64 programs: scripts/aarch64-binfmt.sh)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
prog=$src/tests/progs/functrace_libcalls_prog.c
case $kind in
  gcc)   instr=(-finstrument-functions) ;;
  clang) instr=(-fxray-instrument -fxray-instruction-threshold=1 -fnoxray-link-deps) ;;
  *)     echo "usage: CC_KIND is gcc or clang"; exit 2 ;;
esac
"$cc" -O1 "${instr[@]}" -pthread "$prog" -o static_rt "$lib" -ldl \
    -Wl,--undefined=fr_functrace_anchor -Wl,--undefined=fr_xray_anchor || exit 1
"$cc" -O1 "${instr[@]}" -pthread "$prog" -o preloaded || exit 1
"$nm" static_rt >static_rt.syms || exit 1
grep -q ' fr_libcall_enter$' static_rt.syms || { echo "the static runtime is not in static_rt"; exit 1; }

# library functions and their calls, one "name calls" a line, sorted: the functions the
# program defines are left out (the same in both builds)
"$nm" --defined-only preloaded | awk '$2 ~ /^[tT]$/ { print $3 }' | sort -u >own.txt
libcalls() {
  "$fr" account "$1" 2>/dev/null |
    awk 'NR == FNR { own[$1] = 1; next } FNR > 1 && !($NF in own) { print $NF, $1 }' own.txt - | sort
}

for b in static_rt preloaded; do
  rm -f "$b.fr"*
  # a hang is the failure seen before the fix: bounded
  timeout 120 "$fr" record -o "$b.fr" --libcalls -- "./$b" >out.txt 2>err.txt
  rc=$?
  [ "$rc" = 124 ] && { fail "$b: hung (killed after 120 s)"; continue; }
  [ "$rc" = 0 ] || { fail "$b: record exited $rc: $(head -c 300 err.txt)"; continue; }
  grep -q '^libcalls 0$' out.txt || fail "$b: the program did not finish right: $(cat out.txt)"
  grep -q 'dropped' err.txt && fail "$b: records dropped: $(grep dropped err.txt)"
  libcalls "$b.fr" >"$b.calls"
done
if [ -s static_rt.calls ] && [ -s preloaded.calls ]; then
  diff preloaded.calls static_rt.calls >calls.diff ||
    fail "library calls with the static runtime differ from the preloaded runtime's (< preloaded, > static): $(tr '\n' ' ' <calls.diff)"
  grep -q '^malloc 1000$' static_rt.calls || fail "static runtime: malloc not called 1000 times: $(grep malloc static_rt.calls)"
fi
# the forked child's trace: its 10 getuid, nothing of the runtime's
child=$(ls static_rt.fr.[0-9]* 2>/dev/null | head -1)
if [ -n "$child" ]; then
  got=$(libcalls "$child" | tr '\n' ' ')
  case $got in
    *"getuid 10 "*) ;;
    *) fail "static runtime: the child's trace has '$got', want getuid 10" ;;
  esac
  for f in strcmp strncmp dladdr open mmap pthread_atfork getpid; do
    case " $got" in *" $f "*) fail "static runtime: the child's trace records the runtime's $f: $got" ;; esac
  done
else
  fail "static runtime: no trace of the forked child"
fi
finish "library calls of a program with the static runtime: the program's own, none of the runtime's ($kind)"
