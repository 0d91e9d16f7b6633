// Backward iteration in the engine: the block cursor (store/block_reverse_cursor.h) through the
// table cursor (store/table_reverse_cursor.h) and the backward merge
// (store/reverse_merge_cursor.h). Every table is checked against the forward iterator read
// backwards: random tables of many shapes (block sizes from 64 bytes, restart intervals from
// 1, padded and unpadded, SHA-1 and SHA-256, with logs after the refs, long names whose
// shared prefixes take two-byte varints), every table git wrote in ../shared/fixtures, and
// random stacks merged against a reference map. Hostile tables (every byte of a table
// changed in turn, a restart table pointing past the records, a block running past the end
// of the file) give an error naming the file and an offset, or records, and always end.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "format/bytes.h"
#include "store/block_reverse_cursor.h"
#include "store/reverse_merge_cursor.h"
#include "store/table_reader.h"
#include "store/table_reverse_cursor.h"
#include "tests/testutil/fixtures.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FormatRef;
using testutil::ScanRefs;  // every ref record, tombstones included, forwards

// The index of the last record before `want` in `all` (sorted), or -1.
long LastBefore(const std::vector<RefRecord>& all, std::string_view want, bool inclusive) {
  long i = long(all.size()) - 1;
  while (i >= 0 && (inclusive ? std::string_view(all[size_t(i)].refname) > want
                              : std::string_view(all[size_t(i)].refname) >= want)) {
    --i;
  }
  return i;
}

// Seeks the table's reverse cursor before `want`, then steps back `steps` times, comparing
// every record with `all` (the table read forwards).
void CheckFrom(const TableReader& t, const std::vector<RefRecord>& all,
               const std::optional<std::string>& want, bool inclusive, size_t steps) {
  const size_t hs = t.hash_size();
  TableRefReverseCursor c(&t);
  long i;
  if (want) {
    ASSERT_TRUE(c.SeekBefore(*want, inclusive).ok()) << c.status().ToString();
    i = LastBefore(all, *want, inclusive);
  } else {
    ASSERT_TRUE(c.SeekToLast().ok()) << c.status().ToString();
    i = long(all.size()) - 1;
  }
  for (size_t n = 0; n <= steps; ++n, --i) {
    ASSERT_EQ(c.Valid(), i >= 0) << t.name() << " from " << (want ? *want : "the end") << " step "
                                 << n;
    if (i < 0) break;
    RefRecord r;
    ASSERT_TRUE(c.ReadValue(&r)) << c.status().ToString();
    ASSERT_EQ(FormatRef(r, hs), FormatRef(all[size_t(i)], hs)) << t.name() << " step " << n;
    c.Prev();
  }
  ASSERT_TRUE(c.status().ok()) << c.status().ToString();
}

// The whole table backwards, and seeks before (and at) keys around its names.
void CheckTable(const TableReader& t, std::mt19937_64& rng, size_t seeks) {
  const std::vector<RefRecord> all = ScanRefs(t);
  CheckFrom(t, all, std::nullopt, false, all.size() + 1);
  if (all.empty()) {
    CheckFrom(t, all, std::string("refs/heads/main"), true, 1);
    return;
  }
  CheckFrom(t, all, std::string(), true, 1);
  CheckFrom(t, all, std::string(1, '\0'), false, 1);
  CheckFrom(t, all, std::string(300, '\xff'), true, 3);
  for (size_t s = 0; s < seeks; ++s) {
    std::string want = all[rng() % all.size()].refname;
    switch (rng() % 4) {
      case 0: break;
      case 1: want.push_back('\0'); break;
      case 2: want.pop_back(); break;
      case 3: want.back() = char(uint8_t(want.back()) + 1); break;
    }
    CheckFrom(t, all, want, rng() % 2 == 0, 2 + rng() % 40);
  }
}

// A name whose prefix shared with its neighbours is often longer than 127 bytes.
std::string LongName(std::mt19937_64& rng) {
  std::string n = "refs/heads/" + std::string(120 + rng() % 40, 'x');
  n += "/" + std::to_string(rng() % 1000);
  return n;
}

std::unique_ptr<TableReader> RandomTable(std::mt19937_64& rng, const WriteOptions& o, size_t refs,
                                         bool logs, std::vector<RefRecord>* written = nullptr) {
  const size_t hs = HashSize(o.hash_id);
  std::map<std::string, RefRecord> set = testutil::RandomRefSet(rng, refs, hs, 1, 9);
  // Long names only where a block holds them.
  for (size_t i = 0; o.block_size >= 1024 && i < refs / 8; ++i) {
    std::string name = LongName(rng);
    set[name] = testutil::RandomRef(rng, name, hs, 1, 9);
  }
  std::vector<RefRecord> v;
  for (auto& [name, r] : set) {
    if (name.size() + 2 * hs + 40 <= o.block_size / 2) v.push_back(r);  // fits a small block
  }
  std::vector<LogRecord> l;
  if (logs) {
    for (size_t i = 0; i < v.size(); i += 3) {
      l.push_back(testutil::RandomLog(rng, v[i].refname, 5, hs));
    }
  }
  if (written != nullptr) *written = v;
  auto t = TableReader::OpenBytes("random.ref", testutil::WriteTableToString(o, 1, 9, v, l));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : nullptr;
}

