// store/git/refs/reflog.h and store/git/date.h through the library API over a bare reftable
// directory: reading a reflog newest first without markers and deleted entries, selectors,
// git's delete numbering, expiry written as git's reftable backend writes it (deletion
// records, kept entries again, --rewrite, --updateref, the existence marker when nothing is
// left, dry runs), the dates reflog commands read, and over a repository with linked
// worktrees the reflogs `expire --all` / `drop --all` visit, drop and write. The same behaviour is
// compared with a real git, through the CLI, in tests/cli/git_compare_reflog.sh.
#include "store/git/refs/reflog.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store/git/config/config.h"
#include "store/git/date.h"
#include "store/git/refs/object_name.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/reflog_at.h"
#include "store/git/worktrees.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

ObjectId Id(uint64_t n) { return testutil::TestId(n, 20); }

// A bare stack where refs/heads/main moved through ids 1..n, entry i at time 1000 * i.
std::unique_ptr<GitRefStore> StoreWithLog(const TempDir& tmp, int n) {
  StackOptions o;
  o.durability = Durability::kNone;
  auto s = GitRefStore::OpenStack(tmp.Subdir("stack"), o);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  for (int i = 1; i <= n; ++i) {
    Transaction tx = (*s)->main_stack().NewTransaction();
    LogInfo log{"C", "c@x", uint64_t(1000 * i), 100, "step " + std::to_string(i)};
    tx.Update("refs/heads/main", RefValue::Id(Id(uint64_t(i))), std::nullopt, log);
    EXPECT_TRUE(tx.Commit().ok());
  }
  return std::move(*s);
}

std::vector<std::string> Messages(GitRefStore& store, const std::string& ref) {
  std::vector<LogRecord> entries;
  EXPECT_TRUE(ReadReflog(store, ref, &entries).ok());
  std::vector<std::string> out;
  for (const LogRecord& e : entries) out.push_back(e.message);
  return out;
}

// gc.reflogExpire*: the defaults, a pattern giving both times (one it does not set is never),
// the first matching pattern winning, refs/stash never, options over all of it.
TEST(GitReflog, ExpiryConfigAsGitReadsIt) {
  const uint64_t now = 1800000000;
  auto config = GitConfig::ParseText(
      "[gc]\n\treflogExpire = 1700000000\n"
      "[gc \"refs/heads/m*\"]\n\treflogExpireUnreachable = now\n"
      "[gc \"refs/*\"]\n\treflogExpire = 1600000000\n\treflogExpireUnreachable = never\n",
      ".git/config");
  ASSERT_TRUE(config.ok()) << config.status().ToString();
  std::string error;
  auto c = ReflogExpiryConfig::Read(*config, now, &error);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  auto times = [&](std::string_view ref, std::optional<uint64_t> total = {},
                   std::optional<uint64_t> unreach = {}) {
    ReflogExpiryTimes t = c->For(ref, total, unreach);
    return std::make_pair(t.expire_total, t.expire_unreachable);
  };
  EXPECT_EQ(times("HEAD"), std::make_pair(uint64_t{1700000000}, now - 90 * 24 * 3600));
  EXPECT_EQ(times("refs/heads/main"), std::make_pair(uint64_t{0}, UINT64_MAX));
  EXPECT_EQ(times("refs/heads/x/m"), std::make_pair(uint64_t{1600000000}, uint64_t{0}));
  EXPECT_EQ(times("refs/stash"), std::make_pair(uint64_t{1600000000}, uint64_t{0}));
  EXPECT_EQ(times("refs/heads/main", 5, std::nullopt), std::make_pair(uint64_t{5}, UINT64_MAX));

  auto plain = ReflogExpiryConfig::Read(GitConfig(), now, &error);
  ASSERT_TRUE(plain.ok());
  ReflogExpiryTimes stash = plain->For("refs/stash", std::nullopt, std::nullopt);
  EXPECT_EQ(stash.expire_total, 0u);
  EXPECT_EQ(stash.expire_unreachable, 0u);
  EXPECT_EQ(plain->For("refs/heads/x", std::nullopt, std::nullopt).expire_total,
            now - 30 * 24 * 3600);

  auto bad = GitConfig::ParseText("[core]\n\tbare = false\n[gc]\n\treflogExpire = soon-ish\n",
                                  ".git/config");
  ASSERT_TRUE(bad.ok());
  auto r = ReflogExpiryConfig::Read(*bad, now, &error);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "bad config variable 'gc.reflogexpire' in file '.git/config' at line 4");
  EXPECT_EQ(error, "'soon-ish' for 'gc.reflogexpire' is not a valid timestamp");
}

