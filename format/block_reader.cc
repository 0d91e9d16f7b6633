#include "format/block_reader.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include "format/record_codec.h"
#include "format/record_match.h"

namespace reftab {

static Status BlockError(uint64_t offset, std::string_view what) {
  return Status::Corruption("block at offset " + std::to_string(offset) + ": " + std::string(what));
}

uint8_t PeekBlockType(const BlockSource& src, uint64_t offset) {
  uint64_t header_off = offset == 0 ? src.header_size : 0;
  if (!FitsWithin(offset, header_off + kBlockHeaderSize, src.table_size)) return 0;
  uint8_t t = src.data[offset + header_off];
  return IsBlockType(t) ? t : 0;
}

std::string DescribeMissingBlock(const BlockSource& src, uint64_t offset) {
  uint64_t at = offset + (offset == 0 ? src.header_size : 0);
  if (at < src.table_size && !IsBlockType(src.data[at])) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02x", unsigned(src.data[at]));
    return std::string("unknown block type ") + hex + " at offset " + std::to_string(at);
  }
  return "block header past the end of the table";
}

void PrefetchBlockKeys(const BlockSource& src, uint64_t offset) {
  uint64_t header_off = offset == 0 ? src.header_size : 0;
  if (!FitsWithin(offset, header_off + kBlockHeaderSize, src.table_size)) return;
  const uint8_t* p = src.data + offset;
  uint32_t block_len = be::Load24(p + header_off + 1);
  if (block_len < header_off + kBlockHeaderSize + 2 ||
      !FitsWithin(offset, block_len, src.table_size)) {
    return;
  }
  uint32_t restarts = be::Load16(p + block_len - 2);
  if (restarts == 0 || restarts > 32 || 3 * uint64_t(restarts) + 2 > block_len) return;
  const uint8_t* table = p + block_len - 2 - 3 * restarts;
  for (uint32_t i = 0; i < restarts; ++i) {
    uint32_t off = be::Load24(table + 3 * i);
    if (off < block_len) __builtin_prefetch(p + off);
  }
}

Status DecodeBlock(const BlockSource& src, uint64_t offset, Inflater* inflater,
                   std::vector<uint8_t>* log_buf, BlockView* out) {
  uint32_t header_off = offset == 0 ? src.header_size : 0;
  if (!FitsWithin(offset, header_off + kBlockHeaderSize, src.table_size)) {
    return BlockError(offset, "block header past the end of the table");
  }
  const uint8_t* p = src.data + offset;
  uint8_t type = p[header_off];
  if (!IsBlockType(type)) return BlockError(offset, "unknown block type");
  uint32_t block_len = be::Load24(p + header_off + 1);
  if (block_len < header_off + kBlockHeaderSize + 2) {
    return BlockError(offset, "block_len " + std::to_string(block_len) + " too small");
  }
  BlockView b;
  b.type = BlockType(type);
  b.header_off = header_off;
  b.block_len = block_len;
  b.offset = offset;
  if (b.type == BlockType::kLog) {
    if (inflater == nullptr || log_buf == nullptr)
      return BlockError(offset, "unexpected log block");
    // Inflate everything after the block header; the uncompressed header bytes are copied
    // in front so that offsets inside the block work unchanged.
    size_t prefix = header_off + kBlockHeaderSize;
    log_buf->resize(block_len);
    std::memcpy(log_buf->data(), p, prefix);
    size_t consumed = 0;
    Status s = inflater->Inflate(p + prefix, size_t(src.table_size - offset - prefix),
                                 log_buf->data() + prefix, block_len - prefix, &consumed);
    if (!s.ok()) return std::move(s).WithContext("block at offset " + std::to_string(offset));
    b.data = log_buf->data();
    b.full_size = prefix + consumed;
  } else {
    if (!FitsWithin(offset, block_len, src.table_size)) {
      return BlockError(
          offset, "block_len " + std::to_string(block_len) + " runs past the end of the table");
    }
    b.data = p;
    if (src.block_size == 0) {
      b.full_size = block_len;
    } else if (block_len < src.block_size && offset + block_len < src.table_size &&
               p[block_len] != 0) {
      b.full_size = block_len;  // unpadded: the next block's type byte follows directly
    } else {
      b.full_size = block_len > src.block_size ? block_len : src.block_size;
    }
  }
  b.restart_count = be::Load16(b.data + block_len - 2);
  if (b.restart_count == 0) return BlockError(offset, "restart count is 0");
  uint64_t table_bytes = 2 + 3 * uint64_t(b.restart_count);
  if (table_bytes > block_len || block_len - table_bytes <= header_off + kBlockHeaderSize) {
    return BlockError(offset, "restart table of " + std::to_string(b.restart_count) +
                                  " entries does not fit in the block");
  }
  b.restart_off = uint32_t(block_len - table_bytes);
  *out = b;
  return Status::Ok();
}

