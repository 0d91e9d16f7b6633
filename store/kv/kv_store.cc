#include "store/kv/kv_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <thread>

#include "store/compaction_policy.h"
#include "store/huge_pages.h"
#include "store/kv/kv_files.h"
#include "store/kv/kv_log_format.h"
#include "store/kv/kv_mem_reverse_cursor.h"
#include "store/kv/kv_memtable.h"
#include "store/merge_cursor.h"
#include "store/merged_iterator.h"
#include "store/reverse_merge_cursor.h"
#include "store/snapshot_access.h"
#include "store/stack.h"

namespace reftab {

// ------------------------------------------------------------------ KvWriteBatch

namespace {

Status CheckEntry(std::string_view key, size_t value_size) {
  if (key.empty()) return Status::InvalidArgument("empty key");
  if (key.size() + value_size > kMaxEntryBytes) {
    return Status::TooLarge("entry of " + std::to_string(key.size() + value_size) +
                            " bytes exceeds the limit of " + std::to_string(kMaxEntryBytes));
  }
  return Status::Ok();
}

}  // namespace

void KvWriteBatch::Put(std::string_view key, std::string_view value) {
  Status s = CheckEntry(key, value.size());
  if (!s.ok()) {
    if (invalid_.ok()) invalid_ = std::move(s);
    return;
  }
  // A batch of 1,000 values of 100 KiB spent a third of its time growing its 100 MB.
  ReserveHugePages(&ops_, KvLogPutSize(key.size(), value.size()));
  AppendKvLogPut(&ops_, key, value);
  ++count_;
}

void KvWriteBatch::Delete(std::string_view key) {
  Status s = CheckEntry(key, 0);
  if (!s.ok()) {
    if (invalid_.ok()) invalid_ = std::move(s);
    return;
  }
  AppendKvLogDelete(&ops_, key);
  ++count_;
}

void KvWriteBatch::Clear() {
  ops_.clear();
  count_ = 0;
  invalid_ = Status::Ok();
}

// ------------------------------------------------------------------ KvIterator

// Two sources merged: the snapshot's frozen memtable (newer, deletions included) and the
// tables' merged cursor (deletions already applied among the tables). On equal keys the
// memtable's entry wins and the table's is skipped; a memtable deletion hides the key.
// Backwards, the same over the reverse cursors, made at the first backward move (a
// forward-only iterator never pays for them).
struct KvIterator::Impl {
  Impl(std::shared_ptr<const Snapshot> s, RefViewMergeCursor merge, const KvIteratorOptions& o)
      : snap(std::move(s)), it(std::move(merge)), options(o) {}
  std::shared_ptr<const Snapshot> snap;  // keeps the tables mapped
  RefViewMergeCursor it;
  KvIteratorOptions options;
  std::optional<KvMemCursor> mem;  // when the snapshot has a memtable
  // The tables' side: kAhead: their next entry is read (its value into table_rec, its name
  // left in it.key()) to compare it with the memtable's; kLazy: it is not read yet (the
  // cursor stands before it); kEnd: none. Read ahead only while the memtable has entries
  // left: otherwise Settle reads the tables' next entry and hands it out at once.
  enum class TableAt : uint8_t { kLazy, kAhead, kEnd };
  RefView table_rec;  // its refname is not used: names stay in it.key()
  TableAt table = TableAt::kLazy;
  // Backwards: `reversed` while the iterator was last positioned or moved backwards (the
  // forward cursors are then elsewhere, and the reverse ones on the entry before the
  // current one).
  bool reversed = false;
  std::optional<RefReverseMergeCursor> back;
  std::optional<KvMemReverseCursor> mem_back;
  // The tables' entry handed out backwards: its name is copied here, its value is a view of
  // the table's bytes. The reverse cursor reads ahead, which keeps that view only until the
  // cursor moves: it steps past the entry at the next step back (`back_pending`), not when
  // handing it out.
  RefView back_rec;
  bool back_pending = false;
  std::shared_ptr<const KvMemLayers> layers;  // the memtable's, for mem_back
  std::string floor;     // no key below it is visited (the lower bound or the prefix)
  std::string seek_key;  // Seek's copy of its key
};

KvIterator::KvIterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->it.set_suppress_deletions(true);
}
KvIterator::KvIterator(KvIterator&&) noexcept = default;
KvIterator& KvIterator::operator=(KvIterator&&) noexcept = default;
KvIterator::~KvIterator() = default;

const Status& KvIterator::status() const {
  const Impl& m = *impl_;
  return m.reversed && m.back ? m.back->status() : m.it.status();
}

Status KvIterator::SeekToFirst() { return Seek(std::string_view()); }

Status KvIterator::Seek(std::string_view key) {
  Impl& m = *impl_;
  m.reversed = false;
  const KvIteratorOptions& o = m.options;
  std::string_view from = key;
  if (o.lower_bound && std::string_view(*o.lower_bound) > from) from = *o.lower_bound;
  if (std::string_view(o.prefix) > from) from = o.prefix;
  valid_ = false;
  // `key` may be a view of this iterator's own key(), in a table cursor's key buffer that
  // the seek below overwrites.
  m.seek_key.assign(from);
  from = m.seek_key;
  REFTAB_RETURN_IF_ERROR(from.empty() ? m.it.SeekToFirst() : m.it.Seek(from));
  m.table = Impl::TableAt::kLazy;
  if (m.mem) m.mem->Seek(from);
  Settle();
  return m.it.status();
}

void KvIterator::Next() {
  if (!valid_) return;
  if (impl_->reversed) {  // the forward cursors are elsewhere: seek past the current key
    const std::string at(key());
    if (!Seek(at).ok() || !valid_) return;
    if (key() == at) Settle();
    return;
  }
  Settle();
}

namespace {

// The smallest key above every key that starts with `prefix`, or nullopt if there is none
// ("ab" -> "ac", "a\xff" -> "b", "\xff" -> none).
std::optional<std::string> PrefixEnd(std::string prefix) {
  while (!prefix.empty() && uint8_t(prefix.back()) == 0xff) prefix.pop_back();
  if (prefix.empty()) return std::nullopt;
  prefix.back() = char(uint8_t(prefix.back()) + 1);
  return prefix;
}

}  // namespace

Status KvIterator::SeekToLast() { return SeekBack(std::nullopt, false); }

Status KvIterator::SeekForPrev(std::string_view key) { return SeekBack(key, /*inclusive=*/true); }

void KvIterator::Prev() {
  if (!valid_) return;
  if (impl_->reversed) return SettleBack();
  // The reverse cursors are elsewhere: seek to the entry before the current key. The key
  // (a view of the forward cursor's or the memtable's) stays valid through the reverse
  // seeks, until SettleBack replaces it.
  Status s = SeekBack(key_, /*inclusive=*/false);
  (void)s;  // in status()
}

Status KvIterator::SeekBack(const std::optional<std::string_view>& below, bool inclusive) {
  Impl& m = *impl_;
  const KvIteratorOptions& o = m.options;
  m.reversed = true;
  valid_ = false;
  // The limit: `below`, the upper bound and the end of the prefix, whichever is lowest (on
  // a tie, the exclusive one). The keys within it that are >= the floor are visible.
  std::optional<std::string_view> limit = below;
  bool limit_inclusive = inclusive && below;
  std::optional<std::string> prefix_end;
  if (!o.prefix.empty()) prefix_end = PrefixEnd(o.prefix);
  const std::optional<std::string>* const others[] = {&o.upper_bound, &prefix_end};
  for (const std::optional<std::string>* other : others) {
    if (*other && (!limit || std::string_view(**other) <= *limit)) {
      limit = **other;
      limit_inclusive = false;
    }
  }
  m.back_pending = false;  // the seek below repositions the reverse cursors
  if (!m.back) {
    m.back.emplace(m.snap->readers());
    m.back->set_suppress_deletions(true);
    m.back->set_readahead(o.readahead);
    if (m.layers) m.mem_back.emplace(m.layers);
  }
  // A limit that is this iterator's own key() may be m.back_rec's name, which the reverse
  // cursor's seek leaves alone, or a view of the forward cursor's or the memtable's, which
  // it does not touch either.
  Status s = limit ? m.back->SeekBefore(*limit, limit_inclusive) : m.back->SeekToLast();
  if (m.mem_back) {
    if (limit) {
      m.mem_back->SeekBefore(*limit, limit_inclusive);
    } else {
      m.mem_back->SeekToLast();
    }
  }
  REFTAB_RETURN_IF_ERROR(s);
  SettleBack();
  return m.back->status();
}

