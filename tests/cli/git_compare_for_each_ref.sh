#!/usr/bin/env bash
# reftab's for-each-ref and refs list against the real git, case by case: both run the same
# command in the same repository and must agree byte for byte on standard output, standard
# error and the exit status. The repositories are built here with git: commits with fixed
# dates, branches with upstreams (a remote, a local one, a push remote), annotated and nested
# tags, tags of trees and blobs, symrefs (one dangling), remote-tracking refs, root refs,
# packed and loose objects; and a SHA-256 repository.
#
# Usage: git_compare_for_each_ref.sh REFTAB [FILTER]. Needs a reftable-capable git:
# $REFTAB_GIT, else `git` on PATH if it is at least 2.45; without one it is skipped. Prints TAP
# (real_git.sh). Cases listed in KNOWN may differ; they are counted apart and do not fail.
set -u
reftab=$(realpath "$1")
filter=${2:-}

# shellcheck source=tests/cli/real_git.sh
source "$(dirname "${BASH_SOURCE[0]}")/real_git.sh"
find_real_git 45 "reftable needs 2.45"

isolate_git_env
export GIT_AUTHOR_NAME='A U Thor' GIT_AUTHOR_EMAIL=a@example.com
unset GIT_TEST_REFTABLE_AUTOCOMPACTION

at() {  # at SECONDS: the dates of the next commit or tag
  export GIT_COMMITTER_DATE="$1 +0100" GIT_AUTHOR_DATE="$(($1 - 3600)) -0530"
}

# The main repository (SHA-1).
R=$tmp/repo
g() { "$git" -C "$R" "$@"; }
"$git" init -q -b main --ref-format=reftable "$R" || exit 1
at 1700000000; g commit -q --allow-empty -m "first"
at 1700000100; g commit -q --allow-empty -m "second: with a body" -m "body line 1
body line 2"
g repack -q -a -d  # the first two commits packed, the rest loose
at 1700000200; g branch feature
g commit -q --allow-empty -m "third"
at 1700000300; g checkout -q feature
g commit -q --allow-empty -m "feature work" -m "Signed-off-by: A U Thor <a@example.com>"
at 1700000400; g commit -q --allow-empty -m "more feature's work"
g checkout -q main
at 1700000500; g branch topic/a HEAD~1
g branch topic/b
g branch UPPER HEAD~2
g update-ref refs/remotes/origin/main HEAD~1
g update-ref refs/remotes/origin/feature feature~1
g symbolic-ref refs/remotes/origin/HEAD refs/remotes/origin/main
g symbolic-ref refs/heads/sym refs/heads/topic/a
g symbolic-ref refs/heads/dangling refs/heads/nowhere
g update-ref ORIG_HEAD HEAD~1
at 1700000600; g tag -a -m "annotated v1.2" v1.2 HEAD~2
at 1700000700; g tag -a -m "release v1.10" -m "with a message body" v1.10 HEAD~1
at 1700000800; g tag v1.9-rc1 HEAD
g tag -a -m "a tag of a tag" nested v1.10
g tag -a -m "a tag of a tree" treetag "HEAD^{tree}"
blob=$(echo "some blob" | g hash-object -w --stdin)
g tag blobtag "$blob"
g tag -a -m 'quote '"'"' and "double" \ back $dollar [br] {c}' quoting HEAD
printf 'object %s\ntype commit\ntag signed\ntagger T <t@example.com> 1700000900 +0000\n\nsigned subject\n\nsigned body\n-----BEGIN PGP SIGNATURE-----\nabc\n-----END PGP SIGNATURE-----\n' \
  "$(g rev-parse HEAD)" | g hash-object -t tag -w --stdin >"$tmp/signed"
g update-ref refs/tags/signed "$(cat "$tmp/signed")"
g update-ref refs/notes/commits HEAD
g update-ref refs/other/Mixed/Case HEAD~2
g config remote.origin.url /nonexistent
g config remote.origin.fetch '+refs/heads/*:refs/remotes/origin/*'
g config branch.main.remote origin
g config branch.main.merge refs/heads/main
g config branch.feature.remote origin
g config branch.feature.merge refs/heads/feature
g config branch.topic/a.remote .
g config branch.topic/a.merge refs/heads/main
g config branch.topic/b.remote origin
g config branch.topic/b.merge refs/heads/gone
g config branch.UPPER.remote origin
g config branch.UPPER.merge refs/heads/main
g config branch.UPPER.pushRemote other
g config remote.other.url /elsewhere
g config remote.other.fetch '+refs/heads/*:refs/remotes/other/*'
g config remote.other.push 'refs/heads/*:refs/heads/pushed/*'

# A SHA-256 repository: a merge, a branch with an upstream, annotated and lightweight tags.
S=$tmp/sha256
"$git" init -q -b main --ref-format=reftable --object-format=sha256 "$S" || exit 1
at 1700001000; "$git" -C "$S" commit -q --allow-empty -m "sha256 commit"
"$git" -C "$S" branch side
at 1700001100; "$git" -C "$S" commit -q --allow-empty -m "sha256 second" -m "with a body"
at 1700001200; "$git" -C "$S" checkout -q side
echo f >"$S/f"; "$git" -C "$S" add f
at 1700001300; "$git" -C "$S" commit -q -m "sha256 on side"
"$git" -C "$S" checkout -q main
at 1700001400; "$git" -C "$S" merge -q --no-ff -m "sha256 merge" side
"$git" -C "$S" branch -q older main~1
"$git" -C "$S" config branch.older.remote .
"$git" -C "$S" config branch.older.merge refs/heads/main
"$git" -C "$S" tag light HEAD~1
"$git" -C "$S" tag -a -m "sha256 tag" t256
"$git" -C "$S" symbolic-ref refs/heads/link refs/heads/side


