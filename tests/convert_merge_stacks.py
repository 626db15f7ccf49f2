#!/usr/bin/env python3
"""convert_merge_stacks.py - folded stacks and the SVG flame graph of several processes:
`flightrec record` of a program that forks 3 children (tests/progs/convert_fork_prog.c)
writes 4 traces; `flightrec convert` of all 4 with --format folded puts every stack under
its process's root frame "[process PID NAME]" (with --thread-root, the thread's frame
next), and each process's lines are exactly what `convert` of its file alone writes,
in the order of the files: so the calls (--weight calls) and the self time (default) per
process root are that process's, as `stack` and `account` count them on its file alone.
--format svg of the 4: well-formed XML (python's parser), one frame per process whose
width is that process's calls. --max-stacks bounds the merged tree and loses no call,
--tid selects the thread in each file, a file without process metadata gets a
"[trace PATH]" root (and its unmatched exit is reported under its name). Refused: a file given twice, two files of one pid, a file that is
not a trace (nothing written), -o naming an input, several files with yaml.
usage: convert_merge_stacks.py FLIGHTREC PROGRAM WORKDIR
"""
import collections
import glob
import json
import os
import re
import shutil
import struct
import xml.etree.ElementTree as ET

from frtest import FDR_HEADER, check, fdr_extents, fdr_fn, fdr_md, finish, run, workdir

flightrec, prog, work = __import__("sys").argv[1:4]
workdir(work, fresh=True)

trace = os.path.join(work, "fork.fr")
r = run(flightrec, "record", "-o", trace, "--", prog)
if r.returncode != 0:
    raise SystemExit("flightrec record failed (%d): %s" % (r.returncode, r.stderr))
files = [trace] + sorted(glob.glob(trace + ".*"))
check(len(files) == 4, "record wrote 4 traces: %s" % files)


def pid_of(path):
    r = run(flightrec, "info", "-f", "json", path, expect=0)
    return json.loads(r.stdout)["process"]["pid"] if r.returncode == 0 else None


pids = [pid_of(f) for f in files]
check(len(set(pids)) == 4, "4 pids: %s" % pids)

ROOT = re.compile(r"^\[process (\d+) [^;\]]*\]$")
THREAD = re.compile(r"^\[thread (\d+)( [^;\]]*)?\]$")


def folded(args, what):
    """Lines of a folded output as (frames, weight), exit 0 asserted."""
    r = run(flightrec, "convert", *args, "--format", "folded")
    check(r.returncode == 0 and r.stdout, "%s: exit %d %s" % (what, r.returncode, r.stderr))
    out = []
    for line in r.stdout.splitlines():
        stack, _, w = line.rpartition(" ")
        out.append((stack.split(";"), int(w)))
    return out, r


# each file alone: its calls as stack and account count them, its folded lines
alone_calls, alone_lines, alone_time = [], [], []
for f in files:
    r = run(flightrec, "stack", f, "-f", "folded", "--value", "calls", expect=0)
    alone_calls.append(sum(int(l.rpartition(" ")[2]) for l in r.stdout.splitlines()))
    r = run(flightrec, "account", f, "-f", "json", expect=0)
    acc = sum(fn["calls"] for fn in json.loads(r.stdout)["functions"]) if r.returncode == 0 else -1
    check(acc == alone_calls[-1], "%s: account's calls %d == stack's %d" % (f, acc, alone_calls[-1]))
    r = run(flightrec, "stack", f, "-f", "folded", expect=0)
    alone_time.append(sum(int(l.rpartition(" ")[2]) for l in r.stdout.splitlines()))
    r = run(flightrec, "convert", f, "--format", "folded", "--weight", "calls", expect=0)
    alone_lines.append(r.stdout.splitlines())
check(sorted(alone_calls) == [11, 101, 201, 301],
      "per-process calls (main + 5 + 5 in the parent, main (open at the fork) + 100/200/300 "
      "in the children): %s" % alone_calls)

