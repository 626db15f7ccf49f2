#!/usr/bin/env python3
"""convert_perfetto_doubles.py - a structured event's floating-point fields stay doubles in
`convert --format perfetto` (DebugAnnotation.double_value, field 5), whatever their value:
whole numbers such as 0, 1, -2 and 1e20 too (they were written as unsigned or signed
integers, since their decimal text has no '.'); integer fields stay integers. Chrome's
JSON of the same trace keeps the numbers' values.
usage: convert_perfetto_doubles.py FLIGHTREC EVENTS_DOUBLES WORKDIR
"""
import json
import os
import struct
import sys

from frtest import check, finish, run, run_ok, workdir
import perfetto_decode as pd

flightrec, prog, work = sys.argv[1:4]
workdir(work, fresh=True)
trace = os.path.join(work, "doubles.fr")
run_ok(prog, trace)
pf = os.path.join(work, "doubles.pftrace")
run_ok(flightrec, "convert", trace, "--format", "perfetto", "-o", pf)

# DebugAnnotation: name 10, bool 2, uint 3, int 4, double 5, string 6, legacy json 9
annotations = {}
for packet in pd.msg(open(pf, "rb").read())[1]:
    for te in pd.msg(packet).get(11, []):          # TracePacket.track_event
        for a in pd.msg(te).get(4, []):           # TrackEvent.debug_annotations
            fields = pd.msg(a)
            name = fields[10][0].decode() if 10 in fields else None
            kind = [k for k in (2, 3, 4, 5, 6, 9) if k in fields]
            annotations[name] = (kind, fields)
want_doubles = {"one": 1.0, "zero": 0.0, "neg": -2.0, "big": 1e20, "half": 0.5, "f_one": 1.0}
for name, value in want_doubles.items():
    kind, fields = annotations.get(name, ([], {}))
    check(kind == [5], "perfetto: %s is written as field %s, not double_value (5)" % (name, kind))
    if kind == [5]:
        got = struct.unpack("<d", fields[5][0].to_bytes(8, "little"))[0]
        check(got == value, "perfetto: %s = %r, want %r" % (name, got, value))
check(annotations.get("count", ([],))[0] == [3] and annotations["count"][1][3][0] == 1,
      "perfetto: the u32 field 'count' stays an unsigned integer: %s" % (annotations.get("count"),))
check(annotations.get("minus", ([],))[0] == [4] and pd.signed(annotations["minus"][1][4][0]) == -1,
      "perfetto: the i32 field 'minus' stays a signed integer: %s" % (annotations.get("minus"),))

chrome = os.path.join(work, "doubles.json")
run_ok(flightrec, "convert", trace, "--format", "chrome", "-o", chrome)
ev = [e for e in json.load(open(chrome))["traceEvents"] if e.get("name") == "Ratios"]
check(len(ev) == 1, "chrome: one 'Ratios' event, got %d" % len(ev))
if ev:
    args = ev[0]["args"]
    for name, value in want_doubles.items():
        check(args.get(name) == value, "chrome: %s = %r, want %r" % (name, args.get(name), value))
finish("every floating-point field is a double in perfetto's output")