DIR=$R
STDIN=
run_case() {  # run_case LABEL ARGS...: both tools, same arguments, same directory
  local label=$1; shift
  [ -n "$filter" ] && [[ $label != *$filter* ]] && return
  printf '%s' "$STDIN" >"$tmp/in"
  # One process each (the subshell becomes the command), compared in the shell where it can
  # (real_git.sh): at thousands of cases, every process counts.
  (cd "$DIR" && exec "$git" "$@" <"$tmp/in" >"$tmp/g.out" 2>"$tmp/g.err"); local grc=$?
  (cd "$DIR" && exec "$reftab" "$@" <"$tmp/in" >"$tmp/r.out" 2>"$tmp/r.err"); local rrc=$?
  # Usage texts name the program: reftab's "usage: reftab ..." is compared as git's.
  local f text
  for f in "$tmp/r.out" "$tmp/r.err"; do
    if ! slurp text "$f" || [[ $text == *"usage: reftab "* ]]; then
      sed -i 's/^usage: reftab /usage: git /' "$f"
    fi
  done
  local why=""
  if [ "$grc" != "$rrc" ] || ! same_bytes "$tmp/g.out" "$tmp/r.out" ||
     ! same_bytes "$tmp/g.err" "$tmp/r.err"; then
    why="in $DIR: git rc=$grc reftab rc=$rrc
$(diff <(cat "$tmp/g.out"; echo "--- stderr"; cat "$tmp/g.err") \
       <(cat "$tmp/r.out"; echo "--- stderr"; cat "$tmp/r.err") | head -12)"
  fi
  verdict "$label" "$why"
}
PREFIX=
fer() { run_case "$PREFIX$*" for-each-ref "$@"; }
# `refs list` is wired up by the `refs` command; without one these cases are not run.
if "$reftab" refs list -h >/dev/null 2>&1; then
  rl() { run_case "${PREFIX}refs list $*" refs list "$@"; }
else
  echo "note: this reftab has no 'refs' command; the refs list cases are not run"
  rl() { :; }
fi

# Formats, each run over a few selections of refs.
formats=(
  '%(refname)' '%(refname:short)' '%(refname:lstrip=1)' '%(refname:lstrip=2)'
  '%(refname:lstrip=-1)' '%(refname:lstrip=-2)' '%(refname:strip=3)' '%(refname:rstrip=1)'
  '%(refname:rstrip=-1)' '%(refname:rstrip=2)' '%(refname:lstrip=9)' '%(refname:rstrip=9)'
  '%(refname:lstrip=-9)' '%(objectname)' '%(objectname:short)' '%(objectname:short=10)'
  '%(objectname:short=1)' '%(objecttype)' '%(objectsize)' '%(*objectname)' '%(*objecttype)'
  '%(*objectsize)' '%(*refname)' '%(symref)' '%(symref:short)' '%(symref:lstrip=-1)'
  '%(symref:rstrip=1)' '%(HEAD) %(refname)' '%(flag)' '%(upstream)' '%(upstream:short)'
  '%(upstream:lstrip=2)' '%(upstream:track)' '%(upstream:trackshort)'
  '%(upstream:track,nobracket)' '%(upstream:remotename)' '%(upstream:remoteref)'
  '%(push)' '%(push:short)' '%(push:track)' '%(push:trackshort)' '%(push:remotename)'
  '%(push:remoteref)' '%(subject)' '%(subject:sanitize)' '%(body)' '%(contents)'
  '%(contents:subject)' '%(contents:body)' '%(contents:signature)' '%(contents:size)'
  '%(contents:lines=1)' '%(contents:lines=2)' '%(contents:lines=0)' '%(*subject)' '%(*body)'
  '%(author)' '%(authorname)' '%(authoremail)' '%(authoremail:trim)'
  '%(authoremail:localpart)' '%(authoremail:trim,localpart)' '%(authordate)'
  '%(committer)' '%(committername)' '%(committeremail)' '%(committerdate)'
  '%(committerdate:raw)' '%(committerdate:unix)' '%(committerdate:iso)'
  '%(committerdate:iso-strict)' '%(committerdate:iso8601)' '%(committerdate:rfc)'
  '%(committerdate:short)' '%(committerdate:default)' '%(committerdate:format:%Y/%m/%d %H:%M %z)'
  '%(committerdate:format-local:%Y-%m-%d %H:%M)' '%(committerdate:local)'
  '%(committerdate:iso-local)' '%(authordate:raw-local)' '%(committerdate:relative)'
  '%(committerdate:auto:iso)' '%(committerdate:auto:bogus)' '%(committerdate:human)'
  '%(committerdate:rfc2822)' '%(committerdate:iso8601-strict)' '%(committerdate:short-local)'
  '%(committerdate:rfc-local)' '%(committerdate:iso-strict-local)' '%(committerdate:unix-local)'
  '%(committerdate:relative-local)' '%(committerdate:human-local)' '%(committerdate:default-local)'
  '%(committerdate:format)' '%(committerdate:format:)' '%(committerdate:isox)'
  '%(tagger)' '%(taggername)' '%(taggeremail)' '%(taggerdate)' '%(taggerdate:short)'
  '%(creator)' '%(creatordate)' '%(creatordate:unix)' '%(*authorname)' '%(*committerdate:iso)'
  '%(tag)' '%(type)' '%(object)' '%(tree)' '%(tree:short)' '%(parent)' '%(parent:short)'
  '%(numparent)' '%(raw:size)' '%(*raw:size)' '%(worktreepath)'
  '%(if)%(symref)%(then)sym:%(symref)%(else)plain:%(refname)%(end)'
  '%(if)%(upstream)%(then)[%(upstream:short)]%(end)%(refname:short)'
  '%(if:equals=main)%(refname:short)%(then)MAIN%(else)other%(end)'
  '%(if:notequals=commit)%(objecttype)%(then)not a commit: %(objecttype)%(end)'
  '%(if)%(*objectname)%(then)%(*objectname)%(else)%(objectname)%(end)'
  '%(if)%(if)%(symref)%(then)x%(end)%(then)outer%(else)none%(end)'
  '%(align:20)%(refname:short)%(end)|' '%(align:20,right)%(refname:short)%(end)|'
  '%(align:width=20,position=middle)%(refname:short)%(end)|' '%(align:3)%(refname)%(end)|'
  '%(align:position=right,25)%(if)%(symref)%(then)%(symref)%(else)%(refname)%(end)%(end)|'
  '%(color:red)%(refname)' '%(color:bold green)x%(color:reset)'
  '%% %%(refname) %41%42 %zz %' 'literal only' ''
  '%(refname)%(refname)%(refname:short)'
)
for f in "${formats[@]}"; do
  fer --format="$f"
  fer --format="$f" refs/heads
  fer --format="$f" refs/tags
