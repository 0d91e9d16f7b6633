#!/usr/bin/env bash
# git's revision syntax for single objects (rev-parse, and the same resolver behind
# update-ref, for-each-ref's object options and the reflog walk) against the real git, case by
# case, byte for byte on stdout, stderr and the exit status: reflog selectors (@{N},
# <ref>@{N}, @{<date>}), @{-N}, @{upstream}/@{u}/@{push} in every spelling, "@", ~ ^ ^{...}
# combined with them, ^{/regex} and :/regex, abbreviated ids (unique, ambiguous, resolved by
# context or core.disambiguate, a branch spelled like one), describe names, and rev-parse's
# repository questions (--git-dir, --show-toplevel, ...) from a work tree, a subdirectory,
# inside .git and a bare repository. SHA-1 and SHA-256 repositories.
#
# Usage: git_compare_revisions.sh REFTAB [FILTER]. Needs a reftable-capable git ($REFTAB_GIT,
# else `git` on PATH if at least 2.45); without one it is skipped. Prints TAP (real_git.sh).
set -u
reftab=$(realpath "$1")
filter=${2:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 45 "reftable needs 2.45"

isolate_git_env
export GIT_AUTHOR_NAME=A GIT_AUTHOR_EMAIL=a@example.com
# Each commit and reflog entry a day after the last, from 2023-11-01; "now" a year later.
t=1698796800
export GIT_TEST_DATE_NOW=$((t + 400 * 86400))
tick() { t=$((t + 86400)); export GIT_COMMITTER_DATE="$t +0100" GIT_AUTHOR_DATE="$t +0100"; }

# make_repo DIR HASH: a history with a merge, tags, checkouts in HEAD's reflog, an upstream
# and a push remote, and enough objects for abbreviated ids to collide.
make_repo() {
  local d=$1 hash=$2 g=("$git" -C "$1")
  tick
  "$git" init -q -b main --ref-format=reftable --object-format="$hash" "$d" || exit 1
  for m in one two three; do tick; "${g[@]}" commit -q --allow-empty -m "$m"; done
  tick; "${g[@]}" tag -a -m annotated at1 HEAD~1
  tick; "${g[@]}" checkout -q -b topic HEAD~1
  tick; "${g[@]}" commit -q --allow-empty -m "topic work"
  tick; "${g[@]}" checkout -q main
  tick; "${g[@]}" merge -q --no-ff -m "merge topic" topic
  tick; "${g[@]}" checkout -q -b feature
  tick; "${g[@]}" commit -q --allow-empty -m "feature work"
  tick; "${g[@]}" checkout -q main
  tick; "${g[@]}" checkout -q --detach HEAD~1
  tick; "${g[@]}" checkout -q main
  tick; "${g[@]}" commit -q --allow-empty -m "four"
  "${g[@]}" branch noup HEAD~1
  # origin: the upstream of main; pub: where main pushes.
  "${g[@]}" remote add origin https://example.com/origin.git
  "${g[@]}" remote add pub https://example.com/pub.git
  "${g[@]}" update-ref refs/remotes/origin/main HEAD~1
  "${g[@]}" update-ref refs/remotes/pub/main HEAD~2
  "${g[@]}" config branch.main.remote origin
  "${g[@]}" config branch.main.merge refs/heads/main
  "${g[@]}" config branch.main.pushRemote pub
  "${g[@]}" config branch.feature.remote .
  "${g[@]}" config branch.feature.merge refs/heads/main
  "${g[@]}" config branch.lost.remote origin
  "${g[@]}" config branch.lost.merge refs/heads/nowhere
  "${g[@]}" config branch.odd.remote origin
  "${g[@]}" config branch.odd.merge refs/tags/v1
  "${g[@]}" branch odd HEAD
  # Many commits and blobs, so that 4-digit prefixes are shared.
  {
    for i in $(seq 1 700); do
      printf 'commit refs/heads/bulk\ncommitter C <c@example.com> %s +0000\ndata <<E\nbulk %s\nE\n\n' "$t" "$i"
    done
  } | "${g[@]}" fast-import --quiet || exit 1
  for i in $(seq 1 700); do echo "blob $i"; done >"$tmp/blobs"
  (cd "$d" && split -l 1 -a 3 "$tmp/blobs" "$tmp/b-" && ls "$tmp"/b-* | "$git" hash-object -w --stdin-paths >/dev/null && rm -f "$tmp"/b-*)
}
S1=$tmp/sha1; S2=$tmp/sha256
make_repo "$S1" sha1
make_repo "$S2" sha256

# prefixes DIR: sets P_BLOBS (4 digits shared by blobs only), P_MIXED (a commit and a blob),
# P_UNIQUE (one commit), the id of a commit in P_MIXED as C_MIXED.
prefixes() {
  local all
  all=$("$git" -C "$1" cat-file --batch-all-objects --batch-check='%(objectname) %(objecttype)')
  P_BLOBS=$(echo "$all" | awk '{p=substr($1,1,4); n[p]++; if ($2!="blob") nb[p]=1} END {for (p in n) if (n[p]>=2 && !nb[p]) print p}' | sort | head -1)
  P_MIXED=$(echo "$all" | awk '{p=substr($1,1,4); n[p]++; t[p]=t[p] $2 " "} END {for (p in n) if (n[p]==2 && t[p] ~ /commit/ && t[p] ~ /blob/) print p}' | sort | head -1)
  P_UNIQUE=$(echo "$all" | awk '$2=="commit" {print substr($1,1,7)}' | sort | uniq -u | head -1)
}

declare -A KNOWN=()

# check DESC REPO WHERE ARG...: `git ARG...` and `reftab ARG...` run in REPO/WHERE.
check() {
  local desc=$1 repo=$2 where=$3; shift 3
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  (cd "$repo/$where" && "$git" "$@") >"$tmp/go" 2>"$tmp/ge"; local grc=$?
  (cd "$repo/$where" && "$reftab" "$@") >"$tmp/ro" 2>"$tmp/re"; local rrc=$?
  local why=""
  [ "$grc" = "$rrc" ] || why+=" exit git=$grc reftab=$rrc;"
  local ro
  if slurp ro "$tmp/ro" && [[ $ro != *"usage: reftab "* ]]; then
    same_bytes "$tmp/go" "$tmp/ro"
  else
    cmp -s "$tmp/go" <(sed 's/^usage: reftab /usage: git /' "$tmp/ro")
  fi || why+=" stdout: $(diff "$tmp/go" "$tmp/ro" | grep '^[<>]' | head -6 | tr '\n' ' ')"
  same_bytes "$tmp/ge" "$tmp/re" ||
    why+=" stderr: $(diff "$tmp/ge" "$tmp/re" | grep '^[<>]' | head -6 | tr '\n' ' ')"
  verdict "$desc" "$why"
}

# ro DESC ARG...: on both hash formats.
ro() {
  local desc=$1; shift
  check "$desc" "$S1" . "$@"
  check "$desc (sha256)" "$S2" . "$@"
}
# ro_name DESC NAME ARG...: ro, for a case about the revision NAME.
ro_name() {
  local desc=$1 name=$2
  shift 2
  ro "$desc" "$@"
}

# ------------------------------------------------------------------ reflog selectors
for name in "@{0}" "@{1}" "@{2}" "@{5}" "@{99}" "main@{0}" "main@{1}" "main@{3}" "main@{99}" \
    "HEAD@{1}" "HEAD@{4}" "HEAD@{99}" "topic@{0}" "topic@{1}" "topic@{2}" "noup@{0}" \
    "noup@{1}" "nope@{1}" "refs/heads/main@{1}" "heads/main@{2}" "@{yesterday}" \
    "main@{yesterday}" "@{2 days ago}" "main@{1.week.ago}" "main@{2023-11-05}" \
    "main@{2023-11-05 12:00:00}" "HEAD@{2020-01-01}" "main@{1 year ago}" "@{1698900000}" \
    "main@{bogus}" "main@{}" "@{-1}" "@{-2}" "@{-3}" "@{-4}" "@{-99}" "@{-0}" "@{-x}" \
    "x@{-1}" "@{-1}@{1}" "@{-1}@{0}" "@{-2}~1"; do
  for opts in "" "--verify" "-q --verify" "--symbolic-full-name" "--abbrev-ref"; do
    ro_name "rev-parse $opts [$name]" "$name" rev-parse $opts "$name"
  done
done
# ------------------------------------------------------------------ upstream and push
for name in "@{u}" "@{upstream}" "@{U}" "@{UpStream}" "@{push}" "@{PUSH}" "main@{u}" \
    "main@{push}" "feature@{u}" "feature@{push}" "noup@{u}" "noup@{push}" "lost@{u}" \
    "nosuch@{u}" "odd@{u}" "topic@{upstream}" "@{u}@{1}" "main@{u}@{0}" "@{-1}@{u}" \
    "@@{u}" "HEAD@{u}" "@{u}x" "a:b@{u}" "@{u}~1" "@{u}^{tree}" "@{push}^{commit}"; do
  for opts in "" "--verify" "-q --verify" "--symbolic-full-name" "--abbrev-ref" \
      "--symbolic"; do
    ro_name "rev-parse $opts [$name]" "$name" rev-parse $opts "$name"
  done
done
for opts in "" "--verify" "-q --verify"; do
  ro "rev-parse $opts [empty name]" rev-parse $opts ""
done
for cfg in "push.default=current" "push.default=nothing" "push.default=upstream" \
    "push.default=matching" "remote.pushDefault=origin" "branch.main.pushRemote=origin"; do
  ro "rev-parse -c $cfg [@{push}]" -c "$cfg" rev-parse --symbolic-full-name "@{push}"
done
# ------------------------------------------------------------------ "@" and combinations
for name in "@" "@~1" "@^2" "@^{tree}" "main@{1}~1" "main@{1}^" "main@{1}^{tree}" \
    "HEAD^2" "HEAD^2~1" "HEAD~1^2" "HEAD^3" "HEAD~2^2" "at1^{}" "at1@{0}" "@{1}^0" \
    "HEAD^{/topic}" "HEAD^{/^t}" "HEAD^{/nomatch}" "HEAD^{/}" "HEAD~1^{/one}" "at1^{/one}" \
    ":/work" ":/!-bulk" ":/!!x" ":/!x" ":/four" ":/bulk 69" ":/^merge" ":/nomatch" \
    "HEAD:file" ":file" "nope:file" "@{1}:x" "a..b" "main...x"; do
  for opts in "" "--verify" "-q --verify"; do
    if [[ $name == *:* && $name != :/* && $name != nope:* ]]; then
      KNOWN["rev-parse $opts [$name]"]="reftab reads no paths in trees or the index: it says so"
      KNOWN["rev-parse $opts [$name] (sha256)"]=${KNOWN["rev-parse $opts [$name]"]}
    fi
    ro "rev-parse $opts [$name]" rev-parse $opts "$name"
  done
done
# ------------------------------------------------------------------ abbreviated ids
for r in "$S1" "$S2"; do
  prefixes "$r"
  sfx=""; [ "$r" = "$S2" ] && sfx=" (sha256)"
  H=$("$git" -C "$r" rev-parse HEAD)
  # A branch spelled like an abbreviated id, and one like a full id.
  "$git" -C "$r" branch "${H:0:7}" HEAD~1
  "$git" -C "$r" branch "$P_MIXED" HEAD~1
  for name in "$P_UNIQUE" "${H:0:4}" "${H:0:7}" "${H^^}" "${H:0:12}" "$P_BLOBS" "$P_MIXED" \
      "$P_MIXED~0" "$P_MIXED^{commit}" "$P_MIXED^{tree}" "$P_BLOBS^{blob}" "${H:0:3}" \
      "${P_UNIQUE^^}" "v1-3-g${H:0:7}" "main-1-g${P_UNIQUE}" "x-g${H:0:7}" "${H}0"; do
    label=${name//$P_BLOBS/<blobs>}; label=${label//$P_MIXED/<mixed>}
    label=${label//$P_UNIQUE/<unique>}; label=${label//${P_UNIQUE^^}/<UNIQUE>}
    label=${label//${H^^}/<HEAD>}; label=${label//$H/<HEAD>}
    label=${label//${H:0:12}/<h12>}; label=${label//${H:0:7}/<h7>}; label=${label//${H:0:4}/<h4>}
    label=${label//${H:0:3}/<h3>}
    for opts in "" "--verify" "-q --verify" "--short"; do
      check "rev-parse $opts [$label]$sfx" "$r" . rev-parse $opts "$name"
    done
    for cfg in core.disambiguate=commit core.disambiguate=blob core.warnAmbiguousRefs=false; do
      check "rev-parse -c $cfg [$label]$sfx" "$r" . -c "$cfg" rev-parse "$name"
    done
  done
  "$git" -C "$r" branch -D -q "${H:0:7}" "$P_MIXED"
done

# ------------------------------------------------------------------ the same names elsewhere
# update-ref (new and old values, command line and --stdin; written into copies and compared
# by git's view of the ref afterwards), for-each-ref's object options, the reflog walk.
wcheck() {
  local desc=$1 repo=$2; shift 2
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  rm -rf "$tmp/g" "$tmp/r"; cp -a "$repo" "$tmp/g"; cp -a "$repo" "$tmp/r"
  (cd "$tmp/g" && "$git" "$@" </dev/null) >"$tmp/go" 2>"$tmp/ge"; local grc=$?
  (cd "$tmp/r" && "$reftab" "$@" </dev/null) >"$tmp/ro" 2>"$tmp/re"; local rrc=$?
  local why=""
  [ "$grc" = "$rrc" ] || why+=" exit git=$grc reftab=$rrc;"
  same_bytes "$tmp/go" "$tmp/ro" || why+=" stdout differs;"
  same_bytes "$tmp/ge" "$tmp/re" ||
    why+=" stderr: $(diff "$tmp/ge" "$tmp/re" | grep '^[<>]' | head -6 | tr '\n' ' ')"
  local gs rs
  gs=$("$git" -C "$tmp/g" for-each-ref refs/heads/rv refs/heads/main; "$git" -C "$tmp/g" reflog show --format='%H %gs' refs/heads/rv -- 2>&1)
  rs=$("$git" -C "$tmp/r" for-each-ref refs/heads/rv refs/heads/main; "$git" -C "$tmp/r" reflog show --format='%H %gs' refs/heads/rv -- 2>&1)
  [ "$gs" = "$rs" ] || why+=" state differs;"
  verdict "$desc" "$why"
}
for value in "main@{1}" "@{1}" "main@{2}~1" "@{-1}" "@{u}" "@{push}" "main@{99}" "noup@{u}" \
    "@{yesterday}" "HEAD^2" ":/topic work" "HEAD^{/one}"; do
  for r in "$S1" "$S2"; do
    sfx=""; [ "$r" = "$S2" ] && sfx=" (sha256)"
    wcheck "update-ref with [$value]$sfx" "$r" update-ref -m "to $value" refs/heads/rv "$value"
    wcheck "update-ref -d with old [$value]$sfx" "$r" update-ref -d refs/heads/main "$value"
  done
done
for opt in --points-at --contains --merged --no-merged --no-contains; do
  for value in "main@{1}" "@{u}" "@{-1}" "at1^{blob}" "main@{99}" "noup@{u}" "nope"; do
    ro "for-each-ref $opt [$value]" for-each-ref --format='%(refname)' "$opt" "$value" refs/heads
  done
done
for name in "main@{2}" "@{1}" "HEAD@{3}" "@{-1}" "main@{99}" "@{u}" "nope@{1}" "main@{yesterday}" \
    "topic@{0}" "@{-2}@{1}" "@{push}" "main@{u}@{0}" "@" "@@{u}"; do
  ro "reflog show [$name]" reflog show "$name"
done

# ------------------------------------------------------------------ ranges: refused, saying so
for name in "main..topic" "main...topic" "..main" "main.." "^main" "nope..main" "^nope"; do
  KNOWN["rev-parse [$name]"]="reftab's rev-parse prints single objects only: it refuses ranges, saying so"
  KNOWN["rev-parse [$name] (sha256)"]=${KNOWN["rev-parse [$name]"]}
  ro "rev-parse [$name]" rev-parse "$name"
done

# ------------------------------------------------------------------ repository questions
# From the work tree, a subdirectory, inside .git, a bare repository, a linked worktree, and
# with the git directory named (--git-dir, $GIT_DIR).
B=$tmp/bare.git WT=$tmp/linked
"$git" init -q --bare --ref-format=reftable "$B"
mkdir -p "$B/sub" "$S1/sub/deep" "$S2/sub"
"$git" -C "$S1" worktree add -q "$WT" noup
mkdir -p "$WT/sub"
for q in --git-dir --absolute-git-dir --show-toplevel --is-inside-work-tree --is-inside-git-dir \
    --is-bare-repository --show-ref-format "--git-dir --show-toplevel HEAD" \
    "--is-inside-work-tree --verify HEAD --is-bare-repository"; do
  for where in . sub sub/deep .git .git/reftable; do
    check "rev-parse $q (in $where)" "$S1" "$where" rev-parse $q
  done
  check "rev-parse $q (in sub, sha256)" "$S2" sub rev-parse $q
  check "rev-parse $q (bare)" "$B" . rev-parse $q
  check "rev-parse $q (bare, in sub)" "$B" sub rev-parse $q
  check "rev-parse $q (linked)" "$WT" . rev-parse $q
  check "rev-parse $q (linked, in sub)" "$WT" sub rev-parse $q
  check "rev-parse $q (--git-dir)" "$S1" sub --git-dir=../.git rev-parse $q
  check "rev-parse $q (--git-dir absolute)" "$S1" sub --git-dir="$S1/.git" rev-parse $q
  GIT_DIR=../.git check "rev-parse $q (GIT_DIR)" "$S1" sub rev-parse $q
done

verdict_end
