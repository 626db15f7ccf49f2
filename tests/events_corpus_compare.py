#!/usr/bin/env python3
"""Checks `flightrec decode-dat` against the reference decoder's rendering of the
LinuxTracepoints corpus: every event must have the same members (names, values, meta)
in the same order. Compares parsed JSON, not text.

usage: events_corpus_compare.py FLIGHTREC DAT REFERENCE_JSON

Reading notes (see shared/vectors/eventheader/vectors.md): the reference file starts
with a BOM and holds one object member, not an object, so it is wrapped in braces; it
writes char32 values beyond U+10FFFF as raw (invalid) UTF-8, so both sides are read as
bytes and decoded with surrogateescape. Objects are kept as lists of pairs because an
event may repeat a field name."""
import json
import math
import subprocess
import sys


def parse_member_list(text):
    if text.startswith('\ufeff'):
        text = text[1:]
    text = text.strip()
    if not text.startswith('{'):
        text = '{' + text + '}'
    return json.loads(text, object_pairs_hook=lambda pairs: pairs)


def same(a, b):
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, (int, float)) and isinstance(b, (int, float)) \
                and not isinstance(a, bool) and not isinstance(b, bool):
            return a == b or (math.isnan(a) and math.isnan(b))
        return False
    if type(a) != type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if isinstance(a, tuple):
        return a[0] == b[0] and same(a[1], b[1])
    return a == b


def main():
    flightrec, dat, ref_path = sys.argv[1:4]
    ref = parse_member_list(open(ref_path, 'rb').read().decode('utf-8', 'surrogateescape'))
    out = subprocess.run([flightrec, 'decode-dat', dat], stdout=subprocess.PIPE, check=True).stdout
    ours = parse_member_list(out.decode('utf-8', 'surrogateescape'))
    (ref_name, ref_events), = ref
    (our_name, our_events), = ours
    failures = 0
    if our_name != ref_name:
        print(f'member name: ours {our_name!r}, reference {ref_name!r}')
        failures += 1
    if len(our_events) != len(ref_events):
        print(f'event count: ours {len(our_events)}, reference {len(ref_events)}')
        failures += 1
    for i, (a, b) in enumerate(zip(our_events, ref_events)):
        if not same([tuple(p) for p in a], [tuple(p) for p in b]):
            failures += 1
            if failures <= 20:
                print(f'event {i} differs:\n  ours: {a}\n  ref:  {b}')
    print(f'{len(ref_events)} reference events, {failures} differences')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
