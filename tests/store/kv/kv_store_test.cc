// The key/value store (store/kv/kv_store.h): edge cases of keys and values (empty, binary with
// NULs, values of several MiB), batches, snapshots, iteration bounds, reopening, the
// write-ahead log (replay, a torn tail cut at every byte, a bit flipped in every byte, flushes
// at the memtable size, the writer lock), a seeded model test against std::map, and its files
// read back by `reftab dump` / `reftab verify`.
#include "store/kv/kv_store.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "store/kv/kv_log_format.h"
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

// Waits (up to a minute, polling) until the background thread has no immutable memtable
// left to flush; false if it still has one.
bool WaitForFlushes(KvStore& kv) {
  for (int i = 0; i < 6000; ++i) {
    if (kv.Properties().immutable_memtable_bytes == 0) return true;
    usleep(10 * 1000);
  }
  return false;
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

// A memtable is full at memtable_entries writes (overwrites of one key too), however few
// bytes they hold, or at memtable_size bytes, whichever comes first.
TEST(KvStoreTest, AMemtableIsFullAtItsWritesOrItsBytes) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.auto_compact = false;
  o.memtable_entries = 10;
  {
    // Ten writes of three keys fill it; the eleventh goes to the next memtable, which then
    // holds one write. Each round waits for the flush, so no memtable grows while one is
    // flushed (kKvFlushingGrowth).
    auto kv = OpenOrDie(dir.path(), o);
    for (uint64_t round = 1; round <= 3; ++round) {
      for (uint64_t i = round == 1 ? 0 : 1; i < 10; ++i) {
        ASSERT_TRUE(kv->Put(Key(i % 3), "v").ok());
      }
      ASSERT_TRUE(WaitForFlushes(*kv));
      EXPECT_EQ(kv->Properties().flushes, round - 1) << "round " << round;
      ASSERT_TRUE(kv->Put(Key(round), "w").ok());
      ASSERT_TRUE(WaitForFlushes(*kv));
      EXPECT_EQ(kv->Properties().flushes, round) << "round " << round;
      EXPECT_EQ(kv->Properties().memtable_bytes, Key(round).size() + 1 + 64);
    }
    EXPECT_EQ(GetOr(*kv, Key(0)), "v");
    EXPECT_EQ(GetOr(*kv, Key(3)), "w");
  }
  // Bytes first: four values of 1,000 bytes count 4,232 bytes, past a memtable of 4,096.
  TempDir bytes_dir("kv");
  o.memtable_entries = 1000;
  o.memtable_size = 4096;
  auto kv = OpenOrDie(bytes_dir.path(), o);
  for (uint64_t i = 0; i < 4; ++i) ASSERT_TRUE(kv->Put(Key(i), std::string(1000, 'x')).ok());
  ASSERT_TRUE(WaitForFlushes(*kv));
  EXPECT_EQ(kv->Properties().flushes, 0u);
  ASSERT_TRUE(kv->Put(Key(4), "y").ok());
  ASSERT_TRUE(WaitForFlushes(*kv));
  EXPECT_EQ(kv->Properties().flushes, 1u);
}

// Values of 100 KiB and more, many of them: through the log (a store closed without a flush
// replays it), the memtable (several flushes at its size, the memtable of the last writes),
// the tables and a full compaction, with overwrites and deletions on the way; every state
// read by Get and by the iterator both ways.
TEST(KvStoreTest, BigValuesRoundTripThroughLogMemtableFlushesAndCompaction) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.memtable_size = 1 << 20;  // a flush every ten values or so
  std::map<std::string, std::string> model;
  auto check = [&](KvStore& kv, const char* where) {
    for (const auto& [k, v] : model) EXPECT_TRUE(GetOr(kv, k) == v) << where << ": " << k;
    EXPECT_TRUE(Contents(kv) == model) << where;
    auto it = kv.NewIterator();
    ASSERT_TRUE(it.ok());
    auto want = model.rbegin();
    ASSERT_TRUE(it->SeekToLast().ok());
    for (; it->Valid(); it->Prev(), ++want) {
      ASSERT_TRUE(want != model.rend()) << where;
      EXPECT_EQ(it->key(), want->first) << where;
      EXPECT_TRUE(it->value() == want->second) << where << ": " << want->first;
    }
    EXPECT_TRUE(want == model.rend()) << where;
  };
  uint32_t seed = 100;
  {
    auto kv = OpenOrDie(dir.path(), o);
    for (uint64_t i = 0; i < 40; ++i) {
      std::string v = Binary((100 << 10) + size_t(i) * 4099, seed++);
      ASSERT_TRUE(kv->Put(Key(i), v).ok());
      model[Key(i)] = std::move(v);
    }
    ASSERT_TRUE(WaitForFlushes(*kv));
    EXPECT_GE(kv->Properties().table_sizes.size(), 2u);
    EXPECT_NE(kv->Properties().memtable_bytes, 0u);
    check(*kv, "written");
    // Overwrites and deletions that stay in the log only: the store is closed unflushed.
    for (uint64_t i = 0; i < 40; i += 3) {
      std::string v = Binary(300 << 10, seed++);
      ASSERT_TRUE(kv->Put(Key(i), v).ok());
      model[Key(i)] = std::move(v);
    }
    ASSERT_TRUE(kv->Delete(Key(7)).ok());
    model.erase(Key(7));
    ASSERT_TRUE(kv->Close().ok());
  }
  auto kv = OpenOrDie(dir.path(), o);  // replays the log
  ASSERT_TRUE(kv->log_recovery().ok()) << kv->log_recovery().ToString();
  check(*kv, "reopened");
  ASSERT_TRUE(kv->CompactAll().ok());
  EXPECT_EQ(kv->Properties().table_sizes.size(), 1u);
  check(*kv, "compacted");
}

