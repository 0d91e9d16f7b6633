// Batched ref transactions (GitRefTransaction::set_batch_updates, git's `update-ref
// --batch-updates`): an update that fails for a reason of its own is rejected alone, with
// git's reason and message, and the others are committed together; a failure of the whole
// transaction still fails everything. The CLI's output is compared with a real git in
// tests/cli/git_compare_test.sh ("batch" cases).
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "store/git/refs/ref_store.h"
#include "store/git/refs/ref_transaction.h"
#include "store/stack.h"
#include "tests/testutil/git_store_util.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;
using Reason = GitRefRejectReason;

ObjectId Id(uint64_t n) { return testutil::TestId(n, 20); }
RefValue IdValue(uint64_t n) { return RefValue::Id(Id(n)); }

// The helpers of tests/testutil/git_store_util.h under this file's short names.
std::unique_ptr<GitRefStore> OpenBare(const TempDir& tmp) {
  return testutil::OpenBareGitStore(tmp);
}
constexpr auto Set = &testutil::SetRefNoDeref;
constexpr auto Get = &testutil::ReadRefValue;

std::unique_ptr<GitRefStore> OpenRepo(const TempDir& tmp, bool objects, const std::string& core) {
  return testutil::OpenGitDirStore(tmp, core, objects);
}

bool Holds(GitRefStore& store, const std::string& name, uint64_t n) {
  return Get(store, name).Equals(IdValue(n), 20);
}

size_t Tables(GitRefStore& store) {
  EXPECT_TRUE(store.main_stack().Reload().ok());
  return store.main_stack().snapshot()->tables().size();
}

// "name: reason" for each rejection, in order.
std::vector<std::string> Summary(const GitRefTransaction& tx) {
  std::vector<std::string> out;
  for (const GitRefRejection& r : tx.rejected()) {
    out.push_back(r.refname + ": " + GitRefRejectReasonText(r.reason));
  }
  return out;
}

// The stored values are read for the updates in name order with one iterator: names below,
// between, equal to and past the stored ones, queued out of name order across directories,
// in a stack of several tables with a deleted ref, each see what a lookup of its own sees.
TEST(GitRefBatchTest, StoredValuesReadInNameOrderMatchLookups) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  for (int n : {2, 4, 6, 8}) {
    ASSERT_TRUE(Set(*store, "refs/heads/b" + std::to_string(n), IdValue(uint64_t(n))).ok());
  }
  ASSERT_TRUE(Set(*store, "refs/tags/t5", IdValue(5)).ok());
  ASSERT_TRUE(Set(*store, "refs/tags/t7", IdValue(7)).ok());
  {
    GitRefTransaction del(store.get());
    ASSERT_TRUE(del.Delete("refs/tags/t7", std::nullopt, 0).ok());
    ASSERT_TRUE(del.Commit().ok());
  }
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Create("refs/tags/t7", IdValue(17), 0).ok());
  ASSERT_TRUE(tx.Create("refs/heads/b1", IdValue(11), 0).ok());
  ASSERT_TRUE(tx.Create("refs/heads/b4", IdValue(14), 0).ok());
  ASSERT_TRUE(tx.Update("refs/tags/t5", IdValue(15), IdValue(5), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/b6", IdValue(16), IdValue(9), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/b8", IdValue(18), IdValue(8), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/b9", IdValue(19), IdValue(9), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/b2", IdValue(12), IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Create("refs/tags/t0", IdValue(10), 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{
                             "refs/heads/b4: reference already exists",
                             "refs/heads/b6: incorrect old value provided",
                             "refs/heads/b9: reference does not exist",
                         }));
  EXPECT_TRUE(Holds(*store, "refs/tags/t7", 17));
  EXPECT_TRUE(Holds(*store, "refs/heads/b1", 11));
  EXPECT_TRUE(Holds(*store, "refs/heads/b4", 4));
  EXPECT_TRUE(Holds(*store, "refs/tags/t5", 15));
  EXPECT_TRUE(Holds(*store, "refs/heads/b6", 6));
  EXPECT_TRUE(Holds(*store, "refs/heads/b8", 18));
  EXPECT_FALSE(Get(*store, "refs/heads/b9").exists());
  EXPECT_TRUE(Holds(*store, "refs/heads/b2", 12));
  EXPECT_TRUE(Holds(*store, "refs/tags/t0", 10));
}

