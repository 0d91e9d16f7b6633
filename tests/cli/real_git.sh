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
