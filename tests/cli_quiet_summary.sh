#!/usr/bin/env bash
# The "unmatched" summary on stderr: absent when every call matched (yaml.fr), present
# when some did not (calls.fr has an exit without an enter, an unwind and open calls).
set -euo pipefail
fr=$1 traces=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$traces" "$work" >/dev/null
"$fr" account "$work/yaml.fr" >"$work/out.txt" 2>"$work/err.txt"
[ -s "$work/out.txt" ] || { echo "FAIL: account of yaml.fr printed nothing"; exit 1; }
if grep -q unmatched "$work/err.txt"; then echo "FAIL: summary printed with nothing unmatched:"; cat "$work/err.txt"; exit 1; fi
"$fr" account "$work/calls.fr" >/dev/null 2>"$work/err2.txt"
grep -q "unmatched: 1 exit without an enter" "$work/err2.txt" || { echo "FAIL: calls.fr summary missing:"; cat "$work/err2.txt"; exit 1; }
echo "ok: summary only when something was unmatched"
