// Public API: a sorted key/value store on a reftable stack (the engine git's refs use).
//
// Keys and values are arbitrary bytes (NULs included). Keys sort as unsigned bytes
// (memcmp order, shorter first on a tie). A store is a directory holding a reftable stack
// (tables.list and *.ref files) and, beside it, a write-ahead log, as in LevelDB:
//   * a write (one Put, Delete or batch) is appended to the log, kv.log, as one record with
//     a checksum, then applied to the memtable, a sorted map in memory that reads consult
//     before the tables. A write returns once write(2) returned (a killed process loses
//     nothing acknowledged); with KvWriteOptions::sync, once the record is fsynced, with
//     every write before it (given KvOptions::durability kGit or kFull, which make the
//     tables a flush writes durable too). A machine crash thus keeps the writes up to some
//     point, never fewer than up to the last synced one, and nothing after that point: it
//     loses an unsynced tail, never a write from the middle;
//   * when the memtable passes KvOptions::memtable_size or memtable_entries (and on
//     Flush()), it becomes immutable: kv.log is renamed kv.log.flushing, a fresh kv.log takes the
//     next writes and a new memtable, and the flush thread writes the immutable memtable into one
//     new table of the stack, straight from its sorted entries (Stack::AddTable: no
//     transaction, no read or copy per key), lists it, and only then removes
//     kv.log.flushing. With KvOptions::durability kGit, a flush first syncs the fresh
//     kv.log once (for its header: see opening, below), then makes three fsyncs, each
//     needed before the log may go: the table's and tables.list's, before their renames
//     (a rename that reaches the disk must not name bytes that did not), and the folder's,
//     after them (else the log's removal could reach the disk before the renames); they
//     take little beside writing the table. Reads consult the memtable, then the
//     immutable one, then the tables. A crash at any point leaves the logs of every write
//     no table holds: open replays kv.log.flushing, then kv.log (a log whose writes a table
//     already holds changes nothing when replayed again);
//   * tables are merged geometrically as they accumulate (auto-compaction), on a thread of
//     its own with a handle of its own on the stack: the two threads follow the stack's
//     protocol between them as two processes would (store/compaction.cc: tables.list.lock
//     is held only at a merge's start and end), so a flush lists its table while a merge
//     runs;
//   * opening replays the logs (kv.log.flushing, then kv.log) into a memtable, read in place
//     through their mappings. When kv.log alone held writes, intact, the memtable stays the
//     current one and the writer appends to the same kv.log (an Open and a Close write no
//     table; a memtable already at kKvFlushingGrowth times its size becomes the immutable
//     one, flushed by the flush thread while the store takes writes, and one past its size
//     but below that stays the current one until writes take it there, so that a session
//     that writes little does not wait at its Close for the flush of the last writer's
//     grown memtable); otherwise Open writes the table itself before it
//     returns and starts a fresh kv.log. A kv.log.flushing whose table a crash left listed
//     is not replayed (kv.log's header names the last table before it, and the length
//     of kv.log.flushing, so a log cut between two records is caught too). A short or
//     damaged record (a process killed while appending it, a machine crash that lost
//     unsynced bytes) is dropped, with everything after it, and kv.log too if the damage
//     is in kv.log.flushing (its writes come later): recovery stops at the first damage,
//     and log_recovery() reports it (the file, the offset, the bytes dropped); with
//     KvOptions::paranoid_checks, Open fails instead. A damaged record is never read as
//     data: each carries an XXH3 checksum of its length and contents (the format:
//     store/kv/kv_log_format.h in the source tree).
// When writers wait: there is at most one immutable memtable. A memtable full while the
// previous one is still being flushed goes on taking writes until it holds
// kKvFlushingGrowth times memtable_size (or memtable_entries); a write that finds it that
// full waits for the flush (never for a merge: flushes go on while one runs). A flush that
// takes longer than filling a memtable (its fsyncs beside a merge's) thus costs the writers
// nothing, and the next flush writes a larger table. With auto-compaction,
// while kKvSlowdownTables or more tables wait to be merged (the segment the geometric rule
// would merge; tables pile up when flushes outpace the merges), writes are delayed by 1 ms
// per kKvSlowdownBytes they carry, at most once each (a write of that size or more waits
// 1 ms; smaller ones add to a debt paid 1 ms at a time), which leaves the compaction thread
// the CPU; bytes, not writes, since bytes are what the merges fall behind on, and a delete
// of a few bytes held as long as a 100 KiB put only lengthened the slowdown's tail; at
// kKvStopTables a write that fills the memtable waits for the compaction. Both only while the
// thread has that compaction to run (one lost to another process's lock waits for the next flush).
// KvProperties::write_stall_micros says how long writers waited. Errors of the background
// threads (other than losing a lock race to another process's compaction) are kept: every
// later write, Flush() and Close() returns them; reopen the store. The threads end at
// Close() (or destruction): a flush running then is finished, a merge is stopped at its
// next record (its temporary table removed; merged again after the next flush), and an
// immutable memtable not flushed stays in kv.log.flushing for the next open. When merges
// start: after a flush whose table the geometric rule wants merged. Open starts one only when
// it wrote a table itself or kKvSlowdownTables tables wait: a store opened to read, or to
// make a few writes, does not begin rewriting the tables a Close stopped merging (up to the
// whole store) only for its own Close to stop it again.
// The files of the folder: tables.list, *.ref (the stack, store/stack.h), kv.log (the log),
// kv.log.flushing (the log of the memtable being flushed), kv.log.new (a log being made;
// removed at open), kv.lock (the writer lock, below), and while a flush or compaction
// changes the list, tables.list.lock with its pid file tables.list~pid.lock.
//
// Processes: one writing process at a time. A store opened for writing holds an advisory
// lock on kv.lock (released when the process ends, however it ends); a second writer, in
// this process or another, fails at once with kLockHeld naming kv.lock and the holder's
// pid (a child made by fork() shares its parent's lock: it must not write through the
// parent's store). Any number of processes may open the store with KvOptions::read_only at
// the same time: they read the tables, so they see every flushed write (Refresh() or
// refresh_on_read picks up new tables), never what is only in the writer's log and
// memtable. A writer's Flush() makes its writes visible to them. A store closed without a
// flush keeps its writes in kv.log (and kv.log.flushing); the next writer replays them and
// they reach a table with its next flush (at once, in its Open, if kv.log.flushing was
// left too).
//
// Encoding (every table is a valid reftable that `reftab dump`, `reftab verify` and git's
// reader open):
//   * a key is a ref record's name; an entry is a symbolic-ref record (value type 3) whose
//     target bytes are the value: stored once, verbatim, never prefix-compressed, length as
//     a varint, so a read returns a view of the mapped file with no decoding;
//   * a deletion is a ref deletion record (a tombstone) that hides the key in older tables,
//     dropped when a compaction reaches the oldest table;
//   * a record's update index means nothing to the store (a newer table shadows an older
//     one by its place in the stack): a flush gives every record its table's, and a merge
//     of tables whose key ranges do not overlap (a store filled in key order) copies their
//     blocks as they are, each record then reading with its table's offset from the merged
//     table's minimum (StackOptions::copy_disjoint_tables);
//   * each table's block size is the configured one (4 KiB by default), raised to a power of
//     two that holds the table's largest record when needed, and further until records of
//     that size leave at most 1/16 of a block as padding (100 KiB values: 512 KiB blocks of
//     five records; a 1 MiB value: 8 MiB blocks). A record must fit in one block (the format's
//     rule); blocks are at most 16 MiB - 1, hence kMaxEntryBytes.
// Why not log records (their messages are zlib-compressed blocks of any size): their names
// may not contain NUL, every read would inflate a block, and git's reader reads them as
// reflogs. Why not object ids (value types 1, 2): they hold 20 or 32 bytes only.
// The empty key is not allowed (reftable keys are never empty).
//
// Threads: a KvStore's methods may be called from any number of threads at once (writes
// are serialised in a queue; see Write() for group commit), except that Close() and
// destruction must follow every other call. A KvSnapshot and a KvIterator are used by one
// thread at a time, but they may outlive the store, and copies of a KvSnapshot (which
// share its tables and its frozen copy of the memtables) may go to other threads.
#ifndef REFTAB_STORE_KV_KV_STORE_H_
#define REFTAB_STORE_KV_KV_STORE_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/constants.h"
#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"
#include "store/file.h"
#include "store/lock_file.h"

