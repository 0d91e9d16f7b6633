#!/usr/bin/env bash
# perf/shapes.sh BUILDDIR OUT GIT [N] [RUNS]: reftab beside git on N refs (1,000,000 by
# default) in two shapes, every figure labelled with its shape (perf/dataset.sh SHAPE N):
#   shared commits   the refs point at 1,000 commits (a real repository's shape);
#   commit per ref   each ref at its own commit (where git's writer is slow: its obj index
#                    holds a record per ref, so leads there are partly git's weakness).
# For each shape: update-ref --stdin of the N-1 creates into an empty repository, the
# compaction of the stacked tables (`reftab compact` / `git pack-refs --all`), for-each-ref
# (names only, and git's default format, which reads every object's type), refs verify, and
# refs migrate both ways (files→reftable and reftable→files; with reflogs up to 100,000 refs).
# hyperfine (RUNS runs, 5 by default, -N) pairs each reftab command with git's;
# OUT/cli-shapes.{json,md}, and peak memory (/usr/bin/time -v) in OUT/memory-shapes.txt.
# Called by run.sh; alone it is the quick way to compare the shapes at a smaller N.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$2
GIT=$3
N=${4:-1000000}
RUNS=${5:-5}
DATA=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
REFTAB=$BUILD/cli/reftab
mkdir -p "$OUT" "$DATA/home"
# shellcheck source=perf/git_env.sh
source "$HERE/git_env.sh"
git_env "$DATA/home"
W=$DATA/scratch/shapes
mkdir -p "$DATA/scratch"
HF=()
MEM_TXT=$OUT/memory-shapes.txt
: >"$MEM_TXT"
mem() {  # mem LABEL CMD...: peak RSS of CMD (its input and output are the caller's)
  local label=$1; shift
  /usr/bin/time -o "$W.time" -v "$@" >/dev/null
  printf '%-58s peak RSS %8d KiB\n' "$label" \
    "$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$W.time")" | tee -a "$MEM_TXT"
}
for shape in shared distinct; do
  GIT="$GIT" bash "$HERE/dataset.sh" "$BUILD" "$DATA" "$shape" "$N"
  SD=$DATA/$shape-$N
  if [[ $shape == shared ]]; then label="shared commits"; C=1000; else label="commit per ref"; C=$N; fi
  ALTS=$DATA/$shape-objects-$C.git/objects
  TABLES=$(grep -c . "$SD/stack/tables.list")
  CREATES=$(grep -c . "$SD/update-stdin.txt")
  R=$SD/repo/.git
  EMPTY="bash -c 'rm -rf $W && $GIT init -q --ref-format=reftable $W && echo $ALTS > $W/.git/objects/info/alternates && $GIT -C $W config core.logAllRefUpdates false'"
  STACKED="bash -c 'rm -rf $W && $GIT init -q --ref-format=reftable $W && echo $ALTS > $W/.git/objects/info/alternates && rm -f $W/.git/reftable/* && cp $SD/stack/* $W/.git/reftable/'"
  HF+=(--prepare "$EMPTY" -n "reftab update-ref --stdin, $CREATES creates, $label"
    "bash -c '$REFTAB --git-dir $W/.git update-ref --stdin < $SD/update-stdin.txt'"
    --prepare "$EMPTY" -n "git update-ref --stdin, $CREATES creates, $label"
    "bash -c '$GIT --git-dir=$W/.git update-ref --stdin < $SD/update-stdin.txt'"
    --prepare "$STACKED" -n "reftab compact $TABLES tables, $label" "$REFTAB --git-dir $W/.git compact"
    --prepare "$STACKED" -n "git compact $TABLES tables, $label" "$GIT --git-dir=$W/.git pack-refs --all"
    --prepare true -n "reftab for-each-ref --format=%(refname), $label"
    "$REFTAB --git-dir $R for-each-ref --format=%(refname)"
    --prepare true -n "git for-each-ref --format=%(refname), $label"
    "$GIT --git-dir=$R for-each-ref --format=%(refname)"
    --prepare true -n "reftab for-each-ref (default format), $label" "$REFTAB --git-dir $R for-each-ref"
    --prepare true -n "git for-each-ref (default format), $label" "$GIT --git-dir=$R for-each-ref"
    --prepare true -n "reftab refs verify, $label" "$REFTAB --git-dir $R refs verify"
    --prepare true -n "git refs verify, $label" "$GIT --git-dir=$R refs verify")
  # Peak memory, one run each.
  eval "$EMPTY"
  mem "reftab update-ref --stdin, $CREATES creates, $label" \
    "$REFTAB" --git-dir "$W/.git" update-ref --stdin <"$SD/update-stdin.txt"
  eval "$EMPTY"
  mem "git update-ref --stdin, $CREATES creates, $label" \
    "$GIT" --git-dir="$W/.git" update-ref --stdin <"$SD/update-stdin.txt"
  eval "$STACKED"
  mem "reftab compact $TABLES tables, $label" "$REFTAB" --git-dir "$W/.git" compact
  eval "$STACKED"
  mem "git compact $TABLES tables, $label" "$GIT" --git-dir="$W/.git" pack-refs --all
  mem "reftab for-each-ref (default format), $label" "$REFTAB" --git-dir "$R" for-each-ref
  mem "git for-each-ref (default format), $label" "$GIT" --git-dir="$R" for-each-ref
  mem "reftab refs verify, $label" "$REFTAB" --git-dir "$R" refs verify
  mem "git refs verify, $label" "$GIT" --git-dir="$R" refs verify
  # --- refs migrate, both ways, with and without reflogs -------------------------------
  # From files: the shape's refs in packed-refs (git's own `refs migrate --ref-format=files`
  # of the repository). With reflogs: every ref written by git with core.logAllRefUpdates
  # (as a clone leaves heads and remote-tracking refs: a one-entry reflog each; tags none),
  # kept as a reftable repository and, migrated by git, as a files one. The reflog fixtures
  # hold a file per reflog, so they are made only up to REFTAB_MIGRATE_REFLOG_REFS refs
  # (100,000 by default).
  MIG=$DATA/scratch/migrate-$shape-$N
  rm -rf "$MIG" && mkdir -p "$MIG"
  cp -a "$SD/repo" "$MIG/rt"
  cp -a "$SD/repo" "$MIG/files"
  "$GIT" -C "$MIG/files" refs migrate --ref-format=files
  MIG_CASES=("rt reftable" "files files")
  if ((N <= ${REFTAB_MIGRATE_REFLOG_REFS:-100000})); then
    "$GIT" init -q --ref-format=reftable "$MIG/rt-log"
    echo "$ALTS" >"$MIG/rt-log/.git/objects/info/alternates"
    "$GIT" -C "$MIG/rt-log" config core.logAllRefUpdates true
    "$GIT" -C "$MIG/rt-log" update-ref -m "bench: create" refs/heads/main \
      "$("$GIT" -C "$SD/repo" rev-parse refs/heads/main)"
    "$GIT" -C "$MIG/rt-log" update-ref -m "bench: create" --stdin <"$SD/update-stdin.txt"
    "$GIT" -C "$MIG/rt-log" pack-refs --all
    cp -a "$MIG/rt-log" "$MIG/files-log"
    "$GIT" -C "$MIG/files-log" refs migrate --ref-format=files
    MIG_CASES+=("rt-log reftable" "files-log files")
  fi
  for c in "${MIG_CASES[@]}"; do
    read -r fixture from <<<"$c"
    if [[ $from == reftable ]]; then to=files; else to=reftable; fi
    logs=""
    [[ $fixture == *-log ]] && logs=" with reflogs"
    what="refs migrate $from→$to, $N refs$logs"
    COPY="bash -c 'rm -rf $W && cp -a $MIG/$fixture $W'"
    HF+=(--prepare "$COPY" -n "reftab $what, $label"
      "$REFTAB --git-dir $W/.git refs migrate --ref-format=$to"
      --prepare "$COPY" -n "git $what, $label" "$GIT --git-dir=$W/.git refs migrate --ref-format=$to")
    eval "$COPY"
    mem "reftab $what, $label" "$REFTAB" --git-dir "$W/.git" refs migrate --ref-format="$to"
    eval "$COPY"
    mem "git $what, $label" "$GIT" --git-dir="$W/.git" refs migrate --ref-format="$to"
  done
  # --- end of refs migrate ----------------------------------------------------------------
done
hyperfine -N --warmup 1 --style basic --runs "$RUNS" --export-json "$OUT/cli-shapes.json" \
  --export-markdown "$OUT/cli-shapes.md" "${HF[@]}"
rm -rf "$W" "$W.time" "$DATA"/scratch/migrate-*
