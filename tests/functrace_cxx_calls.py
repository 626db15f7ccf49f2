#!/usr/bin/env python3
"""functrace_cxx_calls.py - a real C++ program's call tree, exactly, in every output (issue 10).

usage: functrace_cxx_calls.py FLIGHTREC LLVM_XRAY PROGRAM WORKDIR
       functrace_cxx_calls.py FLIGHTREC LLVM_XRAY --gcc SOURCE WORKDIR

Records PROGRAM (tests/progs/functrace_cxx_calls.cpp built with clang XRay; with --gcc,
SOURCE built here with g++ -finstrument-functions against libflightrec.so) with
`flightrec record`. The program prints its known call tree ("tree CALLS PATH"): calls per
call path, including the frames C++ exceptions and longjmp unwound, which no exit sled or
(with clang) exit hook closes. The tree read back from each output must equal it exactly:
dump, convert yaml, convert chrome (nesting from the intervals), convert folded and svg
(weight calls), stack (text and folded), account (calls per function), and, as an
independent reader, llvm-xray stack and convert. With --lines, account (text, csv,
json) and stack, and convert chrome's args, give the file:line where functions start
(the program is built with -g). Frames of functions the tree does not
name (the C++ library's, implicit constructors) are left out of the paths before
comparing: which of them are instrumented depends on the compiler.
"""
import collections
import json
import os
import re
import sys

import frtest
from frtest import fatal, skip

LAMBDA = re.compile(r"^app::run\(\)::(\$_\d+|\{lambda\(int\)#\d+\})::operator\(\)\(int\) const$")


def run(cmd, **kw):
    return frtest.run_ok(cmd, **kw).stdout


def norm(name):
    name = name.strip()
    return "<lambda>" if LAMBDA.match(name) else name


# The functions the program's tree names; every other frame (the C++ library's, and the
# inline constructors gcc instruments) is left out of the paths.
TREE_NAMES = set()


def kept(name):
    return name in TREE_NAMES


class Paths:
    """Calls per call path (self counts: one per call, at its own path)."""

    def __init__(self):
        self.count = collections.Counter()

    def add(self, frames, n=1):
        frames = [norm(f) for f in frames]
        if not frames or not kept(frames[-1]):
            return
        self.count[";".join(f for f in frames if kept(f))] += n

    def by_function(self):
        c = collections.Counter()
        for path, n in self.count.items():
            c[path.split(";")[-1]] += n
        return c


class Replay:
    """Per-thread enter/exit replay into Paths; an exit must match the open frame."""

    def __init__(self, what):
        self.what, self.stacks, self.paths = what, collections.defaultdict(list), Paths()

    def enter(self, tid, name):
        self.stacks[tid].append(name)
        self.paths.add(self.stacks[tid])

    def exit(self, tid, name):
        st = self.stacks[tid]
        if not st:
            fatal(f"{self.what}: exit of {name} on thread {tid} with no open call")
        if st[-1] != name:
            fatal(f"{self.what}: exit of {name} while {st[-1]} is open (thread {tid})")
        st.pop()

    def done(self):
        for tid, st in self.stacks.items():
            if st:
                fatal(f"{self.what}: calls left open on thread {tid}: {st}")
        return self.paths


def compare(what, got, want):
    if got.count != want.count:
        lines = []
        for p in sorted(set(got.count) | set(want.count)):
            if got.count[p] != want.count[p]:
                lines.append(f"  {p}: got {got.count[p]}, want {want.count[p]}")
        fatal(f"{what}: call tree differs from the program's:\n" + "\n".join(lines[:20]))
    print(f"ok: {what}: {sum(want.count.values())} calls on {len(want.count)} paths")


def from_dump(text):
    r = Replay("dump")
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 7 and f[4] in ("enter", "enter-arg", "exit", "tail-exit"):
            name = line.split(None, 6)[6]
            (r.enter if f[4].startswith("enter") else r.exit)(f[2], name)
    return r.done()


YAML_REC = re.compile(r"func-id: *(\d+), function: *('(?:[^']|'')*'|[^,]*), cpu: *\d+, "
                      r"thread: *(\d+),.*kind: *([a-z-]+)")


def from_yaml(text, what, names=None):
    r = Replay(what)
    for line in text.splitlines():
        m = YAML_REC.search(line)
        if not m or not m.group(4).startswith("function-"):
            continue
        name = m.group(2)
        if name.startswith("'"):
            name = name[1:-1].replace("''", "'")
        if names is not None:
            name = names.get(int(m.group(1)), name)
        (r.enter if m.group(4).startswith("function-enter") else r.exit)(m.group(3), name)
    return r.done()


