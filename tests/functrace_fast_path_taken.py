#!/usr/bin/env python3
"""functrace_fast_path_taken.py QEMU PROGRAM TRACE_DIR - the trampolines' fast path
(core/fast_record.h) is what records a traced call: PROGRAM
(tests/progs/functrace_fast_path_count.c, linked with libflightrec.a, not position-
independent) makes N calls of an empty traced function under the recorder. Run under
qemu user-mode emulation with one guest instruction per translation block
(-singlestep -d exec,nochain), every instruction executed inside fr_record_function and
the fr_tramp_* trampolines is logged (-dfilter: their addresses, read from PROGRAM's
symbol table). From runs of 1000 and 2000 calls (the difference cancels start-up and
exit), per call:
  - the trampolines run (the sleds are patched);
  - the C recorder (fr_record_function) does not: fewer than 1 of its instructions a
    call on average (its path costs about 70 a record; it still runs at buffer changes);
and every call's entry and exit are recorded (records written = 2 N, none dropped).
QEMU may carry arguments (the cross build's emulator, "qemu-aarch64 -L ..."); empty: no
qemu for this CPU here, exit 77 (Skipped)."""
import os
import re
import struct
import subprocess
import sys


def functions(path):
    """{name: (address, size)} of fr_record_function and fr_tramp_* (64-bit LE ELF)"""
    with open(path, "rb") as f:
        elf = f.read()
    if elf[:4] != b"\x7fELF" or elf[4] != 2 or elf[5] != 1:
        sys.exit(f"FAIL: {path} is not a 64-bit little-endian ELF file")
    if struct.unpack_from("<H", elf, 16)[0] != 2:
        sys.exit(f"FAIL: {path} is position-independent (link it with -no-pie): its addresses are not the ones qemu runs")
    shoff, = struct.unpack_from("<Q", elf, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
    found = {}
    for s in sections:
        if s[1] != 2:   # SHT_SYMTAB
            continue
        strtab = sections[s[6]]
        for off in range(s[4], s[4] + s[5], 24):
            name_off, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", elf, off)
            end = elf.index(b"\0", strtab[4] + name_off)
            name = elf[strtab[4] + name_off:end].decode()
            if (info & 0xF) == 2 and size and (name == "fr_record_function" or name.startswith("fr_tramp_")):
                found[name] = (value, size)
    if "fr_record_function" not in found or "fr_tramp_entry" not in found:
        sys.exit(f"FAIL: {path} has no symbols fr_record_function and fr_tramp_entry")
    return found


def run(qemu, prog, ranges, n, trace):
    """(instructions in fr_record_function, in fr_tramp_*)"""
    cmd = qemu + ["-singlestep", "-d", "exec,nochain", "-dfilter", ranges, "-D", "/dev/stderr",
                  prog, str(n), trace]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    recorder = tramp = 0
    for line in p.stderr:
        if not line.startswith(b"Trace "):
            continue
        sym = line.rsplit(None, 1)[-1]
        if sym == b"fr_record_function":
            recorder += 1
        elif sym.startswith(b"fr_tramp_"):
            tramp += 1
    out = p.stdout.read().decode(errors="replace")
    if p.wait() != 0:
        sys.exit(f"FAIL: {' '.join(cmd)} exited with {p.returncode}: {out}")
    m = re.search(r"records written (\d+), dropped (\d+)", out)
    if not m:
        sys.exit(f"FAIL: no summary line from {prog}: {out}")
    if int(m.group(1)) != 2 * n or int(m.group(2)) != 0:
        sys.exit(f"FAIL: {n} calls: {out.strip()}, want {2 * n} written, none dropped")
    return recorder, tramp


def main():
    qemu, prog, work = sys.argv[1:4]
    if not qemu.strip():
        print("SKIP: no qemu user-mode emulator for this CPU (qemu-user) to count instructions with")
        sys.exit(77)
    os.makedirs(work, exist_ok=True)
    ranges = ",".join(f"{a:#x}+{s:#x}" for a, s in functions(prog).values())
    counts = {n: run(qemu.split(), prog, ranges, n, os.path.join(work, f"calls{n}.fr"))
              for n in (1000, 2000)}
    recorder = (counts[2000][0] - counts[1000][0]) / 1000
    tramp = (counts[2000][1] - counts[1000][1]) / 1000
    print(f"per traced call: {tramp:.1f} instructions in the trampolines, {recorder:.1f} in fr_record_function")
    if tramp < 10:
        sys.exit("FAIL: the trampolines do not show in the log (the sleds are not patched)")
    if recorder >= 1:
        sys.exit("FAIL: fr_record_function runs for the calls: the fast path is not taken")
    print("PASS")


if __name__ == "__main__":
    main()
