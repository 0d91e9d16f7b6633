// Public API: git's branch-name shorthands (object-name.c's interpret_branch_name), read once
// for every command that takes a ref name: "@{-N}" (the Nth branch checked out before the
// current one, from HEAD's reflog "checkout: moving from A to B" entries), "@" alone for
// HEAD, and "[<branch>]@{upstream}" / "@{u}" / "@{push}" (any case) for the remote-tracking
// ref the branch merges from or pushes to (store/git/upstream.h). Only the shorthands:
// @{N} and @{<date>} reflog selectors and the rest of the revision syntax are
// store/git/refs/object_name.h's.
#ifndef REFTAB_STORE_GIT_REFS_BRANCH_NAME_H_
#define REFTAB_STORE_GIT_REFS_BRANCH_NAME_H_

#include <string>
#include <string_view>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct BranchNameResult {
  // How much of the name was read: -1 none (no shorthand starts it), 0 a well-formed "@{-N}"
  // with fewer than N checkouts in HEAD's reflog, else the length read. Only a name read
  // whole (used == its length) stands for `name`.
  int used = -1;
  // What it stands for: a branch name ("main"), a full id (a detached checkout), "HEAD", or a
  // ref name shortened as `rev-parse --abbrev-ref=loose` would ("origin/main").
  std::string name;
  // Set when an @{upstream} or @{push} has none and the caller asked for git's fatal path
  // (`nonfatal` false): git's message, without "fatal: " ("no upstream configured for
  // branch 'main'", "HEAD does not point to a branch"). `used` is then -1.
  std::string fatal;
};

// git's interpret_branch_name over `name`, every kind of shorthand allowed. `nonfatal`: an
// @{upstream} or @{push} that has none reads as no shorthand (git's nonfatal_dangling_mark)
// instead of setting out->fatal. Errors are I/O and corruption errors.
Status InterpretBranchName(GitRefStore& store, std::string_view name, bool nonfatal,
                           BranchNameResult* out);

// git's substitute_branch_name: what `name` stands for when a shorthand reads it whole, else
// `name` itself. *fatal as BranchNameResult's.
Status SubstituteBranchName(GitRefStore& store, std::string_view name, bool nonfatal,
                            std::string* out, std::string* fatal);

// git's repo_dwim_ref: `name` with its shorthand substituted, then expanded by git's rules
// (DwimRef, every rule tried when core.warnAmbiguousRefs is on). *fatal as above.
Status DwimRefShorthand(GitRefStore& store, std::string_view name, bool nonfatal, DwimResult* out,
                        std::string* fatal);

// The length of the "@{upstream}" / "@{u}" (`push` false) or "@{push}" mark `s` starts with,
// in any case; 0 when it starts with none. As in git only the start counts: "@{u}x" has one.
size_t BranchMarkLength(std::string_view s, bool push);

// git's interpret_nth_prior_checkout: "@{-N}" at the start of `name`. *used -1 when it is not
// one, 0 when HEAD's reflog has fewer than N checkouts, else the length of "@{-N}" with
// *branch what was checked out (a branch name, or a full id for a detached HEAD).
Status NthPriorCheckout(GitRefStore& store, std::string_view name, int* used, std::string* branch);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_BRANCH_NAME_H_
