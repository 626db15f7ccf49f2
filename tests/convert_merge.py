#!/usr/bin/env python3
"""convert_merge.py - many processes on one timeline: `flightrec record` of a program
that forks 3 children (tests/progs/convert_fork_prog.c) writes 4 traces; `flightrec
convert --format perfetto` of all 4 writes one file that protoc decodes, with 4 process
tracks (4 pids, the recorded process among them), each process's calls as slices on its
thread's track (counts: 5 + 5 in the parent, 100, 200 and 300 in the children), and the
timestamps consistent across processes: every child's slices lie after the parent's last
before_fork and before its first after_wait. account and stack --thread-root over the 4
files see every process's calls. Refused: several files with another format, a file
without a clock anchor, analyses of traces of different programs.
usage: convert_merge.py FLIGHTREC PROGRAM PROTO_DIR WORKDIR
"""
import collections
import glob
import os
import shutil
import subprocess
import sys

from frtest import FDR_HEADER, check, fdr_extents, fdr_md, finish
from perfetto_decode import Decoded

flightrec, prog, proto_dir, work = sys.argv[1:5]
shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)


trace = os.path.join(work, "fork.fr")
p = subprocess.run([flightrec, "record", "-o", trace, "--", prog], capture_output=True, text=True)
if p.returncode != 0:
    sys.exit("flightrec record failed (%d): %s" % (p.returncode, p.stderr))
files = [trace] + sorted(glob.glob(trace + ".*"))
check(len(files) == 4, "record wrote 4 traces: %s" % files)

out = os.path.join(work, "merged.pftrace")
p = subprocess.run([flightrec, "convert", *files, "--format", "perfetto", "-o", out],
                   capture_output=True, text=True)
check(p.returncode == 0, "convert of 4 files: exit %d %s" % (p.returncode, p.stderr))
protoc = shutil.which("protoc")
if protoc:
    with open(out, "rb") as f:
        d = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", proto_dir, "perfetto_trace.proto"],
                           stdin=f, capture_output=True, text=True)
    check(d.returncode == 0, "protoc decodes the merged file: %s" % d.stderr[:300])
dec = Decoded(out)
check(not dec.errors, "decoder: %s" % dec.errors[:5])
procs = {u: t for u, t in dec.tracks.items() if "process_name" in t}
check(len(procs) == 4 and len({t["pid"] for t in procs.values()}) == 4,
      "4 process tracks with 4 pids: %s" % list(procs.values()))

by_name = collections.defaultdict(list)   # name -> [(pid, start, end)]
for track, slices in dec.slices.items():
    desc = dec.tracks.get(track, {})
    for name, start, end, depth, _ in slices:
        by_name[name].append((desc.get("pid"), start, end))
counts = {n: len(v) for n, v in by_name.items()}
check(counts.get("before_fork") == 5 and counts.get("after_wait") == 5 and counts.get("child_work") == 600,
      "slices: %s" % counts)
per_child = collections.Counter(pid for pid, _, _ in by_name["child_work"])
check(sorted(per_child.values()) == [100, 200, 300], "child_work per process: %s" % per_child)
parent_pids = {pid for pid, _, _ in by_name["before_fork"] + by_name["after_wait"]}
check(len(parent_pids) == 1 and not parent_pids & set(per_child), "parent and children differ: %s %s"
      % (parent_pids, per_child))
if by_name["before_fork"] and by_name["after_wait"] and by_name["child_work"]:
    fork_at = max(e for _, _, e in by_name["before_fork"])
    wait_at = min(s for _, s, _ in by_name["after_wait"])
    first = min(s for _, s, _ in by_name["child_work"])
    last = max(e for _, _, e in by_name["child_work"])
    check(fork_at <= first and last <= wait_at,
          "children's calls within the parent's fork..wait: %d <= %d, %d <= %d" % (fork_at, first, last, wait_at))

# the analyses over the same 4 files: one program's threads side by side
import json  # noqa: E402
p = subprocess.run([flightrec, "account", *files, "-f", "json"], capture_output=True, text=True)
fn = {f["name"]: f["calls"] for f in json.loads(p.stdout)["functions"]} if p.returncode == 0 else {}
check(fn.get("child_work") == 600 and fn.get("before_fork") == 5 and fn.get("after_wait") == 5,
      "account of 4 files: calls %s (%s)" % (fn, p.stderr))
p = subprocess.run([flightrec, "stack", *files, "--thread-root", "-f", "folded", "--value", "calls"],
                   capture_output=True, text=True)
roots = collections.Counter(l.split(";")[0] for l in p.stdout.splitlines())
check(p.returncode == 0 and len(roots) == 4, "stack --thread-root of 4 files: 4 thread trees: %s" % roots)

# refused: several files with another format, a file without a clock anchor
p = subprocess.run([flightrec, "convert", *files[:2], "--format", "chrome"], capture_output=True, text=True)
check(p.returncode == 2 and "perfetto" in p.stderr, "chrome of 2 files: exit 2 (%d %s)" % (p.returncode, p.stderr))
bare = os.path.join(work, "noclock.xray")
import struct  # noqa: E402
with open(bare, "wb") as f:   # an FDR file without our metadata (as compiler-rt writes)
    f.write(FDR_HEADER + fdr_extents(fdr_md(0, struct.pack("<i", 5)) + fdr_md(2, struct.pack("<HQ", 0, 100))))
p = subprocess.run([flightrec, "convert", files[0], bare, "--format", "perfetto", "-o", os.path.join(work, "x")],
                   capture_output=True, text=True)
check(p.returncode == 1 and "clock" in p.stderr, "a file without a clock anchor: exit 1 (%d %s)"
      % (p.returncode, p.stderr))
p = subprocess.run([flightrec, "account", files[0], bare], capture_output=True, text=True)
check(p.returncode == 1 and "one program" in p.stderr, "account of traces of two programs: exit 1 (%d %s)"
      % (p.returncode, p.stderr))

finish()
