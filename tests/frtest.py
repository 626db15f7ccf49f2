"""frtest.py - what the Python tests share, written once. Every tests/*.py script imports
it: python3 puts a script's own folder first on sys.path, so `import frtest` finds this
file whatever the working directory ctest runs the test in.

  check(cond, what)   one check: a failure is printed at once ("FAIL: what") and counted;
                      the test goes on, so that one run shows every failed check (the
                      first 20 printed: a broken reader can fail thousands of cuts)
  fatal(what)         a failure the test cannot go on after: "FAIL: what", exit 1
  failed(what)        a failed check found without a condition to give (check(False, what))
  finish(ok_text)     the end of a test: exit 1 saying how many checks failed, else print
                      OK_TEXT and exit 0
  skip(why)           exit 77, which ctest reports as Skipped (the test's SKIP_RETURN_CODE
                      77): a test that cannot run here must never report Passed
  run(*cmd)           a command's exit code, stdout and stderr (text); with expect=N, a
                      check that it exited N
  run_ok(*cmd)        the same for a step the test cannot go on without (building or
                      recording its input): exits 1 with the command's output if it fails
  workdir(path)       the test's work directory, created (emptied first with fresh=True)
  round_div(a, b)     integer division rounding half away from zero, as cli_common.c does
  fdr_block_ends(data)  offsets in an XRay FDR file where a block may end: after the
                      header and after each BufferExtents block (docs/FORMAT.md)
  FDR_HEADER, fdr_md(kind, payload), fdr_fn(id, kind, delta), fdr_extents(body)
                      an FDR version 5 file written byte by byte (llvm-xray's reader
                      rules): the header, a metadata record, a function record, a block
  build_xray(clang, src, prog)  compiles SRC with XRay sleds in every function
  compiler_rt_trace(prog, mode, dir)  the one log file compiler-rt's own XRay runtime
                      writes for PROG in MODE ("fdr" or "basic"), every call kept
  known_traces(gen, work)   runs tests/progs/convert_traces.c into WORK: calls.json, the
                      records it wrote to calls.fr
  known_calls(records)      the calls of those records, matched here (not by flightrec)
  known_ns(spec, tsc)       a tick of those records in ns since the trace's start
  folded(text)        folded stacks ("a;b;c 12" lines) as {stack: weight}, a stack's
                      lines added up
  elf_cpu(path)       the CPU a program is built for, from its ELF header: "x86_64",
                      "aarch64", or e_machine's number
  emulated(path)      whether that CPU is not this machine's: the program runs under an
                      emulator (qemu-user: the cross build's tests), 5 to 50 times slower;
                      a test then does less of what repeats, saying so
  no_rss_reason(args) why a test's peak-RSS bounds are not checked (its argument
                      --no-rss=WHY, or --no-rss; /usr/bin/time missing), else None
"""
import collections
import glob
import json
import os
import shutil
import struct
import subprocess
import sys

failures = []
PRINTED_FAILURES = 20


def check(cond, what):
    """Records a failed check (printed now) unless COND holds. Returns COND."""
    if not cond:
        failures.append(what)
        if len(failures) <= PRINTED_FAILURES:
            print("FAIL:", what)
        elif len(failures) == PRINTED_FAILURES + 1:
            print("FAIL: ... (further failures counted, not printed)")
    return cond


def failed(what):
    check(False, what)


def fatal(what):
    print("FAIL:", what)
    sys.exit(1)


def finish(ok_text="ok"):
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print(ok_text)
    sys.exit(0)


def skip(why):
    print("SKIP:", why)
    sys.exit(77)


class Result(collections.namedtuple("Result", "returncode stdout stderr")):
    """A finished command: unpacks as (rc, out, err), reads like subprocess's result."""


def run(*cmd, expect=None, text=True, **kw):
    """Runs CMD (its words, or one list) with stdout and stderr captured. Text mode decodes
    with errors="replace" (a hostile trace's names must not stop the test); text=False
    gives bytes. Other keywords go to subprocess.run (env, timeout, stdin, cwd)."""
    if len(cmd) == 1 and isinstance(cmd[0], (list, tuple)):
        cmd = tuple(cmd[0])
    if text:
        kw.setdefault("errors", "replace")
    p = subprocess.run(list(cmd), capture_output=True, text=text, **kw)
    r = Result(p.returncode, p.stdout, p.stderr)
    if expect is not None:
        check(r.returncode == expect, "%s: exit %d, expected %d; stderr: %s"
              % (" ".join(map(str, cmd)), r.returncode, expect, r.stderr.strip()[:300]))
    return r


def run_ok(*cmd, **kw):
    r = run(*cmd, **kw)
    if r.returncode != 0:
        print("failed (%d): %s\n%s%s" % (r.returncode, " ".join(map(str, cmd)), r.stdout, r.stderr))
        sys.exit(1)
    return r


def workdir(path, fresh=False):
    if fresh:
        shutil.rmtree(path, ignore_errors=True)
    os.makedirs(path, exist_ok=True)
    return path


