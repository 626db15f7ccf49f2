#!/usr/bin/env python3
"""Compact structured events in the flight recorder file (issue 12): each call site's
metadata once (FR_TE_EVENT_SITE, in the metadata block), per event a site id, a time delta
and the values (FR_TE_EVENT_RUN).
usage: events_compact.py EVENTS_COMPACT LIB FLIGHTREC LLVM_XRAY WORKDIR

  - size: the example event (2 u32 and a 5-character string) costs exactly key 1 +
    delta varint + size 1 + 14 value bytes in its run, at most 24 bytes; 2000 of them,
    run headers included, cost at most 24 bytes each (the full encoding's size is
    printed beside it);
  - decoded output: a program's events written compact and written as full FR_TE_EVENT
    records (the encoding before) read the same in `flightrec dump`, `info`, `convert
    --format chrome` and `--format perfetto` (timestamps, offsets, thread ids masked);
  - stream=1: events are compact there too (each entry of the example at most 24 bytes),
    and the file read up to the end of any of its blocks (what a reader following it
    while it grows has) decodes every event it holds: the writer puts each site into the
    file before the first block using it; so do a file whose program was SIGKILLed (no
    end) and one ended by a crash dump (abort(), the rest through the streamed path);
    `llvm-xray fdr-dump -verify` accepts them; dump reads the same events as without
    streaming;
  - backing=: the file recovered after SIGKILL (`flightrec recover`) holds compact
    events (each Sample entry at most 24 bytes) and the sites they name, and reads the
    same as a run without backing=: provider registered while recording, before
    fr_init, and in a fork child's backing file; a full sites region turns compact
    events off (said), every event still decodes; a half-written entry is cut;
  - the mixed program (every kind of field, activities, two threads) streamed, and
    recovered after SIGKILL from a backing file, reads in dump, chrome and perfetto as
    its full encoding does;
  - overwrite policy: a site whose first event was overwritten still decodes;
  - snapshots taken while a thread appends to its run read whole (our reader, llvm-xray);
  - a dlclose'd library's events decode after the flush;
  - a site id the file does not describe is reported, never decoded;
  - llvm-xray reads the files, and `convert --format yaml` is still byte for byte its
    yaml (a run is one custom event to it).
The file is parsed here independently of the reader library."""
import json
import os
import re
import struct
import subprocess
import sys

prog, lib, flightrec, xray, work = sys.argv[1:6]
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frtest  # noqa: E402
from frtest import check, fdr_block_ends, finish  # noqa: E402
from perfetto_decode import Decoded, varint  # noqa: E402  (the same LEB128 varints)

frtest.workdir(work)


def record(mode, name, *args):
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    subprocess.run([prog, mode, path, *map(str, args)], check=True)
    return path


def run(*args, ok=True):
    """frtest.run with bytes out; ok: a check that it exited 0"""
    return frtest.run(*args, expect=0 if ok else None, text=False)


def parse(path):
    """(sites: id -> bytes, runs: [(run record size, [(site, activity, entry size, delta
    bytes, values)])], full events) of a file, by walking its XRay records."""
    data = open(path, "rb").read()
    sites, runs, full = {}, [], 0
    off = 32
    while off < len(data):
        check(data[off] == 0x0F, "%s: block at %d" % (path, off))
        n = struct.unpack_from("<Q", data, off + 1)[0]
        off += 16
        end = off + n
        while off < end:
            if not data[off] & 1:
                off += 8
                continue
            kind = data[off] >> 1
            if kind not in (5, 8):
                off += 16
                continue
            size = struct.unpack_from("<i", data, off + 1)[0]
            body = data[off + 16:off + 16 + size]
            if kind == 5 and body[:10] == b"flightrec\0":
                typ = struct.unpack_from("<H", body, 10)[0]
                if typ == 0xF011:
                    sites[struct.unpack_from("<I", body, 12)[0]] = body[16:]
                elif typ == 0xF007:
                    full += 1
                elif typ == 0xF012:
                    entries, i = [], 12
                    while i < len(body):
                        start = i
                        key, i = varint(body, i)
                        d0 = i
                        _, i = varint(body, i)
                        dlen = i - d0
                        vs, i = varint(body, i)
                        entries.append((key >> 1, key & 1, i - start + vs, dlen, body[i:i + vs]))
                        i += vs
                    runs.append((16 + size, entries))
            off += 16 + size
    return sites, runs, full


