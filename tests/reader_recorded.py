#!/usr/bin/env python3
"""reader_recorded.py FLIGHTREC LLVM_XRAY PROG WORKDIR

A trace written by our runtime (`flightrec record`): `info` counts as many records as the
writer's summary says it wrote (and as llvm-xray converts), per thread too; `dump` names
each function the same from the trace's own function table as from the binary's
instrumentation map and symbols (--binary), so the ids agree."""
import collections, os, re, subprocess, sys

from frtest import check, finish

flightrec, xray, prog, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "recorded.fr")
subprocess.run([flightrec, "record", "-o", trace, "--", prog], check=True,
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
info = subprocess.run([flightrec, "info", trace], check=True, capture_output=True, text=True).stdout
num = lambda key: int(re.search(r"^%s: (\d+)" % key, info, re.M).group(1))
records, written = num("records"), num("records written")
check(records == written, "info counts %d records, the writer wrote %d" % (records, written))
per_thread = [int(x) for x in re.findall(r"^thread .*, records (\d+),", info, re.M)]
check(sum(per_thread) == records, "threads' records %r sum to %d" % (per_thread, records))
for m in re.finditer(r"^thread (\d+): .*records (\d+),.*, written (\d+),", info, re.M):
    check(m.group(2) == m.group(3), "thread %s: %s records, written %s" % m.groups())

yaml = subprocess.run([xray, "convert", "--output-format=yaml", trace], check=True,
                      capture_output=True, text=True).stdout
xray_records = sum(1 for l in yaml.splitlines() if l.startswith("  - {") and "kind: function" in l)
check(xray_records == records, "llvm-xray converts %d function records, info %d" % (xray_records, records))


def names(*extra):
    out = subprocess.run([flightrec, "dump", trace] + list(extra), check=True, capture_output=True,
                         text=True).stdout
    c = collections.Counter()
    for l in out.splitlines()[1:]:
        f = l.split()
        if f[4] in ("enter", "exit", "tail-exit", "enter-arg"):
            c[(f[5], f[6])] += 1
    return c


table, binary = names(), names("--binary", prog)
check(table == binary, "names from the trace table and from --binary differ: %r vs %r"
      % (sorted(table.items())[:5], sorted(binary.items())[:5]))
check(not any(n.startswith("#") for _, n in table), "every function named")
finish("%d records; %d functions named alike" % (records, len({k[0] for k in table})))
