#!/usr/bin/env bash
# core_relative_output.sh - relative output=, snapshot_output= and backing= name files in
# the directory the program started in, whatever directory it is in when they are
# written. They were opened relative to the working directory of that moment: a program
# that changed directory (a daemon's chdir) wrote its trace there at exit, a crash dump or
# a snapshot into wherever it was, and with stream=1 the file was in the start directory:
# the same option gave two places. A start directory whose name holds '%p' or '%%' keeps
# it literally (only the option's own text is a pattern).
# usage: core_relative_output.sh CHDIR_PROG FLIGHTREC WORKDIR
set -uo pipefail
prog=$1 fr=$2 work=$3
rm -rf "$work"; mkdir -p "$work"
fail=0
failed() { echo "FAIL: $*"; fail=1; }
records() { "$fr" info "$1" 2>/dev/null | sed -n 's/^records written: //p'; }

for start in "$work/plain" "$work/a%pb%%c"; do
  for mode in exit crash stream; do
    dir="$start/$mode"; mkdir -p "$dir/elsewhere"
    opts="start=1 output=t.fr snapshot_output=snap.%n.fr"
    args=("$dir/elsewhere")
    case $mode in
      crash) opts="$opts crash_dump=1"; args+=(crash) ;;
      stream) opts="$opts stream=1" ;;
    esac
    (cd "$dir" && FLIGHTREC_OPTIONS="$opts" "$prog" "${args[@]}" >out.txt 2>err.txt)
    rc=$?
    want=0; [ $mode = crash ] && want=139
    [ $rc = $want ] || failed "$start $mode: exit $rc, want $want: $(cat "$dir/err.txt")"
    [ -f "$dir/t.fr" ] || failed "$start $mode: no trace in the start directory: $(ls -R "$dir" | tr '\n' ' ')"
    [ "$(records "$dir/t.fr")" = 4000 ] || failed "$start $mode: $(records "$dir/t.fr") records, want 4000"
    [ -f "$dir/snap.1.fr" ] || failed "$start $mode: no snapshot in the start directory: $(ls -R "$dir" | tr '\n' ' ')"
    [ -z "$(ls -A "$dir/elsewhere")" ] || failed "$start $mode: files where the program went: $(ls -A "$dir/elsewhere")"
  done
done

# backing= relative: the file is made in the start directory, and stays there when the
# program dies without a dump; recover reads every record from it.
dir="$work/backing"; mkdir -p "$dir/elsewhere"
(cd "$dir" && FLIGHTREC_OPTIONS="start=1 output=t.fr backing=t.bk" "$prog" "$dir/elsewhere" crash \
  >/dev/null 2>err.txt)
[ -f "$dir/t.bk" ] || failed "backing: no backing file in the start directory: $(ls -A "$dir") $(cat "$dir/err.txt")"
[ -z "$(ls -A "$dir/elsewhere")" ] || failed "backing: files where the program went: $(ls -A "$dir/elsewhere")"
"$fr" recover "$dir/t.bk" -o "$dir/r.fr" >/dev/null 2>&1 || failed "backing: recover failed"
[ "$(records "$dir/r.fr")" = 4000 ] || failed "backing: recovered $(records "$dir/r.fr") records, want 4000"

[ $fail = 0 ] && echo "PASS: core_relative_output"
exit $fail
