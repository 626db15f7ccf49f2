#!/usr/bin/env python3
"""decode-perf on perf.data files made by perf_data_gen.py (this kernel has no
user_events; `perf script` reads the same files):

- vectors: the whole output of the file-mode file against tests/data/perf/vectors.json
  (EventHeader vectors A-C as user_events samples, a classic tracepoint with every kind
  of field, wall-clock times from the clock data), of a file without clock data against
  noclock.json; the pipe-mode file, from its name, from a pipe on standard input and
  from a redirected file, prints the same events; a file-mode file on a pipe is refused.
- corpus: every event of the LinuxTracepoints corpus, each wrapped as a user_events
  sample, decodes to the reference decoder's JSON (meta's time, cpu, pid and tid, which
  the corpus has not, checked against what the samples carry).
- cuts: each file cut at every byte: exit 1 naming a byte offset (pipe mode: exit 0 is
  right only at a record's end), the whole events before the cut printed, valid JSON.
- bad input and usage: not perf.data, empty, an XRay trace; no FILE, two FILEs, an
  unknown option or format.

usage: decodeperf_check.py FLIGHTREC DATA_DIR CORPUS_DAT CORPUS_JSON WORKDIR"""
import json
import os
import struct
import subprocess
import sys

import frtest
from frtest import check, run
import perf_data_gen as gen
from events_corpus_compare import parse_member_list, same

flightrec, data_dir, corpus_dat, corpus_json, work = sys.argv[1:6]
frtest.workdir(work, fresh=True)
os.chdir(work)
subprocess.run([sys.executable, gen.__file__, 'vectors', '.'], check=True)


def decode(*args, **kw):
    return run(flightrec, 'decode-perf', *args, text=False, **kw)


def events_of(out):
    """The events of decode-perf's output (one member: wrapped in braces to parse)."""
    (name, events), = parse_member_list(out.decode('utf-8', 'surrogateescape'))
    return name, events


# ------------------------------------------------------------------ vectors
for data, golden in (('vectors.data', 'vectors.json'), ('noclock.data', 'noclock.json')):
    r = decode(data)
    check(r.returncode == 0, f'{data}: exit {r.returncode}: {r.stderr[:300]}')
    want = open(os.path.join(data_dir, golden), 'rb').read()
    check(r.stdout == want, f'{data}: output differs from {golden}:\n{r.stdout.decode()[:3000]}')
want_events = events_of(open(os.path.join(data_dir, 'vectors.json'), 'rb').read())[1]
r = decode('vectors.pipe.data')
check(r.returncode == 0 and events_of(r.stdout)[1] == want_events,
      f'pipe mode by name: exit {r.returncode}, output {r.stdout[:500]}')
with open('vectors.pipe.data', 'rb') as f:
    data = f.read()
p = subprocess.run(['sh', '-c', f'cat vectors.pipe.data | "{flightrec}" decode-perf -'],
                   capture_output=True)
check(p.returncode == 0 and events_of(p.stdout) == ('stdin', want_events),
      f'pipe mode through a pipe: exit {p.returncode}, {p.stderr[:300]}')
with open('vectors.data', 'rb') as f:
    r = decode('-', stdin=f)
check(r.returncode == 0 and events_of(r.stdout)[1] == want_events,
      f'file mode from a redirected standard input: exit {r.returncode}, {r.stderr[:300]}')
p = subprocess.run(['sh', '-c', f'cat vectors.data | "{flightrec}" decode-perf -'],
                   capture_output=True)
check(p.returncode == 1 and b'cannot be read from a pipe' in p.stderr,
      f'file mode through a pipe: exit {p.returncode}, {p.stderr[:300]}')
r = decode('--object', '-o', 'obj.json', 'vectors.data')
check(r.returncode == 0 and json.load(open('obj.json'))['vectors.data'] is not None,
      '--object -o FILE: a whole JSON object')

# Times around 1970 (a clock whose reading 5 s is the epoch): rounded down to the second.
gen.write('epoch.data', [gen.FMT_A], [gen.sample(gen.FMT_A, gen.VECTOR_A, 5000000000 - 1),
                                      gen.sample(gen.FMT_A, gen.VECTOR_A, 5000000000)],
          'file', (0, 5000000000, 1))
r = decode('epoch.data')
times = [dict(e[-1][1])['time'] for e in events_of(r.stdout)[1]] if r.returncode == 0 else r.stderr
check(times == ['1969-12-31T23:59:59.999999999Z', '1970-01-01T00:00:00.000000000Z'],
      f'times around the epoch: {times}')

# Time order: perf writes each CPU's ring in turn, marking with FINISHED_ROUND each time
# it has read them all; a sample is never older than the start of the round before its
# own. Printed in time order, in file mode and pipe mode (before: in file order).
rounds = [(10, 0), (30, 0), (50, 0), (20, 1), (40, 1), (60, 1), None,
          (70, 0), (90, 0), (55, 1), (80, 1), (100, 1), None,
          (95, 0), (110, 0), (105, 1)]
samples = [gen.FINISHED_ROUND if r is None else
           gen.sample(gen.FMT_A, gen.VECTOR_A, gen.CLOCK[1] + r[0], cpu=r[1]) for r in rounds]
want = sorted(r[0] for r in rounds if r)
for mode in ('file', 'pipe'):
    gen.write(f'rounds.{mode}.data', [gen.FMT_A], samples, mode, gen.CLOCK, extra=False)
    r = decode(f'rounds.{mode}.data')
    got = [int(dict(e[-1][1])['time'].split('.')[1][:-1]) - gen.CLOCK[0] % 10**9
           for e in events_of(r.stdout)[1]] if r.returncode == 0 else r.stderr
    check(got == want, f'rounds ({mode} mode): sample times (ns past the clock instant) {got}, want {want}')

