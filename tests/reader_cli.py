#!/usr/bin/env python3
"""reader_cli.py FLIGHTREC SAMPLE_PROG WORKDIR

`flightrec info` and `flightrec dump` on the builder's sample trace (tests/reader_tb_sample.c,
whose records are known): exact counts, times and filters; usage errors exit 2, bad files 1."""
import os, subprocess, sys

import frtest
from frtest import check, finish

flightrec, sample, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "sample.xray")
subprocess.run([sample, trace], check=True)


def run(*args):
    return frtest.run(flightrec, *args)


info = run("info", trace)
check(info.returncode == 0, "info exit 0")
lines = set(info.stdout.splitlines())
for want in ["format: XRay FDR version 5", "header frequency: 1000000000 Hz, constant TSC, nonstop TSC",
             "functions in trace table: 3", "blocks: 3", "records: 14", "  enter: 5",
             "  enter-arg: 1", "  exit: 5", "  tail-exit: 1", "  custom events: 1",
             "  typed events: 1 (structured events 0)", "metadata events: 3 (function 3)",
             "first tsc: 1000", "last tsc: 8589935792", "duration: 8589934.792 us", "threads: 2",
             "thread 100: pid 42, blocks 1, records 10, from 0.000 us to 8589934.792 us",
             "thread 200: pid 42, blocks 1, records 4, from 4.000 us to 4.400 us"]:
    check(want in lines, "info line %r" % want)


def dump(*args):
    d = run("dump", trace, *args)
    check(d.returncode == 0, "dump %s exit 0" % (args,))
    return [l.split() for l in d.stdout.splitlines()[1:]]


rows = dump()
check(len(rows) == 16, "dump: 14 records + 2 thread blocks, got %d" % len(rows))
check(rows[1] == ["342", "0.000", "100", "0", "enter", "1", "main"], "first record %r" % rows[1])
check(rows[4] == ["366", "0.400", "100", "0", "enter-arg", "2", "work", "arg=7"], "arg %r" % rows[4])
check(rows[5][4:] == ["custom", "size=5", '"hello"'], "custom %r" % rows[5])
check(rows[6][4:] == ["typed", "type=3", "size=2", '"xy"'], "typed %r" % rows[6])
check(rows[8][:5] == ["453", "8589934.592", "100", "0", "enter"], "after TSC wrap %r" % rows[8])
check(rows[13][3] == "0", "cpu after NewCPUId %r" % rows[13])
check(len(dump("--tid", "200")) == 5, "--tid 200: block + 4 records")
check(len(dump("--function", "work")) == 8, "--function work: 2 blocks + 6 records")
check(len(dump("--function=3")) == 6, "--function=3: 2 blocks + 4 records")
r = dump("--from", "4us", "--to", "4.3us")
check([x[0] for x in r] == ["477", "557", "581", "589"], "--from/--to %r" % r)
check(len(dump("--from", "4300ns", "--to", "0.0044ms")) == 2, "--from/--to with units")
meta = dump("--meta")
check(sum(1 for x in meta if "type=0xf006(function)" in x) == 3, "--meta shows the function table")

for args, code in [(["info"], 2), (["info", trace, trace], 2), (["dump", trace, "--bogus"], 2),
                   (["dump", trace, "--from"], 2), (["dump", trace, "--from", "1parsec"], 2),
                   # TIME is since the trace start: a negative one was taken as the start
                   # itself (--from -1ms printed everything), as replay -t refuses it
                   (["dump", trace, "--from", "-1ms"], 2), (["dump", trace, "--to", "-5"], 2),
                   (["dump", trace, "--tid", "x"], 2), (["info", "--help"], 0), (["dump", "-h"], 0),
                   (["info", os.path.join(work, "missing.xray")], 1),
                   (["dump", trace, "--binary", os.path.join(work, "missing-bin")], 1)]:
    p = run(*args)
    check(p.returncode == code, "%s: exit %d, expected %d (%s)" % (args, p.returncode, code,
                                                                  p.stderr.strip()))
    if code:
        check(p.stderr.startswith("flightrec %s: " % args[0]), "%s: message %r" % (args, p.stderr))
finish()
