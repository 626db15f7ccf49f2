#!/bin/sh
# xray_modes_bench.sh FLIGHTREC_BIN COMPILER_RT_BIN [CALLS] [REPEATS]
# Each mode with 1 and 2 threads, both runtimes, best of REPEATS runs (default 5: the
# machine is shared); prints ns per call and compiler-rt / flightrec. Runs in a
# temporary directory (basic mode writes its log in the working directory).
set -eu
fr=$(readlink -f "$1") crt=$(readlink -f "$2") calls=${3:-5000000} reps=${4:-5}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
best() { # BIN MODE THREADS -> min ns/call over $reps runs
  b=""
  i=0
  while [ $i -lt "$reps" ]; do
    v=$(cd "$dir" && env -u FLIGHTREC_OPTIONS -u XRAY_OPTIONS -u XRAY_BASIC_OPTIONS \
        -u XRAY_PROFILING_OPTIONS "$1" "$2" "$3" "$calls" | awk '{print $3}')
    b=$(awk -v a="$b" -v v="$v" 'BEGIN { print (a == "" || v < a) ? v : a }')
    i=$((i + 1))
  done
  echo "$b"
}
echo "xray modes benchmark: tiny function, $calls calls per thread, best of $reps runs"
printf '%-40s %12s %12s\n' "variant (ns per call)" "1 thread" "2 threads"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
for m in xray-basic xray-profiling; do
  f1=$(best "$fr" $m 1); f2=$(best "$fr" $m 2)
  c1=$(best "$crt" $m 1); c2=$(best "$crt" $m 2)
  printf '%-40s %12s %12s\n' "flightrec $m" "$f1" "$f2"
  printf '%-40s %12s %12s\n' "compiler-rt $m" "$c1" "$c2"
  printf '%-40s %12s %12s\n' "  compiler-rt / flightrec" "$(ratio "$c1" "$f1")" "$(ratio "$c2" "$f2")"
done
