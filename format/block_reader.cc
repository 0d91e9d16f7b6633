#include "format/block_reader.h"

#include <string>

#include "format/record_codec.h"

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
    if (inflater == nullptr || log_buf == nullptr) return BlockError(offset, "unexpected log block");
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
      return BlockError(offset, "block_len " + std::to_string(block_len) +
                                    " runs past the end of the table");
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
    case BlockType::kIndex:
      in.GetVarint();
      return in.ok();
  }
  return false;
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
  key_.clear();
  peeked_ = false;
  if (lo > 0) {
    pos_ = be::Load24(block_.data + block_.restart_off + 3 * (lo - 1));
  } else {
    pos_ = block_.header_off + uint32_t(kBlockHeaderSize);
  }
  // Linear scan from there; stop *at* the first key >= want, keeping it decoded.
  while (DecodeKey()) {
    if (std::string_view(key_) >= want) {
      peeked_ = true;
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

}  // namespace reftab
