// The exact-lookup filter (store/ref_filter.h) and its use by TableReader::RefMayExist and
// Snapshot::ReadRef, the flattened ref index and ReadRef's hash index (ref_block_index.h,
// ref_hash_index.h). The filter: no false negatives ever (a present name, value or
// tombstone, is always "may exist"), few false positives, and stack lookups that answer
// exactly as a table-by-table search does, before and after the filters are built.
#include "store/ref_filter.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "store/ref_hash_index.h"
#include "store/ref_view.h"
#include "store/section_cursor.h"
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
        Status st = snap.ReadRef(name, &r, &found);
        ASSERT_TRUE(st.ok()) << st.ToString();
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
  // The lookups went through each table's hash index (which replaces the filter) once
  // enough had been made.
  size_t built = 0;
  for (const auto& t : tables) built += t->ref_hash_index_bytes() > 0;
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

// The slots' probe order over entries that share the tag and the home slot, and what an
// entry gives back.
std::vector<RefHashIndex::Location> Candidates(const RefHashIndex& index, uint64_t hash) {
  std::vector<RefHashIndex::Location> out;
  for (size_t slot = index.FirstCandidate(hash); slot != RefHashIndex::kNone;
       slot = index.NextCandidate(hash, slot)) {
    out.push_back(index.At(slot));
  }
  return out;
}

TEST(RefHashIndexTest, ProbesEveryEntryWithTheTagInOrderAndStopsAtAnEmptySlot) {
  // Eight names share the tag bits and the home slot; a ninth shares only the slot.
  std::vector<RefHashIndex::Entry> entries;
  for (uint32_t i = 0; i < 8; ++i) entries.push_back({0x1234, {4096 * i, 28 + i, 50 + i, 100 + i}});
  entries.push_back({0x1256, {4096 * 7, 7, 7, 7}});
  auto index = RefHashIndex::Build(entries, 4096);
  ASSERT_NE(index, nullptr);
  auto seen = Candidates(*index, 0x1234);
  ASSERT_EQ(seen.size(), 8u);
  for (uint32_t i = 0; i < 8; ++i) {
    EXPECT_EQ(seen[i].block_offset, 4096u * i);
    EXPECT_EQ(seen[i].restart, 28 + i);
    EXPECT_EQ(seen[i].checkpoint, 50 + i);
    EXPECT_EQ(seen[i].record, 100 + i);
  }
  auto other = Candidates(*index, 0x1256);
  ASSERT_EQ(other.size(), 1u);
  EXPECT_EQ(other[0].block_offset, 4096u * 7);
  EXPECT_TRUE(Candidates(*index, 0x9999).empty());
  auto empty = RefHashIndex::Build({}, 1);
  ASSERT_NE(empty, nullptr);
  EXPECT_TRUE(Candidates(*empty, 0x1234).empty());
}

TEST(RefHashIndexTest, FieldWidthsFollowTheTableAndLocationsThatDoNotFitGetNoIndex) {
  // 4 KiB blocks of a 64 MiB table: 12 bits for each in-block offset, 9 for checkpoints
  // up to 511 bytes after their restart point, 14 for the block.
  auto aligned = RefHashIndex::Build({{1, {(uint64_t(1) << 26) - 4096, 28, 28 + 511, 4000}}}, 4096);
  ASSERT_NE(aligned, nullptr);
  EXPECT_EQ(aligned->tag_bits(), 64 - 12 - 12 - 9 - 14);
  RefHashIndex::Location l = Candidates(*aligned, 1).at(0);
  EXPECT_EQ(l.block_offset, (uint64_t(1) << 26) - 4096);
  EXPECT_EQ(l.restart, 28u);
  EXPECT_EQ(l.checkpoint, 28u + 511);
  EXPECT_EQ(l.record, 4000u);
  // Blocks of 1 MiB at byte offsets of 14 bits: 2 * 20 + 14 bits leave no room for the
  // checkpoints' 10, which are left out (every walk starts at the restart point).
  auto tight = RefHashIndex::Build({{1, {uint64_t(1) << 13, 28, 1000, (1u << 20) - 1}}}, 1);
  ASSERT_NE(tight, nullptr);
  EXPECT_EQ(tight->tag_bits(), 64 - 40 - 14);
  l = Candidates(*tight, 1).at(0);
  EXPECT_EQ(l.restart, 28u);
  EXPECT_EQ(l.checkpoint, 28u);
  // Byte offsets of a 1 TiB table with 16 MiB blocks need 40 + 2 * 24 bits: too many.
  EXPECT_EQ(RefHashIndex::Build({{1, {uint64_t(1) << 39, 28, 28, (1u << 24) - 1}}}, 1), nullptr);
  // A block offset that the unit does not divide, or offsets out of order.
  EXPECT_EQ(RefHashIndex::Build({{1, {100, 28, 28, 40}}}, 64), nullptr);
  EXPECT_EQ(RefHashIndex::Build({{1, {0, 50, 50, 40}}}, 1), nullptr);
  EXPECT_EQ(RefHashIndex::Build({{1, {0, 28, 30, 29}}}, 1), nullptr);
}

