#!/usr/bin/env bash
# perf/variants.sh BUILDDIR DATASET [REPS]: the ablations that need differently compiled code.
#
#   tracing    reftab-bench (trace_max_level 4: every trace call compiled in, REFTAB_TRACE
#              unset so all are off) against reftab-bench-notrace (compiled out);
#   inlining   reftab-bench against reftab-bench-noinline (the hot per-record helpers kept
#              out of line), by wall clock and by callgrind instruction counts.
# Wall clock: the two binaries run alternately, REPS times each, and each run reports its
# median ns/op; the table shows the median of those and the ratio. Instruction counts are
# exact and do not depend on the machine's load.
set -euo pipefail
BUILD=$1
DATA=$2
REPS=${3:-9}
B=$BUILD/perf/reftab-bench-static  # the production code, statically linked like the variants
V=$BUILD/perf/reftab-bench
ONE=$DATA/one
STACK=$DATA/stack
unset REFTAB_TRACE

median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
ns() { sed -n 's/.*median_ns_per_op=\([0-9.]*\).*/\1/p'; }

# compare LABEL VARIANT ARGS...: alternates the production binary and the variant.
compare() {
  local label=$1 variant=$2; shift 2
  local a=() b=()
  for ((i = 0; i < REPS; i++)); do
    if ((i % 2 == 0)); then
      a+=("$("$B" "$@" | ns)"); b+=("$("$V-$variant" "$@" | ns)")
    else
      b+=("$("$V-$variant" "$@" | ns)"); a+=("$("$B" "$@" | ns)")
    fi
  done
  local ma mb
  ma=$(printf '%s\n' "${a[@]}" | median)
  mb=$(printf '%s\n' "${b[@]}" | median)
  printf '| %-34s | %10.2f | %10.2f | %6.3f |\n' "$label" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
}

echo "### Tracing compiled in (level 4, off at run time) vs compiled out"
echo
echo "| workload (ns/op, median of $REPS runs) | compiled in | compiled out | out/in |"
echo "|---|---|---|---|"
compare "scan, one table" notrace scan "$ONE" 5
compare "scan, 9-table stack" notrace scan "$STACK" 3
compare "lookup, one table" notrace lookup "$ONE" "$DATA/NAMES.txt" 3
compare "lookup, 9-table stack" notrace lookup "$STACK" "$DATA/NAMES.txt" 2
echo
echo "### Hot helpers inlined (production) vs kept out of line (REFTAB_ABLATE_NOINLINE)"
echo
echo "| workload (ns/op, median of $REPS runs) | inlined | out of line | out/in |"
echo "|---|---|---|---|"
compare "scan, one table" noinline scan "$ONE" 5
compare "scan, 9-table stack" noinline scan "$STACK" 3
compare "lookup, one table" noinline lookup "$ONE" "$DATA/NAMES.txt" 3
compare "prefix refs/tags/, one table" noinline prefix "$ONE" refs/tags/ 5

if command -v valgrind >/dev/null; then
  echo
  echo "### Instructions per op (callgrind, one rep; includes the iterator set-up)"
  echo
  echo "| workload | inlined | out of line | out/in |"
  echo "|---|---|---|---|"
  head -20000 "$DATA/NAMES.txt" >"$DATA/scratch/names20k.txt"
  ir() {  # ir BINARY ARGS...: total instructions
    valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
      sed -n 's/.*Collected : \([0-9]*\).*/\1/p; s/.*refs: *\([0-9,]*\).*/\1/p' | tr -d , | tail -1
  }
  cg() {  # cg LABEL OPS ARGS...   (VARIANT=noinline|notrace, default noinline)
    local label=$1 ops=$2; shift 2
    local a b
    a=$(ir "$B" "$@")
    b=$(ir "$V-${VARIANT:-noinline}" "$@")
    printf '| %-34s | %8.1f | %8.1f | %6.3f |\n' "$label" "$(echo "$a / $ops" | bc -l)" \
      "$(echo "$b / $ops" | bc -l)" "$(echo "$b / $a" | bc -l)"
  }
  cg "scan, one table (per ref)" 1000002 scan "$ONE" 1
  cg "scan, 9-table stack (per ref)" 1000002 scan "$STACK" 1
  cg "lookup, one table (per lookup)" 20000 lookup "$ONE" "$DATA/scratch/names20k.txt" 1
  cg "lookup, 9-table stack (per lookup)" 20000 lookup "$STACK" "$DATA/scratch/names20k.txt" 1
  echo
  echo "### Tracing: instructions per op, compiled in (off at run time) vs compiled out"
  echo
  echo "| workload | compiled in | compiled out | out/in |"
  echo "|---|---|---|---|"
  VARIANT=notrace cg "scan, one table (per ref)" 1000002 scan "$ONE" 1
  VARIANT=notrace cg "scan, 9-table stack (per ref)" 1000002 scan "$STACK" 1
  VARIANT=notrace cg "lookup, one table (per lookup)" 20000 lookup "$ONE" "$DATA/scratch/names20k.txt" 1
  VARIANT=notrace cg "lookup, 9-table stack (per lookup)" 20000 lookup "$STACK" "$DATA/scratch/names20k.txt" 1
  echo
  echo "(whole-process counts divided by the ops: process start, opening the stack and reading"
  echo "the names are included, which adds a few percent to the lookup rows)"
fi