def masked_dump(path, *opts):
    lines = []
    for line in run(flightrec, "dump", *opts, path).stdout.decode().splitlines()[1:]:
        cols = line.split(None, 5)
        if len(cols) < 6:
            cols += [""] * (6 - len(cols))
        details = re.sub(r"pid=\d+ tsc=\d+ walltime=[\d.]+", "pid tsc walltime", cols[5])
        lines.append("%s %s" % (cols[4], details))   # kind, details (no offset, time, tid, cpu)
    return lines


# ------------------------------------------------------------------ size
N = 2000
compact = record("sample", "sample.fr", N)
sites, runs, full = parse(compact)
sample_site = [k for k, v in sites.items() if b"CompactApp_L4K0\0" in v and b"Sample\0" in v]
check(len(sample_site) == 1, "one FR_TE_EVENT_SITE for Sample: %s" % sites)
entries = [e for _, es in runs for e in es]
check(len(entries) == N and full == 0, "%d entries, %d full events (want %d, 0)" % (len(entries), full, N))
values = struct.pack("<II", 7, 21) + b"hello\0"
for site, act, size, dlen, vals in entries:
    check(site == sample_site[0] and act == 0, "entry of site %d activity %d" % (site, act))
    check(size == 1 + dlen + 1 + 14 and size <= 24, "entry of %d bytes (delta %d bytes)" % (size, dlen))
check(values in [e[4] for e in entries], "the values of Sample(7) are stored as they are: %s" % values)
run_bytes = sum(r[0] for r in runs)
per_event = run_bytes / N
full_path = record("sample-full", "sample-full.fr", N)
_, _, nfull = parse(full_path)
full_per_event = (os.path.getsize(full_path) - os.path.getsize(compact) + run_bytes) / N
print("example event: %d-%d bytes per entry, %.2f bytes per event with run headers (%d runs); "
      "full FR_TE_EVENT record: %.1f bytes; files of %d events: %d vs %d bytes" %
      (min(e[2] for e in entries), max(e[2] for e in entries), per_event, len(runs),
       full_per_event, N, os.path.getsize(compact), os.path.getsize(full_path)))
check(per_event <= 24, "%.2f bytes per event in the file" % per_event)
check(nfull == N, "the full encoding holds %d FR_TE_EVENT (want %d)" % (nfull, N))
out = run(flightrec, "dump", compact).stdout.decode()
got = re.findall(r'"n": "CompactApp:Sample", "a": (\d+), "b": (\d+), "s": "hello"', out)
check([(int(a), int(b)) for a, b in got] == [(i, 3 * i) for i in range(N)],
      "dump decodes the %d Sample events in order (%d found)" % (N, len(got)))



def block_ends(path):
    """Where each block of a file ends (a reader following a growing file stops there)."""
    return sorted(fdr_block_ends(open(path, "rb").read()) - {32})


def event_lines(path):
    return [x for x in masked_dump(path) if "CompactApp:" in x]


