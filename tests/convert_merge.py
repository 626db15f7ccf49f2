#!/usr/bin/env python3
"""convert_merge.py - many processes on one timeline: `flightrec record` of a program
that forks 3 children (tests/progs/convert_fork_prog.c) writes 4 traces; `flightrec
convert --format perfetto` of all 4 writes one file that protoc decodes, with 4 process
tracks (4 pids, the recorded process among them), each process's calls as slices on its
thread's track (counts: 5 + 5 in the parent, 100, 200 and 300 in the children), and the
timestamps consistent across processes: every child's slices lie after the parent's last
before_fork and before its first after_wait. `--format chrome` of the same 4 files: valid
JSON, the same 4 pids, the same slices per process at the same CLOCK_MONOTONIC times. account and stack --thread-root over the 4
files see every process's calls. Refused: several files with yaml, a file without a clock
anchor, analyses of traces of different programs.
usage: convert_merge.py FLIGHTREC PROGRAM PROTO_DIR WORKDIR
"""
import collections
import glob
import json
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

# the same 4 files in one Chrome JSON: 4 pids (the real ones, the perfetto file's), the
# same slices per process, on the same CLOCK_MONOTONIC base (microseconds), so the
# children's calls again lie within the parent's fork..wait
chrome = os.path.join(work, "merged.json")
p = subprocess.run([flightrec, "convert", *files, "--format", "chrome", "-o", chrome],
                   capture_output=True, text=True)
check(p.returncode == 0, "chrome convert of 4 files: exit %d %s" % (p.returncode, p.stderr))
try:
    with open(chrome) as f:
        cj = json.load(f)
except (OSError, ValueError) as e:
    check(False, "the merged chrome file is valid JSON: %s" % e)
    cj = {"traceEvents": [], "otherData": {}}
