#!/usr/bin/env python3
"""decodeperf_convert.py - a trace and a perf.data of the same program on one timeline
(`flightrec convert TRACE PERF.DATA --format chrome|perfetto`, issue 22 item 3).

calls.fr (tests/convert_traces.c: process 4242, threads 11 and 12, a clock event giving
the CLOCK_MONOTONIC reading at its origin) and a perf.data as `perf record -k monotonic`
writes it (perf_data_gen.py: times are CLOCK_MONOTONIC readings) holding user_events
samples (EventHeader vectors A to C) and a classic tracepoint sample on thread 11, each
placed at a known point inside the trace's call of `parse` on that thread, and one
sample on a thread the trace does not have. Checked in both formats: each sample once,
at exactly the origin's reading + its offset (Chrome: microseconds, 3 decimals;
Perfetto: ns), on its pid and tid, with its fields, inside the call it was placed in;
the trace's own structured events still there. Refused: a perf.data recorded on perf's
own clock (exit 1, saying to use -k monotonic), a perf.data with --format folded (exit
2), a perf.data cut short (exit 1, the byte offset).
usage: decodeperf_convert.py FLIGHTREC CONVERT_TRACES WORKDIR"""
import json
import os
import sys

import frtest
from frtest import check, run
import perf_data_gen as gen
from perfetto_decode import Decoded

flightrec, convert_traces, work = sys.argv[1:4]
frtest.workdir(work, fresh=True)
spec = frtest.known_traces(convert_traces, work)
trace = os.path.join(work, 'calls.fr')
info = json.loads(frtest.run_ok(flightrec, 'info', '--json', trace).stdout)
mono = info['clock']['monotonic_ns']
check(mono > 0, f'calls.fr has a CLOCK_MONOTONIC anchor: {info["clock"]}')

