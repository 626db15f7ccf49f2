#!/usr/bin/env python3
"""decode-perf on what this machine's `perf record` writes (sched:sched_switch and
sched:sched_process_exec, system-wide, in file mode, with -k monotonic, and in pipe
mode), checked against `perf script` reading the same file: every sample, in order,
with its cpu, tid, time (to the microsecond perf script prints) and fields. Skipped when
perf cannot record tracepoints here (no perf, not allowed, no tracefs).

With PROGRAM (tests/progs/convert_fork_prog.c: before_fork x5, 3 children forked and
waited for, after_wait x5), the clocks of the two tools are checked against each other:
`perf record -k monotonic -e sched:sched_process_fork,sched:sched_process_exit --
flightrec record -o fork.fr -- PROGRAM`, then `flightrec convert fork.fr fork.fr.*
perf.data --format chrome`: on that one timeline each fork lies after the parent's last
before_fork call and before its first after_wait call, and each child's exit after the
child's last call and before the parent's first after_wait.

usage: decodeperf_real.py FLIGHTREC WORKDIR [PROGRAM]"""
import os
import re
import shutil
import subprocess
import sys

import frtest
from frtest import check, run
from events_corpus_compare import parse_member_list

flightrec, work = sys.argv[1:3]
program = sys.argv[3] if len(sys.argv) > 3 else None
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
if program:
    import glob
    import json
    p = subprocess.run([perf, 'record', '-q', '-k', 'monotonic', '-e',
                        'sched:sched_process_fork,sched:sched_process_exit', '-o', 'fork.data', '--',
                        flightrec, 'record', '-o', 'fork.fr', '--', program],
                       capture_output=True, text=True, timeout=120)
    check(p.returncode == 0, f'perf record of flightrec record: {p.returncode} {p.stderr[-300:]}')
    traces = ['fork.fr'] + sorted(glob.glob('fork.fr.*'))
    r = run(flightrec, 'convert', *traces, 'fork.data', '--format', 'chrome', '-o', 'fork.json')
    if check(r.returncode == 0 and len(traces) == 4, f'convert of {traces} + fork.data: {r.stderr}'):
        ev = json.load(open('fork.json'))['traceEvents']
        parent = json.loads(run(flightrec, 'info', '--json', 'fork.fr').stdout)['process']['pid']
        calls = [e for e in ev if e.get('ph') == 'X']
        last_before = max(e['ts'] + e['dur'] for e in calls if e['name'] == 'before_fork')
        first_after = min(e['ts'] for e in calls if e['name'] == 'after_wait')
        # The forks of the 3 children that wrote traces (under ASan, LeakSanitizer's
        # tracer is one more clone of the process at its exit).
        children = {int(t.rsplit('.', 1)[1]) for t in traces[1:]}
        forks = [e for e in ev if e.get('name') == 'sched:sched_process_fork' and
                 e['args'].get('parent_pid') == parent and e['args'].get('child_pid') in children]
        check(len(forks) == 3, f'the 3 children\'s forks by the traced process {parent} in the '
              f'perf.data: {forks}')
        for f in forks:
            check(last_before <= f['ts'] <= first_after,
                  f'fork at {f["ts"]} us between the last before_fork ({last_before}) and the first '
                  f'after_wait ({first_after})')
            child = f['args'].get('child_pid')
            work = [e['ts'] + e['dur'] for e in calls if e['pid'] == child and e['name'] == 'child_work']
            exits = [e['ts'] for e in ev if e.get('name') == 'sched:sched_process_exit' and
                     e['args'].get('pid') == child]
            check(work and len(exits) == 1 and max(work) <= exits[0] <= first_after,
                  f'child {child}: last child_work ends {max(work) if work else None}, exits '
                  f'{exits}, parent\'s first after_wait {first_after}')
frtest.finish('decode-perf agrees with perf script on this machine\'s recordings')
