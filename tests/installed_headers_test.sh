#!/usr/bin/env bash
# The installed headers are the public API and nothing else (README "Embedding"):
#   * each one compiles on its own against the installed tree (its first line included,
#     nothing before it), with every warning an error, so it includes only installed
#     headers and needs no other include first;
#   * each one says "Public API" in its first comment;
#   * none mentions an internal namespace or an internal header.
# Usage: installed_headers_test.sh INCLUDEDIR [compiler flags...]
#   INCLUDEDIR is the installed include directory (the one holding reftab/); the flags are
#   what `pkg-config --cflags reftab` prints for that installation.
set -uo pipefail
incdir=$1; shift
[[ -d $incdir/reftab ]] || { echo "no $incdir/reftab"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

fail=0
headers=$(cd "$incdir" && find reftab -name '*.h' | sort)
[[ -n $headers ]] || { echo "no headers under $incdir/reftab"; exit 1; }
n=0
for h in $headers; do
  n=$((n + 1))
  printf '#include <%s>\n' "$h" >one.cc
  if ! g++ -std=c++20 -Wall -Wextra -Wpedantic -Werror -fsyntax-only "$@" one.cc 2>err.txt; then
    echo "FAIL: <$h> does not compile on its own:"; head -20 err.txt; fail=1
  fi
  # The C API's headers are for C programs too.
  if [[ $h == reftab/reftab.h || $h == reftab/reftab_kv.h ]]; then
    printf '#include <%s>\n' "$h" >one.c
    if ! gcc -std=c11 -Wall -Wextra -Wpedantic -Werror -fsyntax-only "$@" one.c 2>err.txt; then
      echo "FAIL: <$h> does not compile on its own as C:"; head -20 err.txt; fail=1
    fi
  fi
  if ! head -1 "$incdir/$h" | grep -q 'Public API'; then
    echo "FAIL: <$h>: its first comment does not say \"Public API\""; fail=1
  fi
  if grep -nE 'namespace internal|internal::|\bInternal\b|_internal\.h|Ablation|ablate' \
      "$incdir/$h"; then
    echo "FAIL: <$h> shows internals (the lines above)"; fail=1
  fi
done
((fail)) || echo "ok: $n installed headers, each compiles alone and is public API only"
exit $fail
