#include "store/git/refs/reflog.h"

#include <algorithm>

#include "store/git/date.h"
#include "store/git/identity.h"
#include "store/git/objects/object_parse.h"
#include "store/git/refs/ref_dwim.h"
#include "store/git/refs/ref_list.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/refname.h"
#include "store/git/worktrees.h"
#include "store/log_entry.h"
#include "store/merge_cursor.h"

namespace reftab {
namespace {

// The live log records stored under `key` in table order (newest first), markers included.
Status LiveLogsIn(const Snapshot& snap, std::string_view key, std::vector<LogRecord>* out) {
  out->clear();
  LogMergeCursor it(snap.readers());
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.Seek(key));
  LogRecord l;
  while (it.Next(&l) && l.refname == key) out->push_back(l);
  return it.status();
}

// The live entries stored under `key` (ReadReflog's list).
Status EntriesIn(const Snapshot& snap, std::string_view key, std::vector<LogRecord>* out) {
  REFTAB_RETURN_IF_ERROR(LiveLogsIn(snap, key, out));
  const size_t hs = snap.hash_size();
  std::erase_if(*out, [hs](const LogRecord& l) { return IsReflogExistenceMarker(l, hs); });
  return Status::Ok();
}

// Names with a live log record in one stack, each once, in name order.
Status LogNamesOf(const Stack& stack, std::vector<std::string>* out) {
  LogMergeCursor it(stack.snapshot()->readers());
  it.set_suppress_deletions(true);
  REFTAB_RETURN_IF_ERROR(it.SeekToFirst());
  LogRecord l;
  while (it.Next(&l)) {
    if (!out->empty() && out->back() == l.refname) continue;
    if (!IsValidRefname(l.refname, kRefnameAllowOneLevel)) continue;
    out->push_back(l.refname);
  }
  return it.status();
}

// git's REF_WORKTREE_SHARED: a name every worktree sees alike (not per-worktree, and not
// one that addresses a worktree through main-worktree/ or worktrees/<id>).
bool IsSharedRef(std::string_view name) {
  return !IsPerWorktreeRef(name) && WorktreeRefKey(name) == name;
}

// Whether `name` resolves (through symrefs) to an object id; *target is the last name.
Status ResolvesToObject(GitRefStore& store, std::string_view name, bool* ok, std::string* target) {
  ResolvedRef r;
  REFTAB_RETURN_IF_ERROR(store.Resolve(name, &r));
  *ok = r.exists && !r.broken;
  *target = r.name;
  return Status::Ok();
}

// The entries of the first of `names` that has any (ReadReflog), and which it was.
Status FirstNonEmpty(GitRefStore& store, const std::vector<std::string>& names, std::string* which,
                     std::vector<LogRecord>* entries) {
  for (const std::string& n : names) {
    if (n.empty()) continue;
    REFTAB_RETURN_IF_ERROR(ReadReflog(store, n, entries));
    if (!entries->empty()) {
      *which = n;
      return Status::Ok();
    }
  }
  which->clear();
  return Status::Ok();
}

}  // namespace

bool IsReflogExistenceMarker(const LogRecord& log, size_t hash_size) {
  return IsZeroId(log.old_id, hash_size) && IsZeroId(log.new_id, hash_size);
}

Status ReadReflog(GitRefStore& store, std::string_view refname, std::vector<LogRecord>* out) {
  out->clear();
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, store.Locate(refname));
  if (!at.stack) return Status::Ok();
  return EntriesIn(*at.stack->snapshot(), at.key, out);
}

Status ListReflogs(GitRefStore& store, std::vector<std::string>* names) {
  names->clear();
  GitRepo* repo = store.repo();
  Stack* wt = repo ? repo->worktree_stack() : nullptr;
  std::vector<std::string> main;
  REFTAB_RETURN_IF_ERROR(LogNamesOf(store.main_stack(), &main));
  if (!wt) {
    *names = std::move(main);
    return Status::Ok();
  }
  // A linked worktree sees every reflog of its own stack and the shared ones of the main
  // stack, its own shadowing a main one of the same name, as git's merged reflog iterator.
  std::vector<std::string> own;
  REFTAB_RETURN_IF_ERROR(LogNamesOf(*wt, &own));
  std::erase_if(main, [](const std::string& n) { return !IsSharedRef(n); });
  std::merge(own.begin(), own.end(), main.begin(), main.end(), std::back_inserter(*names));
  names->erase(std::unique(names->begin(), names->end()), names->end());
  return Status::Ok();
}