// A table of large values (few records, in large blocks) gets its filter and hash index
// after a few hundred lookups, as a table of small records of the same record count would:
// counted in its bytes per 4 KiB block it would wait for 16 + size / 1 KiB lookups (20,000
// here, a million for 1 GB), and every absent key would descend its on-disk index meanwhile.
TEST(KvStoreTest, TablesOfLargeValuesGetTheirLookupAidsSoon) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  const std::string value = Binary(100 << 10, 7);
  KvWriteBatch b;
  for (uint64_t i = 0; i < 200; ++i) b.Put(Key(i), value);
  ASSERT_TRUE(kv->Write(b).ok());
  ASSERT_TRUE(kv->CompactAll().ok());
  auto snap = kv->stack()->snapshot();
  ASSERT_EQ(snap->tables().size(), 1u);
  const TableReader& table = *snap->tables()[0];
  EXPECT_EQ(table.ref_hash_index_bytes() + table.ref_filter_bytes(), 0u);
  for (uint64_t i = 0; i < 400; ++i) EXPECT_EQ(GetOr(*kv, Key(i) + "x"), "<missing>");
  EXPECT_GT(table.ref_hash_index_bytes(), 0u);
  EXPECT_EQ(GetOr(*kv, Key(5)), value);
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

TEST(KvStoreTest, BatchIsOneLogRecordAndLaterOperationsWinAndFlushMakesOneTable) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.auto_compact = false;
  auto kv = OpenOrDie(dir.path(), o);
  ASSERT_TRUE(kv->Put("gone", "x").ok());
  ASSERT_TRUE(kv->Flush().ok());
  ASSERT_EQ(kv->stack()->names().size(), 1u);
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
  EXPECT_EQ(snap->sequence(), (uint64_t(1) << 32) + 1);  // one table, one batch in memory
  ASSERT_TRUE(kv->Write(KvWriteBatch()).ok());           // an empty batch writes nothing
  EXPECT_EQ(kv->GetSnapshot()->sequence(), snap->sequence());
  ASSERT_TRUE(kv->Flush().ok());
  EXPECT_EQ(kv->stack()->names().size(), 2u);
  EXPECT_EQ(kv->GetSnapshot()->sequence(), uint64_t(2) << 32);
  EXPECT_EQ(Contents(*kv), (std::map<std::string, std::string>{{"a", "3"}, {"c", "4"}}));
  // A flush writes blindly (without reading each key): writes that change nothing still
  // make a table, and a tombstone for a missing key hides nothing.
  KvWriteBatch noop;
  noop.Delete("nothing");
  noop.Put("a", "3");
  ASSERT_TRUE(kv->Write(noop).ok());
  EXPECT_EQ(kv->GetSnapshot()->sequence(), (uint64_t(2) << 32) + 1);
  ASSERT_TRUE(kv->Flush().ok());
  EXPECT_EQ(kv->stack()->names().size(), 3u);
  EXPECT_EQ(kv->GetSnapshot()->sequence(), uint64_t(3) << 32);
  EXPECT_EQ(Contents(*kv), (std::map<std::string, std::string>{{"a", "3"}, {"c", "4"}}));
}

TEST(KvStoreTest, SnapshotsAndIteratorsKeepTheirStateWhileWritesGoOn) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(kv->Put(Key(uint64_t(i)), "old").ok());
  ASSERT_TRUE(kv->Flush().ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(kv->Put(Key(uint64_t(i)), "old").ok());  // in memory
  auto snap = kv->GetSnapshot();
  ASSERT_TRUE(snap.ok());
  KvIterator it = snap->NewIterator();
  ASSERT_TRUE(it.SeekToFirst().ok());
  // Everything rewritten, partly flushed and compacted, partly in the memtable.
  KvWriteBatch b;
  for (int i = 0; i < 20; ++i) b.Put(Key(uint64_t(i)), "new");
  b.Delete("k3");
  ASSERT_TRUE(kv->Write(b).ok());
  ASSERT_TRUE(kv->CompactAll().ok());
  ASSERT_TRUE(kv->stack()->names().size() == 1);
  ASSERT_TRUE(kv->Delete("k4").ok());
  ASSERT_TRUE(kv->Put("k5", "newer").ok());
  int n = 0;
  for (; it.Valid(); it.Next(), ++n) EXPECT_EQ(it.value(), "old");
  EXPECT_EQ(n, 20);
  std::string v;
  bool found = false;
  ASSERT_TRUE(snap->Get("k3", &v, &found).ok());
  EXPECT_TRUE(found);
  EXPECT_EQ(v, "old");
  EXPECT_EQ(GetOr(*kv, "k3"), "<missing>");
  EXPECT_EQ(GetOr(*kv, "k4"), "<missing>");
  EXPECT_EQ(GetOr(*kv, "k5"), "newer");
  EXPECT_EQ(GetOr(*kv, "k6"), "new");
}

