#!/usr/bin/env python3
"""kernel_check.py NAME RESULTS FLIGHTREC EVENTS_TRACE_JSON - checks what scenario NAME
(tests/kernel/guest_tests.sh, t_NAME) left in RESULTS/NAME inside the virtual machine
that tests/kernel/vm.py ran: the program's answers (pN.out: "bit NAME TRACEPOINT 0xWORD"
lines, "done N" after each command), the collector's samples (*.jsonl, decoded in the
guest by flightrec's EventHeader decoder), perf.data files (decoded here: perfdata.py for
the samples, `flightrec decode-dat` for their EventHeader bytes; and `flightrec
decode-perf`, which must read the same events), tracefs listings.
Every value an event carries is checked against what ue_prog.c wrote (values_expected
computes the same functions of seq). Exit 0, or 1 naming every failed check.
"""
import json
import os
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import frtest  # noqa: E402
from frtest import check, fatal, finish  # noqa: E402
import perfdata  # noqa: E402

L4K1 = "FrKtest_L4K1"
ALL_TRACEPOINTS = ["FrKgroup_L3K4Gg1", "FrKtest_L2Kff", "FrKtest_L4K1", "FrKtest_L5K0"]
# Call sites of ue_prog.c and their tracepoints (Outer and Inner: a start and a stop site).
SITES = {"Alpha": L4K1, "Beta": L4K1, "Gamma": "FrKtest_L5K0", "Delta": "FrKtest_L2Kff",
         "Grouped": "FrKgroup_L3K4Gg1", "Values": L4K1, "Outer": L4K1, "Inside": L4K1,
         "Inner": L4K1}
SYS_WRITEV = 20
# What an enabled event may also cost, once or per event: getpid (FR_PID's value, evaluated
# only when enabled), and the first span's activity id (getrandom, gettid).
SYS_ALLOWED = {39, 318, 186}


def lines(path):
    try:
        return open(path, errors="replace").read().splitlines()
    except OSError as e:
        fatal(f"{path}: {e}")


def program_pid(out):
    for line in lines(out):
        if line.startswith("pid "):
            return int(line.split()[1])
    fatal(f"{out}: no pid line")


def bits_by_step(out):
    """{step: [(site, tracepoint, word)]} from 'say step NAME' marks and bit lines."""
    steps, step = {}, None
    for line in lines(out):
        w = line.split()
        if w[:1] == ["step"]:
            step = " ".join(w[1:])
            steps[step] = []
        elif w[:1] == ["bit"] and step is not None:
            steps[step].append((w[1], w[2], int(w[3], 16)))
    return steps


def bit_blocks(out):
    """The bit listings of the output, in order, each a list of (site, tracepoint, word)."""
    blocks, cur = [], None
    for line in lines(out):
        w = line.split()
        if w[:1] == ["bit"]:
            if cur is None:
                cur = []
                blocks.append(cur)
            cur.append((w[1], w[2], int(w[3], 16)))
        else:
            cur = None
    return blocks


def check_bits(block, on, what):
    """The user_events bit is set exactly in the sites of tracepoints `on`."""
    check(len(block) == 11, f"{what}: {len(block)} call sites listed, expected 11")
    for site, tp, word in block:
        check(tp == SITES.get(site), f"{what}: site {site} on tracepoint {tp}, expected {SITES.get(site)}")
        want = 1 if tp in on else 0
        check(word == want, f"{what}: site {site} ({tp}) enable word {word:#x}, expected {want:#x}")


def collected(path):
    """The collector's samples; its own status must be 0 (no lost or undecodable sample)."""
    status = lines(path + ".status")
    check(status == ["collector exit 0"], f"{path}: {status} ({' '.join(lines(path + '.err'))})")
    out = []
    for line in lines(path):
        j = json.loads(line)
        check("lost" not in j, f"{path}: the kernel lost {j.get('lost')} samples")
        check(j.get("event") is not None, f"{path}: a sample not decoded: {j.get('error')}")
        if j.get("event") is not None:
            out.append(j)
    return out