namespace {

// The reflogs of worktree `wt` (not the current one) that are not shared: those of its own
// stack (the main stack for the main worktree) that are per-worktree, named as reached from
// elsewhere, and any stored under a worktree-addressing name, kept as they are (git's).
Status OtherWorktreeReflogs(GitRepo& repo, const GitWorktree& wt, std::vector<std::string>* out) {
  const std::string prefix = wt.id.empty() ? "main-worktree/" : "worktrees/" + wt.id + "/";
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, repo.Locate(prefix + "HEAD"));
  if (!at.stack) return Status::Ok();  // a worktree without a stack has no reflogs
  std::vector<std::string> names;
  REFTAB_RETURN_IF_ERROR(LogNamesOf(*at.stack, &names));
  for (const std::string& n : names) {
    if (IsPerWorktreeRef(n)) {
      out->push_back(prefix + n);
    } else if (!IsSharedRef(n)) {
      out->push_back(n);
    }
  }
  return Status::Ok();
}

}  // namespace

Status ListReflogsOfWorktrees(GitRefStore& store, ReflogWorktrees which,
                              std::vector<std::string>* names) {
  names->clear();
  GitRepo* repo = store.repo();
  if (!repo) return ListReflogs(store, names);
  std::vector<GitWorktree> worktrees;
  REFTAB_RETURN_IF_ERROR(ListGitWorktrees(repo->common_dir(), repo->git_dir(), &worktrees));
  for (const GitWorktree& wt : worktrees) {
    if (wt.current) {
      std::vector<std::string> own;
      REFTAB_RETURN_IF_ERROR(ListReflogs(store, &own));
      names->insert(names->end(), own.begin(), own.end());
    } else if (which == ReflogWorktrees::kAll) {
      REFTAB_RETURN_IF_ERROR(OtherWorktreeReflogs(*repo, wt, names));
    }
  }
  // As in git, a current worktree the list leaves out (its gitdir file empty) contributes
  // nothing.
  return Status::Ok();
}

Status DropReflog(GitRefStore& store, std::string_view refname) {
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, store.Locate(refname));
  if (!at.stack) return Status::IoError("no reftable stack for '" + std::string(refname) + "'");
  const std::string key(refname);  // not at.key: git looks for the name as given (see .h)
  Transaction tx = at.stack->NewTransaction();
  // Read under the lock, as git does, so an entry another writer adds meanwhile is either
  // dropped too or written after this.
  tx.DecideUnderLock([&key](const Snapshot& locked, Transaction* locked_tx) {
    std::vector<LogRecord> logs;
    REFTAB_RETURN_IF_ERROR(LiveLogsIn(locked, key, &logs));
    for (const LogRecord& l : logs) {
      LogRecord tombstone;
      tombstone.refname = key;
      tombstone.update_index = l.update_index;
      tombstone.value_type = LogValueType::kDeletion;
      locked_tx->AddLogRecord(std::move(tombstone), /*keep_update_index=*/true);
    }
    return Status::Ok();
  });
  return WithAutoCompaction(tx.Commit(), {at.stack});
}

Status WriteReflogEntry(GitRefStore& store, std::string_view refname, const ObjectId& old_id,
                        const ObjectId& new_id, std::string_view message) {
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, store.Locate(refname));
  if (!at.stack) return Status::IoError("reftable: transaction prepare: I/O error");
  Transaction tx = at.stack->NewTransaction();
  tx.AddLogRecord(UpdateLogEntry(std::string(refname), old_id, new_id, store.committer(),
                                 CleanReflogMessage(message, store.max_log_message())));
  Status s = WithAutoCompaction(tx.Commit(), {at.stack});
  if (s.code() == Code::kLockHeld) return CannotLockReferences(store);
  return s;
}

Status DwimReflog(GitRefStore& store, std::string_view name, std::string* refname, int* found) {
  refname->clear();
  int count = 0;
  for (const std::string& path : ExpandRefname(name)) {
    bool ok = false;
    std::string target;
    REFTAB_RETURN_IF_ERROR(ResolvesToObject(store, path, &ok, &target));
    if (!ok) continue;
    bool exists = false;
    std::string it = path;
    REFTAB_RETURN_IF_ERROR(store.ReflogExists(path, &exists));
    if (!exists && target != path) {
      it = target;
      REFTAB_RETURN_IF_ERROR(store.ReflogExists(target, &exists));
    }
    if (!exists) continue;
    if (count++ == 0) *refname = it;
  }
  if (found) *found = count;
  return Status::Ok();
}

