// VerifyTable on obj sections with planted records: a table written with an obj index gets
// its obj block rebuilt with one record changed (the rest of the file, footer included, stays
// as written), and the check must name the record and the block. Covers counts beyond the
// table's ref blocks (up to 2^60), positions that are not ref blocks or not in order, records
// that miss or add a block, and prefixes with no record.
#include "store/verify.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "format/block_writer.h"
#include "format/bytes.h"
#include "format/record_codec.h"
#include "store/table_reader.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

// One obj record as stored: key, value type and raw value bytes.
struct ObjRec {
  std::string key;
  uint8_t value_type;
  std::string value;
};

std::string Varint(uint64_t v) {
  uint8_t buf[16];
  Appender a(buf);
  a.PutVarint(v);
  return std::string(reinterpret_cast<const char*>(buf), size_t(a.pos() - buf));
}

// A value as the writer encodes it: the count in the type for 1..7, else a varint first;
// then the first position and the deltas.
ObjRec Encoded(std::string key, const std::vector<uint64_t>& positions) {
  ObjRec r{std::move(key), codec::ObjValueType(positions.size()), ""};
  if (r.value_type == 0) r.value = Varint(positions.size());
  for (size_t i = 0; i < positions.size(); ++i) {
    r.value += Varint(i == 0 ? positions[0] : positions[i] - positions[i - 1]);
  }
  return r;
}

// 40 refs in 256-byte blocks, pointing at three objects (14 refs each, in name order): each
// id is held by a few ref blocks but not all, and there is one obj block, the last block of the
// file (so it can change size: only the footer, which holds no offset of its own, comes after it).
std::string SampleTable() {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 40; ++i) {
    RefRecord r;
    char name[64];
    std::snprintf(name, sizeof name, "refs/heads/branch-%03d", i);
    r.refname = name;
    r.update_index = 1;
    r.value_type = RefValueType::kVal1;
    r.value = testutil::TestId(uint64_t(i / 14) + 1, 20);
    refs.push_back(r);
  }
  WriteOptions o;
  o.block_size = 256;
  o.index_objects = true;
  return testutil::WriteTableToString(o, 1, 1, refs, {});
}

struct ObjBlock {
  uint64_t offset = 0;
  uint64_t size = 0;
  std::vector<ObjRec> records;
  std::vector<std::vector<uint64_t>> positions;
  std::vector<uint64_t> ref_blocks;
};

ObjBlock FindObjBlock(const std::string& bytes) {
  ObjBlock out;
  auto t = TableReader::OpenBytes("sample", bytes);
  EXPECT_TRUE(t.ok());
  if (!t.ok()) return out;
  int obj_blocks = 0;
  EXPECT_TRUE((*t)->ForEachBlock([&](const BlockView& b) {
                    if (b.type == BlockType::kRef) out.ref_blocks.push_back(b.offset);
                    if (b.type != BlockType::kObj) return Status::Ok();
                    ++obj_blocks;
                    out.offset = b.offset;
                    // The last block is not padded: only the bytes before the footer are its.
                    out.size =
                        std::min<uint64_t>(b.full_size, (*t)->source().table_size - b.offset);
                    BlockIterator it;
                    it.Init(b, 20);
                    while (it.NextKey()) {
                      ByteReader v = it.value();
                      std::vector<uint64_t> pos;
                      EXPECT_TRUE(codec::GetObjValue(v, it.value_type(), &pos));
                      it.ValueDone(v);
                      out.records.push_back(Encoded(std::string(it.key()), pos));
                      out.positions.push_back(pos);
                    }
                    return Status::Ok();
                  })
                  .ok());
  EXPECT_EQ(obj_blocks, 1);
  EXPECT_EQ(out.offset + out.size, (*t)->source().table_size) << "the obj block comes last";
  return out;
}

// `bytes` with its obj block replaced by one holding `records`.
std::string WithObjRecords(std::string bytes, const ObjBlock& block,
                           const std::vector<ObjRec>& records) {
  BlockWriter w(256, 16);
  w.Start(BlockType::kObj, "");
  for (const ObjRec& r : records) {
    EXPECT_EQ(w.Add(r.key, r.value_type, r.value.size(),
                    [&](Appender& a) { a.PutBytes(r.value.data(), r.value.size()); }),
              AddResult::kAdded);
  }
  bytes.replace(size_t(block.offset), size_t(block.size), w.Finish());
  return bytes;
}