// One table's bytes opened twice: `hashed` builds its lookup aids as lookups go, `plain`
// never does (the reference the tests compare with).
struct TwinTables {
  std::unique_ptr<TableReader> hashed, plain;
};
TwinTables OpenTwins(uint32_t block_size, bool unpadded, uint32_t restart_interval,
                     const std::vector<RefRecord>& refs) {
  WriteOptions o;
  o.block_size = block_size;
  o.unpadded = unpadded;
  o.restart_interval = restart_interval;
  const std::string bytes = testutil::WriteTableToString(o, 1, 3, refs, {});
  auto hashed = TableReader::OpenBytes("hashed", bytes);
  auto plain = TableReader::OpenBytes("plain", bytes);
  TwinTables t;
  if (!hashed.ok() || !plain.ok()) return t;
  t.hashed = std::move(*hashed);
  t.plain = std::move(*plain);
  t.plain->set_lookup_aids(false);
  return t;
}

// Records of every kind in tables of several layouts (small and large blocks, unpadded
// blocks whose offsets the block size does not divide, short restart intervals, names
// longer than the lookup's key buffer); lookups of every present name, of names before the
// first, after the last and between any two (so between blocks too), against the same
// table read with the aids off.
TEST(RefHashIndexTest, LookupsAgreeWithTheOnDiskIndexForPresentAbsentAndDeletedNames) {
  struct Layout {
    uint32_t block_size;
    bool unpadded;
    uint32_t restart_interval;
    bool long_names;
  };
  for (Layout l :
       {Layout{256, false, 16, false}, Layout{4096, false, 16, true}, Layout{4096, true, 16, true},
        Layout{1024, false, 3, true}, Layout{2048, true, 1, false}}) {
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
      if (l.long_names && i % 90 == 10) r.refname.append(1, '/').append(200 + i % 300, 'x');
      refs.push_back(r);
    }
    std::sort(refs.begin(), refs.end(),
              [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
    TwinTables t = OpenTwins(l.block_size, l.unpadded, l.restart_interval, refs);
    ASSERT_TRUE(t.hashed && t.plain);
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
        ASSERT_TRUE(t.hashed->ReadRef(name, &a, &found_a).ok()) << name;
        ASSERT_TRUE(t.plain->ReadRef(name, &b, &found_b).ok()) << name;
        ASSERT_EQ(found_a, found_b) << name << " round " << round;
        if (found_a) {
          EXPECT_EQ(a.refname, name);
          EXPECT_EQ(a.update_index, b.update_index) << name;
          EXPECT_TRUE(testutil::SameRef(a, b, 20)) << name;
        }
      }
    }
    EXPECT_GT(t.hashed->ref_hash_index_bytes(), 0u) << l.block_size;
    EXPECT_EQ(t.plain->ref_hash_index_bytes(), 0u);
  }
}