TEST(KvStoreTest, ReadOnlyStoresSeeFlushedWritesAfterRefresh) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  KvOptions o = TestOptions();
  o.read_only = true;
  o.refresh_on_read = false;
  auto reader = OpenOrDie(dir.path(), o);
  KvOptions eager = TestOptions();
  eager.read_only = true;
  auto eager_reader = OpenOrDie(dir.path(), eager);
  ASSERT_TRUE(kv->Put("k", "1").ok());
  EXPECT_EQ(GetOr(*kv, "k"), "1");                    // its own writes show at once
  EXPECT_EQ(GetOr(*eager_reader, "k"), "<missing>");  // not flushed: only in kv.log
  ASSERT_TRUE(kv->Flush().ok());
  EXPECT_EQ(GetOr(*eager_reader, "k"), "1");
  EXPECT_EQ(GetOr(*reader, "k"), "<missing>");
  ASSERT_TRUE(reader->Refresh().ok());
  EXPECT_EQ(GetOr(*reader, "k"), "1");
  EXPECT_EQ(reader->Put("x", "y").code(), Code::kInvalidArgument);
  EXPECT_EQ(reader->Flush().code(), Code::kInvalidArgument);
}

TEST(KvStoreTest, ASecondWriterFailsAtOnceNamingTheLockAndItsHolder) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  auto second = KvStore::Open(dir.path(), TestOptions());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), Code::kLockHeld);
  EXPECT_NE(second.status().message().find(dir.path() + "/kv.lock"), std::string::npos)
      << second.status().ToString();
  EXPECT_NE(second.status().message().find("process " + std::to_string(getpid())),
            std::string::npos)
      << second.status().ToString();
  kv.reset();
  EXPECT_TRUE(KvStore::Open(dir.path(), TestOptions()).ok());  // released with the store
}

// ------------------------------------------------------------------ the log

std::string ReadFileOrDie(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

void WriteFileOrDie(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
  ASSERT_TRUE(out.good()) << path;
}

// A log of three one-put records (k1, k2, k3), as a writer leaves it when it is not closed
// cleanly: copied while the store is open. Sets *second and *third to where records 2 and
// 3 begin.
std::string ThreeRecordLog(size_t* second, size_t* third) {
  TempDir dir("kvlog");
  auto kv = OpenOrDie(dir.path());
  const std::string log = dir.path() + "/kv.log";
  EXPECT_TRUE(kv->Put("k1", "value one").ok());
  *second = ReadFileOrDie(log).size();
  EXPECT_TRUE(kv->Put("k2", "value two").ok());
  *third = ReadFileOrDie(log).size();
  EXPECT_TRUE(kv->Put("k3", "value three").ok());
  return ReadFileOrDie(log);
}

// Opens a fresh store whose kv.log is `log`, and returns what it holds of k1..k3 ("-" for
// a missing key), checking that a present key has its own value.
std::string OpenWithLog(std::string_view log, Status* recovery, const KvOptions& o = TestOptions(),
                        Status* open = nullptr) {
  TempDir dir("kvlog");
  WriteFileOrDie(dir.path() + "/kv.log", log);
  auto kv = KvStore::Open(dir.path(), o);
  if (open) *open = kv.status();
  if (!kv.ok()) return "<open failed>";
  *recovery = (*kv)->log_recovery();
  std::string held;
  const char* values[] = {"value one", "value two", "value three"};
  for (int i = 1; i <= 3; ++i) {
    std::string v = GetOr(**kv, Key(uint64_t(i)), "-");
    if (v != "-") {
      EXPECT_EQ(v, values[i - 1]) << "wrong data for k" << i;
    }
    held += v == "-" ? "-" : std::to_string(i);
  }
  // A damaged log was moved into a table and replaced, an intact one appended to: a second
  // open finds nothing to drop either way.
  kv->reset();
  auto again = OpenOrDie(dir.path());
  EXPECT_TRUE(again->log_recovery().ok()) << again->log_recovery().ToString();
  EXPECT_EQ(again->stack()->names().size(), held == "---" || recovery->ok() ? 0u : 1u);
  EXPECT_EQ(GetOr(*again, "k1", "-") != "-", held[0] == '1');
  return held;
}

TEST(KvStoreTest, AFlushBlockedByAKilledWritersLockSaysItsHolderIsGone) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.lock_timeout_ms = 0;
  auto kv = OpenOrDie(dir.path(), o);
  ASSERT_TRUE(kv->Put("a", "b").ok());
  // What a writer killed during a flush leaves: tables.list's lock and its pid file.
  pid_t gone = fork();
  ASSERT_GE(gone, 0);
  if (gone == 0) _exit(0);
  ASSERT_EQ(waitpid(gone, nullptr, 0), gone);
  WriteFileOrDie(dir.path() + "/tables.list.lock", "");
  WriteFileOrDie(dir.path() + "/tables.list~pid.lock", "pid " + std::to_string(gone) + "\n");
  Status s = kv->Flush();
  EXPECT_EQ(s.code(), Code::kLockHeld);
  EXPECT_NE(s.message().find("process " + std::to_string(gone) + ", which is no longer running"),
            std::string::npos)
      << s.ToString();
  EXPECT_EQ(GetOr(*kv, "a"), "b");  // still in the memtable and the log
}

TEST(KvLogTest, AStoreClosedWithoutFlushReplaysItsLogAtOpen) {
  TempDir dir("kv");
  {
    auto kv = OpenOrDie(dir.path());
    ASSERT_TRUE(kv->Put("a", "1").ok());
    KvWriteBatch b;
    b.Put("b", "2");
    b.Delete("a");
    b.Put(std::string("nul\0", 4), std::string("\0", 1));
    ASSERT_TRUE(kv->Write(b).ok());
    ASSERT_TRUE(kv->Put("c", "3", KvWriteOptions{.sync = true}).ok());
    EXPECT_TRUE(kv->stack()->names().empty());  // all of it in kv.log and the memtable
  }
  auto kv = OpenOrDie(dir.path());
  EXPECT_TRUE(kv->log_recovery().ok());
  const std::map<std::string, std::string> want = {
      {"b", "2"}, {"c", "3"}, {std::string("nul\0", 4), std::string("\0", 1)}};
  EXPECT_EQ(Contents(*kv), want);  // from the immutable memtable, or its table already
  ASSERT_TRUE(kv->Flush().ok());
  EXPECT_EQ(kv->stack()->names().size(), 1u);  // the flush thread moved it into a table
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/kv.log.flushing"));
  EXPECT_EQ(Contents(*kv), want);
  testutil::ExpectFreshKvLog(dir.path() + "/kv.log");
}

