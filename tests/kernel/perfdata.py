"""perfdata.py - the tracepoint samples of a perf.data file (file mode), for the kernel
tests: each sample's pid, tid, time, cpu and raw bytes. Only what `perf record -e
TRACEPOINT` writes is read (the sample fields IDENTIFIER, IP, TID, TIME, ADDR, ID,
STREAM_ID, CPU, PERIOD, CALLCHAIN, RAW); anything else is an error, never a guess.

split_rereads tells apart the samples perf record writes twice (its ring-buffer read
race, below) from the rest.
"""
import struct

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 1 << 4, 1 << 5, 1 << 6, 1 << 7
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW, SAMPLE_IDENTIFIER = 1 << 8, 1 << 9, 1 << 10, 1 << 16
KNOWN = (SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ADDR | SAMPLE_CALLCHAIN | SAMPLE_ID |
         SAMPLE_CPU | SAMPLE_PERIOD | SAMPLE_STREAM_ID | SAMPLE_RAW | SAMPLE_IDENTIFIER)
RECORD_SAMPLE, RECORD_FINISHED_ROUND = 9, 68


class PerfDataError(Exception):
    pass


def samples(path):
    """Yields dicts {pid, tid, time, cpu, raw, read, record} in file order: read counts
    the FINISHED_ROUND records before the sample (perf record writes one after each
    pass over its ring buffers that wrote anything), record is the whole sample record's
    bytes."""
    data = open(path, "rb").read()
    if data[:8] != b"PERFILE2":
        raise PerfDataError(f"{path}: not a perf.data file (magic {data[:8]!r})")
    (hsize, attr_size, attrs_off, attrs_size, data_off, data_size) = struct.unpack_from("<6Q", data, 8)
    # Each attribute entry: perf_event_attr (attr_size - 16 bytes: type u32, size u32,
    # config, sample_period, sample_type, ...), then the section of its sample ids. With
    # several events (perf -a adds a "dummy" one) every sample starts with its id
    # (SAMPLE_IDENTIFIER), which names its event.
    by_id, types = {}, []
    for off in range(attrs_off, attrs_off + attrs_size, attr_size):
        st = struct.unpack_from("<Q", data, off + 24)[0]
        ids_off, ids_size = struct.unpack_from("<QQ", data, off + attr_size - 16)
        types.append(st)
        for i in range(ids_off, ids_off + ids_size, 8):
            by_id[struct.unpack_from("<Q", data, i)[0]] = st
    if len(types) > 1 and not all(t & SAMPLE_IDENTIFIER for t in types):
        raise PerfDataError(f"{path}: several events without SAMPLE_IDENTIFIER")
    pos, end, read = data_off, data_off + data_size, 0
    while pos + 8 <= end:
        rtype, _misc, size = struct.unpack_from("<IHH", data, pos)
        if size < 8 or pos + size > end:
            raise PerfDataError(f"{path}: record at byte {pos} of size {size} overruns the data")
        if rtype == RECORD_SAMPLE:
            st = types[0] if len(types) == 1 else by_id.get(struct.unpack_from("<Q", data, pos + 8)[0])
            if st is None:
                raise PerfDataError(f"{path}: sample at byte {pos} of an unknown event")
            if st & ~KNOWN:
                raise PerfDataError(f"{path}: sample type {st:#x} is not a tracepoint's")
            if st & SAMPLE_RAW:
                s = parse_sample(data, pos + 8, pos + size, st)
                s["read"], s["record"] = read, data[pos:pos + size]
                yield s
        elif rtype == RECORD_FINISHED_ROUND:
            read += 1
        pos += size


def parse_sample(data, p, end, st):
    s = {}

    def u64():
        nonlocal p
        v = struct.unpack_from("<Q", data, p)[0]
        p += 8
        return v

    if st & SAMPLE_IDENTIFIER:
        u64()
    if st & SAMPLE_IP:
        u64()
    if st & SAMPLE_TID:
        s["pid"], s["tid"] = struct.unpack_from("<II", data, p)
        p += 8
    if st & SAMPLE_TIME:
        s["time"] = u64()
    if st & SAMPLE_ADDR:
        u64()
    if st & SAMPLE_ID:
        u64()
    if st & SAMPLE_STREAM_ID:
        u64()
    if st & SAMPLE_CPU:
        s["cpu"] = struct.unpack_from("<I", data, p)[0]
        p += 8
    if st & SAMPLE_PERIOD:
        u64()
    if st & SAMPLE_CALLCHAIN:
        p += 8 * u64()
    size = struct.unpack_from("<I", data, p)[0]
    if p + 4 + size > end:
        raise PerfDataError(f"raw data of {size} bytes overruns its sample")
    s["raw"] = data[p + 4:p + 4 + size]
    return s


def split_rereads(samples, most=None):
    """(kept, copies): the samples (of samples(), in file order) without the copies that
    perf record's ring-buffer read race writes, and those copies.

    The race (perf_mmap__push in tools/perf/util/mmap.c, as in Linux 6.12's sources;
    the perf 6.1 these tests run does it): a pass over one CPU's ring buffer reads the
    kernel's write position (data_head) for itself, then perf_mmap__read_init reads it
    again, and the pass writes the data up to that second value but marks as read
    (data_tail, where its next pass starts) only what lies below the first. A record the
    kernel completes between the two reads is written at the end of this pass and again
    at the start of the CPU's next pass: the same bytes (time, cpu, tid, raw data), one
    FINISHED_ROUND later. Seen in the kernel tests' VM (Linux 6.12, perf 6.1, QEMU): 10
    copies in 35 runs of 20,000 events, each the last sample of its CPU's pass repeated
    as the first of the next (docs/KERNEL_TESTS.md).

    So a copy is exactly: for one CPU, the first k samples of a pass that are byte for
    byte the last k samples of the same CPU's pass just before it (its read number one
    less, no sample of that CPU between). Any other repeat (within one pass, across
    passes further apart, a different time or cpu, not at the passes' edges) is kept,
    for the caller's checks to count as an error.

    most: the copies of at most that many samples at one pass's edge (most=1: what
    flightrec decode-perf leaves out, the CPU's last sample of a pass written again as its
    first of the next)."""
    by_cpu = {}
    for i, s in enumerate(samples):
        by_cpu.setdefault(s["cpu"], []).append(i)
    copies = set()
    for idx in by_cpu.values():
        j = 1
        while j < len(idx):
            before, first = samples[idx[j - 1]], samples[idx[j]]
            k = 0
            if first["read"] == before["read"] + 1:
                t = j                   # idx[t:j]: the earlier pass's samples
                while t > 0 and samples[idx[t - 1]]["read"] == before["read"]:
                    t -= 1
                h = j                   # idx[j:h]: the later pass's
                while h < len(idx) and samples[idx[h]]["read"] == first["read"]:
                    h += 1
                for n in range(1, min(j - t, h - j, most or j) + 1):
                    if all(samples[idx[j - n + m]]["record"] == samples[idx[j + m]]["record"]
                           for m in range(n)):
                        k = n
                        break
            copies.update(idx[j:j + k])
            j += max(k, 1)
    return ([s for i, s in enumerate(samples) if i not in copies],
            [s for i, s in enumerate(samples) if i in copies])
