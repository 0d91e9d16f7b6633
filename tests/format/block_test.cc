// format/block_writer.h and format/block_reader.h: building blocks the way git does
// (FORMAT.md §5) and reading them back with DecodeBlock and BlockIterator (§12.2-§12.4).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "format/block_writer.h"
#include "format/bytes.h"
#include "format/compression.h"
#include "format/header.h"
#include "format/record_codec.h"

namespace reftab {
namespace {

constexpr size_t kHash = 20;

// A block built in memory, decoded as the only block of a "table" made of its bytes.
struct Block {
  std::string bytes;  // the file bytes (log blocks compressed)
  std::vector<uint8_t> log_buf;
  Inflater inflater;
  BlockView view;
  Status status;
};

// Ref records "HEAD"-style: value type 1 with an id derived from the key.
RefRecord RefFor(std::string_view key) {
  RefRecord r;
  r.refname = std::string(key);
  r.value_type = RefValueType::kVal1;
  for (size_t i = 0; i < kHash; ++i) r.value[i] = uint8_t(key.size() * 31 + i);
  return r;
}

AddResult AddRef(BlockWriter& w, std::string_view key) {
  RefRecord r = RefFor(key);
  return w.Add(key, 1, codec::RefValueMaxSize(r, kHash),
               [&](Appender& a) { codec::PutRefValue(a, r, 0, kHash); });
}

// Decodes `block->bytes` as the block at offset 0 of a table with `header_size` bytes of
// file header in front.
void Decode(Block* block, uint32_t header_size, uint32_t block_size) {
  BlockSource src;
  src.data = reinterpret_cast<const uint8_t*>(block->bytes.data());
  src.table_size = block->bytes.size();
  src.header_size = header_size;
  src.block_size = block_size;
  block->status = DecodeBlock(src, 0, &block->inflater, &block->log_buf, &block->view);
}

// Builds a ref block with `keys` (all must fit) and decodes it.
void BuildRefBlock(const std::vector<std::string>& keys, uint32_t restart_interval,
                   std::string_view file_header, Block* out, uint32_t block_size = 1 << 20) {
  BlockWriter w(block_size, restart_interval);
  w.Start(BlockType::kRef, file_header);
  for (const std::string& k : keys) {
    ASSERT_EQ(AddRef(w, k), AddResult::kAdded) << k;
  }
  out->bytes = std::string(w.Finish());
  Decode(out, uint32_t(file_header.size()), block_size);
  ASSERT_TRUE(out->status.ok()) << out->status.ToString();
}

// Reads all keys of a block; fails the test on corruption.
std::vector<std::string> ReadKeys(const BlockView& view, size_t hash_size = kHash) {
  std::vector<std::string> keys;
  BlockIterator it;
  it.Init(view, hash_size);
  while (it.NextKey()) {
    keys.emplace_back(it.key());
    ByteReader in = it.value();
    EXPECT_TRUE(SkipValue(in, view.type, it.value_type(), hash_size));
    it.ValueDone(in);
  }
  EXPECT_FALSE(it.error());
  return keys;
}

// File offsets (from the block start) of every record, found by walking the block.
std::vector<uint32_t> RecordOffsets(const BlockView& view) {
  std::vector<uint32_t> offsets;
  BlockIterator it;
  it.Init(view, kHash);
  uint32_t next = view.header_off + uint32_t(kBlockHeaderSize);
  while (it.NextKey()) {
    offsets.push_back(next);
    ByteReader in = it.value();
    EXPECT_TRUE(SkipValue(in, view.type, it.value_type(), kHash));
    it.ValueDone(in);
    next = uint32_t(in.pos() - view.data);
  }
  return offsets;
}

std::vector<uint32_t> RestartTable(const BlockView& view) {
  std::vector<uint32_t> out;
  for (uint32_t i = 0; i < view.restart_count; ++i) {
    out.push_back(be::Load24(view.data + view.restart_off + 3 * i));
  }
  return out;
}

LogRecord DeletionLog(const std::string& refname, uint64_t update_index) {
  LogRecord l;
  l.refname = refname;
  l.update_index = update_index;
  return l;
}

std::vector<std::string> NumberedKeys(const std::string& prefix, int n) {
  std::vector<std::string> keys;
  for (int i = 0; i < n; ++i) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%05d", i);
    keys.push_back(prefix + buf);
  }
  return keys;
}

// ---------------------------------------------------------------- writer layout

TEST(BlockWriterTest, RestartsAtEveryIntervalAndEveryZeroPrefixKey) {
  // Keys sharing prefixes, interrupted by keys sharing nothing with their predecessor.
  std::vector<std::string> keys = {"HEAD",   "refs/a", "refs/b", "refs/c", "refs/d", "refs/e",
                                   "refs/f", "s",      "sa",     "sb",     "sc",     "t",
                                   "ta",     "tb",     "tc",     "td"};
  for (uint32_t interval : {1u, 2u, 3u, 4u, 16u}) {
    Block b;
    BuildRefBlock(keys, interval, "", &b);
    std::vector<uint32_t> offsets = RecordOffsets(b.view);
    ASSERT_EQ(offsets.size(), keys.size());
    std::vector<uint32_t> want;
    for (size_t i = 0; i < keys.size(); ++i) {
      bool zero_prefix = i == 0 || BlockWriter::CommonPrefix(keys[i - 1], keys[i]) == 0;
      if (i % interval == 0 || zero_prefix) want.push_back(offsets[i]);
    }
    EXPECT_EQ(RestartTable(b.view), want) << "interval " << interval;
    // Restart records are stored with prefix_length 0; the others use the longest prefix.
    for (size_t i = 0; i < keys.size(); ++i) {
      uint8_t prefix = b.view.data[offsets[i]];
      bool is_restart = std::find(want.begin(), want.end(), offsets[i]) != want.end();
      size_t expected = is_restart ? 0 : BlockWriter::CommonPrefix(keys[i - 1], keys[i]);
      EXPECT_EQ(prefix, expected) << keys[i] << " interval " << interval;
    }
    EXPECT_EQ(ReadKeys(b.view), keys);
  }
}

TEST(BlockWriterTest, FirstBlockCountsTheFileHeader) {
  TableHeader h;
  std::string file_header;
  h.EncodeTo(&file_header);
  Block b;
  BuildRefBlock({"HEAD", "refs/heads/main"}, 16, file_header, &b);
  EXPECT_EQ(b.view.header_off, 24u);
  EXPECT_EQ(b.bytes.substr(0, 24), file_header);
  EXPECT_EQ(b.bytes[24], 'r');
  EXPECT_EQ(be::Load24(reinterpret_cast<const uint8_t*>(b.bytes.data()) + 25), b.bytes.size());
  // First restart at 28 (v1), the second because "refs/..." shares nothing with "HEAD".
  EXPECT_EQ(RestartTable(b.view), (std::vector<uint32_t>{28, RecordOffsets(b.view)[1]}));
  EXPECT_EQ(ReadKeys(b.view), (std::vector<std::string>{"HEAD", "refs/heads/main"}));
}

TEST(BlockWriterTest, FillsABlockExactlyAsFarAsTheFitRuleAllows) {
  std::vector<std::string> keys = NumberedKeys("refs/heads/topic-", 200);
  for (uint32_t interval : {1u, 3u, 16u}) {
    for (uint32_t block_size = 64; block_size <= 700; block_size += 13) {
      BlockWriter w(block_size, interval);
      w.Start(BlockType::kRef, "");
      size_t added = 0;
      AddResult r = AddResult::kAdded;
      while (added < keys.size() && (r = AddRef(w, keys[added])) == AddResult::kAdded) ++added;
      ASSERT_LT(added, keys.size());
      size_t block_len = w.Finish().size();
      EXPECT_LE(block_len, block_size);
      // The same records plus the rejected one, in an unbounded block, exceed block_size:
      // i.e. next + len + 3 * restarts_after + 2 > block_size held for the rejected record.
      BlockWriter big(1 << 20, interval);
      big.Start(BlockType::kRef, "");
      for (size_t i = 0; i <= added; ++i) {
        ASSERT_EQ(AddRef(big, keys[i]), AddResult::kAdded);
      }
      EXPECT_GT(big.Finish().size(), block_size) << "block_size " << block_size;
      EXPECT_EQ(r, added == 0 ? AddResult::kTooLarge : AddResult::kFull);
    }
  }
}

// A buffer taken from one writer and adopted by another holds the last one's bytes (and
// is never zeroed): blocks built in it must be the blocks a fresh writer builds.
TEST(BlockWriterTest, BlocksBuiltInAnAdoptedBufferAreAFreshWritersBlocks) {
  std::vector<std::string> keys;
  for (int i = 0; i < 400; ++i) keys.push_back("refs/heads/branch-" + std::to_string(1000 + i));
  auto build = [&](BlockWriter& w, std::string_view file_header) {
    std::vector<std::string> blocks;
    w.Start(BlockType::kRef, file_header);
    for (const std::string& k : keys) {
      AddResult r = AddRef(w, k);
      if (r == AddResult::kFull) {
        blocks.emplace_back(w.Finish());
        w.Start(BlockType::kRef, "");
        r = AddRef(w, k);
      }
      EXPECT_EQ(r, AddResult::kAdded) << k;
    }
    blocks.emplace_back(w.Finish());
    return blocks;
  };
  const std::string header(24, 'h');
  BlockWriter fresh(1024, 16);
  const std::vector<std::string> want = build(fresh, header);
  ASSERT_GT(want.size(), 5u);

  BlockWriter first(4096, 4);
  build(first, "");
  BlockWriter::Buffer buffer = first.TakeBuffer();
  ASSERT_GE(buffer.size, 4096u);
  std::memset(buffer.bytes.get(), 0xab, buffer.size);  // stale bytes, not zeros
  const uint8_t* lent = buffer.bytes.get();
  BlockWriter second(1024, 16);
  second.AdoptBuffer(std::move(buffer));
  EXPECT_EQ(build(second, header), want);
  BlockWriter::Buffer back = second.TakeBuffer();
  EXPECT_EQ(back.bytes.get(), lent);  // large enough: it was used, not replaced
  // The writer whose buffer was taken makes another.
  EXPECT_EQ(build(second, header), want);
  // A buffer smaller than the writer's own is not taken.
  auto small = std::make_unique<uint8_t[]>(16);
  const uint8_t* offered = small.get();
  second.AdoptBuffer(BlockWriter::Buffer{std::move(small), 16});
  EXPECT_EQ(build(second, header), want);
  EXPECT_NE(second.TakeBuffer().bytes.get(), offered);
}

TEST(BlockWriterTest, TooLargeRecordLeavesTheBlockUsable) {
  BlockWriter w(64, 16);
  w.Start(BlockType::kRef, "");
  EXPECT_EQ(AddRef(w, std::string(100, 'x')), AddResult::kTooLarge);
  EXPECT_EQ(w.entries(), 0u);
  EXPECT_EQ(AddRef(w, "a"), AddResult::kAdded);
  EXPECT_EQ(AddRef(w, std::string(100, 'x')), AddResult::kFull);
  Block b;
  b.bytes = std::string(w.Finish());
  Decode(&b, 0, 64);
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(ReadKeys(b.view), std::vector<std::string>{"a"});
}

TEST(BlockWriterTest, StopsRegisteringRestartsAt65535) {
  // Interval 1 would make every record a restart; the restart count field is 16 bits.
  std::vector<std::string> keys = NumberedKeys("k", 70000);
  BlockWriter w(kMaxBlockSize, 1);
  w.Start(BlockType::kIndex, "");
  for (size_t i = 0; i < keys.size(); ++i) {
    ASSERT_EQ(w.Add(keys[i], 0, codec::IndexValueMaxSize(), [&](Appender& a) { a.PutVarint(i); }),
              AddResult::kAdded);
  }
  Block b;
  b.bytes = std::string(w.Finish());
  Decode(&b, 0, kMaxBlockSize);
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(b.view.restart_count, kMaxRestarts);
  EXPECT_EQ(ReadKeys(b.view), keys);
  BlockIterator it;
  it.Init(b.view, kHash);
  ASSERT_TRUE(it.Seek(keys[69999]));
  ASSERT_TRUE(it.NextKey());
  EXPECT_EQ(it.key(), keys[69999]);
}

// ---------------------------------------------------------------- DecodeBlock

TEST(DecodeBlockTest, PaddedAndUnpaddedBlocksOccupyTheRightSpan) {
  Block b;
  BuildRefBlock({"a", "b"}, 16, "", &b, 256);
  size_t block_len = b.bytes.size();
  // Padded: NULs follow, the block spans block_size bytes.
  b.bytes.append(256 - block_len, '\0');
  b.bytes.append("r");  // start of a following block
  Decode(&b, 0, 256);
  ASSERT_TRUE(b.status.ok());
  EXPECT_EQ(b.view.full_size, 256u);
  EXPECT_EQ(b.view.block_len, block_len);
  // Unpadded: the next block's type byte follows directly.
  b.bytes.resize(block_len);
  b.bytes.append("r");
  Decode(&b, 0, 256);
  ASSERT_TRUE(b.status.ok());
  EXPECT_EQ(b.view.full_size, block_len);
  // block_size 0 (JGit, unaligned): always block_len.
  b.bytes.resize(block_len);
  b.bytes.append(10, '\0');
  Decode(&b, 0, 0);
  ASSERT_TRUE(b.status.ok());
  EXPECT_EQ(b.view.full_size, block_len);
}

TEST(DecodeBlockTest, RejectsMalformedHeadersAndRestartTables) {
  Block good;
  BuildRefBlock({"a", "b", "c"}, 1, "", &good, 256);
  auto decode_with = [&](const std::function<void(std::string*)>& mutate) {
    Block b;
    b.bytes = good.bytes;
    mutate(&b.bytes);
    Decode(&b, 0, 256);
    return b.status;
  };
  auto set24 = [](std::string* s, size_t at, uint32_t v) {
    be::Store24(reinterpret_cast<uint8_t*>(s->data()) + at, v);
  };
  auto set16 = [](std::string* s, size_t at, uint16_t v) {
    be::Store16(reinterpret_cast<uint8_t*>(s->data()) + at, v);
  };
  const size_t n = good.bytes.size();
  std::vector<Status> errors = {
      decode_with([](std::string* s) { (*s)[0] = 'x'; }),                  // unknown type
      decode_with([&](std::string* s) { set24(s, 1, 5); }),                // block_len too small
      decode_with([&](std::string* s) { set24(s, 1, uint32_t(n + 1)); }),  // past the end
      decode_with([&](std::string* s) { set16(s, n - 2, 0); }),            // no restarts
      decode_with([&](std::string* s) { set16(s, n - 2, 0xffff); }),       // table too big
      decode_with([&](std::string* s) { s->resize(3); }),                  // header cut
  };
  for (const Status& s : errors) {
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Code::kCorruption);
    EXPECT_NE(s.message().find("offset 0"), std::string::npos) << s.message();
  }
}

