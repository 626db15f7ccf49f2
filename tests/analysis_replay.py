#!/usr/bin/env python3
"""analysis_replay.py - `flightrec replay` on the known traces of convert_traces.c.

Expected calls are matched here from the generator's records (NAME.json: own stack
matching, own tick -> ns arithmetic, never flightrec's reader or tracker); the replay's
lines are parsed back into calls (a "name();" line is a call, a "name() {" line and its
"} /* name */" line are one) and must be exactly those calls: thread, name, depth (the
indentation), start time and duration as printed. Then the filters: --depth, --function,
--time-filter and --tid keep exactly the calls they should, and bad values are refused.
usage: analysis_replay.py FLIGHTREC CONVERT_TRACES WORKDIR
"""
import collections
import os
import re
import sys

from frtest import check, finish, known_calls, known_ns, known_traces, round_div, run

flightrec, generator, work = sys.argv[1:4]
spec = known_traces(generator, work)


def fmt_ts(ns):
    return "%s%d.%09d" % ("-" if ns < 0 else "", abs(ns) // 10**9, abs(ns) % 10**9)


def fmt_dur(ns):
    div, unit = 1000, "us"
    for u in ("ms", " s"):
        if ns >= div * 1000:
            div, unit = div * 1000, u
    return "%d.%03d %s" % (ns // div, ns % div * 1000 // div, unit)


tps = spec["ticks_per_second"]
names = {int(k): v for k, v in spec["names"].items()}


def expected_calls():
    """(tid, name, depth, start, duration, path) per call, the design's matching rules."""
    return [(c["tid"], names[c["id"]], c["depth"], fmt_ts(known_ns(spec, c["enter"])),
             fmt_dur(round_div((c["exit"] - c["enter"]) * 10**9, tps)),
             tuple(names[f] for f in c["path"]))
            for c in known_calls(spec["records"])[0]]


LINE = re.compile(r"^\s*(-?\d+\.\d{9})\s+(\d+\.\d{3} (?:us|ms| s))?\s+\[\s*(\d+)\] \| ( *)(.*)$")


args_seen = []


def replay(*args):
    p = run(flightrec, "replay", os.path.join(work, "calls.fr"), *args)
    calls, open_ = [], collections.defaultdict(list)
    for line in p.stdout.splitlines()[1:]:
        m = LINE.match(line)
        check(m is not None, "replay %s: line not in the format: %r" % (args, line))
        if not m:
            continue
        ts, dur, tid, indent, text = m.group(1), m.group(2), int(m.group(3)), len(m.group(4)), m.group(5)
        check(indent % 2 == 0, "indentation in steps of 2: %r" % line)
        text = re.sub(r"   \((closed by a caller's exit|still open at the end)\)$", "", text)
        # a call recorded with its first argument shows it: "eval(99) {", "eval(99);"
        a = re.match(r"^(.*)\((\d+)\)( \{|;)$", text)
        if a:
            args_seen.append((a.group(1), int(a.group(2))))
            text = a.group(1) + "()" + a.group(3)
        if text.endswith("() {"):
            check(dur is None, "an opening line has no duration: %r" % line)
            open_[tid].append((text[:-4], indent // 2, ts))
        elif text.startswith("} /* "):
            name, depth, start = open_[tid].pop()
            check(text == "} /* %s */" % name and depth == indent // 2,
                  "closing line matches its opening line: %r" % line)
            calls.append((tid, name, depth, start, dur))
        else:
            check(text.endswith("();") and dur is not None, "a one-line call: %r" % line)
            calls.append((tid, text[:-3], indent // 2, ts, dur))
    check(not any(open_.values()), "replay %s: every opening line is closed" % (args,))
    return p.returncode, collections.Counter(calls), p.stderr


want_all = expected_calls()
rc, got, err = replay()
check(rc == 0, "replay: exit %d %s" % (rc, err))
want = collections.Counter(c[:5] for c in want_all)
check(got == want, "replay: calls differ:\n got %s\nwant %s" % (sorted(got - want), sorted(want - got)))
check(sum(want.values()) >= 10, "the trace has %d calls" % sum(want.values()))
check(args_seen == [("eval", 99)],
      "replay shows the one call recorded with its argument as eval(99): %s" % args_seen)

# --depth 2: calls at depth 0 and 1 only
rc, got, _ = replay("--depth", "2")
want = collections.Counter(c[:5] for c in want_all if c[2] < 2)
check(rc == 0 and got == want, "--depth 2: %s vs %s" % (sorted(got), sorted(want)))

# --function parse: parse's calls and their callees, depth counted from parse
rc, got, _ = replay("--function", "parse")
want = collections.Counter()
for tid, name, depth, ts, dur, path in want_all:
    if "parse" in path:
        k = path.index("parse")
        want[(tid, name, depth - k, ts, dur)] += 1
check(rc == 0 and got == want and want, "--function parse: %s vs %s" % (sorted(got), sorted(want)))

# --time-filter: no call shorter than 0.3 us, every longer one kept
rc, got, _ = replay("--time-filter", "0.3us")
want = collections.Counter(c[:5] for c in want_all if c[4] and
                           not (c[4].endswith("us") and float(c[4].split()[0]) < 0.3))
check(rc == 0 and got == want, "--time-filter 0.3us: %s vs %s" % (sorted(got), sorted(want)))

# --tid
tids = sorted({c[0] for c in want_all})
rc, got, _ = replay("--tid", str(tids[-1]))
want = collections.Counter(c[:5] for c in want_all if c[0] == tids[-1])
check(rc == 0 and got == want, "--tid %d" % tids[-1])

# nothing matched: exit 1 with a message; bad values: exit 2
rc, got, err = replay("--function", "no_such_function")
check(rc == 1 and not got and "matched" in err, "--function matching nothing: exit 1 (%d %r)" % (rc, err))
for bad in (["--depth", "0"], ["--depth", "x"], ["--time-filter", "fast"], ["--tid", "-3"], ["--bogus"]):
    rc, _, err = replay(*bad)
    check(rc == 2, "%s: exit 2 (got %d %r)" % (bad, rc, err))

finish()
