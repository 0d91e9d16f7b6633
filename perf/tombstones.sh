#!/usr/bin/env bash
# perf/tombstones.sh BUILDDIR OUT GIT [SIZES] [RUNS]: do deletions stay cheap? reftab beside
# git on stacks that hold K tombstones, for each K in SIZES ("10000 30000 100000" by
# default), in two variants made by git itself (GIT_TEST_REFTABLE_AUTOCOMPACTION=false, so
# the tombstones stay in their own table):
#   dead   K refs refs/heads/dead/<n> and 100 live refs/heads/live/<n> created in one
#          table, the K dead ones deleted in the next: every name below refs/heads/dead/ is
#          a tombstone over a ref of an older table;
#   mixed  2K refs refs/heads/mix/<n> created, every even one deleted: K tombstones
#          interleaved with K live refs.
# Per K and variant, one hyperfine invocation (RUNS runs, 5 by default, -N) per operation,
# reftab and git alternating:
#   lookup    show-ref --verify of a live ref (a seek: should not grow with K);
#   scan      for-each-ref --format=%(refname) (skips K tombstones);
#   update    update-ref --stdin of three refs, auto-compaction off: (dead) a ref whose
#             name has only tombstones below it (the D/F check must see through K of them),
#             an update and a create beside live refs; (mixed) a ref below a deleted name,
#             a deletion and an update;
#   creates   update-ref --stdin of 100 creates, auto-compaction off: (dead) in 100 new
#             directories just before the deleted run, whose checks must not walk it;
#             (mixed) below 100 deleted names spread over the range;
#   compact   reftab compact / git pack-refs --all (drops the tombstones: nothing older is
#             left for them to hide).
# It prints each median, and the median per tombstone (ns): flat as K grows means linear.
# The repositories are made once into ${REFTAB_TOMB_DIR:-DATA/tombstones}; the objects are
# perf/dataset.sh's 1,000 shared commits. With CALLGRIND=1, each command's instructions
# (valgrind, one run) and their slope too. Results: OUT/tombstones.txt and one JSON per
# hyperfine invocation.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(cd "$1" && pwd)
OUT=$2
GIT=$3
SIZES=${4:-10000 30000 100000}
RUNS=${5:-5}
DATA=${REFTAB_BENCH_DIR:-/tmp/reftab-bench}
TD=${REFTAB_TOMB_DIR:-$DATA/tombstones}
REFTAB=$BUILD/cli/reftab
mkdir -p "$OUT" "$DATA/home" "$TD"
OUT=$(cd "$OUT" && pwd)
# shellcheck source=perf/git_env.sh
source "$HERE/git_env.sh"
git_env "$DATA/home"
OBJ=$DATA/shared-objects-1000.git
# dataset.sh makes the 1,000 commits beside its smallest shape when they are missing.
[[ -f $OBJ/ids.txt ]] || GIT="$GIT" bash "$HERE/dataset.sh" "$BUILD" "$DATA" shared 1000

