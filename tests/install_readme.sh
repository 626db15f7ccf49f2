#!/usr/bin/env bash
# install_readme.sh - README.md's commands, taken from README.md itself, run as written
# on a fresh copy of the source tree (so the README cannot drift from what works):
# every ```sh block runs, in order, in one bash -e session; every ```c or ```cmake block
# whose first line names a file (/* myprog.c */, # myapp/CMakeLists.txt) is written to
# that file first. ```text blocks are shown only (they build the whole test suite).
# The environment is empty but HOME (a scratch directory) and a plain PATH: no
# LD_LIBRARY_PATH, no FLIGHTREC_OPTIONS, no CC. Then the results are checked: exact
# call counts in the traces the README makes.
# usage: install_readme.sh SOURCE_DIR
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
src=$1
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home" "$work/src"
# A fresh copy: the tracked files (or, outside git, the tree without build directories).
if git -C "$src" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$src" ls-files -z | (cd "$src" && xargs -0 cp --parents -t "$work/src")
else
  tar -C "$src" --exclude='./build*' --exclude='./out' -cf - . | tar -C "$work/src" -xf -
fi
python3 - "$src/README.md" >"$work/readme.sh" <<'PY' || { echo "FAIL: cannot extract README.md's commands"; exit 1; }
import re, sys
text = open(sys.argv[1]).read()
blocks = re.findall(r"^```(\w+)\n(.*?)^```$", text, re.S | re.M)
out, runs = [], 0
for lang, body in blocks:
    if lang == "sh":
        out.append("echo '>>> README block %d' >&2" % (runs + 1))
        out.append(body)
        runs += 1
    elif lang in ("c", "cmake"):
        m = re.match(r"(?:/\*|#)\s*([\w./-]+)\s*(?:\*/)?\n", body)
        if m:
            out.append("mkdir -p \"$(dirname '%s')\"\ncat > '%s' <<'README_EOF'\n%sREADME_EOF"
                       % (m.group(1), m.group(1), body))
if runs < 4:
    sys.exit("README.md: only %d sh blocks found" % runs)
print("\n".join(out))
PY
cd "$work/src"
env -i HOME="$work/home" PATH=/usr/local/bin:/usr/bin:/bin bash -e -o pipefail "$work/readme.sh" \
  >"$work/out.txt" 2>"$work/err.txt"
rc=$?
if [ $rc != 0 ]; then
  echo "FAIL: README.md's commands stopped with exit $rc; the last lines:"
  tail -25 "$work/err.txt"; tail -5 "$work/out.txt"
  exit 1
fi
fr=$work/home/.local/bin/flightrec
calls() { "$fr" account -f csv "$1" | awk -F, -v f="$2" '$2==f{print $3}'; }
for t in trace.fr trace-gcc.fr trace-linked.fr trace-cmake.fr; do
  [ "$(calls "$t" square)" = 1000 ] || fail "$t: $(calls "$t" square) calls of square, want 1000"
  [ "$(calls "$t" sum_of_squares)" = 1 ] || fail "$t: $(calls "$t" sum_of_squares) calls of sum_of_squares, want 1"
done
linked=$(ls trace-[0-9]*.fr 2>/dev/null | head -1)
[ -n "$linked" ] && [ "$(calls "$linked" square)" = 1000 ] || fail "FLIGHTREC_OPTIONS run: no trace-PID.fr with 1000 calls of square"
grep -q '^333833500$' "$work/out.txt" || fail "myprog's output 333833500 not seen"
grep -q 'fr_demo: tracing on' "$work/out.txt" || fail "the demo's last line: $(grep fr_demo "$work/out.txt")"
lost=$("$fr" info demo.fr | sed -n 's/^records dropped: //p')
[ "$lost" = 0 ] || fail "demo.fr: ${lost:-no count of} records dropped; README.md says its buffers hold the whole run"
for f in trace.pftrace trace.json flame.svg calls.csv square.jsonl; do [ -s "$f" ] || fail "$f not written"; done
finish "ok: README.md's $(grep -c '^>>> README block' "$work/err.txt") command blocks ran as written; traces hold every call"
