// store/git/verify.h: the git-level checks of `reftab verify`, on refs planted through the
// plain Stack API (which takes any names). GitAgreesVerifyTest runs the real git's
// `git refs verify` on the same repositories (REFTAB_GIT, else git >= 2.45 on PATH; skipped
// without one): every line git prints is one of ours, in the same order, and git fails
// exactly when we find an error of one of git's own kinds.
#include "store/git/verify.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "store/verify.h"
#include "tests/testutil/git_environment.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;
using testutil::WriteFileOrDie;

const auto* const kIsolated =
    ::testing::AddGlobalTestEnvironment(new testutil::IsolatedGitEnvironment);

ObjectId Oid(uint8_t b) {
  ObjectId id{};
  for (size_t i = 0; i < 20; ++i) id[i] = b;
  return id;
}

Status Plant(Stack& stack, const std::vector<std::pair<std::string, RefValue>>& refs) {
  Transaction tx = stack.NewTransaction();
  for (const auto& [name, value] : refs) tx.Update(name, value);
  return tx.Commit();
}

std::vector<std::string> Lines(GitRepo& repo, bool strict = false, size_t* errors = nullptr) {
  GitVerifyReport report;
  Status s = VerifyGitRepo(repo, GitVerifyOptions{strict}, &report);
  EXPECT_TRUE(s.ok()) << s.message();
  std::vector<std::string> out;
  for (const GitVerifyFinding& f : report.findings) out.push_back(report.Line(f));
  if (errors) *errors = report.errors();
  return out;
}

// VerifyGitRepoAndTables' lines; its table counts must be VerifyStack's.
std::vector<std::string> LinesWithTables(GitRepo& repo) {
  GitVerifyReport report;
  VerifyReport tables;
  Status s = VerifyGitRepoAndTables(repo, GitVerifyOptions{}, &tables, &report);
  EXPECT_TRUE(s.ok()) << s.message();
  VerifyReport alone;
  for (Stack* stack : repo.stacks()) EXPECT_TRUE(VerifyStack(*stack, &alone).ok());
  EXPECT_EQ(tables.tables, alone.tables);
  EXPECT_EQ(tables.refs, alone.refs);
  EXPECT_EQ(tables.blocks, alone.blocks);
  std::vector<std::string> out;
  for (const GitVerifyFinding& f : report.findings) out.push_back(report.Line(f));
  return out;
}

// A git directory without git: HEAD stub, empty stack, config.
std::string MakeGitDir(const TempDir& tmp) {
  std::string g = tmp.Subdir("r/.git");
  tmp.Subdir("r/.git/reftable");
  WriteFileOrDie(g + "/HEAD", "ref: refs/heads/.invalid\n");
  WriteFileOrDie(g + "/reftable/tables.list", "");
  WriteFileOrDie(g + "/config", "[core]\n\trepositoryformatversion = 1\n");
  return g;
}

std::unique_ptr<GitRepo> Open(const std::string& g) {
  auto r = GitRepo::Open(g, StackOptions());
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? std::move(*r) : nullptr;
}

// Names written by another tool with any bytes: named escaped, with what is wrong.
TEST(GitVerifyTest, HostileNameBytesAreEscaped) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  auto repo = Open(g);
  ASSERT_TRUE(repo);
  const RefValue id = RefValue::Id(Oid(1));
  ASSERT_TRUE(Plant(repo->main_stack(), {{std::string("refs/heads/a\0evil", 17), id},
                                         {"refs/heads/ctl\001x", id},
                                         {"refs/heads/bad\377", id},
                                         {"refs/heads/caf\xc3\xa9", id}})
                  .ok());
  size_t errors = 0;
  EXPECT_EQ(Lines(*repo, false, &errors),
            (std::vector<std::string>{
                "error: refs/heads/a\\0evil: badRefName: refname holds a NUL byte: git reads "
                "it as 'refs/heads/a'",
                "warning: refs/heads/bad\\377: badRefNameEncoding: refname is not UTF-8",
                "error: refs/heads/ctl\\001x: badRefName: invalid refname format: contains a "
                "forbidden character",
            }));
  EXPECT_EQ(errors, 2u);
}

