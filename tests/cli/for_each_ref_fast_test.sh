#!/usr/bin/env bash
# for-each-ref's fast path (cli/for_each_ref_fast.cc) against its general path: every case
# is run twice, once as it comes and once with REFTAB_TEST_FOR_EACH_REF_GENERAL=1 (which
# turns the fast path off), and stdout, stderr and the exit status must be the same. The
# stores hold what the fast path must get right: symrefs (to a ref, dangling, a chain too
# long, to an unsafe name), peeled tags, root refs and names outside refs/, names that need
# quoting, several tables with deletions and overrides; a bare stack and a git directory.
# No git needed (the comparison with git is git_compare_for_each_ref.sh).
# Usage: for_each_ref_fast_test.sh REFTAB
set -euo pipefail
REFTAB=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_TEST_REFTABLE_AUTOCOMPACTION=false GIT_CONFIG_NOSYSTEM=1 HOME=$T
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com GIT_COMMITTER_DATE='1700000000 +0000'
unset REFTAB_TEST_FOR_EACH_REF_GENERAL
A=1111111111111111111111111111111111111111
B=2222222222222222222222222222222222222222
C=3333333333333333333333333333333333333333

ref() { printf '{"type":"ref","name":"%s","update_index":1,%s}\n' "$1" "$2"; }
val() { ref "$1" "\"value_type\":1,\"value\":\"$2\""; }
sym() { ref "$1" "\"value_type\":3,\"target\":\"$2\""; }

# The base table, written directly so that it can hold what update-ref refuses to write.
base_records() {
  sym HEAD refs/heads/main
  val ORIG_HEAD $B
  val FETCH_HEAD $C
  val lowercase $A # outside refs/ and not a root ref: never listed
  val refs/heads/a $A
  val refs/heads/b $B
  val refs/heads/deleted-later $C
  val refs/heads/main $A
  val "refs/heads/it's" $B
  val 'refs/heads/quo\"te' $C
  val 'refs/heads/back\\slash' $A
  val 'refs/heads/tab\tx' $B
  val refs/heads/zz $C
  val refs/heads/a-long-name/that-takes/more-than/two-blocks/of-32-bytes/to-copy $B
  sym refs/heads/sym-to-a refs/heads/a
  sym refs/heads/sym-dangling refs/heads/nowhere
  sym refs/heads/sym-unsafe ../../etc/passwd
  sym refs/heads/sym1 refs/heads/sym2
  sym refs/heads/sym2 refs/heads/sym3
  sym refs/heads/sym3 refs/heads/sym4
  sym refs/heads/sym4 refs/heads/sym5
  sym refs/heads/sym5 refs/heads/sym6
  sym refs/heads/sym6 refs/heads/a
  sym refs/heads/sym-ok refs/heads/sym4
  sym refs/heads/sym-to-tag refs/tags/v1
  ref refs/tags/v1 "\"value_type\":2,\"value\":\"$B\",\"peeled\":\"$C\""
  val refs/tags/v2 $A
  val refs/zzz/other $B
}

# Fills directory $1 (a stack) with the base table and three more tables on top.
make_stack() {
  local dir=$1 git_dir=${2:-}
  mkdir -p "$dir"
  base_records | LC_ALL=C sort -t'"' -k8,8 |
    "$REFTAB" write-table --min-update-index 1 --max-update-index 1 \
      "$dir/0x000000000001-0x000000000001-00000001.ref"
  echo 0x000000000001-0x000000000001-00000001.ref >"$dir/tables.list"
  local sel=(--stack "$dir")
  [[ -n $git_dir ]] && sel=(--git-dir "$git_dir")
  "$REFTAB" "${sel[@]}" update-ref -d refs/heads/deleted-later
  "$REFTAB" "${sel[@]}" update-ref refs/heads/b $C
  printf '%s\n' "create refs/heads/new $A" "create refs/tags/v3 $B" "delete refs/heads/zz" |
    "$REFTAB" "${sel[@]}" update-ref --stdin
  [[ $(wc -l <"$dir/tables.list") -eq 4 ]] || fail "expected 4 tables in $dir"
}

make_stack "$T/stack"
# A git directory as git lays it out for reftable (no objects: ids are taken on trust).
G=$T/repo/.git
mkdir -p "$G/refs/heads"
printf '[core]\n\trepositoryformatversion = 1\n\tbare = false\n[extensions]\n\trefstorage = reftable\n' >"$G/config"
echo 'ref: refs/heads/.invalid' >"$G/HEAD"
make_stack "$G/reftable" "$G"

