// Public API: a stack of reftables in one directory, as git keeps them in .git/reftable/.
//
// `tables.list` names the tables oldest first, one per line, each ending in a newline; an
// empty or missing list is an empty stack. Readers work on a Snapshot: an immutable,
// reference-counted set of open tables that stays valid (the files are mapped) while
// writers and compactions replace files underneath. Reload() builds a new snapshot, reusing
// tables that are already open.
#ifndef REFTAB_STORE_STACK_H_
#define REFTAB_STORE_STACK_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/compaction_policy.h"
#include "store/file.h"
#include "store/lock_file.h"
#include "store/merged_iterator.h"
#include "store/table_reader.h"
#include "store/table_writer.h"
#include "store/transaction.h"

namespace reftab {

// Not installed, and kept out of the exports below: declared before REFTAB_PUBLIC_BEGIN
// because a class takes its visibility from its first declaration.
class TempTable;          // store/temp_table.h
struct TableScratch;      // store/table_builder.h
struct WrittenLogBlocks;  // store/table_log_blocks.h
class MergeOrderMemo;     // store/merge_order.h
struct SnapshotAccess;    // store/snapshot_access.h

REFTAB_PUBLIC_BEGIN

class Progress;  // store/progress.h

struct StackOptions {
  FileSystem* fs = nullptr;  // nullptr: the operating system's
  // The stack's object format. Unset: taken from the first table (SHA-1 if there is none).
  // Every table must use it.
  std::optional<HashId> hash_id;
  // How new tables are written (block size, restart interval, obj index). The hash always
  // follows the stack's; messages are normalized as git does unless exact_log_message.
  WriteOptions write_options;
  // How long a writer waits for tables.list.lock: git's reftable.lockTimeout (0: try once,
  // negative: forever), counted as git counts it (see LockFile::Acquire).
  int64_t lock_timeout_ms = 100;
  Durability durability = Durability::kGit;
  // Permission bits for every file the stack creates: tables (set on the temporary file,
  // which keeps them when renamed), lock files and, through its lock file, tables.list.
  // Set with chmod after creation, so the umask does not apply (git does the same for
  // core.sharedRepository). Unset: what open(2) gives, 0666 minus the umask.
  std::optional<uint32_t> file_mode;
  // git 2.54's core.lockfilePid: every lock this stack takes (tables.list's, a compaction's
  // table locks) comes with a pid file naming this process (store/lock_file.h).
  bool lock_pid_files = false;
  // Told of what fails nothing but git warns of: a pid file that could not be written.
  WarningSink warn;
  // Geometric auto-compaction after every committed transaction (git's default), and its
  // factor (reftable.geometricFactor; 0 means 2).
  bool auto_compact = true;
  uint32_t geometric_factor = 2;
  // Write each table with a block size large enough for its largest record (a power of two
  // above write_options.block_size, at most kMaxBlockSize; large enough that records of
  // that size leave at most 1/16 of a block as padding), so that records bigger than a
  // block (the KV store's values, store/kv/kv_store.h) can be written. Off for git stacks:
  // git writes every table with its configured block size.
  bool fit_block_size = false;
  // For stacks whose users give update indexes no meaning (the KV store's): a compaction of
  // tables holding refs only, whose key ranges do not overlap (a store filled in key order),
  // copies their ref blocks as they are instead of merging record by record
  // (store/disjoint_merge.h): the same refs in the same order, each with its update index
  // moved by (merged min_update_index - its table's), still within the merged table's
  // limits. Off for git stacks: git's merge keeps every update index, and its bytes.
  bool copy_disjoint_tables = false;
  // Open() fails with kNotFound naming the directory when it does not exist, unless this
  // is set: then the stack reads as empty (and a commit fails, having nowhere to put its
  // lock). For stacks git reads without their directory (a linked worktree's).
  bool missing_dir_is_empty = false;
};

// The name git gives a table of update indexes min..max, without ".ref":
// 0x<min, 12 hex digits>-0x<max, 12 hex digits>-<random, 8 hex digits>. Tables written
// beside a stack (tools, demos) use it too, so that `git refs verify` accepts them.
std::string GitTableStem(uint64_t min, uint64_t max, uint32_t random);

// Reflog expiry applied while compacting. Entries are only dropped when the compaction
// reaches the base table (otherwise an older table could still hold them).
struct CompactionOptions {
  std::optional<uint64_t> expire_logs_before;  // drop entries whose time is older
  std::optional<size_t> max_logs_per_ref;      // keep only the newest N entries of each ref
  Progress* progress = nullptr;                // told of every record written
  // Checked before every record written: once it is true, the compaction stops with
  // kOutdated and leaves the stack as it was (a store closing, store/kv/kv_store.h).
  const std::atomic<bool>* cancel = nullptr;
};

// What a snapshot has built in memory besides its tables' mappings, in bytes, for a
// long-lived process's memory reports. Every part is built lazily, once it pays. The aids
// belong to the tables and go with the last snapshot that holds them; the merge order is
// shared by a snapshot's copies and goes with the last of them.
struct SnapshotMemory {
  size_t hash_indexes = 0;   // the tables' TableReader::ref_hash_index_bytes()
  size_t filters = 0;        // their ref_filter_bytes()
  size_t block_indexes = 0;  // their ref_block_index_bytes()
  // The merge order whole ref scans replay: one byte per record of the stack, kept from the
  // second whole scan on; 0 before, for a single table, and while a table's lookup aids are
  // off.
  size_t merge_order = 0;
  size_t total() const { return hash_indexes + filters + block_indexes + merge_order; }
};

class Snapshot {
 public:
  Snapshot(std::vector<std::shared_ptr<const TableReader>> tables, HashId hash_id);

