#!/usr/bin/env bash
# functrace_static_plain.sh FLIGHTREC LLVM_XRAY PROGRAM WORKDIR - a program linked with
# the plain static line (functrace_static_plain.c) traces through fr_init alone: its 7
# calls of leaf are in the trace for our account and for llvm-xray's.
set -euo pipefail
fr=$1 llvm_xray=$2 prog=$3 work=$4
mkdir -p "$work"
trace=$work/static_plain.fr
rm -f "$trace"
env -u FLIGHTREC_OPTIONS "$prog" "$trace"
ours=$("$fr" account "$trace" | awk '$NF == "leaf" { print $1 }')
# -k: main's exit has no enter (main was entered before fr_init).
theirs=$("$llvm_xray" account -k -m "$prog" "$trace" 2>/dev/null | awk '$NF == "leaf" { print $2 }')
[ "$ours" = 7 ] || { echo "FAIL: flightrec account: leaf called '$ours' times, want 7"; exit 1; }
[ "$theirs" = 7 ] || { echo "FAIL: llvm-xray account: leaf called '$theirs' times, want 7"; exit 1; }
echo "PASS: 7 calls traced through the plain static link"
