// Internal, not installed (store/meson.build leaves it out of store_public_headers): the refs
// a GitRefStore lists, in name order, handed over as views of the names in the tables' key
// buffers instead of copies. GitRefStore::ForEachRef copies every name into a RefRecord and
// calls a std::function per ref; a listing of a million names that only prints them spends
// most of its time there. This scan inlines into its caller's loop, copies only the values
// (ids, symref targets), and compares no name with the prefix: each table's scan stops
// where its names leave it (RefMergeCursor::SeekPrefix).
//
// It covers the stores whose refs come from one stack: a bare stack, or a repository seen
// from its main worktree. A linked worktree merges its own stack with the main one by git's
// routing rules; Applies() is false there and the caller uses GitRefStore::ForEachRef.
#ifndef REFTAB_STORE_GIT_REFS_REF_VIEW_SCAN_H_
#define REFTAB_STORE_GIT_REFS_REF_VIEW_SCAN_H_

#include <memory>
#include <string_view>

#include "format/record.h"
#include "format/status.h"
#include "store/git/refs/ref_store.h"
#include "store/merge_cursor.h"
#include "store/snapshot_access.h"

namespace reftab {

class RefViewScan {
 public:
  // Whether this scan sees the refs GitRefStore::ForEachRef sees.
  static bool Applies(GitRefStore& store) {
    return !store.repo() || !store.repo()->worktree_stack();
  }

  // `store` must outlive the scan; the scan keeps the snapshot it started with.
  explicit RefViewScan(GitRefStore& store)
      : snap_(store.main_stack().snapshot()), cursor_(snap_->readers()) {
    cursor_.set_suppress_deletions(true);
    cursor_.set_merge_order(SnapshotAccess::RefOrder(*snap_));
  }

  // Positions before the first live ref whose name starts with `prefix`.
  Status Seek(std::string_view prefix) { return cursor_.SeekPrefix(prefix); }

  // Moves to the next live ref under the prefix; false at the end or on error (status()).
  REFTAB_HOT_INLINE bool Next() { return cursor_.NextView(&value_); }

  // The current ref's name: valid until the next Next().
  std::string_view name() const { return cursor_.key(); }
  // Its value (type, ids, symref target); value().refname is not set.
  const RefRecord& value() const { return value_; }
  const Status& status() const { return cursor_.status(); }

 private:
  std::shared_ptr<const Snapshot> snap_;
  RefMergeCursor cursor_;
  RefRecord value_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_VIEW_SCAN_H_