cases=(
  "--format=%(refname)"
  "--format=%(objectname) %(refname)"
  "--format=%(refname) %(symref) %(objectname)"
  "--format=<%(refname)>%(symref)|%(objectname)"
  "--format=%(refname) %(objectname) --shell"
  "--format=x%(refname)y%(symref) --perl"
  "--format=%(refname)%(objectname) --python"
  "--format=%(refname) %(symref) --tcl"
  "--format=%(refname) --include-root-refs"
  "--format=%(refname) %(objectname) --include-root-refs --shell"
  "--format=%(refname) --count=3"
  "--format=%(refname) --count=1 --include-root-refs"
  "--format=%(refname) --count=100"
  "--format=%(refname) refs/heads/"
  "--format=%(refname) refs/tags/* refs/heads/s*"
  "--format=%(refname) refs/heads/sym refs/zzz"
  "--format=%(refname) --exclude=refs/heads/b --exclude=refs/tags/*"
  "--format=%(refname) --ignore-case REFS/HEADS/"
  "--format=%(refname) --start-after=refs/heads/it"
  "--format=%(refname) --include-root-refs HEAD"
  "--format=%(symref) --omit-empty"
  "--format=%(symref)"
  "--format= --omit-empty"
  "--format="
  "--format=literal only"
  "--format=%(refname) --no-sort"
  "--format=%(refname) --sort=refname"
  "--format=%(refname) --sort=-refname"
  "--format=%(refname:short)"
  "--format=%(objectname:short=8) %(refname)"
  "--format=%(*objectname) %(refname)"
  "--format=json"
  "--format=%(refname) --points-at=$A"
  "--format=%(if)%(symref)%(then)%(refname)%(end) --omit-empty"
  "--format=%(refname) --stdin"
  "--format=<%(refname)>%(refname)|"
  "--format=%(refname)%(refname) --count=5"
)
printf 'refs/heads/s\nrefs/tags/\r\n' >"$T/patterns" # for --stdin
n=0
# Runs run() with the fast path and with the general path only; same output and status.
compare_paths() {
  fast_rc=0 general_rc=0
  run >"$T/fast.out" 2>"$T/fast.err" || fast_rc=$?
  REFTAB_TEST_FOR_EACH_REF_GENERAL=1 run >"$T/general.out" 2>"$T/general.err" || general_rc=$?
  cmp -s "$T/fast.out" "$T/general.out" ||
    fail "${store:-} for-each-ref $c: output differs: $(diff "$T/general.out" "$T/fast.out" | head)"
  cmp -s "$T/fast.err" "$T/general.err" ||
    fail "${store:-} for-each-ref $c: stderr differs: $(cat "$T/general.err") / $(cat "$T/fast.err")"
  [[ $fast_rc -eq $general_rc ]] || fail "${store:-} for-each-ref $c: status $fast_rc, general $general_rc"
  n=$((n + 1))
}
for store in "--stack $T/stack" "--git-dir $G"; do
  for c in "${cases[@]}"; do
    # shellcheck disable=SC2086  # the cases are word lists
    run() { "$REFTAB" $store for-each-ref $c <"$T/patterns"; }
    compare_paths
  done
done
# Listings of many kilobytes (the fast path writes its lines in blocks of its own), with a
# broken name, a symref and a dangerous name part way, whose lines come from the general
# path's code in between: every line in its place, stderr and stdout interleaved as before.
many_records() {
  for i in $(seq 1000 9000); do val "refs/heads/branch-with-a-long-name/number-$i" $A; done
  val 'refs/heads/branch-with-a-long-name/number-5000.lock' $B
  sym refs/heads/branch-with-a-long-name/number-6000-sym refs/heads/a
  val refs/tags/v1 $C
}
mkdir -p "$T/many"
many_records | LC_ALL=C sort -t'"' -k8,8 |
  "$REFTAB" write-table --min-update-index 1 --max-update-index 1 \
    "$T/many/0x000000000001-0x000000000001-00000001.ref"
echo 0x000000000001-0x000000000001-00000001.ref >"$T/many/tables.list"
for c in "--format=%(refname)" "--format=[%(refname)]" "--format=%(refname) --count=7000"; do
  run() { "$REFTAB" --stack "$T/many" for-each-ref $c 2>&1; }
  compare_paths
done
lines=$(grep -c '^refs/' "$T/fast.out")
[[ $lines -eq 7000 ]] || fail "--count=7000 listed $lines lines"
grep -q '^warning: ignoring ref with broken name .*5000.lock$' "$T/fast.out" ||
  fail "no warning for the broken name"
val 'refs/heads/branch-with-a-long-name/number-7000/../x' $A | sed 's/"update_index":1/"update_index":2/' |
  "$REFTAB" write-table --min-update-index 2 --max-update-index 2 \
    "$T/many/0x000000000002-0x000000000002-00000002.ref"
echo 0x000000000002-0x000000000002-00000002.ref >>"$T/many/tables.list"
c="--format=%(refname)"
run() { "$REFTAB" --stack "$T/many" for-each-ref $c 2>&1; }
compare_paths
grep -q 'fatal: refname is dangerous' "$T/fast.out" || fail "no fatal line: $(tail -2 "$T/fast.out")"
# The listings are not trivially empty: the symref rules and the deletions show.
out=$("$REFTAB" --stack "$T/stack" for-each-ref --format='%(refname) %(symref)')
grep -qx 'refs/heads/sym-to-a refs/heads/a' <<<"$out" || fail "no symref line in: $out"
grep -qx 'refs/heads/sym-ok refs/heads/a' <<<"$out" || fail "a four-hop chain is not listed: $out"
! grep -q 'sym1 \|sym-dangling\|sym-unsafe\|deleted-later\|refs/heads/zz' <<<"$out" ||
  fail "a broken, dangling, unsafe or deleted ref is listed: $out"
grep -qx 'refs/heads/new ' <<<"$out" || fail "a later table's ref is missing: $out"
echo "for-each-ref fast path: $n cases identical to the general path"
