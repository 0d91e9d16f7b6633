#!/usr/bin/env bash
# perf/dataset.sh BUILDDIR DATA: makes the benchmark dataset (perf/bench_dataset.h) once.
#
# With $GIT (a reftable-capable git) the refs name real objects: git fast-import writes
# 1,020,001 small commits into DATA/objects.git, and `reftab-bench gen --ids` takes their ids,
# so that git's commands (show-ref, update-ref check that objects exist) run on the same
# refs. DATA/git-one and DATA/git-stack are then git repositories whose .git/reftable holds
# the dataset's tables, with objects.git as their alternate object store.
# With $GITBENCH (git-reftable-bench) the tables themselves are written by git's reftable
# library: reftab-bench gen writes them, git-reftable-bench rewrite writes each again with
# git's writer (same records, update indexes and file names), and those are the tables both
# drivers read. Whether reftab's and git's bytes were identical goes to DATA/made-by.txt.
# (Why not with `git update-ref --stdin`: the 20,000 annotated tags would need real tag
# objects, git writes reflogs and auto-compacts between the transactions, and the one-table
# layout would carry update indexes 1..9; the library writes exactly the layout of gen.)
#
# perf/dataset.sh BUILDDIR DATA SHAPE [N]: N refs (1,000,000 by default) in one of two shapes,
# made by git itself ($GIT required), for perf/shapes.sh:
#   shared    the refs point round-robin at 1,000 commits, as a real repository's branches,
#             tags and remote branches share few commits;
#   distinct  a commit per ref (the shape of the dataset above, where git's writer is slow:
#             its obj index has a record per ref).
# DATA/SHAPE-N/ then holds
#   update-stdin.txt  "create <ref> <id>" for every ref but refs/heads/main;
#   repo/             a reftable repository (DATA/SHAPE-objects-C.git as alternate) holding all
#                     N refs in one table: `git update-ref --stdin`, then `git pack-refs --all`;
#   stack/            the same refs as 9 tables, from 9 `git update-ref --stdin` runs with
#                     autocompaction off (the files of .git/reftable, for compaction runs).
# No reflogs (core.logAllRefUpdates=false), as in a bare clone. Names: 45%
# refs/heads/topic/<n>, 35% refs/tags/v<n>, 20% refs/remotes/origin/r<n>.
set -euo pipefail
BUILD=$1
DATA=$2
if [[ ${3:-} == shared || ${3:-} == distinct ]]; then
  SHAPE=$3
  N=${4:-1000000}
  GIT=${GIT:?dataset.sh $SHAPE: set GIT to a reftable-capable git}
  if [[ $SHAPE == shared ]]; then C=1000; else C=$N; fi
  OBJ=$DATA/$SHAPE-objects-$C.git
  SD=$DATA/$SHAPE-$N
  STAMP="$SHAPE v1 n=$N"
  [[ $(cat "$SD/.complete" 2>/dev/null) == "$STAMP" ]] && exit 0
  mkdir -p "$DATA"
  if [[ $(cat "$OBJ/made-by" 2>/dev/null) != "commits v1" ]]; then
    echo "dataset: git fast-import: $C commits into $OBJ"
    rm -rf "$OBJ"
    "$GIT" init -q --bare "$OBJ"
    awk -v c="$C" 'BEGIN { for (i = 1; i <= c; i++) { s = "reftab-bench shape commit " i "\n";
                 printf "commit refs/heads/main\nmark :%d\n", i;
                 printf "committer C O Mitter <committer@example.com> %d +0000\n", 1700000000 + i;
                 printf "data %d\n%s\n", length(s), s } }' |
      "$GIT" --git-dir="$OBJ" fast-import --quiet --export-marks="$OBJ/marks"
    sort -t: -k2 -n "$OBJ/marks" | awk '{ print $2 }' >"$OBJ/ids.txt"
    echo "commits v1" >"$OBJ/made-by"
  fi
  rm -rf "$SD" && mkdir -p "$SD"
  echo "dataset: $N refs, $SHAPE shape ($C commits), into $SD"
  awk -v n="$N" -v c="$C" 'NR == FNR { id[NR - 1] = $1; next }
    END { for (i = 1; i < n; i++) {
            k = i % 20; o = id[i % c];
            if (k < 9) printf "create refs/heads/topic/%07d %s\n", i, o;
            else if (k < 16) printf "create refs/tags/v%07d %s\n", i, o;
            else printf "create refs/remotes/origin/r%07d %s\n", i, o } }' \
    "$OBJ/ids.txt" /dev/null >"$SD/update-stdin.txt"
  MAIN=$(tail -1 "$OBJ/ids.txt")
  fresh() {  # fresh DIR: an empty reftable repository with the objects as alternate
    "$GIT" init -q --ref-format=reftable "$1"
    echo "$OBJ/objects" >"$1/.git/objects/info/alternates"
    "$GIT" -C "$1" config core.logAllRefUpdates false
    "$GIT" -C "$1" update-ref refs/heads/main "$MAIN"
  }
  fresh "$SD/repo"
  "$GIT" -C "$SD/repo" update-ref --stdin <"$SD/update-stdin.txt"
  "$GIT" -C "$SD/repo" pack-refs --all
  fresh "$SD/stack-repo"
  # Refs are created in name order within each run, the runs interleaved (every 9th line),
  # so that each table spans the whole name range, as a repository's history of pushes does.
  for ((k = 0; k < 9; k++)); do
    awk -v k="$k" 'NR % 9 == k' "$SD/update-stdin.txt" |
      GIT_TEST_REFTABLE_AUTOCOMPACTION=false "$GIT" -C "$SD/stack-repo" update-ref --stdin
  done
  mkdir "$SD/stack" && cp "$SD/stack-repo/.git/reftable/"* "$SD/stack/"
  rm -rf "$SD/stack-repo"
  echo "$STAMP" >"$SD/.complete"
  exit 0
