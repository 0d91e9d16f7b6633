// store/git/objects/complete_history.h on repositories made by git, then damaged by removing
// loose objects: which reflog ids --stale-fix keeps (git's keep_entry), with what the refs
// reach trusted. The command-level comparison with git is tests/cli/git_compare_reflog.sh;
// these pin down the rule's parts one by one. Skipped with a message when there is no git
// or libgit2 cannot be loaded.
#include "store/git/objects/complete_history.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "tests/testutil/fast_import.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

const std::string kSubmodule = "1111111111111111111111111111111111111111";

ObjectId IdOf(const std::string& hex) {
  ObjectId id{};
  EXPECT_TRUE(ParseHexId(hex, 20, &id)) << hex;
  return id;
}

// A fast-import commit (testutil::FastImportCommit) with more file lines.
std::string CommitWith(const std::string& branch, int mark, std::vector<int> parents,
                       const std::string& more) {
  std::string c = testutil::FastImportCommit(branch, mark, std::move(parents), mark);
  c.pop_back();  // the blank line that ends it
  return c + more + "\n";
}

std::string File(const std::string& path, const std::string& content) {
  return "M 100644 inline " + path + "\n" + testutil::FastImportData(content);
}

class GitCompleteHistoryTest : public ::testing::Test {
 protected:
  // main: 1-2-3; gone (deleted afterwards): 3-4-5; sub (deleted): 3-6, 6 with a submodule.
  // Each commit has its own f and d/e/y; an annotated tag on 3, a tag of a blob. Every
  // object is loose.
  void SetUp() override {
    if (testing::RunProcess({"git", "--version"}).exit_code != 0) GTEST_SKIP() << "no git on PATH";
    Make();
    GitObjects probe(objects_, 20);
    if (!probe.available()) GTEST_SKIP() << "objects unavailable: " << probe.reason();
  }

  // The repository above, in a new directory.
  void Make() {
    repo_.clear();
    revs_.clear();
    repo_ = tmp_.Subdir("repo" + std::to_string(++made_) + ".git");
    Git({"init", "-q", "--bare", repo_});
    objects_ = repo_ + "/objects";
    std::string s;
    s += CommitWith("main", 1, {}, File("d/e/y", "y1")) +
         CommitWith("main", 2, {1}, File("d/e/y", "y2")) +
         CommitWith("main", 3, {2}, File("d/e/y", "y3"));
    s += CommitWith("gone", 4, {3}, File("d/e/y", "y4")) +
         CommitWith("gone", 5, {4}, File("d/e/y", "y5")) +
         CommitWith("sub", 6, {3}, "M 160000 " + kSubmodule + " sub\n");
    Git({"fast-import", "--quiet"}, s);
    Git({"tag", "-a", "-m", "annotated", "ann", "main"});
    Git({"tag", "-a", "-m", "of a blob", "btag", "main:f"});
    for (const char* rev : {"gone", "gone~1", "sub"}) {
      revs_[rev] = Git({"rev-parse", rev}).substr(0, 40);
    }
    Git({"update-ref", "-d", "refs/heads/gone"});
    Git({"update-ref", "-d", "refs/heads/sub"});
    std::string all = Git({"cat-file", "--batch-all-objects", "--batch-check=%(objectname)"});
    std::string pack = Git({"pack-objects", "-q", "--stdout"}, all);
    std::filesystem::remove_all(objects_ + "/pack");
    std::filesystem::create_directory(objects_ + "/pack");
    Git({"unpack-objects", "-q"}, pack);
  }

