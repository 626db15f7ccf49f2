#!/bin/sh
# program_bench.sh FLIGHTREC WORKDIR [ROUNDS]
# A real third-party C program, every function instrumented, traced whole (issue 23):
# Lua 5.4, Debian's source, built twice with clang -O2: plain, and with XRay sleds in
# every function (-fxray-instruction-threshold=1, compiler-rt's runtime linked, as a
# user's build would be). It runs bench/program_bench.lua (recursion, tables, sorting,
# strings: about 32 M calls of Lua's own C functions) as:
#   plain                  the build without sleds
#   sleds, unpatched       the sled build, nothing tracing it
#   flightrec record       `flightrec record -o FILE -- lua-xray ...`, default options
#                          (every call recorded into the overwrite pool; trace written)
#   compiler-rt XRay FDR   XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr",
#                          XRAY_FDR_OPTIONS=func_duration_threshold_us=0 (every call
#                          recorded, as flightrec does; its default, 5, drops short ones)
# ROUNDS rounds (default 5), each running every variant once in turn; each keeps its
# minimum CPU time (user + sys of the process and its children, from wait4: the whole
# program; Lua runs one thread). Prints the slowdown of each against
# plain, and flightrec's against compiler-rt's (target: less, MET or MISSED).
# Source: $LUA_TARBALL (lua-5.4.*.tar.gz or Debian's lua5.4_*.orig.tar.gz) if set, else
# one in WORKDIR, else fetched with `apt-get source --download-only lua5.4` from the
# Debian archive with a private deb-src list (no change to the system's apt).
set -eu
fr=$1 work=$2 rounds=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"
work=$(cd "$work" && pwd)
tarball=${LUA_TARBALL:-}
[ -n "$tarball" ] || tarball=$(ls "$work"/lua5.4_*.orig.tar.gz 2>/dev/null | head -n 1 || true)
if [ -z "$tarball" ]; then
  echo "fetching Lua 5.4's source from Debian's archive (apt-get source lua5.4)"
  apt_dir=$work/apt
  mkdir -p "$apt_dir/lists/partial"
  cat >"$apt_dir/src.sources" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  set -- -o Dir::Etc::SourceList="$apt_dir/src.sources" -o Dir::Etc::SourceParts=/dev/null \
         -o Dir::State::Lists="$apt_dir/lists"
  if ! apt-get "$@" update >"$apt_dir/log" 2>&1 ||
     ! (cd "$work" && apt-get "$@" source --download-only lua5.4 >>"$apt_dir/log" 2>&1); then
    echo "program_bench: cannot get Lua's source (set LUA_TARBALL to a lua-5.4 tarball); apt-get said:" >&2
    tail -n 5 "$apt_dir/log" >&2
    exit 1
  fi
  tarball=$(ls "$work"/lua5.4_*.orig.tar.gz | head -n 1)
fi
rm -rf "$work/src" && mkdir -p "$work/src"
tar -xzf "$tarball" -C "$work/src" --strip-components=1
srcs=$(ls "$work"/src/src/*.c | grep -v '/luac\.c$')
# shellcheck disable=SC2086  # (srcs: a list of paths without spaces)
clang -O2 -DLUA_USE_LINUX $srcs -o "$work/lua-plain" -lm -ldl
# shellcheck disable=SC2086
clang -O2 -DLUA_USE_LINUX -fxray-instrument -fxray-instruction-threshold=1 $srcs \
      -o "$work/lua-xray" -lm -ldl
script=$here/program_bench.lua
expect=$("$work/lua-plain" "$script")
echo "Lua $(basename "$tarball"), $(ls "$work"/src/src/*.c | wc -l) files; load $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs"
run() { # NAME COMMAND...: one run, its CPU time kept at its minimum in $work/NAME.min
  name=$1; shift
  /usr/bin/time -f "%U %S" -o "$work/$name.time" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
    echo "program_bench: $name failed:" >&2; cat "$work/$name.err" >&2; exit 1; }
  [ "$(head -n 1 "$work/$name.out")" = "$expect" ] || {
    echo "program_bench: $name printed '$(head -n 1 "$work/$name.out")', not '$expect'" >&2; exit 1; }
  t=$(awk '{ print $1 + $2 }' "$work/$name.time")
  if [ -f "$work/$name.min" ]; then
    awk -v a="$(cat "$work/$name.min")" -v v="$t" 'BEGIN { print (v < a) ? v : a }' >"$work/$name.min.new"
    mv "$work/$name.min.new" "$work/$name.min"
  else
    echo "$t" >"$work/$name.min"
  fi
}
rm -f "$work"/*.min
i=0
while [ $i -lt "$rounds" ]; do
  run plain env -u XRAY_OPTIONS "$work/lua-plain" "$script"
  run unpatched env -u XRAY_OPTIONS "$work/lua-xray" "$script"
  run flightrec env -u XRAY_OPTIONS -u FLIGHTREC_OPTIONS "$fr" record -o "$work/trace.fr" -- "$work/lua-xray" "$script"
  run compiler_rt env XRAY_OPTIONS="patch_premain=true xray_mode=xray-fdr" \
      XRAY_FDR_OPTIONS=func_duration_threshold_us=0 "$work/lua-xray" "$script"
  i=$((i + 1))
done
"$fr" info "$work/trace.fr" | awk '/^records written:/ { k = $3 } /^records dropped:/ { d = $3 }
  END { printf "flightrec, last run: %d records kept, %d overwritten by newer ones (the default pool)\n", k, d }'
plain=$(cat "$work/plain.min")
printf '%-28s %9s %9s\n' "variant (best of $rounds)" "CPU s" "vs plain"
for v in plain unpatched flightrec compiler_rt; do
  awk -v n="$v" -v t="$(cat "$work/$v.min")" -v p="$plain" 'BEGIN { printf "%-28s %9.3f %8.2fx\n", n, t, t / p }'
done
awk -v f="$(cat "$work/flightrec.min")" -v c="$(cat "$work/compiler_rt.min")" -v p="$plain" 'BEGIN {
  ok = (f < c)
  printf "slowdown: flightrec %.2fx, compiler-rt FDR %.2fx: %.2fx less (target: less) %s\n",
         f / p, c / p, c / f, ok ? "MET" : "MISSED" }'
