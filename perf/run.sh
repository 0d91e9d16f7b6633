#!/usr/bin/env bash
# perf/run.sh [BUILDDIR] [RESULTS] [GIT]: the benchmark suite (issues 4 and 8), with git as a
# peer in every scenario when git is there.
#
#   1. makes the dataset once into ${REFTAB_BENCH_DIR:-/tmp/reftab-bench} (dataset.sh);
#   2. in-process figures: reftab-bench and, when built (-Dgit_peer=GIT_TREE),
#      git-reftable-bench (git's reftable library) on the same tables, run alternately
#      (A B A B ...), medians and ratios git/reftab; with valgrind, instruction counts too;
#      the table writes on both shapes (with git: refs sharing 1,000 commits beside the
#      dataset's commit per ref);
#   3. CLI scenarios with hyperfine, each reftab command paired with the same git command
#      when a reftable-capable git is given (GIT argument or $REFTAB_GIT), each labelled with
#      its data's shape: "commit per ref" (the dataset above), and perf/shapes.sh's refs
#      sharing 1,000 commits beside a commit per ref, both made by git; stacks holding many
#      tombstones (tombstones.sh) and one-ref transactions into 1M refs (small_tx.sh);
#   4. the ablations (reftab-ablate) and the compiled variants (tracing compiled in but off
#      vs compiled out; hot helpers inlined vs out of line);
#   5. peak memory of a scan and of writing 1M refs (/usr/bin/time -v);
#   6. results/summary.md and results/chart.png (gnuplot, if installed).
# Without git (no driver, no git command) everything still runs and says what was skipped.
# Also run by `meson test -C BUILDDIR --benchmark`. Set QUICK=1 for fewer repetitions,
# COMPARE_ONLY=1 for sections 1-3 and 6 only.
# The machine this was written on is a noisy 2-core VM: every comparison that matters is
# made within one run (alternating drivers, or one hyperfine invocation), medians only.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
OUT=${2:-$HERE/results}
GIT=${3:-${REFTAB_GIT:-}}
DATA=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
REFTAB=$BUILD/cli/reftab
BENCH=$BUILD/perf/reftab-bench
GITBENCH=$BUILD/perf/git-reftable-bench
ABLATE=$BUILD/perf/reftab-ablate
QUICK=${QUICK:-0}
if [[ $QUICK == 1 ]]; then
  REPS=5 RUNS=5 ABLATE_REPS=3 ALT=3 INNER=3
else
  REPS=15 RUNS=20 ABLATE_REPS=9 ALT=5 INNER=5
fi
mkdir -p "$OUT"
# The compiled variants are not built by default; build them (and anything stale) now.
# COMPARE_ONLY needs none of them.
if [[ ${COMPARE_ONLY:-0} == 1 ]]; then
  ninja -C "$BUILD" cli/reftab perf/reftab-bench >/dev/null
else
  ninja -C "$BUILD" cli/reftab perf/reftab-bench perf/reftab-ablate \
    perf/reftab-bench-static perf/reftab-bench-notrace perf/reftab-bench-noinline >/dev/null
fi
for b in "$REFTAB" "$BENCH"; do
  [[ -x $b ]] || { echo "run.sh: missing $b (build first: ninja -C $BUILD)" >&2; exit 1; }
done
log() { printf '\n== %s\n' "$*"; }
rm -f "$OUT/git-bench.txt" "$OUT/pairs.txt" "$OUT/callgrind.txt" "$OUT/skipped.txt"
skipped() { echo "$*" | tee -a "$OUT/skipped.txt"; }

# ---------------------------------------------------------------- 1. dataset
[[ -x $GITBENCH ]] || GITBENCH=
if [[ -n $GIT ]]; then
  PROBE=$(mktemp -d)
  if ! "$GIT" init -q --ref-format=reftable "$PROBE/r" 2>/dev/null; then
    echo "run.sh: $GIT cannot make reftable repositories (git >= 2.45 needed): not using it" >&2
    GIT=
  fi
  rm -rf "$PROBE"