TEST(GitVerifyTest, EveryKindOfFindingInGitsWords) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  auto repo = Open(g);
  ASSERT_TRUE(repo);
  const RefValue id = RefValue::Id(Oid(1));
  ASSERT_TRUE(
      Plant(repo->main_stack(), {{"HEAD", RefValue::Symref("refs/tags/v1")},
                                 {"ORIG_HEAD", id},
                                 {"lower", id},
                                 {"FOO", id},
                                 {"refs/heads/../evil", id},
                                 {"refs/heads/a..b", id},
                                 {"refs/heads/x.lock", id},
                                 {"refs/heads/x", id},
                                 {"refs/heads/x/y", id},
                                 {"refs/heads/null", RefValue::Id(ObjectId{})},
                                 {"refs/heads/badtarget", RefValue::Symref("refs/heads/a..b")},
                                 {"refs/heads/nonref", RefValue::Symref("foo/bar")},
                                 {"refs/heads/root", RefValue::Symref("ORIG_HEAD")},
                                 {"refs/heads/dangling", RefValue::Symref("refs/heads/nope")},
                                 {"refs/heads/s1", RefValue::Symref("refs/heads/s2")},
                                 {"refs/heads/s2", RefValue::Symref("refs/heads/s3")},
                                 {"refs/heads/s3", RefValue::Symref("refs/heads/s4")},
                                 {"refs/heads/s4", RefValue::Symref("refs/heads/s5")},
                                 {"refs/heads/s5", RefValue::Symref("refs/heads/x")},
                                 {"refs/heads/loop", RefValue::Symref("refs/heads/loop")}})
          .ok());
  size_t errors = 0;
  EXPECT_EQ(Lines(*repo, false, &errors),
            (std::vector<std::string>{
                "error: FOO: badRefName: invalid refname format: has only one component",
                "error: HEAD: badHeadTarget: HEAD points to non-branch 'refs/tags/v1'",
                "error: lower: badRefName: refname is dangerous",
                "error: refs/heads/../evil: badRefName: refname is dangerous",
                "error: refs/heads/a..b: badRefName: invalid refname format: contains \"..\"",
                "error: refs/heads/badtarget: badReferentName: points to invalid refname "
                "'refs/heads/a..b'",
                "warning: refs/heads/dangling: danglingSymref: points to missing ref "
                "'refs/heads/nope'",
                "error: refs/heads/loop: symrefTooDeep: cannot be resolved within 5 symbolic "
                "refs (git's limit), or is a loop",
                "warning: refs/heads/nonref: symrefTargetIsNotARef: points to non-ref target "
                "'foo/bar'",
                "error: refs/heads/null: badRefOid: points to invalid object ID "
                "'0000000000000000000000000000000000000000'",
                "error: refs/heads/s1: symrefTooDeep: cannot be resolved within 5 symbolic refs "
                "(git's limit), or is a loop",
                "error: refs/heads/x.lock: badRefName: invalid refname format: has a component "
                "ending with \".lock\"",
                "error: refs/heads/x/y: refDirectoryConflict: 'refs/heads/x' exists; cannot "
                "create 'refs/heads/x/y'",
            }));
  EXPECT_EQ(errors, 11u);
  // Deleting the conflicting ref clears the conflict: only live refs count.
  Transaction tx = repo->main_stack().NewTransaction();
  tx.Delete("refs/heads/x");
  ASSERT_TRUE(tx.Commit().ok());
  for (const std::string& line : Lines(*repo)) {
    EXPECT_EQ(line.find("refDirectoryConflict"), std::string::npos) << line;
  }
}

// Names sort between a ref and the refs below it ('-' and '.' come before '/'), and a ref
// may sit below several others: each conflict names the shortest live ref above it, as the
// check must find it without holding every name.
TEST(GitVerifyTest, DirectoryConflictsAcrossNamesSortedBetween) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  auto repo = Open(g);
  ASSERT_TRUE(repo);
  const RefValue id = RefValue::Id(Oid(1));
  ASSERT_TRUE(Plant(repo->main_stack(), {{"refs/heads/a", id},
                                         {"refs/heads/a-b", id},
                                         {"refs/heads/a.c", id},
                                         {"refs/heads/a-b/x", id},
                                         {"refs/heads/a/d", id},
                                         {"refs/heads/a/d/e", id},
                                         {"refs/heads/ab/f", id},
                                         {"refs/heads/b", id},
                                         {"refs/heads/c/d", id}})
                  .ok());
  EXPECT_EQ(Lines(*repo),
            (std::vector<std::string>{
                "error: refs/heads/a-b/x: refDirectoryConflict: 'refs/heads/a-b' exists; "
                "cannot create 'refs/heads/a-b/x'",
                "error: refs/heads/a/d: refDirectoryConflict: 'refs/heads/a' exists; cannot "
                "create 'refs/heads/a/d'",
                "error: refs/heads/a/d/e: refDirectoryConflict: 'refs/heads/a' exists; cannot "
                "create 'refs/heads/a/d/e'",
            }));
}

