#!/usr/bin/env bash
# cli_info_threads.sh - `flightrec info` lists the threads that kept no records but whose
# counts are in the file (issue 13). One buffer of 1 KiB (too small to lend small first
# buffers), discard policy: the first thread takes the only buffer, the three workers
# find none and drop every record (10002 each), so their only trace is their per-thread
# counts.
# usage: cli_info_threads.sh FLIGHTREC PROGRAM(functrace_record_prog, 3 workers)
set -uo pipefail
fr=$1 prog=$2
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
unset FLIGHTREC_OPTIONS
"$fr" record -o t.fr --buffers 1 --buffer-size 1024 --policy discard -- "$prog" >/dev/null 2>err.txt ||
  { echo "FAIL: record: $(cat err.txt)"; exit 1; }
"$fr" info t.fr >info.txt || { echo "FAIL: info"; exit 1; }
status=0
grep -q '^threads: 4 (3 kept no records)$' info.txt || { echo "FAIL: $(grep '^threads' info.txt), want 'threads: 4 (3 kept no records)'"; status=1; }
n=$(grep -c '^thread [0-9]*: pid [0-9]*, blocks 0, records 0, .*dropped 10002 ' info.txt)
[ "$n" = 3 ] || { echo "FAIL: $n threads listed with no records and 10002 dropped, want 3"; cat info.txt; status=1; }
# The drops by cause: every one of the workers' 30006 records found no free buffer, and so
# did the main thread's records past its buffer.
all=$(python3 -c 'import json,sys; print(sum(t["dropped"] for t in json.load(sys.stdin)["threads"]))' \
      < <("$fr" info --json t.fr))
[ "$all" -gt 30006 ] || { echo "FAIL: $all records dropped in all, want more than the workers' 30006"; status=1; }
grep -q "^  no free buffer: $all\$" info.txt || { echo "FAIL: no 'no free buffer: $all' line"; grep -A3 '^records dropped' info.txt; status=1; }
"$fr" info --json t.fr >info.json
python3 - info.json <<'PY' || status=1
import json, sys
j = json.load(open(sys.argv[1]))
empty = [t for t in j["threads"] if t["records"] == 0]
assert j["threads_without_records"] == 3 and len(j["threads"]) == 4, j["threads"]
assert all(t["dropped"] == 10002 for t in empty), empty
assert j["dropped_by_cause"] == {"full": sum(t["dropped"] for t in j["threads"])}, j.get("dropped_by_cause")
PY
[ $status = 0 ] && echo "ok: info lists the 3 threads that kept no records"
exit $status
