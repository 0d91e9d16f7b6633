#!/usr/bin/env bash
# reftab help, <command> -h, the man page and the bash completion, checked against the command
# table: every command has a git-style usage (stdout, exit 0), an entry in cli/reftab.1, and
# the completion offers the commands, a command's options and ref names.
# Usage: help_test.sh REFTAB MANPAGE COMPLETION
set -u
reftab=$(realpath "$1"); man_page=$2; completion=$3
fails=0 checks=0
check() {  # check DESCRIPTION COMMAND...: the command must succeed
  checks=$((checks + 1))
  if ! "${@:2}"; then echo "FAILED: $1"; fails=$((fails + 1)); fi
}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cmds=$("$reftab" help --commands) || { echo "help --commands failed"; exit 1; }
[ -n "$cmds" ] || { echo "no commands listed"; exit 1; }
for c in $cmds; do
  for form in "help $c" "$c -h" "$c --help"; do
    # shellcheck disable=SC2086
    "$reftab" $form >"$tmp/out" 2>"$tmp/err"; rc=$?
    check "$form exits 0" [ "$rc" = 0 ]
    check "$form prints usage: reftab $c on stdout" grep -q "^usage: reftab $c" "$tmp/out"
    check "$form prints nothing on stderr" [ ! -s "$tmp/err" ]
  done
  check "reftab.1 has an entry for $c" grep -q "^\.SS \"$(printf '%s' "$c" | sed 's/-/\\\\-/g')[ \"]" "$man_page"
done
"$reftab" help nosuch >/dev/null 2>&1; check "help of an unknown command exits 129" [ $? = 129 ]
# reftab's own commands word option errors as git's parse-options does, with exit 129.
"$reftab" dump --bogus >"$tmp/out" 2>"$tmp/err"; rc=$?
check "dump --bogus exits 129" [ "$rc" = 129 ]
check "dump --bogus says git's words" grep -qx "error: unknown option \`bogus'" "$tmp/err"
check "dump --bogus shows dump's usage" grep -q '^usage: reftab dump' "$tmp/err"
"$reftab" stats --format >/dev/null 2>"$tmp/err"
check "an option missing its value is named" grep -qx "error: option \`format' requires a value" "$tmp/err"
"$reftab" write-table -x >/dev/null 2>"$tmp/err"
check "an unknown switch is named" grep -qx "error: unknown switch \`x'" "$tmp/err"
"$reftab" help >"$tmp/out"; check "help alone prints the overview" grep -q '^usage: reftab' "$tmp/out"
for c in $cmds; do
  check "the overview lists $c once" [ "$(grep -c "^   $c " "$tmp/out")" = 1 ]
done
check "the overview lists only commands" \
  [ "$(grep -c '^   [a-z]' "$tmp/out")" = "$(printf '%s\n' $cmds | wc -l)" ]
# A mistyped command: git's message, suggestions and status (1).
"$reftab" show-refs >"$tmp/out" 2>"$tmp/err"; rc=$?
check "a mistyped command exits 1" [ "$rc" = 1 ]
printf '%s\n' "reftab: 'show-refs' is not a reftab command. See 'reftab --help'." "" \
  "The most similar command is" "$(printf '\tshow-ref')" >"$tmp/want"
check "a mistyped command gets git's suggestion" cmp -s "$tmp/want" "$tmp/err"
check "a mistyped command prints nothing on stdout" [ ! -s "$tmp/out" ]
"$reftab" xyzzy 2>"$tmp/err"; rc=$?
check "an unknown command far from any exits 1 without suggestions" \
  [ "$rc" = 1 -a "$(wc -l <"$tmp/err")" = 1 ]
for opt in --git-dir --stack; do
  "$reftab" $opt 2>"$tmp/err"; rc=$?
  check "$opt without a value exits 129" [ "$rc" = 129 ]
  check "$opt without a value says so" grep -qx "no directory given for '$opt' option" "$tmp/err"
done
"$reftab" -c 2>"$tmp/err"; rc=$?
check "-c without a value exits 129" [ "$rc" = 129 ]
check "-c without a value says so" grep -qx -- "-c expects a configuration string" "$tmp/err"
"$reftab" --version >"$tmp/out"; check "--version prints the version" grep -qx 'reftab version [0-9.]*' "$tmp/out"

if command -v man >/dev/null && man --help 2>&1 | grep -q -- --warnings; then
  MANWIDTH=100 man --warnings -l "$man_page" >/dev/null 2>"$tmp/warn"
  check "the man page renders without warnings ($(head -2 "$tmp/warn"))" [ ! -s "$tmp/warn" ]
fi