def elf_cpu(path):
    with open(path, "rb") as f:
        machine = struct.unpack("<H", f.read(20)[18:20])[0]
    return {62: "x86_64", 183: "aarch64"}.get(machine, str(machine))


def emulated(path):
    return elf_cpu(path) != os.uname().machine


def no_rss_reason(args):
    """--no-rss=WHY among ARGS (a sanitizer build, an emulator: memory that is not the
    command's would be counted), or GNU time missing: why peak RSS is not checked. None
    when it is: the rest of such a test runs either way."""
    for a in args:
        if a == "--no-rss" or a.startswith("--no-rss="):
            return a.partition("=")[2] or "--no-rss"
    if not os.access("/usr/bin/time", os.X_OK):
        return "/usr/bin/time (GNU time) not found"
    return None


def round_div(num, den):
    q, r = divmod(abs(num), den)
    if 2 * r >= den:
        q += 1
    return q if num >= 0 else -q


def fdr_block_ends(data):
    ends, off = {32}, 32
    while off + 16 <= len(data) and data[off] == 0x0F:
        off += 16 + int.from_bytes(data[off + 1:off + 9], "little")
        ends.add(off)
    return ends


# version 5, type 1 (FDR), constant + nonstop TSC, 1 GHz, 4096-byte buffers
FDR_HEADER = struct.pack("<HHIQQ8x", 5, 1, 3, 1000000000, 4096)


def fdr_md(kind, payload=b""):
    return bytes([(kind << 1) | 1]) + payload.ljust(15, b"\0")


def fdr_fn(fid, kind, delta):
    return struct.pack("<II", (fid << 4) | (kind << 1), delta)


def fdr_extents(body):
    """BODY (a block's records) behind the BufferExtents record that gives its size"""
    return fdr_md(7, struct.pack("<Q", len(body))) + body


def build_xray(clang, src, prog):
    subprocess.run([clang, "-O1", "-fxray-instrument", "-fxray-instruction-threshold=1", src,
                    "-o", prog, "-lpthread"], check=True)


def compiler_rt_trace(prog, mode, directory):
    """Runs PROG (linked with compiler-rt's XRay runtime) with XRAY_OPTIONS selecting MODE
    and a log file in DIRECTORY (emptied first); basic mode keeps calls of any length.
    FR_TEST_FDR=1 tells the test programs to start and flush FDR logging themselves."""
    os.makedirs(directory, exist_ok=True)
    for f in glob.glob(os.path.join(directory, "*")):
        os.unlink(f)
    env = dict(os.environ, XRAY_OPTIONS="patch_premain=true xray_mode=xray-%s xray_logfile_base=%s/"
               % (mode, directory), XRAY_BASIC_OPTIONS="func_duration_threshold_us=0")
    if mode == "fdr":
        env["FR_TEST_FDR"] = "1"
    subprocess.run([prog], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    files = glob.glob(os.path.join(directory, os.path.basename(prog) + ".*"))
    assert len(files) == 1, files
    return files[0]


def known_traces(generator, work):
    os.makedirs(work, exist_ok=True)
    subprocess.run([generator, work], check=True)
    return json.load(open(os.path.join(work, "calls.json")))


def known_ns(spec, tsc):
    return round_div((tsc - spec["base_tsc"]) * 10**9, spec["ticks_per_second"])


def known_calls(records):
    """Completed calls the way the design says (docs/DESIGN.md), matched here from the
    generator's records, never by flightrec's reader or tracker: an exit closes the
    innermost open frame of its function and, at the same time, the frames above it; an
    exit of a function with no open frame is dropped (counted as unmatched); frames still
    open at the end close at their thread's last record.
    Returns (calls, unmatched): calls in the order they close, each a dict with tid, id,
    enter, exit (ticks), depth, path (function ids from the thread's root down to id) and
    self (exit - enter minus the callees' time)."""
    stacks, last, calls, unmatched = collections.defaultdict(list), {}, [], 0

    def close(tid, frame, tsc):
        fid, enter, child = frame
        dur = tsc - enter
        st = stacks[tid]
        if st:
            st[-1][2] += dur
        path = tuple(f[0] for f in st) + (fid,)
        calls.append(dict(tid=tid, id=fid, enter=enter, exit=tsc, depth=len(st), path=path,
                          self=dur - child))

    for r in records:
        tid = r["tid"]
        last[tid] = r["tsc"]
        st = stacks[tid]
        if r["kind"] == "enter":
            st.append([r["id"], r["tsc"], 0])
            continue
        ids = [f[0] for f in st]
        if r["id"] not in ids:
            unmatched += 1
            continue
        k = len(ids) - 1 - ids[::-1].index(r["id"])
        while len(st) > k:
            close(tid, st.pop(), r["tsc"])
    for tid, st in stacks.items():
        while st:
            close(tid, st.pop(), last[tid])
    return calls, unmatched


def folded(text):
    """Folded stacks as {stack: weight} (the weights of a stack's lines added up)."""
    d = {}
    for line in text.splitlines():
        stack, n = line.rsplit(" ", 1)
        d[stack] = d.get(stack, 0) + int(n)
    return d
