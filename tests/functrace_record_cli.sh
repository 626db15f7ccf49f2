#!/usr/bin/env bash
# functrace_record_cli.sh - `flightrec record`'s checks, options and exit statuses.
# usage: functrace_record_cli.sh FLIGHTREC PROGRAM(clang, instrumented, links libflightrec.so)
#        UNINSTRUMENTED_PROGRAM(links libflightrec) WORKDIR LLVM_XRAY EXIT_SEVEN(links libflightrec)
#        CONVERT_TRACES ONE_FUNCTION(clang, an xray_instr_map of one function)
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 prog=$2 plain=$3 work=$4 xray=$5 seven=$6 traces=$7 one_function=$8
rm -rf "$work"; mkdir -p "$work"; cd "$work"
unset FLIGHTREC_OPTIONS

expect_rc 0 "--help" "$fr" record --help
grep -q "usage: flightrec record" out.txt || fail "--help prints usage"
expect_rc 2 "no program" "$fr" record
expect_rc 2 "unknown option" "$fr" record --bogus -- "$prog"
expect_rc 2 "bad policy" "$fr" record --policy sometimes -- "$prog"
expect_rc 2 "bad number" "$fr" record --buffers many -- "$prog"
expect_rc 2 "missing value" "$fr" record -o
expect_rc 1 "program not found" "$fr" record -- ./no-such-program
expect_rc 1 "not instrumented, not linked with libflightrec" "$fr" record -- /bin/true
grep -q "no function instrumentation" err.txt || fail "says /bin/true has no instrumentation"
expect_rc 1 "no instrumentation" "$fr" record -- "$plain"
grep -q "no function instrumentation" err.txt || fail "says the program has no instrumentation"
printf '#!/bin/sh\nexit 0\n' >script.sh; chmod +x script.sh
expect_rc 1 "a script" "$fr" record -- ./script.sh
grep -q "not an ELF" err.txt || fail "says a script is not an ELF executable"

# A real run, relative -o, every option, --filter: only matching functions are traced.
expect_rc 0 "record with options" "$fr" record -o t1.fr --policy discard --buffer-size 65536 \
    --buffers 64 --threshold-us 0 --filter 'fib:tail_*' -- "$prog"
grep -q "trace written to $work/t1.fr" err.txt || fail "says where the trace went: $(cat err.txt)"
names=$("$xray" convert --output-format=yaml --symbolize -m "$prog" t1.fr |
        sed -n "s/.*function: '\{0,1\}\([a-z_]*\)'\{0,1\},.*kind: function-.*/\1/p" | sort -u | tr '\n' ' ')
[ "$names" = "fib tail_caller tail_target " ] || fail "--filter fib:tail_*: traced '$names'"

# --binary must be the traced program: another instrumented program's symbols would name
# every function wrongly. The trace's own table (ids, addresses) tells them apart.
expect_rc 1 "--binary of another program" "$fr" account --binary "$seven" t1.fr
grep -q "is not the traced program" err.txt || fail "--binary of another program: message '$(cat err.txt)'"
expect_rc 0 "--binary of the traced program" "$fr" account --binary "$prog" t1.fr
grep -q "fib" out.txt || fail "--binary of the traced program: no fib in '$(head -c 300 out.txt)'"
# The recorded executable replaced since: a warning, and the trace's own names.
cp "$prog" ./replaced
expect_rc 0 "record a copy" "$fr" record -o t4.fr -- ./replaced
cp "$seven" ./replaced
expect_rc 0 "account, the recorded executable replaced" "$fr" account t4.fr
grep -q "warning: .*replaced changed since it was recorded" err.txt ||
  fail "a replaced executable: no warning ($(cat err.txt))"
grep -q "fib" out.txt || fail "a replaced executable: the trace's names lost ($(head -c 300 out.txt))"

# A trace without flightrec's tables (as compiler-rt writes them: ids 1 to 4 here) and a
# --binary whose map has fewer functions: the ids it does not know are named.
mkdir -p traces && "$traces" traces >/dev/null || fail "convert_traces"
for cmd in account stack graph dump replay "convert -f chrome"; do
  expect_rc 1 "$cmd: ids past --binary's map" "$fr" $cmd traces/yaml.fr --binary "$one_function"
  grep -q "3 function ids of traces/yaml.fr (the first: 2) are not in the instrumentation map" err.txt ||
    fail "$cmd: ids past --binary's map: message '$(cat err.txt)'"
done

# --threshold-us: short calls leave no records, and the trace counts them.
expect_rc 0 "record with a threshold" "$fr" record -o t2.fr --threshold-us 100000 -- "$prog"
below=$("$fr" info t2.fr | sed -n 's/^calls below threshold: \([0-9]*\).*/\1/p')
[ "${below:-0}" -gt 15000 ] || fail "--threshold-us 100000: $below calls below threshold"

# %p expands to the program's pid; the program's exit status is ours.
expect_rc 0 "%p output" "$fr" record -o "t-%p.fr" -- "$prog"
ls t-[0-9]*.fr >/dev/null 2>&1 || fail "%p not expanded: $(ls)"
expect_rc 7 "exit status propagated" "$fr" record --no-check -o s.fr -- "$seven"