// Seeks through the hash index (TableReader::FindExactRef, SectionCursor's first try) land
// where the on-disk index lands: for present names (the exact path), absent ones (the probe
// proves them absent, the index descent follows) and, after a run of absent ones, present
// ones again. The values are the key/value store's (type 3, lengths of one and two varint
// bytes) and object ids, read as views (RefView) and as records.
TEST(RefHashIndexTest, SeeksLandWhereTheOnDiskIndexLandsForPresentAndAbsentNames) {
  struct Layout {
    uint32_t block_size;
    bool unpadded;
    uint32_t restart_interval;
  };
  for (Layout l : {Layout{4096, false, 16}, Layout{1024, true, 3}, Layout{2048, false, 1}}) {
    std::vector<RefRecord> refs;
    for (int i = 0; i < 6000; i += 2) {
      RefRecord r = Ref(Name("kv", i), 1 + i % 3, i % 10 == 0);
      if (i % 4 == 2) {
        r.value_type = RefValueType::kSymref;
        r.target = std::string(size_t(i % 300), char('a' + i % 26));
      }
      refs.push_back(r);
    }
    TwinTables t = OpenTwins(l.block_size, l.unpadded, l.restart_interval, refs);
    ASSERT_TRUE(t.hashed && t.plain);
    // Rounds of present names, then of absent ones (just before and after each), then
    // present ones again: the index is built during the first round.
    std::vector<std::vector<std::string>> rounds(4);
    for (const RefRecord& r : refs) {
      rounds[0].push_back(r.refname);
      rounds[1].push_back(r.refname + '\0');
      rounds[2].push_back(r.refname.substr(0, r.refname.size() - 1));
      rounds[3].push_back(r.refname);
    }
    rounds[0].insert(rounds[0].end(), rounds[0].begin(), rounds[0].end());
    TableRefCursor a(t.hashed.get()), b(t.plain.get());
    for (size_t round = 0; round < rounds.size(); ++round) {
      for (const std::string& name : rounds[round]) {
        ASSERT_TRUE(a.Seek(name).ok() && b.Seek(name).ok()) << name;
        for (int step = 0; step < 3; ++step) {
          RefView va, vb;
          RefRecord ra, rb;
          const bool more_a = step % 2 ? a.Next(&ra) : a.NextKey() && a.ReadValue(&va);
          const bool more_b = step % 2 ? b.Next(&rb) : b.NextKey() && b.ReadValue(&vb);
          ASSERT_EQ(more_a, more_b) << name << " round " << round;
          if (!more_a) break;
          if (step % 2) {
            EXPECT_TRUE(testutil::SameRef(ra, rb, 20)) << name;
          } else {
            EXPECT_EQ(va.refname, vb.refname);
            EXPECT_EQ(va.value_type, vb.value_type);
            EXPECT_EQ(va.value, vb.value) << name;
          }
        }
        ASSERT_TRUE(a.status().ok() && b.status().ok()) << a.status().ToString();
      }
    }
    EXPECT_GT(t.hashed->ref_hash_index_bytes(), 0u);
  }
}

// A table whose bytes the test may change after the hash index is built: the index names
// records without rereading the restart table, so damage found on the way must still be
// reported, never read past the block or the mapping.
class MutableFile final : public RandomAccessFile {
 public:
  MutableFile(std::string name, std::string bytes)
      : name_(std::move(name)), bytes_(std::move(bytes)) {}
  const std::string& name() const override { return name_; }
  uint64_t size() const override { return bytes_.size(); }
  const uint8_t* data() const override { return reinterpret_cast<const uint8_t*>(bytes_.data()); }
  char& at(size_t i) { return bytes_[i]; }

 private:
  std::string name_;
  std::string bytes_;
};

struct HashedTable {
  std::shared_ptr<const TableReader> table;
  MutableFile* file = nullptr;
  std::vector<std::string> names;
};

// 3000 refs in 4 KiB blocks, looked up often enough that the hash index is built.
HashedTable BuildHashedTable(const std::string& name, uint64_t ui) {
  HashedTable h;
  std::vector<RefRecord> refs;
  for (int i = 0; i < 3000; ++i) {
    refs.push_back(Ref(Name("heads", i), ui, false));
    h.names.push_back(refs.back().refname);
  }
  WriteOptions o;
  o.block_size = 4096;
  auto file =
      std::make_unique<MutableFile>(name, testutil::WriteTableToString(o, ui, ui, refs, {}));
  h.file = file.get();
  auto t = TableReader::Open(std::move(file));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  h.table = std::shared_ptr<const TableReader>(std::move(*t));
  for (int round = 0; round < 2; ++round) {
    for (const std::string& n : h.names) {
      RefRecord r;
      bool found = false;
      EXPECT_TRUE(h.table->ReadRef(n, &r, &found).ok() && found) << n;
    }
  }
  EXPECT_GT(h.table->ref_hash_index_bytes(), 0u);
  return h;
}

// Looks every name up; returns the messages of the lookups that failed (the others must
// still find their ref).
std::vector<std::string> LookupErrors(
    const std::vector<std::string>& names,
    const std::function<Status(const std::string&, RefRecord*, bool*)>& read) {
  std::vector<std::string> errors;
  for (const std::string& n : names) {
    RefRecord r;
    bool found = false;
    Status s = read(n, &r, &found);
    if (!s.ok()) {
      errors.push_back(s.message());
    } else {
      EXPECT_TRUE(found) << n;
    }
  }
  return errors;
}

