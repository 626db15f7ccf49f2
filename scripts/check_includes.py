#!/usr/bin/env python3
"""check_includes.py --part DIR [--forbid FILE=HEADER,HEADER...]... ROOT

Reads the #include "..." lines of the .c and .h files under ROOT/DIR (with subfolders)
and fails (exit 1) when:
  - two of its files include each other in a circle, directly or through others; a
    file and its header (x.c, x.h) count as one, so that x.c including y.h and y.c
    including x.h is a circle (each names the other's functions or types);
  - a file named by --forbid (a path under DIR without its extension, e.g.
    buffer_pool) includes one of the headers listed after '=' (same form), directly or
    through other headers of DIR.
Includes are resolved against ROOT/src/runtime, ROOT/src/common and ROOT/include (the
runtime's include path); headers outside DIR end a chain. Prints each circle and each
forbidden chain; exit 0 when there is none."""
import os
import re
import sys

from check_cycles import strongly_connected   # Tarjan's, the same for both checks

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def parse(args):
    part, forbid, rest = None, {}, []
    i = 0
    while i < len(args):
        if args[i] == "--part" and i + 1 < len(args):
            part = args[i + 1].strip("/")
            i += 2
        elif args[i] == "--forbid" and i + 1 < len(args):
            who, _, what = args[i + 1].partition("=")
            forbid.setdefault(who, set()).update(w for w in what.split(",") if w)
            i += 2
        else:
            rest.append(args[i])
            i += 1
    return part, forbid, rest


def main(args):
    part, forbid, rest = parse(args)
    if not part or len(rest) != 1:
        sys.stderr.write(__doc__)
        return 2
    root = os.path.abspath(rest[0])
    base = os.path.join(root, part)
    runtime = os.path.join(root, "src", "runtime")
    modules, edges, files = set(), {}, 0
    for d, _, names in os.walk(base):
        for n in sorted(names):
            if not n.endswith((".c", ".h")):
                continue
            files += 1
            path = os.path.join(d, n)
            mod = os.path.relpath(path, base)[:-2]
            modules.add(mod)
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
            for inc in INCLUDE.findall(text):
                target = os.path.normpath(os.path.join(runtime, inc))
                if not target.startswith(base + os.sep) or not os.path.exists(target):
                    continue
                dep = os.path.relpath(target, base)[:-2]
                if dep != mod:
                    edges.setdefault(mod, set()).add(dep)
    bad = 0
    comps = strongly_connected(sorted(modules), edges)
    for comp in comps:
        bad += 1
        print("circle: " + " ".join(comp))
        for a in comp:
            for b in sorted(edges.get(a, ())):
                if b in comp:
                    print("  %s includes %s" % (a, b))
    # forbidden includes, directly or through headers of the part
    for who, banned in sorted(forbid.items()):
        if who not in modules:
            print("--forbid names %s, which is not a file of %s" % (who, part))
            bad += 1
            continue
        seen, todo, via = {who}, [who], {}
        while todo:
            a = todo.pop()
            for b in sorted(edges.get(a, ())):
                if b not in seen:
                    seen.add(b)
                    via[b] = a
                    todo.append(b)
        for b in sorted(banned & seen):
            chain, x = [b], b
            while x != who:
                x = via[x]
                chain.append(x)
            print("forbidden: %s includes %s (%s)" % (who, b, " <- ".join(chain)))
            bad += 1
    print("%d files of %s, %d include dependencies between them, %d circle%s" %
          (files, part, sum(len(v) for v in edges.values()), len(comps), "" if len(comps) == 1 else "s"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
