#!/usr/bin/env bash
# reftab's show-ref, symbolic-ref, refs (exists, verify, optimize), pack-refs and rev-parse
# against the real git, case by case: both run the same command on copies of the same
# repositories (SHA-1 and SHA-256; loose and packed objects, annotated tags and a tag of a
# tag, symrefs and dangling symrefs, root refs, remote HEADs, a name that is both a branch and
# a tag, a ref whose object was removed) and must agree byte for byte on stdout, stderr and
# the exit status — and, for commands that write, on the refs and reflogs afterwards.
#
# Usage texts name the program: reftab's "usage: reftab ..." lines are compared as git's
# after replacing the name (and the indentation that follows it).
#
# Usage: git_compare_refs.sh REFTAB [FILTER]. Needs a reftable-capable git ($REFTAB_GIT, else
# `git` on PATH if at least 2.45); without one it is skipped. Prints TAP (real_git.sh).
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

# make_repo DIR HASH: the repositories every case starts from.
make_repo() {
  local d=$1 hash=$2 g=("$git" -C "$1")
  "$git" init -q -b main --ref-format=reftable --object-format="$hash" "$d" || exit 1
  for m in one two three; do "${g[@]}" commit -q --allow-empty -m "$m"; done
  "${g[@]}" tag -a -m annotated at1 HEAD~1
  "${g[@]}" tag -a -m 'tag of a tag' at2 at1
  "${g[@]}" tag t1 HEAD~2
  "${g[@]}" repack -q -a -d  # what exists so far is packed; what follows stays loose
  "${g[@]}" commit -q --allow-empty -m four
  "${g[@]}" tag -a -m 'on a tree' attree 'HEAD^{tree}'
  "${g[@]}" branch x HEAD~1
  "${g[@]}" branch d/e HEAD~2
  "${g[@]}" branch feature/long-name
  "${g[@]}" tag main HEAD~3  # "main" is a branch and a tag
  "${g[@]}" update-ref refs/remotes/origin/main HEAD~1
  "${g[@]}" update-ref refs/remotes/origin/dev HEAD~2
  "${g[@]}" symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
  "${g[@]}" update-ref refs/remotes/up/main HEAD
  "${g[@]}" symbolic-ref refs/remotes/up/HEAD refs/remotes/up/gone
  "${g[@]}" symbolic-ref refs/heads/sym refs/heads/x
  "${g[@]}" symbolic-ref refs/heads/sym2 refs/heads/sym
  "${g[@]}" symbolic-ref refs/heads/dangling refs/heads/nowhere
  "${g[@]}" symbolic-ref refs/tags/symtag refs/tags/at1
  "${g[@]}" update-ref refs/other/o HEAD~1
  "${g[@]}" update-ref ORIG_HEAD HEAD~1
  "${g[@]}" update-ref refs/heads/only-in-x HEAD
  # A ref whose object is gone: written while its commit existed (loose, made for it alone),
  # then the commit removed. (git refuses to point a branch at a blob.)
  local lost
  lost=$("${g[@]}" commit-tree -m lost 'HEAD^{tree}') || exit 1
  "${g[@]}" update-ref refs/heads/lost "$lost" || exit 1
  rm "$d/.git/objects/${lost:0:2}/${lost:2}" || exit 1
}
S1=$tmp/sha1; S2=$tmp/sha256
make_repo "$S1" sha1
make_repo "$S2" sha256
export S1 S2
# the ids, for cases that name them
H1=$("$git" -C "$S1" rev-parse HEAD)
M1=1111111111111111111111111111111111111111

declare -A KNOWN=()
KNOWN["-c nosection=1 update-ref"]="git prints the error line before its fatal one; reftab only the fatal line (store/git/config/config.h)"
KNOWN["-c =x update-ref"]="git prints the error line before its fatal one; reftab only the fatal line (store/git/config/config.h)"

# What `usage:` blocks name: reftab's program name and the indentation after it.
normalize() {
  sed -e 's/^usage: reftab /usage: git /' -e 's/^   or: reftab /   or: git /' \
      -e 's/^                       \[/                    [/'
}
# same_as_git GIT_FILE REFTAB_FILE: the two agree once REFTAB_FILE is normalized. Most
# outputs hold nothing normalize changes and are compared in the shell (real_git.sh).
same_as_git() {
  local g r
  if slurp g "$1" && slurp r "$2" && [[ $r != *"reftab "* && $r != *"                       ["* ]]; then
    [[ $g == "$r" ]]
  else
    cmp -s "$1" <(normalize <"$2")
  fi
}

# git's view of a repository after a writing case.
state() {
  "$git" --git-dir="$1" for-each-ref --include-root-refs \
    --format='%(refname) %(objectname) %(symref)' 2>&1
  local refs
  refs=$("$git" --git-dir="$1" reflog list 2>&1)
  echo "reflogs: $refs"
  for r in $refs; do
    echo "== $r"
    "$git" --git-dir="$1" reflog show --date=raw --format='%gD|%H|%gn|%ge|%gs' "$r" -- 2>&1
  done
}

