// Public API: what `git reflog expire --stale-fix` does before it expires anything: it walks
// from every ref and trusts what they reach, so that the expiry can then prune the entries
// whose commits are broken (store/git/objects/complete_history.h; ReflogExpiryPolicy asks it).
#ifndef REFTAB_STORE_GIT_REFS_REFLOG_STALE_FIX_H_
#define REFTAB_STORE_GIT_REFS_REFLOG_STALE_FIX_H_

#include <functional>
#include <memory>
#include <string>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/objects/complete_history.h"
#include "store/git/refs/ref_store.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// The completeness test for --stale-fix, after trusting (GitCompleteHistory::Trust) what
// git's mark_reachable_objects starts from, in git's order:
//  - the refs git's --all names (ForEachRevisionAllRef, store/git/refs/ref_list.h): those
//    under refs/ as git's ref iterator lists them (with `ref_paranoia`, git's
//    GIT_REF_PARANOIA, broken ones are listed too, and then fail below; without it they are
//    left out, a ref whose object is missing with git's error line "<ref> does not point to
//    a valid object!", passed to `error` without "error: "), HEAD and the other worktrees'
//    HEADs;
//  - the ids in each worktree's rebase state (rebase-apply/ and rebase-merge/, files
//    autostash and orig-head), as git reads them.
// A name whose object cannot be read fails with git's fatal message "unable to parse
// object: <name>" (kNotFound). Needs the object database (GitObjects::available()): without
// it, InvalidArgument saying so. Not done: git also starts from the objects each worktree's
// index names. That matters only for a tree the index caches which can be read but lacks an
// entry and no ref reaches: git trusts it, this does not.
Result<std::unique_ptr<GitCompleteHistory>> TrustReachableFromRefs(
    GitRefStore& store, bool ref_paranoia, const std::function<void(const std::string&)>& error);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REFLOG_STALE_FIX_H_