  // Oldest first.
  const std::vector<std::shared_ptr<const TableReader>>& tables() const { return tables_; }
  // The same tables as plain pointers, oldest first: what the merged iterators take.
  const std::vector<const TableReader*>& readers() const { return raw_; }
  HashId hash_id() const { return hash_id_; }
  size_t hash_size() const { return HashSize(hash_id_); }
  // Highest max_update_index of any table (0 for an empty stack).
  uint64_t max_update_index() const;

  // Exact lookup, the fast path: tables newest first, stopping at the first table that has
  // the name. A tombstone there means "not found". No merged iterator is built.
  Status ReadRef(std::string_view name, RefRecord* ref, bool* found) const;

  // Merged iterators over all tables (tombstones returned unless suppressed).
  MergedRefIterator NewRefIterator() const;
  MergedLogIterator NewLogIterator() const;

  // What it has built in memory so far (see SnapshotMemory).
  SnapshotMemory memory() const;

 private:
  friend struct SnapshotAccess;

  std::vector<std::shared_ptr<const TableReader>> tables_;
  std::vector<const TableReader*> raw_;
  HashId hash_id_;
  // The order of whole ref scans, recorded once (internal: store/merge_order.h).
  std::shared_ptr<MergeOrderMemo> ref_order_;
};

// A Stack object is used by one thread at a time; its snapshots may be shared freely and
// outlive it. Any number of processes may open the same directory: writers serialise on
// tables.list.lock, readers never lock.
class Stack {
 public:
  // Opens the stack in `dir` and loads a first snapshot. A missing `dir` is kNotFound
  // ("<dir>: no such directory") unless options.missing_dir_is_empty; a directory without
  // tables.list is an empty stack. Callers that mean to create a stack make `dir` first.
  static Result<std::unique_ptr<Stack>> Open(const std::string& dir, const StackOptions& options);
  ~Stack();

  const std::string& dir() const { return dir_; }
  const StackOptions& options() const { return options_; }
  HashId hash_id() const { return snapshot_->hash_id(); }
  // The current snapshot; cheap (a shared_ptr copy).
  std::shared_ptr<const Snapshot> snapshot() const { return snapshot_; }
  // Table names of the current snapshot, oldest first.
  const std::vector<std::string>& names() const { return names_; }

  // Whether tables.list is still the file this snapshot was loaded from: one stat(), no
  // read (the loaded list is kept open, so its inode number cannot be recycled).
  bool IsUpToDate();
  // Re-reads tables.list and installs a new snapshot, reusing already open tables. A listed
  // table that is missing makes it re-read the list (a compaction may have replaced it)
  // with backoff, up to a deadline; then it fails with kNotFound naming the table.
  Status Reload();
  // Reload() only if IsUpToDate() says the list changed.
  Status ReloadIfChanged();

  // A new, empty transaction on this stack.
  Transaction NewTransaction() { return Transaction(this); }

  // Adds one table that `fill` writes, on top of the stack, without a transaction: nothing
  // is read, checked, copied or sorted here. For a writer whose records are already in
  // table order and known to be changes (the key/value store's memtable flush,
  // store/kv/kv_store.h). The stack's protocol is a commit's: tables.list.lock is taken
  // (waiting as a commit does), the stack reloaded, then `fill` gets a writer whose update
  // indexes are limited to `update_index` (the stack's next) and adds the records as
  // TableWriter wants them (refs by strictly increasing name, each at `update_index`, then
  // logs); the table is written under a temporary name, made durable, renamed and listed
  // as the durability says. `largest_record` is the largest name + symref target size among
  // the refs `fill` adds, from which fit_block_size picks the block size. A table that comes
  // out empty adds nothing. A failure at any step (of `fill` too) leaves the stack as it
  // was, with no stray file, as a failed commit does; a failure to sync the folder after
  // the list was replaced is reported, but the table is in. Auto-compaction follows when
  // the options ask for it, as after a commit. *added (if given) is the new table's update
  // index, 0 when none was added.
  using FillTableFn = std::function<Status(TableWriter& writer, uint64_t update_index)>;
  Status AddTable(size_t largest_record, const FillTableFn& fill, uint64_t* added = nullptr);

