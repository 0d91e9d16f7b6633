// GitRepo over copies of the git-written fixtures (../shared/fixtures/git, FORMAT.md §15):
// the object format from the config, the refs as git's for-each-ref printed them, a linked
// worktree (per-worktree refs routed to the worktree's own stack, the merged view git
// shows there), and the small config parser and per-worktree name rule it relies on.
#include "store/git/repo.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "tests/testutil/fixtures.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

std::string Fixture(const std::string& name) { return testutil::FixturesDir() + "/git/" + name; }

std::string ReadExpected(const std::string& dir, const std::string& file) {
  std::string p = dir + "/expected/" + file;
  if (!testutil::FileExists(p) && testutil::FileExists(p + ".gz")) p += ".gz";
  return testutil::ReadFileOrDie(p);
}

// A git directory made the way check-cli-contract.sh makes one: the fixture's stubs plus its
// reftable directory.
std::string MakeGitDir(const TempDir& tmp, const std::string& fixture, const std::string& at) {
  std::string g = tmp.Subdir(at);
  testutil::CopyDirContents(Fixture(fixture) + "/gitdir-stubs", g);
  testutil::CopyDirContents(Fixture(fixture) + "/reftable", g + "/reftable");
  return g;
}

void RemoveDir(const std::string& dir) {
  testutil::ClearDir(dir);
  EXPECT_EQ(rmdir(dir.c_str()), 0) << dir;
}

std::unique_ptr<GitRepo> OpenRepo(const std::string& git_dir) {
  StackOptions base;
  base.durability = Durability::kNone;
  auto r = GitRepo::Open(git_dir, base);
  EXPECT_TRUE(r.ok()) << git_dir << ": " << r.status().ToString();
  if (!r.ok()) return nullptr;
  return std::move(*r);
}

