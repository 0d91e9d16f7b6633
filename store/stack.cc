#include "store/stack.h"

#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstring>
#include <thread>

#include "store/log_entry.h"
#include "store/merge_cursor.h"
#include "store/new_records.h"
#include "store/random_seed.h"
#include "store/symref_chain.h"
#include "store/table_builder.h"
#include "store/table_log_blocks.h"
#include "store/temp_table.h"
#include "store/trace.h"

namespace reftab {

// ------------------------------------------------------------------ Snapshot

Snapshot::Snapshot(std::vector<std::shared_ptr<const TableReader>> tables, HashId hash_id)
    : tables_(std::move(tables)),
      hash_id_(hash_id),
      ref_order_(std::make_shared<MergeOrderMemo>()) {
  raw_.reserve(tables_.size());
  for (const auto& t : tables_) raw_.push_back(t.get());
}

uint64_t Snapshot::max_update_index() const {
  uint64_t m = 0;
  for (const auto& t : tables_) m = std::max(m, t->max_update_index());
  return m;
}

Status Snapshot::ReadRef(std::string_view name, RefRecord* ref, bool* found) const {
  const size_t n = tables_.size();
  // One status, returned as it is (built in place, neither copied nor destroyed here).
  // Both leave *found false when they fail; a tombstone is found there and absent here.
  Status s = n == 1 ? raw_[0]->ReadRef(name, ref, found)  // one table after compaction
                    : TableReader::ReadRefNewest(raw_.data(), n, name, ref, found);
  *found = *found && !ref->is_deletion();
  return s;
}

MergedRefIterator Snapshot::NewRefIterator() const {
  return MergedRefIterator(raw_, ref_order_.get());
}
MergedLogIterator Snapshot::NewLogIterator() const { return MergedLogIterator(raw_); }

SnapshotMemory Snapshot::memory() const {
  SnapshotMemory m;
  for (const TableReader* t : raw_) {
    m.hash_indexes += t->ref_hash_index_bytes();
    m.filters += t->ref_filter_bytes();
    m.block_indexes += t->ref_block_index_bytes();
  }
  m.merge_order = ref_order_->memory_bytes();
  return m;
}

// ------------------------------------------------------------------ tables.list

namespace {

// `s` with every byte that is not printable ASCII escaped (\r, \n, \t, \xHH), so that an
// error message shows exactly what a name holds.
std::string Escaped(std::string_view s) {
  std::string out;
  for (char c : s) {
    const auto b = uint8_t(c);
    if (c == '\r') {
      out += "\\r";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (b < 0x20 || b >= 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", unsigned(b));
      out += buf;
    } else {
      out.push_back(c);
    }
  }
  return out;
}

bool HasControlByte(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char c) { return uint8_t(c) < 0x20 || c == 0x7f; });
}

}  // namespace

Status ParseTablesList(std::string_view contents, std::vector<std::string>* names) {
  names->clear();
  if (contents.empty()) return Status::Ok();
  if (contents.back() != '\n') {
    return Status::Corruption("tables.list: last line does not end in a newline");
  }
  size_t pos = 0;
  for (size_t line_no = 1; pos < contents.size(); ++line_no) {
    size_t nl = contents.find('\n', pos);
    std::string_view line = contents.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.empty()) continue;
    if (line == "." || line == ".." || line.find('/') != std::string_view::npos ||
        HasControlByte(line)) {
      std::string why = "tables.list: line " + std::to_string(line_no) + ": bad table name '" +
                        Escaped(line) + "'";
      if (line.back() == '\r') why += " (the line ends in CRLF; tables.list uses LF line ends)";
      return Status::Corruption(why);
    }
    names->emplace_back(line);
  }
  return Status::Ok();
}

// ------------------------------------------------------------------ loading

Stack::Stack(std::string dir, const StackOptions& options)
    : dir_(std::move(dir)),
      list_path_(dir_ + "/tables.list"),
      options_(options),
      fs_(options.fs ? options.fs : PosixFileSystem()),
      rng_(RandomSeed()),
      table_scratch_(std::make_unique<TableScratch>()) {}

Stack::~Stack() = default;

Result<std::unique_ptr<Stack>> Stack::Open(const std::string& dir, const StackOptions& options) {
  if (!options.missing_dir_is_empty) {
    // A mistyped path must not read as an empty stack.
    FileSystem* fs = options.fs ? options.fs : PosixFileSystem();
    auto st = fs->Stat(dir);
    if (!st.ok()) {
      if (st.status().code() == Code::kNotFound)
        return Status::NotFound(dir + ": no such directory");
      return st.status();
    }
  }
  std::unique_ptr<Stack> stack(new Stack(dir, options));
  REFTAB_RETURN_IF_ERROR(stack->Reload());
  return stack;
}

Status Stack::ReadList(std::vector<std::string>* names, std::unique_ptr<PinnedFile>* pin,
                       FileInfo* info) {
  std::string contents;
  auto pinned = fs_->ReadPinned(ListPath(), &contents, info);
  if (!pinned.ok()) {
    if (pinned.status().code() != Code::kNotFound) return pinned.status();
    names->clear();  // no list: an empty stack
    pin->reset();
    return Status::Ok();
  }
  *pin = std::move(*pinned);
  return ParseTablesList(contents, names).WithContext(dir_);
}

