#include "store/git/refs/ref_transaction.h"

#include <algorithm>
#include <array>
#include <map>

#include "store/git/identity.h"
#include "store/git/refs/name_order.h"
#include "store/git/refs/ref_store.h"
#include "store/git/refs/refname.h"
#include "store/log_entry.h"
#include "store/merged_iterator.h"
#include "store/progress.h"
#include "store/stack.h"

namespace reftab {
namespace {

bool IsId(const RefValue& v) {
  return v.type == RefValueType::kVal1 || v.type == RefValueType::kVal2;
}

// The object id a value names for comparisons (git's new_oid / old_oid): zero for Absent and
// for a symref target.
ObjectId IdOf(const RefValue& v) { return IsId(v) ? v.id : ObjectId{}; }

Status LockError(const std::string& name, const std::string& why) {
  return Status::Conflict("cannot lock ref '" + name + "': " + why);
}

}  // namespace

// git's "null new value": deleting, as opposed to pointing somewhere.
bool GitRefTransaction::NewIsNull(const Item& u, size_t hs) {
  return u.new_type == RefValueType::kDeletion ||
         ((u.new_type == RefValueType::kVal1 || u.new_type == RefValueType::kVal2) &&
          IsZeroId(u.new_id, hs));
}

namespace {

bool IsBranch(std::string_view name) {
  return name == "HEAD" || name.substr(0, 11) == "refs/heads/";
}

}  // namespace

const char* GitRefRejectReasonText(GitRefRejectReason reason) {
  switch (reason) {
    case GitRefRejectReason::kNameConflict: return "refname conflict";
    case GitRefRejectReason::kCreateExists: return "reference already exists";
    case GitRefRejectReason::kNonexistentRef: return "reference does not exist";
    case GitRefRejectReason::kIncorrectOldValue: return "incorrect old value provided";
    case GitRefRejectReason::kInvalidNewValue: return "invalid new value provided";
    case GitRefRejectReason::kExpectedSymref: return "expected symref but found regular ref";
  }
  return "unknown failure";
}

// The objects CheckObject found, by id, in a table indexed by the id's first bytes (ids are
// uniformly spread): refs of a bulk create often share their objects (branches and tags of
// one history: a million refs, a thousand commits), and each is then read once, not once
// per ref. A missing object is not remembered.
struct GitRefTransaction::ObjectCache {
  struct Entry {
    ObjectId id{};
    ObjectId peeled{};
    GitObjectType type = GitObjectType::kNone;  // kNone: an empty slot
    bool peeled_ok = false;
  };
  static constexpr size_t kSlots = 4096;
  std::array<Entry, kSlots> slots;
  Entry& For(const ObjectId& id) { return slots[(id[0] | size_t(id[1]) << 8) % kSlots]; }
};

GitRefTransaction::OptionalValue& GitRefTransaction::OptionalValue::operator=(
    const OptionalValue& o) {
  if (this != &o) *this = std::optional<RefValue>(o);
  return *this;
}

GitRefTransaction::OptionalValue& GitRefTransaction::OptionalValue::operator=(
    const std::optional<RefValue>& v) {
  if (v) return *this = *v;
  state_ = State::kNone;
  value_.reset();
  return *this;
}

GitRefTransaction::OptionalValue& GitRefTransaction::OptionalValue::operator=(const RefValue& v) {
  if (v.exists()) {
    value_ = std::make_unique<RefValue>(v);
    state_ = State::kValue;
  } else {
    value_.reset();
    state_ = State::kAbsent;
  }
  return *this;
}

const RefValue& GitRefTransaction::OptionalValue::operator*() const {
  static const RefValue kAbsent = RefValue::Absent();
  return value_ ? *value_ : kAbsent;
}

GitRefTransaction::OptionalValue::operator std::optional<RefValue>() const {
  if (state_ == State::kNone) return std::nullopt;
  return **this;
}

GitRefTransaction::GitRefTransaction(GitRefStore* store) : store_(store) {}
GitRefTransaction::~GitRefTransaction() = default;
GitRefTransaction::GitRefTransaction(GitRefTransaction&&) noexcept = default;
GitRefTransaction& GitRefTransaction::operator=(GitRefTransaction&&) noexcept = default;

std::optional<RefValue> GitRefTransaction::NewValue(const Item& item) const {
  if (!item.has_new) return std::nullopt;
  switch (item.new_type) {
    case RefValueType::kVal1: return RefValue::Id(item.new_id);
    case RefValueType::kVal2: return RefValue::Peeled(item.new_id, peeled_[item.new_extra]);
    case RefValueType::kSymref: return RefValue::Symref(targets_[item.new_extra]);
    case RefValueType::kDeletion: break;
  }
  return RefValue::Absent();
}

void GitRefTransaction::SetNewValue(Item* item, const std::optional<RefValue>& value) {
  item->has_new = value.has_value();
  item->new_type = value ? value->type : RefValueType::kDeletion;
  item->new_id = value && IsId(*value) ? value->id : ObjectId{};
  item->new_extra = 0;
  if (!value) return;
  if (value->type == RefValueType::kVal2) {
    item->new_extra = uint32_t(peeled_.size());
    peeled_.push_back(value->peeled);
  } else if (value->type == RefValueType::kSymref) {
    item->new_extra = uint32_t(targets_.size());
    targets_.push_back(value->target);
  }
}

const ObjectId& GitRefTransaction::CurrentId(const Item& item) const {
  static const ObjectId kZero{};
  return item.current == kNoCurrent ? kZero : currents_[item.current].id;
}

const std::string& GitRefTransaction::CurrentTarget(const Item& item) const {
  static const std::string kNone;
  return item.current == kNoCurrent ? kNone : currents_[item.current].target;
}

// The index of `message` cleaned as git cleans reflog messages; the updates of a --stdin
// list share one message, cleaned and kept once.
uint32_t GitRefTransaction::MessageIndex(std::string_view message) {
  if (messages_.empty() || message != last_raw_message_) {
    messages_.push_back(CleanReflogMessage(message, store_->max_log_message()));
    last_raw_message_.assign(message);
  }
  return uint32_t(messages_.size() - 1);
}

// git looks the new object up: it must exist, a branch (or HEAD) must point at a commit, and
// an annotated tag is stored with what it peels to.
Status GitRefTransaction::CheckObject(const std::string& refname, const ObjectId& id,
                                      std::optional<ObjectId>* peeled_out, Why* why) {
  GitObjects* objects = store_->objects();
  if (!objects) return Status::Ok();
  const size_t hs = store_->hash_size();
  if (!object_cache_) object_cache_ = std::make_unique<ObjectCache>();
  ObjectCache::Entry& known = object_cache_->For(id);
  const bool hit = known.type != GitObjectType::kNone && known.id == id;
  GitObjectType type = hit ? known.type : GitObjectType::kNone;
  if (!hit) REFTAB_RETURN_IF_ERROR(objects->TypeOf(id, &type));
  if (type == GitObjectType::kNone) {
    *why = GitRefRejectReason::kInvalidNewValue;
    return Status::InvalidArgument("trying to write ref '" + refname +
                                   "' with nonexistent object " + HexId(id, hs));
  }
  if (type != GitObjectType::kCommit && IsBranch(refname)) {
    *why = GitRefRejectReason::kInvalidNewValue;
    return Status::InvalidArgument("trying to write non-commit object " + HexId(id, hs) +
                                   " to branch '" + refname + "'");
  }
  ObjectId peeled{};
  bool ok = false;
  if (hit) {
    peeled = known.peeled;
    ok = known.peeled_ok;
  } else {
    if (type == GitObjectType::kTag) REFTAB_RETURN_IF_ERROR(objects->Peel(id, &peeled, &ok));
    known = {id, peeled, type, ok};
  }
  if (ok) *peeled_out = peeled;
  return Status::Ok();
}

Status GitRefTransaction::Queue(Item&& item, std::string_view message) {
  const size_t hs = store_->hash_size();
  // Only an update that stores an object id needs a well-formed name; deletes, verifies and
  // symref updates need a safe one (git checks new symref names while parsing).
  const bool new_is_id = item.has_new && (item.new_type == RefValueType::kVal1 ||
                                          item.new_type == RefValueType::kVal2);
  const bool gives_id = new_is_id && !IsZeroId(item.new_id, hs);
  if (auto refusal = RefnameRefusal(item.refname, gives_id)) {
    return Status::InvalidArgument(*refusal);
  }
  if (new_is_id && !gives_id) SetNewValue(&item, RefValue::Absent());
  if (gives_id) {
    Why why;
    std::optional<ObjectId> peeled;
    Status checked = CheckObject(item.refname, item.new_id, &peeled, &why);
    // git refuses a bad new object before the update joins the transaction: in a batch it
    // is reported at once and the transaction goes on without it.
    if (!checked.ok() && batch_updates_ && why) {
      rejected_.push_back({item.refname, NewValue(item), item.old_value, *why, checked.message()});
      return Status::Ok();
    }
    REFTAB_RETURN_IF_ERROR(checked);
    if (peeled) SetNewValue(&item, RefValue::Peeled(item.new_id, *peeled));
  }
  if (item.old_value && IsId(*item.old_value) && IsZeroId(item.old_value->id, hs)) {
    item.old_value = RefValue::Absent();  // the zero id: "must not exist"
  }
  item.message = MessageIndex(message);
  updates_.push_back(std::move(item));
  if (!names_queued_) names_queued_ = std::make_unique<NameOrder>();
  names_queued_->Add(updates_.back().refname, uint32_t(updates_.size() - 1));
  return Status::Ok();
}

// Locate's answer for a queued update, kept on it: each update is located when its stack is
// locked, read, checked and written, and a worktree name is parsed each time.
Result<GitRefLocation> GitRefTransaction::Where(Item& item) {
  if (item.stack) {
    return GitRefLocation{item.stack, std::string_view(item.refname).substr(item.key_from)};
  }
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, store_->Locate(item.refname));
  if (at.stack) {
    item.stack = at.stack;
    item.key_from = uint32_t(item.refname.size() - at.key.size());
  }
  return at;
}

