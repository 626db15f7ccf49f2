#!/usr/bin/env python3
"""convert_wild_times.py - a damaged basic-mode file (compiler-rt's "naive" format) whose
timestamps jump by more than 2^62 ticks at a slow clock, so that times in nanoseconds
leave the 64-bit range: chrome, perfetto, yaml, replay, account and stack must finish
with exit 0 and well-formed output. Under UBSan (scripts/test.sh) a signed overflow in
the time arithmetic aborts the program: this is the test that found chrome's duration
overflow (end - start of two wrapped nanosecond values).
The file is written here byte by byte: 32-byte records (u16 type 0, u8 cpu, u8 kind,
i32 function id, u64 tsc, u32 tid, u32 pid).
usage: convert_wild_times.py FLIGHTREC WORKDIR
"""
import json
import os
import struct
import subprocess
import sys

from frtest import check, finish

flightrec, work = sys.argv[1:3]
os.makedirs(work, exist_ok=True)


def rec(kind, fid, tsc, tid=7, pid=7):
    return struct.pack("<HBBiQII8x", 0, 0, kind, fid, tsc % 2**64, tid, pid)


m = 1000
records = [rec(0, 1, m), rec(1, 1, m + 10),
           # at 5 * 10^8 ticks a second, nanoseconds = 2 * ticks: 2^62 + 1 ticks after the
           # origin wraps to about -2^63 ns, and 2^63 + 2^61 ticks (negative as a signed
           # difference) to +2^62 ns: the difference of the two overflows
           rec(0, 2, m + 2**62 + 1), rec(1, 2, m + 2**63 + 2**61),
           rec(0, 3, m + 2**64 - 5), rec(1, 3, m + 2**64 - 1)]
header = struct.pack("<HHIQQ8x", 3, 0, 0, 500000000, 0)
path = os.path.join(work, "wild.xray")
open(path, "wb").write(header + b"".join(records))

for args in (["convert", path, "-f", "chrome"], ["convert", path, "-f", "perfetto"],
             ["convert", path, "-f", "yaml"], ["convert", path, "-f", "folded"],
             ["replay", path], ["account", path], ["stack", path], ["dump", path], ["info", path]):
    p = subprocess.run([flightrec, *args], capture_output=True)
    check(p.returncode == 0, "%s: exit %d %s" % (args[0:3], p.returncode, p.stderr.decode()[-500:]))
    if args[-1] == "chrome" and p.returncode == 0:
        doc = json.loads(p.stdout)
        check(len([e for e in doc["traceEvents"] if e["ph"] == "X"]) == 3, "chrome: 3 calls")

finish()