def perf_events(path, tracepoint, flightrec, work):
    """The samples of a perf.data file, their EventHeader bytes decoded by flightrec
    decode-dat: [{pid, tid, time, cpu, read, record, event}], every sample the file
    holds (perf's re-read copies too: perfdata.split_rereads)."""
    try:
        samples = list(perfdata.samples(path))
    except (OSError, perfdata.PerfDataError) as e:
        fatal(f"{path}: {e}")
    dat = os.path.join(work, os.path.basename(path) + ".dat")
    name = tracepoint.encode() + b"\0"
    with open(dat, "wb") as f:
        for s in samples:
            # raw: the 8 bytes of common fields, then the event; perf pads the raw data
            # with zero bytes to a multiple of 8 (the decoder reads the fields it knows)
            body = name + s["raw"][8:]
            f.write(struct.pack("<I", len(body) + 4) + body)
    r = frtest.run(flightrec, "decode-dat", "--object", dat)
    if r.returncode != 0:
        fatal(f"decode-dat {dat}: exit {r.returncode}: {r.stderr.strip()}")
    events = list(json.loads(r.stdout).values())[0]
    check(len(events) == len(samples), f"{path}: {len(samples)} samples, {len(events)} decoded")
    for s, e in zip(samples, events):
        s["event"] = e
        s["common_pid"] = struct.unpack_from("<i", s["raw"], 4)[0]
    return samples


def check_decode_perf(path, fr, every, what):
    """flightrec decode-perf reads the same perf.data file to the same events, with each
    sample's time, cpu, pid and tid first in its meta, less perf's re-read copies of one
    sample (split_rereads(most=1)), which it counts in a note."""
    samples, copies = perfdata.split_rereads(every, most=1)
    r = frtest.run(fr, "decode-perf", "--object", path)
    if not check(r.returncode == 0, f"{what}: decode-perf exit {r.returncode}: {r.stderr.strip()[:300]}"):
        return
    notes = [l for l in r.stderr.splitlines() if ": note: " in l]
    check(len(notes) == (1 if copies else 0) and all(f": {len(copies)} cop" in l for l in notes),
          f"{what}: decode-perf's notes {notes}, expected one of {len(copies)} copies" if copies else
          f"{what}: decode-perf's notes {notes}, expected none")
    got = sorted(list(json.loads(r.stdout).values())[0], key=lambda e: e["meta"]["time"])
    want = sorted(samples, key=lambda s: s["time"])
    check(len(got) == len(want), f"{what}: decode-perf printed {len(got)} events, expected {len(want)}")
    for i, (g, w) in enumerate(zip(got, want)):
        meta = dict(g["meta"])
        place = {k: meta.pop(k, None) for k in ("time", "cpu", "pid", "tid")}
        ok = (place["cpu"] == w["cpu"] and place["pid"] == w["pid"] and place["tid"] == w["tid"] and
              abs(place["time"] - w["time"] / 1e9) < 1e-6 and dict(g, meta=meta) == w["event"])
        if not check(ok, f"{what}: decode-perf event {i}: {json.dumps(g)}, expected {json.dumps(w['event'])} "
                         f"at {w['time']} ns, cpu {w['cpu']}, pid {w['pid']}"):
            break


def uuid_text(b):
    h = b.hex()
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def values_expected(i, pid):
    """The Values event ue_prog.c writes for seq i, as the decoder renders it."""
    ip = 0x0a000001 + i
    return {
        "n": "FrKtest:Values", "seq": i, "u8": i & 0xff, "i8": -(i % 100), "u16": (3 * i) & 0xffff,
        "i16": -i, "i32": -11 * i, "u64": i * 1000000007, "i64": -i * 1000000007,
        "hex32": "0x%X" % (i ^ 0xdead0000), "ok": bool(i & 1), "f": i / 4, "d": i / 8,
        "ch": chr(ord("a") + i % 26), "pid": pid, "err": "ENOENT(2)", "msg": f"msg-{i}",
        "cs": "abcdef"[:i % 7], "bin": "de ad be ef",
        "uuid": uuid_text(bytes.fromhex("0123456789abcdeffedcba9876543210")),
        "ip4": "%d.%d.%d.%d" % (ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255),
        "ip6": "2001:db8::1", "port": 8080, "arr": [i, i + 1, i + 2][:i % 4],
        "fix": [-i, 0, i], "darr": [i / 2, -1.5], "st": {"a": i, "b": "x"},
        "tagged;tag=0x12": i,
        "meta": {"id": 77, "version": 2, "level": 4, "keyword": "0x1", "tag": "0x55"},
    }


