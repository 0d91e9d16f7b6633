#!/usr/bin/env bash
# perf/startup_order.sh BUILDDIR GIT > cli/startup_order.txt
#
# Lists every function the CLI's everyday one-shot commands execute (show-ref --verify and
# --exists, rev-parse, symbolic-ref, update-ref, for-each-ref, pack-refs on a small reftable
# repository made by GIT, a reftable-capable git), one mangled symbol per line, the
# benchmarked show-ref --verify first. cli/meson.build hands the list to lld
# (--symbol-ordering-file), which lays those functions out together at the start of the
# text: a command then touches a few 64 KiB windows of the 4 MiB binary instead of one
# per function it calls, and each window is a page fault at start (about 25 of 80 for
# show-ref --verify; perf/RESULTS.md). A stale list costs only locality, never
# correctness: rerun this after changing what those commands call.
set -euo pipefail
BUILD=$1
GIT=$2
R=$BUILD/cli/reftab
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
export GIT_CONFIG_NOSYSTEM=1 HOME=$T GIT_COMMITTER_NAME="C O Mitter" \
  GIT_COMMITTER_EMAIL=committer@example.com GIT_COMMITTER_DATE="1700000000 +0000" \
  GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com \
  GIT_AUTHOR_DATE="1700000000 +0000"
"$GIT" init -q --ref-format=reftable -b main "$T/repo"
"$GIT" -C "$T/repo" commit -q --allow-empty -m one
"$GIT" -C "$T/repo" tag -a -m tag v1
"$GIT" -C "$T/repo" branch topic
# The benchmarked repositories have a table large enough for an index and their objects in
# a pack behind an alternate: a second repository of that shape (one table, then a stack of
# four), so the list holds the index descent, the stack lookup and the pack index lookup.
"$GIT" init -q --bare --ref-format=reftable "$T/objects.git"
"$GIT" -C "$T/repo" push -q "$T/objects.git" main
"$GIT" -C "$T/objects.git" repack -adq
"$GIT" init -q --ref-format=reftable -b main "$T/big"
echo "$T/objects.git/objects" > "$T/big/.git/objects/info/alternates"
head=$("$GIT" -C "$T/repo" rev-parse HEAD)
for ((i = 0; i < 4000; i++)); do echo "create refs/heads/feature/user-$i/topic $head"; done |
  "$GIT" -C "$T/big" update-ref --stdin
"$GIT" -C "$T/big" pack-refs --all
n=0
run() {
  n=$((n + 1))
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$T/cg.$n" \
    "$R" --git-dir "$T/repo/.git" "$@" >/dev/null 2>&1 || true
}
run show-ref --verify refs/heads/main
run_big() {
  valgrind --tool=callgrind --demangle=no --callgrind-out-file="$T/cg.$1" \
    "$R" --git-dir "$T/big/.git" show-ref --verify refs/heads/feature/user-2000/topic \
    >/dev/null 2>&1 || true
}
run_big big
for i in 1 2 3; do "$GIT" -C "$T/big" update-ref refs/heads/later-$i "$head"; done
run_big bigstack
run show-ref --exists refs/heads/topic
run show-ref
run rev-parse --verify HEAD
run symbolic-ref HEAD
run for-each-ref --format='%(refname) %(objectname)'
run update-ref refs/heads/new HEAD
run update-ref -d refs/heads/new
run pack-refs --auto
# What valgrind's run cannot show comes first, since every command runs it at start: the
# setup of the vDSO (valgrind gives its guest none) and crtbegin's init and fini helpers,
# then, for each string function the run used, its AVX-512 variants (valgrind's CPU has no
# AVX-512, so glibc picked the AVX2 ones there; a real CPU with it runs the others).
printf '%s\n' _dl_new_object _dl_setup_hash _dl_add_to_namespace_list _dl_lookup_symbol_x \
  do_lookup_x check_match frame_dummy register_tm_clones deregister_tm_clones \
  __do_global_dtors_aux >"$T/extra"
# "fn=(id) name" introduces a function the first time a file names it; later mentions are
# "fn=(id)". Addresses without a symbol (0x...) are left out.
for f in "$T/cg.big" "$T/cg.bigstack" $(for ((i = 1; i <= n; i++)); do echo "$T/cg.$i"; done); do
  sed -n -E 's/^c?fn=\([0-9]+\) (.*)$/\1/p' "$f"
done | grep -v '^0x' >"$T/ran"
nm "$R" | awk '$2 ~ /^[tT]$/ {print $3}' >"$T/symbols"
sed -n -E 's/^(__[a-z0-9]+)_(avx2|avx|sse2)_?.*$/\1/p' "$T/ran" | sort -u | while read -r base; do
  grep -E "^${base}_(evex|avx512)" "$T/symbols" || true
done >>"$T/extra"
cat "$T/extra" "$T/ran" | awk '!seen[$0]++'
