// Public API: the refs a GitRefStore lists, in name order, each handed over as a view of its
// name in the library's read buffer instead of a copy. GitRefStore::ForEachRef copies every
// name into a RefRecord and calls a std::function per ref; a listing of a million names that
// only prints them spends most of its time there. This scan copies only the values (ids,
// symref targets), costs one call into the library per ref, and compares no name with the
// prefix: each table's scan stops where its names leave it.
//
// It covers the stores whose refs come from one stack: a bare stack, or a repository seen
// from its main worktree. A linked worktree merges its own stack with the main one by git's
// routing rules; Applies() is false there and the caller uses GitRefStore::ForEachRef.
//
// Errors (a corrupt table) are sticky: Next() returns false and status() names the file and
// the offset. A moved-from scan may only be destroyed or assigned to.
#ifndef REFTAB_STORE_GIT_REFS_REF_VIEW_SCAN_H_
#define REFTAB_STORE_GIT_REFS_REF_VIEW_SCAN_H_

#include <memory>
#include <string_view>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/refname.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitRefStore;

class RefViewScan {
 public:
  // Whether this scan sees the refs GitRefStore::ForEachRef sees.
  static bool Applies(GitRefStore& store);

  // Scans the store's refs as they are now (later writes are not seen); `store` must
  // outlive the scan.
  explicit RefViewScan(GitRefStore& store);
  ~RefViewScan();
  RefViewScan(RefViewScan&&) noexcept;
  RefViewScan& operator=(RefViewScan&&) noexcept;

  // Positions before the first live ref whose name starts with `prefix` ("": every ref).
  Status Seek(std::string_view prefix);

  // Moves to the next live ref under the prefix (tombstones are skipped) and returns its
  // name as git reads it (StoredRefname: up to a NUL byte), valid until the next Next() or
  // Seek(); an empty view at the end or on error (status()), as no ref has an empty name.
  std::string_view Next();
  // At least this many readable bytes (of no particular value) follow every name Next()
  // returns, so that a caller may copy a name in fixed-size blocks.
  static constexpr size_t kNameReadSlack = 16;
  // What git's listings make of the name Next() returned last (JudgeListedRefname), found
  // with the name: one quick look at a plain name (PlainlyValidRefname).
  ListedRefname judged() const { return judged_; }

  // The value of the ref Next() returned last (type, ids, symref target); value().refname is not
  // set.
  const RefRecord& value() const { return value_; }
  const Status& status() const;

 private:
  struct Impl;  // store/git/refs/ref_view_scan.cc
  std::unique_ptr<Impl> impl_;
  RefRecord value_;
  ListedRefname judged_ = ListedRefname::kGood;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_VIEW_SCAN_H_