TEST(GitReflog, ReadsNewestFirst) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 3);
  EXPECT_EQ(Messages(*store, "refs/heads/main"),
            (std::vector<std::string>{"step 3\n", "step 2\n", "step 1\n"}));
  std::vector<std::string> names;
  ASSERT_TRUE(ListReflogs(*store, &names).ok());
  EXPECT_EQ(names, std::vector<std::string>{"refs/heads/main"});
  std::string ref;
  ASSERT_TRUE(DwimReflog(*store, "main", &ref).ok());
  EXPECT_EQ(ref, "refs/heads/main");
  ASSERT_TRUE(DwimReflog(*store, "nosuch", &ref).ok());
  EXPECT_EQ(ref, "");
}

// git's read_ref_at: the Nth prior value, the value at a time, and what a miss leaves.
TEST(GitReflog, ValueAtAnEntryOrATime) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 3);
  RefAtResult at;
  for (int n : {0, 1, 2}) {
    ASSERT_TRUE(ReadRefAt(*store, "refs/heads/main", 0, n, Id(3), &at).ok());
    EXPECT_TRUE(at.found) << n;
    EXPECT_EQ(at.id, Id(uint64_t(3 - n))) << n;
    EXPECT_TRUE(at.warnings.empty()) << n;
  }
  // One past the oldest entry: its old value (none here), and how many entries there are.
  ASSERT_TRUE(ReadRefAt(*store, "refs/heads/main", 0, 3, Id(3), &at).ok());
  EXPECT_FALSE(at.found);
  EXPECT_EQ(at.cutoff_count, 3);
  EXPECT_EQ(at.id, ObjectId{});
  ASSERT_TRUE(ReadRefAt(*store, "refs/heads/main", 2500, -1, Id(3), &at).ok());
  EXPECT_TRUE(at.found);
  EXPECT_EQ(at.id, Id(2));
  // Before the log began: the oldest entry's new value, and its time for git's warning.
  ASSERT_TRUE(ReadRefAt(*store, "refs/heads/main", 500, -1, Id(3), &at).ok());
  EXPECT_FALSE(at.found);
  EXPECT_EQ(at.id, Id(1));
  EXPECT_EQ(at.cutoff_time, 1000u);
  // A ref without entries: @{0} is its value now, anything else is git's "is empty".
  ASSERT_TRUE(ReadRefAt(*store, "refs/heads/none", 0, 0, Id(7), &at).ok());
  EXPECT_FALSE(at.empty);
  EXPECT_EQ(at.id, Id(7));
  ASSERT_TRUE(ReadRefAt(*store, "refs/heads/none", 0, 1, Id(7), &at).ok());
  EXPECT_TRUE(at.empty);
}

// The same through the revision syntax, with git's fatal message where the log is too short.
TEST(GitReflog, ReflogSelectorsAsRevisions) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 3);
  ObjectNameResult r;
  ASSERT_TRUE(ResolveRevision(*store, "main@{1}", &r).ok());
  EXPECT_TRUE(r.found);
  EXPECT_EQ(r.id, Id(2));
  ASSERT_TRUE(ResolveRevision(*store, "main@{3}", &r).ok());
  EXPECT_TRUE(r.dies);
  EXPECT_EQ(r.fatal, "log for 'main' only has 3 entries");
  RevisionOptions quiet;
  quiet.quiet = true;
  ASSERT_TRUE(ResolveRevision(*store, "main@{3}", &r, quiet).ok());
  EXPECT_TRUE(r.dies);
  EXPECT_EQ(r.fatal, "");
  ASSERT_TRUE(ResolveRevision(*store, "nosuch@{1}", &r).ok());
  EXPECT_FALSE(r.found);
  EXPECT_FALSE(r.dies);
}

TEST(GitReflog, Selectors) {
  ReflogSelector s = ParseReflogSelector("main@{12}");
  EXPECT_EQ(s.ref, "main");
  EXPECT_EQ(s.kind, ReflogSelector::Kind::kIndex);
  EXPECT_EQ(s.index, 12u);
  s = ParseReflogSelector("@{2.days.ago}");
  EXPECT_EQ(s.ref, "");
  EXPECT_EQ(s.kind, ReflogSelector::Kind::kDate);
  EXPECT_EQ(s.date, "2.days.ago");
  s = ParseReflogSelector("refs/heads/x");
  EXPECT_EQ(s.kind, ReflogSelector::Kind::kNone);
  EXPECT_EQ(s.ref, "refs/heads/x");
  EXPECT_EQ(ParseReflogSelector("a@{1x}").kind, ReflogSelector::Kind::kDate);
}

