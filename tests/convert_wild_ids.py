#!/usr/bin/env python3
"""convert_wild_ids.py - a damaged basic-mode file whose function ids are the largest a
record can carry (2^28 - 1 after the reader's mask): every converter and analysis must
finish with exit 0, well-formed output and a peak RSS within 32 MB of the same command's
on the same file with ids 2 and 3 (the baseline: a sanitizer's own memory is in both). A
table indexed by function id and sized by the largest id seen (chrome's file:line cache
took 2.1 GB, perfetto's interned-name marks 265 MB, for this 160-byte file) fails here.
usage: convert_wild_ids.py FLIGHTREC WORKDIR
"""
import json
import os
import struct
import subprocess
import sys

from frtest import check, finish

flightrec, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)
MARGIN_KB = 32 * 1024


def rec(kind, fid, tsc, tid=7, pid=7):
    return struct.pack("<HBBiQII8x", 0, 0, kind, fid, tsc, tid, pid)


def write(name, big):
    records = [rec(0, 1, 1000), rec(0, big, 1010), rec(1, big, 1020),
               rec(0, big - 1, 1030), rec(1, big - 1, 1040), rec(1, 1, 1050)]
    header = struct.pack("<HHIQQ8x", 3, 0, 0, 1000000000, 0)
    path = os.path.join(work, name)
    open(path, "wb").write(header + b"".join(records))
    return path


path = write("wild_ids.xray", 0x0FFFFFFF)
small = write("small_ids.xray", 3)


def run(args):
    """exit status, stdout, stderr and peak RSS (KB) of one flightrec run"""
    out, err = os.path.join(work, "out"), os.path.join(work, "err")
    with open(out, "wb") as o, open(err, "wb") as e:
        p = subprocess.Popen([flightrec, *args], stdout=o, stderr=e)
        _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, open(out, "rb").read(), open(err, "rb").read(), usage.ru_maxrss


for args in (["convert", path, "-f", "chrome"], ["convert", path, "-f", "perfetto"],
             ["convert", path, "-f", "yaml"], ["convert", path, "-f", "folded"],
             ["convert", path, "-f", "svg"], ["replay", path], ["account", path],
             ["stack", path], ["graph", path], ["dump", path], ["info", path]):
    base = run([small if a == path else a for a in args])[3]
    rc, out, err, rss = run(args)
    what = " ".join(args[0:1] + args[2:])
    check(rc == 0, "%s: exit %d %s" % (what, rc, err.decode()[-500:]))
    check(rss < base + MARGIN_KB, "%s: peak RSS %d KB (with ids 2 and 3: %d KB)" % (what, rss, base))
    if args[-1] == "chrome" and rc == 0:
        slices = [e for e in json.loads(out)["traceEvents"] if e["ph"] == "X"]
        check(sorted(e["name"] for e in slices) == ["#1", "#268435454", "#268435455"],
              "chrome: slices %s" % [e["name"] for e in slices])

finish()
