// Compaction: merging a range of a stack's tables into one (FORMAT.md §18), holding the locks
// that keep concurrent appends, compactions and cleans safe, in the order git uses:
//   1. lock tables.list, reload, lock every table in the range (<name>.lock, newest first);
//   2. release tables.list so other writers can append while the merge runs;
//   3. merge into a temporary table (<name>.temp.XXXXXX), which no clean removes;
//   4. lock tables.list again, reload, find the range again (other compactions may have
//      changed the list around it), and only now rename the new table into place, right
//      before writing the list that names it (removing it again if that fails);
//   5. reload, delete the merged tables, drop the table locks.
// Renaming in step 3 instead would leave, while tables.list is unlocked, a table that no
// list names: exactly what a concurrent clean (ours or git's) deletes as a crashed
// writer's, after which step 4 would publish a list naming a missing file.
#include <algorithm>
#include <chrono>
#include <map>

#include "store/disjoint_merge.h"
#include "store/merge_cursor.h"
#include "store/new_records.h"
#include "store/progress.h"
#include "store/readahead_window.h"
#include "store/stack.h"
#include "store/table_log_blocks.h"
#include "store/temp_table.h"
#include "store/trace.h"

namespace reftab {
namespace {

// Table locks held during a compaction; removed on every exit path.
class TableLocks {
 public:
  TableLocks(FileSystem* fs, std::optional<uint32_t> mode, bool pid_files, const WarningSink& warn)
      : fs_(fs), mode_(mode), pid_files_(pid_files), warn_(warn) {}
  ~TableLocks() {
    for (const std::string& p : pid_paths_) (void)fs_->Remove(p);
    for (const std::string& p : paths_) (void)fs_->Remove(p);
  }
  // Creates `path`.lock; kLockHeld, saying what the file is, if it exists.
  Status Take(const std::string& path) {
    auto f = fs_->Create(path + ".lock", /*exclusive=*/true);
    if (!f.ok() && f.status().code() == Code::kLockHeld) {
      return LockHeldError(fs_, path, "process is compacting this table");
    }
    if (!f.ok()) return f.status();
    (void)(*f)->Close();  // keep the file, not the descriptor
    paths_.push_back(path + ".lock");
    if (mode_) REFTAB_RETURN_IF_ERROR(fs_->Chmod(path + ".lock", *mode_));
    if (pid_files_ && WriteLockPidFile(fs_, path, mode_, warn_))
      pid_paths_.push_back(LockPidFilePath(path));
    return Status::Ok();
  }