// git for-each-ref --include-root-refs
//   --format='%(refname)%09%(objectname)%09%(*objectname)%09%(symref)'
// from our view: symrefs resolved through the repository, dangling ones left out as git does.
// With `peeled_from_table` false the third column is left empty on both sides.
std::string ForEachRefTsv(GitRepo& repo, size_t hs, bool peeled_from_table = true) {
  std::string out;
  Status st = repo.ForEachRef("", [&](const RefRecord& r) {
    RefRecord target = r;
    for (int depth = 0; target.value_type == RefValueType::kSymref && depth < 5; ++depth) {
      bool found = false;
      RefRecord next;
      EXPECT_TRUE(repo.ReadRef(target.target, &next, &found).ok());
      if (!found) return true;  // dangling: git skips it
      target = next;
    }
    if (target.value_type == RefValueType::kSymref) return true;
    out += r.refname + "\t" + HexId(target.value, hs) + "\t";
    if (peeled_from_table && target.value_type == RefValueType::kVal2)
      out += HexId(target.peeled, hs);
    out += "\t";
    if (r.value_type == RefValueType::kSymref) out += r.target;
    out += "\n";
    return true;
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

std::string DropPeeledColumn(const std::string& tsv) {
  std::string out;
  std::istringstream in(tsv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    size_t pos = 0;
    for (int i = 0; i < 3; ++i) {
      size_t tab = line.find('\t', pos);
      f.push_back(line.substr(pos, tab - pos));
      pos = tab + 1;
    }
    out += f[0] + "\t" + f[1] + "\t\t" + line.substr(pos) + "\n";
  }
  return out;
}

TEST(GitRepoTest, FixturesReadAsGitsForEachRef) {
  TempDir tmp("gitrepo");
  const std::vector<std::string> fixtures = {
      "small",        "small-sha256", "stack",          "edge",       "logs",    "multilevel",
      "deleted-head", "empty-stack",  "medium-default", "medium-ri1", "migrated"};
  for (const std::string& fx : fixtures) {
    SCOPED_TRACE(fx);
    if (!testutil::FileExists(Fixture(fx))) {
      ADD_FAILURE() << "missing fixture " << Fixture(fx);
      continue;
    }
    std::string g = MakeGitDir(tmp, fx, fx + ".git");
    auto repo = OpenRepo(g);
    ASSERT_TRUE(repo);
    EXPECT_EQ(repo->worktree_stack(), nullptr);
    const size_t hs = repo->main_stack().snapshot()->hash_size();
    std::string want = ReadExpected(Fixture(fx), "for-each-ref.tsv");
    if (fx == "migrated") {
      // git took the peeled ids from the object database there (README: the table holds
      // annotated tags as val 1).
      EXPECT_EQ(ForEachRefTsv(*repo, hs, false), DropPeeledColumn(want));
    } else {
      EXPECT_EQ(ForEachRefTsv(*repo, hs), want);
    }
  }
}

TEST(GitRepoTest, ObjectFormatComesFromTheConfig) {
  TempDir tmp("gitrepo");
  auto sha1 = OpenRepo(MakeGitDir(tmp, "small", "sha1.git"));
  auto sha256 = OpenRepo(MakeGitDir(tmp, "small-sha256", "sha256.git"));
  ASSERT_TRUE(sha1 && sha256);
  EXPECT_EQ(sha1->main_stack().hash_id(), HashId::kSha1);
  EXPECT_EQ(sha256->main_stack().hash_id(), HashId::kSha256);
  EXPECT_EQ(sha256->main_stack().options().hash_id, HashId::kSha256);
  RefRecord r;
  bool found = false;
  ASSERT_TRUE(sha256->ReadRef("refs/heads/main", &r, &found).ok());
  ASSERT_TRUE(found);
  // New tables follow the repository's format: version 2 for SHA-256.
  Stack& s = sha256->main_stack();
  Transaction tx = s.NewTransaction();
  tx.Update("refs/heads/new", RefValue::Id(r.value), RefValue::Absent());
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.committed_update_index(), 20u) << "the fixture's stack ends at 19";
  EXPECT_EQ(s.snapshot()->tables().back()->header().version, 2);
  EXPECT_EQ(s.snapshot()->tables().back()->hash_id(), HashId::kSha256);

  // An empty SHA-256 repository: the format cannot come from any table.
  std::string empty = tmp.Subdir("empty256.git");
  testutil::CopyDirContents(Fixture("small-sha256") + "/gitdir-stubs", empty);
  tmp.Subdir("empty256.git/reftable");
  auto e = OpenRepo(empty);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->main_stack().hash_id(), HashId::kSha256);
  // A SHA-1 repository whose config says otherwise does not open (hash mismatch).
  std::string mixed = MakeGitDir(tmp, "small", "mixed.git");
  testutil::WriteFileOrDie(mixed + "/config", "[extensions]\n\tobjectFormat = sha256\n");
  auto m = GitRepo::Open(mixed, StackOptions());
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), Code::kCorruption);
  testutil::WriteFileOrDie(mixed + "/config", "[extensions]\n\tobjectformat = md5\n");
  EXPECT_EQ(GitRepo::Open(mixed, StackOptions()).status().code(), Code::kInvalidArgument);
}

TEST(GitRepoTest, ReftableConfigSetsStackOptions) {
  TempDir tmp("gitrepo");
  std::string g = MakeGitDir(tmp, "small", "cfg.git");
  testutil::WriteFileOrDie(g + "/config",
                           "[core]\n\trepositoryformatversion = 1\n\tbare = true\n"
                           "[extensions]\n\trefstorage = reftable\n"
                           "[reftable]\n\tblockSize = 2k\n\trestartInterval = 7\n"
                           "\tindexObjects = false\n\tgeometricFactor = 3\n\tlockTimeout = -1\n");
  auto repo = OpenRepo(g);
  ASSERT_TRUE(repo);
  const StackOptions& o = repo->main_stack().options();
  EXPECT_EQ(o.write_options.block_size, 2048u);
  EXPECT_EQ(o.write_options.restart_interval, 7u);
  EXPECT_FALSE(o.write_options.index_objects);
  EXPECT_EQ(o.geometric_factor, 3u);
  EXPECT_EQ(o.lock_timeout_ms, -1);
  EXPECT_TRUE(repo->bare());
}

