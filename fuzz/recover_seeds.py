#!/usr/bin/env python3
"""recover_seeds.py OUTDIR - seed inputs for fuzz_recover in its compact view of a backing
file (fuzz/fuzz_recover.c): a 4096-byte header, then the regions the header's offsets name,
laid out so that the view's cyclic mapping is the identity: two buffers (one FULL, one
CURRENT), two thread slots (168 bytes: 9 drop causes), a CLOCK record as metadata. One seed as is, one with a torn
last event, one without metadata."""
import os, struct, sys

out = sys.argv[1]
os.makedirs(out, exist_ok=True)
BS, NB, NT = 1024, 2, 2


def md(kind, payload=b""):
    return bytes([(kind << 1) | 1]) + payload.ljust(15, b"\0")


def preamble(tid):
    return (md(0, struct.pack("<i", tid)) + md(4, struct.pack("<qi", 1700000000, 5)) +
            md(9, struct.pack("<i", 99)) + md(2, struct.pack("<HQ", 0, 1000)))


def fn(fid, kind, delta=3):
    return struct.pack("<II", (fid << 4) | (kind << 1), delta)


def event(payload):
    return md(5, struct.pack("<ii", len(payload), 1))[:16] + payload


def te(kind, payload):
    body = b"flightrec\0" + struct.pack("<H", kind) + payload
    return bytes([11]) + struct.pack("<ii", len(body), 0) + bytes(7) + body


def seed(name, torn=False, meta=True):
    b0 = preamble(100) + fn(1, 0) + fn(2, 0) + fn(2, 1) + event(b"hello world!") + fn(1, 1)
    b1 = preamble(101) + fn(3, 3) + md(6, struct.pack("<Q", 42)) + fn(3, 1)
    b1 += event(b"abc" * 5 + b"\0" * 9) if torn else event(b"xyz" * 5)
    data = b0.ljust(BS, b"\0") + b1.ljust(BS, b"\0")
    descs = (struct.pack("<QQQQ", 2 | (0 << 8) | (1 << 32), 1, len(b0), 5) +
             struct.pack("<QQQQ", 1 | (1 << 8) | (1 << 32), 2, 0, 0))
    slots = b""
    for s, tid in enumerate((100, 101)):
        slot = struct.pack("<IiIIQQ", 1, tid, 2, 0, 0, 0) + struct.pack("<9Q", *([0] * 9))
        slot += struct.pack("<6Q", 0, 0, 0, 0, 0, 0) + b"worker%d".ljust(16, b"\0") % s
        slots += slot
    metab = te(0xF001, struct.pack("<IIQQqq", 1, 0, 2400000000, 0, 10**18, 10**9)) if meta else b""
    data_off = 4096
    bufs_off = data_off + len(data)
    threads_off = bufs_off + len(descs)
    map_size = threads_off + len(slots)
    hdr = struct.pack("<8sIIQQQQQQQIIIIIIIIIIQQqH", b"FRBACKv1", 1, 1168, map_size, data_off,
                      bufs_off, threads_off, map_size, len(metab), BS, NB, NT, 32, 168, 0, 1,
                      99, 1, 3, 1, 2400000000, 0, 10**18, 4) + b"/bin"
    blob = hdr.ljust(4096, b"\0") + data + descs + slots + metab + b"\0"
    open(os.path.join(out, name), "wb").write(blob)


seed("backing.bin")
seed("torn.bin", torn=True)
seed("nometa.bin", meta=False)
