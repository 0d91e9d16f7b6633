// The view scan behind its public pointer: the library's merge of the stack's tables
// (store/merge_cursor.h), inlined into Next(), with the snapshot it reads kept alive.
#include "store/git/refs/ref_view_scan.h"

#include "store/git/refs/ref_store.h"
#include "store/git/refs/refname.h"
#include "store/merge_cursor.h"
#include "store/snapshot_access.h"

namespace reftab {

// Next()'s names are views of the cursors' key buffers (or their first part).
static_assert(TableRefCursor::kKeyReadSlack >= RefViewScan::kNameReadSlack);

struct RefViewScan::Impl {
  explicit Impl(std::shared_ptr<const Snapshot> s) : snap(std::move(s)), cursor(snap->readers()) {
    cursor.set_suppress_deletions(true);
    // A whole scan replays the order of an earlier one of the same snapshot (merge_order.h).
    cursor.set_merge_order(SnapshotAccess::RefOrder(*snap));
  }
  std::shared_ptr<const Snapshot> snap;
  RefMergeCursor cursor;
};

bool RefViewScan::Applies(GitRefStore& store) {
  return !store.repo() || !store.repo()->worktree_stack();
}

RefViewScan::RefViewScan(GitRefStore& store)
    : impl_(std::make_unique<Impl>(store.main_stack().snapshot())) {}
RefViewScan::~RefViewScan() = default;
RefViewScan::RefViewScan(RefViewScan&&) noexcept = default;
RefViewScan& RefViewScan::operator=(RefViewScan&&) noexcept = default;

Status RefViewScan::Seek(std::string_view prefix) { return impl_->cursor.SeekPrefix(prefix); }

std::string_view RefViewScan::Next() {
  while (impl_->cursor.NextView(&value_)) {
    std::string_view key = impl_->cursor.key();
    if (PlainlyValidRefname(key)) [[likely]] {
      judged_ = ListedRefname::kGood;
      return key;
    }
    key = StoredRefname(key);
    if (key.empty()) continue;  // a name that starts with NUL: git reads an empty one
    judged_ = JudgeListedRefname(key);
    return key;
  }
  return {};
}

const Status& RefViewScan::status() const { return impl_->cursor.status(); }

}  // namespace reftab
