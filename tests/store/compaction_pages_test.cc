// A compaction gives back the mapped pages of its input tables as its merge passes them
// (MergeCursor::ReleasePassedPages): the pages of those tables resident in this process drop
// to a fraction, and a snapshot that still holds the tables reads them as before (a read maps
// a page given back again; the mapping is read-only, so nothing is lost).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "format/block_reader.h"
#include "store/stack.h"
#include "store/table_reader.h"
#include "tests/testutil/stack_util.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using storetest::IdValue;
using storetest::LiveRefs;
using storetest::OpenOrDie;
using storetest::TestOptions;
using testutil::TempDir;

// The resident KiB (/proc/self/smaps "Rss:") of the mapping that starts at `data`; -1 if no
// mapping starts there.
long ResidentKib(const uint8_t* data) {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t start = reinterpret_cast<uintptr_t>(data) / page * page;
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool in_mapping = false;
  while (std::getline(in, line)) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2) {
      in_mapping = lo == start;
      continue;
    }
    long kib = 0;
    if (in_mapping && std::sscanf(line.c_str(), "Rss: %ld kB", &kib) == 1) return kib;
  }
  return -1;
}

// Every ref of the snapshot, read through its merged iterator (which touches every page of
// the ref blocks).
size_t ScanAll(const Snapshot& snap) {
  MergedRefIterator it = snap.NewRefIterator();
  EXPECT_TRUE(it.SeekToFirst().ok());
  RefRecord r;
  size_t n = 0;
  while (it.Next(&r)) ++n;
  EXPECT_TRUE(it.status().ok()) << it.status().ToString();
  return n;
}

TEST(CompactionPagesTest, MergeGivesBackTheInputsPagesItPassed) {
  TempDir tmp;
  auto s = OpenOrDie(tmp.path(), TestOptions());
  ASSERT_NE(s, nullptr);
  // Two tables of about 8 MiB of refs each (and their obj index), their names interleaved,
  // so that the merge walks both from start to end.
  constexpr int kRefs = 600000;
  for (int half = 0; half < 2; ++half) {
    Transaction tx = s->NewTransaction();
    tx.Reserve(kRefs / 2, 0);
    for (int i = half; i < kRefs; i += 2) {
      char name[40];
      std::snprintf(name, sizeof name, "refs/heads/topic/%07d", i);
      tx.Update(name, IdValue(uint64_t(i) + 1));
    }
    ASSERT_TRUE(tx.Commit().ok());
  }
  std::shared_ptr<const Snapshot> before = s->snapshot();
  ASSERT_EQ(before->tables().size(), 2u);
  const std::string refs = LiveRefs(*s);
  ASSERT_EQ(ScanAll(*before), size_t(kRefs));

  std::vector<long> resident;
  for (const auto& t : before->tables()) {
    ASSERT_GT(t->file_size(), uint64_t(8) << 20);
    resident.push_back(ResidentKib(t->source().data));
    // The scan made the ref blocks resident: most of the file (not the obj index).
    ASSERT_GT(resident.back(), long(t->file_size() / 1024 / 2)) << t->name();
  }

  ASSERT_TRUE(s->CompactAll().ok());
  ASSERT_EQ(s->names().size(), 1u);
  for (size_t i = 0; i < before->tables().size(); ++i) {
    const auto& t = before->tables()[i];
    const long now = ResidentKib(t->source().data);
    ASSERT_GE(now, 0) << t->name();
    // What remains: the ref blocks past the last whole 2 MiB step the merge passed, the
    // indexes, and the first pages (read again for the file header, mapped again in the
    // kernel's unit of the file's page cache, 1 MiB here).
    EXPECT_LT(now, resident[i] / 2) << t->name() << ": " << resident[i] << " KiB before";
  }

  // What was given back reads the same, through the old snapshot and the merged table.
  EXPECT_EQ(ScanAll(*before), size_t(kRefs));
  EXPECT_EQ(testutil::DumpRefs(*before, false), refs);
  EXPECT_EQ(LiveRefs(*s), refs);
}

}  // namespace
}  // namespace reftab
