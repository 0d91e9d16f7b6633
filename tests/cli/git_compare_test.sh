#!/usr/bin/env bash
# reftab's update-ref against the real git, case by case: both start from copies of one
# repository, run the same command, and must agree on exit status, on the message (stderr)
# and on the refs and reflogs afterwards — as git itself lists them, on both repositories.
#
# Usage: git_compare_test.sh REFTAB [FILTER]. Needs a reftable-capable git: $REFTAB_GIT, else
# `git` on PATH if it is at least 2.45; without one it is skipped. Prints TAP (tests/cli/real_git.sh).
# Cases listed in KNOWN (below) may differ; they are counted apart and do not fail the test.
set -u
reftab=$(realpath "$1")
filter=${2:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 45 "reftable needs 2.45"

isolate_git_env
export GIT_COMMITTER_DATE='1700000000 +0100' GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_AUTHOR_DATE='1700000000 +0100'
unset GIT_TEST_REFTABLE_AUTOCOMPACTION

# The starting repository: three commits, branches with reflogs, a tag, a remote branch, a
# D/F pair (refs/heads/d/e), symrefs, HEAD on main.
T=$tmp/template
"$git" init -q -b main --ref-format=reftable "$T" || exit 1
for m in one two three; do "$git" -C "$T" commit -q --allow-empty -m "$m"; done
A=$("$git" -C "$T" rev-parse HEAD~2)
B=$("$git" -C "$T" rev-parse HEAD~1)
C=$("$git" -C "$T" rev-parse HEAD)
Z=0000000000000000000000000000000000000000
"$git" -C "$T" update-ref refs/heads/x "$A"
"$git" -C "$T" update-ref refs/heads/d/e "$A"
"$git" -C "$T" update-ref refs/tags/t1 "$B"
"$git" -C "$T" update-ref refs/remotes/origin/main "$B"
"$git" -C "$T" update-ref refs/other/o "$B"
"$git" -C "$T" symbolic-ref refs/heads/sym refs/heads/x
"$git" -C "$T" symbolic-ref refs/heads/dangling refs/heads/nowhere
"$git" -C "$T" symbolic-ref refs/heads/s2 refs/heads/sym
"$git" -C "$T" update-ref ORIG_HEAD "$B"
"$git" -C "$T" tag -a -m annotated at1 "$B"
"$git" -C "$T" worktree add -q -b wtbranch "$tmp/wt" "$B"
TAG=$("$git" -C "$T" rev-parse refs/tags/at1)
TREE=$("$git" -C "$T" rev-parse "$C^{tree}")
MISSING=1111111111111111111111111111111111111111
# Deleted names that stay in the stack as tombstones (refs/heads/gone/*, with a live
# refs/heads/gone2 after them): the conflict checks must see through them.
printf 'create refs/heads/gone/a %s\ncreate refs/heads/gone/b/c %s\ncreate refs/heads/gone2 %s\n' \
  "$A" "$A" "$A" | GIT_TEST_REFTABLE_AUTOCOMPACTION=false "$git" -C "$T" update-ref --stdin
printf 'delete refs/heads/gone/a\ndelete refs/heads/gone/b/c\n' |
  GIT_TEST_REFTABLE_AUTOCOMPACTION=false "$git" -C "$T" update-ref --stdin

CASE_ENV=()
CASE_GITDIR=.git  # the git directory of a case, inside the repository copy

# git's view of a repository: every ref (root refs too), the reflogs of all of them plus the
# case's own names, and whether those names resolve.
state() {
  local d=$1; shift
  "$git" --git-dir="$d" for-each-ref --include-root-refs \
    --format='%(refname) %(objectname) %(symref)' 2>&1; echo "rc=$?"
  local refs
  refs=$("$git" --git-dir="$d" reflog list 2>&1)
  echo "reflogs: $refs"
  for r in $refs "$@"; do
    echo "== $r"
    "$git" --git-dir="$d" reflog show --date=raw --format='%gD|%H|%gn|%ge|%gs' "$r" -- 2>/dev/null
    "$git" --git-dir="$d" rev-parse --verify -q "$r" 2>/dev/null
    "$git" --git-dir="$d" symbolic-ref -q "$r" 2>/dev/null
  done
  # The raw reflog records (old ids and exact messages, which git's porcelain does not show),
  # read by reftab's table reader without update indices (which depend on table layout).
  # Live ref records too: value types and peeled ids.
  "$reftab" --git-dir "$d" dump --format=jsonl 2>&1 | grep -E '"type":"(log|ref)"' |
    grep -v '"value_type":0' | sed 's/"update_index":[0-9]*,//'
  # Every linked worktree's own stack (worktrees/<id>/... names are written there).
  local common=$d w
  [ -f "$d/commondir" ] && common=$d/$(cat "$d/commondir")
  for w in "$common"/worktrees/*/reftable; do
    [ -d "$w" ] || continue
    echo "== stack ${w#"$common"/}"
    "$reftab" --stack "$w" dump --format=jsonl 2>&1 | grep -E '"type":"(log|ref)"' |
      grep -v '"value_type":0' | sed 's/"update_index":[0-9]*,//'
  done
}

# run_case DESC CONFIG MODE INPUT ARG... — MODE "args" runs `update-ref ARG...`; "stdin" and
# "stdin-z" feed INPUT (printf %b escapes) to `update-ref ARG... --stdin [-z]`. CONFIG is
# "key=value[;key=value]" set on both copies first. The names to inspect afterwards follow
# NAMES= in ARG... (they are not passed to update-ref).
run_case() {
  local desc=$1 config=$2 mode=$3 input=$4; shift 4
  local args=() names=() seen_names=0
  for a in "$@"; do
    if [ "$a" = NAMES= ]; then seen_names=1; continue; fi
    if [ $seen_names = 1 ]; then names+=("$a"); else args+=("$a"); fi
  done
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  local gd=$tmp/g rd=$tmp/r
  rm -rf "$gd" "$rd"
  cp -a "$T" "$gd"; cp -a "$T" "$rd"
  if [ -n "$config" ]; then
    local IFS=';'
    for kv in $config; do
      "$git" -C "$gd" config "${kv%%=*}" "${kv#*=}"
      "$git" -C "$rd" config "${kv%%=*}" "${kv#*=}"
    done
    unset IFS
  fi
  local gout gerr grc rout rerr rrc
  # CASE_ENV: extra environment for both commands ("-u NAME" unsets), as `env` takes it.
  local envp=(env "${CASE_ENV[@]}")
  case $mode in
    args)
      "${envp[@]}" "$git" --git-dir="$gd/$CASE_GITDIR" update-ref "${args[@]}" >"$tmp/go" 2>"$tmp/ge" </dev/null; grc=$?
      "${envp[@]}" "$reftab" --git-dir "$rd/$CASE_GITDIR" update-ref "${args[@]}" >"$tmp/ro" 2>"$tmp/re" </dev/null; rrc=$?
      ;;
    stdin|stdin-z)
      local z=(); [ $mode = stdin-z ] && z=(-z)
      printf '%b' "$input" | "${envp[@]}" "$git" --git-dir="$gd/$CASE_GITDIR" update-ref "${args[@]}" --stdin "${z[@]}" \
        >"$tmp/go" 2>"$tmp/ge"; grc=$?
      printf '%b' "$input" | "${envp[@]}" "$reftab" --git-dir "$rd/$CASE_GITDIR" update-ref "${args[@]}" --stdin "${z[@]}" \
        >"$tmp/ro" 2>"$tmp/re"; rrc=$?
      ;;
  esac
  text_of gerr "$tmp/ge"; text_of rerr "$tmp/re"
  text_of gout "$tmp/go"; text_of rout "$tmp/ro"
  local why=""
  [ "$grc" = "$rrc" ] || why+=" exit git=$grc reftab=$rrc;"
  # Usage texts name the program; everything else is git's wording.
  if [ "$grc" != 129 ] && [ "$gerr" != "$rerr" ]; then why+=" stderr git=[$gerr] reftab=[$rerr];"; fi
  [ "$gout" = "$rout" ] || why+=" stdout git=[$gout] reftab=[$rout];"
  # Byte-identical copies are the same repository to git; otherwise git reads both.
  if [ -n "${SHOW_STATE:-}" ] || ! same_files "$gd" "$rd"; then
    local gs rs
    gs=$(state "$gd/$CASE_GITDIR" "${names[@]}"); rs=$(state "$rd/$CASE_GITDIR" "${names[@]}")
    [ -n "${SHOW_STATE:-}" ] && printf "%s\n--- reftab:\n%s\n" "$gs" "$rs"
    [ "$gs" = "$rs" ] || why+=" state: $(diff <(echo "$gs") <(echo "$rs") | grep '^[<>]' | head -8 | tr '\n' ' ')"
  fi
  verdict "$desc" "$why"
}

# printf %b would read the backslashes of a name as escapes.
esc() { printf '%s' "${1//\\/\\\\}"; }

long=$(printf 'a%.0s' {1..200})
NAMES_TABLE=(
  # well formed
  refs/heads/new refs/heads/feature/x refs/tags/v1.0 refs/tags/v1.0.1-rc refs/heads/a.b
  'refs/heads/a-b_c+d=e,f' refs/heads/@ refs/heads/a@b 'refs/heads/@}' 'refs/heads/{x}'
  "refs/heads/!#\$%&'()" 'refs/heads/"quoted"' 'refs/heads/<>|' refs/heads/x.loc
  refs/heads/x.lockx refs/heads/lock $'refs/heads/\xc3\xa9t\xc3\xa9' $'refs/heads/\xe6\x97\xa5'
  $'refs/heads/\xf0\x9f\x98\x80' $'refs/heads/\x80\xff' "refs/heads/$long"
  "refs/heads/$long/$long/$long" refs/a refs/x/y/z/w/v/u refs/heads/-dash refs/heads/a-
  refs/heads/_ refs/heads/a.b.c refs/notes/commits refs/remotes/origin/HEAD refs/stash
  refs/bisect/bad refs/worktree/x refs/rewritten/r refs/heads/x./y refs/heads/x.LOCK
  'refs/heads/br]acket' refs/@ refs/prefetch/p refs/replace/r heads/main a/b
  # one level, root refs, pseudorefs
  HEAD ORIG_HEAD FETCH_HEAD MERGE_HEAD CHERRY_PICK_HEAD REVERT_HEAD BISECT_HEAD AUTO_MERGE
  NOTES_MERGE_REF MERGE_AUTOSTASH BISECT_EXPECTED_REV FOO FOO_BAR FOO-BAR FOO1 main lower
  x refs A_B HEAD2 head Head _ a.b '@@' $'\xc3\xa9'
  # invalid: '@', "@{", ".."
  @ 'refs/heads/@{' 'refs/heads/a@{b' 'refs/heads/@{u}' '@{' '@{-1}'
  refs/heads/a..b refs/heads/.. refs/heads/... .. refs/heads/x/..y refs/heads/y..
  # dangerous
  refs/heads/../evil refs/heads/../../x ../../x HEAD/../x refs/../x refs/heads/a/../b
  refs/heads/. refs/./heads/x ./x 'HEAD/../HEAD' refs/heads/x/. HEAD/x Refs/heads/x
  worktrees/x/HEAD main-worktree/HEAD refsx/y
  # another worktree's refs (worktree "wt" exists, "x" does not)
  worktrees/wt/HEAD worktrees/wt/refs/bisect/bad worktrees/wt/ORIG_HEAD worktrees/wt
  worktrees/wt/refs/heads/y worktrees/x/refs/bisect/b main-worktree/refs/bisect/bad
  main-worktree/ORIG_HEAD main-worktree/refs/heads/y
  # components starting with '.', ".lock", trailing '.'
  refs/heads/.hidden .refs/heads/x refs/.x/y . refs/heads/x.lock refs/heads/.lock
  refs/heads/x.lock.lock refs/x.lock/y x.lock refs/heads/lock. refs/heads/x. x.
  refs/heads/a.b. refs/heads/x.lock/y refs/heads/.locked
  # empty components
  '' / // /refs/heads/x refs/heads/x/ refs//heads/x refs/heads//x refs/heads/ refs/
  # forbidden bytes
  'refs/heads/sp ace' 'refs/heads/ lead' 'refs/heads/trail ' $'refs/heads/tab\tx'
  $'refs/heads/nl\nx' $'refs/heads/cr\rx' $'refs/heads/bell\ax' $'refs/heads/esc\x1b'
  $'refs/heads/\x01' $'refs/heads/\x1f' $'refs/heads/del\x7f' 'refs/heads/tilde~1'
  'refs/heads/caret^' 'refs/heads/col:on' 'refs/heads/q?' 'refs/heads/br[acket'
  'refs/heads/back\slash' 'refs/heads/~' 'refs/heads/^{}' 'HEAD~1' 'HEAD^' 'main:x'
  'sp ace' 'refs/heads/*' 'refs/heads/a*b' '*' 'refs/heads/**'
  # D/F against the stack
  refs/heads/x/y refs/heads/d refs/heads/d/e/f refs/heads/main/sub refs/tags/t1/x
  refs/heads/sym/x refs/heads refs/tags refs/heads/d/e
)

# Each name: update-ref NAME A (arguments), `create NAME A` (-z, any bytes), the same in
# text mode (C-quoted when it has bytes that need it), and `update-ref -d NAME`.
cquote() {  # git's C quoting of a name for the text form of --stdin
  local s=$1 out='' i c
  for ((i = 0; i < ${#s}; i++)); do
    c=${s:i:1}
    case $c in
      '"') out+='\\"' ;; '\') out+='\\\\' ;;
      $'\t') out+='\\t' ;; $'\n') out+='\\n' ;; $'\r') out+='\\r' ;; $'\a') out+='\\a' ;;
      *) if [[ $c == [[:cntrl:]] ]]; then out+=$(printf '\\\\%03o' "'$c"); else out+=$c; fi ;;
    esac
  done
  printf '"%s"' "$out"
}
for n in "${NAMES_TABLE[@]}"; do
  run_case "name arg [$n]" "" args "" "$n" "$A" NAMES= "$n"
  run_case "name stdin-z [$n]" "" stdin-z "create $(esc "$n")\\0$A\\0" NAMES= "$n"
  if [[ $n == *[[:space:][:cntrl:]\"\\]* ]]; then
    run_case "name stdin quoted [$n]" "" stdin "create $(cquote "$n") $A\\n" NAMES= "$n"
  else
    run_case "name stdin [$n]" "" stdin "create $n $A\\n" NAMES= "$n"
  fi
  run_case "name delete [$n]" "" args "" -d "$n" NAMES= "$n"
done

H=refs/heads
# Every transaction case, run twice: with git's default auto-compaction, and without it (so
# that what a single commit writes is compared, not only what a compaction makes of it).
transaction_cases() {
tx() { run_case "tx$PASS $1" "${3:-}" stdin "$2" "${@:4}"; }
# D/F conflicts, against the stack and inside the transaction
tx "df create under a ref" "create $H/x/y $A\n"
tx "df create over a directory" "create $H/d $A\n"
tx "df delete parent then create child" "delete $H/x\ncreate $H/x/y $A\n"
tx "df create child then delete parent" "create $H/x/y $A\ndelete $H/x\n"
tx "df parent and child created together" "create $H/p $A\ncreate $H/p/q $A\n"
tx "df child and parent created together" "create $H/p/q $A\ncreate $H/p $A\n"
tx "df delete child then create parent" "delete $H/d/e\ncreate $H/d $A\n"
tx "df siblings are fine" "create $H/n1/n2 $A\ncreate $H/n1/n3 $A\n"
tx "df symref created under a ref" "symref-create $H/x/s $H/main\n"
tx "df tag directory" "create refs/tags/t1/sub $A\n"
tx "df deep child" "create $H/d/e/f/g $A\n"
tx "df update of missing child" "update $H/x/y $A\n"
tx "df create over deleted refs" "create $H/gone $A\n"
tx "df create under a deleted ref" "create $H/gone/a/b $A\ncreate $H/gone/b $A\n"
tx "df create over deleted refs and beside them" "create $H/gone/b $A\ncreate $H/gone1 $A\ncreate $H/gone2/x $A\n"
run_case "${PASS:+(no autocompaction) }df args update under a ref" "" args "" $H/x/y "$A"
run_case "${PASS:+(no autocompaction) }df args update over a directory" "" args "" $H/d "$A"
# one update per ref
tx "dup same ref twice" "update $H/x $B\nupdate $H/x $C\n"
tx "dup HEAD then its branch" "update HEAD $B\nupdate $H/main $C\n"
tx "dup branch then HEAD" "update $H/main $C\nupdate HEAD $B\n"
tx "dup symref then its referent" "update $H/sym $B\nupdate $H/x $C\n"
tx "dup referent then symref" "update $H/x $C\nupdate $H/sym $B\n"
tx "dup verify then update" "verify $H/x $A\nupdate $H/x $B\n"
tx "dup create then delete" "create $H/q $A\ndelete $H/q\n"
tx "dup two-level chain" "update $H/s2 $B\nupdate $H/sym $C\n"
tx "dup delete then verify" "delete $H/x\nverify $H/x\n"
tx "dup no-deref HEAD and branch" "option no-deref\nupdate HEAD $B\nupdate $H/main $C\n"
# symref commands, with and without no-deref
tx "sym update HEAD deref" "symref-update HEAD $H/x\n"
tx "sym update HEAD no-deref" "option no-deref\nsymref-update HEAD $H/x\n"
tx "sym update new" "symref-update $H/newsym $H/main\n"
tx "sym create new" "symref-create $H/newsym $H/main\n"
tx "sym create over existing" "symref-create $H/x $H/main\n"
tx "sym delete in deref mode" "symref-delete $H/sym\n"
tx "sym delete no-deref" "option no-deref\nsymref-delete $H/sym\n"
tx "sym delete right old" "option no-deref\nsymref-delete $H/sym $H/x\n"
tx "sym delete wrong old" "option no-deref\nsymref-delete $H/sym $H/main\n"
tx "sym delete regular ref" "option no-deref\nsymref-delete $H/x $H/main\n"
tx "sym verify right" "option no-deref\nsymref-verify $H/sym $H/x\n"
tx "sym verify wrong" "option no-deref\nsymref-verify $H/sym $H/main\n"
tx "sym verify missing" "option no-deref\nsymref-verify $H/nope\n"
tx "sym verify existing as missing" "option no-deref\nsymref-verify $H/sym\n"
tx "sym verify deref mode" "symref-verify $H/sym $H/x\n"
tx "sym update old ref right" "option no-deref\nsymref-update HEAD $H/x ref $H/main\n"
tx "sym update old ref wrong" "option no-deref\nsymref-update HEAD $H/x ref $H/other\n"
tx "sym update old oid" "option no-deref\nsymref-update HEAD $H/x oid $C\n"
tx "sym update old oid wrong" "option no-deref\nsymref-update HEAD $H/x oid $A\n"
tx "sym update regular expecting symref" "option no-deref\nsymref-update $H/x $H/main ref $H/y\n"
tx "sym update deref old oid" "symref-update HEAD $H/x oid $C\n"
tx "sym update deref old ref" "symref-update HEAD $H/x ref $H/main\n"
tx "sym create dangling target" "symref-create $H/ns $H/nowhere\n"
tx "sym update through symref" "symref-update $H/sym $H/main\n"
tx "sym update bad old arg" "symref-update HEAD $H/x foo bar\n"
tx "sym update missing old" "symref-update HEAD $H/x ref\n"
tx "sym update invalid target" "symref-update HEAD $H/a..b\n"
tx "sym update regular no-deref" "option no-deref\nsymref-update $H/x $H/main\n"
tx "option applies once" "option no-deref\nupdate HEAD $B\nupdate $H/sym $C\n"
tx "option unknown" "option frobnicate\n"
# updates through HEAD and symrefs
tx "head update through HEAD" "update HEAD $B\n"
run_case "${PASS:+(no autocompaction) }head args no-deref update" "" args "" --no-deref HEAD "$B"
tx "head update branch logs HEAD" "update $H/main $B\n"
tx "head update through symref" "update $H/sym $B\n"
tx "head delete through HEAD" "delete HEAD\n"
run_case "${PASS:+(no autocompaction) }head args no-deref delete" "" args "" --no-deref -d HEAD
tx "head update dangling symref" "update $H/dangling $A\n"
tx "head create over dangling no-deref" "option no-deref\ncreate $H/dangling $A\n"
tx "head create over dangling" "create $H/dangling $A\n"
tx "head update two-level chain" "update $H/s2 $C\n"
tx "head delete through symref" "delete $H/sym\n"
tx "head verify through HEAD" "verify HEAD $C\n"
tx "head verify through HEAD wrong" "verify HEAD $A\n"
tx "head no-op update" "update HEAD $C\n"
tx "head no-op branch update" "update $H/main $C\n"
run_case "${PASS:+(no autocompaction) }head args update through HEAD" "" args "" -m "via head" HEAD "$A"
tx "head update no-deref symref to id" "option no-deref\nupdate $H/sym $B\n"
tx "head delete no-deref symref" "option no-deref\ndelete $H/sym\n"
# expected old values
tx "old right" "update $H/x $B $A\n"
tx "old wrong" "update $H/x $B $C\n"
tx "old missing ref" "update $H/nope $B $A\n"
tx "old must not exist" "update $H/x $B $Z\n"
tx "old must not exist ok" "update $H/new $B $Z\n"
tx "verify right" "verify $H/x $A\n"
tx "verify wrong" "verify $H/x $B\n"
tx "verify missing ok" "verify $H/nope\n"
tx "verify existing as missing" "verify $H/x\n"
tx "verify missing with value" "verify $H/nope $A\n"
tx "delete right" "delete $H/x $A\n"
tx "delete wrong" "delete $H/x $B\n"
tx "delete missing with value" "delete $H/nope $A\n"
tx "delete missing" "delete $H/nope\n"
tx "delete zero old" "delete $H/x $Z\n"
tx "create existing" "create $H/x $B\n"
tx "create zero" "create $H/new $Z\n"
run_case "${PASS:+(no autocompaction) }args old right" "" args "" $H/x "$B" "$A"
run_case "${PASS:+(no autocompaction) }args old wrong" "" args "" $H/x "$B" "$C"
run_case "${PASS:+(no autocompaction) }args old empty" "" args "" $H/x "$B" ""
run_case "${PASS:+(no autocompaction) }args delete wrong" "" args "" -d $H/x "$B"
run_case "${PASS:+(no autocompaction) }args delete missing old" "" args "" -d $H/nope "$A"
run_case "${PASS:+(no autocompaction) }args delete zero old" "" args "" -d $H/x "$Z"
run_case "${PASS:+(no autocompaction) }args new by name" "" args "" $H/new main
run_case "${PASS:+(no autocompaction) }args bad value" "" args "" $H/new nothex
run_case "${PASS:+(no autocompaction) }args bad old value" "" args "" $H/x "$B" nothex
run_case "${PASS:+(no autocompaction) }args zero new deletes" "" args "" $H/x "$Z"
run_case "${PASS:+(no autocompaction) }args usage" "" args "" $H/x
run_case "${PASS:+(no autocompaction) }args empty message" "" args "" -m "" $H/x "$B"
# reflog rules
for mode in false true always; do
  c="core.logAllRefUpdates=$mode"
  tx "log $mode branch" "update $H/main $B\n" "$c"
  tx "log $mode new branch" "create $H/new $A\n" "$c" NAMES= $H/new
  tx "log $mode other" "create refs/other/new $A\n" "$c" NAMES= refs/other/new
  tx "log $mode notes" "create refs/notes/n $A\n" "$c" NAMES= refs/notes/n
  tx "log $mode remote" "create refs/remotes/r/x $A\n" "$c" NAMES= refs/remotes/r/x
  tx "log $mode tag" "create refs/tags/new $A\n" "$c" NAMES= refs/tags/new
  tx "log $mode root ref" "create AUTO_MERGE $A\n" "$c" NAMES= AUTO_MERGE
  tx "log $mode existing reflog" "update $H/x $B\n" "$c"
  tx "log $mode no reflog yet" "update refs/other/o $A\n" "$c" NAMES= refs/other/o
  tx "log $mode create-reflog" "create refs/other/new $A\n" "$c" --create-reflog NAMES= refs/other/new
  tx "log $mode through HEAD" "update HEAD $A\n" "$c"
done
tx "log bare default" "create $H/new $A\n" "core.bare=true" NAMES= $H/new
tx "log create-reflog tag" "create refs/tags/new $A\n" "" --create-reflog NAMES= refs/tags/new
tx "log create-reflog delete" "delete $H/x\n" "" --create-reflog
tx "log message cleanup" "update $H/x $B\n" "" -m $'  a   message\twith \n lines  ' 
tx "log message identity" "update $H/x $B\n" "user.name=U Ser;user.email=u@example.com"
# object ids git checks in its object database
tx "obj annotated tag" "create refs/tags/new $TAG\n" "" NAMES= refs/tags/new
tx "obj annotated tag to branch" "create $H/new $TAG\n" "" NAMES= $H/new
tx "obj tree to branch" "create $H/new $TREE\n" "" NAMES= $H/new
tx "obj tree to tag" "create refs/tags/new $TREE\n" "" NAMES= refs/tags/new
tx "obj missing object" "create $H/new $MISSING\n" "" NAMES= $H/new
tx "obj missing object delete old" "delete $H/x $MISSING\n"
tx "obj update tag through HEAD" "update HEAD $TAG\n"
run_case "${PASS:+(no autocompaction) }obj args missing object" "" args "" $H/new "$MISSING" NAMES= $H/new
run_case "${PASS:+(no autocompaction) }obj args tag by name" "" args "" refs/tags/new at1 NAMES= refs/tags/new
# The same with every object in a pack (and a tag of a tag), instead of loose.
loose_template=$T
T=$tmp/packed
rm -rf "$T"; cp -a "$loose_template" "$T"
"$git" -C "$T" -c advice.nestedTag=false tag -a -m nested at2 at1
TAG2=$("$git" -C "$T" rev-parse refs/tags/at2)
"$git" -C "$T" repack -adq && "$git" -C "$T" prune-packed
tx "pack annotated tag" "create refs/tags/new $TAG\n" "" NAMES= refs/tags/new
tx "pack tag of a tag" "create refs/tags/new $TAG2\n" "" NAMES= refs/tags/new
tx "pack tag to branch" "create $H/new $TAG\n" "" NAMES= $H/new
tx "pack tree to branch" "create $H/new $TREE\n" "" NAMES= $H/new
tx "pack commit" "create $H/new $A\n" "" NAMES= $H/new
tx "pack missing object" "create $H/new $MISSING\n" "" NAMES= $H/new
T=$loose_template
# who writes the entries: environment, committer.* and user.* config, $EMAIL; and the date
CASE_ENV=(-u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL)
tx "ident user config" "update $H/x $B\n" "user.name=U Ser;user.email=u@example.com"
tx "ident committer config" "update $H/x $B\n" "user.name=U;user.email=u@x;committer.name=K;committer.email=k@x"
tx "ident system fallback" "update $H/x $B\n"
CASE_ENV=(-u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL EMAIL=e@example.com)
tx "ident EMAIL" "update $H/x $B\n" "user.name=U Ser"
CASE_ENV=("GIT_COMMITTER_DATE=@1600000000 +0530")
tx "ident raw date with @" "update $H/x $B\n"
CASE_ENV=("GIT_COMMITTER_DATE=1600000000 -0700")
tx "ident raw date" "update $H/x $B\n"
CASE_ENV=("GIT_COMMITTER_DATE=2023-11-14T22:13:20+01:00")
tx "ident iso date" "update $H/x $B\n"
CASE_ENV=("GIT_COMMITTER_DATE=2023-11-14 22:13:20 -0230")
tx "ident iso date with space" "update $H/x $B\n"
CASE_ENV=("GIT_COMMITTER_DATE=Tue, 14 Nov 2023 22:13:20 +0100")
tx "ident rfc2822 date" "update $H/x $B\n"
CASE_ENV=("GIT_COMMITTER_DATE=2023-11-14T22:13:20Z")
tx "ident iso date utc" "update $H/x $B\n"
CASE_ENV=()
# in a linked worktree: HEAD and refs/bisect/, refs/worktree/ are its own
CASE_GITDIR=.git/worktrees/wt
tx "wt update HEAD" "update HEAD $C\n"
tx "wt update branch of HEAD" "update $H/wtbranch $C\n"
tx "wt update main branch" "update $H/main $A\n"
tx "wt create bisect ref" "create refs/bisect/bad $A\n" "" NAMES= refs/bisect/bad
tx "wt create worktree ref" "create refs/worktree/w $A\n" "" NAMES= refs/worktree/w
tx "wt symref-update HEAD no-deref" "option no-deref\nsymref-update HEAD $H/x\n"
tx "wt create root ref" "create ORIG_HEAD $A\n"
tx "wt dup HEAD and its branch" "update HEAD $C\nupdate $H/wtbranch $A\n"
tx "wt df against main stack" "create $H/x/y $A\n"
tx "wt one-level name with a digit" "create FOO1 $A\n" "" NAMES= FOO1
tx "wt one-level name with a dash" "create FOO-BAR $A\n" "" NAMES= FOO-BAR
tx "wt update main-worktree HEAD" "update main-worktree/HEAD $C\n" "" NAMES= main-worktree/HEAD
tx "wt update main-worktree HEAD old" "update main-worktree/HEAD $C $C\n" "" NAMES= main-worktree/HEAD
tx "wt update main-worktree HEAD no-deref" "option no-deref\nupdate main-worktree/HEAD $A $C\n" "" NAMES= main-worktree/HEAD
tx "wt create main-worktree bisect" "create main-worktree/refs/bisect/m $A\n" "" NAMES= main-worktree/refs/bisect/m
tx "wt update own HEAD by its id" "update worktrees/wt/HEAD $A $B\n" "" NAMES= worktrees/wt/HEAD
tx "wt verify main-worktree HEAD" "verify main-worktree/HEAD $C\n"
tx "wt verify other missing worktree" "verify worktrees/x/HEAD $C\n"
# its own stack named twice (worktrees/wt/... and its plain names): git cannot lock it twice
tx "wt own stack under two names" "update worktrees/wt/HEAD $A $B\ncreate refs/bisect/zz $A\n" "" NAMES= refs/bisect/zz
tx "wt own stack under two names, reads only" "verify worktrees/wt/HEAD $B\nverify refs/bisect/zz\n"
CASE_GITDIR=.git
# the command language
tx "lang start commit" "start\nupdate $H/x $B\ncommit\n"
tx "lang start abort" "start\nupdate $H/x $B\nabort\n"
tx "lang start without commit" "start\nupdate $H/x $B\n"
tx "lang prepare commit" "start\nupdate $H/x $B\nprepare\ncommit\n"
tx "lang prepare fails" "start\nupdate $H/x $B $C\nprepare\ncommit\n"
tx "lang commit fails" "start\nupdate $H/x $B $C\ncommit\n"
tx "lang prepare abort" "start\nupdate $H/x $B\nprepare\nabort\n"
tx "lang update after prepare" "start\nprepare\nupdate $H/x $B\n"
tx "lang restart" "start\nstart\n"
tx "lang second transaction" "start\nupdate $H/x $B\ncommit\nstart\nupdate $H/x $C\ncommit\n"
tx "lang update after commit" "start\ncommit\nupdate $H/x $B\n"
tx "lang unknown command" "frob $H/x\n"
tx "lang whitespace before command" " update $H/x $B\n"
tx "lang empty line" "update $H/x $B\n\n"
tx "lang extra input" "update $H/x $B $A extra\n"
tx "lang commit extra input" "start\ncommit now\n"
tx "lang no final newline" "update $H/x $B"
tx "lang missing new" "update $H/x\n"
tx "lang missing ref" "update \n"
tx "lang create missing new" "create $H/q\n"
tx "lang bad new" "update $H/x nothex\n"
tx "lang bad old" "update $H/x $B nothex\n"
tx "lang empty new deletes" "update $H/x \n"
tx "lang value by name" "update $H/new main\n" "" NAMES= $H/new
tx "lang quoted name" "create \"$H/q\" $A\n" "" NAMES= $H/q '"refs/heads/q"'
tx "lang quoted value" "create $H/q \"$A\"\n" "" NAMES= $H/q
tx "lang badly quoted" "create \"$H/q $A\n"
tx "lang char after quote" "create \"$H/q\"x $A\n"
tx "lang quoted octal" "create \"$H/q\\\\303\\\\251\" $A\n"
tx "lang quoted bad escape" "create \"$H/q\\\\z\" $A\n"
tx "lang invalid ref" "update $H/a..b $A\n"
tx "lang expected SP" "symref-create $H/q\t$H/x\n"
run_case "${PASS:+(no autocompaction) }lang -z update" "" stdin-z "update $H/x\\0$B\\0$A\\0"
run_case "${PASS:+(no autocompaction) }lang -z empty new" "" stdin-z "update $H/x\\0\\0\\0"
run_case "${PASS:+(no autocompaction) }lang -z missing old" "" stdin-z "update $H/x\\0$B\\0"
run_case "${PASS:+(no autocompaction) }lang -z delete" "" stdin-z "delete $H/x\\0\\0"
run_case "${PASS:+(no autocompaction) }lang -z verify" "" stdin-z "verify $H/x\\0$A\\0"
run_case "${PASS:+(no autocompaction) }lang -z symref" "" stdin-z "symref-update $H/ns\\0$H/main\\0\\0\\0" NAMES= $H/ns
# --batch-updates: each update that fails on its own is printed as rejected (stdout) with its
# message (stderr), the others are committed together; whole-transaction failures still die.
bt() { run_case "tx$PASS batch $1" "${3:-}" stdin "$2" --batch-updates "${@:4}"; }
bt "empty input" ""
bt "all good" "create $H/new $A\nupdate $H/x $B $A\n" "" NAMES= $H/new
bt "create existing" "create $H/x $B\n"
bt "old wrong" "update $H/x $B $C\n"
bt "old missing ref" "update $H/nope $B $A\n" "" NAMES= $H/nope
bt "old must not exist" "update $H/x $B $Z\n"
bt "verify wrong" "verify $H/x $B\n"
bt "verify missing with value" "verify $H/nope $A\n"
bt "verify existing as missing" "verify $H/x\n"
bt "verify right" "verify $H/x $A\ncreate $H/new $A\n" "" NAMES= $H/new
bt "delete wrong" "delete $H/x $B\n"
bt "delete right" "delete $H/x $A\ndelete $H/nope\n"
bt "delete missing with value" "delete $H/nope $A\n"
bt "delete through symref wrong" "delete $H/sym $B\n"
bt "missing object" "create $H/new $MISSING\nupdate $H/x $B\n" "" NAMES= $H/new
bt "tree to branch" "create $H/new $TREE\ncreate refs/tags/tree $TREE\n" "" NAMES= $H/new refs/tags/tree
bt "annotated tag to branch" "create $H/new $TAG\ncreate refs/tags/new $TAG\n" "" NAMES= $H/new refs/tags/new
bt "missing object as old" "update $H/x $B $MISSING\n"
bt "df under a ref" "create $H/x/y $A\ncreate $H/ok $A\n" "" NAMES= $H/x/y $H/ok
bt "df over a directory" "create $H/d $A\n"
bt "df parent and child" "create $H/p $A\ncreate $H/p/q $A\n" "" NAMES= $H/p $H/p/q
bt "df child and parent" "create $H/p/q $A\ncreate $H/p $A\n" "" NAMES= $H/p $H/p/q
bt "df two under one ref" "create $H/x/y $A\ncreate $H/x/z $A\ncreate $H/x2/z $A\n"
bt "df deep under a ref" "create $H/x/y/z $A\ncreate $H/d/e/f $A\n"
bt "df delete parent create child" "delete $H/x\ncreate $H/x/y $A\n"
bt "df rejected name frees its place" "update $H/p $B $A\ncreate $H/p/q $A\n" "" NAMES= $H/p $H/p/q
bt "df rejected child frees its parent" "update $H/p/q $B $A\ncreate $H/p $A\n" "" NAMES= $H/p $H/p/q
bt "df existing then under it" "create $H/x $B\ncreate $H/x/y $A\n"
bt "df verify under a ref" "verify $H/x/y\n"
bt "df symref under a ref" "symref-create $H/x/s $H/main\n"
bt "dup fails whole" "create $H/new $A\nupdate $H/x $B\nupdate $H/x $C\n" "" NAMES= $H/new
bt "dup after a rejected one" "create $H/new $TREE\nupdate $H/x $B\nupdate $H/x $C\n" "" NAMES= $H/new
bt "pseudoref fails whole" "create $H/new $A\ncreate FETCH_HEAD $A\n" "" NAMES= $H/new
bt "bad name fails whole" "create $H/new $A\ncreate $H/a..b $A\n" "" NAMES= $H/new
bt "mixed good and bad" "create $H/n1 $A\ncreate $H/x $B\nupdate $H/n2 $B\nupdate refs/tags/t1 $C $A\ncreate $H/n3 $TREE\ndelete $H/nope $A\nupdate refs/other/o $A $B\nverify $H/d/e $A\n" "" NAMES= $H/n1 $H/n2 $H/n3
bt "all rejected" "create $H/x $B\nupdate refs/other/o $A $C\nverify $H/nope $A\n"
bt "all rejected but HEAD's branch" "update $H/main $B $A\n"
bt "HEAD rejected through branch" "update HEAD $B $A\n"
bt "HEAD branch created over existing" "create $H/main $B\n"
bt "symref old wrong" "update $H/sym $B $C\n"
bt "symref two-level old wrong" "update $H/s2 $B $C\n"
bt "symref then referent" "update $H/sym $B\nupdate $H/x $C\n"
bt "referent then symref" "update $H/x $C\nupdate $H/sym $B\n"
bt "HEAD then branch" "update HEAD $B\nupdate $H/main $A\n"
bt "branch then HEAD" "update $H/main $A\nupdate HEAD $B\n"
bt "dangling symref" "update $H/dangling $A $B\nupdate $H/dangling2 $A\n" "" NAMES= $H/nowhere $H/dangling2
bt "create over dangling no-deref" "option no-deref\ncreate $H/dangling $A\ncreate $H/new $A\n" "" NAMES= $H/new
bt "no-deref symref old wrong" "option no-deref\nupdate $H/sym $B $C\n"
bt "sym create over existing" "symref-create $H/x $H/main\nsymref-create $H/ns $H/main\n" "" NAMES= $H/ns
bt "sym update old ref wrong" "option no-deref\nsymref-update HEAD $H/x ref $H/other\n"
bt "sym update old ref right" "option no-deref\nsymref-update HEAD $H/x ref $H/main\n"
bt "sym update regular expecting symref" "option no-deref\nsymref-update $H/x $H/main ref $H/y\n"
bt "sym update deref old ref" "symref-update HEAD $H/x ref $H/main\n"
bt "sym update deref old ref wrong" "symref-update $H/sym $H/main ref $H/other\n"
bt "sym update old oid wrong" "option no-deref\nsymref-update HEAD $H/x oid $A\n"
bt "sym update old oid zero" "option no-deref\nsymref-update $H/sym $H/main oid $Z\nsymref-update $H/ns $H/main oid $Z\n" "" NAMES= $H/ns
bt "sym update new missing ref" "option no-deref\nsymref-update $H/nope $H/main ref $H/x\n" "" NAMES= $H/nope
bt "sym delete wrong old" "option no-deref\nsymref-delete $H/sym $H/main\n"
bt "sym delete regular ref" "option no-deref\nsymref-delete $H/x $H/main\n"
bt "sym verify wrong" "option no-deref\nsymref-verify $H/sym $H/main\n"
bt "sym verify missing" "option no-deref\nsymref-verify $H/nope $H/x\n"
bt "sym verify existing as missing" "option no-deref\nsymref-verify $H/sym\n"
bt "start commit" "start\ncreate $H/x $B\nupdate $H/new $A\ncommit\n" "" NAMES= $H/new
bt "start prepare commit" "start\ncreate $H/t $TREE\ncreate $H/x $B\nupdate $H/new $A\nprepare\ncommit\n" "" NAMES= $H/new $H/t
bt "start prepare abort" "start\ncreate $H/t $TREE\ncreate $H/x $B\nupdate $H/new $A\nprepare\nabort\n" "" NAMES= $H/new $H/t
bt "start without commit" "start\ncreate $H/t $TREE\ncreate $H/x $B\n" "" NAMES= $H/t
bt "two transactions" "start\ncreate $H/x $B\ncommit\nstart\ncreate $H/x $C\nupdate $H/x2 $A\ncommit\n" "" NAMES= $H/x2
bt "rejected then bad command" "create $H/t $TREE\ncreate $H/x $B\nupdate $H/q nothex\n" "" NAMES= $H/t $H/q
bt "rejected then parse error" "create $H/t $TREE\nfrob\n" "" NAMES= $H/t
bt "commit fails after rejection" "start\ncreate $H/t $TREE\nupdate $H/x $B\nupdate $H/x $C\ncommit\n" "" NAMES= $H/t
bt "option applies once" "option no-deref\nupdate $H/sym $B $C\nupdate $H/s2 $B $C\n"
bt "message and create-reflog" "create refs/other/new $A\ncreate refs/other/o $A\n" "" -m "batch msg" --create-reflog NAMES= refs/other/new
bt "log setting off" "update $H/x $B\nupdate $H/main $A $B\n" "core.logAllRefUpdates=false"
bt "no-batch-updates undoes it" "create $H/new $A\ncreate $H/x $B\n" "" --no-batch-updates NAMES= $H/new
batch_many=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do batch_many+="create $H/m$i $A\ncreate $H/x/m$i $A\n"; done
bt "many with every second rejected" "$batch_many" "" NAMES= $H/m1 $H/m12
run_case "tx$PASS batch -0" "" stdin "create $H/new $A\ncreate $H/x $B\n" -0 NAMES= $H/new
run_case "tx$PASS batch -z mixed" "" stdin-z "create $H/new\\0$A\\0create $H/x\\0$B\\0update $H/x\\0$B\\0$C\\0delete $H/nope\\0$A\\0verify $H/x\\0\\0create $H/t\\0$TREE\\0symref-update $H/ns\\0$H/main\\0ref\\0$H/x\\0" --batch-updates NAMES= $H/new $H/t $H/ns
run_case "tx$PASS batch -z missing values" "" stdin-z "update $H/x\\0\\0$B\\0delete $H/nope\\0$A\\0" --batch-updates
run_case "${PASS:+(no autocompaction) }batch args without stdin" "" args "" --batch-updates $H/x "$B"
run_case "${PASS:+(no autocompaction) }batch args -0 without stdin" "" args "" -0 -d $H/x
run_case "${PASS:+(no autocompaction) }batch args -z without stdin" "" args "" --batch-updates -z $H/x "$B"
run_case "${PASS:+(no autocompaction) }batch args with -d" "" args "" --stdin --batch-updates -d $H/x
CASE_GITDIR=.git/worktrees/wt
bt "wt HEAD old wrong" "update HEAD $A $C\ncreate refs/bisect/bad $A\n" "" NAMES= refs/bisect/bad
bt "wt branch of HEAD rejected" "update $H/wtbranch $A $C\ncreate refs/worktree/w $A\n" "" NAMES= refs/worktree/w
bt "wt main-worktree HEAD old wrong" "update main-worktree/HEAD $A $B\ncreate $H/new $A\n" "" NAMES= main-worktree/HEAD $H/new
bt "wt own HEAD by its id old wrong" "update worktrees/wt/HEAD $A $C\ncreate ORIG_HEAD $A\n" "" NAMES= worktrees/wt/HEAD
bt "wt df against main stack" "create $H/x/y $A\ncreate refs/bisect/b $A\n" "" NAMES= refs/bisect/b
bt "wt other missing worktree fails whole" "create $H/new $A\nverify worktrees/x/HEAD $C\n" "" NAMES= $H/new
CASE_GITDIR=.git

}
PASS=""
transaction_cases
PASS=" (no autocompaction)"
export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
transaction_cases
unset GIT_TEST_REFTABLE_AUTOCOMPACTION

# Usage texts, byte for byte, with reftab's program name read as git's and without the one
# option git does not have (--[no-]progress).
usage_case() {
  local desc="usage $*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  "$git" --git-dir="$T/.git" update-ref "$@" >"$tmp/go" 2>"$tmp/ge" </dev/null; local grc=$?
  "$reftab" --git-dir "$T/.git" update-ref "$@" >"$tmp/ro" 2>"$tmp/re" </dev/null; local rrc=$?
  local f
  for f in "$tmp/ro" "$tmp/re"; do
    sed -i -e 's/^usage: reftab /usage: git /' -e 's/^   or: reftab /   or: git /' \
      -e '/^    --\[no-\]progress /d' "$f"
  done
  local why=""
  [ "$grc" = "$rrc" ] || why+=" exit git=$grc reftab=$rrc;"
  cmp -s "$tmp/go" "$tmp/ro" || why+=" stdout: $(diff "$tmp/go" "$tmp/ro" | grep '^[<>]' | head -4 | tr '\n' ' ');"
  cmp -s "$tmp/ge" "$tmp/re" || why+=" stderr: $(diff "$tmp/ge" "$tmp/re" | grep '^[<>]' | head -4 | tr '\n' ' ');"
  verdict "$desc" "$why"
}
usage_case -h
usage_case --bogus
usage_case -x
usage_case
usage_case refs/heads/x
usage_case --stdin -d
usage_case --stdin refs/heads/x
usage_case -z refs/heads/x "$A"
usage_case --no-deref -d
usage_case --deref -d
usage_case --batch-updates
usage_case --batch-updates -d refs/heads/x
usage_case -0 refs/heads/x "$A"
usage_case --no-batch-updates -d
usage_case --batch-up -z
usage_case -m
usage_case --std -d
usage_case --no
usage_case --batch-updates=yes --stdin
usage_case --no-batch-updates=x
usage_case --no-no-deref -d
usage_case --progres

verdict_end
