// Public API: the refs git's listing commands see (show-ref, for-each-ref, the ref iterator
// of git's reftable backend), with git's rules applied on the way:
//  - names under refs/ only (root refs such as HEAD are not listed);
//  - a symref is listed with the id its chain ends at; one that does not resolve, a null
//    id, or a name that is not well formed makes the ref "broken";
//  - names are git's (cut at a NUL byte: StoredRefname), judged by JudgeListedRefname: a
//    name that is not even safe stops the listing (git dies: "refname is dangerous");
//  - by default (git's GIT_REF_PARANOIA, on unless set to false), broken refs are listed,
//    with a null id where the name is not well formed, except symrefs that do not resolve,
//    and no object is looked up: the command decides what a missing object means;
//  - with paranoia off, broken refs are left out, and so is a ref whose object is missing
//    (given an object database), with git's error "<ref> does not point to a valid object!".
#ifndef REFTAB_STORE_GIT_REFS_REF_LIST_H_
#define REFTAB_STORE_GIT_REFS_REF_LIST_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitRefStore;

struct GitListedRef {
  const std::string* name = nullptr;
  ObjectId id{};
  std::optional<ObjectId> peeled;              // the peeled id the table stores, if it does
  const std::string* symref_target = nullptr;  // for a symref, where it points (one level)
};

struct GitListCallbacks {
  // Each listed ref in name order; return false to stop.
  std::function<bool(const GitListedRef&)> ref;
  // git's error lines for refs left out (without "error: "), as they occur.
  std::function<void(const std::string&)> error;
  // git's ref paranoia (above): list broken refs, look up no object.
  bool include_broken = true;
};

// Lists the refs under `prefix` (which should start with "refs/"). A dangerous name ends the
// listing with a Corruption status whose message is git's ("refname is dangerous: <name>").
Status ForEachGitRef(GitRefStore& store, std::string_view prefix, const GitListCallbacks& cb);

// The refs git's revision option --all starts from, in git's order: those under refs/ as
// ForEachGitRef lists them (with `cb`'s rules), then HEAD, then each other worktree's HEAD
// ("main-worktree/HEAD", "worktrees/<id>/HEAD"), these only when they resolve to an existing
// ref (a symref to an unborn branch does not), with the id they resolve to.
Status ForEachRevisionAllRef(GitRefStore& store, const GitListCallbacks& cb);

// The id an annotated tag peels to, as git's listing finds it: the stored peeled value, else
// the object database's answer for a tag (nullopt for anything else, or without one).
Status PeeledId(GitRefStore& store, const GitListedRef& ref, std::optional<ObjectId>* peeled);

// Whether the object database has `id` (true without a usable database, where ids are
// trusted: see GitObjects::available()).
Status ObjectExists(GitRefStore& store, const ObjectId& id, bool* exists);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_LIST_H_
