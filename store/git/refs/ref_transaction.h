// Public API: a ref transaction with git's rules (what `git update-ref --stdin` does between
// `start` and `commit`), on a GitRefStore:
//  - every name is checked when it is queued: a name that gets a value must be well formed
//    (one level allowed), one that is deleted or verified must be safe, and pseudorefs
//    (FETCH_HEAD, MERGE_HEAD) are refused;
//  - a ref may be named once per transaction, also when two names reach it through a symref;
//  - an update through a symref changes the ref at the end of the chain and logs the symref
//    too; kNoDeref changes the symref itself; HEAD gets a reflog entry whenever the branch it
//    points to changes, whatever name the change went through;
//  - a ref may not be created where another ref is a directory of it, or the other way round,
//    in the stack or in the same transaction;
//  - expected old values are checked with git's messages ("cannot lock ref ...");
//  - in a repository, a new object id must name an object, a commit for HEAD and branches,
//    and an annotated tag is stored with its peeled id (store/git/objects/objects.h);
//  - with set_batch_updates (git's `update-ref --batch-updates`), an update that fails for a
//    reason of its own is rejected alone and the others are written.
// Errors are Status values whose message is git's, without "fatal: ".
#ifndef REFTAB_STORE_GIT_REFS_REF_TRANSACTION_H_
#define REFTAB_STORE_GIT_REFS_REF_TRANSACTION_H_

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/refs/stable_vector.h"
#include "store/transaction.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitRefStore;
class NameOrder;        // store/git/refs/name_order.h
struct GitRefLocation;  // store/git/repo.h
class Progress;         // store/progress.h

// Options of one queued update, combined with '|'.
enum GitRefUpdateFlags : unsigned {
  kGitRefDefault = 0,
  // Operate on the named ref even if it is a symref (--no-deref, `option no-deref`).
  kGitRefNoDeref = 1u << 0,
  // Write a reflog entry even if core.logAllRefUpdates would not (--create-reflog).
  kGitRefForceCreateReflog = 1u << 1,
};

// Why one update of a batch was rejected: git's per-update transaction errors.
enum class GitRefRejectReason : unsigned char {
  kNameConflict,       // a directory/file clash, or a second update through a symref or HEAD
  kCreateExists,       // expected not to exist, but does
  kNonexistentRef,     // expected to exist (with a value), but does not
  kIncorrectOldValue,  // exists with another value than the expected one
  kInvalidNewValue,    // the new object is missing, or not a commit for a branch
  kExpectedSymref,     // an old symref target was given, but the ref is a regular one
};

// git's words for a reason, as `update-ref --batch-updates` prints them ("refname conflict").
const char* GitRefRejectReasonText(GitRefRejectReason reason);

// One rejected update of a batch, with the values as they were queued.
struct GitRefRejection {
  std::string refname;  // the ref the update was for (the referent, when split off a symref)
  std::optional<RefValue> new_value;  // nullopt: a verify
  std::optional<RefValue> old_value;  // nullopt: not checked; Absent: must not exist
  GitRefRejectReason reason = GitRefRejectReason::kNameConflict;
  std::string message;  // git's error message for it ("cannot lock ref ...")
};

class GitRefTransaction {
 public:
  explicit GitRefTransaction(GitRefStore* store);
  ~GitRefTransaction();
  GitRefTransaction(GitRefTransaction&&) noexcept;
  GitRefTransaction& operator=(GitRefTransaction&&) noexcept;

  // Sets `refname` to `new_value` (an object id or RefValue::Symref(target); Absent deletes).
  // `old_value`: the value it must have now — an id, a symref target, or Absent (must not
  // exist). `message` is cleaned as git cleans reflog messages.
  // The name is taken by value: a caller done with its string moves it in (a million
  // queued updates then copy no name).
  Status Update(std::string refname, const RefValue& new_value,
                const std::optional<RefValue>& old_value, unsigned flags,
                std::string_view message = {});
  // Update with old_value Absent.
  Status Create(std::string refname, const RefValue& new_value, unsigned flags,
                std::string_view message = {});
  // Deletes `refname` (and its reflog), checking `old_value` when given.
  Status Delete(std::string refname, const std::optional<RefValue>& old_value, unsigned flags,
                std::string_view message = {});
  // Checks at commit time that `refname` holds `old_value` (Absent: does not exist).
  Status Verify(std::string refname, const RefValue& old_value, unsigned flags);

