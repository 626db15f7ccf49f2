#!/usr/bin/env python3
"""perfdata_rereads.py DATA_DIR - perfdata.split_rereads sets apart exactly the samples
perf record writes twice through its ring-buffer read race (perfdata.py says how), and
nothing else: the kernel tests count every other repeated sample as an error.

- DATA_DIR/reread.data: what perf record -a wrote in the kernel tests' VM (perf 6.1,
  Linux 6.12), cut to five passes over the ring buffers (tests/data/perf/README.md): 10
  samples, the last one of the third pass written again as the first of the fourth.
- Files written by tests/perf_data_gen.py, each a sequence of samples and FINISHED_ROUND
  records (perf record's mark after each pass that wrote anything): copies of one or
  several samples at a CPU's passes' edges are set apart, with other CPUs' samples
  around them; a repeat within one pass, two passes apart, on another CPU, with another
  time, or not at the edges is kept.
"""
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import perf_data_gen as gen  # noqa: E402
import perfdata  # noqa: E402
from frtest import check, finish  # noqa: E402

FMT = gen.eventheader_format("FrKtest_L4K1", 445)
PASS = gen.FINISHED_ROUND


def alpha(seq, cpu=0, time=None):
    """A sample of seq on cpu (time: 1000 ns per seq unless given)."""
    return gen.sample(FMT, struct.pack("<I", seq), 1000 * seq if time is None else time, cpu=cpu)


def split(records, work):
    path = os.path.join(work, "t.data")
    gen.write(path, [FMT], records, extra=False)
    kept, copies = perfdata.split_rereads(list(perfdata.samples(path)))
    seq = lambda s: (s["cpu"], struct.unpack_from("<I", s["raw"], 8)[0])  # noqa: E731
    return [seq(s) for s in kept], [seq(s) for s in copies]


def case(what, records, want_copies, work):
    kept, copies = split(records, work)
    check(sorted(copies) == sorted(want_copies), f"{what}: set apart {copies}, expected {want_copies}")
    samples = len([r for r in records if r != PASS])
    check(len(kept) == samples - len(copies), f"{what}: kept {kept} of {samples} samples")


def main():
    data_dir = sys.argv[1]
    real = list(perfdata.samples(os.path.join(data_dir, "reread.data")))
    kept, copies = perfdata.split_rereads(real)
    check(len(real) == 10 and len(kept) == 9 and len(copies) == 1,
          f"reread.data: {len(real)} samples, {len(kept)} kept, {len(copies)} copies; expected 10, 9, 1")
    times = [s["time"] for s in kept]
    check(times == sorted(set(times)), f"reread.data: kept times not distinct and rising: {times}")
    if copies:
        c = copies[0]
        orig = [s for s in kept if s["record"] == c["record"]]
        check(len(orig) == 1 and orig[0]["read"] + 1 == c["read"],
              f"reread.data: the copy (time {c['time']}, read {c['read']}) is not the previous pass's")

    with tempfile.TemporaryDirectory() as work:
        for what, records, copies, _several in gen.reread_cases(alpha):
            case(what, records, copies, work)
    finish("ok: perf's re-read copies set apart (one real, 7 made cases), 8 other repeats kept")


if __name__ == "__main__":
    main()