TEST(DecodeBlockTest, PeekBlockTypeReportsOnlyBlockTypes) {
  std::string bytes = "xxxxr";
  bytes.resize(14);  // NULs: no room for another block header at 11
  BlockSource src;
  src.data = reinterpret_cast<const uint8_t*>(bytes.data());
  src.table_size = bytes.size();
  src.header_size = 4;
  EXPECT_EQ(PeekBlockType(src, 0), 'r');  // the header_off of block 0
  EXPECT_EQ(PeekBlockType(src, 1), 0);    // 'x' is no block type
  EXPECT_EQ(PeekBlockType(src, 11), 0);   // no room for a block header
  EXPECT_EQ(PeekBlockType(src, 1000), 0);
}

// ---------------------------------------------------------------- BlockIterator::Seek

void ExpectSeekFinds(const BlockView& view, std::string_view want, const std::string* expected) {
  BlockIterator it;
  it.Init(view, kHash);
  ASSERT_TRUE(it.Seek(want)) << want;
  if (expected == nullptr) {
    EXPECT_FALSE(it.NextKey()) << want;
    EXPECT_FALSE(it.error());
    return;
  }
  ASSERT_TRUE(it.NextKey()) << want;
  EXPECT_EQ(it.key(), *expected) << "seek " << want;
  // The value is readable right after a Seek.
  ByteReader in = it.value();
  RefRecord r;
  ASSERT_TRUE(codec::GetRefValue(in, it.value_type(), 0, kHash, &r));
  EXPECT_EQ(r.value, RefFor(*expected).value);
}