def compact_file(path, what, nevents=None):
    """The file's events are compact runs (none full), each entry at most 24 bytes, and the
    file read up to the end of each of its blocks (as a reader following it while it grows
    sees it) decodes every entry it holds: each site is in the file before its events."""
    sites, runs, full = parse(path)
    entries = [e for _, es in runs for e in es]
    check(full == 0 and entries, "%s: %d compact entries, %d full events (want some, 0)"
          % (what, len(entries), full))
    if nevents is not None:
        check(len(entries) == nevents, "%s: %d entries (want %d)" % (what, len(entries), nevents))
    sample = [k for k, v in sites.items() if b"CompactApp_L4K0\0" in v and b"Sample\0" in v]
    check(len(sample) == 1 and all(e[2] <= 24 for e in entries if e[0] == sample[0]),
          "%s: the Sample site once (%s), each of its entries at most 24 bytes" % (what, sample))
    data = open(path, "rb").read()
    cut = os.path.join(work, "prefix.fr")
    for end in block_ends(path):
        open(cut, "wb").write(data[:end])
        _, r, _ = parse(cut)
        want = sum(len(es) for _, es in r)
        out = run(flightrec, "dump", cut).stdout.decode()
        got = len(re.findall(r'"n": "CompactApp:', out))
        check(got == want and "undecoded" not in out,
              "%s read up to byte %d: %d of its %d events decode" % (what, end, got, want))
    p = run(xray, "fdr-dump", "-verify", path)
    check(p.returncode == 0, "%s: llvm-xray fdr-dump -verify: %s" % (what, p.stderr[-200:]))
    return sum(r[0] for r in runs) / max(1, len(entries))


# stream=1: the writer puts each site into the file (a metadata block of FR_TE_EVENT_SITE)
# before the first block whose events use it
st = record("stream", "stream.fr", N)
per_stream = compact_file(st, "stream=1", N)
check(len(block_ends(st)) > 10, "stream=1: the file has %d blocks (test premise: many)"
      % len(block_ends(st)))
check(event_lines(st) == event_lines(compact) and len(event_lines(st)) == N,
      "stream=1: dump reads the same events as without streaming")
print("stream=1: %.2f bytes per event in runs" % per_stream)

# stream=1 ended by SIGKILL (no end: what a reader following the file had), and by a
# crash dump (abort(), crash_dump=1: the rest appended through the streamed path)
for how, status in (("kill", -9), ("abort", -6)):
    path = os.path.join(work, "stream-%s.fr" % how)
    if os.path.exists(path):
        os.remove(path)
    p = subprocess.run([prog, "stream-" + how, path], capture_output=True)
    check(p.returncode == status, "stream-%s: exit %d (want %d) %s" % (how, p.returncode, status,
                                                                      p.stderr[-200:]))
    compact_file(path, "stream=1 ended by %s" % how)
    out = run(flightrec, "dump", path).stdout.decode()
    late = len(re.findall(r'"n": "CompactApp:Late", "i": \d+', out))
    samples = len(re.findall(r'"n": "CompactApp:Sample", "a": \d+', out))
    if how == "abort":
        check(late == 300 and samples == 3000, "stream-abort: %d Late, %d Sample (want 300, 3000)"
              % (late, samples))
    else:
        check(late >= 100 and samples >= 2000, "stream-kill: %d Late, %d Sample in the file "
              "(want the full buffers: >= 100, >= 2000)" % (late, samples))