# check DESC REPO STDIN WRITES ARG... — runs `git ARG...` and `reftab ARG...` in copies of
# REPO (or in REPO itself when WRITES is 0) with STDIN (a file, or /dev/null) as input.
check() {
  local desc=$1 repo=$2 input=$3 writes=$4; shift 4
  if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
  local gd=$repo rd=$repo
  if [ "$writes" = 1 ]; then
    gd=$tmp/g rd=$tmp/r
    rm -rf "$gd" "$rd"; cp -a "$repo" "$gd"; cp -a "$repo" "$rd"
  fi
  (cd "$gd" && "$git" "$@") <"$input" >"$tmp/go" 2>"$tmp/ge"; local grc=$?
  (cd "$rd" && "$reftab" "$@") <"$input" >"$tmp/ro" 2>"$tmp/re"; local rrc=$?
  local why=""
  [ "$grc" = "$rrc" ] || why+=" exit git=$grc reftab=$rrc;"
  same_as_git "$tmp/go" "$tmp/ro" ||
    why+=" stdout: $(diff "$tmp/go" <(normalize <"$tmp/ro") | grep '^[<>]' | head -6 | tr '\n' ' ')"
  same_as_git "$tmp/ge" "$tmp/re" ||
    why+=" stderr: $(diff "$tmp/ge" <(normalize <"$tmp/re") | grep '^[<>]' | head -6 | tr '\n' ' ')"
  # Byte-identical copies are the same repository to git; otherwise git reads both.
  if [ "$writes" = 1 ] && ! same_files "$gd" "$rd"; then
    local gs rs
    gs=$(state "$gd/.git"); rs=$(state "$rd/.git")
    [ "$gs" = "$rs" ] || why+=" state: $(diff <(echo "$gs") <(echo "$rs") | grep '^[<>]' | head -6 | tr '\n' ' ')"
  fi
  verdict "$desc" "$why"
}

# Read-only cases run on both hash formats.
ro() {
  local desc=$1; shift
  check "$desc" "$S1" /dev/null 0 "$@"
  check "$desc (sha256)" "$S2" /dev/null 0 "$@"
}

# ---------------------------------------------------------------- show-ref
for opts in "" "--head" "-d" "--dereference" "-s" "--hash" "--hash=10" "--hash=2" "-s10" \
    "--abbrev" "--abbrev=5" "--abbrev=0" "--abbrev=100" "--no-abbrev" "-q" "--heads" \
    "--branches" "--tags" "--branches --tags" "--tags -d" "--head -d -s" "--head --tags" \
    "-h --tags" "-d --abbrev=8" "-s -d" "--no-hash" "--hash --no-hash"; do
  ro "show-ref $opts" show-ref $opts
done
for opts in "" "-d" "--head" "--tags" "--branches --tags" "--abbrev -d"; do
  for pat in main x t1 at1 heads/main origin/HEAD HEAD e d/e "refs/heads/x" nomatch "main x" \
      ain sym dangling lost; do
    check "show-ref $opts [$pat]" "$S1" /dev/null 0 show-ref $opts $pat
  done
done
for refs in refs/heads/main HEAD main refs/tags/at1 refs/tags/at2 refs/tags/attree \
    refs/heads/sym refs/heads/sym2 refs/heads/dangling refs/remotes/origin/HEAD \
    refs/heads/nope ORIG_HEAD FOO "refs/heads/main refs/tags/t1" "refs/heads/main nope" \
    refs/heads/lost "refs/heads/a..b" "refs/../x" "refs/tags/symtag" ""; do
  for opts in "" "-q" "-d" "-s" "--abbrev" "-d --hash=7" "-q -d"; do
    check "show-ref --verify $opts [$refs]" "$S1" /dev/null 0 show-ref --verify $opts $refs
  done
done
for ref in refs/heads/main HEAD refs/heads/dangling refs/heads/nope refs/heads "bad name" \
    refs/heads/lost ORIG_HEAD "" "a b c"; do
  ro "show-ref --exists [$ref]" show-ref --exists $ref
done
ro "show-ref --exists none" show-ref --exists
ro "show-ref --exists two" show-ref --exists refs/heads/main refs/heads/x
for bad in "--verify --exists x" "--exclude-existing --verify" "--exclude-existing --exists" \
    "--exclude-existing --verify --exists" "--bogus" "-x" "-verify" "--hash=abc" "--abbrev=" \
    "--abbrev=x" "--no-exclude-existing" "--verif refs/heads/main" "--ta" "--he" "-h" \
    "--no-" "--exclude-existing=refs --exists" "--head --no-head" "-dq --verify HEAD" \
    "-- --tags" "--end-of-options --head"; do
  ro "show-ref $bad" show-ref $bad
done
# --exclude-existing reads lines of refs from stdin
printf '%s\n' refs/heads/main refs/heads/new "$H1 refs/heads/x" "$H1 refs/tags/at1^{}" \
  "$H1 refs/tags/new^{}" "$H1	refs/heads/tabbed" "refs/heads/a..b" "x y refs/heads/zz" \
  refs/remotes/origin/HEAD refs/heads/dangling refs/heads/lost "" "^{}" "just-one-level" \
  refs/heads/sym "refs/tags/newtag" "refs/heads/bell$(printf '\a')name" "refs/heads/esc$(printf '\033')[31m" > "$tmp/stdin1"
for opts in "--exclude-existing" "--exclude-existing=refs/heads/" "--exclude-existing=refs/tags" \
    "--exclude-existing=nomatch" "--exclude-existing=" "--exclude-existing=refs/heads/main"; do
  check "show-ref $opts" "$S1" "$tmp/stdin1" 0 show-ref $opts