fi
# git's commands read config and write reflogs: make both tools see the same, fixed setup.
mkdir -p "$DATA/home"
# shellcheck source=perf/git_env.sh
source "$HERE/git_env.sh"
git_env "$DATA/home"
log "dataset in $DATA"
GIT="$GIT" GITBENCH="$GITBENCH" bash "$HERE/dataset.sh" "$BUILD" "$DATA"
ONE=$DATA/one
STACK=$DATA/stack
ONE_TABLE=$ONE/$(head -1 "$ONE/tables.list")
SCRATCH=$DATA/scratch
mkdir -p "$SCRATCH"
cat "$DATA/made-by.txt" | tee "$OUT/dataset.txt"
# Inputs of the write scenarios, derived once: jsonl for write-table, git's --stdin language
# (980,000 creates: every ref but refs/heads/main and the 20,000 annotated tags).
[[ -f $DATA/refs.jsonl ]] || "$REFTAB" dump "$ONE_TABLE" >"$DATA/refs.jsonl"
[[ -f $DATA/update-stdin.txt ]] ||
  awk '$2 != "refs/heads/main" && $2 !~ /^refs\/tags\/v[0-9]+\.[0-9]+\.[0-9]*0$/ {
         print "create " $2 " " $1 }' "$DATA/IN.txt" >"$DATA/update-stdin.txt"

# ---------------------------------------------------------------- 2. in-process figures
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
BENCH_TXT=$OUT/bench.txt
GIT_TXT=$OUT/git-bench.txt
: >"$BENCH_TXT"
[[ -n $GITBENCH ]] && : >"$GIT_TXT"
if [[ -n $GITBENCH ]]; then
  log "in-process: reftab-bench and git-reftable-bench alternately ($ALT x $INNER reps each)"
else
  log "in-process: reftab-bench ($ALT x $INNER reps)"
  skipped "in-process comparison with git skipped: git-reftable-bench not built" \
    "(meson configure -Dgit_peer=GIT_BUILD_TREE)"
fi
# pair LABEL ARGS...: ALT runs of each driver, alternating which goes first; each run reports
# its median over INNER reps; the line shows the median of those medians.
pair() {
  local label=$1; shift
  local a=() b=() la lb i
  for ((i = 0; i < ALT; i++)); do
    if ((i % 2 == 0)) || [[ -z $GITBENCH ]]; then
      la=$(REFTAB_BENCH_REPS=$INNER "$BENCH" "$@"); a+=("$la")
      [[ -n $GITBENCH ]] && { lb=$(REFTAB_BENCH_REPS=$INNER "$GITBENCH" "$@"); b+=("$lb"); }
    else
      lb=$(REFTAB_BENCH_REPS=$INNER "$GITBENCH" "$@"); b+=("$lb")
      la=$(REFTAB_BENCH_REPS=$INNER "$BENCH" "$@"); a+=("$la")
    fi
  done
  report() {  # report FILE LINES...: "<label> <mode> n=N best_ns_per_op=B median_ns_per_op=M"
    local file=$1; shift
    local mode n best med
    mode=${1%% *}
    n=$(printf '%s\n' "$@" | sed -n '1s/.* n=\([0-9]*\).*/\1/p')
    best=$(printf '%s\n' "$@" | sed 's/.*best_ns_per_op=\([0-9.]*\).*/\1/' | sort -g | head -1)
    med=$(printf '%s\n' "$@" | sed 's/.*median_ns_per_op=\([0-9.]*\).*/\1/' | median)
    printf '%-14s %s n=%s best_ns_per_op=%s median_ns_per_op=%s\n' "$label" "$mode" "$n" "$best" \
      "$med" >>"$file"
    echo "$med"
  }
  local ma mb
  ma=$(report "$BENCH_TXT" "${a[@]}")
  if [[ -n $GITBENCH ]]; then
    mb=$(report "$GIT_TXT" "${b[@]}")
    printf '%-14s reftab %10.2f  git %10.2f  git/reftab %6.2fx   (%s)\n' "$label" "$ma" "$mb" \
      "$(echo "$mb / $ma" | bc -l)" "$*" | tee -a "$OUT/pairs.txt"
  else
    printf '%-14s reftab %10.2f   (%s)\n' "$label" "$ma" "$*"
  fi
}
NAMES=$DATA/NAMES.txt
pair scan-one scan "$ONE"
pair scan-stack scan "$STACK"
# The same with every rep merging, as the first scan of a snapshot does (the reps above
# replay the order their second rep recorded: store/merge_order.h).
REFTAB_BENCH_MERGE_ORDER=off pair scan-stack-mrg scan "$STACK"
pair lookup-one lookup "$ONE" "$NAMES"
pair lookup-stack lookup "$STACK" "$NAMES"
pair prefix-one prefix "$ONE" refs/tags/
pair prefix-stack prefix "$STACK" refs/tags/
pair write-obj write "$DATA/IN.txt" "$SCRATCH/w.ref"
pair write-noobj write "$DATA/IN.txt" "$SCRATCH/w.ref" noobj
# The same writes on the other shape: 1M refs sharing 1,000 commits (dataset.sh shared, made
# by git; shapes.sh uses it too), as "<id> <name>" lines in name order, refs/heads/main
# being the last commit.
SHARED=$DATA/shared-1000000
if [[ -n $GIT ]]; then
  GIT="$GIT" bash "$HERE/dataset.sh" "$BUILD" "$DATA" shared 1000000
  [[ -f $SHARED/IN.txt ]] ||
    { awk '{ print $3 " " $2 }' "$SHARED/update-stdin.txt"
      echo "$(tail -1 "$DATA/shared-objects-1000.git/ids.txt") refs/heads/main"; } |
      LC_ALL=C sort -k2,2 >"$SHARED/IN.txt"
  pair write-obj-shared write "$SHARED/IN.txt" "$SCRATCH/w.ref"
  pair write-noobj-shared write "$SHARED/IN.txt" "$SCRATCH/w.ref" noobj
