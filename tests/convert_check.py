#!/usr/bin/env python3
"""convert_check.py - checks `flightrec convert` on the known traces of convert_traces.c.

Expected values are computed here from the records the generator lists in NAME.json (own
stack matching, own tick -> ns arithmetic), never from flightrec's reader or tracker:
  chrome  parsed with json; complete events, timestamps (exact strings), names, metadata,
          instants, async spans
  folded  every stack's self time (ns) and call count
  svg     well-formed XML; every frame's width equals its stack's subtree total
  yaml    identical, byte for byte, to `llvm-xray convert --output-format=yaml`
plus bad input (truncated files: exit 1 naming the file and offset, output still valid)
and bad usage (exit 2).
usage: convert_check.py FLIGHTREC CONVERT_TRACES LLVM_XRAY WORKDIR
"""
import collections
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

from frtest import check, finish, known_calls, known_ns, known_traces, round_div, run

flightrec, generator, llvm_xray, work = sys.argv[1:5]
spec = known_traces(generator, work)


def convert(trace, fmt, out, *extra):
    p = run(flightrec, "convert", trace, "--format", fmt, "-o", out, *extra)
    return p.returncode, p.stderr


def usec3(ns):
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    return "%s%d.%03d" % (sign, ns // 1000, ns % 1000)


tps = spec["ticks_per_second"]
names = {int(k): v for k, v in spec["names"].items()}
calls, unmatched = known_calls(spec["records"])
trace = os.path.join(work, "calls.fr")


def ns(tsc):
    return known_ns(spec, tsc)


# ------------------------------------------------------------------ chrome
out = os.path.join(work, "calls.json.out")
rc, err = convert(trace, "chrome", out)
check(rc == 0, "chrome: exit code %d (%s)" % (rc, err))
doc = json.load(open(out), parse_float=str)   # timestamps compared as the exact text
events = doc["traceEvents"]
got = collections.Counter((e["tid"], e["name"], e["ts"], e["dur"]) for e in events if e["ph"] == "X")
want = collections.Counter((c["tid"], names[c["id"]], usec3(ns(c["enter"])),
                            usec3(ns(c["exit"]) - ns(c["enter"]))) for c in calls)
check(got == want, "chrome: complete events differ:\n got %s\nwant %s" % (sorted(got), sorted(want)))
check(all(e.get("pid") == spec["pid"] for e in events), "chrome: every event has the process id")
meta = {(e["name"], e.get("tid")): e["args"]["name"] for e in events if e["ph"] == "M"}
check(meta.get(("process_name", None)) == spec["process"], "chrome: process name")
for tid, name in spec["threads"].items():
    check(meta.get(("thread_name", int(tid))) == name, "chrome: thread name of %s" % tid)
inst = [e for e in events if e["ph"] == "i"]
check(len(inst) == 3, "chrome: 3 instant events (custom, typed, structured), got %d" % len(inst))
by_name = {e["name"]: e for e in inst}
check(by_name.get("custom event", {}).get("args", {}).get("data") == "hello world", "chrome: custom event data")
check(by_name.get("typed event", {}).get("args", {}).get("hex") == "000102", "chrome: typed event bytes")
hello = by_name.get("Hello", {})
check(hello.get("cat") == "MyProviderName" and hello.get("args", {}).get("count") == 42 and
      hello.get("args", {}).get("msg") == "world", "chrome: structured event fields as args")
spans = [e for e in events if e["ph"] in "be"]
check([e["ph"] for e in spans] == ["b", "e"] and all(e["name"] == "Work" for e in spans) and
      len({e["id"] for e in spans}) == 1, "chrome: activity start/stop as one async slice")
check(not [e for e in events if e["ph"] not in "XMibe"], "chrome: only calls, names, instants, spans")
check(doc["otherData"]["unmatched_exits"] == unmatched, "chrome: unmatched exits reported")

# ------------------------------------------------------------------ folded
def folded_name(n):
    return n.replace(";", ":")


def read_folded(path):
    d = {}
    for line in open(path):
        stack, w = line.rstrip("\n").rsplit(" ", 1)
        d[stack] = int(w)
    return d


self_ticks, ncalls = collections.Counter(), collections.Counter()
for c in calls:
    key = ";".join(folded_name(names[i]) for i in c["path"])
    self_ticks[key] += c["self"]
    ncalls[key] += 1
out = os.path.join(work, "calls.folded")
rc, err = convert(trace, "folded", out)
check(rc == 0, "folded: exit code %d" % rc)
want = {k: round_div(v * 10**9, tps) for k, v in self_ticks.items() if round_div(v * 10**9, tps)}
check(read_folded(out) == want, "folded: self times differ:\n got %s\nwant %s" % (read_folded(out), want))
rc, err = convert(trace, "folded", out, "--weight", "calls")
check(read_folded(out) == dict(ncalls), "folded --weight calls: counts differ: %s" % read_folded(out))

# ------------------------------------------------------------------ svg
def svg_frames(path):
    root = ET.parse(path).getroot()   # raises if not well-formed
    check(root.find(SVG + "script") is not None, "svg: inline script present")
    frames = []
    for g in root.iter(SVG + "g"):
        if g.get("class") == "f":
            title = g.find(SVG + "title").text
            frames.append((title.rsplit(" (", 1)[0], int(g.get("fw")), int(g.get("fd"))))
    return collections.Counter(frames)


def want_svg(weights, min_fraction):
    subtree = collections.Counter()
    for key, w in weights.items():
        parts = key.split(";")
        for k in range(1, len(parts) + 1):
            subtree[tuple(parts[:k])] += w
    total = sum(weights.values())
    frames = collections.Counter({("all", total, 0): 1})
    for p, w in subtree.items():   # frames too narrow to see are left out, with their callees
        if all(subtree[p[:k]] >= min_fraction * total for k in range(1, len(p) + 1)):
            frames[(names_by_folded[p[-1]], w, len(p))] += 1
    return frames


SVG = "{http://www.w3.org/2000/svg}"
names_by_folded = {folded_name(n): n for n in names.values()}
out = os.path.join(work, "calls.svg")
for weight, weights in (("calls", dict(ncalls)), ("time", want)):
    rc, err = convert(trace, "svg", out, "--weight", weight)
    check(rc == 0, "svg: exit code %d" % rc)
    got, exp = svg_frames(out), want_svg(weights, 0.1 / 1180)
    check(got == exp, "svg --weight %s: frames differ:\n got %s\nwant %s" % (weight, sorted(got), sorted(exp)))

# ------------------------------------------------------------------ yaml vs llvm-xray
for name in ("calls", "yaml", "empty"):
    t = os.path.join(work, name + ".fr")
    mine, theirs = os.path.join(work, name + ".mine.yaml"), os.path.join(work, name + ".llvm.yaml")
    rc, err = convert(t, "yaml", mine, "--ids")
    check(rc == 0, "yaml %s: exit code %d" % (name, rc))
    subprocess.run([llvm_xray, "convert", "--output-format=yaml", t, "-o", theirs], check=True)
    a, b = open(mine, "rb").read().splitlines(), open(theirs, "rb").read().splitlines()
    diff = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    check(len(a) == len(b) and not diff, "yaml %s: differs from llvm-xray (%d vs %d lines) %s" %
          (name, len(a), len(b), diff[:3]))
mine = os.path.join(work, "calls.names.yaml")
convert(trace, "yaml", mine)
check(b"function: main," in open(mine, "rb").read(), "yaml: names from the trace's table")

empty = os.path.join(work, "empty.fr")
for fmt in ("chrome", "folded", "svg"):
    out = os.path.join(work, "empty." + fmt)
    rc, err = convert(empty, fmt, out)
    check(rc == 0, "empty trace, %s: exit code %d" % (fmt, rc))
check(json.load(open(os.path.join(work, "empty.chrome")))["traceEvents"] == [], "empty trace: no chrome events")
check(open(os.path.join(work, "empty.folded")).read() == "", "empty trace: no folded stacks")
ET.parse(os.path.join(work, "empty.svg"))

# ------------------------------------------------------------------ bad input, bad usage
data = open(trace, "rb").read()
cut = os.path.join(work, "cut.fr")
for size in list(range(0, len(data), 97)) + [len(data) - 1]:
    open(cut, "wb").write(data[:size])
    for fmt in ("chrome", "folded", "svg", "yaml"):
        out = os.path.join(work, "cut." + fmt)
        rc, err = convert(cut, fmt, out)
        check(rc in (0, 1), "truncated at %d, %s: exit code %d" % (size, fmt, rc))
        if rc == 1:
            check(cut in err and "offset" in err, "truncated at %d, %s: message names file and offset: %r"
                  % (size, fmt, err))
        if fmt == "chrome" and os.path.exists(out) and os.path.getsize(out):
            try:
                json.load(open(out))
            except ValueError as e:
                check(False, "truncated at %d: chrome output is not JSON: %s" % (size, e))
open(cut, "wb").write(os.urandom(4096))
rc, err = convert(cut, "chrome", os.path.join(work, "rand.json"))
check(rc == 1 and "offset" in err, "random bytes: exit 1 with offset (%d %r)" % (rc, err))
rc, err = convert(os.path.join(work, "missing.fr"), "chrome", os.path.join(work, "x.json"))
check(rc == 1, "missing file: exit 1")
for args in ([], [trace], [trace, "--format", "png"], [trace, "-f", "folded", "--weight", "x"],
             [trace, "-f"], [trace, "--bogus"]):
    p = subprocess.run([flightrec, "convert", *args], capture_output=True, text=True)
    check(p.returncode == 2, "usage %s: exit 2, got %d" % (args, p.returncode))
# An option of one format given with another does nothing there: refused, naming it (as
# --thread-root, --max-stacks and --max-depth were); these three were taken and ignored.
for opt, fmts in ((["--ids"], ("chrome", "perfetto", "folded", "svg")),
                  (["--weight", "calls"], ("chrome", "perfetto", "yaml")),
                  (["--title", "T"], ("chrome", "perfetto", "folded", "yaml"))):
    for fmt in fmts:
        out = os.path.join(work, "unused." + fmt)
        p = subprocess.run([flightrec, "convert", trace, "-f", fmt, *opt, "-o", out],
                           capture_output=True, text=True)
        check(p.returncode == 2 and opt[0] in p.stderr and fmt in p.stderr,
              "%s with -f %s: want exit 2 naming both, got %d %r" % (opt[0], fmt, p.returncode, p.stderr))
p = subprocess.run([flightrec, "convert", "--help"], capture_output=True, text=True)
check(p.returncode == 0 and "--format" in p.stdout, "--help")

finish("all convert checks passed")