TEST(RefHashIndexTest, BlockDamagedAfterTheBuildIsReportedWithFileAndOffset) {
  HashedTable h = BuildHashedTable("damaged.ref", 1);
  auto read = [&](const std::string& n, RefRecord* r, bool* found) {
    return h.table->ReadRef(n, r, found);
  };
  // The second block's type byte: every name in it fails, naming the file and the block.
  h.file->at(4096) = 'x';
  auto errors = LookupErrors(h.names, read);
  ASSERT_FALSE(errors.empty());
  EXPECT_LT(errors.size(), h.names.size());
  for (const std::string& e : errors) {
    EXPECT_EQ(e, "damaged.ref: block at offset 4096: expected a ref block");
  }
  h.file->at(4096) = 'r';
  // The third block's length past the end of the table.
  h.file->at(8193) = char(0xff);
  errors = LookupErrors(h.names, read);
  ASSERT_FALSE(errors.empty());
  for (const std::string& e : errors) {
    EXPECT_NE(e.find("damaged.ref: block at offset 8192: block_len"), std::string::npos) << e;
  }
  h.file->at(8193) = 0;
  EXPECT_TRUE(LookupErrors(h.names, read).empty());
  // A record's prefix length in the fourth block made larger than the key before it: the
  // walk from the restart point no longer leads to the records the index names.
  h.file->at(3 * 4096 + 4 + 60) = char(0x7f);
  std::mt19937_64 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    // Random damage anywhere in the ref blocks: answers or errors, never a crash.
    size_t at = 24 + rng() % (4096 * 6);
    char old = h.file->at(at);
    h.file->at(at) = char(old ^ (1 << (rng() % 8)));
    for (int q = 0; q < 40; ++q) {
      RefRecord r;
      bool found = false;
      (void)h.table->ReadRef(h.names[rng() % h.names.size()], &r, &found);
    }
    h.file->at(at) = old;
  }
}

// A seek to a name whose record the hash index names reports damage there as the lookup
// does: the file and the offsets, never a crash or a wrong landing.
TEST(RefHashIndexTest, SeeksReportDamageWhereTheHashIndexLeads) {
  HashedTable h = BuildHashedTable("seek-damaged.ref", 1);
  // The fourth block's second record (after the 4-byte block header and a first record of
  // 1 + 2 + 23 + 21 bytes) made to share 127 bytes with a key of 23.
  h.file->at(3 * 4096 + 4 + 47) = char(0x7f);
  size_t errors = 0;
  for (const std::string& n : h.names) {
    RefRecord r;
    bool found = false;
    const Status lookup = h.table->ReadRef(n, &r, &found);
    TableRefCursor c(h.table.get());  // a failed cursor stays failed: one per seek
    const Status seek = c.Seek(n);
    if (!lookup.ok()) {
      ++errors;
      EXPECT_EQ(seek.ToString(), lookup.ToString()) << n;
      EXPECT_NE(seek.message().find("seek-damaged.ref: block at offset 12288: "), std::string::npos)
          << seek.message();
    } else {
      ASSERT_TRUE(seek.ok()) << seek.ToString();
      RefRecord got;
      ASSERT_TRUE(c.Next(&got)) << n;
      EXPECT_EQ(got.refname, n);
    }
  }
  EXPECT_GT(errors, 0u);
}

TEST(RefHashIndexTest, StackLookupsReportDamageInAnOlderTableThroughItsHashIndex) {
  HashedTable old_table = BuildHashedTable("old.ref", 1);
  std::vector<RefRecord> newer = {Ref("refs/heads/newer", 2, false)};
  std::vector<std::shared_ptr<const TableReader>> tables = {old_table.table, Table(newer, 2)};
  Snapshot snap(tables, HashId::kSha1);
  auto read = [&](const std::string& n, RefRecord* r, bool* found) {
    return snap.ReadRef(n, r, found);
  };
  EXPECT_TRUE(LookupErrors(old_table.names, read).empty());  // builds the newer one's index
  EXPECT_GT(tables[1]->ref_hash_index_bytes(), 0u);
  // The snapshot's report sums what its tables built.
  const SnapshotMemory built = snap.memory();
  EXPECT_EQ(built.hash_indexes,
            tables[0]->ref_hash_index_bytes() + tables[1]->ref_hash_index_bytes());
  EXPECT_EQ(built.filters, tables[0]->ref_filter_bytes() + tables[1]->ref_filter_bytes());
  EXPECT_EQ(built.block_indexes,
            tables[0]->ref_block_index_bytes() + tables[1]->ref_block_index_bytes());
  EXPECT_EQ(built.merge_order, 0u) << "no whole scan yet";
  EXPECT_EQ(built.total(), built.hash_indexes + built.filters + built.block_indexes);
  old_table.file->at(4096) = 'x';
  auto errors = LookupErrors(old_table.names, read);
  ASSERT_FALSE(errors.empty());
  for (const std::string& e : errors) {
    EXPECT_EQ(e, "old.ref: block at offset 4096: expected a ref block");
  }
  RefRecord r;
  bool found = false;
  ASSERT_TRUE(snap.ReadRef("refs/heads/newer", &r, &found).ok());
  EXPECT_TRUE(found);
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
