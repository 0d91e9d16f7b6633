// Read-ahead (store/readahead_window.h) in the forward cursor (SectionCursor::set_readahead)
// and the backward one (TableRefReverseCursor::set_readahead): once the blocks it has left
// one after another hold a threshold of bytes, a scan decodes blocks from windows of the
// file copied with RandomAccessFile::ReadInto instead of from the mapping; a seek followed by
// a few steps, even among large records, stays on the mapping. Whatever the table's shape, the
// scan gives the same records (forwards, at the same block offsets) as without it, ends
// ranges at the same place and reports a corrupt block with the same message (naming the
// file's offset); a read that fails falls back to the mapping. Through the POSIX file system the
// windows are read from the table's descriptor, which still reads a table whose name was removed.
// Lookups copy long symref targets (a key/value store's large values) the same way.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "store/file.h"
#include "store/merge_cursor.h"
#include "store/reverse_merge_cursor.h"
#include "store/section_cursor.h"
#include "store/table_reader.h"
#include "store/table_reverse_cursor.h"
#include "tests/testutil/random_refs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FormatRef;

// A table in memory whose ReadInto calls are counted, and fail from the `fail_from`th on.
class CountingFile final : public RandomAccessFile {
 public:
  CountingFile(std::string bytes, uint64_t fail_from = UINT64_MAX)
      : inner_(NewMemoryFile("counted.ref", std::move(bytes))), fail_from_(fail_from) {}
  const std::string& name() const override { return inner_->name(); }
  uint64_t size() const override { return inner_->size(); }
  const uint8_t* data() const override { return inner_->data(); }
  bool ReadInto(uint64_t offset, uint64_t length, uint8_t* out) const override {
    if (++reads_ >= fail_from_) return false;
    return inner_->ReadInto(offset, length, out);
  }
  uint64_t reads() const { return reads_; }

 private:
  std::unique_ptr<RandomAccessFile> inner_;
  uint64_t fail_from_;
  mutable uint64_t reads_ = 0;
};

// Most tables here are far smaller than ReadaheadWindow::kAfterBytes: their scans read ahead
// from the second block on (kFromTheSecondBlock), so that every shape goes through the
// windows. The default threshold has a test of its own.

// What a scan gave: each record with the offset of its block, then the status.
struct Scan {
  std::vector<std::string> records;
  std::string status;
};

Scan ScanTable(const TableReader& t, bool readahead, const std::string& from = "",
               const std::string& limit = "") {
  TableRefCursor c(&t);
  c.set_readahead(readahead, ReadaheadWindow::kFromTheSecondBlock);
  Scan out;
  Status s = from.empty() && limit.empty() ? c.SeekToFirst() : c.SeekRange(from, limit);
  RefRecord r;
  while (s.ok() && c.Next(&r)) {
    out.records.push_back(std::to_string(c.block_offset()) + " " + FormatRef(r, t.hash_size()));
  }
  out.status = s.ok() ? c.status().ToString() : s.ToString();
  return out;
}

// The same backwards: from the last record, or from the last before `before`.
Scan ScanBack(const TableReader& t, bool readahead, const std::string& before = "") {
  TableRefReverseCursor c(&t);
  c.set_readahead(readahead, ReadaheadWindow::kFromTheSecondBlock);
  Scan out;
  Status s = before.empty() ? c.SeekToLast() : c.SeekBefore(before, /*inclusive=*/false);
  for (; s.ok() && c.Valid(); c.Prev()) {
    RefRecord r;
    if (!c.ReadValue(&r)) break;
    out.records.push_back(FormatRef(r, t.hash_size()));
  }
  out.status = s.ok() ? c.status().ToString() : s.ToString();
  return out;
}

void ExpectSameScan(const Scan& with, const Scan& without) {
  EXPECT_EQ(with.status, without.status);
  ASSERT_EQ(with.records.size(), without.records.size());
  for (size_t i = 0; i < with.records.size(); ++i) {
    ASSERT_EQ(with.records[i], without.records[i]) << "record " << i;
  }
}

std::vector<RefRecord> RandomRefs(std::mt19937_64& rng, size_t n, size_t hash_size,
                                  size_t max_name) {
  std::vector<RefRecord> v;
  for (auto& [name, r] : testutil::RandomRefSet(rng, n, hash_size, 1, 9)) {
    if (name.size() + r.target.size() <= max_name) v.push_back(r);
  }
  return v;
}

