#!/usr/bin/env python3
"""count_traced_call_insns.py QEMU PROGRAM [OPTIONS]: instructions a traced call costs, counted
under qemu user-mode emulation (one guest instruction per translation block, every
executed block logged: -singlestep -d exec,nochain), so x86-64 and aarch64 are counted the
same way. PROGRAM N calls an empty instrumented function N times (docs/AARCH64.md gives
the source). Prints, per call, the instructions of the traced call (sleds patched, the
recorder on: FLIGHTREC_OPTIONS=start=1, then OPTIONS if given, e.g. clock=tsc: qemu-x86_64's
CPU does not say its TSC is invariant, so the recorder would take CLOCK_MONOTONIC and the
C path) minus those of the untraced one (sleds not patched), from runs of 1000 and 2000
calls (the difference cancels start-up and exit).
Timing under an emulator means nothing; instruction counts are what it can give."""
import os
import subprocess
import sys
import tempfile


def executed(qemu, prog, n, traced, options):
    env = dict(os.environ)
    env.pop("FLIGHTREC_OPTIONS", None)
    if traced:
        env["FLIGHTREC_OPTIONS"] = ("start=1 " + options).strip()
    fd, log = tempfile.mkstemp(suffix=".log")
    os.close(fd)
    try:
        subprocess.run([qemu, "-singlestep", "-d", "exec,nochain", "-D", log, prog, str(n)],
                       env=env, check=False)
        with open(log, errors="replace") as f:
            return sum(1 for line in f if line.startswith("Trace "))
    finally:
        os.unlink(log)


def main():
    qemu, prog = sys.argv[1:3]
    options = " ".join(sys.argv[3:])
    per = {}
    for traced in (False, True):
        per[traced] = (executed(qemu, prog, 2000, traced, options) - executed(qemu, prog, 1000, traced, options)) / 1000
    print(f"{prog}: {per[False]:.1f} instructions a loop iteration untraced, {per[True]:.1f} traced: "
          f"{per[True] - per[False]:.1f} for the traced call (entry and exit)")


if __name__ == "__main__":
    main()
