#include "store/kv/kv_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "store/kv/kv_files.h"
#include "store/kv/kv_log_format.h"
#include "store/kv/kv_memtable.h"
#include "store/merge_cursor.h"
#include "store/merged_iterator.h"
#include "store/snapshot_access.h"
#include "store/stack.h"
#include "store/transaction.h"

namespace reftab {

// ------------------------------------------------------------------ KvWriteBatch

void KvWriteBatch::Put(std::string_view key, std::string_view value) {
  ops_.push_back(Op{std::string(key), std::string(value)});
}

void KvWriteBatch::Delete(std::string_view key) {
  ops_.push_back(Op{std::string(key), std::nullopt});
}

// ------------------------------------------------------------------ KvIterator

// Two sources merged: the snapshot's frozen memtable (newer, deletions included) and the
// tables' merged cursor (deletions already applied among the tables). On equal keys the
// memtable's entry wins and the table's is skipped; a memtable deletion hides the key.
struct KvIterator::Impl {
  std::shared_ptr<const Snapshot> snap;  // keeps the tables mapped
  RefMergeCursor it;
  KvIteratorOptions options;
  std::optional<KvMemCursor> mem;  // when the snapshot has a memtable
  RefRecord table_rec;             // the tables' next entry, when table_valid
  bool table_valid = false;
};

KvIterator::KvIterator(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
  impl_->it.set_suppress_deletions(true);
}
KvIterator::KvIterator(KvIterator&&) noexcept = default;
KvIterator& KvIterator::operator=(KvIterator&&) noexcept = default;
KvIterator::~KvIterator() = default;

std::string_view KvIterator::value() const {
  if (rec_.value_type == RefValueType::kSymref) return rec_.target;
  // Not written by a KvStore (a stack shared with git's refs): the object id's bytes.
  return std::string_view(reinterpret_cast<const char*>(rec_.value.data()),
                          impl_->snap->hash_size());
}

const Status& KvIterator::status() const { return impl_->it.status(); }

Status KvIterator::SeekToFirst() { return Seek(std::string_view()); }

Status KvIterator::Seek(std::string_view key) {
  Impl& m = *impl_;
  const KvIteratorOptions& o = m.options;
  std::string_view from = key;
  if (o.lower_bound && std::string_view(*o.lower_bound) > from) from = *o.lower_bound;
  if (std::string_view(o.prefix) > from) from = o.prefix;
  valid_ = false;
  REFTAB_RETURN_IF_ERROR(from.empty() ? m.it.SeekToFirst() : m.it.Seek(from));
  m.table_valid = m.it.Next(&m.table_rec);
  if (m.mem) m.mem->Seek(from);
  Settle();
  return m.it.status();
}

void KvIterator::Next() {
  if (valid_) Settle();
}

void KvIterator::Settle() {
  Impl& m = *impl_;
  valid_ = false;
  for (;;) {
    if (!m.it.status().ok()) return;
    const bool from_mem = m.mem && m.mem->Valid();
    if (!from_mem && !m.table_valid) return;
    int order = !from_mem ? 1 : !m.table_valid ? -1 : m.mem->key().compare(m.table_rec.refname);
    if (order > 0) {  // the table's entry comes first
      std::swap(rec_, m.table_rec);
      m.table_valid = m.it.Next(&m.table_rec);
      break;
    }
    if (order == 0) m.table_valid = m.it.Next(&m.table_rec);  // hidden by the memtable's
    const std::optional<std::string>& v = m.mem->value();
    if (v) {
      rec_.refname.assign(m.mem->key());
      rec_.value_type = RefValueType::kSymref;
      rec_.target.assign(*v);
      m.mem->Next();
      break;
    }
    m.mem->Next();  // a deletion
  }
  valid_ = true;
  const KvIteratorOptions& o = m.options;
  std::string_view k = rec_.refname;
  if (o.upper_bound && k >= std::string_view(*o.upper_bound)) valid_ = false;
  if (!o.prefix.empty() && k.substr(0, o.prefix.size()) != o.prefix) valid_ = false;
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
  RefMergeCursor merge(snap_->readers());
  merge.set_merge_order(SnapshotAccess::RefOrder(*snap_));
  auto impl = std::unique_ptr<KvIterator::Impl>(
      new KvIterator::Impl{snap_, std::move(merge), options, std::nullopt, RefRecord(), false});
  if (mem_) impl->mem.emplace(mem_->layers);
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
  s.auto_compact = o.auto_compact;
  s.fit_block_size = true;
  // A writer killed during a flush leaves tables.list.lock behind (git's protocol has no
  // stale locks); its pid file lets the error say that its holder no longer runs.
  s.lock_pid_files = true;
  s.write_options.block_size = o.block_size;
  s.write_options.index_objects = false;  // values are not object ids
  return s;
}

Status MakeDir(const std::string& dir) {
  if (::mkdir(dir.c_str(), 0777) == 0 || errno == EEXIST) return Status::Ok();
  return Status::IoError(dir + ": cannot create directory: " + std::strerror(errno));
}

Status CheckEntry(std::string_view key, size_t value_size) {
  if (key.empty()) return Status::InvalidArgument("empty key");
  if (key.size() + value_size > kMaxEntryBytes) {
    return Status::TooLarge("entry of " + std::to_string(key.size() + value_size) +
                            " bytes exceeds the limit of " + std::to_string(kMaxEntryBytes));
  }
  return Status::Ok();
}

}  // namespace

