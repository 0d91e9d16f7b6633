// reftab-kv-bench: db_bench-style figures for the key/value store (store/kv/kv_store.h) beside
// LevelDB and RocksDB, in one process, the engines alternating within every run.
//
//   reftab-kv-bench [--num N] [--runs R] [--reads N] [--seeks N] [--syncs N] [--dir DIR]
//                   [--engines LIST]
//
// Keys are 16 bytes ("%016llu" of the key number), values 100 bytes of incompressible
// (pseudo-random) data. Phases as db_bench defines them, each on every engine before the
// next phase:
//   fillseq       N keys in ascending order, one put per write      (fresh store)
//   fillbatch     N keys in ascending order, batches of 1,000        (fresh store)
//   fillsync      --syncs keys (1,000), one synced put per write     (fresh store)
//   fill4         N keys in ascending order, one put per write, from 4 threads at once,
//                 each writing every fourth key                      (fresh store)
//   fill4sync     --syncs keys the same way, each put synced: group commit shares fsyncs
//   deleterandom  N deletes of random keys, one per write            (the fillseq store)
//   fillrandom    N keys in a random permutation, one put per write  (fresh store; kept)
//   overwrite     N puts of random present keys, one per write       (the fillrandom store)
//   readrandom    --reads Gets of random present keys, on a snapshot of the fillrandom store
//                 as the writes left it (reftab: tables and a memtable)
//   compact       a full compaction of it (not timed as a figure)
//   readcompacted readrandom again, after the compaction
//   readlatest    the same Gets of the latest state, without a snapshot
//   readmissing   --reads Gets of absent keys that sort among the present ones (a present
//                 key with "." appended, as db_bench's)
//   readseq       one forward scan over all entries
//   readreverse   one backward scan over all entries (SeekToLast, then Prev)
//   seekrandom    --seeks Seeks to random present keys, each followed by 10 Nexts
// Then, per engine alone, in a fresh process of this program: fillrandom and overwrite on a
// fresh store, closed, for the write amplification (bytes the process passed to write(2)
// while the store was open, /proc/self/io wchar, over the bytes of keys and values written)
// and the peak memory growth (VmHWM at the end less the RSS before opening).
// Every engine with its default durability: nothing synced per write unless the phase says
// so (LevelDB and RocksDB WriteOptions::sync, reftab KvWriteOptions::sync; the log is on in
// all three), the tables they write made durable as each engine does by default (reftab:
// Durability::kGit). Both LSM stores get a 10-bit Bloom filter per key, a 256 MiB block
// cache and no compression (reftab stores values uncompressed too; it builds its own
// filters); otherwise their defaults. Everything but fill4 and fill4sync runs on one thread.
// Output: per run and phase a line "run R phase ENGINE ops/s", then a markdown table of the
// medians over the runs with the ratios first engine/other (above 1: the first, reftab by
// default, is faster).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "store/kv/kv_store.h"

#ifdef REFTAB_KV_BENCH_LEVELDB
#include <leveldb/cache.h>
#include <leveldb/db.h>
#include <leveldb/filter_policy.h>
#include <leveldb/write_batch.h>
#endif
#ifdef REFTAB_KV_BENCH_ROCKSDB
#include <rocksdb/cache.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/table.h>
#include <rocksdb/write_batch.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kValueSize = 100;
constexpr size_t kBatch = 1000;

[[noreturn]] void Die(const std::string& what) {
  std::fprintf(stderr, "reftab-kv-bench: %s\n", what.c_str());
  std::exit(1);
}

std::string KeyOf(uint64_t n) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016llu", static_cast<unsigned long long>(n));
  return buf;
}

// One engine's operations, as db_bench uses them.
class Engine {
 public:
  virtual ~Engine() = default;
  virtual const char* name() const = 0;
  virtual void Open(const std::string& dir) = 0;
  virtual void Close() = 0;
  virtual void Write(const std::vector<std::pair<std::string, std::string>>& batch) = 0;
  // One operation per write.
  virtual void Put(const std::string& key, const std::string& value, bool sync) = 0;
  virtual void Delete(const std::string& key) = 0;
  virtual void Compact() = 0;
  // Readers work on one fixed state, taken by BeginReads (a snapshot).
  virtual void BeginReads() = 0;
  virtual bool Get(const std::string& key, std::string* value) = 0;
  // A read of the latest state, without a snapshot: reftab's KvStore::Get first checks
  // whether another process changed tables.list (one stat()).
  virtual bool GetLatest(const std::string& key, std::string* value) = 0;
  virtual uint64_t Scan() = 0;                                       // entries seen
  virtual uint64_t ScanReverse() = 0;                                // entries seen
  virtual uint64_t SeekNext(const std::string& key, int nexts) = 0;  // entries seen
};

