#!/usr/bin/env python3
"""check_function_length.py MAX FILE_OR_DIR...

Fails (exit 1) when a C function in the given files (directories: their *.c files, recursively)
is longer than MAX lines, counted from the line of its name to the line of its closing brace.
A brace-matching scan after comments, string and character literals are blanked: a body is
a '{' at file level that follows ')' (a function's parameter list, possibly with attributes
between), not an initializer ('= {') nor a struct, union or enum. Prints every function over
the limit as FILE:LINE: NAME: N lines; with -v, every function's length."""
import os
import re
import sys


def blank(src):
    """src with comments, strings and character literals turned to spaces (newlines kept,
    so line numbers stay right), and preprocessor lines emptied."""
    out, i, n = [], 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", src[i:j]))
            i = j
        elif src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", src[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    text = "".join(out)
    # preprocessor lines (with their continuations) hold no function body
    return re.sub(r"(?m)^[ \t]*#(?:[^\n]*\\\n)*[^\n]*", lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


def functions(path):
    """(name, first line, last line) of each function defined in path."""
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    depth, found, i = 0, [], 0
    while i < len(text):
        c = text[i]
        if c == "{":
            if depth == 0:
                head = text[:i].rstrip()
                # attributes after the parameter list: __attribute__((...)) or a macro
                m = re.search(r"\)\s*(?:__attribute__\s*\(\(.*?\)\)\s*)*$", head, re.S)
                if m and not re.search(r"=\s*$", head):
                    # the parameter list's '(' and the name before it
                    k, d = m.start(), 0
                    while k >= 0:
                        if text[k] == ")":
                            d += 1
                        elif text[k] == "(":
                            d -= 1
                            if d == 0:
                                break
                        k -= 1
                    name_m = re.search(r"(\w+)\s*$", text[:k])
                    if name_m:
                        start = text.count("\n", 0, name_m.start()) + 1
                        found.append([name_m.group(1), start, None, i])
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0 and found and found[-1][2] is None:
                found[-1][2] = text.count("\n", 0, i) + 1
        i += 1
    return [(f[0], f[1], f[2]) for f in found if f[2] is not None]


def main(argv):
    verbose = "-v" in argv
    argv = [a for a in argv if a != "-v"]
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    limit, files = int(argv[1]), []
    for p in argv[2:]:
        if os.path.isdir(p):
            for root, _, names in os.walk(p):
                files += [os.path.join(root, f) for f in sorted(names) if f.endswith(".c")]
        else:
            files.append(p)
    bad = 0
    for f in sorted(files):
        for name, first, last in functions(f):
            n = last - first + 1
            if verbose or n > limit:
                print("%s:%d: %s: %d lines%s" % (f, first, name, n, " (over %d)" % limit if n > limit else ""))
            bad += n > limit
    print("%d function%s over %d lines in %d files" % (bad, "" if bad == 1 else "s", limit, len(files)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