Status Stack::TryLoad(const std::vector<std::string>& names) {
  std::vector<std::shared_ptr<const TableReader>> tables;
  tables.reserve(names.size());
  std::optional<HashId> hash = options_.hash_id;
  for (const std::string& name : names) {
    std::shared_ptr<const TableReader> table;
    for (size_t i = 0; snapshot_ && i < names_.size(); ++i) {
      if (names_[i] == name) table = snapshot_->tables()[i];  // reuse the open table
    }
    if (!table) {
      auto file = fs_->OpenRead(dir_ + "/" + name);
      if (!file.ok()) return file.status();
      auto opened = TableReader::Open(std::move(*file));
      if (!opened.ok()) {
        REFTAB_TRACE(trace::kError, "%s/%s: %s", dir_.c_str(), name.c_str(),
                     opened.status().message().c_str());
        return opened.status();
      }
      table = std::shared_ptr<const TableReader>(std::move(*opened));
    }
    if (!hash) hash = table->hash_id();
    if (table->hash_id() != *hash) {
      return Status::Corruption(table->name() + ": hash differs from the stack's object format");
    }
    tables.push_back(std::move(table));
  }
  snapshot_ = std::make_shared<const Snapshot>(std::move(tables), hash.value_or(HashId::kSha1));
  names_ = names;
  return Status::Ok();
}

Status Stack::Reload() {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::milliseconds(3000);
  uint64_t delay_ms = 0;
  for (int tries = 1;; ++tries) {
    std::vector<std::string> names;
    std::unique_ptr<PinnedFile> pin;
    FileInfo info;
    REFTAB_RETURN_IF_ERROR(ReadList(&names, &pin, &info));
    Status s = TryLoad(names);
    if (s.ok()) {
      list_pin_ = std::move(pin);
      list_info_ = info;
      REFTAB_TRACE(trace::kInfo, "%s: loaded tables.list: %zu table(s), attempt %d", dir_.c_str(),
                   names_.size(), tries);
      return s;
    }
    if (s.code() != Code::kNotFound) return s;
    REFTAB_TRACE(trace::kDebug, "%s: reload attempt %d: %s", dir_.c_str(), tries,
                 s.message().c_str());
    // A listed table is missing: if the list changed meanwhile a compaction replaced it, so
    // try again; if not, the stack is really broken.
    std::vector<std::string> after;
    std::unique_ptr<PinnedFile> pin_after;
    REFTAB_RETURN_IF_ERROR(ReadList(&after, &pin_after, &info));
    if (after == names) return s;
    REFTAB_TRACE(trace::kDebug, "%s: tables.list changed meanwhile, retrying", dir_.c_str());
    if (tries >= 3 && Clock::now() >= deadline) {
      return Status::NotFound(dir_ + ": tables kept disappearing while reloading (" + s.message() +
                              ")");
    }
    delay_ms = delay_ms + delay_ms * (rng_() % 1000) / 2000 + 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
}

bool Stack::IsUpToDate() {
  auto info = fs_->Stat(ListPath());
  if (!info.ok()) return info.status().code() == Code::kNotFound && names_.empty();
  bool same = list_pin_ && info->dev == list_info_.dev && info->ino == list_info_.ino;
  REFTAB_TRACE(trace::kDebug, "%s: tables.list %s", dir_.c_str(),
               same ? "unchanged" : "replaced, reloading");
  return same;
}

Status Stack::ReloadIfChanged() { return IsUpToDate() ? Status::Ok() : Reload(); }

// ------------------------------------------------------------------ writing tables

std::string GitTableStem(uint64_t min, uint64_t max, uint32_t random) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "0x%012" PRIx64 "-0x%012" PRIx64 "-%08" PRIx32, min, max, random);
  return buf;
}

std::string Stack::TableName(uint64_t min, uint64_t max) {
  return GitTableStem(min, max, uint32_t(rng_()));
}

WriteOptions Stack::TableWriteOptions(uint32_t min_block_size) const {
  WriteOptions w = options_.write_options;
  w.hash_id = snapshot_->hash_id();
  if (options_.fit_block_size && min_block_size > w.block_size) {
    uint64_t size = w.block_size;
    while (size < min_block_size) size *= 2;
    // Records about as large as the largest (values of one size) fill a block just above
    // one of them badly: 100 KiB values left 28 KiB of each 128 KiB block as padding, 22% of
    // every table's bytes written and fsynced. So the block grows until what is left after
    // as many such records as fit is at most 1/16 of it (100 KiB values: blocks of 512 KiB,
    // five records each).
    while (size % min_block_size > size / 16 && size * 2 <= kMaxBlockSize) size *= 2;
    w.block_size = uint32_t(std::min<uint64_t>(size, kMaxBlockSize));
  }
  return w;
}

std::string Stack::ListLockHolder() const {
  std::string holder = LockHolderText(fs_, list_path_);
  return holder.empty() ? holder : list_path_ + ".lock: " + holder;
}