class ReftabEngine : public Engine {
 public:
  const char* name() const override { return "reftab"; }
  void Open(const std::string& dir) override {
    reftab::KvOptions o;  // the defaults
    auto kv = reftab::KvStore::Open(dir, o);
    if (!kv.ok()) Die(kv.status().ToString());
    kv_ = std::move(*kv);
  }
  void Close() override {
    it_.reset();
    snap_.reset();
    kv_.reset();
  }
  void Write(const std::vector<std::pair<std::string, std::string>>& batch) override {
    reftab::KvWriteBatch b;
    for (const auto& [k, v] : batch) b.Put(k, v);
    Check(kv_->Write(b));
  }
  void Put(const std::string& key, const std::string& value, bool sync) override {
    Check(kv_->Put(key, value, reftab::KvWriteOptions{.sync = sync}));
  }
  void Delete(const std::string& key) override { Check(kv_->Delete(key)); }
  void Compact() override { Check(kv_->CompactAll()); }
  void BeginReads() override {
    auto s = kv_->GetSnapshot();
    if (!s.ok()) Die(s.status().ToString());
    it_.reset();
    snap_.emplace(std::move(*s));
  }
  bool Get(const std::string& key, std::string* value) override {
    bool found = false;
    Check(snap_->Get(key, value, &found));
    return found;
  }
  bool GetLatest(const std::string& key, std::string* value) override {
    bool found = false;
    Check(kv_->Get(key, value, &found));
    return found;
  }
  uint64_t Scan() override {
    reftab::KvIterator it = snap_->NewIterator();
    Check(it.SeekToFirst());
    uint64_t n = 0;
    for (; it.Valid(); it.Next()) n += it.value().size() == kValueSize;
    Check(it.status());
    return n;
  }
  uint64_t ScanReverse() override {
    reftab::KvIterator it = snap_->NewIterator();
    Check(it.SeekToLast());
    uint64_t n = 0;
    for (; it.Valid(); it.Prev()) n += it.value().size() == kValueSize;
    Check(it.status());
    return n;
  }
  uint64_t SeekNext(const std::string& key, int nexts) override {
    if (!it_) it_.emplace(snap_->NewIterator());
    Check(it_->Seek(key));
    uint64_t n = 0;
    for (int i = 0; i <= nexts && it_->Valid(); ++i, it_->Next()) ++n;
    return n;
  }

 private:
  static void Check(const reftab::Status& s) {
    if (!s.ok()) Die(s.ToString());
  }
  std::unique_ptr<reftab::KvStore> kv_;
  std::optional<reftab::KvSnapshot> snap_;
  std::optional<reftab::KvIterator> it_;
};