struct KvStore::OpView {
  std::string_view key;
  std::optional<std::string_view> value;  // nullopt: delete
};

KvStore::KvStore(std::unique_ptr<Stack> stack, const KvOptions& options)
    : stack_(std::move(stack)), options_(options) {
  if (options_.fs == nullptr) options_.fs = PosixFileSystem();
}
KvStore::~KvStore() = default;

Result<std::unique_ptr<KvStore>> KvStore::Open(const std::string& dir, const KvOptions& options) {
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
    kv->lock_ = std::move(lock);
    kv->mem_ = std::make_unique<KvMemtable>();
    REFTAB_RETURN_IF_ERROR(kv->Recover());
  }
  return kv;
}

// Replays the log into the memtable, moves it into a table, and starts an empty log: from
// then on, appends never follow a torn record.
Status KvStore::Recover() {
  Status damage;
  REFTAB_RETURN_IF_ERROR(ReplayKvLog(
      options_.fs, stack_->dir(), [this](std::string_view p) { return ApplyLogRecord(p); },
      &damage));
  if (!damage.ok()) {
    if (options_.paranoid_checks) return damage;
    log_recovery_ = damage;
  }
  REFTAB_RETURN_IF_ERROR(MoveMemtableToTable());
  batches_since_table_ = 0;  // sequence() starts from the tables at open
  return Status::Ok();
}

Status KvStore::ApplyLogRecord(std::string_view payload) {
  REFTAB_RETURN_IF_ERROR(DecodeKvLogBatch(payload, [this](const KvLogOp& op) {
    if (op.value) {
      mem_->Put(op.key, *op.value);
    } else {
      mem_->Delete(op.key);
    }
  }));
  ++batches_since_table_;
  return Status::Ok();
}

Status KvStore::CheckWritable() const {
  if (!mem_) return Status::InvalidArgument(stack_->dir() + ": the store is open read-only");
  return broken_;
}

Status KvStore::Put(std::string_view key, std::string_view value, const KvWriteOptions& options) {
  const OpView op{key, value};
  return WriteOps(&op, 1, options);
}

Status KvStore::Delete(std::string_view key, const KvWriteOptions& options) {
  const OpView op{key, std::nullopt};
  return WriteOps(&op, 1, options);
}

Status KvStore::Write(const KvWriteBatch& batch, const KvWriteOptions& options) {
  std::vector<OpView> ops;
  ops.reserve(batch.ops_.size());
  for (const KvWriteBatch::Op& op : batch.ops_) {
    ops.push_back(
        OpView{op.key, op.value ? std::optional<std::string_view>(*op.value) : std::nullopt});
  }
  return WriteOps(ops.data(), ops.size(), options);
}

// The log record first (synced if asked), then the memtable: what a reader sees is always
// in the log.
Status KvStore::WriteOps(const OpView* ops, size_t n, const KvWriteOptions& options) {
  REFTAB_RETURN_IF_ERROR(CheckWritable());
  for (size_t i = 0; i < n; ++i) {
    REFTAB_RETURN_IF_ERROR(CheckEntry(ops[i].key, ops[i].value ? ops[i].value->size() : 0));
  }
  if (n == 0) return Status::Ok();
  record_.clear();
  KvLogRecordBuilder record(&record_);
  for (size_t i = 0; i < n; ++i) {
    if (ops[i].value) {
      record.Put(ops[i].key, *ops[i].value);
    } else {
      record.Delete(ops[i].key);
    }
  }
  REFTAB_RETURN_IF_ERROR(record.Finish());
  // A failed append may have left part of a record, after which nothing appended could be
  // read back: the store takes no more writes.
  Status s = log_->Append(record_);
  if (s.ok() && options.sync) s = log_->Sync();
  if (!s.ok()) {
    broken_ = s;
    return s;
  }
  for (size_t i = 0; i < n; ++i) {
    if (ops[i].value) {
      mem_->Put(ops[i].key, *ops[i].value);
    } else {
      mem_->Delete(ops[i].key);
    }
  }
  ++batches_since_table_;
  if (mem_->bytes() >= options_.memtable_size) return Flush();
  return Status::Ok();
}

