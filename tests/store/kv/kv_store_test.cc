// The key/value store (store/kv/kv_store.h): edge cases of keys and values (empty, binary with
// NULs, values of several MiB), batches, snapshots, iteration bounds, reopening, a seeded
// model test against std::map, and its files read back by `reftab dump` / `reftab verify`.
#include "store/kv/kv_store.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "store/stack.h"
#include "store/table_reader.h"
#include "tests/testutil/process.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::TempDir;

KvOptions TestOptions() {
  KvOptions o;
  o.durability = Durability::kNone;
  return o;
}

std::unique_ptr<KvStore> OpenOrDie(const std::string& dir, const KvOptions& o = TestOptions()) {
  auto kv = KvStore::Open(dir, o);
  EXPECT_TRUE(kv.ok()) << kv.status().ToString();
  return kv.ok() ? std::move(*kv) : nullptr;
}

std::string GetOr(KvStore& kv, std::string_view key, const std::string& missing = "<missing>") {
  std::string v;
  bool found = false;
  Status s = kv.Get(key, &v, &found);
  EXPECT_TRUE(s.ok()) << s.ToString();
  return found ? v : missing;
}

// Every entry of the store, in order.
std::map<std::string, std::string> Contents(KvStore& kv, const KvIteratorOptions& o = {}) {
  std::map<std::string, std::string> out;
  auto it = kv.NewIterator(o);
  EXPECT_TRUE(it.ok());
  EXPECT_TRUE(it->SeekToFirst().ok());
  std::string last;
  for (; it->Valid(); it->Next()) {
    EXPECT_TRUE(out.empty() || std::string(it->key()) > last);
    last = std::string(it->key());
    out.emplace(it->key(), it->value());
  }
  EXPECT_TRUE(it->status().ok()) << it->status().ToString();
  return out;
}

// "k" + the number (built without operator+, which trips g++ 12's -Wrestrict).
std::string Key(uint64_t n) {
  std::string k = std::to_string(n);
  k.insert(k.begin(), 'k');
  return k;
}

std::string Binary(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = char(rng() & 0xff);
  return s;
}

TEST(KvStoreTest, EdgeValuesRoundTripAndSurviveReopenAndCompaction) {
  TempDir dir("kv");
  const std::string big = Binary(3 * 1024 * 1024 + 17, 1);  // 3 MiB: a 4 MiB block
  const std::string mib = Binary(1024 * 1024, 2);
  const std::string nul_key("k\0ey\0", 5), nul_value("\0\0v\0", 4);
  {
    auto kv = OpenOrDie(dir.path());
    ASSERT_TRUE(kv->Put("empty", "").ok());
    ASSERT_TRUE(kv->Put(nul_key, nul_value).ok());
    ASSERT_TRUE(kv->Put("big", big).ok());
    ASSERT_TRUE(kv->Put("mib", mib).ok());
    ASSERT_TRUE(kv->Put(std::string(1, '\xff'), "high byte").ok());
    ASSERT_TRUE(kv->Put(std::string(1, '\x01'), "low byte").ok());
    EXPECT_EQ(GetOr(*kv, "empty"), "");
    EXPECT_EQ(GetOr(*kv, nul_key), nul_value);
    EXPECT_EQ(GetOr(*kv, std::string("k\0ey", 4)), "<missing>");
    EXPECT_EQ(GetOr(*kv, "big"), big);
  }
  for (int round = 0; round < 2; ++round) {
    auto kv = OpenOrDie(dir.path());
    if (round == 1) {
      ASSERT_TRUE(kv->CompactAll().ok());
    }
    EXPECT_EQ(GetOr(*kv, "empty"), "");
    EXPECT_EQ(GetOr(*kv, nul_key), nul_value);
    EXPECT_EQ(GetOr(*kv, "big"), big);
    EXPECT_EQ(GetOr(*kv, "mib"), mib);
    auto all = Contents(*kv);
    ASSERT_EQ(all.size(), 6u);
    EXPECT_EQ(all.begin()->first, std::string(1, '\x01'));  // unsigned byte order
    EXPECT_EQ(all.rbegin()->first, std::string(1, '\xff'));
  }
}

TEST(KvStoreTest, RejectsEmptyKeysAndOversizedEntries) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  EXPECT_EQ(kv->Put("", "x").code(), Code::kInvalidArgument);
  EXPECT_EQ(kv->Put("k", std::string(kMaxEntryBytes, 'x')).code(), Code::kTooLarge);
  KvWriteBatch b;
  b.Put("fine", "1");
  b.Delete("");
  EXPECT_EQ(kv->Write(b).code(), Code::kInvalidArgument);
  EXPECT_EQ(GetOr(*kv, "fine"), "<missing>");  // nothing of a rejected batch
  EXPECT_TRUE(kv->stack()->names().empty());
}

