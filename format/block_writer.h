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

#include <bit>
#include <cstdint>
#include <cstring>
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
  // AddInOrder's unchecked path alone, inlined into the caller, for the one per-record loop
  // where a call's register saves and argument set-up cost more than a tenth of the record
  // (AddRef). True: added. False: nothing changed, because the record is out of order or
  // may not fit (the block's last records); AddInOrder then gives the verdict. The value
  // encoder is not called out of line, so its captures stay in registers.
  template <class EncodeValue>
  REFTAB_FORCE_INLINE bool TryAddInOrder(std::string_view key, uint8_t value_type,
                                         size_t max_value_size, EncodeValue&& encode_value) {
    return AddImpl<true, true>(key, value_type, max_value_size, encode_value) == AddResult::kAdded;
  }

  // Writes the restart table and the block header; returns bytes [0, block_len) of the
  // block (including the file header for the first block). Valid until the next Start().
  std::string_view Finish();

  // The memory blocks are built in, which a writer of later tables may take over
  // (AdoptBuffer) rather than fault fresh pages in for its own.
  struct Buffer {
    std::unique_ptr<uint8_t[]> bytes;
    size_t size = 0;
  };
  // Gives the buffer away; the writer then has none (Start makes another).
  Buffer TakeBuffer() {
    Buffer b{std::move(buf_), cap_};
    cap_ = 0;
    next_ = 0;
    return b;
  }
  // Builds the next blocks in `b` if it is larger than the buffer the writer has. Only
  // between blocks (before Start).
  void AdoptBuffer(Buffer b) {
    if (b.size <= cap_) return;
    buf_ = std::move(b.bytes);
    cap_ = b.size;
    next_ = 0;
  }

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
  // kTryOnly: a record that may not fit is not added (kFull), for TryAddInOrder.
  template <bool kCheckOrder, bool kTryOnly = false, class EncodeValue>
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
    size_t size = key.size();
    // The record's largest encoding ends below fast_end_: then it fits in the block (with a
    // restart entry) and in the buffer, and nothing is checked after encoding it. Only a
    // block's last records, near the end, and keys longer than any before (last_key_ grows)
    // take the checked path.
    if (next_ + (2 * kMaxVarintLen + max_value_size) + (size - prefix) > fast_end_ ||
        size > last_cap_) {
      if constexpr (kTryOnly) {
        return AddResult::kFull;
      } else {
        return AddChecked(k, size, shared, prefix, value_type, max_value_size, encode_value);
      }
    }
    uint8_t* start = buf_.get() + next_;
    uint8_t* end = EncodeRecord(start, k, size, prefix, value_type, encode_value);
    Commit(size_t(end - start), prefix == 0, k, size, shared);
    return AddResult::kAdded;
  }

  // AddImpl for a record that may not fit: the buffer grows to its largest encoding, and the
  // block's fit rule is checked on the encoded size.
  template <class EncodeValue>
  [[gnu::noinline]] AddResult AddChecked(const uint8_t* k, size_t size, size_t shared,
                                         size_t prefix, uint8_t value_type, size_t max_value_size,
                                         EncodeValue& encode_value) {
    // + kSuffixSpill: PutSuffix may write that far past the suffix.
    EnsureCapacity(next_ + 2 * kMaxVarintLen + (size - prefix) + kSuffixSpill + max_value_size);
    uint8_t* start = buf_.get() + next_;
    size_t len = size_t(EncodeRecord(start, k, size, prefix, value_type, encode_value) - start);
    bool is_restart = prefix == 0;
    size_t restarts = restart_count_;
    if (is_restart && restarts < kMaxRestarts) ++restarts;
    if (uint64_t(next_) + len + 3 * restarts + 2 > block_size_) {
      return entries_ == 0 ? AddResult::kTooLarge : AddResult::kFull;
    }
    if (size > last_cap_) GrowLastKey(size);
    Commit(len, is_restart, k, size, shared);
    return AddResult::kAdded;
  }

  template <class EncodeValue>
  REFTAB_FORCE_INLINE static uint8_t* EncodeRecord(uint8_t* p, const uint8_t* k, size_t size,
                                                   size_t prefix, uint8_t value_type,
                                                   EncodeValue& encode_value) {
    Appender head(p);
    head.PutVarint(prefix);
    head.PutVarint((uint64_t(size - prefix) << 3) | value_type);
    Appender a(PutSuffix(head.pos(), k, prefix, size));
    encode_value(a);
    return a.pos();
  }

  // Adds the record just encoded at next_ (`len` bytes, `k` its key, `shared` bytes of it in
  // common with the last key, or 0 if unknown) to the block. last_key_ holds `size` bytes.
  REFTAB_FORCE_INLINE void Commit(size_t len, bool is_restart, const uint8_t* k, size_t size,
                                  size_t shared) {
    // No capacity check: restarts_ holds as many entries as the fit rule allows.
    if (is_restart && restart_count_ < kMaxRestarts) {
      restarts_[restart_count_++] = next_;
      fast_end_ = FastEnd();
    }
    next_ += uint32_t(len);
    ++entries_;
    // entries_ % restart_interval_, without a division per record.
    until_restart_ = until_restart_ == 0 ? restart_interval_ - 1 : until_restart_ - 1;
    // Keep only the changed tail of the key: the shared prefix is already in place.
    CopyTail(last_key_.get(), k, shared, size);
    last_len_ = uint32_t(size);
  }

  // The end of the block's records when one more restart entry is added (0 if none fit).
  uint32_t FastEnd() const {
    uint64_t table = 2 + 3 * (uint64_t(restart_count_) + 1);
    return block_size_ > table ? uint32_t(block_size_ - table) : 0;
  }

  // Writes key[prefix, size) at p and returns its end. A suffix of 1 to 8 bytes of a key of
  // at least 8 is one 8-byte load of the key's last bytes, shifted so that the suffix comes
  // first, and one 8-byte store: up to kSuffixSpill bytes past the suffix are garbage, which
  // the value (or the next record) overwrites. (A copy of that size took 12 instructions.)
  static constexpr size_t kSuffixSpill = 8;
  REFTAB_FORCE_INLINE static uint8_t* PutSuffix(uint8_t* p, const uint8_t* k, size_t prefix,
                                                size_t size) {
    size_t n = size - prefix;
    if (n - 1 < 8 && size >= 8) {
      uint64_t w;
      std::memcpy(&w, k + size - 8, 8);
      if constexpr (std::endian::native == std::endian::little) {
        w >>= 8 * (8 - n);
      } else {
        w <<= 8 * (8 - n);
      }
      std::memcpy(p, &w, 8);
      return p + n;
    }
    if (n > 16 && n <= 48) {  // a restart point's whole name: no memcpy call
      Move16(p, k + prefix);
      if (n > 32) Move16(p + 16, k + prefix + 16);
      Move16(p + n - 16, k + size - 16);
      return p + n;
    }
    CopyShort(p, k + prefix, n);
    return p + n;
  }
  REFTAB_FORCE_INLINE static void Move16(uint8_t* dst, const uint8_t* src) {
    uint8_t t[16];
    std::memcpy(t, src, 16);
    std::memcpy(dst, t, 16);
  }
  // Copies key[from, size) to dst, whose [0, from) holds key[0, from) already. A tail of up
  // to 16 bytes of a key of at least 16 is one 16-byte move ending at the key's end: the
  // bytes it rewrites before `from` are equal.
  REFTAB_FORCE_INLINE static void CopyTail(uint8_t* dst, const uint8_t* k, size_t from,
                                           size_t size) {
    if (size >= 16 && size - from <= 16) {
      Move16(dst + size - 16, k + size - 16);
      return;
    }
    CopyShort(dst + from, k + from, size - from);
  }

  void EnsureCapacity(size_t n) {
    if (cap_ < n) Grow(n);
  }
  // A buffer of at least n bytes (twice the old at least), holding the block so far.
  void Grow(size_t n);
  void GrowLastKey(size_t n);

  uint32_t block_size_;
  uint32_t restart_interval_;
  BlockType type_ = BlockType::kRef;
  uint32_t header_off_ = 0;
  uint32_t next_ = 0;
  // FastEnd(): AddImpl's bound for its unchecked path. (Between next_ and entries_: side by
  // side, g++ updates those two with vector instructions, 9 instead of 2.)
  uint32_t fast_end_ = 0;
  uint32_t entries_ = 0;
  uint32_t until_restart_ = 0;  // records until the next forced restart point
  // Not zeroed when made or grown: only bytes written are read. Zeroed, a 512 KiB block
  // (values of 100 KiB) cost a memset when made and another when grown for its last record.
  std::unique_ptr<uint8_t[]> buf_;
  size_t cap_ = 0;
  // Offsets of the restart points. The fit rule keeps 3 bytes per entry, so a block has
  // fewer than block_size_ / 3 (and at most kMaxRestarts); Start allocates that many once.
  std::unique_ptr<uint32_t[]> restarts_;
  uint32_t restart_count_ = 0;
  std::unique_ptr<uint8_t[]> last_key_;  // the last record's key, last_len_ bytes
  uint32_t last_len_ = 0;
  uint32_t last_cap_ = 0;
};

}  // namespace reftab

#endif  // REFTAB_FORMAT_BLOCK_WRITER_H_
