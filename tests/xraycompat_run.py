#!/usr/bin/env python3
"""xraycompat_run.py - one XRay compatibility case: the same program built against
compiler-rt's XRay runtime (plain `clang -fxray-instrument`) and against flightrec
(`-fnoxray-link-deps` + libflightrec), run with the same argv[0], options and working
directory layout; their outputs must agree:
  - stdout, exactly;
  - stderr, after normalising pids, tids and the 6 random characters of log names, and
    without the lines compiler-rt prints about this machine's TSC ("Unable to determine
    CPU frequency", "Required CPU features missing") and flightrec's own additions
    ("==PID==flightrec: ..."), which the case may require separately;
  - the log files: as many, named <base><argv[0]>.XXXXXX, and read by llvm-xray (convert
    --output-format=yaml) into the same records per thread, record by record, every
    field but timestamps, cpus, thread and process ids (flightrec's metadata is in a block
    llvm-xray shows nothing of: docs/XRAY_COMPAT.md);
  - llvm-xray account's call counts per function, stack's stacks and counts and graph's
    graph, when it accounts both logs (always for a log of one thread).
usage: xraycompat_run.py LLVM_XRAY WORKDIR CASE CRT_BINARY FR_BINARY
Exits 77 (skipped) when the compiler-rt binary could not be built.
"""
import os
import re
import shutil
import subprocess
import sys

from frtest import fatal, skip

LLVM_XRAY, WORK, CASE, CRT, FR = sys.argv[1:6]
ARGV0 = "prog"

BASIC = {"XRAY_OPTIONS": "patch_premain=true xray_mode=xray-basic verbosity=1",
         "XRAY_BASIC_OPTIONS": "func_duration_threshold_us=0 max_stack_depth=5"}

# name: (argv tail, environment, log base relative to the run dir or None, checks)
CASES = {
    "handlers": ([], {}, None, "exact"),
    "handlers_premain": ([], {"XRAY_OPTIONS": "patch_premain=true"}, None, "exact"),
    "fdr": ([], {"XRAY_OPTIONS": "verbosity=1"}, None, "exact"),
    "fdr_env_options": ([], {"XRAY_OPTIONS": "verbosity=1 xray_fdr_log=true",
                             "XRAY_FDR_OPTIONS": "func_duration_threshold_us=0"}, None, "exact"),
    "basic": ([], BASIC, None, "exact"),
    "basic_small_buffer": ([], dict(BASIC, XRAY_BASIC_OPTIONS="func_duration_threshold_us=0 "
                                    "thread_buffer_size=3"), None, "exact"),
    "basic_fork": (["fork"], BASIC, None, "fork"),
    "basic_naive_dir": ([], {"XRAY_OPTIONS": "patch_premain=1:xray_naive_log=true:"
                             "xray_naive_log_func_duration_threshold_us=0:verbosity=1:"
                             "xray_logfile_base=sub/trace-"}, "sub/trace-", "exact"),
    "flags_unknown": ([], {"XRAY_OPTIONS": "verbosity=1:bogus=1:patch_premain=true:"
                           "xray_mode=xray-basic:also_bogus=x",
                           "XRAY_BASIC_OPTIONS": "func_duration_threshold_us=0"}, None, "exact"),
    "flags_unknown_quiet": ([], {"XRAY_OPTIONS": "bogus=1"}, None, "unknown_quiet"),
    "flags_malformed": ([], {"XRAY_OPTIONS": "patch_premain=maybe xray_mode=xray-basic"},
                        None, "malformed"),
    "flags_no_equals": ([], {"XRAY_OPTIONS": "junk"}, None, "malformed"),
    "bad_base": ([], {"XRAY_OPTIONS": "xray_logfile_base=/nonexistent/dir/ "
                      "xray_mode=xray-basic patch_premain=1"}, None, "exact"),
    "profiling": ([], {"XRAY_OPTIONS": "verbosity=1"}, None, "exact"),
    "profiling_file": (["file"], {"XRAY_OPTIONS": "verbosity=1",
                                  "XRAY_PROFILING_OPTIONS": "grace_period_ms=0"}, None, "profile"),
    # buffers_max=4: one thread's trie (4 buffers each in compiler-rt): the workers are
    # not profiled in either runtime; flightrec says so.
    "profiling_buffers_max": ([], {"XRAY_OPTIONS": "verbosity=1",
                                   "XRAY_PROFILING_OPTIONS": "buffers_max=4"}, None,
                              "exact+note"),
    "fdr_drops": ([], {}, None, "drops"),
    "fdr_buffers": ([], {}, None, "exact"),
    # flightrec's own snapshot_output= says where snapshots go, not the log (issue 25
    # item 4: the log went to flightrec-PID.fr): compiler-rt's log names, same records.
    "fdr_snapshot_output": ([], {"XRAY_OPTIONS": "verbosity=1",
                                 "FLIGHTREC_OPTIONS": "snapshot_output=snap-%n.fr"}, None,
                            "exact"),
    "nosleds": ([], {"XRAY_OPTIONS": "verbosity=1 xray_mode=xray-basic"}, None, "header_only"),
}