# merged, calls: every line under one of the 4 process roots, the processes in the order
# of the files, each one's lines those of its file alone
lines, r = folded([*files, "--weight", "calls"], "folded of 4 files")
by_root = collections.OrderedDict()
for frames, w in lines:
    m = ROOT.match(frames[0])
    check(m is not None, "line under a process root: %s" % ";".join(frames))
    if m:
        by_root.setdefault(int(m.group(1)), []).append(";".join(frames[1:]) + " " + str(w))
check(list(by_root) == pids, "process roots in the order of the files: %s vs %s" % (list(by_root), pids))
for f, pid, n, alone in zip(files, pids, alone_calls, alone_lines):
    got = by_root.get(pid, [])
    check(sum(int(l.rpartition(" ")[2]) for l in got) == n,
          "%s: calls under [process %s] %d == its calls alone %d" % (f, pid, sum(int(l.rpartition(" ")[2]) for l in got), n))
    check(got == alone, "%s: its lines under the root are those of its file alone: %s vs %s" % (f, got, alone))
check(all(ROOT.match(fr[0]) and "convert_fork_pr" in fr[0] for fr, _ in lines), "root frames name the program")
r2 = run(flightrec, "convert", *files, "--format", "folded", "--weight", "calls")
check(r2.stdout == r.stdout, "the same output twice (deterministic)")

# merged, time: self ns per process root == the self ns `stack` sums on its file alone
lines, _ = folded(files, "folded (time) of 4 files")
time_by = collections.Counter()
for frames, w in lines:
    m = ROOT.match(frames[0])
    time_by[int(m.group(1)) if m else None] += w
check([time_by[p] for p in pids] == alone_time, "self ns per process %s == alone %s"
      % ([time_by[p] for p in pids], alone_time))

# --thread-root: [process];[thread] (each process here has one thread, its pid)
lines, _ = folded([*files, "--weight", "calls", "--thread-root"], "folded --thread-root")
per = collections.Counter()
for frames, w in lines:
    m, t = ROOT.match(frames[0]), THREAD.match(frames[1]) if len(frames) > 1 else None
    check(m and t and m.group(1) == t.group(1), "[process P];[thread P] first: %s" % ";".join(frames))
    if m:
        per[int(m.group(1))] += w
check([per[p] for p in pids] == alone_calls, "--thread-root: calls per process %s" % per)

# `stack` of the 4 with --thread-root: the same trees as convert's, every thread named from
# its own file's metadata, under its process's root (text and json name them too)
r = run(flightrec, "stack", *files, "--thread-root", "-f", "folded", "--value", "calls", expect=0)
conv = run(flightrec, "convert", *files, "--thread-root", "--format", "folded", "--weight", "calls", expect=0)
check(sorted(r.stdout.splitlines()) == sorted(conv.stdout.splitlines()) and len(conv.stdout.splitlines()) == 9,
      "stack --thread-root of 4 files: convert's lines:\n%s\nvs\n%s" % (r.stdout, conv.stdout))
r = run(flightrec, "stack", *files, "--thread-root", expect=0)
for pid in pids:
    frame = "[process %d convert_fork_pr] > [thread %d convert_fork_pr] > " % (pid, pid)
    check(frame in r.stdout, "stack --thread-root text: %s in\n%s" % (frame, r.stdout))
r = run(flightrec, "stack", *files, "--thread-root", "-f", "json", expect=0)
tops = set()
for st in (json.loads(r.stdout)["stacks"] if r.returncode == 0 else []):
    m, t = ROOT.match(st["stack"][0]), THREAD.match(st["stack"][1])
    check(m and t and m.group(1) == t.group(1) and t.group(2) == " convert_fork_pr",
          "stack --thread-root json: [process P NAME], [thread P NAME] first: %s" % st["stack"])
    tops.add(st["stack"][0])