// The memtable's entries as one transaction (one table; nothing if they change nothing).
Status KvStore::CommitMemtable(bool* wrote_table) {
  *wrote_table = false;
  if (mem_->empty()) return Status::Ok();
  KvMemCursor entry(mem_->Freeze());
  Transaction tx = stack_->NewTransaction();
  // The memtable's entries are writes the store acknowledged: no need to read each key to
  // drop the few that change nothing (a tombstone for a missing key costs a record until a
  // full compaction drops it).
  tx.set_blind_writes(true);
  for (entry.Seek(std::string_view()); entry.Valid(); entry.Next()) {
    if (entry.value()) {
      tx.Update(entry.key(), RefValue::Symref(*entry.value()));
    } else {
      tx.Delete(entry.key());
    }
  }
  REFTAB_RETURN_IF_ERROR(tx.Commit());
  *wrote_table = tx.committed_update_index() != 0;
  return Status::Ok();
}

Status KvStore::Flush() {
  REFTAB_RETURN_IF_ERROR(CheckWritable());
  if (mem_->empty()) return Status::Ok();
  return MoveMemtableToTable();
}

// The order makes a crash at any point safe: the table is listed (and, unless kNone, the
// listing durable) before the log that holds the same writes is replaced. A crash before
// the replacement leaves the old log, whose replay at open changes nothing the table does
// not already hold.
Status KvStore::MoveMemtableToTable() {
  bool wrote_table = false;
  REFTAB_RETURN_IF_ERROR(CommitMemtable(&wrote_table));
  mem_->Clear();  // the table holds it now; the log too, until it is replaced
  if (wrote_table) batches_since_table_ = 0;  // else sequence() must not go back
  const bool sync = options_.durability != Durability::kNone;
  if (sync) REFTAB_RETURN_IF_ERROR(options_.fs->SyncDir(stack_->dir()));
  // If the new log is not made, the old one stays in use: appending to it is still right,
  // as its replay at open would only repeat what the table holds before the newer records.
  // If it is in place but the folder's sync failed, its name may not survive a machine
  // crash, nor then the synced writes it would take: the store takes no more writes.
  std::unique_ptr<KvLogWriter> fresh;
  Status s = KvLogWriter::CreateFresh(options_.fs, stack_->dir(), sync, &fresh);
  if (fresh) {
    log_ = std::move(fresh);
    if (!s.ok()) broken_ = s;
  }
  return s;
}

Status KvStore::MaybeRefresh() {
  return mem_ == nullptr && options_.refresh_on_read ? Refresh() : Status::Ok();
}

Status KvStore::Refresh() { return stack_->ReloadIfChanged(); }

Status KvStore::Get(std::string_view key, std::string* value, bool* found) {
  *found = false;
  if (mem_ && !key.empty()) {
    switch (mem_->Get(key, value)) {
      case KvMemLookup::kValue: *found = true; return Status::Ok();
      case KvMemLookup::kDeleted: return Status::Ok();
      case KvMemLookup::kAbsent: break;
    }
  }
  REFTAB_RETURN_IF_ERROR(MaybeRefresh());
  std::shared_ptr<const Snapshot> now = stack_->snapshot();
  if (!current_ || current_->snap_ != now) current_.emplace(std::move(now));
  return current_->Get(key, value, found);
}

Result<KvSnapshot> KvStore::GetSnapshot() {
  REFTAB_RETURN_IF_ERROR(MaybeRefresh());
  std::shared_ptr<const KvSnapshot::Mem> mem;
  if (mem_ && (!mem_->empty() || batches_since_table_ != 0)) {
    mem = std::make_shared<const KvSnapshot::Mem>(
        KvSnapshot::Mem{mem_->Freeze(), batches_since_table_});
  }
  return KvSnapshot(stack_->snapshot(), std::move(mem));
}

Result<KvIterator> KvStore::NewIterator(const KvIteratorOptions& options) {
  REFTAB_ASSIGN_OR_RETURN(KvSnapshot snap, GetSnapshot());
  return snap.NewIterator(options);
}

Status KvStore::CompactAll() {
  if (mem_) REFTAB_RETURN_IF_ERROR(Flush());
  return stack_->CompactAll();
}

}  // namespace reftab