DROP_STDERR = re.compile(r"Unable to determine CPU frequency|Required CPU features missing|"
                         r"Missing rdtscp support|Missing invariant TSC support")
FR_EXTRA = re.compile(r"^==PID==flightrec: ")
RECORD = re.compile(r"^\s*- \{ (.*) \}\s*$")


def run(binary, tag):
    d = os.path.join(WORK, CASE, tag)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "sub"))
    argv_tail, env_extra, _, _ = CASES[CASE]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("XRAY_") and k != "FLIGHTREC_OPTIONS"}
    env.update(env_extra)
    p = subprocess.run([ARGV0] + argv_tail, executable=os.path.abspath(binary), cwd=d, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    return d, p


def norm_stderr(text):
    out = []
    for line in text.decode(errors="replace").splitlines():
        if DROP_STDERR.search(line):
            continue
        line = re.sub(r"==\d+==", "==PID==", line)
        line = re.sub(r"TID: \d+", "TID: N", line)
        line = re.sub(r"(%s\.)[A-Za-z0-9]{6}" % ARGV0, r"\1XXXXXX", line)
        out.append(line)
    return out


def logs(d):
    found = []
    for root, _, files in os.walk(d):
        for f in files:
            if re.fullmatch(r".*%s\.[A-Za-z0-9]{6}" % ARGV0, f):
                found.append(os.path.relpath(os.path.join(root, f), d))
    return sorted(found)


def fields(rec):
    out = {}
    for m in re.finditer(r"([a-z-]+): (\[[^\]]*\]|'[^']*'|\"(?:[^\"\\]|\\.)*\"|[^,]*)", rec):
        out[m.group(1)] = m.group(2).strip()
    return out


# What differs between two runs of one program, and only that: times, cpus, ids of the
# thread and process. Everything else llvm-xray shows of a record is compared.
RUN_FIELDS = ("tsc", "cpu", "thread", "process")


def records(binary, path):
    """llvm-xray's yaml records per thread, each as its fields but RUN_FIELDS, grouped by
    (process, thread); the threads sorted (their order in the yaml follows a hash)."""
    y = subprocess.run([LLVM_XRAY, "convert", "--symbolize", "--instr_map", binary,
                        "--output-format=yaml", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if y.returncode != 0:
        fatal("llvm-xray convert %s: %s" % (path, y.stderr.decode(errors="replace")))
    threads = {}
    for line in y.stdout.decode(errors="replace").splitlines():
        m = RECORD.match(line)
        if not m:
            continue
        f = fields(m.group(1))
        key = (f.get("process", ""), f.get("thread", ""))
        threads.setdefault(key, []).append(
            tuple(sorted((k, v) for k, v in f.items() if k not in RUN_FIELDS)))
    return sorted(tuple(v) for v in threads.values())


def profile(path):
    """compiler-rt's profile file: per block (thread), its (path, call count) records;
    thread ids and times are not compared. Blocks sorted (threads end in any order)."""
    data = open(path, "rb").read()
    if len(data) < 32 or int.from_bytes(data[:8], "little") != 0x7872617970726f66:
        fatal("%s: not a profile (magic)" % path)
    out, off = [], 32
    while off + 16 <= len(data):
        size = int.from_bytes(data[off:off + 4], "little")
        if size < 16 or off + size > len(data):
            fatal("%s: block at %d has size %d" % (path, off, size))
        recs, r = [], off + 16
        while r < off + size:
            ids = []
            while True:
                i = int.from_bytes(data[r:r + 4], "little", signed=True)
                r += 4
                if i == 0:
                    break
                ids.append(i)
            recs.append((tuple(ids), int.from_bytes(data[r:r + 8], "little")))
            r += 16
        out.append(tuple(recs))
        off += size
    if off != len(data):
        fatal("%s: %d bytes after the last block" % (path, len(data) - off))
    return sorted(out)


def account(binary, path, must=True):
    """Call counts per function, or None when llvm-xray cannot account the file (and
    MUST is false): llvm-xray 14 gives up at the first thread whose records start
    before another thread's, which happens on compiler-rt's own multi-threaded logs."""
    a = subprocess.run([LLVM_XRAY, "account", "--instr_map", binary, "--format=csv", path],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if a.returncode != 0:
        if not must:
            return None
        fatal("llvm-xray account %s: %s" % (path, a.stderr.decode(errors="replace")))
    counts = {}
    for line in a.stdout.decode().splitlines()[1:]:
        cols = line.split(",")
        if len(cols) >= 9:
            counts[cols[-1]] = counts.get(cols[-1], 0) + int(cols[1])
    return counts


def stack_and_graph(binary, path, must):
    """llvm-xray stack's stacks (level, function, count: not the times) and graph's
    edges and vertices, or None when llvm-xray gives up on the file (and MUST is false): both account
    the records as `account` does."""
    out = []
    for cmd, keep in (("stack", re.compile(r"^(#\d+)\s+(\S.*?)\s+(\d+)\s+\d+\s*$")),
                      ("graph", None)):
        a = subprocess.run([LLVM_XRAY, cmd, "--instr_map", binary, path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if a.returncode != 0:
            if not must:
                return None
            fatal("llvm-xray %s %s: %s" % (cmd, path, a.stderr.decode(errors="replace")))
        lines = a.stdout.decode(errors="replace").splitlines()
        if keep:
            # stacks, each from its #0 line; listed by their times, so sorted here
            stacks = []
            for m in filter(None, map(keep.match, lines)):
                if m.group(1) == "#0":
                    stacks.append([])
                if stacks:
                    stacks[-1].append(m.groups())
            out.append(sorted(stacks) + [l for l in lines if l.startswith("Unique Stacks")])
        else:
            out.append(sorted(lines))   # the dot file's edges and vertices
    return out


def main():
    if not os.path.exists(CRT):
        skip("no compiler-rt XRay runtime to compare with")
    check = CASES[CASE][3]
    dc, pc = run(CRT, "compiler-rt")
    df, pf = run(FR, "flightrec")
    ec, ef = norm_stderr(pc.stderr), norm_stderr(pf.stderr)
    ours_extra = [l for l in ef if FR_EXTRA.match(l)]
    ef = [l for l in ef if not FR_EXTRA.match(l)]

    if check == "malformed":
        # compiler-rt ends the program with status 1 before main; flightrec reports the
        # same lines, says it does not use the string, and lets the program run.
        if pc.returncode != 1:
            fatal("compiler-rt exited %d, expected 1" % pc.returncode)
        if pf.returncode != 0:
            fatal("flightrec: program should run normally (exit %d)" % pf.returncode)
        if ec != ef:
            fatal("stderr differs:\ncompiler-rt %r\nflightrec   %r" % (ec, ef))
        if not any("XRAY_OPTIONS not used" in l for l in ours_extra):
            fatal("flightrec does not say that XRAY_OPTIONS is not used: %r" % ours_extra)
        if logs(df):
            fatal("flightrec wrote logs from an unused XRAY_OPTIONS: %r" % logs(df))
        print("ok: %s: compiler-rt's messages; program not ended (documented)" % CASE)
        return
    if check == "unknown_quiet":
        # compiler-rt reports unknown flags at verbosity >= 1 only; flightrec always.
        if ec != []:
            fatal("compiler-rt printed %r" % ec)
        want = ["WARNING: found 1 unrecognized flag(s):", "    bogus"]
        if ef != want:
            fatal("flightrec stderr %r, want %r" % (ef, want))
        print("ok: %s: unknown flag reported at verbosity 0 (documented difference)" % CASE)
        return

    if check == "drops":
        # Both keep what fits and lose the rest; only flightrec says so.
        if pc.stdout != pf.stdout or pc.returncode != pf.returncode:
            fatal("stdout/status differ: %r %r" % (pc.stdout, pf.stdout))
        if ec != [] or ef != []:
            fatal("unexpected stderr: compiler-rt %r, flightrec %r" % (ec, ef))
        if not any(re.search(r"xray-fdr: \d+ records dropped", l) for l in ours_extra):
            fatal("flightrec does not report the dropped records: %r" % ours_extra)
        if len(logs(dc)) != 1 or len(logs(df)) != 1:
            fatal("want one log each: %r %r" % (logs(dc), logs(df)))
        print("ok: %s: records lost to full buffers reported (compiler-rt: silent)" % CASE)
        return
    if check == "exact+note":
        if not any("not profiled" in l for l in ours_extra):
            fatal("flightrec does not report what it left out: %r" % ours_extra)
        check = "exact"
    if pc.returncode != pf.returncode:
        fatal("exit status: compiler-rt %d, flightrec %d" % (pc.returncode, pf.returncode))
    if pc.stdout != pf.stdout:
        fatal("stdout differs:\n--- compiler-rt\n%s--- flightrec\n%s" %
             (pc.stdout.decode(), pf.stdout.decode()))
    if ec != ef:
        fatal("stderr differs:\n--- compiler-rt\n%s\n--- flightrec\n%s" %
             ("\n".join(ec), "\n".join(ef)))
    lc = [re.sub(r"[A-Za-z0-9]{6}$", "XXXXXX", x) for x in logs(dc)]
    lf = [re.sub(r"[A-Za-z0-9]{6}$", "XXXXXX", x) for x in logs(df)]
    if lc != lf:
        fatal("log files: compiler-rt %r, flightrec %r" % (lc, lf))
    base = CASES[CASE][2]
    if base and not all(x.startswith(base) for x in lf):
        fatal("logs %r not under the base %r" % (lf, base))
    # Logs pair up by content (e.g. the two FDR cycles; creation times may tie).
    def per_file(d, binary):
        out = []
        for x in logs(d):
            path = os.path.join(d, x)
            if check == "header_only":
                out.append(("size", os.path.getsize(path)))
            elif check == "profile":
                out.append((profile(path), path))
            else:
                out.append((records(binary, path), path))
        return sorted(out, key=lambda v: repr(v[0]))
    for (rc, pc_), (rf, pf_) in zip(per_file(dc, CRT), per_file(df, FR)):
        if check == "header_only":
            # No instrumentation map for llvm-xray to read: the files are their header.
            if pc_ != 32 or pf_ != 32:
                fatal("log sizes %r %r, want the 32-byte header only" % (pc_, pf_))
            continue
        if check == "fork":
            # compiler-rt's child inherits the parent's unwritten buffer and writes it
            # again at exit: the parent's records appear twice. flightrec's child starts
            # empty. Same distinct records; flightrec's none twice.
            flat_c = set(r for t in rc for r in t)
            flat_f = set(r for t in rf for r in t)
            if flat_c != flat_f:
                fatal("records differ (as sets): only compiler-rt %r, only flightrec %r" %
                     (flat_c - flat_f, flat_f - flat_c))
            continue
        if check == "profile":
            if rc != rf or not rc:
                fatal("profiles differ:\ncompiler-rt %r\nflightrec   %r" % (rc, rf))
            continue
        if rc != rf:
            fatal("records differ in %s / %s:\ncompiler-rt %r\nflightrec   %r" % (pc_, pf_, rc, rf))
        # Whether account gives up depends on the threads' order in llvm-xray's hash map
        # (their ids), so one run may and the other not: counts are compared when both can.
        ac = account(CRT, pc_, False)
        af = account(FR, pf_, False)
        if ac is not None and af is not None and ac != af:
            fatal("llvm-xray account counts: compiler-rt %r, flightrec %r" % (ac, af))
        single = len(rc) == 1   # one thread: llvm-xray accounts it in both
        if single and (ac is None or af is None):
            fatal("llvm-xray account gave up on a one-thread log: compiler-rt %r, flightrec %r"
                  % (ac, af))
        vc = stack_and_graph(CRT, pc_, single)
        vf = stack_and_graph(FR, pf_, single)
        if vc is not None and vf is not None and vc != vf:
            fatal("llvm-xray stack/graph differ:\ncompiler-rt %r\nflightrec   %r" % (vc, vf))
    if check == "fork":
        # flightrec: every call once: the child's records, the parent's records once.
        n_main_enter = sum(1 for x in logs(df) for t in records(FR, os.path.join(df, x))
                           for r in t if dict(r).get("function") == "main" and
                           dict(r).get("kind") == "function-enter")
        if n_main_enter != 1:
            fatal("flightrec: main entered %d times in the log, want 1" % n_main_enter)
    print("ok: %s: stdout, stderr, %d log file(s), records and counts agree" % (CASE, len(lf)))


if __name__ == "__main__":
    main()