else
  skipped "in-process writes of refs sharing 1,000 commits skipped: the dataset needs git"
fi
# The write mode must produce git's bytes: the same input through the CLI writer (whose
# output the contract checks compare with git's) and through git's library must give the
# same file.
REFTAB_BENCH_REPS=1 "$BENCH" write "$DATA/IN.txt" "$SCRATCH/bench.ref" >/dev/null
awk '{ printf "{\"type\":\"ref\",\"name\":\"%s\",\"update_index\":1,\"value_type\":1,\"value\":\"%s\"}\n", $2, $1 }' \
  "$DATA/IN.txt" | "$REFTAB" write-table --min-update-index 1 --max-update-index 1 "$SCRATCH/cli.ref" 2>/dev/null &&
  if cmp -s "$SCRATCH/bench.ref" "$SCRATCH/cli.ref"; then
    echo "write: reftab-bench output is byte-identical to reftab write-table's" | tee -a "$BENCH_TXT"
  else
    echo "write: WARNING reftab-bench output differs from reftab write-table's" | tee -a "$BENCH_TXT"
  fi
if [[ -n $GITBENCH ]]; then
  for input in "$DATA/IN.txt" ${GIT:+"$SHARED/IN.txt"}; do
    REFTAB_BENCH_REPS=1 "$BENCH" write "$input" "$SCRATCH/bench.ref" >/dev/null
    REFTAB_BENCH_REPS=1 "$GITBENCH" write "$input" "$SCRATCH/git.ref" >/dev/null
    if cmp -s "$SCRATCH/bench.ref" "$SCRATCH/git.ref"; then
      echo "write $input: reftab-bench output is byte-identical to git-reftable-bench's" | tee -a "$BENCH_TXT"
    else
      echo "write $input: WARNING reftab-bench output differs from git-reftable-bench's" | tee -a "$BENCH_TXT"
    fi
  done
fi
rm -f "$SCRATCH/bench.ref" "$SCRATCH/cli.ref" "$SCRATCH/git.ref" "$SCRATCH/w.ref"

