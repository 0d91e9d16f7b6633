// Public API: atomic batches of ref updates (FORMAT.md §17).
//
// A Transaction collects updates and applies them as one new table on Commit(): it takes
// tables.list.lock, reloads the stack under the lock, re-checks every expected old value,
// writes the table to a temporary file, makes it durable per the stack's Durability,
// renames it into place and replaces tables.list by rename. Any failure leaves the stack
// exactly as it was, with no stray files. Updates that change nothing are dropped; a
// transaction that changes nothing writes no table.
//
// Names are taken literally: a transaction never follows symrefs (callers that want git's
// "update through HEAD" resolve the name first).
#ifndef REFTAB_STORE_TRANSACTION_H_
#define REFTAB_STORE_TRANSACTION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/record.h"
#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class Stack;
class Snapshot;
class LockFile;

// What a ref holds: nothing, an object id, an id with its peeled id, or a symref.
struct RefValue {
  RefValueType type = RefValueType::kDeletion;  // kDeletion: the ref does not exist
  ObjectId id{};
  ObjectId peeled{};
  std::string target;

  static RefValue Absent() { return RefValue(); }
  static RefValue Id(const ObjectId& id) {
    RefValue v;
    v.type = RefValueType::kVal1;
    v.id = id;
    return v;
  }
  static RefValue Peeled(const ObjectId& id, const ObjectId& peeled) {
    RefValue v = Id(id);
    v.type = RefValueType::kVal2;
    v.peeled = peeled;
    return v;
  }
  static RefValue Symref(std::string target) {
    RefValue v;
    v.type = RefValueType::kSymref;
    v.target = std::move(target);
    return v;
  }
  bool exists() const { return type != RefValueType::kDeletion; }
  // Equal as ref values (ids compared over `hash_size` bytes).
  bool Equals(const RefValue& o, size_t hash_size) const;
  // Whether this (current) value meets an expectation: like Equals, except that an expected
  // plain object id also matches a ref holding that id with a peeled value.
  bool Satisfies(const RefValue& expected, size_t hash_size) const;
  // The value a record holds.
  static RefValue Of(const RefRecord& r);
};

// Who made a change, when, and why: becomes a reflog entry.
struct LogInfo {
  std::string name;
  std::string email;
  uint64_t time = 0;
  int16_t tz_offset = 0;  // git's convention: +0530 -> 530
  std::string message;
};

class Transaction {
 public:
  explicit Transaction(Stack* stack);
  ~Transaction();  // releases a lock taken by Lock() and not used by Commit()
  Transaction(Transaction&&) noexcept;
  Transaction& operator=(Transaction&&) noexcept;

  // Sets `refname` to `value` (creating it if needed). With `expected_old`, the commit fails
  // with kConflict unless the ref holds exactly that (RefValue::Absent(): must not exist).
  // With `log`, a reflog entry is written.
  void Update(std::string refname, RefValue value, std::optional<RefValue> expected_old = {},
              std::optional<LogInfo> log = {});
  // Deletes `refname` and its reflog. Deleting a missing ref is a no-op unless
  // `expected_old` demands it exists.
  void Delete(std::string refname, std::optional<RefValue> expected_old = {});
  // Checks at commit time that `refname` holds `expected` (Absent: does not exist).
  void Verify(std::string refname, RefValue expected);
  // Checks at commit time that no live key starts with `prefix`; kConflict otherwise, as
  // "'<key found>' exists; cannot create '<for_key>'". A layer that keeps keys from being
  // both a name and a directory of names (git's refs) puts `for_key + "/"` here, so that the
  // rule also holds against writers that committed after it looked.
  void VerifyNoneBelow(std::string prefix, std::string for_key);
  // VerifyNoneBelow(refname + "/", refname) for the update added last (by Update, Delete or
  // Verify; none: a no-op), without a second copy of its name: a layer that creates a
  // million refs adds a million of these.
  void VerifyNoneBelowLast();
  // The caller has made every VerifyNoneBelow check (both forms) itself, on `checked`, a
  // snapshot of this transaction's stack. Commit() then skips them when the snapshot it
  // loads under the lock holds the very same tables (nothing can have appeared since), and
  // makes them as usual otherwise: when another writer committed in between, or `checked`
  // came from another Stack object. For a layer that checks names before it commits, under
  // the lock it took with Lock() (git's refs).
  void NoneBelowCheckedOn(std::shared_ptr<const Snapshot> checked) {
    none_below_checked_on_ = std::move(checked);
  }
  // Adds a raw reflog record (e.g. an existence marker or a rewritten entry). Its update
  // index is set to the transaction's unless `keep_update_index`.
  void AddLogRecord(LogRecord log, bool keep_update_index = false);