done

# core.abbrev (set as GIT_CONFIG_COUNT sets it): the length --abbrev and --hash without a
# value use; git refuses a length below 4 or a value that is not one before any option.
for v in no off '' auto 10 40 64 3 0 abc true; do
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.abbrev GIT_CONFIG_VALUE_0=$v
  for opts in "--abbrev" "--abbrev -d" "--hash=3" "--abbrev=5 --heads" ""; do
    ro "show-ref $opts [core.abbrev=$v]" show-ref $opts
  done
  check "show-ref --verify --abbrev [core.abbrev=$v]" "$S1" /dev/null 0 show-ref --verify \
    --abbrev refs/heads/main
done
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0

# -C <dir>, before the command: missing, empty, several, with a relative --git-dir after it.
ro "-C nowhere" -C nowhere show-ref --heads
ro "-C empty" -C "" show-ref --heads
ro "-C .git -C .." -C .git -C .. show-ref --heads
ro "-C .git --git-dir ." -C .git --git-dir . show-ref --verify refs/heads/main
ro "-C refs (inside .git)" -C .git/refs symbolic-ref HEAD

# -c name=value before the command (GIT_CONFIG_PARAMETERS, as git passes it on): values with
# quotes and "=", an implicit true, a malformed name, several, the last one winning.
for c in "core.logAllRefUpdates=false" "core.logAllRefUpdates=always" "user.name=A O'B!" \
    "user.email=a=b@c" "reftable.blockSize=abc" "reftable.blockSize=100000000" \
    "core.logAllRefUpdates" "nosection=1" "=x" "core.filesRefLockTimeout=10"; do
  check "-c $c update-ref" "$S1" /dev/null 1 -c "$c" update-ref -m "by -c" refs/heads/cnew "$H1"
done
check "-c twice, the last wins" "$S1" /dev/null 1 -c user.name=First -c user.name=Second \
  update-ref -m "by -c" refs/heads/cnew "$H1"
ro "-c color.ui=always for-each-ref" -c color.ui=always for-each-ref --format='%(color:red)%(refname)'
ro "-c before -C" -c color.ui=never -C .git -C .. show-ref --heads

# GIT_REF_PARANOIA: on by default (refs/heads/lost is listed, and show-ref dies on it); off,
# listings leave out refs whose object is missing, with git's error; not a boolean, git dies.
for paranoia in 0 false 1 maybe; do
  export GIT_REF_PARANOIA=$paranoia
  for opts in "" "--heads" "-d" "--hash" "-q" "main" "lost" "--head x"; do
    ro "show-ref $opts [GIT_REF_PARANOIA=$paranoia]" show-ref $opts
  done
  check "show-ref --exclude-existing [GIT_REF_PARANOIA=$paranoia]" "$S1" "$tmp/stdin1" 0 \
    show-ref --exclude-existing
done
unset GIT_REF_PARANOIA

# ---------------------------------------------------------------- symbolic-ref (reading)
for name in HEAD refs/heads/sym refs/heads/sym2 refs/heads/dangling refs/heads/main \
    refs/heads/nope refs/remotes/origin/HEAD refs/remotes/up/HEAD "refs/heads/a..b" main \
    ORIG_HEAD refs/tags/symtag "bad name" refs/heads; do
  for opts in "" "-q" "--short" "--no-recurse" "--recurse" "--short --no-recurse" "-q --short"; do
    check "symbolic-ref $opts [$name]" "$S1" /dev/null 0 symbolic-ref $opts "$name"
  done
done
for bad in "" "--bogus" "-x" "-h" "a b c" "--shor HEAD" "-short HEAD" "-d" "-d a b" \
    "--no-quiet HEAD" "-m" "--delete"; do
  ro "symbolic-ref $bad" symbolic-ref $bad
done
# ---------------------------------------------------------------- symbolic-ref (writing)
w() { local desc=$1; shift; check "$desc" "$S1" /dev/null 1 "$@"; check "$desc (sha256)" "$S2" /dev/null 1 "$@"; }
w "symbolic-ref set HEAD" symbolic-ref HEAD refs/heads/x
w "symbolic-ref set HEAD -m" symbolic-ref -m "switch to x" HEAD refs/heads/x
w "symbolic-ref set HEAD unborn" symbolic-ref HEAD refs/heads/unborn
w "symbolic-ref set HEAD outside refs" symbolic-ref HEAD main
w "symbolic-ref set HEAD outside refs 2" symbolic-ref HEAD ORIG_HEAD
w "symbolic-ref set invalid target" symbolic-ref refs/heads/s3 "refs/heads/a..b"
w "symbolic-ref set one-level target" symbolic-ref refs/heads/s3 FOO
w "symbolic-ref set new" symbolic-ref refs/heads/s3 refs/heads/main
w "symbolic-ref set new -m" symbolic-ref -m why refs/heads/s3 refs/heads/main
w "symbolic-ref set over branch" symbolic-ref refs/heads/x refs/heads/main
w "symbolic-ref set over symref" symbolic-ref refs/heads/sym refs/heads/main
w "symbolic-ref set empty -m" symbolic-ref -m "" HEAD refs/heads/x
w "symbolic-ref set D/F" symbolic-ref refs/heads/d refs/heads/main
w "symbolic-ref set D/F 2" symbolic-ref refs/heads/x/y refs/heads/main
w "symbolic-ref set bad name" symbolic-ref "refs/heads/a..b" refs/heads/main
w "symbolic-ref set remote HEAD" symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/dev
w "symbolic-ref set root ref" symbolic-ref ORIG_HEAD refs/heads/main
w "symbolic-ref set pseudoref" symbolic-ref FETCH_HEAD refs/heads/main
w "symbolic-ref set multi-line -m" symbolic-ref -m $'line one\nline two' HEAD refs/heads/x
for name in refs/heads/sym refs/heads/dangling HEAD refs/heads/main refs/heads/nope \
    refs/remotes/origin/HEAD "refs/heads/a..b" refs/heads/sym2; do
  w "symbolic-ref -d [$name]" symbolic-ref -d "$name"
  check "symbolic-ref --delete -q [$name]" "$S1" /dev/null 1 symbolic-ref --delete -q "$name"
