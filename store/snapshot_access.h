// Internal, not installed: what the library's scans take from a Snapshot beyond its public
// API (also used by tests and benchmarks, which link the library's internals).
#ifndef REFTAB_STORE_SNAPSHOT_ACCESS_H_
#define REFTAB_STORE_SNAPSHOT_ACCESS_H_

#include "store/merge_order.h"
#include "store/stack.h"

namespace reftab {

struct SnapshotAccess {
  // The memo of `snap`'s ref tables, for MergeCursor::set_merge_order over snap.readers().
  static MergeOrderMemo* RefOrder(const Snapshot& snap) { return snap.ref_order_.get(); }
};

}  // namespace reftab

#endif  // REFTAB_STORE_SNAPSHOT_ACCESS_H_
