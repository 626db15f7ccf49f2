#!/usr/bin/env python3
"""reader_open.py FLIGHTREC TB_SAMPLE WORKDIR

The CLI opens only regular files, never blocks on one and never follows a link planted
where a trace should be: every subcommand that reads a file, given /dev/zero (also spelled
/dev//////zero), a FIFO with no writer, a directory, or a symbolic link to a valid trace
kept 0600 (as /etc/shadow is: following the link would read it), exits 1 within the
timeout with a message naming the path and why; --binary with a FIFO or a device is
refused the same way; so are decode-dat's and recover's inputs. The trace itself, named
directly, is read (exit 0). '-' (standard
input) fed from /dev/zero, an endless stream that is no trace, is refused after its header
(exit 1), not copied until the disk is full."""
import os, subprocess, sys

import frtest
from frtest import check, failed, finish

flightrec, sample, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "private.xray")
subprocess.run([sample, trace, "small"], check=True, stdout=subprocess.DEVNULL)
os.chmod(trace, 0o600)
fifo = os.path.join(work, "fifo")
link = os.path.join(work, "link.xray")
for p in (fifo, link):
    if os.path.lexists(p):
        os.unlink(p)
os.mkfifo(fifo)
os.symlink(trace, link)


def run(args, stdin=subprocess.DEVNULL):
    try:
        return frtest.run([flightrec] + args, timeout=10, stdin=stdin)
    except subprocess.TimeoutExpired:
        return None


def expect(args, code, *words, stdin=subprocess.DEVNULL):
    p = run(args, stdin)
    if p is None:
        failed("HANG: %s" % args)
    else:
        check(p.returncode == code and all(w in p.stderr for w in words),
              "%s: exit %d (expected %d), stderr %r (expected %r)" % (args, p.returncode, code,
                                                                    p.stderr[:300], words))


commands = [["info"], ["dump"], ["account"], ["stack"], ["graph"],
            ["convert", "--format", "folded", "-o", os.path.join(work, "out.folded")]]
for cmd in commands:
    expect(cmd + [trace], 0)
    expect(cmd + ["/dev/zero"], 1, "/dev/zero: cannot open: not a regular file (a character device)")
    expect(cmd + ["/dev//////zero"], 1, "/dev//////zero: cannot open: not a regular file")
    expect(cmd + [fifo], 1, fifo + ": cannot open: not a regular file (a FIFO)")
    expect(cmd + [work], 1, work + ": cannot open: not a regular file (a directory)")
    expect(cmd + [link], 1, link + ": cannot open: a symbolic link (not followed")
    expect(cmd + [trace, "--binary", fifo], 1, fifo, "not a regular file (a FIFO)")
    expect(cmd + [trace, "--binary", "/dev/zero"], 1, "/dev/zero", "not a regular file")
    with open("/dev/zero", "rb") as zero:
        expect(cmd + ["-"], 1, "<stdin>: offset 0: expected", stdin=zero)
for p in ("/dev/zero", fifo, link):
    expect(["decode-dat", p], 1, p + ": cannot open: ")
    # recover reads a backing file by the same rule (a FIFO blocked it in open())
    expect(["recover", p, "-o", os.path.join(work, "recovered.fr")], 1,
            "flightrec recover: " + p + ": cannot open: ")
finish("%d commands" % (len(commands) + 2))
