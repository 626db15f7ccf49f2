#!/usr/bin/env python3
"""convert_bench.py - the converters and account against their llvm-xray equivalents and
against a plain read of the same trace, in one run, best of 3 interleaved rounds on both
sides: wall time,
CPU time (user + sys), peak RSS and ratios.
  flightrec convert --format chrome    vs  llvm-xray convert --output-format=trace_event
  flightrec convert --format perfetto  (records per CPU second; target >= 40 M/s)
  flightrec account                    (llvm-xray account rejects this trace's typed events;
                                        bench_analysis_account compares them on another)
  convert_readsum (batched read, sum of the records: the floor)
Outputs go to files in WORKDIR (as a user would write them).
usage: convert_bench.py FLIGHTREC GENERATOR LLVM_XRAY READSUM WORKDIR [RECORDS]
"""
import os
import subprocess
import sys
import time

flightrec, generator, llvm_xray, readsum, work = sys.argv[1:6]
records = int(sys.argv[6]) if len(sys.argv) > 6 else 3000000
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "bench.fr")
subprocess.run([generator, trace, str(records)], check=True)
subprocess.run(["cat", trace], stdout=subprocess.DEVNULL, check=True)   # page cache


def one_run(cmd):
    """wall and CPU (user + sys) of one run, from the kernel's rusage of the child
    (microseconds: GNU time's %U %S have 10 ms steps, as coarse as the whole read-and-sum
    run of the default trace, whose ratios were therefore not measured)"""
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = p.stderr.read()
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    if status != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err.decode()[-2000:]))
    return wall, ru.ru_utime + ru.ru_stime


def peak_rss(cmd):
    """peak RSS (KiB) of one more run, through GNU time (the rusage of a child forked from
    this Python process starts at Python's own RSS)"""
    tf = os.path.join(work, "time")
    subprocess.run(["/usr/bin/time", "-f", "%M", "-o", tf, *cmd], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return int(open(tf).read().split()[-1])


out = lambda name: os.path.join(work, name)   # noqa: E731
runs = [
    ("read-and-sum (convert_readsum)", [readsum, trace]),
    ("flightrec convert --format chrome", [flightrec, "convert", trace, "-f", "chrome", "-o", out("ours.json")]),
    ("llvm-xray convert --output-format=trace_event",
     [llvm_xray, "convert", "--output-format=trace_event", trace, "-o", out("llvm.json")]),
    ("flightrec convert --format perfetto", [flightrec, "convert", trace, "-f", "perfetto", "-o", out("ours.pftrace")]),
    ("flightrec account", [flightrec, "account", trace]),
]
# Like for like: 3 rounds, each running every command once (interleaved, so a slow moment
# of a shared machine hits all of them); each keeps its best wall and CPU time; peak RSS
# from one more run each.
all_runs = {name: [] for name, _ in runs}
for _ in range(3):
    for name, cmd in runs:
        all_runs[name].append(one_run(cmd))
rss = {name: peak_rss(cmd) for name, cmd in runs}
res = {name: (min(r[0] for r in v), min(r[1] for r in v), rss[name])
       for name, v in all_runs.items()}
print("trace: %d records, %.1f MB; load %s" % (records, os.path.getsize(trace) / 1e6,
                                               open("/proc/loadavg").read().split()[0]))
print("%-48s %8s %9s %9s" % ("best of 3", "wall s", "cpu s", "peak MB"))
for name, _ in runs:
    w, c, m = res[name]
    print("%-48s %8.3f %9.4f %9.1f" % (name, w, c, m / 1024))
R = lambda a, b, i: res[a][i] / max(res[b][i], 1e-6)   # noqa: E731
rs = "read-and-sum (convert_readsum)"
print("chrome:   llvm-xray / flightrec  wall %.1fx  cpu %.1fx;  flightrec / read-and-sum cpu %.1fx"
      % (R("llvm-xray convert --output-format=trace_event", "flightrec convert --format chrome", 0),
         R("llvm-xray convert --output-format=trace_event", "flightrec convert --format chrome", 1),
         R("flightrec convert --format chrome", rs, 1)))
print("perfetto: %.1f M records per CPU second (target >= 40);  flightrec / read-and-sum cpu %.1fx;"
      "  output %.1f MB (chrome %.1f MB)"
      % (records / max(res["flightrec convert --format perfetto"][1], 1e-6) / 1e6,
         R("flightrec convert --format perfetto", rs, 1), os.path.getsize(out("ours.pftrace")) / 1e6,
         os.path.getsize(out("ours.json")) / 1e6))
print("account:  flightrec / read-and-sum cpu %.1fx (target <= 3x; against llvm-xray account, which"
      " rejects this trace's typed events: bench_analysis_account)" % R("flightrec account", rs, 1))
