#!/usr/bin/env python3
"""analysis_cli_test.py FLIGHTREC ANALYSIS_TRACES LLVM_XRAY WORKDIR

`flightrec account`, `stack` and `graph` on the known traces of tests/progs/analysis_traces.c:
  - basic.xray (3 threads): every number checked against a separate computation in this
    file from llvm-xray's own decoding of the trace (`llvm-xray convert --output-format=yaml`);
  - basic_101/102/103.xray (one thread each): against `llvm-xray account -k -d`;
  - cut.xray (open frames, a lost-records gap): against numbers worked out by hand;
  - output formats (JSON parsed with json, CSV with csv, DOT edges), sorting, --top, and
    the exit code contract (0 ok, 1 bad input naming file and offset, 2 bad usage).
"""
import collections
import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys

import frtest
from frtest import check

FLIGHTREC, GEN, XRAY, WORK = sys.argv[1:5]
REL_ERR = 1.0 / 128          # quantile_sketch.h FR_QSKETCH_RELATIVE_ERROR
NAMES = {1: "main", 2: "work", 3: "leaf", 4: "fib", 5: "tail_caller", 6: "tail_callee",
         7: "with_arg", 8: "setjmp_caller", 9: "thrower", 10: "deep_helper"}


def run(*args, expect=0):
    return frtest.run(*args, expect=expect)


def fr(*args, expect=0):
    return run(FLIGHTREC, *args, expect=expect)


def path(name):
    return os.path.join(WORK, name)


# ------------------------------------------------------------------ independent model
def decode_with_llvm_xray(trace):
    """Function records per thread, in file order, as llvm-xray decodes them."""
    out = subprocess.run([XRAY, "convert", "--output-format=yaml", trace], capture_output=True,
                         check=True).stdout.decode("utf-8", "replace")
    recs = collections.defaultdict(list)
    pat = re.compile(r"func-id: (\d+),.* thread: (\d+),.* kind: (function-[a-z-]+), tsc: (\d+)")
    for line in out.splitlines():
        m = pat.search(line)
        if m:
            fid, tid, kind, tsc = int(m[1]), int(m[2]), m[3], int(m[4])
            recs[tid].append((kind, fid, tsc))
    return recs


def model(per_thread):
    """The call matching rules of call_tracker.h, written again: an exit closes the
    innermost frame of its function, closing the frames above it at the same time; an exit
    of a function not on the stack is dropped; frames open at the end close at the thread's
    last timestamp."""
    calls = []  # (tid, stack tuple, duration, self)
    unmatched = unwound = open_end = 0
    for tid, recs in per_thread.items():
        stack = []  # [fid, enter, child]

        def close(t):
            fid, enter, child = stack.pop()
            d = max(t - enter, 0)
            calls.append((tid, tuple(f[0] for f in stack) + (fid,), d, max(d - child, 0)))
            if stack:
                stack[-1][2] += d
        last = 0
        for kind, fid, tsc in recs:
            last = tsc
            if kind.startswith("function-enter"):
                stack.append([fid, tsc, 0])
                continue
            ids = [f[0] for f in stack]
            if fid not in ids:
                unmatched += 1
                continue
            pos = len(ids) - 1 - ids[::-1].index(fid)
            while len(stack) > pos + 1:
                close(tsc)
                unwound += 1
            close(tsc)
        while stack:
            close(last)
            open_end += 1
    return calls, {"exits_without_enter": unmatched, "closed_by_unwind": unwound,
                   "open_at_end": open_end}


def exact_quantile(sorted_values, q):
    r = math.floor(q * len(sorted_values))
    return sorted_values[min(r, len(sorted_values) - 1)]


def close_enough(got, want, what):
    check(abs(got - want) <= REL_ERR * want + 1e-9, f"{what}: got {got}, want {want} (within 0.78%)")


def per_function(calls):
    f = collections.defaultdict(lambda: {"d": [], "self": 0})
    for _, stack, d, s in calls:
        f[stack[-1]]["d"].append(d)
        f[stack[-1]]["self"] += s
    return f