 private:
  FileSystem* fs_;
  std::optional<uint32_t> mode_;
  bool pid_files_;
  const WarningSink& warn_;  // the stack's options'
  std::vector<std::string> paths_;
  std::vector<std::string> pid_paths_;
};

}  // namespace

Status Stack::CompactAll(const CompactionOptions& options) {
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  if (names_.empty()) return Status::Ok();
  // One table is already compact: as git, leave it (and the lock) alone unless its reflogs
  // are to be expired.
  const bool expiry = options.expire_logs_before || options.max_logs_per_ref;
  if (names_.size() == 1 && !expiry) return Status::Ok();
  return CompactSegment(0, names_.size() - 1, /*best_effort=*/false, options);
}

Status Stack::CompactRange(size_t first, size_t last, const CompactionOptions& options) {
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  if (first > last || last >= names_.size()) {
    return Status::InvalidArgument("compaction range [" + std::to_string(first) + ", " +
                                   std::to_string(last) + "] outside a stack of " +
                                   std::to_string(names_.size()) + " tables");
  }
  return CompactSegment(first, last, /*best_effort=*/false, options);
}

Status Stack::AutoCompact(Progress* progress) {
  if (!options_.auto_compact) return Status::Ok();
  Status s = CompactIfDue(progress);
  // Losing a race against another writer is fine here: the next write compacts again.
  if (s.code() == Code::kLockHeld || s.code() == Code::kOutdated) return Status::Ok();
  return s;
}

Status Stack::CompactIfDue(Progress* progress, const std::atomic<bool>* cancel) {
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  std::vector<uint64_t> sizes;
  for (const auto& t : snapshot_->tables()) {
    sizes.push_back(PolicySize(t->file_size(), VersionForHash(snapshot_->hash_id())));
  }
  std::optional<Segment> seg = SuggestCompaction(sizes, options_.geometric_factor);
  if (!seg) {
    REFTAB_TRACE(trace::kInfo, "%s: auto-compaction: %zu tables already geometric (factor %u)",
                 dir_.c_str(), sizes.size(), unsigned(options_.geometric_factor));
    return Status::Ok();
  }
  REFTAB_TRACE(trace::kInfo, "%s: auto-compaction: merging tables %zu..%zu of %zu", dir_.c_str(),
               size_t(seg->start), size_t(seg->end - 1), sizes.size());
  CompactionOptions options;
  options.progress = progress;
  options.cancel = cancel;
  Status s = CompactSegment(seg->start, seg->end - 1, /*best_effort=*/true, options);
  if (!s.ok()) {
    REFTAB_TRACE(trace::kInfo, "%s: auto-compaction failed: %s", dir_.c_str(), s.message().c_str());
  }
  return s;
}

namespace {

// The update indexes the merge of `tables` covers.
void UpdateRange(const std::vector<const TableReader*>& tables, uint64_t* min, uint64_t* max) {
  *min = tables.front()->min_update_index();
  *max = tables.front()->max_update_index();
  for (const TableReader* t : tables) {
    *min = std::min(*min, t->min_update_index());
    *max = std::max(*max, t->max_update_index());
  }
}

// Adds the record a merge cursor just returned by NextView(&r): the common ref (one id) by
// its parts, with its name left in the table's key buffer; any other with a copy of the
// name into `r`.
REFTAB_FORCE_INLINE Status AddViewedRef(TableWriter& w, const RefMergeCursor& c, RefRecord& r) {
  if (r.value_type == RefValueType::kVal1) return w.AddRef(c.key(), r.update_index, r.value);
  const std::string_view name = c.key();
  r.refname.assign(name.data(), name.size());
  return w.AddRef(r);
}

// Adds a log record as a compaction stores it: an update's message normalized.
Status AddCompactedLog(TableWriter& w, LogRecord& l) {
  if (l.value_type == LogValueType::kUpdate) NormalizeLogMessage(&l.message);
  return w.AddLog(l);
}

// Writes the merge of `tables` (oldest first). Tombstones and deleted reflog entries can
// only go when nothing older remains to be shadowed (`to_base`); so can expired entries.
// `copy`, if given, holds the log section ready made: the blocks `copy_from` was written
// with (Stack::CopyableLogSource).
Status WriteMerged(TableWriter& w, const std::vector<const TableReader*>& tables, bool to_base,
                   const CompactionOptions& options, const TableReader* copy_from,
                   const WrittenLogBlocks* copy) {
  ProgressPhase progress(options.progress, "Compacting records", 0);
  RefMergeCursor refs(tables);
  refs.set_suppress_deletions(to_base);
  // Each record is added before the cursor moves, and every block is read.
  refs.set_readahead(true, ReadaheadWindow::kFromTheSecondBlock);
  REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
  RefRecord r;
  // The pages the merge has passed go back in steps of kMergeReleaseStep per table, looked
  // at every 256 records (ReleasePassedPages).
  constexpr uint32_t kReleaseEvery = 256;
  uint32_t until_release = kReleaseEvery;
  std::vector<uint64_t> released;
  // NextView: the name stays in the table's key buffer (AddViewedRef).
  while (refs.NextView(&r)) {
    if (options.cancel && options.cancel->load(std::memory_order_relaxed)) {
      return Status::Outdated("compaction cancelled");
    }
    if (--until_release == 0) {
      until_release = kReleaseEvery;
      refs.ReleasePassedPages(kMergeReleaseStep, &released);
    }
    REFTAB_RETURN_IF_ERROR(AddViewedRef(w, refs, r));
    progress.Tick();
  }
  REFTAB_RETURN_IF_ERROR(refs.status());
  // Without a ref the first block would be a log block, which carries the file header: the
  // recorded blocks do not.
  if (copy_from && w.stats().ref_records > 0) {
    const BlockSource& src = copy_from->source();
    return TableLogBlocks::Copy(w, src.data, src.table_size, *copy);
  }
  LogMergeCursor logs(tables);
  logs.set_suppress_deletions(to_base);
  REFTAB_RETURN_IF_ERROR(logs.SeekToFirst());
  LogRecord l;
  std::string current_ref;
  size_t kept_for_ref = 0;
  while (logs.Next(&l)) {
    if (to_base && l.value_type == LogValueType::kUpdate) {
      if (l.refname != current_ref) {
        current_ref = l.refname;
        kept_for_ref = 0;
      }
      if (options.expire_logs_before && l.time < *options.expire_logs_before) continue;
      if (options.max_logs_per_ref && kept_for_ref >= *options.max_logs_per_ref) continue;
      ++kept_for_ref;
    }
    REFTAB_RETURN_IF_ERROR(AddCompactedLog(w, l));
    progress.Tick();
  }
  return logs.status();
}

}  // namespace

// The range being compacted, and the locks held on it.
struct Stack::CompactionPlan {
  CompactionPlan(FileSystem* fs, std::optional<uint32_t> mode, bool pid_files,
                 const WarningSink& warn)
      : table_locks(fs, mode, pid_files, warn) {}
  std::unique_ptr<LockFile> list_lock;   // held in steps 1 and 4 only
  TableLocks table_locks;                // held throughout
  std::vector<std::string> range;        // names of the merged tables, oldest first
  std::shared_ptr<const Snapshot> snap;  // the snapshot they were locked in
  std::vector<const TableReader*> tables;
  bool to_base = false;
};

// Step 1: locks the list and the tables of the range, newest first. Best effort settles
// for the newer tables already locked when an older one is taken, if there are two.
Status Stack::LockRange(size_t first, size_t last, bool best_effort, CompactionPlan* plan) {
  auto list_lock = LockList();
  if (!list_lock.ok()) return list_lock.status();
  plan->list_lock = std::move(*list_lock);
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  if (last >= names_.size()) return Status::Outdated(dir_ + ": the stack shrank before compaction");
  size_t locked_from = last + 1;
  for (size_t i = last + 1; i-- > first;) {
    Status s = plan->table_locks.Take(dir_ + "/" + names_[i]);
    if (s.ok()) {
      locked_from = i;
      continue;
    }
    if (!(best_effort && s.code() == Code::kLockHeld && last + 1 - locked_from >= 2)) return s;
    REFTAB_TRACE(trace::kInfo, "%s: %s is locked; compacting only tables %zu..%zu", dir_.c_str(),
                 names_[i].c_str(), locked_from, last);
    break;
  }
  first = locked_from;
  plan->range.assign(names_.begin() + long(first), names_.begin() + long(last) + 1);
  plan->snap = snapshot_;
  for (size_t i = first; i <= last; ++i) plan->tables.push_back(plan->snap->tables()[i].get());
  plan->to_base = first == 0;
  REFTAB_TRACE(trace::kInfo, "%s: compacting tables %zu..%zu of %zu%s", dir_.c_str(), first, last,
               names_.size(), plan->to_base ? " (down to the base: tombstones dropped)" : "");
  return Status::Ok();
}

// Step 3: the merge, into a temporary table (null if nothing is left).
Status Stack::MergeRange(const CompactionPlan& plan, const CompactionOptions& options,
                         std::unique_ptr<TempTable>* out) {
  uint64_t min = 0, max = 0;
  UpdateRange(plan.tables, &min, &max);
  // Every record fits in the block size of the table it comes from.
  uint32_t block_size = 0;
  for (const TableReader* t : plan.tables)
    block_size = std::max(block_size, t->header().block_size);
  const WriteOptions write_options = TableWriteOptions(block_size);
  if (options_.copy_disjoint_tables && !write_options.index_objects) {
    std::vector<const TableReader*> order;
    REFTAB_RETURN_IF_ERROR(OrderDisjointTables(plan.tables, &order));
    bool tombstone = false;
    if (!order.empty()) {
      Status s = WriteTempTable(
          min, max,
          [&](TableWriter& w) {
            bool copied = false;
            REFTAB_RETURN_IF_ERROR(WriteDisjointTables(w, order, plan.to_base, options, &copied));
            // A tombstone to drop: give up this table (the TempTable removes its file).
            tombstone = !copied;
            return copied ? Status::Ok() : Status::Outdated("a tombstone to drop");
          },
          out, block_size);
      if (!tombstone) {
        if (s.ok()) {
          REFTAB_TRACE(trace::kInfo, "%s: compaction copied the blocks of %zu disjoint tables",
                       dir_.c_str(), order.size());
        }
        return s;
      }
    }
  }
  const TableReader* copy_from = CopyableLogSource(plan, options, write_options);
  if (copy_from) {
    REFTAB_TRACE(trace::kInfo, "%s: compaction copies the %zu log blocks of %s", dir_.c_str(),
                 fresh_logs_->blocks.size(), fresh_logs_table_.c_str());
  }
  return WriteTempTable(
      min, max,
      [&](TableWriter& w) {
        return WriteMerged(w, plan.tables, plan.to_base, options, copy_from, fresh_logs_.get());
      },
      out, block_size);
}

// The table whose log blocks the transaction just committed recorded, if the merge of the
// range would write those very blocks (store/table_log_blocks.h): the table is in the range,
// no other table there has a log section, no entry is expired, no tombstone dropped, and the
// merged table is written with the same options.
const TableReader* Stack::CopyableLogSource(const CompactionPlan& plan,
                                            const CompactionOptions& options,
                                            const WriteOptions& write_options) const {
  const WrittenLogBlocks* fresh = fresh_logs_.get();
  if (!fresh || !fresh->CopyableWith(write_options)) return nullptr;
  if (options.expire_logs_before || options.max_logs_per_ref) return nullptr;
  if (plan.to_base && fresh->deletions) return nullptr;
  const TableReader* source = nullptr;
  for (size_t i = 0; i < plan.range.size(); ++i) {
    uint64_t start = 0;
    if (plan.range[i] == fresh_logs_table_) {
      source = plan.tables[i];
    } else if (plan.tables[i]->LogSectionStart(&start)) {
      return nullptr;  // its entries would interleave with the recorded ones
    }
  }
  return source;
}

// Step 4: under the list lock again, replaces the range (wherever it is now) by the new
// table, which only now gets its final name.
Status Stack::SpliceRange(CompactionPlan* plan, std::unique_ptr<TempTable> table) {
  auto relock = LockList();
  if (!relock.ok()) return relock.status();  // `table` removes its file
  plan->list_lock = std::move(*relock);
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  const std::vector<std::string>& range = plan->range;
  auto at = std::search(names_.begin(), names_.end(), range.begin(), range.end());
  if (at == names_.end()) {
    return Status::Outdated(dir_ + ": the compacted tables are no longer in tables.list");
  }
  std::string name;
  std::vector<std::string> list(names_.begin(), at);
  if (table) {
    uint64_t min = 0, max = 0;
    UpdateRange(plan->tables, &min, &max);
    name = TableName(min, max) + ".ref";
    list.push_back(name);
  }
  list.insert(list.end(), at + long(range.size()), names_.end());
  Status s = Publish(plan->list_lock.get(), std::move(table), name, list);
  REFTAB_TRACE(trace::kInfo, "%s: compaction %s: %zu table(s) -> %s", dir_.c_str(),
               s.ok() ? "committed" : "failed", range.size(),
               name.empty() ? "(nothing left)" : name.c_str());
  return s;
}

// Step 5: readers holding snapshots keep their mappings of the deleted files.
Status Stack::DropMerged(const CompactionPlan& plan) {
  Status reloaded = Reload();
  for (const std::string& n : plan.range) (void)fs_->Remove(dir_ + "/" + n);
  return reloaded;
}

Status Stack::CompactSegment(size_t first, size_t last, bool best_effort,
                             const CompactionOptions& options) {
  CompactionPlan plan(fs_, options_.file_mode, options_.lock_pid_files, options_.warn);
  REFTAB_RETURN_IF_ERROR(LockRange(first, last, best_effort, &plan));
  plan.list_lock.reset();  // step 2: let other writers append while we merge
  std::unique_ptr<TempTable> table;
  REFTAB_RETURN_IF_ERROR(MergeRange(plan, options, &table));
  Status s = SpliceRange(&plan, std::move(table));
  if (!plan.list_lock || !plan.list_lock->committed()) return s;
  plan.list_lock.reset();
  Status dropped = DropMerged(plan);
  return s.ok() ? dropped : s;  // a failed directory sync, after the list was replaced
}

// ------------------------------------------------------------------ compacting commits

namespace {

// <0, 0 or >0 as log `a` sorts before, with or after `b` in a table (name, newest first).
int CompareLogKeys(const LogRecord& a, const LogRecord& b) {
  if (int c = a.refname.compare(b.refname)) return c;
  return a.update_index > b.update_index ? -1 : a.update_index < b.update_index ? 1 : 0;
}

}  // namespace

// What the compaction of `tables` (down to the base) and the transaction's table above them
// would write: the records of both, the transaction's winning for a key in both, without
// tombstones, each log message normalized as a compaction stores it.
Status Stack::WriteCompactedCommit(TableWriter& w, NewRecords* records) const {
  const std::vector<const TableReader*>& tables = snapshot_->readers();
  RefMergeCursor old(tables);
  old.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(old.SeekToFirst());
  RefRecord r, rec;
  bool have = old.NextView(&r);
  const uint64_t index = records->update_index;
  for (const Transaction::Item* item : records->refs) {
    const std::string_view name = item->refname();
    for (; have; have = old.NextView(&r)) {
      const int c = old.key().compare(name);
      if (c > 0) break;
      if (c < 0)
        REFTAB_RETURN_IF_ERROR(AddViewedRef(w, old, r));  // c == 0: shadowed by the new record
    }
    REFTAB_RETURN_IF_ERROR(old.status());
    if (item->type == RefValueType::kDeletion) continue;  // has nothing left to shadow
    if (item->type == RefValueType::kVal1) {
      REFTAB_RETURN_IF_ERROR(w.AddRef(name, index, item->id));
    } else {
      records->tx->RecordOf(*item, index, &rec);
      REFTAB_RETURN_IF_ERROR(w.AddRef(rec));
    }
  }
  for (; have; have = old.NextView(&r)) REFTAB_RETURN_IF_ERROR(AddViewedRef(w, old, r));
  REFTAB_RETURN_IF_ERROR(old.status());

  LogMergeCursor old_logs(tables);
  old_logs.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(old_logs.SeekToFirst());
  LogRecord l;
  have = old_logs.Next(&l);
  for (LogRecord& n : records->logs) {
    for (; have; have = old_logs.Next(&l)) {
      const int c = CompareLogKeys(l, n);
      if (c > 0) break;
      if (c < 0) REFTAB_RETURN_IF_ERROR(AddCompactedLog(w, l));
    }
    REFTAB_RETURN_IF_ERROR(old_logs.status());
    if (!n.is_deletion()) REFTAB_RETURN_IF_ERROR(AddCompactedLog(w, n));
  }
  for (; have; have = old_logs.Next(&l)) REFTAB_RETURN_IF_ERROR(AddCompactedLog(w, l));
  return old_logs.status();
}

// The policy decides on the new table's size, known only once it is written. But at least
// the size of its ref records is known before: each takes a byte or more for its shared
// prefix length, its suffix length and type, its suffix (names differ, so a sorted name
// shares all but a byte of it at most) and its update index, then its value; and a table's
// policy size is at least its records'. A table that large already makes the policy merge
// it with its older neighbour, and the segment can then only grow downwards with the real
// size: when it reaches the base at that size, it does at any larger one.
Status Stack::CommitCompacted(LockFile* lock, NewRecords* records, uint64_t first, uint64_t next,
                              bool* compacted) {
  *compacted = false;
  if (!options_.auto_compact || options_.fit_block_size || names_.empty()) return Status::Ok();
  const size_t hs = snapshot_->hash_size();
  uint64_t least = 0;
  for (const Transaction::Item* item : records->refs) {
    least += 4;
    switch (item->type) {
      case RefValueType::kDeletion: break;
      case RefValueType::kVal1: least += hs; break;
      case RefValueType::kVal2: least += 2 * hs; break;
      case RefValueType::kSymref: least += 1 + records->tx->TargetOf(*item).size(); break;
    }
  }
  std::vector<uint64_t> sizes;
  for (const auto& t : snapshot_->tables()) {
    sizes.push_back(PolicySize(t->file_size(), VersionForHash(snapshot_->hash_id())));
  }
  sizes.push_back(least);
  std::optional<Segment> seg = SuggestCompaction(sizes, options_.geometric_factor);
  if (!seg || seg->start != 0 || seg->end != sizes.size()) return Status::Ok();
  // A compaction that runs now holds some of these tables: leave it to the compaction that
  // follows the table (which then merges what it can).
  TableLocks locks(fs_, options_.file_mode, options_.lock_pid_files, options_.warn);
  for (size_t i = names_.size(); i-- > 0;) {
    if (!locks.Take(dir_ + "/" + names_[i]).ok()) return Status::Ok();
  }
  uint64_t min = first, max = next;
  for (const TableReader* t : snapshot_->readers()) {
    min = std::min(min, t->min_update_index());
    max = std::max(max, t->max_update_index());
  }
  REFTAB_TRACE(trace::kInfo, "%s: commit: merging its records with the %zu table(s) below",
               dir_.c_str(), names_.size());
  std::unique_ptr<TempTable> table;
  Status s = WriteTempTable(
      min, max, [&](TableWriter& w) { return WriteCompactedCommit(w, records); }, &table);
  if (!s.ok()) {
    // The records are still written, as a table of their own, and the merge's failure is
    // the auto-compaction's, as when that table's compaction fails: the commit succeeds and
    // last_auto_compaction() tells (git's writer fails the same way with the same disk).
    REFTAB_TRACE(trace::kInfo, "%s: commit: merge failed (%s); writing the table alone",
                 dir_.c_str(), s.message().c_str());
    last_auto_compaction_ = std::move(s);
    return Status::Ok();
  }
  *compacted = true;
  std::string name;
  std::vector<std::string> list;
  if (table) {
    name = TableName(min, max) + ".ref";
    list.push_back(name);
  }
  s = Publish(lock, std::move(table), name, list);
  if (lock->committed()) {
    for (const std::string& n : names_) (void)fs_->Remove(dir_ + "/" + n);
  }
  return s;
}

// ------------------------------------------------------------------ clean

namespace {

int64_t NowNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

// An unlisted table: a crashed writer's, unless it is newer than the stack (then it may be
// a transaction about to be listed) or not a table at all (then leave it alone).
void Stack::CleanTable(const std::string& name, uint64_t max_update_index) {
  if (std::find(names_.begin(), names_.end(), name) != names_.end()) return;
  auto file = fs_->OpenRead(dir_ + "/" + name);
  if (!file.ok()) return;
  auto table = TableReader::Open(std::move(*file));
  if (!table.ok() || (*table)->max_update_index() > max_update_index) return;
  REFTAB_TRACE(trace::kInfo, "%s: clean: removing unlisted table %s", dir_.c_str(), name.c_str());
  (void)fs_->Remove(dir_ + "/" + name);
}

// A temporary table: removed only if it is old (a git writer holds no lock, but keeps
// writing to its file) and nobody holds its advisory lock (a reftab writer holds it until
// the rename). The lock is kept while removing, so no reftab writer can be in between.
void Stack::CleanTempTable(const std::string& name, int64_t now_ns) {
  const std::string path = dir_ + "/" + name;
  auto info = fs_->Stat(path);
  if (!info.ok()) return;
  const int64_t age_s = (now_ns - info->mtime_ns) / 1000000000;
  if (age_s < kStaleTempTableAgeSeconds) return;
  auto owner = fs_->TryLock(path);
  if (!owner.ok()) {
    REFTAB_TRACE(trace::kInfo, "%s: clean: keeping %s (%lld s old): %s", dir_.c_str(), name.c_str(),
                 (long long)age_s, owner.status().message().c_str());
    return;
  }
  REFTAB_TRACE(trace::kInfo, "%s: clean: removing abandoned temporary table %s (%lld s old)",
               dir_.c_str(), name.c_str(), (long long)age_s);
  (void)fs_->Remove(path);
}

// <table>.ref.lock: compactions lock only listed tables, and only while they hold
// tables.list.lock, and a table leaves the list only through the compaction that locked
// it. So the lock of an unlisted table belongs to a compaction that is done with it (or
// was killed): removing it cannot let two compactions take one table.
void Stack::CleanTableLock(const std::string& name) {
  const std::string table = name.substr(0, name.size() - 5);  // without ".lock"
  if (!IsTableName(table)) return;  // not a table's lock: not ours to judge
  if (std::find(names_.begin(), names_.end(), table) != names_.end()) return;
  REFTAB_TRACE(trace::kInfo, "%s: clean: removing the lock of unlisted table %s", dir_.c_str(),
               table.c_str());
  (void)fs_->Remove(dir_ + "/" + name);
}

// <name>~pid.lock, the pid file of the lock <name>.lock (core.lockfilePid): removed once
// its lock is gone and the process it names no longer runs, never while that process may
// still hold or be about to release the lock. A file that names no process is not ours.
void Stack::CleanLockPidFile(const std::string& name) {
  const std::string locked = dir_ + "/" + name.substr(0, name.size() - 9);  // without ~pid.lock
  std::optional<LockHolder> holder = ReadLockHolder(fs_, locked);
  if (!holder || holder->running || fs_->Stat(locked + ".lock").ok()) return;
  REFTAB_TRACE(trace::kInfo, "%s: clean: removing %s (process %llu is gone)", dir_.c_str(),
               name.c_str(), (unsigned long long)holder->pid);
  (void)fs_->Remove(dir_ + "/" + name);
}

Status Stack::Clean() {
  auto lock = LockList();
  if (!lock.ok()) return lock.status();
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  auto entries = fs_->ListDir(dir_);
  if (!entries.ok()) return entries.status();
  const uint64_t max = snapshot_->max_update_index();
  const int64_t now_ns = NowNs();
  for (const std::string& e : *entries) {
    if (IsTempTableName(e)) {
      CleanTempTable(e, now_ns);
    } else if (e.ends_with("~pid.lock")) {
      CleanLockPidFile(e);
    } else if (e.ends_with(".ref.lock")) {
      CleanTableLock(e);
    } else if (e.ends_with(".ref")) {
      CleanTable(e, max);
    }
  }
  return Status::Ok();
}

}  // namespace reftab