Status Verify(const std::string& bytes) {
  auto t = TableReader::OpenBytes("planted.ref", bytes);
  if (!t.ok()) return t.status();
  VerifyReport report;
  return VerifyTable(**t, &report);
}

class VerifyObjTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = SampleTable();
    block_ = FindObjBlock(bytes_);
    ASSERT_EQ(block_.records.size(), 3u);
    ASSERT_GE(block_.ref_blocks.size(), 4u);
    ASSERT_GE(block_.positions[0].size(), 2u);
    ASSERT_LT(block_.positions[0].size(), block_.ref_blocks.size());
  }
  // Verifies the table with record `i` replaced.
  Status With(size_t i, ObjRec r) {
    std::vector<ObjRec> recs = block_.records;
    recs[i] = std::move(r);
    return Verify(WithObjRecords(bytes_, block_, recs));
  }
  std::string bytes_;
  ObjBlock block_;
};

void ExpectCorrupt(const Status& s, const std::string& part) {
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
  EXPECT_NE(s.message().find(part), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("planted.ref: "), std::string::npos) << s.message();
}

TEST_F(VerifyObjTest, AsWrittenIsOk) {
  EXPECT_TRUE(Verify(bytes_).ok()) << Verify(bytes_).ToString();
  // Rebuilding the block unchanged keeps it so: the planting itself is faithful.
  Status s = Verify(WithObjRecords(bytes_, block_, block_.records));
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(VerifyObjTest, CountOfTwoToTheSixtiethIsRejected) {
  ObjRec r{block_.records[0].key, 0, Varint(uint64_t(1) << 60) + Varint(block_.ref_blocks[0])};
  Status s = With(0, r);
  ExpectCorrupt(s, "claims 1152921504606846976 positions, but the table has " +
                       std::to_string(block_.ref_blocks.size()) + " ref blocks");
  ExpectCorrupt(s, "block at offset " + std::to_string(block_.offset));
}

TEST_F(VerifyObjTest, CountAboveTheRefBlocksIsRejected) {
  std::vector<uint64_t> too_many(block_.ref_blocks.size() + 1, 0);
  ObjRec r{block_.records[1].key, 0, Varint(too_many.size())};
  for (size_t i = 0; i < too_many.size(); ++i) r.value += Varint(1);
  ExpectCorrupt(With(1, r), "positions, but the table has");
}

TEST_F(VerifyObjTest, PositionThatIsNotARefBlockIsRejected) {
  std::vector<uint64_t> pos = block_.positions[0];
  pos.back() += 1;
  ExpectCorrupt(With(0, Encoded(block_.records[0].key, pos)),
                "position " + std::to_string(pos.back()) + " is not the offset of a ref block");
  // Past the end of the file.
  pos.back() = uint64_t(1) << 40;
  ExpectCorrupt(With(0, Encoded(block_.records[0].key, pos)), "is not the offset of a ref block");
}

TEST_F(VerifyObjTest, PositionsOutOfOrderAreRejected) {
  std::vector<uint64_t> pos = block_.positions[0];
  ObjRec r = Encoded(block_.records[0].key, pos);
  // Same positions, the second delta made zero: a repeated block.
  r.value = Varint(pos[0]) + Varint(0);
  r.value_type = 2;
  ExpectCorrupt(With(0, r), "positions not in increasing order");
}

TEST_F(VerifyObjTest, RecordMissingOrAddingARefBlockIsRejected) {
  std::vector<uint64_t> pos = block_.positions[0];
  pos.pop_back();
  ExpectCorrupt(With(0, Encoded(block_.records[0].key, pos)),
                "lists " + std::to_string(pos.size()) + " ref block(s), but " +
                    std::to_string(pos.size() + 1) + " hold a ref with that id prefix");
  // A block that holds no ref with this prefix.
  std::vector<uint64_t> all = block_.ref_blocks;
  ExpectCorrupt(With(0, Encoded(block_.records[0].key, all)), "hold a ref with that id prefix");
}

TEST_F(VerifyObjTest, ScanAllRecordIsAccepted) {
  // No positions: "scan every ref block", which git writes when the list does not fit.
  Status s = With(0, ObjRec{block_.records[0].key, 0, Varint(0)});
  EXPECT_TRUE(s.ok()) << s.ToString();
}

TEST_F(VerifyObjTest, PrefixWithoutARecordIsRejected) {
  std::vector<ObjRec> recs = {block_.records[0], block_.records[2]};
  ExpectCorrupt(Verify(WithObjRecords(bytes_, block_, recs)), "no obj record for id prefix");
  recs = {block_.records[0], block_.records[1]};  // the last one missing
  ExpectCorrupt(Verify(WithObjRecords(bytes_, block_, recs)), "no obj record for id prefix");
}

TEST_F(VerifyObjTest, KeyOfTheWrongLengthIsRejected) {
  ObjRec r = block_.records[1];
  r.key += "x";
  ExpectCorrupt(With(1, r), "bytes (the footer's obj_id_len)");
}

// The lookup path is checked through the restart table: a restart point that is not the
// start of a record (a lookup would decode garbage from there) is named with its block.
TEST(VerifyRestartTest, RestartPointOffARecordIsRejected) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 40; ++i) {
    RefRecord r;
    r.refname = "refs/heads/branch-" + std::to_string(100 + i);
    r.update_index = 1;
    r.value_type = RefValueType::kVal1;
    r.value = testutil::TestId(uint64_t(i) + 1, 20);
    refs.push_back(r);
  }
  WriteOptions o;
  o.block_size = 4096;  // one block, restart points at records 0, 16 and 32
  std::string bytes = testutil::WriteTableToString(o, 1, 1, refs, {});
  uint64_t pos = 0;
  uint32_t restart = 0;
  {
    auto t = TableReader::OpenBytes("sample", bytes);
    ASSERT_TRUE(t.ok());
    ASSERT_TRUE((*t)->ForEachBlock([&](const BlockView& b) {
                      if (b.type == BlockType::kRef && pos == 0 && b.restart_count >= 2) {
                        pos = b.offset + b.restart_off + 3;  // restart point 1
                        restart = RestartOffset(b, 1);
                      }
                      return Status::Ok();
                    })
                    .ok());
  }
  ASSERT_NE(pos, 0u) << "no ref block with two restart points";
  EXPECT_TRUE(Verify(bytes).ok()) << Verify(bytes).ToString();
  bytes[size_t(pos) + 2] = char(uint8_t(restart + 1));  // one byte into the record
  ExpectCorrupt(Verify(bytes), "restart point 1");
}