bool SkipValue(ByteReader& in, BlockType type, uint8_t value_type, size_t hash_size) {
  switch (type) {
    case BlockType::kRef: return codec::SkipRefValue(in, value_type, hash_size);
    case BlockType::kLog:
      if (value_type == 0) return true;
      if (value_type != 1) return false;
      in.GetBytes(2 * hash_size);
      in.GetLengthPrefixed();
      in.GetLengthPrefixed();
      in.GetVarint();
      in.GetBE16();
      in.GetLengthPrefixed();
      return in.ok();
    case BlockType::kObj: {
      uint64_t count = value_type ? value_type : in.GetVarint();
      if (!in.ok() || count > in.remaining()) return false;
      for (uint64_t i = 0; i < count; ++i) in.GetVarint();
      return in.ok();
    }
    case BlockType::kIndex: in.GetVarint(); return in.ok();
  }
  return false;
}

bool BlockIterator::DecodeKeySlow() {
  // Raw pointers and GetVarintAt rather than a ByteReader: every restart point of a block
  // of long names comes here (its suffix is the whole name: suffix_and_type takes two
  // bytes), so this is a per-record cost too.
  const uint8_t* p = next_;
  if (p >= end_) return false;
  uint64_t prefix, suffix_and_type;
  if (end_ - p >= 3 && ((p[0] | p[2]) & 0x80) == 0) {
    // A one-byte prefix and a suffix_and_type of one byte or two (a suffix under 2048
    // bytes): the restart points of long names, and records near the end of the block.
    prefix = p[0];
    if (p[1] & 0x80) {
      suffix_and_type = (uint64_t((p[1] & 0x7f) + 1) << 7) | p[2];
      p += 3;
    } else {
      suffix_and_type = p[1];
      p += 2;
    }
  } else if (!GetVarintAt(&p, end_, &prefix) || !GetVarintAt(&p, end_, &suffix_and_type)) {
    return FailKey();
  }
  const uint64_t suffix = suffix_and_type >> 3;
  if (prefix > limit_ || suffix > uint64_t(end_ - p)) return FailKey();
  uint32_t len = uint32_t(prefix + suffix);  // both bounded by the block size
  if (len + kKeySlack > key_cap_) GrowKey(len);
  if (track_lcp_) TrackLcp(uint32_t(prefix), p, uint32_t(suffix));
  CopyShort(key_.get() + prefix, reinterpret_cast<const char*>(p), size_t(suffix));
  key_len_ = limit_ = len;
  value_type_ = uint8_t(suffix_and_type & 7);
  value_ = next_ = p + suffix;
  return true;
}

bool BlockIterator::SkipUnreadValue() {
  if (next_ == nullptr) return false;  // no block yet
  ByteReader in(value_, end_);
  if (!SkipValue(in, block_.type, value_type_, hash_size_)) return FailKey();
  next_ = in.pos();
  value_ = nullptr;
  return true;
}

void BlockIterator::ExtendLcp(const uint8_t* suffix, uint32_t n) {
  uint32_t m = key_len_ - lcp_ < n ? key_len_ - lcp_ : n;
  lcp_ += uint32_t(MismatchAt(reinterpret_cast<const uint8_t*>(key_.get()) + lcp_, suffix, m));
}

void BlockIterator::GrowKey(uint32_t len) {
  uint32_t cap = key_cap_ ? key_cap_ : 64;
  while (cap < len + kKeySlack) cap *= 2;
  std::unique_ptr<char[]> bigger(new char[cap]);
  if (key_len_) std::memcpy(bigger.get(), key_.get(), key_len_);
  key_ = std::move(bigger);
  key_cap_ = cap;
}

