#!/usr/bin/env python3
"""analysis_stacks_bounded.py - `stack` and `convert --format folded|svg` on a trace with
hundreds of thousands of distinct stacks (bench/analysis_gen.c, variety 3):
  - memory grows with the number of distinct stacks by tens of bytes a stack (peak RSS
    of the unbounded run, minus the bounded run's, divided by the stacks: <= 120 bytes);
  - --max-stacks N keeps at most 2N+1 stacks, counts the rest in [other] frames, loses no
    call (the folded call counts add up to the unbounded run's), says so on stderr, and
    its peak RSS stays small;
  - --max-stacks is refused where it would do nothing (chrome) or is not a count.
usage: analysis_stacks_bounded.py FLIGHTREC GENERATOR WORKDIR [--no-rss=WHY]
"""
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

import frtest
from frtest import check, finish

flightrec, generator, work = sys.argv[1:4]
# Not under ASan nor an emulator (--no-rss=WHY): memory not the command's would swamp it.
gnu_time = "/usr/bin/time"
no_rss = frtest.no_rss_reason(sys.argv[4:])
measure_rss = no_rss is None
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "many.xray")
subprocess.run([generator, trace, os.path.join(work, "many-map.yaml"), "600000", "2", "3"],
               check=True, stdout=subprocess.DEVNULL)


def run(*args):
    """exit code, stdout and stderr of one flightrec run"""
    return frtest.run(flightrec, *args)


def run_rss(*args):
    """Same, plus the run's peak RSS (KiB) from GNU time (a fork of Python would report
    Python's RSS as the child's peak), or None when it is not measured."""
    if not measure_rss:
        return (*run(*args), None)
    tf = os.path.join(work, "time")
    p = subprocess.run([gnu_time, "-f", "%M", "-o", tf, flightrec, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr, int(open(tf).read().split()[-1])


def folded(text):
    d = {}
    for line in text.splitlines():
        stack, n = line.rsplit(" ", 1)
        d[stack] = int(n)
    return d


rc, out, err, rss_all = run_rss("stack", trace, "-f", "folded", "--value", "calls")
check(rc == 0, "stack: exit %d %s" % (rc, err))
full = folded(out)
calls = sum(full.values())
check(len(full) > 200000, "the trace has %d distinct stacks (want > 200,000)" % len(full))

N = 2000
rc, out, err, rss_bounded = run_rss("stack", trace, "-f", "folded", "--value", "calls", "--max-stacks", str(N))
check(rc == 0, "stack --max-stacks: exit %d %s" % (rc, err))
b = folded(out)
check(len(b) <= 2 * N + 1, "--max-stacks %d: %d stacks (at most %d)" % (N, len(b), 2 * N + 1))
check(sum(b.values()) == calls, "--max-stacks: %d calls, unbounded %d" % (sum(b.values()), calls))
check(any(s.endswith("[other]") for s in b), "--max-stacks: [other] stacks")
check("[other]" in err and "--max-stacks" in err, "--max-stacks: stderr says calls were merged: %r" % err)
kept = {s: n for s, n in b.items() if "[other]" not in s}
check(all(full.get(s) == n for s, n in kept.items()), "--max-stacks: the stacks kept have their exact counts")
if measure_rss:
    per_stack = (rss_all - rss_bounded) * 1024 / len(full)
    print("peak RSS: %d KiB unbounded (%d stacks), %d KiB with --max-stacks %d: %.0f bytes a stack"
          % (rss_all, len(full), rss_bounded, N, per_stack))
    check(per_stack <= 120, "memory per distinct stack %.0f bytes (want <= 120)" % per_stack)
    check(rss_bounded < 12 * 1024, "--max-stacks %d: peak RSS %d KiB (want < 12 MiB)" % (N, rss_bounded))
else:
    print("peak RSS not checked: %s" % no_rss)

# --top on the same trace: the same first stacks as the full sort
rc, out, err = run("stack", trace, "-f", "folded", "--value", "calls", "--sort", "calls", "--top", "5")
top = folded(out)
want = sorted(full.values(), reverse=True)[:5]
check(sorted(top.values(), reverse=True) == want, "--top 5: the 5 largest: %s vs %s" % (list(top.values()), want))

# convert: folded and svg in bounded mode
outp = os.path.join(work, "b.folded")
rc, _, err = run("convert", trace, "-f", "folded", "--weight", "calls", "--max-stacks", str(N), "-o", outp)
cb = folded(open(outp).read())
check(rc == 0 and len(cb) <= 2 * N + 1 and sum(cb.values()) == calls,
      "convert folded --max-stacks: exit %d, %d stacks, %d calls" % (rc, len(cb), sum(cb.values())))
outp = os.path.join(work, "b.svg")
rc, _, err = run("convert", trace, "-f", "svg", "--max-stacks", str(N), "-o", outp)
check(rc == 0, "convert svg --max-stacks: exit %d %s" % (rc, err))
ET.parse(outp)   # well-formed

for args in (["convert", trace, "-f", "chrome", "--max-stacks", "5"], ["stack", trace, "--max-stacks", "0"],
             ["convert", trace, "-f", "folded", "--max-stacks", "x"]):
    rc, _, err = run(*args)
    check(rc == 2 and "max-stacks" in err, "%s: exit 2 naming --max-stacks (got %d: %s)" % (args[1:], rc, err))

finish()