# ------------------------------------------------------------------ checks
def check_account_against_model(trace, calls, counts):
    j = json.loads(fr("account", trace, "--format", "json").stdout)
    want = per_function(calls)
    got = {f["id"]: f for f in j["functions"]}
    check(set(got) == set(want), f"{trace}: functions {sorted(got)} != {sorted(want)}")
    check(j["calls"] == len(calls), f"{trace}: {j['calls']} calls, want {len(calls)}")
    for k, v in counts.items():
        check(j["unmatched"][k] == v, f"{trace}: unmatched {k} = {j['unmatched'][k]}, want {v}")
    for fid, w in want.items():
        g = got.get(fid)
        if not g:
            continue
        d = sorted(w["d"])
        check(g["name"] == NAMES[fid], f"{trace}: function {fid} named {g['name']!r}")
        check(g["calls"] == len(d), f"{trace}: {fid} calls {g['calls']} != {len(d)}")
        check(g["total_ticks"] == sum(d), f"{trace}: {fid} total {g['total_ticks']} != {sum(d)}")
        check(g["self_ticks"] == w["self"], f"{trace}: {fid} self {g['self_ticks']} != {w['self']}")
        check(g["min_ticks"] == d[0], f"{trace}: {fid} min")
        check(g["max_ticks"] == d[-1], f"{trace}: {fid} max")
        for key, q in (("median", 0.5), ("p90", 0.9), ("p99", 0.99)):
            close_enough(g[key + "_ticks"], exact_quantile(d, q), f"{trace}: {fid} {key}")
        # 1 tick = 1 us: the ns fields are ticks * 1000
        check(abs(g["total_ns"] - 1000 * g["total_ticks"]) < 1e-3, f"{trace}: {fid} total_ns")
    return j


def check_stack_against_model(trace, calls):
    j = json.loads(fr("stack", trace, "--format", "json").stdout)
    want = collections.defaultdict(lambda: [0, 0, 0])
    for _, stack, d, s in calls:
        w = want[stack]
        w[0] += 1
        w[1] += d
        w[2] += s
    got = {tuple(s["ids"]): s for s in j["stacks"]}
    check(set(got) == set(want), f"{trace}: stacks differ: extra {set(got) - set(want)}, "
                                 f"missing {set(want) - set(got)}")
    for st, (n, total, self) in want.items():
        g = got.get(st)
        if g:
            check((g["calls"], g["total_ticks"], g["self_ticks"]) == (n, total, self),
                  f"{trace}: stack {st}: {g['calls']}, {g['total_ticks']}, {g['self_ticks']} "
                  f"!= {n}, {total}, {self}")
            check(g["stack"] == [NAMES[i] for i in st], f"{trace}: stack names {g['stack']}")
    totals = [s["total_ticks"] for s in j["stacks"]]
    check(totals == sorted(totals, reverse=True), f"{trace}: stacks not sorted by total")
    # folded: self nanoseconds of each stack, names joined by ';'
    folded = fr("stack", trace, "--format", "folded").stdout.splitlines()
    fsum = {}
    for line in folded:
        names, value = line.rsplit(" ", 1)
        fsum[names] = int(value)
    for st, (n, total, self) in want.items():
        key = ";".join(NAMES[i] for i in st)
        if self:
            check(fsum.get(key) == self * 1000, f"{trace}: folded {key} = {fsum.get(key)}, want {self * 1000}")
    return j


def check_graph_against_model(trace, calls):
    dot = fr("graph", trace).stdout
    check(dot.startswith("digraph") and dot.rstrip().endswith("}"), f"{trace}: not a DOT graph")
    want = collections.defaultdict(int)
    for _, stack, d, s in calls:
        if len(stack) > 1:
            want[(stack[-2], stack[-1])] += 1
    got = {}
    for m in re.finditer(r"f(\d+) -> f(\d+) \[label=\"(\d+) calls?\\n", dot):
        got[(int(m[1]), int(m[2]))] = int(m[3])
    check(got == dict(want), f"{trace}: graph edges {got} != {dict(want)}")
    nodes = {int(m[1]): (m[2], int(m[3])) for m in
             re.finditer(r"f(\d+) \[label=\"([^\\\"]+)\\n(\d+) calls?\\n", dot)}
    per = per_function(calls)
    for fid, w in per.items():
        check(nodes.get(fid) == (NAMES[fid], len(w["d"])), f"{trace}: node {fid} = {nodes.get(fid)}")
    if shutil.which("dot"):
        run("dot", "-Tsvg", "-o", os.devnull, input_file(trace, dot))


def input_file(trace, text):
    p = trace + ".dot"
    with open(p, "w") as f:
        f.write(text)
    return p