TEST(TableReverseCursorTest, RandomTablesOfEveryShapeReadBackwardsAsForwards) {
  std::mt19937_64 rng(7);
  for (uint32_t block_size : {256u, 512u, 1024u, 4096u}) {
    for (uint32_t restart : {1u, 3u, 16u, 200u}) {
      for (bool unpadded : {false, true}) {
        WriteOptions o;
        o.block_size = block_size;
        o.restart_interval = uint16_t(restart);
        o.unpadded = unpadded;
        o.hash_id = block_size >= 256 && rng() % 4 == 0 ? HashId::kSha256 : HashId::kSha1;
        const size_t refs = rng() % 3 == 0 ? rng() % 4 : 50 + rng() % 400;
        auto t = RandomTable(rng, o, refs, block_size >= 1024 && rng() % 2 == 0);
        ASSERT_TRUE(t);
        SCOPED_TRACE("block size " + std::to_string(block_size) + ", restart interval " +
                     std::to_string(restart) + (unpadded ? ", unpadded" : ""));
        CheckTable(*t, rng, 30);
      }
    }
  }
}

TEST(TableReverseCursorTest, EveryTableGitWroteReadsBackwardsAsForwards) {
  std::vector<std::string> files;
  for (const char* writer : {"/git", "/jgit"}) {
    for (const std::string& f : testutil::FindFiles(testutil::FixturesDir() + writer, ".ref")) {
      files.push_back(f);
    }
  }
  if (files.empty()) GTEST_SKIP() << "no fixtures in " << testutil::FixturesDir();
  std::mt19937_64 rng(11);
  size_t refs = 0;
  for (const std::string& f : files) {
    auto t = TableReader::OpenBytes(f, testutil::ReadFileOrDie(f));
    ASSERT_TRUE(t.ok()) << f << ": " << t.status().ToString();
    SCOPED_TRACE(f);
    CheckTable(**t, rng, 20);
    refs += ScanRefs(**t).size();
  }
  EXPECT_GT(refs, 1000u);  // the medium and multi-level fixtures are there
}

// A reference merge: tables folded oldest to newest.
std::map<std::string, RefRecord> Fold(const std::vector<std::vector<RefRecord>>& tables,
                                      bool drop_tombstones) {
  std::map<std::string, RefRecord> m;
  for (const auto& t : tables) {
    for (const RefRecord& r : t) m[r.refname] = r;
  }
  if (drop_tombstones) {
    for (auto it = m.begin(); it != m.end();) {
      it = it->second.value_type == RefValueType::kDeletion ? m.erase(it) : std::next(it);
    }
  }
  return m;
}