  // Decisions that depend on what the stack holds (a reflog expiry reads the entries it
  // prunes): `decide` runs inside Commit(), under tables.list.lock, on the snapshot loaded
  // under it, and adds its updates to the transaction it is given. So no writer can commit
  // between the read and the write. An error from it fails the commit, writing nothing.
  using DecideFn = std::function<Status(const Snapshot& locked, Transaction* tx)>;
  void DecideUnderLock(DecideFn decide) { decide_ = std::move(decide); }

  // The table covers `count` (at least 1) consecutive update indices from the stack's next
  // one; the updates, and the reflog records that do not keep their own index, get the
  // last. For a change that logs twice under one name, each entry at its own index: git's
  // rename gives the new name one entry for the old name's deletion (the first index) and
  // one for its creation (the second). A DecideUnderLock callback learns the first as the
  // locked snapshot's max_update_index() + 1.
  void set_update_index_span(uint64_t count) { update_index_span_ = count ? count : 1; }

  // Blind writes: updates and deletes without an expected old value or a reflog entry are
  // written as given, without reading what the ref holds now. So an update that changes
  // nothing is written all the same, and a delete writes a tombstone even for a missing ref
  // and leaves the ref's reflog alone. For stacks without reflogs whose writer knows its
  // updates are changes (the key/value store's memtable flushes, store/kv/kv_store.h),
  // where the read per update is most of a commit's cost.
  void set_blind_writes(bool blind) { blind_writes_ = blind; }

  size_t size() const { return updates_.size() + raw_logs_.size(); }
  // Room for `updates` updates and checks (Update, Delete, Verify), `logs` raw reflog
  // records and `none_below` VerifyNoneBelow checks, for a caller that knows how many it will
  // add (a large batch then grows without reallocating).
  void Reserve(size_t updates, size_t logs, size_t none_below = 0);
  // Takes tables.list.lock now, waiting as Commit() would, and holds it until Commit() (which
  // then uses it) or the transaction's end. For callers that must know before they commit
  // that no other writer can come between (git locks every stack a transaction touches
  // when it prepares it). kLockHeld as Commit(); a second call is a no-op.
  Status Lock();
  bool locked() const { return lock_ != nullptr; }

  // Applies everything atomically. kConflict names the first ref whose expected value did
  // not match (git's wording: "cannot lock ref '<name>': ..."); kLockHeld if another writer
  // kept tables.list.lock past the stack's lock timeout; kInvalidArgument for two updates of
  // one ref. The transaction may be committed once.
  Status Commit();

  // Commits transactions on different stacks as one: every stack is locked (waiting as
  // Commit() does) and every transaction checked under its lock before the first table is
  // written, so a held lock or a failed expectation anywhere leaves every stack as it was.
  // Only a failure while writing a table can leave the stacks before it changed (there is
  // no commit record across stacks). Each transaction may be committed once.
  static Status CommitTogether(const std::vector<Transaction*>& txs);
  // The update index of the committed table (0 if nothing was written).
  uint64_t committed_update_index() const { return committed_update_index_; }