TEST(GitVerifyTest, CleanRepositoryAndUnbornHead) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  auto repo = Open(g);
  ASSERT_TRUE(repo);
  ASSERT_TRUE(Plant(repo->main_stack(), {{"HEAD", RefValue::Symref("refs/heads/main")}}).ok());
  EXPECT_TRUE(Lines(*repo).empty()) << "an unborn HEAD is not dangling";
  ASSERT_TRUE(Plant(repo->main_stack(), {{"refs/heads/main", RefValue::Id(Oid(2))},
                                         {"refs/tags/v1", RefValue::Peeled(Oid(3), Oid(2))},
                                         {"refs/heads/alias", RefValue::Symref("HEAD")}})
                  .ok());
  EXPECT_TRUE(Lines(*repo).empty());
}

// VerifyGitRepoAndTables reads a main stack of one table once, for the structural and the
// git-level checks: the same lines as VerifyGitRepo's (the table name's first, tombstones
// left out), whether the stack is several tables, one, or one holding a tombstone.
TEST(GitVerifyTest, WithTablesSameLinesOneTableOrSeveral) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  StackOptions opts;
  opts.auto_compact = false;
  auto opened = GitRepo::Open(g, opts);
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  GitRepo& repo = **opened;
  const RefValue id = RefValue::Id(Oid(1));
  ASSERT_TRUE(Plant(repo.main_stack(), {{"HEAD", RefValue::Symref("refs/heads/main")},
                                        {"refs/heads/main", id},
                                        {"refs/heads/x", id},
                                        {"refs/heads/x/y", id},
                                        {"refs/heads/a..b", id},
                                        {"refs/heads/dangling", RefValue::Symref("refs/heads/no")},
                                        {"refs/heads/null", RefValue::Id(ObjectId{})}})
                  .ok());
  Transaction tx = repo.main_stack().NewTransaction();
  tx.Delete("refs/heads/x");
  tx.Update("refs/heads/later", RefValue::Symref("refs/heads/x"));
  ASSERT_TRUE(tx.Commit().ok());
  ASSERT_EQ(repo.main_stack().names().size(), 2u);
  const std::vector<std::string> several = Lines(repo);
  EXPECT_EQ(LinesWithTables(repo), several);
  // refs/heads/x is deleted in the second table: no conflict with x/y, and later dangles.
  EXPECT_EQ(several,
            (std::vector<std::string>{
                "error: refs/heads/a..b: badRefName: invalid refname format: contains \"..\"",
                "warning: refs/heads/dangling: danglingSymref: points to missing ref "
                "'refs/heads/no'",
                "warning: refs/heads/later: danglingSymref: points to missing ref 'refs/heads/x'",
                "error: refs/heads/null: badRefOid: points to invalid object ID "
                "'0000000000000000000000000000000000000000'"}));
  ASSERT_TRUE(repo.main_stack().CompactAll().ok());
  ASSERT_EQ(repo.main_stack().names().size(), 1u);
  EXPECT_EQ(Lines(repo), several);
  EXPECT_EQ(LinesWithTables(repo), several);
  // The second table alone: a tombstone for refs/heads/x and a symref to it, under a name
  // git would not give a table (a finding that comes before the refs').
  ASSERT_TRUE(Plant(repo.main_stack(), {{"refs/heads/x", id}}).ok());
  tx = repo.main_stack().NewTransaction();
  tx.Delete("refs/heads/x");
  tx.Update("refs/heads/to-x", RefValue::Symref("refs/heads/x"));
  ASSERT_TRUE(tx.Commit().ok());
  const std::string last = repo.main_stack().names().back();
  ASSERT_EQ(std::rename((g + "/reftable/" + last).c_str(), (g + "/reftable/alone.ref").c_str()), 0);
  WriteFileOrDie(g + "/reftable/tables.list", "alone.ref\n");
  auto alone = GitRepo::Open(g, opts);
  ASSERT_TRUE(alone.ok()) << alone.status().message();
  ASSERT_EQ((*alone)->main_stack().names().size(), 1u);
  const std::vector<std::string> expect = {
      "warning: alone.ref: badReftableTableName: invalid reftable table name",
      "warning: refs/heads/to-x: danglingSymref: points to missing ref 'refs/heads/x'"};
  EXPECT_EQ(Lines(**alone), expect);
  EXPECT_EQ(LinesWithTables(**alone), expect);
}