done

# ---------------------------------------------------------------- refs exists
for ref in refs/heads/main HEAD refs/heads/dangling refs/heads/nope refs/heads refs/tags/at1 \
    "bad name" ORIG_HEAD FETCH_HEAD refs/heads/lost refs/remotes/origin/HEAD; do
  ro "refs exists [$ref]" refs exists "$ref"
done
for bad in "" "a b" "-h" "--bogus x"; do ro "refs exists $bad" refs exists $bad; done
ro "refs: no subcommand" refs
ro "refs: unknown subcommand" refs bogus
ro "refs: -h" refs -h

# ---------------------------------------------------------------- refs create/update/delete/rename
# Each writing case, then `git refs verify` of both results (what git makes of what was written).
rw() {
  local desc=$1; shift
  for hash in sha1 sha256; do
    local d=$desc repo=$S1
    [ $hash = sha256 ] && d="$desc (sha256)" repo=$S2
    if [ -n "$filter" ] && [[ $d != *$filter* ]]; then continue; fi
    check "$d" "$repo" /dev/null 1 "$@"
    local gv rv
    gv=$("$git" --git-dir="$tmp/g/.git" refs verify --strict 2>&1; echo "rc=$?")
    rv=$("$git" --git-dir="$tmp/r/.git" refs verify --strict 2>&1; echo "rc=$?")
    verdict "$d: refs verify after" "$([ "$gv" = "$rv" ] || echo "git: $gv reftab: $rv")"
  done
}
Z=0000000000000000000000000000000000000000
for v in HEAD HEAD~1 at1 'at1^{}' x "$H1" nope "$Z" 'HEAD^{tree}' "$M1" ''; do
  rw "refs create [refs/heads/n $v]" refs create refs/heads/n "$v"
done
rw "refs create annotated tag" refs create refs/tags/n at1
rw "refs create tag of tree" refs create refs/tags/n attree
for ref in refs/heads/x HEAD refs/heads/d 'refs/heads/a..b' refs/heads/x/y refs/heads/d/e/f \
    FETCH_HEAD ORIG_HEAD NEWROOT refs/heads/dangling refs/heads/sym refs/heads/lost; do
  rw "refs create [$ref]" refs create "$ref" x
  rw "refs create --no-deref [$ref]" refs create --no-deref "$ref" x
done
rw "refs create --message" refs create --message='made   by refs' refs/heads/n HEAD
rw "refs create -m multi-line" refs create --message=$'one\ntwo' refs/heads/n HEAD
rw "refs create --message=" refs create --message= refs/heads/n HEAD
rw "refs create --message= --no-message" refs create --message= --no-message refs/heads/n HEAD
rw "refs create --create-reflog" refs create --create-reflog refs/other/n HEAD
rw "refs create no reflog" refs create refs/other/n HEAD
rw "refs create --mess abbreviated" refs create --mess=abbr refs/heads/n HEAD
for bad in "" "refs/heads/n" "refs/heads/n HEAD extra" "--bogus refs/heads/n HEAD" "-h" \
    "-m x refs/heads/n HEAD" "--message" "--no-deref=1 a b"; do
  rw "refs create usage [$bad]" refs create $bad
done

for ref in refs/heads/x refs/heads/main refs/heads/sym refs/heads/sym2 refs/heads/dangling \
    HEAD refs/heads/n refs/tags/at1 'refs/heads/a..b' refs/heads/d refs/heads/lost; do
  rw "refs update [$ref]" refs update -m up "$ref" d/e
  rw "refs update --no-deref [$ref]" refs update --no-deref "$ref" d/e
  rw "refs update old HEAD [$ref]" refs update "$ref" d/e HEAD
  rw "refs update old x [$ref]" refs update "$ref" d/e x
  rw "refs update old zero [$ref]" refs update "$ref" d/e "$Z"
done
rw "refs update to zero" refs update refs/heads/x "$Z"
rw "refs update to zero, old" refs update refs/heads/x "$Z" x
rw "refs update nope" refs update refs/heads/x nope
rw "refs update old nope" refs update refs/heads/x HEAD nope
rw "refs update old empty" refs update refs/heads/x HEAD ''
rw "refs update --create-reflog" refs update --create-reflog refs/other/o HEAD
rw "refs update tree to branch" refs update refs/heads/x 'HEAD^{tree}'
rw "refs update --message=" refs update --message= refs/heads/x HEAD
for bad in "" "refs/heads/x" "refs/heads/x a b c" "--bogus" "-h"; do
  rw "refs update usage [$bad]" refs update $bad
