#!/usr/bin/env python3
"""reader_events.py TRACE_PROG FLIGHTREC CORPUS.dat REFERENCE.json WORKDIR

Every event of the LinuxTracepoints corpus, stored as FR_TE_EVENT typed records in a
trace, comes out of `flightrec dump` decoded exactly as the reference decoder's JSON
(both parsed with Python's json module, compared in order). As in the events part's
corpus test: the reference writes some char32 values as invalid UTF-8 (read both sides
with surrogateescape), fields may repeat (objects kept as lists of pairs), NaN == NaN."""
import json, math, os, subprocess, sys


def parse(text):
    return json.loads(text, object_pairs_hook=lambda pairs: pairs)


def same(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    if type(a) != type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return a == b


prog, flightrec, corpus, reference, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "events.xray")
subprocess.run([prog, corpus, trace], check=True, stdout=subprocess.DEVNULL)
out = subprocess.run([flightrec, "dump", trace], check=True,
                     capture_output=True).stdout.decode("utf-8", "surrogateescape")
got = []
for line in out.splitlines()[1:]:
    if " typed " not in line:
        continue
    json_start = line.find("{")
    if json_start < 0:
        print("not decoded:", line)
        sys.exit(1)
    got.append(parse(line[json_start:]))
text = open(reference, "rb").read().decode("utf-8", "surrogateescape").lstrip("\ufeff")
want = parse("{" + text + "}")[0][1]
bad = [i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w)]
print("%d events decoded, reference has %d, %d differ" % (len(got), len(want), len(bad)))
for i in bad[:5]:
    print("event %d:\n  got  %s\n  want %s" % (i, json.dumps(got[i]), json.dumps(want[i])))
sys.exit(0 if len(got) == len(want) and not bad else 1)
