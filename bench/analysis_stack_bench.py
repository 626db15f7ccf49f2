#!/usr/bin/env python3
"""analysis_stack_bench.py - `flightrec stack` and `convert -f svg|folded` on a trace where
most stacks are distinct, against `llvm-xray stack`, in one run.
The trace: bench/analysis_gen.c with variety 3, RECORDS function records (20 M by
default), 4 threads: millions of distinct stacks. ROUNDS rounds (3 by default), each
running every command once in turn; each keeps its minimum CPU time (user + sys: every
command is single-threaded); peak RSS from one more run of each of ours (GNU time).
Targets (issue 23): `stack --top 10` <= 64 MB and >= 20x less CPU than llvm-xray stack;
`stack` with no options not slower than `--top 1000` (within 5%: the same work); every
command within 64 MB (`stack --top 1000`, `stack` and `convert -f folded|svg` keep every
stack: their trees are spilled to temporary files, src/analysis/stack_spill.c); each one's
CPU against llvm-xray's is printed beside.
usage: analysis_stack_bench.py FLIGHTREC ANALYSIS_GEN LLVM_XRAY WORKDIR [RECORDS [ROUNDS]]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_measure import peak_rss_mb, rounds, show, verdict   # noqa: E402
from bench_measure import trace as bench_trace   # noqa: E402

flightrec, gen, llvm_xray, work = sys.argv[1:5]
records = sys.argv[5] if len(sys.argv) > 5 else "20000000"
n = int(sys.argv[6]) if len(sys.argv) > 6 else 3
trace, mapf = bench_trace(gen, work, "distinct", records, "4", "3")
print("trace: %s (%.1f MB, %s function records, 4 threads); load %s on %d CPUs"
      % (trace, os.path.getsize(trace) / 1e6, records, open("/proc/loadavg").read().split()[0], os.cpu_count()))
ours = {"stack --top 10": [flightrec, "stack", trace, "--top", "10"],
        "stack --top 1000": [flightrec, "stack", trace, "--top", "1000"],
        "stack": [flightrec, "stack", trace],
        "convert -f svg": [flightrec, "convert", trace, "-f", "svg", "-o", os.path.join(work, "out.svg")],
        "convert -f folded": [flightrec, "convert", trace, "-f", "folded", "-o", os.path.join(work, "out.folded")]}
cmds = dict(ours, **{"llvm-xray stack": [llvm_xray, "stack", "-instr_map=" + mapf, trace]})
runs = rounds(cmds, n, work)
print("CPU time (user + sys), %d interleaved rounds:" % n)
show(runs)
rss = {k: peak_rss_mb(cmd, work) for k, cmd in ours.items()}
for k, v in rss.items():
    print("  %-34s peak RSS %8.1f MB" % (k, v))
cpu = {k: min(v) for k, v in runs.items()}
top10, xr = cpu["stack --top 10"], cpu["llvm-xray stack"]
verdict("stack --top 10 peak RSS", "%.1f MB" % rss["stack --top 10"], "<= 64 MB", rss["stack --top 10"] <= 64)
verdict("llvm-xray stack / stack --top 10 (cpu)", "%.1fx" % (xr / top10), ">= 20x", xr / top10 >= 20)
r = cpu["stack"] / cpu["stack --top 1000"]
verdict("stack (no options) / stack --top 1000 (cpu)", "%.2fx" % r, "<= 1.05x", r <= 1.05)
for k in ("stack --top 1000", "stack", "convert -f svg", "convert -f folded"):
    verdict("%s peak RSS" % k, "%.1f MB" % rss[k], "<= 64 MB", rss[k] <= 64)
for k in ("stack --top 1000", "stack", "convert -f svg", "convert -f folded"):
    print("%s: %.1fx less CPU than llvm-xray stack" % (k, xr / cpu[k]))
