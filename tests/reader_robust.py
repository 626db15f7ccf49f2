#!/usr/bin/env python3
"""reader_robust.py FLIGHTREC TRACE WORKDIR

Bad input never crashes or hangs the CLI:
 - TRACE cut at every offset: `flightrec dump` (and `info` at every 16th) read it up to the
   cut: exit 0 with a warning naming the file and an offset, except where the cut falls on
   a block boundary (then the shorter file is whole: no warning); a cut inside the header
   exits 1 with a message naming the file and an offset;
 - TRACE with a bit flipped in every 7th byte, and random files (some with a
   valid header): exit 0 or 1, never a signal, a sanitizer report or a timeout.
Sanitizer exit codes are moved away from 1 so that a report cannot pass for bad input.
Under an emulator (the aarch64 build under qemu-user: about 0.2 s a run) the cuts are at
every 7th offset, every offset of the header and around each block boundary, and the
flips in every 29th byte, saying so."""
import os, random, subprocess, sys

import frtest
from frtest import check, failed, fdr_block_ends, finish

flightrec, trace, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
data = open(trace, "rb").read()
UBSAN = "exitcode=98:print_stacktrace=1"
# Leak checking doubles the cost of a run under ASan: done on every 8th run only.
env_leaks = dict(os.environ, ASAN_OPTIONS="exitcode=99:detect_leaks=1", UBSAN_OPTIONS=UBSAN)
env_fast = dict(os.environ, ASAN_OPTIONS="exitcode=99:detect_leaks=0", UBSAN_OPTIONS=UBSAN)
runs = 0


def run(args, path):
    global runs
    runs += 1
    env = env_leaks if runs % 8 == 0 else env_fast
    try:
        p = subprocess.run([flightrec] + args + [path], capture_output=True, env=env, timeout=20)
    except subprocess.TimeoutExpired:
        failed("HANG: %s %s" % (args, path))
        return None, b""
    err = p.stderr
    check(p.returncode in (0, 1) and b"Sanitizer" not in err and b"runtime error" not in err,
          "CRASH (exit %d): %s %s\n%s" % (p.returncode, args, path, err.decode(errors="replace")[-2000:]))
    check(p.returncode != 1 or (path.encode() in err and b"offset" in err),
          "exit 1 without a file and offset: %s %s %r" % (args, path, err[:300]))
    return p.returncode, err


# Block boundaries: after the header, then after each BufferExtents block.
boundaries = fdr_block_ends(data)

cut_step, flip_step = 1, 7
if frtest.emulated(flightrec):
    cut_step, flip_step = 7, 29
    print("note: %s flightrec under an emulator: cuts at every %dth offset (and the header's, and"
          " around each block boundary), flips in every %dth byte" % (frtest.elf_cpu(flightrec), cut_step, flip_step))
cuts = set(range(0, len(data), cut_step)) | set(range(min(33, len(data))))
cuts |= {b + d for b in boundaries for d in (-1, 0, 1) if 0 <= b + d < len(data)}

cut_path = os.path.join(work, "cut.xray")
for k, cut in enumerate(sorted(cuts)):
    with open(cut_path, "wb") as f:
        f.write(data[:cut])
    for cmd in (["dump"], ["info"]) if k % 16 == 0 else (["dump"],):
        rc, err = run(cmd, cut_path)
        want = 1 if cut < 32 else 0
        check(rc is None or rc == want, "cut at %d: %s exit %s, expected %d: %s" % (cut, cmd[0], rc, want, err[:200]))
        warned = b"warning: " + cut_path.encode() + b": offset " in err
        check(rc != 0 or warned != (cut in boundaries),
              "cut at %d: %s: %s" % (cut, cmd[0], err[:200] or "no warning"))

rng = random.Random(1234)
flip_path = os.path.join(work, "flip.xray")
for i in range(32, len(data), flip_step):
    b = bytearray(data)
    b[i] ^= 1 << rng.randrange(8)
    with open(flip_path, "wb") as f:
        f.write(b)
    run(["dump"], flip_path)

rand_path = os.path.join(work, "random.xray")
for i in range(40):
    n = rng.randrange(0, 600)
    body = bytes(rng.randrange(256) for _ in range(n))
    if i % 2:
        body = data[:32] + body
    with open(rand_path, "wb") as f:
        f.write(body)
    run(["dump"] if i % 3 else ["info"], rand_path)

finish("robustness: %d runs, %d cuts, %d boundaries" % (runs, len(data), len(boundaries)))