void KvIterator::SettleBack() {
  Impl& m = *impl_;
  RefReverseMergeCursor& t = *m.back;
  valid_ = false;
  if (m.back_pending) {  // past the tables' entry handed out last
    m.back_pending = false;
    t.Prev();
  }
  for (;;) {
    if (!t.status().ok()) return;
    const bool from_mem = m.mem_back && m.mem_back->Valid();
    if (!from_mem && !t.Valid()) return;
    // Above 0: the table's entry comes first (backwards: it is the greater).
    const int order = !from_mem ? 1 : !t.Valid() ? -1 : t.key().compare(m.mem_back->key());
    if (order > 0) {
      if (!t.ReadValue(&m.back_rec)) return;
      m.back_pending = true;
      key_ = m.back_rec.refname;
      value_ = m.back_rec.value;
      break;
    }
    if (order == 0) t.Prev();  // hidden by the memtable's
    const std::optional<std::string_view>& v = m.mem_back->value();
    if (v) {
      key_ = m.mem_back->key();  // views of the memtable's arena, which the iterator keeps
      value_ = *v;
      m.mem_back->Prev();
      break;
    }
    m.mem_back->Prev();  // a deletion
  }
  valid_ = m.floor.empty() || key_ >= std::string_view(m.floor);
}

void KvIterator::Settle() {
  using TableAt = Impl::TableAt;
  Impl& m = *impl_;
  valid_ = false;
  // The tables' entry the merge cursor just returned: its name is still in the cursor's
  // key buffer (until its next call), its value a view of the table.
  auto take_table_rec = [&] {
    key_ = m.it.key();
    value_ = m.table_rec.value;
    m.table = TableAt::kLazy;
  };
  for (;;) {
    if (!m.it.status().ok()) return;
    if (!m.mem || !m.mem->Valid()) {  // the tables alone: no lookahead
      if (m.table == TableAt::kAhead ||
          (m.table == TableAt::kLazy && m.it.NextView(&m.table_rec))) {
        take_table_rec();
        break;
      }
      m.table = TableAt::kEnd;
      return;
    }
    if (m.table == TableAt::kLazy) {
      m.table = m.it.NextView(&m.table_rec) ? TableAt::kAhead : TableAt::kEnd;
      if (!m.it.status().ok()) return;
    }
    int order = m.table == TableAt::kEnd ? -1 : m.mem->key().compare(m.it.key());
    if (order > 0) {  // the table's entry comes first
      take_table_rec();
      break;
    }
    if (order == 0) m.table = TableAt::kLazy;  // hidden by the memtable's
    const std::optional<std::string_view>& v = m.mem->value();
    if (v) {
      key_ = m.mem->key();  // views of the memtable's arena, which the iterator keeps
      value_ = *v;
      m.mem->Next();
      break;
    }
    m.mem->Next();  // a deletion
  }
  valid_ = true;
  const KvIteratorOptions& o = m.options;
  if (o.upper_bound && key_ >= std::string_view(*o.upper_bound)) valid_ = false;
  if (!o.prefix.empty() && key_.substr(0, o.prefix.size()) != o.prefix) valid_ = false;
}

// ------------------------------------------------------------------ KvSnapshot

struct KvSnapshot::Mem {
  std::shared_ptr<const KvMemLayers> layers;
  uint64_t batches;  // write batches since the last table the store wrote
};

KvSnapshot::KvSnapshot(std::shared_ptr<const Snapshot> snap) : snap_(std::move(snap)) {}
KvSnapshot::KvSnapshot(std::shared_ptr<const Snapshot> snap, std::shared_ptr<const Mem> mem)
    : snap_(std::move(snap)), mem_(std::move(mem)) {}

Status KvSnapshot::Get(std::string_view key, std::string* value, bool* found) const {
  *found = false;
  if (key.empty()) return Status::Ok();
  if (mem_) {
    switch (LookupKvMemLayers(*mem_->layers, key, value)) {
      case KvMemLookup::kValue: *found = true; return Status::Ok();
      case KvMemLookup::kDeleted: return Status::Ok();
      case KvMemLookup::kAbsent: break;
    }
  }
  // The fast path allocates nothing once the buffers have grown: the value lands in the
  // caller's string, the name in the snapshot's scratch record.
  RefRecord& rec = scratch_;
  rec.target.swap(*value);
  Status s = snap_->ReadRef(key, &rec, found);
  rec.target.swap(*value);
  if (!s.ok() || !*found) return s;
  if (rec.value_type != RefValueType::kSymref) {
    value->assign(reinterpret_cast<const char*>(rec.value.data()), snap_->hash_size());
  }
  return Status::Ok();
}

KvIterator KvSnapshot::NewIterator(const KvIteratorOptions& options) const {
  RefViewMergeCursor merge(snap_->readers());
  merge.set_merge_order(SnapshotAccess::RefOrder(*snap_));
  // A value is a view only until the iterator moves (see KvIterator), which is what read
  // ahead needs.
  merge.set_readahead(options.readahead);
  auto impl = std::make_unique<KvIterator::Impl>(snap_, std::move(merge), options);
  if (mem_) {
    impl->mem.emplace(mem_->layers);
    impl->layers = mem_->layers;
  }
  impl->floor = options.prefix;
  if (options.lower_bound && *options.lower_bound > impl->floor) {
    impl->floor = *options.lower_bound;
  }
  return KvIterator(std::move(impl));
}

uint64_t KvSnapshot::sequence() const {
  uint64_t batches = mem_ ? std::min<uint64_t>(mem_->batches, UINT32_MAX) : 0;
  return (snap_->max_update_index() << 32) | batches;
}

// ------------------------------------------------------------------ KvStore

namespace {

StackOptions StackOptionsFor(const KvOptions& o) {
  StackOptions s;
  s.fs = o.fs;
  s.durability = o.durability;
  s.lock_timeout_ms = o.lock_timeout_ms;
  // The store's compaction thread compacts: a flush must not compact too (it would delay
  // the flush's table becoming visible).
  s.auto_compact = false;
  s.fit_block_size = true;
  // A writer killed during a flush leaves tables.list.lock behind (git's protocol has no
  // stale locks); its pid file lets the error say that its holder no longer runs.
  s.lock_pid_files = true;
  s.write_options.block_size = o.block_size;
  s.write_options.index_objects = false;  // values are not object ids
  s.copy_disjoint_tables = true;          // nothing reads a key's update index
  return s;
}

Status MakeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) return Status::Ok();
  return Status::IoError(dir + ": cannot create directory: " + std::strerror(errno));
}

