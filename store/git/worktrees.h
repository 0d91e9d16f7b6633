// Public API: a repository's worktrees and the branch each has checked out, as git's
// get_worktrees lists them (the main worktree first, then $GIT_COMMON_DIR/worktrees/<id>),
// for for-each-ref's %(worktreepath).
#ifndef REFTAB_STORE_GIT_WORKTREES_H_
#define REFTAB_STORE_GIT_WORKTREES_H_

#include <string>
#include <vector>

#include "format/status.h"
#include "format/visibility.h"

namespace reftab {
REFTAB_PUBLIC_BEGIN

struct GitWorktreeHead {
  std::string path;      // absolute path of the work tree (a bare main repository: its dir)
  std::string head_ref;  // the ref HEAD finally names when HEAD is a symref, else ""
};

// Worktrees whose HEAD cannot be read are listed without a head_ref, as git does.
Status ListWorktreeHeads(const std::string& common_dir, std::vector<GitWorktreeHead>* out);

// One worktree as git's get_worktrees lists it, for commands that visit each one's refs.
struct GitWorktree {
  std::string id;        // "" for the main worktree, else its name under worktrees/
  std::string git_dir;   // its git directory (the common directory for the main worktree)
  bool current = false;  // the worktree whose git directory is the one this process opened
};

// The main worktree first, then every $GIT_COMMON_DIR/worktrees/<id> with a readable,
// non-empty gitdir file, in the order the directory lists them (git does not sort them, and
// the order is visible: `git reflog expire --all` prints its lines worktree by worktree).
// `current_git_dir` marks the current one (compared after resolving symlinks).
Status ListGitWorktrees(const std::string& common_dir, const std::string& current_git_dir,
                        std::vector<GitWorktree>* out);

REFTAB_PUBLIC_END
}  // namespace reftab

#endif  // REFTAB_STORE_GIT_WORKTREES_H_
