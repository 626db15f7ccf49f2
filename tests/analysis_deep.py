#!/usr/bin/env python3
"""analysis_deep.py - a runaway recursion (tests/progs/analysis_traces.c's deep.xray: main
-> work x 3000 levels, work at depth d lasting 6001 - 2d ticks, then main -> leaf), the
shape of a stack overflow's trace. Before --max-depth, `stack` printed one stack a level,
each a level longer (15 GB of text for a 65,536-level crash dump of 2 MB), folded stacks
the same, and replay indented each line by two blanks a level.
  - stack and convert -f folded keep at most --max-depth function frames (default 1024):
    the calls below are in one "[deeper]" frame under the last kept one, with all their
    calls, their self time, and as total the outermost cut call's time; nothing is lost
    (calls and self time add up to the uncut output's); a note on stderr says so;
  - a shallow stack (main;leaf) is unchanged; --max-depth large enough cuts nothing;
  - the SVG flame graph stays within the depth;
  - --max-depth 0, garbage, or on a format without stacks is bad usage (exit 2);
  - replay indents at most 128 levels and says "[depth N]" below.
usage: analysis_deep.py FLIGHTREC GENERATOR WORKDIR
"""
import json
import os
import re
import sys
import xml.etree.ElementTree as ET

import frtest
from frtest import check, finish, folded

flightrec, generator, work = sys.argv[1:4]
frtest.workdir(work, fresh=True)
frtest.run_ok(generator, work)
trace = os.path.join(work, "deep.xray")
LEVELS = 3000          # work's levels under main
TICK_NS = 1000         # the generator's clock: 1,000,000 ticks a second


def fr(*args, expect=0):
    return frtest.run(flightrec, *args, expect=expect)


def frames(stack):
    return stack.split(";")


def check_cut(lines, depth, what, value):
    """lines: folded stack -> value; cut at depth function frames"""
    deeper = [s for s in lines if s.endswith(";[deeper]")]
    check(len(deeper) == 1, "%s: one [deeper] stack, got %d" % (what, len(deeper)))
    check(max(len(frames(s)) for s in lines) == depth + 1,
          "%s: longest stack %d frames, expected %d + [deeper]"
          % (what, max(len(frames(s)) for s in lines), depth))
    if deeper:
        f = frames(deeper[0])
        check(f[:depth] == ["main"] + ["work"] * (depth - 1),
              "%s: [deeper] under main and %d work frames" % (what, depth - 1))
        below = LEVELS + 1 - depth + (depth == 1)   # (at depth 1, leaf too)
        if value == "calls":
            check(lines[deeper[0]] == below, "%s: [deeper] has the %d calls below depth %d, got %d"
                  % (what, below, depth, lines[deeper[0]]))
    if depth > 1:
        check(lines.get("main;leaf") == (1 if value == "calls" else 5 * TICK_NS),
              "%s: main;leaf unchanged: %s" % (what, lines.get("main;leaf")))
    else:
        check("main;leaf" not in lines, "%s: leaf is below the first frame too" % what)


# Uncut: one stack a level.
r = fr("stack", trace, "-f", "folded", "--value", "calls", "--max-depth", "100000")
full_calls = folded(r.stdout)
check(len(full_calls) == LEVELS + 2, "uncut: %d stacks, expected %d" % (len(full_calls), LEVELS + 2))
check("[deeper]" not in r.stdout and "max-depth" not in r.stderr, "uncut: nothing cut, nothing said")
r = fr("stack", trace, "-f", "folded", "--value", "self", "--max-depth", "100000")
full_self = folded(r.stdout)

for depth, args in ((1024, []), (100, ["--max-depth", "100"]), (1, ["--max-depth", "1"])):
    what = "stack --max-depth %d" % depth
    r = fr("stack", trace, "-f", "folded", "--value", "calls", *args)
    got = folded(r.stdout)
    check_cut(got, depth, what + " calls", "calls")
    check(sum(got.values()) == sum(full_calls.values()),
          "%s: %d calls, the uncut output has %d" % (what, sum(got.values()), sum(full_calls.values())))
    check("--max-depth %d: %d calls deeper than %d frame%s counted in [deeper] frames"
          % (depth, LEVELS + 1 - depth + (depth == 1), depth, "s" if depth > 1 else "") in r.stderr, "%s: the note on stderr: %s" % (what, r.stderr))
    r = fr("stack", trace, "-f", "folded", "--value", "self", *args)
    got = folded(r.stdout)
    check_cut(got, depth, what + " self", "self")
    check(sum(got.values()) == sum(full_self.values()),
          "%s: self times add up to %d ns, the uncut output's to %d" % (what, sum(got.values()), sum(full_self.values())))
    # the same cut in convert's folded stacks (self time in ns)
    r = fr("convert", trace, "-f", "folded", *args)
    got = folded(r.stdout)
    check_cut(got, depth, "convert -f folded " + " ".join(args), "self")
    check(sum(got.values()) == sum(full_self.values()), "convert -f folded %s: self times add up" % args)
    check("calls deeper than %d frame" % depth in r.stderr,
          "convert -f folded %s: the note on stderr" % args)

