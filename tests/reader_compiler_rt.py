#!/usr/bin/env python3
"""reader_compiler_rt.py CLANG LLVM_XRAY FLIGHTREC PROG_SRC WORKDIR

Builds a program with clang XRay, runs it under compiler-rt's runtime in FDR and in basic
mode, and checks that `flightrec info` counts exactly the records llvm-xray converts, and
that `flightrec dump --binary` names every record's function as llvm-xray -m does
(same ids from xray_instr_map, same symbols): the multisets of (kind, function) match."""
import collections, os, re, subprocess, sys

from frtest import build_xray, check, compiler_rt_trace, finish

clang, xray, flightrec, src, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
prog = os.path.join(work, "reader_xray_prog")
build_xray(clang, src, prog)

KINDS = {"function-enter": "enter", "function-exit": "exit", "function-tail-exit": "tail-exit",
         "function-enter-arg": "enter-arg", "custom-event": "custom", "typed-event": "typed"}

def llvm_records(trace):
    y = subprocess.run([xray, "convert", "--output-format=yaml", "-y", "-m", prog, trace],
                       check=True, capture_output=True, text=True).stdout
    recs = collections.Counter()
    for line in y.splitlines():
        m = re.search(r"function: '?([^',]*)'?, .* kind: ([a-z-]+)", line)
        if m:
            kind = KINDS[m.group(2)]
            recs[(kind, m.group(1) if kind not in ("custom", "typed") else "")] += 1
    return recs

def flightrec_records(trace):
    out = subprocess.run([flightrec, "dump", trace, "--binary", prog], check=True,
                         capture_output=True, text=True).stdout
    recs = collections.Counter()
    for line in out.splitlines()[1:]:
        f = line.split()
        kind = f[4]
        if kind == "block":
            continue
        recs[(kind, f[6] if kind not in ("custom", "typed") else "")] += 1
    return recs

def info_count(trace, key):
    out = subprocess.run([flightrec, "info", trace], check=True, capture_output=True,
                         text=True).stdout
    return int(re.search(r"^%s: (\d+)" % key, out, re.M).group(1))

for mode in ("fdr", "basic"):
    trace = compiler_rt_trace(prog, mode, os.path.join(work, mode))
    want, got = llvm_records(trace), flightrec_records(trace)
    total = sum(want.values())
    print("%s: llvm-xray %d records, flightrec %d, info says %d" %
          (mode, total, sum(got.values()), info_count(trace, "records")))
    differ = ["%s: llvm-xray %d, flightrec %d" % (k, want[k], got[k])
              for k in sorted(set(want) | set(got)) if want[k] != got[k]]
    check(not differ and info_count(trace, "records") == total,
          "%s: flightrec's records or info's count differ from llvm-xray's: %s" % (mode, differ))
    # Calls: 2 workers x (worker + 100 x (mid + 3 leaf)) + 50 x (witharg + mid + 3 leaf +
    # tailer + leaf) + main = 1153, each an entry and an exit (with no threshold).
    # FDR starts logging inside main and flushes before main returns: main's entry and exit
    # are not in the file, the custom event is.
    want_total = 2 * 1153 + (1 - 2 if mode == "fdr" else 0)
    check(total == want_total, "%s: expected %d records, llvm-xray has %d" % (mode, want_total, total))
finish()