TEST(GitRefBatchTest, RejectsEachFailingUpdateAloneAndCommitsTheRest) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", IdValue(1)).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/b", IdValue(1)).ok());
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Create("refs/heads/a", IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/b", IdValue(2), IdValue(5), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/c", IdValue(2), IdValue(5), 0).ok());
  ASSERT_TRUE(tx.Delete("refs/heads/e", IdValue(1), 0).ok());
  ASSERT_TRUE(tx.Verify("refs/heads/f", IdValue(1), 0).ok());
  ASSERT_TRUE(tx.Create("refs/heads/d", IdValue(3), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/g", IdValue(4), RefValue::Absent(), 0).ok());
  EXPECT_TRUE(tx.rejected().empty());  // found while preparing
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{
                             "refs/heads/a: reference already exists",
                             "refs/heads/b: incorrect old value provided",
                             "refs/heads/c: reference does not exist",
                             "refs/heads/e: reference does not exist",
                             "refs/heads/f: reference does not exist",
                         }));
  const std::vector<GitRefRejection>& r = tx.rejected();
  ASSERT_EQ(r.size(), 5u);
  EXPECT_EQ(r[0].message, "cannot lock ref 'refs/heads/a': reference already exists");
  EXPECT_EQ(r[1].message, "cannot lock ref 'refs/heads/b': is at " + HexId(Id(1), 20) +
                              " but expected " + HexId(Id(5), 20));
  EXPECT_EQ(r[2].message,
            "cannot lock ref 'refs/heads/c': unable to resolve reference 'refs/heads/c'");
  // The values as queued: a create expects "absent", a verify has no new value.
  EXPECT_TRUE(r[0].new_value->Equals(IdValue(2), 20));
  EXPECT_FALSE(r[0].old_value->exists());
  EXPECT_FALSE(r[4].new_value.has_value());
  EXPECT_TRUE(r[4].old_value->Equals(IdValue(1), 20));
  EXPECT_TRUE(Holds(*store, "refs/heads/a", 1));
  EXPECT_TRUE(Holds(*store, "refs/heads/b", 1));
  EXPECT_FALSE(Get(*store, "refs/heads/c").exists());
  EXPECT_TRUE(Holds(*store, "refs/heads/d", 3));
  EXPECT_TRUE(Holds(*store, "refs/heads/g", 4));
}

TEST(GitRefBatchTest, WithoutBatchTheFirstFailureFailsAll) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", IdValue(1)).ok());
  GitRefTransaction tx(store.get());
  ASSERT_TRUE(tx.Create("refs/heads/d", IdValue(3), 0).ok());
  ASSERT_TRUE(tx.Create("refs/heads/a", IdValue(2), 0).ok());
  Status s = tx.Commit();
  EXPECT_EQ(s.message(), "cannot lock ref 'refs/heads/a': reference already exists");
  EXPECT_TRUE(tx.rejected().empty());
  EXPECT_FALSE(Get(*store, "refs/heads/d").exists());
}

TEST(GitRefBatchTest, AllRejectedWritesNoTable) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", IdValue(1)).ok());
  const size_t before = Tables(*store);
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Create("refs/heads/a", IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/c", IdValue(2), IdValue(9), 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.rejected().size(), 2u);
  EXPECT_EQ(Tables(*store), before);
}

