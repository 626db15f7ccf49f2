#!/bin/sh
# xray_modes_bench.sh FLIGHTREC_BIN COMPILER_RT_BIN [CALLS] [REPEATS]
# Each mode with 1 and 2 threads, both runtimes (two processes: one cannot hold both),
# the runs interleaved round by round, REPEATS rounds (default 5: the machine is shared),
# the best of each kept; each run times its threads' CPU (CLOCK_THREAD_CPUTIME_ID).
# Prints ns per call and compiler-rt / flightrec against its target, >= 1 (flightrec's
# mode no slower than compiler-rt's), MET or MISSED. Runs in a temporary directory
# (basic mode writes its log in the working directory).
set -eu
. "$(dirname "$0")/bench_lib.sh"
fr=$(readlink -f "$1") crt=$(readlink -f "$2") calls=${3:-5000000} reps=${4:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
run() { # NAME BIN MODE THREADS: one run; the min so far kept in $dir/NAME.MODE.THREADS
  v=$(cd "$dir" && env -u FLIGHTREC_OPTIONS -u XRAY_OPTIONS -u XRAY_BASIC_OPTIONS \
      -u XRAY_PROFILING_OPTIONS "$2" "$3" "$4" "$calls" | awk '{print $3}')
  keep_min "$dir/$1.$3.$4" "$v"
}
echo "xray modes benchmark: tiny function, $calls calls per thread, best of $reps interleaved rounds"
i=0
while [ $i -lt "$reps" ]; do
  for m in xray-basic xray-profiling; do
    for t in 1 2; do
      run fr "$fr" $m $t
      run crt "$crt" $m $t
    done
  done
  i=$((i + 1))
done
printf '%-40s %12s %12s\n' "variant (ns per call)" "1 thread" "2 threads"
for m in xray-basic xray-profiling; do
  printf '%-40s %12s %12s\n' "flightrec $m" "$(cat "$dir/fr.$m.1")" "$(cat "$dir/fr.$m.2")"
  printf '%-40s %12s %12s\n' "compiler-rt $m" "$(cat "$dir/crt.$m.1")" "$(cat "$dir/crt.$m.2")"
done
echo "ratios:"
for m in xray-basic xray-profiling; do
  for t in 1 2; do
    awk -v w="compiler-rt / flightrec, $m, $t thread(s)" -v c="$(cat "$dir/crt.$m.$t")" \
        -v f="$(cat "$dir/fr.$m.$t")" 'BEGIN { r = c / f
      printf "  %-50s %6.2f (target >= 1) %s\n", w, r, (r >= 1) ? "MET" : "MISSED" }'
  done
done
