// Short names and listings as git reads them (store/git/refs/ref_dwim.h, store/git/refs/ref_list.h)
// and the numbers of store/stack_stats.h, over a bare reftable directory (git's defaults, ids taken
// on trust). tests/cli/git_compare_refs.sh compares the same rules with a real git.
#include "store/git/refs/ref_dwim.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/git/refs/object_name.h"
#include "store/git/refs/ref_list.h"
#include "store/git/refs/ref_store.h"
#include "store/git/refs/ref_transaction.h"
#include "store/stack.h"
#include "store/stack_stats.h"
#include "store/transaction.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

ObjectId Id(uint64_t n) { return testutil::TestId(n, 20); }

class DwimTest : public ::testing::Test {
 protected:
  void SetUp() override {
    StackOptions o;
    o.durability = Durability::kNone;
    auto s = GitRefStore::OpenStack(tmp_.Subdir("stack"), o);
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    store_ = std::move(*s);
    GitRefTransaction tx(store_.get());
    auto id = [](uint64_t n) { return RefValue::Id(Id(n)); };
    ASSERT_TRUE(tx.Update("HEAD", RefValue::Symref("refs/heads/main"), {}, kGitRefNoDeref).ok());
    ASSERT_TRUE(tx.Update("refs/heads/main", id(1), {}, 0).ok());
    ASSERT_TRUE(tx.Update("refs/tags/main", id(2), {}, 0).ok());  // ambiguous with the branch
    ASSERT_TRUE(tx.Update("refs/heads/x", id(3), {}, 0).ok());
    ASSERT_TRUE(tx.Update("refs/remotes/origin/main", id(4), {}, 0).ok());
    ASSERT_TRUE(tx.Update("refs/remotes/origin/HEAD", RefValue::Symref("refs/remotes/origin/main"),
                          {}, kGitRefNoDeref)
                    .ok());
    ASSERT_TRUE(
        tx.Update("refs/heads/dangling", RefValue::Symref("refs/heads/nowhere"), {}, kGitRefNoDeref)
            .ok());
    ASSERT_TRUE(tx.Commit().ok());
  }
  DwimResult Dwim(const std::string& name, bool all = true) {
    DwimResult r;
    EXPECT_TRUE(DwimRef(*store_, name, all, &r).ok());
    return r;
  }
  std::string Short(const std::string& name, bool strict) {
    std::string out;
    EXPECT_TRUE(ShortenRefname(*store_, name, strict, &out).ok());
    return out;
  }
  TempDir tmp_;
  std::unique_ptr<GitRefStore> store_;
};

TEST_F(DwimTest, GitsRulesInOrder) {
  DwimResult r = Dwim("x");
  EXPECT_EQ(r.matches, 1);
  EXPECT_EQ(r.refname, "refs/heads/x");
  EXPECT_EQ(r.id, Id(3));
  EXPECT_EQ(Dwim("heads/x").refname, "refs/heads/x");
  EXPECT_EQ(Dwim("refs/heads/x").refname, "refs/heads/x");
  // refs/remotes/<name>/HEAD, followed to where it points.
  EXPECT_EQ(Dwim("origin").refname, "refs/remotes/origin/main");
  EXPECT_EQ(Dwim("origin/main").refname, "refs/remotes/origin/main");
  // HEAD resolves to its branch.
  EXPECT_EQ(Dwim("HEAD").refname, "refs/heads/main");
  EXPECT_EQ(Dwim("nope").matches, 0);
}

TEST_F(DwimTest, TagsComeBeforeBranchesAndAmbiguityIsCounted) {
  DwimResult r = Dwim("main");
  EXPECT_EQ(r.matches, 2);
  EXPECT_EQ(r.refname, "refs/tags/main");
  EXPECT_EQ(Dwim("main", /*all=*/false).matches, 1);
  ObjectNameResult o;
  ASSERT_TRUE(ResolveRevision(*store_, "main", &o).ok());
  EXPECT_TRUE(o.found);
  ASSERT_EQ(o.warnings.size(), 1u);
  EXPECT_EQ(o.warnings[0], "refname 'main' is ambiguous.");
}