done

# Quoting styles.
for q in --shell --perl --python --tcl; do
  for f in '%(refname)' '%(subject) %(refname:short)' '%(contents)' \
           '%(align:30)%(refname)%(end)' '%(if)%(symref)%(then)%(symref)%(end)' \
           '%(color:red)%(refname)'; do
    fer $q --format="$f"
  done
  fer $q --format='%(raw)' refs/heads/main
done
fer -s --format='%(refname)' refs/heads
fer -p --format='%(refname)' refs/heads
fer --shell --perl --format='%(refname)'
fer --shell --no-shell --tcl --format='%(refname)' refs/heads

# Colour switches.
for c in --color --color=always --color=never --color=auto --no-color --color=bogus; do
  fer $c --format='%(color:red)%(refname)%(color:reset) %(color:#ff0000 ul)x' refs/heads
done
for spec in 'red' 'bold red' 'brightblue' 'reset' '#abc' '#a0b0c0 italic' '208' '-1' \
            'normal blue' 'no-bold' 'nodim' 'ul reverse strike blink dim' 'red blue green' \
            'nosuch' 'default' '17 23'; do
  fer --color=always --format="%(color:$spec)%(refname)" refs/heads/main
done

# Sorting.
for s in refname -refname objectname -objectname objecttype objectsize -objectsize \
         committerdate -committerdate creatordate -creatordate authordate taggerdate \
         -taggerdate version:refname -version:refname v:refname refname:short \
         upstream symref HEAD subject contents:size '*objectname' 'committerdate:short' \
         'refname:lstrip=-1' 'bogus' '-v:refname'; do
  fer --sort="$s" --format='%(refname) %(objectname:short)'
done
fer --sort=-committerdate --count=10 refs/heads/
fer --sort=-committerdate --count=3 --format='%(refname:short) %(committerdate:relative)' refs/heads/
fer --sort=objecttype --sort=-refname --format='%(objecttype) %(refname)'
fer --sort=-refname --sort=objecttype --format='%(objecttype) %(refname)'
fer --sort=committerdate --sort=-objecttype --count=5
fer --no-sort --format='%(refname)'
fer --sort=-refname --no-sort --format='%(refname)'
fer --sort=version:refname refs/tags
fer --sort=-v:refname --format='%(refname:short)' refs/tags
fer --ignore-case --sort=refname --format='%(refname)'
fer --ignore-case --format='%(refname)' 'refs/heads/u*'
fer --ignore-case --format='%(refname)' 'refs/OTHER/mixed/*'
fer --ignore-case --sort=-refname --format='%(refname)' refs/heads
fer --sort=refname --ignore-case --count=4 --format='%(refname)'

# Counting, patterns, excludes, root refs, stdin, start-after, points-at, omit-empty.
for n in 0 1 3 100 -1 abc 2k 99999999999 ''; do fer --count="$n" --format='%(refname)'; done
fer --count 2 --format='%(refname)'
for p in refs refs/ refs/heads refs/heads/ refs/heads/m refs/heads/main 'refs/heads/*' \
         'refs/heads/t*' 'refs/heads/**' 'refs/*/main' 'refs/**/main' '*' 'refs/tags/v1.[0-9]*' \
         'refs/tags/v1.?' 'refs/heads/topic' main HEAD 'refs/heads/\*' 'refs/tags/v?.*'; do
  fer --format='%(refname)' "$p"
done
fer --format='%(refname)' refs/tags refs/heads
fer --format='%(refname)' refs/heads/topic refs/heads 'refs/heads/t*'
fer --format='%(refname)' refs/remotes/origin/HEAD refs/notes
fer --format='%(refname)' --exclude=refs/heads/topic refs/heads
fer --format='%(refname)' --exclude='refs/tags/v*' --exclude=refs/heads
fer --format='%(refname)' --exclude='refs/heads/t*' --no-exclude refs/heads
fer --format='%(refname)' --exclude=refs/heads/topic/ 'refs/heads/*/*'
fer --include-root-refs --format='%(refname) %(objectname:short)'
fer --include-root-refs --format='%(refname)' HEAD ORIG_HEAD
fer --include-root-refs --format='%(HEAD) %(refname)' refs/heads
fer --include-root-refs --sort=-refname --count=3 --format='%(refname)'
STDIN=$'refs/heads\nrefs/tags/v*\n'; fer --stdin --format='%(refname)'
STDIN=$'refs/heads/topic\r\n'; fer --stdin --format='%(refname)'
STDIN=''; fer --stdin --format='%(refname)'
STDIN='refs/heads'; fer --stdin --format='%(refname)' refs/tags
STDIN=''
fer --start-after=refs/heads/sym --format='%(refname)'
fer --start-after=refs/heads/t --format='%(refname)'
fer --start-after=refs/heads/main --include-root-refs --format='%(refname)'
fer --start-after=refs/heads/main --sort=-refname --format='%(refname)'
fer --start-after=refs/heads/main --format='%(refname)' refs/tags
fer --start-after=zzz --format='%(refname)'
main_id=$(g rev-parse main)
fer --points-at=main --format='%(refname)'
fer --points-at="$main_id" --format='%(refname)'
fer --points-at=topic/a --format='%(refname)'
fer --points-at=refs/heads/topic/a --format='%(refname)'
fer --points-at=nosuchthing --format='%(refname)'
fer --points-at=v1.10 --format='%(refname)'
fer --points-at="$(g rev-parse HEAD~1)" --points-at=feature --format='%(refname)'
fer --omit-empty --format='%(upstream)'
fer --omit-empty --format='%(if)%(symref)%(then)%(refname)%(end)'
fer --no-omit-empty --omit-empty --format='%(symref)'
for r in main feature HEAD~1 v1.10 topic/a "$main_id"; do
  fer --merged="$r" --format='%(refname)'
  fer --no-merged="$r" --format='%(refname)'
  fer --contains="$r" --format='%(refname)'
  fer --no-contains="$r" --format='%(refname)'
