"""perfdata.py - the tracepoint samples of a perf.data file (file mode), for the kernel
tests: each sample's pid, tid, time, cpu and raw bytes. Only what `perf record -e
TRACEPOINT` writes is read (the sample fields IDENTIFIER, IP, TID, TIME, ADDR, ID,
STREAM_ID, CPU, PERIOD, CALLCHAIN, RAW); anything else is an error, never a guess.
"""
import struct

SAMPLE_IP, SAMPLE_TID, SAMPLE_TIME, SAMPLE_ADDR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
SAMPLE_READ, SAMPLE_CALLCHAIN, SAMPLE_ID, SAMPLE_CPU = 1 << 4, 1 << 5, 1 << 6, 1 << 7
SAMPLE_PERIOD, SAMPLE_STREAM_ID, SAMPLE_RAW, SAMPLE_IDENTIFIER = 1 << 8, 1 << 9, 1 << 10, 1 << 16
KNOWN = (SAMPLE_IP | SAMPLE_TID | SAMPLE_TIME | SAMPLE_ADDR | SAMPLE_CALLCHAIN | SAMPLE_ID |
         SAMPLE_CPU | SAMPLE_PERIOD | SAMPLE_STREAM_ID | SAMPLE_RAW | SAMPLE_IDENTIFIER)
RECORD_SAMPLE = 9


class PerfDataError(Exception):
    pass


def samples(path):
    """Yields dicts {pid, tid, time, cpu, raw} in file order."""
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
    pos, end = data_off, data_off + data_size
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
                yield parse_sample(data, pos + 8, pos + size, st)
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
