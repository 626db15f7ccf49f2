#!/usr/bin/env bash
# functrace_xray_stream.sh PROGRAM WORKDIR LLVM_XRAY FLIGHTREC - compiler-rt's FDR API with
# stream=1 (issue 9): the file grows from init on, __xray_log_flushLog writes its end
# (what is left + the final metadata block), and the in-memory iteration hands out the
# streamed blocks. stream=1 given three ways: FLIGHTREC_OPTIONS without an output
# (compiler-rt's log file name, made at init), the init string with an output, and
# XRAY_FDR_OPTIONS. For each: every API call answers as compiler-rt's would, the file
# holds more than the pool (it was streamed), llvm-xray fdr-dump -verify accepts it, and
# llvm-xray and our reader count every record written, and written + dropped (stream
# writer behind only) = made; the iterated image is read by llvm-xray with the same
# count.
set -uo pipefail
prog=$1 work=$2 xray=$3 fr=$4
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS XRAY_FDR_OPTIONS XRAY_OPTIONS
status=0
fail() { echo "FAIL: $*"; status=1; }
field() { sed -n "s/^$1: //p" "$2"; }
fn_records() { "$xray" convert --output-format=yaml "$1" 2>/dev/null | grep -c 'kind: function-'; }
calls=20000   # 2 x 20001 calls: 80004 records, 640 KiB; the pool is 16 x 4 KiB
init="buffer_size=4096:buffer_max=16:func_duration_threshold_us=0"

run_case() {   # run_case NAME FILE-GLOB ENV... -- INIT
  local name=$1 glob=$2; shift 2
  local envs=() 
  while [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env "${envs[@]}" XRAY_OPTIONS="xray_logfile_base=$work/$name-log." timeout 60 "$prog" $calls "$1" "$name.image" >"$name.out" 2>"$name.err" ||
    { fail "$name: exit $? ($(head -c 300 "$name.err"))"; return; }
  printf 'select 0\ninit 2\npatch 1\nunpatch 1\nfinalize 4\nprocess 2\nflush 2\n' >want
  grep -v '^made' "$name.out" | diff want - >/dev/null || fail "$name: API answers: $(tr '\n' ' ' <"$name.out")"
  local made files
  made=$(sed -n 's/^made //p' "$name.out")
  files=($glob)
  [ ${#files[@]} = 1 ] && [ -s "${files[0]}" ] || { fail "$name: want one trace file $glob, got: $(ls)"; return; }
  local f=${files[0]}
  [ "$(stat -c %s "$f")" -gt $((4 * 16 * 4096)) ] || fail "$name: file of $(stat -c %s "$f") bytes: not streamed (pool 64 KiB)"
  "$xray" fdr-dump -verify "$f" >/dev/null 2>x.err || fail "$name: llvm-xray fdr-dump -verify: $(head -c 300 x.err)"
  "$fr" info "$f" >info.txt 2>info.err || fail "$name: flightrec info: $(head -c 300 info.err)"
  local written dropped behind recs n img
  written=$(field "records written" info.txt) dropped=$(field "records dropped" info.txt)
  behind=$(field "  stream writer behind" info.txt)
  recs=$(( $(field "  enter" info.txt) + $(field "  exit" info.txt) ))
  n=$(fn_records "$f") img=$(fn_records "$name.image")
  # The program pauses so that the writer keeps up; on a loaded machine it may still
  # fall behind: then the drops are counted (stream writer behind) and nothing else.
  [ $((written + dropped)) = "$made" ] && [ "$dropped" = "${behind:-0}" ] &&
    [ "$recs" = "$written" ] && [ "$n" = "$written" ] ||
    fail "$name: made $made; summary written $written dropped $dropped (behind ${behind:-0}); our reader $recs; llvm-xray $n"
  [ "$img" = "$written" ] || fail "$name: the iterated buffers hold $img function records, written $written"
  grep -q "Sanitizer" "$name.err" && fail "$name: $(grep -m1 -A8 Sanitizer "$name.err")"
  echo "$name: $made records, $(stat -c %s "$f") bytes in $f, llvm-xray $n, image $img"
}

# 1. FLIGHTREC_OPTIONS stream=1, no output: compiler-rt's log file, named at init.
run_case env "$work/env-log.*" FLIGHTREC_OPTIONS=stream=1 -- "$init"
# 2. the init string: stream=1 and an output (flightrec's keys pass through).
run_case str "$work/str.fr" FLIGHTREC_OPTIONS= -- "$init:stream=1:output=$work/str.fr"
# 3. XRAY_FDR_OPTIONS.
run_case fdropts "$work/fdropts-log.*" XRAY_FDR_OPTIONS=stream=1 -- "$init"
exit $status
