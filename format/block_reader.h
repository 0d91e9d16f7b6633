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
//
// FindInBlock answers "where is the first key >= want" without materialising any key at all:
// it tracks how much of `want` the previous key matched and compares only suffix bytes,
// which is what exact lookups and index descents need (no buffer, no allocation).
#ifndef REFTAB_FORMAT_BLOCK_READER_H_
#define REFTAB_FORMAT_BLOCK_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
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

// Why no block header can be read at `offset` (where PeekBlockType gave 0 inside the block
// data), for an error message: "unknown block type 0x78 at offset 24", or "block header
// past the end of the table" when the data ends within the header.
std::string DescribeMissingBlock(const BlockSource& src, uint64_t offset);

// Asks the CPU to fetch the lines a FindInBlock on the (uncompressed) block at `offset`
// will read first: its restart keys. A hint only: a malformed block is left for the real
// read to report.
void PrefetchBlockKeys(const BlockSource& src, uint64_t offset);

// Decodes the block at `offset`. Log blocks are inflated into `*log_buf` using `inflater`.
// Errors name the offset and the problem.
Status DecodeBlock(const BlockSource& src, uint64_t offset, Inflater* inflater,
                   std::vector<uint8_t>* log_buf, BlockView* out);

// Where restart point `i` (< block.restart_count) says a record starts, from block.data.
// The restart table's bounds were checked by DecodeBlock; the offset itself is not checked.
inline uint32_t RestartOffset(const BlockView& block, uint32_t i) {
  const uint8_t* p = block.data + block.restart_off + 3 * size_t(i);
  return uint32_t(p[0]) << 16 | uint32_t(p[1]) << 8 | uint32_t(p[2]);
}

// Skips the value of a record of `type` with `value_type`; false if malformed.
bool SkipValue(ByteReader& in, BlockType type, uint8_t value_type, size_t hash_size);

// Where the first record with key >= want is (FindInBlock).
struct BlockFind {
  enum Result : uint8_t {
    kEqual,    // a record with key == want
    kGreater,  // no such key; the first greater key is here
    kEnd,      // every key in the block is smaller than want
    kCorrupt,  // malformed record or restart table
  };
  Result result = kEnd;
  uint8_t value_type = 0;
  uint32_t value_pos = 0;   // the record's value, from block.data (kEqual, kGreater)
  uint32_t record_pos = 0;  // where that record starts, from block.data (kEqual, kGreater)
};

// Binary search over the restart points, then a scan that compares suffixes against `want`
// in place (see the file comment). Reads no key into memory and allocates nothing.
BlockFind FindInBlock(const BlockView& block, std::string_view want, size_t hash_size);

// Where a ref record is in its block, for MatchRecordAt: offsets from the block's start.
struct RecordPath {
  uint32_t first;       // the first record, after the block header
  uint32_t start;       // the restart point of the record's interval
  uint32_t checkpoint;  // start, or a record whose key is the restart key's first bytes and
                        // its own suffix (store/ref_hash_index.h)
  uint32_t record;      // the record
  uint32_t end;         // the records end here at the latest (at most the restart count)
};

// MatchRecordAt (format/record_match.h): whether the ref record at a known place has a key.

class BlockIterator {
 public:
  BlockIterator() = default;
  BlockIterator(const BlockIterator& o) { *this = o; }
  BlockIterator& operator=(const BlockIterator& o) {
    if (this == &o) return *this;
    block_ = o.block_;
    next_ = o.next_;
    end_ = o.end_;
    fast_end_ = o.fast_end_;
    value_ = o.value_;
    hash_size_ = o.hash_size_;
    limit_ = o.limit_;
    lcp_ = o.lcp_;
    track_lcp_ = o.track_lcp_;
    value_type_ = o.value_type_;
    error_ = o.error_;
    key_len_ = 0;
    if (o.key_cap_ > key_cap_) GrowKey(o.key_cap_ - kKeySlack);
    if (o.key_len_) std::memcpy(key_.get(), o.key_.get(), o.key_len_);
    key_len_ = o.key_len_;
    return *this;
  }
  BlockIterator(BlockIterator&&) noexcept = default;
  BlockIterator& operator=(BlockIterator&&) noexcept = default;