# make VARIANT K: the repository TD/VARIANT-K (once).
make() {
  local variant=$1 k=$2 dir=$TD/$1-$2 stamp="tombstones v2 $1 $2"
  [[ $(cat "$dir/.complete" 2>/dev/null) == "$stamp" ]] && return 0
  echo "tombstones: $variant, $k tombstones, into $dir"
  rm -rf "$dir"
  "$GIT" init -q --ref-format=reftable "$dir"
  echo "$OBJ/objects" >"$dir/.git/objects/info/alternates"
  "$GIT" -C "$dir" config core.logAllRefUpdates false
  "$GIT" -C "$dir" update-ref refs/heads/main "$(tail -1 "$OBJ/ids.txt")"
  local creates=$dir/creates.txt deletes=$dir/deletes.txt
  if [[ $variant == dead ]]; then
    awk -v k="$k" 'NR == FNR { id[NR - 1] = $1; next }
      END { for (i = 0; i < k; i++) printf "create refs/heads/dead/%07d %s\n", i, id[i % 1000];
            for (i = 0; i < 100; i++) printf "create refs/heads/live/%03d %s\n", i, id[i] }' \
      "$OBJ/ids.txt" /dev/null >"$creates"
    awk '$2 ~ /^refs\/heads\/dead\// { print "delete " $2 }' "$creates" >"$deletes"
  else
    awk -v k="$k" 'NR == FNR { id[NR - 1] = $1; next }
      END { for (i = 0; i < 2 * k; i++) printf "create refs/heads/mix/%07d %s\n", i, id[i % 1000] }' \
      "$OBJ/ids.txt" /dev/null >"$creates"
    awk 'substr($2, length($2)) ~ /[02468]/ { print "delete " $2 }' "$creates" >"$deletes"
  fi
  GIT_TEST_REFTABLE_AUTOCOMPACTION=false "$GIT" -C "$dir" update-ref --stdin <"$creates"
  GIT_TEST_REFTABLE_AUTOCOMPACTION=false "$GIT" -C "$dir" update-ref --stdin <"$deletes"
  local tables
  tables=$(grep -c . "$dir/.git/reftable/tables.list")
  [[ $tables == 3 ]] || { echo "tombstones.sh: $dir has $tables tables, not 3" >&2; exit 1; }
  # The update scenario's input: see the header.
  local main
  main=$(head -1 "$OBJ/ids.txt")
  if [[ $variant == dead ]]; then
    printf 'create refs/heads/dead %s\nupdate refs/heads/live/007 %s\ncreate refs/heads/live/100 %s\n' \
      "$main" "$main" "$main" >"$dir/update.txt"
    echo refs/heads/live/050 >"$dir/live.txt"
  else
    printf 'create refs/heads/mix/0000002/x %s\ndelete refs/heads/mix/0000003\nupdate refs/heads/mix/0000001 %s\n' \
      "$main" "$main" >"$dir/update.txt"
    printf 'refs/heads/mix/%07d\n' $((k | 1)) >"$dir/live.txt"
  fi
  rm -f "$creates" "$deletes"
  echo "$stamp" >"$dir/.complete"
}

W=$TD/scratch
: >"$OUT/tombstones.txt"
rm -f "$OUT/tombstones-ir.raw"
JSONS=()
for k in $SIZES; do
  for variant in dead mixed; do
    make "$variant" "$k"
    R=$TD/$variant-$k
    live=$(cat "$R/live.txt")
    NOAC=GIT_TEST_REFTABLE_AUTOCOMPACTION=false
    ID=$(head -1 "$OBJ/ids.txt")
    if [[ $variant == dead ]]; then
      awk -v id="$ID" 'BEGIN { for (i = 0; i < 100; i++) printf "create refs/heads/c%03d/x %s\n", i, id }'
    else
      awk -v id="$ID" -v k="$k" 'BEGIN { for (i = 0; i < 100; i++)
        printf "create refs/heads/mix/%07d/x %s\n", 2 * int(i * k / 100), id }'
    fi >"$TD/creates.txt"
    for op in lookup scan update creates compact; do
      # The repository the command runs in (a fresh copy for writes), its input, and the
      # arguments after the git directory of reftab's command and of git's.
      P="rm -rf $W && cp -a $R $W" D=$W IN=/dev/null
      case $op in
        lookup) P=true D=$R; RA=(show-ref --verify "$live"); GA=("${RA[@]}") ;;
        scan) P=true D=$R; RA=(for-each-ref '--format=%(refname)'); GA=("${RA[@]}") ;;
        update) IN=$R/update.txt; RA=(update-ref --stdin); GA=("${RA[@]}") ;;
        creates) IN=$TD/creates.txt; RA=(update-ref --stdin); GA=("${RA[@]}") ;;
        compact) RA=(compact); GA=(pack-refs --all) ;;
      esac
      J=$OUT/tombstones-$variant-$k-$op.json
      hyperfine -N --warmup 1 --runs "$RUNS" --style none --export-json "$J" \
        --prepare "bash -c '$P'" -n "reftab $op, $variant, $k tombstones" \
        "bash -c '$NOAC $REFTAB --git-dir $D/.git $(printf '%q ' "${RA[@]}")< $IN'" \
        --prepare "bash -c '$P'" -n "git $op, $variant, $k tombstones" \
        "bash -c '$NOAC $GIT --git-dir=$D/.git $(printf '%q ' "${GA[@]}")< $IN'" >/dev/null
      JSONS+=("$J")
      if [[ ${CALLGRIND:-0} == 1 ]]; then
        ir() {  # ir CMD...: instructions of one run, from a fresh copy
          bash -c "$P"
          GIT_TEST_REFTABLE_AUTOCOMPACTION=false valgrind --tool=callgrind \
            --callgrind-out-file=/dev/null "$@" <"$IN" 2>&1 >/dev/null |
            sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
        }
        echo "$op $variant $k $(ir "$REFTAB" --git-dir "$D/.git" "${RA[@]}")" \
          "$(ir "$GIT" --git-dir="$D/.git" "${GA[@]}")" >>"$OUT/tombstones-ir.raw"
      fi
    done
  done
