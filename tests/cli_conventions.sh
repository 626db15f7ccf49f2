#!/usr/bin/env bash
# cli_conventions.sh - the command-line conventions of docs/CLI.md (issue 13), on traces
# written by the trace builder: -h everywhere, -o and -f on every command that writes
# output, --json for info and dump, '-' for standard input with names kept, sort keys
# named as the columns, exit codes 0/1/2, filters that match nothing, -v, --color.
# usage: cli_conventions.sh FLIGHTREC READER_TB_SAMPLE CONVERT_TRACES EVENTHEADER_DAT
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 sample=$2 traces=$3 dat=$4
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
"$sample" s.fr && "$traces" . >/dev/null || { echo "FAIL: cannot write the test traces"; exit 1; }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; }

# -h / --help on every command: usage on stdout, exit 0.
for c in record info dump account stack graph convert decode-dat; do
  for h in -h --help; do
    expect_rc 0 "$c $h" "$fr" "$c" "$h"
    grep -q "usage: flightrec $c" out.txt || fail "$c $h prints no usage"
  done
done
expect_rc 0 "flightrec -h" "$fr" -h
expect_rc 2 "unknown command" "$fr" nosuchcommand

# -o FILE and -f on every command that writes output; the file holds what stdout would.
for c in "info" "dump" "account" "stack" "graph" "convert -f yaml"; do
  # shellcheck disable=SC2086
  expect_rc 0 "$c to stdout" "$fr" $c s.fr; cp out.txt want.txt
  # shellcheck disable=SC2086
  expect_rc 0 "$c -o" "$fr" $c -o o.txt s.fr
  [ -s out.txt ] && fail "$c -o also wrote to stdout"
  cmp -s o.txt want.txt || fail "$c -o FILE differs from its stdout"
  # shellcheck disable=SC2086
  expect_rc 1 "$c -o into a missing directory" "$fr" $c -o /nonexistent/x s.fr
done
# -o naming a trace being read (by any path): refused before it is truncated, exit 1.
for c in "info" "dump" "account" "stack" "graph" "replay" "convert -f yaml" "convert -f chrome" \
         "convert -f perfetto" "convert -f svg"; do
  cp s.fr same.fr
  # shellcheck disable=SC2086
  expect_rc 1 "$c -o its own input" "$fr" $c -o ./same.fr same.fr
  grep -q "is the trace being read" err.txt || fail "$c -o its own input: message '$(cat err.txt)'"
  cmp -s s.fr same.fr || fail "$c -o its own input destroyed the trace"
done
cp s.fr same.fr; ln -f same.fr same-link.fr
expect_rc 1 "account of 2 files -o the second (a hard link)" "$fr" account -o same-link.fr s.fr same.fr
cmp -s s.fr same.fr || fail "account -o a hard link of its input destroyed the trace"
# A write that fails says why (the disk is full), exit 1.
for c in "info" "dump" "account" "stack" "graph" "replay" "convert -f chrome" "convert -f perfetto" \
         "convert -f folded" "convert -f svg" "convert -f yaml"; do
  # shellcheck disable=SC2086
  expect_rc 1 "$c -o /dev/full" "$fr" $c -o /dev/full s.fr
  grep -q "/dev/full.*No space left on device" err.txt || fail "$c -o /dev/full: message '$(cat err.txt)'"
done
cp "$dat" same.dat
expect_rc 1 "decode-dat -o its own input" "$fr" decode-dat -o same.dat same.dat
cmp -s "$dat" same.dat || fail "decode-dat -o its own input destroyed it"
expect_rc 0 "decode-dat" "$fr" decode-dat "$dat"; cp out.txt want.txt
expect_rc 0 "decode-dat -o" "$fr" decode-dat -f json -o o.txt "$dat"
cmp -s o.txt want.txt || fail "decode-dat -o FILE differs from its stdout"
# A file name that is not UTF-8 (a JSON key in decode-dat's output): valid UTF-8 JSON.
head -c 274 "$dat" >"$(printf 'bad\377name.dat')"   # the corpus's first record (valid UTF-8 strings)
expect_rc 0 "decode-dat of a name that is not UTF-8" "$fr" decode-dat --object "$(printf 'bad\377name.dat')"
python3 -c 'import json,sys; json.loads(open(sys.argv[1],"rb").read().decode("utf-8"))' out.txt ||
  fail "decode-dat of a name that is not UTF-8: not valid UTF-8 JSON"