# [deeper]'s total is the outermost cut call's time (work at depth 1024: 6001 - 2048
# ticks), not the sum of the nested calls' times; its calls and self as in folded.
r = fr("stack", trace, "-f", "json")
doc = json.loads(r.stdout)
deep = [s for s in doc["stacks"] if s["stack"][-1] == "[deeper]"]
check(len(deep) == 1 and deep[0]["total_ticks"] == 6001 - 2 * 1024 and deep[0]["calls"] == LEVELS + 1 - 1024,
      "json: [deeper] total_ticks %d calls %d, expected %d and %d"
      % (deep[0]["total_ticks"] if deep else -1, deep[0]["calls"] if deep else -1, 6001 - 2048, LEVELS + 1 - 1024))
check(len(doc["stacks"]) == 1024 + 2, "json: %d stacks, expected 1024 kept, [deeper], main;leaf" % len(doc["stacks"]))
r = fr("stack", trace)
check(max(len(line) for line in r.stdout.splitlines()) < 8 * 1100,
      "stack text: the longest line has %d characters" % max(len(line) for line in r.stdout.splitlines()))

# The flame graph: no frame deeper than main + 1023 work + [deeper] (+ "all").
r = fr("convert", trace, "-f", "svg", "--max-depth", "50")
root = ET.fromstring(r.stdout)
ns = "{http://www.w3.org/2000/svg}"
titles = [t.text for t in root.iter(ns + "title")]
check(any(t and t.startswith("[deeper]") for t in titles), "svg: a [deeper] frame")
ys = {float(rect.get("y")) for rect in root.iter(ns + "rect") if rect.get("y") not in (None, "0")}
check(len(ys) == 50 + 2, "svg --max-depth 50: %d frame rows, expected 52 (all, 50 kept, [deeper])" % len(ys))

# Bad usage.
for args in (["stack", trace, "--max-depth", "0"], ["stack", trace, "--max-depth", "x"],
             ["stack", trace, "--max-depth", "-3"], ["stack", trace, "--max-depth", "99999999999"],
             ["convert", trace, "-f", "folded", "--max-depth", "0"],
             ["convert", trace, "-f", "chrome", "--max-depth", "5"],
             ["convert", trace, "-f", "perfetto", "--max-depth", "5"]):
    r = fr(*args, expect=2)
    check("max-depth" in r.stderr, "%s: the message names --max-depth: %s" % (args, r.stderr.strip()))

# replay: every line at most 128 levels of indentation; the depth written below that.
r = fr("replay", trace)
lines = r.stdout.splitlines()
# the header, work's opening and closing lines but the innermost's one, main's two, leaf's
check(len(lines) == 1 + 2 * (LEVELS - 1) + 1 + 2 + 1, "replay: %d lines" % len(lines))
width = max(len(line) for line in lines)
check(width < 400, "replay: the longest line has %d characters" % width)
innermost = [line for line in lines if line.endswith("work();")]
check(len(innermost) == 1 and innermost[0].split("| ", 1)[1] == " " * 256 + "[depth %d] work();" % LEVELS,
      "replay: the innermost call, at depth %d: %s" % (LEVELS, innermost[:1]))
opened = [line.split("| ", 1)[1] for line in lines if line.endswith("work() {")]
# opened[k] is the work frame at depth k + 1
check(opened[126] == " " * 254 + "work() {" and opened[127] == " " * 256 + "work() {"
      and opened[128] == " " * 256 + "[depth 129] work() {",
      "replay: indentation up to 128 levels, then the depth: %s" % opened[126:129])
closed = [line for line in lines if re.search(r"\} /\* work \*/$", line)]
check(len(closed) == LEVELS - 1 and "[depth 130] } /* work */" in closed[-130],
      "replay: closing lines of deep frames say their depth too")

# 300,000 levels (a stack overflow's depth): every call counted by account (the analyses
# stopped at 65,536 frames before and said "calls deeper than 65536 frames ignored").
deeper = os.path.join(work, "deeper.xray")
r = fr("account", deeper, "-f", "csv")
rows = {row[1]: row for row in (line.split(",") for line in r.stdout.splitlines()[1:])}
check("work" in rows and rows["work"][2] == "300000", "account deeper.xray: work's calls %s, expected 300000"
      % (rows.get("work", ["", "", "?"])[2]))
check("ignored" not in r.stderr, "account deeper.xray: no call ignored: %s" % r.stderr.strip())
r = fr("stack", deeper, "-f", "folded", "--value", "calls")
got = folded(r.stdout)
check(got.get(";".join(["main"] + ["work"] * 1023 + ["[deeper]"])) == 300001 - 1024 and sum(got.values()) == 300002,
      "stack deeper.xray: [deeper] %s calls of %d, expected %d of 300002"
      % (got.get(";".join(["main"] + ["work"] * 1023 + ["[deeper]"])), sum(got.values()), 300001 - 1024))

finish("analysis_deep: --max-depth cuts stacks, folded and svg with nothing lost; replay's indentation bounded")