check(len(tops) == 4, "stack --thread-root json: 4 process roots: %s" % tops)
# without --thread-root `stack` sums the same stacks of the 4 (as account sums functions)
r = run(flightrec, "stack", *files, "-f", "folded", "--value", "calls", expect=0)
check(sorted(r.stdout.splitlines()) == ["main 4", "main;after_wait 5", "main;before_fork 5", "main;child_work 600"],
      "stack of 4 files without --thread-root: one set of stacks: %s" % r.stdout)

# --max-stacks on the merged tree: no call lost, stacks merged into [other] and reported
lines, r = folded([*files, "--weight", "calls", "--max-stacks", "2"], "folded --max-stacks 2")
per = collections.Counter()
other = 0
for frames, w in lines:
    m = ROOT.match(frames[0])
    per[int(m.group(1)) if m else None] += w
    other += w if frames[-1] == "[other]" else 0
check([per[p] for p in pids] == alone_calls, "--max-stacks 2: calls per process kept %s" % per)
mo = re.search(r"--max-stacks 2: (\d+) calls counted in \[other\]", r.stderr)
check(other > 0 and mo and int(mo.group(1)) == other,
      "[other] calls %d as reported: %s" % (other, r.stderr.strip()))
check(len(lines) < 6, "fewer stacks than the 6 of the unbounded tree: %d" % len(lines))

# --tid: that thread in whichever file has it, so only its process
child = pids[2]
lines, _ = folded([*files, "--weight", "calls", "--tid", str(child)], "folded --tid")
check({ROOT.match(fr[0]).group(1) for fr, _ in lines if ROOT.match(fr[0])} == {str(child)}
      and sum(w for _, w in lines) == alone_calls[2], "--tid %d: only its process: %s" % (child, lines))
# --tid of several files: a thread in one of them is enough (stack, account), one in none
# is a warning and exit 1 (every command, docs/CLI.md)
r = run(flightrec, "stack", *files, "--tid", str(child), "-f", "folded", "--value", "calls", expect=0)
check(r.stdout == "main 1\nmain;child_work 200\n", "stack --tid %d of 4 files: %s" % (child, r.stdout))
run(flightrec, "account", *files, "--tid", str(child), expect=0)
nobody = str(max(pids) + 100000)
for cmd in (["stack"], ["account"], ["graph"], ["convert", "-f", "folded"], ["convert", "-f", "svg"],
            ["convert", "-f", "chrome"], ["convert", "-f", "perfetto"]):
    r = run(flightrec, *cmd, *files, "--tid", nobody, "-o", os.path.join(work, "none"))
    check(r.returncode == 1 and r.stderr.endswith("warning: no record matched --tid %s\n" % nobody),
          "%s of 4 files --tid %s: exit 1 with a warning (%d %s)" % (cmd, nobody, r.returncode, r.stderr))

# svg of the 4: well-formed, a frame per process as wide as its calls, under "all"
svg = os.path.join(work, "merged.svg")
r = run(flightrec, "convert", *files, "--format", "svg", "--weight", "calls", "-o", svg)
check(r.returncode == 0, "svg of 4 files: exit %d %s" % (r.returncode, r.stderr))
try:
    root = ET.parse(svg).getroot()
except (ET.ParseError, OSError) as e:
    check(False, "the merged svg is well-formed XML: %s" % e)
    root = ET.Element("svg")
ns = "{http://www.w3.org/2000/svg}"
frames = {}
for g in root.iter(ns + "g"):
    title = g.find(ns + "title")
    if g.get("class") == "f" and title is not None:
        name = title.text[:title.text.rfind(" (")]
        frames.setdefault(name, []).append((int(g.get("fd")), int(g.get("fw"))))
check(frames.get("all") == [(0, sum(alone_calls))], "root 'all': %s" % frames.get("all"))
for f, pid, n in zip(files, pids, alone_calls):
    procs = [v for k, v in frames.items() if ROOT.match(k) and ROOT.match(k).group(1) == str(pid)]
    check(procs == [[(1, n)]], "%s: svg frame [process %s] at depth 1 with %d calls: %s" % (f, pid, n, procs))