bool BlockIterator::RestartKey(uint32_t i, std::string_view* key) const {
  uint32_t off = be::Load24(block_.data + block_.restart_off + 3 * i);
  if (off < block_.header_off + kBlockHeaderSize || off >= block_.restart_off) return false;
  ByteReader in(block_.data + off, block_.data + block_.restart_off);
  uint64_t prefix = in.GetVarint();
  uint64_t suffix = in.GetVarint() >> 3;
  if (!in.ok() || prefix != 0 || suffix > in.remaining()) return false;
  *key = std::string_view(reinterpret_cast<const char*>(in.pos()), size_t(suffix));
  return true;
}

bool BlockIterator::FirstKey(std::string_view* key) const {
  uint32_t off = block_.header_off + uint32_t(kBlockHeaderSize);
  ByteReader in(block_.data + off, block_.data + block_.restart_off);
  uint64_t prefix = in.GetVarint();
  uint64_t suffix = in.GetVarint() >> 3;
  if (!in.ok() || prefix != 0 || suffix > in.remaining()) return false;
  *key = std::string_view(reinterpret_cast<const char*>(in.pos()), size_t(suffix));
  return true;
}

bool BlockIterator::Seek(std::string_view want) {
  // Find the first restart point whose key is greater than `want`.
  uint32_t lo = 0, hi = block_.restart_count;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    std::string_view k;
    if (!RestartKey(mid, &k)) {
      Fail();
      return false;
    }
    if (k > want) {
      hi = mid;
    } else {
      lo = mid + 1;
    }
  }
  key_len_ = limit_ = 0;
  value_ = nullptr;
  if (lo > 0) {
    next_ = block_.data + be::Load24(block_.data + block_.restart_off + 3 * (lo - 1));
  } else {
    next_ = block_.data + block_.header_off + kBlockHeaderSize;
  }
  // Linear scan from there; stop *at* the first key >= want and step back to its start, so
  // that NextKey() decodes it again. That costs one key per seek and spares every NextKey()
  // of a scan a check for "already decoded". Decoding it again gives the same key: the key
  // buffer still holds its first `prefix` bytes (limit_ is its length, at least its prefix).
  // Its lcp() is then against itself; no caller reads the lcp() of a seek's first record.
  for (;;) {
    const uint8_t* record = next_;
    if (!DecodeKey()) break;
    if (key() >= want) {
      next_ = record;
      value_ = nullptr;
      return true;
    }
    ByteReader in = value();
    if (!SkipValue(in, block_.type, value_type_, hash_size_)) {
      Fail();
      return false;
    }
    ValueDone(in);
  }
  return !error_;
}

// Restart point `i`'s key, in place; false if the restart offset or record is malformed.
static inline bool RestartKeyAt(const BlockView& b, uint32_t i, const uint8_t** key, size_t* len) {
  uint32_t off = be::Load24(b.data + b.restart_off + 3 * i);
  if (off < b.header_off + kBlockHeaderSize || off >= b.restart_off) return false;
  const uint8_t* p = b.data + off;
  const uint8_t* const end = b.data + b.restart_off;
  uint64_t prefix, suffix_and_type;
  if (!GetVarintAt(&p, end, &prefix) || !GetVarintAt(&p, end, &suffix_and_type)) return false;
  uint64_t suffix = suffix_and_type >> 3;
  if (prefix != 0 || suffix > uint64_t(end - p)) return false;
  *key = p;
  *len = size_t(suffix);
  return true;
}

