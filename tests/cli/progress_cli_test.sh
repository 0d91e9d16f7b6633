#!/usr/bin/env bash
# Progress lines of long commands seen from outside (cli/progress.h): nothing on stderr when
# it is not a terminal and no --progress is given (the git comparisons depend on it);
# --progress forces git's lines, ending with "Title: 100% (N/N), done."; --no-progress wins
# over a terminal. GIT_PROGRESS_DELAY=0 so that no clock decides what is drawn.
# Usage: progress_cli_test.sh REFTAB
set -euo pipefail
REFTAB=$(realpath "$1")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
export GIT_PROGRESS_DELAY=0 GIT_CONFIG_NOSYSTEM=1 HOME=$T
export GIT_COMMITTER_NAME=C GIT_COMMITTER_EMAIL=c@example.com GIT_COMMITTER_DATE='1700000000 +0000'
N=500
A=1111111111111111111111111111111111111111
for ((i = 0; i < N; i++)); do printf 'create refs/heads/b%04d %s\n' "$i" "$A"; done >"$T/in"
# The last line of each phase, as the terminal shows it once the \r-redraws are done.
finals() { tr '\r' '\n' <"$1" | grep ', done\.$' || true; }

# update-ref --stdin: silent by default with stderr to a file.
mkdir "$T/s1" "$T/s2" "$T/s3"
"$REFTAB" --stack "$T/s1" update-ref --stdin <"$T/in" 2>"$T/err"
[[ ! -s $T/err ]] || fail "update-ref printed without --progress: $(cat "$T/err")"
# --progress forces both phases.
"$REFTAB" --stack "$T/s2" update-ref --progress --stdin <"$T/in" 2>"$T/err"
want="Checking references: 100% ($N/$N), done.
Updating references: 100% ($N/$N), done."
[[ $(finals "$T/err") == "$want" ]] || fail "update-ref --progress: $(cat -v "$T/err")"
# --no-progress after --progress: the last one wins, as in git.
"$REFTAB" --stack "$T/s3" update-ref --progress --no-progress --stdin <"$T/in" 2>"$T/err"
[[ ! -s $T/err ]] || fail "update-ref --no-progress printed: $(cat "$T/err")"
cmp <("$REFTAB" --stack "$T/s1" show-ref) <("$REFTAB" --stack "$T/s2" show-ref) ||
  fail "--progress changed what update-ref wrote"

# Under a pseudo-terminal (util-linux script, when installed) the line appears unasked, and
# --no-progress silences it.
if command -v script >/dev/null; then
  mkdir "$T/s4" "$T/s5"
  script -qec "'$REFTAB' --stack '$T/s4' update-ref --stdin <'$T/in' >/dev/null" /dev/null \
    >"$T/tty" </dev/null
  finals "$T/tty" | grep -q "^Updating references: 100% ($N/$N), done\.$" ||
    fail "no progress on a terminal: $(cat -v "$T/tty")"
  script -qec "'$REFTAB' --stack '$T/s5' update-ref --no-progress --stdin <'$T/in'" /dev/null \
    >"$T/tty" </dev/null
  [[ ! -s $T/tty ]] || fail "--no-progress printed on a terminal: $(cat -v "$T/tty")"
else
  echo "no script(1): the pseudo-terminal cases are skipped"
fi

# refs migrate, both ways, on a files repository made by hand (no git needed).
G=$T/repo/.git
mkdir -p "$G/objects" "$G/refs/heads" "$G/refs/tags" "$G/logs/refs/heads"
printf 'ref: refs/heads/b0000\n' >"$G/HEAD"
printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' >"$G/config"
{
  echo '# pack-refs with: peeled fully-peeled sorted '
  for ((i = 0; i < N; i++)); do printf '%s refs/heads/b%04d\n' "$A" "$i"; done
} >"$G/packed-refs"
printf '%s %s C <c@example.com> 1700000000 +0000\tbranch: Created\n' \
  0000000000000000000000000000000000000000 "$A" >"$G/logs/refs/heads/b0000"
cd "$T/repo"
"$REFTAB" refs migrate --ref-format=reftable --dry-run 2>"$T/err" >/dev/null
[[ ! -s $T/err ]] || fail "migrate printed without --progress: $(cat "$T/err")"
rm -rf "$G"/ref_migration.*
"$REFTAB" refs migrate --ref-format=reftable --progress 2>"$T/err"
# The refs are the branches and HEAD; the records written add the one reflog entry.
want="Reading refs: $((N + 1)), done.
Reading reflogs: 1, done.
Writing refs: 100% ($((N + 2))/$((N + 2))), done."
[[ $(finals "$T/err") == "$want" ]] || fail "migrate to reftable --progress: $(cat -v "$T/err")"
"$REFTAB" refs migrate --ref-format=files --progress 2>"$T/err"
want="Reading refs: $((N + 1)), done.
Reading reflogs: 1, done.
Writing refs: 2, done."
[[ $(finals "$T/err") == "$want" ]] || fail "migrate to files --progress: $(cat -v "$T/err")"
"$REFTAB" refs migrate --ref-format=reftable --no-progress 2>"$T/err"
[[ ! -s $T/err ]] || fail "migrate --no-progress printed: $(cat "$T/err")"
echo "progress: all cases passed"