TEST(GitVerifyTest, TableNamesAndStrict) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  {
    auto repo = Open(g);
    ASSERT_TRUE(Plant(repo->main_stack(), {{"refs/heads/main", RefValue::Id(Oid(2))}}).ok());
  }
  std::string list = testutil::ReadFileOr(g + "/reftable/tables.list");
  std::string name = list.substr(0, list.find('\n'));
  ASSERT_EQ(std::rename((g + "/reftable/" + name).c_str(), (g + "/reftable/weird.ref").c_str()), 0);
  WriteFileOrDie(g + "/reftable/tables.list", "weird.ref\n");
  auto repo = Open(g);
  size_t errors = 0;
  EXPECT_EQ(Lines(*repo, false, &errors),
            (std::vector<std::string>{"warning: weird.ref: badReftableTableName: invalid reftable "
                                      "table name"}));
  EXPECT_EQ(errors, 0u);
  EXPECT_EQ(Lines(*repo, true, &errors),
            (std::vector<std::string>{"error: weird.ref: badReftableTableName: invalid reftable "
                                      "table name"}));
  EXPECT_EQ(errors, 1u);
}

TEST(GitVerifyTest, LinkedWorktreeStacks) {
  TempDir tmp("gitverify");
  std::string g = MakeGitDir(tmp);
  std::string wt = tmp.Subdir("r/.git/worktrees/wt");
  tmp.Subdir("r/.git/worktrees/wt/reftable");
  WriteFileOrDie(wt + "/reftable/tables.list", "");
  WriteFileOrDie(wt + "/commondir", "../..\n");
  {
    auto main = Open(g);
    ASSERT_TRUE(Plant(main->main_stack(), {{"HEAD", RefValue::Symref("refs/heads/main")},
                                           {"refs/heads/main", RefValue::Id(Oid(2))}})
                    .ok());
  }
  auto repo = Open(wt);
  ASSERT_TRUE(repo && repo->worktree_stack());
  ASSERT_TRUE(Plant(*repo->worktree_stack(),
                    {{"HEAD", RefValue::Symref("refs/heads/main")},
                     {"refs/bisect/bad", RefValue::Symref("refs/heads/main")},
                     {"refs/worktree/gone", RefValue::Symref("refs/worktree/nope")},
                     {"refs/heads/shared", RefValue::Id(Oid(4))}})
                  .ok());
  const std::vector<std::string> want = {
      "error: worktrees/wt/refs/heads/shared: refInWrongStack: not a per-worktree ref: git "
      "reads 'refs/heads/shared' from the main stack and never sees this one",
      "warning: worktrees/wt/refs/worktree/gone: danglingSymref: points to missing ref "
      "'refs/worktree/nope'",
  };
  EXPECT_EQ(Lines(*repo), want) << "symrefs resolve through the worktree's view";
  EXPECT_EQ(Lines(*Open(g)), want) << "the main worktree checks every linked worktree too";
}

