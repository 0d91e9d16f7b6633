// store/git_reflog.h and store/git_date.h through the library API over a bare reftable
// directory: reading a reflog newest first without markers and deleted entries, selectors,
// git's delete numbering, expiry written as git's reftable backend writes it (deletion
// records, kept entries again, --rewrite, --updateref, the existence marker when nothing is
// left, dry runs), and the dates reflog commands read. The same behaviour is compared with a
// real git, through the CLI, in tests/cli/git_compare_reflog.sh.
#include "store/git_reflog.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/git_date.h"
#include "store/git_ref_transaction.h"
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

}  // namespace
}  // namespace reftab