Status GitRefTransaction::Update(std::string refname, const RefValue& new_value,
                                 const std::optional<RefValue>& old_value, unsigned flags,
                                 std::string_view message) {
  Item item;
  item.refname = std::move(refname);
  SetNewValue(&item, new_value);
  item.old_value = old_value;
  item.flags = flags;
  return Queue(std::move(item), message);
}

Status GitRefTransaction::Create(std::string refname, const RefValue& new_value, unsigned flags,
                                 std::string_view message) {
  return Update(std::move(refname), new_value, RefValue::Absent(), flags, message);
}

Status GitRefTransaction::Delete(std::string refname, const std::optional<RefValue>& old_value,
                                 unsigned flags, std::string_view message) {
  return Update(std::move(refname), RefValue::Absent(), old_value, flags, message);
}

Status GitRefTransaction::Verify(std::string refname, const RefValue& old_value, unsigned flags) {
  Item item;
  item.refname = std::move(refname);
  item.old_value = old_value;
  item.flags = flags;
  return Queue(std::move(item), {});
}

// The name the user gave for an update that was split off a symref.
const std::string& GitRefTransaction::OriginalName(const Item& item) const {
  const Item* u = &item;
  while (u->parent >= 0) u = &updates_[size_t(u->parent)];
  return u->refname;
}

