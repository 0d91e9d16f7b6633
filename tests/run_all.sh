#!/usr/bin/env bash
# The test command: installs what reftab needs (Debian 12), builds the real git that the
# comparisons run against, builds reftab twice and runs every test:
#   build-release  g++ 12, release, warnings as errors: every suite, the comparisons with git
#                  included; then programs built against the installed library
#   build-asan     clang 14 with ASan + UBSan, warnings as errors (clang's warning check), the
#                  libFuzzer targets: every suite but the git comparisons and the slow seeds
# Each step prints its time, and a table of them closes the run. The last line is
# "N passed, N failed": GoogleTest cases and TAP cases (one per comparison with git), counted
# from meson's JUnit logs; a build or set-up step that fails counts as a failure.
#
# Environment: JOBS (default: the number of cores); REFTAB_GIT, a reftable-capable git to use
# instead of building one (../shared/tools/git-peer/build.sh, once per machine, into
# ~/.cache/reftab-peers).
set -uo pipefail
cd "$(dirname "$0")/.."

status=0
declare -a TIMES=()
# step NAME CMD...: runs CMD, prints and records its time; a failure fails the run.
step() {
  local name=$1 start=$SECONDS rc; shift
  echo "== $name"
  "$@"; rc=$?
  TIMES+=("$(printf '%5d s  %s%s' $((SECONDS - start)) "$name" "$([ $rc = 0 ] || echo "  (failed: $rc)")")")
  [ $rc = 0 ] || status=1
  return $rc
}

PACKAGES=(meson ninja-build g++ lld clang-14 libclang-rt-14-dev pkg-config zlib1g-dev libxxhash-dev
          libgtest-dev libgmock-dev hyperfine valgrind python3 libjgit-java)
PACKAGES+=(libleveldb-dev librocksdb-dev)  # the KV benchmark's peers (perf/kv_bench.cc)
PACKAGES+=(make xz-utils ccache)  # building the real git; ccache makes a rerun's builds short
PACKAGES+=(gpg gpgsm)  # %(signature...) verifies with them; its comparison with git needs gpg
PACKAGES+=(strace)  # migrate-fsync counts the fsync calls of a migration with it
install_packages() {
  local missing=() p SUDO=
  for p in "${PACKAGES[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  [[ $(id -u) == 0 ]] || SUDO=sudo
  echo "installing: ${missing[*]}"
  $SUDO apt-get update -qq &&
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
}
if ! step "install packages" install_packages; then
  echo "package installation failed"; echo "0 passed, 1 failed"; exit 1
fi

# The real git (2.55, from ../shared/peers): every comparison with git runs, and one that
# cannot find git fails (REFTAB_REQUIRE_GIT) instead of skipping.
build_git() {
  if [[ -z ${REFTAB_GIT:-} ]]; then
    REFTAB_GIT=$(bash ../shared/tools/git-peer/build.sh 2>"${TMPDIR:-/tmp}/reftab-git-peer.log") ||
      { tail -20 "${TMPDIR:-/tmp}/reftab-git-peer.log"; return 1; }
  fi
  "$REFTAB_GIT" --version
}
step "build git (the peer)" build_git
export REFTAB_GIT REFTAB_REQUIRE_GIT=1

# The JGit peer (../shared/tools/jgit-harness): its jar goes to ~/.cache; without java or the
# harness the interop tests say they were skipped.
build_jgit_harness() {
  local harness=../shared/tools/jgit-harness/build.sh
  [[ -f $harness ]] && command -v javac >/dev/null || return 0
  bash "$harness" >/dev/null 2>&1 || echo "jgit-harness did not build: its interop tests will skip"
}
step "build the JGit harness" build_jgit_harness

JOBS=${JOBS:-$(nproc)}
setup() {  # setup DIR [meson options...]
  local dir=$1; shift
  if [[ -d $dir/meson-private ]]; then meson setup --reconfigure "$dir" "$@" >/dev/null
  else meson setup "$dir" "$@" >/dev/null; fi
}

