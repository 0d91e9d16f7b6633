#!/usr/bin/env bash
# perf/small_tx.sh BUILDDIR OUT GIT [N] [RUNS]: what a server does all day, reftab beside
# git: one `update-ref <name> <id>` into the N-ref repository of perf/dataset.sh's shared
# shape (1,000,000 refs by default), with auto-compaction on, reflogs off and on
# (core.logAllRefUpdates false / true):
#   create, update     a new branch, or a new value for an existing one, into the repository
#                      whose refs are one table (auto-compaction has nothing to do);
#   create, stack      a new branch into the same refs as dataset.sh's 10-table stack, whose
#                      tables are alike in size, so that auto-compaction merges them all.
# One hyperfine invocation (RUNS runs, 20 by default, -N) per comparison, reftab and git
# alternating; every run starts from a fresh copy (hard links: tables are never written in
# place). OUT/small-tx.{txt,json}: medians and git/reftab.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$2
GIT=$3
N=${4:-1000000}
RUNS=${5:-20}
DATA=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
REFTAB=$BUILD/cli/reftab
mkdir -p "$OUT" "$DATA/home" "$DATA/scratch"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=perf/git_env.sh
source "$HERE/git_env.sh"
git_env "$DATA/home"
unset GIT_TEST_REFTABLE_AUTOCOMPACTION
GIT="$GIT" bash "$HERE/dataset.sh" "$BUILD" "$DATA" shared "$N"
SD=$DATA/shared-$N
ID=$(sed -n 5p "$DATA/shared-objects-1000.git/ids.txt")
EXISTING=$(awk 'NR == 1 { print $2 }' "$SD/update-stdin.txt")
S=$DATA/scratch/small-tx
W=$S/w
rm -rf "$S" && mkdir -p "$S"
# The sources: the repository (refs in one table) and the same with the stack's tables, each
# with reflogs off and on.
for layout in one stack; do
  for logs in false true; do
    src=$S/$layout-$logs
    cp -a "$SD/repo" "$src"
    if [[ $layout == stack ]]; then
      rm -f "$src/.git/reftable/"*
      cp "$SD/stack/"* "$src/.git/reftable/"
    fi
    "$GIT" -C "$src" config core.logAllRefUpdates "$logs"
  done
done
JSONS=()
# compare LABEL SOURCE ARGS...: one hyperfine invocation, `update-ref ARGS` by each tool.
compare() {
  local label=$1 src=$2; shift 2
  local j=$OUT/small-tx-${#JSONS[@]}.json
  local prep="bash -c 'rm -rf $W && cp -al $src $W'"
  hyperfine -N --warmup 2 --runs "$RUNS" --style none --export-json "$j" \
    --prepare "$prep" -n "reftab $label" "$REFTAB --git-dir $W/.git update-ref $*" \
    --prepare "$prep" -n "git $label" "$GIT --git-dir=$W/.git update-ref $*" >/dev/null
  JSONS+=("$j")
}
for logs in false true; do
  if [[ $logs == true ]]; then L="reflogs on"; else L="reflogs off"; fi
  compare "create a branch, $N refs in one table, $L" "$S/one-$logs" refs/heads/new-branch "$ID"
  compare "update a branch, $N refs in one table, $L" "$S/one-$logs" "$EXISTING" "$ID"
  compare "create a branch, $N refs in 10 tables (auto-compaction merges them), $L" \
    "$S/stack-$logs" refs/heads/new-branch "$ID"
done
python3 - "$OUT/small-tx.txt" "${JSONS[@]}" <<'EOF'
import json, statistics, sys
out, files = sys.argv[1], sys.argv[2:]
lines = ["%9s %9s %7s  %s" % ("reftab ms", "git ms", "git/rt", "update-ref, shared commits")]
for f in files:
    res = json.load(open(f))["results"]
    med = {r["command"].split()[0]: statistics.median(r["times"]) * 1e3 for r in res}
    label = res[0]["command"].split(" ", 1)[1]
    lines.append("%9.2f %9.2f %6.2fx  %s" % (med["reftab"], med["git"], med["git"] / med["reftab"], label))
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text, end="")
EOF
rm -rf "$S"