TEST(BlockIteratorTest, SeeksPresentAbsentBeforeFirstAndAfterLastKeys) {
  std::vector<std::string> keys = NumberedKeys("refs/heads/b/", 150);
  keys.insert(keys.begin(), "HEAD");
  keys.push_back("refs/tags/v1");
  for (uint32_t interval : {1u, 2u, 3u, 16u, 64u, 1000u}) {
    Block b;
    BuildRefBlock(keys, interval, "", &b);
    for (size_t i = 0; i < keys.size(); ++i) {
      ExpectSeekFinds(b.view, keys[i], &keys[i]);
      // Just below the key: the key itself; just above: its successor.
      std::string below = keys[i].substr(0, keys[i].size() - 1);
      if (i == 0 || below > keys[i - 1]) ExpectSeekFinds(b.view, below, &keys[i]);
      std::string above = keys[i] + '\0';
      ExpectSeekFinds(b.view, above, i + 1 < keys.size() ? &keys[i + 1] : nullptr);
    }
    ExpectSeekFinds(b.view, "", &keys.front());
    ExpectSeekFinds(b.view, "A", &keys.front());
    ExpectSeekFinds(b.view, "refs/heads/b/00049x", &keys[51]);
    ExpectSeekFinds(b.view, "refs/u", nullptr);
    ExpectSeekFinds(b.view, "\xff", nullptr);
  }
}

