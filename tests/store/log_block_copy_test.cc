// The auto-compaction after a transaction copies the transaction's log blocks instead of
// compressing them again (store/table_log_blocks.h). These tests hold it to its promise: the
// table it writes is byte for byte the one a merge that decodes and re-encodes every entry
// writes, and it copies only when that is so.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "store/stack.h"
#include "store/table_log_blocks.h"
#include "store/table_reader.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::IdValue;
using storetest::OpenOrDie;
using storetest::TestLog;
using storetest::TestOptions;
using testutil::ReadFileOr;
using testutil::TempDir;

std::string Name(int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "refs/heads/topic/user-%04d/branch", i);
  return buf;
}

RefRecord Ref(int i) {
  RefRecord r;
  r.refname = Name(i);
  r.update_index = 2;
  r.value_type = RefValueType::kVal1;
  r.value = testutil::TestId(uint64_t(i) + 1, 20);
  return r;
}

LogRecord Log(int i, const std::string& message) {
  LogRecord l;
  l.refname = Name(i);
  l.update_index = 2;
  l.value_type = LogValueType::kUpdate;
  l.new_id = testutil::TestId(uint64_t(i) + 1, 20);
  l.name = "C O Mitter";
  l.email = "committer@example.com";
  l.time = 1700000000 + uint64_t(i);
  l.tz_offset = 60;
  l.message = message;
  return l;
}

// A table of `n` refs and their logs, written by AddLog; `record` receives its log blocks.
std::string WriteWithLogs(const WriteOptions& o, int first, int n, const std::string& message,
                          WrittenLogBlocks* record) {
  std::string out;
  StringSink sink(&out);
  TableWriter w(o, &sink);
  if (record) TableLogBlocks::Record(w, record);
  EXPECT_TRUE(w.SetLimits(1, 2).ok());
  for (int i = first; i < first + n; ++i) EXPECT_TRUE(w.AddRef(Ref(i)).ok());
  for (int i = first; i < first + n; ++i) EXPECT_TRUE(w.AddLog(Log(i, message)).ok());
  EXPECT_TRUE(w.Finish().ok());
  return out;
}

// Sets the limits and adds a HEAD symref plus refs 0..n-1: a ref section one ref longer than
// WriteWithLogs's, so every log block lands at another offset.
void AddHeadAndRefs(TableWriter& w, int n) {
  EXPECT_TRUE(w.SetLimits(1, 2).ok());
  RefRecord head;
  head.refname = "HEAD";
  head.update_index = 1;
  head.value_type = RefValueType::kSymref;
  head.target = "refs/heads/main";
  EXPECT_TRUE(w.AddRef(head).ok());
  for (int i = 0; i < n; ++i) EXPECT_TRUE(w.AddRef(Ref(i)).ok());
}

TEST(LogBlockCopyTest, CopiedBlocksGiveTheBytesOfAddLogInAnotherTable) {
  for (uint32_t block_size : {256u, 4096u}) {
    WriteOptions o;
    o.block_size = block_size;
    WrittenLogBlocks blocks;
    std::string source = WriteWithLogs(o, 0, 3000, "update: a message\n", &blocks);
    ASSERT_GT(blocks.blocks.size(), 3u) << "enough blocks for a log index";
    EXPECT_EQ(blocks.records, 3000u);
    EXPECT_TRUE(blocks.CopyableWith(o));
    // The same logs, behind a ref section one ref longer (so every offset moves).
    std::string want;
    {
      StringSink sink(&want);
      TableWriter w(o, &sink);
      AddHeadAndRefs(w, 3000);
      for (int i = 0; i < 3000; ++i) ASSERT_TRUE(w.AddLog(Log(i, "update: a message\n")).ok());
      ASSERT_TRUE(w.Finish().ok());
    }
    std::string got;
    {
      StringSink sink(&got);
      TableWriter w(o, &sink);
      AddHeadAndRefs(w, 3000);
      Status s = TableLogBlocks::Copy(w, reinterpret_cast<const uint8_t*>(source.data()),
                                      source.size(), blocks);
      ASSERT_TRUE(s.ok()) << s.ToString();
      ASSERT_TRUE(w.Finish().ok());
      EXPECT_EQ(w.stats().log_records, 3000u);
    }
    EXPECT_TRUE(got == want) << "block size " << block_size << ": " << got.size() << " vs "
                             << want.size() << " bytes";
  }
}

