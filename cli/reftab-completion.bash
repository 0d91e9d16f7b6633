# bash completion for reftab. Installed as share/bash-completion/completions/reftab.
#
# Everything comes from reftab itself, so a new command needs nothing here: the commands from
# `reftab help --commands`, each command's options from its usage (`reftab help <command>`),
# and ref names from `reftab for-each-ref` on the repository (or --stack/--git-dir) the
# command line names. Files are completed where nothing else fits (dump, verify, ...).

# Ref names for completion: HEAD and every ref, short (main, v1.0, origin/main) and, once the
# word starts with "refs/", in full.
_reftab_refs() {
  local cur=$1; shift
  local refs
  refs=$(reftab "$@" for-each-ref --format='%(refname)' 2>/dev/null) || return
  if [[ $cur == refs/* ]]; then
    printf '%s\n' "$refs"
  else
    printf 'HEAD\n'
    printf '%s\n' "$refs" | sed -e 's#^refs/heads/##' -e 's#^refs/tags/##' -e 's#^refs/remotes/##'
  fi
}

# The long options a command's usage names, and -h.
_reftab_options() {
  reftab help "$1" 2>/dev/null | grep -o -- '--\[no-\][a-z][a-z0-9-]*\|--[a-z][a-z0-9-]*=\?' |
    sed 's/\[no-\]//' | sort -u
  echo -h
}

_reftab() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
  local i=1 cmd='' cmd_at=0 global=()
  while [ "$i" -lt "$COMP_CWORD" ]; do
    local w=${COMP_WORDS[i]}
    case $w in
      -C | -c | --stack | --git-dir) global+=("$w" "${COMP_WORDS[i + 1]}"); i=$((i + 2)) ;;
      --stack=* | --git-dir=*) global+=("$w"); i=$((i + 1)) ;;
      -*) i=$((i + 1)) ;;
      *) cmd=$w; cmd_at=$i; break ;;
    esac
  done
  COMPREPLY=()
  case $prev in
    -C | --stack | --git-dir | --dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur"); return ;;
  esac
  if [ -z "$cmd" ]; then
    if [[ $cur == -* ]]; then
      mapfile -t COMPREPLY < <(compgen -W '-C -c --stack --git-dir --help --version' -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(reftab help --commands 2>/dev/null) help" -- "$cur")
    fi
    return
  fi
  if [ "$cmd" = help ]; then
    mapfile -t COMPREPLY < <(compgen -W "$(reftab help --commands 2>/dev/null)" -- "$cur")
    return
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_reftab_options "$cmd")" -- "$cur")
    [[ ${COMPREPLY[0]:-} == *= ]] && compopt -o nospace 2>/dev/null
    return
  fi
  if [ "$cmd" = reflog ] && [ "$COMP_CWORD" = $((cmd_at + 1)) ]; then
    mapfile -t COMPREPLY < <(compgen -W "show list exists write delete drop expire $(_reftab_refs "$cur" "${global[@]}")" -- "$cur")
    return
  fi
  case $cmd in
    dump | verify | write-table | compact | demo) return ;;  # files: bash's default
  esac
  mapfile -t COMPREPLY < <(compgen -W "$(_reftab_refs "$cur" "${global[@]}")" -- "$cur")
}

complete -o default -F _reftab reftab