# Instruction counts do not depend on the machine's load: one rep of each driver under
# callgrind, less the same driver's count for the same set-up doing (almost) nothing: process
# start, opening the stack, and a prefix scan that finds no ref or a single lookup.
if command -v valgrind >/dev/null && [[ -n $GITBENCH ]]; then
  log "instructions per op (callgrind, one rep, set-up subtracted)"
  head -20000 "$NAMES" >"$SCRATCH/names20k.txt"
  head -1 "$NAMES" >"$SCRATCH/names1.txt"
  ir() {  # ir BINARY ARGS...: total instructions
    REFTAB_BENCH_REPS=1 valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 \
      >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p' | tail -1
  }
  net() {  # net BINARY MODE DIR ARGS...: instructions of the run less those of its set-up
    local b=$1 mode=$2 dir=$3; shift 3
    local all base
    all=$(ir "$b" "$mode" "$dir" "$@")
    if [[ $mode == lookup ]]; then
      base=$(ir "$b" lookup "$dir" "$SCRATCH/names1.txt" 1)
    else
      base=$(ir "$b" prefix "$dir" refs/~none 1)
    fi
    echo $((all - base))
  }
  cg() {  # cg LABEL OPS MODE DIR ARGS...
    local label=$1 ops=$2; shift 2
    local a b
    a=$(net "$BENCH" "$@")
    b=$(net "$GITBENCH" "$@")
    printf '%-14s reftab %10.1f  git %10.1f  git/reftab %6.2fx  instructions/op  (%s)\n' "$label" \
      "$(echo "$a / $ops" | bc -l)" "$(echo "$b / $ops" | bc -l)" "$(echo "$b / $a" | bc -l)" \
      "$*" | tee -a "$OUT/callgrind.txt"
  }
  cg scan-one 1000002 scan "$ONE" 1
  cg scan-stack 1000002 scan "$STACK" 1
  cg prefix-one 200000 prefix "$ONE" refs/tags/ 1
  cg prefix-stack 200000 prefix "$STACK" refs/tags/ 1
  cg lookup-one 20000 lookup "$ONE" "$SCRATCH/names20k.txt" 1
  cg lookup-stack 20000 lookup "$STACK" "$SCRATCH/names20k.txt" 1
fi

# ---------------------------------------------------------------- 3. CLI scenarios
HF=(hyperfine -N --warmup 2 --min-runs "$RUNS" --style basic)
NAME=refs/heads/feature/user-2000/topic-100
if [[ -n $GIT ]]; then
  log "CLI scenarios (hyperfine, $RUNS runs, -N), reftab and $GIT on the same repositories"
  # The dataset's repositories (dataset.sh): the tables of one/ and stack/ as .git/reftable,
  # the objects they name in an alternate object store.
  R1=$DATA/git-one/.git R9=$DATA/git-stack/.git
else
  log "CLI scenarios (hyperfine, $RUNS runs, -N), reftab only"
  skipped "CLI comparison with git skipped: no reftable-capable git (REFTAB_GIT or run.sh's" \
    "third argument)"
  R1=$ONE R9=$STACK
fi
# cmds NAME ARGS: hyperfine's -n NAME CMD for reftab and, with git, for git (same arguments).
cmds() {
  local name=$1 repo=$2; shift 2
  if [[ -n $GIT ]]; then
    printf '%s\0' -n "reftab $name" "$REFTAB --git-dir $repo $*" -n "git $name" "$GIT --git-dir=$repo $*"
  else
    printf '%s\0' -n "reftab $name" "$REFTAB --stack $repo $*"
  fi
}
mapfile -d '' LOOKUP < <(cmds "show-ref --verify, one table, commit per ref" "$R1" show-ref --verify "$NAME"
  cmds "show-ref --verify, 9-table stack, commit per ref" "$R9" show-ref --verify "$NAME")
"${HF[@]}" --export-json "$OUT/cli-lookup.json" --export-markdown "$OUT/cli-lookup.md" "${LOOKUP[@]}"
# symbolic-ref and refs exists beside git's (-i: a dataset without HEAD as a symref exits 128).
mapfile -d '' REFCMDS < <(cmds "symbolic-ref HEAD, 9-table stack" "$R9" symbolic-ref HEAD
  cmds "refs exists, one table" "$R1" refs exists "$NAME"
  cmds "refs exists, 9-table stack" "$R9" refs exists "$NAME")