# A run that writes no trace says so, also when OUTPUT already exists (a previous run's
# trace, written a moment ago, is not this run's).
echo "previous run" >stale.fr
FLIGHTREC_OPTIONS=no_file_flush=1 expect_rc 0 "a run that writes no trace" \
    "$fr" record --no-backing -o stale.fr -- "$prog"
grep -q "no trace at $work/stale.fr" err.txt || fail "no 'no trace at' for a run without a trace: $(cat err.txt)"
grep -q "trace written" err.txt && fail "a previous run's file reported as this run's trace: $(cat err.txt)"
[ "$(cat stale.fr)" = "previous run" ] || fail "the previous run's file was changed"

# -o names checked before the program runs: '-' (standard output is the program's: the
# trace would be mixed into its output) is bad usage; a name too long for the file system
# once the pid and the temporary suffix are added cannot be written.
expect_rc 2 "-o -" "$fr" record --no-check -o - -- touch ran
[ -e ran ] && { fail "record -o - ran the program"; rm -f ran; }
[ -e ./- ] && fail "record -o - wrote a file named '-'"
long=$(printf 'l%.0s' $(seq 240)).fr
expect_rc 1 "-o a 243-byte name" "$fr" record --no-check -o "$long" -- touch ran
grep -q "too long" err.txt || fail "-o a 243-byte name: message '$(cat err.txt)'"
[ -e ran ] && { fail "record -o a 243-byte name ran the program"; rm -f ran; }

# The caller's backing= names a directory too: one that cannot be written is refused
# before the program runs (the runtime would not start in it).
FLIGHTREC_OPTIONS="backing=$work/nodir/x.bk" expect_rc 1 "backing= in a missing directory" \
    "$fr" record --no-check -o b.fr -- touch ran
grep -q "nodir" err.txt || fail "backing= in a missing directory: message '$(cat err.txt)'"
[ -e ran ] && { fail "record with backing= in a missing directory ran the program"; rm -f ran; }

# A pool larger than the process may have (the runtime would refuse it at start-up and
# the program would run untraced) is refused before the program runs, from the flags or
# from the caller's FLIGHTREC_OPTIONS.
expect_rc 1 "--buffers 65536 --buffer-size 1G" \
    "$fr" record --no-check -o huge.fr --buffers 65536 --buffer-size 1G -- touch ran
grep -q "does not fit: .* leaves" err.txt || fail "a 64 TiB pool: message '$(cat err.txt)'"
[ -e ran ] && { fail "record with a 64 TiB pool ran the program"; rm -f ran; }
FLIGHTREC_OPTIONS="buffers=65536" expect_rc 1 "FLIGHTREC_OPTIONS buffers=65536, --buffer-size 1G" \
    "$fr" record --no-check -o huge.fr --buffer-size 1G -- touch ran
[ -e ran ] && { fail "record with a 64 TiB pool (FLIGHTREC_OPTIONS) ran the program"; rm -f ran; }

# Patterns that match nothing say so (issue 10): a name, an id past the last one.
for pat in nosuch 999; do
  "$fr" record -o nomatch.fr --filter "$pat" -- "$prog" >/dev/null 2>nomatch.err || true
  grep -q "patch=$pat: matches no instrumented function" nomatch.err ||
    fail "--filter $pat: no message ($(cat nomatch.err))"
done
"$fr" record -o match.fr --filter fib -- "$prog" >/dev/null 2>match.err
grep -q "matches no" match.err && fail "--filter fib: said it matched nothing"
# An --exclude that leaves nothing to trace says that, not that it matched nothing (it
# matched every function): "exclude=*: matches no instrumented function" before.
exclude_all() {   # exclude_all WHAT RECORD-OPTIONS...
  local what=$1; shift
  "$fr" record -o exall.fr "$@" -- "$prog" >/dev/null 2>exall.err || true
  grep -q "exclude=[^ ]*: leaves no instrumented function to trace" exall.err && ! grep -q "matches no" exall.err ||
    fail "record $what: $(cat exall.err)"
}
exclude_all "--exclude '*'" --exclude '*'
exclude_all "--filter fib --exclude fib" --filter fib --exclude fib
# A directory whose name has spaces, a comma and a quote (the output path travels in
# FLIGHTREC_OPTIONS, where spaces and commas separate options): run from it with a
# relative -o, and into it with -o DIR/t.fr. Before, the first ran untraced ("start=1: not
# recording: bad options", "no trace at ...") and the second was refused.
odd="$work/My Traces, it's"
mkdir -p "$odd"
(cd "$odd" && "$fr" record -o t.fr -- "$prog" >out.txt 2>err.txt) || fail "record in '$odd': exit $? ($(cat "$odd/err.txt"))"
"$fr" info "$odd/t.fr" >/dev/null 2>&1 || fail "record in '$odd': no valid trace ($(cat "$odd/err.txt"))"
"$fr" record -o "$odd/t2.fr" -- "$prog" >/dev/null 2>err.txt || fail "record -o '$odd/t2.fr': exit $? ($(cat err.txt))"
"$fr" info "$odd/t2.fr" >/dev/null 2>&1 || fail "record -o '$odd/t2.fr': no valid trace"
both="$work/a\"b'c d"
mkdir -p "$both"
expect_rc 2 "-o with both quotes and a space" "$fr" record -o "$both/t.fr" -- "$prog"
grep -q "both kinds of quote" err.txt || fail "-o with both quotes: message '$(cat err.txt)'"
finish "ok: flightrec record checks, options, filter, exit status"
