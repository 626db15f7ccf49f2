#!/bin/sh
# golden.sh - runs the golden cases (tests/golden/cases) and compares each command's whole
# output with its stored file, tests/golden/NAME.out (see tests/golden/README.md).
#
#   golden.sh check  FLIGHTREC GENERATOR WORKDIR NAME    one case: exit 0 if its output
#                                                         is the stored one, else a
#                                                         unified diff and exit 1
#   golden.sh traces FLIGHTREC GENERATOR WORKDIR         the generated traces: the same
#                                                         bytes on two runs and the sha256
#                                                         of tests/golden/traces.sha256
#   golden.sh update FLIGHTREC GENERATOR WORKDIR [NAME...]
#                                                         rewrites the stored files (all
#                                                         cases, or those named) and
#                                                         traces.sha256, printing the diff
#                                                         of each file that changed
#
# A case runs `flightrec ARGS` (ARGS as written in the table, through the shell: quotes
# and `< FILE` work) in a directory holding the traces written by GENERATOR
# (tests/golden_traces.c), so that paths in the output are the traces' relative names.
# Its output file is its standard output, then, if it wrote any, "--- stderr ---" and
# its standard error, then, if it did not exit 0, "--- exit status N ---".
set -u

usage() {
    echo "usage: $0 check|update|traces FLIGHTREC GENERATOR WORKDIR [NAME...]" >&2
    exit 2
}
[ $# -ge 4 ] || usage
mode=$1 flightrec=$2 generator=$3 workdir=$4
shift 4
golden_dir=$(cd "$(dirname "$0")" && pwd)
cases=$golden_dir/cases

# The environment a case runs in: what could change an output is fixed.
LC_ALL=C
TZ=UTC
TERM=dumb
export LC_ALL TZ TERM
unset NO_COLOR FLIGHTREC_OPTIONS LANG LANGUAGE

# case_args NAME: the command line of case NAME, or nothing
case_args() {
    awk -v n="$1" '$1 == n { line = $0; sub(/^[^ \t]+[ \t]*/, "", line); print line
                             found = 1; exit }
                   END { exit !found }' "$cases"
}

# make_traces DIR: a fresh directory with the generated traces in it
make_traces() {
    rm -rf "$1" && mkdir -p "$1/tmp" || exit 1
    "$generator" "$1" || { echo "golden: $generator $1 failed" >&2; exit 1; }
}

# run_case NAME DIR OUT: runs case NAME in DIR (traces made there), its output into OUT
run_case() {
    args=$(case_args "$1") || { echo "golden: no case $1 in $cases" >&2; exit 1; }
    make_traces "$2"
    (
        cd "$2" || exit 1
        TMPDIR=$2/tmp
        export TMPDIR
        eval "\"\$flightrec\" $args" >stdout 2>stderr
        echo $? >status
    )
    {
        cat "$2/stdout"
        if [ -s "$2/stderr" ]; then
            echo "--- stderr ---"
            cat "$2/stderr"
        fi
        status=$(cat "$2/status")
        [ "$status" = 0 ] || echo "--- exit status $status ---"
    } >"$3"
}

all_cases() {
    awk '/^t[0-9]/ { print $1 }' "$cases"
}

trace_sums() {
    (cd "$1" && sha256sum ./*.fr) | sed 's| \./| |'
}

case $mode in
check)
    [ $# -eq 1 ] || usage
    name=$1
    expected=$golden_dir/$name.out
    if [ ! -f "$expected" ]; then
        echo "golden: $expected does not exist (tests/golden/update.sh $name writes it)" >&2
        exit 1
    fi
    run_case "$name" "$workdir/$name" "$workdir/$name.out"
    if cmp -s "$expected" "$workdir/$name.out"; then
        exit 0
    fi
    echo "golden $name: output differs from tests/golden/$name.out" \
         "(command: flightrec $(case_args "$name")):"
    diff -a -u --label "tests/golden/$name.out" --label "flightrec $(case_args "$name")" \
        "$expected" "$workdir/$name.out"
    echo "If the change is meant: tests/golden/update.sh $name (see tests/golden/README.md)."
    exit 1
    ;;
traces)
    [ $# -eq 0 ] || usage
    make_traces "$workdir/traces-1"
    make_traces "$workdir/traces-2"
    rc=0
    for f in "$workdir"/traces-1/*.fr; do
        if ! cmp "$f" "$workdir/traces-2/$(basename "$f")"; then
            echo "golden: $(basename "$f") differs between two runs of the generator"
            rc=1
        fi
    done
    trace_sums "$workdir/traces-1" >"$workdir/traces.sha256"
    if ! diff -u --label tests/golden/traces.sha256 --label generated \
            "$golden_dir/traces.sha256" "$workdir/traces.sha256"; then
        echo "golden: the traces are not the ones the outputs were made from" \
             "(tests/golden_traces.c or the trace builder changed:" \
             "tests/golden/update.sh rewrites traces.sha256 and every output)"
        rc=1
    fi
    exit $rc
    ;;
update)
    [ $# -gt 0 ] || set -- $(all_cases)
    mkdir -p "$workdir" || exit 1
    changed=0 new=0 same=0
    for name in "$@"; do
        run_case "$name" "$workdir/$name" "$workdir/$name.out"
        stored=$golden_dir/$name.out
        if [ ! -f "$stored" ]; then
            echo "new: tests/golden/$name.out (flightrec $(case_args "$name"))"
            new=$((new + 1))
        elif cmp -s "$stored" "$workdir/$name.out"; then
            same=$((same + 1))
            continue
        else
            echo "changed: tests/golden/$name.out (flightrec $(case_args "$name"))"
            diff -a -u --label "tests/golden/$name.out (stored)" \
                 --label "tests/golden/$name.out (now)" "$stored" "$workdir/$name.out"
            changed=$((changed + 1))
        fi
        cp "$workdir/$name.out" "$stored" || exit 1
    done
    make_traces "$workdir/traces"
    trace_sums "$workdir/traces" >"$workdir/traces.sha256"
    if [ ! -f "$golden_dir/traces.sha256" ]; then
        echo "new: tests/golden/traces.sha256 (the generated traces)"
        cp "$workdir/traces.sha256" "$golden_dir/traces.sha256" || exit 1
    elif ! cmp -s "$workdir/traces.sha256" "$golden_dir/traces.sha256"; then
        echo "changed: tests/golden/traces.sha256 (the generated traces)"
        diff -u "$golden_dir/traces.sha256" "$workdir/traces.sha256"
        cp "$workdir/traces.sha256" "$golden_dir/traces.sha256" || exit 1
    fi
    for f in "$golden_dir"/t*.out; do
        [ -e "$f" ] || continue
        n=$(basename "$f" .out)
        all_cases | grep -qx "$n" || echo "stale: tests/golden/$n.out has no case in tests/golden/cases (remove it)"
    done
    echo "golden: $changed changed, $new new, $same unchanged"
    ;;
*)
    usage
    ;;
esac