#ifdef REFTAB_KV_BENCH_LEVELDB
class LevelDbEngine : public Engine {
 public:
  const char* name() const override { return "leveldb"; }
  void Open(const std::string& dir) override {
    filter_.reset(leveldb::NewBloomFilterPolicy(10));
    cache_.reset(leveldb::NewLRUCache(256 << 20));
    leveldb::Options o;
    o.create_if_missing = true;
    o.compression = leveldb::kNoCompression;
    o.filter_policy = filter_.get();
    o.block_cache = cache_.get();
    leveldb::DB* db = nullptr;
    Check(leveldb::DB::Open(o, dir, &db));
    db_.reset(db);
  }
  void Close() override {
    EndReads();
    db_.reset();
  }
  void Write(const std::vector<std::pair<std::string, std::string>>& batch) override {
    leveldb::WriteBatch b;
    for (const auto& [k, v] : batch) b.Put(k, v);
    Check(db_->Write(leveldb::WriteOptions(), &b));  // sync = false
  }
  void Put(const std::string& key, const std::string& value, bool sync) override {
    leveldb::WriteOptions w;
    w.sync = sync;
    Check(db_->Put(w, key, value));
  }
  void Delete(const std::string& key) override { Check(db_->Delete(leveldb::WriteOptions(), key)); }
  void Compact() override { db_->CompactRange(nullptr, nullptr); }
  void BeginReads() override {
    EndReads();
    snap_ = db_->GetSnapshot();
    ro_.snapshot = snap_;
  }
  bool Get(const std::string& key, std::string* value) override {
    leveldb::Status s = db_->Get(ro_, key, value);
    if (s.IsNotFound()) return false;
    Check(s);
    return true;
  }
  bool GetLatest(const std::string& key, std::string* value) override {
    leveldb::Status s = db_->Get(leveldb::ReadOptions(), key, value);
    if (s.IsNotFound()) return false;
    Check(s);
    return true;
  }
  uint64_t Scan() override {
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ro_));
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) n += it->value().size() == kValueSize;
    Check(it->status());
    return n;
  }
  uint64_t ScanReverse() override {
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ro_));
    uint64_t n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) n += it->value().size() == kValueSize;
    Check(it->status());
    return n;
  }
  uint64_t SeekNext(const std::string& key, int nexts) override {
    if (!it_) it_.reset(db_->NewIterator(ro_));
    uint64_t n = 0;
    it_->Seek(key);
    for (int i = 0; i <= nexts && it_->Valid(); ++i, it_->Next()) ++n;
    return n;
  }

 private:
  void EndReads() {
    it_.reset();
    if (snap_) db_->ReleaseSnapshot(snap_);
    snap_ = nullptr;
    ro_ = leveldb::ReadOptions();
  }
  static void Check(const leveldb::Status& s) {
    if (!s.ok()) Die("leveldb: " + s.ToString());
  }
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::Cache> cache_;
  std::unique_ptr<leveldb::DB> db_;
  const leveldb::Snapshot* snap_ = nullptr;
  leveldb::ReadOptions ro_;
  std::unique_ptr<leveldb::Iterator> it_;
};
#endif

#ifdef REFTAB_KV_BENCH_ROCKSDB
class RocksDbEngine : public Engine {
 public:
  const char* name() const override { return "rocksdb"; }
  void Open(const std::string& dir) override {
    rocksdb::BlockBasedTableOptions t;
    t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
    t.block_cache = rocksdb::NewLRUCache(256 << 20);
    rocksdb::Options o;
    o.create_if_missing = true;
    o.compression = rocksdb::kNoCompression;
    o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    rocksdb::DB* db = nullptr;
    Check(rocksdb::DB::Open(o, dir, &db));
    db_.reset(db);
  }
  void Close() override {
    EndReads();
    db_.reset();
  }
  void Write(const std::vector<std::pair<std::string, std::string>>& batch) override {
    rocksdb::WriteBatch b;
    for (const auto& [k, v] : batch) b.Put(k, v);
    Check(db_->Write(rocksdb::WriteOptions(), &b));  // sync = false
  }
  void Put(const std::string& key, const std::string& value, bool sync) override {
    rocksdb::WriteOptions w;
    w.sync = sync;
    Check(db_->Put(w, key, value));
  }
  void Delete(const std::string& key) override { Check(db_->Delete(rocksdb::WriteOptions(), key)); }
  void Compact() override {
    Check(db_->CompactRange(rocksdb::CompactRangeOptions(), nullptr, nullptr));
  }
  void BeginReads() override {
    EndReads();
    snap_ = db_->GetSnapshot();
    ro_.snapshot = snap_;
  }
  bool Get(const std::string& key, std::string* value) override {
    rocksdb::Status s = db_->Get(ro_, key, value);
    if (s.IsNotFound()) return false;
    Check(s);
    return true;
  }
  bool GetLatest(const std::string& key, std::string* value) override {
    rocksdb::Status s = db_->Get(rocksdb::ReadOptions(), key, value);
    if (s.IsNotFound()) return false;
    Check(s);
    return true;
  }
  uint64_t Scan() override {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro_));
    uint64_t n = 0;
    for (it->SeekToFirst(); it->Valid(); it->Next()) n += it->value().size() == kValueSize;
    Check(it->status());
    return n;
  }
  uint64_t ScanReverse() override {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro_));
    uint64_t n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) n += it->value().size() == kValueSize;
    Check(it->status());
    return n;
  }
  uint64_t SeekNext(const std::string& key, int nexts) override {
    if (!it_) it_.reset(db_->NewIterator(ro_));
    uint64_t n = 0;
    it_->Seek(key);
    for (int i = 0; i <= nexts && it_->Valid(); ++i, it_->Next()) ++n;
    return n;
  }

 private:
  void EndReads() {
    it_.reset();
    if (snap_) db_->ReleaseSnapshot(snap_);
    snap_ = nullptr;
    ro_ = rocksdb::ReadOptions();
  }
  static void Check(const rocksdb::Status& s) {
    if (!s.ok()) Die("rocksdb: " + s.ToString());
  }
  std::unique_ptr<rocksdb::DB> db_;
  const rocksdb::Snapshot* snap_ = nullptr;
  rocksdb::ReadOptions ro_;
  std::unique_ptr<rocksdb::Iterator> it_;
};
#endif

