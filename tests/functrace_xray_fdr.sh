#!/usr/bin/env bash
# functrace_xray_fdr.sh - compiler-rt FDR API on flightrec; the log read by llvm-xray.
# usage: functrace_xray_fdr.sh PROGRAM WORKDIR LLVM_XRAY
set -euo pipefail
prog=$1 work=$2 xray=$3
rm -rf "$work"; mkdir -p "$work"
out=$(env -u FLIGHTREC_OPTIONS "$prog" "$work")
trace=$(sed -n 's/^trace //p' <<<"$out")
[ -s "$trace" ] || { echo "FAIL: no trace at '$trace'"; exit 1; }
acc=$("$xray" account -m "$prog" "$trace" --format=csv)
status=0
while read -r _ name want; do
  got=$(awk -F, -v n="\"$name\"" '$NF == n { print $2 }' <<<"$acc")
  got=${got:-0}
  if [ "$got" != "$want" ]; then echo "FAIL: $name: llvm-xray account $got, want $want"; status=1; fi
done < <(grep '^calls ' <<<"$out")
[ $status = 0 ] && echo "ok: $trace read by llvm-xray, counts agree"
exit $status
