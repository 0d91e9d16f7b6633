#!/usr/bin/env bash
# reftab reflog against the real git, case by case. Readers (show, list, exists) run on one
# repository; writers (delete, expire) on two copies of it, one changed by git and one by
# reftab. Both must agree on exit status, stdout and stderr (usage texts may name the
# program differently), and for writers on every reflog afterwards as git itself shows them
# (and as reftab reads them, old ids included). Writers include drop and write; a second
# repository with two linked worktrees checks that expire --all and drop --all visit every
# worktree as git's do.
#
# Usage: git_compare_reflog.sh REFTAB [FILTER]. Needs a reftable-capable git: $REFTAB_GIT,
# else `git` on PATH if it is at least 2.45; without one it is skipped. Prints TAP (real_git.sh).
set -u
reftab=$(realpath "$1")
filter=${2:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 45 "reftable needs 2.45"

isolate_git_env
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
# Relative dates ("2.days.ago") count from here, in both programs.
export GIT_TEST_DATE_NOW=1700100000
unset GIT_TEST_REFTABLE_AUTOCOMPACTION

# The repository: main with 25 commits an hour apart (so many reflog entries), branches made,
# moved back (unreachable entries) and deleted, HEAD moving between them and detached, a tag
# (no reflog), a remote branch, an annotated tag, a ref with only an existence marker.
T=$tmp/template
"$git" init -q -b main --ref-format=reftable "$T" || exit 1
t=1700000000
at() { export GIT_COMMITTER_DATE="$1 +0100" GIT_AUTHOR_DATE="$1 +0100"; }
g() { "$git" -C "$T" "$@"; }
for i in $(seq 1 25); do
  at $((t + i * 3600)); g commit -q --allow-empty -m "commit $i"
  if [ "$i" = 5 ]; then g branch topic; fi
  if [ "$i" = 8 ]; then g checkout -q topic; fi
  if [ "$i" = 12 ]; then g checkout -q main; fi
  if [ "$i" = 15 ]; then g branch gone; fi
done
at $((t + 26 * 3600)); g branch -q -D gone
at $((t + 27 * 3600)); g reset -q --hard HEAD~3           # entries now unreachable from main
at $((t + 28 * 3600)); g checkout -q --detach HEAD~1
at $((t + 29 * 3600)); g checkout -q main
at $((t + 30 * 3600)); g update-ref -m "set remote" refs/remotes/origin/main topic
at $((t + 31 * 3600)); g tag light HEAD~2
at $((t + 32 * 3600)); g tag -a -m annotated ann HEAD~4
at $((t + 33 * 3600)); g update-ref --create-reflog refs/heads/marker HEAD
at $((t + 34 * 3600)); g update-ref -m "tz east" refs/heads/topic topic~1
export GIT_COMMITTER_DATE="$((t + 35 * 3600)) -0530"
g update-ref -m "tz west" refs/heads/topic main
at $((t + 36 * 3600)); g update-ref -m "a message with	tab" refs/heads/topic topic~2
at $((t + 37 * 3600)); g branch ambig; g tag ambig-t; g update-ref refs/tags/ambig HEAD~5
unset GIT_COMMITTER_DATE GIT_AUTHOR_DATE

# Usage texts say "git ..." in git and "reftab ..." in reftab: that word is what differs.
# Writers run in copies $tmp/g and $tmp/r, which messages may name.
norm() {
  sed -e "s/^\(P:\)\{0,1\}usage: git /\1usage: reftab /" -e "s/^   or: git /   or: reftab /" -e "s/^ *\[/ [/" \
    -e "s#$tmp/[gr]/#$tmp/COPY/#g" "$1"
}

# same_normed FILE1 FILE2: the two agree after norm. Outputs holding nothing norm could
# change (most of them) are compared in the shell, without its processes (real_git.sh).
same_normed() {
  local a b
  if slurp a "$1" && slurp b "$2" && [[ $a$b != *"usage: "* && $a$b != *"or: "* &&
      $a$b != *"["* && $a$b != *"$tmp/"* ]]; then
    [[ $a == "$b" ]]
  else
    cmp -s <(norm "$1") <(norm "$2")
  fi
}

# Runs `reflog ARGS` in git directory $1 (git) and $2 (reftab); sets `why`.
run_both() {
  local gd=$1 rd=$2; shift 2
  "$git" --git-dir="$gd" reflog "$@" >"$tmp/go" 2>"$tmp/ge" </dev/null; local grc=$?
  "$reftab" --git-dir "$rd" reflog "$@" >"$tmp/ro" 2>"$tmp/re" </dev/null; local rrc=$?
  why=""
  [ "$grc" = "$rrc" ] || why+=" exit git=$grc reftab=$rrc;"
  same_normed "$tmp/go" "$tmp/ro" ||
    why+=" stdout: $(diff <(norm "$tmp/go") <(norm "$tmp/ro") | grep '^[<>]' | head -6 | tr '\n' ' ')"
  same_normed "$tmp/ge" "$tmp/re" ||
    why+=" stderr: $(diff <(norm "$tmp/ge") <(norm "$tmp/re") | grep '^[<>]' | head -6 | tr '\n' ' ')"
}

# A reader: both programs on the template.
ro() {
  local desc="${rw_label:-}show $*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  run_both "$T/.git" "$T/.git" "$@"
  verdict "$desc" "$why"
}

# A reader on a copy with one config setting KEY=VALUE.
ro_config() {
  local kv=$1; shift
  local desc="show [$kv] $*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  rm -rf "$tmp/c"; cp -a "$T" "$tmp/c"
  "$git" -C "$tmp/c" config "${kv%%=*}" "${kv#*=}"
  run_both "$tmp/c/.git" "$tmp/c/.git" "$@"
  verdict "$desc" "$why"
}

# Every reflog as git shows it (one walk over all of them), and as reftab reads them (old ids
# too, without update indices, which depend on table layout).
state() {
  local d=$1 refs
  refs=$("$git" --git-dir="$d" reflog list 2>&1)
  echo "reflogs: $refs"
  "$git" --git-dir="$d" for-each-ref --include-root-refs --format='%(refname) %(objectname)'
  # shellcheck disable=SC2086
  [ -n "$refs" ] && "$git" --git-dir="$d" log -g --date=raw --format='%gD|%H|%gn|%ge|%gs' $refs -- 2>&1
  "$reftab" --git-dir "$d" dump --format=jsonl 2>&1 | grep '"type":"log"' |
    grep -v '"value_type":0' | sed 's/"update_index":[0-9]*,//' | sort
}

# A writer: git on one copy, reftab on another; then both states must match.
rw() {
  local desc="${rw_label:-}$*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  rm -rf "$tmp/g" "$tmp/r"
  cp -a "$T" "$tmp/g"; cp -a "$T" "$tmp/r"
  run_both "$tmp/g/.git" "$tmp/r/.git" "$@"
  # Byte-identical copies are the same repository to git; otherwise git reads both.
  if ! same_files "$tmp/g" "$tmp/r"; then
    local gs rs
    gs=$(state "$tmp/g/.git"); rs=$(state "$tmp/r/.git")
    [ "$gs" = "$rs" ] ||
      why+=" state: $(diff <(echo "$gs") <(echo "$rs") | grep '^[<>]' | head -8 | tr '\n' ' ')"
  fi
  # git must still read reftab's stack as a valid one.
  "$git" --git-dir="$tmp/r/.git" refs verify >"$tmp/v" 2>&1 || why+=" refs verify: $(head -3 "$tmp/v")"
  verdict "$desc" "$why"
}

# A writer on copies with config settings KEY=VALUE[;KEY=VALUE...].
rw_config() {
  local kvs=$1 kv; shift
  local desc="[$kvs] $*" saved=$T
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  rm -rf "$tmp/cfg"; cp -a "$T" "$tmp/cfg"
  local IFS=';'
  for kv in $kvs; do "$git" -C "$tmp/cfg" config "${kv%%=*}" "${kv#*=}"; done
  unset IFS
  T=$tmp/cfg
  rw "$@"
  T=$saved
}

# --- show: the default view, selectors, dwim, several refs, -n, dates, formats ----------
for r in "" show "show HEAD" "show main" "show topic" "show refs/heads/topic" "show heads/topic" \
  "show marker" "show light" "show ann" "show origin/main" "show refs/remotes/origin/main" \
  "show nosuch" "show gone" "show @" "show ambig" "show refs/heads/ambig" "show tags/ambig" \
  "show main topic" "show topic main" "show HEAD main" "show main main" \
  "show HEAD@{0}" "show HEAD@{3}" "show HEAD@{42}" "show HEAD@{43}" "show HEAD@{44}" \
  "show main@{1}" "show main@{30}" "show main@{31}" "show topic@{2}" "show topic@{0}" \
  "show @{0}" "show @{2}" "show @{99}" "show marker@{0}" "show marker@{1}" \
  "show light@{0}" "show nosuch@{0}" "show main@{1700050000}" "show main@{100000000}" \
  "show main@{99999999}" "show -n 3" "show -n3 main" "show -3 topic" "show --max-count=2" \
  "show --max-count 4 topic" "show -n 0" "show -n -1 topic" "show -n x" "show --bogus" \
  "show -- " "--date=iso" "show --date=iso topic" "show --date=iso-strict topic" \
  "show --date=iso8601 main@{2}" "show --date=rfc topic" "show --date=rfc2822 -n2" \
  "show --date=short -n2" "show --date=raw topic" "show --date=unix topic" \
  "show --date=default -n2" "show --date=bogus" "show --oneline -n2" "show --pretty=oneline -n2" \
  "show --date=relative topic" "show --date=relative-local -n3" "show --date=human topic" \
  "show --date=human-local -n2" "show --date=format:%Y/%m/%d%H:%M topic" \
  "show --date=format-local:%s -n2" "show --date=format -n1" "show --date=auto:iso topic" \
  "show --date=auto:bogus -n1" "show --date=local -n2" "show --date=iso-local topic" \
  "show --date=iso8601-strict topic" "show --date=short-local -n2" "show --date=rfc-local topic" \
  "show --date=iso-strict-local topic" "show --date=unix-local topic" "show --date=raw-local topic" \
  "show --date=default-local -n2" "show --date=format: topic" "show --date=isox -n1" \
  "show --date=relative"; do
  # shellcheck disable=SC2086
  ro $r
done
ro show "main@{2023-11-15 05:00:00 +0100}"
ro show "main@{2023-11-15 05:00:00}"
ro show "main@{2023-11-14}"
ro show "main@{2020-01-01}"
ro show "topic@{1.day.ago}"
ro show "main@{5.hours.ago}"
ro show "main@{yesterday}"
ro show --date=iso "main@{2023-11-15 05:00:00 +0100}"
for f in '%gd' '%gD' '%gs' '%gn' '%ge' '%gN' '%gE' '%H' '%h' '%gd %h %gs' '%%gd%n%H' \
  '%gx' '%q' 'plain' '%' 'x%' '%x41%x4a' '%gd|%gD|%gn <%ge>|%gs' 'tformat:%gd %H' \
  'format:%gd %H'; do
  ro show --format="$f" -n 5
  ro show --format="$f" main@{2} topic
done
ro show --format='%gd %gD' refs/heads/ambig
ro show --format='%gd %gD' heads/ambig
ro show --format='%gd %gD' refs/remotes/origin/main
ro show --format='%gd %gD' refs/heads/topic
ro show --format='%gd' --date=iso topic
ro show --format='%gD' --date=raw "topic@{1.day.ago}"
ro show --pretty='format:%gd' -n 3
# Placeholders that read the commit (object database).
ro show --format='%h %s|%an|%ae|%ad|%cn|%ce|%cd|%at|%ct|%T|%P' -n 6
ro show --date=iso --format='%ad|%cd|%gd' topic
ro show --date=unix --format='%ad %s' main@{3}
ro show --date=relative --format='%gd|%ad|%cd' topic
ro show --date=relative "main@{1.day.ago}"
ro_config core.abbrev=12 show -n 3
ro_config core.abbrev=no show -n 2 topic
ro_config core.abbrev=auto show -n 2 topic
# core.abbrev as git reads it: the whole id for off/no/""/a length of the id or more; below 4
# or not a number, git's error and fatal lines before anything else.
for v in off false "" AUTO 10 40 64 3 0 -1 abc true; do
  ro_config "core.abbrev=$v" show -n 2 topic
  ro_config "core.abbrev=$v" show --format=%h%x20%H -n 1
done
ro_config core.abbrev=3 show --bogus
ro_config core.abbrev=abc show --date=relative -n 1

# --- show --all: every ref's reflog (refs/, then HEAD), merged by time -----------------------
for a in "show --all" "--all" "show --all -n 7" "show --all main" "show main --all" \
  "show --all --all -n 4" "show topic@{1} --all -n 6" "show --all --format=%gd|%gD|%gs|%h" \
  "show --all --date=iso -n 5" "show --all --date=relative -n 3" "show --all --oneline -n 2" \
  "show --all --bogus" "show --all -n 0" "show --all --format=%gd%x20%s -n 9"; do
  # shellcheck disable=SC2086
  ro $a
done

# --- "--" ends the revisions; HEAD is the default, with git's diagnosis when it names nothing --
for a in "show nope --" "nope --" "show --" "--" "show main --" "show main@{9} --" \
  "show --all --" "show -n 1 -- " "show HEAD@{1} --"; do
  # shellcheck disable=SC2086
  ro $a
done
# An empty repository, HEAD on an unborn branch of a repository with commits, a detached HEAD
# and a HEAD pointing at a ref name that is not a branch's.
U=$tmp/heads
rm -rf "$U" && mkdir -p "$U"
"$git" init -q -b main --ref-format=reftable "$U/empty"
"$git" init -q -b main --ref-format=reftable "$U/unborn"
"$git" -C "$U/unborn" commit -q --allow-empty -m one
"$git" -C "$U/unborn" symbolic-ref HEAD refs/heads/other
"$git" init -q -b main --ref-format=reftable "$U/detached"
"$git" -C "$U/detached" commit -q --allow-empty -m one
"$git" -C "$U/detached" update-ref --no-deref HEAD HEAD
"$git" init -q -b main --ref-format=reftable "$U/odd"
"$git" -C "$U/odd" symbolic-ref HEAD refs/odd/place
for repo in empty unborn detached odd; do
  for a in "" "show" "--" "show --" "show HEAD" "show HEAD --" "show main"; do
    desc="show [$repo HEAD] $a"
    if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then continue; fi
    # shellcheck disable=SC2086
    run_both "$U/$repo/.git" "$U/$repo/.git" $a
    verdict "$desc" "$why"
  done
done

# --- colours: --color[=WHEN], --no-color, color.ui / color.diff / color.diff.commit ----------
for a in "--color -n 2" "--color=always -n 2" "--color=never -n 2" "--color=auto -n 2" \
  "--color=bogus -n 1" "--color= -n 1" "--color --no-color -n 1" "--no-color --color -n 1" \
  "--color --all -n 4" "--color --format=%h%gd -n 2" "--color --date=iso topic" \
  "--color=always --oneline -n 1"; do
  # shellcheck disable=SC2086
  ro show $a
done
for kv in color.ui=always color.ui=never color.ui=auto color.ui=true color.ui=false \
  color.ui=bogus color.diff=always color.diff=false color.diff=AlWays "color.diff.commit=bold red" \
  color.diff.commit=bogus "color.diff.commit=#ff0000 ul" color.diff.commit=; do
  ro_config "$kv" show -n 2
  ro_config "$kv" show --color -n 1
done
ro_config core.abbrev=3 show --color=bogus

# On a terminal (a pseudo-terminal from util-linux's script, output and errors together):
# colours follow it, and so do log.decorate=auto's decorations (the refs at each commit after
# its id) and the pager. Pagers are scripts on PATH that mark each line they show.
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nsed "s/^/P:/"\n' >"$tmp/bin/ppager"
printf '#!/bin/sh\nsed "s/^/C:/"\n' >"$tmp/bin/cpager"
printf '#!/bin/sh\necho "LESS=${LESS-unset} LV=${LV-unset} IN_USE=${GIT_PAGER_IN_USE-unset}"\nsed "s/^/E:/"\n' \
  >"$tmp/bin/epager"
chmod +x "$tmp/bin/ppager" "$tmp/bin/cpager" "$tmp/bin/epager"
# tty_case ENV ARG...: `<program> --git-dir <dir> ARG...` on a terminal in both programs, with
# `env ENV` (word-split: "NAME=VALUE", "-u NAME").
tty_case() {
  local envs=$1; shift
  local desc="[tty] ${envs:+$envs }$*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  local side cmd
  for side in git reftab; do
    local dir=${tty_dir:-$T}
    if [ $side = git ]; then cmd=("$git" --git-dir="$dir/.git"); else cmd=("$reftab" --git-dir "$dir/.git"); fi
    # shellcheck disable=SC2086
    env $envs TERM=xterm PATH="$tmp/bin:$PATH" script -qec "$(printf '%q ' "${cmd[@]}" "$@")" \
      /dev/null </dev/null >"$tmp/tty-$side"
    echo "exit $?" >>"$tmp/tty-$side"
  done
  why=""
  cmp -s <(norm "$tmp/tty-git") <(norm "$tmp/tty-reftab") ||
    why="$(diff <(norm "$tmp/tty-git") <(norm "$tmp/tty-reftab") | grep '^[<>]' | head -6)"
  verdict "$desc" "$why"
}
if command -v script >/dev/null; then
  for a in "-n 3" "--no-color -n 3" "--format=%gd%x20%h%x20%gs -n 3" "--all --format=%gD -n 4" \
    "--color=never --format=%h -n 2" "--date=relative --format=%gd -n 2" "--bogus" \
    "--all -n 14" "--all --no-color -n 14" "topic -n 4" \
    "--decorate -n 3" "--decorate=short -n 3" "--decorate=full -n 3" "--decorate=full --all -n 14" \
    "--decorate=auto -n 3" "--decorate=no -n 3" "--no-decorate -n 3" "--decorate=1 -n 2" \
    "--decorate=false -n 2" "--decorate= -n 2" "--decorate=bogus -n 1" "--decorate=FULL -n 1" \
    "--decorate=full --no-decorate -n 2" "--no-decorate --decorate -n 2" \
    "--format=%h --decorate -n 2" "--oneline --decorate=full -n 2"; do
    # shellcheck disable=SC2086
    tty_case GIT_PAGER=cat reflog show $a
  done
  # log.decorate (its last value; anything else quietly none) and the options over it.
  for v in short full no auto true false 0 yes bogus ""; do
    tty_case GIT_PAGER=cat -c "log.decorate=$v" reflog show -n 3
  done
  tty_case GIT_PAGER=cat -c log.decorate reflog show -n 2
  tty_case GIT_PAGER=cat -c log.decorate=full -c log.decorate=no reflog show -n 2
  tty_case GIT_PAGER=cat -c log.decorate=no reflog show --decorate -n 2
  tty_case GIT_PAGER=cat -c log.decorate=full reflog show --decorate=short -n 2
  tty_case GIT_PAGER=cat -c log.decorate=full reflog show --no-decorate -n 2
  # Decorations' colours: color.decorate.<slot> (any case), the parentheses in the id's colour.
  for kv in "color.decorate.branch=blue" "color.decorate.HEAD=bold red" \
    "color.decorate.remoteBranch=#ff0000 ul" "color.decorate.tag=reverse" \
    "color.decorate.Stash=green" "color.decorate.grafted=red" "color.decorate.bogus=red" \
    "color.decorate.branch=bogus" "color.decorate.tag=" "color.diff.commit=blue" \
    "color.ui=never" "color.ui=always"; do
    tty_case GIT_PAGER=cat -c "$kv" reflog show --all -n 14
  done
  tty_case GIT_PAGER=cat -c color.decorate.branch reflog show -n 1
  # A detached HEAD, refs/stash, a symbolic remote HEAD, a tag of a tag, refs git leaves out.
  D=$tmp/decorated
  cp -a "$T" "$D"
  "$git" -C "$D" checkout -q --detach main~1
  "$git" -C "$D" update-ref refs/stash main~2
  "$git" -C "$D" symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
  "$git" -C "$D" -c advice.nestedTag=false tag -a -m nested nested ann
  "$git" -C "$D" update-ref refs/notes/n main
  "$git" -C "$D" update-ref refs/other/x main~1
  for a in "--all -n 20" "--all --decorate=full -n 20" "main -n 3" "--all --no-color -n 20"; do
    # shellcheck disable=SC2086
    tty_dir=$D tty_case GIT_PAGER=cat reflog show $a
  done
  tty_dir=$D tty_case GIT_PAGER=cat -c color.decorate.stash=blue reflog show --all -n 20

  # The pager: GIT_PAGER, core.pager, PAGER, in that order; "cat" or "" for none.
  tty_case GIT_PAGER=ppager reflog show -n 3
  tty_case GIT_PAGER=ppager reflog -n 3
  tty_case GIT_PAGER=ppager reflog show --all -n 14
  tty_case GIT_PAGER=ppager -c core.pager=cpager reflog show -n 2
  tty_case "-u GIT_PAGER PAGER=ppager" reflog show -n 2
  tty_case "-u GIT_PAGER PAGER=ppager" -c core.pager=cpager reflog show -n 2
  tty_case "-u GIT_PAGER PAGER=ppager" -c core.pager= reflog show -n 2
  tty_case "-u GIT_PAGER PAGER=cat" reflog show -n 2
  tty_case "-u GIT_PAGER PAGER=" reflog show -n 2
  tty_case GIT_PAGER= reflog show -n 2
  tty_case GIT_PAGER=epager reflog show -n 1
  # The default pager, less (its escapes included), when installed.
  if command -v less >/dev/null; then tty_case "-u GIT_PAGER -u PAGER" reflog show -n 2; fi
  tty_case "GIT_PAGER=epager LESS=abc LV=x" reflog show -n 1
  # -P/--no-pager and -p/--paginate before the command (the last one given wins), pager.reflog.
  for o in -P --no-pager -p --paginate "-P -p" "-p -P"; do
    # shellcheck disable=SC2086
    tty_case GIT_PAGER=ppager $o reflog show -n 2
  done
  for kv in pager.reflog=false pager.reflog=true pager.reflog=0 pager.reflog=cpager; do
    tty_case GIT_PAGER=ppager -c "$kv" reflog show -n 2
    tty_case GIT_PAGER=ppager -c "$kv" reflog list
  done
  tty_case "-u GIT_PAGER" -c pager.reflog=cpager reflog show -n 2
  tty_case "-u GIT_PAGER" -c pager.reflog=cpager -c core.pager=ppager reflog show -n 2
  tty_case GIT_PAGER=ppager -c pager.reflog -p reflog exists HEAD
  tty_case GIT_PAGER=ppager -p reflog list
  tty_case GIT_PAGER=ppager -p -c pager.reflog=false reflog list
  tty_case GIT_PAGER=ppager -P -c pager.reflog=true reflog show -n 1
  # Colours through the pager: color.pager (or pager.color), default true.
  for kv in color.pager=false color.pager=true pager.color=false color.pager=bogus; do
    tty_case GIT_PAGER=ppager -c "$kv" reflog show -n 2
  done
  tty_case GIT_PAGER=ppager -c color.pager=false reflog show --color -n 1
  tty_case GIT_PAGER=cat -c color.pager=false reflog show -n 1
  # Errors: before the pager starts (on the terminal), or through it when it runs already.
  tty_case GIT_PAGER=ppager reflog show --bogus
  tty_case GIT_PAGER=ppager reflog show nosuch
  tty_case GIT_PAGER=ppager -p reflog show --bogus
  tty_case GIT_PAGER=ppager -c pager.reflog=true reflog show nosuch
  tty_case GIT_PAGER=ppager -c pager.reflog=true reflog exists
fi
# Off a terminal: no decorations unless asked for, and never a pager.
for a in "--decorate -n 3" "--decorate=full --all -n 14" "--decorate --color -n 3" \
  "--decorate=auto -n 2" "--decorate=bogus"; do
  # shellcheck disable=SC2086
  ro show $a
done
for v in short auto full; do ro_config "log.decorate=$v" show -n 2; done
ro_config color.pager=bogus show -n 1
ro_config color.pager=false show --color -n 1
ro_config "color.decorate.tag=bold blue" show --all --decorate --color -n 14
rw_label="[GIT_PAGER=ppager] " GIT_PAGER=ppager ro show -n 2
# --- list, exists --------------------------------------------------------------------------
ro list
ro list x
ro list --bogus
for r in HEAD refs/heads/main main refs/heads/marker refs/heads/gone refs/tags/light \
  refs/remotes/origin/main 'bad..ref' '' refs/heads/ '@'; do
  ro exists "$r"
done
ro exists
ro exists --bogus
ro exists -x HEAD

# --- delete ---------------------------------------------------------------------------------
for a in "HEAD@{0}" "HEAD@{1}" "HEAD@{5}" "HEAD@{41}" "HEAD@{42}" "HEAD@{43}" "HEAD@{100}" \
  "main@{0}" "main@{3}" "refs/heads/main@{2}" "topic@{1}" "topic@{0}" "marker@{0}" \
  "origin/main@{0}" "nosuch@{0}" "light@{0}" "HEAD" "main" "main@{2023-11-15 05:00:00 +0100}" \
  "topic@{2023-11-15}"; do
  rw delete "$a"
  rw delete --updateref --rewrite --verbose "$a"
done
for a in "HEAD@{1}" "main@{0}" "topic@{1}" "marker@{0}"; do
  rw delete --rewrite "$a"
  rw delete --updateref "$a"
  rw delete --dry-run --verbose "$a"
done
rw delete "HEAD@{1}" "HEAD@{1}" "HEAD@{1}"
rw delete "main@{0}" "topic@{0}" "HEAD@{2}"
rw delete "main@{0}" nothere "topic@{0}"
rw delete
rw delete --bogus
rw delete -n "topic@{1}"

# --- expire ---------------------------------------------------------------------------------
# The unreachable time is never later than the total one: the policy needs no commit walk.
for e in all now never 2023-11-15 "2023-11-15 05:00:00 +0100" 1700040000 @1700040000 \
  2.days.ago "20 hours ago" 1.week.ago; do
  rw expire --expire="$e" --expire-unreachable=never HEAD
  rw expire --expire="$e" --expire-unreachable=never main
done
for r in HEAD main topic refs/heads/topic marker origin/main nosuch light; do
  rw expire "$r"
  rw expire --expire=all --expire-unreachable=all "$r"
  rw expire --updateref --expire=1700040000 --expire-unreachable=never "$r"
  rw expire --rewrite --updateref --verbose --expire=1700040000 --expire-unreachable=never "$r"
  rw expire --dry-run --verbose --expire=1700040000 --expire-unreachable=never "$r"
done
# Entries older than the unreachable time go when their commits are not reachable from the
# tip (for HEAD: from any ref) — the commits a reset and a deleted branch left behind.
for r in HEAD main topic origin/main; do
  for u in all now 1700060000 2.days.ago; do
    rw expire --expire=never --expire-unreachable="$u" "$r"
  done
  rw expire --expire=1700020000 "$r"
  rw expire --expire=1700020000 --expire-unreachable=1700080000 --verbose "$r"
  rw expire --rewrite --updateref --expire=never --expire-unreachable=all "$r"
done
rw expire --all --expire=never --expire-unreachable=all
rw expire --all --expire=1700040000 --expire-unreachable=never
rw expire --all --dry-run --verbose --expire=1700040000 --expire-unreachable=never
rw expire --all
rw expire --all --verbose
rw expire --expire=bogus HEAD
rw expire --expire-unreachable=bogus HEAD
rw expire --bogus HEAD
rw expire --expire=all main topic nosuch HEAD

rw expire --all --single-worktree --expire=all
# The expiry configuration: gc.reflogExpire[Unreachable] and the gc.<pattern>.* forms (the
# first matching pattern gives both times, '*' matching '/' too), overridden by the options.
# Relative dates count from GIT_TEST_DATE_NOW, the defaults from the clock.
for cfg in "gc.reflogExpire=never" "gc.reflogExpire=now" "gc.reflogExpire=all" \
    "gc.reflogExpire=false" "gc.reflogExpireUnreachable=never" "gc.reflogExpireUnreachable=now" \
    "gc.reflogExpire=never;gc.reflogExpireUnreachable=now" "gc.reflogExpire=10.hours.ago" \
    "gc.reflogExpire=1700040000;gc.reflogExpireUnreachable=never" \
    "gc.reflogExpire=never;gc.refs/heads/*.reflogExpire=now" \
    "gc.reflogExpire=never;gc.refs/*.reflogExpireUnreachable=now" \
    "gc.reflogExpire=never;gc.refs/heads/m*.reflogExpire=now;gc.refs/heads/*.reflogExpire=never" \
    "gc.reflogExpire=now;gc.HEAD.reflogExpire=never" "gc.reflogExpire=never;gc.refs/?eads/to[p]ic.reflogExpire=now" \
    "gc.reflogExpire=bogus" "gc.refs/heads/*.reflogExpireUnreachable=1.day.ago" \
    "gc.reflogexpire=never;gc.reflogExpire=now"; do
  rw_config "$cfg" expire --all --verbose
done
rw_config "gc.reflogExpire=never" expire --all --expire=now
rw_config "gc.reflogExpire=now" expire --all --expire=never --expire-unreachable=never
rw_config "gc.refs/heads/*.reflogExpire=now" expire --expire-unreachable=never main topic HEAD
rw_config "gc.reflogExpire=bogus" expire --expire=bogus HEAD
# expire reads the rest of git's configuration: a core.abbrev git refuses stops it before it
# writes anything (delete does not read it). Both copies must stay as they were; git's
# `refs verify` would refuse the configuration too, so rw's check of the result is not run.
for c in "core.abbrev=3 expire --all --expire=now" "core.abbrev=abc expire --all" \
    "core.abbrev=3 delete HEAD@{1}"; do
  read -r kv args <<<"$c"
  desc="[$kv] $args"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then continue; fi
  rm -rf "$tmp/g" "$tmp/r"; cp -a "$T" "$tmp/g"
  "$git" -C "$tmp/g" config "${kv%%=*}" "${kv#*=}"; cp -a "$tmp/g" "$tmp/r"
  # shellcheck disable=SC2086
  run_both "$tmp/g/.git" "$tmp/r/.git" $args
  same_files "$tmp/g" "$tmp/r" || why+=" the copies differ afterwards"
  verdict "$desc" "$why"
done
rw_config "core.abbrev=off" expire --all --expire=now
rw expire --all --no-single-worktree --verbose --expire=1700040000 --expire-unreachable=never

# --- drop -----------------------------------------------------------------------------------
for a in "" HEAD main topic refs/heads/topic marker origin/main nosuch light "main nosuch topic" \
  "nosuch other" "--all" "--all --single-worktree" "--no-all main" "--all main" "-- main" \
  "--bogus" "-x main" "main main"; do
  # shellcheck disable=SC2086
  rw drop $a
done

# --- write ----------------------------------------------------------------------------------
O=$("$git" -C "$T" rev-parse main~1) N=$("$git" -C "$T" rev-parse main)
TREE=$("$git" -C "$T" rev-parse "main^{tree}")
Z=0000000000000000000000000000000000000000
export GIT_COMMITTER_DATE="1700200000 +0200"
rw write refs/heads/main "$O" "$N" "a message"
rw write refs/heads/new "$Z" "$N" "created"
rw write HEAD "$N" "$O" "  spaced
 out   message  "
rw write ORIG_HEAD "$O" "$N" ""
rw write FOO_HEAD "$O" "$N" m
rw write refs/heads/main/below "$O" "$N" m
rw write x/y "$O" "$N" m
rw write refs/heads/-x "$O" "$N" m
rw write refs/tags/ann "$TREE" "$N" "a tree"
rw write main-worktree/HEAD "$O" "$N" m
rw write worktrees/none/HEAD "$O" "$N" m
rw write -- refs/heads/main "$O" "$N" m
rw write refs/heads/main "$O" "$N" m --
rw write refs/heads/main "$(echo "$O" | tr a-f A-F)" "${N}ff" m
for bad in "main $O $N m" "FETCH_HEAD $O $N m" "MERGE_HEAD $O $N m" "BISECT_START $O $N m" \
  "refs/heads/a..b $O $N m" "refs/heads/x zz $N m" "refs/heads/x $O zz m" \
  "refs/heads/x ${O:0:12} $N m" "refs/heads/x 1111111111111111111111111111111111111111 $N m" \
  "refs/heads/x $O 2222222222222222222222222222222222222222 m" "refs/heads/x $O $N" \
  "refs/heads/x $O $N m extra" "" "--bogus" "-h"; do
  # shellcheck disable=SC2086
  rw write $bad
done
rw_config core.logAllRefUpdates=false write refs/heads/main "$O" "$N" "logged anyway"
unset GIT_COMMITTER_DATE

# --- expire --stale-fix: entries whose objects are broken ---------------------------------
# A repository with files and subdirectories: main c1..c6, reset to c3 (c4..c6 left in the
# reflogs), a branch made from c2 and deleted (its commit g1 left in HEAD's reflog), commits
# with a submodule (a gitlink: git counts one as missing), one tagged and one left behind,
# and a ref whose reflog points at a blob, a tag of a blob and an annotated tag. Each variant
# then removes objects (loose files) or adds what git trusts besides the refs.
S=$tmp/stemplate
sg() { "$git" -C "$S" "$@"; }
at $((t + 3600)); "$git" init -q -b main --ref-format=reftable "$S" || exit 1
for i in 1 2 3 4 5 6; do
  at $((t + i * 3600))
  mkdir -p "$S/d/e"; echo "$i" >"$S/f$i"; echo "d$i" >"$S/d/x"; echo "e$i" >"$S/d/e/y"
  sg add -A; sg commit -q -m "c$i"
  if [ "$i" = 2 ]; then
    sg checkout -q -b gone; echo g >"$S/g"; sg add g; sg commit -q -m g1; sg checkout -q main
    sg branch -q -D gone
  fi
done
at $((t + 7 * 3600)); sg reset -q --hard HEAD~3
at $((t + 8 * 3600)); sg checkout -q -b subm
GL=1111111111111111111111111111111111111111
sg update-index --add --cacheinfo "160000,$GL,sub"; sg commit -q -m "with a submodule"
sg tag subtag; echo s >"$S/s"; sg add s; sg commit -q -m "submodule 2"
at $((t + 9 * 3600)); sg checkout -q main; sg branch -q -D subm
at $((t + 10 * 3600))
BLOB=$(echo "a blob" | sg hash-object -w --stdin)
sg tag -a -m "of a blob" btag "$BLOB"; sg tag -a -m annotated ann main~1
sg update-ref --create-reflog -m "to c1" refs/misc/obj main~2
sg update-ref -m "to a blob" refs/misc/obj "$BLOB"
sg update-ref -m "to a tag of a blob" refs/misc/obj "$(sg rev-parse btag)"
sg update-ref -m "to a tag" refs/misc/obj "$(sg rev-parse ann)"
sg update-ref -m "back" refs/misc/obj main
unset GIT_COMMITTER_DATE GIT_AUTHOR_DATE
C2=$(sg rev-parse main~1)
entry() { sg log -g --format='%H %gs' HEAD | sed -n "s/ commit: $1\$//p"; }
C4=$(entry c4) C5=$(entry c5) C6=$(entry c6)
# The path of an object's loose file in template $1.
loose() { echo "$1/.git/objects/${2:0:2}/${2:2}"; }
# stale_variant NAME: a copy of the template in $tmp/s-NAME, damaged as NAME says.
stale_variant() {
  local v=$tmp/s-$1; rm -rf "$v"; cp -a "$S" "$v"
  case $1 in
    intact) ;;
    tree5) rm "$(loose "$v" "$(sg rev-parse "$C5^{tree}")")" ;;
    commit5) rm "$(loose "$v" "$C5")" ;;
    blob4) rm "$(loose "$v" "$(echo 4 | sg hash-object --stdin)")" ;;
    subtree5) rm "$(loose "$v" "$(sg rev-parse "$C5:d/e")")" ;;
    tree2) rm "$(loose "$v" "$(sg rev-parse "$C2^{tree}")")" ;;
    commit2) rm "$(loose "$v" "$C2")" ;;
    shallow) echo "$C5" >"$v/.git/shallow"; rm "$(loose "$v" "$C4")" ;;
    rebase) mkdir -p "$v/.git/rebase-merge"; echo "$C6" >"$v/.git/rebase-merge/orig-head"
      rm "$(loose "$v" "$(sg rev-parse "$C5^{tree}")")" ;;
    rebase-bad) mkdir -p "$v/.git/rebase-apply"
      printf '  2222222222222222222222222222222222222222 x\n' >"$v/.git/rebase-apply/autostash" ;;
    detached) "$git" -C "$v" checkout -q --detach "$C6"; rm "$(loose "$v" "$(sg rev-parse "$C5^{tree}")")" ;;
    ref-bad) rm "$(loose "$v" "$BLOB")" ;;
    head-bad) rm "$(loose "$v" "$(sg rev-parse main)")" ;;
  esac
}
saved_T=$T
for v in intact tree5 commit5 blob4 subtree5 tree2 commit2 shallow rebase rebase-bad detached \
  ref-bad head-bad; do
  rw_label="[stale:$v] "
  stale_variant "$v"; T=$tmp/s-$v
  ro show --all
  ro show --all --format=%gD%x20%h%x20%gs
  for a in "--all" "--all --verbose" "--all --dry-run --verbose" "--verbose HEAD" \
    "--verbose main refs/misc/obj" "--dry-run --verbose HEAD main" "--all --single-worktree" \
    "--all --rewrite --updateref --verbose"; do
    # shellcheck disable=SC2086
    rw expire --stale-fix --expire=never --expire-unreachable=never $a
  done
  rw expire --stale-fix --expire=1700020000 --expire-unreachable=never --verbose --all
  rw expire --stale-fix --expire=never --expire-unreachable=now --verbose --all
  rw expire --stale-fix --expire=never --expire-unreachable=1700030000 --verbose HEAD main
  rw expire --stale-fix --verbose HEAD
  rw expire --stale-fix --no-stale-fix --expire=never --verbose --all
  rw expire --no-stale-fix --stale-fix --expire=never --expire-unreachable=never --updateref main
  rw expire --stale-fix --expire=never nosuch HEAD
