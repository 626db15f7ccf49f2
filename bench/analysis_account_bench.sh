#!/bin/sh
# analysis_account_bench.sh FLIGHTREC ANALYSIS_GEN LLVM_XRAY WORKDIR [RECORDS]
# `flightrec account` against `llvm-xray account` on the same synthetic trace (20 M
# function records by default), in the same run: wall time and peak RSS of each, and
# the ratios. Targets (issue 4): >= 100x faster, flightrec's peak RSS under 64 MB.
set -eu
flightrec=$1 gen=$2 xray=$3 dir=$4 records=${5:-20000000}
mkdir -p "$dir"
trace=$dir/bench-$records.xray map=$dir/bench-$records-map.yaml
if [ ! -s "$trace" ] || [ ! -s "$map" ]; then
    # one thread: llvm-xray account takes threads in hash order and rejects records older
    # than one it has seen, so several threads make it fail
    "$gen" "$trace" "$map" "$records" 1
fi
echo "trace: $trace ($(stat -c %s "$trace") bytes, $records function records)"
cat "$trace" >/dev/null   # both runs start from the page cache

# measure NAME CMD...: runs CMD under /usr/bin/time, sets NAME_wall (s) and NAME_rss (KiB)
measure() {
    name=$1; shift
    /usr/bin/time -f '%e %M' -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" || {
        echo "$name failed:"; tail -5 "$dir/$name.err"; exit 1; }
    read -r wall rss <"$dir/$name.time"
    eval "${name}_wall=$wall ${name}_rss=$rss"
    printf '%-10s wall %8.3f s   peak RSS %9.1f MB\n' "$name" "$wall" "$(awk "BEGIN{print $rss/1024}")"
}
measure flightrec "$flightrec" account "$trace"
measure llvmxray "$xray" account -m "$map" "$trace"
echo "flightrec account output (head):"; head -5 "$dir/flightrec.out"
echo "llvm-xray account output (head):"; head -5 "$dir/llvmxray.out"
python3 - "$flightrec_wall" "$llvmxray_wall" "$flightrec_rss" "$llvmxray_rss" <<'PY'
import sys
fw, lw, fr, lr = map(float, sys.argv[1:])
fw = max(fw, 0.01)   # /usr/bin/time has 10 ms resolution
print(f"speed ratio (llvm-xray / flightrec wall): {lw / fw:.1f}x   (target >= 100x)")
print(f"memory ratio (llvm-xray / flightrec peak RSS): {lr / fr:.1f}x; flightrec peak RSS "
      f"{fr / 1024:.1f} MB (target < 64 MB)")
PY