// Keys must increase: a record whose stored suffix makes its key smaller than, or equal to,
// the one before (the prefix it shares with it is as written) is named.
TEST(VerifyOrderTest, KeyNotAfterThePreviousIsRejected) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 40; ++i) {
    RefRecord r;
    r.refname = "refs/heads/branch-" + std::to_string(100 + i);
    r.update_index = 1;
    r.value_type = RefValueType::kVal1;
    r.value = testutil::TestId(uint64_t(i) + 1, 20);
    refs.push_back(r);
  }
  WriteOptions o;
  o.block_size = 4096;  // one block; record 5 is no restart point
  const std::string bytes = testutil::WriteTableToString(o, 1, 1, refs, {});
  EXPECT_TRUE(Verify(bytes).ok()) << Verify(bytes).ToString();
  // refs/heads/branch-105: 20 bytes shared with branch-104, then one byte of suffix ('5').
  const size_t at =
      bytes.find(std::string("\x14\x09"
                             "5",
                             3));
  ASSERT_NE(at, std::string::npos);
  for (char suffix : {'0', '4'}) {
    std::string bad = bytes;
    bad[at + 2] = suffix;
    ExpectCorrupt(Verify(bad), "is not after 'refs/heads/branch-104'");
  }
  std::string later = bytes;
  later[at + 2] = '6';  // equal to the next one instead
  ExpectCorrupt(Verify(later), "'refs/heads/branch-106' is not after 'refs/heads/branch-106'");
}

}  // namespace
}  // namespace reftab