  // Merges every table into one (tombstones and deleted logs dropped; reflog expiry
  // applied). An empty result leaves no table at all. A stack of one table is left as it
  // is, without taking a lock, unless the options expire reflogs (as git's compaction).
  Status CompactAll(const CompactionOptions& options = {});
  // Merges tables [first, last] (indexes into names()). Tombstones are kept unless first is 0.
  Status CompactRange(size_t first, size_t last, const CompactionOptions& options = {});
  // git's geometric auto-compaction, as run after every write: CompactIfDue(), unless
  // compaction is disabled in the options; losing a lock to another process is not an
  // error (the next write compacts again).
  Status AutoCompact(Progress* progress = nullptr);
  // The same when asked for explicitly (`pack-refs --auto`), whatever the options say:
  // merges the segment SuggestCompaction() picks, if any, skipping tables that other
  // processes have locked. Reports kLockHeld when tables.list or every table it would
  // merge but one is locked, and kOutdated when the stack changed under the lock (or
  // `cancel`, if given, turned true: CompactionOptions::cancel).
  Status CompactIfDue(Progress* progress = nullptr, const std::atomic<bool>* cancel = nullptr);
  // Removes what killed writers leave behind, holding tables.list.lock:
  //  * *.ref files the list does not name whose max_update_index is not beyond the stack's
  //    (a newer one may be a transaction about to be listed);
  //  * temporary tables (<table>.temp.*) that no live process owns: our writers hold an
  //    advisory lock on theirs, and git's, which hold none, keep writing to theirs, so a
  //    file is removed only if nobody holds its lock and it was not modified for
  //    kStaleTempTableAgeSeconds;
  //  * the lock of a table the list no longer names (<table>.ref.lock): only a compaction
  //    that already replaced the table can hold it, and it no longer needs it.
  // The lock of a listed table is never removed: a running compaction may hold it.
  Status Clean();

  // Who holds tables.list.lock, as its pid file says (core.lockfilePid, store/lock_file.h):
  // "<dir>/tables.list.lock: Lock may be held by process N; ..." (or that the process is
  // gone), or "" when there is no readable pid file.
  std::string ListLockHolder() const;
  // How long a temporary table must go unmodified before Clean() may remove it. A live
  // writer modifies its file at every block; after the last one it only syncs, closes and
  // waits for tables.list.lock (reftable.lockTimeout, 100 ms by default) before renaming it.
  // Removing a live git writer's file anyway would make that write fail, never lose data
  // (no list names a temporary file); the age only keeps that from happening to a writer
  // that is merely slow, suspended or waiting long for the lock.
  static constexpr int64_t kStaleTempTableAgeSeconds = 15 * 60;
  // The outcome of the auto-compaction the last commit ran (Ok if it ran none). Its errors
  // never fail the commit itself: a caller that wants them reported (git does) asks here.
  const Status& last_auto_compaction() const { return last_auto_compaction_; }

 private:
  friend class Transaction;
  struct NewRecords;      // what a transaction writes (stack.cc)
  struct CompactionPlan;  // a compaction in progress (compaction.cc)
  Stack(std::string dir, const StackOptions& options);
  Status ReadList(std::vector<std::string>* names, std::unique_ptr<PinnedFile>* pin,
                  FileInfo* info);
  Status TryLoad(const std::vector<std::string>& names);
  // Built once: IsUpToDate() runs before every read of a KV store (store/kv/kv_store.h).
  const std::string& ListPath() const { return list_path_; }
  std::string TableName(uint64_t min, uint64_t max);
  // The options a new table is written with; `min_block_size` raises the block size when
  // StackOptions::fit_block_size is on.
  WriteOptions TableWriteOptions(uint32_t min_block_size = 0) const;
  Result<std::unique_ptr<LockFile>> LockList();