struct Config {
  uint64_t num = 1000000;
  uint64_t reads = 1000000;
  uint64_t seeks = 100000;
  uint64_t syncs = 1000;
  int runs = 3;
  std::string dir = "/tmp/reftab-kv-bench";
  std::string engines = "reftab,leveldb,rocksdb";
  int measure_writes = 0;  // > 0: only Bench::MeasureWrites of that run (internal)
};

// Incompressible value bytes: value i is a 100-byte window of one random buffer.
class Values {
 public:
  Values() : buf_(1 << 20, '\0') {
    std::mt19937_64 rng(301);
    for (char& c : buf_) c = char(rng());
  }
  std::string Of(uint64_t i) const {
    return buf_.substr((i * 7919) % (buf_.size() - kValueSize), kValueSize);
  }

 private:
  std::string buf_;
};

double Seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// One put per write, in `order`.
void FillOneByOne(Engine& e, const std::vector<uint64_t>& order, const Values& values,
                  bool sync = false) {
  for (uint64_t i : order) e.Put(KeyOf(i), values.Of(i), sync);
}

// One put per write from `threads` threads, thread t writing order[t], order[t + threads], ...
void FillThreads(Engine& e, const std::vector<uint64_t>& order, const Values& values, bool sync,
                 int threads) {
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (size_t i = size_t(t); i < order.size(); i += size_t(threads)) {
        e.Put(KeyOf(order[i]), values.Of(order[i]), sync);
      }
    });
  }
  for (auto& th : pool) th.join();
}

// A field of /proc/self/io or /proc/self/status ("wchar:", "VmHWM:", "VmRSS:"): its first
// number (kB for the memory ones), 0 if absent.
uint64_t ProcField(const char* file, const char* field) {
  FILE* f = std::fopen(file, "r");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t v = 0;
  const size_t n = std::strlen(field);
  while (std::fgets(line, sizeof line, f)) {
    if (std::strncmp(line, field, n) == 0) {
      v = std::strtoull(line + n, nullptr, 10);
      break;
    }
  }
  std::fclose(f);
  return v;
}

void Fill(Engine& e, const std::vector<uint64_t>& order, const Values& values) {
  std::vector<std::pair<std::string, std::string>> batch;
  for (size_t i = 0; i < order.size(); ++i) {
    batch.emplace_back(KeyOf(order[i]), values.Of(order[i]));
    if (batch.size() == kBatch || i + 1 == order.size()) {
      e.Write(batch);
      batch.clear();
    }
  }
}

// The read phases, out of line under names of their own, so that callgrind's inclusive
// counts give instructions per phase (run one engine at a time: --engines NAME).
using Keys = std::vector<std::string>;
[[gnu::noinline]] uint64_t ReadRandomPhase(Engine& e, const Keys& keys) {
  std::string v;
  uint64_t found = 0;
  for (const std::string& k : keys) found += e.Get(k, &v) && v.size() == kValueSize;
  return found;
}
[[gnu::noinline]] uint64_t ReadLatestPhase(Engine& e, const Keys& keys) {
  std::string v;
  uint64_t found = 0;
  for (const std::string& k : keys) found += e.GetLatest(k, &v) && v.size() == kValueSize;
  return found;
}
[[gnu::noinline]] uint64_t ReadMissingPhase(Engine& e, const Keys& keys) {
  std::string v;
  uint64_t absent = 0;
  for (const std::string& k : keys) absent += !e.Get(k, &v);
  return absent;
}
[[gnu::noinline]] uint64_t ReadSeqPhase(Engine& e) { return e.Scan(); }
[[gnu::noinline]] uint64_t ReadReversePhase(Engine& e) { return e.ScanReverse(); }
[[gnu::noinline]] uint64_t SeekRandomPhase(Engine& e, const Keys& keys) {
  uint64_t seen = 0;
  for (const std::string& k : keys) seen += e.SeekNext(k, 10) > 0;
  return seen;
}

