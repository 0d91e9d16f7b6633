# shellcheck shell=bash
# Sourced by perf's scripts: git_env HOMEDIR sets the fixed environment both tools run in.
# git's commands read the system and user config and write reflogs with the committer's name
# and time, so every run sees no system config, an empty home (HOMEDIR, made here), and the
# same committer, author and dates; reftab reads the same variables.
git_env() {
  mkdir -p "$1"
  export GIT_CONFIG_NOSYSTEM=1 HOME=$1 GIT_COMMITTER_NAME="C O Mitter" \
    GIT_COMMITTER_EMAIL=committer@example.com GIT_COMMITTER_DATE="1700000000 +0000" \
    GIT_AUTHOR_NAME="A U Thor" GIT_AUTHOR_EMAIL=author@example.com \
    GIT_AUTHOR_DATE="1700000000 +0000"
}