expect_rc 1 "decode-dat -o into a missing directory" "$fr" decode-dat -o /nonexistent/x "$dat"
expect_rc 2 "decode-dat -f xml" "$fr" decode-dat -f xml "$dat"
expect_rc 1 "convert -o /nonexistent/x" "$fr" convert -f chrome -o /nonexistent/x s.fr
expect_rc 0 "account -f csv" "$fr" account -f csv s.fr
head -1 out.txt | grep -q '^id,function,calls' || fail "account -f csv: no CSV header"
expect_rc 0 "account --format=json" "$fr" account --format=json s.fr
json_ok out.txt || fail "account --format=json is not JSON"
expect_rc 0 "stack -f folded" "$fr" stack -f folded s.fr
grep -q '^main;work ' out.txt || fail "stack -f folded: no main;work line"
expect_rc 0 "graph -f dot" "$fr" graph -f dot s.fr
expect_rc 2 "graph -f png" "$fr" graph -f png s.fr
expect_rc 2 "info -f xml" "$fr" info -f xml s.fr
expect_rc 2 "dump -f xml" "$fr" dump -f xml s.fr

# --json for info and dump: valid JSON with the same numbers as the text.
expect_rc 0 "info --json" "$fr" info --json s.fr
json_ok out.txt || fail "info --json is not JSON"
"$fr" info s.fr >info.txt
python3 - out.txt info.txt <<'EOF' || fail "info --json disagrees with info"
import json, re, sys
j = json.load(open(sys.argv[1])); t = open(sys.argv[2]).read()
want = {"blocks": j["blocks"], "records": j["records"]["total"], "  enter": j["records"]["enter"],
        "  exit": j["records"]["exit"], "threads": len(j["threads"])}
for k, v in want.items():
    m = re.search(r"^%s: (\d+)" % k, t, re.M)
    assert m and int(m.group(1)) == v, (k, v, m and m.group(1))
EOF
expect_rc 0 "dump --json" "$fr" dump --json s.fr
python3 - out.txt <<'EOF' || fail "dump --json: not one JSON object per line"
import json, sys
recs = [json.loads(l) for l in open(sys.argv[1])]
names = {r["function"] for r in recs if r["kind"] in ("enter", "exit")}
assert {"main", "work", "leaf"} <= names, names
EOF
[ "$(wc -l <out.txt)" = "$(( $("$fr" dump s.fr | wc -l) - 1 ))" ] || fail "dump --json: not one line per record"

# '-' reads standard input, names kept (they come from the metadata block).
for c in info dump account stack graph "convert -f folded"; do
  # shellcheck disable=SC2086
  "$fr" $c s.fr >want.txt 2>/dev/null
  # shellcheck disable=SC2086
  cat s.fr | "$fr" $c - >out.txt 2>err.txt || fail "$c - from a pipe: exit $? ($(cat err.txt))"
  # the file's name is shown by info ("file: s.fr") and graph (its label): <stdin> here
  sed -i -e 's/^file: .*//' -e 's/label="[^"]*", labelloc/label=X, labelloc/' want.txt out.txt
  cmp -s want.txt out.txt || fail "$c - differs from $c FILE"