// Frozen memtable layers written straight into one new table of the stack (nothing if they
// are empty): the cursor gives their entries in key order, one per key, as the table wants
// them. They are writes the store acknowledged, so nothing is read first to drop the few
// that change nothing (a tombstone for a missing key costs a record until a full
// compaction drops it). `largest` bounds their key + value sizes (the block size).
Status WriteLayers(Stack* stack, std::shared_ptr<const KvMemLayers> layers, size_t largest,
                   bool* wrote_table) {
  *wrote_table = false;
  if (layers->empty()) return Status::Ok();
  KvMemCursor entry(std::move(layers));
  RefRecord rec;  // a deletion's; its name's buffer is reused from one to the next
  uint64_t added = 0;
  REFTAB_RETURN_IF_ERROR(stack->AddTable(
      largest,
      [&](TableWriter& w, uint64_t update_index) -> Status {
        rec.update_index = update_index;
        rec.value_type = RefValueType::kDeletion;
        for (entry.Seek(std::string_view()); entry.Valid(); entry.Next()) {
          if (entry.value()) {  // a value: written from the memtable's views, not copied
            REFTAB_RETURN_IF_ERROR(w.AddSymref(entry.key(), update_index, *entry.value()));
          } else {
            rec.refname.assign(entry.key());
            REFTAB_RETURN_IF_ERROR(w.AddRef(rec));
          }
        }
        return Status::Ok();
      },
      &added));
  *wrote_table = added != 0;
  return Status::Ok();
}

// The tables geometric auto-compaction would merge now, and their bytes.
void PendingCompaction(const Snapshot& snap, size_t* tables, uint64_t* bytes) {
  std::vector<uint64_t> sizes;
  for (const auto& t : snap.tables()) {
    sizes.push_back(PolicySize(t->file_size(), VersionForHash(snap.hash_id())));
  }
  *tables = 0;
  *bytes = 0;
  std::optional<Segment> seg = SuggestCompaction(sizes, 0);
  if (!seg) return;
  *tables = seg->end - seg->start;
  for (size_t i = seg->start; i < seg->end; ++i) *bytes += snap.tables()[i]->file_size();
}

// A group of queued records is at most this long (a small unsynced first record takes
// less company, so that its latency stays small), as LevelDB's.
constexpr size_t kMaxGroupBytes = 1 << 20;
constexpr size_t kSmallRecordBytes = 128 << 10;

// How long a queued writer watches for its turn before it sleeps, and a synced head for
// company (WriteQueued, AwaitSyncCompany): this many checks, the first kPausesBeforeYield
// with a spin-wait hint between them (a few microseconds in all), the rest each after
// giving its core to another thread.
constexpr int kPausesBeforeYield = 100;
constexpr int kSpinsBeforeSleep = kPausesBeforeYield + 20;

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

// Checks `done` up to kSpinsBeforeSleep times, as above, until it holds; never sleeps.
template <typename Done>
void WatchUntil(Done done) {
  for (int i = 0; i < kSpinsBeforeSleep && !done(); ++i) {
    if (i < kPausesBeforeYield) {
      CpuRelax();
    } else {
      std::this_thread::yield();
    }
  }
}

uint64_t MicrosSince(std::chrono::steady_clock::time_point start) {
  return uint64_t(std::chrono::duration_cast<std::chrono::microseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count());
}

}  // namespace

// A write waiting in the queue; it lives on its thread's stack until it is done.
struct KvStore::Writer {
  size_t n = 0;  // its operations; 0: a Flush's turn, which makes the memtable immutable
  // Its log record is `head` then `body`: a Put's or Delete's whole record (Single), or a
  // batch's header in `header` and its operations where the batch keeps them (written
  // from there: no copy of a batch into a record). The memtable reads them from `ops`.
  std::string_view head, body, ops;
  size_t record_size() const { return head.size() + body.size(); }
  uint8_t header[kKvLogRecordHeaderSize];
  // A record of `op_size` bytes of payload for one operation, `encode` writing them at the
  // pointer it is given: on the stack when small (no allocation per put).
  template <typename Encode>
  Status Single(size_t op_size, Encode&& encode) {
    const size_t size = kKvLogRecordHeaderSize + op_size;
    char* record = inline_record;
    if (size > sizeof inline_record) {
      own.resize(size);
      record = own.data();
    }
    encode(record + kKvLogRecordHeaderSize);
    REFTAB_RETURN_IF_ERROR(FinishKvLogRecord(record, op_size));
    head = std::string_view(record, size);
    ops = head.substr(kKvLogRecordHeaderSize);
    return Status::Ok();
  }
  char inline_record[256];
  std::string own;
  bool sync = false;
  Status status;  // set by the head that completed it, before `turn` says kDone
  // kWaiting until the head of the queue completes it (kDone) or it becomes the head
  // (kHead); changed under the store's mutex, read without it while the writer spins.
  enum Turn : uint8_t { kWaiting, kHead, kDone };
  std::atomic<uint8_t> turn{kWaiting};
  // Signalled when `turn` changes: a condition of its own (as LevelDB's writers have), so
  // that a group's end wakes only the writers it completed and the next head, not every
  // writer queued behind them. Made (under the store's mutex, as `turn` is changed and
  // signalled) only by a writer about to sleep: most writers never do, and a condition's
  // destruction costs an atomic operation (about 2% of a single put's time in a profile).
  std::optional<std::condition_variable> cv;
  void Wake() {
    if (cv) cv->notify_one();
  }
};

// A writer's state. `mu` guards every field but `thread`, and `log` while a queue head
// writes to it outside `mu` (only the head of the queue touches it).
struct KvStore::Bg {
  // The pool's chunks cover a grown memtable and a grown immutable one (kKvFlushingGrowth),
  // up to kKvMemPoolBytes: past it, memtables of large values take chunks of their own,
  // given back when they are flushed, rather than the pool keeping them while the store is
  // open.
  explicit Bg(size_t memtable_size)
      : mem_pool(std::make_shared<KvMemPool>(
            std::min(2 * kKvFlushingGrowth * memtable_size, kKvMemPoolBytes))) {}
  std::mutex mu;
  std::condition_variable flush_cv;    // to the flush thread: a memtable to flush, or stop
  std::condition_variable compact_cv;  // to the compaction thread: a compaction due, or stop
  std::condition_variable state_cv;    // a job done, or the store stopping
  std::shared_ptr<KvLogWriter> log;    // the flush thread may sync it (FlushImmutable)
  bool log_has_synced = false;         // `log` holds a synced record
  bool log_header_durable = false;     // `log` was fsynced since it was made
  uint64_t log_bytes = 0;              // in `log`: its header and the records appended
  bool log_unsynced = false;           // `log` holds records written since its last fsync
  // kv.log.flushing's writer while its memtable is being flushed: a synced write fsyncs it
  // first if it holds unsynced records (flushing_log_unsynced), so that a machine crash
  // cannot keep the synced write and lose writes before it (a crash loses only a tail).
  std::shared_ptr<KvLogWriter> flushing_log;
  bool flushing_log_unsynced = false;
  bool log_name_durable = false;        // the folder was synced since `log` was put in place
  std::shared_ptr<KvMemPool> mem_pool;  // the memtables' memory
  std::unique_ptr<KvMemtable> mem = std::make_unique<KvMemtable>(mem_pool);
  uint64_t batches = 0;  // write batches in `mem`
  // `mem` becomes immutable at this many times memtable_size (or memtable_entries) when no
  // flush runs: 1, or kKvFlushingGrowth for a memtable Open replayed past its size (Recover).
  size_t mem_growth = 1;
  std::shared_ptr<const KvMemLayers> imm;  // the immutable memtable, or null
  uint64_t imm_batches = 0;
  size_t imm_bytes = 0;
  size_t imm_largest = 0;  // its largest key + value
  uint64_t rotations = 0;  // memtables made immutable
  uint64_t flushed = 0;    // of them, written into tables
  std::shared_ptr<const Snapshot>
      tables;                 // the stack's state, as the last flush or compaction left it
  size_t pending_tables = 0;  // that auto-compaction would merge
  uint64_t pending_bytes = 0;
  uint64_t slowdown_debt = 0;   // bytes written while compaction was behind, not yet delayed
  bool compaction_due = false;  // a job for the compaction thread
  bool flush_busy = false;      // the flush thread runs a flush
  bool compact_busy = false;    // the compaction thread runs a compaction
  bool stop = false;
  // Set with `stop`: a merge running then stops at its next record (the next writer's
  // compaction does it again), so that a close does not wait for it.
  std::atomic<bool> closing = false;
  Status error;  // the first error of a thread or of the log: every later write fails
  std::deque<Writer*> writers;    // the queue; its head writes for a group
  std::atomic<size_t> queued{0};  // writers.size(), set under mu, read without it
  size_t last_synced_group = 0;   // the writers of the last synced group
  std::string group;              // the head's records, concatenated
  std::thread flush_thread;
  std::thread compact_thread;
  KvProperties counters;  // the fields counted as the store goes (see Properties())
};