# ------------------------------------------------------------------ corpus
corpus = gen.corpus_events(corpus_dat)
for mode in ('file', 'pipe'):
    subprocess.run([sys.executable, gen.__file__, 'corpus', corpus_dat, f'corpus.{mode}.data', mode],
                   check=True)
    r = decode(f'corpus.{mode}.data')
    check(r.returncode == 0, f'corpus ({mode} mode): exit {r.returncode}: {r.stderr[:300]}')
    ours = events_of(r.stdout)[1]
    ref = events_of(open(corpus_json, 'rb').read())[1]
    check(len(ours) == len(ref) == len(corpus), f'corpus ({mode}): {len(ours)} events, reference {len(ref)}')
    bad = 0
    for i, (a, b) in enumerate(zip(ours, ref)):
        a = [tuple(m) for m in a]
        # The sample's own keys come first: time (corpus sample i at 1000 + i ns on a
        # clock that read 5 s at the CLOCK instant), cpu i % 4, pid 1, tid 1 + i % 3.
        ns = gen.CLOCK[0] - gen.CLOCK[1] + 1000 + i
        want_time = '2024-03-28T00:45:07.%09dZ' % (ns % 10**9)
        own = a[-1][1][:4]
        if own != [('time', want_time), ('cpu', i % 4), ('pid', 1), ('tid', 1 + i % 3)]:
            bad += 1
            check(False, f'corpus ({mode}) event {i}: meta starts {own}')
            continue
        a[-1] = ('meta', a[-1][1][4:])
        if not same(a, [tuple(m) for m in b]):
            bad += 1
            check(False, f'corpus ({mode}) event {i} differs:\n  ours: {a}\n  ref:  {b}')
    check(bad == 0, f'corpus ({mode}): {bad} events differ')

# ------------------------------------------------------------------ cuts


def record_ends(data, start, end):
    """Offsets where each record of [start, end) ends, and which of them are samples."""
    ends, pos = [], start
    while pos < end:
        typ, _, size = struct.unpack_from('<IHH', data, pos)
        extra = 0
        if typ == gen.REC_TRACING_DATA:
            extra = struct.unpack_from('<I', data, pos + 8)[0]
        pos += size + extra
        ends.append((pos, typ == gen.REC_SAMPLE))
    return ends


# Each cut is a run of the command: about 1,250 in all. Under an emulator (qemu-user,
# the aarch64 build: about 0.2 s a run) about 350: every 4th byte of the header, every
# 97th elsewhere.
HEADER_STEP, STEP = 1, 11
if frtest.emulated(flightrec):
    HEADER_STEP, STEP = 4, 97
    print(f'note: {frtest.elf_cpu(flightrec)} flightrec under an emulator: cuts at every '
          f'{HEADER_STEP}th byte of the header and every {STEP}th elsewhere (else 1 and 11)')


def check_cuts(name, data, data_start, data_end, pipe):
    ends = record_ends(data, data_start, data_end)
    # Every byte of the header and around each record's end; every 11th elsewhere.
    near = {e + d for e, _ in ends for d in (-1, 0, 1)} | {data_start, data_end}
    for cut in range(len(data)):
        if cut not in near and (cut % STEP if cut > 128 else cut % HEADER_STEP):
            continue
        with open('cut.data', 'wb') as f:
            f.write(data[:cut])
        r = decode('cut.data')
        whole = sum(1 for e, s in ends if s and e <= cut)
        at_boundary = pipe and (cut == data_start or any(e == cut for e, _ in ends))
        if r.returncode == 0 and at_boundary:
            pass
        elif not check(r.returncode == 1 and b'byte ' in r.stderr,
                       f'{name} cut at {cut}: exit {r.returncode}, stderr {r.stderr[:200]}'):
            continue
        if r.stdout:
            try:
                got = len(events_of(r.stdout)[1])
            except ValueError as e:
                check(False, f'{name} cut at {cut}: output is not JSON ({e})')
                continue
            check(got == (whole if cut >= data_start else 0),
                  f'{name} cut at {cut}: {got} events printed, {whole} whole before the cut')


fdata = open('vectors.data', 'rb').read()
d_off, d_size = struct.unpack_from('<QQ', fdata, 40)
check_cuts('file mode', fdata, d_off, d_off + d_size, False)
check_cuts('pipe mode', data, 16, len(data), True)

# ------------------------------------------------------------------ bad input, usage
open('empty.data', 'wb').close()
with open('random.data', 'wb') as f:
    f.write(bytes(range(256)) * 4)
with open('big-endian.data', 'wb') as f:
    f.write(b'2ELIFREP' + fdata[8:])
for name, what in (('empty.data', b'byte 0'), ('random.data', b'byte 0: not a perf.data file'),
                   ('big-endian.data', b'big-endian')):
    r = decode(name)
    check(r.returncode == 1 and what in r.stderr, f'{name}: exit {r.returncode}, {r.stderr[:200]}')
r = decode('missing.data')
check(r.returncode == 1 and b'missing.data' in r.stderr, f'a missing file: exit {r.returncode}')
for args in ((), ('a', 'b'), ('--bogus', 'vectors.data'), ('-f', 'yaml', 'vectors.data'),
             ('-o',)):
    r = decode(*args)
    check(r.returncode == 2, f'decode-perf {" ".join(args)}: exit {r.returncode}, expected 2')
r = decode('--help')
check(r.returncode == 0 and b'usage: flightrec decode-perf' in r.stdout, '--help')
frtest.finish('decode-perf: vectors, corpus, cuts and bad input as expected')