TEST(GitReflog, DeleteRemovesOneEntryAndRewrites) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 4);
  std::vector<LogRecord> entries;
  ASSERT_TRUE(ReadReflog(*store, "refs/heads/main", &entries).ok());
  int64_t kth = 0;
  ASSERT_TRUE(ReflogDeleteTarget(entries, ParseReflogSelector("main@{1}"), 0, &kth).ok());
  EXPECT_EQ(kth, 3);  // the third oldest of four
  ReflogExpireFlags flags;
  flags.rewrite = true;
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", flags, {}, PruneNthOldest(kth)).ok());
  ASSERT_TRUE(ReadReflog(*store, "refs/heads/main", &entries).ok());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[0].message, "step 4\n");
  EXPECT_EQ(entries[0].old_id, Id(2));  // rewritten: the entry before it is now step 2's
  EXPECT_EQ(entries[1].message, "step 2\n");
}

TEST(GitReflog, DeleteBeyondTheLogPrunesNothing) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 2);
  std::vector<LogRecord> entries;
  ASSERT_TRUE(ReadReflog(*store, "refs/heads/main", &entries).ok());
  int64_t kth = 0;
  ASSERT_TRUE(ReflogDeleteTarget(entries, ParseReflogSelector("main@{5}"), 0, &kth).ok());
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", {}, {}, PruneNthOldest(kth)).ok());
  EXPECT_EQ(Messages(*store, "refs/heads/main").size(), 2u);
}

TEST(GitReflog, UpdateRefMovesToTheNewestKeptEntry) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 3);
  ReflogExpireFlags flags;
  flags.update_ref = true;
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", flags, {}, PruneNthOldest(3)).ok());
  RefRecord r;
  bool found = false;
  ASSERT_TRUE(store->ReadRef("refs/heads/main", &r, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(r.value, Id(2));
}

// Another writer commits while an expiry decides (the policy's callback is the interleaving
// point). The entries are read under the stack's lock, as git reads them, so that writer waits
// its turn; were they read before the lock, its update would land in between and --updateref
// would move the ref back over it, on a decision made without its entry.
TEST(GitReflog, ExpiryDecidesUnderTheLockSoAConcurrentUpdateIsNotLost) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 3);
  StackOptions o;
  o.durability = Durability::kNone;
  o.lock_timeout_ms = 0;  // try once: a held lock answers at once
  auto other = GitRefStore::OpenStack(tmp.path() + "/stack", o);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  auto concurrent_update = [&] {
    Transaction tx = (*other)->main_stack().NewTransaction();
    LogInfo log{"C", "c@x", 9000, 100, "concurrent"};
    tx.Update("refs/heads/main", RefValue::Id(Id(9)), std::nullopt, log);
    return tx.Commit();
  };
  ReflogExpireFlags flags;
  flags.update_ref = true;
  int calls = 0;
  Status during;
  auto prune = [&](const LogRecord& e) -> Result<bool> {
    if (calls++ == 0) during = concurrent_update();
    return e.message == "step 1\n";
  };
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", flags, {}, prune).ok());
  EXPECT_EQ(during.code(), Code::kLockHeld) << "the other writer got in: " << during.ToString();
  if (!during.ok()) {
    ASSERT_TRUE(concurrent_update().ok());  // its turn, after the expiry
  }
  RefRecord r;
  bool found = false;
  ASSERT_TRUE(store->main_stack().Reload().ok());
  ASSERT_TRUE(store->ReadRef("refs/heads/main", &r, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(r.value, Id(9)) << "the concurrent update was overwritten";
  EXPECT_EQ(Messages(*store, "refs/heads/main"),
            (std::vector<std::string>{"concurrent\n", "step 3\n", "step 2\n"}));
}

TEST(GitReflog, ExpiringEverythingLeavesAnExistenceMarker) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 3);
  ReflogExpiryPolicy policy(store.get(), "refs/heads/main", {UINT64_MAX, 0});
  auto prune = [&](const LogRecord& e) { return policy.ShouldPrune(e); };
  auto prepare = [&](const ObjectId& tip) { return policy.Prepare(tip); };
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", {}, prepare, prune).ok());
  EXPECT_TRUE(Messages(*store, "refs/heads/main").empty());
  bool exists = false;
  ASSERT_TRUE(store->ReflogExists("refs/heads/main", &exists).ok());
  EXPECT_TRUE(exists);
}