check(sum(w for d, w in frames.get("child_work", [])) == 600 and len(frames.get("child_work", [])) == 3,
      "child_work drawn once per child process: %s" % frames.get("child_work"))
check(os.path.exists(svg) and b"and 3 more traces" in open(svg, "rb").read(), "the title names the traces")
r = run(flightrec, "convert", *files, "--format", "svg", "--thread-root", "--max-stacks", "2",
        "-o", svg + ".2")
try:
    ET.parse(svg + ".2")
    check(r.returncode == 0, "svg --thread-root --max-stacks: exit %d %s" % (r.returncode, r.stderr))
except (ET.ParseError, OSError) as e:
    check(False, "svg --thread-root --max-stacks well-formed: %s" % e)

# a file without process metadata (as compiler-rt writes): a [trace PATH] root
bare = os.path.join(work, "noproc.xray")
with open(bare, "wb") as f:
    f.write(FDR_HEADER + fdr_extents(fdr_md(0, struct.pack("<i", 5)) + fdr_md(4, struct.pack("<qi", 1, 0))
                                     + fdr_md(2, struct.pack("<HQ", 0, 100)) + fdr_fn(2, 1, 5)
                                     + fdr_fn(1, 0, 10) + fdr_fn(1, 1, 10) + fdr_fn(1, 0, 10) + fdr_fn(1, 1, 10)))
lines, r = folded([files[1], bare, "--weight", "calls"], "folded of a trace and a compiler-rt file")
# (the child's main, entered at its start as open at the fork, ends in exit(): still open)
check(r.stderr == "flightrec convert: %s: 0 exits without their entry dropped, 0 calls closed by a caller's "
      "exit, 1 calls still open at the end (closed at the thread's last record)\n" % files[1] +
      "flightrec convert: %s: 1 exits without their entry dropped, 0 calls closed by a caller's "
      "exit, 0 calls still open at the end (closed at the thread's last record)\n" % bare,
      "unmatched records reported for the trace that has them: %s" % r.stderr)
check(("[trace %s]" % bare, 2) in [(fr[0], w) for fr, w in lines] and
      sum(w for fr, w in lines if ROOT.match(fr[0])) == alone_calls[1],
      "[trace PATH] root for the file that names no process: %s" % lines)

# refused
out = os.path.join(work, "refused.folded")
r = run(flightrec, "convert", files[0], files[0], "--format", "folded", "-o", out)
check(r.returncode == 2 and "twice" in r.stderr and not os.path.exists(out), "a file twice: exit 2 (%d %s)"
      % (r.returncode, r.stderr))
copy = os.path.join(work, "copy.fr")
shutil.copy(files[1], copy)
r = run(flightrec, "convert", files[1], copy, "--format", "svg", "-o", out)
check(r.returncode == 1 and "both record process" in r.stderr and not os.path.exists(out),
      "two traces of one pid: exit 1, nothing written (%d %s)" % (r.returncode, r.stderr))
junk = os.path.join(work, "junk")
with open(junk, "wb") as f:
    f.write(b"not a trace at all, not even close")
r = run(flightrec, "convert", files[0], junk, "--format", "folded", "-o", out)
check(r.returncode == 1 and not os.path.exists(out), "a file that is not a trace: exit 1, nothing written "
      "(%d %s)" % (r.returncode, r.stderr))
before = open(copy, "rb").read()
r = run(flightrec, "convert", files[0], copy, "--format", "svg", "-o", copy)
check(r.returncode == 1 and open(copy, "rb").read() == before,
      "-o naming one of the inputs: exit 1, the trace kept (%d %s)" % (r.returncode, r.stderr))
r = run(flightrec, "convert", *files[:2], "--format", "yaml")
check(r.returncode == 2 and "yaml" in r.stderr and not r.stdout, "yaml of 2 files: exit 2 (%d %s)"
      % (r.returncode, r.stderr))

finish()