// The worktree fixture as git lays it out: the main repository's .git with the main stack,
// and .git/worktrees/wt with the worktree's own stack, HEAD stub and commondir.
class WorktreeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    git_dir_ = tmp_.Subdir("repo/.git");
    testutil::CopyDirContents(Fixture("worktree/main/gitdir-stubs"), git_dir_);
    testutil::CopyDirContents(Fixture("worktree/main/reftable"), git_dir_ + "/reftable");
    wt_dir_ = tmp_.Subdir("repo/.git/worktrees/wt");
    testutil::CopyDirContents(Fixture("worktree/wt/gitdir-stubs"), wt_dir_);
    testutil::CopyDirContents(Fixture("worktree/wt/reftable"), wt_dir_ + "/reftable");
    testutil::WriteFileOrDie(wt_dir_ + "/commondir", "../..\n");
    testutil::WriteFileOrDie(wt_dir_ + "/gitdir", tmp_.Subdir("wt") + "/.git\n");
    testutil::WriteFileOrDie(tmp_.path() + "/wt/.git", "gitdir: " + wt_dir_ + "\n");
  }
  TempDir tmp_{"worktree"};
  std::string git_dir_, wt_dir_;
};

TEST_F(WorktreeTest, PerWorktreeRefsComeFromTheWorktreeStack) {
  auto repo = OpenRepo(wt_dir_);
  ASSERT_TRUE(repo);
  ASSERT_NE(repo->worktree_stack(), nullptr);
  EXPECT_EQ(repo->git_dir(), wt_dir_);
  EXPECT_EQ(repo->worktree_stack()->dir(), wt_dir_ + "/reftable");
  EXPECT_EQ(repo->worktree_stack()->names(),
            (std::vector<std::string>{"0x000000000001-0x000000000004-e5e784a6.ref",
                                      "0x000000000005-0x000000000006-58229071.ref"}));
  EXPECT_EQ(repo->main_stack().names(),
            (std::vector<std::string>{"0x000000000001-0x000000000005-affa83c9.ref",
                                      "0x000000000006-0x000000000006-edb87e31.ref"}));
  for (const char* name : {"HEAD", "ORIG_HEAD", "refs/bisect/bad", "refs/worktree/wt-private",
                           "refs/worktree/main-private", "refs/rewritten/x"}) {
    EXPECT_EQ(&repo->StackFor(name), repo->worktree_stack()) << name;
  }
  for (const char* name :
       {"refs/heads/main", "refs/heads/wt-branch", "refs/tags/HEAD", "refs/bisectx"}) {
    EXPECT_EQ(&repo->StackFor(name), &repo->main_stack()) << name;
  }
  RefRecord r;
  bool found = false;
  ASSERT_TRUE(repo->ReadRef("HEAD", &r, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(r.value_type, RefValueType::kSymref);
  EXPECT_EQ(r.target, "refs/heads/wt-branch") << "the worktree's HEAD, not the main one";
  ASSERT_TRUE(repo->ReadRef("refs/worktree/main-private", &r, &found).ok());
  EXPECT_FALSE(found) << "the main worktree's private ref is not visible here";
  ASSERT_TRUE(repo->ReadRef("refs/heads/main", &r, &found).ok());
  EXPECT_TRUE(found);
  // for-each-ref in the worktree: both stacks, main's per-worktree refs hidden.
  EXPECT_EQ(ForEachRefTsv(*repo, 20), ReadExpected(Fixture("worktree/wt"), "for-each-ref.tsv"));
  std::vector<std::string> names;
  ASSERT_TRUE(repo->ForEachRef("refs/worktree/",
                               [&](const RefRecord& rec) {
                                 names.push_back(rec.refname);
                                 return true;
                               })
                  .ok());
  EXPECT_EQ(names, (std::vector<std::string>{"refs/worktree/wt-private"}));
  names.clear();
  ASSERT_TRUE(repo->ForEachRef("refs/heads/",
                               [&](const RefRecord& rec) {
                                 names.push_back(rec.refname);
                                 return names.size() < 1;  // stops early
                               })
                  .ok());
  EXPECT_EQ(names, (std::vector<std::string>{"refs/heads/main"}));
}

TEST_F(WorktreeTest, MainWorktreeSeesItsOwnView) {
  auto repo = OpenRepo(git_dir_);
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->worktree_stack(), nullptr);
  EXPECT_EQ(ForEachRefTsv(*repo, 20), ReadExpected(Fixture("worktree/main"), "for-each-ref.tsv"));
}

// The stacks a repository's commands visit (compact, verify, stats, pack-refs): the main
// stack, then a linked worktree's own; the main worktree has only the main one.
TEST_F(WorktreeTest, StacksAreTheMainOneThenTheWorktreesOwn) {
  auto linked = OpenRepo(wt_dir_);
  ASSERT_TRUE(linked);
  std::vector<Stack*> stacks = linked->stacks();
  ASSERT_EQ(stacks.size(), 2u);
  EXPECT_EQ(stacks[0], &linked->main_stack());
  EXPECT_EQ(stacks[1], linked->worktree_stack());
  EXPECT_EQ(stacks[1]->dir(), wt_dir_ + "/reftable");

  auto main = OpenRepo(git_dir_);
  ASSERT_TRUE(main);
  EXPECT_EQ(main->stacks(), std::vector<Stack*>{&main->main_stack()});
}

TEST_F(WorktreeTest, WritesGoToTheRightStackWithItsOwnUpdateIndexes) {
  auto repo = OpenRepo(wt_dir_);
  ASSERT_TRUE(repo);
  const std::string main_list = testutil::ReadFileOr(git_dir_ + "/reftable/tables.list");
  const std::string wt_list = testutil::ReadFileOr(wt_dir_ + "/reftable/tables.list");
  Stack& wt = repo->StackFor("refs/bisect/good");
  {
    Transaction tx = wt.NewTransaction();
    tx.Update("refs/bisect/good", storetest::IdValue(1), RefValue::Absent());
    ASSERT_TRUE(tx.Commit().ok());
    EXPECT_EQ(tx.committed_update_index(), 7u);
  }
  EXPECT_EQ(testutil::ReadFileOr(git_dir_ + "/reftable/tables.list"), main_list);
  EXPECT_NE(testutil::ReadFileOr(wt_dir_ + "/reftable/tables.list"), wt_list);
  // Three more writes in the main stack do not move the worktree's counter.
  for (int i = 0; i < 3; ++i) {
    Stack& main = repo->StackFor("refs/heads/b" + std::to_string(i));
    ASSERT_EQ(&main, &repo->main_stack());
    ASSERT_TRUE(storetest::Put(main, "refs/heads/b" + std::to_string(i), uint64_t(i)).ok());
  }
  Transaction tx = wt.NewTransaction();
  tx.Update("refs/worktree/x", storetest::IdValue(2));
  ASSERT_TRUE(tx.Commit().ok());
  EXPECT_EQ(tx.committed_update_index(), 8u);
  // Opening the repository again finds everything where it was written.
  auto again = OpenRepo(wt_dir_);
  ASSERT_TRUE(again);
  RefRecord r;
  bool found = false;
  for (const char* name : {"refs/bisect/good", "refs/worktree/x", "refs/heads/b2"}) {
    ASSERT_TRUE(again->ReadRef(name, &r, &found).ok());
    EXPECT_TRUE(found) << name;
  }
  auto main_only = OpenRepo(git_dir_);
  ASSERT_TRUE(main_only->ReadRef("refs/bisect/good", &r, &found).ok());
  EXPECT_FALSE(found);
}

// git's parse_worktree_ref: worktrees/<id>/ and main-worktree/ route only per-worktree names.
TEST(WorktreeRefKeyTest, StripsOnlyRoutingPrefixes) {
  EXPECT_EQ(WorktreeRefKey("worktrees/wt/HEAD"), "HEAD");
  EXPECT_EQ(WorktreeRefKey("worktrees/wt/refs/bisect/bad"), "refs/bisect/bad");
  EXPECT_EQ(WorktreeRefKey("worktrees/wt"), "") << "git reads the empty name there";
  EXPECT_EQ(WorktreeRefKey("main-worktree/HEAD"), "HEAD");
  EXPECT_EQ(WorktreeRefKey("main-worktree/refs/worktree/x"), "refs/worktree/x");
  for (const char* same : {"worktrees/wt/refs/heads/x", "main-worktree/refs/heads/x",
                           "worktrees/wt/head", "refs/heads/worktrees/wt/HEAD", "HEAD",
                           "main-worktree", "refs/bisect/x", "worktrees/wt/FOO1"}) {
    EXPECT_EQ(WorktreeRefKey(same), same) << same;
  }
}

TEST_F(WorktreeTest, OtherWorktreesRefsAreReadInTheirStacks) {
  for (const std::string& from : {git_dir_, wt_dir_}) {
    auto repo = OpenRepo(from);
    ASSERT_TRUE(repo);
    RefRecord r;
    bool found = false;
    ASSERT_TRUE(repo->ReadRef("worktrees/wt/HEAD", &r, &found).ok());
    ASSERT_TRUE(found) << from;
    EXPECT_EQ(r.target, "refs/heads/wt-branch") << from;
    EXPECT_EQ(r.refname, "worktrees/wt/HEAD") << "named as asked";
    ASSERT_TRUE(repo->ReadRef("worktrees/wt/refs/worktree/wt-private", &r, &found).ok());
    EXPECT_TRUE(found) << from;
    ASSERT_TRUE(repo->ReadRef("main-worktree/HEAD", &r, &found).ok());
    ASSERT_TRUE(found) << from;
    EXPECT_EQ(r.target, "refs/heads/main") << from;
    ASSERT_TRUE(repo->ReadRef("main-worktree/refs/worktree/main-private", &r, &found).ok());
    EXPECT_TRUE(found) << from;
    // A worktree that does not exist has no refs, and no stack to write to.
    ASSERT_TRUE(repo->ReadRef("worktrees/nope/HEAD", &r, &found).ok());
    EXPECT_FALSE(found);
    auto at = repo->Locate("worktrees/nope/HEAD");
    ASSERT_TRUE(at.ok());
    EXPECT_EQ(at->stack, nullptr);
    at = repo->Locate("worktrees/wt/refs/heads/x");
    ASSERT_TRUE(at.ok());
    EXPECT_EQ(at->stack, &repo->main_stack()) << "not a per-worktree name: a shared one";
    EXPECT_EQ(at->key, "worktrees/wt/refs/heads/x");
  }
}

// git's message for a git directory that is not there; a repository that is not reftable's
// says so; a linked worktree without its own stack directory has no refs of its own.
TEST_F(WorktreeTest, MissingDirectoriesAreNamed) {
  auto missing = GitRepo::Open(tmp_.path() + "/nope/.git", StackOptions());
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), Code::kNotFound);
  EXPECT_EQ(missing.status().message(), "not a git repository: '" + tmp_.path() + "/nope/.git'");
  RemoveDir(wt_dir_ + "/reftable");
  auto wt = OpenRepo(wt_dir_);
  ASSERT_TRUE(wt);
  RefRecord r;
  bool found = true;
  ASSERT_TRUE(wt->ReadRef("HEAD", &r, &found).ok());
  EXPECT_FALSE(found);
  RemoveDir(git_dir_ + "/reftable");
  auto files = GitRepo::Open(git_dir_, StackOptions());
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().message(),
            git_dir_ + ": no reftable directory (not a reftable repository?)");
}

