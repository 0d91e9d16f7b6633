// Corruption sweeps: small valid tables are truncated at every length, every header and
// footer byte is changed, and body bytes are flipped at seeded random positions. For every
// damaged copy, opening, scanning, seeking, looking up and walking the blocks must either
// succeed or fail with kCorruption and a message that names the table (and, for block
// errors, the offset) -- never crash, hang or trip a sanitizer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "format/block_reader.h"
#include "store/table_reader.h"
#include "store/table_writer.h"
#include "store/verify.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/random_refs.h"

namespace reftab {
namespace {

// No valid table here has more records than this; reaching it means an iterator loops.
constexpr size_t kMaxRecords = 1 << 20;

// What the lookups probe: names and ids taken from the undamaged table, plus misses.
struct Probes {
  std::vector<std::string> names;
  std::vector<ObjectId> ids;
};

// Checks every status an operation on a damaged table returns.
class ErrorChecker {
 public:
  explicit ErrorChecker(std::string table_name) : name_(std::move(table_name)) {}

  void Check(const Status& s, const char* operation) {
    if (s.ok()) return;
    ++errors_;
    EXPECT_EQ(s.code(), Code::kCorruption) << operation << ": " << s.ToString();
    EXPECT_EQ(s.message().rfind(name_ + ": ", 0), 0u) << operation << ": " << s.message();
    // An error inside a block says where the block is.
    if (s.message().find("block") != std::string::npos) {
      size_t at = s.message().find("offset ");
      EXPECT_TRUE(at != std::string::npos &&
                  std::isdigit(static_cast<unsigned char>(s.message()[at + 7])))
          << operation << ": " << s.message();
    }
  }
  size_t errors() const { return errors_; }