done
# Without git's ref paranoia, a ref whose object is missing is left out with an error line.
for v in intact ref-bad head-bad; do
  rw_label="[stale:$v GIT_REF_PARANOIA=0] "
  stale_variant "$v"; T=$tmp/s-$v
  export GIT_REF_PARANOIA=0
  ro show --all
  rw expire --stale-fix --expire=never --expire-unreachable=never --verbose --all
  GIT_REF_PARANOIA=bogus rw expire --stale-fix --expire=never --verbose HEAD
  unset GIT_REF_PARANOIA
done
rw_label=""
T=$saved_T

# --- every worktree: expire --all and drop --all from the main and a linked worktree --------
# A second repository: the main worktree and two linked ones, each with its own HEAD moving and
# per-worktree reflogs (refs/bisect/, refs/worktree/, a root ref), entries an hour apart.
W=$tmp/wtemplate
wg() { local d=$1; shift; "$git" -C "$W/$d" "$@"; }
at $((t + 3600)); "$git" init -q -b main --ref-format=reftable "$W/main" || exit 1
for i in 1 2 3 4; do at $((t + i * 3600)); wg main commit -q --allow-empty -m "w$i"; done
for w in wt1 wt2; do
  at $((t + 5 * 3600)); wg main worktree add -q -b "b-$w" "$W/$w" main~1 2>/dev/null || exit 1
  for i in 6 7 8; do at $((t + i * 3600)); wg "$w" commit -q --allow-empty -m "$w $i"; done
  at $((t + 9 * 3600)); wg "$w" update-ref -m bisect refs/bisect/bad HEAD~1
  at $((t + 10 * 3600)); wg "$w" update-ref -m mark refs/worktree/mark HEAD
  at $((t + 11 * 3600)); wg "$w" update-ref --create-reflog -m orig ORIG_HEAD HEAD~2
  at $((t + 12 * 3600)); wg "$w" reset -q --hard HEAD~1