// The scan of FindInBlock from the record at `start` (a restart point: it shares nothing
// with the record before it).
REFTAB_HOT_INLINE static BlockFind ScanInterval(const BlockView& b, uint32_t start,
                                                std::string_view want, size_t hash_size) {
  BlockFind r;
  r.result = BlockFind::kCorrupt;
  if (start < b.header_off + kBlockHeaderSize || start >= b.restart_off) return r;
  const uint8_t* w = reinterpret_cast<const uint8_t*>(want.data());
  const size_t wn = want.size();
  // Invariant: the previous key (cur_len bytes) is < want and equals want in its first
  // `match` bytes. A record sharing more than `match` bytes with it is then < want too; one
  // sharing at most `match` equals want up to its prefix, so only its suffix is compared.
  const uint8_t* p = b.data + start;
  const uint8_t* const end = b.data + b.restart_off;
  // Most ref records are small: one-byte prefix and suffix_and_type (so a suffix under 16
  // bytes), a one-byte update index delta, then no id, one or two. One starting at or before
  // fast_end has room for all of that before the restart table, so the scan decodes it and
  // steps over its value without a bounds check or a varint loop (LESSONS.md #5: hoisted
  // invariants). Other records, and other block types, take the general path.
  const size_t fast_room = 2 + 15 + 1 + 2 * hash_size;
  const uint8_t* const fast_end =
      b.type == BlockType::kRef && size_t(end - p) > fast_room ? end - fast_room : b.data;
  size_t cur_len = 0, match = 0;
  while (p < end) {
    const uint8_t* const record = p;
    uint64_t prefix, suffix_and_type;
    const bool fast = p <= fast_end && ((p[0] | p[1]) & 0x80) == 0;
    if (fast) {
      prefix = p[0];
      suffix_and_type = p[1];
      p += 2;
    } else if (!GetVarintAt(&p, end, &prefix) || !GetVarintAt(&p, end, &suffix_and_type)) {
      return r;
    }
    uint64_t suffix = suffix_and_type >> 3;
    if (prefix > cur_len || (!fast && suffix > uint64_t(end - p))) return r;
    const uint8_t* s = p;
    p += suffix;
    uint8_t value_type = uint8_t(suffix_and_type & 7);
    cur_len = size_t(prefix + suffix);
    if (prefix <= match) {
      // Equal to want up to `prefix`; compare the suffix with the rest of want.
      size_t at = size_t(prefix), n = size_t(suffix), rest = wn - at;
      size_t lim = n < rest ? n : rest;
      size_t l = MismatchAt(s, w + at, lim);
      int cmp = l < lim ? (s[l] < w[at + l] ? -1 : 1) : n == rest ? 0 : n < rest ? -1 : 1;
      if (cmp >= 0) {
        r.result = cmp == 0 ? BlockFind::kEqual : BlockFind::kGreater;
        r.value_type = value_type;
        r.value_pos = uint32_t(p - b.data);
        r.record_pos = uint32_t(record - b.data);
        return r;
      }
      match = at + l;
    }
    if (fast && value_type <= 2 && (*p & 0x80) == 0) {
      p += 1 + (value_type == 0 ? 0 : value_type == 1 ? hash_size : 2 * hash_size);
      continue;
    }
    if (!SkipValueAt(&p, end, b.type, value_type, hash_size)) return r;
  }
  r.result = BlockFind::kEnd;
  return r;
}

BlockFind FindInBlock(const BlockView& b, std::string_view want, size_t hash_size) {
  BlockFind r;
  r.result = BlockFind::kCorrupt;
  const uint8_t* w = reinterpret_cast<const uint8_t*>(want.data());
  const size_t wn = want.size();
  // The last restart point whose key is <= want: the scan starts there. Keys between two
  // restart points share at least min(lcp(lo), lcp(hi)) bytes with want (they are sorted),
  // so comparisons start there.
  uint32_t lo = 0, hi = b.restart_count;
  size_t lcp_lo = 0, lcp_hi = 0;
  // A block that is not in cache costs one memory round trip per dependent read. Ask for
  // every restart key's line at once, so the binary search waits for memory about once.
  if (hi <= 32) {
    const uint8_t* table = b.data + b.restart_off;
    for (uint32_t i = 0; i < hi; ++i) __builtin_prefetch(b.data + be::Load24(table + 3 * i));
  }
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    const uint8_t* k;
    size_t kn;
    if (!RestartKeyAt(b, mid, &k, &kn)) return r;
    size_t skip = lcp_lo < lcp_hi ? lcp_lo : lcp_hi;
    size_t n = kn < wn ? kn : wn;
    if (skip > n) skip = n;
    size_t l = skip + MismatchAt(k + skip, w + skip, n - skip);
    bool greater = l < n ? k[l] > w[l] : kn > wn;
    if (greater) {
      hi = mid;
      lcp_hi = l;
    } else {
      lo = mid + 1;
      lcp_lo = l;
    }
  }
  uint32_t start = lo > 0 ? be::Load24(b.data + b.restart_off + 3 * (lo - 1))
                          : b.header_off + uint32_t(kBlockHeaderSize);
  return ScanInterval(b, start, want, hash_size);
}

}  // namespace reftab
