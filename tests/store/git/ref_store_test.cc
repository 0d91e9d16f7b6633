// The git ref store (store/git/refs/ref_store.h, store/git/refs/ref_transaction.h) through its
// library API, over bare reftable directories and a small git directory: git's name refusals, D/F
// conflicts in the stack and in the transaction, one update per ref, symref splitting and
// no-deref, HEAD's reflog when its branch moves, the reflog settings. The same rules are
// compared with a real git, through the CLI, in tests/cli/git_compare_test.sh.
#include "store/git/refs/ref_store.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <optional>
#include <string>
#include <vector>

#include "store/git/objects/objects.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/reflog.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/git_store_util.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

ObjectId Id(uint64_t n) { return testutil::TestId(n, 20); }

// The helpers of tests/testutil/git_store_util.h under this file's short names.
StackOptions Options() { return testutil::GitStoreOptions(); }
std::unique_ptr<GitRefStore> OpenBare(const TempDir& tmp) {
  return testutil::OpenBareGitStore(tmp);
}
constexpr auto Set = &testutil::SetRefNoDeref;
constexpr auto Get = &testutil::ReadRefValue;

// A git directory with `config` as the end of its [core] section.
std::unique_ptr<GitRefStore> OpenRepo(const TempDir& tmp, const std::string& config) {
  return testutil::OpenGitDirStore(tmp, config);
}

bool HasReflog(GitRefStore& store, const std::string& name) {
  bool exists = false;
  EXPECT_TRUE(store.ReflogExists(name, &exists).ok());
  return exists;
}

// --stack pointed at a repository's ref storage reads, but refuses to write past git's rules
// (objects, config), naming the repository; a plain directory and one whose parent is not a
// git directory write as before.
TEST(GitRefStoreTest, StackInsideAGitDirIsReadOnly) {
  TempDir tmp;
  const std::string g = tmp.Subdir("repo/.git");
  testutil::WriteFileOrDie(g + "/HEAD", "ref: refs/heads/main\n");
  tmp.Subdir("repo/.git/objects");
  tmp.Subdir("repo/.git/reftable");
  auto refused = GitRefStore::OpenStack(g + "/reftable", Options());
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), Code::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("use --git-dir '" + g + "'"), std::string::npos)
      << refused.status().message();
  EXPECT_TRUE(GitRefStore::OpenStack(g + "/reftable/", Options(), GitRepoAccess::kReadWrite)
                  .status()
                  .code() == Code::kInvalidArgument);
  EXPECT_TRUE(GitRefStore::OpenStack(g + "/reftable", Options(), GitRepoAccess::kReadOnly).ok());
  // A linked worktree's directory: HEAD and commondir, no objects/.
  const std::string wt = tmp.Subdir("repo/.git/worktrees/w");
  testutil::WriteFileOrDie(wt + "/HEAD", "ref: refs/heads/w\n");
  testutil::WriteFileOrDie(wt + "/commondir", "../..\n");
  tmp.Subdir("repo/.git/worktrees/w/reftable");
  EXPECT_FALSE(GitRefStore::OpenStack(wt + "/reftable", Options()).ok());
  // HEAD alone is not a git directory.
  testutil::WriteFileOrDie(tmp.Subdir("other") + "/HEAD", "x\n");
  EXPECT_TRUE(GitRefStore::OpenStack(tmp.Subdir("other/reftable"), Options()).ok());
  EXPECT_TRUE(GitRefStore::OpenStack(tmp.Subdir("stack"), Options()).ok());
}

