#!/usr/bin/env bash
# perf/lock_contention.sh BUILDDIR GIT [RUNS] [PROCS] [ROUNDS]: how often writers give up on a
# busy repository, reftab beside git, and why.
#
# 1. Misses. PROCS processes (8) each run ROUNDS (25) single-ref `update-ref` commands on one
#    fresh reftable repository at once; a miss is a command that exited non-zero (the lock
#    stayed held past its timeout). Each of RUNS (20) runs does git and reftab in turn, the
#    first tool alternating run by run, at git's default lock timeout (100 ms) and at a
#    generous one (reftable.lockTimeout=1000).
# 2. Where a write spends its time, from `strace -ttt` of 20 uncontended single-ref updates
#    per tool: process start to holding tables.list.lock, and how long the lock is held (from
#    the O_EXCL create to the rename over tables.list), medians in milliseconds, plus the
#    system calls made while it is held.
# Prints one line per run and tool, then the totals and the timings.
set -euo pipefail
BUILD=$(cd "$1" && pwd)
G=$2
RUNS=${3:-20}
PROCS=${4:-8}
ROUNDS=${5:-25}
R=$BUILD/cli/reftab
W=$(mktemp -d "${TMPDIR:-/tmp}/reftab-locks.XXXXXX")
trap 'rm -rf "$W"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$W/home GIT_COMMITTER_NAME="C O Mitter" \
  GIT_COMMITTER_EMAIL=committer@example.com GIT_AUTHOR_NAME="A U Thor" \
  GIT_AUTHOR_EMAIL=author@example.com
mkdir -p "$HOME"

fresh() {  # fresh DIR: a reftable repository with one commit; prints its id
  rm -rf "$1" && "$G" init -q --ref-format=reftable "$1" &&
    "$G" -C "$1" commit -q --allow-empty -m base && "$G" -C "$1" rev-parse HEAD
}

writers() {  # writers TOOL REPO OID TIMEOUT: prints the number of failed commands
  local tool=$1 repo=$2 oid=$3 timeout=$4 cfg=() w
  [ "$timeout" = default ] || cfg=(-c "reftable.lockTimeout=$timeout")
  local bin=$G
  [ "$tool" = reftab ] && bin=$R
  for ((w = 0; w < PROCS; w++)); do
    (
      fails=0
      for ((k = 0; k < ROUNDS; k++)); do
        "$bin" -C "$repo" "${cfg[@]}" update-ref "refs/heads/w$w/k$k" "$oid" 2>/dev/null ||
          fails=$((fails + 1))
      done
      echo "$fails" >"$W/fails.$w"
    ) &
  done
  wait
  cat "$W"/fails.* | paste -sd+ | bc
  rm -f "$W"/fails.*
}

declare -A total
for timeout in default 1000; do
  total[git,$timeout]=0
  total[reftab,$timeout]=0
  for ((i = 1; i <= RUNS; i++)); do
    order=(git reftab)
    ((i % 2 == 0)) && order=(reftab git)
    for tool in "${order[@]}"; do
      oid=$(fresh "$W/repo")
      miss=$(writers "$tool" "$W/repo" "$oid" "$timeout")
      total[$tool,$timeout]=$((total[$tool,$timeout] + miss))
      printf 'timeout %-7s run %2d %-6s misses %3d of %d\n' "$timeout" "$i" "$tool" "$miss" \
        $((PROCS * ROUNDS))
    done
  done
done

echo
printf '%-16s %-10s %14s %14s\n' "lock timeout" runs "git misses" "reftab misses"
for timeout in default 1000; do
  printf '%-16s %-10s %8d of %d %8d of %d\n' "$timeout" "$RUNS" "${total[git,$timeout]}" \
    $((RUNS * PROCS * ROUNDS)) "${total[reftab,$timeout]}" $((RUNS * PROCS * ROUNDS))
done

if ! command -v strace >/dev/null; then
  echo "(strace not installed: no timings)"
  exit 0
fi
echo
# One strace of an uncontended update: start->lock and lock-held milliseconds, and the system
# calls made while the lock is held.
timing() {  # timing BIN REPO OID NAME
  strace -f -ttt -o "$W/st" "$1" -C "$2" update-ref "refs/heads/$4" "$3"
  awk 'NR == 1 { start = $2 }
       /tables\.list\.lock/ && /O_EXCL/ && !taken { taken = $2; next }
       taken && !released && /rename\(.*tables\.list\.lock/ { released = $2 }
       taken && !released { split($3, parts, "("); calls[parts[1]]++ }
       END {
         printf "%.3f %.3f", (taken - start) * 1000, (released - taken) * 1000
         for (name in calls) printf " %s:%d", name, calls[name]
         printf "\n"
       }' "$W/st"
}
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for tool in git reftab; do
  bin=$G
  [ "$tool" = reftab ] && bin=$R
  oid=$(fresh "$W/repo")
  : >"$W/times"
  for ((k = 0; k < 20; k++)); do timing "$bin" "$W/repo" "$oid" "t$k" >>"$W/times"; done
  printf '%-6s start->lock %6.2f ms  lock held %6.2f ms  calls while held (last run): %s\n' \
    "$tool" "$(cut -d' ' -f1 "$W/times" | median)" "$(cut -d' ' -f2 "$W/times" | median)" \
    "$(tail -1 "$W/times" | cut -d' ' -f3-)"
done
