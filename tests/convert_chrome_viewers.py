#!/usr/bin/env python3
"""convert_chrome_viewers.py - Chrome JSON as the viewers read it (issue 24 item 8).

speedscope names a frame by its event's name followed by the event's args as JSON, so a
call's event must have no args but data of that call (file and line were in every one:
`main {"file":...,"line":17}`): where each function starts is said once, in
otherData.functions. Activities keep their parents: a child activity's async slice has
its parent's root id (it nests under it in the same async track), its own id and its
parent's in args. A trace of events and spans but no calls has one empty complete event,
so that a viewer of complete events only (speedscope) has a profile to show (it stayed
blank). Every output is checked as such a viewer reads it: JSON, per thread complete
events nested (none partly overlaps another), nestable async begins and ends matched by
id in time order. The size: with file and line in every call the JSON of a recording was
5.3 times its Perfetto file; it must stay under 3.5 times.
usage: convert_chrome_viewers.py FLIGHTREC CONVERT_PROG EVENTS_RECORD WORKDIR
"""
import collections
import json
import os
import sys

from frtest import check, finish, run, run_ok, workdir

flightrec, prog, events_prog, work = sys.argv[1:5]
workdir(work, fresh=True)


def chrome(trace, name):
    out = os.path.join(work, name)
    run_ok(flightrec, "convert", trace, "--format", "chrome", "-o", out)
    return out, json.load(open(out))


def viewer_checks(doc, what):
    per_thread = collections.defaultdict(list)
    open_async = collections.defaultdict(list)
    for e in doc["traceEvents"]:
        if e["ph"] == "X":   # (in integer ns: as floats, ts + dur may pass the next ts)
            per_thread[(e["pid"], e["tid"])].append((round(e["ts"] * 1000), -round(e["dur"] * 1000), e["name"]))
        elif e["ph"] in "BE":
            check(False, "%s: a thread-scoped %s event (unmatched B/E hang viewers): %s" % (what, e["ph"], e))
        elif e["ph"] == "b":
            open_async[e["id"]].append(e)
        elif e["ph"] == "e":
            starts = open_async[e["id"]]
            check(starts and starts[-1]["name"] == e["name"] and starts[-1]["ts"] <= e["ts"],
                  "%s: async end %s without its begin" % (what, e["name"]))
            if starts:
                starts.pop()
    check(not any(open_async.values()), "%s: async begins never ended: %s" % (what, dict(open_async)))
    check(per_thread, "%s: no complete event: a viewer of calls (speedscope) shows nothing" % what)
    for key, xs in per_thread.items():
        xs.sort()
        stack = []
        for ts, neg, name in xs:
            end = ts - neg
            while stack and stack[-1] <= ts:
                stack.pop()
            check(not stack or end <= stack[-1],
                  "%s: thread %s: %s [%s, %s] overlaps its caller's end %s" % (what, key, name, ts, end,
                                                                           stack and stack[-1]))
            stack.append(end)
    return per_thread


# a recording of an instrumented program with debug information
trace = os.path.join(work, "calls.fr")
run_ok(flightrec, "record", "-o", trace, "--", prog)
path, doc = chrome(trace, "calls.json")
viewer_checks(doc, "calls")
calls = [e for e in doc["traceEvents"] if e["ph"] == "X"]
check(calls and all("file" not in e.get("args", {}) and "line" not in e.get("args", {}) for e in calls),
      "calls: file and line in a call's args: %s" % [e for e in calls if "args" in e][:2])
check(not [e for e in calls if set(e.get("args", {})) - {"arg", "end"}],   # the call's own data only
      "calls: a call with args: %s" % [e for e in calls if set(e.get("args", {})) - {"arg", "end"}][:2])
functions = {f["name"]: f for f in doc["otherData"].get("functions", [])}
check(functions.get("main", {}).get("file", "").endswith("convert_prog.c") and
      isinstance(functions.get("main", {}).get("line"), int),
      "calls: otherData.functions does not say where main starts: %s" % functions.get("main"))
check(set(functions) >= {e["name"] for e in calls}, "calls: a function called but not listed: %s"
      % ({e["name"] for e in calls} - set(functions)))
pf = os.path.join(work, "calls.pftrace")
run_ok(flightrec, "convert", trace, "--format", "perfetto", "-o", pf)
ratio = os.path.getsize(path) / os.path.getsize(pf)
print("chrome %d bytes, perfetto %d bytes: %.2fx" % (os.path.getsize(path), os.path.getsize(pf), ratio))
check(ratio < 3.5, "calls: the Chrome JSON is %.2f times the Perfetto file" % ratio)

# events and spans only: Outer > Inner on the main thread, Job (parent Outer) on a worker
trace = os.path.join(work, "events.fr")
run_ok(events_prog, trace)
path, doc = chrome(trace, "events.json")
per_thread = viewer_checks(doc, "events")
check([x[2] for xs in per_thread.values() for x in xs] == ["(no calls in this trace)"],
      "events: the one empty complete event: %s" % dict(per_thread))
begins = {e["name"]: e for e in doc["traceEvents"] if e["ph"] == "b"}
outer, inner, job = begins.get("Outer"), begins.get("Inner"), begins.get("Job")
check(outer and inner and job, "events: spans Outer, Inner, Job: %s" % sorted(begins))
if outer and inner and job:
    check(inner["id"] == outer["id"], "events: Inner is not nested under Outer (ids %s, %s)" % (inner["id"], outer["id"]))
    check(inner["args"].get("parent") == outer["args"].get("activity") != inner["args"].get("activity"),
          "events: Inner's args do not name its parent: %s" % inner["args"])
    check(job["args"].get("parent") == outer["args"].get("activity"),
          "events: Job's args do not name its parent Outer: %s" % job["args"])
    check("parent" not in outer["args"], "events: Outer has no parent: %s" % outer["args"])
finish("chrome JSON: clean names, functions listed once, spans with parents, events-only viewable")