TEST(BlockIteratorTest, SeekThenNextContinuesInOrder) {
  std::vector<std::string> keys = NumberedKeys("r/", 40);
  Block b;
  BuildRefBlock(keys, 4, "", &b);
  BlockIterator it;
  it.Init(b.view, kHash);
  ASSERT_TRUE(it.Seek("r/00017"));
  for (size_t i = 17; i < keys.size(); ++i) {
    ASSERT_TRUE(it.NextKey());
    EXPECT_EQ(it.key(), keys[i]);
    ByteReader in = it.value();
    ASSERT_TRUE(SkipValue(in, BlockType::kRef, it.value_type(), kHash));
    it.ValueDone(in);
  }
  EXPECT_FALSE(it.NextKey());
  EXPECT_FALSE(it.error());
}

// Binary search over restarts must not touch records outside the sought restart interval.
// A record far from the sought key is made undecodable; a linear scan from the start of
// the block would trip over it, a binary search never reads it.
TEST(BlockIteratorTest, SeekReadsOnlyTheRestartIntervalOfTheKey) {
  std::vector<std::string> keys = NumberedKeys("refs/heads/", 256);
  for (uint32_t interval : {2u, 16u}) {
    Block b;
    BuildRefBlock(keys, interval, "", &b);
    std::vector<uint32_t> offsets = RecordOffsets(b.view);
    // Record 1 is not a restart (it shares "refs/heads/0000" with record 0); a prefix
    // length of 0x7f is longer than any previous key, which the decoder rejects.
    ASSERT_EQ(RestartTable(b.view)[1], offsets[interval]);
    b.bytes[offsets[1]] = 0x7f;
    for (size_t i = interval; i < keys.size(); i += 7) ExpectSeekFinds(b.view, keys[i], &keys[i]);
    ExpectSeekFinds(b.view, "s", nullptr);
    // The damaged record itself is found by the scan of the first interval.
    BlockIterator it;
    it.Init(b.view, kHash);
    EXPECT_FALSE(it.Seek(keys[1]));
    EXPECT_TRUE(it.error());
  }
}