Status GitRefTransaction::RejectDuplicates() const {
  for (size_t k = 1; k < by_name_.size(); ++k) {
    const std::string& name = updates_[by_name_[k]].refname;
    if (name == updates_[by_name_[k - 1]].refname) {
      return Status::InvalidArgument("multiple updates for ref '" + name + "' not allowed");
    }
  }
  return Status::Ok();
}

bool GitRefTransaction::Named(std::string_view name) const {
  auto at =
      std::lower_bound(by_name_.begin(), by_name_.end(), name,
                       [&](uint32_t i, std::string_view n) { return updates_[i].refname < n; });
  for (; at != by_name_.end() && updates_[*at].refname == name; ++at) {
    if (!updates_[*at].rejected) return true;
  }
  for (auto [it, end] = late_names_.equal_range(name); it != end; ++it) {
    if (!updates_[it->second].rejected) return true;
  }
  return false;
}

std::string_view GitRefTransaction::FirstNamedFrom(std::string_view from,
                                                   const size_t* position) const {
  auto name_at = [&](size_t k) -> std::string_view { return updates_[by_name_[k]].refname; };
  // With the position known, most often the next name (only names that extend the checked
  // one by a byte below '/' lie between); past a few steps, the search after all.
  size_t k = by_name_.size();
  bool found = false;
  if (position) {
    k = *position + 1;
    for (int steps = 0; steps < 8 && !found; ++steps, ++k) {
      found = k == by_name_.size() || name_at(k) >= from;
      if (found) break;
    }
  }
  if (!found) {
    k = size_t(
        std::lower_bound(by_name_.begin(), by_name_.end(), from,
                         [&](uint32_t i, std::string_view n) { return updates_[i].refname < n; }) -
        by_name_.begin());
  }
  while (k < by_name_.size() && updates_[by_name_[k]].rejected) ++k;
  std::string_view first = k < by_name_.size() ? name_at(k) : std::string_view();
  for (auto it = late_names_.lower_bound(from); it != late_names_.end(); ++it) {
    if (updates_[it->second].rejected) continue;
    if (first.empty() || it->first < first) first = it->first;
    break;
  }
  return first;
}

std::vector<size_t> GitRefTransaction::AllByName() const {
  std::vector<size_t> all;
  all.reserve(updates_.size());  // room for Write's updates without a name
  all.assign(by_name_.begin(), by_name_.end());
  if (late_names_.empty()) return all;
  std::vector<size_t> late;
  for (const auto& [name, i] : late_names_) late.push_back(i);
  std::vector<size_t> merged(all.size() + late.size());
  merged.reserve(updates_.size());
  std::merge(all.begin(), all.end(), late.begin(), late.end(), merged.begin(),
             [&](size_t x, size_t y) { return updates_[x].refname < updates_[y].refname; });
  return merged;
}

// When the branch HEAD points to changes, HEAD's reflog records it too.
Status GitRefTransaction::AddHeadLogIfItsBranch(size_t i, Why* why) {
  if (Named("HEAD")) {
    *why = GitRefRejectReason::kNameConflict;
    return Status::Conflict("multiple updates for 'HEAD' (including one via its referent '" +
                            updates_[i].refname + "') are not allowed");
  }
  Item head;
  head.refname = "HEAD";
  const std::optional<RefValue> new_value = NewValue(updates_[i]);
  // HEAD's entry carries the object ids of the branch update; a new symref target is none.
  if (new_value) SetNewValue(&head, IsId(*new_value) ? *new_value : RefValue::Absent());
  if (updates_[i].old_value && !updates_[i].old_value->target.size()) {
    head.old_value = updates_[i].old_value;
  }
  head.flags = updates_[i].flags | kGitRefNoDeref;
  head.message = updates_[i].message;
  head.log_only = true;
  updates_.push_back(std::move(head));
  return Status::Ok();
}

