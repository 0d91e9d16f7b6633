// ResolveRevision (store/git/refs/object_name.h) against git's own answers: a scratch git
// repository (any git: the files backend) writes a history into the object database of a
// reftable repository that holds the same refs, and `git rev-parse` says what each name is.
// Skipped with a message when there is no git.
#include "store/git/refs/object_name.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/git/objects/objects.h"
#include "store/git/refs/ref_store.h"
#include "tests/testutil/fast_import.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/git_store_util.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

// A commit of a history whose dates follow the marks.
std::string Commit(const std::string& branch, int mark, std::vector<int> parents) {
  return testutil::FastImportCommit(branch, mark, std::move(parents), mark);
}

class ObjectNameTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (testing::RunProcess({"git", "--version"}).exit_code != 0) GTEST_SKIP() << "no git on PATH";
    store_ = testutil::OpenGitDirStore(tmp_, "", /*objects=*/true);
    ASSERT_TRUE(store_);
    scratch_ = tmp_.path() + "/scratch.git";
    Git({"init", "-q", "--bare", scratch_});
    // main: 1-2-3, side: 1-4, merge 5 = 3+4 on main; v1 an annotated tag of main~1.
    Git({"fast-import", "--quiet"}, Commit("main", 1, {}) + Commit("main", 2, {1}) +
                                        Commit("main", 3, {2}) + Commit("side", 4, {1}) +
                                        Commit("main", 5, {3, 4}));
    Git({"tag", "-a", "-m", "annotated", "v1", "main~1"});
    GitRefTransaction tx(store_.get());
    for (const char* ref : {"refs/heads/main", "refs/heads/side", "refs/tags/v1"}) {
      ASSERT_TRUE(tx.Update(ref, RefValue::Id(Id(ref)), {}, 0).ok()) << ref;
    }
    ASSERT_TRUE(tx.Commit().ok());
    if (!store_->objects()->available()) {
      GTEST_SKIP() << "objects unavailable: " << store_->objects()->reason();
    }
  }

  // Runs git on the scratch repository, whose objects are the store's; its standard output.
  std::string Git(std::vector<std::string> args, const std::string& input = "",
                  int* exit_code = nullptr) {
    args.insert(args.begin(), "git");
    testing::ProcessOptions opts;
    opts.input = input;
    opts.env = {{"GIT_DIR", scratch_},
                {"GIT_OBJECT_DIRECTORY", tmp_.path() + "/repo.git/objects"},
                {"GIT_COMMITTER_NAME", "C"},
                {"GIT_COMMITTER_EMAIL", "c@x"},
                {"GIT_COMMITTER_DATE", "1700000100 +0100"}};
    if (args[1] == "init") opts.env.erase("GIT_DIR");
    testing::ProcessResult r = testing::RunProcess(args, opts);
    if (exit_code) {
      *exit_code = r.exit_code;
    } else {
      EXPECT_EQ(r.exit_code, 0) << args[1] << ": " << r.err;
    }
    return r.out;
  }

  ObjectId Id(const std::string& rev) {
    ObjectId id{};
    EXPECT_TRUE(ParseHexId(Git({"rev-parse", rev}).substr(0, 40), 20, &id)) << rev;
    return id;
  }

  TempDir tmp_{"object-name"};
  std::string scratch_;
  std::unique_ptr<GitRefStore> store_;
};

TEST_F(ObjectNameTest, NamesAndSuffixesAsGitReadsThem) {
  for (const char* name :
       {"main", "refs/heads/main", "heads/side", "v1", "main~1", "main~2", "main~", "main^",
        "main^1", "main^2", "main^2~1", "main^0", "main^{}", "main^{commit}", "main^{tree}",
        "v1^{}", "v1^{commit}", "v1^{tree}", "v1~1", "v1^", "main~1^{tree}", "side",
        // names that name nothing
        "nope", "main~9", "main^3", "main^{blob}", "main^{", "main^{}x", "side~1~1"}) {
    int git_exit = 0;
    std::string git_out = Git({"rev-parse", "--verify", "-q", name}, "", &git_exit);
    ObjectNameResult r;
    ASSERT_TRUE(ResolveRevision(*store_, name, &r).ok()) << name;
    EXPECT_EQ(r.found, git_exit == 0) << name;
    if (r.found && git_exit == 0) {
      EXPECT_EQ(HexId(r.id, 20), git_out.substr(0, 40)) << name;
    }
  }
}

// Abbreviated ids, describe names and message searches name what git says they name.
TEST_F(ObjectNameTest, AbbreviationsAndSearchesAsGit) {
  const std::string main = HexId(Id("refs/heads/main"), 20);
  const std::string subject = Git({"log", "-1", "--format=%s", "main~1"});
  const std::string text = subject.substr(0, subject.size() - 1);  // without its newline
  const std::vector<std::string> names = {main.substr(0, 7),
                                          main.substr(0, 4) + "~1",
                                          "v1-2-g" + main.substr(0, 7),
                                          ":/" + text,
                                          "main^{/" + text + "}",
                                          ":/^nomatch$",
                                          "ffff"};
  for (const std::string& name : names) {
    int git_exit = 0;
    std::string git_out = Git({"rev-parse", "--verify", "-q", name}, "", &git_exit);
    ObjectNameResult r;
    ASSERT_TRUE(ResolveRevision(*store_, name, &r).ok()) << name;
    EXPECT_EQ(r.found, git_exit == 0) << name;
    if (r.found && git_exit == 0) {
      EXPECT_EQ(HexId(r.id, 20), git_out.substr(0, 40)) << name;
    }
  }
}

// An object that cannot be read is an error, not a name that names nothing.
TEST_F(ObjectNameTest, CorruptObjectsAreErrors) {
  std::string bad = Git({"hash-object", "-w", "--literally", "-t", "commit", "--stdin"},
                        "tree not-hex\n\nbroken\n")
                        .substr(0, 40);
  ObjectId id{};
  ASSERT_TRUE(ParseHexId(bad, 20, &id));
  ASSERT_TRUE(testutil::SetRefNoDeref(*store_, "refs/heads/bad", RefValue::Id(id)).ok());
  ObjectNameResult r;
  EXPECT_TRUE(ResolveRevision(*store_, "bad", &r).ok());
  EXPECT_TRUE(r.found) << "no suffix: the object is not read";
  Status s = ResolveRevision(*store_, "bad~1", &r);
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(s.code(), Code::kCorruption) << s.ToString();
}

}  // namespace
}  // namespace reftab