// A table of about `n` random refs (names and targets up to `max_name` bytes) in blocks of
// `block_size`.
std::string RandomTableBytes(uint64_t seed, uint32_t block_size, size_t n, size_t max_name) {
  std::mt19937_64 rng(seed);
  WriteOptions o;
  o.block_size = block_size;
  return testutil::WriteTableToString(o, 1, 9, RandomRefs(rng, n, 20, max_name), {});
}

std::unique_ptr<TableReader> OpenCounted(std::string bytes, CountingFile** file,
                                         uint64_t fail_from = UINT64_MAX) {
  auto f = std::make_unique<CountingFile>(std::move(bytes), fail_from);
  *file = f.get();
  auto t = TableReader::Open(std::move(f));
  EXPECT_TRUE(t.ok()) << t.status().ToString();
  return t.ok() ? std::move(*t) : nullptr;
}

TEST(ReadaheadTest, TablesOfEveryShapeScanAsFromTheMapping) {
  std::mt19937_64 rng(5);
  for (uint32_t block_size : {256u, 1024u, 4096u}) {
    for (uint32_t restart : {1u, 16u}) {
      for (bool unpadded : {false, true}) {
        for (bool logs : {false, true}) {
          WriteOptions o;
          o.block_size = block_size;
          o.restart_interval = uint16_t(restart);
          o.unpadded = unpadded;
          o.hash_id = rng() % 2 ? HashId::kSha256 : HashId::kSha1;
          const size_t hs = HashSize(o.hash_id);
          // Enough records for more than one window (the first is 64 KiB).
          std::vector<RefRecord> refs = RandomRefs(rng, 6000, hs, block_size / 2 - 2 * hs - 40);
          std::vector<LogRecord> l;
          for (size_t i = 0; logs && block_size >= 1024 && i < refs.size(); i += 50) {
            l.push_back(testutil::RandomLog(rng, refs[i].refname, 5, hs));
          }
          CountingFile* file = nullptr;
          auto t = OpenCounted(testutil::WriteTableToString(o, 1, 9, refs, l), &file);
          ASSERT_TRUE(t);
          SCOPED_TRACE("block size " + std::to_string(block_size) + ", restart interval " +
                       std::to_string(restart) + (unpadded ? ", unpadded" : "") +
                       (logs ? ", logs" : ""));
          const Scan without = ScanTable(*t, false);
          EXPECT_EQ(file->reads(), 0u);
          EXPECT_EQ(without.records.size(), refs.size());
          ExpectSameScan(ScanTable(*t, true), without);
          EXPECT_GE(file->reads(), 2u);  // the windows were read, and refilled
          // Backwards: the whole table, and from a name deep inside it.
          const uint64_t forward_reads = file->reads();
          const Scan back = ScanBack(*t, false);
          EXPECT_EQ(back.records.size(), refs.size());
          ExpectSameScan(ScanBack(*t, true), back);
          if (!unpadded) {
            EXPECT_GE(file->reads(), forward_reads + 2);
          }
          const std::string mid = refs[refs.size() / 2 + rng() % (refs.size() / 2)].refname;
          ExpectSameScan(ScanBack(*t, true, mid), ScanBack(*t, false, mid));
          // Ranges that end deep inside the read-ahead, and one past the last name.
          for (int k = 0; k < 4; ++k) {
            std::string a = refs[rng() % (refs.size() / 4)].refname;
            std::string b = k == 3 ? std::string(1, '\xff')
                                   : refs[refs.size() / 2 + rng() % (refs.size() / 2)].refname;
            ExpectSameScan(ScanTable(*t, true, a, b), ScanTable(*t, false, a, b));
          }
        }
      }
    }
  }
}

TEST(ReadaheadTest, BlocksLargerThanTheWindowAreReadWhole) {
  // Symref targets of 100-400 KiB in blocks of 1 MiB: some blocks outgrow the largest window.
  std::mt19937_64 rng(9);
  WriteOptions o;
  o.block_size = 1 << 20;
  std::vector<RefRecord> refs;
  for (int i = 0; i < 40; ++i) {
    RefRecord r;
    r.refname = "refs/heads/big" + std::to_string(1000 + i);
    r.update_index = 1;
    if (i % 3 == 0) {
      r.value_type = RefValueType::kVal1;
      r.value = testutil::RandomId(rng, 20);
    } else {
      r.value_type = RefValueType::kSymref;
      r.target = std::string((100 << 10) + rng() % (300 << 10), char('a' + i % 26));
    }
    refs.push_back(r);
  }
  CountingFile* file = nullptr;
  auto t = OpenCounted(testutil::WriteTableToString(o, 1, 1, refs, {}), &file);
  ASSERT_TRUE(t);
  const Scan without = ScanTable(*t, false);
  EXPECT_EQ(without.records.size(), refs.size());
  ExpectSameScan(ScanTable(*t, true), without);
  EXPECT_GT(file->reads(), 0u);
  ExpectSameScan(ScanBack(*t, true), ScanBack(*t, false));
}

