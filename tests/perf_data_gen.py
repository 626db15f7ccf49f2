#!/usr/bin/env python3
"""perf_data_gen.py - writes perf.data files byte by byte, as `perf record` does, for the
decode-perf tests, fuzzer seeds and benchmark: this machine's kernel has no user_events,
so EventHeader samples with known values can only come from here.

  Format(system, name, id, fields)       one tracepoint format (tracefs text made here)
  eventheader_format(name, id)           a user_events tracepoint registered by an
                                         EventHeader writer (its six header fields)
  sample(fmt, payload, time, cpu, pid, tid)  one sample: the common fields, then payload
  write(path, formats, samples, mode='file'|'pipe', clock=None, extra=True)
      a whole perf.data: the attributes (one per format), the tracing data with every
      format, clock data when clock=(wall_ns, clock_ns, clockid), and with extra=True a
      COMM and a FINISHED_ROUND record between the samples (records a decoder skips)

As a script: perf_data_gen.py vectors DIR   writes DIR/vectors.data (file mode) and
DIR/vectors.pipe.data (pipe mode) from the VECTORS below;
perf_data_gen.py corpus DAT OUT  wraps every record of an EventHeader interceptor corpus
(.dat) as a user_events sample; perf_data_gen.py bench OUT N  N samples of vector B;
perf_data_gen.py rereads DIR  the samples of reread_cases in one file (and in pipe mode).
"""
import struct
import sys

PERF_MAGIC = b'PERFILE2'
PERF_TYPE_TRACEPOINT = 2
# sample_type: IP, TID, TIME, CPU, PERIOD, RAW, IDENTIFIER (what perf record asks for a
# tracepoint when it records several events)
ST_IP, ST_TID, ST_TIME, ST_ID, ST_CPU, ST_PERIOD, ST_RAW, ST_IDENTIFIER = \
    1, 2, 4, 64, 128, 256, 1024, 1 << 16
SAMPLE_TYPE = ST_IP | ST_TID | ST_TIME | ST_CPU | ST_PERIOD | ST_RAW | ST_IDENTIFIER
ATTR_SIZE = 128
REC_COMM, REC_SAMPLE, REC_HEADER_ATTR, REC_TRACING_DATA, REC_FINISHED_ROUND, \
    REC_HEADER_FEATURE = 3, 9, 64, 66, 68, 80
FEAT_TRACING_DATA, FEAT_CLOCK_DATA = 1, 29

COMMON = [('unsigned short common_type', 0, 2, 0), ('unsigned char common_flags', 2, 1, 0),
          ('unsigned char common_preempt_count', 3, 1, 0), ('int common_pid', 4, 4, 1)]


class Format:
    def __init__(self, system, name, id, fields, print_fmt=None):
        self.system, self.name, self.id = system, name, id
        self.fields = fields        # (declaration, offset, size, signed) after the common ones
        self.print_fmt = print_fmt or '"level=%u", REC->level'

    def text(self):
        lines = [f'name: {self.name}', f'ID: {self.id}', 'format:']
        for decl, off, size, signed in COMMON:
            lines.append(f'\tfield:{decl};\toffset:{off};\tsize:{size};\tsigned:{signed};')
        lines.append('')
        for decl, off, size, signed in self.fields:
            lines.append(f'\tfield:{decl};\toffset:{off};\tsize:{size};\tsigned:{signed};')
        lines.append('')
        lines.append('print fmt: ' + self.print_fmt)
        return ('\n'.join(lines) + '\n').encode()


def eventheader_format(name, id):
    return Format('user_events', name, id, [
        ('u8 eventheader_flags', 8, 1, 0), ('u8 version', 9, 1, 0), ('u16 id', 10, 2, 0),
        ('u16 tag', 12, 2, 0), ('u8 opcode', 14, 1, 0), ('u8 level', 15, 1, 0)])


# What tracefs' events/header_page and header_event say on x86-64 (the ring buffer's
# page and event headers; read by perf's libtraceevent, skipped by decode-perf).
HEADER_PAGE = (b'\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;\n'
               b'\tfield: local_t commit;\toffset:8;\tsize:8;\tsigned:1;\n'
               b'\tfield: int overwrite;\toffset:8;\tsize:1;\tsigned:1;\n'
               b'\tfield: char data;\toffset:16;\tsize:4080;\tsigned:1;\n')
