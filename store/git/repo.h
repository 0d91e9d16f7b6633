// Public API: a git repository's ref storage, as git lays it out for the reftable backend
// (FORMAT.md §15): the main stack in $GIT_COMMON_DIR/reftable, and for a linked worktree a
// second stack in $GIT_DIR/reftable holding its per-worktree refs (HEAD and other root refs,
// refs/bisect/, refs/worktree/, refs/rewritten/), with its own update index sequence.
#ifndef REFTAB_STORE_GIT_REPO_H_
#define REFTAB_STORE_GIT_REPO_H_

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"
#include "store/stack.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// True for names that live in a worktree's own stack: root refs (HEAD, ORIG_HEAD, ... — upper
// case, '_' and '-' outside refs/, no digits) and refs/bisect/, refs/worktree/, refs/rewritten/.
bool IsPerWorktreeRef(std::string_view refname);

// The name git looks `refname` up under in the stack it routes it to (see GitRepo::Locate):
// without "worktrees/<id>/" or "main-worktree/" when that prefix routes it, else unchanged.
// A view into `refname`.
std::string_view WorktreeRefKey(std::string_view refname);

// Where git's reftable backend keeps a name (GitRepo::Locate).
struct GitRefLocation {
  // nullptr: another worktree without a stack directory, where git finds nothing and a
  // transaction fails.
  Stack* stack = nullptr;
  std::string_view key;  // the name within `stack` (WorktreeRefKey)
};

// Which snapshots hold a live ref whose stored name has a NUL byte, for ReadRefAsGit: a
// miss there must look past the name it sought (one merged seek), which on a snapshot
// known to hold none it need not. A snapshot is scanned once misses are many (kScanAfter,
// as when a listing shortens every name): one pass over its names, then none of those
// seeks. Not thread-safe: one per ref store.
class NulNameMemo {
 public:
  static constexpr uint32_t kScanAfter = 64;
  // Whether a miss in `snap` must look for a NUL-cut name (true until it is known).
  Result<bool> MayHold(const std::shared_ptr<const Snapshot>& snap);

 private:
  uint32_t misses_ = 0;
  // The snapshots scanned, newest last, and whether each holds such a name (a few: a
  // repository reads its main stack and its worktree's).
  std::vector<std::pair<std::shared_ptr<const Snapshot>, bool>> known_;
};

// git's exact lookup of `name` in one stack's snapshot. git reads a stored name as a C
// string (StoredRefname), so after a miss the first stored name past `name` answers for it
// when that is `name`, a NUL byte and more, and not a deletion (git compares the name it
// seeks to with strcmp). `ref` gets the record (its name as stored). `memo` (may be null)
// spares the look past a miss where no stored name has a NUL byte.
Status ReadRefAsGit(const std::shared_ptr<const Snapshot>& snap, std::string_view name,
                    RefRecord* ref, bool* found, NulNameMemo* memo);

// What the opener intends. git reads its write settings (reftable.*, core.logAllRefUpdates,
// core.sharedRepository) only when it first writes: `git for-each-ref` and `git refs verify`
// work in a repository whose reftable.blockSize is "abc", `git update-ref` and `git pack-refs`
// die. kReadOnly mirrors the readers, kReadWrite the writers.
enum class GitRepoAccess : uint8_t { kReadWrite, kReadOnly };