done
at $((t + 13 * 3600)); wg main update-ref -m "main mark" refs/worktree/mark main~2
at $((t + 14 * 3600)); wg main update-ref -m "main bisect" refs/bisect/good main~1
unset GIT_COMMITTER_DATE GIT_AUTHOR_DATE

# Every worktree's refs and reflogs as git sees them from that worktree.
wstate() {
  local top=$1 d refs
  for d in "$top/main/.git" "$top"/main/.git/worktrees/*; do
    echo "=== ${d#"$top"/}"
    refs=$("$git" --git-dir="$d" reflog list 2>&1)
    echo "reflogs: $refs"
    "$git" --git-dir="$d" for-each-ref --include-root-refs --format='%(refname) %(objectname)'
    # shellcheck disable=SC2086
    [ -n "$refs" ] && "$git" --git-dir="$d" log -g --date=raw --format='%gD|%H|%gs' $refs -- 2>&1
    "$git" --git-dir="$d" refs verify 2>&1
  done
}

# wrw WHERE ARGS...: `reflog ARGS` in worktree WHERE (main, wt1, wt2) of two copies of $W.
wrw() {
  local where=$1; shift
  local desc="[$where] $*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  local side w
  for side in g r; do
    rm -rf "${tmp:?}/$side"; cp -a "$W" "$tmp/$side"
    for w in wt1 wt2; do
      echo "gitdir: $tmp/$side/main/.git/worktrees/$w" >"$tmp/$side/$w/.git"
      [ -s "$tmp/$side/main/.git/worktrees/$w/gitdir" ] &&
        echo "$tmp/$side/$w/.git" >"$tmp/$side/main/.git/worktrees/$w/gitdir"
    done
  done
  local gd=main/.git
  [ "$where" = main ] || gd=main/.git/worktrees/$where
  run_both "$tmp/g/$gd" "$tmp/r/$gd" "$@"
  local gs rs
  gs=$(wstate "$tmp/g"); rs=$(wstate "$tmp/r" | sed "s#$tmp/r/#$tmp/g/#g")
  [ "$gs" = "$rs" ] ||
    why+=" state: $(diff <(echo "$gs") <(echo "$rs") | grep '^[<>]' | head -8 | tr '\n' ' ')"
  verdict "$desc" "$why"
}

# show --all from each worktree: its own refs and HEAD, then the other worktrees' HEADs.
for where in main wt1 wt2; do
  for a in "--all" "--all --format=%gD|%gs"; do
    desc="[$where] show $a"
    if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then continue; fi
    gd=$W/main/.git; [ "$where" = main ] || gd=$W/main/.git/worktrees/$where
    # shellcheck disable=SC2086
    run_both "$gd" "$gd" show $a
    verdict "$desc" "$why"
  done
done
for where in main wt1 wt2; do
  wrw $where expire --all --expire=all --expire-unreachable=all
  wrw $where expire --all --verbose --expire=1700020000 --expire-unreachable=never
  wrw $where expire --all --dry-run --verbose --expire=1700030000 --expire-unreachable=never
  wrw $where expire --all --single-worktree --verbose --expire=all
  wrw $where expire --all --single-worktree --no-single-worktree --expire=all
  wrw $where expire --verbose --expire=all main-worktree/HEAD worktrees/wt1/HEAD
  wrw $where drop --all
  wrw $where drop --all --single-worktree
  wrw $where drop HEAD refs/bisect/bad refs/worktree/mark
  wrw $where drop main-worktree/HEAD worktrees/wt2/refs/bisect/bad
  # The new entry's time: from the clock, git's run and ours could fall in different seconds.
  export GIT_COMMITTER_DATE="1700300000 +0100"
  wrw $where write HEAD "$Z" "$(wg main rev-parse main)" "from $where"
  wrw $where write worktrees/wt1/HEAD "$Z" "$(wg main rev-parse main)" "to wt1"
  unset GIT_COMMITTER_DATE
done
# A linked worktree whose gitdir file is empty is left out, as git leaves it out (even when
# it is the current one).
W2=$W; W=$tmp/wtemplate2; rm -rf "$W"; cp -a "$W2" "$W"
: >"$W/main/.git/worktrees/wt2/gitdir"
wrw main expire --all --verbose --expire=all
wrw wt2 expire --all --verbose --expire=all
wrw wt2 drop --all
W=$W2

# A SHA-256 repository: reflog show reads its commits (subjects, dates, abbreviated ids) as
# in a SHA-1 one, and expire finds what is unreachable.
S=$tmp/sha256
"$git" init -q -b main --ref-format=reftable --object-format=sha256 "$S" || exit 1
for i in 1 2 3 4 5; do
  at $((t + i * 3600)); "$git" -C "$S" commit -q --allow-empty -m "sha256 commit $i"
done
at $((t + 6 * 3600)); "$git" -C "$S" checkout -q -b side HEAD~2
at $((t + 7 * 3600)); "$git" -C "$S" commit -q --allow-empty -m "on side"
at $((t + 8 * 3600)); "$git" -C "$S" checkout -q main
at $((t + 9 * 3600)); "$git" -C "$S" reset -q --hard HEAD~1
unset GIT_COMMITTER_DATE GIT_AUTHOR_DATE
ro256() {
  local desc="sha256: $*"
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  rm -rf "$tmp/g" "$tmp/r"; cp -a "$S" "$tmp/g"; cp -a "$S" "$tmp/r"
  run_both "$tmp/g/.git" "$tmp/r/.git" "$@"
  gs=$(state "$tmp/g/.git"); rs=$(state "$tmp/r/.git" | sed "s#$tmp/r/#$tmp/g/#g")
  [ "$gs" = "$rs" ] ||
    why+=" state: $(diff <(echo "$gs") <(echo "$rs") | grep '^[<>]' | head -8 | tr '\n' ' ')"
  verdict "$desc" "$why"
}
ro256 show
ro256 show side
ro256 show --format='%h %s|%an|%ad|%T|%P' -n 4
ro256 show --date=iso --format='%gd %gs' main
ro256 show "main@{2}"
ro256 expire --dry-run --verbose --expire=never --expire-unreachable=all main
ro256 expire --verbose --expire=never --expire-unreachable=all --all
ro256 expire --dry-run --verbose --stale-fix --expire=never --all
ro256 expire --stale-fix --all
# --stale-fix trusts every worktree's HEAD: wt2 detached on a commit no ref reaches whose
# blob is then removed (kept, from any worktree), wt1 resetting away one whose blob goes too
# (pruned).
W=$tmp/wtemplate3; rm -rf "$W"; cp -a "$W2" "$W"
for w in wt1 wt2; do
  echo "gitdir: $W/main/.git/worktrees/$w" >"$W/$w/.git"
  echo "$W/$w/.git" >"$W/main/.git/worktrees/$w/gitdir"
done
at $((t + 15 * 3600))
echo x >"$W/wt2/x"; wg wt2 add x; wg wt2 checkout -q --detach; wg wt2 commit -q -m "wt2 detached"
echo y >"$W/wt1/y"; wg wt1 add y; wg wt1 commit -q -m "wt1 lost"; wg wt1 reset -q --hard HEAD~1
unset GIT_COMMITTER_DATE GIT_AUTHOR_DATE
for b in x y; do
  h=$(echo "$b" | wg main hash-object --stdin); rm "$W/main/.git/objects/${h:0:2}/${h:2}"
done
for where in main wt1 wt2; do
  wrw $where expire --stale-fix --all --verbose --expire=never --expire-unreachable=never
  wrw $where expire --stale-fix --verbose --expire=never HEAD main-worktree/HEAD worktrees/wt2/HEAD
done
W=$W2

# --- -h and usage errors before the refs are read --------------------------------------------
# git's option parsers answer before anything reads the refs: in a files-backend repository
# (which reftab cannot read) each subcommand's -h and usage errors are git's; outside any
# repository git's setup refuses first. show answers -h anywhere before "--", with its own
# one-line usage.
F=$tmp/files-repo
"$git" init -q -b main --ref-format=files "$F" && "$git" -C "$F" commit -q --allow-empty -m one
# helper_case LABEL GITDIR ARG...
helper_case() {
  local desc="$1 ${*:3}"
  local dir=$2; shift 2
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  run_both "$dir" "$dir" "$@"
  verdict "$desc" "$why"
}
for a in "show -h" "show HEAD -h" "show --bogus -h" "show -n 1 -h" "list -h" "exists -h" \
    "delete -h" "expire -h" "drop -h" "write -h" "expire --all -h" "exists -h HEAD" \
    "list --bogus" "list --bogus -h" "exists" "exists --bogus" "delete" "delete --bogus" \
    "expire --bogus" "expire --expire=bogus" "drop --all x" "drop --bogus" "write a b" \
    "write --bogus" "exists 'bad..ref'"; do
  # shellcheck disable=SC2086
  helper_case "[files]" "$F/.git" $a
done
for a in "show -h" "show -h --" "show HEAD -h" "show --bogus -h" "show -n 1 -h"; do
  # shellcheck disable=SC2086
  helper_case "[reftable]" "$T/.git" $a
done
for a in "show -h" "list -h" "expire -h"; do
  # shellcheck disable=SC2086
  helper_case "[no repository]" "$tmp/no-such-repo" $a
done
# expire reads its configuration before its options, in git as in reftab.
cp -a "$F" "$F-badexpire"
"$git" -C "$F-badexpire" config gc.reflogExpire bogus
helper_case "[files, gc.reflogExpire=bogus]" "$F-badexpire/.git" expire -h
helper_case "[files, gc.reflogExpire=bogus]" "$F-badexpire/.git" list -h

verdict_end
