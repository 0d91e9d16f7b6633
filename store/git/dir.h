// Public API: finding the git directory the way git does when none is named.
#ifndef REFTAB_STORE_GIT_DIR_H_
#define REFTAB_STORE_GIT_DIR_H_

#include <string>

#include "format/status.h"
#include "format/visibility.h"
#include "store/git/config/config.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

// $GIT_DIR when set; otherwise, from `start_dir` upwards: a `.git` directory, a `.git` file
// saying "gitdir: X", or a directory that is itself a bare repository (has `reftable/` and
// `HEAD`). kNotFound (git's "not a git repository" wording) when there is none.
Result<std::string> DiscoverGitDir(const std::string& start_dir);
// The same from the process's current directory.
Result<std::string> DiscoverGitDir();

// Where a command runs relative to its repository, as git's setup works it out: what
// `rev-parse --git-dir`, --absolute-git-dir, --show-toplevel, --is-inside-git-dir,
// --is-inside-work-tree and --is-bare-repository print.
struct GitRepoLocation {
  std::string git_dir;           // as --git-dir prints it: as given, ".git", "." or absolute
  std::string absolute_git_dir;  // the real path
  std::string work_tree;         // absolute; empty when there is none (bare, or from inside
                                 // the git directory)
  bool inside_git_dir = false;
  bool inside_work_tree = false;
  bool bare = false;  // git's is_bare_repository: core.bare and no work tree
};

// `cwd` is the current directory (absolute). `given` is the git directory named by --git-dir
// or $GIT_DIR ("" to discover it as DiscoverGitDir does). `config` is the repository's
// (core.bare, core.worktree); $GIT_WORK_TREE is read as git reads it. Errors as
// DiscoverGitDir's, and a git directory whose real path cannot be found.
Result<GitRepoLocation> LocateGitRepo(const std::string& cwd, const std::string& given,
                                      const GitConfig& config);

// The git directory whose ref stack `stack_dir` is, or "" when it is none: its parent has
// HEAD and either objects/ (a repository) or commondir (a linked worktree's directory).
// For `--stack` pointed at .git/reftable, where git's rules (objects, config) apply.
std::string GitDirAroundStack(const std::string& stack_dir);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_DIR_H_