KvStore::KvStore(std::unique_ptr<Stack> stack, const KvOptions& options)
    : stack_(std::move(stack)), options_(options) {
  if (options_.fs == nullptr) options_.fs = PosixFileSystem();
}

KvStore::~KvStore() {
  Status s = Close();
  (void)s;  // the caller who wants it calls Close()
}

Status KvStore::Close() {
  if (closed_) return Status::Ok();
  closed_ = true;
  if (!bg_) return Status::Ok();
  Bg& b = *bg_;
  {
    std::lock_guard<std::mutex> lock(b.mu);
    b.stop = true;
    b.closing = true;
  }
  b.flush_cv.notify_all();
  b.compact_cv.notify_all();
  b.state_cv.notify_all();
  if (b.flush_thread.joinable()) b.flush_thread.join();
  if (b.compact_thread.joinable()) b.compact_thread.join();
  std::lock_guard<std::mutex> lock(b.mu);
  // Nothing writes any more: the logs close and the writer lock goes, so that the store can
  // be opened again, here or elsewhere, while this object lives on.
  b.log.reset();
  b.flushing_log.reset();
  lock_.reset();
  return b.error;
}

namespace {

// Whether `name`, in a store's folder, is one of the files a store makes.
bool IsStoreFile(std::string_view name) {
  return name == kKvLockName || name.starts_with(kKvLogName) || name.starts_with("tables.list") ||
         name.ends_with(".ref") || name.ends_with(".ref.lock") ||
         name.find(".temp.") != std::string_view::npos;
}

}  // namespace

Status KvStore::Destroy(const std::string& dir, const KvOptions& options) {
  FileSystem* fs = options.fs ? options.fs : PosixFileSystem();
  REFTAB_ASSIGN_OR_RETURN(std::vector<std::string> names, fs->ListDir(dir));  // kNotFound
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<FileLock> lock, LockKvWriter(fs, dir));
  auto listed = fs->Stat(KvPath(dir, "tables.list.lock"));
  if (listed.ok()) {
    return Status::LockHeld(KvPath(dir, "tables.list.lock") +
                            ": exists: a compaction may be running (remove it if the process "
                            "that made it is gone); the store was not destroyed");
  }
  REFTAB_ASSIGN_OR_RETURN(names, fs->ListDir(dir));  // with the lock held
  // tables.list first: from then on the folder is an empty stack, whatever is left.
  std::partition(names.begin(), names.end(),
                 [](const std::string& n) { return n == "tables.list"; });
  for (const std::string& name : names) {
    if (!IsStoreFile(name) || name == kKvLockName) continue;
    Status s = fs->Remove(KvPath(dir, name));
    if (!s.ok() && s.code() != Code::kNotFound) return s;
  }
  // The lock goes last, still held; then the folder, if nothing else is in it.
  Status s = fs->Remove(KvPath(dir, kKvLockName));
  if (!s.ok() && s.code() != Code::kNotFound) return s;
  lock.reset();
  if (options.fs == nullptr && ::rmdir(dir.c_str()) != 0 && errno != ENOTEMPTY && errno != EEXIST) {
    return Status::IoError(dir + ": cannot remove directory: " + std::strerror(errno));
  }
  return Status::Ok();
}

Result<std::unique_ptr<KvStore>> KvStore::Open(const std::string& dir, const KvOptions& options) {
  if (options.memtable_size == 0 || options.memtable_entries == 0) {
    return Status::InvalidArgument(dir +
                                   ": KvOptions::memtable_size and memtable_entries must "
                                   "be at least 1");
  }
  if (options.create_if_missing && options.fs == nullptr) REFTAB_RETURN_IF_ERROR(MakeDir(dir));
  FileSystem* fs = options.fs ? options.fs : PosixFileSystem();
  // The lock first: a second writer must fail before it reads or changes anything.
  std::unique_ptr<FileLock> lock;
  if (!options.read_only) {
    REFTAB_ASSIGN_OR_RETURN(lock, LockKvWriter(fs, dir));
  }
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<Stack> stack, Stack::Open(dir, StackOptionsFor(options)));
  auto kv = std::unique_ptr<KvStore>(new KvStore(std::move(stack), options));
  if (!options.read_only) {
    // The compaction thread's own handle on the same stack: the two threads follow the
    // stack's protocol between them as two processes would, so a flush lists its table
    // while a merge runs (store/compaction.cc holds tables.list.lock only around it).
    REFTAB_ASSIGN_OR_RETURN(kv->compact_stack_, Stack::Open(dir, StackOptionsFor(options)));
    kv->lock_ = std::move(lock);
    kv->bg_ = std::make_unique<Bg>(options.memtable_size);
    bool wrote_table = false;
    REFTAB_RETURN_IF_ERROR(kv->Recover(&wrote_table));
    Bg& b = *kv->bg_;
    std::unique_lock<std::mutex> guard(b.mu);
    // A merge the last writer's Close stopped waits for the next flush (kv_store.h).
    kv->UpdateTables(guard, kv->stack_->snapshot(),
                     wrote_table ? MergeStart::kNow : MergeStart::kIfBehind);
    b.flush_thread = std::thread([p = kv.get()] { p->FlushLoop(); });
    b.compact_thread = std::thread([p = kv.get()] { p->CompactLoop(); });
  }
  return kv;
}