TEST(KvStoreTest, BatchIsOneTableAndLaterOperationsWin) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  ASSERT_TRUE(kv->Put("gone", "x").ok());
  KvWriteBatch b;
  b.Put("a", "1");
  b.Put("b", "2");
  b.Put("a", "3");
  b.Delete("b");
  b.Delete("gone");
  b.Put("c", "4");
  ASSERT_TRUE(kv->Write(b).ok());
  EXPECT_EQ(Contents(*kv), (std::map<std::string, std::string>{{"a", "3"}, {"c", "4"}}));
  auto snap = kv->GetSnapshot();
  ASSERT_TRUE(snap.ok());
  EXPECT_EQ(snap->sequence(), 2u);
  // Deleting what does not exist, and putting what is there, write nothing.
  KvWriteBatch noop;
  noop.Delete("nothing");
  noop.Put("a", "3");
  ASSERT_TRUE(kv->Write(noop).ok());
  EXPECT_EQ(kv->GetSnapshot()->sequence(), 2u);
}

TEST(KvStoreTest, SnapshotsAndIteratorsKeepTheirStateWhileWritersGoOn) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(kv->Put(Key(uint64_t(i)), "old").ok());
  auto snap = kv->GetSnapshot();
  ASSERT_TRUE(snap.ok());
  KvIterator it = snap->NewIterator();
  ASSERT_TRUE(it.SeekToFirst().ok());
  // Another process (here: another store object) rewrites everything and compacts.
  auto other = OpenOrDie(dir.path());
  KvWriteBatch b;
  for (int i = 0; i < 20; ++i) b.Put(Key(uint64_t(i)), "new");
  b.Delete("k3");
  ASSERT_TRUE(other->Write(b).ok());
  ASSERT_TRUE(other->CompactAll().ok());
  ASSERT_TRUE(other->stack()->names().size() == 1);
  int n = 0;
  for (; it.Valid(); it.Next(), ++n) EXPECT_EQ(it.value(), "old");
  EXPECT_EQ(n, 20);
  std::string v;
  bool found = false;
  ASSERT_TRUE(snap->Get("k3", &v, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "old");
  EXPECT_EQ(GetOr(*kv, "k3"), "<missing>");  // the store itself sees the other's write
  EXPECT_EQ(GetOr(*kv, "k4"), "new");
}

TEST(KvStoreTest, WithoutRefreshOnReadOtherWritersShowAfterRefresh) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.refresh_on_read = false;
  auto kv = OpenOrDie(dir.path(), o);
  auto other = OpenOrDie(dir.path());
  ASSERT_TRUE(kv->Put("mine", "1").ok());
  ASSERT_TRUE(other->Put("theirs", "2").ok());
  EXPECT_EQ(GetOr(*kv, "theirs"), "<missing>");
  EXPECT_EQ(GetOr(*kv, "mine"), "1");  // its own writes show at once
  ASSERT_TRUE(kv->Refresh().ok());
  EXPECT_EQ(GetOr(*kv, "theirs"), "2");
}

TEST(KvStoreTest, IteratorBoundsAndPrefix) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  KvWriteBatch b;
  for (const char* k : {"a", "ab", "abc", "abd", "ac", "b", "ba"}) b.Put(k, k);
  ASSERT_TRUE(kv->Write(b).ok());
  ASSERT_TRUE(kv->Delete("abd").ok());
  auto keys = [&](const KvIteratorOptions& o, std::string_view seek) {
    std::string out;
    auto it = kv->NewIterator(o);
    EXPECT_TRUE(it->Seek(seek).ok());
    for (; it->Valid(); it->Next()) out += std::string(it->key()) + ",";
    return out;
  };
  KvIteratorOptions none;
  EXPECT_EQ(keys(none, ""), "a,ab,abc,ac,b,ba,");
  EXPECT_EQ(keys(none, "abb"), "abc,ac,b,ba,");
  KvIteratorOptions prefix;
  prefix.prefix = "ab";
  EXPECT_EQ(keys(prefix, ""), "ab,abc,");
  EXPECT_EQ(keys(prefix, "abc"), "abc,");
  EXPECT_EQ(keys(prefix, "b"), "");
  KvIteratorOptions range;
  range.lower_bound = "ab";
  range.upper_bound = "b";
  EXPECT_EQ(keys(range, ""), "ab,abc,ac,");
  EXPECT_EQ(keys(range, "abz"), "ac,");
  EXPECT_EQ(keys(range, "b"), "");
}