TEST_F(DwimTest, DanglingSymrefsAreWarnedAbout) {
  DwimResult r = Dwim("dangling");
  EXPECT_EQ(r.matches, 0);
  ASSERT_EQ(r.warnings.size(), 1u);
  EXPECT_EQ(r.warnings[0], "ignoring dangling symref refs/heads/dangling");
}

TEST_F(DwimTest, BadNamesAndHexIds) {
  EXPECT_EQ(Dwim("a..b").matches, 0);
  ObjectNameResult o;
  ASSERT_TRUE(ResolveRevision(*store_, std::string(40, '1'), &o).ok());
  EXPECT_TRUE(o.found);
  EXPECT_TRUE(o.refname.empty());
  ASSERT_TRUE(ResolveRevision(*store_, "@", &o).ok());
  EXPECT_EQ(o.refname, "refs/heads/main");
  ASSERT_TRUE(ResolveRevision(*store_, "", &o).ok());
  EXPECT_FALSE(o.found) << "the empty name is not HEAD";
}

TEST_F(DwimTest, ShortensUnlessAnEarlierRuleFindsARef) {
  EXPECT_EQ(Short("refs/heads/x", false), "x");
  EXPECT_EQ(Short("refs/tags/main", false), "main");
  EXPECT_EQ(Short("refs/heads/main", false), "heads/main");  // "main" reads as the tag
  EXPECT_EQ(Short("refs/remotes/origin/HEAD", false), "origin");
  EXPECT_EQ(Short("refs/tags/main", true), "tags/main");  // strict: the branch matches too
  EXPECT_EQ(Short("HEAD", false), "HEAD");
}

// The one list of git's rev-parse rules, in git's order (refs.c's ref_rev_parse_rules).
TEST(ExpandRefnameTest, GitsRulesInGitsOrder) {
  EXPECT_EQ(ExpandRefname("x"),
            (std::vector<std::string>{"x", "refs/x", "refs/tags/x", "refs/heads/x",
                                      "refs/remotes/x", "refs/remotes/x/HEAD"}));
}

// Shortening is expansion backwards: every shortened name reads back as the full one.
TEST_F(DwimTest, ShortNamesReadBackAsTheFullName) {
  for (const char* full :
       {"refs/heads/x", "refs/tags/main", "refs/heads/main", "refs/remotes/origin/main"}) {
    for (bool strict : {false, true}) {
      std::string shortened = Short(full, strict);
      EXPECT_EQ(Dwim(shortened, /*all=*/false).refname, full) << full << " -> " << shortened;
    }
  }
  // git's match_parse_rule never gives the empty name.
  EXPECT_EQ(Short("refs/", false), "refs/");
}

// GitRefStore::Resolve is ResolveRefAsGit without the form checks: a name git would not
// accept is still read, and a symref to a dangerous name stops there, broken.
TEST_F(DwimTest, ResolveTakesNamesFromTheStoreAsTheyAre) {
  Transaction tx = store_->main_stack().NewTransaction();
  tx.Update("refs/heads/bad..name", RefValue::Id(Id(5)));
  tx.Update("refs/heads/to-bad", RefValue::Symref("refs/heads/bad..name"));
  tx.Update("refs/heads/to-danger", RefValue::Symref("refs/../etc"));
  ASSERT_TRUE(tx.Commit().ok());
  ResolvedRef r;
  ASSERT_TRUE(store_->Resolve("refs/heads/to-bad", &r).ok());
  EXPECT_TRUE(r.exists && !r.broken);
  EXPECT_EQ(r.id, Id(5));
  ASSERT_TRUE(ResolveRefAsGit(*store_, "refs/heads/to-bad", kResolveReading, &r).ok());
  EXPECT_FALSE(r.resolved) << "git's rules do not follow a malformed target";
  ASSERT_TRUE(store_->Resolve("refs/heads/to-danger", &r).ok());
  EXPECT_TRUE(r.broken);
  EXPECT_FALSE(r.resolved);
  EXPECT_EQ(r.name, "refs/heads/to-danger");
  EXPECT_EQ(r.symrefs, std::vector<std::string>{"refs/heads/to-danger"});
}