done
fer --merged=main --merged=feature --format='%(refname)'
fer --contains=UPPER --no-contains=feature --format='%(refname)'
fer --merged=main --no-merged=UPPER --sort=-committerdate --format='%(refname)'
fer --merged --format='%(refname)' refs/heads
fer --contains --format='%(refname)'
fer --merged=treetag --format='%(refname)'
fer --contains=treetag --format='%(refname)'
fer --points-at='HEAD^{tree}' --format='%(refname)'
fer --points-at='v1.10^{}' --format='%(refname)'
fer --merged='HEAD~5' --format='%(refname)'
fer --merged='feature^2' --format='%(refname)'
fer --merged='feature~1^1' --format='%(refname)'
fer --contains=nope --format='%(refname)'
fer --merged=nope --format='%(refname)'

# JSON. verdict_grep DESC TEXT FILE: FILE holds TEXT (else the case fails, showing FILE).
verdict_grep() { verdict "$1" "$(grep -qF -- "$2" "$3" || cat "$3")"; }
"$reftab" --git-dir "$R/.git" for-each-ref --format=json refs/heads >"$tmp/json" 2>&1
verdict_grep "--format=json lists refs/heads/main with its id" \
  '"refname":"refs/heads/main","objectname":"'"$main_id"'"' "$tmp/json"
"$reftab" --git-dir "$R/.git" for-each-ref --format=json --sort=-committerdate --count=2 \
  refs/heads >"$tmp/json2" 2>&1
verdict "--format=json --count=2 prints 2 lines" \
  "$([ "$(wc -l <"$tmp/json2")" = 2 ] || echo "printed $(wc -l <"$tmp/json2") lines")"

# --format='json %(atom) ...': each field holds what git prints for that atom.
json_atoms='%(refname) %(objectname:short) %(objecttype) %(subject) %(committerdate:iso) %(authorname) %(upstream:short) %(HEAD) %(*objectname) %(refname:lstrip=-1)'
for sort in "" "--sort=-committerdate"; do
  "$reftab" --git-dir "$R/.git" for-each-ref $sort --format="json $json_atoms" >"$tmp/jf" 2>&1
  python3 -c '
import json, re, sys
atoms = re.findall(r"%\(([^)]*)\)", sys.argv[1])
for line in open(sys.argv[2]):
    o = json.loads(line)
    print("\t".join(o[a] for a in atoms))
' "$json_atoms" "$tmp/jf" >"$tmp/jf.tsv" 2>&1
  "$git" --git-dir "$R/.git" for-each-ref $sort --format="${json_atoms// /%09}" >"$tmp/jf.git" 2>&1
  verdict "--format=json with atoms ${sort:-(name order)} holds git's values" \
    "$(diff "$tmp/jf.git" "$tmp/jf.tsv" | head -5)"
done
"$reftab" --git-dir "$R/.git" show-ref --format=json --branches >"$tmp/js1" 2>&1
"$reftab" --git-dir "$R/.git" for-each-ref --format=json refs/heads >"$tmp/js2" 2>&1
verdict "show-ref and for-each-ref speak one JSON (refname, objectname)" \
  "$(diff "$tmp/js2" "$tmp/js1" | head -4)"
for bad in 'json %(refname) x' 'json %(align:3)' 'json %(if)%(then)%(end)' 'json %(bogus)'; do
  "$reftab" --git-dir "$R/.git" for-each-ref --format="$bad" >"$tmp/jb" 2>&1; rc=$?
  verdict "--format='$bad' is refused" "$([ "$rc" = 128 ] || cat "$tmp/jb")"
done

# Errors in formats and options.
for f in '%(bogus)' '%(refname' '%()' '%(*)' '%(refname:bogus)' '%(refname:lstrip=x)' \
         '%(refname:rstrip=)' '%(objectname:short=0)' '%(objectname:short=-1)' \
         '%(objectname:bogus)' '%(objecttype:x)' '%(objectsize:x)' '%(HEAD:x)' '%(body:x)' \
         '%(subject:x)' '%(contents:x)' '%(contents:lines=x)' '%(raw:x)' '%(authoremail:x)' \
         '%(authoremail:trim,)' '%(authorname:x)' '%(align)' '%(align:x)' '%(align:left)' \
         '%(align:position=x,5)' '%(align:width=x)' '%(if:x)' '%(rest)' '%(color)' \
         '%(color:nosuch)' '%(then)' '%(else)' '%(end)' '%(if)x' '%(if)%(then)%(then)%(end)' \
         '%(if)%(else)%(end)' '%(if)%(then)%(else)%(else)%(end)' '%(if)%(end)' '%(align:5)x' \
         '%(upstream:x)' '%(push:x)' '%(symref:x)' '%(committerdate:bogus)' \
         '%(committerdate:format)' '%(*bogus)' '%(deltabase:x)' '%(end:ignored)%(refname)'; do
  fer --format="$f" refs/heads/main
done
fer --python --format='%(raw)' refs/heads/main
fer --format='%(objectsize:disk)' refs/heads/main
for a in --bogus -x -sx --no-bogus --co=1 --fo=%\(refname\) --form --count --shell=x \
         --no-sort=x --sort --points-at --exclude --stdin\ x --no-color=x -format \
         --no-merged=x --start; do
  # shellcheck disable=SC2086
  fer $a
done
fer -h
fer --include-root --format='%(refname)' HEAD
fer --ign --format='%(refname)' 'refs/heads/U*'

# Settings from the environment (GIT_CONFIG_COUNT), as both tools read them.
with_config() {  # with_config KEY VALUE: the cases that follow see KEY=VALUE
  export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=$1 GIT_CONFIG_VALUE_0=$2
  PREFIX="[$1=$2] "
}
for mode in simple current matching upstream nothing tracking; do
  with_config push.default "$mode"
  fer --format='%(refname:short) %(push) %(push:track) %(push:remotename) %(push:remoteref)' refs/heads
