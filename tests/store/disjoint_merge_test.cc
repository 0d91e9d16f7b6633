// Compactions of a stack with StackOptions::copy_disjoint_tables (the key/value store's):
// tables whose key ranges do not overlap are merged by copying their ref blocks
// (store/disjoint_merge.h). The merged table holds the same refs in key order, verifies,
// and its copied refs read with update indexes moved to the merged table's minimum (how the
// tests tell a copy from a record merge, which keeps them). Everything else (overlapping
// ranges, a tombstone a merge to the base must drop, a table with reflogs) is merged record
// by record; a corrupt input fails the compaction and leaves the stack as it was.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "format/block_reader.h"
#include "store/stack.h"
#include "store/table_reader.h"
#include "store/verify.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::OpenOrDie;
using storetest::TestOptions;
using testutil::ScanRefs;
using testutil::TempDir;

StackOptions CopyOptions(HashId hash = HashId::kSha1, uint32_t block_size = 256) {
  StackOptions o = TestOptions(hash);
  o.write_options.block_size = block_size;
  o.write_options.index_objects = false;
  o.fit_block_size = true;
  o.copy_disjoint_tables = true;
  return o;
}

// An entry as the key/value store writes it: a symref record whose target is the value;
// no value: a tombstone.
using Entry = std::pair<std::string, std::optional<std::string>>;

std::string Key(int i) {
  char k[32];
  std::snprintf(k, sizeof k, "key/%06d", i);
  return k;
}

// Keys [from, to) with values naming the key and `tag`.
std::vector<Entry> Range(int from, int to, const std::string& tag) {
  std::vector<Entry> out;
  for (int i = from; i < to; ++i) out.emplace_back(Key(i), tag + ":" + Key(i));
  return out;
}

void AddTable(Stack& s, const std::vector<Entry>& entries) {
  ASSERT_TRUE(s.AddTable(64, [&](TableWriter& w, uint64_t index) -> Status {
                 RefRecord r;
                 r.update_index = index;
                 for (const Entry& e : entries) {
                   r.refname = e.first;
                   r.value_type = e.second ? RefValueType::kSymref : RefValueType::kDeletion;
                   r.target = e.second.value_or("");
                   REFTAB_RETURN_IF_ERROR(w.AddRef(r));
                 }
                 return Status::Ok();
               }).ok());
}

// The one table of `s`, verified.
const TableReader& OnlyTable(const Stack& s) {
  const auto& tables = s.snapshot()->tables();
  EXPECT_EQ(tables.size(), 1u);
  VerifyReport report;
  Status v = VerifyTable(*tables[0], &report);
  EXPECT_TRUE(v.ok()) << v.ToString();
  return *tables[0];
}

void ExpectRefs(const std::vector<RefRecord>& got, const std::vector<Entry>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].refname, want[i].first) << i;
    if (want[i].second) {
      EXPECT_EQ(got[i].value_type, RefValueType::kSymref) << i;
      EXPECT_EQ(got[i].target, *want[i].second) << i;
    } else {
      EXPECT_EQ(got[i].value_type, RefValueType::kDeletion) << i;
    }
  }
}

template <class T>
std::vector<T> Concat(std::vector<std::vector<T>> parts) {
  std::vector<T> out;
  for (auto& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

class DisjointMergeTest : public ::testing::TestWithParam<HashId> {};

TEST_P(DisjointMergeTest, TablesInAnyStackOrderAreCopiedInKeyOrder) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), CopyOptions(GetParam()));
  ASSERT_NE(s, nullptr);
  // Update indexes 1, 2, 3, 4: the stack's order is not the keys' order. Hundreds of refs
  // per table: several 256-byte blocks each, so each table's first block (which carries its
  // file header) is copied to the middle of the merged table, and the merged table's first
  // block gets the merged table's header.
  const auto a = Range(300, 700, "a"), b = Range(0, 300, "b"), c = Range(700, 701, "c"),
             d = Range(1000, 1400, "d");
  AddTable(*s, a);
  AddTable(*s, b);
  AddTable(*s, d);
  AddTable(*s, c);
  ASSERT_TRUE(s->CompactAll().ok());
  const TableReader& t = OnlyTable(*s);
  EXPECT_EQ(t.min_update_index(), 1u);
  EXPECT_EQ(t.max_update_index(), 4u);
  const std::vector<RefRecord> got = ScanRefs(t);
  ExpectRefs(got, Concat<Entry>({b, a, c, d}));
  // Copied: every record reads as the merged table's min + 0 (each was its table's min).
  for (const RefRecord& r : got) ASSERT_EQ(r.update_index, 1u) << r.refname;
  // Lookups find them (index and restart points of the copied blocks).
  for (int i : {0, 299, 300, 699, 700, 1000, 1399}) {
    RefRecord r;
    bool found = false;
    ASSERT_TRUE(t.ReadRef(Key(i), &r, &found).ok());
    EXPECT_TRUE(found) << Key(i);
  }
  RefRecord r;
  bool found = true;
  ASSERT_TRUE(t.ReadRef(Key(800), &r, &found).ok());
  EXPECT_FALSE(found);
}

