#!/usr/bin/env python3
"""Structured events round-trip through the flight recorder file.
usage: events_recorder_check.py RECORD_PROG TRACE_JSON_PROG FLIGHTREC LLVM_XRAY WORKDIR

Records traces with tests/progs/events_record.c under several events= selections, reads
them back with the reader library (events_trace_json), and checks every event's fields,
meta, activity ids (spans nest, the worker's span is a child of Outer) and thread; then
checks that llvm-xray still accepts the file and `flightrec dump` lists the events."""
import json
import os
import subprocess
import sys

from frtest import check, finish

record, trace_json, flightrec, xray, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
def run(spec, name):
    path = os.path.join(work, name)
    if os.path.exists(path):
        os.remove(path)
    args = [record, path] + ([spec] if spec is not None else [])
    subprocess.run(args, check=True)
    out = subprocess.run([trace_json, path], check=True, stdout=subprocess.PIPE, text=True).stdout
    events = []
    for line in out.splitlines():
        tid, text = line.split('\t', 1)
        events.append((int(tid), json.loads(text, object_pairs_hook=lambda p: p)))
    return path, events


def names(events):
    """Event names, the first thread's in order, then the other threads' (the file holds
    one block per thread, so only the order within a thread is defined)."""
    if not events:
        return []
    main_tid = events[0][0]
    return [dict(e)['n'] for t, e in events if t == main_tid] + \
           [dict(e)['n'] for t, e in events if t != main_tid]


# Default (no events=): everything up to level 5; the level-6 event is left out.
path, ev = run(None, 'all.fr')
check(names(ev) == ['EventsApp:Hello', 'EventsApp:Warn', 'EventsApp:Outer', 'EventsApp:Inner',
                    'EventsApp:Step', 'EventsApp:Inner', 'EventsApp:Outer', 'EventsApp:Job',
                    'EventsNet:Packet', 'EventsApp:Job'], f'default selection: {names(ev)}')
by = {}
for tid, e in ev:
    by.setdefault(dict(e)['n'], []).append((tid, dict(e), dict(dict(e)['meta'])))
hello = by['EventsApp:Hello'][0][1]
check(hello['count'] == 42 and hello['msg'] == 'world', f'Hello fields: {hello}')
check(by['EventsApp:Warn'][0][2] == {'level': 3, 'keyword': '0x2'}, 'Warn meta')
check(by['EventsApp:Warn'][0][1]['code'] == -7, 'Warn field')
(o_tid, o_start, o_meta), (_, _, o_stop) = by['EventsApp:Outer']
(_, _, i_meta), (_, _, i_stop) = by['EventsApp:Inner']
step_tid, step, step_meta = by['EventsApp:Step'][0]
check(o_meta['opcode'] == 1 and o_stop['opcode'] == 2, 'Outer opcodes')
check('relatedActivity' not in o_meta, 'Outer has no parent')
check(o_start['what'] == 'request', 'Outer field')
check(i_meta['relatedActivity'] == o_meta['activity'], 'Inner is a child of Outer')
check(step_meta['activity'] == i_meta['activity'], 'Step belongs to Inner')
check(step['i'] == 1 and step['ratio'] == 0.25, 'Step fields')
check(i_stop['activity'] == i_meta['activity'] and o_stop['activity'] == o_meta['activity'],
      'stops carry their span ids')
(j_tid, _, j_meta), (_, _, j_stop) = by['EventsApp:Job']
p_tid, packet, p_meta = by['EventsNet:Packet'][0]
check(j_tid != o_tid and p_tid == j_tid, 'worker events on the worker thread')
check(j_meta['relatedActivity'] == o_meta['activity'], 'Job is a child of Outer (explicit parent)')
check(p_meta['activity'] == j_meta['activity'], 'Packet adopted the Job span')
check(packet['port'] == 80 and packet['bytes'] == 1500, 'Packet fields')
check(p_meta['keyword'] == '0x1', 'Packet keyword')
check(len({m['activity'] for m in (o_meta, i_meta, j_meta)}) == 3, 'distinct activity ids')

# The file stays valid for llvm-xray, and flightrec dump lists the events.
r = subprocess.run([xray, 'fdr-dump', '-verify', path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
check(r.returncode == 0, f'llvm-xray fdr-dump -verify: {r.stderr[:300]}')
d = subprocess.run([flightrec, 'dump', path], stdout=subprocess.PIPE, text=True)
check(d.returncode == 0, 'flightrec dump exit code')
check(d.stdout.count('tracepoint="EventsApp_L4K0"') == 7, 'dump lists the L4K0 events')
check('tracepoint="EventsNet_L4K1Gdemo"' in d.stdout, 'dump names the grouped tracepoint')

# Selections: one provider at level 3; keywords; '*' levels; none.
_, ev = run('EventsApp:3', 'level3.fr')
check(names(ev) == ['EventsApp:Warn'], f'EventsApp:3 -> {names(ev)}')
_, ev = run('EventsNet:5:0x1;EventsApp:5:0x4', 'kw.fr')
check(names(ev) == ['EventsApp:Hello', 'EventsApp:Outer', 'EventsApp:Inner', 'EventsApp:Step',
                    'EventsApp:Inner', 'EventsApp:Outer', 'EventsApp:Job', 'EventsNet:Packet',
                    'EventsApp:Job'], f'keyword selection -> {names(ev)}')
_, ev = run('*:*', 'star.fr')
check('EventsApp:Verbose' in names(ev) and len(ev) == 11, f'*:* -> {names(ev)}')
_, ev = run('none', 'none.fr')
check(ev == [], f'none -> {names(ev)}')

finish()
