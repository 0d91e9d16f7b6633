// reftab-kv-bench: db_bench-style figures for the key/value store (store/kv/kv_store.h) beside
// LevelDB and RocksDB, in one process.
//
//   reftab-kv-bench [--num N] [--value-size BYTES] [--reads N] [--seeks N] [--syncs N]
//                   [--runs R] [--dir DIR] [--engines LIST] [--order auto|phase|engine]
//                   [--phases LIST]
//
// Keys are 16 bytes ("%016llu" of the key number), values --value-size bytes (100) of
// incompressible (pseudo-random) data; --num keys (1M). --engines lists configurations
// (default all five): reftab (its defaults; it always builds its own per-table hash index
// and filters), leveldb and rocksdb (each library's defaults: no filter, 8 MiB block cache,
// Snappy), leveldb-bloom and rocksdb-bloom (the same plus a Bloom filter of 10 bits per key,
// as db_bench's --bloom_bits=10). Phases as db_bench defines them, in one of two orders
// (--order; every engine runs every phase in both, on the same keys and values):
//   phase   each phase on every engine before the next phase (the engines alternate
//           within a run, so that a change of the machine's load hits them alike); the
//           stores of one phase, one per engine, are on disk at the same time;
//   engine  every phase on one engine, then every phase on the next: one engine's store is
//           on disk at a time, for sizes whose stores do not fit side by side (100,000 x
//           100 KiB: 10 GB of keys and values per store);
//   auto    (the default) phase when the disk under --dir holds one store per engine,
//           engine when it holds only one (see ChooseEngineOrder), else the run refuses to
//           start.
// The phases:
//   fillseq       N keys in ascending order, one put per write      (fresh store)
//   deleterandom  N deletes of random keys, one per write            (the fillseq store)
//   fillbatch     N keys in ascending order, batches of 1,000        (fresh store)
//   fillsync      --syncs keys (1,000), one synced put per write     (fresh store)
//   fill4         N keys in ascending order, one put per write, from 4 threads at once,
//                 each writing every fourth key                      (fresh store)
//   fill4sync     --syncs keys the same way, each put synced: group commit shares fsyncs
//   fillrandom    N keys in a random permutation, one put per write  (fresh store; kept)
//   overwrite     N puts of random present keys, one per write       (the fillrandom store)
//   readrandom    --reads (N) Gets of random present keys, on a snapshot of the fillrandom
//                 store as the writes left it (reftab: tables and a memtable)
//   compact       a full compaction of it (not timed as a figure)
//   readcompacted readrandom again, after the compaction
//   readlatest    the same Gets of the latest state, without a snapshot
//   readmissing   --reads Gets of absent keys that sort among the present ones (a present
//                 key with "." appended, as db_bench's)
//   readseq       one forward scan over all entries
//   readreverse   one backward scan over all entries (SeekToLast, then Prev)
//   seekrandom    --seeks (--reads) Seeks to random present keys, each followed by 10 Nexts.
//                 A short phase measures the switch from the other engines more than the
//                 seeks (a 2-core VM, 1M keys, 2026-12-06): 100,000 seeks ran at 887,000/s
//                 in engine order and 250,000-370,000/s in phase order for reftab, 328,000-
//                 374,000 and 217,000-225,000 for LevelDB; 1M seeks in phase order, 524,000
//                 and 220,000
// --phases (default all) lists the phases to time and print, and "wamp" for the write
// amplification and memory figures below; a phase another listed one needs still runs
// (fillseq for deleterandom, fillrandom and overwrite for the reads), untimed.
// Each store is removed after its last phase. Then, per engine alone, in a fresh process of
// this program: fillrandom and overwrite on a fresh store, closed, for the write
// amplification (bytes the process passed to write(2) while the store was open,
// /proc/self/io wchar, over the bytes of keys and values written) and the peak memory growth
// (VmHWM at the end less the RSS before opening).
// Every engine with its default durability: nothing synced per write unless the phase says
// so (LevelDB and RocksDB WriteOptions::sync, reftab KvWriteOptions::sync; the log is on in
// all three), the tables they write made durable as each engine does by default (reftab:
// Durability::kGit). Everything but fill4 and fill4sync runs on one thread.
// Output: per run, phase and engine a line "run R phase ENGINE ops/s" (in the order they
// ran), then a markdown table of the medians over the runs, in db_bench's order, with the
// first engine's (reftab's) ratio to the better default peer and to the better Bloom peer
// (above 1: the first is faster).
#include <sys/statvfs.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
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
  // The configuration's name, as --engines takes it and the tables print it.
  virtual const char* name() const = 0;
  // The size of every value written: what the reads check they got.
  size_t value_size = 100;
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
    for (; it.Valid(); it.Next()) n += it.value().size() == value_size;
    Check(it.status());
    return n;
  }
  uint64_t ScanReverse() override {
    reftab::KvIterator it = snap_->NewIterator();
    Check(it.SeekToLast());
    uint64_t n = 0;
    for (; it.Valid(); it.Prev()) n += it.value().size() == value_size;
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
  // LevelDB's defaults (8 MiB block cache, Snappy), with `bloom`: its 10-bit Bloom filter
  // per key too, as db_bench's --bloom_bits=10.
  explicit LevelDbEngine(bool bloom) : bloom_(bloom) {}
  const char* name() const override { return bloom_ ? "leveldb-bloom" : "leveldb"; }
  void Open(const std::string& dir) override {
    leveldb::Options o;
    o.create_if_missing = true;
    if (bloom_) {
      filter_.reset(leveldb::NewBloomFilterPolicy(10));
      o.filter_policy = filter_.get();
    }
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
    for (it->SeekToFirst(); it->Valid(); it->Next()) n += it->value().size() == value_size;
    Check(it->status());
    return n;
  }
  uint64_t ScanReverse() override {
    std::unique_ptr<leveldb::Iterator> it(db_->NewIterator(ro_));
    uint64_t n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) n += it->value().size() == value_size;
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
  bool bloom_;
  std::unique_ptr<const leveldb::FilterPolicy> filter_;
  std::unique_ptr<leveldb::DB> db_;
  const leveldb::Snapshot* snap_ = nullptr;
  leveldb::ReadOptions ro_;
  std::unique_ptr<leveldb::Iterator> it_;
};
#endif