TEST(ReadaheadTest, SeeksFollowedByAFewStepsStayOnTheMappingAmongLargeRecords) {
  // Values of 100 KiB in blocks of 512 KiB, five a block, as a key/value store writes them: a
  // seek and ten steps cross three blocks, which a threshold counted in blocks read ahead.
  std::vector<RefRecord> refs;
  for (int i = 0; i < 64; ++i) {
    RefRecord r;
    r.refname = "refs/kv/" + std::to_string(100 + i);
    r.update_index = 1;
    r.value_type = RefValueType::kSymref;
    r.target = std::string(100 << 10, char('a' + i % 26));
    refs.push_back(r);
  }
  WriteOptions o;
  o.block_size = 512 << 10;
  const std::string bytes = testutil::WriteTableToString(o, 1, 1, refs, {});
  ASSERT_GT(bytes.size(), 2 * ReadaheadWindow::kAfterBytes);
  CountingFile* file = nullptr;
  auto t = OpenCounted(bytes, &file);
  ASSERT_TRUE(t);
  {
    TableRefCursor c(t.get());
    c.set_readahead(true);
    RefRecord r;
    for (size_t k = 0; k + 11 <= refs.size(); k += 3) {
      ASSERT_TRUE(c.Seek(refs[k].refname).ok());
      for (size_t i = k; i < k + 11; ++i) {
        ASSERT_TRUE(c.Next(&r));
        ASSERT_EQ(r.refname, refs[i].refname);
        ASSERT_EQ(r.target, refs[i].target);
      }
    }
    TableRefReverseCursor back(t.get());
    back.set_readahead(true);
    for (size_t k = refs.size() - 1; k >= 11; k -= 3) {
      ASSERT_TRUE(back.SeekBefore(refs[k].refname, /*inclusive=*/true).ok());
      for (size_t i = k; i > k - 11; --i, back.Prev()) {
        ASSERT_TRUE(back.Valid());
        ASSERT_TRUE(back.ReadValue(&r));
        ASSERT_EQ(r.refname, refs[i].refname);
      }
    }
    EXPECT_EQ(file->reads(), 0u);
  }
  // A scan stays on the mapping while the blocks it has left hold less than kAfterBytes,
  // then reads ahead; with kFromTheSecondBlock, from its second block on.
  for (uint64_t after : {ReadaheadWindow::kAfterBytes, ReadaheadWindow::kFromTheSecondBlock}) {
    SCOPED_TRACE("after " + std::to_string(after) + " bytes");
    CountingFile* f = nullptr;
    auto table = OpenCounted(bytes, &f);
    ASSERT_TRUE(table);
    TableRefCursor c(table.get());
    c.set_readahead(true, after);
    ASSERT_TRUE(c.SeekToFirst().ok());
    RefRecord r;
    size_t n = 0;
    uint64_t first_block = UINT64_MAX;
    std::set<uint64_t> blocks;
    while (c.Next(&r)) {
      ASSERT_EQ(r.target, refs[n].target);
      blocks.insert(c.block_offset());
      if (first_block == UINT64_MAX) first_block = c.block_offset();
      const bool first = c.block_offset() == first_block;
      const bool ahead = after == ReadaheadWindow::kFromTheSecondBlock
                             ? !first
                             : c.block_offset() >= first_block + after;
      ASSERT_EQ(f->reads() > 0, ahead) << "record " << n << ", block at " << c.block_offset();
      ++n;
    }
    EXPECT_TRUE(c.status().ok()) << c.status().ToString();
    EXPECT_EQ(n, refs.size());
    // Each block is read once, not a first part with its header and then whole: the first
    // refill is too short for a block, the ones after it take the last block's length.
    if (after == ReadaheadWindow::kFromTheSecondBlock) {
      EXPECT_LE(f->reads(), blocks.size() + 1) << blocks.size() << " blocks";
    }
  }
  ExpectSameScan(ScanBack(*t, true), ScanBack(*t, false));
}

