// Compaction: merging a range of a stack's tables into one (FORMAT.md §18), holding the locks
// that keep concurrent appends and compactions safe:
//   1. lock tables.list, reload, lock every table in the range (<name>.lock, newest first);
//   2. release tables.list so other writers can append while the merge runs;
//   3. merge into a temporary table;
//   4. lock tables.list again, re-read it, find the range again (other compactions may have
//      changed the list around it), rename the new table into place, write the new list;
//   5. reload, delete the merged tables, drop the table locks.
#include <algorithm>
#include <map>

#include "store/stack.h"
#include "store/trace.h"

namespace reftab {
namespace {

// Table locks held during a compaction; removed on every exit path.
class TableLocks {
 public:
  explicit TableLocks(FileSystem* fs) : fs_(fs) {}
  ~TableLocks() {
    for (const std::string& p : paths_) (void)fs_->Remove(p);
  }
  // Creates `path`.lock; kLockHeld if it exists.
  Status Take(const std::string& path) {
    auto f = fs_->Create(path + ".lock", /*exclusive=*/true);
    if (!f.ok()) return f.status();
    (void)(*f)->Close();  // keep the file, not the descriptor
    paths_.push_back(path + ".lock");
    return Status::Ok();
  }

 private:
  FileSystem* fs_;
  std::vector<std::string> paths_;
};

// git re-normalizes messages when compacting: trailing newlines stripped, exactly one added.
// A message that still has an inner newline (JGit writes those) is kept as it is rather than
// failing the compaction as git would.
void NormalizeMessage(std::string* m) {
  size_t end = m->size();
  while (end > 0 && (*m)[end - 1] == '\n') --end;
  if (m->find('\n') < end) return;
  m->resize(end);
  m->push_back('\n');
}

}  // namespace

Status Stack::CompactAll(const CompactionOptions& options) {
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  if (names_.empty()) return Status::Ok();
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

Status Stack::AutoCompact() {
  if (!options_.auto_compact) return Status::Ok();
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
  Status s = CompactSegment(seg->start, seg->end - 1, /*best_effort=*/true, CompactionOptions{});
  if (!s.ok()) {
    REFTAB_TRACE(trace::kInfo, "%s: auto-compaction skipped: %s", dir_.c_str(),
                 s.message().c_str());
  }
  // Losing a race against another writer is fine: the next write compacts again.
  if (s.code() == Code::kLockHeld || s.code() == Code::kOutdated) return Status::Ok();
  return s;
}

Status Stack::CompactSegment(size_t first, size_t last, bool best_effort,
                             const CompactionOptions& options) {
  // 1. Lock the list and the tables of the range, newest first.
  auto list_lock = LockFile::Acquire(fs_, ListPath(), options_.lock_timeout_ms);
  if (!list_lock.ok()) return list_lock.status();
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  if (last >= names_.size()) return Status::Outdated(dir_ + ": the stack shrank before compaction");
  TableLocks table_locks(fs_);
  size_t locked_from = last + 1;
  for (size_t i = last + 1; i-- > first;) {
    Status s = table_locks.Take(dir_ + "/" + names_[i]);
    if (s.ok()) {
      locked_from = i;
      continue;
    }
    // Best effort: settle for the newer tables already locked, if there are two.
    if (best_effort && s.code() == Code::kLockHeld && last + 1 - locked_from >= 2) {
      REFTAB_TRACE(trace::kInfo, "%s: %s is locked; compacting only tables %zu..%zu", dir_.c_str(),
                   names_[i].c_str(), locked_from, last);
      break;
    }
    return s;
  }
  first = locked_from;
  std::vector<std::string> range(names_.begin() + long(first), names_.begin() + long(last) + 1);
  std::shared_ptr<const Snapshot> snap = snapshot_;
  std::vector<const TableReader*> tables;
  for (size_t i = first; i <= last; ++i) tables.push_back(snap->tables()[i].get());
  const bool to_base = first == 0;
  REFTAB_TRACE(trace::kInfo, "%s: compacting tables %zu..%zu of %zu%s", dir_.c_str(), first, last,
               names_.size(), to_base ? " (down to the base: tombstones dropped)" : "");

  // 2. Let other writers append while we merge.
  list_lock->reset();

  // 3. Merge. Tombstones can only go when nothing older remains to be shadowed.
  uint64_t min = tables.front()->min_update_index(), max = tables.front()->max_update_index();
  for (const TableReader* t : tables) {
    min = std::min(min, t->min_update_index());
    max = std::max(max, t->max_update_index());
  }
  std::string new_name;
  Status s = WriteTable(
      min, max,
      [&](TableWriter& w) -> Status {
        MergedRefIterator refs(tables);
        refs.set_suppress_deletions(to_base);
        REFTAB_RETURN_IF_ERROR(refs.SeekToFirst());
        RefRecord r;
        while (refs.Next(&r)) REFTAB_RETURN_IF_ERROR(w.AddRef(r));
        REFTAB_RETURN_IF_ERROR(refs.status());
        MergedLogIterator logs(tables);
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
          if (l.value_type == LogValueType::kUpdate) NormalizeMessage(&l.message);
          REFTAB_RETURN_IF_ERROR(w.AddLog(l));
        }
        return logs.status();
      },
      &new_name);
  if (!s.ok()) return s;

  // 4. Splice the new table into the list as it is now.
  auto relock = LockFile::Acquire(fs_, ListPath(), options_.lock_timeout_ms);
  auto drop_new = [&] {
    if (!new_name.empty()) (void)fs_->Remove(dir_ + "/" + new_name);
  };
  if (!relock.ok()) {
    drop_new();
    return relock.status();
  }
  s = Reload();
  auto at = std::search(names_.begin(), names_.end(), range.begin(), range.end());
  if (s.ok() && at == names_.end()) {
    s = Status::Outdated(dir_ + ": the compacted tables are no longer in tables.list");
  }
  if (!s.ok()) {
    drop_new();
    return s;
  }
  std::vector<std::string> new_names(names_.begin(), at);
  if (!new_name.empty()) new_names.push_back(new_name);
  new_names.insert(new_names.end(), at + long(range.size()), names_.end());
  s = WriteNewList(relock->get(), new_names);
  REFTAB_TRACE(trace::kInfo, "%s: compaction %s: %zu table(s) -> %s", dir_.c_str(),
               s.ok() ? "committed" : "failed", range.size(),
               new_name.empty() ? "(nothing left)" : new_name.c_str());
  if (!(*relock)->committed()) {
    drop_new();
    return s;
  }

  // 5. Reload and delete what was merged (readers holding snapshots keep their mappings).
  Status reloaded = Reload();
  relock->reset();
  for (const std::string& n : range) (void)fs_->Remove(dir_ + "/" + n);
  return s.ok() ? reloaded : s;
}

Status Stack::Clean() {
  auto lock = LockFile::Acquire(fs_, ListPath(), options_.lock_timeout_ms);
  if (!lock.ok()) return lock.status();
  REFTAB_RETURN_IF_ERROR(Reload());
  auto entries = fs_->ListDir(dir_);
  if (!entries.ok()) return entries.status();
  uint64_t max = snapshot_->max_update_index();
  for (const std::string& e : *entries) {
    if (e.size() < 5 || e.compare(e.size() - 4, 4, ".ref") != 0) continue;
    if (std::find(names_.begin(), names_.end(), e) != names_.end()) continue;
    auto file = fs_->OpenRead(dir_ + "/" + e);
    if (!file.ok()) continue;
    auto table = TableReader::Open(std::move(*file));
    // An unparsable file may be a table being written right now: leave it alone.
    if (!table.ok() || (*table)->max_update_index() > max) continue;
    (void)fs_->Remove(dir_ + "/" + e);
  }
  return Status::Ok();
}

}  // namespace reftab
