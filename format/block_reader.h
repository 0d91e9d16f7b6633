// Internal: decoding one block and iterating its records (FORMAT.md §5, §12.2-§12.4).
//
// DecodeBlock validates a block header and its restart table bounds and works out how many
// file bytes the block occupies (padding, or the compressed size of a log block). Ref, obj
// and index blocks are served as views into the table bytes; log blocks are inflated into a
// caller-owned buffer that is reused from block to block.
//
// BlockIterator walks the records. Keys are decoded in place: one key buffer per iterator is
// truncated to the shared prefix and extended by the suffix, so no key is ever copied whole
// or allocated per record. Restart keys are compared in place during binary search.
#ifndef REFTAB_FORMAT_BLOCK_READER_H_
#define REFTAB_FORMAT_BLOCK_READER_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes.h"
#include "format/compression.h"
#include "format/constants.h"
#include "format/status.h"

namespace reftab {

struct BlockView {
  BlockType type = BlockType::kRef;
  const uint8_t* data = nullptr;  // block start (file offset 0 for the first block)
  uint32_t header_off = 0;        // file header bytes before the block header
  uint32_t block_len = 0;         // end of the restart count, from `data`
  uint32_t restart_count = 0;
  uint32_t restart_off = 0;  // start of the restart table, from `data`
  uint64_t offset = 0;       // file offset of the block
  uint64_t full_size = 0;    // file bytes the block occupies; the next block starts after
};

// Describes the table that blocks are decoded from.
struct BlockSource {
  const uint8_t* data = nullptr;  // the table's bytes
  uint64_t table_size = 0;        // file size minus footer: blocks live in [0, table_size)
  uint32_t header_size = 24;      // 24 (v1) or 28 (v2)
  uint32_t block_size = 0;        // from the header; 0 = unaligned
};

// The type byte of the block at `offset`, or 0 if there is none (end of table, or not a
// block type). Cheap: callers check the type before decoding (LESSONS.md #5).
uint8_t PeekBlockType(const BlockSource& src, uint64_t offset);

// Decodes the block at `offset`. Log blocks are inflated into `*log_buf` using `inflater`.
// Errors name the offset and the problem.
Status DecodeBlock(const BlockSource& src, uint64_t offset, Inflater* inflater,
                   std::vector<uint8_t>* log_buf, BlockView* out);

// Skips the value of a record of `type` with `value_type`; false if malformed.
bool SkipValue(ByteReader& in, BlockType type, uint8_t value_type, size_t hash_size);

class BlockIterator {
 public:
  BlockIterator() = default;

  // Positions at the first record of `block`.
  void Init(const BlockView& block, size_t hash_size) {
    block_ = block;
    hash_size_ = hash_size;
    pos_ = block.header_off + uint32_t(kBlockHeaderSize);
    key_.clear();
    peeked_ = false;
    error_ = false;
  }

  const BlockView& block() const { return block_; }
  bool error() const { return error_; }

  // Decodes the next record's key into key() and leaves value_type() and value() ready.
  // Returns false at the end of the block or on corruption (then error() is true).
  bool NextKey() {
    if (peeked_) {
      peeked_ = false;
      return true;
    }
    return DecodeKey();
  }
  // The current record's value bytes (up to the restart table). After decoding the value,
  // the caller reports where it ended with ValueDone().
  ByteReader value() const {
    return ByteReader(block_.data + value_pos_, block_.data + block_.restart_off);
  }
  void ValueDone(const ByteReader& in) { pos_ = uint32_t(in.pos() - block_.data); }
  void Fail() { error_ = true; pos_ = block_.restart_off; }

  std::string_view key() const { return key_; }
  uint8_t value_type() const { return value_type_; }

  // Positions before the first record whose key is >= `want` (binary search over the
  // restart points, then a linear scan). Afterwards NextKey() yields that record, or false
  // if every key in the block is smaller. Returns false on corruption.
  bool Seek(std::string_view want);

  // The key of the first record (the first record is always a restart point).
  // Returns false on corruption.
  bool FirstKey(std::string_view* key) const;

 private:
  bool DecodeKey() {
    if (pos_ >= block_.restart_off) return false;
    ByteReader in(block_.data + pos_, block_.data + block_.restart_off);
    uint64_t prefix = in.GetVarint();
    uint64_t suffix_and_type = in.GetVarint();
    uint64_t suffix = suffix_and_type >> 3;
    if (!in.ok() || prefix > key_.size() || suffix > in.remaining()) {
      Fail();
      return false;
    }
    key_.resize(size_t(prefix));
    key_.append(reinterpret_cast<const char*>(in.pos()), size_t(suffix));
    value_type_ = uint8_t(suffix_and_type & 7);
    value_pos_ = uint32_t(in.pos() - block_.data + suffix);
    return true;
  }
  // The key of restart point `i`, compared in place; false on corruption.
  bool RestartKey(uint32_t i, std::string_view* key) const;

  BlockView block_;
  size_t hash_size_ = 20;
  uint32_t pos_ = 0;        // next record to decode
  uint32_t value_pos_ = 0;  // value of the current record
  uint8_t value_type_ = 0;
  bool peeked_ = false;  // Seek() decoded the key of the record NextKey() returns next
  bool error_ = false;
  std::string key_;
};

}  // namespace reftab

#endif  // REFTAB_FORMAT_BLOCK_READER_H_