  // Positions at the first record of `block`.
  void Init(const BlockView& block, size_t hash_size) {
    block_ = block;
    hash_size_ = hash_size;
    next_ = block.data + block.header_off + kBlockHeaderSize;
    end_ = block.data + block.restart_off;
    limit_ = 0;  // the first record shares nothing; the previous key stays for lcp()
    // Hoisted out of the per-record path: a record starting at or before fast_end_ has its
    // two one-byte varints and 16 more bytes before the restart table.
    fast_end_ = block.restart_off >= kFastTail ? end_ - kFastTail : block.data;
    value_ = nullptr;
    error_ = false;
    if (key_cap_ < kMinKeyCap) GrowKey(kMinKeyCap - kKeySlack);
  }

  const BlockView& block() const { return block_; }
  bool error() const { return error_; }

  // Ends the block's records at the record starting at `pos` (from block().data): NextKey()
  // and Seek() stop before it, as at the end of the block. For a range scan that knows
  // where its range ends (a prefix), so that no key past it is compared. A `pos` past the
  // current end changes nothing; 0 leaves no records. Call after Init(), before reading.
  void LimitTo(uint32_t pos) {
    const uint8_t* e = block_.data + pos;
    if (e >= end_) return;
    end_ = e;
    // The fast path of DecodeKey reads kFastTail bytes from a record's start: keep that
    // inside the shortened range too.
    fast_end_ = pos >= kFastTail ? e - kFastTail : block_.data;
  }

  // Decodes the next record's key into key() and leaves value_type() and value() ready.
  // Returns false at the end of the block or on corruption (then error() is true).
  REFTAB_FORCE_INLINE bool NextKey() { return DecodeKey(); }
  // The current record's value bytes (up to the restart table). After decoding the value,
  // the caller reports where it ended with ValueDone(); a value never reported is skipped
  // by the next NextKey().
  ByteReader value() const { return ByteReader(value_, end_); }
  void ValueDone(const ByteReader& in) { next_ = in.pos(); }
  // The same bytes as raw bounds, for a decoder of the common value that checks its length
  // itself and keeps its cursor in a register (a ByteReader whose slow path is out of line
  // lives in memory); it reports the value's end with ValueDoneAt().
  const uint8_t* value_data() const { return value_; }
  const uint8_t* records_end() const { return end_; }
  void ValueDoneAt(const uint8_t* end_of_value) { next_ = end_of_value; }
  void Fail() {
    error_ = true;
    next_ = end_;
  }
  // Leaves no record: NextKey() returns false (error() unchanged), also on an iterator
  // that was never given a block.
  void Stop() {
    next_ = end_;
    value_ = nullptr;
  }

  std::string_view key() const { return std::string_view(key_.get(), key_len_); }
  uint8_t value_type() const { return value_type_; }
  // A non-empty key() is followed by at least this many readable bytes of the key buffer
  // (of no particular value), so a caller may load a fixed-size word from anywhere in the
  // key and mask off what lies past its end (the merge's offset-value codes do).
  static constexpr uint32_t kKeyReadSlack = 16;

  // With set_track_lcp(true), lcp() is the exact length of the common prefix of the current
  // key and the one NextKey() decoded before it, also across blocks (a merge uses it as the
  // key's offset-value code). The stored prefix length is that value for every record but
  // restart points and a block's first record; those cost one comparison.
  void set_track_lcp(bool on) { track_lcp_ = on; }
  uint32_t lcp() const { return lcp_; }

  // Positions before the first record whose key is >= `want` (binary search over the
  // restart points, then a linear scan). Afterwards NextKey() yields that record, or false
  // if every key in the block is smaller. Returns false on corruption.
  bool Seek(std::string_view want);

