#!/usr/bin/env bash
# Every write path of the CLI under a failing system call: for each writing command, a
# counting run numbers the writes, syncs, renames and truncates it makes inside the
# repository (tests/testutil/syscall_fault_preload.c, preloaded), then one run per number N
# makes the Nth of them fail (writes with ENOSPC, the others with EIO). After each:
#   - git sees the refs, symrefs and reflogs (and the ref storage format) exactly as before
#     the command or exactly as after it, never a mixture;
#   - `git refs verify` and `git fsck` pass, and reftable/ holds no table that tables.list
#     does not name, and no lock or temporary file;
#   - a next git write and a next reftab write succeed (no lock left behind);
#   - the command failed naming the file whose call failed, or (only where the command is
#     done: the state is the one after) succeeded with a warning naming it, as git warns
#     when `refs migrate` cannot tidy up or a lock's pid file cannot be written.
#
# Usage: syscall_faults.sh REFTAB PRELOAD [FILTER]. REFTAB must be dynamically linked (a
# static binary has no loader to preload with); FILTER selects commands by name. Needs a
# reftable-capable git: $REFTAB_GIT, else `git` on PATH if it is at least 2.46; without one
# it is skipped. Prints TAP (real_git.sh).
set -u
reftab=$(realpath "$1")
preload=$(realpath "$2")
filter=${3:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 46 "refs migrate needs 2.46"
isolate_git_env
tmp=$(realpath "$tmp")
export GIT_COMMITTER_DATE='1700000000 +0000' GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
export GIT_AUTHOR_DATE='1700000000 +0000'
unset GIT_TEST_REFTABLE_AUTOCOMPACTION
umask 022
# A sanitizer's runtime wants to be the first library loaded; the preloaded one comes first.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0

if ldd "$reftab" 2>&1 | grep -q 'not a dynamic executable'; then
  echo "Bail out! $reftab is statically linked: nothing can be preloaded into it"
  exit 1
fi

# ------------------------------------------------------------------ repositories
# $tmp/pristine-FORMAT: a few commits, branches, tags (one annotated), a symref, reflogs;
# the reftable one keeps a table per write (no auto-compaction while it is made), so that
# the commands' writes auto-compact and pack-refs has tables to merge. core.fsync covers
# refs, so that tables, tables.list and the files a migration writes are synced and their
# syncs can fail too.
mk_repo() {
  local d=$tmp/pristine-$1 i
  local GIT_TEST_REFTABLE_AUTOCOMPACTION=false
  export GIT_TEST_REFTABLE_AUTOCOMPACTION
  "$git" init -q -b main --ref-format="$1" "$d"
  "$git" -C "$d" config core.fsync reference
  for i in 1 2 3; do "$git" -C "$d" commit -q --allow-empty -m "c$i"; done
  "$git" -C "$d" branch b1 HEAD~1
  "$git" -C "$d" branch b2
  "$git" -C "$d" tag -a -m annotated v1 HEAD~2
  "$git" -C "$d" tag light
  "$git" -C "$d" symbolic-ref refs/heads/sym refs/heads/main
  "$git" -C "$d" update-ref -m moved refs/heads/b2 HEAD~2
}
mk_repo reftable
mk_repo files
C1=$("$git" -C "$tmp/pristine-reftable" rev-parse HEAD~2)
C3=$("$git" -C "$tmp/pristine-reftable" rev-parse HEAD)

# state DIR: what git sees of the refs: the storage format (F), every ref with its value or
# symref target (R; root refs too), which reflogs exist (L) and every entry of each (E).
# It runs once or twice per injected failure: four processes, no more.
state() {
  local format reflogs
  format=$("$git" -C "$1" rev-parse --show-ref-format)
  echo "F $format"
  "$git" -C "$1" for-each-ref --include-root-refs --format='R %(refname) %(objectname) %(symref)'
  reflogs=$("$git" -C "$1" reflog list)
  [ -z "$reflogs" ] || printf 'L %s\n' $reflogs
  "$git" -C "$1" log -g --all --format='E %gD %H %gn <%ge> %gs'
}

# per_reflog BEFORE AFTER NOW: whether each reflog in state NOW (whether it exists, and its
# entries) is as in BEFORE or as in AFTER, and everything else as in both. For commands that,
# as git's, change each reflog in a transaction of its own. git shows a symref's empty
# reflog as its target's, so such a reflog may also read as the target's does in NOW.
per_reflog() {
  awk 'FNR == 1 { file++ }
       { key = $1 }
       $1 == "L" { key = "L " $2 }
       $1 == "E" { key = $2; sub(/@\{.*/, "", key) }
       $1 == "R" && NF == 4 { target[file, $2] = $4 }
       { text[file, key] = text[file, key] $0 "\n"; keys[key] = 1 }
       function relabel(s, from, to,   out, i) {
         out = ""
         while ((i = index(s, "E " from "@{")) > 0) {
           out = out substr(s, 1, i - 1) "E " to "@{"
           s = substr(s, i + length(from) + 4)
         }
         return out s
       }
       END {
         for (k in keys) {
           now = text[3, k]
           if (now == text[1, k] || now == text[2, k]) continue
           t = target[3, k]
           if (t != "" && now != "" && relabel(now, k, t) == text[3, t]) continue
           exit 1
         }
       }' <(echo "$1") <(echo "$2") <(echo "$3")
}

# The commands: NAME FORMAT STDIN ARGS... A command whose NAME starts with "same:" changes
# no ref (it only merges tables); one whose NAME starts with "each:" changes each reflog on
# its own (per_reflog).
cases=()
add_case() { cases+=("$*"); }
printf 'create refs/heads/n1 %s\nupdate refs/heads/b1 %s\ndelete refs/heads/b2\ncreate refs/tags/n2 %s\ndelete refs/tags/light\nupdate refs/heads/main %s %s\n' \
  "$C3" "$C3" "$C1" "$C1" "$C3" >"$tmp/update.in"
add_case update-ref reftable update.in update-ref -m batch --stdin
# With core.lockfilePid every lock comes with a pid file: one that cannot be written is
# only warned of, as git does.
add_case update-ref-lockfilepid reftable update.in -c core.lockfilePid=true update-ref -m batch \
  --stdin
add_case symbolic-ref reftable - symbolic-ref -m switch HEAD refs/heads/b1
add_case reflog-delete reftable - reflog delete 'main@{1}'
add_case each:reflog-expire reftable - reflog expire --expire=all --all
add_case same:pack-refs reftable - pack-refs
add_case same:refs-optimize reftable - refs optimize
add_case migrate-to-files reftable - refs migrate --ref-format=files
add_case migrate-to-reftable files - refs migrate --ref-format=reftable

# run_reftab DIR STDIN LOG FAIL ARGS...: reftab on repository DIR with the preload counting
# inside DIR (and failing call FAIL, 0: none); stdout and stderr go to $tmp/out, $tmp/err.
run_reftab() {
  local d=$1 in=$2 log=$3 fail=$4
  shift 4
  local input=/dev/null
  [ "$in" != - ] && input=$tmp/$in
  : >"$log"
  LD_PRELOAD=$preload REFTAB_SYSFAULT_DIR=$d REFTAB_SYSFAULT_LOG=$log REFTAB_SYSFAULT_FAIL=$fail \
    "$reftab" -C "$d" "$@" <"$input" >"$tmp/out" 2>"$tmp/err"
}

# litter DIR: files in DIR/.git/reftable that are neither tables.list nor a table it names.
litter() {
  local r=$1/.git/reftable f
  [ -f "$r/tables.list" ] || return 0
  local -A listed=([tables.list]=1)
  while read -r f; do listed[$f]=1; done <"$r/tables.list"
  for f in "$r"/* "$r"/.[!.]*; do
    [ -e "$f" ] && [ -z "${listed[${f##*/}]:-}" ] && echo "${f##*/}"
  done
}

