#!/usr/bin/env python3
"""sched_check.py FLIGHTREC SCHED_PROG NO_PERF_EVENTS PROTO_DIR WORKDIR - `record --sched`
(issue 24 item 4).

1. The kernel refuses perf_event_open (NO_PERF_EVENTS: a seccomp filter answering EACCES,
   as perf_event_paranoid 3 does): `record --sched` says so in one line and records
   without marks; sched=1 given to the runtime directly (FLIGHTREC_OPTIONS) is said once
   by the process, not once per thread.
2. Where the kernel allows it (here: this thread's own context switches), every call of
   sleeper() (it sleeps 2 ms; 5 calls on two threads) has a scheduling mark in `replay`
   ("linux:schedule();" nested in it); `account --exclude-off-cpu` gives sleeper a total
   smaller by the marks' time off the CPU (to replay's microsecond); Perfetto output has
   a "linux:schedule" slice (with its "preempted" annotation) for every mark.
   Skipped (77) if the kernel refuses here; part 1 has run by then.
"""
import json
import os
import re
import shutil
import subprocess
import sys

fr, prog, no_perf, proto_dir, work = sys.argv[1:6]
os.makedirs(work, exist_ok=True)
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run(args, env_extra=None):
    env = dict(os.environ)
    env.pop("FLIGHTREC_OPTIONS", None)
    if env_extra:
        env.update(env_extra)
    return subprocess.run(args, capture_output=True, text=True, env=env)


def replay_marks(trace):
    """From replay's nesting: (marks in sleeper calls, all marks, sleeper calls, sleeper
    calls holding a mark, the time off the CPU of the marks anywhere inside sleeper calls
    in ns, replay's text)."""
    p = run([fr, "replay", trace])
    check(p.returncode == 0, "replay %s: exit %d %s" % (trace, p.returncode, p.stderr))
    line_re = re.compile(r"^\s*\S+\s+(?:(\d+\.\d+) (us|ms| s))?\s+\[\s*(-?\d+)\] \| ( *)(.*)$")
    stack = {}          # tid -> open calls [indent, name, holds a mark]
    in_sleeper = marks = calls = marked = off_ns = 0
    for line in p.stdout.splitlines()[1:]:
        m = line_re.match(line)
        if not m:
            continue
        dur, unit, tid, indent, text = m.group(1), m.group(2), m.group(3), len(m.group(4)), m.group(5)
        st = stack.setdefault(tid, [])
        while st and st[-1][0] >= indent:
            marked += st[-1][1] == "sleeper" and st[-1][2]
            st.pop()
        if text.startswith("linux:schedule();"):
            marks += 1
            if st and st[-1][1] == "sleeper":
                in_sleeper += 1
                st[-1][2] = True
            # account --exclude-off-cpu takes out every mark inside a sleeper call, a
            # preemption inside its work() too (seen under ASan: 28 us missed here)
            if any(f[1] == "sleeper" for f in st):
                off_ns += round(float(dur) * {"us": 1e3, "ms": 1e6, " s": 1e9}[unit])
        elif text.startswith("sleeper() {") or text.startswith("sleeper();"):
            calls += 1
        if text.endswith("{"):
            st.append([indent, text.split("(")[0], False])
    for st in stack.values():
        marked += sum(1 for f in st if f[1] == "sleeper" and f[2])
    return in_sleeper, marks, calls, marked, off_ns, p.stdout


# ---------------------------------------------------------------- 1. refused
t = os.path.join(work, "refused.fr")
p = run([no_perf, fr, "record", "--sched", "-o", t, "--", prog])
check(p.returncode == 0, "record --sched under the refusal: exit %d: %s" % (p.returncode, p.stderr))
said = [l for l in p.stderr.splitlines() if "refuses perf_event_open" in l]
check(len(said) == 1 and said[0].startswith("flightrec record: --sched: the kernel refuses "
                                            "perf_event_open (Permission denied; "),
      "record --sched under the refusal says so once: %r" % p.stderr)