TEST_P(DisjointMergeTest, OverlappingTablesAreMergedRecordByRecord) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), CopyOptions(GetParam()));
  ASSERT_NE(s, nullptr);
  AddTable(*s, Range(0, 300, "a"));
  AddTable(*s, Range(299, 500, "b"));  // shares key 299, which it shadows
  ASSERT_TRUE(s->CompactAll().ok());
  const std::vector<RefRecord> got = ScanRefs(OnlyTable(*s));
  std::vector<Entry> want = Range(0, 299, "a");
  for (const Entry& e : Range(299, 500, "b")) want.push_back(e);
  ExpectRefs(got, want);
  EXPECT_EQ(got[0].update_index, 1u);
  EXPECT_EQ(got.back().update_index, 2u);  // kept: a record merge
}

TEST_P(DisjointMergeTest, ATombstoneAboveTheBaseIsCopiedAtTheBaseDropped) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), CopyOptions(GetParam()));
  ASSERT_NE(s, nullptr);
  std::vector<Entry> with_tombstone = Range(500, 600, "b");
  with_tombstone[50].second.reset();
  AddTable(*s, Range(0, 300, "base"));
  AddTable(*s, Range(300, 400, "a"));
  AddTable(*s, with_tombstone);
  // Above the base the tombstone may still shadow something older: the copy keeps it.
  ASSERT_TRUE(s->CompactRange(1, 2).ok());
  ASSERT_EQ(s->snapshot()->tables().size(), 2u);
  const TableReader& upper = *s->snapshot()->tables()[1];
  std::vector<RefRecord> got = ScanRefs(upper);
  ExpectRefs(got, Concat<Entry>({Range(300, 400, "a"), with_tombstone}));
  for (const RefRecord& r : got) ASSERT_EQ(r.update_index, 2u) << r.refname;
  // Down to the base it goes: the merge falls back to records and drops it.
  ASSERT_TRUE(s->CompactAll().ok());
  got = ScanRefs(OnlyTable(*s));
  std::vector<Entry> want = Concat<Entry>({Range(0, 300, "base"), Range(300, 400, "a")});
  for (const Entry& e : with_tombstone) {
    if (e.second) want.push_back(e);
  }
  ExpectRefs(got, want);
  EXPECT_EQ(got.front().update_index, 1u);
  EXPECT_EQ(got.back().update_index, 2u);  // as the tables below held it
}

TEST_P(DisjointMergeTest, TablesWithOtherBlockSizesAreCopiedIntoTheLargest) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), CopyOptions(GetParam()));
  ASSERT_NE(s, nullptr);
  std::vector<Entry> big;  // values of 1,000 bytes: the table's blocks grow to 4 KiB
  for (int i = 100; i < 120; ++i) big.emplace_back(Key(i), std::string(1000, char('a' + i % 26)));
  AddTable(*s, Range(0, 100, "small"));
  ASSERT_TRUE(s->AddTable(1100, [&](TableWriter& w, uint64_t index) -> Status {
                 RefRecord r;
                 r.update_index = index;
                 r.value_type = RefValueType::kSymref;
                 for (const Entry& e : big) {
                   r.refname = e.first;
                   r.target = *e.second;
                   REFTAB_RETURN_IF_ERROR(w.AddRef(r));
                 }
                 return Status::Ok();
               }).ok());
  AddTable(*s, Range(120, 300, "small"));
  ASSERT_TRUE(s->CompactAll().ok());
  const TableReader& t = OnlyTable(*s);
  EXPECT_GT(t.header().block_size, 256u);
  const std::vector<RefRecord> got = ScanRefs(t);
  ExpectRefs(got, Concat<Entry>({Range(0, 100, "small"), big, Range(120, 300, "small")}));
  for (const RefRecord& r : got) ASSERT_EQ(r.update_index, 1u) << r.refname;
}

