#!/usr/bin/env python3
"""format_types.py FLIGHTREC EVERY_TYPE_PROG SOURCE_DIR WORKDIR

The file format is written down once. For every FR_TE type in src/common/fr_format.h's
list (FR_TE_TYPES):
  - it has a unique name and a payload struct `struct fr_te_<name>` with a static assert on
    its size (or, with no fixed part, a tail that says what the payload is);
  - docs/FORMAT.md has a section "FR_TE_<NAME> (0xNNNN)";
  - `flightrec dump --meta` prints it as type=0xNNNN(name) in a trace holding one record
    of every type, in the current encoding (custom events with the envelope) and in the
    legacy one (typed events).
And no FR_TE_ constant is defined or used anywhere in the tree outside that list."""
import os
import re
import subprocess
import sys

from frtest import check, finish

flightrec, every, src, work = sys.argv[1:5]
os.makedirs(work, exist_ok=True)
header = open(os.path.join(src, "src/common/fr_format.h")).read()
entries = re.findall(r'X\((\w+),\s*(0x[0-9A-Fa-f]+)u,\s*"([^"]+)",\s*([^,]+?),\s*(FR_TE_TAIL_\w+)\)',
                     header)
check(len(entries) >= 9, "fr_format.h: FR_TE_TYPES lists %d types" % len(entries))
names = [e[2] for e in entries]
check(len(set(names)) == len(names), "type names are unique: %s" % names)
check(len(set(e[1].lower() for e in entries)) == len(entries), "type values are unique")

for ident, value, name, size, tail in entries:
    struct = "struct fr_te_" + ident.lower()
    if size.strip() == "0":
        check(tail in ("FR_TE_TAIL_EVENT", "FR_TE_TAIL_EVENT_RUN"),
              "FR_TE_%s has no struct and no tail" % ident)
    else:
        check(size.strip() == "sizeof(%s)" % struct, "FR_TE_%s: fixed part is %s, not %s"
              % (ident, size.strip(), struct))
        check(re.search(r"^%s \{" % re.escape(struct), header, re.M) is not None,
              "FR_TE_%s: %s is not defined" % (ident, struct))
        check(re.search(r"_Static_assert\(sizeof\(%s\) == \d+" % re.escape(struct), header),
              "FR_TE_%s: no static assert on sizeof(%s)" % (ident, struct))
    check(re.fullmatch(r"[a-z][a-z-]*", name) is not None, "FR_TE_%s: name %r" % (ident, name))

# Every FR_TE_ identifier in the tree is a listed type or one of the list's helpers.
helpers = {"FIRST", "LAST", "MAGIC", "MAGIC_SIZE", "TYPES", "ENUM_", "DESC_"}
known = {e[0] for e in entries} | helpers
for top in ("src", "include", "tests", "bench", "fuzz", "examples"):
    for root, _, files in os.walk(os.path.join(src, top)):
        for f in files:
            if not f.endswith((".c", ".h", ".cpp", ".py", ".sh")):
                continue
            path = os.path.join(root, f)
            text = open(path, errors="replace").read()
            for m in re.finditer(r"\bFR_TE_([A-Z0-9_]+)", text):
                ident = m.group(1)
                if ident in known or ident.startswith("TAIL_"):
                    continue
                check(False, "%s: FR_TE_%s is not in fr_format.h's FR_TE_TYPES"
                      % (os.path.relpath(path, src), ident))
            if f != "fr_format.h":
                check(re.search(r"#define\s+FR_TE_", text) is None,
                      "%s defines an FR_TE_ constant (only fr_format.h's list may)"
                      % os.path.relpath(path, src))

doc = open(os.path.join(src, "docs/FORMAT.md")).read()
for ident, value, name, size, tail in entries:
    check(re.search(r"^#+ .*FR_TE_%s \(%s\)" % (ident, value), doc, re.M | re.I) is not None,
          "docs/FORMAT.md has no section 'FR_TE_%s (%s)'" % (ident, value))

# dump --meta names every type, in both encodings.
for encoding in ("current", "legacy"):
    trace = os.path.join(work, encoding + ".fr")
    args = [every, trace] + (["legacy"] if encoding == "legacy" else [])
    p = subprocess.run(args, capture_output=True, text=True)
    check(p.returncode == 0 and p.stdout.strip() == str(len(entries)),
          "%s: wrote %r types (exit %d)" % (every, p.stdout.strip(), p.returncode))
    d = subprocess.run([flightrec, "dump", "--meta", trace], capture_output=True, text=True)
    check(d.returncode == 0, "dump --meta %s exit %d: %s" % (encoding, d.returncode, d.stderr))
    shown = re.findall(r"type=0x([0-9a-f]{4})\(([^)]*)\)", d.stdout)
    want = sorted((v[2:].lower(), n) for _, v, n, _, _ in entries)
    check(sorted(shown) == want, "dump --meta (%s) shows %s, want %s" % (encoding, sorted(shown), want))
    check(re.search(r"type=6\d{4}\b", d.stdout) is None,
          "dump --meta (%s) prints a type of ours as a bare number" % encoding)

finish("ok: %d FR_TE types, each with a name, a struct, a FORMAT.md section, named by dump"
       % len(entries))
