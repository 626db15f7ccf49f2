#!/usr/bin/env bash
# functrace_libcalls.sh - `record --libcalls` (issue 24 item 3): calls through the PLT of
# instrumented objects are recorded with the library function's name, in gcc
# -finstrument-functions and clang XRay builds, with lazy and immediate binding (-z now),
# across threads, fork, a longjmp out of a library call's callback, C++ exceptions
# thrown through library calls, and a library loaded by dlopen. Before, --libcalls did
# not exist (and a trace showed no library call at all).
# usage: functrace_libcalls.sh FLIGHTREC SOURCE_DIR WORKDIR CLANG CLANGXX
# A cross build (aarch64_libcalls, tests/aarch64.cmake) sets, in the environment, GCC and
# GXX (the cross gcc and g++; default gcc, g++), CLANG_FLAGS (clang's target and linker)
# and XRAY_LINK (-fnoxray-link-deps where there is no compiler-rt XRay runtime);
# FLIGHTREC is then the cross build's command, run as a program of this host.
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 src=$2 work=$3 clang=$4 clangxx=$5
gcc=${GCC:-gcc} gxx=${GXX:-g++}
read -r -a cflags <<<"${CLANG_FLAGS:-} ${XRAY_LINK:-}"
if ! "$fr" --version >/dev/null 2>&1; then
  echo "SKIP: $fr does not run here (an aarch64 command needs execve of aarch64 programs: scripts/aarch64-binfmt.sh)"
  exit 77
fi
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
p=$src/tests/progs
"$gcc" -O1 -finstrument-functions -pthread "$p/functrace_libcalls_prog.c" -o gcc_lazy &&
"$gcc" -O1 -finstrument-functions -pthread -Wl,-z,now "$p/functrace_libcalls_prog.c" -o gcc_now &&
"$clang" "${cflags[@]}" -O1 -fxray-instrument -fxray-instruction-threshold=1 -pthread \
    "$p/functrace_libcalls_prog.c" -o clang_lazy &&
"$clang" "${cflags[@]}" -O1 -fxray-instrument -fxray-instruction-threshold=1 -pthread -Wl,-z,now \
    "$p/functrace_libcalls_prog.c" -o clang_now &&
"$gxx" -O1 -finstrument-functions "$p/functrace_libcalls_exc.cpp" -o gcc_exc &&
"$clangxx" "${cflags[@]}" -O1 -fxray-instrument -fxray-instruction-threshold=1 \
    "$p/functrace_libcalls_exc.cpp" -o clang_exc || exit 1

# calls NAME TRACE: the calls account gives NAME (0 if absent).
calls() { "$fr" account "$2" 2>/dev/null | awk -v f="$1" '$NF == f { n = $1 } END { print n + 0 }'; }

for b in gcc_lazy gcc_now clang_lazy clang_now; do
  rm -f "$b.fr"*
  if ! "$fr" record -o "$b.fr" --libcalls -- "./$b" >out.txt 2>err.txt; then
    fail "$b: record failed: $(head -c 300 err.txt)"; continue
  fi
  grep -q '^libcalls 0$' out.txt || fail "$b: the program did not finish right: $(cat out.txt)"
  grep -q '^args ok$' out.txt || fail "$b: arguments or results through the stubs wrong: $(cat out.txt)"
  for want in "malloc 1000" "free 1000" "get 1000" "getpid 5" "getppid 200" "qsort 1" \
              "pthread_create 2" "waitpid 1" "fork 1" "getuid 0" "snprintf 1" "lldiv 1" \
              "strtod 1"; do
    n=$(calls "${want% *}" "$b.fr")
    [ "$n" = "${want#* }" ] || fail "$b: ${want% *} called $n times, want ${want#* }"
  done
  # the child's own trace: its getuid calls
  child=$(ls "$b.fr".[0-9]* 2>/dev/null | head -1)
  [ -n "$child" ] && n=$(calls getuid "$child") || n=none
  [ "$n" = 10 ] || fail "$b: the forked child's trace has getuid $n times, want 10"
  # the longjmp closed qsort: getpid is called from main, not under qsort; nothing is
  # left open or unmatched
  "$fr" replay "$b.fr" >replay.txt 2>replay.err
  n=$(grep -c '\] |   getpid();' replay.txt)
  [ "$n" = 5 ] || fail "$b: $n getpid calls right under main in replay, want 5 ($(grep getpid replay.txt | head -2))"
  "$fr" account "$b.fr" >/dev/null 2>acc.err
  grep -q 'unmatched: [1-9]\|[1-9][0-9]* calls\? open at the end' acc.err &&
    fail "$b: $(cat acc.err)"
