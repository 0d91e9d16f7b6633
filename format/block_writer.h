// Internal: builds one block the way git's writer does (FORMAT.md §5).
//
//   uint8 type | uint24 block_len | records | uint24 restart_offset[n] | uint16 n
//
// A record is a restart point (stored with prefix_length 0 and listed in the restart table)
// when its index in the block is a multiple of the restart interval, or when its key shares
// no prefix with the previous key (git's rule). A record of encoded size `len` fits only if
// next + len + 3 * restarts_after + 2 <= block_size.
//
// Add() is the appender path: it makes sure the buffer can hold the record's maximum
// encoded size once, then encodes key and value with unchecked stores, and checks the fit
// rule once on the real size. A record that does not fit is simply not committed.
#ifndef REFTAB_FORMAT_BLOCK_WRITER_H_
#define REFTAB_FORMAT_BLOCK_WRITER_H_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "format/bytes.h"
#include "format/constants.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace reftab {

enum class AddResult { kAdded, kFull, kTooLarge, kOutOfOrder };

class BlockWriter {
 public:
  BlockWriter(uint32_t block_size, uint32_t restart_interval)
      : block_size_(block_size), restart_interval_(restart_interval ? restart_interval : 1) {}

  // Begins a block of `type`. `file_header` (the table header, for the first block of the
  // file only) is copied before the block header; offsets in the block count it.
  void Start(BlockType type, std::string_view file_header);

  // Adds a record. `encode_value(Appender&)` writes at most `max_value_size` bytes.
  // kFull: the block has records and this one does not fit (finish and retry in a new
  // block). kTooLarge: it does not fit even into an empty block. Keys are taken as given
  // (tests build malformed blocks with it); writers use AddInOrder.
  template <class EncodeValue>
  AddResult Add(std::string_view key, uint8_t value_type, size_t max_value_size,
                EncodeValue&& encode_value) {
    return AddImpl<false>(key, value_type, max_value_size, encode_value);
  }
  // Add, but kOutOfOrder (nothing added) when the block has records and `key` is not greater
  // than the last one. The comparison comes with the shared prefix the record needs anyway,
  // so the caller compares keys itself only for a block's first record.
  template <class EncodeValue>
  AddResult AddInOrder(std::string_view key, uint8_t value_type, size_t max_value_size,
                       EncodeValue&& encode_value) {
    return AddImpl<true>(key, value_type, max_value_size, encode_value);
  }
  // AddInOrder, inlined into the caller: for the one per-record loop where the call's
  // register saves and argument set-up cost more than a tenth of the record (AddRef).
  template <class EncodeValue>
  REFTAB_FORCE_INLINE AddResult AddInOrderInline(std::string_view key, uint8_t value_type,
                                                 size_t max_value_size,
                                                 EncodeValue&& encode_value) {
    return AddImpl<true>(key, value_type, max_value_size, encode_value);
  }

  // Writes the restart table and the block header; returns bytes [0, block_len) of the
  // block (including the file header for the first block). Valid until the next Start().
  std::string_view Finish();

  BlockType type() const { return type_; }
  uint32_t entries() const { return entries_; }
  uint32_t header_off() const { return header_off_; }
  std::string_view last_key() const {
    return std::string_view(reinterpret_cast<const char*>(last_key_.get()), last_len_);
  }
  uint32_t block_size() const { return block_size_; }

  static size_t CommonPrefix(std::string_view a, std::string_view b) {
    size_t n = a.size() < b.size() ? a.size() : b.size();
    return MismatchAt(reinterpret_cast<const uint8_t*>(a.data()),
                      reinterpret_cast<const uint8_t*>(b.data()), n);
  }