#ifdef REFTAB_KV_BENCH_ROCKSDB
class RocksDbEngine : public Engine {
 public:
  // RocksDB's defaults (its block-based table with an 8 MiB block cache, Snappy), with
  // `bloom`: its 10-bit Bloom filter per key too, as db_bench's --bloom_bits=10.
  explicit RocksDbEngine(bool bloom) : bloom_(bloom) {}
  const char* name() const override { return bloom_ ? "rocksdb-bloom" : "rocksdb"; }
  void Open(const std::string& dir) override {
    rocksdb::Options o;
    o.create_if_missing = true;
    if (bloom_) {
      rocksdb::BlockBasedTableOptions t;
      t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(10));
      o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
    }
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
    for (it->SeekToFirst(); it->Valid(); it->Next()) n += it->value().size() == value_size;
    Check(it->status());
    return n;
  }
  uint64_t ScanReverse() override {
    std::unique_ptr<rocksdb::Iterator> it(db_->NewIterator(ro_));
    uint64_t n = 0;
    for (it->SeekToLast(); it->Valid(); it->Prev()) n += it->value().size() == value_size;
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
  bool bloom_;
  std::unique_ptr<rocksdb::DB> db_;
  const rocksdb::Snapshot* snap_ = nullptr;
  rocksdb::ReadOptions ro_;
  std::unique_ptr<rocksdb::Iterator> it_;
};
#endif