done

for ref in refs/heads/x refs/heads/main refs/heads/sym refs/heads/sym2 refs/heads/dangling \
    HEAD refs/heads/nope refs/tags/at1 'refs/heads/a..b' refs/heads/d refs/heads/lost \
    refs/remotes/origin/HEAD ORIG_HEAD; do
  rw "refs delete [$ref]" refs delete -m gone "$ref"
  rw "refs delete --no-deref [$ref]" refs delete --no-deref "$ref"
  rw "refs delete old x [$ref]" refs delete "$ref" x
done
rw "refs delete old zero" refs delete refs/heads/x "$Z"
rw "refs delete old nope" refs delete refs/heads/x nope
rw "refs delete old empty" refs delete refs/heads/x ''
rw "refs delete old HEAD" refs delete refs/heads/x HEAD
rw "refs delete --message=" refs delete --message= refs/heads/x
for bad in "" "a b c" "--bogus" "-h" "--create-reflog refs/heads/x"; do
  rw "refs delete usage [$bad]" refs delete $bad
done

for pair in "refs/heads/x refs/heads/y" "refs/heads/main refs/heads/trunk" \
    "refs/heads/x refs/heads/main" "refs/heads/x refs/heads/x" "refs/heads/nope refs/heads/y" \
    "refs/heads/sym refs/heads/y" "refs/heads/dangling refs/heads/y" \
    "refs/heads/x refs/heads/dangling" "refs/heads/x refs/heads/x/y" "refs/heads/d/e refs/heads/d" \
    "refs/heads/x refs/heads/d" "refs/heads/x refs/heads/d/e/f" "refs/heads/x refs/heads/d/f" \
    "refs/heads/x refs/heads/a..b" "refs/heads/a..b refs/heads/y" "HEAD refs/heads/y" \
    "refs/heads/x HEAD" "refs/heads/x NEWROOT" "ORIG_HEAD refs/heads/y" \
    "refs/tags/at1 refs/tags/at9" "refs/tags/t1 refs/heads/fromtag" \
    "refs/remotes/origin/main refs/remotes/origin/trunk" "refs/heads/lost refs/heads/found" \
    "refs/heads/feature/long-name refs/heads/f" "refs/heads/x refs/other/o/deeper" \
    "refs/heads/only-in-x refs/heads/x/only" "main refs/heads/y" "refs/heads/x y"; do
  rw "refs rename [$pair]" refs rename $pair
  rw "refs rename -m [$pair]" refs rename --message="renamed  it" $pair
done
rw "refs rename twice" -c core.logAllRefUpdates=always refs rename refs/other/o refs/other/p
rw "refs rename --message=" refs rename --message= refs/heads/x refs/heads/y
rw "refs rename --no-deref" refs rename --no-deref refs/heads/x refs/heads/y
for bad in "" "refs/heads/x" "a b c" "--bogus" "-h"; do
  rw "refs rename usage [$bad]" refs rename $bad
done

# ---------------------------------------------------------------- names with hostile bytes
# A table written by another tool (here reftab's write-table) whose ref names hold a NUL byte,
# control bytes, "..", a ".lock" component, bytes that are not UTF-8, a dangerous "..": git
# reads a name up to a NUL, lists the others past a bad one (for-each-ref warns; show-ref dies
# on it, after the refs before it) and dies on a dangerous one; `refs verify` says nothing.
hostile_repo() {  # DIR NAME-AS-PRINTF-FORMAT...
  local d=$1; shift
  cp -a "$S1" "$d"
  local last next
  last=$(tail -1 "$d/.git/reftable/tables.list")
  next=$(( $(printf '%d' "0x$(echo "$last" | cut -c18-29)") + 1 ))
  {
    printf '{"type":"header","version":1,"hash":"sha1","block_size":4096,"min_update_index":%d,"max_update_index":%d}\n' "$next" "$next"
    for n in "$@"; do
      printf '{"type":"ref","name_hex":"%s","update_index":%d,"value_type":1,"value":"%s"}\n' \
        "$(printf "$n" | od -An -v -tx1 | tr -d ' \n')" "$next" "$H1"
    done
  } | "$reftab" write-table --min-update-index "$next" --max-update-index "$next" \
    "$d/.git/reftable/table.tmp" || exit 1
  local table
  table=$(printf '0x%012x-0x%012x-0badbeef.ref' "$next" "$next")
  mv "$d/.git/reftable/table.tmp" "$d/.git/reftable/$table"
  echo "$table" >>"$d/.git/reftable/tables.list"
}
hi=0
for n in 'refs/heads/a\0evil' 'refs/heads/n\0..' 'refs/heads/ctl\001x' 'refs/heads/tab\tx' \
    'refs/heads/a..b' 'refs/heads/x.lock' 'refs/heads/bad\377' 'refs/heads/caf\303\251' \
    'refs/heads/../evil' 'refs/heads/sp ace' 'refs/heads/del\177'; do
  hi=$((hi + 1)); HR=$tmp/hostile$hi
  hostile_repo "$HR" "$n"
  for cmd in "show-ref" "show-ref --heads" "show-ref -d" "show-ref --tags" "for-each-ref" \
      "for-each-ref --format=%(refname)" "refs list --sort=-refname" "for-each-ref refs/heads/" \
      "for-each-ref refs/tags/" "for-each-ref --count=3" "refs verify" "refs verify --strict" \
      "rev-parse --verify -q refs/heads/a" "refs exists refs/heads/a" "show-ref --exists refs/heads/main"; do
    REFTAB_TEST_FOR_EACH_REF_GENERAL= check "hostile [$n] $cmd" "$HR" /dev/null 0 $cmd
  done
  REFTAB_TEST_FOR_EACH_REF_GENERAL=1 check "hostile [$n] for-each-ref (general path)" "$HR" /dev/null 0 for-each-ref