"${HF[@]}" -i --export-json "$OUT/cli-refcmds.json" --export-markdown "$OUT/cli-refcmds.md" "${REFCMDS[@]}"
mapfile -d '' LIST < <(cmds "for-each-ref, one table, commit per ref" "$R1" "for-each-ref --format=%(refname)"
  cmds "for-each-ref, 9-table stack, commit per ref" "$R9" "for-each-ref --format=%(refname)"
  cmds "for-each-ref refs/tags/, one table, commit per ref" "$R1" "for-each-ref --format=%(refname) refs/tags/"
  cmds "for-each-ref refs/tags/, 9-table stack, commit per ref" "$R9" "for-each-ref --format=%(refname) refs/tags/")
# The "recent branches" idiom: a sort by an object's date (needs the objects, so only with git).
[[ -n $GIT ]] && mapfile -d '' -O "${#LIST[@]}" LIST < <(cmds "for-each-ref --sort=-committerdate --count=10 refs/heads/, one table, commit per ref" "$R1" "for-each-ref --sort=-committerdate --count=10 refs/heads/")
# refs verify: git's checks of every ref (and reftab's table checks).
[[ -n $GIT ]] && mapfile -d '' -O "${#LIST[@]}" LIST < <(cmds "refs verify, one table, commit per ref" "$R1" refs verify
  cmds "refs verify, 9-table stack, commit per ref" "$R9" refs verify)
"${HF[@]}" --export-json "$OUT/cli-list.json" --export-markdown "$OUT/cli-list.md" "${LIST[@]}"
# reflog list reads every table's log section (the dataset's tables may hold no logs at all).
mapfile -d '' REFLOG < <(cmds "reflog list, one table" "$R1" reflog list
  cmds "reflog list, 9-table stack" "$R9" reflog list)
"${HF[@]}" --export-json "$OUT/cli-reflog.json" --export-markdown "$OUT/cli-reflog.md" "${REFLOG[@]}"
# One --prepare per command, run before each timing run (not timed): an empty repository (or
# stack) for the writes, a fresh copy of the 9-table stack for the compaction.
W=$SCRATCH/w
if [[ -n $GIT ]]; then
  ALTS=$DATA/objects.git/objects
  EMPTY="bash -c 'rm -rf $W && $GIT init -q --ref-format=reftable $W && echo $ALTS > $W/.git/objects/info/alternates'"
  STACKED="bash -c 'rm -rf $W && $GIT init -q --ref-format=reftable $W && echo $ALTS > $W/.git/objects/info/alternates && rm -f $W/.git/reftable/* && cp $STACK/* $W/.git/reftable/'"
  WRITES=(--prepare "$EMPTY" -n "reftab update-ref --stdin, 980k creates, commit per ref"
    "bash -c '$REFTAB --git-dir $W/.git update-ref --stdin < $DATA/update-stdin.txt'"
    --prepare "$EMPTY" -n "git update-ref --stdin, 980k creates, commit per ref"
    "bash -c '$GIT --git-dir=$W/.git update-ref --stdin < $DATA/update-stdin.txt'"
    --prepare "$EMPTY" -n "reftab write-table from jsonl, 1M refs"
    "bash -c '$REFTAB write-table $W/t.ref < $DATA/refs.jsonl'"
    --prepare "$STACKED" -n "reftab compact the 9-table stack, commit per ref" "$REFTAB --git-dir $W/.git compact"
    --prepare "$STACKED" -n "git compact the 9-table stack, commit per ref" "$GIT --git-dir=$W/.git pack-refs --all")
else
  EMPTY="bash -c 'rm -rf $W && mkdir -p $W'"
  STACKED="bash -c 'rm -rf $W && mkdir -p $W && cp $STACK/* $W/'"
  WRITES=(--prepare "$EMPTY" -n "reftab update-ref --stdin, 980k creates, commit per ref"
    "bash -c '$REFTAB --stack $W update-ref --stdin < $DATA/update-stdin.txt'"
    --prepare "$EMPTY" -n "reftab write-table from jsonl, 1M refs"
    "bash -c '$REFTAB write-table $W/t.ref < $DATA/refs.jsonl'"
    --prepare "$STACKED" -n "reftab compact the 9-table stack, commit per ref" "$REFTAB --stack $W compact")