done
rm -rf "$W" "$TD/creates.txt"
# One line per operation, variant and K: medians, git/reftab, per tombstone, and per
# tombstone added since the K before (the slope: flat as K grows means linear).
python3 - "$OUT/tombstones.txt" "${JSONS[@]}" <<'EOF2'
import json, re, statistics, sys
out, files = sys.argv[1], sys.argv[2:]
rows = {}
for f in files:
    res = json.load(open(f))["results"]
    med = {r["command"].split()[0]: statistics.median(r["times"]) for r in res}
    op, variant, k = re.match(r"\w+ (\w+), (\w+), (\d+) ", res[0]["command"]).groups()
    rows.setdefault((op, variant), []).append((int(k), med["reftab"], med["git"]))
lines = ["%-8s %-6s %7s %10s %10s %7s %9s %9s %9s %9s" % ("op", "shape", "K", "reftab ms",
         "git ms", "git/rt", "rt ns/K", "git ns/K", "rt slope", "git slope")]
for (op, variant), rs in sorted(rows.items()):
    prev = None
    for k, a, b in sorted(rs):
        slope = ("%9.1f %9.1f" % ((a - prev[1]) * 1e9 / (k - prev[0]), (b - prev[2]) * 1e9 / (k - prev[0]))
                 if prev else "%9s %9s" % ("", ""))
        lines.append("%-8s %-6s %7d %10.2f %10.2f %6.2fx %9.1f %9.1f %s" % (
            op, variant, k, a * 1e3, b * 1e3, b / a, a * 1e9 / k, b * 1e9 / k, slope))
        prev = (k, a, b)
# With CALLGRIND=1: instructions of one run each, and per tombstone added (the slope).
try:
    raw = [l.split() for l in open(out.replace(".txt", "-ir.raw"))]
except OSError:
    raw = []
if raw:
    lines += ["", "%-8s %-6s %7s %12s %12s %7s %9s %9s" % ("op", "shape", "K", "reftab Ir",
              "git Ir", "git/rt", "rt slope", "git slope")]
    ir = {}
    for op, variant, k, a, b in raw:
        ir.setdefault((op, variant), []).append((int(k), int(a), int(b)))
    for (op, variant), rs in sorted(ir.items()):
        prev = None
        for k, a, b in sorted(rs):
            slope = ("%9.1f %9.1f" % ((a - prev[1]) / (k - prev[0]), (b - prev[2]) / (k - prev[0]))
                     if prev else "")
            lines.append("%-8s %-6s %7d %12d %12d %6.2fx %s" % (op, variant, k, a, b, b / a, slope))
            prev = (k, a, b)
text = "\n".join(lines) + "\n"
open(out, "w").write(text)
print(text, end="")
EOF2