TEST(GitRefStoreTest, RefusesNamesAsGitDoes) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  GitRefTransaction tx(store.get());
  EXPECT_EQ(tx.Update("refs/heads/a..b", RefValue::Id(Id(1)), {}, 0).message(),
            "refusing to update ref with bad name 'refs/heads/a..b'");
  EXPECT_EQ(tx.Update("FETCH_HEAD", RefValue::Id(Id(1)), {}, 0).message(),
            "refusing to update pseudoref 'FETCH_HEAD'");
  EXPECT_EQ(tx.Delete("refs/heads/../evil", {}, 0).message(),
            "refusing to update ref with bad name 'refs/heads/../evil'");
  EXPECT_EQ(tx.Update(std::string("refs/heads/c\x01", 13), RefValue::Id(Id(1)), {}, 0).code(),
            Code::kInvalidArgument);
  // Safe but malformed names may still be deleted, as in git.
  EXPECT_TRUE(tx.Delete("refs/heads/a..b", {}, 0).ok());
  EXPECT_TRUE(tx.Commit().ok());
}

TEST(GitRefStoreTest, DirectoryFileConflicts) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", RefValue::Id(Id(1))).ok());
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/x/y", RefValue::Id(Id(2)), 0).ok());
    EXPECT_EQ(tx.Commit().message(), "'refs/heads/x' exists; cannot create 'refs/heads/x/y'");
  }
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/p", RefValue::Id(Id(2)), 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/p/q", RefValue::Id(Id(2)), 0).ok());
    EXPECT_EQ(tx.Commit().message(),
              "cannot process 'refs/heads/p' and 'refs/heads/p/q' at the same time");
  }
  {
    // git's reftable backend checks against the stack as it was: deleting the parent in the
    // same transaction does not make room.
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Delete("refs/heads/x", {}, 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/x/y", RefValue::Id(Id(2)), 0).ok());
    EXPECT_EQ(tx.Commit().message(), "'refs/heads/x' exists; cannot create 'refs/heads/x/y'");
  }
  {
    // Names that share their parents with the name before them (the checks skip those
    // parents): the parent that differs is still found, a ref or a name of the transaction.
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/w/1", RefValue::Id(Id(2)), 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/w/2", RefValue::Id(Id(2)), 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/x/1", RefValue::Id(Id(2)), 0).ok());
    EXPECT_EQ(tx.Commit().message(), "'refs/heads/x' exists; cannot create 'refs/heads/x/1'");
  }
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/m/a", RefValue::Id(Id(2)), 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/m/n/o/p", RefValue::Id(Id(2)), 0).ok());
    ASSERT_TRUE(tx.Create("refs/heads/m/n", RefValue::Id(Id(2)), 0).ok());
    EXPECT_EQ(tx.Commit().message(),
              "cannot process 'refs/heads/m/n/o/p' and 'refs/heads/m/n' at the same time");
  }
  EXPECT_TRUE(Get(*store, "refs/heads/x").Equals(RefValue::Id(Id(1)), 20));
  EXPECT_FALSE(Get(*store, "refs/heads/x/y").exists());
  EXPECT_FALSE(Get(*store, "refs/heads/w/1").exists());
}

// Prepare() takes the stack's lock, as git's prepare does: between it and the commit no
// other writer gets in, and one that tries fails with kLockHeld. What others committed before
// the lock, since this store last loaded the stack, still counts: the checks are made again
// under the lock.
TEST(GitRefStoreTest, PreparedTransactionsHoldTheLockAndSeeWritersThatCameBefore) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  auto other = OpenBare(tmp);
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/x", RefValue::Id(Id(1)), 0).ok());
    ASSERT_TRUE(tx.Prepare().ok());
    Status s = Set(*other, "refs/heads/x/y", RefValue::Id(Id(2)));
    EXPECT_EQ(s.code(), Code::kLockHeld) << s.ToString();
    ASSERT_TRUE(tx.Commit().ok());
  }
  ASSERT_TRUE(Set(*other, "refs/heads/other", RefValue::Id(Id(5))).ok()) << "lock released";
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/p/q", RefValue::Id(Id(3)), 0).ok());
    ASSERT_TRUE(Set(*other, "refs/heads/p", RefValue::Id(Id(4))).ok());
    Status s = tx.Commit();
    EXPECT_EQ(s.code(), Code::kConflict) << s.ToString();
  }
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/heads/r", RefValue::Id(Id(3)), 0).ok());
    ASSERT_TRUE(tx.Prepare().ok());
  }  // never committed: the lock goes with the transaction
  ASSERT_TRUE(Set(*other, "refs/heads/after", RefValue::Id(Id(6))).ok());
  ASSERT_TRUE(store->main_stack().Reload().ok());
  EXPECT_TRUE(Get(*store, "refs/heads/x").exists());
  EXPECT_FALSE(Get(*store, "refs/heads/x/y").exists());
  EXPECT_FALSE(Get(*store, "refs/heads/p/q").exists());
  EXPECT_TRUE(Get(*store, "refs/heads/p").exists());
  EXPECT_FALSE(Get(*store, "refs/heads/r").exists());
}