REFTAB_PUBLIC_BEGIN
namespace reftab {
REFTAB_PUBLIC_BEGIN

class Snapshot;  // store/stack.h
class Stack;
class FileLock;  // store/file.h
class KvMemtable;
class KvLogWriter;

// The largest key + value a store accepts: the record must fit in one block of at most
// kMaxBlockSize bytes, with room for its header, the file header and a restart entry.
inline constexpr size_t kMaxEntryBytes = kMaxBlockSize - 256;

// Writers slow down (1 ms per kKvSlowdownBytes written, at most 1 ms a write) while this
// many tables wait for auto-compaction, and stop until compaction catches up at
// kKvStopTables (see the top of this file). These are RocksDB's defaults for its level 0.
// LevelDB's, 8 and 12, held 100 KiB puts 1 ms each for most of a fill: writers waited
// 626-997 ms of fills of 3,000 such values lasting 1.07-1.30 s. Against the better peer,
// fills in key order went from 0.50-0.57 to 0.82-1.18 of its rate, random ones from
// 0.57-0.68 to 1.40-1.76, and each byte was written 2.8-3.1 times instead of 3.7-4.0. Reads
// right after the fill were as fast. Peak memory rose by 35 MiB: wider merges, each input
// with its read-ahead buffer. Filling 1M values of 100 bytes never reaches 8 tables, so it
// did not change (2026-12-06).
inline constexpr size_t kKvSlowdownTables = 20;
inline constexpr size_t kKvStopTables = 36;
inline constexpr size_t kKvSlowdownBytes = size_t(64) << 10;
// How far the memtable may grow, in memtable_size and memtable_entries, while the previous one is
// being flushed (see the top of this file). At 1M keys of 100 bytes filled in batches, writers
// waited 57-169 ms of about 650 ms for flushes without it, none with it (perf/RESULTS.md).
inline constexpr size_t kKvFlushingGrowth = 2;
// The most the memtables' pool of 2 MiB chunks keeps while the store is open (see
// KvOptions::memtable_size): what it kept when memtables were 8 MiB, more than a memtable
// of 100-byte entries at memtable_entries (about 12 MB) and the one being flushed need.
inline constexpr size_t kKvMemPoolBytes = size_t(32) << 20;

struct KvOptions {
  FileSystem* fs = nullptr;  // nullptr: the operating system's
  // Create the directory if it does not exist (only with the operating system's files).
  bool create_if_missing = true;
  // Open for reading only: no writer lock, no log; reads see the tables (every flushed
  // write). Writes fail with kInvalidArgument.
  bool read_only = false;
  // How the tables a flush or compaction writes are made durable: kNone: no fsync (they
  // survive a crash of the process, not of the machine); kGit: each table and tables.list
  // are fsynced before their rename, and the folder before the log is replaced; kFull: the
  // folder after every rename too. The log's records are synced per write
  // (KvWriteOptions::sync).
  Durability durability = Durability::kGit;
  // The memtable's size, in bytes of keys and values (plus 64 per entry), past which the
  // next write makes it immutable, for the flush thread to write into a new table; or its
  // number of writes (memtable_entries), whichever comes first. Memory use is up to four
  // times this (a memtable grown while a flush ran, being flushed, and the next one grown
  // likewise: kKvFlushingGrowth), plus what snapshots keep of older memtables. It comes in
  // 2 MiB chunks (as huge pages where the kernel gives them), of which up to
  // kKvMemPoolBytes are kept for the next memtables while the store is open.
  // 32 MiB (LevelDB's default is 4 MiB, RocksDB's 64 MiB): each flush is a table written and
  // fsynced, and every table is merged later, so fewer, larger tables mean fewer merges
  // beside the writes. Values of 100 KiB (a driver on this API, 2026-12-06, two runs each):
  // 3,000 random overwrites took 1,206-1,522 ms with 8 MiB (38 flushes, writers slowed 479
  // times), 345 ms with 32 MiB, 234-356 ms with 64 MiB; 1,000 synced puts 788-861, 624 and
  // 479-561 ms. Small entries fill memtable_entries first.
  size_t memtable_size = 32 << 20;
  // The memtable is full at this many writes, whatever their bytes: an insert or lookup in
  // its sorted map slows as the map deepens. Filling 1M keys of 100 bytes one put at a time
  // took 2.4 s with memtables of 8 MiB (about 47,000 entries), 2.9-3.0 s with 64 MiB (about
  // 370,000); random puts 3.2-3.4 s and 4.9-5.1 s (the same driver). 65,536 by default:
  // about 12 MB of entries of 100 bytes.
  size_t memtable_entries = size_t(1) << 16;  // Open refuses 0 here or in memtable_size
  // A damaged record in the log fails Open with kCorruption instead of being dropped and
  // reported by log_recovery().
  bool paranoid_checks = false;
  // How long a flush or compaction waits for another process's compaction to release
  // tables.list.lock (negative: forever).
  int64_t lock_timeout_ms = 10000;
  uint32_t block_size = kDefaultBlockSize;  // for tables whose records fit (see above)
  bool auto_compact = true;                 // geometric compaction after flushes, on its own thread
  // Read-only stores: true: Get, GetSnapshot and NewIterator first look for new tables
  // (one stat() of tables.list; a reload only when it changed). false: they read the
  // state of the last Refresh(). A writer's reads never look (only it adds tables; others'
  // compactions change no contents, and its next flush picks them up).
  bool refresh_on_read = true;
};

// Per write, as LevelDB's.
struct KvWriteOptions {
  // false: the write returns once the log record is written (write(2)): a crash of the
  // process loses nothing acknowledged, a crash of the machine may lose the last writes.
  // true: once the record is fsynced as well, and the writes before it (the first synced
  // write into a fresh log also syncs the folder, for the log's name: replacing the log
  // costs unsynced writers no fsync; and kv.log.flushing if its memtable is not yet in a
  // table: a synced write never outlives an earlier one).
  bool sync = false;
};

// Puts and deletes applied together, or not at all, by KvStore::Write. A later operation
// on the same key replaces an earlier one. An empty key or an entry over kMaxEntryBytes
// makes Write refuse the whole batch.
class KvWriteBatch {
 public:
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  void Clear();
  size_t count() const { return count_; }

