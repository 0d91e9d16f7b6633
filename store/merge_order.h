// Internal, not installed: the order in which a full merged scan of a snapshot's ref tables
// takes its records, recorded by the second such scan and replayed by the ones after it.
//
// A merge of tables whose names interleave pays for its order on every record: a tree of
// losers over 7 live tables plays 3 matches per record, about 165 instructions on the
// benchmark's stack against ~90 for stepping the table the record comes from. The tables
// of a snapshot never change, so neither does that order: written down as one byte per
// record (which table it comes from, and whether a newer table shadows it), a later scan
// steps the named table and compares no key at all. That is the run selector of REMIX
// (Zhong et al., "REMIX: Efficient Range Query for LSM-trees", FAST 2021), kept here for
// whole scans only (SeekToFirst), where a listing of every ref spends its time.
//
// The cost: one byte per record of the stack, held as long as the snapshot, and a byte
// appended per record during the recording scan (the first whole scan of a snapshot records
// nothing, so a process that lists once pays nothing). A scan that stops early, fails, or
// runs over more than kMaxChildren tables records nothing; once a single table is left the
// recording ends with its name (the rest of the scan is that table's records, as
// MergeCursor's bypass reads them), so the bytes cover the records up to where the other
// tables end.
#ifndef REFTAB_STORE_MERGE_ORDER_H_
#define REFTAB_STORE_MERGE_ORDER_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace reftab {

struct MergeOrder {
  static constexpr uint32_t kMaxChildren = 127;
  static constexpr uint8_t kShadowed = 0x80;  // the record is older than one already taken
  // Per record taken from the tree, in scan order: its table's index (oldest 0) | kShadowed.
  std::vector<uint8_t> steps;
  uint32_t children = 0;       // tables merged (a cursor over other tables ignores it)
  uint32_t tail = 0;           // the table the records after `steps` come from
  bool tail_shadowed = false;  // whether that table's first record after them is shadowed
};

// A snapshot's recorded order, shared by the scans of it on any thread.
class MergeOrderMemo {
 public:
  // For a whole scan about to start: the recorded order, or null and *record set if this
  // scan should record it. The first whole scan of a snapshot does not, so that a process
  // that lists once (a command) pays nothing; the second does.
  std::shared_ptr<const MergeOrder> ForScan(bool* record) {
    std::lock_guard<std::mutex> lock(mu_);
    *record = order_ == nullptr && ++scans_ >= 2;
    return order_;
  }
  // The first complete recording is kept (concurrent first scans record the same order).
  void Publish(std::shared_ptr<const MergeOrder> order) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!order_) order_ = std::move(order);
  }
  size_t memory_bytes() const {
    std::lock_guard<std::mutex> lock(mu_);
    return order_ ? order_->steps.capacity() : 0;
  }

 private:
  mutable std::mutex mu_;
  std::shared_ptr<const MergeOrder> order_;
  uint64_t scans_ = 0;
};

}  // namespace reftab

#endif  // REFTAB_STORE_MERGE_ORDER_H_