Result<std::unique_ptr<LockFile>> Stack::LockList() {
  return LockFile::Acquire(fs_, ListPath(), options_.lock_timeout_ms, options_.file_mode,
                           options_.lock_pid_files, options_.warn);
}

Status Stack::WriteTempTable(uint64_t min, uint64_t max,
                             const std::function<Status(TableWriter&)>& fill,
                             std::unique_ptr<TempTable>* out, uint32_t min_block_size,
                             WrittenLogBlocks* record_logs) {
  out->reset();
  auto table = TempTable::Create(fs_, dir_, TableName(min, max), options_.file_mode, &rng_,
                                 std::move(table_scratch_->sink));
  if (!table.ok()) return table.status();
  TableWriter writer(TableWriteOptions(min_block_size), (*table)->file(), table_scratch_.get());
  if (record_logs) TableLogBlocks::Record(writer, record_logs);
  Status s = writer.SetLimits(min, max);
  if (s.ok()) s = fill(writer);
  if (s.ok()) s = writer.Finish();
  if (!s.ok()) return s;  // the TempTable removes its file
  if (!writer.stats().empty) s = (*table)->Finish(options_.durability);
  table_scratch_->Keep((*table)->TakeBuffer());
  if (!s.ok() || writer.stats().empty) return s;
  *out = std::move(*table);
  return Status::Ok();
}

Status Stack::WriteNewList(LockFile* lock, const std::vector<std::string>& names) {
  std::string contents;
  for (const std::string& n : names) contents.append(n).push_back('\n');
  return lock->Commit(contents, options_.durability);
}

Status Stack::Publish(LockFile* lock, std::unique_ptr<TempTable> table, const std::string& name,
                      const std::vector<std::string>& list) {
  if (table) REFTAB_RETURN_IF_ERROR(table->Install(name, options_.durability));
  Status s = WriteNewList(lock, list);
  // A table no list names would be taken for a crashed writer's by the next clean; it is
  // ours, so remove it now.
  if (table && !lock->committed()) (void)fs_->Remove(dir_ + "/" + name);
  return s;
}

// ------------------------------------------------------------------ transactions

namespace {

std::string HexOrAbsent(const RefValue& v, size_t hs) {
  switch (v.type) {
    case RefValueType::kDeletion: return "nothing";
    case RefValueType::kSymref: return "symref to " + v.target;
    default: return HexId(v.id, hs);
  }
}

// git's wording for a failed expectation.
Status ExpectationFailed(const std::string& refname, const RefValue& current,
                         const RefValue& expected, size_t hs) {
  std::string why;
  if (!expected.exists()) {
    why = "reference already exists";
  } else if (!current.exists()) {
    why = "unable to resolve reference '" + refname + "'";
  } else {
    why = "is at " + HexOrAbsent(current, hs) + " but expected " + HexOrAbsent(expected, hs);
  }
  return Status::Conflict("cannot lock ref '" + refname + "': " + why);
}

// The object id a value stands for in a reflog entry: a symref logs its referent's id.
// A chain that ends nowhere, is too long or cannot be read logs the zero id.
ObjectId LoggedId(const Snapshot& snap, const RefValue& v) {
  if (v.type == RefValueType::kVal1 || v.type == RefValueType::kVal2) return v.id;
  if (v.type != RefValueType::kSymref) return ObjectId{};
  auto read = [&snap](std::string_view n, RefRecord* ref, bool* found) {
    return snap.ReadRef(n, ref, found);
  };
  RefRecord rec;
  bool found = false;
  if (!FollowSymrefs(read, v.target, &rec, &found).ok() || !found) return ObjectId{};
  return rec.value;
}

}  // namespace