 private:
  friend class KvStore;
  // The operations encoded as the log's record payload (store/kv/kv_log_format.h in the
  // source tree): a write appends them to the log as they are, after a header, and the
  // memtable reads them from here, so an operation costs no allocation or copy of its own.
  std::string ops_;
  size_t count_ = 0;
  Status invalid_;  // the first operation Write must refuse, if any
};

struct KvIteratorOptions {
  std::optional<std::string> lower_bound;  // first key visited is >= this (inclusive)
  std::optional<std::string> upper_bound;  // keys visited are < this (exclusive)
  std::string prefix;                      // only keys that start with it
  // Once a scan has passed 2 MiB of a table's blocks in a row since its last seek, read that
  // table's next blocks with pread(2) into a window the iterator reuses (64 KiB, doubling up
  // to 256 KiB, or one block if larger) rather than through its mapping; a seek followed by
  // a few steps stays on the mapping. It pays where touching mapped pages is dear: a table a
  // compaction has just written, or any table under a hypervisor with shadow page tables
  // (several microseconds per 4 KiB page on the VM the README's figures come from). It costs
  // a copy of every value passed (a few nanoseconds per entry of 100 bytes) where the pages
  // are already mapped and warm.
  bool readahead = true;
};

// Iteration in key order over one snapshot, forwards and backwards; tombstones are never
// returned. key() and value() are views, valid until the next Seek/Next/Prev (or the
// iterator's destruction), of the bytes where the entry lies: a value in the mapped table
// or in the window read ahead from it (a record lies whole in one block, which is never
// compressed) or in the snapshot's frozen
// memtable, a key in the table cursor's key buffer (a name is stored as the bytes it shares
// with the one before) or the memtable. A step copies no value and allocates nothing.
// Backwards (SeekToLast, SeekForPrev, Prev) costs what forwards does, per entry: reftable
// blocks decode forwards only (a key is stored as the bytes it shares with the one before),
// so each table's cursor goes back a restart interval at a time (about 16 records, decoded
// forwards once into a small buffer and handed out backwards) and a block at a time (the
// block before is one block size earlier in a padded table, as the store writes them; in
// an unpadded one, written elsewhere, the blocks' offsets are collected once per iterator
// by reading each block's header; the index gives the last block); the tables, the
// immutable memtable and the memtable are merged backwards as they
// are forwards (newer hides older, a deletion hides the key). A seek backwards costs what a
// Seek does. Changing direction (Next after Prev, Prev after Next) seeks again from the
// current key, once. Bounds and prefix apply as forwards.
class KvIterator {
 public:
  KvIterator(KvIterator&&) noexcept;
  KvIterator& operator=(KvIterator&&) noexcept;
  ~KvIterator();

