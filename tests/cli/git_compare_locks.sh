#!/usr/bin/env bash
# Writers meeting a lock another process holds, reftab against the real git, case by case:
# tables.list.lock of the main stack or of a linked worktree's stack left in place, a table
# lock (<table>.lock, a compaction in progress), and one stack reached under two names in
# one transaction (a worktree's own refs and worktrees/<its id>/...), which git locks twice.
# For each case two copies of one repository are made; git runs in one and reftab in the
# other, from the same directory. Both must agree on exit status, stdout, stderr, and on
# every ref and reflog afterwards as git shows them.
#
# Usage: git_compare_locks.sh REFTAB [FILTER]. Needs a reftable-capable git: $REFTAB_GIT,
# else `git` on PATH if it is at least 2.45; without one it is skipped. Prints TAP (real_git.sh).
set -u
reftab=$(realpath "$1")
filter=${2:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 45 "reftable needs 2.45"

isolate_git_env
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_COMMITTER_DATE="1700000000 +0000" GIT_AUTHOR_DATE="1700000000 +0000"
unset GIT_TEST_REFTABLE_AUTOCOMPACTION

# The template: a main worktree with three commits and several tables (auto-compaction off
# while it is built, so that compactions have something to merge), a linked worktree `wt`
# with its own refs, reflogs on both sides.
T=$tmp/template
g() { "$git" -C "$T/main" "$@"; }
"$git" init -q -b main --ref-format=reftable "$T/main" || exit 1
g config reftable.autoCompaction false
for i in 1 2 3; do g commit -q --allow-empty -m "commit $i"; done
g branch topic HEAD~1
g tag light HEAD~2
g worktree add -q "$T/wt" topic 2>/dev/null || exit 1
"$git" -C "$T/wt" update-ref refs/bisect/bad HEAD
"$git" -C "$T/wt" update-ref refs/worktree/mark HEAD~1
g config --unset reftable.autoCompaction
C=$(g rev-parse main)
P=$(g rev-parse main~1)

# Refs and reflogs of both worktrees as git sees them.
state() {
  local top=$1
  (cd "$top/main" && "$git" for-each-ref --include-root-refs --format='%(refname) %(objectname) %(symref)' &&
    "$git" reflog list | sort | while read -r r; do echo "== $r"; "$git" reflog show --format='%H %gs' "$r" --; done
   cd "$top/wt" && "$git" for-each-ref --format='%(refname) %(objectname)' refs/bisect refs/worktree &&
    "$git" rev-parse HEAD) 2>&1
}

# case NAME WHERE LOCKS CMD [STDIN]: in copies of the template, creates each of LOCKS (paths
# under the copy, space-separated; "" for none), runs `CMD` in worktree WHERE (main or wt)
# with git and with reftab, and compares.
case_() {
  local name=$1 where=$2 locks=$3 cmd=$4 input=${5:-}
  [ -n "$filter" ] && [[ $name != *$filter* ]] && return 0
  local side why="" l
  for side in git reftab; do
    rm -rf "$tmp/$side" && cp -a "$T" "$tmp/$side"
    # The linked worktree's .git file names the template: point it at this copy.
    echo "gitdir: $tmp/$side/main/.git/worktrees/wt" >"$tmp/$side/wt/.git"
    echo "$tmp/$side/wt/.git" >"$tmp/$side/main/.git/worktrees/wt/gitdir"
    for l in $locks; do : >"$tmp/$side/$l"; done
    local prog=$git
    [ "$side" = reftab ] && prog=$reftab
    (cd "$tmp/$side/$where" && printf '%b' "$input" | eval "\"$prog\" $cmd") \
      >"$tmp/$side.out" 2>"$tmp/$side.err"
    echo $? >"$tmp/$side.rc"
    for l in $locks; do rm -f "$tmp/$side/$l"; done
    state "$tmp/$side" >"$tmp/$side.state"
  done
  sed -i "s#$tmp/git/#$tmp/X/#g" "$tmp/git.err"
  sed -i "s#$tmp/reftab/#$tmp/X/#g" "$tmp/reftab.err"
  cmp -s "$tmp/git.rc" "$tmp/reftab.rc" || why+=" exit git=$(cat "$tmp/git.rc") reftab=$(cat "$tmp/reftab.rc");"
  cmp -s "$tmp/git.out" "$tmp/reftab.out" || why+=" stdout: $(diff "$tmp/git.out" "$tmp/reftab.out" | head -5 | tr '\n' '|');"
  cmp -s "$tmp/git.err" "$tmp/reftab.err" || why+=" stderr: $(diff "$tmp/git.err" "$tmp/reftab.err" | head -5 | tr '\n' '|');"
  cmp -s "$tmp/git.state" "$tmp/reftab.state" || why+=" refs: $(diff "$tmp/git.state" "$tmp/reftab.state" | head -5 | tr '\n' '|');"
  verdict "$name" "$why"
}

ML=main/.git/reftable/tables.list.lock
WL=main/.git/worktrees/wt/reftable/tables.list.lock
first_table() { (cd "$T/main/.git/reftable" && head -1 tables.list); }
TL=main/.git/reftable/$(first_table).lock

for where in main wt; do
  for lock in "$ML" "$WL" "$TL"; do
    tag="$where/$(basename "$(dirname "$lock")")/$(basename "$lock" | cut -c1-11)"
    case_ "update-ref branch [$tag]" $where "$lock" "update-ref refs/heads/new $C"
    case_ "update-ref -d [$tag]" $where "$lock" "update-ref -d refs/heads/topic"
    case_ "update-ref HEAD [$tag]" $where "$lock" "update-ref HEAD $P"
    case_ "update-ref bisect [$tag]" $where "$lock" "update-ref refs/bisect/x $C"
    case_ "update-ref --stdin [$tag]" $where "$lock" "update-ref --stdin" "update refs/heads/a $C\n"
    case_ "update-ref --stdin both stacks [$tag]" $where "$lock" "update-ref --stdin" \
      "update refs/heads/a $C\nupdate refs/bisect/y $C\n"
    case_ "update-ref --stdin prepare [$tag]" $where "$lock" "update-ref --stdin" \
      "start\nupdate refs/heads/a $C\nprepare\ncommit\n"
    case_ "update-ref --stdin prepare abort [$tag]" $where "$lock" "update-ref --stdin" \
      "start\nupdate refs/heads/a $C\nprepare\nabort\n"
    case_ "symbolic-ref [$tag]" $where "$lock" "symbolic-ref refs/heads/sym refs/heads/main"
    case_ "symbolic-ref HEAD [$tag]" $where "$lock" "symbolic-ref HEAD refs/heads/main"
    case_ "pack-refs [$tag]" $where "$lock" "pack-refs"
    case_ "pack-refs --all [$tag]" $where "$lock" "pack-refs --all"
    case_ "pack-refs --auto [$tag]" $where "$lock" "pack-refs --auto"
    case_ "refs optimize [$tag]" $where "$lock" "refs optimize"
    case_ "reflog expire [$tag]" $where "$lock" "reflog expire --expire=now refs/heads/topic"
    case_ "reflog expire --all [$tag]" $where "$lock" "reflog expire --expire=now --all"
    case_ "reflog delete [$tag]" $where "$lock" "reflog delete refs/heads/main@{0}"
    case_ "reflog delete two [$tag]" $where "$lock" "reflog delete refs/heads/main@{0} refs/heads/nope@{0}"
    case_ "reflog drop [$tag]" $where "$lock" "reflog drop refs/heads/topic"
    case_ "reflog drop --all [$tag]" $where "$lock" "reflog drop --all"
    case_ "reflog write [$tag]" $where "$lock" "reflog write HEAD $P $C moved"
  done
done
# One stack under two names: from the linked worktree, its own refs and the same refs as
# worktrees/wt/...; from the main worktree, main-worktree/ is the same stack object.
case_ "HEAD and worktrees/wt/HEAD" wt "" "update-ref --stdin" "update HEAD $C\nupdate worktrees/wt/HEAD $C\n"
case_ "bisect and worktrees/wt/refs/bisect" wt "" "update-ref --stdin" \
  "update refs/bisect/p $C\nupdate worktrees/wt/refs/bisect/q $C\n"
case_ "worktrees/wt/ alone" wt "" "update-ref --stdin" "update worktrees/wt/refs/bisect/q $C\n"
case_ "main-worktree/ from main" main "" "update-ref --stdin" \
  "update refs/bisect/m $C\nupdate main-worktree/refs/bisect/n $C\n"
case_ "main-worktree/ from wt" wt "" "update-ref --stdin" \
  "update refs/heads/z $C\nupdate main-worktree/refs/bisect/n $C\n"
case_ "worktrees/wt/ from main" main "" "update-ref --stdin" \
  "update refs/heads/z $C\nupdate worktrees/wt/refs/bisect/n $C\n"

# A due compaction (the template's main stack is geometric already): five more tables of
# one ref each. git's explicit auto-compaction reports a lock it cannot get, where the one
# after a write lets it be; a locked table in the middle still lets the newer ones merge.
T0=$T
T=$tmp/template-due
cp -a "$T0" "$T"
echo "gitdir: $T/main/.git/worktrees/wt" >"$T/wt/.git"
for i in 1 2 3 4 5; do GIT_TEST_REFTABLE_AUTOCOMPACTION=false g update-ref "refs/heads/due$i" "$C"; done
nth_table() { (cd "$T/main/.git/reftable" && sed -n "${1}p" tables.list); }
newest=$(wc -l <"$T/main/.git/reftable/tables.list")
for lock in "$ML" "$WL" "main/.git/reftable/$(nth_table "$newest").lock" \
  "main/.git/reftable/$(nth_table $((newest - 1))).lock" "main/.git/reftable/$(nth_table $((newest - 3))).lock"; do
  for where in main wt; do
    case_ "pack-refs --auto, compaction due [$where/$(basename "$lock" | cut -c1-20)]" $where "$lock" "pack-refs --auto"
  done
done
case_ "pack-refs --auto, compaction due, no lock" main "" "pack-refs --auto"
T=$T0

# core.lockfilePid (git 2.54): the holder of tables.list.lock writes tables.list~pid.lock
# naming itself, and it goes with the lock. Each tool holds the lock in turn (an update-ref
# --stdin transaction stopped after "prepare") while the other tries to write: git says
# "cannot lock references", reftab the same followed by the holder the pid file names.
pid_case() {
  local holder=$1 d=$tmp/pid-$1 tool
  [ -n "$filter" ] && [[ "core.lockfilePid" != *$filter* ]] && return 0
  rm -rf "$d" && cp -a "$T" "$d"
  echo "gitdir: $d/main/.git/worktrees/wt" >"$d/wt/.git"
  tool=$git; [ "$holder" = reftab ] && tool=$reftab
  coproc HOLD (cd "$d/main" && exec "$tool" -c core.lockfilePid=true update-ref --stdin 2>&1)
  local hold_pid=$HOLD_PID line got=""
  printf 'start\nupdate refs/heads/held %s\nprepare\n' "$C" >&"${HOLD[1]}"
  while read -r -t 20 line <&"${HOLD[0]}"; do got+="$line;"; [ "$line" = "prepare: ok" ] && break; done
  local pidfile=$d/main/.git/reftable/tables.list~pid.lock
  verdict "core.lockfilePid: $holder writes the pid file while it holds the lock" \
    "$([ "$(cat "$pidfile" 2>&1)" = "pid $hold_pid" ] || echo "got '$got', pid file: $(cat "$pidfile" 2>&1), holder $hold_pid")"
  (cd "$d/main" && "$git" update-ref refs/heads/other "$C") >"$tmp/pg.out" 2>&1; local grc=$?
  (cd "$d/main" && "$reftab" update-ref refs/heads/other "$C") >"$tmp/pr.out" 2>&1; local rrc=$?
  verdict "core.lockfilePid: git and reftab fail alike while $holder holds the lock" \
    "$([ "$grc" = "$rrc" ] && [ "$grc" != 0 ] || echo "exit git $grc, reftab $rrc")"
  verdict "core.lockfilePid: reftab names $holder ($hold_pid) as the holder" \
    "$(grep -qF "cannot lock references ($d/main/.git/reftable/tables.list.lock: Lock may be held by process $hold_pid; " "$tmp/pr.out" || cat "$tmp/pr.out")"
  printf 'commit\n' >&"${HOLD[1]}"
  exec {HOLD[1]}>&-
  wait "$hold_pid"
  verdict "core.lockfilePid: $holder leaves no lock and no pid file" \
    "$(cd "$d/main/.git/reftable" && ls | grep '\.lock$')"
  (cd "$d/main" && "$git" show-ref --verify refs/heads/held) >/dev/null 2>&1
  verdict "core.lockfilePid: $holder's transaction committed" "$([ $? = 0 ] || echo missing)"
}
pid_case git
pid_case reftab

verdict_end
