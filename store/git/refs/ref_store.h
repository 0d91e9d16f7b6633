// Public API: git's ref store over reftable — what the CLI and library users go through to
// read and write refs the way git does. It sits on a GitRepo (a repository, with its config)
// or on a bare reftable directory (no config: git's defaults for a non-bare repository), and
// owns the rules git applies around the stack:
//  - following symrefs, at most kMaxSymrefDepth names deep (git's limit);
//  - which refs get reflog entries (core.logAllRefUpdates, an existing reflog);
//  - who writes the entries (store/git/identity.h) and how long a message may be;
//  - transactions with git's name, conflict and symref rules (store/git/refs/ref_transaction.h).
// The Stack below stays a generic sorted store of byte-string keys.
#ifndef REFTAB_STORE_GIT_REFS_REF_STORE_H_
#define REFTAB_STORE_GIT_REFS_REF_STORE_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/objects/objects.h"
#include "store/git/repo.h"
#include "store/stack.h"
#include "store/symref_chain.h"
#include "store/transaction.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

class GitRefTransaction;

// How a name's symrefs are followed (git's resolve flags; see ResolveRefAsGit).
enum GitResolveFlags : unsigned {
  // git's rules (refs_resolve_ref_unsafe): the name must be well formed (one level allowed),
  // as must every symref target on the way; otherwise nothing resolves. A missing ref at the
  // end resolves, to its name (exists false).
  kResolveDefault = 0,
  kResolveReading = 1u << 0,    // the chain must end at an existing ref
  kResolveNoRecurse = 1u << 1,  // stop at the first symref's target
  // The names are not checked for form: the asked name is read as given and a symref target
  // only has to be safe (IsSafeRefname). A symref to an unsafe name stops the walk at that
  // symref, marked broken. What GitRefStore::Resolve does, for names taken from the store.
  kResolveAllowBadName = 1u << 2,
};

// Where following a name's symrefs ends.
struct ResolvedRef {
  bool resolved = false;        // git's non-NULL answer (see GitResolveFlags)
  bool through_symref = false;  // a symref was met (git's REF_ISSYMREF), even if then NULL
  std::string name;     // the last name reached: what an update through the first one changes
  bool exists = false;  // whether `name` holds an object id
  ObjectId id{};        // its id (zero when it does not exist)
  RefRecord record;     // its record when it exists (a peeled tag keeps its peeled id)
  std::optional<ObjectId> peeled;  // the peeled id the final record stores, if any
  // The chain is longer than kMaxSymrefDepth names (git: too many levels of symbolic refs)
  // or (kResolveAllowBadName) a symref points at a dangerous name; git treats such a ref as
  // broken. Never resolved.
  bool broken = false;
  std::vector<std::string> symrefs;  // the symrefs passed through, starting with the asked name
};

class GitRefStore {
 public:
  // git resolves at most this many names for one lookup (a symref chain of four hops).

  // A repository (see GitRepo::Open; kReadOnly for commands that only read, so that a bad
  // write setting stops writers only, as in git).
  static Result<std::unique_ptr<GitRefStore>> OpenRepo(
      const std::string& git_dir, StackOptions base,
      GitRepoAccess access = GitRepoAccess::kReadWrite);
  // A bare reftable directory (`reftab --stack DIR`): git's rules with git's defaults. A
  // directory that is a git repository's ref stack (GitDirAroundStack: .git/reftable, or a
  // linked worktree's) is opened for reading only: writing there past the repository's
  // objects and config would break git's rules, so kReadWrite fails with kInvalidArgument
  // naming the repository to open instead.
  static Result<std::unique_ptr<GitRefStore>> OpenStack(
      const std::string& dir, StackOptions base, GitRepoAccess access = GitRepoAccess::kReadWrite);
  explicit GitRefStore(std::unique_ptr<GitRepo> repo);
  explicit GitRefStore(std::unique_ptr<Stack> stack);
  ~GitRefStore();

