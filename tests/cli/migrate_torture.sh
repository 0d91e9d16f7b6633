#!/usr/bin/env bash
# SIGKILL torture for `reftab refs migrate`: the migration is killed before each step that
# changes the repository (REFTAB_TEST_KILL_AT_STEP=N, N = 1, 2, ... until a run finishes),
# and a few more times after random delays. After every kill the real git must see exactly
# the refs and reflogs it saw before (in whichever format the repository is now), `git refs
# verify` must pass, and running the migration again (if the old format is still in use)
# must finish with the same bytes as a migration never interrupted.
#
# Usage: migrate_torture.sh REFTAB. Needs a reftable-capable git ($REFTAB_GIT, or git >= 2.46
# on PATH); skipped without one. Prints TAP (real_git.sh): one line per check.
set -u
reftab=$(realpath "$1")
# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 46 "refs migrate needs 2.46"
isolate_git_env
export GIT_COMMITTER_DATE='1700000000 +0100' GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_AUTHOR_DATE='1700000000 +0100'
unset REFTAB_TEST_KILL_AT_STEP REFTAB_TEST_TRACE_STEPS

kills=0

# A repository with packed and loose refs, symrefs, root refs, a pseudoref and reflogs.
make_repo() {
  local d=$1 fmt=$2 h i
  "$git" init -q -b main --ref-format="$fmt" "$d"
  for i in 1 2 3; do "$git" -C "$d" commit -q --allow-empty -m "c$i"; done
  h=$("$git" -C "$d" rev-parse HEAD~1)
  for i in $(seq 1 150); do echo "create refs/heads/br/$i $h"; done | "$git" -C "$d" update-ref --stdin
  "$git" -C "$d" tag -a -m t v1 HEAD~2
  "$git" -C "$d" pack-refs --all
  for i in $(seq 1 30); do echo "create refs/tags/loose$i $h"; done | "$git" -C "$d" update-ref --stdin
  "$git" -C "$d" branch -f br/7 HEAD
  "$git" -C "$d" symbolic-ref refs/heads/sym refs/heads/main
  "$git" -C "$d" update-ref ORIG_HEAD HEAD~2
  echo "$h		branch 'x'" >"$d/.git/FETCH_HEAD"
}

view() {  # what the real git sees
  local d=$1
  "$git" -C "$d" for-each-ref --include-root-refs --format='%(refname) %(objectname) %(symref)'
  "$git" -C "$d" reflog list | sort | while read -r r; do
    echo "== $r"
    "$git" -C "$d" reflog show --format='%H %gn <%ge> %gs' "$r" --
  done
  cat "$d/.git/FETCH_HEAD"
}

format_of() {
  "$git" -C "$1" rev-parse --show-ref-format 2>/dev/null || echo broken
}

# The git directory without objects and temporary directories, tables renamed by position.
canon() {
  local g=$1/.git out=$2 n=0 t
  rm -rf "$out"; mkdir -p "$out"
  (cd "$g" && find . -path ./objects -prune -o -path './ref_migration.*' -prune -o -type f -print |
    grep -v -e '^\./index$' | sort | while read -r p; do
      mkdir -p "$out/$(dirname "$p")"; cp -p "$p" "$out/$p"
    done)
  if [ -f "$out/reftable/tables.list" ]; then
    while read -r t; do
      n=$((n + 1)); mv "$out/reftable/$t" "$out/reftable/table-$n.ref"; echo "table-$n.ref"
    done <"$out/reftable/tables.list" >"$out/list"
    mv "$out/list" "$out/reftable/tables.list"
  fi
}

check() {  # check LABEL DIR: git sees what it saw before, and verifies
  local label=$1 d=$2 why=
  if ! view "$d" >"$tmp/now" 2>&1 || ! diff -q "$tmp/before" "$tmp/now" >/dev/null; then
    why="git sees other refs or reflogs ($(format_of "$d"))
$(diff "$tmp/before" "$tmp/now" | head -10)"
  elif ! "$git" -C "$d" refs verify >"$tmp/verify" 2>&1; then
    why="git refs verify: $(head -5 "$tmp/verify")"
  fi
  verdict "$label" "$why"
}

torture() {  # torture FROM TO
  local from=$1 to=$2 base=$tmp/$1 n=1 st
  make_repo "$base" "$from"
  view "$base" >"$tmp/before"
  cp -a "$base" "$tmp/clean"
  "$reftab" --git-dir "$tmp/clean/.git" refs migrate --ref-format="$to"
  st=$?
  verdict "$from->$to uninterrupted" "$([ $st = 0 ] || echo "exit status $st")"
  canon "$tmp/clean" "$tmp/clean.canon"
  while :; do
    rm -rf "$tmp/k"; cp -a "$base" "$tmp/k"
    (REFTAB_TEST_KILL_AT_STEP=$n "$reftab" --git-dir "$tmp/k/.git" refs migrate --ref-format="$to"
      exit $?) 2>/dev/null
    st=$?
    [ "$st" = 0 ] && break
    if [ "$st" != 137 ]; then
      verdict "$from->$to killed before step $n" "exit $st, not killed"; break
    fi
    kills=$((kills + 1))
    check "$from->$to killed before step $n" "$tmp/k"
    if [ "$(format_of "$tmp/k")" = "$from" ]; then
      "$reftab" --git-dir "$tmp/k/.git" refs migrate --ref-format="$to"
      st=$?
      canon "$tmp/k" "$tmp/k.canon"
      verdict "$from->$to rerun after step $n gives the uninterrupted bytes" \
        "$([ $st = 0 ] || echo "exit status $st"; diff -r "$tmp/clean.canon" "$tmp/k.canon" | head -5)"
    fi
    check "$from->$to after step $n (and rerun)" "$tmp/k"
    n=$((n + 1))
  done
  # Kills at random moments, within steps too.
  local i delay
  for i in 1 2 3 4 5 6; do
    rm -rf "$tmp/k"; cp -a "$base" "$tmp/k"
    delay=$(printf '0.00%d' $((RANDOM % 9 + 1)))
    (timeout -s KILL "$delay" "$reftab" --git-dir "$tmp/k/.git" refs migrate --ref-format="$to"
      exit $?) 2>/dev/null
    [ $? = 137 ] && kills=$((kills + 1))
    check "$from->$to killed after ${delay}s" "$tmp/k"
  done
  rm -rf "$base" "$tmp/clean" "$tmp/k"
}

torture files reftable
torture reftable files
echo "# killed $kills times"
verdict_end
