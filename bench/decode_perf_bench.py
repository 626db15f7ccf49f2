#!/usr/bin/env python3
"""decode_perf_bench.py FLIGHTREC WORKDIR N

`flightrec decode-perf` on a large perf.data capture (N samples, file mode, with clock
data, written by tests/perf_data_gen.py: EventHeader user_events samples of the
project's vectors A-C, an activity-id event with two UUIDs among them, and a classic
tracepoint with a field of every kind, one of each in turn), its JSON written to
/dev/null. Prints events per CPU second (user + system, best of 3) against the target
of 1 M, the ratio and MET or MISSED."""
import os
import subprocess
import sys
import time

flightrec, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
here = os.path.dirname(os.path.abspath(__file__))
gen = os.path.join(here, '..', 'tests', 'perf_data_gen.py')
os.makedirs(work, exist_ok=True)
data = os.path.join(work, f'capture-{n}.data')
if not os.path.exists(data):
    subprocess.run([sys.executable, gen, 'bench', data + '.tmp', str(n)], check=True)
    os.rename(data + '.tmp', data)
events = n // 4 * 4
TARGET = 1e6


def one_run():
    start = time.monotonic()
    with open(os.devnull, 'wb') as null:
        p = subprocess.Popen([flightrec, 'decode-perf', data], stdout=null)
        _, status, ru = os.wait4(p.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f'decode-perf failed: status {status}')
    return ru.ru_utime + ru.ru_stime, time.monotonic() - start


runs = [one_run() for _ in range(3)]
cpu = min(r[0] for r in runs)
wall = min(r[1] for r in runs)
rate = events / cpu
print(f'decode-perf: {events} events ({os.path.getsize(data) / 1e6:.0f} MB) in {cpu:.2f} s CPU '
      f'({wall:.2f} s wall), best of 3')
print(f'decode-perf: {rate / 1e6:.2f} M events per CPU second (target >= {TARGET / 1e6:.0f} M): '
      f'ratio {rate / TARGET:.2f}x  {"MET" if rate >= TARGET else "MISSED"}')
