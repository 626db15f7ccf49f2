#!/usr/bin/env python3
"""analysis_stacks_spill.py - every stack of a trace with more distinct stacks than the
tree may hold, in bounded memory (src/analysis/stack_spill.c): on a trace of about 400,000
distinct stacks (bench/analysis_gen.c, variety 3) with the tree limited to 4096 nodes
(FLIGHTREC_STACKS_IN_MEMORY), so that it is written to temporary files a hundred times
and merged:
  - `convert -f folded` and `-f svg` (time and calls, --thread-root) and `stack` (its
    default first 1000, --top 20 --sort calls, which reads the trace twice) write exactly
    the bytes of the run that keeps every stack in memory;
  - the spilled runs' peak RSS stays under 24 MiB and under half the in-memory run's
    (stack: under 32 MiB, 8 MiB less; its first read keeps a bounded tree of 25 MiB):
    memory that grew with the distinct stacks would fail this;
  - a temporary directory that cannot be written, or files limited by ulimit -f, give a
    message naming the directory and exit status 1, never a crash nor a partial success.
usage: analysis_stacks_spill.py FLIGHTREC GENERATOR WORKDIR [--no-rss=WHY]
"""
import os
import resource
import subprocess
import sys

import frtest
from frtest import check, finish

flightrec, generator, work = sys.argv[1:4]
gnu_time = "/usr/bin/time"   # (a child of Python would count Python's pages as its own)
no_rss = frtest.no_rss_reason(sys.argv[4:])
measure_rss = no_rss is None
if not measure_rss:
    print("peak RSS not checked: %s (every output is still compared)" % no_rss)
frtest.workdir(work, fresh=True)
trace = os.path.join(work, "many.xray")
subprocess.run([generator, trace, os.path.join(work, "many-map.yaml"), "1200000", "3", "3"],
               check=True, stdout=subprocess.DEVNULL)
SMALL = "4096"
ALL = "33554432"   # more than the trace's stacks: nothing spilled


def run(limit, args, **kw):
    """(exit status, stdout bytes, stderr text, peak RSS in KiB or None)"""
    env = dict(os.environ, FLIGHTREC_STACKS_IN_MEMORY=limit)
    cmd = [flightrec, *args]
    tf = os.path.join(work, "rss")
    if measure_rss:
        cmd = [gnu_time, "-f", "%M", "-o", tf, *cmd]
    p = subprocess.run(cmd, capture_output=True, env=env, **kw)
    rss = int(open(tf).read().split()[-1]) if measure_rss and p.returncode == 0 else None
    return p.returncode, p.stdout, p.stderr.decode(errors="replace"), rss


r = run(ALL, ["stack", trace, "-f", "folded"])
distinct = r[1].count(b"\n")
check(r[0] == 0 and distinct > 300000, "the trace has %d distinct stacks (want > 300,000)" % distinct)

cases = [["convert", trace, "-f", "folded"],
         ["convert", trace, "-f", "folded", "--weight", "calls", "--thread-root"],
         ["convert", trace, "-f", "svg"],
         ["convert", trace, "-f", "svg", "--weight", "calls", "--thread-root"],
         ["stack", trace],
         ["stack", trace, "--top", "20", "--sort", "calls", "--thread-root"]]
for args in cases:
    name = " ".join(args[:1] + args[2:])
    rc_all, out_all, err_all, rss_all = run(ALL, args)
    rc, out, err, rss = run(SMALL, args)
    check(rc_all == 0 and rc == 0, "%s: exit %d in memory, %d spilled (%s)" % (name, rc_all, rc, err.strip()[:300]))
    check(out == out_all and len(out) > 1000, "%s: %d bytes spilled, %d in memory: %s" % (
        name, len(out), len(out_all), "the same" if out == out_all else "they differ"))
    check(err == err_all, "%s: stderr spilled %r, in memory %r" % (name, err[:300], err_all[:300]))
    if rss is not None and rss_all is not None:
        print("%s: peak RSS %d KiB spilled, %d KiB in memory" % (name, rss, rss_all))
        if args[0] == "convert":
            check(rss < 24 * 1024 and 2 * rss < rss_all,
                  "%s: peak RSS %d KiB spilled (want < 24 MiB and < half of %d KiB in memory)" % (name, rss, rss_all))
        else:   # (its first read keeps a bounded tree of 65,536 stacks: 25 MiB)
            check(rss < 32 * 1024 and rss + 8 * 1024 < rss_all,
                  "%s: peak RSS %d KiB spilled (want < 32 MiB and 8 MiB less than %d KiB in memory)"
                  % (name, rss, rss_all))

# Where the files cannot be: a clear message, status 1.
missing = os.path.join(work, "no-such-dir")
env = dict(os.environ, FLIGHTREC_STACKS_IN_MEMORY=SMALL, TMPDIR=missing)
p = subprocess.run([flightrec, "convert", trace, "-f", "folded"], capture_output=True, env=env)
err = p.stderr.decode(errors="replace")
check(p.returncode == 1 and missing in err and "temporary file" in err,
      "TMPDIR missing: exit %d (want 1), stderr %r" % (p.returncode, err[:300]))


def small_files():
    resource.setrlimit(resource.RLIMIT_FSIZE, (1 << 20, 1 << 20))


for args in (["convert", trace, "-f", "folded"], ["stack", trace]):
    env = dict(os.environ, FLIGHTREC_STACKS_IN_MEMORY=SMALL, TMPDIR=work)
    p = subprocess.run([flightrec, *args], capture_output=True, env=env, preexec_fn=small_files)
    err = p.stderr.decode(errors="replace")
    check(p.returncode == 1 and "File too large" in err and work in err,
          "%s with ulimit -f 1 MiB: exit %d (want 1), stderr %r" % (args[0], p.returncode, err[:300]))

finish()
