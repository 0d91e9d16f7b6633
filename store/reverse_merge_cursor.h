// Internal, not installed (store/meson.build leaves it out of store_public_headers): the ref
// records of a stack's tables merged backwards, the mirror of store/merge_cursor.h's forward
// merge, with the same rules: tables oldest first; on equal names the newest table's record
// is the one seen and the older ones are skipped; tombstones optionally dropped (after
// hiding the older records of their name).
//
// A binary heap of the tables' cursors with the greatest name on top (the newest table's on
// a tie). Stepping back moves the top cursor and those of the older tables on the same name
// (shadowed), each restoring the heap with one sift. Once a single table is left it is used
// directly, without the heap: the common case of one big base table (and, as forwards, what
// a store holds after a full compaction).
#ifndef REFTAB_STORE_REVERSE_MERGE_CURSOR_H_
#define REFTAB_STORE_REVERSE_MERGE_CURSOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "store/readahead_window.h"
#include "store/table_reader.h"
#include "store/table_reverse_cursor.h"

namespace reftab {

class RefReverseMergeCursor {
 public:
  // `tables` oldest first.
  explicit RefReverseMergeCursor(const std::vector<const TableReader*>& tables);
  RefReverseMergeCursor(RefReverseMergeCursor&&) = default;
  RefReverseMergeCursor& operator=(RefReverseMergeCursor&&) = default;

  // Drop deletion records instead of returning them.
  void set_suppress_deletions(bool v) { suppress_deletions_ = v; }
  // Every table reads ahead (TableRefReverseCursor::set_readahead): a value read as a view
  // (ReadValue(RefView*)) is then valid only until the next move, not after Prev().
  void set_readahead(bool on, uint64_t after_bytes = ReadaheadWindow::kAfterBytes) {
    for (TableRefReverseCursor& c : children_) c.set_readahead(on, after_bytes);
  }

  // Positions on the last record.
  Status SeekToLast();
  // Positions on the last record whose name is < want (inclusive: <= want).
  Status SeekBefore(std::string_view want, bool inclusive);
  // Whether there is a current record; false before the first or on error (status()).
  bool Valid() const { return top_ != nullptr; }
  // Moves to the previous record (the previous name). Only while Valid().
  void Prev() {
    if (single_) [[likely]] {
      TableRefReverseCursor& c = *top_;
      c.Prev();
      if (c.Valid() && (!suppress_deletions_ || c.value_type() != 0)) [[likely]]
        return;
      SettleSingle();
      return;
    }
    PrevMerged();
  }
  std::string_view key() const { return top_->key(); }
  uint8_t value_type() const { return top_->value_type(); }
  // Fills `*ref` with the current record; false (status() set, not Valid()) if malformed.
  bool ReadValue(RefRecord* ref) {
    if (top_->ReadValue(ref)) [[likely]]
      return true;
    Failed(*top_);
    return false;
  }
  // The same into a RefView: the value is a view of the table's bytes (valid after Prev(),
  // unless the tables read ahead).
  bool ReadValue(RefView* ref) {
    if (top_->ReadValue(ref)) [[likely]]
      return true;
    Failed(*top_);
    return false;
  }
  const Status& status() const { return status_; }

 private:
  template <class F>
  Status Reposition(F&& seek);
  void PrevMerged();
  void SettleSingle();  // skips tombstones (if dropped) with one table left
  void Settle();        // the same with the heap
  // Steps back the cursors on the top name: the older tables' (shadowed), then the top's.
  void StepTopName();
  void Failed(const TableRefReverseCursor& c);
  // The heap of live cursors (indexes into children_): a before b if a's name is greater,
  // or equal and a's table newer.
  bool Above(uint32_t a, uint32_t b) const;
  void SiftDown(size_t i);
  void PopTop();     // removes heap_[0]
  void Rebuild();    // after any number of children moved
  void UpdateTop();  // top_ and single_ from the heap

  std::vector<TableRefReverseCursor> children_;
  std::vector<uint32_t> heap_;
  TableRefReverseCursor* top_ = nullptr;  // the current record's cursor; null: none
  bool single_ = false;                   // one live cursor left: top_, no heap
  bool suppress_deletions_ = false;
  std::string name_;  // StepTopName's copy of the name being left
  Status status_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_REVERSE_MERGE_CURSOR_H_