def from_chrome(text):
    """Nesting from complete events: per thread, in reverse emission order (a call is
    written at its exit, after its callees), a call nests in the innermost open one
    whose interval contains it."""
    events = collections.defaultdict(list)
    for e in json.loads(text)["traceEvents"]:
        if e.get("ph") == "X":
            start = round(e["ts"] * 1000)
            events[e["tid"]].append((start, start + round(e["dur"] * 1000), e["name"]))
    paths = Paths()
    for tid, evs in events.items():
        stack = []
        for start, end, name in reversed(evs):
            while stack and not (stack[-1][0] <= start and end <= stack[-1][1]):
                stack.pop()
            stack.append((start, end, name))
            paths.add([s[2] for s in stack])
    return paths


def from_folded(text, what):
    paths = Paths()
    for line in text.splitlines():
        if not line.strip():
            continue
        path, _, n = line.rpartition(" ")
        if not path or not n.isdigit():
            fatal(f"{what}: bad line {line!r}")
        paths.add([p for p in path.rstrip(";").split(";")], int(n))
    return paths


def from_stack_text(text):
    paths = Paths()
    for line in text.splitlines()[1:]:
        f = line.split(None, 5)
        if len(f) == 6 and f[0].isdigit():
            paths.add(f[5].split(" > "), int(f[0]))
    return paths


SVG_G = re.compile(r'<g class="f" fx="(\d+)" fw="(\d+)" fd="(\d+)"><title>(.*?) \(\d+ calls?')


def unescape(s):
    return s.replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", '"').replace(
        "&#39;", "'").replace("&amp;", "&")


def from_svg(text):
    """Frames with their offset, width (calls) and depth; a frame's self calls are its
    width less its children's."""
    nodes = [(int(m.group(3)), int(m.group(1)), int(m.group(2)), unescape(m.group(4)))
             for m in SVG_G.finditer(text)]
    if not nodes:
        fatal("svg: no frames")
    nodes.sort()
    by_depth = collections.defaultdict(list)
    for d, x, w, name in nodes:
        by_depth[d].append((x, w, name))
    paths = Paths()
    path_of = {}
    for d, x, w, name in nodes:
        parent = None
        if d > 0:
            parent = next(((px, pw, pn) for px, pw, pn in by_depth[d - 1]
                           if px <= x and x + w <= px + pw), None)
            if parent is None:
                fatal(f"svg: {name} at depth {d} has no parent")
        path_of[(d, x)] = (path_of[(d - 1, parent[0])] if parent else []) + [name]
        children = sum(cw for cx, cw, _ in by_depth[d + 1] if x <= cx and cx + cw <= x + w)
        if w - children > 0:
            paths.add(path_of[(d, x)][1:] if d == 0 or path_of[(d, x)][0] == "all"
                      else path_of[(d, x)], w - children)
    return paths


def account_counts(text, what, count_col, name_from):
    c = collections.Counter()
    for line in text.splitlines():
        f = line.split()
        if len(f) > count_col and f[count_col].isdigit():
            c[norm(name_from(line))] += int(f[count_col])
    return collections.Counter({k: v for k, v in c.items() if kept(k)})


SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "progs", "functrace_cxx_calls.cpp")


def check_lines(fr, trace):
    """file:line (issue 10): where a function starts is its definition's first line or
    the next (the line table attributes the entry to the signature or the brace)."""
    src = open(SOURCE).read().splitlines()
    decl = {}
    for fn, pat in (("app::level5(int)", "void level5("), ("app::catcher(int)", "int catcher("),
                    ("app::level1(int)", "void level1(")):
        decl[fn] = next(i + 1 for i, l in enumerate(src) if pat in l)

    def ok(fn, file, line):
        return os.path.basename(file) == "functrace_cxx_calls.cpp" and line in (decl[fn], decl[fn] + 1)

    loc = re.compile(r"^(.*) \((/[^()]*):(\d+)\)$")
    text = {}
    for line in run([fr, "account", trace, "--lines"]).splitlines()[1:]:
        f = line.split(None, 15)
        if len(f) == 16:
            m = loc.match(f[15].replace("  (", " ("))
            if m:
                text[m.group(1)] = (m.group(2), int(m.group(3)))
    acc_json = json.loads(run([fr, "account", trace, "--lines", "-f", "json"]))["functions"]
    js = {r["name"]: (r.get("file", ""), r.get("line", 0)) for r in acc_json}
    rows = run([fr, "account", trace, "--lines", "-f", "csv"]).splitlines()
    hdr = rows[0].split(",")
    csv = {}
    for r in rows[1:]:
        f = r.split(",")
        if len(f) == len(hdr) and f[-1].isdigit():
            csv[f[1]] = (f[-2], int(f[-1]))
    stack = run([fr, "stack", trace, "--lines"])
    chrome = {}
    # (said once per function, in otherData.functions: not in each call's args)
    for f in json.loads(run([fr, "convert", trace, "-f", "chrome"]))["otherData"].get("functions", []):
        chrome[f["name"]] = (f["file"], f["line"])
    for fn in decl:
        for what, table in (("account --lines", text), ("account --lines -f json", js),
                            ("account --lines -f csv", csv), ("convert chrome otherData.functions", chrome)):
            if fn not in table or not ok(fn, *table[fn]):
                fatal(f"{what}: {fn} at {table.get(fn)}, want functrace_cxx_calls.cpp:{decl[fn]}")
        want = [f"{fn} ({text[fn][0]}:{text[fn][1]})"]
        if not any(w in stack for w in want):
            fatal(f"stack --lines: no frame {want[0]}")
    print(f"ok: file:line of {len(decl)} functions in account, stack and chrome")