// Replays the logs into a memtable, oldest first. When kv.log alone was there, intact, the
// memtable stays the current one and writes go on at the end of kv.log (made immutable at
// once only if it holds kKvFlushingGrowth times memtable_size; past its size, it stays
// current until writes take it there): an Open followed by a Close writes no table, and the next
// Open replays the same log (LevelDB writes a table of it at every Open, with memtables of
// 4 MiB). Otherwise (both logs, left by a flush that a crash or a close cut short, or a
// damaged log, reported once) the memtable goes into a table here and a fresh log replaces
// kv.log: appends never follow a torn record.
Status KvStore::Recover(bool* wrote_table) {
  Bg& b = *bg_;
  *wrote_table = false;
  // The memtable views the logs' bytes in place (the memtable keeps their mappings):
  // copying each value into fresh memory of its own first, an Open replaying 10 MB of
  // 100 KiB values took 64 ms instead of 36 (2026-12-06).
  // logs[0]: kv.log.flushing, logs[1]: kv.log; null where there is none.
  std::unique_ptr<RandomAccessFile> logs[2];
  REFTAB_ASSIGN_OR_RETURN(logs[0], OpenKvLog(options_.fs, stack_->dir(), kKvFlushingLogName));
  REFTAB_ASSIGN_OR_RETURN(logs[1], OpenKvLog(options_.fs, stack_->dir(), kKvLogName));
  uint64_t records[2] = {0, 0};
  bool dropped_log = false;  // kv.log left unread: it follows a damaged kv.log.flushing
  KvMemtable& mem = *b.mem;
  // kv.log.flushing whose table the stack already holds (a crash after the flush listed
  // it, before the log's removal reached the disk; kv.log's header says so) is not
  // replayed: its writes are older than the table's, and what a crash left of it may be
  // only part of them.
  const std::optional<KvLogHeader> header = logs[1] ? KvLogHeaderOf(*logs[1]) : std::nullopt;
  // The length kv.log.flushing had when kv.log took its place (0: not known).
  const uint64_t flushing_bytes = header ? header->previous_log_bytes : 0;
  if (logs[0] && header && stack_->snapshot()->max_update_index() > header->tables_through) {
    logs[0].reset();
    Status gone = options_.fs->Remove(KvPath(stack_->dir(), kKvFlushingLogName));
    if (!gone.ok() && gone.code() != Code::kNotFound) return gone;
  }
  for (size_t i = 0; i < 2; ++i) {
    if (!logs[i]) continue;
    Status damage;
    uint64_t& replayed = records[i];
    REFTAB_RETURN_IF_ERROR(ReplayKvLog(
        *logs[i],
        [&mem, &replayed](std::string_view payload) {
          ++replayed;
          return DecodeKvLogBatch(payload, [&mem](const KvLogOp& op) {
            if (op.value) {
              mem.PutBorrowed(op.key, *op.value);
            } else {
              mem.DeleteBorrowed(op.key);
            }
          });
        },
        &damage));
    // kv.log.flushing cut between two records reads as whole: kv.log's header says how long
    // it was when kv.log took its place.
    if (damage.ok() && i == 0 && flushing_bytes > logs[0]->size()) {
      damage = Status::Corruption(logs[0]->name() + ": offset " + std::to_string(logs[0]->size()) +
                                  ": the log ends there, but kv.log says it had " +
                                  std::to_string(flushing_bytes) + " bytes; " +
                                  std::to_string(flushing_bytes - logs[0]->size()) + " bytes lost");
    }
    if (!damage.ok()) {
      if (options_.paranoid_checks) return damage;
      log_recovery_ = damage;
      // The writes of kv.log follow those dropped: replayed, they would leave a state no
      // prefix of the writes made (a machine crash may write back kv.log's last pages and
      // not kv.log.flushing's). Recovery stops at the first damage, as RocksDB's
      // point-in-time mode does; Open then writes what it read into a table and replaces
      // kv.log.
      if (i == 0 && logs[1]) {
        log_recovery_ = Status::Corruption(damage.message() + "; " + logs[1]->name() + " (" +
                                           std::to_string(logs[1]->size()) +
                                           " bytes), whose writes follow, dropped too");
        logs[1].reset();
        dropped_log = true;
      }
      break;
    }
  }
  const bool found_flushing_log = logs[0] != nullptr;
  const bool found_log = logs[1] != nullptr;
  const uint64_t log_size = found_log ? logs[1]->size() : 0;
  for (std::unique_ptr<RandomAccessFile>& log : logs) {
    if (log) mem.Keep(std::shared_ptr<const RandomAccessFile>(std::move(log)));
  }
  const bool sync = options_.durability != Durability::kNone;
  if (found_log && !found_flushing_log && log_recovery_.ok()) {
    std::unique_ptr<KvLogWriter> log;
    REFTAB_RETURN_IF_ERROR(KvLogWriter::OpenExisting(options_.fs, stack_->dir(), &log));
    b.log = std::move(log);
    b.log_bytes = log_size;  // it ends with its last record: the replay read it all
    b.batches = records[1];
    // The last writer's records may not have reached the disk (it may have been killed
    // before the kernel wrote them back): the first synced write syncs them with its own.
    b.log_unsynced = true;
    // And some may have been synced: replacing the log then syncs the folder between its
    // renames. Its name is made durable again by the first synced write (the last writer may
    // have ended before it synced the folder).
    b.log_has_synced = sync;
    b.log_name_durable = false;
    // Past its size but within what a memtable may grow to while a flush runs (the last
    // writer's did): it stays the current one until writes take it there. Its writes are
    // in kv.log already, and freezing it here would make a session that writes little
    // wait at its Close for a flush of up to twice memtable_size.
    if (MemtableFull(kKvFlushingGrowth)) return FreezeMemtable();
    if (MemtableFull(1)) b.mem_growth = kKvFlushingGrowth;
    return Status::Ok();
  }
  const size_t largest = mem.largest();
  REFTAB_RETURN_IF_ERROR(WriteLayers(stack_.get(), mem.Freeze(), largest, wrote_table));
  b.mem = std::make_unique<KvMemtable>(b.mem_pool);  // the logs' mappings go with it
  if (sync) REFTAB_RETURN_IF_ERROR(options_.fs->SyncDir(stack_->dir()));
  b.log_name_durable = b.log_header_durable = sync;
  // No log before it once kv.log.flushing is gone: nothing to compare a length with.
  const KvLogHeader fresh_header{stack_->snapshot()->max_update_index(), 0};
  const auto create_log = [&] {
    std::unique_ptr<KvLogWriter> log;
    Status made = KvLogWriter::CreateFresh(options_.fs, stack_->dir(), sync, fresh_header, &log);
    if (made.ok()) {
      b.log = std::move(log);
      b.log_bytes = kKvLogHeaderSize;
    }
    return made;
  };
  const auto remove_flushing_log = [&] {
    Status gone = options_.fs->Remove(KvPath(stack_->dir(), kKvFlushingLogName));
    return gone.code() == Code::kNotFound ? Status::Ok() : gone;
  };
  if (dropped_log) {
    // kv.log, which the table does not hold, goes first: left beside the table, it would
    // be replayed at the next open without the writes before it.
    REFTAB_RETURN_IF_ERROR(create_log());
    return remove_flushing_log();
  }
  // kv.log.flushing goes before kv.log is replaced: left beside the new log, its older
  // writes would be replayed over the newer ones of the old kv.log that the table holds.
  REFTAB_RETURN_IF_ERROR(remove_flushing_log());
  return create_log();
}

Status KvStore::Put(std::string_view key, std::string_view value, const KvWriteOptions& options) {
  REFTAB_RETURN_IF_ERROR(CheckEntry(key, value.size()));
  Writer w;
  REFTAB_RETURN_IF_ERROR(w.Single(KvLogPutSize(key.size(), value.size()),
                                  [&](char* at) { EncodeKvLogPut(at, key, value); }));
  return WriteRecord(&w, 1, options);
}

Status KvStore::Delete(std::string_view key, const KvWriteOptions& options) {
  REFTAB_RETURN_IF_ERROR(CheckEntry(key, 0));
  Writer w;
  REFTAB_RETURN_IF_ERROR(
      w.Single(KvLogDeleteSize(key.size()), [&](char* at) { EncodeKvLogDelete(at, key); }));
  return WriteRecord(&w, 1, options);
}

Status KvStore::Write(const KvWriteBatch& batch, const KvWriteOptions& options) {
  REFTAB_RETURN_IF_ERROR(batch.invalid_);
  Writer w;
  // Before queueing: threads checksum their records in parallel.
  REFTAB_RETURN_IF_ERROR(EncodeKvLogRecordHeader(batch.ops_, w.header));
  w.head = std::string_view(reinterpret_cast<const char*>(w.header), sizeof w.header);
  w.body = w.ops = batch.ops_;
  return WriteRecord(&w, batch.count_, options);
}

Status KvStore::WriteRecord(Writer* w, size_t n, const KvWriteOptions& options) {
  if (!bg_) return Status::InvalidArgument(stack_->dir() + ": the store is open read-only");
  if (n == 0) return Status::Ok();
  w->n = n;
  w->sync = options.sync;
  return WriteQueued(w);
}