struct Config {
  uint64_t num = 1000000;
  uint64_t value_size = 100;
  uint64_t reads = 0;  // 0: --num, as db_bench's
  uint64_t seeks = 0;  // 0: --reads, as db_bench's seekrandom (it seeks --reads times)
  uint64_t syncs = 1000;
  int runs = 3;
  std::string dir = "/tmp/reftab-kv-bench";
  std::string engines = "reftab,leveldb,leveldb-bloom,rocksdb,rocksdb-bloom";
  std::string order = "auto";  // auto, phase or engine (see the top of this file)
  int measure_writes = 0;      // > 0: only Bench::MeasureWrites of that run (internal)
  std::string phases;          // comma-separated; empty: all
  // Whether --phases asks for `phase`.
  bool Wants(std::string_view phase) const {
    if (phases.empty()) return true;
    std::string_view list = phases;
    while (!list.empty()) {
      const size_t comma = list.find(',');
      if (list.substr(0, comma) == phase) return true;
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    return false;
  }
};

// Incompressible value bytes: value i is a window of `size` bytes of one random buffer.
class Values {
 public:
  explicit Values(size_t size) : size_(size), buf_(std::max<size_t>(1 << 20, 4 * size), '\0') {
    std::mt19937_64 rng(301);
    for (char& c : buf_) c = char(rng());
  }
  std::string Of(uint64_t i) const {
    return buf_.substr((i * 7919) % (buf_.size() - size_), size_);
  }
  size_t size() const { return size_; }