 private:
  std::string name_;
  size_t errors_ = 0;
};

void ScanRefs(const TableReader& t, ErrorChecker& check) {
  TableRefIterator it(&t);
  check.Check(it.SeekToFirst(), "ref SeekToFirst");
  RefRecord r;
  size_t n = 0;
  while (n < kMaxRecords && it.Next(&r)) ++n;
  EXPECT_LT(n, kMaxRecords) << "ref scan does not end";
  check.Check(it.status(), "ref scan");
}

void ScanLogs(const TableReader& t, ErrorChecker& check) {
  TableLogIterator it(&t);
  check.Check(it.SeekToFirst(), "log SeekToFirst");
  LogRecord l;
  size_t n = 0;
  while (n < kMaxRecords && it.Next(&l)) ++n;
  EXPECT_LT(n, kMaxRecords) << "log scan does not end";
  check.Check(it.status(), "log scan");
}

void SeekAndLookUp(const TableReader& t, const Probes& probes, ErrorChecker& check) {
  for (const std::string& name : probes.names) {
    TableRefIterator refs(&t);
    check.Check(refs.Seek(name), "ref Seek");
    RefRecord r;
    for (int i = 0; i < 3 && refs.Next(&r); ++i) {
    }
    check.Check(refs.status(), "ref Next after Seek");
    bool found = false;
    check.Check(t.ReadRef(name, &r, &found), "ReadRef");
    TableLogIterator logs(&t);
    check.Check(logs.Seek(name), "log Seek");
    LogRecord l;
    for (int i = 0; i < 3 && logs.Next(&l); ++i) {
    }
    check.Check(logs.status(), "log Next after Seek");
    check.Check(logs.SeekAt(name, 3), "log SeekAt");
  }
  for (const ObjectId& id : probes.ids) {
    std::vector<RefRecord> out;
    check.Check(t.RefsFor(id, &out), "RefsFor");
  }
}

void WalkBlocks(const TableReader& t, ErrorChecker& check) {
  size_t blocks = 0;
  check.Check(t.ForEachBlock([&](const BlockView&) {
    ++blocks;
    return Status::Ok();
  }),
              "ForEachBlock");
  EXPECT_LE(blocks, t.file_size());
}

// Runs every read path over `bytes`; returns whether the table opened.
bool Exercise(const std::string& name, std::string bytes, const Probes& probes) {
  ErrorChecker check(name);
  auto table = TableReader::OpenBytes(name, std::move(bytes));
  if (!table.ok()) {
    check.Check(table.status(), "Open");
    return false;
  }
  const TableReader& t = **table;
  ScanRefs(t, check);
  ScanLogs(t, check);
  SeekAndLookUp(t, probes, check);
  WalkBlocks(t, check);
  return true;
}

// ---------------------------------------------------------------- sample tables

RefRecord MakeRef(std::mt19937_64& rng, const std::string& name, size_t hs) {
  RefRecord r = testutil::RandomRef(rng, name, hs, 1, 9);
  if (r.value_type == RefValueType::kSymref) r.target = "refs/heads/topic-001";
  return r;
}

// Refs and logs with short names in 160-byte blocks: the table gets a multi-level ref
// index, an obj section with an index and several log blocks, in about 8 KiB.
std::string WriteSmallBlockTable(HashId hash, bool unpadded) {
  size_t hs = HashSize(hash);
  std::mt19937_64 rng(unpadded ? 2 : 1);
  std::vector<RefRecord> refs;
  refs.push_back(MakeRef(rng, "HEAD", hs));
  for (int i = 0; i < 80; ++i) {
    refs.push_back(MakeRef(rng, "refs/heads/topic-" + std::to_string(1000 + i), hs));
  }
  for (int i = 0; i < 8; ++i) refs.push_back(MakeRef(rng, "refs/tags/v" + std::to_string(i), hs));
  std::sort(refs.begin(), refs.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  std::vector<LogRecord> logs;
  for (const char* name : {"HEAD", "refs/heads/topic-1000", "refs/heads/topic-1001"}) {
    for (uint64_t index = 9; index >= 1; --index) {
      LogRecord l = testutil::RandomLog(rng, name, index, hs);
      l.name = "C";
      l.email = "c@x";
      l.message = "m" + std::to_string(index) + "\n";
      logs.push_back(l);
    }
  }
  WriteOptions opts;
  opts.block_size = 160;
  opts.restart_interval = 1;  // no prefix compression: bigger index records, more levels
  opts.hash_id = hash;
  opts.unpadded = unpadded;
  return testutil::WriteTableToString(opts, 1, 9, refs, logs);
}

std::string FixtureFile(const std::string& relative) {
  std::string path = testutil::FixturesDir() + "/" + relative;
  return testutil::FileExists(path) ? testutil::ReadFileOrDie(path) : "";
}

// The bytes of a sample table, or "" when it comes from fixtures that are missing.
std::string LoadSample(const std::string& sample) {
  if (sample == "GitSmallRefsAndLogs") {
    return FixtureFile("git/small/reftable/0x000000000013-0x000000000013-1ebe5200.ref");
  }
  if (sample == "GitSmallSha256") {
    return FixtureFile("git/small-sha256/reftable/0x000000000013-0x000000000013-80c69a46.ref");
  }
  if (sample == "GitSmallTombstones") {  // `git branch -D`: ref and log tombstones
    return FixtureFile("git/small/reftable/0x00000000000f-0x00000000000f-5076e0d6.ref");
  }
  if (sample == "JgitSmallUnaligned") return FixtureFile("jgit/small.ref");
  if (sample == "WrittenMultiLevelSha1") return WriteSmallBlockTable(HashId::kSha1, false);
  if (sample == "WrittenUnpaddedSha256") return WriteSmallBlockTable(HashId::kSha256, true);
  return "";
}

Probes ProbesFor(const std::string& bytes) {
  Probes p;
  p.names = {"", "HEAD", "refs/heads/topic-1075", "refs/zzz"};
  auto table = TableReader::OpenBytes("probe", bytes);
  if (!table.ok()) return p;
  TableRefIterator it(table->get());
  if (!it.SeekToFirst().ok()) return p;
  RefRecord r;
  for (size_t n = 0; it.Next(&r); ++n) {
    if (n % 40 == 1) p.names.push_back(r.refname);
    if (n % 10 == 0 && r.value_type == RefValueType::kVal1) p.ids.push_back(r.value);
    if (n % 10 == 0 && r.value_type == RefValueType::kVal2) p.ids.push_back(r.peeled);
  }
  ObjectId unknown{};
  unknown.fill(0x42);
  p.ids.push_back(unknown);
  return p;
}

class TableCorruptionTest : public testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    good_ = LoadSample(GetParam());
    if (good_.empty()) GTEST_SKIP() << "fixtures missing in " << testutil::FixturesDir();
    name_ = GetParam() + ".ref";
    auto table = TableReader::OpenBytes(name_, good_);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    header_size_ = (*table)->header().header_size();
    footer_size_ = (*table)->header().footer_size();
    probes_ = ProbesFor(good_);
    ASSERT_TRUE(Exercise(name_, good_, probes_));
  }

