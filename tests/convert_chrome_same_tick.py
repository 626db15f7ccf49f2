#!/usr/bin/env python3
"""convert_chrome_same_tick.py - Chrome JSON of calls that share clock ticks, as viewers
read it. On a clock coarser than the calls (aarch64's generic timer at tens of MHz, about
1 us under qemu-user) a call of no duration and the sibling after it start at one tick,
and a caller and its only callee may begin and end at the same ticks. A viewer rebuilds
the call tree from complete events alone: per thread, sorted by ts, the longer first at
one ts (the order of equal events unspecified), each inside the one before whose interval
holds it. Before, `convert -f chrome` wrote such calls at their ticks' times, and viewers
nested the zero-length call inside its sibling (seen in functrace_cxx_calls under
qemu-aarch64: one app::Box<long>::get inside another).
Checked on a file written here (basic mode, 1 MHz: a tick is 1000 ns):
  - the tree a viewer rebuilds, with ties taken in the file's order and in the reverse
    order, is the trace's, call for call;
  - times move only where ticks are shared, by a few nanoseconds, never before the tick;
    a call whose ticks no other shares keeps its exact ts and dur.
usage: convert_chrome_same_tick.py FLIGHTREC WORKDIR
"""
import collections
import json
import os
import struct
import sys

from frtest import check, finish, run_ok, workdir

flightrec, work = sys.argv[1:3]
workdir(work, fresh=True)
TICK_NS = 1000


def rec(kind, fid, tsc, tid):
    return struct.pack("<HBBiQII8x", 0, 0, kind, fid, tsc, tid, 7)


# (function id, enter tick, exit tick, callees), per thread
TREES = {
    7: [(1, 100, 108, [
        (2, 101, 101, []),              # no duration, then its sibling in the same tick
        (3, 101, 103, []),
        (4, 103, 103, [(5, 103, 103, [])]),   # caller and callee in one tick
        (6, 103, 103, []),              # and a sibling after them, in that tick still
        (7, 104, 105, [(8, 104, 105, [])]),   # caller and callee of the same ticks
        (9, 106, 107, []),              # shares no tick: exact
    ])],
    8: [(10, 200, 200, [(11, 200, 200, []), (12, 200, 200, [])])],
}


def records(tid, calls):
    out = []
    for fid, enter, exit_, callees in calls:
        out.append(rec(0, fid, enter, tid))
        out += records(tid, callees)
        out.append(rec(1, fid, exit_, tid))
    return out


def paths(calls, prefix=()):
    for fid, enter, exit_, callees in calls:
        yield prefix + (fid,), enter, exit_
        yield from paths(callees, prefix + (fid,))


path = os.path.join(work, "same_tick.xray")
body = b"".join(b"".join(records(tid, calls)) for tid, calls in TREES.items())
open(path, "wb").write(struct.pack("<HHIQQ8x", 3, 0, 0, 10**9 // TICK_NS, 0) + body)

doc = json.loads(run_ok(flightrec, "convert", path, "-f", "chrome").stdout)
events = collections.defaultdict(list)
for e in doc["traceEvents"]:
    if e["ph"] == "X":
        events[e["tid"]].append((round(e["ts"] * 1000), round(e["dur"] * 1000), e["name"]))
names = {}
for tid, evs in events.items():
    for _, _, name in evs:
        fid = int("".join(ch for ch in name if ch.isdigit()) or 0)
        names[name] = fid


def viewer_tree(evs, reverse_ties):
    """Call paths (function ids, root first) as a viewer nests the events EVS."""
    order = list(range(len(evs)))
    if reverse_ties:
        order.reverse()
    ranked = sorted(order, key=lambda i: (evs[i][0], -evs[i][1]))
    stack, found = [], []
    for i in ranked:
        ts, dur, name = evs[i]
        while stack and stack[-1][1] <= ts:
            stack.pop()
        stack.append((ts, ts + dur, names[name]))
        found.append(tuple(s[2] for s in stack))
    return sorted(found)


for tid, calls in TREES.items():
    evs = events.get(tid, [])
    want = sorted(p for p, _, _ in paths(calls))
    for reverse_ties in (False, True):
        got = viewer_tree(evs, reverse_ties)
        check(got == want, "thread %d (ties %s): a viewer nests %s, the trace is %s"
              % (tid, "reversed" if reverse_ties else "in file order", got, want))

# Times: never before the tick, a few ns after it at most; exact where no tick is shared.
origin = min(e[0] for evs in events.values() for e in evs) - 100 * TICK_NS
by_fid = {names[n]: (ts, dur) for evs in events.values() for ts, dur, n in evs}
for tid, calls in TREES.items():
    for p, enter, exit_ in paths(calls):
        ts, dur = by_fid.get(p[-1], (None, None))
        if ts is None:
            check(False, "function %d: no complete event" % p[-1])
            continue
        start, end = enter * TICK_NS + origin, exit_ * TICK_NS + origin
        check(start <= ts <= start + 10 and end <= ts + dur <= end + 10,
              "function %d: [%d, %d] ns, its ticks say [%d, %d]" % (p[-1], ts, ts + dur, start, end))
ts, dur = by_fid.get(9, (None, None))
check(ts == 106 * TICK_NS + origin and dur == TICK_NS,
      "function 9 (no tick shared): ts %s dur %s, want %d and %d" % (ts, dur, 106 * TICK_NS + origin, TICK_NS))
finish("chrome: calls that share ticks nest as they ran, times moved by nanoseconds only")
