#!/usr/bin/env python3
"""check_cycles.py --part DIR OBJECT...

Fails (exit 1) when source files of one part of the tree (DIR, e.g. src/cli/ or
src/runtime/core/, with its subfolders) depend on each other in a circle: file A names a
function or global defined in file B (directly), and B names one of A's, directly or
through other files. Reads the symbols of the compiled objects with nm: each object's
defined external symbols and the symbols it leaves undefined; an edge A -> B for each
symbol A uses that B defines. Prints each circle (a strongly connected set of files) with
the symbols that tie it; exit 0 when there is none. Objects of files outside DIR (the
runtime's options.c linked into the command; the front ends beside the core) are left
out: only the part's own files make a circle."""
import os
import re
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) external symbols of obj."""
    out = subprocess.run([os.environ.get("NM", "nm"), "-P", obj], check=True, stdout=subprocess.PIPE, text=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) < 2:
            continue
        name, kind = parts[0], parts[1]
        if kind == "U":
            undefined.add(name)
        elif kind in "TDBRCVWG":   # external (upper case) definitions
            defined.add(name)
    return defined, undefined


def source_name(obj):
    """src/cli/commands/cmd_convert.c for .../src/cli/commands/cmd_convert.c.o"""
    m = re.search(r"(src/.*?)\.o(bj)?$", obj.replace(os.sep, "/"))
    return m.group(1) if m else obj


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iteratively: the components of more than one node."""
    index, low, on_stack, stack, comps, counter = {}, {}, set(), [], [], [0]
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            v, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges.get(w, ())))))
                    advanced = True
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    comps.append(sorted(comp))
    return comps


def main(args):
    if len(args) < 3 or args[0] != "--part":
        sys.stderr.write(__doc__)
        return 2
    part, objs = args[1].rstrip("/") + "/", args[2:]
    files = {source_name(o): symbols(o) for o in objs}
    where = {}
    for f, (defined, _) in files.items():
        for s in defined:
            where[s] = f
    edges, why = {}, {}
    for f, (_, undefined) in files.items():
        for s in undefined:
            g = where.get(s)
            if g and g != f and part in f and part in g:
                edges.setdefault(f, set()).add(g)
                why.setdefault((f, g), []).append(s)
    comps = strongly_connected(sorted(files), edges)
    for comp in comps:
        print("circle: %s" % " ".join(comp))
        for f in comp:
            for g in comp:
                if (f, g) in why:
                    print("  %s -> %s: %s" % (f, g, ", ".join(sorted(why[(f, g)])[:6])))
    n_edges = sum(len(v) for v in edges.values())
    print("%d files of %s, %d dependencies between them, %d circle%s" %
          (sum(part in f for f in files), part, n_edges, len(comps), "" if len(comps) == 1 else "s"))
    return 1 if comps else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
