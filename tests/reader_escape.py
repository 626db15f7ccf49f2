#!/usr/bin/env python3
"""reader_escape.py FLIGHTREC HOSTILE_NAMES WORKDIR

Names from a trace (tests/reader_hostile_names.c: ESC sequences, BEL, CR, LF, ';', DEL,
a C1 control, invalid UTF-8) reach no text output raw: info, dump, account (text and
CSV), stack (text and folded), graph and convert (folded, chrome, svg) print no control byte but the line ends, no C1
control, only valid UTF-8, and each name in its escaped form (as computed here); every
output has exactly its number of lines (a raw LF would add one). `stack --format folded`
maps ';' and newlines as `convert --format folded` does: its lines are convert's, with
the remaining controls escaped, and each has its count. Messages on stderr escape the
path they quote. The JSON outputs (info, dump, account, stack) are valid UTF-8 JSON with
each name as its bytes decoded, a byte that is not UTF-8 as U+FFFD."""
import json, os, re, subprocess, sys

from frtest import check, finish

flightrec, gen, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
trace = os.path.join(work, "hostile.fr")
subprocess.run([gen, trace], check=True)
NAMES = [b"main", b"esc\x1b[31mred\x1b[0m", b"bel\a", b"cr\rover", b"lf\nfake 99", b"semi;colon",
         b"del\x7f c1\xc2\x9b[2J", b"bad\xff utf8 caf\xc3\xa9", b"back\\slash"]
def esc(b, frame=False):
    """text_escape.h's rules, written again."""
    out, i = bytearray(), 0
    while i < len(b):
        c = b[i]
        if frame and c == 0x3B:
            out += b":"
        elif frame and c in (10, 13):
            out += b" "
        elif c == 0x5C and not frame:
            out += b"\\\\"
        elif 0x20 <= c < 0x7F:
            out.append(c)
        else:
            n = 0
            if c >= 0x80:
                for k in (2, 3, 4):
                    try:
                        if len(b[i:i + k].decode("utf-8")) == 1:
                            n = k
                            break
                    except UnicodeDecodeError:
                        pass
            if n and not (c == 0xC2 and b[i + 1] <= 0x9F):
                out += b[i:i + n]
                i += n
                continue
            for j in range(max(n, 1)):
                out += b"\\x%02x" % b[i + j]
            i += max(n, 1)
            continue
        i += 1
    return bytes(out)


def run(*args):
    p = subprocess.run([flightrec] + list(args) + [trace], capture_output=True)
    check(p.returncode == 0, "%s: exit %d: %r" % (args, p.returncode, p.stderr[:300]))
    return p.stdout


def clean(name, out, lines, *want):
    bad = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", out)
    check(not bad, "%s: raw control byte %r at %s" % (name, bad and bad.group(0), bad and bad.start()))
    try:
        out.decode("utf-8")
    except UnicodeDecodeError as e:
        check(False, "%s: not valid UTF-8: %s" % (name, e))
    check(out.count(b"\n") == lines, "%s: %d lines, expected %d" % (name, out.count(b"\n"), lines))
    for w in want:
        check(w in out, "%s: %r not shown" % (name, w))


escaped = [esc(n) for n in NAMES]
clean("info", run("info"), 25, b"name proc\\x1b[2J\n", b"executable: /nonexistent/ex\\x0ae\n",
      b"command line: run\\x1b[1m arg\\x0d\n", b", /nonexistent/\\x1b[1mobj\\x07\n",
      b", name thr\\x1b]0;title\\x07, ")
dump = run("dump")
clean("dump", dump, 1 + 19, *[b" %d %s\n" % (i + 1, n) for i, n in enumerate(escaped)])
clean("account", run("account"), 1 + 9, *[b"  %s\n" % n for n in escaped])
clean("account csv", run("account", "--format", "csv"), 1 + 9,
      *[b",%s," % n for n in escaped if b"," not in n])
clean("stack", run("stack"), 1 + 9, *[b"  main > %s\n" % n for n in escaped[1:]])
dot = run("graph")
clean("graph", dot, 4 + 9 + 8 + 1,
      *[b'[label="%s\\n' % n.replace(b"\\", b"\\\\") for n in escaped])

