// Merged iteration over several in-memory tables (FORMAT.md §14): newest wins for equal keys,
// tombstones returned or suppressed, Seek and re-Seek, logs newest first, the single-child
// bypass, many tombstones below the caller's range, and Snapshot::ReadRef. Random stacks are
// compared with a reference merge (std::map folded oldest to newest), through the public
// iterator and through the internal cursor's NextView.
#include "store/merged_iterator.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "store/merge_cursor.h"
#include "store/merge_order.h"
#include "store/snapshot_access.h"
#include "store/stack.h"
#include "store/table_reader.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FormatLog;
using testutil::FormatRef;
using testutil::TestId;

RefRecord Val(const std::string& name, uint64_t ui, uint64_t id, size_t hs = 20) {
  RefRecord r;
  r.refname = name;
  r.update_index = ui;
  r.value_type = RefValueType::kVal1;
  r.value = TestId(id, hs);
  return r;
}

RefRecord Tomb(const std::string& name, uint64_t ui) {
  RefRecord r;
  r.refname = name;
  r.update_index = ui;
  return r;
}

LogRecord Log(const std::string& name, uint64_t ui, uint64_t id, size_t hs = 20) {
  LogRecord l;
  l.refname = name;
  l.update_index = ui;
  l.value_type = LogValueType::kUpdate;
  l.old_id = TestId(id + 1000, hs);
  l.new_id = TestId(id, hs);
  l.name = "C O Mitter";
  l.email = "c@example.com";
  l.time = 1700000000 + ui;
  l.tz_offset = 100;
  l.message = "m" + std::to_string(id) + "\n";
  return l;
}

LogRecord LogTomb(const std::string& name, uint64_t ui) {
  LogRecord l;
  l.refname = name;
  l.update_index = ui;
  return l;
}

// A set of in-memory tables, oldest first.
class Tables {
 public:
  explicit Tables(HashId hash = HashId::kSha1, uint32_t block_size = 4096)
      : hash_(hash), block_size_(block_size) {}