// Open reads both logs in place, through their mappings, and its memtable keeps views of
// their bytes until the table is written: the values must reach the table whole, the newer
// log's writes winning over the older's, and stay right once the logs are gone.
// kv.log's header gives the length kv.log.flushing had when kv.log took its place: a crash
// that cut kv.log.flushing exactly between two records (its end lost, kv.log's records
// kept) is caught, and kv.log, whose writes come after the lost ones, is dropped with it.
TEST(KvLogTest, AFlushingLogCutBetweenRecordsDropsTheLogAfterIt) {
  TempDir a("kvlog");
  std::vector<size_t> ends;  // kv.log's length after each put
  {
    auto kv = OpenOrDie(a.path());
    for (int i = 0; i < 3; ++i) {
      ASSERT_TRUE(kv->Put("u" + std::to_string(i), "older").ok());
      ends.push_back(ReadFileOrDie(a.path() + "/kv.log").size());
    }
  }
  const std::string older = ReadFileOrDie(a.path() + "/kv.log");
  TempDir b("kvlog");
  {
    auto kv = OpenOrDie(b.path());
    ASSERT_TRUE(kv->Put("later", "newer").ok());
  }
  const std::string newer = ReadFileOrDie(b.path() + "/kv.log");
  // kv.log as the rotation made it: it says how long kv.log.flushing was.
  auto with_previous = [&](uint64_t previous) {
    KvLogReader r(newer);
    EXPECT_TRUE(r.ReadHeader());
    return EncodeKvLogHeader({r.header() ? r.header()->tables_through : 0, previous}) +
           newer.substr(kKvLogHeaderSize);
  };
  for (const bool cut : {false, true}) {
    SCOPED_TRACE(cut ? "cut after two records" : "whole");
    TempDir dir("kv");
    WriteFileOrDie(dir.path() + "/kv.log.flushing", older.substr(0, cut ? ends[1] : older.size()));
    WriteFileOrDie(dir.path() + "/kv.log", with_previous(older.size()));
    auto kv = OpenOrDie(dir.path());
    EXPECT_EQ(GetOr(*kv, "u0"), "older");
    EXPECT_EQ(GetOr(*kv, "u1"), "older");
    EXPECT_EQ(GetOr(*kv, "u2", "-"), cut ? "-" : "older");
    EXPECT_EQ(GetOr(*kv, "later", "-"), cut ? "-" : "newer");
    if (cut) {
      EXPECT_EQ(kv->log_recovery().code(), Code::kCorruption);
      EXPECT_NE(kv->log_recovery().message().find("/kv.log.flushing: offset " +
                                                  std::to_string(ends[1]) + ": "),
                std::string::npos)
          << kv->log_recovery().ToString();
      EXPECT_NE(kv->log_recovery().message().find("/kv.log ("), std::string::npos)
          << kv->log_recovery().ToString();
    } else {
      EXPECT_TRUE(kv->log_recovery().ok()) << kv->log_recovery().ToString();
    }
    ASSERT_TRUE(kv->Close().ok());       // the writer lock goes with Close
    auto again = OpenOrDie(dir.path());  // the table Open wrote and a fresh log
    EXPECT_TRUE(again->log_recovery().ok()) << again->log_recovery().ToString();
    EXPECT_EQ(GetOr(*again, "later", "-"), cut ? "-" : "newer");
    EXPECT_EQ(GetOr(*again, "u1"), "older");
  }
}

TEST(KvLogTest, OpenReplaysBothLogsInPlaceTheNewerWinning) {
  // The logs of two stores closed unflushed become one store's kv.log.flushing and kv.log.
  auto log_of = [](const std::function<void(KvStore&)>& writes) {
    TempDir from("kvlog");
    auto kv = OpenOrDie(from.path());
    writes(*kv);
    EXPECT_TRUE(kv->Close().ok());
    return ReadFileOrDie(from.path() + "/kv.log");
  };
  const std::string big_old = Binary(200 << 10, 7), big_new = Binary((100 << 10) + 3, 8);
  const std::string older = log_of([&](KvStore& kv) {
    ASSERT_TRUE(kv.Put("k1", big_old).ok());
    ASSERT_TRUE(kv.Put("k2", "old").ok());
    ASSERT_TRUE(kv.Put("k4", big_old).ok());
  });
  const std::string newer = log_of([&](KvStore& kv) {
    KvWriteBatch b;
    b.Delete("k1");
    b.Put("k2", "new");
    b.Put("k3", big_new);
    ASSERT_TRUE(kv.Write(b).ok());
  });
  TempDir dir("kv");
  WriteFileOrDie(dir.path() + "/kv.log.flushing", older);
  WriteFileOrDie(dir.path() + "/kv.log", newer);
  const std::map<std::string, std::string> want = {{"k2", "new"}, {"k3", big_new}, {"k4", big_old}};
  {
    auto kv = OpenOrDie(dir.path());
    EXPECT_TRUE(kv->log_recovery().ok()) << kv->log_recovery().ToString();
    EXPECT_EQ(kv->stack()->names().size(), 1u);
    EXPECT_TRUE(Contents(*kv) == want);
    EXPECT_FALSE(std::filesystem::exists(dir.path() + "/kv.log.flushing"));
  }
  auto kv = OpenOrDie(dir.path());  // from the table alone
  testutil::ExpectFreshKvLog(dir.path() + "/kv.log");
  EXPECT_TRUE(Contents(*kv) == want);
  EXPECT_EQ(GetOr(*kv, "k1", "-"), "-");
}

