// libFuzzer target: DecodeBlock + BlockIterator over arbitrary bytes.
//
// Input: one option byte, then the block data of a table (what precedes its footer).
//   bit 0     version 2 (28-byte header, SHA-256 ids) instead of 1 (24 bytes, SHA-1)
//   bits 1-2  block size: 4096, 0 (unaligned), 256, 512
// The blocks are decoded one after another from offset 0 (whose block sits after the file
// header); every record is decoded with its type's codec, then the block is searched with
// Seek and FindInBlock for keys taken from the block itself and from the input.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "format/compression.h"
#include "format/record_codec.h"

namespace {

using reftab::BlockIterator;
using reftab::BlockType;
using reftab::BlockView;
using reftab::ByteReader;

constexpr int kMaxBlocks = 64;

// Decodes the current record's value with the codec of `type`; false if malformed.
bool DecodeValue(BlockIterator& it, BlockType type, size_t hash_size) {
  ByteReader in = it.value();
  bool ok = false;
  switch (type) {
    case BlockType::kRef: {
      reftab::RefRecord r;
      ok = reftab::codec::GetRefValue(in, it.value_type(), 1, hash_size, &r);
      break;
    }
    case BlockType::kLog: {
      reftab::LogRecord l;
      ok = reftab::codec::SplitLogKey(it.key(), &l.refname, &l.update_index) &&
           reftab::codec::GetLogValue(in, it.value_type(), hash_size, &l);
      break;
    }
    case BlockType::kObj: {
      std::vector<uint64_t> positions;
      ok = reftab::codec::GetObjValue(in, it.value_type(), &positions);
      break;
    }
    case BlockType::kIndex:
      in.GetVarint();
      ok = in.ok();
      break;
  }
  if (ok) it.ValueDone(in);
  return ok;
}

// Walks every record; returns the keys of a few of them for seeking.
std::vector<std::string> WalkRecords(const BlockView& block, size_t hash_size) {
  std::vector<std::string> keys;
  BlockIterator it;
  it.Init(block, hash_size);
  for (size_t n = 0; it.NextKey(); ++n) {
    if (n % 8 == 0) keys.emplace_back(it.key());
    if (!DecodeValue(it, block.type, hash_size)) break;
  }
  return keys;
}

void SeekAll(const BlockView& block, size_t hash_size, std::vector<std::string> keys,
             const uint8_t* data, size_t size) {
  keys.emplace_back();
  keys.emplace_back("\xff\xff");
  keys.emplace_back(reinterpret_cast<const char*>(data), size < 12 ? size : 12);
  BlockIterator it;
  it.Init(block, hash_size);
  std::string_view first;
  (void)it.FirstKey(&first);
  for (const std::string& key : keys) {
    // The in-place search of exact lookups. On unsorted (fuzzed) keys it may legitimately
    // land elsewhere than Seek, so only its memory safety is checked, not agreement.
    (void)reftab::FindInBlock(block, key, hash_size);
    it.Init(block, hash_size);
    if (!it.Seek(key)) continue;
    for (int i = 0; i < 3 && it.NextKey(); ++i) {
      if (!DecodeValue(it, block.type, hash_size)) break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  const uint8_t options = data[0];
  static constexpr uint32_t kBlockSizes[] = {4096, 0, 256, 512};
  reftab::BlockSource src;
  src.data = data + 1;
  src.table_size = size - 1;
  src.header_size = (options & 1) ? 28 : 24;
  src.block_size = kBlockSizes[(options >> 1) & 3];
  const size_t hash_size = (options & 1) ? reftab::kSha256Size : reftab::kSha1Size;

  reftab::Inflater inflater;
  std::vector<uint8_t> log_buf;
  uint64_t offset = 0;
  for (int n = 0; n < kMaxBlocks && offset < src.table_size; ++n) {
    (void)reftab::PeekBlockType(src, offset);
    BlockView block;
    if (!reftab::DecodeBlock(src, offset, &inflater, &log_buf, &block).ok()) break;
    std::vector<std::string> keys = WalkRecords(block, hash_size);
    SeekAll(block, hash_size, std::move(keys), src.data, size - 1);
    offset += block.full_size;
  }
  return 0;
}