done

# C++ exceptions through library calls: the program runs as without tracing, every call
# closes where it should.
for b in gcc_exc clang_exc; do
  if ! "$fr" record -o "$b.fr" --libcalls -- "./$b" >out.txt 2>err.txt; then
    fail "$b: record failed: $(head -c 300 err.txt)"; continue
  fi
  grep -q '^caught 4 1$' out.txt || fail "$b: output '$(cat out.txt)', want 'caught 4 1'"
  for want in "big() 3" "qsort 1" "getpid 7"; do
    n=$("$fr" account "$b.fr" 2>/dev/null | awk -v f="${want% *}" 'substr($0, length($0) - length(f) + 1) == f { n = $1 } END { print n + 0 }')
    [ "$n" = "${want##* }" ] || fail "$b: ${want% *} called $n times, want ${want##* }"
  done
  n=$(calls "operator" "$b.fr")   # 'operator new(unsigned long)': last field is 'long)'
  "$fr" account "$b.fr" 2>/dev/null | grep -q '^ *3 .*operator new(unsigned long)$' ||
    fail "$b: operator new not called 3 times"
  "$fr" account "$b.fr" >/dev/null 2>acc.err
  grep -q 'unmatched: [1-9]' acc.err && fail "$b: $(cat acc.err)"
done

# A gcc-instrumented library loaded by dlopen: its PLT is hooked after the dlopen.
"$gcc" -O1 -fPIC -shared -finstrument-functions "$p/functrace_filter_plugin.c" -o libplugin.so &&
  "$gcc" -O1 -finstrument-functions "$p/functrace_filter_host.c" -o host -ldl || exit 1
"$fr" record -o dl.fr --libcalls -- ./host "$PWD/libplugin.so" >out.txt 2>err.txt ||
  fail "dlopen: record failed: $(head -c 300 err.txt)"
for want in "getpgrp 1" "dlsym 1" "plug_leaf 50"; do
  n=$(calls "${want% *}" dl.fr)
  [ "$n" = "${want#* }" ] || fail "dlopen: ${want% *} called $n times, want ${want#* }"
done
# --filter applies to library functions too: only malloc among them
"$fr" record -o f.fr --libcalls --filter 'malloc:main' -- ./gcc_lazy >/dev/null 2>&1
got=$("$fr" account f.fr 2>/dev/null | awk 'NR > 1 { print $1, $NF }' | sort -k2 | tr '\n' ' ')
[ "$got" = "1 main 1000 malloc " ] || fail "--libcalls --filter malloc:main: got '$got'"
# A static program has no PLT: --libcalls says it records nothing (never silently).
printf '#include <stdio.h>\nint main(void) { puts("static"); return 0; }\n' >static_prog.c
if "$gcc" -static -O1 -finstrument-functions static_prog.c -o static_prog \
     "$(dirname "$fr")/libflightrec.a" -Wl,--undefined=fr_functrace_anchor 2>/dev/null; then
  "$fr" record -o st.fr --libcalls -- ./static_prog >out.txt 2>err.txt
  grep -q 'no library call will be recorded' err.txt ||
    fail "static program: --libcalls said nothing: $(head -c 300 err.txt)"
else
  echo "note: no static libc: the static --libcalls case not run"
fi
finish "PASS"