# Every long option the usages list is in the man page: each command's (reftab help <cmd>)
# and each subcommand's (the words after "reftab <cmd>" in its usage lines, <cmd> <sub> -h,
# run on an empty --stack since reflog's need a ref store), --[no-]name read as --name; then
# the options the usages leave out (reftab's own, and git's hidden ones).
mkdir -p "$tmp/empty"
for c in $cmds; do
  "$reftab" help "$c" >"$tmp/usage.$c" 2>/dev/null
  subs=$(sed -nE "s/^ *(usage|or): reftab $c \[?([a-z][a-z-]*)(\]| |\$).*/\2/p" "$tmp/usage.$c" |
         sort -u)
  for s in $subs; do
    "$reftab" --stack "$tmp/empty" "$c" "$s" -h >"$tmp/usage.$c.$s" 2>/dev/null; rc=$?
    check "$c $s -h exits 0" [ "$rc" = 0 ]
    check "$c $s -h prints usage: reftab $c" grep -q "^usage: reftab $c" "$tmp/usage.$c.$s"
  done
done
if command -v man >/dev/null; then
  # Rendered once, lines joined, with the hyphenation at line ends undone (U+2010 in a UTF-8
  # locale, '-' after a letter in an ASCII one; groff never breaks after an option's \-).
  MANWIDTH=200 env -u MAN_KEEP_FORMATTING man -l "$man_page" 2>/dev/null | sed 's/.\x08//g' |
    LC_ALL=C awk -v hy="$(printf '\342\200\220')" '
      { sub(/^[ \t]+/, ""); n = length($0) }
      substr($0, n - 2) == hy { printf "%s", substr($0, 1, n - 3); next }
      /[a-z]-$/ { printf "%s", substr($0, 1, n - 1); next }
      { printf "%s ", $0 }' >"$tmp/man.txt"
  in_man() { grep -qE -- "(^|[^a-z0-9-])$1([^a-z0-9-]|\$)" "$tmp/man.txt"; }
  check "the man page renders to text" [ -s "$tmp/man.txt" ]
  for f in "$tmp"/usage.*; do
    what=${f#"$tmp/usage."}; what=${what/./ }
    while read -r opt; do
      check "reftab.1 describes $what's $opt" in_man "$opt"
    done < <(grep -oE -- '--(\[no-\])?[a-z0-9][a-z0-9-]*' "$f" | sed 's/^--\[no-\]/--/' | sort -u)
  done
  for opt in --progress --no-progress --skip-unmigratable --heads --pretty --oneline \
             --abbrev-commit; do
    check "reftab.1 describes $opt, which no usage lists" in_man "$opt"
  done
else
  echo "man not found: not checking that the man page describes every option"
fi

# Completion, with this reftab first on PATH and a bare stack holding two refs.
mkdir -p "$tmp/bin" "$tmp/stack"; ln -s "$reftab" "$tmp/bin/reftab"
id=1111111111111111111111111111111111111111
"$reftab" --stack "$tmp/stack" update-ref refs/heads/main $id >/dev/null 2>&1
"$reftab" --stack "$tmp/stack" update-ref refs/tags/v1.0 $id >/dev/null 2>&1
comp() {  # comp WORD...: COMPREPLY for the last word, one per line
  (PATH=$tmp/bin:$PATH
   # shellcheck disable=SC1090
   source "$completion"
   COMP_WORDS=(reftab "$@"); COMP_CWORD=$#
   _reftab; printf '%s\n' "${COMPREPLY[@]}")
}
check "completes command names" grep -qx reflog <(comp re)
check "completes help's command names" grep -qx for-each-ref <(comp help for)
check "completes a command's options" grep -qx -- --max-count= <(comp reflog show --max)
check "completes reflog's subcommands" grep -qx expire <(comp reflog ex)
check "completes short ref names" grep -qx main <(comp --stack "$tmp/stack" show-ref ma)
check "completes full ref names" grep -qx refs/tags/v1.0 <(comp --stack "$tmp/stack" reflog show refs/t)
check "completes HEAD" grep -qx HEAD <(comp --stack "$tmp/stack" reflog show H)
check "completes refs' subcommands" grep -qx migrate <(comp refs m)
check "completes refs' subcommands, not ref names" [ -z "$(comp --stack "$tmp/stack" refs ma)" ]
check "completes a subcommand's options" grep -qx -- --ref-format= <(comp refs migrate --ref)
check "completes refs rename" grep -qx rename <(comp refs ren)
check "completes refs create's options" grep -qx -- --create-reflog <(comp refs create --cr)
check "completes --sort keys" grep -qx -- --sort=committerdate <(comp for-each-ref --sort=committerd)
check "completes --sort keys, descending" grep -qx -- --sort=-refname <(comp for-each-ref --sort=-refn)
check "completes --sort keys after bash's split at =" grep -qx refname <(comp for-each-ref --sort = refn)
check "completes format atoms" grep -qx -- '--format=%(refname) %(objectname)' \
  <(comp for-each-ref '--format=%(refname) %(objectn')

echo "checks $checks, failed $fails"
[ "$fails" = 0 ]