HEADER_EVENT = (b'# compressed entry header\n\ttype_len    :    5 bits\n'
                b'\ttime_delta  :   27 bits\n\tarray       :   32 bits\n\n'
                b'\tpadding     : type == 29\n\ttime_extend : type == 30\n'
                b'\ttime_stamp : type == 31\n\tdata max type_len  == 28\n')


def tracing_data(formats):
    out = bytearray(b'\x17\x08\x44tracing' + b'0.6\0' + bytes([0, 8]) + struct.pack('<I', 4096))
    for name, text in ((b'header_page', HEADER_PAGE), (b'header_event', HEADER_EVENT)):
        out += name + b'\0' + struct.pack('<Q', len(text)) + text
    ftrace = Format('ftrace', 'function', 1, [('unsigned long ip', 8, 8, 0)],
                    '"%ps", (void *)REC->ip').text()
    out += struct.pack('<I', 1) + struct.pack('<Q', len(ftrace)) + ftrace
    systems = {}
    for f in formats:
        systems.setdefault(f.system, []).append(f)
    out += struct.pack('<I', len(systems))
    for system, fs in systems.items():
        out += system.encode() + b'\0' + struct.pack('<I', len(fs))
        for f in fs:
            t = f.text()
            out += struct.pack('<Q', len(t)) + t
    out += struct.pack('<I', 0) + struct.pack('<I', 0) + struct.pack('<Q', 0)   # kallsyms, printk, cmdlines
    while len(out) % 8:
        out += b'\0'
    return bytes(out)


def attr_bytes(fmt, clockid):
    flags = (1 << 18)                                   # sample_id_all
    if clockid is not None:
        flags |= 1 << 25                                # use_clockid
    a = struct.pack('<IIQQQQQIIQQQQIiQIHHIIQ', PERF_TYPE_TRACEPOINT, ATTR_SIZE - 0, fmt.id, 1,
                    SAMPLE_TYPE, 0, flags, 1, 0, 0, 0, 0, 0, 0,
                    clockid if clockid is not None else 0, 0, 0, 0, 0, 0, 0, 0)
    assert len(a) == ATTR_SIZE, len(a)
    return a


def sample_id(fmt):
    return 1000 + fmt.id       # one id per event (perf has one per CPU; one is enough)


def sample(fmt, payload, time, cpu=0, pid=100, tid=101):
    """A sample record: the raw data is the 8 common bytes then payload, zero-padded as
    the kernel pads it (u32 size + data a multiple of 8)."""
    raw = struct.pack('<HBBi', fmt.id, 0, 0, tid) + payload
    while (4 + len(raw)) % 8:
        raw += b'\0'
    body = struct.pack('<QQIIQIIQ', sample_id(fmt), 0x401000, pid, tid, time, cpu, 0, 1)
    body += struct.pack('<I', len(raw)) + raw
    return struct.pack('<IHH', REC_SAMPLE, 2, 8 + len(body)) + body


def comm_record(fmt, pid, tid, comm, time):
    """PERF_RECORD_COMM, with the sample_id trailer sample_id_all asks for (TID, TIME,
    CPU, IDENTIFIER of SAMPLE_TYPE, in that order)."""
    c = comm.encode() + b'\0'
    while len(c) % 8:
        c += b'\0'
    body = struct.pack('<II', pid, tid) + c + struct.pack('<IIQIIQ', pid, tid, time, 0, 0, sample_id(fmt))
    return struct.pack('<IHH', REC_COMM, 0, 8 + len(body)) + body


FINISHED_ROUND = struct.pack('<IHH', REC_FINISHED_ROUND, 0, 8)


def clock_data(clock):
    wall_ns, clock_ns, clockid = clock
    return struct.pack('<IIQQ', 1, clockid, wall_ns, clock_ns)


def data_records(formats, samples, extra):
    out = bytearray()
    if extra:
        out += comm_record(formats[0], 100, 101, 'prog', 1)
    for i, s in enumerate(samples):
        out += s
        if extra and i == len(samples) // 2:
            out += FINISHED_ROUND
    if extra:
        out += FINISHED_ROUND
    return bytes(out)