done
with_config remote.pushDefault other
fer --format='%(refname:short) %(push) %(push:remotename) %(upstream:remotename)' refs/heads
with_config color.ui always
fer --format='%(color:red)%(refname)' refs/heads/main
with_config color.ui false
fer --format='%(color:red)%(refname)' refs/heads/main
with_config core.abbrev 12
fer --format='%(objectname:short) %(tree:short) %(parent:short)' refs/heads
# core.abbrev as git reads it: "off"/"no"/"" the whole id, numbers of at least 4 (longer than
# the id: the whole id), "auto"; below 4 or not a number git refuses before any option.
for v in no off false '' auto AUTO 10 40 64 1k 3 0 -1 abc true; do
  with_config core.abbrev "$v"
  fer --format='%(objectname:short) %(objectname:short=5) %(*objectname:short)' refs/heads/main \
    refs/tags/v1.2
  fer --format='%(refname)' refs/heads/main
  fer --bogus
done
with_config remote.origin.mirror true
fer --format='%(refname:short) %(push)' refs/heads
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
PREFIX=
# core.abbrev in the repository's config: git names the file and line of a refused value
# (with --git-dir: a repository git finds itself it names ".git/config", reftab by its whole
# path).
KNOWN["[found config core.abbrev=3] --format=%(objectname:short) refs/heads/main"]="reftab names a discovered repository's config by its absolute path, git as .git/config"
for v in 3 abc 9 off; do
  g config core.abbrev "$v"
  run_case "[config core.abbrev=$v] --format=%(objectname:short) refs/heads/main" \
    --git-dir="$R/.git" for-each-ref --format='%(objectname:short)' refs/heads/main
done
g config core.abbrev 3
PREFIX="[found config core.abbrev=3] "
fer --format='%(objectname:short)' refs/heads/main
g config --add core.abbrev 8
run_case "[config core.abbrev=3 then 8] --format=%(objectname:short) refs/heads/main" \
  --git-dir="$R/.git" for-each-ref --format='%(objectname:short)' refs/heads/main
g config --unset-all core.abbrev
PREFIX=

# Messages with CR LF, a multi-line first paragraph, no body; a symref chain too deep.
at 1700002000
g tag -a -m $'crlf subject\r\n\r\ncrlf body\r\n' crlf main
g tag -a -m $'first line\nsecond line of the subject\n\nthe body' twoline main
g tag -a -m 'trailing dots...' dots main
for i in 1 2 3 4 5 6; do g symbolic-ref refs/heads/chain$i refs/heads/chain$((i + 1)); done
g update-ref refs/heads/chain7 main
for f in '%(subject)|%(body)|' '%(subject:sanitize)' '%(contents:lines=2)' '%(contents:size)' \
         '%(contents:subject)|%(contents:body)|%(contents:signature)'; do
  fer --format="$f" refs/tags/crlf refs/tags/twoline refs/tags/dots refs/tags/signed
done
fer --format='%(refname) %(symref)' 'refs/heads/chain*'

# A short branch.<name>.merge on a local upstream, sorting by computed atoms, more mixes.
g config branch.feature.remote .
g config branch.feature.merge main
fer --format='%(refname:short) %(upstream) %(upstream:track)' refs/heads/feature
fer --sort=upstream:track --format='%(refname) %(upstream:track)' refs/heads
fer --sort=-upstream --sort=HEAD --format='%(HEAD) %(refname) %(upstream)' refs/heads
fer --omit-empty --count=3 --format='%(upstream)'
fer --include-root-refs --exclude=ORIG_HEAD --exclude='refs/[hrt]*' --format='%(refname)'
fer --format='%(*refname) %(*objecttype)' refs/heads/main refs/tags/nested
fer --format='%(if)%(upstream:track)%(then)%(align:12)%(upstream:track)%(end)%(else)-%(end)|' refs/heads
fer --shell --format='%(if)%(symref)%(then)%(align:30)%(symref)%(end)%(else)%(refname)%(end)'

for f in '%(creatordate:human)' '%(committerdate:human-local)' '%(authorname:mailmap) %(authoremail:mailmap,trim)' \
         '%(ahead-behind:main)' '%(ahead-behind:feature) %(ahead-behind:HEAD~2)' '%(ahead-behind:nope)' \
         '%(ahead-behind)' '%(is-base:main)'; do
  fer --format="%(refname) $f"
done
fer --sort=ahead-behind:main --format='%(refname) %(ahead-behind:main)' refs/heads

# A name that is not UTF-8, and one with a shell metacharacter.
g update-ref "refs/heads/caf$(printf '\351')" main
g update-ref 'refs/heads/it'"'"'s!' main
for q in '' --shell --perl --python --tcl; do
  fer $q --format='%(refname) %(refname:short) %(align:12)%(refname:lstrip=2)%(end)|' refs/heads/c* 'refs/heads/it*'
done
"$reftab" --git-dir "$R/.git" for-each-ref --format=json 'refs/heads/c*' >"$tmp/json3" 2>&1
verdict_grep "--format=json writes a non-UTF-8 name as refname_hex" \
  '"refname_hex":"726566732f68656164732f636166e9"' "$tmp/json3"
g update-ref -d "refs/heads/caf$(printf '\351')"
g update-ref -d 'refs/heads/it'"'"'s!'

# Outside any repository.
mkdir "$tmp/norepo"
DIR=$tmp/norepo
export GIT_CEILING_DIRECTORIES=$tmp
fer --format='%(refname)'
fer -h
unset GIT_CEILING_DIRECTORIES
DIR=$R

# refs list: the same command under git 2.55's new name.
rl --format='%(refname)' refs/heads
rl --sort=-committerdate --count=2
rl --bogus
rl -h
rl --format='%(bogus)'
rl --include-root-refs --format='%(refname) %(symref)'

