#!/usr/bin/env python3
"""convert_origin.py - a trace without flightrec's clock event (as compiler-rt's FDR
runtime writes them) whose first block in the file is not the earliest: the main thread
started first, a worker's block was written first. The time origin must be the earliest
record, so that no time is negative: info, dump (and dump --from 0us keeps every
record), chrome and perfetto (no record placed before the origin).
The file is written here byte by byte (XRay FDR version 5, llvm-xray's reader rules).
usage: convert_origin.py FLIGHTREC WORKDIR
"""
import json
import os
import struct
import sys

import frtest
from frtest import FDR_HEADER, check, fdr_extents, fdr_fn, fdr_md, finish

flightrec, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)


def block(tid, pid, tsc, calls):
    body = fdr_md(0, struct.pack("<i", tid)) + fdr_md(4, struct.pack("<qi", 1, 0))
    body += fdr_md(9, struct.pack("<i", pid)) + fdr_md(2, struct.pack("<HQ", 0, tsc))
    for fid, enter_delta, exit_delta in calls:
        body += fdr_fn(fid, 0, enter_delta) + fdr_fn(fid, 1, exit_delta)
    return fdr_extents(body)


header = FDR_HEADER
worker = block(102, 100, 5000, [(2, 0, 100), (2, 50, 100)])        # written first, starts at 5000
main = block(100, 100, 1000, [(1, 0, 200), (1, 100, 300)])         # written second, starts at 1000
path = os.path.join(work, "origin.xray")
with open(path, "wb") as f:
    f.write(header + worker + main)
records = 8


def run(*args):
    return frtest.run(flightrec, *args)


rc, out, err = run("info", path)
check(rc == 0 and "-" not in "".join(l for l in out.splitlines() if l.startswith("thread ")),
      "info: no negative thread times:\n%s" % out)
rc, out, err = run("dump", path)
rows = [l.split() for l in out.splitlines()[1:]]
times = [float(r[1]) for r in rows]
check(rc == 0 and min(times) == 0.0, "dump: times start at 0, none negative: %s" % times)
check(sum(1 for r in rows if r[4] in ("enter", "exit")) == records, "dump: %d function records" % records)
rc, out2, err = run("dump", path, "--from", "0us")
check(rc == 0 and out2 == out, "dump --from 0us keeps every record (%d vs %d lines)"
      % (len(out2.splitlines()), len(out.splitlines())))
out_path = os.path.join(work, "origin.json")
rc, _, err = run("convert", path, "-f", "chrome", "-o", out_path)
ev = [e for e in json.load(open(out_path))["traceEvents"] if e["ph"] == "X"]
check(rc == 0 and len(ev) == 4 and min(e["ts"] for e in ev) == 0,
      "chrome: 4 calls, the first at ts 0: %s" % [(e["tid"], e["ts"]) for e in ev])
main_ts = sorted(e["ts"] for e in ev if e["tid"] == 100)
check(main_ts == [0, 0.3], "chrome: the main thread's calls at 0 and 0.3 us: %s" % main_ts)
rc, _, err = run("convert", path, "-f", "perfetto", "-o", os.path.join(work, "origin.pftrace"))
check(rc == 0 and "before the trace's time origin" not in err, "perfetto: nothing before the origin: %s" % err)

finish()
