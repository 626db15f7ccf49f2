#!/bin/sh
# analysis_account_bench.sh FLIGHTREC ANALYSIS_GEN LLVM_XRAY WORKDIR [RECORDS [READSUM]]
# `flightrec account` against `llvm-xray account` on the same synthetic trace (20 M
# function records by default), in the same run: wall time, CPU time (user+sys) and peak
# RSS of each, and the ratios. Like for like: the same file (one thread: see below), and
# llvm-xray given the instrumentation map (-m; flightrec takes the names from the trace);
# both read it single-threaded; each tool runs 3 times, interleaved (flightrec, llvm-xray,
# READSUM, flightrec, ...: a slow moment of a shared machine hits all), and each keeps its
# best wall and CPU time and its largest peak RSS. With READSUM (bench/convert_readsum:
# the same reader, summing the records), account's CPU time against that floor too.
# Targets: issue 4: >= 100x faster, flightrec's peak RSS under 64 MB; issue 12: >= 150x
# less CPU than llvm-xray, <= 3x the CPU of the read-and-sum pass.
set -eu
flightrec=$1 gen=$2 xray=$3 dir=$4 records=${5:-20000000} readsum=${6:-}
mkdir -p "$dir"
trace=$dir/bench-$records.xray map=$dir/bench-$records-map.yaml
if [ ! -s "$trace" ] || [ ! -s "$map" ]; then
    # one thread: llvm-xray account takes threads in hash order and rejects records older
    # than one it has seen, so several threads make it fail
    "$gen" "$trace" "$map" "$records" 1
fi
echo "trace: $trace ($(stat -c %s "$trace") bytes, $records function records)"
cat "$trace" >/dev/null   # both start from the page cache
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) CPUs"

# run NAME CMD...: one run under /usr/bin/time; appends "wall cpu rss_kib" to $dir/NAME.runs
run() {
    name=$1; shift
    /usr/bin/time -f '%e %U %S %M' -o "$dir/$name.time" "$@" >"$dir/$name.out" 2>"$dir/$name.err" || {
        echo "$name failed:"; tail -5 "$dir/$name.err"; exit 1; }
    awk '{ printf "%s %.2f %s\n", $1, $2 + $3, $4 }' "$dir/$name.time" >>"$dir/$name.runs"
}
rm -f "$dir/flightrec.runs" "$dir/llvmxray.runs" "$dir/readsum.runs"
for i in 1 2 3; do
    run flightrec "$flightrec" account "$trace"
    run llvmxray "$xray" account -m "$map" "$trace"
    [ -z "$readsum" ] || run readsum "$readsum" "$trace"
done
echo "flightrec account output (head):"; head -4 "$dir/flightrec.out"
echo "llvm-xray account output (head):"; head -4 "$dir/llvmxray.out"
python3 - "$dir/flightrec.runs" "$dir/llvmxray.runs" "$dir/readsum.runs" <<'PY'
import os, sys
def runs(p):
    return [tuple(map(float, l.split())) for l in open(p)]
f, x = runs(sys.argv[1]), runs(sys.argv[2])
fw = max(min(r[0] for r in f), 0.01)        # /usr/bin/time has 10 ms resolution
fc = max(min(r[1] for r in f), 0.01)
fr = max(r[2] for r in f)
xw = min(r[0] for r in x)
xc = min(r[1] for r in x)
xr = max(r[2] for r in x)
print(f"flightrec  wall {fw:8.2f} s  cpu {fc:8.2f} s  peak RSS {fr / 1024:8.1f} MB  (best of {len(f)}; all: "
      + ", ".join(f"{r[0]:.2f}s" for r in f) + ")")
print(f"llvm-xray  wall {xw:8.2f} s  cpu {xc:8.2f} s  peak RSS {xr / 1024:8.1f} MB  (best of {len(x)}; all: "
      + ", ".join(f"{r[0]:.2f}s" for r in x) + ")")
print(f"speed ratio, wall: {xw / fw:.1f}x   cpu: {xc / fc:.1f}x   (targets: >= 100x; cpu >= 150x)")
print(f"memory ratio: {xr / fr:.1f}x; flightrec peak RSS {fr / 1024:.1f} MB (target < 64 MB)")
if os.path.exists(sys.argv[3]):
    r = runs(sys.argv[3])
    rc = max(min(v[1] for v in r), 0.01)
    print(f"read-and-sum cpu {rc:.2f} s (best of {len(r)}): account / read-and-sum cpu {fc / rc:.1f}x"
          f" (target <= 3x); llvm-xray / read-and-sum cpu {xc / rc:.0f}x (the ratio account"
          f" would have if it cost no more than reading the file)")
PY