Status ReadReflogForWalk(GitRefStore& store, std::string_view name, std::string* shown,
                         std::vector<LogRecord>* entries) {
  *shown = std::string(name);
  bool ok = false;
  std::string target;
  REFTAB_RETURN_IF_ERROR(ResolvesToObject(store, name, &ok, &target));
  std::string which;
  const std::string n(name);
  REFTAB_RETURN_IF_ERROR(
      FirstNonEmpty(store, {n, ok && target != n ? target : "", "refs/" + n, "refs/heads/" + n},
                    &which, entries));
  if (!which.empty()) return Status::Ok();
  std::string dwim;
  REFTAB_RETURN_IF_ERROR(DwimReflog(store, name, &dwim));
  if (dwim.empty()) return Status::Ok();
  *shown = dwim;
  return ReadReflog(store, dwim, entries);
}

namespace {

// git's revision walk peels each annotated tag it starts from, and dies on a target it cannot
// read ("bad object <id>"), even where, as in a reflog walk, it then shows nothing of it.
Status CheckTagTargets(GitObjects& objects, const ObjectId& tag, size_t hash_size) {
  ObjectId id = tag;
  for (;;) {
    GitObjectType type = GitObjectType::kNone;
    std::string content;
    REFTAB_RETURN_IF_ERROR(objects.Read(id, &type, &content));
    GitTag parsed;
    if (type != GitObjectType::kTag || !ParseTag(content, hash_size, &parsed).ok()) {
      return Status::Ok();
    }
    id = parsed.object;
    REFTAB_RETURN_IF_ERROR(objects.TypeOf(id, &type));
    if (type == GitObjectType::kNone) return Status::NotFound("bad object " + HexId(id, hash_size));
  }
}

}  // namespace

Status ReadAllReflogsForWalk(GitRefStore& store, bool ref_paranoia,
                             const std::function<void(const std::string&)>& error,
                             std::vector<ReflogForWalk>* out) {
  out->clear();
  GitObjects* objects = store.objects();
  if (objects && !objects->available()) objects = nullptr;
  GitListCallbacks cb;
  cb.include_broken = ref_paranoia;
  cb.error = error;
  Status inner;
  cb.ref = [&](const GitListedRef& ref) {
    GitObjectType type = GitObjectType::kCommit;
    if (objects) inner = objects->TypeOf(ref.id, &type);
    if (inner.ok() && type == GitObjectType::kNone) {
      inner = Status::NotFound("bad object " + *ref.name);
    }
    if (inner.ok() && type == GitObjectType::kTag) {
      inner = CheckTagTargets(*objects, ref.id, store.hash_size());
    }
    if (!inner.ok()) return false;
    if (type != GitObjectType::kCommit) return true;
    ReflogForWalk log;
    inner = ReadReflogForWalk(store, *ref.name, &log.shown, &log.entries);
    if (inner.ok() && !log.entries.empty()) out->push_back(std::move(log));
    return inner.ok();
  };
  REFTAB_RETURN_IF_ERROR(ForEachRevisionAllRef(store, cb));
  return inner;
}

ReflogSelector ParseReflogSelector(std::string_view spec) {
  ReflogSelector s;
  size_t at = spec.find("@{");
  if (at == std::string_view::npos) {
    s.ref = std::string(spec);
    return s;
  }
  s.ref = std::string(spec.substr(0, at));
  std::string_view rest = spec.substr(at + 2);
  // git reads a decimal number (strtoul: no sign check here, digits only) and wants '}'
  // right after it; anything else is a date.
  size_t digits = 0;
  uint64_t v = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') {
    v = v * 10 + uint64_t(rest[digits] - '0');
    ++digits;
  }
  if (digits < rest.size() && rest[digits] == '}') {
    s.kind = ReflogSelector::Kind::kIndex;
    s.index = v;
    return s;
  }
  s.kind = ReflogSelector::Kind::kDate;
  size_t close = rest.find('}');
  s.date = std::string(rest.substr(0, close));
  return s;
}

Status ReflogDeleteTarget(const std::vector<LogRecord>& entries, const ReflogSelector& sel,
                          uint64_t now, int64_t* kth_oldest) {
  if (sel.kind == ReflogSelector::Kind::kIndex) {
    *kth_oldest = int64_t(entries.size()) - int64_t(sel.index);
    return Status::Ok();
  }
  uint64_t at = 0;
  REFTAB_RETURN_IF_ERROR(ParseApproxDate(sel.date, now, &at));
  *kth_oldest = 0;
  for (const LogRecord& e : entries) *kth_oldest += e.time < at ? 1 : 0;
  return Status::Ok();
}

ReflogPruneFn PruneNthOldest(int64_t kth_oldest) {
  return [left = kth_oldest](const LogRecord&) mutable -> Result<bool> {
    return left > 0 && --left == 0;
  };
}

