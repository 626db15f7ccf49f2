#!/usr/bin/env python3
"""analysis_tid.py - per-thread views on the known traces of convert_traces.c: --tid on
account, stack, graph and convert keeps exactly that thread's calls (counted here from
the generator's records, own stack matching); --thread-root puts each stack under its
thread's frame ("[thread TID NAME]") in stack's and convert's folded output and in the
SVG (one tree per thread); options that would do nothing are refused.
usage: analysis_tid.py FLIGHTREC CONVERT_TRACES WORKDIR
"""
import collections
import json
import os
import sys
import xml.etree.ElementTree as ET

import frtest
from frtest import check, finish, known_calls, known_traces

flightrec, generator, work = sys.argv[1:4]
spec = known_traces(generator, work)
trace = os.path.join(work, "calls.fr")


def run(*args):
    return frtest.run(flightrec, *args)


# calls per thread, matched from the records (unmatched exits dropped, frames closed by a
# caller's exit or at the end counted)
calls = collections.Counter(c["tid"] for c in known_calls(spec["records"])[0])
tids = sorted(calls)
check(len(tids) == 2 and all(calls[t] for t in tids), "two threads with calls: %s" % calls)
names = {int(k): v for k, v in spec["threads"].items()}

for tid in tids:
    rc, out, err = run("account", trace, "--tid", str(tid), "-f", "json")
    doc = json.loads(out) if rc == 0 else {}
    got = sum(f["calls"] for f in doc.get("functions", []))
    check(rc == 0 and got == calls[tid], "account --tid %d: %d calls, want %d" % (tid, got, calls[tid]))
    rc, out, err = run("stack", trace, "--tid", str(tid), "-f", "folded", "--value", "calls")
    got = sum(int(l.rsplit(" ", 1)[1]) for l in out.splitlines())
    check(rc == 0 and got == calls[tid], "stack --tid %d: %d calls" % (tid, got))
    out_path = os.path.join(work, "t%d.json" % tid)
    rc, _, err = run("convert", trace, "-f", "chrome", "--tid", str(tid), "-o", out_path)
    ev = [e for e in json.load(open(out_path))["traceEvents"] if e["ph"] == "X"]
    check(rc == 0 and len(ev) == calls[tid] and {e["tid"] for e in ev} == {tid},
          "convert chrome --tid %d: %d calls of threads %s" % (tid, len(ev), {e["tid"] for e in ev}))
rc, out, _ = run("graph", trace, "--tid", str(tids[0]))
check(rc == 0 and "digraph" in out, "graph --tid")
rc, out, _ = run("account", trace, "--tid", "%d,%d" % (tids[0], tids[1]), "-f", "json")
check(rc == 0 and sum(f["calls"] for f in json.loads(out)["functions"]) == sum(calls.values()),
      "account --tid A,B: every call")


def thread_frame(tid):
    return "[thread %d %s]" % (tid, names[tid].replace(";", ":")) if tid in names else "[thread %d]" % tid


for cmd in (["stack", trace, "-f", "folded", "--value", "calls", "--thread-root"],
            ["convert", trace, "-f", "folded", "--weight", "calls", "--thread-root"]):
    rc, out, err = run(*cmd)
    per = collections.Counter()
    ok = rc == 0
    for line in out.splitlines():
        stack, n = line.rsplit(" ", 1)
        root = stack.split(";")[0]
        ok &= root in {thread_frame(t) for t in tids}
        per[root] += int(n)
    check(ok and all(per[thread_frame(t)] == calls[t] for t in tids),
          "%s --thread-root: each stack under its thread, calls per thread %s want %s\n%s"
          % (cmd[0], dict(per), dict(calls), out))
svg = os.path.join(work, "threads.svg")
rc, _, err = run("convert", trace, "-f", "svg", "--weight", "calls", "--thread-root", "-o", svg)
SVG = "{http://www.w3.org/2000/svg}"
depth1 = {g.find(SVG + "title").text.rsplit(" (", 1)[0]: int(g.get("fw"))
          for g in ET.parse(svg).getroot().iter(SVG + "g") if g.get("class") == "f" and g.get("fd") == "1"}
check(rc == 0 and depth1 == {thread_frame(t): calls[t] for t in tids},
      "svg --thread-root: one tree per thread, as wide as its calls: %s" % depth1)

for bad in (["stack", trace, "--tid", "0"], ["account", trace, "--tid", "x"],
            ["convert", trace, "-f", "yaml", "--tid", "11"], ["convert", trace, "-f", "chrome", "--thread-root"]):
    rc, _, err = run(*bad)
    check(rc == 2, "%s: exit 2 (got %d %s)" % (bad[:5], rc, err))

finish()
