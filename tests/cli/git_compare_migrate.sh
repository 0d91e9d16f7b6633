#!/usr/bin/env bash
# `reftab refs migrate` against the real git's `git refs migrate`, case by case: both start
# from copies of one repository and must leave the same git directory behind — the same
# files, byte for byte, with the same modes (objects aside; reftable tables compared by
# contents, their random names aside), the same exit status class and the same message.
# Then the real git reads reftab's result: the same refs and reflogs as before.
#
# Usage: git_compare_migrate.sh REFTAB [FILTER]. Needs a reftable-capable git: $REFTAB_GIT,
# else `git` on PATH if it is at least 2.46 (the first with `refs migrate`); without one it
# is skipped. Prints TAP (real_git.sh).
set -u
reftab=$(realpath "$1")
filter=${2:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 46 "refs migrate needs 2.46"

isolate_git_env
export GIT_COMMITTER_DATE='1700000000 +0100' GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_AUTHOR_DATE='1700000000 +0100'
unset GIT_TEST_REFTABLE_AUTOCOMPACTION
umask 022

declare -A KNOWN=()

# ------------------------------------------------------------------ repositories
# Each mk_* NAME FORMAT builds $tmp/repos/NAME in ref storage FORMAT.
R=$tmp/repos
mkdir -p "$R"

commits() {  # commits DIR N: N commits on the current branch
  local i
  for i in $(seq 1 "$2"); do "$git" -C "$1" commit -q --allow-empty -m "commit $i"; done
}

mk_basic() {
  local d=$R/$1
  "$git" init -q -b main --ref-format="$2" "$d"
  commits "$d" 3
  "$git" -C "$d" branch b1 HEAD~1
  "$git" -C "$d" tag -a -m annotated v1 HEAD~2
  "$git" -C "$d" tag light HEAD~1
  "$git" -C "$d" pack-refs --all
  "$git" -C "$d" branch b2
  "$git" -C "$d" branch -f b1 HEAD   # loose b1 shadows the packed one
  "$git" -C "$d" symbolic-ref refs/heads/sym refs/heads/main
  "$git" -C "$d" symbolic-ref refs/heads/dangling refs/heads/nowhere
  "$git" -C "$d" update-ref refs/remotes/origin/main HEAD~1
  "$git" -C "$d" update-ref refs/other/deep/name HEAD
  "$git" -C "$d" update-ref ORIG_HEAD HEAD~2
  "$git" -C "$d" update-ref REBASE_HEAD HEAD~1
  "$git" -C "$d" update-ref -m "a  message	with   odd   spacing" refs/heads/b2 HEAD~2
  echo "$("$git" -C "$d" rev-parse HEAD)		branch 'main' of /x" >"$d/.git/FETCH_HEAD"
}

mk_many() {  # 1200 refs, half packed, with small blocks so there are indexes
  local d=$R/$1 i h
  "$git" init -q -b main --ref-format="$2" "$d"
  "$git" -C "$d" config reftable.blockSize 1024
  "$git" -C "$d" config reftable.restartInterval 5
  commits "$d" 2
  h=$("$git" -C "$d" rev-parse HEAD)
  for i in $(seq 1 600); do echo "create refs/heads/topic/$((i % 37))/b$i $h"; done |
    "$git" -C "$d" update-ref --stdin
  "$git" -C "$d" pack-refs --all
  for i in $(seq 1 600); do echo "create refs/tags/t$i $h"; done |
    "$git" -C "$d" update-ref --stdin
  for i in $(seq 1 8); do "$git" -C "$d" update-ref -m "move $i" refs/heads/topic/1/b1 "$h"; done
}

mk_sha256() {
  local d=$R/$1
  "$git" init -q -b main --object-format=sha256 --ref-format="$2" "$d"
  commits "$d" 2
  "$git" -C "$d" tag -a -m t v1
  "$git" -C "$d" branch side HEAD~1
  "$git" -C "$d" pack-refs --all
  "$git" -C "$d" symbolic-ref refs/heads/s refs/heads/side
}

mk_detached() {
  local d=$R/$1
  "$git" init -q -b main --ref-format="$2" "$d"
  commits "$d" 2
  "$git" -C "$d" checkout -q --detach HEAD~1
}

mk_empty() {
  "$git" init -q -b main --ref-format="$2" "$R/$1"
}

mk_bare() {
  local d=$R/$1
  "$git" init -q -b main --ref-format="$2" "$d.src"
  commits "$d.src" 2
  "$git" clone -q --bare --ref-format="$2" "$d.src" "$d"
  rm -rf "$d.src"
}

mk_shared() {  # core.sharedRepository: the modes of every new file and directory
  local d=$R/$1
  "$git" init -q -b main --shared=group --ref-format="$2" "$d"
  commits "$d" 2
  "$git" -C "$d" branch b
}

mk_churn() {  # deletions, expired reflog entries, per-worktree refs of the main worktree
  local d=$R/$1
  "$git" init -q -b main --ref-format="$2" "$d"
  "$git" -C "$d" config core.logAllRefUpdates always
  commits "$d" 4
  "$git" -C "$d" branch gone HEAD~1
  "$git" -C "$d" branch kept HEAD~2
  "$git" -C "$d" update-ref refs/tags/t HEAD~3
  "$git" -C "$d" branch -D gone >/dev/null
  "$git" -C "$d" update-ref -d refs/tags/t
  "$git" -C "$d" reflog delete HEAD@{1}
  "$git" -C "$d" update-ref refs/bisect/bad HEAD
  "$git" -C "$d" update-ref refs/worktree/mine HEAD~1
  "$git" -C "$d" update-ref refs/rewritten/x HEAD~1
  "$git" -C "$d" update-ref -m "last word" refs/heads/kept HEAD
  # reflogs expired to nothing (reftable: an existence marker), one written to again after
  "$git" -C "$d" branch marked HEAD~1
  "$git" -C "$d" reflog expire --expire=all refs/heads/marked
  "$git" -C "$d" branch remarked HEAD~1
  "$git" -C "$d" reflog expire --expire=all refs/heads/remarked
  "$git" -C "$d" update-ref -m "after the marker" refs/heads/remarked HEAD
}

mk_worktree() {
  local d=$R/$1
  mk_basic "$1" "$2"
  "$git" -C "$d" worktree add -q -b wt "$tmp/wt-$1" HEAD
}

# Hand-made files storage: packed-refs without the sorted trait (unsorted, peeled lines),
# reflog lines git cannot parse, crud in identities, a long message, no trailing newline.
mk_handmade() {
  local d=$R/$1 h a z=0000000000000000000000000000000000000000 long
  "$git" init -q -b main --ref-format=files "$d"
  commits "$d" 2
  h=$("$git" -C "$d" rev-parse HEAD) a=$("$git" -C "$d" rev-parse HEAD~1)
  "$git" -C "$d" tag -a -m t tg HEAD~1
  local tg
  tg=$("$git" -C "$d" rev-parse tg)
  rm -f "$d/.git/refs/tags/tg"
  printf '# pack-refs with: peeled \n%s refs/tags/tg\n^%s\n%s refs/heads/zz\n%s refs/heads/aa\n' \
    "$tg" "$a" "$h" "$a" >"$d/.git/packed-refs"
  long=$(printf 'x%.0s' $(seq 1 3000))
  {
    printf '%s %s  ,Crud. Name;  <<mail@x>> 1700000001 -0130\tfirst\n' "$z" "$a"
    printf '%s %s C <c@x> 0 +0000\tzero time is skipped\n' "$a" "$h"
    printf 'garbage line\n'
    printf '%s %s C <c@x> 1700000002 +0000\t  lead and   inner   \n' "$a" "$h"
    printf '%s %s C <c@x> 1700000003 +0000\n' "$h" "$a"
    printf '%s %s C <c@x> 1700000004 +0530\t%s\n' "$a" "$h" "$long"
    printf '%s %s C <c@x> 1700000005 +0000\tno newline' "$h" "$a"
  } >"$d/.git/logs/refs/heads/aa"
  mkdir -p "$d/.git/logs/refs/heads/a"
  printf '%s %s C <c@x> 1700000006 +0000\tdir order\n' "$z" "$h" >"$d/.git/logs/refs/heads/a/b"
  printf '%s %s C <c@x> 1700000007 +0000\tdir order 2\n' "$z" "$h" >"$d/.git/logs/refs/heads/a-b"
  printf '%s %s C <c@x> 1700000008 +0000\tlock\n' "$z" "$h" >"$d/.git/logs/refs/heads/x.lock"
}

# ------------------------------------------------------------------ comparison
# snapshot GITDIR OUT: the git directory without objects, each reftable table renamed to
# its position in tables.list (names are random), plus a listing of paths, types and modes.
snapshot() {
  local g=$1 out=$2 n=0 t
  mkdir -p "$out/tree"
  (cd "$g" && find . -path ./objects -prune -o -path ./hooks -prune -o -print |
    grep -v -e '^\./index$' -e '^\./COMMIT_EDITMSG$' | sort | while read -r p; do
      if [ -d "$p" ]; then mkdir -p "$out/tree/$p"; else cp -p "$p" "$out/tree/$p"; fi
    done)
  if [ -f "$out/tree/reftable/tables.list" ]; then
    : >"$out/list"
    while read -r t; do
      n=$((n + 1))
      mv "$out/tree/reftable/$t" "$out/tree/reftable/table-$n.ref"
      echo "table-$n.ref" >>"$out/list"
    done <"$out/tree/reftable/tables.list"
    mv "$out/list" "$out/tree/reftable/tables.list"
  fi
  for t in "$out"/tree/ref_migration.*; do
    [ -e "$t" ] && mv "$t" "$out/tree/ref_migration.TEMP"
  done
  if [ -d "$out/tree/ref_migration.TEMP/reftable" ]; then
    for t in "$out"/tree/ref_migration.TEMP/reftable/*.ref; do
      [ -e "$t" ] && mv "$t" "$out/tree/ref_migration.TEMP/reftable/table.ref"
    done
    [ -s "$out/tree/ref_migration.TEMP/reftable/tables.list" ] &&
      echo table.ref >"$out/tree/ref_migration.TEMP/reftable/tables.list"
  fi
  (cd "$out/tree" && find . -printf '%p %y %m\n' | sort) >"$out/modes"
}

# What the real git sees in a repository: refs (with symrefs) and every reflog.
git_view() {
  local g=$1
  "$git" --git-dir="$g" for-each-ref --include-root-refs \
    --format='%(refname) %(objectname) %(symref)' 2>&1
  [ "${2:-}" = refs-only ] && return
  "$git" --git-dir="$g" reflog list 2>&1 | sort | head -25 | while read -r r; do
    echo "== $r"
    "$git" --git-dir="$g" reflog show --format='%H %gd %gn <%ge> %gs' "$r" -- 2>&1 | head -50
  done
}

# case NAME REPO ARGS...: migrate copies of $R/REPO with git and with reftab.
case_() {
  local name=$1 repo=$2; shift 2
  [ -n "$filter" ] && [[ $name != *$filter* ]] && return
  local c=$tmp/case/$name gd=.git
  [ -d "$R/$repo/.git" ] || gd=.
  rm -rf "$c"; mkdir -p "$c"
  cp -a "$R/$repo" "$c/g"; cp -a "$R/$repo" "$c/r"
  git_view "$c/g/$gd" refs-only >"$c/before"
  (cd "$c/g" && "$git" refs migrate "$@" >"$c/g.out" 2>"$c/g.err"); local gs=$?
  (cd "$c/r" && "$reftab" refs migrate "$@" >"$c/r.out" 2>"$c/r.err"); local rs=$?
  sed -i 's/ref_migration\.[A-Za-z0-9]*/ref_migration.TEMP/' "$c/g.out" "$c/r.out" "$c/g.err" "$c/r.err"
  sed -i -e 's/^usage: reftab /usage: git /' -e 's/^   or: reftab /   or: git /' "$c/r.out" "$c/r.err"
  snapshot "$c/g/$gd" "$c/gs"; snapshot "$c/r/$gd" "$c/rs"
  local why=""
  [ "$gs" = "$rs" ] || why="exit status git $gs, reftab $rs"
  cmp -s "$c/g.out" "$c/r.out" || why="$why; stdout differs"
  cmp -s "$c/g.err" "$c/r.err" || why="$why; stderr differs"
  diff -r "$c/gs/tree" "$c/rs/tree" >"$c/diff" 2>&1 || why="$why; files differ"
  cmp -s "$c/gs/modes" "$c/rs/modes" || why="$why; paths or modes differ"
  if [ "$rs" = 0 ] && [[ " $* " != *" --dry-run "* ]]; then
    # The refs git lists are those of before; refs and reflogs as git sees them in its own
    # result.
    git_view "$c/r/$gd" refs-only >"$c/after"
    diff "$c/before" "$c/after" >"$c/view.diff" || why="$why; git's view of reftab's refs changed"
    git_view "$c/r/$gd" >"$c/r.view"; git_view "$c/g/$gd" >"$c/g.view"
    diff "$c/g.view" "$c/r.view" >>"$c/view.diff" || why="$why; git sees other reflogs"
  fi
  [ -n "$why" ] &&
    why="($*): ${why#; }
$(head -20 "$c/diff" "$c/view.diff" "$c/g.err" "$c/r.err" 2>/dev/null)"
  verdict "$name" "$why"
}

for fmt in files reftable; do
  for mk in basic many sha256 detached empty bare shared churn worktree; do
    "mk_$mk" "$mk-$fmt" "$fmt"
  done
done
mk_handmade handmade-files
# Reftable repositories as git's own migration leaves them (update indexes 1..N, one table).
for mk in basic handmade; do
  cp -a "$R/$mk-files" "$R/$mk-migrated"
  "$git" -C "$R/$mk-migrated" refs migrate --ref-format=reftable || exit 1
done

for repo in basic many sha256 detached empty bare shared churn handmade; do
  case_ "$repo files->reftable" "$repo-files" --ref-format=reftable
done
for repo in basic many sha256 detached empty bare shared churn; do
  case_ "$repo reftable->files" "$repo-reftable" --ref-format=files
done
for repo in basic handmade; do
  case_ "$repo (migrated) reftable->files" "$repo-migrated" --ref-format=files
done
case_ "basic files->reftable --no-reflog" basic-files --ref-format=reftable --no-reflog
case_ "basic reftable->files --no-reflog" basic-reftable --ref-format=files --no-reflog
case_ "basic files->reftable --dry-run" basic-files --ref-format=reftable --dry-run
case_ "basic reftable->files --dry-run" basic-reftable --ref-format=files --dry-run
case_ "many files->reftable --dry-run --no-reflog" many-files --dry-run --no-reflog --ref-format=reftable
case_ "worktree files->reftable (refused)" worktree-files --ref-format=reftable
case_ "worktree reftable->files (refused)" worktree-reftable --ref-format=files
case_ "same format files (refused)" basic-files --ref-format=files
case_ "same format reftable (refused)" basic-reftable --ref-format=reftable
case_ "unknown format (refused)" basic-files --ref-format=nope
# Usage: git's option parser, messages and status 129.
for args in "-h" "" "--ref-format" "--bogus" "--ref-format=files extra" "--no-ref-format=x" \
    "--no-dry-run --ref-format=nope" "--dry --ref-format=nope" "--reflog --ref-format=nope"; do
  case_ "usage [$args]" basic-files $args
done

# A migration whose first write fails (no file may grow: ulimit -f 0, SIGXFSZ ignored, so the
# write says "File too large"): git's first write is the HEAD stub, which it writes with
# write_file and dies (fatal, 128). Output goes through a pipe, which the limit spares.
# git leaves its temporary directory behind; reftab removes it, so only the rest of the git
# directory is compared, and the refs as git sees them must be those of before.
limited_case() {
  local name=$1 repo=$2; shift 2
  [ -n "$filter" ] && [[ $name != *$filter* ]] && return
  local c=$tmp/case/$name tool out why=""
  rm -rf "$c"; mkdir -p "$c"
  for tool in g r; do
    cp -a "$R/$repo" "$c/$tool"
    local exe=$reftab; [ $tool = g ] && exe=$git
    out=$(cd "$c/$tool" && trap '' XFSZ && ulimit -f 0 && "$exe" refs migrate "$@" 2>&1; echo "exit $?")
    sed -e 's/ref_migration\.[A-Za-z0-9]*/ref_migration.TEMP/' <<<"$out" >"$c/$tool.out"
    rm -rf "$c/$tool"/.git/ref_migration.*
    snapshot "$c/$tool/.git" "$c/${tool}s"
    git_view "$c/$tool/.git" >"$c/$tool.view"
  done
  cmp -s "$c/g.out" "$c/r.out" || why="output: $(diff "$c/g.out" "$c/r.out" | grep '^[<>]' | tr '\n' ' ')"
  diff -r "$c/gs/tree" "$c/rs/tree" >/dev/null 2>&1 || why="$why; files differ"
  cmp -s "$c/g.view" "$c/r.view" || why="$why; git sees other refs"
  verdict "$name" "${why#; }"
}
limited_case "files->reftable, the HEAD stub cannot be written" basic-files --ref-format=reftable
limited_case "files->reftable --dry-run, the HEAD stub cannot be written" basic-files --ref-format=reftable --dry-run

verdict_end
