#!/usr/bin/env python3
"""reader_symbols.py TOOL LLVM_XRAY BIN SRC

fr_symbols on a C++ binary with XRay sleds, checked against llvm-xray and the source:
 - every id of xray_instr_map has the function llvm-xray `extract -s` names for it
   (same id rule, C++ names demangled the same way);
 - each function's file:line (DWARF) is the source line holding its "LINE:" marker;
 - through a trace's tables: a nameless FR_TE_FUNCTION at a runtime address (object 0
   with a load bias) resolves to the symbol, a named one keeps its name."""
import re, subprocess, sys

from frtest import check, finish

tool, xray, binary, src = sys.argv[1:5]
ext = subprocess.run([xray, "extract", "-s", binary], check=True, capture_output=True,
                     text=True).stdout
want = {}
for line in ext.splitlines():
    m = re.search(r"id: (\d+), address: (0x[0-9A-Fa-f]+), function: (0x[0-9A-Fa-f]+),.*"
                  r"function-name: '?(.*?)'?, version", line)
    if m:
        want[int(m.group(1))] = (int(m.group(3), 16), m.group(4))
markers = {}
for n, line in enumerate(open(src), 1):
    m = re.search(r"LINE:(\w+)", line)
    if m:
        markers[m.group(1)] = n
first_addr = want[1][0]
out = subprocess.run([tool, binary, hex(first_addr)], check=True, capture_output=True,
                     text=True).stdout
got, meta = {}, {}
for line in out.splitlines():
    f = line.split(" ")
    if f[0] == "meta":
        meta[int(f[1])] = " ".join(f[2:])
    else:
        loc = f[-1]
        got[int(f[0])] = (" ".join(f[1:-1]), loc)
check(sorted(got) == sorted(want), "ids: ours %s, llvm-xray %s" % (sorted(got), sorted(want)))
marker_of = {"shapes::Circle::area() const": "area", "int twice<int>(int)": "twice",
             "long twice<long>(long)": "twice", "plain_c_like(int)": "plain",
             "c_linkage": "clink", "main": "main"}
for fid, (addr, name) in sorted(want.items()):
    ours, loc = got.get(fid, ("?", "?"))
    print("%d: llvm-xray %r, ours %r at %s" % (fid, name, ours, loc))
    check(ours == name, "%d: named %r, llvm-xray %r" % (fid, ours, name))
    key = marker_of.get(name)
    check(key is not None and loc.endswith("reader_cxx_prog.cpp:%d" % markers[key]),
          "%d: %s at %s, expected reader_cxx_prog.cpp:%s" % (fid, name, loc, markers.get(key, "?")))
check(meta.get(1000) == want[1][1] and meta.get(1001) == "given" and meta.get(1002) == "#1002",
      "trace tables: %r, expected %r / 'given' / '#1002'" % (meta, want[1][1]))
finish()