  // Writing tables (stack.cc). A table is written under a temporary name through `fill`
  // (*out is left null if it came out empty); Publish() gives it its final `name` and writes
  // `list`, which names it, both under `lock`; if the list is not replaced, the table is
  // removed again. Without a table, Publish() only writes the list.
  // `record_logs`, if given, receives where the table's log blocks are.
  Status WriteTempTable(uint64_t min, uint64_t max, const std::function<Status(TableWriter&)>& fill,
                        std::unique_ptr<TempTable>* out, uint32_t min_block_size = 0,
                        WrittenLogBlocks* record_logs = nullptr);
  Status Publish(LockFile* lock, std::unique_ptr<TempTable> table, const std::string& name,
                 const std::vector<std::string>& list);
  Status WriteNewList(LockFile* lock, const std::vector<std::string>& names);

  // Transactions (stack.cc), the steps of CommitTransaction: Stage takes the lock (or the
  // one the transaction holds), reloads, runs its decision and checks and collects the
  // records; Apply writes and publishes the table. Transaction::CommitTogether stages every
  // transaction before it applies any.
  struct StagedCommit;
  Status CommitTransaction(Transaction* tx);
  Status StageTransaction(Transaction* tx, StagedCommit* out);
  Status ApplyStaged(Transaction* tx, StagedCommit staged);
  // Takes the transaction's raw log records.
  Status CollectUpdates(Transaction& tx, const Snapshot& snap, uint64_t next,
                        NewRecords* out) const;
  Status CollectItem(const Transaction& tx, Transaction::Item& item, const Snapshot& snap,
                     uint64_t next, NewRecords* out) const;
  // The block size StackOptions::fit_block_size asks for the table of `records`.
  static uint32_t TransactionBlockSize(const NewRecords& records);
  // A table spanning update indices first..next, its updates at next.
  Status WriteTransactionTable(LockFile* lock, const NewRecords& records, uint64_t first,
                               uint64_t next);
  // Reloads after a commit and, unless `compaction_done` (the commit merged, or tried to),
  // runs the auto-compaction.
  Status FinishCommit(std::unique_ptr<LockFile> lock, Status committed,
                      bool compaction_done = false);
  // The auto-compaction that would follow the transaction's table, done as the table is
  // written (compaction.cc): when it would merge the new table with every table below it,
  // their merge is written and published instead, in one pass, and *compacted is set. The
  // same bytes and list as the table and its compaction (only the random part of the name
  // differs, as it does between any two writes). *compacted stays false, and nothing is
  // changed, when that cannot be known before the table is written or the merge fails
  // before the list is written: the caller then writes the table on its own.
  Status CommitCompacted(LockFile* lock, NewRecords* records, uint64_t first, uint64_t next,
                         bool* compacted);
  Status WriteCompactedCommit(TableWriter& w, NewRecords* records) const;

  // Compaction (compaction.cc), the steps of CompactSegment.
  Status CompactSegment(size_t first, size_t last, bool best_effort,
                        const CompactionOptions& options);
  Status LockRange(size_t first, size_t last, bool best_effort, CompactionPlan* plan);
  Status MergeRange(const CompactionPlan& plan, const CompactionOptions& options,
                    std::unique_ptr<TempTable>* out);
  const TableReader* CopyableLogSource(const CompactionPlan& plan, const CompactionOptions& options,
                                       const WriteOptions& write_options) const;
  Status SpliceRange(CompactionPlan* plan, std::unique_ptr<TempTable> table);
  Status DropMerged(const CompactionPlan& plan);

  // Clean (compaction.cc).
  void CleanTable(const std::string& name, uint64_t max_update_index);
  void CleanTempTable(const std::string& name, int64_t now_ns);
  void CleanTableLock(const std::string& name);
  void CleanLockPidFile(const std::string& name);

  std::string dir_;
  std::string list_path_;
  StackOptions options_;
  FileSystem* fs_;
  std::vector<std::string> names_;
  std::shared_ptr<const Snapshot> snapshot_;
  std::unique_ptr<PinnedFile> list_pin_;  // the loaded tables.list, kept open
  FileInfo list_info_;
  std::minstd_rand rng_;
  // The block and write buffers the tables this handle writes share, one after the other.
  std::unique_ptr<TableScratch> table_scratch_;
  Status last_auto_compaction_;
  // The log blocks of the table the transaction being committed wrote, and its name: the
  // auto-compaction right after it copies them instead of compressing them again
  // (store/table_log_blocks.h). Null outside CommitTransaction.
  std::shared_ptr<WrittenLogBlocks> fresh_logs_;
  std::string fresh_logs_table_;
};

// Parses the contents of a tables.list file. Fails on a missing final newline (as git
// >= 2.52 does) and on names that are not plain file names.
Status ParseTablesList(std::string_view contents, std::vector<std::string>* names);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_STACK_H_
