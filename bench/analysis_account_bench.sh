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
# Times come from the kernel's rusage of each run (microseconds: GNU time's %U %S have
# 10 ms steps, a sixth of the read-and-sum run); flightrec's and read-and-sum's peak RSS
# from one more run each through GNU time (a child forked from Python starts at Python's
# RSS, ~10 MB), llvm-xray's from its runs (gigabytes: Python's share is nothing).
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

# run NAME CMD...: one run; appends "wall cpu rss_kib" to $dir/NAME.runs (rss: see above)
run() {
    name=$1; shift
    python3 - "$dir/$name" "$@" <<'PY' || { echo "$name failed:"; tail -5 "$dir/$name.err"; exit 1; }
import os, sys, time
base, cmd = sys.argv[1], sys.argv[2:]
with open(base + ".out", "wb") as out, open(base + ".err", "wb") as err:
    start = time.monotonic()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=[
        (os.POSIX_SPAWN_DUP2, out.fileno(), 1), (os.POSIX_SPAWN_DUP2, err.fileno(), 2)])
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - start
with open(base + ".runs", "a") as f:
    f.write(f"{wall:.4f} {ru.ru_utime + ru.ru_stime:.4f} {ru.ru_maxrss}\n")
sys.exit(0 if os.waitstatus_to_exitcode(status) == 0 else 1)
PY
}
# peak NAME CMD...: peak RSS (KiB) of one more run, through GNU time, into $dir/NAME.rss
peak() {
    name=$1; shift
    /usr/bin/time -f '%M' -o "$dir/$name.rss" "$@" >/dev/null 2>&1 || { echo "$name failed"; exit 1; }
}
rm -f "$dir/flightrec.runs" "$dir/llvmxray.runs" "$dir/readsum.runs" "$dir/flightrec.rss" "$dir/readsum.rss"
for i in 1 2 3; do
    run flightrec "$flightrec" account "$trace"
    run llvmxray "$xray" account -m "$map" "$trace"
    [ -z "$readsum" ] || run readsum "$readsum" "$trace"
done
peak flightrec "$flightrec" account "$trace"
[ -z "$readsum" ] || peak readsum "$readsum" "$trace"
echo "flightrec account output (head):"; head -4 "$dir/flightrec.out"
echo "llvm-xray account output (head):"; head -4 "$dir/llvmxray.out"
python3 - "$dir/flightrec.runs" "$dir/llvmxray.runs" "$dir/readsum.runs" <<'PY'
import os, sys
def runs(p):
    return [tuple(map(float, l.split())) for l in open(p)]
f, x = runs(sys.argv[1]), runs(sys.argv[2])
fw = min(r[0] for r in f)
fc = min(r[1] for r in f)
fr = int(open(sys.argv[1][:-len(".runs")] + ".rss").read().split()[-1])
xw = min(r[0] for r in x)
xc = min(r[1] for r in x)
xr = max(r[2] for r in x)
print(f"flightrec  wall {fw:8.3f} s  cpu {fc:8.3f} s  peak RSS {fr / 1024:8.1f} MB  (best of {len(f)}; cpu: "
      + ", ".join(f"{r[1]:.3f}s" for r in f) + ")")
print(f"llvm-xray  wall {xw:8.3f} s  cpu {xc:8.3f} s  peak RSS {xr / 1024:8.1f} MB  (best of {len(x)}; cpu: "
      + ", ".join(f"{r[1]:.3f}s" for r in x) + ")")
print(f"speed ratio, wall: {xw / fw:.1f}x   cpu: {xc / fc:.1f}x   (targets: >= 100x; cpu >= 150x)")
print(f"memory ratio: {xr / fr:.1f}x; flightrec peak RSS {fr / 1024:.1f} MB (target < 64 MB)")
if os.path.exists(sys.argv[3]):
    r = runs(sys.argv[3])
    rc = min(v[1] for v in r)
    rr = int(open(sys.argv[3][:-len(".runs")] + ".rss").read().split()[-1])
    print(f"read-and-sum cpu {rc:.3f} s (best of {len(r)}; cpu: " + ", ".join(f"{v[1]:.3f}s" for v in r)
          + f"; peak RSS {rr / 1024:.1f} MB): account / read-and-sum cpu {fc / rc:.2f}x"
          f" (target <= 3x); llvm-xray / read-and-sum cpu {xc / rc:.0f}x (the ratio account"
          f" would have if it cost no more than reading the file)")
PY
