#!/bin/sh
# functrace_bench.sh FLIGHTREC_BIN COMPILER_RT_BIN PLAIN_BIN [CALLS] [REPEATS]
# Every variant with 1 and 2 threads; the runs of all variants are interleaved, round by
# round, REPEATS rounds (default 5: the machine is shared), the best of each kept. Each
# run times its threads' CPU (CLOCK_THREAD_CPUTIME_ID). Prints ns per call, then each
# ratio against its target with MET or MISSED:
#   flightrec / floor              <= 1.25  in one process, loops alternated: the traced
#                                           call (small pool reused in a circle) against
#                                           the same function without sleds + 2 rdtsc +
#                                           two 16-byte stores into a per-thread ring
#   unpatched / uninstrumented     <= 1.05  in one process, loops alternated
#   compiler-rt FDR / flightrec    >= 6     two processes (one cannot hold both
#                                           runtimes), same pool, runs interleaved
# and, without a target, the same-pool run against 2 rdtsc + 2 stores into fresh memory.
set -eu
. "$(dirname "$0")/bench_lib.sh"
fr=$1 crt=$2 plain=$3 calls=${4:-10000000} reps=${5:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # NAME BIN VARIANT THREADS: one run; keeps the min of fields 3 (and 4) in $dir
  out=$(env -u FLIGHTREC_OPTIONS -u XRAY_OPTIONS "$2" "$3" "$4" "$calls")
  for f in 3 4; do
    v=$(echo "$out" | awk -v f=$f '{print $f}')
    [ -n "$v" ] || continue
    keep_min "$dir/$1.$4.$f" "$v"
  done
}
get() { cat "$dir/$1.$2.${3:-3}"; }
echo "functrace benchmark: tiny function, $calls calls per thread, best of $reps interleaved rounds"
i=0
while [ $i -lt "$reps" ]; do
  for t in 1 2; do
    run floor "$fr" floor $t
    run unp "$fr" unpatched $t
    run fr "$fr" patched $t
    run crt "$crt" patched $t
    run crtcold "$crt" patched-cold $t
    run fresh "$plain" baseline-fresh $t
  done
  i=$((i + 1))
done
row() { printf '%-46s %12s %12s\n' "$1" "$2" "$3"; }
row "variant (ns per call)" "1 thread" "2 threads"
row "flightrec, small pool in a circle" "$(get floor 1)" "$(get floor 2)"
row "  floor, same process: no sleds + 2x(rdtsc, 16B)" "$(get floor 1 4)" "$(get floor 2 4)"
row "flightrec, sleds unpatched" "$(get unp 1)" "$(get unp 2)"
row "  uninstrumented, same process" "$(get unp 1 4)" "$(get unp 2 4)"
row "flightrec (sleds patched, pool for the run)" "$(get fr 1)" "$(get fr 2)"
row "compiler-rt XRay FDR (same pool)" "$(get crt 1)" "$(get crt 2)"
row "compiler-rt, buffers not prefaulted" "$(get crtcold 1)" "$(get crtcold 2)"
row "2 rdtsc + 2 stores into fresh memory" "$(get fresh 1)" "$(get fresh 2)"
# verdict WHAT A B OP TARGET: the ratio A/B against the target, MET or MISSED
verdict() {
  awk -v w="$1" -v a="$2" -v b="$3" -v op="$4" -v t="$5" 'BEGIN {
    r = a / b; ok = (op == "<=") ? (r <= t) : (r >= t)
    printf "  %-44s %6.2f (target %s %s) %s\n", w, r, op, t, ok ? "MET" : "MISSED" }'
}
echo "ratios:"
for t in 1 2; do
  verdict "flightrec / floor, $t thread(s)" "$(get floor $t)" "$(get floor $t 4)" "<=" 1.25
  verdict "unpatched / uninstrumented, $t thread(s)" "$(get unp $t)" "$(get unp $t 4)" "<=" 1.05
  verdict "compiler-rt / flightrec, $t thread(s)" "$(get crt $t)" "$(get fr $t)" ">=" 6
  awk -v a="$(get fr $t)" -v b="$(get fresh $t)" -v t=$t 'BEGIN {
    printf "  %-44s %6.2f (no target)\n", "flightrec / fresh-memory stores, " t " thread(s)", a / b }'
done