namespace {

LogRecord LogFor(const std::string& refname, const LogInfo& info, const ObjectId& old_id,
                 const ObjectId& new_id, uint64_t update_index) {
  LogRecord l = UpdateLogEntry(refname, old_id, new_id, info, info.message);
  l.update_index = update_index;
  return l;
}

// Deleting a ref deletes its reflog: one tombstone per existing entry.
Status AddReflogTombstones(const Snapshot& snap, const std::string& refname,
                           std::vector<LogRecord>* logs) {
  LogMergeCursor it(snap.readers());
  REFTAB_RETURN_IF_ERROR(it.Seek(refname));
  LogRecord l;
  while (it.Next(&l) && l.refname == refname) {
    if (l.is_deletion()) continue;
    LogRecord tomb;
    tomb.refname = l.refname;
    tomb.update_index = l.update_index;
    logs->push_back(std::move(tomb));
  }
  return it.status();
}

// Logs in table order (name, then newest first); two entries for one key are an error.
Status SortLogs(std::vector<LogRecord>* logs) {
  auto before = [](const LogRecord& a, const LogRecord& b) {
    int c = a.refname.compare(b.refname);
    return c != 0 ? c < 0 : a.update_index > b.update_index;
  };
  // Callers often give names in order already (update-ref --stdin fed from a sorted list):
  // then one pass of comparisons replaces the sort. Otherwise pointers are sorted and each
  // record is moved once, instead of moving records (four strings each) at every merge step.
  if (!std::is_sorted(logs->begin(), logs->end(), before)) {
    std::vector<LogRecord*> order;
    order.reserve(logs->size());
    for (LogRecord& l : *logs) order.push_back(&l);
    std::stable_sort(order.begin(), order.end(),
                     [&](const LogRecord* a, const LogRecord* b) { return before(*a, *b); });
    std::vector<LogRecord> sorted;
    sorted.reserve(logs->size());
    for (LogRecord* l : order) sorted.push_back(std::move(*l));
    logs->swap(sorted);
  }
  for (size_t i = 1; i < logs->size(); ++i) {
    const LogRecord& a = (*logs)[i - 1];
    const LogRecord& b = (*logs)[i];
    if (a.refname == b.refname && a.update_index == b.update_index) {
      return Status::InvalidArgument("two reflog entries for " + b.refname + " at update index " +
                                     std::to_string(b.update_index));
    }
  }
  return Status::Ok();
}

// Transaction::VerifyNoneBelow's check, on the snapshot taken under the lock.
Status CheckNoneBelow(const Snapshot& snap, const std::string& prefix, std::string_view for_key) {
  RefMergeCursor it(snap.readers());
  REFTAB_RETURN_IF_ERROR(it.Seek(prefix));
  RefRecord r;
  if (it.NextLiveUnder(prefix, &r)) {
    return Status::Conflict("'" + r.refname + "' exists; cannot create '" + std::string(for_key) +
                            "'");
  }
  return it.status();
}

// The prefix of a VerifyNoneBelow check: `base`, followed by a '/' when `slash` (the check
// below an update's own name, made without a copy of the name).
struct Prefix {
  std::string_view base;
  bool slash = false;
  size_t size() const { return base.size() + (slash ? 1 : 0); }
  unsigned char at(size_t i) const { return i < base.size() ? base[i] : '/'; }
  std::string str() const { return std::string(base) + (slash ? "/" : ""); }
};

// <0, 0 or >0 as `a` sorts before, with or after `b` (bytes unsigned, as std::string).
int Compare(const Prefix& a, const Prefix& b) {
  const size_t n = std::min(a.base.size(), b.base.size());
  if (int c = n ? std::memcmp(a.base.data(), b.base.data(), n) : 0) return c;
  // Past the shorter base, at most one byte is left to compare: its '/'.
  const size_t m = std::min(a.size(), b.size());
  for (size_t i = n; i < m; ++i) {
    if (a.at(i) != b.at(i)) return a.at(i) < b.at(i) ? -1 : 1;
  }
  return a.size() < b.size() ? -1 : a.size() > b.size() ? 1 : 0;
}

bool StartsWith(std::string_view name, const Prefix& p) {
  return name.size() >= p.size() && name.substr(0, p.base.size()) == p.base &&
         (!p.slash || name[p.base.size()] == '/');
}

// Whether a live ref starts with one of `prefixes`, with one cursor for all of them. Each
// walk stops at the first record past its prefix, deleted or not, so no walk reads the
// deleted names after a prefix; records between the last seek and where the cursor stands
// were walked under an earlier prefix and found deleted (a prefix that sorts among them has
// nothing live either), so a prefix needs a seek of its own only outside that range.
// Prefixes in name order (the git layer hands its updates so) then seek once per run with no
// record between them (once in all, creating many refs in a new directory), and one out of
// order only costs a seek; prefixes in no order are sorted first, since a seek for each would
// cost more than the sort.
Status AnyBelow(const Snapshot& snap, std::vector<Prefix> prefixes, bool* found) {
  *found = false;
  size_t descents = 0;
  for (size_t i = 1; i < prefixes.size(); ++i) {
    descents += Compare(prefixes[i], prefixes[i - 1]) < 0;
  }
  if (descents > prefixes.size() / 16) {
    std::sort(prefixes.begin(), prefixes.end(),
              [](const Prefix& a, const Prefix& b) { return Compare(a, b) < 0; });
  }
  RefMergeCursor it(snap.readers());
  RefRecord r;
  std::string sought;
  // `have`: the cursor is on a record, whose name is `at`.
  bool positioned = false, have = false;
  std::string_view at;
  auto next = [&] {
    if (!it.NextView(&r)) return false;
    at = it.key();
    return true;
  };
  for (const Prefix& prefix : prefixes) {
    if (!positioned || Compare(prefix, Prefix{sought}) < 0 ||
        (have && Compare(Prefix{at}, prefix) < 0)) {
      sought = prefix.str();
      REFTAB_RETURN_IF_ERROR(it.Seek(sought));
      positioned = true;
      have = next();
    }
    while (have && StartsWith(at, prefix)) {
      if (!r.is_deletion()) return *found = true, Status::Ok();
      have = next();
    }
  }
  return it.status();  // an error ends the walk (have is false after it)
}

// All of a transaction's VerifyNoneBelow checks, those added with their prefix (`checks`)
// and those of updates in `items` (in name order) marked none_below. A conflict is reported
// as the checks in the transaction's order find it first.
// (A template only because Transaction's Item and NoneBelow are private to the stack.)
template <typename Check, typename Item>
Status CheckNoneBelowAll(const Snapshot& snap, const std::vector<Check>& checks,
                         const std::vector<Item*>& items, const std::vector<Item>& in_order) {
  std::vector<Prefix> prefixes;
  prefixes.reserve(checks.size());
  for (const Check& c : checks) prefixes.push_back(Prefix{c.prefix});
  bool found = false;
  REFTAB_RETURN_IF_ERROR(AnyBelow(snap, std::move(prefixes), &found));
  if (found) {
    for (const Check& c : checks) {
      REFTAB_RETURN_IF_ERROR(CheckNoneBelow(snap, c.prefix, c.key()));
    }
  }
  prefixes.clear();
  for (const Item* item : items) {
    if (item->none_below) prefixes.push_back(Prefix{item->refname(), true});
  }
  if (prefixes.empty()) return Status::Ok();
  REFTAB_RETURN_IF_ERROR(AnyBelow(snap, std::move(prefixes), &found));
  if (!found) return Status::Ok();
  for (const Item& item : in_order) {
    if (item.none_below) {
      const std::string_view name = item.refname();
      REFTAB_RETURN_IF_ERROR(CheckNoneBelow(snap, std::string(name) + "/", name));
    }
  }
  return Status::Ok();
}

}  // namespace