  std::string Git(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), "git");
    testing::ProcessOptions opts;
    opts.cwd = repo_;
    opts.input = input;
    opts.env = {{"GIT_COMMITTER_NAME", "C"}, {"GIT_COMMITTER_EMAIL", "c@x"}};
    testing::ProcessResult r = testing::RunProcess(args, opts);
    EXPECT_EQ(r.exit_code, 0) << args[1] << ": " << r.err;
    return r.out;
  }
  // A revision; "gone", "gone~1" and "sub" (deleted branches) as they were.
  std::string Rev(std::string rev) {
    for (const char* deleted : {"gone~1", "gone", "sub"}) {
      const std::string d = deleted;
      if (rev.starts_with(d) &&
          (rev.size() == d.size() || rev[d.size()] == ':' || rev[d.size()] == '^')) {
        rev = revs_[d] + rev.substr(d.size());
        break;
      }
    }
    return Git({"rev-parse", rev}).substr(0, 40);
  }
  void Remove(const std::string& rev) {
    const std::string hex = Rev(rev);
    ASSERT_TRUE(std::filesystem::remove(objects_ + "/" + hex.substr(0, 2) + "/" + hex.substr(2)))
        << rev;
  }

  // A fresh database and test, trusting `tips` as the refs would.
  bool Sound(const std::string& rev, const std::vector<std::string>& tips = {"main", "ann"}) {
    GitObjects db(objects_, 20, repo_ + "/shallow");
    GitCompleteHistory history(&db, 20);
    for (const std::string& tip : tips) {
      bool readable = false;
      EXPECT_TRUE(history.Trust(IdOf(Rev(tip)), &readable).ok()) << tip;
      EXPECT_TRUE(readable) << tip;
    }
    bool sound = false;
    EXPECT_TRUE(history.IsSound(IdOf(Rev(rev)), &sound).ok()) << rev;
    return sound;
  }

  TempDir tmp_{"git-complete-history"};
  int made_ = 0;
  std::string repo_, objects_;
  std::map<std::string, std::string> revs_;
};

TEST_F(GitCompleteHistoryTest, IntactHistoryIsSound) {
  for (const char* rev : {"main", "main~1", "main~2", "ann", "gone", "gone~1"}) {
    EXPECT_TRUE(Sound(rev)) << rev;
  }
  EXPECT_TRUE(Sound(std::string(40, '0')));  // the zero id: a created or deleted ref
}

TEST_F(GitCompleteHistoryTest, WhatIsNoCommitIsNotSound) {
  for (const char* rev : {"main:f", "main^{tree}", "btag"}) EXPECT_FALSE(Sound(rev)) << rev;
  EXPECT_FALSE(Sound(std::string(40, 'e')));  // missing
}

TEST_F(GitCompleteHistoryTest, ASubmoduleCommitCountsAsMissingUnlessTrusted) {
  EXPECT_FALSE(Sound("sub"));
  EXPECT_TRUE(Sound("sub", {"main", "sub"}));
}

TEST_F(GitCompleteHistoryTest, AMissingTreeBlobOrSubtreeBreaksTheCommitAndItsChildren) {
  for (const char* part : {"^{tree}", ":f", ":d/e", ":d/e/y"}) {
    Make();
    Remove(std::string("gone~1") + part);
    EXPECT_FALSE(Sound("gone~1")) << part;
    EXPECT_FALSE(Sound("gone")) << part;
    EXPECT_TRUE(Sound("main")) << part;
  }
}

TEST_F(GitCompleteHistoryTest, AMissingParentBreaksTheChild) {
  Remove("gone~1");
  EXPECT_FALSE(Sound("gone~1"));
  EXPECT_FALSE(Sound("gone"));
}

TEST_F(GitCompleteHistoryTest, WhatTheRefsReachIsTrusted) {
  // main~1's tree is gone, but the refs reach main~1: it counts as complete, while a commit
  // not reached whose history meets it needs its tree.
  Remove("main~1^{tree}");
  EXPECT_TRUE(Sound("main~1"));
  EXPECT_TRUE(Sound("gone"));  // its history stops at main, trusted with a whole tree
  EXPECT_FALSE(Sound("main~1", {}));
  // A trusted commit is sound whatever its tree lacks.
  Make();
  Remove("gone~1^{tree}");
  EXPECT_TRUE(Sound("gone~1", {"main", "gone"}));
  EXPECT_TRUE(Sound("gone", {"main", "gone"}));
  // A missing commit is never sound, reached from the refs or not.
  Make();
  Remove("main~2");
  EXPECT_FALSE(Sound("main~2"));
  EXPECT_TRUE(Sound("main~1"));
}

TEST_F(GitCompleteHistoryTest, ShallowCommitsHaveNoParents) {
  Remove("gone~1");
  std::ofstream(repo_ + "/shallow") << Rev("gone") << "\n";
  EXPECT_TRUE(Sound("gone"));
  EXPECT_FALSE(Sound("gone~1"));
}

TEST_F(GitCompleteHistoryTest, AMissingTipIsNotReadable) {
  GitObjects db(objects_, 20);
  GitCompleteHistory history(&db, 20);
  bool readable = true;
  ASSERT_TRUE(history.Trust(IdOf(std::string(40, 'e')), &readable).ok());
  EXPECT_FALSE(readable);
  ASSERT_TRUE(history.Trust(IdOf(Rev("main:f")), &readable).ok());
  EXPECT_TRUE(readable);  // a blob can be read; it reaches nothing
}

}  // namespace
}  // namespace reftab
