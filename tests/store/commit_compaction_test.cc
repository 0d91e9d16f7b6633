// A transaction's queued updates (kept compactly: names in an arena, values as a type and an
// id, the rest out of line) read back as given; a commit whose table auto-compaction would
// merge with every table below writes that merge directly, byte for byte what the table and
// its compaction write, and falls back to them when it cannot; the "nothing below" checks a
// caller made on the same tables are not made again, and still are when the tables changed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/stack.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::IdValue;
using storetest::LiveRefs;
using storetest::OpenOrDie;
using storetest::TestLog;
using storetest::TestOptions;
using testutil::ReadFileOr;
using testutil::TempDir;
using testutil::TestId;

StackOptions AutoCompacting(FileSystem* fs = nullptr) {
  StackOptions o = TestOptions();
  o.auto_compact = true;
  o.fs = fs;
  return o;
}

// A few tables of refs of every kind, tombstones and reflogs: the stack the transaction below
// lands on. Deterministic, so two stacks built by it hold the same bytes.
void Prepare(Stack& s) {
  {
    Transaction tx = s.NewTransaction();
    tx.Update("HEAD", RefValue::Symref("refs/heads/main"));
    tx.Update("refs/heads/main", IdValue(1), RefValue::Absent(), TestLog(1700000001, "init"));
    tx.Update("refs/heads/old", IdValue(2), {}, TestLog(1700000002, "old\n"));
    tx.Update("refs/tags/v1", RefValue::Peeled(TestId(3, 20), TestId(4, 20)));
    ASSERT_TRUE(tx.Commit().ok());
  }
  Transaction tx = s.NewTransaction();
  tx.Delete("refs/tags/v1");
  tx.Update("refs/heads/zz", IdValue(5), {}, TestLog(1700000005, "zz"));
  ASSERT_TRUE(tx.Commit().ok());
}

// The big transaction: creates between and around the old names, a deletion of an old ref
// (and its reflog), an update of one, a symref, a peeled tag and reflog entries.
void BigTransaction(Stack& s, Transaction* tx) {
  tx->Reserve(520, 0);
  for (int i = 0; i < 500; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/heads/b%04d", i);
    tx->Update(name, IdValue(100 + uint64_t(i) % 7), RefValue::Absent());
  }
  tx->Delete("refs/heads/old", IdValue(2));
  tx->Update("refs/heads/main", IdValue(6), IdValue(1), TestLog(1700000006, "move"));
  tx->Update("refs/remotes/origin/HEAD", RefValue::Symref("refs/remotes/origin/main"));
  tx->Update("refs/tags/v2", RefValue::Peeled(TestId(7, 20), TestId(8, 20)), RefValue::Absent());
  tx->Update("a", IdValue(9), {}, TestLog(1700000009, "a"));
  tx->Verify("refs/heads/zz", IdValue(5));
  (void)s;
}

std::string OnlyTableBytes(const std::string& dir, const Stack& s) {
  EXPECT_EQ(s.names().size(), 1u);
  return s.names().empty() ? "" : ReadFileOr(dir + "/" + s.names()[0]);
}