step "release: configure" setup build-release --buildtype=release
step "release: build" ninja -C build-release -j "$JOBS"
step "release: test" meson test -C build-release --num-processes "$JOBS" --print-errorlogs \
  --timeout-multiplier 3

# `meson install` into a staging folder, with its pkg-config file pointed there: sets STAGE,
# FLAGS (pkg-config --cflags --libs reftab), CFLAGS_ONLY and LIBDIR. The programs below are
# built against the installed library exactly as a user builds them.
stage_install() {
  STAGE=$(mktemp -d)
  DESTDIR=$STAGE meson install -C build-release --no-rebuild >/dev/null || return 1
  local pc; pc=$(find "$STAGE" -name reftab.pc | head -1)
  [[ -n $pc ]] || return 1
  local prefix; prefix=$(sed -n 's/^prefix=//p' "$pc")
  sed -i "s|^prefix=.*|prefix=$STAGE$prefix|" "$pc"
  FLAGS=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags --libs reftab) || return 1
  CFLAGS_ONLY=$(PKG_CONFIG_PATH=$(dirname "$pc") pkg-config --cflags reftab) || return 1
  LIBDIR=$(dirname "$(find "$STAGE" -name 'libreftab.so' | head -1)")
}

# A C test program (plain C11) under ASan/UBSan against the installed library.
c_installed() {  # c_installed tests/capi/X.c
  local exe; exe=$STAGE/$(basename "$1" .c)
  # shellcheck disable=SC2086
  gcc -std=c11 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
    "$1" $FLAGS -o "$exe" && ASAN_OPTIONS=detect_leaks=1 LD_LIBRARY_PATH=$LIBDIR "$exe"
}

# The installed headers: each compiles alone against the installed tree, and shows no internals.
headers_installed() {
  local incdir; incdir=$(dirname "$(find "$STAGE" -type d -path '*/include/reftab' | head -1)")
  # shellcheck disable=SC2086
  bash tests/installed_headers_test.sh "$incdir" $CFLAGS_ONLY
}

if step "release: install (staged)" stage_install; then
  step "installed: C API" c_installed tests/store/capi/capi_test.c
  step "installed: key/value C API" c_installed tests/store/capi/kv_capi_test.c
  step "installed: headers" headers_installed
  rm -rf "$STAGE"
fi

# clang: its sanitizers build several times faster than g++'s, and the same compile is
# clang's warning check (-Werror) and builds the libFuzzer targets. The comparisons with git
# (suite cli) ran above; the extra seeds (suite slow) are the release build's.
CC=clang-14 CXX=clang++-14 step "asan (clang): configure" setup build-asan \
  --buildtype=debugoptimized -Db_sanitize=address,undefined -Db_lundef=false -Dfuzzing=true
step "asan (clang): build" ninja -C build-asan -j "$JOBS"
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 ASAN_OPTIONS=detect_leaks=1 \
  step "asan (clang): test" meson test -C build-asan --num-processes "$JOBS" --print-errorlogs \
  --no-suite slow --no-suite cli --timeout-multiplier 3

echo "== times"
printf '%s\n' "${TIMES[@]}"
printf '%5d s  in all\n' "$SECONDS"

python3 - "$status" build-release build-asan <<'PY'
import sys, os, xml.etree.ElementTree as ET
status = int(sys.argv[1]); passed = failed = 0; skipped = []
for d in sys.argv[2:]:
    p = os.path.join(d, 'meson-logs', 'testlog.junit.xml')
    if not os.path.exists(p):
        failed += 1; continue
    for suite in ET.parse(p).getroot().iter('testsuite'):
        for case in suite.iter('testcase'):
            if case.find('skipped') is not None:
                skipped.append(f"{d}: {suite.get('name')} / {case.get('name')}"); continue
            if case.find('failure') is not None or case.find('error') is not None: failed += 1
            else: passed += 1
if skipped:
    print(f"skipped ({len(skipped)}):")
    for s in skipped[:40]: print("  " + s)
if status and not failed: failed = 1  # a build or setup step failed
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
PY