  void Add(uint64_t min, uint64_t max, std::vector<RefRecord> refs,
           std::vector<LogRecord> logs = {}) {
    std::sort(refs.begin(), refs.end(),
              [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
    std::sort(logs.begin(), logs.end(), [](const LogRecord& a, const LogRecord& b) {
      return a.refname != b.refname ? a.refname < b.refname : a.update_index > b.update_index;
    });
    WriteOptions o;
    o.hash_id = hash_;
    o.block_size = block_size_;
    std::string bytes = testutil::WriteTableToString(o, min, max, refs, logs);
    auto t = TableReader::OpenBytes("t" + std::to_string(owned_.size()), bytes);
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    owned_.push_back(std::shared_ptr<const TableReader>(std::move(*t)));
    raw_.push_back(owned_.back().get());
  }
  const std::vector<const TableReader*>& raw() const { return raw_; }
  Snapshot snapshot() const { return Snapshot(owned_, hash_); }
  size_t hs() const { return HashSize(hash_); }

 private:
  HashId hash_;
  uint32_t block_size_;
  std::vector<std::shared_ptr<const TableReader>> owned_;
  std::vector<const TableReader*> raw_;
};

std::vector<std::string> Drain(MergedRefIterator& it, size_t hs, size_t limit = SIZE_MAX) {
  std::vector<std::string> out;
  RefRecord r;
  while (out.size() < limit && it.Next(&r)) out.push_back(FormatRef(r, hs));
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return out;
}

std::vector<std::string> DrainLogs(MergedLogIterator& it, size_t hs) {
  std::vector<std::string> out;
  LogRecord l;
  while (it.Next(&l)) out.push_back(FormatLog(l, hs));
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return out;
}

std::vector<std::string> Lines(const std::vector<RefRecord>& refs, size_t hs = 20) {
  std::vector<std::string> out;
  for (const auto& r : refs) out.push_back(FormatRef(r, hs));
  return out;
}

TEST(MergedIteratorTest, NewestTableWinsForEqualKeys) {
  Tables t;
  t.Add(1, 1, {Val("refs/heads/a", 1, 1), Val("refs/heads/b", 1, 2), Val("refs/heads/c", 1, 3)});
  t.Add(2, 2, {Val("refs/heads/a", 2, 4), Val("refs/heads/d", 2, 5)});
  t.Add(3, 3, {Val("refs/heads/a", 3, 6), Val("refs/heads/c", 3, 7)});
  MergedRefIterator it(t.raw());
  ASSERT_TRUE(it.SeekToFirst().ok());
  EXPECT_EQ(Drain(it, 20), Lines({Val("refs/heads/a", 3, 6), Val("refs/heads/b", 1, 2),
                                  Val("refs/heads/c", 3, 7), Val("refs/heads/d", 2, 5)}));
}

TEST(MergedIteratorTest, TombstonesAreReturnedUnlessSuppressed) {
  Tables t;
  t.Add(1, 1, {Val("refs/heads/a", 1, 1), Val("refs/heads/b", 1, 2), Val("refs/heads/c", 1, 3)});
  t.Add(2, 2, {Tomb("refs/heads/b", 2), Tomb("refs/heads/~zz", 2)});
  {
    MergedRefIterator it(t.raw());
    ASSERT_TRUE(it.SeekToFirst().ok());
    EXPECT_EQ(Drain(it, 20), Lines({Val("refs/heads/a", 1, 1), Tomb("refs/heads/b", 2),
                                    Val("refs/heads/c", 1, 3), Tomb("refs/heads/~zz", 2)}));
  }
  {
    MergedRefIterator it(t.raw());
    it.set_suppress_deletions(true);
    ASSERT_TRUE(it.SeekToFirst().ok());
    EXPECT_EQ(Drain(it, 20), Lines({Val("refs/heads/a", 1, 1), Val("refs/heads/c", 1, 3)}));
  }
}

TEST(MergedIteratorTest, OlderValueReappearsWhenNewerTombstoneIsOverwritten) {
  Tables t;
  t.Add(1, 1, {Val("refs/heads/a", 1, 1)});
  t.Add(2, 2, {Tomb("refs/heads/a", 2)});
  t.Add(3, 3, {Val("refs/heads/a", 3, 9)});
  MergedRefIterator it(t.raw());
  it.set_suppress_deletions(true);
  ASSERT_TRUE(it.SeekToFirst().ok());
  EXPECT_EQ(Drain(it, 20), Lines({Val("refs/heads/a", 3, 9)}));
}

TEST(MergedIteratorTest, SeekPositionsAtFirstKeyNotBelowTarget) {
  Tables t;
  t.Add(1, 1, {Val("refs/heads/b", 1, 1), Val("refs/heads/d", 1, 2), Val("refs/tags/x", 1, 3)});
  t.Add(2, 2, {Val("refs/heads/c", 2, 4), Tomb("refs/heads/d", 2)});
  struct Case {
    std::string target;
    std::vector<std::string> want;  // with tombstones
  };
  const std::vector<Case> cases = {
      {"", Lines({Val("refs/heads/b", 1, 1), Val("refs/heads/c", 2, 4), Tomb("refs/heads/d", 2),
                  Val("refs/tags/x", 1, 3)})},
      {"refs/heads/a", Lines({Val("refs/heads/b", 1, 1), Val("refs/heads/c", 2, 4),
                              Tomb("refs/heads/d", 2), Val("refs/tags/x", 1, 3)})},
      {"refs/heads/c",
       Lines({Val("refs/heads/c", 2, 4), Tomb("refs/heads/d", 2), Val("refs/tags/x", 1, 3)})},
      {"refs/heads/cc", Lines({Tomb("refs/heads/d", 2), Val("refs/tags/x", 1, 3)})},
      {"refs/heads/d", Lines({Tomb("refs/heads/d", 2), Val("refs/tags/x", 1, 3)})},
      {"refs/tags/", Lines({Val("refs/tags/x", 1, 3)})},
      {"refs/tags/y", {}},
      {"\xff", {}},
  };
  for (const Case& c : cases) {
    MergedRefIterator it(t.raw());
    ASSERT_TRUE(it.Seek(c.target).ok());
    EXPECT_EQ(Drain(it, 20), c.want) << "seek " << c.target;
  }
  // The same iterator can be re-seeked, backwards too.
  MergedRefIterator it(t.raw());
  it.set_suppress_deletions(true);
  ASSERT_TRUE(it.Seek("refs/tags/").ok());
  EXPECT_EQ(Drain(it, 20), Lines({Val("refs/tags/x", 1, 3)}));
  ASSERT_TRUE(it.Seek("refs/heads/c").ok());
  EXPECT_EQ(Drain(it, 20), Lines({Val("refs/heads/c", 2, 4), Val("refs/tags/x", 1, 3)}));
  ASSERT_TRUE(it.SeekToFirst().ok());
  EXPECT_EQ(Drain(it, 20, 1), Lines({Val("refs/heads/b", 1, 1)}));
}

TEST(MergedIteratorTest, LogsMergeByNameThenNewestFirstWithTombstones) {
  Tables t;
  t.Add(1, 2, {},
        {Log("refs/heads/a", 1, 1), Log("refs/heads/a", 2, 2), Log("refs/heads/b", 1, 3)});
  t.Add(3, 3, {},
        {Log("refs/heads/a", 3, 4), Log("refs/heads/a", 2, 5), LogTomb("refs/heads/b", 1)});
  {
    MergedLogIterator it(t.raw());
    ASSERT_TRUE(it.SeekToFirst().ok());
    EXPECT_EQ(
        DrainLogs(it, 20),
        (std::vector<std::string>{
            FormatLog(Log("refs/heads/a", 3, 4), 20), FormatLog(Log("refs/heads/a", 2, 5), 20),
            FormatLog(Log("refs/heads/a", 1, 1), 20), FormatLog(LogTomb("refs/heads/b", 1), 20)}));
  }
  {
    MergedLogIterator it(t.raw());
    it.set_suppress_deletions(true);
    ASSERT_TRUE(it.Seek(std::string_view("refs/heads/a")).ok());
    EXPECT_EQ(DrainLogs(it, 20),
              (std::vector<std::string>{FormatLog(Log("refs/heads/a", 3, 4), 20),
                                        FormatLog(Log("refs/heads/a", 2, 5), 20),
                                        FormatLog(Log("refs/heads/a", 1, 1), 20)}));
    ASSERT_TRUE(it.Seek(std::string_view("refs/heads/b")).ok());
    EXPECT_TRUE(DrainLogs(it, 20).empty());
  }
  // The ref iterator of log-only tables is empty.
  MergedRefIterator refs(t.raw());
  ASSERT_TRUE(refs.SeekToFirst().ok());
  EXPECT_TRUE(Drain(refs, 20).empty());
}

TEST(MergedIteratorTest, NoTablesIsEmpty) {
  std::vector<const TableReader*> none;
  MergedRefIterator it(none);
  ASSERT_TRUE(it.SeekToFirst().ok());
  RefRecord r;
  EXPECT_FALSE(it.Next(&r));
  EXPECT_TRUE(it.status().ok());
  MergedLogIterator logs(none);
  ASSERT_TRUE(logs.Seek(std::string_view("x")).ok());
  LogRecord l;
  EXPECT_FALSE(logs.Next(&l));
}

TEST(MergedIteratorTest, SingleChildBypassAfterOthersRunOut) {
  // Table 0 holds a long tail that no other table reaches: after "refs/heads/m" only one
  // child is left and the heap is bypassed.
  Tables t(HashId::kSha1, 256);
  std::vector<RefRecord> base;
  for (int i = 0; i < 300; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/heads/z%04d", i);
    base.push_back(Val(name, 1, uint64_t(i)));
  }
  base.push_back(Val("refs/heads/a", 1, 1000));
  t.Add(1, 1, base);
  t.Add(2, 2, {Val("refs/heads/a", 2, 2000), Val("refs/heads/m", 2, 2001)});
  t.Add(3, 3, {Tomb("refs/heads/z0000", 3), Val("refs/heads/b", 3, 3000)});
  std::vector<RefRecord> want = {Val("refs/heads/a", 2, 2000), Val("refs/heads/b", 3, 3000),
                                 Val("refs/heads/m", 2, 2001), Tomb("refs/heads/z0000", 3)};
  for (int i = 1; i < 300; ++i) want.push_back(base[size_t(i)]);
  MergedRefIterator it(t.raw());
  ASSERT_TRUE(it.SeekToFirst().ok());
  EXPECT_EQ(Drain(it, 20), Lines(want));
  // Re-seeking after the bypass engaged restores the full merge.
  ASSERT_TRUE(it.Seek("refs/heads/a").ok());
  EXPECT_EQ(Drain(it, 20, 3), Lines({want[0], want[1], want[2]}));
  ASSERT_TRUE(it.Seek("refs/heads/z0150").ok());
  EXPECT_EQ(Drain(it, 20), Lines(std::vector<RefRecord>(want.begin() + 153, want.end())));
}

TEST(MergedIteratorTest, ManyTombstonesBelowTheCallersRange) {
  Tables t;
  std::vector<RefRecord> live, dead;
  for (int i = 0; i < 6000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/heads/a/%05d", i);
    live.push_back(Val(name, 1, uint64_t(i)));
    dead.push_back(Tomb(name, 2));
  }
  live.push_back(Val("refs/heads/b/keep", 1, 77777));
  t.Add(1, 1, live);
  t.Add(2, 2, dead);
  t.Add(3, 3, {Val("refs/heads/c", 3, 3)});

  // A prefix scan of the deleted namespace, as a caller does it: bound check first.
  for (bool suppress : {false, true}) {
    MergedRefIterator it(t.raw());
    it.set_suppress_deletions(suppress);
    ASSERT_TRUE(it.Seek("refs/heads/a/").ok());
    RefRecord r;
    size_t live_in_prefix = 0, seen = 0;
    while (it.Next(&r)) {
      ++seen;
      if (r.refname.compare(0, 13, "refs/heads/a/") != 0) break;
      if (!r.is_deletion()) ++live_in_prefix;
    }
    ASSERT_TRUE(it.status().ok());
    EXPECT_EQ(live_in_prefix, 0u);
    EXPECT_EQ(r.refname, "refs/heads/b/keep") << "suppress=" << suppress;
    EXPECT_EQ(seen, suppress ? 1u : 6001u);
  }
  // Seeking past the tombstones finds what follows.
  MergedRefIterator it(t.raw());
  it.set_suppress_deletions(true);
  ASSERT_TRUE(it.Seek("refs/heads/b/").ok());
  EXPECT_EQ(Drain(it, 20), Lines({Val("refs/heads/b/keep", 1, 77777), Val("refs/heads/c", 3, 3)}));
  // And the exact lookup treats each tombstone as "not found".
  Snapshot snap = t.snapshot();
  RefRecord r;
  bool found = true;
  ASSERT_TRUE(snap.ReadRef("refs/heads/a/03000", &r, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(snap.ReadRef("refs/heads/b/keep", &r, &found).ok());
  EXPECT_TRUE(found);
}

// NextLiveUnder, the look below a name: live records under the prefix only, and the walk
// ends at the first record past the prefix even when that one is deleted, so a look below
// a name that a run of deleted names follows does not walk the run.
TEST(MergedIteratorTest, NextLiveUnderEndsAtTheFirstRecordPastThePrefix) {
  Tables t;
  std::vector<RefRecord> old, dead;
  for (int i = 0; i < 3000; ++i) {
    char name[32];
    std::snprintf(name, sizeof name, "refs/heads/a/%05d", i);
    old.push_back(Val(name, 1, uint64_t(i)));
    if (i != 2000) dead.push_back(Tomb(name, 2));
  }
  old.push_back(Val("refs/heads/b/keep", 1, 77777));
  t.Add(1, 1, old);
  t.Add(2, 2, dead);
  for (bool suppress : {false, true}) {
    RefMergeCursor c(t.raw());
    c.set_suppress_deletions(suppress);
    RefRecord r;
    // Nothing under "refs/heads/0/": the walk stops on the first tombstone after it.
    ASSERT_TRUE(c.Seek("refs/heads/0/").ok());
    EXPECT_FALSE(c.NextLiveUnder("refs/heads/0/", &r));
    EXPECT_EQ(c.key(), "refs/heads/a/00000") << "suppress=" << suppress;
    // Under "refs/heads/a/": past 2000 tombstones, the one live ref; then the end at b/.
    ASSERT_TRUE(c.Seek("refs/heads/a/").ok());
    ASSERT_TRUE(c.NextLiveUnder("refs/heads/a/", &r));
    EXPECT_EQ(FormatRef(r, 20), FormatRef(Val("refs/heads/a/02000", 1, 2000), 20));
    EXPECT_FALSE(c.NextLiveUnder("refs/heads/a/", &r));
    EXPECT_EQ(c.key(), "refs/heads/b/keep");
    // A prefix of several: every live ref under it.
    ASSERT_TRUE(c.Seek("refs/heads/").ok());
    std::vector<std::string> got;
    while (c.NextLiveUnder("refs/heads/", &r)) got.push_back(r.refname);
    EXPECT_EQ(got, (std::vector<std::string>{"refs/heads/a/02000", "refs/heads/b/keep"}));
    ASSERT_TRUE(c.status().ok());
    // The caller's choice about deletions holds for Next afterwards.
    ASSERT_TRUE(c.Seek("refs/heads/a/00001").ok());
    ASSERT_TRUE(c.Next(&r));
    EXPECT_EQ(r.refname, suppress ? "refs/heads/a/02000" : "refs/heads/a/00001");
  }
}

TEST(SnapshotTest, ReadRefTakesTheNewestTableThatHasTheName) {
  Tables t;
  t.Add(1, 1, {Val("refs/heads/a", 1, 1), Val("refs/heads/b", 1, 2)});
  t.Add(2, 2, {Tomb("refs/heads/a", 2)});
  t.Add(3, 3, {Val("refs/heads/c", 3, 3)});
  Snapshot snap = t.snapshot();
  EXPECT_EQ(snap.max_update_index(), 3u);
  RefRecord r;
  bool found = true;
  ASSERT_TRUE(snap.ReadRef("refs/heads/a", &r, &found).ok());
  EXPECT_FALSE(found) << "a tombstone in a newer table hides the older value";
  ASSERT_TRUE(snap.ReadRef("refs/heads/b", &r, &found).ok());
  ASSERT_TRUE(found);
  EXPECT_EQ(FormatRef(r, 20), FormatRef(Val("refs/heads/b", 1, 2), 20));
  ASSERT_TRUE(snap.ReadRef("refs/heads/c", &r, &found).ok());
  EXPECT_TRUE(found);
  ASSERT_TRUE(snap.ReadRef("refs/heads/nope", &r, &found).ok());
  EXPECT_FALSE(found);
  ASSERT_TRUE(snap.ReadRef("", &r, &found).ok());
  EXPECT_FALSE(found);
}

// SeekPrefix: each table stops where its names leave the prefix (a lookup of the first name
// past it, then the block holding that name cut short), so the bound falls at restart
// points, inside restart intervals and at block starts; small blocks make the tables
// indexed. Every prefix of a sample of names (the empty one, full names, names that
// continue past a \xff byte, prefixes before the first and past the last name and between
// two names) against the reference, with a newer table of tombstones and new values, and
// re-seeks that must drop the bound again.
TEST(MergedIteratorTest, SeekPrefixEndsWhereNamesLeaveThePrefix) {
  std::vector<std::string> names;
  for (int i = 0; i < 700; ++i) {
    names.push_back("refs/heads/topic-" + std::to_string(i));
    names.push_back("refs/tags/v" + std::to_string(i % 97) + "." + std::to_string(i));
    if (i % 7 == 0) names.push_back("refs/notes/" + std::string(1 + i % 40, 'n') + "/x");
  }
  for (const char* n : {"refs/x\xff", "refs/x\xff\xff/a", "refs/x\xff\xff", "refs/y", "refs/",
                        "refs/heads/topic-1/sub"}) {
    names.push_back(n);
  }
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  for (uint32_t block_size : {256u, 1024u, 65536u}) {
    Tables t(HashId::kSha1, block_size);
    std::map<std::string, RefRecord> newest;
    std::vector<RefRecord> base, top;
    for (size_t i = 0; i < names.size(); ++i) base.push_back(Val(names[i], 1, i + 1));
    for (size_t i = 0; i < names.size(); i += 5) {
      top.push_back(i % 10 ? Tomb(names[i], 2) : Val(names[i], 2, 5000 + i));
    }
    for (const RefRecord& r : base) newest[r.refname] = r;
    for (const RefRecord& r : top) newest[r.refname] = r;
    t.Add(1, 1, base);
    std::vector<std::string> prefixes = {"",
                                         "\xff",
                                         "a",
                                         "zzz",
                                         "refs/heads/topic-5a",
                                         "refs/x\xff",
                                         "refs/x\xff\xff",
                                         "refs/x\xff\xff/",
                                         "refs/tags/v12.12",
                                         "refs/tags/v12.12x"};
    for (size_t i = 0; i < names.size(); i += 37) {
      for (size_t len = 0; len <= names[i].size(); ++len)
        prefixes.push_back(names[i].substr(0, len));
    }
    // Each prefix once (names share their first bytes); the order is the test's.
    std::sort(prefixes.begin(), prefixes.end());
    prefixes.erase(std::unique(prefixes.begin(), prefixes.end()), prefixes.end());
    for (int ntables = 1; ntables <= 2; ++ntables) {
      if (ntables == 2) t.Add(2, 2, top);
      // What a scan of the whole stack gives, in name order (base holds every name), each
      // record formatted once: the expected output of a prefix is a run of it.
      std::vector<const RefRecord*> merged;
      std::vector<std::string> formatted;
      for (const RefRecord& r : base) {
        merged.push_back(ntables == 1 ? &r : &newest.at(r.refname));
        formatted.push_back(FormatRef(*merged.back(), 20));
      }
      for (bool suppress : {false, true}) {
        MergedRefIterator it(t.raw());
        it.set_suppress_deletions(suppress);
        for (const std::string& prefix : prefixes) {
          std::vector<std::string> want;
          for (size_t i = 0; i < base.size(); ++i) {
            if (base[i].refname.compare(0, prefix.size(), prefix) != 0) continue;
            if (suppress && merged[i]->is_deletion()) continue;
            want.push_back(formatted[i]);
          }
          ASSERT_TRUE(it.SeekPrefix(prefix).ok());
          ASSERT_EQ(Drain(it, 20), want)
              << "block size " << block_size << " tables " << ntables << " prefix " << prefix;
        }
        // A plain Seek after SeekPrefix has no end again.
        ASSERT_TRUE(it.SeekPrefix("refs/heads/").ok());
        ASSERT_TRUE(it.Seek("refs/heads/topic-699").ok());
        size_t after = 0;
        RefRecord r;
        while (it.Next(&r)) ++after;
        ASSERT_TRUE(it.status().ok());
        size_t want_after = 0;
        for (auto m = newest.lower_bound("refs/heads/topic-699"); m != newest.end(); ++m) {
          const RefRecord& rec = ntables == 1 ? Val(m->first, 1, 0) : m->second;
          if (!(suppress && rec.is_deletion())) ++want_after;
        }
        EXPECT_EQ(after, want_after) << "block size " << block_size << " tables " << ntables;
      }
    }
  }
}

// Next() fills the caller's name however the caller left it: changed in place (same
// length), cleared, swapped with another string, grown or shrunk between calls.
TEST(MergedIteratorTest, NextNamesDoNotDependOnWhatTheCallerDidToTheRecord) {
  std::vector<RefRecord> refs;
  for (int i = 0; i < 3000; ++i) {
    refs.push_back(
        Val("refs/heads/" + std::string(size_t(i % 23), 'a' + char(i % 26)) + std::to_string(i), 1,
            uint64_t(i) + 1));
  }
  std::sort(refs.begin(), refs.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  for (uint32_t block_size : {256u, 4096u}) {
    Tables t(HashId::kSha1, block_size);
    t.Add(1, 1, refs);
    for (int tables = 1; tables <= 2; ++tables) {
      if (tables == 2) t.Add(2, 2, {Val("refs/heads/~zz", 2, 7)});
      MergedRefIterator it(t.raw());
      ASSERT_TRUE(it.SeekToFirst().ok());
      RefRecord r;
      std::string other = "refs/heads/some-other-name-of-a-length";
      size_t i = 0;
      while (it.Next(&r)) {
        ASSERT_LT(i, refs.size() + 1);
        std::string want = i < refs.size() ? refs[i].refname : "refs/heads/~zz";
        ASSERT_EQ(r.refname, want) << "record " << i << " block size " << block_size;
        switch (i % 5) {
          case 0: r.refname[r.refname.size() / 2] ^= 1; break;  // in place, same length
          case 1: r.refname.clear(); break;
          case 2: std::swap(r.refname, other); break;
          case 3: r.refname += "-longer"; break;
          case 4: r.refname.resize(r.refname.size() / 2); break;
        }
        ++i;
      }
      ASSERT_TRUE(it.status().ok());
      EXPECT_EQ(i, refs.size() + (tables == 2 ? 1 : 0));
    }
  }
}

// The merge's offset-value codes carry several bytes of each key (store/merge_cursor.h).
// Names from a tiny alphabet after a common stem make the cases that takes apart: names
// that agree in those bytes and differ later, names that are prefixes of each other (also
// followed by 0 bytes, which the codes' padding past a key's end looks like), 0xff bytes
// (also at the start, where an all-ones code would read as "exhausted"), the same name in
// three or more tables, and logs, whose keys hold 0 bytes after the name.
TEST(MergedIteratorTest, CodesThatCarrySeveralBytesOrderLikeTheBytes) {
  const std::vector<std::string> stems = {"", "refs/heads/feature/user-2000/topic-1",
                                          std::string(7, '\xff')};
  const std::string alphabet(
      "\x01"
      "ab\xff\0",
      5);
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string& stem = stems[seed % stems.size()];
    const uint32_t block_size = seed % 2 ? 4096 : 256;
    std::vector<std::string> pool;
    for (int i = 0; i < 50; ++i) {
      std::string name = stem;
      // Long runs of one letter: names that agree for more bytes than a code carries.
      size_t len = rng() % 12;
      char run = alphabet[rng() % alphabet.size()];
      for (size_t j = 0; j < len; ++j) name += rng() % 3 ? run : alphabet[rng() % alphabet.size()];
      if (!name.empty()) pool.push_back(name);
    }
    Tables t(HashId::kSha1, block_size);
    std::map<std::string, RefRecord> newest;
    std::map<std::pair<std::string, uint64_t>, LogRecord> logs;
    size_t ntables = 2 + rng() % 6;
    for (uint64_t ui = 1; ui <= ntables; ++ui) {
      std::map<std::string, RefRecord> refs;
      std::map<std::pair<std::string, uint64_t>, LogRecord> tlogs;
      size_t count = rng() % 4 == 0 ? pool.size() : rng() % 30;  // all of them: 3+ copies
      for (size_t j = 0; j < count; ++j) {
        const std::string& name = count == pool.size() ? pool[j] : pool[rng() % pool.size()];
        refs[name] = rng() % 5 ? Val(name, ui, rng() % 1000) : Tomb(name, ui);
        if (name.find('\0') != std::string::npos) continue;  // log names hold no NUL
        for (uint64_t k = rng() % 3; k-- > 0;) {
          uint64_t lui = 1 + rng() % ui;
          tlogs[{name, lui}] = rng() % 5 ? Log(name, lui, rng() % 1000) : LogTomb(name, lui);
        }
      }
      std::vector<RefRecord> rv;
      for (auto& [n, r] : refs) rv.push_back(r);
      std::vector<LogRecord> lv;
      for (auto& [k, l] : tlogs) lv.push_back(l);
      t.Add(ui, ui, rv, lv);
      for (auto& [n, r] : refs) newest[n] = r;
      for (auto& [k, l] : tlogs) logs[k] = l;
    }
    for (bool suppress : {false, true}) {
      std::vector<std::string> want;
      for (auto& [n, r] : newest) {
        if (!suppress || !r.is_deletion()) want.push_back(FormatRef(r, 20));
      }
      MergedRefIterator it(t.raw());
      it.set_suppress_deletions(suppress);
      ASSERT_TRUE(it.SeekToFirst().ok());
      ASSERT_EQ(Drain(it, 20), want) << "seed " << seed;
      RefMergeCursor c(t.raw());
      c.set_suppress_deletions(suppress);
      ASSERT_TRUE(c.SeekToFirst().ok());
      std::vector<std::string> got;
      RefRecord r;
      while (c.NextView(&r)) {
        r.refname = std::string(c.key());
        got.push_back(FormatRef(r, 20));
      }
      ASSERT_TRUE(c.status().ok()) << c.status().ToString();
      ASSERT_EQ(got, want) << "seed " << seed << " (NextView)";

      std::vector<std::pair<std::string, uint64_t>> keys;
      for (auto& [k, l] : logs) {
        if (!suppress || !l.is_deletion()) keys.push_back(k);
      }
      std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first < b.first : a.second > b.second;
      });
      std::vector<std::string> want_logs;
      for (const auto& k : keys) want_logs.push_back(FormatLog(logs[k], 20));
      MergedLogIterator li(t.raw());
      li.set_suppress_deletions(suppress);
      ASSERT_TRUE(li.SeekToFirst().ok());
      ASSERT_EQ(DrainLogs(li, 20), want_logs) << "seed " << seed;
    }
  }
}

// Random stacks over a small name pool against a reference merge.
// The recorded order of whole scans (store/merge_order.h): kept from the second whole scan
// of a snapshot, replayed after it, shared by threads, and never kept while a table's
// lookup aids are off.
TEST(MergedIteratorTest, WholeScansReplayTheRecordedOrder) {
  Tables t;
  std::vector<std::vector<RefRecord>> tables(4);
  std::map<std::string, RefRecord> newest;
  for (uint64_t i = 0; i < 3000; ++i) {
    char name[40];
    std::snprintf(name, sizeof name, "refs/heads/topic-%05llu",
                  (unsigned long long)(i * 7919 % 3000));
    size_t k = i % 4;
    RefRecord r = i % 11 == 0 && k > 0 ? Tomb(name, k + 1) : Val(name, k + 1, i);
    tables[k].push_back(r);
    if (i % 13 == 0 && k < 3) {  // shadowed by the next table
      RefRecord newer = Val(name, k + 2, i + 100000);
      tables[k + 1].push_back(newer);
    }
  }
  for (size_t k = 0; k < tables.size(); ++k) {
    std::sort(tables[k].begin(), tables[k].end(),
              [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
    tables[k].erase(
        std::unique(tables[k].begin(), tables[k].end(),
                    [](const RefRecord& a, const RefRecord& b) { return a.refname == b.refname; }),
        tables[k].end());
    for (const RefRecord& r : tables[k]) newest[r.refname] = r;
    t.Add(k + 1, k + 1, tables[k]);
  }
  std::vector<std::string> want;
  for (const auto& [n, r] : newest) {
    if (!r.is_deletion()) want.push_back(FormatRef(r, 20));
  }
  auto scan = [&](const Snapshot& snap) {
    MergedRefIterator it = snap.NewRefIterator();
    it.set_suppress_deletions(true);
    EXPECT_TRUE(it.SeekToFirst().ok());
    return Drain(it, 20);
  };

  Snapshot snap = t.snapshot();
  MergeOrderMemo* memo = SnapshotAccess::RefOrder(snap);
  ASSERT_EQ(scan(snap), want);
  EXPECT_EQ(memo->memory_bytes(), 0u) << "the first whole scan records nothing";
  ASSERT_EQ(scan(snap), want);
  EXPECT_GT(memo->memory_bytes(), 0u) << "the second whole scan records the order";
  EXPECT_LE(memo->memory_bytes(), 3000u + 300u) << "one byte per record";
  EXPECT_EQ(snap.memory().merge_order, memo->memory_bytes()) << "the public report";
  std::vector<std::thread> threads;
  std::vector<std::vector<std::string>> got(4);
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int r = 0; r < 3; ++r) got[i] = scan(snap);
    });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, want);

