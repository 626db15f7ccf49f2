#!/usr/bin/env python3
"""convert_record.py - `flightrec convert` on a real recording (tests/progs/convert_prog.c,
recorded with `flightrec record`): yaml identical to `llvm-xray convert -f yaml -m BIN -y`,
chrome JSON with the program's known call counts, spans and events, folded call counts.
usage: convert_record.py FLIGHTREC PROGRAM LLVM_XRAY WORKDIR
"""
import collections
import decimal
import json
import os
import sys

from frtest import check, finish
from frtest import run_ok as run

flightrec, prog, llvm_xray, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "prog.fr")

run(flightrec, "record", "-o", trace, "--", prog)

# yaml, names from the binary, against llvm-xray's symbolized output
mine, theirs = os.path.join(work, "mine.yaml"), os.path.join(work, "llvm.yaml")
run(flightrec, "convert", trace, "--format", "yaml", "--binary", prog, "-o", mine)
run(llvm_xray, "convert", "--output-format=yaml", "--instr_map=" + prog, "--symbolize", trace, "-o", theirs)
a, b = open(mine, "rb").read().splitlines(), open(theirs, "rb").read().splitlines()
diff = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
check(len(a) == len(b) and not diff, "yaml differs from llvm-xray: %d vs %d lines, first %s"
      % (len(a), len(b), diff[:2]))
mine_ids, theirs_ids = os.path.join(work, "mine.ids.yaml"), os.path.join(work, "llvm.ids.yaml")
run(flightrec, "convert", trace, "--format", "yaml", "--ids", "-o", mine_ids)
run(llvm_xray, "convert", "--output-format=yaml", trace, "-o", theirs_ids)
check(open(mine_ids, "rb").read() == open(theirs_ids, "rb").read(), "yaml --ids differs from llvm-xray")

# chrome: the calls the program makes
out = os.path.join(work, "prog.json")
run(flightrec, "convert", trace, "--format", "chrome", "-o", out)
doc = json.load(open(out))
events = doc["traceEvents"]
calls = collections.Counter(e["name"] for e in events if e["ph"] == "X")
check(calls["leaf"] == 600 and calls["middle"] == 600, "chrome: leaf/middle calls %s" % dict(calls))
check(calls["countdown"] == 33 and calls["worker"] == 3, "chrome: countdown/worker calls %s" % dict(calls))
check(calls["with_arg"] == 3, "chrome: with_arg calls %s" % dict(calls))
args = sorted(e.get("args", {}).get("arg", -1) for e in events if e["ph"] == "X" and e["name"] == "with_arg")
# with_arg's entry sled logs its argument (1000 + the worker's id), and chrome shows it
check(args == [1000, 1001, 1002], "chrome: logged arguments %s" % args)
threads = {e["tid"] for e in events if e["ph"] == "X" and e["name"] == "leaf"}
check(len(threads) == 3, "chrome: leaf on 3 threads")
spans = collections.Counter((e["ph"], e["name"]) for e in events if e["ph"] in "be")
check(spans == {("b", "Work"): 3, ("e", "Work"): 3}, "chrome: spans %s" % spans)
done = [e for e in events if e["ph"] == "i" and e["name"] == "Done"]
check(len(done) == 3 and all(e["args"]["state"] == "ok" for e in done), "chrome: structured events")
check(any(e["ph"] == "M" and e["name"] == "process_name" for e in events), "chrome: process name")

# Perfetto and chrome://tracing need the complete events of a thread properly nested.
exact = json.load(open(out), parse_float=decimal.Decimal)["traceEvents"]
per_thread = collections.defaultdict(list)
for e in exact:
    if e["ph"] == "X":
        per_thread[e["tid"]].append((e["ts"], -e["dur"]))
overlaps = 0
for spans in per_thread.values():
    spans.sort()
    open_ends = []
    for ts, neg_dur in spans:
        while open_ends and open_ends[-1] <= ts:
            open_ends.pop()
        if open_ends and ts - neg_dur > open_ends[-1]:
            overlaps += 1
        open_ends.append(ts - neg_dur)
check(overlaps == 0, "chrome: %d complete events overlap their parent" % overlaps)

# folded, weighted by calls
out = os.path.join(work, "prog.folded")
run(flightrec, "convert", trace, "--format", "folded", "--weight", "calls", "-o", out)
stacks = {}
for line in open(out):
    s, w = line.rstrip("\n").rsplit(" ", 1)
    stacks[s] = int(w)
leaf = sum(w for s, w in stacks.items() if s.endswith(";middle;leaf"))
check(leaf == 600, "folded: calls ending in middle;leaf = %d" % leaf)
check(stacks.get("worker;countdown;countdown") == 3, "folded: recursion keeps its depth")

finish("all real-recording convert checks passed")
