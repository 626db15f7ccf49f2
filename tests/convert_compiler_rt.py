#!/usr/bin/env python3
"""convert_compiler_rt.py CLANG LLVM_XRAY FLIGHTREC PROG_SRC WORKDIR

Files written by compiler-rt's own XRay runtime (FDR and basic mode): `flightrec convert
--format yaml` must be identical, byte for byte, to `llvm-xray convert -f yaml`, with
function ids and with names (--binary / -m -y); the chrome output must parse and hold one
complete event per call llvm-xray's YAML shows."""
import collections, json, os, subprocess, sys

from frtest import build_xray, check, compiler_rt_trace, finish, run

clang, xray, flightrec, src, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
prog = os.path.join(work, "xray_prog")
build_xray(clang, src, prog)

for mode in ("fdr", "basic"):
    trace = compiler_rt_trace(prog, mode, os.path.join(work, mode))
    for label, ours_args, llvm_args in (("ids", ["--ids"], []), ("names", ["--binary", prog], ["-m", prog, "-y"])):
        mine, theirs = trace + "." + label + ".mine.yaml", trace + "." + label + ".llvm.yaml"
        p = run(flightrec, "convert", trace, "--format", "yaml", "-o", mine, *ours_args)
        check(p.returncode == 0, "%s %s: exit code %d %s" % (mode, label, p.returncode, p.stderr))
        subprocess.run([xray, "convert", "--output-format=yaml", *llvm_args, trace, "-o", theirs], check=True)
        a, b = open(mine, "rb").read().splitlines(), open(theirs, "rb").read().splitlines()
        diff = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
        check(len(a) == len(b) and not diff and len(a) > 20,
              "%s %s: yaml differs from llvm-xray (%d vs %d lines) %s" % (mode, label, len(a), len(b), diff[:2]))
    out = trace + ".json"
    p = run(flightrec, "convert", trace, "--format", "chrome", "--binary", prog, "-o", out)
    check(p.returncode == 0, "%s chrome: exit code %d %s" % (mode, p.returncode, p.stderr))
    events = json.load(open(out))["traceEvents"]
    calls = collections.Counter(e["name"] for e in events if e["ph"] == "X")
    enters = collections.Counter()
    for line in open(trace + ".names.llvm.yaml"):
        if "kind: function-enter" in line:
            enters[line.split("function: ")[1].split(",")[0].strip("'")] += 1
    check(calls == enters, "%s chrome: calls per function %s, llvm-xray's enters %s" % (mode, dict(calls), dict(enters)))

finish("compiler-rt files: yaml and chrome agree with llvm-xray")