TEST(GitRepoTest, AbsoluteCommondir) {
  TempDir tmp("gitrepo");
  std::string main = tmp.Subdir("r/.git");
  testutil::CopyDirContents(Fixture("worktree/main/gitdir-stubs"), main);
  testutil::CopyDirContents(Fixture("worktree/main/reftable"), main + "/reftable");
  std::string wt = tmp.Subdir("elsewhere/wt");
  testutil::CopyDirContents(Fixture("worktree/wt/reftable"), wt + "/reftable");
  testutil::WriteFileOrDie(wt + "/commondir", main + "\n");
  auto repo = OpenRepo(wt);
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->common_dir(), main);
  ASSERT_NE(repo->worktree_stack(), nullptr);
}

TEST(GitRepoTest, RelativeCommondirIsSaidAsTheDirectoryItNames) {
  TempDir tmp("gitrepo");
  std::string main = tmp.Subdir("r/.git");
  testutil::CopyDirContents(Fixture("worktree/main/gitdir-stubs"), main);
  testutil::CopyDirContents(Fixture("worktree/main/reftable"), main + "/reftable");
  std::string wt = tmp.Subdir("r/.git/worktrees/wt");
  testutil::CopyDirContents(Fixture("worktree/wt/reftable"), wt + "/reftable");
  testutil::WriteFileOrDie(wt + "/commondir", "../..\n");
  auto repo = OpenRepo(wt);
  ASSERT_TRUE(repo);
  EXPECT_EQ(repo->common_dir(), main);  // not .../worktrees/wt/../..
}

