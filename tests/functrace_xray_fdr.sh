#!/usr/bin/env bash
# functrace_xray_fdr.sh - compiler-rt FDR API on flightrec; the log read by llvm-xray.
# usage: functrace_xray_fdr.sh PROGRAM WORKDIR LLVM_XRAY
set -euo pipefail
prog=$1 work=$2 xray=$3
rm -rf "$work"; mkdir -p "$work"
out=$(env -u FLIGHTREC_OPTIONS XRAY_OPTIONS="xray_logfile_base=$work/xray-log." "$prog")
# compiler-rt's name: <base><argv[0] name>.<6 random characters>
shopt -s nullglob
traces=("$work"/xray-log."$(basename "$prog")".??????)
[ ${#traces[@]} = 1 ] || { echo "FAIL: want one log named as compiler-rt names it, got: ${traces[*]:-none}"; ls "$work"; exit 1; }
trace=${traces[0]}
[ -s "$trace" ] || { echo "FAIL: empty trace '$trace'"; exit 1; }
acc=$("$xray" account -m "$prog" "$trace" --format=csv)
status=0
# The program prints "calls NAME N" for the calls it made: none printed is a failure, not
# an empty comparison.
ncalls=$(grep -c '^calls ' <<<"$out" || true)
[ "$ncalls" -gt 0 ] || { echo "FAIL: the program printed no 'calls' lines: $out"; exit 1; }
while read -r _ name want; do
  got=$(awk -F, -v n="\"$name\"" '$NF == n { print $2 }' <<<"$acc")
  got=${got:-0}
  if [ "$got" != "$want" ]; then echo "FAIL: $name: llvm-xray account $got, want $want"; status=1; fi
done < <(grep '^calls ' <<<"$out")
[ $status = 0 ] && echo "ok: $trace read by llvm-xray, counts agree"
exit $status
