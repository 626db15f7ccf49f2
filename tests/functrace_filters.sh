#!/usr/bin/env bash
# functrace_filters.sh - record-time filters act the same on both front ends (issue 24
# items 1-2): tests/progs/functrace_filter_prog.c built with gcc -finstrument-functions
# and with clang -fxray-instrument, recorded with --filter, --exclude, --max-depth and
# --threshold-us: `account` must list the same functions with the same call counts for
# both builds, and those are the counts the program makes (written below). Before, gcc's
# hooks recorded every function whatever the filter, and --exclude/--max-depth did not
# exist.
# usage: functrace_filters.sh FLIGHTREC SOURCE_DIR WORKDIR CLANG
set -uo pipefail
. "$(dirname "$0")/frtest.sh"
fr=$1 src=$2 work=$3 clang=$4
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
prog=$src/tests/progs/functrace_filter_prog.c
gcc -O1 -g -finstrument-functions "$prog" -o prog_gcc || exit 1
"$clang" -O1 -g -fxray-instrument -fxray-instruction-threshold=1 "$prog" -o prog_clang || exit 1

# "CALLS NAME" per function, sorted by name, on one line.
calls_of() { "$fr" account "$1" | awk 'NR > 1 { print $1, $NF }' | sort -k2 | tr '\n' ' '; }

# check WHAT WANT ARGS...: both builds recorded with ARGS give WANT.
check() {
  local what=$1 want=$2; shift 2
  for build in gcc clang; do
    if ! "$fr" record -o "$build.fr" "$@" -- "./prog_$build" >out.txt 2>err.txt; then
      fail "$what ($build): record failed: $(head -c 300 err.txt)"; continue
    fi
    grep -q "matches no\|selects no" err.txt && fail "$what ($build): $(grep 'no' err.txt)"
    got=$(calls_of "$build.fr")
    [ "$got" = "$want" ] || fail "$what ($build): got '$got', want '$want'"
    # deeper calls and filtered-out ones are not drops
    "$fr" info "$build.fr" | grep -q '^records dropped: 0$' ||
      fail "$what ($build): $(grep 'records dropped' <("$fr" info "$build.fr"))"
  done
}

check "no filter" "10 chain1 10 chain2 10 chain3 10 chain4 1 jump_deep1 1 jump_deep2 1 jumper \
200 leaf_a 110 leaf_b 1 main 100 mid_one 100 mid_two 3 slow_call "
check "--filter mid_*:leaf_a" "200 leaf_a 100 mid_one 100 mid_two " --filter 'mid_*:leaf_a'
check "--exclude leaf_*:chain3:jump*" \
  "10 chain1 10 chain2 10 chain4 1 main 100 mid_one 100 mid_two 3 slow_call " \
  --exclude 'leaf_*:chain3:jump*'
# main is depth 1; after the longjmp out of depth 4 the count is right again (mid_one)
check "--max-depth 2" "10 chain1 1 jumper 1 main 100 mid_one 100 mid_two 3 slow_call " --max-depth 2
check "--max-depth 3" "10 chain1 10 chain2 1 jump_deep1 1 jumper 200 leaf_a 100 leaf_b 1 main \
100 mid_one 100 mid_two 3 slow_call " --max-depth 3
# the depth counts recorded calls only: chain* from chain1, leaf_b (under chain4) left out
check "--filter chain*:leaf_b --max-depth 3" "10 chain1 10 chain2 10 chain3 100 leaf_b " \
  --filter 'chain*:leaf_b' --max-depth 3
check "--filter chain* --exclude chain2" "10 chain1 10 chain3 10 chain4 " \
  --filter 'chain*' --exclude chain2

# --threshold-us (uftrace -t): slow_call (>= 3 ms by construction) and main stay; of the
# 850 short calls at most a few that a loaded machine stretched past 1 ms may stay.
for build in gcc clang; do
  "$fr" record -o "t_$build.fr" --threshold-us 1000 -- "./prog_$build" >out.txt 2>err.txt ||
    fail "threshold ($build): record failed"
  got=$(calls_of "t_$build.fr")
  case " $got" in *" 3 slow_call "*) ;; *) fail "--threshold-us 1000 ($build): slow_call not kept 3 times: $got" ;; esac
  case " $got" in *" 1 main "*) ;; *) fail "--threshold-us 1000 ($build): main not kept: $got" ;; esac
  short=$("$fr" account "t_$build.fr" | awk 'NR > 1 && $NF != "slow_call" && $NF != "main" { n += $1 } END { print n + 0 }')
  [ "$short" -le 20 ] || fail "--threshold-us 1000 ($build): $short short calls kept"
  "$fr" info "t_$build.fr" | grep -q '^calls below threshold: [1-9]' ||
    fail "--threshold-us 1000 ($build): no call counted below the threshold"
done

# A gcc-instrumented library loaded by dlopen gets the filter too (its symbols are read
# after the dlopen).
gcc -O1 -fPIC -shared -finstrument-functions "$src/tests/progs/functrace_filter_plugin.c" \
    -o libplugin.so && gcc -O1 -finstrument-functions "$src/tests/progs/functrace_filter_host.c" \
    -o host -ldl || exit 1
for args in "--filter plug_leaf:main|1 main 50 plug_leaf " \
            "--exclude plug_leaf|1 main 50 plug_other 1 plug_run "; do
  "$fr" record -o dl.fr ${args%%|*} -- ./host "$PWD/libplugin.so" >out.txt 2>err.txt ||
    fail "dlopen ${args%%|*}: record failed: $(head -c 300 err.txt)"
  got=$(calls_of dl.fr)
  [ "$got" = "${args#*|}" ] || fail "dlopen ${args%%|*}: got '$got', want '${args#*|}'"
done

# Refused before the program runs: exit 2, naming the option.
for bad in "--max-depth 0" "--max-depth x" "--exclude 5-2" "--filter 3-1"; do
  expect_rc 2 "record $bad" "$fr" record -o bad.fr $bad -- ./prog_gcc
  grep -q -- "${bad%% *}" err.txt || fail "record $bad: message does not name the option: $(cat err.txt)"
done
finish "PASS"