done
grep -q ' main$' <("$fr" account - <s.fr) || fail "account - <FILE: names lost"
grep -qx 'file: <stdin>' <("$fr" info - <s.fr) || fail "info - <FILE: not 'file: <stdin>' (as its JSON)"
expect_rc 1 "account - with an empty stdin" "$fr" account - </dev/null
expect_rc 1 "account - with stdin closed" "$fr" account - <&-
grep -q "standard input, which is closed" err.txt || fail "account - with stdin closed: '$(cat err.txt)'"

# Sort keys named as the columns (median, function); the old names still work.
for k in calls total self min median p90 p99 max function med name; do
  expect_rc 0 "account --sort $k" "$fr" account --sort "$k" s.fr
done
expect_rc 2 "account --sort bogus" "$fr" account --sort bogus s.fr
"$fr" account --sort function s.fr | awk 'NR>1{print $NF}' | tr '\n' ' ' >o.txt
[ "$(cat o.txt)" = "leaf main work " ] || fail "account --sort function: order '$(cat o.txt)'"
for k in calls total self; do expect_rc 0 "stack --sort $k" "$fr" stack --sort "$k" s.fr; done

# A filter that matches nothing: a warning and exit 1; one that matches: exit 0.
expect_rc 1 "dump --function nosuchfn" "$fr" dump --function nosuchfn s.fr
grep -q "warning: no record matched --function nosuchfn" err.txt || fail "no warning for --function nosuchfn"
expect_rc 1 "dump --tid 99999" "$fr" dump --tid 99999 s.fr
grep -q "no record matched --tid 99999" err.txt || fail "no warning for --tid 99999"
expect_rc 1 "dump --from 1000s" "$fr" dump --from 1000s s.fr
expect_rc 0 "dump --function work" "$fr" dump --function work s.fr
[ "$(grep -c ' 2 work' out.txt)" = 6 ] || fail "dump --function work: $(grep -c ' 2 work' out.txt) records, want 6"
tid=$("$fr" dump --json s.fr | python3 -c 'import json,sys; print([json.loads(l)["tid"] for l in sys.stdin if json.loads(l)["tid"]][0])')
expect_rc 0 "dump --tid $tid" "$fr" dump --tid "$tid" s.fr
# --tid on every command that takes it: a thread of no record is a warning naming the
# filter, exit 1 (account, stack and graph write nothing); a thread that is there: exit 0.
for c in "account" "stack" "graph" "replay" "convert -f folded" "convert -f svg" \
         "convert -f chrome" "convert -f perfetto"; do
  rm -f o.txt
  # shellcheck disable=SC2086
  expect_rc 1 "$c --tid 99999" "$fr" $c --tid 99999 -o o.txt s.fr
  grep -q "^flightrec ${c%% *}: warning: no \(record\|call\) matched --tid 99999$" err.txt ||
    fail "$c --tid 99999: message '$(cat err.txt)'"
  case $c in account|stack|graph) [ -e o.txt ] && fail "$c --tid 99999 wrote its output";; esac
  # shellcheck disable=SC2086
  expect_rc 0 "$c --tid $tid" "$fr" $c --tid "$tid" -o o.txt s.fr
  [ -s o.txt ] || fail "$c --tid $tid wrote nothing"
done
# '-' among several files for chrome/perfetto (each file is read twice there): refused
# before anything is written; standard input was found empty on the second read, after
# the other file's part of the output had been written (exit 1).
for f in chrome perfetto; do
  cp calls.fr calls-copy.fr
  expect_rc 2 "convert -f $f - calls.fr" sh -c "\"$fr\" convert -f $f - calls.fr <calls-copy.fr"
  [ -s out.txt ] && fail "convert -f $f - calls.fr wrote output before failing"
  grep -q "standard input" err.txt || fail "convert -f $f - calls.fr: message '$(cat err.txt)'"
