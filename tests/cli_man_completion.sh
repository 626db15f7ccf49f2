#!/usr/bin/env bash
# cli_man_completion.sh - the man pages and the bash and zsh completions (issue 13): every
# page renders with `man -l` without a groff warning and holds its command's synopsis and
# every option its --help names; the pages and the completions are what man/generate.py
# makes from the current binary's --help (no drift); the bash completion loads in bash and
# completes commands and options; the zsh one is found by compinit and offers what the
# bash one offers. Skipped (77) without man or zsh, once every other check has passed.
# usage: cli_man_completion.sh FLIGHTREC GENERATED_DIR(build/man) GENERATE_PY
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish
fr=$1 gen=$2 generate=$3
command -v man >/dev/null || { echo "SKIP: man not installed (scripts/deps.sh installs man-db)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT

python3 "$generate" "$fr" "$work/man1" "$work/completion" || { echo "FAIL: generate.py"; exit 1; }
diff -r "$gen/man1" "$work/man1" >/dev/null || fail "the built man pages differ from the current --help's"
cmp -s "$gen/completion/flightrec" "$work/completion/flightrec" || fail "the built bash completion differs from the current --help's"
cmp -s "$gen/completion/_flightrec" "$work/completion/_flightrec" || fail "the built zsh completion differs from the current --help's"

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
  # an option that takes one of a few words completes them, not file names
  mkdir -p "$2/values" && cd "$2/values" || exit 1   # files that start like the values
  touch csv_file self.txt
  bad=0
  expect() { local want=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _flightrec
    [ "${COMPREPLY[*]}" = "$want" ] || { echo "${COMP_WORDS[*]}<TAB>: \"${COMPREPLY[*]}\", want \"$want\""; bad=1; }; }
  expect "text csv json" flightrec account --format ""
  expect "csv" flightrec account -f c
  expect "calls total self min median p90 p99 max function" flightrec account --sort ""
  expect "self" flightrec stack --sort se
  expect "chrome folded svg yaml perfetto" flightrec convert t.fr --format ""
  expect "time calls" flightrec convert t.fr --weight ""
  expect "simple" flightrec replay --demangle = s
  expect "overwrite discard" flightrec record --policy ""
  expect "csv_file" flightrec account c
  exit $bad
' _ "$gen/completion/flightrec" "$work" || fail "bash completion"

# zsh: the completion registers itself with compinit (#compdef) from an fpath folder,
# and offers at each place what the bash completion offers: the same commands, the same
# options per command (parsed from the bash script's case arms), files, and after
# record's "--" the completion of a command line. zsh's own matching is left to zsh:
# _describe, _files and _normal are replaced by stubs that print what they are given.
if command -v zsh >/dev/null; then
  bash_opts() { sed -n "s/^        $1) opts=\"\(.*\)\" ;;\$/\1/p" "$gen/completion/flightrec" | tr ' ' '\n' | sort; }
  mkdir -p "$work/fpath" && cp "$gen/completion/_flightrec" "$work/fpath/"
  zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -d "$2/zcompdump" &&
             [[ $_comps[flightrec] == _flightrec ]]' _ "$work/fpath" "$work" ||
    fail "zsh: compinit does not find _flightrec for flightrec in fpath"
  zcomplete() {   # zcomplete WORD... : what _flightrec offers for the last word, sorted
    zsh -f -c '
      _describe() { local n=${@[-1]}; print -rl -- ${${(P)n}%%:*}; }
      _files() { print -r -- "<files>"; }
      _normal() { print -r -- "<command line: $CURRENT ${words[*]}>"; }
      source "$1" >/dev/null; shift
      words=("$@"); CURRENT=$#; _flightrec' _ "$gen/completion/_flightrec" "$@" | sort
  }
  [ "$(zcomplete flightrec '')" = "$(printf '%s\n' $commands | sort)" ] ||
    fail "zsh: flightrec <TAB> offers $(zcomplete flightrec '' | tr '\n' ' '), not the commands of --help"
  [ "$(zcomplete flightrec - | tr '\n' ' ')" = "--help --version " ] || fail "zsh: flightrec -<TAB>: $(zcomplete flightrec -)"
  for c in $commands; do
    z=$(zcomplete flightrec "$c" -) b=$(bash_opts "$c")
    [ -n "$b" ] && [ "$z" = "$b" ] || fail "zsh: flightrec $c -<TAB> offers $(echo $z), bash $(echo $b)"
  done
  [ "$(zcomplete flightrec account --format '' | tr '\n' ' ')" = "csv json text " ] ||
    fail "zsh: flightrec account --format <TAB>: $(zcomplete flightrec account --format '')"
  [ "$(zcomplete flightrec account tr)" = "<files>" ] || fail "zsh: flightrec account tr<TAB>: $(zcomplete flightrec account tr)"
  [ "$(zcomplete flightrec record -o t.fr -- ls -)" = "<command line: 2 ls ->" ] ||
    fail "zsh: flightrec record -o t.fr -- ls -<TAB>: $(zcomplete flightrec record -o t.fr -- ls -)"
elif [ $status = 0 ]; then
  echo "SKIP: zsh not installed, the zsh completion is not checked (scripts/deps.sh installs zsh)"
  exit 77
fi

finish "ok: man pages render, match --help, bash and zsh completions work"