fi
hyperfine -N --warmup 1 --style basic --runs "$(( RUNS < 10 ? RUNS : 10 ))" \
  --export-json "$OUT/cli-write.json" --export-markdown "$OUT/cli-write.md" "${WRITES[@]}"
rm -rf "$W"

# refs migrate both ways on the 1M-ref repository, reftab and git side by side. The files
# copy is made once, by git's own migration; every timed run starts from a fresh copy.
if [[ -n $GIT ]]; then
  M=$SCRATCH/m MRT=$SCRATCH/migrate-reftable MFILES=$SCRATCH/migrate-files
  rm -rf "$MRT" "$MFILES" && mkdir -p "$MRT" && cp -a "$R1" "$MRT/.git"
  cp -a "$MRT" "$MFILES" && "$GIT" -C "$MFILES" refs migrate --ref-format=files
  FROM_RT="bash -c 'rm -rf $M && cp -a $MRT $M'" FROM_FILES="bash -c 'rm -rf $M && cp -a $MFILES $M'"
  MIGRATE=(--prepare "$FROM_FILES" -n "reftab refs migrate files->reftable, 1M refs"
    "$REFTAB --git-dir $M/.git refs migrate --ref-format=reftable"
    --prepare "$FROM_FILES" -n "git refs migrate files->reftable, 1M refs"
    "$GIT --git-dir=$M/.git refs migrate --ref-format=reftable"
    --prepare "$FROM_RT" -n "reftab refs migrate reftable->files, 1M refs"
    "$REFTAB --git-dir $M/.git refs migrate --ref-format=files"
    --prepare "$FROM_RT" -n "git refs migrate reftable->files, 1M refs"
    "$GIT --git-dir=$M/.git refs migrate --ref-format=files")
  hyperfine -N --warmup 1 --style basic --runs "$(( RUNS < 10 ? RUNS : 10 ))" \
    --export-json "$OUT/cli-migrate.json" --export-markdown "$OUT/cli-migrate.md" "${MIGRATE[@]}"
  rm -rf "$M" "$MRT" "$MFILES"
fi

# The two shapes side by side, made by git at the same size (${REFTAB_SHAPES_REFS:-1000000}
# refs): refs sharing 1,000 commits, and a commit per ref (perf/shapes.sh).
if [[ -n $GIT ]]; then
  log "shapes: shared commits and a commit per ref (perf/shapes.sh)"
  bash "$HERE/shapes.sh" "$BUILD" "$OUT" "$GIT" "${REFTAB_SHAPES_REFS:-1000000}" \
    "$(( RUNS < 10 ? RUNS : 10 ))"
else
  skipped "shapes comparison skipped: no reftable-capable git"
fi
# Deletions (perf/tombstones.sh: stacks holding K tombstones, lookups, scans, update-ref and
# compaction per K) and small transactions (perf/small_tx.sh: one update-ref into the
# shared-commits repository, auto-compaction on, reflogs off and on), beside git.
if [[ -n $GIT ]]; then
  log "tombstones (perf/tombstones.sh)"
  bash "$HERE/tombstones.sh" "$BUILD" "$OUT" "$GIT" "${REFTAB_TOMB_SIZES:-10000 30000 100000}" \
    "$(( RUNS < 10 ? RUNS : 10 ))"
  log "small transactions (perf/small_tx.sh)"
  bash "$HERE/small_tx.sh" "$BUILD" "$OUT" "$GIT" "${REFTAB_SHAPES_REFS:-1000000}" "$RUNS"
else
  skipped "tombstones and small transactions skipped: no reftable-capable git"
fi

# ---------------------------------------------------------------- 4. ablations, variants
if [[ ${COMPARE_ONLY:-0} == 1 ]]; then
  skipped "ablations, compiled variants and memory skipped (COMPARE_ONLY=1)"