// An update through a symref becomes an update of its referent (checked and split again in
// turn) plus a reflog-only entry for the symref.
Status GitRefTransaction::SplitAtSymref(size_t i, Why* why) {
  const std::string referent = CurrentTarget(updates_[i]);
  if (Named(referent)) {
    *why = GitRefRejectReason::kNameConflict;
    return Status::Conflict("multiple updates for '" + referent + "' (including one via symref '" +
                            updates_[i].refname + "') are not allowed");
  }
  Item next;
  next.refname = referent;
  next.has_new = updates_[i].has_new;
  next.new_type = updates_[i].new_type;
  next.new_id = updates_[i].new_id;
  next.new_extra = updates_[i].new_extra;  // the side tables' entries are shared
  next.old_value = updates_[i].old_value;
  next.flags = updates_[i].flags;
  next.message = updates_[i].message;
  next.via_head = updates_[i].via_head || WorktreeRefKey(updates_[i].refname) == "HEAD";
  next.parent = int(i);
  updates_[i].log_only = true;
  updates_[i].flags |= kGitRefNoDeref;
  updates_.push_back(std::move(next));
  late_names_.emplace(updates_.back().refname, updates_.size() - 1);
  return Status::Ok();
}

Status GitRefTransaction::CheckOldValue(const Item& u, Why* why) const {
  const size_t hs = store_->hash_size();
  const bool is_symref = u.exists && u.current_type == RefValueType::kSymref;
  if (u.old_value && u.old_value->type == RefValueType::kSymref) {
    const std::string& want = u.old_value->target;
    if (!is_symref) {
      *why = GitRefRejectReason::kExpectedSymref;
      return Status::Conflict("cannot lock ref '" + OriginalName(u) +
                              "': expected symref with target '" + want +
                              "': but is a regular ref");
    }
    if (CurrentTarget(u) == want) return Status::Ok();
    *why = GitRefRejectReason::kIncorrectOldValue;
    return Status::Conflict("verifying symref target: '" + OriginalName(u) + "': is at " +
                            CurrentTarget(u) + " but expected " + want);
  }
  if (!u.old_value || u.log_only) return Status::Ok();
  const ObjectId want = IdOf(*u.old_value);
  const bool want_absent = IsZeroId(want, hs);
  const ObjectId& current_id = CurrentId(u);
  if (std::equal(want.begin(), want.begin() + long(hs), current_id.begin())) {
    // A dangling symref reads as zero; creating over it with --no-deref would clobber it.
    if ((u.flags & kGitRefNoDeref) && is_symref && want_absent) {
      *why = GitRefRejectReason::kCreateExists;
      return LockError(OriginalName(u), "dangling symref already exists");
    }
    return Status::Ok();
  }
  if (want_absent) {
    *why = GitRefRejectReason::kCreateExists;
    return LockError(OriginalName(u), "reference already exists");
  }
  if (IsZeroId(current_id, hs)) {
    *why = GitRefRejectReason::kNonexistentRef;
    return LockError(OriginalName(u), "reference is missing but expected " + HexId(want, hs));
  }
  *why = GitRefRejectReason::kIncorrectOldValue;
  return LockError(OriginalName(u),
                   "is at " + HexId(current_id, hs) + " but expected " + HexId(want, hs));
}

void GitRefTransaction::SetCurrent(Item* u, bool exists, RefRecord* current) {
  u->read = true;
  u->exists = exists;
  u->current_type = exists ? current->value_type : RefValueType::kDeletion;
  u->current = kNoCurrent;
  if (exists) {
    u->current = uint32_t(currents_.size());
    currents_.push_back({current->value, std::move(current->target)});
  }
}

// What the stack holds under the queued names, read for PrepareItem in name order with one
// iterator over the stack of the first name, instead of a lookup per name: a name below the
// next stored one is absent without any look (a bulk create into a stack that holds nothing
// in its range reads nothing), and a name just past it is most often the stored name after.
// Names of other stacks, and those stored under another key (worktree names), are left to
// PrepareItem's lookup.
Status GitRefTransaction::ReadInOrder() {
  if (by_name_.empty()) return Status::Ok();
  Stack* const stack = updates_[by_name_[0]].stack;
  if (!stack) return Status::Ok();
  const std::shared_ptr<const Snapshot> snapshot = stack->snapshot();
  MergedRefIterator it = snapshot->NewRefIterator();
  it.set_suppress_deletions(true);
  RefRecord next;  // the first stored ref from the last name looked at on; valid if `have`
  bool have = false, positioned = false;
  for (uint32_t i : by_name_) {
    Item& u = updates_[i];
    if (u.stack != stack || u.key_from != 0) continue;
    const std::string& name = u.refname;
    if (!positioned || (have && next.refname < name)) {
      for (int steps = 0; positioned && have && steps < 2 && next.refname < name; ++steps) {
        have = it.Next(&next);
      }
      if (!positioned || (have && next.refname < name)) {
        REFTAB_RETURN_IF_ERROR(it.Seek(name));
        have = it.Next(&next);
        positioned = true;
      }
      if (!have) REFTAB_RETURN_IF_ERROR(it.status());
    }
    // SetCurrent takes the target out of `next`, and only when it exists: its name stays.
    SetCurrent(&u, have && next.refname == name, &next);
  }
  return Status::Ok();
}

