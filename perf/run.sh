#!/usr/bin/env bash
# perf/run.sh [BUILDDIR] [RESULTS]: the benchmark suite of issue 4.
#
#   1. generates the dataset once (reftab gen) into ${REFTAB_BENCH_DIR:-/tmp/reftab-bench};
#   2. in-process figures: reftab-bench on both layouts, as ratios to git's figures;
#   3. CLI scenarios with hyperfine (lookup, full listing, prefix listing, writing 1M refs,
#      compaction of the 9-table stack), exported as JSON and Markdown;
#   4. the ablations (reftab-ablate) and the compiled variants (tracing compiled in but off
#      vs compiled out; hot helpers inlined vs out of line);
#   5. peak memory of a scan and of writing 1M refs (/usr/bin/time -v);
#   6. results/summary.md and results/chart.png (gnuplot, if installed).
# Also run by `meson test -C BUILDDIR --benchmark`. Set QUICK=1 for fewer repetitions.
# The machine this was written on is a noisy 2-core VM: every comparison that matters is
# made within one run (alternating variants, or one hyperfine invocation), medians only.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "${1:-$HERE/../build}" && pwd)
OUT=${2:-$HERE/results}
DATA=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
REFTAB=$BUILD/cli/reftab
BENCH=$BUILD/perf/reftab-bench
ABLATE=$BUILD/perf/reftab-ablate
QUICK=${QUICK:-0}
if [[ $QUICK == 1 ]]; then REPS=5 RUNS=5 ABLATE_REPS=3; else REPS=15 RUNS=20 ABLATE_REPS=9; fi
mkdir -p "$OUT"
# The compiled variants are not built by default; build them (and anything stale) now.
ninja -C "$BUILD" cli/reftab perf/reftab-bench perf/reftab-ablate \
  perf/reftab-bench-static perf/reftab-bench-notrace perf/reftab-bench-noinline >/dev/null
for b in "$REFTAB" "$BENCH" "$ABLATE"; do
  [[ -x $b ]] || { echo "run.sh: missing $b (build first: ninja -C $BUILD)" >&2; exit 1; }
done
log() { printf '\n== %s\n' "$*"; }

# ---------------------------------------------------------------- 1. dataset
STAMP="reftab-gen v1"
if [[ $(cat "$DATA/.complete" 2>/dev/null) != "$STAMP" ]]; then
  log "generating the dataset in $DATA"
  rm -rf "$DATA"
  "$REFTAB" gen "$DATA"
  echo "$STAMP" >"$DATA/.complete"
fi
ONE=$DATA/one
STACK=$DATA/stack
ONE_TABLE=$ONE/$(head -1 "$ONE/tables.list")
SCRATCH=$DATA/scratch
mkdir -p "$SCRATCH"
# Inputs of the write scenarios, derived once: jsonl for write-table, git's --stdin language.
[[ -f $DATA/refs.jsonl ]] || "$REFTAB" dump "$ONE_TABLE" >"$DATA/refs.jsonl"
[[ -f $DATA/update-stdin.txt ]] ||
  awk '{ print "create " $2 " " $1 }' "$DATA/IN.txt" >"$DATA/update-stdin.txt"

# ---------------------------------------------------------------- 2. in-process figures
log "in-process: reftab-bench ($REPS reps each, medians)"
BENCH_TXT=$OUT/bench.txt
: >"$BENCH_TXT"
bench() {  # bench LABEL ARGS...: one reftab-bench line, prefixed with a label
  local label=$1; shift
  local line
  line=$(REFTAB_BENCH_REPS=$REPS "$BENCH" "$@")
  printf '%-14s %s\n' "$label" "$line" | tee -a "$BENCH_TXT"
}
bench scan-one scan "$ONE" "$REPS"
bench scan-stack scan "$STACK" "$REPS"
bench lookup-one lookup "$ONE" "$DATA/NAMES.txt" "$REPS"
bench lookup-stack lookup "$STACK" "$DATA/NAMES.txt" "$REPS"
bench prefix-one prefix "$ONE" refs/tags/ "$REPS"
bench prefix-stack prefix "$STACK" refs/tags/ "$REPS"
bench write-obj write "$DATA/IN.txt" "$SCRATCH/w.ref"
bench write-noobj write "$DATA/IN.txt" "$SCRATCH/w.ref" noobj
# The write mode must produce git's bytes: the same input through the CLI writer (whose
# output the contract checks compare with git's) must give the same file.
"$BENCH" write "$DATA/IN.txt" "$SCRATCH/bench.ref" >/dev/null
awk '{ printf "{\"type\":\"ref\",\"name\":\"%s\",\"update_index\":1,\"value_type\":1,\"value\":\"%s\"}\n", $2, $1 }' \
  "$DATA/IN.txt" | "$REFTAB" write-table --min-update-index 1 --max-update-index 1 "$SCRATCH/cli.ref" 2>/dev/null &&
  if cmp -s "$SCRATCH/bench.ref" "$SCRATCH/cli.ref"; then
    echo "write: reftab-bench output is byte-identical to reftab write-table's" | tee -a "$BENCH_TXT"
  else
    echo "write: WARNING reftab-bench output differs from reftab write-table's" | tee -a "$BENCH_TXT"
  fi