TEST_P(DisjointMergeTest, WithoutTheOptionEveryMergeKeepsUpdateIndexes) {
  TempDir tmp;
  StackOptions o = CopyOptions(GetParam());
  o.copy_disjoint_tables = false;
  auto s = OpenOrDie(tmp.path(), o);
  ASSERT_NE(s, nullptr);
  AddTable(*s, Range(300, 700, "a"));
  AddTable(*s, Range(0, 300, "b"));
  ASSERT_TRUE(s->CompactAll().ok());
  const std::vector<RefRecord> got = ScanRefs(OnlyTable(*s));
  ExpectRefs(got, Concat<Entry>({Range(0, 300, "b"), Range(300, 700, "a")}));
  EXPECT_EQ(got.front().update_index, 2u);
  EXPECT_EQ(got.back().update_index, 1u);
}

// A restart point that is not the start of a record, in the second table's first block
// (read from the mapping) or in its sixth (read ahead, through a window of the file): a
// record merge would not notice (it decodes forward), a lookup would; the copy checks every
// restart point, so the compaction fails naming the table and the block, and the stack is
// left as it was.
TEST_P(DisjointMergeTest, ACorruptInputFailsTheCompactionAndChangesNothing) {
  for (uint64_t block : {0u, 5u}) {
    SCOPED_TRACE("block " + std::to_string(block));
    TempDir tmp;
    auto s = OpenOrDie(tmp.path(), CopyOptions(GetParam(), 4096));
    ASSERT_NE(s, nullptr);
    AddTable(*s, Range(0, 100, "a"));
    AddTable(*s, Range(100, 2000, "b"));
    const std::string victim = s->names()[1];
    const std::string path = tmp.path() + "/" + victim;
    std::string bytes;
    {
      std::ifstream in(path, std::ios::binary);
      bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    {
      auto t = TableReader::OpenBytes(victim, bytes);
      ASSERT_TRUE(t.ok());
      BlockView b;
      ASSERT_TRUE(DecodeBlock((*t)->source(), block * 4096, nullptr, nullptr, &b).ok());
      ASSERT_EQ(b.type, BlockType::kRef);
      ASSERT_GE(b.restart_count, 2u);
      const size_t at = block * 4096 + b.restart_off + 3 + 2;  // the low byte of restart point 1
      bytes[at] = char(bytes[at] + 1);
    }
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << bytes;
    }
    auto reopened = OpenOrDie(tmp.path(), CopyOptions(GetParam(), 4096));
    ASSERT_NE(reopened, nullptr);
    const auto before = testutil::ListDirSorted(tmp.path());
    Status c = reopened->CompactAll();
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.ToString().find(victim), std::string::npos) << c.ToString();
    EXPECT_NE(c.ToString().find("offset " + std::to_string(block * 4096) + ":"), std::string::npos)
        << c.ToString();
    EXPECT_NE(c.ToString().find("restart point 1"), std::string::npos) << c.ToString();
    EXPECT_EQ(testutil::ListDirSorted(tmp.path()), before);
    EXPECT_EQ(reopened->names().size(), 2u);
  }
}

INSTANTIATE_TEST_SUITE_P(Hashes, DisjointMergeTest,
                         ::testing::Values(HashId::kSha1, HashId::kSha256), [](const auto& info) {
                           return std::string(info.param == HashId::kSha1 ? "Sha1" : "Sha256");
                         });

}  // namespace
}  // namespace reftab