TEST(GitRepoTest, AFilesRepositoryIsToldHowToConvert) {
  TempDir tmp("gitrepo");
  std::string git_dir = tmp.Subdir("r/.git");
  testutil::WriteFileOrDie(git_dir + "/HEAD", "ref: refs/heads/main\n");
  testutil::WriteFileOrDie(git_dir + "/config", "[core]\n\trepositoryformatversion = 0\n");
  auto files = GitRepo::Open(git_dir, StackOptions());
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.status().code(), Code::kNotFound);
  EXPECT_EQ(files.status().message(),
            git_dir +
                ": the repository keeps its refs in git's \"files\" format, not reftable; "
                "`refs migrate --ref-format=reftable` (reftab's or git's) converts it");
}

TEST(IsPerWorktreeRefTest, FollowsGitsRules) {
  for (const char* yes :
       {"HEAD", "ORIG_HEAD", "FETCH_HEAD", "MERGE_HEAD", "BISECT_EXPECTED_REV", "AUTO_MERGE",
        "refs/bisect/bad", "refs/bisect/good-123", "refs/worktree/x", "refs/rewritten/onto"}) {
    EXPECT_TRUE(IsPerWorktreeRef(yes)) << yes;
  }
  for (const char* no : {"", "head", "Head", "refs/heads/main", "refs/heads/HEAD", "refs/bisectx",
                         "refs/worktreex/a", "refs/tags/v1", "refs/stash", "refs/notes/commits"}) {
    EXPECT_FALSE(IsPerWorktreeRef(no)) << no;
  }
}