def write(path, formats, samples, mode='file', clock=None, extra=True):
    clockid = clock[2] if clock else None
    td = tracing_data(formats)
    data = data_records(formats, samples, extra)
    if mode == 'pipe':
        out = bytearray(PERF_MAGIC + struct.pack('<Q', 16))
        for f in formats:
            body = attr_bytes(f, clockid) + struct.pack('<Q', sample_id(f))
            out += struct.pack('<IHH', REC_HEADER_ATTR, 0, 8 + len(body)) + body
        if clock:
            body = struct.pack('<Q', FEAT_CLOCK_DATA) + clock_data(clock)
            out += struct.pack('<IHH', REC_HEADER_FEATURE, 0, 8 + len(body)) + body
        out += struct.pack('<IHHI4x', REC_TRACING_DATA, 0, 16, len(td)) + td
        out += data
    else:
        n = len(formats)
        attrs_off = 104
        ids_off = attrs_off + n * (ATTR_SIZE + 16)
        data_off = ids_off + 8 * n
        feats = [FEAT_TRACING_DATA] + ([FEAT_CLOCK_DATA] if clock else [])
        table_off = data_off + len(data)
        sections = []
        at = table_off + 16 * len(feats)
        blobs = [td] + ([clock_data(clock)] if clock else [])
        for b in blobs:
            sections.append((at, len(b)))
            at += len(b)
        bitmap = 0
        for f in feats:
            bitmap |= 1 << f
        out = bytearray(PERF_MAGIC + struct.pack('<QQ', 104, ATTR_SIZE + 16))
        out += struct.pack('<QQ', attrs_off, n * (ATTR_SIZE + 16))
        out += struct.pack('<QQ', data_off, len(data))
        out += struct.pack('<QQ', 0, 0)
        out += (bitmap).to_bytes(32, 'little')
        assert len(out) == 104
        for i, f in enumerate(formats):
            out += attr_bytes(f, clockid) + struct.pack('<QQ', ids_off + 8 * i, 8)
        for f in formats:
            out += struct.pack('<Q', sample_id(f))
        out += data
        for off, size in sections:
            out += struct.pack('<QQ', off, size)
        for b in blobs:
            out += b
    with open(path, 'wb') as fp:
        fp.write(out)
    return bytes(out)


# ------------------------------------------------------------------ the project's vectors
# EventHeader events as a user_events tracepoint carries them after its common fields
# (8-byte header, extensions, metadata, values), written by Microsoft's reference
# writer for provider MyProviderName (shared/vectors/eventheader/vectors.md, A to C):
# A: "Hello", level 5: u32 count = 42, zero-terminated string msg = "world".
# B: "Hello", level 4, keyword 1: i32 -5, counted string "hey", u8 array [1, 2, 3].
# C: "Work", activity start (opcode 1), id 7 version 2, tag 0x1234, both activity ids,
#    u16 258 with field tag 0x42, provider group "mygroup".
VECTOR_A = bytes.fromhex('07 00 00 00 00 00 00 05 12 00 01 00 48 65 6c 6c 6f 00 63 6f 75 6e 74 00 04'
                         '6d 73 67 00 07 2a 00 00 00 77 6f 72 6c 64 00')
VECTOR_B = bytes.fromhex('07 00 00 00 00 00 00 04 15 00 01 00 48 65 6c 6c 6f 00 69 33 32 00 84 02 63'
                         '73 00 0a 61 72 72 00 42 fb ff ff ff 03 00 68 65 79 03 00 01 02 03')
VECTOR_C = bytes.fromhex('07 02 07 00 34 12 01 04'                             # header
                         '20 00 02 80'                                          # activity ext.
                         '11 11 11 11 22 22 33 33 44 44 55 55 55 55 55 55'
                         'aa aa aa aa bb bb cc cc dd dd ee ee ee ee ee ee'
                         '0d 00 01 00 57 6f 72 6b 00 75 31 36 00 83 80 42 00'   # metadata ext.
                         '02 01')                                               # the u16

