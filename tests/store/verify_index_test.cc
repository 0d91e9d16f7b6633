// VerifyTable on planted ref and obj indexes: a table written with 256-byte blocks (a
// two-level ref index and an obj index) gets one index block rebuilt with its records
// changed, or a byte of its restart table changed (the rest of the file stays as written),
// and the check must name the table, the index block, and what is wrong: a record that
// points at another block, misses one or adds one, a key below its block's last key or not
// below the next block's first, an upper level's key below the blocks it leads to, a record
// pointing at no block, and a restart point off a record.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "format/block_reader.h"
#include "format/block_writer.h"
#include "format/bytes.h"
#include "store/table_reader.h"
#include "store/verify.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

constexpr uint32_t kBlockSize = 256;

// 1,000 refs, each at its own id: over a hundred ref blocks under a two-level ref index, and
// enough obj records for several obj blocks under an obj index.
std::string SampleTable() {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 1000; ++i) {
    RefRecord r;
    char name[64];
    std::snprintf(name, sizeof name, "refs/heads/branch-%04d", i);
    r.refname = name;
    r.update_index = 1;
    r.value_type = RefValueType::kVal1;
    r.value = testutil::TestId(uint64_t(i) + 1, 20);
    refs.push_back(r);
  }
  WriteOptions o;
  o.block_size = kBlockSize;
  o.index_objects = true;
  return testutil::WriteTableToString(o, 1, 1, refs, {});
}

struct Record {
  std::string key;
  uint64_t child;
};

struct Block {
  uint64_t offset = 0;
  uint64_t size = 0;
  BlockType type = BlockType::kRef;
  std::vector<Record> records;  // index blocks: (key, child)
  std::string first, last;      // ref and obj blocks: their first and last keys
};

std::vector<Block> Blocks(const std::string& bytes) {
  std::vector<Block> out;
  auto t = TableReader::OpenBytes("sample", bytes);
  EXPECT_TRUE(t.ok());
  if (!t.ok()) return out;
  EXPECT_TRUE((*t)->ForEachBlock([&](const BlockView& b) {
                    Block blk;
                    blk.offset = b.offset;
                    blk.size = b.full_size;
                    blk.type = b.type;
                    BlockIterator it;
                    it.Init(b, 20);
                    while (it.NextKey()) {
                      if (blk.first.empty()) blk.first = std::string(it.key());
                      blk.last = std::string(it.key());
                      if (b.type != BlockType::kIndex) continue;
                      ByteReader v = it.value();
                      uint64_t child = v.GetVarint();
                      EXPECT_TRUE(v.ok());
                      it.ValueDone(v);
                      blk.records.push_back({std::string(it.key()), child});
                    }
                    EXPECT_FALSE(it.error());
                    out.push_back(std::move(blk));
                    return Status::Ok();
                  })
                  .ok());
  return out;
}

// `bytes` with the index block `b` rebuilt from `records` (padded to its size).
std::string WithIndexRecords(std::string bytes, const Block& b,
                             const std::vector<Record>& records) {
  BlockWriter w(kBlockSize, 16);
  w.Start(BlockType::kIndex, "");
  for (const Record& r : records) {
    EXPECT_EQ(w.Add(r.key, 0, 10, [&](Appender& a) { a.PutVarint(r.child); }), AddResult::kAdded);
  }
  std::string block(w.Finish());
  EXPECT_LE(block.size(), b.size);
  block.resize(size_t(b.size), '\0');
  bytes.replace(size_t(b.offset), size_t(b.size), block);
  return bytes;
}

Status Verify(const std::string& bytes) {
  auto t = TableReader::OpenBytes("planted.ref", bytes);
  if (!t.ok()) return t.status();
  VerifyReport report;
  return VerifyTable(**t, &report);
}

void ExpectCorrupt(const Status& s, const std::vector<std::string>& parts) {
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
  EXPECT_EQ(s.message().rfind("planted.ref: ", 0), 0u) << s.message();
  for (const std::string& part : parts) {
    EXPECT_NE(s.message().find(part), std::string::npos) << "want: " << part << "\n" << s.message();
  }
}