  std::string good_;
  std::string name_;
  size_t header_size_ = 0;
  size_t footer_size_ = 0;
  Probes probes_;
};

TEST_P(TableCorruptionTest, EveryTruncationIsRejectedCleanly) {
  for (size_t len = 0; len < good_.size(); ++len) {
    SCOPED_TRACE("truncated to " + std::to_string(len));
    // The footer is at the end: a shorter file has no valid footer.
    EXPECT_FALSE(Exercise(name_, good_.substr(0, len), probes_));
    if (HasFailure()) return;
  }
}

TEST_P(TableCorruptionTest, TrailingGarbageIsRejected) {
  for (size_t extra : {1u, 4u, 68u, 72u}) {
    EXPECT_FALSE(Exercise(name_, good_ + std::string(extra, '\0'), probes_)) << extra;
  }
}

// The header is copied into the footer and the footer is covered by its CRC, so any change
// to either is detected when the table is opened.
TEST_P(TableCorruptionTest, EveryHeaderAndFooterByteChangeIsRejected) {
  std::vector<size_t> positions;
  for (size_t i = 0; i < header_size_; ++i) positions.push_back(i);
  for (size_t i = good_.size() - footer_size_; i < good_.size(); ++i) positions.push_back(i);
  for (size_t pos : positions) {
    for (int x : {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0xff, 0x5a}) {
      std::string bad = good_;
      bad[pos] = char(uint8_t(bad[pos]) ^ x);
      EXPECT_FALSE(Exercise(name_, std::move(bad), probes_)) << "byte " << pos << " ^ " << x;
      if (HasFailure()) return;
    }
  }
}

TEST_P(TableCorruptionTest, RandomBodyFlipsNeverCrash) {
  std::mt19937_64 rng(std::hash<std::string>()(GetParam()));
  size_t body_begin = header_size_;
  size_t body_end = good_.size() - footer_size_;
  ASSERT_LT(body_begin, body_end);
  size_t opened = 0;
  size_t first_type_damaged = 0;
  const int kCases = 600;
  for (int c = 0; c < kCases; ++c) {
    std::string bad = good_;
    int flips = 1 + int(rng() % 3);
    for (int f = 0; f < flips; ++f) {
      size_t pos = body_begin + rng() % (body_end - body_begin);
      uint8_t x = uint8_t(1 + rng() % 255);
      bad[pos] = char(uint8_t(bad[pos]) ^ x);
    }
    SCOPED_TRACE("case " + std::to_string(c));
    // Open reads one body byte: the first block's type, which says which sections exist.
    if (!IsBlockType(uint8_t(bad[header_size_]))) ++first_type_damaged;
    if (Exercise(name_, std::move(bad), probes_)) ++opened;
    if (HasFailure()) return;
  }
  // Body bytes are not checksummed, so other damaged tables still open; their reads must cope.
  EXPECT_EQ(opened, size_t(kCases) - first_type_damaged);
}

// The sweeps above are only as good as the structures the samples contain.
TEST(CorruptionSampleTest, WrittenSampleHasMultiLevelIndexObjAndLogIndex) {
  auto table = TableReader::OpenBytes("sample", LoadSample("WrittenMultiLevelSha1"));
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  std::string types;
  ASSERT_TRUE((*table)
                  ->ForEachBlock([&](const BlockView& b) {
                    types.push_back(char(b.type));
                    return Status::Ok();
                  })
                  .ok());
  // More than 3 first-level ref index blocks force a second level (padded threshold).
  size_t first_index = types.find('i');
  size_t obj = types.find('o');
  ASSERT_NE(first_index, std::string::npos);
  ASSERT_NE(obj, std::string::npos);
  EXPECT_GT(obj - first_index, 4u) << types;
  EXPECT_NE((*table)->footer().log_index_position, 0u);
}

// ---------------------------------------------------------------- block type bytes

// One block of a table and the section it belongs to: "r", "o", "g", or that followed by
// "i" for the section's index blocks.
struct SectionBlock {
  uint64_t offset = 0;
  uint32_t header_off = 0;
  std::string section;
};

std::vector<SectionBlock> SectionBlocks(const std::string& bytes) {
  std::vector<SectionBlock> out;
  auto table = TableReader::OpenBytes("blocks", bytes);
  if (!table.ok()) return out;
  std::string data_section;
  Status s = (*table)->ForEachBlock([&](const BlockView& b) {
    if (b.type != BlockType::kIndex) data_section = std::string(1, char(b.type));
    out.push_back(
        {b.offset, b.header_off, b.type == BlockType::kIndex ? data_section + "i" : data_section});
    return Status::Ok();
  });
  EXPECT_TRUE(s.ok()) << s.ToString();
  return out;
}

// The first error of reading everything in `bytes`: open, scan refs and logs, look up and
// seek every probe name, ask the obj section for every probe id, walk the blocks.
Status FirstReadError(const std::string& name, std::string bytes, const Probes& probes) {
  auto table = TableReader::OpenBytes(name, std::move(bytes));
  if (!table.ok()) return table.status();
  const TableReader& t = **table;
  TableRefIterator refs(&t);
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord r;
  while (refs.Next(&r)) {
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  TableLogIterator logs(&t);
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord l;
  while (logs.Next(&l)) {
  }
  REFTAB_RETURN_IF_ERROR(logs.status());
  for (const std::string& want : probes.names) {
    bool found = false;
    REFTAB_RETURN_IF_ERROR(t.ReadRef(want, &r, &found));
    TableRefIterator seek(&t);
    REFTAB_RETURN_IF_ERROR(seek.Seek(want));
    TableLogIterator log_seek(&t);
    REFTAB_RETURN_IF_ERROR(log_seek.Seek(want));
  }
  for (const ObjectId& id : probes.ids) {
    std::vector<RefRecord> found;
    REFTAB_RETURN_IF_ERROR(t.RefsFor(id, &found));
  }
  return t.ForEachBlock([](const BlockView&) { return Status::Ok(); });
}

// Whether `message` names `offset` as "offset N" (not as the start of a longer number).
bool NamesOffset(const std::string& message, uint64_t offset) {
  std::string want = "offset " + std::to_string(offset);
  for (size_t at = message.find(want); at != std::string::npos; at = message.find(want, at + 1)) {
    size_t end = at + want.size();
    if (end == message.size() || !std::isdigit(static_cast<unsigned char>(message[end])))
      return true;
  }
  return false;
}

// A type byte changed to one no writer emits, in the first or a later block of any
// section or index, is corruption naming the table and the block: before, an unknown type
// where a section starts or continues read as "the section ends here", and refs vanished.
TEST_P(TableCorruptionTest, UnknownBlockTypeInAnySectionIsCorruption) {
  std::vector<SectionBlock> blocks = SectionBlocks(good_);
  ASSERT_FALSE(blocks.empty());
  Probes probes = probes_;
  ObjectId low{}, high{};
  high.fill(0xff);
  probes.ids.push_back(low);  // obj lookups down the leftmost and the rightmost paths
  probes.ids.push_back(high);
  std::vector<std::string> sections;
  for (const SectionBlock& b : blocks) {
    if (std::find(sections.begin(), sections.end(), b.section) == sections.end())
      sections.push_back(b.section);
  }
  size_t flipped = 0;
  for (const std::string& section : sections) {
    std::vector<const SectionBlock*> in_section;
    for (const SectionBlock& b : blocks) {
      if (b.section == section) in_section.push_back(&b);
    }
    for (const SectionBlock* b : {in_section.front(), in_section.back()}) {
      SCOPED_TRACE(section + " block at offset " + std::to_string(b->offset));
      std::string bad = good_;
      bad[b->offset + b->header_off] = 'x';
      Status s = FirstReadError(name_, std::move(bad), probes);
      ASSERT_FALSE(s.ok());
      EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
      EXPECT_EQ(s.message().rfind(name_ + ": ", 0), 0u) << s.message();
      EXPECT_TRUE(NamesOffset(s.message(), b->offset)) << s.message();
      ++flipped;
    }
  }
  EXPECT_GE(flipped, 2u);
}

// The same for the section scans alone, which dump and verify use: a ref or log block
// whose type byte is damaged stops the scan with an error, not as the end of the section.
TEST_P(TableCorruptionTest, UnknownBlockTypeStopsSectionScans) {
  for (const SectionBlock& b : SectionBlocks(good_)) {
    if (b.section != "r" && b.section != "g") continue;
    SCOPED_TRACE(b.section + " block at offset " + std::to_string(b.offset));
    std::string bad = good_;
    bad[b.offset + b.header_off] = 'x';
    auto table = TableReader::OpenBytes(name_, std::move(bad));
    if (!table.ok()) {
      EXPECT_EQ(b.offset, 0u) << table.status().ToString();  // only the first block's type
      EXPECT_TRUE(NamesOffset(table.status().message(), 0)) << table.status().message();
      continue;
    }
    Status s;
    if (b.section == "r") {
      TableRefIterator it(table->get());
      s = it.SeekToFirst();
      RefRecord r;
      while (s.ok() && it.Next(&r)) {
      }
      if (s.ok()) s = it.status();
    } else {
      TableLogIterator it(table->get());
      s = it.SeekToFirst();
      LogRecord l;
      while (s.ok() && it.Next(&l)) {
      }
      if (s.ok()) s = it.status();
    }
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
    EXPECT_TRUE(NamesOffset(s.message(), b.offset)) << s.message();
  }
}

// What `reftab verify` runs: it fails on a damaged type byte in any block but the first
// (which Open already rejects), with a message naming the table and the block.
TEST_P(TableCorruptionTest, VerifyRejectsAnUnknownBlockType) {
  for (const SectionBlock& b : SectionBlocks(good_)) {
    if (b.offset == 0) continue;
    SCOPED_TRACE(b.section + " block at offset " + std::to_string(b.offset));
    std::string bad = good_;
    bad[b.offset + b.header_off] = 'x';
    auto table = TableReader::OpenBytes(name_, std::move(bad));
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    VerifyReport report;
    Status s = VerifyTable(**table, &report);
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
    EXPECT_EQ(s.message().rfind(name_ + ": ", 0), 0u) << s.message();
    EXPECT_TRUE(NamesOffset(s.message(), b.offset)) << s.message();
  }
}

INSTANTIATE_TEST_SUITE_P(Samples, TableCorruptionTest,
                         testing::Values("GitSmallRefsAndLogs", "GitSmallSha256",
                                         "GitSmallTombstones", "JgitSmallUnaligned",
                                         "WrittenMultiLevelSha1", "WrittenUnpaddedSha256"),
                         [](const testing::TestParamInfo<std::string>& info) {
                           return info.param;
                         });

}  // namespace
}  // namespace reftab