// The queue (group commit): the head makes room, appends its record and those of the
// writers behind it with one write(2) (and one fsync if it syncs), outside the lock so that
// more writers can queue meanwhile, then applies them all to the memtable in queue order:
// what a reader sees is always in the log.
Status KvStore::WriteQueued(Writer* w) {
  Bg& b = *bg_;
  std::unique_lock<std::mutex> lock(b.mu);
  b.writers.push_back(w);
  b.queued.store(b.writers.size(), std::memory_order_relaxed);
  if (b.writers.front() == w) {
    w->turn.store(Writer::kHead, std::memory_order_relaxed);
  } else {
    // A head's group takes a few microseconds, a sleep and a wake-up many more (a context
    // switch each way, and a system call for the wake-up): the writer first watches its
    // turn for a while, spinning, then yielding its core, and sleeps only if it is still
    // waiting after that. It takes the mutex again either way: the head signals `cv` under
    // it, which must not outlive the writer.
    lock.unlock();
    WatchUntil([&] { return w->turn.load(std::memory_order_acquire) != Writer::kWaiting; });
    lock.lock();
    if (w->turn.load(std::memory_order_relaxed) == Writer::kWaiting) {
      w->cv.emplace();
      w->cv->wait(lock,
                  [&] { return w->turn.load(std::memory_order_relaxed) != Writer::kWaiting; });
    }
  }
  if (w->turn.load(std::memory_order_relaxed) == Writer::kDone) return w->status;
  if (w->n != 0 && w->sync) AwaitSyncCompany(lock);
  Status s = MakeRoomForWrite(lock, /*force=*/w->n == 0, w->record_size());
  Writer* last = w;
  if (s.ok() && w->n != 0) {
    size_t size = w->record_size();
    size_t members = 1;
    // A synced head waits for its fsync whatever it carries, so it takes company up to
    // kMaxGroupBytes whatever its size.
    const size_t limit =
        size <= kSmallRecordBytes && !w->sync ? size + kSmallRecordBytes : kMaxGroupBytes;
    for (auto it = b.writers.begin() + 1; it != b.writers.end(); ++it) {
      Writer* next = *it;
      // A synced write must not ride with an unsynced head; a Flush waits for its turn.
      if (next->n == 0 || (next->sync && !w->sync) || size + next->record_size() > limit) break;
      if (last == w) b.group.assign(w->head).append(w->body);
      b.group.append(next->head).append(next->body);
      size += next->record_size();
      ++members;
      last = next;
    }
    const bool name_durable = b.log_name_durable;
    // The older writes a synced write must not outlive (see Bg::flushing_log).
    std::shared_ptr<KvLogWriter> older =
        w->sync && b.flushing_log_unsynced ? b.flushing_log : nullptr;
    lock.unlock();
    // A failed append may have left part of a record, after which nothing appended could
    // be read back: the store takes no more writes.
    s = last != w ? b.log->Append(b.group) : b.log->Append(w->head, w->body);
    if (s.ok() && older) s = older->Sync();
    if (s.ok() && w->sync) s = b.log->Sync();
    // A fresh log's name (and its predecessor's, kv.log.flushing) reach the disk with its
    // first synced record, not when it is put in place: writers that never sync pay nothing.
    if (s.ok() && w->sync && !name_durable) s = options_.fs->SyncDir(stack_->dir());
    lock.lock();
    if (s.ok()) {
      b.log_unsynced = !w->sync;
      if (w->sync) b.log_has_synced = b.log_name_durable = b.log_header_durable = true;
      if (older && b.flushing_log == older) b.flushing_log_unsynced = false;
    }
    ++b.counters.log_writes;
    if (w->sync) {
      ++b.counters.log_syncs;
      b.last_synced_group = members;
    }
    if (!s.ok()) {
      if (b.error.ok()) b.error = s;
    } else {
      b.counters.log_bytes_written += size;
      b.log_bytes += size;
      for (auto it = b.writers.begin();; ++it) {
        const Writer& x = **it;
        // Records this store encoded: they decode (the status only says so).
        Status decoded = DecodeKvLogBatch(x.ops, [&](const KvLogOp& op) {
          b.counters.user_bytes_written += op.key.size() + (op.value ? op.value->size() : 0);
          if (op.value) {
            b.mem->Put(op.key, *op.value);
          } else {
            b.mem->Delete(op.key);
          }
        });
        (void)decoded;
        ++b.batches;
        if (*it == last) break;
      }
    }
  }
  for (;;) {
    Writer* x = b.writers.front();
    b.writers.pop_front();
    if (x != w) {
      x->status = s;
      x->turn.store(Writer::kDone, std::memory_order_release);
      x->Wake();
    }
    if (x == last) break;
  }
  b.queued.store(b.writers.size(), std::memory_order_relaxed);
  if (!b.writers.empty()) {
    Writer* head = b.writers.front();
    head->turn.store(Writer::kHead, std::memory_order_release);
    head->Wake();
  }
  return s;
}

// Called by a synced head (mu held; released while it waits). When its last synced group
// had company and fewer writers are queued now, the head watches the queue (spinning, then
// yielding its core, as a queued writer watches its turn) until as many are queued or the
// watch ends, before it writes: the writers that group woke are on their way back with
// their next writes, and one fsync can carry them. Without the watch, the first of them to
// return found the queue empty and synced alone, the others queueing behind that fsync:
// with 4 threads making synced puts, groups alternated between one writer and the rest
// (2.5 writers per fsync on average, 4 with the watch). A lone synced writer (last group
// of one) never waits. The watch is at most kSpinsBeforeSleep checks: microseconds while
// the cores are idle, against an fsync's 100 or more; a yield lasts longer only when another
// thread wants the core, such as a writer on its way back.
void KvStore::AwaitSyncCompany(std::unique_lock<std::mutex>& lock) {
  Bg& b = *bg_;
  const size_t want = b.last_synced_group;
  if (want <= 1 || b.writers.size() >= want) return;
  lock.unlock();
  WatchUntil([&] { return b.queued.load(std::memory_order_relaxed) >= want; });
  lock.lock();
}

// Called by the head of the queue. Makes the memtable immutable when it is full (or when
// `force`, unless it is empty), after the rule at the top of kv_store.h.
Status KvStore::MakeRoomForWrite(std::unique_lock<std::mutex>& lock, bool force, size_t bytes) {
  Bg& b = *bg_;
  bool allow_delay = !force;
  for (;;) {
    if (!b.error.ok()) return b.error;
    if (b.stop) return Status::InvalidArgument(stack_->dir() + ": the store is closed");
    // Only while the compaction thread has a merge to run: one it lost to another process's
    // lock is not retried before the next flush, and waiting for it would never end.
    const bool compaction_behind = b.compaction_due && b.pending_tables >= kKvSlowdownTables;
    if (allow_delay && compaction_behind) {
      // At most once per write: spreads the wait over many writes instead of one long stop.
      // By the bytes written (kKvSlowdownBytes), since bytes are what the merges fall behind
      // on: a small write adds to a debt paid 1 ms at a time.
      allow_delay = false;
      b.slowdown_debt += bytes;
      if (b.slowdown_debt < kKvSlowdownBytes) continue;
      b.slowdown_debt = 0;
      const auto start = std::chrono::steady_clock::now();
      lock.unlock();
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      lock.lock();
      ++b.counters.write_slowdowns;
      b.counters.write_stall_micros += MicrosSince(start);
      continue;
    }
    // While the previous memtable is still being flushed, the current one takes writes up to
    // kKvFlushingGrowth times its size before they wait (see the top of kv_store.h).
    if (!force && !MemtableFull(b.imm ? kKvFlushingGrowth : b.mem_growth)) return Status::Ok();
    if (force && b.mem->empty()) return Status::Ok();
    if (b.imm || (b.compaction_due && b.pending_tables >= kKvStopTables)) {
      ++b.counters.write_stops;
      const auto start = std::chrono::steady_clock::now();
      b.state_cv.wait(lock);  // the threads notify after every job
      b.counters.write_stall_micros += MicrosSince(start);
      continue;
    }
    REFTAB_RETURN_IF_ERROR(FreezeMemtable());
    force = false;
  }
}