TEST(ReadaheadTest, LookupsCopyLongTargetsWithAReadAndTheRestFromTheMapping) {
  // Targets on both sides of TableReader::kReadTargetBytes, looked up before and after the
  // table's hash index is built (the two lookup paths), with reads that work and that fail.
  const size_t at = TableReader::kReadTargetBytes;
  std::vector<RefRecord> refs;
  size_t long_targets = 0;
  for (size_t size : {size_t(1), size_t(100), at - 1, at, at + 1, size_t(100) << 10}) {
    for (int i = 0; i < 8; ++i) {
      RefRecord r;
      r.refname = "refs/kv/" + std::to_string(size) + "/" + std::to_string(i);
      r.update_index = 1;
      r.value_type = RefValueType::kSymref;
      r.target = std::string(size, char('a' + i));
      r.target.back() = char('A' + (size + i) % 26);  // tells a short copy
      long_targets += size >= at;
      refs.push_back(r);
    }
  }
  std::sort(refs.begin(), refs.end(),
            [](const RefRecord& a, const RefRecord& b) { return a.refname < b.refname; });
  WriteOptions o;
  o.block_size = 1 << 20;
  const std::string bytes = testutil::WriteTableToString(o, 1, 1, refs, {});
  for (uint64_t fail_from : {UINT64_MAX, uint64_t(1)}) {
    CountingFile* file = nullptr;
    auto t = OpenCounted(bytes, &file, fail_from);
    ASSERT_TRUE(t);
    SCOPED_TRACE(fail_from == 1 ? "reads fail" : "reads work");
    RefRecord got;
    got.target = std::string(200 << 10, 'x');  // a reused record's longer, stale target
    // Enough rounds for the hash index (built after about a lookup per KiB of the table).
    for (int round = 0; round < 40; ++round) {
      for (const RefRecord& r : refs) {
        bool found = false;
        ASSERT_TRUE(t->ReadRef(r.refname, &got, &found).ok());
        ASSERT_TRUE(found) << r.refname;
        ASSERT_EQ(got.value_type, RefValueType::kSymref);
        ASSERT_EQ(got.update_index, 1u);
        ASSERT_EQ(got.target, r.target) << r.refname << ", round " << round;
      }
      if (fail_from == UINT64_MAX) {
        ASSERT_EQ(file->reads(), (round + 1) * long_targets);  // short ones: the mapping
      }
    }
    EXPECT_GT(t->ref_hash_index_bytes(), 0u);  // the later rounds took the hashed path
  }
}

TEST(ReadaheadTest, AFailedReadFallsBackToTheMapping) {
  const std::string bytes = RandomTableBytes(13, 512, 8000, 200);
  CountingFile* plain = nullptr;
  auto reference = OpenCounted(bytes, &plain);
  ASSERT_TRUE(reference);
  const Scan without = ScanTable(*reference, false);
  const Scan back = ScanBack(*reference, false);
  for (uint64_t fail_from : {1u, 2u, 3u}) {
    CountingFile* file = nullptr;
    auto t = OpenCounted(bytes, &file, fail_from);
    ASSERT_TRUE(t);
    SCOPED_TRACE("reads fail from the " + std::to_string(fail_from) + "th");
    ExpectSameScan(ScanTable(*t, true), without);
    EXPECT_EQ(file->reads(), fail_from);  // a failed read turns the read-ahead off
    CountingFile* file2 = nullptr;
    auto t2 = OpenCounted(bytes, &file2, fail_from);
    ASSERT_TRUE(t2);
    ExpectSameScan(ScanBack(*t2, true), back);
    EXPECT_EQ(file2->reads(), fail_from);
  }
}

TEST(ReadaheadTest, CorruptBlocksAreReportedAsWithoutIt) {
  // Every byte of a block well inside the read-ahead changed in turn: the same records and
  // the same error (from the mapping, with the file's offsets) either way.
  std::mt19937_64 rng(17);
  for (bool unpadded : {false, true}) {
    WriteOptions o;
    o.block_size = 256;
    o.unpadded = unpadded;
    std::vector<RefRecord> refs = RandomRefs(rng, 1200, 20, 80);
    const std::string bytes = testutil::WriteTableToString(o, 1, 9, refs, {});
    // Block 20 (padded) or the bytes where it would be.
    const size_t from = 20 * 256, to = 21 * 256;
    ASSERT_LT(to, bytes.size() / 2);
    size_t errors = 0;
    for (size_t at = from; at < to; ++at) {
      std::string bad = bytes;
      bad[at] = char(bad[at] ^ (1 + rng() % 255));
      auto t = TableReader::OpenBytes("corrupt.ref", bad);
      ASSERT_TRUE(t.ok()) << t.status().ToString();
      SCOPED_TRACE("byte " + std::to_string(at) + (unpadded ? ", unpadded" : ""));
      const Scan without = ScanTable(**t, false);
      ExpectSameScan(ScanTable(**t, true), without);
      ExpectSameScan(ScanBack(**t, true), ScanBack(**t, false));
      if (without.status != Status::Ok().ToString()) {
        ++errors;
        EXPECT_NE(without.status.find("corrupt.ref"), std::string::npos) << without.status;
        EXPECT_NE(without.status.find("offset"), std::string::npos) << without.status;
      }
    }
    EXPECT_GT(errors, 10u);
  }
}

