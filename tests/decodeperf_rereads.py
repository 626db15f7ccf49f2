#!/usr/bin/env python3
"""decodeperf_rereads.py FLIGHTREC DATA_DIR WORKDIR - decode-perf prints once each sample
perf record wrote twice through its ring-buffer read race (the last sample of a CPU's
pass over its ring buffer written again, byte for byte, as the first of that CPU's next
pass: docs/KERNEL_TESTS.md "What perf does"), says on standard error in one note how many
copies it left out, and keeps every other repeat.

- DATA_DIR/reread.data: perf's own output (tests/data/perf/README.md), 10 samples of
  Alpha seq 8996 to 9004, seq 9001 twice: 9 events, each seq once, and the note; the
  same with --object.
- The made cases the kernel tests' reader is checked on (perf_data_gen.reread_cases), as
  a classic tracepoint with a seq field, in file mode and in pipe mode through standard
  input: the events printed are the samples less the copies, the note counts the copies
  and is absent when there are none. Cases where perf copied more than one sample at a
  pass's edge are not decode-perf's (it looks for one sample: docs/CLI.md).
- The bounds of what the reader remembers: a copy on CPU 8192, or on a CPU whose sample
  came after 16 MiB of others' last samples, is printed; CPU 0's is still left out.
"""
import json
import os
import struct
import subprocess
import sys

import frtest
from frtest import check, run
import perf_data_gen as gen

flightrec, data_dir, work = sys.argv[1], os.path.abspath(sys.argv[2]), sys.argv[3]
frtest.workdir(work, fresh=True)
os.chdir(work)

SEQ = gen.Format('flightrec_test', 'seq', 78, [('u32 seq', 8, 4, 0)], '"seq=%u", REC->seq')


def note(name, n):
    """The note decode-perf prints for n copies left out of file name."""
    what = 'a sample' if n == 1 else f'{n} samples'
    return (f"flightrec decode-perf: note: {name}: {n} cop{'y' if n == 1 else 'ies'} left out: "
            f"perf record wrote {what} twice, the last sample of a CPU's pass over its ring buffer "
            f"again as the first of that CPU's next pass, byte for byte (its ring-buffer read race)")


def decode(path, *args, pipe=False):
    """decode-perf's exit code, events [(cpu, seq, time)] and stderr lines; pipe: the file
    through a pipe on standard input."""
    if not pipe:
        r = run(flightrec, 'decode-perf', *args, path)
    else:
        r = subprocess.run(['sh', '-c', f'cat "$1" | "$0" decode-perf -', flightrec, path],
                           capture_output=True, text=True)
    events = []
    if r.returncode == 0:
        doc = json.loads(r.stdout if r.stdout.lstrip().startswith('{') else '{' + r.stdout + '}')
        (member,) = doc.values()
        events = [(e['meta']['cpu'], e['seq'], e['meta']['time']) for e in member]
    return r.returncode, events, r.stderr.splitlines()


# ------------------------------------------------------------------ perf's own output
real = os.path.join(data_dir, 'reread.data')
for args in ((), ('--object',)):
    rc, events, err = decode(real, *args)
    seqs = [seq for _cpu, seq, _time in events]
    check(rc == 0 and seqs == list(range(8996, 9005)),
          f'reread.data {args}: exit {rc}, seqs {seqs}, expected 8996..9004 once each: {err}')
    check(err == [note(real, 1)], f'reread.data {args}: stderr {err}')

# ------------------------------------------------------------------ made cases


# In gen.sample's record: the header, id, ip, pid and tid, time, then cpu; the raw data
# after the cpu, reserved, period and the raw size, its 8 common bytes, then the seq.
CPU_AT, SEQ_AT = 8 + 8 + 8 + 8 + 8, 8 + 48 + 4 + 8


def alpha(seq, cpu=0, time=None):
    return gen.sample(SEQ, struct.pack('<I', seq), 1000 * seq if time is None else time, cpu=cpu)


cases = 0
for what, records, copies, several in gen.reread_cases(alpha):
    if several:
        continue
    cases += 1
    every = []              # (cpu, seq) of every sample the file holds, in file order
    for r in records:
        if r != gen.FINISHED_ROUND:
            every.append((struct.unpack_from('<I', r, CPU_AT)[0], struct.unpack_from('<I', r, SEQ_AT)[0]))
    want = list(every)
    for c in copies:
        want.remove(c)
    for mode in ('file', 'pipe'):
        path = f'case{cases}.{mode}.data'
        gen.write(path, [SEQ], records, mode, extra=False)
        rc, events, err = decode(path, pipe=mode == 'pipe')
        got = sorted((cpu, seq) for cpu, seq, _time in events)
        check(rc == 0 and got == sorted(want),
              f'{what} ({mode} mode): exit {rc}, printed {got}, expected {sorted(want)}: {err}')
        name = '-' if mode == 'pipe' else path
        check(err == ([note(name, len(copies))] if copies else []),
              f'{what} ({mode} mode): stderr {err}, expected the note of {len(copies)} copies')

# ------------------------------------------------------------------ bounds
# What the reader remembers is bounded (perf_reread.h: CPUs below 8192, 16 MiB of last
# samples): a copy past either bound is printed; one within them is still left out.
big = b'x' * 65000          # a sample of 65,064 bytes (a record's size is a u16)
cpus = 300                  # 256 such samples fill 16 MiB
records = [gen.sample(SEQ, struct.pack('<I', c) + big, 1000 * c, cpu=c) for c in range(cpus)]
records += [gen.FINISHED_ROUND, records[0], records[cpus - 1], alpha(cpus + 9, cpu=8192), gen.FINISHED_ROUND,
            alpha(cpus + 9, cpu=8192), gen.FINISHED_ROUND]
gen.write('bounds.data', [SEQ], records, 'file', extra=False)
rc, events, err = decode('bounds.data')
got = sorted((cpu, seq) for cpu, seq, _time in events)
want = sorted([(c, c) for c in range(cpus)] + [(cpus - 1, cpus - 1), (8192, cpus + 9), (8192, cpus + 9)])
check(rc == 0 and got == want, f'bounds: exit {rc}, {len(got)} events, expected {len(want)} '
      f'(CPU 0\'s copy left out, CPU {cpus - 1}\'s and CPU 8192\'s printed): {err}')
check(err == [note('bounds.data', 1)], f'bounds: stderr {err}')

frtest.finish(f'decode-perf: perf\'s copy in reread.data printed once with its note; '
              f'{cases} made cases in file and pipe mode as the kernel tests\' reader sets them apart')