bool KvStore::MemtableFull(size_t growth) const {
  const KvMemtable& mem = *bg_->mem;
  return mem.bytes() >= growth * options_.memtable_size ||
         mem.writes() >= growth * options_.memtable_entries;
}

// kv.log becomes kv.log.flushing behind a fresh kv.log (RotateKvLog), and the memtable the
// immutable one, for the flush thread; mu held, or before the threads start (Recover). A
// failure leaves the logs in a state only the next open sorts out (kv.log may be missing
// until then): the store takes no more writes.
Status KvStore::FreezeMemtable() {
  Bg& b = *bg_;
  std::unique_ptr<KvLogWriter> fresh;
  // The stack's state as the last flush left it (installed before its memtable went), or
  // as Open found it.
  const KvLogHeader header{(b.tables ? b.tables : stack_->snapshot())->max_update_index(),
                           b.log_bytes};
  Status s = RotateKvLog(options_.fs, stack_->dir(), b.log_has_synced, header, &fresh);
  if (!s.ok()) {
    b.error = s;
    return s;
  }
  b.flushing_log = std::move(b.log);
  b.flushing_log_unsynced = b.log_unsynced;
  b.log = std::move(fresh);
  b.log_bytes = kKvLogHeaderSize;
  b.log_has_synced = b.log_name_durable = b.log_unsynced = b.log_header_durable = false;
  b.imm_bytes = b.mem->bytes();
  b.imm_largest = b.mem->largest();
  b.imm = b.mem->Freeze();
  b.imm_batches = b.batches;
  b.mem = std::make_unique<KvMemtable>(b.mem_pool);
  b.mem_growth = 1;
  b.batches = 0;
  ++b.rotations;
  b.flush_cv.notify_one();
  return Status::Ok();
}

void KvStore::FlushLoop() {
  Bg& b = *bg_;
  std::unique_lock<std::mutex> lock(b.mu);
  for (;;) {
    b.flush_cv.wait(lock, [&] { return b.stop || (b.error.ok() && b.imm); });
    if (b.stop) return;
    b.flush_busy = true;
    Status s = FlushImmutable(lock);
    b.flush_busy = false;
    if (!s.ok() && b.error.ok()) b.error = s;
    b.state_cv.notify_all();
  }
}

// Runs beside the flushes: a writer waits for a flush only, never behind a merge (unless
// the stop rule at the top of kv_store.h makes it wait for the merge itself).
void KvStore::CompactLoop() {
  Bg& b = *bg_;
  std::unique_lock<std::mutex> lock(b.mu);
  for (;;) {
    b.compact_cv.wait(lock, [&] { return b.stop || (b.error.ok() && b.compaction_due); });
    if (b.stop) return;
    b.compact_busy = true;
    Status s = CompactDue(lock);
    b.compact_busy = false;
    if (!s.ok() && b.error.ok()) b.error = s;
    b.state_cv.notify_all();
  }
}