// ops/s of one phase on one engine; `expect` guards against an engine that did nothing.
using Phase = std::function<uint64_t(Engine&)>;

struct Bench {
  Config cfg;
  Values values;
  std::vector<std::unique_ptr<Engine>> engines;
  std::map<std::string, std::map<std::string, std::vector<double>>> results;  // phase, engine
  // Per engine: write amplification and peak memory growth (MiB), one value per run.
  std::map<std::string, std::vector<double>> write_amp, peak_mib;
  std::vector<std::string> phase_order;

  void Record(int run, const std::string& phase, const Engine& e, uint64_t ops, double secs) {
    double rate = double(ops) / secs;
    std::printf("run %d %-12s %-8s %12.0f ops/s\n", run, phase.c_str(), e.name(), rate);
    std::fflush(stdout);
    if (std::find(phase_order.begin(), phase_order.end(), phase) == phase_order.end()) {
      phase_order.push_back(phase);
    }
    results[phase][e.name()].push_back(rate);
  }

  // Runs `body` on every engine, timing it; `ops` is what it reports (checked against
  // `expect`).
  void Timed(int run, const std::string& phase, uint64_t expect, const Phase& body) {
    for (auto& e : engines) {
      auto t0 = Clock::now();
      uint64_t ops = body(*e);
      double secs = Seconds(Clock::now() - t0);
      if (ops != expect) {
        Die(phase + " on " + e->name() + ": " + std::to_string(ops) + " ops, expected " +
            std::to_string(expect));
      }
      Record(run, phase, *e, ops, secs);
    }
  }

  std::string DirOf(const Engine& e, const char* what) const {
    return cfg.dir + "/" + e.name() + "-" + what;
  }

  std::string self;  // this program, for the per-engine measurements
  void RunOnce(int run);
  void MeasureWrites(int run);
  void Report() const;
};

void RemoveDir(const std::string& dir) {
  std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) Die("cannot remove " + dir);
}