def check_against_llvm_xray_account(trace):
    x = run(XRAY, "account", "-k", "-d", "-m", path("map.yaml"), trace).stdout
    rows = {}
    for m in re.finditer(r"^\s*(\d+)\s+(\d+) \[\s*([\d.]+),\s*([\d.]+),\s*([\d.]+),\s*([\d.]+),"
                         r"\s*([\d.]+)\]\s+([\d.]+)", x, re.M):
        rows[int(m[1])] = [int(m[2])] + [round(float(v) * 1e6) for v in m.groups()[2:]]
    check(rows, f"{trace}: could not read llvm-xray account's output:\n{x}")
    j = json.loads(fr("account", trace, "--format", "json").stdout)
    got = {f["id"]: f for f in j["functions"]}
    check(set(got) == set(rows), f"{trace}: functions {sorted(got)} vs llvm-xray {sorted(rows)}")
    for fid, (count, mn, med, p90, p99, mx, total) in rows.items():
        g = got.get(fid)
        if not g:
            continue
        check(g["calls"] == count, f"{trace}: {fid} calls {g['calls']} vs llvm-xray {count}")
        check(g["min_ticks"] == mn and g["max_ticks"] == mx, f"{trace}: {fid} min/max vs llvm-xray")
        check(g["total_ticks"] == total, f"{trace}: {fid} total {g['total_ticks']} vs llvm-xray {total}")
        for key, v in (("median", med), ("p90", p90), ("p99", p99)):
            close_enough(g[key + "_ticks"], v, f"{trace}: {fid} {key} vs llvm-xray")


def check_cut_by_hand():
    """cut.xray, worked out in tests/progs/analysis_traces.c's comments:
    thread 201: main 190 (self 90) and 90 open at the end (self 10); setjmp_caller 80
    (self 10); leaf 70 unwound (self 10), 20, 80 open at the end (self 10); fib 60 unwound,
    70. Thread 202: lost records discard leaf and main; fib 10 after the gap."""
    trace = path("cut.xray")
    p = fr("account", trace, "--format", "json")
    j = json.loads(p.stdout)
    want = {1: (2, 280, 100, 90, 190), 8: (1, 80, 10, 80, 80), 3: (3, 170, 40, 20, 80),
            4: (3, 140, 140, 10, 70)}
    got = {f["id"]: (f["calls"], f["total_ticks"], f["self_ticks"], f["min_ticks"], f["max_ticks"])
           for f in j["functions"]}
    check(got == want, f"cut: account {got} != {want}")
    check(j["unmatched"] == {"exits_without_enter": 3, "closed_by_unwind": 2, "open_at_end": 2,
                             "cut_by_lost_records": 2, "too_deep": 0}, f"cut: unmatched {j['unmatched']}")
    check(j["calls"] == 9 and j["threads"] == 2, "cut: calls/threads")
    leaf = [f for f in j["functions"] if f["id"] == 3][0]
    check(leaf["median_ticks"] == 70 and leaf["closed_by_unwind"] == 1 and leaf["open_at_end"] == 1,
          f"cut: leaf {leaf}")
    check("3 exits without an enter" in p.stderr and "2 calls open at the end" in p.stderr,
          f"cut: stderr does not report the unmatched records: {p.stderr}")
    s = json.loads(fr("stack", trace, "--format", "json").stdout)
    got = {tuple(x["ids"]): (x["calls"], x["total_ticks"], x["self_ticks"]) for x in s["stacks"]}
    want = {(1,): (2, 280, 100), (1, 8): (1, 80, 10), (1, 8, 3): (1, 70, 10),
            (1, 8, 3, 4): (1, 60, 60), (1, 3): (2, 100, 30), (1, 3, 4): (1, 70, 70), (4,): (1, 10, 10)}
    check(got == want, f"cut: stacks {got} != {want}")
    dot = fr("graph", trace).stdout
    edges = {(int(m[1]), int(m[2])): int(m[3])
             for m in re.finditer(r"f(\d+) -> f(\d+) \[label=\"(\d+) calls?\\n", dot)}
    check(edges == {(1, 8): 1, (8, 3): 1, (3, 4): 2, (1, 3): 2}, f"cut: edges {edges}")