# backing=: the runtime appends each site to the backing file's sites region before the
# site is enabled; `flightrec recover` after SIGKILL puts them into the metadata block.
# The provider registered while recording, before fr_init, and a fork child's file (a
# copy of its parent's sites)
ref = record("sample", "sample1000.fr", 1000)
for mode in ("killed", "killed-early", "killed-fork"):
    back = os.path.join(work, mode + ".backing")
    for f in os.listdir(work):
        if f.startswith(mode + ".backing"):
            os.remove(os.path.join(work, f))
    k = subprocess.run([prog, mode, os.path.join(work, mode + ".fr"), back], capture_output=True)
    if mode == "killed-fork":
        m = re.search(rb"child (\d+)", k.stdout)
        check(k.returncode == 0 and m, "%s: exit %d %s" % (mode, k.returncode, k.stderr[-200:]))
        back += ".%s" % (m.group(1).decode() if m else "?")
    else:
        check(k.returncode == -9, "%s: exit %d %s" % (mode, k.returncode, k.stderr[-200:]))
    rec = os.path.join(work, mode + ".recovered.fr")
    if os.path.exists(rec):
        os.remove(rec)
    run(flightrec, "recover", "-q", back, "-o", rec)
    if os.path.exists(rec):
        per = compact_file(rec, "backing= (%s), recovered after SIGKILL" % mode, 1000)
        got, want = event_lines(rec), event_lines(ref)
        check(got == want and len(got) == 1000, "%s: dump of the recovered file reads the "
              "same 1000 events as a run without backing= (%d vs %d lines)" % (mode, len(got), len(want)))
        print("backing= (%s), recovered: %.2f bytes per event in runs" % (mode, per))
        check(re.search(r"records written: 1000\b", run(flightrec, "info", rec).stdout.decode())
              is not None, "%s: the recovered file counts each entry of a run as a record" % mode)

# A sites region with room for one site (a test seam): the next site turns compact events
# off for the session (said), and every event still decodes after recovery
back = os.path.join(work, "small.backing")
if os.path.exists(back):
    os.remove(back)
k = subprocess.run([prog, "killed-small", os.path.join(work, "small.fr"), back], capture_output=True)
check(k.returncode == -9 and b"no room for more event call sites" in k.stderr,
      "killed-small: exit %d, %s" % (k.returncode, k.stderr[-300:]))
rec = os.path.join(work, "small.recovered.fr")
run(flightrec, "recover", "-q", back, "-o", rec)
if os.path.exists(rec):
    s_k, _, f_k = parse(rec)
    check(len(s_k) == 1 and f_k > 0, "killed-small: %d site in the file, %d full events (want 1, some)"
          % (len(s_k), f_k))
    check(event_lines(rec) == event_lines(ref), "killed-small: the 1000 events read the same")

# An entry being appended to a run when the process died: the runtime grows the run's
# size first and writes the entry's first byte last; an entry still beginning with 0 is
# cut and counted, the run's 1000 whole entries kept
data = bytearray(open(os.path.join(work, "killed.backing"), "rb").read())
(data_off, bufs_off) = struct.unpack_from("<QQ", data, 24)
(bsize, nbuf) = struct.unpack_from("<QI", data, 64)
cur = [i for i in range(nbuf) if struct.unpack_from("<Q", data, bufs_off + 32 * i)[0] & 0xff == 1]
check(len(cur) == 1, "killed: one CURRENT buffer in the backing file (%d)" % len(cur))
if cur:
    at = data_off + cur[0] * bsize + 64
    check(data[at] == 0x0B and data[at + 16:at + 28] == b"flightrec\0\x12\xf0",
          "killed: the CURRENT buffer holds a run first")
    size = struct.unpack_from("<i", data, at + 1)[0]
    end = at + 16 + size
    entry = bytes([0, 3, 14]) + struct.pack("<II", 5, 15) + b"hel"   # key not yet written
    data[end:end + len(entry)] = entry
    struct.pack_into("<i", data, at + 1, size + 17)
    open(os.path.join(work, "torn.backing"), "wb").write(data)
    torn = os.path.join(work, "torn.recovered.fr")
    p = run(flightrec, "recover", os.path.join(work, "torn.backing"), "-o", torn)
    check(b"1 torn last record cut" in p.stderr, "torn entry: recover says %s" % p.stderr[-300:])
    check(event_lines(torn) == event_lines(ref), "torn entry: the 1000 whole entries read the same")

# ------------------------------------------------------------------ same decoded output


def chrome(path):
    dst = path + ".json"
    run(flightrec, "convert", path, "--format", "chrome", "-o", dst)
    d = json.load(open(dst))
    ev = [{k: v for k, v in e.items() if k not in ("ts", "dur", "pid", "tid")} for e in d["traceEvents"]]
    other = {k: v for k, v in d["otherData"].items() if k != "trace" and k != "ticks_per_second"}
    return ev, other


