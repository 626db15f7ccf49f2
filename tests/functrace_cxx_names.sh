#!/usr/bin/env bash
# functrace_cxx_names.sh - C++ names demangled in every output (issue 10).
# usage: functrace_cxx_names.sh FLIGHTREC PROGRAM WORKDIR [gcc]
# Records PROGRAM (tests/progs/functrace_cxx_names.cpp built with clang XRay, or, with
# "gcc", built here with g++ -finstrument-functions) and checks that account, stack,
# dump, replay and convert chrome/folded/svg/yaml name the functions demangled, with the
# program's known call counts, and that no output holds a mangled name.
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
if sed 's/operator()()/operator_call()/g' "$work/replay.txt" | grep -qE '\)\(\)( \{|;)'; then
  echo "FAIL: replay: a C++ name with '()' added:"
  sed 's/operator()()/operator_call()/g' "$work/replay.txt" | grep -m3 -E '\)\(\)( \{|;)'; fail=1
fi
# An explicit --binary: names from its symbols, still demangled.
"$fr" account "$trace" --binary "$prog" >"$work/account_bin.txt" 2>/dev/null
check "account --binary" "$work/account_bin.txt"
[ $fail = 0 ] && echo "PASS ($mode)"
exit $fail