// FindInBlock is the allocation-free variant of Seek used by exact lookups: it must land on
// the same record as BlockIterator::Seek for every key.
void ExpectFindAgreesWithSeek(const BlockView& view, std::string_view want) {
  BlockIterator it;
  it.Init(view, kHash);
  ASSERT_TRUE(it.Seek(want));
  BlockFind found = FindInBlock(view, want, kHash);
  if (!it.NextKey()) {
    EXPECT_EQ(found.result, BlockFind::kEnd) << want;
    return;
  }
  EXPECT_EQ(found.result, it.key() == want ? BlockFind::kEqual : BlockFind::kGreater) << want;
  EXPECT_EQ(found.value_type, it.value_type()) << want;
  ByteReader in(view.data + found.value_pos, view.data + view.restart_off);
  RefRecord r;
  ASSERT_TRUE(codec::GetRefValue(in, found.value_type, 0, kHash, &r)) << want;
  EXPECT_EQ(r.value, RefFor(it.key()).value) << want;
}

TEST(FindInBlockTest, AgreesWithSeekOnPresentAbsentAndBoundaryKeys) {
  std::vector<std::string> keys = NumberedKeys("refs/heads/b/", 120);
  keys.insert(keys.begin(), "HEAD");
  keys.push_back("refs/heads/b/00119/deeper");
  keys.push_back("refs/tags/v1");
  for (uint32_t interval : {1u, 2u, 3u, 16u, 1000u}) {
    Block b;
    BuildRefBlock(keys, interval, "", &b);
    for (const std::string& k : keys) {
      ExpectFindAgreesWithSeek(b.view, k);
      ExpectFindAgreesWithSeek(b.view, k + '\0');
      ExpectFindAgreesWithSeek(b.view, k.substr(0, k.size() - 1));
      ExpectFindAgreesWithSeek(b.view, k.substr(0, k.size() / 2));
    }
    for (std::string_view want : {"", "A", "refs/", "refs/heads/b/0005", "refs/u", "\xff"}) {
      ExpectFindAgreesWithSeek(b.view, want);
    }
  }
}

