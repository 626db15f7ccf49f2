#!/usr/bin/env python3
"""convert_wild_tids.py - thread ids no kernel gives, as a damaged or hand-made trace may
hold (any 32-bit value): 2^30 and above, negative, INT32_MIN, beside a plain one. With
--thread-root each thread's stacks go under its own "[thread TID]" frame; the stack
tree's thread root nodes once carried the tid in their id's low 30 bits, so a tid of
2^30 or more read as a process node, unnamed in a single file: `convert -f folded
--thread-root` and `-f svg --thread-root` died of a null name (found by fuzz_cli), and
`stack --thread-root` named the thread wrongly. Every command must take the file, name
each thread by its own tid, and count each thread's calls under it.
The file is written here byte by byte (XRay FDR version 5, llvm-xray's reader rules).
usage: convert_wild_tids.py FLIGHTREC WORKDIR
"""
import os
import struct
import sys
import xml.etree.ElementTree as ET

import frtest
from frtest import FDR_HEADER, check, fdr_extents, fdr_fn, fdr_md, finish, folded

flightrec, work = sys.argv[1:3]
frtest.workdir(work, fresh=True)
TIDS = [7, 0x66000000, 0x40000000, -5, -2**31, 2**31 - 1]


def block(tid, tsc, calls):
    body = fdr_md(0, struct.pack("<i", tid)) + fdr_md(4, struct.pack("<qi", 1, 0))
    body += fdr_md(9, struct.pack("<i", 100)) + fdr_md(2, struct.pack("<HQ", 0, tsc))
    body += fdr_fn(1, 0, 0)                       # main {
    for _ in range(calls):
        body += fdr_fn(2, 0, 10) + fdr_fn(2, 1, 10)   # work();
    body += fdr_fn(1, 1, 10)                      # }
    return fdr_extents(body)


path = os.path.join(work, "wild.xray")
with open(path, "wb") as f:
    f.write(FDR_HEADER + b"".join(block(t, 1000 * (k + 1), k + 1) for k, t in enumerate(TIDS)))


want = {"[thread %d];#1;#2" % t: k + 1 for k, t in enumerate(TIDS)}
for cmd in (["stack", path, "-f", "folded", "--value", "calls", "--thread-root"],
            ["convert", path, "-f", "folded", "--weight", "calls", "--thread-root"]):
    r = frtest.run(flightrec, *cmd, expect=0)
    got = {s: n for s, n in folded(r.stdout).items() if s.endswith(";#2")}
    check(got == want, "%s: the calls of work per thread, under their own tids:\n%s\nwanted\n%s"
          % (" ".join(cmd[:2]), got, want))
r = frtest.run(flightrec, "convert", path, "-f", "svg", "--weight", "calls", "--thread-root", expect=0)
if r.returncode == 0:
    titles = [t.text for t in ET.fromstring(r.stdout).iter("{http://www.w3.org/2000/svg}title")]
    for t in TIDS:
        check(any(x and x.startswith("[thread %d] " % t) for x in titles), "svg: a frame [thread %d]" % t)
r = frtest.run(flightrec, "stack", path, "--thread-root", expect=0)
for t in TIDS:
    check("[thread %d] > #1 > #2" % t in r.stdout, "stack --thread-root: [thread %d]" % t)
finish("convert_wild_tids: any 32-bit thread id gets its own thread frame")