fi
BENCH=$BUILD/perf/reftab-bench
GIT=${GIT:-}
GITBENCH=${GITBENCH:-}
STAMP="dataset v3 git=${GIT:+yes} gitbench=${GITBENCH:+yes}"
if [[ $(cat "$DATA/.complete" 2>/dev/null) == "$STAMP" ]]; then
  exit 0
fi
rm -rf "$DATA/one" "$DATA/stack" "$DATA/gen" "$DATA/git-one" "$DATA/git-stack" "$DATA"/*.txt \
  "$DATA/refs.jsonl" "$DATA/.complete"
mkdir -p "$DATA"
IDS=()
if [[ -n $GIT ]]; then
  if [[ $(cat "$DATA/objects.git/made-by" 2>/dev/null) != "commits v1" ]]; then
    echo "dataset: git fast-import: 1,020,001 commits into $DATA/objects.git"
    rm -rf "$DATA/objects.git"
    "$GIT" init -q --bare "$DATA/objects.git"
    # Commits, since git refuses a ref under refs/heads/ that names anything else.
    awk 'BEGIN { for (i = 1; i <= 1020001; i++) { s = "reftab-bench object " i "\n";
                 printf "commit refs/heads/objects\nmark :%d\n", i;
                 printf "committer C O Mitter <committer@example.com> 1700000000 +0000\n";
                 printf "data %d\n%s\n", length(s), s } }' |
      "$GIT" --git-dir="$DATA/objects.git" fast-import --quiet \
        --export-marks="$DATA/objects.git/marks"
    sort -t: -k2 -n "$DATA/objects.git/marks" | awk '{ print $2 }' >"$DATA/objects.git/ids.tmp"
    mv "$DATA/objects.git/ids.tmp" "$DATA/objects.git/ids.txt"
    echo "commits v1" >"$DATA/objects.git/made-by"
  fi
  IDS=(--ids "$DATA/objects.git/ids.txt")
fi
"$BENCH" gen "$DATA/gen" "${IDS[@]}"
mv "$DATA/gen/IN.txt" "$DATA/gen/NAMES.txt" "$DATA/"
{
  echo "refs: reftab-bench gen${GIT:+ --ids (ids of commits written by git fast-import)}"
  if [[ -n $GITBENCH ]]; then
    for layout in one stack; do
      "$GITBENCH" rewrite "$DATA/gen/$layout" "$DATA/$layout"
      same=yes
      for f in "$DATA/gen/$layout"/*; do
        cmp -s "$f" "$DATA/$layout/${f##*/}" || same=no
      done
      echo "tables of $layout/: written by git's reftable library (git-reftable-bench rewrite);" \
        "byte-identical to reftab's: $same"
    done
  else
    mv "$DATA/gen/one" "$DATA/gen/stack" "$DATA/"
    echo "tables: written by reftab (no git-reftable-bench)"
  fi
} >"$DATA/made-by.txt"
rm -rf "$DATA/gen"
if [[ -n $GIT ]]; then
  for layout in one stack; do
    repo=$DATA/git-$layout
    "$GIT" init -q --ref-format=reftable "$repo"
    echo "$DATA/objects.git/objects" >"$repo/.git/objects/info/alternates"
    rm -f "$repo/.git/reftable/"*
    cp "$DATA/$layout/"* "$repo/.git/reftable/"
  done
  echo "git repositories: git-one/, git-stack/ (the same tables; objects.git as alternate)" \
    >>"$DATA/made-by.txt"
fi
echo "$STAMP" >"$DATA/.complete"