else
log "ablations (reftab-ablate, $ABLATE_REPS reps per variant)"
"$ABLATE" --dir "$DATA" --reps "$ABLATE_REPS" | tee "$OUT/ablate.md"
log "compiled variants"
bash "$HERE/variants.sh" "$BUILD" "$DATA" "$REPS" | tee "$OUT/variants.md"

# ---------------------------------------------------------------- 5. memory
log "peak memory (/usr/bin/time -v)"
MEM_TXT=$OUT/memory.txt
: >"$MEM_TXT"
mem() {  # mem LABEL CMD...
  local label=$1; shift
  /usr/bin/time -v "$@" 2>"$SCRATCH/time.txt" >/dev/null
  local rss
  rss=$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$SCRATCH/time.txt")
  printf '%-28s peak RSS %7d KiB  (%s)\n' "$label" "$rss" "$*" | tee -a "$MEM_TXT"
}
mem "scan one table (1 rep)" "$BENCH" scan "$ONE" 1
mem "scan 9-table stack (1 rep)" "$BENCH" scan "$STACK" 1
REFTAB_BENCH_REPS=1 mem "write 1M refs, obj index" "$BENCH" write "$DATA/IN.txt" "$SCRATCH/m.ref"
REFTAB_BENCH_REPS=1 mem "write 1M refs, no obj index" "$BENCH" write "$DATA/IN.txt" "$SCRATCH/m.ref" noobj
mem "for-each-ref, one table, commit per ref" "$REFTAB" --stack "$ONE" for-each-ref --format='%(refname)'
echo "(the table file is $(stat -c %s "$ONE_TABLE") bytes; a scan maps it, so its pages" \
  "count as file-backed RSS, not heap)" | tee -a "$MEM_TXT"
REFTAB_BENCH_MEM=1 "$BENCH" scan "$ONE" 1 2>&1 >/dev/null | tee -a "$MEM_TXT"
# What a long-lived reader builds in memory: the hash indexes of 100k lookups, the merge
# order of repeated whole scans (recorded by the second).
REFTAB_BENCH_MEM=1 "$BENCH" lookup "$STACK" "$DATA/NAMES.txt" 1 2>&1 >/dev/null |
  sed -n 's/^mem built: /100k lookups, 9-table stack: /p' | tee -a "$MEM_TXT"
REFTAB_BENCH_MEM=1 "$BENCH" scan "$STACK" 3 2>&1 >/dev/null |
  sed -n 's/^mem built: /3 whole scans, 9-table stack: /p' | tee -a "$MEM_TXT"
rm -f "$SCRATCH/m.ref" "$SCRATCH/time.txt"

fi  # COMPARE_ONLY

# ---------------------------------------------------------------- 5b. key/value store
# reftab-kv-bench: the KV store beside LevelDB and RocksDB (built in when found), one run
# alternating the engines phase by phase; medians of its runs in results/kv-bench.txt.
KVBENCH=$BUILD/perf/reftab-kv-bench
if [[ -x $KVBENCH ]]; then
  log "key/value store vs LevelDB and RocksDB (reftab-kv-bench)"
  ninja -C "$BUILD" perf/reftab-kv-bench >/dev/null
  if [[ $QUICK == 1 ]]; then KVRUNS=1; else KVRUNS=3; fi
  "$KVBENCH" --runs "$KVRUNS" --dir "$DATA/kv" | tee "$OUT/kv-bench.txt"
else
  skipped "reftab-kv-bench not built: key/value comparison skipped"
fi

# ---------------------------------------------------------------- 6. summary and chart
log "summary"
python3 "$HERE/summarize.py" "$OUT" | tee "$OUT/summary.md"
[[ -f $OUT/skipped.txt ]] && cat "$OUT/skipped.txt"
if command -v gnuplot >/dev/null; then
  gnuplot -e "datafile='$OUT/chart.dat'; outfile='$OUT/chart.png'" "$HERE/chart.gp" &&
    echo "chart: $OUT/chart.png"
else
  echo "gnuplot not installed (apt-get install gnuplot-nox): no chart"
fi
