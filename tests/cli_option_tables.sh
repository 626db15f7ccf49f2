#!/usr/bin/env bash
# cli_option_tables.sh - the commands' option tables (src/cli/cli_options.h), their --help,
# man pages and shell completions cannot drift: every option of a table is in its
# command's --help (as an item: "  -x, --long ..."), in its man page, and offered by the
# bash and the zsh completion for that command; and every --option the help names (its
# synopsis, its text) is one of the table's. Every command has a table.
# usage: cli_option_tables.sh FLIGHTREC CLI_OPTION_TABLES GENERATED_DIR(build/man)
set -uo pipefail
. "$(dirname "$0")/frtest.sh"   # fail, expect_rc, finish "every option of the tables is in --help, the man pages and the completions"
fr=$1 tables=$2 gen=$3
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$tables" >"$work/tables.txt" || { echo "FAIL: $tables"; exit 1; }
[ "$(wc -l <"$work/tables.txt")" -ge 40 ] || fail "only $(wc -l <"$work/tables.txt") options in the tables"
for c in $(awk '/no table/{print $1}' "$work/tables.txt"); do fail "$c has no option table"; done
bash_completion=$gen/completion/flightrec zsh_completion=$gen/completion/_flightrec
[ -f "$bash_completion" ] && [ -f "$zsh_completion" ] || fail "no generated completions in $gen"

for c in $(awk '!/no table/{print $1}' "$work/tables.txt" | uniq); do
  "$fr" "$c" --help >"$work/help.txt" || fail "$c --help: exit $?"
  bash_opts=" $(sed -n "s/^        $c) opts=\"\(.*\)\" ;;\$/\1/p" "$bash_completion") "
  # the zsh completion's arm for the command: from "($c)" to its ";;"
  sed -n "/^        $c)\$/,/;;/p" "$zsh_completion" >"$work/zsh.txt"
  man_page=$gen/man1/flightrec-$c.1
  while read -r long short; do
    if [ -n "$short" ]; then item="^  $short, $long\\b"; else item="^  $long\\b"; fi
    grep -q -- "$item" "$work/help.txt" || fail "$c $long: not an item of $c --help"
    for o in $long $short; do
      [[ $bash_opts == *" $o "* ]] || fail "$c $o: not offered by the bash completion"
      grep -q -- "'$o[:']" "$work/zsh.txt" || fail "$c $o: not offered by the zsh completion"
      grep -qF -- "${o//-/\\-}" "$man_page" || fail "$c $o: not in $man_page"
    done
  done < <(awk -v c="$c" '$1 == c {print $2, $3}' "$work/tables.txt")
  # every --option the help names is one of the table's (or an alias: --colour)
  for o in $(grep -o -- '--[a-z][a-z-]*' "$work/help.txt" | sort -u); do
    grep -q -- "^$c $o\\b" "$work/tables.txt" || fail "$c --help names $o, which is not in its table"
  done
done
finish "every option of the tables is in --help, the man pages and the completions"