  bool empty() const { return updates_.empty(); }
  // git's --batch-updates. An update that fails for a reason of its own (GitRefRejectReason)
  // is left out and listed by rejected(), and the others are committed together; failures
  // of the whole (a bad name, two updates of one ref, I/O) still fail everything. Set before
  // the first update.
  void set_batch_updates(bool on) { batch_updates_ = on; }
  // The updates rejected so far, in the order they were: those refused when queued (a bad
  // new object), then those refused while preparing.
  const std::vector<GitRefRejection>& rejected() const { return rejected_; }
  // Told of the phases "Checking references" (Prepare) and "Updating references" (Commit),
  // each counting the queued updates; may be null (the default).
  void set_progress(Progress* progress) { progress_ = progress; }
  // Takes the lock of every stack the transaction touches, then checks everything against
  // the stacks (names around new refs, expected values, symrefs) without writing, as git's
  // `prepare`. The locks are held until Commit() or the transaction's end, so a prepared
  // transaction cannot be blocked by another writer; a lock another writer keeps past the
  // lock timeout fails with kLockHeld "cannot lock references" (git's words). Optional:
  // Commit() prepares first if needed; it checks expected old values and parent directories
  // of new names again on the stacks it reloads under the locks.
  Status Prepare();
  // Writes one table per stack that changes. May be called once; after a failed Prepare()
  // the transaction is closed.
  Status Commit();

 private:
  // An optional RefValue in 16 bytes where std::optional<RefValue> takes 112: an update
  // expects nothing or, when it creates, only that the ref is absent, neither of which needs
  // a RefValue of its own (each byte of a queued update counts a million times over).
  class OptionalValue {
   public:
    OptionalValue() = default;
    OptionalValue(const std::optional<RefValue>& v) { *this = v; }  // NOLINT: as the optional
    OptionalValue(const OptionalValue& o) { *this = o; }
    OptionalValue(OptionalValue&&) noexcept = default;
    OptionalValue& operator=(const OptionalValue& o);
    OptionalValue& operator=(OptionalValue&&) noexcept = default;
    OptionalValue& operator=(const std::optional<RefValue>& v);
    OptionalValue& operator=(const RefValue& v);
    explicit operator bool() const { return state_ != State::kNone; }
    const RefValue& operator*() const;
    const RefValue* operator->() const { return &**this; }
    operator std::optional<RefValue>() const;  // NOLINT: where an optional is wanted

