#!/usr/bin/env bash
# refs migrate syncs what holds refs exactly when core.fsync asks for refs, as every other
# write of refs does (store/git/config/config.h CoreFsyncIncludesRefs): to reftable the table
# and tables.list, to files packed-refs (as packed-refs.new, before the rename that installs
# it, the name git writes it under) and the loose refs; reflogs and the config never. (git
# 2.55's `refs migrate` syncs nothing whatever core.fsync says: it never reads that setting.)
# The fsync calls are counted with strace; without strace (or where it may not trace) the
# test is skipped.
# Usage: migrate_fsync_test.sh REFTAB
set -euo pipefail
REFTAB=$(realpath "$1")
command -v strace >/dev/null || { echo "SKIP: no strace"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
strace -f -o /dev/null true 2>/dev/null || { echo "SKIP: strace cannot trace here"; exit 77; }
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_CONFIG_NOSYSTEM=1 HOME=$T
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com GIT_COMMITTER_DATE='1700000000 +0000'
A=1111111111111111111111111111111111111111

# A bare reftable repository by hand (no objects/: ids are taken on trust), with a branch,
# a tag, HEAD and reflogs.
make_repo() {
  local g=$1 fsync=$2
  mkdir -p "$g/reftable" "$g/refs"
  printf 'ref: refs/heads/.invalid\n' >"$g/HEAD"
  printf 'this repository uses the reftable format\n' >"$g/refs/heads"
  {
    printf '[core]\n\trepositoryformatversion = 1\n\tbare = true\n'
    printf '\tlogAllRefUpdates = always\n'
    [ -n "$fsync" ] && printf '\tfsync = %s\n' "$fsync"
    printf '[extensions]\n\trefstorage = reftable\n'
  } >"$g/config"
  "$REFTAB" --git-dir "$g" symbolic-ref HEAD refs/heads/main
  printf 'create refs/heads/main %s\ncreate refs/tags/t %s\n' "$A" "$A" |
    "$REFTAB" --git-dir "$g" update-ref --stdin
}

# The files a migration fsyncs, by name within the repository (temporary names folded).
synced() {
  local g=$1 to=$2
  strace -f -y -e trace=fsync,fdatasync -o "$T/trace" \
    "$REFTAB" --git-dir "$g" refs migrate --ref-format="$to" >/dev/null
  { grep -E 'f(data)?sync\(' "$T/trace" || true; } | sed -e 's/.*<//' -e 's/>.*//' -e "s#^$g/##" \
    -e 's#ref_migration\.[^/]*/##' -e 's#0x[0-9a-fx-]*\.ref#TABLE#' | sort | tr '\n' ' '
}

# git adds every named component to its default set (which has no refs) and takes the
# negated ones from that default only: "all,-reference" still syncs refs.
for fsync in "" reference committed "all,-reference" none -reference; do
  g=$T/r-${fsync:-unset}
  make_repo "$g" "$fsync"
  to_files=$(synced "$g" files)
  to_reftable=$(synced "$g" reftable)
  case $fsync in
    reference|committed|all,-reference)
      # packed-refs is synced under its temporary name, before the rename that installs it.
      [ "$to_files" = "HEAD packed-refs.new " ] || fail "core.fsync=$fsync, to files: synced [$to_files]"
      [ "$to_reftable" = "reftable/TABLE reftable/tables.list " ] ||
        fail "core.fsync=$fsync, to reftable: synced [$to_reftable]"
      ;;
    *)
      [ -z "$to_files" ] || fail "core.fsync=${fsync:-unset}, to files: synced [$to_files]"
      [ -z "$to_reftable" ] || fail "core.fsync=${fsync:-unset}, to reftable: synced [$to_reftable]"
      ;;
  esac
  # The round trip kept everything.
  [ "$("$REFTAB" --git-dir "$g" show-ref)" = "$A refs/heads/main
$A refs/tags/t" ] || fail "refs after the round trip: $("$REFTAB" --git-dir "$g" show-ref)"
done
echo "migrate fsync: ok"