def check_values(events, n, pid, what):
    vals = [e for e in events if e["n"] == "FrKtest:Values"]
    check(len(vals) == n, f"{what}: {len(vals)} Values events, expected {n}")
    for i, e in enumerate(vals):
        want = values_expected(i, pid)
        if not check(e == want, f"{what}: Values {i}:\n  got  {json.dumps(e)}\n  want {json.dumps(want)}"):
            break


def check_alpha(events, seqs, what):
    got = [e["seq"] for e in events if e["n"] == "FrKtest:Alpha"]
    ok = check(got == list(seqs), f"{what}: Alpha seq {short(got)}, expected {short(list(seqs))}")
    for e in events:
        if e["n"] == "FrKtest:Alpha":
            check(e["meta"] == {"level": 4, "keyword": "0x1"}, f"{what}: Alpha meta {e['meta']}")
            break
    return ok


def report_repeated_alpha(samples):
    """Prints every sample of an Alpha seq met more than once (after perf's re-read
    copies were set apart), with its time, cpu, tid and perf's pass (read) it came in."""
    by_seq = {}
    for s in samples:
        if s["event"]["n"] == "FrKtest:Alpha":
            by_seq.setdefault(s["event"]["seq"], []).append(s)
    for seq, ss in sorted(by_seq.items()):
        if len(ss) > 1:
            print(f"  Alpha seq {seq} in {len(ss)} samples: " +
                  ", ".join(f"time {x['time']} cpu {x['cpu']} tid {x['tid']} read {x['read']}"
                            f"{' (same bytes as the first)' if x is not ss[0] and x['record'] == ss[0]['record'] else ''}"
                            for x in ss))


def without_rereads(samples, what):
    """The samples without perf record's re-read copies (perfdata.split_rereads: the same
    record written at the end of one pass over a CPU's ring buffer and again at the start
    of the next; perf's race, not the program's nor the kernel's), and a note saying how
    many there were, for the test's last line."""
    kept, copies = perfdata.split_rereads(samples)
    for c in copies:
        print(f"  {what}: perf wrote a sample twice (its ring-buffer re-read): "
              f"{json.dumps(c['event'])} at {c['time']} ns, cpu {c['cpu']}, reads {c['read'] - 1} and {c['read']}")
    note = f" ({len(copies)} sample(s) perf wrote twice set apart: docs/KERNEL_TESTS.md)" if copies else ""
    return kept, note


def short(seq):
    return seq if len(seq) <= 12 else f"{seq[:5]} ... {seq[-5:]} ({len(seq)})"