TEST(KvLogTest, ATornTailIsDroppedAndReportedAtEveryCut) {
  size_t second = 0, third = 0;
  const std::string log = ThreeRecordLog(&second, &third);
  for (size_t cut = 0; cut <= log.size(); ++cut) {
    SCOPED_TRACE("cut at " + std::to_string(cut));
    Status recovery;
    std::string held = OpenWithLog(std::string_view(log).substr(0, cut), &recovery);
    if (cut == log.size()) {
      EXPECT_EQ(held, "123");
    } else if (cut >= third) {
      EXPECT_EQ(held, "12-");
    } else if (cut >= second) {
      EXPECT_EQ(held, "1--");
    } else {
      EXPECT_EQ(held, "---");
    }
    const bool boundary =
        cut == log.size() || cut == third || cut == second || cut == kKvLogHeaderSize;
    if (boundary) {
      EXPECT_TRUE(recovery.ok()) << recovery.ToString();
      continue;
    }
    ASSERT_EQ(recovery.code(), Code::kCorruption);
    const size_t at = cut > third              ? third
                      : cut > second           ? second
                      : cut > kKvLogHeaderSize ? kKvLogHeaderSize
                                               : 0;
    EXPECT_NE(recovery.message().find("/kv.log: offset " + std::to_string(at) + ": "),
              std::string::npos)
        << recovery.ToString();
    EXPECT_NE(recovery.message().find(std::to_string(cut - at) + " bytes"), std::string::npos)
        << recovery.ToString();
  }
}

TEST(KvLogTest, ABitFlippedInARecordDropsItAndWhatFollowsNeverGivingWrongData) {
  size_t second = 0, third = 0;
  const std::string log = ThreeRecordLog(&second, &third);
  KvOptions paranoid = TestOptions();
  paranoid.paranoid_checks = true;
  for (size_t i = second; i < third; ++i) {
    SCOPED_TRACE("byte " + std::to_string(i));
    std::string bad = log;
    bad[i] = char(bad[i] ^ (1 << (i % 8)));
    Status recovery;
    EXPECT_EQ(OpenWithLog(bad, &recovery), "1--");
    ASSERT_EQ(recovery.code(), Code::kCorruption);
    EXPECT_NE(recovery.message().find("/kv.log: offset " + std::to_string(second) + ": "),
              std::string::npos)
        << recovery.ToString();
    Status open;
    OpenWithLog(bad, &recovery, paranoid, &open);
    EXPECT_EQ(open.code(), Code::kCorruption);
    EXPECT_NE(open.message().find("/kv.log: offset " + std::to_string(second) + ": "),
              std::string::npos)
        << open.ToString();
  }
}

TEST(KvLogTest, TheMemtableFlushesAtItsSizeAndEverythingSurvivesReopen) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.memtable_size = 16 * 1024;
  o.auto_compact = false;
  const std::string value(100, 'v');
  {
    auto kv = OpenOrDie(dir.path(), o);
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(kv->Put(Key(uint64_t(i)), value).ok());
    // 1000 entries of about 170 accounted bytes: a memtable becomes immutable past 16 KiB
    // (~96 puts), or past twice that when it filled while the one before was being flushed
    // (kKvFlushingGrowth), and is flushed in the background.
    ASSERT_TRUE(WaitForFlushes(*kv));
    const size_t accounted = 1000u * (4 + 100 + 64);
    const size_t tables = kv->stack()->names().size();
    EXPECT_GE(tables, accounted / (kKvFlushingGrowth * o.memtable_size));
    EXPECT_LE(tables, accounted / o.memtable_size);
    EXPECT_EQ(kv->Properties().flushes, tables);
    KvOptions ro = o;
    ro.read_only = true;
    auto reader = OpenOrDie(dir.path(), ro);
    EXPECT_EQ(GetOr(*reader, "k0"), value);          // flushed
    EXPECT_EQ(GetOr(*reader, "k999"), "<missing>");  // in the memtable still
    EXPECT_LT(ReadFileOrDie(dir.path() + "/kv.log").size(), kKvFlushingGrowth * o.memtable_size);
  }
  auto kv = OpenOrDie(dir.path(), o);
  EXPECT_TRUE(kv->log_recovery().ok());
  auto all = Contents(*kv);
  EXPECT_EQ(all.size(), 1000u);
  for (const auto& [k, v] : all) EXPECT_EQ(v, value) << k;
}

TEST(KvStoreTest, OpenRefusesAnEmptyMemtable) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.memtable_size = 0;
  EXPECT_EQ(KvStore::Open(dir.path(), o).status().code(), Code::kInvalidArgument);
  o = TestOptions();
  o.memtable_entries = 0;
  auto kv = KvStore::Open(dir.path(), o);
  EXPECT_EQ(kv.status().code(), Code::kInvalidArgument);
  EXPECT_NE(kv.status().message().find("memtable_entries"), std::string::npos);
}