# The first call of parse (function 2) on thread 11, in ns since the trace's origin.
recs = [r for r in spec['records'] if r['tid'] == 11 and r['id'] == 2]
enter_ns = frtest.known_ns(spec, recs[0]['tsc'])
exit_ns = frtest.known_ns(spec, recs[1]['tsc'])
check(exit_ns - enter_ns >= 5, f'parse lasts {exit_ns - enter_ns} ns')
at = [enter_ns + (exit_ns - enter_ns) * k // 5 for k in (1, 2, 3, 4)]
samples = [
    gen.sample(gen.FMT_A, gen.VECTOR_A, mono + at[0], cpu=0, pid=4242, tid=11),
    gen.sample(gen.FMT_B, gen.VECTOR_B, mono + at[1], cpu=0, pid=4242, tid=11),
    gen.sample(gen.FMT_C, gen.VECTOR_C, mono + at[2], cpu=1, pid=4242, tid=11),
    gen.sample(gen.EVERY_KIND, gen.every_kind_payload('prog', -5), mono + at[3], cpu=1, pid=4242, tid=11),
    gen.sample(gen.FMT_A, gen.VECTOR_A, mono + exit_ns + 1000, cpu=1, pid=4242, tid=13),
]
formats = [gen.FMT_A, gen.FMT_B, gen.FMT_C, gen.EVERY_KIND]
perf_mono = os.path.join(work, 'mono.data')
gen.write(perf_mono, formats, samples, 'file', (1711586712640913120, mono, 1))
perf_pipe = os.path.join(work, 'mono.pipe.data')
gen.write(perf_pipe, formats, samples, 'pipe', (1711586712640913120, mono, 1))
perf_own = os.path.join(work, 'ownclock.data')
gen.write(perf_own, formats, samples, 'file', None)

# ------------------------------------------------------------------ chrome
for perf in (perf_mono, perf_pipe):
    out = os.path.join(work, 'both.json')
    r = run(flightrec, 'convert', trace, perf, '--format', 'chrome', '-o', out)
    if not check(r.returncode == 0, f'chrome of calls.fr + {perf}: exit {r.returncode}: {r.stderr}'):
        continue
    doc = json.load(open(out))
    ev = doc['traceEvents']
    check(os.path.basename(perf) in ' '.join(doc['otherData'].get('traces', [])) and
          doc['otherData'].get('clock') == 'CLOCK_MONOTONIC', f'otherData: {doc["otherData"]}')
    parse = [e for e in ev if e.get('ph') == 'X' and e.get('name') == 'parse' and e['tid'] == 11]
    check(parse and abs(parse[0]['ts'] - (mono + enter_ns) / 1000) < 0.0015,
          f'the call of parse at the trace origin + its offset: {parse[:1]}')
    start, end = parse[0]['ts'], parse[0]['ts'] + parse[0]['dur']

    def one(pred, what):
        found = [e for e in ev if pred(e)]
        check(len(found) == 1, f'{perf}: {what}: {len(found)} events: {found[:3]}')
        return found[0] if found else {}

    def near(e, ns):
        return abs(e.get('ts', -1) - (mono + ns) / 1000) < 0.0005

    a = one(lambda e: e.get('name') == 'Hello' and e.get('cat') == 'MyProviderName' and near(e, at[0]),
            'vector A at its time')
    check(a.get('pid') == 4242 and a.get('tid') == 11 and a.get('args', {}).get('count') == 42 and
          a.get('args', {}).get('msg') == 'world' and start <= a.get('ts', -1) <= end,
          f'vector A: {a}')
    b = one(lambda e: e.get('name') == 'Hello' and near(e, at[1]), 'vector B at its time')
    check(b.get('args', {}).get('arr') == [1, 2, 3] and b.get('args', {}).get('i32') == -5 and
          b.get('args', {}).get('keyword') == '0x1', f'vector B: {b}')
    c = one(lambda e: e.get('name') == 'Work' and e.get('ph') == 'b' and near(e, at[2]),
            'vector C (activity start) at its time')
    check(c.get('id') == '0x11111111222233334444555555555555' and
          c.get('args', {}).get('u16;tag=0x42') == 258, f'vector C: {c}')
    k = one(lambda e: e.get('name') == 'flightrec_test:every_kind' and near(e, at[3]),
            'the classic tracepoint at its time')
    check(k.get('cat') == 'flightrec_test' and k.get('args', {}).get('comm') == 'prog' and
          k.get('args', {}).get('path') == '/tmp/x y' and k.get('args', {}).get('vals') == [7, 4000000000],
          f'classic tracepoint: {k}')
    o = one(lambda e: e.get('tid') == 13, 'the sample of a thread the trace lacks')
    check(near(o, exit_ns + 1000) and o.get('pid') == 4242, f'thread 13: {o}')
    # The trace's own structured events are still there (vector A at t+6200 on thread 11).
    own = [e for e in ev if e.get('name') == 'Hello' and e.get('tid') == 11 and not start <= e['ts'] <= end]
    check(len(own) == 1, f'the trace\'s own vector A event: {own}')

# ------------------------------------------------------------------ perfetto
out = os.path.join(work, 'both.pftrace')
r = run(flightrec, 'convert', trace, perf_mono, '--format', 'perfetto', '-o', out)
if check(r.returncode == 0, f'perfetto: exit {r.returncode}: {r.stderr}'):
    dec = Decoded(out)
    check(not [e for e in dec.errors if 'never ended' not in e], f'decoder: {dec.errors[:5]}')
    parse = [s for t, ss in dec.slices.items() for s in ss
             if s[0] == 'parse' and dec.tracks.get(t, {}).get('tid') == 11]
    check(parse and parse[0][1] == mono + enter_ns, f'parse slice: {parse[:1]}')
    by_ts = {}
    for track, name, ts, cats, args in dec.instants:
        by_ts.setdefault(ts, []).append((track, name, cats, args))
    for when, name, cat in ((at[0], 'Hello', 'MyProviderName'), (at[1], 'Hello', 'MyProviderName'),
                            (at[3], 'flightrec_test:every_kind', 'flightrec_test')):
        got = [x for x in by_ts.get(mono + when, []) if x[1] == name]
        if not check(len(got) == 1, f'perfetto: {name} at {mono + when}: {by_ts.get(mono + when)}'):
            continue
        track = dec.tracks.get(got[0][0], {})
        parent = dec.tracks.get(track.get('parent'), {})
        check(got[0][2] == [cat] and (track.get('tid') == 11 or parent.get('tid') == 11),
              f'perfetto: {name} on thread 11\'s track, category {cat}: {got[0]}, {track}, {parent}')
    # Vector C starts an activity (no stop in the perf.data): a track of its own named
    # after the event, apart from the trace's track for the same activity id.
    work_tracks = [u for u, d in dec.tracks.items() if d.get('name') == 'Work']
    check(len(work_tracks) == 2, f'perfetto: two activity tracks named Work: {work_tracks}')

# --tid keeps the perf.data's samples of those threads only, as it keeps the trace's
# records (before: every sample, whatever --tid said).
for tids, want in (('11', {11}), ('13', {13}), ('11,13', {11, 13})):
    out = os.path.join(work, 'tid.json')
    r = run(flightrec, 'convert', trace, perf_mono, '--format', 'chrome', '--tid', tids, '-o', out)
    if not check(r.returncode == 0, f'--tid {tids}: exit {r.returncode}: {r.stderr}'):
        continue
    ev = json.load(open(out))['traceEvents']
    perf_tids = {e.get('tid') for e in ev if e.get('name') in ('Hello', 'Work', 'flightrec_test:every_kind')
                 and e.get('ph') in ('i', 'b', 'e', 'n')}
    calls = {e.get('tid') for e in ev if e.get('ph') == 'X'}
    check(perf_tids <= want and calls <= want and (13 not in want or 13 in perf_tids),
          f'--tid {tids}: events of threads {perf_tids}, calls of {calls}')
r = run(flightrec, 'convert', trace, perf_mono, '--format', 'chrome', '--tid', '99', '-o', os.path.join(work, 'tid.json'))
check(r.returncode != 0 and '99' in r.stderr, f'--tid of a thread in neither file: exit {r.returncode}: {r.stderr}')

# A sample perf record wrote twice (its ring-buffer read race: the last of a pass again
# as the first of the CPU's next pass) is placed once, in both formats, with a note.
perf_copy = os.path.join(work, 'copy.data')
gen.write(perf_copy, formats, [samples[0], gen.FINISHED_ROUND] + samples + [gen.FINISHED_ROUND],
          'file', (1711586712640913120, mono, 1), extra=False)
copy_note = (f"flightrec convert: note: {perf_copy}: 1 copy left out: perf record wrote a sample "
             f"twice, the last sample of a CPU's pass over its ring buffer again as the first of "
             f"that CPU's next pass, byte for byte (its ring-buffer read race)")
for fmt in ('chrome', 'perfetto'):
    out = os.path.join(work, f'copy.{fmt}')
    r = run(flightrec, 'convert', trace, perf_copy, '--format', fmt, '-o', out)
    if not check(r.returncode == 0 and copy_note in r.stderr.splitlines(),
                 f'{fmt} of a perf.data with a copy: exit {r.returncode}, stderr {r.stderr}'):
        continue
    if fmt == 'chrome':
        n = len([e for e in json.load(open(out))['traceEvents'] if e.get('name') == 'Hello' and
                 abs(e.get('ts', -1) - (mono + at[0]) / 1000) < 0.0005])
    else:
        n = len([i for i in Decoded(out).instants if i[1] == 'Hello' and i[2] == mono + at[0]])
    check(n == 1, f'{fmt}: the sample perf wrote twice placed {n} times')

# ------------------------------------------------------------------ refusals
r = run(flightrec, 'convert', trace, perf_own, '--format', 'chrome', '-o', os.path.join(work, 'x.json'))
check(r.returncode == 1 and '-k monotonic' in r.stderr, f'own clock: exit {r.returncode}: {r.stderr}')
check(not os.path.exists(os.path.join(work, 'x.json')), 'own clock: nothing written')
r = run(flightrec, 'convert', trace, perf_mono, '--format', 'folded')
check(r.returncode == 2 and 'perf.data' in r.stderr, f'folded: exit {r.returncode}: {r.stderr}')
data = open(perf_pipe, 'rb').read()
cut = os.path.join(work, 'cut.data')
with open(cut, 'wb') as f:
    f.write(data[:len(data) - 20])
r = run(flightrec, 'convert', trace, cut, '--format', 'chrome', '-o', os.path.join(work, 'cut.json'))
check(r.returncode == 1 and 'byte ' in r.stderr, f'cut perf.data: exit {r.returncode}: {r.stderr}')
frtest.finish('a trace and a perf.data on one CLOCK_MONOTONIC timeline, chrome and perfetto')