  // Threads racing to record on a fresh snapshot keep one order.
  Snapshot fresh = t.snapshot();
  ASSERT_EQ(scan(fresh), want);
  threads.clear();
  for (size_t i = 0; i < got.size(); ++i) {
    threads.emplace_back([&, i] { got[i] = scan(fresh); });
  }
  for (auto& th : threads) th.join();
  for (const auto& g : got) EXPECT_EQ(g, want);
  ASSERT_EQ(scan(fresh), want);

  // A table whose lookup aids are off keeps the snapshot's memory to the mapping.
  t.raw()[2]->set_lookup_aids(false);
  Snapshot plain = t.snapshot();
  for (int r = 0; r < 3; ++r) ASSERT_EQ(scan(plain), want);
  EXPECT_EQ(SnapshotAccess::RefOrder(plain)->memory_bytes(), 0u);
  t.raw()[2]->set_lookup_aids(true);
}

class MergedIteratorModelTest : public ::testing::TestWithParam<std::tuple<HashId, uint32_t>> {};

TEST_P(MergedIteratorModelTest, MatchesReferenceMerge) {
  const HashId hash = std::get<0>(GetParam());
  const uint32_t block_size = std::get<1>(GetParam());
  const size_t hs = HashSize(hash);
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    std::mt19937_64 rng(seed * 7919 + block_size);
    std::vector<std::string> pool;
    for (int i = 0; i < 120; ++i) pool.push_back(testutil::RandomRefName(rng));
    std::sort(pool.begin(), pool.end());
    pool.erase(std::unique(pool.begin(), pool.end()), pool.end());

    Tables t(hash, block_size);
    std::map<std::string, RefRecord> newest;  // with tombstones
    std::map<std::pair<std::string, uint64_t>, LogRecord> logs;
    size_t ntables = 1 + rng() % 6;
    uint64_t ui = 1;
    for (size_t k = 0; k < ntables; ++k) {
      std::map<std::string, RefRecord> refs;
      std::map<std::pair<std::string, uint64_t>, LogRecord> tlogs;
      // Mostly a narrow name range per table, sometimes the whole pool, so that tables drop
      // out of the merge at different points (and the bypass engages at different points).
      size_t lo = rng() % pool.size(), hi = std::min(pool.size(), lo + 1 + rng() % pool.size());
      if (rng() % 3 == 0) lo = 0, hi = pool.size();
      size_t count = rng() % 40;
      for (size_t j = 0; j < count; ++j) {
        const std::string& name = pool[lo + rng() % (hi - lo)];
        refs[name] = testutil::RandomRef(rng, name, hs, ui, ui);
        LogRecord l = testutil::RandomLog(rng, name, ui - rng() % ui, hs);
        tlogs[{name, l.update_index}] = l;
      }
      std::vector<RefRecord> rv;
      for (auto& [n, r] : refs) rv.push_back(r);
      std::vector<LogRecord> lv;
      for (auto& [k2, l] : tlogs) lv.push_back(l);
      t.Add(ui, ui, rv, lv);
      for (auto& [n, r] : refs) newest[n] = r;
      for (auto& [k2, l] : tlogs) logs[k2] = l;
      ++ui;
    }
    auto want_refs = [&](const std::string& from, bool suppress) {
      std::vector<std::string> out;
      for (auto it = newest.lower_bound(from); it != newest.end(); ++it) {
        if (suppress && it->second.is_deletion()) continue;
        out.push_back(FormatRef(it->second, hs));
      }
      return out;
    };
    for (bool suppress : {false, true}) {
      MergedRefIterator it(t.raw());
      it.set_suppress_deletions(suppress);
      ASSERT_TRUE(it.SeekToFirst().ok());
      ASSERT_EQ(Drain(it, hs), want_refs("", suppress)) << "seed " << seed;
      // Seeks to present names, absent names and prefixes, each followed by a partial scan,
      // on the same (re-seekable) iterator.
      for (int s = 0; s < 20; ++s) {
        std::string target = pool[rng() % pool.size()];
        if (rng() % 3 == 0) target += "\x01";
        if (rng() % 3 == 0) target.resize(rng() % (target.size() + 1));
        size_t limit = rng() % 2 ? SIZE_MAX : 1 + rng() % 5;
        ASSERT_TRUE(it.Seek(target).ok());
        std::vector<std::string> want = want_refs(target, suppress);
        if (want.size() > limit) want.resize(limit);
        ASSERT_EQ(Drain(it, hs, limit), want) << "seed " << seed << " seek " << target;
      }
    }
    // NextView, the listings' step that leaves the name in the table's key buffer, returns
    // the same records (store/git/refs/ref_view_scan.h); the name is key(), refname is left alone.
    for (bool suppress : {false, true}) {
      RefMergeCursor c(t.raw());
      c.set_suppress_deletions(suppress);
      ASSERT_TRUE(c.SeekToFirst().ok());
      std::vector<std::string> got;
      RefRecord r;
      r.refname = "untouched";
      while (c.NextView(&r)) {
        ASSERT_EQ(r.refname, "untouched");
        RefRecord named = r;
        named.refname = std::string(c.key());
        got.push_back(FormatRef(named, hs));
      }
      ASSERT_TRUE(c.status().ok()) << c.status().ToString();
      ASSERT_EQ(got, want_refs("", suppress)) << "seed " << seed;
    }
    // Logs: newest table wins per (name, update_index); order by name, then newest first.
    std::vector<std::pair<std::string, uint64_t>> keys;
    for (auto& [k2, l] : logs) keys.push_back(k2);
    std::sort(keys.begin(), keys.end(), [](const auto& a, const auto& b) {
      return a.first != b.first ? a.first < b.first : a.second > b.second;
    });
    for (bool suppress : {false, true}) {
      std::vector<std::string> want;
      for (const auto& k2 : keys) {
        if (suppress && logs[k2].is_deletion()) continue;
        want.push_back(FormatLog(logs[k2], hs));
      }
      MergedLogIterator it(t.raw());
      it.set_suppress_deletions(suppress);
      ASSERT_TRUE(it.SeekToFirst().ok());
      ASSERT_EQ(DrainLogs(it, hs), want) << "seed " << seed;
    }
    // Whole scans of one snapshot: the first merges, the second records the merge's order,
    // the ones after replay it (store/merge_order.h); every one returns the merge. Scans
    // that stop early or seek elsewhere in between neither record nor spoil it.
    {
      Snapshot whole = t.snapshot();
      for (int round = 0; round < 6; ++round) {
        const bool suppress = round % 2 == 1;
        MergedRefIterator it = whole.NewRefIterator();
        it.set_suppress_deletions(suppress);
        if (round == 1 || round == 4) {  // a partial whole scan, then a seek
          ASSERT_TRUE(it.SeekToFirst().ok());
          std::vector<std::string> want = want_refs("", suppress);
          size_t limit = 1 + rng() % 3;
          if (want.size() > limit) want.resize(limit);
          ASSERT_EQ(Drain(it, hs, limit), want) << "seed " << seed;
          const std::string& target = pool[rng() % pool.size()];
          ASSERT_TRUE(it.Seek(target).ok());
          ASSERT_EQ(Drain(it, hs), want_refs(target, suppress)) << "seed " << seed;
        }
        ASSERT_TRUE(it.SeekToFirst().ok());
        ASSERT_EQ(Drain(it, hs), want_refs("", suppress)) << "seed " << seed << " round " << round;
        ASSERT_TRUE(it.SeekPrefix("").ok());
        ASSERT_EQ(Drain(it, hs), want_refs("", suppress)) << "seed " << seed << " round " << round;
      }
      // NextView over a replay: the name is key(), as in the merge.
      RefMergeCursor c(whole.readers());
      c.set_merge_order(SnapshotAccess::RefOrder(whole));
      c.set_suppress_deletions(true);
      ASSERT_TRUE(c.SeekToFirst().ok());
      std::vector<std::string> got;
      RefRecord r;
      while (c.NextView(&r)) {
        RefRecord named = r;
        named.refname = std::string(c.key());
        got.push_back(FormatRef(named, hs));
      }
      ASSERT_TRUE(c.status().ok()) << c.status().ToString();
      ASSERT_EQ(got, want_refs("", true)) << "seed " << seed;
    }
    // The exact lookup agrees with the merge.
    Snapshot snap = t.snapshot();
    for (const std::string& name : pool) {
      RefRecord r;
      bool found = false;
      ASSERT_TRUE(snap.ReadRef(name, &r, &found).ok());
      auto it = newest.find(name);
      bool live = it != newest.end() && !it->second.is_deletion();
      ASSERT_EQ(found, live) << name;
      if (live) {
        ASSERT_EQ(FormatRef(r, hs), FormatRef(it->second, hs));
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(HashAndBlockSize, MergedIteratorModelTest,
                         ::testing::Combine(::testing::Values(HashId::kSha1, HashId::kSha256),
                                            ::testing::Values(2048u, 4096u)),
                         [](const auto& info) {
                           return std::string(std::get<0>(info.param) == HashId::kSha256 ? "Sha256"
                                                                                         : "Sha1") +
                                  "Bs" + std::to_string(std::get<1>(info.param));
                         });

}  // namespace
}  // namespace reftab