// A lock another writer keeps past the timeout fails the transaction at Prepare, in git's
// words, and changes nothing.
TEST(GitRefStoreTest, HeldLockFailsPrepareWithGitsMessage) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", RefValue::Id(Id(1))).ok());
  auto held = store->main_stack().NewTransaction();
  ASSERT_TRUE(held.Lock().ok());
  GitRefTransaction tx(store.get());
  ASSERT_TRUE(tx.Update("refs/heads/x", RefValue::Id(Id(2)), std::nullopt, 0).ok());
  Status s = tx.Prepare();
  EXPECT_EQ(s.code(), Code::kLockHeld);
  EXPECT_EQ(s.message(), "cannot lock references");
  EXPECT_TRUE(Get(*store, "refs/heads/x").Equals(RefValue::Id(Id(1)), 20));
}

TEST(GitRefStoreTest, OneUpdatePerRefAlsoThroughSymrefs) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", RefValue::Id(Id(1))).ok());
  ASSERT_TRUE(Set(*store, "refs/heads/sym", RefValue::Symref("refs/heads/x")).ok());
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Update("refs/heads/x", RefValue::Id(Id(2)), {}, 0).ok());
    ASSERT_TRUE(tx.Update("refs/heads/x", RefValue::Id(Id(3)), {}, 0).ok());
    EXPECT_EQ(tx.Commit().message(), "multiple updates for ref 'refs/heads/x' not allowed");
  }
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Update("refs/heads/sym", RefValue::Id(Id(2)), {}, 0).ok());
    ASSERT_TRUE(tx.Update("refs/heads/x", RefValue::Id(Id(3)), {}, 0).ok());
    EXPECT_EQ(tx.Commit().message(),
              "multiple updates for 'refs/heads/x' (including one via symref 'refs/heads/sym') "
              "are not allowed");
  }
  EXPECT_TRUE(Get(*store, "refs/heads/x").Equals(RefValue::Id(Id(1)), 20));
}

TEST(GitRefStoreTest, UpdatesThroughSymrefsAndNoDeref) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/main", RefValue::Id(Id(1))).ok());
  ASSERT_TRUE(Set(*store, "HEAD", RefValue::Symref("refs/heads/main")).ok());
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Update("HEAD", RefValue::Id(Id(2)), RefValue::Id(Id(1)), 0, "move").ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  EXPECT_TRUE(Get(*store, "refs/heads/main").Equals(RefValue::Id(Id(2)), 20));
  EXPECT_TRUE(Get(*store, "HEAD").Equals(RefValue::Symref("refs/heads/main"), 20));
  EXPECT_TRUE(HasReflog(*store, "HEAD"));  // logged through HEAD
  {
    // symref-update without no-deref changes the referent, as git's does.
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Update("HEAD", RefValue::Symref("refs/heads/x"), {}, 0).ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  EXPECT_TRUE(Get(*store, "refs/heads/main").Equals(RefValue::Symref("refs/heads/x"), 20));
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Update("HEAD", RefValue::Symref("refs/heads/y"),
                          RefValue::Symref("refs/heads/main"), kGitRefNoDeref)
                    .ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  EXPECT_TRUE(Get(*store, "HEAD").Equals(RefValue::Symref("refs/heads/y"), 20));
  {
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(
        tx.Update("HEAD", RefValue::Id(Id(5)), RefValue::Symref("refs/heads/z"), kGitRefNoDeref)
            .ok());
    EXPECT_EQ(tx.Commit().message(),
              "verifying symref target: 'HEAD': is at refs/heads/y but expected refs/heads/z");
  }
}

