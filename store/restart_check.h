// Internal, not installed: whether a block's restart table agrees with its records, checked
// as a scan meets the records (store/verify.cc, store/index_check.cc).
//
// A search in a block (FindInBlock, BlockIterator::Seek) bisects the restart points and
// decodes forward from one of them. It finds what a scan finds when every restart point is
// where a record starts, in the records' order, and that record stores its whole key (a
// prefix length of 0, a one-byte varint 0): the keys at the restart points are then the
// scan's keys, sorted as the scan's are, and decoding from one gives the scan's records.
#ifndef REFTAB_STORE_RESTART_CHECK_H_
#define REFTAB_STORE_RESTART_CHECK_H_

#include <cstdint>
#include <string>

#include "format/block_reader.h"
#include "format/constants.h"

namespace reftab {

class RestartCheck {
 public:
  void Start(const BlockView& b) {
    block_ = &b;
    next_ = 0;
    next_at_ = b.restart_count > 0 ? RestartOffset(b, 0) : UINT32_MAX;
  }

  // Where a block's first record starts, from its data.
  static uint32_t FirstRecord(const BlockView& b) {
    return b.header_off + uint32_t(kBlockHeaderSize);
  }

  // A record starts at `start` (from the block's data), after those given before. False
  // when a restart point up to there is wrong (Problem() names it). One comparison but
  // where a restart point is reached.
  bool Record(uint32_t start) { return start < next_at_ || Reach(start); }
  // After the last record: false if a restart point is left that no record started at.
  bool End() { return Reach(UINT32_MAX); }

  // "restart point N (at A) is not the start of a record with a full key", after a false.
  std::string Problem() const {
    return "restart point " + std::to_string(next_) + " (at " +
           std::to_string(RestartOffset(*block_, next_)) +
           ") is not the start of a record with a full key";
  }

 private:
  bool Reach(uint32_t start) {
    const BlockView& b = *block_;
    for (; next_ < b.restart_count; ++next_) {
      const uint32_t at = RestartOffset(b, next_);
      if (at > start) {
        next_at_ = at;
        return true;
      }
      if (at < start || b.data[at] != 0) return false;
    }
    next_at_ = UINT32_MAX;
    return true;
  }

  const BlockView* block_ = nullptr;
  uint32_t next_ = 0;     // the first restart point not yet reached
  uint32_t next_at_ = 0;  // where it is (UINT32_MAX: none left)
};

}  // namespace reftab

#endif  // REFTAB_STORE_RESTART_CHECK_H_