TEST(FindInBlockTest, ReportsCorruptRecordsOnItsPathOnly) {
  std::vector<std::string> keys = NumberedKeys("refs/heads/", 64);
  Block b;
  BuildRefBlock(keys, 16, "", &b);
  std::vector<uint32_t> offsets = RecordOffsets(b.view);
  b.bytes[offsets[1]] = 0x7f;  // prefix longer than the previous key
  EXPECT_EQ(FindInBlock(b.view, keys[1], kHash).result, BlockFind::kCorrupt);
  EXPECT_EQ(FindInBlock(b.view, keys[40], kHash).result, BlockFind::kEqual);
  be::Store24(reinterpret_cast<uint8_t*>(b.bytes.data()) + b.view.restart_off + 3, 0xffffff);
  EXPECT_EQ(FindInBlock(b.view, keys[20], kHash).result, BlockFind::kCorrupt);
}

// Every kind of ref record FindInBlock's scan meets: the short records its fast path
// decodes without bounds checks (one-byte prefix and suffix_and_type, a one-byte update
// index delta, no id, one or two ids) and the ones that take the general path (suffixes of
// 16 bytes or more, multi-byte update index deltas, symrefs), including records in the last
// bytes before the restart table, where the fast path must not be taken.
RefRecord MixedRecord(std::string_view key, size_t i) {
  RefRecord r = RefFor(key);
  r.value_type = RefValueType(i % 4);
  r.update_index = i % 5 == 0 ? 1000000 + i : i % 3;  // deltas of one byte and of three
  if (r.value_type == RefValueType::kVal2) r.peeled[0] = uint8_t(i);
  if (r.value_type == RefValueType::kSymref) r.target = "refs/heads/target-" + std::to_string(i);
  if (r.value_type == RefValueType::kDeletion || r.value_type == RefValueType::kSymref) {
    r.value = ObjectId{};
  }
  return r;
}

TEST(FindInBlockTest, AgreesWithSeekOnEveryValueTypeAndRecordLength) {
  std::vector<std::string> keys;
  for (int i = 0; i < 90; ++i) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "%03d", i);
    // Every seventh key gets a long tail, so its suffix needs a two-byte header varint.
    keys.push_back(std::string("refs/heads/x/") + buf +
                   (i % 7 == 3 ? "/a-long-tail-of-more-than-sixteen-bytes" : ""));
  }
  for (uint32_t interval : {1u, 3u, 16u}) {
    BlockWriter w(1 << 20, interval);
    w.Start(BlockType::kRef, "");
    for (size_t i = 0; i < keys.size(); ++i) {
      RefRecord r = MixedRecord(keys[i], i);
      ASSERT_EQ(w.Add(keys[i], uint8_t(r.value_type), codec::RefValueMaxSize(r, kHash),
                      [&](Appender& a) { codec::PutRefValue(a, r, 0, kHash); }),
                AddResult::kAdded);
    }
    Block b;
    b.bytes = std::string(w.Finish());
    Decode(&b, 0, 1 << 20);
    ASSERT_TRUE(b.status.ok()) << b.status.ToString();
    ASSERT_EQ(ReadKeys(b.view), keys);
    for (size_t i = 0; i < keys.size(); ++i) {
      for (const std::string& want :
           {keys[i], keys[i] + '\0', keys[i].substr(0, keys[i].size() - 1)}) {
        BlockIterator it;
        it.Init(b.view, kHash);
        ASSERT_TRUE(it.Seek(want));
        BlockFind f = FindInBlock(b.view, want, kHash);
        if (!it.NextKey()) {
          EXPECT_EQ(f.result, BlockFind::kEnd) << want;
          continue;
        }
        ASSERT_EQ(f.result, it.key() == want ? BlockFind::kEqual : BlockFind::kGreater) << want;
        size_t at = size_t(std::find(keys.begin(), keys.end(), it.key()) - keys.begin());
        RefRecord expect = MixedRecord(keys[at], at), got;
        ASSERT_EQ(f.value_type, uint8_t(expect.value_type)) << want;
        ByteReader in(b.view.data + f.value_pos, b.view.data + b.view.restart_off);
        ASSERT_TRUE(codec::GetRefValue(in, f.value_type, 0, kHash, &got)) << want;
        EXPECT_EQ(got.update_index, expect.update_index) << want;
        EXPECT_EQ(got.value, expect.value) << want;
        EXPECT_EQ(got.peeled, expect.peeled) << want;
        EXPECT_EQ(got.target, expect.target) << want;
      }
    }
    EXPECT_EQ(FindInBlock(b.view, "refs/heads/y", kHash).result, BlockFind::kEnd);
    EXPECT_EQ(FindInBlock(b.view, "refs/heads/w", kHash).result, BlockFind::kGreater);
  }
}