# probe DIR FORMAT CASE: a git write and a reftab write after the failure both succeed. After
# a migration, the reftab write is a migration to the other format: one that failed is
# tried again, one that completed is undone.
probe() {
  local d=$1 format=$2 case=$3
  "$git" -C "$d" update-ref refs/heads/probe-git HEAD 2>&1 || return 1
  if [[ $case == migrate-* ]]; then
    "$reftab" -C "$d" refs migrate --ref-format="$([ "$format" = files ] && echo reftable ||
      echo files)" 2>&1
  else
    "$reftab" -C "$d" update-ref refs/heads/probe-reftab HEAD 2>&1
  fi
}

n_tap=0 n_failed=0
tap() {  # tap OK DESC [WHY]
  n_tap=$((n_tap + 1))
  if [ "$1" = ok ]; then
    echo "ok $n_tap - $2"
  else
    n_failed=$((n_failed + 1))
    echo "not ok $n_tap - $2"
    printf '%s\n' "$3" | sed 's/^/# /'
  fi
}

for c in "${cases[@]}"; do
  read -r -a words <<<"$c"
  name=${words[0]} format=${words[1]} in=${words[2]}
  args=("${words[@]:3}")
  # The message and reflog arguments hold no spaces, so word splitting is exact.
  [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
  w=$tmp/w
  rm -rf "$tmp"/w* && cp -a "$tmp/pristine-$format" "$w"
  before=$(state "$w")
  run_reftab "$w" "$in" "$tmp/count.log" 0 "${args[@]}"
  rc=$?
  after=$(state "$w")
  calls=$(wc -l <"$tmp/count.log")
  why=
  [ "$rc" = 0 ] || why="exit $rc: $(cat "$tmp/err")"
  # fsck runs on the states before and after only: a failure leaving one of them is the same
  # refs and reflogs over the same objects. Mixed states get their own below.
  for d in "$tmp/pristine-$format" "$w"; do
    out=$("$git" -C "$d" fsck --no-progress --connectivity-only 2>&1) || why+=" git fsck: $out"
  done
  [ "$before" != "$after" ] || [[ $name == same:* ]] || why+=" the command changed nothing"
  [ "$calls" -gt 0 ] || why+=" no call was counted (is the preload in effect?)"
  tap "$([ -z "$why" ] && echo ok || echo fail)" "$name: $calls calls counted" "$why"
  [ -z "$why" ] || continue
  declare -A by_class=()
  n_before=0 n_after=0 n_mixed=0 n_warned=0
  for n in $(seq 1 "$calls"); do
    # A fresh copy per run, all removed with the case: one process per run instead of two.
    w=$tmp/w$n
    cp -a "$tmp/pristine-$format" "$w"
    run_reftab "$w" "$in" "$tmp/fail.log" "$n" "${args[@]}"
    rc=$?
    failed= class= call= path= to=
    while read -r line; do [[ $line == *' FAILED' ]] && failed=$line; done <"$tmp/fail.log"
    read -r _ class call path _ <<<"$failed"
    [[ $failed == *' -> '* ]] && to=${failed#* -> } && to=${to% FAILED}
    desc="$name: call $n fails ($call ${path#"$w"/}${to:+ -> ${to#"$w"/}})"
    why=
    if [ -z "$failed" ]; then
      tap fail "$desc" "call $n was not made (the command is not deterministic?)"
      continue
    fi
    by_class[$class]=$((${by_class[$class]:-0} + 1))
    now=$(state "$w")
    if [ "$now" = "$before" ]; then
      n_before=$((n_before + 1))
    elif [ "$now" = "$after" ]; then
      n_after=$((n_after + 1))
    elif [[ $name == each:* ]] && per_reflog "$before" "$after" "$now"; then
      n_mixed=$((n_mixed + 1))
      out=$("$git" -C "$w" fsck --no-progress --connectivity-only 2>&1) || why+=$'\ngit fsck: '$out
    else
      why+=$'\nneither the state before nor the one after:\n'$(diff <(echo "$before") <(echo "$now"))
    fi
    # The file named: its path from the repository on (messages may give it relative).
    named=no err=$(<"$tmp/err")
    for p in "$path" $to; do [[ $err == *"${p#"$w"/}"* ]] && named=yes; done
    [ "$named" = yes ] || why+=$'\nstderr does not name '"${path#"$w"/}"': '$err
    if [ "$rc" = 0 ]; then
      if [ "$now" = "$after" ] && [ "$named" = yes ]; then
        n_warned=$((n_warned + 1))
      else
        why+=$'\nexit 0 despite the failure'
      fi
    fi
    out=$("$git" -C "$w" refs verify 2>&1) || why+=$'\ngit refs verify: '$out
    out=$(litter "$w") && [ -n "$out" ] && why+=$'\nleft in reftable/: '$out
    now_format=${now%%$'\n'*}
    out=$(probe "$w" "${now_format#F }" "$name") || why+=$'\nthe next write failed: '$out
    tap "$([ -z "$why" ] && echo ok || echo fail)" "$desc" "${why#$'\n'}"
  done
  summary=
  for k in write sync rename truncate; do summary+=" $k ${by_class[$k]:-0},"; done
  summary=${summary%,}
  echo "# $name: $calls failures injected (${summary# }); state before: $n_before," \
    "after: $n_after$([[ $name == each:* ]] && echo ", some reflogs before and some after: $n_mixed")" \
    "(exit 0 with a warning: $n_warned)"
  unset by_class
done
# Each command, git's and reftab's, with its first call failing: the same exit status, where
# that call writes the same file for both (tables alike whatever their names). The messages
# differ on purpose: git's say "I/O error" (or nothing: reflog expire), reftab's name the file.
first_file() {  # first_file LOG: the file of the failed call, its random parts folded
  local line
  read -r line <"$1"
  line=${line#* * * "$w"/}
  line=${line%% *}
  sed -e 's/ref_migration\.[^/]*/ref_migration.X/' -e 's#/0x[0-9a-fx-]*\(\.temp\.[^/]*\|\.ref\)$#/TABLE#' <<<"$line"
}
for c in "${cases[@]}"; do
  read -r -a words <<<"$c"
  name=${words[0]} format=${words[1]} in=${words[2]}
  args=("${words[@]:3}")
  [ -n "$filter" ] && [[ $name != *$filter* ]] && continue
  input=/dev/null
  [ "$in" != - ] && input=$tmp/$in
  got= files=
  for exe in "$git" "$reftab"; do
    w=$tmp/cmp
    rm -rf "$w" && cp -a "$tmp/pristine-$format" "$w"
    : >"$tmp/first.log"
    LD_PRELOAD=$preload REFTAB_SYSFAULT_DIR=$w REFTAB_SYSFAULT_FAIL=1 \
      REFTAB_SYSFAULT_LOG=$tmp/first.log "$exe" -C "$w" "${args[@]}" <"$input" >/dev/null 2>&1
    got+=" $?"
    files+=" $(first_file "$tmp/first.log")"
  done
  read -r git_rc reftab_rc <<<"$got"
  read -r git_file reftab_file <<<"$files"
  desc="$name: git and reftab exit alike when the first write fails ($git_rc)"
  if [ "$git_file" != "$reftab_file" ]; then
    n_tap=$((n_tap + 1))
    echo "ok $n_tap - $desc # SKIP the first call is git's on $git_file, reftab's on $reftab_file"
    continue
  fi
  tap "$([ "$git_rc" = "$reftab_rc" ] && echo ok || echo fail)" "$desc" \
    "git exits $git_rc, reftab $reftab_rc"
done

# git and reftab alike when the first write, the pid file's, fails: the same warning, then
# the update as usual.
if [ -z "$filter" ] || [[ update-ref-lockfilepid == *$filter* ]]; then
  for tool in git reftab; do
    exe=$git
    [ "$tool" = reftab ] && exe=$reftab
    w=$tmp/cmp
    rm -rf "$w" && cp -a "$tmp/pristine-reftable" "$w"
    LD_PRELOAD=$preload REFTAB_SYSFAULT_DIR=$w REFTAB_SYSFAULT_FAIL=1 \
      "$exe" -C "$w" -c core.lockfilePid=true update-ref refs/heads/q HEAD >"$tmp/$tool.out" 2>&1
    echo "exit $?, q: $("$git" -C "$w" rev-parse -q --verify refs/heads/q)" >>"$tmp/$tool.out"
  done
  why=$(diff "$tmp/git.out" "$tmp/reftab.out")
  tap "$([ -z "$why" ] && echo ok || echo fail)" \
    "update-ref-lockfilepid: git and reftab alike when the pid file cannot be written" "$why"
fi

echo "1..$n_tap"
[ "$n_failed" = 0 ]