cx = [e for e in cj["traceEvents"] if e.get("ph") == "X"]
cnamed = sorted(e["pid"] for e in cj["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name")
cpids = {e["pid"] for e in cx}
check(cpids == {t["pid"] for t in procs.values()}, "chrome: the 4 pids of the perfetto file: %s vs %s"
      % (cpids, [t["pid"] for t in procs.values()]))
check(cnamed == sorted(cpids) and cj["otherData"].get("clock") == "CLOCK_MONOTONIC"
      and cj["otherData"].get("traces") == files and cj["otherData"].get("calls") == len(cx),
      "chrome: one process name per pid %s, otherData %s" % (cnamed, cj["otherData"]))
cby = collections.defaultdict(list)   # name -> [(pid, start ns, end ns)]
for e in cx:
    start = round(e["ts"] * 1000)
    cby[e["name"]].append((e["pid"], start, start + round(e["dur"] * 1000)))
check(len(cby["before_fork"]) == 5 and len(cby["after_wait"]) == 5 and len(cby["child_work"]) == 600,
      "chrome slices: %s" % {n: len(v) for n, v in cby.items()})
cchild = collections.Counter(pid for pid, _, _ in cby["child_work"])
check(cchild == per_child, "chrome child_work per process = perfetto's: %s vs %s" % (cchild, per_child))
check({pid for pid, _, _ in cby["before_fork"] + cby["after_wait"]} == parent_pids,
      "chrome: the parent's pid %s" % parent_pids)
if cby["before_fork"] and cby["after_wait"] and cby["child_work"]:
    fork_at = max(e for _, _, e in cby["before_fork"])
    wait_at = min(s for _, s, _ in cby["after_wait"])
    first = min(s for _, s, _ in cby["child_work"])
    last = max(e for _, _, e in cby["child_work"])
    check(fork_at <= first and last <= wait_at,
          "chrome: children's calls within the parent's fork..wait: %d <= %d, %d <= %d"
          % (fork_at, first, last, wait_at))
    # the same clock as the perfetto merge: the same nanoseconds (ts has 3 decimals), but
    # where calls share a clock tick (a coarse clock: aarch64's, qemu's) chrome sets them
    # 1 ns apart so that viewers nest them as they ran (docs/CLI.md): a few ns later
    cs = sorted(s for _, s, _ in cby["child_work"])
    ps = sorted(s for _, s, _ in by_name["child_work"])
    check(len(cs) == len(ps) and all(0 <= c - p <= 10 for c, p in zip(cs, ps)),
          "chrome and perfetto place the children's calls at the same CLOCK_MONOTONIC ns (chrome "
          "up to 10 ns later where ticks are shared): %s" % [(c, p) for c, p in zip(cs, ps) if not 0 <= c - p <= 10][:5])

# the analyses over the same 4 files: one program's threads side by side
p = subprocess.run([flightrec, "account", *files, "-f", "json"], capture_output=True, text=True)
fn = {f["name"]: f["calls"] for f in json.loads(p.stdout)["functions"]} if p.returncode == 0 else {}
check(fn.get("child_work") == 600 and fn.get("before_fork") == 5 and fn.get("after_wait") == 5,
      "account of 4 files: calls %s (%s)" % (fn, p.stderr))
p = subprocess.run([flightrec, "stack", *files, "--thread-root", "-f", "folded", "--value", "calls"],
                   capture_output=True, text=True)
roots = collections.Counter(l.split(";")[0] for l in p.stdout.splitlines())
check(p.returncode == 0 and len(roots) == 4, "stack --thread-root of 4 files: 4 thread trees: %s" % roots)

# refused: several files with yaml (folded and svg merge: convert_merge_stacks.py), a file
# without a clock anchor
p = subprocess.run([flightrec, "convert", *files[:2], "--format", "yaml"], capture_output=True, text=True)
check(p.returncode == 2 and "perfetto, chrome, folded or svg" in p.stderr and not p.stdout,
      "yaml of 2 files: exit 2 (%d %s)" % (p.returncode, p.stderr))
# one file twice (by its name, by a hard link): its process would be on the timeline twice
twice = os.path.join(work, "twice.fr")
if os.path.exists(twice):
    os.unlink(twice)
os.link(files[1], twice)
for fmt in ("perfetto", "chrome"):
    for again in (files[1], twice):
        out = os.path.join(work, "twice.out")
        if os.path.exists(out):
            os.unlink(out)
        p = subprocess.run([flightrec, "convert", files[0], files[1], again, "--format", fmt,
                            "-o", out], capture_output=True, text=True)
        check(p.returncode == 2 and "given twice" in p.stderr and not os.path.exists(out),
              "%s of a file twice: exit 2 (%d %s)" % (fmt, p.returncode, p.stderr))
bare = os.path.join(work, "noclock.xray")
import struct  # noqa: E402
with open(bare, "wb") as f:   # an FDR file without our metadata (as compiler-rt writes)
    f.write(FDR_HEADER + fdr_extents(fdr_md(0, struct.pack("<i", 5)) + fdr_md(2, struct.pack("<HQ", 0, 100))))
p = subprocess.run([flightrec, "convert", files[0], bare, "--format", "perfetto", "-o", os.path.join(work, "x")],
                   capture_output=True, text=True)
check(p.returncode == 1 and "clock" in p.stderr, "a file without a clock anchor: exit 1 (%d %s)"
      % (p.returncode, p.stderr))
perfetto_msg = p.stderr
p = subprocess.run([flightrec, "convert", files[0], bare, "--format", "chrome", "-o", os.path.join(work, "y")],
                   capture_output=True, text=True)
check(p.returncode == 1 and p.stderr == perfetto_msg and not os.path.exists(os.path.join(work, "y")),
      "chrome: a file without a clock anchor refused as perfetto does, nothing written (%d %s)"
      % (p.returncode, p.stderr))
p = subprocess.run([flightrec, "account", files[0], bare], capture_output=True, text=True)
check(p.returncode == 1 and "one program" in p.stderr, "account of traces of two programs: exit 1 (%d %s)"
      % (p.returncode, p.stderr))

finish()