namespace {

// The records git writes for an expiry: every entry again (pruned ones as deletions),
// oldest first decided, with --rewrite's old ids, and the id --updateref moves the ref to.
Status DecideEntries(const std::vector<LogRecord>& logs, const ReflogExpireFlags& flags,
                     const ReflogPruneFn& prune, std::vector<LogRecord>* out, ObjectId* last_kept,
                     bool* any_kept) {
  *out = logs;
  *any_kept = false;
  for (size_t i = logs.size(); i-- > 0;) {
    LogRecord& dest = (*out)[i];
    REFTAB_ASSIGN_OR_RETURN(bool pruned, prune(logs[i]));
    if (pruned) {
      dest.value_type = LogValueType::kDeletion;
      continue;
    }
    if (flags.rewrite && *any_kept) dest.old_id = *last_kept;
    *last_kept = logs[i].new_id;
    *any_kept = true;
  }
  return Status::Ok();
}

// The ref's own value: zero for a symref or a missing ref (git reads it without following).
Status OwnValue(const Snapshot& snap, std::string_view key, ObjectId* id) {
  *id = ObjectId{};
  RefRecord rec;
  bool found = false;
  REFTAB_RETURN_IF_ERROR(snap.ReadRef(key, &rec, &found));
  if (found && rec.value_type != RefValueType::kSymref) *id = rec.value;
  return Status::Ok();
}

// What git stores for a ref moved by --updateref: the id, peeled when it is a tag.
Status UpdatedValue(GitRefStore& store, const ObjectId& id, RefValue* value) {
  *value = RefValue::Id(id);
  GitObjects* objects = store.objects();
  if (objects && objects->available()) {
    GitObjectType type = GitObjectType::kNone;
    REFTAB_RETURN_IF_ERROR(objects->TypeOf(id, &type));
    if (type != GitObjectType::kTag) return Status::Ok();
    ObjectId peeled{};
    bool ok = false;
    REFTAB_RETURN_IF_ERROR(objects->Peel(id, &peeled, &ok));
    if (ok) *value = RefValue::Peeled(id, peeled);
  }
  return Status::Ok();
}

// An expiry decided on `snap`: the entries stored under `key` there, the policy's verdict on
// each, and the records that write it into `tx`.
Status DecideExpiry(GitRefStore& store, const Snapshot& snap, const std::string& key,
                    const ReflogExpireFlags& flags,
                    const std::function<Status(const ObjectId& tip)>& prepare,
                    const ReflogPruneFn& prune, Transaction* tx) {
  const size_t hs = snap.hash_size();
  std::vector<LogRecord> logs;
  REFTAB_RETURN_IF_ERROR(EntriesIn(snap, key, &logs));
  ObjectId tip{};
  REFTAB_RETURN_IF_ERROR(OwnValue(snap, key, &tip));
  if (prepare) REFTAB_RETURN_IF_ERROR(prepare(tip));
  std::vector<LogRecord> decided;
  ObjectId last_kept{};
  bool any_kept = false;
  REFTAB_RETURN_IF_ERROR(DecideEntries(logs, flags, prune, &decided, &last_kept, &any_kept));
  if (flags.dry_run) return Status::Ok();
  if (flags.update_ref && any_kept && !IsZeroId(tip, hs)) {
    RefValue value;
    REFTAB_RETURN_IF_ERROR(UpdatedValue(store, last_kept, &value));
    tx->Update(key, value);
  }
  if (!any_kept) {
    // No entry left: the reflog stays, as an existence marker (all ids zero).
    LogRecord marker;
    marker.refname = key;
    marker.value_type = LogValueType::kUpdate;
    tx->AddLogRecord(std::move(marker));
  }
  for (LogRecord& l : decided) tx->AddLogRecord(std::move(l), /*keep_update_index=*/true);
  return Status::Ok();
}

}  // namespace

Status ExpireReflog(GitRefStore& store, std::string_view refname, const ReflogExpireFlags& flags,
                    const std::function<Status(const ObjectId& tip)>& prepare,
                    const ReflogPruneFn& prune) {
  // git expires another worktree's reflog (worktrees/<id>/HEAD) under the name it has there.
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, store.Locate(refname));
  if (!at.stack) return Status::IoError("no reftable stack for '" + std::string(refname) + "'");
  const std::string key(at.key);
  Transaction tx = at.stack->NewTransaction();
  if (flags.dry_run)
    return DecideExpiry(store, *at.stack->snapshot(), key, flags, prepare, prune, &tx);
  // As git, the entries are read under the stack's lock: an entry another writer adds while
  // this runs is either seen and decided on, or added after this commit; never dropped.
  tx.DecideUnderLock([&](const Snapshot& locked, Transaction* locked_tx) {
    return DecideExpiry(store, locked, key, flags, prepare, prune, locked_tx);
  });
  return WithAutoCompaction(tx.Commit(), {at.stack});
}

}  // namespace reftab