// `reftab verify` runs these checks for a git repository only, prints git's lines on stderr
// and fails on an error; a bare --stack is a generic sorted store and keeps any names.
TEST(GitVerifyCliTest, GitRepositoriesOnly) {
  const char* cli = std::getenv("REFTAB_CLI");
  if (!cli) GTEST_SKIP() << "REFTAB_CLI is not set (run through meson test)";
  TempDir tmp("verifycli");
  std::string g = MakeGitDir(tmp);
  {
    auto repo = Open(g);
    ASSERT_TRUE(Plant(repo->main_stack(), {{"HEAD", RefValue::Symref("refs/heads/main")},
                                           {"refs/heads/main", RefValue::Id(Oid(2))}})
                    .ok());
  }
  testing::ProcessResult clean = testing::RunProcess({cli, "--git-dir", g, "verify"});
  EXPECT_EQ(clean.exit_code, 0) << clean.err;
  EXPECT_EQ(clean.out.rfind("ok: ", 0), 0u) << clean.out;
  EXPECT_EQ(clean.err, "");
  {
    auto repo = Open(g);
    ASSERT_TRUE(Plant(repo->main_stack(), {{"refs/heads/a..b", RefValue::Id(Oid(2))},
                                           {"refs/heads/d", RefValue::Symref("refs/heads/gone")}})
                    .ok());
  }
  testing::ProcessResult bad = testing::RunProcess({cli, "--git-dir", g, "verify"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_EQ(bad.out, "");
  EXPECT_EQ(bad.err,
            "error: refs/heads/a..b: badRefName: invalid refname format: contains \"..\"\n"
            "warning: refs/heads/d: danglingSymref: points to missing ref 'refs/heads/gone'\n");
  testing::ProcessResult stack = testing::RunProcess({cli, "--stack", g + "/reftable", "verify"});
  EXPECT_EQ(stack.exit_code, 0) << stack.err;
  EXPECT_EQ(stack.err, "");
  testing::ProcessResult usage = testing::RunProcess({cli, "--git-dir", g, "verify", "--bogus"});
  EXPECT_EQ(usage.exit_code, 129);
  EXPECT_EQ(usage.err.substr(0, usage.err.find('\n')), "error: unknown option `bogus'");
}

// ---------------------------------------------------------------------------------------------

class GitAgreesVerifyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    auto git = testing::FindReftableGit(&why);
    if (!git) REFTAB_SKIP_WITHOUT_GIT(why);
    git_ = *git;
    template_ = tmp_.Subdir("template");
    ASSERT_EQ(Git(template_, {"init", "-q", "-b", "main", "--ref-format=reftable", "."}).exit_code,
              0);
    ASSERT_EQ(Git(template_, {"commit", "-q", "--allow-empty", "-m", "x"}).exit_code, 0);
    ASSERT_EQ(Git(template_, {"worktree", "add", "-q", "../wt", "-b", "side"}).exit_code, 0);
  }
  void TearDown() override {
    if (!git_.empty()) {
      std::printf("[ compared ] %d repositories with git refs verify, %d agree\n", compared_,
                  agreed_);
    }
  }
  testing::ProcessResult Git(const std::string& cwd, std::vector<std::string> args) const {
    testing::ProcessOptions o;
    o.cwd = cwd;
    o.env = {{"HOME", tmp_.path()},
             {"GIT_CONFIG_NOSYSTEM", "1"},
             {"GIT_COMMITTER_NAME", "C"},
             {"GIT_COMMITTER_EMAIL", "c@example.com"},
             {"GIT_AUTHOR_NAME", "A"},
             {"GIT_AUTHOR_EMAIL", "a@example.com"},
             {"GIT_TEST_REFTABLE_AUTOCOMPACTION", "false"}};
    std::vector<std::string> argv = {git_};
    argv.insert(argv.end(), args.begin(), args.end());
    return testing::RunProcess(argv, o);
  }

  TempDir tmp_{"verifyagree"};
  std::string git_, template_;
  int compared_ = 0, agreed_ = 0;
};

struct Plan {
  std::string what;
  std::vector<std::pair<std::string, RefValue>> main;
  std::vector<std::pair<std::string, RefValue>> worktree;
  bool rename_table = false;
  bool strict = false;
};

bool IsGitsId(const std::string& id) {
  static const std::set<std::string> kGit = {"badReftableTableName",  "badRefOid",
                                             "badHeadTarget",         "badReferentName",
                                             "symrefTargetIsNotARef", ""};
  return kGit.count(id) > 0;
}

