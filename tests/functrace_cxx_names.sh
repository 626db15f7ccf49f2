#!/usr/bin/env bash
# functrace_cxx_names.sh - C++ names demangled in every output (issue 10).
# usage: functrace_cxx_names.sh FLIGHTREC PROGRAM WORKDIR [gcc]
# Records PROGRAM (tests/progs/functrace_cxx_names.cpp built with clang XRay, or, with
# "gcc", built here with g++ -finstrument-functions) and checks that account, stack,
# dump, replay and convert chrome/folded/svg/yaml name the functions demangled, with the
# program's known call counts, and that no output holds a mangled name; and
# --demangle=simple|no on every command that names functions.
set -euo pipefail
fr=$1 prog=$2 work=$3 mode=${4:-clang}
mkdir -p "$work"
if [ "$mode" = gcc ]; then
  command -v g++ >/dev/null || { echo "SKIP: no g++"; exit 77; }
  build=$(dirname "$fr")
  g++ -O2 -finstrument-functions -pthread "$prog" -o "$work/cxx_gcc" \
      -L"$build" -lflightrec -Wl,-rpath,"$build"
  prog=$work/cxx_gcc
fi
trace=$work/cxx_$mode.fr
"$fr" record -o "$trace" -- "$prog" >/dev/null
fail=0
check() { # check OUTPUT-NAME FILE
  local name=$1 file=$2
  # JSON and SVG escape '<' '>' '&'; compare on the unescaped text.
  sed -e 's/&lt;/</g; s/&gt;/>/g; s/&amp;/\&/g; s/\\u003c/</g; s/\\u003e/>/g; s/\\u0026/\&/g' \
      "$file" >"$file.plain"
  for want in 'ns::Box<long>::get(int) const' 'sum_boxes(int)' 'ns::Square::area() const' \
              'area_of(ns::Shape const&)'; do
    if ! grep -qF -- "$want" "$file.plain"; then
      echo "FAIL: $name has no '$want'"; fail=1
    fi
  done
  if grep -qE '(^|[^A-Za-z0-9_])_Z[A-Z0-9]' "$file"; then
    echo "FAIL: $name holds a mangled name:"; grep -m3 -oE '_Z[A-Za-z0-9_]+' "$file"; fail=1
  fi
}
"$fr" account "$trace" >"$work/account.txt" 2>/dev/null;  check account "$work/account.txt"
"$fr" stack "$trace" >"$work/stack.txt" 2>/dev/null;      check stack "$work/stack.txt"
"$fr" dump "$trace" >"$work/dump.txt" 2>/dev/null;        check dump "$work/dump.txt"
for f in chrome folded yaml; do
  "$fr" convert "$trace" --format $f -o "$work/out.$f" 2>/dev/null
  check "convert $f" "$work/out.$f"
