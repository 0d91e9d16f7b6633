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

#include "format/status.h"
#include "store/stack.h"

namespace reftab {

// The few git config values reftab reads. Keys are "section.name" in lower case
// ("reftable.blocksize"); subsections keep their case ("remote.origin.url").
class GitConfig {
 public:
  // Parses git's config syntax (sections, key = value, comments, quoted values).
  static GitConfig Parse(std::string_view text);
  std::optional<std::string> Get(std::string_view key) const;
  // git's boolean spellings; `fallback` when unset or unrecognised.
  bool GetBool(std::string_view key, bool fallback) const;
  // A number with git's k/m/g suffixes; `fallback` when unset or malformed.
  int64_t GetInt(std::string_view key, int64_t fallback) const;

 private:
  std::map<std::string, std::string, std::less<>> values_;
};

// True for names that live in a worktree's own stack: root refs (HEAD, ORIG_HEAD, ... — upper
// case, '_' and '-' outside refs/, no digits) and refs/bisect/, refs/worktree/, refs/rewritten/.
bool IsPerWorktreeRef(std::string_view refname);

class GitRepo {
 public:
  // Opens the repository whose git directory is `git_dir` (a `.git` directory, a bare
  // repository, or a linked worktree's `.git/worktrees/<id>`). `base` supplies options the
  // config does not set (fs, durability); the object format, block size, restart interval,
  // index objects, geometric factor and lock timeout come from the config when present.
  static Result<std::unique_ptr<GitRepo>> Open(const std::string& git_dir, StackOptions base);

  const std::string& git_dir() const { return git_dir_; }
  const std::string& common_dir() const { return common_dir_; }
  const GitConfig& config() const { return config_; }
  bool bare() const { return config_.GetBool("core.bare", false); }
  Stack& main_stack() { return *main_; }
  // The linked worktree's own stack, or nullptr in the main worktree.
  Stack* worktree_stack() { return worktree_.get(); }
  // The stack that stores `refname`.
  Stack& StackFor(std::string_view refname);

  // Exact lookup in the right stack (tombstones mean not found).
  Status ReadRef(std::string_view refname, RefRecord* ref, bool* found);
  // Every live ref whose name starts with `prefix`, in name order, as this worktree sees
  // them; `fn` returns false to stop.
  Status ForEachRef(std::string_view prefix, const std::function<bool(const RefRecord&)>& fn);

 private:
  GitRepo() = default;
  std::string git_dir_;
  std::string common_dir_;
  GitConfig config_;
  std::unique_ptr<Stack> main_;
  std::unique_ptr<Stack> worktree_;
};

}  // namespace reftab

#endif  // REFTAB_STORE_GIT_REPO_H_