  // Positions at the first key within the bounds.
  Status SeekToFirst();
  // Positions at the first key >= `key` within the bounds.
  Status Seek(std::string_view key);
  // Positions at the last key within the bounds.
  Status SeekToLast();
  // Positions at the last key <= `key` within the bounds.
  Status SeekForPrev(std::string_view key);
  bool Valid() const { return valid_; }
  // Moves to the next key; Valid() turns false at the end or on error (see status()).
  void Next();
  // Moves to the previous key; Valid() turns false before the first or on error. Like
  // Next(), nothing when !Valid() (past either end: seek again).
  void Prev();
  // Only while Valid(); views valid until the next Seek/Next/Prev (see above).
  std::string_view key() const { return key_; }
  std::string_view value() const { return value_; }
  const Status& status() const;

 private:
  friend class KvSnapshot;
  struct Impl;
  explicit KvIterator(std::unique_ptr<Impl> impl);
  void Settle();  // moves key_ and value_ to the next entry, applying the bounds
  // Positions at the last key < `below` (inclusive: <=) within the bounds; nullopt: no limit
  // but the bounds.
  Status SeekBack(const std::optional<std::string_view>& below, bool inclusive);
  void SettleBack();  // the same backwards

  std::unique_ptr<Impl> impl_;
  std::string_view key_;
  std::string_view value_;
  bool valid_ = false;
};

// A fixed state: a set of tables and a frozen copy of the writer's memtable. Reads see one
// consistent state while writers go on (they add and replace files; the snapshot keeps its
// own mapped). A KvSnapshot object is used by one
// thread at a time (Get reuses a buffer of its own); copies are cheap (the tables are
// shared), so give each thread its copy.
class KvSnapshot {
 public:
  explicit KvSnapshot(std::shared_ptr<const Snapshot> snap);
  // Sets *found, and *value when found.
  Status Get(std::string_view key, std::string* value, bool* found) const;
  KvIterator NewIterator(const KvIteratorOptions& options = {}) const;
  // Orders the states of one open store: a later state has a greater or equal number. The
  // high 32 bits count the tables written (the stack's update index), the low 32 bits the
  // write batches since the last table this store wrote.
  uint64_t sequence() const;

