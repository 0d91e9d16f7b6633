// git's rename (store/git/refs/ref_rename.h) through the library: the record and reflog move
// in one table spanning two update indices, HEAD stays and logs the deletion, the checks
// before and under the lock. Compared with a real git through the CLI in
// tests/cli/git_compare_refs.sh.
#include "store/git/refs/ref_rename.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/git/refs/ref_store.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/reflog.h"
#include "tests/testutil/git_store_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

ObjectId Id(uint64_t n) { return testutil::TestId(n, 20); }

Status Set(GitRefStore& store, const std::string& name, const RefValue& v) {
  GitRefTransaction tx(&store);
  REFTAB_RETURN_IF_ERROR(tx.Update(name, v, std::nullopt, kGitRefForceCreateReflog, "set"));
  return tx.Commit();
}

TEST(RefRename, MovesRecordAndReflogWithTwoEntries) {
  TempDir tmp;
  auto store = testutil::OpenBareGitStore(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", RefValue::Id(Id(1))).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/a", RefValue::Id(Id(2))).ok());
  ASSERT_TRUE(Set(*store, "HEAD", RefValue::Symref("refs/heads/a")).ok());
  const uint64_t before = store->main_stack().snapshot()->max_update_index();
  ASSERT_TRUE(CheckRenameRef(*store, "refs/heads/a", "refs/heads/b").ok());
  ASSERT_TRUE(RenameRef(*store, "refs/heads/a", "refs/heads/b", "moved  it").ok());
  // One table of two update indices.
  EXPECT_EQ(store->main_stack().snapshot()->max_update_index(), before + 2);
  EXPECT_FALSE(testutil::ReadRefValue(*store, "refs/heads/a").exists());
  EXPECT_TRUE(testutil::ReadRefValue(*store, "refs/heads/b").Equals(RefValue::Id(Id(2)), 20));
  // HEAD is not moved.
  EXPECT_EQ(testutil::ReadRefValue(*store, "HEAD").target, "refs/heads/a");
  std::vector<LogRecord> log;
  ASSERT_TRUE(ReadReflog(*store, "refs/heads/b", &log).ok());
  ASSERT_EQ(log.size(), 4u);
  EXPECT_EQ(log[0].new_id, Id(2));  // created
  EXPECT_EQ(log[0].old_id, ObjectId{});
  EXPECT_EQ(log[0].message, "moved it\n");
  EXPECT_EQ(log[1].old_id, Id(2));  // the old name deleted
  EXPECT_EQ(log[1].new_id, ObjectId{});
  EXPECT_EQ(log[1].update_index + 1, log[0].update_index);
  EXPECT_EQ(log[2].new_id, Id(2));  // the old entries
  EXPECT_EQ(log[3].new_id, Id(1));
  ASSERT_TRUE(ReadReflog(*store, "refs/heads/a", &log).ok());
  EXPECT_TRUE(log.empty());
  ASSERT_TRUE(ReadReflog(*store, "HEAD", &log).ok());
  ASSERT_FALSE(log.empty());
  EXPECT_EQ(log[0].old_id, Id(2));
  EXPECT_EQ(log[0].new_id, ObjectId{});
}

TEST(RefRename, ChecksAsGit) {
  TempDir tmp;
  auto store = testutil::OpenBareGitStore(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/a", RefValue::Id(Id(1))).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/d/e", RefValue::Id(Id(1))).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/s", RefValue::Symref("refs/heads/a")).ok());
  EXPECT_EQ(CheckRenameRef(*store, "refs/heads/a", "b").message(), "invalid ref format: 'b'");
  EXPECT_EQ(CheckRenameRef(*store, "refs/heads/no", "refs/heads/b").message(),
            "reference does not exist: 'refs/heads/no'");
  EXPECT_EQ(CheckRenameRef(*store, "refs/heads/a", "refs/heads/s").message(),
            "reference already exists: 'refs/heads/s'");
  EXPECT_EQ(RenameRef(*store, "refs/heads/s", "refs/heads/b", "").message(),
            "refname refs/heads/s is a symbolic ref, copying it is not supported");
  EXPECT_EQ(RenameRef(*store, "refs/heads/a", "refs/heads/d", "").message(),
            "'refs/heads/d/e' exists; cannot create 'refs/heads/d'");
  EXPECT_EQ(RenameRef(*store, "refs/heads/a", "refs/heads/d/e/f", "").message(),
            "'refs/heads/d/e' exists; cannot create 'refs/heads/d/e/f'");
  // The old name is no obstacle to its own directory or children.
  EXPECT_TRUE(RenameRef(*store, "refs/heads/a", "refs/heads/a/b", "").ok());
  EXPECT_TRUE(RenameRef(*store, "refs/heads/d/e", "refs/heads/d", "").ok());
  EXPECT_TRUE(testutil::ReadRefValue(*store, "refs/heads/d").Equals(RefValue::Id(Id(1)), 20));
}

}  // namespace
}  // namespace reftab