done
# git's exact lookup compares the name it seeks with the one it finds as C strings: a stored
# refs/heads/a\0evil answers for refs/heads/a, unless refs/heads/a itself is there (first in
# order) or the name found first is a deletion.
hi=$((hi + 1)); HR=$tmp/hostile$hi
hostile_repo "$HR" 'refs/heads/a\0evil' 'refs/heads/a\0zzz'
hi=$((hi + 1)); HE=$tmp/hostile$hi
hostile_repo "$HE" 'refs/heads/a' 'refs/heads/a\0evil'
hi=$((hi + 1)); HT=$tmp/hostile$hi
hostile_repo "$HT" 'refs/heads/a\0evil'
"$git" -C "$HT" update-ref refs/heads/a "$H1" && "$git" -C "$HT" update-ref -d refs/heads/a
for d in "$HR:two" "$HE:exact too" "$HT:deleted exact"; do
  for cmd in "rev-parse --verify -q refs/heads/a" "rev-parse --verify -q heads/a" "rev-parse a" \
      "refs exists refs/heads/a" "show-ref --exists refs/heads/a" "show-ref --verify refs/heads/a" \
      "symbolic-ref refs/heads/a" "rev-parse --verify -q refs/heads/a^{commit}"; do
    check "NUL-cut lookup (${d#*:}) $cmd" "${d%%:*}" /dev/null 0 $cmd
  done
done

# Sorted listings over refs/heads/lost, whose object is gone: git collects every ref, then
# dies when its sort first needs lost's values, before printing anything; a format that
# needs no object lists every ref.
for args in "--sort=-refname" "--sort=-refname --count=1" "--sort=objecttype" \
    "--sort=-refname --format=%(refname)" "--sort=-refname --format=%(objectname)" \
    "--sort=-refname --format=%(objecttype) refs/tags" "--sort=-refname refs/heads/lost" \
    "--sort=-refname --count=2 refs/heads" "--sort=committerdate --format=%(refname)"; do
  # shellcheck disable=SC2086
  ro "sorted over a missing object: for-each-ref $args" for-each-ref $args
  # shellcheck disable=SC2086
  ro "sorted over a missing object: refs list $args" refs list $args
done

# ---------------------------------------------------------------- rev-parse (names only)
for name in main HEAD @ x heads/main tags/main refs/heads/main at1 origin origin/main up \
    sym dangling nope refs/heads/nope feature/long-name "$H1" "$M1" ORIG_HEAD FOO lost \
    "a..b" symtag d/e e; do
  for opts in "" "--verify" "-q --verify" "--symbolic" "--symbolic-full-name" "--abbrev-ref" \
      "--abbrev-ref=loose"; do
    check "rev-parse $opts [$name]" "$S1" /dev/null 0 rev-parse $opts "$name"
  done
done
check "rev-parse two names" "$S1" /dev/null 0 rev-parse main x
check "rev-parse --verify two names" "$S1" /dev/null 0 rev-parse --verify main x
check "rev-parse --verify none" "$S1" /dev/null 0 rev-parse --verify
check "rev-parse --verify -q none" "$S1" /dev/null 0 rev-parse --verify -q
check "rev-parse --verify --symbolic-full-name" "$S1" /dev/null 0 rev-parse --verify --symbolic-full-name main
check "rev-parse --abbrev-ref=strict" "$S1" /dev/null 0 rev-parse --abbrev-ref=strict refs/heads/main
check "rev-parse --verify --quiet" "$S1" /dev/null 0 rev-parse --verify --quiet nope
check "rev-parse warnAmbiguousRefs=false" "$S1" /dev/null 0 rev-parse --verify tags/main
# Revision suffixes (~N, ^N, ^{}, ^{type}) and --short[=N], on both hash formats.
for name in "HEAD~1" "HEAD^" "HEAD^1" "HEAD^2" "HEAD^0" "HEAD~0" "main~2" "HEAD~99" "HEAD^{}" \
    "at1^{}" "at1^{commit}" "at1^{tree}" "at1^{tag}" "at1^{blob}" "at1~1" "HEAD^{tree}" \
    "HEAD~1^{tree}" "@~1" "x^" "nope~1" "HEAD~" "HEAD^^" "HEAD~x" "HEAD^{bogus}" "attree^{}"; do
  for opts in "" "--verify" "-q --verify" "--symbolic-full-name" "--short" "--short=12"; do
    ro "rev-parse $opts [$name]" rev-parse $opts "$name"
  done
done
for n in "" "=0" "=1" "=4" "=5" "=40" "=64" "=99" "=x" "=-3" "=2147483648"; do
  ro "rev-parse --short$n HEAD" rev-parse "--short$n" HEAD