def main():
    a = sys.argv[1:]
    gcc = len(a) == 5 and a[2] == "--gcc"
    if gcc:
        fr, llvm_xray, _, source, work = a
    elif len(a) == 4:
        fr, llvm_xray, program, work = a
    else:
        print(__doc__)
        return 2
    os.makedirs(work, exist_ok=True)
    if gcc:
        from shutil import which
        if not which("g++"):
            skip("no g++")
        build = os.path.dirname(fr)
        program = os.path.join(work, "cxx_calls_gcc")
        run(["g++", "-g", "-O2", "-std=c++17", "-finstrument-functions", "-pthread", source, "-o",
             program, "-L" + build, "-lflightrec", "-Wl,-rpath," + build])
    trace = os.path.join(work, "cxx_calls.fr")
    out = run([fr, "record", "-o", trace, "--", program])
    want = Paths()
    tree = [line.split(" ", 2) for line in out.splitlines() if line.startswith("tree ")]
    for _, _, path in tree:
        TREE_NAMES.update(path.split(";"))
    for _, n, path in tree:
        want.add(path.split(";"), int(n))
    if not want.count:
        fatal("the program printed no tree")

    dump = run([fr, "dump", trace])
    compare("dump", from_dump(dump), want)
    compare("convert yaml", from_yaml(run([fr, "convert", trace, "-f", "yaml"]), "yaml"), want)
    compare("convert chrome", from_chrome(run([fr, "convert", trace, "-f", "chrome"])), want)
    compare("convert folded", from_folded(
        run([fr, "convert", trace, "-f", "folded", "--weight", "calls"]), "folded"), want)
    compare("convert svg", from_svg(
        run([fr, "convert", trace, "-f", "svg", "--weight", "calls"])), want)
    compare("stack", from_stack_text(run([fr, "stack", trace])), want)
    compare("stack --format folded", from_folded(
        run([fr, "stack", trace, "--format", "folded", "--value", "calls"]), "stack folded"), want)
    # calls, then total self min median p90 p99 max (value and unit each), then the name.
    acc = account_counts(run([fr, "account", trace]), "account", 0,
                         lambda l: l.split(None, 15)[15] if len(l.split(None, 15)) == 16 else "")
    if acc != want.by_function():
        fatal(f"account: {dict(acc)}\n  want {dict(want.by_function())}")
    print(f"ok: account: {len(acc)} functions")

    # llvm-xray, an independent reader. gcc traces have no instrumentation map: ids are
    # named from our dump.
    names = {}
    for line in dump.splitlines():
        f = line.split(None, 6)
        if len(f) == 7 and f[4] in ("enter", "exit", "tail-exit"):
            names[int(f[5])] = f[6]
    m = [] if gcc else ["-m", program]
    flame = run([llvm_xray, "stack", "-all-stacks", "-stack-format=flame",
                 "-aggregation-type=count", "-aggregate-threads"] + m + [trace])
    if gcc:
        flame = re.sub(r"#(\d+)", lambda g: names.get(int(g.group(1)), g.group(0)), flame)
    compare("llvm-xray stack", from_folded(flame.replace("; ", " "), "llvm-xray stack"), want)
    yaml = run([llvm_xray, "convert", "-f", "yaml"] + (["--symbolize"] + m if m else []) +
               [trace])
    compare("llvm-xray convert yaml", from_yaml(yaml, "llvm-xray yaml", names), want)
    check_lines(fr, trace)
    print("PASS", "gcc" if gcc else "clang")
    return 0


if __name__ == "__main__":
    sys.exit(main())