   private:
    enum class State : unsigned char { kNone, kAbsent, kValue };
    State state_ = State::kNone;
    std::unique_ptr<RefValue> value_;  // kValue: an id or a symref target
  };
  // One queued update, kept small (a million of them are queued at once): the new value is
  // its type and id, with what few values have (a peeled id, a symref target) in side
  // tables, and the message an index into the transaction's messages (all of a --stdin
  // list share one).
  struct Item {
    std::string refname;
    ObjectId new_id{};        // the new value's id (kVal1, kVal2)
    OptionalValue old_value;  // empty: not checked
    // Where the name lives (GitRefStore::Locate), worked out once, by Where(): its stack
    // (null until then) and where the name within that stack starts (a suffix of refname).
    Stack* stack = nullptr;
    uint32_t key_from = 0;
    uint32_t new_extra = 0;  // kVal2: index in peeled_; kSymref: index in targets_
    uint32_t message = 0;    // index in messages_
    // Filled while preparing: the stored record's id (through symrefs) and symref target,
    // as an index in currents_; kNoCurrent: a zero id and no target.
    uint32_t current = kNoCurrent;
    int32_t parent = -1;  // the update this one was split from, for messages
    unsigned flags = 0;
    RefValueType new_type = RefValueType::kDeletion;
    bool has_new = false;  // false: verify only
    // The stored record's type (one level), filled while preparing.
    RefValueType current_type = RefValueType::kDeletion;
    bool log_only = false;  // a symref passed through, or HEAD over its branch: reflog only
    bool via_head = false;  // reached through HEAD, so HEAD's reflog is already taken care of
    bool exists = false;
    bool queued = false;
    bool rejected = false;     // left out of a batch (rejected_ says why)
    bool check_names = false;  // a name that appears: CheckAvailable checks the names around it
    bool may_log = false;      // GitRefStore::MayWriteLog, or a forced reflog (set by Write)
    bool new_name = false;     // a name it creates, found free: checked again under the lock
    bool read = false;         // exists, current_type and current are filled (ReadInOrder)
  };
  static constexpr uint32_t kNoCurrent = ~uint32_t{0};
  struct Current {
    ObjectId id{};
    std::string target;
  };
  // An item's new value as a RefValue (nullopt: a verify), and the other way round.
  std::optional<RefValue> NewValue(const Item& item) const;
  void SetNewValue(Item* item, const std::optional<RefValue>& value);
  const ObjectId& CurrentId(const Item& item) const;
  const std::string& CurrentTarget(const Item& item) const;
  uint32_t MessageIndex(std::string_view message);
  // Whether an update's new value deletes (Absent, or the zero id).
  static bool NewIsNull(const Item& item, size_t hash_size);
  // Why a failure of one update may reject it alone; nullopt: it fails the transaction.
  using Why = std::optional<GitRefRejectReason>;
  bool Reject(size_t i, const Status& failure, const Why& why);
  Status Queue(Item&& item, std::string_view message);
  Result<GitRefLocation> Where(Item& item);
  // `peeled`: set to what an annotated tag peels to (left alone for other objects).
  Status CheckObject(const std::string& refname, const ObjectId& id,
                     std::optional<ObjectId>* peeled, Why* why);
  const std::string& OriginalName(const Item& item) const;
  Status RejectDuplicates() const;
  Status LockStacks();
  Status PrepareItem(size_t i, std::vector<size_t>* to_check, Why* why);
  Status ReadInOrder();
  // Fills the stored-record fields of `u` from `current` (found or not).
  void SetCurrent(Item* u, bool exists, RefRecord* current);
  Status AddHeadLogIfItsBranch(size_t i, Why* why);
  Status SplitAtSymref(size_t i, Why* why);
  Status CheckOldValue(const Item& item, Why* why) const;
  Status CheckAvailable(const std::vector<size_t>& to_check);
  Status CheckNamesAvailable(const std::vector<size_t>& names, const std::vector<size_t>* positions,
                             bool stop_at_first);
  // What CheckAvailable learnt about the existing refs below a directory, for the names
  // after it: `empty_dir` holds none, `full_dir` holds some. `below` is the checked name
  // and a '/', in one buffer for all names. `next` is the update checked after this one
  // (npos: none).
  struct DirsBelow {
    std::string empty_dir, full_dir, below;
    size_t next = std::string::npos;
  };
  Status CheckNameAvailable(size_t i, size_t checked, std::set<std::string, std::less<>>* dirs_seen,
                            DirsBelow* below, const size_t* position, Why* why);
  // Whether an update not rejected changes `name`.
  bool Named(std::string_view name) const;
  // The least name from `from` on of an update not rejected (empty: none); `position`, when
  // known, is where the update being checked stands in by_name_, just before `from`.
  std::string_view FirstNamedFrom(std::string_view from, const size_t* position) const;
  // Every update with a name, in name order: by_name_ and late_names_ merged.
  std::vector<size_t> AllByName() const;
  Status Write();

  GitRefStore* store_;
  struct ObjectCache;
  std::unique_ptr<ObjectCache> object_cache_;  // made by the first CheckObject
  // Elements that stay where they are: a million queued updates grow without a vector's
  // copy at every doubling, and views of their names stay valid.
  StableVector<Item> updates_;
  std::map<Stack*, Transaction> txs_;  // one per stack touched, locked by Prepare()
  // Every name that will change, for conflict checks: while queueing, gathered in
  // names_queued_ (views of the names in updates_, which stay where they are);
  // from Prepare on, the updates in name order in by_name_ (four bytes a name), and the names
  // of updates split off symrefs while preparing in late_names_.
  std::unique_ptr<NameOrder> names_queued_;
  std::vector<uint32_t> by_name_;
  std::multimap<std::string_view, size_t> late_names_;
  // The side tables of Item.
  std::vector<ObjectId> peeled_;
  std::vector<std::string> targets_;
  std::vector<std::string> messages_;
  std::string last_raw_message_;  // what messages_.back() was cleaned from
  std::vector<Current> currents_;
  std::string head_target_;             // HEAD's referent when HEAD is a symref
  size_t new_names_ = 0;                // updates whose names it creates (Item::new_name)
  std::vector<std::string> free_dirs_;  // parents of new names, found not to be refs
  enum class State { kOpen, kPrepared, kClosed };
  State state_ = State::kOpen;
  Progress* progress_ = nullptr;
  bool batch_updates_ = false;
  std::vector<GitRefRejection> rejected_;
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_TRANSACTION_H_