 private:
  friend class KvStore;
  struct Mem;  // the frozen memtable (kv_store.cc)
  KvSnapshot(std::shared_ptr<const Snapshot> snap, std::shared_ptr<const Mem> mem);
  std::shared_ptr<const Snapshot> snap_;
  std::shared_ptr<const Mem> mem_;  // null: no memtable (a read-only store's)
  mutable RefRecord scratch_;       // Get's record: its name buffer is kept from call to call
};

// What a store holds and has done since it was opened (KvStore::Properties()).
struct KvProperties {
  std::vector<uint64_t> table_sizes;  // the tables' file sizes, oldest first
  uint64_t table_bytes = 0;           // their sum
  uint64_t memtable_bytes = 0;        // the memtable's size (as KvOptions::memtable_size counts)
  uint64_t immutable_memtable_bytes = 0;  // the one being flushed; 0 if none
  size_t pending_compaction_tables = 0;   // the tables auto-compaction would merge now
  uint64_t pending_compaction_bytes = 0;  // their bytes
  // Since open: bytes of keys and values the writes carried; bytes appended to the logs;
  // bytes of the tables flushes (of what Open replayed too, unless Open wrote it itself) and
  // compactions wrote.
  uint64_t user_bytes_written = 0;
  uint64_t log_bytes_written = 0;
  uint64_t table_bytes_written = 0;
  uint64_t log_writes = 0;  // write(2)s of log records: fewer than writes under group commit
  uint64_t log_syncs = 0;
  uint64_t flushes = 0;             // memtables written into tables by the flush thread
  uint64_t compactions = 0;         // auto-compactions that merged tables
  uint64_t write_slowdowns = 0;     // writes delayed by 1 ms (see the top of this file)
  uint64_t write_stops = 0;         // waits of a write for a flush or a compaction
  uint64_t write_stall_micros = 0;  // the time writes spent in both, microseconds
  // (log + table bytes written) / user bytes; 0 before the first write.
  double write_amplification() const {
    return user_bytes_written == 0
               ? 0
               : double(log_bytes_written + table_bytes_written) / double(user_bytes_written);
  }
};

class KvStore {
 public:
  // Removes the store in `dir`: its tables, tables.list, its logs and kv.lock, then the
  // folder if nothing else is left in it (other files stay). Refuses with kLockHeld while a
  // writer has it open (kv.lock, as Open) or while tables.list.lock exists (a compaction
  // may be running in another process; one a killed process left must be removed first).
  // Read-only stores open on it keep reading what they had mapped. kNotFound if `dir`
  // does not exist. Only with the operating system's files when options.fs is null.
  static Status Destroy(const std::string& dir, const KvOptions& options = {});
  // Opens the store in `dir` (see the top of this file): a writer takes kv.lock (kLockHeld
  // if another writer has it), replays kv.log.flushing and kv.log into a memtable (which
  // Open itself writes into a table when both logs were there or one was damaged: see the
  // top of this file), and starts its background threads (flush and compaction).
  // kInvalidArgument if memtable_size or memtable_entries is 0.
  static Result<std::unique_ptr<KvStore>> Open(const std::string& dir, const KvOptions& options);
  // Close(), ignoring its status.
  ~KvStore();
  // Stops the background threads (joined: no thread outlives the store): a flush running is
  // finished, a merge stopped (see the top of this file). Returns the error they met, if
  // any (Ok for a read-only store). Does not flush: the logs keep the writes for the next
  // Open. Closes the log and releases the writer lock (kv.lock): the store may be opened
  // again before this object is destroyed. Every later call but the
  // destructor is an error (kInvalidArgument for writes). Called once, after every other
  // call on the store returned.
  Status Close();