Status GitRefTransaction::PrepareItem(size_t i, std::vector<size_t>* to_check, Why* why) {
  const size_t hs = store_->hash_size();
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Where(updates_[i]));
  // As git, by the name within its stack: worktrees/<id>/HEAD counts as a HEAD here.
  if (!updates_[i].log_only && !updates_[i].via_head && !head_target_.empty() &&
      at.key == head_target_) {
    REFTAB_RETURN_IF_ERROR(AddHeadLogIfItsBranch(i, why));
  }
  Item& u = updates_[i];  // a StableVector: AddHeadLogIfItsBranch's push_back moved nothing
  if (!u.read) {
    RefRecord current;
    bool exists = false;
    if (at.stack) REFTAB_RETURN_IF_ERROR(at.stack->snapshot()->ReadRef(at.key, &current, &exists));
    SetCurrent(&u, exists, &current);
  }
  const bool expects_existing =
      !u.log_only && u.old_value &&
      (u.old_value->type == RefValueType::kSymref || !IsZeroId(IdOf(*u.old_value), hs));
  if (!u.exists) {
    if (expects_existing) {
      *why = GitRefRejectReason::kNonexistentRef;
      return LockError(OriginalName(u), "unable to resolve reference '" + u.refname + "'");
    }
    // Nothing to check but the names around it; a delete of nothing writes nothing.
    to_check->push_back(i);
    u.check_names = true;
    u.queued = u.has_new && !NewIsNull(u, hs);
    return Status::Ok();
  }
  const bool is_symref = u.current_type == RefValueType::kSymref;
  if (is_symref) {
    ResolvedRef resolved;
    REFTAB_RETURN_IF_ERROR(store_->Resolve(u.refname, &resolved));
    currents_[u.current].id = resolved.broken ? ObjectId{} : resolved.id;
    if (u.flags & kGitRefNoDeref) {
      if (u.old_value && resolved.broken) return LockError(u.refname, "error reading reference");
    } else {
      REFTAB_RETURN_IF_ERROR(SplitAtSymref(i, why));
    }
  }
  const Item& checked = updates_[i];  // SplitAtSymref may have moved the vector
  REFTAB_RETURN_IF_ERROR(CheckOldValue(checked, why));
  const ObjectId& current_id = CurrentId(checked);
  const bool changes =
      checked.has_new &&
      (!std::equal(current_id.begin(), current_id.begin() + long(hs), checked.new_id.begin()) ||
       checked.new_type == RefValueType::kSymref);
  updates_[i].queued = is_symref || checked.log_only || changes;
  return Status::Ok();
}

// In a batch, leaves update i out for a failure of its own and records why; false when the
// failure is the whole transaction's. As git, what was queued for it before the failure (the
// reflog entry of HEAD over its branch, of a symref over its referent) stays queued.
bool GitRefTransaction::Reject(size_t i, const Status& failure, const Why& why) {
  if (!batch_updates_ || !why) return false;
  Item& u = updates_[i];
  u.rejected = true;
  u.queued = false;
  // A rejected name no longer counts for the conflict checks of the others (Named and
  // FirstNamedFrom pass over it).
  rejected_.push_back({u.refname, NewValue(u), u.old_value, *why, failure.message()});
  return true;
}

// git's rule that no ref is a directory of another: for each name that is about to appear,
// none of its parents may exist or be in the transaction, and nothing may exist below it.
// The names are checked in name order first, where neighbours share their parents and
// directories (and the stack's own check under its lock then seeks once per directory);
// only if one fails are they checked again in the transaction's order, which decides which
// failure git reports (and in a batch, the order of the rejections).
Status GitRefTransaction::CheckAvailable(const std::vector<size_t>& to_check) {
  std::vector<size_t> by_name;
  std::vector<size_t> positions;  // of by_name's updates in by_name_, when it is all there is
  by_name.reserve(to_check.size());
  if (late_names_.empty()) {
    positions.reserve(to_check.size());
    for (size_t k = 0; k < by_name_.size(); ++k) {
      const Item& u = updates_[by_name_[k]];
      if (!u.check_names || u.rejected) continue;
      by_name.push_back(by_name_[k]);
      positions.push_back(k);
    }
  } else {
    for (size_t i : AllByName()) {
      if (updates_[i].check_names && !updates_[i].rejected) by_name.push_back(i);
    }
  }
  if (by_name.size() == to_check.size()) {
    Status s = CheckNamesAvailable(by_name, late_names_.empty() ? &positions : nullptr,
                                   /*stop_at_first=*/true);
    if (s.ok()) return s;
    if (s.code() != Code::kConflict) return s;
    free_dirs_.clear();
    for (size_t i : by_name) updates_[i].new_name = false;
    new_names_ = 0;
  }
  return CheckNamesAvailable(to_check, nullptr, /*stop_at_first=*/false);
}

