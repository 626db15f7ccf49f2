#!/usr/bin/env python3
"""convert_perfetto_check.py - checks `flightrec convert --format perfetto`.

1. protoc --decode=perfetto.protos.Trace with Perfetto's schema (tests/data/perfetto/)
   accepts every output (wire format and field types);
2. an independent decoder here (the protobuf wire format by hand, no flightrec code) reads
   the packets, follows the sequence's incremental state (interned names are valid only
   after a packet that clears the state, and are looked up by iid) and rebuilds every
   slice from its begin and end on its track; per thread, the slices (name, start, end,
   depth) must be exactly the Chrome JSON's complete events of the same trace (timestamps
   in exact nanoseconds, Chrome's minus the clock snapshot's MONOTONIC origin), and the
   depths those of the calls' stacks computed from the generator's records;
3. descriptors: process and thread names, thread tracks under the process track;
   structured events as instants with typed annotations; the activity as an async slice
   on its own track; lost-record markers.
Traces: the known traces of convert_traces.c and the synthetic trace of analysis_gen
(4 threads, tens of thousands of calls).
usage: convert_perfetto_check.py FLIGHTREC CONVERT_TRACES ANALYSIS_GEN PROTO_DIR WORKDIR
"""
import collections
import json
import os
import re
import shutil
import subprocess
import sys

from frtest import check, finish, known_calls, known_ns, known_traces, run, skip
from perfetto_decode import Decoded

flightrec, generator, analysis_gen, proto_dir, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
protoc = shutil.which("protoc")
if not protoc:
    skip("protoc not installed (Debian: protobuf-compiler; scripts/deps.sh)")
spec = known_traces(generator, work)


def convert(trace, fmt, out):
    p = run(flightrec, "convert", trace, "--format", fmt, "-o", out)
    check(p.returncode == 0, "%s %s: exit %d %s" % (trace, fmt, p.returncode, p.stderr))
    return out


def protoc_decode(path):
    with open(path, "rb") as f:
        p = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", proto_dir,
                            "perfetto_trace.proto"], stdin=f, capture_output=True, text=True)
    check(p.returncode == 0, "protoc rejects %s: %s" % (path, p.stderr[:500]))
    return p.stdout


def chrome_ns(text):
    whole, frac = str(text).split(".") if "." in str(text) else (str(text), "000")
    neg = whole.startswith("-")
    v = abs(int(whole)) * 1000 + int(frac.ljust(3, "0"))
    return -v if neg else v


def compare_with_chrome(trace, dec, chrome_path, expect_depths=None):
    doc = json.load(open(chrome_path), parse_float=str)
    origin = dec.clock.get(3, 0)
    want = collections.defaultdict(collections.Counter)
    for e in doc["traceEvents"]:
        if e["ph"] == "X":
            s = chrome_ns(e["ts"])
            want[e["tid"]][(e["name"], s, s + chrome_ns(e["dur"]))] += 1
    got = collections.defaultdict(collections.Counter)
    depths = collections.defaultdict(collections.Counter)
    for track, sl in dec.slices.items():
        desc = dec.tracks.get(track, {})
        if "tid" not in desc:
            continue
        for name, start, end, depth, _ in sl:
            got[desc["tid"]][(name, start - origin, end - origin)] += 1
            depths[desc["tid"]][(name, start - origin, end - origin, depth)] += 1
    check(set(got) == set(want), "%s: threads with slices %s, chrome %s" % (trace, sorted(got), sorted(want)))
    for tid in want:
        n_got, n_want = sum(got[tid].values()), sum(want[tid].values())
        check(n_got == n_want, "%s: thread %d: %d slices, chrome has %d" % (trace, tid, n_got, n_want))
        check(got[tid] == want[tid], "%s: thread %d: slices differ from chrome's: %s" %
              (trace, tid, list((got[tid] - want[tid]).items())[:3] + list((want[tid] - got[tid]).items())[:3]))
    if expect_depths is not None:
        check(depths == expect_depths, "%s: slice nesting differs from the calls' stacks: %s" %
              (trace, [(t, list((depths[t] - expect_depths[t]).items())[:3]) for t in depths
                       if depths[t] != expect_depths[t]][:2]))
    return sum(sum(c.values()) for c in got.values())


def expected_depths(spec):
    """Per thread, (name, start ns, end ns, depth) of every call, matched here from the
    generator's records (frtest.known_calls, as convert_check.py)."""
    names = {int(k): v for k, v in spec["names"].items()}
    out = collections.defaultdict(collections.Counter)
    for c in known_calls(spec["records"])[0]:
        out[c["tid"]][(names[c["id"]], known_ns(spec, c["enter"]), known_ns(spec, c["exit"]),
                       c["depth"])] += 1
    return out


# ------------------------------------------------------------------ the known traces
trace = os.path.join(work, "calls.fr")
pf = convert(trace, "perfetto", os.path.join(work, "calls.pftrace"))
text = protoc_decode(pf)
check("TYPE_SLICE_BEGIN" in text and "primary_trace_clock: BUILTIN_CLOCK_MONOTONIC" in text,
      "calls: protoc's text shows slices and the clock snapshot")