# Inside a linked worktree, and in the SHA-256 repository.
g worktree add -q "$tmp/wt" topic/b
DIR=$tmp/wt
fer --format='%(HEAD) %(refname)' refs/heads
fer --include-root-refs --format='%(refname) %(objectname)'
# Every atom of git's table (ref-filter.c valid_atom[]), bare, dereferenced, with a bogus
# argument and with each of its option forms, in a repository of its own: commits with
# trailers (folded, several keys, a "---" line, comments, a non-trailer paragraph), a merge,
# annotated, lightweight and misnamed tags, tags of a tree and a blob, objects packed with
# deltas and loose ones.
A=$tmp/atoms
ga() { "$git" -C "$A" "$@"; }
"$git" init -q -b main --ref-format=reftable "$A" || exit 1
n=0
ca() {  # ca MESSAGE: a commit changing a file that deltifies well
  n=$((n + 1)); at $((1700100000 + n * 100))
  seq 1 300 | sed "s/^$n\$/changed $n/" >"$A/f"; ga add f
  ga commit -q -m "$1"
}
ca "first"
ga tag -a -m "v1.0" v1.0
ca "second: trailers

body text

Signed-off-by: A U Thor <a@example.com>
Reviewed-by: R One <r1@example.com>
  folded onto two
  lines
Acked-by: Someone
Reviewed-by: R Two <r2@example.com>"
ga tag light
ca "third: not all trailers

Just prose: with a colon
and a line that is no trailer"
ca "fourth: configured and generated

Some text.

Helped-by: X <x@example.com>
a line that is not one
(cherry picked from commit 0123456789abcdef0123456789abcdef01234567)"
ca "fifth: a divider and comments

Fixes: #12
Key: value
key: other
---
not: part
# comment: line"
ga checkout -q -b side HEAD~2
ca "side one"
ca "side two

Bug #43: spaced separator
Closes: yes"
ga tag -a -m "v2.0" v2.0
ga checkout -q main
at 1700109000; ga merge -q --no-edit side -m "merge side

Merged-by: M <m@example.com>"
ga branch topic main~1
ga branch old side~1
at 1700109100; ga tag -a -m "v3.0" v3.0 main~1
printf 'object %s\ntype commit\ntag othername\ntagger T <t@example.com> 1700109200 +0000\n\nmisnamed\n' \
  "$(ga rev-parse main~2)" | ga hash-object -t tag -w --stdin >"$tmp/mis"
ga update-ref refs/tags/misnamed "$(cat "$tmp/mis")"
ga tag -a -m "tree" treetag "main^{tree}"
ga tag blobtag "$(echo blob | ga hash-object -w --stdin)"
ga gc -q --aggressive
ca "after gc: loose

Signed-off-by: L <l@example.com>"
ga tag -a -m "loose tag" loose
DIR=$A
PREFIX='atoms: '
for atom in refname objecttype objectsize objectname deltabase tree parent numparent object type \
            tag author authorname authoremail authordate committer committername committeremail \
            committerdate tagger taggername taggeremail taggerdate creator creatordate describe \
            subject body trailers contents signature raw upstream push symref flag HEAD color \
            worktreepath align end if then else rest ahead-behind is-base; do
  fer --format="%(refname) %($atom)" refs/heads/main refs/tags/v2.0
  fer --format="%(refname) %(*$atom)" refs/tags/v2.0 refs/heads/main
  fer --format="%(refname) %($atom:bogus)" refs/heads/main
  fer --format="%(refname) %($atom:)" refs/heads/main
done
for f in '%(describe)' '%(describe:tags)' '%(describe:tags=yes)' '%(describe:tags=0)' \
         '%(describe:tags=maybe)' '%(describe:abbrev=0)' '%(describe:abbrev=1)' '%(describe:abbrev=12)' \
         '%(describe:abbrev=99)' '%(describe:abbrev=-1)' '%(describe:abbrev=x)' '%(describe:abbrev=5x,tags)' \
         '%(describe:abbrev)' '%(describe:abbrev=)' '%(describe:match=v1*)' '%(describe:match=v[23]*,tags)' \
         '%(describe:match=nothing*)' '%(describe:match=v1*,match=v2*)' '%(describe:exclude=v2*)' \
         '%(describe:exclude=v*,tags)' '%(describe:match)' '%(describe:exclude=)' '%(describe:tags,bogus)' \
         '%(describe:abbrev=4,tags,match=*)' '%(*describe)' '%(*describe:tags)' \
         '%(trailers)' '%(trailers:only)' '%(trailers:only=no)' '%(trailers:only=bogus)' \
         '%(trailers:only=bogus,unfold)' '%(trailers:unfold=x,only)' '%(describe:tags=maybe,abbrev=5)' \
         '%(trailers:unfold)' '%(trailers:unfold,only)' '%(trailers:key=Reviewed-by)' \
         '%(trailers:key=reviewed-by:)' '%(trailers:key=Reviewed-by,key=Acked-by)' \
         '%(trailers:key=Reviewed-by,only=no)' '%(trailers:key=Reviewed-by,valueonly)' \
         '%(trailers:key=Reviewed-by,valueonly,unfold)' '%(trailers:keyonly)' '%(trailers:keyonly,valueonly)' \
         '%(trailers:separator=%x2C )' '%(trailers:separator=|,unfold)' '%(trailers:separator)' \
         '%(trailers:key_value_separator=%x3D,only)' '%(trailers:key_value_separator=%n,unfold)' \
         '%(trailers:separator=%%,key=Signed-off-by)' '%(trailers:separator=%q)' '%(trailers:key)' \
         '%(trailers:bogus)' '%(trailers:key=x,bogus=1)' '%(contents:trailers)' '%(contents:trailers:only)' \
         '%(contents:trailers:key=Closes,valueonly)' '%(contents:trailers:bogus)' '%(*trailers:only)' \
         '%(signature)' '%(signature:grade)' '%(signature:signer)' '%(signature:key)' \
         '%(signature:fingerprint)' '%(signature:primarykeyfingerprint)' '%(signature:trustlevel)' \
         '%(signature:bogus)' '%(*signature:grade)' '%(objectsize:disk)' '%(*objectsize:disk)' \
         '%(deltabase)' '%(*deltabase)' '%(objectsize:disk) %(objectsize) %(deltabase)' \
         '%(is-base:main)' '%(is-base:side)' '%(is-base:topic) %(is-base:main~2)' \
         '%(is-base:nope) %(is-base:side)' '%(is-base:v1.0)' '%(is-base:HEAD^{tree})' \
         '%(ahead-behind:HEAD^{tree})' '%(is-base)' '%(ahead-behind)'; do
  fer --format="%(refname) $f"