// CheckAvailable over `names` in that order, with their positions in by_name_ if known;
// `stop_at_first`: returns the first failure, rejecting nothing.
Status GitRefTransaction::CheckNamesAvailable(const std::vector<size_t>& names,
                                              const std::vector<size_t>* positions,
                                              bool stop_at_first) {
  // Looked up by view: most names share their parents, and a string is made only for a new one.
  std::set<std::string, std::less<>> dirs_seen;
  DirsBelow below;
  std::string_view previous;
  for (size_t k = 0; k < names.size(); ++k) {
    const size_t i = names[k];
    const std::string& name = updates_[i].refname;
    below.next = k + 1 < names.size() ? names[k + 1] : std::string::npos;
    // The parents this name shares with the last one found free (most of them, for sorted
    // input) were checked with it: those whose '/' lies within the common prefix.
    const size_t n = std::min(previous.size(), name.size());
    const size_t common = size_t(
        std::mismatch(name.begin(), name.begin() + long(n), previous.begin()).first - name.begin());
    Why why;
    Status s = CheckNameAvailable(i, common, &dirs_seen, &below,
                                  positions ? &(*positions)[k] : nullptr, &why);
    previous = s.ok() ? std::string_view(name) : std::string_view();
    if (!s.ok() && (stop_at_first || !Reject(i, s, why))) return s;
  }
  return Status::Ok();
}

// One name of CheckAvailable. A parent found in the way is forgotten again, so that the next
// name under it is checked (and, in a batch, rejected) in its turn.
Status GitRefTransaction::CheckNameAvailable(size_t i, size_t checked,
                                             std::set<std::string, std::less<>>* dirs_seen,
                                             DirsBelow* dirs_below, const size_t* position,
                                             Why* why) {
  const std::string& name = updates_[i].refname;
  auto conflict = [why](const std::string& message) {
    *why = GitRefRejectReason::kNameConflict;
    return Status::Conflict(message);
  };
  for (size_t slash = name.find('/', checked); slash != std::string::npos;
       slash = name.find('/', slash + 1)) {
    if (dirs_seen->find(std::string_view(name).substr(0, slash)) != dirs_seen->end()) continue;
    std::string dir = name.substr(0, slash);
    RefRecord rec;
    bool found = false;
    REFTAB_RETURN_IF_ERROR(store_->ReadRef(dir, &rec, &found));
    if (found) return conflict("'" + dir + "' exists; cannot create '" + name + "'");
    if (Named(dir)) {
      return conflict("cannot process '" + name + "' and '" + dir + "' at the same time");
    }
    dirs_seen->insert(dir);
    free_dirs_.push_back(std::move(dir));
  }
  // Nothing exists below the name if nothing exists below its directory. Sorted input
  // creates names a directory at a time, so one look below the directory spares a look
  // below each name (a cursor set up per name was an eighth of a large --stdin's time).
  // Only when the next name is in the same directory: a look below a directory walks every
  // deleted name in it up to the first live one, where the look below a lone name walks
  // only those below that name.
  auto first_below = [&](std::string_view prefix, std::string* existing) {
    return store_->ForEachRef(prefix, [&](const RefRecord& r) {
      *existing = r.refname;
      return false;
    });
  };
  auto under = [&](const std::string& dir) {
    return !dir.empty() && name.size() > dir.size() && name.compare(0, dir.size(), dir) == 0 &&
           name[dir.size()] == '/';
  };
  const size_t last_slash = name.rfind('/');
  bool dir_empty = under(dirs_below->empty_dir);
  auto next_in_dir = [&] {
    if (dirs_below->next == std::string::npos) return false;
    const std::string& next = updates_[dirs_below->next].refname;
    return next.rfind('/') == last_slash && next.compare(0, last_slash, name, 0, last_slash) == 0;
  };
  if (!dir_empty && last_slash != std::string::npos && last_slash > 0 &&
      !(dirs_below->full_dir.size() == last_slash && under(dirs_below->full_dir)) &&
      next_in_dir()) {
    std::string existing;
    REFTAB_RETURN_IF_ERROR(
        first_below(std::string_view(name).substr(0, last_slash + 1), &existing));
    dir_empty = existing.empty();
    (dir_empty ? dirs_below->empty_dir : dirs_below->full_dir) = name.substr(0, last_slash);
  }
  std::string& below = dirs_below->below;
  below.assign(name).push_back('/');
  if (!dir_empty) {
    std::string existing;
    REFTAB_RETURN_IF_ERROR(first_below(below, &existing));
    if (!existing.empty()) {
      return conflict("'" + existing + "' exists; cannot create '" + name + "'");
    }
  }
  // The first name of the transaction from `below` on.
  const std::string_view next = FirstNamedFrom(below, position);
  if (next.compare(0, below.size(), below) == 0 && !next.empty()) {
    return conflict("cannot process '" + name + "' and '" + std::string(next) +
                    "' at the same time");
  }
  updates_[i].new_name = true;
  ++new_names_;
  return Status::Ok();
}