TEST(GitConfigTest, ParsesGitsSyntax) {
  GitConfig c = GitConfig::Parse(
      "# comment\n"
      "[Core]\n"
      "\tBare = yes ; trailing comment\n"
      "\tquoted = \"a # not a comment\" \n"
      "\tescaped = \"tab\\there\"\n"
      "\tflag\n"
      "[remote \"Origin\"]\n"
      "\turl = https://example.com/x.git\n"
      "[reftable]\n"
      "\tblockSize = 4k\n"
      "\tbig = 1g\n"
      "\tbad = 12q\n"
      "\toff = off\n");
  EXPECT_TRUE(c.GetBool("core.bare", false));
  EXPECT_EQ(c.Get("core.quoted"), std::optional<std::string>("a # not a comment"));
  EXPECT_EQ(c.Get("core.escaped"), std::optional<std::string>("tab\there"));
  EXPECT_TRUE(c.GetBool("core.flag", false)) << "a key without '=' is true";
  EXPECT_EQ(c.Get("remote.Origin.url"), std::optional<std::string>("https://example.com/x.git"));
  EXPECT_EQ(c.GetInt("reftable.blocksize", 0), 4096);
  EXPECT_EQ(c.GetInt("reftable.big", 0), 1024LL * 1024 * 1024);
  EXPECT_EQ(c.GetInt("reftable.bad", 5), 5);
  EXPECT_FALSE(c.GetBool("reftable.off", true));
  EXPECT_EQ(c.GetInt("reftable.missing", -7), -7);
  EXPECT_FALSE(c.Get("nope.nope").has_value());
}

}  // namespace
}  // namespace reftab