done
fer --sort=objectsize:disk --format='%(refname) %(objectsize:disk)'
# Clock skew: commits dated before their parents (git's ahead-behind walks by generation).
ga checkout -q -b skew main~3
for i in 1 2 3; do at $((1700000000 - i * 1000)); ga commit -q --allow-empty -m "skewed $i"; done
ga checkout -q main
at 1700109500; ga merge -q --no-edit skew -m "merge skew"
fer --format='%(refname) %(ahead-behind:skew) %(ahead-behind:main~4)'
fer --format='%(refname) %(is-base:skew) %(describe)' refs/heads
fer --sort=-describe --format='%(refname) %(describe)'
fer --sort=trailers --format='%(refname)'
with_config trailer.separators ':#'
fer --format='%(refname) %(trailers:only)'
with_config trailer.helped.key 'Helped-by'
fer --format='%(refname) %(trailers)'
with_config core.abbrev 10
fer --format='%(refname) %(describe) %(describe:abbrev=5)'
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
PREFIX='atoms: '
# Signed commits, verified by running gpg as git does (a private keyring): a good signature
# by a trusted key, one by a key in the keyring but not trusted, a tampered commit (bad
# signature), one by a key no longer in the keyring (ERRSIG), then signatures of other
# formats and verifiers that cannot run.
if command -v gpg >/dev/null 2>&1; then
  export GNUPGHOME=$tmp/gnupg
  mkdir -m 700 "$GNUPGHOME" "$tmp/gnupg-other"
  newkey() { gpg --batch --passphrase '' --quick-gen-key "$1" ed25519 sign never >/dev/null 2>&1; }
  if newkey 'Signer <signer@example.com>' && newkey 'Gone <gone@example.com>' &&
      GNUPGHOME=$tmp/gnupg-other newkey 'Stranger <stranger@example.com>'; then
    at 1700110000
    ga branch unsigned
    gpg_signed=1
    ga commit -q --allow-empty -S'signer@example.com' -m "signed"
    ga branch signed
    ga tag -a -m "tag of a signed commit" signed-tag signed
    ga commit -q --allow-empty -S'gone@example.com' -m "signed by a key deleted since"
    ga branch sig-gone
    GNUPGHOME=$tmp/gnupg-other ga commit -q --allow-empty -S'stranger@example.com' -m "untrusted"
    ga branch sig-untrusted
    GNUPGHOME=$tmp/gnupg-other gpg --batch --export stranger@example.com | gpg --batch --import \
      >/dev/null 2>&1
    gone=$(gpg --batch --with-colons --list-keys gone@example.com 2>/dev/null | awk -F: '/^fpr/ {print $10; exit}')
    gpg --batch --yes --delete-secret-and-public-key "$gone" >/dev/null 2>&1
    # gpg's next verification would rebuild its trust database, and say so, once: not a case.
    gpg --batch --check-trustdb >/dev/null 2>&1
    ga cat-file commit signed | sed 's/^signed$/tampered/' | ga hash-object -t commit -w --stdin \
      >"$tmp/tampered"
    ga update-ref refs/heads/sig-bad "$(cat "$tmp/tampered")"
    # Signatures of other formats, told by their first line: SSH (not verified without
    # gpg.ssh.allowedSignersFile), X.509 (gpgsm) and one git does not know.
    fake_signed() {  # fake_signed BRANCH FIRST-LINE
      printf 'tree %s\nauthor A <a@example.com> 1700110000 +0000\ncommitter C <c@example.com> 1700110000 +0000\ngpgsig %s\n abc\n -----END-----\n\nfake\n' \
        "$(ga rev-parse 'HEAD^{tree}')" "$2" | ga hash-object -t commit -w --stdin >"$tmp/fake"
      ga update-ref "refs/heads/$1" "$(cat "$tmp/fake")"
    }
    fake_signed sig-ssh '-----BEGIN SSH SIGNATURE-----'
    fake_signed sig-x509 '-----BEGIN SIGNED MESSAGE-----'
    fake_signed sig-unknown '-----BEGIN OTHER SIGNATURE-----'
    all='%(signature:grade)|%(signature:signer)|%(signature:key)|%(signature:fingerprint)|%(signature:primarykeyfingerprint)|%(signature:trustlevel)'
    for f in '%(signature)' '%(signature:grade)' '%(signature:signer)' '%(signature:key)' \
             '%(signature:fingerprint)' '%(signature:primarykeyfingerprint)' \
             '%(signature:trustlevel)' "$all" "%(signature)$all"; do
      fer --format="%(refname) $f" refs/heads/signed refs/heads/sig-gone refs/heads/sig-untrusted \
        refs/heads/sig-bad refs/heads/unsigned
    done
    fer --format="%(refname) $all %(*signature:grade) %(*signature:signer)" refs/tags/signed-tag
    fer --format='%(refname) %(describe) %(trailers)' refs/heads/signed
    fer --sort=signature:grade --format='%(refname) %(signature:grade)' refs/heads/sig-[bgu]* \
      refs/heads/signed refs/heads/unsigned
    fer --sort=signature:grade --format='%(refname)' refs/heads/sig*
    fer --format="%(refname) $all" refs/heads/sig-ssh refs/heads/sig-x509
    fer --format='%(refname) %(signature)' refs/heads/sig-ssh
    fer --format='%(refname) %(signature:grade)' refs/heads/sig-unknown
    fer --format='%(refname) %(subject)' refs/heads/sig-unknown
    for program in /nonexistent/gpg no-such-gpg-program "$tmp"; do
      for key in gpg.program gpg.openpgp.program; do
        with_config "$key" "$program"
        PREFIX="[$key=${program/#$tmp/TMP}] "
        fer --format="%(refname) %(signature) $all" refs/heads/signed refs/heads/unsigned
      done
    done
    # A stand-in verifier without "#!" (git hands it to sh), reporting an expired signature.
    printf 'cat >/dev/null\necho "gpg: stand-in" >&2\necho "[GNUPG:] EXPSIG 0123 Old <o@example.com>"\n' \
      >"$tmp/plain-gpg"
    chmod +x "$tmp/plain-gpg"
    with_config gpg.program "$tmp/plain-gpg"
    PREFIX='[gpg.program=plain script] '
    fer --format="%(refname) %(signature) $all" refs/heads/signed
    with_config gpg.minTrustLevel fully
    fer --format="%(refname) $all" refs/heads/signed refs/heads/sig-untrusted
    with_config gpg.ssh.allowedSignersFile "$tmp/allowed_signers"
    KNOWN["[gpg.ssh.allowedSignersFile=$tmp/allowed_signers] --format=%(refname) %(signature:grade) refs/heads/sig-ssh"]="reftab runs no ssh-keygen: it refuses, naming the atom"
    fer --format="%(refname) %(signature:grade)" refs/heads/sig-ssh
    # git reads its gpg settings only to check a signature, and then refuses bad ones.
    for kv in gpg.format=bogus gpg.format=x509 gpg.minTrustLevel=bogus gpg.minTrustLevel=Marginal; do
      with_config "${kv%%=*}" "${kv#*=}"
      fer --format="%(refname) %(signature:grade)" refs/heads/signed
      fer --format="%(refname) %(signature:grade)" refs/heads/unsigned
    done
    unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
    PREFIX='atoms: '
  fi