TEST(ReadaheadTest, MergedTablesReadAheadBothWaysAsFromTheMapping) {
  std::mt19937_64 rng(21);
  WriteOptions o;
  o.block_size = 512;
  std::vector<std::unique_ptr<TableReader>> owned;
  std::vector<const TableReader*> tables;
  for (uint64_t i = 1; i <= 4; ++i) {
    std::vector<RefRecord> refs = RandomRefs(rng, 4000, 20, 200);
    for (RefRecord& r : refs) r.update_index = i;
    auto t = TableReader::OpenBytes("t" + std::to_string(i) + ".ref",
                                    testutil::WriteTableToString(o, i, i, refs, {}));
    ASSERT_TRUE(t.ok()) << t.status().ToString();
    tables.push_back(t->get());
    owned.push_back(std::move(*t));
  }
  auto merge = [&](bool readahead) {
    RefMergeCursor c(tables);
    c.set_readahead(readahead, ReadaheadWindow::kFromTheSecondBlock);
    std::vector<std::string> out;
    EXPECT_TRUE(c.SeekToFirst().ok());
    RefRecord r;
    while (c.Next(&r)) out.push_back(FormatRef(r, 20));
    EXPECT_TRUE(c.status().ok()) << c.status().ToString();
    return out;
  };
  const std::vector<std::string> without = merge(false);
  EXPECT_GT(without.size(), 8000u);
  EXPECT_EQ(merge(true), without);
  auto merge_back = [&](bool readahead) {
    RefReverseMergeCursor c(tables);
    c.set_readahead(readahead, ReadaheadWindow::kFromTheSecondBlock);
    std::vector<std::string> out;
    EXPECT_TRUE(c.SeekToLast().ok());
    for (; c.Valid(); c.Prev()) {
      RefRecord r;
      EXPECT_TRUE(c.ReadValue(&r));
      out.push_back(FormatRef(r, 20));
    }
    EXPECT_TRUE(c.status().ok()) << c.status().ToString();
    return out;
  };
  const std::vector<std::string> back = merge_back(false);
  EXPECT_EQ(back.size(), without.size());
  EXPECT_EQ(merge_back(true), back);
}

TEST(ReadaheadTest, PosixTablesReadAheadThroughTheirDescriptor) {
  const std::string bytes = RandomTableBytes(25, 1024, 10000, 400);
  testutil::TempDir dir("readahead");
  const std::string path = dir.path() + "/posix.ref";
  testutil::WriteFileOrDie(path, bytes);
  auto file = PosixFileSystem()->OpenRead(path);
  ASSERT_TRUE(file.ok()) << file.status().ToString();
  // ReadInto gives the file's bytes, and refuses a range past its end.
  std::string copy(100, '\0');
  EXPECT_TRUE((*file)->ReadInto(bytes.size() - 100, 100, reinterpret_cast<uint8_t*>(copy.data())));
  EXPECT_EQ(copy, bytes.substr(bytes.size() - 100));
  EXPECT_FALSE((*file)->ReadInto(bytes.size() - 99, 100, reinterpret_cast<uint8_t*>(copy.data())));
  EXPECT_FALSE((*file)->ReadInto(bytes.size() + 1, 0, reinterpret_cast<uint8_t*>(copy.data())));
  auto t = TableReader::Open(std::move(*file));
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  auto memory = TableReader::OpenBytes(path, bytes);
  ASSERT_TRUE(memory.ok());
  const Scan without = ScanTable(**memory, false);
  ExpectSameScan(ScanTable(**t, true), without);
  // The name gone (as a compaction's clean removes it): the descriptor still reads it.
  ASSERT_EQ(std::remove(path.c_str()), 0);
  ExpectSameScan(ScanTable(**t, true), without);
}

}  // namespace
}  // namespace reftab