TEST(LogBlockCopyTest, RefusesWhatAMergeWouldEncodeDifferently) {
  WriteOptions o;
  WrittenLogBlocks blocks;
  std::string source = WriteWithLogs(o, 0, 100, "m\n", &blocks);
  WriteOptions other = o;
  other.block_size = 8192;
  EXPECT_FALSE(blocks.CopyableWith(other));
  other = o;
  other.restart_interval = 3;
  EXPECT_FALSE(blocks.CopyableWith(other));
  other = o;
  other.exact_log_message = true;
  EXPECT_FALSE(blocks.CopyableWith(other));
  // Messages stored exactly that a compaction would clean.
  WriteOptions exact = o;
  exact.exact_log_message = true;
  WrittenLogBlocks raw;
  WriteWithLogs(exact, 0, 10, "no newline", &raw);
  EXPECT_FALSE(raw.messages_normalized);
  EXPECT_FALSE(raw.CopyableWith(exact));
  WrittenLogBlocks clean;
  WriteWithLogs(exact, 0, 10, "one newline\n", &clean);
  EXPECT_TRUE(clean.CopyableWith(exact));
  // A table without refs: its first block is a log block, which carries the file header.
  WrittenLogBlocks first;
  {
    std::string out;
    StringSink sink(&out);
    TableWriter w(o, &sink);
    TableLogBlocks::Record(w, &first);
    ASSERT_TRUE(w.SetLimits(1, 2).ok());
    ASSERT_TRUE(w.AddLog(Log(0, "m\n")).ok());
    ASSERT_TRUE(w.Finish().ok());
  }
  EXPECT_TRUE(first.starts_table);
  EXPECT_FALSE(first.CopyableWith(o));
  // A writer without refs cannot take them, and nothing is written.
  std::string out;
  StringSink sink(&out);
  TableWriter w(o, &sink);
  ASSERT_TRUE(w.SetLimits(1, 2).ok());
  EXPECT_EQ(TableLogBlocks::Copy(w, reinterpret_cast<const uint8_t*>(source.data()), source.size(),
                                 blocks)
                .code(),
            Code::kInvalidArgument);
  EXPECT_TRUE(out.empty());
}

// The contents of every table of the stack in `dir`, in list order.
std::vector<std::string> TableBytes(const std::string& dir) {
  std::vector<std::string> out;
  auto s = OpenOrDie(dir, TestOptions());
  for (const std::string& n : s->names()) out.push_back(ReadFileOr(dir + "/" + n, "?"));
  return out;
}

// Runs `setup` and then `tx` twice: once with auto-compaction after `tx` (which may copy its
// log blocks), once without, compacting afterwards from a stack that just opened (which
// decodes every entry). Both must leave the same tables.
void ExpectSameAsDecodingCompaction(const StackOptions& base,
                                    const std::function<void(Stack&)>& setup,
                                    const std::function<void(Stack&)>& tx) {
  TempDir a, b;
  StackOptions manual = base;
  manual.auto_compact = false;
  StackOptions automatic = base;
  automatic.auto_compact = true;
  setup(*OpenOrDie(a.path(), manual));
  setup(*OpenOrDie(b.path(), manual));
  {
    auto s = OpenOrDie(a.path(), automatic);
    tx(*s);
    EXPECT_TRUE(s->last_auto_compaction().ok()) << s->last_auto_compaction().ToString();
  }
  tx(*OpenOrDie(b.path(), manual));
  {
    auto s = OpenOrDie(b.path(), automatic);
    ASSERT_TRUE(s->AutoCompact().ok());
  }
  std::vector<std::string> got = TableBytes(a.path()), want = TableBytes(b.path());
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_TRUE(got[i] == want[i]) << "table " << i;
}

void ManyCreates(Stack& s, const std::string& message) {
  Transaction tx = s.NewTransaction();
  for (int i = 0; i < 3000; ++i) {
    tx.Update(Name(i), IdValue(uint64_t(i) + 1), RefValue::Absent(), TestLog(1700000000, message));
  }
  ASSERT_TRUE(tx.Commit().ok());
}

void SymrefWithoutLog(Stack& s) {
  Transaction tx = s.NewTransaction();
  tx.Update("HEAD", RefValue::Symref("refs/heads/main"));
  ASSERT_TRUE(tx.Commit().ok());
}

TEST(LogBlockCopyTest, AutoCompactionAfterATransactionWritesWhatADecodingMergeWrites) {
  for (bool exact : {false, true}) {
    for (const char* message : {"create\n", "create", "create\n\n"}) {
      StackOptions o = TestOptions();
      o.write_options.exact_log_message = exact;
      ExpectSameAsDecodingCompaction(o, SymrefWithoutLog,
                                     [&](Stack& s) { ManyCreates(s, message); });
    }
  }
}

TEST(LogBlockCopyTest, OtherLogsOrDroppedTombstonesInTheRangeMakeItDecode) {
  StackOptions o = TestOptions();
  // An older table with logs of its own: its entries interleave with the new ones.
  ExpectSameAsDecodingCompaction(
      o, [](Stack& s) { ASSERT_TRUE(storetest::Put(s, Name(1500) + "x", 7).ok()); },
      [](Stack& s) { ManyCreates(s, "create\n"); });
  // A deletion's log tombstones, dropped by a merge down to the base.
  ExpectSameAsDecodingCompaction(
      o,
      [](Stack& s) {
        ManyCreates(s, "create\n");
        ASSERT_TRUE(s.CompactAll().ok());
      },
      [](Stack& s) {
        Transaction tx = s.NewTransaction();
        for (int i = 0; i < 3000; i += 2) tx.Delete(Name(i));
        tx.Update("refs/heads/new", IdValue(9), RefValue::Absent(), TestLog(5, "new\n"));
        ASSERT_TRUE(tx.Commit().ok());
      });
}

}  // namespace
}  // namespace reftab