void Bench::RunOnce(int run) {
  const uint64_t n = cfg.num;
  std::vector<uint64_t> seq(n);
  for (uint64_t i = 0; i < n; ++i) seq[i] = i;
  std::vector<uint64_t> perm = seq;
  std::mt19937_64 rng(1000 + uint64_t(run));
  std::shuffle(perm.begin(), perm.end(), rng);

  std::vector<uint64_t> randoms(n);  // keys for overwrite and deleterandom
  for (uint64_t& r : randoms) r = rng() % n;
  std::vector<uint64_t> sync_keys(seq.begin(), seq.begin() + long(std::min(cfg.syncs, n)));

  for (auto& e : engines) {
    for (const char* what : {"seq", "batch", "sync", "random", "threads", "threads-sync", "wamp"}) {
      RemoveDir(DirOf(*e, what));
    }
  }
  Timed(run, "fillseq", n, [&](Engine& e) {
    e.Open(DirOf(e, "seq"));
    FillOneByOne(e, seq, values);
    e.Close();
    return n;
  });
  Timed(run, "fillbatch", n, [&](Engine& e) {
    e.Open(DirOf(e, "batch"));
    Fill(e, seq, values);
    e.Close();
    return n;
  });
  Timed(run, "fillsync", sync_keys.size(), [&](Engine& e) {
    e.Open(DirOf(e, "sync"));
    FillOneByOne(e, sync_keys, values, /*sync=*/true);
    e.Close();
    return sync_keys.size();
  });
  std::vector<uint64_t> seq_sync(sync_keys);
  Timed(run, "fill4", n, [&](Engine& e) {
    e.Open(DirOf(e, "threads"));
    FillThreads(e, seq, values, /*sync=*/false, 4);
    e.Close();
    return n;
  });
  Timed(run, "fill4sync", seq_sync.size(), [&](Engine& e) {
    e.Open(DirOf(e, "threads-sync"));
    FillThreads(e, seq_sync, values, /*sync=*/true, 4);
    e.Close();
    return seq_sync.size();
  });
  Timed(run, "deleterandom", n, [&](Engine& e) {
    e.Open(DirOf(e, "seq"));
    for (uint64_t r : randoms) e.Delete(KeyOf(r));
    e.Close();
    return n;
  });
  Timed(run, "fillrandom", n, [&](Engine& e) {
    e.Open(DirOf(e, "random"));
    FillOneByOne(e, perm, values);
    return n;
  });
  Timed(run, "overwrite", n, [&](Engine& e) {
    for (uint64_t r : randoms) e.Put(KeyOf(r), values.Of(r + 1), false);
    return n;
  });
  std::vector<uint64_t> probes(cfg.reads);
  for (uint64_t& p : probes) p = rng() % n;
  std::vector<std::string> present, missing;
  for (uint64_t p : probes) present.push_back(KeyOf(p));
  for (uint64_t p : probes) missing.push_back(KeyOf(p) + ".");
  for (auto& e : engines) e->BeginReads();
  Timed(run, "readrandom", cfg.reads, [&](Engine& e) { return ReadRandomPhase(e, present); });
  for (auto& e : engines) {
    e->Compact();
    e->BeginReads();
  }
  Timed(run, "readcompacted", cfg.reads, [&](Engine& e) { return ReadRandomPhase(e, present); });
  Timed(run, "readlatest", cfg.reads, [&](Engine& e) { return ReadLatestPhase(e, present); });
  Timed(run, "readmissing", cfg.reads, [&](Engine& e) { return ReadMissingPhase(e, missing); });
  Timed(run, "readseq", n, [&](Engine& e) { return ReadSeqPhase(e); });
  Timed(run, "readreverse", n, [&](Engine& e) { return ReadReversePhase(e); });
  std::vector<std::string> seeks(present.begin(),
                                 present.begin() + long(std::min(cfg.seeks, cfg.reads)));
  Timed(run, "seekrandom", seeks.size(), [&](Engine& e) { return SeekRandomPhase(e, seeks); });
  for (auto& e : engines) e->Close();
  // Each engine alone, in a fresh process of this program (so that no other engine's memory
  // or background thread counts): what it writes for fillrandom + overwrite, and its memory.
  for (auto& e : engines) {
    std::string cmd = "'" + self + "' --num " + std::to_string(n) + " --dir '" + DirOf(*e, "wamp") +
                      "' --engines " + e->name() + " --measure-writes " + std::to_string(run);
    FILE* child = popen(cmd.c_str(), "r");
    if (child == nullptr) Die("cannot run " + cmd);
    double amp = 0, mib = 0;
    const int got = std::fscanf(child, "%lf %lf", &amp, &mib);
    if (pclose(child) != 0 || got != 2) Die("no figures from " + cmd);
    std::printf("run %d %-12s %-8s write amplification %.2f, peak memory +%.1f MiB\n", run,
                "fill+overwrite", e->name(), amp, mib);
    write_amp[e->name()].push_back(amp);
    peak_mib[e->name()].push_back(mib);
  }
}