check(os.path.exists(t), "record --sched under the refusal writes the trace")
if os.path.exists(t):
    _, marks, calls, _, _, _ = replay_marks(t)
    check(marks == 0 and calls == 5, "no marks and 5 sleeper calls without perf (%d, %d)" % (marks, calls))
t = os.path.join(work, "refused_env.fr")
p = run([no_perf, fr, "record", "-o", t, "--", prog], {"FLIGHTREC_OPTIONS": "sched=1"})
said = [l for l in p.stderr.splitlines() if "refuses perf_event_open" in l]
check(p.returncode == 0 and len(said) == 1 and said[0].startswith("flightrec: sched=1: the kernel refuses"),
      "sched=1 under the refusal: one message from the process (two threads): %r" % p.stderr)

# ---------------------------------------------------------------- 2. allowed
t = os.path.join(work, "sched.fr")
p = run([fr, "record", "--sched", "-o", t, "--", prog])
if "refuses perf_event_open" in p.stderr:
    print(p.stderr.strip())
    if failures:
        sys.exit("FAIL: %d checks" % len(failures))
    print("SKIP: the kernel refuses perf_event_open here (the refusal was checked)")
    sys.exit(77)
check(p.returncode == 0, "record --sched: exit %d: %s" % (p.returncode, p.stderr))
in_sleeper, marks, calls, marked, off_ns, text = replay_marks(t)
check(calls == 5, "5 sleeper calls in replay, found %d" % calls)
check(marked == 5 and in_sleeper >= 5,
      "every sleeper call has a scheduling mark in replay (calls opened %d, marks in sleeper %d)"
      % (marked, in_sleeper))


def sleeper_total(extra):
    p = run([fr, "account", t, "-f", "json"] + extra)
    check(p.returncode == 0, "account %s: exit %d %s" % (extra, p.returncode, p.stderr))
    rows = json.loads(p.stdout)
    rows = rows["functions"] if isinstance(rows, dict) else rows
    for r in rows:
        if r.get("name") == "sleeper":
            return r
    check(False, "account %s: no sleeper row" % extra)
    return {}


wall, cpu = sleeper_total([]), sleeper_total(["--exclude-off-cpu"])
key = "total_ns" if "total_ns" in wall else "total"
if wall and cpu:
    diff = wall[key] - cpu[key]
    check(abs(diff - off_ns) <= 1000 * (in_sleeper + 1),
          "account --exclude-off-cpu: sleeper's total %d ns less, its marks in replay %d ns"
          % (diff, off_ns))
    check(cpu[key] > 0 and cpu[key] < wall[key], "sleeper's on-CPU total %d of %d" % (cpu[key], wall[key]))
    check(cpu["calls"] == wall["calls"] == 5, "the same 5 calls")

protoc = shutil.which("protoc")
pf = os.path.join(work, "sched.pftrace")
p = run([fr, "convert", t, "--format", "perfetto", "-o", pf])
check(p.returncode == 0, "convert --format perfetto: %s" % p.stderr)
if protoc and p.returncode == 0:
    d = subprocess.run([protoc, "--decode=perfetto.protos.Trace", "-I", proto_dir,
                        os.path.join(proto_dir, "perfetto_trace.proto")],
                       stdin=open(pf, "rb"), capture_output=True, text=True)
    check(d.returncode == 0, "protoc decodes the Perfetto output: %s" % d.stderr[:300])
    n = d.stdout.count('name: "preempted"')
    check(n == marks, "Perfetto: %d linux:schedule slices (preempted annotations), replay %d marks"
          % (n, marks))
    check('name: "linux:schedule"' in d.stdout, "Perfetto: the slice name linux:schedule")
else:
    with open(pf, "rb") as f:
        check(b"linux:schedule" in f.read(), "Perfetto output names linux:schedule")

if failures:
    print(text)
    sys.exit("FAIL: %d checks" % len(failures))
print("PASS: %d marks (%d in the 5 sleeper calls), %d ns off the CPU in them" % (marks, in_sleeper, off_ns))
