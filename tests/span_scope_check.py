#!/usr/bin/env python3
"""span_scope_check.py FLIGHTREC PROGRAM WORKDIR OPEN_SPANS - spans left by return, break,
goto, exceptions and longjmp (issue 24 item 6).

Runs PROGRAM (tests/progs/span_scope.c, built as C or as C++), dumps its trace and
checks every event that has an "expect" field: it must be recorded under the span of that
name ("-": under none), by the activity id `flightrec dump` shows. Every span has a stop
event except those named in OPEN_SPANS (comma-separated: FR_SPAN_START spans whose stop
the program skips on purpose), and those have none.
"""
import json
import os
import subprocess
import sys


def main():
    fr, prog, work, open_spans = sys.argv[1:5]
    open_spans = set(filter(None, open_spans.split(",")))
    os.makedirs(work, exist_ok=True)
    trace = os.path.join(work, os.path.basename(prog) + ".fr")
    if os.path.exists(trace):
        os.remove(trace)
    env = dict(os.environ)
    env.pop("FLIGHTREC_OPTIONS", None)
    subprocess.run([prog, trace], check=True, env=env)
    out = subprocess.run([fr, "dump", trace], check=True, capture_output=True,
                         text=True).stdout
    events = []
    for line in out.splitlines():
        if "tracepoint=" not in line:
            continue
        body = line[line.index("{", line.index("tracepoint=")):]
        events.append(json.loads(body))
    if not events:
        sys.exit("FAIL: no events in the trace")
    names = {}      # activity id -> span name
    stopped = set()
    failures = []
    checked = 0
    for e in events:
        name = e["n"].split(":", 1)[1]
        meta = e.get("meta", {})
        act = meta.get("activity")
        op = meta.get("opcode", 0)
        if op == 1:
            names[act] = name
        elif op == 2:
            stopped.add(act)
        elif "expect" in e:
            got = names.get(act, "?" + str(act)) if act else "-"
            checked += 1
            if got != e["expect"]:
                failures.append("%s recorded under %s, expected under %s" % (name, got, e["expect"]))
    for act, name in names.items():
        if name in open_spans and act in stopped:
            failures.append("span %s has a stop event: the program skipped its stop" % name)
        if name not in open_spans and act not in stopped:
            failures.append("span %s was never stopped" % name)
    if failures:
        print(out)
        sys.exit("FAIL:\n  " + "\n  ".join(failures))
    print("PASS: %d events under the expected span, %d spans, %d stopped"
          % (checked, len(names), len(stopped)))


if __name__ == "__main__":
    main()
