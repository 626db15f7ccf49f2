#!/usr/bin/env python3
"""recover_seeds.py OUTDIR - seed inputs for fuzz_recover in its compact view of a backing
file (fuzz/fuzz_recover.c): a 4096-byte header, then the regions the header's offsets name,
laid out so that the view's cyclic mapping is the identity: two buffers (one FULL, one
CURRENT), two thread slots (168 bytes: 9 drop causes), a CLOCK record as metadata. One seed as is, one with a torn
last event, one without metadata (version 1 headers); and version 2 seeds with an event
sites region (an FR_TE_EVENT_SITE record) and compact events (FR_TE_EVENT_RUN) in both
buffers, one whose last entry in the CURRENT buffer is torn (first byte still 0)."""
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


# The Sample site of tests/progs/events_compact.c (tracepoint name, header, metadata), as
# the runtime writes it: id 3
SITE = bytes.fromhex("03000000436f6d706163744170705f4c344b30000700000000000004100001005361"
                     "6d706c6500610004620004730007")
VALUES = struct.pack("<II", 7, 21) + b"hello\0"


def entry(site, delta, values):
    return bytes([site << 1, delta, len(values)]) + values


def seed(name, torn=False, meta=True, sites=False):
    b0 = preamble(100) + fn(1, 0) + fn(2, 0) + fn(2, 1) + event(b"hello world!") + fn(1, 1)
    b1 = preamble(101) + fn(3, 3) + md(6, struct.pack("<Q", 42)) + fn(3, 1)
    if sites:
        b0 += te(0xF012, entry(3, 0, VALUES) + entry(3, 5, VALUES))
        last = entry(3, 0, VALUES) + entry(3, 2, VALUES)
        b1 += te(0xF012, last + (b"\0" + entry(3, 1, VALUES)[1:] if torn else b""))
    else:
        b1 += event(b"abc" * 5 + b"\0" * 9) if torn else event(b"xyz" * 5)
    data = b0.ljust(BS, b"\0") + b1.ljust(BS, b"\0")
    descs = (struct.pack("<QQQQ", 2 | (0 << 8) | (1 << 32), 1, len(b0), 5) +
             struct.pack("<QQQQ", 1 | (1 << 8) | (1 << 32), 2, 0, 0))
    slots = b""
    for s, tid in enumerate((100, 101)):
        slot = struct.pack("<IiIIQQ", 1, tid, 2, 0, 0, 0) + struct.pack("<9Q", *([0] * 9))
        slot += struct.pack("<6Q", 0, 0, 0, 0, 0, 0) + (b"worker%d" % s).ljust(16, b"\0")
        slots += slot
    metab = te(0xF001, struct.pack("<IIQQqq", 1, 0, 2400000000, 0, 10**18, 10**9)) if meta else b""
    region = te(0xF011, SITE) if sites else b""
    data_off = 4096
    bufs_off = data_off + len(data)
    threads_off = bufs_off + len(descs)
    sites_off = threads_off + len(slots)
    map_size = sites_off + len(region) + 64
    hdr = struct.pack("<8sIIQQQQQQQIIIIIIIIIIQQqH", b"FRBACKv1", 2 if sites else 1,
                      1192 if sites else 1168, map_size, data_off,
                      bufs_off, threads_off, map_size, len(metab), BS, NB, NT, 32, 168, 0, 1,
                      99, 1, 3, 1, 2400000000, 0, 10**18, 4) + b"/bin"
    if sites:
        hdr = hdr.ljust(1168, b"\0") + struct.pack("<QQQ", sites_off, len(region) + 64, len(region))
    blob = (hdr.ljust(4096, b"\0") + data + descs + slots + region.ljust(len(region) + 64, b"\0") +
            metab + b"\0")
    open(os.path.join(out, name), "wb").write(blob)


seed("backing.bin")
seed("torn.bin", torn=True)
seed("nometa.bin", meta=False)
seed("sites.bin", sites=True)
seed("sites-torn.bin", sites=True, torn=True)