std::string At(uint64_t offset) { return "block at offset " + std::to_string(offset) + ": "; }

class VerifyIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = SampleTable();
    auto t = TableReader::OpenBytes("sample", bytes_);
    ASSERT_TRUE(t.ok());
    footer_ = (*t)->footer();
    for (Block& b : Blocks(bytes_)) {
      if (b.type == BlockType::kRef) refs_.push_back(b);
      if (b.type == BlockType::kObj) objs_.push_back(b);
      if (b.type != BlockType::kIndex) continue;
      // The ref index comes before the obj blocks; its top level is at the footer's position.
      const bool ref_index = b.offset < footer_.obj_position;
      if (b.offset == footer_.ref_index_position) ref_top_ = b;
      if (ref_index && b.offset < footer_.ref_index_position && ref_leaf_.records.empty()) {
        ref_leaf_ = b;
      }
      if (!ref_index && obj_leaf_.records.empty()) obj_leaf_ = b;
    }
    ASSERT_GE(refs_.size(), 20u);
    ASSERT_GE(objs_.size(), 4u);
    ASSERT_NE(footer_.obj_index_position, 0u) << "no obj index";
    ASSERT_GE(ref_leaf_.records.size(), 4u) << "no second level in the ref index";
    ASSERT_GE(ref_top_.records.size(), 2u);
    ASSERT_GE(obj_leaf_.records.size(), 2u);
    ASSERT_EQ(ref_leaf_.records[0].child, refs_[0].offset);
    ASSERT_EQ(obj_leaf_.records[0].child, objs_[0].offset);
  }
  std::string bytes_;
  TableFooter footer_;
  std::vector<Block> refs_, objs_;
  Block ref_leaf_, ref_top_, obj_leaf_;  // the first leaf index blocks, and the top level
};

TEST_F(VerifyIndexTest, AsWrittenIsOk) {
  Status s = Verify(bytes_);
  EXPECT_TRUE(s.ok()) << s.ToString();
  // Rebuilding the blocks unchanged keeps it so: the planting itself is faithful.
  for (const Block* b : {&ref_leaf_, &ref_top_, &obj_leaf_}) {
    s = Verify(WithIndexRecords(bytes_, *b, b->records));
    EXPECT_TRUE(s.ok()) << s.ToString();
  }
}

TEST_F(VerifyIndexTest, RecordPointingAtAnotherBlockIsNamed) {
  std::vector<Record> recs = ref_leaf_.records;
  std::swap(recs[1].child, recs[2].child);
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, ref_leaf_, recs)),
                {At(ref_leaf_.offset), "ref index record '" + recs[1].key + "' points at offset " +
                                           std::to_string(refs_[2].offset) +
                                           ", but the next ref block is at offset " +
                                           std::to_string(refs_[1].offset)});
}

TEST_F(VerifyIndexTest, MissingRecordIsNamed) {
  std::vector<Record> recs = ref_leaf_.records;
  recs.erase(recs.begin() + 1);  // the second ref block has no record
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, ref_leaf_, recs)),
                {At(ref_leaf_.offset), "points at offset " + std::to_string(refs_[2].offset) +
                                           ", but the next ref block is at offset " +
                                           std::to_string(refs_[1].offset)});
}

TEST_F(VerifyIndexTest, RecordPastTheLastBlockIsNamed) {
  // The top level's last record twice: the blocks it leads to come again after the last.
  std::vector<Record> recs = ref_top_.records;
  Record again = recs.back();
  again.key += "~";
  recs.push_back(again);
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, ref_top_, recs)),
                {At(again.child), ", past the last ref block"});
}