  Status Put(std::string_view key, std::string_view value, const KvWriteOptions& options = {});
  Status Delete(std::string_view key, const KvWriteOptions& options = {});
  // Applies the whole batch atomically: one log record (nothing for an empty batch).
  // kInvalidArgument for an empty key or a read-only store, kTooLarge for an entry over
  // kMaxEntryBytes. An error writing or syncing the log fails this write and every later
  // one (the log's end is then unknown; reopen the store), as do an error putting a fresh
  // log in place and an error of the background threads (see the top of this file).
  // Group commit: writes of several threads queue up; the first in the queue appends the
  // records of those behind it (up to 1 MiB, and synced ones only behind a synced one)
  // with one write(2) and at most one fsync, then wakes them; a synced head whose last
  // synced group had company first watches the queue briefly for as many writers (spinning,
  // then yielding its core, never sleeping), so that threads making synced writes share
  // fsyncs by the group rather than alternating between a lone writer and the rest. Each
  // thread's writes are applied in the order it made them; a write returns once its record
  // is written (and synced, with `options.sync`) and applied, so a later read of any thread
  // sees it.
  Status Write(const KvWriteBatch& batch, const KvWriteOptions& options = {});
  // Makes the memtable immutable now (waiting for an earlier one's flush) and waits until
  // the flush thread has written it into a table and both threads are idle (the compaction
  // that follows done too): from then on, read-only stores of other processes see the writes.
  // Returns the background threads' error, if any. While other threads write, it may wait
  // for their flushes too.
  Status Flush();

