// The "before" side of the ablations in perf/ablate.cc: straightforward versions of two
// techniques the library relies on, written the way a first implementation (or git's C
// library before its 2024 speed work) does it. Each produces exactly what the production
// code produces, so the ablation can check equal results before comparing times.
#ifndef REFTAB_PERF_NAIVE_H_
#define REFTAB_PERF_NAIVE_H_

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "format/constants.h"
#include "format/record.h"

namespace reftab::naive {

// A write cursor that checks the remaining space on every field (git's reftable writer
// checks `n > dest.len` after each put). Sticky failure.
class CheckedAppender {
 public:
  CheckedAppender(uint8_t* p, uint8_t* end) : p_(p), end_(end) {}
  bool ok() const { return ok_; }
  uint8_t* pos() const { return p_; }
  void PutByte(uint8_t b) {
    if (!Room(1)) return;
    *p_++ = b;
  }
  void PutBytes(const void* data, size_t n) {
    if (!Room(n)) return;
    if (n) std::memcpy(p_, data, n);
    p_ += n;
  }
  // The encoding is the library's (Appender); only the bounds check is per field.
  void PutVarint(uint64_t v) {
    uint8_t buf[kMaxVarintLen];
    Appender a(buf);
    a.PutVarint(v);
    PutBytes(buf, size_t(a.pos() - buf));
  }

 private:
  bool Room(size_t n) {
    if (ok_ && size_t(end_ - p_) >= n) return true;
    ok_ = false;
    return false;
  }
  uint8_t* p_;
  uint8_t* end_;
  bool ok_ = true;
};

// A block writer with the same layout rules as format/block_writer.h, but encoding each
// field through CheckedAppender into the space left in the block, as git's does: no
// reservation per record, a bounds check per field, and the fit rule checked after.
class CheckedBlockWriter {
 public:
  CheckedBlockWriter(uint32_t block_size, uint32_t restart_interval)
      : block_size_(block_size), restart_interval_(restart_interval), buf_(block_size) {}

  void Start(BlockType type) {
    type_ = type;
    next_ = uint32_t(kBlockHeaderSize);
    entries_ = 0;
    restarts_.clear();
    last_key_.clear();
  }

  // Adds a ref record with one object id (value type 1); false if it does not fit.
  bool AddVal1(std::string_view key, uint64_t update_index_delta, const uint8_t* id,
               size_t hash_size) {
    size_t prefix = 0;
    if (entries_ % restart_interval_ != 0) {
      size_t n = last_key_.size() < key.size() ? last_key_.size() : key.size();
      while (prefix < n && last_key_[prefix] == key[prefix]) ++prefix;
    }
    bool is_restart = prefix == 0;
    size_t restarts = restarts_.size() + (is_restart ? 1 : 0);
    // Space for records: the block minus what the restart table will need.
    size_t reserved = 3 * restarts + 2;
    if (next_ + reserved > block_size_) return false;
    CheckedAppender a(buf_.data() + next_, buf_.data() + block_size_ - reserved);
    a.PutVarint(prefix);
    a.PutVarint((uint64_t(key.size() - prefix) << 3) | 1);
    a.PutBytes(key.data() + prefix, key.size() - prefix);
    a.PutVarint(update_index_delta);
    a.PutBytes(id, hash_size);
    if (!a.ok()) return false;
    if (is_restart) restarts_.push_back(next_);
    next_ = uint32_t(a.pos() - buf_.data());
    ++entries_;
    last_key_.assign(key.data(), key.size());
    return true;
  }

  std::string_view Finish() {
    uint8_t* p = buf_.data() + next_;
    for (uint32_t r : restarts_) {
      be::Store24(p, r);
      p += 3;
    }
    be::Store16(p, uint16_t(restarts_.size()));
    p += 2;
    uint32_t len = uint32_t(p - buf_.data());
    buf_[0] = uint8_t(type_);
    be::Store24(buf_.data() + 1, len);
    return std::string_view(reinterpret_cast<const char*>(buf_.data()), len);
  }
  uint32_t entries() const { return entries_; }

 private:
  uint32_t block_size_;
  uint32_t restart_interval_;
  BlockType type_ = BlockType::kRef;
  uint32_t next_ = 0;
  uint32_t entries_ = 0;
  std::vector<uint8_t> buf_;
  std::vector<uint32_t> restarts_;
  std::string last_key_;
};

// Walks a block building every key as a fresh string: prefix copied out of the previous
// key, suffix appended, the result moved into place (git before daf4f43d0d / 92fa3253c8).
class AllocatingBlockIterator {
 public:
  explicit AllocatingBlockIterator(const BlockView& b)
      : p_(b.data + b.header_off + kBlockHeaderSize), end_(b.data + b.restart_off) {}

  // Decodes the next key; false at the end or on malformed data.
  bool NextKey() {
    if (p_ >= end_) return false;
    ByteReader in(p_, end_);
    uint64_t prefix = in.GetVarint();
    uint64_t suffix_and_type = in.GetVarint();
    uint64_t suffix = suffix_and_type >> 3;
    if (!in.ok() || prefix > key_.size() || suffix > in.remaining()) return false;
    std::string key = key_.substr(0, size_t(prefix));
    key.append(reinterpret_cast<const char*>(in.pos()), size_t(suffix));
    key_ = std::move(key);
    value_type_ = uint8_t(suffix_and_type & 7);
    value_ = in.pos() + suffix;
    return true;
  }
  const std::string& key() const { return key_; }
  uint8_t value_type() const { return value_type_; }
  ByteReader value() const { return ByteReader(value_, end_); }
  void ValueDone(const ByteReader& in) { p_ = in.pos(); }

 private:
  const uint8_t* p_;
  const uint8_t* end_;
  const uint8_t* value_ = nullptr;
  uint8_t value_type_ = 0;
  std::string key_;
};

}  // namespace reftab::naive

#endif  // REFTAB_PERF_NAIVE_H_