TEST(BlockIteratorTest, FirstKeyIsTheFirstRecord) {
  Block b;
  BuildRefBlock({"refs/a", "refs/b"}, 16, "", &b);
  BlockIterator it;
  it.Init(b.view, kHash);
  std::string_view first;
  ASSERT_TRUE(it.FirstKey(&first));
  EXPECT_EQ(first, "refs/a");
}

TEST(BlockIteratorTest, RejectsRestartOffsetsOutsideTheRecords) {
  std::vector<std::string> keys = NumberedKeys("x", 20);
  for (uint32_t bad : {0u, 3u, 0xffffffu}) {
    Block b;
    BuildRefBlock(keys, 4, "", &b);
    be::Store24(reinterpret_cast<uint8_t*>(b.bytes.data()) + b.view.restart_off + 3, bad);
    BlockIterator it;
    it.Init(b.view, kHash);
    EXPECT_FALSE(it.Seek("x00005")) << bad;  // the binary search reads restart 1
    EXPECT_TRUE(it.error());
  }
}

// ---------------------------------------------------------------- other block types

TEST(BlockIteratorTest, RoundTripsLogBlocksThroughCompression) {
  TableHeader h;
  std::string file_header;
  h.EncodeTo(&file_header);
  BlockWriter w(4096, 16);
  w.Start(BlockType::kLog, file_header);
  std::vector<LogRecord> logs;
  for (int i = 0; i < 30; ++i) {
    LogRecord l;
    l.refname = i < 15 ? "HEAD" : "refs/heads/main";
    l.update_index = uint64_t(100 - i);
    l.value_type = i % 5 == 0 ? LogValueType::kDeletion : LogValueType::kUpdate;
    l.old_id[0] = uint8_t(i);
    l.new_id[19] = uint8_t(i);
    l.name = "C O Mitter";
    l.email = "c@x";
    l.time = 1700000000 + uint64_t(i);
    l.tz_offset = int16_t(i % 2 ? -800 : 530);
    l.message = "msg " + std::to_string(i) + "\n";
    if (l.is_deletion()) l = DeletionLog(l.refname, l.update_index);
    std::string key;
    codec::PutLogKey(&key, l.refname, l.update_index);
    ASSERT_EQ(w.Add(key, uint8_t(l.value_type), codec::LogValueMaxSize(l, kHash),
                    [&](Appender& a) { codec::PutLogValue(a, l, kHash); }),
              AddResult::kAdded);
    logs.push_back(l);
  }
  std::string_view raw = w.Finish();
  Block b;
  b.bytes.assign(raw.data(), 28);
  Deflater deflater;
  ASSERT_TRUE(
      deflater
          .Compress(reinterpret_cast<const uint8_t*>(raw.data()) + 28, raw.size() - 28, &b.bytes)
          .ok());
  size_t stored = b.bytes.size();
  b.bytes.append("\x52\x45\x46\x54 trailing footer bytes");
  Decode(&b, 24, 4096);
  ASSERT_TRUE(b.status.ok()) << b.status.ToString();
  EXPECT_EQ(b.view.type, BlockType::kLog);
  EXPECT_EQ(b.view.full_size, stored);
  EXPECT_EQ(std::string_view(reinterpret_cast<const char*>(b.view.data), b.view.block_len), raw);
  BlockIterator it;
  it.Init(b.view, kHash);
  for (const LogRecord& want : logs) {
    ASSERT_TRUE(it.NextKey());
    LogRecord got;
    ASSERT_TRUE(codec::SplitLogKey(it.key(), &got.refname, &got.update_index));
    ByteReader in = it.value();
    ASSERT_TRUE(codec::GetLogValue(in, it.value_type(), kHash, &got));
    it.ValueDone(in);
    EXPECT_EQ(got.refname, want.refname);
    EXPECT_EQ(got.update_index, want.update_index);
    EXPECT_EQ(got.message, want.message);
    EXPECT_EQ(got.tz_offset, want.tz_offset);
  }
  EXPECT_FALSE(it.NextKey());
  // Seek to (refs/heads/main, 90): entries are newest first, so index 85 (i = 15) is first.
  std::string want_key;
  codec::PutLogKey(&want_key, "refs/heads/main", 90);
  it.Init(b.view, kHash);
  ASSERT_TRUE(it.Seek(want_key));
  ASSERT_TRUE(it.NextKey());
  std::string name;
  uint64_t index = 0;
  ASSERT_TRUE(codec::SplitLogKey(it.key(), &name, &index));
  EXPECT_EQ(name, "refs/heads/main");
  EXPECT_EQ(index, 85u);
}