  // Reads the latest state: the memtable, the immutable memtable, then the tables (a
  // read-only store first picks up new tables: one stat of tables.list when nothing
  // changed; see KvOptions::refresh_on_read).
  Status Get(std::string_view key, std::string* value, bool* found);
  // Get of every key of `keys` in one state (no write lands between two of them): resizes
  // *values and *found to keys.size(); (*values)[i] is set when (*found)[i]. The empty key
  // is not found. On error, the contents of both are unspecified.
  Status MultiGet(const std::vector<std::string_view>& keys, std::vector<std::string>* values,
                  std::vector<bool>* found);
  // The latest state, as above, fixed.
  Result<KvSnapshot> GetSnapshot();
  // An iterator over GetSnapshot().
  Result<KvIterator> NewIterator(const KvIteratorOptions& options = {});

  // Picks up new tables now.
  Status Refresh();

  // Flushes the memtables (if writable) and merges all tables into one (tombstones dropped).
  Status CompactAll();
  // What Open found wrong in the logs: Ok, or kCorruption naming the log, the offset of the
  // first record not read and the bytes dropped from there to the end.
  const Status& log_recovery() const { return log_recovery_; }
  // The current numbers (a read-only store: its tables only, the counters stay 0).
  KvProperties Properties();
  // The stack underneath, for inspection (table names, compaction outcome): the flush
  // thread's handle, reloaded after every compaction. A writer's background threads
  // change it: only while they are idle (after Flush() or CompactAll(), with no write
  // since).
  Stack* stack() { return stack_.get(); }

 private:
  struct Writer;  // a queued write (kv_store.cc)
  struct Bg;      // a writer's memtables, log, write queue and background threads
  KvStore(std::unique_ptr<Stack> stack, const KvOptions& options);
  Status MaybeRefresh();
  // `wrote_table`: whether the memtable replayed went into a table here.
  Status Recover(bool* wrote_table);
  // Queues a write of `n` operations whose record `w` holds (see Write()).
  Status WriteRecord(Writer* w, size_t n, const KvWriteOptions& options);
  Status WriteQueued(Writer* w);
  void AwaitSyncCompany(std::unique_lock<std::mutex>& lock);
  Status MakeRoomForWrite(std::unique_lock<std::mutex>& lock, bool force, size_t bytes);
  Status FreezeMemtable();
  // Whether the memtable holds `growth` times memtable_size bytes or memtable_entries
  // writes (bg_->mu held, or before the threads start).
  bool MemtableFull(size_t growth) const;
  void FlushLoop();
  void CompactLoop();
  Status FlushImmutable(std::unique_lock<std::mutex>& lock);
  Status CompactDue(std::unique_lock<std::mutex>& lock);
  Status InstallTables(uint64_t merges = 0);
  // When a merge the geometric rule wants starts: now, or only if kKvSlowdownTables tables
  // wait (an Open that wrote no table: see the top of this file).
  enum class MergeStart { kNow, kIfBehind };
  void UpdateTables(std::unique_lock<std::mutex>& lock, std::shared_ptr<const Snapshot> after,
                    MergeStart start = MergeStart::kNow);
  std::shared_ptr<const Snapshot> Tables();

  std::unique_ptr<Stack> stack_;  // flushes (and reads) use it
  // A writer's second handle on the stack, for its compactions (see Open in kv_store.cc).
  std::unique_ptr<Stack> compact_stack_;
  std::mutex compact_mu_;  // held by whoever uses compact_stack_
  KvOptions options_;
  std::unique_ptr<FileLock> lock_;     // a writer's lock on kv.lock
  std::unique_ptr<Bg> bg_;             // null when read-only
  std::mutex stack_mu_;                // held by whoever uses stack_
  Status log_recovery_;                // see log_recovery()
  std::mutex get_mu_;                  // held by a Get using current_ (try_lock: else a local one)
  std::optional<KvSnapshot> current_;  // Get's view of the current tables
  bool closed_ = false;
};

REFTAB_PUBLIC_END
}  // namespace reftab
REFTAB_PUBLIC_END

#endif  // REFTAB_STORE_KV_KV_STORE_H_