 private:
  friend class Stack;
  enum class Kind : uint8_t { kUpdate, kDelete, kVerify };
  // What an update expects the ref to hold before it: nothing checked, that it does not
  // exist, or the RefValue in its Extra (an id or a symref target).
  enum class Expect : uint8_t { kNone, kAbsent, kValue };
  static constexpr uint32_t kNoExtra = UINT32_MAX;
  // A queued update in 56 bytes (`written` in what would be padding): its name in the transaction's
  // name arena, its value as a type and an id, and everything that only few updates have (a peeled
  // id, a symref target, an expected value other than "absent", a reflog entry) out of line in
  // extras_. Each of the million updates of a bulk create is a fresh page's share: as a string, a
  // RefValue and an optional expectation it took 168 bytes, and its name another allocation.
  struct Item {
    const char* name = nullptr;  // name_size bytes in a chunk of name_chunks_
    uint32_t name_size = 0;
    Kind kind = Kind::kUpdate;
    RefValueType type = RefValueType::kDeletion;  // the value written (kDeletion: a tombstone)
    bool none_below = false;                      // VerifyNoneBelowLast
    Expect expect = Expect::kNone;
    uint32_t extra = kNoExtra;  // index into extras_
    ObjectId id{};              // kVal1, kVal2
    bool written = false;       // set by the commit: the update writes a record
    std::string_view refname() const { return {name, name_size}; }
  };
  struct Extra {
    ObjectId peeled{};             // kVal2
    std::string target;            // kSymref
    RefValue expected;             // Expect::kValue
    std::unique_ptr<LogInfo> log;  // Update with a LogInfo
  };
  // Queues an item named `refname` (copied into the arena) of `kind` with `value`.
  Item& Add(Kind kind, std::string_view refname, RefValue value,
            std::optional<RefValue> expected_old);
  Extra& ExtraOf(Item& item);
  const Extra* ExtraOf(const Item& item) const {
    return item.extra == kNoExtra ? nullptr : &extras_[item.extra];
  }
  // The value an item writes, and the one it expects (Absent unless Expect::kValue).
  RefValue ValueOf(const Item& item) const;
  const RefValue& ExpectedOf(const Item& item) const;
  const LogInfo* LogOf(const Item& item) const {
    const Extra* e = ExtraOf(item);
    return e ? e->log.get() : nullptr;
  }
  std::string_view TargetOf(const Item& item) const {
    const Extra* e = ExtraOf(item);
    return e ? std::string_view(e->target) : std::string_view();
  }
  // Whether `current` is what the item writes (ids compared over `hash_size` bytes).
  bool Holds(const Item& item, const RefValue& current, size_t hash_size) const;
  // The record that writes the item at `update_index`.
  void RecordOf(const Item& item, uint64_t update_index, RefRecord* rec) const;
  // A VerifyNoneBelow check. The key is most often the prefix without its final '/' (git's
  // "nothing below a new ref"), and then is not stored a second time.
  struct NoneBelow {
    std::string prefix;
    std::string for_key;  // empty when key_is_prefix_dir
    bool key_is_prefix_dir = false;
    std::string_view key() const {
      return key_is_prefix_dir ? std::string_view(prefix).substr(0, prefix.size() - 1)
                               : std::string_view(for_key);
    }
  };

  Stack* stack_;
  std::vector<Item> updates_;
  std::vector<Extra> extras_;
  // The items' names, packed one after another in chunks that never move (an item points
  // into them), so that a name costs its bytes and no allocation of its own.
  std::vector<std::unique_ptr<char[]>> name_chunks_;
  char* name_free_ = nullptr;
  size_t name_left_ = 0;
  // Raw reflog records as the table takes them, so that a commit of raw records alone hands
  // the vector over instead of copying it; kept_update_index_ lists (ascending) those added
  // with keep_update_index.
  std::vector<LogRecord> raw_logs_;
  std::vector<size_t> kept_update_index_;
  std::vector<NoneBelow> empty_prefixes_;
  std::shared_ptr<const Snapshot> none_below_checked_on_;
  DecideFn decide_;
  bool blind_writes_ = false;
  uint64_t update_index_span_ = 1;
  std::unique_ptr<LockFile> lock_;  // from Lock(), until Commit() takes it
  bool committed_ = false;
  uint64_t committed_update_index_ = 0;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_TRANSACTION_H_
