#include "store/block_reverse_cursor.h"

#include <cstring>

#include "format/record_match.h"

namespace reftab {

void BlockReverseCursor::Init(const BlockView& block, size_t hash_size) {
  block_ = block;
  hash_size_ = hash_size;
  first_ = block.header_off + uint32_t(kBlockHeaderSize);
  restarts_ = block.restart_count;  // DecodeBlock checked it is at least 1
  implicit_first_ = RestartOffset(block, 0) != first_;
  valid_ = false;
  error_ = false;
  error_offset_ = 0;
  entries_.clear();
}

bool BlockReverseCursor::Fail(uint32_t offset) {
  valid_ = false;
  error_ = true;
  error_offset_ = offset;
  return false;
}

uint32_t BlockReverseCursor::IntervalStart(uint32_t i) const {
  if (implicit_first_) return i == 0 ? first_ : RestartOffset(block_, i - 1);
  return RestartOffset(block_, i);
}

bool BlockReverseCursor::IntervalKey(uint32_t i, std::string_view* key) {
  const uint32_t start = IntervalStart(i);
  if (start < first_ || start >= block_.restart_off) return Fail(block_.restart_off);
  const uint8_t* p = block_.data + start;
  const uint8_t* const end = block_.data + block_.restart_off;
  uint64_t prefix, suffix_and_type;
  if (!GetVarintAt(&p, end, &prefix) || !GetVarintAt(&p, end, &suffix_and_type) || prefix != 0 ||
      (suffix_and_type >> 3) > uint64_t(end - p)) {
    return Fail(start);
  }
  *key = std::string_view(reinterpret_cast<const char*>(p), size_t(suffix_and_type >> 3));
  return true;
}

bool BlockReverseCursor::Decode(uint32_t i) {
  const uint32_t start = IntervalStart(i);
  const uint32_t stop = i + 1 < Intervals() ? IntervalStart(i + 1) : block_.restart_off;
  // The intervals tile the records: the first starts at the first record, each ends where
  // the next starts, the last at the restart table.
  if (start < first_ || (i == 0 && start != first_) || stop <= start || stop > block_.restart_off) {
    return Fail(block_.restart_off);
  }
  entries_.clear();
  const uint8_t* p = block_.data + start;
  const uint8_t* const end = block_.data + stop;
  // keys_ is used as a buffer (its size is its capacity): it grows only when an interval's
  // keys need more than any before, so copying a key is two short moves.
  uint32_t used = 0, prev_begin = 0, prev_len = 0;
  while (p < end) {
    uint64_t prefix, suffix_and_type;
    if (end - p >= 2 && ((p[0] | p[1]) & 0x80) == 0) {  // one byte each: the usual record
      prefix = p[0];
      suffix_and_type = p[1];
      p += 2;
    } else if (!GetVarintAt(&p, end, &prefix) || !GetVarintAt(&p, end, &suffix_and_type)) {
      return Fail(start);
    }
    const uint64_t suffix = suffix_and_type >> 3;
    if (prefix > prev_len || suffix > uint64_t(end - p)) return Fail(start);
    const uint32_t len = uint32_t(prefix + suffix);  // both bounded by the block's size
    if (size_t(used) + len > keys_.size()) keys_.resize(2 * (size_t(used) + len));
    char* k = keys_.data();
    CopyShort(k + used, k + prev_begin, size_t(prefix));  // the key before ends at `used`
    CopyShort(k + used + prefix, reinterpret_cast<const char*>(p), size_t(suffix));
    p += suffix;
    const uint8_t value_type = uint8_t(suffix_and_type & 7);
    entries_.push_back(Entry{used, len, uint32_t(p - block_.data), value_type});
    if (value_type == 3 && block_.type == BlockType::kRef && end - p >= 2 &&
        ((p[0] | p[1]) & 0x80) == 0 && p[1] <= end - p - 2) {
      p += 2 + p[1];  // a short symref (a key/value store's value under 128 bytes)
    } else if (!SkipValueAt(&p, end, block_.type, value_type, hash_size_)) {
      return Fail(start);
    }
    prev_begin = used;
    prev_len = len;
    used += len;
  }
  interval_ = i;
  return true;
}

bool BlockReverseCursor::SeekToLast() {
  valid_ = false;
  if (!Decode(Intervals() - 1)) return false;
  cur_ = uint32_t(entries_.size() - 1);
  valid_ = true;
  return true;
}

bool BlockReverseCursor::SeekBefore(std::string_view want, bool inclusive) {
  valid_ = false;
  auto before = [&](std::string_view k) { return inclusive ? k <= want : k < want; };
  // The first interval whose first key is not before `want`: the one before it holds the
  // answer (its first key is before want), if there is one.
  uint32_t lo = 0, hi = Intervals();
  while (lo < hi) {
    const uint32_t mid = lo + (hi - lo) / 2;
    std::string_view k;
    if (!IntervalKey(mid, &k)) return false;
    if (before(k)) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0 || !Decode(lo - 1)) return false;
  for (uint32_t j = uint32_t(entries_.size()); j-- > 0;) {
    cur_ = j;
    if (before(key())) {
      valid_ = true;
      return true;
    }
  }
  return false;  // keys out of order: nothing here, the caller looks in the block before
}

bool BlockReverseCursor::PrevInterval() {
  valid_ = false;
  if (interval_ == 0 || !Decode(interval_ - 1)) return false;
  cur_ = uint32_t(entries_.size() - 1);
  valid_ = true;
  return true;
}

}  // namespace reftab