rm -f "$SCRATCH/bench.ref" "$SCRATCH/cli.ref" "$SCRATCH/w.ref"

# ---------------------------------------------------------------- 3. CLI scenarios
log "CLI scenarios (hyperfine, $RUNS runs, -N)"
HF=(hyperfine -N --warmup 2 --min-runs "$RUNS" --style basic)
NAME=refs/heads/feature/user-2000/topic-100
"${HF[@]}" --export-json "$OUT/cli-lookup.json" --export-markdown "$OUT/cli-lookup.md" \
  -n "show-ref --verify, one table" "$REFTAB --stack $ONE show-ref --verify $NAME" \
  -n "show-ref --verify, 9-table stack" "$REFTAB --stack $STACK show-ref --verify $NAME"
"${HF[@]}" --export-json "$OUT/cli-list.json" --export-markdown "$OUT/cli-list.md" \
  -n "for-each-ref, one table" "$REFTAB --stack $ONE for-each-ref --format=%(refname)" \
  -n "for-each-ref, 9-table stack" "$REFTAB --stack $STACK for-each-ref --format=%(refname)" \
  -n "for-each-ref refs/tags/, one table" "$REFTAB --stack $ONE for-each-ref --format=%(refname) refs/tags/" \
  -n "for-each-ref refs/tags/, 9-table stack" "$REFTAB --stack $STACK for-each-ref --format=%(refname) refs/tags/"
W=$SCRATCH/w
# One --prepare per command, run before each timing run: an empty stack for the writes, a
# fresh copy of the 9-table stack for the compaction (the copy is not timed).
hyperfine -N --warmup 1 --style basic --runs "$(( RUNS < 10 ? RUNS : 10 ))" \
  --export-json "$OUT/cli-write.json" --export-markdown "$OUT/cli-write.md" \
  --prepare "bash -c 'rm -rf $W && mkdir -p $W'" \
  --prepare "bash -c 'rm -rf $W && mkdir -p $W'" \
  --prepare "bash -c 'rm -rf $W && mkdir -p $W && cp $STACK/* $W/'" \
  -n "update-ref --stdin, 1M creates" "bash -c '$REFTAB --stack $W update-ref --stdin < $DATA/update-stdin.txt'" \
  -n "write-table from jsonl, 1M refs" "bash -c '$REFTAB write-table $W/t.ref < $DATA/refs.jsonl'" \
  -n "compact the 9-table stack" "$REFTAB --stack $W compact"
rm -rf "$W"

# ---------------------------------------------------------------- 4. ablations, variants
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
mem "for-each-ref, one table" "$REFTAB" --stack "$ONE" for-each-ref --format='%(refname)'
echo "(the table file is $(stat -c %s "$ONE_TABLE") bytes; a scan maps it, so its pages" \
  "count as file-backed RSS, not heap)" | tee -a "$MEM_TXT"
REFTAB_BENCH_MEM=1 "$BENCH" scan "$ONE" 1 2>&1 >/dev/null | tee -a "$MEM_TXT"
rm -f "$SCRATCH/m.ref" "$SCRATCH/time.txt"

# ---------------------------------------------------------------- 6. summary and chart
log "summary"
python3 "$HERE/summarize.py" "$OUT" | tee "$OUT/summary.md"
if command -v gnuplot >/dev/null; then
  gnuplot -e "datafile='$OUT/chart.dat'; outfile='$OUT/chart.png'" "$HERE/chart.gp" &&
    echo "chart: $OUT/chart.png"
else
  echo "gnuplot not installed (apt-get install gnuplot-nox): no chart"
fi