TEST(GitReflog, ExpiresByTimeAndDryRunWritesNothing) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 4);
  const size_t tables = store->main_stack().names().size();
  ReflogExpiryPolicy policy(store.get(), "refs/heads/main", {2500, 0});
  auto prune = [&](const LogRecord& e) { return policy.ShouldPrune(e); };
  ReflogExpireFlags dry;
  dry.dry_run = true;
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", dry, {}, prune).ok());
  EXPECT_EQ(store->main_stack().names().size(), tables);
  ASSERT_TRUE(ExpireReflog(*store, "refs/heads/main", {}, {}, prune).ok());
  EXPECT_EQ(Messages(*store, "refs/heads/main"),
            (std::vector<std::string>{"step 4\n", "step 3\n"}));
}

// --all's reflogs: refs/ in name order (one without a reflog left out), then HEAD, which
// shows its target's entries under its own name when it has none of its own (git's fallback).
TEST(GitReflog, AllReflogsForWalkInGitsOrder) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 2);
  Transaction tx = store->main_stack().NewTransaction();
  LogInfo log{"C", "c@x", 5000, 100, "made"};
  tx.Update("refs/heads/a", RefValue::Id(Id(7)), std::nullopt, log);
  tx.Update("refs/tags/t", RefValue::Id(Id(8)));
  tx.Update("HEAD", RefValue::Symref("refs/heads/main"));
  ASSERT_TRUE(tx.Commit().ok());
  std::vector<ReflogForWalk> all;
  ASSERT_TRUE(ReadAllReflogsForWalk(*store, true, {}, &all).ok());
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].shown, "refs/heads/a");
  EXPECT_EQ(all[0].entries.size(), 1u);
  EXPECT_EQ(all[1].shown, "refs/heads/main");
  EXPECT_EQ(all[2].shown, "HEAD");
  ASSERT_EQ(all[2].entries.size(), 2u);
  EXPECT_EQ(all[2].entries[0].message, "step 2\n");
}

TEST(GitReflog, UnreachableExpiryWithoutObjectsSaysSo) {
  TempDir tmp;
  auto store = StoreWithLog(tmp, 2);
  ReflogExpiryPolicy policy(store.get(), "refs/heads/main", {0, UINT64_MAX});
  Status s = policy.Prepare(Id(2));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("object database"), std::string::npos) << s.message();
}

TEST(GitDate, ExpiryDates) {
  uint64_t t = 1;
  ASSERT_TRUE(ParseExpiryDate("never", 5000, &t).ok());
  EXPECT_EQ(t, 0u);
  ASSERT_TRUE(ParseExpiryDate("all", 5000, &t).ok());
  EXPECT_EQ(t, UINT64_MAX);
  ASSERT_TRUE(ParseExpiryDate("now", 5000, &t).ok());
  EXPECT_EQ(t, UINT64_MAX);
  ASSERT_TRUE(ParseApproxDate("@1234", 5000, &t).ok());
  EXPECT_EQ(t, 1234u);
  ASSERT_TRUE(ParseApproxDate("1700000000", 5000, &t).ok());
  EXPECT_EQ(t, 1700000000u);
  ASSERT_TRUE(ParseApproxDate("2.days.ago", 1000000, &t).ok());
  EXPECT_EQ(t, 1000000u - 2 * 86400);
  ASSERT_TRUE(ParseApproxDate("3 hours ago", 1000000, &t).ok());
  EXPECT_EQ(t, 1000000u - 3 * 3600);
  ASSERT_TRUE(ParseApproxDate("2023-11-14 22:13:20 +0000", 0, &t).ok());
  EXPECT_EQ(t, 1700000000u);
  ASSERT_TRUE(ParseApproxDate("2023-11-14T23:13:20+0100", 0, &t).ok());
  EXPECT_EQ(t, 1700000000u);
  EXPECT_FALSE(ParseApproxDate("last tuesday", 0, &t).ok());
  EXPECT_FALSE(ParseApproxDate("2023-11-14 25", 0, &t).ok());
  EXPECT_FALSE(ParseApproxDate("", 0, &t).ok());
}