  // The repository, or nullptr over a bare directory.
  GitRepo* repo() { return repo_.get(); }
  // The repository's config (empty over a bare directory).
  const GitConfig& config() const;
  bool bare() const { return repo_ && repo_->bare(); }
  // The stack holding shared refs (the only one over a bare directory).
  Stack& main_stack() { return repo_ ? repo_->main_stack() : *stack_; }
  // GitRepo::stacks(); over a bare directory, its one stack.
  std::vector<Stack*> stacks() {
    return repo_ ? repo_->stacks() : std::vector<Stack*>{stack_.get()};
  }
  // The stack that stores `refname` (a linked worktree keeps its own refs apart).
  Stack& StackFor(std::string_view refname) { return repo_ ? repo_->StackFor(refname) : *stack_; }
  // Where git reads and writes `refname`, other worktrees' names included (GitRepo::Locate);
  // over a bare directory, that stack and the name as given.
  Result<GitRefLocation> Locate(std::string_view refname);
  size_t hash_size() const;
  // The repository's object database (existence, types, tag peeling), or nullptr over a bare
  // directory or a git directory without objects/, where object ids are taken on trust.
  GitObjects* objects() { return objects_.get(); }

  // The record stored under exactly `refname` where Locate says (no symref following;
  // tombstones: not found). Its refname is `refname` as asked.
  Status ReadRef(std::string_view refname, RefRecord* ref, bool* found);
  // Every live ref whose name starts with `prefix`, in name order; `fn` returns false to stop.
  Status ForEachRef(std::string_view prefix, const std::function<bool(const RefRecord&)>& fn);
  // Follows `refname` through symrefs: ResolveRefAsGit(*this, refname, kResolveAllowBadName).
  // A missing ref ends the walk (exists false); see ResolvedRef::broken. Errors are I/O
  // errors only.
  Status Resolve(std::string_view refname, ResolvedRef* out);

  LogRefUpdates log_all_ref_updates() const;
  // Whether `refname` has at least one live reflog entry (where Locate says).
  Status ReflogExists(std::string_view refname, bool* exists);
  // Whether an update of `refname` writes a reflog entry without --create-reflog.
  Status ShouldWriteLog(std::string_view refname, bool* log);
  // False when ShouldWriteLog is false for `refname` for sure: logs are not on by default
  // for it and no table of its stack has a log section. Reads no record, so a bulk writer
  // can count the entries it will add before it adds them.
  bool MayWriteLog(std::string_view refname);
  // MayWriteLog for a name already located (`at`: Locate's answer for it), without locating
  // it again.
  bool MayWriteLog(std::string_view refname, const GitRefLocation& at);
  // Who writes reflog entries now (GIT_COMMITTER_*, config, system), with no message.
  const LogInfo& committer() const;
  // git keeps at most half a block of each reflog message.
  size_t max_log_message() const;

  GitRefTransaction NewTransaction();

 private:
  std::unique_ptr<GitRepo> repo_;
  std::unique_ptr<Stack> stack_;
  std::unique_ptr<GitObjects> objects_;
  mutable std::optional<LogInfo> committer_;  // committer(): computed on first use
  NulNameMemo nul_names_;                     // ReadRef's over a bare directory
};

// The one symref walk every resolution goes through: follows `refname` in `store` at most
// kMaxSymrefDepth (store/symref_chain.h) names deep, checking names as `flags` (GitResolveFlags)
// say. Errors are I/O and corruption errors only; a name that does not resolve is `resolved` false.
Status ResolveRefAsGit(GitRefStore& store, std::string_view refname, unsigned flags,
                       ResolvedRef* out);

// git's refs_ref_exists: whether `refname` resolves (kResolveReading) to an existing ref.
Status RefExists(GitRefStore& store, std::string_view refname, bool* exists);

// The error for a write that found a stack's tables.list locked by another writer: kLockHeld
// with git's words, "cannot lock references", followed by who holds the lock when its pid
// file says (core.lockfilePid): "... (<dir>/tables.list.lock: Lock may be held by process N;
// ...)".
Status CannotLockReferences(GitRefStore& store);

// git's outcome of a write: `committed` (the outcome of committing it on `stacks`) if that
// failed, else the first error of the auto-compaction the commit ran on one of `stacks`.
// git fails a write whose auto-compaction failed (an I/O error; losing a race with another
// writer is no error), though the write itself is in: the message says so.
Status WithAutoCompaction(Status committed, const std::vector<Stack*>& stacks);

// Whether core.logAllRefUpdates lets `refname` get a reflog on its first update.
bool LogsByDefault(LogRefUpdates mode, std::string_view refname);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REFS_REF_STORE_H_