TEST(ReverseMergeCursorTest, RandomStacksMergeBackwardsAsTheReferenceMerge) {
  std::mt19937_64 rng(3);
  for (int round = 0; round < 40; ++round) {
    WriteOptions o;
    o.block_size = 128 + uint32_t(rng() % 512);
    o.restart_interval = uint16_t(1 + rng() % 8);
    std::vector<std::unique_ptr<TableReader>> owned;
    std::vector<const TableReader*> raw;
    std::vector<std::vector<RefRecord>> written;
    // Names from a small pool, so that tables share them and tombstones hide older records.
    const size_t n = 1 + rng() % 5;
    for (size_t i = 0; i < n; ++i) {
      std::vector<RefRecord> v;
      for (int k = 0; k < 300; ++k) {
        if (rng() % 3 != 0) continue;
        RefRecord r =
            testutil::RandomRef(rng, "refs/heads/b" + std::to_string(k), 20, i + 1, i + 1);
        if (rng() % 4 == 0) {
          r = RefRecord();
          r.refname = "refs/heads/b" + std::to_string(k);
          r.update_index = i + 1;
        }
        v.push_back(r);
      }
      std::sort(v.begin(), v.end(),
                [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
      auto t = TableReader::OpenBytes("t" + std::to_string(i),
                                      testutil::WriteTableToString(o, i + 1, i + 1, v, {}));
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      raw.push_back(t->get());
      owned.push_back(std::move(*t));
      written.push_back(std::move(v));
    }
    for (bool drop : {false, true}) {
      const std::map<std::string, RefRecord> want = Fold(written, drop);
      RefReverseMergeCursor c(raw);
      c.set_suppress_deletions(drop);
      for (int walk = 0; walk < 10; ++walk) {
        std::map<std::string, RefRecord>::const_iterator at;  // the first entry after
        if (walk == 0) {
          ASSERT_TRUE(c.SeekToLast().ok());
          at = want.end();
        } else {
          std::string k = "refs/heads/b" + std::to_string(rng() % 320);
          if (rng() % 2) k.push_back('\0');
          const bool inclusive = rng() % 2 == 0;
          ASSERT_TRUE(c.SeekBefore(k, inclusive).ok());
          at = inclusive ? want.upper_bound(k) : want.lower_bound(k);
        }
        for (int step = 0; step < 400; ++step) {
          ASSERT_EQ(c.Valid(), at != want.begin()) << "round " << round << " step " << step;
          if (at == want.begin()) break;
          --at;
          RefRecord r;
          ASSERT_TRUE(c.ReadValue(&r));
          ASSERT_EQ(FormatRef(r, 20), FormatRef(at->second, 20)) << "round " << round;
          c.Prev();
        }
        ASSERT_TRUE(c.status().ok()) << c.status().ToString();
      }
    }
  }
}

// Reads the table backwards whole and from a few keys, whatever it gives: it must end and, on
// error, name the table and an offset. A record takes at least two bytes, so more records
// than the table has bytes would mean a loop.
void ReadHostile(const TableReader& t, const std::vector<std::string>& keys, size_t* errors) {
  const size_t records = size_t(t.file_size());
  auto check = [&](const TableRefReverseCursor& c, size_t steps) {
    ASSERT_LE(steps, records) << "more records backwards than the table has bytes";
    if (!c.status().ok()) {
      ++*errors;
      const std::string m = c.status().ToString();
      EXPECT_NE(m.find(t.name()), std::string::npos) << m;
      EXPECT_NE(m.find("offset"), std::string::npos) << m;
    }
  };
  {
    TableRefReverseCursor c(&t);
    (void)c.SeekToLast();
    size_t steps = 0;
    for (; c.Valid() && steps <= records; c.Prev()) {
      RefRecord r;
      if (c.ReadValue(&r)) ++steps;
    }
    check(c, steps);
  }
  for (const std::string& k : keys) {
    TableRefReverseCursor c(&t);
    (void)c.SeekBefore(k, true);
    size_t steps = 0;
    for (; c.Valid() && steps <= records; c.Prev()) ++steps;
    check(c, steps);
  }
}

TEST(TableReverseCursorTest, EveryByteOfATableChangedGivesRecordsOrAnErrorNamingTheFile) {
  std::mt19937_64 rng(5);
  WriteOptions o;
  o.block_size = 256;
  o.restart_interval = 4;
  o.index_objects = false;
  std::vector<RefRecord> v;
  auto clean = RandomTable(rng, o, 40, /*logs=*/false, &v);
  ASSERT_TRUE(clean);
  const std::string bytes = testutil::WriteTableToString(o, 1, 9, v, {});
  const std::vector<std::string> keys = {v.front().refname, v[v.size() / 2].refname,
                                         v.back().refname + "z"};
  const size_t footer = clean->header().footer_size();
  size_t errors = 0, opened = 0;
  for (size_t at = 0; at + footer < bytes.size(); ++at) {
    for (uint8_t x : {uint8_t(0x01), uint8_t(0x80), uint8_t(0xff)}) {
      std::string bad = bytes;
      bad[at] = char(uint8_t(bad[at]) ^ x);
      auto t = TableReader::OpenBytes("hostile.ref", bad);
      if (!t.ok()) continue;  // the header (checked against the footer's copy)
      ++opened;
      ReadHostile(**t, keys, &errors);
      if (HasFailure()) FAIL() << "byte " << at << " ^ " << int(x);
    }
  }
  EXPECT_GT(opened, 3 * (bytes.size() - footer) / 2);
  EXPECT_GT(errors, 100u);  // most changes to a restart table or a varint are caught
}

// The table of RandomTable's shape with several ref blocks, and the offset of its second.
struct TwoBlocks {
  std::string bytes;
  std::vector<RefRecord> refs;
  uint64_t second = 0;
};
TwoBlocks MakeTwoBlocks() {
  std::mt19937_64 rng(9);
  WriteOptions o;
  o.block_size = 512;
  o.restart_interval = 4;
  o.index_objects = false;
  TwoBlocks t;
  auto table = RandomTable(rng, o, 60, false, &t.refs);
  t.bytes = testutil::WriteTableToString(o, 1, 9, t.refs, {});
  t.second = 512;
  return t;
}

TEST(TableReverseCursorTest, ARestartOffsetPastTheRecordsIsAnErrorNamingTheFileAndOffset) {
  TwoBlocks t = MakeTwoBlocks();
  // The first block's restart table: its last entry made to point into the table itself.
  const uint32_t block_len = be::Load24(reinterpret_cast<const uint8_t*>(t.bytes.data()) + 24 + 1);
  const uint8_t* end = reinterpret_cast<const uint8_t*>(t.bytes.data()) + block_len;
  const uint32_t restarts = be::Load16(end - 2);
  ASSERT_GE(restarts, 2u);
  const size_t entry = block_len - 2 - 3;  // the last restart offset
  t.bytes[entry] = 0;
  t.bytes[entry + 1] = char((block_len - 4) >> 8);
  t.bytes[entry + 2] = char((block_len - 4) & 0xff);
  auto table = TableReader::OpenBytes("bad-restart.ref", t.bytes);
  ASSERT_TRUE(table.ok());
  TableRefReverseCursor c(table->get());
  // The last record of the first block: found through its (damaged) last interval.
  std::string last_of_first;
  {
    BlockView view;
    ASSERT_TRUE(DecodeBlock((*table)->source(), 0, nullptr, nullptr, &view).ok());
    BlockIterator it;
    it.Init(view, 20);
    while (it.NextKey()) last_of_first = std::string(it.key());
  }
  Status s = c.SeekBefore(last_of_first, true);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.ToString(),
            "corruption: bad-restart.ref: block at offset 0: malformed restart "
            "table at offset " +
                std::to_string(block_len - 2 - 3 * restarts));
  EXPECT_FALSE(c.Valid());
  // Sticky, as forwards: the cursor stays failed.
  EXPECT_FALSE(c.SeekToLast().ok());
}

TEST(TableReverseCursorTest, ABlockRunningPastTheFileIsAnErrorNamingTheFileAndOffset) {
  TwoBlocks t = MakeTwoBlocks();
  // The second block's length made larger than the file.
  t.bytes[t.second + 1] = char(0x7f);
  auto table = TableReader::OpenBytes("truncated.ref", t.bytes);
  ASSERT_TRUE(table.ok());
  TableRefReverseCursor c(table->get());
  // From the end: the index (or the walk) reaches the damaged block.
  Status s = c.SeekBefore(t.refs[t.refs.size() / 4].refname, true);
  if (s.ok()) {  // the key is in the first block: going back never reads the second
    for (; c.Valid(); c.Prev()) {
    }
    s = c.SeekToLast();
  }
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("truncated.ref"), std::string::npos) << s.ToString();
  EXPECT_NE(s.ToString().find("block at offset 512"), std::string::npos) << s.ToString();
}