// A repository with a main worktree and two linked ones (wt1, wt2), each stack holding
// reflogs: shared ones in the main stack, per-worktree ones in each worktree's own; wt1's
// stack also holds a stray shared name, which git shows only from wt1 itself.
class WorktreeReflogs : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string stubs = testutil::FixturesDir() + "/git/worktree";
    main_ = tmp_.Subdir("repo/.git");
    testutil::CopyDirContents(stubs + "/main/gitdir-stubs", main_);
    tmp_.Subdir("repo/.git/reftable");
    for (const char* id : {"wt1", "wt2"}) {
      const std::string wt = tmp_.Subdir(std::string("repo/.git/worktrees/") + id);
      testutil::CopyDirContents(stubs + "/wt/gitdir-stubs", wt);
      tmp_.Subdir(std::string("repo/.git/worktrees/") + id + "/reftable");
      testutil::WriteFileOrDie(wt + "/commondir", "../..\n");
      testutil::WriteFileOrDie(wt + "/gitdir", tmp_.path() + "/" + id + "/.git\n");
    }
    auto store = Open(main_);
    Log(*store, "HEAD");
    Log(*store, "refs/bisect/m");
    Log(*store, "refs/heads/main");
    Log(*store, "worktrees/wt1/HEAD");
    Log(*store, "worktrees/wt1/refs/worktree/x");
    Log(*store, "worktrees/wt2/HEAD");
    // A shared name in wt1's own stack, as no git writes it.
    auto at = store->Locate("worktrees/wt1/HEAD");
    ASSERT_TRUE(at.ok());
    Transaction tx = at->stack->NewTransaction();
    tx.AddLogRecord(Entry("refs/heads/stray"));
    ASSERT_TRUE(tx.Commit().ok());
    // A name stored with its prefix in the main stack, as git's `reflog write
    // main-worktree/HEAD` stores it.
    Transaction literal = store->main_stack().NewTransaction();
    literal.AddLogRecord(Entry("main-worktree/HEAD"));
    ASSERT_TRUE(literal.Commit().ok());
  }

  static std::unique_ptr<GitRefStore> Open(const std::string& git_dir) {
    StackOptions o;
    o.durability = Durability::kNone;
    auto s = GitRefStore::OpenRepo(git_dir, o);
    EXPECT_TRUE(s.ok()) << s.status().ToString();
    return s.ok() ? std::move(*s) : nullptr;
  }
  static LogRecord Entry(const std::string& key) {
    LogRecord l;
    l.refname = key;
    l.value_type = LogValueType::kUpdate;
    l.new_id = Id(7);
    l.message = "m\n";
    return l;
  }
  // One entry in `name`'s reflog, where Locate puts it, stored under the routed key.
  static void Log(GitRefStore& store, const std::string& name) {
    auto at = store.Locate(name);
    ASSERT_TRUE(at.ok());
    Transaction tx = at->stack->NewTransaction();
    tx.AddLogRecord(Entry(std::string(at->key)));
    ASSERT_TRUE(tx.Commit().ok());
  }
  // What `--all` should visit from `current`, worktree by worktree in git's order.
  std::vector<std::string> Expected(const std::string& current) {
    std::vector<GitWorktree> wts;
    EXPECT_TRUE(ListGitWorktrees(main_, current, &wts).ok());
    std::vector<std::string> out;
    for (const GitWorktree& wt : wts) {
      std::vector<std::string> names;
      if (wt.id.empty()) {
        names = wt.current ? std::vector<std::string>{"HEAD", "main-worktree/HEAD", "refs/bisect/m",
                                                      "refs/heads/main"}
                           : std::vector<std::string>{"main-worktree/HEAD", "main-worktree/HEAD",
                                                      "main-worktree/refs/bisect/m"};
      } else if (wt.id == "wt1") {
        names = wt.current ? std::vector<std::string>{"HEAD", "refs/heads/main", "refs/heads/stray",
                                                      "refs/worktree/x"}
                           : std::vector<std::string>{"worktrees/wt1/HEAD",
                                                      "worktrees/wt1/refs/worktree/x"};
      } else {
        names = wt.current ? std::vector<std::string>{"HEAD", "refs/heads/main"}
                           : std::vector<std::string>{"worktrees/wt2/HEAD"};
      }
      out.insert(out.end(), names.begin(), names.end());
    }
    return out;
  }

  TempDir tmp_{"wt-reflogs"};
  std::string main_;
};