TEST(GitRefStoreTest, HeadIsLoggedWhenItsBranchMoves) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "HEAD", RefValue::Symref("refs/heads/main")).ok());
  GitRefTransaction tx(store.get());
  ASSERT_TRUE(tx.Create("refs/heads/main", RefValue::Id(Id(1)), 0, "first").ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_TRUE(HasReflog(*store, "HEAD"));
  EXPECT_TRUE(HasReflog(*store, "refs/heads/main"));
}

TEST(GitRefStoreTest, ExpectedOldValuesWithGitsMessages) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/heads/x", RefValue::Id(Id(1))).ok());
  auto fails = [&](const std::string& name, const std::optional<RefValue>& old) {
    GitRefTransaction tx(store.get());
    EXPECT_TRUE(tx.Update(name, RefValue::Id(Id(9)), old, 0).ok());
    return tx.Commit().message();
  };
  EXPECT_EQ(fails("refs/heads/x", RefValue::Absent()),
            "cannot lock ref 'refs/heads/x': reference already exists");
  EXPECT_EQ(fails("refs/heads/nope", RefValue::Id(Id(1))),
            "cannot lock ref 'refs/heads/nope': unable to resolve reference 'refs/heads/nope'");
  EXPECT_EQ(fails("refs/heads/x", RefValue::Id(Id(2))), "cannot lock ref 'refs/heads/x': is at " +
                                                            HexId(Id(1), 20) + " but expected " +
                                                            HexId(Id(2), 20));
}

TEST(GitRefStoreTest, ReflogSettings) {
  {
    TempDir tmp("git-ref-store");
    auto store = OpenBare(tmp);  // no config: git's default for a non-bare repository
    EXPECT_EQ(store->log_all_ref_updates(), LogRefUpdates::kNormal);
  }
  {
    TempDir tmp("git-ref-store");
    auto store = OpenRepo(tmp, "\tbare = true\n");
    EXPECT_EQ(store->log_all_ref_updates(), LogRefUpdates::kNone);
    ASSERT_TRUE(Set(*store, "refs/heads/a", RefValue::Id(Id(1))).ok());
    EXPECT_FALSE(HasReflog(*store, "refs/heads/a"));
    // No reflog anywhere yet: a bulk writer may count on writing none for this ref.
    EXPECT_FALSE(store->MayWriteLog("refs/tags/t"));
    GitRefTransaction tx(store.get());
    ASSERT_TRUE(tx.Create("refs/tags/t", RefValue::Id(Id(1)), kGitRefForceCreateReflog).ok());
    ASSERT_TRUE(tx.Commit().ok());
    EXPECT_TRUE(HasReflog(*store, "refs/tags/t"));
    // An existing reflog keeps getting entries.
    bool log = false;
    ASSERT_TRUE(store->ShouldWriteLog("refs/tags/t", &log).ok());
    EXPECT_TRUE(log);
    EXPECT_TRUE(store->MayWriteLog("refs/tags/t"));
    // Any ref may have a reflog once a table holds one (this one has none).
    EXPECT_TRUE(store->MayWriteLog("refs/tags/other"));
    EXPECT_FALSE(HasReflog(*store, "refs/tags/other"));
  }
  {
    TempDir tmp("git-ref-store");
    auto store = OpenRepo(tmp, "\tlogAllRefUpdates = always\n");
    EXPECT_TRUE(store->MayWriteLog("refs/tags/t"));  // on by default
  }
  {
    TempDir tmp("git-ref-store");
    auto store = OpenRepo(tmp, "\tlogAllRefUpdates = always\n");
    EXPECT_EQ(store->log_all_ref_updates(), LogRefUpdates::kAlways);
  }
  EXPECT_TRUE(LogsByDefault(LogRefUpdates::kNormal, "refs/notes/x"));
  EXPECT_TRUE(LogsByDefault(LogRefUpdates::kNormal, "refs/remotes/o/x"));
  EXPECT_FALSE(LogsByDefault(LogRefUpdates::kNormal, "refs/tags/x"));
  EXPECT_FALSE(LogsByDefault(LogRefUpdates::kNormal, "refs/stash"));
  EXPECT_FALSE(LogsByDefault(LogRefUpdates::kNone, "HEAD"));
}

