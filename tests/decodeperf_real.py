#!/usr/bin/env python3
"""decode-perf on what this machine's `perf record` writes (sched:sched_switch and
sched:sched_process_exec, system-wide, in file mode, with -k monotonic, and in pipe
mode), checked against `perf script` reading the same file: every sample, in order,
with its cpu, tid, time (to the microsecond perf script prints) and fields. Skipped when
perf cannot record tracepoints here (no perf, not allowed, no tracefs).

usage: decodeperf_real.py FLIGHTREC WORKDIR"""
import os
import re
import shutil
import subprocess
import sys

import frtest
from frtest import check, run
from events_corpus_compare import parse_member_list

flightrec, work = sys.argv[1:3]
frtest.workdir(work, fresh=True)
os.chdir(work)
perf = shutil.which('perf')
if not perf:
    frtest.skip('no perf here')
EVENTS = 'sched:sched_switch,sched:sched_process_exec'
LOAD = 'for i in 1 2 3 4 5; do /bin/true; done; sleep 0.05'


def record(out, *extra):
    p = subprocess.run([perf, 'record', '-q', '-a', '-e', EVENTS, *extra, '-o', out, '--',
                        'sh', '-c', LOAD], capture_output=True, text=True, timeout=120)
    return p


p = record('file.data')
if p.returncode != 0 or not os.path.exists('file.data'):
    frtest.skip('perf record of tracepoints fails here: ' + p.stderr.strip()[:200])
frtest.run_ok(perf, 'record', '-q', '-a', '-e', EVENTS, '-k', 'monotonic', '-o', 'mono.data', '--',
              'sh', '-c', LOAD)
with open('pipe.data', 'wb') as f:
    q = subprocess.run([perf, 'record', '-q', '-a', '-e', EVENTS, '-o', '-', '--', 'sh', '-c', LOAD],
                       stdout=f, stderr=subprocess.PIPE, timeout=120)
check(q.returncode == 0, 'perf record -o -: ' + q.stderr.decode(errors='replace')[:200])

LINE = re.compile(r'^\s*(.*?)\s+(\d+)\s+\[(\d+)\]\s+(\d+)\.(\d+):\s+(sched:\w+):\s*(.*)$')


def perf_script(path):
    out = subprocess.run([perf, 'script', '-i', path, '-F', 'comm,tid,cpu,time,event,trace',
                          '--ns'], capture_output=True, text=True, errors='replace').stdout
    events = []
    for line in out.splitlines():
        m = LINE.match(line)
        if m:
            events.append(m.groups())
    return events


def field_text(name, value):
    if name == 'prev_state':
        return None          # perf script prints it as letters (R, S, D+...)
    return str(value)


for path in ('file.data', 'mono.data', 'pipe.data'):
    r = run(flightrec, 'decode-perf', path, text=False)
    if not check(r.returncode == 0, f'{path}: exit {r.returncode}: {r.stderr[:300]}'):
        continue
    (_, ours), = parse_member_list(r.stdout.decode('utf-8', 'surrogateescape'))
    # A task perf cannot name (outside its pid namespace: tid -1) is a sample perf script
    # skips ("problem processing ... skipping it"); decode-perf prints it.
    ours = [e for e in ours if dict(dict(e)['meta'])['tid'] != -1]
    theirs = perf_script(path)
    # perf script sorts by time; decode-perf prints in the file's order (per CPU buffer,
    # as perf wrote them): both sorted by time, then CPU, then thread.
    ours.sort(key=lambda e: (dict(dict(e)['meta'])['time'], dict(dict(e)['meta'])['cpu'],
                             dict(dict(e)['meta'])['tid']))
    theirs.sort(key=lambda b: (int(b[3]), int(b[4].ljust(9, '0')), int(b[2]), int(b[1])))
    check(len(ours) == len(theirs) and len(ours) > 0,
          f'{path}: {len(ours)} events, perf script {len(theirs)}')
    for i, (a, b) in enumerate(zip(ours, theirs)):
        a = dict(a)
        meta = dict(a.pop('meta'))
        comm, tid, cpu, sec, frac, name, trace = b
        check(a.pop('n') == name, f'{path} event {i}: name, perf script {name}')
        check(meta['cpu'] == int(cpu) and meta['tid'] == int(tid),
              f'{path} event {i}: cpu/tid {meta}, perf script {cpu}/{tid}')
        t = meta['time']
        if isinstance(t, str):       # wall clock (-k monotonic): perf script shows the clock
            check(path == 'mono.data', f'{path} event {i}: a wall time without clock data')
        else:
            check('%.9f' % t == f'{sec}.{frac}'.ljust(len(sec) + 10, '0')[:len(sec) + 10],
                  f'{path} event {i}: time {t}, perf script {sec}.{frac}')
        for k, v in a.items():
            text = field_text(k, v)
            if text is not None:
                check(f'{k}={text}' in trace, f'{path} event {i}: {k}={text} not in "{trace}"')
frtest.finish('decode-perf agrees with perf script on this machine\'s recordings')