// Two updates of one name, a bad name, a pseudoref: the whole batch fails, as in git.
TEST(GitRefBatchTest, FailuresOfTheWholeStillFailEverything) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", IdValue(1)).ok());
  {
    GitRefTransaction tx(store.get());
    tx.set_batch_updates(true);
    ASSERT_TRUE(tx.Create("refs/heads/new", IdValue(2), 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/a", IdValue(2), 0).ok());
    ASSERT_TRUE(tx.Update("refs/heads/a", IdValue(3), std::nullopt, 0).ok());
    EXPECT_EQ(tx.Commit().message(), "multiple updates for ref 'refs/heads/a' not allowed");
    EXPECT_TRUE(tx.rejected().empty());
  }
  {
    GitRefTransaction tx(store.get());
    tx.set_batch_updates(true);
    EXPECT_EQ(tx.Create("FETCH_HEAD", IdValue(2), 0).message(),
              "refusing to update pseudoref 'FETCH_HEAD'");
    EXPECT_EQ(tx.Create("refs/heads/a..b", IdValue(2), 0).message(),
              "refusing to update ref with bad name 'refs/heads/a..b'");
    EXPECT_TRUE(tx.rejected().empty());
  }
  EXPECT_FALSE(Get(*store, "refs/heads/new").exists());
}

TEST(GitRefBatchTest, DirectoryFileConflictsRejectTheNameInTheWay) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", IdValue(1)).ok());
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Create("refs/heads/x/y", IdValue(2), 0).ok());  // under a ref
  ASSERT_TRUE(tx.Create("refs/heads/x/z", IdValue(2), 0).ok());  // the same parent again
  ASSERT_TRUE(tx.Create("refs/heads/p", IdValue(2), 0).ok());    // parent of the next one
  ASSERT_TRUE(tx.Create("refs/heads/p/q", IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Create("refs/heads/ok", IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{
                             "refs/heads/x/y: refname conflict",
                             "refs/heads/x/z: refname conflict",
                             "refs/heads/p: refname conflict",
                         }));
  EXPECT_EQ(tx.rejected()[1].message, "'refs/heads/x' exists; cannot create 'refs/heads/x/z'");
  EXPECT_EQ(tx.rejected()[2].message,
            "cannot process 'refs/heads/p' and 'refs/heads/p/q' at the same time");
  // With p rejected, p/q no longer clashes with it.
  EXPECT_TRUE(Holds(*store, "refs/heads/p/q", 2));
  EXPECT_FALSE(Get(*store, "refs/heads/p").exists());
  EXPECT_TRUE(Holds(*store, "refs/heads/ok", 2));
  EXPECT_FALSE(Get(*store, "refs/heads/x/y").exists());
}

TEST(GitRefBatchTest, ARejectedNameLeavesRoomForOthers) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Update("refs/heads/p", IdValue(2), IdValue(1), 0).ok());  // does not exist
  ASSERT_TRUE(tx.Create("refs/heads/p/q", IdValue(3), 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{"refs/heads/p: reference does not exist"}));
  EXPECT_TRUE(Holds(*store, "refs/heads/p/q", 3));
}

TEST(GitRefBatchTest, SymrefExpectations) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", IdValue(1)).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/s", RefValue::Symref("refs/heads/x")).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/dangling", RefValue::Symref("refs/heads/nowhere")).ok());
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Update("refs/heads/s", RefValue::Symref("refs/heads/y"),
                        RefValue::Symref("refs/heads/other"), kGitRefNoDeref)
                  .ok());
  ASSERT_TRUE(tx.Update("refs/heads/x", RefValue::Symref("refs/heads/y"),
                        RefValue::Symref("refs/heads/z"), kGitRefNoDeref)
                  .ok());
  ASSERT_TRUE(tx.Create("refs/heads/dangling", IdValue(2), kGitRefNoDeref).ok());
  ASSERT_TRUE(tx.Create("refs/heads/ns", RefValue::Symref("refs/heads/x"), kGitRefNoDeref).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{
                             "refs/heads/s: incorrect old value provided",
                             "refs/heads/x: expected symref but found regular ref",
                             "refs/heads/dangling: reference already exists",
                         }));
  EXPECT_EQ(tx.rejected()[0].message,
            "verifying symref target: 'refs/heads/s': is at refs/heads/x but expected "
            "refs/heads/other");
  EXPECT_EQ(tx.rejected()[2].message,
            "cannot lock ref 'refs/heads/dangling': dangling symref already exists");
  EXPECT_EQ(Get(*store, "refs/heads/s").target, "refs/heads/x");
  EXPECT_EQ(Get(*store, "refs/heads/ns").target, "refs/heads/x");
}