TEST(GitRefStoreTest, ResolveStopsAtGitsDepth) {
  TempDir tmp("git-ref-store");
  auto store = OpenBare(tmp);
  ASSERT_TRUE(Set(*store, "refs/s5", RefValue::Id(Id(1))).ok());
  for (int i = 4; i >= 0; --i) {
    ASSERT_TRUE(Set(*store, "refs/s" + std::to_string(i),
                    RefValue::Symref("refs/s" + std::to_string(i + 1)))
                    .ok());
  }
  ResolvedRef r;
  ASSERT_TRUE(store->Resolve("refs/s1", &r).ok());  // four symrefs, then the id
  EXPECT_TRUE(r.exists && !r.broken);
  EXPECT_EQ(r.name, "refs/s5");
  ASSERT_TRUE(store->Resolve("refs/s0", &r).ok());  // five symrefs: too deep for git
  EXPECT_TRUE(r.broken);
}

}  // namespace
}  // namespace reftab

namespace reftab {
namespace {

// Writes an object with git (`hash-object --literally`, so any content goes) into the
// database `objects` and returns its id; nullopt when there is no git on PATH.
std::optional<ObjectId> WriteObject(const TempDir& tmp, const std::string& objects,
                                    const std::string& type, const std::string& body) {
  std::string scratch = tmp.path() + "/scratch.git";
  testing::ProcessOptions opts;  // no user or system config: a default SHA-1 repository
  opts.env = {{"HOME", tmp.path()}, {"XDG_CONFIG_HOME", tmp.path()}, {"GIT_CONFIG_NOSYSTEM", "1"}};
  if (testing::RunProcess({"git", "init", "-q", "--bare", scratch}, opts).exit_code != 0) {
    return std::nullopt;
  }
  opts.env["GIT_DIR"] = scratch;
  opts.env["GIT_OBJECT_DIRECTORY"] = objects;
  opts.input = body;
  auto r =
      testing::RunProcess({"git", "hash-object", "-w", "--literally", "-t", type, "--stdin"}, opts);
  ObjectId id{};
  if (r.exit_code != 0 || !ParseHexId(r.out.substr(0, 40), 20, &id)) return std::nullopt;
  return id;
}

TEST(GitRefStoreTest, ChecksObjectsInARepository) {
  TempDir tmp("git-ref-store");
  auto store = OpenRepo(tmp, "");
  // OpenRepo made no objects/: ids are taken on trust. Make one and reopen.
  std::string objects = tmp.Subdir("repo.git/objects");
  auto commit = WriteObject(tmp, objects, "commit", "tree x\n");
  if (!commit) GTEST_SKIP() << "no git on PATH to write objects with";
  auto tag = WriteObject(tmp, objects, "tag", "object " + HexId(*commit, 20) + "\ntype commit\n");
  ASSERT_TRUE(tag.has_value());
  auto reopened = GitRefStore::OpenRepo(tmp.path() + "/repo.git", Options());
  ASSERT_TRUE(reopened.ok());
  GitRefStore& s = **reopened;
  GitRefTransaction tx(&s);
  EXPECT_EQ(tx.Create("refs/heads/a", RefValue::Id(Id(7)), 0).message(),
            "trying to write ref 'refs/heads/a' with nonexistent object " + HexId(Id(7), 20));
  EXPECT_EQ(tx.Create("refs/heads/a", RefValue::Id(*tag), 0).message(),
            "trying to write non-commit object " + HexId(*tag, 20) + " to branch 'refs/heads/a'");
  ASSERT_TRUE(tx.Create("refs/tags/t", RefValue::Id(*tag), 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_TRUE(Get(s, "refs/tags/t").Equals(RefValue::Peeled(*tag, *commit), 20));
}

// Existence and types are checked in SHA-256 repositories too (store/git/objects/object_reader.h):
// ids that name no object are refused, as git does.
TEST(GitRefStoreTest, ChecksObjectsOfSha256Repositories) {
  TempDir tmp("git-ref-store");
  auto store = OpenRepo(tmp, "[extensions]\n\tobjectformat = sha256\n");
  tmp.Subdir("repo.git/objects");
  auto reopened = GitRefStore::OpenRepo(tmp.path() + "/repo.git", Options());
  ASSERT_TRUE(reopened.ok());
  GitRefStore& s = **reopened;
  ASSERT_EQ(s.hash_size(), 32u);
  GitRefTransaction tx(&s);
  ObjectId a = testutil::TestId(7, 32);
  EXPECT_EQ(tx.Create("refs/heads/a", RefValue::Id(a), 0).message(),
            "trying to write ref 'refs/heads/a' with nonexistent object " + HexId(a, 32));
}

// git fails a write whose auto-compaction afterwards failed with an I/O error (its reftable
// library returns that error from the commit), though the write itself is in; reftab's
// stack keeps the two apart and the git layer reports both. Before, the failure went
// unreported: the command succeeded on a disk that had just refused a write.
TEST(GitRefStoreTest, AFailedAutoCompactionFailsTheWriteThatIsIn) {
  TempDir tmp("git-ref-store");
  testutil::FaultInjectingFileSystem fs;
  StackOptions o = Options();
  o.fs = &fs;
  auto opened = GitRefStore::OpenStack(tmp.Subdir("stack"), o);
  ASSERT_TRUE(opened.ok()) << opened.status().ToString();
  GitRefStore& store = **opened;
  ASSERT_TRUE(Set(store, "refs/heads/a", RefValue::Id(Id(1))).ok());
  // The next commit renames its table (1) and tables.list (2), then compacts the two tables
  // into one, whose rename (3) fails.
  fs.Reset();
  fs.FailNth(testutil::FsOp::kRename, 3);
  Status s = Set(store, "refs/heads/b", RefValue::Id(Id(2)));
  ASSERT_TRUE(fs.fault_fired()) << "no auto-compaction ran";
  EXPECT_EQ(s.code(), Code::kIoError) << s.ToString();
  EXPECT_NE(s.message().find("the update is in, but the auto-compaction after it failed"),
            std::string::npos)
      << s.message();
  EXPECT_TRUE(Get(store, "refs/heads/b").Equals(RefValue::Id(Id(2)), 20));

  // The same for a reflog written alone. The failure is reported by the commit that ran
  // the compaction only: not by a later one that writes nothing (no reflog to drop), nor
  // by one whose compaction succeeds.
  fs.Reset();
  fs.FailNth(testutil::FsOp::kRename, 3);
  s = WriteReflogEntry(store, "refs/heads/a", Id(1), Id(3), "moved");
  ASSERT_TRUE(fs.fault_fired()) << "no auto-compaction ran";
  EXPECT_EQ(s.code(), Code::kIoError) << s.ToString();
  fs.Reset();
  EXPECT_TRUE(DropReflog(store, "refs/heads/none").ok());
  EXPECT_TRUE(Set(store, "refs/heads/c", RefValue::Id(Id(3))).ok());
}

}  // namespace
}  // namespace reftab
