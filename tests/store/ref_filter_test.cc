// The exact-lookup filter (store/ref_filter.h) and its use by TableReader::RefMayExist and
// Snapshot::ReadRef, the flattened ref index and ReadRef's hash index (ref_block_index.h,
// ref_hash_index.h). The filter: no false negatives ever (a present name, value or
// tombstone, is always "may exist"), few false positives, and stack lookups that answer
// exactly as a table-by-table search does, before and after the filters are built.
#include "store/ref_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "store/ref_hash_index.h"
#include "store/stack.h"
#include "store/table_reader.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

std::string Name(const char* kind, int i) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "refs/%s/topic-%06d", kind, i);
  return buf;
}

TEST(RefFilterTest, NoFalseNegativesAndFewFalsePositives) {
  RefFilter f(100000);
  for (int i = 0; i < 100000; ++i) f.Add(Name("heads", i));
  for (int i = 0; i < 100000; ++i) ASSERT_TRUE(f.MayContain(Name("heads", i))) << i;
  int false_positives = 0;
  for (int i = 0; i < 100000; ++i) false_positives += f.MayContain(Name("tags", i));
  // 10 bits per name in 256-bit blocks with 8 probes: about 1%.
  EXPECT_LT(false_positives, 2500);
  EXPECT_GT(f.memory_bytes(), 100000u * 10 / 8 - 64);
}

TEST(RefFilterTest, EmptyFilterRejectsEverythingAndTinyFilterStillWorks) {
  RefFilter empty(0);
  EXPECT_FALSE(empty.MayContain("refs/heads/main"));
  RefFilter tiny(1);
  tiny.Add("refs/heads/main");
  tiny.Add("");
  EXPECT_TRUE(tiny.MayContain("refs/heads/main"));
  EXPECT_TRUE(tiny.MayContain(""));
}

RefRecord Ref(const std::string& name, uint64_t ui, bool tombstone) {
  RefRecord r;
  r.refname = name;
  r.update_index = ui;
  r.value_type = tombstone ? RefValueType::kDeletion : RefValueType::kVal1;
  if (!tombstone) r.value = testutil::TestId(ui * 1000003 + name.size(), 20);
  return r;
}

std::shared_ptr<const TableReader> Table(const std::vector<RefRecord>& refs, uint64_t ui) {
  WriteOptions o;
  std::string name = "table";
  name += std::to_string(ui);
  auto t = TableReader::OpenBytes(name, testutil::WriteTableToString(o, ui, ui, refs, {}));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return std::shared_ptr<const TableReader>(std::move(*t));
}

TEST(RefMayExistTest, TableBuildsItsFilterAfterEnoughQueriesAndNeverMissesANameItHolds) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 5000; i += 2) refs.push_back(Ref(Name("heads", i), 1, i % 10 == 0));
  auto t = Table(refs, 1);
  EXPECT_EQ(t->ref_filter_bytes(), 0u);
  // Before the build every answer is "may exist"; afterwards absent names are mostly "no".
  size_t rejected = 0;
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < 5000; ++i) {
      std::string name = Name("heads", i);
      bool may = t->RefMayExist(RefFilter::Hash(name));
      if (i % 2 == 0) {
        ASSERT_TRUE(may) << "present name rejected: " << Name("heads", i);
      }
      if (!may) ++rejected;
    }
  }
  EXPECT_GT(t->ref_filter_bytes(), 0u);
  EXPECT_GT(rejected, 2u * 2500u * 9 / 10);  // the last two rounds, at least 90% of absent names
}

TEST(RefMayExistTest, StackLookupsAgreeWithATableByTableSearch) {
  std::mt19937_64 rng(7);
  // Six overlapping tables, newer ones overriding and deleting older names.
  std::vector<std::shared_ptr<const TableReader>> tables;
  std::map<std::string, RefRecord> model;  // newest record per name
  for (uint64_t ui = 1; ui <= 6; ++ui) {
    std::map<std::string, RefRecord> t;
    for (int k = 0; k < 800; ++k) {
      int i = int(rng() % 3000);
      const char* kind = rng() % 4 ? "heads" : "tags";
      std::string name = Name(kind, i);
      t[name] = Ref(name, ui, rng() % 7 == 0);
    }
    std::vector<RefRecord> refs;
    for (const auto& [name, r] : t) {
      refs.push_back(r);
      model[name] = r;
    }
    tables.push_back(Table(refs, ui));
  }
  Snapshot snap(tables, HashId::kSha1);
  for (int round = 0; round < 4; ++round) {  // filters get built during the first rounds
    for (int i = 0; i < 3000; ++i) {
      for (const char* kind : {"heads", "tags"}) {
        std::string name = Name(kind, i);
        RefRecord r;
        bool found = false;
        ASSERT_TRUE(snap.ReadRef(name, &r, &found).ok());
        auto it = model.find(name);
        bool want = it != model.end() && !it->second.is_deletion();
        ASSERT_EQ(found, want) << name << " round " << round;
        if (want) {
          EXPECT_EQ(r.update_index, it->second.update_index) << name;
          EXPECT_TRUE(testutil::SameRef(r, it->second, 20)) << name;
        }
      }
    }
  }
  size_t built = 0;
  for (const auto& t : tables) built += t->ref_filter_bytes() > 0;
  EXPECT_EQ(built, tables.size());
}

}  // namespace
}  // namespace reftab