Status Stack::CollectItem(const Transaction& tx, Transaction::Item& item, const Snapshot& snap,
                          uint64_t next, NewRecords* out) const {
  using Kind = Transaction::Kind;
  const LogInfo* log = tx.LogOf(item);
  const bool checked = item.expect != Transaction::Expect::kNone;
  // A Delete's item already writes a tombstone (its type is kDeletion).
  if (tx.blind_writes_ && item.kind != Kind::kVerify && !checked && !log) {
    item.written = true;
    return Status::Ok();
  }
  const size_t hs = snap.hash_size();
  RefRecord current_rec;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(snap.ReadRef(item.refname(), &current_rec, &found));
  RefValue current = found ? RefValue::Of(current_rec) : RefValue::Absent();
  if (checked && !current.Satisfies(tx.ExpectedOf(item), hs)) {
    return ExpectationFailed(std::string(item.refname()), current, tx.ExpectedOf(item), hs);
  }
  if (item.kind == Kind::kVerify) return Status::Ok();
  if (tx.Holds(item, current, hs)) return Status::Ok();  // changes nothing: git writes nothing
  if (item.kind == Kind::kDelete) {
    REFTAB_RETURN_IF_ERROR(AddReflogTombstones(snap, std::string(item.refname()), &out->logs));
  } else if (log) {
    out->logs.push_back(LogFor(std::string(item.refname()), *log, LoggedId(snap, current),
                               LoggedId(snap, tx.ValueOf(item)), next));
  }
  item.written = true;
  return Status::Ok();
}

Status Stack::CollectUpdates(Transaction& tx, const Snapshot& snap, uint64_t next,
                             NewRecords* out) const {
  // By name (stable, so a duplicate is reported against the first), as the table wants.
  std::vector<Transaction::Item*> items;
  items.reserve(tx.updates_.size());
  for (auto& it : tx.updates_) items.push_back(&it);
  auto by_name = [](const auto* a, const auto* b) { return a->refname() < b->refname(); };
  // Sorted updates (a sorted --stdin list) come with a short unsorted tail: the checks that
  // the new names' parent directories are still free, queued last. Sorting only the tail
  // and merging it in keeps the order stable for a fraction of a full sort.
  auto sorted_end = std::is_sorted_until(items.begin(), items.end(), by_name);
  if (sorted_end != items.end()) {
    std::stable_sort(sorted_end, items.end(), by_name);
    std::inplace_merge(items.begin(), sorted_end, items.end(), by_name);
  }
  out->tx = &tx;
  out->update_index = next;
  for (size_t i = 0; i < items.size(); ++i) {
    Transaction::Item& item = *items[i];
    if (item.name_size == 0) return Status::InvalidArgument("empty refname in transaction");
    if (i > 0 && items[i - 1]->refname() == item.refname()) {
      return Status::InvalidArgument("multiple updates for ref '" + std::string(item.refname()) +
                                     "' not allowed");
    }
    REFTAB_RETURN_IF_ERROR(CollectItem(tx, item, snap, next, out));
  }
  // Checked by the caller on these very tables (the same open tables: the same files)?
  const Snapshot* checked = tx.none_below_checked_on_.get();
  if (!checked || checked->tables() != snap.tables()) {
    REFTAB_RETURN_IF_ERROR(CheckNoneBelowAll(snap, tx.empty_prefixes_, items, tx.updates_));
  }
  // The updates that write a record become the table's refs, in the same vector (a million
  // creates need no second one).
  std::erase_if(items, [](const Transaction::Item* item) { return !item->written; });
  out->refs = std::move(items);
  // Checked: not needed while the table is written.
  tx.empty_prefixes_ = {};
  tx.none_below_checked_on_.reset();
  // Moved, not copied: a transaction is committed once (Commit refuses a second time). When
  // the raw records are all there is (the git layer logs that way), the vector is taken whole.
  size_t first_raw = out->logs.size();
  if (out->logs.empty()) {
    out->logs = std::move(tx.raw_logs_);
  } else {
    out->logs.reserve(out->logs.size() + tx.raw_logs_.size());
    for (LogRecord& raw : tx.raw_logs_) out->logs.push_back(std::move(raw));
  }
  tx.raw_logs_.clear();
  auto kept = tx.kept_update_index_.begin();
  for (size_t i = first_raw; i < out->logs.size(); ++i) {
    if (kept != tx.kept_update_index_.end() && *kept == i - first_raw) {
      ++kept;
    } else {
      out->logs[i].update_index = next;
    }
  }
  return SortLogs(&out->logs);
}

