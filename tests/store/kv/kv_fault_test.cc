// The key/value store under I/O errors (tests/testutil/fault_fs.h): a workload of single
// puts with flushes (some puts synced, tables synced, Durability::kGit) runs while one
// operation of the file system fails (every kind: create, append, sync, close, rename,
// remove, directory sync, the reads and the lock; the Nth of its kind, for every N the workload
// makes). Writes that report an error may or may not be there afterwards. The open store
// must still read every acknowledged write (a failed flush keeps its memtable). It is closed
// without a flush (so the last writes are in the log only), opened again on the operating
// system's files, and must hold every acknowledged write, and never a wrong value.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "store/kv/kv_store.h"
#include "tests/testutil/fault_fs.h"
#include "tests/testutil/store_util.h"

namespace reftab {
namespace {

using testutil::FaultInjectingFileSystem;
using testutil::FsOp;
using testutil::FsOpName;

constexpr int kPuts = 120;

std::string KeyOf(int i) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "key%04d", i);
  return buf;
}
std::string ValueOf(int i) { return std::string(40 + size_t(i % 7), char('a' + i % 26)); }

KvOptions FaultOptions(FileSystem* fs) {
  KvOptions o;
  o.fs = fs;
  o.memtable_size = 2048;  // a flush every ~15 puts
  o.lock_timeout_ms = 0;
  return o;
}

// Runs the workload on `fs`; returns which puts were acknowledged.
std::vector<bool> Workload(const std::string& dir, FileSystem* fs) {
  std::vector<bool> acked(kPuts, false);
  auto kv = KvStore::Open(dir, FaultOptions(fs));
  if (!kv.ok()) return acked;
  for (int i = 0; i < kPuts; ++i) {
    acked[size_t(i)] = (*kv)->Put(KeyOf(i), ValueOf(i), KvWriteOptions{.sync = i % 10 == 0}).ok();
  }
  // A failed flush (the table's writing, its listing, the log's removal) leaves the store as
  // it was: the open store still reads every acknowledged write, from its memtables.
  for (int i = 0; i < kPuts; ++i) {
    std::string v;
    bool found = false;
    Status s = (*kv)->Get(KeyOf(i), &v, &found);
    EXPECT_TRUE(s.ok()) << s.ToString();
    if (acked[size_t(i)]) {
      EXPECT_TRUE(found) << "acknowledged put " << i << " is not read before the close";
    }
    if (found) {
      EXPECT_EQ(v, ValueOf(i)) << "put " << i << ", before the close";
    }
  }
  return acked;  // closed without a flush, as by a crash: what is not in a table is in the log
}

// Opens the store on the operating system's files and checks it against `acked`.
void Check(const std::string& dir, const std::vector<bool>& acked, const std::string& what) {
  SCOPED_TRACE(what);
  // A lock file whose removal was made to fail stays behind, as a killed writer's would.
  std::remove((dir + "/tables.list.lock").c_str());
  auto kv = KvStore::Open(dir, FaultOptions(nullptr));
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  for (int i = 0; i < kPuts; ++i) {
    std::string v;
    bool found = false;
    ASSERT_TRUE((*kv)->Get(KeyOf(i), &v, &found).ok());
    if (acked[size_t(i)]) {
      ASSERT_TRUE(found) << "acknowledged put " << i << " is missing";
    }
    if (found) {
      ASSERT_EQ(v, ValueOf(i)) << "put " << i;
    }
  }
  ASSERT_TRUE((*kv)->Flush().ok());
}

TEST(KvFaultTest, AnIoErrorAnywhereLosesNoAcknowledgedWrite) {
  // How many operations of each kind the workload makes.
  FaultInjectingFileSystem counter;
  counter.set_perform_syncs(false);
  {
    testutil::TempDir dir("kvfault");
    std::vector<bool> acked = Workload(dir.path(), &counter);
    ASSERT_TRUE(std::all_of(acked.begin(), acked.end(), [](bool b) { return b; }));
  }
  int runs = 0;
  for (FsOp op : testutil::kAllFsOps) {
    const uint64_t total = counter.count(op);
    for (uint64_t n = 1; n <= total; ++n) {  // every call of every kind
      testutil::TempDir dir("kvfault");
      FaultInjectingFileSystem fs;
      fs.set_perform_syncs(false);
      fs.FailNth(op, n);
      std::vector<bool> acked = Workload(dir.path(), &fs);
      Check(dir.path(), acked, std::string(FsOpName(op)) + " #" + std::to_string(n));
      if (HasFatalFailure()) return;
      ++runs;
    }
  }
  std::printf("kv fault injection: %d runs, each failing one call", runs);
  for (FsOp op : testutil::kAllFsOps) {
    std::printf(" %s:%llu", FsOpName(op), (unsigned long long)counter.count(op));
  }
  std::printf("\n");
  EXPECT_GT(runs, 50);
}

// A fresh log costs an unsynced writer no fsync; the first synced record in it syncs the
// folder too (its name, and the old log's), later ones only the log.
TEST(KvFaultTest, ALogIsReplacedWithoutSyncsUntilASyncedWrite) {
  testutil::TempDir dir("kvfault");
  FaultInjectingFileSystem fs;
  fs.set_perform_syncs(false);
  KvOptions o = FaultOptions(&fs);
  o.durability = Durability::kNone;  // the flushes' tables unsynced too: only the log counts
  o.auto_compact = false;
  auto kv = KvStore::Open(dir.path(), o);
  ASSERT_TRUE(kv.ok()) << kv.status().ToString();
  fs.Reset();
  for (int i = 0; i < kPuts; ++i) ASSERT_TRUE((*kv)->Put(KeyOf(i), ValueOf(i)).ok());
  ASSERT_TRUE((*kv)->Flush().ok());
  EXPECT_GT((*kv)->Properties().flushes, 3u);  // the log was replaced as many times
  EXPECT_EQ(fs.count(FsOp::kSync), 0u);
  EXPECT_EQ(fs.count(FsOp::kSyncDir), 0u);
  ASSERT_TRUE((*kv)->Put("synced", "1", KvWriteOptions{.sync = true}).ok());
  EXPECT_EQ(fs.count(FsOp::kSync), 1u);
  EXPECT_EQ(fs.count(FsOp::kSyncDir), 1u);
  ASSERT_TRUE((*kv)->Put("synced", "2", KvWriteOptions{.sync = true}).ok());
  EXPECT_EQ(fs.count(FsOp::kSync), 2u);
  EXPECT_EQ(fs.count(FsOp::kSyncDir), 1u);
  // Its log replaced, the synced records keep a durable name: the folder is synced between
  // the renames.
  ASSERT_TRUE((*kv)->Flush().ok());
  EXPECT_EQ(fs.count(FsOp::kSyncDir), 2u);
  ASSERT_TRUE((*kv)->Close().ok());
}

}  // namespace
}  // namespace reftab