TEST(BlockIteratorTest, LogBlockWithWrongUncompressedLengthIsCorrupt) {
  BlockWriter w(4096, 16);
  w.Start(BlockType::kLog, "");
  LogRecord l = DeletionLog("HEAD", 1);
  std::string key;
  codec::PutLogKey(&key, l.refname, l.update_index);
  ASSERT_EQ(w.Add(key, 0, 0, [](Appender&) {}), AddResult::kAdded);
  std::string raw(w.Finish());
  for (int delta : {-1, 1}) {
    Block b;
    b.bytes = raw.substr(0, 4);
    be::Store24(reinterpret_cast<uint8_t*>(b.bytes.data()) + 1, uint32_t(int(raw.size()) + delta));
    Deflater deflater;
    ASSERT_TRUE(
        deflater
            .Compress(reinterpret_cast<const uint8_t*>(raw.data()) + 4, raw.size() - 4, &b.bytes)
            .ok());
    Decode(&b, 0, 4096);
    EXPECT_FALSE(b.status.ok()) << delta;
    EXPECT_EQ(b.status.code(), Code::kCorruption);
  }
}

TEST(BlockIteratorTest, IteratesObjAndIndexBlocks) {
  BlockWriter w(4096, 3);
  w.Start(BlockType::kObj, "");
  std::vector<std::vector<uint64_t>> positions = {
      {}, {0}, {0, 4096, 8192}, {1, 2, 3, 4, 5, 6, 7}, {10, 20, 30, 40, 50, 60, 70, 80}};
  std::vector<std::string> keys = {"\x01\x02", "\x01\x03", std::string("\x02\x00", 2), "\x7f\x01",
                                   "\xff\xfe"};
  for (size_t i = 0; i < keys.size(); ++i) {
    const auto& p = positions[i];
    ASSERT_EQ(w.Add(keys[i], codec::ObjValueType(p.size()), codec::ObjValueMaxSize(p.size()),
                    [&](Appender& a) { codec::PutObjValue(a, p.data(), p.size()); }),
              AddResult::kAdded);
  }
  Block b;
  b.bytes = std::string(w.Finish());
  Decode(&b, 0, 4096);
  ASSERT_TRUE(b.status.ok());
  EXPECT_EQ(ReadKeys(b.view), keys);
  BlockIterator it;
  it.Init(b.view, kHash);
  ASSERT_TRUE(it.Seek("\x7f"));
  ASSERT_TRUE(it.NextKey());
  EXPECT_EQ(it.key(), keys[3]);
  ByteReader in = it.value();
  std::vector<uint64_t> got;
  ASSERT_TRUE(codec::GetObjValue(in, it.value_type(), &got));
  EXPECT_EQ(got, positions[3]);

  BlockWriter iw(4096, 16);
  iw.Start(BlockType::kIndex, "");
  std::vector<std::string> index_keys = NumberedKeys("refs/heads/", 50);
  for (size_t i = 0; i < index_keys.size(); ++i) {
    ASSERT_EQ(iw.Add(index_keys[i], 0, codec::IndexValueMaxSize(),
                     [&](Appender& a) { a.PutVarint(4096 * i); }),
              AddResult::kAdded);
  }
  Block ib;
  ib.bytes = std::string(iw.Finish());
  Decode(&ib, 0, 4096);
  ASSERT_TRUE(ib.status.ok());
  EXPECT_EQ(ReadKeys(ib.view), index_keys);
  it.Init(ib.view, kHash);
  ASSERT_TRUE(it.Seek("refs/heads/00033"));
  ASSERT_TRUE(it.NextKey());
  ByteReader pos = it.value();
  EXPECT_EQ(pos.GetVarint(), 4096u * 33);
}

}  // namespace
}  // namespace reftab