TEST_F(VerifyIndexTest, KeyBelowTheBlocksLastKeyIsNamed) {
  // The record of the first ref block keyed by that block's first key: a lookup of its
  // other keys would go to the next block.
  std::vector<Record> recs = ref_leaf_.records;
  recs[0].key = refs_[0].first;
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, ref_leaf_, recs)),
                {At(ref_leaf_.offset), "ref index record '" + refs_[0].first + "' is below '" +
                                           refs_[0].last +
                                           "', the last key of the ref block at "
                                           "offset " +
                                           std::to_string(refs_[0].offset)});
}

TEST_F(VerifyIndexTest, KeyNotBelowTheNextBlocksFirstKeyIsNamed) {
  // A lookup of the second block's first key would stop at the first block.
  std::vector<Record> recs = ref_leaf_.records;
  recs[0].key = refs_[1].first;
  ExpectCorrupt(
      Verify(WithIndexRecords(bytes_, ref_leaf_, recs)),
      {At(ref_leaf_.offset), "ref index record '" + refs_[1].first + "' is not below '" +
                                 refs_[1].first + "', the first key of the ref block at offset " +
                                 std::to_string(refs_[1].offset)});
}

TEST_F(VerifyIndexTest, UpperLevelKeyBelowItsBlocksIsNamed) {
  // The top level's first record keyed by the first ref block's last key: the other blocks
  // of its leaf index block would be out of reach.
  std::vector<Record> recs = ref_top_.records;
  recs[0].key = refs_[0].last;
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, ref_top_, recs)),
                {At(ref_top_.offset), "ref index record '" + refs_[0].last + "' is below"});
}

TEST_F(VerifyIndexTest, RecordPointingAtNoBlockIsNamed) {
  std::vector<Record> recs = ref_leaf_.records;
  recs[3].child += 1;
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, ref_leaf_, recs)),
                {At(ref_leaf_.offset), "points at offset " + std::to_string(recs[3].child) +
                                           ", which holds no ref or index block"});
}

TEST_F(VerifyIndexTest, RestartPointOffARecordIsNamed) {
  // Records 0 and 16 of a block are restart points: the second one moved a byte on.
  std::vector<Record> recs = ref_leaf_.records;
  ASSERT_GE(recs.size(), 17u) << "the leaf index block has one restart point";
  std::string bad = bytes_;
  auto t = TableReader::OpenBytes("sample", bad);
  ASSERT_TRUE(t.ok());
  BlockView view;
  ASSERT_TRUE(DecodeBlock((*t)->source(), ref_leaf_.offset, nullptr, nullptr, &view).ok());
  ASSERT_GE(view.restart_count, 2u);
  const size_t entry = size_t(ref_leaf_.offset + view.restart_off + 3);
  bad[entry + 2] = char(uint8_t(bad[entry + 2]) + 1);
  ExpectCorrupt(Verify(bad), {At(ref_leaf_.offset), "restart point 1"});
}

TEST_F(VerifyIndexTest, ObjIndexRecordPointingAtAnotherBlockIsNamed) {
  std::vector<Record> recs = obj_leaf_.records;
  std::swap(recs[0].child, recs[1].child);
  std::string hex;
  for (char c : recs[0].key) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[uint8_t(c) >> 4];
    hex += kDigits[uint8_t(c) & 15];
  }
  ExpectCorrupt(
      Verify(WithIndexRecords(bytes_, obj_leaf_, recs)),
      {At(obj_leaf_.offset),
       "obj index record " + hex + " points at offset " + std::to_string(objs_[1].offset) +
           ", but the next obj block is at offset " + std::to_string(objs_[0].offset)});
}

TEST_F(VerifyIndexTest, ObjIndexKeyBelowTheBlocksLastKeyIsNamed) {
  std::vector<Record> recs = obj_leaf_.records;
  recs[0].key = objs_[0].first;
  ExpectCorrupt(Verify(WithIndexRecords(bytes_, obj_leaf_, recs)),
                {At(obj_leaf_.offset), "is below",
                 "the last key of the obj block at offset " + std::to_string(objs_[0].offset)});
}

}  // namespace
}  // namespace reftab