fi
PREFIX=

DIR=$S
PREFIX='sha256: '
for f in '%(refname)' '%(objectname) %(refname)' '%(symref) %(refname:short)' \
         '%(HEAD)%(refname:lstrip=-1)' '%(if)%(symref)%(then)%(symref)%(end)'; do
  fer --format="$f"
done
for v in off 64 4 12; do
  with_config core.abbrev "$v"
  fer --format='%(objectname:short)'
done
unset GIT_CONFIG_COUNT GIT_CONFIG_KEY_0 GIT_CONFIG_VALUE_0
PREFIX='sha256: '
fer --include-root-refs
# The atoms that read objects, on the SHA-256 database.
for f in '%(describe)' '%(trailers)' '%(objectsize:disk)' '%(deltabase)' '%(is-base:main)' \
         '%(signature:grade)'; do
  fer --format="%(refname) $f"
done
fer --sort=-refname --format='%(refname)'
# Object atoms read the SHA-256 database as the SHA-1 one.
fer
fer --format='%(objectname:short) %(objectname:short=5) %(objecttype) %(objectsize) %(refname)'
fer --format='%(subject)|%(body)|%(contents:subject)' refs/heads
fer --sort=-committerdate --format='%(refname) %(committerdate:iso)'
fer --sort=objectsize --sort=-taggerdate --format='%(refname) %(taggername)'
fer --format='%(tree) %(parent) %(numparent) %(authorname) %(authordate:unix)' refs/heads
fer --format='%(*objectname) %(*objecttype) %(*subject) %(tag) %(object) %(type)' refs/tags
fer --format='%(refname:short) %(upstream:short) %(upstream:track) %(upstream:trackshort)' refs/heads
fer --merged=side --format='%(refname)'
fer --no-merged=older --format='%(refname)'
fer --contains=older --format='%(refname)'
fer --points-at=main --format='%(refname)'
# A signed commit of the SHA-256 database: its signature is the "gpgsig-sha256" header.
if [ -n "${gpg_signed:-}" ]; then
  signed256=$("$git" -C "$S" commit-tree -S'signer@example.com' -m "signed" "main^{tree}")
  "$git" -C "$S" update-ref refs/heads/signed "$signed256"
  fer --format="%(refname) %(signature) $all" refs/heads/signed refs/heads/main
fi

# Through the pager, on a terminal (tests/cli/real_git.sh's on_tty): -p or pager.for-each-ref
# (pager.refs for refs list) page the listing; colours go through it unless color.pager (or
# pager.color) is false, which a bad value of fails as git's default configuration does.
if have_tty; then
  pager_scripts
  tty_fer() {  # tty_fer ARG...: `ARG...` on a terminal in $R, both tools, GIT_PAGER=ppager
    local label="[tty] $*"
    [ -n "$filter" ] && [[ $label != *$filter* ]] && return
    (cd "$R" && on_tty "$tmp/g.tty" GIT_PAGER=ppager "$git" "$@")
    (cd "$R" && on_tty "$tmp/r.tty" GIT_PAGER=ppager "$reftab" "$@")
    sed -i -E 's/^(P:)?usage: reftab /\1usage: git /' "$tmp/r.tty"
    local why=""
    cmp -s "$tmp/g.tty" "$tmp/r.tty" ||
      why="$(diff "$tmp/g.tty" "$tmp/r.tty" | head -8 | cat -v)"
    verdict "$label" "$why"
  }
  for o in -p -P "-c pager.for-each-ref" "-c pager.for-each-ref=false" "-c pager.for-each-ref=cpager"; do
    # shellcheck disable=SC2086
    tty_fer $o for-each-ref --format='%(color:red)%(refname)%(color:reset) %(objectname:short)' refs/heads
    # shellcheck disable=SC2086
    tty_fer $o for-each-ref --count=2 '--format=%(align:20)%(refname:short)%(end)|'
  done
  for kv in color.pager=false color.pager=true pager.color=false pager.color=no color.pager=bogus \
      color.ui=never; do
    tty_fer -c "$kv" -p for-each-ref --format='%(color:green)%(refname)' refs/tags
    tty_fer -c "$kv" for-each-ref --format='%(color:green)%(refname)' refs/tags
  done
  tty_fer -c color.pager=false -p for-each-ref --color=always --format='%(color:blue)%(refname)' refs/tags
  tty_fer -c color.pager=false -p for-each-ref --color=auto --format='%(color:blue)%(refname)' refs/tags
  tty_fer -c pager.refs refs list --format='%(color:red)%(refname)' refs/tags
  tty_fer -c pager.refs=false -p refs list --count=1
  tty_fer -p for-each-ref --bogus
  tty_fer -p for-each-ref -h
fi
# Off a terminal: a bad color.pager fails every listing, as git's default configuration.
fer_config_pager() { run_case "[color.pager=bogus] $*" -c color.pager=bogus for-each-ref "$@"; }
fer_config_pager --count=1
fer_config_pager --format='%(color:red)%(refname)' refs/tags

verdict_end
