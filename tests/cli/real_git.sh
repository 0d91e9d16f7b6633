# Sourced by the scripts that compare reftab with the real git.
# find_real_git MINOR WHY: sets $git to $REFTAB_GIT, else to the `git` on PATH when it is at
# least 2.MINOR; otherwise prints why the test is skipped and exits 77 (meson's "skipped").
find_real_git() {
  local minor=$1 why=$2 v=
  git=${REFTAB_GIT:-}
  [ -n "$git" ] && return 0
  if v=$(command git --version 2>/dev/null) && [[ $v =~ ([0-9]+)\.([0-9]+) ]] &&
     { [ "${BASH_REMATCH[1]}" -gt 2 ] || [ "${BASH_REMATCH[2]}" -ge "$minor" ]; }; then
    git=git
    return 0
  fi
  echo "skipped: no REFTAB_GIT and no git >= 2.$minor on PATH (found: ${v:-none}); $why"
  exit 77
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