def check_spans(events, n, what):
    """n rounds of Outer start, Inside, Inner start, Inner stop, Outer stop: opcodes,
    activity ids (Inside in Outer's, Inner related to Outer), fresh ids each round."""
    sp = [e for e in events if e["n"] in ("FrKtest:Outer", "FrKtest:Inside", "FrKtest:Inner")]
    check(len(sp) == 5 * n, f"{what}: {len(sp)} span events, expected {5 * n}")
    ids = set()
    for i in range(min(n, len(sp) // 5)):
        o1, ins, i1, i2, o2 = sp[5 * i:5 * i + 5]
        names = [e["n"].split(":")[1] for e in (o1, ins, i1, i2, o2)]
        if not check(names == ["Outer", "Inside", "Inner", "Inner", "Outer"], f"{what}: round {i}: {names}"):
            break
        m = [e["meta"] for e in (o1, ins, i1, i2, o2)]
        a, b = m[0].get("activity"), m[2].get("activity")
        ok = (a and b and a != b and m[0].get("opcode") == 1 and "relatedActivity" not in m[0] and
              m[1].get("activity") == a and "opcode" not in m[1] and
              m[2].get("opcode") == 1 and m[2].get("relatedActivity") == a and
              m[3].get("opcode") == 2 and m[3].get("activity") == b and
              m[4].get("opcode") == 2 and m[4].get("activity") == a and
              o1.get("seq") == i and ins.get("seq") == i and i1.get("seq") == i and o2.get("seq") == i)
        check(ok, f"{what}: round {i}: {json.dumps([o1, ins, i1, i2, o2])}")
        check(a not in ids and b not in ids, f"{what}: round {i} reuses an activity id")
        ids.update((a, b))


def by_seq(samples):
    return sorted(samples, key=lambda s: (s["time"], s["event"].get("seq", 0)))


# ------------------------------------------------------------------ the scenarios

def t_registration(d, fr, tj):
    check(lines(f"{d}/tracepoints.txt") == ALL_TRACEPOINTS,
          f"tracepoints {lines(f'{d}/tracepoints.txt')}, expected {ALL_TRACEPOINTS}")
    want_fields = [("u8 eventheader_flags", 8, 1), ("u8 version", 9, 1), ("u16 id", 10, 2),
                   ("u16 tag", 12, 2), ("u8 opcode", 14, 1), ("u8 level", 15, 1)]
    for tp in ALL_TRACEPOINTS:
        fmt = lines(f"{d}/formats/{tp}")
        check(f"name: {tp}" in fmt, f"{tp}: format names '{fmt[:1]}'")
        fields = []
        for line in fmt:
            line = line.strip()
            if line.startswith("field:") and "common_" not in line:
                parts = [p.strip() for p in line.split(";")]
                fields.append((parts[0][len("field:"):], int(parts[1].split(":")[1]),
                               int(parts[2].split(":")[1])))
        check(fields == want_fields, f"{tp}: fields {fields}, expected {want_fields}")
    status = lines(f"{d}/status.txt")
    for tp in ALL_TRACEPOINTS:
        check(tp in status, f"user_events_status does not list {tp}: {status}")
    dyn = lines(f"{d}/dynamic_events.txt")
    for tp in ALL_TRACEPOINTS:
        want = f"u:{tp} u8 eventheader_flags; u8 version; u16 id; u16 tag; u8 opcode; u8 level"
        check(want in dyn, f"dynamic_events lacks '{want}': {dyn}")
    blocks = bit_blocks(f"{d}/p1.out")
    check(len(blocks) == 1, f"{len(blocks)} bit listings")
    if blocks:
        check_bits(blocks[0], set(), "no tracer")
    finish("ok: 4 tracepoints (one per provider, level, keyword and group), their formats "
           "and every call site's enable word")


def t_enable_bits(d, fr, tj):
    steps = bits_by_step(f"{d}/p1.out")
    want = {"none": set(), f"ftrace {L4K1}": {L4K1}, "none-again": set(),
            "ftrace FrKgroup_L3K4Gg1": {"FrKgroup_L3K4Gg1"}, "perf FrKtest_L2Kff": {"FrKtest_L2Kff"},
            "none-after-perf": set()}
    check(list(steps) == list(want), f"steps {list(steps)}, expected {list(want)}")
    for step, on in want.items():
        if step in steps:
            check_bits(steps[step], on, step)
    ev = collected(f"{d}/delta.jsonl")
    got = [e["event"] for e in ev]
    check(got == [{"n": "FrKtest:Delta", "d": -5, "meta": {"level": 2, "keyword": "0xFF"}}],
          f"the collector of FrKtest_L2Kff got {got}, expected Delta alone (not Beta, Gamma, Grouped)")
    finish("ok: enable bits follow ftrace's enable file and a perf_event_open collector, "
           "per tracepoint (level, keyword, group)")


def t_collector_values(d, fr, tj):
    pid = program_pid(f"{d}/p1.out")
    ev = collected(f"{d}/values.jsonl")
    check(all(e["pid"] == pid and e["tid"] == pid and e["tp"] == L4K1 for e in ev),
          "a sample of another process, thread or tracepoint")
    kernel = [e["event"] for e in by_seq(ev)]
    check_values(kernel, 300, pid, "collector")
    # The flight recorder got the same events from the same call sites: the same bytes.
    r = frtest.run(tj, f"{d}/trace.fr")
    check(r.returncode == 0, f"events_trace_json trace.fr: {r.stderr.strip()}")
    recorded = [json.loads(line.split("\t", 1)[1]) for line in r.stdout.splitlines()]
    check(len(recorded) == 300, f"the trace holds {len(recorded)} events, expected 300")
    check(recorded == kernel, "the trace's events differ from the kernel's")
    finish("ok: 300 events of every field type through the kernel, decoded back exactly, "
           "and the same as the flight recorder's")


def t_collector_spans(d, fr, tj):
    pid = program_pid(f"{d}/p1.out")
    ev = collected(f"{d}/spans.jsonl")
    check(all(e["pid"] == pid for e in ev), "a sample of another process")
    check_spans([e["event"] for e in sorted(ev, key=lambda e: e["time"])], 100, "collector")
    finish("ok: 100 rounds of nested spans with their activity ids")


def t_perf_record(d, fr, tj):
    pid = program_pid(f"{d}/p1.out")
    log = lines(f"{d}/perf.log")
    check("perf ack: ack" in log, f"perf never acknowledged enabling: {log}")
    every = perf_events(f"{d}/perf.data", L4K1, fr, d)
    ev, note = without_rereads(every, "perf record")
    check(all(s["pid"] == pid and s["tid"] == pid and s["common_pid"] == pid for s in ev),
          "a sample of another process")
    events = [s["event"] for s in sorted(ev, key=lambda s: s["time"])]
    check(len(events) == 5000 + 50 + 100, f"{len(events)} samples, expected 5150")
    if not check_alpha(events, range(5000), "perf record"):
        report_repeated_alpha(ev)
    check_values(events, 50, pid, "perf record")
    check_spans(events, 20, "perf record")
    check_decode_perf(f"{d}/perf.data", fr, every, "perf record")
    finish("ok: perf record captured all 5,000 events, 50 of every field type and 20 rounds "
           "of spans, each value decoded back (here and by flightrec decode-perf)" + note)


def t_perf_record_cmd(d, fr, tj):
    absent = lines(f"{d}/absent.log")
    check(absent[-1:] != ["perf exit 0"] and any("unknown tracepoint" in l for l in absent),
          f"perf record of a tracepoint nobody registered: {absent[-3:]}")
    note = ""
    for out, log, data in (("p_dyn.out", "perf_dyn.log", "perf_dyn.data"), ("p2.out", "perf.log", "perf.data")):
        got = lines(f"{d}/{out}")
        # The bit is set when the program registers (perf enabled the tracepoint before
        # the exec). The kernel writes it into the program's memory at once, or, when
        # that page is not in memory yet, from a worker a moment later (seen: 9 ms under
        # ASan on a loaded machine): a wait of any length, without anything else
        # enabling the event meanwhile, is the bit set at registration.
        waits = [int(l.split()[2]) for l in got if l.startswith("waitbit Alpha ")]
        check(len(waits) == 1 and waits[0] >= 0,
              f"{out}: the enable bit was not set after registration: {got}")
        pid = program_pid(f"{d}/{out}")
        check(lines(f"{d}/{log}")[-1:] == ["perf exit 0"], f"{log}: {lines(f'{d}/{log}')}")
        every = perf_events(f"{d}/{data}", L4K1, fr, d)
        ev, n = without_rereads(every, data)
        note += n
        check(all(s["pid"] == pid for s in ev), f"{data}: a sample of another process")
        if not check_alpha([s["event"] for s in sorted(ev, key=lambda s: s["time"])], range(1000), data):
            report_repeated_alpha(ev)
        check_decode_perf(f"{d}/{data}", fr, every, data)
    check(lines(f"{d}/after_dyn.txt") == [L4K1], f"the dynamic_events tracepoint after its users: {lines(f'{d}/after_dyn.txt')}")
    check(lines(f"{d}/after_delete.txt") == [], f"the dynamic_events tracepoint deleted: {lines(f'{d}/after_delete.txt')}")
    finish("ok: perf record -e user_events:FrKtest_L4K1 -- PROGRAM: refused while no tracepoint "
           "has the name; with one made through dynamic_events, or held by another process, "
           "all 1,000 events captured" + note)


def t_no_syscall(d, fr, tj):
    steps, cur = {}, None
    for line in lines(f"{d}/p1.out"):
        w = line.split()
        if w[:1] == ["step"]:
            cur = w[1]
        elif w[:1] == ["syscalls"]:
            steps[cur] = (int(w[1]), [] if w[2] == "-" else [int(x) for x in w[2].split(",")], w[-1])
    check(set(steps) == {"disabled", "enabled"}, f"steps {list(steps)}")
    if "disabled" in steps:
        n, calls, markers = steps["disabled"]
        check(markers == "2)", f"disabled: markers {markers}")
        check(n == 0, f"700 disabled events made {n} system calls: {calls[:20]}")
    if "enabled" in steps:
        n, calls, markers = steps["enabled"]
        writev = calls.count(SYS_WRITEV)
        check(writev == 700, f"700 enabled events made {writev} writev calls")
        other = sorted(set(c for c in calls if c != SYS_WRITEV) - SYS_ALLOWED)
        check(not other, f"enabled events made other system calls: {other}")
    finish("ok: 700 disabled events (Alpha, Values, spans) made no system call; enabled, "
           "one writev each")


def t_fork(d, fr, tj):
    out = lines(f"{d}/p1.out")
    pid = program_pid(f"{d}/p1.out")
    child = [int(l.split()[1]) for l in out if l.startswith("child ") and l.split()[1].isdigit()]
    check(len(child) == 1, f"child pid lines {child}")
    check("child exit 0" in out, "the child failed")
    blocks = bit_blocks(f"{d}/p1.out")
    check(len(blocks) == 2, f"{len(blocks)} bit listings, expected 2 (the child's)")
    if len(blocks) == 2:
        check_bits(blocks[0], set(), "the child after fork (the parent's collector listening)")
        check_bits(blocks[1], {L4K1}, "the child after registering")
    ev = collected(f"{d}/fork.jsonl")
    parent = [e["event"] for e in by_seq(ev) if e["pid"] == pid]
    kid = [e["event"] for e in by_seq(ev) if child and e["pid"] == child[0]]
    check(len(parent) + len(kid) == len(ev), "samples of a third process")
    check_alpha(parent, list(range(5)) + list(range(100, 105)), "parent")
    check_alpha(kid, range(2000, 2010), "child (nothing before it registered again)")
    finish("ok: a fork child's inherited registrations are withdrawn; registering again "
           "reaches the kernel under its own pid")


def t_unregister(d, fr, tj):
    steps = bits_by_step(f"{d}/p1.out")
    check_bits(steps.get("unregistered", []), set(), "after fr_provider_unregister")
    check_bits(steps.get("registered", []), {L4K1}, "registered again")
    ev = collected(f"{d}/unregister.jsonl")
    check_alpha([e["event"] for e in by_seq(ev)], list(range(5)) + list(range(200, 205)),
                "unregister")
    # The tracepoints stay while the process lives: its user_events_data descriptor holds
    # a reference to each event it registered (the write index), dropped only when the
    # descriptor closes, at exit (kernel_exit). docs/KERNEL_TESTS.md.
    check(lines(f"{d}/while_unregistered.txt") == ALL_TRACEPOINTS,
          f"tracepoints while unregistered: {lines(f'{d}/while_unregistered.txt')}")
    finish("ok: fr_provider_unregister clears every enable bit (no event reaches the kernel), "
           "and registering again works")


def t_exit(d, fr, tj):
    check(lines(f"{d}/before.txt") == ALL_TRACEPOINTS, f"before exit: {lines(f'{d}/before.txt')}")
    check(lines(f"{d}/after.txt") == [], f"after exit: {lines(f'{d}/after.txt')}")
    check("program 1 exit 0" in lines(f"{d}/p1.out"), "the program did not exit 0")
    finish("ok: at exit the kernel deletes the program's tracepoints")


def t_sigkill(d, fr, tj):
    check(lines(f"{d}/before.txt") == ALL_TRACEPOINTS, f"before: {lines(f'{d}/before.txt')}")
    check("program 1 exit 137" in lines(f"{d}/p1.out"), "program 1 not killed")
    check(lines(f"{d}/killed_held.txt") == [L4K1],
          f"killed, collector open: {lines(f'{d}/killed_held.txt')} (expected {L4K1} alone)")
    check(lines(f"{d}/released.txt") == [], f"collector closed: {lines(f'{d}/released.txt')}")
    check(lines(f"{d}/before2.txt") == ALL_TRACEPOINTS, f"before 2: {lines(f'{d}/before2.txt')}")
    check("program 2 exit 137" in lines(f"{d}/p2.out"), "program 2 not killed")
    check(lines(f"{d}/after2.txt") == [], f"killed: {lines(f'{d}/after2.txt')}")
    collected(f"{d}/held.jsonl")
    finish("ok: after SIGKILL the kernel deletes the tracepoints (one a collector holds, "
           "when it lets go)")


def t_two_processes(d, fr, tj):
    p1, p2 = program_pid(f"{d}/p1.out"), program_pid(f"{d}/p2.out")
    check(lines(f"{d}/tracepoints.txt") == ALL_TRACEPOINTS,
          f"two processes, one set of tracepoints: {lines(f'{d}/tracepoints.txt')}")
    ev = collected(f"{d}/two.jsonl")
    for pid in (p1, p2):
        check_alpha([e["event"] for e in by_seq(ev) if e["pid"] == pid], range(300), f"pid {pid}")
    check(len(ev) == 600, f"{len(ev)} samples, expected 600")
    blocks = bit_blocks(f"{d}/p2.out")
    check(len(blocks) == 1, f"{len(blocks)} bit listings of program 2")
    if blocks:
        check_bits(blocks[0], set(), "program 2 after program 1 exited and the collector closed")
    finish("ok: two processes share each tracepoint; every event arrives under its pid")


def t_enable_gap(d, fr, tj):
    out = lines(f"{d}/p1.out")
    wait = [l for l in out if l.startswith("waitbit Alpha ")]
    check(wait and int(wait[0].split()[2]) >= 0, f"the enable bit never came: {wait}")
    ev = collected(f"{d}/gap.jsonl")
    seqs = [e["event"]["seq"] for e in by_seq(ev)]
    first = seqs[0] if seqs else None
    check(first is not None and first > 0,
          f"no event was lost between the enable bit and the collector's enabling: first seq {first}")
    if first is not None:
        check(seqs == list(range(first, 300)), f"after the gap: {short(seqs)}")
    print(f"enable gap: bit set, then {first} events written before the collector enabled its "
          f"events, all lost; the {len(seqs)} after it all captured")
    finish("ok: events written between a collector's open and its enable are lost (the gap)")


def t_doctor(d, fr, tj):
    mounted = lines(f"{d}/mounted.txt")
    check("user_events: available, /sys/kernel/tracing/user_events_data" in mounted,
          f"doctor, tracefs mounted: {mounted}")
    check("instrumentation: none" in mounted and "exit 1" in mounted, f"doctor of ue_prog: {mounted}")
    nonroot = [l for l in lines(f"{d}/nonroot.txt") if l.startswith("user_events:")]
    check(nonroot and "unavailable, /sys/kernel/tracing/user_events_data: Permission denied: "
          "this user may not register events" in nonroot[0], f"doctor, not root: {nonroot}")
    unmounted = [l for l in lines(f"{d}/unmounted.txt") if l.startswith("user_events:")]
    check(unmounted and unmounted[0].startswith(
        "user_events: unavailable, tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing); "
        "the kernel has user_events"), f"doctor, tracefs not mounted: {unmounted}")
    # And on this machine (the host), whose kernel says in its config what it lacks.
    r = frtest.run(fr, "doctor", "--json", fr)
    host = json.loads(r.stdout)
    if os.access("/sys/kernel/tracing/user_events_data", os.W_OK):
        check(host["user_events"], f"host: {host['user_events_detail']}")
    else:
        check(not host["user_events"], "host: user_events said available")
        cfg = subprocess.run(["sh", "-c", "zcat /proc/config.gz 2>/dev/null | grep '^# CONFIG_USER_EVENTS is not set'"],
                             capture_output=True, text=True).stdout
        if cfg:
            check("is built without CONFIG_USER_EVENTS (/proc/config.gz)" in host["user_events_detail"],
                  f"host: {host['user_events_detail']}")
        print("host:", host["user_events_detail"])
    finish("ok: doctor says available, permission denied, tracefs not mounted, and the "
           "host kernel's missing CONFIG_USER_EVENTS")


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    name, results, fr, tj = sys.argv[1:]
    d = os.path.join(results, name)
    if not os.path.isdir(d):
        fatal(f"{d}: the virtual machine left no results for {name} (did kernel_vm run?)")
    rc = lines(f"{d}/rc")
    log = lines(f"{d}/log.txt")
    check(rc == ["0"], f"the scenario ended with status {rc} in the guest: {log[-10:]}")
    vm = os.path.join(results, "vm.txt")
    if os.path.exists(vm):
        print(" / ".join(lines(vm)))
    globals()["t_" + name](d, fr, tj)


if __name__ == "__main__":
    main()