done
# --binary that is no ELF file: said so, without libelf's "(no error)".
: > empty.bin
expect_rc 1 "dump --binary an empty file" "$fr" dump --binary empty.bin s.fr
grep -q "empty.bin: not an ELF file" err.txt || fail "--binary an empty file: message '$(cat err.txt)'"
grep -q "no error" err.txt && fail "--binary an empty file: message '$(cat err.txt)'"
# A --tid that is no thread id is bad usage on every command that takes it (dump took any
# 64-bit number or a negative one, replay took 0).
for c in dump account stack graph replay "convert -f chrome"; do
  for bad in 0 -5 99999999999 abc; do
    expect_rc 2 "$c --tid $bad" "$fr" $c --tid "$bad" s.fr
  done
done
expect_rc 1 "dump --tid 99999,99998" "$fr" dump --tid 99999,99998 s.fr
expect_rc 0 "dump --tid 99999,$tid" "$fr" dump --tid "99999,$tid" s.fr
expect_rc 1 "stack --tid 99999,99998" "$fr" stack --tid 99999,99998 s.fr
grep -q "no record matched --tid 99999,99998$" err.txt || fail "stack --tid A,B: message '$(cat err.txt)'"
expect_rc 0 "stack --tid 99999,$tid" "$fr" stack --tid "99999,$tid" s.fr
# --tid given twice: the warning names every thread asked for, not the last --tid only.
for c in dump stack; do
  expect_rc 1 "$c --tid 99999 --tid 99998" "$fr" $c --tid 99999 --tid 99998 s.fr
  grep -q "no record matched --tid 99999,99998$" err.txt || fail "$c --tid A --tid B: message '$(cat err.txt)'"
done
expect_rc 1 "replay --function nosuchfn" "$fr" replay --function nosuchfn s.fr
grep -q "^flightrec replay: warning: no call matched --function nosuchfn$" err.txt ||
  fail "replay --function nosuchfn: message '$(cat err.txt)'"

# -v: the summary line even when every call matched (yaml.fr); never without it.
for c in account stack graph; do
  expect_rc 0 "$c" "$fr" "$c" yaml.fr
  [ -s err.txt ] && fail "$c printed on stderr without -v: $(cat err.txt)"
  expect_rc 0 "$c -v" "$fr" "$c" -v yaml.fr
  grep -q "calls\? in .* threads\?; unmatched: 0" err.txt || fail "$c -v: no summary line"
done

# --color: escapes only when asked (or on a terminal), never in a pipe by default.
expect_rc 0 "dump --color=always" "$fr" dump --color=always s.fr
grep -q $'\033\\[' out.txt || fail "dump --color=always has no colour"
expect_rc 0 "dump (a pipe)" "$fr" dump s.fr
grep -q $'\033' out.txt && fail "dump into a pipe is coloured"
expect_rc 0 "account --color=never" "$fr" account --color=never s.fr
grep -q $'\033' out.txt && fail "account --color=never is coloured"
expect_rc 0 "account --color=always" "$fr" account --color=always s.fr
grep -q $'\033\\[1m' out.txt || fail "account --color=always: no bold header"
expect_rc 2 "dump --color=sometimes" "$fr" dump --color=sometimes s.fr

# record: every option is checked before the program runs (exit 2, program not run).
for bad in "--buffer-size 10" "--buffer-size 2G" "--buffers 0" "--buffers 5000000" \
           "--policy sometimes" "--threshold-us -1" "--threshold-us=x"; do
  # shellcheck disable=SC2086
  expect_rc 2 "record $bad" "$fr" record $bad -- touch ran
  [ -e ran ] && { fail "record $bad ran the program"; rm -f ran; }
done
FLIGHTREC_OPTIONS="buffer_size=10" expect_rc 2 "record with a bad FLIGHTREC_OPTIONS" "$fr" record -- touch ran
[ -e ran ] && fail "record with a bad FLIGHTREC_OPTIONS ran the program"
expect_rc 1 "record -o into a missing directory" "$fr" record -o /nonexistent/t.fr -- touch ran
[ -e ran ] && fail "record -o /nonexistent/t.fr ran the program"

finish "ok: CLI conventions"