TEST(KvStoreTest, MultiGetReadsTheMemtablesAndTablesInOneState) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  ASSERT_TRUE(kv->Put("in-table", "t").ok());
  ASSERT_TRUE(kv->Put("deleted", "gone").ok());
  ASSERT_TRUE(kv->Flush().ok());
  ASSERT_TRUE(kv->Put("in-memtable", "m").ok());
  ASSERT_TRUE(kv->Delete("deleted").ok());
  std::vector<std::string_view> keys = {"in-table",    "",       "deleted",
                                        "in-memtable", "absent", "in-table"};
  std::vector<std::string> values;
  std::vector<bool> found;
  ASSERT_TRUE(kv->MultiGet(keys, &values, &found).ok());
  EXPECT_EQ(found, (std::vector<bool>{true, false, false, true, false, true}));
  EXPECT_EQ(values[0], "t");
  EXPECT_EQ(values[3], "m");
  EXPECT_EQ(values[5], "t");
  ASSERT_TRUE(kv->MultiGet({}, &values, &found).ok());
  EXPECT_TRUE(values.empty() && found.empty());
  KvOptions ro = TestOptions();
  ro.read_only = true;
  auto reader = OpenOrDie(dir.path(), ro);
  ASSERT_TRUE(reader->MultiGet(keys, &values, &found).ok());
  EXPECT_EQ(found, (std::vector<bool>{true, false, true, false, false, true}));  // flushed only
}

TEST(KvStoreTest, PropertiesCountTablesMemtableAndBytesWritten) {
  TempDir dir("kv");
  KvOptions o = TestOptions();
  o.auto_compact = false;
  auto kv = OpenOrDie(dir.path(), o);
  KvProperties p = kv->Properties();
  EXPECT_TRUE(p.table_sizes.empty());
  EXPECT_EQ(p.write_amplification(), 0);
  const std::string value(100, 'v');
  for (int t = 0; t < 3; ++t) {
    for (int i = 0; i < 10; ++i) ASSERT_TRUE(kv->Put(Key(uint64_t(t * 10 + i)), value).ok());
    ASSERT_TRUE(kv->Flush().ok());
  }
  ASSERT_TRUE(kv->Put("k", "v").ok());
  p = kv->Properties();
  ASSERT_EQ(p.table_sizes.size(), 3u);
  EXPECT_EQ(p.table_bytes, p.table_sizes[0] + p.table_sizes[1] + p.table_sizes[2]);
  EXPECT_EQ(p.table_bytes_written, p.table_bytes);
  EXPECT_EQ(p.memtable_bytes, 1u + 1u + 64u);
  EXPECT_EQ(p.immutable_memtable_bytes, 0u);
  EXPECT_EQ(p.flushes, 3u);
  EXPECT_EQ(p.user_bytes_written, 30u * (3 + 100) - 10u + 2u);  // k0..k9: one digit less
  EXPECT_EQ(p.log_writes, 31u);
  EXPECT_EQ(p.log_syncs, 0u);
  EXPECT_GT(p.log_bytes_written, p.user_bytes_written);
  EXPECT_GT(p.write_amplification(), 2.0);  // the log, then the tables
  // Three equal tables are not geometric: auto-compaction would merge them.
  EXPECT_GE(p.pending_compaction_tables, 2u);
  EXPECT_GT(p.pending_compaction_bytes, 0u);
  ASSERT_TRUE(kv->CompactAll().ok());
  p = kv->Properties();
  EXPECT_EQ(p.table_sizes.size(), 1u);
  EXPECT_EQ(p.pending_compaction_tables, 0u);
  EXPECT_EQ(p.pending_compaction_bytes, 0u);
}

// Three equal tables (a merge the geometric rule wants, not run: auto_compact off), and two
// writes left in kv.log; with `torn`, kv.log then loses its last byte (the second write's, so
// that Open replays the first and writes it into a table).
void ThreeEqualTablesAndALog(const std::string& dir, bool torn) {
  KvOptions o = TestOptions();
  o.auto_compact = false;
  {
    auto kv = OpenOrDie(dir, o);
    for (int t = 0; t < 3; ++t) {
      for (int i = 0; i < 10; ++i) ASSERT_TRUE(kv->Put(Key(uint64_t(t * 10 + i)), "v").ok());
      ASSERT_TRUE(kv->Flush().ok());
    }
    ASSERT_TRUE(kv->Put("before", "v").ok());
    ASSERT_TRUE(kv->Put("last", "v").ok());
    ASSERT_TRUE(kv->Close().ok());
  }
  if (torn) {
    const std::string log = dir + "/kv.log";
    ASSERT_EQ(truncate(log.c_str(), off_t(std::filesystem::file_size(log) - 1)), 0);
  }
}

// A merge is started by a flush, not by an Open that wrote no table: a Close stops a merge,
// and a store opened and closed again before it ends (to read, to write a little) would
// start rewriting the same tables each time, only for its Close to stop it again.
TEST(KvStoreTest, AMergeDueAtOpenWaitsForTheNextFlush) {
  TempDir dir("kv");
  ThreeEqualTablesAndALog(dir.path(), /*torn=*/false);
  {
    auto kv = OpenOrDie(dir.path());  // auto_compact on
    ASSERT_TRUE(kv->Put("more", "v").ok());
    // Time for a merge of these small tables to end, had one started (none should).
    for (int t = 0; t < 200 && kv->Properties().compactions == 0; ++t) usleep(1000);
    KvProperties p = kv->Properties();
    EXPECT_EQ(p.compactions, 0u);
    EXPECT_EQ(p.table_sizes.size(), 3u);
    EXPECT_GE(p.pending_compaction_tables, 2u);
    ASSERT_TRUE(kv->Close().ok());
    EXPECT_EQ(kv->Properties().compactions, 0u);
  }
  auto kv = OpenOrDie(dir.path());
  EXPECT_EQ(kv->Properties().table_sizes.size(), 3u);
  ASSERT_TRUE(kv->Flush().ok());  // the flush's table makes the merge due; Flush waits for it
  KvProperties p = kv->Properties();
  EXPECT_GE(p.compactions, 1u);
  EXPECT_EQ(p.pending_compaction_tables, 0u);
  EXPECT_LT(p.table_sizes.size(), 4u);
  EXPECT_EQ(GetOr(*kv, "last"), "v");
  EXPECT_EQ(GetOr(*kv, "more"), "v");
  EXPECT_EQ(GetOr(*kv, Key(29)), "v");
}

