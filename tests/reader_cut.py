#!/usr/bin/env python3
"""reader_cut.py FLIGHTREC CUT_CHECK PROG WORKDIR

A trace written by our runtime (`flightrec record`, small buffers: a few KiB in several
blocks) and then cut short, as a crash or a full disk leaves it:
 - CUT_CHECK (reader_cut_check.c) cuts it at every offset and checks that the reader
   returns every whole record before the cut, record by record and in batches;
 - the CLI, on every 5th cut: `dump --meta` exits 0 and prints the first lines of the
   whole file's dump (never a line the whole file does not have), more the later the cut;
   unless the cut is where a block ends, stderr has a warning naming the file and the
   offset, and `info` says "truncated: at offset N"; `account` exits 0. A cut inside the
   header still exits 1.
Under an emulator (the aarch64 build under qemu-user, where each run of the CLI takes
about 0.3 s: every 5th cut took 15 minutes) the CLI runs on every 97th cut and at every
block end, saying so; CUT_CHECK still cuts at every offset."""
import os, re, subprocess, sys

import frtest
from frtest import failed, fdr_block_ends, finish

flightrec, check, prog, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "small.fr")
subprocess.run([flightrec, "record", "--policy", "discard", "--buffer-size", "1024", "--buffers", "8",
                "-o", trace, "--",
                prog], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
data = open(trace, "rb").read()
p = subprocess.run([check, trace, os.path.join(work, "cut_check.fr")], capture_output=True, text=True)
print(p.stdout.strip())
if p.returncode != 0:
    failed("reader_cut_check: exit %d: %s" % (p.returncode, p.stderr[-3000:]))

boundaries = fdr_block_ends(data) | {len(data)}
if len(boundaries) < 4:
    failed("expected a trace of several blocks, found %d boundaries" % len(boundaries))


def run(*args):
    return subprocess.run([flightrec] + list(args), capture_output=True, text=True, timeout=30)


whole = run("dump", "--meta", trace)
whole_lines = whole.stdout.splitlines()
cut_path = os.path.join(work, "cut.fr")
step = 5
if frtest.emulated(flightrec):
    step = 97
    print("note: %s flightrec under an emulator: the CLI on every %dth cut and at every block end, "
          "not every 5th" % (frtest.elf_cpu(flightrec), step))
previous = 0
for cut in sorted(set(range(0, len(data), step)) | boundaries):
    with open(cut_path, "wb") as f:
        f.write(data[:cut])
    d = run("dump", "--meta", cut_path)
    if cut < 32:
        if d.returncode != 1 or "offset" not in d.stderr:
            failed("cut at %d (in the header): exit %d, %s" % (cut, d.returncode, d.stderr[:200]))
        continue
    lines = d.stdout.splitlines()
    if d.returncode != 0:
        failed("cut at %d: dump exit %d: %s" % (cut, d.returncode, d.stderr[:300]))
    if lines != whole_lines[:len(lines)] or len(lines) < previous:
        failed("cut at %d: %d lines, not the first lines of the whole dump (previous cut: %d)"
             % (cut, len(lines), previous))
    previous = len(lines)
    warned = re.search(r"dump: warning: %s: offset (\d+): the file ends inside" % re.escape(cut_path),
                       d.stderr)
    if (cut in boundaries) == bool(warned):
        failed("cut at %d (%s a block boundary): %s" % (cut, "at" if cut in boundaries else "not at",
                                                      d.stderr[:300] or "no warning"))
    if warned and int(warned.group(1)) > cut:
        failed("cut at %d: warning names offset %s" % (cut, warned.group(1)))
    if cut % (5 * step) == 0 or cut in boundaries:
        i = run("info", cut_path)
        m = re.search(r"^truncated: at offset (\d+)$", i.stdout, re.M)
        if i.returncode != 0 or bool(m) != bool(warned) or (m and m.group(1) != warned.group(1)):
            failed("cut at %d: info exit %d, %r" % (cut, i.returncode, m and m.group(0)))
        a = run("account", cut_path)
        if a.returncode != 0:
            failed("cut at %d: account exit %d: %s" % (cut, a.returncode, a.stderr[:300]))
if previous != len(whole_lines):
    failed("the whole file has %d dump lines, the last cut %d" % (len(whole_lines), previous))
finish("%d bytes, %d blocks, %d dump lines" % (len(data), len(boundaries) - 1, len(whole_lines)))