dec = Decoded(pf)
check(not dec.errors, "calls: decoder: %s" % dec.errors[:5])
check(dec.clock.get(3) is not None and dec.clock.get(1) is not None,
      "calls: clock snapshot with MONOTONIC and REALTIME")
n = compare_with_chrome(trace, dec, convert(trace, "chrome", os.path.join(work, "calls.chrome.json")),
                        expected_depths(spec))
check(n > 5, "calls: %d slices" % n)
procs = [d for d in dec.tracks.values() if "process_name" in d]
check(len(procs) == 1 and procs[0]["pid"] == spec["pid"] and procs[0]["process_name"] == spec["process"],
      "calls: one process descriptor with pid and name: %s" % procs)
proc_uuid = [u for u, d in dec.tracks.items() if "process_name" in d][0]
for tid, name in spec["threads"].items():
    th = [d for d in dec.tracks.values() if d.get("tid") == int(tid)]
    check(len(th) == 1 and th[0]["thread_name"] == name and th[0]["parent"] == proc_uuid,
          "calls: thread %s descriptor named %r under the process: %s" % (tid, name, th))
# the recorded first argument (function 4 entered with 99, issue 24 item 5): an annotation
# of its slice
check(re.search(r'uint_value: 99\s+name: "arg"|name: "arg"\s+uint_value: 99\b', text) is not None,
      "calls: the call entered with an argument has it as annotation 'arg' (99)")
by_name = {i[1]: i for i in dec.instants}
check(by_name.get("custom event", (0, 0, 0, 0, {}))[4].get("data") == "hello world", "calls: custom event data")
check(by_name.get("typed event", (0, 0, 0, 0, {}))[4].get("hex") == "000102", "calls: typed event bytes")
hello = by_name.get("Hello")
check(hello is not None and hello[3] == ["MyProviderName"] and hello[4].get("count") == 42 and
      hello[4].get("msg") == "world", "calls: structured event: category and typed fields: %s" % (hello,))
spans = [(u, s) for u, sl in dec.slices.items() for s in sl if "tid" not in dec.tracks.get(u, {})]
check(len(spans) == 1 and spans[0][1][0] == "Work" and dec.tracks[spans[0][0]]["name"] == "Work" and
      dec.tracks[spans[0][0]]["parent"] == proc_uuid,
      "calls: the activity is one async slice 'Work' on its own track under the process: %s" % spans)

# over an existing, longer file (a second run): the same bytes as a new file (the output
# is written in place and cut where it ends, cv_fopen_output), for perfetto and chrome
for fmt, fresh in (("perfetto", pf), ("chrome", os.path.join(work, "calls.chrome.json"))):
    over = os.path.join(work, "over." + fmt)
    with open(over, "wb") as f:
        f.write(b"\xff" * (2 * os.path.getsize(fresh) + 4096))
    convert(trace, fmt, over)
    check(open(over, "rb").read() == open(fresh, "rb").read(),
          "%s over a longer file: %d bytes, a new file %d" % (fmt, os.path.getsize(over), os.path.getsize(fresh)))

# a thread whose clock goes back between two of its blocks (yaml.fr): those slices'
# packets carry their absolute time on the builtin clock instead of a delta on the
# thread's sequence clock, and every time is still the Chrome JSON's
trace = os.path.join(work, "yaml.fr")
pf = convert(trace, "perfetto", os.path.join(work, "yaml.pftrace"))
protoc_decode(pf)
dec = Decoded(pf)
errors = [e for e in dec.errors if not e.startswith("timestamps go back")]   # they do
check(not errors and dec.errors, "yaml: decoder: %s" % errors[:5])
check(dec.clock_overrides > 0, "yaml: slices back in time have an absolute timestamp")
n = compare_with_chrome(trace, dec, convert(trace, "chrome", os.path.join(work, "yaml.chrome.json")))
check(n > 0, "yaml: %d slices" % n)

# empty trace: still a valid file
pf = convert(os.path.join(work, "empty.fr"), "perfetto", os.path.join(work, "empty.pftrace"))
protoc_decode(pf)
check(not Decoded(pf).errors, "empty: decodes")

# ------------------------------------------------------------------ a larger trace, 4 threads
big = os.path.join(work, "big.xray")
subprocess.run([analysis_gen, big, os.path.join(work, "big-map.yaml"), "200000", "4"], check=True,
               stdout=subprocess.DEVNULL)
pf = convert(big, "perfetto", os.path.join(work, "big.pftrace"))
protoc_decode(pf)
dec = Decoded(pf)
check(not dec.errors, "big: decoder: %s" % dec.errors[:5])
n = compare_with_chrome(big, dec, convert(big, "chrome", os.path.join(work, "big.chrome.json")))
check(n >= 90000, "big: %d slices (expected about 100,000)" % n)
threads = [d for d in dec.tracks.values() if "tid" in d]
check(len(threads) == 4, "big: 4 thread tracks, got %d" % len(threads))
size = os.path.getsize(pf)
check(size < 200000 * 40, "big: %d bytes for 200,000 records (compact)" % size)

# bad usage
p = subprocess.run([flightrec, "convert", trace, "--format", "perfetto2"], capture_output=True, text=True)
check(p.returncode == 2 and "perfetto" in p.stderr, "unknown format: exit 2 listing perfetto")

finish()