// Random operations, the same on the store and on a std::map; after each step some reads,
// and now and then a full comparison, a snapshot check, a reopen or a full compaction.
void RunModel(uint32_t seed, const KvOptions& options) {
  TempDir dir("kvmodel");
  std::mt19937 rng(seed);
  auto kv = OpenOrDie(dir.path(), options);
  std::map<std::string, std::string> model;
  auto random_key = [&] {
    std::string k = Key(rng() % 300);
    if (rng() % 8 == 0) k.push_back('\0');
    if (rng() % 8 == 0) k.push_back(char(0x80 + rng() % 128));
    return k;
  };
  auto random_value = [&] { return Binary(rng() % 4 == 0 ? 0 : rng() % 200, rng()); };
  for (int step = 0; step < 400; ++step) {
    KvWriteBatch b;
    std::map<std::string, std::string> next = model;
    size_t ops = 1 + rng() % (rng() % 4 == 0 ? 50 : 4);
    for (size_t i = 0; i < ops; ++i) {
      std::string k = random_key();
      if (rng() % 3 == 0) {
        b.Delete(k);
        next.erase(k);
      } else {
        std::string v = random_value();
        b.Put(k, v);
        next[k] = v;
      }
    }
    ASSERT_TRUE(kv->Write(b).ok()) << "step " << step;
    model = std::move(next);
    for (int r = 0; r < 5; ++r) {
      std::string k = random_key();
      auto m = model.find(k);
      ASSERT_EQ(GetOr(*kv, k), m == model.end() ? "<missing>" : m->second) << "step " << step;
    }
    switch (rng() % 20) {
      case 0: ASSERT_EQ(Contents(*kv), model) << "step " << step; break;
      case 1: kv = OpenOrDie(dir.path(), options); break;
      case 2: ASSERT_TRUE(kv->CompactAll().ok()); break;
      case 3: {  // a seek within a prefix, against the model
        KvIteratorOptions o;
        o.prefix = "k1";
        std::map<std::string, std::string> want;
        for (const auto& [k, v] : model) {
          if (k.compare(0, 2, "k1") == 0) want.emplace(k, v);
        }
        ASSERT_EQ(Contents(*kv, o), want) << "step " << step;
        break;
      }
      default: break;
    }
  }
  ASSERT_EQ(Contents(*kv), model);
  EXPECT_TRUE(kv->stack()->last_auto_compaction().ok());
}

TEST(KvStoreModelTest, Seed1) { RunModel(1, TestOptions()); }
TEST(KvStoreModelTest, Seed2NoAutoCompaction) {
  KvOptions o = TestOptions();
  o.auto_compact = false;
  RunModel(2, o);
}
TEST(KvStoreModelTest, Seed3SmallBlocks) {
  KvOptions o = TestOptions();
  o.block_size = 256;  // most values need a bigger block: tables of mixed block sizes
  RunModel(3, o);
}

// The store's files are reftables: reftab's own reader and verifier accept them.
TEST(KvStoreTest, FilesAreReadByReftabDumpAndVerify) {
  const char* cli = std::getenv("REFTAB_CLI");
  if (cli == nullptr) GTEST_SKIP() << "REFTAB_CLI not set";
  TempDir dir("kvcli");
  auto kv = OpenOrDie(dir.path());
  ASSERT_TRUE(kv->Put("refs/kv/small", "value").ok());
  ASSERT_TRUE(kv->Put("refs/kv/big", std::string(2 * 1024 * 1024, 'b')).ok());
  ASSERT_TRUE(kv->Put(std::string("bin\0ary", 7), std::string("\0\x01\x02", 3)).ok());
  ASSERT_TRUE(kv->Delete("refs/kv/small").ok());
  ASSERT_TRUE(kv->Put("refs/kv/after", "x").ok());
  ASSERT_GE(kv->stack()->names().size(), 1u);
  auto verify = testing::RunProcess({cli, "--stack", dir.path(), "verify"});
  EXPECT_EQ(verify.exit_code, 0) << verify.out << verify.err;
  auto dump = testing::RunProcess({cli, "--stack", dir.path(), "dump"});
  EXPECT_EQ(dump.exit_code, 0) << dump.err;
  EXPECT_NE(dump.out.find("refs/kv/after"), std::string::npos) << dump.out;
  EXPECT_NE(dump.out.find("refs/kv/big"), std::string::npos);
  for (const std::string& name : kv->stack()->names()) {
    auto one = testing::RunProcess({cli, "dump", dir.path() + "/" + name});
    EXPECT_EQ(one.exit_code, 0) << name << ": " << one.err;
  }
}

}  // namespace
}  // namespace reftab