  // MismatchAt for a key against the previous one: adjacent names share most of their bytes
  // (30 of 34 on the benchmark's refs), so the comparison goes 16 bytes a step, the last
  // step overlapping the one before (those bytes are equal, so its first difference is the
  // first overall). 8 bytes a step took 57 instructions per ref of 213 in AddImpl. Keys up to
  // 48 bytes (nearly all names) take two or three steps with no loop: the loop's counter and
  // branch cost as much as its compares.
  REFTAB_FORCE_INLINE static size_t KeyMismatch(const uint8_t* a, const uint8_t* b, size_t n) {
#if defined(__SSE2__)
    if (n >= 16) {
      auto diff = [&](size_t at) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + at));
        __m128i y = _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at));
        return unsigned(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y))) ^ 0xffffu;
      };
      size_t i = 0;
      if (n > 48) {
        for (; i + 16 < n; i += 16) {
          if (unsigned m = diff(i)) return i + size_t(__builtin_ctz(m));
        }
      } else if (n > 32) {
        if (unsigned m = diff(0)) return size_t(__builtin_ctz(m));
        if (unsigned m = diff(16)) return 16 + size_t(__builtin_ctz(m));
      } else if (n > 16) {
        if (unsigned m = diff(0)) return size_t(__builtin_ctz(m));
      }
      unsigned m = diff(n - 16);
      return m ? n - 16 + size_t(__builtin_ctz(m)) : n;
    }
#endif
    return MismatchAt(a, b, n);
  }

 private:
  template <bool kCheckOrder, class EncodeValue>
  REFTAB_FORCE_INLINE AddResult AddImpl(std::string_view key, uint8_t value_type,
                                        size_t max_value_size, EncodeValue&& encode_value) {
    const uint8_t* k = reinterpret_cast<const uint8_t*>(key.data());
    size_t shared = 0;  // with the previous key
    if (entries_ > 0 && (kCheckOrder || until_restart_ != 0)) {
      size_t n = key.size() < last_len_ ? key.size() : last_len_;
      shared = KeyMismatch(last_key_.get(), k, n);
      if constexpr (kCheckOrder) {
        bool greater = shared < n ? k[shared] > last_key_[shared] : key.size() > last_len_;
        if (!greater) return AddResult::kOutOfOrder;
      }
    }
    size_t prefix = until_restart_ == 0 ? 0 : shared;
    bool is_restart = prefix == 0;
    size_t suffix = key.size() - prefix;
    EnsureCapacity(next_ + 2 * kMaxVarintLen + suffix + max_value_size);
    uint8_t* start = buf_.data() + next_;
    Appender a(start);
    a.PutVarint(prefix);
    a.PutVarint((uint64_t(suffix) << 3) | value_type);
    a.PutShortBytes(k + prefix, suffix);
    encode_value(a);
    size_t len = size_t(a.pos() - start);
    size_t restarts = restarts_.size();
    if (is_restart && restarts >= kMaxRestarts) is_restart = false;
    if (is_restart) ++restarts;
    if (uint64_t(next_) + len + 3 * restarts + 2 > block_size_) {
      return entries_ == 0 ? AddResult::kTooLarge : AddResult::kFull;
    }
    if (is_restart) restarts_.push_back(next_);
    next_ += uint32_t(len);
    ++entries_;
    // entries_ % restart_interval_, without a division per record.
    until_restart_ = until_restart_ == 0 ? restart_interval_ - 1 : until_restart_ - 1;
    // Keep only the changed tail of the key: the shared prefix is already in place.
    if (key.size() > last_cap_) GrowLastKey(key.size());
    CopyShort(last_key_.get() + shared, k + shared, key.size() - shared);
    last_len_ = uint32_t(key.size());
    return AddResult::kAdded;
  }

  void EnsureCapacity(size_t n) {
    if (buf_.size() < n) buf_.resize(n < 2 * buf_.size() ? 2 * buf_.size() : n);
  }
  void GrowLastKey(size_t n);

  uint32_t block_size_;
  uint32_t restart_interval_;
  BlockType type_ = BlockType::kRef;
  uint32_t header_off_ = 0;
  uint32_t next_ = 0;
  uint32_t entries_ = 0;
  uint32_t until_restart_ = 0;  // records until the next forced restart point
  std::vector<uint8_t> buf_;
  std::vector<uint32_t> restarts_;
  std::unique_ptr<uint8_t[]> last_key_;  // the last record's key, last_len_ bytes
  uint32_t last_len_ = 0;
  uint32_t last_cap_ = 0;
};

}  // namespace reftab

#endif  // REFTAB_FORMAT_BLOCK_WRITER_H_