namespace reftab {
namespace {

// Small blocks give a multi-level ref index, so the flattened index (RefBlockIndex) has
// several levels to walk.
std::string MultiLevelTable(int n, std::vector<std::string>* names) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < n; i += 3) {
    refs.push_back(Ref(Name("heads", i), 1, i % 9 == 0));
    names->push_back(refs.back().refname);
  }
  WriteOptions o;
  o.block_size = 256;
  return testutil::WriteTableToString(o, 1, 1, refs, {});
}

TEST(RefBlockIndexTest, LookupsAnswerTheSameBeforeAndAfterTheIndexIsFlattened) {
  std::vector<std::string> present;
  std::string bytes = MultiLevelTable(20000, &present);
  auto t = TableReader::OpenBytes("multilevel", bytes);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  ASSERT_NE((*t)->footer().ref_index_position, 0u);
  std::vector<std::pair<bool, uint64_t>> first;
  for (int round = 0; round < 3; ++round) {
    size_t k = 0;
    for (int i = -1; i < 20001; ++i) {
      std::string name = i < 0 ? "refs/a" : i == 20000 ? "refs/z" : Name("heads", i);
      RefRecord r;
      bool found = false;
      ASSERT_TRUE((*t)->ReadRef(name, &r, &found).ok()) << name;
      EXPECT_EQ(found, i >= 0 && i < 20000 && i % 3 == 0) << name << " round " << round;
      if (found) {
        EXPECT_EQ(r.is_deletion(), i % 9 == 0) << name;
      }
      if (round == 0) {
        first.emplace_back(found, found ? r.update_index : 0);
      } else {
        EXPECT_EQ(first[k], std::make_pair(found, found ? r.update_index : uint64_t(0))) << name;
      }
      ++k;
    }
  }
  EXPECT_GT((*t)->ref_block_index_bytes(), 0u);
}

// Damaged index blocks: lookups (enough to trigger flattening) report errors or answer,
// never crash or loop; the table stays usable through the on-disk index.
TEST(RefBlockIndexTest, DamagedIndexNeverCrashes) {
  std::vector<std::string> present;
  std::string good = MultiLevelTable(3000, &present);
  auto t0 = TableReader::OpenBytes("good", good);
  ASSERT_TRUE(t0.ok());
  uint64_t index_start = (*t0)->footer().ref_index_position;
  size_t footer = good.size() - 68;
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    std::string bad = good;
    size_t at = index_start + rng() % (footer - index_start);
    bad[at] = char(bad[at] ^ (1 << (rng() % 8)));
    auto t = TableReader::OpenBytes("bad", bad);
    if (!t.ok()) continue;  // the footer CRC does not cover the index: most opens succeed
    for (int q = 0; q < 64; ++q) {
      RefRecord r;
      bool found = false;
      (void)(*t)->ReadRef(present[rng() % present.size()], &r, &found);
    }
  }
}

}  // namespace
}  // namespace reftab

// ReadRef's hash index (store/ref_hash_index.h): built after about one lookup per KiB of
// table, it must answer every lookup as the search through the on-disk index does.