class GitRepo {
 public:
  // Opens the repository whose git directory is `git_dir` (a `.git` directory, a bare
  // repository, or a linked worktree's `.git/worktrees/<id>`). A `git_dir` that does not
  // exist is kNotFound "not a git repository: '<git_dir>'" (git's message), one without the
  // main stack's directory kNotFound too; a linked worktree's own stack may be missing. The config
  // is read as git reads it (every level, includes; store/git/config/config.h) from this process's
  // environment. `base` supplies options the config does not set (fs, durability); the object
  // format, block size, restart interval, index objects, geometric factor and lock timeout come
  // from the config when present. Every file the stacks create gets file_mode() (git's
  // core.sharedRepository over the umask), and tables and tables.list are synced as git
  // syncs refs: only when core.fsync includes them (kGit), which git's default does not
  // (kNone); a `base.durability` of kFull is kept.
  //
  // Fails, with git's message minus its "fatal: " (print "fatal: " + message, exit 128), where
  // every git command dies: a syntax error, an include too deep, a bad core.bare or
  // core.repositoryformatversion, an unknown extensions.objectFormat. With kReadWrite also
  // where git's writers die (a malformed or out-of-range write setting); with kReadOnly such
  // a problem is kept in write_settings_status() and the stacks use `base` for those values.
  static Result<std::unique_ptr<GitRepo>> Open(const std::string& git_dir, StackOptions base,
                                               GitRepoAccess access = GitRepoAccess::kReadWrite);
  // What git's setup reads before a command parses its options: the configuration of the
  // repository at `git_dir`, read and checked as Open reads and checks it, without touching
  // the ref storage (a files-backend repository passes). Fails as Open does for a missing
  // `git_dir` and for the configuration problems every git command dies on.
  static Result<GitConfig> ReadConfig(const std::string& git_dir);

  const std::string& git_dir() const { return git_dir_; }
  const std::string& common_dir() const { return common_dir_; }
  const GitConfig& config() const { return config_; }
  bool bare() const { return config_.GetBool("core.bare", false); }
  // OK, or why git's writers would refuse this repository's write settings (see Open).
  const Status& write_settings_status() const { return write_settings_status_; }
  // The permission bits git gives every file its reftable backend creates here (tables,
  // tables.list): core.sharedRepository applied to 0666 & ~umask (git's calc_shared_perm).
  // With the setting, the umask is the one at open and writers chmod new files to the mode
  // before renaming them into place, as git does. Without it (or when it is bad, kReadOnly)
  // the mode is 0666 & ~umask, which open(2) gives new files by itself: the stacks chmod
  // nothing and no reader pays for reading the umask (/proc/self/status).
  uint32_t file_mode() const;
  // core.logAllRefUpdates as git's reftable backend reads it (kUnset when absent).
  LogRefUpdates log_all_ref_updates() const { return log_all_ref_updates_; }
  Stack& main_stack() { return *main_; }
  // The linked worktree's own stack, or nullptr in the main worktree.
  Stack* worktree_stack() { return worktree_.get(); }
  // The stacks that hold the refs this worktree sees, each once: the main stack first, then
  // the linked worktree's own stack when this is one (so the last is always the stack this
  // worktree's own refs live in). Other worktrees' stacks are not among them (see Locate).
  // Commands that visit a repository's tables (compact, verify, stats) go through this.
  std::vector<Stack*> stacks();
  // The stack that stores `refname` as this worktree names it (no worktree prefixes).
  Stack& StackFor(std::string_view refname);
  // Where git reads and writes `refname`, from any worktree: "worktrees/<id>/<name>" for a
  // per-worktree <name> (or "", as git parses it) is <name> in worktree <id>'s stack
  // ($GIT_COMMON_DIR/worktrees/<id>/reftable, opened on first use), "main-worktree/<name>"
  // is <name> in the main stack, anything else is where StackFor puts it. Errors: opening
  // that worktree's stack failed.
  Result<GitRefLocation> Locate(std::string_view refname);

  // Exact lookup where Locate says (tombstones mean not found).
  Status ReadRef(std::string_view refname, RefRecord* ref, bool* found);
  // Every live ref whose name starts with `prefix`, in name order, as this worktree sees
  // them; `fn` returns false to stop.
  Status ForEachRef(std::string_view prefix, const std::function<bool(const RefRecord&)>& fn);

 private:
  GitRepo() = default;
  std::string git_dir_;
  std::string common_dir_;
  GitConfig config_;
  Status write_settings_status_;
  std::optional<uint32_t> file_mode_;  // unset: 0666 & ~umask, applied by open(2)
  LogRefUpdates log_all_ref_updates_ = LogRefUpdates::kUnset;
  std::unique_ptr<Stack> main_;
  std::unique_ptr<Stack> worktree_;
  StackOptions stack_options_;  // what the stacks were opened with, for other worktrees'
  // Other worktrees' stacks by id, opened by Locate (nullptr: no such directory).
  std::map<std::string, std::unique_ptr<Stack>, std::less<>> other_worktrees_;
  NulNameMemo nul_names_;  // ReadRef's
};

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REPO_H_