// An Open that writes a table (here, of a log with a torn tail) is a flush: it starts the
// merge its table makes due, as the flush thread would.
TEST(KvStoreTest, AnOpenThatWritesATableStartsTheMerge) {
  TempDir dir("kv");
  ThreeEqualTablesAndALog(dir.path(), /*torn=*/true);
  auto kv = OpenOrDie(dir.path());
  EXPECT_EQ(kv->log_recovery().code(), Code::kCorruption);
  for (int t = 0; t < 60000 && kv->Properties().pending_compaction_tables != 0; ++t) usleep(1000);
  KvProperties p = kv->Properties();
  EXPECT_EQ(p.pending_compaction_tables, 0u);
  EXPECT_GE(p.compactions, 1u);
  EXPECT_LT(p.table_sizes.size(), 4u);
  EXPECT_EQ(GetOr(*kv, "last"), "<missing>");  // its record was torn
  EXPECT_EQ(GetOr(*kv, "before"), "v");
  EXPECT_EQ(GetOr(*kv, Key(0)), "v");
}

TEST(KvStoreTest, DestroyRemovesTheStoreButNotWhileAWriterHasItOpen) {
  TempDir parent("kv");
  const std::string dir = parent.path() + "/store";
  auto kv = OpenOrDie(dir);
  ASSERT_TRUE(kv->Put("a", "1").ok());
  ASSERT_TRUE(kv->Flush().ok());
  ASSERT_TRUE(kv->Put("b", "2").ok());  // in kv.log only
  Status held = KvStore::Destroy(dir);
  EXPECT_EQ(held.code(), Code::kLockHeld) << held.ToString();
  EXPECT_NE(held.message().find("kv.lock"), std::string::npos) << held.message();
  EXPECT_EQ(GetOr(*kv, "a"), "1");
  kv.reset();
  // A leftover tables.list.lock (a compaction elsewhere, or a killed one): refused too.
  WriteFileOrDie(dir + "/tables.list.lock", "");
  held = KvStore::Destroy(dir);
  EXPECT_EQ(held.code(), Code::kLockHeld) << held.ToString();
  ASSERT_EQ(std::remove((dir + "/tables.list.lock").c_str()), 0);
  ASSERT_TRUE(KvStore::Destroy(dir).ok());
  EXPECT_NE(access(dir.c_str(), F_OK), 0);  // the folder went too
  EXPECT_EQ(KvStore::Destroy(dir).code(), Code::kNotFound);
  // A folder holding other files keeps them (and stays); the store is gone.
  kv = OpenOrDie(dir);
  ASSERT_TRUE(kv->Put("a", "1").ok());
  kv.reset();
  WriteFileOrDie(dir + "/notes.txt", "mine");
  ASSERT_TRUE(KvStore::Destroy(dir).ok());
  EXPECT_EQ(ReadFileOrDie(dir + "/notes.txt"), "mine");
  kv = OpenOrDie(dir);
  EXPECT_EQ(GetOr(*kv, "a"), "<missing>");
}

