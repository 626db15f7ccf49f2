#!/usr/bin/env python3
"""analysis_stack_bench.py - `flightrec stack` against `llvm-xray stack` on a trace with
many distinct stacks (bench/analysis_gen.c with variety 1: 20 M function records,
4 threads, ~440,000 distinct stacks), in the same run, best of 3 interleaved rounds on both sides: wall
time, CPU time (user + sys) and peak RSS, and the ratios. `flightrec account` on the same
file is shown for scale. Targets (issue 12): stack >= 30x llvm-xray, <= 64 MB.
usage: analysis_stack_bench.py FLIGHTREC ANALYSIS_GEN LLVM_XRAY WORKDIR [RECORDS]
"""
import os
import subprocess
import sys
import time

flightrec, gen, llvm_xray, work = sys.argv[1:5]
records = sys.argv[5] if len(sys.argv) > 5 else "20000000"
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "stacks-%s.xray" % records)
mapf = os.path.join(work, "stacks-%s-map.yaml" % records)
if not (os.path.exists(trace) and os.path.exists(mapf)):
    subprocess.run([gen, trace, mapf, records, "4", "1"], check=True)
subprocess.run(["cat", trace], stdout=subprocess.DEVNULL, check=True)   # page cache


def run(cmd):
    start = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = p.communicate()
    wall = time.monotonic() - start
    if p.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(cmd), err.decode()[-2000:]))
    return wall, out.decode()


def one_run(cmd):
    """wall, CPU (user + sys), peak RSS (KiB), user and sys of one run, through GNU time"""
    tf = os.path.join(work, "time")
    wall, out = run(["/usr/bin/time", "-f", "%U %S %M", "-o", tf, *cmd])
    u, s, m = open(tf).read().split()[-3:]
    return wall, float(u) + float(s), int(m), float(u), float(s)


# Like for like: 3 rounds, each running every command once (interleaved, so that a slow
# moment of a shared machine hits all of them); each keeps its best wall and CPU time and
# its largest peak RSS. (Each command's 3 runs used to follow each other.)
cmds = {"ours": [flightrec, "stack", trace, "--top", "10"],
        "theirs": [llvm_xray, "stack", "-instr_map=" + mapf, trace],
        "account": [flightrec, "account", trace]}
runs = {k: [] for k in cmds}
for _ in range(3):
    for k, cmd in cmds.items():
        runs[k].append(one_run(cmd))
# user and sys of the run with the best CPU time: llvm-xray's sys time (the page faults of
# its ~4 GB) swings with the machine's memory state, and with it the CPU ratio
def best(k):
    b = min(runs[k], key=lambda r: r[1])
    return (min(r[0] for r in runs[k]), b[1], max(r[2] for r in runs[k]), b[3], b[4])


ours, theirs, account = (best(k) for k in ("ours", "theirs", "account"))
stacks = subprocess.run([flightrec, "stack", trace, "-f", "folded", "--value", "calls"],
                        capture_output=True, text=True, check=True).stdout.count("\n")
print("trace: %s, %s function records, %d distinct stacks, %.1f MB; load %s"
      % (trace, records, stacks, os.path.getsize(trace) / 1e6, open("/proc/loadavg").read().split()[0]))
print("%-34s %9s %9s %17s %10s" % ("best of 3", "wall s", "cpu s", "(user + sys)", "peak MB"))
for name, r in (("flightrec stack --top 10", ours), ("llvm-xray stack", theirs),
                ("flightrec account (for scale)", account)):
    print("%-34s %9.3f %9.3f %17s %10.1f" % (name, r[0], r[1], "(%.2f + %.2f)" % (r[3], r[4]),
                                              r[2] / 1024))
print("ratio llvm-xray / flightrec stack: wall %.1fx, cpu %.1fx, memory %.1fx   "
      "(targets: >= 30x, flightrec <= 64 MB)"
      % (theirs[0] / ours[0], theirs[1] / max(ours[1], 1e-3), theirs[2] / max(ours[2], 1)))
print("flightrec stack / account: cpu %.1fx" % (ours[1] / max(account[1], 1e-3)))
