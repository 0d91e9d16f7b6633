// Internal, not installed (store/meson.build leaves it out of store_public_headers): the
// records of one uncompressed block (ref or index), backwards.
//
// A record's key is stored as the bytes it shares with the key before it plus its own
// suffix, so a block decodes forwards only, except at its restart points, whose records
// share nothing. Going back is therefore done an interval at a time (the records from one
// restart point to the next): the interval is decoded forwards once into a small buffer of
// whole keys and value positions, which is then handed out backwards; stepping back past
// its first record decodes the interval before it. Each record is decoded once per backward
// pass, as forwards, plus a binary search over the restart keys for a seek.
//
// The first record of a block is a restart point whether or not the restart table lists it
// (reftable writers list it; the table is only read for its offsets). An interval that does
// not decode cleanly, exactly up to where the next one starts, is an error (error(),
// error_offset()): never a crash, and never a loop, as every record read moves forwards.
#ifndef REFTAB_STORE_BLOCK_REVERSE_CURSOR_H_
#define REFTAB_STORE_BLOCK_REVERSE_CURSOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/block_reader.h"
#include "format/bytes.h"

namespace reftab {

class BlockReverseCursor {
 public:
  // Starts on `block` (not a log block: those are compressed), on no record.
  void Init(const BlockView& block, size_t hash_size);

  // Positions on the last record; false if there is none (corrupt: see error()).
  bool SeekToLast();
  // Positions on the last record whose key is < want (inclusive: <= want); false if every
  // key of the block is greater (or the block is corrupt: see error()).
  bool SeekBefore(std::string_view want, bool inclusive);
  // Moves to the record before; false before the first one (or on corruption). Only while
  // Valid().
  bool Prev() {
    if (cur_ > 0) [[likely]] {
      --cur_;
      return true;
    }
    return PrevInterval();
  }
  bool Valid() const { return valid_; }

  // The current record's key; valid until the cursor is moved or given another block.
  std::string_view key() const {
    const Entry& e = entries_[cur_];
    return std::string_view(keys_.data() + e.key_begin, e.key_len);
  }
  uint8_t value_type() const { return entries_[cur_].value_type; }
  // The current record's value bytes, up to the end of the block's records.
  ByteReader value() const {
    return ByteReader(block_.data + entries_[cur_].value_pos, block_.data + block_.restart_off);
  }
  const BlockView& block() const { return block_; }

  bool error() const { return error_; }
  // Where the damage is, from the block's start: the interval that does not decode, or the
  // restart table.
  uint32_t error_offset() const { return error_offset_; }

 private:
  struct Entry {
    uint32_t key_begin;  // in keys_
    uint32_t key_len;
    uint32_t value_pos;  // from block_.data
    uint8_t value_type;
  };
  uint32_t Intervals() const { return restarts_ + (implicit_first_ ? 1 : 0); }
  // Where interval i starts and the one after it (or the records' end).
  uint32_t IntervalStart(uint32_t i) const;
  bool IntervalKey(uint32_t i, std::string_view* key);  // its first record's key
  bool Decode(uint32_t i);                              // fills entries_ and keys_
  bool PrevInterval();
  bool Fail(uint32_t offset);

  BlockView block_;
  size_t hash_size_ = 20;
  uint32_t first_ = 0;           // the first record, from block_.data
  uint32_t restarts_ = 0;        // entries in the restart table
  bool implicit_first_ = false;  // the restart table does not list the first record
  uint32_t interval_ = 0;        // the interval in entries_
  uint32_t cur_ = 0;             // the current record in entries_
  bool valid_ = false;
  bool error_ = false;
  uint32_t error_offset_ = 0;
  std::vector<Entry> entries_;
  std::string keys_;  // the interval's keys, whole, back to back (a buffer: see Decode)
};

}  // namespace reftab

#endif  // REFTAB_STORE_BLOCK_REVERSE_CURSOR_H_