// The order makes a crash at any point safe: the table is listed (and, unless kNone, the
// listing durable) before kv.log.flushing, which holds the same writes, is removed.
Status KvStore::FlushImmutable(std::unique_lock<std::mutex>& lock) {
  Bg& b = *bg_;
  std::shared_ptr<const KvMemLayers> imm = b.imm;
  const size_t imm_largest = b.imm_largest;
  // kv.log's header must be on the disk before the table is listed: after a crash it is
  // what tells Open that kv.log.flushing, if the crash left it, is in a table
  // (store/kv/kv_log_format.h). Usually a few records follow it yet (the flush starts
  // when the log is made); writers go on appending meanwhile.
  std::shared_ptr<KvLogWriter> next_log =
      options_.durability != Durability::kNone && !b.log_header_durable ? b.log : nullptr;
  lock.unlock();
  if (next_log) {
    Status synced = next_log->Sync();
    lock.lock();
    if (!synced.ok()) return synced;
    if (b.log == next_log) b.log_header_durable = true;
    lock.unlock();
  }
  bool wrote_table = false;
  Status s;
  std::unique_lock<std::mutex> stack_lock(stack_mu_);
  {
    for (;;) {
      s = WriteLayers(stack_.get(), imm, imm_largest, &wrote_table);
      // tables.list.lock held by this store's own compaction (it holds it for a moment at
      // its start and its end; KvOptions::lock_timeout_ms is for other processes): a flush
      // retries for as long as a compaction runs here (compact_mu_ held), then fails as
      // the timeout says.
      if (s.code() != Code::kLockHeld) break;
      if (compact_mu_.try_lock()) {  // no compaction here: another process holds the lock
        compact_mu_.unlock();
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    // Three more fsyncs per flush with kGit (after kv.log's, above), each needed before
    // kv.log.flushing may go: the table's (in AddTable) and the list's, before their
    // renames, so that a rename the disk keeps never names bytes it lost; and the folder's,
    // for the renames themselves: the removal of the log below could otherwise reach the
    // disk before them.
    if (s.ok() && options_.durability != Durability::kNone) {
      s = options_.fs->SyncDir(stack_->dir());
    }
    // Left behind (a failed removal), the log is harmless: replayed before kv.log, it
    // repeats what the table holds, and the next rotation replaces it.
    if (s.ok()) {
      Status gone = options_.fs->Remove(KvPath(stack_->dir(), kKvFlushingLogName));
      (void)gone;
    }
  }
  // Installed before stack_mu_ goes: states install in the order the list took them.
  lock.lock();
  if (!s.ok()) return s;
  UpdateTables(lock, stack_->snapshot());
  stack_lock.unlock();
  b.imm.reset();
  b.flushing_log.reset();  // its writes are in a table (durable unless Durability::kNone)
  b.flushing_log_unsynced = false;
  if (!wrote_table) b.batches += b.imm_batches;  // else sequence() would go back
  b.imm_batches = 0;
  b.imm_bytes = 0;
  b.imm_largest = 0;
  ++b.flushed;
  ++b.counters.flushes;
  return Status::Ok();
}

Status KvStore::CompactDue(std::unique_lock<std::mutex>& lock) {
  Bg& b = *bg_;
  lock.unlock();
  Status s;
  bool merged = false;
  {
    std::lock_guard<std::mutex> compact_lock(compact_mu_);
    // Only compactions remove tables, and only under compact_mu_: a table listed before
    // and gone after was merged.
    s = compact_stack_->ReloadIfChanged();
    const std::vector<std::string> before = compact_stack_->names();
    if (s.ok()) s = compact_stack_->CompactIfDue(nullptr, &b.closing);
    const std::vector<std::string>& now = compact_stack_->names();
    merged = std::any_of(before.begin(), before.end(), [&](const std::string& n) {
      return std::find(now.begin(), now.end(), n) == now.end();
    });
  }
  const bool lost_race = s.code() == Code::kLockHeld || s.code() == Code::kOutdated;
  Status installed = InstallTables(merged ? 1 : 0);
  lock.lock();
  if (!s.ok() && !lost_race) return s;
  REFTAB_RETURN_IF_ERROR(installed);
  // Losing to another process's compaction, or merging nothing: try again after the next
  // flush rather than spin.
  if (lost_race || !merged) b.compaction_due = false;
  return Status::Ok();
}

// Installs the latest state of the list after a compaction (or a CompactAll, or a
// Refresh): the flush handle reloads it, under stack_mu_, so that states install in the
// order tables.list took them whichever thread changed it. `merges` (the auto-compactions
// that produced this state) is counted under the same lock as the state is installed, so
// that Properties never shows a merge's tables without it or it without its tables.
Status KvStore::InstallTables(uint64_t merges) {
  std::lock_guard<std::mutex> stack_lock(stack_mu_);
  Status s = stack_->ReloadIfChanged();
  if (bg_) {
    std::unique_lock<std::mutex> lock(bg_->mu);
    bg_->counters.compactions += merges;  // the merge happened even if the reload failed
    if (s.ok()) UpdateTables(lock, stack_->snapshot());
  }
  return s;
}

// Installs the stack's new state: counts the bytes of its new tables, and what
// auto-compaction has to do.
void KvStore::UpdateTables(std::unique_lock<std::mutex>& lock,
                           std::shared_ptr<const Snapshot> after, MergeStart start) {
  (void)lock;
  Bg& b = *bg_;
  if (b.tables) {
    const auto& old = b.tables->tables();
    for (const auto& t : after->tables()) {
      if (std::find(old.begin(), old.end(), t) == old.end()) {
        b.counters.table_bytes_written += t->file_size();
      }
    }
  }
  b.tables = std::move(after);
  PendingCompaction(*b.tables, &b.pending_tables, &b.pending_bytes);
  const bool start_now = start == MergeStart::kNow || b.pending_tables >= kKvSlowdownTables;
  b.compaction_due = options_.auto_compact && b.pending_tables != 0 && start_now;
  if (b.compaction_due) b.compact_cv.notify_one();
}

Status KvStore::Flush() {
  if (!bg_) return Status::InvalidArgument(stack_->dir() + ": the store is open read-only");
  Writer w;  // n == 0: its turn makes the memtable immutable
  REFTAB_RETURN_IF_ERROR(WriteQueued(&w));
  Bg& b = *bg_;
  std::unique_lock<std::mutex> lock(b.mu);
  const uint64_t rotation = b.rotations;
  b.state_cv.wait(lock, [&] {
    return !b.error.ok() || b.stop ||
           (b.flushed >= rotation && !b.flush_busy && !b.compact_busy && !b.compaction_due);
  });
  return b.error;
}

Status KvStore::MaybeRefresh() {
  return !bg_ && options_.refresh_on_read ? Refresh() : Status::Ok();
}

Status KvStore::Refresh() { return InstallTables(); }

std::shared_ptr<const Snapshot> KvStore::Tables() {
  if (bg_) {
    std::lock_guard<std::mutex> lock(bg_->mu);
    return bg_->tables;
  }
  std::lock_guard<std::mutex> stack_lock(stack_mu_);
  return stack_->snapshot();
}

Status KvStore::Get(std::string_view key, std::string* value, bool* found) {
  *found = false;
  if (key.empty()) return Status::Ok();
  std::shared_ptr<const Snapshot> tables;
  if (bg_) {
    Bg& b = *bg_;
    std::lock_guard<std::mutex> lock(b.mu);
    KvMemLookup in_mem = b.mem->Get(key, value);
    if (in_mem == KvMemLookup::kAbsent && b.imm) in_mem = LookupKvMemLayers(*b.imm, key, value);
    switch (in_mem) {
      case KvMemLookup::kValue: *found = true; return Status::Ok();
      case KvMemLookup::kDeleted: return Status::Ok();
      case KvMemLookup::kAbsent: break;
    }
    tables = b.tables;
  } else {
    REFTAB_RETURN_IF_ERROR(MaybeRefresh());
    tables = Tables();
  }
  // One thread at a time reuses the cached snapshot's buffers; the others make their own.
  std::unique_lock<std::mutex> mine(get_mu_, std::try_to_lock);
  if (!mine.owns_lock()) return KvSnapshot(std::move(tables)).Get(key, value, found);
  if (!current_ || current_->snap_ != tables) current_.emplace(std::move(tables));
  return current_->Get(key, value, found);
}

Status KvStore::MultiGet(const std::vector<std::string_view>& keys,
                         std::vector<std::string>* values, std::vector<bool>* found) {
  values->resize(keys.size());
  found->assign(keys.size(), false);
  std::vector<size_t> in_tables;  // the keys the memtables do not decide
  std::shared_ptr<const Snapshot> tables;
  if (bg_) {
    Bg& b = *bg_;
    std::lock_guard<std::mutex> lock(b.mu);
    for (size_t i = 0; i < keys.size(); ++i) {
      if (keys[i].empty()) continue;
      KvMemLookup in_mem = b.mem->Get(keys[i], &(*values)[i]);
      if (in_mem == KvMemLookup::kAbsent && b.imm) {
        in_mem = LookupKvMemLayers(*b.imm, keys[i], &(*values)[i]);
      }
      if (in_mem == KvMemLookup::kValue) (*found)[i] = true;
      if (in_mem == KvMemLookup::kAbsent) in_tables.push_back(i);
    }
    tables = b.tables;
  } else {
    REFTAB_RETURN_IF_ERROR(MaybeRefresh());
    tables = Tables();
    for (size_t i = 0; i < keys.size(); ++i) {
      if (!keys[i].empty()) in_tables.push_back(i);
    }
  }
  KvSnapshot snap(std::move(tables));
  for (size_t i : in_tables) {
    bool here = false;
    REFTAB_RETURN_IF_ERROR(snap.Get(keys[i], &(*values)[i], &here));
    (*found)[i] = here;
  }
  return Status::Ok();
}

Result<KvSnapshot> KvStore::GetSnapshot() {
  if (!bg_) {
    REFTAB_RETURN_IF_ERROR(MaybeRefresh());
    return KvSnapshot(Tables());
  }
  Bg& b = *bg_;
  std::lock_guard<std::mutex> lock(b.mu);
  std::shared_ptr<const KvSnapshot::Mem> mem;
  const uint64_t batches = b.batches + b.imm_batches;
  if (b.imm || !b.mem->empty() || batches != 0) {
    std::shared_ptr<const KvMemLayers> layers = b.mem->Freeze();
    if (b.imm) {  // older than the memtable's layers
      auto all = std::make_shared<KvMemLayers>(*b.imm);
      all->insert(all->end(), layers->begin(), layers->end());
      layers = std::move(all);
    }
    mem = std::make_shared<const KvSnapshot::Mem>(KvSnapshot::Mem{std::move(layers), batches});
  }
  return KvSnapshot(b.tables, std::move(mem));
}

Result<KvIterator> KvStore::NewIterator(const KvIteratorOptions& options) {
  REFTAB_ASSIGN_OR_RETURN(KvSnapshot snap, GetSnapshot());
  return snap.NewIterator(options);
}

KvProperties KvStore::Properties() {
  KvProperties p;
  std::shared_ptr<const Snapshot> tables;
  if (bg_) {
    Bg& b = *bg_;
    std::lock_guard<std::mutex> lock(b.mu);
    p = b.counters;
    p.memtable_bytes = b.mem->bytes();
    p.immutable_memtable_bytes = b.imm_bytes;
    p.pending_compaction_tables = b.pending_tables;
    p.pending_compaction_bytes = b.pending_bytes;
    tables = b.tables;
  } else {
    tables = Tables();
    PendingCompaction(*tables, &p.pending_compaction_tables, &p.pending_compaction_bytes);
  }
  for (const auto& t : tables->tables()) {
    p.table_sizes.push_back(t->file_size());
    p.table_bytes += t->file_size();
  }
  return p;
}

Status KvStore::CompactAll() {
  Status s;
  if (bg_) {
    REFTAB_RETURN_IF_ERROR(Flush());
    // On the compaction thread's handle, after its merge if one runs: the two would lock
    // each other's tables. Flushes go on meanwhile.
    std::lock_guard<std::mutex> compact_lock(compact_mu_);
    s = compact_stack_->CompactAll();
  } else {
    std::lock_guard<std::mutex> stack_lock(stack_mu_);
    s = stack_->CompactAll();
  }
  Status installed = InstallTables();
  return s.ok() ? installed : s;
}

}  // namespace reftab
