#include "store/kv/kv_store.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <numeric>

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

struct KvIterator::Impl {
  std::shared_ptr<const Snapshot> snap;  // keeps the tables mapped
  RefMergeCursor it;
  KvIteratorOptions options;
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
  const KvIteratorOptions& o = impl_->options;
  std::string_view from = key;
  if (o.lower_bound && std::string_view(*o.lower_bound) > from) from = *o.lower_bound;
  if (std::string_view(o.prefix) > from) from = o.prefix;
  valid_ = false;
  REFTAB_RETURN_IF_ERROR(from.empty() ? impl_->it.SeekToFirst() : impl_->it.Seek(from));
  Settle();
  return impl_->it.status();
}

void KvIterator::Next() {
  if (valid_) Settle();
}

void KvIterator::Settle() {
  const KvIteratorOptions& o = impl_->options;
  valid_ = impl_->it.Next(&rec_);
  if (!valid_) return;
  std::string_view k = rec_.refname;
  if (o.upper_bound && k >= std::string_view(*o.upper_bound)) valid_ = false;
  if (!o.prefix.empty() && k.substr(0, o.prefix.size()) != o.prefix) valid_ = false;
}

// ------------------------------------------------------------------ KvSnapshot

KvSnapshot::KvSnapshot(std::shared_ptr<const Snapshot> snap) : snap_(std::move(snap)) {}

Status KvSnapshot::Get(std::string_view key, std::string* value, bool* found) const {
  *found = false;
  if (key.empty()) return Status::Ok();
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
  return KvIterator(
      std::unique_ptr<KvIterator::Impl>(new KvIterator::Impl{snap_, std::move(merge), options}));
}

uint64_t KvSnapshot::sequence() const { return snap_->max_update_index(); }

// ------------------------------------------------------------------ KvStore

namespace {

StackOptions StackOptionsFor(const KvOptions& o) {
  StackOptions s;
  s.fs = o.fs;
  s.durability = o.durability;
  s.lock_timeout_ms = o.lock_timeout_ms;
  s.auto_compact = o.auto_compact;
  s.fit_block_size = true;
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

// The batch's operations in key order, the last one of each key only.
std::vector<size_t> LastOpPerKey(const std::vector<std::string>& keys) {
  std::vector<size_t> order(keys.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return keys[a] < keys[b]; });
  std::vector<size_t> last;
  for (size_t i = 0; i < order.size(); ++i) {
    if (i + 1 < order.size() && keys[order[i]] == keys[order[i + 1]]) continue;
    last.push_back(order[i]);
  }
  return last;
}

}  // namespace

KvStore::KvStore(std::unique_ptr<Stack> stack, bool refresh_on_read)
    : stack_(std::move(stack)), refresh_on_read_(refresh_on_read) {}
KvStore::~KvStore() = default;

Result<std::unique_ptr<KvStore>> KvStore::Open(const std::string& dir, const KvOptions& options) {
  if (options.create_if_missing && options.fs == nullptr) REFTAB_RETURN_IF_ERROR(MakeDir(dir));
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<Stack> stack, Stack::Open(dir, StackOptionsFor(options)));
  return std::unique_ptr<KvStore>(new KvStore(std::move(stack), options.refresh_on_read));
}

Status KvStore::Put(std::string_view key, std::string_view value) {
  KvWriteBatch b;
  b.Put(key, value);
  return Write(b);
}

Status KvStore::Delete(std::string_view key) {
  KvWriteBatch b;
  b.Delete(key);
  return Write(b);
}

Status KvStore::Write(const KvWriteBatch& batch) {
  std::vector<std::string> keys;
  keys.reserve(batch.ops_.size());
  for (const KvWriteBatch::Op& op : batch.ops_) {
    REFTAB_RETURN_IF_ERROR(CheckEntry(op.key, op.value ? op.value->size() : 0));
    keys.push_back(op.key);
  }
  Transaction tx = stack_->NewTransaction();
  for (size_t i : LastOpPerKey(keys)) {
    const KvWriteBatch::Op& op = batch.ops_[i];
    if (op.value) {
      tx.Update(std::move(keys[i]), RefValue::Symref(*op.value));
    } else {
      tx.Delete(std::move(keys[i]));
    }
  }
  return tx.Commit();
}

Status KvStore::Refresh() { return stack_->ReloadIfChanged(); }

Status KvStore::Get(std::string_view key, std::string* value, bool* found) {
  REFTAB_RETURN_IF_ERROR(MaybeRefresh());
  std::shared_ptr<const Snapshot> now = stack_->snapshot();
  if (!current_ || current_->snap_ != now) current_.emplace(std::move(now));
  return current_->Get(key, value, found);
}

Result<KvSnapshot> KvStore::GetSnapshot() {
  REFTAB_RETURN_IF_ERROR(MaybeRefresh());
  return KvSnapshot(stack_->snapshot());
}

Result<KvIterator> KvStore::NewIterator(const KvIteratorOptions& options) {
  REFTAB_ASSIGN_OR_RETURN(KvSnapshot snap, GetSnapshot());
  return snap.NewIterator(options);
}

Status KvStore::CompactAll() { return stack_->CompactAll(); }

}  // namespace reftab