namespace {

// A block size that holds a record of `largest` bytes of names, targets and messages in a
// block of its own: the record (bounded above: each varint at most 10 bytes, both ids at
// their largest), plus the file header, the block header and one restart entry with its
// count.
uint32_t BlockSizeFor(size_t largest) {
  constexpr size_t kOverhead = 4 * 10 + 2 * kMaxHashSize + 28 + 4 + 3 + 2;
  return uint32_t(std::min<size_t>(largest + kOverhead, kMaxBlockSize));
}

// The same for a transaction's refs (`size` of each: its name and target) and logs.
// (A template only because Transaction::Item is private to the stack.)
template <typename Item, typename SizeFn>
uint32_t BlockSizeFor(const std::vector<Item*>& refs, const SizeFn& size,
                      const std::vector<LogRecord>& logs) {
  size_t largest = 0;
  for (const Item* r : refs) largest = std::max(largest, size(*r));
  for (const LogRecord& l : logs) {
    size_t n = l.refname.size() + 9 + l.name.size() + l.email.size() + l.message.size() + 40;
    largest = std::max(largest, n);
  }
  return BlockSizeFor(largest);
}

}  // namespace

uint32_t Stack::TransactionBlockSize(const NewRecords& records) {
  auto size = [&](const Transaction::Item& r) {
    return r.name_size + records.tx->TargetOf(r).size();
  };
  return BlockSizeFor(records.refs, size, records.logs);
}

Status Stack::WriteTransactionTable(LockFile* lock, const NewRecords& records, uint64_t first,
                                    uint64_t next) {
  std::unique_ptr<TempTable> table;
  // Only worth keeping for an auto-compaction, and only when there are logs to copy.
  auto logs = options_.auto_compact && !records.logs.empty() ? std::make_shared<WrittenLogBlocks>()
                                                             : nullptr;
  REFTAB_RETURN_IF_ERROR(WriteTempTable(
      first, next,
      [&](TableWriter& w) -> Status {
        RefRecord rec;  // one for all: its strings' room is reused
        for (const Transaction::Item* item : records.refs) {
          if (item->type == RefValueType::kVal1) {  // the common ref, by its parts
            REFTAB_RETURN_IF_ERROR(w.AddRef(item->refname(), records.update_index, item->id));
            continue;
          }
          records.tx->RecordOf(*item, records.update_index, &rec);
          REFTAB_RETURN_IF_ERROR(w.AddRef(rec));
        }
        for (const LogRecord& l : records.logs) REFTAB_RETURN_IF_ERROR(w.AddLog(l));
        return Status::Ok();
      },
      &table, options_.fit_block_size ? TransactionBlockSize(records) : 0, logs.get()));
  if (!table) return Status::Ok();
  const std::string name = TableName(first, next) + ".ref";
  std::vector<std::string> list = names_;
  list.push_back(name);
  Status s = Publish(lock, std::move(table), name, list);
  if (lock->committed() && logs) {
    fresh_logs_ = std::move(logs);
    fresh_logs_table_ = name;
  }
  return s;
}

// After the list was replaced: load it, let go of the lock object and auto-compact, unless
// the commit `compacted` as it wrote. A failure to sync the directory (`committed`) or to
// reload is reported, but the transaction is in.
Status Stack::FinishCommit(std::unique_ptr<LockFile> lock, Status committed, bool compaction_done) {
  Status reloaded = Reload();
  lock.reset();  // already released by the commit; compaction takes the lock itself
  if (options_.auto_compact && !compaction_done) last_auto_compaction_ = AutoCompact();
  fresh_logs_.reset();
  return committed.ok() ? reloaded : committed;
}

// A commit's steps, with `fill` in place of the transaction's records.
Status Stack::AddTable(size_t largest_record, const FillTableFn& fill, uint64_t* added) {
  if (added) *added = 0;
  REFTAB_ASSIGN_OR_RETURN(std::unique_ptr<LockFile> lock, LockList());
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  last_auto_compaction_ = Status::Ok();
  const uint64_t index = snapshot_->max_update_index() + 1;
  std::unique_ptr<TempTable> table;
  REFTAB_RETURN_IF_ERROR(WriteTempTable(
      index, index, [&](TableWriter& w) { return fill(w, index); }, &table,
      options_.fit_block_size ? BlockSizeFor(largest_record) : 0));
  if (!table) return Status::Ok();  // empty: the lock is released, nothing changed
  const std::string name = TableName(index, index) + ".ref";
  std::vector<std::string> list = names_;
  list.push_back(name);
  Status s = Publish(lock.get(), std::move(table), name, list);
  if (!lock->committed()) return s;
  if (added) *added = index;
  return FinishCommit(std::move(lock), s);
}