// --measure-writes RUN: fillrandom and overwrite of --num keys by the one engine of
// --engines in --dir (the same keys and values as that run's phases); prints "AMP MIB": the
// bytes passed to write(2) over the bytes of keys and values, and the peak RSS growth.
void Bench::MeasureWrites(int run) {
  const uint64_t n = cfg.num;
  std::vector<uint64_t> perm(n);
  for (uint64_t i = 0; i < n; ++i) perm[i] = i;
  std::mt19937_64 rng(1000 + uint64_t(run));
  std::shuffle(perm.begin(), perm.end(), rng);
  std::vector<uint64_t> randoms(n);
  for (uint64_t& r : randoms) r = rng() % n;
  Engine& e = *engines[0];
  const uint64_t rss_kb = ProcField("/proc/self/status", "VmRSS:");
  const uint64_t written = ProcField("/proc/self/io", "wchar:");
  e.Open(cfg.dir);
  FillOneByOne(e, perm, values);
  for (uint64_t r : randoms) e.Put(KeyOf(r), values.Of(r + 1), false);
  e.Close();
  const uint64_t wrote = ProcField("/proc/self/io", "wchar:") - written;
  const uint64_t hwm_kb = ProcField("/proc/self/status", "VmHWM:");
  const double user_bytes = double(2 * n * (KeyOf(0).size() + kValueSize));
  std::printf("%.3f %.1f\n", double(wrote) / user_bytes,
              hwm_kb > rss_kb ? double(hwm_kb - rss_kb) / 1024 : 0.0);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

void Bench::Report() const {
  std::printf(
      "\nmedian ops/s over %d runs (N=%llu, %zu-byte values, fillbatch in batches of %zu, "
      "fillsync %llu puts):\n\n",
      cfg.runs, static_cast<unsigned long long>(cfg.num), kValueSize, kBatch,
      static_cast<unsigned long long>(cfg.syncs));
  std::printf("| phase |");
  for (const auto& e : engines) std::printf(" %s |", e->name());
  for (size_t i = 1; i < engines.size(); ++i) {
    std::printf(" %s/%s |", engines[0]->name(), engines[i]->name());
  }
  std::printf("\n|---|");
  for (size_t i = 0; i < 2 * engines.size() - 1; ++i) std::printf("---:|");
  std::printf("\n");
  for (const std::string& phase : phase_order) {
    const auto& by_engine = results.at(phase);
    std::printf("| %s |", phase.c_str());
    for (const auto& e : engines) std::printf(" %.0f |", Median(by_engine.at(e->name())));
    double ours = Median(by_engine.at(engines[0]->name()));  // the first engine's
    for (size_t i = 1; i < engines.size(); ++i) {
      std::printf(" %.2f |", ours / Median(by_engine.at(engines[i]->name())));
    }
    std::printf("\n");
  }
  std::printf(
      "\nfillrandom + overwrite on a fresh store, each engine alone (median): bytes passed to "
      "write(2) / bytes of keys and values, and peak RSS growth:\n\n| engine | write "
      "amplification | peak memory (MiB) |\n|---|---:|---:|\n");
  for (const auto& e : engines) {
    std::printf("| %s | %.2f | %.1f |\n", e->name(), Median(write_amp.at(e->name())),
                Median(peak_mib.at(e->name())));
  }
}

std::unique_ptr<Engine> MakeEngine(const std::string& name) {
  if (name == "reftab") return std::make_unique<ReftabEngine>();
#ifdef REFTAB_KV_BENCH_LEVELDB
  if (name == "leveldb") return std::make_unique<LevelDbEngine>();
#endif
#ifdef REFTAB_KV_BENCH_ROCKSDB
  if (name == "rocksdb") return std::make_unique<RocksDbEngine>();
#endif
  std::fprintf(stderr, "reftab-kv-bench: %s is not built in: skipped\n", name.c_str());
  return nullptr;
}

Config ParseArgs(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (i + 1 >= argc) Die("usage: see the comment at the top of perf/kv_bench.cc");
    std::string v = argv[++i];
    if (a == "--num") {
      c.num = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--reads") {
      c.reads = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--seeks") {
      c.seeks = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--syncs") {
      c.syncs = std::strtoull(v.c_str(), nullptr, 10);
    } else if (a == "--runs") {
      c.runs = std::atoi(v.c_str());
    } else if (a == "--dir") {
      c.dir = v;
    } else if (a == "--engines") {
      c.engines = v;
    } else if (a == "--measure-writes") {
      c.measure_writes = std::atoi(v.c_str());
    } else {
      Die("unknown option " + a);
    }
  }
  if (c.num == 0 || c.reads == 0 || c.runs <= 0) Die("--num, --reads and --runs must be > 0");
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Bench b;
  b.cfg = ParseArgs(argc, argv);
  size_t from = 0;
  const std::string& list = b.cfg.engines;
  while (from <= list.size()) {
    size_t to = list.find(',', from);
    if (to == std::string::npos) to = list.size();
    if (auto e = MakeEngine(list.substr(from, to - from))) b.engines.push_back(std::move(e));
    from = to + 1;
  }
  if (b.engines.empty()) Die("no engine to run");
  if (b.cfg.measure_writes > 0) {
    RemoveDir(b.cfg.dir);
    b.MeasureWrites(b.cfg.measure_writes);
    RemoveDir(b.cfg.dir);
    return 0;
  }
  b.self = argv[0];
  RemoveDir(b.cfg.dir);
  if (std::system(("mkdir -p '" + b.cfg.dir + "'").c_str()) != 0) Die("cannot create --dir");
  for (int run = 1; run <= b.cfg.runs; ++run) b.RunOnce(run);
  b.Report();
  RemoveDir(b.cfg.dir);
  return 0;
}