done
ro "rev-parse --short two names" rev-parse --short HEAD main~1
ro "rev-parse --short -q nope" rev-parse --short -q nope
# Flags act from where they appear: names before them are shown without them.
ro "rev-parse name --short name" rev-parse HEAD~1 --short HEAD
ro "rev-parse name --short two names" rev-parse HEAD~1 --short HEAD main~1
ro "rev-parse name --symbolic name" rev-parse main --symbolic HEAD~1
ro "rev-parse name --abbrev-ref name" rev-parse refs/heads/main --abbrev-ref refs/heads/main
ro "rev-parse name --verify name" rev-parse main --verify HEAD
ro "rev-parse nope then -q --verify" rev-parse HEAD --verify -q nope
ro "rev-parse --symbolic-full-name then --short" rev-parse --symbolic-full-name main --short HEAD
# update-ref takes the same revisions as values, new and old, on the command line and in --stdin.
for value in "HEAD~1" "main^" "at1^{}" "at1^{commit}" "HEAD~99" "HEAD^{tree}" "at1^{blob}" "nope~1"; do
  check "update-ref with [$value]" "$S1" /dev/null 1 update-ref -m "to $value" refs/heads/rv "$value"
  check "update-ref -d with old [$value]" "$S1" /dev/null 1 update-ref -d refs/heads/main "$value"
done
printf 'create refs/heads/rv1 HEAD~1\nupdate refs/heads/main HEAD~2 HEAD\nverify refs/heads/x x~0\n' >"$tmp/stdin-rev"
check "update-ref --stdin with revisions" "$S1" "$tmp/stdin-rev" 1 update-ref --stdin

# ---------------------------------------------------------------- pack-refs / refs optimize / refs verify
for cmd in "pack-refs" "refs optimize"; do
  for opts in "" "--all" "--auto" "--all --prune" "--no-prune" "--include refs/heads/*" \
      "--exclude refs/tags/*" "--all --auto" "x" "--bogus" "-h" "--include"; do
    w "$cmd $opts" $cmd $opts
  done
done
for opts in "" "--strict" "--verbose" "x" "--bogus" "-h"; do
  ro "refs verify $opts" refs verify $opts
done

# ---------------------------------------------------------------- other worktrees' refs
# worktrees/<id>/<ref> reads <ref> in worktree <id>'s stack and main-worktree/<ref> in the main
# worktree's, from any worktree; worktrees/x names one that does not exist.
W=$tmp/wmain WT=$tmp/wlinked
cp -a "$S1" "$W"
"$git" -C "$W" worktree add -q -b wtb "$WT" HEAD~1
"$git" -C "$WT" update-ref refs/bisect/bad HEAD~2
"$git" -C "$WT" update-ref refs/worktree/w HEAD~2
"$git" -C "$WT" symbolic-ref refs/worktree/s refs/heads/x
"$git" -C "$W" update-ref refs/bisect/m HEAD
for dir in "$W" "$WT"; do
  where=main; [ "$dir" = "$WT" ] && where=linked
  for name in worktrees/wlinked/HEAD worktrees/wlinked/refs/bisect/bad \
      worktrees/wlinked/refs/worktree/w worktrees/wlinked/refs/worktree/s main-worktree/HEAD \
      main-worktree/refs/bisect/m main-worktree/refs/bisect/bad worktrees/x/HEAD \
      worktrees/wlinked worktrees/wlinked/refs/heads/main main-worktree/refs/heads/main; do
    for cmd in "rev-parse --verify -q" "rev-parse --symbolic-full-name" "show-ref --exists" \
        "show-ref --verify" "symbolic-ref" "symbolic-ref --short" "reflog exists" \
        "reflog show" "refs exists"; do
      check "worktree ($where) $cmd [$name]" "$dir" /dev/null 0 $cmd "$name"
    done
  done
  check "worktree ($where) for-each-ref" "$dir" /dev/null 0 for-each-ref --include-root-refs
  check "worktree ($where) reflog list" "$dir" /dev/null 0 reflog list
done