// What a transaction will write, decided under its stack's lock.
struct Stack::StagedCommit {
  std::unique_ptr<LockFile> lock;
  NewRecords records;
  uint64_t first = 0;  // the table's first update index
  uint64_t next = 0;   // its last: the updates' (first unless the transaction spans more)
};

// The whole transaction happens under tables.list.lock: the table is renamed into place
// only right before the list that names it, so no clean can see it unlisted.
Status Stack::CommitTransaction(Transaction* tx) {
  StagedCommit staged;
  REFTAB_RETURN_IF_ERROR(StageTransaction(tx, &staged));
  return ApplyStaged(tx, std::move(staged));
}

Status Stack::StageTransaction(Transaction* tx, StagedCommit* out) {
  out->lock = std::move(tx->lock_);
  if (!out->lock) {
    REFTAB_ASSIGN_OR_RETURN(out->lock, LockList());
  }
  REFTAB_RETURN_IF_ERROR(ReloadIfChanged());
  std::shared_ptr<const Snapshot> snap = snapshot_;
  if (tx->decide_) REFTAB_RETURN_IF_ERROR(tx->decide_(*snap, tx));
  out->first = snap->max_update_index() + 1;
  out->next = out->first + tx->update_index_span_ - 1;
  return CollectUpdates(*tx, *snap, out->next, &out->records);
}

Status Stack::ApplyStaged(Transaction* tx, StagedCommit staged) {
  last_auto_compaction_ = Status::Ok();             // this commit's, not an earlier one's
  if (staged.records.empty()) return Status::Ok();  // nothing changes: no table
  bool compacted = false;
  Status s =
      CommitCompacted(staged.lock.get(), &staged.records, staged.first, staged.next, &compacted);
  // A merge that failed was this commit's auto-compaction: not tried a second time.
  const bool merge_tried = compacted || !last_auto_compaction_.ok();
  if (!compacted) {
    s = WriteTransactionTable(staged.lock.get(), staged.records, staged.first, staged.next);
  }
  if (!staged.lock->committed()) return s;
  tx->committed_update_index_ = staged.next;
  return FinishCommit(std::move(staged.lock), s, merge_tried);
}

// Every stack is locked, then every transaction staged (checked and collected under its
// lock), before the first table is written.
Status Transaction::CommitTogether(const std::vector<Transaction*>& txs) {
  for (Transaction* tx : txs) {
    if (tx->committed_) return Status::InvalidArgument("transaction already committed");
  }
  for (Transaction* tx : txs) REFTAB_RETURN_IF_ERROR(tx->Lock());
  std::vector<Stack::StagedCommit> staged(txs.size());
  for (size_t i = 0; i < txs.size(); ++i) {
    txs[i]->committed_ = true;
    REFTAB_RETURN_IF_ERROR(txs[i]->stack_->StageTransaction(txs[i], &staged[i]));
  }
  for (size_t i = 0; i < txs.size(); ++i) {
    REFTAB_RETURN_IF_ERROR(txs[i]->stack_->ApplyStaged(txs[i], std::move(staged[i])));
  }
  return Status::Ok();
}

// ------------------------------------------------------------------ RefValue, Transaction

bool RefValue::Equals(const RefValue& o, size_t hs) const {
  if (type != o.type) return false;
  switch (type) {
    case RefValueType::kDeletion: return true;
    case RefValueType::kVal1: return std::memcmp(id.data(), o.id.data(), hs) == 0;
    case RefValueType::kVal2:
      return std::memcmp(id.data(), o.id.data(), hs) == 0 &&
             std::memcmp(peeled.data(), o.peeled.data(), hs) == 0;
    case RefValueType::kSymref: return target == o.target;
  }
  return false;
}

bool RefValue::Satisfies(const RefValue& expected, size_t hs) const {
  // An expected object id matches a ref to that id whether or not it stores a peeled value.
  if (expected.type == RefValueType::kVal1 && type == RefValueType::kVal2) {
    return std::memcmp(id.data(), expected.id.data(), hs) == 0;
  }
  return Equals(expected, hs);
}

RefValue RefValue::Of(const RefRecord& r) {
  RefValue v;
  v.type = r.value_type;
  if (r.value_type == RefValueType::kVal1 || r.value_type == RefValueType::kVal2) v.id = r.value;
  if (r.value_type == RefValueType::kVal2) v.peeled = r.peeled;
  if (r.value_type == RefValueType::kSymref) v.target = r.target;
  return v;
}

Transaction::Extra& Transaction::ExtraOf(Item& item) {
  if (item.extra == kNoExtra) {
    item.extra = uint32_t(extras_.size());
    extras_.emplace_back();
  }
  return extras_[item.extra];
}

RefValue Transaction::ValueOf(const Item& item) const {
  RefValue v;
  v.type = item.type;
  if (item.type == RefValueType::kVal1 || item.type == RefValueType::kVal2) v.id = item.id;
  if (const Extra* e = ExtraOf(item)) {
    if (item.type == RefValueType::kVal2) v.peeled = e->peeled;
    if (item.type == RefValueType::kSymref) v.target = e->target;
  }
  return v;
}

