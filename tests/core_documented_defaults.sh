#!/usr/bin/env bash
# core_documented_defaults.sh - the pool's defaults that include/flightrec.h and `record
# --help` state are the ones a program gets: a program started with no buffer options
# writes a trace whose header says its pool (`info`: "buffers: N of M bytes"). The header
# said 64 buffers of 64K long after the runtime's defaults became 4096 of 4 KiB, and the
# README's demo, sized by those words, lost 78% of its records.
# usage: core_documented_defaults.sh CHDIR_PROG FLIGHTREC FLIGHTREC_H WORKDIR
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, finish
prog=$1 fr=$2 header=$3 work=$4
rm -rf "$work"; mkdir -p "$work/elsewhere"
bytes() { # 64K -> 65536
  local v=$1
  case $v in *K) echo $(( ${v%K} << 10 )) ;; *M) echo $(( ${v%M} << 20 )) ;; *G) echo $(( ${v%G} << 30 )) ;; *) echo "$v" ;; esac
}
h_size=$(sed -n 's/.*buffer_size=BYTES.*default \([0-9]*[KMG]\?\)[,;)].*/\1/p' "$header")
h_count=$(sed -n 's/.*buffers=N .*default \([0-9]*\)[,;)].*/\1/p' "$header")
[ -n "$h_size" ] && [ -n "$h_count" ] || fail "no default of buffer_size= or buffers= found in $header"
"$fr" record --help >"$work/help.txt"
r_size=$(sed -n 's/.*--buffer-size N .*(default \([0-9]*\)[;)].*/\1/p' "$work/help.txt")
r_count=$(sed -n 's/.*--buffers N .*(default \([0-9]*\)[;)].*/\1/p' "$work/help.txt")
[ -n "$r_size" ] && [ -n "$r_count" ] || fail "no default of --buffer-size or --buffers in record --help"

(cd "$work" && FLIGHTREC_OPTIONS="start=1 output=t.fr" "$prog" "$work/elsewhere" >out.txt 2>err.txt) ||
  fail "the program failed: $(cat "$work/err.txt")"
pool=$("$fr" info "$work/t.fr" | sed -n 's/^buffers: \([0-9]*\) of \([0-9]*\) bytes$/\1 \2/p')
[ -n "$pool" ] || fail "info says no pool: $("$fr" info "$work/t.fr" 2>&1 | head -20)"
read -r count size <<<"$pool"
[ "$count" = "$h_count" ] || fail "flightrec.h: buffers=N default $h_count, the runtime's is $count"
[ "$size" = "$(bytes "$h_size")" ] || fail "flightrec.h: buffer_size= default $h_size, the runtime's is $size bytes"
[ "$count" = "$r_count" ] || fail "record --help: --buffers default $r_count, the runtime's is $count"
[ "$size" = "$r_size" ] || fail "record --help: --buffer-size default $r_size, the runtime's is $size bytes"
rm -rf "$work"
finish "ok: the documented pool defaults ($count buffers of $size bytes) are the runtime's"
