#!/usr/bin/env bash
# The library's tracing (store/trace.h) seen from outside: REFTAB_TRACE picks the level at
# run time, nothing is printed without it, and each level adds the paths it promises
# (2: open/reload/compaction decisions, 3: locking, 4: block reads).
# Usage: trace_test.sh REFTAB
set -euo pipefail
REFTAB=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
A=1111111111111111111111111111111111111111
B=2222222222222222222222222222222222222222

# Off by default: a write, a lookup and a compaction print nothing on stderr.
unset REFTAB_TRACE
# Keep every write its own table, so that compaction has something to decide.
export GIT_TEST_REFTABLE_AUTOCOMPACTION=false
mkdir "$T/s"
"$REFTAB" --stack "$T/s" update-ref refs/heads/a $A 2>"$T/err"
"$REFTAB" --stack "$T/s" update-ref refs/heads/b $B 2>>"$T/err"
"$REFTAB" --stack "$T/s" show-ref --verify refs/heads/a >/dev/null 2>>"$T/err"
"$REFTAB" --stack "$T/s" compact 2>>"$T/err"
[[ ! -s $T/err ]] || fail "trace output without REFTAB_TRACE: $(cat "$T/err")"

# An unparsable level is off too.
REFTAB_TRACE=verbose "$REFTAB" --stack "$T/s" show-ref --verify refs/heads/a >/dev/null 2>"$T/err"
[[ ! -s $T/err ]] || fail "REFTAB_TRACE=verbose printed: $(cat "$T/err")"

# Level 2: reload and compaction decisions, no locking or block lines.
"$REFTAB" --stack "$T/s" update-ref refs/heads/c $A
REFTAB_TRACE=2 "$REFTAB" --stack "$T/s" compact 2>"$T/err"
grep -q '^reftab trace\[2\] .*loaded tables.list: 2 table(s)' "$T/err" || fail "no reload line: $(cat "$T/err")"
grep -q '^reftab trace\[2\] .*compacting tables 0\.\.1 of 2 (down to the base' "$T/err" ||
  fail "no compaction decision: $(cat "$T/err")"
grep -q 'opened, [0-9]* bytes, version 1' "$T/err" || fail "no table open line: $(cat "$T/err")"
! grep -q 'trace\[[34]\]' "$T/err" || fail "level 2 printed finer levels: $(cat "$T/err")"

# Level 3: locking.
REFTAB_TRACE=3 "$REFTAB" --stack "$T/s" update-ref refs/heads/d $B 2>"$T/err"
grep -q '^reftab trace\[3\] .*tables.list.lock: taken' "$T/err" || fail "no lock line: $(cat "$T/err")"
grep -q 'tables.list: committed' "$T/err" || fail "no list commit line: $(cat "$T/err")"
! grep -q 'trace\[4\]' "$T/err" || fail "level 3 printed block reads: $(cat "$T/err")"

# Level 4: block reads.
REFTAB_TRACE=4 "$REFTAB" --stack "$T/s" show-ref --verify refs/heads/a >/dev/null 2>"$T/err"
grep -q '^reftab trace\[4\] .*ref block at [0-9]* (lookup): read' "$T/err" ||
  fail "no block read line: $(cat "$T/err")"

# A held lock is reported at level 3 before the command gives up.
touch "$T/s/tables.list.lock"
if REFTAB_TRACE=3 "$REFTAB" --stack "$T/s" update-ref refs/heads/e $A 2>"$T/err"; then
  fail "update-ref succeeded with tables.list.lock held"
fi
grep -q 'held by someone else' "$T/err" || fail "no lock wait line: $(cat "$T/err")"
echo "trace test: ok"