const RefValue& Transaction::ExpectedOf(const Item& item) const {
  static const RefValue kAbsent = RefValue::Absent();
  return item.expect == Expect::kValue ? extras_[item.extra].expected : kAbsent;
}

bool Transaction::Holds(const Item& item, const RefValue& current, size_t hs) const {
  if (current.type != item.type) return false;
  switch (item.type) {
    case RefValueType::kDeletion: return true;
    case RefValueType::kVal1: return std::memcmp(current.id.data(), item.id.data(), hs) == 0;
    case RefValueType::kVal2:
      return std::memcmp(current.id.data(), item.id.data(), hs) == 0 &&
             std::memcmp(current.peeled.data(), extras_[item.extra].peeled.data(), hs) == 0;
    case RefValueType::kSymref: return current.target == TargetOf(item);
  }
  return false;
}

void Transaction::RecordOf(const Item& item, uint64_t update_index, RefRecord* rec) const {
  rec->refname.assign(item.refname());
  rec->update_index = update_index;
  rec->value_type = item.type;
  rec->value = item.id;
  const Extra* e = ExtraOf(item);
  rec->peeled = e && item.type == RefValueType::kVal2 ? e->peeled : ObjectId{};
  if (e && item.type == RefValueType::kSymref) {
    rec->target = e->target;
  } else {
    rec->target.clear();
  }
}

Transaction::Item& Transaction::Add(Kind kind, std::string_view refname, RefValue value,
                                    std::optional<RefValue> expected_old) {
  if (refname.size() > name_left_) {
    // Chunks of 64 KiB, or one of its own for a longer name.
    constexpr size_t kChunk = 64 * 1024;
    const size_t size = std::max(kChunk, refname.size());
    name_chunks_.push_back(std::make_unique_for_overwrite<char[]>(size));
    name_free_ = name_chunks_.back().get();
    name_left_ = size;
  }
  Item& item = updates_.emplace_back();
  item.kind = kind;
  if (!refname.empty()) std::memcpy(name_free_, refname.data(), refname.size());
  item.name = name_free_;
  item.name_size = uint32_t(refname.size());
  name_free_ += refname.size();
  name_left_ -= refname.size();
  item.type = value.type;
  if (value.type == RefValueType::kVal1 || value.type == RefValueType::kVal2) item.id = value.id;
  if (value.type == RefValueType::kVal2) ExtraOf(item).peeled = value.peeled;
  if (value.type == RefValueType::kSymref) ExtraOf(item).target = std::move(value.target);
  if (expected_old) {
    if (!expected_old->exists()) {
      item.expect = Expect::kAbsent;
    } else {
      item.expect = Expect::kValue;
      ExtraOf(item).expected = std::move(*expected_old);
    }
  }
  return item;
}

void Transaction::Update(std::string refname, RefValue value, std::optional<RefValue> expected_old,
                         std::optional<LogInfo> log) {
  Item& item = Add(Kind::kUpdate, refname, std::move(value), std::move(expected_old));
  if (log) ExtraOf(item).log = std::make_unique<LogInfo>(std::move(*log));
}

void Transaction::Delete(std::string refname, std::optional<RefValue> expected_old) {
  Add(Kind::kDelete, refname, RefValue::Absent(), std::move(expected_old));
}

void Transaction::Verify(std::string refname, RefValue expected) {
  Add(Kind::kVerify, refname, RefValue::Absent(), std::optional<RefValue>(std::move(expected)));
}

void Transaction::VerifyNoneBelow(std::string prefix, std::string for_key) {
  NoneBelow check;
  check.key_is_prefix_dir = !prefix.empty() && prefix.back() == '/' &&
                            prefix.size() == for_key.size() + 1 &&
                            prefix.compare(0, for_key.size(), for_key) == 0;
  if (!check.key_is_prefix_dir) check.for_key = std::move(for_key);
  check.prefix = std::move(prefix);
  empty_prefixes_.push_back(std::move(check));
}

void Transaction::VerifyNoneBelowLast() {
  if (!updates_.empty()) updates_.back().none_below = true;
}

void Transaction::Reserve(size_t updates, size_t logs, size_t none_below) {
  updates_.reserve(updates);
  raw_logs_.reserve(logs);
  empty_prefixes_.reserve(none_below);
}

void Transaction::AddLogRecord(LogRecord log, bool keep_update_index) {
  if (keep_update_index) kept_update_index_.push_back(raw_logs_.size());
  raw_logs_.push_back(std::move(log));
}

Transaction::Transaction(Stack* stack) : stack_(stack) {}
Transaction::~Transaction() = default;
Transaction::Transaction(Transaction&&) noexcept = default;
Transaction& Transaction::operator=(Transaction&&) noexcept = default;

Status Transaction::Lock() {
  if (committed_) return Status::InvalidArgument("transaction already committed");
  if (!lock_) {
    REFTAB_ASSIGN_OR_RETURN(lock_, stack_->LockList());
  }
  return Status::Ok();
}

Status Transaction::Commit() {
  if (committed_) return Status::InvalidArgument("transaction already committed");
  committed_ = true;
  return stack_->CommitTransaction(this);
}

}  // namespace reftab