done
# Weighted by calls: by time, a short call (area_of) may be narrower than the SVG draws.
"$fr" convert "$trace" --format svg --weight calls -o "$work/out.svg" 2>/dev/null
check "convert svg" "$work/out.svg"
# Known counts: Box<long>::get 10+5 times, sum_boxes twice, Square::area once.
for pair in '15|ns::Box<long>::get(int) const' '2|sum_boxes(int)' '1|ns::Square::area() const'; do
  n=${pair%%|*} f=${pair#*|}
  got=$(awk -v f="$f" '{ if (substr($0, length($0) - length(f) + 1) == f) { print $1; exit } }' \
        "$work/account.txt")
  [ "$got" = "$n" ] || { echo "FAIL: account: $f called '$got' times, want $n"; fail=1; }
done
# replay writes a C++ name as a call as it is (it has its parameter list): "sum_boxes(int) {"
# and "ns::Square::area() const;", never "sum_boxes(int)() {" (a call of what it returns).
"$fr" replay "$trace" >"$work/replay.txt" 2>/dev/null;    check replay "$work/replay.txt"
grep -qE '\| +sum_boxes\(int\)( \{|;)' "$work/replay.txt" ||
  { echo "FAIL: replay: no 'sum_boxes(int) {' nor 'sum_boxes(int);' line"; fail=1; }
grep -qF 'ns::Square::area() const;' "$work/replay.txt" ||
  { echo "FAIL: replay: no 'ns::Square::area() const;' line"; fail=1; }
# (a call operator without parameters is "operator()()" as demangled)
sed 's/operator()()/operator_call()/g' "$work/replay.txt" >"$work/replay_calls.txt"
if grep -qE '\)\(\)( \{|;)' "$work/replay_calls.txt"; then
  echo "FAIL: replay: a C++ name with '()' added:"
  grep -m3 -E '\)\(\)( \{|;)' "$work/replay_calls.txt"; fail=1
fi
# --demangle=simple: no template arguments nor parameter lists, the counts unchanged;
# --demangle=no: the names as linked; on every command that names functions.
"$fr" account "$trace" --demangle=simple >"$work/account_simple.txt" 2>/dev/null
for pair in '15|ns::Box::get' '2|sum_boxes' '1|ns::Square::area'; do
  n=${pair%%|*} f=${pair#*|}
  got=$(awk -v f="$f" '$NF == f { print $1; exit }' "$work/account_simple.txt")
  [ "$got" = "$n" ] || { echo "FAIL: account --demangle=simple: $f called '$got' times, want $n"; fail=1; }
done
if grep -qE '[<(]' <(sed 's/(anonymous namespace)//g; s/operator()//g' "$work/account_simple.txt"); then
  echo "FAIL: account --demangle=simple: template arguments or parameters left:"
  grep -m3 -E '[<(]' "$work/account_simple.txt"; fail=1
fi
"$fr" account "$trace" --demangle no >"$work/account_no.txt" 2>/dev/null
grep -qE ' _ZNK2ns3BoxIlE3getEi$' "$work/account_no.txt" ||
  { echo "FAIL: account --demangle no: no '_ZNK2ns3BoxIlE3getEi'"; fail=1; }
# (outputs go to files: `| grep -q` stops reading at its match, and under pipefail the
# writer's SIGPIPE would fail the check)
"$fr" replay "$trace" --demangle=simple >"$work/replay_simple.txt" 2>/dev/null
grep -qE '\| +sum_boxes\(\)( \{|;)' "$work/replay_simple.txt" ||
  { echo "FAIL: replay --demangle=simple: no 'sum_boxes() {' line"; fail=1; }
"$fr" stack "$trace" -f folded --demangle=simple >"$work/stack_simple.txt" 2>/dev/null
grep -qE '(^|;)sum_boxes;ns::Box::get [0-9]+$' "$work/stack_simple.txt" ||
  { echo "FAIL: stack -f folded --demangle=simple: no 'sum_boxes;ns::Box::get' stack"; fail=1; }
"$fr" convert "$trace" -f folded --demangle=simple -o "$work/folded_simple.txt" 2>/dev/null
grep -qE '(^|;)sum_boxes;ns::Box::get [0-9]+$' "$work/folded_simple.txt" ||
  { echo "FAIL: convert -f folded --demangle=simple: no 'sum_boxes;ns::Box::get' stack"; fail=1; }
"$fr" dump "$trace" --demangle=simple --function ns::Box::get >"$work/dump_simple.txt" 2>/dev/null
[ "$(grep -cE ' enter +[0-9]+ ns::Box::get$' "$work/dump_simple.txt")" = 15 ] || { echo "FAIL: dump --demangle=simple --function ns::Box::get: not 15 enters"; fail=1; }
"$fr" graph "$trace" --demangle=simple >"$work/graph_simple.txt" 2>/dev/null
grep -q 'label="ns::Box::get' "$work/graph_simple.txt" ||
  { echo "FAIL: graph --demangle=simple: no ns::Box::get node"; fail=1; }
for args in "account --demangle=x" "replay --demangle" "convert -f chrome --demangle=Full" "dump --demangle="; do
  set +e; "$fr" ${args%% *} "$trace" ${args#* } >/dev/null 2>"$work/err.txt"; rc=$?; set -e
  [ $rc = 2 ] && grep -q demangle "$work/err.txt" ||
    { echo "FAIL: $args: exit $rc, want 2 naming --demangle: $(cat "$work/err.txt")"; fail=1; }
done
set +e; "$fr" info "$trace" --demangle=simple >/dev/null 2>&1; rc=$?; set -e
[ $rc = 2 ] || { echo "FAIL: info --demangle=simple (names nothing): exit $rc, want 2"; fail=1; }
# --filter by C++ names as people write them (clang's sleds, gcc's hooks: issue 24):
# simple ('ns::Box*'), in full, or two items around a "::" that is no separator. Before,
# only the linked names matched ("patch=ns::Box*" split at its colons: nothing traced),
# and gcc's hooks recorded every function whatever the filter.
if true; then
  for pair in 'ns::Box*|15|ns::Box<long>::get(int) const' \
              'ns::Box<long>::get(int) const|15|ns::Box<long>::get(int) const' \
              'sum_boxes:ns::Square::area|2|sum_boxes(int)'; do
    pat=${pair%%|*} rest=${pair#*|}; n=${rest%%|*} f=${rest#*|}
    "$fr" record -o "$work/filter.fr" --filter "$pat" -- "$prog" >/dev/null 2>"$work/filter.err"
    grep -q "matches no\|selects no" "$work/filter.err" && { echo "FAIL: --filter '$pat' matched nothing"; fail=1; }
    "$fr" account "$work/filter.fr" >"$work/filter.txt" 2>/dev/null
    got=$(awk -v f="$f" '{ if (substr($0, length($0) - length(f) + 1) == f) { print $1; exit } }' \
          "$work/filter.txt")
    [ "$got" = "$n" ] || { echo "FAIL: --filter '$pat': $f called '$got' times, want $n"; fail=1; }
  done
  # only what was asked for: ns::Box* leaves sum_boxes out
  "$fr" record -o "$work/filter.fr" --filter 'ns::Box*' -- "$prog" >/dev/null 2>&1
  "$fr" account "$work/filter.fr" 2>/dev/null | grep -q 'sum_boxes' &&
    { echo "FAIL: --filter 'ns::Box*' traced sum_boxes too"; fail=1; }
fi
# An explicit --binary: names from its symbols, still demangled.
"$fr" account "$trace" --binary "$prog" >"$work/account_bin.txt" 2>/dev/null
check "account --binary" "$work/account_bin.txt"
[ $fail = 0 ] && echo "PASS ($mode)"
exit $fail
