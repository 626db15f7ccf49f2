#!/bin/sh
# functrace_bench.sh FLIGHTREC_BIN COMPILER_RT_BIN PLAIN_BIN [CALLS] [REPEATS]
# Runs every variant with 1 and 2 threads (best of REPEATS runs, default 5: the machine
# is shared), prints ns per call and the ratios against the targets:
#   compiler-rt FDR / flightrec       >= 6     same pool, big enough for the whole run
#   flightrec ring / baseline         <= 1.3   baseline: two rdtsc + two 8-byte stores
#                                              into a cache-resident ring; flightrec with
#                                              a small pool reused in a circle
#   unpatched sleds / uninstrumented  <= 1.05
# and, for the same-pool run, the baseline's stores going to fresh memory as the
# recorder's do (on this VM the first write to a pre-faulted page is slow).
set -eu
fr=$1 crt=$2 plain=$3 calls=${4:-10000000} reps=${5:-5}
best() { # BIN VARIANT THREADS -> min ns/call over $reps runs
  b=""
  i=0
  while [ $i -lt "$reps" ]; do
    v=$(env -u FLIGHTREC_OPTIONS -u XRAY_OPTIONS "$1" "$2" "$3" "$calls" | awk '{print $3}')
    b=$(awk -v a="$b" -v v="$v" 'BEGIN { print (a == "" || v < a) ? v : a }')
    i=$((i + 1))
  done
  echo "$b"
}
echo "functrace benchmark: tiny function, $calls calls per thread, best of $reps runs"
printf '%-34s %12s %12s\n' "variant (ns per call)" "1 thread" "2 threads"
for t in 1 2; do
  eval "fr_$t=$(best "$fr" patched $t)"
  eval "ring_$t=$(best "$fr" ring $t)"
  eval "crt_$t=$(best "$crt" patched $t)"
  eval "crtcold_$t=$(best "$crt" patched-cold $t)"
  eval "base_$t=$(best "$plain" baseline $t)"
  eval "fresh_$t=$(best "$plain" baseline-fresh $t)"
  eval "unp_$t=$(best "$fr" unpatched $t)"
  eval "plain_$t=$(best "$plain" plain $t)"
done
row() { printf '%-34s %12s %12s\n' "$1" "$2" "$3"; }
row "flightrec (sleds patched)" "$fr_1" "$fr_2"
row "compiler-rt XRay FDR (same pool)" "$crt_1" "$crt_2"
row "compiler-rt, buffers not prefaulted" "$crtcold_1" "$crtcold_2"
row "flightrec, small ring pool" "$ring_1" "$ring_2"
row "baseline: 2 rdtsc + 2 stores" "$base_1" "$base_2"
row "baseline into fresh memory" "$fresh_1" "$fresh_2"
row "flightrec, sleds unpatched" "$unp_1" "$unp_2"
row "uninstrumented" "$plain_1" "$plain_2"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "ratios:"
row "compiler-rt / flightrec (>= 6)" "$(ratio "$crt_1" "$fr_1")" "$(ratio "$crt_2" "$fr_2")"
row "flightrec ring / baseline (<= 1.3)" "$(ratio "$ring_1" "$base_1")" "$(ratio "$ring_2" "$base_2")"
row "flightrec / baseline, fresh memory" "$(ratio "$fr_1" "$fresh_1")" "$(ratio "$fr_2" "$fresh_2")"
row "unpatched / uninstrumented (<= 1.05)" "$(ratio "$unp_1" "$plain_1")" "$(ratio "$unp_2" "$plain_2")"
