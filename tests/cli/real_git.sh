# Sourced by the scripts that compare reftab with the real git. They speak TAP (meson's
# protocol 'tap'): one line per case compared, so that meson, its JUnit log and the test
# command's closing line count every comparison, not one per script.

# find_real_git MINOR WHY: sets $git to $REFTAB_GIT, else to the `git` on PATH when it is at
# least 2.MINOR. Without one the script is skipped (a TAP plan of 0), unless
# REFTAB_REQUIRE_GIT is set (the test command sets it, having built git): then it bails out,
# and the test fails, since a comparison that silently skips checks nothing.
find_real_git() {
  local minor=$1 why=$2 v=
  git=${REFTAB_GIT:-}
  if [ -n "$git" ]; then
    "$git" --version >/dev/null 2>&1 && return 0
    v="REFTAB_GIT=$git does not run"
  elif v=$(command git --version 2>/dev/null) && [[ $v =~ ([0-9]+)\.([0-9]+) ]] &&
     { [ "${BASH_REMATCH[1]}" -gt 2 ] || [ "${BASH_REMATCH[2]}" -ge "$minor" ]; }; then
    git=git
    return 0
  fi
  why="no REFTAB_GIT and no git >= 2.$minor on PATH (found: ${v:-none}); $why"
  if [ -n "${REFTAB_REQUIRE_GIT:-}" ]; then
    echo "Bail out! REFTAB_REQUIRE_GIT is set but there is no usable git: $why"
    exit 1
  fi
  echo "1..0 # SKIP $why"
  exit 0
}

# isolate_git_env: a scratch folder $tmp (removed on exit) as HOME, no system or global git
# config, UTC and the C locale, a fixed committer name and email, and no GIT_DIR or
# GIT_WORK_TREE from the caller, so git and reftab see the same, reproducible world. Each
# script sets its own dates and author.
isolate_git_env() {
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  export HOME=$tmp GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null TZ=UTC LC_ALL=C
  export GIT_COMMITTER_NAME='C O Mitter' GIT_COMMITTER_EMAIL=c@example.com
  unset GIT_DIR GIT_WORK_TREE
}

# ---------------------------------------------------------------------------- verdicts
# KNOWN[DESC]: why case DESC may differ from git. Such a case is reported as a TAP "TODO"
# (an expected failure) when it differs, and counted apart.
declare -A KNOWN=()
compared=0 identical=0 known_diff=0 failed=0

# verdict DESC WHY: one TAP line for case DESC, which agrees with git when WHY is empty.
# WHY goes below a differing case as TAP comments. A case that agrees costs no subprocess:
# a script gives thousands.
verdict() {
  local desc=$1 why=$2 name=$1
  # Names hold any byte: control bytes are quoted, and '#' would start a TAP directive.
  [[ $name == *[[:cntrl:]]* ]] && printf -v name '%q' "$name"
  name=${name//#/%23}
  compared=$((compared + 1))
  if [ -z "$why" ]; then
    identical=$((identical + 1))
    echo "ok $compared - $name"
    return
  fi
  if [ -n "${KNOWN[$desc]:-}" ]; then
    known_diff=$((known_diff + 1))
    echo "not ok $compared - $name # TODO known difference: ${KNOWN[$desc]//#/%23}"
  else
    failed=$((failed + 1))
    echo "not ok $compared - $name"
  fi
  printf '%s\n' "$why" | cat -v | sed 's/^/# /'
}

# verdict_end: the plan, a summary as a TAP comment, and the exit status (0 when no case
# failed; known differences do not fail).
verdict_end() {
  echo "1..$compared"
  echo "# git comparison: $compared compared, $identical identical, $known_diff known differences, $failed different ($("$git" --version))"
  [ "$failed" = 0 ]
}

# ---------------------------------------------------------------- on a terminal
# on_tty OUT ENVS CMD...: CMD on a pseudo-terminal (util-linux's script: standard output and
# error both show there; standard input is /dev/null), with `env ENVS TERM=xterm` (ENVS
# word-split: "NAME=VALUE", "-u NAME") and $tmp/bin first on PATH, where pager_scripts puts
# its pagers. OUT gets what the terminal showed, then "exit N". Needs `script` (have_tty).
have_tty() { command -v script >/dev/null; }
on_tty() {
  local out=$1 envs=$2; shift 2
  # shellcheck disable=SC2086
  env $envs TERM=xterm PATH="$tmp/bin:$PATH" script -qec "$(printf '%q ' "$@")" /dev/null \
    </dev/null >"$out"
  echo "exit $?" >>"$out"
}
# pager_scripts: pagers on $tmp/bin that mark each line they show: ppager "P:", cpager "C:".
pager_scripts() {
  mkdir -p "$tmp/bin"
  printf '#!/bin/sh\nsed "s/^/P:/"\n' >"$tmp/bin/ppager"
  printf '#!/bin/sh\nsed "s/^/C:/"\n' >"$tmp/bin/cpager"
  chmod +x "$tmp/bin/ppager" "$tmp/bin/cpager"
}

# ---------------------------------------------------- the same repository, byte for byte
# same_files DIR1 DIR2: succeeds when the two trees hold the same paths with the same types,
# modes and contents, reading each reftable table's name without its random suffix (and so
# tables.list too). Two git directories that pass are the same repository to any reader:
# whatever git prints of one it prints of the other. The scripts that compare git's view of
# two repositories after a write ask this first, and run git's many readers only when it
# fails: a few processes per case instead of dozens, with no weaker check.
same_files() {
  cmp -s <(files_stream "$1") <(files_stream "$2")
}
# files_stream DIR: DIR as a tar stream (names sorted, times and owners zeroed, tables
# renamed), then every tables.list's lines with their file and number, tables renamed.
files_stream() {
  cd "$1" || return
  local table='0x[0-9a-f]\{12\}-0x[0-9a-f]\{12\}'
  tar -cf - --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner \
    --transform="s/\($table\)-[0-9a-f]\{8\}\.ref\$/\1.ref/" --exclude=tables.list . &&
    grep -rHn --include=tables.list '' . | sed "s/\($table\)-[0-9a-f]\{8\}\.ref\$/\1.ref/"
}

# ------------------------------------------------------------ comparing without processes
# A fork and exec costs about 10 ms on a busy 2-core machine (`cmp` of two small files, 200
# times: 2 s), and a script compares thousands of outputs. These compare in the shell itself
# and start `cmp` only for what a shell variable cannot hold.
#
# slurp VAR FILE: sets VAR to FILE's bytes, exactly (IFS is empty, so nothing is trimmed);
# fails when FILE holds a NUL byte, where `read` stops (and succeeds), or cannot be read.
slurp() {
  printf -v "$1" ''
  IFS= read -r -d '' "$1" <"$2" && return 1
  [ -r "$2" ]
}
# same_bytes FILE1 FILE2: succeeds when the two files hold the same bytes.
same_bytes() {
  local a b
  if slurp a "$1" && slurp b "$2"; then
    [[ $a == "$b" ]]
  else
    cmp -s "$1" "$2"
  fi
}
# text_of VAR FILE: as VAR=$(cat FILE), FILE's bytes less their trailing newlines.
text_of() {
  if slurp "$1" "$2"; then
    local _t=${!1}
    printf -v "$1" '%s' "${_t%"${_t##*[!$'\n']}"}"
  else
    printf -v "$1" '%s' "$(cat "$2")"
  fi
}