 private:
  size_t size_;
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
  for (const std::string& k : keys) found += e.Get(k, &v) && v.size() == e.value_size;
  return found;
}
[[gnu::noinline]] uint64_t ReadLatestPhase(Engine& e, const Keys& keys) {
  std::string v;
  uint64_t found = 0;
  for (const std::string& k : keys) found += e.GetLatest(k, &v) && v.size() == e.value_size;
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

// The keys of one run, the same for every engine whatever the order.
struct RunData {
  std::vector<uint64_t> seq;        // 0 .. N-1
  std::vector<uint64_t> perm;       // fillrandom's order
  std::vector<uint64_t> randoms;    // keys for overwrite and deleterandom
  std::vector<uint64_t> sync_keys;  // fillsync's and fill4sync's
  std::vector<std::string> present, missing, seeks;
};

struct Bench {
  explicit Bench(const Config& c) : cfg(c), values(c.value_size) {}
  Config cfg;
  Values values;
  std::vector<std::unique_ptr<Engine>> engines;
  std::map<std::string, std::map<std::string, std::vector<double>>> results;  // phase, engine
  // Per engine: write amplification and peak memory growth (MiB), one value per run.
  std::map<std::string, std::vector<double>> write_amp, peak_mib;

  void Record(int run, const std::string& phase, const Engine& e, uint64_t ops, double secs) {
    double rate = double(ops) / secs;
    std::printf("run %d %-13s %-13s %12.0f ops/s\n", run, phase.c_str(), e.name(), rate);
    std::fflush(stdout);
    results[phase][e.name()].push_back(rate);
  }

  // Runs `body` on every engine, timing it; `ops` is what it reports (checked against
  // `expect`). A phase --phases does not list runs all the same, unrecorded.
  void Timed(int run, const std::string& phase, uint64_t expect, const Phase& body) {
    for (Engine* e : group) {
      auto t0 = Clock::now();
      uint64_t ops = body(*e);
      double secs = Seconds(Clock::now() - t0);
      if (ops != expect) {
        Die(phase + " on " + e->name() + ": " + std::to_string(ops) + " ops, expected " +
            std::to_string(expect));
      }
      if (cfg.Wants(phase)) Record(run, phase, *e, ops, secs);
    }
  }

  std::string DirOf(const Engine& e, const char* what) const {
    return cfg.dir + "/" + e.name() + "-" + what;
  }

  // The engines the phases run on now: all of them (--order phase) or one (engine).
  std::vector<Engine*> group;
  bool engine_order = false;  // --order engine, or auto when the disk says so

  std::string self;  // this program, for the per-engine measurements
  void RunOnce(int run);
  void RunPhases(int run, const RunData& d);
  void MeasureWrites(int run);
  void Report() const;
};

// What one engine's stores need on disk at most, counted as 3 times the keys and values: the
// random store holds the fillrandom data plus the overwrite's (up to twice the data, as an
// LSM tree keeps overwritten values until a compaction reaches them), and a compaction
// writes its output before it removes its input (reftab's full compaction: all of it).
// The other phases' stores (one copy of the data, and tombstones) need less.
double BytesPerEngine(const Config& cfg) {
  return 3.0 * double(cfg.num) * double(16 + cfg.value_size);
}

// Picks the order of --order auto (see the top of this file) and refuses to start a run the
// disk under `dir` cannot hold in the order chosen: phase order keeps one store per engine
// on disk at a time, engine order one store.
bool ChooseEngineOrder(const Config& cfg, size_t engines) {
  struct statvfs fs {};
  if (::statvfs(cfg.dir.c_str(), &fs) != 0) Die("cannot statvfs " + cfg.dir);
  const double free_bytes = double(fs.f_bavail) * double(fs.f_frsize);
  const double one = BytesPerEngine(cfg);
  const double side_by_side = one * double(engines);
  bool engine_order;
  if (cfg.order == "phase") {
    engine_order = false;
  } else if (cfg.order == "engine") {
    engine_order = true;
  } else {
    engine_order = side_by_side > free_bytes;
  }
  const double need = engine_order ? one : side_by_side;
  if (need <= free_bytes) return engine_order;
  char msg[320];
  std::snprintf(msg, sizeof msg,
                "%.1f GB needed in %s (%s order: %zu x 3 x N x (key + value)), %.1f GB free: "
                "use --num %.0f or less, or another --dir",
                need / 1e9, cfg.dir.c_str(), engine_order ? "engine" : "phase",
                engine_order ? size_t(1) : engines, free_bytes / 1e9,
                double(cfg.num) * free_bytes / need);
  Die(msg);
}

void RemoveDir(const std::string& dir) {
  std::string cmd = "rm -rf '" + dir + "'";
  if (std::system(cmd.c_str()) != 0) Die("cannot remove " + dir);
}

void Bench::RunOnce(int run) {
  const uint64_t n = cfg.num;
  RunData d;
  d.seq.resize(n);
  for (uint64_t i = 0; i < n; ++i) d.seq[i] = i;
  d.perm = d.seq;
  std::mt19937_64 rng(1000 + uint64_t(run));
  std::shuffle(d.perm.begin(), d.perm.end(), rng);
  d.randoms.resize(n);
  for (uint64_t& r : d.randoms) r = rng() % n;
  d.sync_keys.assign(d.seq.begin(), d.seq.begin() + long(std::min(cfg.syncs, n)));
  std::vector<uint64_t> probes(cfg.reads);
  for (uint64_t& p : probes) p = rng() % n;
  for (uint64_t p : probes) d.present.push_back(KeyOf(p));
  for (uint64_t p : probes) d.missing.push_back(KeyOf(p) + ".");
  d.seeks.assign(d.present.begin(), d.present.begin() + long(std::min(cfg.seeks, cfg.reads)));

  if (engine_order) {
    for (auto& e : engines) {
      group = {e.get()};
      RunPhases(run, d);
    }
  } else {
    group.clear();
    for (auto& e : engines) group.push_back(e.get());
    RunPhases(run, d);
  }
  // Each engine alone, in a fresh process of this program (so that no other engine's memory
  // or background thread counts): what it writes for fillrandom + overwrite, and its memory.
  if (!cfg.Wants("wamp")) return;
  for (auto& e : engines) {
    std::string cmd = "'" + self + "' --num " + std::to_string(n) + " --value-size " +
                      std::to_string(cfg.value_size) + " --dir '" + DirOf(*e, "wamp") +
                      "' --engines " + e->name() + " --measure-writes " + std::to_string(run);
    FILE* child = popen(cmd.c_str(), "r");
    if (child == nullptr) Die("cannot run " + cmd);
    double amp = 0, mib = 0;
    const int got = std::fscanf(child, "%lf %lf", &amp, &mib);
    if (pclose(child) != 0 || got != 2) Die("no figures from " + cmd);
    std::printf("run %d %-13s %-13s write amplification %.2f, peak memory +%.1f MiB\n", run,
                "fill+overwrite", e->name(), amp, mib);
    write_amp[e->name()].push_back(amp);
    peak_mib[e->name()].push_back(mib);
  }
}

// Every phase on the engines of `group`.
void Bench::RunPhases(int run, const RunData& d) {
  const uint64_t n = cfg.num;
  const std::vector<uint64_t>& seq = d.seq;
  const std::vector<uint64_t>& sync_keys = d.sync_keys;
  auto remove = [&](const char* what) {
    for (Engine* e : group) RemoveDir(DirOf(*e, what));
  };
  for (const char* what : {"seq", "batch", "sync", "random", "threads", "threads-sync", "wamp"}) {
    remove(what);
  }
  // Each store is removed once its last phase is done, deleterandom running right after
  // fillseq on its store, so that the disk holds one store per engine of the group at a time
  // (see ChooseEngineOrder); the table prints the phases in db_bench's order all the same.
  auto any = [&](std::initializer_list<std::string_view> phases) {
    return std::any_of(phases.begin(), phases.end(),
                       [&](std::string_view p) { return cfg.Wants(p); });
  };
  if (any({"fillseq", "deleterandom"})) {
    Timed(run, "fillseq", n, [&](Engine& e) {
      e.Open(DirOf(e, "seq"));
      FillOneByOne(e, seq, values);
      e.Close();
      return n;
    });
    Timed(run, "deleterandom", n, [&](Engine& e) {
      e.Open(DirOf(e, "seq"));
      for (uint64_t r : d.randoms) e.Delete(KeyOf(r));
      e.Close();
      return n;
    });
  }
  remove("seq");
  if (cfg.Wants("fillbatch")) {
    Timed(run, "fillbatch", n, [&](Engine& e) {
      e.Open(DirOf(e, "batch"));
      Fill(e, seq, values);
      e.Close();
      return n;
    });
  }
  remove("batch");
  if (cfg.Wants("fillsync")) {
    Timed(run, "fillsync", sync_keys.size(), [&](Engine& e) {
      e.Open(DirOf(e, "sync"));
      FillOneByOne(e, sync_keys, values, /*sync=*/true);
      e.Close();
      return sync_keys.size();
    });
  }
  remove("sync");
  if (cfg.Wants("fill4")) {
    Timed(run, "fill4", n, [&](Engine& e) {
      e.Open(DirOf(e, "threads"));
      FillThreads(e, seq, values, /*sync=*/false, 4);
      e.Close();
      return n;
    });
  }
  remove("threads");
  if (cfg.Wants("fill4sync")) {
    Timed(run, "fill4sync", sync_keys.size(), [&](Engine& e) {
      e.Open(DirOf(e, "threads-sync"));
      FillThreads(e, sync_keys, values, /*sync=*/true, 4);
      e.Close();
      return sync_keys.size();
    });
  }
  remove("threads-sync");
  if (!any({"fillrandom", "overwrite", "readrandom", "readcompacted", "readlatest", "readmissing",
            "readseq", "readreverse", "seekrandom"})) {
    return;
  }
  Timed(run, "fillrandom", n, [&](Engine& e) {
    e.Open(DirOf(e, "random"));
    FillOneByOne(e, d.perm, values);
    return n;
  });
  Timed(run, "overwrite", n, [&](Engine& e) {
    for (uint64_t r : d.randoms) e.Put(KeyOf(r), values.Of(r + 1), false);
    return n;
  });
  for (Engine* e : group) e->BeginReads();
  Timed(run, "readrandom", cfg.reads, [&](Engine& e) { return ReadRandomPhase(e, d.present); });
  for (Engine* e : group) {
    e->Compact();
    e->BeginReads();
  }
  Timed(run, "readcompacted", cfg.reads, [&](Engine& e) { return ReadRandomPhase(e, d.present); });
  Timed(run, "readlatest", cfg.reads, [&](Engine& e) { return ReadLatestPhase(e, d.present); });
  Timed(run, "readmissing", cfg.reads, [&](Engine& e) { return ReadMissingPhase(e, d.missing); });
  Timed(run, "readseq", n, [&](Engine& e) { return ReadSeqPhase(e); });
  Timed(run, "readreverse", n, [&](Engine& e) { return ReadReversePhase(e); });
  Timed(run, "seekrandom", d.seeks.size(), [&](Engine& e) { return SeekRandomPhase(e, d.seeks); });
  for (Engine* e : group) e->Close();
  remove("random");
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
  const double user_bytes = double(2 * n * (KeyOf(0).size() + cfg.value_size));
  std::printf("%.3f %.1f\n", double(wrote) / user_bytes,
              hwm_kb > rss_kb ? double(hwm_kb - rss_kb) / 1024 : 0.0);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// How each configuration is set up, for the legend under the table.
std::string Legend(const std::string& name) {
  if (name == "reftab") {
    return "KvStore's defaults (memtables of 32 MiB or 65,536 writes, Durability::kGit tables, "
           "4 KiB blocks raised to a power of two that holds the largest record); each table "
           "always has its own hash index and filters, nothing to configure";
  }
  if (name == "leveldb" || name == "rocksdb") {
    return "the library's defaults (8 MiB block cache, Snappy, no filter)";
  }
  return "the defaults plus a Bloom filter of 10 bits per key (db_bench's --bloom_bits=10)";
}

// The configurations of `engines` other than the first whose name ends in "-bloom" (or not).
std::vector<std::string> Peers(const std::vector<std::unique_ptr<Engine>>& engines, bool bloom) {
  std::vector<std::string> out;
  for (size_t i = 1; i < engines.size(); ++i) {
    std::string_view n = engines[i]->name();
    const bool is_bloom = n.size() > 6 && n.substr(n.size() - 6) == "-bloom";
    if (is_bloom == bloom) out.emplace_back(n);
  }
  return out;
}

// db_bench's order, whatever order the phases ran in.
const char* const kPhaseOrder[] = {"fillseq",    "fillbatch",     "fillsync",   "fill4",
                                   "fill4sync",  "fillrandom",    "overwrite",  "deleterandom",
                                   "readrandom", "readcompacted", "readlatest", "readmissing",
                                   "readseq",    "readreverse",   "seekrandom"};

void Bench::Report() const {
  std::printf(
      "\nmedian ops/s over %d runs (N=%llu keys of 16 bytes, %llu-byte values, --reads %llu, "
      "--seeks %llu, fillbatch in batches of %zu, fillsync and fill4sync %llu puts):\n\n",
      cfg.runs, static_cast<unsigned long long>(cfg.num),
      static_cast<unsigned long long>(cfg.value_size), static_cast<unsigned long long>(cfg.reads),
      static_cast<unsigned long long>(std::min(cfg.seeks, cfg.reads)), kBatch,
      static_cast<unsigned long long>(std::min(cfg.syncs, cfg.num)));
  const std::string first = engines[0]->name();
  const std::vector<std::string> groups[2] = {Peers(engines, false), Peers(engines, true)};
  const char* group_names[2] = {"the better default peer", "the better Bloom peer"};
  std::printf("| phase |");
  for (const auto& e : engines) std::printf(" %s |", e->name());
  int ratio_columns = 0;
  for (int g = 0; g < 2; ++g) {
    if (groups[g].empty()) continue;
    std::printf(" %s ÷ %s |", first.c_str(), group_names[g]);
    ++ratio_columns;
  }
  std::printf("\n|---|");
  for (size_t i = 0; i < engines.size() + size_t(ratio_columns); ++i) std::printf("---:|");
  std::printf("\n");
  auto median = [this](const std::string& phase, const std::string& engine) {
    return Median(results.at(phase).at(engine));
  };
  for (const char* phase : kPhaseOrder) {
    if (results.count(phase) == 0) continue;
    std::printf("| %s |", phase);
    for (const auto& e : engines) std::printf(" %.0f |", median(phase, e->name()));
    for (const auto& group : groups) {
      if (group.empty()) continue;
      double best = 0;
      for (const std::string& peer : group) best = std::max(best, median(phase, peer));
      std::printf(" %.2f |", median(phase, first) / best);
    }
    std::printf("\n");
  }
  std::printf("\nConfigurations:\n");
  for (const auto& e : engines) std::printf("- %s: %s\n", e->name(), Legend(e->name()).c_str());
  if (write_amp.empty()) return;
  std::printf(
      "\nfillrandom + overwrite on a fresh store, each configuration alone (median): bytes "
      "passed to write(2) / bytes of keys and values, and peak RSS growth:\n\n| engine | write "
      "amplification | peak memory (MiB) |\n|---|---:|---:|\n");
  for (const auto& e : engines) {
    std::printf("| %s | %.2f | %.1f |\n", e->name(), Median(write_amp.at(e->name())),
                Median(peak_mib.at(e->name())));
  }
}

std::unique_ptr<Engine> MakeEngine(const std::string& name) {
  if (name == "reftab") return std::make_unique<ReftabEngine>();
#ifdef REFTAB_KV_BENCH_LEVELDB
  if (name == "leveldb" || name == "leveldb-bloom") {
    return std::make_unique<LevelDbEngine>(name == "leveldb-bloom");
  }
#endif
#ifdef REFTAB_KV_BENCH_ROCKSDB
  if (name == "rocksdb" || name == "rocksdb-bloom") {
    return std::make_unique<RocksDbEngine>(name == "rocksdb-bloom");
  }
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
    } else if (a == "--value-size") {
      c.value_size = std::strtoull(v.c_str(), nullptr, 10);
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
    } else if (a == "--order") {
      if (v != "auto" && v != "phase" && v != "engine") Die("--order takes auto, phase or engine");
      c.order = v;
    } else if (a == "--phases") {
      c.phases = v;
    } else if (a == "--measure-writes") {
      c.measure_writes = std::atoi(v.c_str());
    } else {
      Die("unknown option " + a);
    }
  }
  if (c.reads == 0) c.reads = c.num;
  if (c.seeks == 0) c.seeks = c.reads;
  if (c.num == 0 || c.runs <= 0) Die("--num and --runs must be > 0");
  if (c.value_size == 0 || c.value_size + 16 > reftab::kMaxEntryBytes) {
    Die("--value-size must be > 0 and at most " + std::to_string(reftab::kMaxEntryBytes - 16));
  }
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  Bench b(ParseArgs(argc, argv));
  size_t from = 0;
  const std::string& list = b.cfg.engines;
  while (from <= list.size()) {
    size_t to = list.find(',', from);
    if (to == std::string::npos) to = list.size();
    if (auto e = MakeEngine(list.substr(from, to - from))) {
      e->value_size = b.cfg.value_size;
      b.engines.push_back(std::move(e));
    }
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
  b.engine_order = ChooseEngineOrder(b.cfg, b.engines.size());
  for (int run = 1; run <= b.cfg.runs; ++run) b.RunOnce(run);
  b.Report();
  RemoveDir(b.cfg.dir);
  return 0;
}