def perfetto(path):
    dst = path + ".pftrace"
    run(flightrec, "convert", path, "--format", "perfetto", "-o", dst)
    d = Decoded(dst)
    check(not d.errors, "perfetto %s: %s" % (path, d.errors[:3]))
    return ([(name, cat, args) for _, name, _, cat, args in d.instants],
            sorted((s[0], s[3]) for sl in d.slices.values() for s in sl))


def info(path):
    text = run(flightrec, "info", path).stdout.decode()
    keep = []
    for line in text.splitlines():
        if re.match(r"\s*(records|structured|events|custom|typed|function|calls|threads)", line):
            keep.append(re.sub(r"\d+\.\d+", "T", line))
    return keep


mixed = record("mixed", "mixed.fr")
mixed_full = record("mixed-full", "mixed-full.fr")
s_c, r_c, f_c = parse(mixed)
s_f, r_f, f_f = parse(mixed_full)
check(f_c == 0 and len(r_c) > 0 and len(s_c) == 5, "mixed: compact (%d full, %d runs, %d sites)"
      % (f_c, len(r_c), len(s_c)))
check(len(r_f) == 0 and f_f == 11 and not s_f, "mixed-full: %d full events, %d runs, %d sites"
      % (f_f, len(r_f), len(s_f)))
check(any(e[1] for _, es in r_c for e in es), "an entry with an activity extension")
a, b = masked_dump(mixed), masked_dump(mixed_full)
check(a == b and len(a) >= 16, "dump: compact and full read the same (%d vs %d lines) %s" %
      (len(a), len(b), [x for x in zip(a, b) if x[0] != x[1]][:2]))
check(chrome(mixed) == chrome(mixed_full), "convert chrome: compact and full read the same\n%s\n%s"
      % (chrome(mixed), chrome(mixed_full)))
check(perfetto(mixed) == perfetto(mixed_full), "convert perfetto: compact and full read the same")
check(info(mixed) == info(mixed_full), "info: %s vs %s" % (info(mixed), info(mixed_full)))


# The same program streamed (stream=1) and recovered after SIGKILL from a backing file:
# every kind of field, activities, two threads read as the full encoding does (the
# threads' blocks may come in another order in a streamed file: compared as sets)
def as_set(items):
    return sorted(json.dumps(x, sort_keys=True) for x in items)


def decoded(path):
    ev, other = chrome(path)
    return (as_set(event_lines(path)),
            as_set(e for e in ev if e.get("ph") in ("i", "X")),
            {k: other.get(k) for k in ("events", "undecodable_events", "calls")},
            as_set(perfetto(path)[0]))


want = decoded(mixed_full)
check(len(want[0]) == 11 and len(want[3]) == 11 and want[2]["events"] == 11,
      "mixed-full: 11 events in dump, perfetto and chrome (test premise): %s" % (want[2],))
for how in ("stream", "backing"):
    path = os.path.join(work, "mixed-%s.fr" % how)
    back = os.path.join(work, "mixed.backing")
    for f in (path, back):
        if os.path.exists(f):
            os.remove(f)
    env = dict(os.environ, FLIGHTREC_OPTIONS="stream=1" if how == "stream" else "backing=" + back,
               **({"EVENTS_COMPACT_KILL": "1"} if how == "backing" else {}))
    p = subprocess.run([prog, "mixed", path], env=env, capture_output=True)
    check(p.returncode == (0 if how == "stream" else -9), "mixed, %s: exit %d %s"
          % (how, p.returncode, p.stderr[-200:]))
    if how == "backing":
        run(flightrec, "recover", "-q", back, "-o", path)
    if os.path.exists(path):
        _, r, f = parse(path)
        check(r and f == 0, "mixed, %s: compact (%d runs, %d full events)" % (how, len(r), f))
        got = decoded(path)
        for name, a, b in zip(("dump", "chrome", "chrome counts", "perfetto"), got, want):
            check(a == b, "mixed, %s: %s reads as the full encoding does\n%s\n%s" % (how, name, a, b))

