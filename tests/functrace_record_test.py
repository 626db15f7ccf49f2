#!/usr/bin/env python3
"""functrace_record_test.py - a real program traced through `flightrec record`.

usage: functrace_record_test.py FLIGHTREC LLVM_XRAY PROGRAM WORKDIR [--gcc]

Runs PROGRAM (which prints "calls NAME ENTERS EXITS" for the calls it made) under
`flightrec record`, then checks, per function:
  - the calls the program made == enter/exit records in the trace, as llvm-xray reads
    them (`llvm-xray convert --output-format=yaml`) and as our reader reads them
    (`flightrec dump`);
  - for clang programs (XRay sleds): ids agree with the binary's instrumentation map
    (`-m PROGRAM --symbolize` names), and `llvm-xray account -m PROGRAM` counts agree
    with `flightrec account`'s (which must succeed and list every function);
  - llvm-xray reads every function record as type 0 (the program logs no typed event).
For gcc programs (--gcc) there is no map: names come only from the trace's own
FR_TE_FUNCTION table, which is what `flightrec dump` prints.
"""
import collections
import os
import re
import sys

import frtest
from frtest import fatal


def run(cmd, **kw):
    return frtest.run(cmd, **kw)


def main():
    flightrec, llvm_xray, program, workdir = sys.argv[1:5]
    gcc = "--gcc" in sys.argv[5:]
    os.makedirs(workdir, exist_ok=True)
    trace = os.path.join(workdir, os.path.basename(program) + ".fr")
    if os.path.exists(trace):
        os.unlink(trace)
    env = dict(os.environ)
    env.pop("FLIGHTREC_OPTIONS", None)
    extra = [] if gcc else ["--custom-event"]
    p = run([flightrec, "record", "-o", trace, "--", program] + extra, env=env)
    if p.returncode != 0:
        fatal(f"flightrec record exited {p.returncode}: {p.stderr}")
    if f"trace written to {trace}" not in p.stderr:
        fatal(f"record did not say where the trace went: {p.stderr!r}")
    expected = {}
    for line in p.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] == "calls":
            expected[parts[1]] = (int(parts[2]), int(parts[3]))
    if not expected:
        fatal("program printed no calls")

    # Our reader: one line per record, "... kind ID NAME".
    ours = collections.defaultdict(lambda: [0, 0])
    id_of = {}
    d = run([flightrec, "dump", trace])
    if d.returncode != 0:
        fatal(f"flightrec dump: {d.stderr}")
    for line in d.stdout.splitlines():
        f = line.split()
        if len(f) >= 7 and f[4] in ("enter", "enter-arg", "exit", "tail-exit"):
            name = f[6]
            id_of[name] = int(f[5])
            ours[name][0 if f[4].startswith("enter") else 1] += 1

    # llvm-xray: raw records per id (and per name through the map for clang programs).
    cmd = [llvm_xray, "convert", "--output-format=yaml", trace]
    if not gcc:
        cmd[2:2] = ["--symbolize", "-m", program]
    y = run(cmd)
    if y.returncode != 0:
        fatal(f"llvm-xray convert: {y.stderr}")
    theirs_by_id = collections.defaultdict(lambda: [0, 0])
    theirs_by_name = collections.defaultdict(lambda: [0, 0])
    rec = re.compile(r"type: (\d+), func-id: (\d+), function: '?([^',]*)'?,.*kind: ([a-z-]+)")
    wrongly_typed = 0
    for line in y.stdout.splitlines():
        m = rec.search(line)
        if not m or not m.group(4).startswith("function-"):
            continue
        # The program logs no typed event: every function record is type 0 in llvm-xray,
        # as in compiler-rt's files (our own records must not give them a type).
        wrongly_typed += m.group(1) != "0"
        m = re.search(r"func-id: (\d+), function: '?([^',]*)'?,.*kind: ([a-z-]+)", line)
        slot = 0 if m.group(3).startswith("function-enter") else 1
        theirs_by_id[int(m.group(1))][slot] += 1
        theirs_by_name[m.group(2)][slot] += 1

    if wrongly_typed:
        fatal(f"llvm-xray reads {wrongly_typed} function records with a type other than 0")
    if not gcc and "kind: custom-event" not in y.stdout:
        fatal("the custom event did not reach the trace")

    for name, (enters, exits) in sorted(expected.items()):
        if name not in id_of:
            fatal(f"{name}: not in the trace (or without a name); our reader saw {sorted(ours)}")
        got = tuple(ours[name])
        if got != (enters, exits):
            fatal(f"{name}: made {enters} calls / {exits} returns, our reader counts {got}")
        got = tuple(theirs_by_id[id_of[name]])
        if got != (enters, exits):
            fatal(f"{name} (id {id_of[name]}): llvm-xray counts {got}, want {(enters, exits)}")
        if not gcc and tuple(theirs_by_name[name]) != (enters, exits):
            fatal(f"{name}: llvm-xray's map names id {id_of[name]} differently "
                 f"({dict(theirs_by_name)})")
        if gcc and id_of[name] < 0x0F000000:
            fatal(f"{name}: gcc id {id_of[name]:#x} is in the sled range")

    if not gcc:
        # llvm-xray account without -k: the frame longjmp skipped was closed by the runtime.
        a = run([llvm_xray, "account", "-m", program, trace, "--format=csv"])
        if a.returncode != 0:
            fatal(f"llvm-xray account: {a.stderr}")
        acc = {}
        for line in a.stdout.splitlines()[1:]:
            f = line.split(",")
            if len(f) >= 10:
                acc[f[-1].strip().strip('"')] = int(f[1])
        fa = run([flightrec, "account", trace, "--binary", program, "--format", "csv"])
        if fa.returncode != 0:
            fatal(f"flightrec account exited {fa.returncode}: {fa.stderr}")
        rows = [r.split(",") for r in fa.stdout.splitlines()]
        if not rows or "calls" not in rows[0] or "function" not in rows[0]:
            fatal(f"flightrec account --format csv: no header with calls and function: "
                 f"{fa.stdout[:200]!r}")
        ci, ni = rows[0].index("calls"), rows[0].index("function")
        ours_acc = {r[ni].strip('"'): int(r[ci]) for r in rows[1:] if len(r) > max(ci, ni)}
        for name in ("leaf", "fib", "tail_target", "half", "logged", "worker"):
            if name not in expected:
                continue
            want = expected[name][1]
            if acc.get(name) != want:
                fatal(f"llvm-xray account: {name} {acc.get(name)} calls, want {want}")
            if ours_acc.get(name) != want:
                fatal(f"flightrec account: {name} {ours_acc.get(name)} calls, "
                     f"llvm-xray account {want}")
        print("account agrees: flightrec account and llvm-xray account")
    print(f"ok: {len(expected)} functions, counts agree ({'gcc' if gcc else 'clang'})")


main()
