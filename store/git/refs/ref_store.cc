#include "store/git/refs/ref_store.h"

#include <sys/stat.h>

#include "store/git/dir.h"
#include "store/git/identity.h"
#include "store/git/refs/ref_transaction.h"
#include "store/git/refs/refname.h"
#include "store/merge_cursor.h"
#include "store/snapshot_access.h"

namespace reftab {
namespace {

const GitConfig& EmptyConfig() {
  static const GitConfig* empty = new GitConfig();
  return *empty;
}

}  // namespace

Result<std::unique_ptr<GitRefStore>> GitRefStore::OpenRepo(const std::string& git_dir,
                                                           StackOptions base,
                                                           GitRepoAccess access) {
  auto repo = GitRepo::Open(git_dir, std::move(base), access);
  if (!repo.ok()) return repo.status();
  return std::make_unique<GitRefStore>(std::move(*repo));
}

Result<std::unique_ptr<GitRefStore>> GitRefStore::OpenStack(const std::string& dir,
                                                            StackOptions base,
                                                            GitRepoAccess access) {
  if (access == GitRepoAccess::kReadWrite) {
    const std::string git_dir = GitDirAroundStack(dir);
    if (!git_dir.empty()) {
      return Status::InvalidArgument("'" + dir + "' is the ref storage of the git repository '" +
                                     git_dir + "': writing there would skip git's rules (its " +
                                     "objects and config); use --git-dir '" + git_dir +
                                     "' (or -C) instead of --stack");
    }
  }
  auto stack = Stack::Open(dir, base);
  if (!stack.ok()) return stack.status();
  return std::make_unique<GitRefStore>(std::move(*stack));
}

GitRefStore::GitRefStore(std::unique_ptr<GitRepo> repo) : repo_(std::move(repo)) {
  // Every repository git makes has objects/; a ref-only directory without one (tests, tools
  // that keep refs apart) has no database to check ids against, like a bare stack.
  struct stat st;
  std::string objects = repo_->common_dir() + "/objects";
  if (stat(objects.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    objects_ = std::make_unique<GitObjects>(objects, hash_size(), repo_->common_dir() + "/shallow");
  }
}

GitRefStore::GitRefStore(std::unique_ptr<Stack> stack) : stack_(std::move(stack)) {}

// Worked out on first use: it may ask the system for the user's name and host (getpwuid,
// a resolver lookup), which a read-only command must not pay.
const LogInfo& GitRefStore::committer() const {
  if (!committer_) committer_ = CommitterIdentity(repo_ ? &repo_->config() : nullptr);
  return *committer_;
}

GitRefStore::~GitRefStore() = default;

const GitConfig& GitRefStore::config() const { return repo_ ? repo_->config() : EmptyConfig(); }

size_t GitRefStore::hash_size() const {
  // From the stack's current snapshot without taking a reference to it (an atomic
  // increment and decrement per call: the transaction asks once per queued update).
  const Stack& s = repo_ ? repo_->main_stack() : *stack_;
  return HashSize(s.hash_id());
}

Result<GitRefLocation> GitRefStore::Locate(std::string_view refname) {
  if (repo_) return repo_->Locate(refname);
  GitRefLocation at;
  at.stack = stack_.get();
  at.key = refname;
  return at;
}

Status GitRefStore::ReadRef(std::string_view refname, RefRecord* ref, bool* found) {
  if (repo_) return repo_->ReadRef(refname, ref, found);
  REFTAB_RETURN_IF_ERROR(ReadRefAsGit(stack_->snapshot(), refname, ref, found, &nul_names_));
  if (*found) ref->refname = std::string(refname);  // as asked, not as stored
  return Status::Ok();
}

Status GitRefStore::ForEachRef(std::string_view prefix,
                               const std::function<bool(const RefRecord&)>& fn) {
  if (repo_) return repo_->ForEachRef(prefix, fn);
  auto snap = stack_->snapshot();
  RefMergeCursor it(snap->readers());
  it.set_suppress_deletions(true);
  it.set_merge_order(SnapshotAccess::RefOrder(*snap));
  REFTAB_RETURN_IF_ERROR(it.SeekPrefix(prefix));  // ends where names leave the prefix
  RefRecord r;
  while (it.Next(&r)) {
    r.refname.resize(StoredRefname(r.refname).size());
    if (!fn(r)) break;
  }
  return it.status();
}

Status GitRefStore::Resolve(std::string_view refname, ResolvedRef* out) {
  return ResolveRefAsGit(*this, refname, kResolveAllowBadName, out);
}

Status ResolveRefAsGit(GitRefStore& store, std::string_view refname, unsigned flags,
                       ResolvedRef* out) {
  // Field by field: RefExists calls this once per candidate name when for-each-ref shortens
  // every ref, and assigning a whole fresh ResolvedRef cost a tenth of that listing.
  out->resolved = out->through_symref = out->exists = out->broken = false;
  out->name.clear();
  out->id = ObjectId{};
  out->peeled.reset();
  out->symrefs.clear();
  if (!out->record.refname.empty() || out->record.value_type != RefValueType::kDeletion) {
    out->record = RefRecord();
  }
  const bool any_form = flags & kResolveAllowBadName;
  std::string name(refname);
  for (int depth = 0; depth < kMaxSymrefDepth; ++depth) {
    // A name git would not accept is never looked up, here or at the end of a symref.
    if (!any_form && !IsValidRefname(name, kRefnameAllowOneLevel)) return Status::Ok();
    RefRecord rec;
    bool found = false;
    REFTAB_RETURN_IF_ERROR(store.ReadRef(name, &rec, &found));
    if (!found || rec.value_type != RefValueType::kSymref) {
      out->resolved = found || !(flags & kResolveReading);
      out->exists = found;
      out->name = std::move(name);
      if (found) {
        out->id = rec.value;
        if (rec.value_type == RefValueType::kVal2) out->peeled = rec.peeled;
        out->record = std::move(rec);
      }
      return Status::Ok();
    }
    out->through_symref = true;
    out->symrefs.push_back(name);
    if (flags & kResolveNoRecurse) {
      out->resolved = true;
      out->name = std::move(rec.target);
      return Status::Ok();
    }
    if (any_form && !IsSafeRefname(rec.target)) break;  // stops at this symref
    name = std::move(rec.target);
  }
  // Too many levels (or a dangerous target): git does not resolve it either.
  out->broken = true;
  if (any_form) out->name = std::move(name);
  return Status::Ok();
}

Status RefExists(GitRefStore& store, std::string_view refname, bool* exists) {
  ResolvedRef r;
  REFTAB_RETURN_IF_ERROR(ResolveRefAsGit(store, refname, kResolveReading, &r));
  *exists = r.resolved;
  return Status::Ok();
}

LogRefUpdates GitRefStore::log_all_ref_updates() const {
  // GitRepo read (and checked) the setting; unset, bare repositories keep no reflogs and
  // others the normal set.
  LogRefUpdates set = repo_ ? repo_->log_all_ref_updates() : LogRefUpdates::kUnset;
  if (set != LogRefUpdates::kUnset) return set;
  return bare() ? LogRefUpdates::kNone : LogRefUpdates::kNormal;
}

bool LogsByDefault(LogRefUpdates mode, std::string_view name) {
  switch (mode) {
    case LogRefUpdates::kUnset:
    case LogRefUpdates::kNone: return false;
    case LogRefUpdates::kAlways: return true;
    case LogRefUpdates::kNormal:
      return name == "HEAD" || name.starts_with("refs/heads/") ||
             name.starts_with("refs/remotes/") || name.starts_with("refs/notes/");
  }
  return false;
}

namespace {

// Whether any table of the snapshot holds log records (a bulk write into a repository
// without reflogs asks for each ref; a merge cursor per ref costs thousands of instructions).
bool AnyLogSection(const Snapshot& snap) {
  uint64_t unused;
  for (const TableReader* t : snap.readers()) {
    if (t->LogSectionStart(&unused)) return true;
  }
  return false;
}

}  // namespace

Status GitRefStore::ReflogExists(std::string_view refname, bool* exists) {
  *exists = false;
  REFTAB_ASSIGN_OR_RETURN(GitRefLocation at, Locate(refname));
  if (!at.stack) return Status::Ok();
  auto snap = at.stack->snapshot();
  if (!AnyLogSection(*snap)) return Status::Ok();
  LogMergeCursor it(snap->readers());
  REFTAB_RETURN_IF_ERROR(it.Seek(at.key));
  LogRecord l;
  while (it.Next(&l) && l.refname == at.key) {
    if (!l.is_deletion()) {
      *exists = true;
      return Status::Ok();
    }
  }
  return it.status();
}

Status GitRefStore::ShouldWriteLog(std::string_view refname, bool* log) {
  if (LogsByDefault(log_all_ref_updates(), refname)) {
    *log = true;
    return Status::Ok();
  }
  // Whatever the setting, a ref whose reflog exists keeps getting entries.
  return ReflogExists(refname, log);
}

bool GitRefStore::MayWriteLog(std::string_view refname) {
  if (LogsByDefault(log_all_ref_updates(), refname)) return true;
  auto at = Locate(refname);
  return !at.ok() || (at->stack && AnyLogSection(*at->stack->snapshot()));
}

bool GitRefStore::MayWriteLog(std::string_view refname, const GitRefLocation& at) {
  if (LogsByDefault(log_all_ref_updates(), refname)) return true;
  return at.stack && AnyLogSection(*at.stack->snapshot());
}

size_t GitRefStore::max_log_message() const {
  const Stack& s = repo_ ? repo_->main_stack() : *stack_;
  return s.options().write_options.block_size / 2;
}

GitRefTransaction GitRefStore::NewTransaction() { return GitRefTransaction(this); }

Status WithAutoCompaction(Status committed, const std::vector<Stack*>& stacks) {
  if (!committed.ok()) return committed;
  for (const Stack* stack : stacks) {
    const Status& compacted = stack->last_auto_compaction();
    if (!compacted.ok()) {
      return compacted.WithContext("the update is in, but the auto-compaction after it failed");
    }
  }
  return committed;
}

Status CannotLockReferences(GitRefStore& store) {
  for (Stack* stack : store.stacks()) {
    std::string holder = stack ? stack->ListLockHolder() : "";
    if (!holder.empty()) return Status::LockHeld("cannot lock references (" + holder + ")");
  }
  return Status::LockHeld("cannot lock references");
}

}  // namespace reftab