# llvm-xray reads the runs as custom events; our yaml is still its yaml byte for byte
for path in (mixed, compact):
    theirs, mine = path + ".llvm.yaml", path + ".mine.yaml"
    p = run(xray, "convert", "--output-format=yaml", path, "-o", theirs)
    run(flightrec, "convert", path, "--format", "yaml", "--ids", "-o", mine)
    if p.returncode == 0:
        check(open(theirs).read() == open(mine).read(), "%s: yaml differs from llvm-xray's" % path)
    run(xray, "account", path)

# ------------------------------------------------------------------ overwrite policy
ow = record("overwrite", "overwrite.fr")
out = run(flightrec, "dump", ow).stdout.decode()
check('"n": "CompactApp:Early", "when": 1' in out, "overwrite: the last Early event decodes")
check('"when": 0' not in out, "overwrite: the first Early event was overwritten (test premise)")
samples = re.findall(r'"n": "CompactApp:Sample", "a": (\d+)', out)
check(len(samples) > 50 and int(samples[-1]) == 19999, "overwrite: the newest Sample events decode (%d, last %s)"
      % (len(samples), samples[-1:] or None))
check("undecoded" not in out, "overwrite: every event decodes")
check(re.search(r"overwritten by newer records: [1-9]", run(flightrec, "info", ow).stdout.decode()) is not None,
      "overwrite: records were overwritten (test premise)")
run(xray, "convert", "--output-format=yaml", ow, "-o", ow + ".yaml")

# ------------------------------------------------------------------ snapshots while writing
snap = record("snapshot", "snap.fr", 12)
bad = []
for i in range(12):
    path = "%s.%d" % (snap, i)
    p = run(flightrec, "dump", path, ok=False)
    text = p.stdout.decode()
    x = subprocess.run([xray, "account", path], capture_output=True) if i % 4 == 0 else p
    if p.returncode != 0 or b"cut short" in p.stderr or "undecoded" in text or x.returncode != 0:
        bad.append((i, p.returncode, p.stderr[-200:], x.stderr[-200:]))
check(not bad, "snapshots while a thread appends to its run: %d of 12 unreadable: %s" % (len(bad), bad[:2]))

# ------------------------------------------------------------------ dlclose'd library
dl = record("dlopen", "dlopen.fr", lib)
out = run(flightrec, "dump", dl).stdout.decode()
got = re.findall(r'"n": "CompactLib:FromLib", "i": (\d), "where": "in a dlclose\'d library"', out)
check(got == ["0", "1", "2"], "dlopen: the library's 3 events decode after dlclose (%s)" % got)
check('"n": "CompactApp:Sample", "a": 7' in out and "undecoded" not in out, "dlopen: main's event")

# ------------------------------------------------------------------ a site the file lacks
data = bytearray(open(compact, "rb").read())
at = data.find(b"flightrec\0\x11\xf0")
check(at > 0, "the sample file has an FR_TE_EVENT_SITE")
struct.pack_into("<I", data, at + 12, 999)   # its id is now one no event refers to
lost = os.path.join(work, "lost-site.fr")
open(lost, "wb").write(data)
out = run(flightrec, "dump", lost).stdout.decode()
check(out.count("undecoded: the file has no metadata for this event's site") == N and
      "CompactApp:Sample" not in out, "a site without metadata: %d events reported, none decoded"
      % out.count("the file has no metadata"))
p = run(flightrec, "convert", lost, "--format", "chrome", "-o", lost + ".json", ok=False)
check(b"2000 structured events could not be decoded" in p.stderr,
      "chrome reports the events without metadata: %s" % p.stderr[-200:])

finish("ok: compact events")