def check_formats_and_options():
    trace = path("basic.xray")
    j = json.loads(fr("account", trace, "--format", "json").stdout)
    by_total = [f["id"] for f in j["functions"]]
    # CSV: same rows, same order
    c = list(csv.DictReader(io.StringIO(fr("account", trace, "--format", "csv").stdout)))
    check([int(r["id"]) for r in c] == by_total, "csv order differs from json")
    check(all(int(r["calls"]) == f["calls"] for r, f in zip(c, j["functions"])), "csv calls")
    # sort keys
    for key, field, rev in (("calls", "calls", True), ("self", "self_ticks", True),
                            ("max", "max_ticks", True), ("name", "name", False)):
        jj = json.loads(fr("account", trace, "--format", "json", "--sort", key).stdout)
        vals = [f[field] for f in jj["functions"]]
        check(vals == sorted(vals, reverse=rev), f"--sort {key}: {vals}")
    jj = json.loads(fr("account", trace, "--format", "json", "--sort", "calls", "-r").stdout)
    vals = [f["calls"] for f in jj["functions"]]
    check(vals == sorted(vals), f"--sort calls -r: {vals}")
    top = json.loads(fr("account", "--top", "3", "--format", "json", trace).stdout)
    check([f["id"] for f in top["functions"]] == by_total[:3], "--top 3")
    # text: header and one line per function, sensible units
    text = fr("account", trace, "--top", "2").stdout.splitlines()
    check(len(text) == 3 and text[0].split()[:2] == ["calls", "total"], f"text table: {text}")
    check(re.search(r"\d (ns|us|ms|s) ", text[1]) is not None, f"text units: {text[1]}")
    # -o FILE
    out = path("account.txt")
    fr("account", trace, "-o", out)
    with open(out) as f:
        check(f.read().startswith(" " * 5 + "calls"), "-o FILE content")
    st = fr("stack", trace, "--top", "2").stdout.splitlines()
    check(len(st) == 3 and "main" in st[1], f"stack text: {st}")
    g = fr("graph", trace, "--top", "2").stdout
    check(len(re.findall(r"^\s*f\d+ \[label", g, re.M)) == 2, "graph --top 2 nodes")

    # exit codes: usage 2, bad input 1 (naming file and offset), help 0
    for cmd in ("account", "stack", "graph"):
        h = fr(cmd, "--help")
        check(h.stdout.startswith("usage: flightrec " + cmd), f"{cmd} --help")
        fr(cmd, expect=2)
        fr(cmd, trace, "--bogus", expect=2)
        fr(cmd, trace, trace, expect=2)
        fr(cmd, "--top", "x", trace, expect=2)
        p = fr(cmd, path("missing.xray"), expect=1)
        check("missing.xray" in p.stderr, f"{cmd}: missing file message: {p.stderr}")
    fr("account", trace, "--sort", "bogus", expect=2)
    fr("account", trace, "--format", "xml", expect=2)
    fr("stack", trace, "--format", "xml", expect=2)
    # --color=always colours text only: with csv or json it did nothing (output
    # byte-identical), so it is refused; auto and never are what those formats do anyway
    for cmd, fmts in (("account", ("csv", "json")), ("stack", ("json", "folded")), ("dump", ("json",))):
        for f in fmts:
            p = fr(cmd, trace, "-f", f, "--color=always", expect=2)
            check("--color=always" in p.stderr and f in p.stderr, f"{cmd} -f {f} --color=always: {p.stderr!r}")
            fr(cmd, trace, "-f", f, "--color=never", expect=0)
        p = fr(cmd, trace, "--color=always", expect=0)
        check("\033[" in p.stdout, f"{cmd} --color=always (text): no colour in {p.stdout[:200]!r}")
    # --value weighs folded stacks; text and json show every figure: there it did nothing
    for f in ("text", "json"):
        p = fr("stack", trace, "-f", f, "--value", "total", expect=2)
        check("--value" in p.stderr and f in p.stderr, f"stack -f {f} --value: {p.stderr!r}")
    with open(trace, "rb") as f:
        data = f.read()
    for cut in (10, 40, 100, len(data) - 3):
        bad = path(f"truncated-{cut}.xray")
        with open(bad, "wb") as f:
            f.write(data[:cut])
        for cmd in ("account", "stack", "graph"):
            # a cut header is not a trace; a cut block is read up to the cut, with a warning
            p = fr(cmd, bad, expect=1 if cut < 32 else 0)
            check(bad in p.stderr and "offset" in p.stderr, f"{cmd} {bad}: message {p.stderr!r}")


def main():
    os.makedirs(WORK, exist_ok=True)
    subprocess.run([GEN, WORK], check=True)
    basic = path("basic.xray")
    calls, counts = model(decode_with_llvm_xray(basic))
    check(counts["closed_by_unwind"] == 100 and counts["exits_without_enter"] == 51,
          f"the model sees the trace's unmatched records: {counts}")
    check_account_against_model(basic, calls, counts)
    check_stack_against_model(basic, calls)
    check_graph_against_model(basic, calls)
    for t in ("101", "102", "103"):
        check_against_llvm_xray_account(path(f"basic_{t}.xray"))
    check_cut_by_hand()
    check_formats_and_options()
    frtest.finish("all analysis CLI checks passed")


main()
