#!/usr/bin/env bash
# perf/cli_writes.sh BUILDDIR GIT [RUNS]: run.sh's two CLI write scenarios alone, reftab and
# git alternating run by run (A B A B), on the dataset run.sh made (${REFTAB_BENCH_DIR}):
#   update-ref --stdin of the 980,000 creates into a fresh reftable repository (objects.git
#   as alternate, so both check every object), and the compaction of the 9-table stack
#   (`reftab compact` / `git pack-refs --all`) in a fresh copy.
# Each run prints both wall times, git/reftab, and whether the two resulting tables (refs and
# reflogs) are byte-identical. For a loaded machine, where hyperfine's consecutive runs of one
# command and then the other see different neighbours.
# SHAPE=shared or SHAPE=distinct runs the same on perf/shapes.sh's data instead (N refs,
# N=${REFTAB_SHAPES_REFS:-1000000}, made by `dataset.sh BUILDDIR DATA SHAPE N` if missing):
# refs sharing 1,000 commits, or a commit per ref; every line names its shape.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
G=$2
RUNS=${3:-3}
D=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
R=$BUILD/cli/reftab
SHAPE=${SHAPE:-}
STDIN=$D/update-stdin.txt STACK=$D/stack ALTS=$D/objects.git/objects LABEL="commit per ref"
if [[ -n $SHAPE ]]; then
  N=${REFTAB_SHAPES_REFS:-1000000}
  GIT=$G bash "$(dirname "$0")/dataset.sh" "$BUILD" "$D" "$SHAPE" "$N"
  if [[ $SHAPE == shared ]]; then C=1000 LABEL="shared commits"; else C=$N; fi
  STDIN=$D/$SHAPE-$N/update-stdin.txt STACK=$D/$SHAPE-$N/stack
  ALTS=$D/$SHAPE-objects-$C.git/objects LABEL="$LABEL, $N refs"
fi
# shellcheck source=perf/git_env.sh
source "$(dirname "$0")/git_env.sh"
git_env "$D/home"
W=$D/scratch/cli-writes
OUT=$D/scratch/cli-writes-out
mkdir -p "$OUT"
empty() {
  rm -rf "$W" && "$G" init -q --ref-format=reftable "$W" &&
    echo "$ALTS" >"$W/.git/objects/info/alternates"
}
stacked() { empty && rm -f "$W/.git/reftable/"* && cp "$STACK/"* "$W/.git/reftable/"; }
seconds() {  # seconds CMD...: wall time of CMD
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null
  e=$(date +%s.%N)
  echo "$e - $s" | bc
}
keep() { cat "$W/.git/reftable/"0x*.ref >"$OUT/$1.ref"; }
same() { cmp -s "$OUT/a.ref" "$OUT/b.ref" && echo identical || echo DIFFERENT; }
line() { printf '%-22s (%s) run %d: reftab %8.3f s  git %8.3f s  git/reftab %6.2fx  tables %s\n' \
  "$1" "$LABEL" "$2" "$3" "$4" "$(echo "$4 / $3" | bc -l)" "$(same)"; }
for ((i = 1; i <= RUNS; i++)); do
  empty; a=$(seconds bash -c "'$R' --git-dir '$W/.git' update-ref --stdin <'$STDIN'"); keep a
  empty; b=$(seconds bash -c "'$G' --git-dir='$W/.git' update-ref --stdin <'$STDIN'"); keep b
  line "update-ref --stdin" "$i" "$a" "$b"
  stacked; a=$(seconds "$R" --git-dir "$W/.git" compact); keep a
  stacked; b=$(seconds "$G" --git-dir="$W/.git" pack-refs --all); keep b
  line "compact the stack" "$i" "$a" "$b"
done
rm -rf "$W" "$OUT"