TEST(KvStoreTest, BackwardsWithinBoundsAndPrefix) {
  TempDir dir("kv");
  auto kv = OpenOrDie(dir.path());
  for (const char* k : {"a", "ab", "abc", "ac", "b", "ba"}) ASSERT_TRUE(kv->Put(k, k).ok());
  ASSERT_TRUE(kv->Flush().ok());
  ASSERT_TRUE(kv->Delete("ac").ok());  // in the memtable: hides the table's
  ASSERT_TRUE(kv->Put(std::string("a\xff", 2), "high byte").ok());
  auto back = [&](const KvIteratorOptions& o, const std::optional<std::string>& from) {
    auto it = kv->NewIterator(o);
    EXPECT_TRUE(it.ok());
    EXPECT_TRUE((from ? it->SeekForPrev(*from) : it->SeekToLast()).ok());
    std::string out;
    for (; it->Valid(); it->Prev()) out += std::string(it->key()) + ",";
    EXPECT_TRUE(it->status().ok());
    return out;
  };
  KvIteratorOptions none;
  EXPECT_EQ(back(none, std::nullopt), "ba,b,a\xff,abc,ab,a,");
  EXPECT_EQ(back(none, "abz"), "abc,ab,a,");
  EXPECT_EQ(back(none, "ac"), "abc,ab,a,");  // deleted: the one before
  EXPECT_EQ(back(none, "a"), "a,");
  EXPECT_EQ(back(none, std::string("\0", 1)), "");
  KvIteratorOptions prefix;
  prefix.prefix = "ab";
  EXPECT_EQ(back(prefix, std::nullopt), "abc,ab,");
  EXPECT_EQ(back(prefix, "abb"), "ab,");
  KvIteratorOptions range;
  range.lower_bound = "ab";
  range.upper_bound = "b";
  EXPECT_EQ(back(range, std::nullopt), "a\xff,abc,ab,");
  EXPECT_EQ(back(range, "zzz"), "a\xff,abc,ab,");
  EXPECT_EQ(back(range, "aa"), "");
  // Many entries sharing no prefix with the last key, in the memtable: a long way back.
  auto m_key = [](int i) {
    std::string k = std::to_string(i);
    k.insert(k.begin(), 'm');
    return k;
  };
  for (int i = 0; i < 3000; ++i) ASSERT_TRUE(kv->Put(m_key(100000 + i), "v").ok());
  ASSERT_TRUE(kv->Put("z", "v").ok());
  auto it = kv->NewIterator();
  ASSERT_TRUE(it.ok());
  ASSERT_TRUE(it->SeekForPrev("z").ok());
  int n = 0;
  for (it->Prev(); it->Valid() && it->key()[0] == 'm'; it->Prev()) {
    ASSERT_EQ(it->key(), m_key(102999 - n));
    ++n;
  }
  EXPECT_EQ(n, 3000);
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
// and now and then a full comparison, a prefix scan, a reopen (without a flush: the log is
// replayed), a flush, a full compaction, or a snapshot whose contents must stay those of the
// model at that time while later writes go on.
void RunModel(uint32_t seed, const KvOptions& options) {
  TempDir dir("kvmodel");
  std::mt19937 rng(seed);
  auto kv = OpenOrDie(dir.path(), options);
  std::map<std::string, std::string> model;
  std::optional<KvSnapshot> snap;
  std::map<std::string, std::string> snap_model;
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
    std::vector<std::string> probe;
    for (int r = 0; r < 5; ++r) {
      std::string k = random_key();
      auto m = model.find(k);
      ASSERT_EQ(GetOr(*kv, k), m == model.end() ? "<missing>" : m->second) << "step " << step;
      probe.push_back(k);
    }
    {  // the same keys at once
      std::vector<std::string_view> keys(probe.begin(), probe.end());
      std::vector<std::string> values;
      std::vector<bool> found;
      ASSERT_TRUE(kv->MultiGet(keys, &values, &found).ok());
      for (size_t i = 0; i < keys.size(); ++i) {
        auto m = model.find(probe[i]);
        ASSERT_EQ(found[i], m != model.end()) << "step " << step;
        if (found[i]) {
          ASSERT_EQ(values[i], m->second) << "step " << step;
        }
      }
    }
    switch (rng() % 20) {
      case 0: ASSERT_EQ(Contents(*kv), model) << "step " << step; break;
      case 1:
        kv.reset();  // the writer lock is released before the next open takes it
        kv = OpenOrDie(dir.path(), options);
        ASSERT_TRUE(kv->log_recovery().ok()) << kv->log_recovery().ToString();
        break;
      case 2: ASSERT_TRUE(kv->CompactAll().ok()); break;
      case 4: ASSERT_TRUE(kv->Flush().ok()); break;
      case 5: {
        if (snap) {
          std::map<std::string, std::string> seen;
          KvIterator it = snap->NewIterator();
          ASSERT_TRUE(it.SeekToFirst().ok());
          for (; it.Valid(); it.Next()) seen.emplace(it.key(), it.value());
          ASSERT_EQ(seen, snap_model) << "step " << step;
        }
        auto s = kv->GetSnapshot();
        ASSERT_TRUE(s.ok());
        snap.emplace(std::move(*s));
        snap_model = model;
        break;
      }
      case 6: {  // backwards: all of it, and a SeekForPrev then a step each way
        auto it = kv->NewIterator();
        ASSERT_TRUE(it.ok());
        ASSERT_TRUE(it->SeekToLast().ok());
        auto m = model.rbegin();
        for (; it->Valid(); it->Prev(), ++m) {
          ASSERT_NE(m, model.rend()) << "step " << step;
          ASSERT_EQ(it->key(), m->first) << "step " << step;
          ASSERT_EQ(it->value(), m->second) << "step " << step;
        }
        ASSERT_TRUE(it->status().ok());
        ASSERT_EQ(m, model.rend()) << "step " << step;
        const std::string k = random_key();
        ASSERT_TRUE(it->SeekForPrev(k).ok());
        auto at = model.upper_bound(k);  // the first key > k; the one before is <= k
        if (at == model.begin()) {
          ASSERT_FALSE(it->Valid()) << "step " << step;
          break;
        }
        --at;
        ASSERT_TRUE(it->Valid()) << "step " << step;
        ASSERT_EQ(it->key(), at->first) << "step " << step;
        it->Next();
        auto next = std::next(at);
        ASSERT_EQ(it->Valid(), next != model.end()) << "step " << step;
        if (it->Valid()) {
          ASSERT_EQ(it->key(), next->first) << "step " << step;
        }
        if (it->Valid()) {
          it->Prev();
        } else {  // past the end: Prev has nothing to step back from (as LevelDB's)
          ASSERT_TRUE(it->SeekForPrev(k).ok());
        }
        ASSERT_TRUE(it->Valid()) << "step " << step;
        ASSERT_EQ(it->key(), at->first) << "step " << step;
        it->Prev();
        ASSERT_EQ(it->Valid(), at != model.begin()) << "step " << step;
        if (it->Valid()) {
          ASSERT_EQ(it->key(), std::prev(at)->first) << "step " << step;
        }
        break;
      }
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
  EXPECT_TRUE(kv->Close().ok());
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
TEST(KvStoreModelTest, Seed4SmallMemtableSyncedTables) {
  KvOptions o = TestOptions();
  o.memtable_size = 16384;  // a flush every few dozen writes
  o.durability = Durability::kGit;
  RunModel(4, o);
}
TEST(KvStoreModelTest, Seed5TinyMemtable) {
  KvOptions o = TestOptions();
  o.memtable_size = 512;  // a flush at almost every write
  RunModel(5, o);
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
  ASSERT_TRUE(kv->Flush().ok());
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