# A classic tracepoint with every kind of field decode-perf renders from a format: a
# char array (text to its NUL), signed and unsigned integers of each size, a pointer, a
# fixed u16 array, a __data_loc string, a __rel_loc byte array, a __data_loc u32 array.
EVERY_KIND = Format('flightrec_test', 'every_kind', 77, [
    ('char comm[16]', 8, 16, 0), ('s32 delta', 24, 4, 1), ('u32 flags', 28, 4, 0),
    ('unsigned long long big', 32, 8, 0), ('void * ptr', 40, 8, 0),
    ('__data_loc char[] path', 48, 4, 0), ('__rel_loc u8[] blob', 52, 4, 0),
    ('u16 ports[3]', 56, 6, 0), ('s16 tiny', 62, 2, 1), ('s8 small', 64, 1, 1),
    ('u8 flag', 65, 1, 0), ('__data_loc u32[] vals', 68, 4, 0)],
    '"comm=%s delta=%d flags=%u big=%llu ptr=%p path=%s tiny=%d small=%d", REC->comm, '
    'REC->delta, REC->flags, REC->big, REC->ptr, __get_str(path), REC->tiny, REC->small')


def every_kind_payload(comm, delta):
    fixed = bytearray(72 - 8)
    def put(off, fmt, *v):
        struct.pack_into(fmt, fixed, off - 8, *v)
    c = comm.encode()[:15]
    fixed[0:len(c)] = c
    put(24, '<i', delta)
    put(28, '<I', 0xDEADBEEF)
    put(32, '<Q', 18446744073709551615)
    put(40, '<Q', 0xFFFF8880DEADB000)
    path = b'/tmp/x y\0'
    blob = bytes([1, 2, 3])
    vals = struct.pack('<II', 7, 4000000000)
    at = 72
    put(48, '<I', len(path) << 16 | at)
    at += len(path)
    put(52, '<I', len(blob) << 16 | (at - 56))          # relative to the field's end
    at += len(blob)
    put(56, '<HHH', 80, 443, 8080)
    put(62, '<h', -2)
    put(64, '<b', -128)
    put(65, '<B', 1)
    put(68, '<I', len(vals) << 16 | at)
    return bytes(fixed) + path + blob + vals


FMT_A = eventheader_format('MyProviderName_L5K0', 1301)
FMT_B = eventheader_format('MyProviderName_L4K1', 1302)
FMT_C = eventheader_format('MyProviderName_L4K5Gmygroup', 1303)
# 2024-03-28T00:45:12.640913120Z is 1711586712.640913120 s since 1970; the session's
# clock (CLOCK_MONOTONIC, 1) read 5 s at that instant.
CLOCK = (1711586712640913120, 5000000000, 1)


def vector_samples():
    t = 5000000000
    return [sample(FMT_A, VECTOR_A, t, cpu=0, pid=100, tid=101),
            sample(FMT_B, VECTOR_B, t + 1, cpu=1, pid=100, tid=102),
            sample(FMT_C, VECTOR_C, t + 999999999, cpu=1, pid=100, tid=101),
            sample(EVERY_KIND, every_kind_payload('prog', -5), t + 1000000000, cpu=3, pid=7, tid=7),
            sample(EVERY_KIND, every_kind_payload('a-very-long-command-name', 2**31 - 1),
                   t + 61 * 1000000000 + 5, cpu=0, pid=7, tid=8)]


