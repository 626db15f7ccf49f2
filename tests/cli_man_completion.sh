#!/usr/bin/env bash
# cli_man_completion.sh - the man pages and the bash completion (issue 13): every page
# renders with `man -l` without a groff warning and holds its command's synopsis and
# every option its --help names; the pages and the completion are what man/generate.py
# makes from the current binary's --help (no drift); the completion loads in bash and
# completes commands and options.
# usage: cli_man_completion.sh FLIGHTREC GENERATED_DIR(build/man) GENERATE_PY
set -uo pipefail
fr=$1 gen=$2 generate=$3
command -v man >/dev/null || { echo "SKIP: man not installed (scripts/deps.sh installs man-db)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
status=0
fail() { echo "FAIL: $*"; status=1; }

python3 "$generate" "$fr" "$work/man1" "$work/completion" || { echo "FAIL: generate.py"; exit 1; }
diff -r "$gen/man1" "$work/man1" >/dev/null || fail "the built man pages differ from the current --help's"
cmp -s "$gen/completion/flightrec" "$work/completion/flightrec" || fail "the built completion differs from the current --help's"

commands=$("$fr" --help | sed -n 's/^  \([a-z-]*\)  .*/\1/p')
[ "$(echo "$commands" | wc -w)" -ge 9 ] || fail "commands found in flightrec --help: $commands"
for page in flightrec $(for c in $commands; do echo "flightrec-$c"; done); do
  f=$gen/man1/$page.1
  [ -f "$f" ] || { fail "no $page.1"; continue; }
  warnings=$(MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
  [ -z "$warnings" ] || fail "$page.1: $warnings"
  MANWIDTH=200 man -l "$f" 2>/dev/null | col -b >"$work/page.txt"
  grep -q "^NAME" "$work/page.txt" && grep -q "^SYNOPSIS" "$work/page.txt" || fail "$page.1 has no NAME/SYNOPSIS"
  if [ "$page" != flightrec ]; then
    c=${page#flightrec-}
    "$fr" "$c" --help >"$work/help.txt"
    for opt in $(sed -n 's/^  \(-[^ ].*\)/\1/p' "$work/help.txt" | grep -o -- '--\?[a-z][a-z-]*' | sort -u); do
      grep -q -- "$opt" "$work/page.txt" || fail "$page.1 lacks $opt"
    done
  fi
done

bash --norc --noprofile -c '
  source "$1" || exit 1
  complete -p flightrec >/dev/null || { echo "no completion for flightrec"; exit 1; }
  COMP_WORDS=(flightrec acc); COMP_CWORD=1; _flightrec
  [ "${COMPREPLY[*]}" = account ] || { echo "flightrec acc<TAB>: ${COMPREPLY[*]}"; exit 1; }
  COMP_WORDS=(flightrec account --so); COMP_CWORD=2; _flightrec
  [ "${COMPREPLY[*]}" = --sort ] || { echo "flightrec account --so<TAB>: ${COMPREPLY[*]}"; exit 1; }
  COMP_WORDS=(flightrec record --buf); COMP_CWORD=2; _flightrec
  [ "${COMPREPLY[*]}" = "--buffer-size --buffers" ] || { echo "flightrec record --buf<TAB>: ${COMPREPLY[*]}"; exit 1; }
' _ "$gen/completion/flightrec" || fail "bash completion"

[ $status = 0 ] && echo "ok: man pages render, match --help, completion works"
exit $status