# ---------------------------------------------------------------- the pager
# On a terminal (tests/cli/real_git.sh's on_tty) git pages a command's output when -p or
# --paginate, or pager.<command> (true, or a pager command), asks for it; -P/--no-pager and
# pager.<command>=false keep it off; rev-parse reads no pager.<command>. The pager is
# GIT_PAGER, pager.<command>'s command, core.pager, PAGER, in that order. Errors and usage
# texts go through it too (standard error is the terminal). Writers run on copies.
if have_tty; then
  pager_scripts
  # tty_check DESC ENVS ARG...: `ARG...` on a terminal in a copy of $S1, both programs.
  tty_check() {
    local desc="[tty] $1" envs=$2; shift 2
    if [ -n "$filter" ] && [[ $desc != *$filter* ]]; then return; fi
    local side
    for side in g r; do
      rm -rf "$tmp/tty"; cp -a "$S1" "$tmp/tty"
      local exe=$reftab; [ $side = g ] && exe=$git
      (cd "$tmp/tty" && on_tty "$tmp/tty-$side" "$envs" "$exe" "$@")
    done
    local why=""
    cmp -s "$tmp/tty-g" <(tty_normalize <"$tmp/tty-r") ||
      why="$(diff "$tmp/tty-g" <(tty_normalize <"$tmp/tty-r") | grep '^[<>]' | head -6 | cat -v)"
    verdict "$desc" "$why"
  }
  # normalize, after a pager's mark.
  tty_normalize() {
    sed -E -e 's/^([PC]:)?usage: reftab /\1usage: git /' -e 's/^([PC]:)?   or: reftab /\1   or: git /' \
      -e 's/^([PC]:)?                       \[/\1                    [/'
  }
  for cmd in "show-ref --tags" "show-ref --verify refs/heads/main" "show-ref --exists nope" \
      "symbolic-ref HEAD" "refs list refs/tags" "refs exists HEAD" "refs verify" "for-each-ref --count=2" \
      "rev-parse HEAD" "rev-parse --verify -q nope" "update-ref refs/heads/n HEAD" \
      "pack-refs" "refs optimize" "reflog list" "refs create refs/heads/n HEAD"; do
    sub=${cmd%% *}
    for o in "" -p --paginate -P --no-pager "-p -P" "-P -p" "-c pager.$sub=true" \
        "-c pager.$sub=false" "-c pager.$sub" "-c pager.$sub=cpager" "-c pager.$sub=0" \
        "-p -c pager.$sub=false" "-P -c pager.$sub=true"; do
      # shellcheck disable=SC2086
      tty_check "$o $cmd" GIT_PAGER=ppager $o $cmd
    done
    # shellcheck disable=SC2086
    tty_check "-c pager.$sub=cpager $cmd (no GIT_PAGER)" "-u GIT_PAGER" -c "pager.$sub=cpager" $cmd
  done
  # Which pager: GIT_PAGER, pager.<command>'s command, core.pager, PAGER; "cat" or "" none.
  tty_check "core.pager" "-u GIT_PAGER" -c core.pager=cpager -p show-ref --tags
  tty_check "PAGER" "-u GIT_PAGER PAGER=ppager" -p show-ref --tags
  tty_check "PAGER, core.pager" "-u GIT_PAGER PAGER=ppager" -c core.pager=cpager -p show-ref --tags
  tty_check "pager.show-ref over core.pager" "-u GIT_PAGER" -c core.pager=ppager \
    -c pager.show-ref=cpager show-ref --tags
  tty_check "GIT_PAGER over pager.show-ref" GIT_PAGER=ppager -c pager.show-ref=cpager show-ref --tags
  tty_check "pager.show-ref command, then false" GIT_PAGER=ppager -c pager.show-ref=cpager \
    -c pager.show-ref=false show-ref --tags
  tty_check "-p, pager.show-ref command unused" "-u GIT_PAGER" -c pager.show-ref=cpager -p \
    show-ref --tags
  tty_check "GIT_PAGER=cat" GIT_PAGER=cat -p show-ref --tags
  tty_check "GIT_PAGER=" GIT_PAGER= -p show-ref --tags
  # Usage texts and errors: through the pager once it runs.
  for o in -p "-c pager.show-ref" "-c pager.show-ref=false"; do
    # shellcheck disable=SC2086
    for a in -h --bogus "--verify nope" "--exists"; do
      tty_check "$o show-ref $a" GIT_PAGER=ppager $o show-ref $a
    done
  done
  tty_check "-p symbolic-ref -h" GIT_PAGER=ppager -p symbolic-ref -h
  tty_check "-p refs list -h" GIT_PAGER=ppager -p refs list -h
  tty_check "-c pager.refs refs exists" GIT_PAGER=ppager -c pager.refs refs exists
  tty_check "-p update-ref (bad)" GIT_PAGER=ppager -p update-ref refs/heads/n nope
  # Where git's setup dies (no repository), before any pager; rev-parse has no setup.
  tty_check "-p show-ref (no repository)" GIT_PAGER=ppager -p --git-dir="$tmp/no-such" show-ref
  tty_check "-p rev-parse (no repository)" GIT_PAGER=ppager -p --git-dir="$tmp/no-such" rev-parse HEAD
  KNOWN["[tty] -c bad syntax -p show-ref --tags"]="git reads no -c setting before it pages with -p and GIT_PAGER set, so its complaint goes through the pager; reftab reads the configuration first and says so without one (and without git's error line before the fatal one)"
  tty_check "-c bad syntax -p show-ref --tags" GIT_PAGER=ppager -c "a b=c" -p show-ref --tags
  # A listing that dies part way (at refs/heads/lost, whose object is gone).
  KNOWN["[tty] -p show-ref"]="git's standard output is block-buffered into the pager, so its fatal line comes before the lines it still holds; reftab writes what it has listed before the message, as on a terminal"
  tty_check "-p show-ref" GIT_PAGER=ppager -p show-ref
fi
# Off a terminal nothing pages.
check "-p show-ref (no terminal)" "$S1" /dev/null 0 -p show-ref --heads
check "pager.show-ref (no terminal)" "$S1" /dev/null 0 -c pager.show-ref=ppager show-ref --heads

# A git directory that does not exist: git's message, from every command.
for cmd in "show-ref" "rev-parse HEAD" "symbolic-ref HEAD" "update-ref refs/heads/x HEAD" \
    "refs exists HEAD" "for-each-ref" "reflog list"; do
  check "missing git dir $cmd" "$S1" /dev/null 0 --git-dir="$tmp/no-such-repo" $cmd
done

verdict_end