TEST_F(GitAgreesVerifyTest, SameLinesSameVerdict) {
  const RefValue id = RefValue::Id(Oid(7));
  const std::vector<Plan> plans = {
      {"clean", {}, {}, false, false},
      {"null oid", {{"refs/heads/null", RefValue::Id(ObjectId{})}}, {}, false, false},
      {"HEAD to a tag", {{"HEAD", RefValue::Symref("refs/tags/v1")}}, {}, false, false},
      {"bad referent", {{"refs/heads/s", RefValue::Symref("refs/heads/a..b")}}, {}, false, false},
      {"non-ref target", {{"refs/heads/s", RefValue::Symref("foo/bar")}}, {}, false, false},
      {"root-ref target", {{"refs/heads/s", RefValue::Symref("ORIG_HEAD")}}, {}, false, false},
      {"bad names",
       {{"refs/heads/a..b", id}, {"refs/heads/sp ace", id}, {"lower", id}},
       {},
       false,
       false},
      {"D/F", {{"refs/heads/x", id}, {"refs/heads/x/y", id}}, {}, false, false},
      {"dangling and deep",
       {{"refs/heads/d", RefValue::Symref("refs/heads/nope")},
        {"refs/heads/l", RefValue::Symref("refs/heads/l")}},
       {},
       false,
       false},
      {"worktree HEAD to a tag", {}, {{"HEAD", RefValue::Symref("refs/tags/t")}}, false, false},
      {"worktree null oid and shared ref",
       {},
       {{"refs/bisect/bad", RefValue::Id(ObjectId{})}, {"refs/heads/shared", id}},
       false,
       false},
      {"table name", {}, {}, true, false},
      {"table name, strict", {}, {}, true, true},
      {"everything",
       {{"HEAD", RefValue::Symref("refs/remotes/x")},
        {"refs/heads/null", RefValue::Id(ObjectId{})},
        {"refs/heads/t1", RefValue::Symref("refs/heads/.bad")},
        {"refs/heads/t2", RefValue::Symref("nope/x")},
        {"refs/heads/t3", RefValue::Symref("refs/heads/main")}},
       {{"HEAD", RefValue::Symref("refs/notes/x")}},
       true,
       false},
  };
  int n = 0;
  for (const Plan& p : plans) {
    SCOPED_TRACE(p.what);
    std::string name = "c";
    name += std::to_string(++n);  // (not "c" + ...: g++ 12 warns falsely, -Wrestrict)
    std::string top = tmp_.Subdir(name);
    testutil::CopyDirContents(template_, top + "/main");
    testutil::CopyDirContents(tmp_.path() + "/wt", top + "/wt");
    // The copies keep git's absolute links to the template; point them at the copies.
    WriteFileOrDie(top + "/wt/.git", "gitdir: " + top + "/main/.git/worktrees/wt\n");
    WriteFileOrDie(top + "/main/.git/worktrees/wt/gitdir", top + "/wt/.git\n");
    const std::string g = top + "/main/.git";
    {
      auto repo = Open(g + "/worktrees/wt");
      ASSERT_TRUE(repo && repo->worktree_stack());
      if (!p.main.empty()) {
        ASSERT_TRUE(Plant(repo->main_stack(), p.main).ok());
      }
      if (!p.worktree.empty()) {
        ASSERT_TRUE(Plant(*repo->worktree_stack(), p.worktree).ok());
      }
    }
    if (p.rename_table) {
      std::string list = testutil::ReadFileOr(g + "/reftable/tables.list");
      std::string first = list.substr(0, list.find('\n'));
      ASSERT_EQ(std::rename((g + "/reftable/" + first).c_str(), (g + "/reftable/odd.ref").c_str()),
                0);
      std::string renamed = "odd.ref";
      renamed.append(list, first.size(), std::string::npos);
      WriteFileOrDie(g + "/reftable/tables.list", renamed);
    }
    std::vector<std::string> args = {"refs", "verify"};
    if (p.strict) args.push_back("--strict");
    testing::ProcessResult git = Git(top + "/main", args);
    ASSERT_TRUE(git.exit_code == 0 || git.exit_code == 255) << git.exit_code << git.err;

    auto repo = Open(g);
    ASSERT_TRUE(repo);
    GitVerifyReport report;
    ASSERT_TRUE(VerifyGitRepo(*repo, GitVerifyOptions{p.strict}, &report).ok());
    std::vector<std::string> ours;
    bool ours_git_error = false;
    for (const GitVerifyFinding& f : report.findings) {
      ours.push_back(report.Line(f));
      ours_git_error = ours_git_error || (report.IsError(f) && IsGitsId(f.id));
    }
    // git's lines, in order, are a subsequence of ours.
    std::istringstream in(git.err);
    std::string line;
    size_t at = 0;
    bool subsequence = true;
    while (std::getline(in, line)) {
      while (at < ours.size() && ours[at] != line) ++at;
      if (at == ours.size()) {
        subsequence = false;
        ADD_FAILURE() << "git's line not among ours: " << line;
        break;
      }
      ++at;
    }
    EXPECT_EQ(git.exit_code == 255, ours_git_error) << git.err;
    ++compared_;
    agreed_ += subsequence && (git.exit_code == 255) == ours_git_error ? 1 : 0;
  }
}

}  // namespace
}  // namespace reftab