// git locks every stack the transaction touches, in the order of the updates, before it looks
// at any ref. Another worktree's stack that is not there cannot be locked, whatever the
// update; nor can one stack reached under two names (the current worktree's own refs, and
// the same refs as worktrees/<its id>/...): the second lock waits for the first, as git's does.
Status GitRefTransaction::LockStacks() {
  Stack* last = nullptr;  // locked for the update before: a second Lock() is a no-op
  for (size_t k = 0; k < updates_.size(); ++k) {
    Item& u = updates_[k];
    REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Where(u));
    if (!at.stack) return Status::IoError("reftable: transaction prepare: I/O error");
    if (at.stack == last) continue;
    last = at.stack;
    Transaction& tx = txs_.try_emplace(at.stack, at.stack).first->second;
    Status s = tx.Lock();
    if (s.code() == Code::kLockHeld) return CannotLockReferences(*store_);
    REFTAB_RETURN_IF_ERROR(s);
  }
  return Status::Ok();
}

Status GitRefTransaction::Prepare() {
  if (state_ != State::kOpen) return Status::InvalidArgument("transaction is not open");
  state_ = State::kClosed;  // a failed prepare closes it, as in git
  if (names_queued_) {
    by_name_ =
        names_queued_->Take([this](uint32_t i) -> std::string_view { return updates_[i].refname; });
    names_queued_.reset();
  }
  REFTAB_RETURN_IF_ERROR(RejectDuplicates());
  // Who writes the reflog entries is worked out before the locks: with no identity
  // configured it costs a resolver lookup, which other writers must not wait for.
  (void)store_->committer();
  REFTAB_RETURN_IF_ERROR(LockStacks());
  RefRecord head;
  bool head_found = false;
  REFTAB_RETURN_IF_ERROR(store_->ReadRef("HEAD", &head, &head_found));
  if (head_found && head.value_type == RefValueType::kSymref) head_target_ = head.target;
  REFTAB_RETURN_IF_ERROR(ReadInOrder());
  std::vector<size_t> to_check;
  {
    const size_t total = updates_.size();
    ProgressPhase phase(progress_, "Checking references", total);
    for (size_t i = 0; i < updates_.size(); ++i) {  // grows as symrefs are split
      Why why;
      Status s = PrepareItem(i, &to_check, &why);
      if (!s.ok() && !Reject(i, s, why)) return s;
      phase.Set(std::min(i + 1, total));
    }
  }
  REFTAB_RETURN_IF_ERROR(CheckAvailable(to_check));
  state_ = State::kPrepared;
  return Status::Ok();
}

Status GitRefTransaction::Commit() {
  if (state_ == State::kOpen) REFTAB_RETURN_IF_ERROR(Prepare());
  if (state_ != State::kPrepared) return Status::InvalidArgument("transaction is closed");
  state_ = State::kClosed;
  return Write();
}

namespace {

// The reflog entry for an update into *entry, or nullopt when git writes none (a new symref
// target that does not resolve to an object). Errors: reading the target failed.
Status LogEntryFor(GitRefStore& store, const std::string& refname, const RefValue& new_value,
                   const ObjectId& old_id, std::string message, std::optional<LogRecord>* entry) {
  *entry = std::nullopt;
  ObjectId new_id = IdOf(new_value);
  if (new_value.type == RefValueType::kSymref) {
    ResolvedRef target;
    REFTAB_RETURN_IF_ERROR(store.Resolve(new_value.target, &target));
    if (!target.exists || target.broken) return Status::Ok();
    new_id = target.id;
  }
  *entry = UpdateLogEntry(refname, old_id, new_id, store.committer(), std::move(message));
  return Status::Ok();
}

}  // namespace

