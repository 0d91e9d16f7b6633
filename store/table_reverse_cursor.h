// Internal, not installed (store/meson.build leaves it out of store_public_headers): the ref
// records of one table, tombstones included, backwards (store/block_reverse_cursor.h does
// the work within a block).
//
// Finding blocks:
//   * the block that may hold the last key before K: the index's block for K (the first
//     whose last key is >= K), or the block before it if every key there is >= K; the last
//     block when every key of the table is < K. Without an index (a small table), from the
//     last block backwards;
//   * the last block: the index's last entry, following the last record of each level down
//     from the top one; without an index, the section walked from its start (a table
//     without an index has at most a few blocks);
//   * the block before one: in an aligned table every ref block but the last is padded to
//     the table's block size (the writers pad a block whenever another non-log block
//     follows), so it starts one block size earlier, which is checked (it must be a ref
//     block that ends exactly there). Otherwise (an unpadded table) the offsets of the
//     section's blocks are collected once per cursor by walking their headers from the
//     section's start (one read per block).
// Errors name the table and the offset of the damaged block (and of the damaged part of
// it); a cursor that failed stays invalid until the next seek.
#ifndef REFTAB_STORE_TABLE_REVERSE_CURSOR_H_
#define REFTAB_STORE_TABLE_REVERSE_CURSOR_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes.h"
#include "format/record.h"
#include "format/status.h"
#include "store/block_reverse_cursor.h"
#include "store/readahead_window.h"
#include "store/ref_view.h"
#include "store/table_reader.h"

namespace reftab {

class TableRefReverseCursor {
 public:
  explicit TableRefReverseCursor(const TableReader* table) : table_(table) {}
  const TableReader* table() const { return table_; }

  // Positions on the last record (not Valid() if the table has no refs).
  Status SeekToLast();
  // Positions on the last record whose name is < want (inclusive: <= want).
  Status SeekBefore(std::string_view want, bool inclusive);
  bool Valid() const { return valid_; }
  // Moves to the record before; not Valid() past the first one or on error (status()).
  // Only while Valid().
  void Prev() {
    if (it_.Prev()) [[likely]]
      return;
    PrevBlock();
  }
  const Status& status() const { return status_; }

  // The current record's name and value type (0: a tombstone); valid until the next move.
  std::string_view key() const { return it_.key(); }
  uint8_t value_type() const { return it_.value_type(); }
  // Fills `*ref` with the current record; false (and status() set, the cursor invalid) if
  // its value is malformed. A key/value store's record (a symref whose update index delta
  // and length take a byte each: values under 128 bytes) is decoded inline.
  REFTAB_FORCE_INLINE bool ReadValue(RefRecord* ref) {
    ByteReader in = it_.value();
    const uint8_t* v = in.pos();
    if (it_.value_type() == 3 && in.remaining() >= 2 && ((v[0] | v[1]) & 0x80) == 0 &&
        size_t(v[1]) <= in.remaining() - 2) [[likely]] {
      ref->update_index = table_->min_update_index() + v[0];
      ref->value_type = RefValueType::kSymref;
      Assign(std::string_view(reinterpret_cast<const char*>(v + 2), v[1]), &ref->target);
      Assign(key(), &ref->refname);
      return true;
    }
    return ReadOtherValue(ref);
  }
  // The same into a RefView: the value is a view of the table's bytes, not a copy (it stays
  // valid when the cursor moves on; with read-ahead on, only until then).
  bool ReadValue(RefView* ref);

  // Read ahead (off by default): once the blocks PrevBlock has left one after another hold
  // `after_bytes` (see SectionCursor::set_readahead), the blocks before are decoded from a
  // window of the file (store/readahead_window.h), refilled backwards, instead of from the
  // mapping. A seek starts the count again. Views of values (RefView) are then valid only
  // until the cursor moves. A block the window cannot decode is read from the mapping (which
  // reports it); a failed read turns the read-ahead off.
  void set_readahead(bool on, uint64_t after_bytes = ReadaheadWindow::kAfterBytes) {
    readahead_ = on;
    readahead_after_ = after_bytes;
  }

 private:
  Status Load(uint64_t offset);
  // The block before the one at `offset` (*found false: it is the first).
  Status BlockBefore(uint64_t offset, uint64_t* before, bool* found);
  // Its two ways: one block size back in an aligned table, where the ref section starts at
  // `start` (false if there is no room; the caller checks that a block ending at `offset`
  // starts there), and the walked offsets_ (false if `offset` is the first).
  bool AlignedBefore(uint64_t start, uint64_t offset, uint64_t* before) const;
  bool WalkedBefore(uint64_t offset, uint64_t* before) const;
  Status LastBlock(uint64_t* offset, bool* found);
  Status WalkSection();  // fills offsets_
  void PrevBlock();
  // PrevBlock's read-ahead: loads the block before the one at `offset` from the window,
  // refilling it backwards as needed. False if it did not (no block before, one the window
  // cannot decode, or a failed read): the caller then goes to the mapping.
  bool LoadBehind(uint64_t offset);
  [[gnu::noinline]] bool ReadOtherValue(RefRecord* ref);
  Status Fail(Status s);
  Status BlockDamage();  // the block cursor's error, as a Status
  // *to = from: one as long as the one it replaces (keys and values of one length, the
  // usual case) with short moves, no call.
  REFTAB_FORCE_INLINE static void Assign(std::string_view from, std::string* to) {
    if (from.size() == to->size()) {
      CopyShort(to->data(), from.data(), from.size());
    } else {
      to->assign(from.data(), from.size());
    }
  }

  const TableReader* table_;
  BlockReverseCursor it_;
  bool valid_ = false;
  Status status_;
  std::vector<uint64_t> offsets_;  // the section's blocks, once walked
  bool walked_ = false;
  bool readahead_ = false;
  uint64_t readahead_after_ = ReadaheadWindow::kAfterBytes;
  uint64_t passed_ = 0;  // the bytes of the blocks PrevBlock left since the last seek
  std::unique_ptr<ReadaheadWindow> window_;  // made at the first read ahead
};

}  // namespace reftab

#endif  // REFTAB_STORE_TABLE_REVERSE_CURSOR_H_