folded = run("stack", "--format", "folded")
clean("stack folded", folded, 9)
for line in folded.splitlines():
    check(re.fullmatch(rb"main(;[^;]+)? \d+", line), "folded line %r" % line)
conv = os.path.join(work, "convert.folded")
run("convert", "--format", "folded", "-o", conv)
want = []
for line in open(conv, "rb").read().splitlines():
    frames, count = line.rsplit(b" ", 1)
    want.append(b";".join(esc(f, frame=True) for f in frames.split(b";")) + b" " + count)
# convert's own outputs: folded escapes as `stack --format folded` does (ESC and BEL were
# written raw), chrome's JSON escapes DEL and the C1 controls too (\u007f, \u009b), the
# SVG has none of them (XML: a space); YAML is llvm-xray's, byte for byte (DEL raw there).
conv_text = open(conv, "rb").read()
clean("convert folded", conv_text, 9)
check(sorted(conv_text.splitlines()) == sorted(want), "convert folded escapes as stack folded: %r" % conv_text)
for fmt in ("chrome", "svg"):
    out = os.path.join(work, "convert." + fmt)
    run("convert", "--format", fmt, "-o", out)
    data = open(out, "rb").read()
    bad = re.search(rb"[\x00-\x09\x0b-\x1f\x7f]|\xc2[\x80-\x9f]", data)
    check(not bad, "convert %s: raw control byte %r at %s" % (fmt, bad and bad.group(0), bad and bad.start()))
chrome_names = {e["name"] for e in json.load(open(os.path.join(work, "convert.chrome")))["traceEvents"]
                if e.get("ph") == "X"}
check(chrome_names == {n.decode("utf-8", "replace") for n in NAMES},
      "convert chrome: names as their bytes decoded: %r" % sorted(chrome_names))
check(sorted(folded.splitlines()) == sorted(want),
      "stack folded %r != convert folded %r" % (sorted(folded.splitlines()), sorted(want)))
# JSON: valid UTF-8 JSON whatever a name's bytes; a byte that is not UTF-8 is U+FFFD.
want_names = {n.decode("utf-8", "replace") for n in NAMES}
for args in (("info", "--json"), ("dump", "--json"), ("account", "--format", "json"),
             ("stack", "--format", "json")):
    out = run(*args)
    try:
        text = out.decode("utf-8")
        docs = [json.loads(l) for l in text.splitlines()] if args[0] == "dump" else [json.loads(text)]
    except ValueError as e:   # UnicodeDecodeError is one
        check(False, "%s: not valid UTF-8 JSON: %s" % (" ".join(args), str(e)[:200]))
        continue
    if args[0] == "dump":
        got = {d["function"] for d in docs if d.get("function")}
    elif args[0] == "account":
        got = {f["name"] for f in docs[0]["functions"]}
    elif args[0] == "stack":
        got = {n for st in docs[0]["stacks"] for n in st["stack"]}
    else:
        continue
    check(got == want_names, "%s: names %r, expected %r" % (" ".join(args), sorted(got), sorted(want_names)))

# Messages quote the path, which may hold controls too: a cut copy named with ESC and LF.
odd = os.path.join(work, "cut\x1b]0;x\a\nname.fr").encode()
with open(odd, "wb") as f:
    f.write(open(trace, "rb").read()[:-3])
for args, lines in ((["dump"], 1), (["info"], 1), (["account"], 2)):   # account: + its summary
    p = subprocess.run([flightrec.encode()] + [a.encode() for a in args] + [odd], capture_output=True)
    check(p.returncode == 0 and b"warning: " + esc(odd) + b": offset " in p.stderr and
          not re.search(rb"[\x00-\x09\x0b-\x1f\x7f]", p.stderr.replace(b"\n", b"")) and
          p.stderr.count(b"\n") == lines,
          "%s on a cut file with ESC in its name: exit %d, stderr %r" % (args, p.returncode, p.stderr))
finish("%d names, 14 outputs" % len(NAMES))
