#!/usr/bin/env python3
"""analysis_account_bench.py - `flightrec account` against a plain read of the same file and
against `llvm-xray account`, in one run.
The trace: bench/analysis_gen.c, RECORDS function records (20 M by default), one thread
(llvm-xray account rejects a record older than one it has seen, and walks threads in hash
order). The floor: bench/analysis_readfloor.c, a pass over the file written from the
format alone (not flightrec's reader) that adds up every function record. llvm-xray is
given the instrumentation map (-m); every command reads the file single-threaded, from
the page cache. ROUNDS rounds (5 by default), each running the three once in turn; each
keeps its minimum CPU time (user + sys). Targets (issue 23): account <= 2x the floor,
>= 40x less CPU than llvm-xray, peak RSS < 64 MB.
usage: analysis_account_bench.py FLIGHTREC ANALYSIS_GEN READFLOOR LLVM_XRAY WORKDIR [RECORDS [ROUNDS]]
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_measure import peak_rss_mb, rounds, show, verdict   # noqa: E402
from bench_measure import trace as bench_trace   # noqa: E402

flightrec, gen, floor, llvm_xray, work = sys.argv[1:6]
records = sys.argv[6] if len(sys.argv) > 6 else "20000000"
n = int(sys.argv[7]) if len(sys.argv) > 7 else 5
trace, mapf = bench_trace(gen, work, "bench", records, "1")
print("trace: %s (%.1f MB, %s function records); load %s on %d CPUs"
      % (trace, os.path.getsize(trace) / 1e6, records, open("/proc/loadavg").read().split()[0], os.cpu_count()))
cmds = {"account": [flightrec, "account", trace],
        "floor": [floor, trace],
        "llvm-xray": [llvm_xray, "account", "-m", mapf, trace]}
runs = rounds(cmds, n, work)
print("CPU time (user + sys), %d interleaved rounds:" % n)
show(runs, {"account": "flightrec account", "floor": "plain read-and-sum (floor)",
            "llvm-xray": "llvm-xray account -m"})
acc, flo, xr = (min(runs[k]) for k in ("account", "floor", "llvm-xray"))
rss = peak_rss_mb(cmds["account"], work)
verdict("flightrec account / plain read pass (cpu)", "%.2fx" % (acc / flo), "<= 2x", acc / flo <= 2)
verdict("llvm-xray account / flightrec account (cpu)", "%.1fx" % (xr / acc), ">= 40x", xr / acc >= 40)
verdict("flightrec account peak RSS", "%.1f MB" % rss, "< 64 MB", rss < 64)