TEST(CompactItemsTest, QueuedUpdatesOfEveryKindReadBackAsGiven) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  Prepare(*s);
  Transaction tx = s->NewTransaction();
  BigTransaction(*s, &tx);
  // Names over more than one chunk of the arena (64 KiB), and a long one.
  for (int i = 0; i < 4000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/many/name/%05d", i);
    tx.Update(name, IdValue(200 + uint64_t(i)));
  }
  std::string long_name = "refs/heads/" + std::string(1000, 'x');
  tx.Update(long_name, IdValue(10));
  ASSERT_TRUE(tx.Commit().ok());
  RefRecord r;
  bool found = false;
  auto read = [&](const std::string& name) {
    found = false;
    EXPECT_TRUE(s->snapshot()->ReadRef(name, &r, &found).ok());
    return found;
  };
  ASSERT_TRUE(read("refs/heads/b0123"));
  EXPECT_EQ(RefValue::Of(r).id, TestId(100 + 123 % 7, 20));
  EXPECT_FALSE(read("refs/heads/old"));
  ASSERT_TRUE(read("refs/heads/main"));
  EXPECT_EQ(r.value, TestId(6, 20));
  ASSERT_TRUE(read("refs/remotes/origin/HEAD"));
  EXPECT_EQ(r.value_type, RefValueType::kSymref);
  EXPECT_EQ(r.target, "refs/remotes/origin/main");
  ASSERT_TRUE(read("refs/tags/v2"));
  EXPECT_EQ(r.value_type, RefValueType::kVal2);
  EXPECT_EQ(r.value, TestId(7, 20));
  EXPECT_EQ(r.peeled, TestId(8, 20));
  for (int i : {0, 3000, 3999}) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/many/name/%05d", i);
    ASSERT_TRUE(read(name)) << name;
    EXPECT_EQ(r.value, TestId(200 + uint64_t(i), 20));
  }
  ASSERT_TRUE(read(long_name));
  EXPECT_EQ(r.value, TestId(10, 20));
  const std::string logs = testutil::DumpLogs(*s->snapshot(), false);
  EXPECT_NE(logs.find("move"), std::string::npos) << logs;
  EXPECT_EQ(logs.find("old"), std::string::npos) << "deleted with its ref: " << logs;
  // An expected value of every kind is checked from its compact form.
  Transaction bad = s->NewTransaction();
  bad.Update("refs/heads/b0001", IdValue(1), RefValue::Symref("refs/heads/b0001"));
  Status st = bad.Commit();
  EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
  Transaction verify = s->NewTransaction();
  verify.Verify("refs/tags/v2", RefValue::Peeled(TestId(7, 20), TestId(8, 20)));
  verify.Update("refs/remotes/origin/HEAD", RefValue::Symref("refs/remotes/origin/main"),
                RefValue::Symref("refs/remotes/origin/main"));
  EXPECT_TRUE(verify.Commit().ok());
  EXPECT_EQ(verify.committed_update_index(), 0u) << "changes nothing: no table";
}

// The commit that compacts as it writes, against the table and its compaction.
TEST(CommitCompactionTest, MergedCommitEqualsTheTableAndItsCompactionByteForByte) {
  TempDir fused_dir, two_step_dir;
  Prepare(*OpenOrDie(fused_dir.path(), TestOptions()));
  auto two_step = OpenOrDie(two_step_dir.path(), TestOptions());
  Prepare(*two_step);
  testutil::FaultInjectingFileSystem fs;
  auto fused = OpenOrDie(fused_dir.path(), AutoCompacting(&fs));
  ASSERT_EQ(fused->names().size(), 2u);

  Transaction a = fused->NewTransaction();
  BigTransaction(*fused, &a);
  ASSERT_TRUE(a.Commit().ok());
  // The merge of both tables below and the new records written, renamed into place and
  // listed: no table of its own, no second merge.
  EXPECT_EQ(fs.count(testutil::FsOp::kRename), 2u) << "the table and tables.list";
  EXPECT_TRUE(fused->last_auto_compaction().ok());

  Transaction b = two_step->NewTransaction();
  BigTransaction(*two_step, &b);
  ASSERT_TRUE(b.Commit().ok());
  EXPECT_EQ(b.committed_update_index(), a.committed_update_index());
  ASSERT_EQ(two_step->names().size(), 3u);
  ASSERT_TRUE(two_step->CompactIfDue().ok());

  uint64_t min_a = 0, max_a = 0, min_b = 0, max_b = 0;
  ASSERT_TRUE(storetest::ParseTableName(fused->names()[0], &min_a, &max_a));
  ASSERT_TRUE(storetest::ParseTableName(two_step->names()[0], &min_b, &max_b));
  EXPECT_EQ(min_a, min_b);
  EXPECT_EQ(max_a, max_b);
  EXPECT_EQ(OnlyTableBytes(fused_dir.path(), *fused),
            OnlyTableBytes(two_step_dir.path(), *two_step));
  EXPECT_EQ(testutil::ListDirSorted(fused_dir.path()).size(), 2u) << "old tables removed";
}

// A small commit over a big table is not merged: the policy keeps it apart.
TEST(CommitCompactionTest, SmallCommitOverABigTableWritesItsOwnTable) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), AutoCompacting());
  Prepare(*s);
  Transaction tx = s->NewTransaction();
  BigTransaction(*s, &tx);
  ASSERT_TRUE(tx.Commit().ok());
  ASSERT_TRUE(storetest::Put(*s, "refs/heads/one", 1).ok());
  EXPECT_EQ(s->names().size(), 2u);
}