TEST_F(DwimTest, ResolutionFlagsAsGits) {
  ResolvedRef r;
  ASSERT_TRUE(ResolveRefAsGit(*store_, "refs/heads/dangling", kResolveDefault, &r).ok());
  EXPECT_TRUE(r.resolved);
  EXPECT_TRUE(r.through_symref);
  EXPECT_FALSE(r.exists);
  EXPECT_EQ(r.name, "refs/heads/nowhere");
  ASSERT_TRUE(ResolveRefAsGit(*store_, "refs/heads/dangling", kResolveReading, &r).ok());
  EXPECT_FALSE(r.resolved);
  ASSERT_TRUE(ResolveRefAsGit(*store_, "HEAD", kResolveNoRecurse, &r).ok());
  EXPECT_EQ(r.name, "refs/heads/main");
  ASSERT_TRUE(ResolveRefAsGit(*store_, "refs/heads/a..b", kResolveDefault, &r).ok());
  EXPECT_FALSE(r.resolved);
}

TEST_F(DwimTest, ListingLeavesOutBrokenRefsAndRootRefs) {
  std::vector<std::string> names;
  GitListCallbacks cb;
  cb.ref = [&](const GitListedRef& ref) {
    names.push_back(*ref.name);
    return true;
  };
  ASSERT_TRUE(ForEachGitRef(*store_, "refs/", cb).ok());
  EXPECT_EQ(names,
            (std::vector<std::string>{"refs/heads/main", "refs/heads/x", "refs/remotes/origin/HEAD",
                                      "refs/remotes/origin/main", "refs/tags/main"}));
}

// Broken refs, written through the engine (which knows no git rules): a null id and a name
// git does not accept. By default (git's GIT_REF_PARANOIA) they are listed, the bad name with
// a null id, and only the dangling symref is left out; with paranoia off, all three are.
TEST_F(DwimTest, ListingWithAndWithoutParanoia) {
  Transaction raw = store_->main_stack().NewTransaction();
  raw.Update("refs/heads/a..b", RefValue::Id(Id(7)));
  raw.Update("refs/heads/null", RefValue::Id(ObjectId{}));
  ASSERT_TRUE(raw.Commit().ok());
  std::vector<std::string> listed;
  GitListCallbacks cb;
  cb.ref = [&](const GitListedRef& ref) {
    listed.push_back(*ref.name + (ref.id == ObjectId{} ? " null" : ""));
    return true;
  };
  ASSERT_TRUE(ForEachGitRef(*store_, "refs/heads/", cb).ok());
  EXPECT_EQ(listed, (std::vector<std::string>{"refs/heads/a..b null", "refs/heads/main",
                                              "refs/heads/null null", "refs/heads/x"}));
  listed.clear();
  cb.include_broken = false;
  ASSERT_TRUE(ForEachGitRef(*store_, "refs/heads/", cb).ok());
  EXPECT_EQ(listed, (std::vector<std::string>{"refs/heads/main", "refs/heads/x"}));
}

TEST_F(DwimTest, StatsCountRecordsAndTombstones) {
  GitRefTransaction tx(store_.get());
  ASSERT_TRUE(tx.Delete("refs/heads/x", std::nullopt, 0).ok());
  ASSERT_TRUE(tx.Commit().ok());
  StackStats s;
  ASSERT_TRUE(ComputeStackStats(store_->main_stack(), &s).ok());
  ASSERT_EQ(s.tables.size(), 2u);
  EXPECT_EQ(s.live_refs, 6u);
  EXPECT_EQ(s.tables[0].refs, 7u);
  EXPECT_EQ(s.tables[0].symrefs, 3u);
  EXPECT_EQ(s.tables[1].ref_tombstones, 1u);
  EXPECT_EQ(s.tables[0].ref.blocks, 1u);
  EXPECT_GT(s.tables[0].ref.bytes_used, 0u);
  EXPECT_LE(s.tables[0].ref.bytes_used, s.tables[0].ref.bytes_capacity);
  EXPECT_EQ(s.tables[0].ref.index_levels, 0);
}

}  // namespace
}  // namespace reftab