// One stack transaction per stack that changes. Expected old values are handed down so that
// the stack checks them again under its lock.
Status GitRefTransaction::Write() {
  const size_t hs = store_->hash_size();
  std::map<Stack*, Transaction>& txs = txs_;
  // Every stack a queued update reaches gets its transaction first (LockStacks made most of
  // them), so that the checks below see them all, with room for all it will take at once: per
  // queued update one reflog entry and one update, plus a check under the stack's own name
  // when that differs from the name given; one check per free directory; one "nothing below"
  // check per new name. Grown by doubling instead (a reserve one short is as bad), a million
  // creates touched hundreds of megabytes more of fresh pages, each vector's old and new
  // copy, which the kernel zeroes one by one.
  // Reflog entries only for the updates that may write one: with reflogs off and none yet
  // (a bare repository's bulk create), room for a million unused log records is 220 MB.
  size_t renamed = 0, logs = 0;
  for (size_t k = 0; k < updates_.size(); ++k) {
    Item& u = updates_[k];
    if (!u.queued) continue;
    REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Where(u));
    txs.try_emplace(at.stack, at.stack);
    renamed += at.key != u.refname;
    u.may_log = (u.flags & kGitRefForceCreateReflog) != 0 || store_->MayWriteLog(u.refname, at);
    logs += u.may_log;
  }
  for (auto& [stack, tx] : txs) {
    tx.Reserve(updates_.size() + renamed + free_dirs_.size(), logs);
  }
  // The updates go to the stack transactions in name order, the order of their table, so
  // that these need not sort them again (with a million updates, a sort is a tenth of the
  // commit). Those without a name of their own (HEAD's reflog entry over its branch) follow
  // in their order. Each update's name moves on into its stack transaction.
  std::vector<size_t> order = AllByName();
  by_name_ = {};
  late_names_.clear();
  {
    std::vector<bool> named(updates_.size());
    for (size_t i : order) named[i] = true;
    for (size_t i = 0; i < updates_.size(); ++i) {
      if (!named[i]) order.push_back(i);
    }
  }
  // The count reaches the total as the tables are queued; the phase ends once they are
  // written.
  ProgressPhase phase(progress_, "Updating references", updates_.size());
  // The conflict checks ran before the stack's lock; that nothing has appeared below a new
  // name since is checked again under it (and, below, that no parent directory of one has
  // become a ref), by the item the name goes into when there is one.
  auto write_one = [&](Item& u) -> Status {
    if (!u.queued) {
      if (u.new_name) {
        REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Where(u));
        auto it = txs.find(at.stack);
        if (it != txs.end()) it->second.VerifyNoneBelow(u.refname + "/", u.refname);
      }
      return Status::Ok();
    }
    REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Where(u));
    Transaction& tx = txs.try_emplace(at.stack, at.stack).first->second;
    // `moved`: the name just went into the transaction's last item.
    auto none_below = [&](bool moved) {
      if (!u.new_name) return;
      if (moved) {
        tx.VerifyNoneBelowLast();
      } else {
        tx.VerifyNoneBelow(u.refname + "/", u.refname);
      }
    };
    const bool is_symref = u.exists && u.current_type == RefValueType::kSymref;
    std::optional<RefValue> pin;
    if (u.old_value && (u.old_value->type == RefValueType::kSymref || !is_symref)) {
      pin = std::move(u.old_value);
    }
    // git checks the value under the name the ref has in its stack but writes the name as
    // given (worktrees/<id>/HEAD is read as HEAD there and written as worktrees/<id>/HEAD).
    // Nothing is ever stored under the empty name that "worktrees/<id>" reads.
    if (pin && at.key != u.refname) {
      if (!u.log_only && !at.key.empty()) tx.Verify(std::string(at.key), *pin);
      pin.reset();
    }
    if (!u.has_new) {
      const bool verify = !u.log_only && pin;
      if (verify) tx.Verify(std::move(u.refname), std::move(*pin));
      none_below(verify);
      return Status::Ok();
    }
    const bool null_new = NewIsNull(u, hs);
    if (null_new && !is_symref) {
      tx.Delete(std::move(u.refname), std::move(pin));  // the ref and its reflog
      none_below(true);
      return Status::Ok();
    }
    bool log = (u.flags & kGitRefForceCreateReflog) != 0;
    if (!log && u.may_log) REFTAB_RETURN_IF_ERROR(store_->ShouldWriteLog(u.refname, &log));
    if (log) {
      std::optional<LogRecord> entry;
      REFTAB_RETURN_IF_ERROR(LogEntryFor(*store_, u.refname, *NewValue(u), CurrentId(u),
                                         messages_[u.message], &entry));
      if (entry) tx.AddLogRecord(std::move(*entry));
    }
    if (u.log_only) {
      none_below(false);
      return Status::Ok();
    }
    std::optional<RefValue> value = null_new ? RefValue::Absent() : NewValue(u);
    tx.Update(std::move(u.refname), std::move(*value), std::move(pin));
    none_below(true);
    return Status::Ok();
  };
  for (size_t i : order) {
    phase.Tick();
    REFTAB_RETURN_IF_ERROR(write_one(updates_[i]));
  }
  updates_.clear();
  order = {};
  for (const std::string& dir : free_dirs_) {
    REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, store_->Locate(dir));
    auto it = txs.find(at.stack);
    if (it != txs.end() && !at.key.empty()) {
      it->second.Verify(std::string(at.key), RefValue::Absent());
    }
  }
  // Stacks first reached here (HEAD's reflog in a worktree, through a symref) are locked
  // now, before anything is written, as git locks all of them before it writes.
  std::vector<Transaction*> all;
  for (auto& [stack, tx] : txs) all.push_back(&tx);
  Status s = Transaction::CommitTogether(all);
  if (s.code() == Code::kLockHeld) return CannotLockReferences(*store_);
  std::vector<Stack*> stacks;
  for (auto& [stack, tx] : txs) stacks.push_back(stack);
  return WithAutoCompaction(std::move(s), stacks);
}

}  // namespace reftab