# ------------------------------------------------------------------ perf's re-read copies
def reread_cases(alpha):
    """Made sequences of samples and FINISHED_ROUND records around perf record's re-read
    copies (docs/KERNEL_TESTS.md "What perf does": the last sample of a CPU's pass over
    its ring buffer written again, byte for byte, as the first of that CPU's next pass).
    alpha(seq, cpu=0, time=None) makes the sample of seq on cpu (time 1000 ns per seq
    unless given). Returns (what, records, copies, several): copies are the (cpu, seq)
    of the copies; several is True where perf's copy is of more than one sample at a
    pass's edge. The cases without copies are repeats perf cannot write: they stay."""
    P = FINISHED_ROUND
    a = alpha
    return [
        ("one copy", [a(0), a(1), P, a(1), a(2), P], [(0, 1)], False),
        ("two copies", [a(0), a(1), a(2), P, a(1), a(2), a(3), P], [(0, 1), (0, 2)], True),
        ("a copy of the whole pass", [a(1), P, a(1), a(2), P], [(0, 1)], False),
        ("the copy is the whole next pass", [a(1), a(2), P, a(2), P, a(3), P], [(0, 2)], False),
        ("other CPUs around", [a(0), a(1), a(10, cpu=1), P, a(11, cpu=1), a(1), a(2), P],
         [(0, 1)], False),
        ("both CPUs", [a(0), a(10, cpu=1), a(1), P, a(10, cpu=1), a(1), P], [(0, 1), (1, 10)], False),
        ("copies in successive passes", [a(0), P, a(0), a(1), P, a(1), P], [(0, 0), (0, 1)], False),
        ("within one pass", [a(0), a(1), a(1), P, a(2), P], [], False),
        ("two passes apart", [a(0), a(1), P, a(10, cpu=1), P, a(1), P], [], False),
        ("another CPU", [a(1, cpu=0), P, a(1, cpu=1), P], [], False),
        ("another time", [a(1), P, a(1, time=1001), P], [], False),
        ("not the last of its pass", [a(1), a(2), P, a(1), a(3), P], [], False),
        ("not the first of its pass", [a(1), a(2), P, a(3), a(2), P], [], False),
        ("the edges not in order", [a(1), a(2), P, a(2), a(1), P], [(0, 2)], False),
        ("no pass between", [a(1), a(1)], [], False),
    ]


def corpus_events(dat):
    data = open(dat, 'rb').read()
    pos, events = 0, []
    while pos < len(data):
        size = struct.unpack_from('<I', data, pos)[0]
        rec = data[pos + 4:pos + size]
        nul = rec.index(b'\0')
        events.append((rec[:nul].decode(), rec[nul + 1:]))
        pos += size
    return events


def main():
    what = sys.argv[1]
    if what == 'vectors':
        d = sys.argv[2]
        formats = [FMT_A, FMT_B, FMT_C, EVERY_KIND]
        write(f'{d}/vectors.data', formats, vector_samples(), 'file', CLOCK)
        write(f'{d}/vectors.pipe.data', formats, vector_samples(), 'pipe', CLOCK)
        write(f'{d}/noclock.data', formats, vector_samples(), 'file', None)
    elif what == 'corpus':
        dat, out = sys.argv[2:4]
        formats, by_name, samples = [], {}, []
        for i, (name, ev) in enumerate(corpus_events(dat)):
            if name not in by_name:
                by_name[name] = eventheader_format(name, 2000 + len(formats))
                formats.append(by_name[name])
            samples.append(sample(by_name[name], ev, 1000 + i, cpu=i % 4, pid=1, tid=1 + i % 3))
        write(out, formats, samples, sys.argv[4] if len(sys.argv) > 4 else 'file', CLOCK)
    elif what == 'rereads':     # the fuzzer's seeds of perf's copies (reread_cases)
        d = sys.argv[2]
        def alpha(seq, cpu=0, time=None):
            return sample(FMT_A, VECTOR_A, 1000 * seq if time is None else time, cpu=cpu)
        records = [r for case in reread_cases(alpha) for r in case[1]]
        write(f'{d}/rereads.data', [FMT_A], records, 'file', CLOCK, extra=False)
        write(f'{d}/rereads.pipe.data', [FMT_A], records, 'pipe', CLOCK, extra=False)
    elif what == 'bench':
        out, n = sys.argv[2], int(sys.argv[3])
        formats = [FMT_A, FMT_B, FMT_C, EVERY_KIND]
        t = 5000000000
        # A few distinct records repeated: the decoder's work per event is the same.
        block = b''.join(sample(f, p, t + i, cpu=i % 2, pid=100, tid=101)
                         for i, (f, p) in enumerate([(FMT_A, VECTOR_A), (FMT_B, VECTOR_B),
                                                     (FMT_C, VECTOR_C), (EVERY_KIND, every_kind_payload("prog", -5))]))
        samples = [block] * (n // 4)
        write(out, formats, samples, 'file', CLOCK, extra=False)
    else:
        sys.exit(f'unknown: {what}')


if __name__ == '__main__':
    main()
