#!/usr/bin/env python3
"""reader_memory.py GEN FLIGHTREC WORKDIR

Reading streams: `flightrec info` and `flightrec dump --tid` (which prints nothing, and so
exits 1 with a warning, docs/CLI.md) take
the same peak memory on a 40x larger trace (64 K vs 2.6 M records), within 1 MiB."""
import os, subprocess, sys

from frtest import check, finish

gen, flightrec, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)


def peak_kib(args, want_rc=0):
    # GNU time reports the command's own peak RSS (a fork from Python would start with
    # Python's pages and blur the number).
    p = subprocess.run(["/usr/bin/time", "-f", "%M"] + args, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if p.returncode != want_rc:
        sys.exit("%s: exit %d, want %d: %s" % (" ".join(args), p.returncode, want_rc, p.stderr))
    return int(p.stderr.strip().splitlines()[-1])


sizes = {}
for n in (65536, 2621440):
    path = os.path.join(work, "trace_%d.xray" % n)
    subprocess.run([gen, path, str(n)], check=True)
    sizes[n] = (os.path.getsize(path), peak_kib([flightrec, "info", path]),
                peak_kib([flightrec, "dump", path, "--tid", "1"], want_rc=1))
    os.unlink(path)
for n, (size, info, dump) in sorted(sizes.items()):
    print("%d records, %d bytes: info peak %d KiB, dump peak %d KiB" % (n, size, info, dump))
(_, i0, d0), (_, i1, d1) = sizes[65536], sizes[2621440]
check(i1 - i0 <= 1024 and d1 - d0 <= 1024, "memory grows with the trace")
finish()