  // Positions before the record starting at `pos` (from block().data), whose key the
  // caller knows is `key` (it compared the record's whole key: TableReader::FindExactRef):
  // NextKey() then yields that record, as after Seek(key). The next record's shared prefix
  // is taken from `key`, which is the record's own key. False (nothing changed) if `pos`
  // is not inside the records.
  bool PositionAt(uint32_t pos, std::string_view key) {
    const uint8_t* p = block_.data + pos;
    if (pos < block_.header_off + kBlockHeaderSize || p >= end_ || key.size() > UINT32_MAX / 2) {
      return false;
    }
    if (key.size() + kKeySlack > key_cap_) GrowKey(uint32_t(key.size()));
    std::memcpy(key_.get(), key.data(), key.size());
    key_len_ = limit_ = uint32_t(key.size());
    next_ = p;
    value_ = nullptr;
    return true;
  }

  // The key of the first record (the first record is always a restart point).
  // Returns false on corruption.
  bool FirstKey(std::string_view* key) const;

 private:
  // The key buffer keeps this much slack past the key, so short suffixes are copied with
  // one fixed-size move instead of a call to memcpy.
  static constexpr uint32_t kKeySlack = kKeyReadSlack;
  // A one-byte prefix (< 128) plus a suffix of at most 15 bytes always fits in this, so the
  // fast path needs no capacity check.
  static constexpr uint32_t kMinKeyCap = 128 + 16 + kKeySlack;
  static constexpr uint32_t kFastTail = 2 + kKeySlack;

  REFTAB_FORCE_INLINE bool DecodeKey() {
    // next_ == value_: the caller did not read the current value (a merge skipping a
    // shadowed record); step over it first.
    if (next_ == value_ && !SkipUnreadValue()) return false;
    const uint8_t* p = next_;
    // Fast path: prefix and suffix_and_type are one byte each (prefix < 128, suffix < 16).
    if (p <= fast_end_ && ((p[0] | p[1]) & 0x80) == 0) {
      uint32_t prefix = p[0], suffix_and_type = p[1];
      if (prefix > limit_) return FailKey();
      if (track_lcp_) TrackLcp(prefix, p + 2, suffix_and_type >> 3);
      std::memcpy(key_.get() + prefix, p + 2, kKeySlack);
      key_len_ = limit_ = prefix + (suffix_and_type >> 3);
      value_type_ = uint8_t(suffix_and_type & 7);
      value_ = next_ = p + 2 + (suffix_and_type >> 3);
      return true;
    }
    return DecodeKeySlow();
  }
  bool DecodeKeySlow();
  bool SkipUnreadValue();
  // Sets lcp_ for a key made of the previous key's first `prefix` bytes and `suffix`.
  REFTAB_FORCE_INLINE void TrackLcp(uint32_t prefix, const uint8_t* suffix, uint32_t n) {
    lcp_ = prefix;
    if (prefix < key_len_ && n > 0 && uint8_t(key_[prefix]) == suffix[0]) ExtendLcp(suffix, n);
  }
  void ExtendLcp(const uint8_t* suffix, uint32_t n);
  bool FailKey() {
    Fail();
    return false;
  }
  void GrowKey(uint32_t len);
  // The key of restart point `i`, compared in place; false on corruption.
  bool RestartKey(uint32_t i, std::string_view* key) const;

  BlockView block_;
  const uint8_t* next_ = nullptr;      // next record to decode
  const uint8_t* end_ = nullptr;       // the restart table: records end here
  const uint8_t* fast_end_ = nullptr;  // see Init()
  const uint8_t* value_ = nullptr;     // value of the current record
  size_t hash_size_ = 20;
  uint32_t key_len_ = 0;  // the current (or, before the first record, the previous) key
  uint32_t limit_ = 0;    // longest prefix the next record may share (0 at a block start)
  uint32_t key_cap_ = 0;
  uint32_t lcp_ = 0;
  bool track_lcp_ = false;
  std::unique_ptr<char[]> key_;
  uint8_t value_type_ = 0;
  bool error_ = false;
};

}  // namespace reftab

#endif  // REFTAB_FORMAT_BLOCK_READER_H_