namespace reftab {
namespace {

TEST(RefHashIndexTest, VisitsEveryEntryWithTheTagInProbeOrderAndStopsAtAnEmptySlot) {
  // Eight names share the tag bits and the home slot; a ninth shares only the slot.
  std::vector<RefHashIndex::Entry> entries;
  for (uint32_t i = 0; i < 8; ++i) entries.push_back({0x1234, RefHashIndex::Location(100 * i, i)});
  entries.push_back({0x1256, RefHashIndex::Location(7, 7)});
  RefHashIndex index(entries);
  std::vector<std::pair<uint64_t, uint32_t>> seen;
  EXPECT_FALSE(index.ForEachCandidate(0x1234, [&](uint64_t pos, uint32_t restart) {
    seen.emplace_back(pos, restart);
    return false;
  }));
  ASSERT_EQ(seen.size(), 8u);
  for (uint32_t i = 0; i < 8; ++i) EXPECT_EQ(seen[i], std::make_pair(uint64_t(100 * i), i));
  int visits = 0;
  EXPECT_TRUE(index.ForEachCandidate(0x1234, [&](uint64_t pos, uint32_t) {
    ++visits;
    return pos == 300;
  }));
  EXPECT_EQ(visits, 4);
  EXPECT_FALSE(index.ForEachCandidate(0x9999, [](uint64_t, uint32_t) { return true; }));
  RefHashIndex empty({});
  EXPECT_FALSE(empty.ForEachCandidate(0x1234, [](uint64_t, uint32_t) { return true; }));
}

// Records of every kind in blocks of two sizes; lookups of every present name, of names
// before the first, after the last and between any two (so between blocks too), against
// the same table read with the aids off.
TEST(RefHashIndexTest, LookupsAgreeWithTheOnDiskIndexForPresentAbsentAndDeletedNames) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 12000; i += 2) {
    RefRecord r = Ref(Name(i % 6 ? "heads" : "tags", i), 1 + i % 3, i % 10 == 0);
    if (i % 14 == 4) {
      r.value_type = RefValueType::kSymref;
      r.target = "refs/heads/target-" + std::to_string(i);
    } else if (i % 14 == 6) {
      r.value_type = RefValueType::kVal2;
      r.peeled = testutil::TestId(uint64_t(i), 20);
    }
    if (i % 50 == 8) r.refname += "/with-a-longer-tail-than-sixteen-bytes";
    refs.push_back(r);
  }
  std::sort(refs.begin(), refs.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  for (uint32_t block_size : {256u, 4096u}) {
    WriteOptions o;
    o.block_size = block_size;
    std::string bytes = testutil::WriteTableToString(o, 1, 3, refs, {});
    auto hashed = TableReader::OpenBytes("hashed", bytes);
    auto plain = TableReader::OpenBytes("plain", bytes);
    ASSERT_TRUE(hashed.ok() && plain.ok());
    (*plain)->set_lookup_aids(false);
    std::vector<std::string> names = {"", "A", "refs/", "refs/zzz", "\xff"};
    for (const RefRecord& r : refs) {
      names.push_back(r.refname);
      names.push_back(r.refname + '\0');                           // just after it
      names.push_back(r.refname.substr(0, r.refname.size() - 1));  // just before it
    }
    for (int round = 0; round < 3; ++round) {  // the index is built during the first round
      for (const std::string& name : names) {
        RefRecord a, b;
        bool found_a = false, found_b = false;
        ASSERT_TRUE((*hashed)->ReadRef(name, &a, &found_a).ok()) << name;
        ASSERT_TRUE((*plain)->ReadRef(name, &b, &found_b).ok()) << name;
        ASSERT_EQ(found_a, found_b) << name << " round " << round;
        if (found_a) {
          EXPECT_EQ(a.refname, name);
          EXPECT_EQ(a.update_index, b.update_index) << name;
          EXPECT_TRUE(testutil::SameRef(a, b, 20)) << name;
        }
      }
    }
  }
}

// Damaged ref blocks: enough lookups to build the index (or to find that it cannot be
// built); every lookup answers or reports an error, never crashes or loops.
TEST(RefHashIndexTest, DamagedRefBlocksNeverCrash) {
  std::vector<std::string> present;
  std::string good = MultiLevelTable(3000, &present);
  auto t0 = TableReader::OpenBytes("good", good);
  ASSERT_TRUE(t0.ok());
  uint64_t refs_end = (*t0)->footer().ref_index_position;
  std::mt19937_64 rng(13);
  for (int trial = 0; trial < 200; ++trial) {
    std::string bad = good;
    size_t at = 24 + rng() % (refs_end - 24);
    bad[at] = char(bad[at] ^ (1 << (rng() % 8)));
    auto t = TableReader::OpenBytes("bad", bad);
    if (!t.ok()) continue;
    for (int q = 0; q < 400; ++q) {
      RefRecord r;
      bool found = false;
      (void)(*t)->ReadRef(present[rng() % present.size()], &r, &found);
    }
  }
}

}  // namespace
}  // namespace reftab