// A table below held by a running compaction: the commit writes its table alone, and the
// compaction after it skips the locked table, as without the merged commit.
TEST(CommitCompactionTest, LockedTableBelowFallsBackToTheTableAlone) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  Prepare(*s);
  ASSERT_TRUE(s->CompactAll().ok());
  const std::string base = s->names()[0];
  testutil::WriteFileOrDie(tmp.path() + "/" + base + ".lock", "");
  auto a = OpenOrDie(tmp.path(), AutoCompacting());
  Transaction tx = a->NewTransaction();
  BigTransaction(*a, &tx);
  ASSERT_TRUE(tx.Commit().ok());
  ASSERT_EQ(a->names().size(), 2u);
  EXPECT_EQ(a->names()[0], base);
  EXPECT_TRUE(testutil::FileExists(tmp.path() + "/" + base + ".lock")) << "not ours to remove";
  EXPECT_NE(LiveRefs(*a).find("refs/heads/b0499"), std::string::npos);
}

// The merge fails (its temporary table cannot be created): the records are written as a
// table of their own, the commit succeeds and the merge's failure is told as the
// auto-compaction's; the next compaction merges, to the same bytes as the two steps give.
TEST(CommitCompactionTest, FailedMergeWritesTheTableAloneAndTellsTheFailure) {
  TempDir fused_dir, two_step_dir;
  Prepare(*OpenOrDie(fused_dir.path(), TestOptions()));
  Prepare(*OpenOrDie(two_step_dir.path(), TestOptions()));
  testutil::FaultInjectingFileSystem fs;
  auto fused = OpenOrDie(fused_dir.path(), AutoCompacting(&fs));
  auto two_step = OpenOrDie(two_step_dir.path(), AutoCompacting());
  // Creates: tables.list.lock, the locks of the two tables below, the merged temporary table.
  fs.FailNth(testutil::FsOp::kCreate, 4);
  Transaction a = fused->NewTransaction();
  BigTransaction(*fused, &a);
  ASSERT_TRUE(a.Commit().ok());
  ASSERT_TRUE(fs.fault_fired());
  const std::string failed = fs.events()[size_t(fs.fault_index())].path;
  EXPECT_NE(failed.find(".temp."), std::string::npos) << failed;
  EXPECT_FALSE(fused->last_auto_compaction().ok());
  EXPECT_NE(fused->last_auto_compaction().message().find(".temp."), std::string::npos)
      << fused->last_auto_compaction().message();
  ASSERT_EQ(fused->names().size(), 3u) << "the table alone, above the two";
  EXPECT_NE(LiveRefs(*fused).find("refs/heads/b0499"), std::string::npos);
  ASSERT_TRUE(fused->CompactAll().ok());
  Transaction b = two_step->NewTransaction();
  BigTransaction(*two_step, &b);
  ASSERT_TRUE(b.Commit().ok());
  EXPECT_EQ(OnlyTableBytes(fused_dir.path(), *fused),
            OnlyTableBytes(two_step_dir.path(), *two_step));
  EXPECT_EQ(testutil::ListDirSorted(fused_dir.path()).size(), 2u) << "no stray file";
}

// ------------------------------------------------------------------ checks made by the caller

TEST(NoneBelowCheckedOnTest, ChecksMadeOnTheSameTablesAreNotMadeAgain) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(storetest::Put(*s, "a/b", 1).ok());
  Transaction tx = s->NewTransaction();
  ASSERT_TRUE(tx.Lock().ok());
  tx.Update("c", IdValue(2));
  tx.VerifyNoneBelow("a/", "a");  // would fail: the caller vouches for the check instead
  tx.NoneBelowCheckedOn(s->snapshot());
  EXPECT_TRUE(tx.Commit().ok());
}

TEST(NoneBelowCheckedOnTest, AWriteAfterTheCheckIsStillCaught) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(storetest::Put(*s, "x", 1).ok());
  std::shared_ptr<const Snapshot> checked = s->snapshot();  // nothing below "a" there
  auto other = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_TRUE(storetest::Put(*other, "a/b", 2).ok());
  for (bool last : {false, true}) {
    Transaction tx = s->NewTransaction();
    tx.Update("a", IdValue(3));
    if (last) {
      tx.VerifyNoneBelowLast();
    } else {
      tx.VerifyNoneBelow("a/", "a");
    }
    tx.NoneBelowCheckedOn(checked);
    Status st = tx.Commit();
    EXPECT_EQ(st.code(), Code::kConflict) << st.ToString();
    EXPECT_EQ(st.message(), "'a/b' exists; cannot create 'a'");
  }
  // Checked on another Stack object's snapshot of the same tables: checked again.
  auto third = OpenOrDie(tmp.path(), TestOptions());
  Transaction tx = s->NewTransaction();
  tx.Update("a", IdValue(3));
  tx.VerifyNoneBelowLast();
  tx.NoneBelowCheckedOn(third->snapshot());
  EXPECT_EQ(tx.Commit().code(), Code::kConflict);
}

}  // namespace
}  // namespace reftab