TEST_F(WorktreeReflogs, AllVisitsEveryWorktreeInGitsOrder) {
  for (const std::string& from : {main_, main_ + "/worktrees/wt1", main_ + "/worktrees/wt2"}) {
    auto store = Open(from);
    ASSERT_TRUE(store);
    std::vector<std::string> names;
    ASSERT_TRUE(ListReflogsOfWorktrees(*store, ReflogWorktrees::kAll, &names).ok());
    EXPECT_EQ(names, Expected(from)) << from;
    std::vector<std::string> own, single;
    ASSERT_TRUE(ListReflogs(*store, &own).ok());
    ASSERT_TRUE(ListReflogsOfWorktrees(*store, ReflogWorktrees::kCurrent, &single).ok());
    EXPECT_EQ(single, own) << from;
  }
}

TEST_F(WorktreeReflogs, ListsWorktreesAsGitDoes) {
  std::vector<GitWorktree> wts;
  ASSERT_TRUE(ListGitWorktrees(main_, main_ + "/worktrees/wt2", &wts).ok());
  ASSERT_EQ(wts.size(), 3u);
  EXPECT_EQ(wts[0].id, "");
  EXPECT_FALSE(wts[0].current);
  for (const GitWorktree& wt : wts) EXPECT_EQ(wt.current, wt.id == "wt2") << wt.id;
  // An empty gitdir file leaves a worktree out.
  testutil::WriteFileOrDie(main_ + "/worktrees/wt1/gitdir", "");
  ASSERT_TRUE(ListGitWorktrees(main_, main_, &wts).ok());
  ASSERT_EQ(wts.size(), 2u);
  EXPECT_TRUE(wts[0].current);
  EXPECT_EQ(wts[1].id, "wt2");
}

TEST_F(WorktreeReflogs, DropRemovesEveryRecordOfOneReflog) {
  auto store = Open(main_ + "/worktrees/wt2");
  ASSERT_TRUE(store);
  Log(*store, "HEAD");
  ASSERT_TRUE(DropReflog(*store, "HEAD").ok());
  bool exists = true;
  ASSERT_TRUE(store->ReflogExists("HEAD", &exists).ok());
  EXPECT_FALSE(exists);
  std::vector<std::string> names;
  ASSERT_TRUE(ListReflogsOfWorktrees(*store, ReflogWorktrees::kAll, &names).ok());
  EXPECT_EQ(std::count(names.begin(), names.end(), "HEAD"), 0);
  EXPECT_EQ(std::count(names.begin(), names.end(), "refs/heads/main"), 1) << "others stay";
  // Nothing to drop writes no table.
  auto before = store->main_stack().names();
  ASSERT_TRUE(DropReflog(*store, "refs/heads/none").ok());
  EXPECT_EQ(store->main_stack().names(), before);
}

// git 2.55 looks another worktree's reflog up under the prefixed name, where it is not
// stored: the drop finds nothing and writes nothing.
TEST_F(WorktreeReflogs, DropThroughAWorktreePrefixLeavesTheReflogAsGitDoes) {
  auto store = Open(main_);
  ASSERT_TRUE(store);
  ASSERT_TRUE(DropReflog(*store, "worktrees/wt1/HEAD").ok());
  bool exists = false;
  ASSERT_TRUE(store->ReflogExists("worktrees/wt1/HEAD", &exists).ok());
  EXPECT_TRUE(exists);
}

TEST_F(WorktreeReflogs, WriteCreatesAReflogUnderTheNameGiven) {
  auto store = Open(main_ + "/worktrees/wt1");
  ASSERT_TRUE(store);
  ASSERT_TRUE(WriteReflogEntry(*store, "refs/worktree/new", Id(1), Id(2), "  two\n words ").ok());
  std::vector<LogRecord> entries;
  ASSERT_TRUE(ReadReflog(*store, "refs/worktree/new", &entries).ok());
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].old_id, Id(1));
  EXPECT_EQ(entries[0].new_id, Id(2));
  EXPECT_EQ(entries[0].message, "two words\n");
  EXPECT_EQ(entries[0].name, store->committer().name);
  auto main_store = Open(main_);
  ASSERT_TRUE(ReadReflog(*main_store, "worktrees/wt1/refs/worktree/new", &entries).ok());
  EXPECT_EQ(entries.size(), 1u) << "written to wt1's own stack";
  EXPECT_FALSE(WriteReflogEntry(*main_store, "worktrees/none/HEAD", Id(1), Id(2), "m").ok());
}

}  // namespace
}  // namespace reftab
