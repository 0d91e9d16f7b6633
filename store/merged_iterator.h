// Public API: iteration over several tables of a stack as one sorted sequence.
//
// Sub-iterators are ordered oldest to newest. For equal keys the newest table wins and the
// older records are skipped. Three properties keep it fast (LESSONS.md #6, #10, bb2d6be4c1):
//   * a binary heap of sub-iterator indexes compares records in place, never formatting keys;
//   * the sub-iterator whose record was just returned is advanced lazily, on the next call,
//     so a caller that stops after one record (a lookup) reads no record too many;
//   * once a single sub-iterator is left the heap is bypassed entirely and Next() forwards to
//     it (the common case: one big base table).
// Records are swapped out to the caller, never copied; their buffers circulate.
#ifndef REFTAB_STORE_MERGED_ITERATOR_H_
#define REFTAB_STORE_MERGED_ITERATOR_H_

#include <algorithm>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/table_reader.h"

namespace reftab {

namespace internal {

// Ordering of records inside the merge: refs by name; logs by name, then newest first.
inline int CompareKeys(const RefRecord& a, const RefRecord& b) {
  return std::string_view(a.refname).compare(b.refname);
}
inline int CompareKeys(const LogRecord& a, const LogRecord& b) {
  int c = std::string_view(a.refname).compare(b.refname);
  if (c != 0) return c;
  return a.update_index > b.update_index ? -1 : a.update_index < b.update_index ? 1 : 0;
}

template <class Sub, class Record>
class MergedIterator {
 public:
  // `tables` oldest first.
  explicit MergedIterator(const std::vector<const TableReader*>& tables) {
    children_.reserve(tables.size());
    for (const TableReader* t : tables) children_.push_back(Child{Sub(t), Record()});
  }
  MergedIterator(MergedIterator&&) = default;

  // Drop deletion records instead of returning them.
  void set_suppress_deletions(bool v) { suppress_deletions_ = v; }

  Status SeekToFirst() {
    return Reposition([](Sub& it) { return it.SeekToFirst(); });
  }
  template <class... Key>
  Status Seek(const Key&... key) {
    return Reposition([&](Sub& it) { return it.Seek(key...); });
  }

  // Fills `*out` with the next record; false at the end or on error (see status()).
  bool Next(Record* out) {
    for (;;) {
      if (!NextRaw(out)) return false;
      if (!suppress_deletions_ || !out->is_deletion()) return true;
    }
  }
  const Status& status() const { return status_; }

 private:
  struct Child {
    Sub it;
    Record rec;
  };

  // Heap order: smallest key on top; for equal keys the newest (highest index) on top.
  bool After(uint32_t a, uint32_t b) const {
    int c = CompareKeys(children_[a].rec, children_[b].rec);
    return c != 0 ? c > 0 : a < b;
  }
  void Push(uint32_t i) {
    heap_.push_back(i);
    std::push_heap(heap_.begin(), heap_.end(), [this](uint32_t a, uint32_t b) { return After(a, b); });
  }
  uint32_t Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), [this](uint32_t a, uint32_t b) { return After(a, b); });
    uint32_t i = heap_.back();
    heap_.pop_back();
    return i;
  }
  // Reads the child's next record into the heap; records a child's error.
  void Advance(uint32_t i) {
    Child& c = children_[i];
    if (c.it.Next(&c.rec)) {
      Push(i);
    } else if (!c.it.status().ok() && status_.ok()) {
      status_ = c.it.status();
    }
  }

  template <class F>
  Status Reposition(F&& seek) {
    heap_.clear();
    single_ = nullptr;
    pending_ = kNone;
    status_ = Status::Ok();
    for (uint32_t i = 0; i < children_.size(); ++i) {
      Status s = seek(children_[i].it);
      if (!s.ok()) {
        status_ = s;
        return s;
      }
      Advance(i);
    }
    return status_;
  }

  bool NextRaw(Record* out) {
    if (!status_.ok()) return false;
    if (single_ != nullptr) {  // bypass: one sub-iterator left
      if (single_->Next(out)) return true;
      status_ = single_->status();
      return false;
    }
    if (pending_ != kNone) {  // lazy advance of the child whose record was consumed
      uint32_t p = pending_;
      pending_ = kNone;
      Advance(p);
      if (!status_.ok()) return false;
    }
    if (heap_.empty()) return false;
    if (heap_.size() == 1) {
      Child& c = children_[heap_[0]];
      heap_.clear();
      single_ = &c.it;
      std::swap(*out, c.rec);
      return true;
    }
    uint32_t top = Pop();
    // Skip the same key in older tables.
    while (!heap_.empty() && CompareKeys(children_[heap_.front()].rec, children_[top].rec) == 0) {
      uint32_t shadowed = Pop();
      Advance(shadowed);
      if (!status_.ok()) return false;
    }
    std::swap(*out, children_[top].rec);
    pending_ = top;
    return true;
  }

  static constexpr uint32_t kNone = ~uint32_t(0);
  std::vector<Child> children_;
  std::vector<uint32_t> heap_;
  Sub* single_ = nullptr;
  uint32_t pending_ = kNone;
  bool suppress_deletions_ = false;
  Status status_;
};

}  // namespace internal

using MergedRefIterator = internal::MergedIterator<TableRefIterator, RefRecord>;
using MergedLogIterator = internal::MergedIterator<TableLogIterator, LogRecord>;

}  // namespace reftab

#endif  // REFTAB_STORE_MERGED_ITERATOR_H_
