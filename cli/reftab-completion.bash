# bash completion for reftab. Installed as share/bash-completion/completions/reftab.
#
# Everything comes from reftab itself, so a new command needs nothing here: the commands from
# `reftab help --commands`, a command's subcommands and options from its usage (`reftab help
# <command>`, `reftab <command> <subcommand> -h`), sort keys and format atoms from `reftab help
# --atoms`, and ref names from `reftab for-each-ref` on the repository (or --stack/--git-dir)
# the command line names. Files are completed where nothing else fits (dump, verify, ...).

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

# The long options a command's (or a subcommand's) usage names, and -h. A subcommand whose
# usage lists none (reflog show, as git's: its options are the log's) takes the command's.
_reftab_options() {
  local usage=''
  [ -n "${2:-}" ] && usage=$(reftab "$1" "$2" -h 2>/dev/null)
  [[ $usage == *--* ]] || usage=$(reftab help "$1" 2>/dev/null)
  printf '%s\n' "$usage" |
    grep -o -- '--\[no-\][a-z][a-z0-9-]*\|--[a-z][a-z0-9-]*=\?' | sed 's/\[no-\]//' | sort -u
  echo -h
}

# A command's subcommands: the words after "reftab <command>" in its usage lines.
_reftab_subcommands() {
  reftab help "$1" 2>/dev/null |
    sed -n "s/^\(usage:\|   or:\) reftab $1 \[\{0,1\}\([a-z][a-z-]*\).*/\2/p" | sort -u
}

# The value of --sort=<key> (optionally "-<key>") or of --format=...%(<atom>.
_reftab_option_value() {
  local opt=$1 value=$2 atoms
  atoms=$(reftab help --atoms 2>/dev/null)
  case $opt in
    --sort)
      local neg=''
      [[ $value == -* ]] && neg=- value=${value#-}
      compgen -P "$neg" -W "$atoms" -- "$value" ;;
    --format)
      [[ $value == *'%('* ]] || return
      local head=${value%'%('*} partial=${value##*'%('}
      compgen -P "$head%(" -S ')' -W "$atoms" -- "$partial" ;;
  esac
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
      mapfile -t COMPREPLY < <(compgen -W '-C -c --stack --git-dir -p --paginate -P --no-pager --help --version' -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -W "$(reftab help --commands 2>/dev/null) help" -- "$cur")
    fi
    return
  fi
  if [ "$cmd" = help ]; then
    mapfile -t COMPREPLY < <(compgen -W "$(reftab help --commands 2>/dev/null)" -- "$cur")
    return
  fi
  # An option's value: "--sort=ref" as one word, or as bash splits it at "=" (--sort = ref).
  local opt='' value=''
  if [[ $cur == --sort=* || $cur == --format=* ]]; then
    opt=${cur%%=*} value=${cur#*=}
  elif [ "$prev" = = ] && [ "$COMP_CWORD" -ge 2 ]; then
    opt=${COMP_WORDS[COMP_CWORD - 2]} value=$cur
  elif [ "$cur" = = ]; then
    opt=$prev
  fi
  if [ "$opt" = --sort ] || [ "$opt" = --format ]; then
    local prefix=''
    [[ $cur == --* ]] && prefix="$opt="
    mapfile -t COMPREPLY < <(_reftab_option_value "$opt" "$value" | sed "s/^/$prefix/")
    compopt -o nospace 2>/dev/null
    return
  fi
  local subs sub=''
  subs=$(_reftab_subcommands "$cmd")
  if [ -n "$subs" ] && [ "$COMP_CWORD" -gt $((cmd_at + 1)) ] &&
      printf '%s\n' "$subs" | grep -qx -- "${COMP_WORDS[cmd_at + 1]}"; then
    sub=${COMP_WORDS[cmd_at + 1]}
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_reftab_options "$cmd" "$sub")" -- "$cur")
    [[ ${COMPREPLY[0]:-} == *= ]] && compopt -o nospace 2>/dev/null
    return
  fi
  if [ -n "$subs" ] && [ "$COMP_CWORD" = $((cmd_at + 1)) ]; then
    # reflog's subcommand is optional (`reftab reflog main` shows main's): refs too.
    local refs=''
    [ "$cmd" = reflog ] && refs=$(_reftab_refs "$cur" "${global[@]}")
    mapfile -t COMPREPLY < <(compgen -W "$subs $refs" -- "$cur")
    return
  fi
  case $cmd in
    dump | verify | write-table | compact | demo) return ;;  # files: bash's default
  esac
  mapfile -t COMPREPLY < <(compgen -W "$(_reftab_refs "$cur" "${global[@]}")" -- "$cur")
}

complete -o default -F _reftab reftab
