#!/usr/bin/env bash
# perf/scale.sh BUILDDIR [SCALE...]: issue 8's scale runs. For each SCALE (default 0.1 10:
# 100,002 and 10,000,002 refs; 1 is run.sh's dataset) the dataset of perf/bench_dataset.h is
# generated with `reftab-bench gen --scale` into $REFTAB_BENCH_DIR/scale-SCALE (generated
# ids: these runs read and write tables only, no git command needs the objects), written
# again by git's library when git-reftable-bench is built (so both drivers read git's
# tables), and the in-process modes run with both drivers alternately (A B A B), as in
# run.sh. Output: one line per mode and scale, medians in ns per op and git/reftab.
# 10M refs need about 1.5 GB of disk (check df first) and 2 GB of memory for `write`.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
shift
SCALES=("$@")
[[ $# -eq 0 ]] && SCALES=(0.1 10)
DATA=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
BENCH=$BUILD/perf/reftab-bench
GITBENCH=$BUILD/perf/git-reftable-bench
[[ -x $GITBENCH ]] || GITBENCH=
ALT=${ALT:-3}
export REFTAB_BENCH_REPS=${REFTAB_BENCH_REPS:-3}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
field() { sed 's/.*median_ns_per_op=\([0-9.]*\).*/\1/'; }
# pair LABEL ARGS...: ALT runs of each driver, alternating which goes first; medians.
pair() {
  local label=$1 i a=() b=()
  shift
  for ((i = 0; i < ALT; i++)); do
    if ((i % 2)) && [[ -n $GITBENCH ]]; then b+=("$("$GITBENCH" "$@" | field)"); fi
    a+=("$("$BENCH" "$@" | field)")
    if ! ((i % 2)) && [[ -n $GITBENCH ]]; then b+=("$("$GITBENCH" "$@" | field)"); fi
  done
  local ma mb
  ma=$(printf '%s\n' "${a[@]}" | median)
  if [[ -n $GITBENCH ]]; then
    mb=$(printf '%s\n' "${b[@]}" | median)
    printf '%-8s %-14s reftab %10.2f  git %10.2f  git/reftab %6.2fx\n' "$S" "$label" "$ma" "$mb" \
      "$(echo "$mb / $ma" | bc -l)"
  else
    printf '%-8s %-14s reftab %10.2f\n' "$S" "$label" "$ma"
  fi
}
for S in "${SCALES[@]}"; do
  D=$DATA/scale-$S
  if [[ ! -f $D/.complete ]]; then
    rm -rf "$D" && mkdir -p "$D"
    "$BENCH" gen "$D/gen" --scale "$S" -q
    mv "$D/gen/IN.txt" "$D/gen/NAMES.txt" "$D/"
    for layout in one stack; do
      if [[ -n $GITBENCH ]]; then
        "$GITBENCH" rewrite "$D/gen/$layout" "$D/$layout"
      else
        mv "$D/gen/$layout" "$D/$layout"
      fi
    done
    rm -rf "$D/gen"
    touch "$D/.complete"
  fi
  echo "== scale $S: $(($(wc -l <"$D/IN.txt") + 1)) refs, one table of" \
    "$(du -b "$D/one" | cut -f1) bytes, $(wc -l <"$D/NAMES.txt") lookup names"
  pair scan-one scan "$D/one"
  pair scan-stack scan "$D/stack"
  pair lookup-one lookup "$D/one" "$D/NAMES.txt"
  pair lookup-stack lookup "$D/stack" "$D/NAMES.txt"
  pair prefix-one prefix "$D/one" refs/tags/
  pair write-obj write "$D/IN.txt" "$D/w.ref"
  pair write-noobj write "$D/IN.txt" "$D/w.ref" noobj
  rm -f "$D/w.ref"
done