TEST(BlockReverseCursorTest, AnIntervalThatDoesNotDecodeIsAnErrorAtItsOffset) {
  TwoBlocks t = MakeTwoBlocks();
  const uint8_t* base = reinterpret_cast<const uint8_t*>(t.bytes.data());
  // The first interval of the first block: its second record made to share more than the
  // key before it has.
  const uint32_t start = 24 + uint32_t(kBlockHeaderSize);
  const uint8_t* p = base + start;
  const uint8_t* const end = base + t.bytes.size();
  uint64_t prefix, suffix_and_type;
  ASSERT_TRUE(GetVarintAt(&p, end, &prefix) && GetVarintAt(&p, end, &suffix_and_type));
  p += suffix_and_type >> 3;
  ByteReader in(p, end);
  ASSERT_TRUE(SkipValue(in, BlockType::kRef, uint8_t(suffix_and_type & 7), 20));
  const size_t second = size_t(in.pos() - base);
  std::string bad = t.bytes;
  bad[second] = char(0x7f);  // a prefix of 127 bytes: longer than the name before it
  auto damaged = TableReader::OpenBytes("t.ref", bad);
  ASSERT_TRUE(damaged.ok());
  BlockView view;
  ASSERT_TRUE(DecodeBlock((*damaged)->source(), 0, nullptr, nullptr, &view).ok());
  ASSERT_GE(view.restart_count, 2u);
  BlockReverseCursor c;
  c.Init(view, 20);
  ASSERT_TRUE(c.SeekToLast());  // the last interval is whole
  size_t back = 0;
  while (c.Prev()) ++back;
  EXPECT_GT(back, 0u);
  EXPECT_TRUE(c.error());
  EXPECT_EQ(c.error_offset(), start);
  EXPECT_FALSE(c.Valid());
  // Through the table cursor: the file and both offsets.
  TableRefReverseCursor tc(damaged->get());
  Status s = tc.SeekBefore(t.refs.front().refname, true);
  EXPECT_EQ(s.ToString(), "corruption: t.ref: block at offset 0: malformed ref record at offset " +
                              std::to_string(start));
}

}  // namespace
}  // namespace reftab
