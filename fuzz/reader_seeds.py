#!/usr/bin/env python3
"""reader_seeds.py DIR: writes seed traces for fuzz_reader that the trace builder cannot
make: FDR version 1 (EndOfBuffer, unused tail), version 4 (custom event with absolute
TSC and CPU), basic mode (with an argument record)."""
import os, struct, sys

d = sys.argv[1]
os.makedirs(d, exist_ok=True)


def header(version, typ, buffer_size):
    return struct.pack("<HHIQQ8x", version, typ, 3, 1000, buffer_size)


def md(kind, payload=b""):
    return bytes([(kind << 1) | 1]) + payload.ljust(15, b"\0")


def fn(fid, kind, delta):
    return struct.pack("<II", (fid << 4) | (kind << 1), delta)


buf = md(0, struct.pack("<i", 7)) + md(4, struct.pack("<qi", 1, 2)) + md(2, struct.pack("<HQ", 0, 50))
buf += fn(1, 0, 1) + fn(1, 1, 2) + md(1)
v1 = header(1, 1, 128) + buf.ljust(128, b"\xab") + buf.ljust(128, b"\0")
open(os.path.join(d, "v1.xray"), "wb").write(v1)

body = md(0, struct.pack("<i", 3)) + md(4, struct.pack("<qi", 1, 2)) + md(9, struct.pack("<i", 4))
body += md(2, struct.pack("<HQ", 1, 10)) + fn(2, 3, 1) + md(6, struct.pack("<Q", 99))
body += md(5, struct.pack("<iQH", 4, 123, 9)) + b"data" + fn(2, 1, 5) + md(3, struct.pack("<Q", 1 << 40))
v4 = header(4, 1, 4096) + md(7, struct.pack("<Q", len(body))) + body
open(os.path.join(d, "v4.xray"), "wb").write(v4)

def basic(rtype, cpu, kind, fid, tsc, tid, pid):
    return struct.pack("<HBBiQII8x", rtype, cpu, kind, fid, tsc, tid, pid)

b = header(3, 0, 0) + basic(0, 1, 0, 5, 100, 77, 7) + basic(0, 1, 3, 6, 110, 77, 7)
b += struct.pack("<H2xiIIQ8x", 1, 6, 77, 7, 4242) + basic(0, 2, 1, 6, 120, 78, 7)
open(os.path.join(d, "basic.xray"), "wb").write(b)
