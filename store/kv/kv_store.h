// Public API: a sorted key/value store on a reftable stack (the engine git's refs use).
//
// Keys and values are arbitrary bytes (NULs included). Keys sort as unsigned bytes
// (memcmp order, shorter first on a tie). A store is a directory holding a reftable stack
// (tables.list and *.ref files): every write is one atomic batch appended as one table, the
// tables are merged geometrically as they accumulate (auto-compaction), readers never lock,
// and any number of processes may read and write the same directory at once, with the same
// locking and reload protocol as git's reftable refs (store/stack.h).
//
// Encoding (every file is a valid reftable that `reftab dump`, `reftab verify` and git's
// reader open):
//   * a key is a ref record's name; an entry is a symbolic-ref record (value type 3) whose
//     target bytes are the value: stored once, verbatim, never prefix-compressed, length as
//     a varint, so a read returns a view of the mapped file with no decoding;
//   * a deletion is a ref deletion record (a tombstone) that hides the key in older tables,
//     dropped when a compaction reaches the oldest table;
//   * each table's block size is the configured one (4 KiB by default), raised to a power of
//     two that holds the table's largest record when needed (a 1 MiB value gives a 2 MiB
//     block). A record must fit in one block (the format's rule); blocks are at most
//     16 MiB - 1, hence kMaxEntryBytes.
// Why not log records (their messages are zlib-compressed blocks of any size): their names
// may not contain NUL, every read would inflate a block, and git's reader reads them as
// reflogs. Why not object ids (value types 1, 2): they hold 20 or 32 bytes only.
// The empty key is not allowed (reftable keys are never empty).
//
// Objects: a KvStore is used by one thread at a time (like a Stack); a KvSnapshot and a
// KvIterator too, but they may outlive the store, and copies of a KvSnapshot (which share
// its tables) may go to other threads.
#ifndef REFTAB_STORE_KV_KV_STORE_H_
#define REFTAB_STORE_KV_KV_STORE_H_

#include <cstdint>
#include <memory>
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

// The largest key + value a store accepts: the record must fit in one block of at most
// kMaxBlockSize bytes, with room for its header, the file header and a restart entry.
inline constexpr size_t kMaxEntryBytes = kMaxBlockSize - 256;

struct KvOptions {
  FileSystem* fs = nullptr;  // nullptr: the operating system's
  // Create the directory if it does not exist (only with the operating system's files).
  bool create_if_missing = true;
  // kNone: no fsync (data survives a crash of the process, not of the machine); kGit: each
  // table and tables.list are fsynced before their rename; kFull: the directory too.
  Durability durability = Durability::kGit;
  // How long a write waits for another process's write or compaction to release
  // tables.list.lock (negative: forever).
  int64_t lock_timeout_ms = 10000;
  uint32_t block_size = kDefaultBlockSize;  // for tables whose records fit (see above)
  bool auto_compact = true;                 // geometric compaction after every write
  // true: KvStore::Get, GetSnapshot and NewIterator first look for other processes' writes
  // (one stat() of tables.list; a reload only when it changed). false: they read the state
  // of this store's last Write or Refresh(), which is as fast as a snapshot read.
  bool refresh_on_read = true;
};

// Puts and deletes applied together, or not at all, by KvStore::Write. A later operation
// on the same key replaces an earlier one.
class KvWriteBatch {
 public:
  void Put(std::string_view key, std::string_view value);
  void Delete(std::string_view key);
  void Clear() { ops_.clear(); }
  size_t count() const { return ops_.size(); }

 private:
  friend class KvStore;
  struct Op {
    std::string key;
    std::optional<std::string> value;  // nullopt: delete
  };
  std::vector<Op> ops_;
};

struct KvIteratorOptions {
  std::optional<std::string> lower_bound;  // first key visited is >= this (inclusive)
  std::optional<std::string> upper_bound;  // keys visited are < this (exclusive)
  std::string prefix;                      // only keys that start with it
};

// Forward iteration in key order over one snapshot; tombstones are never returned. Records
// are copied into buffers the iterator reuses, so it allocates nothing per entry once they
// have grown; key() and value() stay valid until the next Seek/Next.
class KvIterator {
 public:
  KvIterator(KvIterator&&) noexcept;
  KvIterator& operator=(KvIterator&&) noexcept;
  ~KvIterator();

  // Positions at the first key within the bounds.
  Status SeekToFirst();
  // Positions at the first key >= `key` within the bounds.
  Status Seek(std::string_view key);
  bool Valid() const { return valid_; }
  // Moves to the next key; Valid() turns false at the end or on error (see status()).
  void Next();
  std::string_view key() const { return rec_.refname; }
  std::string_view value() const;
  const Status& status() const;

 private:
  friend class KvSnapshot;
  struct Impl;
  explicit KvIterator(std::unique_ptr<Impl> impl);
  void Settle();  // reads the next record into rec_, applying the bounds

  std::unique_ptr<Impl> impl_;
  RefRecord rec_;
  bool valid_ = false;
};

// A fixed set of tables: reads see one consistent state while writers go on (they add and
// replace files; the snapshot keeps its own mapped). A KvSnapshot object is used by one
// thread at a time (Get reuses a buffer of its own); copies are cheap (the tables are
// shared), so give each thread its copy.
class KvSnapshot {
 public:
  explicit KvSnapshot(std::shared_ptr<const Snapshot> snap);
  // Sets *found, and *value when found.
  Status Get(std::string_view key, std::string* value, bool* found) const;
  KvIterator NewIterator(const KvIteratorOptions& options = {}) const;
  // The number of write batches that produced this state (the stack's update index).
  uint64_t sequence() const;

 private:
  friend class KvStore;
  std::shared_ptr<const Snapshot> snap_;
  mutable RefRecord scratch_;  // Get's record: its name buffer is kept from call to call
};

class KvStore {
 public:
  static Result<std::unique_ptr<KvStore>> Open(const std::string& dir, const KvOptions& options);
  ~KvStore();

  Status Put(std::string_view key, std::string_view value);
  Status Delete(std::string_view key);
  // Applies the whole batch atomically as one new table (nothing if it changes nothing).
  // kInvalidArgument for an empty key, kTooLarge for an entry over kMaxEntryBytes, kLockHeld
  // if other writers kept the lock past lock_timeout_ms.
  Status Write(const KvWriteBatch& batch);

  // Reads the latest state: first picks up other processes' writes (one stat of
  // tables.list when nothing changed; see KvOptions::refresh_on_read).
  Status Get(std::string_view key, std::string* value, bool* found);
  // The latest state, as above, fixed.
  Result<KvSnapshot> GetSnapshot();
  // An iterator over GetSnapshot().
  Result<KvIterator> NewIterator(const KvIteratorOptions& options = {});

  // Picks up other processes' writes now.
  Status Refresh();

  // Merges all tables into one (tombstones dropped).
  Status CompactAll();
  // The stack underneath, for inspection (table names, compaction outcome).
  Stack* stack() { return stack_.get(); }

 private:
  KvStore(std::unique_ptr<Stack> stack, bool refresh_on_read);
  Status MaybeRefresh() { return refresh_on_read_ ? Refresh() : Status::Ok(); }
  std::unique_ptr<Stack> stack_;
  bool refresh_on_read_;
  std::optional<KvSnapshot> current_;  // Get's view of the stack's current snapshot
};

REFTAB_PUBLIC_END
}  // namespace reftab
REFTAB_PUBLIC_END

#endif  // REFTAB_STORE_KV_KV_STORE_H_