// Through a symref the update is split: the referent's update is the one rejected (named by
// its referent, worded with the name given), and a second update of the referent through
// another name is a conflict of that update alone.
TEST(GitRefBatchTest, UpdatesThroughSymrefs) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", IdValue(1)).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/s", RefValue::Symref("refs/heads/x")).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/y", IdValue(1)).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/t", RefValue::Symref("refs/heads/y")).ok());
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Update("refs/heads/s", IdValue(2), IdValue(7), 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/y", IdValue(3), std::nullopt, 0).ok());
  ASSERT_TRUE(tx.Update("refs/heads/t", IdValue(4), std::nullopt, 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{
                             "refs/heads/t: refname conflict",
                             "refs/heads/x: incorrect old value provided",
                         }));
  EXPECT_EQ(tx.rejected()[0].message,
            "multiple updates for 'refs/heads/y' (including one via symref 'refs/heads/t') are "
            "not allowed");
  EXPECT_EQ(tx.rejected()[1].message, "cannot lock ref 'refs/heads/s': is at " + HexId(Id(1), 20) +
                                          " but expected " + HexId(Id(7), 20));
  EXPECT_TRUE(Holds(*store, "refs/heads/x", 1));
  EXPECT_TRUE(Holds(*store, "refs/heads/y", 3));
}

// A new id that names no object is refused as it is queued: rejected() lists it at once and
// the transaction goes on without it.
TEST(GitRefBatchTest, BadNewObjectsAreRejectedWhenQueued) {
  TempDir tmp("git-ref-batch");
  auto store = OpenRepo(tmp, /*objects=*/true, "");
  ASSERT_NE(store, nullptr);
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Create("refs/heads/a", IdValue(7), 0).ok());
  ASSERT_EQ(tx.rejected().size(), 1u);
  EXPECT_EQ(tx.rejected()[0].reason, Reason::kInvalidNewValue);
  EXPECT_EQ(tx.rejected()[0].message,
            "trying to write ref 'refs/heads/a' with nonexistent object " + HexId(Id(7), 20));
  EXPECT_STREQ(GitRefRejectReasonText(tx.rejected()[0].reason), "invalid new value provided");
  // Not part of the transaction: the same name may still be queued.
  ASSERT_TRUE(
      tx.Update("refs/heads/a", RefValue::Symref("refs/heads/main"), std::nullopt, kGitRefNoDeref)
          .ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.rejected().size(), 1u);
  EXPECT_EQ(Get(*store, "refs/heads/a").target, "refs/heads/main");
}

// As git: HEAD's reflog entry, queued when its branch's update was, is written even though
// that update is rejected afterwards (its old value was wrong).
TEST(GitRefBatchTest, HeadKeepsItsReflogEntryOfARejectedBranchUpdate) {
  TempDir tmp("git-ref-batch");
  auto store = OpenRepo(tmp, /*objects=*/false, "\tlogAllRefUpdates = false\n");
  ASSERT_NE(store, nullptr);
  ASSERT_TRUE(Set(*store, "HEAD", RefValue::Symref("refs/heads/main")).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/main", IdValue(1)).ok());
  bool head_log = true;
  ASSERT_TRUE(store->ReflogExists("HEAD", &head_log).ok());
  ASSERT_FALSE(head_log);
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Update("refs/heads/main", IdValue(2), IdValue(5), kGitRefForceCreateReflog).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(Summary(tx),
            (std::vector<std::string>{"refs/heads/main: incorrect old value provided"}));
  EXPECT_TRUE(Holds(*store, "refs/heads/main", 1));
  ASSERT_TRUE(store->ReflogExists("HEAD", &head_log).ok());
  EXPECT_TRUE(head_log);
  bool main_log = true;
  ASSERT_TRUE(store->ReflogExists("refs/heads/main", &main_log).ok());
  EXPECT_FALSE(main_log);
}

// prepare() finds the rejections; commit() writes what is left.
TEST(GitRefBatchTest, PrepareThenCommit) {
  TempDir tmp("git-ref-batch");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", IdValue(1)).ok());
  GitRefTransaction tx(store.get());
  tx.set_batch_updates(true);
  ASSERT_TRUE(tx.Create("refs/heads/a", IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Create("refs/heads/b", IdValue(2), 0).ok());
  ASSERT_TRUE(tx.Prepare().ok());
  EXPECT_EQ(Summary(tx), (std::vector<std::string>{"refs/heads/a: reference already exists"}));
  EXPECT_FALSE(Get(*store, "refs/heads/b").exists());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.rejected().size(), 1u);
  EXPECT_TRUE(Holds(*store, "refs/heads/b", 2));
}

}  // namespace
}  // namespace reftab
